"""``lower-to-tasks``: each ``ge.graph`` becomes an ``rt.model`` task list (ge -> rt).

What the lowering reads, and what it does when a decision is absent:

* ``engine`` (str) on an op: the kernel's engine; absent: the op's default engine
  (its OpDef), else ``AICPU`` — GE's fallback for what no other engine runs.
* ``stream`` (int): the stream whose queue gets the task, in block order;
  absent: stream 0.
* ``offsets`` (one arena offset per result): used as given; the lowering does not
  second-guess a memory plan (the emulator's race checker does). A value that
  stays in the unified buffer (``fuse-ub``'s chain intermediates, read only by
  ops fused into the same kernel) goes to the task list's ``ub`` space, not the
  arena: its offset is one there. Absent: a fresh
  offset past every planned byte, aligned to ``alignment`` (512 B by default,
  GE's ``MEM_ALIGN_SIZE``: every buffer then starts on a boundary the AICore's
  32-byte vector loads and the SDMA bursts like, and our arena size compares
  with GE's ``memory_size``). Fresh buffers are never reused: that is
  ``reuse-memory``'s job, and without it the plan is trivially race-free.
* ``block_dim``: used as given; absent: left unset (1, the task list's default),
  and the emulator's cost model derives it from the device it simulates (one core
  per output tile, capped at the core count) — the lowering does not know the
  device, so deciding here would put a second, device-blind rule beside it.
* ``ge.record_event {event}`` / ``ge.wait_event {event}`` become ``rt.record`` /
  ``rt.wait`` in place, on their ``stream`` attribute's stream. Without one, a
  record goes to the stream of the closest kernel before it (it announces that
  kernel's completion) and a wait to the stream of the closest kernel after it
  (it guards that kernel's start); with no such kernel, stream 0.
* ``ge.const`` / ``ge.weights``: a weight blob each (same alignment), named by the
  op's ``loc("name")``, else its SSA name; kernels read them in the weight space
  (an ``offsets`` attribute on a constant is ignored: it is not in the arena).
* graph arguments: input bindings named by their ``ge.name`` argument attribute
  (else the SSA name, else ``input<i>``), at the ``ge.offset`` argument attribute
  when a memory plan set one; results: output bindings named by ``ge.name``
  result attributes (else ``output<i>``). Zero-copy: a returned value a kernel
  computes *is* its output binding (the kernel writes it in place); a returned
  input or constant, or a value returned twice, is copied by an ``rt.memcpy``
  at the end of its producer's stream (stream 0 for inputs and constants).
* ``ge.none`` operands: absent (``unit``) input refs.
* every stream ends with ``rt.end_graph``; streams are ordered by id, with the
  priorities of the graph attribute ``ge.stream_priorities = [p0, p1, ...]``
  when present (else 0).

* ``ge.if``, the while form of ``ge.loop`` and ``ge.scan`` over axis 0: label tasks on the control op's
  stream (``rt.label_switch`` / ``rt.label_set`` / ``rt.label_goto``), as GE's
  label makers build them for the task sink; the region's ops follow on the
  same stream, its values at the offsets ``reuse-memory`` planned in the
  control op's region buffer (unplanned: bump-allocated past the planned
  arena), the two branches of an ``if`` from the same base (see
  :mod:`.lower_control_flow`).
* a ``ge.switch`` / ``ge.merge`` diamond: stream switches, a stream per
  branch and one for the merges (see :mod:`.lower_switch_merge`).

Not lowered, with an error at the op (the host-driven path runs them): a loop
with scan outputs, carried values that change shape, a scan over another axis
or backwards, loop frames, and a switch/merge that is not a diamond. Dynamic shapes
are an error too: an arena plan needs every size.
"""

from __future__ import annotations

import attrs
import numpy as np

from geir.backends.cost_model import COST_ATTRIBUTES
from geir.backends.rt_module import model_from_task_list, weight_array
from geir.backends.task_list import (ARENA, UB, WEIGHTS, Binding, EndGraph, Kernel, Memcpy, Record, Stream, Task,
                                     TaskList, TensorRef, Wait, WeightBlob)
