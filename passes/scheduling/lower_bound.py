"""A lower bound on the makespan of a graph under *any* stream plan — what the
benchmark compares every strategy against.

The emulator's report carries a lower bound too, but of the program it ran:
its critical path follows that program's stream order and events, so a single
stream's "bound" is its own makespan. This bound depends only on the graph and
the device (one frame, sink mode: host launches and more frames only add time).
It is the largest of these terms, each a bound on its own:

* **critical path** of the DAG by the cost model's durations;
* **critical path with events**: the same path, but an edge between two streams
  costs a record and a wait (the emulator's only way to order two streams:
  the record follows the producer on its stream, the wait precedes the
  consumer on its own), while producers sharing the consumer's stream run one
  after another on it. Every plan makes, for each node, some set of its
  producers share its stream; the node's earliest start is the least, over
  those choices, of the later of "the shared ones done in sequence" (a
  one-machine schedule with release dates, optimal by release order) and "the
  others' finish plus a record and a wait". Adding a producer to the shared
  set never shortens its sequence, so only the sets of the latest-finishing
  producers need trying. The same recursion from the sinks gives each node's
  *tail* (the least time from its end to the makespan), and a node's head,
  duration and tail add up;
* **phases** (the heads above, raised): everything between a node ``v`` and a
  later node ``u`` that ``v`` dominates (every path to ``u`` passes ``v``) runs
  after ``v`` and before ``u``. On the streams other than ``v``'s it can start
  only once ``v``'s finish has reached them — a record on ``v``'s stream and a
  wait on theirs, records one after another on each stream, forwarded at best
  as a broadcast tree — and it must reach ``u``'s stream the same way back
  (waits one after another there). So the streams start that work late and end
  it early by at least the broadcast's and the gather's delays, paired most
  favourably, and the work over the streams' remaining time bounds the gap
  between ``v``'s finish and ``u``'s start (graph inputs need no broadcast:
  every stream starts at 0);
* **pool work**: each pool's ``sum(duration x units) / capacity`` (AICore,
  vector cores, AICPU, DVPP, HCCL ...), and the **streams' capacity**: a stream
  runs one task at a time, so all durations over the streams a plan may use
  (``max-streams`` plus one per ``stream_label``; a stream split for its task
  limit continues after its first part, so it adds no concurrency);
* **windows** (energetic reasoning, with the heads and tails above): the nodes
  whose heads are at least ``a`` and tails at least ``b`` all run inside
  ``[a, makespan - b]``, so their work on a pool (or on the streams) over its
  capacity, plus ``a + b``, bounds the makespan — the pool-work, stream and
  DRAM terms with the time before and after a phase that cannot be overlapped;
* **exclusion**: kernels of one pool that together need more units than it has
  never overlap, nor do nodes on one path. So the kernels wider than half a
  pool (at least ``w`` units each), with the longest path through the pool's
  kernels of more than ``capacity - w`` units (each of those is too wide to
  run beside any of the first), are run one at a time: their durations add up,
  after the smallest of their heads and before the smallest of their tails;
* **DRAM**: all traffic over the device's DRAM bandwidth (concurrent kernels
  share it).

Heads, tails and windows use the durations a kernel takes alone: sharing DRAM
only stretches them.

A control op (``ge.if``, ``ge.case``, ``ge.loop``, ``ge.scan``) is one node
whose time is its regions': its trips run one after another, each at least its
region's critical path, and its regions' kernels add their work to the pools,
the streams and DRAM (:func:`region_work`). A loop counts its trips where they
are known statically — a constant trip count with a condition that stays true
(absent, or a constant true the body yields back unchanged), a scan's length —
and once per loop where they are values: the bound is then one *per trip*
(:attr:`GraphBound.per_trip` names those loops), not a bound of the run, as
zero trips may run. Of an if's (a case's) branches the bound takes the least,
term by term: one of them runs. In the task sink a control op's own tasks are
on its stream too, one after another with its regions (GE's label makers): each
trip a label switch and a goto, and one more switch that leaves the loop; an
if or a case one switch (the last branch needs no goto). Their profile
durations add to the control op's time and to the streams' work.
"""

from __future__ import annotations

from heapq import heappop, heappush

import attrs
import numpy as np

