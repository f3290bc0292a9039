"""Emulator benchmark: timing-only throughput (tasks/s) on synthetic task lists of
10k and 100k tasks on 8 streams with many events, how time scales (t(100k) /
t(10k), 10 for linear), and the numeric mode's overhead relative to
``ge-run --interpret`` on resnet50 (onnx's ``light_resnet50`` test model by
default, when the ONNX importer is available).

    python bench/emulator.py [--sizes 10000,100000] [--streams 8] [--repeat 3] [--resnet PATH]

Prints a table; never asserts (targets: >= 200k tasks/s timing-only with the
shared-bandwidth model, linear time, numeric mode within 1.3x of the
interpreter). Each size also runs with the DRAM narrowed to 20 GB/s, so that
kernels that move DRAM bytes ask for more bandwidth than there is and every
start and end rebalances the flows (the fluid model's worst case); the ``DRAM
sat`` column is the share of the makespan spent saturated (0% when the
kernels' activations fit in L2 and they move no DRAM bytes at all).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from geir.backends.emulator import EmulatorOptions, emulate  # noqa: E402
from geir.backends.task_list import (ARENA, Binding, EndGraph, Kernel, Record, Stream, Task, TaskList,  # noqa: E402
                                TensorRef, Wait)

#: the timing-only target: tasks/s of CPU time, race check off
TARGET = 200_000

_OPS = [("ge.conv2d", (1, 64, 28, 28), 2.0 * 64 * 9), ("ge.add", (1, 64, 28, 28), 1.0),
        ("ge.relu", (1, 64, 28, 28), 1.0), ("ge.matmul", (128, 256), 2.0 * 256), ("ge.sigmoid", (1, 256), 4.0),
        ("ge.add", (1, 16, 8, 8), 1.0)]


def synthetic_task_list(n_tasks: int, n_streams: int = 8, seed: int = 0, window: int = 32,
                        cross: float = 0.25) -> TaskList:
    """About ``n_tasks`` tasks: kernels on ``n_streams`` streams reading one or two
    of the last ``window`` results, and a record/wait pair (own event id) for
    every cross-stream edge — the lowering of a wide random DAG with events
    inserted on every cross-stream edge and a fresh arena buffer per tensor."""
    rng = random.Random(seed)
    tasks: list[list[Task]] = [[] for _ in range(n_streams)]
    produced: list[tuple[int, TensorRef]] = []  # (stream, tensor) of each kernel
    offset = 0
    event = 0
    count = 0
    x = TensorRef(ARENA, 0, (1, 64, 28, 28), "f16")
    offset = x.nbytes
    produced.append((0, x))
    while count < n_tasks - n_streams:
        s = rng.randrange(n_streams) if rng.random() < cross else (len(produced) % n_streams)
        op, shape, per = rng.choice(_OPS)
        recent = produced[-window:]
        ins = [rng.choice(recent) for _ in range(rng.choice((1, 1, 2)))]
        for ps, ref in ins:
            if ps != s:
                tasks[ps].append(Record(event))
                tasks[s].append(Wait(event))
                event += 1
                count += 2
        out = TensorRef(ARENA, offset, shape, "f16")
        offset += -(-out.nbytes // 512) * 512
        elements = 1
        for d in shape:
            elements *= d
        tasks[s].append(Kernel(op=op, engine="AICore", inputs=[r for _, r in ins], outputs=[out],
                               flops=per * elements, bytes=float(out.nbytes * (1 + len(ins))), loc=f"n{count}"))
        produced.append((s, out))
        count += 1
    for t in tasks:
        t.append(EndGraph())
    return TaskList(streams=[Stream(i, 0, t) for i, t in enumerate(tasks)], arena_size=offset,
                    inputs=[Binding("x", x)], outputs=[Binding("y", produced[-1][1])], num_events=event,
                    name=f"synthetic{n_tasks}")


def bench_timing(sizes: list[int], streams: int, repeat: int, check_races: bool,
                 params: list[str] | None = None) -> list[tuple[int, int, float, float, float]]:
    """(tasks, events, best wall seconds, best CPU seconds, saturated share) per size."""
    rows = []
    for n in sizes:
        tl = synthetic_task_list(n, streams)
        total = sum(len(s.tasks) for s in tl.streams)
        wall = cpu = float("inf")
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            result = emulate(tl, None, EmulatorOptions(timing_only=True, check_races=check_races, progress=False,
                                                       device_params=list(params or [])))
            wall = min(wall, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)
        assert result.clean, result.report["races"][:1] or result.report["deadlock"]
        rep = result.report
        rows.append((total, tl.num_events, wall, cpu, rep["dram"]["saturated_us"] / rep["makespan_us"]))
    return rows


def bench_phases(n: int, streams: int, repeat: int) -> tuple[float, float, float]:
    """Best CPU seconds of each phase of one timing-only emulation of ``n`` tasks,
    race check off: compiling the program, the event loop, the report."""
    from geir.backends.cost_model import CostModel
    from geir.backends.device_profile import load_profile
    from geir.backends.emulator.program import compile_program
    from geir.backends.emulator.report import build_report
    from geir.backends.emulator.simulator import simulate

    tl = synthetic_task_list(n, streams)
    profile = load_profile("910B2", [])
    best = [float("inf")] * 3
    for _ in range(repeat):
        cost = CostModel(profile)  # a fresh model, as each emulate builds one
        c0 = time.process_time()
        program = compile_program(tl, cost)
        c1 = time.process_time()
        schedule = simulate(program, "sink", cost.launch_us)
        c2 = time.process_time()
        build_report(schedule, profile, None, cost.launch_us)
        c3 = time.process_time()
        best = [min(b, x) for b, x in zip(best, (c1 - c0, c2 - c1, c3 - c2))]
    return best[0], best[1], best[2]


def _light_resnet50() -> str | None:
    import onnx
    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", "light_resnet50.onnx")
    return path if os.path.exists(path) else None


def bench_resnet(path: str | None, repeat: int) -> list[str]:
    """Numeric-mode time against the reference interpreter on resnet50, or why it was skipped."""
    try:
        from geir.backends.interpreter import interpret
        from geir.backends.io_bindings import graph_signature, random_inputs
        from geir.backends.rt_module import task_list_from_module
        from geir.passes.lower_to_tasks import LowerToTasks
        from geir.tools.bench.models import import_light_model
        from geir.passes.pass_manager import PassManager
    except ImportError as e:
        return [f"skipped: {e}"]
    path = path or _light_resnet50()
    if path is None or not os.path.exists(path):
        return ["skipped: no resnet50 ONNX model (pass --resnet PATH)"]
    module = import_light_model(path)  # canonicalised: its ConstantOfShape weights are weights, as GE folds them
    inputs = random_inputs(graph_signature(module), 0)

    def best(fn: object) -> float:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - t0)
        return min(times)

    t_interp = best(lambda: interpret(module, inputs))
    t0 = time.perf_counter()
    PassManager([LowerToTasks()]).run(module)
    tl = task_list_from_module(module)
    t_lower = time.perf_counter() - t0
    t_emu = best(lambda: emulate(tl, inputs, EmulatorOptions(progress=False)))
    t_fast = best(lambda: emulate(tl, inputs, EmulatorOptions(check_races=False, progress=False)))
    t_timing = best(lambda: emulate(tl, None, EmulatorOptions(timing_only=True, progress=False)))
    n = sum(len(st.tasks) for st in tl.streams)
    return [f"{os.path.basename(path)}: {n} tasks, arena {tl.arena_size / 2**20:.1f} MiB",
            f"  interpreter                         {t_interp:7.3f} s",
            f"  emulator numeric, race check on     {t_emu:7.3f} s  ({t_emu / t_interp:.2f}x the interpreter)",
            f"  emulator numeric, race check off    {t_fast:7.3f} s  ({t_fast / t_interp:.2f}x)",
            f"  emulator timing only                {t_timing:7.3f} s",
            f"  (lower-to-tasks, once: {t_lower:.3f} s)"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--streams", type=int, default=8)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--resnet", default=None,
                   help="resnet50 .onnx for the numeric-mode comparison (default: onnx's light_resnet50)")
    args = p.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"timing-only emulation, {args.streams} streams, best of {args.repeat} "
          "(CPU time of this process: the figure that does not depend on other load)")
    print(f"{'tasks':>8} {'events':>7} {'race check':>10} {'DRAM GB/s':>9} {'DRAM sat':>8} {'wall s':>8} {'CPU s':>8} "
          f"{'tasks/s (CPU)':>14}")
    timing_only = 0.0
    for check, dram in ((False, None), (True, None), (False, "20")):
        params = [f"dram_bandwidth_gbps={dram}"] if dram else []
        rows = bench_timing(sizes, args.streams, args.repeat, check, params)
        if not check and dram is None:
            total, _, _, cpu, _ = rows[-1]
            timing_only = total / cpu
        for total, events, wall, cpu, sat in rows:
            print(f"{total:>8} {events:>7} {'on' if check else 'off':>10} {dram or '1382.4':>9} {sat:>8.1%} "
                  f"{wall:>8.3f} {cpu:>8.3f} {total / cpu:>14.0f}")
        if len(rows) >= 2:
            (n0, _, _, t0, _), (n1, _, _, t1, _) = rows[0], rows[-1]
            print(f"{'':>8} scaling t({n1})/t({n0}) = {t1 / t0:.2f} (linear: {n1 / n0:.2f})")
    print(f"timing-only at {sizes[-1]} tasks, race check off: {timing_only / 1e3:.0f}k tasks/s "
          f"(target >= {TARGET / 1e3:.0f}k: {'met' if timing_only >= TARGET else 'not met'})")
    gc_was = gc.isenabled()
    gc.disable()  # as emulate runs
    try:
        phases = bench_phases(sizes[-1], args.streams, args.repeat)
    finally:
        if gc_was:
            gc.enable()
    print(f"where the CPU time goes at {sizes[-1]} tasks (best of {args.repeat} each): "
          + ", ".join(f"{name} {t * 1e3:.0f} ms ({t / sum(phases):.0%})"
                      for name, t in zip(("compile", "event loop", "report"), phases)))
    print(f"numeric mode against the interpreter, best of {args.repeat}:")
    for line in bench_resnet(args.resnet, args.repeat):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
