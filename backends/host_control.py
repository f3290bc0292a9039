"""Control flow on the emulator, driven by the host as GE's runtime v2 does.

Runtime v1 runs static control flow on the device (``lower-to-tasks`` turns
``ge.if`` and the while form of ``ge.loop`` into label tasks, the task sink).
Runtime v2 instead keeps control flow on the host and launches the static
pieces between the control ops as subgraphs; what the task sink cannot run
(data-dependent sizes, loops whose carried shapes change, scan outputs,
``ge.scan``) needs it. This module does the latter:

* the ops of a block between two control ops form a *segment*: a ``ge.graph``
  whose inputs are the values it reads from before and whose outputs are the
  values read after; each launch binds its inputs' concrete shapes
  (``specialize-shapes``), is compiled and emulated, so a segment inside a loop
  whose carried value grows still gets static buffers. As GE runs a dynamic
  graph, a segment whose shapes the graph fixes (a known-shape subgraph, run as
  a task-sink sub-model) is compiled by the run's pipeline (``ge-default``
  fuses, assigns engines and streams, inserts events and plans memory), and one
  whose shapes only the run decides keeps its ops as the graph-wide passes left
  them, on one stream (GE's ``dynamic_stream_allocator.cc``: one stream unless
  ``ENABLE_DYNAMIC_SHAPE_MULTI_STREAM`` is set), its bytes planned as GE plans
  each graph it launches, and is lowered;
* an op whose result size depends on tensor values (NonZero, Unique, NMS ...)
  ends a segment and launches alone, as an AICPU task planned at the size the
  kernel gives (GE's range shapes, resolved at run time: the host reads the
  size back, as runtime v2 does after a data-dependent kernel);
* ``ge.if`` reads its predicate back to the host and runs the taken region,
  ``ge.case`` its branch index; ``ge.switch`` its predicate, and the ops of the
  untaken branch (dead values, as in TF) are not launched; ``ge.merge`` takes
  the input that is not dead;
  ``ge.loop`` / ``ge.scan`` iterate on the host, each body a sequence of
  launches (the same loop logic as the interpreter, which this subclasses).

Lowered segments are cached by their input shapes, so a loop lowers its body
once. The run's device time is the sum of the launches' makespans; each launch
is also checked for races and deadlocks like any emulator run.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np

from geir.attributes import ArrayAttr, DictionaryAttr, StringAttr, TypeAttr
from geir.backends.interpreter import DEAD, Env, Interpreter
from geir.module import Module
from geir.constants import CONSTANT_OPS
from geir.operation import Block, IRMapping, OpResult, Operation, Region, Value
from geir.types import FunctionType, TensorType, element_type_from_numpy

__all__ = ["has_control_flow", "HostDriver", "Launch", "known_shape"]

_TERMINATORS = ("ge.return", "ge.yield")
#: GE's dataflow control ops the host runs (TF v1's cond): a switch reads its predicate back
_DATAFLOW = ("ge.switch", "ge.merge")


def has_control_flow(graph: Operation) -> bool:
    """Whether ``graph`` holds an op with regions (``ge.if`` / ``ge.case`` / ``ge.loop`` / ``ge.scan``)
    or a ``ge.switch``."""
    return any(op.regions or op.name == "ge.switch" for op in graph.regions[0].blocks[0].ops)


@attrs.define
class Launch:
    """One subgraph launch: which segment, its task count and makespan, and what the checker found."""

    segment: str
    #: where the segment starts (its first op's location)
    at: str
    #: the device tasks the host would launch one by one (no end of the graph, no
    #: op fused into another's task, no reshape)
    tasks: int
    makespan_us: float
    findings: list[str]
    #: streams the segment's task list runs on
    streams: int = 1
    #: the graph fixes the segment's shapes: GE runs it as a task-sink sub-model,
    #: one launch, where the host launches a dynamic segment's tasks one by one
    known_shape: bool = False

    @property
    def host_launches(self) -> int:
        """Launches the host makes for this segment: one for a known-shape
        sub-model, one per task otherwise."""
        return 1 if self.known_shape else self.tasks


class HostDriver(Interpreter):
    """Runs ``@graph`` as host-driven launches of its static segments on the emulator."""

    def __init__(self, module: Module, options: Any = None, graph: str = "main",
                 passes: Sequence[Any] | None = None) -> None:
        """``passes``: the pipeline a known-shape segment is compiled by
        (configured pass objects); without it, and for a segment of unknown
        shapes, a segment's bytes are planned on one stream and it is lowered
        as written."""
        super().__init__(module, graph)
        self.passes = list(passes) if passes is not None else None
        #: the warnings the passes gave while compiling segments
        self.warnings: list[Any] = []
        from geir.backends.emulator import EmulatorOptions
        self.options = options if options is not None else EmulatorOptions()
        self.launches: list[Launch] = []
        #: times the host read a value back from the device to decide what to
        #: launch next (an if's predicate, a loop's condition, a data-dependent size)
        self.round_trips = 0
        self._segments: dict[tuple[int, ...], str] = {}
        self._lowered: dict[tuple[Any, ...], Any] = {}
        #: switch predicate -> the value the host last read back for it
        self._read: dict[Value, Any] = {}

    def memory_limit(self) -> tuple[int, str] | None:
        """The device's memory, where the launches keep a run's values, or this
        machine's, where the emulator computes them, whichever is less."""
        from geir.backends.device_profile import load_profile
        profile = load_profile(self.options.device, list(self.options.device_params))
        device = (int(profile["memory_bytes"]), f"device {profile.name}'s memory")
        host = super().memory_limit()
        return device if host is None or device[0] <= host[0] else host

    def task_lists(self) -> list[Any]:
        """The task lists launched so far: one per segment and input shapes."""
        return list(self._lowered.values())

    # ----------------------------------------------------------- blocks
    def run_block(self, block: Block, env: Env) -> list[Any]:
        """Launch each run of plain ops as one segment; control ops run on the host."""
        region = block.parent
        owner = region.parent if region is not None else None
        if owner is not None and owner.name == "ge.loop":
            self.round_trips += 1  # the host reads the body's condition back after each trip
        pending: list[Operation] = []
        for op in block.ops:
            if op.name in _TERMINATORS:
                self._launch(pending, env)
                return [env[v] for v in op.operands]
            if op.name == "ge.none":
                env[op.results[0]] = None
            elif op.name in CONSTANT_OPS:
                # the host has the weights; a segment that reads one holds its own copy
                env[op.results[0]] = self.call_kernel(op, env)[0]
            elif any(env.get(v) is DEAD for v in op.operands) and op.name != "ge.merge":
                env.update((r, DEAD) for r in op.results)  # in an untaken switch branch: not launched
            elif op.regions or op.name in _DATAFLOW:
                self._launch(pending, env)
                pending = []
                if op.name in ("ge.if", "ge.case") or (op.name == "ge.switch"
                                                        and self._read.get(op.operands[1]) is not env[op.operands[1]]):
                    self.round_trips += 1  # the predicate or branch index, read back
                    if op.name == "ge.switch":  # the switches on one predicate read it once
                        self._read[op.operands[1]] = env[op.operands[1]]
                results = self._special[op.name](op, env)
                env.update(zip(op.results, results))
            else:
                pending.append(op)
        raise AssertionError("the verifier makes every block end in its terminator")

    # ----------------------------------------------------------- segments
    def _launch(self, ops: list[Operation], env: Env) -> None:
        """Lower (once per input shapes) and emulate ``ops`` as one subgraph. A
        data-dependent op splits the segment: the ops before it launch, then it
        launches alone with its output size read back from the host kernel (a
        range shape resolved at run time), then the rest."""
        # A stack of pieces still to launch, the next on top (a graph can hold
        # any number of data-dependent ops, so no recursion per split); a piece
        # marked True is one data-dependent op, its shapes read when it is reached.
        todo: list[tuple[list[Operation], bool]] = [(ops, False)]
        while todo:
            piece, data_dependent = todo.pop()
            if not piece:
                continue
            shapes = [tuple(np.shape(a)) for a in self.call_kernel(piece[0], env)] if data_dependent else None
            if data_dependent:
                self.round_trips += 1  # the size, read back
            split = self._launch_segment(piece, env, shapes)
            if split is not None:
                todo += [(piece[split + 1:], False), ([piece[split]], True), (piece[:split], False)]

    def _launch_segment(self, ops: list[Operation], env: Env,
                        result_shapes: list[tuple[int, ...]] | None = None) -> int | None:
        """Lower and emulate ``ops`` (the results of a single data-dependent op
        bound to ``result_shapes``); or, when an op's result size depends on
        values, launch nothing and return its index."""
        inputs, outputs = _interface(ops)
        arrays = [env[v] for v in inputs]
        key = (id(ops[0]), len(ops), *((None if a is None else (np.shape(a), np.asarray(a).dtype.str))
                                       for a in arrays), None if result_shapes is None else tuple(result_shapes))
        known = known_shape(ops)
        task_list = self._lowered.get(key)
        if task_list is None:
            specialized = None
            if result_shapes is None:
                split, specialized = self._first_data_dependent(ops, env)
                if split is not None:
                    return split
            task_list = self._lowered[key] = self._lower(ops, inputs, arrays, outputs, result_shapes, specialized,
                                                         known)
        from geir.backends.emulator import emulate
        feeds = {f"in{i}": np.asarray(a) for i, a in enumerate(a for a in arrays if a is not None)}
        result = emulate(task_list, feeds, self.options)
        report = result.report
        findings = []
        if result.races:
            findings.append(f"{len(result.races)} data race(s)")
        if result.deadlock is not None:
            findings.append("a deadlock")
        from geir.passes.lower_to_tasks import loc_text
        # an op a graph-wide pass inserted (a precision mode's cast) has no location of its own
        at = next((t for t in (loc_text(op.location) for op in ops) if t), "")
        # the tasks a host launches one by one: not the end of the graph, nor an op
        # that is no device task of its own (a fused op, a reshape)
        counts = report["task_counts"]
        self.launches.append(Launch(task_list.name, at, report["tasks"] - counts["end_graph"],
                                    float(report.get("makespan_us", 0.0)), findings,
                                    sum(1 for s in task_list.streams if s.tasks), known))
        if result.outputs is None:
            from geir.diagnostics import Diagnostic, DiagnosticError, op_position
            raise DiagnosticError(Diagnostic("error", f"segment {task_list.name} gave no outputs "
                                                      f"({', '.join(findings) or 'timing only'})",
                                             op_position(ops[0])))
        for i, v in enumerate(outputs):
            env[v] = result.outputs[f"out{i}"]
        return None

    def _first_data_dependent(self, ops: list[Operation], env: Env) -> tuple[int | None, _Specialized | None]:
        """The index of the first of ``ops`` whose result size depends on values and
        None; or, when there is none, None and ``ops`` specialised (the last probe).

        Prefixes of doubling length are specialised in turn, so finding an op costs
        in proportion to its index, not to the ops after it: a block of many
        data-dependent ops (a detector's per-class NMS) splits in linear time."""
        window = _FIRST_PROBE
        while True:
            prefix = ops[:window]
            inputs, outputs = _interface(prefix)
            specialized = self._specialized(prefix, inputs, [env[v] for v in inputs], outputs, "probe")
            for index, op in enumerate(prefix):
                clone = specialized[2].get(op)
                if clone is not None and clone.parent is not None and any(
                        isinstance(r.type, TensorType) and not r.type.is_static for r in clone.results):
                    return index, None
            if window >= len(ops):
                return None, specialized
            window *= 2

    def _specialized(self, ops: list[Operation], inputs: list[Value], arrays: list[Any], outputs: list[Value],
                     name: str) -> _Specialized:
        """``ops`` copied into a graph ``name`` whose ``inputs`` have the shapes of
        ``arrays``, its shapes specialised to them; with the scratch module and
        each op's copy (an op folding removed has a copy with no parent)."""
        from geir.passes.specialize_shapes import specialize_graph
        block = Block()
        mapping = IRMapping()
        for v, a in zip(inputs, arrays):
            if a is None:
                none = Operation("ge.none", result_types=[v.type])
                block.append(none)
                mapping.map(v, none.results[0])
        args = [(v, a) for v, a in zip(inputs, arrays) if a is not None]
        for v, a in args:
            a = np.asarray(a)
            t = v.type
            et = t.element_type if isinstance(t, TensorType) else element_type_from_numpy(a.dtype)
            mapping.map(v, block.add_argument(TensorType(a.shape, et), v.name_hint))
        constants = [v for op in ops for v in op.operands if _is_constant(v)]
        for v in dict.fromkeys(constants):  # the weights a segment reads live in its own weight space
            block.append(v.op.clone(mapping))  # type: ignore[attr-defined]
        clones: dict[Operation, Operation] = {}
        for op in ops:  # cloned: the original block stays as it is
            clones[op] = op.clone(mapping)
            block.append(clones[op])
        block.append(Operation("ge.return", [mapping.values[v] for v in outputs]))
        ftype = FunctionType([a.type for a in block.arguments], [mapping.values[v].type for v in outputs])
        graph = Operation("ge.graph", attributes={
            "sym_name": StringAttr(name), "function_type": TypeAttr(ftype),
            "arg_attrs": ArrayAttr(DictionaryAttr.from_dict({"ge.name": StringAttr(f"in{i}")})
                                   for i in range(len(args))),
            "res_attrs": ArrayAttr(DictionaryAttr.from_dict({"ge.name": StringAttr(f"out{i}")})
                                   for i in range(len(outputs)))}, regions=[Region([block])],
            location=ops[0].location)
        scratch = Module()
        specialize_graph(graph, scratch, {i: a.type.shape for i, a in enumerate(block.arguments)})  # type: ignore[union-attr]
        return graph, scratch, clones

    def _lower(self, ops: list[Operation], inputs: list[Value], arrays: list[Any], outputs: list[Value],
               result_shapes: list[tuple[int, ...]] | None = None, specialized: _Specialized | None = None,
               known: bool = False) -> Any:
        """The task list of ``ops`` as a graph with ``inputs`` bound to the shapes
        of ``arrays`` (and, for one data-dependent op, its results to ``result_shapes``);
        ``specialized``: that graph already built (by :meth:`_first_data_dependent`);
        ``known``: the graph fixes the ops' shapes (:func:`known_shape`)."""
        from geir.backends.rt_module import task_list_from_model
        from geir.passes.lower_to_tasks import lower_graph
        from geir.passes.reuse_memory import plan_graph, write_plan
        from geir.verifier import verify_op
        name = self._segments.setdefault((id(ops[0]), len(ops)), f"segment{len(self._segments)}")
        if specialized is None:
            specialized = self._specialized(ops, inputs, arrays, outputs, name)
        graph, scratch, clones = specialized
        graph.attributes["sym_name"] = StringAttr(name)
        if result_shapes is not None:
            (only,) = ops
            for r, shape in zip(clones[only].results, result_shapes):
                r.type = TensorType(shape, r.type.element_type)  # type: ignore[union-attr]
            ret = graph.regions[0].blocks[0].last_op
            ftype = graph.attributes["function_type"].value  # type: ignore[union-attr]
            graph.attributes["function_type"] = TypeAttr(FunctionType(ftype.inputs, [v.type for v in ret.operands]))  # type: ignore[union-attr]
        verify_op(graph)
        if self.passes is not None and known:
            from geir.backends.model_compile import compile_module, task_list_of
            scratch.body.append(graph)
            compiled = compile_module(scratch, self.passes)
            self.warnings += compiled.warnings
            return task_list_of(compiled.module)
        # one stream, its bytes reused as GE plans each graph it launches
        write_plan(graph, plan_graph(graph, zero_copy=False))
        return task_list_from_model(lower_graph(graph, scratch))


