"""Axis arguments shared by many kernels: negative axes, and axes given either
as an attribute (old opsets) or as an optional int64 input (newer opsets)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


def normalize_axis(axis: int, rank: int) -> int:
    """Map a possibly negative ``axis`` into ``[0, rank)``, checking its range."""
    axis = int(axis)
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def normalize_axes(axes: Iterable[int], rank: int) -> tuple[int, ...]:
    """Normalise every axis of ``axes`` (see :func:`normalize_axis`), keeping order."""
    return tuple(normalize_axis(a, rank) for a in axes)


def optional_input(inputs: Sequence[np.ndarray | None], index: int) -> np.ndarray | None:
    """``inputs[index]``, or ``None`` when that optional input is omitted or absent."""
    return inputs[index] if index < len(inputs) else None


def int_list(value: np.ndarray | Sequence[int] | None) -> list[int] | None:
    """A 1-D int64 tensor (or list) as a Python ``list[int]``; ``None`` stays ``None``."""
    if value is None:
        return None
    return [int(v) for v in np.asarray(value).reshape(-1)]


def axes_from(inputs: Sequence[np.ndarray | None], attrs: dict[str, Any],
              input_index: int, attr: str = "axes") -> list[int] | None:
    """Axes given as input ``input_index`` (newer opsets) or as attribute ``attr``."""
    from_input = optional_input(inputs, input_index)
    if from_input is not None:
        return int_list(from_input)
    return int_list(attrs.get(attr))
