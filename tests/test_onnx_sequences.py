"""ONNX sequences the graph fixes import as their tensors, as a specification:
``unbind``/``chunk`` (``SplitToSequence`` read by ``SequenceAt``), a list
built element by element and stacked (``SequenceInsert``,
``ConcatFromSequence``) and its length compute what onnx's reference
evaluator computes; a list the rules cannot follow keeps the importer's
diagnostic."""

from __future__ import annotations

import numpy as np
import onnx
import onnx.reference
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import geir

OPSET = [helper.make_opsetid("", 17)]


def _model(nodes: list[onnx.NodeProto], x_shape: list[int], outputs: list[str],
           extra_inputs: list[onnx.ValueInfoProto] = (), output_shape: list[int] | None = None) -> onnx.ModelProto:
    declared = [helper.make_tensor_value_info(o, TensorProto.FLOAT, output_shape) if output_shape
                else helper.make_empty_tensor_value_info(o) for o in outputs]
    graph = helper.make_graph(nodes, "seq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape),
                                             *extra_inputs], declared)
    model = helper.make_model(graph, opset_imports=OPSET)
    return onnx.shape_inference.infer_shapes(model)


def _const(name: str, value: np.ndarray) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name))


def _agree(model: onnx.ModelProto, x: np.ndarray) -> None:
    expected = onnx.reference.ReferenceEvaluator(model).run(None, {"x": x})
    got = geir.interpret(model, {"x": x}).outputs
    names = [o.name for o in model.graph.output]
    for name, want in zip(names, expected):
        np.testing.assert_array_equal(got[name], want, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data(), st.booleans())
def test_unbind_then_at_a_constant_position_is_the_slice(shape: list[int], data: st.DataObject,
                                                         keepdims: bool) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    length = shape[axis]
    position = data.draw(st.integers(-length, length - 1))
    nodes = [helper.make_node("SplitToSequence", ["x"], ["s"], axis=axis, keepdims=int(keepdims)),
             _const("i", np.array(position, np.int64)),
             helper.make_node("SequenceAt", ["s", "i"], ["y"]),
             helper.make_node("SequenceLength", ["s"], ["n"])]
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    _agree(_model(nodes, shape, ["y", "n"]), x)


@pytest.mark.parametrize("split", [np.array(2, np.int64), np.array([1, 3, 2], np.int64)])
def test_chunks_of_a_size_or_of_given_sizes(split: np.ndarray) -> None:
    nodes = [_const("sizes", split),
             helper.make_node("SplitToSequence", ["x", "sizes"], ["s"], axis=1),
             _const("last", np.array(-1, np.int64)),
             helper.make_node("SequenceAt", ["s", "last"], ["y"])]
    _agree(_model(nodes, [2, 6], ["y"]), np.arange(12, dtype=np.float32).reshape(2, 6))


@pytest.mark.parametrize("new_axis", [0, 1])
def test_a_list_built_by_inserts_and_stacked(new_axis: int) -> None:
    nodes = [helper.make_node("SequenceEmpty", [], ["e"], dtype=TensorProto.FLOAT),
             helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Neg", ["x"], ["n"]),
             helper.make_node("SequenceInsert", ["e", "r"], ["s1"]),
             helper.make_node("SequenceInsert", ["s1", "n"], ["s2"]),
             _const("front", np.array(0, np.int64)),
             helper.make_node("SequenceInsert", ["s2", "x", "front"], ["s3"]),
             helper.make_node("SequenceErase", ["s3"], ["s4"]),
             helper.make_node("ConcatFromSequence", ["s4"], ["y"], axis=0, new_axis=new_axis)]
    model = _model(nodes, [2, 3], ["y"], output_shape=[2, 2, 3] if new_axis else [4, 3])
    _agree(model, np.array([[1, -2, 3], [-4, 5, -6]], np.float32))
    # nothing of the list is left for the importer: no sequence type, no fallback op
    text = str(geir.import_onnx(model.SerializeToString()))
    assert "sequence" not in text.lower() and "onnx_op" not in text


def test_a_position_the_graph_does_not_fix_keeps_the_diagnostic() -> None:
    nodes = [helper.make_node("SplitToSequence", ["x"], ["s"], axis=0),
             helper.make_node("SequenceAt", ["s", "i"], ["y"])]
    model = _model(nodes, [3, 2], ["y"], extra_inputs=[helper.make_tensor_value_info("i", TensorProto.INT64, [])])
    with pytest.raises(geir.Error, match="has a sequence type, which geir does not support"):
        geir.import_onnx(model.SerializeToString())


def test_split_sizes_computed_from_a_static_shape() -> None:
    # torch.split(x, x.shape[1] // 2): the sizes are shape arithmetic the graph fixes
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             _const("one", np.array(1, np.int64)), _const("two", np.array(2, np.int64)),
             helper.make_node("Gather", ["shape", "one"], ["width"]),
             helper.make_node("Div", ["width", "two"], ["half"]),
             helper.make_node("SplitToSequence", ["x", "half"], ["s"], axis=1),
             helper.make_node("SequenceAt", ["s", "one"], ["y"])]
    _agree(_model(nodes, [2, 8], ["y"]), np.arange(16, dtype=np.float32).reshape(2, 8))


def _loop_body(nodes: list[onnx.NodeProto], carried: str, sequence: bool) -> onnx.GraphProto:
    """A Loop body of ``nodes`` taking the iteration number ``i``, the condition
    ``cond`` and one carried value (a float list or tensor), and giving back
    ``cond_out`` and ``<carried>_out``."""
    def value(name: str) -> onnx.ValueInfoProto:
        return (helper.make_tensor_sequence_value_info(name, TensorProto.FLOAT, None) if sequence
                else helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    return helper.make_graph(nodes, "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                                             helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                                             value(carried)],
                             [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), value(carried + "_out")])


