"""A stream plan measured the way the passes will lower it: the ``cost``
strategy's judge.

:func:`~geir.passes.scheduling.evaluate.evaluate` emulates a plan on the
problem's node numbering. After ``partition-streams`` the block is reordered
to the plan's order and stream ids are renumbered by first use, and both
choices reach the emulator: ``insert-events`` takes each consumer's
predecessors in block order (ties among its waits follow it, and a wait
sequence costs 1 us per wait in that order), and the pools break ties by
task number (streams in id order). So a candidate is judged on exactly that
renumbering — otherwise a plan can measure a few microseconds faster than
the program it becomes.

:class:`Judge` also counts the emulated tasks it spends (the search budgets
are counted in them, not in wall time, so a plan does not depend on the
machine's speed) and remembers plans it has already measured.
"""

from __future__ import annotations

import attrs

from geir.backends.emulator.program import KernelRows
from geir.passes.scheduling.evaluate import evaluate
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan, dense
from geir.passes.scheduling.sync_plan import SyncPlan, plan_sync

__all__ = ["Measure", "Judge", "lowered_sync", "EVALUATION_OVERHEAD"]

#: a measurement's fixed cost (building and reporting the run), in emulated tasks
EVALUATION_OVERHEAD = 30


@attrs.frozen(order=True)
class Measure:
    """What the emulator measured for a plan as lowered."""

    makespan_us: float
    events: int


def lowered_sync(problem: ScheduleProblem, streams: list[int], order: list[int]) -> SyncPlan:
    """The events ``insert-events`` keeps for the plan once the block is in
    ``order``: each node's predecessors taken in that order."""
    pos = [0] * problem.n
    for k, i in enumerate(order):
        pos[i] = k
    preds = problem.graph.preds
    resorted = None  # a copy only when some node's predecessors are out of block order
    for i, ps in enumerate(preds):
        for k in range(1, len(ps)):
            if pos[ps[k - 1]] > pos[ps[k]]:
                if resorted is None:
                    resorted = list(preds)
                resorted[i] = sorted(ps, key=pos.__getitem__)
                break
    return plan_sync(resorted if resorted is not None else preds, streams, order, reuse_ids=False)


@attrs.define(eq=False)
class Judge:
    """Measures plans of one problem, each distinct plan once."""

    problem: ScheduleProblem
    #: emulated tasks spent so far (:attr:`cost` per new measurement)
    spent: int = 0
    _seen: dict[tuple[int, ...], Measure] = attrs.Factory(dict)
    #: the problem's kernels as the emulator compiled them (every plan holds the same Kernel objects)
    _rows: KernelRows = attrs.Factory(KernelRows)

    @property
    def cost(self) -> int:
        """What one measurement counts, in emulated tasks: the nodes of every
        frame, plus a fixed share for what a run costs whatever its size."""
        return (self.problem.n + EVALUATION_OVERHEAD) * self.problem.iterations

    def measure(self, streams: list[int], order: list[int]) -> Measure:
        """The emulated makespan and kept events of the plan as lowered (a
        UB-fused op on its chain head's stream, as ``partition-streams`` puts it)."""
        ids = dense(self.problem.keep_fused_chains(streams), order)
        key = tuple(ids) + tuple(order)
        got = self._seen.get(key)
        if got is None:
            self.spent += self.cost
            sync = lowered_sync(self.problem, ids, order)
            got = Measure(evaluate(self.problem, StreamPlan(ids, order), sync, self._rows).makespan_us,
                          len(sync.events))
            self._seen[key] = got
        return got

    def plan(self, plan: StreamPlan) -> Measure:
        return self.measure(plan.streams, plan.order)
