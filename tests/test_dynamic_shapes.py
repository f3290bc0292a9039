"""Models with symbolic dims: imported with their dims as ``?``,
run by the interpreter on several sizes, specialised (``specialize-shapes``),
gear-compiled, and emulated, each compared with ``onnx.reference``.

The models are built with ``onnx.helper`` the way exporters write them (a
symbolic batch/sequence dim and the Shape -> Gather -> Concat -> Reshape
arithmetic around it), plus If / Loop / Scan, NonZero and TopK with a tensor k,
and ONNX's own ``light_*`` models with their batch dim made symbolic.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from geir.backends.emulator import emulate
from geir.backends.host_control import HostDriver
from geir.backends.interpreter import interpret
from geir.backends.io_bindings import find_graph, graph_signature
from geir.backends.rt_module import task_list_from_module
from geir.backends.shape_gears import (gear_label, gear_ops, gear_symbols, has_gears, keep_only, parse_gears,
                                       select_gear, specialize_gears)
from geir.diagnostics import DiagnosticError
from geir.api import run_model
from geir.onnx_importer import import_onnx
from geir.passes.lower_to_tasks import LowerToTasks
from geir.passes.pass_manager import PassManager
from geir.passes.range_shapes import data_dependent_diagnostics, dynamic_shape_diagnostics
from geir.passes.specialize_shapes import (SpecializeShapes, bindings_from_inputs, parse_shape_bindings,
                                           resolve_bindings, specialize_graph)
from geir.parser import parse_module
from geir.printer import module_to_string
from geir.tools.bench.models import symbolic_batch
from geir.verifier import verify
from scheduling_graphs import dags, random_dag_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIT_MODELS = os.path.join(ROOT, "lit_tests", "import", "Inputs")
ONNX_DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
OPSET = [helper.make_opsetid("", 17)]
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def _model(nodes, inputs, outputs, inits=(), name="m") -> onnx.ModelProto:  # type: ignore[no-untyped-def]
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=OPSET, ir_version=8)
    onnx.checker.check_model(model)
    return model


def _ints(name: str, values) -> onnx.TensorProto:  # type: ignore[no-untyped-def]
    return numpy_helper.from_array(np.array(values, np.int64), name)


def _reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    names = [o.name for o in model.graph.output]
    return dict(zip(names, ReferenceEvaluator(model).run(None, feeds)))


def _emulate_module(module, feeds):  # type: ignore[no-untyped-def]
    PassManager([LowerToTasks()]).run(module)
    return emulate(task_list_from_module(module), feeds).outputs


def _specialised(model: onnx.ModelProto, feeds: dict[str, np.ndarray]):  # type: ignore[no-untyped-def]
    """The dynamic import, bound from ``feeds`` as ge-run does."""
    module = import_onnx(model)
    graph = find_graph(module)
    specialize_graph(graph, module, resolve_bindings(graph, bindings_from_inputs(graph, feeds), "inputs"))
    verify(module)
    return module


def _close(actual: dict[str, np.ndarray], expected: dict[str, np.ndarray], rtol: float = 1e-5,
           atol: float = 1e-5) -> None:
    assert set(actual) == set(expected)
    for k in expected:
        assert actual[k].shape == expected[k].shape, k
        np.testing.assert_allclose(actual[k], expected[k], rtol=rtol, atol=atol, err_msg=k)


# ----------------------------------------------------------------- models


def mlp() -> onnx.ModelProto:
    """x[batch, 8] -> MatMul -> Add -> Relu -> MatMul -> Softmax."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("w1", (8, 16)), ("b1", (16,)), ("w2", (16, 4)))]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 8])],
                  [helper.make_tensor_value_info("y", F, ["batch", 4])], inits)


