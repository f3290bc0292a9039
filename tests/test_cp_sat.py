"""The ``optimal`` strategy (CP-SAT): obvious optima, the plan's validity on
random DAGs, and agreement with the emulator on the plans it produces."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import GE_LOCAL
from geir.parser import parse_module
from geir.passes.scheduling.evaluate import evaluate
from geir.passes.scheduling.lower_bound import graph_lower_bound
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan
from geir.passes.scheduling.strategies import get_strategy
from geir.passes.scheduling.strategies import cp_sat
from geir.passes.scheduling.strategies.cp_sat import DRAM_SCALE, NODE_LIMIT, TICK_US, ProblemTooLarge, dram_flow, plan
from scheduling_graphs import random_plan

#: a vector kernel of 24 of the 48 vector cores (8 KiB each): two fit side by
#: side; its activations stay in L2, so it draws nothing from DRAM
S = "tensor<1x16x56x56xf16>"
#: a map whose vector kernels (one core each) are little more than their fixed cost
TINY = "tensor<1x16x8x8xf16>"
#: a vector kernel on every vector core
T = "tensor<1x64x56x56xf16>"
#: a vector kernel (or a conv) on every core
BIG = "tensor<1x64x224x224xf16>"
#: activations larger than L2: a kernel over them streams most of its bytes from DRAM
HUGE = "tensor<1x64x1024x2048xf16>"
#: matmul operands: the 2 MiB weight streams from DRAM; the output's 16x16
#: blocks outnumber the cube cores, so the tiling takes all of them
A, WM = "tensor<128x1024xf16>", "tensor<1024x1024xf16>"
#: GE's per-op core cap: a matmul held to a third of the cube cores (and so to
#: under a third of the DRAM bandwidth), so that three run side by side
CAP = " {_op_aicore_num = 8 : i64}"
LIMIT_S = 2.0


def problem_of(body: list[str], max_streams: int, ty: str = T, inputs: int = 1,
               results: list[str] | None = None) -> ScheduleProblem:
    """The scheduling problem of a graph with ``inputs`` arguments of type ``ty``
    whose block is ``body``, returning ``results`` (default: the last line's result)."""
    args = ", ".join(f"%x{k}: {ty}" for k in range(inputs))
    results = results or [body[-1].split("=")[0].strip()]
    types = ", ".join([ty] * len(results))
    text = "\n".join([f"ge.graph @main({args}) -> ({types}) {{", *("  " + line for line in body),
                      f"  ge.return {', '.join(results)} : ({types}) -> ()", "}"]) + "\n"
    graph = OpGraph.build(next(parse_module(text).graphs()))
    return ScheduleProblem.build(graph, max_streams, "910B2")


def chain(name: str, src: str, ops: list[str], ty: str = T, attrs: str = "") -> list[str]:
    lines, prev = [], src
    for k, op in enumerate(ops):
        lines.append(f"%{name}{k} = ge.{op} {prev}{attrs} : ({ty}) -> {ty}")
        prev = f"%{name}{k}"
    return lines


def tol(problem: ScheduleProblem) -> float:
    """Durations are rounded to ticks: a makespan is exact to half a tick per node."""
    return problem.n * TICK_US


#: the relaxation rounds its durations down, so its bound needs no tolerance (floats aside)
EXACT = 1e-6


def emulated_makespan(problem: ScheduleProblem, p: StreamPlan) -> float:
    """The emulator's makespan for ``p``, with the events insert-events keeps
    (the judge every strategy is measured by)."""
    return evaluate(problem, p).makespan_us


def check_valid(problem: ScheduleProblem, p: StreamPlan) -> None:
    labels = {lab for lab in problem.labels if lab is not None}
    assert problem.graph.is_topological(p.order)
    assert len(p.streams) == problem.n
    assert p.num_streams <= problem.max_streams + len(labels)
    assert sorted(set(p.streams)) == list(range(p.num_streams))  # dense
    for label in labels:
        on = {p.streams[i] for i in range(problem.n) if problem.labels[i] == label}
        assert len(on) == 1
        # a label's stream is its own
        assert all(problem.labels[i] == label for i in range(problem.n) if p.streams[i] in on)
    assert p.bound_us is not None and p.predicted_us is not None
    assert p.bound_us <= p.predicted_us + 1e-9
    if p.optimal:
        assert p.bound_us == pytest.approx(p.predicted_us)


def test_registered_as_optimal() -> None:
    assert get_strategy("optimal") is plan


def rates(problem: ScheduleProblem, nodes: list[int]) -> int:
    """What ``nodes`` draw from DRAM at once, in DRAM_SCALE parts of the bandwidth
    (a kernel whose bytes all stay in L2 draws nothing)."""
    flows = [dram_flow(problem.costs[i], problem.model.dram_bw) for i in nodes]
    return sum(flow[1] for flow in flows if flow is not None)


def test_two_independent_chains_take_one_chain() -> None:
    body = chain("a", "%x0", ["relu", "sigmoid", "tanh", "relu"], S) + chain("b", "%x0", ["tanh", "relu", "sigmoid",
                                                                                           "relu"], S)
    problem = problem_of(body, 2, S, results=["%a3", "%b3"])
    d = problem.durations
    assert problem.units(0) + problem.units(4) <= problem.capacity(problem.pools[0])  # side by side on the cores
    assert rates(problem, [0, 4]) <= DRAM_SCALE  # and on DRAM
    for relaxed in (False, True):
        p = plan(problem, LIMIT_S, relaxed=relaxed)
        check_valid(problem, p)
        assert p.optimal and p.num_streams == 2
        assert p.predicted_us == pytest.approx(max(sum(d[:4]), sum(d[4:])), abs=tol(problem))
        assert {p.streams[i] for i in range(4)} != {p.streams[i] for i in range(4, 8)}
        assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))
    one = plan(problem_of(body, 1, S, results=["%a3", "%b3"]), LIMIT_S)
    assert one.optimal and one.num_streams == 1
    assert one.predicted_us == pytest.approx(sum(d), abs=tol(problem))


