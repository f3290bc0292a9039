"""Fidelity of the 910B2 profile against measured kernels: CANN's MatMul on one
Ascend 910B2, timed by msprof in hicann/cann-bench (``bench/measured_910b2/``),
emulated against measured, case by case.

    python bench/fidelity_matmul.py [--device 910B2] [--fit]

Each case (M x K times K x N, f16 or bf16: square, decode with M = 1, prefill,
unaligned) becomes the MatMul of a linear layer: A the activation, B the
layer's weight, which a kernel reads from HBM as cann-bench's freshly launched
operator reads both operands. The graph is compiled with ``ge-default`` on the
device keeping its types (``must_keep_origin_dtype``), lowered and emulated
timing-only; the emulated time is the kernel's (its fixed cost included), as
msprof's op summary gives it. Printed: measured and emulated microseconds,
their ratio and error per case, then the mean absolute percentage error
(MAPE), the median and worst ratio.

``--fit`` fits the profile's ``matmul_efficiency`` and ``dram_efficiency``
(least squares of log(emulated / measured) over every case) and prints the
table again with them: the cases large enough to be bound by the cube hold the
first, the decode cases (a GEMV streams its weight once) the second. Never
asserts.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import statistics
import sys
from typing import Sequence

import attrs

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import geir  # noqa: E402
from geir.backends.device_profile import load_profile  # noqa: E402
from geir.backends.task_list import TaskList  # noqa: E402

#: the measured cases
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "measured_910b2", "matmul-910b2.csv")
#: the numbers --fit fits, and their bounds
FITTED = {"matmul_efficiency": (0.2, 1.0), "dram_efficiency": (0.3, 1.0)}


@attrs.frozen
class Case:
    """One measured MatMul."""

    case: str
    m: int
    k: int
    n: int
    dtype: str
    measured_us: float
    source: str
    notes: str


def load_cases(path: str = DATA) -> list[Case]:
    """The cases of ``path`` in file order."""
    with open(path, newline="", encoding="utf-8") as f:
        return [Case(r["case"], int(r["m"]), int(r["k"]), int(r["n"]), r["dtype"], float(r["measured_us"]),
                     r["source"], r["notes"]) for r in csv.DictReader(f)]


def case_graph(case: Case) -> str:
    """The case as a linear layer's MatMul: ``%a`` the activation, the weight a constant."""
    a, b, c = (f"tensor<{case.m}x{case.k}x{case.dtype}>", f"tensor<{case.k}x{case.n}x{case.dtype}>",
               f"tensor<{case.m}x{case.n}x{case.dtype}>")
    return (f"ge.graph @main(%a: {a}) -> {c} {{\n"
            f"  %w = ge.const {{value = dense<0.0> : {b}}} : () -> {b}\n"
            f"  %c = ge.matmul %a, %w : ({a}, {b}) -> {c}\n"
            f"  ge.return %c : ({c}) -> ()\n}}\n")


def compile_case(case: Case, device: str) -> TaskList:
    """The case's task list on ``device``, its types kept."""
    module = geir.parse(case_graph(case))
    geir.run_pipeline(module, f"ge-default{{device={device} precision-mode=must_keep_origin_dtype}}")
    return geir.lower(module)


def emulate_us(task_list: TaskList, device: str, params: Sequence[str] = ()) -> float:
    """The task list's makespan on ``device`` with ``params`` overrides, in µs."""
    report = geir.emulate(task_list, device=device, timing_only=True, check_races=False,
                          device_params=list(params))
    return float(report.makespan_us)


def evaluate(cases: Sequence[Case], compiled: Sequence[TaskList], device: str,
             params: Sequence[str] = ()) -> list[float]:
    """Emulated / measured per case."""
    return [emulate_us(t, device, params) / c.measured_us for c, t in zip(cases, compiled)]


def print_table(cases: Sequence[Case], ratios: Sequence[float]) -> float:
    """The per-case table and its summary line; the MAPE in percent."""
    print(f"{'case':>4} {'M x K x N':>20} {'type':>5} {'measured us':>12} {'emulated us':>12} {'emu/meas':>9} "
          f"{'error':>7}  what")
    for c, r in zip(cases, ratios):
        shape = f"{c.m} x {c.k} x {c.n}"
        what = c.notes.rsplit("; ", 1)[-1]
        print(f"{c.case:>4} {shape:>20} {c.dtype:>5} {c.measured_us:>12.2f} {r * c.measured_us:>12.2f} "
              f"{r:>8.2f}x {100 * abs(r - 1):>6.1f}%  {what}")
    mape = 100 * statistics.fmean(abs(r - 1) for r in ratios)
    worst = max(ratios, key=lambda x: max(x, 1 / x))
    within = sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5)
    print(f"\ncases {len(ratios)}: MAPE {mape:.1f}%, median emulated/measured {statistics.median(ratios):.2f}x, "
          f"worst {worst:.2f}x, {within}/{len(ratios)} within 1.5x")
    return mape


def fit(cases: Sequence[Case], compiled: Sequence[TaskList], device: str) -> dict[str, float]:
    """The :data:`FITTED` numbers minimising the squared log ratios."""
    from scipy.optimize import least_squares

    names = list(FITTED)
    profile = load_profile(device)
    x0 = [min(max(profile.values[n], FITTED[n][0]), FITTED[n][1]) for n in names]

    def residuals(x: Sequence[float]) -> list[float]:
        params = [f"{n}={v}" for n, v in zip(names, x)]
        return [math.log(r) for r in evaluate(cases, compiled, device, params)]

    result = least_squares(residuals, x0, bounds=([FITTED[n][0] for n in names], [FITTED[n][1] for n in names]),
                           diff_step=0.01)
    return dict(zip(names, (float(v) for v in result.x)))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="910B2")
    p.add_argument("--data", default=DATA)
    p.add_argument("--fit", action="store_true", help="fit matmul_efficiency and dram_efficiency to the cases")
    args = p.parse_args(argv)
    cases = load_cases(args.data)
    compiled = [compile_case(c, args.device) for c in cases]
    print(f"device {args.device}: CANN's MatMul kernels measured by msprof ({os.path.relpath(args.data)}), "
          f"one kernel each, emulated timing-only\n")
    print_table(cases, evaluate(cases, compiled, args.device))
    if args.fit:
        fitted = fit(cases, compiled, args.device)
        profile = load_profile(args.device)
        print("\nfitted:")
        for name, value in fitted.items():
            print(f"  {name:<20} {profile.values[name]:.4g} -> {value:.4g}")
        print()
        print_table(cases, evaluate(cases, compiled, args.device, [f"{n}={v}" for n, v in fitted.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
