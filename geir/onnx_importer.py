"""ONNX -> ``ge`` dialect: :func:`import_onnx`.

The importer leans on the ``onnx`` package for everything ONNX already knows:
loading (external data too), the checker, and shape inference (strict mode, so
a declared type that disagrees with inference is an error). Both see each
weight of more than :data:`STAND_IN_BYTES` as a graph input of its type (both
serialize the whole model, and no shape depends on so large a tensor's values);
the importer checks that weight's data as it reads it. It then maps each
node to the ``ge`` op :data:`geir.dialects.ge.ONNX_TO_GE` names, with the ONNX
inputs as operands in ONNX order and the ONNX attributes under their ONNX names
(:func:`geir.onnx_attributes.from_onnx_attribute`), and finally runs the
verifier, which cross-checks every result type against ``ge``'s own inference.

Mapping rules (``lit_tests/import/`` has a test of each; Scan is covered by the
ONNX conformance suite):

* the graph is ``ge.graph @main``; graph inputs/outputs keep their ONNX names as
  ``{ge.name = "..."}`` argument/result attributes; SSA names are the ONNX
  tensor names, sanitized;
* every op carries ``loc("<node name>")`` (``<OpType>_<index>`` when unnamed);
* initializers become ``ge.weights``, Constant nodes ``ge.const``; their value
  is a ``dense_resource`` blob in the module (``dense<...>`` inline for at most
  :data:`INLINE_CONSTANT_LIMIT` elements), so one text file holds the model;
* an initializer whose external data file is not there (a graph exported
  without its weights) is ``dense_resource<name>`` with no blob, its type kept:
  the module runs timing-only (:mod:`geir.absent_weights`);
* a dim is read as onnxruntime reads it: a negative ``dim_value`` (-1 from
  PaddlePaddle) or none is ``?``, 0 is a static empty dim;
* an optional input omitted in the middle is a ``ge.none`` operand;
* If / Loop / Scan become ``ge.if`` / ``ge.loop`` / ``ge.scan`` whose regions end
  in ``ge.yield``; a subgraph reads outer values directly;
* an op with no ``ge`` counterpart (or in a form the ``ge`` op does not take,
  such as an attribute of an old opset) becomes ``ge.onnx_op {op_type, domain,
  opset}`` with its attributes; ``strict=True`` makes each of those an error;
* a dynamic input dim is ``?`` in the type; its ONNX name (``dim_param``) is
  kept in a ``ge.symbols = ["batch", "", ...]`` argument attribute (one entry per
  dim, ``""`` for a static or unnamed one), and on results whose dims carry an
  input's symbol, so that a user binds sizes by name; ``input_shapes`` binds
  them at import (by input name, or by symbol name for one dim).

Opsets 7 to the newest the installed ``onnx`` knows are imported as they are;
older models are first upgraded to opset 7 by ``onnx.version_converter``. A ge
op has the newest opset's meaning, so the few older forms that mean something
else with the same inputs are rewritten: Softmax/LogSoftmax/Hardmax before 13
(2-D coercion: flatten, normalise, reshape back), Resize-10 (= Upsample),
Dropout-7's float mask (dropped when unread), Concat-1's default axis,
BatchNormalization-7's ``spatial = 1``, and PRelu-6's per-channel slope.
"""

from __future__ import annotations

import functools
import math
import os
import re
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np

from geir.attributes import (ArrayAttr, Attribute, DenseElementsAttr, DenseResourceAttr, DictionaryAttr,
                             IntegerAttr, Location, NameLoc, ResourceBlob, StringAttr, TypeAttr)
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.module import Module
from geir.onnx_sequences import resolve_static_sequences
from geir.opdef import ATTR_KINDS, Attrs, InferContext, InferError, OpDef
from geir.operation import Block, OpResult, Operation, Region, Value
from geir.types import F32, I1, I64, NONE, ElementType, FunctionType, TensorType, Type

if TYPE_CHECKING:  # onnx is imported lazily: ``import geir`` must stay cheap
    import onnx

__all__ = ["import_onnx", "INLINE_CONSTANT_LIMIT", "MIN_OPSET", "STAND_IN_BYTES"]

#: constants with at most this many elements print inline as ``dense<...>``
INLINE_CONSTANT_LIMIT = 16
#: the oldest default-domain opset imported as is; older models are upgraded to it
MIN_OPSET = 7
_DEFAULT_DOMAINS = ("", "ai.onnx")
#: ONNX subgraph-holding ops and the ge ops their regions become
_CONTROL_OPS = {"If": "ge.if", "Loop": "ge.loop", "Scan": "ge.scan"}
#: ops whose pre-13 form coerces the input to 2-D at ``axis`` (default 1)
_COERCE_TO_2D_BEFORE_13 = frozenset({"Softmax", "LogSoftmax", "Hardmax"})
_UNRANKED_F32 = TensorType(None, F32)


# ===================================================================== entry


def import_onnx(source: "str | bytes | os.PathLike[str] | onnx.ModelProto", *,
                input_shapes: dict[str, tuple[int, ...]] | None = None, strict: bool = False,
                elide_weights: bool = False) -> Module:
    """Import an ONNX model as a ``ge`` module holding ``ge.graph @main``.

    Args:
        source: a model file path, the raw bytes of a model, or a ``ModelProto``.
        input_shapes: shapes binding the dynamic dims of graph inputs: by input
            name (a whole shape), or by symbolic dim name (a 1-tuple, binding that
            dim in every input). Unbound dims stay dynamic (``?``).
        strict: make every op without a native ``ge`` op an error (instead of
            ``ge.onnx_op``), naming each such op and node.
        elide_weights: import every constant of more than
            :data:`INLINE_CONSTANT_LIMIT` elements without its bytes (types
            kept), as a graph whose weights file is absent imports.

    An initializer kept in an external data file that is not there imports
    without its bytes: ``dense_resource<name>`` with no blob (MLIR's elided
    resource). The module compiles and emulates timing-only;
    :func:`geir.module_has_absent_weights` tells, and whatever needs the values
    stops with a diagnostic naming the first such weight.

    Raises:
        DiagnosticError: the model cannot be read, fails the ONNX checker or shape
            inference, uses an unknown opset, binds a shape that does not fit
            an input or names no input or symbol, uses an unsupported type or (with ``strict``) an op with no ge
            counterpart; every message names the node (or input) at fault.
    """
    import onnx
    owned = not isinstance(source, onnx.ModelProto)  # a proto is the caller's: imported from a copy
    # eliding, a large initializer's external bytes would be read only to be dropped
    model, where = _load(source, read_large_external=not elide_weights)
    original_opset = _default_opset(model)
    model, initializers = _prepare(model, where, input_shapes or {}, copy=not owned)
    upgraded = original_opset is not None and original_opset < MIN_OPSET
    return _Importer(model, where, strict, upgraded, elide_weights, initializers).run()


# ================================================================= loading


def _fail(message: str, where: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, NameLoc(where)))


def _load(source: Any, read_large_external: bool = True) -> "tuple[onnx.ModelProto, str]":
    """The model and the name diagnostics use for it. Without ``read_large_external``
    the main graph's external initializers of more than :data:`INLINE_CONSTANT_LIMIT`
    elements stay unread, as if their file were absent."""
    import onnx
    from google.protobuf.message import DecodeError
    if isinstance(source, onnx.ModelProto):
        return source, source.graph.name or "<model>"
    if isinstance(source, (bytes, bytearray, memoryview)):
        where, data, path = "<bytes>", bytes(source), None
    else:
        path = os.fspath(source)
        where = path
        with open(path, "rb") as f:  # FileNotFoundError is the caller's to report
            data = f.read()
    try:
        model = onnx.load_from_string(data)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise _fail(f"not a readable ONNX model (truncated or not ONNX): {_first_line(str(e))}", where) from None
    if not model.HasField("graph") and not model.opset_import:
        raise _fail("not an ONNX model: no graph and no opset import", where)
    if _uses_external_data(model):
        base_dir = os.path.dirname(os.path.abspath(path)) if path is not None else None
        _load_external_data(model, where, base_dir, read_large_external)
    return model, where


