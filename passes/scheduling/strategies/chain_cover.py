"""``chain-cover``: maximum logical concurrency with the fewest streams, as
Nimble (NeurIPS 2020) assigns streams, then merged down to ``max-streams``.

1. The transitive reduction of the DAG (its minimum equivalent graph): an edge
   implied by a longer path would only pull unrelated nodes onto one stream.
2. A maximum matching of the bipartite graph (left: producers, right:
   consumers, one edge per reduced dependency), by Hopcroft-Karp: every matched
   edge ``u -> v`` puts ``v`` right after ``u`` on ``u``'s stream, so the matched
   edges form node-disjoint paths and the ``n - |matching|`` paths are the
   fewest streams on which no two nodes the DAG leaves unordered are serialised
   by a stream without need (Nimble's theorem).
3. When there are more chains than streams, chains are merged by load (GE's
   DAG stream merger does the same, ``dag_weighted_stream_merger.cc``): the
   longest chain (by the cost model's durations) goes to the least-loaded
   stream, and so on. Each stream then issues its nodes in block order.

Graphs above the reachability limit are matched on their own edges (the
reduction needs n^2 bits); the cover is still a set of paths, possibly more.
"""

from __future__ import annotations

from geir.passes.scheduling.matching import maximum_matching
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan, label_streams

__all__ = ["plan", "chains", "plan_chains"]


def chains(problem: ScheduleProblem) -> list[list[int]]:
    """A minimum path cover of the unlabelled nodes, over the transitive reduction."""
    g = problem.graph
    preds = g.transitive_reduction() if g.has_reachability else g.preds
    free = [lb is None for lb in problem.labels]
    succ: list[list[int]] = [[] for _ in range(g.n)]
    for c, ps in enumerate(preds):
        if free[c]:
            for p in ps:
                if free[p]:
                    succ[p].append(c)
    match = maximum_matching(g.n, g.n, succ)
    nxt = [-1] * g.n
    has_prev = [False] * g.n
    for u, v in enumerate(match):
        if v >= 0:
            nxt[u] = v
            has_prev[v] = True
    out = []
    for u in range(g.n):
        if free[u] and not has_prev[u]:
            chain = [u]
            while nxt[chain[-1]] >= 0:
                chain.append(nxt[chain[-1]])
            out.append(chain)
    return out


def plan(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """Chains of a minimum path cover, merged by load onto at most ``max-streams`` streams."""
    return plan_chains(problem, chains(problem), "chain-cover")


def plan_chains(problem: ScheduleProblem, cover: list[list[int]], name: str) -> StreamPlan:
    """``cover`` (node-disjoint chains of the unlabelled nodes, each in order) on
    streams: the longest chain by the cost model's durations to the least-loaded
    of at most ``max-streams`` streams, and so on; each stream issues its nodes
    in block order. ``name`` heads the plan's note."""
    labels, first_free = label_streams(problem)
    streams = [labels[lb] if lb is not None else -1 for lb in problem.labels]
    budget = max(1, problem.max_streams)
    dur = problem.durations
    loads = sorted(((sum(dur[i] for i in c), k) for k, c in enumerate(cover)), reverse=True)
    stream_load = [0.0] * min(budget, len(cover) or 1)
    for load, k in loads:
        s = min(range(len(stream_load)), key=lambda x: (stream_load[x], x))
        stream_load[s] += load
        for i in cover[k]:
            streams[i] = first_free + s
    notes = [f"{name}: {len(cover)} chains"
             + (f" merged by load onto {len(stream_load)} streams" if len(cover) > budget else "")]
    return StreamPlan(streams, list(range(problem.n)), notes).normalized()
