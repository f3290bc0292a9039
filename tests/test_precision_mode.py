"""precision-mode: ATC's --precision_mode as a pass.

Each mode keeps the graph's signature, converts only float tensors, never
inserts casts that cancel, and computes what ``onnx.reference`` computes within
the tolerance of the types that run (f16: about three decimal digits per op).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from geir.attributes import DenseResourceAttr
from geir.backends.device_profile import PRECISION_MODES, available_profiles, load_profile
from geir.backends.interpreter import interpret
from geir.diagnostics import DiagnosticError
from geir.module import Module
from geir.onnx_importer import import_onnx
from geir.parser import parse_module
from geir.passes.pass_base import PassContext
from geir.passes.pipeline import parse_pipeline
from geir.passes.precision_mode import FLOAT_CUBE_OPS, MIX_BLACK_LIST, MIX_WHITE_LIST, PrecisionMode, converted_constant
from geir.printer import module_to_string
from geir.types import F16, F32, TensorType
from geir.verifier import verify

UNARY = ["Relu", "Sigmoid", "Tanh", "Exp", "Softmax", "Neg"]
BINARY = ["Add", "Mul", "Sub"]


@st.composite
def float_graphs(draw: st.DrawFn) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A random DAG on two float inputs and an int64 shape path: matrix products,
    elementwise ops (unary and binary, reading any earlier tensor), reductions
    and softmax, with one or two outputs, one of which may be an input."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(2, 5))
    shape = [rows, cols]
    tensors = ["x", "z"]
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    for k in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["MatMul", "Gemm", *UNARY, *BINARY, "ReduceSum", "Reshape"]))
        src = draw(st.sampled_from(tensors))
        out = f"t{k}"
        if kind in ("MatMul", "Gemm"):
            # square weights keep every tensor of the graph [rows, cols]
            w = (rng.standard_normal((cols, cols)) / cols).astype(np.float32)
            inits.append(numpy_helper.from_array(w, f"w{k}"))
            extra = [f"b{k}"] if kind == "Gemm" else []
            if extra:
                inits.append(numpy_helper.from_array(rng.standard_normal(cols).astype(np.float32) * 0.5, f"b{k}"))
            nodes.append(helper.make_node(kind, [src, f"w{k}", *extra], [out]))
        elif kind in BINARY:
            other = draw(st.sampled_from(tensors))
            nodes.append(helper.make_node(kind, [src, other], [out]))
        elif kind == "ReduceSum":
            # keepdims over the last axis, broadcast back by Add: the reduced sum stays in range
            axes = f"axes{k}"
            inits.append(numpy_helper.from_array(np.array([1], np.int64), axes))
            nodes.append(helper.make_node("ReduceSum", [src, axes], [f"r{k}"], keepdims=1))
            nodes.append(helper.make_node("Add", [src, f"r{k}"], [out]))
        elif kind == "Reshape":
            # a shape computed from an integer path: integer tensors keep their type
            nodes.append(helper.make_node("Shape", [src], [f"s{k}"]))
            nodes.append(helper.make_node("Reshape", [src, f"s{k}"], [out]))
        elif kind == "Exp":
            nodes.append(helper.make_node("Tanh", [src], [f"e{k}"]))  # bounded: exp stays far from f16's 65504
            nodes.append(helper.make_node("Exp", [f"e{k}"], [out]))
        else:
            nodes.append(helper.make_node(kind, [src], [out]))
        tensors.append(out)
    outputs = [tensors[-1]]
    extra_output = draw(st.sampled_from(tensors))
    if extra_output not in outputs:
        outputs.append(extra_output)
    value_info = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)  # noqa: E731
    used = {i for n in nodes for i in n.input}
    graph = helper.make_graph(nodes, "random_dag", [value_info("x"), value_info("z")],
                              [value_info(o) for o in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    feeds = {name: rng.uniform(-2, 2, shape).astype(np.float32) for name in ("x", "z")}
    assert used or nodes
    return model, feeds


def _graph(module: Module):  # type: ignore[no-untyped-def]
    return next(iter(module.graphs()))


def _signature(module: Module) -> tuple[list[str], list[str]]:
    block = _graph(module).regions[0].blocks[0]
    return [str(a.type) for a in block.arguments], [str(v.type) for v in block.terminator.operands]


def _ops(module: Module) -> list:  # type: ignore[type-arg]
    return list(_graph(module).regions[0].blocks[0].ops)


def _run(module: Module, mode: str, device: str = "910B2") -> Module:
    PrecisionMode(mode, device).run(module, PassContext())
    verify(module)
    return module


def _non_float_results(module: Module) -> list[str]:
    return sorted(str(r.type) for op in _ops(module) for r in op.results
                  if isinstance(r.type, TensorType) and r.type.element_type not in (F16, F32))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(float_graphs(), st.sampled_from(PRECISION_MODES))
def test_every_mode_keeps_the_signature_and_the_numbers(case: tuple[onnx.ModelProto, dict[str, np.ndarray]],
                                                        mode: str) -> None:
    model, feeds = case
    expected = ReferenceEvaluator(model).run(None, feeds)
    module = import_onnx(model)
    before_signature, before_text = _signature(module), module_to_string(module)
    before_non_float = _non_float_results(module)
    _run(module, mode)
    assert _signature(module) == before_signature
    actual = list(interpret(module, feeds).values())
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        # f16 keeps 11 significant bits: a few ulps per op of a short chain
        np.testing.assert_allclose(a, e, rtol=2e-2, atol=2e-2 * max(1.0, float(np.abs(e).max(initial=0))))
    ops = _ops(module)
    casts = [op for op in ops if op.name == "ge.cast"]
    for cast in casts:
        src = cast.operands[0]
        assert src.type is not cast.results[0].type, "a cast to the same type"
        inner = getattr(src, "op", None)
        if inner is not None and inner.name == "ge.cast":
            assert inner.operands[0].type is not cast.results[0].type, "a cast pair that cancels"
    assert _non_float_results(module) == before_non_float  # integer and bool tensors are never converted
    if mode in ("must_keep_origin_dtype", "force_fp32"):
        assert module_to_string(module) == before_text  # an f32 graph on a device whose cube has f32
    if mode == "force_fp16":
        # every op but the casts at the graph's edges computes in f16 (an op
        # that only reads a shape, such as ge.shape, may read the f32 input)
        for op in ops:
            if op.name not in ("ge.cast", "ge.return"):
                assert all(r.type.element_type is not F32 for r in op.results if isinstance(r.type, TensorType)), op.name


def _module(text: str) -> Module:
    module = parse_module(text)
    verify(module)
    return module


CHAIN = """
ge.graph @main(%x: tensor<2x8xf32>, %n: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2xi64>) {
  %w = ge.const {value = dense<5.000000e-01> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %m = ge.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = ge.relu %m : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = ge.softmax %r : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = ge.sigmoid %s : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %k = ge.add %n, %n : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  ge.return %y, %k : (tensor<2x4xf32>, tensor<2xi64>) -> ()
}
"""


def _types_by_op(module: Module) -> dict[str, str]:
    return {op.name: str(op.results[0].type.element_type) for op in _ops(module)
            if op.results and op.name != "ge.cast"}


@pytest.mark.parametrize("mode, f16_ops", [
    ("force_fp16", {"ge.const", "ge.matmul", "ge.relu", "ge.softmax", "ge.sigmoid"}),
    ("allow_fp32_to_fp16", {"ge.const", "ge.matmul"}),
    # relu is grey and follows the matmul; softmax is black; sigmoid follows softmax
    ("allow_mix_precision", {"ge.const", "ge.matmul", "ge.relu"}),
    ("must_keep_origin_dtype", set()),
])
def test_which_ops_run_in_f16(mode: str, f16_ops: set[str]) -> None:
    module = _run(_module(CHAIN), mode)
    types = _types_by_op(module)
    assert {name for name, t in types.items() if t == "f16"} == f16_ops
    assert types["ge.add"] == "i64"


def test_the_mix_lists_are_disjoint_and_hold_the_float_cube_ops() -> None:
    assert not MIX_WHITE_LIST & MIX_BLACK_LIST
    assert FLOAT_CUBE_OPS <= MIX_WHITE_LIST


def test_without_a_mode_the_device_default_applies() -> None:
    assert load_profile("310P3").default_precision_mode == "force_fp16"
    assert load_profile("V100").default_precision_mode == "must_keep_origin_dtype"
    assert all(load_profile(n).default_precision_mode in PRECISION_MODES for n in available_profiles())
    on_ascend = _run(_module(CHAIN), "", "910B2")
    assert _types_by_op(on_ascend)["ge.matmul"] == "f16"
    on_gpu = _run(_module(CHAIN), "", "V100")
    assert module_to_string(on_gpu) == module_to_string(_module(CHAIN))


def test_must_keep_origin_dtype_rejects_an_f32_cube_op_where_the_cube_has_no_f32() -> None:
    assert not load_profile("310P3").cube_fp32 and load_profile("910B2").cube_fp32
    with pytest.raises(DiagnosticError) as e:
        _run(_module(CHAIN), "must_keep_origin_dtype", "310P3")
    (d,) = e.value.diagnostics
    assert "ge.matmul" in d.message and d.location is not None


def test_force_fp32_keeps_f16_cube_ops_where_the_cube_has_no_f32() -> None:
    text = CHAIN.replace("f32", "f16").replace("5.000000e-01", "0.5")
    on_910a = _types_by_op(_run(_module(text), "force_fp32", "910A"))
    assert on_910a["ge.matmul"] == "f16" and on_910a["ge.relu"] == "f32"
    assert _types_by_op(_run(_module(text), "force_fp32", "910B2"))["ge.matmul"] == "f32"


def test_weights_are_converted_and_weights_without_data_change_type_only() -> None:
    text = """
ge.graph @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = ge.weights {value = dense_resource<w> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %m = ge.matmul %x, %w : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  ge.return %m : (tensor<1x4xf32>) -> ()
}
"""
    data = np.arange(16, dtype=np.float32).reshape(4, 4) / 8
    module = _module(text)
    module.resources["w"].data = data.tobytes()
    _run(module, "force_fp16")
    (weights,) = [op for op in _ops(module) if op.name == "ge.weights"]
    attr = weights.attributes["value"]
    assert isinstance(attr, DenseResourceAttr) and attr.type.element_type is F16
    np.testing.assert_array_equal(attr.to_numpy(), data.astype(np.float16))
    absent = _module(text)
    absent.resources["w"].data = None
    _run(absent, "force_fp16")
    (weights,) = [op for op in _ops(absent) if op.name == "ge.weights"]
    assert weights.attributes["value"].type.element_type is F16


def test_a_constant_read_in_two_types_is_kept_and_converted() -> None:
    text = """
ge.graph @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %c = ge.const {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %m = ge.matmul %x, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = ge.reduce_sum %c {axes = [1], keepdims = 1} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  %a = ge.add %x, %s : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  ge.return %m, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
}
"""
    module = _run(_module(text), "allow_fp32_to_fp16")
    consts = sorted(str(op.results[0].type) for op in _ops(module) if op.name == "ge.const")
    assert consts == ["tensor<2x2xf16>", "tensor<2x2xf32>"]


@pytest.mark.parametrize("pipeline, expected", [
    ("ge-default", ""),
    ("ge-default{precision-mode=allow_mix_precision}", "allow_mix_precision"),
    ("ge-default{precision-mode=force_fp32 mode=host device=310P3}", "force_fp32"),
    ("precision-mode{mode=must_keep_origin_dtype}", "must_keep_origin_dtype"),
])
def test_pipelines_route_the_mode_to_the_pass(pipeline: str, expected: str) -> None:
    (p,) = [p for p in parse_pipeline(pipeline) if isinstance(p, PrecisionMode)]
    assert p.precision_mode == expected
    assert parse_pipeline(p.pipeline_text())[0] == p


def test_an_unknown_mode_is_a_diagnostic() -> None:
    with pytest.raises(DiagnosticError, match="unknown mode 'fp8'"):
        _run(_module(CHAIN), "fp8")


def test_a_filled_tensor_is_a_constant_that_takes_its_readers_type() -> None:
    """ONNX's light models spell their weights as ConstantOfShape: ATC folds and converts them."""
    text = """
ge.graph @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = ge.const {value = dense<[4, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
  %w = ge.constant_of_shape %s {value = dense<2.5e-01> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<4x4xf32>
  %m = ge.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  ge.return %m : (tensor<2x4xf32>) -> ()
}
"""
    for mode in ("force_fp16", "allow_mix_precision", "allow_fp32_to_fp16"):
        module = _run(_module(text), mode)
        assert _types_by_op(module)["ge.constant_of_shape"] == "f16", mode
        assert [op.name for op in _ops(module)].count("ge.cast") == 2  # the input's and the output's
        x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
        (y,) = interpret(module, {"x": x}).values()
        np.testing.assert_allclose(y, x @ np.full((4, 4), 0.25), rtol=1e-3, atol=1e-3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=16))
