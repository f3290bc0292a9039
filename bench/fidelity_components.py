"""Which part of the cost model is off: every measured row's emulated kernel time
split by what bounds each kernel, and one scale per part fitted to the
measurements.

    python bench/fidelity_components.py [--data DIR] [--fit both|calibration|more] [--device 310P3]

Each row of the calibration table (``bench/fidelity.py``'s data) and of
``bench/more_310p3/`` is compiled and costed as ``bench/fidelity.py`` emulates it
(warm, single launch). Every kernel's time is its fixed cost plus its busy time,
and the busy time goes to the part that bounds it: the cube's multiplications
(1 x 1 convolutions, larger windows, grouped and depthwise ones, MatMul and the
other cube ops apart), the vector unit, or the memory it waits on (DRAM when its
activations spill out of L2, DRAM for weights alone, L2); the host's synchronous
execute that the measured times hold (``model_execute_us``) is a part of its
own. Printed per table: each
part's share of the emulated time. Then a non-negative scale per part is fitted
by least squares of the log of (scaled sum / measured) over the rows of
``--fit`` (a part with under 0.5% of their time keeps 1), and printed with the
MAPE the scaled sums reach on each table.

A scale far from 1 says that part of the model is charged too much (below 1) or
too little (above 1) for these measurements; a part that fits one table but not
the other says the mechanism does not generalise.

Last, the physical floors of each row: the DRAM bytes the model moves, at the
card's full bandwidth (``dram_bandwidth_gbps``), and the row's useful cube FLOPs
(no padding), at the cube's peak, each as a share of the measured time. A share
above 1 is a contradiction no parameter can fix: the device did the row faster
than the model's bytes can cross its memory bus, so it moved fewer of them. A
share near 1 bounds a parameter: a row whose useful FLOPs alone need 80% of the
cube's peak caps what every loss the model charges its convolutions may add up
to. It is a diagnosis, not a model: the device profile is not changed. Never
asserts.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import Counter
from typing import Sequence

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fidelity  # noqa: E402

from geir.backends.cost_model import (CUBE_OPS, MATMUL_OPS, CostModel, TaskCost,  # noqa: E402
                                      _op_name)
from geir.backends.device_profile import DeviceProfile, load_profile  # noqa: E402
from geir.backends.task_list import WEIGHTS, Kernel, TaskList, int_attribute  # noqa: E402
from geir.tools.driver import run_guarded  # noqa: E402

#: the parts a kernel's time is split into, in the order they are printed
PARTS = ("kernel fixed cost", "cube: 1x1 convolution", "cube: kxk convolution", "cube: grouped convolution",
         "cube: MatMul family", "cube: other", "vector", "memory: DRAM, spilled activations",
         "memory: DRAM, weights", "memory: L2", "host: synchronous execute")


def _compute_part(kernel: Kernel, op: str) -> str:
    """The part of :data:`PARTS` a compute-bound ``kernel`` (its op ``op``) belongs to."""
    if op == "conv2d":
        if kernel.attributes and int_attribute(kernel.attributes, "group", 1) > 1:
            return "cube: grouped convolution"
        weight = kernel.inputs[1] if len(kernel.inputs) > 1 else None
        if weight is not None and len(weight.shape) == 4 and weight.shape[2] * weight.shape[3] == 1:
            return "cube: 1x1 convolution"
        return "cube: kxk convolution"
    if op in MATMUL_OPS:
        return "cube: MatMul family"
    return "cube: other" if op in CUBE_OPS else "vector"


def kernel_costs(task_list: TaskList, cost: CostModel) -> list[tuple[Kernel, TaskCost]]:
    """Each of ``task_list``'s kernels with what ``cost`` charges it."""
    return [(task, cost.kernel(task)) for _, _, task in task_list.all_tasks() if isinstance(task, Kernel)]