def heads() -> onnx.ModelProto:
    """Attention-style head split on x[batch, seq, 8]: Shape -> Gather ->
    Unsqueeze -> Concat -> Reshape to [b, s, 2, 4], Transpose, MatMul with its
    own transpose, Reshape back by a computed [b, 2, s, s] -> [b, 2*s*s]."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["s"], axis=0),
        helper.make_node("Unsqueeze", ["b", "axis0"], ["b1"]),
        helper.make_node("Unsqueeze", ["s", "axis0"], ["s1"]),
        helper.make_node("Concat", ["b1", "s1", "heads", "dim"], ["split_shape"], axis=0),
        helper.make_node("Reshape", ["x", "split_shape"], ["split"]),
        helper.make_node("Transpose", ["split"], ["q"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["split"], ["k"], perm=[0, 2, 3, 1]),
        helper.make_node("MatMul", ["q", "k"], ["scores"]),
        helper.make_node("Concat", ["b1", "minus1"], ["flat_shape"], axis=0),
        helper.make_node("Reshape", ["scores", "flat_shape"], ["y"]),
    ]
    inits = [_ints("zero", 0), _ints("one", 1), _ints("axis0", [0]), _ints("heads", [2]), _ints("dim", [4]),
             _ints("minus1", [-1])]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", "seq", 8])],
                  [helper.make_tensor_value_info("y", F, ["batch", None])], inits)


def relative_shift() -> onnx.ModelProto:
    """XLNet's relative shift on x[batch, 2, q, k]: Reshape by the computed
    [b, 2, k, q] (the same ?x2x?x? type, its dynamic extents swapped), drop the
    first row, Reshape back to [b, 2, q, -1]."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "dims_bnkq"], ["bnkq"], axis=0),
        helper.make_node("Reshape", ["x", "bnkq"], ["swapped"]),
        helper.make_node("Slice", ["swapped", "one", "big", "two"], ["shifted"]),
        helper.make_node("Gather", ["shape", "dims_bnq"], ["bnq"], axis=0),
        helper.make_node("Concat", ["bnq", "minus1"], ["back_shape"], axis=0),
        helper.make_node("Reshape", ["shifted", "back_shape"], ["y"]),
    ]
    inits = [_ints("dims_bnkq", [0, 1, 3, 2]), _ints("dims_bnq", [0, 1, 2]), _ints("one", [1]),
             _ints("big", [2 ** 62]), _ints("two", [2]), _ints("minus1", [-1])]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 2, "q", "k"])],
                  [helper.make_tensor_value_info("y", F, ["batch", 2, "q", None])], inits)


def if_model() -> onnx.ModelProto:
    """If on the sign of the input's sum: then doubles, else negates x[batch, 3]."""
    then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", F, ["batch", 3])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", F, ["batch", 3])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0),
             helper.make_node("Greater", ["total", "zero"], ["positive"]),
             helper.make_node("If", ["positive"], ["y"], then_branch=then_g, else_branch=else_g)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 3])],
                  [helper.make_tensor_value_info("y", F, ["batch", 3])],
                  [numpy_helper.from_array(np.array(0.0, np.float32), "zero")])


