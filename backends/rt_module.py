"""Converting between the in-memory :class:`~geir.backends.task_list.TaskList` and the
``rt`` dialect (:mod:`geir.dialects.rt`), in both directions and without loss:
``task_list_from_module(module_from_task_list(tl))`` equals ``tl``, also after
printing and re-parsing the module.

Weights live in the IR as ``dense_resource`` blobs (exact bytes, one text file
per model); their arrays use the element type's storage dtype (ml_dtypes for
bf16 and the float8 types), so ``data.nbytes`` is what the weight space holds.
"""

from __future__ import annotations

import math
import re
from typing import Mapping, Sequence

import numpy as np

from geir.backends.task_list import (Binding, EndGraph, Kernel, LabelGoto, LabelSet, LabelSwitch, Memcpy, Record, Stream,
                                     StreamActive, StreamSwitch, Task, TaskList, Wait, WeightBlob)
from geir.attributes import (UNKNOWN_LOC, ArrayAttr, Attribute, DenseElementsAttr, DenseResourceAttr,
                             DictionaryAttr, FloatAttr, IntegerAttr, Location, StringAttr, is_splat_view,
                             to_attribute)
from geir.absent_weights import is_absent
from geir.diagnostics import Diagnostic, DiagnosticError, error_at
from geir.dialects import rt
from geir.module import Module
from geir.opdef import InferError
from geir.operation import Block, Operation, Region
from geir.types import F64, ElementType, TensorType, element_type_from_numpy, storage_dtype

__all__ = ["task_list_from_module", "task_list_from_model", "module_from_task_list", "model_from_task_list",
           "element_type_of", "weight_array"]

def element_type_of(dtype: np.dtype) -> ElementType:
    """Inverse of :func:`storage_dtype`."""
    return element_type_from_numpy(dtype)


def weight_array(value: DenseElementsAttr | DenseResourceAttr) -> np.ndarray:
    """A constant as an array in its storage dtype: a view of the resource blob,
    a read-only broadcast view for a splat, else a C-contiguous array. Its
    ``tobytes()`` is what the weight space holds."""
    t = value.type
    dtype = storage_dtype(t.element_type)
    if isinstance(value, DenseResourceAttr):
        data = value.blob.data
        if data is None:
            # the bytes are absent: a stand-in of the right size that costs no memory
            return np.broadcast_to(np.zeros((), dtype), t.shape)  # type: ignore[arg-type]
        need = (t.num_elements or 0) * dtype.itemsize
        if len(data) != need:
            raise InferError(f"resource '{value.blob.name}' holds {len(data)} bytes, but {t} needs {need}")
        return np.frombuffer(data, dtype=dtype).reshape(t.shape)  # type: ignore[arg-type]
    array = value.array
    if array.size > 1 and 0 in array.strides:
        # A splat (the parser's broadcast view): stay a view, or a 64x64x3x3 splat
        # per conv costs its full size in memory for no information.
        return np.broadcast_to(array.reshape(-1)[:1].astype(dtype), array.shape)
    return np.asarray(array, order="C").astype(dtype, copy=False)


# ============================================================== IR -> TaskList

def task_list_from_module(module: Module, name: str | None = None) -> TaskList:
    """The task list of the module's ``rt.model`` (the one named ``name``, or the
    only/first one). Raises DiagnosticError when there is none or it is malformed."""
    models = [op for op in module.body.ops if op.name == "rt.model"]
    if name is not None:
        models = [m for m in models if m.get_attr("sym_name") == name]
    if not models:
        what = f"no 'rt.model' named '{name}'" if name is not None else "no 'rt.model'"
        hint = (" (a ge module needs --lower-to-tasks first)" if any(module.graphs())
                else " and no 'ge.graph' to lower into one: nothing to run")
        raise DiagnosticError(Diagnostic("error", f"the module has {what}{hint}"))
    return task_list_from_model(models[0])


