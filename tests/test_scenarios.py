"""Issue 9's scenarios: unrolled frames (no races, hand-calculated pipelining),
co-run with priorities, the data-parallel step, and the scenario options."""

from __future__ import annotations

import argparse
import json
import os

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.emulator import EmulatorOptions, emulate, random_task_inputs
from geir.backends.scenarios.build import ENGINE_STREAMS, SINGLE_STREAM, compile_task_list
from geir.backends.scenarios.co_run import co_run, merge_task_lists
from geir.backends.scenarios.data_parallel import (collectives, mixed_training_inference, step_times,
                                                   step_times_of, training_step_graph, with_rank_size)
from geir.backends.scenarios.iterations import event_count, frame_of, unroll
from geir.backends.scenarios.video_pipeline import compare_frames, overlaps, run_frames
from geir.backends.task_list import (ARENA, Binding, EndGraph, Kernel, Record, Stream, TaskList, TensorRef, Wait)
from geir.diagnostics import DiagnosticError
from geir.tools.ge_run_scenarios import add_scenario_arguments, run_scenario

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples")
TIMING = EmulatorOptions(device="910B2", timing_only=True, check_races=True, progress=False)


def ref(offset: int, n: int = 512) -> TensorRef:
    return TensorRef(ARENA, offset, (n,), "f16")


def stage_kernel(cost: CostModel, op: str, engine: str, units: int, us: float, src: int, dst: int) -> Kernel:
    """A kernel of ``us`` microseconds alone under ``cost``: its fixed cost, then as many
    FLOPs as its ``units`` compute in the rest (the cost model is linear in them; ``op``
    is costed by its FLOPs, as a matmul and a tanh are)."""
    probe = Kernel(op, engine, [ref(src)], [ref(dst)], block_dim=units, flops=1e6, bytes=64.0)
    c = cost.kernel(probe)
    return attrs.evolve(probe, flops=1e6 * (us - c.overhead_us) / c.compute_us)


def two_stages(multi: bool, us: float = 500.0) -> TaskList:
    """Stage A (cube, all 24 AI cores) then stage B (vector, all 48 AIV cores) of
    ``us`` each on 910B2: on two streams with an event, or both on one."""
    cost = CostModel(load_profile("910B2"))
    a = stage_kernel(cost, "ge.matmul", "AICore", 24, us, 0, 1024)
    b = stage_kernel(cost, "ge.tanh", "AICore", 48, us, 1024, 2048)
    streams = ([Stream(0, 0, [a, Record(0), EndGraph()]), Stream(1, 0, [Wait(0), b, EndGraph()])] if multi
               else [Stream(0, 0, [a, b, EndGraph()])])
    return TaskList(streams=streams, arena_size=3072, inputs=[Binding("x", ref(0))],
                    outputs=[Binding("y", ref(2048))], num_events=1 if multi else 0, name="two_stages")


def clean(report: dict) -> bool:
    return (report["races_total"] == 0 and report["deadlock"] is None
            and not report["event_stats"]["lost_records"] and not report["event_stats"]["unconsumed_records"])


# ------------------------------------------------------------------ unroll

def test_unroll_layout_bindings_and_events() -> None:
    tl = two_stages(True)
    u = unroll(tl, 5, buffers=2)
    assert u.arena_size == 2 * tl.arena_size
    assert [b.name for b in u.inputs] == [f"x@{k}" for k in range(5)]
    assert [b.ref.offset for b in u.inputs] == [(k % 2) * tl.arena_size for k in range(5)]
    kernels = [t for _, _, t in u.all_tasks() if isinstance(t, Kernel)]
    assert sorted(frame_of(t) for t in kernels) == sorted(list(range(5)) * 2)
    # frame k's own events are shifted by k x num_events; then the hand-offs of frames 0..2 to frames 2..4:
    # stream 1 -> 0 (A overwrites the a that B read) and stream 0 -> 1 (B reads the a that A wrote)
    ids = [t.event for _, _, t in u.all_tasks() if isinstance(t, Record)]
    assert len(ids) == len(set(ids))
    assert u.num_events == event_count(u) == 5 * 1 + 3 * 2
    assert all(isinstance(s.tasks[-1], EndGraph) and sum(isinstance(t, EndGraph) for t in s.tasks) == 1
               for s in u.streams)


