"""Patterns real exporters write, built by hand (no torch needed): what
``bench/real_models.py`` found on torchvision, timm and transformers exports.

Shape arithmetic that ONNX's data propagation does not follow. ShuffleNet's
channel split computes its Slice bounds as Shape -> Gather -> Add -> Div ->
Mul; BERT's and ViT's Expand take a shape made the same way. With static
inputs the input shapes decide every dim, yet after import they are ``?``; a
run folds that arithmetic first and runs the graph as one task list under the
default pipeline, not as host-driven launches around a "data-dependent" op.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.io_bindings import find_graph
from geir.passes.range_shapes import data_dependent_diagnostics
from geir.passes.specialize_shapes import fold_static_shapes

F = TensorProto.FLOAT
KEEP_F32 = "must_keep_origin_dtype"


def channel_split_model(channels: int = 8, size: int = 6, batch: int | str = 1) -> onnx.ModelProto:
    """x -> Relu -> split in two halves along C by Slices whose bounds are
    (C + 1) / 2 * 1 computed from Shape; one half through a 1x1 Conv plus a bias
    Expanded to a shape built from Shape by Div; concatenated with the other half."""
    rng = np.random.default_rng(0)
    half = (channels + 1) // 2
    ints = {"c_axis": [1], "one": 1, "two": 2, "zero1": [0], "big": [2 ** 62], "axis0": [0], "one1": [1]}
    inits = [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in ints.items()]
    inits.append(numpy_helper.from_array(rng.standard_normal((half, half, 1, 1)).astype(np.float32), "w"))
    inits.append(numpy_helper.from_array(rng.standard_normal((1, half, 1, 1)).astype(np.float32), "bias"))
    inits.append(numpy_helper.from_array(np.array([1, channels // half, 1, 1], np.int64), "dims_divisor"))
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Shape", ["r"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["c"], axis=0),
        helper.make_node("Add", ["c", "one"], ["c1"]),
        helper.make_node("Div", ["c1", "two"], ["c_half"]),
        helper.make_node("Mul", ["c_half", "one"], ["c_mid"]),
        helper.make_node("Unsqueeze", ["c_mid", "axis0"], ["mid"]),
        helper.make_node("Slice", ["r", "zero1", "mid", "c_axis"], ["low"]),
        helper.make_node("Slice", ["r", "mid", "big", "c_axis"], ["high"]),
        helper.make_node("Conv", ["low", "w"], ["low_conv"]),
        # Expand(bias, [N / 1, C / 2, H, W]): a target shape made from Shape by arithmetic too
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Div", ["x_shape", "dims_divisor"], ["target"]),
        helper.make_node("Expand", ["bias", "target"], ["bias_expanded"]),
        helper.make_node("Add", ["low_conv", "bias_expanded"], ["sum"]),
        helper.make_node("Concat", ["sum", "high"], ["y"], axis=1),
    ]
    graph = helper.make_graph(nodes, "channel_split", [helper.make_tensor_value_info("x", F, [batch, channels, size, size])],
                              [helper.make_tensor_value_info("y", F, [batch, channels, size, size])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model


@pytest.fixture(scope="module")
def split_model() -> onnx.ModelProto:
    return channel_split_model()


def test_import_leaves_the_split_dims_unknown(split_model: onnx.ModelProto) -> None:
    """The premise: ONNX's data propagation stops at Div, so the Slice's and the
    Expand's dims are '?' after import and would look data-dependent."""
    graph = find_graph(geir.import_onnx(split_model))
    flagged = {d.message.split("'")[1] for d in data_dependent_diagnostics(graph)}
    assert {"ge.slice", "ge.expand"} <= flagged


def test_folding_makes_every_dim_static(split_model: onnx.ModelProto) -> None:
    module = geir.import_onnx(split_model)
    graph = find_graph(module)
    assert fold_static_shapes(graph, module)
    assert not data_dependent_diagnostics(graph)
    assert all(r.type.is_static for op in graph.walk() for r in op.results)
    assert not fold_static_shapes(graph, module)  # nothing left to fold


def test_folding_needs_static_inputs() -> None:
    """With a symbolic batch the dims wait for a binding (``--input-shape``)."""
    module = geir.import_onnx(channel_split_model(batch="N"))
    graph = find_graph(module)
    assert not fold_static_shapes(graph, module)
    slices = [op for op in graph.walk() if op.name == "ge.slice"]
    assert all(op.results[0].type.shape[1] is None for op in slices)


