"""GE's block memory assigner, as the baseline ``reuse-memory{algorithm=ge-blocks}``
(``BinaryBlockMemAssigner`` / ``MaxBlockMemAssigner`` under ``HybridMemAssigner``,
level-1 reuse: reference ge-internals.md §4).

Sizes fall into classes (GE's "ranges": power-of-two ceilings halving down from
the largest size, empty ones dropped; max-block has one class). Nodes are
visited in block order; each takes a block for each output — the last released
block of its class *on its own stream* if there is one, else a new block — and
then releases the blocks whose last use it was. A block grows to the largest
tensor it hosts and blocks are laid out one after the other.

Only blocks used by one stream are released (GE's level-1 reuse is same-stream
only, and a buffer used by several streams has an unbounded life without the
level-2 edge analysis); graph inputs are never reused ("no post-reuse") and
graph outputs live to the end. Same-stream release in block order is safe:
every use precedes the new definition in that stream's queue.

Level 2 (``ReuseBlocksByLifeTime``): the blocks, largest first, then each
block becomes a child of an earlier one of at least its size when the two
lifetimes do not overlap — here: every tensor of one is dead before any of the
other is defined, under the schedule's happens-before, which is what GE's
cross-stream edge tables approximate. Skipped past :data:`LIFE_REUSE_LIMIT`
blocks (it compares blocks pairwise).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Sequence

from geir.passes.memory.happens_before import StreamOrder
from geir.passes.memory.lifetimes import Buffer, MemoryProblem

__all__ = ["ge_blocks", "size_classes", "LIFE_REUSE_LIMIT"]

#: the most level-1 blocks level-2 reuse compares
LIFE_REUSE_LIMIT = 2000


def size_classes(sizes: Sequence[int], alignment: int = 512) -> list[int]:
    """GE's binary ranges: the ceilings ``max, max/2, ...`` (down to the
    alignment) that some size falls under, ascending."""
    positive = [s for s in sizes if s > 0]
    if not positive:
        return []
    top = max(positive)
    ceilings = [top]
    while ceilings[-1] // 2 >= alignment and ceilings[-1] // 2 >= min(positive):
        ceilings.append(ceilings[-1] // 2)
    ceilings.reverse()
    used = {next(c for c in ceilings if c >= s) for s in positive}
    return [c for c in ceilings if c in used]


def ge_blocks(problem: MemoryProblem, max_block: bool = False, life_reuse: bool = True) -> list[int]:
    """An offset per buffer (by id): GE's level-1 block reuse, then level 2
    with ``life_reuse`` (see the module doc)."""
    buffers, stream_of_node, alignment = problem.buffers, problem.order.stream, problem.alignment
    classes = [max((b.size for b in buffers), default=0)] if max_block else size_classes([b.size for b in buffers],
                                                                                       alignment)

    def class_of(size: int) -> int:
        k = bisect_left(classes, size)
        return classes[k] if k < len(classes) else (classes[-1] if classes else 0)

    block_of = [-1] * len(buffers)
    block_size: list[int] = []
    free: dict[tuple[int, int], list[int]] = {}
    defined: dict[int, list[Buffer]] = {}
    released: dict[int, list[Buffer]] = {}
    for b in buffers:
        if b.size == 0:
            continue
        if b.is_input:
            block_of[b.id] = len(block_size)
            block_size.append(b.size)
            continue
        defined.setdefault(b.define, []).append(b)
        if not b.live_out and len({stream_of_node[u] for u in b.uses}) == 1:
            released.setdefault(max(b.uses), []).append(b)
    for i in range(len(stream_of_node)):
        for b in defined.get(i, ()):
            stack = free.get((b.stream, class_of(b.size)))
            if stack:
                k = stack.pop()  # last released first (GE's default pick order)
                block_size[k] = max(block_size[k], b.size)
            else:
                k = len(block_size)
                block_size.append(b.size)
            block_of[b.id] = k
        for b in released.get(i, ()):
            free.setdefault((b.stream, class_of(b.size)), []).append(block_of[b.id])
    members: list[list[int]] = [[] for _ in block_size]
    for b, k in enumerate(block_of):
        if k >= 0:
            members[k].append(b)
    slot = _life_reuse(problem, members, block_size) if life_reuse and len(block_size) <= LIFE_REUSE_LIMIT \
        else list(range(len(block_size)))
    starts: dict[int, int] = {}
    end = 0
    for k, size in enumerate(block_size):
        if slot[k] == k:  # a host: its own bytes; children start where it does
            starts[k] = end
            end += size
    return [starts[slot[k]] if k >= 0 else 0 for k in block_of]


class _Group:
    """What ordering a set of buffers against another needs, in O(streams):
    the extremes of their definitions, of their per-stream free positions and
    of their producers' queue positions per stream."""

    def __init__(self, problem: MemoryProblem, ids: list[int]) -> None:
        order, bufs = problem.order, problem.buffers
        n = order.num_streams
        self.free = [0] * n
        self.rank = [INF] * n  # the earliest producer per stream (-1 for an input: nothing comes before it)
        self.first: float = INF
        self.last: float = -INF
        for k in ids:
            self.add(bufs[k], order)

    def add(self, b: Buffer, order: StreamOrder) -> None:
        self.first = min(self.first, b.define)
        self.last = max(self.last, b.define)
        self.free = [max(f, g) for f, g in zip(self.free, b.free)]
        if b.is_input:
            self.rank = [-1] * len(self.rank)
        else:
            s = order.stream[b.define]
            self.rank[s] = min(self.rank[s], order.rank[b.define])

    def merge(self, other: "_Group") -> None:
        self.first, self.last = min(self.first, other.first), max(self.last, other.last)
        self.free = [max(f, g) for f, g in zip(self.free, other.free)]
        self.rank = [min(r, q) for r, q in zip(self.rank, other.rank)]

    def before(self, other: "_Group") -> bool:
        """Whether every buffer here is dead before any of ``other`` is defined."""
        return self.last < other.first and all(f <= r for f, r in zip(self.free, other.rank))


INF = float("inf")


def _life_reuse(problem: MemoryProblem, members: list[list[int]], block_size: list[int]) -> list[int]:
    """For each block, the host block whose bytes it takes (itself when none)."""
    slot = list(range(len(block_size)))
    groups = [_Group(problem, m) for m in members]
    hosted: dict[int, _Group] = {}  # host -> what its bytes hold so far
    order = sorted(range(len(block_size)), key=lambda k: (-block_size[k], min(members[k], default=0)))
    hosts: list[int] = []
    for k in order:
        g = groups[k]
        fits = sorted((h for h in hosts if block_size[h] >= block_size[k]), key=lambda h: block_size[h])
        host = next((h for h in fits if hosted[h].before(g) or g.before(hosted[h])), None)
        if host is None:
            hosts.append(k)
            hosted[k] = g
        else:
            slot[k] = host
            hosted[host].merge(g)
    return slot
