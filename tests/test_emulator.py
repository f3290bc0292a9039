"""The Ascend runtime emulator: device profiles, the cost model, the simulator,
the happens-before race checker, deadlock reports, numerics through the arena,
reports and traces, and ``ge-run`` in emulator mode.

Property tests build random DAGs of kernels, split them onto 2–4 streams with a
record/wait pair on every cross-stream edge, and check that the schedule is
clean and its numbers equal a serial run; that removing any one wait is caught
(a race, or — when other events still order the edge — the unconsumed record);
and that moving a tensor onto the bytes of another live one is caught (a race,
or wrong numbers).
"""

from __future__ import annotations

import glob
import io
import json
import os
import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.attributes import IntegerAttr
from geir.backends.cost_model import AICORE, AICPU, DVPP, HCCL, SDMA, VECTOR, CostModel
from geir.backends.device_profile import PARAMS, available_profiles, load_profile
from geir.backends.emulator import REQUIRED_KEYS, EmulatorOptions, emulate
from geir.backends.emulator.progress import ProgressBar, make_progress
from geir.backends.emulator.trace import trace_events
from geir.backends.task_list import (ARENA, WEIGHTS, Binding, EndGraph, Kernel, Memcpy, Record, Stream, Task, TaskList,
                                TensorRef, Wait, WeightBlob)
from geir.diagnostics import DiagnosticError
from tool_paths import find_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICES = os.path.join(ROOT, "backends", "devices")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ================================================================== helpers

def ref(offset: int, shape: tuple[int, ...] = (4,), dtype: str = "f32", space: str = ARENA) -> TensorRef:
    return TensorRef(space, offset, shape, dtype)


def kernel(op: str, inputs: list[TensorRef | None], outputs: list[TensorRef], loc: str = "", engine: str = "AICore",
           **kw: Any) -> Kernel:
    return Kernel(op=op, engine=engine, inputs=inputs, outputs=outputs, loc=loc, **kw)


def task_list(*streams: list[Task], arena: int = 1024, inputs: dict[str, TensorRef] | None = None,
              outputs: dict[str, TensorRef] | None = None, priorities: list[int] | None = None,
              **kw: Any) -> TaskList:
    return TaskList(streams=[Stream(i, (priorities or [0] * len(streams))[i], list(t) + [EndGraph()])
                             for i, t in enumerate(streams)],
                    arena_size=arena, inputs=[Binding(k, v) for k, v in (inputs or {}).items()],
                    outputs=[Binding(k, v) for k, v in (outputs or {}).items()], **kw)


def timing(tl: TaskList, **kw: Any) -> Any:
    return emulate(tl, None, EmulatorOptions(timing_only=True, progress=False, **kw))


def conv_kernel(x: tuple[int, ...], w: tuple[int, ...], y: tuple[int, ...], **kw: Any) -> Kernel:
    """A convolution with its weights in the weight space, in f16."""
    return kernel("ge.conv2d", [ref(0, x, "f16"), ref(0, w, "f16", WEIGHTS)], [ref(0, y, "f16")], **kw)


X = np.array([1.0, -2.0, 3.0, -4.0], np.float32)


# ========================================================== device profiles

def test_shipped_profiles_load_and_cite_every_number() -> None:
    names = available_profiles()
    assert {"910B2", "310P3"} <= set(names)
    for name in names:
        with open(os.path.join(DEVICES, name + ".json")) as f:
            data = json.load(f)
        assert set(data["params"]) == set(PARAMS)
        for key, entry in data["params"].items():
            assert entry.get("source") or (entry.get("assumed") and entry.get("reason")), (name, key)
        profile = load_profile(name)
        assert profile.assumed == {k for k, e in data["params"].items() if e.get("assumed")}
        assert profile.fitted == {k for k, e in data["params"].items() if e.get("fitted")}
        assert not profile.fitted & profile.assumed  # a fitted number names its fit as its source


def test_profile_numbers_match_the_reference() -> None:
    b2 = load_profile("910B2")
    assert (b2["ai_cores"], b2["vector_cores"], b2["aicpu_cores"], b2["clock_mhz"]) == (24, 48, 6, 1800)
    assert b2["max_tasks_per_stream"] == 2013 and b2["max_streams"] == 1984 and b2["max_events"] == 65536
    assert abs(b2.peak_fp16_tflops - 353.9) < 0.5 and b2["cube_vector_split"]
    p3 = load_profile("Ascend310P3")
    assert (p3["ai_cores"], p3["vector_cores"], p3["aicpu_cores"]) == (8, 7, 7)
    assert abs(p3.peak_fp16_tflops - 69.5) < 0.5 and not p3["cube_vector_split"]
    assert p3["max_tasks_per_stream"] == 2042 and p3["max_events"] == 1023
    for key in ("host_launch_us", "event_record_us", "event_wait_us"):
        assert key in b2.assumed  # no public number: marked, and overridable
    # measured on a 910B2 (cann-bench): a negligible 64^3 MatMul takes 1.91 us, an 8192^3 one 0.77 of peak
    assert b2["kernel_overhead_us"] == 1.9 and b2["cube_efficiency"] == 0.77
    assert not {"kernel_overhead_us", "cube_efficiency"} & b2.assumed
    assert all("cann-bench" in b2.sources[k] for k in ("kernel_overhead_us", "cube_efficiency"))
    # the 310P3's free numbers are fitted to Huawei's measured device times, and say so
    for key in ("kernel_overhead_us", "cube_efficiency"):
        assert key not in p3.assumed and "bench/fit_calibration.py" in p3.sources[key]
    assert p3["l2_bytes"] == 16 << 20 and b2["l2_bytes"] == 192 << 20


def test_profile_overrides() -> None:
    p = load_profile("910B2", ["host_launch_us=12.5", "ai_cores=20", "cube_vector_split=false"])
    assert p["host_launch_us"] == 12.5 and p["ai_cores"] == 20 and p["cube_vector_split"] is False
    assert "host_launch_us" not in p.assumed and "command line" in p.sources["host_launch_us"]
    assert abs(p.peak_fp16_tflops - 20 * 1800 * 8192 / 1e6) < 1e-6


@pytest.mark.parametrize("override, message", [
    ("ai_cors=3", "unknown device parameter 'ai_cors'"),
    ("ai_cores=2.5", "'ai_cores' must be a whole number"),
    ("ai_cores=0", "'ai_cores' must be at least 1"),
    ("clock_mhz=fast", "'clock_mhz' must be a number"),
    ("clock_mhz=-1", "'clock_mhz' must be positive"),
    ("host_launch_us", "expects KEY=VALUE"),
    ("peak_fp16_tflops=10", "is derived"),
])
def test_profile_override_errors(override: str, message: str) -> None:
    with pytest.raises(DiagnosticError) as e:
        load_profile("910B2", [override])
    assert message in e.value.format()


