"""``optimal``: an exact schedule by OR-Tools CP-SAT over the emulator's resource
model — the judge the heuristic strategies are measured against.

The model (integer time in :data:`TICK_US` ticks):

* one interval ``[start_i, end_i)`` per node, of the node's cost-model duration;
* **pools**: a cumulative constraint per engine pool, each node demanding its
  ``units`` out of the pool's capacity (``GE_LOCAL`` nodes take no time and no
  units, so they are in none);
* **streams**: node ``i`` is on stream ``s`` when the Boolean ``on[i][s]``
  holds; each stream is a no-overlap over optional intervals, so the tasks of
  one stream run one after another, as the emulator's in-order queues do (a
  node of no duration still holds one tick of its stream, so it keeps its
  queue place). Each ``stream_label`` gets a stream of its own (fixed, not a
  choice); unlabelled nodes choose among ``max_streams`` further streams.
  Symmetry breaking: the unlabelled streams are opened in node order (node
  ``i`` may take stream ``k`` only if an earlier node took stream ``k - 1``).
  An op ``fuse-ub`` fused into another is on that op's stream (one kernel);
* **dependencies**: ``end_j <= start_i`` on one stream; across streams
  ``end_j + record_us + wait_us <= start_i`` — however ``insert-events``
  reduces the events, a path from ``j`` to ``i`` on another stream holds at
  least one record and one wait;
* **events** (the ones ``insert-events`` keeps): the event of ``j -> i`` is
  implied, so dropped, when another producer of ``i`` follows ``j`` on ``j``'s
  stream or another consumer of ``j`` precedes ``i`` on ``i``'s stream. What
  is left is at most one record per (producer, consumer stream) and one wait
  per (consumer, producer stream). A producer's records follow it on its
  stream one after another (``record_us`` each, in the order the solver
  picks), and a consumer starts ``wait_us`` after its stream's record; the
  waits of a consumer precede it on its stream (``wait_us`` each). The
  stream interval of a node is its interval widened by its waits and records;
* **DRAM bandwidth**: each task draws DRAM at its bytes over its whole duration
  (the emulator's flow runs after the fixed overhead at the rate the task
  draws alone; averaged over the task), and the tasks running at once share
  the device's bandwidth through a cumulative (rates in :data:`DRAM_SCALE`
  parts of it, rounded up). The emulator shares the bandwidth fluidly instead
  — oversubscribed flows slow down — so this is an approximation either way:
  flows of tasks whose average rates fit may still collide (a slowdown the
  model misses), and tasks whose averages do not fit are kept apart although
  the emulator would run them slowed side by side. (Rigid flows at their full
  rate, tried first, kept apart tasks the fluid model runs side by side at a
  small cost, and made both the search and the plans worse);
* objective: the makespan (the latest end).

Approximations (the emulator, run on the plan after ``insert-events``, is the
judge; the model's optimum is what it predicts for the plan):

* events: ``insert-events`` may drop more waits than the two rules above
  (any wait implied through a chain of events); a consumer's waits are
  assumed to be served in the order their events arrive (a wait is
  ``wait_us`` after its record, and the waits take ``wait_us`` each of the
  consumer's stream, but a wait queued behind another for a later event is
  not delayed further); the records of a producer are in the order the
  solver picks, which ``insert-events`` should follow by ordering them as
  their consumers are issued;
* averaged DRAM rates against the emulator's fluid sharing (above);
* a schedule is a set of start times; the emulator starts every task as soon
  as it can and serves each pool first come, first served without
  backfilling, so its makespan for the same streams and order may differ
  slightly (either way);
* durations are rounded to the nearest tick; the reported optimum and bound
  are those of the rounded problem.

So the default model's optimum is a prediction, not a bound on the emulator.
``relaxed=True`` drops what may overestimate — event tasks' stream time and
DRAM bandwidth — keeping every task at its alone duration and every
cross-stream dependency at one record plus one wait: a relaxation of what the
emulator does with any event reduction, its durations rounded down, so its bound is a
lower bound on the emulated makespan of every plan within the same stream
budget that keeps each ``stream_label`` on a stream of its own (tested on
random DAGs against every strategy's plan and random plans). Solved for its
bound alone, it is cut by what every emulated run meets: the heads, tails
and bound of :mod:`~geir.passes.scheduling.lower_bound`, so it starts from
that bound; and, up to :data:`EVENT_TASK_LIMIT` nodes, the records and waits
no reduction can drop, as tasks on their streams — a dependency across
streams needs a record on the producer's stream right after it or after a
later node there whose record still reaches the consumer in time, and a wait
on the consumer's stream right before it or before an earlier node there
that starts after the producer's record and a wait (insert-events puts
records right after producers and waits right before consumers).

Solving: the full model is solved in two steps. The relaxation goes first
(:data:`RELAXATION_SHARE` of the time limit; it is smaller and, up to some 60
nodes, usually proven optimal in a fraction of it); its bound is a bound on
the full model too, and it is reported in the notes as the emulator lower
bound. The full model is then hinted with the shortest *list schedule* (every
node as early as the model allows, in a given order on given streams) of the
serial plan, the relaxation's plan and the ``cost`` strategy's plan, so it
starts from a complete feasible solution at least as good as the best
heuristic's and always returns one.
"""

