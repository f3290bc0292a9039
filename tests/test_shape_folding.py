"""Static shape arithmetic folds when another dim is symbolic.

An exported model with a symbolic batch computes its "same" padding from its
static height and width: Shape -> Gather(2 / 3) -> Cast -> Div -> Ceil -> Cast
-> Sub / Mul / Max -> Concat -> Pad (timm's ``pad_same``). Every dim that
arithmetic reads is static, so ``canonicalize`` folds it to one constant and,
once the batch is bound, the graph is one task list on several streams — not
host-driven launches around a "data-dependent" Pad.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.host_control import has_control_flow
from geir.backends.interpreter import interpret
from geir.backends.io_bindings import find_graph
from geir.passes.range_shapes import data_dependent_diagnostics
from geir.passes.specialize_shapes import resolve_bindings, specialize_graph

F = TensorProto.FLOAT
I64 = TensorProto.INT64
SHAPE_OPS = {"ge.shape", "ge.gather", "ge.cast", "ge.div", "ge.ceil", "ge.sub", "ge.mul", "ge.max", "ge.concat",
             "ge.unsqueeze", "ge.squeeze"}


def same_padding_model(height: int, width: int, kernel: int, stride: int, channels: int = 8) -> onnx.ModelProto:
    """x[batch, 3, H, W] -> Pad("same", computed from Shape) -> Conv(k, s), beside
    a 1x1 Conv(s) -> Relu -> 3x3 Conv of x; Add -> Relu. Two branches side by
    side: a graph with something to run on two streams."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal((channels, 3, kernel, kernel)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((channels, 3, 1, 1)).astype(np.float32), "w1x1"),
             numpy_helper.from_array(rng.standard_normal((channels, channels, 3, 3)).astype(np.float32), "w3x3"),
             numpy_helper.from_array(np.array(float(stride), np.float32), "stride_f"),
             numpy_helper.from_array(np.array(stride, np.int64), "stride"),
             numpy_helper.from_array(np.array(kernel, np.int64), "kernel"),
             numpy_helper.from_array(np.array(1, np.int64), "one"),
             numpy_helper.from_array(np.array(0, np.int64), "zero"),
             numpy_helper.from_array(np.array(2, np.int64), "two"),
             numpy_helper.from_array(np.array([0], np.int64), "axis0"),
             numpy_helper.from_array(np.array([0, 0], np.int64), "no_pad")]
    nodes = [helper.make_node("Shape", ["x"], ["shape"])]
    for axis, dim in ((2, "h"), (3, "w")):
        inits.append(numpy_helper.from_array(np.array(axis, np.int64), f"axis_{dim}"))
        nodes += [  # pad = max((ceil(size / s) - 1) * s + k - size, 0), split low / high
            helper.make_node("Gather", ["shape", f"axis_{dim}"], [f"{dim}_size"], axis=0),
            helper.make_node("Cast", [f"{dim}_size"], [f"{dim}_float"], to=F),
            helper.make_node("Div", [f"{dim}_float", "stride_f"], [f"{dim}_ratio"]),
            helper.make_node("Ceil", [f"{dim}_ratio"], [f"{dim}_ceil"]),
            helper.make_node("Cast", [f"{dim}_ceil"], [f"{dim}_out"], to=I64),
            helper.make_node("Sub", [f"{dim}_out", "one"], [f"{dim}_last"]),
            helper.make_node("Mul", [f"{dim}_last", "stride"], [f"{dim}_start"]),
            helper.make_node("Add", [f"{dim}_start", "kernel"], [f"{dim}_reach"]),
            helper.make_node("Sub", [f"{dim}_reach", f"{dim}_size"], [f"{dim}_over"]),
            helper.make_node("Max", [f"{dim}_over", "zero"], [f"{dim}_pad"]),
            helper.make_node("Div", [f"{dim}_pad", "two"], [f"{dim}_low"]),
            helper.make_node("Sub", [f"{dim}_pad", f"{dim}_low"], [f"{dim}_high"]),
            helper.make_node("Unsqueeze", [f"{dim}_low", "axis0"], [f"{dim}_low1"]),
            helper.make_node("Unsqueeze", [f"{dim}_high", "axis0"], [f"{dim}_high1"]),
        ]
    nodes += [helper.make_node("Concat", ["no_pad", "h_low1", "w_low1", "no_pad", "h_high1", "w_high1"], ["pads"],
                               axis=0),
              helper.make_node("Pad", ["x", "pads"], ["padded"], mode="constant"),
              helper.make_node("Conv", ["padded", "w"], ["a"], strides=[stride, stride]),
              helper.make_node("Conv", ["x", "w1x1"], ["b0"], strides=[stride, stride]),
              helper.make_node("Relu", ["b0"], ["b1"]),
              helper.make_node("Conv", ["b1", "w3x3"], ["b"], pads=[1, 1, 1, 1]),
              helper.make_node("Add", ["a", "b"], ["sum"]),
              helper.make_node("Relu", ["sum"], ["y"])]
    out = [math.ceil(height / stride), math.ceil(width / stride)]
    graph = helper.make_graph(nodes, "same_padding", [helper.make_tensor_value_info("x", F, ["batch", 3, height, width])],
                              [helper.make_tensor_value_info("y", F, ["batch", channels, *out])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model


def _graph_ops(module: geir.Module) -> list[str]:
    return [op.name for op in find_graph(module).regions[0].blocks[0].ops]


@pytest.fixture(scope="module")
def model() -> onnx.ModelProto:
    return same_padding_model(13, 11, kernel=3, stride=2)


def test_canonicalize_folds_the_padding_with_the_batch_symbolic(model: onnx.ModelProto) -> None:
    module = geir.import_onnx(model)
    graph = find_graph(module)
    assert graph.regions[0].blocks[0].arguments[0].type.shape[0] is None  # the batch stays symbolic
    geir.run_pipeline(module, "canonicalize")
    ops = _graph_ops(module)
    assert not SHAPE_OPS & set(ops), ops
    pad = next(op for op in graph.walk() if op.name == "ge.pad")
    pads = pad.operands[1].op.attributes["value"].array  # type: ignore[union-attr]
    # ceil(13 / 2) = 7 outputs reach 6 * 2 + 3 = 15: 2 rows of padding; 11 -> 6 -> 13: 2 columns
    assert pads.tolist() == [0, 0, 1, 1, 0, 0, 1, 1]


def test_bound_batch_runs_as_one_multi_stream_task_list(model: onnx.ModelProto) -> None:
    """What ge-run --input-shape batch=2 does: bind, then the default pipeline;
    nothing is host-driven, and the result is onnx.reference's."""
    module = geir.import_onnx(model)
    graph = find_graph(module)
    specialize_graph(graph, module, resolve_bindings(graph, {"batch": (2,)}, "test"))
    assert not has_control_flow(graph) and not data_dependent_diagnostics(graph)
    assert find_graph(module).regions[0].blocks[0].arguments[0].type.shape == (2, 3, 13, 11)
    # ge-default, computing in f32 so the comparison is exact up to summation order
    geir.run_pipeline(module, "canonicalize,cse,precision-mode{mode=must_keep_origin_dtype},assign-engines,fuse-ub,"
                              "partition-streams,insert-events,reuse-memory")
    x = np.random.default_rng(1).standard_normal((2, 3, 13, 11)).astype(np.float32)
    report = geir.emulate(geir.lower(module), inputs={"x": x})
    assert len([s for s in report.streams if s["tasks"]]) > 1
    assert not report.races
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(report.outputs["y"], expected, rtol=1e-4, atol=1e-4)


@settings(max_examples=12, deadline=None)
@given(height=st.integers(1, 9), width=st.integers(1, 9), kernel=st.integers(1, 4), stride=st.integers(1, 3))
def test_folding_keeps_the_value(height: int, width: int, kernel: int, stride: int) -> None:
    """For any static H, W, kernel and stride, the folded graph computes what
    the unfolded one does, and what onnx.reference does."""
    model = same_padding_model(height, width, kernel, stride, channels=2)
    x = np.random.default_rng(height * 100 + width).standard_normal((1, 3, height, width)).astype(np.float32)
    before = interpret(geir.import_onnx(model), {"x": x})["y"]
    folded = geir.import_onnx(model)
    geir.run_pipeline(folded, "canonicalize")
    assert "ge.shape" not in _graph_ops(folded)
    after = interpret(folded, {"x": x})["y"]
    np.testing.assert_array_equal(after, before)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(after, expected, rtol=1e-4, atol=1e-4)


def test_a_dynamic_dim_stays_unfolded() -> None:
    """The gather of the symbolic batch reads no static dim: it stays, and so
    does what depends on it (nothing is guessed)."""
    module = geir.parse("""
    ge.graph @main(%x: tensor<?x4xf32>) -> tensor<1xi64> {
      %i = ge.const {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
      %two = ge.const {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
      %s = ge.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
      %b = ge.gather %s, %i {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
      %m = ge.mul %b, %two : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
      ge.return %m : (tensor<1xi64>) -> ()
    }""")
    geir.run_pipeline(module, "canonicalize")
    assert _graph_ops(module)[-4:] == ["ge.shape", "ge.gather", "ge.mul", "ge.return"]
    for batch in (1, 5):
        (value,) = interpret(module, {"x": np.zeros((batch, 4), np.float32)}).values()
        assert value.tolist() == [2 * batch]