def test_a_profile_says_what_its_times_were_held_against() -> None:
    p3, v100 = load_profile("310P3"), load_profile("V100")
    assert p3.calibration is not None and v100.calibration is not None
    assert "310P3" in p3.calibration.against and "bench/fidelity.py" in p3.calibration.command
    assert "bench/more_310p3/measured-310p3.csv" in p3.calibration.mape_percent
    assert "V100" in v100.calibration.against and v100.calibration.command == "python bench/calibration.py"
    b2 = load_profile("910B2").calibration  # its MatMul kernels only: no whole-model time is public
    assert b2 is not None and "MatMul" in b2.against and b2.command == "python bench/fidelity_910b2.py"
    for name in ("910B4", "910A", "A100"):  # no measured time of these was found
        assert load_profile(name).calibration is None
    # the report carries it, with the numbers --device-param changed from the profile as shipped
    relu = kernel("ge.relu", [ref(0)], [ref(16)])
    report = timing(task_list([relu]), device="310P3", device_params=["kernel_overhead_us=2", "ai_cores=4"]).report
    assert report["calibration"]["result"] == p3.calibration.result
    assert report["calibration"]["overridden"] == ["ai_cores", "kernel_overhead_us"]
    assert timing(task_list([relu]), device="310P3").report["calibration"]["overridden"] == []
    assert timing(task_list([relu]), device="910B4").report["calibration"] is None


@SETTINGS
@given(st.lists(st.integers(1, 4096), min_size=1, max_size=6), st.sampled_from(["310P3", "910B2", "V100"]),
       st.sampled_from(["sink", "host"]), st.floats(0.0, 500.0))
def test_a_host_timed_run_is_its_makespan_plus_the_hosts_synchronous_execute(sizes: list[int], device: str,
                                                                              mode: str, execute: float) -> None:
    # ais_bench's NPU_compute_time is the host's clock around aclmdlExecute: the device's
    # makespan, which host timing leaves as it is, plus the profile's model_execute_us
    chain = [kernel("ge.relu", [ref(0, (n,))], [ref(16384, (n,))]) for n in sizes]
    tl = task_list(chain, arena=32768)
    plain = timing(tl, device=device, mode=mode).report
    params = [f"model_execute_us={execute!r}"]
    timed = timing(tl, device=device, mode=mode, host_timed=True, device_params=params).report
    assert "host_timed" not in plain and timed["makespan_us"] == plain["makespan_us"]
    assert timed["host_timed"]["execute_us"] == execute
    assert timed["host_timed"]["latency_us"] == pytest.approx(plain["makespan_us"] + execute, abs=1e-3)
    assert load_profile(device)["model_execute_us"] >= 0


def test_unknown_device_and_bad_files(tmp_path: Any) -> None:
    with pytest.raises(DiagnosticError, match="unknown device '910X'"):
        load_profile("910X")
    with pytest.raises(DiagnosticError) as e:
        load_profile("910B")
    assert "ambiguous" in e.value.format()
    with open(os.path.join(DEVICES, "910B2.json")) as f:
        data = json.load(f)
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(data))
    assert load_profile(str(path))["ai_cores"] == 24
    del data["params"]["clock_mhz"]["source"]
    path.write_text(json.dumps(data))
    with pytest.raises(DiagnosticError, match="neither a 'source' nor"):
        load_profile(str(path))
    data["params"]["clock_mhz"]["source"] = "x"
    data["derived"]["peak_fp16_tflops"]["value"] = 999
    path.write_text(json.dumps(data))
    with pytest.raises(DiagnosticError, match="derived 'peak_fp16_tflops'"):
        load_profile(str(path))
    path.write_text("{")
    with pytest.raises(DiagnosticError, match="not valid JSON"):
        load_profile(str(path))


# ================================================================ cost model

def test_block_dim_from_the_kernel_tiling_capped_at_the_cores() -> None:
    cost = CostModel(load_profile("910B2"))  # 24 AI cores, 48 vector cores
    # A conv is an img2col GEMM, M = Ho x Wo, N = Cout, K = Cin x kh x kw; its output is cut
    # into the largest base blocks that still give every core one, down to a 16 x 16 fractal.
    # 16 -> 16 channels on 8 x 8: M = 64, N = 16: even 16 x 16 blocks make only 4.
    assert cost.kernel(conv_kernel((1, 16, 8, 8), (16, 16, 3, 3), (1, 16, 8, 8), flops=1e6)).units == 4
    # 64 -> 64 channels on 112 x 112: M = 12544, N = 64: 98 blocks of 128 x 256, on every core.
    big = conv_kernel((1, 64, 112, 112), (64, 64, 3, 3), (1, 64, 112, 112), flops=1e9)
    assert cost.kernel(big).units == 24
    # a GEMV (M = 1 -> 16, N = 64) has 4 fractal blocks; K = 8192 is split over the idle
    # cores, 24 // 4 = 6 ways (each share keeps 8192 / 6 >= 1024 of K); K = 2048 only 2 ways
    for k, units in ((8192, 24), (2048, 8)):
        gemv = kernel("ge.matmul", [ref(0, (1, k), "f16"), ref(0, (k, 64), "f16", WEIGHTS)], [ref(0, (1, 64), "f16")])
        assert cost.kernel(gemv).units == units
    # a vector kernel takes one core per 8 KiB it moves, at most every vector core
    relu = kernel("ge.relu", [ref(0, (1, 64, 32, 32), "f16")], [ref(0, (1, 64, 32, 32), "f16")])
    assert cost.kernel(relu).units == 32  # 2 x 128 KiB / 8 KiB
    assert cost.kernel(kernel("ge.relu", [ref(0)], [ref(16)])).units == 1
    wide = kernel("ge.relu", [ref(0, (1, 64, 112, 112), "f16")], [ref(0, (1, 64, 112, 112), "f16")])
    assert cost.kernel(wide).units == 48
    # a reduction splits its 4 independent rows, never a row, though its 1 MiB would fill 48 cores
    rows = kernel("ge.reduce_sum", [ref(0, (4, 131072), "f16")], [ref(0, (4, 1), "f16")])
    assert cost.kernel(rows).units == 4
    # an explicit block dim wins, capped at the cores; _op_aicore_num caps the tiling
    assert cost.kernel(conv_kernel((1, 16, 8, 8), (16, 16, 3, 3), (1, 16, 8, 8), block_dim=7)).units == 7
    assert cost.kernel(conv_kernel((1, 16, 8, 8), (16, 16, 3, 3), (1, 16, 8, 8), block_dim=99)).units == 24
    capped = conv_kernel((1, 64, 112, 112), (64, 64, 3, 3), (1, 64, 112, 112), attributes={"_op_aicore_num": 8})
    assert cost.kernel(capped).units == 8


def test_pools_follow_the_engine_and_the_cube_vector_split() -> None:
    b2, p3 = CostModel(load_profile("910B2")), CostModel(load_profile("310P3"))
    relu = kernel("ge.relu", [ref(0)], [ref(16)])
    conv = kernel("ge.conv2d", [ref(0)], [ref(16)])
    assert b2.kernel(relu).pool == VECTOR and b2.kernel(conv).pool == AICORE
    assert p3.kernel(relu).pool == AICORE  # 310P: vector units inside the AI cores
    assert b2.kernel(kernel("ge.nms", [ref(0)], [ref(16)], engine="AICPU")).pool == AICPU
    assert b2.kernel(kernel("ge.dvpp_decode", [ref(0)], [ref(16, (1080, 1920, 3), "ui8")], engine="DVPP")).pool == DVPP
    assert b2.kernel(kernel("ge.all_reduce", [ref(0)], [ref(16)], engine="HCCL")).pool == HCCL
    assert b2.memcpy(Memcpy(ref(0), ref(16))).pool == SDMA
    with pytest.raises(DiagnosticError, match="unknown engine 'TPU'"):
        b2.kernel(kernel("ge.relu", [ref(0)], [ref(16)], engine="TPU"))


