"""Resize (nearest / linear / cubic, every coordinate_transformation_mode,
nearest_mode, antialias, exclude_outside, scales or sizes, axes,
keep_aspect_ratio_policy, tf_crop_and_resize with extrapolation) and the
deprecated Upsample.

Resizing is separable: each resized axis is processed once, every output
position taking a weighted sum of ``taps`` input positions gathered along that
axis (``taps`` = 1 for nearest, 2 for linear, 4 for cubic, more when an
antialias filter is stretched by 1/scale).  Weights follow ONNX's reference:
for a source coordinate ``x = i0 + r`` with ``r`` in (0, 1], tap ``j`` sits at
``i0 + start + j`` with weight ``K((start + j - r) * filter_scale)``;
out-of-range taps repeat the edge unless ``exclude_outside`` drops them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import Attrs, Inputs, register
from .axes import int_list, normalize_axes, optional_input


# ------------------------------------------------------------ coordinate maps

def source_coordinates(mode: str, out_size: int, in_size: int, scale: float,
                       roi: tuple[float, float]) -> np.ndarray:
    """``x_original`` of every output position along one axis (float64).

    ``scale * in_size`` is the possibly fractional ``output_width`` of the spec,
    used where the spec's formulas use the resized length.
    """
    x = np.arange(out_size, dtype=np.float64)
    width = scale * in_size
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = in_size / 2 * (1 - out_size / width)
        return offset + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if out_size > 1 else np.zeros_like(x)
    if mode == "align_corners":
        return np.zeros_like(x) if width == 1 else x * (in_size - 1) / (width - 1)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if width == 1:
            return np.full_like(x, 0.5 * (start + end) * (in_size - 1))
        return start * (in_size - 1) + x * (end - start) * (in_size - 1) / (width - 1)
    raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")


_NEAREST_ROUNDING: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "round_prefer_floor": lambda x: np.ceil(x - 0.5),
    "round_prefer_ceil": lambda x: np.floor(x + 0.5),
    "floor": np.floor,
    "ceil": np.ceil,
}


# ------------------------------------------------------------ filter kernels

def _linear_kernel(t: np.ndarray, attrs: Attrs) -> np.ndarray:
    return np.clip(1 - np.abs(t), 0, 1)


def _cubic_kernel(t: np.ndarray, attrs: Attrs) -> np.ndarray:
    """Keys' cubic convolution kernel with ``a = cubic_coeff_a`` (default -0.75)."""
    a = float(attrs.get("cubic_coeff_a", -0.75))
    t = np.abs(t)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return np.where(t <= 1, near, np.where(t < 2, far, 0.0))


#: ``mode -> (kernel, radius)``
_FILTERS: dict[str, tuple[Callable[[np.ndarray, Attrs], np.ndarray], int]] = {
    "linear": (_linear_kernel, 1), "cubic": (_cubic_kernel, 2),
}


