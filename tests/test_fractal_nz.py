"""FRACTAL_NZ around MatMuls on a device whose cube loads no ND matrices (the
310P, the 910A): which MatMuls take it, where the TransData go, what they cost,
that they change no value, and the vendor's graph edits that avoid them."""

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
from calibration_bench import load_bench_script
from geir.absent_weights import module_has_absent_weights
from geir.attributes import StringAttr
from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.task_list import ARENA, Kernel, TensorRef
from geir.constants import CONSTANT_OPS
from geir.module import Module

#: the ops that may read a FRACTAL_NZ value without a TransData before them
NZ_READERS = frozenset({"ge.matmul", "ge.batch_matmul", "ge.gemm", "ge.add", "ge.sub", "ge.mul", "ge.div",
                        "ge.gelu", "ge.relu", "ge.tanh", "ge.sigmoid", "ge.cast", "ge.softmax", "ge.layer_norm",
                        "ge.trans_data", "ge.erf", "ge.sqrt", "ge.exp", "ge.neg", "ge.abs", "ge.max", "ge.min",
                        "ge.pow", "ge.sum", "ge.mean", "ge.clip", "ge.leaky_relu", "ge.hard_sigmoid",
                        "ge.hard_swish", "ge.swish", "ge.elu", "ge.selu", "ge.celu", "ge.mish", "ge.softplus",
                        "ge.reciprocal", "ge.prelu"})



def _x_to_y(name: str, nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto], x_shape: list,
            y_shape: list, opset: int) -> onnx.ModelProto:
    """A float model of ``nodes`` from input ``x`` to output ``y``."""
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

def _devices_without_nd_cube() -> list[str]:
    return [d for d in ("310P3", "910A", "910B2", "910B4") if not load_profile(d).cube_nd_operands]


def test_the_310p_and_the_910a_load_no_nd_matrices_and_the_910b_does() -> None:
    assert _devices_without_nd_cube() == ["310P3", "910A"]


def _nz_values(graph: geir.Operation) -> set:
    """The values a graph holds in FRACTAL_NZ: a TransData's result into it, and the
    result of any other op reading one (an op that takes no NZ reads a TransData's
    ND result instead)."""
    nz: set = set()
    for op in graph.regions[0].blocks[0].ops:
        if op.name == "ge.trans_data":
            if op.get_attr("dst_format") == "FRACTAL_NZ":
                nz.add(op.results[0])
        elif any(v in nz for v in op.operands) and op.results:
            nz.add(op.results[0])
    return nz


def _aligned(op: geir.Operation) -> bool:
    a, b = (v.type.shape for v in op.operands[:2])
    return all(d % 16 == 0 for d in (*a[-2:], *b[-2:]))


