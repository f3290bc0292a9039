"""``optimal``: an exact schedule by OR-Tools CP-SAT over the emulator's resource
model — the judge the heuristic strategies are measured against.

The model (integer time in :data:`TICK_US` ticks):

* one interval ``[start_i, end_i)`` per node, of the node's cost-model duration;
* **pools**: a cumulative constraint per engine pool, each node demanding its
  ``units`` out of the pool's capacity (``GE_LOCAL`` nodes take no time and no
  units, so they are in none);
* **streams**: node ``i`` is on stream ``s`` when the Boolean ``x[i, s]`` holds;
  each stream is a no-overlap over optional intervals, so the tasks of one stream
  run one after another, as the emulator's in-order queues do (a node of no
  duration still holds one tick of its stream, so it keeps its queue place).
  Each ``stream_label`` gets a stream of its own (fixed, not a choice);
  unlabelled nodes choose among ``max_streams`` further streams. Symmetry
  breaking: the unlabelled streams are opened in node order (node ``i`` may take
  stream ``k`` only if an earlier node took stream ``k - 1``);
* **dependencies**: ``end_j <= start_i`` on one stream; across streams
  ``end_j + record_us + wait_us <= start_i`` — however ``insert-events``
  reduces the events, a path from ``j`` to ``i`` on another stream holds at
  least one record and one wait;
* **event tasks' stream time**: a producer keeps its stream busy ``record_us``
  after it ends when it has a consumer on another stream that no later
  producer of the same stream covers (``insert-events`` keeps only the last
  producer's event of each stream a consumer depends on); a consumer with a
  producer on another stream keeps its stream busy ``wait_us`` before it
  starts. The stream interval is the node's interval widened by those;
* **HBM bandwidth**: a task's memory traffic flows after its fixed overhead, at
  the rate it draws alone (its bytes over its roofline time, at most its
  cores' rate); the flows form a cumulative over the device's HBM bandwidth
  (rates in :data:`HBM_SCALE` parts of it, rounded up). The emulator shares
  the bandwidth fluidly instead (oversubscribed flows slow down), so rigid
  flows are conservative: a schedule of the model never oversubscribes;
* objective: the makespan (the latest end).

Approximations (the emulator, run on the plan after ``insert-events``, is the
judge; the model's optimum is what it predicts for the plan):

* event tasks are one record and one wait per node at most — a producer
  feeding several streams records once per stream in the emulator, a consumer
  waits once per stream, and ``insert-events`` may drop more than the model's
  rule above (waits implied by earlier waits of the consumer's stream);
* rigid HBM flows against the emulator's fluid sharing (above);
* a schedule is a set of start times; the emulator starts every task as soon
  as it can and serves each pool first come, first served without
  backfilling, so its makespan for the same streams and order may differ
  slightly (either way);
* durations are rounded to the nearest tick; the reported optimum and bound
  are those of the rounded problem.

So the default model's optimum is a prediction, not a bound on the emulator.
``relaxed=True`` drops what may overestimate — event tasks' stream time and
HBM bandwidth — keeping every task at its alone duration and every
cross-stream dependency at one record plus one wait: a relaxation of what the
emulator does with any event reduction, so its bound (rounding aside) is a
lower bound on the emulated makespan of every plan.

The solver is hinted with the serial schedule (every unlabelled node on one
stream, nodes one after another in block order), so it always has a solution;
if it finds none of its own within the time limit, that serial schedule is
returned with the solver's bound.
"""

from __future__ import annotations

import math
from typing import Union

from ortools.sat.python import cp_model

from geir.backends.cost_model import GE_LOCAL, TaskCost
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan, dense, label_streams

__all__ = ["plan", "ProblemTooLarge", "NODE_LIMIT", "TICK_US", "DEFAULT_TIME_LIMIT_S", "NUM_WORKERS", "HBM_SCALE",
           "hbm_flow"]

#: graphs above this many nodes are refused: the model grows as nodes x streams
#: plus edges x streams, and CP-SAT stops proving anything well before
NODE_LIMIT = 200
#: one unit of the model's integer time, in microseconds (10 ns: durations of
#: a few microseconds keep three significant digits)
TICK_US = 0.01
#: used when the caller passes no positive time limit
DEFAULT_TIME_LIMIT_S = 10.0
#: CP-SAT search workers (the machine this runs on has two cores)
NUM_WORKERS = 2
#: the HBM bandwidth in the model's integer rate units (a flow's rate is rounded
#: up to a thousandth of the bandwidth)
HBM_SCALE = 1000

