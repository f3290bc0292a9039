"""GE's TransData (``insert-trans-data``, ``ge.trans_data``): where a compiled
model converts its feature maps between NCHW and the 5-D NC1HWC0, what that
costs, and that it changes no value."""

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
from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.task_list import ARENA, Kernel, TensorRef
from geir.attributes import StringAttr


def _classifier(tmp_path: Path, channels: int) -> Path:
    """conv -> relu -> global pool -> flatten -> gemm, on an N x ``channels`` x 8 x 8 image."""
    rng = np.random.default_rng(2)
    w = rng.standard_normal((16, channels, 3, 3)).astype(np.float32)
    fc = rng.standard_normal((10, 16)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "classifier",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, channels, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(fc, "fc")])
    path = tmp_path / f"classifier_{channels}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _ops(module: geir.Module, name: str) -> list:
    return [op for op in module.walk() if op.name == name]


@settings(max_examples=10, deadline=None)
@given(channels=st.sampled_from([1, 3, 4, 16, 17]), seed=st.integers(0, 2 ** 16))
def test_trans_data_changes_no_value(tmp_path_factory: pytest.TempPathFactory, channels: int, seed: int) -> None:
    path = _classifier(tmp_path_factory.mktemp("td"), channels)
    x = np.random.default_rng(seed).standard_normal((2, channels, 8, 8)).astype(np.float32)
    want = ReferenceEvaluator(str(path)).run(None, {"x": x})[0]
    module = geir.import_onnx(path)
    geir.run_pipeline(module, "insert-trans-data")
    assert len(_ops(module, "ge.trans_data")) == 2
    np.testing.assert_allclose(geir.interpret(module, {"x": x}).outputs["y"], want, rtol=1e-5, atol=1e-5)


def test_a_compiled_classifier_converts_its_image_in_and_its_features_out(tmp_path: Path) -> None:
    path = _classifier(tmp_path, 3)
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    want = ReferenceEvaluator(str(path)).run(None, {"x": x})[0]
    report = geir.run_model(geir.import_onnx(path), pipeline="ge-default{device=310P3}", device="310P3",
                            inputs={"x": x})
    assert report.clean
    np.testing.assert_allclose(report.outputs["y"], want, rtol=2e-2, atol=5e-2)
    compiled = geir.import_onnx(path)
    geir.run_pipeline(compiled, "ge-default{device=310P3}")
    layouts = [dict(op.attributes["attrs"].value) for op in _ops(compiled, "rt.kernel")
               if op.get_attr("op") == "ge.trans_data"]
    # the image in, the features out; the 310P's Gemm of 2 rows and 10 classes
    # takes FRACTAL_NZ (test_fractal_nz.py)
    assert [(d["src_format"].value, d["dst_format"].value) for d in layouts] == [
        ("NCHW", "NC1HWC0"), ("NC1HWC0", "NCHW"), ("ND", "FRACTAL_NZ"), ("FRACTAL_NZ", "ND")]


def _ref(shape: tuple[int, ...], dtype: str = "f16") -> TensorRef:
    return TensorRef(ARENA, 0, shape, dtype)


@pytest.mark.parametrize(("layout", "block"), [("NC1HWC0", 16), ("NC1HWC0_C04", 4)])
@pytest.mark.parametrize("channels", [1, 3, 16, 20])
@pytest.mark.parametrize("spatial", [(224, 224), (224,)])
def test_trans_data_moves_the_5d_side_padded_to_whole_blocks(layout: str, block: int, channels: int,
                                                              spatial: tuple[int, ...]) -> None:
    cost = CostModel(load_profile("310P3"))
    nchw = _ref((8, channels, *spatial))
    padded = nchw.nbytes // channels * (-(-channels // block) * block)
    into = Kernel("ge.trans_data", "AICore", [nchw], [nchw],
                  attributes={"src_format": StringAttr("NCHW"), "dst_format": StringAttr(layout)})
    back = Kernel("ge.trans_data", "AICore", [nchw], [nchw],
                  attributes={"src_format": StringAttr(layout), "dst_format": StringAttr("NCHW")})
    assert sum(cost.traffic(into)) == sum(cost.traffic(back)) == nchw.nbytes + padded
    # a kernel of its own: its fixed cost plus its bytes
    assert cost.kernel(into).duration_us > cost.kernel_overhead


