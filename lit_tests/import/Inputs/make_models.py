"""Build the small ONNX models the importer's lit tests read (run by hand after a
change; the outputs are checked in next to this script):

    python lit_tests/import/Inputs/make_models.py

Each model exercises one mapping rule or one import error; the ``.mlir`` /
``.test`` files in ``lit_tests/import/`` say which.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = [helper.make_opsetid("", 17)]


def _save(model: onnx.ModelProto, name: str, check: bool = True) -> bytes:
    if check:
        onnx.checker.check_model(model)
    data = model.SerializeToString()
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    return data


def _model(graph: onnx.GraphProto, opset: list[onnx.OperatorSetIdProto] = OPSET) -> onnx.ModelProto:
    return helper.make_model(graph, opset_imports=opset, ir_version=8, producer_name="geir-lit")


def conv_relu() -> bytes:
    """Initializers (a large one -> dense_resource, a small one -> dense), names
    that need sanitizing, a named and an unnamed node."""
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv1.weight")
    bias = numpy_helper.from_array(np.array([0.5, -0.5, 1.0, 0.0], np.float32), "conv1.bias")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input:0", "conv1.weight", "conv1.bias"], ["conv1/out"], name="conv1",
                          pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["conv1/out"], ["output"])],
        "conv_relu",
        [helper.make_tensor_value_info("input:0", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])],
        [weight, bias])
    return _save(_model(graph), "conv_relu.onnx")


def optional_inputs() -> None:
    """Clip with its middle input (min) omitted: a ge.none operand; its max comes
    from a Constant node: a ge.const."""
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["hi"], name="six", value_float=6.0),
         helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip6")],
        "optional_inputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    _save(_model(graph), "optional_inputs.onnx")


def fallback() -> None:
    """HannWindow has no ge op, but ONNX defines it by a function of ops that have
    one: it imports as that function's body."""
    size = numpy_helper.from_array(np.array(8, np.int64), "size")
    graph = helper.make_graph(
        [helper.make_node("HannWindow", ["size"], ["window"], name="hann"),
         helper.make_node("Mul", ["x", "window"], ["y"], name="apply_window")],
        "fallback",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8])],
        [size])
    _save(_model(graph), "fallback.onnx")


def two_unsupported() -> None:
    """Two ops without a ge counterpart (one in a custom domain, one standard op
    that ONNX defines by no function): --strict names both."""
    graph = helper.make_graph(
        [helper.make_node("DFT", ["signal"], ["spectrum"], name="dft"),
         helper.make_node("Scale", ["x"], ["y"], name="custom_scale", domain="com.example", factor=2.0)],
        "two_unsupported",
        [helper.make_tensor_value_info("signal", TensorProto.FLOAT, [1, 8, 1]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
        [helper.make_tensor_value_info("spectrum", TensorProto.FLOAT, [1, 8, 2]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [8])])
    opsets = [*OPSET, helper.make_opsetid("com.example", 1)]
    _save(_model(graph, opsets), "two_unsupported.onnx")


def untyped_custom() -> None:
    """A custom-domain op whose output nothing types (no value_info) and a ReLU
    reads: ONNX has no schema to infer it from."""
    graph = helper.make_graph(
        [helper.make_node("Scale", ["x"], ["scaled"], name="custom_scale", domain="com.example", factor=2.0),
         helper.make_node("Relu", ["scaled"], ["y"], name="relu")],
        "untyped_custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8])])
    opsets = [*OPSET, helper.make_opsetid("com.example", 1)]
    _save(_model(graph, opsets), "untyped_custom.onnx")


def if_loop() -> None:
    """If whose branches read an outer value, and a Loop with a loop-carried
    value and a scan output: regions ending in ge.yield."""
    then_graph = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["then_out"], name="then_add")], "then_branch", [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, [3])])
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["else_out"], name="else_neg")], "else_branch", [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, [3])])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x"], ["acc_out"], name="body_add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Identity", ["acc_out"], ["scan_out"], name="body_scan")],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [3])])
    trips = numpy_helper.from_array(np.array(4, np.int64), "trips")
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["picked"], name="choose", then_branch=then_graph,
                          else_branch=else_graph),
         helper.make_node("Loop", ["trips", "", "picked"], ["total", "partials"], name="accumulate", body=body)],
        "if_loop",
        [helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("total", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("partials", TensorProto.FLOAT, [4, 3])],
        [trips])
    _save(_model(graph), "if_loop.onnx")


