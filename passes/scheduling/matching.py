"""Maximum bipartite matching (Hopcroft-Karp), through SciPy's compiled
implementation: chain covers (Nimble's stream assignment) and Dilworth widths
are matchings over graphs with up to millions of edges, too many for Python."""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["maximum_matching"]


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
