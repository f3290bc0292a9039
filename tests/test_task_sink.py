"""Control flow in the task sink (runtime v1): ``ge.if``, ``ge.scan`` and the while form of
``ge.loop`` lowered to label tasks and run by the emulator on the device, equal
to ``onnx.reference`` and to the host-driven path; only the taken branch runs
and is race-checked; control tasks cost what the device profile says."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.host_control import HostDriver
from geir.backends.model_compile import compile_module, plan_pipeline
from geir.backends.model_compile import task_list_of
from geir.backends.task_list import Kernel, LabelGoto, LabelSet, LabelSwitch, Memcpy, TaskList
from geir.diagnostics import DiagnosticError
from geir.onnx_importer import import_onnx
from geir.parser import parse_module

from sink_runs import started_kernels


def _if_while_model(limit: float) -> onnx.ModelProto:
    """``If`` (then: x + x, else: -x) feeding a ``Loop`` that adds x until the
    sum reaches ``limit`` or ten trips, whichever is first."""
    then_graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["then_out"])], "then", [],
                                   [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, [3])])
    else_graph = helper.make_graph([helper.make_node("Neg", ["x"], ["else_out"])], "else", [],
                                   [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, [3])])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "lim"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [3])])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["picked"], then_branch=then_graph, else_branch=else_graph),
         helper.make_node("Abs", ["picked"], ["a"]),
         helper.make_node("Loop", ["trips", "go", "a"], ["total"], body=body),
         helper.make_node("Mul", ["total", "x"], ["y"])],
        "if_while",
        [helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("go", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        [numpy_helper.from_array(np.array(10, np.int64), "trips"),
         numpy_helper.from_array(np.array(limit, np.float32), "lim")])
    # as exporters do: the loop's result shape (ONNX shape inference leaves it unknown)
    graph.value_info.append(helper.make_tensor_value_info("total", TensorProto.FLOAT, [3]))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _compiled(model: onnx.ModelProto) -> TaskList:
    """The model through ge-default and lower-to-tasks: one task list."""
    module = import_onnx(model)
    plan = plan_pipeline(None, None, "910B2")
    return task_list_of(compile_module(module, plan.passes).module)


@pytest.fixture(scope="module")
def if_while() -> tuple[onnx.ModelProto, TaskList]:
    model = _if_while_model(50.0)
    return model, _compiled(model)


CASES = [(True, True, [1.0, 2.0, 3.0]), (False, True, [1.0, 2.0, 3.0]), (True, False, [1.0, 2.0, 3.0]),
         (False, True, [-4.0, 0.5, 2.0]), (True, True, [30.0, 20.0, 10.0])]


@pytest.mark.parametrize("flag,go,x", CASES)
def test_sink_equals_onnx_reference_and_the_host_driven_path(if_while: Any, flag: bool, go: bool,
                                                             x: list[float]) -> None:
    model, task_list = if_while
    feeds = {"flag": np.array(flag), "go": np.array(go), "x": np.array(x, np.float32)}
    expected = ReferenceEvaluator(model).run(None, feeds)[0]
    sink = emulate(task_list, feeds)
    assert sink.races == [] and sink.deadlock is None
    assert not sink.report["uninitialised_reads"]
    np.testing.assert_allclose(sink.outputs["y"], expected, rtol=1e-6)
    host = HostDriver(import_onnx(model)).run(feeds)
    np.testing.assert_allclose(sink.outputs["y"], host["y"], rtol=1e-6)


def test_only_the_taken_branch_runs(if_while: Any) -> None:
    _, task_list = if_while
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for flag, ran, skipped in ((True, "%then_out", "%else_out"), (False, "%else_out", "%then_out")):
        result = emulate(task_list, {"flag": np.array(flag), "go": np.array(False), "x": x})
        started = started_kernels(task_list, result)
        assert ran in started and skipped not in started
        if_switch = result.report["control"]["taken"][0]  # the first switch: the if's
        assert if_switch["counts"] == {("1" if flag else "0"): 1}


def test_the_loop_runs_once_per_trip_until_its_condition_fails(if_while: Any) -> None:
    model, task_list = if_while
    x = np.array([1.0, 2.0, 3.0], np.float32)
    # then: a = 2x, sum 12; +6 per trip while the sum stays below 50: 7 trips
    result = emulate(task_list, {"flag": np.array(True), "go": np.array(True), "x": x})
    assert result.report["control"]["jumps_back"] == 7
    once = emulate(task_list, {"flag": np.array(True), "go": np.array(False), "x": x})
    assert once.report["control"]["jumps_back"] == 0
    assert result.report["executed_tasks"] > once.report["executed_tasks"]
    assert result.report["makespan_us"] > once.report["makespan_us"]


def test_branch_buffers_share_the_arena() -> None:
    """The two branches of an if start at one base: the arena holds the larger."""
    text = """
    ge.graph @main(%p: tensor<i1>, %x: tensor<256xf32>) -> tensor<256xf32> {
      %r = ge.if %p ({
        %a = ge.relu %x : (tensor<256xf32>) -> tensor<256xf32>
        %b = ge.neg %a : (tensor<256xf32>) -> tensor<256xf32>
        ge.yield %b : (tensor<256xf32>) -> ()
      }, {
        %c = ge.abs %x : (tensor<256xf32>) -> tensor<256xf32>
        %d = ge.neg %c : (tensor<256xf32>) -> tensor<256xf32>
        ge.yield %d : (tensor<256xf32>) -> ()
      }) : (tensor<i1>) -> tensor<256xf32>
      ge.return %r : (tensor<256xf32>) -> ()
    }
    """
    tl = task_list_of(parse_module(text))
    tasks = tl.streams[0].tasks
    written = [t.outputs[0] for t in tasks if isinstance(t, Kernel)]  # relu, neg | abs, neg
    assert written[0].offset == written[2].offset  # else starts where then started
    # a value a branch yields is written into the if's result: no copy, and the
    # arena holds inputs, the result and one branch's temporary
    assert written[1] == written[3] == tl.outputs[0].ref
    assert not any(isinstance(t, Memcpy) for t in tasks)
    assert tl.arena_size == written[0].end
    labels = [type(t) for t in tasks if isinstance(t, (LabelSet, LabelGoto, LabelSwitch))]
    assert labels == [LabelSwitch, LabelSet, LabelGoto, LabelSet, LabelSet]
    for p, expected in ((True, -np.maximum(np.arange(256.0) - 100, 0)), (False, -np.abs(np.arange(256.0) - 100))):
        out = emulate(tl, {"p": np.array(p), "x": (np.arange(256.0) - 100).astype(np.float32)})
        (result,) = out.outputs.values()
        np.testing.assert_allclose(result, expected)
        assert out.races == []


def test_timing_only_assumes_the_first_branch_and_one_trip(if_while: Any) -> None:
    _, task_list = if_while
    result = emulate(task_list, None, EmulatorOptions(timing_only=True))
    control = result.report["control"]
    assert control["branches_assumed"] and control["jumps_back"] == 1
    assert "branches assumed" in result.text()


def test_control_task_costs_come_from_the_profile(if_while: Any) -> None:
    _, task_list = if_while
    feeds = {"flag": np.array(True), "go": np.array(True), "x": np.array([1.0, 2.0, 3.0], np.float32)}
    base = emulate(task_list, feeds, EmulatorOptions(check_races=False))
    slower = emulate(task_list, feeds, EmulatorOptions(check_races=False, device_params=["label_switch_us=11"]))
    switches = base.report["control"]["switches"]
    assert slower.report["makespan_us"] == pytest.approx(base.report["makespan_us"] + 10 * switches)


def test_scan_outputs_are_refused_at_the_loop() -> None:
    text = """
    ge.graph @main(%m: tensor<i64>, %c: tensor<i1>, %y: tensor<1xf32>) -> (tensor<1xf32>, tensor<5x1xf32>) {
      %r, %s = ge.loop %m, %c, %y ({
      ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<1xf32>):
        %n = ge.add %yi, %yi : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        ge.yield %ci, %n, %n : (tensor<i1>, tensor<1xf32>, tensor<1xf32>) -> ()
      }) : (tensor<i64>, tensor<i1>, tensor<1xf32>) -> (tensor<1xf32>, tensor<5x1xf32>)
      ge.return %r, %s : (tensor<1xf32>, tensor<5x1xf32>) -> ()
    }
    """
    with pytest.raises(DiagnosticError, match="has scan outputs, whose size is the trip count"):
        task_list_of(parse_module(text))


def test_ge_run_runs_static_control_flow_in_the_sink_and_compares_the_host_driven_path(if_while: Any) -> None:
    from geir.backends.run_model import RunSettings, run_model
    model, _ = if_while
    feeds = {"flag": np.array(True), "go": np.array(True), "x": np.array([1.0, 2.0, 3.0], np.float32)}
    report = run_model(model, RunSettings(inputs=feeds))
    assert "control_flow" not in report.fields  # not host-driven: one task list
    assert report.fields["control"]["jumps_back"] == 7
    np.testing.assert_allclose(report.outputs["y"], ReferenceEvaluator(model).run(None, feeds)[0], rtol=1e-3)
    compared = report.fields["sink_vs_host"]
    sink, host = compared["sink"], compared["host"]
    assert sink["launches"] == 1 and sink["host_round_trips"] == 0
    # the host reads the if's predicate and the loop's condition after each of its 7 trips
    assert host["host_round_trips"] == 1 + 7
    assert host["launches"] > host["host_round_trips"]
    assert host["outputs_max_abs_diff"] < 1e-2
    assert "sink vs host" in report.body


def test_what_the_sink_cannot_run_stays_host_driven() -> None:
    from geir.backends.model_compile import needs_host
    static_loop = parse_module("""
    ge.graph @main(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
      %r = ge.loop %m, %c, %x ({
      ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
        %n = ge.add %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        ge.yield %ci, %n : (tensor<i1>, tensor<4xf32>) -> ()
      }) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
      ge.return %r : (tensor<4xf32>) -> ()
    }""")
    scanning = parse_module("""
    ge.graph @main(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<5x4xf32> {
      %r, %s = ge.loop %m, %c, %x ({
      ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
        %n = ge.add %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        ge.yield %ci, %n, %n : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> ()
      }) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>)
      ge.return %s : (tensor<5x4xf32>) -> ()
    }""")
    assert not needs_host(static_loop)
    assert needs_host(scanning)


@pytest.fixture(scope="module")
def node_cases() -> dict[str, Any]:
    """ONNX's If / Loop / Scan node test cases, without collecting every op's
    (their modules register cases as they import: the registry is put back after,
    so a later full collection sees them again)."""
    import importlib
    import sys

    import onnx.backend.test.case.node as node
    cases, names = list(node._NodeTestCases), dict(node._existing_names)
    fresh = [m for m in ("if_", "loop", "scan") if f"{node.__name__}.{m}" not in sys.modules]
    try:
        for m in fresh:
            importlib.import_module(f"{node.__name__}.{m}")
        found = {c.name: c for c in node._NodeTestCases if c.name.startswith(("test_if", "test_loop", "test_scan"))}
    finally:
        node._NodeTestCases[:] = cases
        node._existing_names.clear()
        node._existing_names.update(names)
        for m in fresh:
            sys.modules.pop(f"{node.__name__}.{m}", None)
    return found


# tensors only: the sequence and optional cases are outside the ge dialect, and
# onnx.reference cannot run opset 8's Scan (test_scan_sum)
NODE_CASES = ["test_if", "test_loop11", "test_scan9_sum", "test_scan9_multi_state", "test_scan9_scalar"]


@pytest.mark.parametrize("name", NODE_CASES)
def test_onnx_node_cases_run_as_ge_run_runs_them_equal_to_the_reference(node_cases: dict[str, Any],
                                                                       name: str) -> None:
    """Static control flow (If, Scan) runs in the sink and is compared with the
    host-driven path; a loop with scan outputs and a data-dependent slice runs
    host-driven."""
    from geir.backends.model_compile import needs_host
    from geir.backends.run_model import RunSettings, run_model
    case = node_cases[name]
    (inputs, expected), = case.data_sets
    feeds = {i.name: np.asarray(a) for i, a in zip(case.model.graph.input, inputs)}
    reference = ReferenceEvaluator(case.model).run(None, feeds)
    sink = not needs_host(import_onnx(case.model))
    assert sink == (name != "test_loop11")  # its body slices at a data-dependent size
    report = run_model(case.model, RunSettings(inputs=feeds))
    for out, want, ref in zip(case.model.graph.output, expected, reference):
        np.testing.assert_allclose(report.outputs[out.name], want, rtol=1e-3)
        np.testing.assert_allclose(report.outputs[out.name], ref, rtol=1e-3)
    if sink:
        assert report.fields["sink_vs_host"]["host"]["outputs_max_abs_diff"] == 0.0
        assert report.result is not None and report.result.races == []
    else:
        assert report.fields["control_flow"].startswith("host-driven")


def test_the_if_node_case_takes_each_branch_in_the_sink(node_cases: dict[str, Any]) -> None:
    model = node_cases["test_if"].model
    task_list = task_list_of(import_onnx(model))
    for cond in (True, False):
        feeds = {"cond": np.array(cond)}
        result = emulate(task_list, feeds)
        np.testing.assert_array_equal(result.outputs["res"], ReferenceEvaluator(model).run(None, feeds)[0])


def test_ge_default_puts_each_region_on_a_stream_started_by_its_branch(if_while: Any) -> None:
    """GE allocates a subgraph's streams itself: each region runs on its own
    stream, started after its label and waited for by the control op's stream."""
    from geir.backends.task_list import EndGraph, StreamActive
    _, task_list = if_while
    started = task_list.activated_streams()
    assert len(started) == 3  # then, else, the loop body
    for stream in task_list.streams:
        ends = any(isinstance(t, EndGraph) for t in stream.tasks)
        assert ends == (stream.id not in started)  # a started stream runs per activation, not to the model's end
    activations = [t for s in task_list.streams for t in s.tasks if isinstance(t, StreamActive)]
    assert {t.stream for t in activations} == started
    feeds = {"flag": np.array(False), "go": np.array(True), "x": np.array([1.0, 2.0, 3.0], np.float32)}
    result = emulate(task_list, feeds)
    control = result.report["control"]
    assert control["activations"] == 1 + control["jumps_back"]  # the else branch, then the body once per trip
    assert control["lost_activations"] == 0 and result.races == []


