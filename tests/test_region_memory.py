"""reuse-memory inside control-flow regions: the branches of an if overlap, a
loop body's tensors are reused by every trip, region tensors reuse each
other's bytes, and every plan runs race-free and equal to the interpreter."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.emulator import emulate
from geir.backends.interpreter import Interpreter
from geir.backends.model_compile import task_list_of
from geir.backends.task_list import Kernel, Memcpy, TaskList
from geir.module import Module
from geir.operation import Operation
from geir.parser import parse_module
from geir.passes.memory.arena_plan import overlaps
from geir.passes.memory.region_plan import plan_regions
from geir.passes.pass_base import PassContext
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline
from geir.passes.reuse_memory import plan_graph

T = "tensor<128xf32>"  # 512 B: one aligned unit per tensor
SIZE = 512


def _run(module: Module, pipeline: str) -> PassContext:
    ctx = PassContext()
    PassManager(parse_pipeline(pipeline)).run(module, ctx)
    return ctx


def _graph(module: Module) -> Operation:
    return next(iter(module.graphs()))


def _ops(module: Module) -> dict[str, Operation]:
    """Every op with a named first result, regions included."""
    return {op.results[0].name_hint: op for op in _graph(module).walk() if op.results and op.results[0].name_hint}


def _offset(op: Operation) -> int:
    return int(op.get_attr("offsets")[0])  # type: ignore[index]


IF_TEXT = f"""
ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{
  %r = ge.if %p ({{
    %a = ge.relu %x : ({T}) -> {T}
    %b = ge.neg %a : ({T}) -> {T}
    %c = ge.abs %b : ({T}) -> {T}
    %d = ge.sigmoid %c : ({T}) -> {T}
    ge.yield %d : ({T}) -> ()
  }}, {{
    %e = ge.tanh %x : ({T}) -> {T}
    %f = ge.neg %e : ({T}) -> {T}
    ge.yield %f : ({T}) -> ()
  }}) : (tensor<i1>) -> {T}
  %y = ge.add %r, %x : ({T}, {T}) -> {T}
  ge.return %y : ({T}) -> ()
}}
"""

LOOP_TEXT = f"""
ge.graph @main(%m: tensor<i64> {{ge.name = "m"}}, %x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{
  %c = ge.const {{value = dense<true> : tensor<i1>}} : () -> tensor<i1>
  %l = ge.loop %m, %c, %x ({{
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %v: {T}):
    %a = ge.mul %v, %x : ({T}, {T}) -> {T}
    %b = ge.tanh %a : ({T}) -> {T}
    %s = ge.sigmoid %b : ({T}) -> {T}
    %e = ge.add %s, %v : ({T}, {T}) -> {T}
    ge.yield %ci, %e : (tensor<i1>, {T}) -> ()
  }}) : (tensor<i64>, tensor<i1>, {T}) -> {T}
  %y = ge.neg %l : ({T}) -> {T}
  ge.return %y : ({T}) -> ()
}}
"""


def test_the_branches_of_an_if_start_at_one_base_and_reuse_inside() -> None:
    module = parse_module(IF_TEXT)
    _run(module, "reuse-memory")
    ops = _ops(module)
    base = min(_offset(ops[k]) for k in "abc")
    # then: a chain of three temporaries needs two buffers; else: one; both from the if's region buffer
    assert {_offset(ops[k]) for k in "abc"} == {base, base + SIZE}
    assert _offset(ops["e"]) == base
    # a value a branch computes and yields once lives in the if's result
    assert _offset(ops["d"]) == _offset(ops["f"]) == _offset(ops["r"])
    memory = dict(_graph(module).get_attr("ge.memory"))  # type: ignore[arg-type]
    assert memory["regions"] == 2 * SIZE  # the larger branch, not both
    assert memory["no_reuse"] == 5 * SIZE  # r, a, b, c and e: every tensor its own bytes
    assert int(_graph(module).get_attr("ge.arena_bytes")) == memory["lower_bound"]


def test_a_loop_body_is_planned_once_for_every_trip() -> None:
    module = parse_module(LOOP_TEXT)
    _run(module, "reuse-memory")
    ops = _ops(module)
    body = [_offset(ops[k]) for k in "abse"]
    assert len(set(body[:3])) == 2  # a dies into b, b into s: two buffers for the chain
    # the yielded value is no carried buffer (the trip's end copies it there) and not its operand's
    assert body[3] not in (_offset(ops["l"]), body[2])
    memory = dict(_graph(module).get_attr("ge.memory"))  # type: ignore[arg-type]
    assert memory["regions"] == 2 * SIZE
    assert memory["no_reuse"] > int(_graph(module).get_attr("ge.arena_bytes"))


def test_region_buffers_are_remarked_with_their_bound() -> None:
    module = parse_module(IF_TEXT)
    ctx = _run(module, "reuse-memory")
    remarks = [d.message for d in ctx.diagnostics if d.severity == "remark" and d.message.startswith("regions")]
    assert remarks == [f"regions {2 * SIZE} B ({2 * SIZE} B, {SIZE} B), lower bound {2 * SIZE} B, "
                       f"no reuse {4 * SIZE} B"]


def test_the_branches_of_a_case_share_one_base_and_run_equal_to_the_interpreter() -> None:
    text = f"""
    ge.graph @main(%i: tensor<i32> {{ge.name = "i"}}, %x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{
      %r = ge.case %i ({{
        %a = ge.relu %x : ({T}) -> {T}
        %a2 = ge.neg %a : ({T}) -> {T}
        ge.yield %a2 : ({T}) -> ()
      }}, {{
        %b = ge.neg %x : ({T}) -> {T}
        %b2 = ge.abs %b : ({T}) -> {T}
        %b3 = ge.tanh %b2 : ({T}) -> {T}
        ge.yield %b3 : ({T}) -> ()
      }}, {{
        ge.yield %x : ({T}) -> ()
      }}) : (tensor<i32>) -> {T}
      %y = ge.add %r, %x : ({T}, {T}) -> {T}
      ge.return %y : ({T}) -> ()
    }}
    """
    module = parse_module(text)
    _run(module, "reuse-memory")
    ops = _ops(module)
    assert _offset(ops["a"]) == _offset(ops["b"])  # one base for every branch
    assert _offset(ops["a2"]) == _offset(ops["b3"]) == _offset(ops["r"])  # computed yields: the result
    assert dict(_graph(module).get_attr("ge.memory"))["regions"] == 2 * SIZE  # type: ignore[arg-type]
    _run(module, "lower-to-tasks")
    tl = task_list_of(module)
    x = np.linspace(-2, 2, 128, dtype=np.float32)
    for index in (0, 1, 2, 7):
        feeds = {"i": np.array(index, np.int32), "x": x}
        out = emulate(tl, feeds)
        np.testing.assert_array_equal(out.outputs["y"], Interpreter(parse_module(text)).run(feeds)["y"])
        assert out.races == [] and not out.report["uninitialised_reads"]


def test_every_region_plan_is_valid_and_no_larger_than_its_tensors() -> None:
    for text in (IF_TEXT, LOOP_TEXT):
        graph = _graph(parse_module(text))
        regions = plan_regions(graph, "best")
        assert regions.regions and not regions.skipped
        for rm in regions.regions:
            assert overlaps(rm.plan) == []
            assert rm.bound.bytes <= rm.plan.arena_bytes <= rm.problem.no_reuse_bytes
        result = plan_graph(graph)
        assert overlaps(result.plan) == []
        assert result.bound.bytes <= result.plan.arena_bytes <= result.no_reuse_bytes


def test_a_scan_the_sink_cannot_run_keeps_its_regions_unplanned() -> None:
    """A backwards scan runs host-driven: its body gets no offsets, and a remark says why."""
    text = f"""
    ge.graph @main(%s0: {T}, %xs: tensor<3x128xf32>) -> ({T}, tensor<3x128xf32>) {{
      %s, %z = ge.scan %s0, %xs ({{
      ^bb0(%si: {T}, %xi: {T}):
        %n = ge.add %si, %xi : ({T}, {T}) -> {T}
        %q = ge.neg %n : ({T}) -> {T}
        ge.yield %q, %q : ({T}, {T}) -> ()
      }}) {{num_scan_inputs = 1 : i64, scan_input_directions = [1]}} : ({T}, tensor<3x128xf32>) -> ({T}, tensor<3x128xf32>)
      ge.return %s, %z : ({T}, tensor<3x128xf32>) -> ()
    }}
    """
    module = parse_module(text)
    regions = plan_regions(_graph(module))
    assert not regions.scratch and "scan_input_directions" in regions.skipped[0][1]
    ctx = _run(module, "reuse-memory")
    assert not any("offsets" in op.attributes for op in _graph(module).walk() if op.name in ("ge.add", "ge.neg"))
    assert any(d.message.startswith("regions not planned") for d in ctx.diagnostics)


def test_memory_priority_moves_region_buffers_with_their_control_op() -> None:
    module = parse_module(IF_TEXT)
    _run(module, "assign-engines,partition-streams{strategy=ge},insert-events,"
                 "reuse-memory{memory-priority=true},lower-to-tasks")
    tl = task_list_of(module)
    for p in (True, False):
        out = emulate(tl, {"p": np.array(p), "x": np.linspace(-2, 2, 128, dtype=np.float32)})
        assert out.races == [] and not out.report["uninitialised_reads"]


def test_the_sink_writes_a_branch_value_into_the_result_without_a_copy() -> None:
    module = parse_module(IF_TEXT)
    _run(module, "reuse-memory,lower-to-tasks")
    tl = task_list_of(module)
    assert not any(isinstance(t, Memcpy) for s in tl.streams for t in s.tasks)
    kernels = {t.op: t for s in tl.streams for t in s.tasks if isinstance(t, Kernel)}
    # the result the add reads is what either branch's last kernel wrote
    assert kernels["ge.add"].inputs[0] == kernels["ge.sigmoid"].outputs[0]
    else_neg = [t for s in tl.streams for t in s.tasks if isinstance(t, Kernel) and t.op == "ge.neg"][-1]
    assert else_neg.outputs[0] == kernels["ge.sigmoid"].outputs[0]


# ---------------------------------------------------------------- property

UNARY = ("relu", "neg", "abs", "tanh", "sigmoid")
BINARY = ("add", "sub", "mul", "max", "min")


@st.composite
def control_graphs(draw: Callable[..., Any]) -> str:
    """A random graph of elementwise ops, ifs and loops (nested up to two deep)
    over ``%x``; conditions are inputs or, inside a loop, computed per trip."""
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"v{counter[0]}"

    def block(values: list[str], depth: int, indent: str, conds: list[str], lines: list[str]) -> list[str]:
        local: list[str] = []
        for _ in range(draw(st.integers(1, 4))):
            kinds = ["unary", "binary"] + (["if", "loop"] if depth < 2 else [])
            kind = draw(st.sampled_from(kinds))
            name = fresh()
            avail = values + local
            if kind == "unary":
                lines.append(f"{indent}%{name} = ge.{draw(st.sampled_from(UNARY))} %{draw(st.sampled_from(avail))} "
                             f": ({T}) -> {T}")
            elif kind == "binary":
                a, b = draw(st.sampled_from(avail)), draw(st.sampled_from(avail))
                lines.append(f"{indent}%{name} = ge.{draw(st.sampled_from(BINARY))} %{a}, %{b} : ({T}, {T}) -> {T}")
            elif kind == "if":
                cond = draw(st.sampled_from(conds))
                n = draw(st.integers(1, 2))
                types = ", ".join([T] * n)
                lines.append(f"{indent}%{name}{':2' if n == 2 else ''} = ge.if %{cond} ({{")
                for k in range(2):
                    inner = block(avail, depth + 1, indent + "  ", conds, lines)
                    ys = [draw(st.sampled_from(inner + avail)) for _ in range(n)]
                    lines.append(f"{indent}  ge.yield {', '.join('%' + y for y in ys)} : ({types}) -> ()")
                    lines.append(f"{indent}}}, {{" if k == 0 else f"{indent}}}) : (tensor<i1>) -> ({types})")
                local += [name] if n == 1 else [f"{name}#0", f"{name}#1"]
                continue
            else:
                i, ci, v = fresh(), fresh(), fresh()
                init = draw(st.sampled_from(avail))
                lines.append(f"{indent}%{name} = ge.loop %m, %c, %{init} ({{")
                lines.append(f"{indent}^bb0(%{i}: tensor<i64>, %{ci}: tensor<i1>, %{v}: {T}):")
                s, k = fresh(), fresh()
                lines.append(f"{indent}  %{s} = ge.reduce_sum %{v} {{keepdims = 0 : i64}} : ({T}) -> tensor<f32>")
                lines.append(f"{indent}  %{k} = ge.less %{s}, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>")
                inner = block(avail + [v], depth + 1, indent + "  ", conds + [k], lines)
                go = draw(st.sampled_from([ci, "keep"]))
                if go == "keep":
                    go = fresh()
                    lines.append(f"{indent}  %{go} = ge.xor %{ci}, %p : (tensor<i1>, tensor<i1>) -> tensor<i1>")
                y = draw(st.sampled_from(inner + [v] + avail))
                lines.append(f"{indent}  ge.yield %{go}, %{y} : (tensor<i1>, {T}) -> ()")
                lines.append(f"{indent}}}) : (tensor<i64>, tensor<i1>, {T}) -> {T}")
            local.append(name)
        return local

    lines: list[str] = []
    local = block(["x"], 0, "  ", ["p"], lines)
    out = local[-1]
    head = (f'ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %m: tensor<i64> {{ge.name = "m"}}, '
            f'%c: tensor<i1> {{ge.name = "c"}}, %x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{\n'
            f'  %zero = ge.const {{value = dense<0.0> : tensor<f32>}} : () -> tensor<f32>\n')
    return head + "\n".join(lines) + f"\n  ge.return %{out} : ({T}) -> ()\n}}\n"


def _lowered(text: str, pipeline: str) -> TaskList:
    module = parse_module(text)
    _run(module, pipeline)
    return task_list_of(module)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=control_graphs(), streams=st.booleans(), in_place=st.booleans(), p=st.booleans(),
       m=st.integers(0, 3), c=st.booleans(), seed=st.integers(0, 3))
def test_region_plans_run_race_free_equal_to_the_interpreter_in_no_more_bytes(
        text: str, streams: bool, in_place: bool, p: bool, m: int, c: bool, seed: int) -> None:
    """Random if/loop graphs with reuse-memory on: the sink's outputs are the
    interpreter's, nothing races or reads unwritten bytes, and the arena is no
    larger than the lowering's without reuse."""
    schedule = "assign-engines,partition-streams{strategy=ge},insert-events," if streams else ""
    planned = _lowered(text, f"{schedule}reuse-memory{{in-place={str(in_place).lower()}}},lower-to-tasks")
    fresh = _lowered(text, f"{schedule}lower-to-tasks")
    x = np.random.default_rng(seed).uniform(-2, 2, 128).astype(np.float32)
    feeds = {"p": np.array(p), "m": np.array(m, np.int64), "c": np.array(c), "x": x}
    result = emulate(planned, feeds)
    expected = Interpreter(parse_module(text)).run(feeds)["y"]
    np.testing.assert_array_equal(result.outputs["y"], expected)
    assert result.races == [] and not result.report["uninitialised_reads"]
    assert planned.arena_size <= fresh.arena_size


