"""Fit a device profile's free parameters to measured device time: least
squares over every row of the calibration table, one parameter set per
device, nothing per network.

    python bench/fit_calibration.py [--data DIR] [--device 310P3] [--params cube_efficiency,kernel_overhead_us]

The free parameters are the ones no public figure fixes (the profile marks
them ``"fitted": true``): by default the six the 310P3 profile was fitted
with — the share of the cube's peak a core sustains on convolutions and on
MatMul, the fixed cost of a kernel and of a cube base block, how much longer a
base block waits for operands from DRAM than from L2, and the share of the
DRAM bandwidth streaming kernels sustain (any other parameter with bounds
here can be named with ``--params``). Every row is compiled once (``bench/fidelity.py``'s
way: graph-only export, the device's default precision mode, GE's default
stream allocation); the fit then re-emulates the task lists with the
parameters as profile overrides and minimises the squared log of
emulated/measured, so a row 2x too slow weighs as much as one 2x too fast.
Duplicate measurements of one row both count. It prints the fitted values
and the fidelity table with them; copy the values into the profile JSON.
Never asserts.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Sequence

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fidelity  # noqa: E402

from geir.backends.device_profile import PARAMS, load_profile  # noqa: E402

#: the free parameters fitted unless ``--params`` names others
DEFAULT_PARAMS = ("cube_efficiency", "matmul_efficiency", "kernel_overhead_us", "dram_efficiency",
                  "cube_block_overhead_cycles", "cube_block_dram_wait_cycles")
#: the parameters that may be fitted, and their bounds
BOUNDS = {"cube_efficiency": (0.3, 1.0), "matmul_efficiency": (0.2, 1.0), "dram_efficiency": (0.3, 1.0),
          "kernel_overhead_us": (0.0, 20.0), "cube_block_overhead_cycles": (0.0, 2000.0),
          "cube_block_dram_wait_cycles": (0.0, 5000.0), "cube_pipeline_fill": (0.0, 3.0),
          "vector_min_bytes_per_core": (512, 262144), "core_ddr_bytes_per_cycle": (4.0, 128.0)}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None)
    p.add_argument("--device", default="310P3")
    p.add_argument("--strategy", default="ge")
    p.add_argument("--models", default="")
    p.add_argument("--params", default=",".join(DEFAULT_PARAMS))
    args = p.parse_args(argv)
    names = [n for n in args.params.split(",") if n]
    for n in names:
        if n not in BOUNDS:
            raise SystemExit(f"fit_calibration: no bounds for '{n}'; known: {', '.join(BOUNDS)}")
    data = fidelity.find_data(args.data)
    rows = fidelity.load_rows(data, [m for m in args.models.split(",") if m])
    compiled = fidelity.compile_rows(data, rows, args.device, args.strategy)
    profile = load_profile(args.device)
    integer = {n for n in names if PARAMS[n].type is int}

    def overrides(x: np.ndarray) -> list[str]:
        return [f"{n}={int(round(v)) if n in integer else v}" for n, v in zip(names, x)]

    def residuals(x: np.ndarray) -> np.ndarray:
        results = fidelity.evaluate(rows, compiled, args.device, overrides(x))
        return np.array([math.log(r.ratio) for r in results])

    x0 = np.array([float(profile[n]) for n in names])
    lo = np.array([BOUNDS[n][0] for n in names])
    hi = np.array([BOUNDS[n][1] for n in names])
    fit = least_squares(residuals, np.clip(x0, lo, hi), bounds=(lo, hi), diff_step=0.02)
    print(f"device {args.device}: {len(rows)} rows, {fit.nfev} evaluations")
    for n, before, after in zip(names, x0, fit.x):
        print(f"  {n:<26} {before:>10.4g} -> {after:.4g}")
    print()
    fidelity.print_table(fidelity.evaluate(rows, compiled, args.device, overrides(fit.x)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
