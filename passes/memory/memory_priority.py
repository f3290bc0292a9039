"""Memory priority: add ordering events so that buffers the schedule keeps apart
may share bytes (GE's ``memory_priority_mode`` trades streams for reuse; here
the trade is record/wait pairs, the free ones first).

Ordering buffer ``a`` before ``b`` (``a`` defined first, not a graph output,
every use of ``a`` before ``b``'s producer in block order) takes, for each
other stream with a use of ``a`` not yet ordered before ``b``, a
``ge.record_event`` right after that stream's last use and its
``ge.wait_event`` right before ``b``'s producer. The block order stays an
order in which every record precedes its wait, so no deadlock can appear.

Each node's start and end come from an emulated run of the graph as
``lower-to-tasks`` lowers it (timing only; predicted with the cost model when it
cannot be lowered). An ordering's *stall* is how much later ``b``'s producer
would start once it waits for ``a``'s last uses. Two phases, each aiming at a
plan and adding exactly the orderings that make it valid:

1. *the measured run*: buffers whose lifetimes did not overlap in that run need
   no other bytes; a plan on those conflicts (greedy by size) is what the run
   itself allowed, and its orderings all have zero stall — only the event
   latency is paid;
2. *the single-stream plan* of the same block order: its orderings.

Each step tries the cheapest 1, 2, 4, ... orderings the aimed plan needs
(least stall, then most bytes shared) and then all of them, each with a replan, and keeps the one
that saves the most bytes per event among those whose measured makespan stays
within ``max_slowdown`` of the original; a phase ends when none qualifies. Events cost the device a record and a
wait each, so only orderings that pay are kept.

Requirements are merged per consumer and source stream (one wait for the last
use), and dropped when an earlier wait of the batch on the consumer's stream
already covers them.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from geir.attributes import IntegerAttr
from geir.operation import Operation, Value
from geir.passes.memory.greedy_by_size import greedy_by_size
from geir.passes.memory.happens_before import StreamOrder
from geir.passes.memory.lifetimes import Buffer, MemoryProblem
from geir.passes.scheduling.op_graph import SYNC_OPS
from geir.rewriter import Rewriter

__all__ = ["fit_budget", "predict_times", "measured_times", "node_durations", "next_event_id", "offsets_by_value",
           "transfer", "Requirement"]

#: (source node: the last use to wait for, consumer node: the producer that waits, stall in us,
#: the most bytes a pair needing it would share)
Requirement = tuple[int, int, float, int]
#: steps tried (one replan each) per graph
MAX_EVALUATIONS = 96
Times = tuple[list[float], list[float]]


def next_event_id(block_ops: Sequence[Operation]) -> int:
    """An event id no sync op of the block uses yet."""
    ids = [op.get_attr("event") for op in block_ops if op.name in SYNC_OPS]
    return max((i for i in ids if isinstance(i, int)), default=-1) + 1


def predict_times(block_ops: Sequence[Operation], order: StreamOrder, duration: Callable[[int], float],
                  sync_us: float = 0.0) -> Times:
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


def measured_times(graph: Operation, order: StreamOrder, device: str) -> Times | None:
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


def offsets_by_value(problem: MemoryProblem, offsets: Sequence[int]) -> dict[object, int]:
    """A plan keyed by tensor (a region buffer by its control op), so it survives rebuilding the problem."""
    out: dict[object, int] = {v: offsets[b.id] for b in problem.buffers for v in b.values}
    for b in problem.buffers:
        if b.region_op is not None:
            out[b.region_op] = offsets[b.id]
    return out


def transfer(problem: MemoryProblem, plan: Mapping[object, int]) -> list[int] | None:
    """``plan`` as offsets of ``problem``'s buffers (None when a tensor is missing)."""
    out = []
    for b in problem.buffers:
        o = plan.get(b.key)
        if o is None:
            return None
        out.append(o)
    return out


def _orderable(a: Buffer, b: Buffer) -> bool:
    return not (b.is_input or a.live_out or not a.size or not b.size or max(a.uses, default=-1) >= b.define)


def _requirements(problem: MemoryProblem, offsets: Sequence[int], times: Times) -> list[Requirement]:
    """What ordering every pair that shares bytes in ``offsets`` but conflicts
    needs: (last use on a stream, the consumer to wait, stall), merged per
    consumer and source stream."""
    order = problem.order
    bufs = problem.buffers
    start, finish = times
    need: dict[tuple[int, int], int] = {}  # (consumer, source stream) -> latest use
    gain: dict[tuple[int, int], int] = {}
    for x, others in enumerate(problem.conflicts):
        for y in others:
            if y < x:
                continue
            ox, oy = offsets[x], offsets[y]
            if not (ox < oy + bufs[y].size and oy < ox + bufs[x].size):
                continue
            a, b = (bufs[x], bufs[y]) if bufs[x].define < bufs[y].define else (bufs[y], bufs[x])
            if not _orderable(a, b):
                continue
            target = order.stream[b.define]
            for u in a.uses:
                s = order.stream[u]
                if s != target and not order.happens_before(u, b.define):
                    key = (b.define, s)
                    if need.get(key, -1) < u:
                        need[key] = u
                    gain[key] = max(gain.get(key, 0), min(a.size, b.size))
    return [(u, q, max(0.0, finish[u] - start[q]), gain[(q, s)]) for (q, s), u in need.items()]


