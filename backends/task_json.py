"""The task list as JSON, for tools outside geir (``ge-translate --export-tasks-json``
/ ``--import-tasks-json``).

Schema, version 1 — one object; every key below is always written, and on import
the ones marked *optional* may be left out::

    {
      "format": "geir.task-list",        // identifies the file               (optional)
      "version": 1,                      // bumped on any incompatible change
      "name": "main",
      "arena_size": 1024,                // bytes; activations, graph inputs and outputs
      "weight_size": 512,                // bytes; read-only constants       (optional, 0)
      "num_events": 1,                   // event ids are 0 .. num_events-1   (optional, 0)
      "ub_size": 0,                      // bytes; a UB-fused chain's intermediates, no
                                         // device memory                    (optional, 0)
      "inputs":  [{"name": "x", "ref": REF}],                                (optional, [])
      "outputs": [{"name": "y", "ref": REF}],                                (optional, [])
      "weights": [{"name": "w", "offset": 0, "shape": [2, 4], "dtype": "f32",
                   "data": "<base64 of the little-endian bytes>"}],         (optional, [])
                   (or "splat": "<base64 of one element>" when every element is equal,
                    or "absent": true for a weight whose values the model does not hold)
      "streams": [{"id": 0, "priority": 0, "tasks": [TASK, ...]}]           (priority optional, 0)
    }

    REF  = {"space": "arena" | "weights" | "ub", "offset": 0, "shape": [2, 4], "dtype": "f32"}
           (dtype spelled as in the IR: f16, bf16, f32, i1, i8, ui8, i32, i64, ...)
    TASK = {"kind": "kernel", "op": "ge.add", "engine": "AICore", "block_dim": 1,
            "inputs": [REF | null], "outputs": [REF], "attributes": {NAME: ATTR},
            "flops": 8, "bytes": 96, "loc": "model.mlir:3:5", "name": "y"}
              (block_dim, attributes, flops, bytes, loc, name optional; block_dim 1
               means unset: the emulator's cost model sizes the kernel)
         | {"kind": "record" | "wait", "event": 0, "loc": ""}
         | {"kind": "memcpy", "src": REF, "dst": REF, "loc": ""}
         | {"kind": "end_graph", "loc": ""}                       (loc optional everywhere)
         | {"kind": "label_set" | "label_goto", "label": 0}
         | {"kind": "label_switch", "index": REF, "labels": [1, 0]}  (index: one integer or i1 element)
         | {"kind": "stream_active", "stream": 2}
         | {"kind": "stream_switch", "cond": REF, "condition": "ne", "value": 0, "true_stream": 3}
                                                                   (condition optional, "ne"; value optional, 0)
    ATTR = an integer (an i64 attribute) | a float (f64) | a string | true/false
         | a list of ATTR | {"mlir": "<any attribute in MLIR syntax>"}  (e.g. "1.0 : f32")

Errors are DiagnosticErrors: malformed JSON at the line and column of the JSON
error, a schema violation at the object that violates it, and a task list that
fails the ``rt`` verifier at the offending task's object.
"""

from __future__ import annotations

import base64
import json
import json.decoder
import json.scanner
import math
from typing import Any, Callable, NoReturn

import numpy as np

from geir.backends.rt_module import element_type_of, module_from_task_list, task_list_from_module
from geir.backends.task_list import (SPACES, Binding, EndGraph, Kernel, LabelGoto, LabelSet, LabelSwitch, Memcpy,
                                     Record, Stream, StreamActive, StreamSwitch, Task, TaskList, TensorRef, Wait,
                                     WeightBlob)
from geir.attributes import (ArrayAttr, Attribute, BoolAttr, FileLineColLoc, FloatAttr, IntegerAttr,
                             StringAttr)
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.module import Module
from geir.types import F64, I64, MAX_ELEMENTS, parse_element_type, storage_dtype

__all__ = ["FORMAT", "VERSION", "module_to_json", "json_to_module", "task_list_to_json", "task_list_from_json"]

FORMAT = "geir.task-list"
VERSION = 1


# ==================================================================== export

def module_to_json(module: Module) -> str:
    """The module's ``rt.model`` as task-list JSON (schema above)."""
    return task_list_to_json(task_list_from_module(module))


