"""A graph without its weights.

An ONNX model whose initializers live in an external data file that is not
there imports with each such weight typed but without bytes (an elided
``dense_resource``); the module prints and parses back, compiles, lowers and
emulates timing-only; whatever needs the values (the interpreter, numeric
emulation) stops with one diagnostic naming the first such weight; the
task-list JSON marks such a weight absent and reads back the same. ``elide_weights=True`` makes the same from a complete model. Where only
some external files exist, those weights load.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import geir
from geir.absent_weights import absent_weights, require_weights
from geir.backends.interpreter import interpret
from geir.backends.task_json import task_list_from_json, task_list_to_json
from geir.diagnostics import DiagnosticError
from geir.onnx_importer import INLINE_CONSTANT_LIMIT, import_onnx
from geir.parser import parse_module
from geir.printer import module_to_string

RNG = np.random.default_rng(0)
CONV_W = RNG.standard_normal((8, 3, 3, 3)).astype(np.float32)
FC_W = RNG.standard_normal((8, 10)).astype(np.float32)


def _model() -> onnx.ModelProto:
    """Conv -> Relu -> GlobalAveragePool -> Reshape -> MatMul with a symbolic batch;
    two large weights and a small shape constant."""
    graph = helper.make_graph(
        [helper.make_node("Conv", ["image", "conv.weight"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"], name="relu"),
         helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
         helper.make_node("Reshape", ["p", "flat_shape"], ["f"], name="flatten"),
         helper.make_node("MatMul", ["f", "fc.weight"], ["logits"], name="fc")],
        "graph_only",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 16, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        [numpy_helper.from_array(CONV_W, "conv.weight"), numpy_helper.from_array(FC_W, "fc.weight"),
         numpy_helper.from_array(np.array([-1, 8], np.int64), "flat_shape")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _save_external(folder: pathlib.Path, one_file: bool) -> str:
    """The model with its large weights in external data (one file, or one file
    per tensor named after it); returns the model's path."""
    path = str(folder / "model.onnx")
    onnx.save_model(_model(), path, save_as_external_data=True, all_tensors_to_one_file=one_file,
                    location="model.weights" if one_file else None, size_threshold=64)
    return path


@pytest.fixture
def graph_only(tmp_path: pathlib.Path) -> str:
    """A model whose weights file is gone."""
    path = _save_external(tmp_path, one_file=True)
    os.remove(tmp_path / "model.weights")
    return path


def _weights(module: geir.Module) -> dict[str, object]:
    return {str(op.location.name): op.attributes["value"] for op in module.walk()  # type: ignore[attr-defined]
            if op.name == "ge.weights"}


def test_missing_weights_import_typed_without_bytes(graph_only: str) -> None:
    module = import_onnx(graph_only, input_shapes={"batch": (1,)})
    assert geir.module_has_absent_weights(module)
    weights = _weights(module)
    # in ONNX order, each with the initializer's type; the small inline one keeps its values
    assert list(weights) == ["conv.weight", "fc.weight", "flat_shape"]
    assert str(weights["conv.weight"]) == "dense_resource<conv.weight> : tensor<8x3x3x3xf32>"
    assert str(weights["fc.weight"]) == "dense_resource<fc.weight> : tensor<8x10xf32>"
    assert str(weights["flat_shape"]) == "dense<[-1, 8]> : tensor<2xi64>"
    assert [name for _, name in ((op, a.blob.name) for op, a in absent_weights(module))] == ["conv.weight",
                                                                                            "fc.weight"]


def test_absent_weights_print_without_blobs_and_parse_back(graph_only: str) -> None:
    text = module_to_string(import_onnx(graph_only))
    assert "dialect_resources" not in text
    again = parse_module(text, "graph_only.mlir")
    assert geir.module_has_absent_weights(again)
    assert module_to_string(again) == text


def test_a_module_with_all_its_weights_has_none_absent(tmp_path: pathlib.Path) -> None:
    module = import_onnx(_save_external(tmp_path, one_file=True))
    assert not geir.module_has_absent_weights(module)
    require_weights(module, "the interpreter")  # returns


