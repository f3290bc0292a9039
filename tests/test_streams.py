"""The multi-stream passes as a specification: for every strategy and stream
budget, the scheduled program runs race-free and deadlock-free on the emulator
and computes what the reference interpreter computes; the events insert-events
keeps order every dependency, and each one of them is needed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.interpreter import interpret
from geir.backends.rt_module import task_list_from_module
from geir.module import Module
from geir.parser import parse_module
from geir.printer import module_to_string
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.sync_plan import plan_sync
from scheduling_graphs import dags, random_dag_text

HEURISTICS = ("single", "ge", "chain-cover", "opara", "cost")
X = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)


def _schedule(text: str, strategy: str, max_streams: int, events: str = "") -> Module:
    module = parse_module(text, "dag.mlir")
    pipeline = f"assign-engines,partition-streams{{strategy={strategy} max-streams={max_streams}}},insert-events"
    PassManager(parse_pipeline(pipeline + (f"{{{events}}}" if events else ""))).run(module)
    return module


def _run(module: Module) -> tuple[dict, dict[str, np.ndarray] | None]:
    PassManager(parse_pipeline("lower-to-tasks")).run(module)
    result = emulate(task_list_from_module(module), {"x": X}, EmulatorOptions(progress=False))
    return result.report, result.outputs


def _expected(text: str) -> dict[str, np.ndarray]:
    return interpret(parse_module(text, "dag.mlir"), {"x": X})


def _assert_clean_and_equal(report: dict, outputs: dict[str, np.ndarray] | None,
                            expected: dict[str, np.ndarray]) -> None:
    assert report["races_total"] == 0, report["races"][:1]
    assert not report["deadlock"], report["deadlock"]
    assert outputs is not None
    for name, want in expected.items():
        np.testing.assert_allclose(outputs[name], want, rtol=1e-6, atol=1e-6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(), st.sampled_from(HEURISTICS), st.integers(1, 8))
def test_every_strategy_runs_race_free_and_equals_the_interpreter(dag: tuple[int, int], strategy: str,
                                                                 max_streams: int) -> None:
    text = random_dag_text(*dag)
    module = _schedule(text, strategy, max_streams)
    graph = next(module.graphs())
    streams = {op.get_attr("stream", 0) for op in graph.regions[0].blocks[0].ops if op.name != "ge.return"}
    if strategy != "ge":  # GE's own allocator may exceed the budget (labels, HCCL): it is the baseline
        assert len(streams) <= max_streams
    _assert_clean_and_equal(*_run(module), _expected(text))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(3, 9), st.integers(2, 4))
def test_optimal_schedules_run_race_free(dag: tuple[int, int], max_streams: int) -> None:
    text = random_dag_text(*dag)
    module = parse_module(text, "dag.mlir")
    PassManager(parse_pipeline(f"assign-engines,partition-streams{{strategy=optimal max-streams={max_streams} "
                               "time-limit=2},insert-events")).run(module)
    _assert_clean_and_equal(*_run(module), _expected(text))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(3, 12), st.sampled_from(("chain-cover", "opara", "cost", "ge")), st.integers(2, 6))
def test_every_kept_wait_is_needed(dag: tuple[int, int], strategy: str, max_streams: int) -> None:
    """Deleting any one wait (its record too) makes the emulator see a race or a wrong output."""
    text = random_dag_text(*dag)
    expected = _expected(text)
    scheduled = _schedule(text, strategy, max_streams, "reuse-ids=false")
    printed = module_to_string(scheduled)
    waits = [op.get_attr("event") for op in next(scheduled.graphs()).regions[0].blocks[0].ops
             if op.name == "ge.wait_event"]
    for event in waits:
        module = parse_module(printed, "dag.mlir")
        for op in list(next(module.graphs()).regions[0].blocks[0].ops):
            if op.name in ("ge.wait_event", "ge.record_event") and op.get_attr("event") == event:
                op.parent.unlink(op)  # type: ignore[union-attr]
        report, outputs = _run(module)
        broken = report["races_total"] > 0 or outputs is None or any(
            not np.allclose(outputs[k], v, rtol=1e-6, atol=1e-6) for k, v in expected.items())
        assert broken, f"event {event} of the {strategy} schedule is redundant"


@settings(max_examples=60, deadline=None)
@given(dags(2, 30), st.integers(1, 8), st.integers(0, 2**31 - 1))
def test_reduced_events_order_every_dependency(dag: tuple[int, int], streams: int, seed: int) -> None:
    """Under any stream assignment, the kept events plus stream order imply every edge."""
    import random
    og = OpGraph.build(next(parse_module(random_dag_text(*dag), "d.mlir").graphs()))
    rng = random.Random(seed)
    assign = [rng.randrange(streams) for _ in range(og.n)]
    sync = plan_sync(og.preds, assign, list(range(og.n)))
    # happens-before closure over (stream order + kept events), by node
    before: list[set[int]] = [set() for _ in range(og.n)]
    last: dict[int, int] = {}
    incoming: dict[int, list[int]] = {}
    for p, c in sync.events:
        incoming.setdefault(c, []).append(p)
    for i in range(og.n):
        s = assign[i]
        if s in last:
            before[i] |= before[last[s]] | {last[s]}
        for p in incoming.get(i, []):
            before[i] |= before[p] | {p}
        last[s] = i
    for p, c in og.edges():
        assert p in before[c], f"dependency {p} -> {c} is not ordered"
    assert len(sync.events) <= sync.cross_edges


def test_a_diamond_on_two_streams_needs_two_events() -> None:
    text = """
    ge.graph @main(%x: tensor<4x64xf32> {ge.name = "x"}) -> (tensor<4x64xf32> {ge.name = "y"}) {
      %a = ge.relu %x {stream = 0} : (tensor<4x64xf32>) -> tensor<4x64xf32>
      %b = ge.sigmoid %a {stream = 0} : (tensor<4x64xf32>) -> tensor<4x64xf32>
      %c = ge.tanh %a {stream = 1} : (tensor<4x64xf32>) -> tensor<4x64xf32>
      %d = ge.add %b, %c {stream = 0} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
      ge.return %d : (tensor<4x64xf32>) -> ()
    }"""
    og = OpGraph.build(next(parse_module(text, "d.mlir").graphs()))
    sync = plan_sync(og.preds, [0, 0, 1, 0], [0, 1, 2, 3])
    assert sync.events == [(0, 2), (2, 3)]
    assert sync.ids == [0, 0] or sync.ids == [0, 1]


def test_event_ids_are_reused_along_a_ping_pong_chain() -> None:
    """A chain alternating between two streams: every event's wait precedes the next record."""
    n = 12
    ops = []
    prev = "%x"
    for i in range(n):
        ops.append(f"  %v{i} = ge.relu {prev} {{stream = {i % 2}}} : (tensor<4x64xf32>) -> tensor<4x64xf32>")
        prev = f"%v{i}"
    text = ("ge.graph @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {\n" + "\n".join(ops)
            + f"\n  ge.return {prev} : (tensor<4x64xf32>) -> ()\n}}\n")
    og = OpGraph.build(next(parse_module(text, "d.mlir").graphs()))
    sync = plan_sync(og.preds, [i % 2 for i in range(n)], list(range(n)))
    assert len(sync.events) == n - 1
    assert sync.num_ids <= 2
    module = parse_module(text, "d.mlir")
    PassManager(parse_pipeline("insert-events,lower-to-tasks")).run(module)
    result = emulate(task_list_from_module(module), {"x": X}, EmulatorOptions(progress=False))
    assert result.clean
    np.testing.assert_allclose(list(result.outputs.values())[0], np.maximum(X, 0))


