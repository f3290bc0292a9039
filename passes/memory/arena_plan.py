"""An arena plan: an offset per buffer from one of the algorithms, and the
zero-copy I/O buffers laid out after the arena (GE: outputs first, then the
inputs by size, so the host's copies can merge)."""

from __future__ import annotations

from typing import Sequence

import attrs

from geir.passes.memory.ge_blocks import ge_blocks
from geir.passes.memory.greedy_by_size import greedy_by_size
from geir.passes.memory.lifetimes import MemoryProblem, align

__all__ = ["ArenaPlan", "plan_arena", "ALGORITHMS", "overlaps"]

#: the ``algorithm`` option's values
ALGORITHMS = ("greedy-by-size", "ge-blocks", "best")


@attrs.define(eq=False)
class ArenaPlan:
    """``offsets[b]`` for arena buffer ``b``; ``io_offsets[k]`` for ``problem.io[k]``;
    ``arena_bytes`` the (aligned) end of the arena buffers; ``algorithm`` the
    variant that made it (``best`` names its winner)."""

    problem: MemoryProblem
    offsets: list[int]
    algorithm: str
    arena_bytes: int = 0
    io_offsets: list[int] = attrs.Factory(list)

    def __attrs_post_init__(self) -> None:
        bufs = self.problem.buffers
        end = max((o + b.size for o, b in zip(self.offsets, bufs)), default=0)
        self.arena_bytes = align(end, self.problem.alignment)
        io = self.problem.io
        order = sorted(range(len(io)), key=lambda k: (io[k].is_input, -io[k].size if io[k].is_input else 0, k))
        self.io_offsets = [0] * len(io)
        pos = self.arena_bytes
        for k in order:
            self.io_offsets[k] = pos
            pos += align(io[k].size, self.problem.alignment)

    @property
    def zero_copy_bytes(self) -> int:
        return sum(align(b.size, self.problem.alignment) for b in self.problem.io)

    def offset_of(self, buffer_id: int, io: bool = False) -> int:
        return self.io_offsets[buffer_id] if io else self.offsets[buffer_id]


def _variants(problem: MemoryProblem, algorithm: str) -> list[tuple[str, list[int]]]:
    bufs, conflicts = problem.buffers, problem.conflicts
    ge = [("ge-blocks(binary)", ge_blocks(problem)), ("ge-blocks(max)", ge_blocks(problem, max_block=True))]
    if algorithm == "ge-blocks":
        return ge  # HybridMemAssigner: the smaller of the two
    greedy = [("greedy-by-size", greedy_by_size(bufs, conflicts))]
    if algorithm == "greedy-by-size":
        return greedy
    return greedy + [("greedy-by-size(first-fit)", greedy_by_size(bufs, conflicts, first_fit=True))] + ge


def plan_arena(problem: MemoryProblem, algorithm: str = "greedy-by-size",
               extra: Sequence[tuple[str, list[int]]] = ()) -> ArenaPlan:
    """The plan of ``problem`` by ``algorithm`` (one of :data:`ALGORITHMS`); with
    several variants, the smallest arena (the first on ties). ``extra`` are
    more (name, offsets) candidates, used only where valid for ``problem``."""
    best: ArenaPlan | None = None
    for name, offsets in _variants(problem, algorithm) + list(extra):
        plan = ArenaPlan(problem, offsets, name)
        if (name, offsets) in extra and overlaps(plan):
            continue
        if best is None or plan.arena_bytes < best.arena_bytes:
            best = plan
    assert best is not None
    return best


def overlaps(plan: ArenaPlan) -> list[tuple[int, int]]:
    """The conflicting buffer pairs whose bytes overlap (empty for a valid plan)."""
    bad = []
    bufs = plan.problem.buffers
    for a, others in enumerate(plan.problem.conflicts):
        for b in others:
            if a < b and bufs[a].size and bufs[b].size:
                oa, ob = plan.offsets[a], plan.offsets[b]
                if oa < ob + bufs[b].size and ob < oa + bufs[a].size:
                    bad.append((a, b))
    return bad
