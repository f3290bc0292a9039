"""GE's dataflow control ops in the task sink: a ``ge.switch`` / ``ge.merge``
diamond (TF v1's ``cond``) lowered as GE's ``SwitchToStreamSwitchPass`` and
``MergeToStreamMergePass`` do, to stream-switch, stream-active and merge
tasks; the emulator runs only the taken branch, equal to the interpreter
(dead tensors for the untaken branch) and to ``onnx.reference`` on the
equivalent ``If``; what is not a diamond stays host-driven."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.interpreter import Interpreter
from geir.backends.model_compile import task_list_of
from geir.backends.task_list import Kernel, StreamActive, StreamSwitch, TaskList
from geir.diagnostics import DiagnosticError
from geir.module import Module
from geir.parser import parse_module

from sink_runs import started_kernels

#: ONNX op -> ge mnemonic; a binary op reads the running value and the branch's ``y``
OPS = {"Relu": "relu", "Neg": "neg", "Abs": "abs", "Add": "add", "Mul": "mul"}
BINARY = {"Add", "Mul"}
T4 = "tensor<4xf32>"
PAIR = f"({T4}, {T4})"


def diamond_text(false_chain: Sequence[str], true_chain: Sequence[str]) -> str:
    """Two switches on ``p`` (of ``x`` and of ``y``); each branch a chain of
    ``OPS`` from its ``x``; merge #1 joins the chains, merge #2 joins ``-y``
    (false) and ``y`` itself (true: a switch output merged directly)."""
    lines = [f"  %xf, %xt = ge.switch %x, %p : ({T4}, tensor<i1>) -> {PAIR}",
             f"  %yf, %yt = ge.switch %y, %p : ({T4}, tensor<i1>) -> {PAIR}"]
    ends = []
    for tag, chain in (("f", false_chain), ("t", true_chain)):
        v = f"%x{tag}"
        for j, name in enumerate(chain):
            out = f"%{tag}{j}"
            if name in BINARY:
                lines.append(f"  {out} = ge.{OPS[name]} {v}, %y{tag} : {PAIR} -> {T4}")
            else:
                lines.append(f"  {out} = ge.{OPS[name]} {v} : ({T4}) -> {T4}")
            v = out
        ends.append(v)
    lines += [f"  %ny = ge.neg %yf : ({T4}) -> {T4}",
              f"  %m, %i = ge.merge {ends[0]}, {ends[1]} : {PAIR} -> ({T4}, tensor<i32>)",
              f"  %m2, %i2 = ge.merge %ny, %yt : {PAIR} -> ({T4}, tensor<i32>)",
              f"  %out = ge.mul %m, %x : {PAIR} -> {T4}",
              f"  ge.return %out, %m2, %i : ({T4}, {T4}, tensor<i32>) -> ()"]
    return (f'ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %x: {T4} {{ge.name = "x"}}, '
            f'%y: {T4} {{ge.name = "y"}}) -> ({T4} {{ge.name = "out"}}, {T4} {{ge.name = "m2"}}, '
            f'tensor<i32> {{ge.name = "i"}}) {{\n' + "\n".join(lines) + "\n}\n")


def if_model(false_chain: Sequence[str], true_chain: Sequence[str]) -> onnx.ModelProto:
    """The same computation as an ONNX ``If`` (the merge index is the predicate as int32)."""
    info = helper.make_tensor_value_info

    def branch(tag: str, chain: Sequence[str]) -> onnx.GraphProto:
        nodes, v = [], "x"
        for j, name in enumerate(chain):
            nodes.append(helper.make_node(name, [v, "y"] if name in BINARY else [v], [f"{tag}{j}"]))
            v = f"{tag}{j}"
        nodes.append(helper.make_node("Identity", [v], [f"{tag}_r"]))
        nodes.append(helper.make_node("Neg" if tag == "f" else "Identity", ["y"], [f"{tag}_m2"]))
        return helper.make_graph(nodes, tag, [], [info(f"{tag}_r", TensorProto.FLOAT, [4]),
                                                  info(f"{tag}_m2", TensorProto.FLOAT, [4])])

    graph = helper.make_graph(
        [helper.make_node("If", ["p"], ["r", "m2"], then_branch=branch("t", true_chain),
                          else_branch=branch("f", false_chain)),
         helper.make_node("Mul", ["r", "x"], ["out"]),
         helper.make_node("Cast", ["p"], ["i"], to=TensorProto.INT32)], "cond",
        [info("p", TensorProto.BOOL, []), info("x", TensorProto.FLOAT, [4]), info("y", TensorProto.FLOAT, [4])],
        [info("out", TensorProto.FLOAT, [4]), info("m2", TensorProto.FLOAT, [4]), info("i", TensorProto.INT32, [])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def compiled(module: Module) -> TaskList:
    """``module`` through engines, streams (strategy ge), events and the lowering."""
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    module = module.clone()
    PassManager(parse_pipeline("assign-engines,partition-streams{strategy=ge},insert-events,lower-to-tasks")).run(
        module)
    return task_list_of(module)


def feeds(p: bool, x: Sequence[float], y: Sequence[float]) -> dict[str, np.ndarray]:
    return {"p": np.array(p), "x": np.array(x, np.float32), "y": np.array(y, np.float32)}


CHAINS = (["Neg"], ["Relu", "Add"])
X, Y = [1.0, -2.0, 3.0, -4.0], [0.5, 0.5, -1.0, 2.0]


@pytest.fixture(scope="module")
def diamond() -> tuple[Module, onnx.ModelProto, TaskList]:
    module = parse_module(diamond_text(*CHAINS))
    return module, if_model(*CHAINS), compiled(module)


@pytest.mark.parametrize("p", [True, False])
def test_sink_equals_the_interpreter_and_the_if_reference(diamond: Any, p: bool) -> None:
    module, model, task_list = diamond
    inputs = feeds(p, X, Y)
    expected = dict(zip(("out", "m2", "i"), ReferenceEvaluator(model).run(None, inputs)))
    sink = emulate(task_list, inputs)
    assert sink.races == [] and sink.deadlock is None and not sink.report["uninitialised_reads"]
    interpreted = Interpreter(module).run(inputs)
    for name, want in expected.items():
        np.testing.assert_array_equal(sink.outputs[name], want)
        np.testing.assert_array_equal(interpreted[name], want)


def test_the_switch_starts_one_branch_stream_and_that_branch_the_merge_stream(diamond: Any) -> None:
    _, _, task_list = diamond
    switches = [t for s in task_list.streams for t in s.tasks if isinstance(t, StreamSwitch)]
    assert [(t.condition, t.value) for t in switches] == [("ne", 0), ("eq", 0)]  # StreamSwitch_t, StreamSwitch_f
    true_s, false_s = (t.true_stream for t in switches)
    by_id = {s.id: s for s in task_list.streams}
    merge_streams = {t.stream for sid in (true_s, false_s) for t in by_id[sid].tasks if isinstance(t, StreamActive)}
    assert len(merge_streams) == 1 and task_list.activated_streams() == {true_s, false_s, *merge_streams}
    kernels = {t.name: (s.id, i) for s in task_list.streams for i, t in enumerate(s.tasks) if isinstance(t, Kernel)}
    assert kernels["%t0"][0] == true_s and kernels["%f0"][0] == false_s
    for p, ran, skipped in ((True, "%t0", "%f0"), (False, "%f0", "%t0")):
        result = emulate(task_list, feeds(p, X, Y))
        started = started_kernels(task_list, result)
        assert ran in started and skipped not in started
        control = result.report["control"]
        assert control["activations"] == 2 and control["lost_activations"] == 0  # a branch, then the merges


def test_the_branches_share_one_arena_base() -> None:
    chains = (["Relu", "Neg", "Abs"], ["Neg", "Abs", "Relu"])
    tl = task_list_of(parse_module(diamond_text(*chains).replace("4xf32", "256xf32")))
    firsts = [t.outputs[0] for s in tl.streams for t in s.tasks if isinstance(t, Kernel) and t.name in ("%f0", "%t0")]
    assert len(firsts) == 2 and firsts[0].offset == firsts[1].offset


def test_an_output_of_the_untaken_branch_is_a_located_error() -> None:
    module = parse_module(f"""
    ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %x: {T4} {{ge.name = "x"}}) -> ({T4} {{ge.name = "y"}}) {{
      %f, %t = ge.switch %x, %p : ({T4}, tensor<i1>) -> {PAIR}
      %a = ge.neg %t : ({T4}) -> {T4}
      ge.return %a : ({T4}) -> ()
    }}""")
    x = np.array(X, np.float32)
    np.testing.assert_array_equal(Interpreter(module).run({"p": np.array(True), "x": x})["y"], -x)
    with pytest.raises(DiagnosticError, match="output 'y' comes from a ge.switch branch that did not run") as e:
        Interpreter(module).run({"p": np.array(False), "x": x})
    where = e.value.diagnostics[0].file_position
    assert where is not None and where.line == 5  # the ge.return


def test_a_diamond_runs_in_the_sink_and_loop_frames_stay_host_driven() -> None:
    from geir.backends.model_compile import needs_host
    assert not needs_host(parse_module(diamond_text(*CHAINS)))
    frames = parse_module(f"""
    ge.graph @main(%x: {T4}) -> {T4} {{
      %e = ge.enter %x {{frame_name = "while"}} : ({T4}) -> {T4}
      %o = ge.exit %e : ({T4}) -> {T4}
      ge.return %o : ({T4}) -> ()
    }}""")
    assert needs_host(frames)


def test_ge_run_runs_the_diamond_in_the_sink_and_compares_the_host_driven_path() -> None:
    from geir.backends.run_model import RunSettings, run_model
    module = parse_module(diamond_text(*CHAINS))
    inputs = feeds(False, X, Y)
    report = run_model(module, RunSettings(inputs=inputs,
                                           pipeline="assign-engines,partition-streams{strategy=ge},insert-events,"
                                                    "reuse-memory,lower-to-tasks"))
    assert "control_flow" not in report.fields  # one task list, not host-driven
    assert report.result is not None and report.result.races == []
    expected = ReferenceEvaluator(if_model(*CHAINS)).run(None, inputs)
    np.testing.assert_allclose(report.outputs["out"], expected[0], rtol=1e-3)
    compared = report.fields["sink_vs_host"]
    assert compared["sink"]["host_round_trips"] == 0 and compared["host"]["host_round_trips"] == 1
    assert compared["host"]["outputs_max_abs_diff"] == 0.0


@pytest.mark.parametrize("p", [True, False])
def test_the_host_driven_path_reads_the_predicate_and_launches_only_the_taken_branch(p: bool) -> None:
    from geir.backends.host_control import HostDriver
    chains = (["Neg"], ["Relu", "Add", "Abs", "Mul"])
    module, model = parse_module(diamond_text(*chains)), if_model(*chains)
    inputs = feeds(p, X, Y)
    driver = HostDriver(module)
    outputs = driver.run(inputs)
    for name, want in zip(("out", "m2", "i"), ReferenceEvaluator(model).run(None, inputs)):
        np.testing.assert_array_equal(outputs[name], want)
    assert driver.round_trips == 1
    launched = sum(launch.tasks for launch in driver.launches)
    other = HostDriver(module)
    other.run(feeds(not p, X, Y))
    # each run launches its own branch's kernels (the false one also merge #2's -y), not the other's
    branch_kernels = {True: len(chains[1]), False: len(chains[0]) + 1}
    assert launched - sum(launch.tasks for launch in other.launches) == branch_kernels[p] - branch_kernels[not p]


def test_a_nested_conditional_runs_host_driven_equal_to_the_interpreter() -> None:
    from geir.backends.model_compile import needs_host
    from geir.backends.run_model import RunSettings, run_model
    module = parse_module(f"""
    ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %q: tensor<i1> {{ge.name = "q"}}, %x: {T4} {{ge.name = "x"}})
        -> ({T4} {{ge.name = "y"}}) {{
      %f, %t = ge.switch %x, %p : ({T4}, tensor<i1>) -> {PAIR}
      %f2, %t2 = ge.switch %t, %q : ({T4}, tensor<i1>) -> {PAIR}
      %n = ge.neg %t2 : ({T4}) -> {T4}
      %m2, %i2 = ge.merge %f2, %n : {PAIR} -> ({T4}, tensor<i32>)
      %a = ge.abs %f : ({T4}) -> {T4}
      %m, %i = ge.merge %a, %m2 : {PAIR} -> ({T4}, tensor<i32>)
      ge.return %m : ({T4}) -> ()
    }}""")
    assert needs_host(module)
    x = np.array(X, np.float32)
    for p, q, want in ((True, True, -x), (True, False, x), (False, True, np.abs(x))):
        inputs = {"p": np.array(p), "q": np.array(q), "x": x}
        report = run_model(module.clone(), RunSettings(inputs=inputs))
        assert report.fields["control_flow"].startswith("host-driven")
        np.testing.assert_array_equal(report.outputs["y"], want)
        np.testing.assert_array_equal(Interpreter(module).run(inputs)["y"], want)


def test_timing_only_assumes_the_true_branch(diamond: Any) -> None:
    """Both stream switches read the one assumed predicate: one branch runs, no race."""
    _, _, task_list = diamond
    result = emulate(task_list, None, EmulatorOptions(timing_only=True))
    control = result.report["control"]
    assert control["branches_assumed"] and result.deadlock is None and result.races == []
    assert [t["counts"] for t in control["taken"]] == [{"1": 1}, {"0": 1}]  # ne 0 holds, eq 0 does not
    assert control["activations"] == 2 and control["lost_activations"] == 0


_CHAIN = st.lists(st.sampled_from(sorted(OPS)), min_size=1, max_size=3)
_VEC = st.lists(st.integers(-8, 8), min_size=4, max_size=4)


@settings(max_examples=12, deadline=None)
@given(false_chain=_CHAIN, true_chain=_CHAIN, p=st.booleans(), x=_VEC, y=_VEC)
def test_generated_diamonds_in_the_sink_equal_the_interpreter_and_the_reference(
        false_chain: list[str], true_chain: list[str], p: bool, x: list[int], y: list[int]) -> None:
    """Whatever the branches and the predicate: the sink's outputs are the
    interpreter's and onnx.reference's on the If, and nothing races."""
    module = parse_module(diamond_text(false_chain, true_chain))
    inputs = feeds(p, x, y)
    result = emulate(compiled(module), inputs)
    interpreted = Interpreter(module).run(inputs)
    expected = ReferenceEvaluator(if_model(false_chain, true_chain)).run(None, inputs)
    for name, want in zip(("out", "m2", "i"), expected):
        np.testing.assert_array_equal(result.outputs[name], interpreted[name])
        np.testing.assert_array_equal(result.outputs[name], want)
    assert result.races == [] and not result.report["uninitialised_reads"]
    assert result.report["control"]["lost_activations"] == 0

#: two diamonds in sequence (the second switches on what the first merged) feeding a
#: ge.case on the second merge's index: the memory plan reuses bytes across them
_CHAINED = """
ge.graph @main(%x: tensor<4xf32> {ge.name = "x"}, %y: tensor<4xf32> {ge.name = "y"}, %m: tensor<i64> {ge.name = "m"}) -> (tensor<4xf32> {ge.name = "out"}) {
  %zero = ge.const {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %s = ge.reduce_sum %x {keepdims = 0 : i64} : (tensor<4xf32>) -> tensor<f32>
  %p = ge.less %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %f, %t = ge.switch %x, %p : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %a = ge.neg %t : (tensor<4xf32>) -> tensor<4xf32>
  %b = ge.add %f, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m1, %i1 = ge.merge %b, %a : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  %s2 = ge.reduce_sum %m1 {keepdims = 0 : i64} : (tensor<4xf32>) -> tensor<f32>
  %q = ge.less %zero, %s2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %f2, %t2 = ge.switch %m1, %q : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>)
  %c = ge.mul %t2, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m2, %i2 = ge.merge %f2, %c : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  %k = ge.cast %i2 {to = i64} : (tensor<i32>) -> tensor<i64>
  %idx = ge.add %k, %m : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %idx32 = ge.cast %idx {to = i32} : (tensor<i64>) -> tensor<i32>
  %r = ge.case %idx32 ({
    %u = ge.relu %m2 : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %u : (tensor<4xf32>) -> ()
  }, {
    %v = ge.sigmoid %m2 : (tensor<4xf32>) -> tensor<4xf32>
    ge.yield %v : (tensor<4xf32>) -> ()
  }, {
    ge.yield %m2 : (tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  ge.return %r : (tensor<4xf32>) -> ()
}
"""


@pytest.mark.parametrize("x,y,m", [([1, -2, 3, -4], [1, 1, 1, 1], 0), ([5, 2, 3, 4], [1, 1, 1, 1], 1)])
def test_chained_diamonds_and_a_case_through_ge_default_are_race_free(x: list[float], y: list[float],
                                                                     m: int) -> None:
    from geir.backends.run_model import RunSettings, run_model
    module = parse_module(_CHAINED)
    inputs = {"x": np.array(x, np.float32), "y": np.array(y, np.float32), "m": np.array(m, np.int64)}
    # the graph's f32, as the interpreter computes it (the default mode would run the branches in f16)
    report = run_model(module.clone(), RunSettings(inputs=inputs, precision_mode="must_keep_origin_dtype"))
    assert report.result is not None and report.result.races == [] and report.result.deadlock is None
    np.testing.assert_array_equal(report.outputs["out"], Interpreter(module).run(inputs)["out"])
    assert report.fields["sink_vs_host"]["host"]["outputs_max_abs_diff"] == 0.0
