"""The results of ``geir.emulate`` (:class:`Report`: the emulator's report as
an object, with its trace, its timeline and its notebook display) and of
``geir.run_model`` (:class:`RunReport`: all that ``ge-run model`` prints).

The fields are those of ``ge-run --report json`` (see
``geir.backends.emulator.report`` for each one's meaning); ``to_json()``
prints the same object ``ge-run`` prints.
"""

from __future__ import annotations

import html
import json
import os
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from geir.backends.emulator import EmulationResult

__all__ = ["Report", "RunReport", "output_summary", "findings", "format_outputs", "non_finite_outputs",
           "non_finite_warnings", "underflow_warnings", "underflow_message", "f16_mode_suffix", "keep_f32_hint",
           "UNDERFLOW_SHARE", "UNDERFLOW_WARNINGS", "F32_PRECISION_MODES"]


def output_summary(outputs: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """Per output: ``dtype``, ``shape`` and ``mean`` (None for non-numeric or
    empty outputs) — the ``outputs`` field of ``ge-run --report json``."""
    summary: dict[str, dict[str, Any]] = {}
    for name, value in outputs.items():
        numeric = value.dtype.kind in "fiub" and value.size > 0
        with np.errstate(all="ignore"):  # the mean of an output holding inf and -inf is NaN, said once by a warning
            mean = float(value.astype(np.float64).mean()) if numeric else None
        summary[name] = {"dtype": str(value.dtype), "shape": list(value.shape), "mean": mean}
    return summary


def non_finite_outputs(outputs: dict[str, np.ndarray]) -> dict[str, int]:
    """The float outputs holding NaN or infinity, with how many such values each."""
    counts = {}
    for name, value in outputs.items():
        if value.dtype.kind in "fc" and value.size:
            bad = int(value.size - np.count_nonzero(np.isfinite(value)))
            if bad:
                counts[name] = bad
    return counts


#: the precision modes under which float ops keep f32 (where f16 cannot overflow)
F32_PRECISION_MODES = frozenset({"must_keep_origin_dtype", "force_fp32"})


def keep_f32_hint(device: str | None = None, cube_fp32: bool = True) -> str:
    """The precision mode that keeps the most of a model's f32 on a device:
    ``must_keep_origin_dtype`` where the cube computes in f32; where it does
    not (``cube_fp32`` false: 310P, 910A), that mode rejects an f32 cube op,
    so ``force_fp32``, which keeps f32 in every other op."""
    if cube_fp32:
        return "--precision-mode must_keep_origin_dtype keeps the model's f32"
    where = f"device {device}" if device else "the device"
    return (f"--precision-mode force_fp32 keeps f32 in every op but the cube ops, which {where} "
            "computes only in f16")


def non_finite_warnings(outputs: dict[str, np.ndarray], precision_mode: str | None,
                        keep_f32: str | None = None, f16_overflowed: int | None = None,
                        random_seed: int | None = None, first_overflow: tuple[str, Any] | None = None,
                        model_f32: bool = True, f16_flushed: bool = False) -> list[Any]:
    """A warning (a ``Diagnostic``) per output holding non-finite values.
    Under a mode that computes in f16 (``precision_mode``: the one the run
    used) it blames f16, saying its largest value and the mode that keeps f32
    (``keep_f32``, :func:`keep_f32_hint` of the run's device), unless the run
    was watched and no op's f16 result overflowed where f32 stays finite
    (``f16_overflowed`` 0): then the model makes them in f32 too, unless f16
    flushed values to zero that f32 holds (``f16_flushed``: an op's results or
    a constant, each warned at where it happens), which a division or a
    logarithm turns into NaN or infinity. A model
    with no f32 of its own (``model_f32`` false) computes in f16 whatever the
    mode: no mode keeps f32 for it. ``first_overflow``, the first op whose f16
    results overflowed (``(loc, Underflow)``), gets a note at that op. Inputs
    drawn at random (``random_seed`` set: the caller's judgement that an
    input may be a mask, an index or a length) get a note that they may need
    the model's own values."""
    from geir.diagnostics import Diagnostic, location_from_text
    warnings = []
    for name, bad in non_finite_outputs(outputs).items():
        message = f"output '{name}' holds {bad} non-finite value(s) of {outputs[name].size}"
        f16 = not model_f32 or precision_mode is not None and precision_mode not in F32_PRECISION_MODES
        if f16 and f16_overflowed == 0 and f16_flushed and model_f32:
            # 0 / 0 is NaN and log(0) is -inf: a divisor or an epsilon f16 flushed makes them
            message += (f": no op overflowed f16 under --precision-mode {precision_mode}, but f16 flushed values "
                        f"to zero that f32 holds (each warned at its op), and a division or a logarithm makes NaN "
                        f"or infinity of a zero; {keep_f32 or keep_f32_hint()}")
        elif f16 and f16_overflowed == 0:
            message += (f": no op overflowed f16 under --precision-mode {precision_mode}; the model makes them in "
                        "f32 too" if model_f32 else ": no op overflowed f16; its ops make them in f32 too")
        elif f16:
            overflowed = "" if f16_overflowed is None else \
                f" ({f16_overflowed} value(s) of its ops overflowed f16 where f32 stays finite)"
            cause = (f"under --precision-mode {precision_mode} the model computes in f16" if model_f32
                     else "the model computes in f16 itself")
            message += f": {cause}, whose largest value is 65504{overflowed}"
            if model_f32:
                message += f"; {keep_f32 or keep_f32_hint()}"
        warning = Diagnostic("warning", message)
        if f16 and first_overflow is not None:
            loc, count = first_overflow
            warning.attach_note(f"the first op to overflow f16: '{count.op}' op, {count.overflowed} value(s)",
                                location_from_text(loc))
        if random_seed is not None:
            warning.attach_note(f"the inputs were random (seed {random_seed}); a mask, an index or a length may "
                                "need the model's own values: give them with --inputs")
        warnings.append(warning)
    return warnings


#: the share of an op's values non-zero in f32 that f16 must flush to zero for
#: a warning. Below it the flushed values are the thin tail near zero of a
#: tensor f16 holds (hard-swish and gated products put 0.3-4% of their values
#: there on MobileNetV3 and EfficientNet), under 3e-8 beside values f16 rounds
#: by more than that: harmless. From it the op's own scale sits at f16's
#: floor and its signal is lost (those ops flush 10-100% of their values).
UNDERFLOW_SHARE = 0.1

#: at most this many underflow warnings per run, then one that counts the
#: rest: an op whose values underflow feeds others that underflow in turn,
#: and the first ones run are where it starts
UNDERFLOW_WARNINGS = 5


def underflow_message(count: Any) -> str:
    """What an op (or a constant) lost to f16, ``count`` its
    :class:`~geir.backends.kernels.underflow.Underflow`: the values not zero
    in f32 that are zero in f16, their share, and f16's smallest value."""
    from geir.backends.kernels.underflow import F16_SMALLEST
    return (f"'{count.op}' op: {count.flushed} of its {count.nonzero} value(s) not zero in f32 are flushed "
            f"to zero in f16 ({count.share:.1%}; f16's smallest value is {F16_SMALLEST:.1e})")


def f16_mode_suffix(precision_mode: str, keep_f32: str | None = None) -> str:
    """The end of a warning that blames f16: the mode the model ran under and
    the mode that keeps f32 (``keep_f32``, :func:`keep_f32_hint` of the device)."""
    return f": under --precision-mode {precision_mode} the model computes in f16; {keep_f32 or keep_f32_hint()}"


def underflow_warnings(underflows: list[tuple[str, Any]], precision_mode: str | None,
                       keep_f32: str | None = None, model_f32: bool = True) -> list[Any]:
    """A warning (a ``Diagnostic`` at the op) per op whose f16 results flushed
    to zero at least :data:`UNDERFLOW_SHARE` of the values they hold in f32
    when not zero, for the first :data:`UNDERFLOW_WARNINGS` such ops, and one
    that counts the others; ``underflows`` are ``(loc, Underflow)`` pairs in
    the order the ops ran: the op's location as a task keeps it and what it
    flushed (:class:`~geir.backends.kernels.underflow.Underflow`);
    ``precision_mode`` is the one the run used; a model with no f32 of its
    own (``model_f32`` false) computes in f16 whatever the mode."""
    from geir.diagnostics import Diagnostic, location_from_text
    suffix = ""
    if not model_f32:
        suffix = ": the model computes in f16 itself"
    elif precision_mode is not None and precision_mode not in F32_PRECISION_MODES:
        suffix = f16_mode_suffix(precision_mode, keep_f32)
    flagged = [(loc, count) for loc, count in underflows if count.share >= UNDERFLOW_SHARE]
    warnings = []
    for loc, count in flagged[:UNDERFLOW_WARNINGS]:
        warnings.append(Diagnostic("warning", underflow_message(count) + suffix, location_from_text(loc)))
    if len(flagged) > UNDERFLOW_WARNINGS:
        warnings.append(Diagnostic("warning", f"{len(flagged) - UNDERFLOW_WARNINGS} more op(s) flush at least "
                                              f"{UNDERFLOW_SHARE:.0%} of their values to zero in f16"))
    return warnings


def format_outputs(summary: dict[str, dict[str, Any]]) -> str:
    """One line per output (``name: float32[1, 10] mean=0.1``), as ``ge-run``
    prints them in text mode without ``-o``."""
    lines = []
    for name, s in summary.items():
        mean = f" mean={s['mean']:.6g}" if s["mean"] is not None else ""
        lines.append(f"{name}: {s['dtype']}{s['shape']}{mean}\n")
    return "".join(lines)


def findings(report: dict[str, Any]) -> list[str]:
    """What makes ``ge-run`` exit with code 3: races, a deadlock, reads of
    uninitialised bytes, lost event records; one phrase each, empty when clean."""
    if "launches" in report:  # host-driven launches list theirs
        return list(report["findings"])
    found = []
    if report["races"]:
        found.append(f"{report['races_total']} data race(s)")
    if report["deadlock"]:
        found.append("a deadlock")
    if report["uninitialised_reads"]:
        found.append(f"{len(report['uninitialised_reads'])} read(s) of uninitialised arena bytes")
    if report["event_stats"]["lost_records"]:
        found.append(f"{len(report['event_stats']['lost_records'])} lost event record(s)")
    return found


class Report:
    """One emulation: every field of ``ge-run --report json`` is an attribute.

    Attributes:
        makespan_us: end of the last task (simulated microseconds).
        lower_bound_us: max of the critical path and each engine's work over
            its capacity; ``lower_bound`` has the parts and ``bound_by``.
        makespan_over_lower_bound: how far from the bound the schedule is.
        host_timed: only for a host-timed run: ``latency_us``, the makespan
            plus ``execute_us`` (the profile's ``model_execute_us``).
        critical_path_us: the longest chain of dependent tasks.
        engines: engine name -> ``capacity``, ``busy_us``, ``work_us``,
            ``utilization``, ``tasks``.
        streams: one dict per stream: ``id``, ``priority``, ``tasks``,
            ``kernels``, ``busy_us``, ``wait_us``, ``utilization``.
        events: distinct event ids used (``event_stats`` has details).
        tasks: the number of device tasks (``task_counts`` by kind; its
            ``no_task`` counts the ops that are no task of their own: fused
            into a chain's head, reshapes, concats laid out in place).
        arena_bytes: the planned arena (also ``weight_bytes``, ``peak_live_bytes``).
        races: the data races found (empty when clean).
        deadlock: None, or why the device stalled.
        warnings: device limits exceeded.
        outputs: the graph outputs by name as numpy arrays (None when timing-only
            or deadlocked); ``to_json()`` summarises them.
        inputs: what the inputs were (``random, seed 0``, a file, ``given``).
        result: the emulator's full ``geir.backends.emulator.EmulationResult``.
        f16_underflow: the kernel tasks whose f16 results flushed values that
            are not zero in f32 to zero, as ``(loc, Underflow)`` pairs in the
            order they ran (``underflow_warnings`` makes ``ge-run``'s warnings).
        f16_overflowed: the values the kernels' f16 results made infinite or
            NaN where the same kernels in f32 stay finite (None: not watched).
    """

    def __init__(self, result: EmulationResult, inputs: str, f16_underflow: list[tuple[str, Any]] | None = None,
                 f16_overflowed: int | None = None) -> None:
        self.result = result
        self.outputs: dict[str, np.ndarray] | None = result.outputs
        self.inputs = inputs
        self.f16_underflow: list[tuple[str, Any]] = list(f16_underflow or [])
        self.f16_overflowed = f16_overflowed
        self._fields = dict(result.report)

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not ordinary attributes: the report's keys.
        fields = self.__dict__.get("_fields")
        if fields is not None and name in fields:
            return fields[name]
        raise AttributeError(f"'Report' has no attribute '{name}'")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._fields))

    @property
    def fields(self) -> list[str]:
        """The names of the report's fields, in ``to_json()`` order."""
        return list(self.as_dict())

    @property
    def findings(self) -> list[str]:
        """Races, a deadlock, uninitialised reads, lost records (empty when clean)."""
        return findings(self._fields)

    @property
    def clean(self) -> bool:
        """No finding: ``ge-run`` would exit 0."""
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        """The report as ``ge-run --report json`` prints it (a fresh dict)."""
        data = json.loads(json.dumps(self._fields))
        if self.outputs is not None:
            data["outputs"] = output_summary(self.outputs)
        data["inputs"] = self.inputs
        return data

    def to_json(self, indent: int | None = 1) -> str:
        """The report as JSON, the object ``ge-run --report json`` prints."""
        return json.dumps(self.as_dict(), indent=indent)

    def text(self) -> str:
        """The report as ``ge-run`` prints it for people."""
        return self.result.text()

    def trace(self, path: str | os.PathLike[str]) -> str:
        """Write the Chrome/Perfetto trace of the run (``ge-run --trace``): open
        it at https://ui.perfetto.dev or chrome://tracing.

        Returns:
            The path written.

        Raises:
            geir.Error: ``path`` cannot be written.
        """
        from geir.api import _guarded
        from geir.backends.emulator.trace import write_trace
        path = os.fspath(path)
        _guarded(lambda: write_trace(self.result.schedule, path))
        return path

    def timeline(self, title: str | None = None) -> Figure:
        """The Gantt chart of the run (``ge-run --timeline``) as a matplotlib
        figure: one row per stream, kernels coloured by engine, waits hatched;
        below, the share of each engine's units in use.

        Raises:
            geir.Error: matplotlib is not installed (``pip install 'geir[plot]'``).
        """
        from geir.api import _guarded
        from geir.backends.emulator.timeline import timeline_figure
        return _guarded(lambda: timeline_figure(self.result.schedule, title, needs="Report.timeline()"))

    def __repr__(self) -> str:
        return (f"<geir.Report {self._fields.get('task_list')!s} on {self._fields.get('device')} "
                f"({self._fields.get('mode')}): makespan {self.makespan_us} us, {self.tasks} tasks, "
                f"{len(self.streams)} streams, {'clean' if self.clean else '; '.join(self.findings)}>")

    def _summary_rows(self) -> list[tuple[str, str]]:
        f = self._fields
        lb = f["lower_bound"]
        ratio = f["makespan_over_lower_bound"]
        return [
            ("task list", f"{f['task_list']} on {f['device']}, {f['mode']} mode"),
            ("makespan", f"{f['makespan_us']:.3f} us"),
            ("lower bound", f"{f['lower_bound_us']:.3f} us (bound by {lb['bound_by']})"),
            ("makespan / lower bound", f"{ratio:.3f}" if ratio is not None else "n/a"),
            ("critical path", f"{f['critical_path_us']:.3f} us over {f['critical_path']['tasks']} tasks"),
            ("tasks", ", ".join(f"{n} {k}" for k, n in f["task_counts"].items() if n) or "0"),
            ("streams / events", f"{len(f['streams'])} / {f['events']}"),
            ("arena / peak live / weights", f"{f['arena_bytes']} / {f['peak_live_bytes']} / {f['weight_bytes']} B"),
            ("findings", "; ".join(self.findings) or "none"),
        ]

    def _engine_rows(self) -> list[list[str]]:
        return [[name, str(e["capacity"]), f"{e['busy_us']:.3f}", f"{e['work_us']:.3f}",
                 f"{e['utilization'] * 100:.1f}%", str(e["tasks"])]
                for name, e in self._fields["engines"].items() if e["tasks"]]

    def _stream_rows(self) -> list[list[str]]:
        return [[str(s["id"]), str(s["priority"]), str(s["tasks"]), str(s["kernels"]), f"{s['busy_us']:.3f}",
                 f"{s['wait_us']:.3f}", f"{s['utilization'] * 100:.1f}%"] for s in self._fields["streams"]]

    _ENGINE_HEAD = ["engine", "capacity", "busy us", "work us", "utilization", "tasks"]
    _STREAM_HEAD = ["stream", "priority", "tasks", "kernels", "busy us", "waiting us", "utilization"]

    def _repr_html_(self) -> str:
        def table(head: list[str], rows: list[list[str]]) -> str:
            th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
            return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
        summary = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
                          f"{html.escape(v)}</td></tr>" for k, v in self._summary_rows())
        return (f"<div class='geir-report'><table>{summary}</table>"
                f"{table(self._ENGINE_HEAD, self._engine_rows())}{table(self._STREAM_HEAD, self._stream_rows())}"
                "</div>")

    def _repr_markdown_(self) -> str:
        def table(head: list[str], rows: list[list[str]]) -> str:
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            lines += ["| " + " | ".join(row) + " |" for row in rows]
            return "\n".join(lines)
        return "\n\n".join([table(["", "value"], [list(r) for r in self._summary_rows()]),
                            table(self._ENGINE_HEAD, self._engine_rows()),
                            table(self._STREAM_HEAD, self._stream_rows())]) + "\n"


