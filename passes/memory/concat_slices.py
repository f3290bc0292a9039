"""A concat that runs as no task takes its inputs inside its result.

GE gives a concat whose inputs lie back to back in its result no task and no
copy: ``ConcatNotaskPass`` (hicann/ge ``compiler/graph/passes/memory_optimize/
concat_notask_pass.cc`` and ``notask_pass_base.cc``, registered for ``O3``,
the default ``--oo_level``) marks it ``_no_task``, ``_output_reuse_input`` and
``_nopadding_continuous_input``, and the memory assigner lays its inputs out
back to back inside its result, so each producer writes its slice in place.
Back to back means every dim before the axis is 1 (``CheckDim``); those slices
are dense byte ranges of the result, which a plan of dense tensors can
express. (A channel concat of convolutions with a batch above 1 is a strided
write, ``fuse-conv-concat``: its slices keep buffers of their own here.)

The pass's checks, in its order (``InputCheck``, ``OutputCheck``): no scalar
input; each input a whole number of 32-byte blocks; no value read twice; no
input a graph input or a constant; none a control op's result; no input
read by the graph's return (``IsPreOutAnchorValidMultiRef``); none the result
of an op that itself runs as no task (``IsPreNodeAttrValid``: a reshape, a
concat laid out in place); and the result not a graph output. One check is
stricter here: GE lets other ops read an input too (they read its slice; the
first concat in node order claims it), but the emulator tells values apart by
their byte ranges and cannot count two values in the same bytes, so an input
read by any other op keeps its own buffer (as in the fusion engine's
``ConcatCOptimizeFusionPass``, ``CheckMultiRef``).

The result's buffer is taken before its first producer starts, so every
producer must start after something the plan can order the buffer by: a node
that happens before all of them — the first producer itself on one stream, or
(``fork``) the op the branches fork from when they run at once on several,
which holds the buffer while every branch runs. Without one within
``FORK_WINDOW`` nodes, the inputs keep their own buffers.
"""

from __future__ import annotations

import math
from typing import Callable, Container

import attrs

from geir.backends.cost_model import NO_TASK_OPS
from geir.constants import CONSTANT_OPS
from geir.operation import Operation, OpResult, Value
from geir.passes.memory.happens_before import StreamOrder
from geir.types import TensorType

__all__ = ["ConcatSlice", "ConcatLayout", "concat_slices", "is_back_to_back", "why_not_in_place", "FORK_WINDOW",
           "VIEW_OPS"]

#: how far before its first producer a concat's buffer may be taken
FORK_WINDOW = 64

#: ops whose results alias their input on the device (GE_LOCAL, no task): the reshapes
VIEW_OPS = frozenset(f"ge.{op}" for op in NO_TASK_OPS)


@attrs.frozen
class ConcatSlice:
    """Where an input of a concat lives: ``offset`` bytes into ``result``."""

    result: Value
    offset: int


def is_back_to_back(concat: Operation) -> bool:
    """Whether ``concat``'s inputs are dense byte ranges of its static result:
    every dim before the axis is 1 (the cost model's no-task concat)."""
    out = concat.results[0].type if len(concat.results) == 1 else None
    if not all(isinstance(t, TensorType) and t.is_static for t in [out, *(v.type for v in concat.operands)]):
        return False
    axis = int(concat.get_attr("axis", 0) or 0)
    axis = axis + out.rank if axis < 0 else axis
    return 0 <= axis < out.rank and math.prod(out.shape[:axis]) == 1  # type: ignore[union-attr, arg-type]