from geir.backends.cost_model import GE_LOCAL, TaskCost
from geir.constants import CONSTANT_OPS, constant_value
from geir.operation import Block, Operation, OpResult, Value
from geir.passes.scheduling.problem import ScheduleProblem, node_kernel

__all__ = ["GraphBound", "RegionWork", "graph_lower_bound", "region_work", "static_trips", "sync_heads",
           "sync_tails", "spread_delays"]

#: producers (consumers) per node whose sharing of its stream is tried one set
#: at a time; beyond them the bound takes the weaker "latest one done"
SHARED_SET_LIMIT = 16
#: window bounds try at most this many head thresholds (any subset is valid;
#: the cost is O(n) each)
WINDOW_THRESHOLDS = 256
#: the phase term builds an ancestor matrix (n^2 bytes): above this many nodes it is left out
PHASE_LIMIT = 4000
#: the rows of :attr:`GraphBound.window_us` that are not pools
STREAMS, DRAM = "streams", "DRAM"


@attrs.frozen
class GraphBound:
    """The bound and its terms (microseconds)."""

    bound_us: float
    critical_path_us: float
    pool_work_us: dict[str, float]
    dram_us: float
    streams_us: float = 0.0
    #: the critical path with a record and a wait on every edge between streams,
    #: raised by the phases (module doc)
    sync_path_us: float = 0.0
    #: per pool (and ``"streams"``, ``"DRAM"``): the best window's bound
    window_us: dict[str, float] = attrs.field(factory=dict)
    #: per pool: the kernels that cannot overlap, run one at a time
    exclusion_us: dict[str, float] = attrs.field(factory=dict)
    #: the loops whose trip count is a value, counted once each (their locations):
    #: the bound is then per trip, not a bound of the run
    per_trip: tuple[str, ...] = ()
    #: the trips counted of each loop whose trip count is known (location -> trips)
    trips: dict[str, int] = attrs.field(factory=dict)

    @property
    def terms(self) -> dict[str, float]:
        """Every term by name."""
        return {"critical path": self.critical_path_us, "critical path with events": self.sync_path_us,
                "DRAM bandwidth": self.dram_us, "streams": self.streams_us,
                **{f"{p} work": v for p, v in self.pool_work_us.items()},
                **{f"{p} window": v for p, v in self.window_us.items()},
                **{f"{p} exclusion": v for p, v in self.exclusion_us.items()}}

    @property
    def binding(self) -> str:
        """Which term is the bound (the first of equal ones, in :attr:`terms` order)."""
        terms = self.terms
        return max(terms, key=lambda k: terms[k])


def _shared_stream_start(others: list[int], length: list[float], dur: list[float], far_us: float,
                         near_us: float) -> float:
    """The earliest a node can start after ``others`` (its producers, with
    heads ``length``), whatever set of them shares its stream (module doc). A
    producer elsewhere costs ``far_us`` on its stream (the record) and
    ``near_us`` on the node's (the wait, one more task there). Run on
    consumers and tails, with the two swapped, it gives a node's tail."""
    if not others:
        return 0.0
    done = sorted(others, key=lambda p: -(length[p] + dur[p]))
    sync_us = far_us + near_us
    best = length[done[0]] + dur[done[0]] + sync_us  # none shares the stream
    shared: list[int] = []
    for k in range(min(len(done), SHARED_SET_LIMIT)):
        shared.append(done[k])
        jobs = [(length[p], dur[p]) for p in shared]
        rest = 0.0
        if k + 1 < len(done):
            rest = length[done[k + 1]] + dur[done[k + 1]] + sync_us
            # the producers left out reach this stream through at least one wait,
            # a task on it after the earliest of their records
            jobs.append((length[done[-1]] + dur[done[-1]] + far_us, near_us))
        jobs.sort()
        t = 0.0
        for release, d in jobs:  # one machine, release dates: release order is optimal
            t = max(t, release) + d
        t = max(t, rest)
        if t < best:
            best = t
    if len(done) > SHARED_SET_LIMIT:
        # larger shared sets: at least the latest producer is done
        best = min(best, max(length[done[0]] + dur[done[0]],
                             length[done[SHARED_SET_LIMIT]] + dur[done[SHARED_SET_LIMIT]] + sync_us))
    return best


