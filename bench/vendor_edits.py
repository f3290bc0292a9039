"""The graph edits Huawei's model zoo made to an ONNX model before ATC compiled the
one it measured, redone on a graph-only export so that the emulated graph is the
measured one.

    edits = vendor_edits(notes)            # the edits a row's notes name
    model = apply_edits(model, edits, batch)

Two edits change the work a transformer does on a 310P, both from
``opt_vit.py`` (Ascend/ModelZoo-PyTorch ``ACL_PyTorch/contrib/cv/classfication/ViT_base``),
which names each ViT variant's plan:

* ``pad_nz_block``: the token sequence (197 for a 224-pixel image in patches of
  16) zero-padded to a multiple of 16 after the position embedding, so that the
  MatMuls' rows fill whole 16-row fractals and CANN's MatMul takes ND operands
  on a chip whose cube loads no ND matrices (the 310P; see ``insert-trans-data``).
  The vendor slices the padding off again before some of the layer norms; here
  every op after the embedding sees the padded tokens (an upper bound on the
  padded work: 208 / 197 = 5.6% more rows).
* ``merge_bmm_axis``: a MatMul of a (batch, tokens, k) activation by a (k, n)
  weight written as one (batch x tokens, k) x (k, n) MatMul between two
  reshapes, so that its rows are batch x tokens, not tokens (50 for patches of 32).
  ViT-B/8 and the 384-pixel variants take both edits.

Two change GPT-2's, from ``opt_onnx_update.py``
(``ACL_PyTorch/built-in/nlp/GPT2_for_Pytorch``; its rows' notes say
"Gemm->MatMul+Add" and "splits fused QKV"):

* ``fix_ubfusion``: each ``Reshape -> Gemm -> Reshape`` (transformers' Conv1D,
  which flattens batch and tokens around its Gemm) as ``MatMul -> Add`` of the
  unflattened activation, so that the MatMul's result goes straight to its
  bias, its GELU or its residual Add: GE's UB fusion joins only adjacent ops,
  and a Reshape between them (which ``ReshapeRecoveryPass`` puts back where its
  two sides' shapes differ) leaves each a kernel of its own.
* ``fix_attention_qkv``: the fused query-key-value projection (one MatMul to
  3 x 768 columns, then a Split of its last axis) as three MatMuls of 768
  columns each, so no Split copies the three out of the fused result (a split of
  the last axis is strided, a kernel of its own); the key's head permute
  ``[0, 2, 3, 1]`` becomes the query's ``[0, 2, 1, 3]`` followed by a swap of
  the last two axes, which GE folds into the score MatMul (``fuse-graph``).

One changes BERT's, from ``fix_onnx.py``
(``ACL_PyTorch/built-in/nlp/Bert_Uncased_Huggingface``, for BERT-base and -large):

* ``fix_attention_lnqkv``: in each layer, the key's head permute
  ``[0, 2, 3, 1]`` becomes the query's ``[0, 2, 1, 3]`` followed by a swap of
  the last two axes, as for GPT-2, so that the query, the key and the values
  the attention reads have one shape: a condition of the 310P's AttentionScore
  fusion (``fuse-ub``). The script's other edits (a reshape to
  ``[-1, hidden]`` around the projections, a division spelled as a
  multiplication, the mask expanded to ``B x 1 x S x S``) keep the work the
  same or are already so in the exports.

Other edits the notes name (onnxsim, a division spelled as a multiplication, the
key-value cache's outputs dropped) keep the work the same or are already so in
the graph-only exports, and are not redone.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

#: the edits this module redoes, by the name the vendor's script gives them
EDITS = ("pad_nz_block", "merge_bmm_axis", "fix_ubfusion", "fix_attention_qkv", "fix_attention_lnqkv")
#: how rows' notes name an edit, where not by the script's name
NOTE_NAMES = {"fix_ubfusion": "Gemm->MatMul+Add", "fix_attention_qkv": "splits fused QKV",
              "fix_attention_lnqkv": "fix_onnx.py"}
#: rows of one FRACTAL_NZ fractal: what pad_nz_block pads the tokens to a multiple of
NZ_ROWS = 16
#: the ops a merged (batch x tokens, n) MatMul result stays 2-D through when their
#: other operands are constants (a bias, GELU's scalars)
ELEMENTWISE = frozenset({"Add", "Sub", "Mul", "Div", "Erf", "Sqrt", "Pow", "Tanh", "Sigmoid", "Relu", "Gelu",
                         "Neg", "Exp", "Cast"})


def vendor_edits(notes: str) -> tuple[str, ...]:
    """The edits of :data:`EDITS` that a row's notes say the vendor made, in the order
    the vendor's scripts apply them."""
    return tuple(e for e in EDITS if e in notes or NOTE_NAMES.get(e, e) in notes)


