"""GE's Case and switch/merge in the task sink against host-driven launches:
the same graph and inputs run both ways, as ``ge-run`` reports them.

    python bench/case_switch_sink.py [--device 910B2] [--branches 2 4 8] [--size 4096]

``ge.case`` with N branches (each three elementwise ops on a vector of
``size`` floats) picks its last branch; a ``ge.switch`` / ``ge.merge`` diamond
(TF v1's cond, the same branch work) runs each way. For each: the sink's
makespan and task runs (one launch, no host round trip) and the host-driven
path's time (its launches' device time plus ``host_launch_us`` per task the
host launches), launches and round trips. The host's own latency per round
trip is not modelled: the host-driven figures are a lower bound.
"""

from __future__ import annotations

import argparse

import numpy as np

from geir.backends.run_model import RunSettings, run_model
from geir.module import Module
from geir.parser import parse_module

_CHAIN = ("relu", "neg", "abs")


def case_module(branches: int, size: int) -> Module:
    """``y = case(i, ...)(x) * x``; branch k applies a rotation of ``_CHAIN``."""
    t = f"tensor<{size}xf32>"
    regions = []
    for k in range(branches):
        lines, v = [], "%x"
        for j in range(len(_CHAIN)):
            lines.append(f"    %b{k}_{j} = ge.{_CHAIN[(k + j) % len(_CHAIN)]} {v} : ({t}) -> {t}")
            v = f"%b{k}_{j}"
        regions.append("{\n" + "\n".join(lines) + f"\n    ge.yield {v} : ({t}) -> ()\n  }}")
    return parse_module(
        f'ge.graph @main(%i: tensor<i32> {{ge.name = "i"}}, %x: {t} {{ge.name = "x"}}) -> ({t} {{ge.name = "y"}}) {{\n'
        f"  %r = ge.case %i ({', '.join(regions)}) : (tensor<i32>) -> {t}\n"
        f"  %y = ge.mul %r, %x : ({t}, {t}) -> {t}\n  ge.return %y : ({t}) -> ()\n}}\n")


def diamond_module(size: int) -> Module:
    """``y = merge(chain(false x), chain'(true x)) * x`` on one switch."""
    t = f"tensor<{size}xf32>"
    lines = [f"  %f, %t = ge.switch %x, %p : ({t}, tensor<i1>) -> ({t}, {t})"]
    for tag, shift in (("f", 0), ("t", 1)):
        v = f"%{tag}"
        for j in range(len(_CHAIN)):
            lines.append(f"  %{tag}{j} = ge.{_CHAIN[(shift + j) % len(_CHAIN)]} {v} : ({t}) -> {t}")
            v = f"%{tag}{j}"
    last = len(_CHAIN) - 1
    lines += [f"  %m, %k = ge.merge %f{last}, %t{last} : ({t}, {t}) -> ({t}, tensor<i32>)",
              f"  %y = ge.mul %m, %x : ({t}, {t}) -> {t}", f"  ge.return %y : ({t}) -> ()"]
    return parse_module(f'ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %x: {t} {{ge.name = "x"}}) -> '
                        f'({t} {{ge.name = "y"}}) {{\n' + "\n".join(lines) + "\n}\n")


def row(name: str, module: Module, feeds: dict[str, np.ndarray], device: str) -> str:
    report = run_model(module, RunSettings(inputs=feeds, device=device, compare=True))
    compared = report.fields["sink_vs_host"]
    sink, host = compared["sink"], compared["host"]
    ratio = host["time_us"] / sink["time_us"] if sink["time_us"] else float("nan")
    return (f"{name:<22} {sink['time_us']:>10.1f} {sink['tasks_run']:>6} {host['time_us']:>10.1f} "
            f"{host['launches']:>8} {host['host_round_trips']:>6} {ratio:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="910B2")
    parser.add_argument("--branches", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    print(f"{'model':<22} {'sink us':>10} {'runs':>6} {'host us':>10} {'launches':>8} {'reads':>6} "
          f"{'host/sink':>8}")
    x = np.linspace(-1, 1, args.size, dtype=np.float32)
    for n in args.branches:
        feeds = {"i": np.array(n - 1, np.int32), "x": x}
        print(row(f"case branches={n}", case_module(n, args.size), feeds, args.device))
    for p in (True, False):
        print(row(f"switch/merge p={p}", diamond_module(args.size), {"p": np.array(p), "x": x}, args.device))


if __name__ == "__main__":
    main()
