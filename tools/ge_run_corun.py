"""``ge-run a.onnx b.mlir ...``: several models at once on one emulated device,
each compiled as ``ge-run model`` compiles it (import, the pipeline, lowering)
and run together by :func:`geir.backends.scenarios.co_run.co_run`, each on
streams of its own at the priority ``--priority`` gives it::

  ge-run detector.onnx classifier.onnx --priority 0,5
  ge-run a.onnx b.onnx --priority 0 --priority 5 --report json

Priorities follow ACL's convention: smaller is more urgent; 0 each by default;
one per model, in command-line order. ``--input-shape`` binds, in each model,
the inputs and symbolic dims it names that the model has (``batch=4`` sizes
every model with a ``batch`` dim) and picks a gear module's gear. The report:
each model's latency under load beside its solo latency, and the device's
throughput (models completed per second).

This module is light (no numpy at import): ``ge-run`` adds ``--priority`` when
it builds its argument parser.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from geir.diagnostics import error as _error

__all__ = ["add_priority_argument", "parse_priorities", "model_names", "run_several"]


def add_priority_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--priority`` (repeatable; comma-separated lists allowed)."""
    p.add_argument("--priority", action="append", default=[], metavar="P[,P...]",
                   help="priority of each model when several run at once, in command-line order (smaller is more "
                        "urgent, as in ACL; default 0 each); repeatable or comma-separated")




#: ACL's stream priorities: 0 (most urgent) to 7
PRIORITY_RANGE = (0, 7)


def parse_priorities(texts: list[str], count: int) -> list[int]:
    """The priority of each of ``count`` models from the ``--priority`` values
    (``["0", "5"]`` or ``["0,5"]``); 0 each when none is given. DiagnosticError
    for a value that is not an integer in ACL's range 0..7 or a count that
    differs from ``count``."""
    if not texts:
        return [0] * count
    out: list[int] = []
    for text in texts:
        for item in text.split(","):
            item = item.strip()
            try:
                out.append(int(item))
            except ValueError:
                raise _error(f"--priority expects integers, got '{item or text}'",
                             "e.g. --priority 0,5 or --priority 0 --priority 5") from None
            lo, hi = PRIORITY_RANGE
            if not lo <= out[-1] <= hi:
                raise _error(f"--priority {out[-1]} is out of range: ACL's stream priorities are {lo} (most "
                             f"urgent) to {hi}")
    if len(out) != count:
        raise _error(f"--priority gives {len(out)} priorit{'y' if len(out) == 1 else 'ies'} for {count} "
                     f"model{'' if count == 1 else 's'}", "give one per model, in command-line order")
    return out


def model_names(paths: list[str]) -> list[str]:
    """A short distinct name per model: the file's stem (``a.onnx`` -> ``a``),
    ``#2``, ``#3`` ... after a repeated one."""
    names: list[str] = []
    for path in paths:
        stem = "stdin" if path == "-" else os.path.splitext(os.path.basename(path))[0] or path
        name, k = stem, 1
        while name in names:
            k += 1
            name = f"{stem}#{k}"
        names.append(name)
    return names


#: options of a single run that several models at once do not take, and why
_SINGLE_ONLY = {
    "interpret": "--interpret runs one graph op by op",
    "inputs": "--inputs binds one graph's inputs (several models run timing-only)",
    "output": "-o writes one graph's outputs (several models run timing-only)",
    "sweep": "--sweep varies one model's device",
    "trace": "--trace is written for one model's run",
    "timeline": "--timeline is drawn for one model's run",
    "memory_timeline": "--memory-timeline is drawn for one model's run",
    "warm_l2": "--warm-l2 is one model's run after its own warm-up",
    "host_timed": "--host-timed times one model's synchronous execution",
}


