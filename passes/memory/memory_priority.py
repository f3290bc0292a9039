"""Memory priority: order two buffers the schedule keeps apart by adding an
event, so one may reuse the other's bytes (GE's ``memory_priority_mode``
trades streams for reuse; here the trade is one record/wait pair at a time,
and only where it pays).

A candidate is a conflicting pair ``a``, ``b`` (``a`` defined first, not a
graph output) whose uses of ``a`` all come before ``b``'s producer in block
order: for every other stream holding a use of ``a`` not yet ordered before
``b``, a ``ge.record_event`` right after that stream's last use and its
``ge.wait_event`` right before ``b``'s producer. The block order stays an
order in which every record precedes its wait, so no deadlock can appear.

Which pair: each node's start and end are measured by emulating the graph as
``lower-to-tasks`` lowers it (timing only; if it cannot be lowered, predicted
by running the block order with the cost model); the *stall* of a pair is how
much later ``b``'s producer would start once it waits for ``a``'s last uses —
zero for an ordering the run already had, which costs only the wait. Pairs of the bound's heaviest live set go first (ordering two of them
breaks it), the cheapest stall first, then the largest reusable size. A pair
is kept only if the plan gets smaller (or, at the same size, its bound does);
otherwise its events are removed again.
"""

from __future__ import annotations

from typing import Callable, Sequence

import attrs

from geir.attributes import IntegerAttr
from geir.operation import Operation
from geir.passes.memory.happens_before import StreamOrder
from geir.passes.memory.lifetimes import Buffer, MemoryProblem
from geir.passes.scheduling.op_graph import SYNC_OPS
from geir.rewriter import Rewriter

__all__ = ["Candidate", "candidates", "predict_times", "measured_times", "add_events", "remove_events",
           "node_durations", "next_event_id"]


def next_event_id(block_ops: Sequence[Operation]) -> int:
    """An event id no sync op of the block uses yet."""
    ids = [op.get_attr("event") for op in block_ops if op.name in SYNC_OPS]
    return max((i for i in ids if isinstance(i, int)), default=-1) + 1


def predict_times(block_ops: Sequence[Operation], order: StreamOrder, duration: Callable[[int], float],
                  sync_us: float = 0.0) -> tuple[list[float], list[float]]:
    """(start, finish) per node: the block order run with stream order and
    events, each node taking ``duration(node)`` and each wait ``sync_us``."""
    start = [0.0] * order.n
    finish = [0.0] * order.n
    clock = [0.0] * order.num_streams
    fired: dict[int, list[float]] = {}
    dense = {s: k for k, s in enumerate(order.stream_ids)}
    last = 0
    for op in block_ops:
        i = order.index.get(id(op))
        if i is not None:
            s = order.stream[i]
            last = s
            start[i] = clock[s]
            finish[i] = clock[s] = start[i] + duration(i)
        elif op.name in SYNC_OPS:
            attr = op.attributes.get("stream")
            s = dense.get(attr.value, last) if isinstance(attr, IntegerAttr) else last
            event = op.get_attr("event")
            if op.name == "ge.record_event":
                fired.setdefault(event, []).append(clock[s])  # type: ignore[arg-type]
            else:
                times = fired.pop(event, None)  # type: ignore[arg-type]
                clock[s] = max(clock[s], max(times) if times else 0.0) + sync_us
    return start, finish


@attrs.define
class Candidate:
    """Order buffer ``a`` before ``b``: records after ``uses`` (one per stream), waits before ``b``'s producer."""

    a: Buffer
    b: Buffer
    uses: list[int]
    stall: float
    size: int


