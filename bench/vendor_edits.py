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

Other edits the notes name (onnxsim, splitting a fused projection) keep the work
the same and are not redone.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

#: the edits this module redoes, by the name the vendor's script and the rows' notes use
EDITS = ("pad_nz_block", "merge_bmm_axis")
#: rows of one FRACTAL_NZ fractal: what pad_nz_block pads the tokens to a multiple of
NZ_ROWS = 16
#: the ops a merged (batch x tokens, n) MatMul result stays 2-D through when their
#: other operands are constants (a bias, GELU's scalars)
ELEMENTWISE = frozenset({"Add", "Sub", "Mul", "Div", "Erf", "Sqrt", "Pow", "Tanh", "Sigmoid", "Relu", "Gelu",
                         "Neg", "Exp", "Cast"})


def vendor_edits(notes: str) -> tuple[str, ...]:
    """The edits of :data:`EDITS` that a row's notes say the vendor made, in the order
    ``opt_vit.py`` applies them."""
    return tuple(e for e in EDITS if e in notes)


def apply_edits(model: onnx.ModelProto, edits: Sequence[str], batch: int) -> onnx.ModelProto:
    """``model`` with ``edits`` made, at ``batch`` (the padding and the reshapes
    are written for it). Returns a copy; ``model`` is not changed."""
    if not edits:
        return model
    edited = onnx.ModelProto()
    edited.CopyFrom(model)
    for edit in edits:
        shapes = _shapes(edited)
        if edit == "merge_bmm_axis":
            _merge_bmm_axis(edited.graph, shapes, batch)
        elif edit == "pad_nz_block":
            _pad_tokens(edited.graph, shapes, batch)
        else:
            raise ValueError(f"unknown vendor edit '{edit}' (known: {', '.join(EDITS)})")
    return edited


def _shapes(model: onnx.ModelProto) -> dict[str, list[int | str]]:
    """Every value's inferred shape (a symbolic dim by its name)."""
    inferred = onnx.shape_inference.infer_shapes(model)
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