from __future__ import annotations

import math
import time
from typing import Union

import attrs

from ortools.sat.python import cp_model

from geir.backends.cost_model import GE_LOCAL, TaskCost
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan, dense, label_streams
from geir.passes.scheduling.strategies import get_strategy

__all__ = ["plan", "ProblemTooLarge", "NODE_LIMIT", "TICK_US", "DEFAULT_TIME_LIMIT_S", "NUM_WORKERS", "DRAM_SCALE",
           "dram_flow", "kept_events", "RELAXATION_SHARE"]

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
#: the relaxation models the records and waits no reduction can drop up to this many nodes
#: (the model grows as edges x nodes)
EVENT_TASK_LIMIT = 60
#: the share of the time limit the relaxation (the full model's first step) may take
RELAXATION_SHARE = 0.3
#: the DRAM bandwidth in the model's integer rate units (a flow's rate is rounded
#: up to a thousandth of the bandwidth)
DRAM_SCALE = 1000

# A 0/1 value that is either decided while building the model or a solver literal.
Lit = Union[int, cp_model.IntVar]


class ProblemTooLarge(Exception):
    """The graph has more nodes than the exact strategy accepts."""

    def __init__(self, nodes: int, limit: int = NODE_LIMIT) -> None:
        self.nodes = nodes
        self.limit = limit
        super().__init__(f"strategy 'optimal' solves graphs of at most {limit} ops; this graph has {nodes} "
                         f"(use another strategy, or split the graph)")


def _ticks(us: float, down: bool = False) -> int:
    """``us`` in ticks, rounded; a non-zero duration is at least one tick.
    ``down``: rounded down (a bound of the rounded problem bounds the real one)."""
    if down:
        return max(0, math.floor(us / TICK_US + 1e-9))
    t = int(round(us / TICK_US))
    return 1 if t == 0 and us > 0 else t


def dram_flow(cost: TaskCost, bandwidth: float) -> tuple[float, int] | None:
    """When ``cost``'s task moves DRAM bytes: its flow's duration alone (after the
    overhead, in us) and its rate in :data:`DRAM_SCALE` parts of ``bandwidth``,
    as the emulator's fluid model sees them (``Program.traffic``)."""
    if cost.dram_bytes <= 0 or cost.dram_rate <= 0 or bandwidth <= 0:
        return None
    alone = cost.duration_us - cost.overhead_us
    demand = min(cost.dram_bytes / alone if alone > 0 else cost.dram_rate, cost.dram_rate)
    # rounded up (a float hair above an exact share is not rounded up)
    return alone, max(1, min(DRAM_SCALE, math.ceil(demand / bandwidth * DRAM_SCALE - 1e-9)))


