"""The ONNX importer, the reference interpreter and their command-line path.

* the ``light_*`` models shipped with onnx: ``ge-translate --import-onnx`` then
  ``ge-run --interpret`` reproduces their expected outputs (through the CLI once,
  through the Python API for every model);
* round trip: the imported text parses back and prints identically;
* property: random small conv / matmul / elementwise graphs give the same
  outputs through import + interpret as ``onnx.reference.ReferenceEvaluator``;
* the API's edges: sources (path, bytes, ModelProto), external data, strict
  mode, input shapes, and bad input (exit 1, one line, nothing written);
* ``run_op`` and the input/output bindings the emulator and ``ge-run`` share.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.runner import Runner
from onnx.reference import ReferenceEvaluator

from geir.backends.interpreter import Interpreter, interpret
from geir.backends.io_bindings import graph_signature, load_inputs, random_inputs, save_outputs
from geir.backends.kernel_dispatch import KernelError, run_op, storage_dtype
from geir.attributes import IntegerAttr, StringAttr, TypeAttr
from geir.diagnostics import DiagnosticError
from geir.onnx_importer import import_onnx
from geir.parser import parse_module
from geir.printer import PrintOptions, module_to_string
from geir.types import F16, I64, TensorType
from tool_paths import find_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ONNX_DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
LIGHT_MODELS = sorted(glob.glob(os.path.join(ONNX_DATA, "light", "light_*.onnx")))
LIT_MODELS = os.path.join(ROOT, "lit_tests", "import", "Inputs")


def _light_case(path: str) -> tuple[dict[str, np.ndarray], np.ndarray, float, float]:
    """Inputs (generated as ONNX's runner does), expected output, rtol, atol."""
    model = onnx.load(path)
    initializers = {t.name for t in model.graph.initializer}
    inputs = {x.name: Runner.generate_dummy_data(x) for x in model.graph.input if x.name not in initializers}
    expected = numpy_helper.to_array(onnx.load_tensor(path[:-len(".onnx")] + "_output_0.pb"))
    name = os.path.basename(path)[len("light_"):-len(".onnx")]
    with open(os.path.join(ONNX_DATA, "real", f"test_{name}", "data.json")) as f:
        tolerances = json.load(f)
    return inputs, expected, tolerances["rtol"], tolerances["atol"]


# ------------------------------------------------------------- light models


def test_light_models_are_there() -> None:
    assert len(LIGHT_MODELS) >= 9, LIGHT_MODELS


#: squeezenet's constant weights drive its logits to about 1e11: which of the tied
#: maxima its Softmax keeps depends on the machine's f32 summation order
ILL_CONDITIONED = {"light_squeezenet.onnx"}


@pytest.mark.parametrize("path", [p for p in LIGHT_MODELS if os.path.basename(p) not in ILL_CONDITIONED],
                         ids=os.path.basename)
def test_light_model_python_api(path: str) -> None:
    """import_onnx + interpret reproduce the shipped expected output."""
    inputs, expected, rtol, atol = _light_case(path)
    module = import_onnx(path)
    (output,) = interpret(module, inputs).values()
    assert output.dtype == expected.dtype and output.shape == expected.shape
    np.testing.assert_allclose(output, expected, rtol=rtol, atol=atol)


def test_light_model_command_line(tmp_path: "os.PathLike[str]") -> None:
    """The same through the tools: ge-translate, then ge-run --interpret with an .npz."""
    path = os.path.join(ONNX_DATA, "light", "light_shufflenet.onnx")
    inputs, expected, rtol, atol = _light_case(path)
    mlir, in_npz, out_npz = (os.path.join(tmp_path, n) for n in ("model.mlir", "in.npz", "out.npz"))
    np.savez(in_npz, **inputs)
    translate, run = find_tool("ge-translate"), find_tool("ge-run")
    assert translate and run
    subprocess.run([translate, "--import-onnx", path, "-o", mlir], check=True)
    done = subprocess.run([run, mlir, "--interpret", "--inputs", in_npz, "-o", out_npz],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with np.load(out_npz) as outputs:
        assert outputs.files == ["gpu_0/softmax_1"]
        np.testing.assert_allclose(outputs["gpu_0/softmax_1"], expected, rtol=rtol, atol=atol)


# ------------------------------------------------------------- round trip


ROUND_TRIP_MODELS = [*LIGHT_MODELS, *(os.path.join(LIT_MODELS, n) for n in
                                      ("conv_relu.onnx", "optional_inputs.onnx", "fallback.onnx", "if_loop.onnx"))]


@pytest.mark.parametrize("path", ROUND_TRIP_MODELS, ids=os.path.basename)
@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_imported_text_round_trips(path: str, generic: bool) -> None:
    """The imported module prints, parses back and prints the same, locations included."""
    options = PrintOptions(generic=generic, debuginfo=True)
    text = module_to_string(import_onnx(path), options)
    again = module_to_string(parse_module(text, "imported.mlir"), options)
    assert again == text


def test_weights_survive_the_text_form() -> None:
    """A dense_resource blob printed and parsed back holds the initializer's bytes."""
    path = os.path.join(LIT_MODELS, "conv_relu.onnx")
    weight = numpy_helper.to_array(next(t for t in onnx.load(path).graph.initializer if t.name == "conv1.weight"))
    module = parse_module(module_to_string(import_onnx(path)))
    (blob,) = module.resources.values()
    np.testing.assert_array_equal(np.frombuffer(blob.data, np.float32).reshape(weight.shape), weight)


# ------------------------------------------------------------- property test


@st.composite
def small_graphs(draw: st.DrawFn) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A random chain of conv / matmul / elementwise / pooling nodes on one input."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    in_shape = [1, draw(st.integers(1, 3)), draw(st.integers(3, 6)), draw(st.integers(3, 6))]
    shape = list(in_shape)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    current = "x"
    for k in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["Conv", "MatMul", "Add", "Mul", "Relu", "Sigmoid", "Tanh", "MaxPool",
                                     "AveragePool"]))
        out = f"t{k}"
        if kind == "Conv":
            kernel = draw(st.integers(1, min(3, shape[2], shape[3])))
            channels, pad = draw(st.integers(1, 4)), draw(st.integers(0, kernel - 1))
            w = rng.standard_normal((channels, shape[1], kernel, kernel)).astype(np.float32)
            b = rng.standard_normal(channels).astype(np.float32)
            inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
            nodes.append(helper.make_node("Conv", [current, f"w{k}", f"b{k}"], [out], pads=[pad] * 4))
            shape = [1, channels, shape[2] + 2 * pad - kernel + 1, shape[3] + 2 * pad - kernel + 1]
        elif kind == "MatMul":
            cols = draw(st.integers(1, 5))
            inits.append(numpy_helper.from_array(rng.standard_normal((shape[3], cols)).astype(np.float32), f"m{k}"))
            nodes.append(helper.make_node("MatMul", [current, f"m{k}"], [out]))
            shape = [*shape[:3], cols]
        elif kind in ("Add", "Mul"):
            # a per-channel, a full or a scalar-like constant, broadcast
            c_shape = draw(st.sampled_from([[shape[1], 1, 1], shape[1:], [1]]))
            inits.append(numpy_helper.from_array(rng.standard_normal(c_shape).astype(np.float32), f"c{k}"))
            nodes.append(helper.make_node(kind, [current, f"c{k}"], [out]))
        elif kind in ("MaxPool", "AveragePool"):
            if min(shape[2:]) < 2:
                continue
            nodes.append(helper.make_node(kind, [current], [out], kernel_shape=[2, 2], strides=[1, 1]))
            shape = [*shape[:2], shape[2] - 1, shape[3] - 1]
        else:
            nodes.append(helper.make_node(kind, [current], [out]))
        current = out
    if not nodes:
        nodes.append(helper.make_node("Identity", ["x"], ["y0"]))
        current = "y0"
    graph = helper.make_graph(nodes, "random_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model, {"x": rng.standard_normal(in_shape).astype(np.float32)}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_graphs())
def test_random_graphs_match_onnx_reference(case: tuple[onnx.ModelProto, dict[str, np.ndarray]]) -> None:
    """import + interpret == ONNX's ReferenceEvaluator on random small graphs."""
    model, feeds = case
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    (actual,) = interpret(import_onnx(model), feeds).values()
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------- the API's edges


def _relu_model(shape: list[int | str] = [2, 3]) -> onnx.ModelProto:  # noqa: B006 - read only
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_sources_path_bytes_and_proto_import_alike() -> None:
    path = os.path.join(LIT_MODELS, "conv_relu.onnx")
    with open(path, "rb") as f:
        data = f.read()
    texts = {module_to_string(import_onnx(src)) for src in (path, data, onnx.load_from_string(data))}
    assert len(texts) == 1


def test_the_callers_model_is_not_modified() -> None:
    model = _relu_model(["N", 3])
    before = model.SerializeToString()
    import_onnx(model, input_shapes={"x": (5, 3)})
    assert model.SerializeToString() == before


def test_external_data(tmp_path: "os.PathLike[str]") -> None:
    """Weights in an external data file load from the model's folder; from bytes
    (no folder to look in) they import without their values, which the
    interpreter then asks for."""
    weight = np.arange(64, dtype=np.float32).reshape(8, 8)
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "ext",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
                              [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    path = os.path.join(tmp_path, "ext.onnx")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="ext.bin",
                    size_threshold=0)
    x = np.ones((2, 8), np.float32)
    np.testing.assert_allclose(interpret(import_onnx(path), {"x": x})["y"], x @ weight)
    with open(path, "rb") as f:
        from_bytes = import_onnx(f.read())
    with pytest.raises(DiagnosticError, match="needs the values of weight 'w'"):
        interpret(from_bytes, {"x": x})


def _weighted_model(ir_version: int = 8) -> onnx.ModelProto:
    """x [2, 256] -> MatMul by a 128 KiB weight -> Reshape by a small shape -> Add a
    small bias: the large weight between two small initializers in ONNX order."""
    rng = np.random.default_rng(0)
    weights = {"bias": rng.standard_normal((4, 32)).astype(np.float32),
               "w": rng.standard_normal((256, 128)).astype(np.float32),
               "shape": np.array([-1, 4, 32], np.int64)}
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
         helper.make_node("Reshape", ["m", "shape"], ["r"], name="reshape"),
         helper.make_node("Add", ["r", "bias"], ["y"], name="add")], "weighted",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 32])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()])
    if ir_version < 4:  # initializers were graph inputs too
        graph.input.extend(helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                           for k, v in weights.items())
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=ir_version)