def spread_delays(first_us: float, then_us: float, streams: int) -> list[float]:
    """How soon, at best, each of ``streams`` streams can know that something on
    the first one happened, when every message takes ``first_us`` on its
    sender's stream (one after another) and then ``then_us`` to arrive, and a
    stream that knows may pass it on: a greedy broadcast, which no schedule
    beats. A record then a wait (``record_us, wait_us``) spreads a finish; the
    mirror (``wait_us, record_us``) gathers finishes into one stream."""
    known = [0.0]
    sends: list[float] = [first_us]  # when each knowing stream's next message is sent
    while len(known) < streams:
        sent = heappop(sends)
        arrives = sent + then_us
        known.append(arrives)
        heappush(sends, sent + first_us)
        heappush(sends, arrives + first_us)
    return known


def _fill_time(work: float, delays: list[float]) -> float:
    """The least L with sum over streams of max(0, L - delay) >= work (``delays`` ascending)."""
    if work <= 0:
        return 0.0
    total = 0.0
    for j, c in enumerate(delays):
        total += c
        length = (work + total) / (j + 1)
        if j + 1 == len(delays) or length <= delays[j + 1]:
            return length
    return 0.0  # not reached: the last stream always returns


def _immediate_dominators(preds: list[list[int]]) -> list[int]:
    """Each node's immediate dominator in the DAG (node order topological), -1
    for the virtual source every graph input hangs off."""
    n = len(preds)
    idom = [-1] * n
    depth = [0] * n
    for u in range(n):
        if not preds[u]:
            continue
        a = preds[u][0]
        for b in preds[u][1:]:
            while a != b:  # the common dominator of a and b
                if a < 0 or b < 0:
                    a = b = -1
                    break
                if depth[a] >= depth[b]:
                    a = idom[a]
                else:
                    b = idom[b]
        idom[u] = a
        depth[u] = depth[a] + 1 if a >= 0 else 1
    return idom


def sync_heads(problem: ScheduleProblem) -> list[float]:
    """Each node's earliest start in any plan: a record and a wait per edge
    between streams, and the phases it closes (module doc)."""
    dur = problem.durations
    preds = problem.graph.preds
    n = problem.n
    heads = [0.0] * n
    phases = 0 < n <= PHASE_LIMIT
    if phases:
        on_stream = np.array([d if pool != GE_LOCAL else 0.0 for d, pool in zip(dur, problem.pools)])
        ancestors = np.zeros((n, n), dtype=bool)
        for u in range(n):
            for p in preds[u]:
                ancestors[u] |= ancestors[p]
                ancestors[u, p] = True
        below = ancestors @ on_stream  # the stream work of each node's ancestors
        idom = _immediate_dominators(preds)
        streams = problem.max_streams + len({lb for lb in problem.labels if lb is not None})
        record_us, wait_us = problem.model.record_us, problem.model.wait_us
        broadcast = spread_delays(record_us, wait_us, streams)
        gather = spread_delays(wait_us, record_us, streams)
        both = sorted(a + b for a, b in zip(broadcast, gather))
    for u in range(n):  # node order is topological
        heads[u] = _shared_stream_start(preds[u], heads, dur, problem.model.record_us, problem.model.wait_us)
        if phases and len(preds[u]) > 1:
            v = idom[u]
            if v < 0:
                gap = _fill_time(float(below[u]), gather)
            else:
                gap = heads[v] + dur[v] + _fill_time(float(below[u] - below[v] - on_stream[v]), both)
            if gap > heads[u]:
                heads[u] = gap
    return heads


def sync_tails(problem: ScheduleProblem) -> list[float]:
    """Each node's least time from its end to the makespan, in any plan."""
    dur = problem.durations
    succs = problem.graph.succs
    tails = [0.0] * problem.n
    for v in range(problem.n - 1, -1, -1):
        tails[v] = _shared_stream_start(succs[v], tails, dur, problem.model.wait_us, problem.model.record_us)
    return tails


