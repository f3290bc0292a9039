"""``ge-run``: run a model — with the reference interpreter (``--interpret``) or
on the Ascend runtime emulator (the default; a ``ge`` module is compiled to a
task list first).

  ge-run model.onnx                              # import, ge-default pipeline, emulate, report
  ge-run model.onnx --device 310p3 --streams 2 --pipeline 'ge-default{strategy=ge}'
  ge-run a.onnx b.mlir --priority 0,5            # several models at once on one device
  ge-run model.mlir --interpret --inputs in.npz -o out.npz
  ge-run tasks.mlir --device 910B2 --mode sink --report json --trace trace.json
  ge-run dynamic.mlir --inputs in.npz            # '?' dims take the arrays' sizes
  ge-run dynamic.mlir --input-shape batch=4      # random inputs of a bound shape
  ge-run gears.mlir --inputs in.npz              # picks the smallest gear that fits

An ``.onnx`` file is imported; a ``ge`` graph that nothing has scheduled yet
(no op on a stream, no events) is compiled with the ``ge-default`` pipeline, or
``--pipeline TEXT``, given the device (``--device``) and ``--streams N``; the
report then adds the speed-up over the same pipeline on a single stream
(``--no-compare`` skips that run) and the memory plan against its lower bound
(:mod:`geir.tools.ge_run_compile`). A scheduled graph runs as written. Several
inputs run together on one device (:mod:`geir.tools.ge_run_corun`).

A ``ge`` graph with dynamic dims (``?``) is specialised before it runs: with
``--inputs``, each dynamic dim takes its array's size (one symbolic dim, one
size across all inputs); ``--input-shape`` binds dims by input or symbol name.
A module of gears (``ge-translate --dynamic-batch-size`` ...) runs the smallest
gear that fits the inputs, padding them, and the report names the gear. A graph
with ``ge.if`` / ``ge.loop`` / ``ge.scan`` or a data-dependent size (NonZero ...)
runs on the emulator as host-driven launches (GE's runtime v2,
:mod:`geir.backends.host_control`).

Exit codes: 0 clean; 1 bad input (a diagnostic); 3 the emulator found a race, a
deadlock, a read of bytes nothing wrote, or a lost event record (reported, with
the report and trace still written).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ge-run", description="Run a model (ONNX, or geir IR) on the Ascend emulator "
                                                             "or the reference interpreter.",
                                epilog="exit codes: 0 clean, 1 bad input, 3 race/deadlock/uninitialised read found")
    p.add_argument("input", nargs="*", default=["-"],
                   help="an .onnx model or an IR file ('-' for stdin): ge or rt dialect; several run at once on "
                        "one device")
    p.add_argument("--interpret", action="store_true", help="run op by op with the reference interpreter")
    p.add_argument("--inputs", default=None, help=".npz of graph inputs by name (default: random, fixed seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                   help="bind a dynamic dim before running: an input (x=1x3x8x8) or a symbol (batch=4); repeatable")
    p.add_argument("-o", dest="output", default=None, help="write the outputs to this .npz")
    p.add_argument("--device", default="910B2",
                   help="device profile: a name (910B2, 310P3, ...; case-insensitive) or a JSON file")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE",
                   help="override one number of the device profile (repeatable)")
    p.add_argument("--mode", choices=("sink", "host"), default="sink",
                   help="sink: runtime v1 task sink; host: runtime v2 host scheduling")
    p.add_argument("--timing-only", action="store_true", help="simulate time only, no numerics")
    p.add_argument("--report", choices=("text", "json"), default="text")
    p.add_argument("--trace", default=None, help="write a Chrome/Perfetto trace JSON here")
    p.add_argument("--timeline", default=None, help="draw a Gantt chart PNG here (needs matplotlib)")
    p.add_argument("--memory-timeline", default=None, metavar="PNG",
                   help="draw the arena over time here: a rectangle per tensor, coloured by stream (needs matplotlib)")
    p.add_argument("--allow-unregistered-dialect", action="store_true")
    from geir.tools.ge_run_compile import add_compile_arguments
    add_compile_arguments(p)
    from geir.tools.ge_run_corun import add_priority_argument
    add_priority_argument(p)
    from geir.tools.ge_run_sweep import add_sweep_argument
    add_sweep_argument(p)
    try:  # the scenarios (--iterations, --devices, --overlap), when installed
        from geir.tools.ge_run_scenarios import add_scenario_arguments
    except ImportError:
        pass
    else:
        add_scenario_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    from geir.tools.driver import run_guarded
    return run_guarded(lambda: _run(args), "ge-run")


def _run(args: argparse.Namespace) -> int:
    from geir.diagnostics import DiagnosticError, SourceFile, SourceManager
    from geir.tools.ge_run_compile import load_model, resolve_device
    if len(args.input) > 1 or args.priority:
        from geir.tools.ge_run_corun import run_several
        return run_several(args)
    args.device = resolve_device(args.device, list(args.device_param))[0]  # the name the passes take too
    name, text = args.input[0], None
    try:
        module, name, text = load_model(args.input[0], args.allow_unregistered_dialect)
        return _run_module(args, module)
    except DiagnosticError as e:
        sources = SourceManager()
        if text is not None:
            sources.add(SourceFile(name, text))
        sys.stderr.write(e.format(sources))  # with the source line and caret of each op at fault
        return 1


def _run_module(args: argparse.Namespace, module) -> int:  # type: ignore[no-untyped-def]
    from geir.backends.shape_gears import has_gears
    if has_gears(module):
        _no_pipeline(args, "a gear module holds task lists")
        return _run_gears(module, args)
    inputs = _specialize(module, args)
    if args.interpret:
        _no_pipeline(args, "--interpret runs the graph op by op as written")
        return _interpret(module, args, inputs)
    from geir.tools.ge_run_compile import needs_host
    if needs_host(module):
        _no_pipeline(args, "a graph with control flow or data-dependent sizes runs as host-driven launches")
        return _run_host_driven(module, args, inputs)
    from geir.tools.ge_run_emulator import run_emulator, scenario_exit
    code = scenario_exit(module, args)  # --iterations / --devices: the scenario builds the graph as it needs
    if code is not None:
        return code
    return run_emulator(module, args, _compile(module, args))


def _no_pipeline(args: argparse.Namespace, why: str) -> None:
    """--pipeline and --streams are an error where no pipeline runs."""
    given = [f for f, v in (("--pipeline", args.pipeline), ("--streams", args.streams)) if v is not None]
    if given:
        from geir.diagnostics import Diagnostic, DiagnosticError
        raise DiagnosticError(Diagnostic("error", f"{' and '.join(given)} cannot apply: {why}"))


def _compile(module, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Run ge-run's pipeline on a graph not yet scheduled (or on any graph,
    with --pipeline); the CompileReport for the report, None if none ran."""
    from geir.diagnostics import Diagnostic, DiagnosticError
    from geir.tools.ge_run_compile import (CompileReport, compile_module, needs_pipeline, pass_device, plan_pipeline,
                                           resolve_device)
    from geir.tools.ge_run_emulator import task_list_of
    if not needs_pipeline(module):
        if any(op.name == "rt.model" for op in module.body.ops):
            _no_pipeline(args, "the module holds a task list (rt.model), already lowered")
            return None
        if args.pipeline is None:
            if args.streams is not None:
                raise DiagnosticError(Diagnostic(
                    "error", "--streams cannot apply: the graph is already scheduled (its ops carry streams or "
                             "events); give --pipeline too to schedule it again"))
            return None
    profile = resolve_device(args.device, list(args.device_param))[1]
    with pass_device(args.device, profile, list(args.device_param)) as device:
        plan = plan_pipeline(args.pipeline, args.streams, device, args.device, list(args.device_param), args.mode)
        single = None
        if args.compare and plan.single is not None and not getattr(args, "sweep", None):
            compiled = compile_module(module, plan.single, args.allow_unregistered_dialect, copy_first=True)
            single = task_list_of(compiled.module, args)
        compiled = compile_module(module, plan.passes, args.allow_unregistered_dialect, device=device)
    for d in compiled.warnings:
        sys.stderr.write(d.format())
    return CompileReport(plan.text, compiled.memory, single, compiled.bound)