@pytest.mark.parametrize("ir_version", [3, 8])
def test_large_weights_import_alike_without_reaching_the_checker(monkeypatch: pytest.MonkeyPatch,
                                                                 ir_version: int) -> None:
    """A weight above STAND_IN_BYTES reaches the checker and shape inference as a
    graph input of its type; the module is the one it gives when every weight does
    reach them, and computes what onnx.reference does."""
    import geir.onnx_importer as importer
    model = _weighted_model(ir_version)
    assert numpy_helper.to_array(model.graph.initializer[1]).nbytes > importer.STAND_IN_BYTES
    text = module_to_string(import_onnx(model, input_shapes={"N": (2,)}))
    monkeypatch.setattr(importer, "STAND_IN_BYTES", 1 << 62)
    assert module_to_string(import_onnx(model, input_shapes={"N": (2,)})) == text
    assert [line.split(" = ")[0].strip() for line in text.splitlines() if "ge.weights" in line] == \
        ["%bias", "%w", "%shape"]
    x = np.random.default_rng(1).standard_normal((2, 256)).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(interpret(parse_module(text), {"x": x})["y"], expected, rtol=1e-5, atol=1e-5)


def test_eliding_never_reads_a_large_external_weight(tmp_path: "os.PathLike[str]") -> None:
    """--elide-weights drops a large weight's bytes, so its external file is not read
    (here it is truncated: reading it is an error); a small one's still is."""
    model = _weighted_model()
    path = os.path.join(tmp_path, "weighted.onnx")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=False, size_threshold=0)
    with open(os.path.join(tmp_path, "w"), "wb"):
        pass  # the large weight's file, emptied
    text = module_to_string(import_onnx(path, input_shapes={"N": (2,)}, elide_weights=True))
    assert "dense<[-1, 4, 32]>" in text and "dense_resource<w>" in text
    with pytest.raises(DiagnosticError, match="tensor 'w': cannot load external data"):
        import_onnx(path, input_shapes={"N": (2,)})


