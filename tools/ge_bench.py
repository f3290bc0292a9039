"""``ge-bench``: a research sweep — models x strategies x max-streams x device
profiles x memory algorithms (x runtime modes) — each (model, configuration)
prepared as ge-default prepares it for the device, scheduled by the passes and
measured on the emulator, in parallel worker processes or on a Dask cluster,
into a results table that resumes::

  ge-bench --models inception,light --strategies single,ge,cost --max-streams 2,4,8 \\
           --devices 910B2,V100 --memory best,ge-blocks -o results.csv --jobs 2 --plot figs/
  ge-bench --config sweep.toml -o results.jsonl --markdown     # the README's results table
  ge-bench --config sweep.toml -o results.csv --executor dask --scheduler tcp://10.0.0.5:8786
  ge-bench bert.onnx gpt2.onnx --input-shape batch=1 --input-shape seq=128 --devices 310P3

The command-line lists win over the config file's (see
:mod:`geir.tools.bench.sweep_config` for the file). Rows already in the results
file are not run again, so an interrupted sweep continues where it stopped and
rerunning a finished one only prints its table. The pieces live in
:mod:`geir.tools.bench`; this module is the command line.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["build_arg_parser", "main"]


def build_arg_parser() -> argparse.ArgumentParser:
    from geir.tools.driver import refuse_repeated_options
    p = argparse.ArgumentParser(prog="ge-bench", description=__doc__.split("\n\n")[0].replace("``", "'"),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    refuse_repeated_options(p)
    s = p.add_argument_group("the sweep (comma-separated lists; they replace the config file's)")
    s.add_argument("paths", nargs="*", metavar="MODEL",
                   help="models to sweep, as --models names them (ge-bench resnet.onnx bert.mlir); with --models, "
                        "both")
    s.add_argument("--config", metavar="FILE", help="a sweep config file, TOML (.toml) or JSON (.json)")
    s.add_argument("--models", metavar="LIST",
                   help="generated workloads by name, 'light' (onnx's light_* models), light_<net>, "
                        ".onnx or .mlir paths, or folders of them (every .onnx and .mlir file in it)")
    s.add_argument("--strategies", metavar="LIST",
                   help="partition-streams strategies (default: single,ge,ge-parallel,chain-cover,cost)")
    s.add_argument("--max-streams", metavar="LIST", help="max-streams values (default: 8)")
    s.add_argument("--devices", metavar="LIST", help="device profiles, names or JSON paths (default: 910B2)")
    s.add_argument("--memory", metavar="LIST",
                   help="reuse-memory algorithms: greedy-by-size, ge-blocks, best, or none (default: best)")
    s.add_argument("--modes", metavar="LIST", help="runtime modes: sink, host (default: sink)")
    s.add_argument("--prepare", metavar="LIST",
                   help="how each graph is prepared before its streams are planned: ge-optimize (as ge-default "
                        "prepares it for the device: graph fusion, precision mode, formats, engines, UB fusion) "
                        "or none (as imported, engines only) (default: ge-optimize)")
    s.add_argument("--input-shape", metavar="NAME=DIMS", action="append",
                   help="bind a dynamic dim of the models that have it: an input (x=1x3x224x224, or ATC's "
                        "x:1,3,224,224) or a symbol (batch=8); repeatable")
    s.add_argument("--time-limit", metavar="S", help="seconds strategy=optimal may search per run (default: 10)")
    r = p.add_argument_group("running")
    r.add_argument("-o", "--results", metavar="FILE",
                   help="results table, CSV (.csv) or JSON lines (.jsonl, .json); rows already there are "
                        "skipped (resume)")
    r.add_argument("-j", "--jobs", type=int, default=2, metavar="N",
                   help="worker processes (default 2; 1 runs in this process)")
    r.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local processes (default) or a Dask cluster (needs the 'dist' extra)")
    r.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler's address, with --executor dask")
    r.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: when stderr is a terminal; needs tqdm)")
    o = p.add_argument_group("output")
    o.add_argument("--markdown", action="store_true",
                   help="print the table in Markdown, the README's format (without wall-clock columns)")
    o.add_argument("--table", choices=("long", "pivot"), default="long",
                   help="a row per run (long, the default), or a row per model with a column per strategy (pivot)")
    o.add_argument("--plot", metavar="DIR", help="write speedup.png, lb_ratio.png and memory_streams.png here")
    o.add_argument("--list", action="store_true", help="list the known models, strategies, devices and memory "
                                                       "algorithms, and exit")
    from geir.tools.driver import add_debug_argument
    add_debug_argument(p)
    return p


def _list() -> int:
    from geir.backends.device_profile import available_profiles
    from geir.passes.scheduling.strategies import STRATEGIES
    from geir.tools.bench.models import known_model_names
    from geir.tools.bench.sweep_config import MEMORY_ALGORITHMS, MODES, PREPARATIONS
    print(f"models:     {', '.join(known_model_names())} (or .onnx/.mlir paths)")
    from geir.passes.scheduling import strategy_registry
    print(f"strategies: {', '.join([*STRATEGIES, *strategy_registry.names()])}")
    print(f"devices:    {', '.join(available_profiles())} (or a profile JSON path)")
    print(f"memory:     {', '.join(MEMORY_ALGORITHMS)}")
    print(f"modes:      {', '.join(MODES)}")
    print(f"prepare:    {', '.join(PREPARATIONS)}")
    return 0


def _run(args: argparse.Namespace, sources: object) -> int:
    from geir.diagnostics import Diagnostic, DiagnosticError
    from geir.tools.bench.executors import make_executor
    from geir.tools.bench.sweep import prepare, run_sweep
    from geir.tools.bench.sweep_config import CONFIG_KEYS, Setting, Sweep, load_config
    from geir.tools.bench.table import render, render_pivot

    if args.list:
        return _list()
    if args.jobs < 1:
        raise DiagnosticError(Diagnostic("error", f"--jobs must be at least 1, got {args.jobs}"))
    executor = make_executor(args.executor, args.jobs, args.scheduler)
    if args.plot:
        from geir.tools.bench.plots import require_matplotlib
        require_matplotlib()
    sweep = Sweep()
    if args.config:
        load_config(args.config, sweep, sources)
    for key in CONFIG_KEYS:
        text = getattr(args, key)
        if key == "input_shape" and text is not None:
            sweep.input_shape = [Setting(t, None, "--input-shape") for t in text]
        elif text is not None:
            sweep.set_from_cli(key, text)
    if args.paths:
        # a path is one model even when its name holds a comma
        given = sweep.models if args.models is not None else []
        sweep.models = given + [Setting(path) for path in args.paths]
    run = prepare(sweep, args.results)
    executor.start()
    total = run.skipped + len(run.todo)
    where = f" ({run.skipped} already in {args.results})" if run.skipped else ""
    workers = "1 process" if args.jobs == 1 and args.executor == "local" else (
        f"{args.jobs} processes" if args.executor == "local" else f"Dask at {args.scheduler}")
    sys.stderr.write(f"ge-bench: {len(run.models)} models x {len(run.configurations)} configurations = {total} "
                     f"runs{where}; running {len(run.todo)} on {workers}\n")
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    rows = run_sweep(run, executor, progress)
    table = render_pivot if args.table == "pivot" else render
    sys.stdout.write(table(rows, markdown=args.markdown, order=run.order()))
    if args.markdown:
        from geir.tools.bench.table import profile_notes
        sys.stdout.write("\n" + profile_notes(run.order()["device"]))
    errors = [r for r in rows if r.get("error")]
    if errors:
        sys.stderr.write(f"ge-bench: warning: {len(errors)} runs failed (the 'error' column); first: "
                         f"{errors[0]['model']} {errors[0]['strategy']}: {errors[0]['error']}\n")
    if args.results:
        sys.stderr.write(f"ge-bench: wrote {args.results} ({len(run.store.rows) if run.store else 0} rows)\n")
    if args.plot:
        from geir.tools.bench.plots import write_plots
        for path in write_plots(rows, args.plot, run.order()):
            sys.stderr.write(f"ge-bench: wrote {path}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run ``ge-bench`` with ``argv`` (default ``sys.argv[1:]``); the exit code."""
    from geir.diagnostics import DiagnosticError, SourceFile, SourceManager
    from geir.tools.driver import run_guarded
    args = build_arg_parser().parse_args(argv)
    sources = SourceManager()

    def body() -> int:
        try:
            return _run(args, sources)
        except DiagnosticError as e:
            pos = e.diagnostics[0].file_position
            if pos is not None and pos.file not in sources.files and os.path.isfile(pos.file):
                # An error inside a model file: show its line too.
                with open(pos.file, encoding="utf-8", errors="replace") as f:
                    sources.add(SourceFile(pos.file, f.read()))
            sys.stderr.write(e.format(sources, "ge-bench"))
            return 1
    return run_guarded(body, "ge-bench", args.debug)


if __name__ == "__main__":
    sys.exit(main())