def test_kernels_whose_dram_draw_exceeds_the_bandwidth_run_apart() -> None:
    """A full-size 1x1 conv (every cube core) and a full-size vector kernel
    (every vector core) over activations larger than L2 share no engine, but
    their DRAM draws add up to more than the bandwidth: the model runs them one
    after the other; the relaxation, which knows the bandwidth only through the
    graph's bound (all bytes over it), side by side — and bounds what the
    emulator does with either plan (it shares the bandwidth fluidly)."""
    w = "tensor<64x64x1x1xf16>"
    body = [f"%w = ge.const {{value = dense<1.000000e-02> : {w}}} : () -> {w}",
            f"%a = ge.conv2d %x0, %w : ({HUGE}, {w}) -> {HUGE}",
            f"%b = ge.relu %x1 : ({HUGE}) -> {HUGE}"]
    problem = problem_of(body, 2, HUGE, inputs=2, results=["%a", "%b"])
    assert problem.pools[0] != problem.pools[1]
    assert [problem.units(i) for i in range(2)] == [problem.capacity(pool) for pool in problem.pools]
    averages = [dram_flow(c, problem.model.dram_bw) for c in problem.costs]
    assert sum(rate * alone / c.duration_us for (alone, rate), c in zip(averages, problem.costs)) > DRAM_SCALE
    da, db = problem.durations
    full = plan(problem, LIMIT_S)
    relaxed = plan(problem, LIMIT_S, relaxed=True)
    check_valid(problem, full)
    check_valid(problem, relaxed)
    assert full.optimal and relaxed.optimal
    assert full.predicted_us == pytest.approx(da + db, abs=tol(problem))
    bound = graph_lower_bound(problem)
    assert bound.binding in ("DRAM bandwidth", "DRAM window") and bound.bound_us > max(da, db)
    assert relaxed.predicted_us == pytest.approx(bound.bound_us, abs=tol(problem))
    assert relaxed.num_streams == 2
    for p in (full, relaxed):
        assert emulated_makespan(problem, p) >= relaxed.bound_us - tol(problem)


