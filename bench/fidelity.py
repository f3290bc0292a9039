"""Fidelity of the emulator against measured device time: every row of a
calibration table (Huawei's published Ascend 310P3 latencies of ATC-compiled
models, ``shared/calibration/measured-310p3.csv``) compiled and emulated the
way the vendor ran it, emulated against measured.

    python bench/fidelity.py [--data DIR | --more | --predicted] [--device 310P3] [--strategy ge]
                             [--models resnet18,vgg16] [--json]

Each row names a graph-only ONNX export (``models/<file>``: every weight's
shape and type, none of its bytes), a batch and, for BERT, a sequence length.
The graph is imported timing-only, its symbolic ``batch`` and ``seq`` bound,
compiled with ``ge-default`` on the device — its default precision mode
(``force_fp16`` on the 310P3, as ATC), GE's default stream allocation
(``--strategy``), ATC's ``--enable_small_channel`` where the row's notes say
the vendor compiled with it and static AIPP (``--insert_op_conf``, the
configurations in ``bench/aipp/``) where they say the model took uint8 images,
and the vendor's graph edits that change the work where they name them
(``bench/vendor_edits.py``: a ViT's tokens padded to whole 16-row fractals, a
ViT's batch and tokens merged into its MatMuls' rows, GPT-2's projections
unflattened and its fused query-key-value projection made three) —
lowered and emulated in sink mode, one launch, after a run of the same
model (``warm_l2``: ais_bench runs one warm-up inference before the timed ones
by default, so a model whose weights and activations fit in L2 finds its
weights there), and timed as ais_bench times ``NPU_compute_time``: the host's
clock around the synchronous model execution (``host_timed``: the makespan
plus the profile's ``model_execute_us``). Printed per row: measured and
emulated ms, their ratio and error; then the mean absolute percentage error
(MAPE), the worst ratio, how many rows lie within 1.5x, and per model the throughput ratio
between its largest and smallest measured batch (per sequence length and per
compiled configuration — a model measured both with and without AIPP and small
channel is two series; a configuration measured twice at its mean time),
emulated against measured, and how many series lie within 20%; last, per
series of three batches or more, the time per image at its largest batch over
that at the next largest, measured and emulated; and the measurements that
contradict each other: one configuration's smaller problem (no larger batch,
no longer sequence) measured slower than a larger one, which no emulator can
follow. A folder holds one table per device, ``measured-<device>.csv``
(``measured-310p3.csv``; ``--device 910B2 --data DIR`` reads
``DIR/measured-910b2.csv``), each checked before anything compiles: every bad
field is an error at its row and column. ``--json`` prints the same rows and
figures as one JSON object, for a program to read or two runs (a change to the
cost model, another profile) to be compared row by row.

Nothing is fitted here: the device profile's numbers are used as they are
(``bench/fit_calibration.py`` fits the free ones, to this table and the next).
``--more`` runs the rows of ``bench/more_310p3/`` instead: published 310P3
times, measured the same way, of fifteen architectures the calibration table
does not hold. ``--predicted`` runs those of ``bench/predicted_310p3/``:
twelve more architectures, which no fit has seen (the profile's numbers were
fitted to the other two tables), so their errors are predictions' errors. What
a prediction of an unmeasured architecture can expect is also what
``bench/fit_calibration.py --hold-out`` prints: each architecture predicted by
numbers fitted to the others. Never asserts.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
from collections import Counter
from typing import Callable, Iterable, Sequence, TextIO

import attrs

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import onnx  # noqa: E402
from vendor_edits import apply_edits, vendor_edits  # noqa: E402

import geir  # noqa: E402
from geir.attributes import FileLineColLoc  # noqa: E402
from geir.backends.device_profile import load_profile  # noqa: E402
from geir.backends.task_list import TaskList  # noqa: E402
from geir.diagnostics import Diagnostic, DiagnosticError, SourceFile  # noqa: E402
from geir.tools.driver import run_guarded  # noqa: E402

#: where the calibration data is looked for, in order, when --data is not given
_DATA_CANDIDATES = (os.environ.get("GEIR_CALIBRATION_DIR", ""),
                    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared",
                                 "calibration"))


#: what a compiled task list depends on: model, batch, sequence, small channel, AIPP
#: configuration, the vendor's graph edits
RowKey = tuple[str, int, "int | None", bool, str, tuple[str, ...]]


@attrs.frozen
class Row:
    """One measurement: a model at a batch (and sequence length), its device time."""

    model: str
    batch: int
    seq: int | None
    measured_ms: float
    source: str
    duplicate: bool
    #: ATC ran with --enable_small_channel=1 (the row's notes say so)
    small_channel: bool = False
    #: the AIPP configuration ATC ran with (--insert_op_conf), "" without AIPP
    aipp: str = ""
    #: the graph edits the vendor made before ATC that change the work (:mod:`vendor_edits`)
    edits: tuple[str, ...] = ()

    @property
    def key(self) -> RowKey:
        """What a compiled task list depends on."""
        return (self.model, self.batch, self.seq, self.small_channel, self.aipp, self.edits)


@attrs.frozen
class Result:
    """One row, emulated."""

    row: Row
    emulated_ms: float

    @property
    def ratio(self) -> float:
        return self.emulated_ms / self.row.measured_ms

    @property
    def error(self) -> float:
        return abs(self.emulated_ms - self.row.measured_ms) / self.row.measured_ms


#: measurements of more architectures than the calibration table holds, made the same way
MORE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "more_310p3")
#: measurements of architectures no fit has seen, made the same way
PREDICTED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "predicted_310p3")


def table_name(device: str = "310P3") -> str:
    """The file of a folder that holds ``device``'s measured times:
    ``measured-<profile name>.csv`` in lower case (``measured-310p3.csv``)."""
    return f"measured-{load_profile(device).name.lower()}.csv"


def has_table(data: str, device: str = "310P3") -> bool:
    """Whether the folder ``data`` holds measured times of ``device``."""
    return os.path.isfile(os.path.join(data, table_name(device)))


def find_data(path: str | None, device: str = "310P3") -> str:
    """The folder of ``device``'s measured times: ``path``, ``$GEIR_CALIBRATION_DIR``
    or ``../shared/calibration``, the first that holds :func:`table_name`."""
    for candidate in ((path,) if path else _DATA_CANDIDATES):
        if candidate and has_table(candidate, device):
            return os.path.abspath(candidate)
    where = f"in {path}" if path else "found; pass --data DIR"
    raise SystemExit(f"fidelity: no measured times of {device} ({table_name(device)}) {where}")


#: the columns every row of a measured table gives
COLUMNS = ("model_file", "batch", "seq", "ms_per_execution", "source_path", "notes")
#: at most this many of a table's errors are reported at once
MAX_ERRORS = 20


def load_rows(data: str, models: Sequence[str] = (), device: str = "310P3") -> list[Row]:
    """The rows of ``data``'s table of ``device`` (:func:`table_name`; only ``models``
    when given).
    A table a person wrote by hand is checked first: every column there, each
    batch and sequence a whole number above 0, each time a positive number, each
    model in ``models/``; what is wrong raises one :class:`DiagnosticError`, each
    error at its row and field."""
    path = os.path.join(data, table_name(device))
    with open(path, encoding="utf-8-sig") as f:  # a spreadsheet's export may start with a byte-order mark
        text = f.read()
    lines = text.splitlines()
    records = csv.reader(lines)
    header = next(records, [])
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise DiagnosticError(Diagnostic(
            "error", f"the header has no column {', '.join(repr(c) for c in missing)}",
            FileLineColLoc(path, 1, 1)).attach_note(f"a table gives {', '.join(COLUMNS)}"), [SourceFile(path, text)])
    column = {c: header.index(c) for c in COLUMNS}
    wanted = {os.path.splitext(m)[0] for m in models}
    errors: list[Diagnostic] = []
    rows = []
    for fields in records:
        line = records.line_num
        r = {c: fields[k].strip() if k < len(fields) else "" for c, k in column.items()}
        if not any(f.strip() for f in fields) or (wanted and os.path.splitext(r["model_file"])[0] not in wanted):
            continue
        problems = []
        batch, seq, ms = _whole(r["batch"]), _whole(r["seq"]) if r["seq"] else None, _positive(r["ms_per_execution"])
        if batch is None:
            problems.append(("batch", f"batch '{r['batch']}' is not a whole number above 0"))
        if r["seq"] and seq is None:
            problems.append(("seq", f"seq '{r['seq']}' is not a whole number above 0 (or empty for an image model)"))
        if ms is None:
            problems.append(("ms_per_execution", f"ms_per_execution '{r['ms_per_execution']}' is not a time in ms "
                                                 "above 0"))
        if not os.path.isfile(os.path.join(data, "models", r["model_file"])):
            problems.append(("model_file", f"model '{r['model_file']}' is not in {os.path.join(data, 'models')}"))
        errors += [Diagnostic("error", message, FileLineColLoc(path, line, _field_column(lines[line - 1], column[c])))
                   for c, message in problems]
        if not problems:
            notes = r["notes"]
            rows.append(Row(r["model_file"], batch, seq, ms, r["source_path"], notes.startswith("DUPLICATE"),
                            _small_channel(notes), _aipp(notes), vendor_edits(_own_notes(notes))))
    if errors:
        shown = errors[:MAX_ERRORS]
        if len(errors) > MAX_ERRORS:
            shown[-1].attach_note(f"{len(errors) - MAX_ERRORS} more error(s) in this table not shown")
        raise DiagnosticError(shown, [SourceFile(path, text)])
    return rows


def _whole(text: str) -> int | None:
    """``text`` as a whole number above 0, or None."""
    if not (text.isascii() and text.isdigit()):
        return None
    return int(text) if int(text) > 0 else None


def _positive(text: str) -> float | None:
    """``text`` as a finite number above 0, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def _field_column(line: str, index: int) -> int:
    """The 1-based column at which field ``index`` of a CSV ``line`` starts (commas
    inside quotes do not separate fields)."""
    k, quoted = 0, False
    for col, ch in enumerate(line):
        if k == index:
            return col + 1
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            k += 1
    return len(line) + 1


