"""``single``: every node on stream 0 in block order — GE's single-stream mode
(``ge.enableSingleStream``; ``ac-parallel-enable=false`` for AICPU)."""

from __future__ import annotations

from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["plan"]


def plan(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """All nodes on one stream, in their current order."""
    return StreamPlan([0] * problem.n, list(range(problem.n)))
