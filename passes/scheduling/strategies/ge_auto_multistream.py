"""GE's automatic multi-stream modes (``ge.autoMultistreamParallelMode``, ATC's
``--multi_stream_parallel_mode``), done as GE does them.

It follows ``hicann/ge``: ``compiler/graph/build/stream/stream_utils.cc``
(``ParseAutoMultistreamParallelMode``), ``compiler/graph/partition/engine_partitioner.cc``
(``MarkCvParallelAivNodes``), ``compiler/graph/build/stream/dag_stream_allocator_pass.cc``
and ``compiler/graph/build/dag/`` (MiniDAG: ``dag_stream_allocator.cc``,
``dag_stream_divide.h``, ``dag_stream_merger.cc``).

* ``cv``: before engine partitioning, every vector-core (AIV) op that is not
  linked by a path both from the cube (AIC) op before it and to the cube op
  after it in block order is moved to ``VectorEngine``; GE's logical allocation
  then gives those ops a stream of their own beside the cube ops'.
* ``LoadBalance:N`` and ``MainStream:N``: after logical allocation, MiniDAG
  replaces every stream. Labelled (``stream_label``) ops are *serial*: one
  stream per label, after the others. The other ops form the residual graph
  (edges through serial ops are kept as direct edges); a minimum path cover
  (maximum bipartite matching) splits it into chains (logical streams), which
  a greedy merger packs onto at most N physical streams, level by level
  (longest-path depth), larger chains first:

  - ``LoadBalance`` scores a candidate stream by the edges it would cut (x3),
    the peak plus variance of the streams' loads in a six-level window (x4),
    the stream's total ops (x1) and opening a new stream (x2);
  - ``MainStream`` keeps every chain that only holds ops alone on their level
    (the serial spine of the graph) on stream 0, and scores the rest by cut
    edges (x3), overlap with the stream's ops in the window (x4), opening a
    stream (x2) and a bonus for stream 0 (x4 per solo op).

* ``WeightedLoadBalance:N`` (``dag_weighted_stream_merger.cc``; GE also
  switches any DAG mode to it when ``MINIDAG_PROFILING_PATH`` profiles match
  the graph's ops): the same cover merged by op *time*, the best-scored
  candidates tried in a list-scheduling simulation. GE's profiled times are
  the cost model's durations here.

The matching is SciPy's Hopcroft-Karp, not GE's Dinic max-flow: both give a
minimum path cover, but when several exist they may pick different ones.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

import attrs

from geir.backends.cost_model import AICORE, VECTOR
from geir.passes.scheduling.matching import maximum_matching
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["AutoMultistreamMode", "parse_mode", "ModeError", "cv_vector_nodes", "plan_cv", "plan_dag",
           "plan_auto", "MODE_OPTION", "ATC_OPTION", "MAX_AUTO_STREAMS"]

#: GE's option and ATC's flag (the error texts name both)
MODE_OPTION = "ge.autoMultistreamParallelMode"
ATC_OPTION = "--multi_stream_parallel_mode"
#: kMaxAutoMultistreamNum
MAX_AUTO_STREAMS = 64
_DAG_STRATEGIES = ("LoadBalance", "MainStream", "WeightedLoadBalance")

#: StreamMergeOptions / the stream merger's constants
_WINDOW = 6
_CANDIDATES = 6
_LOW_CONFLICT = 3
_LIGHT_STREAMS = 3
_EVENT_W, _BALANCE_W, _LOAD_W, _CONFLICT_W, _NEW_FLOW_W, _MAIN_BONUS_W = 3.0, 4.0, 1.0, 4.0, 2.0, 4.0
_EPS = 1e-9


class ModeError(ValueError):
    """A mode string GE refuses; the message is GE's reason."""


@attrs.frozen
class AutoMultistreamMode:
    """A parsed mode: ``kind`` is ``cv`` or a DAG strategy; ``streams`` its N."""

    kind: str
    streams: int = 0

    @property
    def is_dag(self) -> bool:
        return self.kind in _DAG_STRATEGIES

    def __str__(self) -> str:
        return self.kind if not self.is_dag else f"{self.kind}:{self.streams}"