@pytest.mark.parametrize("mode", [KEEP_F32, None])
def test_runs_as_one_task_list_equal_to_onnx_reference(split_model: onnx.ModelProto, mode: str | None) -> None:
    """``ge-run M.onnx``: the default pipeline, the single-stream comparison and
    the memory plan (none of which host-driven launches have), onnx.reference's
    outputs (in f32 up to summation order; in f16 to f16's precision)."""
    report = geir.run_model(split_model, precision_mode=mode)
    assert report.result is not None, "ran as host-driven launches"
    assert report.fields["single_stream"]["speedup"] is not None
    assert report.fields["memory_plan"]["arena_bytes"] > 0
    assert report.clean
    (expected,) = ReferenceEvaluator(split_model).run(None, dict(report.input_arrays))
    tolerance = 1e-5 if mode == KEEP_F32 else 2e-3 * float(np.abs(expected).max())
    np.testing.assert_allclose(report.outputs["y"], expected, rtol=tolerance, atol=tolerance)


# ------------------------------------------------ what an f16 kernel computes
#
# Under force_fp16 (the device's default) the cube unit multiplies f16 operands,
# accumulates in f32 (L0C) and writes f16; CANN's reductions, softmax and
# normalisations compute in f32 inside too. So an f16 result is the f32 result
# rounded once, even when partial sums or statistics leave f16's range (65504):
# here +-300 * 300 = +-90000 per product, or a variance of 90000.

def _alternating(n: int) -> np.ndarray:
    return np.array([300.0, -300.0] * (n // 2), dtype=np.float16)


def _run_f16(op_type: str, inputs: list[np.ndarray], **attrs: object) -> np.ndarray:
    from geir.backends.kernels import get_kernel
    (out, *_) = get_kernel(op_type)([a.astype(np.float16) for a in inputs], dict(attrs))
    assert out.dtype == np.float16
    return out


def _f32_rounded_once(op_type: str, inputs: list[np.ndarray], **attrs: object) -> np.ndarray:
    node = helper.make_node(op_type, [f"i{k}" for k in range(len(inputs))], ["y"], **attrs)
    (want,) = ReferenceEvaluator(node).run(None, {f"i{k}": a.astype(np.float32) for k, a in enumerate(inputs)})
    return want.astype(np.float16)


@pytest.mark.parametrize("case", ["MatMul", "Gemm", "Conv", "ReduceSum", "ReduceMean", "LayerNormalization",
                                  "Softmax", "InstanceNormalization"])
def test_f16_kernels_accumulate_in_f32_and_round_once(case: str) -> None:
    n = 16
    ones = np.full((n,), 300.0, np.float16)
    if case in ("MatMul", "Gemm"):
        inputs, attrs = [ones.reshape(1, n), _alternating(n).reshape(n, 1)], {}
    elif case == "Conv":
        inputs, attrs = [ones.reshape(1, n, 1, 1), _alternating(n).reshape(1, n, 1, 1)], {}
    elif case in ("ReduceSum", "ReduceMean"):
        inputs, attrs = [np.concatenate([ones, -ones]).reshape(1, 2 * n)], {"keepdims": 0}
    elif case == "LayerNormalization":  # the variance, 90000, leaves f16's range
        inputs, attrs = [_alternating(n).reshape(1, n), np.ones(n, np.float16), np.zeros(n, np.float16)], {}
    elif case == "Softmax":  # exp of the shifted values in f32: no inf - inf
        inputs, attrs = [np.array([[60000.0, 60000.0, 0.0]], np.float16)], {}
    else:  # per channel: the variance, 90000, leaves f16's range
        inputs, attrs = [_alternating(n).reshape(1, 1, n), np.ones(1, np.float16), np.zeros(1, np.float16)], {}
    got = _run_f16(case, inputs, **attrs)
    want = _f32_rounded_once(case, inputs, **attrs)
    assert np.all(np.isfinite(got)), got
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=1e-3, atol=1e-3)


def test_several_models_at_once_fold_too(split_model: onnx.ModelProto, tmp_path: pytest.TempPathFactory) -> None:
    """``ge-run a.onnx b.onnx`` runs one static task list per model: the
    shape arithmetic folds there too, rather than the model being refused as
    having data-dependent sizes."""
    import contextlib
    import io

    from geir.tools.ge_run import main as ge_run
    paths = []
    for name in ("a", "b"):
        paths.append(str(tmp_path / f"{name}.onnx"))  # type: ignore[operator]
        onnx.save(split_model, paths[-1])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = ge_run([*paths, "--timing-only"])
    assert code == 0, err.getvalue()
    assert "co-run of 2 models" in out.getvalue()
