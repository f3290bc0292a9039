"""Control-flow regions are inferred against bound shapes only when they run.

The models have one branch per input layout (as an audio model with a branch
per sample rate): x[batch, n, k] with k = 1 takes the branch that squeezes dim
2; the other branch squeezes dim 1 and is invalid once n = 4 is bound. Binding
must not fail on the branch that will not run:

* a condition that is a constant, or that folds once the shapes are bound, makes
  the If its taken branch before the other is inferred (one task list);
* a condition known only at run time leaves the invalid branch with its dynamic
  types; the host runs the taken branch, and taking the invalid one is an error
  located at its op.

The same for a Loop whose trip count folds to 0 (its body never runs), and for
a model exported with static shapes: the importer checks the taken branch of a
constant condition as it is, and imports a branch that may not run and is
invalid for the static shapes reading them as dynamic.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.host_control import HostDriver, has_control_flow
from geir.backends.interpreter import interpret
from geir.backends.io_bindings import find_graph
from geir.diagnostics import DiagnosticError
from geir.passes.specialize_shapes import resolve_bindings, specialize_graph
from geir.types import TensorType
from geir.verifier import verify

F = TensorProto.FLOAT
BOUND = {"batch": (2,), "n": (4,), "k": (1,)}
SHAPE = (2, 4, 1)


def _ints(name: str, value) -> onnx.TensorProto:  # type: ignore[no-untyped-def]
    return numpy_helper.from_array(np.array(value, np.int64), name)


def branch_per_layout(condition: str) -> onnx.ModelProto:
    """If(cond) then Squeeze(x, [2]) else Relu(Squeeze(x, [1])), then Sigmoid.
    ``condition``: ``constant`` (True), ``shape`` (dim 2 of x == 1) or
    ``runtime`` (max(x) > 0)."""
    then_g = helper.make_graph([helper.make_node("Squeeze", ["x", "axis2"], ["then_y"], name="then_squeeze")],
                               "then", [], [helper.make_tensor_value_info("then_y", F, None)])
    else_g = helper.make_graph([helper.make_node("Squeeze", ["x", "axis1"], ["else_sq"], name="else_squeeze"),
                                helper.make_node("Relu", ["else_sq"], ["else_y"])],
                               "else", [], [helper.make_tensor_value_info("else_y", F, None)])
    inits = [_ints("axis1", [1]), _ints("axis2", [2]), _ints("two", 2), _ints("one", 1),
             numpy_helper.from_array(np.array(0.0, np.float32), "zero_f")]
    if condition == "constant":
        nodes = [helper.make_node("Constant", [], ["cond"], value=numpy_helper.from_array(np.array(True)))]
    elif condition == "shape":
        nodes = [helper.make_node("Shape", ["x"], ["shape"]),
                 helper.make_node("Gather", ["shape", "two"], ["k"], axis=0),
                 helper.make_node("Equal", ["k", "one"], ["cond"])]
    else:
        nodes = [helper.make_node("ReduceMax", ["x"], ["peak"], keepdims=0),
                 helper.make_node("Greater", ["peak", "zero_f"], ["cond"])]
    nodes += [helper.make_node("If", ["cond"], ["picked"], then_branch=then_g, else_branch=else_g),
              helper.make_node("Sigmoid", ["picked"], ["y"])]
    graph = helper.make_graph(nodes, f"if_{condition}", [helper.make_tensor_value_info("x", F, ["batch", "n", "k"])],
                              [helper.make_tensor_value_info("y", F, ["batch", None])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def loop_never_runs(trip_count: str) -> onnx.ModelProto:
    """v = Squeeze(x, [2]); Loop M times: v += Squeeze(x, [1]) (invalid for n = 4);
    ``trip_count``: ``shape`` (dim 2 of x minus 1: 0 once k = 1) or ``runtime``
    (the input m)."""
    body = helper.make_graph(
        [helper.make_node("Squeeze", ["x", "axis1"], ["row"], name="body_squeeze"),
         helper.make_node("Add", ["v_in", "row"], ["v_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v_in", F, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", F, None)])
    inputs = [helper.make_tensor_value_info("x", F, ["batch", "n", "k"])]
    nodes = [helper.make_node("Squeeze", ["x", "axis2"], ["v0"])]
    if trip_count == "shape":
        nodes += [helper.make_node("Shape", ["x"], ["shape"]),
                  helper.make_node("Gather", ["shape", "two"], ["k"], axis=0),
                  helper.make_node("Sub", ["k", "one"], ["m"])]
    else:
        inputs.append(helper.make_tensor_value_info("m", TensorProto.INT64, []))
    nodes += [helper.make_node("Loop", ["m", "", "v0"], ["v"], body=body),
              helper.make_node("Sigmoid", ["v"], ["y"])]
    graph = helper.make_graph(nodes, f"loop_{trip_count}", inputs,
                              [helper.make_tensor_value_info("y", F, ["batch", None])],
                              [_ints("axis1", [1]), _ints("axis2", [2]), _ints("two", 2), _ints("one", 1)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _bound(model: onnx.ModelProto) -> geir.Module:
    """The dynamic import with batch=2, n=4, k=1 bound, as ge-run --input-shape does."""
    module = geir.import_onnx(model)
    graph = find_graph(module)
    specialize_graph(graph, module, resolve_bindings(graph, BOUND, "test"))
    verify(module)
    return module


def _reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    (y,) = ReferenceEvaluator(model).run(None, feeds)
    return y


@pytest.mark.parametrize("condition", ["constant", "shape"])
def test_a_known_condition_makes_the_if_its_taken_branch(condition: str) -> None:
    """Binding inlines the taken branch; the invalid one is never inferred, and
    the graph is static: one task list, equal to onnx.reference."""
    model = branch_per_layout(condition)
    module = _bound(model)
    graph = find_graph(module)
    assert not has_control_flow(graph)
    assert not any("else_squeeze" in str(op.location) for op in graph.walk())
    squeezes = [op for op in graph.walk() if op.name == "ge.squeeze"]
    assert [op.results[0].type.shape for op in squeezes] == [(2, 4)]  # type: ignore[union-attr]
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    report = geir.emulate(geir.lower(module), inputs={"x": x})
    np.testing.assert_allclose(report.outputs["y"], _reference(model, {"x": x}), rtol=1e-6)


def test_canonicalize_inlines_a_condition_that_folds_from_static_dims() -> None:
    """Without binding the batch: dim 2 is static in the type, so canonicalize
    alone folds the condition and inlines the then branch."""
    model = branch_per_layout("shape")
    module = geir.import_onnx(model)
    graph = find_graph(module)
    specialize_graph(graph, module, resolve_bindings(graph, {"k": (1,)}, "test"))  # batch and n stay symbolic
    geir.run_pipeline(module, "canonicalize")
    assert not has_control_flow(find_graph(module))
    x = np.random.default_rng(1).standard_normal((3, 5, 1)).astype(np.float32)
    (y,) = interpret(module, {"x": x}).values()
    np.testing.assert_allclose(y, _reference(model, {"x": x}), rtol=1e-6)


@pytest.fixture(scope="module")
def runtime_if() -> tuple[onnx.ModelProto, geir.Module]:
    model = branch_per_layout("runtime")
    return model, _bound(model)


def test_a_runtime_condition_keeps_the_invalid_branch_dynamic(runtime_if) -> None:  # type: ignore[no-untyped-def]
    """The branch that can take the bound shapes is specialised, the other keeps
    its dynamic types; the module verifies."""
    _, module = runtime_if
    (if_op,) = [op for op in find_graph(module).walk() if op.name == "ge.if"]
    then_types = [op.results[0].type for op in if_op.regions[0].blocks[0].ops if op.results]
    else_types = [op.results[0].type for op in if_op.regions[1].blocks[0].ops if op.results]
    assert all(isinstance(t, TensorType) and t.is_static for t in then_types)
    assert any(isinstance(t, TensorType) and not t.is_static for t in else_types)


def test_the_host_runs_the_valid_branch_it_takes(runtime_if) -> None:  # type: ignore[no-untyped-def]
    model, module = runtime_if
    x = np.abs(np.random.default_rng(2).standard_normal(SHAPE)).astype(np.float32)  # max > 0: the then branch
    driver = HostDriver(module)
    (y,) = driver.run({"x": x}).values()
    np.testing.assert_allclose(y, _reference(model, {"x": x}), rtol=1e-6)
    assert driver.launches and not any(launch.findings for launch in driver.launches)


def test_taking_the_invalid_branch_is_a_located_error(runtime_if) -> None:  # type: ignore[no-untyped-def]
    _, module = runtime_if
    x = -np.ones(SHAPE, np.float32)  # max <= 0: the else branch, which squeezes dim 1 of size 4
    with pytest.raises(DiagnosticError) as info:
        HostDriver(module).run({"x": x})
    (d,) = info.value.diagnostics
    assert "cannot squeeze axis 1 of size 4" in d.message and "ge.squeeze" in d.message
    assert "else_squeeze" in str(d.location)


def test_a_loop_that_never_runs_is_its_initial_values() -> None:
    """The trip count folds to 0: the body (invalid for the bound shapes) is never inferred."""
    model = loop_never_runs("shape")
    module = _bound(model)
    assert not has_control_flow(find_graph(module))
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    report = geir.emulate(geir.lower(module), inputs={"x": x})
    np.testing.assert_allclose(report.outputs["y"], _reference(model, {"x": x}), rtol=1e-6)


def test_a_loop_with_a_runtime_trip_count_keeps_an_invalid_body_dynamic() -> None:
    """Binding succeeds; with m = 0 the host never runs the body."""
    model = loop_never_runs("runtime")
    module = _bound(model)
    (squeeze,) = [op for op in find_graph(module).walk() if op.name == "ge.squeeze" and "body" in str(op.location)]
    assert not squeeze.results[0].type.is_static  # type: ignore[union-attr]
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    m = np.array(0, np.int64)
    (y,) = HostDriver(module).run({"x": x, "m": m}).values()
    np.testing.assert_allclose(y, _reference(model, {"x": x, "m": m}), rtol=1e-6)


# ------------------------------------------------ a model exported with static shapes

def _static(model: onnx.ModelProto, taken: bool = True) -> onnx.ModelProto:
    """``model`` with x declared 2x4x1 (and y's dims unnamed, left to inference); a
    constant condition set to ``taken``."""
    static = onnx.ModelProto()
    static.CopyFrom(model)
    for dim, size in zip(static.graph.input[0].type.tensor_type.shape.dim, SHAPE):
        dim.Clear()
        dim.dim_value = size
    for dim in static.graph.output[0].type.tensor_type.shape.dim:
        dim.Clear()
    for node in static.graph.node:
        if node.op_type == "Constant" and node.output[0] == "cond":
            node.attribute[0].t.CopyFrom(numpy_helper.from_array(np.array(taken), "cond"))
    return static


@pytest.mark.parametrize("condition", ["constant", "shape", "runtime"])
def test_a_static_model_with_an_invalid_branch_imports_and_runs(condition: str) -> None:
    """``ge-run M.onnx`` on the static export: a condition known at compile
    time runs as one task list, a runtime one as host-driven launches; both
    equal to onnx.reference."""
    model = _static(branch_per_layout(condition))
    x = np.abs(np.random.default_rng(5).standard_normal(SHAPE)).astype(np.float32)  # max > 0: then
    report = geir.run_model(model, inputs={"x": x}, precision_mode="must_keep_origin_dtype")
    assert (report.result is None) == (condition == "runtime")  # host-driven launches have no one result
    np.testing.assert_allclose(report.outputs["y"], _reference(model, {"x": x}), rtol=1e-6)


def test_a_static_model_keeps_only_the_untaken_or_runtime_branch_dynamic() -> None:
    """The importer widens the outer values a branch reads only where the branch
    may not run and is invalid: the valid then branch keeps the static types."""
    (if_op,) = [op for op in find_graph(geir.import_onnx(_static(branch_per_layout("runtime")))).walk()
                if op.name == "ge.if"]
    then_ops, else_ops = (list(r.blocks[0].ops) for r in if_op.regions)
    assert "ge.identity" not in [op.name for op in then_ops]
    assert then_ops[0].results[0].type.shape == (2, 4)  # type: ignore[union-attr]
    assert else_ops[0].name == "ge.identity" and else_ops[0].results[0].type.shape == (None, None, None)  # type: ignore[union-attr]
    assert if_op.results[0].type.shape == (None, None)  # type: ignore[union-attr]  # 2x4 or ?x?: rank 2


def test_a_static_model_whose_taken_branch_is_invalid_is_a_located_error() -> None:
    """A constant condition that takes the invalid branch: the error at import,
    at the op, as for any invalid op."""
    with pytest.raises(geir.Error) as info:
        geir.import_onnx(_static(branch_per_layout("constant"), taken=False))
    assert "else_squeeze" in str(info.value) and "cannot squeeze axis 1 of size 4" in str(info.value)


def test_a_static_model_taking_the_invalid_branch_at_run_time_is_a_located_error() -> None:
    model = _static(branch_per_layout("runtime"))
    with pytest.raises(geir.Error) as info:
        geir.run_model(model, inputs={"x": -np.ones(SHAPE, np.float32)})
    assert "else_squeeze" in str(info.value) and "cannot squeeze axis 1 of size 4" in str(info.value)


@pytest.mark.parametrize("trip_count", ["shape", "runtime"])
def test_a_static_model_with_a_loop_body_invalid_for_its_shapes(trip_count: str) -> None:
    model = _static(loop_never_runs(trip_count))
    feeds = {"x": np.random.default_rng(6).standard_normal(SHAPE).astype(np.float32)}
    if trip_count == "runtime":
        feeds["m"] = np.array(0, np.int64)
    report = geir.run_model(model, inputs=feeds, precision_mode="must_keep_origin_dtype")
    np.testing.assert_allclose(report.outputs["y"], _reference(model, feeds), rtol=1e-6)