def task_list_to_json(tl: TaskList) -> str:
    """``tl`` as task-list JSON: one binding, weight or task per line, so diffs and
    greps stay readable."""
    head = {"format": FORMAT, "version": VERSION, "name": tl.name, "arena_size": tl.arena_size,
            "weight_size": tl.weight_size, "num_events": tl.num_events, "ub_size": tl.ub_size}
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    for key, items in (("inputs", [_binding(b) for b in tl.inputs]), ("outputs", [_binding(b) for b in tl.outputs]),
                       ("weights", [_weight(w) for w in tl.weights])):
        if not items:
            lines.append(f'  "{key}": [],')
            continue
        lines.append(f'  "{key}": [')
        lines.extend("    " + json.dumps(item) + ("," if i + 1 < len(items) else "") for i, item in enumerate(items))
        lines.append("  ],")
    lines.append('  "streams": [')
    for i, stream in enumerate(tl.streams):
        lines.append(f'    {{"id": {stream.id}, "priority": {stream.priority}, "tasks": [')
        for k, task in enumerate(stream.tasks):
            comma = "," if k + 1 < len(stream.tasks) else ""
            lines.append("      " + json.dumps(_task(task)) + comma)
        lines.append("    ]}" + ("," if i + 1 < len(tl.streams) else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _ref(ref: TensorRef | None) -> dict[str, Any] | None:
    if ref is None:
        return None
    return {"space": ref.space, "offset": ref.offset, "shape": list(ref.shape), "dtype": ref.dtype}


def _binding(b: Binding) -> dict[str, Any]:
    return {"name": b.name, "ref": _ref(b.ref)}


def _weight(w: WeightBlob) -> dict[str, Any]:
    data = np.asarray(w.data)
    out: dict[str, Any] = {"name": w.name, "offset": w.offset, "shape": list(data.shape),
                           "dtype": str(element_type_of(data.dtype))}
    if w.absent:
        # a graph without its weights: the task list keeps each weight's type, and
        # whoever runs it runs timing-only, as with the IR it came from
        out["absent"] = True
        return out
    flat = data.reshape(-1)
    # A splat (one value repeated: zero-filled biases, generated weights) is one element,
    # not megabytes of copies of it. Compare bits, so -0.0 and NaN payloads survive.
    if flat.size > 1:
        bits = np.ascontiguousarray(flat).view(np.uint8).reshape(flat.size, -1)
        if bool(np.all(bits == bits[0])):
            out["splat"] = base64.b64encode(flat[:1].tobytes()).decode("ascii")
            return out
    out["data"] = base64.b64encode(np.ascontiguousarray(data).tobytes()).decode("ascii")
    return out


def _number(x: float) -> int | float:
    return int(x) if math.isfinite(x) and x == int(x) and abs(x) < 2 ** 63 else x


def _task(task: Task) -> dict[str, Any]:
    if isinstance(task, Kernel):
        return {"kind": "kernel", "op": task.op, "engine": task.engine, "block_dim": task.block_dim,
                "inputs": [_ref(r) for r in task.inputs], "outputs": [_ref(r) for r in task.outputs],
                "attributes": {k: _attr_to_json(v) for k, v in sorted(task.attributes.items())},
                "flops": _number(task.flops), "bytes": _number(task.bytes), "loc": task.loc, "name": task.name}
    if isinstance(task, (Record, Wait)):
        return {"kind": task.kind, "event": task.event, "loc": task.loc}
    if isinstance(task, Memcpy):
        return {"kind": "memcpy", "src": _ref(task.src), "dst": _ref(task.dst), "loc": task.loc}
    if isinstance(task, (LabelSet, LabelGoto)):
        return {"kind": task.kind, "label": task.label, "loc": task.loc}
    if isinstance(task, LabelSwitch):
        return {"kind": "label_switch", "index": _ref(task.index), "labels": list(task.labels), "loc": task.loc}
    if isinstance(task, StreamActive):
        return {"kind": "stream_active", "stream": task.stream, "loc": task.loc}
    if isinstance(task, StreamSwitch):
        return {"kind": "stream_switch", "cond": _ref(task.cond), "condition": task.condition, "value": task.value,
                "true_stream": task.true_stream, "loc": task.loc}
    return {"kind": "end_graph", "loc": task.loc}


def _attr_to_json(a: Attribute) -> Any:
    """Plain JSON where that loses nothing, MLIR text otherwise."""
    if isinstance(a, BoolAttr):
        return a.value
    if isinstance(a, IntegerAttr) and a.type is I64 and not isinstance(a.value, bool):
        return a.value
    if isinstance(a, FloatAttr) and a.type is F64 and math.isfinite(a.value):
        return a.value
    if isinstance(a, StringAttr) and a.type is None:
        return a.value
    if isinstance(a, ArrayAttr):
        return [_attr_to_json(x) for x in a.value]
    return {"mlir": str(a)}


# ==================================================================== import

def json_to_module(text: str, filename: str = "<stdin>") -> Module:
    """The ``rt`` module a task-list JSON text describes, verified.

    Raises DiagnosticError located in ``text`` for malformed JSON, a schema
    violation or a task list the ``rt`` verifier rejects.
    """
    from geir.verifier import verify
    module = module_from_task_list(task_list_from_json(text, filename))
    try:
        verify(module)
    except DiagnosticError:
        # Point the diagnostics at the JSON objects the ops came from, then say it again.
        _locate_ops(module, text, filename)
        verify(module)
        raise
    return module


def task_list_from_json(text: str, filename: str = "<stdin>") -> TaskList:
    """The :class:`TaskList` of a task-list JSON text (checked against the schema only)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise DiagnosticError(Diagnostic("error", f"malformed task-list JSON: {e.msg}",
                                         FileLineColLoc(filename, e.lineno, e.colno))) from None
    except RecursionError:
        raise DiagnosticError(Diagnostic("error", "malformed task-list JSON: nested too deeply",
                                         FileLineColLoc(filename, 1, 1))) from None
    try:
        return _Reader().task_list(doc)
    except _SchemaError as e:
        line, col = _position_of(text, e.path)
        where = _path_text(e.path)
        raise DiagnosticError(Diagnostic("error", f"invalid task list: {where}{e.message}",
                                         FileLineColLoc(filename, line, col))) from None


class _SchemaError(Exception):
    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _path_text(path: tuple[str | int, ...]) -> str:
    text = ""
    for p in path:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else p)
    return f"{text}: " if text else ""


_REQUIRED = object()
_KINDS = {int: "an integer", str: "a string", list: "a list", dict: "an object", float: "a number",
          bool: "true or false"}


class _Reader:
    """Schema checks with the JSON path of every value, for the error message."""

    def fail(self, path: tuple[str | int, ...], message: str) -> NoReturn:
        raise _SchemaError(path, message)

    def get(self, obj: dict[str, Any], key: str, kind: type, path: tuple[str | int, ...],
            default: Any = _REQUIRED) -> Any:
        if key not in obj:
            if default is _REQUIRED:
                self.fail(path, f"missing key \"{key}\"")
            return default
        value = obj[key]
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float
              else isinstance(value, kind) and not (kind is int and isinstance(value, bool)))
        if not ok:
            self.fail(path + (key,), f"expected {_KINDS[kind]}, got {json.dumps(value)[:40]}")
        return value

    def obj(self, value: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(path, f"expected an object, got {json.dumps(value)[:40]}")
        return value

    def natural(self, obj: dict[str, Any], key: str, path: tuple[str | int, ...], default: Any = _REQUIRED) -> int:
        value = self.get(obj, key, int, path, default)
        if value < 0:
            self.fail(path + (key,), f"expected a non-negative integer, got {value}")
        return value

    def items(self, obj: dict[str, Any], key: str, path: tuple[str | int, ...], read: Callable[[Any, tuple], Any],
              required: bool = False) -> list[Any]:
        values = self.get(obj, key, list, path, _REQUIRED if required else [])
        return [read(v, path + (key, i)) for i, v in enumerate(values)]

    # ------------------------------------------------------------- pieces
    def task_list(self, doc: Any) -> TaskList:
        root = self.obj(doc, ())
        fmt = self.get(root, "format", str, (), FORMAT)
        if fmt != FORMAT:
            self.fail(("format",), f"expected \"{FORMAT}\", got \"{fmt}\"")
        version = self.get(root, "version", int, ())
        if version != VERSION:
            self.fail(("version",), f"unsupported version {version} (this geir reads version {VERSION})")
        return TaskList(
            name=self.get(root, "name", str, (), "main"), arena_size=self.natural(root, "arena_size", ()),
            weight_size=self.natural(root, "weight_size", (), 0), num_events=self.natural(root, "num_events", (), 0),
            ub_size=self.natural(root, "ub_size", (), 0),
            inputs=self.items(root, "inputs", (), self.binding), outputs=self.items(root, "outputs", (), self.binding),
            weights=self.items(root, "weights", (), self.weight),
            streams=self.items(root, "streams", (), self.stream, required=True))

    def ref(self, value: Any, path: tuple[str | int, ...]) -> TensorRef:
        o = self.obj(value, path)
        space = self.get(o, "space", str, path)
        if space not in SPACES:
            self.fail(path + ("space",), f"expected \"arena\", \"weights\" or \"ub\", got \"{space}\"")
        return TensorRef(space, self.natural(o, "offset", path), self.shape(o, path), self.dtype(o, path))

    def optional_ref(self, value: Any, path: tuple[str | int, ...]) -> TensorRef | None:
        return None if value is None else self.ref(value, path)

    def shape(self, o: dict[str, Any], path: tuple[str | int, ...]) -> tuple[int, ...]:
        dims = self.get(o, "shape", list, path)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
            self.fail(path + ("shape",), f"expected a list of non-negative integers, got {json.dumps(dims)[:40]}")
        if math.prod(dims) > MAX_ELEMENTS:
            self.fail(path + ("shape",), f"{json.dumps(dims)[:60]} holds {math.prod(dims):.3g} elements, more than "
                                         f"a tensor's bytes can number ({MAX_ELEMENTS:.3g} at most)")
        return tuple(dims)

    def dtype(self, o: dict[str, Any], path: tuple[str | int, ...]) -> str:
        dtype = self.get(o, "dtype", str, path)
        et = parse_element_type(dtype)
        try:
            if et is None:
                raise ValueError
            storage_dtype(et)
        except ValueError:
            self.fail(path + ("dtype",), f"unknown element type \"{dtype}\"")
        return dtype

    def binding(self, value: Any, path: tuple[str | int, ...]) -> Binding:
        o = self.obj(value, path)
        return Binding(self.get(o, "name", str, path), self.ref(self.get(o, "ref", dict, path), path + ("ref",)))

    def weight(self, value: Any, path: tuple[str | int, ...]) -> WeightBlob:
        o = self.obj(value, path)
        shape, dtype = self.shape(o, path), self.dtype(o, path)
        et = parse_element_type(dtype)
        assert et is not None
        np_dtype = storage_dtype(et)
        name, offset = self.get(o, "name", str, path), self.natural(o, "offset", path)
        if self.get(o, "absent", bool, path, False):
            for key in ("data", "splat"):
                if key in o:
                    self.fail(path + (key,), f"an absent weight holds no \"{key}\"")
            return WeightBlob(name, offset, np.broadcast_to(np.zeros((), np_dtype), shape), absent=True)
        key = "splat" if "splat" in o else "data"
        try:
            raw = base64.b64decode(self.get(o, key, str, path), validate=True)
        except ValueError:
            self.fail(path + (key,), "expected base64 data")
        count = int(np.prod(shape, dtype=np.int64))
        need = np_dtype.itemsize if key == "splat" else count * np_dtype.itemsize
        if len(raw) != need:
            self.fail(path + (key,), f"holds {len(raw)} bytes, but {'one element' if key == 'splat' else f'shape {list(shape)}'} "
                                     f"of {dtype} needs {need}")
        data = np.frombuffer(raw, dtype=np_dtype)
        data = np.broadcast_to(data[0], shape) if key == "splat" else data.reshape(shape)
        return WeightBlob(name, offset, data)

    def stream(self, value: Any, path: tuple[str | int, ...]) -> Stream:
        o = self.obj(value, path)
        return Stream(self.natural(o, "id", path), self.get(o, "priority", int, path, 0),
                      self.items(o, "tasks", path, self.task, required=True))

    def task(self, value: Any, path: tuple[str | int, ...]) -> Task:
        o = self.obj(value, path)
        kind = self.get(o, "kind", str, path)
        loc = self.get(o, "loc", str, path, "")
        if kind == "kernel":
            attrs = self.get(o, "attributes", dict, path, {})
            return Kernel(
                op=self.get(o, "op", str, path), engine=self.get(o, "engine", str, path),
                inputs=self.items(o, "inputs", path, self.optional_ref, required=True),
                outputs=self.items(o, "outputs", path, self.ref, required=True),
                attributes={k: self.attribute(v, path + ("attributes", k)) for k, v in attrs.items()},
                block_dim=self.get(o, "block_dim", int, path, 1), flops=float(self.get(o, "flops", float, path, 0)),
                bytes=float(self.get(o, "bytes", float, path, 0)), loc=loc, name=self.get(o, "name", str, path, ""))
        if kind in ("record", "wait"):
            event = self.natural(o, "event", path)
            return Record(event, loc) if kind == "record" else Wait(event, loc)
        if kind == "memcpy":
            return Memcpy(self.ref(self.get(o, "src", dict, path), path + ("src",)),
                          self.ref(self.get(o, "dst", dict, path), path + ("dst",)), loc)
        if kind == "end_graph":
            return EndGraph(loc)
        if kind in ("label_set", "label_goto"):
            return (LabelSet if kind == "label_set" else LabelGoto)(self.natural(o, "label", path), loc)
        if kind == "label_switch":
            labels = self.get(o, "labels", list, path)
            if not labels or any(not isinstance(x, int) or isinstance(x, bool) or x < 0 for x in labels):
                self.fail(path + ("labels",), "expected a non-empty list of non-negative integers")
            return LabelSwitch(self.ref(self.get(o, "index", dict, path), path + ("index",)), list(labels), loc)
        if kind == "stream_active":
            return StreamActive(self.natural(o, "stream", path), loc)
        if kind == "stream_switch":
            return StreamSwitch(self.ref(self.get(o, "cond", dict, path), path + ("cond",)),
                                self.natural(o, "true_stream", path), self.get(o, "condition", str, path, "ne"),
                                self.get(o, "value", int, path, 0), loc)
        self.fail(path + ("kind",), f"unknown task kind \"{kind}\" (expected kernel, record, wait, memcpy, "
                                    "end_graph, label_set, label_goto, label_switch, stream_active or stream_switch)")

    def attribute(self, value: Any, path: tuple[str | int, ...]) -> Attribute:
        if isinstance(value, bool):
            return BoolAttr(value)
        if isinstance(value, int):
            return IntegerAttr(value)
        if isinstance(value, float):
            return FloatAttr(value, F64)
        if isinstance(value, str):
            return StringAttr(value)
        if isinstance(value, list):
            return ArrayAttr(tuple(self.attribute(v, path + (i,)) for i, v in enumerate(value)))
        if isinstance(value, dict) and set(value) == {"mlir"} and isinstance(value["mlir"], str):
            from geir.parser import parse_attribute
            try:
                return parse_attribute(value["mlir"])
            except DiagnosticError as e:
                self.fail(path + ("mlir",), f"not an MLIR attribute: {e.diagnostics[0].message}")
        self.fail(path, f"expected an attribute value or {{\"mlir\": \"...\"}}, got {json.dumps(value)[:40]}")


# ======================================================= positions in the text

def _positions(text: str) -> Any:
    """The JSON value of ``text`` where every object is a dict remembering the
    offset of its ``{`` (json's pure-Python scanner lets us hook object parsing)."""
    decoder = json.JSONDecoder()

    class _At(dict):  # type: ignore[type-arg]
        offset = 0

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[dict[str, Any], int]:
        result, end = json.decoder.JSONObject(s_and_end, *args)
        at = _At(result)
        at.offset = s_and_end[1] - 1
        return at, end

    decoder.parse_object = parse_object  # type: ignore[assignment]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder.decode(text)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _position_of(text: str, path: tuple[str | int, ...]) -> tuple[int, int]:
    """Line and column of the innermost object on ``path`` (the document when none)."""
    node: Any = _positions(text)
    offset = getattr(node, "offset", 0)
    for p in path:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
        offset = getattr(node, "offset", offset)
    return _line_col(text, offset)


def _locate_ops(module: Module, text: str, filename: str) -> None:
    """Give each rt op the position of the JSON object it came from."""
    doc = _positions(text)
    for model in module.body.ops:
        model.source = FileLineColLoc(filename, *_line_col(text, getattr(doc, "offset", 0)))
        streams = doc.get("streams", [])
        for stream_op, stream in zip(model.regions[0].blocks[0].ops, streams):
            stream_op.source = FileLineColLoc(filename, *_line_col(text, stream.offset))
            tasks = stream.get("tasks", [])
            for task_op, task in zip(stream_op.regions[0].blocks[0].ops, tasks):
                task_op.source = FileLineColLoc(filename, *_line_col(text, task.offset))
