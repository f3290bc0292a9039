"""The GPU multi-stream calibration bench (bench/calibration.py) builds IOS's
networks two ways: hand-built task lists for IOS's own schedules, and a
``ge.graph`` through geir's passes. Both must go through the same kernel model,
so every kernel carries its operand shapes and the two forms cost the same."""

from __future__ import annotations

from collections import Counter
from types import ModuleType

import pytest

from geir.backends.cost_model import CONV_OPS, GE_LOCAL, CostModel
from geir.backends.device_profile import load_profile
from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.task_list import WEIGHTS, Kernel, Record, TaskList, Wait
from calibration_bench import load_calibration_bench, task_kernels

@pytest.fixture(scope="module")
def calibration() -> ModuleType:
    return load_calibration_bench("gpu_calibration_bench")


@pytest.fixture(scope="module")
def squeezenet(calibration: ModuleType) -> object:
    return calibration.squeezenet()


def test_hand_built_kernels_carry_shapes(calibration: ModuleType, squeezenet: object) -> None:
    tl = calibration.sequential(squeezenet)
    kernels = task_kernels(tl)
    convs = [k for k in kernels if k.op == "ge.conv2d"]
    assert convs and len(convs) == sum(1 for n in squeezenet.nodes for op in n.ops if op.op == "ge.conv2d")
    for k in convs:
        x, w = k.inputs
        assert x is not None and w is not None and w.space == WEIGHTS
        assert len(x.shape) == 4 and len(w.shape) == 4 and x.shape[0] == 1
        # the weight's input channels are the activation's, per group
        assert w.shape[1] * k.attributes["group"] == x.shape[1]
        assert k.outputs[0].shape[1] == w.shape[0]
    for k in kernels:
        assert all(r is not None and len(r.shape) == 4 for r in (*k.inputs, *k.outputs))
    # weights lie inside the weight space, activations inside the arena
    assert max(k.inputs[1].end for k in convs) <= tl.weight_size  # type: ignore[union-attr]
    assert max(r.end for k in kernels for r in k.outputs) <= tl.arena_size


def _probe(calibration: ModuleType) -> object:
    """A small net with every kind of kernel the runtime launches: fused and
    unfused convolutions, a separable conv, sums of few and of many values."""
    net = calibration.Net("probe", (16, 16))
    x = (-1, 3, 16, 16)
    fused = net.conv([[x]], 8, (3, 3), padding=(1, 1))
    plain = net.conv([[x]], 8, act=False)
    sep = net.sep_conv([[x]], 8, (3, 3), (1, 1), (1, 1))
    net.conv([[fused, plain, sep]], 4)
    net.conv([[(fused, plain, sep)[i % 3] for i in range(calibration.MAX_SUM + 1)]], 4)
    return net


@pytest.mark.parametrize("which", ["squeezenet", "probe"])
def test_task_list_and_ir_forms_cost_the_samekernels(calibration: ModuleType, squeezenet: object,
                                                      which: str) -> None:
    from geir.parser import parse_module
    from geir.passes.lower_to_tasks import graph_task_list
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    if which == "probe":
        squeezenet = _probe(calibration)
    module = parse_module(calibration.to_ge(squeezenet), "squeezenet.mlir")
    PassManager(parse_pipeline("assign-engines,partition-streams{strategy=single device=V100},"
                               "insert-events{device=V100}"), verify_each=False).run(module)
    ir = graph_task_list(next(module.graphs()))
    cost = CostModel(load_profile("V100"))

    def costs(tl: TaskList) -> Counter[tuple[str, str, int, float]]:
        out: Counter[tuple[str, str, int, float]] = Counter()
        for k in task_kernels(tl):
            c = cost.kernel(k)
            if c.pool != GE_LOCAL:
                out[(k.op, c.pool, c.units, round(c.duration_us, 6))] += 1
        return out

    hand = costs(calibration.sequential(squeezenet))
    # IOS's runtime copies each concatenated term into its reader's input buffer, a
    # kernel of its own that GE's IR has no op for (a concat laid out in place)
    copies = Counter({key: n for key, n in hand.items() if key[0] == "assign_with_stride_src"})
    assert hand - copies == costs(ir)
    if which == "probe":
        return
    # the convolutions' tilings decide their SMs: not every one takes the whole GPU
    conv_units = {units for (op, _, units, _) in hand if op[3:] in CONV_OPS}
    assert min(conv_units) < load_profile("V100")["ai_cores"] and len(conv_units) > 1


def test_ios_copies_every_term_of_a_concatenated_input_into_its_slice(calibration: ModuleType,
                                                                       squeezenet: object) -> None:
    tl = calibration.sequential(squeezenet)
    copies = [k for k in task_kernels(tl) if k.op == "assign_with_stride_src"]
    assert len(copies) == sum(len(n.terms) for n in squeezenet.nodes if len(n.terms) > 1) > 0
    for k in copies:
        (src,), (dst,) = k.inputs, k.outputs
        assert src is not None and dst.shape == src.shape and dst.offset != src.offset
    # RAF's runtime concatenates with one kernel reading every term
    squeezenet.concat = "kernel"
    try:
        kernels = task_kernels(calibration.sequential(squeezenet))
    finally:
        squeezenet.concat = "copies"
    joins = [k for k in kernels if k.op == "concatenate"]
    assert not any(k.op == "assign_with_stride_src" for k in kernels)
    assert len(joins) == sum(1 for n in squeezenet.nodes if len(n.terms) > 1)