def _load_external_data(model: "onnx.ModelProto", where: str, base_dir: str | None,
                        read_large: bool = True) -> None:
    """Read each external tensor whose data file is there (``base_dir`` is the
    model's folder; None for a model given as bytes). A tensor whose file is
    missing stays external: its weight imports without its bytes (the graph
    then runs timing-only). Without ``read_large`` a main-graph initializer of
    more than :data:`INLINE_CONSTANT_LIMIT` elements stays external too."""
    import onnx
    from onnx import TensorProto
    from onnx.external_data_helper import ExternalDataInfo, _get_all_tensors, load_external_data_for_tensor
    main = len(model.graph.initializer)  # onnx lists the main graph's initializers first
    for index, tensor in enumerate(_get_all_tensors(model)):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        if not read_large and index < main and math.prod(tensor.dims) > INLINE_CONSTANT_LIMIT:
            continue
        try:
            info = ExternalDataInfo(tensor)
        except ValueError as e:
            raise _fail(f"tensor '{tensor.name}' has malformed external data: {_first_line(str(e))}", where) from None
        if base_dir is None or not info.location or not os.path.isfile(os.path.join(base_dir, info.location)):
            continue
        try:
            load_external_data_for_tensor(tensor, base_dir)
        except (OSError, ValueError, onnx.checker.ValidationError) as e:
            raise _fail(f"tensor '{tensor.name}': cannot load external data: {_first_line(str(e))}", where) from None


def _uses_external_data(model: "onnx.ModelProto") -> bool:
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors
    return any(t.data_location == TensorProto.EXTERNAL for t in _get_all_tensors(model))


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else text.strip()


def _default_opset(model: "onnx.ModelProto") -> int | None:
    for entry in model.opset_import:
        if entry.domain in _DEFAULT_DOMAINS:
            return int(entry.version)
    return None


@functools.lru_cache(maxsize=None)
def _max_opset(domain: str) -> int | None:
    """The newest opset of a domain the installed onnx defines, None for custom domains."""
    import onnx
    if domain in _DEFAULT_DOMAINS:
        return onnx.defs.onnx_opset_version()
    versions = [s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.domain == domain]
    return max(versions) if versions else None


def _prepare(model: "onnx.ModelProto", where: str, input_shapes: dict[str, tuple[int, ...]],
             copy: bool = True) -> "tuple[onnx.ModelProto, list[onnx.TensorProto]]":
    """Opset check/upgrade, local functions inlined, input shapes bound, the
    checker, then strict shape inference: the model the importer walks, and the
    main graph's initializers in their ONNX order (the large ones are no longer
    in the model: moving them back would copy every weight once more). With
    ``copy`` the caller's proto is left as it was (without, it is changed)."""
    import onnx
    if copy:
        model_copy = onnx.ModelProto()
        model_copy.CopyFrom(model)
        model = model_copy
    for entry in model.opset_import:
        newest = _max_opset(entry.domain)
        if newest is not None and not 1 <= entry.version <= newest:
            name = entry.domain or "ai.onnx"
            raise _fail(f"unknown opset: {name} version {entry.version} (this onnx knows versions 1 to {newest})",
                        where)
    _unset_negative_dims(model.graph)
    _check_data_types(model, where)
    _bind_input_shapes(model, where, input_shapes)
    order = {t.name: i for i, t in enumerate(model.graph.initializer)}
    stood_in, stand_ins = _stand_in_weights(model, where)
    if model.functions:  # inlined once the weights are out: it serializes the model
        import onnx.inliner
        model = onnx.inliner.inline_local_functions(model)
        _unset_negative_dims(model.graph)
        _check_data_types(model, where)
    _check(model, where)
    opset = _default_opset(model)
    if opset is not None and opset < MIN_OPSET:
        from onnx import version_converter
        try:
            model = version_converter.convert_version(model, MIN_OPSET)
        except Exception as e:  # noqa: BLE001 - the converter raises bare RuntimeErrors
            raise _fail(f"opset {opset} is older than {MIN_OPSET} and could not be upgraded: "
                        f"{_first_line(str(e))}", where) from None
    # lists the graph fixes become their tensors (geir has no sequence type)
    resolve_static_sequences(model)
    model = _infer_shapes(model, where)
    from geir.dialects.ge import ONNX_TO_GE
    from geir.onnx_functions import expand_function_ops
    expanded = expand_function_ops(model, _default_opset(model) or onnx.defs.onnx_opset_version(),
                                   lambda op_type: op_type in ONNX_TO_GE)
    if expanded is not model:  # the bodies' values get their types as the graph's did
        model = _infer_shapes(expanded, where)
    if stand_ins:
        kept = [i for i in model.graph.input if i.name not in stand_ins]
        del model.graph.input[:]
        model.graph.input.extend(kept)
    # in their ONNX order (the order of the ge.weights)
    return model, sorted([*model.graph.initializer, *stood_in], key=lambda t: order.get(t.name, len(order)))


def _unset_negative_dims(graph: "onnx.GraphProto") -> None:
    """A negative ``dim_value`` (PaddlePaddle writes -1 for a dynamic dim) means
    "unknown", as onnxruntime reads it: clear it, so the dim is ``?`` to the
    checker, shape inference and geir alike. (A ``dim_value`` of 0 is a static,
    empty dim, as onnxruntime reads it.) Subgraphs too, without recursion."""
    stack = [graph]
    while stack:
        g = stack.pop()
        for vi in (*g.input, *g.output, *g.value_info):
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
                for dim in vi.type.tensor_type.shape.dim:
                    if dim.HasField("dim_value") and dim.dim_value < 0:
                        dim.ClearField("dim_value")
        for node in g.node:
            for attr in node.attribute:
                if attr.HasField("g"):
                    stack.append(attr.g)
                stack.extend(attr.graphs)


def _check_data_types(model: "onnx.ModelProto", where: str) -> None:
    """Every stored tensor's data type is one ONNX defines (onnx's own shape
    inference fails on the others without saying which tensor)."""
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors
    known = set(TensorProto.DataType.values())
    for tensor in _get_all_tensors(model):
        if tensor.data_type not in known:
            raise _fail(f"tensor '{tensor.name}' has data type {tensor.data_type}, which ONNX does not define", where)


#: an initializer stored in more bytes than this reaches the checker and shape
#: inference as a graph input of its type: no shape depends on the values of so
#: large a tensor (shape, axes, pads and scales operands are a few elements), and
#: each of those steps serializes the whole model (a 890 MB model twice each)
STAND_IN_BYTES = 1 << 16


def _stand_in_weights(model: "onnx.ModelProto", where: str) -> "tuple[list[onnx.TensorProto], set[str]]":
    """Take out of the graph the initializers that the checker and shape inference
    need not read — those without their data (external data not found), which they
    would look for, and those of more than :data:`STAND_IN_BYTES` — each replaced
    by a graph input of its type. Returns them, for the importer to read (it
    checks each one's data as it does), and the names of the stand-ins."""
    from onnx import TensorProto, helper
    graph = model.graph
    taken = [t for t in graph.initializer
             if t.data_location == TensorProto.EXTERNAL or _stored_bytes(t) > STAND_IN_BYTES]
    _reject_other_absent(model, where)
    if not taken:
        return [], set()
    names = {t.name for t in taken}
    kept = [t for t in graph.initializer if t.name not in names]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    declared = {i.name for i in graph.input}
    stand_ins = {t.name for t in taken if t.name not in declared}
    graph.input.extend(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                       for t in taken if t.name in stand_ins)
    return taken, stand_ins


