"""Reduction kernels: every Reduce* op (axes as attribute or as input,
keepdims, noop_with_empty_axes, empty-set identities) and ArgMax/ArgMin
(keepdims, select_last_index)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from . import Attrs, Inputs, register
from .axes import axes_from, normalize_axes, normalize_axis
from .dtypes import compute_dtype, highest, lowest


def _accumulator(dtype: np.dtype) -> np.dtype:
    """Sums accumulate in the input dtype for integers (numpy would widen to
    int64, ONNX wraps) and in at least float32 for floats."""
    return dtype if dtype.kind in "iub" else compute_dtype(dtype)


def _log_sum_exp(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    peak = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    peak = np.where(np.isfinite(peak), peak, 0)  # all -inf (or empty) stays -inf below
    total = np.sum(np.exp(x - peak), axis=axes, keepdims=True)
    with np.errstate(divide="ignore"):
        result = np.log(total) + peak
    return result if keepdims else np.squeeze(result, axis=axes)


#: ``fn(x, axes, keepdims)`` for each Reduce op; x is already in the accumulation dtype.
_REDUCTIONS: dict[str, Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]] = {
    "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k, dtype=x.dtype),
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k, dtype=x.dtype),
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k, initial=lowest(x.dtype)),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k, initial=highest(x.dtype)),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k, dtype=x.dtype),
    "ReduceL2": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k, dtype=x.dtype)),
    "ReduceSumSquare": lambda x, a, k: np.sum(x * x, axis=a, keepdims=k, dtype=x.dtype),
    "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k, dtype=x.dtype)),
    "ReduceLogSumExp": _log_sum_exp,
}

#: reductions whose result is exact in the input dtype (no float widening needed)
_ORDER_ONLY = frozenset({"ReduceMax", "ReduceMin"})


def reduction_axes(inputs: Inputs, attrs: Attrs, rank: int) -> tuple[int, ...] | None:
    """The axes to reduce, or None for "no reduction" (empty axes + noop_with_empty_axes)."""
    axes = axes_from(inputs, attrs, 1)
    if not axes:
        return None if attrs.get("noop_with_empty_axes", 0) else tuple(range(rank))
    return normalize_axes(axes, rank)


def _reduce(name: str, inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    x = inputs[0]
    axes = reduction_axes(inputs, attrs, x.ndim)
    if axes is None:
        return [x.copy()]
    keepdims = bool(attrs.get("keepdims", 1))
    work = x if name in _ORDER_ONLY else x.astype(_accumulator(x.dtype), copy=False)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result = _REDUCTIONS[name](work, axes, keepdims)
    return [np.asarray(result).astype(x.dtype)]


for _name in _REDUCTIONS:
    register(_name)(functools.partial(_reduce, _name))


def _arg_extreme(name: str, inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ArgMax/ArgMin -> int64; ties go to the first index, or the last with select_last_index."""
    x = inputs[0]
    axis = normalize_axis(attrs.get("axis", 0), x.ndim)
    fn = np.argmax if name == "ArgMax" else np.argmin
    if attrs.get("select_last_index", 0):
        index = x.shape[axis] - 1 - fn(np.flip(x, axis=axis), axis=axis)
    else:
        index = fn(x, axis=axis)
    if attrs.get("keepdims", 1):
        index = np.expand_dims(index, axis)
    return [np.asarray(index, dtype=np.int64)]


for _name in ("ArgMax", "ArgMin"):
    register(_name)(functools.partial(_arg_extreme, _name))