def components(costs: Sequence[tuple[Kernel, TaskCost]], warm_weights: bool,
               execute_us: float = 0.0) -> dict[str, float]:
    """Milliseconds of the costed kernels (:func:`kernel_costs`) per part of :data:`PARTS`;
    ``warm_weights``: they were costed with the weights in L2; ``execute_us``: the
    host's synchronous execute around them (ais_bench's clock, fidelity's host timing)."""
    parts: Counter[str] = Counter()
    parts["host: synchronous execute"] = execute_us
    for task, c in costs:
        if c.duration_us <= 0:
            continue
        parts["kernel fixed cost"] += c.overhead_us
        busy = c.duration_us - c.overhead_us
        if c.compute_us >= c.memory_us:
            parts[_compute_part(task, _op_name(task.op))] += busy
            continue
        # the DRAM bytes the cost above was reckoned with
        dram = c.dram_bytes
        weights = sum(r.nbytes for r in task.inputs if r is not None and r.space == WEIGHTS)
        if dram <= 0:
            parts["memory: L2"] += busy
        elif dram > (0 if warm_weights else weights):
            parts["memory: DRAM, spilled activations"] += busy
        else:
            parts["memory: DRAM, weights"] += busy
    return {p: parts[p] / 1000.0 for p in PARTS}


def floors(costs: Sequence[tuple[Kernel, TaskCost]], profile: DeviceProfile) -> tuple[float, float]:
    """Milliseconds of the costed kernels' DRAM bytes (:func:`kernel_costs`) at ``profile``'s
    full DRAM bandwidth, and of their cube ops' useful FLOPs at the cube's peak."""
    values = profile.values
    bandwidth = values["dram_bandwidth_gbps"] * 1e6  # bytes per ms
    peak = values["ai_cores"] * values["cube_flops_per_cycle"] * values["clock_mhz"] * 1e3  # FLOPs per ms
    dram = flops = 0.0
    for task, c in costs:
        dram += c.dram_bytes
        if c.duration_us > 0 and _op_name(task.op) in CUBE_OPS:
            flops += task.flops
    return dram / bandwidth, flops / peak


def row_figures(rows: Sequence[fidelity.Row], compiled: dict[fidelity.RowKey, TaskList],
                device: str) -> tuple[np.ndarray, np.ndarray]:
    """Per measured row, costed as fidelity emulates it (warm, with the weights in L2, when
    the model's weights and arena fit in L2 together): its :func:`components`, and its
    :func:`floors` over its measured time (DRAM share, cube share)."""
    profile = load_profile(device)
    l2 = profile.values["l2_bytes"]
    models = {warm: CostModel(profile, warm_weights=warm) for warm in (False, True)}
    parts, shares = [], []
    for row in rows:
        tl = compiled[row.key]
        cost = models[tl.weight_size + tl.arena_size <= l2]
        costs = kernel_costs(tl, cost)
        by_part = components(costs, cost.warm_weights, profile.values["model_execute_us"])
        parts.append([by_part[p] for p in PARTS])
        shares.append([f / row.measured_ms for f in floors(costs, profile)])
    return np.array(parts), np.array(shares)


#: a part holding less than this share of the fitted rows' time keeps the scale 1:
#: too little of the measured time rests on it to say anything about it
MIN_SHARE = 0.005


#: rows whose floor takes at least this share of their measured time are listed
FLOOR_SHOWN = 0.75