# A 0/1 value that is either decided while building the model or a solver literal.
Lit = Union[int, cp_model.IntVar]


class ProblemTooLarge(Exception):
    """The graph has more nodes than the exact strategy accepts."""

    def __init__(self, nodes: int, limit: int = NODE_LIMIT) -> None:
        self.nodes = nodes
        self.limit = limit
        super().__init__(f"strategy 'optimal' solves graphs of at most {limit} ops; this graph has {nodes} "
                         f"(use another strategy, or split the graph)")


def _ticks(us: float) -> int:
    """``us`` in ticks, rounded; a non-zero duration is at least one tick."""
    t = int(round(us / TICK_US))
    return 1 if t == 0 and us > 0 else t


def hbm_flow(cost: TaskCost, bandwidth: float) -> tuple[float, int] | None:
    """When ``cost``'s task moves HBM bytes: its flow's duration alone (after the
    overhead, in us) and its rate in :data:`HBM_SCALE` parts of ``bandwidth``,
    as the emulator's fluid model sees them (``Program.traffic``)."""
    if cost.hbm_bytes <= 0 or cost.hbm_rate <= 0 or bandwidth <= 0:
        return None
    alone = cost.duration_us - cost.overhead_us
    demand = min(cost.hbm_bytes / alone if alone > 0 else cost.hbm_rate, cost.hbm_rate)
    # rounded up (a float hair above an exact share is not rounded up)
    return alone, max(1, min(HBM_SCALE, math.ceil(demand / bandwidth * HBM_SCALE - 1e-9)))


def _neg(v: Lit) -> Lit:
    return 1 - v if isinstance(v, int) else v.Not()


class _Builder:
    """A CP-SAT model whose every variable carries a hint (the hints form one
    feasible solution), with 0/1 constants allowed wherever a literal is."""

    def __init__(self) -> None:
        self.m = cp_model.CpModel()
        self.hint: dict[int, int] = {}  # variable index -> hinted value
        self.vars: list[cp_model.IntVar] = []

    def boolean(self, name: str, hinted: int) -> cp_model.IntVar:
        v = self.m.new_bool_var(name)
        self.hint[v.index] = hinted
        self.vars.append(v)
        return v

    def integer(self, lo: int, hi: int, name: str, hinted: int) -> cp_model.IntVar:
        v = self.m.new_int_var(lo, hi, name)
        self.hint[v.index] = hinted
        self.vars.append(v)
        return v

    def hinted(self, v: Lit) -> int:
        if isinstance(v, int):
            return v
        if not isinstance(v, cp_model.IntVar):  # a negated literal
            return 1 - self.hint[v.Not().index]
        return self.hint[v.index]

    def clause(self, lits: list[Lit]) -> None:
        """At least one of ``lits`` (constants fold away)."""
        if any(isinstance(v, int) and v for v in lits):
            return
        self.m.add_bool_or([v for v in lits if not isinstance(v, int)])

    def any_pair(self, pairs: list[tuple[Lit, Lit]], name: str) -> Lit:
        """A literal true when both members of some pair are (it may be true
        otherwise: it only ever costs time, so the solver keeps it exact)."""
        live = [(a, b) for a, b in pairs if not (isinstance(a, int) and not a) and not (isinstance(b, int) and not b)]
        if not live:
            return 0
        if any(isinstance(a, int) and isinstance(b, int) for a, b in live):
            return 1
        r = self.boolean(name, int(any(self.hinted(a) and self.hinted(b) for a, b in live)))
        for a, b in live:
            self.clause([_neg(a), _neg(b), r])
        return r

    def apply_hints(self) -> None:
        for v in self.vars:
            self.m.add_hint(v, self.hint[v.index])