def run_several(args: argparse.Namespace) -> int:
    """Compile each input, run them together with ``co_run`` and print its
    table (or, with ``--report json``, one JSON object); the exit code."""
    from geir.diagnostics import DiagnosticError
    from geir.backends.model_compile import load_model, pass_device, resolve_device
    from geir.backends.run_model import binding_names, static_task_list
    from geir.backends.shape_gears import gear_label, gear_ops
    from geir.tools.ge_run import settings_of
    paths = list(args.input)
    if len(paths) < 2:
        raise _error("--priority applies when several models run at once; give two or more inputs")
    if paths.count("-") > 1:
        raise _error("standard input ('-') can be only one of the models")
    for field, why in _SINGLE_ONLY.items():
        value = getattr(args, field, None)
        if value:
            flag = "-o" if field == "output" else "--" + field.replace("_", "-")
            raise _error(f"{flag} cannot apply to several models at once: {why}")
    for flag, field in (("--devices", "devices"), ("--compare-overlap", "compare_overlap")):
        if getattr(args, field, None) is not None:
            raise _error(f"{flag} cannot apply to several models at once: scenario 3 runs one training step")
    priorities = parse_priorities(list(args.priority), len(paths))
    iterations = _count("--iterations", getattr(args, "iterations", None), 1)
    buffers = _count("--buffers", getattr(args, "buffers", None), 2)
    device, profile = resolve_device(args.device, list(args.device_param))
    args.device = device
    settings = settings_of(args)
    task_lists = []
    with pass_device(device, profile, list(args.device_param)) as for_passes:
        loaded: list[tuple[Any, str, str | None]] = []
        for path in paths:
            try:
                loaded.append(load_model(path, args.allow_unregistered_dialect))
            except DiagnosticError as e:
                return _report(e, path, None)
        # each model binds the names it has; a name none has is a mistake
        unused = set(_binding_keys(args)).difference(*(binding_names(m) for m, _, _ in loaded))
        if unused:
            raise _error(f"--input-shape: '{sorted(unused)[0]}' is neither an input nor a symbolic dim of any of "
                         f"the models")
        gears = []  # the gear each gear module runs, named as ge-bench names it
        for module, name, text in loaded:
            try:
                warnings: list[Any] = []
                task_lists.append(static_task_list(module, settings, name, for_passes, warnings))
                kept = gear_ops(module)
                gears.append(f"[{gear_label(kept[0])}]" if kept else "")
                for d in warnings:
                    sys.stderr.write(d.format())
            except DiagnosticError as e:
                return _report(e, name, text)
    try:
        from geir.backends.scenarios.co_run import co_run
    except ImportError:
        raise _error("running several models at once needs geir.backends.scenarios.co_run, which this "
                     "installation lacks") from None
    names = [n + g for n, g in zip(model_names(paths), gears)]
    result = co_run(task_lists, names, priorities, profile, args.mode, iterations=iterations,
                    buffers=buffers)
    if args.report == "json":
        sys.stdout.write(json.dumps({**result.as_dict(), "inputs": paths}, indent=1) + "\n")
    else:
        sys.stdout.write(result.text())
        if not result.text().endswith("\n"):
            sys.stdout.write("\n")
    from geir.report import findings
    found = findings(result.report)
    if found:
        from geir.tools.ge_run_emulator import EXIT_FINDINGS
        sys.stderr.write(f"ge-run: the emulator found {', '.join(found)} (see the report); exit code "
                         f"{EXIT_FINDINGS}\n")
        return EXIT_FINDINGS
    return 0


def _report(e: Any, name: str, text: str | None) -> int:
    """Print a model's diagnostics (with its source text, when it has one); exit code 1."""
    from geir.diagnostics import SourceFile, SourceManager
    sources = SourceManager()
    if text is not None:
        sources.add(SourceFile(name, text))
    sys.stderr.write(e.format(sources, "ge-run"))
    return 1


def _binding_keys(args: argparse.Namespace) -> list[str]:
    """The names ``--input-shape`` binds (each model takes those it has)."""
    from geir.passes.specialize_shapes import parse_shape_bindings
    return list(parse_shape_bindings(list(getattr(args, "input_shape", None) or [])))


def _count(flag: str, text: Any, default: int) -> int:
    """``text`` (a scenario option, given as text) as a whole number of at least 1."""
    if text is None:
        return default
    try:
        value = int(str(text), 10)
    except ValueError:
        value = 0
    if value < 1:
        raise _error(f"{flag} must be a whole number at least 1, got '{text}'")
    return value
