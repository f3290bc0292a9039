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
* On a device whose cube cannot load ND matrices itself (the profile's
  ``cube_nd_operands`` false: the 310P and the 910A, whose platform configs
  lack ``Intrinsic_fix_pipe_l0c2out``), a MatMul, BatchMatMul or Gemm takes its
  activations and writes its result in ``FRACTAL_NZ`` (16-row fractals, the
  last two dims padded to whole fractals) unless CANN's ``op_select_format``
  offers ND for it: f16 matrices whose last two dims are all multiples of 16,
  or a GEMV (M = 1, K a multiple of 256, N of 16); int8 always takes NZ
  (``base_op_select_format`` of ``mat_mul.py`` and ``batch_matmul_v2.py``).
  An NZ value stays NZ into the ops that offer that format for it: unary
  elementwise ops, binary ones whose other operand has the same last two dims,
  is a scalar or a bias of a 16-aligned last dim (``add.py``), a softmax over
  the last axis (``softmax_v2.py``: at any alignment on the 310P, from five
  rows on the 910A; over any axis when the last two dims are aligned), a layer norm
  over the last axis of 16-aligned rows narrower than 4096 (``layer_norm.py``),
  and further MatMuls. Everything else reads ND, through a TransData.
  Formats are decided op by op in program order, as a value's producer left
  it; FE's heavy-format propagation may also move a producer into NZ, which is
  not followed (a TransData that FE would spare is counted).

A 1-D convolution's (N, C, W) operand is 5-D too: the cube runs it as a 2-D
convolution over (N, C, 1, W), as ATC compiles a Conv1d.

Each value is converted once per layout, however many ops read it. Only
activations of a graph's top-level block are converted: 4-D and 3-D feature
maps, and matrices for FRACTAL_NZ (weights are converted by ATC offline; a
control-flow body keeps its layout). The values do not change:
``ge.trans_data`` is a layout, not arithmetic; the cost model charges its bytes,
the 5-D side padded to whole blocks. Remarks say what was inserted
(``ge-opt -Rpass=insert-trans-data``).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from geir.attributes import StringAttr
from geir.backends.device_profile import load_profile
from geir.constants import CONSTANT_OPS, constant_axes
from geir.dialects.ge_infer import slice_ranges
from geir.module import Module
from geir.opdef import InferContext
from geir.operation import Block, OpResult, Operation, Value
from geir.passes.fuse_ub import ELEMENTWISE_OPS
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import TensorType

__all__ = ["InsertTransData", "FIVE_D_OPS", "NCHW", "NC1HWC0", "NC1HWC0_C04", "ND", "FRACTAL_NZ"]

NCHW, NC1HWC0, NC1HWC0_C04 = "NCHW", "NC1HWC0", "NC1HWC0_C04"
ND, FRACTAL_NZ = "ND", "FRACTAL_NZ"
#: ops that read their first operand and write their result in NC1HWC0
FIVE_D_OPS = frozenset({"ge.conv2d", "ge.conv_transpose", "ge.max_pool", "ge.avg_pool", "ge.global_avg_pool",
                        "ge.global_max_pool", "ge.lp_pool", "ge.global_lp_pool", "ge.batch_norm", "ge.lrn",
                        "ge.resize", "ge.upsample"})
#: the 5-D ops that also run a 3-D (N, C, W) operand in NC1HWC0, as (N, C, 1, W)
ONE_D_CONVOLUTIONS = frozenset({"ge.conv2d", "ge.conv_transpose"})
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
#: the 5-D layouts (a value in one of them is converted to NCHW where it leaves them)
FIVE_D_LAYOUTS = frozenset({NC1HWC0, NC1HWC0_C04, AIPP_LAYOUT})
#: the MatMul family: the ops whose operands CANN's op_select_format puts in FRACTAL_NZ
NZ_MATMULS = frozenset({"ge.matmul", "ge.batch_matmul", "ge.gemm"})
#: rows of a FRACTAL_NZ fractal, and the multiple every dim of an ND f16 MatMul must be
NZ_ROWS = 16
#: a GEMV's K must be a multiple of this for an ND MatMul (block_reduce x BLOCK_IN)
GEMV_K = 256
#: LayerNorm offers FRACTAL_NZ only below this many elements in its reduced axis
LAYER_NORM_NZ_LIMIT = 4096
#: SoftmaxV2 on the 910 (this short SoC version) offers FRACTAL_NZ for unaligned rows
#: only from this many rows
SOFTMAX_910_SOC = "Ascend910"
SOFTMAX_910_NZ_MIN_ROWS = 5
#: the element types whose MatMul may take NZ: f16 (ND only when aligned) and int8 (NZ only)
NZ_TYPES = frozenset({"f16", "i8", "ui8"})