def loop_model() -> onnx.ModelProto:
    """Loop trip count = the batch size (from Shape): acc += x; the scan output
    is each step's column sums (1-D: onnx.reference stacks scan outputs with
    vstack, which is np.stack only for 1-D values)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("ReduceSum", ["acc_out", "axis0"], ["partial"], keepdims=0)], "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", F, ["batch", 2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", F, ["batch", 2]),
         helper.make_tensor_value_info("partial", F, [2])])
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["trips"], axis=0),
             helper.make_node("Loop", ["trips", "keep_going", "x"], ["total", "partials"], body=body)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 2])],
                  [helper.make_tensor_value_info("total", F, ["batch", 2]),
                   helper.make_tensor_value_info("partials", F, [None, 2])],
                  [_ints("zero", 0), _ints("axis0", [0]), numpy_helper.from_array(np.array(True), "keep_going")])


def scan_model() -> onnx.ModelProto:
    """Scan over the sequence axis of x[seq, 3]: running sum and each partial."""
    body = helper.make_graph(
        [helper.make_node("Add", ["state_in", "row"], ["state_out"]),
         helper.make_node("Identity", ["state_out"], ["out_row"])], "body",
        [helper.make_tensor_value_info("state_in", F, [3]), helper.make_tensor_value_info("row", F, [3])],
        [helper.make_tensor_value_info("state_out", F, [3]), helper.make_tensor_value_info("out_row", F, [3])])
    nodes = [helper.make_node("Scan", ["init", "x"], ["final", "rows"], body=body, num_scan_inputs=1)]
    return _model(nodes, [helper.make_tensor_value_info("init", F, [3]),
                          helper.make_tensor_value_info("x", F, ["seq", 3])],
                  [helper.make_tensor_value_info("final", F, [3]), helper.make_tensor_value_info("rows", F, ["seq", 3])])


def _feeds(model: onnx.ModelProto, sizes: dict[str, int], seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for vi in model.graph.input:
        shape = [d.dim_value if d.HasField("dim_value") else sizes[d.dim_param] for d in vi.type.tensor_type.shape.dim]
        out[vi.name] = rng.standard_normal(shape).astype(np.float32)
    return out


# ----------------------------------------------------------------- import


def test_symbolic_dims_import_as_question_marks_with_their_names() -> None:
    module = import_onnx(heads())
    sig = graph_signature(module)
    assert str(sig.inputs[0].type) == "tensor<?x?x8xf32>"
    assert 'ge.symbols = ["batch", "seq", ""]' in module_to_string(module)


def test_binding_a_symbol_at_import_makes_the_graph_static() -> None:
    module = import_onnx(heads(), input_shapes={"batch": (2,), "seq": (5,)})
    sig = graph_signature(module)
    assert str(sig.inputs[0].type) == "tensor<2x5x8xf32>"
    assert str(sig.outputs[0].type) == "tensor<2x50xf32>"
    assert dynamic_shape_diagnostics(find_graph(module)) == []


# ----------------------------------------------------------------- interpreter, specialised, emulated


STATIC_AFTER_BINDING = [("mlp", mlp, ["batch"]), ("heads", heads, ["batch", "seq"])]


@pytest.mark.parametrize("name,make,symbols", STATIC_AFTER_BINDING, ids=[c[0] for c in STATIC_AFTER_BINDING])
@pytest.mark.parametrize("size", [1, 3, 8])
def test_interpret_specialise_and_emulate_match_onnx_reference(name: str, make, symbols: list[str],  # type: ignore[no-untyped-def]
                                                               size: int) -> None:
    model = make()
    feeds = _feeds(model, {s: size + k for k, s in enumerate(symbols)})
    expected = _reference(model, feeds)
    _close(interpret(import_onnx(model), feeds), expected)  # the dynamic module as it is
    module = _specialised(model, feeds)
    graph = find_graph(module)
    assert dynamic_shape_diagnostics(graph) == []
    assert "ge.shape" not in module_to_string(module)  # the shape arithmetic folded
    _close(interpret(module, feeds), expected)
    _close(_emulate_module(module, feeds), expected)


CANONICALIZED_DYNAMIC = [*STATIC_AFTER_BINDING, ("relative_shift", relative_shift, ["batch", "q", "k"])]


@pytest.mark.parametrize("name,make,symbols", CANONICALIZED_DYNAMIC, ids=[c[0] for c in CANONICALIZED_DYNAMIC])
@pytest.mark.parametrize("size", [1, 3])
def test_canonicalize_before_binding_keeps_the_numbers(name: str, make, symbols: list[str],  # type: ignore[no-untyped-def]
                                                       size: int) -> None:
    """A tool that canonicalises a dynamic graph before its dims are bound
    (ge-bench, ge-opt --canonicalize then ge-run --input-shape) computes what
    the model does once they are."""
    from geir.passes.canonicalize import Canonicalize
    model = make()
    feeds = _feeds(model, {s: size + k for k, s in enumerate(symbols)})
    module = import_onnx(model)
    PassManager([Canonicalize()]).run(module)
    graph = find_graph(module)
    specialize_graph(graph, module, resolve_bindings(graph, bindings_from_inputs(graph, feeds), "inputs"))
    verify(module)
    _close(interpret(module, feeds), _reference(model, feeds))


def test_the_pass_and_the_import_binding_agree() -> None:
    model = heads()
    by_pass = import_onnx(model)
    PassManager([SpecializeShapes(shapes="batch=2,seq=3")]).run(by_pass)
    by_import = import_onnx(model, input_shapes={"x": (2, 3, 8)})
    assert graph_signature(by_pass) == graph_signature(by_import)


@settings(max_examples=25, deadline=None)
@given(dag=dags(2, 24))
def test_specialize_shapes_with_nothing_to_bind_leaves_a_static_graph_as_it_is(dag: tuple[int, int]) -> None:
    """ge-default begins with specialize-shapes: on a graph whose shapes are all
    static it changes nothing, so it costs a static model nothing but a walk."""
    module = parse_module(random_dag_text(*dag))
    before = module_to_string(module)
    PassManager([SpecializeShapes()]).run(module)
    assert module_to_string(module) == before


def test_geir_import_onnx_binds_as_ge_translate_does() -> None:
    """The public import with ``input_shapes`` folds the shape arithmetic the
    bound dims feed, as the pass does: the same module, no ``ge.shape`` left."""
    import geir
    by_pass = import_onnx(heads())
    PassManager([SpecializeShapes(shapes="batch=2,seq=3")]).run(by_pass)
    by_api = geir.import_onnx(heads(), {"batch": (2,), "seq": (3,)})
    assert module_to_string(by_api) == module_to_string(by_pass)
    assert "ge.shape" not in module_to_string(by_api)


@pytest.mark.parametrize("size", [1, 2, 5])
def test_if_loop_scan_run_in_the_interpreter_on_several_sizes(size: int) -> None:
    for model, sizes in ((if_model(), {"batch": size}), (loop_model(), {"batch": size}),
                         (scan_model(), {"seq": size})):
        for seed in (0, 1):
            feeds = _feeds(model, sizes, seed)
            expected = _reference(model, feeds)
            _close(interpret(import_onnx(model), feeds), expected)
            _close(interpret(_specialised(model, feeds), feeds), expected)


def test_a_loop_with_scan_outputs_in_one_task_list_is_refused_at_the_op() -> None:
    module = _specialised(loop_model(), _feeds(loop_model(), {"batch": 2}))
    with pytest.raises(DiagnosticError, match=r"'ge.loop' op (has scan outputs|result #0 dim 0 has a data-dependent size)"):
        PassManager([LowerToTasks()]).run(module)


@pytest.mark.parametrize("size", [1, 3])
def test_if_loop_scan_run_on_the_emulator_as_host_driven_launches(size: int) -> None:
    for model, sizes in ((if_model(), {"batch": size}), (loop_model(), {"batch": size}),
                         (scan_model(), {"seq": size}),
                         (onnx.load(os.path.join(LIT_MODELS, "if_loop.onnx")), {})):
        for seed in (0, 1):
            feeds = _feeds(model, sizes, seed)
            if "flag" in feeds:
                feeds["flag"] = np.array(seed == 0)
            driver = HostDriver(import_onnx(model))
            # (onnx.reference runs no iteration of a Loop without a cond input: there
            # the interpreter, checked against ONNX's conformance suite, is the oracle)
            no_cond = any(n.op_type == "Loop" and not n.input[1] for n in model.graph.node)
            expected = interpret(import_onnx(model), feeds) if no_cond else _reference(model, feeds)
            _close(driver.run(feeds), expected)
            assert driver.launches and all(not launch.findings for launch in driver.launches)


def growing_loop_model() -> onnx.ModelProto:
    """A Loop that appends a row of x to its carried value each trip, the carried
    input declared with the initial value's shape, 0 x 3, as torch's exporter
    writes it (Mask R-CNN's mask pasting)."""
    body = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x", "axis0"], ["row"]),
         helper.make_node("Concat", ["acc_in", "row"], ["acc_out"], axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", F, [0, 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", F, [1, 3])])
    nodes = [helper.make_node("Loop", ["trips", "keep_going", "empty"], ["rows"], body=body)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, [3]), helper.make_tensor_value_info("trips", I64, [])],
                  [helper.make_tensor_value_info("rows", F, [None, 3])],
                  [_ints("axis0", [0]), numpy_helper.from_array(np.array(True), "keep_going"),
                   numpy_helper.from_array(np.zeros((0, 3), np.float32), "empty")])


