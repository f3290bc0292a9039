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

* ``WeightedLoadBalance:N``: GE takes it only with profiled per-op times
  (``MINIDAG_PROFILING_PATH``), through a separate time-weighted merger that
  is not modelled here: the mode is parsed and refused with a diagnostic.

The matching is SciPy's Hopcroft-Karp, not GE's Dinic max-flow: both give a
minimum path cover, but when several exist they may pick different ones.
"""

from __future__ import annotations

from collections import deque

import attrs

from geir.backends.cost_model import AICORE, VECTOR
from geir.passes.scheduling.matching import maximum_matching
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["AutoMultistreamMode", "parse_mode", "ModeError", "cv_vector_nodes", "plan_cv", "plan_dag",
           "plan_auto", "MODE_OPTION", "WEIGHTED_REFUSAL", "ATC_OPTION", "MAX_AUTO_STREAMS"]

#: GE's option and ATC's flag (the error texts name both)
MODE_OPTION = "ge.autoMultistreamParallelMode"
ATC_OPTION = "--multi_stream_parallel_mode"
#: kMaxAutoMultistreamNum
MAX_AUTO_STREAMS = 64
_DAG_STRATEGIES = ("LoadBalance", "MainStream", "WeightedLoadBalance")
#: why WeightedLoadBalance is refused
WEIGHTED_REFUSAL = ("WeightedLoadBalance needs GE's profiled op times (MINIDAG_PROFILING_PATH) and its "
                    "time-weighted merger, which geir does not model; use LoadBalance:N or MainStream:N")

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
    is none after or it reaches the one after."""
    marked: list[int] = []
    pending: list[int] = []
    around: dict[int, list[int | None]] = {}
    prev_aic: int | None = None
    for i in range(problem.n):
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

def _residual(problem: ScheduleProblem) -> tuple[list[int], list[list[int]]]:
    """``SplitSerialGraph``: the unlabelled nodes (block order) and their edges,
    an edge through labelled nodes becoming a direct one (``BuildResidualEdges``)."""
    serial = [label is not None for label in problem.labels]
    nodes = [i for i in range(problem.n) if not serial[i]]
    index = {v: k for k, v in enumerate(nodes)}
    succs = problem.graph.succs
    out: list[list[int]] = []
    for v in nodes:
        targets: list[int] = []
        seen_targets: set[int] = set()
        pending: deque[int] = deque()
        visited: set[int] = set()

        def handle(d: int) -> None:
            if serial[d]:
                if d not in visited:
                    visited.add(d)
                    pending.append(d)
            elif d != v and d not in seen_targets:
                seen_targets.add(d)
                targets.append(index[d])

        for d in succs[v]:
            handle(d)
        while pending:
            for d in succs[pending.popleft()]:
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

    def _solve(self, candidates, score) -> list[int]:  # type: ignore[no-untyped-def]
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


def plan_dag(problem: ScheduleProblem, mode: AutoMultistreamMode) -> StreamPlan:
    """``LoadBalance:N`` / ``MainStream:N``: MiniDAG's ``ByPathCover``."""
    tag = f"ge-{mode.kind}"
    if mode.kind == "WeightedLoadBalance":
        raise ModeError(WEIGHTED_REFUSAL)
    nodes, succs = _residual(problem)
    streams = [0] * problem.n
    required = 0
    notes: list[str] = []
    if nodes:
        routes = _path_cover(succs)
        merger = _Merger(succs, routes, mode.streams)
        physical = merger.load_balance() if mode.kind == "LoadBalance" else merger.main_stream()
        for route, s in zip(routes, physical):
            for k in route:
                streams[nodes[k]] = s
        required = max(physical) + 1
        notes.append(f"{tag}: {len(routes)} chain(s) of the minimum path cover merged onto {required} "
                     f"stream(s) (at most {mode.streams})")
    labels: list[str] = []
    for i, label in enumerate(problem.labels):
        if label is not None:
            if label not in labels:
                labels.append(label)
            streams[i] = required + labels.index(label)
    if labels:
        notes.append(f"{tag}: {len(labels)} stream label(s) serial on their own streams: {', '.join(labels)}")
    return StreamPlan(streams, list(range(problem.n)), notes)


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


def plan_main_stream(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """``ge-main-stream``: ``strategy=ge multi-stream-parallel-mode=MainStream:<max-streams>``."""
    return plan_dag(problem, AutoMultistreamMode("MainStream", min(problem.max_streams, MAX_AUTO_STREAMS)))
