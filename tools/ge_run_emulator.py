"""``ge-run`` on the Ascend runtime emulator (the default mode of ``ge-run``).

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

When ge-run compiled the graph itself (:mod:`geir.tools.ge_run_compile`), the
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
from typing import Any

import numpy as np

from geir.module import Module
from geir.report import findings as _findings, output_summary as _summary  # ge-run and the API agree

__all__ = ["run_emulator", "task_list_of", "scenario_exit", "EXIT_FINDINGS"]

#: exit code of a run with races, a deadlock, uninitialised reads or lost records
EXIT_FINDINGS = 3


def task_list_of(module: Module, args: argparse.Namespace) -> Any:
    """The task list of ``module``: its ``rt.model`` (``@main`` if several), or
    its graph lowered with ``lower-to-tasks``."""
    from geir.backends.rt_module import task_list_from_module
    has_model = any(op.name == "rt.model" for op in module.body.ops)
    if not has_model and any(True for _ in module.graphs()):
        from geir.passes.lower_to_tasks import LowerToTasks
        from geir.passes.pass_manager import PassManager
        PassManager([LowerToTasks()], allow_unregistered=args.allow_unregistered_dialect).run(module)
    names = [op.get_attr("sym_name") for op in module.body.ops if op.name == "rt.model"]
    return task_list_from_module(module, "main" if "main" in names else None)


def _inputs(task_list: Any, args: argparse.Namespace) -> dict[str, np.ndarray] | None:
    if args.timing_only:
        return None
    from geir.backends.emulator import random_task_inputs, task_list_signature
    from geir.backends.io_bindings import load_inputs
    if args.inputs is not None:
        return load_inputs(args.inputs, task_list_signature(task_list))
    inputs = random_task_inputs(task_list, args.seed)
    if inputs:
        sys.stderr.write(f"ge-run: random inputs, seed {args.seed}\n")
    return inputs


def run_emulator(module: Module, args: argparse.Namespace, compiled: Any = None) -> int:
    """Emulate ``module`` as ``args`` say; the exit code (see the module doc).
    ``compiled`` (a :class:`~geir.tools.ge_run_compile.CompileReport`) is what
    ge-run's own pipeline said, for the report."""
    from geir.backends.emulator import EmulatorOptions, emulate
    from geir.backends.io_bindings import save_outputs
    from geir.tools.driver import write_output

    task_list = task_list_of(module, args)
    if getattr(args, "sweep", None):
        from geir.tools.ge_run_sweep import run_sweep
        return run_sweep(task_list, args)
    options = EmulatorOptions(device=args.device, device_params=list(args.device_param), mode=args.mode,
                              timing_only=args.timing_only, seed=args.seed)
    inputs = _inputs(task_list, args)
    result = emulate(task_list, inputs, options)
    report = result.report
    if result.outputs is not None:
        report["outputs"] = _summary(result.outputs)
    report["inputs"] = ("none (timing only)" if args.timing_only
                        else args.inputs if args.inputs is not None else f"random, seed {args.seed}")
    text = result.text()
    if compiled is not None:
        text = _add_compile_report(report, text, compiled, args)

    if args.trace is not None:
        from geir.backends.emulator.trace import trace_events
        write_output(args.trace, json.dumps(trace_events(result.schedule), separators=(",", ":")))
    if args.timeline is not None:
        result.draw_timeline(args.timeline)
    if getattr(args, "memory_timeline", None) is not None:
        from geir.backends.memory_timeline import draw_memory_timeline
        draw_memory_timeline(result, args.memory_timeline)
    if args.output is not None and result.outputs is not None:
        save_outputs(args.output, result.outputs)

    if args.report == "json":
        sys.stdout.write(json.dumps(report, indent=1, sort_keys=False) + "\n")
    else:
        sys.stdout.write(text)
        if result.outputs is not None and args.output is None:
            for name, s in report["outputs"].items():
                mean = f" mean={s['mean']:.6g}" if s["mean"] is not None else ""
                sys.stdout.write(f"{name}: {s['dtype']}{s['shape']}{mean}\n")
    sys.stdout.flush()

    found = _findings(report)
    if found:
        if args.output is not None and result.outputs is None:
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


def _add_compile_report(report: dict[str, Any], text: str, compiled: Any, args: argparse.Namespace) -> str:
    """Add the pipeline, the speed-up over single stream and the memory plan
    against its lower bound to ``report`` and to its ``text``."""
    from geir.backends.emulator import EmulatorOptions, emulate
    from geir.backends.emulator.report import _bytes
    lines = text.splitlines(keepends=True)
    report["pipeline"] = compiled.pipeline
    lines.insert(0, f"pipeline        {compiled.pipeline}\n")
    after: dict[str, list[str]] = {}
    makespan = float(report["makespan_us"])
    if compiled.single_task_list is not None:
        # Timing only, no race check: the figure compared is the makespan.
        options = EmulatorOptions(device=args.device, device_params=list(args.device_param), mode=args.mode,
                                  timing_only=True, check_races=False, progress=False, seed=args.seed)
        single = float(emulate(compiled.single_task_list, None, options).report["makespan_us"])
        speedup = single / makespan if makespan > 0 else None
        report["single_stream"] = {"makespan_us": single, "speedup": round(speedup, 4) if speedup else None}
        shown = f"{speedup:.2f}x" if speedup is not None else "n/a"
        after["makespan / LB"] = [f"speed-up over single stream  {shown} (single {single:.1f} us)\n"]
    else:
        report["single_stream"] = None
    bound = getattr(compiled, "bound", None)
    report["graph_lower_bound"] = bound
    if bound is not None and bound["bound_us"] > 0:
        # the emulator's bound is of the program that ran; this one holds for any plan
        after.setdefault("makespan / LB", []).append(
            f"graph bound             {bound['bound_us']:.3f} us  ({bound['bound_by']}; any plan on "
            f"{bound['streams']} streams): makespan {makespan / bound['bound_us']:.3f}x it\n")
    memory = compiled.memory
    if memory is not None:
        arena, bound = memory["arena_bytes"], memory["lower_bound"]
        ratio = arena / bound if bound else None
        report["memory_plan"] = {"algorithm": memory["algorithm"], "arena_bytes": arena, "lower_bound_bytes": bound,
                                 "lower_bound_exact": memory["lower_bound_exact"],
                                 "over_lower_bound": round(ratio, 4) if ratio is not None else None,
                                 "single_stream_bytes": memory["single_stream"], "no_reuse_bytes": memory["no_reuse"],
                                 "zero_copy_bytes": memory["zero_copy"], "events_added": memory["events_added"]}
        exact = "exact" if memory["lower_bound_exact"] else "block-order peak"
        after["arena"] = [f"memory plan     {_bytes(arena)} without I/O; lower bound {_bytes(bound)}, {exact}: "
                          f"{f'{ratio:.3f}x' if ratio is not None else 'n/a'} ({memory['algorithm']}; single-stream "
                          f"plan {memory['single_stream']} B, no reuse {memory['no_reuse']} B)\n"]
    else:
        report["memory_plan"] = None
        after["arena"] = ["memory plan     none: the pipeline has no reuse-memory (fresh buffers, no lower bound)\n"]
    out: list[str] = []
    for line in lines:
        out.append(line)
        for key in list(after):
            if line.startswith(key):
                out += after.pop(key)
    for rest in after.values():  # a line the text did not have: at the end
        out += rest
    return "".join(out)