def task_list_from_model(model: Operation) -> TaskList:
    """The :class:`TaskList` an ``rt.model`` op describes (verify the module first
    for precise messages; this only refuses what it cannot convert)."""
    try:
        tl = TaskList(name=str(model.get_attr("sym_name", "main")), arena_size=int(model.get_attr("arena_size", 0)),
                      weight_size=int(model.get_attr("weight_size", 0)),
                      num_events=int(model.get_attr("num_events", 0)), ub_size=int(model.get_attr("ub_size", 0)))
        for kind, dest in (("inputs", tl.inputs), ("outputs", tl.outputs)):
            for i, item in enumerate(_items(model, kind)):
                name, ref = rt.decode_binding(item, f"{kind[:-1]} binding #{i}")
                dest.append(Binding(name, ref))
        for i, item in enumerate(_items(model, "weights")):
            name, offset, value = rt.decode_weight(item, f"weight #{i}")
            tl.weights.append(WeightBlob(name, offset, weight_array(value), absent=is_absent(value)))
    except (InferError, TypeError, ValueError) as e:
        raise error_at(model, f"'rt.model' op {e}") from None
    for block in model.regions[0].blocks:
        for stream_op in block.ops:
            if stream_op.name != "rt.stream":
                raise error_at(stream_op, f"'{stream_op.name}' op is not a stream")
            stream = Stream(int(stream_op.get_attr("id", 0)), int(stream_op.get_attr("priority", 0)))
            for task_block in stream_op.regions[0].blocks:
                for task_op in task_block.ops:
                    try:
                        stream.tasks.append(_task_from_op(task_op))
                    except InferError as e:
                        raise error_at(task_op, f"'{task_op.name}' op {e}") from None
                    except (KeyError, TypeError, ValueError):  # an unverified module
                        raise error_at(task_op, f"'{task_op.name}' op is malformed; run the verifier "
                                                "for details") from None
            tl.streams.append(stream)
    return tl


def _items(op: Operation, name: str) -> Sequence[Attribute]:
    attr = op.attributes.get(name)
    return attr.value if isinstance(attr, ArrayAttr) else ()


def _task_from_op(op: Operation) -> Task:
    loc = str(op.get_attr("loc", "") or "")
    if op.name == "rt.kernel":
        attrs = op.attributes.get("attrs")
        return Kernel(op=str(op.get_attr("op")), engine=str(op.get_attr("engine")),
                      inputs=rt.ref_list(op, "inputs"), outputs=rt.ref_list(op, "outputs"),
                      attributes=attrs.as_dict() if isinstance(attrs, DictionaryAttr) else {},
                      block_dim=int(op.get_attr("block_dim", 1)), flops=float(op.get_attr("flops", 0.0)),
                      bytes=float(op.get_attr("bytes", 0.0)), loc=loc, name=str(op.get_attr("name", "") or ""))
    if op.name == "rt.record":
        return Record(int(op.get_attr("event")), loc)
    if op.name == "rt.wait":
        return Wait(int(op.get_attr("event")), loc)
    if op.name == "rt.memcpy":
        src = rt.decode_ref(op.attributes["src"], "src")
        dst = rt.decode_ref(op.attributes["dst"], "dst")
        assert src is not None and dst is not None
        return Memcpy(src, dst, loc)
    if op.name == "rt.end_graph":
        return EndGraph(loc)
    if op.name in ("rt.label_set", "rt.label_goto"):
        return (LabelSet if op.name == "rt.label_set" else LabelGoto)(int(op.get_attr("label")), loc)
    if op.name == "rt.label_switch":
        index = rt.decode_ref(op.attributes["index"], "index")
        assert index is not None
        return LabelSwitch(index, [int(x) for x in op.get_attr("labels")], loc)  # type: ignore[union-attr]
    if op.name == "rt.stream_active":
        return StreamActive(int(op.get_attr("stream")), loc)
    if op.name == "rt.stream_switch":
        cond = rt.decode_ref(op.attributes["cond"], "cond")
        assert cond is not None
        return StreamSwitch(cond, int(op.get_attr("true_stream")), str(op.get_attr("condition", "ne")),
                            int(op.get_attr("value", 0)), loc)
    raise InferError("is not a task")


# ============================================================== TaskList -> IR

def module_from_task_list(tl: TaskList) -> Module:
    """A module holding one ``rt.model`` equal to ``tl`` (weights as new resource blobs)."""
    module = Module()
    module.body.append(model_from_task_list(tl, module))
    return module


def model_from_task_list(tl: TaskList, module: Module, *, locations: Mapping[int, Location] | None = None,
                         weight_values: Sequence[DenseElementsAttr | DenseResourceAttr] | None = None) -> Operation:
    """The ``rt.model`` op of ``tl`` (not yet inserted anywhere).

    ``locations`` maps ``id(task)`` to the location its op should carry (the
    lowering passes the ge op's); ``weight_values`` gives, per weight in order, the
    constant attribute to reference instead of copying the array into a new blob
    of ``module``.
    """
    locations = locations or {}
    stream_ops = []
    for stream in tl.streams:
        block = Block()
        for task in stream.tasks:
            block.append(task_to_op(task, locations.get(id(task), UNKNOWN_LOC)))
        stream_ops.append(Operation("rt.stream", regions=[Region([block])],
                                    attributes={"id": IntegerAttr(stream.id), "priority": IntegerAttr(stream.priority)}))
    weights = []
    for i, blob in enumerate(tl.weights):
        value = weight_values[i] if weight_values is not None else _weight_value(module, blob)
        weights.append(ArrayAttr((StringAttr(blob.name), IntegerAttr(blob.offset), value)))
    attributes: dict[str, Attribute] = {
        "sym_name": StringAttr(tl.name), "arena_size": IntegerAttr(tl.arena_size),
        "weight_size": IntegerAttr(tl.weight_size), "num_events": IntegerAttr(tl.num_events),
        "inputs": ArrayAttr(tuple(rt.encode_binding(b.name, b.ref) for b in tl.inputs)),
        "outputs": ArrayAttr(tuple(rt.encode_binding(b.name, b.ref) for b in tl.outputs)),
        "weights": ArrayAttr(tuple(weights)),
    }
    if tl.ub_size:  # only a model with UB-fused chains has the space
        attributes["ub_size"] = IntegerAttr(tl.ub_size)
    body = Block()
    for op in stream_ops:
        body.append(op)
    return Operation("rt.model", regions=[Region([body])], attributes=attributes)


