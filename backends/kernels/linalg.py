"""Linear-algebra kernels: MatMul, Gemm, Einsum, MatMulInteger and Det.

Narrow floats are multiplied in float32 (what accumulating hardware does) and
cast back; integer products accumulate in int64 and wrap to the output dtype.
"""

from __future__ import annotations

import numpy as np

from . import Attrs, Inputs, register
from .axes import optional_input
from .dtypes import compute_dtype


def _work_dtype(dtype: np.dtype) -> np.dtype:
    """Accumulation dtype: int64 for integers, else at least float32."""
    return np.dtype(np.int64) if dtype.kind in "iu" else compute_dtype(dtype)


@register("MatMul")
def matmul(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """MatMul with numpy-matmul semantics (batch broadcasting, 1-D promotion); ``transA``
    / ``transB`` swap the last two axes of an operand of rank 2 or more first."""
    a, b = inputs
    if attrs.get("transA", 0) and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if attrs.get("transB", 0) and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    work = _work_dtype(a.dtype)
    return [np.asarray(np.matmul(a.astype(work, copy=False), b.astype(work, copy=False))).astype(a.dtype)]


@register("Gemm")
def gemm(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Gemm: ``alpha * A' @ B' + beta * C`` with optional transposes and optional C."""
    a, b = inputs[0], inputs[1]
    c = optional_input(inputs, 2)
    work = _work_dtype(a.dtype)
    a = a.astype(work, copy=False)
    b = b.astype(work, copy=False)
    if attrs.get("transA", 0):
        a = a.T
    if attrs.get("transB", 0):
        b = b.T
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    y = a @ b
    if alpha != 1.0:
        y = alpha * y
    if c is not None and beta != 0:
        y = y + (c.astype(work) if beta == 1.0 else beta * c.astype(work))
    return [np.asarray(y).astype(inputs[0].dtype)]


@register("Einsum")
def einsum(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Einsum with ONNX's equation (numpy's syntax; spaces are allowed in ONNX)."""
    equation = attrs["equation"].replace(" ", "")
    dtype = inputs[0].dtype
    work = _work_dtype(dtype)
    result = np.einsum(equation, *(x.astype(work, copy=False) for x in inputs), optimize=True)
    return [np.asarray(result).astype(dtype)]


def _zero_point(value: np.ndarray | None, axis_shape: tuple[int, ...]) -> np.ndarray | int:
    """A scalar zero point, or a per-row/per-column one reshaped to broadcast."""
    if value is None:
        return 0
    value = value.astype(np.int64)
    return value.reshape(axis_shape) if value.size > 1 else value.reshape(())


@register("MatMulInteger")
def matmul_integer(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> int32.

    ``a_zero_point`` may be per row of A, ``b_zero_point`` per column of B.
    """
    a, b = inputs[0].astype(np.int64), inputs[1].astype(np.int64)
    a = a - _zero_point(optional_input(inputs, 2), (-1, 1))
    b = b - _zero_point(optional_input(inputs, 3), (1, -1))
    return [np.asarray(np.matmul(a, b)).astype(np.int32)]


@register("Det")
def det(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Det of the trailing square matrices."""
    x = inputs[0]
    return [np.asarray(np.linalg.det(x.astype(compute_dtype(x.dtype), copy=False))).astype(x.dtype)]