def test_joined_chains_pay_one_event() -> None:
    body = chain("a", "%x0", ["relu", "sigmoid", "tanh"], S) + chain("b", "%x0", ["tanh", "relu", "sigmoid"], S)
    body.append(f"%y = ge.add %a2, %b2 : ({S}, {S}) -> {S}")
    problem = problem_of(body, 2, S)
    d = problem.durations
    m = problem.model
    sa, sb = sum(d[:3]), sum(d[3:6])
    # the join on one chain's stream waits for the other's record
    expected = min(max(sa + m.wait_us, sb + m.record_us + m.wait_us),
                   max(sb + m.wait_us, sa + m.record_us + m.wait_us)) + d[6]
    p = plan(problem, LIMIT_S)
    check_valid(problem, p)
    assert p.optimal and p.num_streams == 2
    assert p.predicted_us == pytest.approx(expected, abs=tol(problem))
    assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))


def diamond(kind: str) -> list[str]:
    """a -> (b, c) -> d: small vector kernels (a branch's fixed cost and pipeline heads,
    under 3 us, cost less than an event each way adds), or matmuls held to a third
    of the cube cores, long enough to be worth an event each way."""
    if kind == "small":
        return [f"%a = ge.relu %x0 : ({TINY}) -> {TINY}", f"%b = ge.sigmoid %a : ({TINY}) -> {TINY}",
                f"%c = ge.tanh %a : ({TINY}) -> {TINY}", f"%d = ge.add %b, %c : ({TINY}, {TINY}) -> {TINY}"]
    return [f"%w = ge.const {{value = dense<1.000000e-02> : {WM}}} : () -> {WM}",
            f"%a = ge.matmul %x0, %w{CAP} : ({A}, {WM}) -> {A}", f"%b = ge.matmul %a, %w{CAP} : ({A}, {WM}) -> {A}",
            f"%c = ge.matmul %a, %w{CAP} : ({A}, {WM}) -> {A}", f"%d = ge.add %b, %c : ({A}, {A}) -> {A}"]


@pytest.mark.parametrize("kind", ["small", "large"])
def test_diamond_parallel_only_when_branches_outweigh_events(kind: str) -> None:
    problem = problem_of(diamond(kind), 2, TINY if kind == "small" else A)
    da, db, dc, dd = problem.durations
    assert rates(problem, [1, 2]) <= DRAM_SCALE and problem.units(1) + problem.units(2) <= problem.capacity(
        problem.pools[1])
    m = problem.model
    serial = da + db + dc + dd
    sync = m.record_us + m.wait_us
    # one branch q on a second stream after a's record and q's wait; the other
    # branch p follows a's record on a's stream; d follows p (after q's record
    # and d's wait) or q (after p's record and d's wait)
    parallel = da + dd + min(min(max(sync + q + sync, m.record_us + p + m.wait_us),
                                 max(sync + q + m.wait_us, m.record_us + p + sync))
                             for p, q in ((db, dc), (dc, db)))
    assert (parallel < serial) == (kind == "large")
    p = plan(problem, LIMIT_S)
    check_valid(problem, p)
    assert p.optimal
    assert p.predicted_us == pytest.approx(min(serial, parallel), abs=tol(problem))
    assert p.num_streams == (2 if kind == "large" else 1)
    assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))