def _own_notes(notes: str) -> str:
    """A row's notes about its own measurement: a duplicate's notes describe the
    other measurement first, then this one after ``measured:``."""
    return notes[notes.find("measured:"):] if "measured:" in notes else notes


def _small_channel(notes: str) -> bool:
    """Whether the row's own ATC command had ``--enable_small_channel=1``."""
    return "--enable_small_channel=1" in _own_notes(notes)


#: the AIPP configurations of the rows whose notes say ATC ran with AIPP
AIPP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aipp")


def _aipp(notes: str) -> str:
    """The AIPP configuration of the row's own ATC command, "" without AIPP: a
    256 x 256 image cropped to 224 where the notes say so, else an image of the
    model's size (the notes give no size; AIPP's cost does not depend on it once
    fused into the first convolution, which reads only the crop)."""
    own = _own_notes(notes)
    if "AIPP" not in own or "no AIPP" in own:
        return ""
    name = "imagenet_256_crop_224.cfg" if "256x256 -> crop 224" in own else "imagenet_224.cfg"
    return os.path.join(AIPP_DIR, name)


def _input_shapes(path: str, model: "onnx.ModelProto", batch: int, seq: int | None) -> dict[str, tuple[int, ...]]:
    initializers = {i.name for i in model.graph.initializer}
    shapes = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        dims = []
        for d in value.type.tensor_type.shape.dim:
            if d.dim_param == "batch":
                dims.append(batch)
            elif d.dim_param == "seq":
                if seq is None:
                    raise SystemExit(f"fidelity: {path} has a 'seq' dim but the row gives no sequence length")
                dims.append(seq)
            else:
                dims.append(d.dim_value)
        shapes[value.name] = tuple(dims)
    return shapes