def test_compiles_lowers_and_emulates_timing_only(graph_only: str) -> None:
    module = import_onnx(graph_only, input_shapes={"batch": (2,)})
    geir.run_pipeline(module, "canonicalize,cse,assign-engines,partition-streams,insert-events,reuse-memory")
    task_list = geir.lower(module)
    absent = {w.name for w in task_list.weights if w.absent}
    assert absent == {"conv.weight", "fc.weight"}
    # the weight space still holds room for every weight
    assert task_list.weight_size >= CONV_W.nbytes + FC_W.nbytes
    report = geir.emulate(task_list, device="310P3", timing_only=True)
    assert report.makespan_us > 0


def test_numerics_stop_with_one_diagnostic_naming_the_weight(graph_only: str) -> None:
    module = import_onnx(graph_only, input_shapes={"batch": (1,)})
    image = np.zeros((1, 3, 16, 16), np.float32)
    with pytest.raises(DiagnosticError, match="the interpreter needs the values of weight 'conv.weight'.*"
                                              "weights file beside it"):
        interpret(module, {"image": image})
    task_list = geir.lower(module)
    with pytest.raises(geir.Error, match="numeric emulation needs the values of weight '(conv|fc).weight'") as info:
        geir.emulate(task_list, device="310P3")
    assert str(info.value).count("error:") == 1


def test_the_task_list_json_keeps_absent_weights_absent(graph_only: str) -> None:
    """Exported, an absent weight is its name, offset and type with ``"absent":
    true``; read back it is absent again, and the list emulates timing-only as
    before and refuses numbers as before."""
    module = import_onnx(graph_only, input_shapes={"batch": (1,)})
    task_list = geir.lower(module)
    text = task_list_to_json(task_list)
    assert '"absent": true' in text
    back = task_list_from_json(text)
    assert [(w.name, w.offset, w.data.shape, w.data.dtype, w.absent) for w in back.weights] == \
        [(w.name, w.offset, w.data.shape, w.data.dtype, w.absent) for w in task_list.weights]
    assert task_list_to_json(back) == text
    assert (geir.emulate(back, device="310P3", timing_only=True).makespan_us
            == geir.emulate(task_list, device="310P3", timing_only=True).makespan_us)
    with pytest.raises(geir.Error, match="numeric emulation needs the values of weight"):
        geir.emulate(back, device="310P3")


def test_an_absent_weight_with_bytes_is_refused() -> None:
    doc = ('{"version": 1, "arena_size": 0, "streams": [], "weights": [{"name": "w", "offset": 0, '
           '"shape": [2], "dtype": "f32", "absent": true, "data": "AAAAAAAAAAA="}]}')
    with pytest.raises(DiagnosticError, match='an absent weight holds no "data"'):
        task_list_from_json(doc)
    with pytest.raises(DiagnosticError, match='expected true or false, got "yes"'):
        task_list_from_json(doc.replace('"absent": true, "data": "AAAAAAAAAAA="', '"absent": "yes"'))


def test_canonicalize_leaves_absent_weights_alone(graph_only: str) -> None:
    """Folding needs values: an op on an absent weight is not folded, and nothing fails."""
    module = import_onnx(graph_only, input_shapes={"batch": (1,)})
    geir.run_pipeline(module, "canonicalize")
    assert {"conv.weight", "fc.weight"} <= set(_weights(module))
    assert any(op.name == "ge.matmul" for op in module.walk())


def test_only_the_missing_files_are_absent(tmp_path: pathlib.Path) -> None:
    """One external file per tensor, one of them gone: the other weight loads."""
    path = _save_external(tmp_path, one_file=False)
    os.remove(tmp_path / "fc.weight")
    module = import_onnx(path, input_shapes={"batch": (1,)})
    weights = _weights(module)
    assert [a.blob.name for _, a in absent_weights(module)] == ["fc.weight"]
    np.testing.assert_array_equal(weights["conv.weight"].to_numpy(), CONV_W)  # type: ignore[attr-defined]