@pytest.mark.parametrize("trips", [1, 4])
def test_a_carried_value_declared_at_its_initial_shape_still_grows(trips: int) -> None:
    model = growing_loop_model()
    module = import_onnx(model)
    body = next(op for op in module.walk() if op.name == "ge.loop").regions[0].blocks[0]
    # the carried argument and what the body yields take the dims every trip agrees on
    assert [str(a.type) for a in body.arguments[2:]] == ["tensor<?x3xf32>"]
    assert str(body.last_op.operands[1].type) == "tensor<?x3xf32>"
    feeds = {"x": np.arange(3, dtype=np.float32), "trips": np.array(trips, np.int64)}
    expected = _reference(model, feeds)
    _close(interpret(import_onnx(model), feeds), expected)
    driver = HostDriver(import_onnx(model))
    _close(driver.run(feeds), expected)
    assert len(driver.launches) == trips


def test_a_loop_body_is_lowered_once_per_input_shape() -> None:
    model = loop_model()
    driver = HostDriver(import_onnx(model))
    driver.run(_feeds(model, {"batch": 5}))
    segments = [launch.segment for launch in driver.launches]
    # the shape arithmetic before the loop, then the body once per trip (batch = 5 trips)
    assert segments == ["segment0"] + ["segment1"] * 5
    assert len(driver._lowered) == 2


def test_nonzero_runs_in_the_interpreter_and_is_refused_at_its_dim() -> None:
    model = onnx.load(os.path.join(LIT_MODELS, "nonzero.onnx"))
    x = np.array([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 0, 5]], np.float32)
    np.testing.assert_array_equal(interpret(import_onnx(model), {"x": x})["y"], _reference(model, {"x": x})["y"])
    module = _specialised(model, {"x": x})
    (problem,) = dynamic_shape_diagnostics(find_graph(module))
    assert "'ge.nonzero' op result #0 dim 1 has a data-dependent size" in problem.message