@pytest.mark.parametrize("schedule", ["chains", "chains4"])
def test_schedules_are_race_free_and_keep_thekernels(calibration: ModuleType, squeezenet: object,
                                                      schedule: str) -> None:
    build = {"chains": calibration.chains, "chains4": lambda n: calibration.chains(n, 4)}[schedule]
    tl = build(squeezenet)
    seq = calibration.sequential(squeezenet)
    assert Counter(k.op for k in task_kernels(tl)) == Counter(k.op for k in task_kernels(seq))
    if schedule == "chains4":
        assert len(tl.streams) <= 4
    records = sum(isinstance(t, Record) for s in tl.streams for t in s.tasks)
    assert records == sum(isinstance(t, Wait) for s in tl.streams for t in s.tasks) == tl.num_events
    for mode in ("sink", "host"):
        r = emulate(tl, None, EmulatorOptions(device="V100", mode=mode, timing_only=True, check_races=True,
                                              progress=False))
        assert r.clean, (mode, r.report["races"][:1], r.report["deadlock"])


def test_greedy_is_stages_between_host_barriers(calibration: ModuleType, squeezenet: object) -> None:
    """IOS's Greedy runs each stage's nodes on streams of their own and calls
    cudaDeviceSynchronize between stages unless both hold one node: a segment is
    one wide stage, or a run of one-node stages on one stream; no events."""
    schedule = calibration.greedy(squeezenet)
    seq = calibration.sequential(squeezenet)
    segments = schedule.segments
    assert Counter(k.op for tl in segments for k in task_kernels(tl)) == Counter(k.op for k in task_kernels(seq))
    assert all(tl.num_events == 0 for tl in segments)
    widths = [sum(1 for s in tl.streams if any(isinstance(t, Kernel) for t in s.tasks)) for tl in segments]
    assert max(widths) <= calibration.MAX_STAGE and max(widths) > 1
    # two one-stream segments never meet: IOS synchronises only around a wide stage
    assert all(a > 1 or b > 1 for a, b in zip(widths, widths[1:]))
    for tl in segments:
        r = emulate(tl, None, EmulatorOptions(device="V100", mode="host", timing_only=True, check_races=True,
                                              progress=False))
        assert r.clean


@pytest.mark.parametrize("build", ["_greedy_block", "_chain_block"])
def test_stages_are_independent_groups_in_order(calibration: ModuleType, build: str) -> None:
    """IOS's stages: every node of a block in exactly one group, at most
    MAX_STAGE groups a stage, no group reads another group of its stage, and a
    node's inputs are computed before the stage or earlier in its group."""
    net = calibration.nasnet()  # one block with wide, cross-linked cells
    for members in calibration._blocks(net):
        stages = getattr(calibration, build)(net, members)
        assert sorted(g for st in stages for grp in st for g in grp) == sorted(members)
        inside, done = set(members), set()
        for stage in stages:
            assert 1 <= len(stage) <= calibration.MAX_STAGE
            for group in stage:
                for i, g in enumerate(group):
                    assert all(p in done or p in group[:i] for p in net.nodes[g].preds if p in inside)
            done.update(g for grp in stage for g in grp)
        if build == "_chain_block":
            assert len(stages) < len(calibration._greedy_block(net, members))  # chains need fewer barriers


def test_block_choice_keeps_thekernels(calibration: ModuleType, squeezenet: object) -> None:
    schedule = calibration.block_choice(squeezenet, "V100", "host", [])
    seq = calibration.sequential(squeezenet)
    assert Counter(k.op for tl in schedule.segments for k in task_kernels(tl)) == Counter(k.op for k in task_kernels(seq))
    # no block runs slower than it would as one stream (one of the candidates)
    assert calibration.run(schedule, "V100", "host", []) <= calibration.run(seq, "V100", "host", []) * 1.05


def test_host_barrier_costs_the_segments_and_a_sync_each(calibration: ModuleType, squeezenet: object) -> None:
    """A host-synchronised run is its segments one after another from an idle
    device, plus the host's wake-up at every barrier."""
    schedule = calibration.greedy(squeezenet)
    alone = [calibration.run(tl, "V100", "host", []) for tl in schedule.segments]
    for sync in (0.0, 7.0):
        total = calibration.run(schedule, "V100", "host", [f"host_sync_us={sync}"])
        assert total == pytest.approx(sum(alone) + sync * (len(alone) - 1) / 1e3)
    assert calibration.host_sync_us(["host_sync_us=3", "ai_cores=4"]) == (3.0, ["ai_cores=4"])
    assert calibration.host_sync_us([])[0] == calibration.HOST_SYNC_US


