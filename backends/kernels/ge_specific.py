"""Kernels of GE's own ops, keyed by ge op name, with their semantics on ONE
emulated device.

* HCCL collectives (``ge.all_reduce``, ``ge.all_gather``, ``ge.broadcast``,
  ``ge.reduce_scatter``): the device holds one rank's data and the other
  ``rank_size - 1`` ranks are emulated as identical copies of it, so a sum
  all-reduce is ``x * rank_size`` and an all-gather stacks ``rank_size`` copies.
* DVPP (``ge.dvpp_decode``, ``ge.dvpp_resize``): the emulator has no JPEG
  codec, so decode takes the 1-D uint8 input as raw HWC pixels.
* Control ops (``ge.switch``, ``ge.merge``, ``ge.enter``, ``ge.ref_enter``,
  ``ge.exit``, ``ge.next_iteration``, ``ge.loop_cond``): data movement only;
  the interpreter decides which branch is live and when a frame loops.
* ``ge.cmo`` (cache maintenance) has no outputs and no numeric effect.
* ``ge.aipp``: ATC's static AIPP on a uint8 NHWC image (crop, channel swap,
  mean, min and reciprocal deviation per channel).
* ``ge.trans_data``: a layout change; the values pass through.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import Attrs, Inputs, register

#: ``reduction -> f(x, rank_size)``: the result of reducing ``rank_size`` identical copies of x
_IDENTICAL_RANK_REDUCTIONS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "sum": lambda x, n: x * n,
    "prod": lambda x, n: x ** n,
    "max": lambda x, n: x.copy(),
    "min": lambda x, n: x.copy(),
}


def _rank_size(attrs: Attrs) -> int:
    rank_size = int(attrs.get("rank_size", 1))
    if rank_size < 1:
        raise ValueError(f"rank_size must be >= 1, got {rank_size}")
    return rank_size


def reduce_identical_ranks(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """Reduce ``rank_size`` identical copies of ``x`` with ``reduction`` (default sum), keeping dtype."""
    reduction = str(attrs.get("reduction", "sum")).lower()
    try:
        fn = _IDENTICAL_RANK_REDUCTIONS[reduction]
    except KeyError:
        raise ValueError(f"unknown HCCL reduction {reduction!r}; expected one of "
                         f"{sorted(_IDENTICAL_RANK_REDUCTIONS)}") from None
    with np.errstate(over="ignore"):  # integer sums wrap like the device's
        return np.asarray(fn(x, _rank_size(attrs))).astype(x.dtype)


@register("ge.all_reduce")
def all_reduce(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """HCCL all-reduce over ``rank_size`` identical ranks (attrs reduction, group, rank_size)."""
    return [reduce_identical_ranks(inputs[0], attrs)]


@register("ge.all_gather")
def all_gather(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """HCCL all-gather: ``rank_size`` copies concatenated on axis 0."""
    x = inputs[0]
    return [np.concatenate([x] * _rank_size(attrs), axis=0)]


@register("ge.reduce_scatter")
def reduce_scatter(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """HCCL reduce-scatter: reduce the identical ranks, keep this rank's (rank 0's) slice of dim 0."""
    x = inputs[0]
    rank_size = _rank_size(attrs)
    if x.shape[0] % rank_size:
        raise ValueError(f"reduce_scatter: dim 0 ({x.shape[0]}) is not divisible by rank_size {rank_size}")
    return [reduce_identical_ranks(x[: x.shape[0] // rank_size], attrs)]


def _copy_first(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Identity on input 0 (a copy: outputs never alias inputs)."""
    return [inputs[0].copy()]


register("ge.broadcast", "ge.enter", "ge.ref_enter", "ge.exit", "ge.next_iteration",
         "ge.loop_cond")(_copy_first)


@register("ge.switch")
def switch(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Switch(data, pred) -> [false-branch data, true-branch data]; the interpreter
    reads ``pred`` and treats only one of the two as live."""
    data = inputs[0]
    return [data.copy(), data.copy()]


@register("ge.merge")
def merge(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Merge -> [the first available (non-None) input, its index as an int32 scalar]."""
    for index, value in enumerate(inputs):
        if value is not None:
            return [value.copy(), np.array(index, dtype=np.int32)]
    raise ValueError("ge.merge: no input is available")


@register("ge.cmo")
def cmo(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Cache maintenance (prefetch/invalidate/writeback): no outputs, no numeric effect."""
    return []


@register("ge.dvpp_decode")
def dvpp_decode(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """DVPP image decode -> uint8 ``(height, width, channels)`` (channels default 3).

    The emulator has no JPEG codec: the 1-D uint8 input is taken as raw HWC
    pixels, zero-padded or truncated to ``height * width * channels`` bytes.
    """
    data = np.asarray(inputs[0]).reshape(-1).astype(np.uint8, copy=False)
    height, width = int(attrs["height"]), int(attrs["width"])
    channels = int(attrs.get("channels", 3))
    size = height * width * channels
    pixels = np.zeros(size, dtype=np.uint8)
    pixels[: min(size, data.size)] = data[:size]
    return [pixels.reshape(height, width, channels)]


@register("ge.dvpp_resize")
def dvpp_resize(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """DVPP resize of an HWC image to ``(height, width)``, nearest neighbour:
    output pixel ``i`` reads input ``floor(i * in / out)`` (OpenCV's INTER_NEAREST)."""
    image = inputs[0]
    height, width = int(attrs["height"]), int(attrs["width"])
    rows = (np.arange(height) * image.shape[0]) // height
    cols = (np.arange(width) * image.shape[1]) // width
    return [image[rows[:, None], cols[None, :]].copy()]


@register("ge.trans_data")
def trans_data(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """TransData changes how the values are stored, not what they are: the same
    N x C x H x W array (the padding channels of the 5-D layout hold no values)."""
    return [inputs[0]]


@register("ge.aipp")
def aipp(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Static AIPP: crop the N x H x W x C uint8 images, swap R and B when asked,
    then ``(pixel - mean_chn - min_chn) * var_reci_chn`` per channel (in f32,
    rounded once to ``dtype``), as N x C x h x w."""
    images = inputs[0]
    (h0, w0), (h, w) = attrs.get("load_start_pos", [0, 0]), attrs["crop_size"]
    x = images[:, h0:h0 + h, w0:w0 + w, :].astype(np.float32)
    channels = x.shape[-1]
    if attrs.get("rbuv_swap", False) and channels == 3:
        x = x[..., ::-1]
    mean = np.asarray(attrs.get("mean_chn", [0] * 4)[:channels], np.float32)
    low = np.asarray(attrs.get("min_chn", [0.0] * 4)[:channels], np.float32)
    scale = np.asarray(attrs.get("var_reci_chn", [1.0] * 4)[:channels], np.float32)
    y = (x - mean - low) * scale
    return [np.ascontiguousarray(y.transpose(0, 3, 1, 2)).astype(np.dtype(attrs.get("dtype", np.float32)))]


@register("ge.onnx_op")
def onnx_op(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """``ge.onnx_op``, GE's AICPU fallback: see :func:`geir.backends.kernels.onnx_fallback.onnx_op`
    (imported on first use: it loads onnx's reference evaluator)."""
    from .onnx_fallback import onnx_op as run
    return run(inputs, attrs)