def parse_mode(text: str) -> AutoMultistreamMode | None:
    """GE's ``ParseAutoMultistreamParallelMode``: None for the empty string (no
    automatic mode), else the mode; :class:`ModeError` with GE's reason when
    the text is invalid. ``default`` is valid in GE only as a graph attribute
    written by a custom pass, so an option value of ``default`` is refused."""
    if text == "":
        return None
    if text == "default":
        raise ModeError("The default mode is supported only by the graph attribute set by a custom pass.")
    if text == "cv":
        return AutoMultistreamMode("cv")
    if text.count(":") != 1:
        raise ModeError("The format must be Strategy:N with one colon.")
    strategy, _, number = text.partition(":")
    if strategy not in _DAG_STRATEGIES:
        raise ModeError("The strategy must be LoadBalance, MainStream, or WeightedLoadBalance.")
    if not (number.isascii() and number.isdigit()) or not 1 <= int(number) <= MAX_AUTO_STREAMS:
        raise ModeError(f"The stream number must be an integer in [1, {MAX_AUTO_STREAMS}].")
    return AutoMultistreamMode(strategy, int(number))


# ------------------------------------------------------------------ cv

def _reaches(problem: ScheduleProblem, src: int | None, dst: int | None) -> bool:
    """GE's ``IsLinkedInGraph``: a path from ``src`` to ``dst`` (False when either is missing)."""
    if src is None or dst is None:
        return False
    succs = problem.graph.succs
    seen = {src}
    stack = [src]
    while stack:
        for s in succs[stack.pop()]:
            if s == dst:
                return True
            if s not in seen:
                seen.add(s)
                stack.append(s)
    return False


def cv_vector_nodes(problem: ScheduleProblem) -> list[int]:
    """``MarkCvParallelAivNodes``: the vector-core ops that may run beside the cube
    ops. For each AIV op, take the AIC op before it and the first after it in
    block order; it is marked unless the one before reaches it and either there
    is none after or it reaches the one after. An op ``fuse-ub`` fused into
    another is part of that op's kernel and never marked (GE marks before its
    UB fusion, so an AIV op it marks is not fused there: not modelled)."""
    marked: list[int] = []
    pending: list[int] = []
    around: dict[int, list[int | None]] = {}
    prev_aic: int | None = None
    for i in range(problem.n):
        if problem.fused_heads[i] >= 0:
            continue  # part of its chain head's kernel, not a node of its own
        if problem.pools[i] == VECTOR:
            around[i] = [prev_aic, None]
            pending.append(i)
        elif problem.pools[i] == AICORE:
            for j in pending:
                around[j][1] = i
            pending = []
            prev_aic = i
    for i, (before, after) in around.items():
        linked_before = _reaches(problem, before, i)
        if linked_before and after is None:
            continue
        if not linked_before or not _reaches(problem, i, after):
            marked.append(i)
    return marked


def plan_cv(problem: ScheduleProblem, dynamic: bool = False, ac_parallel: bool = False) -> StreamPlan:
    """``cv``: GE's logical allocation (the dynamic-shape allocator when
    ``dynamic``) after the cv-parallel vector ops moved to ``VectorEngine``."""
    from geir.passes.scheduling.strategies import ge_logical
    marked = cv_vector_nodes(problem)
    engines = list(problem.engines)
    for i in marked:
        engines[i] = "VectorEngine"
    view = attrs.evolve(problem, engines=engines)
    plan = (ge_logical.plan_dynamic(view, 0.0, ac_parallel=ac_parallel) if dynamic
            else ge_logical.plan_with_parallel_num(view, {}, "ge-cv"))
    plan.notes.insert(0, f"ge-cv: {len(marked)} vector-core op(s) may run beside the cube ops (VectorEngine)")
    return plan


# ------------------------------------------------------------------ MiniDAG

def _ge_dag(problem: ScheduleProblem) -> tuple[list[list[int]], list[bool]]:
    """The graph MiniDAG reads (``DAGAdapter::FromGEGraph``): the task nodes and
    GE's NetOutput (index ``n``, when the graph returns a node's result), and
    which nodes carry weight: a node GE's logical allocation left without a
    stream has no device task, so its time is 0 and MiniDAG passes through it."""
    from geir.passes.scheduling.strategies import ge_logical
    alloc = (ge_logical.allocate_dynamic(problem) if _dynamic(problem) else ge_logical.allocate(problem))
    return alloc.graph.succs, [s != ge_logical.INVALID_STREAM for s in alloc.streams]