def test_a_fork_records_once_per_stream_one_after_another() -> None:
    """a feeds three long matmuls, each held to a third of the cube cores: on three streams the branch that stays on a's
    stream waits behind a's two records, the second other stream behind both."""
    a2 = "tensor<64x1024xf16>"
    body = [f"%w = ge.const {{value = dense<1.000000e-02> : {WM}}} : () -> {WM}",
            f"%a = ge.relu %x0 : ({a2}) -> {a2}"]
    body += [f"%b{k} = ge.matmul %a, %w{CAP} : ({a2}, {WM}) -> {a2}" for k in range(3)]
    for max_streams in (3, 2):
        problem = problem_of(body, max_streams, a2, results=["%b0", "%b1", "%b2"])
        da, d = problem.durations[0], problem.durations[1]
        assert rates(problem, [1, 2, 3]) <= DRAM_SCALE and 3 * problem.units(1) <= problem.capacity(problem.pools[1])
        m = problem.model
        p = plan(problem, LIMIT_S)
        check_valid(problem, p)
        assert p.optimal and p.num_streams == max_streams
        if max_streams == 3:
            expected = da + 2 * m.record_us + m.wait_us + d
        else:  # two branches one after the other on a's stream, one after a's record
            expected = da + m.record_us + 2 * d
        assert p.predicted_us == pytest.approx(expected, abs=tol(problem))
        assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))


def test_kernels_needing_every_core_gain_nothing_from_two_streams() -> None:
    w = "tensor<64x64x3x3xf16>"
    body = [f"%w = ge.const {{value = dense<1.000000e-02> : {w}}} : () -> {w}",
            f"%a = ge.conv2d %x0, %w {{pads = [1, 1, 1, 1]}} : ({BIG}, {w}) -> {BIG}",
            f"%b = ge.conv2d %x1, %w {{pads = [1, 1, 1, 1]}} : ({BIG}, {w}) -> {BIG}",
            f"%y = ge.add %a, %b : ({BIG}, {BIG}) -> {BIG}"]
    problem = problem_of(body, 2, BIG, inputs=2)
    da, db, dy = problem.durations
    pool = problem.pools[0]
    assert problem.units(0) == problem.units(1) == problem.capacity(pool)
    p = plan(problem, LIMIT_S)
    check_valid(problem, p)
    assert p.optimal
    assert p.predicted_us == pytest.approx(da + db + dy, abs=tol(problem))
    assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))


def test_a_labelled_pair_shares_one_stream() -> None:
    label = ' {stream_label = "pair"}'
    body = (chain("a", "%x0", ["relu", "sigmoid"], S, label) + chain("b", "%x0", ["tanh", "relu"], S, label)
            + [f"%y = ge.add %a1, %b1 : ({S}, {S}) -> {S}"])
    problem = problem_of(body, 2, S)
    d = problem.durations
    p = plan(problem, LIMIT_S)
    check_valid(problem, p)
    assert p.optimal
    assert len({p.streams[i] for i in range(4)}) == 1
    # the labelled chains run one after the other; the join is not labelled, so
    # it is on a stream of its own (a label's stream is reserved) after an event
    assert p.streams[4] != p.streams[0]
    assert p.predicted_us == pytest.approx(sum(d[:4]) + problem.sync_us + d[4], abs=tol(problem))
    assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))


def test_zero_duration_nodes_keep_stream_order() -> None:
    """GE_LOCAL nodes take no time; they still hold a place in their stream's
    queue, so the emulator agrees with the model."""
    body = [f"%a = ge.relu %x0 : ({S}) -> {S}", f'%z = ge.relu %a {{engine = "GE_LOCAL"}} : ({S}) -> {S}',
            f"%c = ge.sigmoid %z : ({S}) -> {S}", f'%z2 = ge.tanh %x0 {{engine = "GE_LOCAL"}} : ({S}) -> {S}',
            f"%b = ge.tanh %z2 : ({S}) -> {S}", f"%e = ge.sigmoid %b : ({S}) -> {S}"]
    problem = problem_of(body, 2, S, results=["%c", "%e"])
    assert problem.pools[1] == problem.pools[3] == GE_LOCAL and problem.durations[1] == 0.0
    p = plan(problem, LIMIT_S)
    check_valid(problem, p)
    assert p.optimal
    d = problem.durations
    assert p.predicted_us == pytest.approx(max(d[0] + d[2], d[4] + d[5]), abs=tol(problem))
    assert emulated_makespan(problem, p) == pytest.approx(p.predicted_us, abs=tol(problem))