def nonzero_chain() -> onnx.ModelProto:
    """The non-zero elements of x[batch, 4], doubled: NonZero -> Transpose ->
    GatherND -> Mul, every size after NonZero data-dependent."""
    nodes = [helper.make_node("NonZero", ["x"], ["where"]),
             helper.make_node("Transpose", ["where"], ["indices"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "indices"], ["values"]),
             helper.make_node("Mul", ["values", "two"], ["y"])]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 4])],
                  [helper.make_tensor_value_info("y", F, [None])],
                  [numpy_helper.from_array(np.array(2.0, np.float32), "two")])


@pytest.mark.parametrize("batch", [1, 3])
def test_data_dependent_sizes_run_on_the_emulator_as_their_own_launch(batch: int) -> None:
    model = nonzero_chain()
    for seed in (0, 1):
        x = np.random.default_rng(seed).standard_normal((batch, 4)).astype(np.float32)
        x[x < 0] = 0  # about half the elements are zero
        feeds = {"x": x}
        module = _specialised(model, feeds)
        assert data_dependent_diagnostics(find_graph(module))
        driver = HostDriver(module)
        _close(driver.run(feeds), _reference(model, feeds))
        # before NonZero (nothing), NonZero alone, then the rest at the size it gave
        assert [launch.at for launch in driver.launches] == ["NonZero_0", "Transpose_1"]


def detector_rounds(rounds: int) -> onnx.ModelProto:
    """A detector's post-processing in miniature, ``rounds`` times over x[batch, 4]:
    the non-zero elements of x * c (NonZero -> Transpose -> GatherND), then the top
    k = min(their count, 2) (Shape -> Min -> TopK). Only NonZero's size depends on
    values; the shape arithmetic before TopK folds once NonZero's size is known."""
    nodes, inits, outputs = [], [_ints("two", [2])], []
    for i in range(rounds):
        inits.append(numpy_helper.from_array(np.array(i + 1.0, np.float32), f"c{i}"))
        nodes += [helper.make_node("Mul", ["x", f"c{i}"], [f"r{i}"]),
                  helper.make_node("NonZero", [f"r{i}"], [f"where{i}"]),
                  helper.make_node("Transpose", [f"where{i}"], [f"idx{i}"], perm=[1, 0]),
                  helper.make_node("GatherND", [f"r{i}", f"idx{i}"], [f"v{i}"]),
                  helper.make_node("Shape", [f"v{i}"], [f"n{i}"]),
                  helper.make_node("Min", [f"n{i}", "two"], [f"k{i}"]),
                  helper.make_node("TopK", [f"v{i}", f"k{i}"], [f"y{i}", f"top{i}"])]
        outputs.append(helper.make_tensor_value_info(f"y{i}", F, [None]))
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 4])], outputs, inits)


def test_a_segment_splits_only_at_the_ops_whose_size_depends_on_values() -> None:
    model = detector_rounds(3)
    feeds = {"x": np.array([[0, 1, 0, 2], [3, 0, 0, 5]], np.float32)}
    driver = HostDriver(_specialised(model, feeds))
    _close(driver.run(feeds), _reference(model, feeds))
    # each NonZero launches alone; what follows it, to the next NonZero, is one
    # launch (the folded Shape -> Min makes TopK static, so it never launches alone)
    assert [launch.at for launch in driver.launches] == [
        "Mul_0", "NonZero_1", "Transpose_2", "NonZero_8", "Transpose_9", "NonZero_15", "Transpose_16"]
    assert [launch.segment for launch in driver.launches] == [f"segment{i}" for i in range(7)]