def test_input_shapes_bind_dynamic_dims() -> None:
    module = import_onnx(_relu_model(["N", 3]), input_shapes={"x": (4, 3)})
    sig = graph_signature(module)
    assert [(b.name, str(b.type)) for b in sig.inputs] == [("x", "tensor<4x3xf32>")]
    assert [(b.name, str(b.type)) for b in sig.outputs] == [("y", "tensor<4x3xf32>")]
    # unbound, the dim stays dynamic and keeps its ONNX name; bound by symbol, it is static
    dynamic = import_onnx(_relu_model(["N", 3]))
    assert str(graph_signature(dynamic).inputs[0].type) == "tensor<?x3xf32>"
    assert 'ge.symbols = ["N", ""]' in module_to_string(dynamic)
    by_symbol = import_onnx(_relu_model(["N", 3]), input_shapes={"N": (5,)})
    assert str(graph_signature(by_symbol).inputs[0].type) == "tensor<5x3xf32>"
    assert "ge.symbols" not in module_to_string(by_symbol)


def _dims_model(op: str, dims: list[int | str | None], **attrs: object) -> onnx.ModelProto:
    """``y = op(x)`` with input and output dims written as exporters write them:
    an int is ``dim_value`` (negative too), a str ``dim_param``, None neither."""
    values = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("x", "y")]
    for value in values:
        shape = value.type.tensor_type.shape
        for d in dims:
            dim = shape.dim.add()
            if isinstance(d, str):
                dim.dim_param = d
            elif d is not None:
                dim.dim_value = d
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], name="op", **attrs)], "dims", [values[0]],
                              [values[1]])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize(("dims", "type_text", "symbols"), [
    ([-1, 3], "tensor<?x3xf32>", None),           # PaddlePaddle's dynamic dim
    ([-7, -1], "tensor<?x?xf32>", None),          # any negative: dynamic, as onnxruntime reads it
    ([None, 3], "tensor<?x3xf32>", None),         # neither value nor name
    (["N", 3], "tensor<?x3xf32>", ["N", ""]),     # a name is kept for binding
    ([0, 3], "tensor<0x3xf32>", None),            # 0 is a static, empty dim, as onnxruntime reads it
])
def test_exporters_dims_import_as_onnxruntime_reads_them(dims: list[int | str | None], type_text: str,
                                                         symbols: list[str] | None) -> None:
    model = _dims_model("Relu", dims)
    module = import_onnx(model)
    assert [str(b.type) for b in graph_signature(module).inputs] == [type_text]
    text = module_to_string(module)
    if symbols is None:
        assert "ge.symbols" not in text
    else:
        assert "ge.symbols = [" + ", ".join(f'"{s}"' for s in symbols) + "]" in text
    # it runs, as onnx's reference does, on any size a dynamic dim takes
    for first in [0] if dims[0] == 0 else [1, 5]:
        x = np.random.default_rng(first).standard_normal((first, *(3 if d == 3 else 2 for d in dims[1:])))
        x = x.astype(np.float32)
        expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
        np.testing.assert_array_equal(interpret(import_onnx(model), {"x": x})["y"], expected)


