"""``co_run``: several models on one emulated device at once, each with its own
streams at its own priority: multi-model inference serving, and training
mixed with inference.

The models' task lists are merged into one (:func:`merge_task_lists`):

* streams are renumbered, model after model (``stream_base`` of a model is the
  id of its first stream), each at the model's priority (smaller is served
  first by the engine pools, ACL's convention);
* arenas, weight spaces and unified buffers are placed side by side (every
  ``TensorRef`` moves by its model's base in its space; bases 512-byte aligned
  as GE aligns buffers);
* event ids are renumbered past the previous models' ids;
* input and output bindings are prefixed ``<model>/``.

The merged list runs timing-only; each model's latency is the end of the last
task on its streams, and its solo latency the makespan of its task list alone
on the same device. The pools are not preemptive: a kernel that has started
keeps its units, so a high-priority model waits at most for the kernels
already running when its own become ready.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import attrs

from geir.backends.emulator import EmulationResult, EmulatorOptions, emulate
from geir.backends.emulator.report import calibration_line
from geir.backends.scenarios.iterations import event_count, unroll
from geir.backends.task_list import (ARENA, UB, WEIGHTS, Binding, Kernel, Memcpy, Record, Stream, Task, TaskList,
                                     TensorRef, Wait, WeightBlob)
from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["CoRunResult", "ModelPlacement", "co_run", "merge_task_lists"]

ALIGN = 512


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


@attrs.frozen
class ModelPlacement:
    """Where one model went in the merged task list."""

    name: str
    priority: int
    stream_ids: tuple[int, ...]
    arena_base: int
    weight_base: int
    event_base: int


def _move(ref: TensorRef | None, base: Mapping[str, int]) -> TensorRef | None:
    """``ref`` moved by its space's ``base`` (arena, weights, unified buffer)."""
    if ref is None or not base.get(ref.space):
        return ref
    return attrs.evolve(ref, offset=ref.offset + base[ref.space])


def _move_task(task: Task, base: Mapping[str, int], events: int) -> Task:
    if isinstance(task, Kernel):
        return attrs.evolve(task, inputs=[_move(r, base) for r in task.inputs],
                            outputs=[_move(r, base) for r in task.outputs])  # type: ignore[misc]
    if isinstance(task, Memcpy):
        return Memcpy(_move(task.src, base), _move(task.dst, base), task.loc)  # type: ignore[arg-type]
    if isinstance(task, Record):
        return Record(task.event + events, task.loc)
    if isinstance(task, Wait):
        return Wait(task.event + events, task.loc)
    return attrs.evolve(task)


def merge_task_lists(task_lists: Sequence[TaskList], names: Sequence[str],
                     priorities: Sequence[int]) -> tuple[TaskList, list[ModelPlacement]]:
    """One task list running every model of ``task_lists`` side by side (see the
    module doc), and where each model went."""
    merged = TaskList(name="+".join(names))
    placements: list[ModelPlacement] = []
    arena = weights = ub = events = 0
    next_stream = 0
    for tl, name, priority in zip(task_lists, names, priorities):
        ids = []
        base = {ARENA: arena, WEIGHTS: weights, UB: ub}
        for st in tl.streams:
            merged.streams.append(Stream(next_stream, priority,
                                         [_move_task(t, base, events) for t in st.tasks]))
            ids.append(next_stream)
            next_stream += 1
        for blob in tl.weights:
            merged.weights.append(WeightBlob(f"{name}/{blob.name}", blob.offset + weights, blob.data, blob.absent))
        merged.inputs += [Binding(f"{name}/{b.name}", _move(b.ref, base)) for b in tl.inputs]  # type: ignore[arg-type]
        merged.outputs += [Binding(f"{name}/{b.name}", _move(b.ref, base)) for b in tl.outputs]  # type: ignore[arg-type]
        placements.append(ModelPlacement(name, priority, tuple(ids), arena, weights, events))
        arena += _align(tl.arena_size)
        weights += _align(tl.weight_size)
        ub += _align(tl.ub_size)
        events += event_count(tl)
    merged.arena_size = arena
    merged.weight_size = weights
    merged.ub_size = ub
    merged.num_events = events
    return merged, placements


