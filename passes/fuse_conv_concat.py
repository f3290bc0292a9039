"""``fuse-conv-concat``: GE's ConvConcatFusionPass — convolutions (or max pools)
write their results straight into the channel slices of the concat that joins
them, so the concat moves nothing.

An inception block, a SqueezeNet fire module and a YOLO route end in a concat
of branch results along the channels. In the 5-D ``NC1HWC0`` layout a slice of
C1 blocks is a strided region of the concat's output, so GE's fusion engine
puts a ``StridedWrite`` after each producer (fused into it by UB fusion) and
the concat gets no task. The pass follows the checks of
``ConvConcatFusionPass`` and ``ConcatOptimizeChecker`` in GE's fusion engine
(``compiler/engines/nn_engine/fusion/graph_optimizer/graph_fusion/
fusion_pass_manager/builtin_pass/node_optimize/`` in hicann/ge):

* a static 4-D ``ge.concat`` on the channel axis with at least two inputs, not
  all from one op;
* the channels of every input but the last a whole number of C0 blocks (16 for
  16- and 32-bit floats, 32 for 8-bit integers);
* the first input's producer sets the pattern — a ``ge.conv2d``, a ``ge.relu`` or
  ``ge.leaky_relu`` of one, or a ``ge.max_pool`` — and every other input comes
  from the same pattern or a max pool (after a max pool, any of them); each
  producer (and the convolution under an activation) has one result read once;
* not where the precision mode keeps the concat in f32 (``force_fp32``,
  ``must_keep_origin_dtype`` on an f32 model), where GE skips the StridedWrite.

A fused concat is marked ``strided_write`` (the cost model gives it no task).
Numerics are unchanged. Remarks say what was fused (``-Rpass=fuse-conv-concat``).
"""

from __future__ import annotations

import attrs

from geir.attributes import UnitAttr
from geir.module import Module
from geir.operation import Operation, OpResult, Value
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.types import FloatType, IntegerType, TensorType

__all__ = ["FuseConvConcat", "strided_write_pattern"]

_CONV = "ge.conv2d"
_ACTIVATIONS = ("ge.relu", "ge.leaky_relu")
_POOL = "ge.max_pool"


def _single_use(op: Operation) -> bool:
    """GE's ``is_single_out_and_ref``: one result, read by one op."""
    return len(op.results) == 1 and len(op.results[0].uses) == 1


def _pattern(value: Value) -> str | None:
    """Which producer pattern ``value`` comes from: the conv, the activation over a
    conv, or the max pool (None: none GE fuses)."""
    if not isinstance(value, OpResult) or not _single_use(value.op):
        return None
    op = value.op
    if op.name in (_CONV, _POOL):
        return op.name
    if op.name in _ACTIVATIONS and op.operands:
        under = op.operands[0]
        if isinstance(under, OpResult) and under.op.name == _CONV and _single_use(under.op):
            return op.name
    return None


def _c0(element_type: object) -> int | None:
    """Channels per C0 block GE checks the concat's inputs against."""
    if isinstance(element_type, FloatType) and element_type.bitwidth in (16, 32):
        return 16
    if isinstance(element_type, IntegerType) and element_type.bitwidth == 8:
        return 32
    return None


def _axis(op: Operation, rank: int) -> int:
    axis = int(op.get_attr("axis", 0) or 0)
    return axis + rank if axis < 0 else axis


def strided_write_pattern(concat: Operation) -> str | None:
    """Why ``concat`` is not fused (a sentence), or None when its producers can write
    into it: GE's ConvConcatFusionPass checks, in its order."""
    if len(concat.operands) < 2:
        return "fewer than two inputs"
    types = [v.type for v in concat.operands]
    out = concat.results[0].type
    if not all(isinstance(t, TensorType) and t.rank == 4 and t.is_static for t in [*types, out]):
        return "not a static 4-D concat"
    if _axis(concat, 4) != 1:
        return "not on the channel axis"
    producers = {id(v.op) if isinstance(v, OpResult) else id(v) for v in concat.operands}
    if len(producers) == 1:
        return "every input comes from one op"
    for t in types[:-1]:
        c0 = _c0(t.element_type)
        if c0 is None or t.shape[1] % c0:
            return f"an input's {t.shape[1]} channels are not whole C0 blocks"
    if isinstance(out.element_type, FloatType) and out.element_type.bitwidth == 32:
        return "the precision mode keeps it in f32"
    first = _pattern(concat.operands[0])
    if first is None:
        return "its first input is not a convolution, an activation of one, or a max pool"
    for value in concat.operands[1:]:
        other = _pattern(value)
        if other is None or (first != _POOL and other not in (first, _POOL)):
            return "its inputs come from different patterns"
    return None


@attrs.define
class FuseConvConcat(ModulePass):
    name = "fuse-conv-concat"
    summary = ("GE's ConvConcatFusionPass: convolutions and max pools write into the channel slices of the "
               "concat that joins them, which then needs no task")

    enable: bool = option(True, "fuse channel concats of convolution and max-pool results (GE's "
                                "ConvConcatFusionPass, on by default)")

    def run(self, module: Module, ctx: PassContext) -> None:
        if not self.enable:
            return
        for graph in module.graphs():
            for op in graph.regions[0].blocks[0].ops:
                if op.name != "ge.concat" or "strided_write" in op.attributes:
                    continue
                if strided_write_pattern(op) is None:
                    op.attributes["strided_write"] = UnitAttr()
                    ctx.remark(op, f"{len(op.operands)} producers write into the concat's channel slices "
                                   "(StridedWrite): no task")