def test_too_large_is_refused_with_the_counts() -> None:
    problem = problem_of(chain("a", "%x0", ["relu"] * (NODE_LIMIT + 1)), 2)
    with pytest.raises(ProblemTooLarge) as e:
        plan(problem, LIMIT_S)
    assert e.value.nodes == NODE_LIMIT + 1 and e.value.limit == NODE_LIMIT
    assert f"{NODE_LIMIT + 1}" in str(e.value) and f"at most {NODE_LIMIT}" in str(e.value)


def test_empty_graph() -> None:
    text = f"ge.graph @main(%x: {T}) -> ({T}) {{\n  ge.return %x : ({T}) -> ()\n}}\n"
    problem = ScheduleProblem.build(OpGraph.build(next(parse_module(text).graphs())), 2)
    p = plan(problem, LIMIT_S)
    assert p.streams == [] and p.order == [] and p.optimal and p.predicted_us == 0.0


@st.composite
def random_dags(draw):
    """A graph of up to 12 nodes: unary, binary and conv nodes over earlier
    values (some taking no time: GE_LOCAL), some with one of two stream labels."""
    n = draw(st.integers(1, 12))
    w = "tensor<64x64x3x3xf16>"
    body = [f"%w = ge.const {{value = dense<1.000000e-02> : {w}}} : () -> {w}"]
    values = ["%x0"]
    for k in range(n):
        kind = draw(st.sampled_from(["relu", "sigmoid", "add", "mul", "conv2d", "local"]))
        label = draw(st.sampled_from([None, None, None, "p", "q"]))
        attr = f' {{stream_label = "{label}"}}' if label else ""
        a = draw(st.sampled_from(values[-6:]))
        if kind in ("add", "mul"):
            b = draw(st.sampled_from(values[-6:]))
            body.append(f"%v{k} = ge.{kind} {a}, {b}{attr} : ({T}, {T}) -> {T}")
        elif kind == "local":
            engine = 'engine = "GE_LOCAL"' + (f', stream_label = "{label}"' if label else "")
            body.append(f"%v{k} = ge.relu {a} {{{engine}}} : ({T}) -> {T}")
        elif kind == "conv2d":
            pads = "pads = [1, 1, 1, 1]" + (f', stream_label = "{label}"' if label else "")
            body.append(f"%v{k} = ge.conv2d {a}, %w {{{pads}}} : ({T}, {w}) -> {T}")
        else:
            body.append(f"%v{k} = ge.{kind} {a}{attr} : ({T}) -> {T}")
        values.append(f"%v{k}")
    return body, draw(st.integers(1, 4))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_dags(), st.booleans())
def test_plans_of_random_dags_are_valid(case, relaxed: bool) -> None:
    body, max_streams = case
    problem = problem_of(body, max_streams)
    p = plan(problem, 1.0, relaxed=relaxed)
    check_valid(problem, p)
    # the schedule is no worse than serial execution, whose makespan the model
    # knows exactly when there are no labels (nothing forces an event then)
    if all(lab is None for lab in problem.labels):
        assert p.predicted_us <= sum(problem.durations) + tol(problem)
    emulated = emulated_makespan(problem, p)
    if relaxed:
        # the relaxation's bound is a lower bound on the emulator: no plan
        # emulates faster
        assert emulated >= p.bound_us - EXACT


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_dags(), st.integers(0, 2**31 - 1))
def test_no_plan_emulates_below_the_relaxations_bound(case, seed: int) -> None:
    """The relaxation (cut by the graph's bound, with the records and waits no
    reduction can drop) bounds every plan that keeps each ``stream_label`` on
    a stream of its own, as the model does: each heuristic's (when it does;
    the single stream puts labels with everything else) and random ones."""
    body, max_streams = case
    problem = problem_of(body, max_streams)
    bound = plan(problem, 2.0, relaxed=True).bound_us
    rng = random.Random(seed)
    plans = [get_strategy(name)(problem, 1.0) for name in ("single", "ge", "chain-cover", "cost")]
    plans += [random_plan(problem, rng) for _ in range(4)]
    for p in plans:
        if labels_apart(problem, p):
            assert emulated_makespan(problem, p) >= bound - EXACT


