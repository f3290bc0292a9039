"""``insert-trans-data``: GE's TransData at the edges of the AI core's 5-D layout.

The AI core's convolutions, poolings, batch norms and resizes read and write
feature maps in ``NC1HWC0``: channels in blocks of C0 = 16 (fp16), each block's
16 values side by side for every pixel. A model's inputs and outputs, and the ops that
reshape, transpose or multiply matrices, keep the user's ``NCHW``. Where a value
crosses from one to the other, GE inserts a ``TransData`` node, a kernel of its
own that reads the tensor in one layout and writes it in the other — at a model's
image input (its three channels written as a whole block of sixteen) and
before the flatten that feeds a classifier. This pass inserts those nodes as
``ge.trans_data``:

* The 5-D ops (``FIVE_D_OPS``) take and give ``NC1HWC0``. An elementwise op,
  a concat along the channels whose inputs fill whole C0 blocks, a slice or a
  split that cuts the channels only at whole C0 blocks (as CANN's StridedSliceD
  and SplitVD select their formats), or a reduction over H and W that keeps its
  dims, keeps the layout its 4-D inputs come in (if one is 5-D, the others are
  converted to it).
  Every other op takes ``NCHW``, as do the graph's results.
* ``ge.aipp`` writes the 5-D layout its reader takes itself (``NC1HWC0`` or
  ``NC1HWC0_C04``: AIPP's output goes straight to the convolution), so an AIPP
  input needs no TransData.
* A TransData into a layout read only by ``small_channel`` convolutions
  writes ``NC1HWC0_C04`` (four channels a block).

Each value is converted once per layout, however many ops read it. Only 4-D
tensors of a graph's top-level block are converted (weights are converted by
ATC offline; a control-flow body keeps its layout). The values do not change:
``ge.trans_data`` is a layout, not arithmetic; the cost model charges its bytes,
the 5-D side padded to whole blocks. Remarks say what was inserted
(``ge-opt -Rpass=insert-trans-data``).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from geir.attributes import StringAttr
from geir.constants import CONSTANT_OPS, constant_value
from geir.dialects.ge_infer import slice_ranges
from geir.module import Module
from geir.opdef import InferContext
from geir.operation import Block, OpResult, Operation, Value
from geir.passes.fuse_ub import ELEMENTWISE_OPS
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import TensorType

__all__ = ["InsertTransData", "FIVE_D_OPS", "NCHW", "NC1HWC0", "NC1HWC0_C04"]

NCHW, NC1HWC0, NC1HWC0_C04 = "NCHW", "NC1HWC0", "NC1HWC0_C04"
#: ops that read their first operand and write their result in NC1HWC0
FIVE_D_OPS = frozenset({"ge.conv2d", "ge.conv_transpose", "ge.max_pool", "ge.avg_pool", "ge.global_avg_pool",
                        "ge.global_max_pool", "ge.lp_pool", "ge.global_lp_pool", "ge.batch_norm", "ge.lrn",
                        "ge.resize", "ge.upsample"})
#: ops that write NC1HWC0 from an NCHW (or NHWC image) operand themselves
FIVE_D_SOURCES = frozenset({"ge.aipp"})
#: ops that keep the layout of their 4-D operands: elementwise arithmetic, whose
#: result element i depends on operand element i alone
LAYOUT_AGNOSTIC_OPS = (ELEMENTWISE_OPS | frozenset({
    "ge.sum", "ge.mean", "ge.pow", "ge.erf", "ge.log", "ge.floor", "ge.ceil", "ge.round", "ge.sign", "ge.sin",
    "ge.cos", "ge.softsign", "ge.thresholded_relu", "ge.identity", "ge.dropout", "ge.where", "ge.equal",
    "ge.greater", "ge.less", "ge.greater_or_equal", "ge.less_or_equal", "ge.not", "ge.and", "ge.or", "ge.xor",
    "ge.mod", "ge.shrink", "ge.is_nan", "ge.is_inf"})) - FIVE_D_OPS
#: reductions that keep NC1HWC0 when they reduce over H and W only
SPATIAL_REDUCTIONS = frozenset({"ge.reduce_mean", "ge.reduce_max", "ge.reduce_min", "ge.reduce_sum"})
#: channels per C0 block of the 5-D layout (fp16)
C0_CHANNELS = 16
#: the layout of an AIPP's result: whichever 5-D layout its reader takes
AIPP_LAYOUT = "AIPP"


def _is_feature_map(value: Value) -> bool:
    """A 4-D activation: weights and constants are converted by ATC offline."""
    t = value.type
    if not isinstance(t, TensorType) or t.shape is None or len(t.shape) != 4:
        return False
    owner = value.owner if isinstance(value, OpResult) else None
    return owner is None or owner.name not in CONSTANT_OPS


def _spatial_reduction(op: Operation) -> bool:
    """A reduction over H and W only, keeping the dims, runs in NC1HWC0 (the squeeze
    of a squeeze-excite block): its channels stay where the 5-D layout puts them."""
    if op.name not in SPATIAL_REDUCTIONS or not op.operands or not _is_feature_map(op.operands[0]):
        return False
    if op.get_attr("keepdims", 1) != 1:
        return False
    axes = op.get_attr("axes")
    if axes is not None:
        values = list(axes)
    elif len(op.operands) > 1:
        array = constant_value(op.operands[1])
        if array is None:
            return False
        values = [int(a) for a in array.reshape(-1)]
    else:
        return False
    return bool(values) and all(a % 4 in (2, 3) for a in values)


def _whole_blocks(values: Sequence[Value]) -> bool:
    """Every feature map of ``values`` has a static channel count that fills whole C0 blocks."""
    return all(isinstance(v.type.shape[1], int) and v.type.shape[1] % C0_CHANNELS == 0 for v in values)


def _channel_concat(op: Operation) -> bool:
    """A concat along the channels of inputs that fill whole C0 blocks runs in NC1HWC0."""
    if op.name != "ge.concat" or not op.operands or not all(_is_feature_map(v) for v in op.operands):
        return False
    if op.get_attr("axis", 0) not in (1, -3):
        return False
    return _whole_blocks(op.operands)


def _channel_slice(op: Operation) -> bool:
    """A slice that cuts the channels at whole C0 blocks (or not at all) runs in
    NC1HWC0: CANN's StridedSliceD offers the 5-D layout when the channel begin is
    a multiple of C0, its end one too or the last channel, and its stride 1
    (``op_select_format`` of ``strided_slice_d.py``)."""
    if op.name != "ge.slice" or not op.operands or not _is_feature_map(op.operands[0]) \
            or not op.results or not _is_feature_map(op.results[0]):
        return False
    ranges = slice_ranges(InferContext.for_op(op))
    if ranges is None:
        return False
    if 1 not in ranges:
        return True
    start, end, step = ranges[1]
    return step == 1 and start % C0_CHANNELS == 0 and (end % C0_CHANNELS == 0
                                                     or end == op.operands[0].type.shape[1])


def _block_split(op: Operation) -> bool:
    """A split along N, H or W, or along the channels into whole C0 blocks, runs in
    NC1HWC0 (``op_select_format`` of CANN's ``split_v_d.py`` and ``split_d.py``)."""
    if op.name != "ge.split" or not op.operands or not _is_feature_map(op.operands[0]) \
            or not all(_is_feature_map(r) for r in op.results):
        return False
    if op.get_attr("axis", 0) not in (1, -3):
        return True
    return _whole_blocks(op.results)


@attrs.define
class InsertTransData(ModulePass):
    name = "insert-trans-data"
    summary = ("insert GE's TransData where a feature map crosses between NCHW and the AI core's NC1HWC0 "
               "(image inputs, classifier heads)")

    enable: bool = option(True, "insert the TransData nodes GE inserts (off: every op reads its operands as "
                                "they are, as a graph without format conversions)")

    def run(self, module: Module, ctx: PassContext) -> None:
        if not self.enable:
            return
        for graph in module.graphs():
            _insert(graph.regions[0].blocks[0], ctx)


def _insert(block: Block, ctx: PassContext) -> None:
    layout: dict[Value, str] = {}
    #: (value, layout) -> the converted value, so each value converts once per layout
    converted: dict[tuple[Value, str], Value] = {}
    rewriter = Rewriter()

    def layout_of(value: Value) -> str:
        return layout.get(value, NCHW)

    def convert(op: Operation, index: int, target: str) -> None:
        value = op.operands[index]
        source = layout_of(value)
        if source == target or not _is_feature_map(value) or (source == AIPP_LAYOUT and target != NCHW):
            return
        source = NC1HWC0 if source == AIPP_LAYOUT else source
        key = (value, target)
        if key not in converted:
            rewriter.set_insertion_point(InsertionPoint.before(op))
            trans = rewriter.create("ge.trans_data", [value], [value.type],
                                    {"src_format": StringAttr(source), "dst_format": StringAttr(target)},
                                    location=op.location)
            if value.name_hint:
                trans.results[0].name_hint = f"{value.name_hint}_{target.lower()}"
            converted[key] = trans.results[0]
            layout[trans.results[0]] = target
            ctx.remark(trans, f"TransData {source} -> {target} of {value.type} before '{op.name}'")
        rewriter.set_operand(op, index, converted[key])

    for op in list(block.ops):
        if op.name == "ge.trans_data":
            # a conversion already there (a second run): its result is in its layout
            layout[op.results[0]] = op.get_attr("dst_format", NC1HWC0)
            continue
        if op.name in FIVE_D_OPS and op.operands and _is_feature_map(op.operands[0]):
            convert(op, 0, NC1HWC0_C04 if op.name == "ge.conv2d" and "small_channel" in op.attributes
                    else NC1HWC0)
            five_d = True
        elif op.name in FIVE_D_SOURCES:
            for result in op.results:
                layout[result] = AIPP_LAYOUT
            continue
        elif op.name in LAYOUT_AGNOSTIC_OPS or _channel_concat(op) or _spatial_reduction(op) \
                or _channel_slice(op) or _block_split(op):
            maps = [i for i, v in enumerate(op.operands) if _is_feature_map(v)]
            five_d = any(layout_of(op.operands[i]) != NCHW for i in maps)
            for i in maps:
                convert(op, i, NC1HWC0 if five_d else NCHW)
        else:
            for i in range(len(op.operands)):
                convert(op, i, NCHW)
            five_d = False
        if five_d:
            for result in op.results:
                if _is_feature_map(result):
                    layout[result] = NC1HWC0
