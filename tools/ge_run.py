"""``ge-run``: run a module — with the reference interpreter (``--interpret``) or
on the Ascend runtime emulator (the default; a ``ge`` module is lowered to a
task list first).

  ge-run model.mlir --interpret --inputs in.npz -o out.npz
  ge-run tasks.mlir --device 910B2 --mode sink --report json --trace trace.json

Exit codes: 0 clean; 1 bad input (a diagnostic); 3 the emulator found a race, a
deadlock, a read of bytes nothing wrote, or a lost event record (reported, with
the report and trace still written).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ge-run", description="Run a geir module.",
                                epilog="exit codes: 0 clean, 1 bad input, 3 race/deadlock/uninitialised read found")
    p.add_argument("input", nargs="?", default="-", help="IR file ('-' for stdin): ge or rt dialect")
    p.add_argument("--interpret", action="store_true", help="run op by op with the reference interpreter")
    p.add_argument("--inputs", default=None, help=".npz of graph inputs by name (default: random, fixed seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("-o", dest="output", default=None, help="write the outputs to this .npz")
    p.add_argument("--device", default="910B2", help="device profile name or JSON file")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE",
                   help="override one number of the device profile (repeatable)")
    p.add_argument("--mode", choices=("sink", "host"), default="sink",
                   help="sink: runtime v1 task sink; host: runtime v2 host scheduling")
    p.add_argument("--timing-only", action="store_true", help="simulate time only, no numerics")
    p.add_argument("--report", choices=("text", "json"), default="text")
    p.add_argument("--trace", default=None, help="write a Chrome/Perfetto trace JSON here")
    p.add_argument("--timeline", default=None, help="draw a Gantt chart PNG here (needs matplotlib)")
    p.add_argument("--allow-unregistered-dialect", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    from geir.tools.driver import run_guarded
    return run_guarded(lambda: _run(args), "ge-run")


def _run(args: argparse.Namespace) -> int:
    from geir.parser import parse_module
    from geir.verifier import verify
    from geir.tools.driver import read_input
    name, text = read_input(args.input)
    module = parse_module(text, name, allow_unregistered=args.allow_unregistered_dialect)
    verify(module, allow_unregistered=args.allow_unregistered_dialect)
    if args.interpret:
        return _interpret(module, args)
    from geir.tools.ge_run_emulator import run_emulator
    return run_emulator(module, args)


def _interpret(module, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    from geir.backends.interpreter import interpret
    from geir.backends.io_bindings import graph_signature, load_inputs, random_inputs, save_outputs
    sig = graph_signature(module)
    if args.inputs is not None:
        inputs = load_inputs(args.inputs, sig)
    else:
        inputs = random_inputs(sig, args.seed)
        sys.stderr.write(f"ge-run: random inputs, seed {args.seed}\n")
    outputs = interpret(module, inputs)
    if args.output is not None:
        save_outputs(args.output, outputs)
    else:
        for k, v in outputs.items():
            sys.stdout.write(f"{k}: {v.dtype}{list(v.shape)} mean={float(v.astype('float64').mean()) if v.size else 0.0:.6g}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