#: ops in the first prefix a data-dependent op is looked for in
_FIRST_PROBE = 16

#: a segment copied into a graph and specialised: the graph, its scratch module and each op's copy
_Specialized = tuple[Operation, Module, dict[Operation, Operation]]


def _interface(ops: list[Operation]) -> tuple[list[Value], list[Value]]:
    """What ``ops`` read from before them (constants aside) and what of theirs is read after."""
    defined = {r for op in ops for r in op.results}
    inputs = dict.fromkeys(v for op in ops for v in op.operands if v not in defined and not _is_constant(v))
    inside = set(ops)
    outputs = [r for op in ops for r in op.results if any(_block_op(u.owner, ops[0].parent) not in inside
                                                        for u in r.uses)]
    return list(inputs), outputs


def known_shape(ops: list[Operation]) -> bool:
    """Whether the graph fixes every shape ``ops`` read and write (GE's known-shape
    subgraph), rather than the run deciding some of them."""
    return all(v.type.is_static for op in ops for v in (*op.operands, *op.results)
               if isinstance(v.type, TensorType))


def _is_constant(v: Value) -> bool:
    return isinstance(v, OpResult) and v.op.name in CONSTANT_OPS


def _block_op(op: Operation, block: Block | None) -> Operation | None:
    """The op of ``block`` that is ``op`` or holds it in a region."""
    while op is not None and op.parent is not block:
        op = op.parent_op  # type: ignore[assignment]
    return op
