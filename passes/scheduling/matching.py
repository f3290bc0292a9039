"""Maximum bipartite matchings: chain covers (Nimble's stream assignment) over a
graph's sparse edges, through SciPy's compiled Hopcroft-Karp; Dilworth widths
over a transitive closure, whose millions of edges are bitsets."""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["maximum_matching", "maximum_matching_size_of_bitsets"]


def maximum_matching(n_left: int, n_right: int, adjacency: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of the bipartite graph whose left vertex ``i`` is
    adjacent to the right vertices ``adjacency[i]``: for each left vertex, its
    matched right vertex or -1."""
    if n_left == 0:
        return []
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching
    indptr = np.zeros(n_left + 1, dtype=np.int64)
    for i, adj in enumerate(adjacency):
        indptr[i + 1] = indptr[i] + len(adj)
    if indptr[-1] == 0:
        return [-1] * n_left
    indices = np.fromiter((j for adj in adjacency for j in adj), dtype=np.int32, count=int(indptr[-1]))
    graph = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n_left, n_right))
    match = maximum_bipartite_matching(graph, perm_type="column")
    return [int(m) for m in match]


def maximum_matching_size_of_bitsets(adjacency: Sequence[int]) -> int:
    """The size of a maximum matching of the bipartite graph whose left vertex
    ``i`` is adjacent to the right vertices in the bitset ``adjacency[i]`` (a
    Python int), over as many right vertices as left ones.

    Kuhn's augmenting paths, breadth first, a whole set of right vertices per
    step: a transitive closure's rows are dense (millions of edges for a few
    thousand nodes), and each row costs one bitwise operation here. A greedy
    pass first matches each left vertex to its lowest free right one. A search
    that fails leaves the right vertices it saw useless until the next
    augmentation, so later searches skip them."""
    n = len(adjacency)
    mate_of_left = [-1] * n
    mate_of_right = [-1] * n
    free_right = (1 << n) - 1
    size = 0
    for a, row in enumerate(adjacency):
        candidates = row & free_right
        if candidates:
            b = (candidates & -candidates).bit_length() - 1
            mate_of_left[a], mate_of_right[b] = b, a
            free_right ^= 1 << b
            size += 1
    dead = 0  # right vertices a failed search saw since the last augmentation
    for u in range(n):
        if mate_of_left[u] >= 0:
            continue
        seen = dead
        reached_from: dict[int, int] = {}  # right vertex -> the left vertex that reached it
        frontier = [u]
        found = -1
        while frontier and found < 0:
            ahead: list[int] = []
            for x in frontier:
                candidates = adjacency[x] & ~seen
                if not candidates:
                    continue
                free = candidates & free_right
                if free:
                    found = (free & -free).bit_length() - 1
                    reached_from[found] = x
                    break
                seen |= candidates
                while candidates:
                    low = candidates & -candidates
                    b = low.bit_length() - 1
                    candidates ^= low
                    reached_from[b] = x
                    ahead.append(mate_of_right[b])
            frontier = ahead
        if found < 0:
            dead = seen
            continue
        free_right ^= 1 << found
        b = found
        while True:  # flip the path's edges back to u
            x = reached_from[b]
            before = mate_of_left[x]
            mate_of_left[x], mate_of_right[b] = b, x
            if x == u:
                break
            b = before
        size += 1
        dead = 0
    return size
