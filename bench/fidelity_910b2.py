"""Fidelity of the 910B2 profile against measured kernels: CANN's own kernels
on one Ascend 910B2, timed by msprof for hicann/cann-bench's baselines
(``bench/measured_910b2/``), emulated against measured, case by case. No
whole-model 910B2 time is public; these are the 910B2 times there are.

    python bench/fidelity_910b2.py [--device 910B2] [--fit NAME,...] [--fit-to TABLE,...]

Three tables. ``matmul-910b2.csv``: CANN's MatMul on 20 shapes (square, decode
with M = 1, prefill, unaligned; f16 and bf16), each run as a linear layer's
MatMul (A the activation, B the layer's weight). ``vector-910b2.csv``: CANN's
Sigmoid and GELU kernels on 20 shapes each (1 M to 64 M elements, f16, bf16 and
f32, GELU exact and tanh). ``ops-910b2.csv``: CANN's Maximum (with and without
broadcast), Exp, Softmax (over the last axis and over others), Transpose, Mish
and RmsNorm kernels, every case whose published baseline is one kernel and a
measurement rather than cann-bench's cap. Each graph is compiled with ``ge-default`` on the
device keeping its types (``must_keep_origin_dtype``) and lowered; its kernel
is costed as the emulator costs it, timing-only, with every input read from
DRAM, as cann-bench's freshly launched operator reads them (the kernel's fixed
cost included, as msprof's op summary gives it). Inside a model the emulator
serves a kernel's inputs from L2 when they fit there, since its producer just
wrote them; nothing wrote these. Printed per table: measured and emulated
microseconds, their ratio and error per case, then the mean absolute
percentage error (MAPE), the median and worst ratio, and the ratios of each
kind of case.

``--fit`` fits the profile numbers it names (least squares of
log(emulated / measured) over every case of the tables ``--fit-to`` names: by
default the MatMul and vector tables, which the profile's fitted numbers were
fitted to, so that the third table checks them) and prints the tables again
with them. Never asserts.
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
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import geir  # noqa: E402
from geir.backends.cost_model import CostModel  # noqa: E402
from geir.backends.device_profile import load_profile  # noqa: E402
from geir.backends.task_list import WEIGHTS, Kernel, TaskList  # noqa: E402

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "measured_910b2")
#: the measured tables, by file name
TABLES = ("matmul-910b2.csv", "vector-910b2.csv", "ops-910b2.csv")
#: the tables the profile's fitted numbers were fitted to
FITTED_TABLES = TABLES[:2]
#: the numbers --fit may fit, and their bounds
BOUNDS = {"matmul_efficiency": (0.2, 1.0), "dram_efficiency": (0.3, 1.0), "vector_efficiency": (0.02, 1.0),
          "kernel_overhead_us": (0.0, 20.0)}


@attrs.frozen
class Case:
    """One measured kernel: its table, a label, the graph that runs it and the time measured."""

    table: str
    label: str
    what: str
    graph: str
    measured_us: float
    source: str
    #: what the case shares with others of its table (an op, how it is called)
    kind: str = ""


def _matmul_graph(m: int, k: int, n: int, dtype: str) -> str:
    """A linear layer's MatMul: ``%a`` the activation, the weight a constant."""
    a, b, c = f"tensor<{m}x{k}x{dtype}>", f"tensor<{k}x{n}x{dtype}>", f"tensor<{m}x{n}x{dtype}>"
    return (f"ge.graph @main(%a: {a}) -> {c} {{\n"
            f"  %w = ge.const {{value = dense<0.0> : {b}}} : () -> {b}\n"
            f"  %c = ge.matmul %a, %w : ({a}, {b}) -> {c}\n"
            f"  ge.return %c : ({c}) -> ()\n}}\n")


def _elementwise_graph(op: str, shape: str, dtype: str, approximate: str) -> str:
    t = f"tensor<{shape}x{dtype}>"
    attributes = f' {{approximate = "{approximate}"}}' if approximate and approximate != "none" else ""
    return (f"ge.graph @main(%x: {t}) -> {t} {{\n  %y = ge.{op} %x{attributes} : ({t}) -> {t}\n"
            f"  ge.return %y : ({t}) -> ()\n}}\n")


