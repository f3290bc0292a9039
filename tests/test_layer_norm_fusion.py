"""GE's LayerNormONNXFusionPass in ``fuse-graph``: LayerNorm spelled op by op, as
PyTorch exports ``nn.LayerNorm`` before opset 17, is one ``ge.layer_norm`` —
with the numbers onnx.reference gives the op-by-op graph — and a model exported
either way emulates in the same time."""

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

F = TensorProto.FLOAT


def decomposed_layer_norm(shape: tuple[int, ...], normalized: int, opset: int, affine: bool, cast: bool,
                          epsilon: float = 1e-5, seed: int = 0) -> onnx.ModelProto:
    """``(x - mean) / sqrt(mean((x - mean)^2) + epsilon)`` over the last
    ``normalized`` axes, times gamma plus beta when ``affine``, as torch's exporter
    writes it at ``opset`` (axes an attribute before 18, an input from 18)."""
    rank = len(shape)
    axes = list(range(-normalized, 0))
    dims = list(shape[rank - normalized:])
    rng = np.random.default_rng(seed)
    initializers = [numpy_helper.from_array(np.array(2.0, np.float32), "two"),
                    numpy_helper.from_array(np.array(epsilon, np.float32), "eps")]
    if opset >= 18:
        initializers.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))

    def mean(source: str, out: str) -> onnx.NodeProto:
        if opset >= 18:
            return helper.make_node("ReduceMean", [source, "axes"], [out])
        return helper.make_node("ReduceMean", [source], [out], axes=axes)

    nodes = [mean("x", "mean"), helper.make_node("Sub", ["x", "mean"], ["centred"])]
    square_input = "centred"
    if cast:
        nodes.append(helper.make_node("Cast", ["centred"], ["centred_f32"], to=F))
        square_input = "centred_f32"
    nodes += [helper.make_node("Pow", [square_input, "two"], ["square"]), mean("square", "variance"),
              helper.make_node("Add", ["variance", "eps"], ["shifted"]),
              helper.make_node("Sqrt", ["shifted"], ["std"]),
              helper.make_node("Div", ["centred", "std"], ["normed" if affine else "y"])]
    if affine:
        initializers += [numpy_helper.from_array(rng.standard_normal(dims).astype(np.float32), "gamma"),
                         numpy_helper.from_array(rng.standard_normal(dims).astype(np.float32), "beta")]
        nodes += [helper.make_node("Mul", ["normed", "gamma"], ["scaled"]),
                  helper.make_node("Add", ["scaled", "beta"], ["y"])]
    graph = helper.make_graph(nodes, "layer_norm", [helper.make_tensor_value_info("x", F, list(shape))],
                              [helper.make_tensor_value_info("y", F, list(shape))], initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _ops(module: geir.Module) -> list[str]:
    return [op.name for op in find_graph(module).walk()]


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple), data=st.data(),
       opset=st.sampled_from([11, 13, 18]), affine=st.booleans(), cast=st.booleans(),
       epsilon=st.sampled_from([1e-12, 1e-6, 1e-5, 0.05]))
def test_layer_norm_spelled_op_by_op_is_one_layer_norm(shape: tuple[int, ...], data: st.DataObject, opset: int,
                                                       affine: bool, cast: bool, epsilon: float) -> None:
    normalized = data.draw(st.integers(1, len(shape)), label="normalized")
    model = decomposed_layer_norm(shape, normalized, opset, affine, cast, epsilon, seed=sum(shape))
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "fuse-graph")
    ops = _ops(module)
    assert ops.count("ge.layer_norm") == 1
    assert not {"ge.reduce_mean", "ge.sqrt", "ge.div", "ge.pow"} & set(ops)
    assert "ge.mul" not in ops
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32) * 3 + 1
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(interpret(module, {"x": x})["y"], expected, rtol=1e-4, atol=1e-4)


def test_a_mean_over_a_leading_axis_stays_op_by_op_with_the_same_numbers() -> None:
    """A channel norm of NCHW (the mean over axis 1) is not LayerNorm's trailing axes."""
    model = decomposed_layer_norm((2, 3, 4), 1, 13, False, False)
    for node in model.graph.node:
        if node.op_type == "ReduceMean":
            node.attribute[0].ints[:] = [1]
    model.graph.value_info.clear()
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "fuse-graph")
    assert "ge.layer_norm" not in _ops(module)
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(interpret(module, {"x": x})["y"], expected, rtol=1e-5, atol=1e-5)


def test_an_export_before_opset_17_emulates_as_one_with_layer_normalization() -> None:
    """The same LayerNorm, spelled op by op at opset 13 and as LayerNormalization at
    opset 17, compiles to the same kernels and emulates in the same time."""
    shape = (4, 64, 256)
    decomposed = decomposed_layer_norm(shape, 1, 13, True, False)
    gamma, beta = (numpy_helper.to_array(i) for i in decomposed.graph.initializer if i.name in ("gamma", "beta"))
    native = helper.make_model(helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5)],
        "layer_norm", [helper.make_tensor_value_info("x", F, list(shape))],
        [helper.make_tensor_value_info("y", F, list(shape))],
        initializer=[numpy_helper.from_array(gamma, "gamma"), numpy_helper.from_array(beta, "beta")]),
        opset_imports=[helper.make_opsetid("", 17)])
    times = [geir.emulate(geir.lower(geir.run_pipeline(geir.import_onnx(m), "ge-default")),
                          timing_only=True).makespan_us for m in (decomposed, native)]
    assert times[0] == times[1]
