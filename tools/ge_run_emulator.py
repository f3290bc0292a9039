"""``ge-run``'s report of a run on the Ascend runtime emulator (the default mode
of ``ge-run``): what it prints and the files it writes. The run itself is
:mod:`geir.backends.run_model`'s.

A module holding a ``ge.graph`` is lowered with ``lower-to-tasks`` first; a
module holding an ``rt.model`` runs as it is. Inputs come from ``--inputs``
(an ``.npz`` by binding name) or are deterministic random values (the seed is
printed on stderr, and they equal what ``ge-run --interpret`` draws); with
``--timing-only`` no inputs are needed and no numerics run.

Output: the report on stdout (``--report text``, or ``--report json``: exactly
one JSON object); the graph outputs to ``-o outputs.npz`` (in text mode without
``-o``, one summary line per output); ``--trace`` a Perfetto trace;
``--timeline`` a Gantt chart (matplotlib). ``--sweep PARAM=V1,V2,...`` prints
one row per value of a device parameter instead (:mod:`geir.tools.ge_run_sweep`).

When the run compiled the graph itself (:mod:`geir.backends.model_compile`), the
report also names the pipeline, gives the speed-up over the same pipeline with
``strategy=single`` (emulated timing-only), the graph's lower bound over any
stream plan (:mod:`geir.passes.scheduling.lower_bound`; the emulator's own
bound is of the program that ran) and the arena of ``reuse-memory``'s plan
against its lower bound; the JSON report has them as ``pipeline``,
``single_stream``, ``graph_lower_bound`` and ``memory_plan``.

Exit codes:

* 0 — the run finished and is clean;
* 1 — an error: bad input, bad option, a malformed task list, a failing kernel
  (a diagnostic on stderr);
* 3 — the run has findings: a data race, a deadlock, a read of bytes nothing
  wrote, or a lost event record. The report (and trace) are still written;
  stderr says what was found. Event records that no wait consumes are only
  reported, since they cost time but cannot give wrong results on their own.
"""

from __future__ import annotations

import argparse
import json
import sys

from geir.module import Module
from geir.report import RunReport

__all__ = ["write_run", "scenario_exit", "EXIT_FINDINGS"]

#: exit code of a run with races, a deadlock, uninitialised reads or lost records
EXIT_FINDINGS = 3


def write_run(report: RunReport, args: argparse.Namespace) -> int:
    """Print ``report`` as ``args`` say (``--report``), write the files they
    name (``-o``, ``--trace``, ``--timeline``, ``--memory-timeline``); the exit
    code (see the module doc)."""
    from geir.backends.io_bindings import save_outputs
    if report.random_seed is not None:
        sys.stderr.write(f"ge-run: random inputs, seed {report.random_seed}\n")
    result = report.result
    if result is not None:
        if args.trace is not None:
            report.trace(args.trace)
        if args.timeline is not None:
            result.draw_timeline(args.timeline)
        if getattr(args, "memory_timeline", None) is not None:
            from geir.backends.memory_timeline import draw_memory_timeline
            draw_memory_timeline(result, args.memory_timeline)
    if args.output is not None and report.outputs is not None:
        save_outputs(args.output, report.outputs)
    if args.report == "json":
        sys.stdout.write(report.to_json() + "\n")
    else:
        sys.stdout.write(report.format_text(outputs=args.output is None))
    sys.stdout.flush()
    found = report.findings
    if found:
        if args.output is not None and report.outputs is None and result is not None and "gear" not in report.fields:
            sys.stderr.write(f"ge-run: no outputs written to '{args.output}': the device stalled\n")
        sys.stderr.write(f"ge-run: the emulator found {', '.join(found)} (see the report); exit code "
                         f"{EXIT_FINDINGS}\n")
        return EXIT_FINDINGS
    return 0


def scenario_exit(module: Module, args: argparse.Namespace) -> int | None:
    """The exit code of a scenario run (:mod:`geir.tools.ge_run_scenarios`:
    ``--iterations``, ``--devices``) on ``module`` — a ge graph, which the
    scenario builds single- and multi-stream itself, or a task list — or None
    when no scenario flag was given or the scenarios are not installed."""
    try:
        from geir.tools.ge_run_scenarios import run_scenario
    except ImportError:
        return None
    return run_scenario(module, args)