def test_roofline_durations() -> None:
    profile = load_profile("910B2")
    cost = CostModel(profile)
    overhead = profile["kernel_overhead_us"]
    cube_core = 1800 * 8192 * 0.77  # FLOP/us of one core: clock x fractal MACs x 2 x cube_efficiency
    dram = min(24 * 32 * 1800, 1382.4e3 * 1.0)  # B/us: 24 cores x ddr_rate, at most DRAM x dram_efficiency
    l2 = 24 * 110 * 1800  # B/us: 24 cores x l2_rate
    # compute-bound: a 3x3 conv, 64 -> 64 channels on 112 x 112 (M = 12544, N = 64, K = 576, all
    # aligned to 16): 2 M N K FLOPs in 98 blocks of 128 x 256 over 24 cores, 5 waves (120 / 98)
    big = cost.kernel(conv_kernel((1, 64, 112, 112), (64, 64, 3, 3), (1, 64, 112, 112)))
    assert big.compute_us == pytest.approx(2 * 12544 * 64 * 576 * (120 / 98) / (24 * cube_core))  # 3.2 / 0.77
    # its weights (64 x 64 x 9 x 2 B) from DRAM, its input and output (2 x 1.6 MB) from L2
    assert big.memory_us == pytest.approx(64 * 64 * 9 * 2 / dram + 2 * 64 * 112 * 112 * 2 / l2)
    # five rounds of double-buffered blocks: the first round's loads are not hidden
    assert big.compute_us > big.memory_us
    assert big.duration_us == pytest.approx(overhead + big.compute_us + big.memory_us / 5)
    # memory-bound: an FC layer at batch 1 (9216 -> 4096) streams its 72 MiB of f16 weights from DRAM;
    # its compute is 2 x 16 x 4096 x 9216 padded FLOPs in 32 blocks of 256 x 128 (16 x 128 on a
    # one-row M) over 24 cores (48 / 32), each block as long as its panels take to stream into L1
    # (16 + 128 rows of 9216 f16 at 110 B/cycle; the 2.25 MiB B panel does not stay in L1), weighed
    # against the block's multiplications at the rate the cube sustains (0.77 of 8192 FLOP/cycle)
    fc = cost.kernel(kernel("ge.matmul", [ref(0, (1, 9216), "f16"), ref(0, (9216, 4096), "f16", WEIGHTS)],
                            [ref(0, (1, 4096), "f16")]))
    feed = (2 * 9216 * (16 + 128) / 110) / (2 * 16 * 128 * 9216 / (8192 * 0.77))
    assert fc.compute_us == pytest.approx(2 * 16 * 4096 * 9216 * (48 / 32) * feed / (24 * cube_core))
    assert fc.memory_us == pytest.approx(9216 * 4096 * 2 / dram + (9216 + 4096) * 2 / l2)
    # two rounds: the last round's multiplications are not hidden
    assert fc.memory_us > fc.compute_us
    assert fc.duration_us == pytest.approx(overhead + fc.memory_us + fc.compute_us / 2)
    assert fc.dram_bytes == 9216 * 4096 * 2 and fc.dram_rate == dram  # what the fluid model shares
    # 8-bit integer cube ops do twice the MACs per cycle: half the compute of the same f16 product
    a, b = ref(0, (1024, 1024), "f16"), ref(0, (1024, 1024), "f16", WEIGHTS)
    f16 = cost.kernel(kernel("ge.matmul", [a, b], [ref(0, (1024, 1024), "f16")]))
    int8 = cost.kernel(kernel("ge.matmul_integer", [ref(0, (1024, 1024), "i8"), ref(0, (1024, 1024), "i8", WEIGHTS)],
                              [ref(0, (1024, 1024), "i32")]))
    assert f16.compute_us == pytest.approx(2 * 1024 ** 3 * (48 / 32) / (24 * cube_core))  # 32 blocks of 128 x 256
    assert int8.compute_us == pytest.approx(f16.compute_us / 2)
    frame = cost.kernel(kernel("ge.dvpp_decode", [ref(0, (100,), "ui8")], [ref(0, (1080, 1920, 3), "ui8")],
                               engine="DVPP"))
    assert frame.duration_us == pytest.approx(profile["dvpp_overhead_us"] + 1e6 / 128)
    ar = cost.kernel(kernel("ge.all_reduce", [ref(0, (1000,), "f32")], [ref(0, (1000,), "f32")], engine="HCCL",
                            attributes={"rank_size": 4}))
    assert ar.duration_us == pytest.approx(profile["hccl_latency_us"] + 1.5 * 4000 / 30e3)
    cp = cost.memcpy(Memcpy(ref(0, (25000,)), ref(100000, (25000,))))
    assert cp.duration_us == pytest.approx(profile["sdma_overhead_us"] + 1.0)


# ============================================================ basic behaviour

def test_single_stream_numerics() -> None:
    x, a, y = ref(0), ref(16), ref(32)
    tl = task_list([kernel("ge.relu", [x], [a]), kernel("ge.add", [a, x], [y])], inputs={"x": x}, outputs={"y": y})
    r = emulate(tl, {"x": X}, EmulatorOptions(progress=False))
    assert r.clean
    np.testing.assert_array_equal(r.outputs["y"], np.maximum(X, 0) + X)


def test_custom_kernel_runner() -> None:
    x, y = ref(0), ref(16)
    tl = task_list([kernel("my.double", [x], [y])], inputs={"x": x}, outputs={"y": y})
    r = emulate(tl, {"x": X}, EmulatorOptions(run_op=lambda op, attrs, ins, n: [ins[0] * 2], progress=False))
    np.testing.assert_array_equal(r.outputs["y"], X * 2)


def test_weights_and_memcpy() -> None:
    w = WeightBlob("w", 0, np.array([10, 20, 30, 40], np.float32))
    x, y, z = ref(0), ref(16), ref(32)
    tl = task_list([kernel("ge.add", [x, ref(0, space=WEIGHTS)], [y]), Memcpy(y, z)], inputs={"x": x},
                   outputs={"z": z}, weights=[w], weight_size=16)
    r = emulate(tl, {"x": X}, EmulatorOptions(progress=False))
    np.testing.assert_array_equal(r.outputs["z"], X + w.data)
    assert r.report["task_counts"]["memcpy"] == 1 and r.report["engines"]["SDMA"]["tasks"] == 1


def test_random_inputs_match_the_interpreter_draw() -> None:
    x, y = ref(0), ref(16)
    tl = task_list([kernel("ge.neg", [x], [y])], inputs={"x": x}, outputs={"y": y})
    from geir.backends.emulator import random_task_inputs
    r = emulate(tl, None, EmulatorOptions(seed=3, progress=False))
    np.testing.assert_array_equal(r.outputs["y"], -random_task_inputs(tl, 3)["x"])


@pytest.mark.parametrize("tasks, message", [
    ([kernel("ge.relu", [ref(0)], [ref(2000)])], "outside the arena of 1024 bytes"),
    ([kernel("ge.relu", [ref(0)], [ref(0, space=WEIGHTS)])], "writes the read-only weight space"),
    ([kernel("ge.relu", [ref(0)], [ref(16)], engine="NPU9")], "unknown engine 'NPU9'"),
    ([Memcpy(ref(0, (4,)), ref(16, (8,)))], "copies 16 bytes into a 32-byte destination"),
    ([Wait(-1)], "negative event id"),
])
def test_malformed_task_lists_are_diagnostics(tasks: list[Task], message: str) -> None:
    with pytest.raises(DiagnosticError) as e:
        timing(task_list(tasks))
    assert message in e.value.format()