def growing_loop() -> None:
    """A Loop appending a row of x to its carried value each trip, the carried
    input declared with the initial value's shape (0 x 3), as torch's exporter
    writes it."""
    body = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x", "axis0"], ["row"], name="as_row"),
         helper.make_node("Concat", ["acc_in", "row"], ["acc_out"], name="append", axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond")],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [0, 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [1, 3])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "keep_going", "empty"], ["rows"], name="collect", body=body)],
        "growing_loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("trips", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, 3])],
        [numpy_helper.from_array(np.array([0], np.int64), "axis0"),
         numpy_helper.from_array(np.array(True), "keep_going"),
         numpy_helper.from_array(np.zeros((0, 3), np.float32), "empty")])
    _save(_model(graph), "growing_loop.onnx")


def dynamic() -> None:
    """A batch dim 'N' the user binds with --input-shape."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "dynamic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])])
    _save(_model(graph), "dynamic.onnx")


def two_inputs() -> None:
    """Two inputs sharing the symbolic dim 'batch': one size across both."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["z"], name="add")], "two_inputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 4])])
    _save(_model(graph), "two_inputs.onnx")


def shape_chain() -> None:
    """An exporter's shape arithmetic on x[batch, seq, 4]: Shape -> Gather ->
    Mul -> Concat -> Reshape, ConstantOfShape, Range -> Unsqueeze -> Expand; it
    all folds once batch and seq are bound."""
    rng = np.random.default_rng(1)
    ints = {"i0": [0], "i1": [1], "four": [4], "axes": [0, 2]}
    inits = [numpy_helper.from_array(rng.standard_normal((4, 5)).astype(np.float32), "w")]
    inits += [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in ints.items()]
    inits += [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in (("zero", 0), ("one", 1))]
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "i0"], ["b"], name="batch_of", axis=0),
        helper.make_node("Gather", ["shape", "i1"], ["s"], name="seq_of", axis=0),
        helper.make_node("Mul", ["b", "s"], ["rows"], name="rows"),
        helper.make_node("Concat", ["rows", "four"], ["flat_shape"], name="flat_shape", axis=0),
        helper.make_node("Reshape", ["x", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "w"], ["mm"], name="project"),
        helper.make_node("Relu", ["mm"], ["y"], name="relu"),
        helper.make_node("ConstantOfShape", ["shape"], ["ones"], name="ones",
                         value=numpy_helper.from_array(np.array([1.0], np.float32))),
        helper.make_node("Squeeze", ["s"], ["seq_scalar"], name="seq_scalar"),
        helper.make_node("Range", ["zero", "seq_scalar", "one"], ["positions"], name="positions"),
        helper.make_node("Cast", ["positions"], ["positions_f"], name="to_float", to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["positions_f", "axes"], ["positions_3d"], name="unsqueeze"),
        helper.make_node("Expand", ["positions_3d", "shape"], ["position_grid"], name="expand"),
        helper.make_node("Add", ["x", "ones"], ["shifted"], name="shift"),
        helper.make_node("Add", ["shifted", "position_grid"], ["z"], name="add_positions"),
    ]
    graph = helper.make_graph(
        nodes, "shape_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 5]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", "seq", 4])], inits)
    _save(_model(graph), "shape_chain.onnx")


def image() -> None:
    """A 3x3 convolution on x[N, 3, H, W]: batch and image-size gears."""
    rng = np.random.default_rng(2)
    weight = numpy_helper.from_array(rng.standard_normal((2, 3, 3, 3)).astype(np.float32), "weight")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "weight"], ["conv"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["conv"], ["y"], name="relu")], "image",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2, "H", "W"])], [weight])
    _save(_model(graph), "image.onnx")


def nonzero() -> None:
    """NonZero: its output size depends on the input's values, not its shape."""
    graph = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["y"], name="where_nonzero")], "nonzero",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [2, None])])
    _save(_model(graph), "nonzero.onnx")


def topk() -> None:
    """TopK whose k is a tensor computed from the input's shape (half of dim 1):
    static once the shape is bound."""
    inits = [numpy_helper.from_array(np.array([1], np.int64), "i1"),
             numpy_helper.from_array(np.array([2], np.int64), "two")]
    graph = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
         helper.make_node("Gather", ["shape", "i1"], ["n"], name="n", axis=0),
         helper.make_node("Div", ["n", "two"], ["k"], name="half"),
         helper.make_node("TopK", ["x", "k"], ["values", "indices"], name="topk", axis=1)], "topk",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "n"])],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, ["batch", None]),
         helper.make_tensor_value_info("indices", TensorProto.INT64, ["batch", None])], inits)
    _save(_model(graph), "topk.onnx")


