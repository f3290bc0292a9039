"""``insert-aipp``: ATC's ``--insert_op_conf``: static AIPP in front of a model input.

Each ``aipp_op`` block of the configuration file (``config``, parsed by
:mod:`geir.aipp_config`) turns graph input ``related_input_rank`` — an
``N x C x H x W`` float image — into the uint8 ``N x src_h x src_w x C`` image
AIPP reads, and puts a ``ge.aipp`` before the input's readers: it crops the
image (``crop``, ``load_start_pos_*``), swaps R and B (``rbuv_swap_switch``)
and normalises each channel, ``(pixel - mean_chn - min_chn) * var_reci_chn``,
into the type the model reads. As in ATC, sizes left at 0 are the model
input's H and W (``src_image_size_*``, ``crop_size_*``), the AIPP output must
be the model input's size, and the input's channels must be the format's. The
model's input keeps its name.

Without ``config`` the pass does nothing (ATC's default). In ``ge-default`` the
option is ``insert-op-conf``. The AIPP kernel fuses into the convolution that
reads it (``fuse-ub``), as on the device.
"""

from __future__ import annotations

import attrs

from geir.aipp_config import AippConfig, AippFile, load_aipp_config
from geir.attributes import ArrayAttr, BoolAttr, FloatAttr, IntegerAttr, StringAttr, TypeAttr
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.module import Module
from geir.operation import Operation
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import UI8, FloatType, FunctionType, TensorType

__all__ = ["InsertAipp"]


@attrs.define
class InsertAipp(ModulePass):
    name = "insert-aipp"
    summary = "put static AIPP (ATC's --insert_op_conf) before the model inputs its configuration names"

    config: str = option("", "an ATC AIPP configuration file (aipp_op blocks); empty: no AIPP, as ATC's default")

    def run(self, module: Module, ctx: PassContext) -> None:
        if not self.config:
            return
        config = load_aipp_config(self.config)
        for graph in module.graphs():
            for block in sorted(config.blocks, key=lambda b: b.related_input_rank):
                _insert(graph, block, config, ctx)


def _insert(graph: Operation, block: AippConfig, config: AippFile, ctx: PassContext) -> None:
    """``block``'s AIPP before input ``related_input_rank`` of ``graph``."""

    def _error(message: str, *fields: str) -> DiagnosticError:
        d = Diagnostic("error", message, block.position(*fields))
        d.attach_note(f"in graph @{graph.get_attr('sym_name', '')}", graph.source or graph.location)
        return DiagnosticError(d, source_files=[config.source])

    body = graph.regions[0].blocks[0]
    rank = block.related_input_rank
    if rank >= len(body.arguments):
        raise _error(f"related_input_rank {rank}: the graph has {len(body.arguments)} input(s)",
                     "related_input_rank")
    arg = body.arguments[rank]
    t = arg.type
    if not isinstance(t, TensorType) or t.shape is None or len(t.shape) != 4 \
            or not isinstance(t.element_type, FloatType):
        raise _error(f"AIPP feeds an N x C x H x W float image; input {rank} is {t}", "related_input_rank")
    n, c, h, w = t.shape
    if not all(isinstance(d, int) and d > 0 for d in (c, h, w)):
        raise _error(f"AIPP needs the input's C, H and W; input {rank} is {t}", "related_input_rank")
    if c != block.channels:
        # a TensorFlow model converted to ONNX keeps its NHWC input; ATC takes an ONNX model's input as NCHW
        nhwc = (f" ({t} has its channels last: AIPP feeds an N x C x H x W input, ATC's input format for ONNX)"
                if t.shape[3] == block.channels else "")
        raise _error(f"{block.input_format} gives {block.channels} channel(s); input {rank} has {c}{nhwc}",
                     "input_format")
    crop_h, crop_w = (block.crop_size_h or h, block.crop_size_w or w) if block.crop else (h, w)
    src_h, src_w = block.src_image_size_h or h, block.src_image_size_w or w
    if (crop_h, crop_w) != (h, w):
        raise _error(f"the AIPP output is {crop_h} x {crop_w}; input {rank} is {h} x {w} (the crop must be the "
                     f"model input's size)", "crop_size_h", "crop_size_w", "crop")
    if block.load_start_pos_h + crop_h > src_h or block.load_start_pos_w + crop_w > src_w:
        raise _error(f"the crop ({crop_h} x {crop_w} from ({block.load_start_pos_h}, {block.load_start_pos_w})) "
                     f"leaves the {src_h} x {src_w} source image", "load_start_pos_h", "load_start_pos_w",
                     "src_image_size_h", "src_image_size_w")
    arg.type = TensorType((n, src_h, src_w, c), UI8)
    rewriter = Rewriter()
    # after the AIPPs of earlier inputs: in input order, before everything else
    first = next((op for op in body.ops if op.name != "ge.aipp"), None)
    rewriter.set_insertion_point(InsertionPoint.before(first) if first is not None else InsertionPoint.at_end(body))
    attributes = {
        "input_format": StringAttr(block.input_format),
        "load_start_pos": ArrayAttr([IntegerAttr(block.load_start_pos_h), IntegerAttr(block.load_start_pos_w)]),
        "crop_size": ArrayAttr([IntegerAttr(crop_h), IntegerAttr(crop_w)]),
        "mean_chn": ArrayAttr([IntegerAttr(v) for v in block.mean_chn[:c]]),
        "min_chn": ArrayAttr([FloatAttr(v) for v in block.min_chn[:c]]),
        "var_reci_chn": ArrayAttr([FloatAttr(v) for v in block.var_reci_chn[:c]]),
        "dtype": TypeAttr(t.element_type),
    }
    if block.rbuv_swap_switch:
        attributes["rbuv_swap"] = BoolAttr(True)
    uses = list(arg.uses)
    op = rewriter.create("ge.aipp", [arg], [t], attributes, location=arg.location)
    if arg.name_hint:
        op.results[0].name_hint = f"{arg.name_hint}_aipp"
    for use in uses:
        rewriter.set_operand(use.owner, use.index, op.results[0])
    ret = body.last_op
    assert ret is not None
    graph.attributes["function_type"] = TypeAttr(FunctionType([a.type for a in body.arguments],
                                                              [v.type for v in ret.operands]))
    ctx.remark(op, f"AIPP on input {rank}: {block.input_format} {src_h} x {src_w} -> {c} x {h} x {w}")