def kept_events(graph: OpGraph, streams: list[int], order: list[int]) -> list[tuple[int, int]]:
    """The cross-stream edges that need an event of their own under ``streams``
    and ``order``: not an edge ``j -> i`` where another producer of ``i``
    follows ``j`` on ``j``'s stream, nor one where another consumer of ``j``
    precedes ``i`` on ``i``'s stream (that other event and stream order imply
    it). The rule the model prices events by."""
    pos = [0] * graph.n
    for k, i in enumerate(order):
        pos[i] = k
    kept = []
    for j, i in graph.edges():
        sj, si = streams[j], streams[i]
        if sj == si:
            continue
        if any(k != j and streams[k] == sj and pos[k] > pos[j] for k in graph.preds[i]):
            continue
        if any(i2 != i and streams[i2] == si and pos[i2] < pos[i] for i2 in graph.succs[j]):
            continue
        kept.append((j, i))
    return kept


@attrs.define
class _Resources:
    """What the model constrains besides streams and events, per node: its
    engine pool and units, and its DRAM rate."""

    pool: dict[int, tuple[str, int]]  # node -> (pool, units); only pools that can be oversubscribed
    capacity: dict[str, int]
    flow: dict[int, int]  # node -> its average DRAM rate; empty when DRAM is not a constraint


@attrs.define
class _Schedule:
    """One solution of the model: streams (model ids), start ticks, and the
    events it keeps with each record's start."""

    streams: list[int]
    start: list[int]
    end: list[int]
    kept: set[tuple[int, int]]
    record_at: list[dict[int, int]]  # producer -> consumer stream -> record start
    waits: list[int]  # waits before each node
    records: list[int]  # records after each node
    makespan: int


def _fits(placed: list[tuple[int, int, int]], s: int, e: int, amount: int, cap: int) -> bool:
    """Whether ``amount`` more fits over [s, e) beside ``placed`` (start, end, amount)."""
    live = [p for p in placed if p[0] < e and p[1] > s]
    for point in [s] + [p[0] for p in live if p[0] > s]:
        if sum(a for ps, pe, a in live if ps <= point < pe) + amount > cap:
            return False
    return True