def _is_activation(value: Value) -> bool:
    """A value computed at run time: weights and constants are converted by ATC offline."""
    owner = value.owner if isinstance(value, OpResult) else None
    return owner is None or owner.name not in CONSTANT_OPS


def _is_feature_map(value: Value) -> bool:
    """A 4-D activation, or a 3-D one (N, C, W), which the AI core's kernels hold as
    (N, C, 1, W)."""
    t = value.type
    return isinstance(t, TensorType) and t.shape is not None and len(t.shape) in (3, 4) and _is_activation(value)


def _spatial_reduction(op: Operation) -> bool:
    """A reduction over H and W only, keeping the dims, runs in NC1HWC0 (the squeeze
    of a squeeze-excite block): its channels stay where the 5-D layout puts them."""
    if op.name not in SPATIAL_REDUCTIONS or not op.operands or not _is_feature_map(op.operands[0]):
        return False
    if op.get_attr("keepdims", 1) != 1:
        return False
    values = constant_axes(op)
    rank = len(op.operands[0].type.shape)
    return bool(values) and all(a % rank >= 2 for a in values)


def _is_channel_axis(axis: object, value: Value) -> bool:
    """Whether ``axis`` of ``value`` (N, C, ...) is its channels."""
    return isinstance(axis, int) and axis % len(value.type.shape) == 1


def _five_d_operand(op: Operation) -> bool:
    """Whether ``op`` reads its first operand in NC1HWC0: a 4-D feature map of a 5-D
    op, or a 3-D one of a convolution (a 1-D convolution runs as a 2-D one over
    H = 1, the cube's only convolution layout)."""
    if op.name not in FIVE_D_OPS or not op.operands or not _is_feature_map(op.operands[0]):
        return False
    return len(op.operands[0].type.shape) == 4 or op.name in ONE_D_CONVOLUTIONS


def _whole_blocks(values: Sequence[Value]) -> bool:
    """Every feature map of ``values`` has a static channel count that fills whole C0 blocks."""
    return all(isinstance(v.type.shape[1], int) and v.type.shape[1] % C0_CHANNELS == 0 for v in values)


def _channel_concat(op: Operation) -> bool:
    """A concat along the channels of inputs that fill whole C0 blocks runs in NC1HWC0."""
    if op.name != "ge.concat" or not op.operands or not all(_is_feature_map(v) for v in op.operands):
        return False
    if not _is_channel_axis(op.get_attr("axis", 0), op.operands[0]):
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
    if not _is_channel_axis(op.get_attr("axis", 0), op.operands[0]):
        return True
    return _whole_blocks(op.results)


def _is_matrix(value: Value) -> bool:
    """An activation of rank 2 or more with a static shape (what a FRACTAL_NZ
    TransData converts)."""
    t = value.type
    return isinstance(t, TensorType) and t.shape is not None and len(t.shape) >= 2 \
        and all(isinstance(d, int) for d in t.shape) and _is_activation(value)


def _matrix_operands(op: Operation) -> list[int]:
    """The operands of a MatMul-family op that it reads in FRACTAL_NZ: its two
    matrices, where they are activations (a weight is converted offline)."""
    return [i for i in (0, 1) if i < len(op.operands) and _is_matrix(op.operands[i])]


