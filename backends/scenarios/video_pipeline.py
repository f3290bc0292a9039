"""A video analysis pipeline over N frames — DVPP decode
and resize, AI core inference, AICPU post-processing — emulated with the
frames back to back (:func:`~geir.backends.scenarios.iterations.unroll`).

:func:`run_frames` emulates one build over N frames and reports frames per
second, per-engine utilisation and, per frame, when each engine worked on it
(``stages``), so one can see frame k+1's decode overlap frame k's inference.
:func:`compare_frames` does it for a single-stream build and multi-stream
builds of the same graph. Streams are in-order queues, so frames pipeline
only across streams: a build that keeps the whole chain on one stream (the
single strategy, or the cost strategy on a chain, which sees nothing to gain
within one frame) runs frame after frame; GE's engine-based streams (``ge``
strategy: DVPP on a stream of its own) let frame k+1's decode run beside
frame k's inference.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.emulator.program import KERNEL
from geir.backends.scenarios.build import ENGINE_STREAMS, MULTI_STREAM, SINGLE_STREAM, compile_task_list
from geir.backends.scenarios.iterations import frame_of, unroll
from geir.backends.task_list import TaskList
from geir.module import Module

__all__ = ["frame_builds", "FrameRun", "run_frames", "compare_frames", "format_frames", "overlaps",
           "frames_overlapping", "BUILDS"]

INF = float("inf")

#: the builds :func:`compare_frames` measures by default: label -> pipeline
BUILDS = {"single-stream": SINGLE_STREAM, "multi-stream (cost)": MULTI_STREAM,
          "multi-stream (ge engines)": ENGINE_STREAMS}


def frame_builds(iterations: int, device: str = "910B2", max_streams: int | None = None) -> dict[str, str]:
    """:data:`BUILDS` for ``iterations`` frames on ``device``: every build costs its
    plan on the emulated device, and the cost strategy judges its plans over the
    frames (``partition-streams{iterations=N}``), so it may pipeline them."""
    from geir.passes.pass_base import option_value_text
    options = [f"device={option_value_text(device)}"] + ([f"max-streams={max_streams}"] if max_streams is not None
                                                         else [])
    cost = options + ([f"iterations={iterations}"] if iterations > 1 else [])
    return {"single-stream": f"ge-default{{strategy=single {' '.join(options)}}}",
            "multi-stream (cost)": f"ge-default{{{' '.join(cost)}}}",
            "multi-stream (ge engines)": f"ge-default{{strategy=ge {' '.join(options)}}}"}


@attrs.define(eq=False)
class FrameRun:
    """One build over ``iterations`` frames.

    ``stages[k][engine]`` is ``(first start, last end)`` of frame k's kernels on
    that engine pool; ``report`` the emulator's report of the unrolled list.
    """

    label: str
    iterations: int
    buffers: int
    report: dict[str, Any]
    stages: list[dict[str, tuple[float, float]]]
    streams: int

    @property
    def makespan_us(self) -> float:
        return float(self.report["makespan_us"])

    @property
    def frames_per_s(self) -> float:
        return self.iterations / self.makespan_us * 1e6 if self.makespan_us > 0 else 0.0

    @property
    def utilization(self) -> dict[str, float]:
        """Engine pool -> utilisation over the run (pools that ran something)."""
        return {name: e["utilization"] for name, e in self.report["engines"].items() if e["tasks"]}

    def as_dict(self) -> dict[str, Any]:
        return {"build": self.label, "iterations": self.iterations, "buffers": self.buffers, "streams": self.streams,
                "makespan_us": self.makespan_us, "frames_per_s": round(self.frames_per_s, 3),
                "utilization": self.utilization, "races_total": self.report["races_total"],
                "deadlock": self.report["deadlock"],
                "decode_overlaps_inference": overlaps(self, "DVPP", ("AICore", "VectorCore"))}


def frames_overlapping(run: FrameRun) -> int:
    """How many frames k have frame k+1's first kernel start before frame k's
    last kernel ends, on whatever engines."""
    spans = [(min((lo for lo, _ in stage.values()), default=INF), max((hi for _, hi in stage.values()), default=-INF))
             for stage in run.stages]
    return sum(1 for k in range(len(spans) - 1) if spans[k + 1][0] < spans[k][1])


def overlaps(run: FrameRun, first: str, second: tuple[str, ...]) -> int:
    """How many frames k have frame k+1's ``first``-engine work overlap frame
    k's work on any of the ``second`` engines (e.g. decode beside inference)."""
    count = 0
    for k in range(len(run.stages) - 1):
        a = run.stages[k + 1].get(first)
        if a is None:
            continue
        for engine in second:
            b = run.stages[k].get(engine)
            if b is not None and a[0] < b[1] and b[0] < a[1]:
                count += 1
                break
    return count


