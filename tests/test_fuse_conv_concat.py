"""fuse-conv-concat (GE's ConvConcatFusionPass): a fire module's concat gets no
task, and the task list still computes what onnx.reference does."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.task_list import Kernel


def _fire_model(batch: int = 2) -> onnx.ModelProto:
    """SqueezeNet's fire module: squeeze 1x1, then expand 1x1 and 3x3 (each + relu), concatenated."""
    rng = np.random.default_rng(0)

    def weight(name: str, shape: tuple[int, ...]) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "ws"], ["s"]),
        helper.make_node("Relu", ["s"], ["rs"]),
        helper.make_node("Conv", ["rs", "w1"], ["e1"]),
        helper.make_node("Relu", ["e1"], ["r1"]),
        helper.make_node("Conv", ["rs", "w3"], ["e3"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["e3"], ["r3"]),
        helper.make_node("Concat", ["r1", "r3"], ["y"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "fire", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 32, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 64, 8, 8])],
        [weight("ws", (16, 32, 1, 1)), weight("w1", (32, 16, 1, 1)), weight("w3", (32, 16, 3, 3))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_fire_module_concat_has_no_task_and_the_same_numbers() -> None:
    model = _fire_model()
    x = np.random.default_rng(1).standard_normal((2, 32, 8, 8)).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    timings = {}
    for enable in ("true", "false"):
        module = geir.import_onnx(model)
        geir.run_pipeline(module, f"ge-default{{device=310P3 fuse-conv-concat={enable}}}")
        tl = geir.lower(module)
        concat = next(t for s in tl.streams for t in s.tasks if isinstance(t, Kernel) and t.op == "ge.concat")
        assert ("strided_write" in (concat.attributes or {})) == (enable == "true")
        report = geir.emulate(tl, device="310P3", inputs={"x": x})
        assert not report.races
        # force_fp16, ATC's default on the 310P3: f16 rounding of a sum of 144 products
        np.testing.assert_allclose(report.outputs["y"], expected, rtol=2e-2, atol=2e-2)
        timings[enable] = report.makespan_us
    assert timings["true"] < timings["false"]