def _stored_bytes(tensor: "onnx.TensorProto") -> int:
    """About the bytes a tensor's dims and data type take, without reading its data."""
    from onnx import helper
    try:
        size = helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
    except (KeyError, ValueError, TypeError):  # a string or undefined type
        size = 1
    return math.prod(tensor.dims) * size


def _reject_other_absent(model: "onnx.ModelProto", where: str) -> None:
    """Only the main graph's initializers may lack their data: a Constant node or
    a subgraph's initializer is read while importing."""
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors
    main = sum(1 for t in model.graph.initializer if t.data_location == TensorProto.EXTERNAL)
    # onnx lists the main graph's initializers first
    others = [t for t in _get_all_tensors(model) if t.data_location == TensorProto.EXTERNAL][main:]
    if others:
        raise _fail(f"tensor '{others[0].name}' keeps its data in an external file that was not found "
                    "(only the main graph's initializers may be imported without their data)", where)


def _bind_input_shapes(model: "onnx.ModelProto", where: str, shapes: dict[str, tuple[int, ...]]) -> None:
    """Write the bound shapes into the graph inputs. A key is an input's name
    (a whole shape) or a symbolic dim's ONNX name (``batch``: one size, for that
    dim in every input). Dims left unbound stay dynamic."""
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    names = [i.name for i in inputs]
    symbols = sorted({d.dim_param for i in inputs if i.type.HasField("tensor_type")
                      for d in i.type.tensor_type.shape.dim if d.dim_param and not d.HasField("dim_value")})
    symbol_sizes: dict[str, int] = {}
    for key, dims in shapes.items():
        if key in names:
            continue
        if key not in symbols:
            known = f"inputs: {', '.join(names) or 'none'}" + (f"; symbolic dims: {', '.join(symbols)}"
                                                              if symbols else "")
            raise _fail(f"input shape given for '{key}', which is not a graph input ({known})", where)
        if len(dims) != 1:
            raise _fail(f"symbolic dim '{key}' is one size, but --input-shape gives {_dims_text(dims)}", where)
        symbol_sizes[key] = dims[0]
    errors: list[Diagnostic] = []
    for value in inputs:
        if not value.type.HasField("tensor_type"):
            continue  # a sequence/optional input: reported as an unsupported type later
        tensor_type = value.type.tensor_type
        dims = list(tensor_type.shape.dim) if tensor_type.HasField("shape") else None
        bound = shapes.get(value.name)
        if bound is not None:
            if dims is not None and len(dims) != len(bound):
                errors.append(Diagnostic("error", f"input '{value.name}' has rank {len(dims)}, but its bound shape "
                                                  f"{_dims_text(bound)} has rank {len(bound)}", NameLoc(value.name)))
                continue
            for k, (dim, size) in enumerate(zip(dims or [], bound)):
                if dim.HasField("dim_value") and dim.dim_value != size:
                    errors.append(Diagnostic("error", f"input '{value.name}' dim {k} is {dim.dim_value}, but the "
                                                      f"bound shape says {size}", NameLoc(value.name)))
                elif dim.dim_param in symbol_sizes and symbol_sizes[dim.dim_param] != size:
                    errors.append(Diagnostic("error", f"input '{value.name}' dim {k} ('{dim.dim_param}') is bound "
                                                      f"to {size}, but '{dim.dim_param}' is bound to "
                                                      f"{symbol_sizes[dim.dim_param]}", NameLoc(value.name)))
            tensor_type.shape.Clear()
            for size in bound:
                tensor_type.shape.dim.add().dim_value = size
            continue
        if dims is None:
            errors.append(Diagnostic("error", f"input '{value.name}' has no shape; bind it with --input-shape "
                                              f"{value.name}=<dims>", NameLoc(value.name)))
            continue
        for dim in dims:
            if dim.dim_param in symbol_sizes and not dim.HasField("dim_value"):
                dim.dim_value = symbol_sizes[dim.dim_param]  # (clears dim_param: a oneof)
    if errors:
        raise DiagnosticError(errors)


def _dim_symbols(type_proto: "onnx.TypeProto", known: set[str] | None = None) -> list[str] | None:
    """The ONNX names of a tensor type's dynamic dims, one entry per dim ("" for
    a static or unnamed dim, and for a name outside ``known``); None when no dim
    is dynamic or the rank is unknown."""
    if not type_proto.HasField("tensor_type") or not type_proto.tensor_type.HasField("shape"):
        return None
    dims = type_proto.tensor_type.shape.dim
    if all(d.HasField("dim_value") for d in dims):
        return None
    out = []
    for d in dims:
        name = d.dim_param if d.HasField("dim_param") else ""
        out.append(name if known is None or name in known else "")
    return out


def _dims_text(dims: Sequence[int]) -> str:
    return "x".join(map(str, dims)) if dims else "(scalar)"


#: how the checker names a node, in its context line or in its message
_CHECKER_NODE_RE = re.compile(r"[Nn]ame: ?(\S*) OpType: (\S+)")


def _check(model: "onnx.ModelProto", where: str) -> None:
    """The ONNX checker; its multi-line message becomes one line naming the node."""
    import onnx
    try:
        onnx.checker.check_model(model)
    except (onnx.checker.ValidationError, ValueError) as e:
        message, _, context = str(e).partition("==> Context:")
        message = " ".join(message.split())
        m = _CHECKER_NODE_RE.search(context) or _CHECKER_NODE_RE.search(message)
        if m:
            raise _fail(f"invalid {m.group(2)} node: {message}{_unregistered_hint(message)}",
                        m.group(1) or m.group(2)) from None
        raise _fail(f"invalid ONNX model: {message}", where) from None


_UNREGISTERED_RE = re.compile(r"No Op registered for (\S+) with domain_version of (\d+)")


def _unregistered_hint(message: str) -> str:
    """Why the checker knows no such op: a later opset's op, or none of ONNX's at
    all (a framework op its exporter left unconverted, as tf2onnx leaves XLA calls)."""
    import onnx

    m = _UNREGISTERED_RE.search(message)
    if m is None:
        return ""
    op_type, opset = m.group(1), int(m.group(2))
    schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.name == op_type]
    if not schemas:
        return f"; '{op_type}' is in no ONNX opset: the exporter left it unconverted"
    since = min((s.since_version for s in schemas if s.domain in ("", "ai.onnx")), default=0)
    if since > opset:
        return f"; '{op_type}' is ONNX's from opset {since}: export the model at opset {since} or later"
    return ""


_INFERENCE_RE = re.compile(r"\(op_type:(\w+)(?:, node name: ([^)]*))?\): \[(\w+)\] (.*)")


def _infer_shapes(model: "onnx.ModelProto", where: str) -> "onnx.ModelProto":
    """ONNX shape inference. Strict mode turns a declared type that disagrees with
    inference into an error; other strict-mode failures (gaps in ONNX's own
    inference functions) fall back to best effort, and ge's inference fills in."""
    from onnx import shape_inference
    try:
        return shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except shape_inference.InferenceError as e:
        conflict = _declared_type_conflict(str(e))
        if conflict is not None:
            node, message = conflict
            raise _fail(message, node or where) from None
    try:
        return shape_inference.infer_shapes(model, check_type=True, strict_mode=False, data_prop=True)
    except shape_inference.InferenceError as e:
        raise _fail(f"ONNX shape inference failed: {_first_line(str(e))}", where) from None