def test_long_streams_are_split_and_chained() -> None:
    text = random_dag_text(60, 1, engines=False)
    module = parse_module(text, "d.mlir")
    PassManager(parse_pipeline("partition-streams{strategy=single},insert-events{max-tasks-per-stream=20}"))\
        .run(module)
    block = next(module.graphs()).regions[0].blocks[0]
    counts: dict[int, int] = {}
    for op in block.ops:
        if op.name not in ("ge.return",):
            counts[op.get_attr("stream", 0)] = counts.get(op.get_attr("stream", 0), 0) + 1
    assert len(counts) >= 3 and max(counts.values()) <= 20
    _assert_clean_and_equal(*_run(module), _expected(text))


def _returning_chain(n: int, returned: list[int]) -> str:
    """A chain of ``n`` relus returning ``returned``: -1 the input, i the i-th op's
    result (repeats allowed: the second return of a value is a copy)."""
    t = "tensor<4x64xf32>"
    lines = [f"ge.graph @main(%x: {t} {{ge.name = \"x\"}}) -> ({', '.join([t] * len(returned))}) {{"]
    prev = "%x"
    for i in range(n):
        lines.append(f"  %v{i} = ge.relu {prev} : ({t}) -> {t}")
        prev = f"%v{i}"
    values = ", ".join("%x" if r < 0 else f"%v{r}" for r in returned)
    lines.append(f"  ge.return {values} : ({', '.join([t] * len(returned))}) -> ()")
    lines.append("}")
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), limit=st.integers(4, 16), data=st.data())
def test_split_streams_hold_their_copies_and_no_more_parts_than_needed(n: int, limit: int,
                                                                       data: st.DataObject) -> None:
    """Lowered, every stream holds at most ``max-tasks-per-stream`` tasks, its output
    copies and end-of-graph task included (when the copies that land on one op's
    stream fit a part), and a chain takes no more parts than its tasks need."""
    returned = data.draw(st.lists(st.integers(-1, n - 1), min_size=1, max_size=8))
    text = _returning_chain(n, returned)
    module = parse_module(text, "outputs.mlir")
    PassManager(parse_pipeline(f"partition-streams{{strategy=single}},insert-events{{max-tasks-per-stream={limit}}},"
                               "lower-to-tasks")).run(module)
    task_list = task_list_from_module(module)
    sizes = [len(stream.tasks) for stream in task_list.streams]
    # a part holds limit - 2 of ops and their copies (its end-of-graph task and closing
    # record aside), a part after the first one fewer (its wait): parts of two, as
    # when every returned value took room on every part, would need more
    room = max(2, limit - 2)
    heaviest = 1 + max((returned.count(i) - 1 for i in range(n) if i in returned), default=0)
    weight = n + returned.count(-1) + sum(returned.count(i) - 1 for i in range(n) if i in returned)
    if max(1, returned.count(-1)) + heaviest <= room:  # the copies one op brings fit a part after its wait
        assert max(sizes) <= limit, sizes
    assert len(sizes) <= 1 + -(-max(0, weight - room) // max(1, room - heaviest)), sizes
    result = emulate(task_list, {"x": X}, EmulatorOptions(progress=False))
    _assert_clean_and_equal(result.report, result.outputs, _expected(text))


def _relu_chain_with_views(kinds: list[bool]) -> str:
    """A chain of ReLUs (True) and identities (False, a view: no task of its own)."""
    t = "tensor<4x64xf32>"
    lines = [f"ge.graph @main(%x: {t} {{ge.name = \"x\"}}) -> ({t}) {{"]
    prev = "%x"
    for i, relu in enumerate(kinds):
        lines.append(f"  %v{i} = ge.{'relu' if relu else 'identity'} {prev} : ({t}) -> {t}")
        prev = f"%v{i}"
    lines += [f"  ge.return {prev} : ({t}) -> ()", "}"]
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None)
@given(kinds=st.lists(st.booleans(), min_size=1, max_size=40), limit=st.integers(4, 16))
def test_a_stream_part_counts_only_device_tasks(kinds: list[bool], limit: int) -> None:
    """An op that is no device task of its own (an identity here) takes no room
    in a stream: the chain is split exactly as the chain of its ReLUs alone,
    every stream holds at most ``max-tasks-per-stream`` device tasks, and the
    numbers are the interpreter's."""
    kinds = [*kinds, True]
    pipeline = f"partition-streams{{strategy=single}},insert-events{{max-tasks-per-stream={limit}}},lower-to-tasks"

    def lowered(text: str) -> tuple[object, dict]:
        module = parse_module(text, "views.mlir")
        PassManager(parse_pipeline(pipeline)).run(module)
        task_list = task_list_from_module(module)
        result = emulate(task_list, {"x": X}, EmulatorOptions(progress=False))
        return task_list, result

    text = _relu_chain_with_views(kinds)
    task_list, result = lowered(text)
    relus_only, _ = lowered(_relu_chain_with_views([True] * kinds.count(True)))
    assert len(task_list.streams) == len(relus_only.streams)
    assert result.report["task_counts"]["no_task"] == kinds.count(False)
    assert max(st["tasks"] for st in result.report["streams"]) <= limit
    assert not any("per stream" in w for w in result.report["warnings"])
    _assert_clean_and_equal(result.report, result.outputs, _expected(text))