def test_a_launch_reuses_bytes_as_ge_plans_each_graph_it_launches() -> None:
    """Four elementwise ops on a 64 x 64 tensor, then NonZero: the first launch's
    arena holds two of the four intermediate tensors at a time, not all four."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["a"], ["b"]),
             helper.make_node("Abs", ["b"], ["c"]), helper.make_node("Neg", ["c"], ["d"]),
             helper.make_node("NonZero", ["d"], ["y"])]
    model = _model(nodes, [helper.make_tensor_value_info("x", F, [64, 64])],
                   [helper.make_tensor_value_info("y", I64, [2, None])])
    feeds = {"x": np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)}
    driver = HostDriver(_specialised(model, feeds))
    _close(driver.run(feeds), _reference(model, feeds))
    chain = driver.task_lists()[0]
    assert [launch.at for launch in driver.launches] == ["Relu_0", "NonZero_4"]
    assert chain.arena_size <= 2 * 64 * 64 * 4 + 1024  # the result leaves through its own output buffer


@pytest.mark.parametrize("batch", [1, 4])
def test_an_unshaped_onnx_ml_op_runs_on_the_emulator(batch: int) -> None:
    model = onnx.load(os.path.join(LIT_MODELS, "ml_scaler.onnx"))
    feeds = _feeds(model, {"N": batch})
    module = _specialised(model, feeds)
    (problem,) = data_dependent_diagnostics(find_graph(module))
    assert "(ai.onnx.ml.Scaler) result #0 has no static shape" in problem.message
    _close(HostDriver(module).run(feeds), _reference(model, feeds))


@pytest.mark.parametrize("n", [2, 6, 7])
def test_topk_with_a_computed_k_becomes_static(n: int) -> None:
    model = onnx.load(os.path.join(LIT_MODELS, "topk.onnx"))
    feeds = {"x": np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)}
    expected = _reference(model, feeds)
    module = _specialised(model, feeds)
    assert dynamic_shape_diagnostics(find_graph(module)) == []
    _close(_emulate_module(module, feeds), expected)


# ----------------------------------------------------------------- light models, batch made symbolic


#: light models whose graph takes any batch (the others Reshape to a constant
#: [1, ...], a batch of 1 baked in by the exporter: they fail in onnx.reference too)
#: (squeezenet takes any batch too, but its logits reach 1e11, so which of its
#: tied maxima win the Softmax depends on the summation order of the machine's BLAS)
BATCH_POLYMORPHIC = ["light_densenet121.onnx"]


@pytest.mark.parametrize("name", BATCH_POLYMORPHIC)
@pytest.mark.parametrize("batch", [2, 3])
def test_light_model_with_a_symbolic_batch(name: str, batch: int) -> None:
    """The shipped input, repeated ``batch`` times, gives the shipped output
    repeated (onnx.reference is no oracle here: its Softmax-1 ignores the
    opset-9 2-D coercion these models use)."""
    from onnx.backend.test.runner import Runner
    path = os.path.join(ONNX_DATA, "light", name)
    model = symbolic_batch(path)
    sig = graph_signature(import_onnx(model))
    assert sig.inputs[0].type.shape[0] is None  # type: ignore[union-attr]
    static = onnx.load(path)
    initializers = {t.name for t in static.graph.initializer}
    x = Runner.generate_dummy_data(next(i for i in static.graph.input if i.name not in initializers))
    expected = numpy_helper.to_array(onnx.load_tensor(path[:-len(".onnx")] + "_output_0.pb"))
    feeds = {sig.inputs[0].name: np.concatenate([x] * batch)}
    (actual,) = interpret(_specialised(model, feeds), feeds).values()
    np.testing.assert_allclose(actual, np.concatenate([expected] * batch), rtol=1e-3, atol=1e-5)


# ----------------------------------------------------------------- gears


def _gear_module(model: onnx.ModelProto, kind: str, text: str, **bind: int):  # type: ignore[no-untyped-def]
    module = import_onnx(model, input_shapes={k: (v,) for k, v in bind.items()})
    specialize_gears(module, kind, parse_gears(kind, text))
    verify(module)
    return module


def _run_gear(module, feeds):  # type: ignore[no-untyped-def]
    """A run as ge-run makes it: the gear picked, compiled for the device and emulated
    (in f32, so that the outputs compare with onnx.reference's)."""
    report = run_model(module, inputs=feeds, precision_mode="must_keep_origin_dtype", compare=False)
    return select_gear(module, feeds), report


@pytest.mark.parametrize("batch", [1, 3, 4, 7])
def test_batch_gears_pad_and_trim_to_the_reference(batch: int) -> None:
    model = heads()
    module = _gear_module(model, "batch", "1,2,4,8", seq=3)
    feeds = _feeds(model, {"batch": batch, "seq": 3})
    selection, report = _run_gear(module, feeds)
    assert selection.gear == {"batch": min(g for g in (1, 2, 4, 8) if g >= batch)}
    assert report.fields["gear"].startswith(f"main_gear{(1, 2, 4, 8).index(selection.gear['batch'])} ")
    _close(report.outputs, _reference(model, feeds))


def test_image_gear_that_fits_exactly_matches_the_reference() -> None:
    model = onnx.load(os.path.join(LIT_MODELS, "image.onnx"))
    module = _gear_module(model, "image", "8,8;16,12", N=2)
    feeds = _feeds(model, {"N": 2, "H": 16, "W": 12})
    selection, report = _run_gear(module, feeds)
    assert selection.gear == {"H": 16, "W": 12}
    _close(report.outputs, _reference(model, feeds), rtol=1e-4, atol=1e-4)


def test_dims_gears_cover_every_symbol_in_order() -> None:
    model = onnx.load(os.path.join(LIT_MODELS, "shape_chain.onnx"))
    module = import_onnx(model)
    order, dims = gear_symbols(find_graph(module), "dims")
    assert order == ["batch", "seq"] and dims == [("x", 0, "batch"), ("x", 1, "seq")]
    module = _gear_module(model, "dims", "1,2;4,4")
    feeds = _feeds(model, {"batch": 3, "seq": 3})
    selection, report = _run_gear(module, feeds)
    assert selection.gear == {"batch": 4, "seq": 4}
    expected = _reference(model, feeds)
    # z is elementwise in batch and seq; y's rows are batch*seq, which padding seq interleaves
    _close({"z": report.outputs["z"]}, {"z": expected["z"]})


def test_no_gear_fits_lists_the_gears() -> None:
    module = _gear_module(mlp(), "batch", "1,2")
    with pytest.raises(DiagnosticError, match=r"no gear fits the inputs \(batch=3\); the gears are: batch=1; batch=2"):
        select_gear(module, _feeds(mlp(), {"batch": 3}))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 16), min_size=1, max_size=5, unique=True), st.integers(1, 16))