def _declared_type_conflict(text: str) -> tuple[str, str] | None:
    """(node, message) when inference contradicts a declared type, else None."""
    for line in text.splitlines():
        for m in _INFERENCE_RE.finditer(line):
            op_type, node, _, detail = m.groups()
            # ONNX nests messages: the innermost one is the reason
            detail = detail.rsplit("] ", 1)[-1].strip()
            if "existing" in detail and "differ" in detail:
                return node or op_type, (f"{op_type} node: its declared output type disagrees with shape "
                                         f"inference: {detail}")
    return None


# ============================================================== conversion


def _no_schema_hint(op_type: str, domain: str) -> str:
    """What to do when shape inference cannot type an op ONNX has no schema for
    (an onnxruntime contrib op such as ``com.microsoft.QLinearMul``), else ""."""
    import onnx

    if not domain or onnx.defs.has(op_type, domain):
        return ""
    return f" (ONNX has no schema for '{domain}.{op_type}'); give its output types in the model's value_info"


def _sanitize(name: str) -> str | None:
    """An ONNX tensor name as an SSA name hint (None when nothing is left)."""
    s = re.sub(r"[^A-Za-z0-9_$.\-]", "_", name)
    return s or None


def _resource_name(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_$.\-]", "_", name)
    if not s or not (s[0].isalpha() or s[0] == "_"):
        s = "_" + s
    return s


class _UnsupportedType(Exception):
    """An ONNX type or value geir has no counterpart for (sequence, optional,
    string, 4-bit float ...). The message is a predicate ("has a sequence type,
    which ...") that the catcher puts after the subject it names."""


def _element_type(elem_type: int) -> ElementType:
    from geir.onnx_attributes import element_type_from_onnx
    try:
        return element_type_from_onnx(elem_type)
    except ValueError:
        from onnx import TensorProto
        name = TensorProto.DataType.Name(elem_type) if elem_type in TensorProto.DataType.values() else elem_type
        raise _UnsupportedType(f"has the ONNX data type {name}, which geir does not support") from None


def _tensor_type(type_proto: "onnx.TypeProto") -> TensorType | None:
    """The tensor type of an ONNX type; None when inference left it unknown."""
    kind = type_proto.WhichOneof("value")
    if kind is None:
        return None
    if kind != "tensor_type":
        what = {"sequence_type": "a sequence", "optional_type": "an optional", "map_type": "a map",
                "sparse_tensor_type": "a sparse tensor"}.get(kind, kind)
        raise _UnsupportedType(f"has {what} type, which geir does not support")
    tt = type_proto.tensor_type
    if tt.elem_type == 0:
        return None
    et = _element_type(tt.elem_type)
    if not tt.HasField("shape"):
        return TensorType(None, et)
    return TensorType([d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim], et)


def _refine(onnx_type: TensorType | None, ge_type: Type | None) -> Type | None:
    """ONNX's type with the dims only ge's inference knows (it folds constants)."""
    if not isinstance(ge_type, TensorType):
        return onnx_type
    if onnx_type is None or onnx_type.shape is None:
        return ge_type if onnx_type is None or ge_type.element_type is onnx_type.element_type else onnx_type
    if ge_type.shape is None or len(ge_type.shape) != len(onnx_type.shape) \
            or ge_type.element_type is not onnx_type.element_type:
        return onnx_type
    return onnx_type.with_shape([a if a is not None else b for a, b in zip(onnx_type.shape, ge_type.shape)])


class _MalformedTensor(Exception):
    """A tensor whose stored data does not fit its dims and data type; the message
    is a predicate ("holds 20 bytes of raw_data, but ...")."""


#: ONNX data types stored two to a byte
_PACKED_4BIT = frozenset({"INT4", "UINT4", "FLOAT4E2M1"})


def _tensor_array(tensor: "onnx.TensorProto") -> np.ndarray:
    """The value of an ONNX tensor, after checking that its data fits it (the
    checker finds data too short for the dims; this also finds too long, and a
    data type ONNX does not define)."""
    from onnx import TensorProto, helper, numpy_helper
    if tensor.data_type not in TensorProto.DataType.values():
        raise _MalformedTensor(f"has data type {tensor.data_type}, which ONNX does not define")
    type_name = TensorProto.DataType.Name(tensor.data_type)
    if any(d < 0 for d in tensor.dims):
        raise _MalformedTensor(f"has a negative dim in {list(tensor.dims)}")
    if tensor.HasField("raw_data") and tensor.data_type not in (TensorProto.STRING, TensorProto.UNDEFINED):
        count = int(np.prod(tensor.dims, dtype=np.int64))
        if type_name in _PACKED_4BIT:
            need = (count + 1) // 2
        else:
            need = count * helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
        if len(tensor.raw_data) != need:
            raise _MalformedTensor(f"holds {len(tensor.raw_data)} bytes of raw_data, but {list(tensor.dims)} of "
                                   f"{type_name} needs {need}")
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError, KeyError) as e:
        raise _MalformedTensor(f"is malformed: {_first_line(str(e))}") from None


def _sparse_array(sparse: "onnx.SparseTensorProto") -> np.ndarray:
    """A sparse ONNX tensor as a dense array (indices are flat or per-dim)."""
    values = _tensor_array(sparse.values)
    indices = _tensor_array(sparse.indices).astype(np.int64)
    dense = np.zeros(tuple(sparse.dims), dtype=values.dtype)
    if indices.ndim == 2:
        dense[tuple(indices.T)] = values
    else:
        dense.reshape(-1)[indices] = values
    return dense


def _constant_node_array(node: "onnx.NodeProto") -> np.ndarray:
    """The value of a Constant node, whichever ``value*`` attribute holds it."""
    from onnx import AttributeProto
    attr = node.attribute[0]
    if attr.type == AttributeProto.TENSOR:
        return _tensor_array(attr.t)
    if attr.type == AttributeProto.SPARSE_TENSOR:
        return _sparse_array(attr.sparse_tensor)
    if attr.name == "value_float":
        return np.array(attr.f, dtype=np.float32)
    if attr.name == "value_floats":
        return np.array(list(attr.floats), dtype=np.float32)
    if attr.name == "value_int":
        return np.array(attr.i, dtype=np.int64)
    if attr.name == "value_ints":
        return np.array(list(attr.ints), dtype=np.int64)
    raise _UnsupportedType(f"holds a string tensor ('{attr.name}'), which geir does not support")


# ================================================================ importer


class _Scope:
    """ONNX tensor name -> SSA value, chained to the enclosing graph's scope."""

    def __init__(self, parent: "_Scope | None" = None) -> None:
        self.values: dict[str, Value] = {}
        self.types: dict[str, TensorType | None] = {}
        self.parent = parent

    def lookup(self, name: str) -> Value | None:
        scope: _Scope | None = self
        while scope is not None:
            v = scope.values.get(name)
            if v is not None:
                return v
            scope = scope.parent
        return None

    def type_of(self, name: str) -> TensorType | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.types:
                return scope.types[name]
            scope = scope.parent
        return None


