"""A graph's width (its largest antichain, Dilworth's n minus a maximum matching
of the transitive closure) and the bitset matching it rests on."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import geir
from geir.passes.scheduling.matching import maximum_matching, maximum_matching_size_of_bitsets
from geir.passes.scheduling.op_graph import OpGraph

from scheduling_graphs import dags, random_dag_text


def _graph(text: str) -> OpGraph:
    module = geir.parse(text)
    return OpGraph.build(next(op for op in module.body.ops if op.name == "ge.graph"))


@st.composite
def bipartite_graphs(draw: st.DrawFn) -> list[int]:
    n = draw(st.integers(0, 24))
    density = draw(st.floats(0.0, 1.0))
    rng = random.Random(draw(st.integers(0, 2**31 - 1)))
    return [sum(1 << b for b in range(n) if rng.random() < density) for _ in range(n)]


@given(bipartite_graphs())
def test_the_bitset_matching_is_as_large_as_hopcroft_karps(rows: list[int]) -> None:
    adjacency = [[b for b in range(len(rows)) if row >> b & 1] for row in rows]
    expected = sum(1 for m in maximum_matching(len(rows), len(rows), adjacency) if m >= 0)
    assert maximum_matching_size_of_bitsets(rows) == expected


def _largest_antichain(g: OpGraph) -> int:
    reach = g.reach()
    ordered = [[bool(reach[b] >> a & 1 or reach[a] >> b & 1) for b in range(g.n)] for a in range(g.n)]
    for size in range(g.n, 0, -1):
        for nodes in itertools.combinations(range(g.n), size):
            if not any(ordered[a][b] for a, b in itertools.combinations(nodes, 2)):
                return size
    return 0


@settings(max_examples=60, deadline=None)
@given(dags(min_ops=1, max_ops=11))
def test_the_width_is_the_largest_set_of_nodes_no_path_orders(dag: tuple[int, int]) -> None:
    g = _graph(random_dag_text(*dag, engines=False))
    assert g.width() == (_largest_antichain(g), True)


def test_the_width_of_long_parallel_chains_is_their_number() -> None:
    # 3 chains of 900 ops: a closure of over a million pairs
    t = "tensor<4xf32>"
    lines = [f"ge.graph @main(%x: {t}) -> ({t}, {t}, {t}) {{"]
    for c in range(3):
        prev = "x"
        for i in range(900):
            lines.append(f"  %c{c}_{i} = ge.relu %{prev} : ({t}) -> {t}")
            prev = f"c{c}_{i}"
    lines.append(f"  ge.return %c0_899, %c1_899, %c2_899 : ({t}, {t}, {t}) -> ()")
    lines.append("}")
    g = _graph("\n".join(lines) + "\n")
    assert g.n == 2700
    assert g.width() == (3, True)
