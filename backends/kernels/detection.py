"""Detection kernels (AICPU ops on Ascend): NonMaxSuppression and TopK."""

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
