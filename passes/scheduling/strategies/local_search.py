"""Hill climbing on a stream plan, judged by the emulator: the last step of the
``cost`` strategy.

A list schedule decides with an approximate model of the device (it cannot see
how the pools serve their queues, how DRAM is shared, the order of a fork's
records); the emulator can. So, sweep by sweep, over the nodes in issue order,
these moves are tried and one is kept when the emulated makespan drops (or,
at an equal makespan, when fewer events are kept):

* a node onto the stream of a neighbour (a predecessor or successor on another
  stream: the moves that remove or add an event),
* a node onto an idle stream (one the budget allows but the plan leaves
  unused), where it runs beside everything,
* a node swapped with the next node of its stream in the issue order, when
  neither depends on the other (which of two ready kernels a stream runs
  first, and in which order a fork's records go out).

Every plan tried is valid: stream moves keep the order, swaps keep it
topological. A climb stops when a sweep improves nothing. :func:`iterated`
then kicks the local optimum (a few random nodes onto random streams, from a
seeded generator) and climbs again, keeping what is better; and
:func:`trim_events` drops events: a node moved onto a neighbour's stream is
kept when the plan keeps fewer events and stays under a given makespan.

Every budget is counted in emulated tasks (:attr:`.judge.Judge.cost` per
evaluation), so the result does not depend on the machine's speed.
"""

from __future__ import annotations

from geir.passes.scheduling.judge import Judge, Measure
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["refine", "iterated", "trim_events", "TASK_BUDGET", "MAX_EVALUATIONS", "PATIENCE"]

#: emulated tasks the search may spend (evaluations x nodes x frames)
TASK_BUDGET = 150_000
#: and at most this many evaluations (small graphs converge long before)
MAX_EVALUATIONS = 1000
#: iterated local search stops after this many kicks in a row that found nothing better
PATIENCE = 15
#: a kick moves 1 to this many random nodes onto random streams
KICK_MOVES = 4


def _better(a: Measure, b: Measure) -> bool:
    """``a`` is faster than ``b``, or as fast with fewer events."""
    return a.makespan_us < b.makespan_us - 1e-6 or (a.makespan_us <= b.makespan_us + 1e-6 and a.events < b.events)


def _neighbour_streams(problem: ScheduleProblem, streams: list[int], i: int, pinned: set[int]) -> list[int]:
    """The other streams of node i's predecessors and successors (label streams
    aside), in id order: the moves that remove or add an event."""
    g = problem.graph
    targets = {streams[j] for j in g.preds[i]} | {streams[j] for j in g.succs[i]}
    targets.discard(streams[i])
    return sorted(targets - pinned)


def _free_streams(problem: ScheduleProblem, streams: list[int], pinned: set[int]) -> list[int]:
    """Stream ids the budget allows that no node uses (at most one: idle streams are alike)."""
    used = {s for s in streams if s not in pinned}
    if len(used) >= problem.max_streams:
        return []
    s = 0
    while s in used or s in pinned:
        s += 1
    return [s]


