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
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Sequence

from geir.passes.memory.lifetimes import Buffer

__all__ = ["ge_blocks", "size_classes"]


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


def ge_blocks(buffers: Sequence[Buffer], stream_of_node: Sequence[int], alignment: int = 512,
              max_block: bool = False) -> list[int]:
    """An offset per buffer (by id): GE's level-1 block reuse (see the module doc)."""
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
    starts, end = [], 0
    for size in block_size:
        starts.append(end)
        end += size
    return [starts[k] if k >= 0 else 0 for k in block_of]
