"""Sliding-window geometry shared by convolution and pooling: attribute
defaults, ``auto_pad`` padding, output sizes (``ceil_mode`` included) and a
zero-copy windowed view of a padded input.

Viewing the input as ``(N, C, *out, *kernel)`` with stride tricks lets conv
reduce with one ``tensordot`` (numpy's im2col + BLAS) and pooling with one
reduction, with no Python loop over output pixels.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

SAME_PADDINGS = ("SAME_UPPER", "SAME_LOWER")


@dataclasses.dataclass(frozen=True)
class Window:
    """The geometry of a sliding window over the spatial dims of an ``N, C, ...`` tensor."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    output: tuple[int, ...]

    @property
    def extent(self) -> tuple[int, ...]:
        """Span of one dilated kernel, ``(k - 1) * d + 1`` per dim."""
        return tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilations))

    def overhang(self, spatial: Sequence[int]) -> tuple[int, ...]:
        """Extra end padding the last window needs beyond ``pads_end`` (ceil mode)."""
        return tuple(max(0, (o - 1) * s + e - (i + b + p))
                     for o, s, e, i, b, p in zip(self.output, self.strides, self.extent,
                                                 spatial, self.pads_begin, self.pads_end))


def spatial_attrs(attrs: dict[str, Any], rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(strides, dilations)`` with ONNX's defaults of 1 per spatial dim."""
    strides = tuple(attrs.get("strides") or (1,) * rank)
    dilations = tuple(attrs.get("dilations") or (1,) * rank)
    return strides, dilations


def pads_for(auto_pad: str, spatial: Sequence[int], extent: Sequence[int], strides: Sequence[int],
             pads: Sequence[int] | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(pads_begin, pads_end)`` for ``auto_pad`` (explicit ``pads`` under NOTSET).

    SAME_* pad so that ``output = ceil(input / stride)``; an odd total puts the
    extra cell at the end (UPPER) or at the beginning (LOWER).
    """
    rank = len(spatial)
    if auto_pad in SAME_PADDINGS:
        totals = [max(0, (math.ceil(i / s) - 1) * s + e - i)
                  for i, e, s in zip(spatial, extent, strides)]
        small = tuple(t // 2 for t in totals)
        large = tuple(t - t // 2 for t in totals)
        return (small, large) if auto_pad == "SAME_UPPER" else (large, small)
    if auto_pad == "VALID" or not pads:
        return (0,) * rank, (0,) * rank
    if auto_pad != "NOTSET":
        raise ValueError(f"unknown auto_pad {auto_pad!r}")
    return tuple(pads[:rank]), tuple(pads[rank:])


def output_size(size: int, extent: int, stride: int, pad_begin: int, pad_end: int,
                ceil_mode: bool) -> int:
    """Number of window positions along one dim.

    In ceil mode a last, partial window is kept unless it would start inside the
    end padding (ONNX follows PyTorch here).
    """
    span = size + pad_begin + pad_end - extent
    if not ceil_mode:
        return span // stride + 1
    count = -(-span // stride) + 1
    if (count - 1) * stride >= size + pad_begin:
        count -= 1
    return count


def window_for(spatial: Sequence[int], kernel: Sequence[int], attrs: dict[str, Any],
               ceil_mode: bool = False) -> Window:
    """The :class:`Window` an ONNX conv/pool node with ``attrs`` slides over ``spatial``."""
    rank = len(spatial)
    strides, dilations = spatial_attrs(attrs, rank)
    kernel = tuple(int(k) for k in kernel)
    extent = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilations))
    auto_pad = attrs.get("auto_pad", "NOTSET") or "NOTSET"
    begin, end = pads_for(auto_pad, spatial, extent, strides, attrs.get("pads"))
    if auto_pad in SAME_PADDINGS:
        out = tuple(-(-i // s) for i, s in zip(spatial, strides))
    elif auto_pad == "VALID":
        # ONNX's ceil-mode VALID rule ceil((i - e + 1) / s) equals the floor rule.
        out = tuple((i - e) // s + 1 for i, e, s in zip(spatial, extent, strides))
    else:
        out = tuple(output_size(i, e, s, b, p, ceil_mode)
                    for i, e, s, b, p in zip(spatial, extent, strides, begin, end))
    if min(out, default=1) <= 0:
        raise ValueError(f"window {kernel} with pads {begin}/{end} does not fit input {tuple(spatial)}")
    return Window(kernel, strides, dilations, begin, end, out)


def pad_spatial(x: np.ndarray, begin: Sequence[int], end: Sequence[int], fill: Any) -> np.ndarray:
    """Pad the trailing ``len(begin)`` dims of ``x`` with the constant ``fill``."""
    if not any(begin) and not any(end):
        return x
    lead = [(0, 0)] * (x.ndim - len(begin))
    return np.pad(x, lead + list(zip(begin, end)), mode="constant", constant_values=fill)


def sliding_windows(x: np.ndarray, window: Window, fill: Any = 0) -> np.ndarray:
    """Read-only view ``(*lead, *window.output, *window.kernel)`` of ``x``'s windows.

    ``x`` has any number of leading dims followed by the spatial dims; it is
    padded with ``fill`` (pads plus any ceil-mode overhang) before viewing.
    """
    rank = len(window.kernel)
    spatial = x.shape[x.ndim - rank:]
    end = tuple(p + o for p, o in zip(window.pads_end, window.overhang(spatial)))
    padded = np.ascontiguousarray(pad_spatial(x, window.pads_begin, end, fill))
    lead = padded.shape[:padded.ndim - rank]
    elem = padded.strides[padded.ndim - rank:]
    shape = lead + window.output + window.kernel
    strides = (padded.strides[:padded.ndim - rank]
               + tuple(e * s for e, s in zip(elem, window.strides))
               + tuple(e * d for e, d in zip(elem, window.dilations)))
    return as_strided(padded, shape=shape, strides=strides, writeable=False)


def window_counts(spatial: Sequence[int], window: Window, include_pad: bool) -> np.ndarray:
    """How many elements of a map of ``spatial`` dims each window averages over,
    shaped ``window.output``.

    With ``include_pad`` the explicit pads count but the ceil-mode overhang
    never does (PyTorch's and ONNX's divisor).
    """
    ones = np.ones(tuple(spatial), dtype=np.float64)
    if include_pad:
        ones = pad_spatial(ones, window.pads_begin, window.pads_end, 1.0)
        unpadded = (0,) * len(window.kernel)
        window = dataclasses.replace(window, pads_begin=unpadded, pads_end=unpadded)
    return sliding_windows(ones, window, 0.0).sum(axis=tuple(range(-len(window.kernel), 0)))