def _takes_nz(op: Operation) -> bool:
    """A MatMul-family op whose operands CANN's op_select_format on a chip without an
    ND load path offers only in FRACTAL_NZ: f16 unless both matrices' last two dims
    are multiples of 16 or it is a GEMV, and int8 always (``check_support_nd`` and
    ``check_support_gemv`` of ``batch_matmul_v2.py``)."""
    if len(op.operands) < 2:
        return False
    a, b = op.operands[0].type, op.operands[1].type
    if not all(isinstance(t, TensorType) and t.shape is not None and len(t.shape) >= 2
               and all(isinstance(d, int) for d in t.shape[-2:]) for t in (a, b)):
        return False
    dtype = str(a.element_type)
    if dtype not in NZ_TYPES:
        return False
    if dtype != "f16":
        return True
    if all(d % NZ_ROWS == 0 for d in (*a.shape[-2:], *b.shape[-2:])):
        return False
    m, k = a.shape[-2], a.shape[-1]
    n = b.shape[-2] if op.get_attr("transB", 0) else b.shape[-1]
    return not (m == 1 and k % GEMV_K == 0 and n % NZ_ROWS == 0 and not op.get_attr("transA", 0))


def _last_axis(op: Operation, rank: int) -> bool:
    """Whether ``op`` works along the last axis of a rank-``rank`` operand (ONNX's default)."""
    axis = op.get_attr("axis", -1)
    return isinstance(axis, int) and axis in (-1, rank - 1)


def _softmax_takes_nz(op: Operation, shape: Sequence[int], ascend910: bool) -> bool:
    """Whether SoftmaxV2's ``op_select_format`` offers FRACTAL_NZ for an operand of
    ``shape``: two dims, over the last axis of more than one row; more dims whose
    last two are multiples of 16, over any axis; more dims otherwise, over the last
    axis, and on the 910 only with at least five rows (``softmax_v2.py``)."""
    last = _last_axis(op, len(shape))
    if len(shape) == 2:
        return last and shape[0] != 1
    if shape[-1] % NZ_ROWS == 0 and shape[-2] % NZ_ROWS == 0:
        return True
    return last and not (ascend910 and shape[-2] < SOFTMAX_910_NZ_MIN_ROWS)


def _nz_operands(op: Operation, nz: Value, ascend910: bool) -> list[int] | None:
    """The operands ``op`` reads in FRACTAL_NZ when ``nz``, one of them, is in it,
    or None when CANN offers ``op`` no NZ format for these shapes (``ascend910``:
    the chip is a 910, whose SoftmaxV2 offers fewer)."""
    shape = nz.type.shape
    if not op.results or any(str(v.type.element_type) not in ("f16", "f32", "i8", "ui8")
                             for v in op.operands if isinstance(v.type, TensorType)):
        return None
    if op.name in NZ_MATMULS:
        return _matrix_operands(op)
    if op.name == "ge.softmax":
        return [0] if _softmax_takes_nz(op, shape, ascend910) else None
    if op.name == "ge.layer_norm":
        ok = (_last_axis(op, len(shape)) and shape[-2] % NZ_ROWS == 0 and shape[-1] < LAYER_NORM_NZ_LIMIT
              and op.operands[0] is nz)
        return [0] if ok else None
    if op.name not in LAYOUT_AGNOSTIC_OPS or op.results[0].type.shape is None \
            or tuple(op.results[0].type.shape[-2:]) != tuple(shape[-2:]):
        return None
    keep: list[int] = []
    for i, v in enumerate(op.operands):
        t = v.type
        if not isinstance(t, TensorType) or t.shape is None:
            return None
        if len(t.shape) >= 2 and tuple(t.shape[-2:]) == tuple(shape[-2:]):
            keep.append(i)
        elif all(d == 1 for d in t.shape):
            continue  # a scalar: any format
        elif len(t.shape) == 1 and t.shape[0] == shape[-1] and shape[-1] % NZ_ROWS == 0:
            continue  # a bias along the last dim, read ND (add.py's NZ + ND)
        else:
            return None
    return keep


@attrs.define
class InsertTransData(ModulePass):
    name = "insert-trans-data"
    summary = ("insert GE's TransData where a feature map crosses between NCHW and the AI core's NC1HWC0 "
               "(image inputs, classifier heads)")

    enable: bool = option(True, "insert the TransData nodes GE inserts (off: every op reads its operands as "
                                "they are, as a graph without format conversions)")
    device: str = option("910B2", "device profile: whether its cube loads ND matrices itself (cube_nd_operands); "
                                  "without, MatMuls of unaligned shapes take FRACTAL_NZ operands")

    def run(self, module: Module, ctx: PassContext) -> None:
        if not self.enable:
            return
        profile = load_profile(self.device)
        nz = not profile.cube_nd_operands
        # SoftmaxV2 keys its formats on the short SoC version; "Ascend910" is the 910A's family
        ascend910 = profile.short_soc == SOFTMAX_910_SOC
        for graph in module.graphs():
            _insert(graph.regions[0].blocks[0], ctx, nz, ascend910)


