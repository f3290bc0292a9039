"""GE's average pooling on the cube (``fuse-graph``, ``AvgPoolV2FusionPass``): a
window pooling that is not global becomes a depthwise convolution with an assist
filter, times each window's ``1 / count`` where windows average over fewer
elements than their size — and computes what ONNX's AveragePool does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import geir


def _pool_model(path: Path, shape: tuple[int, ...], opset: int = 17, **attributes: object) -> Path:
    node = helper.make_node("AveragePool", ["x"], ["y"], **attributes)
    graph = helper.make_graph([node], "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]))
    # the output's type as ONNX infers it (geir's importer wants a declared shape)
    for inferred in model.graph.value_info:
        if inferred.name == "y":
            model.graph.output[0].CopyFrom(inferred)
    onnx.save(model, str(path))
    return path


def _names(module: geir.Module) -> list[str]:
    return [op.name for op in module.walk()]


@st.composite
def _pools(draw: st.DrawFn) -> tuple[tuple[int, ...], dict[str, object]]:
    kernel = [draw(st.integers(1, 4)), draw(st.integers(1, 4))]
    strides = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    auto_pad = draw(st.sampled_from(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    attributes: dict[str, object] = {"kernel_shape": kernel, "strides": strides,
                                     "count_include_pad": draw(st.integers(0, 1))}
    if auto_pad == "NOTSET":
        # ONNX's pads are smaller than the window
        attributes["pads"] = [draw(st.integers(0, k - 1)) for k in kernel * 2]
        attributes["ceil_mode"] = draw(st.integers(0, 1))
    else:
        attributes["auto_pad"] = auto_pad
        # onnx.reference pads SAME with negative pads (and fails) where a stride outgrows its window
        attributes["strides"] = [min(s, k) for s, k in zip(strides, kernel)]
    # maps larger than any window: never a global pooling
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(5, 9)), draw(st.integers(5, 9)))
    if attributes.get("ceil_mode"):
        # A ceil-mode window that would start in the right padding: PyTorch (and
        # geir) drop it, onnx's shape inference keeps it; the model would not import.
        pads = attributes["pads"]
        for i, size in enumerate(shape[2:]):
            k, s, begin = kernel[i], attributes["strides"][i], pads[i]  # type: ignore[index]
            out = -(-(size + begin + pads[i + 2] - k) // s) + 1  # type: ignore[index, operator]
            assume((out - 1) * s < size + begin)
    return shape, attributes


@settings(max_examples=60, deadline=None)
@given(case=_pools(), seed=st.integers(0, 2 ** 16))
def test_a_pooling_on_the_cube_computes_what_the_pooling_does(
        tmp_path_factory: pytest.TempPathFactory, case: tuple, seed: int) -> None:
    """The rewrite changes no value; and where onnx.reference's AveragePool is
    right (it miscounts ceil-mode windows over the pads), that value is ONNX's."""
    shape, attributes = case
    path = _pool_model(tmp_path_factory.mktemp("pool") / "pool.onnx", shape, **attributes)
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    module = geir.import_onnx(path)
    pooled = geir.interpret(module, {"x": x}).outputs["y"]
    geir.run_pipeline(module, "fuse-graph")
    assert "ge.avg_pool" not in _names(module)
    got = geir.interpret(module, {"x": x}).outputs["y"]
    np.testing.assert_allclose(got, pooled, rtol=1e-5, atol=1e-6)
    if not attributes.get("ceil_mode"):
        want = ReferenceEvaluator(str(path)).run(None, {"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_pooling_that_averages_full_windows_is_one_convolution(tmp_path: Path) -> None:
    """DenseNet's transition: 2 x 2, stride 2, no pads -> weights of 1/4, no Mul."""
    module = geir.import_onnx(_pool_model(tmp_path / "p.onnx", (1, 8, 8, 8), kernel_shape=[2, 2], strides=[2, 2]))
    geir.run_pipeline(module, "fuse-graph")
    conv = next(op for op in module.walk() if op.name == "ge.conv2d")
    assert conv.get_attr("group") == 8 and "ge.mul" not in _names(module) and "ge.avg_pool" not in _names(module)
    weights = geir.constants.constant_value(conv.operands[1])
    assert weights.shape == (8, 1, 2, 2) and np.all(weights == np.float32(0.25))


def test_a_pooling_that_excludes_its_pads_is_scaled_per_position(tmp_path: Path) -> None:
    """Inception-v4's 3 x 3, stride 1, pads 1, count_include_pad 0: a corner
    window averages 4 elements, an edge one 6, an inner one 9."""
    module = geir.import_onnx(_pool_model(tmp_path / "p.onnx", (1, 4, 5, 5), kernel_shape=[3, 3], strides=[1, 1],
                                          pads=[1, 1, 1, 1], count_include_pad=0))
    geir.run_pipeline(module, "fuse-graph")
    mul = next(op for op in module.walk() if op.name == "ge.mul")
    coefficient = geir.constants.constant_value(mul.operands[1])
    assert coefficient.shape == (1, 1, 5, 5)
    np.testing.assert_allclose(coefficient[0, 0, 0, :3], [1 / 4, 1 / 6, 1 / 6])
    np.testing.assert_allclose(coefficient[0, 0, 2, 2], 1 / 9)


@pytest.mark.parametrize("attributes, shape", [
    ({"kernel_shape": [7, 7]}, (1, 4, 7, 7)),  # global: GE keeps the vector pooling
    ({"kernel_shape": [2, 2], "strides": [64, 64]}, (1, 4, 130, 130)),  # stride beyond AvgPoolV2's 63
    ({"kernel_shape": [2, 2], "dilations": [2, 2]}, (1, 4, 8, 8)),  # AvgPoolV2 has no dilation
    ({"kernel_shape": [2]}, (1, 4, 8)),  # 1-D
], ids=["global", "stride", "dilated", "1-d"])
def test_a_pooling_the_cube_does_not_take_stays(tmp_path: Path, attributes: dict, shape: tuple) -> None:
    # AveragePool takes dilations from opset 19
    module = geir.import_onnx(_pool_model(tmp_path / "p.onnx", shape, opset=19, **attributes))
    geir.run_pipeline(module, "fuse-graph")
    assert "ge.avg_pool" in _names(module) and "ge.conv2d" not in _names(module)