def apply_edits(model: onnx.ModelProto, edits: Sequence[str], batch: int) -> onnx.ModelProto:
    """``model`` with ``edits`` made, at ``batch`` (the padding and the reshapes
    are written for it). Returns a copy; ``model`` is not changed."""
    if not edits:
        return model
    edited = onnx.ModelProto()
    edited.CopyFrom(model)
    for edit in edits:
        shapes = _shapes(edited, batch)
        if edit == "merge_bmm_axis":
            _merge_bmm_axis(edited.graph, shapes, batch)
        elif edit == "pad_nz_block":
            _pad_tokens(edited.graph, shapes, batch)
        elif edit == "fix_ubfusion":
            _unflatten_gemms(edited.graph)
        elif edit == "fix_attention_qkv":
            _split_fused_qkv(edited.graph, shapes, batch)
        elif edit == "fix_attention_lnqkv":
            _permute_keys_as_queries(edited.graph)
        else:
            raise ValueError(f"unknown vendor edit '{edit}' (known: {', '.join(EDITS)})")
    return edited


def _shapes(model: onnx.ModelProto, batch: int) -> dict[str, list[int | str]]:
    """Every value's inferred shape (a symbolic dim by its name) with the inputs'
    ``batch`` dims bound to ``batch``, and shapes computed in the graph (a
    Reshape's target from Shape, Gather and Concat) followed: the vendor exported
    at a static batch, so its reshapes had constant targets that its scripts
    rewrite."""
    bound = onnx.ModelProto()
    bound.CopyFrom(model)
    for value in bound.graph.input:
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param == "batch":
                dim.dim_value = batch
    inferred = onnx.shape_inference.infer_shapes(bound, data_prop=True)
    shapes: dict[str, list[int | str]] = {}
    for info in (*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output):
        dims = info.type.tensor_type.shape.dim
        shapes[info.name] = [d.dim_param if d.dim_param else d.dim_value for d in dims]
    for init in model.graph.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def _consumers(graph: onnx.GraphProto, name: str) -> list[onnx.NodeProto]:
    return [n for n in graph.node if name in n.input]


def _pad_tokens(graph: onnx.GraphProto, shapes: dict[str, list[int | str]], batch: int) -> None:
    """Zero tokens appended to the sequence the first layer norm reads, up to a
    multiple of 16; every reader of the sequence reads the padded one."""
    first_norm = next((n for n in graph.node if n.op_type == "LayerNormalization"), None)
    if first_norm is None:
        raise ValueError("pad_nz_block: the graph has no LayerNormalization to find the token sequence by")
    tokens_name = first_norm.input[0]
    shape = shapes.get(tokens_name)
    if shape is None or len(shape) != 3 or not isinstance(shape[1], int) or not isinstance(shape[2], int):
        raise ValueError(f"pad_nz_block: the token sequence '{tokens_name}' has no static (batch, tokens, width)")
    tokens, width = shape[1], shape[2]
    pad = -tokens % NZ_ROWS
    if pad == 0:
        return
    zeros = numpy_helper.from_array(np.zeros((batch, pad, width), dtype=np.float32), f"{tokens_name}_nz_padding")
    padded = f"{tokens_name}_nz_padded"
    readers = _consumers(graph, tokens_name)
    graph.initializer.append(zeros)
    concat = helper.make_node("Concat", [tokens_name, zeros.name], [padded], axis=1, name=f"{tokens_name}_pad_nz")
    graph.node.insert(list(graph.node).index(readers[0]), concat)
    for node in readers:
        for i, name in enumerate(node.input):
            if name == tokens_name:
                node.input[i] = padded


