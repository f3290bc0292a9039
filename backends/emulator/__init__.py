"""The Ascend runtime emulator: run a :class:`~geir.backends.task_list.TaskList` on a
simulated device, in simulated time and (unless timing-only) numerically::

    from geir.backends.emulator import EmulatorOptions, emulate
    result = emulate(task_list, inputs, EmulatorOptions(device="910B2", mode="sink"))
    result.report["makespan_us"], result.outputs["y"], result.report["races"]

One concept per module:

* :mod:`.program` — the task list flattened and costed (and checked);
* :mod:`.simulator` — the discrete-event loop (streams, events, engine pools,
  sink and host modes, critical path);
* :mod:`.bandwidth` — the DRAM bandwidth shared by the tasks running at once
  (a fluid, processor-sharing model);
* :mod:`.happens_before` — the vector-clock race checker over arena bytes;
* :mod:`.deadlock` — why a stalled device stalled;
* :mod:`.arena` — device memory and the numerics;
* :mod:`.liveness` — peak live bytes;
* :mod:`.report`, :mod:`.trace`, :mod:`.timeline`, :mod:`.progress` — output.

Races, deadlocks, lost or unconsumed event records are *findings*: they are in
the result, never exceptions. Malformed task lists and unusable options raise
:class:`~geir.diagnostics.DiagnosticError`.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any, Mapping

import attrs
import numpy as np

from geir.backends.cost_model import AICORE, VECTOR, CostModel
from geir.backends.device_profile import DeviceProfile, load_profile
from geir.backends.emulator.arena import DeviceMemory, NumericExecutor, RunOp, release_arena
from geir.backends.emulator.deadlock import Deadlock
from geir.backends.emulator.happens_before import Race, RaceChecker
from geir.backends.emulator.program import KernelRows, Program, compile_program
from geir.backends.emulator.progress import make_progress
from geir.backends.emulator.report import REQUIRED_KEYS, build_report, format_text
from geir.backends.emulator.simulator import Schedule, simulate
from geir.backends.task_list import ARENA, Kernel, TaskList, int_attribute
from geir.diagnostics import Diagnostic, DiagnosticError

if TYPE_CHECKING:
    from geir.backends.io_bindings import GraphSignature

__all__ = ["EmulatorOptions", "EmulationResult", "emulate", "format_text", "REQUIRED_KEYS", "random_task_inputs",
           "task_list_signature"]

MODES = ("sink", "host")


@attrs.define
class EmulatorOptions:
    """How to emulate.

    ``device`` is a profile name, a JSON path or a loaded profile;
    ``device_params`` are ``key=value`` overrides. ``mode`` is ``sink`` (runtime
    v1 task sink) or ``host`` (runtime v2, a host launch per task).
    ``timing_only`` skips the numerics (no inputs needed, much faster);
    ``check_races`` runs the happens-before checker (in both modes).
    ``run_op`` replaces the numpy kernel library (tests use a stub).
    ``progress``: None draws a bar on a TTY for long runs.
    ``share_dram``: concurrent tasks share the DRAM bandwidth (the fluid model of
    :mod:`.bandwidth`); False runs every task at its duration alone, as if the
    device had unlimited bandwidth behind each kernel's own cap — only to
    measure what sharing changes (the report's lower bound then drops its DRAM term).
    """

    device: str | DeviceProfile = "910B2"
    device_params: list[str] = attrs.Factory(list)
    mode: str = "sink"
    timing_only: bool = False
    check_races: bool = True
    max_races: int = 100
    seed: int = 0
    run_op: RunOp | None = None
    progress: bool | None = None
    share_dram: bool = True
    #: the run follows a run of the same model, as a benchmark's timed runs follow
    #: its warm-up (ais_bench runs one first by default): when the model's weights
    #: and activation arena fit in L2 together, its kernels read the weights from L2
    warm_l2: bool = False
    #: the run is timed as a host times a synchronous model execution (``aclmdlExecute``;
    #: ais_bench's ``NPU_compute_time`` is the host's clock around it): the report's
    #: ``host_timed`` adds the profile's ``model_execute_us`` to the makespan
    host_timed: bool = False
    #: the cost model to use (its profile must be ``device``'s): runs that share
    #: one reuse the kernel costs it has memoised (a scheduler judging many plans)
    cost_model: CostModel | None = None
    #: kernels compiled in earlier runs with ``cost_model`` (:class:`~.program.KernelRows`):
    #: a caller emulating many task lists of the same Kernel objects passes one
    kernel_rows: KernelRows | None = None
    #: compute the peak live bytes (the report's ``peak_live_bytes``, else None): a
    #: judge of plans whose buffers are not planned yet has no use for them
    liveness: bool = True
    #: host mode: the host's cost of launching an event record or wait, when it
    #: differs from the profile's ``host_launch_us`` (a runtime whose per-kernel
    #: dispatch costs more than its event calls); None: ``host_launch_us``
    host_event_launch_us: float | None = None
    #: host mode: events whose records and waits the host does not launch one by
    #: one — the device-side parts of a single runtime call the task list spells
    #: as several (a barrier on CUDA's legacy default stream): they cost it nothing
    host_free_events: frozenset[int] = frozenset()


@attrs.define(eq=False)
class EmulationResult:
    """The report (a JSON-ready dict, see :mod:`.report`), the outputs (None
    when timing-only or deadlocked) and the raw schedule for traces."""

    report: dict[str, Any]
    outputs: dict[str, np.ndarray] | None
    races: list[Race]
    deadlock: Deadlock | None
    schedule: Schedule
    profile: DeviceProfile

    @property
    def program(self) -> Program:
        return self.schedule.program

    @property
    def clean(self) -> bool:
        """No race and no deadlock."""
        return not self.races and self.deadlock is None

    def text(self) -> str:
        """The report as text."""
        return format_text(self.report)

    def write_trace(self, path: str) -> None:
        """A Chrome/Perfetto trace of the run."""
        from geir.backends.emulator.trace import write_trace
        write_trace(self.schedule, path)

    def draw_timeline(self, path: str) -> None:
        """A Gantt chart (needs matplotlib)."""
        from geir.backends.emulator.timeline import draw_timeline
        draw_timeline(self.schedule, path)


def task_list_signature(task_list: TaskList) -> "GraphSignature":
    """The task list's input and output bindings as a graph signature, so
    :mod:`geir.backends.io_bindings` can load, check and draw inputs for it: an
    input a Gather kernel reads as indices is bounded by its table, as
    :func:`~geir.backends.io_bindings.graph_signature` bounds it (graph inputs
    keep buffers of their own under zero-copy I/O, ``reuse-memory``'s default,
    so a kernel reading an input's bytes reads the input)."""
    from geir.backends.io_bindings import Binding, GraphSignature, gather_index_bound
    from geir.types import TensorType, parse_element_type

    def binding(name: str, dtype: str, shape: tuple[int, ...], index_bound: int | None = None) -> Binding:
        et = parse_element_type(dtype)
        if et is None:
            raise DiagnosticError(Diagnostic("error", f"binding '{name}' has unknown element type '{dtype}'"))
        return Binding(name, TensorType(shape, et), index_bound)

    reads: dict[Any, list[tuple[tuple[int, ...], int]]] = {}  # each input ref's Gathers, as graph_signature finds them
    inputs = {b.ref for b in task_list.inputs}
    for _, _, task in task_list.all_tasks():
        if (isinstance(task, Kernel) and task.op == "ge.gather" and len(task.inputs) > 1
                and task.inputs[1] in inputs and task.inputs[0] is not None):
            axis = int_attribute(task.attributes, "axis", 0)
            reads.setdefault(task.inputs[1], []).append((task.inputs[0].shape, axis))
    return GraphSignature(task_list.name,
                          [binding(b.name, b.ref.dtype, b.ref.shape, gather_index_bound(reads.get(b.ref, ())))
                           for b in task_list.inputs],
                          [binding(b.name, b.ref.dtype, b.ref.shape) for b in task_list.outputs])


def random_task_inputs(task_list: TaskList, seed: int = 0) -> dict[str, np.ndarray]:
    """Deterministic random values for the task list's input bindings: the same
    values ``ge-run --interpret`` draws for a graph with these inputs."""
    from geir.backends.io_bindings import random_inputs
    return random_inputs(task_list_signature(task_list), seed)


def _profile(options: EmulatorOptions) -> DeviceProfile:
    if isinstance(options.device, DeviceProfile):
        return options.device.with_overrides(options.device_params) if options.device_params else options.device
    return load_profile(options.device, options.device_params)


def emulate(task_list: TaskList, inputs: Mapping[str, np.ndarray] | None = None,
            options: EmulatorOptions | None = None) -> EmulationResult:
    """Run ``task_list`` on the emulated device.

    ``inputs`` (by binding name) are needed for numerics; None draws
    deterministic random ones (``options.seed``). In timing-only mode they are
    ignored.

    Raises:
        DiagnosticError: the task list is malformed for this device (unknown
            engine, a ref outside the arena ...), an option is invalid, an input
            is missing or misshapen, a kernel fails on its inputs, or (with
            numerics) a weight has no values (a graph without its weights).
    """
    # The run allocates a few objects per task and keeps them all alive, so
    # CPython's cyclic collector would rescan an ever larger heap (it made
    # 100k-task runs superlinear); nothing built here needs cycle collection.
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        return _emulate(task_list, inputs, options or EmulatorOptions())
    finally:
        if gc_enabled:
            gc.enable()


def _kernel_latency(program: Program, cost: CostModel) -> list[float]:
    """Per task, a core kernel's fixed overhead (the cost model's
    ``kernel_overhead_us``; none for a kernel fused into its producer): on a GPU
    it is latency, not SM time (:func:`~.simulator.simulate`'s ``latency``)."""
    cores = (program.pool_names.index(AICORE), program.pool_names.index(VECTOR))
    fixed = cost.kernel_overhead
    pool, duration = program.pool, program.duration
    return [fixed if pool[g] in cores and duration[g] > 0.0 and isinstance(t, Kernel)
            and not (t.attributes and "fused_operand" in t.attributes) else 0.0
            for g, t in enumerate(program.tasks)]


def _emulate(task_list: TaskList, inputs: Mapping[str, np.ndarray] | None, options: EmulatorOptions) -> EmulationResult:
    if options.mode not in MODES:
        raise DiagnosticError(Diagnostic("error", f"unknown emulator mode '{options.mode}' (expected sink or host)"))
    profile = _profile(options)
    footprint, l2_bytes = task_list.weight_size + task_list.arena_size, profile.values["l2_bytes"]
    warm = options.warm_l2 and footprint <= l2_bytes
    cost = options.cost_model if options.cost_model is not None and options.cost_model.profile is profile \
        and options.cost_model.warm_weights == warm else CostModel(profile, warm_weights=warm)
    program = compile_program(task_list, cost, reuse=options.kernel_rows if cost is options.cost_model else None)
    if not options.share_dram:
        program.dram_bandwidth = float("inf")
    checker = RaceChecker(program, options.max_races) if options.check_races else None
    memory = numerics = None
    if not options.timing_only:
        absent = next((w for w in task_list.weights if w.absent), None)
        if absent is not None:
            from geir.absent_weights import absent_weights_error
            raise absent_weights_error(absent.name, "numeric emulation")
        memory = DeviceMemory(task_list)
        if inputs is None:
            inputs = random_task_inputs(task_list, options.seed)
        memory.load_inputs(inputs)
        numerics = NumericExecutor(program, memory, options.run_op)
    if checker is not None:
        for b in task_list.inputs:
            if b.ref.space == ARENA and b.ref.nbytes:
                checker.host_write(b.ref.offset, b.ref.end)
    progress = make_progress(program.n, options.progress)
    try:
        schedule = simulate(program, options.mode, cost.launch_us, checker, numerics, progress,
                            _kernel_latency(program, cost) if profile.block_dispatch else None,
                            options.host_event_launch_us, frozenset(options.host_free_events))
    finally:
        if progress is not None:
            progress.close()
    report = build_report(schedule, profile, checker, cost.launch_us, options.liveness)
    if options.warm_l2:
        report["warm_l2"] = {"weights_in_l2": warm, "footprint_bytes": footprint, "l2_bytes": l2_bytes}
    if options.host_timed:
        execute = profile.values["model_execute_us"]
        report["host_timed"] = {"latency_us": round(schedule.makespan + execute, 3), "execute_us": execute}
    outputs = memory.read_outputs() if memory is not None and schedule.deadlock is None else None
    if memory is not None:
        release_arena(memory)
    return EmulationResult(report=report, outputs=outputs, races=list(checker.races) if checker else [],
                           deadlock=schedule.deadlock, schedule=schedule, profile=profile)
