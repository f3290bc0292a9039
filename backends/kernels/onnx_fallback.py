"""The AICPU fallback: run an ONNX op that has no native kernel through
``onnx.reference.ReferenceEvaluator``, the way GE falls back to AICPU kernels.

``ge.onnx_op`` names the ONNX op in three attributes (:data:`META_ATTRIBUTES`)
next to the op's own attributes::

    %y = ge.onnx_op %x {op_type = "Det", domain = "", opset = 21} : ...

and gets one result per output of the op's schema, optional outputs included.

Each evaluator is built once per (op, attributes, input dtypes and ranks) and
cached, since building one (model construction plus the evaluator's own setup)
costs far more than running a small op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from . import DTYPE_ATTRIBUTES, KERNELS, Attrs, Inputs, Kernel

#: ``ge.onnx_op`` attributes naming the ONNX op (as the ge dialect declares them);
#: every other attribute is the op's own.
OP_TYPE_ATTR = "op_type"
DOMAIN_ATTR = "domain"
OPSET_ATTR = "opset"
META_ATTRIBUTES = frozenset({OP_TYPE_ATTR, DOMAIN_ATTR, OPSET_ATTR})

#: IR version written into the one-node models; the evaluator only needs it to be valid.
_IR_VERSION = 10


def _elem_type(array: np.ndarray) -> int:
    """ONNX element type of an array (object/str arrays are STRING tensors)."""
    if array.dtype == object or array.dtype.kind in "US":
        return onnx.TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(array.dtype)


def _schema(op_type: str, domain: str, opset: int) -> onnx.defs.OpSchema | None:
    try:
        return onnx.defs.get_schema(op_type, opset, domain)
    except onnx.defs.SchemaError:
        return None


def _schema_attr_type(op_type: str, domain: str, opset: int, name: str) -> int | None:
    """The declared attribute type, needed to encode empty lists; None if unknown."""
    schema = _schema(op_type, domain, opset)
    attr = None if schema is None else schema.attributes.get(name)
    return None if attr is None else attr.type


def own_attributes(op_type: str, domain: str, opset: int, attrs: dict[str, Any]) -> dict[str, Any]:
    """The attributes the op's schema declares; others (such as the ``engine`` or
    ``stream`` decisions passes attach to ge ops) are dropped.  Ops without a known
    schema keep everything."""
    schema = _schema(op_type, domain, opset)
    if schema is None:
        return dict(attrs)
    return {k: v for k, v in attrs.items() if k in schema.attributes}


def _make_attribute(op_type: str, domain: str, opset: int, name: str, value: Any) -> onnx.AttributeProto:
    """Encode a kernel-style attribute value back into an ``AttributeProto``."""
    if isinstance(value, np.dtype) or (name in DTYPE_ATTRIBUTES and isinstance(value, type)):
        return helper.make_attribute(name, helper.np_dtype_to_tensor_dtype(np.dtype(value)))
    if isinstance(value, np.ndarray):
        return helper.make_attribute(name, numpy_helper.from_array(value))
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple)):
        value = [numpy_helper.from_array(v) if isinstance(v, np.ndarray)
                 else v.item() if isinstance(v, np.generic) else v for v in value]
        if not value:
            attr_type = _schema_attr_type(op_type, domain, opset, name)
            return helper.make_attribute(name, value, attr_type=attr_type or onnx.AttributeProto.INTS)
    return helper.make_attribute(name, value)


def _attrs_key(attrs: dict[str, Any]) -> str:
    """A hashable, exact description of the attributes for the evaluator cache."""
    parts = []
    for name in sorted(attrs):
        value = attrs[name]
        if isinstance(value, np.ndarray):
            value = (value.dtype.str, value.shape, value.tobytes())
        elif isinstance(value, (list, tuple)):
            value = [(v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else v
                     for v in value]
        elif isinstance(value, onnx.GraphProto | onnx.TypeProto | onnx.SparseTensorProto):
            value = value.SerializeToString()
        parts.append(f"{name}={value!r}")
    return ";".join(parts)


def build_model(op_type: str, domain: str, opset: int, inputs: Sequence[np.ndarray | None],
                attrs: dict[str, Any], num_outputs: int) -> onnx.ModelProto:
    """A one-node model running ``op_type`` on ``inputs`` (``None`` = omitted input)."""
    input_names = [f"x{i}" if x is not None else "" for i, x in enumerate(inputs)]
    while input_names and not input_names[-1]:
        input_names.pop()
    output_names = [f"y{i}" for i in range(num_outputs)]
    node = helper.make_node(op_type, input_names, output_names, domain=domain or None)
    node.attribute.extend(_make_attribute(op_type, domain, opset, k, v) for k, v in attrs.items())
    graph_inputs = [helper.make_tensor_value_info(name, _elem_type(x), [None] * x.ndim)
                    for name, x in zip(input_names, inputs) if name]
    graph_outputs = [helper.make_empty_tensor_value_info(name) for name in output_names]
    graph = helper.make_graph([node], f"onnx_fallback_{op_type}", graph_inputs, graph_outputs)
    opsets = [helper.make_opsetid(domain, opset)]
    if domain not in ("", "ai.onnx"):
        opsets.append(helper.make_opsetid("", onnx.defs.onnx_opset_version()))
    return helper.make_model(graph, opset_imports=opsets, ir_version=_IR_VERSION)


#: ONNX ops whose reference implementation draws random numbers, seeded by a ``seed`` attribute
UNSEEDED_RANDOM_OPS = frozenset({"Bernoulli", "RandomUniform", "RandomUniformLike", "RandomNormal",
                                 "RandomNormalLike", "Multinomial"})


def run_onnx_op(op_type: str, domain: str, opset: int, inputs: Sequence[np.ndarray | None],
                attrs: dict[str, Any], num_outputs: int) -> list[np.ndarray]:
    """Run one ONNX op through the reference evaluator and return all its outputs.

    Args:
        op_type, domain, opset: the op and the opset version of its domain.
        inputs: in ONNX input order, ``None`` for an omitted optional input.
        attrs: kernel-style attributes (see ``onnx_node_attributes``).
        num_outputs: how many outputs the node has.
    """
    arrays = [None if x is None else np.asarray(x) for x in inputs]
    own = own_attributes(op_type, domain, opset, attrs)
    if op_type in UNSEEDED_RANDOM_OPS and domain in ("", "ai.onnx") and "seed" not in own:
        # the reference draws from a fresh, unseeded generator: fix it, so that every
        # run (interpreter, emulator, test) of a model gives the same numbers
        own["seed"] = 0.0
    evaluator = _evaluator(op_type, domain, opset, arrays, own, num_outputs)
    feeds = {f"x{i}": x for i, x in enumerate(arrays) if x is not None}
    return [_as_onnx_array(y, feeds.values()) for y in evaluator.run(None, feeds)]


def _as_onnx_array(value: Any, inputs: Any) -> np.ndarray:
    """An evaluator output as an ndarray that shares no memory with the inputs
    (Identity-like ops return them as is); STRING tensors use numpy's object dtype."""
    array = np.asarray(value)
    if array.dtype.kind in "US":
        return array.astype(object)
    if any(np.may_share_memory(array, x) for x in inputs):
        return array.copy()
    return array


