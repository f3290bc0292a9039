"""``small-channel``: ATC's ``--enable_small_channel`` — a convolution with at
most four input channels reads them in the C04 layout instead of padding them
to a full C0 block.

The cube multiplies 16-channel C0 blocks (``NC1HWC0``), so a first layer on an
RGB image does the work of sixteen channels for its three. With
``--enable_small_channel=1`` ATC gives such a convolution the ``NC1HWC0_C04``
input and ``FRACTAL_Z_C04`` weight formats: four channels per block, the
kernel window packed into the reduction dimension, so the reduction is
``4 x kh x kw`` rounded up to the cube's fractal instead of ``16 x kh x kw``.
CANN documents the gain for convolutions with at most four channels and
recommends it for inference with AIPP; the option is off by default, as in ATC.
A 1 x 1 kernel has no window to pack, and a grouped convolution no C04 format:
CANN's Conv2D ``op_select_format`` (``tbe/impl/conv2d.py``) offers neither the C04
layout, so neither is marked. On the 310P family the C04 input is for a
network's first layer only (``is_first_layer``: the convolution reads the model's
input, through at most a cast or AIPP), so under ``device=310P3`` a later
convolution on four channels keeps C0.

The pass marks each such ``ge.conv2d`` with ``small_channel`` (the cost model
reads it: its channels pad to 4, not to the device's C0). It changes no
numerics. Remarks say what was marked (``ge-opt -Rpass=small-channel``).
"""

from __future__ import annotations

import attrs

from geir.attributes import UnitAttr
from geir.backends.device_profile import load_profile
from geir.module import Module
from geir.operation import OpResult, Operation, Value
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.types import TensorType

__all__ = ["SmallChannel", "SMALL_CHANNELS"]

#: the most input channels (per group) the C04 layout takes
SMALL_CHANNELS = 4
#: the SoC family whose Conv2D offers the C04 input to a first layer only (conv2d.py's list)
FIRST_LAYER_ONLY_SOC = "Ascend310P"
#: ops between a model's input and its first convolution that keep it the first layer
INPUT_PREPARATION = frozenset({"ge.cast", "ge.aipp", "ge.trans_data", "ge.identity"})


def _reads_model_input(value: Value) -> bool:
    """Whether ``value`` is a graph input, through at most the ops that prepare one."""
    while isinstance(value, OpResult):
        if value.owner.name not in INPUT_PREPARATION or not value.owner.operands:
            return False
        value = value.owner.operands[0]
    return True


def _groups(op: Operation) -> int:
    value = op.get_attr("group", 1)
    try:
        return max(1, int(value or 1))
    except (TypeError, ValueError):
        return 1


@attrs.define
class SmallChannel(ModulePass):
    name = "small-channel"
    summary = "mark convolutions with at most four input channels for the C04 layout (ATC's --enable_small_channel)"

    enable: bool = option(False, "ATC's --enable_small_channel: give convolutions with at most four input "
                                 "channels the C04 layout (off by default, as in ATC)")
    device: str = option("910B2", "device profile: on the 310P family only a first layer takes C04")

    def run(self, module: Module, ctx: PassContext) -> None:
        if not self.enable:
            return
        first_layer_only = load_profile(self.device).short_soc == FIRST_LAYER_ONLY_SOC
        for graph in module.graphs():
            for op in graph.regions[0].blocks[0].ops:
                if op.name != "ge.conv2d" or not op.operands or _groups(op) != 1:
                    continue
                x = op.operands[0].type
                if not isinstance(x, TensorType) or x.rank is None or x.rank < 3:
                    continue
                channels = x.shape[1]
                if channels is None or channels < 0 or channels > SMALL_CHANNELS:
                    continue
                w = op.operands[1].type if len(op.operands) > 1 else None
                if isinstance(w, TensorType) and w.shape is not None and len(w.shape) > 2 \
                        and all(d == 1 for d in w.shape[2:]):
                    continue  # a 1 x 1 kernel: no window to pack into C04
                if first_layer_only and not _reads_model_input(op.operands[0]):
                    continue
                op.attributes["small_channel"] = UnitAttr()
                ctx.remark(op, f"{channels} input channels: C04 layout (small channel)")
