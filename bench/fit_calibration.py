"""Fit a device profile's free parameters to measured device time: least
squares over every row of the measured tables, one parameter set per device,
nothing per network.

    python bench/fit_calibration.py [--data DIR] [--calibration-only] [--device 310P3]
                                    [--params cube_efficiency,kernel_overhead_us]

The rows are those of the calibration table (``--data``, ``bench/fidelity.py``'s)
and of ``bench/more_310p3/`` (fifteen more architectures, measured the same
way); ``--calibration-only`` fits to the calibration table alone. The table
is the device's own (``measured-<device>.csv``, ``bench/fidelity.py``'s
``table_name``): a fit for another device than the 310P3 reads the one in
``--data`` alone. The free
parameters are the ones no public figure fixes (the profile marks them
``"fitted": true``): by default the nine the 310P3 profile was fitted with —
the share of the cube's peak a core sustains on convolutions and on MatMul,
the share of its lanes the vector unit sustains, the fixed cost of a kernel
and of a cube base block, how much longer a base block waits for operands
from DRAM than from L2, the share of a round of base blocks a
double-buffered kernel leaves exposed, the share of the DRAM bandwidth
streaming kernels sustain, and the host's cost of a synchronous model
execution beyond its tasks, which the measured times hold, as ais_bench
times the host's call (any other parameter with bounds here can be named
with ``--params``). Every row is compiled once (``bench/fidelity.py``'s
way: graph-only export, the device's default precision mode, GE's default
stream allocation) and emulated as fidelity emulates it (after a warm-up run,
as ais_bench times it); the fit then re-emulates the task lists with the
parameters as profile overrides and minimises the squared log of
emulated/measured, so a row 2x too slow weighs as much as one 2x too fast.
Duplicate measurements of one row both count. It prints the fitted values
and the fidelity table with them; copy the values into the profile JSON.

    python bench/fit_calibration.py --hold-out

asks whether the fitted numbers predict architectures the fit has not seen:
for each architecture it fits the parameters to every other architecture's
rows and emulates the held-out rows with them, then prints each
architecture's MAPE and worst row held out beside the same rows under the fit
to all rows, and the MAPE of every row predicted by a fit that never saw its
architecture: the error to expect on an architecture nobody has measured.
With ``--calibration-only``, ``--predict-more`` emulates, after the fit, the
rows of ``bench/more_310p3/`` with the numbers fitted to the calibration
table alone.

    python bench/fit_calibration.py --hold-out-batches 16

asks the same of batch sizes: it fits the parameters to the rows of batch 16
and below alone, emulates the larger batches with them, and prints each
architecture's MAPE on those rows beside the fit to all rows, and how each
series' throughput scales from its smallest to its largest batch under the
fit that saw none of the large ones. Never asserts.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Callable, Sequence

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fidelity  # noqa: E402

from geir.backends.device_profile import PARAMS, load_profile  # noqa: E402
from geir.tools.driver import run_guarded  # noqa: E402

#: the free parameters fitted unless ``--params`` names others
DEFAULT_PARAMS = ("cube_efficiency", "matmul_efficiency", "vector_efficiency", "kernel_overhead_us",
                  "dram_efficiency", "cube_block_overhead_cycles", "cube_block_dram_wait_cycles",
                  "cube_pipeline_fill", "model_execute_us")
#: the parameters that may be fitted, and their bounds
BOUNDS = {"cube_efficiency": (0.3, 1.0), "matmul_efficiency": (0.2, 1.0), "dram_efficiency": (0.3, 1.0),
          "kernel_overhead_us": (0.0, 20.0), "cube_block_overhead_cycles": (0.0, 2000.0),
          "cube_block_dram_wait_cycles": (0.0, 5000.0), "cube_pipeline_fill": (0.0, 3.0),
          "vector_min_bytes_per_core": (512, 262144), "core_ddr_bytes_per_cycle": (4.0, 128.0),
          "vector_efficiency": (0.05, 1.0), "model_execute_us": (0.0, 1000.0)}


def hold_out_splits(rows: Sequence[fidelity.Row]) -> list[tuple[str, list[fidelity.Row], list[fidelity.Row]]]:
    """(architecture, the other architectures' rows, its own rows) for every
    architecture of ``rows``, in the order they first appear."""
    models = list(dict.fromkeys(r.model for r in rows))
    return [(m, [r for r in rows if r.model != m], [r for r in rows if r.model == m]) for m in models]


def fit(rows: Sequence[fidelity.Row], evaluate: Callable[[Sequence[fidelity.Row], list[str]], list[fidelity.Result]],
        names: Sequence[str], x0: np.ndarray, overrides: Callable[[np.ndarray], list[str]]) -> tuple[np.ndarray, int]:
    """The parameters ``names`` (from ``x0``, within their bounds) minimising the
    squared log of emulated/measured over ``rows``, and how many evaluations it took."""
    def residuals(x: np.ndarray) -> np.ndarray:
        return np.array([math.log(r.ratio) for r in evaluate(rows, overrides(x))])

    lo = np.array([BOUNDS[n][0] for n in names])
    hi = np.array([BOUNDS[n][1] for n in names])
    result = least_squares(residuals, np.clip(x0, lo, hi), bounds=(lo, hi), diff_step=0.02)
    return result.x, result.nfev


def _worst(results: Sequence[fidelity.Result]) -> float:
    return fidelity.worst_ratio(r.ratio for r in results)


def batch_split(rows: Sequence[fidelity.Row], largest: int) -> tuple[list[fidelity.Row], list[fidelity.Row]]:
    """(the rows of batch ``largest`` and below, the rows above it)."""
    return [r for r in rows if r.batch <= largest], [r for r in rows if r.batch > largest]


def print_batch_hold_out(rows: Sequence[fidelity.Row],
                         evaluate: Callable[[Sequence[fidelity.Row], list[str]], list[fidelity.Result]],
                         names: Sequence[str], x0: np.ndarray, overrides: Callable[[np.ndarray], list[str]],
                         largest: int) -> None:
    """The rows above batch ``largest`` predicted by a fit to the rows at or below it,
    against the fit to all rows."""
    train, test = batch_split(rows, largest)
    everything, _ = fit(rows, evaluate, names, x0, overrides)
    small, _ = fit(train, evaluate, names, x0, overrides)
    print(f"fitted to the {len(train)} rows of batch {largest} and below, and to all {len(rows)} rows:")
    for n, a, b in zip(names, small, everything):
        print(f"  {n:<26} {a:>10.4g}  {b:>10.4g}")
    held = evaluate(test, overrides(small))
    own = evaluate(test, overrides(everything))
    held_by = fidelity.summarize(held).architectures
    own_by = fidelity.summarize(own).architectures
    print(f"\n{'batches above ' + str(largest):<28} {'rows':>4} {'MAPE predicted':>15} {'worst':>7} "
          f"{'MAPE all-row fit':>17} {'worst':>7}")
    for model, a in held_by.items():
        b = own_by[model]
        print(f"{model:<28} {a.rows:>4} {100 * a.mape:>14.1f}% {fidelity.worst_ratio(a.ratios):>6.2f}x "
              f"{100 * b.mape:>16.1f}% {fidelity.worst_ratio(b.ratios):>6.2f}x")
    print(f"\nevery row above batch {largest} predicted by a fit that saw none of them: MAPE "
          f"{100 * fidelity.summarize(held).mape:.1f}%, worst {_worst(held):.2f}x (the fit to all rows: "
          f"{100 * fidelity.summarize(own).mape:.1f}%, worst {_worst(own):.2f}x)")
    fidelity.print_batch_scaling(fidelity.summarize(evaluate(rows, overrides(small))).batch_scaling,
                                 f", under the fit to batch {largest} and below", sys.stdout)


def print_hold_out(rows: Sequence[fidelity.Row],
                   evaluate: Callable[[Sequence[fidelity.Row], list[str]], list[fidelity.Result]],
                   names: Sequence[str], x0: np.ndarray, overrides: Callable[[np.ndarray], list[str]]) -> None:
    """Each architecture predicted by a fit to the others, against the fit to all rows."""
    everything, _ = fit(rows, evaluate, names, x0, overrides)
    in_sample = {id(r.row): r for r in evaluate(rows, overrides(everything))}
    print(f"{'held out':<28} {'rows':>4} {'MAPE held out':>14} {'worst':>7} {'MAPE all-row fit':>17} {'worst':>7}  "
          + "  ".join(names))
    predicted: list[fidelity.Result] = []
    for model, train, test in hold_out_splits(rows):
        x, _ = fit(train, evaluate, names, x0, overrides)
        held = evaluate(test, overrides(x))
        predicted += held
        own = [in_sample[id(r)] for r in test]
        print(f"{model:<28} {len(test):>4} {100 * fidelity.summarize(held).mape:>13.1f}% {_worst(held):>6.2f}x "
              f"{100 * fidelity.summarize(own).mape:>16.1f}% {_worst(own):>6.2f}x  "
              + "  ".join(f"{v:.4g}" for v in x))
    all_fit = [in_sample[id(r)] for r in rows]
    print(f"\nevery row predicted by a fit that never saw its architecture: MAPE "
          f"{100 * fidelity.summarize(predicted).mape:.1f}%, worst {_worst(predicted):.2f}x "
          f"(the fit to all rows: {100 * fidelity.summarize(all_fit).mape:.1f}%, worst {_worst(all_fit):.2f}x)")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None)
    p.add_argument("--device", default="310P3")
    p.add_argument("--strategy", default="ge")
    p.add_argument("--models", default="")
    p.add_argument("--params", default=",".join(DEFAULT_PARAMS))
    p.add_argument("--hold-out", action="store_true",
                   help="predict each architecture with the parameters fitted to the others")
    p.add_argument("--hold-out-batches", type=int, default=None, metavar="N",
                   help="predict the rows above batch N with the parameters fitted to the rows at or below it")
    p.add_argument("--calibration-only", action="store_true",
                   help=f"fit to the calibration table alone, not to the rows of {fidelity.MORE_DIR} too")
    p.add_argument("--predict-more", action="store_true",
                   help=f"with --calibration-only: then emulate the rows of {fidelity.MORE_DIR} with the "
                        "fitted numbers")
    args = p.parse_args(argv)
    if args.predict_more and not args.calibration_only:
        p.error("--predict-more needs --calibration-only: otherwise those rows are fitted to")
    names = [n for n in args.params.split(",") if n]
    for n in names:
        if n not in BOUNDS:
            raise SystemExit(f"fit_calibration: no bounds for '{n}'; known: {', '.join(BOUNDS)}")
    models = [m for m in args.models.split(",") if m]
    rows, compiled = [], {}
    tables = [fidelity.find_data(args.data, args.device)]
    # the second table holds 310P3 times: a fit for another device reads its own table alone
    if not args.calibration_only and fidelity.has_table(fidelity.MORE_DIR, args.device):
        tables.append(fidelity.MORE_DIR)
    for data in tables:
        table = fidelity.load_rows(data, models, args.device)
        compiled.update(fidelity.compile_rows(data, table, args.device, args.strategy))
        rows += table
    if not rows:
        p.error(f"no row measures --models {args.models}")
    if args.hold_out_batches is not None and not all(batch_split(rows, args.hold_out_batches)):
        p.error(f"--hold-out-batches {args.hold_out_batches}: the rows need batches both at or below it and above it")
    profile = load_profile(args.device)
    integer = {n for n in names if PARAMS[n].type is int}

    def overrides(x: np.ndarray) -> list[str]:
        return [f"{n}={int(round(v)) if n in integer else v}" for n, v in zip(names, x)]

    def evaluate(subset: Sequence[fidelity.Row], params: list[str]) -> list[fidelity.Result]:
        return fidelity.evaluate(subset, compiled, args.device, params)

    x0 = np.array([float(profile[n]) for n in names])
    if args.hold_out:
        print_hold_out(rows, evaluate, names, x0, overrides)
        return 0
    if args.hold_out_batches is not None:
        print_batch_hold_out(rows, evaluate, names, x0, overrides, args.hold_out_batches)
        return 0
    x, evaluations = fit(rows, evaluate, names, x0, overrides)
    print(f"device {args.device}: {len(rows)} rows, {evaluations} evaluations")
    for n, before, after in zip(names, x0, x):
        print(f"  {n:<26} {before:>10.4g} -> {after:.4g}")
    print()
    fidelity.print_table(evaluate(rows, overrides(x)))
    if args.predict_more:
        more = fidelity.load_rows(fidelity.find_data(fidelity.MORE_DIR, args.device), device=args.device)
        compiled.update(fidelity.compile_rows(fidelity.MORE_DIR, more, args.device, args.strategy))
        print(f"\nrows of {fidelity.MORE_DIR}, predicted with the fitted numbers:\n")
        fidelity.print_table(evaluate(more, overrides(x)))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "fit_calibration"))
