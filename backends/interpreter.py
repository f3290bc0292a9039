"""The reference interpreter: run a ``ge`` graph op by op, in block order, with
the numpy kernels. No streams, no memory plan: the oracle every schedule the
emulator runs is compared with.

Like torch.fx's ``Interpreter``, it is one loop over the ops with a method per
op kind that is not a plain kernel call (constants, ``ge.none``, the region
ops ``ge.if`` / ``ge.case`` / ``ge.loop`` / ``ge.scan``, and GE's ``ge.switch`` /
``ge.merge``: the untaken switch output is a dead value, as in TF, which every
op reading it passes on and a merge skips). An environment maps each SSA value
to its array; a value is dropped after its last reader, so a large model holds
only its live activations.

    outputs = interpret(module, {"x": x})          # by ge.name
    interp = Interpreter(module); interp.run(...)  # reuse the prepared kernels
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from geir.backends.io_bindings import GraphSignature, beyond_host_memory, check_inputs, find_graph, graph_signature
from geir.backends.kernel_dispatch import KernelError, KernelFailed, PreparedOp, prepare_op, storage_dtype
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.module import Module
from geir.operation import Block, Operation, Value
from geir.types import TensorType

__all__ = ["interpret", "Interpreter", "case_branch"]

Env = dict[Value, Any]


def interpret(module: Module, inputs: Mapping[str, np.ndarray], graph: str = "main") -> dict[str, np.ndarray]:
    """Run ``@graph`` of ``module`` on ``inputs`` (by input name); its outputs by name.

    Raises:
        DiagnosticError: an input is missing or of the wrong shape/dtype, an
            op fails (naming the op's location, e.g. its ONNX node), or a weight
            has no values (a graph imported without its weights).
    """
    return Interpreter(module, graph).run(inputs)


def _check_results_fit(op: Operation) -> None:
    """A diagnostic, before the kernel runs, when ``op``'s static results need
    more bytes than this machine has: numpy would be killed filling them."""
    need = 0
    for r in op.results:
        t = r.type
        if isinstance(t, TensorType) and t.is_static:
            try:
                itemsize = storage_dtype(t.element_type).itemsize
            except KernelError:  # strings: no fixed size, and no model makes many
                continue
            need += t.num_elements * itemsize  # type: ignore[operator]
    host = beyond_host_memory(need)
    if host is not None:
        raise DiagnosticError(Diagnostic("error", f"'{op.name}' failed: its results need {need} B, more than this "
                                                  f"machine's {host} B", op_position(op)))


def case_branch(index: Any, branches: int) -> int:
    """The branch ``ge.case`` runs for ``index``: an index out of range (negative
    or past the last branch) runs the last, as GE's ``GenIndexForCase`` and TF's
    Case do."""
    value = int(np.asarray(index).reshape(-1)[0])
    return value if 0 <= value < branches else branches - 1


class _Dead:
    """The value of an untaken ``ge.switch`` output and of every op that reads one."""

    def __repr__(self) -> str:
        return "DEAD"


#: the dead value (TF's dead tensor): an op reading it does not run, a merge skips it
DEAD = _Dead()


class Interpreter:
    """Runs one graph; kernels are prepared on first use and kept for later runs."""

    def __init__(self, module: Module, graph: str = "main") -> None:
        from geir.absent_weights import require_weights
        require_weights(module, "the interpreter")
        self.module = module
        self.graph = find_graph(module, graph)
        self.signature: GraphSignature = graph_signature(module, graph)
        self._prepared: dict[Operation, PreparedOp] = {}
        #: per block: for each op, the values whose last reader it is
        self._last_uses: dict[Block, dict[Operation, list[Value]]] = {}
        self._special: dict[str, Callable[[Operation, Env], list[Any]]] = {
            "ge.none": lambda op, env: [None], "ge.if": self._if, "ge.case": self._case, "ge.loop": self._loop,
            "ge.scan": self._scan,
            "ge.switch": self._switch, "ge.merge": self._merge,
            # what passes add for the device (stream sync, cache maintenance) changes no value
            "ge.record_event": _no_effect, "ge.wait_event": _no_effect, "ge.cmo": _no_effect,
        }

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The graph's outputs, by name, for ``inputs``, by name."""
        values = check_inputs(inputs, self.signature)
        block = self.graph.regions[0].blocks[0]
        env: Env = {arg: values[b.name] for arg, b in zip(block.arguments, self.signature.inputs)}
        with np.errstate(all="ignore"):  # ONNX semantics: inf and nan propagate silently
            results = self.run_block(block, env)
        dead = [b.name for b, r in zip(self.signature.outputs, results) if r is DEAD]
        if dead:
            ret = block.last_op
            raise DiagnosticError(Diagnostic("error", f"output '{dead[0]}' comes from a ge.switch branch that did not "
                                                      "run (no ge.merge joins it)", op_position(ret)))
        # an output may be a weight (a read-only view of the module's blob): hand out copies
        return {b.name: (r if r.flags.writeable else r.copy())
                for b, r in zip(self.signature.outputs, map(np.asarray, results))}

    # ----------------------------------------------------------- the loop
    def run_block(self, block: Block, env: Env) -> list[Any]:
        """Run ``block``'s ops; the values its terminator returns or yields."""
        last_uses = self._last_uses.get(block)
        if last_uses is None:
            last_uses = self._last_uses[block] = _last_uses(block)
        for op in block.ops:
            if op.name in ("ge.return", "ge.yield"):
                return [env[v] for v in op.operands]
            special = self._special.get(op.name)
            if op.name != "ge.merge" and any(env.get(v) is DEAD for v in op.operands):
                results = [DEAD] * len(op.results)  # TF's dead tensors: an untaken switch branch does not run
            else:
                results = special(op, env) if special is not None else self.call_kernel(op, env)
            for r, value in zip(op.results, results):
                env[r] = value
            for v in last_uses.get(op, ()):
                env.pop(v, None)
        # (the verifier makes every block end in its terminator)
        raise DiagnosticError(Diagnostic("error", "a block ends without ge.return / ge.yield"))

    def call_kernel(self, op: Operation, env: Env) -> list[np.ndarray]:
        """Run a plain op through its kernel; failures name the op's location."""
        fn = self._prepared.get(op)
        try:
            if fn is None:  # once per op, however often a loop runs it
                _check_results_fit(op)
                fn = self._prepared[op] = prepare_op(op.name, op.attributes, len(op.results),
                                                     [r.type for r in op.results])
            return fn([env[v] for v in op.operands])
        except (KernelError, ValueError, TypeError, IndexError, KeyError, ArithmeticError, RuntimeError,
                NotImplementedError, AssertionError) as e:
            detail = str(e).splitlines()[0] if str(e) else type(e).__name__
            error = DiagnosticError if isinstance(e, (KernelError, NotImplementedError)) else KernelFailed
            raise error(Diagnostic("error", f"'{op.name}' failed: {detail}", op_position(op))) from e
        except MemoryError:
            raise DiagnosticError(Diagnostic("error", f"'{op.name}' failed: out of memory", op_position(op))) from None

    # ----------------------------------------------------------- regions
    def _if(self, op: Operation, env: Env) -> list[Any]:
        taken = op.regions[0] if bool(np.asarray(env[op.operands[0]]).reshape(-1)[0]) else op.regions[1]
        return self.run_block(taken.blocks[0], env)

    def _switch(self, op: Operation, env: Env) -> list[Any]:
        """GE's Switch: the data on output_true (#1) or output_false (#0); the other output is dead."""
        data = env[op.operands[0]]
        taken = bool(np.asarray(env[op.operands[1]]).reshape(-1)[0])
        return [DEAD, data] if taken else [data, DEAD]

    def _merge(self, op: Operation, env: Env) -> list[Any]:
        """GE's Merge: the first input that is not dead, and its index."""
        for index, v in enumerate(op.operands):
            if env[v] is not DEAD:
                return [env[v], np.array(index, np.int32)]
        return [DEAD, DEAD]

    def _case(self, op: Operation, env: Env) -> list[Any]:
        return self.run_block(op.regions[case_branch(env[op.operands[0]], len(op.regions))].blocks[0], env)

    def _loop(self, op: Operation, env: Env) -> list[Any]:
        """ONNX Loop: ``for i in range(M) while cond``; body(i, cond, v...) ->
        (cond, v..., scan values...); results: final v..., stacked scan values."""
        trip, cond, *carried = (env[v] for v in op.operands)
        body = op.regions[0].blocks[0]
        max_trips = None if trip is None else int(np.asarray(trip).reshape(-1)[0])
        keep_going = True if cond is None else bool(np.asarray(cond).reshape(-1)[0])
        scans: list[list[np.ndarray]] = []
        i = 0
        while keep_going and (max_trips is None or i < max_trips):
            # SSA values are unique objects: the body's values live in the same env
            env[body.arguments[0]] = _like(np.int64(i), body.arguments[0])
            env[body.arguments[1]] = _like(np.bool_(keep_going), body.arguments[1])
            env.update(zip(body.arguments[2:], carried))
            cond_out, *rest = self.run_block(body, env)
            carried, scan_values = rest[:len(carried)], rest[len(carried):]
            if not scans:
                scans = [[] for _ in scan_values]
                if max_trips is not None:
                    self._check_stacked(op, max_trips, sum(np.asarray(v).nbytes for v in scan_values))
            for acc, value in zip(scans, scan_values):
                acc.append(np.asarray(value))
            keep_going = bool(np.asarray(cond_out).reshape(-1)[0])
            i += 1
        stacked = [_stack(acc, result, 0) for acc, result in
                   zip(scans or [[] for _ in op.results[len(carried):]], op.results[len(carried):])]
        return [*carried, *stacked]

    def memory_limit(self) -> tuple[int, str] | None:
        """The most bytes a run's values may take, and what holds them: this
        machine's memory, where the interpreter keeps them (None: unknown)."""
        from geir.backends.emulator.arena import host_memory_bytes
        host = host_memory_bytes()
        return None if host is None else (host, "this machine's memory")

    def _check_stacked(self, op: Operation, trips: int, trip_bytes: int) -> None:
        """A diagnostic at a loop whose scan outputs, stacked over ``trips``
        trips of ``trip_bytes`` each, cannot fit where the run keeps them: said
        before the trips run, not after memory runs out."""
        limit = self.memory_limit()
        if limit is not None and trips * trip_bytes > limit[0]:
            raise DiagnosticError(Diagnostic(
                "error", f"'{op.name}' would stack its scan outputs over {trips} trips, {trips * trip_bytes:.3g} "
                         f"bytes, more than {limit[1]} ({limit[0]:.3g} bytes)", op_position(op)))

    def _scan(self, op: Operation, env: Env) -> list[Any]:
        """ONNX Scan (opset 9+): the body runs once per slice of the scan inputs,
        carrying N states; each scan output stacks one value per iteration."""
        values = [env[v] for v in op.operands]
        num_scan = int(op.get_attr("num_scan_inputs"))  # type: ignore[arg-type]
        states, xs = values[:len(values) - num_scan], [np.asarray(x) for x in values[len(values) - num_scan:]]
        in_axes = _per_input(op.get_attr("scan_input_axes"), num_scan, 0)
        in_dirs = _per_input(op.get_attr("scan_input_directions"), num_scan, 0)
        in_axes = [a + x.ndim if a < 0 else a for a, x in zip(in_axes, xs)]
        body = op.regions[0].blocks[0]
        length = xs[0].shape[in_axes[0]] if xs else 0
        num_out = len(op.results) - len(states)
        scans: list[list[np.ndarray]] = [[] for _ in range(num_out)]
        for t in range(length):
            slices = [np.take(x, length - 1 - t if d else t, axis=a) for x, a, d in zip(xs, in_axes, in_dirs)]
            env.update(zip(body.arguments, [*states, *slices]))
            outs = self.run_block(body, env)
            states = outs[:len(states)]
            for acc, value in zip(scans, outs[len(states):]):
                acc.append(np.asarray(value))
        out_axes = _per_input(op.get_attr("scan_output_axes"), num_out, 0)
        out_dirs = _per_input(op.get_attr("scan_output_directions"), num_out, 0)
        stacked = []
        for acc, result, axis, direction in zip(scans, op.results[len(states):], out_axes, out_dirs):
            stacked.append(_stack(acc[::-1] if direction else acc, result, axis))
        return [*states, *stacked]


def _no_effect(op: Operation, env: Env) -> list[Any]:
    return []


def _last_uses(block: Block) -> dict[Operation, list[Value]]:
    """For each op of ``block``, the values of this block (its arguments and its
    ops' results) read for the last time there; a read inside a nested region
    counts as a read by the op holding the region. Values of enclosing blocks
    are left alone: the enclosing block may read them later."""
    own: set[Value] = set(block.arguments)
    last: dict[Value, Operation] = {}
    for op in block.ops:
        own.update(op.results)
        for nested in op.walk():
            for v in nested.operands:
                if v in own:
                    last[v] = op
    out: dict[Operation, list[Value]] = {}
    for v, op in last.items():
        if op.name not in ("ge.return", "ge.yield"):
            out.setdefault(op, []).append(v)
    return out


def _like(scalar: np.generic, arg: Value) -> np.ndarray:
    """A loop counter/condition shaped as the body argument declares (ONNX says a
    scalar; some models declare a 1-element vector)."""
    t = arg.type
    value = np.asarray(scalar)
    if isinstance(t, TensorType) and t.is_static and t.shape:
        value = value.reshape(t.shape)  # type: ignore[arg-type]
    return value


def _per_input(attr: Any, count: int, default: int) -> list[int]:
    values = list(attr) if attr is not None else []
    return [int(values[i]) if i < len(values) else default for i in range(count)]


def _stack(values: list[np.ndarray], result: Value, axis: int) -> np.ndarray:
    """Per-iteration values stacked along ``axis``; no iterations give an empty
    array of the result's declared rank and element type."""
    t = result.type
    if values:
        return np.stack(values, axis=axis + values[0].ndim + 1 if axis < 0 else axis)
    if not isinstance(t, TensorType) or not t.shape:
        return np.zeros((0,), dtype=np.float32)
    rank = len(t.shape)
    axis = axis + rank if axis < 0 else axis
    return np.zeros([0 if k == axis or d is None else d for k, d in enumerate(t.shape)], dtype=storage_dtype(t))