def test_the_chosen_gear_is_the_smallest_that_fits(gears: list[int], batch: int) -> None:
    module = _gear_module(mlp(), "batch", ",".join(map(str, gears)))
    feeds = _feeds(mlp(), {"batch": batch})
    fitting = [g for g in gears if g >= batch]
    if not fitting:
        with pytest.raises(DiagnosticError, match="no gear fits"):
            select_gear(module, feeds)
        return
    selection = select_gear(module, feeds)
    assert selection.gear == {"batch": min(fitting)}
    assert selection.inputs["x"].shape == (min(fitting), 8)
    np.testing.assert_array_equal(selection.inputs["x"][:batch], feeds["x"])
    assert not selection.inputs["x"][batch:].any()


@pytest.mark.parametrize("device", ["910B2", "310P3"])
def test_a_gear_runs_as_its_batch_compiled_for_the_device(device: str) -> None:
    """A gear is timed as the same batch of the model compiled for the device:
    the pipeline, the stream plan and the memory plan are the static model's."""
    model = onnx.load(os.path.join(LIT_MODELS, "shape_chain.onnx"))
    module = _gear_module(model, "batch", "1,4", seq=2)
    feeds = _feeds(model, {"batch": 4, "seq": 2})
    gear = run_model(module, inputs=feeds, device=device)
    static = run_model(import_onnx(model, input_shapes={"batch": (4,), "seq": (2,)}), inputs=feeds, device=device)
    assert gear.fields["pipeline"] == static.fields["pipeline"] == f"ge-default{{device={device}}}"
    assert gear.fields["makespan_us"] == static.fields["makespan_us"]
    assert gear.fields["memory_plan"] == static.fields["memory_plan"]
    for name, value in static.outputs.items():
        np.testing.assert_array_equal(gear.outputs[name], value)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 8))
def test_a_size_picks_the_gear_its_arrays_would(batch: int) -> None:
    """``input_shapes`` (a symbol's size or an input's shape) picks the gear that
    arrays of that size pick, and runs it on random inputs of that size."""
    model = onnx.load(os.path.join(LIT_MODELS, "shape_chain.onnx"))
    module = _gear_module(model, "batch", "2,4,8", seq=2)
    arrays = run_model(module, inputs=_feeds(model, {"batch": batch, "seq": 2}), compare=False)
    for shapes in ({"batch": batch}, {"x": (batch, 2, 4)}):
        sized = run_model(module, input_shapes=shapes, compare=False)
        assert sized.fields["gear"] == arrays.fields["gear"]
        assert sized.fields["makespan_us"] == arrays.fields["makespan_us"]
        assert {k: v.shape for k, v in sized.outputs.items()} == {k: v.shape for k, v in arrays.outputs.items()}
        assert sized.random_seed == 0


@pytest.mark.parametrize("kind, text, runs", [("batch", "1,2,8", [{"N": 1}, {"N": 2}, {"N": 8}]),
                                               ("dims", "1,16,8;2,8,8;1,4,4", [{"N": 1, "H": 4, "W": 4}])])
