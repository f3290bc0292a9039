"""Reading compile-time constants out of the IR (MLIR's ``m_Constant``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from geir.attributes import DenseElementsAttr, DenseResourceAttr
from geir.operation import Operation, OpResult, Value

__all__ = ["constant_value", "constant_axes", "CONSTANT_OPS"]

#: ops whose single result is the tensor in their ``value`` attribute
CONSTANT_OPS = frozenset({"ge.const", "ge.weights"})


def constant_value(value: Value) -> np.ndarray | None:
    """The array a constant op gives ``value``, or None when not a constant."""
    if not isinstance(value, OpResult) or value.op.name not in CONSTANT_OPS:
        return None
    attr: Any = value.op.attributes.get("value")
    if isinstance(attr, DenseElementsAttr):
        return attr.array
    if isinstance(attr, DenseResourceAttr) and attr.blob.data is not None:
        return attr.to_numpy()
    return None


def constant_axes(op: Operation, index: int = 1) -> list[int] | None:
    """The axes ``op`` takes as its ``axes`` attribute (before opset 13/18) or as a
    constant operand ``index`` (after); None when it has neither or the operand
    is not a constant."""
    axes = op.get_attr("axes")
    if axes is not None:
        return [int(a) for a in axes]  # type: ignore[union-attr]
    if len(op.operands) <= index:
        return None
    array = constant_value(op.operands[index])
    return None if array is None else [int(a) for a in array.reshape(-1)]