@attrs.define(eq=False)
class CoRunResult:
    """Per-model latencies under co-run and alone, and the device's throughput.

    ``models``: one dict per model — ``name``, ``priority``, ``streams`` (ids in
    the merged list), ``latency_us`` (its last task's end in the co-run),
    ``solo_latency_us`` (its makespan alone), ``slowdown`` (their ratio),
    ``iterations``. ``throughput_per_s``: model runs completed per second of the
    co-run's makespan. ``report``: the emulator's report of the merged list.
    """

    models: list[dict[str, Any]]
    throughput_per_s: float
    report: dict[str, Any]
    result: EmulationResult
    task_list: TaskList
    placements: list[ModelPlacement]

    @property
    def makespan_us(self) -> float:
        return float(self.report["makespan_us"])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the models, the throughput, the makespan and the engines."""
        return {"scenario": "co-run", "device": self.report["device"], "calibration": self.report["calibration"],
                "mode": self.report["mode"],
                "makespan_us": self.makespan_us, "throughput_per_s": self.throughput_per_s,
                "models": self.models, "engines": self.report["engines"], "races_total": self.report["races_total"],
                "deadlock": self.report["deadlock"]}

    def text(self) -> str:
        """A printable table: a line per model, then the device's figures."""
        r = self.report
        width = max([20, *(len(m["name"]) for m in self.models)])  # a gear's name is long: the columns stay
        lines = [f"co-run of {len(self.models)} models on {r['device']} ({r['mode']} mode): makespan "
                 f"{self.makespan_us:.3f} us, throughput {self.throughput_per_s:.1f} model runs/s",
                 calibration_line(r),
                 f"{'model':<{width}} {'priority':>8} {'streams':>8} {'runs':>5} {'latency us':>12} {'solo us':>12} "
                 f"{'slowdown':>9}"]
        for m in self.models:
            lines.append(f"{m['name']:<{width}} {m['priority']:>8} {len(m['streams']):>8} {m['iterations']:>5} "
                         f"{m['latency_us']:>12.3f} {m['solo_latency_us']:>12.3f} {m['slowdown']:>8.3f}x")
        used = [f"{name} {e['utilization'] * 100:.1f}%" for name, e in r["engines"].items() if e["tasks"]]
        lines.append(f"utilisation     {', '.join(used)}")
        if r["deadlock"]:
            lines.append(f"deadlock        {r['deadlock']['message']}")
        return "\n".join(lines) + "\n"


def _check(task_lists: Sequence[TaskList], names: Sequence[str], priorities: Sequence[int],
           iterations: list[int]) -> None:
    if not task_lists:
        raise DiagnosticError(Diagnostic("error", "co-run needs at least one model"))
    if len(names) != len(task_lists) or len(priorities) != len(task_lists):
        raise DiagnosticError(Diagnostic("error", f"co-run of {len(task_lists)} models got {len(names)} names and "
                                                  f"{len(priorities)} priorities"))
    if len(set(names)) != len(names):
        dup = next(n for n in names if list(names).count(n) > 1)
        raise DiagnosticError(Diagnostic("error", f"co-run: model name '{dup}' is given twice"))
    if len(iterations) != len(task_lists):
        raise DiagnosticError(Diagnostic("error", f"co-run of {len(task_lists)} models got {len(iterations)} "
                                                  "iteration counts"))
    if min(iterations) < 1:
        raise DiagnosticError(Diagnostic("error", f"co-run: iterations must be at least 1, got {min(iterations)}"))


def co_run(task_lists: Sequence[TaskList], names: Sequence[str], priorities: Sequence[int], device: Any,
           mode: str = "sink", iterations: int | Sequence[int] = 1, buffers: int = 2,
           device_params: Sequence[str] = ()) -> CoRunResult:
    """Run ``task_lists`` together on one emulated ``device`` (timing only) and
    alone; each model's latency in both, the device's throughput.

    With ``iterations > 1`` each model runs that many times back to back
    (:func:`~geir.backends.scenarios.iterations.unroll`, ``buffers`` arena
    regions) before the merge, and the throughput counts every run;
    ``iterations`` may also give one count per model.

    Raises:
        DiagnosticError: mismatched arguments, or a task list the emulator rejects.
    """
    runs = [iterations] * len(task_lists) if isinstance(iterations, int) else list(iterations)
    _check(task_lists, names, priorities, runs)
    lists = [unroll(tl, n, buffers) if n > 1 else tl for tl, n in zip(task_lists, runs)]
    merged, placements = merge_task_lists(lists, names, priorities)
    options = EmulatorOptions(device=device, device_params=list(device_params), mode=mode, timing_only=True,
                              check_races=False, progress=False)
    result = emulate(merged, None, options)
    schedule = result.schedule
    program = schedule.program
    # the last end on each stream (index of the stream in the program -> time)
    last_end = [0.0] * program.num_streams
    for g in range(program.n):
        e = schedule.end[g]
        s = program.stream_of[g]
        if e != float("inf") and e > last_end[s]:
            last_end[s] = e
    index_of = {sid: i for i, sid in enumerate(program.stream_ids)}
    models = []
    for tl, p, n in zip(lists, placements, runs):
        solo = emulate(tl, None, options).report["makespan_us"]
        latency = max((last_end[index_of[s]] for s in p.stream_ids), default=0.0)
        models.append({"name": p.name, "priority": p.priority, "streams": list(p.stream_ids),
                       "iterations": n, "latency_us": round(latency, 3), "solo_latency_us": solo,
                       "slowdown": round(latency / solo, 4) if solo > 0 else 1.0})
    makespan = result.report["makespan_us"]
    throughput = sum(runs) / makespan * 1e6 if makespan > 0 else 0.0
    return CoRunResult(models=models, throughput_per_s=round(throughput, 3), report=result.report, result=result,
                       task_list=merged, placements=placements)