def ml_scaler() -> None:
    """An ai.onnx.ml op (as scikit-learn pipelines export) on a symbolic batch:
    ONNX's shape inference gives its output no shape."""
    graph = helper.make_graph(
        [helper.make_node("Scaler", ["x"], ["scaled"], name="scaler", domain="ai.onnx.ml",
                          offset=[1.0, 2.0, 3.0], scale=[2.0, 2.0, 2.0]),
         helper.make_node("Relu", ["scaled"], ["y"], name="relu")], "ml_scaler",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    _save(_model(graph, [*OPSET, helper.make_opsetid("ai.onnx.ml", 3)]), "ml_scaler.onnx")


def unknown_opset() -> None:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "unknown_opset",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    _save(_model(graph, [helper.make_opsetid("", 999)]), "unknown_opset.onnx", check=False)


def bad_output_type() -> None:
    """The declared output shape [3] disagrees with inference ([2])."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu1")], "bad_output_type",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    _save(_model(graph), "bad_output_type.onnx")


def channel_mismatch() -> None:
    """Conv weights for 3 input channels on a 2-channel input: ONNX's inference
    lets it through, ge's (run by the verifier) does not."""
    weight = numpy_helper.from_array(np.zeros((4, 3, 3, 3), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv_bad")], "channel_mismatch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 3, 3])],
        [weight])
    _save(_model(graph), "channel_mismatch.onnx")


