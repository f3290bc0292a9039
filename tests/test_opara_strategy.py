"""``partition-streams{strategy=opara}``: Opara's stream allocation (icloud-ecnu/Opara
``Opara/StreamAllocator.py``). Its chains are a cover of the graph by node-disjoint
paths, each op following the first of its producers, in operand order, that no op
followed yet; over ``max-streams`` they are merged by load as ``chain-cover``'s are.
(That the plans run race-free and equal the interpreter is ``test_streams.py``'s.)"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from geir.operation import OpResult
from geir.parser import parse_module
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.strategies.opara import chains, plan
from scheduling_graphs import dags, random_dag_text


def _problem(text: str, max_streams: int = 64) -> ScheduleProblem:
    return ScheduleProblem.build(OpGraph.build(next(parse_module(text, "dag.mlir").graphs())), max_streams)


@settings(max_examples=60, deadline=None)
@given(dags(2, 30))
def test_the_chains_are_opara_s_greedy_path_cover(dag: tuple[int, int]) -> None:
    problem = _problem(random_dag_text(*dag))
    g = problem.graph
    cover = chains(problem)
    nodes = [i for c in cover for i in c]
    assert sorted(nodes) == list(range(g.n))  # every op once
    index = {id(op): i for i, op in enumerate(g.ops)}
    chain_of = {i: k for k, c in enumerate(cover) for i in c}
    followed: set[int] = set()
    for i in range(g.n):  # replay Opara's rule in block order
        producers = [index[id(v.op)] for v in g.ops[i].operands if isinstance(v, OpResult) and id(v.op) in index]
        first = next((p for p in producers if p not in followed), None)
        chain = cover[chain_of[i]]
        if first is None:
            assert chain[0] == i, "an op with every producer followed opens a stream"
        else:
            followed.add(first)
            assert chain[chain.index(i) - 1] == first, "an op follows its first producer not yet followed"


@settings(max_examples=30, deadline=None)
@given(dags(2, 30), st.integers(1, 4))
def test_over_the_budget_the_chains_are_merged_whole(dag: tuple[int, int], max_streams: int) -> None:
    problem = _problem(random_dag_text(*dag), max_streams)
    streams = plan(problem).streams
    assert len(set(streams)) <= max_streams
    for chain in chains(problem):
        assert len({streams[i] for i in chain}) == 1
