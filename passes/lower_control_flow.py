"""Control flow in the task list: ``ge.if``, ``ge.case``, the while form of ``ge.loop`` and
``ge.scan`` over axis 0 lowered to label tasks on their stream, as GE's label makers build them for the
runtime v1 task sink (``compiler/graph/label/if_op_label_maker.cc``, ``case_op_label_maker.cc``,
``while_op_label_maker.cc``), so a model with control flow loads once and runs
without host round trips.

``ge.if`` (GE's ``IfOpLabelMaker``; the switch maps false -> 0 -> else, true
-> 1 -> then)::

    label_switch %cond [else, then]
    label_set then      ; the then region's tasks ; copies of its yields
                          (none for a value the branch computes: it is written in place)
    label_goto leave
    label_set else      ; the else region's tasks ; copies of its yields
    label_set leave

``ge.case`` (GE's ``CaseOpLabelMaker``: one ``rtLabelSwitchByIndex`` over
the N branch labels, in region order; the device takes the last label for an
index out of range, as ``GenIndexForCase`` picks the last branch; a case of
one branch has no label)::

    label_switch %branch_index [b0, b1, ..., bN-1]
    label_set b0        ; branch 0's tasks ; copies of its yields
    label_goto leave
    ...
    label_set bN-1      ; the last branch's tasks ; copies of its yields
    label_set leave

``ge.loop`` (ONNX Loop: ``for i < M while cond``; GE's ``WhileOpLabelMaker``
with the trip count folded into the condition)::

    memcpy 0 -> %i ; %cond_in -> %c ; %v_initial -> %v
    label_set cond
    ge.less %i, %M -> %lt ; ge.and %lt, %c -> %keep      (without M: %keep = %c)
    label_switch %keep [exit, body]
    label_set body      ; the body's tasks ; copies of its yields to %c, %v
    ge.add %i, 1 -> %i
    label_goto cond
    label_set exit      ; the results are %v

A region whose ops ``partition-streams`` put on a stream of their own (GE
allocates a subgraph's streams itself) runs there: the branch's label is
followed on the control op's stream by an ``rt.stream_active`` of the region's
stream and an ``rt.wait`` for the ``rt.record`` that ends the region (GE's
``StreamActive`` at the head of each branch, ``SetActiveStreamsForSubgraphs``);
the region's stream does not start with the model and runs once per activation.

Memory: a region's values take the offsets ``reuse-memory`` planned inside the
control op's region buffer (the branches of an ``if`` or a ``case`` share one
base, as only one of them runs; a loop body's plan serves every trip); without
a plan they are bump-allocated from one base by the same rule. The values the
lowering itself adds (the loop's counter and condition, scan slices, swap
temporaries) get buffers of their own past the plan.

``ge.scan`` is a counted loop (its trip count is the scan inputs' static
length): each trip gathers slice ``t`` of every scan input (``ge.gather`` by
the counter) and scatters each scan value into row ``t`` of its output
(``ge.scatter_nd``, in place; the output starts as zeros).

Not lowered, with a located error (the host-driven path runs them): a loop
with scan outputs (their size is the trip count), a loop or scan whose carried
values change shape, a scan over another axis or backwards, and GE's dataflow
control ops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from geir.attributes import DenseElementsAttr
from geir.backends.task_list import (ARENA, Kernel, LabelGoto, LabelSet, LabelSwitch, Memcpy, Record, StreamActive,
                                     TensorRef, Wait, WeightBlob)
from geir.constants import CONSTANT_OPS
from geir.operation import Block, Operation, Value
from geir.types import I1, I64, TensorType, storage_dtype

if TYPE_CHECKING:
    from geir.passes.lower_to_tasks import _GraphLowering

__all__ = ["LOWERED_CONTROL_OPS", "LOOP_FRAME_OPS", "is_control_op", "control_op_problem", "control_problems",
           "ControlFlowEmitter"]

#: ops with regions the lowering turns into label tasks
LOWERED_CONTROL_OPS = frozenset({"ge.if", "ge.case", "ge.loop", "ge.scan"})

#: GE's loop-frame ops (TF v1's while): nothing runs them
LOOP_FRAME_OPS = frozenset({"ge.enter", "ge.ref_enter", "ge.exit", "ge.next_iteration", "ge.loop_cond"})

#: a unit of work on the emitter's stack: an op of a region, or a step to run
_Work = tuple[Operation, int] | Callable[[], None]


def is_control_op(op: Operation) -> bool:
    """Whether ``op`` has regions or GE's control trait: an op :func:`control_op_problem` judges."""
    od = op.definition
    return bool(op.regions) or (od is not None and od.has_trait("control"))


