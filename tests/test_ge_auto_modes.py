"""GE's automatic multi-stream modes (``ge.autoMultistreamParallelMode``) as a
specification: the option is parsed as GE parses it; over random DAGs the DAG
modes keep within their N streams (labels apart), put every chain of the path
cover on one stream and every label on one stream of its own, and use no more
streams than the cover has chains; ``MainStream`` keeps ops that are alone on
their level on stream 0; ``cv`` moves only vector-core ops, and the program each
mode becomes runs race-free."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import VECTOR
from geir.backends.emulator import EmulatorOptions, emulate
from geir.parser import parse_module
from geir.passes.lower_to_tasks import graph_task_list
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.strategies.ge_auto_multistream import (AutoMultistreamMode, ModeError, _path_cover,
                                                                   _residual, cv_vector_nodes, parse_mode, plan_dag)

from scheduling_graphs import dags, random_dag_text

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_VALID = re.compile(r"cv|(LoadBalance|MainStream|WeightedLoadBalance):([1-9]|[1-5][0-9]|6[0-4])")


def _problem(text: str, max_streams: int = 8) -> ScheduleProblem:
    module = parse_module(text, "dag.mlir")
    PassManager(parse_pipeline("assign-engines")).run(module)
    return ScheduleProblem.build(OpGraph.build(next(module.graphs())), max_streams)


# ------------------------------------------------------------------ the option

@pytest.mark.parametrize(("text", "reason"), [
    ("LoadBalance", "one colon"), ("MainStream:4:2", "one colon"), ("Balance:4", "strategy must be"),
    ("LoadBalance:0", "[1, 64]"), ("LoadBalance:65", "[1, 64]"), ("MainStream:-1", "[1, 64]"),
    ("MainStream:", "[1, 64]"), ("LoadBalance: 4", "[1, 64]"), ("default", "graph attribute"),
])
def test_invalid_modes_give_ges_reason(text: str, reason: str) -> None:
    with pytest.raises(ModeError, match=re.escape(reason)):
        parse_mode(text)


@given(st.one_of(st.text(max_size=16), st.builds(lambda s, n: f"{s}:{n}",
                                                  st.sampled_from(["LoadBalance", "MainStream", "WeightedLoadBalance",
                                                                   "loadbalance"]),
                                                  st.integers(-3, 70))))
def test_a_mode_is_valid_exactly_when_ge_accepts_it(text: str) -> None:
    if text == "":
        assert parse_mode(text) is None
    elif _VALID.fullmatch(text):
        mode = parse_mode(text)
        assert mode is not None and str(mode) == text
    else:
        with pytest.raises(ModeError):
            parse_mode(text)


# ------------------------------------------------------------------ the DAG modes

@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(2, 30), st.integers(1, 6), st.sampled_from(["LoadBalance", "MainStream", "WeightedLoadBalance"]),
       st.integers(0, 2))
def test_dag_modes_keep_chains_labels_and_the_budget(dag: tuple[int, int], n: int, kind: str, labels: int) -> None:
    problem = _problem(random_dag_text(*dag, labels=labels))
    plan = plan_dag(problem, AutoMultistreamMode(kind, n))
    nodes, succs = _residual(problem)  # the weighted unlabelled ops, and GE's NetOutput (index n) last
    routes = _path_cover(succs)
    assert sorted(k for r in routes for k in r) == list(range(len(nodes)))  # a cover
    for r in routes:  # each chain is a path of the residual graph, its ops on one stream
        assert all(b in succs[a] for a, b in zip(r, r[1:]))
        assert len({plan.streams[nodes[k]] for k in r if nodes[k] < problem.n}) <= 1
    free = {plan.streams[i] for i in range(problem.n) if problem.labels[i] is None}
    assert len(free) <= min(n, len(routes))
    by_label: dict[str, set[int]] = {}
    for i, label in enumerate(problem.labels):
        if label is not None:
            by_label.setdefault(label, set()).add(plan.streams[i])
    assert all(len(s) == 1 for s in by_label.values())
    label_streams = [next(iter(s)) for s in by_label.values()]
    assert len(set(label_streams)) == len(label_streams) and not free & set(label_streams)


@SETTINGS
@given(dags(2, 30), st.integers(2, 6))
def test_main_stream_keeps_ops_alone_on_their_level_on_stream_0(dag: tuple[int, int], n: int) -> None:
    problem = _problem(random_dag_text(*dag))
    plan = plan_dag(problem, AutoMultistreamMode("MainStream", n))
    nodes, succs = _residual(problem)
    level = [0] * len(nodes)
    for v in range(len(nodes)):  # residual nodes are in a topological order
        for w in succs[v]:
            level[w] = max(level[w], level[v] + 1)
    width = {lv: level.count(lv) for lv in set(level)}
    # a chain that starts on a level of one node, or holds only such nodes, is on stream 0
    for r in _path_cover(succs):
        tasks = [nodes[k] for k in r if nodes[k] < problem.n]
        if tasks and (width[level[r[0]]] == 1 or all(width[level[k]] == 1 for k in r)):
            assert {plan.streams[i] for i in tasks} == {0}


def test_a_chain_is_one_stream_in_every_dag_mode() -> None:
    t = "tensor<4x64xf32>"
    body = "".join(f"  %v{i} = ge.relu %{'x' if i == 0 else f'v{i - 1}'} : ({t}) -> {t}\n" for i in range(6))
    problem = _problem(f"ge.graph @chain(%x: {t}) -> ({t}) {{\n{body}  ge.return %v5 : ({t}) -> ()\n}}\n")
    for kind in ("LoadBalance", "MainStream", "WeightedLoadBalance"):
        assert set(plan_dag(problem, AutoMultistreamMode(kind, 8)).streams) == {0}


# ------------------------------------------------------------------ cv

@SETTINGS
@given(dags(2, 24))
def test_cv_moves_only_vector_ops(dag: tuple[int, int]) -> None:
    problem = _problem(random_dag_text(*dag, engines=False))
    assert all(problem.pools[i] == VECTOR for i in cv_vector_nodes(problem))


@pytest.mark.parametrize("mode", ["cv", "LoadBalance:3", "MainStream:3", "WeightedLoadBalance:3"])
def test_each_mode_runs_race_free(mode: str) -> None:
    module = parse_module(random_dag_text(24, 7, labels=1), "dag.mlir")
    pipeline = f"assign-engines,partition-streams{{strategy=ge multi-stream-parallel-mode={mode}}},insert-events"
    PassManager(parse_pipeline(pipeline)).run(module)
    report = emulate(graph_task_list(next(module.graphs())), None,
                     EmulatorOptions(timing_only=True, progress=False)).report
    assert report["races"] == [] and not report["deadlock"]


def test_the_named_strategies_are_the_modes_with_n_max_streams() -> None:
    text = random_dag_text(20, 3)
    for strategy, mode in (("ge-load-balance", "LoadBalance:3"), ("ge-main-stream", "MainStream:3"),
                           ("ge-weighted-load-balance", "WeightedLoadBalance:3"), ("ge-cv", "cv")):
        a, b = parse_module(text, "a.mlir"), parse_module(text, "b.mlir")
        PassManager(parse_pipeline(f"assign-engines,partition-streams{{strategy={strategy} max-streams=3}}")).run(a)
        PassManager(parse_pipeline("assign-engines,partition-streams{strategy=ge max-streams=3 "
                                   f"multi-stream-parallel-mode={mode}}}")).run(b)
        streams = [[op.get_attr("stream") for op in next(m.graphs()).regions[0].blocks[0].ops] for m in (a, b)]
        assert streams[0] == streams[1]