def test_a_gear_module_holds_its_largest_gear_plan_whichever_gear_runs(
        kind: str, text: str, runs: list[dict[str, int]]) -> None:
    """GE lays every gear's memory blocks into the largest gear's: each run reports,
    beside its own plan, the largest plan among the gears of the most input
    elements (two of equal inputs are both compiled), each as it plans when it runs."""
    model = onnx.load(os.path.join(LIT_MODELS, "image.onnx"))
    bind = {"H": 16, "W": 16} if kind == "batch" else {}
    module = _gear_module(model, kind, text, **bind)
    own = {}
    for gear in gear_ops(module):
        alone = module.clone()
        keep_only(alone, str(gear.get_attr("sym_name")))
        sizes = dict(_gear_sizes(gear))
        own[gear_label(gear)] = run_model(alone, input_shapes=sizes, compare=False,
                                          timing_only=True).fields["memory_plan"]["arena_bytes"]
    most = max(_input_count(g) for g in gear_ops(module))
    want = max(own[gear_label(g)] for g in gear_ops(module) if _input_count(g) == most)
    for sizes in runs:
        report = run_model(module, input_shapes=sizes, compare=False, timing_only=True)
        assert report.fields["gears_memory"]["plan_bytes"] == want
        assert report.fields["gears_memory"]["gears"] == len(own)
        assert own[report.fields["gears_memory"]["gear"]] == want
        assert report.fields["memory_plan"]["arena_bytes"] <= want


def _gear_sizes(gear) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [(str(p.value[0].value), int(p.value[1].value)) for p in gear.attributes["ge.gear"]]


def _input_count(gear) -> int:  # type: ignore[no-untyped-def]
    return int(np.prod(gear.attributes["function_type"].value.inputs[0].shape))


def test_lowering_a_gear_module_keeps_its_gears() -> None:
    """``lower-to-tasks`` carries each gear onto its task list, which then runs as written."""
    model = onnx.load(os.path.join(LIT_MODELS, "shape_chain.onnx"))
    module = _gear_module(model, "batch", "1,4", seq=2)
    feeds = _feeds(model, {"batch": 3, "seq": 2})
    compiled = run_model(module, inputs=feeds, compare=False)
    PassManager([LowerToTasks()]).run(module)
    assert has_gears(module) and not any(op.name == "ge.graph" for op in module.body.ops)
    lowered = run_model(module, inputs=feeds)
    assert lowered.fields["gear"] == compiled.fields["gear"] == "main_gear1 (batch=4; inputs batch=3, padded)"
    assert "pipeline" not in lowered.fields
    for name, value in lowered.outputs.items():
        assert value.shape == compiled.outputs[name].shape


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**16))
def test_specialising_never_changes_what_the_graph_computes(batch: int, seq: int, seed: int) -> None:
    """Folding and re-inference are semantics-preserving: the specialised graph
    and the dynamic one give the same outputs (and the dynamic one onnx.reference's)."""
    model = heads()
    feeds = _feeds(model, {"batch": batch, "seq": seq}, seed)
    dynamic = interpret(import_onnx(model), feeds)
    module = _specialised(model, feeds)
    assert all(b.type.is_static for b in graph_signature(module).outputs)  # type: ignore[union-attr]
    for name, value in interpret(module, feeds).items():
        np.testing.assert_array_equal(value, dynamic[name])


# ----------------------------------------------------------------- bindings


@given(st.lists(st.tuples(st.sampled_from(["x", "batch", "seq", "n_1"]),
                          st.lists(st.integers(0, 999), min_size=1, max_size=4)), min_size=1, max_size=3,
                unique_by=lambda e: e[0]))
def test_binding_text_round_trips(entries: list[tuple[str, list[int]]]) -> None:
    text = ",".join(f"{n}={'x'.join(map(str, d))}" for n, d in entries)
    assert parse_shape_bindings(text) == {n: tuple(d) for n, d in entries}
    # ATC's --input_shape spelling of the same bindings reads the same
    atc = ";".join(f"{n}:{','.join(map(str, d))}" for n, d in entries)
    assert parse_shape_bindings(atc) == {n: tuple(d) for n, d in entries}


def test_an_atc_name_may_hold_a_colon_and_a_scalar_has_no_dims() -> None:
    assert parse_shape_bindings("input:0:1,3;flag:") == {"input:0": (1, 3), "flag": ()}


@pytest.mark.parametrize("text", ["x", "x=", "=3", "x=3x", "x=ax2", "x=-1", "x=1.5", "x:-1,3", "x:1~4", ":3",
                                  "x:3x4"])
def test_bad_binding_text_is_a_diagnostic(text: str) -> None:
    if text == "x=":
        assert parse_shape_bindings(text) == {"x": ()}  # a scalar input
        return
    with pytest.raises(DiagnosticError, match="expects NAME"):
        parse_shape_bindings(text)


def test_one_symbol_one_size_across_inputs() -> None:
    model = onnx.load(os.path.join(LIT_MODELS, "two_inputs.onnx"))
    graph = find_graph(import_onnx(model))
    feeds = {"x": np.ones((2, 4), np.float32), "y": np.ones((3, 4), np.float32)}
    with pytest.raises(DiagnosticError, match=r"'batch' is bound to 2 by input 'x' \(dim 0\) but to 3 by input 'y'"):
        bindings_from_inputs(graph, feeds)
