"""Detection kernels: NonMaxSuppression and TopK (AICPU ops on Ascend) and
RoiAlign (an AI Core op of detection heads)."""

from __future__ import annotations

import numpy as np

from . import Attrs, Inputs, register
from .axes import normalize_axis, optional_input


@register("TopK")
def top_k(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """TopK(X, K) -> [Values, Indices (int64)] along ``axis`` (default -1).

    ``largest`` (default 1) picks the largest or smallest; equal values keep
    ONNX's order, lower index first, either way.  Results are always sorted,
    which ``sorted=0`` permits.  Opset 1 gave ``k`` as an attribute.
    """
    x = inputs[0]
    k_input = optional_input(inputs, 1)
    k = int(attrs["k"] if k_input is None else np.asarray(k_input).reshape(-1)[0])
    axis = normalize_axis(attrs.get("axis", -1), x.ndim)
    if attrs.get("largest", 1):
        # A stable ascending sort of the reversed axis, read backwards, orders
        # values descending with ties by increasing original index.
        n = x.shape[axis]
        order = np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64)]


def _corners(boxes: np.ndarray, center_point_box: bool) -> np.ndarray:
    """``(N, 4)`` boxes as ``[y_min, x_min, y_max, x_max]``.

    Corner boxes may name either diagonal pair; centre boxes are ``[xc, yc, w, h]``.
    """
    if center_point_box:
        xc, yc, w, h = boxes.T
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=1)
    y1, x1, y2, x2 = boxes.T
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2),
                     np.maximum(y1, y2), np.maximum(x1, x2)], axis=1)