_RESOURCE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*\Z")


def _weight_value(module: Module, blob: WeightBlob) -> DenseResourceAttr | DenseElementsAttr:
    """A weight's value in the module: a dense splat for one repeated value, else a
    resource blob of its bytes (a blob without bytes for an absent weight)."""
    weight_type = TensorType(blob.data.shape, element_type_of(blob.data.dtype))
    if not blob.absent and is_splat_view(blob.data):  # one value repeated: a dense splat, never materialised as a blob
        return DenseElementsAttr(weight_type, blob.data)
    # A resource name is a bare identifier; the weight keeps its own name beside it.
    stem = blob.name if _RESOURCE_NAME.match(blob.name) else "w_" + re.sub(r"[^A-Za-z0-9_$.\-]", "_", blob.name)
    data = None if blob.absent else np.asarray(blob.data, order="C").tobytes()
    return DenseResourceAttr(weight_type, module.add_resource(stem, data))


def task_to_op(task: Task, location: Location = UNKNOWN_LOC) -> Operation:
    """One task as its ``rt`` op. Default-valued fields (block_dim 1, no
    attributes, zero cost, empty loc/name) are left out so the text stays short."""
    attrs: dict[str, Attribute] = {}
    if isinstance(task, Kernel):
        attrs = {"op": StringAttr(task.op), "engine": StringAttr(task.engine),
                 "inputs": ArrayAttr(tuple(rt.encode_ref(r) for r in task.inputs)),
                 "outputs": ArrayAttr(tuple(rt.encode_ref(r) for r in task.outputs))}
        if task.block_dim != 1:  # 1 is "unset": the emulator's cost model decides
            attrs["block_dim"] = IntegerAttr(task.block_dim)
        if task.attributes:
            attrs["attrs"] = DictionaryAttr.from_dict({k: to_attribute(v) for k, v in task.attributes.items()})
        if task.flops:
            attrs["flops"] = _number(task.flops)
        if task.bytes:
            attrs["bytes"] = _number(task.bytes)
        if task.name:
            attrs["name"] = StringAttr(task.name)
        name = "rt.kernel"
    elif isinstance(task, (Record, Wait)):
        attrs = {"event": IntegerAttr(task.event)}
        name = "rt.record" if isinstance(task, Record) else "rt.wait"
    elif isinstance(task, Memcpy):
        attrs = {"src": rt.encode_ref(task.src), "dst": rt.encode_ref(task.dst)}
        name = "rt.memcpy"
    elif isinstance(task, EndGraph):
        name = "rt.end_graph"
    elif isinstance(task, (LabelSet, LabelGoto)):
        attrs = {"label": IntegerAttr(task.label)}
        name = "rt.label_set" if isinstance(task, LabelSet) else "rt.label_goto"
    elif isinstance(task, LabelSwitch):
        attrs = {"index": rt.encode_ref(task.index), "labels": ArrayAttr(tuple(IntegerAttr(x) for x in task.labels))}
        name = "rt.label_switch"
    elif isinstance(task, StreamActive):
        attrs = {"stream": IntegerAttr(task.stream)}
        name = "rt.stream_active"
    elif isinstance(task, StreamSwitch):
        attrs = {"cond": rt.encode_ref(task.cond), "condition": StringAttr(task.condition),
                 "value": IntegerAttr(task.value), "true_stream": IntegerAttr(task.true_stream)}
        name = "rt.stream_switch"
    else:
        raise TypeError(f"not a task: {task!r}")
    if task.loc:
        attrs["loc"] = StringAttr(task.loc)
    return Operation(name, attributes=attrs, location=location)


def _number(x: float) -> Attribute:
    """Counts print as integers (MLIR prints a large f64 as hex bits, which nobody reads)."""
    if math.isfinite(x) and x == int(x) and abs(x) < 2 ** 63:
        return IntegerAttr(int(x))
    return FloatAttr(x, F64)