def labels_apart(problem: ScheduleProblem, p: StreamPlan) -> bool:
    """Whether each label's nodes share a stream that no other node is on."""
    owner: dict[int, str | None] = {}
    for lb, s in zip(problem.labels, p.streams):
        if owner.setdefault(s, lb) != lb:
            if lb is not None or owner[s] is not None:
                return False
    return True


class HintOnlySolver(cp_sat.cp_model.CpSolver):
    """A solver that may only confirm the hint: every variable fixed to it."""

    statuses: list[int] = []

    def solve(self, model, *args):  # type: ignore[override]
        self.parameters.fix_variables_to_their_hinted_value = True
        status = super().solve(model, *args)
        HintOnlySolver.statuses.append(status)
        return status


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_dags())
def test_the_hint_is_a_solution(case) -> None:
    """Both steps' hints (list schedules) satisfy their models, so the solver
    always has a solution to return."""
    body, max_streams = case
    problem = problem_of(body, max_streams)
    HintOnlySolver.statuses = []
    with mock.patch.object(cp_sat.cp_model, "CpSolver", HintOnlySolver):
        p = plan(problem, 1.0)
    assert len(HintOnlySolver.statuses) == 2
    assert all(s == cp_sat.cp_model.OPTIMAL for s in HintOnlySolver.statuses)
    check_valid(problem, p)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_dags())
def test_the_relaxation_bounds_the_full_model(case) -> None:
    body, max_streams = case
    problem = problem_of(body, max_streams)
    full = plan(problem, 1.0)
    relaxed = plan(problem, 1.0, relaxed=True)
    assert relaxed.bound_us <= full.predicted_us + 1e-9


def test_tasks_of_no_time_add_nothing_to_the_relaxations_bound() -> None:
    """A UB-fused chain: the ops fused into a convolution take no time of their
    own, so the bound is at most the serial makespan (each took a tick)."""
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    w = "tensor<64x64x3x3xf16>"
    body = [f"%w = ge.const {{value = dense<1.000000e-02> : {w}}} : () -> {w}"]
    prev = "%x0"
    for k in range(6):
        body += [f"%c{k} = ge.conv2d {prev}, %w {{pads = [1, 1, 1, 1]}} : ({T}, {w}) -> {T}",
                 f"%r{k} = ge.relu %c{k} : ({T}) -> {T}", f"%s{k} = ge.sigmoid %r{k} : ({T}) -> {T}"]
        prev = f"%s{k}"
    text = "\n".join([f"ge.graph @main(%x0: {T}) -> ({T}) {{", *("  " + line for line in body),
                      f"  ge.return {prev} : ({T}) -> ()", "}"]) + "\n"
    module = parse_module(text)
    PassManager(parse_pipeline("assign-engines,fuse-ub{device=910B2}")).run(module)
    problem = ScheduleProblem.build(OpGraph.build(next(module.graphs())), 2, "910B2")
    assert sum(1 for d in problem.durations if d == 0.0) == 12
    bound = plan(problem, LIMIT_S, relaxed=True).bound_us
    assert bound <= sum(problem.durations) + EXACT
    assert bound <= emulated_makespan(problem, get_strategy("single")(problem, 1.0)) + EXACT
