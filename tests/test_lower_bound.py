"""The schedule-independent lower bound as a specification: no plan — any
strategy's, or a random one — runs faster on the emulator than the bound, and
on small graphs whose best plan is obvious each term is exactly what it says."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.parser import parse_module
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline
from geir.passes.scheduling.evaluate import evaluate
from geir.passes.scheduling.lower_bound import graph_lower_bound, spread_delays, sync_heads, sync_tails
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan
from geir.passes.scheduling.strategies import get_strategy
from scheduling_graphs import dags, random_dag_text, random_plan

STRATEGIES = ("single", "ge", "ge-parallel", "chain-cover")
#: the emulator's report rounds times to the nanosecond
TOL_US = 1e-3


def _problem(text: str, max_streams: int, device: str = "910B2") -> ScheduleProblem:
    module = parse_module(text, "bound.mlir")
    PassManager(parse_pipeline("assign-engines")).run(module)
    return ScheduleProblem.build(OpGraph.build(next(module.graphs())), max_streams, device)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(2, 20), st.integers(1, 8), st.sampled_from((64, 4096, 65536)), st.integers(0, 2),
       st.integers(0, 2**31 - 1))
def test_no_plan_beats_the_bound(dag: tuple[int, int], max_streams: int, width: int, labels: int,
                                 seed: int) -> None:
    """Every strategy's plan and random plans emulate at or above the bound."""
    problem = _problem(random_dag_text(*dag, width=width, labels=labels), max_streams)
    bound = graph_lower_bound(problem)
    rng = random.Random(seed)
    plans = {name: get_strategy(name)(problem, 5.0) for name in STRATEGIES}
    plans.update({f"random {k}": random_plan(problem, rng) for k in range(4)})
    for name, plan in plans.items():
        makespan = evaluate(problem, plan).makespan_us
        assert makespan >= bound.bound_us - TOL_US, (name, makespan, bound.binding, bound.terms)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(3, 8), st.integers(2, 3))
def test_the_optimum_is_not_below_the_bound(dag: tuple[int, int], max_streams: int) -> None:
    """CP-SAT's schedule, proven optimal on these sizes for its model, emulates above the bound."""
    problem = _problem(random_dag_text(*dag), max_streams)
    plan = get_strategy("optimal")(problem, 5.0)
    assert evaluate(problem, plan).makespan_us >= graph_lower_bound(problem).bound_us - TOL_US


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags(2, 6), st.integers(2, 3))
def test_every_plan_of_a_small_graph_is_above_the_bound(dag: tuple[int, int], max_streams: int) -> None:
    """All stream assignments of a graph of at most six nodes, in block order:
    the fastest of them emulates at or above the bound."""
    problem = _problem(random_dag_text(*dag), max_streams)
    bound = graph_lower_bound(problem).bound_us
    order = list(range(problem.n))
    fastest = min(evaluate(problem, StreamPlan(list(streams), order)).makespan_us
                  for streams in itertools.product(range(max_streams), repeat=problem.n))
    assert fastest >= bound - TOL_US


# -- each term on a graph whose best plan is known ----------------------------

S = "tensor<4x64xf32>"


def _graph(body: list[str], result: str, t: str = S) -> str:
    lines = "\n".join(f"  {line}" for line in body)
    return (f"ge.graph @main(%x: {t}) -> ({t}) {{\n{lines}\n  ge.return {result} : ({t}) -> ()\n}}\n")