class _Importer:
    def __init__(self, model: "onnx.ModelProto", where: str, strict: bool, upgraded: bool = False,
                 elide_weights: bool = False, initializers: "Sequence[onnx.TensorProto] | None" = None) -> None:
        self.model = model
        #: the main graph's initializers (by default, the model's own)
        self.initializers = list(model.graph.initializer) if initializers is None else list(initializers)
        self.where = where
        self.strict = strict
        #: import every constant of more than INLINE_CONSTANT_LIMIT elements without its bytes
        self.elide_weights = elide_weights
        self.module = Module()
        self.opsets = {("" if e.domain == "ai.onnx" else e.domain): int(e.version) for e in model.opset_import}
        self.unsupported: list[Diagnostic] = []
        #: the model was older than MIN_OPSET and went through the version converter
        self.upgraded = upgraded
        #: tensor name -> why its ONNX type has no geir counterpart (reported only if used)
        self.unsupported_types: dict[str, str] = {}
        #: every tensor name some node or graph output reads, subgraphs included
        self.used_names: set[str] = set(_used_names(model.graph))
        #: per block: its shared ge.none value (a region's ops cannot use one of an outer block later)
        self.nones: dict[Block, Value] = {}
        #: > 0 while a loop body is imported again with wider carried types: the shapes
        #: its tensors declare were inferred from the narrower ones, so only ranks hold
        self.stale_shapes = 0

    # ------------------------------------------------------------- module
    def run(self) -> Module:
        from geir.verifier import verify
        graph = self.model.graph
        scope = _Scope()
        self._collect_types(graph, scope)
        initializers = {t.name for t in self.initializers} | {s.values.name for s in graph.sparse_initializer}
        inputs = [i for i in graph.input if i.name not in initializers]
        block = Block()
        for value_info in inputs:
            t = self._value_type(value_info.name, scope, value_info.name)
            if t is None:
                raise _fail(f"input '{value_info.name}' has no element type", value_info.name)
            scope.values[value_info.name] = block.add_argument(t, _sanitize(value_info.name))
        self._import_graph_body(graph, block, scope, self.initializers)
        results = [self._lookup(o.name, scope, o.name) for o in graph.output]
        block.append(Operation("ge.return", results, location=NameLoc(graph.name or "main")))
        if self.unsupported:
            raise DiagnosticError(self.unsupported)
        ftype = FunctionType([a.type for a in block.arguments], [v.type for v in results])
        attributes: dict[str, Attribute] = {"sym_name": StringAttr("main"), "function_type": TypeAttr(ftype)}
        arg_symbols = [_dim_symbols(i.type) for i in inputs]
        known = {s for syms in arg_symbols if syms for s in syms if s}
        if inputs:
            attributes["arg_attrs"] = ArrayAttr(_name_dict(i.name, syms) for i, syms in zip(inputs, arg_symbols))
        if graph.output:
            attributes["res_attrs"] = ArrayAttr(_name_dict(o.name, _dim_symbols(o.type, known) if known else None)
                                                for o in graph.output)
        graph_op = Operation("ge.graph", attributes=attributes, regions=[Region([block])],
                             location=NameLoc(graph.name or "main"))
        self.module.body.append(graph_op)
        verify(self.module)
        return self.module

    # ------------------------------------------------------------- graphs
    def _collect_types(self, graph: "onnx.GraphProto", scope: _Scope) -> None:
        """The inferred type of every tensor the graph declares, by name (unsupported
        types are remembered and reported only if the tensor is used)."""
        inputs = len(graph.input)
        for k, vi in enumerate((*graph.input, *graph.value_info, *graph.output)):
            try:
                t = _tensor_type(vi.type)
            except _UnsupportedType as e:
                self.unsupported_types[vi.name] = str(e)
                continue
            if self.stale_shapes and k >= inputs and t is not None and t.shape is not None:
                t = t.with_shape([None] * len(t.shape))
            if t is not None or vi.name not in scope.types:
                scope.types[vi.name] = t

    def _value_type(self, name: str, scope: _Scope, node: str) -> TensorType | None:
        if name in self.unsupported_types:
            raise _fail(f"'{name}' {self.unsupported_types[name]}", node)
        return scope.type_of(name)

    def _import_graph_body(self, graph: "onnx.GraphProto", block: Block, scope: _Scope,
                           initializers: "Sequence[onnx.TensorProto] | None" = None) -> None:
        """Initializers (``graph``'s own unless given) as ``ge.weights``, then every
        node, appended to ``block``."""
        from onnx import TensorProto
        dense = [(t.name, t, _tensor_array) for t in (graph.initializer if initializers is None else initializers)]
        sparse = [(t.values.name, t, _sparse_array) for t in graph.sparse_initializer]
        for name, tensor, to_array in (*dense, *sparse):
            try:
                if isinstance(tensor, TensorProto) and tensor.data_location == TensorProto.EXTERNAL:
                    # its external data file is absent: the type without the bytes
                    t = TensorType(tuple(tensor.dims), _element_type(tensor.data_type))
                    self._absent_constant("ge.weights", name, t, block, scope, name)
                    continue
                self._constant("ge.weights", name, to_array(tensor), block, scope, name)  # type: ignore[operator]
            except (_UnsupportedType, _MalformedTensor) as e:
                raise _fail(f"initializer '{name}' {e}", self.where) from None
        for index, node in enumerate(graph.node):
            label = node.name or f"{node.op_type}_{index}"
            try:
                self._import_node(node, label, block, scope)
            except _UnsupportedType as e:
                raise _fail(f"{node.op_type} node {e}", label) from None
            except _MalformedTensor as e:
                raise _fail(f"{node.op_type} node '{label}': its tensor {e}", self.where) from None

    def _lookup(self, name: str, scope: _Scope, node: str) -> Value:
        if name in self.unsupported_types:
            raise _fail(f"'{name}' {self.unsupported_types[name]}", node)
        v = scope.lookup(name)
        if v is None:
            raise _fail(f"'{name}' is not defined before it is used", node)
        return v

    def _none(self, block: Block, loc: Location) -> Value:
        v = self.nones.get(block)
        if v is None:
            op = Operation("ge.none", result_types=[NONE], location=loc)
            block.append(op)
            v = self.nones[block] = op.result
        return v

    def _operands(self, node: "onnx.NodeProto", block: Block, scope: _Scope, loc: Location,
                  label: str) -> list[Value]:
        """The node's inputs in ONNX order: ``ge.none`` for one omitted in the middle."""
        names = list(node.input)
        while names and not names[-1]:
            names.pop()
        return [self._lookup(n, scope, label) if n else self._none(block, loc) for n in names]

    # ------------------------------------------------------------- constants
    def _constant(self, op_name: str, tensor_name: str, array: np.ndarray, block: Block, scope: _Scope,
                  label: str) -> Value:
        et = _element_type(_onnx_elem_type(array))
        if et.numpy_dtype is None:
            raise _UnsupportedType(f"holds a tensor of element type {et}, which geir cannot store")
        t = TensorType(array.shape, et)
        if self.elide_weights and array.size > INLINE_CONSTANT_LIMIT:
            return self._absent_constant(op_name, tensor_name, t, block, scope, label)
        if array.size <= INLINE_CONSTANT_LIMIT:
            # (np.ascontiguousarray would make a scalar 1-D)
            value: Attribute = DenseElementsAttr(t, np.array(array, dtype=et.numpy_dtype, order="C"))
        else:
            # the blob holds the tensor's own bytes (bf16 as 16-bit words), viewed, not copied:
            # the array is the importer's own or a view of the model's immutable bytes
            blob = self.module.add_resource(_resource_name(tensor_name), ResourceBlob.bytes_of(array))
            value = DenseResourceAttr(t, blob)
        op = Operation(op_name, result_types=[t], attributes={"value": value}, location=NameLoc(label),
                       result_names=[_sanitize(tensor_name)])
        block.append(op)
        scope.values[tensor_name] = op.result
        scope.types[tensor_name] = t
        return op.result

    def _absent_constant(self, op_name: str, tensor_name: str, t: TensorType, block: Block, scope: _Scope,
                         label: str) -> Value:
        """A constant of type ``t`` whose bytes are absent: ``dense_resource<name>``
        with no blob in the file (MLIR's elided resource)."""
        blob = self.module.add_resource(_resource_name(tensor_name), None)
        op = Operation(op_name, result_types=[t], attributes={"value": DenseResourceAttr(t, blob)},
                       location=NameLoc(label), result_names=[_sanitize(tensor_name)])
        block.append(op)
        scope.values[tensor_name] = op.result
        scope.types[tensor_name] = t
        return op.result

    # ------------------------------------------------------------- nodes
    def _import_node(self, node: "onnx.NodeProto", label: str, block: Block, scope: _Scope) -> None:
        loc = NameLoc(label)
        domain = "" if node.domain == "ai.onnx" else node.domain
        if node.op_type == "Constant" and domain == "":
            self._constant("ge.const", node.output[0], _constant_node_array(node), block, scope, label)
            return
        opset = self.opsets.get(domain, 1)
        if domain == "" and node.op_type in _CONTROL_OPS:
            self._import_control(node, label, block, scope, opset)
            return
        operands = self._operands(node, block, scope, loc, label)
        # a result of a type geir lacks (an Optional's) says so before its attributes do
        onnx_types = [self._value_type(o, scope, label) if o else None for o in node.output]
        attributes = self._attributes(node, label)
        if domain == "":
            if node.op_type in _COERCE_TO_2D_BEFORE_13 and opset < 13:
                if self._coerced_softmax(node, operands, attributes, onnx_types, block, scope, loc):
                    return
            if node.op_type == "PRelu" and self.upgraded:
                operands = self._channel_slope(operands, block, loc)
            op_name, num_outputs = self._adapt(node, opset, attributes)
            od = _op_def(op_name) if op_name else None
            reason = _does_not_fit(od, operands, attributes, num_outputs) if od else "has no ge counterpart"
            if od is not None and reason is None:
                self._emit(od, node, num_outputs, operands, attributes, onnx_types, block, scope, loc, label)
                return
        else:
            reason = "has no ge counterpart"
        self._emit_fallback(node, domain, opset, operands, attributes, onnx_types, block, scope, loc, label, reason)

    def _attributes(self, node: "onnx.NodeProto", label: str) -> dict[str, Attribute]:
        from onnx import AttributeProto
        from geir.onnx_attributes import from_onnx_attribute
        out: dict[str, Attribute] = {}
        for proto in node.attribute:
            if proto.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS):
                raise _fail(f"{node.op_type} node: attribute '{proto.name}' is a subgraph, which only If, Loop "
                            "and Scan may have", label)
            try:
                attr = from_onnx_attribute(proto)
            except ValueError as e:
                raise _UnsupportedType(f"has an unsupported attribute: {e}") from None
            if attr is not None:
                out[proto.name] = attr
        return out

    def _adapt(self, node: "onnx.NodeProto", opset: int, attributes: dict[str, Attribute]) -> tuple[str | None, int]:
        """The ge op for a default-domain node and how many of its outputs it
        keeps; the few old-opset forms whose meaning differs from the newest one
        are rewritten to it (``attributes`` is updated in place)."""
        from geir.dialects.ge import ONNX_TO_GE
        op_type = node.op_type
        num_outputs = len(node.output)
        if op_type == "Resize" and opset < 11:
            return "ge.upsample", num_outputs  # Resize-10 is Upsample with a new name
        if op_type == "BatchNormalization" and opset < 9:
            spatial = attributes.pop("spatial", None)
            if spatial is not None and getattr(spatial, "value", 1) != 1:
                attributes["spatial"] = spatial  # per-activation statistics: no ge form
        if op_type == "RoiAlign" and opset < 16 and "coordinate_transformation_mode" not in attributes:
            # RoiAlign-10 shifts no pixel: RoiAlign-16 calls that output_half_pixel
            attributes["coordinate_transformation_mode"] = StringAttr("output_half_pixel")
        if op_type == "GridSample" and opset < 20:
            # GridSample-16 spells the modes GridSample-20 calls linear and cubic
            mode = attributes.get("mode")
            spelled = {"bilinear": "linear", "bicubic": "cubic"}.get(getattr(mode, "value", "bilinear"))
            if spelled is not None:
                attributes["mode"] = StringAttr(spelled)
        if op_type == "Concat" and "axis" not in attributes:
            attributes["axis"] = IntegerAttr(1)  # Concat-1's default
        if op_type == "Dropout" and opset < 10 and num_outputs > 1:
            # Dropout-7's mask has the data's type (ge's is i1): fine while nobody reads it
            if node.output[1] in self.used_names:
                return None, num_outputs
            num_outputs = 1
        return ONNX_TO_GE.get(op_type), num_outputs

    def _infer(self, od: OpDef, operands: Sequence[Value], attributes: dict[str, Attribute],
               declared: Sequence[Type]) -> tuple[list[Type] | None, str | None]:
        """The op's inferred result types, or None and why inference refused its operands."""
        if od.infer is None:
            return None, None
        ctx = InferContext([v.type for v in operands], Attrs(attributes, od.attributes), operands, declared)
        try:
            return list(od.infer(ctx)), None
        except InferError as e:
            return None, str(e)  # with declared types the verifier reports it at the op
        except (ValueError, TypeError, IndexError, ZeroDivisionError):
            return None, None

    def _emit(self, od: OpDef, node: "onnx.NodeProto", num_outputs: int, operands: list[Value],
              attributes: dict[str, Attribute], onnx_types: list[TensorType | None], block: Block, scope: _Scope,
              loc: Location, label: str) -> Operation:
        count = od.num_results if od.num_results >= 0 else num_outputs
        declared: list[Type] = [(onnx_types[i] if i < len(onnx_types) else None) or _UNRANKED_F32
                                for i in range(count)]
        inferred, refused = self._infer(od, operands, attributes, declared)
        inferred = inferred or []
        types: list[Type] = []
        for i in range(count):
            onnx_t = onnx_types[i] if i < len(onnx_types) else None
            t = _refine(onnx_t, inferred[i] if i < len(inferred) else None)
            if t is None:
                name = node.output[i] if i < len(node.output) else f"#{i}"
                because = f": {refused}" if refused else ""
                raise _fail(f"{node.op_type} node: cannot infer the type of output '{name}'{because}", label)
            types.append(t)
        names = [_sanitize(node.output[i]) if i < len(node.output) and node.output[i] else None for i in range(count)]
        op = Operation(od.name, operands, types, attributes, location=loc, result_names=names)
        block.append(op)
        self._bind_results(node, op, scope)
        return op

    def _bind_results(self, node: "onnx.NodeProto", op: Operation, scope: _Scope) -> None:
        for name, result in zip(node.output, op.results):
            if name:
                scope.values[name] = result
                scope.types[name] = result.type  # type: ignore[assignment]

    def _emit_fallback(self, node: "onnx.NodeProto", domain: str, opset: int, operands: list[Value],
                       attributes: dict[str, Attribute], onnx_types: list[TensorType | None], block: Block,
                       scope: _Scope, loc: Location, label: str, reason: str) -> None:
        if self.strict:
            qualified = f"{domain}.{node.op_type}" if domain else node.op_type
            self.unsupported.append(Diagnostic(
                "error", f"ONNX op '{qualified}' {reason} (strict import; otherwise it becomes a ge.onnx_op "
                         "run on AICPU)", loc))
        types: list[Type] = []
        for name, t in zip(node.output, onnx_types):
            if t is None and name:
                raise _fail(f"{node.op_type} node: ONNX shape inference gives no type for output '{name}', "
                            f"which ge.onnx_op needs{_no_schema_hint(node.op_type, domain)}", label)
            # an output omitted in the middle still holds its place; nothing reads it
            types.append(t if t is not None else _UNRANKED_F32)
        meta: dict[str, Attribute] = {"op_type": StringAttr(node.op_type), "domain": StringAttr(domain),
                                      "opset": IntegerAttr(opset)}
        clash = set(meta) & set(attributes)
        if clash:
            raise _fail(f"{node.op_type} node: attribute '{sorted(clash)[0]}' clashes with ge.onnx_op's own", label)
        names = [_sanitize(o) if o else None for o in node.output]
        op = Operation("ge.onnx_op", operands, types, {**meta, **attributes}, location=loc, result_names=names)
        block.append(op)
        self._bind_results(node, op, scope)

    # ------------------------------------------------------------- adapters
    def _coerced_softmax(self, node: "onnx.NodeProto", operands: list[Value], attributes: dict[str, Attribute],
                         onnx_types: list[TensorType | None], block: Block, scope: _Scope, loc: Location) -> bool:
        """Softmax-family before opset 13 works on the input flattened to 2-D at
        ``axis`` (default 1): a plain op when ``axis`` is the last dim, else
        flatten -> op on axis 1 -> reshape back. False when the rank is unknown."""
        from geir.dialects.ge import ONNX_TO_GE
        x = operands[0] if operands else None
        rank = x.type.rank if x is not None and isinstance(x.type, TensorType) else None
        if rank is None:
            return False
        axis_attr = attributes.get("axis")
        axis = int(axis_attr.value) if isinstance(axis_attr, IntegerAttr) else 1
        axis = axis + rank if axis < 0 else axis
        op_name = ONNX_TO_GE[node.op_type]
        name = _sanitize(node.output[0])
        if axis >= rank - 1:
            op = Operation(op_name, [x], [x.type], {"axis": IntegerAttr(max(rank - 1, 0))}, location=loc,
                           result_names=[name])
            block.append(op)
            self._bind_results(node, op, scope)
            return True
        xt: TensorType = x.type  # type: ignore[assignment]
        assert xt.shape is not None
        from geir.dialects.ge_infer import product
        rows, cols = product(xt.shape[:axis]), product(xt.shape[axis:])
        flat_t = TensorType((rows, cols), xt.element_type)
        flat = Operation("ge.flatten", [x], [flat_t], {"axis": IntegerAttr(axis)}, location=loc)
        norm = Operation(op_name, [flat.result], [flat_t], {"axis": IntegerAttr(1)}, location=loc)
        block.append(flat)
        block.append(norm)
        if xt.is_static:
            shape = np.array(xt.shape, dtype=np.int64)
            shape_t = TensorType((rank,), I64)
            shape_op = Operation("ge.const", result_types=[shape_t],
                                 attributes={"value": DenseElementsAttr(shape_t, shape)}, location=loc)
        else:
            shape_op = Operation("ge.shape", [x], [TensorType((rank,), I64)], location=loc)
        block.append(shape_op)
        reshape = Operation("ge.reshape", [norm.result, shape_op.result], [xt], location=loc, result_names=[name])
        block.append(reshape)
        self._bind_results(node, reshape, scope)
        return True

    def _channel_slope(self, operands: list[Value], block: Block, loc: Location) -> list[Value]:
        """PRelu-6 applied a 1-D slope per channel (dim 1); opset 7 broadcasts it
        numpy-style, and the version converter leaves it as is: reshape it to
        C x 1 x ... x 1."""
        x, slope = operands[:2]
        xt, st = x.type, slope.type
        if not (isinstance(xt, TensorType) and isinstance(st, TensorType) and xt.shape is not None
                and st.shape is not None and len(xt.shape) > 2 and len(st.shape) == 1 and st.shape[0] != 1
                and st.shape[0] == xt.shape[1]):
            return operands
        shape = [st.shape[0]] + [1] * (len(xt.shape) - 2)
        shape_t = TensorType((len(shape),), I64)
        shape_op = Operation("ge.const", result_types=[shape_t], location=loc,
                             attributes={"value": DenseElementsAttr(shape_t, np.array(shape, dtype=np.int64))})
        reshape = Operation("ge.reshape", [slope, shape_op.result], [st.with_shape(shape)], location=loc)
        block.append(shape_op)
        block.append(reshape)
        return [x, reshape.result, *operands[2:]]

    # ------------------------------------------------------------- control flow
    def _import_control(self, node: "onnx.NodeProto", label: str, block: Block, scope: _Scope, opset: int) -> None:
        loc = NameLoc(label)
        if node.op_type == "Scan" and opset < 9:
            raise _fail("Scan node: opset-8 Scan (with a batch axis and sequence_lens) is not supported; "
                        "convert the model to opset 9 or newer", label)
        from onnx import AttributeProto
        graphs = {a.name: a.g for a in node.attribute if a.type == AttributeProto.GRAPH}
        attributes = {a.name: attr for a, attr in ((a, self._plain_attribute(a)) for a in node.attribute)
                      if attr is not None}
        operands = self._operands(node, block, scope, loc, label)
        onnx_types = [self._value_type(o, scope, label) if o else None for o in node.output]
        regions: list[Region] = []
        if node.op_type == "If":
            taken = _constant_condition(operands[0])
            for k, branch in enumerate(("then_branch", "else_branch")):
                # the taken branch of a constant condition is checked as it is; any other
                # branch may never run (a branch per input layout): where it is invalid
                # for these shapes, it sees them dynamic, checked when the host runs it
                regions.append(self._region_that_may_not_run(graphs[branch], [], scope, label,
                                                             may_not_run=taken is None or taken != (k == 0)))
        elif node.op_type == "Loop":
            body = graphs["body"]
            # a loop-carried value may change shape between iterations: where the body
            # does not declare its inputs, only the rank of the initial value is known
            carried = [v.type.with_shape([None] * len(v.type.shape))
                       if isinstance(v.type, TensorType) and v.type.shape is not None else v.type
                       for v in operands[2:]]
            defaults = [TensorType((), I64), TensorType((), I1), *carried]
            regions.append(self._loop_body(body, defaults, scope, label))
        else:
            body = graphs["body"]
            num_scan = int(attributes["num_scan_inputs"].value)  # type: ignore[attr-defined]
            states = len(operands) - num_scan
            axes = [int(a.value) for a in attributes.get("scan_input_axes", ArrayAttr(()))]  # type: ignore[attr-defined]
            defaults = [v.type for v in operands[:states]]
            for k, v in enumerate(operands[states:]):
                t = v.type
                axis = axes[k] if k < len(axes) else 0
                if isinstance(t, TensorType) and t.shape is not None:
                    axis = axis + len(t.shape) if axis < 0 else axis
                    defaults.append(t.with_shape(t.shape[:axis] + t.shape[axis + 1:]))
                else:
                    defaults.append(t)
            regions.append(self._region(body, defaults, scope, label))
        yielded = [op.operands for op in (r.blocks[0].last_op for r in regions)]
        types: list[Type] = []
        for i, name in enumerate(node.output):
            t = onnx_types[i]
            if node.op_type == "If":
                # both branches must yield the op's result types: take the then-branch's
                # when they agree (it is at least as precise as ONNX's merge), else the
                # dims they agree on when ONNX has no shape
                then_t, else_t = yielded[0][i].type, yielded[1][i].type
                if then_t is else_t:
                    t = then_t  # type: ignore[assignment]
                elif t is None or t.shape is None:
                    t = _join(then_t, else_t) or t  # type: ignore[assignment]
            if t is None:
                raise _fail(f"{node.op_type} node: cannot infer the type of output '{name}'", label)
            types.append(t)
        names = [_sanitize(o) if o else None for o in node.output]
        op = Operation(_CONTROL_OPS[node.op_type], operands, types, attributes, regions, loc, names)
        block.append(op)
        self._bind_results(node, op, scope)

    def _plain_attribute(self, proto: "onnx.AttributeProto") -> Attribute | None:
        from onnx import AttributeProto
        from geir.onnx_attributes import from_onnx_attribute
        if proto.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS):
            return None
        return from_onnx_attribute(proto)

    def _loop_body(self, graph: "onnx.GraphProto", arg_defaults: Sequence[Type], outer: _Scope,
                   label: str) -> Region:
        """A Loop's body (:meth:`_region_that_may_not_run`). Exporters declare a
        carried input with its initial value's shape; where the body yields another
        shape (a concat that grows each iteration), the value changes shape between
        iterations, so its block argument takes the dims both agree on and the body
        is imported again. Types only widen, so this ends."""
        forced: list[Type | None] = [None] * len(graph.input)
        while True:
            self.stale_shapes += any(t is not None for t in forced)
            try:
                region = self._region_that_may_not_run(graph, arg_defaults, outer, label, True, forced)
            finally:
                self.stale_shapes -= any(t is not None for t in forced)
            block = region.blocks[0]
            changed = False
            # block arguments: iteration, condition, carried...; yield: condition, carried..., scans
            for k, arg in enumerate(block.arguments[2:], start=2):
                yielded = block.last_op.operands[k - 1].type if k - 1 < len(block.last_op.operands) else None
                joined = _join(arg.type, yielded) if yielded is not None else None
                if joined is not None and joined != arg.type:
                    forced[k] = joined
                    changed = True
            if not changed:
                return region

    def _region_that_may_not_run(self, graph: "onnx.GraphProto", arg_defaults: Sequence[Type], outer: _Scope,
                                 label: str, may_not_run: bool, arg_types: Sequence[Type | None] = ()) -> Region:
        """:meth:`_region`; when ``may_not_run`` and the region does not verify
        with the static types of the outer values it reads, it is imported again
        reading them through ``ge.identity`` ops that make their dims dynamic
        (what ``specialize-shapes`` does to a region known to run only at run
        time), so the model imports and the region is checked when it runs."""
        region = self._region(graph, arg_defaults, outer, label, arg_types=arg_types)
        if not may_not_run or _region_verifies(region):
            return region
        return self._region(graph, arg_defaults, outer, label, widen=True, arg_types=arg_types)

    def _region(self, graph: "onnx.GraphProto", arg_defaults: Sequence[Type], outer: _Scope, label: str,
                widen: bool = False, arg_types: Sequence[Type | None] = ()) -> Region:
        """A subgraph as a one-block region: its inputs are the block arguments
        (typed as ``arg_types`` where given, else as declared, else as ``arg_defaults``),
        its outputs the ``ge.yield``. With ``widen`` it reads the non-constant outer
        values of static shape through a ``ge.identity`` to their rank with every dim
        dynamic."""
        scope = _Scope(outer)
        self._collect_types(graph, scope)
        block = Block()
        if widen:
            self._widen_captures(graph, block, scope, outer, label)
        for k, vi in enumerate(graph.input):
            t: Type | None = arg_types[k] if k < len(arg_types) else None
            if t is None:
                t = self._value_type(vi.name, scope, label)
            default = arg_defaults[k] if k < len(arg_defaults) else None
            if t is None or (t.shape is None and default is not None):
                t = default
            if t is None:
                raise _fail(f"subgraph '{graph.name}' input '{vi.name}' has no type", label)
            scope.values[vi.name] = block.add_argument(t, _sanitize(vi.name))
            scope.types[vi.name] = t  # type: ignore[assignment]
        self._import_graph_body(graph, block, scope)
        results = [self._lookup(o.name, scope, label) for o in graph.output]
        block.append(Operation("ge.yield", results, location=NameLoc(label)))
        return Region([block])


    def _widen_captures(self, graph: "onnx.GraphProto", block: Block, scope: _Scope, outer: _Scope,
                        label: str) -> None:
        from geir.constants import CONSTANT_OPS
        defined = {i.name for i in graph.input} | {t.name for t in graph.initializer} \
            | {o for n in graph.node for o in n.output}
        for name in dict.fromkeys(_used_names(graph)):
            v = outer.lookup(name) if name not in defined else None
            if v is None or not isinstance(v.type, TensorType) or not v.type.is_static or not v.type.shape:
                continue
            if isinstance(v, OpResult) and v.op.name in CONSTANT_OPS:
                continue  # an axis or a shape: its value is what inference reads
            wide = v.type.with_shape([None] * len(v.type.shape))
            op = Operation("ge.identity", [v], [wide], location=NameLoc(label))
            block.append(op)
            scope.values[name] = op.result
            scope.types[name] = wide