def _residual(problem: ScheduleProblem) -> tuple[list[int], list[list[int]]]:
    """``SplitSerialGraph``: the weighted unlabelled nodes (block order, NetOutput
    last) and their edges, an edge through labelled or weightless nodes becoming
    a direct one (``BuildResidualEdges``)."""
    all_succs, weighted = _ge_dag(problem)
    labels = list(problem.labels) + [None] * (len(all_succs) - problem.n)
    through = [labels[i] is not None or not weighted[i] for i in range(len(all_succs))]
    nodes = [i for i in range(len(all_succs)) if not through[i]]
    index = {v: k for k, v in enumerate(nodes)}
    out: list[list[int]] = []
    for v in nodes:
        targets: list[int] = []
        seen_targets: set[int] = set()
        pending: deque[int] = deque()
        visited: set[int] = set()

        def handle(d: int) -> None:
            if through[d]:
                if d not in visited:
                    visited.add(d)
                    pending.append(d)
            elif d != v and d not in seen_targets:
                seen_targets.add(d)
                targets.append(index[d])

        for d in all_succs[v]:
            handle(d)
        while pending:
            for d in all_succs[pending.popleft()]:
                handle(d)
        out.append(targets)
    return nodes, out


def _path_cover(succs: list[list[int]]) -> list[list[int]]:
    """``HopcroftKarp::MinStreamCover``: a minimum path cover as routes, each
    started at a node no edge of the matching enters, in node order."""
    m = len(succs)
    to = maximum_matching(m, m, succs)
    has_from = [False] * m
    for v in to:
        if v >= 0:
            has_from[v] = True
    seen = [False] * m
    routes: list[list[int]] = []
    for i in range(m):
        if not has_from[i] and not seen[i]:
            route: list[int] = []
            x = i
            while x >= 0 and not seen[x]:
                route.append(x)
                seen[x] = True
                x = to[x]
            routes.append(route)
    routes.extend([i] for i in range(m) if not seen[i])
    return routes


@attrs.define
class _Unit:
    """One logical stream (``UnitProfile``)."""

    uid: int
    nodes: list[int]
    earliest: int
    hist: list[int]
    peak: int
    interaction: int = 0