def test_constants_saturate_to_f16_as_ge_converts_them(values: list[float]) -> None:
    """A constant converted to f16 is what numpy's cast gives within f16's range;
    beyond it, infinities and NaN included, the largest finite f16 of its sign,
    as GE's host conversion (fp16_t) saturates."""
    data = np.array(values, np.float32)
    out = converted_constant(data, np.float16)
    largest = np.float16(65504)
    assert out.dtype == np.float16 and np.all(np.isfinite(out))
    inside = np.abs(data) <= largest
    assert np.array_equal(out[inside], data[inside].astype(np.float16))
    assert np.array_equal(out[~inside], np.copysign(largest, data[~inside]).astype(np.float16))
    # other targets are a plain cast
    assert converted_constant(data[np.isfinite(data)], np.float32).dtype == np.float32


def if_loop(unary: str, size: int) -> onnx.ModelProto:
    """``If`` (``unary`` of x, or -x) feeding a ``Loop`` that adds x to its carried value each trip."""
    vec = [size]
    then = helper.make_graph([helper.make_node(unary, ["x"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, vec)])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, vec)])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]), helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, vec)],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, vec)])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["picked"], then_branch=then, else_branch=other),
         helper.make_node("Loop", ["trips", "go", "picked"], ["y"], body=body)], "if_loop",
        [helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("trips", TensorProto.INT64, []),
         helper.make_tensor_value_info("go", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, vec)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, vec)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@settings(max_examples=10, deadline=None)
