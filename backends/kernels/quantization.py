"""Quantisation kernels: QuantizeLinear, DequantizeLinear and
DynamicQuantizeLinear (per-tensor, per-axis and blocked), and the quantised
QLinearMatMul / QLinearConv, which accumulate in integers and requantise.

Integer targets round half to even and saturate to their range (int2 .. int16,
ml_dtypes for the sub-byte ones); float8 targets saturate when ``saturate``
(the default); float4/float6 targets are plain casts.
"""

from __future__ import annotations

import numpy as np

from . import Attrs, Inputs, register
from .axes import normalize_axis, optional_input
from .conv import convolve
from .elementwise import SATURATING_FLOAT8


def _is_integer(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is a (possibly sub-byte, ml_dtypes) integer type."""
    if np.dtype(dtype).kind in "iu":
        return True
    import ml_dtypes
    try:
        ml_dtypes.iinfo(dtype)
    except (ValueError, TypeError):
        return False
    return True


def _broadcast_param(value: np.ndarray, shape: tuple[int, ...], axis: int,
                     block_size: int) -> np.ndarray:
    """A scale or zero point shaped to broadcast against ``x``: a scalar (per
    tensor), a 1-D vector along ``axis`` (per axis), or, with ``block_size``, one
    value per block of ``block_size`` elements along ``axis`` (blocked)."""
    if value.size == 1:
        return value.reshape(())
    axis = normalize_axis(axis, len(shape))
    if not block_size:
        return value.reshape([-1 if i == axis else 1 for i in range(len(shape))])
    repeated = np.repeat(value, block_size, axis=axis)
    return np.take(repeated, np.arange(shape[axis]), axis=axis)  # the last block may be short


def quantize(scaled: np.ndarray, zero_point: np.ndarray | int, dtype: np.dtype,
             saturate: bool = True) -> np.ndarray:
    """``scaled`` (= x / scale) plus ``zero_point`` in the quantised ``dtype``."""
    if _is_integer(dtype):
        import ml_dtypes  # its iinfo knows numpy's integers and the sub-byte ones
        info = ml_dtypes.iinfo(dtype)
        rounded = np.rint(scaled) + np.asarray(zero_point, dtype=np.float64)
        return np.clip(rounded, info.min, info.max).astype(dtype)
    if np.dtype(dtype).name in SATURATING_FLOAT8:
        from onnx import numpy_helper
        # float8 zero points are always 0
        return numpy_helper.saturate_cast(scaled, dtype) if saturate else scaled.astype(dtype)
    return (scaled + np.asarray(zero_point, dtype=np.float64)).astype(dtype)  # float4, float6


@register("QuantizeLinear")
def quantize_linear(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """QuantizeLinear(x, y_scale, y_zero_point?) with axis, block_size, saturate,
    output_dtype and precision; the output type is the zero point's, else
    ``output_dtype``, else uint8."""
    x, scale = inputs[0], inputs[1]
    zero_point = optional_input(inputs, 2)
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    dtype = (zero_point.dtype if zero_point is not None
             else np.dtype(attrs.get("output_dtype", np.uint8)))
    scale = _broadcast_param(scale, x.shape, axis, block)
    precision = attrs.get("precision")
    if precision is not None:
        scaled = x.astype(precision) / scale.astype(precision)
    else:
        scaled = x / scale
    zp = 0 if zero_point is None else _broadcast_param(zero_point, x.shape, axis, block).astype(np.float64)
    return [quantize(scaled, zp, dtype, bool(attrs.get("saturate", 1)))]


@register("DequantizeLinear")
def dequantize_linear(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """DequantizeLinear(x, x_scale, x_zero_point?) -> ``(x - zero_point) * scale`` in
    ``output_dtype`` or the scale's dtype (float8/float4 inputs have no zero point)."""
    x, scale = inputs[0], inputs[1]
    zero_point = optional_input(inputs, 2)
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    dx = x.astype(np.float32)
    if zero_point is not None and _is_integer(x.dtype):
        dx = dx - _broadcast_param(zero_point, x.shape, axis, block).astype(np.float32)
    y = dx * _broadcast_param(scale, x.shape, axis, block)
    return [y.astype(attrs.get("output_dtype", scale.dtype))]


@register("DynamicQuantizeLinear")
def dynamic_quantize_linear(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """DynamicQuantizeLinear -> [y (uint8), y_scale, y_zero_point (uint8)]: the
    range [min(x, 0), max(x, 0)] mapped onto [0, 255]."""
    x = inputs[0]
    high = np.float32(max(0.0, float(np.max(x)))) if x.size else np.float32(0)
    low = np.float32(min(0.0, float(np.min(x)))) if x.size else np.float32(0)
    scale = np.float32(1.0 if high == low else high - low) / np.float32(255)
    zero_point = np.rint(np.clip(np.float32(0) - low / scale, 0, 255))
    y = np.clip(np.rint(x / scale) + zero_point, 0, 255).astype(np.uint8)
    return [y, np.array(scale, dtype=x.dtype), np.array(zero_point, dtype=np.uint8)]


def _centered(q: np.ndarray, zero_point: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    """``q - zero_point`` in int64, the zero point reshaped to broadcast as ``shape``."""
    centered = q.astype(np.int64)
    if zero_point is not None:
        centered = centered - zero_point.astype(np.int64).reshape(shape if zero_point.size > 1 else ())
    return centered


def _requantize(accumulator: np.ndarray, multiplier: np.ndarray, zero_point: np.ndarray | None,
                dtype: np.dtype) -> np.ndarray:
    """An integer accumulator scaled by ``in_scale * w_scale / out_scale`` into ``dtype``."""
    zp = 0 if zero_point is None else zero_point.astype(np.float64).reshape(())
    return quantize(accumulator * multiplier, zp, dtype)


@register("QLinearMatMul")
def qlinear_matmul(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): integer
    matmul requantised; a's scale/zero point may be per row, b's per column."""
    a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero = (inputs + [None] * 8)[:8]
    accumulator = np.matmul(_centered(a, a_zero, (-1, 1)), _centered(b, b_zero, (1, -1)))
    a_scale = a_scale.astype(np.float64).reshape((-1, 1) if a_scale.size > 1 else ())
    b_scale = b_scale.astype(np.float64).reshape((1, -1) if b_scale.size > 1 else ())
    multiplier = a_scale * b_scale / y_scale.astype(np.float64).reshape(())
    dtype = y_zero.dtype if y_zero is not None else a.dtype
    return [_requantize(accumulator, multiplier, y_zero, dtype)]


@register("QLinearConv")
def qlinear_conv(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?): integer
    convolution plus the int32 bias, requantised; w's scale/zero point may be per
    output channel."""
    x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero = inputs[:8]
    bias = optional_input(inputs, 8)
    channel = (-1,) + (1,) * (w.ndim - 1)
    accumulator = convolve(_centered(x, x_zero, ()), _centered(w, w_zero, channel), attrs)
    if bias is not None:
        accumulator = accumulator + bias.astype(np.int64).reshape(channel)
    w_scale = w_scale.astype(np.float64).reshape(channel if w_scale.size > 1 else ())
    multiplier = x_scale.astype(np.float64).reshape(()) * w_scale / y_scale.astype(np.float64).reshape(())
    dtype = y_zero.dtype if y_zero is not None else x.dtype
    return [_requantize(accumulator, multiplier, y_zero, dtype)]