def test_an_engine_the_device_lacks() -> None:
    tl = task_list([kernel("ge.dvpp_resize", [ref(0, (8, 8, 3), "ui8")], [ref(256, (4, 4, 3), "ui8")],
                           engine="DVPP")])
    with pytest.raises(DiagnosticError, match="has no DVPP units"):
        timing(tl, device_params=["dvpp_channels=0"])


def test_input_errors() -> None:
    x, y = ref(0), ref(16)
    tl = task_list([kernel("ge.neg", [x], [y])], inputs={"x": x}, outputs={"y": y})
    with pytest.raises(DiagnosticError, match="input 'x' .* is missing"):
        emulate(tl, {}, EmulatorOptions(progress=False))
    with pytest.raises(DiagnosticError, match="has shape \\[2\\]"):
        emulate(tl, {"x": np.zeros(2, np.float32)}, EmulatorOptions(progress=False))
    with pytest.raises(DiagnosticError, match="'q' is not an input"):
        emulate(tl, {"x": X, "q": X}, EmulatorOptions(progress=False))


def test_a_failing_kernel_is_a_diagnostic_naming_the_task() -> None:
    x, y = ref(0), ref(16)
    tl = task_list([kernel("ge.neg", [x], [y], loc="model.onnx:7:3")], inputs={"x": x}, outputs={"y": y})

    def broken(op: str, attrs: Any, ins: Any, n: int) -> list[np.ndarray]:
        raise ValueError("bad shape")
    with pytest.raises(DiagnosticError) as e:
        emulate(tl, {"x": X}, EmulatorOptions(run_op=broken, progress=False))
    assert "stream 0 task 0 (ge.neg @ model.onnx:7:3): the kernel failed: ValueError: bad shape" in e.value.format()


def test_limits_are_warnings() -> None:
    tl = task_list([kernel("ge.relu", [ref(0)], [ref(16)]) for _ in range(30)])
    r = timing(tl, device_params=["max_tasks_per_stream=10"])
    assert any("more than the device's 10 per stream" in w for w in r.report["warnings"])


# ================================================================ races

def test_two_streams_writing_the_same_bytes_race() -> None:
    x = ref(0)
    tl = task_list([kernel("ge.relu", [x], [ref(64)], loc="a.py:1:1")],
                   [kernel("ge.neg", [x], [ref(64)], loc="b.py:2:2")], inputs={"x": x})
    r = timing(tl)
    assert len(r.races) == 1
    race = r.report["races"][0]
    assert race["kind"] == "write-write" and race["bytes"] == [64, 80]
    assert {race["first"]["stream"], race["second"]["stream"]} == {0, 1}
    assert {race["first"]["loc"], race["second"]["loc"]} == {"a.py:1:1", "b.py:2:2"}
    assert "no event orders them" in race["message"] and "a.py:1:1" in race["message"]


def test_read_of_another_streams_output_without_an_event_races() -> None:
    x, a = ref(0), ref(16)
    tl = task_list([kernel("ge.relu", [x], [a], loc="producer")], [kernel("ge.neg", [a], [ref(32)], loc="consumer")],
                   inputs={"x": x})
    r = timing(tl)
    kinds = {race["kind"] for race in r.report["races"]}
    assert kinds & {"read-write", "write-read"}
    assert r.report["races"][0]["bytes"] == [16, 32]


def test_an_event_orders_the_streams() -> None:
    x, a = ref(0), ref(16)
    tl = task_list([kernel("ge.relu", [x], [a]), Record(0)], [Wait(0), kernel("ge.neg", [a], [ref(32)])],
                   inputs={"x": x}, outputs={"y": ref(32)})
    r = emulate(tl, {"x": X}, EmulatorOptions(progress=False))
    assert r.clean and not r.report["uninitialised_reads"]
    np.testing.assert_array_equal(r.outputs["y"], -np.maximum(X, 0))


def test_transitive_order_through_a_third_stream_is_no_race() -> None:
    x, a, b = ref(0), ref(16), ref(32)
    tl = task_list([kernel("ge.relu", [x], [a]), Record(0)],
                   [Wait(0), kernel("ge.neg", [x], [b]), Record(1)],
                   [Wait(1), kernel("ge.add", [a, b], [ref(48)])], inputs={"x": x})
    assert timing(tl).clean


def test_write_after_read_without_an_event_races() -> None:
    x, a = ref(0), ref(16)
    tl = task_list([kernel("ge.relu", [x], [a]), Record(0), kernel("ge.neg", [a], [ref(32)], loc="reader")],
                   [Wait(0), kernel("ge.sigmoid", [x], [a], loc="overwriter")], inputs={"x": x})
    r = timing(tl)
    assert [race["kind"] for race in r.report["races"]] == ["read-write"]
    assert {r.report["races"][0]["first"]["loc"], r.report["races"][0]["second"]["loc"]} == {"reader", "overwriter"}


def test_partial_overlap_is_reported_on_the_shared_bytes() -> None:
    x = ref(0)
    tl = task_list([kernel("ge.relu", [x], [ref(64, (8,))])], [kernel("ge.neg", [x], [ref(80, (8,))])],
                   inputs={"x": x})
    assert timing(tl).report["races"][0]["bytes"] == [80, 96]


def test_uninitialised_reads_are_reported() -> None:
    tl = task_list([kernel("ge.relu", [ref(512)], [ref(16)], loc="l")])
    r = timing(tl)
    assert r.report["uninitialised_reads"][0]["bytes"] == [512, 528]


def test_race_checking_can_be_switched_off() -> None:
    x = ref(0)
    tl = task_list([kernel("ge.relu", [x], [ref(64)])], [kernel("ge.neg", [x], [ref(64)])], inputs={"x": x})
    r = timing(tl, check_races=False)
    assert r.report["races"] == [] and r.report["race_check"] is False


# ================================================================ deadlocks

def test_wait_without_a_record_is_a_deadlock_naming_the_wait() -> None:
    tl = task_list([kernel("ge.relu", [ref(0)], [ref(16)])], [Wait(7, loc="model.mlir:9:3"),
                                                             kernel("ge.neg", [ref(0)], [ref(32)])])
    r = timing(tl)
    dl = r.report["deadlock"]
    assert dl is not None and r.deadlock is not None
    assert "stream 1 task 0 (wait event 7 @ model.mlir:9:3)" in dl["message"]
    assert "event 7 is never recorded" in dl["message"]
    assert dl["stalled"][0]["stream"] == 1 and dl["stalled"][0]["index"] == 0 and dl["cycle"] is None
    assert r.outputs is None and r.report["finished_tasks"] < r.report["tasks"]


def test_cycle_of_waits_is_a_deadlock() -> None:
    tl = task_list([Wait(0, loc="w0"), Record(1)], [Wait(1, loc="w1"), Record(0)])
    r = timing(tl)
    dl = r.report["deadlock"]
    assert dl["cycle"] is not None and sorted(dl["cycle"]) == [0, 1]
    assert "cycle of waits" in dl["message"]
    assert {s["loc"] for s in dl["stalled"]} == {"w0", "w1"}


def test_host_mode_deadlocks_too() -> None:
    tl = task_list([Wait(0), Record(1)], [Wait(1), Record(0)])
    assert timing(tl, mode="host").report["deadlock"]["cycle"] is not None


def test_second_wait_on_one_record_stalls_the_event_was_consumed() -> None:
    tl = task_list([Record(3, loc="rec")], [Wait(3)], [Wait(3)])
    dl = timing(tl).report["deadlock"]
    assert "already consumed" in dl["stalled"][0]["reason"]


