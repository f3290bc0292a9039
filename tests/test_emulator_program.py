"""The emulator's program compiler as a specification of what it may skip:
kernels compiled once and kept (:class:`KernelRows`, a judge measuring many
plans of one graph) compile to exactly the program a fresh compile gives, and
a kept row never hides a diagnostic the new task list deserves; a program
knows whether it holds control tasks (the simulator skips the control pass
when it does not)."""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.emulator.program import KernelRows, compile_program
from geir.backends.task_list import (ARENA, UB, WEIGHTS, EndGraph, Kernel, LabelGoto, LabelSet, Record, Stream, TaskList,
                                     TensorRef, Wait)
from geir.diagnostics import DiagnosticError
from geir.parser import parse_module
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline
from geir.passes.scheduling.evaluate import evaluate
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem
from scheduling_graphs import dags, random_dag_text, random_plan

_SKIP = {"task_list", "tasks", "warnings"}


def _fields(program: object) -> dict[str, object]:
    return {f.name: getattr(program, f.name) for f in attrs.fields(type(program)) if f.name not in _SKIP}


def _kernels(n: int, arena: int, seed: int) -> list[Kernel]:
    """Kernels over random arena and weight ranges, some with an absent input."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        shape = (1, rng.choice((4, 16, 64)), 8, 8)
        ref = TensorRef(ARENA, rng.randrange(0, arena // 2, 32), shape, "f16")
        ins: list[TensorRef | None] = [TensorRef(ARENA, rng.randrange(0, arena // 2, 32), shape, "f16")]
        if rng.random() < 0.3:
            ins.append(None)
        if rng.random() < 0.3:
            ins.append(TensorRef(WEIGHTS, 0, (shape[1], shape[1], 1, 1), "f16"))
        out.append(Kernel(op=rng.choice(("ge.add", "ge.relu", "ge.conv2d")), engine="AICore", inputs=ins,
                          outputs=[ref], flops=float(rng.randrange(1, 10**6)), bytes=float(ref.nbytes), loc=f"k{k}"))
    return out


def _task_list(kernels: list[Kernel], streams: int, arena: int, rng: random.Random) -> TaskList:
    queues: list[list] = [[] for _ in range(streams)]
    for k in kernels:
        queues[rng.randrange(streams)].append(k)
    queues[0].insert(0, Record(0))
    queues[-1].insert(0, Wait(0))
    return TaskList(streams=[Stream(i, 0, q + [EndGraph()]) for i, q in enumerate(queues)], arena_size=arena,
                    num_events=1, weight_size=1 << 20)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_kept_rows_compile_to_the_fresh_program(n: int, streams: int, seed: int) -> None:
    """Task lists that reshuffle the same Kernel objects compile, with one
    KernelRows kept across them, to the program a fresh cost model gives."""
    profile = load_profile("910B2", [])
    kernels = _kernels(n, 1 << 16, seed)
    rng = random.Random(seed)
    cost = CostModel(profile)
    rows = KernelRows()
    for _ in range(3):
        tl = _task_list(kernels, streams, 1 << 16, rng)
        kept = compile_program(tl, cost, reuse=rows)
        fresh = compile_program(tl, CostModel(profile))
        assert _fields(kept) == _fields(fresh)
    assert set(rows.rows) == {id(k) for k in kernels}


def test_kept_rows_do_not_hide_a_ref_outside_a_smaller_arena() -> None:
    """A row checked against one arena is not trusted for a smaller one."""
    cost = CostModel(load_profile("910B2", []))
    kernel = Kernel(op="ge.relu", engine="AICore", inputs=[TensorRef(ARENA, 0, (1024,), "f16")],
                    outputs=[TensorRef(ARENA, 2048, (1024,), "f16")], loc="r")
    rows = KernelRows()
    compile_program(TaskList(streams=[Stream(0, 0, [kernel, EndGraph()])], arena_size=4096), cost, reuse=rows)
    with pytest.raises(DiagnosticError, match=r"output #0 \[2048, 4096\) lies outside the arena of 3000 bytes"):
        compile_program(TaskList(streams=[Stream(0, 0, [kernel, EndGraph()])], arena_size=3000), cost, reuse=rows)


def test_a_unified_buffer_ref_stays_inside_the_unified_buffer() -> None:
    """A fused chain's intermediate is checked against ``ub_size``, and takes
    no part in the arena's race and traffic tables."""
    cost = CostModel(load_profile("910B2", []))
    conv = Kernel(op="ge.relu", engine="AICore", inputs=[TensorRef(ARENA, 0, (1024,), "f16")],
                  outputs=[TensorRef(UB, 0, (1024,), "f16")], loc="c")
    relu = Kernel(op="ge.relu", engine="AICore", inputs=[TensorRef(UB, 0, (1024,), "f16")],
                  outputs=[TensorRef(ARENA, 2048, (1024,), "f16")], loc="r", attributes={"fused_operand": 0})
    program = compile_program(TaskList(streams=[Stream(0, 0, [conv, relu, EndGraph()])], arena_size=4096,
                                       ub_size=2048), cost)
    assert sorted(program.read_table[1::3]) == [0] and sorted(program.write_table[1::3]) == [2048]
    with pytest.raises(DiagnosticError, match=r"output #0 \[0, 2048\) lies outside the unified buffer of 1024 bytes"):
        compile_program(TaskList(streams=[Stream(0, 0, [conv, relu, EndGraph()])], arena_size=4096, ub_size=1024),
                        cost)


def test_kept_rows_belong_to_one_cost_model() -> None:
    """Rows costed on one device are not reused on another."""
    kernel = Kernel(op="ge.add", engine="AICore", inputs=[TensorRef(ARENA, 0, (64, 64), "f16")] * 2,
                    outputs=[TensorRef(ARENA, 8192, (64, 64), "f16")], flops=4096.0, bytes=3 * 8192.0)
    tl = TaskList(streams=[Stream(0, 0, [kernel, EndGraph()])], arena_size=16384)
    rows = KernelRows()
    for device in ("910B2", "310P3", "910B2"):
        cost = CostModel(load_profile(device, []))
        assert compile_program(tl, cost, reuse=rows).duration == compile_program(tl, CostModel(cost.profile)).duration


def test_a_program_knows_whether_it_holds_control_tasks() -> None:
    cost = CostModel(load_profile("910B2", []))
    plain = TaskList(streams=[Stream(0, 0, [Record(0), Wait(0), EndGraph()])], num_events=1)
    looping = TaskList(streams=[Stream(0, 0, [LabelSet(0), LabelGoto(1), LabelSet(1), EndGraph()])])
    assert not compile_program(plain, cost).has_control
    assert compile_program(looping, cost).has_control


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(2, 16), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_a_judge_keeping_rows_measures_what_a_fresh_emulation_does(dag: tuple[int, int], max_streams: int,
                                                                   seed: int) -> None:
    """evaluate() with the problem's kernels kept gives every plan the
    makespan and lower bound it gets without."""
    module = parse_module(random_dag_text(*dag), "judge.mlir")
    PassManager(parse_pipeline("assign-engines")).run(module)
    problem = ScheduleProblem.build(OpGraph.build(next(module.graphs())), max_streams, "910B2")
    rng = random.Random(seed)
    rows = KernelRows()
    for _ in range(4):
        plan = random_plan(problem, rng)
        assert evaluate(problem, plan, kernel_rows=rows) == evaluate(problem, plan)