def _op_graph(op: str, shapes: Sequence[str], dtype: str, attributes: str) -> str:
    """One ``ge.{op}`` on graph inputs of ``shapes`` (its result's shape broadcast
    from them, or permuted by a transpose's ``perm``)."""
    dims = [tuple(int(d) for d in s.split("x")) for s in shapes]
    out = tuple(np.broadcast_shapes(*dims))
    if op == "transpose":
        perm = [int(p) for p in attributes[attributes.index("[") + 1:attributes.index("]")].split(",")]
        out = tuple(dims[0][p] for p in perm)
    types = [f"tensor<{'x'.join(map(str, d))}x{dtype}>" for d in dims]
    result = f"tensor<{'x'.join(map(str, out))}x{dtype}>"
    args = ", ".join(f"%x{i}: {t}" for i, t in enumerate(types))
    operands = ", ".join(f"%x{i}" for i in range(len(types)))
    attributes = f" {attributes}" if attributes else ""
    return (f"ge.graph @main({args}) -> {result} {{\n"
            f"  %y = ge.{op} {operands}{attributes} : ({', '.join(types)}) -> {result}\n"
            f"  ge.return %y : ({result}) -> ()\n}}\n")


def load_cases(data_dir: str = DATA_DIR) -> list[Case]:
    """Every case of the tables, in file order."""
    cases = []
    with open(os.path.join(data_dir, TABLES[0]), newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            m, k, n = int(r["m"]), int(r["k"]), int(r["n"])
            cases.append(Case(TABLES[0], f"{r['case']:>2} {m} x {k} x {n} {r['dtype']}", r["notes"].rsplit("; ", 1)[-1],
                              _matmul_graph(m, k, n, r["dtype"]), float(r["measured_us"]), r["source"]))
    with open(os.path.join(data_dir, TABLES[1]), newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            approximate = r["approximate"]
            what = r["op"] + (f" ({approximate})" if approximate else "")
            cases.append(Case(TABLES[1], f"{r['case']:>2} {r['shape']} {r['dtype']}", what,
                              _elementwise_graph(r["op"], r["shape"], r["dtype"], approximate),
                              float(r["measured_us"]), r["source"]))
    with open(os.path.join(data_dir, TABLES[2]), newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            shapes = r["shapes"].split(";")
            clause = r["notes"].rsplit("; ", 1)[-1] if "; " in r["notes"] else ""
            kind = r["op"] + (f", {clause.partition(' (')[0]}" if clause and not clause.startswith("torch") else "")
            what = r["op"] + (f" {r['attributes']}" if r["attributes"] else "")
            cases.append(Case(TABLES[2], f"{r['case']:>2} {' '.join(shapes)} {r['dtype']}", what,
                              _op_graph(r["op"], shapes, r["dtype"], r["attributes"]),
                              float(r["measured_us"]), r["source"], kind))
    return cases


def compile_case(case: Case, device: str) -> TaskList:
    """The case's task list on ``device``, its types kept."""
    module = geir.parse(case.graph)
    geir.run_pipeline(module, f"ge-default{{device={device} precision-mode=must_keep_origin_dtype}}")
    return geir.lower(module)


def kernel_us(task_list: TaskList, cost: CostModel) -> float:
    """The time of ``task_list``'s kernels as ``cost`` charges them with every input
    read from DRAM, as a weight is read before any run left it in L2."""
    total = 0.0
    for _, _, task in task_list.all_tasks():
        if isinstance(task, Kernel):
            inputs = tuple(r if r is None else attrs.evolve(r, space=WEIGHTS) for r in task.inputs)
            total += cost.kernel(attrs.evolve(task, inputs=inputs)).duration_us
    return total


def evaluate(cases: Sequence[Case], compiled: Sequence[TaskList], device: str,
             params: Sequence[str] = ()) -> list[float]:
    """Emulated / measured per case (``params``: ``key=value`` overrides of the profile)."""
    cost = CostModel(load_profile(device, params))
    return [kernel_us(t, cost) / c.measured_us for c, t in zip(cases, compiled)]


@attrs.frozen
class Summary:
    """What one table's ratios give."""

    mape: float
    median: float
    worst: float
    within: int
    cases: int


def summarize(ratios: Sequence[float]) -> Summary:
    """MAPE (percent), median and worst ratio, how many within 1.5x."""
    return Summary(100 * statistics.fmean(abs(r - 1) for r in ratios), statistics.median(ratios),
                   max(ratios, key=lambda x: max(x, 1 / x)), sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5),
                   len(ratios))


def by_table(cases: Sequence[Case], ratios: Sequence[float]) -> dict[str, list[float]]:
    """The ratios of each table."""
    out: dict[str, list[float]] = {t: [] for t in TABLES}
    for c, r in zip(cases, ratios):
        out[c.table].append(r)
    return out


def print_tables(cases: Sequence[Case], ratios: Sequence[float]) -> None:
    for table in TABLES:
        print(f"{table}:\n{'case':<30} {'measured us':>12} {'emulated us':>12} {'emu/meas':>9} {'error':>7}  what")
        mine = [(c, r) for c, r in zip(cases, ratios) if c.table == table]
        for c, r in mine:
            print(f"{c.label:<30} {c.measured_us:>12.2f} {r * c.measured_us:>12.2f} {r:>8.2f}x "
                  f"{100 * abs(r - 1):>6.1f}%  {c.what}")
        s = summarize([r for _, r in mine])
        print(f"\n{table}: {s.cases} cases, MAPE {s.mape:.1f}%, median emulated/measured {s.median:.2f}x, "
              f"worst {s.worst:.2f}x, {s.within}/{s.cases} within 1.5x")
        kinds: dict[str, list[float]] = {}
        for c, r in mine:
            if c.kind:
                kinds.setdefault(c.kind, []).append(r)
        for kind, rs in kinds.items():
            k = summarize(rs)
            print(f"  {kind:<36} {k.cases:>2} cases, MAPE {k.mape:5.1f}%, emulated/measured "
                  f"{min(rs):.2f}-{max(rs):.2f}x, median {k.median:.2f}x")
        print()


def fit(cases: Sequence[Case], compiled: Sequence[TaskList], device: str, names: Sequence[str]) -> dict[str, float]:
    """The profile numbers ``names`` minimising the squared log ratios over ``cases``."""
    from scipy.optimize import least_squares

    profile = load_profile(device)
    lo, hi = [BOUNDS[n][0] for n in names], [BOUNDS[n][1] for n in names]

    def residuals(x: Sequence[float]) -> list[float]:
        params = [f"{n}={v}" for n, v in zip(names, x)]
        return [math.log(r) for r in evaluate(cases, compiled, device, params)]

    # A number where nothing depends on it locally (an efficiency at its bound, where
    # another limit binds) has no gradient: start also from a fifth and a half of it.
    best = None
    for scale in (1.0, 0.5, 0.2):
        x0 = [min(max(profile.values[n] * scale, a), b) for n, a, b in zip(names, lo, hi)]
        result = least_squares(residuals, x0, bounds=(lo, hi), diff_step=0.01)
        if best is None or result.cost < best.cost:
            best = result
    return dict(zip(names, (float(v) for v in best.x)))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="910B2")
    p.add_argument("--data", default=DATA_DIR, help="the folder of the measured tables")
    p.add_argument("--fit", default="", metavar="NAME,...",
                   help=f"profile numbers to fit ({', '.join(BOUNDS)})")
    p.add_argument("--fit-to", default=",".join(FITTED_TABLES), metavar="TABLE,...",
                   help="the tables whose cases --fit fits to (default: %(default)s)")
    args = p.parse_args(argv)
    names = [n for n in args.fit.split(",") if n]
    unknown = [n for n in names if n not in BOUNDS]
    if unknown:
        p.error(f"--fit: unknown number(s) {', '.join(unknown)} (known: {', '.join(BOUNDS)})")
    fit_to = [t for t in args.fit_to.split(",") if t]
    unknown = [t for t in fit_to if t not in TABLES]
    if unknown or not fit_to:
        p.error(f"--fit-to: unknown table(s) {', '.join(unknown) or '(none given)'} (known: {', '.join(TABLES)})")
    cases = load_cases(args.data)
    compiled = [compile_case(c, args.device) for c in cases]
    print(f"device {args.device}: CANN's kernels measured by msprof ({os.path.relpath(args.data)}), "
          f"one kernel each, costed timing-only with its inputs read from DRAM\n")
    print_tables(cases, evaluate(cases, compiled, args.device))
    if names:
        chosen = [i for i, c in enumerate(cases) if c.table in fit_to]
        fitted = fit([cases[i] for i in chosen], [compiled[i] for i in chosen], args.device, names)
        profile = load_profile(args.device)
        print("fitted:")
        for name, value in fitted.items():
            print(f"  {name:<20} {profile.values[name]:.4g} -> {value:.4g}")
        print()
        print_tables(cases, evaluate(cases, compiled, args.device, [f"{n}={v}" for n, v in fitted.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