def fit_scales(parts: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """A non-negative scale per column of ``parts`` minimising the squared log of
    (scaled sum / measured); a column below :data:`MIN_SHARE` of the time keeps 1."""
    used = parts.sum(axis=0) > MIN_SHARE * parts.sum()

    def residuals(x: np.ndarray) -> np.ndarray:
        scale = np.ones(parts.shape[1])
        scale[used] = x
        return np.log(np.maximum(parts @ scale, 1e-9) / measured)

    fitted = least_squares(residuals, np.ones(int(used.sum())), bounds=(0.0, 20.0)).x
    scale = np.ones(parts.shape[1])
    scale[used] = fitted
    return scale


def _mape(predicted: np.ndarray, measured: np.ndarray) -> float:
    return float(np.mean(np.abs(predicted - measured) / measured))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None, help="the calibration folder (measured-310p3.csv and models/)")
    p.add_argument("--fit", choices=("both", "calibration", "more"), default="both",
                   help="the rows the scales are fitted to")
    p.add_argument("--device", default="310P3")
    p.add_argument("--strategy", default="ge")
    args = p.parse_args(argv)
    tables = {"calibration": fidelity.find_data(args.data, args.device)}
    if fidelity.has_table(fidelity.MORE_DIR, args.device):  # 310P3 times
        tables["more"] = fidelity.MORE_DIR
    elif args.fit == "more":
        p.error(f"--fit more: {fidelity.MORE_DIR} holds no measured times of {args.device}")
    parts, measured, emulated, table_of, floor, labels = [], [], [], [], [], []
    for name, data in tables.items():
        rows = fidelity.load_rows(data, device=args.device)
        compiled = fidelity.compile_rows(data, rows, args.device, args.strategy, progress=False)
        row_parts, row_floors = row_figures(rows, compiled, args.device)
        parts.append(row_parts)
        floor.append(row_floors)
        labels += [f"{name:<12} {r.model} batch {r.batch}" + (f" seq {r.seq}" if r.seq else "") for r in rows]
        results = fidelity.evaluate(rows, compiled, args.device)
        measured += [r.row.measured_ms for r in results]
        emulated += [r.emulated_ms for r in results]
        table_of += [name] * len(rows)
    x = np.vstack(parts)
    y, makespan, which = np.array(measured), np.array(emulated), np.array(table_of)
    gap = float(np.max(np.abs(x.sum(axis=1) - makespan) / makespan))
    print(f"device {args.device}: {len(y)} rows; the parts sum to within {100 * gap:.1f}% of each emulated "
          f"makespan\n")
    print(f"{'part':<36} " + " ".join(f"{t + ' share':>18}" for t in tables) + f" {'scale':>7}")
    mask = np.ones(len(y), bool) if args.fit == "both" else which == args.fit
    scale = fit_scales(x[mask], y[mask])
    for j, part in enumerate(PARTS):
        shares = [x[which == t, j].sum() / x[which == t].sum() for t in tables]
        print(f"{part:<36} " + " ".join(f"{100 * s:>17.1f}%" for s in shares) + f" {scale[j]:>7.2f}")
    fitted = f"the rows of {' and '.join(tables)}" if args.fit == "both" else f"the {args.fit} rows"
    print(f"\nscales fitted to {fitted} ({int(mask.sum())})")
    for t in tables:
        sel = which == t
        print(f"  {t:<12} MAPE {100 * _mape(makespan[sel], y[sel]):5.1f}% as emulated, "
              f"{100 * _mape(x[sel] @ scale, y[sel]):5.1f}% with the parts scaled; worst scaled "
              f"{max((x[sel] @ scale) / y[sel], key=lambda r: max(r, 1 / r)):.2f}x")
    share = np.vstack(floor)
    print(f"\nphysical floors (the model's DRAM bytes at the card's full bandwidth; the useful cube FLOPs at "
          f"the cube's peak), as a share of the measured time; rows at {100 * FLOOR_SHOWN:.0f}% or more:")
    for i in sorted(np.nonzero(share.max(axis=1) >= FLOOR_SHOWN)[0], key=lambda i: -share[i].max()):
        print(f"  {labels[i]:<52} DRAM {100 * share[i, 0]:5.0f}%   cube {100 * share[i, 1]:5.0f}%"
              + ("   (faster than the model's bytes allow)" if share[i, 0] > 1 else ""))
    return 0 if all(math.isfinite(s) for s in scale) else 1


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "fidelity_components"))