def test_a_zero_dim_is_static() -> None:
    """As onnxruntime does, an input declared 0x3 takes only a 0x3 tensor."""
    with pytest.raises(DiagnosticError, match="input 'x' has shape 2x3"):
        interpret(import_onnx(_dims_model("Relu", [0, 3])), {"x": np.ones((2, 3), np.float32)})


def test_negative_dims_bind_like_unknown_ones() -> None:
    """An input shape binds a -1 dim, and inference carries it through a conv."""
    model = _dims_model("Relu", [-1, 3, 8, 8])
    module = import_onnx(model, input_shapes={"x": (2, 3, 8, 8)})
    assert str(next(module.graphs()).regions[0].blocks[0].arguments[0].type) == "tensor<2x3x8x8xf32>"
    pool = _dims_model("GlobalAveragePool", [-1, 3, 8, 8])
    pool.graph.output[0].type.tensor_type.shape.dim[2].dim_value = -1  # (1 really; -1 says unknown)
    pool.graph.output[0].type.tensor_type.shape.dim[3].dim_value = 1
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    got = interpret(import_onnx(pool), {"x": x})["y"]
    np.testing.assert_allclose(got, ReferenceEvaluator(pool).run(None, {"x": x})[0], rtol=1e-6)


def test_strict_names_every_unsupported_node() -> None:
    path = os.path.join(LIT_MODELS, "two_unsupported.onnx")
    with pytest.raises(DiagnosticError) as info:
        import_onnx(path, strict=True)
    assert [str(d.location) for d in info.value.diagnostics] == ['loc("dft")', 'loc("custom_scale")']
    assert all("has no ge counterpart" in d.message for d in info.value.diagnostics)