def _transformer_layer(tokens: int, width: int, hidden: int, tail: str) -> onnx.ModelProto:
    """LayerNorm -> MatMul + bias -> GELU -> MatMul + bias -> residual Add -> ``tail``."""
    rng = np.random.default_rng(tokens * 1000 + width)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32), n) for n, s in
             (("g", (width,)), ("b", (width,)), ("w1", (width, hidden)), ("b1", (hidden,)),
              ("w2", (hidden, width)), ("b2", (width,)))]
    nodes = [helper.make_node("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1),
             helper.make_node("MatMul", ["n", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["a"]),
             helper.make_node("MatMul", ["a", "w2"], ["o"]),
             helper.make_node("Add", ["o", "b2"], ["ob"]),
             helper.make_node("Add", ["ob", "x"], ["r"])]
    if tail == "softmax":
        nodes.append(helper.make_node("Softmax", ["r"], ["y"], axis=-1))
    elif tail == "transpose":
        nodes.append(helper.make_node("Transpose", ["r"], ["y"], perm=[0, 2, 1]))
    else:
        nodes.append(helper.make_node("LayerNormalization", ["r", "g", "b"], ["y"], axis=-1))
    out_shape = [2, width, tokens] if tail == "transpose" else [2, tokens, width]
    return _x_to_y("layer", nodes, inits, [2, tokens, width], out_shape, 17)


@settings(max_examples=12, deadline=None)
@given(tokens=st.sampled_from([1, 16, 50, 197]), width=st.sampled_from([32, 48, 40]),
       hidden=st.sampled_from([64, 72]), tail=st.sampled_from(["softmax", "transpose", "layer_norm"]),
       device=st.sampled_from(["310P3", "910A", "910B2"]))
def test_nz_placement_follows_cann_and_changes_no_value(tmp_path_factory: pytest.TempPathFactory, tokens: int,
                                                        width: int, hidden: int, tail: str, device: str) -> None:
    model = _transformer_layer(tokens, width, hidden, tail)
    path = tmp_path_factory.mktemp("nz") / "layer.onnx"
    onnx.save(model, str(path))
    module = geir.import_onnx(path)
    geir.run_pipeline(module, f"precision-mode{{device={device}}},insert-trans-data{{device={device}}}")
    graph = next(iter(module.graphs()))
    nz = _nz_values(graph)
    nd_cube = load_profile(device).cube_nd_operands
    for op in graph.regions[0].blocks[0].ops:
        if op.name == "ge.matmul":
            activations = [v for v in op.operands[:2] if v.owner is None or v.owner.name not in CONSTANT_OPS]
            if nd_cube or _aligned(op):
                # ND where CANN offers it: nothing converts into this MatMul
                assert not any(v in nz for v in activations), op
            else:
                assert activations and all(v in nz for v in activations), op
        if op.name not in NZ_READERS:
            assert not any(v in nz for v in op.operands), f"'{op.name}' reads a FRACTAL_NZ value"
        if op.name == "ge.layer_norm" and op.operands[0] in nz:
            assert op.operands[0].type.shape[-2] % 16 == 0
        if op.name == "ge.softmax" and op.operands[0] in nz and device == "910A":
            # the 910's SoftmaxV2 takes unaligned NZ scores from five rows only
            rows, cols = op.operands[0].type.shape[-2:]
            assert rows >= 5 or rows % 16 == cols % 16 == 0
    assert not nz or not nd_cube
    x = np.random.default_rng(tokens).standard_normal((2, tokens, width)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    got = geir.interpret(module, {"x": x}).outputs["y"]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=3e-2, atol=3e-2)


def _ref(shape: tuple[int, ...], dtype: str = "f16") -> TensorRef:
    return TensorRef(ARENA, 0, shape, dtype)


@pytest.mark.parametrize(("shape", "dtype", "padded"), [
    ((2, 197, 64), "f16", (2, 208, 64)),
    ((4, 1000), "f16", (16, 1008)),
    ((3, 16, 16), "f16", (3, 16, 16)),
    ((5, 40), "i8", (16, 64)),
    ((5, 40), "f32", (16, 40)),
])
def test_a_trans_data_to_nz_moves_the_nz_side_padded_to_whole_fractals(
        shape: tuple[int, ...], dtype: str, padded: tuple[int, ...]) -> None:
    cost = CostModel(load_profile("310P3"))
    nd = _ref(shape, dtype)
    nz_bytes = int(np.prod(padded)) * nd.nbytes // int(np.prod(shape))
    into = Kernel("ge.trans_data", "AICore", [nd], [nd],
                  attributes={"src_format": StringAttr("ND"), "dst_format": StringAttr("FRACTAL_NZ")})
    back = Kernel("ge.trans_data", "AICore", [nd], [nd],
                  attributes={"src_format": StringAttr("FRACTAL_NZ"), "dst_format": StringAttr("ND")})
    assert sum(cost.traffic(into)) == sum(cost.traffic(back)) == nd.nbytes + nz_bytes


def test_an_unaligned_transformer_costs_more_on_the_310p_than_padded(tmp_path: Path) -> None:
    """197 tokens convert around every MatMul; padded to 208 they convert nowhere, and
    the padded layer, 5.6% more rows, runs faster (what the vendor's pad_nz_block is for)."""
    times = {}
    for tokens in (197, 208):
        path = tmp_path / f"layer{tokens}.onnx"
        onnx.save(_transformer_layer(tokens, 768, 3072, "layer_norm"), str(path))
        module = geir.import_onnx(path)
        geir.run_pipeline(module, "ge-default{device=310P3}")
        kinds = [op.get_attr("op") for op in module.walk() if op.name == "rt.kernel"]
        assert (kinds.count("ge.trans_data") > 0) == (tokens == 197)
        times[tokens] = geir.emulate(geir.lower(module), device="310P3", timing_only=True).makespan_us
    assert times[208] < times[197]


@pytest.fixture(scope="module")
def vendor_edits():
    return load_bench_script("vendor_edits.py", "vendor_edits_bench")


def _vit_like(tokens: int, width: int) -> onnx.ModelProto:
    """Token embedding + position -> LayerNorm -> MatMul + bias -> GELU (Erf form) ->
    MatMul + bias -> residual Add -> the first token."""
    rng = np.random.default_rng(7)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32), n) for n, s in
             (("pos", (1, tokens, width)), ("g", (width,)), ("b", (width,)), ("w1", (width, 2 * width)),
              ("b1", (2 * width,)), ("w2", (2 * width, width)), ("b2", (width,)))]
    inits += [numpy_helper.from_array(np.array(v, dtype=np.float32), n) for n, v in
              (("sqrt2", 1.4142135), ("one", 1.0), ("half", 0.5))]
    inits.append(numpy_helper.from_array(np.array(0, dtype=np.int64), "first"))
    nodes = [helper.make_node("Add", ["x", "pos"], ["e"]),
             helper.make_node("LayerNormalization", ["e", "g", "b"], ["n"], axis=-1),
             helper.make_node("MatMul", ["n", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Div", ["hb", "sqrt2"], ["d"]),
             helper.make_node("Erf", ["d"], ["erf"]),
             helper.make_node("Add", ["erf", "one"], ["e1"]),
             helper.make_node("Mul", ["hb", "e1"], ["m"]),
             helper.make_node("Mul", ["m", "half"], ["gelu"]),
             helper.make_node("MatMul", ["gelu", "w2"], ["o"]),
             helper.make_node("Add", ["o", "b2"], ["ob"]),
             helper.make_node("Add", ["ob", "e"], ["r"]),
             helper.make_node("Gather", ["r", "first"], ["y"], axis=1)]
    return _x_to_y("vit", nodes, inits, ["batch", tokens, width], ["batch", width], 17)


def test_the_vendor_edits_the_rows_notes_name(vendor_edits) -> None:
    assert vendor_edits.vendor_edits("ONNX rewritten by opt_vit.py (auto_optimizer) [pad_nz_block]") \
        == ("pad_nz_block",)
    assert vendor_edits.vendor_edits("graph edits: onnxsim + opt_vit.py (merge_bmm_axis)") == ("merge_bmm_axis",)
    assert vendor_edits.vendor_edits("graph edits: onnxsim + opt_vit.py (merge_bmm_axis, pad_nz_block)") \
        == ("pad_nz_block", "merge_bmm_axis")
    assert vendor_edits.vendor_edits("graph edits: onnxsim") == ()


@pytest.mark.parametrize("batch", [1, 3])
def test_merge_bmm_axis_keeps_every_value_and_multiplies_batch_x_tokens_rows(vendor_edits, batch: int) -> None:
    model = _vit_like(50, 32)
    edited = vendor_edits.apply_edits(model, ("merge_bmm_axis",), batch)
    onnx.checker.check_model(edited)
    x = np.random.default_rng(batch).standard_normal((batch, 50, 32)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(ReferenceEvaluator(edited).run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-6)
    module = geir.import_onnx(edited, input_shapes={"x": (batch, 50, 32)})
    matmuls = [op for op in module.walk() if op.name in ("ge.matmul", "ge.batch_matmul")]
    assert [op.operands[0].type.shape for op in matmuls] == [(batch * 50, 32), (batch * 50, 64)]
    assert len(model.graph.node) + 2 == len(edited.graph.node)  # one reshape in, one back


def test_pad_nz_block_pads_the_tokens_to_whole_fractals_and_keeps_the_first_token(vendor_edits) -> None:
    model = _vit_like(197, 32)
    edited = vendor_edits.apply_edits(model, ("pad_nz_block",), 2)
    onnx.checker.check_model(edited)
    module = geir.import_onnx(edited, input_shapes={"x": (2, 197, 32)})
    matmuls = [op for op in module.walk() if op.name in ("ge.matmul", "ge.batch_matmul")]
    assert {op.operands[0].type.shape[-2] for op in matmuls} == {208}
    # the tokens after the embedding are padded; the first token, before any mixing
    # of tokens, is the same
    x = np.random.default_rng(0).standard_normal((2, 197, 32)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(ReferenceEvaluator(edited).run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-6)
    assert vendor_edits.apply_edits(model, (), 2) is model


def test_merge_bmm_axis_follows_a_reshape_whose_target_the_graph_computes(vendor_edits) -> None:
    """An exporter writes an attention's head merge as a Reshape to (Shape(x)[0], tokens,
    width): with the batch bound, the target is known and the MatMul after it is
    merged too, as in the vendor's static-batch graph."""
    tokens, width = 50, 32
    inits = [numpy_helper.from_array(np.zeros((width, width), dtype=np.float32), "w"),
             numpy_helper.from_array(np.array([0], dtype=np.int64), "zero"),
             numpy_helper.from_array(np.array([tokens, width], dtype=np.int64), "rest")]
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
             helper.make_node("Concat", ["batch", "rest"], ["target"], axis=0),
             helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1, 3]),
             helper.make_node("Reshape", ["t", "target"], ["merged_heads"]),
             helper.make_node("MatMul", ["merged_heads", "w"], ["y"])]
    model = _x_to_y("heads", nodes, inits, ["batch", 2, tokens, width // 2], ["batch", tokens, width], 17)
    edited = vendor_edits.apply_edits(model, ("merge_bmm_axis",), 3)
    module = geir.import_onnx(edited, input_shapes={"x": (3, 2, tokens, width // 2)})
    matmuls = [op for op in module.walk() if op.name in ("ge.matmul", "ge.batch_matmul")]
    assert [op.operands[0].type.shape for op in matmuls] == [(3 * tokens, width)]


def test_both_vit_plans_merge_the_padded_tokens_into_the_matmuls_rows(vendor_edits) -> None:
    """ViT-B/8 and the 384-pixel ViT-Bs take both plans: 145 tokens padded to 160,
    batch x 160 rows in every MatMul, the first token's values unchanged."""
    model = _vit_like(145, 32)
    edited = vendor_edits.apply_edits(model, vendor_edits.vendor_edits("(merge_bmm_axis, pad_nz_block)"), 3)
    onnx.checker.check_model(edited)
    module = geir.import_onnx(edited, input_shapes={"x": (3, 145, 32)})
    matmuls = [op for op in module.walk() if op.name in ("ge.matmul", "ge.batch_matmul")]
    assert [op.operands[0].type.shape for op in matmuls] == [(3 * 160, 32), (3 * 160, 64)]
    x = np.random.default_rng(1).standard_normal((3, 145, 32)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(ReferenceEvaluator(edited).run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-6)


def _gpt2_attention(batch: int, tokens: int, heads: int, head_width: int) -> onnx.ModelProto:
    """GPT-2's attention as its exporter writes it: one Gemm to the fused query, key
    and value, a Split of its last axis, heads permuted (the key's to [0, 2, 3, 1]),
    scores, softmax, the values."""
    width = heads * head_width
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32), n) for n, s in
             (("w", (width, 3 * width)), ("b", (3 * width,)))]
    inits += [numpy_helper.from_array(np.array(v, dtype=np.int64), n) for n, v in
              (("rows", [batch * tokens, width]), ("fused", [batch, tokens, 3 * width]),
               ("heads", [batch, tokens, heads, head_width]), ("parts", [width] * 3))]
    nodes = [helper.make_node("Reshape", ["x", "rows"], ["x2"]),
             helper.make_node("Gemm", ["x2", "w", "b"], ["qkv2"]),
             helper.make_node("Reshape", ["qkv2", "fused"], ["qkv"]),
             helper.make_node("Split", ["qkv", "parts"], ["q", "k", "v"], axis=2)]
    for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [helper.make_node("Reshape", [name, "heads"], [f"{name}h"]),
                  helper.make_node("Transpose", [f"{name}h"], [f"{name}t"], perm=perm)]
    nodes += [helper.make_node("MatMul", ["qt", "kt"], ["scores"]),
              helper.make_node("Softmax", ["scores"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "vt"], ["y"])]
    return _x_to_y("attention", nodes, inits, [batch, tokens, width], [batch, heads, tokens, head_width], 13)


def _assert_same_outputs(model: onnx.ModelProto, edited: onnx.ModelProto, x: np.ndarray) -> None:
    """The edited model computes what the exported one does (``onnx.reference``)."""
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(ReferenceEvaluator(edited).run(None, {"x": x})[0], want, rtol=1e-5, atol=1e-5)


def _compiled_for_310p3(source: onnx.ModelProto) -> Module:
    module = geir.import_onnx(source)
    geir.run_pipeline(module, "ge-default{device=310P3}")
    return module


def _gpt2_mlp(batch: int, tokens: int, width: int) -> onnx.ModelProto:
    """GPT-2's MLP as transformers' Conv1D exports it: each Gemm between a Reshape
    of batch and tokens into rows and one back, an activation, the residual Add."""
    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.1).astype(np.float32), n) for n, s in
             (("w1", (width, 4 * width)), ("b1", (4 * width,)), ("w2", (4 * width, width)), ("b2", (width,)))]
    inits += [numpy_helper.from_array(np.array(v, dtype=np.int64), n) for n, v in
              (("rows", [-1, width]), ("wide_rows", [-1, 4 * width]), ("wide", [batch, tokens, 4 * width]),
               ("narrow", [batch, tokens, width]))]
    nodes = [helper.make_node("Reshape", ["x", "rows"], ["x2"]),
             helper.make_node("Gemm", ["x2", "w1", "b1"], ["h2"]),
             helper.make_node("Reshape", ["h2", "wide"], ["h"]),
             helper.make_node("Tanh", ["h"], ["a"]),
             helper.make_node("Reshape", ["a", "wide_rows"], ["a2"]),
             helper.make_node("Gemm", ["a2", "w2", "b2"], ["o2"]),
             helper.make_node("Reshape", ["o2", "narrow"], ["o"]),
             helper.make_node("Add", ["o", "x"], ["y"])]
    return _x_to_y("mlp", nodes, inits, [batch, tokens, width], [batch, tokens, width], 13)


def test_fix_ubfusion_lets_the_matmuls_activation_and_residual_join_their_kernels(vendor_edits) -> None:
    assert vendor_edits.vendor_edits("graph edits: opt_onnx_update.py (Gemm->MatMul+Add, splits fused QKV)") \
        == ("fix_ubfusion", "fix_attention_qkv")
    model = _gpt2_mlp(2, 32, 64)
    edited = vendor_edits.apply_edits(model, ("fix_ubfusion",), 2)
    onnx.checker.check_model(edited)
    assert [n.op_type for n in edited.graph.node] == ["MatMul", "Add", "Tanh", "MatMul", "Add", "Add"]
    _assert_same_outputs(model, edited, np.random.default_rng(2).standard_normal((2, 32, 64)).astype(np.float32))
    runs = {label: geir.emulate(geir.lower(_compiled_for_310p3(source)), device="310P3", timing_only=True)
            for label, source in (("exported", model), ("edited", edited))}
    # a Reshape between a MatMul and its activation or residual keeps each a kernel
    # of its own; without it, the Tanh and the residual Add join their MatMuls'
    assert runs["exported"].task_counts["kernel"] - runs["edited"].task_counts["kernel"] == 2
    assert runs["edited"].makespan_us < runs["exported"].makespan_us


def test_fix_attention_qkv_projects_query_key_and_value_apart_with_no_split(vendor_edits) -> None:
    model = _gpt2_attention(2, 32, 4, 16)
    edited = vendor_edits.apply_edits(model, ("fix_attention_qkv",), 2)
    onnx.checker.check_model(edited)
    kinds = [n.op_type for n in edited.graph.node]
    assert kinds.count("Split") == 0 and kinds.count("Gemm") == 3
    assert [list(n.attribute[0].ints) for n in edited.graph.node if n.op_type == "Transpose"] \
        == [[0, 2, 1, 3], [0, 2, 1, 3], [0, 1, 3, 2], [0, 2, 1, 3]]
    _assert_same_outputs(model, edited, np.random.default_rng(1).standard_normal((2, 32, 64)).astype(np.float32))
    # GE folds the key's swap of its last two axes into the score MatMul: the
    # edited graph runs no split and no more transposes than the exported one
    counts = {}
    for label, source in (("exported", model), ("edited", edited)):
        kinds = [op.get_attr("op") for op in _compiled_for_310p3(source).walk() if op.name == "rt.kernel"]
        counts[label] = (kinds.count("ge.split"), kinds.count("ge.transpose"))
    assert counts == {"exported": (1, 3), "edited": (0, 3)}


def test_fix_attention_qkv_keeps_an_absent_weight_absent(vendor_edits) -> None:
    model = _gpt2_attention(1, 16, 2, 16)
    weight = next(i for i in model.graph.initializer if i.name == "w")
    absent = onnx.TensorProto(name="w", data_type=weight.data_type, dims=weight.dims,
                              data_location=onnx.TensorProto.EXTERNAL)
    absent.external_data.add(key="location", value="model.weights")
    model.graph.initializer.remove(weight)
    model.graph.initializer.append(absent)
    edited = vendor_edits.apply_edits(model, ("fix_attention_qkv",), 1)
    parts = [i for i in edited.graph.initializer if i.name.startswith("w_part")]
    assert [list(p.dims) for p in parts] == [[32, 32]] * 3
    assert all(p.data_location == onnx.TensorProto.EXTERNAL and not p.raw_data for p in parts)
    assert module_has_absent_weights(geir.import_onnx(edited))  # imports to run timing-only


def _bert_attention(batch: int, tokens: int, heads: int, head_width: int) -> onnx.ModelProto:
    """BERT's self-attention as transformers exports it: three projections of one
    activation, the key's heads permuted ``[0, 2, 3, 1]``, the scores scaled and
    masked by a ``B x 1 x S x S`` mask, the context's heads permuted back."""
    width = heads * head_width
    rng = np.random.default_rng(7)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.05).astype(np.float32), n) for n, s in
             (("wq", (width, width)), ("wk", (width, width)), ("wv", (width, width)),
              ("bq", (width,)), ("bk", (width,)), ("bv", (width,)))]
    mask = np.where(rng.random((batch, 1, tokens, tokens)) < 0.2, -10000.0, 0.0).astype(np.float32)
    inits += [numpy_helper.from_array(mask, "mask"),
              numpy_helper.from_array(np.array(1 / np.sqrt(head_width), dtype=np.float32), "scale"),
              numpy_helper.from_array(np.array([batch, tokens, heads, head_width], dtype=np.int64), "split"),
              numpy_helper.from_array(np.array([batch, tokens, width], dtype=np.int64), "merged")]
    nodes = []
    for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [helper.make_node("MatMul", ["x", f"w{name}"], [f"{name}p"]),
                  helper.make_node("Add", [f"{name}p", f"b{name}"], [name]),
                  helper.make_node("Reshape", [name, "split"], [f"{name}h"]),
                  helper.make_node("Transpose", [f"{name}h"], [f"{name}t"], perm=perm)]
    nodes += [helper.make_node("MatMul", ["qt", "kt"], ["scores"]),
              helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
              helper.make_node("Add", ["scaled", "mask"], ["masked"]),
              helper.make_node("Softmax", ["masked"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "vt"], ["context"]),
              helper.make_node("Transpose", ["context"], ["contextt"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["contextt", "merged"], ["y"])]
    return _x_to_y("attention", nodes, inits, [batch, tokens, width], [batch, tokens, width], 13)


def test_fix_attention_lnqkv_stores_the_key_as_the_query_so_the_310p_fuses_the_attention(vendor_edits) -> None:
    notes = "ONNX reshaped by fix_onnx.py (reshape/transpose only, same math)"
    assert vendor_edits.vendor_edits(notes) == ("fix_attention_lnqkv",)
    model = _bert_attention(2, 32, 12, 64)
    edited = vendor_edits.apply_edits(model, ("fix_attention_lnqkv",), 2)
    onnx.checker.check_model(edited)
    assert [list(n.attribute[0].ints) for n in edited.graph.node if n.op_type == "Transpose"] \
        == [[0, 2, 1, 3], [0, 2, 1, 3], [0, 1, 3, 2], [0, 2, 1, 3], [0, 2, 1, 3]]
    x = np.random.default_rng(3).standard_normal((2, 32, 768)).astype(np.float32)
    _assert_same_outputs(model, edited, x)
    # with the key stored as the query (its swap folded into the score MatMul), the
    # score MatMul, softmax, MatMul by the values and permute run as one kernel
    fused = {}
    for label, source in (("exported", model), ("edited", edited)):
        kernels = [op for op in _compiled_for_310p3(source).walk() if op.name == "rt.kernel"]
        softmax = next(op for op in kernels if op.get_attr("op") == "ge.softmax")
        fused[label] = "fused_operand" in softmax.get_attr("attrs")
    assert fused == {"exported": False, "edited": True}
    runs = {label: geir.run_model(source, device="310P3", inputs={"x": x}, compare=False)
            for label, source in (("exported", model), ("edited", edited))}
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    for run in runs.values():  # the marks change the kernels' time, not their numbers (f16 here)
        np.testing.assert_allclose(run.outputs["y"], want, atol=0.02 * float(np.abs(want).max()))
        assert not run.result.races
    assert runs["edited"].fields["makespan_us"] < runs["exported"].fields["makespan_us"]
