"""Rewrite patterns and the greedy driver that applies them to a fixed point
(MLIR's ``applyPatternsGreedily``)."""

from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

from geir.operation import Operation
from geir.rewriter import Rewriter

__all__ = ["RewritePattern", "apply_patterns_greedily"]


class RewritePattern:
    """A local rewrite. ``op_names`` limits which ops it is tried on (None: all)."""

    op_names: frozenset[str] | None = None

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        """Rewrite ``op`` and return True, or leave the IR alone and return False."""
        raise NotImplementedError


def apply_patterns_greedily(ops: Iterable[Operation], patterns: Sequence[RewritePattern],
                            max_rewrites: int = 1_000_000) -> bool:
    """Apply ``patterns`` to ``ops`` and to every op a rewrite touches, until none
    applies. Returns whether anything changed."""
    worklist: deque[Operation] = deque()
    queued: set[Operation] = set()

    def push(op: Operation) -> None:
        if op not in queued:
            queued.add(op)
            worklist.append(op)

    for op in ops:
        push(op)
    rewriter = Rewriter(listener=push)
    by_name: dict[str, list[RewritePattern]] = {}
    generic = [p for p in patterns if p.op_names is None]
    for p in patterns:
        for n in p.op_names or ():
            by_name.setdefault(n, []).append(p)
    rewrites = 0
    changed = False
    while worklist and rewrites < max_rewrites:
        op = worklist.popleft()
        queued.discard(op)
        if op.parent is None:  # erased meanwhile
            continue
        for p in (*by_name.get(op.name, ()), *generic):
            if p.match_and_rewrite(op, rewriter):
                rewrites += 1
                changed = True
                break
    return changed
