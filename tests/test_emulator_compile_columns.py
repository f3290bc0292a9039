"""The emulator's program compiler reads a task list column-wise (records, waits
and end markers with numpy, kernels one by one); as a specification, every row
of the program is what its task alone compiles to, whatever surrounds it, and
the diagnostics of a malformed list come in task order, cut after the task at
which ``max_errors`` of them are found."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.emulator.program import compile_program
from geir.backends.task_list import (ARENA, WEIGHTS, EndGraph, Kernel, Memcpy, Record, Stream, Task, TaskList,
                                     TensorRef, Wait)
from geir.diagnostics import DiagnosticError

_COST = CostModel(load_profile("910B2", []))
_ARENA = 1 << 16
_COLUMNS = ("kind", "pool", "units", "duration", "event", "reads", "writes")


def _ref(rng: random.Random, bad: float) -> TensorRef:
    """An arena or weight ref; with probability ``bad`` one a compiler must refuse."""
    shape = (rng.choice((1, 4, 16)), rng.choice((0, 8, 64)))
    if rng.random() < bad:
        return TensorRef(rng.choice((ARENA, "bogus")), rng.choice((-512, _ARENA)), shape, "f32")
    space = ARENA if rng.random() < 0.8 else WEIGHTS
    return TensorRef(space, rng.randrange(0, _ARENA // 2, 64), shape, rng.choice(("f16", "f32")))


def _task(rng: random.Random, bad: float) -> Task:
    r = rng.random()
    if r < 0.25:
        return Record(-1 if rng.random() < bad else rng.randrange(4))
    if r < 0.5:
        return Wait(-2 if rng.random() < bad else rng.randrange(4))
    if r < 0.9:
        ins: list[TensorRef | None] = [_ref(rng, bad) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))]
        if ins and rng.random() < 0.1:
            ins[0] = None  # an absent optional input
        outs = [_ref(rng, bad) for _ in range(rng.choice((1, 1, 1, 2)))]
        outs = [o if o.space != WEIGHTS or rng.random() < bad else _in_arena(o) for o in outs]
        return Kernel(op=rng.choice(("ge.add", "ge.relu", "ge.matmul")), engine=rng.choice(("AICore", "VectorCore")),
                      inputs=ins, outputs=outs, flops=float(rng.randrange(1, 10**5)), bytes=64.0, loc=f"n{r:.3f}")
    if r < 0.95:
        src = _ref(rng, bad)
        return Memcpy(src, TensorRef(ARENA, rng.randrange(0, _ARENA // 2, 64), src.shape, src.dtype))
    return EndGraph()


def _in_arena(ref: TensorRef) -> TensorRef:
    """``ref`` moved to the arena (an output must not write the weights)."""
    return TensorRef(ARENA, ref.offset, ref.shape, ref.dtype)


def _task_list(streams: list[list[Task]]) -> TaskList:
    return TaskList(streams=[Stream(i, 0, ts) for i, ts in enumerate(streams)], arena_size=_ARENA,
                    weight_size=_ARENA, num_events=4)


def _streams(seed: int, bad: float) -> list[list[Task]]:
    rng = random.Random(seed)
    return [[_task(rng, bad) for _ in range(rng.randrange(0, 14))] for _ in range(rng.randrange(1, 5))]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_every_row_is_what_its_task_alone_compiles_to(seed: int) -> None:
    streams = _streams(seed, 0.0)
    program = compile_program(_task_list(streams), _COST)
    g = 0
    for ts in streams:
        for t in ts:
            alone = compile_program(_task_list([[t]]), _COST)
            for column in _COLUMNS:
                assert getattr(program, column)[g] == getattr(alone, column)[0], (column, t)
            g += 1
    # the flat tables the liveness reads are the ranges, task by task
    for table, ranges in ((program.read_table, program.reads), (program.write_table, program.writes)):
        assert table == [x for g, rs in enumerate(ranges) for lo, hi in rs or () for x in (g, lo, hi)]


def _where(message: str) -> tuple[int, int]:
    m = re.match(r"stream (\d+) task (\d+) ", message)
    assert m, message
    return int(m.group(1)), int(m.group(2))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_diagnostics_come_in_task_order_cut_after_the_task_that_reaches_max_errors(seed: int, limit: int) -> None:
    tl = _task_list(_streams(seed, 0.3))
    try:
        compile_program(tl, _COST, max_errors=10**6)
        return  # nothing wrong with this one
    except DiagnosticError as e:
        every = [d.message for d in e.diagnostics]
    places = [_where(m) for m in every]
    assert places == sorted(places)
    # the same task list compiled one task at a time finds the same problems
    alone: list[str] = []
    for s, st_ in enumerate(tl.streams):
        for i, t in enumerate(st_.tasks):
            try:
                compile_program(_task_list([[]] * s + [[EndGraph()] * i + [t]]), _COST, max_errors=10**6)
            except DiagnosticError as e:
                alone.extend(d.message for d in e.diagnostics)
    assert alone == every
    with_limit = []
    try:
        compile_program(tl, _COST, max_errors=limit)
    except DiagnosticError as e:
        with_limit = [d.message for d in e.diagnostics]
    assert with_limit == every[:len(with_limit)]
    if len(every) >= limit:
        cut = places[len(with_limit) - 1]
        assert len(with_limit) >= limit
        assert places[:len(with_limit)].count(cut) == places.count(cut)  # the last task's problems all reported
        assert places[limit - 1] == cut  # and no task after the one that reached the limit
    else:
        assert with_limit == every
