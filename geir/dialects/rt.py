"""The ``rt`` dialect: the task list GE's task sink loads on the device, as IR.

A task list is addresses, not dataflow, so no ``rt`` op has operands or results;
everything is attributes, and every op prints in the uniform custom form::

    rt.model ({
      rt.stream ({
        rt.kernel {block_dim = 2 : i64, bytes = 96 : i64, engine = "AICore", flops = 8 : i64,
                   inputs = [["arena", 0, tensor<2x4xf32>], ["weights", 0, tensor<4xf32>], unit],
                   op = "ge.clip", outputs = [["arena", 512, tensor<2x4xf32>]]} : () -> ()
        rt.record {event = 0 : i64} : () -> ()
        rt.end_graph : () -> ()
      }) {id = 0 : i64, priority = 0 : i64} : () -> ()
    }) {arena_size = 1024 : i64, inputs = [["x", ["arena", 0, tensor<2x4xf32>]]], num_events = 1 : i64,
        outputs = [["y", ["arena", 512, tensor<2x4xf32>]]], sym_name = "main", weight_size = 0 : i64,
        weights = [["w", 0, dense_resource<w> : tensor<4xf32>]]} : () -> ()

Encodings (one each, shared by every op):

* a **ref** (:class:`~geir.backends.task_list.TensorRef`) is ``[space, offset, tensor type]``:
  ``["arena", 512, tensor<1x64x56x56xf16>]`` or ``["weights", 0, tensor<64xf16>]``,
  or ``["ub", 0, tensor<1x64x56x56xf16>]`` for a UB-fused chain's intermediate
  (``ub_size`` bytes on the model; no device memory, and no copy or binding
  may name it);
  an absent optional input (``ge.none``) is ``unit``;
* a **binding** is ``[name, ref]``;
* a **weight** is ``[name, offset, dense_resource<blob> : tensor<...>]`` (a small
  ``dense<...>`` literal is accepted too).

The verifier checks each task where it stands (refs well formed and inside the
arena / weight space, kernels name registered ``ge`` ops with a fitting number of
inputs and outputs, kernels and copies never write the read-only weight space,
events below ``num_events``, a switch reads one integer or i1 element of the
arena) and, on ``rt.model``, what needs the whole model (stream ids unique,
every ``rt.wait`` has an ``rt.record`` of its event, bindings and weights inside
their spaces, each label set once and every jump to it on its stream, every
activated stream declared and not the activating one).

Control tasks (GE's runtime v1 task sink runs ``If`` / ``While`` / ``Case`` with
them, on the device)::

    rt.label_switch {index = ["arena", 0, tensor<i1>], labels = [1, 0]} : () -> ()
    rt.label_set {label = 0 : i64} : () -> ()
    rt.stream_active {stream = 2 : i64} : () -> ()
    rt.label_goto {label = 2 : i64} : () -> ()
    rt.stream_switch {cond = ["arena", 0, tensor<i32>], condition = "ne", value = 0 : i64,
                      true_stream = 3 : i64} : () -> () :mod:`geir.backends.rt_module` converts to and from
the in-memory :class:`~geir.backends.task_list.TaskList`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

from geir.backends.task_list import ARENA, SPACES, UB, WEIGHTS, TensorRef
from geir.attributes import (ArrayAttr, Attribute, DenseElementsAttr, DenseResourceAttr, IntegerAttr,
                             StringAttr, TypeAttr, UnitAttr, UNIT)
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.opdef import AttrDef, Dialect, InferError
from geir.operation import Operation
from geir.types import TensorType, parse_element_type

__all__ = ["DIALECT", "TASK_OPS", "CONTROL_TASK_OPS", "NOT_KERNEL_GE_OPS", "encode_ref", "decode_ref", "encode_binding",
           "decode_binding", "decode_weight", "enclosing_model"]

DIALECT = Dialect("rt")

#: the ops a stream may hold, in the order a reader meets them
TASK_OPS = frozenset({"rt.kernel", "rt.record", "rt.wait", "rt.memcpy", "rt.end_graph", "rt.label_set",
                      "rt.label_goto", "rt.label_switch", "rt.stream_active", "rt.stream_switch"})
#: the tasks that steer streams (labels, stream activation and switches)
CONTROL_TASK_OPS = frozenset({"rt.label_set", "rt.label_goto", "rt.label_switch", "rt.stream_active",
                              "rt.stream_switch"})

#: ge ops that never become a kernel: structure, constants (weights), the absent
#: value, and the synchronisation ops (they become rt.record / rt.wait)
NOT_KERNEL_GE_OPS = frozenset({"ge.graph", "ge.return", "ge.yield", "ge.const", "ge.weights", "ge.none",
                               "ge.record_event", "ge.wait_event"})



# ------------------------------------------------------------------ encodings

def encode_ref(ref: TensorRef | None) -> Attribute:
    """``["arena", offset, tensor<shape x dtype>]``, or ``unit`` for None."""
    if ref is None:
        return UNIT
    if not isinstance(ref.shape, tuple):  # a list would make the ref unhashable
        ref = TensorRef(ref.space, ref.offset, tuple(ref.shape), ref.dtype)
    return _encode_ref(ref)


@lru_cache(maxsize=1 << 16)
def _encode_ref(ref: TensorRef) -> Attribute:
    # A tensor's ref is encoded twice at least (its writer and each reader).
    et = parse_element_type(ref.dtype)
    if et is None:
        raise ValueError(f"unknown element type '{ref.dtype}'")
    return ArrayAttr((StringAttr(ref.space), IntegerAttr(ref.offset), TypeAttr(TensorType(ref.shape, et))))


def decode_ref(attr: Attribute, what: str, optional: bool = False) -> TensorRef | None:
    """The :class:`TensorRef` an encoded ref names; InferError naming ``what`` when malformed."""
    if isinstance(attr, UnitAttr):
        if optional:
            return None
        raise InferError(f"{what} is 'unit', but only an input may be absent")
    if not isinstance(attr, ArrayAttr) or len(attr) != 3:
        raise InferError(f"{what} must be [space, offset, tensor type], got {attr}")
    space, offset, ttype = attr.value
    if not isinstance(space, StringAttr) or space.value not in SPACES:
        raise InferError(f"{what} has space {space}, expected \"arena\", \"weights\" or \"ub\"")
    if not isinstance(offset, IntegerAttr) or isinstance(offset.value, bool) or offset.value < 0:
        raise InferError(f"{what} has offset {offset}, expected a non-negative integer")
    t = ttype.value if isinstance(ttype, TypeAttr) else None
    if not isinstance(t, TensorType) or not t.is_static:
        raise InferError(f"{what} has type {ttype}, expected a statically shaped tensor type")
    return TensorRef(space.value, offset.value, t.shape, str(t.element_type))  # type: ignore[arg-type]


def encode_binding(name: str, ref: TensorRef) -> Attribute:
    """``[name, ref]``: a graph input or output and where it lives."""
    return ArrayAttr((StringAttr(name), encode_ref(ref)))


def decode_binding(attr: Attribute, what: str) -> tuple[str, TensorRef]:
    if not isinstance(attr, ArrayAttr) or len(attr) != 2 or not isinstance(attr[0], StringAttr):
        raise InferError(f"{what} must be [name, [space, offset, tensor type]], got {attr}")
    ref = decode_ref(attr[1], f"{what} ('{attr[0].value}')")
    assert ref is not None
    return attr[0].value, ref  # type: ignore[union-attr]


def decode_weight(attr: Attribute, what: str) -> tuple[str, int, DenseElementsAttr | DenseResourceAttr]:
    """``[name, offset, dense_resource<...>]`` as (name, offset, the constant)."""
    if (not isinstance(attr, ArrayAttr) or len(attr) != 3 or not isinstance(attr[0], StringAttr)
            or not isinstance(attr[1], IntegerAttr) or attr[1].value < 0  # type: ignore[union-attr]
            or not isinstance(attr[2], (DenseElementsAttr, DenseResourceAttr))):
        raise InferError(f"{what} must be [name, offset, dense_resource<...> : tensor<...>], got {attr}")
    value = attr[2]
    if not value.type.is_static:
        raise InferError(f"{what} has a dynamically shaped type {value.type}")
    return attr[0].value, attr[1].value, value  # type: ignore[union-attr,return-value]


def weight_nbytes(value: DenseElementsAttr | DenseResourceAttr) -> int:
    """Bytes a constant takes in the weight space (as :class:`TensorRef` counts them)."""
    return TensorRef(WEIGHTS, 0, value.type.shape, str(value.type.element_type)).nbytes  # type: ignore[arg-type]


# ---------------------------------------------------------------- structure

def enclosing_model(op: Operation) -> Operation | None:
    """The ``rt.model`` a task is in (through its ``rt.stream``), or None."""
    stream = op.parent_op
    if stream is None or stream.name != "rt.stream":
        return None
    model = stream.parent_op
    return model if model is not None and model.name == "rt.model" else None


def _model_of_task(op: Operation) -> Operation:
    model = enclosing_model(op)
    if model is None:
        raise InferError("must be inside an 'rt.stream' of an 'rt.model'")
    return model


def _int_attr(op: Operation, name: str) -> int:
    value = op.get_attr(name, 0)
    return int(value) if isinstance(value, int) else 0


#: the model attribute that gives each space's size
SPACE_SIZE = {ARENA: "arena_size", WEIGHTS: "weight_size", UB: "ub_size"}


def _check_in_space(ref: TensorRef, model: Operation, what: str) -> None:
    limit_name = SPACE_SIZE[ref.space]
    limit = _int_attr(model, limit_name)
    if ref.end > limit:
        raise InferError(f"{what} [{ref.offset}, {ref.end}) lies outside the {ref.space} "
                         f"({limit_name} = {limit})")


def _refs(op: Operation, name: str, model: Operation, optional: bool) -> list[TensorRef | None]:
    attr = op.attributes.get(name)
    if not isinstance(attr, ArrayAttr):
        raise InferError(f"attribute '{name}' must be an array of refs")
    out = []
    for i, item in enumerate(attr):
        what = f"{name.rstrip('s')} #{i}"
        ref = decode_ref(item, what, optional)
        if ref is not None:
            _check_in_space(ref, model, what)
        out.append(ref)
    return out


# ------------------------------------------------------------------ verifiers

def verify_kernel(op: Operation) -> None:
    """A registered ge op, arity that fits it, refs in bounds, outputs in the
    arena (or, for a UB-fused chain's intermediate, the unified buffer)."""
    from geir.dialect_registry import lookup_op
    model = _model_of_task(op)
    kind = op.get_attr("op")
    od = lookup_op(kind) if isinstance(kind, str) and kind.startswith("ge.") else None
    if od is None or kind in NOT_KERNEL_GE_OPS:
        raise InferError(f"runs '{kind}', which is not a registered ge op with a kernel")
    if _int_attr(op, "block_dim") < 1:
        raise InferError(f"block_dim must be at least 1, got {op.get_attr('block_dim')}")
    inputs = _refs(op, "inputs", model, optional=True)
    outputs = _refs(op, "outputs", model, optional=False)
    lo, hi = od.operand_range()
    if len(inputs) < lo or (hi is not None and len(inputs) > hi):
        want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
        raise InferError(f"'{kind}' takes {want} inputs, but the kernel has {len(inputs)}")
    if od.num_results >= 0 and len(outputs) != od.num_results:
        raise InferError(f"'{kind}' has {od.num_results} outputs, but the kernel has {len(outputs)}")
    for i, ref in enumerate(outputs):
        if ref is not None and ref.space == WEIGHTS:
            raise InferError(f"output #{i} is in the read-only {ref.space} space; outputs go to the arena")


def verify_event_task(op: Operation) -> None:
    """The event id is declared by the model (``0 <= event < num_events``)."""
    model = _model_of_task(op)
    event = op.get_attr("event")
    num_events = _int_attr(model, "num_events")
    if not isinstance(event, int) or not 0 <= event < num_events:
        raise InferError(f"event {event} is not below the model's num_events ({num_events})")


def verify_memcpy(op: Operation) -> None:
    """Both refs in bounds, the same size, and the destination in the arena."""
    model = _model_of_task(op)
    src = decode_ref(op.attributes["src"], "src")
    dst = decode_ref(op.attributes["dst"], "dst")
    assert src is not None and dst is not None
    _check_in_space(src, model, "src")
    _check_in_space(dst, model, "dst")
    if src.space == UB or dst.space == UB:
        raise InferError("a copy moves device memory; the unified buffer is not (it holds a fused kernel's "
                         "intermediates)")
    if dst.space != ARENA:
        raise InferError("dst is in the read-only weight space; a copy writes the arena")
    if src.nbytes != dst.nbytes:
        raise InferError(f"copies {src.nbytes} bytes into a {dst.nbytes}-byte destination")


def verify_end_graph(op: Operation) -> None:
    _model_of_task(op)


def verify_label_task(op: Operation) -> None:
    """A non-negative label id (that the label is set is a whole-model check)."""
    _model_of_task(op)
    label = op.get_attr("label")
    if not isinstance(label, int) or label < 0:
        raise InferError(f"label must be a non-negative integer, got {label}")


def _check_scalar_read(op: Operation, name: str, model: Operation) -> None:
    ref = decode_ref(op.attributes[name], name)
    assert ref is not None
    _check_in_space(ref, model, name)
    if ref.space != ARENA:
        raise InferError(f"{name} is in the {ref.space} space; a switch reads a value computed in the arena")
    n = 1
    for d in ref.shape:
        n *= d
    if n != 1 or not (ref.dtype == "i1" or ref.dtype.lstrip("u").startswith("i")):
        raise InferError(f"{name} must be one integer or i1 element, got tensor<{'x'.join(map(str, ref.shape))}"
                         f"{'x' if ref.shape else ''}{ref.dtype}>")


def verify_label_switch(op: Operation) -> None:
    """One integer (or i1) element read from the arena, and at least one label."""
    model = _model_of_task(op)
    _check_scalar_read(op, "index", model)
    labels = op.get_attr("labels")
    if not isinstance(labels, list) or not labels or any(not isinstance(x, int) or x < 0 for x in labels):
        raise InferError(f"labels must be a non-empty array of non-negative integers, got {labels}")


def verify_stream_active(op: Operation) -> None:
    _model_of_task(op)
    if _int_attr(op, "stream") < 0:
        raise InferError(f"stream must be non-negative, got {op.get_attr('stream')}")


def verify_stream_switch(op: Operation) -> None:
    """One integer (or i1) element read from the arena, a known comparison, a stream id."""
    from geir.backends.task_list import SWITCH_CONDITIONS
    model = _model_of_task(op)
    _check_scalar_read(op, "cond", model)
    condition = op.get_attr("condition", "ne")
    if condition not in SWITCH_CONDITIONS:
        raise InferError(f"condition must be one of {', '.join(SWITCH_CONDITIONS)}, got '{condition}'")
    if _int_attr(op, "true_stream") < 0:
        raise InferError(f"true_stream must be non-negative, got {op.get_attr('true_stream')}")


def verify_stream(op: Operation) -> None:
    """Directly in an ``rt.model``, a non-negative id, and only tasks inside."""
    parent = op.parent_op
    if parent is None or parent.name != "rt.model":
        raise InferError("must be directly inside an 'rt.model'")
    if _int_attr(op, "id") < 0:
        raise InferError(f"stream id must be non-negative, got {op.get_attr('id')}")
    for block in op.regions[0].blocks:
        for task in block.ops:
            if task.name not in TASK_OPS:
                raise _located(task, f"'{task.name}' op is not a task; an 'rt.stream' holds only "
                                     + ", ".join(sorted(TASK_OPS)))


def verify_model(op: Operation) -> None:
    """Whole-model checks: streams unique, waits matched by records, bindings and
    weights inside their spaces. Errors point at the offending task or stream."""
    problems: list[Diagnostic] = []
    for name in ("arena_size", "weight_size", "ub_size", "num_events"):
        if _int_attr(op, name) < 0:
            raise InferError(f"{name} must be non-negative, got {op.get_attr(name)}")
    for kind in ("inputs", "outputs"):
        seen: set[str] = set()
        for i, item in enumerate(_array(op, kind)):
            name, ref = decode_binding(item, f"{kind[:-1]} binding #{i}")
            if ref.space != ARENA:
                raise InferError(f"{kind[:-1]} binding '{name}' must be in the arena, not the {ref.space}")
            _check_in_space(ref, op, f"{kind[:-1]} binding '{name}'")
            if name in seen:
                raise InferError(f"{kind[:-1]} binding '{name}' is declared twice")
            seen.add(name)
    _verify_weights(op)
    streams: dict[int, Operation] = {}
    recorded: set[int] = set()
    waits: list[Operation] = []
    for block in op.regions[0].blocks:
        for child in block.ops:
            if child.name != "rt.stream":
                problems.append(_diag(child, f"'{child.name}' op is not a stream; an 'rt.model' holds only "
                                             "'rt.stream' ops"))
                continue
            sid = _int_attr(child, "id")
            first = streams.get(sid)
            if first is not None:
                problems.append(_diag(child, f"'rt.stream' op id {sid} is already declared")
                                .attach_note("first declared here", op_position(first)))
                continue
            streams[sid] = child
            for task_block in child.regions[0].blocks:
                for task in task_block.ops:
                    if task.name == "rt.record":
                        recorded.add(_int_attr(task, "event"))
                    elif task.name == "rt.wait":
                        waits.append(task)
    problems.extend(_control_problems(streams))
    for wait in waits:
        event = _int_attr(wait, "event")
        if event not in recorded:
            problems.append(_diag(wait, f"'rt.wait' op waits for event {event}, but no 'rt.record' in the "
                                        "model records it"))
    if problems:
        raise DiagnosticError(problems)


def _control_problems(streams: dict[int, Operation]) -> list[Diagnostic]:
    """Labels set once and jumped to only from their own stream; activations of
    declared streams other than the activating one."""
    problems: list[Diagnostic] = []
    label_at: dict[int, tuple[int, Operation]] = {}
    jumps: list[tuple[int, int, Operation]] = []
    activations: list[tuple[int, int, Operation]] = []
    for sid, stream in streams.items():
        for block in stream.regions[0].blocks:
            for task in block.ops:
                if task.name == "rt.label_set":
                    label = _int_attr(task, "label")
                    first = label_at.get(label)
                    if first is not None:
                        problems.append(_diag(task, f"'rt.label_set' op sets label {label}, which is already set")
                                        .attach_note("first set here", op_position(first[1])))
                    else:
                        label_at[label] = (sid, task)
                elif task.name == "rt.label_goto":
                    jumps.append((sid, _int_attr(task, "label"), task))
                elif task.name == "rt.label_switch":
                    labels = task.get_attr("labels")
                    for label in labels if isinstance(labels, list) else []:
                        jumps.append((sid, int(label), task))
                elif task.name in ("rt.stream_active", "rt.stream_switch"):
                    key = "stream" if task.name == "rt.stream_active" else "true_stream"
                    activations.append((sid, _int_attr(task, key), task))
    for sid, label, task in jumps:
        target = label_at.get(label)
        if target is None:
            problems.append(_diag(task, f"'{task.name}' op jumps to label {label}, but no 'rt.label_set' in the "
                                        "model sets it"))
        elif target[0] != sid:
            problems.append(_diag(task, f"'{task.name}' op on stream {sid} jumps to label {label}, which is set on "
                                        f"stream {target[0]}; a jump stays on its stream")
                            .attach_note("label set here", op_position(target[1])))
    for sid, target_id, task in activations:
        if target_id == sid:
            problems.append(_diag(task, f"'{task.name}' op activates its own stream {sid}"))
        elif target_id not in streams:
            problems.append(_diag(task, f"'{task.name}' op activates stream {target_id}, which the model does not "
                                        "declare"))
    return problems


def _verify_weights(op: Operation) -> None:
    limit = _int_attr(op, "weight_size")
    spans: list[tuple[int, int, str]] = []
    for i, item in enumerate(_array(op, "weights")):
        name, offset, value = decode_weight(item, f"weight #{i}")
        end = offset + weight_nbytes(value)
        if end > limit:
            raise InferError(f"weight '{name}' [{offset}, {end}) lies outside the weight space "
                             f"(weight_size = {limit})")
        spans.append((offset, end, name))
    # Sorted by start, a weight overlaps an earlier one iff it starts before the
    # furthest end seen so far (empty weights overlap nothing).
    spans.sort()
    furthest: tuple[int, int, str] | None = None
    for start, end, name in spans:
        if start == end:
            continue
        if furthest is not None and start < furthest[1]:
            raise InferError(f"weights '{furthest[2]}' [{furthest[0]}, {furthest[1]}) and '{name}' "
                             f"[{start}, {end}) overlap")
        if furthest is None or end > furthest[1]:
            furthest = (start, end, name)


def _array(op: Operation, name: str) -> Sequence[Attribute]:
    attr = op.attributes.get(name)
    return attr.value if isinstance(attr, ArrayAttr) else ()


def _diag(op: Operation, message: str) -> Diagnostic:
    return Diagnostic("error", message, op_position(op))


def _located(op: Operation, message: str) -> DiagnosticError:
    return DiagnosticError(_diag(op, message))


# ------------------------------------------------------------------ the ops

_LOC = AttrDef("loc", "str", doc="the source location of the ge op this task came from")

DIALECT.define(
    "model", results=0, regions=1, traits=("isolated", "symbol", "no_terminator"), verify=verify_model,
    attributes=(AttrDef("sym_name", "str", required=True, doc="the graph's name"),
                AttrDef("arena_size", "int", required=True, doc="bytes of the activation arena"),
                AttrDef("weight_size", "int", 0, doc="bytes of the read-only weight space"),
                AttrDef("ub_size", "int", 0, doc="bytes of the unified-buffer space: a UB-fused chain's "
                                                  "intermediates, which are no device memory"),
                AttrDef("num_events", "int", 0, doc="event ids are 0 .. num_events - 1"),
                AttrDef("inputs", "array", doc="graph inputs: [[name, ref], ...]"),
                AttrDef("outputs", "array", doc="graph outputs: [[name, ref], ...]"),
                AttrDef("weights", "array", doc="constants: [[name, offset, dense_resource<...>], ...]")),
    summary="One graph's task list: its streams (the region), arena, weights and I/O bindings.")
DIALECT.define(
    "stream", results=0, regions=1, traits=("no_terminator",), verify=verify_stream,
    attributes=(AttrDef("id", "int", required=True), AttrDef("priority", "int", 0,
                                                             doc="higher runs first on a busy engine")),
    summary="An in-order queue of tasks.")
DIALECT.define(
    "kernel", results=0, verify=verify_kernel,
    attributes=(AttrDef("op", "str", required=True, doc="the ge op the kernel runs: \"ge.conv2d\""),
                AttrDef("engine", "str", required=True, doc="AICore, AICPU, DVPP, HCCL, ..."),
                AttrDef("block_dim", "int", 1,
                        doc="cores an AICore kernel occupies; 1 (absent) leaves it to the emulator's cost model"),
                AttrDef("inputs", "array", required=True, doc="refs read when the kernel starts (unit: absent)"),
                AttrDef("outputs", "array", required=True, doc="refs written when the kernel finishes"),
                AttrDef("attrs", "dict", doc="the ge op's own attributes"),
                AttrDef("flops", "float", 0.0), AttrDef("bytes", "float", 0.0), _LOC,
                AttrDef("name", "str", doc="a stable id for reports")),
    summary="Run a ge op's kernel on an engine, reading and writing arena/weight refs.")
DIALECT.define("record", results=0, verify=verify_event_task,
               attributes=(AttrDef("event", "int", required=True), _LOC),
               summary="Record an event when the stream reaches this task.")
DIALECT.define("wait", results=0, verify=verify_event_task,
               attributes=(AttrDef("event", "int", required=True), _LOC),
               summary="Block the stream until the event has been recorded.")
DIALECT.define("memcpy", results=0, verify=verify_memcpy,
               attributes=(AttrDef("src", "array", required=True), AttrDef("dst", "array", required=True), _LOC),
               summary="Copy src to dst on the SDMA engine.")
DIALECT.define("end_graph", results=0, verify=verify_end_graph, attributes=(_LOC,),
               summary="The end of the stream's work for one run.")
DIALECT.define("label_set", results=0, verify=verify_label_task,
               attributes=(AttrDef("label", "int", required=True), _LOC),
               summary="Mark this point of the stream as a label (a jump target).")
DIALECT.define("label_goto", results=0, verify=verify_label_task,
               attributes=(AttrDef("label", "int", required=True), _LOC),
               summary="Go on at a label of this stream.")
DIALECT.define("label_switch", results=0, verify=verify_label_switch,
               attributes=(AttrDef("index", "array", required=True, doc="ref of one integer or i1 element"),
                           AttrDef("labels", "ints", required=True,
                                   doc="the label of each index value; past the end: the last"), _LOC),
               summary="Go on at labels[index] of this stream (If: [else, then]; While: [exit, body]).")
DIALECT.define("stream_active", results=0, verify=verify_stream_active,
               attributes=(AttrDef("stream", "int", required=True), _LOC),
               summary="Start a stream that does not start with the model, from its first task.")
DIALECT.define("stream_switch", results=0, verify=verify_stream_switch,
               attributes=(AttrDef("cond", "array", required=True, doc="ref of one integer or i1 element"),
                           AttrDef("condition", "str", "ne", doc="eq, ne, gt, ge, lt or le"),
                           AttrDef("value", "int", 0), AttrDef("true_stream", "int", required=True), _LOC),
               summary="Start true_stream when `cond <condition> value` holds; this stream goes on either way.")


def ref_list(op: Operation, name: str) -> list[Any]:
    """The refs of ``op``'s array attribute ``name`` (for converters; no bounds checks)."""
    attr = op.attributes.get(name)
    items = attr.value if isinstance(attr, ArrayAttr) else ()
    return [decode_ref(item, f"{name} #{i}", optional=True) for i, item in enumerate(items)]
