"""Reading compile-time constants out of the IR (MLIR's ``m_Constant``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from geir.attributes import DenseElementsAttr, DenseResourceAttr
from geir.operation import OpResult, Value

__all__ = ["constant_value", "CONSTANT_OPS"]

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