def test_old_opsets_are_upgraded() -> None:
    """An opset-6 model (as the pytorch-converted ones) is converted to opset 7 first."""
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"], broadcast=1)], "legacy",
                              [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 4]),
                               helper.make_tensor_value_info("b", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)], ir_version=3)
    module = import_onnx(model)
    assert "broadcast" not in module_to_string(module)  # Add-7 broadcasts numpy-style
    a, b = np.ones((2, 3, 4), np.float32), np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_array_equal(interpret(module, {"a": a, "b": b})["c"], a + b)


def test_softmax_before_opset_13_flattens() -> None:
    """Softmax-11 on axis 1 of a 3-D tensor normalises over dims 1 and 2 together."""
    graph = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], axis=1)], "softmax11",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=8)
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    # (ONNX's ReferenceEvaluator has only the opset-13 Softmax: the spec is the oracle)
    flat = np.exp(x.reshape(2, 12) - x.reshape(2, 12).max(axis=1, keepdims=True))
    expected = (flat / flat.sum(axis=1, keepdims=True)).reshape(2, 3, 4)
    module = import_onnx(model)
    assert [op.name for op in module.walk()][2:6] == ["ge.flatten", "ge.softmax", "ge.const", "ge.reshape"]
    np.testing.assert_allclose(interpret(module, {"x": x})["y"], expected, rtol=1e-6)


BAD_MODELS = [
    ("truncated.onnx", [], "truncated.onnx: error: not a readable ONNX model"),
    ("not_onnx.onnx", [], "not_onnx.onnx: error: not a readable ONNX model"),
    ("unknown_opset.onnx", [], "error: unknown opset: ai.onnx version 999"),
    ("dynamic.onnx", ["--input-shape", "x=2x5"], "x: error: input 'x' dim 1 is 4, but the bound shape says 5"),
    ("two_unsupported.onnx", ["--strict"], "dft: error: ONNX op 'DFT' has no ge counterpart"),
    ("bad_output_type.onnx", [], "relu1: error: Relu node: its declared output type disagrees"),
    ("channel_mismatch.onnx", [], "conv_bad: error: 'ge.conv2d' op operand 'W' expects 3"),
    ("undefined_input.onnx", [], "reads_nothing: error: invalid Relu node"),
]