@pytest.mark.parametrize("frames", [1, 4, 8])
def test_two_equal_stages_pipeline_hand_calculation(frames: int) -> None:
    """Serial: 2 T per frame. Pipelined over two streams: (N + 1) T, so the
    ratio is (N + 1) / 2N (events and overheads cost well under 1%)."""
    t = 500.0
    serial = emulate(unroll(two_stages(False, t), frames), None, TIMING).report
    piped = emulate(unroll(two_stages(True, t), frames), None, TIMING).report
    assert serial["makespan_us"] == pytest.approx(2 * t * frames, rel=0.005)
    assert piped["makespan_us"] == pytest.approx((frames + 1) * t, rel=0.01)
    assert piped["makespan_us"] / serial["makespan_us"] == pytest.approx((frames + 1) / (2 * frames), rel=0.01)
    assert clean(serial) and clean(piped)


def test_one_buffer_serialises_frames_on_shared_bytes() -> None:
    """With one arena region frame k+1's A overwrites what frame k's B still
    reads, so it waits for B: 2 T per frame again, and still no race."""
    t = 500.0
    r = emulate(unroll(two_stages(True, t), 4, buffers=1), None, TIMING).report
    assert r["makespan_us"] == pytest.approx(2 * t * 4, rel=0.01)
    assert clean(r)


@settings(max_examples=15, deadline=None)
@given(frames=st.integers(1, 6), buffers=st.integers(1, 4), multi=st.booleans())
def test_unrolled_lists_are_race_free(frames: int, buffers: int, multi: bool) -> None:
    r = emulate(unroll(two_stages(multi, 50.0), frames, buffers), None, TIMING).report
    assert clean(r)
    assert r["task_counts"]["kernel"] == 2 * frames


def test_unroll_without_the_handoff_events_races() -> None:
    """The hand-off waits are what keeps frame k+2 off frame k's bytes: drop them and the checker finds races."""
    u = unroll(two_stages(True, 50.0), 4, buffers=2)
    frame_events = 4 * event_count(two_stages(True))
    for s in u.streams:
        s.tasks = [t for t in s.tasks if not (isinstance(t, (Record, Wait)) and t.event >= frame_events)]
    assert emulate(u, None, TIMING).report["races_total"] > 0


def test_unroll_numerics_with_a_region_per_frame() -> None:
    """buffers >= iterations: every frame computes what one run computes on its inputs."""
    tl = compile_task_list(open(os.path.join(EXAMPLES, "two_streams.mlir")).read(), "lower-to-tasks")
    u = unroll(tl, 3, buffers=3)
    inputs = random_task_inputs(u, seed=1)
    out = emulate(u, inputs, EmulatorOptions(progress=False)).outputs
    for k in range(3):
        alone = emulate(tl, {"x": inputs[f"x@{k}"]}, EmulatorOptions(progress=False)).outputs
        np.testing.assert_allclose(out[f"y@{k}"], alone["y"], rtol=1e-3, atol=1e-3)


def test_unroll_rejects_bad_counts() -> None:
    with pytest.raises(DiagnosticError, match="iterations must be at least 1"):
        unroll(two_stages(True), 0)
    with pytest.raises(DiagnosticError, match="buffers must be at least 1"):
        unroll(two_stages(True), 2, buffers=0)


# ------------------------------------------------------------ scenario 1

def test_video_pipeline_report_fields_and_overlap() -> None:
    text = open(os.path.join(EXAMPLES, "video_pipeline.mlir")).read()
    runs = compare_frames(text, 4, device="310P3")
    single, cost, engines = runs
    for run in runs:
        d = run.as_dict()
        assert {"frames_per_s", "utilization", "makespan_us", "streams", "decode_overlaps_inference"} <= set(d)
        assert {"DVPP", "AICore", "AICPU"} <= set(run.utilization)
        assert clean(run.report)
    assert single.streams == 1 and overlaps(single, "DVPP", ("AICore",)) == 0
    assert engines.streams >= 2
    assert overlaps(engines, "DVPP", ("AICore",)) == 3  # every frame's successor decodes beside its inference
    assert engines.frames_per_s > single.frames_per_s
    # frame k+1's decode starts before frame k's inference ends
    assert engines.stages[1]["DVPP"][0] < engines.stages[0]["AICore"][1]
    # the pipeline's period is its slowest stage: the AI core and AICPU work of a frame
    per_frame = engines.makespan_us / 4
    alone = run_frames(compile_task_list(text, ENGINE_STREAMS), 1, "310P3")
    stage = alone.stages[0]
    slowest = max(stage["DVPP"][1] - stage["DVPP"][0], stage["AICPU"][1] - stage["AICore"][0])
    assert per_frame == pytest.approx((alone.makespan_us + 3 * slowest) / 4, rel=0.03)