def suppressed_by(box: np.ndarray, others: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Which of ``others`` (corner form) overlap ``box`` with IoU above the threshold.

    Boxes that do not overlap, or have no area, never suppress (as in ONNX's reference).
    """
    inter_h = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])
    inter_w = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    intersection = np.where((inter_h > 0) & (inter_w > 0), inter_h * inter_w, 0.0)
    union = area + areas - intersection
    valid = (intersection > 0) & (area > 0) & (areas > 0) & (union > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = intersection / np.where(valid, union, 1.0)
    return valid & (iou > iou_threshold)


def _scalar(value: np.ndarray | None, default: float) -> float:
    return default if value is None or value.size == 0 else float(value.reshape(-1)[0])


@register("NonMaxSuppression")
def non_max_suppression(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """NonMaxSuppression -> int64 ``(count, 3)`` rows ``[batch, class, box]``.

    Per batch and class: boxes scoring above ``score_threshold`` (when given) in
    descending score order (ties: lower box index first); greedily keep the
    best and drop every remaining box it suppresses, up to
    ``max_output_boxes_per_class`` (default 0: none).
    """
    boxes, scores = inputs[0], inputs[1]
    max_per_class = max(int(_scalar(optional_input(inputs, 2), 0)), 0)
    iou_threshold = _scalar(optional_input(inputs, 3), 0.0)
    score_input = optional_input(inputs, 4)
    center = bool(attrs.get("center_point_box", 0))
    selected: list[tuple[int, int, int]] = []
    for batch in range(boxes.shape[0]):
        corners = _corners(boxes[batch].astype(np.float64), center)
        for cls in range(scores.shape[1]):
            class_scores = scores[batch, cls]
            candidates = np.arange(class_scores.size)
            if score_input is not None and score_input.size:
                candidates = candidates[class_scores > _scalar(score_input, 0.0)]
            # lexsort: last key primary -> score descending, then index ascending
            remaining = candidates[np.lexsort((candidates, -class_scores[candidates].astype(np.float64)))]
            kept = 0
            while remaining.size and kept < max_per_class:
                best, remaining = remaining[0], remaining[1:]
                selected.append((batch, cls, int(best)))
                kept += 1
                remaining = remaining[~suppressed_by(corners[best], corners[remaining], iou_threshold)]
    return [np.array(selected, dtype=np.int64).reshape(-1, 3)]


def _bilinear_taps(coords: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Low and high neighbours and their weights of sample ``coords`` along an axis
    of ``size``, as RoiAlign's reference takes them: a coordinate below 0 reads
    pixel 0, one at or past the last pixel reads the last pixel alone."""
    c = np.maximum(coords, 0)
    low = c.astype(np.int64)
    last = low >= size - 1
    low = np.where(last, size - 1, low)
    high = np.where(last, size - 1, low + 1)
    c = np.where(last, low.astype(c.dtype), c)
    frac = c - low
    return low, high, 1 - frac, frac


@register("RoiAlign")
def roi_align(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """RoiAlign(X, rois, batch_indices) -> Y (R, C, output_height, output_width).

    Each bin averages (``avg``) or takes the largest of (``max``) a grid of
    bilinear samples, ``sampling_ratio`` per side or ``ceil(roi size / bins)``
    when 0; a sample more than one pixel outside the map counts as 0. ``max``
    takes, per sample, the largest of its four weighted neighbours, as ONNX's
    reference and onnxruntime do. Coordinates are computed in float32, as the
    reference computes them; ``output_half_pixel`` (RoiAlign-10's behaviour)
    shifts no pixel and makes a malformed roi 1 x 1."""
    x, rois, batch_indices = inputs[0], inputs[1], inputs[2]
    assert x is not None and rois is not None and batch_indices is not None
    out_h, out_w = int(attrs.get("output_height", 1)), int(attrs.get("output_width", 1))
    ratio = int(attrs.get("sampling_ratio", 0))
    scale = np.float32(attrs.get("spatial_scale", 1.0))
    half_pixel = attrs.get("coordinate_transformation_mode", "half_pixel") == "half_pixel"
    use_max = attrs.get("mode", "avg") == "max"
    n, channels, height, width = x.shape
    compute = np.result_type(x.dtype, np.float32)
    flat = x.reshape(n, channels, height * width).astype(compute, copy=False)
    boxes = rois.astype(np.float32) * scale - np.float32(0.5 if half_pixel else 0.0)
    out = np.zeros((len(batch_indices), channels, out_h, out_w), compute)
    bins_h, bins_w = np.arange(out_h, dtype=np.float32), np.arange(out_w, dtype=np.float32)
    for r, (start_w, start_h, end_w, end_h) in enumerate(boxes):
        roi_w, roi_h = end_w - start_w, end_h - start_h
        if not half_pixel:
            roi_w, roi_h = max(roi_w, np.float32(1)), max(roi_h, np.float32(1))
        bin_h, bin_w = roi_h / np.float32(out_h), roi_w / np.float32(out_w)
        grid_h = ratio if ratio > 0 else int(np.ceil(roi_h / np.float32(out_h)))
        grid_w = ratio if ratio > 0 else int(np.ceil(roi_w / np.float32(out_w)))
        count = max(grid_h * grid_w, 1)
        if grid_h <= 0 or grid_w <= 0:
            continue  # no sample: the bins stay 0
        ys = (start_h + bins_h[:, None] * bin_h
              + (np.arange(grid_h, dtype=np.float32)[None, :] + np.float32(0.5)) * bin_h / np.float32(grid_h))
        xs = (start_w + bins_w[:, None] * bin_w
              + (np.arange(grid_w, dtype=np.float32)[None, :] + np.float32(0.5)) * bin_w / np.float32(grid_w))
        # samples (out_h, grid_h) x (out_w, grid_w), laid out (out_h, grid_h, out_w, grid_w)
        inside = (((ys >= -1) & (ys <= height))[:, :, None, None] & ((xs >= -1) & (xs <= width))[None, None])
        y_low, y_high, y_lw, y_hw = _bilinear_taps(ys, height)
        x_low, x_high, x_lw, x_hw = _bilinear_taps(xs, width)
        image = flat[int(batch_indices[r])]
        taps = []
        for rows, wy in ((y_low, y_lw), (y_high, y_hw)):
            for cols, wx in ((x_low, x_lw), (x_high, x_hw)):
                index = rows[:, :, None, None] * width + cols[None, None]
                weight = np.where(inside, wy[:, :, None, None] * wx[None, None], 0).astype(compute)
                taps.append(weight * image[:, index])
        if use_max:
            samples = np.maximum(np.maximum(taps[0], taps[1]), np.maximum(taps[2], taps[3]))
            out[r] = samples.max(axis=(2, 4))
        else:
            out[r] = (taps[0] + taps[1] + taps[2] + taps[3]).sum(axis=(2, 4)) / count
    return [out.astype(x.dtype)]
