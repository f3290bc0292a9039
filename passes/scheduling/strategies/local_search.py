"""Hill climbing on a stream plan, judged by the emulator: the last step of the
``cost`` strategy.

A list schedule decides with an approximate model of the device (it cannot see
that the record after a producer delays the producer's stream, nor how the
pools serve their queues); the emulator can. So, sweep by sweep, each node is
tried on the stream of each of its neighbours (a predecessor or successor on
another stream: the moves that remove or add an event) and a move is kept when
the emulated makespan drops. The issue order stays, so every plan tried is
valid. The search stops when a sweep improves nothing or its evaluation budget
— counted in emulated tasks, so the result does not depend on the machine's
speed — is spent.
"""

from __future__ import annotations

from geir.passes.scheduling.evaluate import evaluate
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["refine", "TASK_BUDGET"]

#: emulated tasks the search may spend (evaluations x nodes)
TASK_BUDGET = 40_000


def refine(problem: ScheduleProblem, plan: StreamPlan, makespan_us: float,
           task_budget: int = TASK_BUDGET) -> tuple[StreamPlan, float, int]:
    """A plan at least as fast as ``plan`` (whose emulated makespan is
    ``makespan_us``), the new makespan and the number of moves kept."""
    n = problem.n
    if n == 0:
        return plan, makespan_us, 0
    labelled = [lb is not None for lb in problem.labels]
    streams = list(plan.streams)
    label_streams = {streams[i] for i in range(n) if labelled[i]}  # dedicated to their labels
    evaluations = max(0, task_budget // (n * problem.iterations))  # an evaluation emulates every frame
    best = makespan_us
    moves = 0
    improved = True
    while improved and evaluations > 0:
        improved = False
        for i in plan.order:
            if labelled[i]:
                continue  # a label pins its stream
            neighbours = {streams[j] for j in problem.graph.preds[i]} | {streams[j] for j in problem.graph.succs[i]}
            neighbours.discard(streams[i])
            neighbours -= label_streams
            for s in sorted(neighbours):
                if evaluations <= 0:
                    break
                evaluations -= 1
                old, streams[i] = streams[i], s
                ms = evaluate(problem, StreamPlan(streams, plan.order)).makespan_us
                if ms < best - 1e-6:
                    best, improved, moves = ms, True, moves + 1
                else:
                    streams[i] = old
    refined = StreamPlan(streams, list(plan.order), list(plan.notes), predicted_us=best)
    return refined, best, moves