def _constant_condition(value: Value) -> bool | None:
    """The value of an If's condition when a constant holds it, else None."""
    from geir.constants import constant_value
    array = constant_value(value)
    if array is None or np.asarray(array).size != 1:
        return None
    return bool(np.asarray(array).reshape(()))


def _region_verifies(region: Region) -> bool:
    """Whether every op of ``region`` verifies with the types it reads."""
    from geir.verifier import verify_op
    try:
        for op in region.blocks[0].ops:
            verify_op(op)
    except DiagnosticError:
        return False
    return True


def _join(a: Type, b: Type) -> Type | None:
    """The tensor type both ``a`` and ``b`` are: the dims they agree on, ``?``
    where they differ; None when element types or ranks differ."""
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)) or a.element_type is not b.element_type:
        return None
    if a.shape is None or b.shape is None:
        return TensorType(None, a.element_type)
    if len(a.shape) != len(b.shape):
        return None
    return a.with_shape([x if x == y else None for x, y in zip(a.shape, b.shape)])


def _name_dict(name: str, symbols: list[str] | None = None) -> DictionaryAttr:
    entries: dict[str, Attribute] = {"ge.name": StringAttr(name)}
    if symbols is not None and any(symbols):
        entries["ge.symbols"] = ArrayAttr(StringAttr(s) for s in symbols)
    return DictionaryAttr.from_dict(entries)