# ------------------------------------------------------------ scenario 2

def chain(n: int, us: float, name: str) -> TaskList:
    """``n`` kernels of ``us`` each, every one on all 8 AI cores of 310P3."""
    cost = CostModel(load_profile("310P3"))
    tasks = [stage_kernel(cost, "ge.matmul", "AICore", 8, us, 1024 * (i % 2), 1024 * ((i + 1) % 2))
             for i in range(n)]
    return TaskList(streams=[Stream(0, 0, [*tasks, EndGraph()])], arena_size=2048, inputs=[Binding("x", ref(0))],
                    outputs=[Binding("y", ref(1024 * (n % 2)))], name=name)


def test_high_priority_model_keeps_its_solo_latency() -> None:
    fast, load = chain(3, 100.0, "fast"), chain(20, 25.0, "load")
    result = co_run([fast, load], ["fast", "load"], [0, 1], "310P3")
    f, l = result.models
    assert set(f) >= {"name", "priority", "streams", "latency_us", "solo_latency_us", "slowdown"}
    assert f["solo_latency_us"] == pytest.approx(300.0, rel=0.01)
    # non-preemptive pools: each of its 3 kernels waits at most for one 25 us load kernel
    assert f["latency_us"] <= f["solo_latency_us"] + 3 * 25.0 + 1.0
    assert l["latency_us"] == pytest.approx(l["solo_latency_us"] + 300.0, rel=0.02)  # the load slows by fast's work
    assert result.throughput_per_s == pytest.approx(2 / result.makespan_us * 1e6, rel=1e-3)
    # the other way round the fast model waits for the whole load
    flipped = co_run([fast, load], ["fast", "load"], [1, 0], "310P3").models[0]
    assert flipped["latency_us"] == pytest.approx(300.0 + 500.0, rel=0.02)
    text = result.text()
    assert "fast" in text and "load" in text and "slowdown" in text


def test_merge_places_models_side_by_side() -> None:
    a, b = two_stages(True), unroll(two_stages(True), 3)
    merged, placements = merge_task_lists([a, b], ["a", "b"], [0, 2])
    assert [s.id for s in merged.streams] == [0, 1, 2, 3]
    assert [s.priority for s in merged.streams] == [0, 0, 2, 2]
    assert placements[1].arena_base == 3072 and merged.arena_size == 3072 + b.arena_size
    assert placements[1].event_base == 1 and merged.num_events == 1 + b.num_events
    assert [x.name for x in merged.inputs] == ["a/x"] + [f"b/x@{k}" for k in range(3)]
    assert merged.inputs[1].ref.offset == 3072
    assert clean(emulate(merged, None, TIMING).report)


def test_co_run_iterations_and_errors() -> None:
    r = co_run([chain(2, 20.0, "p"), chain(2, 20.0, "q")], ["p", "q"], [0, 1], "310P3", iterations=3)
    assert all(m["iterations"] == 3 for m in r.models)
    assert r.throughput_per_s == pytest.approx(6 / r.makespan_us * 1e6, rel=1e-3)
    with pytest.raises(DiagnosticError, match="given twice"):
        co_run([chain(1, 10.0, "p")] * 2, ["p", "p"], [0, 0], "310P3")
    with pytest.raises(DiagnosticError, match="2 names and 1 priorities"):
        co_run([chain(1, 10.0, "p")] * 2, ["p", "q"], [0], "310P3")


# ------------------------------------------------------------ scenario 3

def test_rank_size_and_ring_traffic() -> None:
    graph = training_step_graph(layers=2, batch=64, width=256, devices=8)
    serial = compile_task_list(graph, SINGLE_STREAM)
    assert collectives(serial) == 2
    assert {t.attributes["rank_size"].value for _, _, t in with_rank_size(serial, 4).all_tasks()
            if isinstance(t, Kernel) and t.engine == "HCCL"} == {4}
    rows = step_times_of(graph, [1, 2, 4, 8])
    latency = load_profile("910B2")["hccl_latency_us"]
    # ring all-reduce: 2 (N-1)/N x bytes over the link, plus the latency each
    traffic = [r.comm_us - 2 * latency for r in rows]
    assert traffic[0] == pytest.approx(0.0, abs=1e-6)
    assert traffic[2] / traffic[1] == pytest.approx((3 / 4) / (1 / 2), rel=1e-3)
    assert traffic[3] / traffic[1] == pytest.approx((7 / 8) / (1 / 2), rel=1e-3)
    for r in rows:
        d = r.as_dict()
        assert {"step_us_overlap", "step_us_no_overlap", "speedup", "comm_us", "hidden_comm"} <= set(d)
        assert r.overlap_us <= r.serial_us
        assert r.overlap_us >= r.compute_us - 1e-6
        assert clean(r.overlap_report)