@attrs.define(eq=False)
class RunReport:
    """One run of a model, as ``geir.run_model`` and ``ge-run model`` make it:
    the emulator's report plus what compiling the model said.

    Attributes:
        fields: the object ``ge-run --report json`` prints (``to_json()``).
        body: the text ``ge-run`` prints, without the output lines
            (``format_text()`` adds them).
        outputs: the graph outputs by name as numpy arrays (None when
            timing-only, deadlocked, or the weights are absent).
        result: the emulator's ``EmulationResult`` (None for host-driven
            launches, which are several emulations).
        warnings: the warnings the pipeline's passes reported (diagnostics).
        random_seed: the seed of the random inputs drawn; None when the
            inputs were given or none were needed.
        input_arrays: the inputs the run took, by binding name (None when
            timing-only).
        f16_underflow: the ops whose f16 results flushed values that are not
            zero in f32 to zero, as ``(loc, Underflow)`` pairs.
        f16_overflowed: the values the ops' f16 results made infinite or NaN
            where the same kernels in f32 stay finite (None when not watched).
        f16_first_overflow: the first op whose f16 results overflowed, as
            ``(loc, Underflow)`` (None: none did, or not watched).
        model_f32: whether the model as loaded computes in f32 anywhere (an
            f16 model has no f32 for a precision mode to keep).
    """

    fields: dict[str, Any]
    body: str
    outputs: dict[str, np.ndarray] | None = None
    result: EmulationResult | None = None
    warnings: list[Any] = attrs.Factory(list)
    random_seed: int | None = None
    input_arrays: dict[str, np.ndarray] | None = None
    #: per op whose f16 results flushed values to zero: its task's location
    #: and what it flushed (an ``Underflow``), in task order
    f16_underflow: list[tuple[str, Any]] = attrs.Factory(list)
    #: the values the ops' f16 results made infinite or NaN where the same
    #: kernels in f32 stay finite (None: not watched)
    f16_overflowed: int | None = None
    f16_first_overflow: tuple[str, Any] | None = None
    model_f32: bool = True

    def __attrs_post_init__(self) -> None:
        # ge-run --report json carries what the warnings say, one object per op
        if self.f16_underflow and "f16_underflow" not in self.fields:
            self.fields["f16_underflow"] = [
                {"loc": loc, "op": u.op, "flushed": u.flushed, "nonzero": u.nonzero, "share": round(u.share, 4)}
                for loc, u in self.f16_underflow]

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not attributes: the report's other keys.
        if name.startswith("__"):
            raise AttributeError(name)
        fields = self.fields
        if name in fields:
            return fields[name]
        raise AttributeError(f"'RunReport' has no attribute '{name}'")

    @property
    def makespan_us(self) -> float:
        """End of the last task (simulated microseconds); for host-driven
        launches, the sum of their makespans."""
        f = self.fields
        return float(f["makespan_us"] if "makespan_us" in f else f["device_time_us"])

    @property
    def lower_bound_us(self) -> float | None:
        """The emulator's bound of the program that ran (None for host-driven launches)."""
        return self.fields.get("lower_bound_us")

    @property
    def single_stream_us(self) -> float | None:
        """The makespan of the same pipeline on a single stream (None: not compared)."""
        single = self.fields.get("single_stream")
        return single["makespan_us"] if single else None

    @property
    def speedup(self) -> float | None:
        """The single-stream makespan over this one (None: not compared)."""
        single = self.fields.get("single_stream")
        return single["speedup"] if single else None

    @property
    def graph_bound(self) -> dict[str, Any] | None:
        """The graph's lower bound over any stream plan: ``bound_us``,
        ``bound_by``, ``streams``, ``trips`` (the trips counted per loop
        location) and ``per_trip`` (the loops whose trip count is a value,
        counted once: then the bound is per trip, not of the run); None when
        no pipeline ran."""
        return self.fields.get("graph_lower_bound")

    @property
    def memory_plan(self) -> dict[str, Any] | None:
        """``reuse-memory``'s arena against its lower bound, with
        ``region_bytes`` the part control-flow regions hold (None without
        control flow); None without reuse-memory."""
        return self.fields.get("memory_plan")

    @property
    def pipeline(self) -> str | None:
        """The pipeline that compiled the graph, as shown (None: it ran as written)."""
        return self.fields.get("pipeline")

    @property
    def weights_absent(self) -> bool:
        """The model holds no weight values: the run was timing-only."""
        return self.fields.get("weights") == WEIGHTS_ABSENT

    @property
    def non_finite_outputs(self) -> dict[str, int]:
        """The float outputs holding NaN or infinity (an f16 overflow, most
        often), with how many such values each; empty without outputs."""
        return non_finite_outputs(self.outputs) if self.outputs is not None else {}

    @property
    def findings(self) -> list[str]:
        """Races, a deadlock, uninitialised reads, lost records (empty when clean)."""
        return findings(self.fields)

    @property
    def clean(self) -> bool:
        """No finding: ``ge-run`` would exit 0."""
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        """The report as ``ge-run --report json`` prints it (a fresh dict)."""
        return json.loads(json.dumps(self.fields))

    def to_json(self, indent: int | None = 1) -> str:
        """The object ``ge-run --report json`` prints."""
        return json.dumps(self.fields, indent=indent)

    def format_text(self, outputs: bool = True) -> str:
        """The report ``ge-run`` prints for people; with ``outputs``, a summary
        line per output (what ``ge-run`` prints without ``-o``)."""
        summary = self.fields.get("outputs")
        if outputs and self.outputs is not None and summary:
            return self.body + format_outputs(summary)
        return self.body

    def trace(self, path: str | os.PathLike[str]) -> str:
        """Write the run's Chrome/Perfetto trace (``ge-run --trace``); the path written."""
        return self._emulation("trace()").trace(path)

    def timeline(self, title: str | None = None) -> Figure:
        """The run's Gantt chart (``ge-run --timeline``) as a matplotlib figure."""
        return self._emulation("timeline()").timeline(title)

    def _emulation(self, what: str) -> Report:
        if self.result is None:
            from geir.api import Error
            from geir.diagnostics import Diagnostic
            raise Error(Diagnostic("error", f"RunReport.{what} needs one emulation; host-driven launches are "
                                            "several"))
        return Report(self.result, str(self.fields.get("inputs")))

    def __repr__(self) -> str:
        f = self.fields
        speedup = f"{self.speedup:.2f}x over single stream, " if self.speedup is not None else ""
        return (f"<geir.RunReport on {f.get('device')} ({f.get('mode')}): makespan {self.makespan_us:.3f} us, "
                f"{speedup}{'clean' if self.clean else '; '.join(self.findings)}>")


#: ``RunReport.fields["weights"]`` of a model without weight values
WEIGHTS_ABSENT = "absent: timing only"
