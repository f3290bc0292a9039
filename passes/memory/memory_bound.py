"""The lower bound of a schedule's arena: the heaviest set of buffers that some
execution respecting its happens-before order keeps live at once.

"``a`` is dead before ``b`` is defined" is a partial order on buffers
(:meth:`MemoryProblem.ordered`); two buffers conflict exactly when it orders
neither, so a set of pairwise conflicting buffers — which any plan must give
disjoint bytes — is an antichain, and the heaviest antichain is a bound no plan
beats. It is exact and polynomial (weighted Dilworth): the total weight minus a
maximum flow through the bipartite comparability graph, and the antichain is
read off the minimum cut (XLA's heap simulator gives the same figure for one
total order; with several streams the partial order is what counts).

Past :data:`EXACT_LIMIT` buffers the bound falls back to the most bytes live at
once in the block order — a valid execution, so still a lower bound, but for
several streams a weaker one; ``exact`` says which.
"""

from __future__ import annotations

import attrs
import numpy as np

from geir.passes.memory.lifetimes import MemoryProblem

__all__ = ["MemoryBound", "lower_bound", "EXACT_LIMIT"]

#: the most buffers for which the exact bound (a flow over up to n^2 edges) is computed
EXACT_LIMIT = 2500


@attrs.define
class MemoryBound:
    """``bytes`` is the bound; ``live`` the ids of a buffer set reaching it;
    ``exact`` whether it is the heaviest antichain (else the block-order peak)."""

    bytes: int
    live: list[int]
    exact: bool


def lower_bound(problem: MemoryProblem, exact_limit: int = EXACT_LIMIT) -> MemoryBound:
    """The lower bound of ``problem``'s arena (see the module doc)."""
    buffers = [b for b in problem.buffers if b.size > 0]
    if not buffers:
        return MemoryBound(0, [], True)
    if len(buffers) > exact_limit:
        return _block_order_peak(problem)
    return _heaviest_antichain(problem)


def comparability(problem: MemoryProblem, ids: list[int]) -> np.ndarray:
    """``rel[i, j]``: buffer ``ids[i]`` is dead before buffer ``ids[j]`` is defined."""
    order = problem.order
    bufs = [problem.buffers[k] for k in ids]
    free = np.array([b.free for b in bufs], dtype=np.int64).reshape(len(bufs), order.num_streams)
    define = np.array([b.define for b in bufs], dtype=np.int64)
    is_node = define >= 0
    stream = np.array([order.stream[d] if d >= 0 else 0 for d in define], dtype=np.int64)
    rank = np.array([order.rank[d] if d >= 0 else -1 for d in define], dtype=np.int64)
    rel = free[:, stream] <= rank[None, :]
    rel &= define[:, None] < define[None, :]
    rel &= is_node[None, :]
    return rel


def _heaviest_antichain(problem: MemoryProblem) -> MemoryBound:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow
    ids = [b.id for b in problem.buffers if b.size > 0]
    n = len(ids)
    unit = problem.alignment if all(problem.buffers[k].size % problem.alignment == 0 for k in ids) else 1
    w = np.array([problem.buffers[k].size // unit for k in ids], dtype=np.int64)
    total = int(w.sum())
    if total >= 2 ** 31 - 1:  # capacities are int32 in scipy: coarsen (still a bound after rounding down)
        scale = -(-total // (2 ** 30))
        unit *= scale
        w = w // scale
        total = int(w.sum())
    rel = comparability(problem, ids)
    src, snk = 0, 2 * n + 1
    li, rj = np.nonzero(rel)
    rows = np.concatenate([np.zeros(n, np.int64), 1 + li, 1 + n + np.arange(n)])
    cols = np.concatenate([1 + np.arange(n), 1 + n + rj, np.full(n, snk)])
    caps = np.concatenate([w, np.full(len(li), total + 1), w]).astype(np.int32)
    graph = coo_matrix((caps, (rows, cols)), shape=(2 * n + 2, 2 * n + 2)).tocsr()
    result = maximum_flow(graph, src, snk)
    residual = (graph - result.flow).tocsr()
    residual.data[residual.data < 0] = 0
    residual.eliminate_zeros()
    reached = np.zeros(2 * n + 2, dtype=bool)
    reached[breadth_first_order(residual, src, directed=True, return_predecessors=False)] = True
    chosen = [ids[i] for i in range(n) if reached[1 + i] and not reached[1 + n + i]]
    size = sum(problem.buffers[k].size for k in chosen)
    return MemoryBound(size, chosen, True)


def _block_order_peak(problem: MemoryProblem) -> MemoryBound:
    n = problem.order.n
    events: list[tuple[int, int, int]] = []  # (position, delta, buffer); frees (-) sort first
    for b in problem.buffers:
        if b.size == 0:
            continue
        end = n if b.live_out else max(b.uses, default=b.define)
        events.append((b.define, b.size, b.id))
        events.append((end + 1, -b.size, b.id))
    events.sort()
    live, peak, at = 0, 0, -2
    for pos, delta, _ in events:
        live += delta
        if live > peak:
            peak, at = live, pos
    chosen = [b.id for b in problem.buffers if b.size and b.define <= at <= (n if b.live_out else
                                                                           max(b.uses, default=b.define))]
    return MemoryBound(peak, chosen, False)