def test_overlap_hides_an_all_reduce_behind_compute() -> None:
    """Hand-built: an all-reduce (stream 1) beside a compute kernel of T (stream 0)
    takes max(T, AR); one after the other T + AR."""
    cost = CostModel(load_profile("910B2"))
    compute = stage_kernel(cost, "ge.matmul", "AICore", 24, 400.0, 0, 1024)
    grad = TensorRef(ARENA, 2048, (1 << 20,), "f16")
    ar = Kernel("ge.all_reduce", "HCCL", [grad], [TensorRef(ARENA, 2048 + (2 << 20), (1 << 20,), "f16")])
    size = 2048 + (4 << 20)
    over = TaskList(streams=[Stream(0, 0, [compute, EndGraph()]), Stream(1, 0, [ar, EndGraph()])], arena_size=size)
    ser = TaskList(streams=[Stream(0, 0, [compute, ar, EndGraph()])], arena_size=size)
    (row,) = step_times(over, ser, [4])
    ar_us = 10.0 + 2 * (2 * 3 / 4 * (2 << 20)) / min(2 * cost.hccl_bw, cost.dram_bw)
    assert row.comm_us == pytest.approx(ar_us, rel=0.01)
    assert row.serial_us == pytest.approx(400.0 + ar_us, rel=0.01)
    assert row.overlap_us == pytest.approx(max(400.0, ar_us), rel=0.02)


def test_data_parallel_errors() -> None:
    tl = two_stages(True)
    with pytest.raises(DiagnosticError, match="between 1 and 8"):
        with_rank_size(tl, 9)
    with pytest.raises(DiagnosticError, match="no HCCL collective"):
        step_times(tl, None, [2])


def test_mixed_training_and_inference() -> None:
    result = mixed_training_inference(chain(20, 25.0, "train"), chain(3, 100.0, "infer"), device="310P3",
                                      inference_runs=2)
    train, infer = result.models
    assert (train["name"], train["priority"], infer["name"], infer["priority"]) == ("training", 1, "inference", 0)
    assert infer["latency_us"] <= infer["solo_latency_us"] + 6 * 25.0 + 1.0
    assert train["slowdown"] > 1.0


# ------------------------------------------------------------ options

def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="910B2")
    p.add_argument("--mode", default="sink")
    p.add_argument("--report", default="text")
    add_scenario_arguments(p)
    add_scenario_arguments(p)  # idempotent
    return p.parse_args(list(argv))


def test_run_scenario_none_without_flags() -> None:
    assert run_scenario(two_stages(True), _args()) is None


def test_run_scenario_json(capsys: pytest.CaptureFixture[str]) -> None:
    from geir.parser import parse_module
    module = parse_module(open(os.path.join(EXAMPLES, "video_pipeline.mlir")).read(), "video_pipeline.mlir")
    before = str(module)
    assert run_scenario(module, _args("--iterations", "3", "--report", "json", "--device", "310P3")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scenario"] == "video-pipeline" and out["iterations"] == 3
    assert [b["build"] for b in out["builds"]] == ["single-stream", "multi-stream (cost)", "multi-stream (ge engines)"]
    assert str(module) == before  # the caller's module is not lowered
    assert run_scenario(unroll(two_stages(True), 1), _args("--iterations", "2", "--report", "json")) == 0
    assert [b["build"] for b in json.loads(capsys.readouterr().out)["builds"]] == ["as given"]


@pytest.mark.parametrize("argv, message", [
    (("--iterations", "0"), "--iterations must be a whole number of at least 1, got '0'"),
    (("--iterations", "two"), "--iterations must be a whole number of at least 1, got 'two'"),
    (("--devices", "9"), "--devices must be a whole number from 1 to 8, got '9'"),
    (("--buffers", "2"), "--buffers applies to --iterations"),
    (("--iterations", "2", "--devices", "2"), "separate scenarios"),
    (("--iterations", "2", "--compare-overlap"), "needs a ge graph"),
])
def test_run_scenario_diagnostics(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(DiagnosticError, match=message.replace("(", r"\(")):
        run_scenario(two_stages(True), _args(*argv))