def _merge_bmm_axis(graph: onnx.GraphProto, shapes: dict[str, list[int | str]], batch: int) -> None:
    """Every MatMul of a (batch, tokens, k) activation by a (k, n) weight as a 2-D
    MatMul of (batch x tokens, k) rows. Its result stays 2-D through the
    elementwise ops that read it with constants (the bias, the GELU) and into the
    next such MatMul, as the vendor's script keeps it; any other reader reads it
    reshaped back to (batch, tokens, n)."""
    weights = {i.name for i in graph.initializer}
    #: a 3-D value's name -> (its 2-D twin's name, tokens, width)
    rows: dict[str, tuple[str, int, int]] = {}
    restored: dict[str, str] = {}
    nodes = list(graph.node)
    out: list[onnx.NodeProto] = []

    def small(name: str) -> bool:
        shape = shapes.get(name)
        return shape is not None and len(shape) <= 1

    def restore(name: str) -> str:
        """The 3-D value of ``name``'s 2-D twin, reshaped back once."""
        if name not in restored:
            twin, tokens, width = rows[name]
            shape_name = f"{twin}_3d_shape"
            graph.initializer.append(numpy_helper.from_array(np.array([batch, tokens, width], dtype=np.int64),
                                                             shape_name))
            restored[name] = f"{twin}_3d"
            out.append(helper.make_node("Reshape", [twin, shape_name], [restored[name]], name=f"{twin}_restore"))
        return restored[name]

    for node in nodes:
        a = shapes.get(node.input[0]) if node.input else None
        if node.op_type == "MatMul" and node.input[1] in weights and a is not None and len(a) == 3 \
                and isinstance(a[1], int) and len(shapes.get(node.input[1], [])) == 2:
            tokens, (k, n) = a[1], shapes[node.input[1]]
            if node.input[0] in rows:
                node.input[0] = rows[node.input[0]][0]
            else:
                flat = f"{node.input[0]}_rows"
                graph.initializer.append(numpy_helper.from_array(np.array([batch * tokens, k], dtype=np.int64),
                                                                 f"{flat}_shape"))
                out.append(helper.make_node("Reshape", [node.input[0], f"{flat}_shape"], [flat],
                                            name=f"{flat}_reshape"))
                node.input[0] = flat
            rows[node.output[0]] = (f"{node.output[0]}_rows", tokens, int(n))
            node.output[0] = rows[node.output[0]][0]
            out.append(node)
            continue
        merged = [x for x in node.input if x in rows]
        if merged and node.op_type in ELEMENTWISE and len(node.output) == 1 \
                and all(x in rows or small(x) for x in node.input):
            twin, tokens, width = rows[merged[0]]
            if all(rows[x][1:] == (tokens, width) for x in merged):
                for i, x in enumerate(node.input):
                    if x in rows:
                        node.input[i] = rows[x][0]
                rows[node.output[0]] = (f"{node.output[0]}_rows", tokens, width)
                node.output[0] = rows[node.output[0]][0]
                out.append(node)
                continue
        for i, x in enumerate(node.input):
            if x in rows:
                node.input[i] = restore(x)
        out.append(node)
    for value in graph.output:
        if value.name in rows:
            twin, tokens, width = rows[value.name]
            shape_name = f"{twin}_output_shape"
            graph.initializer.append(numpy_helper.from_array(np.array([batch, tokens, width], dtype=np.int64),
                                                             shape_name))
            out.append(helper.make_node("Reshape", [twin, shape_name], [value.name], name=f"{twin}_output"))
    del graph.node[:]
    graph.node.extend(out)


def _unflatten_gemms(graph: onnx.GraphProto) -> None:
    """Each Gemm between two Reshapes, neither read by anything else, as a
    MatMul of the first Reshape's input and an Add of the bias, whose result is
    the second Reshape's (``fix_ubfusion`` of the vendor's script)."""
    producers = {o: n for n in graph.node for o in n.output}
    readers: dict[str, int] = {}
    for node in graph.node:
        for x in node.input:
            readers[x] = readers.get(x, 0) + 1
    outputs = {v.name for v in graph.output}
    edited = 0
    for gemm in [n for n in graph.node if n.op_type == "Gemm"]:
        attributes = {a.name: onnx.helper.get_attribute_value(a) for a in gemm.attribute}
        if attributes.get("transA", 0) or attributes.get("transB", 0) or attributes.get("alpha", 1.0) != 1.0 \
                or attributes.get("beta", 1.0) != 1.0 or len(gemm.input) < 3 or not gemm.input[2]:
            continue
        flatten = producers.get(gemm.input[0])
        unflatten = [n for n in graph.node if gemm.output[0] in n.input]
        if flatten is None or flatten.op_type != "Reshape" or readers.get(flatten.output[0]) != 1 \
                or len(unflatten) != 1 or unflatten[0].op_type != "Reshape" or gemm.output[0] in outputs:
            continue
        position = list(graph.node).index(gemm)
        product = f"{gemm.output[0]}_product"
        matmul = helper.make_node("MatMul", [flatten.input[0], gemm.input[1]], [product],
                                  name=f"{gemm.name}_matmul")
        add = helper.make_node("Add", [product, gemm.input[2]], [unflatten[0].output[0]], name=f"{gemm.name}_bias")
        for node in (gemm, unflatten[0]):
            graph.node.remove(node)
        graph.node.insert(position, matmul)
        graph.node.insert(position + 1, add)
        edited += 1
    if not edited:
        raise ValueError("fix_ubfusion: the graph has no Gemm between two Reshapes")
    _drop_unread(graph)


