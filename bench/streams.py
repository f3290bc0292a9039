"""Benchmark: every stream-partitioning strategy on real and generated models, in
one process, on one device profile (910B2 by default), GE's automatic
multi-stream modes (``ge-cv``, ``ge-load-balance``, ``ge-main-stream``,
``ge-weighted-load-balance``: N =
max-streams) beside GE's default.

For each model and strategy: the model is prepared as ``ge-default`` prepares it
for the device (``ge-optimize``: graph fusion, the precision mode, formats,
engines, UB fusion; ``--prepare none`` runs it as imported, engines only), then
partition-streams and insert-events run on a fresh copy, and the result is
lowered and run on the emulator (timing only, race checker on). Printed per model: makespan,
speed-up over ``single``, ratio to the lower bound (the schedule-independent
bound of :mod:`geir.passes.scheduling.lower_bound` — events, phases, windows,
exclusion — raised for graphs of at most 200 ops to the proven bound of CP-SAT's
relaxation, cut by that bound and, up to 60 ops, with the records and waits no
reduction can drop: no plan on the stream budget beats either) and to CP-SAT's schedule (optimal, or its best when the time
limit stops it), streams, events kept vs GE's rule for the same
assignment, and the passes' compile time. Then the geometric means, and the
compile-time scaling of the three passes on 10k- and 100k-op graphs.

    python bench/streams.py                     # everything (several minutes)
    python bench/streams.py --quick             # generated models only, no scaling
    python bench/streams.py --plot speedup.png  # also draw the speed-ups
    python bench/streams.py --prepare none      # the graphs as imported
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stream_workloads import WORKLOADS  # noqa: E402

from geir.parser import parse_module  # noqa: E402
from geir.passes.pass_manager import PassManager  # noqa: E402
from geir.passes.pipeline import parse_pipeline  # noqa: E402
from geir.passes.scheduling.lower_bound import graph_lower_bound  # noqa: E402
from geir.passes.scheduling.op_graph import OpGraph  # noqa: E402
from geir.passes.scheduling.problem import ScheduleProblem  # noqa: E402
from geir.tools.bench.measure import measure, preparation_text  # noqa: E402
from geir.tools.bench.models import light_models  # noqa: E402
from geir.tools.bench.sweep_config import PREPARATIONS, Configuration  # noqa: E402

STRATEGIES = ("single", "ge", "ge-parallel", "ge-cv", "ge-load-balance", "ge-main-stream", "ge-weighted-load-balance",
              "chain-cover", "opara", "cost")
#: GE's automatic multi-stream modes (ge.autoMultistreamParallelMode, N = max-streams)
GE_AUTO_MODES = ("ge-cv", "ge-load-balance", "ge-main-stream", "ge-weighted-load-balance")
OPTIMAL_LIMIT = 200


def schedule(text: str, strategy: str, device: str, max_streams: int, time_limit: float,
             prepare: str) -> dict[str, Any]:
    """Prepare the model, run the scheduling passes with ``strategy`` and measure
    the result (ge-bench's run of one configuration, without reuse-memory)."""
    r = measure(text, Configuration(strategy, max_streams, device, "none", prepare=prepare), time_limit)
    return {"makespan": r["makespan_us"], "races": r["races"], "deadlock": r["deadlock"], "streams": r["streams"],
            "events": r["events"], "ge_events": r["ge_events"], "compile_s": r["compile_s"]}


def bench_model(name: str, text: str, device: str, max_streams: int, time_limit: float,
                optimal: bool, prepare: str) -> dict[str, Any]:
    module = parse_module(text, "bench.mlir")
    PassManager(parse_pipeline(preparation_text(device, prepare))).run(module)
    problem = ScheduleProblem.build(OpGraph.build(next(module.graphs())), max_streams, device)
    row: dict[str, Any] = {"model": name, "ops": problem.n, "bound": graph_lower_bound(problem).bound_us}
    if optimal and problem.n <= OPTIMAL_LIMIT:
        # CP-SAT's relaxation (no DRAM, only the events every plan needs) bounds every plan's emulated makespan
        from geir.passes.scheduling.strategies.cp_sat import plan as cp_sat
        relaxed = cp_sat(problem, time_limit, relaxed=True).bound_us
        if relaxed is not None and relaxed > row["bound"]:
            row["bound"] = relaxed
    for strategy in STRATEGIES:
        row[strategy] = schedule(text, strategy, device, max_streams, time_limit, prepare)
    if optimal and problem.n <= OPTIMAL_LIMIT:
        row["optimal"] = schedule(text, "optimal", device, max_streams, time_limit, prepare)
    return row


def geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def print_table(rows: list[dict[str, Any]]) -> None:
    cols = list(STRATEGIES) + ["optimal"]
    print("\n| model | ops | " + " | ".join(f"{s} us" for s in cols) + " | cost speed-up | cost/LB | cost/opt | "
          "streams (ge/cost) | events cost (GE rule) | compile cost s |")
    print("|---" * (len(cols) + 9) + "|")
    for r in rows:
        single = r["single"]["makespan"]
        cells = [f"{r[s]['makespan']:.1f}" if s in r else "-" for s in cols]
        cost = r["cost"]
        opt = f"{cost['makespan'] / r['optimal']['makespan']:.3f}" if "optimal" in r else "-"
        print(f"| {r['model']} | {r['ops']} | " + " | ".join(cells)
              + f" | {single / cost['makespan']:.2f}x | {cost['makespan'] / r['bound']:.3f} | {opt} | "
                f"{r['ge']['streams']}/{cost['streams']} | {cost['events']} ({cost['ge_events']}) | "
                f"{cost['compile_s']:.2f} |")
    print("\nGeometric means over the models:")
    for s in cols:
        have = [r for r in rows if s in r]
        sp = geomean([r["single"]["makespan"] / r[s]["makespan"] for r in have])
        lb = geomean([r[s]["makespan"] / r["bound"] for r in have])
        print(f"  {s:24s} speed-up over single {sp:.3f}x   makespan / lower bound {lb:.3f}   ({len(have)} models)")
    opt_rows = [r for r in rows if "optimal" in r]
    if opt_rows:
        for s in STRATEGIES:
            print(f"  {s:12s} makespan / CP-SAT optimum {geomean([r[s]['makespan'] / r['optimal']['makespan'] for r in opt_rows]):.3f}"
                  f"   ({len(opt_rows)} models <= {OPTIMAL_LIMIT} ops)")
    wins = sum(1 for r in rows if r["cost"]["makespan"]
               <= min(r["ge"]["makespan"], r["ge-parallel"]["makespan"], r["chain-cover"]["makespan"]) + 1e-9)
    slower = [r["model"] for r in rows if r["cost"]["makespan"] > r["single"]["makespan"] + 1e-9]
    ev = geomean([r["cost"]["events"] / r["cost"]["ge_events"] for r in rows if r["cost"]["ge_events"]])
    print(f"  cost ahead of (or equal to) ge, ge-parallel and chain-cover on {wins}/{len(rows)} models; slower than single on: "
          f"{', '.join(slower) or 'none'}")
    print(f"  events kept / GE's rule on the same assignment (cost): {ev:.3f} (geometric mean)")
    for s in GE_AUTO_MODES:
        vs_ge = geomean([r["ge"]["makespan"] / r[s]["makespan"] for r in rows])
        vs_cost = geomean([r["cost"]["makespan"] / r[s]["makespan"] for r in rows])
        streams = geomean([r[s]["streams"] for r in rows])
        print(f"  {s:24s} speed-up over ge {vs_ge:.3f}x, over cost {vs_cost:.3f}x; streams {streams:.1f}, "
              f"events {geomean([r[s]['events'] for r in rows if r[s]['events']]):.1f} (geometric means)")
    bad = [(r["model"], s) for r in rows for s in cols if s in r and (r[s]["races"] or r[s]["deadlock"])]
    print(f"  races or deadlocks: {bad or 'none'}")


def scaling(device: str) -> None:
    """Compile time of the three passes (cost strategy) on 10k and 100k ops."""
    from graph_generator import generate_graph
    times = {}
    for n in (10_000, 100_000):
        text = generate_graph(n, seed=1)
        module = parse_module(text, "scale.mlir")
        pipeline = f"assign-engines{{device={device}}},partition-streams{{device={device}}},insert-events"
        t0 = time.perf_counter()
        PassManager(parse_pipeline(pipeline), verify_each=False).run(module)
        times[n] = time.perf_counter() - t0
        print(f"  {n:>7} ops: assign-engines + partition-streams{{strategy=cost}} + insert-events in {times[n]:.2f} s")
    print(f"  t(100k) / t(10k) = {times[100_000] / times[10_000]:.2f}")


def plot(rows: list[dict[str, Any]], path: str, device: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = [s for s in STRATEGIES if s != "single"] + ["optimal"]
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.9), 3.6))
    width = 0.8 / len(cols)
    for k, s in enumerate(cols):
        xs = [i + k * width for i, r in enumerate(rows) if s in r]
        ys = [r["single"]["makespan"] / r[s]["makespan"] for r in rows if s in r]
        ax.bar(xs, ys, width, label=s)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(rows))], [r["model"] for r in rows], rotation=30, ha="right")
    ax.set_ylabel("speed-up over single stream")
    ax.set_title(f"partition-streams strategies on the emulated {device}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside the bars, not over them
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="910B2")
    p.add_argument("--max-streams", type=int, default=8)
    p.add_argument("--time-limit", type=float, default=10.0, help="CP-SAT seconds per model")
    p.add_argument("--quick", action="store_true", help="generated models only, no scaling run")
    p.add_argument("--no-optimal", action="store_true")
    p.add_argument("--plot", default=None, help="write a speed-up bar chart here")
    p.add_argument("--prepare", choices=PREPARATIONS, default="ge-optimize",
                   help="prepare each graph as ge-default does for the device (ge-optimize), or run it as imported "
                        "(none)")
    args = p.parse_args()
    models = {name: gen() for name, gen in WORKLOADS.items()}
    if not args.quick:
        models.update(light_models())
    rows = []
    for name, text in models.items():
        t0 = time.perf_counter()
        rows.append(bench_model(name, text, args.device, args.max_streams, args.time_limit, not args.no_optimal,
                                args.prepare))
        print(f"  {name}: {rows[-1]['ops']} ops, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    print(f"device {args.device}, max-streams {args.max_streams}, prepare {args.prepare}")
    print_table(rows)
    if not args.quick:
        print("\nScaling:")
        scaling(args.device)
    if args.plot:
        plot(rows, args.plot, args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