def compile_row(data: str, row: Row, device: str, strategy: str) -> TaskList:
    """The task list of ``row``'s model at its batch and sequence: imported timing-only,
    compiled with ge-default on ``device`` with ``strategy``, lowered."""
    path = os.path.join(data, "models", row.model)
    model = onnx.load(path, load_external_data=False)
    shapes = _input_shapes(path, model, row.batch, row.seq)
    source: "str | onnx.ModelProto" = apply_edits(model, row.edits, row.batch) if row.edits else path
    module = geir.import_onnx(source, input_shapes=shapes)
    small = " enable-small-channel=true" if row.small_channel else ""
    aipp = f" insert-op-conf={row.aipp}" if row.aipp else ""
    # verified once, after the pipeline (geir.lower verifies what it lowers): after each of
    # its passes, that was a third of the time a table takes to compile
    geir.run_pipeline(module, f"ge-default{{device={device} strategy={strategy}{small}{aipp}}}", verify_each=False)
    return geir.lower(module)


def emulate_ms(task_list: TaskList, device: str, params: Iterable[str] = ()) -> float:
    """The task list's time on ``device`` (with ``params`` overrides) as ais_bench
    times it, in ms: the host's clock around a synchronous model execution."""
    report = geir.emulate(task_list, device=device, timing_only=True, check_races=False,
                          device_params=list(params), warm_l2=True, host_timed=True)
    return report.host_timed["latency_us"] / 1000.0