#: built evaluators, oldest first, keyed by op, attributes and input dtypes/ranks
_EVALUATORS: dict[tuple[Any, ...], ReferenceEvaluator] = {}
_MAX_CACHED = 512


def _evaluator(op_type: str, domain: str, opset: int, inputs: Sequence[np.ndarray | None],
               attrs: dict[str, Any], num_outputs: int) -> ReferenceEvaluator:
    """The evaluator for this op signature, built on first use.

    Value infos carry only dtypes and ranks, so one evaluator serves every shape.
    """
    signature = tuple(None if x is None else (x.dtype.str, x.ndim) for x in inputs)
    key = (op_type, domain, opset, _attrs_key(attrs), signature, num_outputs)
    evaluator = _EVALUATORS.get(key)
    if evaluator is None:
        if len(_EVALUATORS) >= _MAX_CACHED:  # bounded: dynamic shapes/attrs must not leak
            _EVALUATORS.pop(next(iter(_EVALUATORS)))
        model = build_model(op_type, domain, opset, inputs, attrs, num_outputs)
        try:
            evaluator = ReferenceEvaluator(model)
        except NotImplementedError:  # its message lists every op onnx.reference knows
            from geir.backends.kernel_dispatch import KernelError
            raise KernelError(f"no kernel computes ONNX op '{op_type}' (domain '{domain or 'ai.onnx'}'): "
                              "onnx.reference does not implement it, so its values cannot be computed "
                              "(ge-run --timing-only emulates its time)") from None
        _EVALUATORS[key] = evaluator
    return evaluator


def latest_opset(op_type: str, domain: str) -> int:
    """The newest opset version of ``domain`` defining ``op_type``."""
    return onnx.defs.get_schema(op_type, domain=domain).since_version


def schema_output_count(op_type: str, domain: str, opset: int) -> int:
    """How many outputs the op's schema declares (optional ones included).

    Raises:
        ValueError: the op is unknown or has variadic outputs, whose count only
            the caller knows; call :func:`run_onnx_op` with ``num_outputs``.
    """
    schema = _schema(op_type, domain, opset)
    if schema is None:
        raise ValueError(f"no ONNX schema for {domain or 'ai.onnx'}::{op_type} at opset {opset}")
    if any(o.option == onnx.defs.OpSchema.FormalParameterOption.Variadic for o in schema.outputs):
        raise ValueError(f"{op_type} has variadic outputs; call run_onnx_op with num_outputs")
    return len(schema.outputs)


def kernel_or_fallback(op_type: str, domain: str = "", opset: int | None = None,
                       num_outputs: int | None = None) -> Kernel:
    """The native kernel of an ONNX op, or a kernel running it through :func:`run_onnx_op`.

    For ge ops whose ``onnx_op`` has no native kernel (LSTM, RoiAlign, ...):
    ``num_outputs`` defaults to the schema's output count, ``opset`` to the newest.
    """
    if domain in ("", "ai.onnx") and op_type in KERNELS:
        return KERNELS[op_type]
    version = latest_opset(op_type, domain) if opset is None else opset
    count = schema_output_count(op_type, domain, version) if num_outputs is None else num_outputs

    def fallback(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
        return run_onnx_op(op_type, domain, version, inputs, attrs, count)

    return fallback


def onnx_op(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """``ge.onnx_op``: the ONNX op named by :data:`META_ATTRIBUTES` (``opset``
    defaults to the newest), run by the reference evaluator, every schema output returned."""
    op_type = attrs[OP_TYPE_ATTR]
    domain = attrs.get(DOMAIN_ATTR, "") or ""
    opset = attrs.get(OPSET_ATTR)
    opset = latest_opset(op_type, domain) if opset is None else int(opset)
    own = {k: v for k, v in attrs.items() if k not in META_ATTRIBUTES}
    return run_onnx_op(op_type, domain, opset, inputs, own,
                       schema_output_count(op_type, domain, opset))