def _list_schedule(problem: ScheduleProblem, streams: list[int], order: list[int], dur: list[int], R: int, W: int,
                   events: bool, res: _Resources) -> _Schedule:
    """The model's schedule of ``streams`` and ``order`` with every node as
    early as stream order, events and resources allow (a feasible solution to
    hint the solver with)."""
    g = problem.graph
    n = g.n
    pos = [0] * n
    for k, i in enumerate(order):
        pos[i] = k
    kept = set(kept_events(g, streams, order)) if events else set()
    waits = [len({streams[j] for j in g.preds[i] if (j, i) in kept}) for i in range(n)]
    # a producer's records, one per consumer stream, in the order the streams' first consumers are issued
    record_streams: list[list[int]] = []
    for j in range(n):
        first: dict[int, int] = {}
        for i in g.succs[j]:
            if (j, i) in kept:
                first[streams[i]] = min(first.get(streams[i], n), pos[i])
        record_streams.append(sorted(first, key=first.__getitem__))
    start, end = [0] * n, [0] * n
    record_at: list[dict[int, int]] = [{} for _ in range(n)]
    stream_free: dict[int, int] = {}
    placed: dict[str, list[tuple[int, int, int]]] = {}
    flows: list[tuple[int, int, int]] = []  # DRAM: (start, end, average rate)
    for i in order:
        s = streams[i]
        t0 = stream_free.get(s, 0) + W * waits[i]
        for j in g.preds[i]:
            t0 = max(t0, end[j] + (R + W) * (streams[j] != s))
            if (j, i) in kept:
                t0 = max(t0, record_at[j][s] + R + W)
        d = dur[i]
        pool = res.pool.get(i)
        rate = res.flow.get(i)
        candidates = {t0}
        if pool is not None:
            candidates.update(e for _, e, _ in placed.get(pool[0], []) if e > t0)
        if rate is not None:
            candidates.update(e for _, e, _ in flows if e > t0)
        for t in sorted(candidates):
            if pool is not None and not _fits(placed.get(pool[0], []), t, t + d, pool[1], res.capacity[pool[0]]):
                continue
            if rate is not None and not _fits(flows, t, t + d, rate, DRAM_SCALE):
                continue
            break
        start[i], end[i] = t, t + d
        if pool is not None and d > 0:
            placed.setdefault(pool[0], []).append((t, t + d, pool[1]))
        if rate is not None:
            flows.append((t, t + d, rate))
        for q, s2 in enumerate(record_streams[i]):
            record_at[i][s2] = end[i] + R * q
        stream_free[s] = t + max(d, 1) + R * len(record_streams[i])
    return _Schedule(streams, start, end, kept, record_at, waits, [len(r) for r in record_streams],
                     max(end, default=0))


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
        self.hint[v.index] = int(hinted)
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
        otherwise: where it only ever costs time the solver keeps it exact)."""
        live = [(a, c) for a, c in pairs if not (isinstance(a, int) and not a) and not (isinstance(c, int) and not c)]
        if not live:
            return 0
        if any(isinstance(a, int) and isinstance(c, int) for a, c in live):
            return 1
        r = self.boolean(name, any(self.hinted(a) and self.hinted(c) for a, c in live))
        for a, c in live:
            self.clause([_neg(a), _neg(c), r])
        return r

    def apply_hints(self) -> None:
        for v in self.vars:
            self.m.add_hint(v, self.hint[v.index])


@attrs.define
class _Result:
    streams: list[int]
    start: list[int]
    best: int
    bound: int
    status: int


def _relaxed_event_tasks(b: "_Builder", problem: ScheduleProblem, on: list[list[Lit]], cross: dict[tuple[int, int], Lit],
                   start: list[cp_model.IntVar], end: list[object], dur: list[int],
                   stream_iv: dict[int, list[cp_model.IntervalVar]], R: int, W: int, hs: list[int]) -> None:
    """The records and waits no event reduction can drop, as tasks on their
    streams (module doc): a dependency across streams needs a record on the
    producer's stream — right after it, or right after a later node there
    that the consumer's stream still hears of in time — and a wait on the
    consumer's — right before it, or right before an earlier node there that
    ends after the producer's record and a wait."""
    g = problem.graph
    n, T = g.n, len(on[0])
    m = b.m

    def tasks(kind: str, length: int, hinted: list[bool], at: list[object]) -> list[cp_model.IntVar]:
        """One optional task per node and stream, of ``length`` from ``at[k]``."""
        has = []
        for k in range(n):
            h = b.boolean(f"h{kind}{k}", hinted[k])
            has.append(h)
            for s in range(T):
                present = b.any_pair([(h, on[k][s])], f"h{kind}{k}_{s}")
                if isinstance(present, int):
                    if present:
                        stream_iv.setdefault(s, []).append(m.new_interval_var(at[k], length, at[k] + length,
                                                                              f"{kind}{k}"))
                    continue
                b.clause([_neg(h), _neg(on[k][s]), present])
                stream_iv.setdefault(s, []).append(
                    m.new_optional_interval_var(at[k], length, at[k] + length, present, f"{kind}{k}_{s}"))
        return has

    waits = tasks("w", W, [any(hs[j] != hs[k] for j in g.preds[k]) for k in range(n)], [start[k] - W for k in range(n)])
    # (a bound: a node of no duration holds no time of its stream, as in the emulator)
    records = tasks("r", R, [any(hs[i] != hs[k] for i in g.succs[k]) for k in range(n)],
                    [start[k] + dur[k] for k in range(n)])
    for k in range(n):
        m.add(start[k] >= W).only_enforce_if(waits[k])

    def covered(z: Lit, a: int, c: int) -> None:
        """z -> c is on a's stream."""
        for s in range(T):
            b.clause([_neg(z), _neg(on[a][s]), on[c][s]])

    for j, i in g.edges():
        c = cross[j, i]
        if isinstance(c, int) and not c:
            continue
        by_wait: list[Lit] = [waits[i]]
        by_record: list[Lit] = [records[j]]
        for k in range(n):
            if k in (i, j) or g.reaches(i, k) or g.reaches(k, j):
                continue  # neither after j nor before i
            z = b.boolean(f"cw{j}_{i}_{k}", 0)
            b.clause([_neg(z), waits[k]])
            covered(z, i, k)
            m.add(start[k] >= end[j] + R + W).only_enforce_if(z)
            m.add(start[i] >= start[k] + dur[k]).only_enforce_if(z)
            by_wait.append(z)
            y = b.boolean(f"cr{j}_{i}_{k}", 0)
            b.clause([_neg(y), records[k]])
            covered(y, j, k)
            m.add(start[k] >= start[j] + dur[j]).only_enforce_if(y)
            m.add(start[i] >= start[k] + dur[k] + R + W).only_enforce_if(y)
            by_record.append(y)
        b.clause([_neg(c)] + by_wait)
        b.clause([_neg(c)] + by_record)


