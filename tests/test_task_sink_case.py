"""``ge.case`` (GE's Case, TF's Case) in the task sink: the i32 branch index
picks one of N branch regions, an index out of range runs the last branch;
``lower-to-tasks`` lays it out as GE's ``CaseOpLabelMaker`` does (one
``rt.label_switch`` over the branch labels), the emulator runs only the taken
branch, and the result equals the interpreter, the host-driven path and
``onnx.reference`` on the equivalent nested ``If`` (ONNX has no Case)."""

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
from geir.backends.host_control import HostDriver
from geir.backends.interpreter import Interpreter, case_branch
from geir.backends.model_compile import task_list_of
from geir.backends.task_list import Kernel, LabelGoto, LabelSet, LabelSwitch, StreamActive, TaskList
from geir.module import Module
from geir.parser import parse_module

from sink_runs import started_kernels

#: ONNX op -> its ge mnemonic; a binary op reads the running value and ``x``
OPS = {"Relu": "relu", "Neg": "neg", "Abs": "abs", "Add": "add", "Mul": "mul"}
BINARY = {"Add", "Mul"}
T4 = "tensor<4xf32>"


def case_text(branches: Sequence[Sequence[str]]) -> str:
    """``y = case(i, branches...)(x) + x``, each branch a chain of ``OPS`` on ``x``."""
    regions = []
    for k, chain in enumerate(branches):
        lines, v = [], "%x"
        for j, name in enumerate(chain):
            out = f"%b{k}_{j}"
            if name in BINARY:
                lines.append(f"    {out} = ge.{OPS[name]} {v}, %x : ({T4}, {T4}) -> {T4}")
            else:
                lines.append(f"    {out} = ge.{OPS[name]} {v} : ({T4}) -> {T4}")
            v = out
        lines.append(f"    ge.yield {v} : ({T4}) -> ()")
        regions.append("{\n" + "\n".join(lines) + "\n  }")
    return (f'ge.graph @main(%i: tensor<i32> {{ge.name = "i"}}, %x: {T4} {{ge.name = "x"}}) -> '
            f'({T4} {{ge.name = "y"}}) {{\n'
            f"  %r = ge.case %i ({', '.join(regions)}) : (tensor<i32>) -> {T4}\n"
            f"  %y = ge.add %r, %x : ({T4}, {T4}) -> {T4}\n"
            f"  ge.return %y : ({T4}) -> ()\n}}\n")


