"""GE's BatchMatMulFusionPass in ``fuse-graph``: a Transpose of a MatMul operand's
last two axes, read by nothing else, is the MatMul reading that operand
transposed (``transA`` / ``transB``): no transpose kernel runs, and the numbers
are onnx.reference's."""

from __future__ import annotations

import numpy as np
import onnx
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.interpreter import interpret
from geir.backends.io_bindings import find_graph
from geir.backends.task_list import Kernel

F = TensorProto.FLOAT


def transposed_matmul(batch: tuple[int, ...], m: int, k: int, n: int, transpose_a: bool, transpose_b: bool,
                      b_perm_heads: bool = False) -> onnx.ModelProto:
    """``MatMul(op(a), op(b))`` where ``op`` is a Transpose of the last two axes when
    asked (``b_perm_heads``: ``b``'s transpose also moves a batch axis, which
    GE does not fuse)."""
    rank = len(batch) + 2
    swap = [*range(rank - 2), rank - 1, rank - 2]
    a_shape = [*batch, k, m] if transpose_a else [*batch, m, k]
    b_shape = [*batch, n, k] if transpose_b else [*batch, k, n]
    nodes, a_name, b_name = [], "a", "b"
    if transpose_a:
        nodes.append(helper.make_node("Transpose", ["a"], ["at"], perm=swap))
        a_name = "at"
    if transpose_b:
        perm = swap
        if b_perm_heads and rank >= 4:
            perm = [1, 0, *swap[2:]]
            b_shape = [batch[1], batch[0], *b_shape[2:]]
        nodes.append(helper.make_node("Transpose", ["b"], ["bt"], perm=perm))
        b_name = "bt"
    nodes.append(helper.make_node("MatMul", [a_name, b_name], ["y"]))
    graph = helper.make_graph(nodes, "transposed_matmul",
                              [helper.make_tensor_value_info("a", F, a_shape),
                               helper.make_tensor_value_info("b", F, b_shape)],
                              [helper.make_tensor_value_info("y", F, [*batch, m, n])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _ops(module: geir.Module) -> list[str]:
    return [op.name for op in find_graph(module).walk()]


@settings(max_examples=30, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2).map(tuple), m=st.integers(1, 5), k=st.integers(1, 5),
       n=st.integers(1, 5), transpose_a=st.booleans(), transpose_b=st.booleans(), heads=st.booleans())
def test_a_transpose_of_the_last_two_axes_is_read_by_its_matmul(batch: tuple[int, ...], m: int, k: int, n: int,
                                                               transpose_a: bool, transpose_b: bool,
                                                               heads: bool) -> None:
    model = transposed_matmul(batch, m, k, n, transpose_a, transpose_b, heads)
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "fuse-graph")
    kept = transpose_b and heads and len(batch) == 2
    assert _ops(module).count("ge.transpose") == int(kept)
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    inputs = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
              for i in model.graph.input}
    (expected,) = ReferenceEvaluator(model).run(None, inputs)
    np.testing.assert_allclose(interpret(module, inputs)["y"], expected, rtol=1e-5, atol=1e-5)


def test_attention_scores_run_no_transpose_kernel_and_cost_the_same_flops() -> None:
    """Through ge-default: the scores' MatMul is one kernel reading the keys
    transposed, with the FLOPs of the MatMul it replaces."""
    model = transposed_matmul((2, 4), 16, 8, 16, False, True)
    plain = geir.lower(geir.run_pipeline(geir.import_onnx(transposed_matmul((2, 4), 16, 8, 16, False, False)),
                                         "ge-default"))
    module = geir.run_pipeline(geir.import_onnx(model), "ge-default")
    kernels = [t for _, _, t in geir.lower(module).all_tasks() if isinstance(t, Kernel)]
    assert not any(t.op == "ge.transpose" for t in kernels)
    (matmul,) = [t for t in kernels if "matmul" in t.op]
    (unfused,) = [t for _, _, t in plain.all_tasks() if isinstance(t, Kernel) and "matmul" in t.op]
    assert matmul.flops == unfused.flops
