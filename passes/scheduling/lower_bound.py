"""A lower bound on the makespan of a graph under *any* stream plan — what the
benchmark compares every strategy against.

The emulator's report carries a lower bound too, but of the program it ran:
its critical path follows that program's stream order and events, so a single
stream's "bound" is its own makespan. This bound depends only on the graph and
the device: the largest of

* the critical path of the DAG by the cost model's durations (no event costs:
  a perfect plan needs none on its critical path),
* each pool's work ``sum(duration x units) / capacity`` (AICore, vector cores,
  AICPU, DVPP, HCCL ...),
* all HBM traffic over the device's HBM bandwidth (concurrent kernels share
  it),
* the streams' capacity: a stream runs one task at a time, so the sum of all
  durations over the streams a plan may use (``max-streams`` plus one per
  ``stream_label``) bounds it too.
"""

from __future__ import annotations

import attrs

from geir.backends.cost_model import GE_LOCAL
from geir.passes.scheduling.problem import ScheduleProblem

__all__ = ["GraphBound", "graph_lower_bound"]


@attrs.frozen
class GraphBound:
    """The bound and its terms (microseconds)."""

    bound_us: float
    critical_path_us: float
    pool_work_us: dict[str, float]
    hbm_us: float
    streams_us: float = 0.0

    @property
    def binding(self) -> str:
        """Which term is the bound."""
        terms = {"critical path": self.critical_path_us, "HBM bandwidth": self.hbm_us, "streams": self.streams_us,
                 **{f"{p} work": v for p, v in self.pool_work_us.items()}}
        return max(terms, key=lambda k: terms[k])


def graph_lower_bound(problem: ScheduleProblem) -> GraphBound:
    """The schedule-independent lower bound of ``problem``."""
    dur = problem.durations
    finish = [0.0] * problem.n
    for i in range(problem.n):
        start = 0.0
        for p in problem.graph.preds[i]:
            if finish[p] > start:
                start = finish[p]
        finish[i] = start + dur[i]
    critical = max(finish, default=0.0)
    work: dict[str, float] = {}
    for c in problem.costs:
        if c.pool != GE_LOCAL:
            work[c.pool] = work.get(c.pool, 0.0) + c.duration_us * max(1, c.units)
    pool_work = {p: w / problem.capacity(p) for p, w in work.items()}
    hbm_bytes = sum(getattr(c, "hbm_bytes", 0.0) for c in problem.costs)
    hbm = hbm_bytes / problem.model.hbm_bw if problem.model.hbm_bw > 0 else 0.0
    streams = problem.max_streams + len({lb for lb in problem.labels if lb is not None})
    stream_us = sum(c.duration_us for c in problem.costs if c.pool != GE_LOCAL) / max(1, streams)
    bound = max([critical, hbm, stream_us, *pool_work.values()])
    return GraphBound(bound, critical, pool_work, hbm, stream_us)