def _split_fused_qkv(graph: onnx.GraphProto, shapes: dict[str, list[int | str]], batch: int) -> None:
    """Each Split of a fused projection's last axis into equal parts as one
    projection per part, and the key's head permute as the query's and a swap of
    the last two axes (``fix_attention_qkv`` of the vendor's script)."""
    producers = {o: n for n in graph.node for o in n.output}
    weights = {i.name: i for i in graph.initializer}
    splits = [n for n in graph.node if n.op_type == "Split"]
    edited = 0
    for split in splits:
        fused = _fused_projection(split, producers, weights, shapes)
        if fused is None:
            continue
        reshape, add, matmul = fused
        parts = len(split.output)
        inputs = list(matmul.input)
        transposed = matmul.op_type == "Gemm" and any(a.name == "transB" and a.i for a in matmul.attribute)
        weight = weights[inputs[1]]
        bias_name = (inputs[2] if matmul.op_type == "Gemm" and len(inputs) > 2 and inputs[2] else
                     next((x for x in add.input if x in weights), None) if add is not None else None)
        new_nodes: list[onnx.NodeProto] = []
        for part, name in enumerate(split.output):
            part_weight = _part_of(weight, part, parts, axis=0 if transposed else -1)
            part_bias = _part_of(weights[bias_name], part, parts, axis=-1) if bias_name else None
            graph.initializer.extend(t for t in (part_weight, part_bias) if t is not None)
            out = f"{name}_projection"
            node = onnx.NodeProto()
            node.CopyFrom(matmul)
            node.name = f"{matmul.name or out}_{part}"
            del node.input[:]
            node.input.extend([inputs[0], part_weight.name])
            if matmul.op_type == "Gemm" and part_bias is not None:
                node.input.append(part_bias.name)
            del node.output[:]
            node.output.append(out)
            new_nodes.append(node)
            if add is not None and part_bias is not None:
                new_nodes.append(helper.make_node("Add", [out, part_bias.name], [f"{out}_bias"],
                                                  name=f"{add.name or out}_{part}"))
                out = f"{out}_bias"
            if reshape is not None:
                # the fused result's (batch, tokens, 3 x width) view, a part's width wide
                shape_name = f"{out}_shape"
                width = int(part_weight.dims[0 if transposed else -1])
                graph.initializer.append(numpy_helper.from_array(np.array([batch, -1, width], dtype=np.int64),
                                                                 shape_name))
                new_nodes.append(helper.make_node("Reshape", [out, shape_name], [name], name=f"{out}_reshape"))
            else:
                new_nodes[-1].output[0] = name
        position = list(graph.node).index(split)
        graph.node.remove(split)
        for offset, node in enumerate(new_nodes):
            graph.node.insert(position + offset, node)
        _key_permute_as_query(graph, split.output)
        edited += 1
    if not edited:
        raise ValueError("fix_attention_qkv: the graph has no Split of a projection's last axis into equal parts")
    _drop_unread(graph)


def _fused_projection(split: onnx.NodeProto, producers: dict[str, onnx.NodeProto],
                      weights: dict[str, onnx.TensorProto], shapes: dict[str, list[int | str]]
                      ) -> "tuple[onnx.NodeProto | None, onnx.NodeProto | None, onnx.NodeProto] | None":
    """(reshape, bias add, MatMul or Gemm) that make the value ``split`` splits
    into equal parts along its last axis, or None when it is not such a split."""
    if len(split.output) < 2:
        return None
    rank = len(shapes.get(split.input[0], []))
    axis = next((a.i for a in split.attribute if a.name == "axis"), 0)
    if rank == 0 or axis % rank != rank - 1:
        return None
    sizes = next((list(a.ints) for a in split.attribute if a.name == "split"), None)  # before opset 13
    if len(split.input) > 1 and split.input[1]:
        given = _constant(split.input[1], producers, weights)
        if given is None:
            return None
        sizes = given.tolist()
    if sizes is not None and len(set(sizes)) != 1:
        return None
    reshape, add = None, None
    node = producers.get(split.input[0])
    if node is not None and node.op_type == "Reshape":
        if rank != 3:  # the parts are reshaped back as (batch, tokens, width)
            return None
        reshape, node = node, producers.get(node.input[0])
    if node is not None and node.op_type == "Add" and any(x in weights for x in node.input):
        add = node
        node = next((producers.get(x) for x in node.input if x not in weights), None)
    if node is None or node.op_type not in ("MatMul", "Gemm") or node.input[1] not in weights:
        return None
    if node.op_type == "Gemm" and (len(node.input) > 2 and node.input[2] and node.input[2] not in weights
                                   or any(a.name == "transA" and a.i for a in node.attribute)):
        return None
    if len(weights[node.input[1]].dims) != 2:
        return None
    return reshape, add, node