def refine(problem: ScheduleProblem, judge: Judge, plan: StreamPlan,
           task_budget: int = TASK_BUDGET) -> tuple[StreamPlan, Measure, int]:
    """A plan at least as good as ``plan`` by :func:`_better`, its measure and
    the number of moves kept."""
    n = problem.n
    best = judge.plan(plan)
    if n == 0:
        return plan, best, 0
    g = problem.graph
    labelled = [lb is not None for lb in problem.labels]
    streams = list(plan.streams)
    order = list(plan.order)
    pinned = {streams[i] for i in range(n) if labelled[i]}  # dedicated to their labels
    stop = judge.spent + min(task_budget, MAX_EVALUATIONS * judge.cost)
    moves = 0
    improved = True
    while improved and judge.spent < stop:
        improved = False
        for i in list(order):
            if judge.spent >= stop:
                break
            if not labelled[i]:
                for s in _neighbour_streams(problem, streams, i, pinned) + _free_streams(problem, streams, pinned):
                    if judge.spent >= stop:
                        break
                    old, streams[i] = streams[i], s
                    m = judge.measure(streams, order)
                    if _better(m, best):
                        best, improved, moves = m, True, moves + 1
                    else:
                        streams[i] = old
            # swap with the next node of its stream, when independent
            k = order.index(i)
            nxt = next((q for q in range(k + 1, n) if streams[order[q]] == streams[i]), -1)
            if nxt < 0 or judge.spent >= stop:
                continue
            j = order[nxt]
            between = set(order[k + 1:nxt + 1])
            if any(c in between for c in g.succs[i]):
                continue  # something up to j depends on i: i cannot go after j
            swapped = order[:k] + order[k + 1:nxt + 1] + [i] + order[nxt + 1:]
            m = judge.measure(streams, swapped)
            if _better(m, best):
                best, improved, moves, order = m, True, moves + 1, swapped
    refined = StreamPlan(streams, order, list(plan.notes), predicted_us=best.makespan_us)
    return refined, best, moves


def iterated(problem: ScheduleProblem, judge: Judge, plan: StreamPlan, task_budget: int,
             seed: int = 0) -> tuple[StreamPlan, Measure, int]:
    """Iterated local search from ``plan`` (a local optimum of :func:`refine`):
    kick it (a few random nodes onto random streams, the budget's idle stream
    included), refine the kicked plan, keep it when better. Stops when
    ``task_budget`` emulated tasks are spent or after :data:`PATIENCE` kicks in
    a row without a better plan. The kicks come from a seeded generator: the
    same input gives the same plan. Returns the best plan, its measure and the
    number of kicks that improved it."""
    import random
    rng = random.Random(seed)
    best, measure = plan, judge.plan(plan)
    free = [i for i in range(problem.n) if problem.labels[i] is None]
    pinned = {plan.streams[i] for i in range(problem.n) if problem.labels[i] is not None}
    stop = judge.spent + task_budget
    wins = idle = 0
    while free and judge.spent < stop and idle < PATIENCE:
        streams = list(best.streams)
        targets = sorted({streams[i] for i in free} - pinned) + _free_streams(problem, streams, pinned)
        for _ in range(rng.randint(1, KICK_MOVES)):
            streams[rng.choice(free)] = rng.choice(targets)
        kicked, m, _ = refine(problem, judge, StreamPlan(streams, best.order, best.notes), stop - judge.spent)
        if _better(m, measure):
            best, measure, wins, idle = kicked, m, wins + 1, 0
        else:
            idle += 1
    return best, measure, wins


def trim_events(problem: ScheduleProblem, judge: Judge, plan: StreamPlan, limit_us: float,
                task_budget: int = TASK_BUDGET) -> tuple[StreamPlan, Measure, int]:
    """``plan`` with nodes moved onto a neighbour's stream while that keeps
    fewer events and a makespan of at most ``limit_us``; its measure and the
    number of moves kept."""
    n = problem.n
    best = judge.plan(plan)
    labelled = [lb is not None for lb in problem.labels]
    streams = list(plan.streams)
    pinned = {streams[i] for i in range(n) if labelled[i]}
    stop = judge.spent + min(task_budget, MAX_EVALUATIONS * judge.cost)
    moves = 0
    improved = True
    while improved and judge.spent < stop and best.events > 0:
        improved = False
        for i in plan.order:
            if labelled[i] or judge.spent >= stop:
                continue
            for s in _neighbour_streams(problem, streams, i, pinned):
                if judge.spent >= stop:
                    break
                old, streams[i] = streams[i], s
                m = judge.measure(streams, plan.order)
                if m.events < best.events and m.makespan_us <= limit_us + 1e-9:
                    best, improved, moves = m, True, moves + 1
                else:
                    streams[i] = old
    return StreamPlan(streams, list(plan.order), list(plan.notes), predicted_us=best.makespan_us), best, moves
