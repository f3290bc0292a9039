"""``alias-splits``: GE's split optimizers — a split whose results are dense
byte ranges of its operand runs as no task.

A split along the first axis, or along the second when every result's first
dim is 1 (a channel split at batch 1), cuts its operand into contiguous
chunks: each result can be read where it lies. GE's
fusion engine marks such a split ``_no_task`` and ``_output_reuse_input``
before the build (``SplitNOptimizer`` and ``SplitCToNOptimizer`` in
``compiler/engines/nn_engine/fusion/graph_optimizer/node_optimizer/`` of
hicann/ge, run by ``FEGraphOptimizer::OptimizeGraphBeforeBuild`` after UB
fusion and after GE's ``ConcatNotaskPass``). This pass follows their checks:

* a static ``ge.split`` on axis 0, or on axis 1 with every result's first dim
  1 (a 5-D ``NC1HWC0`` operand is split there only at whole C0 blocks, which
  ``insert-trans-data`` already ensures, else the split reads ``NCHW``);
* its operand not a constant, not a graph input nor a TransData or reshape
  of one, and not the result of an op that runs as no task (a back-to-back
  concat, a strided-write concat, another aliased split);
* every reader of every result an AI core op that runs as a task: not the
  graph's return, another split, a collective or an AICPU op, nor a concat
  that runs as no task (GE's ``OutputCheck``). A reshape reading a result
  keeps the split a task: GE removes reshapes and squeezes early
  (``ReshapeRemovePass``, ``DimensionAdjustPass``), but its
  ``ReshapeRecoveryPass`` puts a Reshape, a local op with no AI core kernel,
  back wherever a result's shape differs from its reader's. So ViT's
  ``qkv.unbind(0)``, whose thirds are squeezed, stays a task.

An aliased split is marked ``no_task``; the cost model gives it no time.
Numerics are unchanged; ``reuse-memory`` places the results inside the operand's
buffer, each at its chunk's bytes, as it places a reshape's result at its
operand's (:mod:`geir.passes.memory.lifetimes`).
Remarks say which splits were aliased (``-Rpass=alias-splits``).
"""

from __future__ import annotations

import math

import attrs

from geir.attributes import UnitAttr
from geir.constants import CONSTANT_OPS
from geir.module import Module
from geir.operation import Operation, OpResult, Value
from geir.passes.fuse_ub import op_engine
from geir.passes.memory.concat_slices import VIEW_OPS, is_back_to_back
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.types import TensorType

__all__ = ["AliasSplits", "why_not_aliased"]

#: readers that keep a split a task besides those off the AI core: GE's ``InvalidNodeType``
_TASK_KEEPING = frozenset({"ge.return", "ge.split"})


def _runs_as_no_task(op: Operation) -> bool:
    """Whether ``op`` runs as no task: a concat GE lays out in place or writes by
    strided writes, or an aliased split."""
    if op.name == "ge.concat":
        return "strided_write" in op.attributes or is_back_to_back(op)
    return op.name == "ge.split" and "no_task" in op.attributes


def _before_reshapes(value: Value) -> Operation | None:
    """The op that wrote ``value`` before any reshapes (None: a graph input)."""
    while isinstance(value, OpResult) and value.op.name in VIEW_OPS and value.op.operands:
        value = value.op.operands[0]
    return value.op if isinstance(value, OpResult) else None


def why_not_aliased(split: Operation) -> str | None:
    """Why ``split`` stays a task (a sentence), or None when GE runs it as no task."""
    types = [split.operands[0].type, *(r.type for r in split.results)] if split.operands else []
    if not types or not all(isinstance(t, TensorType) and t.is_static and t.rank for t in types):
        return "its operand or a result has no static shape"
    rank = types[0].rank  # type: ignore[union-attr]
    axis = int(split.get_attr("axis", 0) or 0)
    axis = axis + rank if axis < 0 else axis
    if axis == 1:
        if any(t.shape[0] != 1 for t in types[1:]):  # type: ignore[union-attr]
            return "it splits axis 1 of a batch above 1: its results are strided, not contiguous"
    elif axis != 0:
        return f"it splits axis {axis}: only axis 0, or axis 1 at batch 1, cuts contiguous chunks"
    if math.prod(types[0].shape) == 0:  # type: ignore[union-attr]
        return "its operand is empty"
    source = _before_reshapes(split.operands[0])
    if source is None:
        return "its operand is a graph input"
    if source.name in CONSTANT_OPS:
        return "its operand is a constant"
    if source.name == "ge.trans_data" and source.operands and _before_reshapes(source.operands[0]) is None:
        return "its operand is a TransData of a graph input"
    producer = split.operands[0].op if isinstance(split.operands[0], OpResult) else source
    # GE looks at the op right before the split: a reshape there (put back by
    # ReshapeRecoveryPass) runs as a local op, whatever wrote the tensor before it
    if _runs_as_no_task(producer):
        return f"its operand comes from '{producer.name}', which runs as no task"
    for result in split.results:
        for reader in (use.owner for use in result.uses):
            if reader.name in VIEW_OPS:
                return f"a result is read by '{reader.name}', a local op GE puts back before the split is decided"
            if reader.name in _TASK_KEEPING:
                return f"a result is read by '{reader.name}'"
            if op_engine(reader) not in ("AICore", "VectorCore"):
                return f"a result is read by '{reader.name}' on {op_engine(reader) or 'no engine'}, not an AI core"
            if _runs_as_no_task(reader):
                return f"a result is read by '{reader.name}', which runs as no task"
    return None


@attrs.define
class AliasSplits(ModulePass):
    name = "alias-splits"
    summary = ("GE's split optimizers: a split whose results are contiguous chunks of its operand runs as no "
               "task, each result read where it lies")

    enable: bool = option(True, "run splits along axis 0, or axis 1 at batch 1, as no task (GE's "
                                "SplitNOptimizer and SplitCToNOptimizer, on by default)")

    def run(self, module: Module, ctx: PassContext) -> None:
        if not self.enable:
            return
        for graph in module.graphs():
            for op in graph.regions[0].blocks[0].ops:
                if op.name != "ge.split" or "no_task" in op.attributes:
                    continue
                why = why_not_aliased(op)
                if why is None:
                    op.attributes["no_task"] = UnitAttr()
                    ctx.remark(op, f"{len(op.results)} results are contiguous chunks of the operand: no task")
                else:
                    ctx.remark(op, f"stays a task: {why}")