def test_lost_and_unconsumed_records() -> None:
    # the relu outlasts both records, so r2 overwrites r1 before the wait consumes either
    relu = kernel("ge.relu", [ref(0)], [ref(16)], flops=1e6)
    profile = load_profile("910B2")
    assert CostModel(profile).kernel(relu).duration_us > 2 * profile["event_record_us"]
    tl = task_list([Record(0, loc="r1"), Record(0, loc="r2")], [relu, Wait(0)])
    r = timing(tl)
    lost = r.report["event_stats"]["lost_records"]
    assert len(lost) == 1 and lost[0]["record"]["loc"] == "r2"
    tl = task_list([Record(0, loc="lonely")])
    stats = timing(tl).report["event_stats"]
    assert stats["unconsumed_records"][0]["record"]["loc"] == "lonely"


# ================================================================ timing

def test_small_kernels_on_two_streams_overlap() -> None:
    a = kernel("ge.conv2d", [ref(0)], [ref(64)], flops=1e8)
    b = kernel("ge.conv2d", [ref(0)], [ref(128)], flops=1e8)
    one = timing(task_list([a, b], inputs={"x": ref(0)})).report["makespan_us"]
    two = timing(task_list([a], [b], inputs={"x": ref(0)})).report["makespan_us"]
    assert two < 0.6 * one


def test_kernels_needing_every_core_serialise_even_on_two_streams() -> None:
    a = kernel("ge.conv2d", [ref(0)], [ref(64)], flops=1e9, block_dim=24)
    b = kernel("ge.conv2d", [ref(0)], [ref(128)], flops=1e9, block_dim=24)
    one = timing(task_list([a, b], inputs={"x": ref(0)})).report["makespan_us"]
    two = timing(task_list([a], [b], inputs={"x": ref(0)})).report["makespan_us"]
    assert two == pytest.approx(one)


def test_host_mode_is_slower_than_sink() -> None:
    tasks = [kernel("ge.relu", [ref(0)], [ref(16)]) for _ in range(20)]
    sink = timing(task_list(tasks, inputs={"x": ref(0)})).report
    host = timing(task_list(tasks, inputs={"x": ref(0)}), mode="host").report
    assert host["makespan_us"] > sink["makespan_us"]
    # twenty launches: the end-of-graph marker is no task the host launches
    assert host["makespan_us"] >= 20 * load_profile("910B2")["host_launch_us"] - 1e-9
    # the last kernel runs after the host's last launch: the path runs through the host
    assert host["engines"]["Host"]["tasks"] == 20 and host["critical_path"]["after_host_launches"]
    assert host["lower_bound"]["parts_us"]["Host"] == pytest.approx(20 * load_profile("910B2")["host_launch_us"])


def test_the_host_launches_no_task_for_a_fused_op_a_reshape_or_the_end_of_the_graph() -> None:
    # runtime v2 lowers a reshape to its input's address and launches nothing; UB
    # fusion merges a fused op into its head's task; an RTS op is a task of its own
    head = kernel("ge.conv2d", [ref(0, (1, 16, 4, 4), "f16")], [ref(512, (1, 16, 4, 4), "f16")])
    fused = kernel("ge.relu", [ref(512, (1, 16, 4, 4), "f16")], [ref(0, (1, 16, 4, 4), "f16")],
                   attributes={"fused_operand": IntegerAttr(0)})
    reshape = kernel("ge.reshape", [ref(0, (1, 16, 4, 4), "f16")], [ref(512, (16, 16), "f16")])
    cmo = kernel("ge.cmo", [ref(512, (16, 16), "f16")], [], engine="RTS")
    tl = task_list([head, fused, reshape, cmo], inputs={"x": ref(0, (1, 16, 4, 4), "f16")})
    launch_us = load_profile("910B2")["host_launch_us"]
    host = timing(tl, mode="host")
    assert host.program.taskless == {1, 2}
    rep = host.report
    assert rep["engines"]["Host"]["tasks"] == 2 and rep["engines"]["Host"]["busy_us"] == pytest.approx(2 * launch_us)
    assert rep["task_counts"]["kernel"] == 2 and rep["task_counts"]["no_task"] == 2 and rep["tasks"] == 3
    assert rep["streams"][0]["tasks"] == 3 and rep["streams"][0]["kernels"] == 2
    assert host.schedule.end[3] == pytest.approx(2 * launch_us)  # the cmo: second launch, no time of its own
    sink = timing(tl).report
    assert sink["tasks"] == 3 and sink["finished_tasks"] == 3


def test_priority_breaks_ties_on_a_busy_engine() -> None:
    # one AI CPU core; both streams want it at time 0
    lo = kernel("ge.nms", [ref(0)], [ref(64)], engine="AICPU", loc="low")
    hi = kernel("ge.nms", [ref(0)], [ref(128)], engine="AICPU", loc="high")
    r = timing(task_list([lo], [hi], priorities=[5, 0], inputs={"x": ref(0)}), device_params=["aicpu_cores=1"])
    start = r.schedule.start
    assert start[r.program.first[1]] < start[r.program.first[0]]
    r = timing(task_list([lo], [hi], priorities=[0, 5], inputs={"x": ref(0)}), device_params=["aicpu_cores=1"])
    assert r.schedule.start[r.program.first[0]] < r.schedule.start[r.program.first[1]]


def test_event_latency_and_critical_path() -> None:
    p = load_profile("910B2", ["event_record_us=3", "event_wait_us=4"])
    a = kernel("ge.relu", [ref(0)], [ref(16)])
    b = kernel("ge.neg", [ref(16)], [ref(32)])
    r = timing(task_list([a, Record(0)], [Wait(0), b], inputs={"x": ref(0)}), device=p)
    cost = CostModel(p)
    assert r.report["makespan_us"] == pytest.approx(
        cost.kernel(a).duration_us + cost.kernel(b).duration_us + 3 + 4, abs=1e-3)
    assert r.report["critical_path_us"] == pytest.approx(r.report["makespan_us"], abs=1e-3)
    assert r.report["critical_path"]["tasks"] == 4
    assert r.report["makespan_over_lower_bound"] == pytest.approx(1.0, abs=1e-3)


def test_lower_bound_is_engine_work_when_the_engine_is_the_bottleneck() -> None:
    tasks = [[kernel("ge.nms", [ref(0)], [ref(64 + 16 * (4 * s + i))], engine="AICPU") for i in range(4)]
             for s in range(4)]
    r = timing(task_list(*tasks, inputs={"x": ref(0)}), device_params=["aicpu_cores=2"])
    rep = r.report
    assert rep["lower_bound"]["bound_by"] == "AICPU"
    assert rep["lower_bound_us"] <= rep["makespan_us"] + 1e-9
    assert rep["engines"]["AICPU"]["utilization"] == pytest.approx(1.0, abs=1e-3)


# ======================================================== reports and traces

def _two_streams() -> TaskList:
    x, a = ref(0), ref(16)
    return task_list([kernel("ge.relu", [x], [a], loc="p"), Record(0)], [Wait(0), kernel("ge.neg", [a], [ref(32)])],
                     inputs={"x": x}, outputs={"y": ref(32)})