class _Merger:
    """``StreamMergeSolver``: logical streams onto at most ``limit`` physical ones."""

    def __init__(self, succs: list[list[int]], routes: list[list[int]], limit: int) -> None:
        m = len(succs)
        self.limit = limit
        preds: list[list[int]] = [[] for _ in range(m)]
        for u in range(m):
            for v in succs[u]:
                preds[v].append(u)
        levels = [0] * m
        for v in range(m):  # node order is topological
            levels[v] = max((levels[p] + 1 for p in preds[v]), default=0)
        self.max_level = max(levels, default=0)
        node_unit = [0] * m
        self.units: list[_Unit] = []
        for uid, route in enumerate(routes):
            hist = [0] * (self.max_level + 1)
            for v in route:
                node_unit[v] = uid
                hist[levels[v]] += 1
            self.units.append(_Unit(uid, route, min(levels[v] for v in route), hist, max(hist)))
        self.pred_edges: list[dict[int, int]] = [{} for _ in routes]
        self.succ_edges: list[dict[int, int]] = [{} for _ in routes]
        for v in range(m):
            for p in sorted(set(preds[v])):
                a, b = node_unit[p], node_unit[v]
                if a == b:
                    continue
                self.succ_edges[a][b] = self.succ_edges[a].get(b, 0) + 1
                self.pred_edges[b][a] = self.pred_edges[b].get(a, 0) + 1
                self.units[a].interaction += 1
                self.units[b].interaction += 1
        self.by_level: dict[int, list[int]] = {}
        for u in self.units:
            self.by_level.setdefault(u.earliest, []).append(u.uid)
        for ids in self.by_level.values():
            ids.sort(key=lambda k: (-len(self.units[k].nodes), -self.units[k].interaction,
                                    -self.units[k].peak, self.units[k].earliest, k))
        self.level_loads = [0] * (self.max_level + 1)
        for lv in levels:
            self.level_loads[lv] += 1
        self.solo = [sum(c for lv, c in enumerate(u.hist) if self.level_loads[lv] == 1) for u in self.units]

    # --- shared pieces
    def _window(self, hist: list[int], start: int) -> int:
        return sum(hist[start:min(self.max_level, start + _WINDOW - 1) + 1])

    def _adjacent(self, uid: int, assignment: list[int]) -> dict[int, int]:
        weights: dict[int, int] = {}
        for edges in (self.pred_edges[uid], self.succ_edges[uid]):
            for other, w in edges.items():
                if assignment[other] >= 0:
                    weights[assignment[other]] = weights.get(assignment[other], 0) + w
        return weights

    def _event_local(self, uid: int, stream: int, assignment: list[int]) -> int:
        return sum(w for edges in (self.pred_edges[uid], self.succ_edges[uid]) for other, w in edges.items()
                   if assignment[other] >= 0 and assignment[other] != stream)

    def _dedupe(self, candidates: list[int], active: int) -> list[int]:
        if active < self.limit:
            candidates.append(active)
        unique: list[int] = []
        for c in candidates:
            if c not in unique:
                unique.append(c)
            if len(unique) >= _CANDIDATES:
                break
        if unique:
            return unique
        return [active] if active < self.limit else list(range(min(active, _CANDIDATES)))

    def _apply(self, uid: int, stream: int, assignment: list[int], sizes: list[int],
               loads: list[list[int]]) -> None:
        if stream == len(loads):
            sizes.append(0)
            loads.append([0] * (self.max_level + 1))
        assignment[uid] = stream
        sizes[stream] += len(self.units[uid].nodes)
        for lv, c in enumerate(self.units[uid].hist):
            loads[stream][lv] += c

    def _better(self, a: tuple[float, ...], b: tuple[float, ...]) -> bool:
        """Score ``a`` < ``b``: totals within 1e-9 compare equal, then the tie-breaks."""
        if abs(a[0] - b[0]) > _EPS:
            return a[0] < b[0]
        return a[1:] < b[1:]

    def _solve(self, candidates: Callable[..., list[int]], score: Callable[..., tuple[float, ...]]) -> list[int]:
        assignment = [-1] * len(self.units)
        sizes: list[int] = []
        loads: list[list[int]] = []
        for level in range(self.max_level + 1):
            for uid in self.by_level.get(level, []):
                cands = candidates(uid, level, assignment, sizes, loads)
                best, best_score = cands[0], score(uid, cands[0], level, assignment, sizes, loads)
                for c in cands[1:]:
                    s = score(uid, c, level, assignment, sizes, loads)
                    if self._better(s, best_score):
                        best, best_score = c, s
                self._apply(uid, best, assignment, sizes, loads)
        used = sorted(set(assignment))  # CompactAssignment
        remap = {s: k for k, s in enumerate(used)}
        return [remap[s] for s in assignment]

    # --- LoadBalance
    def _lb_candidates(self, uid: int, level: int, assignment: list[int], sizes: list[int],
                       loads: list[list[int]]) -> list[int]:
        adj = sorted(self._adjacent(uid, assignment).items(), key=lambda kv: (-kv[1], sizes[kv[0]], kv[0]))
        cands = [s for s, _ in adj]
        light = sorted(range(len(loads)), key=lambda s: (self._window(loads[s], level), sizes[s], s))
        cands.extend(light[:_LIGHT_STREAMS])
        return self._dedupe(cands, len(loads))

    def _lb_score(self, uid: int, stream: int, level: int, assignment: list[int], sizes: list[int],
                  loads: list[list[int]]) -> tuple[float, ...]:
        active = len(loads)
        new = stream == active
        window = [self._window(loads[s], level) for s in range(active)] + ([0] if new else [])
        window[stream] += self._window(self.units[uid].hist, level)
        mean = sum(window) / len(window)
        balance = max(window) + sum((w - mean) ** 2 for w in window) / len(window)
        event = self._event_local(uid, stream, assignment)
        total_load = (0 if new else sizes[stream]) + len(self.units[uid].nodes)
        total = _EVENT_W * event + _BALANCE_W * balance + _LOAD_W * total_load + _NEW_FLOW_W * new
        return (total, event, balance, total_load, stream)

    def load_balance(self) -> list[int]:
        return self._solve(self._lb_candidates, self._lb_score)

    # --- MainStream
    def _must_main(self, uid: int, level: int) -> bool:
        return self.level_loads[level] == 1 or self.solo[uid] == len(self.units[uid].nodes)

    def _ms_candidates(self, uid: int, level: int, assignment: list[int], sizes: list[int],
                       loads: list[list[int]]) -> list[int]:
        if self._must_main(uid, level):
            return [0]
        active = len(loads)
        cands = [0]  # AddMainStreamCandidate: stream 0 always (opened by the first unit)
        adj = sorted(self._adjacent(uid, assignment).items(), key=lambda kv: (-kv[1], kv[0]))
        cands.extend(s for s, _ in adj)
        hist = self.units[uid].hist
        conflicts = sorted(range(active), key=lambda s: (self._conflict(hist, loads[s], level), s))
        cands.extend(conflicts[:_LOW_CONFLICT])
        return self._dedupe(cands, active)

    def _conflict(self, hist: list[int], stream_hist: list[int], level: int) -> int:
        end = min(self.max_level, level + _WINDOW - 1)
        return sum(hist[lv] * stream_hist[lv] for lv in range(level, end + 1))

    def _ms_score(self, uid: int, stream: int, level: int, assignment: list[int], sizes: list[int],
                  loads: list[list[int]]) -> tuple[float, ...]:
        new = stream == len(loads)
        event = self._event_local(uid, stream, assignment)
        conflict = 0 if new else self._conflict(self.units[uid].hist, loads[stream], level)
        bonus = self.solo[uid] if stream == 0 else 0
        total = _EVENT_W * event + _CONFLICT_W * conflict + _NEW_FLOW_W * new - _MAIN_BONUS_W * bonus
        return (total, event, conflict, int(new), bonus)

    def main_stream(self) -> list[int]:
        return self._solve(self._ms_candidates, self._ms_score)