def run_frames(task_list: TaskList, iterations: int, device: Any = "910B2", mode: str = "sink", buffers: int = 2,
               label: str = "", check_races: bool = True, device_params: tuple[str, ...] = ()) -> FrameRun:
    """Emulate ``iterations`` frames of ``task_list`` (timing only; the race
    checker on unless ``check_races`` is False)."""
    unrolled = unroll(task_list, iterations, buffers)
    options = EmulatorOptions(device=device, device_params=list(device_params), mode=mode, timing_only=True,
                              check_races=check_races, progress=False)
    result = emulate(unrolled, None, options)
    schedule = result.schedule
    program = schedule.program
    stages: list[dict[str, tuple[float, float]]] = [{} for _ in range(iterations)]
    for g in range(program.n):
        if program.kind[g] != KERNEL or schedule.end[g] == INF:
            continue
        k = frame_of(program.tasks[g])
        if k is None:
            continue
        pool = program.pool_names[program.pool[g]]
        lo, hi = stages[k].get(pool, (INF, -INF))
        stages[k][pool] = (min(lo, schedule.start[g]), max(hi, schedule.end[g]))
    return FrameRun(label or task_list.name, iterations, min(buffers, iterations), result.report, stages,
                    len(task_list.streams))


def compare_frames(source: Module | str, iterations: int, device: Any = "910B2", mode: str = "sink",
                   buffers: int = 2, builds: Mapping[str, str] | None = None, check_races: bool = True,
                   device_params: tuple[str, ...] = ()) -> list[FrameRun]:
    """:func:`run_frames` for each build of ``source`` (label -> pipeline;
    default :func:`frame_builds`: single-stream, the cost strategy, GE's engine streams)."""
    if builds is None:
        builds = frame_builds(iterations, device if isinstance(device, str) else getattr(device, "name", "910B2"))
    return [run_frames(compile_task_list(source, pipeline), iterations, device, mode, buffers, label, check_races,
                       device_params)
            for label, pipeline in builds.items()]


def format_frames(runs: list[FrameRun]) -> str:
    """A table: a line per build (frames/s, speed-up over the first, utilisation)."""
    if not runs:
        return ""
    r0 = runs[0]
    # a model without DVPP work is frames back to back, not a decode pipeline
    video = any("DVPP" in stage for run in runs for stage in run.stages)
    lines = [f"{'video pipeline' if video else 'frames back to back'}: {r0.iterations} frames on "
             f"{r0.report['device']} ({r0.report['mode']} mode), {r0.buffers} arena buffers",
             f"{'build':<28} {'streams':>7} {'makespan us':>13} {'frames/s':>10} {'speed-up':>9}  "
             f"{'overlap':>7}  utilisation"]
    for run in runs:
        util = ", ".join(f"{k} {v * 100:.1f}%" for k, v in run.utilization.items())
        speedup = r0.makespan_us / run.makespan_us if run.makespan_us > 0 else 0.0
        n_over = overlaps(run, "DVPP", ("AICore", "VectorCore")) if video else frames_overlapping(run)
        lines.append(f"{run.label:<28} {run.streams:>7} {run.makespan_us:>13.3f} {run.frames_per_s:>10.1f} "
                     f"{speedup:>8.3f}x  {n_over:>3}/{max(0, run.iterations - 1):<3}  {util}")
    lines.append("overlap: frames k whose successor's DVPP decode ran beside their AI core inference" if video
                 else "overlap: frames k whose successor started before they ended")
    checked = [r for r in runs if r.report["race_check"]]
    races = [f"{r.label} ({r.report['races_total']})" for r in checked if r.report["races_total"]]
    if checked:
        lines.append(f"races           {'in ' + ', '.join(races) if races else 'none'} (checked: "
                     f"{', '.join(r.label for r in checked)})")
    else:
        lines.append("races           not checked")
    return "\n".join(lines) + "\n"
