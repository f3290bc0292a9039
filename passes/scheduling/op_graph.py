"""The tasks of one ``ge.graph`` as a DAG: what every scheduling pass reasons over.

A *node* is an op that becomes a device task when the graph is lowered: every op
of the graph's block except constants (they live in the weight space), ``ge.none``,
the terminator and the synchronisation ops. Node ``i`` is the ``i``-th such op in
block order, which is a topological order (the verifier checks dominance).

Edges are the data dependencies between nodes — an operand produced by another
node, also when it is read inside the node's regions — plus one ordering edge
between consecutive collectives (HCCL ops must be issued in the same order on
every rank, so no schedule may swap two of them).
"""

from __future__ import annotations

from typing import Iterator

import attrs

from geir.constants import CONSTANT_OPS
from geir.operation import Block, Operation, OpResult, Value

__all__ = ["OpGraph", "NON_TASK_OPS", "SYNC_OPS", "is_node", "first_sync_op"]

#: ops of a graph block that never become a device task
NON_TASK_OPS = CONSTANT_OPS | {"ge.none", "ge.return"}
#: the synchronisation ops insert-events adds (and lowering turns into records/waits)
SYNC_OPS = frozenset({"ge.record_event", "ge.wait_event"})

#: above this many nodes, bitset reachability (n^2 bits) is not built
REACHABILITY_LIMIT = 20000


def is_node(op: Operation) -> bool:
    """Whether ``op`` (an op of a graph's block) becomes a device task."""
    return op.name not in NON_TASK_OPS and op.name not in SYNC_OPS


def first_sync_op(block: Block) -> Operation | None:
    """The first record/wait op of ``block``: a graph that has one is already
    synchronised, which partition-streams and insert-events refuse."""
    return next((op for op in block.ops if op.name in SYNC_OPS), None)


def _outer_values(op: Operation) -> Iterator[Value]:
    """Values ``op`` reads: its operands and what its regions read from outside."""
    yield from op.operands
    if op.regions:
        inner: set[int] = {id(op)}
        for nested in op.walk():
            inner.add(id(nested))
        for nested in op.walk():
            if nested is op:
                continue
            for v in nested.operands:
                if isinstance(v, OpResult) and id(v.op) not in inner:
                    yield v


@attrs.define(eq=False)
class OpGraph:
    """The node DAG of one graph. ``preds``/``succs`` hold node indices, sorted."""

    graph: Operation
    block: Block
    ops: list[Operation]
    preds: list[list[int]]
    succs: list[list[int]]
    _reach: list[int] | None = None

    @classmethod
    def build(cls, graph: Operation) -> "OpGraph":
        """The node DAG of ``graph`` (a ``ge.graph``) in its current block order."""
        block = graph.regions[0].blocks[0]
        ops = [op for op in block.ops if is_node(op)]
        index = {id(op): i for i, op in enumerate(ops)}
        preds: list[list[int]] = []
        last_collective = -1
        for i, op in enumerate(ops):
            ps = set()
            for v in _outer_values(op):
                if isinstance(v, OpResult):
                    j = index.get(id(v.op))
                    if j is not None and j != i:
                        ps.add(j)
            if _is_collective(op):
                if last_collective >= 0:
                    ps.add(last_collective)
                last_collective = i
            preds.append(sorted(ps))
        succs: list[list[int]] = [[] for _ in ops]
        for i, ps in enumerate(preds):
            for j in ps:
                succs[j].append(i)
        return cls(graph, block, ops, preds, succs)

    @property
    def n(self) -> int:
        return len(self.ops)

    @property
    def num_edges(self) -> int:
        return sum(len(p) for p in self.preds)

    def edges(self) -> Iterator[tuple[int, int]]:
        """Every edge (producer, consumer)."""
        for i, ps in enumerate(self.preds):
            for j in ps:
                yield j, i

    def is_topological(self, order: list[int]) -> bool:
        """Whether ``order`` (a permutation of the nodes) puts every producer first."""
        if sorted(order) != list(range(self.n)):
            return False
        pos = [0] * self.n
        for k, i in enumerate(order):
            pos[i] = k
        return all(pos[j] < pos[i] for j, i in self.edges())

    def depths(self) -> list[int]:
        """The longest path (in edges) from a source to each node."""
        depth = [0] * self.n
        for i in range(self.n):
            for j in self.preds[i]:
                if depth[j] + 1 > depth[i]:
                    depth[i] = depth[j] + 1
        return depth

    # -------------------------------------------------------- reachability

    @property
    def has_reachability(self) -> bool:
        """Whether exact reachability is affordable (n^2 bits)."""
        return self.n <= REACHABILITY_LIMIT

    def reach(self) -> list[int]:
        """``reach()[i]`` is a bitset (a Python int) of the nodes that reach node i
        (i itself excluded). Built once, on demand; only for graphs up to
        :data:`REACHABILITY_LIMIT` nodes."""
        if self._reach is None:
            assert self.has_reachability, "reachability of a graph this large is not built"
            reach = [0] * self.n
            for i in range(self.n):
                r = 0
                for j in self.preds[i]:
                    r |= reach[j] | (1 << j)
                reach[i] = r
            self._reach = reach
        return self._reach

    def reaches(self, a: int, b: int) -> bool:
        """Whether there is a path from node a to node b (a != b)."""
        return bool(self.reach()[b] >> a & 1)

    def transitive_reduction(self) -> list[list[int]]:
        """Predecessor lists with every edge implied by a longer path removed
        (the minimum equivalent graph, which Nimble matches on)."""
        reach = self.reach()
        reduced: list[list[int]] = []
        for i, ps in enumerate(self.preds):
            # j -> i is implied when j reaches another predecessor of i
            covered = 0
            for k in ps:
                covered |= reach[k]
            reduced.append([j for j in ps if not covered >> j & 1])
        return reduced

    def width(self) -> tuple[int, bool]:
        """The size of a largest antichain (nodes no path orders), and whether it
        is exact. Exact (Dilworth: n minus a maximum matching of the transitive
        closure) when reachability is affordable (:data:`REACHABILITY_LIMIT`
        nodes); otherwise the largest set of nodes of equal depth, a lower bound."""
        by_depth: dict[int, int] = {}
        for d in self.depths():
            by_depth[d] = by_depth.get(d, 0) + 1
        level_width = max(by_depth.values(), default=0)
        if not self.has_reachability:
            return level_width, False
        from geir.passes.scheduling.matching import maximum_matching_size_of_bitsets
        # bipartite closure graph, left b -> right a when a reaches b: the transpose of
        # a -> b, whose maximum matchings are as large
        return self.n - maximum_matching_size_of_bitsets(self.reach()), True


def _is_collective(op: Operation) -> bool:
    d = op.definition
    return d is not None and d.engine == "HCCL"