from geir.attributes import (ArrayAttr, CallSiteLoc, DenseElementsAttr, DenseResourceAttr,
                             FileLineColLoc, FusedLoc, IntegerAttr, Location, NameLoc)
from geir.absent_weights import is_absent
from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.dialects.ge import COMMON_ATTRIBUTES
from geir.dialects.rt import NOT_KERNEL_GE_OPS
from geir.graph_io import attribute_dicts, input_names, output_names
from geir.module import Module
from geir.opdef import InferError, op_cost
from geir.operation import Operation, Value
from geir.rewriter import Rewriter
from geir.types import TensorType, storage_dtype
from geir.passes.fuse_ub import stays_in_unified_buffer
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.passes.lower_control_flow import ControlFlowEmitter, constant_weight, control_op_problem, nested_constants
from geir.passes.lower_switch_merge import DATAFLOW_OPS, emit_switch_group, switch_groups

__all__ = ["LowerToTasks", "lower_graph", "graph_task_list", "kernel_task", "loc_text"]

#: the engine of an op that names none and whose OpDef has no default
FALLBACK_ENGINE = "AICPU"
#: attributes that are scheduling decisions, not kernel semantics: they become
#: task fields (engine, stream, offsets, block_dim) or are spent (user pins)
#: what the kernel's cost depends on among them stays on the task (fusion marks, the core cap)
DECISIONS = frozenset(a.name for a in COMMON_ATTRIBUTES) - frozenset(COST_ATTRIBUTES)
SYNC = frozenset({"ge.record_event", "ge.wait_event"})
MAX_ERRORS = 20
#: a graph's attributes its rt.model keeps: the gear a module of gears runs it
#: as (``geir.backends.shape_gears``), so lowering such a module keeps its gears
CARRIED_ATTRIBUTES = ("ge.gear", "ge.gear_inputs", "ge.gear_outputs")


@attrs.define
class LowerToTasks(ModulePass):
    name = "lower-to-tasks"
    summary = "Lower each ge.graph to an rt.model task list (streams, events, arena, weights, I/O bindings)"

    alignment: int = option(512, "byte alignment of fresh arena buffers and weights (GE: 512)")

    def run(self, module: Module, ctx: PassContext) -> None:
        if self.alignment < 1:
            raise DiagnosticError(Diagnostic("error", f"lower-to-tasks: option 'alignment' must be positive, "
                                                      f"got {self.alignment}"))
        rewriter = Rewriter()
        for graph in list(module.graphs()):
            model = lower_graph(graph, module, self.alignment)
            rewriter.insert_before(graph, model)
            rewriter.erase_op(graph)


def lower_graph(graph: Operation, module: Module, alignment: int = 512) -> Operation:
    """The ``rt.model`` op for ``graph`` (``module`` is where new resources would go).
    Raises DiagnosticError at every op that cannot be lowered."""
    lowering = _GraphLowering(graph, alignment)
    tl = lowering.lower()
    model = model_from_task_list(tl, module, locations=lowering.locations, weight_values=lowering.weight_values)
    model.location = graph.location
    for name in CARRIED_ATTRIBUTES:
        if name in graph.attributes:
            model.attributes[name] = graph.attributes[name]
    return model


def graph_task_list(graph: Operation, alignment: int = 512) -> TaskList:
    """The task list ``graph`` lowers to, leaving the IR unchanged (for passes
    that measure a schedule). Raises DiagnosticError like :func:`lower_graph`."""
    return _GraphLowering(graph, alignment).lower()