def _onnx_elem_type(array: np.ndarray) -> int:
    from onnx import helper
    if array.dtype == object or array.dtype.kind in "US":
        raise _UnsupportedType("holds a string tensor, which geir does not support")
    return helper.np_dtype_to_tensor_dtype(array.dtype)


def _op_def(name: str) -> OpDef | None:
    from geir.dialect_registry import lookup_op
    return lookup_op(name)


def _does_not_fit(od: OpDef, operands: Sequence[Value], attributes: dict[str, Attribute],
                  num_outputs: int) -> str | None:
    """Why the node cannot be this ge op as it stands (an old opset's form), or None."""
    lo, hi = od.operand_range()
    if len(operands) < lo or (hi is not None and len(operands) > hi):
        return f"has {len(operands)} inputs, which {od.name} does not take"
    if od.num_results >= 0 and num_outputs > od.num_results:
        return f"has {num_outputs} outputs, which {od.name} does not have"
    for name, attr in attributes.items():
        spec = od.attributes.get(name)
        if spec is None:
            return f"has attribute '{name}', which {od.name} does not take"
        if not ATTR_KINDS[spec.kind](attr):
            return f"has attribute '{name}' of a kind {od.name} does not take"
        if spec.choices is not None:
            from geir.attributes import from_attribute
            if from_attribute(attr) not in spec.choices:
                return f"has {name} = {from_attribute(attr)!r}, which {od.name} does not take"
    return None


def _used_names(graph: "onnx.GraphProto") -> Iterator[str]:
    """The names ``graph`` and its subgraphs read (node inputs, graph outputs)."""
    yield from (o.name for o in graph.output)
    for node in graph.node:
        yield from node.input
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from _used_names(attr.g)
            for g in attr.graphs:
                yield from _used_names(g)