def test_a_join_pays_an_event_or_runs_in_sequence() -> None:
    """a -> (b, c) -> d: d waits for b and c in sequence on its stream, or for
    one of them across streams (a record, and a wait: a task on d's stream).
    The fork's own event is not counted in d's head: each of b and c alone
    could stay on a's stream. The branches cost the same, so no split of them
    across two streams beats the join's own bound."""
    problem = _problem(_graph([f"%a = ge.relu %x : ({S}) -> {S}", f"%b = ge.tanh %a : ({S}) -> {S}",
                               f"%c = ge.tanh %a : ({S}) -> {S}",
                               f"%d = ge.add %b, %c : ({S}, {S}) -> {S}"], "%d"), 2)
    d, sync = problem.durations, problem.sync_us
    record, wait = problem.model.record_us, problem.model.wait_us
    bound = graph_lower_bound(problem)
    assert bound.critical_path_us == pytest.approx(d[0] + max(d[1], d[2]) + d[3])
    late, early = max(d[1], d[2]), min(d[1], d[2])
    # both on d's stream; the later one there and the other's wait too; neither
    join = min(d[1] + d[2], max(late + wait, early + record + wait), late + sync)
    assert sync_heads(problem)[3] == pytest.approx(d[0] + join)
    # the mirror: a's record for the one that leaves is a task on a's stream
    fork = min(d[1] + d[2], max(late + record, early + wait + record), late + sync)
    assert sync_tails(problem)[0] == pytest.approx(fork + d[3])
    assert bound.sync_path_us == pytest.approx(d[0] + join + d[3])
    assert bound.sync_path_us > bound.critical_path_us
    # the best plans: all on one stream, or c moved (an event each way)
    for plan in (StreamPlan([0, 0, 0, 0], [0, 1, 2, 3]), StreamPlan([0, 0, 1, 0], [0, 1, 2, 3])):
        assert evaluate(problem, plan).makespan_us >= bound.bound_us - TOL_US


def test_kernels_wider_than_half_a_pool_run_one_at_a_time() -> None:
    """Two independent kernels that each need more than half of the AI cores
    never overlap, on any number of streams."""
    big = "tensor<64x64x56x56xf32>"
    problem = _problem(_graph([f"%a = ge.relu %x : ({big}) -> {big}", f"%b = ge.tanh %x : ({big}) -> {big}",
                               f"%c = ge.add %a, %b : ({big}, {big}) -> {big}"], "%c", big), 8)
    cap = problem.capacity(problem.pools[0])
    assert all(2 * problem.units(i) > cap for i in range(2)) and problem.pools[0] == problem.pools[1]
    bound = graph_lower_bound(problem)
    d = problem.durations
    assert bound.exclusion_us[problem.pools[0]] >= d[0] + d[1] + d[2] - TOL_US
    assert bound.bound_us >= d[0] + d[1] + d[2] - TOL_US


def test_a_window_counts_the_serial_time_around_a_parallel_phase() -> None:
    """x -> a -> eight independent ops -> a join chain: on two streams the eight
    take at least four of their durations, after a and before the join."""
    fan = [f"%b{k} = ge.tanh %a : ({S}) -> {S}" for k in range(8)]
    join = [f"%s0 = ge.add %b0, %b1 : ({S}, {S}) -> {S}"] + [
        f"%s{k - 1} = ge.add %s{k - 2}, %b{k} : ({S}, {S}) -> {S}" for k in range(2, 8)]
    problem = _problem(_graph([f"%a = ge.relu %x : ({S}) -> {S}", *fan, *join], "%s6"), 2)
    d = problem.durations
    fan_work = sum(d[1:9]) / 2
    bound = graph_lower_bound(problem)
    # heads of the fan are a's duration, tails at least the last add
    assert bound.window_us["streams"] >= d[0] + fan_work + d[-1] - TOL_US
    assert bound.window_us["streams"] > bound.streams_us


