"""Build examples/tiny_cnn.onnx: a small inception-style CNN (a stem, two
parallel branches, concat, pooling, a classifier) with fixed random weights.

    python examples/make_tiny_cnn.py
"""

from __future__ import annotations

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    inits = [weight("stem_w", 16, 3, 3, 3), weight("stem_b", 16),
             weight("a1_w", 16, 16, 1, 1), weight("a2_w", 16, 16, 3, 3),
             weight("b1_w", 16, 16, 1, 1), weight("b2_w", 16, 16, 5, 5),
             weight("fc_w", 10, 32), weight("fc_b", 10)]
    nodes = [
        helper.make_node("Conv", ["image", "stem_w", "stem_b"], ["stem"], "stem_conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["stem"], ["stem_relu"], "stem_relu"),
        helper.make_node("Conv", ["stem_relu", "a1_w"], ["a1"], "branch_a_1x1"),
        helper.make_node("Relu", ["a1"], ["a1r"], "branch_a_relu"),
        helper.make_node("Conv", ["a1r", "a2_w"], ["a2"], "branch_a_3x3", pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["stem_relu", "b1_w"], ["b1"], "branch_b_1x1"),
        helper.make_node("Sigmoid", ["b1"], ["b1s"], "branch_b_sigmoid"),
        helper.make_node("Conv", ["b1s", "b2_w"], ["b2"], "branch_b_5x5", pads=[2, 2, 2, 2]),
        helper.make_node("Concat", ["a2", "b2"], ["cat"], "concat", axis=1),
        helper.make_node("GlobalAveragePool", ["cat"], ["pool"], "pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], "flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], "classifier", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], "softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="geir-examples")
    onnx.checker.check_model(model, full_check=True)
    return model


if __name__ == "__main__":
    onnx.save(build(), os.path.join(HERE, "tiny_cnn.onnx"))
