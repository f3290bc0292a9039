"""Static AIPP (ATC's --insert_op_conf): the configuration file, the ``ge.aipp``
kernel against onnx.reference, the ``insert-aipp`` pass on a model, and what
AIPP costs on the device, as specifications."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.aipp_config import parse_aipp_config
from geir.attributes import UnitAttr
from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.task_list import ARENA, WEIGHTS, Kernel, TensorRef
from geir.diagnostics import DiagnosticError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "aipp_imagenet.cfg"


def _reference_aipp(images: np.ndarray, start: tuple[int, int], size: tuple[int, int], swap: bool,
                    mean: list[int], low: list[float], scale: list[float]) -> np.ndarray:
    """The same preprocessing as ONNX ops, run by onnx.reference: Slice, a channel
    swap (Slice with step -1), Cast, Sub, Mul, Transpose to NCHW."""
    n, h, w, c = images.shape
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["crop"])]
    last = "crop"
    if swap and c == 3:
        nodes.append(helper.make_node("Slice", ["crop", "cs", "ce", "ca", "cstep"], ["swapped"]))
        last = "swapped"
    nodes += [helper.make_node("Cast", [last], ["f"], to=TensorProto.FLOAT),
              helper.make_node("Sub", ["f", "offset"], ["centred"]),
              helper.make_node("Mul", ["centred", "scale"], ["scaled"]),
              helper.make_node("Transpose", ["scaled"], ["y"], perm=[0, 3, 1, 2])]
    inits = [numpy_helper.from_array(np.array([start[0], start[1]], np.int64), "starts"),
             numpy_helper.from_array(np.array([start[0] + size[0], start[1] + size[1]], np.int64), "ends"),
             numpy_helper.from_array(np.array([1, 2], np.int64), "axes"),
             numpy_helper.from_array(np.array([-1], np.int64), "cs"),
             numpy_helper.from_array(np.array([-4], np.int64), "ce"),
             numpy_helper.from_array(np.array([3], np.int64), "ca"),
             numpy_helper.from_array(np.array([-1], np.int64), "cstep"),
             numpy_helper.from_array((np.array(mean[:c], np.float32) + np.array(low[:c], np.float32)), "offset"),
             numpy_helper.from_array(np.array(scale[:c], np.float32), "scale")]
    graph = helper.make_graph(nodes, "aipp", [helper.make_tensor_value_info("x", TensorProto.UINT8, [n, h, w, c])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return ReferenceEvaluator(model).run(None, {"x": images})[0]


def _aipp_ir(shape: tuple[int, ...], start: tuple[int, int], size: tuple[int, int], swap: bool, mean: list[int],
             low: list[float], scale: list[float]) -> str:
    n, h, w, c = shape
    fmt = "RGB888_U8" if c == 3 else "YUV400_U8"
    floats = lambda v: "[" + ", ".join(repr(float(x)) for x in v) + "]"  # noqa: E731
    out = f"tensor<{n}x{c}x{size[0]}x{size[1]}xf32>"
    return (f"ge.graph @g(%img: tensor<{n}x{h}x{w}x{c}xui8>) -> {out} {{\n"
            f"  %y = ge.aipp %img {{input_format = \"{fmt}\", crop_size = [{size[0]}, {size[1]}], "
            f"load_start_pos = [{start[0]}, {start[1]}], rbuv_swap = {'true' if swap else 'false'}, "
            f"mean_chn = [{', '.join(map(str, mean[:c]))}], min_chn = {floats(low[:c])}, "
            f"var_reci_chn = {floats(scale[:c])}}} : (tensor<{n}x{h}x{w}x{c}xui8>) -> {out}\n"
            f"  ge.return %y : ({out}) -> ()\n}}\n")


@st.composite
def _aipp_cases(draw: st.DrawFn) -> tuple:
    c = draw(st.sampled_from([1, 3]))
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    size = (draw(st.integers(1, h)), draw(st.integers(1, w)))
    start = (draw(st.integers(0, h - size[0])), draw(st.integers(0, w - size[1])))
    mean = draw(st.lists(st.integers(0, 255), min_size=4, max_size=4))
    low = draw(st.lists(st.floats(-200, 200, width=32), min_size=4, max_size=4))
    scale = draw(st.lists(st.floats(-2, 2, width=32), min_size=4, max_size=4))
    seed = draw(st.integers(0, 2**31 - 1))
    return (draw(st.integers(1, 2)), h, w, c), start, size, draw(st.booleans()), mean, low, scale, seed


@settings(max_examples=40, deadline=None)
@given(_aipp_cases())
def test_the_aipp_kernel_computes_what_onnx_reference_does(case: tuple) -> None:
    shape, start, size, swap, mean, low, scale, seed = case
    images = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    got = geir.interpret(geir.parse(_aipp_ir(shape, start, size, swap, mean, low, scale)), {"img": images})
    want = _reference_aipp(images, start, size, swap, mean, low, scale)
    np.testing.assert_allclose(got.outputs["output_0"], want, rtol=1e-6, atol=1e-4)


def test_atc_s_example_configuration_parses() -> None:
    (block,) = parse_aipp_config(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))
    assert block.input_format == "RGB888_U8" and block.channels == 3
    assert (block.src_image_size_h, block.src_image_size_w) == (256, 256)
    assert block.crop and (block.load_start_pos_h, block.load_start_pos_w) == (16, 16)
    assert (block.crop_size_h, block.crop_size_w) == (224, 224)
    assert block.min_chn[:3] == (123.675, 116.28, 103.53) and block.var_reci_chn[3] == 1.0
    assert block.mean_chn == (0, 0, 0, 0)


@pytest.mark.parametrize("text, message", [
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 }\naipp_op { aipp_mode: static input_format: RGB888_U8 }",
     "a second 'aipp_op' for input 0"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 crop: 2 }", "takes true or false"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: 2.5 }", "takes an integer"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: -4 }", "must not be negative"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 padding: true }", "padding (padding: true) is not"),
    ("aipp_op { aipp_mode: static }", "needs 'input_format'"),
    ("model { }", "unknown AIPP configuration block 'model'"),
    ("# nothing\n", "has no 'aipp_op' block"),
])
def test_a_bad_configuration_is_a_diagnostic_at_its_line(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError) as e:
        parse_aipp_config(text, "bad.cfg")
    out = e.value.format()
    assert message in out and out.startswith("bad.cfg:")


def _conv_model(tmp_path: Path) -> Path:
    w = np.random.default_rng(1).standard_normal((8, 3, 3, 3)).astype(np.float32)
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "conv",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 6, 6])],
                              [numpy_helper.from_array(w, "w")])
    path = tmp_path / "conv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_a_model_behind_aipp_reads_the_uint8_image_and_computes_the_original_model(tmp_path: Path) -> None:
    config = tmp_path / "aipp.cfg"
    config.write_text("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n src_image_size_w: 9\n"
                      " src_image_size_h: 8\n crop: true\n load_start_pos_h: 1\n load_start_pos_w: 2\n"
                      " rbuv_swap_switch: true\n min_chn_0: 100\n min_chn_1: 110\n min_chn_2: 120\n"
                      " var_reci_chn_0: 0.01\n var_reci_chn_1: 0.02\n var_reci_chn_2: 0.03\n}\n", encoding="utf-8")
    path = _conv_model(tmp_path)
    module = geir.import_onnx(path)
    geir.run_pipeline(module, f"insert-aipp{{config={config}}}")
    images = np.random.default_rng(0).integers(0, 256, (2, 8, 9, 3), dtype=np.uint8)
    got = geir.interpret(module, {"x": images}).outputs["y"]
    x = _reference_aipp(images, (1, 2), (6, 6), True, [0] * 4, [100, 110, 120, 0], [0.01, 0.02, 0.03, 1])
    want = ReferenceEvaluator(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # and through the whole pipeline on the device, in f16
    report = geir.run_model(module, pipeline="ge-default{device=310P3}", device="310P3", inputs={"x": images})
    assert report.clean
    np.testing.assert_allclose(report.outputs["y"], want, rtol=2e-2, atol=5e-2)


def _ref(shape: tuple[int, ...], dtype: str = "f16", space: str = ARENA) -> TensorRef:
    return TensorRef(space, 0, shape, dtype)


def test_aipp_fused_into_the_convolution_takes_no_time_and_the_convolution_reads_uint8() -> None:
    cost = CostModel(load_profile("310P3"))
    image, crop = _ref((8, 256, 256, 3), "ui8"), _ref((8, 3, 224, 224))
    w, y = _ref((64, 3, 7, 7), space=WEIGHTS), _ref((8, 64, 112, 112))
    fused = Kernel("ge.aipp", "AICore", [image], [crop], attributes={"fused_output": UnitAttr()}, flops=1.0)
    assert cost.kernel(fused).duration_us == 0
    plain = Kernel("ge.conv2d", "AICore", [crop, w], [y], flops=1.0)
    through_aipp = Kernel("ge.conv2d", "AICore", [crop, w], [y], attributes={"aipp_input": UnitAttr()}, flops=1.0)
    # one byte per pixel and channel of the crop instead of an f16 tensor of it
    assert sum(cost.traffic(plain)) - sum(cost.traffic(through_aipp)) == crop.nbytes // 2
    # on its own, AIPP is a kernel that reads the crop's pixels, not the whole image
    alone = Kernel("ge.aipp", "AICore", [image], [crop], flops=1.0)
    assert sum(cost.traffic(alone)) == crop.nbytes // 2 + crop.nbytes
    assert cost.kernel(alone).duration_us > cost.kernel_overhead
