"""TFLite's *greedy by size* offset calculation (Pisarchyk & Lee 2020,
``greedy_by_size_assignment.h``), over our conflict graph instead of one total
order of tasks: buffers go in non-increasing size; each takes the smallest gap
between the already placed buffers it conflicts with that fits it (best fit),
else the first byte past all of them.

``first_fit`` is the variant that takes the lowest gap that fits instead of the
smallest one; ``best`` tries both.
"""

from __future__ import annotations

from typing import Sequence

from geir.passes.memory.lifetimes import Buffer

__all__ = ["greedy_by_size"]


def greedy_by_size(buffers: Sequence[Buffer], conflicts: Sequence[Sequence[int]], first_fit: bool = False) -> list[int]:
    """An offset per buffer (by id) such that conflicting buffers never overlap."""
    offsets = [-1] * len(buffers)
    # largest first; among equals, the earlier definition (TFLite keeps the
    # records' order), so a chain's buffers alternate predictably
    for b in sorted(buffers, key=lambda b: (-b.size, b.define, b.id)):
        if b.size == 0:
            offsets[b.id] = 0
            continue
        placed = sorted((offsets[o], offsets[o] + buffers[o].size) for o in conflicts[b.id]
                        if offsets[o] >= 0 and buffers[o].size)
        best, best_gap, prev_end = -1, None, 0
        for start, end in placed:
            gap = start - prev_end
            if gap >= b.size and (best_gap is None or gap < best_gap):
                best, best_gap = prev_end, gap
                if first_fit or gap == b.size:
                    break
            if end > prev_end:
                prev_end = end
        offsets[b.id] = best if best >= 0 else prev_end
    return offsets
