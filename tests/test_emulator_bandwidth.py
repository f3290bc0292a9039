"""Shared DRAM bandwidth in the emulator (the fluid model of
``backends/emulator/bandwidth.py``), the bandwidth term of the lower bound, the
FP32 cube rate and the V100 profile.

Hand-calculated cases use a 910B2 whose cores draw a lot per cycle
(``core_ddr_bytes_per_cycle=200``: 360 GB/s per core, so a 4-core kernel alone
saturates the 1382.4 GB/s DRAM), no fixed kernel cost and vector kernels at the
lanes' rate (``vector_api_cycles=false``: no pipeline heads), so every duration
is bytes over a rate. Property tests check, on random kernel sets, that the fluid
model never finishes faster than total bytes / bandwidth nor slower than the
serial sum, never moves more than bandwidth x time in any window, and leaves a
task alone exactly as long as its roofline duration.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import available_profiles, load_profile
from geir.backends.emulator import EmulatorOptions, emulate
from geir.backends.task_list import ARENA, Binding, EndGraph, Kernel, Memcpy, Stream, Task, TaskList, TensorRef

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
H = 1382.4e3  # 910B2 DRAM, bytes/us
#: 360 GB/s per core, no fixed cost, no pipeline heads
FAST = ["core_ddr_bytes_per_cycle=200", "kernel_overhead_us=0", "vector_api_cycles=false"]


def out(i: int, shape: tuple[int, ...] = (4,)) -> TensorRef:
    return TensorRef(ARENA, 64 * (i + 1), shape, "f16")


def vec(i: int, nbytes: float, flops: float = 1.0, block_dim: int = 4, op: str = "ge.relu") -> Kernel:
    """A kernel with its own output buffer; relu runs on the 910B2's vector cores."""
    return Kernel(op=op, engine="AICore", inputs=[], outputs=[out(i)], flops=flops, bytes=nbytes,
                  block_dim=block_dim, loc=f"k{i}")


def tl(*streams: list[Task]) -> TaskList:
    return TaskList(streams=[Stream(i, 0, list(t) + [EndGraph()]) for i, t in enumerate(streams)],
                    arena_size=64 * 64, inputs=[Binding("x", TensorRef(ARENA, 0, (4,), "f16"))])


def run(task_list: TaskList, params: list[str] | None = None, device: str = "910B2", **kw: Any) -> Any:
    return emulate(task_list, None, EmulatorOptions(device=device, device_params=FAST if params is None else params,
                                                    timing_only=True, progress=False, **kw))


def ends(r: Any) -> list[float]:
    """End time of every kernel, in stream order."""
    return [r.schedule.end[g] for g in range(r.program.n) if r.program.tasks[g].kind == "kernel"]


# ============================================================ hand-calculated

def test_two_memory_bound_kernels_take_their_summed_bytes_at_dram_bandwidth() -> None:
    b = H * 50  # 50 us alone at the full bandwidth
    alone = run(tl([vec(0, b)])).report["makespan_us"]
    assert alone == pytest.approx(50)
    both = run(tl([vec(0, b)], [vec(1, b)])).report
    assert both["makespan_us"] == pytest.approx(100)  # (b + b) / H, not 50
    assert both["lower_bound"]["bound_by"] == "DRAM bandwidth"
    assert both["lower_bound"]["parts_us"]["DRAM bandwidth"] == pytest.approx(100)
    assert both["dram"]["saturated_us"] == pytest.approx(100)
    # the old model (no sharing) ran them side by side at full speed each
    assert run(tl([vec(0, b)], [vec(1, b)]), share_dram=False).report["makespan_us"] == pytest.approx(50)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12])
def test_n_memory_bound_kernels_on_n_streams_take_n_times_one(n: int) -> None:
    b = H * 10
    r = run(tl(*[[vec(i, b)] for i in range(n)])).report
    assert r["makespan_us"] == pytest.approx(10 * n)
    assert r["makespan_over_lower_bound"] == pytest.approx(1.0)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_compute_bound_kernels_on_n_streams_overlap(n: int) -> None:
    cost = CostModel(load_profile("910B2", FAST))
    k = vec(0, 100.0, flops=4 * cost.vector_rate * 40)  # 40 us of compute on 4 cores, 100 bytes
    assert cost.kernel(k).duration_us == pytest.approx(40)
    r = run(tl(*[[vec(i, 100.0, flops=4 * cost.vector_rate * 40)] for i in range(n)])).report
    assert r["makespan_us"] == pytest.approx(40)