@pytest.mark.parametrize("strategy", HEURISTICS + ("optimal",))
def test_labels_share_a_stream(strategy: str) -> None:
    text = random_dag_text(10, 7, engines=False, labels=2)
    module = _schedule(text, strategy, 4) if strategy != "optimal" else None
    if module is None:
        module = parse_module(text, "dag.mlir")
        PassManager(parse_pipeline("partition-streams{strategy=optimal max-streams=4 time-limit=2}")).run(module)
    by_label: dict[str, set[int]] = {}
    for op in next(module.graphs()).regions[0].blocks[0].ops:
        label = op.get_attr("stream_label")
        if label:
            by_label.setdefault(label, set()).add(op.get_attr("stream"))
    assert by_label and all(len(s) == 1 for s in by_label.values())
    assert len({next(iter(s)) for s in by_label.values()}) == len(by_label)


def _light_models() -> list[str]:
    import glob
    import os

    import onnx
    return sorted(glob.glob(os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light",
                                         "light_*.onnx")))


@pytest.mark.parametrize("path", _light_models(), ids=lambda p: p.rsplit("/", 1)[-1][6:-5])
def test_light_models_run_multi_stream_and_equal_the_interpreter(path: str) -> None:
    """The issue's bar: every light_* model through the default strategy, several
    streams, no race, the interpreter's numbers."""
    from geir.backends.io_bindings import graph_signature, random_inputs
    from geir.onnx_importer import import_onnx
    module = import_onnx(path)
    inputs = random_inputs(graph_signature(module), 0)
    expected = interpret(module, inputs)
    PassManager(parse_pipeline("assign-engines,partition-streams,insert-events,lower-to-tasks")).run(module)
    result = emulate(task_list_from_module(module), inputs, EmulatorOptions(progress=False))
    assert result.report["races_total"] == 0 and not result.report["deadlock"]
    assert len(result.report["streams"]) >= 2
    assert result.outputs is not None
    for got, want in zip(result.outputs.values(), expected.values()):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(2, 24), st.integers(1, 8))
def test_cost_is_never_slower_than_single(dag: tuple[int, int], max_streams: int) -> None:
    """The emulator's makespan of the lowered cost schedule is at most the single stream's."""
    from geir.passes.lower_to_tasks import graph_task_list
    text = random_dag_text(*dag)
    makespans = {}
    for strategy in ("single", "cost"):
        graph = next(_schedule(text, strategy, max_streams).graphs())
        report = emulate(graph_task_list(graph), None, EmulatorOptions(timing_only=True, progress=False)).report
        makespans[strategy] = report["makespan_us"]
    assert makespans["cost"] <= makespans["single"] + 1e-6