def test_a_phase_pays_the_broadcast_and_the_gather() -> None:
    """a -> eight independent ops -> a join: on eight streams the eight start
    only as a's finish reaches their streams and end as early as their
    finishes can reach the join's stream."""
    fan = [f"%b{k} = ge.tanh %a : ({S}) -> {S}" for k in range(8)]
    join = [f"%s0 = ge.add %b0, %b1 : ({S}, {S}) -> {S}"] + [
        f"%s{k - 1} = ge.add %s{k - 2}, %b{k} : ({S}, {S}) -> {S}" for k in range(2, 8)]
    problem = _problem(_graph([f"%a = ge.relu %x : ({S}) -> {S}", *fan, *join], "%s6"), 8)
    m = problem.model
    assert spread_delays(m.record_us, m.wait_us, 4) == [0.0, m.record_us + m.wait_us, 2 * m.record_us + m.wait_us,
                                                       2 * m.record_us + 2 * m.wait_us]
    d = problem.durations
    delays = sorted(a + b for a, b in zip(spread_delays(m.record_us, m.wait_us, 8),
                                          spread_delays(m.wait_us, m.record_us, 8)))
    # the last add is dominated by a; between them the fan and six adds
    heads = sync_heads(problem)
    work = sum(d[1:-1])
    fill = next(length for j in range(1, 9) if (length := (work + sum(delays[:j])) / j) <= (delays + [1e9])[j])
    assert heads[-1] >= d[0] + fill - TOL_US
    bound = graph_lower_bound(problem)
    for streams in ([0] * 16, [0, *range(8), *[0] * 7], [0, *[k % 4 for k in range(8)], *[0] * 7]):
        assert evaluate(problem, StreamPlan(streams, list(range(16)))).makespan_us >= bound.bound_us - TOL_US


def test_the_terms_name_what_binds() -> None:
    problem = _problem(_graph([f"%a = ge.relu %x : ({S}) -> {S}"], "%a"), 8)
    bound = graph_lower_bound(problem)
    assert bound.bound_us == pytest.approx(problem.durations[0])
    assert bound.binding == "critical path"
    assert set(bound.terms) >= {"critical path", "critical path with events", "streams", "DRAM bandwidth"}


def test_empty_graph_has_a_zero_bound() -> None:
    text = f"ge.graph @main(%x: {S}) -> ({S}) {{\n  ge.return %x : ({S}) -> ()\n}}\n"
    bound = graph_lower_bound(_problem(text, 2))
    assert bound.bound_us == 0.0 and bound.sync_path_us == 0.0


def test_an_unranked_tensor_costs_as_one_element() -> None:
    """A value whose rank is unknown (``tensor<*xf32>``, as a detector's
    post-processing leaves some) still gets a bound: it is costed as one element."""
    module = parse_module("""
ge.graph @main(%x: tensor<*xf32>) -> tensor<*xf32> {
  %y = ge.relu %x : (tensor<*xf32>) -> tensor<*xf32>
  ge.return %y : (tensor<*xf32>) -> ()
}""")
    PassManager(parse_pipeline("assign-engines")).run(module)
    graph = next(op for op in module.body.ops if op.name == "ge.graph")
    bound = graph_lower_bound(ScheduleProblem.build(OpGraph.build(graph), 8, "910B2"))
    assert bound.bound_us > 0


def test_an_omitted_optional_input_costs_what_the_lowering_charges() -> None:
    """A resize whose roi and scales are omitted (``ge.none``) reads only its image
    and sizes: the problem's kernel is the lowering's, so the bound stays below the
    makespan (an omitted input taken as an f32 scalar halved the vector rate)."""
    x, y = "tensor<1x256x16x16xf16>", "tensor<1x256x128x128xf16>"
    text = (f'ge.graph @main(%x: {x} {{ge.name = "x"}}) -> ({y} {{ge.name = "y"}}) {{\n'
            "  %none = ge.none : () -> none\n"
            "  %sizes = ge.const {value = dense<[1, 256, 128, 128]> : tensor<4xi64>} : () -> tensor<4xi64>\n"
            f'  %y = ge.resize %x, %none, %none, %sizes {{mode = "linear"}} : ({x}, none, none, tensor<4xi64>) -> {y}\n'
            f"  ge.return %y : ({y}) -> ()\n}}\n")
    problem = _problem(text, 1)
    (resize,) = [k for k in problem.kernels if k.op == "ge.resize"]
    assert [r is None for r in resize.inputs] == [False, True, True, False]
    single = evaluate(problem, StreamPlan([0] * problem.n, list(range(problem.n)))).makespan_us
    assert graph_lower_bound(problem).bound_us <= single + TOL_US
