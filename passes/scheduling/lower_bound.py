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
  it), with each task's overheads discounted.
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

    @property
    def binding(self) -> str:
        """Which term is the bound."""
        terms = {"critical path": self.critical_path_us, "HBM bandwidth": self.hbm_us,
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
    bound = max([critical, hbm, *pool_work.values()])
    return GraphBound(bound, critical, pool_work, hbm)