def _add(problem: MemoryProblem, reqs: Sequence[Requirement], first_event: int) -> list[Operation]:
    """Insert one record/wait pair per requirement not covered by an earlier
    one of the same batch; the inserted ops."""
    order = problem.order
    rewriter = Rewriter()
    waited: dict[tuple[int, int], int] = {}  # (consumer stream, source stream) -> epoch waited for
    event = first_event
    added: list[Operation] = []
    for u, q, _, _ in sorted(reqs, key=lambda r: (order.stream[r[1]], order.rank[r[1]], r[0])):
        t, s = order.stream[q], order.stream[u]
        if order.epoch[u] <= max(order.before[q][s], waited.get((t, s), 0)):
            continue
        waited[(t, s)] = order.epoch[u]
        use, consumer = order.nodes[u], order.nodes[q]
        attr = IntegerAttr(event)
        record = Operation("ge.record_event", attributes={"event": attr, "stream": IntegerAttr(order.stream_ids[s])},
                           location=use.location)
        wait = Operation("ge.wait_event", attributes={"event": attr, "stream": IntegerAttr(order.stream_ids[t])},
                         location=consumer.location)
        rewriter.insert_after(use, record)
        rewriter.insert_before(consumer, wait)
        added += [record, wait]
        event += 1
    return added


def _remove(ops: Sequence[Operation]) -> None:
    rewriter = Rewriter()
    for op in ops:
        rewriter.erase_op(op)


def _run_plan(problem: MemoryProblem, times: Times) -> list[int]:
    """Greedy by size on the conflicts the measured run has: orderable pairs
    whose lifetimes did not overlap in it are let share."""
    start, finish = times
    bufs = problem.buffers
    inf = float("inf")

    def span(b: Buffer) -> tuple[float, float]:
        t0 = 0.0 if b.is_input else start[b.define]
        t1 = inf if b.live_out else max((finish[u] for u in b.uses), default=t0)
        return t0, t1

    spans = [span(b) for b in bufs]
    relaxed: list[list[int]] = [[] for _ in bufs]
    for x, others in enumerate(problem.conflicts):
        for y in others:
            a, b = (x, y) if bufs[x].define < bufs[y].define else (y, x)
            if spans[a][1] <= spans[b][0] and _orderable(bufs[a], bufs[b]):
                continue  # the run already had a before b
            relaxed[x].append(y)
    return greedy_by_size(bufs, relaxed)


def _step_sizes(n: int) -> list[int]:
    """How many of ``n`` orderings (cheapest first) each step tries: 1, 2, 4, ...
    and all of them, which a plan may need together."""
    sizes = []
    k = 1
    while k < n:
        sizes.append(k)
        k *= 2
    return sizes + [n] if n else []


def fit_budget(graph: Operation, build: Callable[[], MemoryProblem],
               plan: Callable[[MemoryProblem, Sequence[list[int]]], int], target: int,
               single: Mapping[Value, int], device: str,
               max_slowdown: float = 0.05) -> tuple[int, list[dict[Value, int]], float]:
    """Add events to ``graph`` until ``plan(problem, extra offset candidates)``
    (the arena of the best plan) fits ``target``: (events added, the plans
    aimed at, by tensor — candidates for the final plan, the measured makespan
    growth). ``single`` is the single-stream plan by tensor; no step may make
    the measured makespan grow by more than ``max_slowdown`` of the original.
    See the module doc for the phases."""
    block = graph.regions[0].blocks[0]
    durations: list[float] | None = None
    sync_us = 0.0

    def times_of(problem: MemoryProblem) -> Times:
        nonlocal durations, sync_us
        measured = measured_times(graph, problem.order, device)
        if measured is not None:
            return measured
        if durations is None:
            durations, sync_us = node_durations(graph, device)
        return predict_times(list(block.ops), problem.order, durations.__getitem__, sync_us)

    problem = build()
    targets: list[dict[Value, int]] = []

    def arena(p: MemoryProblem) -> int:
        extra = [o for o in (transfer(p, t) for t in targets) if o is not None]
        return plan(p, extra)

    if arena(problem) <= target:
        return 0, targets, 0.0
    base = max(times_of(problem)[1], default=0.0)
    limit = base * (1.0 + max_slowdown)
    makespan = base
    added = evaluated = 0
    # phase 1: what the measured run allowed (zero stall); phase 2: the single-stream plan
    for phase in ("run", "single"):
        times = times_of(problem)
        aim = offsets_by_value(problem, _run_plan(problem, times)) if phase == "run" else dict(single)
        targets.append(aim)
        while evaluated < MAX_EVALUATIONS:
            current = arena(problem)
            if current <= target:
                break
            offsets = transfer(problem, aim)
            reqs = _requirements(problem, offsets, times) if offsets is not None else []
            # cheapest first: the least stall, then the most bytes it lets share
            reqs.sort(key=lambda r: (r[2], -r[3]))
            # steps: the cheapest 1, 2, 4, ... orderings, then all; keep the one saving most bytes per event
            best: tuple[float, list[Requirement], float] | None = None
            for k in _step_sizes(len(reqs)):
                if evaluated >= MAX_EVALUATIONS:
                    break
                evaluated += 1
                ops = _add(problem, reqs[:k], next_event_id(list(block.ops)))
                trial = build()
                after = arena(trial)
                saving = (current - after) / (len(ops) // 2)
                if after < current and (best is None or saving > best[0]):
                    span = max(times_of(trial)[1], default=0.0)
                    if span <= limit:  # the time it costs, measured
                        best = (saving, reqs[:k], span)
                _remove(ops)
            if best is None:
                break  # no step pays: the next phase, or give up
            added += len(_add(problem, best[1], next_event_id(list(block.ops)))) // 2
            makespan = best[2]
            problem = build()
            times = times_of(problem)
        if arena(problem) <= target:
            break
    return added, targets, (makespan / base - 1.0) if base > 0 else 0.0