def _insert(block: Block, ctx: PassContext, nz: bool, ascend910: bool) -> None:
    layout: dict[Value, str] = {}
    #: (value, layout) -> the converted value, so each value converts once per layout
    converted: dict[tuple[Value, str], Value] = {}
    rewriter = Rewriter()

    def layout_of(value: Value) -> str:
        return layout.get(value, NCHW)

    def convert(op: Operation, index: int, target: str) -> None:
        value = op.operands[index]
        source = layout_of(value)
        if source == target:
            return
        if FRACTAL_NZ in (source, target):
            if not _is_matrix(value):
                return
        elif not _is_feature_map(value) or (source == AIPP_LAYOUT and target != NCHW):
            return
        source = NC1HWC0 if source == AIPP_LAYOUT else source
        key = (value, target)
        if key not in converted:
            rewriter.set_insertion_point(InsertionPoint.before(op))
            # the plain side of an NZ conversion is ND (a matrix, not an image)
            src_text = ND if source == NCHW and target == FRACTAL_NZ else source
            dst_text = ND if target == NCHW and source == FRACTAL_NZ else target
            trans = rewriter.create("ge.trans_data", [value], [value.type],
                                    {"src_format": StringAttr(src_text), "dst_format": StringAttr(dst_text)},
                                    location=op.location)
            if value.name_hint:
                trans.results[0].name_hint = f"{value.name_hint}_{dst_text.lower()}"
            converted[key] = trans.results[0]
            layout[trans.results[0]] = target
            ctx.remark(trans, f"TransData {src_text} -> {dst_text} of {value.type} before '{op.name}'")
        rewriter.set_operand(op, index, converted[key])

    for op in list(block.ops):
        if op.name == "ge.trans_data":
            # a conversion already there (a second run): its result is in its layout
            dst = op.get_attr("dst_format", NC1HWC0)
            layout[op.results[0]] = NCHW if dst == ND else dst
            continue
        if nz and op.name in NZ_MATMULS and _takes_nz(op):
            nz_in: list[int] | None = _matrix_operands(op)
        else:
            held = [v for v in op.operands if layout_of(v) == FRACTAL_NZ] if nz else []
            nz_in = _nz_operands(op, held[0], ascend910) if held else None
        if nz_in is not None:
            for i in nz_in:
                convert(op, i, FRACTAL_NZ)
            for i, v in enumerate(op.operands):
                if i not in nz_in:
                    convert(op, i, NCHW)
            for result in op.results[:1]:
                layout[result] = FRACTAL_NZ
            continue
        if _five_d_operand(op):
            convert(op, 0, NC1HWC0_C04 if op.name == "ge.conv2d" and "small_channel" in op.attributes
                    else NC1HWC0)
            five_d = True
        elif op.name in FIVE_D_SOURCES:
            for result in op.results:
                layout[result] = AIPP_LAYOUT
            continue
        elif op.name in LAYOUT_AGNOSTIC_OPS or _channel_concat(op) or _spatial_reduction(op) \
                or _channel_slice(op) or _block_split(op) or op.name in FIVE_D_OPS:
            maps = [i for i, v in enumerate(op.operands) if _is_feature_map(v)]
            five_d = any(layout_of(op.operands[i]) in FIVE_D_LAYOUTS for i in maps)
            for i in maps:
                convert(op, i, NC1HWC0 if five_d else NCHW)
            for i in range(len(op.operands)):
                if i not in maps:
                    convert(op, i, NCHW)  # an NZ matrix this op takes no NZ for
        else:
            for i in range(len(op.operands)):
                convert(op, i, NCHW)
            five_d = False
        if five_d:
            for result in op.results:
                if _is_feature_map(result):
                    layout[result] = NC1HWC0
