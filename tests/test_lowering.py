"""The task list as IR (``rt`` dialect), as JSON, and the ``lower-to-tasks`` pass.

Property tests: random task lists round-trip exactly through rt text and JSON;
lowering random ge graphs gives one kernel per op with the right refs, a plan
in which every read is written by a task that happens before it (or is an
input / weight), and zero-copy outputs. Plus the verifier's mutation checks and
bad input that must be a diagnostic, never a traceback.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.rt_module import element_type_of, module_from_task_list, task_list_from_module
from geir.backends.task_json import json_to_module, module_to_json, task_list_from_json, task_list_to_json
from geir.backends.task_list import (ARENA, WEIGHTS, Binding, EndGraph, Kernel, Memcpy, Record, Stream, TaskList,
                                TensorRef, Wait, WeightBlob)
from bench.graph_generator import generate_graph
from geir.attributes import ArrayAttr, DenseElementsAttr, DenseResourceAttr, IntegerAttr, StringAttr, TypeAttr
from geir.constants import CONSTANT_OPS, constant_value
from geir.diagnostics import DiagnosticError
from geir.dialect_registry import lookup_op
from geir.dialects.rt import NOT_KERNEL_GE_OPS
from geir.module import Module
from geir.opdef import Attrs, InferContext
from geir.operation import Block, Operation, OpResult, Region, Value
from geir.parser import parse_module
from geir.printer import module_to_string
from geir.types import F16, F32, I64, FunctionType, TensorType, parse_element_type, storage_dtype
from geir.verifier import verify
from ir_strategies import attributes
from geir.passes.lower_to_tasks import LowerToTasks
from geir.passes.pass_base import PassContext
from geir.passes.pass_manager import PassManager

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ============================================================ random task lists

DTYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "ui8", "i32", "i64", "f8E4M3FN"]
#: kernels of every arity shape: fixed, optional inputs, variadic inputs/results, none
KERNEL_OPS = ["ge.relu", "ge.add", "ge.conv2d", "ge.top_k", "ge.sum", "ge.split", "ge.cmo", "ge.onnx_op",
              "ge.clip", "ge.lstm"]
texts = st.text(max_size=12)


@st.composite
def refs(draw: Any, space: str = ARENA, limit: int = 4096) -> TensorRef:
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    return TensorRef(space, draw(st.integers(0, limit)), shape, draw(st.sampled_from(DTYPES)))


@st.composite
def kernels(draw: Any) -> Kernel:
    op = draw(st.sampled_from(KERNEL_OPS))
    od = lookup_op(op)
    assert od is not None
    lo, hi = od.operand_range()
    n_in = draw(st.integers(lo, hi if hi is not None else lo + 3))
    n_out = od.num_results if od.num_results >= 0 else draw(st.integers(0, 3))
    inputs = [draw(st.one_of(st.none(), refs(), refs(WEIGHTS))) for _ in range(n_in)]
    return Kernel(op=op, engine=draw(st.sampled_from(["AICore", "AICPU", "DVPP", "HCCL"])), inputs=inputs,
                  outputs=[draw(refs()) for _ in range(n_out)],
                  attributes=draw(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True),
                                                  attributes(), max_size=3)),
                  block_dim=draw(st.integers(1, 64)),
                  flops=draw(st.one_of(st.integers(0, 2 ** 40).map(float), st.floats(0, 1e12))),
                  bytes=draw(st.floats(0, 1e9)), loc=draw(texts), name=draw(texts))


def _random_weight(draw: Any, offset: int) -> WeightBlob:
    dtype = storage_dtype(parse_element_type(draw(st.sampled_from(DTYPES))))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    n = math.prod(shape) * dtype.itemsize
    if dtype == np.bool_:
        data = np.array(draw(st.lists(st.booleans(), min_size=math.prod(shape), max_size=math.prod(shape))),
                        dtype=np.bool_).reshape(shape)
    else:  # any bytes, NaN payloads included: weights must round-trip bit for bit
        data = np.frombuffer(draw(st.binary(min_size=n, max_size=n)), dtype=dtype).reshape(shape)
    return WeightBlob(draw(texts), offset, data)


@st.composite
def task_lists(draw: Any) -> TaskList:
    """A task list the rt verifier accepts: every wait has a record, refs in bounds."""
    ids = draw(st.lists(st.integers(0, 7), min_size=1, max_size=3, unique=True))
    events = draw(st.lists(st.integers(0, 5), max_size=4, unique=True))
    streams = []
    for sid in ids:
        tasks: list[Any] = []
        for _ in range(draw(st.integers(0, 5))):
            kind = draw(st.sampled_from(["kernel", "kernel", "record", "wait", "memcpy", "end"]))
            if kind == "kernel":
                tasks.append(draw(kernels()))
            elif kind in ("record", "wait") and events:
                event = draw(st.sampled_from(events))
                tasks.append(Record(event, draw(texts)) if kind == "record" else Wait(event, draw(texts)))
            elif kind == "memcpy":
                src = draw(st.one_of(refs(), refs(WEIGHTS)))
                dst = TensorRef(ARENA, draw(st.integers(0, 4096)), src.shape, src.dtype)
                tasks.append(Memcpy(src, dst, draw(texts)))
            else:
                tasks.append(EndGraph(draw(texts)))
        streams.append(Stream(sid, draw(st.integers(-3, 3)), tasks))
    # Every event some wait uses is recorded somewhere.
    waited = {t.event for s in streams for t in s.tasks if isinstance(t, Wait)}
    recorded = {t.event for s in streams for t in s.tasks if isinstance(t, Record)}
    for event in sorted(waited - recorded):
        streams[0].tasks.append(Record(event))
    weights, offset = [], 0
    for _ in range(draw(st.integers(0, 3))):
        w = _random_weight(draw, offset)
        weights.append(w)
        offset = w.offset + w.data.nbytes + draw(st.integers(0, 64))
    names = st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=3)
    inputs = [Binding(n, draw(refs())) for n in draw(names)]
    outputs = [Binding(n, draw(refs())) for n in draw(names)]
    tl = TaskList(streams=streams, weights=weights, inputs=inputs, outputs=outputs,
                  num_events=max(events, default=-1) + 1 + draw(st.integers(0, 2)), name=draw(texts))
    all_refs = [b.ref for b in inputs + outputs]
    for s in streams:
        for t in s.tasks:
            if isinstance(t, Kernel):
                all_refs += [r for r in t.inputs + t.outputs if r is not None]
            elif isinstance(t, Memcpy):
                all_refs += [t.src, t.dst]
    tl.arena_size = max([r.end for r in all_refs if r.space == ARENA], default=0) + draw(st.integers(0, 100))
    tl.weight_size = max([r.end for r in all_refs if r.space == WEIGHTS] + [offset], default=0)
    return tl


def comparable(tl: TaskList) -> Any:
    """``tl`` as plain data: attributes as their MLIR text (exact, NaN payloads
    included), weights as (name, offset, shape, element type, bytes)."""
    def task(t: Any) -> Any:
        if isinstance(t, Kernel):
            return ("kernel", t.op, t.engine, t.inputs, t.outputs, {k: str(v) for k, v in t.attributes.items()},
                    t.block_dim, t.flops, t.bytes, t.loc, t.name)
        return (t.kind, *[getattr(t, f) for f in ("event", "src", "dst", "loc") if hasattr(t, f)])
    weights = [(w.name, w.offset, w.data.shape, str(element_type_of(w.data.dtype)), w.data.tobytes())
               for w in tl.weights]
    return (tl.name, tl.arena_size, tl.weight_size, tl.num_events, tl.inputs, tl.outputs, weights,
            [(s.id, s.priority, [task(t) for t in s.tasks]) for s in tl.streams])


@SETTINGS
@given(task_lists())
def test_task_list_round_trips_through_rt_text(tl: TaskList) -> None:
    module = module_from_task_list(tl)
    verify(module)
    text = module_to_string(module)
    parsed = parse_module(text, "t.mlir")
    verify(parsed)
    assert module_to_string(parsed) == text
    assert comparable(task_list_from_module(parsed)) == comparable(tl)


@SETTINGS
@given(task_lists())
def test_task_list_round_trips_through_json(tl: TaskList) -> None:
    text = task_list_to_json(tl)
    assert json.loads(text)["version"] == 1
    assert comparable(task_list_from_json(text, "t.json")) == comparable(tl)
    module = json_to_module(text, "t.json")
    assert module_to_json(module) == text
    assert comparable(task_list_from_module(module)) == comparable(tl)


@SETTINGS
@given(task_lists())
def test_generic_form_of_a_task_list_round_trips(tl: TaskList) -> None:
    from geir.printer import PrintOptions
    generic = PrintOptions(generic=True)
    text = module_to_string(module_from_task_list(tl), generic)
    parsed = parse_module(text, "t.mlir")
    assert module_to_string(parsed, generic) == text
    assert comparable(task_list_from_module(parsed)) == comparable(tl)


# ============================================================ verifier mutations

def _two_stream_list() -> TaskList:
    a = TensorRef(ARENA, 0, (4,), "f32")
    b = TensorRef(ARENA, 512, (4,), "f32")
    c = TensorRef(ARENA, 1024, (4,), "f32")
    return TaskList(
        streams=[Stream(0, 0, [Kernel("ge.relu", "AICore", [a], [b]), Record(0), EndGraph()]),
                 Stream(1, 0, [Wait(0), Kernel("ge.neg", "AICore", [b], [c]), EndGraph()])],
        arena_size=1536, inputs=[Binding("a", a)], outputs=[Binding("c", c)], num_events=1)


def _verify_errors(tl: TaskList) -> list[str]:
    try:
        verify(parse_module(module_to_string(module_from_task_list(tl)), "t.mlir"))
    except DiagnosticError as e:
        return [d.message for d in e.diagnostics]
    return []


def test_the_verifier_accepts_a_correct_two_stream_list() -> None:
    assert _verify_errors(_two_stream_list()) == []


@pytest.mark.parametrize("mutate, message", [
    (lambda tl: tl.streams[0].tasks.pop(1), "waits for event 0, but no 'rt.record'"),
    (lambda tl: setattr(tl, "arena_size", 1030), "lies outside the arena (arena_size = 1030)"),
    (lambda tl: setattr(tl, "num_events", 0), "is not below the model's num_events (0)"),
    (lambda tl: setattr(tl.streams[1], "id", 0), "id 0 is already declared"),
    (lambda tl: setattr(tl.streams[1].tasks[1], "op", "ge.nope"), "runs 'ge.nope', which is not a registered"),
    (lambda tl: tl.streams[1].tasks[1].inputs.append(None), "'ge.neg' takes 1 inputs, but the kernel has 2"),
    (lambda tl: (setattr(tl, "weight_size", 16),
                 setattr(tl.streams[0].tasks[0], "outputs", [TensorRef(WEIGHTS, 0, (4,), "f32")])),
     "output #0 is in the read-only weights space"),
    (lambda tl: tl.outputs.append(Binding("c", tl.outputs[0].ref)), "output binding 'c' is declared twice"),
])
def test_each_mutation_is_caught_by_the_verifier(mutate: Any, message: str) -> None:
    tl = _two_stream_list()
    mutate(tl)
    errors = _verify_errors(tl)
    assert any(message in e for e in errors), errors


# ============================================================ lowering

def lower(module: Module, **options: Any) -> TaskList:
    PassManager([LowerToTasks(**options)]).run(module, PassContext())
    assert all(op.dialect == "rt" for op in module.walk() if op is not module.op), "a pure rt module"
    return task_list_from_module(module)


def _ge_ops(module: Module) -> list[Operation]:
    graph = next(module.graphs())
    return list(graph.regions[0].blocks[0].ops)


def check_lowering(module: Module, tl: TaskList, alignment: int = 512) -> None:
    """The structural promises of lower-to-tasks, checked from the outside."""
    graph = next(module.graphs())
    ops = _ge_ops(module)
    block = graph.regions[0].blocks[0]
    arg_attrs = graph.attributes.get("arg_attrs")
    # Where each ge value lives, as the task list says.
    where: dict[Value, TensorRef | None] = {a: b.ref for a, b in zip(block.arguments, tl.inputs)}
    assert len(tl.inputs) == len(block.arguments)
    consts = [op for op in ops if op.name in CONSTANT_OPS]
    assert len(tl.weights) == len(consts)
    for op, blob in zip(consts, tl.weights):
        expected = np.asarray(constant_value(op.results[0]), order="C").astype(blob.data.dtype)
        assert blob.data.tobytes() == expected.tobytes()
        assert blob.offset % alignment == 0 and blob.offset + blob.data.nbytes <= tl.weight_size
        t = op.results[0].type
        where[op.results[0]] = TensorRef(WEIGHTS, blob.offset, t.shape, str(t.element_type))
    # One kernel per ge op with a kernel, in block order per stream.
    kernel_ops = [op for op in ops if op.name not in NOT_KERNEL_GE_OPS]
    queues = {s.id: iter([t for t in s.tasks if isinstance(t, Kernel)]) for s in tl.streams}
    written: list[TensorRef] = []
    for op in kernel_ops:
        k = next(queues[op.get_attr("stream", 0)])
        assert k.op == op.name
        assert k.engine == (op.get_attr("engine") or op.definition.engine or "AICPU")
        assert k.block_dim == op.get_attr("block_dim", 1)  # unset stays 1: the emulator decides
        assert len(k.inputs) == len(op.operands) and len(k.outputs) == len(op.results)
        for v, ref in zip(op.operands, k.inputs):
            if isinstance(v, OpResult) and v.op.name == "ge.none":
                assert ref is None
            else:
                assert ref == where[v], (op.name, v)
        for r, ref in zip(op.results, k.outputs):
            assert ref.space == ARENA and ref.shape == r.type.shape and ref.dtype == str(r.type.element_type)
            assert 0 <= ref.offset and ref.end <= tl.arena_size
            where[r] = ref
            written.append(ref)
        if op.definition.cost is not None:
            cost = op.definition.cost(InferContext.for_op(op), [r.type for r in op.results])
            assert (k.flops, k.bytes) == (cost.flops, cost.bytes)
        assert set(k.attributes) == {n for n in op.attributes
                                     if n not in ("engine", "stream", "offsets", "block_dim")}
    assert all(next(q, None) is None for q in queues.values()), "no kernel without a ge op"
    # Default plan: fresh, aligned, never overlapping buffers.
    if not any("offsets" in op.attributes for op in ops) and arg_attrs is None:
        spans = sorted((r.offset, r.end) for r in written + [b.ref for b in tl.inputs])
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
        assert all(start % alignment == 0 for start, _ in spans)
    # Zero-copy outputs: a returned kernel result is its binding (its first return).
    ret = block.last_op
    seen: set[Value] = set()
    for v, b in zip(ret.operands, tl.outputs):
        if v in where and where[v] is not None and where[v].space == ARENA and isinstance(v, OpResult) \
                and v not in seen:
            assert b.ref == where[v]
            seen.add(v)
    assert_reads_happen_after_writes(tl)


def assert_reads_happen_after_writes(tl: TaskList) -> None:
    """Every arena byte a task reads is an input binding's or was written by a
    task that happens before it (same stream earlier, or through record/wait)."""
    tasks = [(s.id, i, t) for s in tl.streams for i, t in enumerate(s.tasks)]
    index = {(sid, i): n for n, (sid, i, _) in enumerate(tasks)}
    succ: dict[int, list[int]] = {n: [] for n in range(len(tasks))}
    records: dict[int, list[int]] = {}
    for n, (sid, i, t) in enumerate(tasks):
        if (sid, i + 1) in index:
            succ[n].append(index[(sid, i + 1)])
        if isinstance(t, Record):
            records.setdefault(t.event, []).append(n)
    for n, (_, _, t) in enumerate(tasks):
        if isinstance(t, Wait):
            for r in records.get(t.event, []):
                succ[r].append(n)

    def before(a: int, b: int) -> bool:
        stack, seen = [a], {a}
        while stack:
            x = stack.pop()
            if x == b:
                return True
            for y in succ[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
        return False

    inputs = {(b.ref.offset, b.ref.end) for b in tl.inputs}
    writers: list[tuple[int, TensorRef]] = []
    for n, (_, _, t) in enumerate(tasks):
        outs = t.outputs if isinstance(t, Kernel) else [t.dst] if isinstance(t, Memcpy) else []
        writers += [(n, r) for r in outs]
    for n, (_, _, t) in enumerate(tasks):
        reads = t.inputs if isinstance(t, Kernel) else [t.src] if isinstance(t, Memcpy) else []
        for ref in reads:
            if ref is None or ref.space != ARENA or ref.nbytes == 0 or (ref.offset, ref.end) in inputs:
                continue
            sources = [w for w, r in writers if r.offset == ref.offset and r.end == ref.end]
            assert any(before(w, n) for w in sources), f"task {tasks[n][:2]} reads {ref} before it is written"


@pytest.mark.parametrize("n_ops, seed", [(5, 0), (40, 1), (120, 2)])
def test_lowering_generated_graphs(n_ops: int, seed: int) -> None:
    text = generate_graph(n_ops, seed)
    tl = lower(parse_module(text, "g.mlir"))
    check_lowering(parse_module(text, "g.mlir"), tl)
    assert [s.id for s in tl.streams] == [0] and isinstance(tl.streams[0].tasks[-1], EndGraph)
    assert [b.name for b in tl.outputs] == ["output_0", "output_1"]  # as geir.graph_io names them


# ------------------------------------------------- random graphs via the op API

ELEMENTWISE_UNARY = ["ge.relu", "ge.neg", "ge.exp", "ge.abs", "ge.identity"]
ELEMENTWISE_BINARY = ["ge.add", "ge.mul", "ge.sub"]


def _make(block: Block, name: str, operands: list[Value], attrs: dict | None = None,
          hint: str | None = None) -> Operation:
    od = lookup_op(name)
    assert od is not None and od.infer is not None
    attrs = attrs or {}
    types = od.infer(InferContext([v.type for v in operands], Attrs(attrs, od.attributes), operands))
    op = Operation(name, operands, types, attrs)
    if hint:
        for i, r in enumerate(op.results):
            r.name_hint = hint if len(op.results) == 1 else f"{hint}#{i}"
    block.append(op)
    return op


@st.composite
def ge_graphs(draw: Any, streams: int = 1) -> Module:
    """A random graph of same-shape elementwise ops, constants, top_k (two
    results), clip with a ge.none operand; random returns (duplicates, inputs,
    constants included). With ``streams`` > 1, ops get random streams and a
    record/wait pair guards every cross-stream edge."""
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    t = TensorType(shape, draw(st.sampled_from([F32, F16])))
    n_args = draw(st.integers(1, 3))
    block = Block([t] * n_args, [f"in{i}" for i in range(n_args)])
    values: list[Value] = list(block.arguments)
    stream_of: dict[Value, int] = {a: 0 for a in block.arguments}
    next_event = 0
    for k in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "const", "topk", "clip"]))
        if kind == "const":
            data = np.asarray(draw(st.lists(st.floats(-4, 4, width=16), min_size=math.prod(shape),
                                            max_size=math.prod(shape))), dtype=t.element_type.numpy_dtype)
            op = _make(block, "ge.const", [], {"value": DenseElementsAttr(t, data.reshape(shape))}, f"c{k}")
            values.append(op.results[0])
            stream_of[op.results[0]] = 0
            continue
        if kind == "unary":
            name, operands, attrs = draw(st.sampled_from(ELEMENTWISE_UNARY)), [draw(st.sampled_from(values))], {}
        elif kind == "binary":
            name, attrs = draw(st.sampled_from(ELEMENTWISE_BINARY)), {}
            operands = [draw(st.sampled_from(values)), draw(st.sampled_from(values))]
        elif kind == "topk":
            kval = _make(block, "ge.const", [], {"value": DenseElementsAttr(TensorType((1,), I64),
                                                                            np.array([1], np.int64))})
            name, operands, attrs = "ge.top_k", [draw(st.sampled_from(values)), kval.results[0]], {}
            stream_of[kval.results[0]] = 0
        else:
            none = _make(block, "ge.none", [])
            hi = _make(block, "ge.const", [], {"value": DenseElementsAttr(TensorType((), t.element_type),
                                                                          np.array(1.0, t.element_type.numpy_dtype))})
            name, operands, attrs = "ge.clip", [draw(st.sampled_from(values)), none.results[0], hi.results[0]], {}
            stream_of[none.results[0]] = stream_of[hi.results[0]] = 0
        stream = draw(st.integers(0, streams - 1))
        if draw(st.booleans()):  # decisions an earlier pass (or the user) made
            attrs["engine"] = StringAttr(draw(st.sampled_from(["AICore", "AICPU", "VectorCore"])))
        if draw(st.booleans()):
            attrs["block_dim"] = IntegerAttr(draw(st.integers(1, 40)))
        if streams > 1:
            attrs["stream"] = IntegerAttr(stream)
            # A cross-stream edge: the producer's stream records, this one waits.
            for v in {stream_of[v] for v in operands if isinstance(v, OpResult) and stream_of[v] != stream}:
                _make_sync(block, "ge.record_event", next_event, v)
                _make_sync(block, "ge.wait_event", next_event, stream)
                next_event += 1
        op = _make(block, name, operands, attrs, f"v{k}")
        for r in op.results:
            stream_of[r] = stream
        values += [r for r in op.results if r.type is t]
    returned = draw(st.lists(st.sampled_from(values), min_size=1, max_size=4))
    block.append(Operation("ge.return", returned))
    graph = Operation("ge.graph", regions=[Region([block])], attributes={
        "sym_name": StringAttr("main"),
        "function_type": TypeAttr(FunctionType([t] * n_args, [v.type for v in returned]))})
    module = Module()
    module.body.append(graph)
    verify(module)
    return module


def _make_sync(block: Block, name: str, event: int, stream: int) -> None:
    block.append(Operation(name, attributes={"event": IntegerAttr(event), "stream": IntegerAttr(stream)}))


def _copy(module: Module) -> Module:
    return parse_module(module_to_string(module), "g.mlir")


@SETTINGS
@given(ge_graphs())
def test_lowering_random_graphs_on_one_stream(module: Module) -> None:
    reference = _copy(module)
    tl = lower(module)
    check_lowering(reference, tl)
    assert len(tl.streams) == 1


@SETTINGS
@given(ge_graphs(streams=3))
def test_lowering_random_multi_stream_graphs(module: Module) -> None:
    reference = _copy(module)
    tl = lower(module)
    check_lowering(reference, tl)
    n_sync = sum(1 for op in _ge_ops(reference) if op.name in ("ge.record_event", "ge.wait_event"))
    assert sum(1 for s in tl.streams for t in s.tasks if isinstance(t, (Record, Wait))) == n_sync
    assert all(isinstance(s.tasks[-1], EndGraph) for s in tl.streams)


@SETTINGS
@given(ge_graphs(streams=2), st.sampled_from([32, 64, 512, 4096]))
def test_lowering_respects_the_alignment_option(module: Module, alignment: int) -> None:
    reference = _copy(module)
    tl = lower(module, alignment=alignment)
    check_lowering(reference, tl, alignment)
    assert tl.arena_size % alignment == 0 and tl.weight_size % alignment == 0


@SETTINGS
@given(ge_graphs(streams=2), st.integers(0, 3))
def test_lowering_uses_planned_offsets_as_given(module: Module, gap: int) -> None:
    # A plan of unaligned, distinct offsets, the way a memory pass might write it.
    planned: dict[Value, int] = {}
    offset = end = 3
    for op in _ge_ops(module):
        if op.name in NOT_KERNEL_GE_OPS or not op.results:
            continue
        offsets = []
        for r in op.results:
            offsets.append(offset)
            planned[r] = offset
            end = offset + r.type.size_in_bytes
            offset = end + gap
        op.attributes["offsets"] = ArrayAttr([IntegerAttr(o) for o in offsets])
    reference = _copy(module)
    tl = lower(module)
    check_lowering(reference, tl)
    kernels = [t for s in tl.streams for t in s.tasks if isinstance(t, Kernel)]
    outputs = {r.offset for k in kernels for r in k.outputs}
    assert outputs == set(planned.values())
    # Fresh buffers (the inputs) start past every planned byte.
    assert not planned or all(b.ref.offset >= end for b in tl.inputs)


def test_lowering_output_text_round_trips_and_exports() -> None:
    module = parse_module(generate_graph(30, 7), "g.mlir")
    lower(module)
    text = module_to_string(module)
    assert module_to_string(parse_module(text, "t.mlir")) == text
    back = json_to_module(module_to_json(module), "t.json")
    assert comparable(task_list_from_module(back)) == comparable(task_list_from_module(module))


def test_lowering_keeps_resource_blobs_without_copying() -> None:
    text = """
    ge.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %w = ge.weights {value = dense_resource<w0> : tensor<2xf32>} : () -> tensor<2xf32>
      %y = ge.add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      ge.return %y : (tensor<2xf32>) -> ()
    }
    {-# dialect_resources: { builtin: { w0: "0x040000000000803F00000040" } } #-}
    """
    module = parse_module(text, "w.mlir")
    blob = module.resources["w0"]
    tl = lower(module)
    model = next(iter(module.body.ops))
    weight = model.attributes["weights"][0][2]
    assert isinstance(weight, DenseResourceAttr) and weight.blob is blob
    assert tl.weights[0].data.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("body, message", [
    ("%r, %i = ge.merge %x, %x : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)",
     "'ge.merge' op is not supported by lower-to-tasks"),
    ("%r = ge.relu %x {offsets = [1, 2]} : (tensor<2xf32>) -> tensor<2xf32>", "has 2 'offsets' but 1 results"),
])
def test_unsupported_input_is_a_located_diagnostic(body: str, message: str) -> None:
    text = f"ge.graph @g(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {{\n{body}\nge.return %r : (tensor<2xf32>) -> ()\n}}"
    module = parse_module(text, "bad.mlir")
    with pytest.raises(DiagnosticError) as e:
        lower(module)
    d = e.value.diagnostics[0]
    assert message in d.message and d.file_position is not None and d.file_position.line == 2


# ============================================================ bad JSON

@settings(max_examples=200, deadline=None)
@given(st.data())
def test_damaged_json_is_a_diagnostic_never_a_traceback(data: Any) -> None:
    tl = _two_stream_list()
    text = task_list_to_json(tl)
    kind = data.draw(st.sampled_from(["cut", "delete", "insert", "replace_value"]))
    if kind == "cut":
        damaged = text[:data.draw(st.integers(0, len(text) - 1))]
    elif kind == "delete":
        i = data.draw(st.integers(0, len(text) - 1))
        damaged = text[:i] + text[i + 1:]
    elif kind == "insert":
        i = data.draw(st.integers(0, len(text)))
        damaged = text[:i] + data.draw(st.sampled_from(list('{}[],:"x-1 '))) + text[i:]
    else:
        doc = json.loads(text)
        path = data.draw(st.sampled_from([("arena_size",), ("streams", 0, "tasks", 0, "op"),
                                          ("streams", 1, "tasks", 0, "event"), ("outputs", 0, "ref", "shape"),
                                          ("streams", 0, "tasks", 0, "inputs", 0), ("version",)]))
        node = doc
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = data.draw(st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=3),
                                             st.lists(st.integers(), max_size=2), st.booleans()))
        damaged = json.dumps(doc)
    try:
        json_to_module(damaged, "d.json")
    except DiagnosticError as e:
        pos = e.diagnostics[0].file_position
        assert pos is not None and pos.file == "d.json" and pos.line >= 1 and pos.col >= 1


def test_malformed_json_points_at_the_json_error() -> None:
    with pytest.raises(DiagnosticError) as e:
        json_to_module('{\n  "version": 1,\n  "arena_size": 16\n  "streams": []\n}', "m.json")
    d = e.value.diagnostics[0]
    assert d.message == "malformed task-list JSON: Expecting ',' delimiter"
    assert (d.file_position.line, d.file_position.col) == (4, 3)


def test_resources_nested_in_attributes_are_printed() -> None:
    """A dense_resource inside an array or dictionary (rt.model's weights, a
    kernel's attrs) still gets its blob in the file's resource section."""
    module = Module()
    blob = module.add_resource("fill", np.array([7.0], np.float32).tobytes())
    value = DenseResourceAttr(TensorType((1,), F32), blob)
    out = TensorRef(ARENA, 0, (2,), "f32")
    tl = TaskList(streams=[Stream(0, 0, [Kernel("ge.constant_of_shape", "AICore", [TensorRef(WEIGHTS, 0, (1,), "i64")],
                                                [out], {"value": value})])],
                  arena_size=512, weight_size=8, weights=[WeightBlob("shape", 0, np.array([2], np.int64))])
    text = module_to_string(module_from_task_list(tl))
    assert text.count("dialect_resources") == 1 and "fill: \"0x" in text and "shape: \"0x" in text
    back = task_list_from_module(parse_module(text, "t.mlir"))
    assert back.streams[0].tasks[0].attributes["value"].to_numpy().tolist() == [7.0]


def test_splat_weights_are_one_element_in_json() -> None:
    zeros = np.broadcast_to(np.float32(0.0), (256, 256))
    ramp = np.arange(6, dtype=np.float32).reshape(2, 3)
    tl = TaskList(streams=[Stream(0, tasks=[EndGraph()])], weights=[WeightBlob("z", 0, zeros), WeightBlob("r", 262144, ramp)],
                  weight_size=262144 + 512)
    doc = json.loads(task_list_to_json(tl))
    z, r = doc["weights"]
    assert "splat" in z and "data" not in z and len(z["splat"]) == 8  # 4 bytes, base64
    assert "data" in r
    back = task_list_from_json(task_list_to_json(tl), "t.json")
    assert back.weights[0].data.shape == (256, 256) and not back.weights[0].data.any()
    assert np.array_equal(back.weights[1].data, ramp)