#: WeightedStreamMergeOptions
_W_CANDIDATES, _W_LIGHT, _W_RESIM = 8, 3, 3
_W_EVENT, _W_CONFLICT, _W_LOAD, _W_NEW_FLOW = 3.0, 4.0, 2.0, 2.0


def _cmp(a: float, b: float) -> int:
    """GE's ``CompareDouble``: equal within 1e-9."""
    return 0 if abs(a - b) <= _EPS else (-1 if a < b else 1)


class _WeightedMerger:
    """``WeightedStreamMergeSolver``: the chains onto at most ``limit`` streams by
    op time. Each chain (largest total time first, level by level) is scored
    on up to eight candidate streams by cut edges (x3), its time overlapping
    the stream's in a six-level window (x4), the stream's total time (x2) and
    opening a stream (x2); the three best are then tried in a list-scheduling
    simulation of the chains placed so far (one FIFO queue per stream, highest
    bottom rank first) and the shortest simulated makespan wins. GE's profiled
    op times and block dims are the cost model's durations and units here.
    (GE's origin-stream hint is left out: it hints each chain at itself, so it
    never adds a candidate.)"""

    def __init__(self, problem: ScheduleProblem, nodes: list[int], succs: list[list[int]], routes: list[list[int]],
                 limit: int) -> None:
        import heapq
        m = len(nodes)
        self.limit, self.m = limit, m
        self.succs = succs
        self.preds: list[list[int]] = [[] for _ in range(m)]
        for u in range(m):
            for v in succs[u]:
                self.preds[v].append(u)
        indegree = [len(p) for p in self.preds]
        ready = [v for v in range(m) if indegree[v] == 0]
        heapq.heapify(ready)
        self.topo: list[int] = []
        while ready:  # BuildLevels: the smallest ready index first
            v = heapq.heappop(ready)
            self.topo.append(v)
            for w in succs[v]:
                indegree[w] -= 1
                if indegree[w] == 0:
                    heapq.heappush(ready, w)
        self.position = [0] * m
        for k, v in enumerate(self.topo):
            self.position[v] = k
        self.level = [0] * m
        for v in self.topo:
            self.level[v] = max((self.level[p] + 1 for p in self.preds[v]), default=0)
        self.max_level = max(self.level, default=0)
        tasks = problem.n  # NetOutput (index n) has no task: no time, no cores
        self.duration = [problem.durations[i] if i < tasks else 0.0 for i in nodes]
        aiv = [problem.units(i) if i < tasks and problem.pools[i] == VECTOR else 0 for i in nodes]
        aic = [problem.units(i) if i < tasks and problem.pools[i] == AICORE else 0 for i in nodes]
        self.rank = [0.0] * m
        for v in reversed(self.topo):
            self.rank[v] = self.duration[v] + max((self.rank[w] for w in succs[v]), default=0.0)
        self.routes = routes
        self.node_unit = [0] * m
        levels = self.max_level + 1
        self.total = [0.0] * len(routes)
        resource = [0.0] * len(routes)
        peak = [0] * len(routes)
        self.hist = [[0.0] * levels for _ in routes]
        active_aiv = [[0] * levels for _ in routes]
        active_aic = [[0] * levels for _ in routes]
        earliest = [0] * len(routes)
        for uid, route in enumerate(routes):
            for v in route:
                self.node_unit[v] = uid
                d = self.duration[v]
                self.total[uid] += d
                resource[uid] += d * (aiv[v] + aic[v])
                self.hist[uid][self.level[v]] += d
                active_aiv[uid][self.level[v]] = max(active_aiv[uid][self.level[v]], aiv[v])
                active_aic[uid][self.level[v]] = max(active_aic[uid][self.level[v]], aic[v])
            peak[uid] = max(max(active_aiv[uid]), max(active_aic[uid]))
            earliest[uid] = min(self.level[v] for v in route)
        self.active_levels = [[lv for lv in range(levels) if self.hist[u][lv] > _EPS or active_aiv[u][lv] > 0
                               or active_aic[u][lv] > 0] for u in range(len(routes))]
        self.pred_edges: list[dict[int, int]] = [{} for _ in routes]
        self.succ_edges: list[dict[int, int]] = [{} for _ in routes]
        interaction = [0] * len(routes)
        for v in range(m):
            for p in sorted(set(self.preds[v])):
                a, b = self.node_unit[p], self.node_unit[v]
                if a != b:
                    self.succ_edges[a][b] = self.succ_edges[a].get(b, 0) + 1
                    self.pred_edges[b][a] = self.pred_edges[b].get(a, 0) + 1
                    interaction[a] += 1
                    interaction[b] += 1

        def order(x: int, y: int) -> int:
            for c in (-_cmp(self.total[x], self.total[y]), -_cmp(resource[x], resource[y])):
                if c:
                    return c
            for a, b in ((-peak[x], -peak[y]), (-interaction[x], -interaction[y]), (earliest[x], earliest[y]),
                         (x, y)):
                if a != b:
                    return -1 if a < b else 1
            return 0

        import functools
        self.by_level: dict[int, list[int]] = {}
        for uid in range(len(routes)):
            self.by_level.setdefault(earliest[uid], []).append(uid)
        for ids in self.by_level.values():
            ids.sort(key=functools.cmp_to_key(order))

    def _window_end(self, level: int) -> int:
        return min(self.max_level, level + _WINDOW - 1)

    def _window_levels(self, uid: int, level: int) -> list[int]:
        inside = [lv for lv in self.active_levels[uid] if level <= lv <= self._window_end(level)]
        return inside or self.active_levels[uid]

    def _score(self, uid: int, stream: int, level: int, assignment: list[int], totals: list[float],
               hists: list[list[float]], active: int) -> tuple[float, float, int, float, int]:
        event = sum(w for edges in (self.pred_edges[uid], self.succ_edges[uid]) for other, w in edges.items()
                    if assignment[other] >= 0 and assignment[other] != stream)
        conflict = sum(self.hist[uid][lv] * hists[stream][lv] for lv in self._window_levels(uid, level))
        load = totals[stream] + self.total[uid]
        total = _W_EVENT * event + _W_CONFLICT * conflict + _W_LOAD * load + _W_NEW_FLOW * (stream == active)
        return (total, conflict, event, load, stream)

    @staticmethod
    def _less(a: tuple[float, float, int, float, int], b: tuple[float, float, int, float, int]) -> bool:
        """``LiteScoreLess``."""
        for x, y in ((a[0], b[0]), (a[1], b[1])):
            if _cmp(x, y):
                return x < y
        if a[2] != b[2]:
            return a[2] < b[2]
        if _cmp(a[3], b[3]):
            return a[3] < b[3]
        return a[4] < b[4]

    def _candidates(self, uid: int, level: int, assignment: list[int], totals: list[float],
                    hists: list[list[float]], active: int) -> list[int]:
        import functools
        weights: dict[int, int] = {}
        for edges in (self.pred_edges[uid], self.succ_edges[uid]):
            for other, w in edges.items():
                if assignment[other] >= 0:
                    weights[assignment[other]] = weights.get(assignment[other], 0) + w

        def adjacent(x: tuple[int, int], y: tuple[int, int]) -> int:
            if x[1] != y[1]:
                return -1 if x[1] > y[1] else 1
            return _cmp(totals[x[0]], totals[y[0]]) or (-1 if x[0] < y[0] else 1 if x[0] > y[0] else 0)

        def window(s: int) -> float:
            return sum(hists[s][level:self._window_end(level) + 1])

        def light(x: int, y: int) -> int:
            return _cmp(window(x), window(y)) or _cmp(totals[x], totals[y]) or (x > y) - (x < y)

        cands = [s for s, _ in sorted(weights.items(), key=functools.cmp_to_key(adjacent))]
        cands += sorted(range(active), key=functools.cmp_to_key(light))[:_W_LIGHT]
        if active < self.limit:
            cands.append(active)
        unique: list[int] = []
        for c in cands:
            if c not in unique:
                unique.append(c)
            if len(unique) >= _W_CANDIDATES:
                break
        if unique:
            return unique
        return [active] if active < self.limit else list(range(min(active, _W_CANDIDATES)))

    def _simulate(self, assignment: list[int]) -> float | None:
        """GE's resource simulation of the placed chains: per step, the ready
        stream head of highest bottom rank starts, then time jumps to the next
        finish. None when it stalls."""
        import heapq
        streams = [assignment[self.node_unit[v]] for v in range(self.m)]
        live = [s >= 0 for s in streams]
        queues: dict[int, deque[int]] = {}
        for v in self.topo:
            if live[v]:
                queues.setdefault(streams[v], deque()).append(v)
        preds = [[p for p in self.preds[v] if live[p]] for v in range(self.m)]
        finished = [False] * self.m
        running = [False] * (max(streams, default=0) + 1)
        heap: list[tuple[float, int, int]] = []
        now, done, todo = 0.0, 0, sum(live)
        while done < todo:
            heads = [q[0] for s, q in sorted(queues.items()) if q and not running[s]
                     and all(finished[p] for p in preds[q[0]])]
            if heads:
                v = min(heads, key=lambda h: (-self.rank[h], -self.duration[h], self.position[h], h))
                queues[streams[v]].popleft()
                running[streams[v]] = True
                heapq.heappush(heap, (now + self.duration[v], self.position[v], v))
            if not heap:
                return None
            now = heap[0][0]
            while heap and _cmp(heap[0][0], now) == 0:
                _, _, v = heapq.heappop(heap)
                finished[v] = True
                running[streams[v]] = False
                done += 1
        return now

    def solve(self) -> list[int]:
        import functools
        assignment = [-1] * len(self.routes)
        totals = [0.0] * self.limit
        hists = [[0.0] * (self.max_level + 1) for _ in range(self.limit)]
        active = 0
        for level in range(self.max_level + 1):
            for uid in self.by_level.get(level, []):
                cands = self._candidates(uid, level, assignment, totals, hists, active)
                scored = sorted((self._score(uid, c, level, assignment, totals, hists, active) for c in cands),
                                key=functools.cmp_to_key(lambda a, b: -1 if self._less(a, b) else
                                                         (1 if self._less(b, a) else 0)))
                best, best_span = scored[0][4], None
                for sc in scored[:_W_RESIM]:
                    assignment[uid] = sc[4]
                    span = self._simulate(assignment)
                    assignment[uid] = -1
                    if span is not None and (best_span is None or _cmp(span, best_span) < 0):
                        best, best_span = sc[4], span
                if best == active:
                    active += 1
                assignment[uid] = best
                totals[best] += self.total[uid]
                for lv in self.active_levels[uid]:
                    hists[best][lv] += self.hist[uid][lv]
        used = sorted(set(assignment))
        remap = {s: k for k, s in enumerate(used)}
        return [remap[s] for s in assignment]