# ---------------------------------------------------------------- the graph bound counts trips

def _bound(text: str) -> Any:
    from geir.passes.scheduling.lower_bound import graph_lower_bound
    from geir.passes.scheduling.op_graph import OpGraph
    from geir.passes.scheduling.problem import ScheduleProblem
    module = parse_module(text)
    _run(module, "assign-engines")
    return graph_lower_bound(ScheduleProblem.build(OpGraph.build(_graph(module)), 8))


def _constant_trips(text: str, trips: int) -> str:
    """``text`` with every loop's trip count and condition made constants (its condition yielded back)."""
    consts = (f'  %trips = ge.const {{value = dense<{trips}> : tensor<i64>}} : () -> tensor<i64>\n'
              f'  %always = ge.const {{value = dense<true> : tensor<i1>}} : () -> tensor<i1>\n')
    head, body = text.split("{\n", 1)
    return head + "{\n" + consts + body.replace("ge.loop %m, %c,", "ge.loop %trips, %always,")


def test_the_graph_bound_counts_every_trip_of_a_constant_loop() -> None:
    few, more, many = (_bound(_constant_trips(LOOP_TEXT, t)) for t in (8, 16, 64))
    assert [list(b.trips.values()) for b in (few, more, many)] == [[8], [16], [64]]
    assert few.per_trip == more.per_trip == many.per_trip == ()
    # the ops around the loop count once, each trip its body: 56 trips weigh 7 times 8
    assert many.bound_us - few.bound_us == pytest.approx(7 * (more.bound_us - few.bound_us), rel=1e-6)
    assert more.bound_us > few.bound_us