def test_json_report_has_every_key() -> None:
    r = emulate(_two_streams(), {"x": X}, EmulatorOptions(progress=False))
    rep = json.loads(json.dumps(r.report))
    for key in REQUIRED_KEYS:
        assert key in rep, key
    assert rep["races"] == [] and rep["deadlock"] is None
    assert set(rep["engines"]["VectorCore"]) >= {"busy_us", "utilization"}
    assert rep["tasks"] == 6 and rep["events"] == 1 and len(rep["streams"]) == 2
    assert rep["arena_bytes"] == 1024 and 0 < rep["peak_live_bytes"] <= 48
    assert rep["lower_bound_us"] <= rep["makespan_us"] + 1e-9


def test_text_report() -> None:
    text = emulate(_two_streams(), {"x": X}, EmulatorOptions(progress=False)).text()
    for word in ("makespan", "lower bound", "makespan / LB", "critical path", "VectorCore", "stream 1", "peak live",
                 "races           none", "deadlock        none"):
        assert word in text, word


def test_perfetto_trace_is_valid() -> None:
    r = emulate(_two_streams(), {"x": X}, EmulatorOptions(progress=False))
    trace = json.loads(json.dumps(trace_events(r.schedule)))
    events = trace["traceEvents"]
    assert events
    for e in events:
        assert {"ph", "pid", "tid", "ts", "name"} <= set(e), e
        assert e["ph"] in "XMsfC"
        if e["ph"] == "X":
            assert e["dur"] >= 0 and isinstance(e["ts"], (int, float))
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"stream 0 (priority 0)", "stream 1 (priority 0)", "VectorCore lane 0"} <= names
    starts = [e for e in events if e["ph"] == "s"]
    finishes = [e for e in events if e["ph"] == "f"]
    assert len(starts) == len(finishes) == 1 and starts[0]["id"] == finishes[0]["id"]
    assert finishes[0]["bp"] == "e" and starts[0]["tid"] == 0 and finishes[0]["tid"] == 1
    # each flow end lies inside a slice of its track (so the arrow binds to it)
    wait_slices = [e for e in events if e["ph"] == "X" and e["tid"] == 1 and e["pid"] == 1]
    assert any(s["ts"] <= finishes[0]["ts"] <= s["ts"] + s["dur"] for s in wait_slices)


def test_timeline_png(tmp_path: Any) -> None:
    pytest.importorskip("matplotlib")
    r = timing(_two_streams())
    path = tmp_path / "t.png"
    r.draw_timeline(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_timeline_without_matplotlib_is_a_clear_error(monkeypatch: Any, tmp_path: Any) -> None:
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kw: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kw)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(DiagnosticError) as e:
        timing(_two_streams()).draw_timeline(str(tmp_path / "t.png"))
    assert "needs matplotlib" in e.value.format() and "geir[plot]" in e.value.format()


def test_progress_bar_only_when_asked_or_on_a_tty() -> None:
    assert (make_progress(10**6, None) is None) == (not sys.stderr.isatty())
    assert make_progress(10, True) is not None and make_progress(10**6, False) is None
    out = io.StringIO()
    bar = ProgressBar(100, stream=out)
    bar.update(50)
    assert out.getvalue() == ""  # quiet during the first second
    bar = ProgressBar(100, stream=out, delay=0.0)
    bar.update(50)
    bar.close()
    assert "50%" in out.getvalue() and out.getvalue().endswith("\r")


# ============================================================ random DAGs

def _random_dag(seed: int, n: int, streams: int) -> tuple[list[list[int]], list[int], list[bool]]:
    """Kernel i reads 1–2 earlier kernels' results (or the input, -1); a stream
    each; which kernels are graph outputs (those nobody reads, plus some)."""
    rng = random.Random(seed)
    preds: list[list[int]] = []
    for i in range(n):
        k = rng.choice((1, 1, 2))
        preds.append(sorted({rng.randrange(-1, i) for _ in range(k)}))
    stream = [rng.randrange(streams) for _ in range(n)]
    read = {p for ps in preds for p in ps}
    is_out = [i not in read or rng.random() < 0.2 for i in range(n)]
    return preds, stream, is_out


SHAPE = (2, 3)
NBYTES = 24  # 2 x 3 f32


def _build(preds: list[list[int]], stream: list[int], is_out: list[bool], nstreams: int,
           offsets: list[int] | None = None, drop_wait: int | None = None) -> tuple[TaskList, list[tuple[int, int]]]:
    """The task list: kernel i = ge.sum(its inputs, its own constant w_i) on its
    stream, with one record/wait pair (own event id) per cross-stream edge.
    Returns the list and the cross-stream edges in event-id order."""
    n = len(preds)
    offsets = offsets if offsets is not None else [NBYTES * (i + 1) for i in range(n)]
    x = TensorRef(ARENA, 0, SHAPE, "f32")
    out = [TensorRef(ARENA, offsets[i], SHAPE, "f32") for i in range(n)]
    weights = [WeightBlob(f"w{i}", NBYTES * i, np.random.default_rng(1000 + i).standard_normal(SHAPE).astype(np.float32))
               for i in range(n)]
    edges: list[tuple[int, int]] = []
    records_after: dict[int, list[int]] = {}
    waits_before: dict[int, list[int]] = {}
    for i in range(n):
        for p in preds[i]:
            if p >= 0 and stream[p] != stream[i]:
                records_after.setdefault(p, []).append(len(edges))
                waits_before.setdefault(i, []).append(len(edges))
                edges.append((p, i))
    tasks: list[list[Task]] = [[] for _ in range(nstreams)]
    for i in range(n):
        for ev in waits_before.get(i, []):
            if ev != drop_wait:
                tasks[stream[i]].append(Wait(ev, loc=f"wait {edges[ev][0]}->{i}"))
        ins = [x if p < 0 else out[p] for p in preds[i]] + [TensorRef(WEIGHTS, NBYTES * i, SHAPE, "f32")]
        tasks[stream[i]].append(Kernel("ge.sum", "AICore", ins, [out[i]], loc=f"k{i}"))
        for ev in records_after.get(i, []):
            tasks[stream[i]].append(Record(ev, loc=f"record {i}"))
    tl = TaskList(streams=[Stream(s, 0, tasks[s] + [EndGraph()]) for s in range(nstreams)],
                  arena_size=max(offsets) + NBYTES, weights=weights, weight_size=NBYTES * n,
                  inputs=[Binding("x", x)], outputs=[Binding(f"y{i}", out[i]) for i in range(n) if is_out[i]],
                  num_events=len(edges))
    return tl, edges


def _reference(preds: list[list[int]], is_out: list[bool], x: np.ndarray) -> dict[str, np.ndarray]:
    vals: list[np.ndarray] = []
    for i, ps in enumerate(preds):
        w = np.random.default_rng(1000 + i).standard_normal(SHAPE).astype(np.float32)
        acc = np.zeros(SHAPE, np.float32)
        for p in ps:
            acc = acc + (x if p < 0 else vals[p])
        vals.append(acc + w)
    return {f"y{i}": vals[i] for i in range(len(preds)) if is_out[i]}


def _reach(preds: list[list[int]], stream: list[int], edges: list[tuple[int, int]], skip: int | None = None) -> list[set[int]]:
    """before[i]: kernels that happen before kernel i through stream order and the
    events (edge ``skip`` removed)."""
    n = len(preds)
    direct: list[set[int]] = [set() for _ in range(n)]
    last_on: dict[int, int] = {}
    for i in range(n):
        if stream[i] in last_on:
            direct[i].add(last_on[stream[i]])
        last_on[stream[i]] = i
    for k, (p, c) in enumerate(edges):
        if k != skip:
            direct[c].add(p)
    before: list[set[int]] = []
    for i in range(n):
        b: set[int] = set()
        for d in direct[i]:
            b.add(d)
            b |= before[d]
        before.append(b)
    return before