def plan_dag(problem: ScheduleProblem, mode: AutoMultistreamMode) -> StreamPlan:
    """``LoadBalance:N`` / ``MainStream:N`` / ``WeightedLoadBalance:N``: MiniDAG's ``ByPathCover``."""
    tag = f"ge-{mode.kind}"
    nodes, succs = _residual(problem)
    streams = [0] * (problem.n + 1)  # NetOutput's stream, if any, is dropped below (it has no task)
    required = 0
    notes: list[str] = []
    if nodes:
        routes = _path_cover(succs)
        if mode.kind == "WeightedLoadBalance":
            physical = _WeightedMerger(problem, nodes, succs, routes, mode.streams).solve()
        else:
            merger = _Merger(succs, routes, mode.streams)
            physical = merger.load_balance() if mode.kind == "LoadBalance" else merger.main_stream()
        for route, s in zip(routes, physical):
            for k in route:
                streams[nodes[k]] = s
        required = max(physical) + 1
        notes.append(f"{tag}: {len(routes)} chain(s) of the minimum path cover merged onto {required} "
                     f"stream(s) (at most {mode.streams})")
    weighted = set(nodes)
    idle = [i for i in range(problem.n) if i not in weighted and problem.labels[i] is None]
    # ops GE leaves without a stream go on stream 0, which a label then must not share
    first_label = max(required, 1 if idle else 0)
    labels: list[str] = []
    for i, label in enumerate(problem.labels):
        if label is not None:
            if label not in labels:
                labels.append(label)
            streams[i] = first_label + labels.index(label)
    if labels:
        notes.append(f"{tag}: {len(labels)} stream label(s) serial on their own streams: {', '.join(labels)}")
    if idle:
        notes.append(f"{tag}: {len(idle)} op(s) GE leaves without a stream on stream 0 (no task of weight)")
    return StreamPlan(streams[:problem.n], list(range(problem.n)), notes)