def test_kernels_follow_ios_runtime(calibration: ModuleType) -> None:
    """A convolution without activation launches a bias kernel after it (cuDNN's
    AddTensor); a relu_sep_conv is five kernels; up to MAX_SUM summed values are
    one kernel, more a chain of adds."""
    net = _probe(calibration)
    fused, plain, sep, few, many = [(g, 0, 0, 0) for g in range(len(net.nodes))]
    assert [op.op for op in net.nodes[fused[0]].ops] == ["ge.conv2d"]
    assert [op.op for op in net.nodes[plain[0]].ops] == ["ge.conv2d", "ge.add"]
    assert [op.op for op in net.nodes[sep[0]].ops] == ["ge.relu", "ge.conv2d", "ge.add", "ge.conv2d", "ge.add"]
    tl = calibration.sequential(net)
    by_loc: dict[str, list[str]] = {}
    for k in task_kernels(tl):
        by_loc.setdefault(k.loc, []).append(k.op)
    assert by_loc[f"probe:conv{few[0]}"] == ["ge.sum", "ge.conv2d"]
    assert by_loc[f"probe:conv{many[0]}"] == ["ge.add"] * calibration.MAX_SUM + ["ge.conv2d"]
    # a bias is a per-channel weight, broadcast over the output
    bias = next(k for k in task_kernels(tl) if k.loc == f"probe:conv{plain[0]}" and k.op == "ge.add")
    assert bias.inputs[1] is not None and bias.inputs[1].space == WEIGHTS and bias.inputs[1].shape == (1, 8, 1, 1)


@pytest.mark.parametrize("block_dispatch", [False, True])
def test_block_dispatch_starts_a_kernel_on_the_free_sms(block_dispatch: bool) -> None:
    """On a GPU profile a kernel wanting more SMs than are free starts on the free
    ones, in proportionally more waves; gang scheduling (Ascend) waits for all."""
    from geir.backends.emulator.program import compile_program
    from geir.backends.emulator.simulator import simulate
    from geir.backends.task_list import EndGraph, Stream
    profile = load_profile("V100")
    assert profile.block_dispatch and not load_profile("910B2").block_dispatch
    sms = profile["ai_cores"]
    wide, rest = sms * 3 // 4, sms // 2  # together more than the GPU has
    tl = TaskList(streams=[
        Stream(0, 0, [Kernel(op="ge.relu", engine="AICore", inputs=[], outputs=[], block_dim=wide, flops=1e9),
                      EndGraph()]),
        Stream(1, 0, [Kernel(op="ge.relu", engine="AICore", inputs=[], outputs=[], block_dim=rest, flops=1e9),
                      EndGraph()])], arena_size=0, num_events=0, name="two kernels")
    program = compile_program(tl, CostModel(profile))
    program.block_dispatch = block_dispatch
    first, second = program.first[0], program.first[1]
    alone = program.duration[second]
    sched = simulate(program)
    assert sched.start[first] == 0.0
    if block_dispatch:
        assert sched.start[second] == 0.0
        # on the SMs the first kernel left free, its blocks take rest / free as many waves
        ran = sched.end[second] - sched.start[second]
        assert ran == pytest.approx(alone * rest / (sms - wide))
    else:
        assert sched.start[second] == pytest.approx(sched.end[first])
        assert sched.end[second] - sched.start[second] == pytest.approx(alone)
    # no more SMs were ever held than the GPU has: the work done equals the work asked
    assert sched.pool_work[0] == pytest.approx(program.duration[first] * wide + alone * rest)


@pytest.mark.parametrize("device", ["V100", "910B2"])
def test_a_gpu_kernels_fixed_cost_holds_no_sms(device: str) -> None:
    """On a GPU (block_dispatch) a kernel's fixed cost is latency: its stream
    waits it out before the kernel takes its SMs, so two kernels that each fill
    the device overlap one's latency with the other's work. Ascend's gang
    scheduling keeps the cost on the cores."""
    from geir.backends.task_list import EndGraph, Stream
    profile = load_profile(device)
    cost = CostModel(profile)
    probe = Kernel(op="ge.relu", engine="AICore", inputs=[], outputs=[], block_dim=2, flops=1e9)
    cores = cost.capacity[cost.kernel(probe).pool]  # the pool relu runs on (vector cores on 910B2)
    kernels = [Kernel(op="ge.relu", engine="AICore", inputs=[], outputs=[], block_dim=cores, flops=1e9)
               for _ in range(2)]
    tl = TaskList(streams=[Stream(i, 0, [k, EndGraph()]) for i, k in enumerate(kernels)], arena_size=0,
                  num_events=0, name="two full kernels")
    c = cost.kernel(kernels[0])
    assert c.units == cores and c.overhead_us > 0
    body = c.duration_us - c.overhead_us
    r = emulate(tl, None, EmulatorOptions(device=device, timing_only=True, progress=False))
    makespan = r.report["makespan_us"]
    if profile.block_dispatch:
        assert makespan == pytest.approx(c.overhead_us + 2 * body, abs=1e-3)
        # the SMs are held only for the kernels' bodies
        assert sum(r.schedule.pool_work) == pytest.approx(2 * body * cores, rel=1e-6)
    else:
        assert makespan == pytest.approx(2 * c.duration_us, abs=1e-3)
