"""LayerNormalization, RMSNormalization and GroupNormalization in f16 (under
``precision-mode`` force_fp16) compute in f32 and round once, at the output,
as CANN's kernels accumulate in f32: the interpreter's result is
``onnx.reference`` run in f32 on the same f16 inputs and weights, rounded to
f16 once (within one f16 ulp: the two f32 computations sum in different
orders, which can move a value across a rounding boundary)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from geir.backends.interpreter import interpret
from geir.onnx_importer import import_onnx
from geir.passes.pass_base import PassContext
from geir.passes.precision_mode import PrecisionMode
from geir.types import F16, TensorType

SHAPE = (2, 6, 5, 8)  # N, C, spatial: normalised over the last axis or over groups of channels


def norm_model(op: str, rng: np.random.Generator) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One ``op`` node on input ``x`` with random scale (and bias), f32."""
    channels = SHAPE[1] if op == "GroupNormalization" else SHAPE[-1]
    # scales and biases well away from 1 and 0, so each rounding of the old double-rounding shows
    weights = {"scale": (rng.uniform(0.3, 3.0, channels) * rng.choice([-1, 1], channels)).astype(np.float32),
               "bias": rng.uniform(-2.0, 2.0, channels).astype(np.float32)}
    inputs = ["x", "scale"] if op == "RMSNormalization" else ["x", "scale", "bias"]
    extra = {"num_groups": 3} if op == "GroupNormalization" else {}
    opset = {"RMSNormalization": 23, "GroupNormalization": 21}.get(op, 17)
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], **extra)], op,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
        [numpy_helper.from_array(weights[name], name) for name in inputs[1:]])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    # an offset and a spread, as activations have
    x = (rng.standard_normal(SHAPE) * rng.uniform(0.5, 4.0) + rng.uniform(-3, 3)).astype(np.float32)
    return model, {"x": x}


def as_f16_in_f32(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with its weights rounded to f16 (and kept f32): what the f16 run reads."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for init in copy.graph.initializer:
        init.CopyFrom(numpy_helper.from_array(
            numpy_helper.to_array(init).astype(np.float16).astype(np.float32), init.name))
    return copy


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("op", ["LayerNormalization", "RMSNormalization", "GroupNormalization"])
def test_f16_normalisation_rounds_once(op: str, seed: int) -> None:
    model, feeds = norm_model(op, np.random.default_rng(seed))
    module = import_onnx(model)
    PrecisionMode("force_fp16", "910B2").run(module, PassContext())
    graph = next(iter(module.body.ops))
    norm = [o for o in graph.walk() if "norm" in o.name]
    assert len(norm) == 1 and isinstance(norm[0].results[0].type, TensorType)
    assert norm[0].results[0].type.element_type == F16  # it does run in f16
    x16 = feeds["x"].astype(np.float16)
    actual: Any = next(iter(interpret(module, feeds).values()))
    reference = ReferenceEvaluator(as_f16_in_f32(model)).run(None, {"x": x16.astype(np.float32)})[0]
    expected = reference.astype(np.float16)
    ulp = np.spacing(np.abs(expected)).astype(np.float32)
    error = np.abs(actual.astype(np.float32) - expected.astype(np.float32))
    off = int(np.sum(error > ulp))
    assert off == 0, f"{off} value(s) more than one f16 ulp off"
    # one-ulp differences are rare near-ties, not a second rounding
    differ = float(np.mean(error > 0))
    assert differ < 0.02, f"{differ:.1%} of the values differ"
