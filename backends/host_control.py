"""Control flow on the emulator, driven by the host as GE's runtime v2 does.

A task list has no branch: runtime v1 would need stream switch / stream active
tasks for ``ge.if`` / ``ge.loop``, which the task list does not have (see
``lower-to-tasks``). Runtime v2 instead keeps control flow on the host and
launches the static pieces between the control ops as subgraphs. This module
does the latter:

* the ops of a block between two control ops form a *segment*: a ``ge.graph``
  whose inputs are the values it reads from before and whose outputs are the
  values read after; each launch binds its inputs' concrete shapes
  (``specialize-shapes``), is lowered (``lower-to-tasks``) and emulated, so a
  segment inside a loop whose carried value grows still gets static buffers;
* ``ge.if`` reads its predicate back to the host and runs the taken region;
  ``ge.loop`` / ``ge.scan`` iterate on the host, each body a sequence of
  launches (the same loop logic as the interpreter, which this subclasses).

Lowered segments are cached by their input shapes, so a loop lowers its body
once. The run's device time is the sum of the launches' makespans; each launch
is also checked for races and deadlocks like any emulator run.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from geir.attributes import ArrayAttr, DictionaryAttr, StringAttr, TypeAttr
from geir.backends.interpreter import Env, Interpreter
from geir.module import Module
from geir.operation import Block, Operation, Region, Value
from geir.types import FunctionType, TensorType, element_type_from_numpy

__all__ = ["has_control_flow", "HostDriver", "Launch"]

_TERMINATORS = ("ge.return", "ge.yield")


def has_control_flow(graph: Operation) -> bool:
    """Whether ``graph`` holds an op with regions (``ge.if`` / ``ge.loop`` / ``ge.scan``)."""
    return any(op.regions for op in graph.regions[0].blocks[0].ops)


@attrs.define
class Launch:
    """One subgraph launch: which segment, its task count and makespan, and what the checker found."""

    segment: str
    #: where the segment starts (its first op's location)
    at: str
    tasks: int
    makespan_us: float
    findings: list[str]


class HostDriver(Interpreter):
    """Runs ``@graph`` as host-driven launches of its static segments on the emulator."""

    def __init__(self, module: Module, options: Any = None, graph: str = "main") -> None:
        super().__init__(module, graph)
        from geir.backends.emulator import EmulatorOptions
        self.options = options if options is not None else EmulatorOptions()
        self.launches: list[Launch] = []
        self._segments: dict[tuple[int, ...], str] = {}
        self._lowered: dict[tuple[Any, ...], Any] = {}

    # ----------------------------------------------------------- blocks
    def run_block(self, block: Block, env: Env) -> list[Any]:
        """Launch each run of plain ops as one segment; control ops run on the host."""
        pending: list[Operation] = []
        for op in block.ops:
            if op.name in _TERMINATORS:
                self._launch(pending, env)
                return [env[v] for v in op.operands]
            if op.name == "ge.none":
                env[op.results[0]] = None
            elif op.regions:
                self._launch(pending, env)
                pending = []
                results = self._special[op.name](op, env)
                env.update(zip(op.results, results))
            else:
                pending.append(op)
        raise AssertionError("the verifier makes every block end in its terminator")

    # ----------------------------------------------------------- segments
    def _launch(self, ops: list[Operation], env: Env) -> None:
        if not ops:
            return
        inside = set(ops)
        defined = {r for op in ops for r in op.results}
        inputs: list[Value] = []
        for op in ops:
            for v in op.operands:
                if v not in defined and v not in inputs:
                    inputs.append(v)
        outputs = [r for op in ops for r in op.results if any(_block_op(u.owner, ops[0].parent) not in inside
                                                            for u in r.uses)]
        arrays = [env[v] for v in inputs]
        key = (id(ops[0]), len(ops), *((None if a is None else (np.shape(a), np.asarray(a).dtype.str))
                                       for a in arrays))
        task_list = self._lowered.get(key)
        if task_list is None:
            task_list = self._lowered[key] = self._lower(ops, inputs, arrays, outputs)
        from geir.backends.emulator import emulate
        feeds = {f"in{i}": np.asarray(a) for i, a in enumerate(arrays) if a is not None}
        result = emulate(task_list, feeds, self.options)
        report = result.report
        findings = []
        if result.races:
            findings.append(f"{len(result.races)} data race(s)")
        if result.deadlock is not None:
            findings.append("a deadlock")
        from geir.passes.lower_to_tasks import loc_text
        self.launches.append(Launch(task_list.name, loc_text(ops[0].location), sum(len(s.tasks) for s in task_list.streams),
                                    float(report.get("makespan_us", 0.0)), findings))
        if result.outputs is None:
            from geir.diagnostics import Diagnostic, DiagnosticError, op_position
            raise DiagnosticError(Diagnostic("error", f"segment {task_list.name} gave no outputs "
                                                      f"({', '.join(findings) or 'timing only'})",
                                             op_position(ops[0])))
        for i, v in enumerate(outputs):
            env[v] = result.outputs[f"out{i}"]

    def _lower(self, ops: list[Operation], inputs: list[Value], arrays: list[Any], outputs: list[Value]) -> Any:
        """The task list of ``ops`` as a graph with ``inputs`` bound to the shapes of ``arrays``."""
        from geir.backends.rt_module import task_list_from_model
        from geir.backends.shape_gears import clone_op
        from geir.passes.lower_to_tasks import lower_graph
        from geir.passes.specialize_shapes import specialize_graph
        from geir.verifier import verify_op
        name = self._segments.setdefault((id(ops[0]), len(ops)), f"segment{len(self._segments)}")
        block = Block()
        mapping: dict[Value, Value] = {}
        for v, a in zip(inputs, arrays):
            if a is None:
                none = Operation("ge.none", result_types=[v.type])
                block.append(none)
                mapping[v] = none.results[0]
        args = [(v, a) for v, a in zip(inputs, arrays) if a is not None]
        for v, a in args:
            a = np.asarray(a)
            t = v.type
            et = t.element_type if isinstance(t, TensorType) else element_type_from_numpy(a.dtype)
            mapping[v] = block.add_argument(TensorType(a.shape, et), v.name_hint)
        for op in ops:  # cloned: the original block stays as it is
            block.append(clone_op(op, mapping))
        block.append(Operation("ge.return", [mapping[v] for v in outputs]))
        ftype = FunctionType([a.type for a in block.arguments], [mapping[v].type for v in outputs])
        graph = Operation("ge.graph", attributes={
            "sym_name": StringAttr(name), "function_type": TypeAttr(ftype),
            "arg_attrs": ArrayAttr(DictionaryAttr.from_dict({"ge.name": StringAttr(f"in{i}")})
                                   for i in range(len(args))),
            "res_attrs": ArrayAttr(DictionaryAttr.from_dict({"ge.name": StringAttr(f"out{i}")})
                                   for i in range(len(outputs)))}, regions=[Region([block])],
            location=ops[0].location)
        scratch = Module()
        specialize_graph(graph, scratch, {i: a.type.shape for i, a in enumerate(block.arguments)})  # type: ignore[union-attr]
        verify_op(graph)
        return task_list_from_model(lower_graph(graph, scratch))


def _block_op(op: Operation, block: Block | None) -> Operation | None:
    """The op of ``block`` that is ``op`` or holds it in a region."""
    while op is not None and op.parent is not block:
        op = op.parent_op  # type: ignore[assignment]
    return op