def compile_rows(data: str, rows: Sequence[Row], device: str, strategy: str,
                 progress: bool = True) -> dict[RowKey, TaskList]:
    """Every distinct (model, batch, seq, ATC options) of ``rows``, compiled once."""
    compiled: dict[RowKey, TaskList] = {}
    for row in rows:
        key = row.key
        if key in compiled:
            continue
        start = time.perf_counter()
        compiled[key] = compile_row(data, row, device, strategy)
        if progress:
            print(f"  compiled {row.model} batch {row.batch}{f' seq {row.seq}' if row.seq else ''} "
                  f"({time.perf_counter() - start:.1f} s)", file=sys.stderr, flush=True)
    return compiled


def evaluate(rows: Sequence[Row], compiled: dict[RowKey, TaskList], device: str,
             params: Iterable[str] = ()) -> list[Result]:
    """Every row emulated with ``params`` overrides of the device profile."""
    params = list(params)
    cache: dict[RowKey, float] = {}
    results = []
    for row in rows:
        key = row.key
        if key not in cache:
            cache[key] = emulate_ms(compiled[key], device, params)
        results.append(Result(row, cache[key]))
    return results


@attrs.frozen
class ArchitectureFigures:
    """One architecture's rows, summed up: how many, over which batches, their MAPE
    and the range of emulated over measured."""

    rows: int
    batches: tuple[int, int]
    mape: float
    ratios: tuple[float, float]


@attrs.frozen
class Summary:
    """The figures a fidelity run is judged by."""

    mape: float
    median_ratio: float
    worst_ratio: float
    within_1_5x: int
    rows: int
    #: per model (and sequence length): (measured, emulated) throughput ratio of its
    #: largest to smallest batch
    batch_scaling: dict[str, tuple[float, float]]
    #: per series of three batches or more: (measured, emulated) time per image at its
    #: largest batch over that at the next largest (above 1: the largest batch is slower
    #: per image)
    last_step: dict[str, tuple[float, float]] = attrs.Factory(dict)
    #: per model file, in the order of its first row
    architectures: dict[str, ArchitectureFigures] = attrs.Factory(dict)
    #: measurements that contradict each other: (a, b, a's ms, b's ms) where a is a
    #: configuration's smaller problem (no larger batch nor sequence) yet measured slower
    contradictions: list[tuple[str, str, float, float]] = attrs.Factory(list)


def worst_ratio(ratios: Iterable[float]) -> float:
    """The ratio of emulated to measured furthest from 1, either way."""
    return max(ratios, key=lambda x: max(x, 1 / x))