def plan(problem: ScheduleProblem, time_limit_s: float = DEFAULT_TIME_LIMIT_S, *,
         relaxed: bool = False) -> StreamPlan:
    """The makespan-optimal plan of ``problem`` (or the best found within
    ``time_limit_s`` seconds, with the proven lower bound); ``relaxed`` solves
    the relaxation whose bound is a lower bound on the emulator (module doc).

    Raises:
        ProblemTooLarge: the graph has more than :data:`NODE_LIMIT` nodes.
    """
    n = problem.n
    if n > NODE_LIMIT:
        raise ProblemTooLarge(n)
    if n == 0:
        return StreamPlan([], [], ["optimal: empty graph"], 0.0, 0.0, True)
    if time_limit_s is None or time_limit_s <= 0:
        time_limit_s = DEFAULT_TIME_LIMIT_S

    g = problem.graph
    labels = problem.labels
    label_ids, first_free = label_streams(problem)
    M = max(1, problem.max_streams)
    T = first_free + M  # label streams, then the free ones
    R, W = _ticks(problem.model.record_us), _ticks(problem.model.wait_us)
    dur = [_ticks(c.duration_us) for c in problem.costs]
    b = _Builder()
    m = b.m

    # ---- streams: on[i][s] means node i is on stream s. Labelled nodes are on
    # their label's stream; unlabelled ones choose a free stream, the free
    # streams opened in node order. The hint puts them all on the first.
    on: list[list[Lit]] = []
    used: list[Lit] = [0] * M  # some earlier unlabelled node is on free stream k
    for i in range(n):
        if labels[i] is not None:
            on.append([int(s == label_ids[labels[i]]) for s in range(T)])
            continue
        if M == 1:
            on.append([0] * first_free + [1])
            continue
        row: list[Lit] = []
        for k in range(M):
            if k == 0 or not (isinstance(used[k - 1], int) and not used[k - 1]):
                row.append(b.boolean(f"x{i}_{k}", int(k == 0)))
            else:
                row.append(0)  # free stream k opens only after stream k - 1
        m.add_exactly_one([v for v in row if not isinstance(v, int)])
        for k in range(1, M):
            b.clause([_neg(row[k]), used[k - 1]])
        now: list[Lit] = []
        for k in range(M):
            u = b.any_pair([(used[k], 1), (row[k], 1)], f"u{i}_{k}")
            b.clause([_neg(u), used[k], row[k]])  # and only then
            now.append(u)
        used = now
        on.append([0] * first_free + row)

    def may_share(a: int, c: int) -> bool:
        """Whether nodes a and c can be on one stream (label streams are reserved)."""
        return labels[a] == labels[c]

    def implies_same_stream(z: Lit, a: int, c: int) -> None:
        """z -> c is on a's stream."""
        for s in range(T):
            b.clause([_neg(z), _neg(on[a][s]), on[c][s]])

    # ---- cross[j, i]: the dependency j -> i crosses streams
    cross: dict[tuple[int, int], Lit] = {}
    for j, i in g.edges():
        if labels[j] is not None or labels[i] is not None or M == 1:
            cross[j, i] = int(labels[j] != labels[i])
        else:
            c = b.boolean(f"c{j}_{i}", 0)
            for s in range(T):
                b.clause([_neg(on[j][s]), on[i][s], c])
            cross[j, i] = c

    # ---- the serial hint: nodes one after another in block order, every event
    # task of a node next to it
    hint_stream = [next(s for s in range(T) if b.hinted(on[i][s])) for i in range(n)]
    hint_waits = [0 if relaxed else len({hint_stream[j] for j in g.preds[i]} - {hint_stream[i]}) for i in range(n)]
    hint_records = [0 if relaxed else len({hint_stream[k] for k in g.succs[i]} - {hint_stream[i]})
                    for i in range(n)]
    hint_start, hint_end = [0] * n, [0] * n
    hint_record_at: list[dict[int, int]] = [{} for _ in range(n)]  # stream -> when j's record for it starts
    t = 0
    for i in range(n):
        st = t + W * hint_waits[i]
        for j in g.preds[i]:
            st = max(st, hint_end[j] + (R + W) * b.hinted(cross[j, i]))
            if hint_stream[i] in hint_record_at[j]:
                st = max(st, hint_record_at[j][hint_stream[i]] + R + W)
        hint_start[i], hint_end[i] = st, st + dur[i]
        if not relaxed:
            for q, s in enumerate(sorted({hint_stream[k] for k in g.succs[i]} - {hint_stream[i]})):
                hint_record_at[i][s] = hint_end[i] + R * q
        t = st + max(dur[i], 1) + R * hint_records[i]
    horizon = t

    start = [b.integer(0, horizon, f"s{i}", hint_start[i]) for i in range(n)]
    end = [start[i] + dur[i] for i in range(n)]

    def follows(z: Lit, later: int, earlier: int) -> None:
        """z -> ``later`` starts after ``earlier`` (on one stream)."""
        if not g.reaches(earlier, later):  # a path orders them already
            m.add(start[later] >= start[earlier] + max(dur[earlier], 1)).only_enforce_if(z)

    # ---- event tasks (not in the relaxation): the events insert-events keeps.
    # The event of j -> i is implied, and dropped, when another producer k of i
    # follows j on j's stream (k's event orders j too), or another consumer i2
    # of j precedes i on i's stream (i2's wait orders i too). What is left is
    # one event per (producer, consumer stream) and per (consumer, producer
    # stream): records[j][s] is a record after j for stream s, waits[i][s] a
    # wait before i for stream s.
    waits: list[list[Lit]] = [[0] * T for _ in range(n)]
    records: list[list[Lit]] = [[0] * T for _ in range(n)]
    if not relaxed:
        need: dict[tuple[int, int], Lit] = {}
        for j, i in g.edges():
            c = cross[j, i]
            if isinstance(c, int) and not c:
                continue
            covers: list[Lit] = []
            for k in g.preds[i]:
                if k != j and not g.reaches(k, j) and may_share(j, k):
                    z = b.boolean(f"za{j}_{k}_{i}", 0)
                    implies_same_stream(z, j, k)
                    follows(z, k, j)
                    covers.append(z)
            for i2 in g.succs[j]:
                if i2 != i and not g.reaches(i, i2) and may_share(i, i2):
                    z = b.boolean(f"zb{j}_{i2}_{i}", 0)
                    implies_same_stream(z, i, i2)
                    follows(z, i, i2)
                    covers.append(z)
            if not covers:
                need[j, i] = c
            else:
                v = b.boolean(f"e{j}_{i}", b.hinted(c))
                b.clause([_neg(c), v] + covers)
                need[j, i] = v
        for i in range(n):
            for s in range(T):
                waits[i][s] = b.any_pair([(need[j, i], on[j][s]) for j in g.preds[i] if (j, i) in need],
                                         f"w{i}_{s}")
                records[i][s] = b.any_pair([(need[i, k], on[k][s]) for k in g.succs[i] if (i, k) in need],
                                           f"r{i}_{s}")

    # ---- record order: j's records, one per consumer stream, follow j one after
    # another, and a consumer waits for the record of its own stream
    if not relaxed:
        for j in range(n):
            slots = []
            for s in range(T):
                present = records[j][s]
                if isinstance(present, int) and not present:
                    continue
                at = b.integer(0, horizon, f"rec{j}_{s}", hint_record_at[j].get(s, hint_end[j]))
                enforce = [] if isinstance(present, int) else [present]
                m.add(at >= end[j]).only_enforce_if(enforce)
                m.add(at + R <= end[j] + R * sum(records[j])).only_enforce_if(enforce)
                slots.append(m.new_optional_interval_var(at, R, at + R, present, f"rec{j}_{s}")
                             if enforce else m.new_interval_var(at, R, at + R, f"rec{j}_{s}"))
                for i in g.succs[j]:
                    if (j, i) not in need:
                        continue
                    cond = [v for v in (need[j, i], on[i][s]) if not isinstance(v, int)]
                    if any(isinstance(v, int) and not v for v in (need[j, i], on[i][s])):
                        continue
                    m.add(start[i] >= at + R + W).only_enforce_if(cond)
            if len(slots) > 1:
                m.add_no_overlap(slots)

    # ---- stream occupancy: the node widened by its waits before and records after
    stream_iv: dict[int, list[cp_model.IntervalVar]] = {}
    for i in range(n):
        nw = sum(waits[i])  # a linear expression, or an int
        nr = sum(records[i])
        base = max(dur[i], 1)
        if isinstance(nw, int) and isinstance(nr, int):
            ss: object = start[i] - W * nw
            size: object = base + W * nw + R * nr
            se: object = ss + size
        else:  # interval bounds must be affine in one variable each
            hinted_ss = hint_start[i] - W * hint_waits[i]
            hinted_size = base + W * hint_waits[i] + R * hint_records[i]
            ss = b.integer(0, horizon, f"ss{i}", hinted_ss)
            m.add(ss == start[i] - W * nw)
            size = b.integer(base, base + (W + R) * T, f"sz{i}", hinted_size)
            m.add(size == base + W * nw + R * nr)
            se = b.integer(0, horizon, f"se{i}", hinted_ss + hinted_size)
            m.add(se == ss + size)
        for s, present in enumerate(on[i]):
            if isinstance(present, int):
                if present:
                    stream_iv.setdefault(s, []).append(m.new_interval_var(ss, size, se, f"stream{i}"))
            else:
                stream_iv.setdefault(s, []).append(m.new_optional_interval_var(ss, size, se, present, f"stream{i}_{s}"))
    for ivs in stream_iv.values():
        if len(ivs) > 1:
            m.add_no_overlap(ivs)

    # ---- dependencies: across streams at least one record and one wait
    for j, i in g.edges():
        m.add(start[i] >= end[j] + (R + W) * cross[j, i])

    # ---- engine pools
    by_pool: dict[str, list[int]] = {}
    for i in range(n):
        if problem.pools[i] != GE_LOCAL and dur[i] > 0 and problem.units(i) > 0:
            by_pool.setdefault(problem.pools[i], []).append(i)
    for pool, nodes in by_pool.items():
        cap = problem.capacity(pool)
        if sum(problem.units(i) for i in nodes) <= cap:
            continue  # they all fit side by side: no constraint
        ivs = [m.new_interval_var(start[i], dur[i], end[i], f"{pool}{i}") for i in nodes]
        m.add_cumulative(ivs, [min(problem.units(i), cap) for i in nodes], cap)

    # ---- HBM bandwidth: the flow of each task after its overhead (not in the relaxation)
    if not relaxed:
        flows: list[tuple[int, int, int]] = []  # node, flow start offset, rate
        for i in range(n):
            flow = hbm_flow(problem.costs[i], problem.model.hbm_bw)
            if flow is not None and dur[i] > 0:
                flows.append((i, min(dur[i], _ticks(problem.costs[i].overhead_us)), flow[1]))
        if sum(rate for _, _, rate in flows) > HBM_SCALE:
            ivs = [m.new_interval_var(start[i] + off, dur[i] - off, end[i], f"hbm{i}") for i, off, _ in flows]
            m.add_cumulative(ivs, [rate for _, _, rate in flows], HBM_SCALE)

    # ---- objective
    makespan = b.integer(0, horizon, "makespan", max(hint_end))
    for i in range(n):
        if not g.succs[i]:
            m.add(makespan >= end[i])
    m.minimize(makespan)
    b.apply_hints()

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit_s)
    solver.parameters.num_workers = NUM_WORKERS
    status = solver.solve(m)
    if status == cp_model.MODEL_INVALID:  # a bug in the model above, not in the input
        raise RuntimeError(f"optimal: CP-SAT rejected the model: {m.validate()}")
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    def value(v: Lit) -> int:
        if isinstance(v, int):
            return v
        return solver.value(v) if found else b.hinted(v)

    streams = [next(s for s in range(T) if value(on[i][s])) for i in range(n)]
    starts = [value(v) for v in start]
    best = value(makespan)
    bound = best if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) else min(best, round(solver.best_objective_bound))
    bound = max(bound, 0)
    # by start time; ties (zero-time nodes, no event between) by block order
    order = sorted(range(n), key=lambda i: (starts[i], i))
    optimal = status == cp_model.OPTIMAL
    best_us, bound_us = best * TICK_US, bound * TICK_US
    model = " (relaxed model: a lower bound)" if relaxed else ""
    if optimal:
        note = f"optimal: proven optimum {best_us:.2f} us{model}"
    elif found:
        note = f"optimal: best {best_us:.2f} us, bound {bound_us:.2f} us after {time_limit_s:g} s{model}"
    else:
        note = (f"optimal: no schedule better than the serial one found in {time_limit_s:g} s: "
                f"{best_us:.2f} us, bound {bound_us:.2f} us{model}")
    return StreamPlan(dense(streams, order), order, [note], best_us, bound_us, optimal)