def why_not_in_place(concat: Operation, returned: set[Value], laid_out: Container[Operation] = ()) -> str | None:
    """Why ``concat``'s inputs cannot live inside its result (a sentence), or
    None when they can: GE's checks (see the module doc), in their order.
    ``laid_out`` are the concats laid out in place before it."""
    if not is_back_to_back(concat):
        return "its inputs are not dense slices of one static result (a dim before the axis is above 1)"
    values = list(concat.operands)
    for k, v in enumerate(values):
        t: TensorType = v.type  # type: ignore[assignment]  # static, as is_back_to_back checked
        if not t.shape:
            return "an input is a scalar"
        if len(values) > 1 and t.size_in_bytes % 32:  # type: ignore[operator]
            return "an input is not a whole number of 32-byte blocks"
        if v in values[:k]:
            return "an input is read twice"
        if not isinstance(v, OpResult):
            return "an input is a graph or region argument"
        if v.op.name in CONSTANT_OPS:
            return "an input is a constant"
        if v.op.regions:
            return "an input is a control op's result"
        if v in returned:
            return "an input is a graph output"
        if any(u.owner is not concat for u in v.uses):
            return "an input is read by other ops too"
        if v.op.name in VIEW_OPS or v.op in laid_out:
            return f"an input comes from '{v.op.name}', which runs as no task"
    if concat.results[0] in returned:
        return "its result is a graph output"
    return None


@attrs.define
class ConcatLayout:
    """Which concats of a block take their inputs inside their result:
    ``slices`` (each laid-out input: where it lives), ``defines`` (each such
    result: the node at which its buffer is taken), ``forked`` (how many are
    taken at a fork) and, for each back-to-back concat left a copy, why
    (``refused``, by op)."""

    slices: dict[Value, ConcatSlice] = attrs.Factory(dict)
    defines: dict[Value, int] = attrs.Factory(dict)
    forked: int = 0
    refused: dict[Operation, str] = attrs.Factory(dict)


#: why a concat keeps its copy when only ``fork`` would have laid it out
FORK_DECLINED = ("its producers run at once on several streams, and holding its buffer from their fork "
                 "made a larger arena than the copy")


def concat_slices(ops: list[Operation], order: StreamOrder, returned: set[Value],
                  first_node: Callable[[Operation, int], int], fork: bool = True) -> ConcatLayout:
    """The layout of the back-to-back concats of ``ops`` (one block, scheduled by
    ``order``), visited in block order as GE visits them. ``first_node(op, i)`` is
    the node at which op ``op`` (node ``i``) starts writing (a UB-fused chain's
    head). Without ``fork`` concurrent producers keep their inputs' buffers."""
    layout = ConcatLayout()
    laid_out: set[Operation] = set()
    for op in ops:
        if op.name != "ge.concat" or id(op) not in order.index or not is_back_to_back(op):
            continue
        why = why_not_in_place(op, returned, laid_out)
        if why is not None:
            layout.refused[op] = why
            continue
        writers = [first_node(v.op, order.index[id(v.op)]) for v in op.operands  # type: ignore[union-attr]
                   if id(v.op) in order.index]  # type: ignore[union-attr]
        complete = len(writers) == len(op.operands)
        define = _fork(order, writers, FORK_WINDOW if fork else 1) if complete else None
        if define is None:
            forkable = complete and not fork and _fork(order, writers, FORK_WINDOW) is not None
            layout.refused[op] = (FORK_DECLINED if forkable
                                  else f"no op up to {FORK_WINDOW} before its first producer happens before "
                                       "every producer, so nothing orders its buffer before them")
            continue
        layout.forked += define != min(writers)
        offset = 0
        result = op.results[0]
        for v in op.operands:
            layout.slices[v] = ConcatSlice(result, offset)
            offset += v.type.size_in_bytes  # type: ignore[union-attr]
        layout.defines[result] = define
        laid_out.add(op)
    return layout


def _fork(order: StreamOrder, writers: list[int], window: int) -> int | None:
    """A node no later than every writer, at most ``window - 1`` nodes before the
    first, that happens before each of the others (the first writer when it
    does), or None."""
    first = min(writers)
    for f in range(first, max(-1, first - window), -1):
        if all(w == f or order.happens_before(f, w) for w in writers):
            return f
    return None
