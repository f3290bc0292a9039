"""ONNX ops defined as functions, expanded into the ops of their bodies.

Some standard ONNX ops (``Attention`` and ``RotaryEmbedding`` of opset 23,
``SwiGLU``, the window functions) are specified by a function: a body of more
primitive ops, fixed or built from the node's attributes and input types. An op
geir has no ``ge`` counterpart for would otherwise import as one ``ge.onnx_op``
run on AICPU; where every op of its body has a counterpart, it is replaced by
that body instead, as onnxruntime and OpenVINO expand the function ops they
have no kernel for. The body's shape arithmetic then folds like any other.
"""

from __future__ import annotations

from collections import ChainMap
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

if TYPE_CHECKING:
    import onnx

__all__ = ["expand_function_ops", "EXPANDED_DOMAIN"]

#: the private domain an expanded node's body is inlined from
EXPANDED_DOMAIN = "geir.expanded"


def expand_function_ops(model: "onnx.ModelProto", opset: int, native: Callable[[str], bool]) -> "onnx.ModelProto":
    """``model`` with each node of the default domain that ``native`` refuses, and
    whose schema at ``opset`` defines it as a function of ops that ``native``
    accepts, replaced by that function's body (the same model when none is), in
    the main graph and in the bodies of its control flow. ``model`` holds
    inferred value types: a context-dependent body is built from the node's
    input types."""
    import onnx
    import onnx.inliner

    functions: list[onnx.FunctionProto] = []
    for node, types in _nodes_with_types(model.graph):
        if node.domain not in ("", "ai.onnx") or native(node.op_type):
            continue
        body = _function_body(node, opset, types)
        if body is None or not all(n.domain in ("", "ai.onnx") and (native(n.op_type) or n.op_type == "Constant")
                                   for n in body.node):
            continue
        _state_defaults(node, opset)
        for i, inner in enumerate(body.node):  # located at the node they expand
            inner.name = f"{node.name or node.op_type}/{inner.name or f'{inner.op_type}_{i}'}"
        body.domain, body.name = EXPANDED_DOMAIN, f"{node.op_type}_{len(functions)}"
        node.domain, node.op_type = body.domain, body.name
        functions.append(body)
    if not functions:
        return model
    model.functions.extend(functions)
    model.opset_import.add(domain=EXPANDED_DOMAIN, version=1)
    expanded = onnx.inliner.inline_local_functions(model)
    kept = [entry for entry in expanded.opset_import if entry.domain != EXPANDED_DOMAIN]
    del expanded.opset_import[:]
    expanded.opset_import.extend(kept)
    return expanded


def _state_defaults(node: "onnx.NodeProto", opset: int) -> None:
    """Give ``node`` every attribute its schema defaults that it leaves out: the
    inliner fills a body's attribute references from the node alone, and drops
    a reference the node does not set."""
    import onnx
    given = {a.name for a in node.attribute}
    for name, attr in onnx.defs.get_schema(node.op_type, opset, "").attributes.items():
        if name not in given and attr.default_value.name:
            node.attribute.append(attr.default_value)


def _nodes_with_types(graph: "onnx.GraphProto") -> "Iterator[tuple[onnx.NodeProto, Mapping[str, onnx.TypeProto]]]":
    """Each node of ``graph`` and of the graphs its nodes hold (If branches, Loop and
    Scan bodies, at any depth, walked with a stack), with the types of the values
    it can see: its own graph's and every enclosing one's."""
    import onnx
    stack: list[tuple[onnx.GraphProto, Mapping[str, onnx.TypeProto]]] = [(graph, {})]
    while stack:
        current, outer = stack.pop()
        # a chain, not a copy: a model with many branches would copy the outer scope into each
        types = ChainMap(_value_types(current), outer)
        for node in current.node:
            yield node, types
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    stack.append((attr.g, types))
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    stack.extend((g, types) for g in attr.graphs)


def _value_types(graph: "onnx.GraphProto") -> "dict[str, onnx.TypeProto]":
    """Each of ``graph``'s value types: inputs, outputs, inferred values, initializers."""
    import onnx
    types = {v.name: v.type for v in (*graph.input, *graph.output, *graph.value_info)}
    for t in graph.initializer:
        types.setdefault(t.name, onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims)))
    return types


def _function_body(node: "onnx.NodeProto", opset: int,
                   types: "Mapping[str, onnx.TypeProto]") -> "onnx.FunctionProto | None":
    """The function ``node``'s op is at ``opset``: its newest body not newer
    than ``opset``, or None when the schema defines none (or cannot build one)."""
    import onnx
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "")
    except onnx.defs.SchemaError:
        return None
    raw: bytes | None = None
    try:
        if schema.has_context_dependent_function:
            versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
            if versions:
                inputs = [types[i].SerializeToString() if i in types else onnx.TypeProto().SerializeToString()
                          for i in node.input]
                raw = schema.get_context_dependent_function_with_opset_version(
                    max(versions), node.SerializeToString(), inputs)
        elif schema.has_function:
            versions = [v for v in schema.function_opset_versions if v <= opset]
            if versions:
                raw = schema.get_function_with_opset_version(max(versions))
    except Exception:  # noqa: BLE001 - a builder refuses input types it cannot expand for (an unknown rank)
        return None
    if not raw:
        return None
    body = onnx.FunctionProto()
    body.ParseFromString(raw)
    return body if body.node else None
