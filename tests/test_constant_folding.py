"""Constant folding as GE does it: every op whose operands are all constants
is computed at compile time, whatever its size.

GE's ``ConstantFoldingPass`` folds every node whose inputs are all constants
into a constant (``hicann/ge`` ``constant_folding_pass.cc``). A model that
builds its weights with ConstantOfShape (the onnx package's ``light_*``
models) then has weights, not kernels that write them on every run, and a
position table an exporter computes from Range and Expand (Swin's relative
positions, T5's buckets) is a constant, not a chain of AICPU kernels.
"""

from __future__ import annotations

import numpy as np
import onnx
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.interpreter import interpret
from geir.backends.io_bindings import find_graph
from geir.backends.task_list import Kernel
from geir.constants import CONSTANT_OPS, constant_value

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def _ops(module: geir.Module) -> list[str]:
    return [op.name for op in find_graph(module).walk() if op.name != "ge.graph"]


def light_style_conv(channels: int = 8) -> onnx.ModelProto:
    """x[1, 3, 8, 8] -> Conv(w, b) -> Relu, with w and b made by ConstantOfShape,
    as the onnx package's light models make their weights."""
    nodes = [
        helper.make_node("Constant", [], ["w_shape"], value=numpy_helper.from_array(
            np.array([channels, 3, 3, 3], np.int64))),
        helper.make_node("ConstantOfShape", ["w_shape"], ["w"], value=numpy_helper.from_array(
            np.array([0.02], np.float32))),
        helper.make_node("Constant", [], ["b_shape"], value=numpy_helper.from_array(np.array([channels], np.int64))),
        helper.make_node("ConstantOfShape", ["b_shape"], ["b"], value=numpy_helper.from_array(
            np.array([0.5], np.float32))),
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "light_style", [helper.make_tensor_value_info("x", F, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", F, [1, channels, 8, 8])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_weights_made_by_constant_of_shape_are_weights() -> None:
    """ge-default leaves no kernel that writes a weight: the weights lie in the
    weight space, and the numbers are onnx.reference's."""
    model = light_style_conv()
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "ge-default{precision-mode=must_keep_origin_dtype}")
    task_list = geir.lower(module)
    kernels = [t.op for s in task_list.streams for t in s.tasks if isinstance(t, Kernel)]
    assert "ge.constant_of_shape" not in kernels
    assert task_list.weight_size >= (8 * 3 * 3 * 3 + 8) * 4
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
    report = geir.emulate(task_list, inputs={"x": x})
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(report.outputs["y"], expected, rtol=1e-5, atol=1e-5)


def test_a_splat_weight_is_never_materialised() -> None:
    """A 4096 x 25088 f32 weight (VGG's first fully connected layer) folds to one
    value broadcast: 400 MB are never allocated."""
    module = geir.parse("""
    ge.graph @main(%x: tensor<1x4096xf32>) -> tensor<1x25088xf32> {
      %s = ge.const {value = dense<[4096, 25088]> : tensor<2xi64>} : () -> tensor<2xi64>
      %w = ge.constant_of_shape %s {value = dense<2.000000e-02> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<4096x25088xf32>
      %y = ge.matmul %x, %w : (tensor<1x4096xf32>, tensor<4096x25088xf32>) -> tensor<1x25088xf32>
      ge.return %y : (tensor<1x25088xf32>) -> ()
    }""")
    geir.run_pipeline(module, "canonicalize")
    weight = next(op for op in find_graph(module).walk() if op.name in CONSTANT_OPS and op.results[0].type.rank == 2)
    array = weight.attributes["value"].array
    assert array.shape == (4096, 25088) and array.strides == (0, 0) and float(array[0, 0]) == np.float32(0.02)


def test_fold_limit_leaves_larger_results() -> None:
    """``canonicalize{fold-limit=N}`` folds only results of at most N elements."""
    module = geir.import_onnx(light_style_conv(channels=16))
    geir.run_pipeline(module, "canonicalize{fold-limit=64}")
    assert _ops(module).count("ge.constant_of_shape") == 1  # the 16 x 3 x 3 x 3 weight; the 16 biases folded


# ------------------------------------------------------------ a property

#: ops a constant subgraph is built of: (ONNX op, how many operands it takes)
_UNARY = ("Neg", "Abs", "Relu", "Floor")
_BINARY = ("Add", "Mul", "Sub", "Max")


@st.composite
def constant_subgraph_models(draw: st.DrawFn) -> onnx.ModelProto:
    """x[n] + f(constants), where f is a random chain of ops on constants (Range,
    ConstantOfShape, Expand, Cast, Transpose, Concat, elementwise ops) whose
    results are larger than any shape vector: all of it folds."""
    rows = draw(st.integers(1, 12))
    cols = draw(st.integers(2, 40))
    nodes = [
        helper.make_node("Constant", [], ["start"], value=numpy_helper.from_array(np.array(0, np.int64))),
        helper.make_node("Constant", [], ["limit"], value=numpy_helper.from_array(np.array(cols, np.int64))),
        helper.make_node("Constant", [], ["delta"], value=numpy_helper.from_array(np.array(1, np.int64))),
        helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
        helper.make_node("Constant", [], ["grid"], value=numpy_helper.from_array(np.array([rows, cols], np.int64))),
        helper.make_node("Expand", ["r", "grid"], ["e"]),
        helper.make_node("Cast", ["e"], ["v0"], to=F),
        helper.make_node("ConstantOfShape", ["grid"], ["fill"], value=numpy_helper.from_array(
            np.array([draw(st.sampled_from([0.5, -1.25, 3.0]))], np.float32))),
    ]
    current = "v0"
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(("unary", "binary", "transpose2")))
        out = f"v{i + 1}"
        if kind == "unary":
            nodes.append(helper.make_node(draw(st.sampled_from(_UNARY)), [current], [out]))
        elif kind == "binary":
            nodes.append(helper.make_node(draw(st.sampled_from(_BINARY)), [current, "fill"], [out]))
        else:  # a transpose there and back: values move, the shape stays
            nodes += [helper.make_node("Transpose", [current], [out + "t"], perm=[1, 0]),
                      helper.make_node("Transpose", [out + "t"], [out], perm=[1, 0])]
        current = out
    nodes += [helper.make_node("Concat", [current, "fill"], ["both"], axis=0),
              helper.make_node("Constant", [], ["flat"], value=numpy_helper.from_array(
                  np.array([2 * rows * cols], np.int64))),
              helper.make_node("Reshape", ["both", "flat"], ["bias"]),
              helper.make_node("Add", ["x", "bias"], ["y"])]
    n = 2 * rows * cols
    graph = helper.make_graph(nodes, "constant_subgraph", [helper.make_tensor_value_info("x", F, [n])],
                              [helper.make_tensor_value_info("y", F, [n])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@settings(max_examples=25, deadline=None)
@given(model=constant_subgraph_models())
def test_folding_leaves_no_op_on_constants_and_keeps_the_value(model: onnx.ModelProto) -> None:
    """After canonicalize no op has only constant operands, and the graph
    computes exactly what it did unfolded, and what onnx.reference does."""
    n = model.graph.input[0].type.tensor_type.shape.dim[0].dim_value
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    before = interpret(geir.import_onnx(model), {"x": x})["y"]
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "canonicalize")
    graph = find_graph(module)
    for op in graph.walk():
        if op is graph or op.name in CONSTANT_OPS or op.name == "ge.return":
            continue
        assert any(constant_value(v) is None for v in op.operands), f"{op.name} on constants was not folded"
    assert _ops(module) == ["ge.const", "ge.add", "ge.return"]
    after = interpret(module, {"x": x})["y"]
    np.testing.assert_array_equal(after, before)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(after, expected, rtol=1e-6, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(value=st.floats(allow_nan=True, allow_infinity=True, width=32),
       shape=st.lists(st.integers(1, 6), min_size=0, max_size=3),
       dtype=st.sampled_from(["f32", "f16"]))
def test_a_splat_view_is_the_same_constant_as_its_values(value: float, shape: list[int], dtype: str) -> None:
    """A splat weight kept as a broadcast view and the same values written out are
    one attribute: equal, with equal hashes (CSE merges them) and the same text;
    converting it to f16 as precision-mode does keeps the view and the values."""
    from geir.attributes import DenseElementsAttr
    from geir.passes.precision_mode import converted_constant
    from geir.types import TensorType, parse_element_type

    np_dtype = np.float32 if dtype == "f32" else np.float16
    t = TensorType(tuple(shape), parse_element_type(dtype))
    with np.errstate(over="ignore"):  # an f32 value beyond f16's range is inf in f16
        view = np.broadcast_to(np.asarray(value, dtype=np_dtype), tuple(shape))
    full = np.array(view)
    a, b = DenseElementsAttr(t, view), DenseElementsAttr(t, full)
    assert a == b and hash(a) == hash(b) and str(a) == str(b)
    converted = converted_constant(view, np.dtype(np.float16))
    assert not any(converted.strides) or converted.size <= 1
    np.testing.assert_array_equal(converted, converted_constant(full, np.dtype(np.float16)))


def standardised_weight_conv(out_channels: int, in_channels: int, k: int) -> onnx.ModelProto:
    """x -> Conv(w') with w' the weight standardised as timm's ScaledStdConv
    exports it (NF-ResNet): BatchNormalization in training mode over the weight
    reshaped to [1, out, in*k*k], its running statistics read by nothing."""
    rng = np.random.default_rng(out_channels * 100 + in_channels * 10 + k)
    fan = in_channels * k * k
    w = rng.standard_normal((out_channels, in_channels, k, k)).astype(np.float32)
    init = [numpy_helper.from_array(w, "w"),
            numpy_helper.from_array(np.array([1, out_channels, fan], np.int64), "rows"),
            numpy_helper.from_array(np.array(w.shape, np.int64), "back"),
            numpy_helper.from_array(rng.uniform(0.5, 2.0, out_channels).astype(np.float32), "gain"),
            numpy_helper.from_array(np.zeros(out_channels, np.float32), "zero"),
            numpy_helper.from_array(np.ones(out_channels, np.float32), "one")]
    nodes = [helper.make_node("Reshape", ["w", "rows"], ["wr"]),
             helper.make_node("BatchNormalization", ["wr", "gain", "zero", "zero", "one"], ["ws", "rm", "rv"],
                              epsilon=1e-5, momentum=1.0, training_mode=1),
             helper.make_node("Reshape", ["ws", "back"], ["wk"]),
             helper.make_node("Conv", ["x", "wk"], ["y"], pads=[k // 2] * 4)]
    graph = helper.make_graph(nodes, "std_conv", [helper.make_tensor_value_info("x", F, [1, in_channels, 6, 6])],
                              [helper.make_tensor_value_info("y", F, [1, out_channels, 6, 6])], init)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])


@settings(max_examples=15, deadline=None)
@given(out_channels=st.integers(1, 8), in_channels=st.integers(1, 4), k=st.sampled_from([1, 3]))
def test_a_standardised_weight_folds_to_what_onnx_reference_computes(out_channels: int, in_channels: int,
                                                                    k: int) -> None:
    """The batch norm standardising a weight is computed once, at compile time: no
    kernel but the convolution is left, and the output is onnx.reference's."""
    model = standardised_weight_conv(out_channels, in_channels, k)
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "canonicalize")
    assert [o for o in _ops(module) if o not in CONSTANT_OPS] == ["ge.conv2d", "ge.return"]
    x = np.random.default_rng(k).standard_normal((1, in_channels, 6, 6)).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(interpret(module, {"x": x})["y"], expected, rtol=1e-4, atol=1e-4)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["expand", "tile", "range"]), st.lists(st.integers(1, 4), min_size=1, max_size=3),
       st.lists(st.integers(0, 4), min_size=1, max_size=3), st.integers(-5, 20), st.sampled_from([-3, -2, -1, 1, 2, 3]))
def test_a_result_counted_before_its_kernel_runs_is_the_kernels_size(op: str, dims: list[int], other: list[int],
                                                                     stop: int, step: int) -> None:
    """Folding counts what an Expand, Tile or Range would make before running it
    (a bound size of 10^11 must not be allocated to be refused): the count is
    the size of what the kernel makes, whenever the kernel runs."""
    from geir.passes.canonicalize import _result_elements, _run_kernel
    if op == "expand":
        given = [1 if k % 2 else d for k, d in enumerate(dims)]  # broadcast to dims, under leading dims
        shape = other + dims
        text = (f"%a = ge.const {{value = dense<1.0> : tensor<{'x'.join(map(str, given))}xf32>}} : () -> "
                f"tensor<{'x'.join(map(str, given))}xf32>\n"
                f"  %s = ge.const {{value = dense<{shape}> : tensor<{len(shape)}xi64>}} : () -> tensor<{len(shape)}xi64>\n"
                f"  %r = ge.expand %a, %s : (tensor<{'x'.join(map(str, given))}xf32>, tensor<{len(shape)}xi64>) -> "
                f"tensor<*xf32>")
    elif op == "tile":
        reps = (other * len(dims))[:len(dims)]
        text = (f"%a = ge.const {{value = dense<1.0> : tensor<{'x'.join(map(str, dims))}xf32>}} : () -> "
                f"tensor<{'x'.join(map(str, dims))}xf32>\n"
                f"  %s = ge.const {{value = dense<{reps}> : tensor<{len(reps)}xi64>}} : () -> tensor<{len(reps)}xi64>\n"
                f"  %r = ge.tile %a, %s : (tensor<{'x'.join(map(str, dims))}xf32>, tensor<{len(reps)}xi64>) -> "
                f"tensor<*xf32>")
    else:
        text = (f"%a = ge.const {{value = dense<{dims[0]}> : tensor<i64>}} : () -> tensor<i64>\n"
                f"  %b = ge.const {{value = dense<{stop}> : tensor<i64>}} : () -> tensor<i64>\n"
                f"  %c = ge.const {{value = dense<{step}> : tensor<i64>}} : () -> tensor<i64>\n"
                f"  %r = ge.range %a, %b, %c : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>")
    module = geir.parse(f"ge.graph @main() {{\n  {text}\n  ge.return : () -> ()\n}}")
    target = next(o for o in find_graph(module).walk() if o.name == f"ge.{op}")
    inputs = [constant_value(v) for v in target.operands]
    out = _run_kernel(target, inputs)
    counted = _result_elements(target, inputs)
    if out is not None:
        assert counted == out[0].size
