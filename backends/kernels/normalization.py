"""Normalisation kernels: BatchNormalization (inference, and training-mode
statistics), LayerNormalization, RMSNormalization, InstanceNormalization,
GroupNormalization, LRN, LpNormalization and MeanVarianceNormalization.

Statistics are computed in the ``stash_type`` precision (float32 by default,
as ONNX specifies); scale and bias are applied in the compute precision (f32
for f16 and bf16 inputs) and the result is rounded to the input dtype once,
as CANN's kernels accumulate in f32 and round at the output. (ONNX's function
bodies cast the normalised value back to the input type before the scale, a
second rounding in f16 that Ascend hardware does not do.)
"""

from __future__ import annotations

import numpy as np

from . import Attrs, Inputs, register
from .axes import normalize_axes, normalize_axis, optional_input
from .dtypes import compute_dtype

_EPSILON = 1e-5


def _stash_dtype(attrs: Attrs) -> np.dtype:
    """Precision of the first (statistics) stage: ``stash_type``, float32 by default."""
    return np.dtype(attrs.get("stash_type", np.float32))


def _work_dtype(dtype: np.dtype, stash: np.dtype) -> np.dtype:
    """Where scale and bias apply: the compute precision of ``dtype``, at least
    the statistics' (f32 for f16: one rounding, at the output)."""
    return np.promote_types(compute_dtype(dtype), stash)