_NESTED = """
ge.graph @main(%p: tensor<i1> {ge.name = "p"}, %m: tensor<i64> {ge.name = "m"}, %c: tensor<i1> {ge.name = "c"},
               %x: tensor<4xf32> {ge.name = "x"}) -> (tensor<4xf32> {ge.name = "y"}) {
  %y = ge.loop %m, %c, %x ({
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: tensor<4xf32>):
    %s = ge.reduce_sum %v {keepdims = 0 : i64} : (tensor<4xf32>) -> tensor<f32>
    %neg = ge.less %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %w = ge.if %neg ({
      %a = ge.neg %v : (tensor<4xf32>) -> tensor<4xf32>
      ge.yield %a : (tensor<4xf32>) -> ()
    }, {
      %b = ge.sub %v, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      ge.yield %b : (tensor<4xf32>) -> ()
    }) : (tensor<i1>) -> tensor<4xf32>
    %go = ge.xor %ci, %p : (tensor<i1>, tensor<i1>) -> tensor<i1>
    ge.yield %go, %w : (tensor<i1>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  ge.return %y : (tensor<4xf32>) -> ()
}
"""


@pytest.fixture(scope="module")
def nested() -> tuple[Any, TaskList]:
    """An if inside a loop body, regions on streams of their own (strategy ge)."""
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    text = _NESTED.replace("%s = ge.reduce_sum", "%zero = ge.const {value = dense<0.0> : tensor<f32>} : () -> "
                                                 "tensor<f32>\n    %s = ge.reduce_sum")
    module = parse_module(text)
    compiled = module.clone()
    PassManager(parse_pipeline("assign-engines,partition-streams{strategy=ge},insert-events,lower-to-tasks")).run(
        compiled)
    return module, task_list_of(compiled)


@settings(max_examples=25, deadline=None)
@given(p=st.booleans(), m=st.integers(0, 6), c=st.booleans(),
       x=st.lists(st.integers(-8, 8), min_size=4, max_size=4))
def test_nested_control_flow_in_the_sink_equals_the_interpreter(nested: Any, p: bool, m: int, c: bool,
                                                              x: list[int]) -> None:
    """Whatever the predicates and trip counts: the sink's outputs are the
    interpreter's, nothing races, and every started stream was idle."""
    from geir.backends.interpreter import Interpreter
    module, task_list = nested
    feeds = {"p": np.array(p), "m": np.array(m, np.int64), "c": np.array(c), "x": np.array(x, np.float32)}
    result = emulate(task_list, feeds)
    np.testing.assert_array_equal(result.outputs["y"], Interpreter(module).run(feeds)["y"])
    assert result.races == [] and not result.report["uninitialised_reads"]
    assert result.report["control"]["lost_activations"] == 0
