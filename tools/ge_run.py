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
  ge-run gears.mlir --input-shape batch=3        # ... for random inputs of that size

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
gear that fits the inputs (``--inputs``, or random ones of the size
``--input-shape batch=3`` gives), padding them, compiled as any static graph
is; the report names the gear. A graph
with ``ge.if`` / ``ge.loop`` / ``ge.scan`` or a data-dependent size (NonZero ...)
runs on the emulator as host-driven launches (GE's runtime v2,
:mod:`geir.backends.host_control`).

What a run does is the library's (:func:`geir.backends.run_model.run_model`,
public as ``geir.run_model``); this module reads the options, calls it and
prints the report.

An output holding NaN or infinity gets a warning naming it and the count; under
a precision mode that computes in f16 (the device's default, ``force_fp16``) it
adds that ``--precision-mode must_keep_origin_dtype`` keeps the model's f32.
So does an op whose f16 results flush to zero a share of the values that are
not zero in f32 (f16 underflow, :data:`geir.report.UNDERFLOW_SHARE`), warned
at the op with the count (the first few such ops, then how many more), and so
is a constant the precision mode flushes (``precision-mode`` warns at it, and
an output it makes NaN is blamed on f16). The passes' warnings come first.
``--interpret`` and host-driven runs warn the same way; they run the graph as
written, after the ``precision-mode`` pass alone when ``--precision-mode`` is given.

Exit codes: 0 clean; 1 bad input (a diagnostic); 3 the emulator found a race, a
deadlock, a read of bytes nothing wrote, or a lost event record (reported, with
the report and trace still written); 70 an internal error (``--debug`` shows its
traceback).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from geir.backends.run_model import RunSettings


def build_arg_parser() -> argparse.ArgumentParser:
    from geir.tools.driver import refuse_repeated_options
    p = argparse.ArgumentParser(prog="ge-run", description="Run a model (ONNX, or geir IR) on the Ascend emulator "
                                                             "or the reference interpreter.",
                                epilog="exit codes: 0 clean, 1 bad input, 3 race/deadlock/uninitialised read found, "
                                       "70 internal error")
    refuse_repeated_options(p)
    p.add_argument("input", nargs="*", default=["-"],
                   help="an ONNX model, an IR file (ge or rt dialect) or a task-list JSON ('-' for stdin); "
                        "several run at once on one device")
    p.add_argument("--interpret", action="store_true", help="run op by op with the reference interpreter")
    p.add_argument("--inputs", default=None, help=".npz of graph inputs by name (default: random, fixed seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                   help="bind a dynamic dim before running: an input (x=1x3x8x8, or ATC's x:1,3,8,8) or a symbol (batch=4); "
                        "repeatable; "
                        "with several models, each binds those it has")
    p.add_argument("-o", dest="output", default=None, help="write the outputs to this .npz")
    p.add_argument("--device", default="910B2",
                   help="device profile: a name (910B2, 310P3, ...; case-insensitive) or a JSON file")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE",
                   help="override one number of the device profile (repeatable)")
    p.add_argument("--mode", choices=("sink", "host"), default="sink",
                   help="sink: runtime v1 task sink; host: runtime v2 host scheduling")
    p.add_argument("--timing-only", action="store_true", help="simulate time only, no numerics")
    p.add_argument("--warm-l2", action="store_true",
                   help="emulate a run that follows a run of the same model, as a benchmark's timed runs follow its "
                        "warm-up: a model whose weights and activations fit in L2 together reads its weights from L2")
    p.add_argument("--host-timed", action="store_true",
                   help="also report the run as a host times a synchronous model execution (aclmdlExecute, as "
                        "ais_bench times NPU_compute_time): the makespan plus the profile's model_execute_us")
    p.add_argument("--report", choices=("text", "json"), default="text")
    p.add_argument("--trace", default=None, help="write a Chrome/Perfetto trace JSON here")
    p.add_argument("--timeline", default=None, help="draw a Gantt chart PNG here (needs matplotlib)")
    p.add_argument("--memory-timeline", default=None, metavar="PNG",
                   help="draw the arena over time here: a rectangle per tensor, coloured by stream (needs matplotlib)")
    p.add_argument("--allow-unregistered-dialect", action="store_true")
    from geir.tools.driver import add_debug_argument
    add_debug_argument(p)
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
    from geir.tools.driver import llvm_style_arguments, run_guarded
    parser = build_arg_parser()
    args = parser.parse_args(llvm_style_arguments(parser, sys.argv[1:] if argv is None else argv))
    return run_guarded(lambda: _run(args), "ge-run", args.debug)


def settings_of(args: argparse.Namespace) -> "RunSettings":
    """The run settings ``args`` give."""
    from geir.backends.run_model import RunSettings
    return RunSettings(pipeline=args.pipeline, device=args.device, device_params=list(args.device_param),
                       streams=args.streams, mode=args.mode, inputs=args.inputs, input_shapes=list(args.input_shape),
                       compare=args.compare, timing_only=args.timing_only, seed=args.seed,
                       allow_unregistered=args.allow_unregistered_dialect, precision_mode=args.precision_mode,
                       warm_l2=args.warm_l2, host_timed=args.host_timed)


#: names of standard output, where the report goes (a file written there would mix with it)
_STANDARD_OUTPUT = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def _run(args: argparse.Namespace) -> int:
    from geir.backends.run_model import load, prepare, run_prepared, with_device_resolved
    from geir.diagnostics import DiagnosticError, SourceManager
    from geir.output_file import check_writable
    # An unwritable output is said before the run, not after it.
    for flag, path, image in (("-o", args.output, False), ("--trace", args.trace, False),
                              ("--timeline", args.timeline, True), ("--memory-timeline", args.memory_timeline, True)):
        if path in _STANDARD_OUTPUT:
            from geir.diagnostics import error
            raise error(f"{flag} {path}: the report goes to standard output; give {flag} a file")
        if path is not None:
            check_writable(path, image)
    if len(args.input) > 1 or args.priority:
        from geir.tools.ge_run_corun import run_several
        return run_several(args)
    settings = with_device_resolved(settings_of(args))
    args.device = settings.device  # the name the passes take too
    sources = SourceManager()
    try:
        prepared = prepare(load(args.input[0], args.allow_unregistered_dialect, sources), settings, args.interpret)
        _refuse_files_not_written(args, prepared)
        _refuse_scenario_or_sweep(args, prepared)
        if prepared.kind == "interpret":
            return _interpret(prepared, args, settings, sources)
        if prepared.kind == "graph":
            code = _scenario_or_sweep(prepared.module, args, settings)
            if code is not None:
                return code
        report = run_prepared(prepared, settings)
    except DiagnosticError as e:
        sys.stderr.write(e.format(sources, "ge-run"))  # with the source line and caret of each op at fault
        return 1
    _print_warnings(report, settings, sources)
    return print_report(report, args)


#: the files one run writes: flag and argument name
_RUN_FILES = (("-o", "output"), ("--trace", "trace"), ("--timeline", "timeline"),
              ("--memory-timeline", "memory_timeline"))
_SCHEDULE_FILES = ("--trace", "--timeline", "--memory-timeline")
#: the options that repeat or re-emulate one static task list: flag and argument name
_SCENARIO_OPTIONS = (("--iterations", "iterations"), ("--buffers", "buffers"), ("--devices", "devices"),
                     ("--sweep", "sweep"))
#: the argument name of each flag a refusal may name
_ARGUMENT_NAMES = dict(_RUN_FILES + _SCENARIO_OPTIONS)


def _refuse_files_not_written(args: argparse.Namespace, prepared: Any) -> None:
    """Say, before the run, which of the files ``args`` names this run would
    not write: a run that cannot write a file it was asked for fails."""
    from geir.absent_weights import module_has_absent_weights
    if getattr(args, "iterations", None) is not None or getattr(args, "devices", None) is not None:
        _refuse(args, [f for f, _ in _RUN_FILES], "a scenario (--iterations, --devices) reports its frames or "
                                                  "steps, not one run's outputs or schedule")
    if args.sweep:
        _refuse(args, [f for f, _ in _RUN_FILES], "--sweep reports the makespan per swept value, not one run's "
                                                  "outputs or schedule")
    if prepared.kind == "interpret":
        _refuse(args, _SCHEDULE_FILES, "--interpret runs no emulation, so there is no schedule to write")
    if prepared.kind == "host":
        _refuse(args, _SCHEDULE_FILES, "a host-driven run (control flow or data-dependent sizes) emulates each "
                                       "of its launches on its own, so there is no one schedule to write")
    if args.timing_only and not args.interpret:
        _refuse(args, ["-o"], "a --timing-only run computes no outputs to write")
    elif prepared.kind == "graph" and module_has_absent_weights(prepared.module):  # a host run says it needs them
        _refuse(args, ["-o"], "the model holds no weights (imported without them), so its run is timing only "
                              "and computes no outputs to write")


def _refuse_scenario_or_sweep(args: argparse.Namespace, prepared: Any) -> None:
    """An error naming the scenario and sweep options ``args`` gives (each repeats
    or re-emulates one static task list) when ``prepared`` runs none: an
    --interpret run, or a host-driven one."""
    if prepared.kind == "graph":
        return
    why = ("--interpret runs no emulation" if prepared.kind == "interpret" else
           "a host-driven run (control flow or data-dependent sizes) runs launch by launch as the host "
           "decides, not one static task list")
    _refuse(args, [flag for flag, _ in _SCENARIO_OPTIONS], f"{why} to repeat or sweep")


def _refuse(args: argparse.Namespace, flags: Sequence[str], why: str) -> None:
    """An error naming the options among ``flags`` that ``args`` gives, and why."""
    given = [flag for flag in flags if getattr(args, _ARGUMENT_NAMES[flag], None) not in (None, [])]
    if given:
        from geir.diagnostics import error
        raise error(f"{' and '.join(given)}: {why}")


def _print_warnings(report, settings: "RunSettings", sources: Any = None) -> None:  # type: ignore[no-untyped-def]
    """Print the passes' warnings, then the run's
    (:func:`~geir.backends.run_model.run_warnings`), with the source line of
    each op; one that points at no op names the tool."""
    from geir.backends.run_model import run_warnings
    for d in report.warnings:
        sys.stderr.write(d.format(sources))
    for d in run_warnings(report, settings):
        sys.stderr.write(f"ge-run: {d.format(sources)}" if d.points_nowhere else d.format(sources))


def _scenario_or_sweep(module, args: argparse.Namespace, settings) -> int | None:  # type: ignore[no-untyped-def]
    """--iterations / --devices (the scenario builds the graph as it needs), or
    --sweep (the pipeline without the single-stream build); None for neither."""
    from geir.tools.ge_run_emulator import scenario_exit
    code = scenario_exit(module, args)
    if code is not None:
        return code
    if args.sweep:
        if args.host_timed:
            from geir.diagnostics import error
            raise error("--host-timed applies to one run; --sweep prints the makespan per swept value")
        from geir.backends.model_compile import task_list_of
        from geir.backends.run_model import compile_for_run
        from geir.tools.ge_run_sweep import run_sweep
        compiled = compile_for_run(module, settings, compare=False)
        for d in compiled.warnings if compiled is not None else ():
            sys.stderr.write(d.format())
        return run_sweep(task_list_of(module, args.allow_unregistered_dialect), args)
    return None


def print_report(report, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """Print ``report`` (a :class:`~geir.report.RunReport`) as ``args`` say,
    write the files they name; the exit code."""
    from geir.tools.ge_run_emulator import write_run
    return write_run(report, args)


def _interpret(prepared, args: argparse.Namespace, settings: "RunSettings", sources: Any) -> int:  # type: ignore[no-untyped-def]
    from geir.backends.io_bindings import save_outputs
    from geir.backends.run_model import interpret_prepared
    run = interpret_prepared(prepared, settings)
    _print_warnings(run, settings, sources)
    if run.random_seed is not None:
        sys.stderr.write(f"ge-run: random inputs, seed {run.random_seed}\n")
    if args.output is not None:
        save_outputs(args.output, run.outputs)
    else:
        from geir.report import format_outputs, output_summary
        sys.stdout.write(format_outputs(output_summary(run.outputs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