def _constant(name: str, producers: dict[str, onnx.NodeProto],
              weights: dict[str, onnx.TensorProto]) -> "np.ndarray | None":
    """The value of ``name`` where an initializer or a Constant node holds it."""
    if name in weights:
        return numpy_helper.to_array(weights[name])
    node = producers.get(name)
    if node is not None and node.op_type == "Constant":
        return next((numpy_helper.to_array(a.t) for a in node.attribute if a.name == "value"), None)
    return None


def _drop_unread(graph: onnx.GraphProto) -> None:
    """Every node none of whose results is read, until none is left."""
    while True:
        read = {x for n in graph.node for x in n.input} | {v.name for v in graph.output}
        unread = [n for n in graph.node if not any(o in read for o in n.output)]
        if not unread:
            return
        for node in unread:
            graph.node.remove(node)


def _part_of(tensor: onnx.TensorProto, part: int, parts: int, axis: int) -> onnx.TensorProto:
    """Part ``part`` of ``parts`` equal parts of ``tensor`` along ``axis``: its
    values where it has them, else a tensor as absent as it is (its shape only)."""
    dims = list(tensor.dims)
    size = dims[axis] // parts
    name = f"{tensor.name}_part{part}"
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        dims[axis] = size
        part_tensor = onnx.TensorProto(name=name, data_type=tensor.data_type, dims=dims,
                                       data_location=onnx.TensorProto.EXTERNAL)
        part_tensor.external_data.add(key="location", value=f"{name}.absent")
        return part_tensor
    values = numpy_helper.to_array(tensor)
    return numpy_helper.from_array(np.ascontiguousarray(np.split(values, parts, axis=axis)[part]), name)


def _permute_keys_as_queries(graph: onnx.GraphProto) -> None:
    """Each attention's key permuted as its query (:func:`_key_permute_as_query`):
    the three MatMuls of one activation, each through its bias Add if it has one."""
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for x in node.input:
            consumers.setdefault(x, []).append(node)
    for name, readers in list(consumers.items()):
        matmuls = [n for n in readers if n.op_type == "MatMul" and n.input[0] == name]
        if len(matmuls) != 3:
            continue
        parts = []
        for matmul in matmuls:
            after = consumers.get(matmul.output[0], [])
            parts.append(after[0].output[0] if len(after) == 1 and after[0].op_type == "Add" else matmul.output[0])
        _key_permute_as_query(graph, parts)


def _key_permute_as_query(graph: onnx.GraphProto, parts: Sequence[str]) -> None:
    """The part whose head permute differs from the other two (the key's
    ``[0, 2, 3, 1]``) permuted as they are, then its last two axes swapped."""
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for x in node.input:
            consumers.setdefault(x, []).append(node)
    permutes = []
    for name in parts:
        reshapes = [n for n in consumers.get(name, []) if n.op_type == "Reshape"]
        after = consumers.get(reshapes[0].output[0], []) if len(reshapes) == 1 else []
        transposes = [n for n in after if n.op_type == "Transpose"]
        if len(transposes) != 1:
            return
        permutes.append(transposes[0])
    perms = [list(next(a.ints for a in t.attribute if a.name == "perm")) for t in permutes]
    odd = [i for i, p in enumerate(perms) if perms.count(p) == 1]
    if len(perms) < 3 or len(odd) != 1:
        return
    key, query_perm = permutes[odd[0]], perms[(odd[0] + 1) % len(perms)]
    key_perm = perms[odd[0]]
    swap = [query_perm.index(axis) for axis in key_perm]
    for attribute in key.attribute:
        if attribute.name == "perm":
            del attribute.ints[:]
            attribute.ints.extend(query_perm)
    permuted = f"{key.output[0]}_as_query"
    after = helper.make_node("Transpose", [permuted], [key.output[0]], perm=swap, name=f"{key.name}_after")
    key.output[0] = permuted
    graph.node.insert(list(graph.node).index(key) + 1, after)