def _specialize(module, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Bind the dynamic dims of ``@main`` (from --input-shape, then from the
    --inputs arrays) and specialise it; the loaded inputs, or None."""
    if not any(op.name == "ge.graph" for op in module.body.ops):
        return None  # a task list: static by construction
    from geir.backends.io_bindings import find_graph, graph_signature, load_inputs
    from geir.passes.specialize_shapes import (bindings_from_inputs, parse_shape_bindings, resolve_bindings,
                                               specialize_graph)
    graph_name = _graph_name(module)
    graph = find_graph(module, graph_name)
    if args.input_shape:
        bindings = parse_shape_bindings(args.input_shape)
        specialize_graph(graph, module, resolve_bindings(graph, bindings, "--input-shape"))
    inputs = None
    if args.inputs is not None:
        inputs = load_inputs(args.inputs, graph_signature(module, graph_name))
        shapes = resolve_bindings(graph, bindings_from_inputs(graph, inputs, args.inputs), args.inputs)
        if shapes:
            specialize_graph(graph, module, shapes)
    if not args.interpret:
        from geir.diagnostics import DiagnosticError
        from geir.passes.range_shapes import unbound_input_diagnostics
        problems = unbound_input_diagnostics(graph)
        if problems:  # said at the input, before lower-to-tasks reports every op it reaches
            raise DiagnosticError(problems)
    return inputs


def _graph_name(module) -> str:  # type: ignore[no-untyped-def]
    """The graph ge-run runs: ``@main``, or the module's only graph."""
    names = [op.get_attr("sym_name") for op in module.body.ops if op.name == "ge.graph"]
    return names[0] if len(names) == 1 and "main" not in names else "main"


def _interpret(module, args: argparse.Namespace, inputs=None) -> int:  # type: ignore[no-untyped-def]
    from geir.backends.interpreter import interpret
    from geir.backends.io_bindings import graph_signature, random_inputs, save_outputs
    sig = graph_signature(module)
    if inputs is None and args.inputs is None:
        inputs = random_inputs(sig, args.seed)
        sys.stderr.write(f"ge-run: random inputs, seed {args.seed}\n")
    outputs = interpret(module, inputs)
    if args.output is not None:
        save_outputs(args.output, outputs)
    else:
        for k, v in outputs.items():
            sys.stdout.write(f"{k}: {v.dtype}{list(v.shape)} mean={float(v.astype('float64').mean()) if v.size else 0.0:.6g}\n")
    return 0


def _run_gears(module, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """Emulate the smallest gear that fits --inputs; outputs trimmed back to the
    real sizes; the report's "gear" says which ran."""
    import json
    from geir.diagnostics import Diagnostic, DiagnosticError
    if args.interpret or args.inputs is None or args.input_shape:
        why = ("--interpret runs ge graphs, and a gear module holds task lists" if args.interpret else
               "a gear is picked from the shapes of --inputs; --input-shape does not apply" if args.input_shape
               else "a gear module picks its gear from the shapes of --inputs; give them")
        raise DiagnosticError(Diagnostic("error", why))
    from geir.backends.emulator import EmulatorOptions, emulate
    from geir.backends.io_bindings import load_inputs, save_outputs
    from geir.backends.rt_module import task_list_from_model
    from geir.backends.shape_gears import gear_description, gear_signature, select_gear, trim_outputs
    from geir.tools.ge_run_emulator import EXIT_FINDINGS, _findings, _summary
    arrays = load_inputs(args.inputs, gear_signature(module))
    selection = select_gear(module, arrays, args.inputs)
    options = EmulatorOptions(device=args.device, device_params=list(args.device_param), mode=args.mode,
                              timing_only=args.timing_only, seed=args.seed)
    result = emulate(task_list_from_model(selection.model), selection.inputs, options)
    report = result.report
    report["gear"] = gear_description(selection)
    outputs = trim_outputs(selection, result.outputs) if result.outputs is not None else None
    if outputs is not None:
        report["outputs"] = _summary(outputs)
    report["inputs"] = args.inputs
    if args.trace is not None:
        from geir.backends.emulator.trace import trace_events
        from geir.tools.driver import write_output
        write_output(args.trace, json.dumps(trace_events(result.schedule), separators=(",", ":")))
    if args.timeline is not None:
        result.draw_timeline(args.timeline)
    if args.memory_timeline is not None:
        from geir.backends.memory_timeline import draw_memory_timeline
        draw_memory_timeline(result, args.memory_timeline)
    if args.output is not None and outputs is not None:
        save_outputs(args.output, outputs)
    if args.report == "json":
        sys.stdout.write(json.dumps(report, indent=1) + "\n")
    else:
        sys.stdout.write(f"gear: {report['gear']}\n" + result.text())
        if outputs is not None and args.output is None:
            for name, summary in report["outputs"].items():
                mean = f" mean={summary['mean']:.6g}" if summary["mean"] is not None else ""
                sys.stdout.write(f"{name}: {summary['dtype']}{summary['shape']}{mean}\n")
    found = _findings(report)
    if found:
        sys.stderr.write(f"ge-run: the emulator found {', '.join(found)} (see the report); exit code "
                         f"{EXIT_FINDINGS}\n")
        return EXIT_FINDINGS
    return 0


def _run_host_driven(module, args: argparse.Namespace, inputs=None) -> int:  # type: ignore[no-untyped-def]
    """A graph with ge.if / ge.loop / ge.scan or a data-dependent size on the
    emulator: the host runs the control flow and launches the static segments
    between, and each data-dependent op alone at the size it gives (GE's runtime v2)."""
    import json
    from geir.backends.emulator import EmulatorOptions
    from geir.backends.host_control import HostDriver
    from geir.backends.io_bindings import graph_signature, random_inputs, save_outputs
    from geir.tools.ge_run_emulator import EXIT_FINDINGS, _summary
    if args.timing_only:
        from geir.diagnostics import Diagnostic, DiagnosticError
        raise DiagnosticError(Diagnostic("error", "--timing-only cannot run control flow or data-dependent sizes: "
                                                  "the host reads predicates, trip counts and sizes from the numerics"))
    if inputs is None:
        inputs = random_inputs(graph_signature(module), args.seed)
        sys.stderr.write(f"ge-run: random inputs, seed {args.seed}\n")
    options = EmulatorOptions(device=args.device, device_params=list(args.device_param), mode=args.mode,
                              seed=args.seed)
    driver = HostDriver(module, options)
    outputs = driver.run(inputs)
    launches = driver.launches
    findings = sorted({f for launch in launches for f in launch.findings})
    report = {"control_flow": "host-driven launches (GE runtime v2)", "device": args.device, "mode": args.mode,
              "launches": [{"segment": l.segment, "at": l.at, "tasks": l.tasks, "makespan_us": l.makespan_us,
                            "findings": l.findings} for l in launches],
              "segments": len({l.segment for l in launches}),
              "device_time_us": sum(l.makespan_us for l in launches), "findings": findings,
              "outputs": _summary(outputs), "inputs": args.inputs or f"random, seed {args.seed}"}
    if args.output is not None:
        save_outputs(args.output, outputs)
    if args.report == "json":
        sys.stdout.write(json.dumps(report, indent=1) + "\n")
    else:
        sys.stdout.write(f"host-driven run on {args.device} ({args.mode} mode per launch; control flow and "
                         f"data-dependent sizes on the host, as GE's runtime v2): {len(launches)} launch(es) of "
                         f"{report['segments']} segment(s), "
                         f"device time {report['device_time_us']:.3f} us (sum of makespans)\n")
        for i, l in enumerate(launches[:20]):
            sys.stdout.write(f"  launch {i:<4} {l.segment:<10} {l.tasks:>5} tasks {l.makespan_us:>10.3f} us  "
                             f"from {l.at or '?'}"
                             f"{'  ' + ', '.join(l.findings) if l.findings else ''}\n")
        if len(launches) > 20:
            sys.stdout.write(f"  ... {len(launches) - 20} more launches\n")
        sys.stdout.write(f"findings        {', '.join(findings) or 'none'}\n")
        if args.output is None:
            for name, summary in report["outputs"].items():
                mean = f" mean={summary['mean']:.6g}" if summary["mean"] is not None else ""
                sys.stdout.write(f"{name}: {summary['dtype']}{summary['shape']}{mean}\n")
    if findings:
        sys.stderr.write(f"ge-run: the emulator found {', '.join(findings)} (see the report); exit code "
                         f"{EXIT_FINDINGS}\n")
        return EXIT_FINDINGS
    return 0


if __name__ == "__main__":
    sys.exit(main())
