"""What a stream-partitioning strategy decides: a stream per node and the order
the nodes are issued in (each stream's queue is this order restricted to it)."""

from __future__ import annotations

import attrs

from geir.passes.scheduling.problem import ScheduleProblem

__all__ = ["StreamPlan", "label_streams", "dense"]


@attrs.define(eq=False)
class StreamPlan:
    """``streams[i]`` is node i's stream; ``order`` a topological order of the
    nodes (the block order after the pass); ``notes`` say why the strategy did
    what it did (printed as remarks); ``bound`` is a proven lower bound on the
    makespan when the strategy has one (the CP-SAT judge), in microseconds."""

    streams: list[int]
    order: list[int]
    notes: list[str] = attrs.Factory(list)
    predicted_us: float | None = None
    bound_us: float | None = None
    optimal: bool = False

    @property
    def num_streams(self) -> int:
        return len(set(self.streams))

    def normalized(self) -> "StreamPlan":
        """The same plan with stream ids dense from 0 in order of first use (GE's
        RefreshContinuousStreams)."""
        return attrs.evolve(self, streams=dense(self.streams, self.order))


def dense(streams: list[int], order: list[int]) -> list[int]:
    """Stream ids renumbered 0, 1, ... by first appearance in ``order``."""
    ids: dict[int, int] = {}
    for i in order:
        ids.setdefault(streams[i], len(ids))
    return [ids[s] for s in streams]


def label_streams(problem: ScheduleProblem) -> tuple[dict[str, int], int]:
    """Streams reserved for ``stream_label`` groups (one per label, as GE's
    AssignByLabelPass does: labels share a stream across engines), and the first
    stream id left for unlabelled nodes."""
    ids: dict[str, int] = {}
    for label in problem.labels:
        if label is not None and label not in ids:
            ids[label] = len(ids)
    return ids, len(ids)
