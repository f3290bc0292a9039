"""Peak live bytes as a specification: the report's figure (computed with
numpy over all accesses at once) is what walking the run task by task in
start order gives — a value lives from its writer's start to its last
reader's end, an exact overwrite ends it, graph inputs live from 0 and graph
outputs to the end (one written at the very end is live then) — on random runs with overlapping and repeated ranges,
inputs, outputs and stalled tasks."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.emulator.liveness import peak_live_bytes
from geir.backends.emulator.simulator import INF, Schedule
from geir.backends.task_list import ARENA, Binding, EndGraph, Kernel, Record, Stream, TaskList, TensorRef, Wait


def walked_peak(schedule: Schedule) -> tuple[int, float]:
    """The peak found by walking the accesses one by one, in start order."""
    program = schedule.program
    start, end = schedule.start, schedule.end
    values: list[list[float]] = []  # [alloc, free, size]
    live: dict[tuple[int, int], int] = {}
    for b in program.task_list.inputs:
        if b.ref.space == ARENA and b.ref.nbytes:
            live[(b.ref.offset, b.ref.end)] = len(values)
            values.append([0.0, 0.0, b.ref.nbytes])
    touching = [g for g in range(program.n) if (program.reads[g] or program.writes[g]) and start[g] != INF]
    for g in sorted(touching, key=lambda g: (start[g], g)):
        for key in program.reads[g] or ():
            i = live.get(key)
            if i is not None:
                values[i][1] = max(values[i][1], end[g])
        for key in program.writes[g] or ():
            old = live.get(key)
            if old is not None:
                values[old][1] = min(values[old][1], start[g])
            live[key] = len(values)
            values.append([start[g], end[g], key[1] - key[0]])
    late: set[int] = set()
    for b in program.task_list.outputs:
        i = live.get((b.ref.offset, b.ref.end))
        if i is not None:
            values[i][1] = max(values[i][1], schedule.makespan)
            if values[i][1] <= values[i][0]:
                late.add(i)  # written at the very end: live then
    # frees before allocations at one instant (but an output's written at the end after them);
    # the first time the peak is reached
    changes = sorted([(a, 1, size) for a, _, size in values]
                     + [(f, 2 if i in late else 0, -size) for i, (_, f, size) in enumerate(values)])
    changes = [(time, delta) for time, _, delta in changes]
    best, at, running = 0, 0.0, 0
    for time, delta in changes:
        running += delta
        if running > best:
            best, at = running, time
    return best, at


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 4), st.booleans(), st.integers(0, 2**31 - 1))
def test_peak_live_bytes_is_the_walked_peak(n: int, streams: int, stall: bool, seed: int) -> None:
    rng = random.Random(seed)
    refs = [TensorRef(ARENA, rng.choice((0, 64, 128, 256)), (rng.choice((8, 16, 32)),), "f32") for _ in range(6)]
    queues: list[list] = [[] for _ in range(streams)]
    event = 0
    for _ in range(n):
        s = rng.randrange(streams)
        if streams > 1 and rng.random() < 0.3:
            other = (s + 1) % streams
            queues[s].append(Record(event))
            queues[other].append(Wait(event))
            event += 1
        queues[s].append(Kernel(op="ge.relu", engine=rng.choice(("AICore", "VectorCore")),
                                inputs=rng.sample(refs, rng.randrange(0, 3)), outputs=rng.sample(refs, rng.randrange(1, 3)),
                                flops=float(rng.randrange(1, 10**5)), bytes=256.0))
    if stall:
        queues[rng.randrange(streams)].insert(rng.randrange(3), Wait(event))  # never recorded
        event += 1
    tl = TaskList(streams=[Stream(i, 0, q + [EndGraph()]) for i, q in enumerate(queues)], arena_size=512,
                  inputs=[Binding(f"x{i}", r) for i, r in enumerate(rng.sample(refs, 2))],
                  outputs=[Binding(f"y{i}", r) for i, r in enumerate(rng.sample(refs, 2))], num_events=event)
    result = emulate(tl, None, EmulatorOptions(timing_only=True, check_races=False, progress=False))
    peak, at = peak_live_bytes(result.schedule)
    want_peak, want_at = walked_peak(result.schedule)
    assert peak == want_peak
    if peak:
        assert at == want_at


def test_liveness_off_leaves_out_only_the_peak() -> None:
    """A run that asks for no liveness reports everything else alike."""
    ref = TensorRef(ARENA, 0, (64,), "f32")
    tl = TaskList(streams=[Stream(0, 0, [Kernel(op="ge.relu", engine="AICore", inputs=[ref], outputs=[ref],
                                                flops=64.0, bytes=512.0), EndGraph()])], arena_size=256,
                  inputs=[Binding("x", ref)], outputs=[Binding("y", ref)])
    full = emulate(tl, None, EmulatorOptions(timing_only=True, progress=False))
    lean = emulate(tl, None, EmulatorOptions(timing_only=True, progress=False, liveness=False))
    assert full.report["peak_live_bytes"] == 256
    assert lean.report["peak_live_bytes"] is None and lean.report["peak_live_at_us"] is None
    skip = {"peak_live_bytes", "peak_live_at_us"}
    assert {k: v for k, v in lean.report.items() if k not in skip} == \
        {k: v for k, v in full.report.items() if k not in skip}
    assert "peak live not computed" in lean.text()


def test_a_fused_chain_takes_its_result_when_its_head_starts() -> None:
    """A UB-fused chain is one kernel: while its head runs, its input and the
    result its last op writes are live together, and the result of a chain
    that ends the run is live at the end."""
    from geir.backends.task_list import UB
    from geir.attributes import IntegerAttr
    x, y = TensorRef(ARENA, 0, (64,), "f32"), TensorRef(ARENA, 256, (64,), "f32")
    mid = TensorRef(UB, 0, (64,), "f32")
    head = Kernel(op="ge.relu", engine="AICore", inputs=[x], outputs=[mid], flops=1e6, bytes=512.0)
    fused = Kernel(op="ge.neg", engine="AICore", inputs=[mid], outputs=[y], attributes={"fused_operand": IntegerAttr(0)})
    tl = TaskList(streams=[Stream(0, 0, [head, fused, EndGraph()])], arena_size=512, ub_size=256,
                  inputs=[Binding("x", x)], outputs=[Binding("y", y)])
    result = emulate(tl, None, EmulatorOptions(timing_only=True, progress=False))
    peak, at = peak_live_bytes(result.schedule)
    assert peak == 512 and at == result.schedule.start[0]