def _window_bound(heads: np.ndarray, tails: np.ndarray, work: np.ndarray) -> float:
    """``max over a, b`` of ``a + (work of the nodes with head >= a and tail >= b) + b``
    (``work`` already divided by the capacity)."""
    keep = work > 0
    if not keep.any():
        return 0.0
    heads, tails, work = heads[keep], tails[keep], work[keep]
    by_tail = np.argsort(-tails, kind="stable")
    heads, tails, work = heads[by_tail], tails[by_tail], work[by_tail]
    thresholds = np.unique(heads)
    if len(thresholds) > WINDOW_THRESHOLDS:
        thresholds = np.unique(np.quantile(thresholds, np.linspace(0.0, 1.0, WINDOW_THRESHOLDS), method="lower"))
    best = 0.0
    for a in thresholds:
        # nodes in falling tail order: the first k with head >= a, ending at tail b
        inside = np.cumsum(np.where(heads >= a, work, 0.0))
        value = a + float(np.max(np.where(heads >= a, inside + tails, 0.0)))
        if value > best:
            best = value
    return float(best)


def _exclusion_bound(problem: ScheduleProblem, pool: str, heads: list[float], tails: list[float]) -> float:
    """The kernels of ``pool`` that pairwise cannot overlap, run one at a time (module doc)."""
    cap = problem.capacity(pool)
    dur = problem.durations
    nodes = [i for i in range(problem.n) if problem.pools[i] == pool and dur[i] > 0]
    units = {i: min(cap, max(1, problem.units(i))) for i in nodes}
    best = 0.0
    for w in sorted({u for u in units.values() if 2 * u > cap}):
        wide = [i for i in nodes if units[i] >= w]  # any two need more than the pool
        clash = {i for i in nodes if units[i] > cap - w}  # too wide to run beside any of them
        is_wide = set(wide)
        # the longest path through ``clash`` nodes (the wide ones counted already)
        length = [0.0] * problem.n
        via = [-1] * problem.n
        for v in range(problem.n):
            best_p, best_len = -1, 0.0
            for p in problem.graph.preds[v]:
                lp = length[p]
                if lp > best_len:
                    best_p, best_len = p, lp
            own = dur[v] if v in clash and v not in is_wide else 0.0
            length[v] = best_len + own
            via[v] = best_p
        end = max(range(problem.n), key=lambda v: length[v])
        path: list[int] = []
        v = end
        while v >= 0:
            if v in clash and v not in is_wide:
                path.append(v)
            v = via[v]
        together = wide + path
        value = (min(heads[i] for i in together) + sum(dur[i] for i in together)
                 + min(tails[i] for i in together))
        if value > best:
            best = value
    return best


@attrs.frozen
class RegionWork:
    """What a control op's regions take at least: ``duration_us`` (its trips,
    each its region's critical path), ``work`` per pool (duration x units),
    ``stream_us`` (durations on streams), ``dram_bytes``; ``per_trip`` and
    ``trips`` as in :class:`GraphBound`."""

    duration_us: float
    work: dict[str, float]
    stream_us: float
    dram_bytes: float
    per_trip: tuple[str, ...] = ()
    trips: dict[str, int] = attrs.field(factory=dict)


#: control ops the bound looks into, and those of which one region runs
REGION_OPS = frozenset({"ge.if", "ge.case", "ge.loop", "ge.scan"})
BRANCH_OPS = frozenset({"ge.if", "ge.case"})


def _constant_value(v: Value) -> object:
    """The scalar a constant operand holds, or None (also for an absent weight)."""
    data = constant_value(v)
    return data.reshape(-1)[0].item() if data is not None and data.size == 1 else None


def static_trips(op: Operation) -> int | None:
    """The trips ``op`` (a ``ge.loop`` or ``ge.scan``) runs, when known before
    it runs: a scan's length; a loop's constant trip count when its condition
    stays true (absent or a constant true, and the body yields it back or a
    constant true). None otherwise."""
    if op.name == "ge.scan":
        num_scan = op.get_attr("num_scan_inputs")
        if isinstance(num_scan, int) and num_scan >= 1:
            t = op.operands[len(op.operands) - num_scan].type
            shape = getattr(t, "shape", None)
            if shape and isinstance(shape[0], int) and shape[0] >= 0:
                return shape[0]
        return None
    if op.name != "ge.loop":
        return None
    trip, cond = op.operands[0], op.operands[1]
    m = _constant_value(trip)
    if not isinstance(m, int):
        return None
    absent = isinstance(cond, OpResult) and cond.op.name == "ge.none"
    if not absent and _constant_value(cond) is not True:
        return None
    body = op.regions[0].blocks[0]
    ret = body.last_op
    if ret is None or not ret.operands:
        return None
    again = ret.operands[0]
    if again is not body.arguments[1] and _constant_value(again) is not True:
        return None
    return max(0, m)