def candidates(problem: MemoryProblem, live: Sequence[int], finish: Sequence[float],
               start: Sequence[float]) -> list[Candidate]:
    """Every orderable conflicting pair, live set first, cheapest stall first."""
    bufs = problem.buffers
    order = problem.order
    in_live = set(live)
    out: list[tuple[tuple[int, float, int], Candidate]] = []
    for x in range(len(bufs)):
        for y in problem.conflicts[x]:
            if y < x:
                continue
            a, b = (bufs[x], bufs[y]) if bufs[x].define < bufs[y].define else (bufs[y], bufs[x])
            if b.is_input or a.live_out or not a.size or not b.size or max(a.uses, default=-1) >= b.define:
                continue
            by_stream: dict[int, int] = {}
            target = order.stream[b.define]
            for u in a.uses:
                s = order.stream[u]
                if s != target and not order.happens_before(u, b.define):
                    by_stream[s] = max(by_stream.get(s, -1), u)
            if not by_stream:
                continue
            stall = max(0.0, max(finish[u] for u in by_stream.values()) - start[b.define])
            size = min(a.size, b.size)
            key = (0 if (x in in_live and y in in_live) else 1, stall, -size)
            out.append((key, Candidate(a, b, sorted(by_stream.values()), stall, size)))
    out.sort(key=lambda kc: kc[0])
    return [c for _, c in out]


def add_events(problem: MemoryProblem, c: Candidate, first_event: int) -> list[Operation]:
    """Insert the record/wait pairs that order ``c.a`` before ``c.b``; the new ops."""
    order = problem.order
    consumer = order.nodes[c.b.define]
    target = order.stream_ids[order.stream[c.b.define]]
    rewriter = Rewriter()
    added = []
    for k, u in enumerate(c.uses):
        event = IntegerAttr(first_event + k)
        use = order.nodes[u]
        record = Operation("ge.record_event", attributes={
            "event": event, "stream": IntegerAttr(order.stream_ids[order.stream[u]])}, location=use.location)
        wait = Operation("ge.wait_event", attributes={"event": event, "stream": IntegerAttr(target)},
                         location=consumer.location)
        rewriter.insert_after(use, record)
        rewriter.insert_before(consumer, wait)
        added += [record, wait]
    return added


def remove_events(ops: Sequence[Operation]) -> None:
    """Undo :func:`add_events`."""
    rewriter = Rewriter()
    for op in ops:
        rewriter.erase_op(op)


def measured_times(graph: Operation, order: StreamOrder, device: str) -> tuple[list[float], list[float]] | None:
    """(start, finish) per node in an emulated run of ``graph`` (timing only),
    or None when it cannot be lowered."""
    from geir.backends.emulator import EmulatorOptions, emulate
    from geir.backends.rt_module import task_list_from_model
    from geir.backends.task_list import Kernel
    from geir.diagnostics import DiagnosticError
    from geir.module import Module
    from geir.passes.lower_to_tasks import lower_graph
    try:
        # a scratch module takes the weight resources: the real one is left alone
        tl = task_list_from_model(lower_graph(graph, Module()))
        result = emulate(tl, None, EmulatorOptions(device=device, timing_only=True, check_races=False,
                                                   progress=False))
    except DiagnosticError:
        return None
    sched = result.schedule
    start, finish = [0.0] * order.n, [0.0] * order.n
    dense = {s: k for k, s in enumerate(order.stream_ids)}
    for k, stream in enumerate(tl.streams):
        queue = order.queue[dense[stream.id]] if stream.id in dense else []
        kernels = (i for i, t in enumerate(stream.tasks) if isinstance(t, Kernel))
        for node, i in zip(queue, kernels):
            g = result.program.first[k] + i
            start[node], finish[node] = sched.start[g], sched.end[g]
    return start, finish


def node_durations(graph: Operation, device: str) -> tuple[list[float], float]:
    """Each node's duration on ``device`` (the emulator's cost model on the
    kernel lower-to-tasks emits) and the cost of one record/wait pair."""
    from geir.passes.scheduling.op_graph import OpGraph
    from geir.passes.scheduling.problem import ScheduleProblem
    problem = ScheduleProblem.build(OpGraph.build(graph), 1, device)
    return problem.durations, problem.sync_us