def test_compute_bound_kernel_beside_a_memory_bound_one_overlaps_fully() -> None:
    cost = CostModel(load_profile("910B2", FAST))
    # compute-bound: 40 us of compute, moving 0.1 x H x 40 bytes (demand 0.1 H)
    compute = vec(0, 0.1 * H * 40, flops=4 * cost.vector_rate * 40)
    # memory-bound on 2 cores: 720 GB/s cap, 30 us alone; demands sum to 0.62 H
    memory = vec(1, 720e3 * 30, block_dim=2)
    r = run(tl([compute], [memory]))
    assert ends(r) == pytest.approx([40, 30])
    assert r.report["dram"]["saturated_us"] == 0


def test_a_kernel_that_ends_early_speeds_up_the_others_remainder() -> None:
    b = H * 10
    r = run(tl([vec(0, b)], [vec(1, 3 * b)]))
    # both at H/2 until the first has moved b (20 us); the second then has 2b left at H (20 us more)
    assert ends(r) == pytest.approx([20, 40])


def test_a_low_demand_kernel_keeps_its_demand_and_the_others_share_the_rest() -> None:
    cost = CostModel(load_profile("910B2", FAST))
    low = vec(0, 0.2 * H * 50, flops=4 * cost.vector_rate * 50)  # compute-bound: 50 us, demand 0.2 H
    big = vec(1, H * 40)  # memory-bound, 40 us alone
    r = run(tl([low], [big]))
    # low keeps 0.2 H (ends at 50); big gets 0.8 H: 40 / 0.8 = 50 us as well
    assert ends(r) == pytest.approx([50, 50])


def test_shares_follow_the_cores_when_all_are_memory_bound() -> None:
    # peak rates: 4 cores min(1440, 1382.4) GB/s, 2 cores 720 GB/s; the DRAM is split in that proportion
    b = 1e6
    r = run(tl([vec(0, b)], [vec(1, b, block_dim=2)]))
    weights = H + 720e3
    first = b / (H * H / weights)
    rest = b - first * H * 720e3 / weights
    assert ends(r) == pytest.approx([first, first + rest / 720e3])


def test_overhead_comes_before_the_bytes_and_takes_no_bandwidth() -> None:
    # with a 10 us fixed cost each, the second kernel's overhead overlaps the first's transfer
    b = H * 10
    slow = ["core_ddr_bytes_per_cycle=200", "kernel_overhead_us=10", "vector_api_cycles=false"]
    r = run(tl([vec(0, b)], [vec(1, b)]), slow)
    assert ends(r) == pytest.approx([30, 30])
    one = run(tl([vec(0, b)]), slow)
    assert one.report["makespan_us"] == pytest.approx(20)


