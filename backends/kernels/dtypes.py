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
    """The smallest value of ``dtype``: -inf for floats that have it, False for bool."""
    return _extreme(np.dtype(dtype), -1)


def highest(dtype: np.dtype) -> Any:
    """The largest value of ``dtype``: +inf for floats that have it, True for bool."""
    return _extreme(np.dtype(dtype), +1)


def _extreme(dtype: np.dtype, sign: int) -> Any:
    if dtype == np.bool_:
        return sign > 0
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if sign > 0 else info.min
    if dtype.kind == "f":
        return sign * np.inf
    # ml_dtypes' bfloat16, float8 and int4 types are numpy 'V' kinds.
    import ml_dtypes
    try:
        iinfo = ml_dtypes.iinfo(dtype)
        return iinfo.max if sign > 0 else iinfo.min
    except ValueError:
        pass
    with np.errstate(invalid="ignore", over="ignore"):
        inf = np.array(sign * np.inf, np.float32).astype(dtype)
    if np.isinf(inf.astype(np.float32)):
        return inf
    finfo = ml_dtypes.finfo(dtype)
    return finfo.max if sign > 0 else finfo.min