def _trips(nodes: list[onnx.NodeProto], trips: onnx.NodeProto | None
           ) -> tuple[list[onnx.NodeProto], list[onnx.ValueInfoProto]]:
    """``nodes`` with ``trips``, the node that makes the trip count, just before
    the Loop, and the graph's extra inputs: for None, the trip count is a graph input."""
    if trips is None:
        return nodes, [helper.make_tensor_value_info("trips", TensorProto.INT64, [])]
    loop = next(k for k, n in enumerate(nodes) if n.op_type == "Loop")
    return nodes[:loop] + [trips] + nodes[loop:], []


def _list_loop(trips: onnx.NodeProto | None) -> onnx.ModelProto:
    """A Python loop over x's rows that torch traced into a Loop carrying a
    list: each iteration appends row i + 1 times two, then the rows are stacked."""
    body = _loop_body(
        [_const("one", np.array([1], np.int64)), _const("zero", np.array([0], np.int64)),
         helper.make_node("Unsqueeze", ["i", "zero"], ["start"]),
         helper.make_node("Add", ["start", "one"], ["end"]),
         helper.make_node("Slice", ["x", "start", "end", "zero"], ["row"]),
         _const("two", np.array(2.0, np.float32)),
         helper.make_node("Mul", ["row", "two"], ["doubled"]),
         helper.make_node("SequenceInsert", ["items", "doubled"], ["items_out"]),
         helper.make_node("Identity", ["keep_going"], ["cond_out"])], "items", sequence=True)
    nodes = [helper.make_node("SequenceEmpty", [], ["empty"], dtype=TensorProto.FLOAT),
             _const("keep_going", np.array(True)),
             helper.make_node("Loop", ["trips", "keep_going", "empty"], ["rows"], body=body),
             helper.make_node("ConcatFromSequence", ["rows"], ["y"], axis=0)]
    nodes, extra = _trips(nodes, trips)
    return _model(nodes, [3, 4], ["y"], extra_inputs=extra, output_shape=[3, 4])


def test_a_loop_that_carries_a_list_a_constant_number_of_times_is_unrolled() -> None:
    model = _list_loop(_const("trips", np.array(3, np.int64)))
    _agree(model, np.arange(12, dtype=np.float32).reshape(3, 4))
    text = str(geir.import_onnx(model.SerializeToString()))
    assert "ge.loop" not in text and "sequence" not in text.lower()


def test_a_loop_whose_trip_count_is_an_input_keeps_the_diagnostic() -> None:
    with pytest.raises(geir.Error, match="has a sequence type, which geir does not support"):
        geir.import_onnx(_list_loop(None).SerializeToString())


def test_a_position_the_loop_body_computes_from_the_iteration_is_followed() -> None:
    """Each iteration appends twice the element at position 2 i + 0 of the list
    it carries, which starts as x's rows: the position is the body's arithmetic."""
    body = _loop_body(
        [_const("two_i", np.array(2, np.int64)), _const("zero_i", np.array(0, np.int64)),
         helper.make_node("Mul", ["i", "two_i"], ["twice"]),
         helper.make_node("Add", ["twice", "zero_i"], ["position"]),
         helper.make_node("SequenceAt", ["items", "position"], ["picked"]),
         _const("two", np.array(2.0, np.float32)),
         helper.make_node("Mul", ["picked", "two"], ["doubled"]),
         helper.make_node("SequenceInsert", ["items", "doubled"], ["items_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"])], "items", sequence=True)
    nodes = [helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0),
             _const("trips", np.array(3, np.int64)), _const("keep_going", np.array(True)),
             helper.make_node("Loop", ["trips", "keep_going", "rows"], ["grown"], body=body),
             helper.make_node("ConcatFromSequence", ["grown"], ["y"], axis=0)]
    model = _model(nodes, [3, 4], ["y"], output_shape=[6, 4])
    _agree(model, np.arange(12, dtype=np.float32).reshape(3, 4))
    assert "sequence" not in str(geir.import_onnx(model.SerializeToString())).lower()


def _sum_of_chunks(trips: onnx.NodeProto | None) -> onnx.ModelProto:
    """A scripted loop over ``torch.chunk(x, 4, 1)`` summing the chunks: the
    body reads the list from the graph around it, which the loop does not carry."""
    body = _loop_body(
        [helper.make_node("SequenceAt", ["chunks", "i"], ["chunk"]),
         helper.make_node("Add", ["total", "chunk"], ["total_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"])], "total", sequence=False)
    nodes = [_const("two", np.array(2, np.int64)), _const("zero", np.array(0, np.int64)),
             helper.make_node("SplitToSequence", ["x", "two"], ["chunks"], axis=1),
             helper.make_node("SequenceAt", ["chunks", "zero"], ["first"]),
             _const("keep_going", np.array(True)),
             helper.make_node("Loop", ["trips", "keep_going", "first"], ["y"], body=body)]
    nodes, extra = _trips(nodes, trips)
    return _model(nodes, [3, 8], ["y"], extra_inputs=extra, output_shape=[3, 2])


def test_a_loop_that_reads_a_list_from_around_it_is_unrolled() -> None:
    model = _sum_of_chunks(helper.make_node("SequenceLength", ["chunks"], ["trips"]))
    _agree(model, np.arange(24, dtype=np.float32).reshape(3, 8))
    assert "sequence" not in str(geir.import_onnx(model.SerializeToString())).lower()


def test_a_list_a_kept_loop_reads_from_around_it_keeps_the_diagnostic() -> None:
    with pytest.raises(geir.Error, match="has a sequence type, which geir does not support"):
        geir.import_onnx(_sum_of_chunks(None).SerializeToString())