def _bound_cuts(problem: ScheduleProblem, dur: list[int]) -> tuple[list[int], list[int], int]:
    """Heads, tails and the bound of :mod:`~geir.passes.scheduling.lower_bound`
    in ticks, for the model's rounded durations: every emulated run of those
    durations meets them, so the relaxation with them is still a relaxation —
    one that starts its search from the bound instead of the critical path."""
    from geir.passes.scheduling.lower_bound import graph_lower_bound, sync_heads, sync_tails
    rounded = attrs.evolve(problem, costs=[c._replace(duration_us=d * TICK_US)
                                           for c, d in zip(problem.costs, dur)])

    def down(us: float) -> int:
        return max(0, math.floor(us / TICK_US + 1e-6))

    heads, tails = sync_heads(rounded), sync_tails(rounded)
    return ([down(h) for h in heads], [down(t) for t in tails],
            down(graph_lower_bound(rounded, heads, tails).bound_us))


def _solve(problem: ScheduleProblem, time_limit_s: float, events: bool, dram: bool,
           guides: list[tuple[list[int], list[int]]], deadline: float, bound_only: bool = False) -> _Result:
    """Build and solve the model (``events``: event tasks' stream time; ``dram``:
    DRAM flows), hinted with the shortest list schedule of the serial plan and
    the ``guides`` (streams, order), searching ``time_limit_s`` seconds at
    most and never past ``deadline`` (``time.monotonic()``). ``bound_only``
    (the relaxation solved for its bound alone) adds what every emulated run
    meets — the graph bound's cuts and the records and waits no reduction can
    drop — which the hints may break."""
    g = problem.graph
    n = g.n
    labels = problem.labels
    label_ids, first_free = label_streams(problem)
    M = max(1, min(problem.max_streams, n))  # no plan fills more free streams than it has nodes
    T = first_free + M  # label streams, then the free ones
    # Solved for its bound alone, every duration rounds down, so that the bound holds
    # for the emulator's unrounded durations too.
    R, W = _ticks(problem.model.record_us, bound_only), _ticks(problem.model.wait_us, bound_only)
    dur = [_ticks(c.duration_us, bound_only) for c in problem.costs]

    pool_nodes: dict[str, list[int]] = {}
    for i in range(n):
        if problem.pools[i] != GE_LOCAL and dur[i] > 0 and problem.units(i) > 0:
            pool_nodes.setdefault(problem.pools[i], []).append(i)
    capacity = {p: problem.capacity(p) for p in pool_nodes}
    res = _Resources({}, capacity, {})
    for pool, nodes in pool_nodes.items():
        if sum(problem.units(i) for i in nodes) > capacity[pool]:  # else they all fit side by side
            for i in nodes:
                res.pool[i] = (pool, min(problem.units(i), capacity[pool]))
    if dram:
        for i in range(n):
            flow = dram_flow(problem.costs[i], problem.model.dram_bw)
            if flow is not None and dur[i] > 0:
                # the flow's rate averaged over the whole task (see the module doc)
                res.flow[i] = max(1, math.ceil(flow[1] * flow[0] / problem.costs[i].duration_us - 1e-9))
        if sum(res.flow.values()) <= DRAM_SCALE:
            res.flow.clear()

    # ---- the hint: a list schedule, its free streams numbered by first use in
    # node order (the model's symmetry breaking)
    def canonical(streams: list[int]) -> list[int] | None:
        ids: dict[int, int] = {}
        out = []
        for i in range(n):
            if labels[i] is not None:
                out.append(label_ids[labels[i]])
            else:
                out.append(first_free + ids.setdefault(streams[i], len(ids)))
        return out if len(ids) <= M else None

    serial = [label_ids[lab] if lab is not None else first_free for lab in labels]
    hint = _list_schedule(problem, serial, list(range(n)), dur, R, W, events, res)
    for streams, order in guides:
        ids = canonical(streams)
        if ids is None or not g.is_topological(order):
            continue
        guided = _list_schedule(problem, ids, order, dur, R, W, events, res)
        if guided.makespan < hint.makespan:
            hint = guided
    horizon = hint.makespan + (R + W) * T
    if bound_only:
        # room for the serial schedule (with an event per edge, for labels), which meets every cut below
        horizon = max(horizon, sum(max(d, 1) for d in dur) + (R + W) * g.num_edges)
    b = _Builder()
    m = b.m
    hs = hint.streams

    # ---- streams: on[i][s] means node i is on stream s. Labelled nodes are on
    # their label's stream; unlabelled ones choose a free stream, the free
    # streams opened in node order.
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
                row.append(b.boolean(f"x{i}_{k}", hs[i] == first_free + k))
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

    def implies_same_stream(z: Lit, a: int, c: int) -> None:
        """z -> c is on a's stream."""
        for s in range(T):
            b.clause([_neg(z), _neg(on[a][s]), on[c][s]])

    # a UB-fused op runs in its head's kernel: on its head's stream (partition-streams puts it there)
    for i, j in enumerate(problem.fused_heads):
        if j >= 0 and labels[i] == labels[j]:
            implies_same_stream(1, j, i)

    # ---- cross[j, i]: the dependency j -> i crosses streams
    cross: dict[tuple[int, int], Lit] = {}
    for j, i in g.edges():
        if labels[j] is not None or labels[i] is not None or M == 1:
            cross[j, i] = int(labels[j] != labels[i])
        else:
            c = b.boolean(f"c{j}_{i}", hs[j] != hs[i])
            for s in range(T):
                b.clause([_neg(on[j][s]), on[i][s], c])
            cross[j, i] = c

    start = [b.integer(0, horizon, f"s{i}", hint.start[i]) for i in range(n)]
    end = [start[i] + dur[i] for i in range(n)]
    cuts = _bound_cuts(problem, dur) if bound_only else None
    if cuts is not None:
        for i in range(n):
            m.add(start[i] >= cuts[0][i])

    def follows(z: Lit, later: int, earlier: int) -> None:
        """z -> ``later`` starts after ``earlier`` (on one stream)."""
        if not g.reaches(earlier, later):  # a path orders them already
            m.add(start[later] >= start[earlier] + max(dur[earlier], 1)).only_enforce_if(z)

    # ---- events (see the module doc): need[j, i] is the event of j -> i;
    # records[j][s] a record after j for stream s, waits[i][s] a wait before i
    # for stream s
    waits: list[list[Lit]] = [[0] * T for _ in range(n)]
    records: list[list[Lit]] = [[0] * T for _ in range(n)]
    need: dict[tuple[int, int], Lit] = {}
    if events:
        for j, i in g.edges():
            c = cross[j, i]
            if isinstance(c, int) and not c:
                continue
            covers: list[Lit] = []
            for k in g.preds[i]:
                if k != j and not g.reaches(k, j) and labels[k] == labels[j]:
                    z = b.boolean(f"za{j}_{k}_{i}", hs[k] == hs[j] and hint.start[k] > hint.start[j])
                    implies_same_stream(z, j, k)
                    follows(z, k, j)
                    covers.append(z)
            for i2 in g.succs[j]:
                if i2 != i and not g.reaches(i, i2) and labels[i2] == labels[i]:
                    z = b.boolean(f"zb{j}_{i2}_{i}", hs[i2] == hs[i] and hint.start[i2] < hint.start[i])
                    implies_same_stream(z, i, i2)
                    follows(z, i, i2)
                    covers.append(z)
            if not covers:
                need[j, i] = c
            else:
                v = b.boolean(f"e{j}_{i}", (j, i) in hint.kept)
                b.clause([_neg(c), v] + covers)
                need[j, i] = v
        for i in range(n):
            for s in range(T):
                waits[i][s] = b.any_pair([(need[j, i], on[j][s]) for j in g.preds[i] if (j, i) in need],
                                         f"w{i}_{s}")
                records[i][s] = b.any_pair([(need[i, k], on[k][s]) for k in g.succs[i] if (i, k) in need],
                                           f"r{i}_{s}")
        # j's records follow j one after another; a consumer waits for its stream's
        for j in range(n):
            slots = []
            for s in range(T):
                present = records[j][s]
                if isinstance(present, int) and not present:
                    continue
                at = b.integer(0, horizon, f"rec{j}_{s}", hint.record_at[j].get(s, hint.end[j]))
                enforce = [] if isinstance(present, int) else [present]
                m.add(at >= end[j]).only_enforce_if(enforce)
                m.add(at + R <= end[j] + R * sum(records[j])).only_enforce_if(enforce)
                slots.append(m.new_optional_interval_var(at, R, at + R, present, f"rec{j}_{s}")
                             if enforce else m.new_interval_var(at, R, at + R, f"rec{j}_{s}"))
                for i in g.succs[j]:
                    if (j, i) not in need:
                        continue
                    pair = (need[j, i], on[i][s])
                    if any(isinstance(v, int) and not v for v in pair):
                        continue
                    m.add(start[i] >= at + R + W).only_enforce_if([v for v in pair if not isinstance(v, int)])
            if len(slots) > 1:
                m.add_no_overlap(slots)

    # ---- stream occupancy: the node widened by its waits before and records after
    stream_iv: dict[int, list[cp_model.IntervalVar]] = {}
    for i in range(n):
        nw = sum(waits[i])  # a linear expression, or an int
        nr = sum(records[i])
        # A plan keeps even a task of no time in its stream's order: a tick of its own; the
        # relaxation (a bound) lets it take none, as in the emulator.
        base = dur[i] if bound_only else max(dur[i], 1)
        if isinstance(nw, int) and isinstance(nr, int):
            ss: object = start[i] - W * nw
            size: object = base + W * nw + R * nr
            se: object = ss + size
        else:  # interval bounds must be affine in one variable each
            hinted_ss = hint.start[i] - W * hint.waits[i]
            hinted_size = base + W * hint.waits[i] + R * hint.records[i]
            ss = b.integer(0, horizon, f"ss{i}", hinted_ss)
            m.add(ss == start[i] - W * nw)
            size = b.integer(base, base + (W + R) * T, f"sz{i}", hinted_size)
            m.add(size == base + W * nw + R * nr)
            se = b.integer(0, horizon + base + (W + R) * T, f"se{i}", hinted_ss + hinted_size)
            m.add(se == ss + size)
        for s, present in enumerate(on[i]):
            if isinstance(present, int):
                if present:
                    stream_iv.setdefault(s, []).append(m.new_interval_var(ss, size, se, f"stream{i}"))
            else:
                stream_iv.setdefault(s, []).append(m.new_optional_interval_var(ss, size, se, present, f"stream{i}_{s}"))
    if bound_only and n <= EVENT_TASK_LIMIT:
        _relaxed_event_tasks(b, problem, on, cross, start, end, dur, stream_iv, R, W, hs)
    for ivs in stream_iv.values():
        if len(ivs) > 1:
            m.add_no_overlap(ivs)

    # ---- dependencies: across streams at least one record and one wait
    for j, i in g.edges():
        m.add(start[i] >= end[j] + (R + W) * cross[j, i])

    # ---- engine pools and DRAM flows
    by_pool: dict[str, list[int]] = {}
    for i, (pool, _) in res.pool.items():
        by_pool.setdefault(pool, []).append(i)
    for pool, nodes in by_pool.items():
        ivs = [m.new_interval_var(start[i], dur[i], end[i], f"{pool}{i}") for i in nodes]
        m.add_cumulative(ivs, [res.pool[i][1] for i in nodes], capacity[pool])
    if res.flow:
        nodes = sorted(res.flow)
        ivs = [m.new_interval_var(start[i], dur[i], end[i], f"dram{i}") for i in nodes]
        m.add_cumulative(ivs, [res.flow[i] for i in nodes], DRAM_SCALE)

    # ---- objective
    makespan = b.integer(0, horizon, "makespan", hint.makespan)
    for i in range(n):
        if not g.succs[i]:
            m.add(makespan >= end[i])
    if cuts is not None:
        for i in range(n):
            m.add(makespan >= end[i] + cuts[1][i])
        m.add(makespan >= cuts[2])
    m.minimize(makespan)
    b.apply_hints()

    solver = cp_model.CpSolver()
    # building the model took time too: never past the caller's deadline
    solver.parameters.max_time_in_seconds = max(0.05, min(time_limit_s, deadline - time.monotonic()))
    solver.parameters.num_workers = NUM_WORKERS
    status = solver.solve(m)
    if status == cp_model.MODEL_INVALID:  # a bug in the model above, not in the input
        raise RuntimeError(f"optimal: CP-SAT rejected the model: {m.validate()}")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if bound_only:  # no solution in time: the solver's bound is all there is
            bound = 0 if status == cp_model.INFEASIBLE else round(solver.best_objective_bound)
            return _Result(hint.streams, hint.start, hint.makespan, max(0, min(bound, hint.makespan)), status)
        bound = hint.makespan if status == cp_model.INFEASIBLE else round(solver.best_objective_bound)
        return _Result(hint.streams, hint.start, hint.makespan, max(0, min(bound, hint.makespan)), status)
    streams = [next(s for s, v in enumerate(on[i]) if (v if isinstance(v, int) else solver.value(v))) for i in range(n)]
    best = solver.value(makespan)
    bound = best if status == cp_model.OPTIMAL else min(best, round(solver.best_objective_bound))
    return _Result(streams, [solver.value(v) for v in start], best, max(0, bound), status)


