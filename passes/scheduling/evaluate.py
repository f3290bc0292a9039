"""Judge a stream plan with the emulator: the plan's task list (the kernels the
lowering would emit, with the events :func:`plan_sync` keeps) run in timing-only
mode. The strategies that compare candidates (``cost``) and ``schedule-stats``
use it, so a plan is measured by the same simulator ``ge-run`` uses — never by
a second, private model of the device."""

from __future__ import annotations

import attrs

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.emulator.program import KernelRows
from geir.backends.task_list import EndGraph, Record, Stream, Task, TaskList, Wait
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan
from geir.passes.scheduling.sync_plan import SyncPlan, plan_sync

__all__ = ["Evaluation", "evaluate", "plan_task_list"]


@attrs.frozen
class Evaluation:
    """What the emulator measured for a plan."""

    makespan_us: float
    lower_bound_us: float
    events: int
    streams: int


def plan_task_list(problem: ScheduleProblem, plan: StreamPlan, sync: SyncPlan) -> TaskList:
    """The task list of ``plan``: each stream's kernels in plan order, a record
    after each event's producer and a wait before its consumer. Buffers are not
    planned (every ref at offset 0): for timing only."""
    waits: dict[int, list[int]] = {}
    records: dict[int, list[int]] = {}
    for k, (p, c) in enumerate(sync.events):
        records.setdefault(p, []).append(k)
        waits.setdefault(c, []).append(k)
    queues: dict[int, list[Task]] = {}
    for i in plan.order:
        q = queues.setdefault(plan.streams[i], [])
        for k in waits.get(i, ()):
            q.append(Wait(k))
        q.append(problem.kernels[i])
        for k in records.get(i, ()):
            q.append(Record(k))
    streams = [Stream(s, 0, queues[s] + [EndGraph()]) for s in sorted(queues)] or [Stream(0, 0, [EndGraph()])]
    return TaskList(streams=streams, arena_size=problem.largest_tensor_bytes, num_events=len(sync.events),
                    weight_size=problem.largest_tensor_bytes)


def evaluate(problem: ScheduleProblem, plan: StreamPlan, sync: SyncPlan | None = None,
             kernel_rows: KernelRows | None = None) -> Evaluation:
    """Makespan and lower bound of ``plan`` on the problem's device (of all
    ``problem.iterations`` frames when there are several). ``kernel_rows``
    keeps the problem's kernels compiled from one evaluation to the next."""
    if sync is None:
        sync = plan_sync(problem.graph.preds, plan.streams, plan.order, reuse_ids=False)
    tl = plan_task_list(problem, plan, sync)
    if problem.iterations > 1:
        from geir.backends.scenarios.iterations import unroll
        tl = unroll(tl, problem.iterations)
        kernel_rows = None  # the frames' kernels are copies, new in every evaluation
    result = emulate(tl, None, EmulatorOptions(device=problem.model.profile, mode=problem.mode, timing_only=True,
                                               check_races=False, progress=False, cost_model=problem.model,
                                               kernel_rows=kernel_rows, liveness=False))
    report = result.report
    return Evaluation(float(report["makespan_us"]), float(report["lower_bound_us"]), len(sync.events),
                      len(tl.streams))