def test_a_loop_whose_trip_count_is_a_value_makes_the_bound_per_trip() -> None:
    bound = _bound(LOOP_TEXT)
    assert bound.trips == {} and len(bound.per_trip) == 1 and bound.bound_us > 0


def test_an_if_counts_the_lighter_branch() -> None:
    both = _bound(IF_TEXT)
    light = _bound(IF_TEXT.replace("%d = ge.sigmoid %c", "%d = ge.sigmoid %x"))
    lighter = _bound(IF_TEXT.replace("%e = ge.tanh %x : ({T}) -> {T}\n    %f = ge.neg %e".replace("{T}", T),
                                     "%f = ge.neg %x"))
    assert light.bound_us == pytest.approx(both.bound_us)  # the then branch is not the lighter one
    assert lighter.bound_us < both.bound_us


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=control_graphs(), trips=st.integers(0, 3), p=st.booleans())
def test_the_sink_never_beats_the_graph_bound_of_its_trips(text: str, trips: int, p: bool) -> None:
    """Loops of a constant trip count: whatever branches run, the emulated sink
    takes at least the graph bound, which counts every trip."""
    from geir.backends.model_compile import graph_bound
    text = _constant_trips(text, trips)
    module = parse_module(text)
    _run(module, "assign-engines,partition-streams{strategy=ge},insert-events")
    bound = graph_bound(_graph(module), "910B2")
    assert bound is not None
    _run(module, "reuse-memory,lower-to-tasks")
    feeds = {"p": np.array(p), "m": np.array(trips, np.int64), "c": np.array(True),
             "x": np.linspace(-1, 1, 128).astype(np.float32)}
    makespan = emulate(task_list_of(module), feeds).report["makespan_us"]
    if not bound["per_trip"]:
        assert makespan >= bound["bound_us"] - 1e-6