dags = st.tuples(st.integers(0, 10**6), st.integers(2, 14), st.integers(2, 4))
X23 = np.arange(6, dtype=np.float32).reshape(SHAPE) - 2.5


@SETTINGS
@given(dags)
def test_correct_multi_stream_schedule_is_clean_and_equals_serial(dag: tuple[int, int, int]) -> None:
    seed, n, nstreams = dag
    preds, stream, is_out = _random_dag(seed, n, nstreams)
    tl, _ = _build(preds, stream, is_out, nstreams)
    r = emulate(tl, {"x": X23}, EmulatorOptions(progress=False))
    assert r.clean and not r.report["uninitialised_reads"], r.report["races"][:1] or r.report["deadlock"]
    assert not r.report["event_stats"]["unconsumed_records"] and not r.report["event_stats"]["lost_records"]
    serial, _ = _build(preds, [0] * n, is_out, 1)
    s = emulate(serial, {"x": X23}, EmulatorOptions(progress=False))
    expected = _reference(preds, is_out, X23)
    for name, value in expected.items():
        np.testing.assert_allclose(r.outputs[name], value, rtol=1e-6)
        np.testing.assert_array_equal(r.outputs[name], s.outputs[name])
    # the report rounds each to the nanosecond: 17.3165 and 17.3164999... differ by one
    assert r.report["lower_bound_us"] <= r.report["makespan_us"] + 1e-3


@SETTINGS
@given(dags, st.integers(0, 10**6))
def test_removing_any_one_wait_is_detected(dag: tuple[int, int, int], pick: int) -> None:
    seed, n, nstreams = dag
    preds, stream, is_out = _random_dag(seed, n, nstreams)
    _, edges = _build(preds, stream, is_out, nstreams)
    if not edges:
        return
    k = pick % len(edges)
    tl, _ = _build(preds, stream, is_out, nstreams, drop_wait=k)
    r = timing(tl)
    p, c = edges[k]
    still_ordered = p in _reach(preds, stream, edges, skip=k)[c]
    if still_ordered:
        # the data dependency is still covered by other events: no race, but the
        # record nobody waits for is reported
        assert r.clean
        assert any(u["record"]["loc"] == f"record {p}" for u in r.report["event_stats"]["unconsumed_records"])
    else:
        assert r.races, f"dropping the wait of edge {p}->{c} went unnoticed"
        assert any({x["first"]["loc"], x["second"]["loc"]} == {f"k{p}", f"k{c}"} for x in r.report["races"])


@SETTINGS
@given(dags, st.integers(0, 10**6))
def test_overlapping_two_live_tensors_is_detected(dag: tuple[int, int, int], pick: int) -> None:
    seed, n, nstreams = dag
    preds, stream, is_out = _random_dag(seed, n, nstreams)
    _, edges = _build(preds, stream, is_out, nstreams)
    before = _reach(preds, stream, edges)
    readers: list[list[int]] = [[] for _ in range(n)]
    for i, ps in enumerate(preds):
        for p in ps:
            if p >= 0:
                readers[p].append(i)

    def dead_before(a: int, b: int) -> bool:
        # every use of a (its write and its reads) happens before b is written —
        # b itself may be a's last reader (in place: it reads at its start and
        # writes at its end) — and a is not a graph output (live to the end)
        return not is_out[a] and a in before[b] and all(u in before[b] or u == b for u in readers[a])

    pairs = [(a, b) for a in range(n) for b in range(n)
             if a != b and not dead_before(a, b) and not dead_before(b, a)]
    if not pairs:
        return
    a, b = pairs[pick % len(pairs)]
    offsets = [NBYTES * (i + 1) for i in range(n)]
    offsets[b] = offsets[a]
    tl, _ = _build(preds, stream, is_out, nstreams, offsets=offsets)
    r = emulate(tl, {"x": X23}, EmulatorOptions(progress=False))
    expected = _reference(preds, is_out, X23)
    wrong = any(not np.allclose(r.outputs[k], v, rtol=1e-5) for k, v in expected.items())
    assert r.races or wrong, f"kernels {a} and {b} share bytes while both live, unnoticed"


@SETTINGS
@given(dags, st.sampled_from(["sink", "host"]))
def test_bounds_hold(dag: tuple[int, int, int], mode: str) -> None:
    seed, n, nstreams = dag
    preds, stream, is_out = _random_dag(seed, n, nstreams)
    tl, _ = _build(preds, stream, is_out, nstreams)
    rep = timing(tl, mode=mode).report
    # the report rounds each figure to the nanosecond
    assert rep["critical_path_us"] <= rep["lower_bound_us"] + 1e-3
    assert rep["lower_bound_us"] <= rep["makespan_us"] + 1e-3
    for e in rep["engines"].values():
        assert e["busy_us"] <= rep["makespan_us"] + 1e-6 and e["utilization"] <= 1 + 1e-9
    if mode == "host":
        launched = rep["task_counts"]["kernel"] + rep["task_counts"]["record"] + rep["task_counts"]["wait"]
        assert rep["engines"]["Host"]["tasks"] == launched
        assert rep["makespan_us"] >= launched * load_profile("910B2")["host_launch_us"] - 1e-6


# ============================================= the race checker vs brute force

@st.composite
def access_programs(draw: Any) -> TaskList:
    """Kernels reading and writing random byte ranges of a 64-byte arena on 2–3
    streams, with record/wait pairs placed along one global order (so no deadlock)."""
    nstreams = draw(st.integers(2, 3))
    tasks: list[list[Task]] = [[] for _ in range(nstreams)]
    pending: list[tuple[int, int]] = []  # (event, stream that must wait)
    event = 0
    for i in range(draw(st.integers(1, 12))):
        s = draw(st.integers(0, nstreams - 1))
        action = draw(st.sampled_from(["kernel", "kernel", "record", "wait"]))
        if action == "record":
            target = draw(st.integers(0, nstreams - 1))
            if target != s:
                tasks[s].append(Record(event))
                pending.append((event, target))
                event += 1
            continue
        if action == "wait":
            mine = [p for p in pending if p[1] == s]
            if mine:
                pick = draw(st.sampled_from(mine))
                pending.remove(pick)
                tasks[s].append(Wait(pick[0]))
            continue

        def rng() -> TensorRef:
            lo = draw(st.integers(0, 15))
            return TensorRef(ARENA, 4 * lo, (draw(st.integers(1, 16 - lo)),), "f32")
        ins = [rng() for _ in range(draw(st.integers(0, 2)))]
        outs = [rng() for _ in range(draw(st.integers(0, 2)))]
        tasks[s].append(Kernel("ge.any", "AICore", ins, outs, flops=draw(st.sampled_from([1.0, 1e5, 1e7])),
                               loc=f"k{i}"))
    return TaskList(streams=[Stream(i, 0, t + [EndGraph()]) for i, t in enumerate(tasks)], arena_size=64)