@given(unary=st.sampled_from(["Relu", "Sigmoid", "Exp", "Neg"]), size=st.integers(1, 40), trips=st.integers(0, 5),
       flag=st.booleans(), seed=st.integers(0, 2**16))
def test_force_fp16_runs_branches_and_bodies_in_f16_and_casts_only_outside(unary: str, size: int, trips: int,
                                                                          flag: bool, seed: int) -> None:
    """Under force_fp16 an if's branches and a loop's body compute in f16 with
    the op's edges, no region holds a cast (nothing is cast per trip), the
    module verifies, and the result is onnx.reference's to f16's precision."""
    model = if_loop(unary, size)
    module = import_onnx(model)
    PrecisionMode("force_fp16", "910B2").run(module, PassContext())
    verify(module)
    for op in module.walk():
        if op.name in ("ge.if", "ge.loop"):
            inner = [o for region in op.regions for o in region.walk()]
            assert not any(o.name == "ge.cast" for o in inner)
            assert all(r.type.element_type is F16 for o in inner for r in o.results
                       if isinstance(r.type, TensorType) and r.type.element_type in (F16, F32))
    feeds = {"flag": np.array(flag), "trips": np.array(trips, np.int64), "go": np.array(True),
             "x": np.random.default_rng(seed).uniform(-1, 1, size).astype(np.float32)}
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    (got,) = interpret(module, feeds).values()
    np.testing.assert_allclose(got, expected, rtol=1e-2, atol=1e-2)
