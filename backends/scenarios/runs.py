"""The scenarios over one model (or several), as ``ge-run``'s scenario
options ask for them: :func:`run_iterations` (N frames back to back),
:func:`run_data_parallel` (a training step on N devices) and
:func:`co_run_modules` (several models at once on one device). Each takes a
``ge`` module — built single- and multi-stream as the scenario needs — or a
task list (a lowered module, or a graph already scheduled: run as given), and
returns a :class:`ScenarioReport`.

Every figure is the emulator's (timing only; the race checker runs on the
multi-stream builds).
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import attrs

from geir.diagnostics import error as _error

__all__ = ["ScenarioReport", "source_kind", "scenario_builds", "scenario_task_list", "run_iterations",
           "run_data_parallel", "co_run_modules"]


@attrs.define
class ScenarioReport:
    """A scenario's result: ``fields`` as ``--report json`` prints them, the
    text, and the emulator's report of each run (for their findings)."""

    fields: dict[str, Any]
    text: str
    reports: list[dict[str, Any]] = attrs.Factory(list)

    @property
    def findings(self) -> list[str]:
        """Races and deadlocks of any run (empty when clean)."""
        from geir.report import findings
        return sorted({f for r in self.reports for f in findings(r)})

    def to_json(self, indent: int | None = 1) -> str:
        """The object ``ge-run --report json`` prints for the scenario."""
        return json.dumps(self.fields, indent=indent)


def source_kind(source: Any) -> str:
    """``graph`` (a ge module to build), ``tasks`` (a lowered list, or a graph
    already carrying its streams and events: built as it is)."""
    from geir.backends.task_list import TaskList
    if isinstance(source, TaskList):
        return "tasks"
    from geir.backends.scenarios.build import has_graph, is_scheduled
    return "graph" if has_graph(source) and not is_scheduled(source) else "tasks"


def scenario_builds(device: str, streams: int | None, pipeline: str | None, compare: bool,
                    iterations: int = 1) -> dict[str, str]:
    """label -> pipeline of the builds a scenario measures (``pipeline``
    replaces the multi-stream ones; ``compare`` keeps the single-stream one)."""
    from geir.backends.scenarios.video_pipeline import frame_builds
    builds = frame_builds(iterations, device, streams)
    if pipeline:
        builds = {"single-stream": builds["single-stream"], f"multi-stream ({pipeline})": pipeline}
    if not compare:
        del builds["single-stream"]
    return builds


def scenario_task_list(source: Any) -> Any:
    """The task list of ``source`` as given: a TaskList, a lowered module, a
    scheduled graph (lowered as it is) or a graph (built multi-stream)."""
    from geir.backends.task_list import TaskList
    if isinstance(source, TaskList):
        return source
    from geir.backends.scenarios.build import AS_SCHEDULED, MULTI_STREAM, compile_task_list, has_graph, is_scheduled
    return compile_task_list(source, AS_SCHEDULED if has_graph(source) and is_scheduled(source) else MULTI_STREAM)


def run_iterations(source: Any, iterations: int, buffers: int = 2, compare: bool | None = None,
                   device: str = "910B2", mode: str = "sink", device_params: Sequence[str] = (),
                   pipeline: str | None = None, streams: int | None = None) -> ScenarioReport:
    """``iterations`` frames through ``source`` back to back on the same streams
    (``buffers`` arena regions, events between frames): frames per second and
    utilisation of a single-stream build (``compare``; default: when
    ``source`` is a graph to build) and the multi-stream builds, and how many
    frames' decode overlapped the previous frame's inference."""
    from geir.backends.scenarios.build import compile_task_list
    from geir.backends.scenarios.video_pipeline import format_frames, run_frames
    kind = source_kind(source)
    compare = kind == "graph" if compare is None else compare
    params = tuple(device_params)
    if kind == "graph":
        builds = scenario_builds(device, streams, pipeline, compare, iterations)
        runs = [run_frames(compile_task_list(source, p), iterations, device, mode, buffers, label,
                           check_races=label != "single-stream", device_params=params)
                for label, p in builds.items()]
    else:
        runs = [run_frames(scenario_task_list(source), iterations, device, mode, buffers, "as given",
                           device_params=params)]
    fields = {"scenario": "video-pipeline", "device": runs[0].report["device"], "mode": mode,
              "iterations": iterations, "buffers": runs[0].buffers, "builds": [r.as_dict() for r in runs]}
    return ScenarioReport(fields, format_frames(runs), [r.report for r in runs])


def run_data_parallel(source: Any, devices: int, compare: bool | None = None, device: str = "910B2",
                      mode: str = "sink", device_params: Sequence[str] = (), pipeline: str | None = None,
                      streams: int | None = None) -> ScenarioReport:
    """A data-parallel training step of ``source`` on ``devices`` devices
    (``rank_size`` on every collective): its time with communication overlap
    (multi-stream) and, with ``compare`` (default: when ``source`` is a graph
    to build), without (single-stream)."""
    from geir.backends.scenarios.build import MULTI_STREAM, SINGLE_STREAM, compile_task_list
    from geir.backends.scenarios.data_parallel import format_steps, step_times
    kind = source_kind(source)
    compare = kind == "graph" if compare is None else compare
    if kind == "graph":
        chosen = pipeline or (f"ge-default{{max-streams={streams}}}" if streams is not None else MULTI_STREAM)
        overlapped = compile_task_list(source, chosen)
        serial = compile_task_list(source, SINGLE_STREAM) if compare else None
    else:
        overlapped, serial = scenario_task_list(source), None
    rows = step_times(overlapped, serial, [devices], device, mode, device_params=tuple(device_params))
    report = rows[0].overlap_report
    fields = {"scenario": "data-parallel", "device": report["device"], "mode": mode,
              "symmetric": "every device runs this timeline", "rows": [r.as_dict() for r in rows]}
    return ScenarioReport(fields, format_steps(rows, report["device"], mode),
                          [rep for r in rows for rep in r.reports()])


def co_run_modules(sources: Sequence[Any], names: Sequence[str], priorities: Sequence[int], iterations: int = 1,
                   device: Any = "910B2", mode: str = "sink", device_params: Sequence[str] = (),
                   buffers: int = 2) -> ScenarioReport:
    """Several models at once on one device, each on streams of its own at its
    priority: each model's latency under load beside its solo latency, and
    the device's throughput. ``sources`` are modules (built as
    :func:`scenario_task_list` builds them) or task lists."""
    from geir.backends.scenarios.co_run import co_run
    if len(priorities) != len(sources):
        raise _error(f"{len(sources)} models but {len(priorities)} --priority values", "give one per model, in order")
    result = co_run([scenario_task_list(s) for s in sources], list(names), list(priorities), device, mode,
                    iterations, buffers, device_params=tuple(device_params))
    return ScenarioReport(result.as_dict(), result.text(), [result.report])
