"""A concat that runs as no task takes its inputs inside its result.

GE gives a channel concat of convolution results no task and no copy: the
fusion engine's ``ConcatCOptimizeFusionPass`` and ``ConvConcatFusionPass``
(hicann/ge ``compiler/engines/nn_engine/fusion/graph_optimizer/graph_fusion/
fusion_pass_manager/builtin_pass/``) mark it ``_no_task``,
``_output_reuse_input`` and ``_nopadding_continuous_input``, and the memory
assigner lays its inputs out back to back inside its result, so each producer
writes its slice in place. Where the dims before the axis are all 1, each slice
is a dense byte range of the result (:func:`concat_slices`), which is what a
plan of dense tensors can express; with a batch above 1 the slices are strided
(the producers write with a stride) and keep buffers of their own here.

An input may live inside the result only under the checks of
``ConcatCOptimizeFusionPass``: the inputs come from distinct values, each read
by the concat alone (``CheckMultiRef``), none a graph input or a constant, none
the result of an op that itself runs as no task or aliases its input (GE's
``IsPreNodeAttrValid``: a reshape, another concat laid out in place, a control
op), each a whole number of 32-byte blocks (``CheckIs32Align``), and the
result is not a graph output (``CheckOutput``: not read by NetOutput).

The result's buffer is taken before its first producer starts, so every
producer must start after something the plan can order the buffer by: a node
that happens before all of them — the first producer itself on one stream, or
(``fork``) the op the branches fork from when they run at once on several,
which holds the buffer while every branch runs. Without one within
``FORK_WINDOW`` nodes, the inputs keep their own buffers.
"""

from __future__ import annotations

from typing import Callable

import attrs

from geir.backends.task_list import element_bytes
from geir.constants import CONSTANT_OPS
from geir.operation import Operation, OpResult, Value
from geir.passes.memory.happens_before import StreamOrder
from geir.types import TensorType

__all__ = ["ConcatSlice", "concat_slices", "is_back_to_back", "why_not_in_place", "FORK_WINDOW"]

#: how far before its first producer a concat's buffer may be taken
FORK_WINDOW = 64

#: ops whose results alias their input on the device (GE_LOCAL, no task)
_ALIASING_OPS = frozenset({"ge.reshape", "ge.flatten", "ge.squeeze", "ge.unsqueeze", "ge.identity"})


@attrs.frozen
class ConcatSlice:
    """Where an input of a concat lives: ``offset`` bytes into ``result``."""

    result: Value
    offset: int


def _elements(shape: tuple[object, ...]) -> int:
    n = 1
    for d in shape:
        n *= d  # type: ignore[operator]
    return n


def is_back_to_back(concat: Operation) -> bool:
    """Whether ``concat``'s inputs are dense byte ranges of its static result:
    every dim before the axis is 1 (the cost model's no-task concat)."""
    out = concat.results[0].type if len(concat.results) == 1 else None
    if not all(isinstance(t, TensorType) and t.is_static for t in [out, *(v.type for v in concat.operands)]):
        return False
    axis = int(concat.get_attr("axis", 0) or 0)
    axis = axis + out.rank if axis < 0 else axis
    return 0 <= axis < out.rank and _elements(out.shape[:axis]) == 1  # type: ignore[union-attr]


def why_not_in_place(concat: Operation, returned: set[Value]) -> str | None:
    """Why ``concat``'s inputs cannot live inside its result (a sentence), or
    None when they can: GE's checks (see the module doc), in their order."""
    if not is_back_to_back(concat):
        return "its inputs are not dense slices of one static result (a dim before the axis is above 1)"
    if concat.results[0] in returned:
        return "its result is a graph output"
    values = list(concat.operands)
    if len(set(values)) != len(values):
        return "an input is read twice"
    for v in values:
        if not isinstance(v, OpResult):
            return "an input is a graph or region argument"
        if v.op.name in CONSTANT_OPS:
            return "an input is a constant"
        if v.op.regions:
            return "an input is a control op's result"
        if v.op.name in _ALIASING_OPS:
            return f"an input comes from '{v.op.name}', which runs as no task"
        if len(v.uses) != 1:
            return "an input is read by other ops too"
        if v in returned:
            return "an input is a graph output"
        t = v.type
        if (_elements(t.shape) * element_bytes(str(t.element_type))) % 32:  # type: ignore[attr-defined]
            return "an input is not a whole number of 32-byte blocks"
    return None


def concat_slices(ops: list[Operation], order: StreamOrder, returned: set[Value],
                  first_node: Callable[[Operation, int], int],
                  fork: bool = True) -> tuple[dict[Value, ConcatSlice], dict[Value, int], int]:
    """For the concats of ``ops`` (one block, scheduled by ``order``) whose inputs
    can live inside their result: where each input lives, the node at which each
    such result's buffer is taken, and how many of them are taken at a fork (only
    with ``fork``; otherwise concurrent producers keep their inputs' buffers).
    ``first_node(op, i)`` is the node at which op ``op`` (node ``i``) starts
    writing (a UB-fused chain's head). Concats are visited in block order, and
    one whose input comes from a concat laid out in place keeps its copy (GE: a
    no-task producer)."""
    slices: dict[Value, ConcatSlice] = {}
    defines: dict[Value, int] = {}
    forked = 0
    laid_out: set[int] = set()
    for op in ops:
        if op.name != "ge.concat" or id(op) not in order.index:
            continue
        if any(isinstance(v, OpResult) and id(v.op) in laid_out for v in op.operands):
            continue
        if why_not_in_place(op, returned) is not None:
            continue
        writers = [first_node(v.op, order.index[id(v.op)]) for v in op.operands  # type: ignore[union-attr]
                   if id(v.op) in order.index]  # type: ignore[union-attr]
        if len(writers) != len(op.operands):
            continue
        define = _fork(order, writers, FORK_WINDOW if fork else 1)
        if define is None:
            continue
        forked += define != min(writers)
        offset = 0
        result = op.results[0]
        for v in op.operands:
            slices[v] = ConcatSlice(result, offset)
            offset += _elements(v.type.shape) * element_bytes(str(v.type.element_type))  # type: ignore[union-attr]
        defines[result] = define
        laid_out.add(id(op))
    return slices, defines, forked


def _fork(order: StreamOrder, writers: list[int], window: int) -> int | None:
    """A node no later than every writer, at most ``window - 1`` nodes before the
    first, that happens before each of the others (the first writer when it
    does), or None."""
    first = min(writers)
    for f in range(first, max(-1, first - window), -1):
        if all(w == f or order.happens_before(f, w) for w in writers):
            return f
    return None
