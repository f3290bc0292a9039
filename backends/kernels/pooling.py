"""Pooling kernels: MaxPool (ceil_mode, dilations, storage_order, Indices),
AveragePool (count_include_pad, ceil_mode, dilations), LpPool and the global
pools, all reductions over the windowed view of :mod:`.window`."""

from __future__ import annotations

import functools
import math

import numpy as np

from . import Attrs, Inputs, register
from .dtypes import compute_dtype, lowest
from .window import Window, sliding_windows, window_counts, window_for


def _pool_window(x: np.ndarray, attrs: Attrs) -> Window:
    return window_for(x.shape[2:], attrs["kernel_shape"], attrs, bool(attrs.get("ceil_mode", 0)))


def _kernel_axes(x: np.ndarray) -> tuple[int, ...]:
    """Axes of the kernel dims in a ``(N, C, *out, *kernel)`` windows view."""
    rank = x.ndim - 2
    return tuple(range(2 + rank, 2 + 2 * rank))


def _argmax_input_indices(x: np.ndarray, window: Window, arg: np.ndarray,
                          column_major: bool) -> np.ndarray:
    """MaxPool's Indices: the flat input index of each window's winning element.

    ``arg`` is the winner's position inside its (flattened) window; its input
    coordinate is ``out * stride - pad_begin + kernel_offset * dilation``.  N and
    C are always row major; ``storage_order=1`` makes the spatial part column major.
    """
    n, c, *spatial = x.shape
    rank = len(spatial)
    offsets = np.unravel_index(arg, window.kernel)
    coords = []
    for i in range(rank):
        out_pos = np.arange(window.output[i]).reshape([-1 if j == i else 1 for j in range(rank)])
        coords.append(out_pos * window.strides[i] - window.pads_begin[i]
                      + offsets[i] * window.dilations[i])
    # mode="clip" only matters for all-padding windows, whose result ONNX leaves undefined
    inner = np.ravel_multi_index(coords, spatial, mode="clip", order="F" if column_major else "C")
    outer = np.arange(n * c, dtype=np.int64).reshape(n, c, *([1] * rank)) * int(np.prod(spatial))
    return (outer + inner).astype(np.int64)


@register("MaxPool")
def max_pool(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """MaxPool -> [Y, Indices]; the first maximum in window order wins ties."""
    x = inputs[0]
    window = _pool_window(x, attrs)
    windows = sliding_windows(x, window, lowest(x.dtype))
    # copies: the im2col of the pool (the window's size spelt out: -1 is ambiguous for an empty batch)
    flat = windows.reshape(*windows.shape[:x.ndim], math.prod(windows.shape[x.ndim:]))
    arg = np.argmax(flat, axis=-1)
    values = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    indices = _argmax_input_indices(x, window, arg, bool(attrs.get("storage_order", 0)))
    return [values.astype(x.dtype), indices]


@register("AveragePool")
def average_pool(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """AveragePool with count_include_pad (default 0), ceil_mode and dilations."""
    x = inputs[0]
    window = _pool_window(x, attrs)
    work = compute_dtype(x.dtype)
    sums = sliding_windows(x.astype(work, copy=False), window).sum(axis=_kernel_axes(x))
    counts = window_counts(x.shape[2:], window, bool(attrs.get("count_include_pad", 0)))
    return [(sums / counts).astype(x.dtype)]


@register("LpPool")
def lp_pool(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """LpPool: ``(sum |x|^p) ** (1/p)`` over each window (p defaults to 2)."""
    x = inputs[0]
    p = float(attrs.get("p", 2))
    work = compute_dtype(x.dtype)
    window = _pool_window(x, attrs)
    powered = np.abs(x.astype(work, copy=False)) ** p
    sums = sliding_windows(powered, window).sum(axis=_kernel_axes(x))
    return [(sums ** (1.0 / p)).astype(x.dtype)]


def _global_pool(name: str, inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    x = inputs[0]
    axes = tuple(range(2, x.ndim))
    work = compute_dtype(x.dtype)
    if name == "GlobalMaxPool":
        y = np.max(x, axis=axes, keepdims=True)
    elif name == "GlobalAveragePool":
        y = np.mean(x.astype(work, copy=False), axis=axes, keepdims=True)
    else:  # GlobalLpPool
        p = float(attrs.get("p", 2))
        y = np.sum(np.abs(x.astype(work, copy=False)) ** p, axis=axes, keepdims=True) ** (1.0 / p)
    return [y.astype(x.dtype)]


for _name in ("GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"):
    register(_name)(functools.partial(_global_pool, _name))