def _align(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def loc_text(loc: Location) -> str:
    """A location as the short text a task's ``loc`` keeps: ``file:line:col`` or the name."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.file}:{loc.line}:{loc.col}"
    if isinstance(loc, NameLoc):
        return loc.name
    if isinstance(loc, CallSiteLoc):
        return loc_text(loc.callee)
    if isinstance(loc, FusedLoc):
        return next((t for t in map(loc_text, loc.locations) if t), "")
    return ""


class _GraphLowering:
    """The state of lowering one graph: where each value lives, and the tasks per stream."""

    def __init__(self, graph: Operation, alignment: int) -> None:
        self.graph = graph
        self.block = graph.regions[0].blocks[0]
        self.ops = list(self.block.ops)
        self.alignment = alignment
        self.errors: list[Diagnostic] = []
        self.refs: dict[Value, TensorRef | None] = {}
        self.arena_end = 0  # the next fresh buffer starts at or after this
        self.ub_end = 0  # the same in the unified buffer
        self.tasks: dict[int, list[Task]] = {0: []}
        self.locations: dict[int, Location] = {}
        self.weights: list[WeightBlob] = []
        self.weight_values: list[DenseElementsAttr | DenseResourceAttr] = []
        self.weight_end = 0
        self.producer_stream: dict[Value, int] = {}
        self.next_label = 0
        #: streams a stream-active task starts (a region's own): no end_graph, they run per activation
        self.activated: set[int] = set()
        self.next_event = 1 + max((int(op.get_attr("event")) for op in graph.walk()  # type: ignore[arg-type]
                                   if op.name in SYNC and isinstance(op.get_attr("event"), int)), default=-1)
        #: the next stream id no op names (a switch's branches and merges get their own)
        streams = (op.get_attr("stream") for op in graph.walk() if "stream" in op.attributes)
        self.next_stream = 1 + max((s for s in streams if isinstance(s, int)), default=0)

    # ------------------------------------------------------------ driver
    def lower(self) -> TaskList:
        from geir.passes.range_shapes import dynamic_shape_diagnostics
        origins = dynamic_shape_diagnostics(self.graph)
        if origins:  # name where each dynamic dim starts, not every op it reaches
            raise DiagnosticError(origins)
        self.check()
        self.fail_if_errors()
        self.plan_arena()
        self.plan_weights()
        self.fail_if_errors()
        inputs = self.input_bindings()
        self.emit_tasks()
        outputs = self.output_bindings()
        self.fail_if_errors()
        for sid, tasks in self.tasks.items():
            if sid not in self.activated:
                tasks.append(EndGraph())
        priorities = self.priorities()
        events = [t.event for ts in self.tasks.values() for t in ts if isinstance(t, (Record, Wait))]
        return TaskList(
            streams=[Stream(sid, priorities.get(sid, 0), self.tasks[sid]) for sid in sorted(self.tasks)],
            arena_size=_align(self.arena_end, self.alignment), ub_size=_align(self.ub_end, self.alignment),
            weights=self.weights,
            weight_size=_align(self.weight_end, self.alignment), inputs=inputs, outputs=outputs,
            num_events=max(events, default=-1) + 1, name=str(self.graph.get_attr("sym_name", "main")))

    def error(self, op: Operation, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(Diagnostic("error", f"'{op.name}' op {message}", op_position(op)))

    def fail_if_errors(self) -> None:
        if self.errors:
            raise DiagnosticError(self.errors)

    # ------------------------------------------------------------ checks
    def check(self) -> None:
        """Everything the task list cannot express, reported at its op."""
        for i, arg in enumerate(self.block.arguments):
            problem = self.storable(arg.type)
            if problem is not None:
                self.error(self.graph, f"input #{i}: {problem}")
        dataflow = switch_groups(self.block)[1]  # a switch/merge diamond is checked as a whole
        for op in (inner for top in self.ops for inner in top.walk()):
            od = op.definition
            if op.dialect != "ge" or od is None:
                self.error(op, "is not a registered ge op; lower-to-tasks lowers only the ge dialect")
            elif op in dataflow:
                self.error(op, dataflow[op])
            elif op.regions or (od.has_trait("control") and not (op.name in DATAFLOW_OPS and op.parent is self.block)):
                problem = control_op_problem(op)
                if problem is not None:
                    self.error(op, problem)
                else:
                    for k, r in enumerate(op.results):
                        problem = self.storable(r.type)
                        if problem is not None:
                            self.error(op, f"result #{k}: {problem}")
            elif op.name not in ("ge.none", "ge.yield"):
                for k, r in enumerate(op.results):
                    problem = self.storable(r.type)
                    if problem is not None:
                        self.error(op, f"result #{k}: {problem}")

    @staticmethod
    def storable(t: object) -> str | None:
        """Why a value of type ``t`` cannot live in device memory, or None."""
        if not isinstance(t, TensorType):
            return f"has type {t}, which is not a tensor"
        if not t.is_static:
            return f"has a dynamic shape ({t}); lower-to-tasks needs static shapes to plan the arena"
        try:
            storage_dtype(t.element_type)
        except ValueError:
            return f"has element type {t.element_type}, which has no fixed-size storage in device memory"
        return None

    # ------------------------------------------------------------ memory
    def ref_for(self, t: TensorType, space: str, offset: int) -> TensorRef:
        return TensorRef(space, offset, t.shape, str(t.element_type))  # type: ignore[arg-type]

    def fresh(self, t: TensorType, unified_buffer: bool = False) -> TensorRef:
        if unified_buffer:
            ref = self.ref_for(t, UB, _align(self.ub_end, self.alignment))
            self.ub_end = ref.end
        else:
            ref = self.ref_for(t, ARENA, _align(self.arena_end, self.alignment))
            self.arena_end = ref.end
        return ref

    def plan_arena(self) -> None:
        """Planned offsets first (fresh buffers must start past all of them), then
        fresh offsets for the rest: inputs in order, then results in block order."""
        arg_attrs = attribute_dicts(self.graph.attributes.get("arg_attrs"))
        planned: dict[Value, int] = {}
        for i, arg in enumerate(self.block.arguments):
            offset = arg_attrs[i].get("ge.offset") if i < len(arg_attrs) else None
            if offset is not None:
                if not isinstance(offset, IntegerAttr) or offset.value < 0:
                    self.error(self.graph, f"input #{i}: 'ge.offset' must be a non-negative integer, got {offset}")
                else:
                    planned[arg] = offset.value
        for op in (inner for top in self.ops for inner in (top.walk() if top.regions else (top,))):
            # reuse-memory plans region values too (their offsets lie in the control op's region buffer)
            attr = op.attributes.get("offsets")
            if attr is None or op.name in CONSTANT_OPS or op.name == "ge.none":
                continue  # constants live in the weight space
            offsets = op.get_attr("offsets")
            if not isinstance(offsets, list) or len(offsets) != len(op.results):
                self.error(op, f"has {len(offsets) if isinstance(offsets, list) else '?'} 'offsets' but "
                               f"{len(op.results)} results")
            elif any(not isinstance(o, int) or o < 0 for o in offsets):
                self.error(op, f"'offsets' must be non-negative integers, got {offsets}")
            else:
                planned.update(zip(op.results, offsets))
        if self.errors:
            return
        for value, offset in planned.items():
            if stays_in_unified_buffer(value):
                ref = self.ref_for(value.type, UB, offset)  # type: ignore[arg-type]
                self.ub_end = max(self.ub_end, ref.end)
            else:
                ref = self.ref_for(value.type, ARENA, offset)  # type: ignore[arg-type]
                self.arena_end = max(self.arena_end, ref.end)
            self.refs[value] = ref
        for arg in self.block.arguments:
            if arg not in self.refs:
                self.refs[arg] = self.fresh(arg.type)  # type: ignore[arg-type]
        for op in self.ops:
            if op.name == "ge.none":
                self.refs[op.results[0]] = None
            elif op.name not in CONSTANT_OPS:
                for r in op.results:
                    if r not in self.refs:
                        self.refs[r] = self.fresh(r.type, stays_in_unified_buffer(r))  # type: ignore[arg-type]

    def plan_weights(self) -> None:
        end = 0
        names: set[str] = set()
        for op in nested_constants(self.ops):
            value = op.attributes.get("value")
            assert isinstance(value, (DenseElementsAttr, DenseResourceAttr))  # the ge verifier checked it
            try:
                data = weight_array(value)
            except (InferError, ValueError) as e:
                self.error(op, str(e))
                continue
            ref = self.ref_for(value.type, WEIGHTS, _align(end, self.alignment))
            # Reserve what a kernel's ref spans too (TensorRef counts an element
            # type it does not know as 4 bytes), so refs and blobs never overlap.
            end = ref.offset + max(data.nbytes, ref.nbytes)
            name = _unique(self.weight_name(op, len(self.weights)), names)
            self.weights.append(WeightBlob(name, ref.offset, data, absent=is_absent(value)))
            self.weight_values.append(value)
            self.refs[op.results[0]] = ref
        self.weight_end = end
        self.weight_names = names

    def constant(self, data: np.ndarray, element: object) -> TensorRef:
        """A weight the lowering adds (a loop's 0, 1 or true), in the weight space."""
        offset = _align(self.weight_end, self.alignment)
        blob, value = constant_weight(data, element, _unique(f"__control{len(self.weights)}", self.weight_names),
                                      offset)
        self.weights.append(blob)
        self.weight_values.append(value)
        ref = self.ref_for(value.type, WEIGHTS, offset)
        self.weight_end = ref.offset + max(data.nbytes, ref.nbytes)
        return ref

    def new_event(self) -> int:
        self.next_event += 1
        return self.next_event - 1

    def new_stream(self) -> int:
        self.next_stream += 1
        return self.next_stream - 1

    def new_label(self) -> int:
        self.next_label += 1
        return self.next_label - 1

    @staticmethod
    def engine_of(name: str) -> str:
        from geir.dialect_registry import lookup_op
        od = lookup_op(name)
        return (od.engine if od is not None else None) or FALLBACK_ENGINE

    @staticmethod
    def loc(op: Operation) -> str:
        return loc_text(op.location)

    @staticmethod
    def weight_name(op: Operation, index: int) -> str:
        if isinstance(op.location, NameLoc):
            return op.location.name
        hint = op.results[0].name_hint
        if hint and not hint.isdigit():
            return hint
        value = op.attributes.get("value")
        if isinstance(value, DenseResourceAttr):
            return value.blob.name
        return f"const{index}"

    # ------------------------------------------------------------ bindings
    def input_bindings(self) -> list[Binding]:
        names: set[str] = set()
        out = []
        for arg, name in zip(self.block.arguments, input_names(self.graph)):
            if name in names:
                self.error(self.graph, f"has two inputs named '{name}'")
            names.add(name)
            ref = self.refs[arg]
            assert ref is not None
            out.append(Binding(name, ref))
        return out

    def output_bindings(self) -> list[Binding]:
        ret = self.block.last_op
        assert ret is not None and ret.name == "ge.return"
        names: set[str] = set()
        written: set[Value] = set()
        out = []
        for i, (value, name) in enumerate(zip(ret.operands, output_names(self.graph, len(ret.operands)))):
            if name in names:
                self.error(ret, f"returns two outputs named '{name}'")
            names.add(name)
            src = self.refs.get(value)
            if src is None:
                self.error(ret, f"returns a ge.none value as output #{i}")
                continue
            if value in self.producer_stream and value not in written:
                written.add(value)  # zero-copy: the kernel wrote the output buffer itself
                out.append(Binding(name, src))
                continue
            dst = self.fresh(value.type)  # type: ignore[arg-type]
            stream = self.producer_stream.get(value, 0)
            self.add_task(stream, Memcpy(src, dst, loc_text(ret.location)), ret.location)
            out.append(Binding(name, dst))
        return out

    # ------------------------------------------------------------ tasks
    def add_task(self, stream: int, task: Task, location: Location) -> None:
        self.tasks.setdefault(stream, []).append(task)
        self.locations[id(task)] = location

    def emit_tasks(self) -> None:
        streams = [self.stream_of(op) for op in self.ops]
        before, after = _neighbour_kernel_streams(self.ops, streams)
        # a switch/merge diamond is emitted whole at its last merge (every value its branches read is ready there)
        groups = {g.merges[-1]: g for g in switch_groups(self.block)[0]}
        grouped = {o for g in groups.values() for o in g.ops}
        for i, op in enumerate(self.ops):
            if op.name in CONSTANT_OPS or op.name in ("ge.none", "ge.return"):
                continue
            if op in groups:
                emit_switch_group(self, groups[op], streams[i])
                continue
            if op in grouped:
                continue
            loc = loc_text(op.location)
            if op.name in SYNC:
                stream = streams[i] if "stream" in op.attributes else (
                    before[i] if op.name == "ge.record_event" else after[i])
                event = int(op.get_attr("event"))
                self.add_task(stream, Record(event, loc) if op.name == "ge.record_event" else Wait(event, loc),
                              op.location)
                continue
            if op.regions:
                ControlFlowEmitter(self).emit(op, streams[i])
                continue
            kernel = self.kernel(op, loc)
            self.add_task(streams[i], kernel, op.location)
            for r in op.results:
                self.producer_stream[r] = streams[i]

    def emit_plain(self, op: Operation, stream: int) -> None:
        """The tasks of ``op``, an op inside a control op's region, on ``stream``;
        its results get fresh buffers (the region's base is set by the caller)."""
        if op.name == "ge.none":
            self.refs[op.results[0]] = None
            return
        if op.name in CONSTANT_OPS:
            return
        loc = loc_text(op.location)
        if op.name in SYNC:
            event = int(op.get_attr("event"))
            self.add_task(stream, Record(event, loc) if op.name == "ge.record_event" else Wait(event, loc),
                          op.location)
            return
        for r in op.results:
            if r not in self.refs:
                self.refs[r] = self.fresh(r.type)  # type: ignore[arg-type]
        self.add_task(stream, self.kernel(op, loc), op.location)
        for r in op.results:
            self.producer_stream[r] = stream

    def stream_of(self, op: Operation) -> int:
        stream = op.get_attr("stream", 0)
        if not isinstance(stream, int) or stream < 0:
            self.error(op, f"'stream' must be a non-negative integer, got {stream}")
            return 0
        return stream

    def kernel(self, op: Operation, loc: str) -> Kernel:
        block_dim = op.get_attr("block_dim", 1)
        if not isinstance(block_dim, int) or block_dim < 1:
            self.error(op, f"'block_dim' must be a positive integer, got {block_dim}")
        return kernel_task(op, [self.refs[v] for v in op.operands], [self.refs[r] for r in op.results], loc)

    def priorities(self) -> dict[int, int]:
        attr = self.graph.attributes.get("ge.stream_priorities")
        if not isinstance(attr, ArrayAttr):
            return {}
        return {i: a.value for i, a in enumerate(attr) if isinstance(a, IntegerAttr)}


def kernel_task(op: Operation, inputs: list[TensorRef | None], outputs: list[TensorRef], loc: str = "") -> Kernel:
    """The kernel task of ge op ``op`` reading ``inputs`` and writing ``outputs``:
    its engine (the op's ``engine``, else its OpDef's default, else AICPU), block
    dim, cost hint and kernel attributes. The scheduling passes cost ops with it
    too, so the passes and the emulator see the same task."""
    od = op.definition  # None for an unregistered op: no default engine, no cost (the lowering refuses it)
    engine = op.get_attr("engine") or (od.engine if od is not None else None) or FALLBACK_ENGINE
    block_dim = op.get_attr("block_dim", 1)
    if not isinstance(block_dim, int) or block_dim < 1:
        block_dim = 1
    cost = op_cost(op)
    flops, bytes_ = float(cost.flops), float(cost.bytes)
    return Kernel(op=op.name, engine=str(engine), inputs=inputs, outputs=outputs,
                  attributes={k: v for k, v in op.attributes.items() if k not in DECISIONS},
                  block_dim=block_dim, flops=flops, bytes=bytes_, loc=loc,
                  name=_value_name(op.results[0]) if op.results else "")


def _neighbour_kernel_streams(ops: list[Operation], streams: list[int]) -> tuple[list[int], list[int]]:
    """For each op, the stream of the closest kernel before it and after it (0 when none)."""
    def is_kernel(op: Operation) -> bool:
        return op.name not in NOT_KERNEL_GE_OPS

    before, after = [0] * len(ops), [0] * len(ops)
    last = 0
    for i, op in enumerate(ops):
        before[i] = last
        if is_kernel(op):
            last = streams[i]
    last = 0
    for i in range(len(ops) - 1, -1, -1):
        after[i] = last
        if is_kernel(ops[i]):
            last = streams[i]
    return before, after


def _unique(name: str, taken: set[str]) -> str:
    unique, k = name, 0
    while unique in taken:
        k += 1
        unique = f"{name}_{k}"
    taken.add(unique)
    return unique


def _value_name(v: Value) -> str:
    hint = v.name_hint
    return f"%{hint}" if hint else ""