def control_op_problem(op: Operation) -> str | None:
    """Why ``op`` (an op with regions or a control op) cannot become label tasks, or None.

    A switch or merge is judged with its whole block's diamonds: to ask about
    many ops of one block, :func:`control_problems` groups them once."""
    from geir.passes.lower_switch_merge import switch_groups
    return _problem(op, lambda block: switch_groups(block)[1])


def control_problems(block: Block) -> dict[Operation, str]:
    """:func:`control_op_problem` of every control op of ``block`` and of the
    regions nested in it, for those that cannot become label tasks; each
    block's switch/merge diamonds are grouped once, not once per op."""
    from geir.passes.lower_switch_merge import switch_groups
    dataflow: dict[Block, dict[Operation, str]] = {}

    def dataflow_of(b: Block) -> dict[Operation, str]:
        if b not in dataflow:
            dataflow[b] = switch_groups(b)[1]
        return dataflow[b]

    problems: dict[Operation, str] = {}
    for top in block.ops:
        for op in top.walk():  # iterative: no frame per nesting level
            if is_control_op(op):
                problem = _problem(op, dataflow_of)
                if problem is not None:
                    problems[op] = problem
    return problems


def _problem(op: Operation, dataflow_of: Callable[[Block], dict[Operation, str]]) -> str | None:
    if op.name in ("ge.switch", "ge.merge") and op.parent is not None and op.parent_op is not None \
            and op.parent_op.name == "ge.graph":
        return dataflow_of(op.parent).get(op)
    if op.name in LOOP_FRAME_OPS:
        return ("is not supported by lower-to-tasks: GE's loop frames (TF v1's while) run neither in the task sink "
                "nor host-driven; ge.loop is the loop both run")
    if op.name not in LOWERED_CONTROL_OPS:
        what = "GE's dataflow control ops" if not op.regions else f"'{op.name}'"
        return (f"is not supported by lower-to-tasks: {what} run host-driven (runtime v2); the task sink "
                "lowers ge.if, ge.case, ge.loop and a switch/merge diamond")
    if op.name == "ge.scan":
        return _scan_problem(op)
    if op.name == "ge.loop":
        body = op.regions[0].blocks[0]
        carried = len(op.operands) - 2
        if len(op.results) > carried:
            return ("has scan outputs, whose size is the trip count: it runs host-driven (runtime v2), "
                    "not in the task sink")
        ret = body.last_op
        if ret is not None:
            for k, (arg, out) in enumerate(zip(body.arguments[2:], ret.operands[1:])):
                if arg.type != out.type or arg.type != op.results[k].type:
                    return (f"carries value #{k} from {arg.type} to {out.type}: a loop whose carried shapes "
                            "change runs host-driven (runtime v2)")
    return None


def _scan_problem(op: Operation) -> str | None:
    num_scan = op.get_attr("num_scan_inputs")
    if not isinstance(num_scan, int) or num_scan < 1:
        return "has no scan input: its trip count is unknown; it runs host-driven (runtime v2)"
    for name in ("scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"):
        values = op.get_attr(name)
        if isinstance(values, list) and any(v != 0 for v in values):
            return (f"has {name} = {values}: the task sink scans axis 0 forwards; others run host-driven "
                    "(runtime v2)")
    states = len(op.operands) - num_scan
    xs = [v.type for v in op.operands[states:]]
    if any(not isinstance(t, TensorType) or not t.is_static or not t.shape for t in xs):
        return "scans an input without a static leading dim: it runs host-driven (runtime v2)"
    if len({t.shape[0] for t in xs}) != 1:  # type: ignore[union-attr]
        return "scans inputs of different lengths"
    body = op.regions[0].blocks[0]
    ret = body.last_op
    if ret is not None:
        for k, (arg, out) in enumerate(zip(body.arguments[:states], ret.operands[:states])):
            if arg.type != out.type or arg.type != op.results[k].type:
                return (f"carries state #{k} from {arg.type} to {out.type}: a scan whose state shapes change "
                        "runs host-driven (runtime v2)")
    return None