def test_proto_loaded_without_external_data_has_absent_weights(tmp_path: pathlib.Path) -> None:
    path = _save_external(tmp_path, one_file=True)
    proto = onnx.load(path, load_external_data=False)
    assert geir.module_has_absent_weights(import_onnx(proto))
    with open(path, "rb") as f:  # bytes carry no folder to look in
        assert geir.module_has_absent_weights(import_onnx(f.read()))
    assert not geir.module_has_absent_weights(import_onnx(path))


def test_elide_weights_keeps_types_and_small_constants(tmp_path: pathlib.Path) -> None:
    full = import_onnx(_model(), input_shapes={"batch": (1,)})
    elided = import_onnx(_model(), input_shapes={"batch": (1,)}, elide_weights=True)
    assert geir.module_has_absent_weights(elided) and not geir.module_has_absent_weights(full)
    before, after = _weights(full), _weights(elided)
    assert list(before) == list(after)
    for name, value in after.items():
        assert value.type == before[name].type  # type: ignore[attr-defined]
        large = (value.type.num_elements or 0) > INLINE_CONSTANT_LIMIT  # type: ignore[attr-defined]
        assert (value.blob.data is None) if large else value == before[name]  # type: ignore[attr-defined]
    # the same program: only the weights' bytes differ
    program = module_to_string(full).split("{-#")[0]
    assert module_to_string(elided).rstrip("\n") == program.rstrip("\n")
    # the Python API gives what ge-translate --elide-weights writes
    assert module_to_string(geir.import_onnx(_model(), {"batch": (1,)}, elide_weights=True)) == \
        module_to_string(elided)


def test_a_missing_constant_node_tensor_is_an_error(tmp_path: pathlib.Path) -> None:
    """Only initializers may come without their data: a Constant node's value is read."""
    big = numpy_helper.from_array(np.ones((8, 8), np.float32), "k")
    graph = helper.make_graph([helper.make_node("Constant", [], ["k"], value=big, name="const"),
                               helper.make_node("Add", ["x", "k"], ["y"], name="add")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    path = str(tmp_path / "const.onnx")
    onnx.save_model(model, path, save_as_external_data=True, location="const.bin", size_threshold=0,
                    convert_attribute=True)
    os.remove(tmp_path / "const.bin")
    with pytest.raises(DiagnosticError, match="tensor 'k' keeps its data in an external file that was not found"):
        import_onnx(path)


def test_an_op_on_absent_weights_alone_folds_to_a_constant_without_bytes(tmp_path: pathlib.Path) -> None:
    """GE folds a node whose inputs are all constants; without the weights' bytes
    its value is unknown, but it is still no kernel: a position-embedding gather
    of a graph-only export becomes a constant without bytes, the model emulates
    timing-only, and numerics name the folded constant."""
    table = RNG.standard_normal((64, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["positions.weight", "ids"], ["pos"], name="embed", axis=0),
         helper.make_node("Add", ["x", "pos"], ["y"], name="add")],
        "positions",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 8])],
        [numpy_helper.from_array(table, "positions.weight"), numpy_helper.from_array(np.arange(16), "ids")])
    path = str(tmp_path / "model.onnx")
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path,
                    save_as_external_data=True, location="model.weights", size_threshold=256)
    os.remove(tmp_path / "model.weights")
    module = import_onnx(path)
    geir.run_pipeline(module, "ge-default{device=310P3}")
    task_list = geir.lower(module)
    kernels = [t.op for s in task_list.streams for t in s.tasks if hasattr(t, "op")]
    assert "ge.gather" not in kernels and "ge.add" in kernels
    assert [w.name for w in task_list.weights if w.absent] == ["embed"]  # named after the folded node
    assert geir.emulate(task_list, device="310P3", timing_only=True).makespan_us > 0
    with pytest.raises(geir.Error, match="needs the values of weight 'embed'"):
        geir.emulate(task_list, device="310P3")
