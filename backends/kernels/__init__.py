"""Numpy kernels for every op the reference interpreter and the Ascend emulator execute.

A kernel is a plain function of numpy arrays, independent of the IR and of timing::

    kernel(inputs: list[np.ndarray | None], attrs: dict[str, Any]) -> list[np.ndarray]

* ``inputs`` follow the ONNX input order; an omitted optional input is ``None``
  (trailing omitted inputs may also simply be absent from the list).
* ``attrs`` are the node's attributes as Python values (see
  :func:`onnx_node_attributes`); a missing attribute takes ONNX's default inside
  the kernel.  Dtype-valued attributes (:data:`DTYPE_ATTRIBUTES`) are numpy dtypes.
* The result has one array per output the op defines, optional ones included
  (the caller drops those its node does not use), each of exactly the ONNX
  output dtype.  Kernels never modify their inputs and never return them.

Kernels are keyed by ONNX op type (domain ``""``) for ONNX semantics and by ge op
name (``"ge.all_reduce"``) for GE-specific ops.  ONNX ops without a native kernel
run through :func:`geir.backends.kernels.onnx_fallback.run_onnx_op`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # onnx (and the ml_dtypes it loads) is imported only where used
    import onnx

#: A kernel's inputs (ONNX order, None = omitted optional input) and attributes.
Inputs = list[np.ndarray | None]
Attrs = dict[str, Any]
Kernel = Callable[[Inputs, Attrs], list[np.ndarray]]

#: Every registered kernel, keyed by ONNX op type or ge op name.
KERNELS: dict[str, Kernel] = {}

#: INT attributes whose value is a ``TensorProto`` data-type enum; they reach
#: kernels as numpy dtypes and go back to enums in the ONNX fallback.
DTYPE_ATTRIBUTES: frozenset[str] = frozenset(
    {"to", "dtype", "output_dtype", "output_datatype", "stash_type", "precision"})


def register(*names: str) -> Callable[[Kernel], Kernel]:
    """Register the decorated kernel under each of ``names``.

    Registering the same function under several names (with the behaviour
    chosen from the name through a table, or via :func:`functools.partial`) is
    the preferred way to share one implementation between related ops.
    """
    if not names:
        raise ValueError("register() needs at least one op name")

    def decorate(fn: Kernel) -> Kernel:
        taken = [name for name in names if name in KERNELS]
        if taken:
            raise ValueError(f"kernel(s) {taken} registered twice")
        KERNELS.update(dict.fromkeys(names, fn))
        return fn

    return decorate


def get_kernel(name: str) -> Kernel:
    """Return the kernel for an ONNX op type or ge op name.

    Raises:
        KeyError: no native kernel exists; ONNX ops may still run through
            :func:`geir.backends.kernels.onnx_fallback.run_onnx_op`.
    """
    try:
        return KERNELS[name]
    except KeyError:
        raise KeyError(
            f"no numpy kernel registered for op {name!r}; ONNX ops without a native "
            f"kernel run through geir.backends.kernels.onnx_fallback.run_onnx_op "
            f"({len(KERNELS)} kernels registered)") from None


def has_kernel(name: str) -> bool:
    """Whether a native kernel is registered under ``name``."""
    return name in KERNELS


def dtype_from_onnx(elem_type: int) -> np.dtype:
    """Numpy dtype (ml_dtypes for bfloat16/float8/int4) of an ONNX ``TensorProto`` enum."""
    from onnx import helper
    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))


def onnx_attribute_value(attr: onnx.AttributeProto) -> Any:
    """Convert one ONNX attribute to the Python value kernels receive."""
    import onnx
    from onnx import helper, numpy_helper
    value = helper.get_attribute_value(attr)
    if attr.type == onnx.AttributeProto.TENSOR:
        return numpy_helper.to_array(value)
    if attr.type == onnx.AttributeProto.TENSORS:
        return [numpy_helper.to_array(t) for t in value]
    if attr.type == onnx.AttributeProto.STRING:
        return value.decode("utf-8")
    if attr.type == onnx.AttributeProto.STRINGS:
        return [v.decode("utf-8") for v in value]
    if attr.type == onnx.AttributeProto.INTS:
        return [int(v) for v in value]
    if attr.type == onnx.AttributeProto.FLOATS:
        return [float(v) for v in value]
    if attr.type == onnx.AttributeProto.INT and attr.name in DTYPE_ATTRIBUTES:
        return dtype_from_onnx(value)
    # INT, FLOAT, GRAPH(S), SPARSE_TENSOR(S), TYPE_PROTO(S) pass through as is.
    return value


#: ``op type -> attribute`` that older opsets left implicit in the node's output
#: count (Split < 18 splits evenly into as many outputs as the node has).
OUTPUT_COUNT_ATTRIBUTES: dict[str, str] = {"Split": "num_outputs"}


def onnx_node_attributes(node: onnx.NodeProto) -> dict[str, Any]:
    """The ``attrs`` dict of an ONNX node, as kernels expect it.

    Besides converting every attribute (:func:`onnx_attribute_value`), it makes
    explicit what a kernel cannot see otherwise: see :data:`OUTPUT_COUNT_ATTRIBUTES`.
    """
    attrs = {attr.name: onnx_attribute_value(attr) for attr in node.attribute}
    implied = OUTPUT_COUNT_ATTRIBUTES.get(node.op_type) if node.domain in ("", "ai.onnx") else None
    if implied and implied not in attrs:
        attrs[implied] = len(node.output)
    return attrs


# Importing the modules fills KERNELS; the order does not matter.
from . import (  # noqa: E402,F401  (registration side effects)
    activation,
    conv,
    detection,
    elementwise,
    ge_specific,
    grid_sample,
    linalg,
    normalization,
    pooling,
    quantization,
    reduction,
    resize,
    shape,
)

__all__ = [
    "Attrs",
    "DTYPE_ATTRIBUTES",
    "Inputs",
    "KERNELS",
    "OUTPUT_COUNT_ATTRIBUTES",
    "Kernel",
    "dtype_from_onnx",
    "get_kernel",
    "has_kernel",
    "onnx_attribute_value",
    "onnx_node_attributes",
    "register",
]