def _location(op: Operation) -> str:
    """Where a report names ``op``: its location, else where it was parsed, else its name."""
    from geir.diagnostics import op_position
    from geir.passes.lower_to_tasks import loc_text
    return loc_text(op.location) or loc_text(op_position(op)) or op.name


def _control_us(problem: ScheduleProblem, kind: str) -> float:
    """A control task's duration on the problem's device (0 when its profile has none)."""
    try:
        return float(problem.model.profile[f"{kind}_us"])
    except (KeyError, TypeError):
        return 0.0


def region_work(op: Operation, problem: ScheduleProblem) -> RegionWork:
    """What the regions of control op ``op`` take at least (see the module doc),
    nested control ops included, innermost first (no recursion per level)."""
    controls = [inner for inner in op.walk() if inner.regions and inner.name in REGION_OPS]
    switch_us, goto_us = _control_us(problem, "label_switch"), _control_us(problem, "label_goto")
    done: dict[int, RegionWork] = {}
    for c in reversed(controls):  # pre-order reversed: nested ones first
        per_block = [_block_work(region.blocks[0], problem, done) for region in c.regions]
        if not per_block:
            done[id(c)] = RegionWork(0.0, {}, 0.0, 0.0)
            continue
        per_trip = tuple(x for w in per_block for x in w.per_trip)
        trips_seen = {k: v for w in per_block for k, v in w.trips.items()}
        if c.name in BRANCH_OPS:  # one branch runs: the least of each term
            pools = set.intersection(*(set(w.work) for w in per_block))
            switch = switch_us if len(per_block) > 1 else 0.0  # a case of one branch has no label
            done[id(c)] = RegionWork(switch + min(w.duration_us for w in per_block),
                                     {p: min(w.work[p] for w in per_block) for p in pools},
                                     switch + min(w.stream_us for w in per_block),
                                     min(w.dram_bytes for w in per_block), per_trip, trips_seen)
            continue
        w = per_block[0]
        trips = static_trips(c)
        if trips is None:
            per_trip += (_location(c),)
            trips = 1
        else:
            trips_seen[_location(c)] = trips
        control = trips * (switch_us + goto_us) + switch_us  # each trip's switch and goto, and the exit
        done[id(c)] = RegionWork(trips * w.duration_us + control, {p: trips * v for p, v in w.work.items()},
                                 trips * w.stream_us + control, trips * w.dram_bytes, per_trip, trips_seen)
    return done[id(op)]


def _block_work(block: Block, problem: ScheduleProblem, done: dict[int, RegionWork]) -> RegionWork:
    """One region block: its critical path, and its work summed."""
    finish: dict[int, float] = {}
    inner_of: dict[int, int] = {}  # an op nested in a node of this block -> that node
    work: dict[str, float] = {}
    stream_us = dram = 0.0
    per_trip: tuple[str, ...] = ()
    trips: dict[str, int] = {}
    longest = 0.0
    for op in block.ops:
        if op.name in CONSTANT_OPS or op.name in ("ge.none", "ge.yield", "ge.record_event", "ge.wait_event"):
            continue
        nested = done.get(id(op))
        if nested is not None:
            duration = nested.duration_us
            for p, v in nested.work.items():
                work[p] = work.get(p, 0.0) + v
            stream_us += nested.stream_us
            dram += nested.dram_bytes
            per_trip += nested.per_trip
            trips.update(nested.trips)
            for inner in op.walk():
                inner_of[id(inner)] = id(op)
            reads = [v for inner in op.walk() for v in inner.operands]
        else:
            cost: TaskCost = problem.model.kernel(node_kernel(op))
            duration = cost.duration_us
            if cost.pool != GE_LOCAL:
                work[cost.pool] = work.get(cost.pool, 0.0) + duration * max(1, cost.units)
                stream_us += duration
            if cost.dram_rate > 0:
                dram += cost.dram_bytes
            reads = list(op.operands)
        start = 0.0
        for v in reads:
            if isinstance(v, OpResult):
                f = finish.get(inner_of.get(id(v.op), id(v.op)))
                if f is not None and f > start:
                    start = f
        finish[id(op)] = start + duration
        longest = max(longest, start + duration)
    return RegionWork(longest, work, stream_us, dram, per_trip, trips)


