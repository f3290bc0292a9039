"""Write an ONNX model with static shapes whose If has a branch invalid for them:
x[2, 4, 1]; If(max(x) > 0, or the constant given) then Squeeze(x, [2]) else
Relu(Squeeze(x, [1])) (dim 1 has size 4: that branch cannot run), then Sigmoid.

    python make_static_branch.py OUT.onnx [runtime|true|false]
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def main(path: str, condition: str) -> None:
    then_g = helper.make_graph([helper.make_node("Squeeze", ["x", "axis2"], ["then_y"], name="then_squeeze")],
                               "then", [], [helper.make_tensor_value_info("then_y", F, None)])
    else_g = helper.make_graph([helper.make_node("Squeeze", ["x", "axis1"], ["else_sq"], name="else_squeeze"),
                                helper.make_node("Relu", ["else_sq"], ["else_y"], name="else_relu")],
                               "else", [], [helper.make_tensor_value_info("else_y", F, None)])
    inits = [numpy_helper.from_array(np.array([1], np.int64), "axis1"),
             numpy_helper.from_array(np.array([2], np.int64), "axis2"),
             numpy_helper.from_array(np.array(0.0, np.float32), "zero")]
    if condition == "runtime":
        nodes = [helper.make_node("ReduceMax", ["x"], ["peak"], keepdims=0, name="peak"),
                 helper.make_node("Greater", ["peak", "zero"], ["cond"], name="positive")]
    else:
        nodes = [helper.make_node("Constant", [], ["cond"], name="layout",
                                  value=numpy_helper.from_array(np.array(condition == "true")))]
    nodes += [helper.make_node("If", ["cond"], ["picked"], then_branch=then_g, else_branch=else_g, name="choose"),
              helper.make_node("Sigmoid", ["picked"], ["y"], name="squash")]
    graph = helper.make_graph(nodes, "static_branch", [helper.make_tensor_value_info("x", F, [2, 4, 1])],
                              [helper.make_tensor_value_info("y", F, [None, None])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "runtime")