@pytest.mark.parametrize("name,flags,message", BAD_MODELS, ids=[m[0] for m in BAD_MODELS])
def test_bad_input_exit_1_one_line_nothing_written(name: str, flags: list[str], message: str,
                                                   tmp_path: "os.PathLike[str]",
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from geir.tools.ge_translate import main
    out = os.path.join(tmp_path, "out.mlir")
    assert main(["--import-onnx", os.path.join(LIT_MODELS, name), *flags, "-o", out]) == 1
    err = capsys.readouterr().err
    assert message in err.splitlines()[0], err
    assert "Traceback" not in err
    # one line per diagnostic (two unsupported ops give two)
    assert len(err.splitlines()) == (2 if "--strict" in flags else 1), err
    assert not os.path.exists(out)


# ------------------------------------------------------------- run_op


def test_run_op_native_kernel_and_result_cast() -> None:
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    (out,) = run_op("ge.add", {}, [a, b], 1)
    np.testing.assert_array_equal(out, [4.0, 6.0])
    (half,) = run_op("ge.add", {}, [a, b], 1, result_types=[TensorType((2,), F16)])
    assert half.dtype == np.float16


def test_run_op_drops_unused_optional_outputs_and_implies_split_count() -> None:
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    outs = run_op("ge.max_pool", {"kernel_shape": _ints([2, 2])}, [x], 1)
    assert len(outs) == 1 and outs[0].shape == (1, 1, 2, 3)
    parts = run_op("ge.split", {"axis": IntegerAttr(1)}, [x[0, 0]], 2)
    assert [p.shape for p in parts] == [(3, 2), (3, 2)]


def test_run_op_onnx_fallback_and_type_attributes() -> None:
    (window,) = run_op("ge.onnx_op", {"op_type": StringAttr("HannWindow"), "domain": StringAttr(""),
                                      "opset": IntegerAttr(17)}, [np.array(4, np.int64)], 1)
    np.testing.assert_allclose(window, [0.0, 0.5, 1.0, 0.5], atol=1e-6)  # periodic Hann
    (cast,) = run_op("ge.cast", {"to": TypeAttr(I64)}, [np.array([1.7, -2.2], np.float32)], 1)
    assert cast.dtype == np.int64 and cast.tolist() == [1, -2]


def test_run_op_errors() -> None:
    with pytest.raises(KernelError, match="not a registered op"):
        run_op("ge.no_such_op", {}, [], 1)
    with pytest.raises(KernelError, match="regions"):
        run_op("ge.if", {}, [np.array(True)], 1)
    assert str(storage_dtype("bf16")) == "bfloat16"


def _ints(values: list[int]) -> "object":
    from geir.attributes import ArrayAttr
    return ArrayAttr(IntegerAttr(v) for v in values)


# ------------------------------------------------------------- io bindings


def test_random_inputs_are_deterministic_and_typed() -> None:
    module = import_onnx(os.path.join(LIT_MODELS, "if_loop.onnx"))
    sig = graph_signature(module)
    first, again = random_inputs(sig, 3), random_inputs(sig, 3)
    assert {k: (v.shape, v.dtype) for k, v in first.items()} == {"flag": ((), np.dtype(bool)),
                                                                 "x": ((3,), np.dtype(np.float32))}
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert not np.array_equal(random_inputs(sig, 4)["x"], first["x"])


def test_save_and_load_round_trip(tmp_path: "os.PathLike[str]") -> None:
    module = import_onnx(os.path.join(LIT_MODELS, "conv_relu.onnx"))
    sig = graph_signature(module)
    inputs = random_inputs(sig, 0)
    path = os.path.join(tmp_path, "in.npz")
    save_outputs(path, inputs)
    loaded = load_inputs(path, sig)
    np.testing.assert_array_equal(loaded["input:0"], inputs["input:0"])
    interp = Interpreter(module)
    first, second = interp.run(loaded), interp.run(loaded)  # prepared kernels are reused
    np.testing.assert_array_equal(first["output"], second["output"])


def test_interpreter_errors_name_the_op() -> None:
    """A kernel failing at run time is a diagnostic at the op's ONNX node."""
    graph = helper.make_graph([helper.make_node("Gather", ["data", "idx"], ["y"], name="lookup")], "gather",
                              [helper.make_tensor_value_info("data", TensorProto.FLOAT, [3]),
                               helper.make_tensor_value_info("idx", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    with pytest.raises(DiagnosticError) as info:
        interpret(import_onnx(model), {"data": np.zeros(3, np.float32), "idx": np.array([7])})
    assert str(info.value.diagnostics[0].location) == 'loc("lookup")'
    assert "'ge.gather' failed" in info.value.diagnostics[0].message


@pytest.mark.parametrize("old, new", [("bilinear", "linear"), ("bicubic", "cubic"), (None, "linear")])
def test_gridsample_16_modes_take_gridsample_20_names_and_run_as_they_do(old: str | None, new: str) -> None:
    def model(opset: int, mode: str | None) -> onnx.ModelProto:
        node = helper.make_node("GridSample", ["x", "grid"], ["y"], **({"mode": mode} if mode else {}))
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5]),
                                                helper.make_tensor_value_info("grid", TensorProto.FLOAT, [1, 3, 4, 2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 4])])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    module = import_onnx(model(16, old))
    (op,) = [o for o in module.walk() if o.name == "ge.grid_sample"]
    assert op.attributes["mode"] == StringAttr(new)
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((1, 2, 5, 5)).astype(np.float32),
             "grid": rng.uniform(-1, 1, (1, 3, 4, 2)).astype(np.float32)}
    (expected,) = ReferenceEvaluator(model(20, new)).run(None, feeds)
    np.testing.assert_allclose(interpret(module, feeds)["y"], expected, rtol=1e-5, atol=1e-6)


