"""Computation beside communication — a data-parallel
training step on N emulated devices, and training mixed with inference on one.

**Symmetric data parallelism.** Every device runs the same step on its own
slice of the batch and the gradient all-reduces are collective, so every
device's timeline is the same: emulating one device with ``rank_size = N`` on
every collective *is* the N-device step. The HCCL cost is the ring model of
:mod:`geir.backends.cost_model` (all-reduce traffic ``2(N-1)/N`` times the
gradient's bytes over the profile's ``hccl_link_gbps``, plus
``hccl_latency_us``); N = 1 leaves only the latency.

:func:`step_times` measures the step with overlap (a multi-stream build: the
collectives on an HCCL stream of their own, as the cost and ge strategies put
them, so layer i's all-reduce runs while the backward pass computes layer
i-1's gradients) and without (the single-stream build, where each all-reduce
blocks the backward computation behind it). :func:`mixed_training_inference`
runs a training step at low priority beside inference at high priority on one
device (:func:`~geir.backends.scenarios.co_run.co_run`).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from geir.attributes import IntegerAttr
from geir.backends.cost_model import HCCL, normalize_engine
from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.scenarios.build import MULTI_STREAM, SINGLE_STREAM, compile_task_list
from geir.backends.scenarios.co_run import CoRunResult, co_run
from geir.backends.task_list import Kernel, Stream, TaskList
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.module import Module

__all__ = ["MAX_DEVICES", "collectives", "with_rank_size", "StepTimes", "step_times", "format_steps",
           "mixed_training_inference", "training_step_graph", "step_times_of"]

#: an HCCL ring of one server (8 NPUs), the range ``--devices`` accepts
MAX_DEVICES = 8


def collectives(task_list: TaskList) -> int:
    """How many kernels of ``task_list`` run on HCCL."""
    return sum(1 for _, _, t in task_list.all_tasks() if isinstance(t, Kernel) and normalize_engine(t.engine) == HCCL)


def with_rank_size(task_list: TaskList, devices: int) -> TaskList:
    """A copy of ``task_list`` with ``rank_size = devices`` on every HCCL kernel.

    Raises:
        DiagnosticError: ``devices`` outside 1..:data:`MAX_DEVICES`.
    """
    if not 1 <= devices <= MAX_DEVICES:
        raise DiagnosticError(Diagnostic("error", f"devices must be between 1 and {MAX_DEVICES} (one server's "
                                                  f"HCCL ring), got {devices}"))
    streams = []
    for st in task_list.streams:
        tasks = [attrs.evolve(t, attributes={**t.attributes, "rank_size": IntegerAttr(devices)})
                 if isinstance(t, Kernel) and normalize_engine(t.engine) == HCCL else t for t in st.tasks]
        streams.append(Stream(st.id, st.priority, tasks))
    return attrs.evolve(task_list, streams=streams)


@attrs.define(eq=False)
class StepTimes:
    """One training step on ``devices`` devices, with and without overlap.

    ``comm_us``: the collectives' durations summed (what the step would add if
    none overlapped); ``compute_us``: the multi-stream step with free
    collectives (``rank_size`` 1, ``hccl_latency_us`` 0); ``exposed_comm_us``
    the overlapped step's excess over it and ``hidden_comm`` the share of
    ``comm_us`` the overlap hid (``1 - exposed / comm``).
    """

    devices: int
    overlap_us: float
    serial_us: float | None  # None: no single-stream build to compare with
    comm_us: float
    compute_us: float
    overlap_report: dict[str, Any]
    serial_report: dict[str, Any] | None

    @property
    def speedup(self) -> float | None:
        if self.serial_us is None:
            return None
        return self.serial_us / self.overlap_us if self.overlap_us > 0 else 1.0

    @property
    def exposed_comm_us(self) -> float:
        return max(0.0, self.overlap_us - self.compute_us)

    @property
    def hidden_comm(self) -> float:
        return min(1.0, max(0.0, 1.0 - self.exposed_comm_us / self.comm_us)) if self.comm_us > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"devices": self.devices, "step_us_overlap": self.overlap_us, "step_us_no_overlap": self.serial_us,
                "speedup": round(self.speedup, 4) if self.speedup is not None else None, "comm_us": round(self.comm_us, 3),
                "compute_us": self.compute_us, "exposed_comm_us": round(self.exposed_comm_us, 3),
                "hidden_comm": round(self.hidden_comm, 4),
                "hccl_utilization": self.overlap_report["engines"].get(HCCL, {}).get("utilization", 0.0),
                "streams_overlap": len(self.overlap_report["streams"]),
                "races_total": self.overlap_report["races_total"],
                "deadlock": self.overlap_report["deadlock"] or (self.serial_report or {}).get("deadlock")}

    def reports(self) -> list[dict[str, Any]]:
        """The emulator reports behind the row."""
        return [self.overlap_report] + ([self.serial_report] if self.serial_report is not None else [])


def _comm_us(result: Any) -> float:
    schedule = result.schedule
    program = schedule.program
    hccl = program.pool_names.index(HCCL)
    return sum(schedule.end[g] - schedule.start[g] for g in range(program.n)
               if program.pool[g] == hccl and schedule.end[g] != float("inf"))


def step_times(overlapped: TaskList, serial: TaskList | None, devices: Sequence[int], device: Any = "910B2",
               mode: str = "sink", check_races: bool = True,
               device_params: Sequence[str] = ()) -> list[StepTimes]:
    """The step time of the ``overlapped`` (multi-stream) and ``serial``
    (single-stream; None: skip it) builds of one training step, for each
    device count. ``comm_us`` is measured in the single-stream run (in the
    overlapped one without it).

    Raises:
        DiagnosticError: a device count outside 1..8, or a step without collectives.
    """
    if collectives(overlapped) == 0:
        raise DiagnosticError(Diagnostic("error", "the graph has no HCCL collective (all_reduce, all_gather, "
                                                  "reduce_scatter, broadcast) to set rank_size on").attach_note(
            "scenario 3 is a data-parallel training step: gradients all-reduced across the devices"))
    rows = []
    free = EmulatorOptions(device=device, device_params=[*device_params, "hccl_latency_us=0"], mode=mode,
                           timing_only=True, check_races=False, progress=False)
    compute = emulate(with_rank_size(overlapped, 1), None, free).report["makespan_us"]
    for n in devices:
        options = EmulatorOptions(device=device, device_params=list(device_params), mode=mode, timing_only=True,
                                  check_races=check_races, progress=False)
        over = emulate(with_rank_size(overlapped, n), None, options)
        ser = (emulate(with_rank_size(serial, n), None, attrs.evolve(options, check_races=False))
               if serial is not None else None)
        rows.append(StepTimes(n, over.report["makespan_us"], ser.report["makespan_us"] if ser else None,
                              _comm_us(ser or over), compute, over.report, ser.report if ser else None))
    return rows


def step_times_of(source: Module | str, devices: Sequence[int], device: Any = "910B2", mode: str = "sink",
                  pipeline: str = MULTI_STREAM, baseline: str = SINGLE_STREAM, check_races: bool = True,
                  device_params: Sequence[str] = ()) -> list[StepTimes]:
    """:func:`step_times` of ``source`` built with ``pipeline`` and ``baseline``."""
    return step_times(compile_task_list(source, pipeline), compile_task_list(source, baseline), devices, device, mode,
                      check_races, device_params)


def format_steps(rows: list[StepTimes], device: str, mode: str) -> str:
    """A table: a line per device count."""
    lines = [f"data-parallel training step on {device} ({mode} mode); every device runs the same timeline "
             "(symmetric data parallelism), HCCL ring all-reduce",
             f"{'devices':>7} {'step us (overlap)':>18} {'step us (none)':>15} {'speed-up':>9} {'comm us':>10} "
             f"{'compute us':>11} {'comm hidden':>11}"]
    for r in rows:
        serial = f"{r.serial_us:>15.3f} {r.speedup:>8.3f}x" if r.serial_us is not None else f"{'-':>15} {'-':>9}"
        lines.append(f"{r.devices:>7} {r.overlap_us:>18.3f} {serial} "
                     f"{r.comm_us:>10.3f} {r.compute_us:>11.3f} {r.hidden_comm * 100:>10.1f}%")
    lines.append("overlap: collectives on their own HCCL stream beside the backward pass; none: one stream; "
                 "compute: the overlapped step with free collectives; comm hidden: 1 - (overlap - compute) / comm")
    return "\n".join(lines) + "\n"


def training_step_graph(layers: int = 4, batch: int = 64, width: int = 1024, devices: int = 8) -> str:
    """The ``ge`` text of a data-parallel MLP training step (forward, backward,
    a gradient all-reduce per layer): ``ge-bench``'s ``training_step`` workload."""
    from geir.tools.bench.workloads import training_step
    return training_step(layers=layers, batch=batch, width=width, ranks=devices)


def mixed_training_inference(training: TaskList, inference: TaskList, device: Any = "910B2", mode: str = "sink",
                             training_priority: int = 1, inference_priority: int = 0, inference_runs: int = 1,
                             device_params: Sequence[str] = ()) -> CoRunResult:
    """A training step (low priority) and ``inference_runs`` inference runs
    back to back (high priority) on one device: :func:`co_run` of the two."""
    return co_run([training, inference], ["training", "inference"], [training_priority, inference_priority], device,
                  mode, iterations=[1, inference_runs], device_params=device_params)