class ControlFlowEmitter:
    """Emits the tasks of one control op (and the control ops nested in it)
    onto ``stream``, with an explicit work stack: no recursion per nesting level."""

    def __init__(self, lowering: "_GraphLowering") -> None:
        self.lw = lowering
        self.stack: list[_Work] = []

    # ------------------------------------------------------------ driver
    def emit(self, op: Operation, stream: int) -> None:
        self.stack.append((op, stream))
        while self.stack:
            work = self.stack.pop()
            if callable(work):
                work()
                continue
            inner, s = work
            if inner.name in ("ge.if", "ge.case"):
                self._push(self._branch_steps(inner, s))
            elif inner.name == "ge.loop":
                self._push(self._loop_steps(inner, s))
            elif inner.name == "ge.scan":
                self._push(self._scan_steps(inner, s))
            else:
                self.lw.emit_plain(inner, s)

    def _push(self, steps: list[_Work]) -> None:
        self.stack.extend(reversed(steps))

    def _block(self, block: Block, stream: int) -> list[_Work]:
        return [(op, stream) for op in block.ops if op.name not in ("ge.yield", "ge.return")]

    def _region_stream(self, block: Block, parent: int) -> int:
        """The stream ``partition-streams`` gave the region's ops (its first
        kernel's), else the control op's."""
        for op in block.ops:
            if op.name not in CONSTANT_OPS and op.name not in ("ge.none", "ge.yield") and "stream" in op.attributes:
                sid = op.get_attr("stream")
                if isinstance(sid, int) and sid >= 0:
                    return sid
        return parent

    def _enter(self, parent: int, region: int, op: Operation) -> list[_Work]:
        """Start the region's stream, when it has its own."""
        if region == parent:
            return []
        self.lw.activated.add(region)
        return [self._task(parent, StreamActive(region, self.lw.loc(op)), op)]

    def _leave(self, parent: int, region: int, op: Operation) -> list[_Work]:
        """The control op's stream waits for the region's last task."""
        if region == parent:
            return []
        event = self.lw.new_event()
        return [self._task(region, Record(event, self.lw.loc(op)), op),
                self._task(parent, Wait(event, self.lw.loc(op)), op)]

    # ------------------------------------------------------------ helpers
    def _task(self, stream: int, task: object, op: Operation) -> Callable[[], None]:
        return lambda: self.lw.add_task(stream, task, op.location)  # type: ignore[arg-type]

    def _carry(self, arguments: list[Value], sources: list[Value], targets: list[TensorRef], t: int,
               ret: Operation) -> None:
        """Write a loop body's yielded ``sources`` into the carried buffers ``targets``;
        a yield of another iteration argument is read through a temporary, so copies
        that swap values do not overwrite what a later one reads."""
        lw = self.lw
        own = {a: i for i, a in enumerate(arguments)}
        staged: list[tuple[TensorRef, TensorRef]] = []
        for i, (v, dst) in enumerate(zip(sources, targets)):
            j = own.get(v)
            if j is not None and j != i:
                src = lw.refs[v]
                assert src is not None
                tmp = lw.fresh(v.type)  # type: ignore[arg-type]
                lw.add_task(t, Memcpy(src, tmp, lw.loc(ret)), ret.location)
                staged.append((tmp, dst))
            elif j is None:
                self._copy(v, dst, t, ret)
        for tmp, dst in staged:
            lw.add_task(t, Memcpy(tmp, dst, lw.loc(ret)), ret.location)

    def _copy(self, src: Value, dst: TensorRef, stream: int, op: Operation) -> None:
        ref = self.lw.refs.get(src)
        if ref is None:
            self.lw.error(op, "yields an absent (ge.none) value")
            return
        if ref != dst:
            self.lw.add_task(stream, Memcpy(ref, dst, self.lw.loc(op)), op.location)

    def _in_arena(self, value: Value, stream: int, op: Operation) -> TensorRef | None:
        """``value``'s ref, copied into the arena first when it is a weight (a switch reads the arena)."""
        ref = self.lw.refs.get(value)
        if ref is None or ref.space == ARENA:
            return ref
        dst = self.lw.fresh(value.type)  # type: ignore[arg-type]
        self.lw.add_task(stream, Memcpy(ref, dst, self.lw.loc(op)), op.location)
        return dst

    def _results(self, op: Operation) -> list[TensorRef]:
        """The control op's result buffers (top-level ones are planned already)."""
        out = []
        for r in op.results:
            ref = self.lw.refs.get(r)
            if ref is None:
                ref = self.lw.refs[r] = self.lw.fresh(r.type)  # type: ignore[arg-type]
            out.append(ref)
        return out

    # ------------------------------------------------------------ ge.if, ge.case
    def _branch_steps(self, op: Operation, s: int) -> list[_Work]:
        """``ge.if`` (``IfOpLabelMaker``: the switch's labels are [else, then])
        and ``ge.case`` (``CaseOpLabelMaker``: [branch 0, ..., branch N-1]; a
        case of one branch has no label at all): the branches laid out in
        region order, each but the last ending in a goto past the last."""
        lw = self.lw
        results = self._results(op)
        for r in op.results:
            lw.producer_stream[r] = s
        n = len(op.regions)
        labels = [lw.new_label() for _ in range(n)]
        leave_l = lw.new_label()
        index = self._in_arena(op.operands[0], s, op) if n > 1 else None
        loc = lw.loc(op)
        base = lw.arena_end
        ends: list[int] = []

        def start_branch() -> None:
            ends.append(lw.arena_end)
            lw.arena_end = base

        streams = [self._region_stream(r.blocks[0], s) for r in op.regions]
        for region in op.regions:
            # zero-copy: a value the branch computes and yields once is written
            # straight into the op's result (nothing in the branch can read that)
            block = region.blocks[0]
            ret = block.last_op
            assert ret is not None
            yielded = list(ret.operands)
            for v, dst in zip(yielded, results):
                owner = getattr(v, "op", None)
                if (owner is not None and owner.parent is block and owner.name not in CONSTANT_OPS
                        and owner.name != "ge.none" and yielded.count(v) == 1 and v not in lw.refs):
                    lw.refs[v] = dst

        def yields(region: int) -> Callable[[], None]:
            def run() -> None:
                ret = op.regions[region].blocks[0].last_op
                assert ret is not None
                for v, dst in zip(ret.operands, results):
                    self._copy(v, dst, streams[region], ret)
            return run

        def finish() -> None:
            lw.arena_end = max([lw.arena_end, *ends])

        steps: list[_Work] = []
        if index is not None:
            order = [labels[1], labels[0]] if op.name == "ge.if" else labels
            steps.append(self._task(s, LabelSwitch(index, order, loc), op))
        for k in range(n):
            if n > 1:
                steps.append(self._task(s, LabelSet(labels[k], loc), op))
            steps += [*self._enter(s, streams[k], op), start_branch, *self._block(op.regions[k].blocks[0], streams[k]),
                      yields(k), *self._leave(s, streams[k], op)]
            if k + 1 < n:
                steps.append(self._task(s, LabelGoto(leave_l, loc), op))
        steps.append(finish)
        if n > 1:
            steps.append(self._task(s, LabelSet(leave_l, loc), op))
        return steps

    # ------------------------------------------------------------ ge.loop
    def _loop_steps(self, op: Operation, s: int) -> list[_Work]:
        lw = self.lw
        loc = lw.loc(op)
        body = op.regions[0].blocks[0]
        trip, cond_in, *initial = op.operands
        carried = self._results(op)
        for r in op.results:
            lw.producer_stream[r] = s
        counter_t = body.arguments[0].type
        cond_t = body.arguments[1].type
        counter = lw.refs[body.arguments[0]] = lw.fresh(counter_t)  # type: ignore[arg-type]
        cond = lw.refs[body.arguments[1]] = lw.fresh(cond_t)  # type: ignore[arg-type]
        for arg, ref in zip(body.arguments[2:], carried):
            lw.refs[arg] = ref
        zero = lw.constant(np.zeros(counter_t.shape, np.int64), I64)  # type: ignore[union-attr]
        one = lw.constant(np.ones(counter_t.shape, np.int64), I64)  # type: ignore[union-attr]
        has_trip = lw.refs.get(trip) is not None
        has_cond = lw.refs.get(cond_in) is not None  # else the condition starts true
        cond_l, body_l, exit_l = lw.new_label(), lw.new_label(), lw.new_label()

        # the initial values (a carried value read after the loop from its initial
        # buffer would be wrong: the loop owns its result buffers)
        lw.add_task(s, Memcpy(zero, counter, loc), op.location)
        if has_cond:
            self._copy(cond_in, cond, s, op)
        else:
            lw.add_task(s, Memcpy(lw.constant(np.ones(cond_t.shape, np.bool_), I1), cond, loc),  # type: ignore[union-attr]
                        op.location)
        for v, ref in zip(initial, carried):
            self._copy(v, ref, s, op)
        lw.add_task(s, LabelSet(cond_l, loc), op.location)
        keep = cond
        if has_trip:
            trip_ref = lw.refs[trip]
            assert trip_ref is not None
            shape = tuple(np.broadcast_shapes(counter.shape, trip_ref.shape, cond.shape))
            lt = lw.fresh(TensorType(shape, I1))
            lw.add_task(s, Kernel("ge.less", lw.engine_of("ge.less"), [counter, trip_ref], [lt], loc=loc),
                        op.location)
            # the body's condition counts with a trip count too (ONNX: "for i < M while cond")
            keep = lw.fresh(TensorType(shape, I1))
            lw.add_task(s, Kernel("ge.and", lw.engine_of("ge.and"), [lt, cond], [keep], loc=loc), op.location)
        lw.add_task(s, LabelSwitch(keep, [exit_l, body_l], loc), op.location)
        base = lw.arena_end
        t = self._region_stream(body, s)

        def yields() -> None:
            ret = body.last_op
            assert ret is not None
            sources = list(ret.operands[:1 + len(carried)])
            targets = [cond, *carried]
            # a yield of another iteration argument is read through a temporary,
            # so copies that swap values do not overwrite what a later one reads
            self._carry(list(body.arguments[1:]), list(sources), list(targets), t, ret)
            for work in self._leave(s, t, op):
                work()  # type: ignore[operator]
            lw.add_task(s, Kernel("ge.add", lw.engine_of("ge.add"), [counter, one], [counter], loc=loc), op.location)
            lw.add_task(s, LabelGoto(cond_l, loc), op.location)
            lw.add_task(s, LabelSet(exit_l, loc), op.location)

        def start_body() -> None:
            lw.arena_end = base

        return [self._task(s, LabelSet(body_l, loc), op), *self._enter(s, t, op), start_body,
                *self._block(body, t), yields]

    # ------------------------------------------------------------ ge.scan
    def _scan_steps(self, op: Operation, s: int) -> list[_Work]:
        """``ge.scan`` over axis 0 as a counted loop: each trip gathers slice
        ``t`` of every scan input into the body's argument and scatters each
        scan value into row ``t`` of its output (the tensors a slice and a row
        name are the same bytes as the gather's and the scatter's (1, 1, ...)
        views, so no reshape task is needed)."""
        lw = self.lw
        loc = lw.loc(op)
        body = op.regions[0].blocks[0]
        num_scan = int(op.get_attr("num_scan_inputs"))  # type: ignore[arg-type]
        n = len(op.operands) - num_scan
        xs = op.operands[n:]
        length = xs[0].type.shape[0]  # type: ignore[union-attr]
        results = self._results(op)
        for r in op.results:
            lw.producer_stream[r] = s
        states, outs = results[:n], results[n:]
        counter = lw.fresh(TensorType((1, 1), I64))
        zero = lw.constant(np.zeros((1, 1), np.int64), I64)
        one = lw.constant(np.ones((1, 1), np.int64), I64)
        limit = lw.constant(np.array(length, np.int64), I64)
        for arg, ref in zip(body.arguments[:n], states):
            lw.refs[arg] = ref
        slices = [lw.fresh(arg.type) for arg in body.arguments[n:]]  # type: ignore[arg-type]
        for arg, ref in zip(body.arguments[n:], slices):
            lw.refs[arg] = ref
        cond_l, body_l, exit_l = lw.new_label(), lw.new_label(), lw.new_label()
        lw.add_task(s, Memcpy(zero, counter, loc), op.location)
        for v, ref in zip(op.operands[:n], states):
            self._copy(v, ref, s, op)
        for r, ref in zip(op.results[n:], outs):
            # the scatter reads the whole output each trip: it starts as zeros (a splat weight)
            element = r.type.element_type  # type: ignore[union-attr]
            zeros = np.broadcast_to(np.zeros((), storage_dtype(element)), ref.shape)
            lw.add_task(s, Memcpy(lw.constant(zeros, element), ref, loc), op.location)
        lw.add_task(s, LabelSet(cond_l, loc), op.location)
        keep = lw.fresh(TensorType((1, 1), I1))
        lw.add_task(s, Kernel("ge.less", lw.engine_of("ge.less"), [counter, limit], [keep], loc=loc), op.location)
        lw.add_task(s, LabelSwitch(keep, [exit_l, body_l], loc), op.location)
        base = lw.arena_end
        t = self._region_stream(body, s)

        def gather() -> None:
            lw.arena_end = base
            for x, ref in zip(xs, slices):
                src = lw.refs[x]
                assert src is not None
                lw.add_task(t, Kernel("ge.gather", lw.engine_of("ge.gather"), [src, counter], [ref], loc=loc),
                            op.location)

        def yields() -> None:
            ret = body.last_op
            assert ret is not None
            self._carry(list(body.arguments[:n]), list(ret.operands[:n]), list(states), t, ret)
            for v, out in zip(ret.operands[n:], outs):
                row = lw.refs.get(v)
                if row is None:
                    lw.error(ret, "yields an absent (ge.none) value")
                    continue
                update = TensorRef(row.space, row.offset, (1, *row.shape), row.dtype)
                lw.add_task(t, Kernel("ge.scatter_nd", lw.engine_of("ge.scatter_nd"), [out, counter, update], [out],
                                      loc=loc), op.location)
            for work in self._leave(s, t, op):
                work()  # type: ignore[operator]
            lw.add_task(s, Kernel("ge.add", lw.engine_of("ge.add"), [counter, one], [counter], loc=loc), op.location)
            lw.add_task(s, LabelGoto(cond_l, loc), op.location)
            lw.add_task(s, LabelSet(exit_l, loc), op.location)

        return [self._task(s, LabelSet(body_l, loc), op), *self._enter(s, t, op), gather, *self._block(body, t),
                yields]


def constant_weight(data: np.ndarray, element: object, name: str, offset: int) -> tuple[WeightBlob, DenseElementsAttr]:
    """A weight blob the lowering adds (a loop's 0, 1 or true) and its attribute."""
    t = TensorType(data.shape, element)  # type: ignore[arg-type]
    return WeightBlob(name, offset, data), DenseElementsAttr(t, data)


def nested_constants(ops: list[Operation]) -> list[Operation]:
    """The constants of ``ops`` and of every region nested in them, in order."""
    out = []
    for op in ops:
        for inner in op.walk():
            if inner.name in CONSTANT_OPS:
                out.append(inner)
    return out
