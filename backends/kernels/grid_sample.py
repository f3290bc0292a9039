"""GridSample (nearest / linear / cubic, zeros / border / reflection padding,
align_corners, any number of spatial dims), vectorised.

Every output position reads ``taps`` input positions along each spatial axis
(1 nearest, 2 linear, 4 cubic) and sums their tensor-product weights, so a
2-D linear sample is four gathers over the whole output at once. The
arithmetic follows ONNX's reference (itself PyTorch's ``GridSampler.h``):
coordinates are denormalised from [-1, 1], out-of-range ones are clamped or
reflected before the taps are taken, and each tap outside the image reads 0
(zeros), the edge (border) or its reflection.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import Attrs, Inputs, register

#: Keys' cubic convolution parameter, as ONNX and PyTorch use it
CUBIC_ALPHA = -0.75


def _denormalize(n: np.ndarray, length: int, align_corners: bool) -> np.ndarray:
    if align_corners:
        return (n + 1) / 2.0 * (length - 1)
    return ((n + 1) * length - 1) / 2.0


def _reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``x`` reflected by the near border until it lies within [lo, hi]."""
    span = hi - lo
    if span <= 0:
        return np.full_like(x, lo)
    below, above = x < lo, x > hi
    dx = np.where(below, lo - x, np.where(above, x - hi, 0.0))
    times = np.floor(dx / span)
    rest = dx - times * span
    even = times % 2 == 0
    from_below = np.where(even, lo + rest, hi - rest)
    from_above = np.where(even, hi - rest, lo + rest)
    return np.where(below, from_below, np.where(above, from_above, x))


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    a = CUBIC_ALPHA
    t = np.abs(t)
    return [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]


def _taps(x: np.ndarray, mode: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Integer positions and weights of the taps at coordinates ``x``."""
    if mode == "nearest":
        return [x.astype(np.int64)], [np.ones_like(x)]
    base = np.floor(x)
    t = x - base
    base = base.astype(np.int64)
    if mode == "linear":
        return [base, base + 1], [1 - t, t]
    return [base + k for k in (-1, 0, 1, 2)], _cubic_weights(t)


def _tap_index(i: np.ndarray, length: int, lo: float, hi: float,
               padding: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Where tap ``i`` reads along an axis of ``length``, and for zeros padding
    which taps lie inside (None: every tap reads the image)."""
    if padding == "zeros":
        inside = (i >= 0) & (i < length)
        return np.clip(i, 0, length - 1), inside
    if padding == "border":
        return np.clip(i, 0, length - 1), None
    return np.trunc(_reflect(i.astype(np.float64), lo, hi)).astype(np.int64), None


@register("GridSample")
def grid_sample(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """GridSample(X, grid): X (N, C, D1..Dr) sampled at grid (N, O1..Or, r), the
    grid's last axis holding coordinates innermost axis first (x, y, ...)."""
    x, grid = inputs[0], inputs[1]
    assert x is not None and grid is not None
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(attrs.get("mode", "linear"), attrs.get("mode", "linear"))
    if mode not in ("nearest", "linear", "cubic"):
        raise ValueError(f"GridSample mode '{mode}': expected nearest, linear or cubic")
    padding = attrs.get("padding_mode", "zeros")
    align = bool(attrs.get("align_corners", 0))
    n, c, *dims = x.shape
    out_shape = grid.shape[1:-1]
    if n * c * int(np.prod(out_shape, dtype=np.int64)) == 0:
        return [np.zeros((n, c, *out_shape), x.dtype)]
    rank = len(dims)
    # denormalised in float32, as the reference does: a nearest tap sits on the
    # side of a half-way point that float32 arithmetic puts it on
    coords = grid.astype(np.float32)
    per_axis = []
    for axis, length in enumerate(dims):
        lo, hi = (0.0, length - 1.0) if align else (-0.5, length - 0.5)
        xs = _denormalize(coords[..., rank - 1 - axis], length, align).astype(np.float64)
        if mode == "nearest":
            xs = np.rint(xs)  # half to even, as PyTorch rounds
        if padding == "border":
            xs = np.where((xs < lo) | (xs > hi), np.clip(xs, 0, length - 1), xs)
        elif padding == "reflection":
            xs = _reflect(xs, lo, hi)
        positions, weights = _taps(xs, mode)
        per_axis.append([(*_tap_index(p, length, lo, hi, padding), w) for p, w in zip(positions, weights)])
    flat = x.reshape(n, c, int(np.prod(dims, dtype=np.int64))).astype(np.float64)  # -1: ambiguous at n = 0
    strides = [int(np.prod(dims[k + 1:], dtype=np.int64)) for k in range(rank)]
    out = np.zeros((n, c, *out_shape))
    for combo in itertools.product(*per_axis):
        index = np.zeros((n, *out_shape), np.int64)
        weight = np.ones((n, *out_shape))
        for stride, (position, inside, w) in zip(strides, combo):
            index += position * stride
            weight = weight * (w if inside is None else np.where(inside, w, 0.0))
        gathered = np.take_along_axis(flat, index.reshape(n, 1, -1), axis=2).reshape(n, c, *out_shape)
        out += weight[:, None] * gathered
    return [out.astype(x.dtype)]
