"""Convolution kernels: Conv (groups, dilations, pads, strides, auto_pad, any
spatial rank >= 1), ConvInteger and ConvTranspose.

Conv reduces a strided windows view of the padded input against the weights
with ``tensordot``/``einsum`` (im2col + BLAS).  ConvTranspose multiplies every
input pixel by the whole kernel at once and scatters the products back with one
strided slice-add per kernel offset, never looping over output pixels.
"""

from __future__ import annotations

import string

import numpy as np

from . import Attrs, Inputs, register
from .axes import optional_input
from .dtypes import compute_dtype
from .window import SAME_PADDINGS, sliding_windows, spatial_attrs, window_for


def _spatial_letters(count: int, offset: int = 0) -> str:
    # Lower-case letters name einsum axes; n, g, c, m are taken by batch/group/channels.
    free = [ch for ch in string.ascii_lowercase if ch not in "ngcm"]
    return "".join(free[offset:offset + count])


def convolve(x: np.ndarray, w: np.ndarray, attrs: Attrs) -> np.ndarray:
    """ONNX Conv without bias, computed in the dtype of ``x`` (callers widen first).

    ``x`` is ``(N, C, *spatial)``, ``w`` is ``(M, C / group, *kernel)``.
    """
    rank = x.ndim - 2
    group = int(attrs.get("group", 1))
    kernel = tuple(attrs.get("kernel_shape") or w.shape[2:])
    window = window_for(x.shape[2:], kernel, attrs)
    windows = sliding_windows(x, window)  # (N, C, *out, *k)
    kernel_axes = list(range(2 + rank, 2 + 2 * rank))
    if group == 1:
        y = np.tensordot(windows, w, axes=([1, *kernel_axes], [1, *range(2, 2 + rank)]))
        return np.moveaxis(y, -1, 1)  # (N, *out, M) -> (N, M, *out)
    n, c = x.shape[:2]
    m = w.shape[0]
    grouped = windows.reshape(n, group, c // group, *windows.shape[2:])
    wg = w.reshape(group, m // group, *w.shape[1:])
    out, ker = _spatial_letters(rank), _spatial_letters(rank, rank)
    y = np.einsum(f"ngc{out}{ker},gmc{ker}->ngm{out}", grouped, wg, optimize=True)
    return y.reshape(n, m, *window.output)


def _bias_shape(bias: np.ndarray, rank: int) -> np.ndarray:
    return bias.reshape(-1, *([1] * rank))


@register("Conv")
def conv(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Conv(X, W, B?) for any spatial rank, computed in float32 for narrow floats."""
    x, w = inputs[0], inputs[1]
    bias = optional_input(inputs, 2)
    work = compute_dtype(x.dtype)
    y = convolve(x.astype(work, copy=False), w.astype(work, copy=False), attrs)
    if bias is not None:
        y = y + _bias_shape(bias.astype(work), x.ndim - 2)
    return [y.astype(x.dtype, order="C")]


@register("ConvInteger")
def conv_integer(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ConvInteger(X, W, x_zero_point?, w_zero_point?) -> int32.

    ``w_zero_point`` may be per output channel.  Products are accumulated in
    int64 and wrapped to int32, which equals int32 accumulation modulo 2**32.
    """
    x, w = inputs[0].astype(np.int64), inputs[1].astype(np.int64)
    x_zero = optional_input(inputs, 2)
    w_zero = optional_input(inputs, 3)
    if x_zero is not None:
        x = x - x_zero.astype(np.int64)
    if w_zero is not None:
        w = w - _bias_shape(w_zero.astype(np.int64), w.ndim - 1)  # scalar or per channel
    return [convolve(x, w, attrs).astype(np.int32, order="C")]


# --------------------------------------------------------------- ConvTranspose

def _transpose_geometry(spatial: tuple[int, ...], kernel: tuple[int, ...],
                        attrs: Attrs) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(pads_begin, strides, output_shape)`` of a ConvTranspose (spatial dims only).

    An explicit ``output_shape`` (or SAME_* auto_pad, which asks for
    ``input * stride``) determines the padding:
    ``total = stride * (in - 1) + output_padding + extent - out``, the odd cell
    going to the end for SAME_UPPER and to the beginning otherwise.
    """
    rank = len(spatial)
    strides, dilations = spatial_attrs(attrs, rank)
    output_padding = tuple(attrs.get("output_padding") or (0,) * rank)
    extent = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilations))
    full = tuple(s * (i - 1) + op + e for s, i, op, e in zip(strides, spatial, output_padding, extent))
    auto_pad = attrs.get("auto_pad", "NOTSET") or "NOTSET"
    output_shape = attrs.get("output_shape")
    if output_shape is None and auto_pad in SAME_PADDINGS:
        output_shape = [i * s for i, s in zip(spatial, strides)]
    if output_shape is not None:
        output_shape = tuple(output_shape)[-rank:]  # some exporters include N and C
        totals = [f - o for f, o in zip(full, output_shape)]
        if auto_pad == "SAME_UPPER":
            begin = tuple(t // 2 for t in totals)
        else:
            begin = tuple(t - t // 2 for t in totals)
        return begin, strides, tuple(output_shape)
    pads = attrs.get("pads") or (0,) * (2 * rank)
    if auto_pad == "VALID":
        pads = (0,) * (2 * rank)
    begin, end = tuple(pads[:rank]), tuple(pads[rank:])
    return begin, strides, tuple(f - b - e for f, b, e in zip(full, begin, end))


def _scatter_slices(size: int, stride: int, offset: int, out_size: int) -> tuple[slice, slice] | None:
    """Source and destination slices along one dim for one kernel offset.

    Input position ``j`` lands on output ``j * stride + offset`` (``offset``
    already includes ``-pads_begin``); positions outside ``[0, out_size)`` are cropped.
    """
    first = max(0, -(offset // stride))  # smallest j with j*stride + offset >= 0
    last = min(size - 1, (out_size - 1 - offset) // stride)
    if first > last:
        return None
    start = first * stride + offset
    return slice(first, last + 1), slice(start, last * stride + offset + 1, stride)


@register("ConvTranspose")
def conv_transpose(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ConvTranspose(X, W, B?) with groups, dilations, pads, output_padding,
    output_shape and auto_pad; W is ``(C, M / group, *kernel)``."""
    x, w = inputs[0], inputs[1]
    bias = optional_input(inputs, 2)
    rank = x.ndim - 2
    group = int(attrs.get("group", 1))
    kernel = tuple(attrs.get("kernel_shape") or w.shape[2:])
    _, dilations = spatial_attrs(attrs, rank)
    begin, strides, out_shape = _transpose_geometry(x.shape[2:], kernel, attrs)
    work = compute_dtype(x.dtype)
    n, c = x.shape[:2]
    m_per_group = w.shape[1]
    xg = x.astype(work, copy=False).reshape(n, group, c // group, *x.shape[2:])
    wg = w.astype(work, copy=False).reshape(group, c // group, m_per_group, *kernel)
    src, ker = _spatial_letters(rank), _spatial_letters(rank, rank)
    # products[n, g, m, *in, *k]: every input pixel times the whole kernel.
    products = np.einsum(f"ngc{src},gcm{ker}->ngm{src}{ker}", xg, wg, optimize=True)
    y = np.zeros((n, group, m_per_group, *out_shape), dtype=work)
    for k_index in np.ndindex(*kernel):
        slices = [_scatter_slices(size, s, k * d - b, o) for size, s, k, d, b, o
                  in zip(x.shape[2:], strides, k_index, dilations, begin, out_shape)]
        if any(sl is None for sl in slices):
            continue
        y[(..., *(dst for _, dst in slices))] += products[(..., *(s for s, _ in slices), *k_index)]
    y = y.reshape(n, group * m_per_group, *out_shape)
    if bias is not None:
        y = y + _bias_shape(bias.astype(work), rank)
    return [y.astype(x.dtype, order="C")]

