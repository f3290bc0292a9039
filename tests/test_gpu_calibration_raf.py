"""RAF's row of the GPU calibration bench (bench/calibration.py): RAF's
schedule passes (wavefront waves, stages between device-side barriers) and
the host costs of its virtual machine, where launching an operator costs the
host more than an event instruction (the emulator's ``host_event_launch_us``)."""

from __future__ import annotations

from collections import Counter
from types import ModuleType

import pytest

from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.emulator.program import END, KERNEL, RECORD, WAIT
from geir.backends.task_list import Kernel, Record, TaskList, Wait
from calibration_bench import load_calibration_bench, task_kernels

@pytest.fixture(scope="module")
def calibration() -> ModuleType:
    return load_calibration_bench("gpu_calibration_bench_raf")


@pytest.fixture(scope="module")
def inception(calibration: ModuleType) -> object:
    return calibration.inception_v3()


def _host(tl: TaskList, launch_us: float, event_us: float | None) -> object:
    return emulate(tl, None, EmulatorOptions(device="V100", device_params=[f"host_launch_us={launch_us}"],
                                             mode="host", timing_only=True, progress=False,
                                             host_event_launch_us=event_us))


# ============================================ the emulator's event launch cost

def test_event_launch_cost_defaults_to_the_kernel_launch_cost(calibration: ModuleType, inception: object) -> None:
    tl = calibration.chains(inception, 4)
    plain, same = _host(tl, 5.0, None), _host(tl, 5.0, 5.0)
    assert plain.schedule.launch == same.schedule.launch
    assert plain.report["makespan_us"] == same.report["makespan_us"]


@pytest.mark.parametrize("event_us", [0.0, 1.5, 12.0])
def test_host_launches_kernels_and_events_at_their_own_costs(calibration: ModuleType, inception: object,
                                                             event_us: float) -> None:
    """One host thread: each launch comes its own cost after the one before it,
    a kernel's ``host_launch_us``, a record's or wait's ``host_event_launch_us``,
    nothing for an end of the graph; the report's host time is their sum."""
    launch_us = 20.0
    r = _host(calibration.chains(inception, 4), launch_us, event_us)
    program = r.schedule.program
    assert r.clean
    launch = r.schedule.launch
    cost = [event_us if k in (RECORD, WAIT) else 0.0 if k == END or g in program.taskless else launch_us
            for g, k in enumerate(program.kind)]
    for g in range(program.n):
        # everything launched by then, this task included (free tasks may tie with a kernel)
        before = [h for h in range(program.n) if launch[h] <= launch[g] + 1e-9]
        assert launch[g] == pytest.approx(sum(cost[h] for h in before))
    kinds = Counter(program.kind)
    assert kinds[RECORD] > 0 and kinds[KERNEL] > 0 and kinds[END] > 0
    host = r.report["engines"]["Host"]["busy_us"]
    assert host == pytest.approx(sum(cost), abs=1e-3)


def test_free_events_cost_the_host_nothing(calibration: ModuleType, inception: object) -> None:
    """A barrier is one runtime call: the events spelling it beyond its first
    are launched at no host cost, so the host's time drops by their tasks."""
    waves = calibration.wavefront_waves(inception)
    free: set[int] = set()
    tl = calibration.event_staged(inception, waves, "wavefront", free)
    barriers = sum(1 for a, b in zip(waves, waves[1:]) if len(a) > 1 or len(b) > 1)
    assert len(free) == tl.num_events - barriers
    options = dict(device="V100", device_params=["host_launch_us=30"], mode="host", timing_only=True,
                   progress=False, host_event_launch_us=3.0)
    charged = emulate(tl, None, EmulatorOptions(**options))
    freed = emulate(tl, None, EmulatorOptions(**options, host_free_events=frozenset(free)))
    assert freed.clean
    host = charged.report["engines"]["Host"]["busy_us"] - freed.report["engines"]["Host"]["busy_us"]
    assert host == pytest.approx(2 * len(free) * 3.0)  # a record and a wait each
    assert all(f <= c for f, c in zip(freed.schedule.launch, charged.schedule.launch))