def matmul_mismatch() -> None:
    """A MatMul whose batch dims cannot broadcast (12 heads against 64), its
    result declared nowhere: ONNX's inference drops it, ge's names why."""
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["q", "k"], ["scores"], name="scores"),
         helper.make_node("Relu", ["scores"], ["y"], name="act")], "matmul_mismatch",
        [helper.make_tensor_value_info("q", TensorProto.FLOAT, ["batch", 12, 4, 8]),
         helper.make_tensor_value_info("k", TensorProto.FLOAT, ["batch", 64, 8, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", None, 4, 6])])
    _save(_model(graph), "matmul_mismatch.onnx")


def undefined_input() -> None:
    """A node reading a tensor nothing defines: the ONNX checker's error, located."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["nowhere"], ["y"], name="reads_nothing")], "undefined_input",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    _save(_model(graph), "undefined_input.onnx", check=False)


def unregistered_ops() -> None:
    """Ops the checker knows no schema for at the model's opset: a TensorFlow op
    tf2onnx left unconverted, and GroupNormalization (ONNX's from opset 18,
    revised in 21) at opset 13."""
    for name, op_type in (("framework_op", "StatefulPartitionedCall"), ("later_opset_op", "GroupNormalization")):
        graph = helper.make_graph(
            [helper.make_node(op_type, ["x"], ["y"], name=name)], name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
        _save(_model(graph, [helper.make_opsetid("", 13)]), f"{name}.onnx", check=False)


def graph_only() -> None:
    """A graph exported without its weights: the initializers are in an external
    data file ``graph_only.weights`` that is not there (a small one is inline)."""
    rng = np.random.default_rng(1)
    weight = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "conv.weight")
    fc = numpy_helper.from_array(rng.standard_normal((8, 10)).astype(np.float32), "fc.weight")
    shape = numpy_helper.from_array(np.array([-1, 8], np.int64), "flat_shape")
    for tensor in (weight, fc):
        onnx.external_data_helper.set_external_data(tensor, "graph_only.weights",
                                                    offset=0 if tensor is weight else 1024,
                                                    length=len(tensor.raw_data))
        tensor.ClearField("raw_data")
        tensor.data_location = TensorProto.EXTERNAL
    graph = helper.make_graph(
        [helper.make_node("Conv", ["image", "conv.weight"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"], name="relu"),
         helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
         helper.make_node("Reshape", ["p", "flat_shape"], ["f"], name="flatten"),
         helper.make_node("MatMul", ["f", "fc.weight"], ["logits"], name="fc")],
        "graph_only",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 16, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        [weight, fc, shape])
    _save(_model(graph), "graph_only.onnx", check=False)


def _add_weight(weight: onnx.TensorProto, name: str, dtype: int = TensorProto.FLOAT,
                shape: tuple[int, ...] = (4,)) -> None:
    """``y = x + w`` with the given (malformed) initializer ``w``, unchecked."""
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], name,
                              [helper.make_tensor_value_info("x", dtype, list(shape))],
                              [helper.make_tensor_value_info("y", dtype, list(shape))], [weight])
    _save(_model(graph), f"{name}.onnx", check=False)


def malformed_tensors() -> None:
    """Initializers whose data does not fit them, or whose type geir cannot hold."""
    long = numpy_helper.from_array(np.ones(4, np.float32), "w")
    long.raw_data = long.raw_data + bytes(4)  # 20 bytes for 4 floats
    _add_weight(long, "raw_data_too_long")
    # a weight too large for the checker to be shown (the importer checks it as it reads it)
    short = numpy_helper.from_array(np.ones((128, 129), np.float32), "w")
    short.raw_data = short.raw_data[:-4]
    _add_weight(short, "large_raw_data_too_short", shape=(128, 129))
    unknown = numpy_helper.from_array(np.ones(4, np.float32), "w")
    unknown.data_type = 99
    _add_weight(unknown, "unknown_data_type")
    strings = helper.make_tensor("w", TensorProto.STRING, [4], [b"a", b"b", b"c", b"d"])
    graph = helper.make_graph([helper.make_node("Identity", ["w"], ["y"], name="id")], "string_initializer", [],
                              [helper.make_tensor_value_info("y", TensorProto.STRING, [4])], [strings])
    _save(_model(graph), "string_initializer.onnx")
    # a list's position whose data does not fit it: read before the initializers are
    position = numpy_helper.from_array(np.array(1, np.int64), "at")
    position.raw_data = position.raw_data + bytes(8)  # 16 bytes for one int64
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    nodes = [helper.make_node("SplitToSequence", ["x"], ["rows"], name="unbind", axis=0, keepdims=0),
             helper.make_node("SequenceAt", ["rows", "at"], ["y"], name="row")]
    graph = helper.make_graph(nodes, "sequence_position_too_long", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])], [position])
    _save(_model(graph), "sequence_position_too_long.onnx", check=False)


def exporter_dims() -> None:
    """Dims as exporters write them: -1 (PaddlePaddle's dynamic dim), a name,
    neither, and 0 (a static empty dim)."""
    values = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("x", "y")]
    for value in values:
        shape = value.type.tensor_type.shape
        shape.dim.add().dim_value = -1
        shape.dim.add().dim_param = "seq"
        shape.dim.add()
        shape.dim.add().dim_value = 0
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "exporter_dims",
                              [values[0]], [values[1]])
    _save(_model(graph), "exporter_dims.onnx", check=False)


def sequences() -> None:
    """torch's unbind (SplitToSequence, keepdims=0) read at a constant position and
    counted: the list the graph fixes; and a list read at a position the graph
    takes as an input, which geir cannot follow."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    nodes = [helper.make_node("SplitToSequence", ["x"], ["rows"], name="unbind", axis=0, keepdims=0),
             helper.make_node("Constant", [], ["last"], name="last", value=numpy_helper.from_array(
                 np.array(-1, np.int64), "last")),
             helper.make_node("SequenceAt", ["rows", "last"], ["y"], name="at"),
             helper.make_node("SequenceLength", ["rows"], ["n"], name="count")]
    graph = helper.make_graph(nodes, "unbind", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4]),
                                                     helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    _save(_model(graph), "unbind.onnx")
    nodes = [nodes[0], helper.make_node("SequenceAt", ["rows", "i"], ["y"], name="at")]
    graph = helper.make_graph(nodes, "unbind_at_input", [x, helper.make_tensor_value_info("i", TensorProto.INT64, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    _save(_model(graph), "unbind_at_input.onnx")


def none_output() -> None:
    """A scripted classifier's auxiliary output that is None in inference: an
    empty ``Optional`` the graph returns beside its logits."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    nodes = [helper.make_node("Relu", ["x"], ["logits"], name="head"),
             helper.make_node("Optional", [], ["aux"], name="no_aux",
                              type=helper.make_tensor_type_proto(TensorProto.FLOAT, None))]
    aux = helper.make_value_info("aux", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, None)))
    graph = helper.make_graph(nodes, "none_output", [x], [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                                                         [1, 4]), aux])
    _save(_model(graph), "none_output.onnx")


def main() -> None:
    data = conv_relu()
    with open(os.path.join(HERE, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(HERE, "not_onnx.onnx"), "w") as f:
        f.write("this is a text file, not an ONNX model\n")
    optional_inputs()
    fallback()
    two_unsupported()
    untyped_custom()
    if_loop()
    growing_loop()
    dynamic()
    two_inputs()
    shape_chain()
    image()
    nonzero()
    topk()
    ml_scaler()
    unknown_opset()
    bad_output_type()
    channel_mismatch()
    matmul_mismatch()
    undefined_input()
    unregistered_ops()
    graph_only()
    malformed_tensors()
    exporter_dims()
    sequences()
    none_output()


if __name__ == "__main__":
    main()