def plan(problem: ScheduleProblem, time_limit_s: float = DEFAULT_TIME_LIMIT_S, *,
         relaxed: bool = False) -> StreamPlan:
    """The makespan-optimal plan of ``problem`` (or the best found within
    ``time_limit_s`` seconds, with the proven lower bound); ``relaxed`` solves
    the relaxation whose bound is a lower bound on the emulator (module doc).

    The full model is solved after the relaxation, hinted with the best list
    schedule of the serial, the relaxation's and the ``cost`` strategy's plans
    (module doc); ``bound_us`` is the full model's bound, the notes give the
    relaxation's, a lower bound on the emulator.

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
    began = time.monotonic()

    def left() -> float:
        return time_limit_s - (time.monotonic() - began)

    heuristic = get_strategy("cost")(problem, time_limit_s)
    guides = [(heuristic.streams, heuristic.order)]
    first = _solve(problem, left() * (1.0 if relaxed else RELAXATION_SHARE), False, False, guides, began + time_limit_s,
                   bound_only=relaxed)
    result = first
    if not relaxed:
        guides.append((first.streams, _order(first.start)))
        result = _solve(problem, left(), True, True, guides, began + time_limit_s)
        result.bound = max(result.bound, min(first.bound, result.best))
        if result.bound >= result.best:
            result.status = cp_model.OPTIMAL
    order = _order(result.start)
    optimal = result.status == cp_model.OPTIMAL
    best_us, bound_us = result.best * TICK_US, result.bound * TICK_US
    spent = time.monotonic() - began
    if relaxed:
        what = "relaxed model (its bound is a lower bound on the emulator)"
    else:
        what = f"emulator lower bound {first.bound * TICK_US:.2f} us (relaxation)"
    if optimal:
        note = f"optimal: proven optimum {best_us:.2f} us in {spent:.1f} s; {what}"
    elif result.status == cp_model.FEASIBLE:
        note = f"optimal: best {best_us:.2f} us, bound {bound_us:.2f} us after {spent:.1f} s; {what}"
    else:
        note = (f"optimal: nothing better than a list schedule found in {spent:.1f} s: "
                f"{best_us:.2f} us, bound {bound_us:.2f} us; {what}")
    return StreamPlan(dense(result.streams, order), order, [note], best_us, bound_us, optimal)


def _order(start: list[int]) -> list[int]:
    """Nodes by start time; ties (zero-time nodes, no event between) by block order."""
    return sorted(range(len(start)), key=lambda i: (start[i], i))