def test_cheaper_events_never_delay_a_launch(calibration: ModuleType, inception: object) -> None:
    tl = calibration.event_staged(inception, calibration.wavefront_waves(inception), "wavefront")
    dear, cheap = _host(tl, 30.0, 30.0), _host(tl, 30.0, 3.0)
    assert all(c <= d for c, d in zip(cheap.schedule.launch, dear.schedule.launch))
    assert cheap.report["makespan_us"] < dear.report["makespan_us"]


# ========================================================== RAF's schedules

def test_wavefront_follows_rafs_partition(calibration: ModuleType) -> None:
    """A fork and a join: the fork alone (two consumers), then its two branches
    as chains of one wave (each grows while it has one consumer whose inputs it
    is the last of), then the join."""
    assert calibration.wavefront_waves(_diamond(calibration)) == [[[0]], [[1, 2], [3]], [[4]]]


def test_wavefront_waves_cover_the_net_in_dependency_order(calibration: ModuleType, inception: object) -> None:
    waves = calibration.wavefront_waves(inception)
    nodes = inception.nodes  # type: ignore[attr-defined]
    assert sorted(g for w in waves for c in w for g in c) == list(range(len(nodes)))
    done: set[int] = set()
    for wave in waves:
        for chain in wave:
            for i, g in enumerate(chain):
                assert all(p in done or p in chain[:i] for p in nodes[g].preds)
        done.update(g for c in wave for g in c)
    assert max(len(w) for w in waves) > 1 and len(waves) < len(nodes)


def _diamond(calibration: ModuleType) -> object:
    net = calibration.Net("diamond", (8, 8))
    x = net.conv([[(-1, 3, 8, 8)]], 4)
    a2 = net.conv([[net.conv([[x]], 4)]], 4)
    b = net.conv([[x]], 4)
    net.conv([[a2], [b]], 4)
    return net


def test_asap_keeps_the_deepest_chain_on_one_stream(calibration: ModuleType) -> None:
    """RAF's ASAP: the longest path is one heavy chain on one stream, issued
    first; the short branch takes a stream of its own and joins by an event."""
    tl = calibration.asap(_diamond(calibration))
    # the nodes each stream runs, in order (the join's concat and convolution share its name)
    per_stream = [list(dict.fromkeys(k.loc for k in s.tasks if isinstance(k, Kernel))) for s in tl.streams]
    assert per_stream == [["diamond:conv0", "diamond:conv1", "diamond:conv2", "diamond:conv4"], ["diamond:conv3"]]
    assert tl.num_events == 2  # the fork and the join


def test_asap_is_race_free_and_reuses_streams(calibration: ModuleType, inception: object) -> None:
    tl = calibration.asap(inception)
    assert Counter(k.op for k in task_kernels(tl)) == Counter(k.op for k in task_kernels(calibration.sequential(inception)))
    # chains that cannot overlap share a stream: far fewer streams than chains
    widest = max(len(w) for w in calibration.wavefront_waves(inception))
    assert widest <= len(tl.streams) < len(calibration.chains(inception).streams)
    for mode in ("sink", "host"):
        r = emulate(tl, None, EmulatorOptions(device="V100", mode=mode, timing_only=True, check_races=True,
                                              progress=False))
        assert r.clean, (mode, r.report["races"][:1], r.report["deadlock"])


def test_barriers_order_the_stages_with_no_other_event(calibration: ModuleType, inception: object) -> None:
    """Between two stages every other stream of the ending stage records, stream
    0 waits for them all, then records once for every other stream of the next
    stage; edges into a later stage need nothing more. The list is race-free."""
    waves = calibration.wavefront_waves(inception)
    tl = calibration.event_staged(inception, waves, "wavefront")
    widths = [len(w) for w in waves]
    barrier_events = sum(a - 1 + b - 1 for a, b in zip(widths, widths[1:]))
    records = sum(isinstance(t, Record) for s in tl.streams for t in s.tasks)
    assert records == sum(isinstance(t, Wait) for s in tl.streams for t in s.tasks) == barrier_events
    assert Counter(k.op for k in task_kernels(tl)) == Counter(k.op for k in task_kernels(calibration.sequential(inception)))
    for mode in ("sink", "host"):
        r = emulate(tl, None, EmulatorOptions(device="V100", mode=mode, timing_only=True, check_races=True,
                                              progress=False))
        assert r.clean, (mode, r.report["races"][:1], r.report["deadlock"])