def standardize(x: np.ndarray, axes: tuple[int, ...], epsilon: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``((x - mean) * inv_std, mean, inv_std)`` with statistics over ``axes`` (kept as 1s)."""
    mean = np.mean(x, axis=axes, keepdims=True)
    centered = x - mean
    variance = np.mean(centered * centered, axis=axes, keepdims=True)
    inv_std = 1.0 / np.sqrt(variance + epsilon)
    return centered * inv_std, mean, inv_std


def _per_channel(v: np.ndarray, rank: int) -> np.ndarray:
    """A ``(C,)`` vector shaped to broadcast against ``(N, C, *spatial)``."""
    return v.reshape(-1, *([1] * (rank - 2)))


@register("BatchNormalization")
def batch_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """BatchNormalization -> [Y, running_mean, running_var].

    Inference (the default) normalises with the given mean/var and returns them
    unchanged as the running statistics.  ``training_mode=1`` normalises with
    the batch statistics and returns ``running * momentum + batch * (1 - momentum)``.
    """
    x, scale, bias, mean, var = inputs[:5]
    epsilon = float(attrs.get("epsilon", _EPSILON))
    work = compute_dtype(x.dtype)
    xw = x.astype(work, copy=False)
    if attrs.get("training_mode", 0):
        momentum = float(attrs.get("momentum", 0.9))
        axes = tuple(i for i in range(x.ndim) if i != 1)
        batch_mean = xw.mean(axis=axes)
        batch_var = xw.var(axis=axes)
        running_mean = mean * momentum + batch_mean * (1 - momentum)
        running_var = var * momentum + batch_var * (1 - momentum)
        mean_used, var_used = batch_mean, batch_var
    else:
        running_mean, running_var = mean.copy(), var.copy()
        mean_used, var_used = mean, var
    # folded into one multiply-add per element: y = x * a + b
    a = scale.astype(work) / np.sqrt(var_used.astype(work) + epsilon)
    b = bias.astype(work) - mean_used.astype(work) * a
    y = xw * _per_channel(a, x.ndim) + _per_channel(b, x.ndim)
    return [y.astype(x.dtype), np.asarray(running_mean).astype(mean.dtype),
            np.asarray(running_var).astype(var.dtype)]


@register("LayerNormalization")
def layer_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """LayerNormalization -> [Y, Mean, InvStdDev] over dims ``axis..`` (default -1).

    Mean and InvStdDev have the ``stash_type`` dtype and X's shape with the
    normalised dims set to 1.
    """
    x, scale = inputs[0], inputs[1]
    bias = optional_input(inputs, 2)
    axis = normalize_axis(attrs.get("axis", -1), x.ndim)
    stash = _stash_dtype(attrs)
    normalized, mean, inv_std = standardize(
        x.astype(stash, copy=False), tuple(range(axis, x.ndim)), float(attrs.get("epsilon", _EPSILON)))
    work = _work_dtype(x.dtype, stash)
    y = normalized.astype(work, copy=False) * scale.astype(work)
    if bias is not None:
        y = y + bias.astype(work)
    return [y.astype(x.dtype), mean, inv_std]


@register("RMSNormalization")
def rms_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """RMSNormalization: ``x / sqrt(mean(x^2 over axis..) + epsilon) * scale``."""
    x, scale = inputs
    axis = normalize_axis(attrs.get("axis", -1), x.ndim)
    stash = _stash_dtype(attrs)
    xs = x.astype(stash, copy=False)
    mean_square = np.mean(xs * xs, axis=tuple(range(axis, x.ndim)), keepdims=True)
    normalized = xs / np.sqrt(mean_square + float(attrs.get("epsilon", _EPSILON)))
    work = _work_dtype(x.dtype, stash)
    return [(normalized.astype(work, copy=False) * scale.astype(work)).astype(x.dtype)]


@register("InstanceNormalization")
def instance_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """InstanceNormalization: per (N, C) statistics over the spatial dims."""
    x, scale, bias = inputs
    work = compute_dtype(x.dtype)
    normalized, _, _ = standardize(x.astype(work, copy=False), tuple(range(2, x.ndim)),
                                   float(attrs.get("epsilon", _EPSILON)))
    y = normalized * _per_channel(scale.astype(work), x.ndim) + _per_channel(bias.astype(work), x.ndim)
    return [y.astype(x.dtype)]


@register("GroupNormalization")
def group_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """GroupNormalization: statistics per (N, group), then scale/bias.

    Opset 21 has per-channel scale/bias (``C`` values); opset 18 had one per
    group (``num_groups`` values), recognised here by their size.
    """
    x, scale, bias = inputs
    groups = int(attrs["num_groups"])
    n, c = x.shape[:2]
    stash = _stash_dtype(attrs)
    per_group = int(np.prod(x.shape[1:], dtype=np.int64)) // groups  # not -1: ambiguous when n = 0
    grouped = x.astype(stash, copy=False).reshape(n, groups, per_group)
    normalized, _, _ = standardize(grouped, (2,), float(attrs.get("epsilon", _EPSILON)))
    if scale.size == groups and groups != c:
        scale = np.repeat(scale, c // groups)
        bias = np.repeat(bias, c // groups)
    work = _work_dtype(x.dtype, stash)
    normalized = normalized.reshape(x.shape).astype(work, copy=False)
    y = normalized * _per_channel(scale.astype(work), x.ndim) + _per_channel(bias.astype(work), x.ndim)
    return [y.astype(x.dtype)]


@register("LRN")
def lrn(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """LRN across channels: ``x / (bias + alpha / size * sum of squares) ** beta``.

    The window around channel c spans ``[c - floor((size-1)/2), c + ceil((size-1)/2)]``;
    the sum is a difference of cumulative sums, so no loop over channels.
    """
    x = inputs[0]
    size = int(attrs["size"])
    alpha, beta = float(attrs.get("alpha", 1e-4)), float(attrs.get("beta", 0.75))
    bias = float(attrs.get("bias", 1.0))
    work = compute_dtype(x.dtype)
    squares = np.square(x.astype(work, copy=False))
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    channels = x.shape[1]
    padded = np.pad(squares, [(0, 0), (before + 1, after)] + [(0, 0)] * (x.ndim - 2))
    cumulative = np.cumsum(padded, axis=1)
    window_sum = cumulative[:, size:size + channels] - cumulative[:, :channels]
    y = x / (bias + alpha / size * window_sum) ** beta
    return [y.astype(x.dtype)]


@register("LpNormalization")
def lp_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """LpNormalization along ``axis`` (default -1) with p = 1 or 2; a zero norm gives 0."""
    x = inputs[0]
    axis = normalize_axis(attrs.get("axis", -1), x.ndim)
    p = int(attrs.get("p", 2))
    work = compute_dtype(x.dtype)
    xw = x.astype(work, copy=False)
    norm = (np.sum(np.abs(xw), axis=axis, keepdims=True) if p == 1
            else np.sqrt(np.sum(xw * xw, axis=axis, keepdims=True)))
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(norm == 0, 0, xw / norm)
    return [y.astype(x.dtype)]


@register("MeanVarianceNormalization")
def mean_variance_normalization(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """MeanVarianceNormalization over ``axes`` (default [0, 2, 3]):
    ``(x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)``, ONNX's function body."""
    x = inputs[0]
    axes = normalize_axes(attrs.get("axes", (0, 2, 3)), x.ndim)
    work = compute_dtype(x.dtype)
    xw = x.astype(work, copy=False)
    mean = np.mean(xw, axis=axes, keepdims=True)
    variance = np.mean(xw * xw, axis=axes, keepdims=True) - mean * mean
    return [((xw - mean) / (np.sqrt(variance) + 1e-9)).astype(x.dtype)]