def summarize(results: Sequence[Result]) -> Summary:
    """MAPE, median and worst ratio, rows within 1.5x, and batch scaling per model."""
    ratios = sorted(r.ratio for r in results)
    worst = worst_ratio(ratios)
    scaling: dict[str, tuple[float, float]] = {}
    last_step: dict[str, tuple[float, float]] = {}
    # a series is one compiled configuration: a model measured both with and without
    # AIPP and small channel is two series, each against its own measurements
    by_model: dict[tuple[str, int | None, bool, str], list[Result]] = {}
    for r in results:
        by_model.setdefault((r.row.model, r.row.seq, r.row.small_channel, r.row.aipp), []).append(r)
    configurations = Counter((model, seq) for model, seq, _, _ in by_model)
    for (model, seq, small_channel, aipp), rs in by_model.items():
        lo_batch = min(r.row.batch for r in rs)
        hi_batch = max(r.row.batch for r in rs)
        if lo_batch == hi_batch:
            continue

        def throughput(batch: int, ms: Callable[[Result], float]) -> float:
            # a configuration measured twice counts once, at its mean time
            times = [ms(r) for r in rs if r.row.batch == batch]
            return batch * len(times) / sum(times)

        measured = throughput(hi_batch, lambda r: r.row.measured_ms) / throughput(lo_batch, lambda r: r.row.measured_ms)
        emulated = throughput(hi_batch, lambda r: r.emulated_ms) / throughput(lo_batch, lambda r: r.emulated_ms)
        name = model if seq is None else f"{model} seq {seq}"
        if configurations[(model, seq)] > 1:
            options = [n for n, on in (("AIPP", aipp), ("small channel", small_channel)) if on]
            name += f" ({', '.join(options) or 'plain'})"
        scaling[name] = (measured, emulated)
        batches = sorted({r.row.batch for r in rs})
        if len(batches) >= 3:
            below = batches[-2]
            measured_step = throughput(below, lambda r: r.row.measured_ms) / throughput(
                hi_batch, lambda r: r.row.measured_ms)
            emulated_step = throughput(below, lambda r: r.emulated_ms) / throughput(hi_batch, lambda r: r.emulated_ms)
            last_step[name] = (measured_step, emulated_step)
    return Summary(sum(r.error for r in results) / len(results), ratios[len(ratios) // 2], worst,
                   sum(1 for r in results if 1 / 1.5 <= r.ratio <= 1.5), len(results), scaling, last_step,
                   _architectures(results), _contradictions(results))


def _contradictions(results: Sequence[Result]) -> list[tuple[str, str, float, float]]:
    """Pairs of one configuration's measurements where the smaller problem (no larger
    batch, no longer sequence) was measured slower than the larger: no model of the
    device can follow both. A point measured twice counts at its mean time."""
    times: dict[tuple[str, bool, str], dict[tuple[int, int], list[float]]] = {}
    for r in results:
        config = times.setdefault((r.row.model, r.row.small_channel, r.row.aipp), {})
        config.setdefault((r.row.batch, r.row.seq or 0), []).append(r.row.measured_ms)
    found = []
    for (model, _, _), points in times.items():
        mean = {point: sum(ms) / len(ms) for point, ms in points.items()}
        for (batch, seq), ms in mean.items():
            for (other_batch, other_seq), other_ms in mean.items():
                if (batch, seq) != (other_batch, other_seq) and batch <= other_batch and seq <= other_seq \
                        and ms > other_ms:
                    found.append((_point(model, batch, seq), _point(model, other_batch, other_seq), ms, other_ms))
    return found


def _point(model: str, batch: int, seq: int) -> str:
    return f"{model} batch {batch}" + (f" seq {seq}" if seq else "")


def _architectures(results: Sequence[Result]) -> dict[str, ArchitectureFigures]:
    """Each model file's rows, summed up."""
    by_model: dict[str, list[Result]] = {}
    for r in results:
        by_model.setdefault(r.row.model, []).append(r)
    figures = {}
    for model, rs in by_model.items():
        batches = [r.row.batch for r in rs]
        ratios = [r.ratio for r in rs]
        figures[model] = ArchitectureFigures(len(rs), (min(batches), max(batches)),
                                             sum(r.error for r in rs) / len(rs), (min(ratios), max(ratios)))
    return figures


def print_table(results: Sequence[Result], out: TextIO | None = None) -> Summary:
    """The per-row table and the summary lines, to ``out`` (standard output when None)."""
    out = out if out is not None else sys.stdout
    print(f"{'model':<28} {'batch':>5} {'seq':>4} {'measured ms':>12} {'emulated ms':>12} {'emu/meas':>9} "
          f"{'error':>7}", file=out)
    for r in results:
        seq = str(r.row.seq) if r.row.seq else "-"
        dup = "  (second measurement)" if r.row.duplicate and _is_second(r, results) else ""
        print(f"{r.row.model:<28} {r.row.batch:>5} {seq:>4} {r.row.measured_ms:>12.3f} {r.emulated_ms:>12.3f} "
              f"{r.ratio:>8.2f}x {100 * r.error:>6.1f}%{dup}", file=out)
    s = summarize(results)
    print("\nper architecture (rows, batches, MAPE, emulated / measured):", file=out)
    for model, a in s.architectures.items():
        lo, hi = a.ratios
        spread = f"{lo:.2f}x" if a.rows == 1 else f"{lo:.2f}-{hi:.2f}x"
        print(f"  {model:<38} {a.rows:>3}  {a.batches[0]:>3}-{a.batches[1]:<3}  {100 * a.mape:5.1f}%  {spread}",
              file=out)
    print(f"\nrows {s.rows}: MAPE {100 * s.mape:.1f}%, median emulated/measured {s.median_ratio:.2f}x, worst "
          f"{s.worst_ratio:.2f}x, {s.within_1_5x}/{s.rows} within 1.5x", file=out)
    print_batch_scaling(s.batch_scaling, "", out)
    print("time per image, largest measured batch over the next largest (measured vs emulated):", file=out)
    for model, (m, e) in s.last_step.items():
        print(f"  {model:<38} measured {m:6.2f}x  emulated {e:6.2f}x", file=out)
    if s.contradictions:
        print("measurements that contradict each other (a smaller problem measured slower; no emulator can "
              "follow both):", file=out)
        for small, large, ms, other_ms in s.contradictions:
            print(f"  {small} ({ms:.3f} ms) is slower than {large} ({other_ms:.3f} ms)", file=out)
    return s


def print_batch_scaling(scaling: dict[str, tuple[float, float]], condition: str, out: TextIO) -> None:
    """Each series' measured and emulated throughput from its smallest to its largest
    batch (``Summary.batch_scaling``), emulated ``condition``, and how many lie within 20%."""
    print(f"throughput, largest / smallest measured batch{condition} (measured vs emulated):", file=out)
    for model, (m, e) in scaling.items():
        print(f"  {model:<38} measured {m:6.2f}x  emulated {e:6.2f}x  ({100 * (e / m - 1):+.0f}%)", file=out)
    within = sum(1 for m, e in scaling.values() if abs(e / m - 1) <= 0.2)
    print(f"series within 20% of the measured scaling: {within}/{len(scaling)}", file=out)


def figures_json(results: Sequence[Result], header: dict[str, object]) -> dict[str, object]:
    """What :func:`print_table` prints, as one JSON-ready object: ``header`` (the
    device, strategy, data and overrides of the run), every row emulated and the
    summary, for a program to read or two runs to be compared."""
    rows = [{"model": r.row.model, "batch": r.row.batch, "seq": r.row.seq, "measured_ms": r.row.measured_ms,
             "emulated_ms": r.emulated_ms, "ratio": r.ratio, "error": r.error, "source": r.row.source,
             "second_measurement": r.row.duplicate and _is_second(r, results), "small_channel": r.row.small_channel,
             "aipp": os.path.basename(r.row.aipp) or None, "edits": list(r.row.edits)} for r in results]
    s = summarize(results)
    pairs = {name: {k: {"measured": m, "emulated": e} for k, (m, e) in figures.items()}
             for name, figures in (("batch_scaling", s.batch_scaling), ("last_step", s.last_step))}
    summary = {"rows": s.rows, "mape": s.mape, "median_ratio": s.median_ratio, "worst_ratio": s.worst_ratio,
               "within_1_5x": s.within_1_5x, **pairs,
               "architectures": {k: attrs.asdict(a) for k, a in s.architectures.items()},
               # the smaller problem of each pair was measured slower than the larger
               "contradictions": [{"smaller": a, "larger": b, "smaller_ms": ms, "larger_ms": other}
                                  for a, b, ms, other in s.contradictions]}
    return {**header, "rows": rows, "summary": summary}


def _is_second(r: Result, results: Sequence[Result]) -> bool:
    same = [x for x in results if (x.row.model, x.row.batch, x.row.seq) == (r.row.model, r.row.batch, r.row.seq)]
    return len(same) > 1 and same[0] is not r


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None, help="the calibration folder (measured-310p3.csv and models/)")
    p.add_argument("--more", action="store_true",
                   help=f"the rows of the architectures outside the calibration table ({MORE_DIR})")
    p.add_argument("--predicted", action="store_true",
                   help=f"the rows of the architectures no fit has seen ({PREDICTED_DIR})")
    p.add_argument("--device", default="310P3")
    p.add_argument("--strategy", default="ge", help="partition-streams strategy (GE's default: ge)")
    p.add_argument("--models", default="", help="comma-separated model names (default: every row)")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE",
                   help="override one number of the device profile (repeatable)")
    p.add_argument("--json", action="store_true",
                   help="print every row and the summary as one JSON object instead of the tables")
    args = p.parse_args(argv)
    if sum((args.more, args.predicted, args.data is not None)) > 1:
        p.error("--more, --predicted and --data each name a table; give one")
    data = find_data(MORE_DIR if args.more else PREDICTED_DIR if args.predicted else args.data, args.device)
    rows = load_rows(data, [m for m in args.models.split(",") if m], args.device)
    if not rows:
        p.error(f"no row of {os.path.join(data, table_name(args.device))} measures --models {args.models}")
    compiled = compile_rows(data, rows, args.device, args.strategy)
    results = evaluate(rows, compiled, args.device, args.device_param)
    if args.json:
        header = {"device": args.device, "strategy": args.strategy, "data": data, "device_params": args.device_param}
        print(json.dumps(figures_json(results, header), indent=1))
        return 0
    print(f"device {args.device}, strategy {args.strategy}, sink mode, one launch after a warm-up run, timed by "
          f"the host; data {data}\n")
    print_table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "fidelity"))