def test_rafs_graph_gives_every_convolution_an_activation_kernel(calibration: ModuleType,
                                                                  inception: object) -> None:
    ios_ops = Counter(op.op for n in inception.nodes for op in n.ops)  # type: ignore[attr-defined]
    for activation in ("bn_relu", "raf"):
        net = calibration.inception_v3(activation)
        ops = Counter(op.op for n in net.nodes for op in n.ops)
        assert ops["ge.conv2d"] == ios_ops["ge.conv2d"]
        assert ops["ge.add"] == ios_ops["ge.add"] + ios_ops["ge.conv2d"]  # a batch norm (or bias) each
        for node in net.nodes:
            for i, op in enumerate(node.ops):
                if op.op == "ge.conv2d":
                    assert node.ops[i + 1].op == "ge.add" and node.ops[i + 1].out == op.out


def test_rafs_relu_joins_the_concatenation_that_alone_reads_it(calibration: ModuleType) -> None:
    """RAF: a convolution, its batch norm and its ReLU are three kernels, but
    the ReLU of a value only a concatenation reads is done by the
    concatenation's kernel, which reads every part and writes the whole."""
    net = calibration.inception_v3("raf")
    readers: dict[int, list[int]] = {}
    for g, node in enumerate(net.nodes):
        for p in node.preds:
            readers.setdefault(p, []).append(g)
    convs = joined = 0
    for g, node in enumerate(net.nodes):
        if any(op.op == "ge.conv2d" for op in node.ops):
            convs += 1
            if node.ops[-1].op != "ge.relu":
                (j,) = readers[g]
                assert net.nodes[j].relu_join and len(net.nodes[j].terms) > 1
                joined += 1
    assert 0 < joined < convs
    tl = calibration.sequential(net)
    relus = [k for k in task_kernels(tl) if k.op == "ge.relu"]
    assert len(relus) == convs - joined + sum(n.relu_join for n in net.nodes)
    for k in relus:
        if len(k.inputs) > 1:  # a join: the parts side by side along channels
            assert sum(r.shape[1] for r in k.inputs) == k.outputs[0].shape[1]  # type: ignore[union-attr]
    assert not any(k.op == "ge.concat" for k in task_kernels(tl))  # every concatenation applies a ReLU


def test_raf_costs_and_error(calibration: ModuleType) -> None:
    assert calibration.raf_costs(["raf_op_us=12", "ai_cores=4", "raf_event_us=1"]) == (12.0, 1.0, ["ai_cores=4"])
    assert calibration.raf_costs([])[:2] == (calibration.RAF_OP_US, calibration.RAF_EVENT_US)
    low, high = calibration.RAF_MEASURED
    assert calibration.raf_error((low + high) / 2) == 0.0
    assert calibration.raf_error(high * 1.1) == pytest.approx(0.1)
    assert calibration.raf_error(low * 0.9) == pytest.approx(-0.1)


def test_a_dearer_operator_dispatch_leaves_less_to_gain(calibration: ModuleType) -> None:
    """RAF's row: with a cheap per-operator host cost its passes gain what the
    device allows; at RAF's VM cost the host paces the run and the gain shrinks."""
    cheap = calibration.raf_row("V100", "host", ["raf_op_us=5"])
    dear = calibration.raf_row("V100", "host", [])
    assert set(dear) == {"sequential", *calibration.RAF_POLICIES}

    def best(t: dict[str, float]) -> float:
        return t["sequential"] / min(t[k] for k in calibration.RAF_POLICIES)

    assert best(dear) < best(cheap)
    assert dear["sequential"] >= cheap["sequential"]
