"""Running one ``ge`` op on numpy arrays: :func:`run_op`.

This is the single door from the IR to the numpy kernels
(:mod:`geir.backends.kernels`), shared by the reference interpreter and the Ascend
emulator. A ge op that mirrors an ONNX op runs the kernel of its ONNX type (its
OpDef's ``onnx_op``); a GE-specific op runs the kernel registered under its ge
name; ``ge.onnx_op`` runs through ONNX's reference evaluator
(:func:`geir.backends.kernels.onnx_fallback.run_onnx_op`), as GE falls back to AICPU.

Everything that depends only on the op name (which kernel, which attributes to
drop) is worked out once per name and cached, since the emulator calls
:func:`run_op` for every kernel task.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from geir.attributes import Attribute, TypeAttr
from geir.constants import CONSTANT_OPS
from geir.diagnostics import DiagnosticError
from geir.types import ElementType, FloatType, IntegerType, TensorType, Type, parse_element_type
from geir.types import storage_dtype as element_storage_dtype

__all__ = ["run_op", "prepare_op", "storage_dtype", "PreparedOp", "KernelError", "KernelFailed"]

#: a kernel ready to run: inputs (None = omitted optional input) -> results
PreparedOp = Callable[[Sequence["np.ndarray | None"]], list[np.ndarray]]

#: ge ops that are constants: their result is their ``value`` attribute
#: ``ge.onnx_op`` attributes naming the ONNX op (the rest are the op's own)
_ONNX_OP_META = ("op_type", "domain", "opset")


class KernelError(Exception):
    """No kernel can run this op (unknown op, or one with regions / no numerics)."""


class KernelFailed(DiagnosticError):
    """An op's kernel raised on the values it was given: the run's finding,
    located at the op (an op no kernel implements is another error)."""


# numpy has no bf16, float8 or 4-bit types; ml_dtypes (an onnx dependency) has,
# and it is what ONNX's own arrays of those types use
@functools.lru_cache(maxsize=None)
def _storage_dtype(element_type: ElementType) -> np.dtype:
    try:
        return element_storage_dtype(element_type)
    except ValueError as e:
        raise KernelError(str(e)) from None


def storage_dtype(element_type: Type | str) -> np.dtype:
    """The numpy dtype arrays of ``element_type`` (or of a tensor type's elements,
    or an element type spelled ``"bf16"``) have at run time: ONNX's choice, so
    bf16 is ``ml_dtypes.bfloat16``, not the f32 the IR widens constants to."""
    if isinstance(element_type, str):
        parsed = parse_element_type(element_type)
        if parsed is None:
            raise KernelError(f"'{element_type}' is not an element type")
        element_type = parsed
    if isinstance(element_type, TensorType):
        element_type = element_type.element_type
    if not isinstance(element_type, (IntegerType, FloatType, ElementType)):
        raise KernelError(f"{element_type} is not a tensor or element type")
    return _storage_dtype(element_type)


@functools.lru_cache(maxsize=None)
def _dispatch(op_name: str) -> tuple[str, Any, str | None]:
    """(kind, kernel, ONNX type) for an op name: kind is "kernel", "onnx_op" or "constant"."""
    from geir.backends.kernels import KERNELS
    from geir.dialect_registry import lookup_op
    if op_name in CONSTANT_OPS:
        return "constant", None, None
    if op_name == "ge.onnx_op":
        from geir.backends.kernels.onnx_fallback import run_onnx_op
        return "onnx_op", run_onnx_op, None
    od = lookup_op(op_name)
    if od is None:
        raise KernelError(f"'{op_name}' is not a registered op")
    if od.num_regions:
        raise KernelError(f"'{op_name}' has regions: the interpreter runs it, not a kernel")
    key = od.onnx_op if od.onnx_op is not None and od.onnx_op in KERNELS else op_name
    kernel = KERNELS.get(key)
    if kernel is None:
        if od.onnx_op is not None:  # an ONNX op without a native kernel: the AICPU fallback
            from geir.backends.kernels.onnx_fallback import run_onnx_op
            return "onnx_fallback", run_onnx_op, od.onnx_op
        raise KernelError(f"no numpy kernel for '{op_name}'")
    return "kernel", kernel, od.onnx_op


@functools.lru_cache(maxsize=None)
def _dropped_attributes() -> frozenset[str]:
    """The attributes every ge op may carry that mean nothing to a kernel
    (engine, stream, offsets ... decided by passes)."""
    from geir.dialects.ge import COMMON_ATTRIBUTES
    return frozenset(a.name for a in COMMON_ATTRIBUTES)


def _kernel_value(attr: Attribute) -> Any:
    from geir.onnx_attributes import kernel_attribute_value
    if isinstance(attr, TypeAttr) and isinstance(attr.value, ElementType):
        return storage_dtype(attr.value)
    return kernel_attribute_value(attr)


def _kernel_attributes(attributes: Mapping[str, Attribute]) -> dict[str, Any]:
    dropped = _dropped_attributes()
    # dotted names are discardable annotations (ge.name, ...), never ONNX attributes
    return {k: _kernel_value(v) for k, v in attributes.items() if k not in dropped and "." not in k}


def _result_dtypes(result_types: Sequence[Type | str] | None) -> list[np.dtype | None] | None:
    if result_types is None:
        return None
    out: list[np.dtype | None] = []
    for t in result_types:
        try:
            out.append(storage_dtype(t))
        except KernelError:
            out.append(None)  # strings, opaque types: leave the kernel's dtype
    return out


def prepare_op(op_name: str, attributes: Mapping[str, Attribute], num_results: int,
               result_types: Sequence[Type | str] | None = None) -> PreparedOp:
    """``run_op`` with everything but the inputs decided once: the function the
    interpreter calls for each execution of one op.

    Raises:
        KernelError: ``op_name`` has no kernel.
    """
    kind, kernel, onnx_type = _dispatch(op_name)
    dtypes = _result_dtypes(result_types)

    def finish(outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if len(outputs) < num_results:
            raise ValueError(f"the kernel of '{op_name}' gave {len(outputs)} results, the op has {num_results}")
        # kernels return every output the op defines; the op may use fewer
        results = [np.asarray(y) for y in outputs[:num_results]]
        if dtypes is not None:
            for i, (y, dtype) in enumerate(zip(results, dtypes)):
                if dtype is not None and y.dtype != dtype:
                    results[i] = y.astype(dtype)
        return results

    if kind == "constant":
        from geir.attributes import DenseElementsAttr, DenseResourceAttr
        value = attributes.get("value")
        if not isinstance(value, (DenseElementsAttr, DenseResourceAttr)):
            raise KernelError(f"'{op_name}' has no tensor 'value' attribute")
        dtype = storage_dtype(value.type)
        if isinstance(value, DenseResourceAttr):
            # the blob holds the tensor's own bytes (ml_dtypes' for bf16 and float8)
            if value.blob.data is None:
                raise KernelError(f"'{op_name}' has no values: resource '{value.blob.name}' is absent "
                                  "(a graph imported without its weights)")
            array = np.frombuffer(value.blob.data, dtype=dtype).reshape(value.type.shape)  # type: ignore[arg-type]
        else:
            array = value.array.astype(dtype, copy=False)
        return lambda inputs: [array]

    attrs = _kernel_attributes(attributes)
    if kind == "onnx_op":
        from geir.attributes import IntegerAttr, StringAttr
        op_type, domain, opset = (attributes.get(k) for k in _ONNX_OP_META)
        if not isinstance(op_type, StringAttr):
            raise KernelError("'ge.onnx_op' needs its 'op_type' attribute")
        import onnx
        domain_name = domain.value if isinstance(domain, StringAttr) else ""
        version = opset.value if isinstance(opset, IntegerAttr) else onnx.defs.onnx_opset_version()
        own = {k: v for k, v in attrs.items() if k not in _ONNX_OP_META}
        return lambda inputs: finish(kernel(op_type.value, domain_name, version, list(inputs), own, num_results))

    if kind == "onnx_fallback":
        import onnx
        version = onnx.defs.onnx_opset_version()
        return lambda inputs: finish(kernel(onnx_type, "", version, list(inputs), attrs, num_results))

    from geir.backends.kernels import OUTPUT_COUNT_ATTRIBUTES
    implied = OUTPUT_COUNT_ATTRIBUTES.get(onnx_type) if onnx_type is not None else None
    if implied is not None and implied not in attrs:
        attrs[implied] = num_results  # e.g. Split < 18: as many even parts as results
    from geir.backends.kernels.underflow import check_underflow

    def run(inputs: Sequence[np.ndarray | None]) -> list[np.ndarray]:
        results = finish(kernel(list(inputs), attrs))
        check_underflow(attributes, op_name, inputs, results, lambda wide: kernel(wide, attrs))
        return results
    return run


def run_op(op_name: str, attributes: Mapping[str, Attribute], inputs: Sequence[np.ndarray | None],
           num_results: int, *, result_types: Sequence[Type | str] | None = None) -> list[np.ndarray]:
    """Run ge op ``op_name`` on numpy arrays.

    Args:
        op_name: the ge op (``"ge.conv2d"``, ``"ge.all_reduce"``, ``"ge.onnx_op"`` ...).
        attributes: the op's attributes as IR attributes.
        inputs: the operands' values in operand order; None for a ``ge.none`` operand.
        num_results: how many results the op has (the kernel's extra optional
            outputs are dropped).
        result_types: the results' declared types (tensor types, element types
            or their spellings such as ``"f16"``); each result is cast to it.

    Returns:
        one array per result.

    Raises:
        KernelError: no kernel can run ``op_name``. Errors of the kernel itself
        (bad input values) propagate as the kernel raises them.
    """
    kernel = prepare_op(op_name, attributes, num_results, result_types)
    with np.errstate(all="ignore"):  # ONNX semantics, as the interpreter's: inf and nan propagate silently
        return kernel(inputs)
