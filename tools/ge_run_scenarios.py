"""``ge-run``'s scenario options: workloads over a model.

  ge-run video.mlir --iterations 16 --device 310P3   # N frames back to back
  ge-run train.mlir --devices 8                      # a data-parallel step on 8 NPUs
  ge-run train.mlir --devices 4 --report json

``--iterations N`` runs N frames through the model on the same streams
(double-buffered arena regions, ``--buffers B`` to change, events between
iterations) and prints frames per second and per-engine utilisation for a
single-stream build and the multi-stream builds (the cost strategy and GE's
engine streams; ``--pipeline`` replaces the multi-stream builds), and how many
frames' decode overlapped the previous frame's inference.
``--devices N`` (1..8) sets ``rank_size = N`` on every collective and prints
the training step's time with overlap (multi-stream) and without
(single-stream). ``--no-compare-overlap`` skips the single-stream baseline;
an ``rt`` task list (already lowered) has none. Several models at once are
``ge-run``'s own (``co_run`` in :mod:`geir.backends.scenarios.co_run`);
:func:`main` here also takes several inputs with ``--priority`` per model, for
testing. What each scenario does is :mod:`geir.backends.scenarios.runs`'s;
this module reads the options and prints.

Every figure is the emulator's (timing only; the race checker runs on the
multi-stream builds). Exit codes as ``ge-run``: 0, 1 bad input (a
diagnostic), 3 a race or deadlock found.

This module is light at import: ``ge-run`` adds its options when it builds its
parser.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from geir.diagnostics import error as _error

__all__ = ["add_scenario_arguments", "run_scenario", "main", "scenario_requested"]

def add_scenario_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--iterations``, ``--buffers``, ``--devices`` and
    ``--compare-overlap`` to ``parser`` (once: a second call does nothing)."""
    if "--iterations" in parser._option_string_actions:  # noqa: SLF001 - argparse has no public query
        return
    group = parser.add_argument_group("scenarios")
    group.add_argument("--iterations", default=None, metavar="N",
                       help="run N frames back to back (double-buffered arena, events between "
                            "frames); report frames/s and utilisation, single- vs multi-stream")
    group.add_argument("--buffers", default=None, metavar="B",
                       help="arena regions the frames of --iterations rotate through (default 2)")
    group.add_argument("--devices", default=None, metavar="N",
                       help="a data-parallel step on N devices (1..8): rank_size N on every "
                            "collective; step time with and without overlap")
    group.add_argument("--compare-overlap", action=argparse.BooleanOptionalAction, default=None,
                       help="also build the graph single-stream and compare (default: when the input is a "
                            "ge graph)")


def scenario_requested(args: argparse.Namespace) -> bool:
    """Whether ``args`` asks for a scenario (``--iterations`` or ``--devices``)."""
    return getattr(args, "iterations", None) is not None or getattr(args, "devices", None) is not None




def _whole(flag: str, text: Any, lo: int, hi: int | None = None) -> int:
    """``text`` as a whole number in ``lo..hi`` or a diagnostic naming ``flag``."""
    try:
        value = int(str(text), 10)
    except ValueError:
        value = None
    if value is None or value < lo or (hi is not None and value > hi):
        want = f"from {lo} to {hi}" if hi is not None else f"of at least {lo}"
        raise _error(f"{flag} must be a whole number {want}, got '{text}'")
    return value