def plan_auto(problem: ScheduleProblem, mode: AutoMultistreamMode, dynamic: bool = False,
              ac_parallel: bool = False) -> StreamPlan:
    """The plan GE makes for ``problem`` in automatic mode ``mode``."""
    if mode.kind == "cv":
        return plan_cv(problem, dynamic, ac_parallel)
    return plan_dag(problem, mode)


# ------------------------------------------------------------------ as strategies
# The modes as strategies of their own, N = max-streams (capped to GE's 64), so
# ge-bench and bench/streams.py sweep them like any other strategy.

def _dynamic(problem: ScheduleProblem) -> bool:
    from geir.types import TensorType
    return any(isinstance(r.type, TensorType) and not r.type.is_static for op in problem.graph.ops
               for r in op.results)


def plan_cv_strategy(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """``ge-cv``: ``strategy=ge multi-stream-parallel-mode=cv``."""
    return plan_cv(problem, dynamic=_dynamic(problem))


def plan_load_balance(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """``ge-load-balance``: ``strategy=ge multi-stream-parallel-mode=LoadBalance:<max-streams>``."""
    return plan_dag(problem, AutoMultistreamMode("LoadBalance", min(problem.max_streams, MAX_AUTO_STREAMS)))


def plan_weighted_load_balance(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """``ge-weighted-load-balance``: ``multi-stream-parallel-mode=WeightedLoadBalance:<max-streams>``."""
    return plan_dag(problem, AutoMultistreamMode("WeightedLoadBalance", min(problem.max_streams, MAX_AUTO_STREAMS)))


def plan_main_stream(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """``ge-main-stream``: ``strategy=ge multi-stream-parallel-mode=MainStream:<max-streams>``."""
    return plan_dag(problem, AutoMultistreamMode("MainStream", min(problem.max_streams, MAX_AUTO_STREAMS)))