def test_an_aipp_input_needs_no_trans_data(tmp_path: Path) -> None:
    config = tmp_path / "aipp.cfg"
    config.write_text("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n}\n", encoding="utf-8")
    module = geir.import_onnx(_classifier(tmp_path, 3))
    geir.run_pipeline(module, f"insert-aipp{{config={config}}},insert-trans-data")
    conversions = _ops(module, "ge.trans_data")
    # only the features out, before the flatten
    assert len(conversions) == 1 and conversions[0].operands[0].owner.name == "ge.global_avg_pool"


def test_a_dual_path_split_of_whole_blocks_needs_no_trans_data(tmp_path: Path) -> None:
    # DPN's dual path as PyTorch exports it: x[:, :32] and x[:, 32:] (the end INT64_MAX),
    # each into a convolution. Both cuts fall on C0 blocks, so the slices run in
    # NC1HWC0 (StridedSliceD's format selection) and only the image and the result
    # are converted; the values are those of onnx.reference.
    rng = np.random.default_rng(3)
    w = rng.standard_normal((48, 16, 1, 1)).astype(np.float32)
    v = rng.standard_normal((16, 32, 1, 1)).astype(np.float32)
    u = rng.standard_normal((16, 16, 1, 1)).astype(np.float32)
    ints = {name: numpy_helper.from_array(np.array(values, np.int64), name)
            for name, values in (("zero", [0]), ("c32", [32]), ("end", [2 ** 63 - 1]), ("axis", [1]))}
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"]),
             helper.make_node("Slice", ["a", "zero", "c32", "axis"], ["dense"]),
             helper.make_node("Slice", ["a", "c32", "end", "axis"], ["residual"]),
             helper.make_node("Conv", ["dense", "v"], ["p"]),
             helper.make_node("Conv", ["residual", "u"], ["q"]),
             helper.make_node("Add", ["p", "q"], ["y"])]
    graph = helper.make_graph(nodes, "dual_path",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16, 8, 8])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(v, "v"),
                               numpy_helper.from_array(u, "u"), *ints.values()])
    path = tmp_path / "dual_path.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    compiled = geir.import_onnx(path)
    geir.run_pipeline(compiled, "ge-default{device=310P3}")
    conversions = [op for op in _ops(compiled, "rt.kernel") if op.get_attr("op") == "ge.trans_data"]
    assert len(conversions) == 2  # the image in, the result out
    x = rng.standard_normal((2, 16, 8, 8)).astype(np.float32)
    want = ReferenceEvaluator(str(path)).run(None, {"x": x})[0]
    report = geir.run_model(geir.import_onnx(path), pipeline="ge-default{device=310P3}", device="310P3",
                            inputs={"x": x})
    assert report.clean
    np.testing.assert_allclose(report.outputs["y"], want, rtol=2e-2, atol=0.2)


_ENDS = st.one_of(st.integers(-25, 25), st.sampled_from([-(2 ** 63), 2 ** 63 - 1]))


@settings(max_examples=60, deadline=None)
@given(dim=st.integers(1, 20), start=_ENDS, end=_ENDS, step=st.integers(-3, 3).filter(bool))
def test_slice_ranges_take_what_onnx_slicing_takes(dim: int, start: int, end: int, step: int) -> None:
    # the bounds insert-trans-data judges a slice by: as many elements as the slice's
    # inferred type has (ONNX's clamping), and numpy's elements wherever ONNX's clamping
    # and numpy's agree (they differ for a start below -dim stepping backwards: ONNX
    # clamps it to 0, numpy to before the first element)
    from geir.dialects.ge_infer import slice_dim, slice_ranges
    from geir.opdef import InferContext
    out = slice_dim(dim, start, end, step)
    consts = "\n".join(f"  %{n} = ge.const {{value = dense<{v}> : tensor<1xi64>}} : () -> tensor<1xi64>"
                       for n, v in (("s", start), ("e", end), ("a", 1), ("k", step)))
    module = geir.parse(f"""ge.graph @g(%x: tensor<1x{dim}xf16>) -> tensor<1x{out}xf16> {{
{consts}
  %y = ge.slice %x, %s, %e, %a, %k : (tensor<1x{dim}xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x{out}xf16>
  ge.return %y : (tensor<1x{out}xf16>) -> ()
}}""")
    op = next(o for o in module.walk() if o.name == "ge.slice")
    ranges = slice_ranges(InferContext.for_op(op))
    assert ranges is not None and list(ranges) == [1]
    lo, hi, by = ranges[1]
    assert len(range(lo, hi, by)) == out
    if step > 0 or start >= -dim:
        assert list(range(lo, hi, by)) == list(range(dim)[slice(start, end, step)])