@SETTINGS
@given(access_programs())
def test_race_checker_agrees_with_a_per_byte_brute_force(tl: TaskList) -> None:
    r = timing(tl)
    assert r.deadlock is None
    program, sched = r.program, r.schedule
    n = program.n
    # happens-before from the executed schedule: stream order and record -> the wait it released
    preds: list[set[int]] = [set() for _ in range(n)]
    for g in range(n):
        if g > program.first[program.stream_of[g]]:
            preds[g].add(g - 1)
        if sched.matched[g] >= 0:
            preds[g].add(sched.matched[g])
    before: dict[int, set[int]] = {}

    def ancestors(g: int) -> set[int]:
        if g not in before:
            before[g] = set()
            for p in preds[g]:
                before[g] |= {p} | ancestors(p)
        return before[g]
    for g in range(n):
        ancestors(g)
    ordered = lambda a, b: a in before[b] or b in before[a]  # noqa: E731
    accesses = [(g, lo, hi, w) for g in range(n) for w, ranges in ((False, program.reads[g]), (True, program.writes[g]))
                for lo, hi in ranges or ()]
    racy_bytes: set[int] = set()
    racy_pairs: set[frozenset[int]] = set()
    for i, (a, alo, ahi, aw) in enumerate(accesses):
        for b, blo, bhi, bw in accesses[i + 1:]:
            if a != b and (aw or bw) and max(alo, blo) < min(ahi, bhi) and not ordered(a, b):
                racy_bytes.update(range(max(alo, blo), min(ahi, bhi)))
                racy_pairs.add(frozenset((a, b)))
    reported = set()
    for race in r.races:
        assert frozenset((race.first, race.second)) in racy_pairs, "a reported race is not a race"
        reported.update(range(race.lo, race.hi))
    assert racy_bytes <= reported, f"racy bytes {sorted(racy_bytes - reported)} not reported"


# ==================================================================== ge-run

GRAPH = """ge.graph @main(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %a = ge.relu %x {stream = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = ge.neg %x {stream = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  SYNC
  %c = ge.add %a, %b {stream = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  ge.return %c : (tensor<2x4xf32>) -> ()
}
"""
EVENTS = ("ge.record_event {event = 0, stream = 1} : () -> ()\n"
          "  ge.wait_event {event = 0, stream = 0} : () -> ()")


def _ge_run(tmp_path: Any, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    tool = find_tool("ge-run")
    assert tool is not None, "ge-run is not installed (pip install -e .)"
    path = tmp_path / "m.mlir"
    path.write_text(text)
    return subprocess.run([tool, str(path), *args], capture_output=True, text=True, cwd=tmp_path)


def test_ge_run_emulates_a_graph_and_matches_the_interpreter(tmp_path: Any) -> None:
    text = GRAPH.replace("SYNC", EVENTS)
    proc = _ge_run(tmp_path, text, "-o", "emu.npz", "--report", "json", "--trace", "trace.json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert all(k in report for k in REQUIRED_KEYS) and report["races"] == []
    assert "seed 0" in proc.stderr
    proc = _ge_run(tmp_path, text, "--interpret", "-o", "ref.npz")
    assert proc.returncode == 0, proc.stderr
    emu, ref_ = np.load(tmp_path / "emu.npz"), np.load(tmp_path / "ref.npz")
    np.testing.assert_allclose(emu["y"], ref_["y"], rtol=1e-6)
    trace = json.loads((tmp_path / "trace.json").read_text())
    assert any(e["ph"] == "s" for e in trace["traceEvents"])


def test_ge_run_race_is_a_finding_with_exit_code_3(tmp_path: Any) -> None:
    proc = _ge_run(tmp_path, GRAPH.replace("SYNC", ""), "--timing-only")
    assert proc.returncode == 3, proc.stderr
    assert "race on arena bytes" in proc.stdout and "Traceback" not in proc.stderr
    assert "data race" in proc.stderr and "exit code 3" in proc.stderr


def test_ge_run_options_and_errors(tmp_path: Any) -> None:
    text = GRAPH.replace("SYNC", EVENTS)
    proc = _ge_run(tmp_path, text, "--device", "310P3", "--mode", "host", "--timing-only",
                   "--device-param", "host_launch_us=20")
    assert proc.returncode == 0, proc.stderr
    assert "on 310P3 (host mode)" in proc.stdout and "seed" not in proc.stderr
    proc = _ge_run(tmp_path, text, "--device-param", "bogus=1")
    assert proc.returncode == 1 and "unknown device parameter 'bogus'" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _ge_run(tmp_path, text, "--device", "nope")
    assert proc.returncode == 1 and "unknown device 'nope'" in proc.stderr


# ======================================================= ONNX light models

LIGHT = sorted(glob.glob(os.path.join(os.path.dirname(__import__("onnx").__file__),
                                      "backend", "test", "data", "light", "light_*.onnx")))


def _pipeline_available() -> str | None:
    for module in ("geir.onnx_importer", "geir.passes.lower_to_tasks", "geir.backends.rt_module", "geir.backends.interpreter"):
        try:
            __import__(module)
        except ImportError as e:
            return f"{module} is not available yet: {e}"
    return None


@pytest.mark.skipif(_pipeline_available() is not None, reason=str(_pipeline_available()))
@pytest.mark.parametrize("path", LIGHT, ids=[os.path.basename(p)[:-5] for p in LIGHT])
def test_light_models_match_the_interpreter(path: str) -> None:
    from geir.backends.interpreter import interpret
    from geir.backends.io_bindings import graph_signature, random_inputs
    from geir.backends.rt_module import task_list_from_module
    from geir.onnx_importer import import_onnx
    from geir.passes.lower_to_tasks import LowerToTasks
    from geir.passes.pass_manager import PassManager
    module = import_onnx(path)
    inputs = random_inputs(graph_signature(module), 0)
    expected = interpret(module, inputs)
    PassManager([LowerToTasks()]).run(module)
    result = emulate(task_list_from_module(module), inputs, EmulatorOptions(progress=False))
    assert result.clean, result.report["races"][:1] or result.report["deadlock"]
    assert len(result.outputs) == len(expected)
    for got, want in zip(result.outputs.values(), expected.values()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_run_reads_weights_where_they_lie_read_only() -> None:
    """Device memory does not copy the weight space: a whole weight is the task
    list's own array, read-only (a kernel writing it fails loudly); a ref into
    part of a weight reads the same bytes from the weight space as one image."""
    from geir.backends.emulator.arena import DeviceMemory
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    splat = np.broadcast_to(np.float16(0.5), (1000, 1000))
    tl = TaskList(weights=[WeightBlob("w", 0, w), WeightBlob("s", 64, splat)], weight_size=64 + splat.nbytes)
    memory = DeviceMemory(tl)
    whole = memory.view(TensorRef(WEIGHTS, 0, (3, 4), "f32"))
    assert np.shares_memory(whole, w) and not whole.flags.writeable
    with pytest.raises(ValueError):
        whole[0, 0] = 1.0
    assert memory.view(TensorRef(WEIGHTS, 64, (1000, 1000), "f16")).strides == (0, 0)  # never expanded
    row = memory.view(TensorRef(WEIGHTS, 16, (4,), "f32"))  # the second row: part of 'w'
    np.testing.assert_array_equal(row, w[1])


def test_an_arena_the_process_cannot_allocate_is_a_diagnostic(monkeypatch: pytest.MonkeyPatch) -> None:
    """Within the machine's memory but beyond what this process may take (a
    ulimit, other processes): a diagnostic pointing to --timing-only, not a
    MemoryError."""
    from geir.backends.emulator import arena

    def refuse(size: int) -> np.ndarray:
        raise MemoryError
    monkeypatch.setattr(arena, "_allocate", refuse)
    with pytest.raises(DiagnosticError, match="more than this process can allocate; --timing-only"):
        arena.DeviceMemory(TaskList(arena_size=1024))
