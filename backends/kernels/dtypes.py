"""The dtype policy shared by the kernels: which precision to compute in, and
the extreme value of a dtype (the identity of max/min, the padding that never
wins a max pool)."""

from __future__ import annotations

from typing import Any

import numpy as np


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The float dtype to compute in: float64 and integers (exact up to 2**53) in
    float64, narrower floats (float16, bfloat16, float8) widened to float32."""
    dtype = np.dtype(dtype)
    if dtype == np.float64 or dtype.kind in "iu":
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def lowest(dtype: np.dtype) -> Any:
    """The smallest value of ``dtype``: -inf for floats, False for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return False
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def highest(dtype: np.dtype) -> Any:
    """The largest value of ``dtype``: +inf for floats, True for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return True
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max