def axis_taps(coords: np.ndarray, in_size: int, scale: float, attrs: Attrs
              ) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, weights)``, each ``(out, taps)``: what each output sums along one axis."""
    mode = attrs.get("mode", "nearest")
    if mode == "nearest":
        rounding = _NEAREST_ROUNDING[attrs.get("nearest_mode", "round_prefer_floor")]
        index = np.clip(rounding(coords), 0, in_size - 1).astype(np.intp)
        return index[:, None], np.ones((coords.size, 1))
    kernel, radius = _FILTERS[mode]
    antialias = bool(attrs.get("antialias", 0))
    filter_scale = min(scale, 1.0) if antialias else 1.0
    start = math.floor(-radius / filter_scale) + 1
    offsets = np.arange(start, 1 - start + 1)  # 2 - 2 * start taps
    base = np.ceil(coords) - 1  # x = base + r with r in (0, 1]
    ratio = coords - base
    weights = kernel((offsets[None, :] - ratio[:, None]) * filter_scale, attrs)
    if antialias:
        weights = weights / weights.sum(axis=1, keepdims=True)
    index = base[:, None].astype(np.int64) + offsets[None, :]
    if attrs.get("exclude_outside", 0):
        weights = np.where((index < 0) | (index >= in_size), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(index, 0, in_size - 1).astype(np.intp), weights


def _resize_axis(data: np.ndarray, axis: int, out_size: int, scale: float,
                 roi: tuple[float, float], attrs: Attrs) -> np.ndarray:
    in_size = data.shape[axis]
    mode = attrs.get("coordinate_transformation_mode", "half_pixel")
    coords = source_coordinates(mode, out_size, in_size, scale, roi)
    index, weights = axis_taps(coords, in_size, scale, attrs)
    gathered = np.take(data, index, axis=axis)  # (..., out, taps, ...)
    shape = [1] * gathered.ndim
    shape[axis], shape[axis + 1] = weights.shape
    result = np.sum(gathered * weights.reshape(shape), axis=axis + 1)
    if mode == "tf_crop_and_resize":
        outside = (coords < 0) | (coords > in_size - 1)
        mask_shape = [1] * result.ndim
        mask_shape[axis] = out_size
        result = np.where(outside.reshape(mask_shape),
                          float(attrs.get("extrapolation_value", 0.0)), result)
    return result


def _cast_result(result: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Back to the input dtype; integers round half to even and saturate."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.round(result), info.min, info.max).astype(dtype)
    if dtype.kind == "V":  # bfloat16 / float8 via ml_dtypes
        import ml_dtypes
        return np.clip(result, float(ml_dtypes.finfo(dtype).min),
                       float(ml_dtypes.finfo(dtype).max)).astype(dtype)
    return result.astype(dtype)


def resize_array(x: np.ndarray, scales: list[float] | None, sizes: list[int] | None,
                 roi: list[float] | None, attrs: Attrs) -> np.ndarray:
    """Resize ``x`` given per-``axes`` scales or sizes (one of them) and roi."""
    axes = list(normalize_axes(attrs.get("axes") or range(x.ndim), x.ndim))
    crop = attrs.get("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize"
    rois = ([(roi[i], roi[i + len(axes)]) for i in range(len(axes))] if roi and crop
            else [(0.0, 1.0)] * len(axes))
    in_sizes = [x.shape[a] for a in axes]
    if sizes is not None:
        policy = attrs.get("keep_aspect_ratio_policy", "stretch")
        axis_scales = [s / i for s, i in zip(sizes, in_sizes)]
        if policy != "stretch":
            common = min(axis_scales) if policy == "not_larger" else max(axis_scales)
            axis_scales = [common] * len(axes)
            sizes = [int(common * i + 0.5) for i in in_sizes]  # round half up
        out_sizes = list(sizes)
    else:
        axis_scales = list(scales)
        out_sizes = [int(math.floor(i * s * (end - start)))
                     for i, s, (start, end) in zip(in_sizes, axis_scales, rois)]
    result = x.astype(np.float64)
    for axis, out_size, scale, axis_roi in zip(axes, out_sizes, axis_scales, rois):
        if out_size == result.shape[axis] and scale == 1.0 and axis_roi == (0.0, 1.0):
            continue
        result = _resize_axis(result, axis, out_size, scale, axis_roi, attrs)
    return _cast_result(result, x.dtype)


def _float_list(value: np.ndarray | None) -> list[float] | None:
    """A float list, with an empty tensor meaning "not given" (opset 11 convention)."""
    if value is None or value.size == 0:
        return None
    return [float(v) for v in value.reshape(-1)]


@register("Resize")
def resize(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Resize(X, roi?, scales?, sizes?); opset 10's Resize(X, scales) is also accepted."""
    x = inputs[0]
    if len(inputs) == 2:  # opset 10: (X, scales), asymmetric coordinates
        attrs = {"coordinate_transformation_mode": "asymmetric", **attrs}
        return [resize_array(x, _float_list(inputs[1]), None, None, attrs)]
    roi = _float_list(optional_input(inputs, 1))
    scales = _float_list(optional_input(inputs, 2))
    sizes_input = optional_input(inputs, 3)
    sizes = int_list(sizes_input) if sizes_input is not None and sizes_input.size else None
    return [resize_array(x, scales, sizes, roi, attrs)]


@register("Upsample")
def upsample(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Upsample (deprecated): Resize with asymmetric coordinates, flooring nearest."""
    x = inputs[0]
    scales = _float_list(optional_input(inputs, 1)) or [float(s) for s in attrs["scales"]]
    mode = attrs.get("mode", "nearest")
    resize_attrs = {"mode": "linear" if mode in ("linear", "bilinear") else "nearest",
                    "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    return [resize_array(x, scales, None, None, resize_attrs)]