def nested_if_model(branches: Sequence[Sequence[str]]) -> onnx.ModelProto:
    """The same computation in ONNX: ``If(i == 0, b0, If(i == 1, b1, ... b[N-1]))``,
    so an index out of range takes the last branch, as Case does."""
    def branch_nodes(k: int, out: str) -> list[onnx.NodeProto]:
        nodes, v = [], "x"
        for j, name in enumerate(branches[k]):
            nxt = f"b{k}_{j}"
            nodes.append(helper.make_node(name, [v, "x"] if name in BINARY else [v], [nxt]))
            v = nxt
        return [*nodes, helper.make_node("Identity", [v], [out])]

    def chooser(k: int, out: str) -> list[onnx.NodeProto]:
        """The nodes that compute branch k's or a later branch's value into ``out``."""
        if k == len(branches) - 1:
            return branch_nodes(k, out)
        info = helper.make_tensor_value_info
        then_graph = helper.make_graph(branch_nodes(k, f"then{k}"), f"then{k}", [],
                                       [info(f"then{k}", TensorProto.FLOAT, [4])])
        else_graph = helper.make_graph(chooser(k + 1, f"else{k}"), f"else{k}", [],
                                       [info(f"else{k}", TensorProto.FLOAT, [4])])
        index = helper.make_tensor(f"k{k}", TensorProto.INT32, [], [k])
        return [helper.make_node("Constant", [], [f"k{k}"], value=index),
                helper.make_node("Equal", ["i", f"k{k}"], [f"is{k}"]),
                helper.make_node("If", [f"is{k}"], [out], then_branch=then_graph, else_branch=else_graph)]

    graph = helper.make_graph(
        [*chooser(0, "r"), helper.make_node("Add", ["r", "x"], ["y"])], "case",
        [helper.make_tensor_value_info("i", TensorProto.INT32, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def compiled(module: Module, strategy: str = "ge") -> TaskList:
    """``module`` through engines, streams (each branch a stream of its own), events, lowering."""
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    module = module.clone()
    PassManager(parse_pipeline(f"assign-engines,partition-streams{{strategy={strategy}}},insert-events,"
                               "lower-to-tasks")).run(module)
    return task_list_of(module)


def feeds(i: int, x: Sequence[float]) -> dict[str, np.ndarray]:
    return {"i": np.array(i, np.int32), "x": np.array(x, np.float32)}


THREE = [["Relu"], ["Neg", "Abs"], ["Mul", "Add"]]
X = [1.0, -2.0, 3.0, -4.0]


@pytest.fixture(scope="module")
def three() -> tuple[Module, onnx.ModelProto, TaskList]:
    module = parse_module(case_text(THREE))
    return module, nested_if_model(THREE), compiled(module)


def test_the_index_picks_the_branch_and_out_of_range_runs_the_last() -> None:
    assert [case_branch(np.array(i, np.int32), 3) for i in (0, 1, 2, 3, 100, -1, -7)] == [0, 1, 2, 2, 2, 2, 2]
    assert case_branch(np.array([0], np.int32), 1) == 0


@pytest.mark.parametrize("index", [0, 1, 2, 3, -1])
def test_sink_equals_the_nested_if_reference_the_interpreter_and_the_host_driven_path(three: Any,
                                                                                      index: int) -> None:
    module, model, task_list = three
    inputs = feeds(index, X)
    expected = ReferenceEvaluator(model).run(None, inputs)[0]
    sink = emulate(task_list, inputs)
    assert sink.races == [] and sink.deadlock is None and not sink.report["uninitialised_reads"]
    np.testing.assert_array_equal(sink.outputs["y"], expected)
    np.testing.assert_array_equal(Interpreter(module).run(inputs)["y"], expected)
    host = HostDriver(module)
    np.testing.assert_array_equal(host.run(inputs)["y"], expected)
    assert host.round_trips == 1  # the index, read back
    taken = sink.report["control"]["taken"]
    assert taken[0]["counts"] == {str(case_branch(index, 3)): 1}


def test_only_the_taken_branch_runs_each_on_its_own_stream(three: Any) -> None:
    _, _, task_list = three
    kernels = {t.name: (s.id, i) for s in task_list.streams for i, t in enumerate(s.tasks) if isinstance(t, Kernel)}
    branch_streams = [kernels[name][0] for name in ("%b0_0", "%b1_0", "%b2_0")]
    assert len(set(branch_streams)) == 3 and set(branch_streams) == task_list.activated_streams()
    for index, ran in ((0, "%b0_0"), (1, "%b1_1"), (2, "%b2_1"), (7, "%b2_0")):
        result = emulate(task_list, feeds(index, X))
        started = started_kernels(task_list, result)
        branch = case_branch(index, 3)
        assert ran in started
        assert not any(name.startswith("%b") and not name.startswith(f"%b{branch}_") for name in started)
        assert result.report["control"]["activations"] == 1 and result.races == []


def test_the_layout_is_that_of_ges_case_label_maker() -> None:
    """One switch over the N labels in region order, a goto past the last after
    each branch but the last; one branch: no label at all."""
    tl = task_list_of(parse_module(case_text(THREE)))
    control = [t for t in tl.streams[0].tasks if isinstance(t, (LabelSet, LabelGoto, LabelSwitch))]
    assert [type(t) for t in control] == [LabelSwitch, LabelSet, LabelGoto, LabelSet, LabelGoto, LabelSet, LabelSet]
    switch, sets = control[0], [t.label for t in control if isinstance(t, LabelSet)]
    assert switch.labels == sets[:3]
    assert {t.label for t in control if isinstance(t, LabelGoto)} == {sets[3]}
    single = task_list_of(parse_module(case_text([["Relu", "Neg"]])))
    assert not any(isinstance(t, (LabelSet, LabelGoto, LabelSwitch, StreamActive))
                   for s in single.streams for t in s.tasks)
    out = emulate(single, feeds(4, X))
    np.testing.assert_array_equal(out.outputs["y"], -np.maximum(X, 0) + np.array(X, np.float32))


def test_the_branches_share_one_arena_base() -> None:
    """Only one branch runs: each starts at the same base, and the arena holds
    the largest, not their sum."""
    chains = [["Relu", "Neg", "Abs"], ["Neg", "Abs", "Relu"], ["Abs", "Relu", "Neg"]]
    tl = task_list_of(parse_module(case_text(chains).replace("4xf32", "256xf32")))
    firsts = [t.outputs[0] for t in tl.streams[0].tasks if isinstance(t, Kernel) and t.name.endswith("_0")]
    assert len(firsts) == 3 and len({ref.offset for ref in firsts}) == 1
    one_branch = task_list_of(parse_module(case_text(chains[:1]).replace("4xf32", "256xf32")))
    assert tl.arena_size == one_branch.arena_size


def test_the_printed_case_parses_back_to_the_same_text() -> None:
    text = str(parse_module(case_text(THREE)))
    assert "ge.case %i ({" in text
    assert str(parse_module(text)) == text


def test_timing_only_assumes_the_last_branch(three: Any) -> None:
    _, _, task_list = three
    result = emulate(task_list, None, EmulatorOptions(timing_only=True))
    control = result.report["control"]
    assert control["branches_assumed"] and control["taken"][0]["counts"] == {"2": 1}


def test_ge_run_reports_the_sink_against_the_host_driven_path() -> None:
    from geir.backends.run_model import RunSettings, run_model
    module = parse_module(case_text(THREE))
    report = run_model(module, RunSettings(inputs=feeds(1, X)))
    assert "control_flow" not in report.fields  # one task list, not host-driven
    compared = report.fields["sink_vs_host"]
    assert compared["sink"]["launches"] == 1 and compared["sink"]["host_round_trips"] == 0
    assert compared["host"]["host_round_trips"] == 1 and compared["host"]["outputs_max_abs_diff"] == 0.0
    np.testing.assert_allclose(report.outputs["y"], np.abs(X) + np.array(X, np.float32), rtol=1e-3)


_CHAIN = st.lists(st.sampled_from(sorted(OPS)), min_size=1, max_size=3)


@settings(max_examples=12, deadline=None)
@given(branches=st.lists(_CHAIN, min_size=1, max_size=4), index=st.integers(-2, 5),
       x=st.lists(st.integers(-8, 8), min_size=4, max_size=4))
def test_generated_cases_in_the_sink_equal_the_interpreter_and_the_reference(branches: list[list[str]], index: int,
                                                                            x: list[int]) -> None:
    """Whatever the branches and the index: the sink's output is the
    interpreter's and onnx.reference's on the nested If, nothing races, and
    every branch stream started was idle."""
    module = parse_module(case_text(branches))
    inputs = feeds(index, x)
    result = emulate(compiled(module), inputs)
    expected = ReferenceEvaluator(nested_if_model(branches)).run(None, inputs)[0]
    np.testing.assert_array_equal(result.outputs["y"], Interpreter(module).run(inputs)["y"])
    np.testing.assert_array_equal(result.outputs["y"], expected)
    assert result.races == [] and not result.report["uninitialised_reads"]
    assert result.report["control"]["lost_activations"] == 0