def test_roi_align_10_shifts_no_pixel_as_roi_align_16_output_half_pixel() -> None:
    def model(opset: int, **attrs: str) -> onnx.ModelProto:
        node = helper.make_node("RoiAlign", ["x", "rois", "index"], ["y"], output_height=2, output_width=2, **attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6]),
                                                helper.make_tensor_value_info("rois", TensorProto.FLOAT, [2, 4]),
                                                helper.make_tensor_value_info("index", TensorProto.INT64, [2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 2, 2])])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    module = import_onnx(model(10))
    (op,) = [o for o in module.walk() if o.name == "ge.roi_align"]
    assert op.attributes["coordinate_transformation_mode"] == StringAttr("output_half_pixel")
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((1, 2, 6, 6)).astype(np.float32),
             "rois": np.array([[0.5, 1.0, 4.0, 5.5], [2.0, 0.0, 5.0, 3.0]], np.float32),
             "index": np.zeros(2, np.int64)}
    (expected,) = ReferenceEvaluator(model(16, coordinate_transformation_mode="output_half_pixel")).run(None, feeds)
    np.testing.assert_allclose(interpret(module, feeds)["y"], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("outer,inner", [(True, True), (True, False), (False, True), (False, False)])
def test_a_function_op_inside_control_flow_imports_as_its_body(outer: bool, inner: bool) -> None:
    """A HannWindow in an If branch nested in another If's branch (where it sees
    the outer graph's x) expands as one in the main graph does: nothing for
    AICPU, the numbers of onnx.reference's If."""
    f = TensorProto.FLOAT
    size = helper.make_tensor("size", TensorProto.INT64, [], [8])
    window = helper.make_graph([helper.make_node("Constant", [], ["n"], value=size),
                                helper.make_node("HannWindow", ["n"], ["w"], name="hann"),
                                helper.make_node("Mul", ["x", "w"], ["t"])], "window", [],
                               [helper.make_tensor_value_info("t", f, [8])])
    plain = helper.make_graph([helper.make_node("Identity", ["x"], ["p"])], "plain", [],
                              [helper.make_tensor_value_info("p", f, [8])])
    nested = helper.make_graph([helper.make_node("If", ["c2"], ["n2"], then_branch=window, else_branch=plain)],
                               "nested", [], [helper.make_tensor_value_info("n2", f, [8])])
    graph = helper.make_graph([helper.make_node("If", ["c1"], ["y"], then_branch=nested, else_branch=plain)], "g",
                              [helper.make_tensor_value_info("x", f, [8]),
                               helper.make_tensor_value_info("c1", TensorProto.BOOL, []),
                               helper.make_tensor_value_info("c2", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", f, [8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = import_onnx(model, strict=True)
    assert "ge.onnx_op" not in str(module)
    feeds = {"x": np.arange(1, 9, dtype=np.float32), "c1": np.array(outer), "c2": np.array(inner)}
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(interpret(module, feeds)["y"], expected, rtol=1e-6, atol=1e-6)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(causal=st.booleans(), heads=st.sampled_from([(2, 2), (4, 2)]), seq=st.integers(1, 6), seed=st.integers(0, 99))
def test_an_op_onnx_defines_by_a_function_imports_as_its_body(causal: bool, heads: tuple[int, int], seq: int,
                                                             seed: int) -> None:
    """Attention (opset 23; grouped-query when the heads differ) has no ge op but
    is an ONNX function of ops that have: it imports as that body, natively
    (nothing for AICPU, accepted by --strict), and computes what onnx.reference
    computes for the op itself."""
    q_heads, kv_heads = heads
    q = helper.make_tensor_value_info("q", TensorProto.FLOAT, [1, q_heads, seq, 8])
    k = helper.make_tensor_value_info("k", TensorProto.FLOAT, [1, kv_heads, seq + 1, 8])
    v = helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, kv_heads, seq + 1, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, q_heads, seq, 8])
    graph = helper.make_graph([helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attn", is_causal=int(causal))],
                              "attention", [q, k, v], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    module = import_onnx(model, strict=True)
    assert "ge.onnx_op" not in str(module)
    rng = np.random.default_rng(seed)
    feeds = {"q": rng.standard_normal((1, q_heads, seq, 8), np.float32),
             "k": rng.standard_normal((1, kv_heads, seq + 1, 8), np.float32),
             "v": rng.standard_normal((1, kv_heads, seq + 1, 8), np.float32)}
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(interpret(module, feeds)["y"], expected, rtol=1e-5, atol=1e-6)


def test_random_indices_stay_inside_the_table_a_gather_reads() -> None:
    """An input a Gather reads as indices draws below the indexed axis's size (a
    token-type table of 2 rows), the other integer inputs in [0, 4); the
    emulator's task list draws the same values as the graph."""
    import geir
    from geir.backends.emulator import random_task_inputs
    f = TensorProto.FLOAT
    table = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(2, 4), "table")
    wide = numpy_helper.from_array(np.arange(40, dtype=np.float32).reshape(4, 10), "wide")
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "types"], ["t"]),
         helper.make_node("Gather", ["wide", "cols"], ["c"], axis=1),
         helper.make_node("Cast", ["other"], ["o"], to=f)],
        "g", [helper.make_tensor_value_info(n, TensorProto.INT64, [64]) for n in ("types", "cols", "other")],
        [helper.make_tensor_value_info("t", f, [64, 4]), helper.make_tensor_value_info("c", f, [4, 64]),
         helper.make_tensor_value_info("o", f, [64])], initializer=[table, wide])
    module = import_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    drawn = random_inputs(graph_signature(module), 5)
    assert set(np.unique(drawn["types"])) == {0, 1}
    assert set(np.unique(drawn["cols"])) == set(np.unique(drawn["other"])) == {0, 1, 2, 3}
    task_list = geir.lower(geir.run_pipeline(module, "ge-default"))
    for name, value in random_task_inputs(task_list, 5).items():
        np.testing.assert_array_equal(value, drawn[name])