def _with_regions(problem: ScheduleProblem) -> tuple[ScheduleProblem, dict[int, RegionWork]]:
    """``problem`` with each control op's node costing its regions' time (its
    work is added by the caller), and the regions' work by node."""
    regions = {i: region_work(op, problem) for i, op in enumerate(problem.graph.ops)
               if op.regions and op.name in REGION_OPS}
    if not regions:
        return problem, regions
    costs = list(problem.costs)
    for i, w in regions.items():
        # the control op is no kernel of a pool: its regions' kernels are (added below)
        costs[i] = TaskCost(GE_LOCAL, 1, w.duration_us)
    return attrs.evolve(problem, costs=costs, pools=[c.pool for c in costs]), regions


def graph_lower_bound(problem: ScheduleProblem, heads: list[float] | None = None,
                      tails: list[float] | None = None) -> GraphBound:
    """The schedule-independent lower bound of ``problem`` (``heads`` and
    ``tails``: :func:`sync_heads` and :func:`sync_tails` when the caller has them;
    recomputed when a control op's regions change its nodes' costs)."""
    problem, regions = _with_regions(problem)
    if regions:
        heads = tails = None
    dur = problem.durations
    finish = [0.0] * problem.n
    for i in range(problem.n):
        start = 0.0
        for p in problem.graph.preds[i]:
            if finish[p] > start:
                start = finish[p]
        finish[i] = start + dur[i]
    critical = max(finish, default=0.0)
    heads = sync_heads(problem) if heads is None else heads
    tails = sync_tails(problem) if tails is None else tails
    sync_path = max((h + d + t for h, d, t in zip(heads, dur, tails)), default=0.0)
    work: dict[str, float] = {}
    for c in problem.costs:
        if c.pool != GE_LOCAL:
            work[c.pool] = work.get(c.pool, 0.0) + c.duration_us * max(1, c.units)
    for w in regions.values():
        for p, v in w.work.items():
            work[p] = work.get(p, 0.0) + v
    pool_work = {p: w / problem.capacity(p) for p, w in work.items()}
    # only flows with a rate pass through the emulator's shared DRAM
    moved = np.array([c.dram_bytes if c.dram_rate > 0 else 0.0 for c in problem.costs])
    for i, w in regions.items():
        moved[i] += w.dram_bytes
    dram = float(moved.sum()) / problem.model.dram_bw if problem.model.dram_bw > 0 else 0.0
    streams = problem.max_streams + len({lb for lb in problem.labels if lb is not None})
    on_stream = np.array([c.duration_us if c.pool != GE_LOCAL else 0.0 for c in problem.costs])
    for i, w in regions.items():
        on_stream[i] += w.stream_us
    stream_us = float(on_stream.sum()) / max(1, streams)
    h, t = np.array(heads), np.array(tails)
    windows = {STREAMS: _window_bound(h, t, on_stream / max(1, streams))}
    for pool in work:
        share = np.array([c.duration_us * max(1, c.units) / problem.capacity(pool) if c.pool == pool else 0.0
                          for c in problem.costs])
        for i, w in regions.items():
            share[i] += w.work.get(pool, 0.0) / problem.capacity(pool)
        windows[pool] = _window_bound(h, t, share)
    if problem.model.dram_bw > 0:
        windows[DRAM] = _window_bound(h, t, moved / problem.model.dram_bw)
    exclusion = {pool: _exclusion_bound(problem, pool, heads, tails) for pool in work}
    exclusion = {p: v for p, v in exclusion.items() if v > 0}
    bound = max([critical, sync_path, dram, stream_us, *pool_work.values(), *windows.values(), *exclusion.values()])
    per_trip = tuple(x for w in regions.values() for x in w.per_trip)
    trips = {k: v for w in regions.values() for k, v in w.trips.items()}
    return GraphBound(bound, critical, pool_work, dram, stream_us, sync_path, windows, exclusion, per_trip, trips)