def run_scenario(module_or_task_list: Any, args: argparse.Namespace) -> int | None:
    """Run the scenario ``args`` asks for on ``module_or_task_list`` (a ``ge``
    module, which is built as the scenario needs, a module holding an
    ``rt.model``, or a TaskList), print its report (``args.report``: text or
    json) and return the exit code; None when no scenario flag was given.

    Raises:
        DiagnosticError: a bad option value or combination, or a model the
            scenario cannot run (e.g. ``--devices`` on a graph without collectives).
    """
    iterations = getattr(args, "iterations", None)
    devices = getattr(args, "devices", None)
    buffers = getattr(args, "buffers", None)
    compare = getattr(args, "compare_overlap", None)
    if iterations is None and devices is None:
        if buffers is not None:
            raise _error("--buffers applies to --iterations, which is not given")
        if compare is not None:
            raise _error("--compare-overlap applies to --iterations or --devices, neither of which is given")
        return None
    if iterations is not None and devices is not None:
        raise _error("--iterations (scenario 1, frames) and --devices (scenario 3, a training step) are separate "
                     "scenarios; give one")
    if getattr(args, "warm_l2", False):
        raise _error("--warm-l2 cannot apply to a scenario: it emulates one run after a warm-up, and a scenario's "
                     "frames or steps follow one another")
    if getattr(args, "host_timed", False):
        raise _error("--host-timed cannot apply to a scenario: it times one synchronous model execution, and a "
                     "scenario's frames or steps follow one another")
    if buffers is not None and iterations is None:
        raise _error("--buffers applies to --iterations, which is not given")
    from geir.backends.scenarios.runs import run_data_parallel, run_iterations, source_kind
    kind = source_kind(module_or_task_list)
    if compare and kind != "graph":
        raise _error("--compare-overlap needs a ge graph to build single-stream; the input is a lowered task list "
                     "or a graph already scheduled (it has events)")
    build = {"pipeline": getattr(args, "pipeline", None), "streams": getattr(args, "streams", None)}
    if iterations is not None:
        n = _whole("--iterations", iterations, 1)
        b = _whole("--buffers", buffers, 1) if buffers is not None else 2
        return _finish(run_iterations(module_or_task_list, n, b, compare, **_options(args), **build), args)
    return _finish(run_data_parallel(module_or_task_list, _whole("--devices", devices, 1, 8), compare,
                                     **_options(args), **build), args)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"device": getattr(args, "device", "910B2"), "mode": getattr(args, "mode", "sink"),
            "device_params": tuple(getattr(args, "device_param", None) or ())}


def _finish(report: Any, args: argparse.Namespace) -> int:
    """Print a :class:`~geir.backends.scenarios.runs.ScenarioReport`; the exit code."""
    sys.stdout.write(report.to_json() + "\n" if getattr(args, "report", "text") == "json" else report.text)
    sys.stdout.flush()
    found = report.findings
    if found:
        sys.stderr.write(f"ge-run: the emulator found {', '.join(found)} (see the report); exit code 3\n")
        return 3
    return 0


def _co_run(modules: list[Any], names: list[str], args: argparse.Namespace) -> int:
    from geir.backends.scenarios.runs import co_run_modules
    priorities = [_whole("--priority", p, 0, 7) for p in args.priority] if args.priority else [0] * len(modules)
    n = _whole("--iterations", args.iterations, 1) if args.iterations is not None else 1
    return _finish(co_run_modules(modules, names, priorities, n, **_options(args)), args)


def _parser() -> argparse.ArgumentParser:
    from geir.tools.driver import refuse_repeated_options
    p = argparse.ArgumentParser(prog="ge-run-scenarios", description="Run the scenarios on the emulator.")
    refuse_repeated_options(p)
    p.add_argument("inputs", nargs="+", help="IR files: ge graphs or rt task lists; several run together (co-run)")
    p.add_argument("--device", default="910B2", help="device profile name or JSON file")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--mode", choices=("sink", "host"), default="sink")
    p.add_argument("--report", choices=("text", "json"), default="text")
    p.add_argument("--pipeline", default=None, help="the multi-stream build's pass pipeline")
    p.add_argument("--priority", action="append", default=[], metavar="P",
                   help="several inputs: each model's stream priority (0 highest), in input order")
    add_scenario_arguments(p)
    from geir.tools.driver import add_debug_argument
    add_debug_argument(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m geir.tools.ge_run_scenarios FILE... [scenario options]``."""
    args = _parser().parse_args(argv)
    from geir.tools.driver import run_guarded
    return run_guarded(lambda: _main(args), "ge-run", args.debug)


def _main(args: argparse.Namespace) -> int:
    import os

    from geir.diagnostics import DiagnosticError, SourceFile, SourceManager
    from geir.parser import parse_module
    from geir.tools.driver import read_input
    from geir.verifier import verify
    sources = SourceManager()
    try:
        modules, names = [], []
        for path in args.inputs:
            name, text = read_input(path)
            sources.add(SourceFile(name, text))
            module = parse_module(text, name)
            verify(module)
            modules.append(module)
            names.append(os.path.splitext(os.path.basename(path))[0])
        if len(modules) > 1:
            if args.devices is not None:
                raise _error("--devices runs one training step; give one input")
            return _co_run(modules, names, args)
        if args.priority:
            raise _error("--priority applies to several inputs run together")
        code = run_scenario(modules[0], args)
        if code is None:
            raise _error("no scenario asked for: give --iterations N or --devices N (or several inputs)")
        return code
    except DiagnosticError as e:
        sys.stderr.write(e.format(sources, "ge-run"))
        return 1


if __name__ == "__main__":
    sys.exit(main())