def test_copies_and_kernels_share_the_bandwidth() -> None:
    # a copy moves twice its size through DRAM (read + write); beside a saturating kernel it slows down
    params = FAST + ["sdma_bandwidth_gbps=691.2", "sdma_overhead_us=0"]  # 2 x 691.2 = H: a copy alone saturates
    nbytes = 4 * 1024 * 1024
    copy = Memcpy(TensorRef(ARENA, 0, (nbytes // 2,), "f16"), TensorRef(ARENA, nbytes, (nbytes // 2,), "f16"))
    big = Kernel("ge.relu", "AICore", [], [TensorRef(ARENA, 2 * nbytes, (4,), "f16")], flops=1.0, bytes=2.0 * nbytes,
                 block_dim=4)
    t = TaskList(streams=[Stream(0, 0, [copy, EndGraph()]), Stream(1, 0, [big, EndGraph()])], arena_size=3 * nbytes)
    alone = 2.0 * nbytes / H
    r = run(t, params)
    assert r.report["makespan_us"] == pytest.approx(2 * alone, abs=1e-3)


def test_the_lower_bound_reports_every_term() -> None:
    r = run(tl([vec(0, H)], [vec(1, H)])).report
    parts = r["lower_bound"]["parts_us"]
    assert set(parts) >= {"critical path", "VectorCore", "DRAM bandwidth"}
    assert r["lower_bound_us"] == pytest.approx(max(parts.values()))
    assert r["engines"]["VectorCore"]["min_work_us"] == pytest.approx(2 * 4 * 1.0)
    assert r["engines"]["VectorCore"]["work_us"] == pytest.approx(2 * 4 * 2.0)  # held twice as long: shared


# ================================================================ properties

@st.composite
def kernel_sets(draw: Any) -> tuple[TaskList, list[str]]:
    """1-12 vector/cube kernels on 1-4 streams (no events), random bytes, FLOPs,
    block dims; a random per-core rate and fixed cost."""
    nstreams = draw(st.integers(1, 4))
    streams: list[list[Task]] = [[] for _ in range(nstreams)]
    for i in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(["ge.relu", "ge.conv2d"]))
        streams[draw(st.integers(0, nstreams - 1))].append(
            vec(i, draw(st.sampled_from([0.0, 1e3, 1e5, 1e7, 3e7])), flops=draw(st.sampled_from([1.0, 1e8, 1e10])),
                block_dim=draw(st.integers(1, 24)), op=op))
    params = [f"core_ddr_bytes_per_cycle={draw(st.sampled_from([8, 32, 200]))}",
              f"kernel_overhead_us={draw(st.sampled_from([0, 2]))}"]
    return tl(*streams), params


@SETTINGS
@given(kernel_sets())
def test_fluid_model_between_the_bandwidth_bound_and_the_serial_sum(case: tuple[TaskList, list[str]]) -> None:
    task_list, params = case
    r = run(task_list, params)
    rep = r.report
    cost = CostModel(load_profile("910B2", params))
    kernels = [t for s in task_list.streams for t in s.tasks if isinstance(t, Kernel)]
    serial = sum(cost.kernel(k).duration_us for k in kernels)
    total_bytes = sum(cost.kernel(k).dram_bytes for k in kernels)
    makespan = r.schedule.makespan  # the report rounds to the nanosecond
    assert makespan >= total_bytes / H * (1 - 1e-9)
    assert makespan <= serial * (1 + 1e-9)
    assert rep["lower_bound_us"] <= rep["makespan_us"] + 1e-3
    assert rep["dram"]["bytes"] == pytest.approx(total_bytes, abs=1)
    prog, sched = r.program, r.schedule
    for g in range(prog.n):
        if prog.tasks[g].kind == "kernel":
            assert sched.end[g] - sched.start[g] >= prog.duration[g] - 1e-6  # never faster than alone


@SETTINGS
@given(kernel_sets())
def test_bytes_moved_in_any_window_never_exceed_bandwidth_times_its_length(case: tuple[TaskList, list[str]]) -> None:
    task_list, params = case
    r = run(task_list, params)
    prog, sched = r.program, r.schedule
    flows = []  # (start of the byte transfer, end, bytes) of every task that moves bytes
    for g in range(prog.n):
        tid = prog.traffic_id[g]
        if tid >= 0:
            overhead, nbytes, _, _ = prog.traffic[tid]
            flows.append((sched.start[g] + overhead, sched.end[g], nbytes))
    points = sorted({f[0] for f in flows} | {f[1] for f in flows})
    for i, a in enumerate(points):
        for b in points[i + 1:]:
            inside = sum(n for s, e, n in flows if s >= a - 1e-9 and e <= b + 1e-9)
            assert inside <= H * (b - a) * (1 + 1e-9) + 1e-3


@SETTINGS
@given(st.sampled_from(sorted(available_profiles())), st.sampled_from(["ge.relu", "ge.conv2d", "ge.matmul"]),
       st.sampled_from(["f16", "f32"]), st.sampled_from([0.0, 1e4, 1e8]), st.sampled_from([1.0, 1e6, 1e10]),
       st.integers(0, 200))
def test_a_task_alone_takes_its_roofline_duration(device: str, op: str, dtype: str, nbytes: float, flops: float,
                                                   block_dim: int) -> None:
    k = Kernel(op=op, engine="AICore", inputs=[], outputs=[TensorRef(ARENA, 64, (16, 1024), dtype)], flops=flops,
               bytes=nbytes, block_dim=block_dim)
    t = TaskList(streams=[Stream(0, 0, [k, EndGraph()])], arena_size=64 + 16 * 1024 * 4)
    r = run(t, [], device=device)
    assert r.report["makespan_us"] == pytest.approx(CostModel(load_profile(device)).kernel(k).duration_us, abs=1e-3)


@pytest.mark.parametrize("engine,op", [("AICPU", "ge.nms"), ("HCCL", "ge.all_reduce")])
def test_aicpu_and_collectives_alone_are_unchanged_and_move_dram_bytes(engine: str, op: str) -> None:
    src = TensorRef(ARENA, 0, (100000,), "f32")
    k = Kernel(op=op, engine=engine, inputs=[src], outputs=[TensorRef(ARENA, 400000, (100000,), "f32")],
               attributes={"rank_size": 4})
    t = TaskList(streams=[Stream(0, 0, [k, EndGraph()])], arena_size=800000)
    c = CostModel(load_profile("910B2")).kernel(k)
    assert c.dram_bytes > 0 and c.memory_us == pytest.approx(c.dram_bytes / c.dram_rate)
    assert run(t, []).report["makespan_us"] == pytest.approx(c.duration_us, abs=1e-3)


# ============================================================== V100, FP32

def test_v100_profile() -> None:
    p = load_profile("V100")
    assert (p["ai_cores"], p["dram_bandwidth_gbps"], p["clock_mhz"]) == (80, 900.0, 1530)
    assert p.peak_fp16_tflops == pytest.approx(125.3, abs=0.1)
    assert 80 * p["clock_mhz"] * p["cube_fp32_flops_per_cycle"] / 1e6 == pytest.approx(15.67, abs=0.01)
    # V100's L2 is in its whitepaper; how much of each peak its kernels sustain is not
    assert p["l2_bytes"] == 6144 * 1024 and "l2_bytes" not in p.assumed
    for key in ("host_launch_us", "event_record_us", "event_wait_us", "kernel_overhead_us", "cube_efficiency",
                "dram_efficiency", "core_l2_bytes_per_cycle", "vector_min_bytes_per_core"):
        assert key in p.assumed


def test_f32_cube_ops_use_the_fp32_rate() -> None:
    cost = CostModel(load_profile("V100", ["kernel_overhead_us=0"]))
    f16 = Kernel("ge.conv2d", "AICore", [], [TensorRef(ARENA, 0, (80 * 4096,), "f16")], flops=1e9, bytes=1.0)
    f32 = Kernel("ge.conv2d", "AICore", [], [TensorRef(ARENA, 0, (80 * 4096,), "f32")], flops=1e9, bytes=1.0)
    assert cost.kernel(f16).units == cost.kernel(f32).units == 80
    assert cost.kernel(f32).compute_us == pytest.approx(8 * cost.kernel(f16).compute_us)
    # Ascend profiles state the FP32 cube rate as the FP16 one (precision_mode allow_fp32_to_fp16)
    b2 = CostModel(load_profile("910B2"))
    assert b2.kernel(f32).compute_us == pytest.approx(b2.kernel(f16).compute_us)


def test_a_profile_without_the_fp32_rate_takes_the_fp16_one(tmp_path: Any) -> None:
    import json
    import os
    from geir.backends.device_profile import DEVICES_DIR
    with open(os.path.join(DEVICES_DIR, "910B2.json")) as f:
        data = json.load(f)
    del data["params"]["cube_fp32_flops_per_cycle"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    p = load_profile(str(path))
    assert p["cube_fp32_flops_per_cycle"] == p["cube_flops_per_cycle"]
    assert "not stated" in p.sources["cube_fp32_flops_per_cycle"]
