"""``ge-run model.onnx``: one command from a model to a measured schedule, and
``ge-run a b ... --priority``: several models at once.

The figures the report adds are checked against the runs they come from: the
speed-up is the makespan of the same pipeline with ``strategy=single`` over the
multi-stream one, the memory plan is ``reuse-memory``'s own, and the device
reaches the passes (the schedule ge-run emulates is the one ``ge-opt`` makes for
that device). The command-line parsing of several models is tested here, the
report lines in ``lit_tests/run``.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from geir import import_onnx
from geir.backends.shape_gears import parse_gears, specialize_gears
from geir.diagnostics import DiagnosticError
from geir.tools.ge_run import main as ge_run
from geir.backends.model_compile import DEFAULT_PIPELINE, needs_pipeline, plan_pipeline, resolve_device
from geir.tools.ge_run_corun import model_names, parse_priorities
from tool_paths import find_tool

ROOT = pathlib.Path(__file__).resolve().parent.parent
TINY = str(ROOT / "examples" / "tiny_cnn.onnx")
RESNET = str(ROOT / "examples" / "resnet_block.mlir")
TWO_STREAMS = str(ROOT / "examples" / "two_streams.mlir")


def _json(capsys: Any, *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert ge_run([*argv, "--report", "json"]) == 0
    return json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------- one model

#: a cube branch (two convs) beside a vector branch: on 910B2 they run on
#: different cores, so the cost strategy puts them on two streams
CUBE_BESIDE_VECTOR = """\
ge.graph @main(%x: tensor<1x64x56x56xf16> {ge.name = "x"}) -> (tensor<1x64x56x56xf16> {ge.name = "y"}) {
  %w = ge.const {value = dense<1.000000e-02> : tensor<64x64x3x3xf16>} : () -> tensor<64x64x3x3xf16>
  %a = ge.conv2d %x, %w {pads = [1, 1, 1, 1]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
  %a2 = ge.conv2d %a, %w {pads = [1, 1, 1, 1]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
  %b1 = ge.sigmoid %x : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %b2 = ge.tanh %b1 : (tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  %y = ge.add %a2, %b2 : (tensor<1x64x56x56xf16>, tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16>
  ge.return %y : (tensor<1x64x56x56xf16>) -> ()
}
"""


def test_speedup_is_the_single_stream_pipelines_makespan_over_the_multi_stream_one(capsys: Any,
                                                                                   tmp_path: pathlib.Path) -> None:
    graph = tmp_path / "branches.mlir"
    graph.write_text(CUBE_BESIDE_VECTOR)
    multi = _json(capsys, str(graph), "--timing-only")
    single = _json(capsys, str(graph), "--timing-only", "--pipeline", "ge-default{strategy=single}", "--no-compare")
    assert len(multi["streams"]) > 1 and len(single["streams"]) == 1
    assert multi["single_stream"]["makespan_us"] == single["makespan_us"]
    assert multi["single_stream"]["speedup"] == pytest.approx(single["makespan_us"] / multi["makespan_us"], abs=1e-4)
    assert multi["single_stream"]["speedup"] > 1.0
    assert single["single_stream"] is None  # --no-compare


def test_the_graph_bound_holds_for_both_builds(capsys: Any) -> None:
    """The graph's bound is of any stream plan: the multi-stream and the
    single-stream builds both emulate at or above it, and it does not depend
    on the plan that ran."""
    bounds = {}
    for device in ("910b2", "310p3"):
        report = _json(capsys, TINY, "--timing-only", "--device", device)
        bound = report["graph_lower_bound"]
        assert bound["streams"] == 8 and bound["bound_by"]
        assert 0 < bound["bound_us"] <= report["makespan_us"] <= report["single_stream"]["makespan_us"]
        bounds[device] = bound["bound_us"]
    single = _json(capsys, TINY, "--timing-only", "--pipeline", "ge-default{strategy=single}", "--no-compare")
    assert single["graph_lower_bound"]["bound_us"] == bounds["910b2"] <= single["makespan_us"]
    assert bounds["310p3"] != bounds["910b2"]  # the bound is the device's


def test_memory_plan_is_reuse_memorys_and_bounded_below(capsys: Any) -> None:
    report = _json(capsys, TINY, "--timing-only")
    plan = report["memory_plan"]
    assert plan["lower_bound_bytes"] <= plan["arena_bytes"] <= plan["no_reuse_bytes"]
    assert plan["over_lower_bound"] == pytest.approx(plan["arena_bytes"] / plan["lower_bound_bytes"], abs=1e-4)
    # the task list's arena is the plan plus the zero-copy I/O placed after it
    assert report["arena_bytes"] >= plan["arena_bytes"] + plan["zero_copy_bytes"]


def test_the_device_reaches_the_passes(capsys: Any, tmp_path: pathlib.Path) -> None:
    """ge-run --device 310p3 emulates the schedule ge-opt makes for 310P3."""
    ours = _json(capsys, TINY, "--timing-only", "--device", "310p3", "--no-compare")
    assert ours["device"] == "310P3" and ours["pipeline"] == f"{DEFAULT_PIPELINE}{{device=310P3}}"
    translate, opt = find_tool("ge-translate"), find_tool("ge-opt")
    assert translate and opt
    imported = subprocess.run([translate, "--import-onnx", TINY], capture_output=True, text=True, check=True).stdout
    scheduled = subprocess.run([opt, "--pass-pipeline=ge-default{device=310P3}"], input=imported,
                               capture_output=True, text=True, check=True).stdout
    path = tmp_path / "scheduled.mlir"
    path.write_text(scheduled)
    theirs = _json(capsys, str(path), "--timing-only", "--device", "310P3")
    assert "pipeline" not in theirs  # lowered already: runs as it is
    assert theirs["makespan_us"] == ours["makespan_us"] and theirs["streams"] == ours["streams"]


@settings(max_examples=4, deadline=None)
@given(st.integers(1, 4))
def test_streams_bounds_the_streams_used(n: int) -> None:
    import io
    import contextlib
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert ge_run([TINY, "--timing-only", "--no-compare", "--streams", str(n), "--report", "json"]) == 0
    report = json.loads(out.getvalue())
    assert 1 <= len(report["streams"]) <= n and report["pipeline"].endswith(f"max-streams={n}}}")


def test_an_unscheduled_mlir_graph_is_compiled_and_a_scheduled_one_runs_as_written(capsys: Any) -> None:
    from geir.parser import parse_module
    assert needs_pipeline(parse_module(pathlib.Path(RESNET).read_text(), RESNET))
    assert not needs_pipeline(parse_module(pathlib.Path(TWO_STREAMS).read_text(), TWO_STREAMS))
    assert _json(capsys, RESNET, "--timing-only")["pipeline"].startswith(DEFAULT_PIPELINE)
    written = _json(capsys, TWO_STREAMS, "--timing-only")
    assert "pipeline" not in written and len(written["streams"]) == 2


def test_onnx_outputs_match_the_interpreter(capsys: Any, tmp_path: pathlib.Path) -> None:
    import numpy as np
    assert ge_run([TINY, "-o", str(tmp_path / "emu.npz")]) == 0
    assert ge_run([TINY, "--interpret", "-o", str(tmp_path / "ref.npz")]) == 0
    emu, ref = np.load(tmp_path / "emu.npz"), np.load(tmp_path / "ref.npz")
    # ge-default computes in the device's default precision (f16 on 910B2's AICore);
    # the interpreter runs the graph as written
    np.testing.assert_allclose(emu["probs"], ref["probs"], rtol=1e-2, atol=1e-3)


def test_plan_pipeline_gives_device_and_streams_to_every_pass_that_takes_them() -> None:
    plan = plan_pipeline(None, 3, "310P3")
    with_device = [p for p in plan.passes if hasattr(p, "device")]
    assert {"partition-streams", "insert-events", "reuse-memory"} <= {p.name for p in with_device}
    assert all(p.device == "310P3" for p in with_device)
    assert [p.max_streams for p in plan.passes if hasattr(p, "max_streams")] == [3]
    assert plan.single is not None
    assert [p.strategy for p in plan.single if hasattr(p, "strategy")] == ["single"]
    assert [p.strategy for p in plan.passes if hasattr(p, "strategy")] == ["cost"]
    assert plan_pipeline("canonicalize,lower-to-tasks", None, "910B2").single is None


@pytest.mark.parametrize("spelling", ["910b2", "910B2", "Ascend910B2", "ASCEND910b2"])
def test_device_names_are_case_insensitive(spelling: str) -> None:
    name, profile = resolve_device(spelling, [])
    assert name == "910B2" and profile.name == "910B2"


@pytest.mark.parametrize("argv, message", [
    (["--device", "910x"], "unknown device '910x'"),
    (["--pipeline", "nope"], "'nope' does not refer to a registered pass"),
    (["--streams", "0"], "--streams must be at least 1"),
    (["--pipeline", "canonicalize", "--streams", "2"], "no pass of pipeline 'canonicalize' has option max-streams"),
])
def test_compile_diagnostics_exit_1_without_a_traceback(capsys: Any, argv: list[str], message: str) -> None:
    assert ge_run([TINY, *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_onnx_file_that_fails_to_load_is_a_diagnostic(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage\xff\xfe")
    tool = find_tool("ge-run")
    assert tool is not None
    proc = subprocess.run([tool, str(bad), "-o", str(tmp_path / "out.npz")], capture_output=True, text=True)
    assert proc.returncode == 1 and "not a readable ONNX model" in proc.stderr and "Traceback" not in proc.stderr
    assert not os.path.exists(tmp_path / "out.npz")


# ----------------------------------------------------------- several models

def test_priorities_repeated_or_comma_separated() -> None:
    assert parse_priorities(["0,5"], 2) == parse_priorities(["0", "5"], 2) == [0, 5]
    assert parse_priorities([], 3) == [0, 0, 0]
    assert parse_priorities(["1", "2,3"], 3) == [1, 2, 3]
    for texts, count in ((["0,5"], 3), (["x"], 1), (["8"], 1), (["-1"], 1), (["0,"], 2)):
        with pytest.raises(DiagnosticError):
            parse_priorities(texts, count)


def test_model_names_are_stems_made_distinct() -> None:
    assert model_names(["a/x.onnx", "b/x.mlir", "y.onnx", "x"]) == ["x", "x#2", "y", "x#3"]


def test_high_priority_model_stays_near_its_solo_latency_under_load(capsys: Any) -> None:
    """Four copies of one model: the priority-0 copy is slowed the least, and
    giving the priority to another copy moves the advantage with it."""
    runs = {}
    for order in ("0,5,5,5", "5,5,5,0"):
        out = _json(capsys, RESNET, RESNET, RESNET, RESNET, "--priority", order)
        assert [m["priority"] for m in out["models"]] == [int(p) for p in order.split(",")]
        runs[order] = out["models"]
    for order, models in runs.items():
        urgent = next(m for m in models if m["priority"] == 0)
        others = [m for m in models if m["priority"] != 0]
        assert all(urgent["latency_us"] <= m["latency_us"] for m in others)
        assert all(m["latency_us"] >= m["solo_latency_us"] - 1e-6 for m in models)
        assert urgent["solo_latency_us"] == others[0]["solo_latency_us"]  # the same model alone


def test_co_run_models_are_compiled_as_one_model_is(capsys: Any) -> None:
    """Each model's solo latency is the makespan ge-run reports for it alone."""
    out = _json(capsys, RESNET, TINY, "--priority", "0", "--priority", "3")
    solo = {m["name"]: m["solo_latency_us"] for m in out["models"]}
    assert solo["resnet_block"] == _json(capsys, RESNET, "--timing-only", "--no-compare")["makespan_us"]
    assert solo["tiny_cnn"] == _json(capsys, TINY, "--timing-only", "--no-compare")["makespan_us"]
    assert out["throughput_per_s"] == pytest.approx(2 / out["makespan_us"] * 1e6, rel=1e-3)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 4), st.integers(1, 3))
def test_co_run_binds_each_model_as_its_own_run_would(capsys: Any, batch: int, seq: int) -> None:
    """--input-shape beside other models binds in each the names it has, and picks
    a gear module's gear: each model's solo latency is the makespan of its own
    run with the bindings it has."""
    image = str(ROOT / "lit_tests" / "import" / "Inputs" / "image.onnx")
    chain = str(ROOT / "lit_tests" / "import" / "Inputs" / "shape_chain.onnx")
    module = import_onnx(chain, input_shapes={"seq": (seq,)})
    specialize_gears(module, "batch", parse_gears("batch", "1,2,4"))
    shapes = ["--input-shape", f"N={batch}", "--input-shape", "H=8", "--input-shape", "W=8",
              "--input-shape", f"batch={batch}"]
    with tempfile.TemporaryDirectory() as tmp:
        gears = str(pathlib.Path(tmp) / "gears.mlir")
        pathlib.Path(gears).write_text(str(module))
        out = _json(capsys, image, chain, gears, *shapes, "--input-shape", f"seq={seq}")
        alone_gear = _json(capsys, gears, "--input-shape", f"batch={batch}", "--timing-only", "--no-compare")
    solo = {m["name"]: m["solo_latency_us"] for m in out["models"]}
    alone = _json(capsys, image, *shapes[:6], "--timing-only", "--no-compare")
    assert solo["image"] == alone["makespan_us"]
    alone = _json(capsys, chain, "--input-shape", f"batch={batch}", "--input-shape", f"seq={seq}",
                  "--timing-only", "--no-compare")
    assert solo["shape_chain"] == alone["makespan_us"]
    gear = {1: 1, 2: 2, 3: 4, 4: 4}[batch]
    assert alone_gear["gear"].startswith(f"main_gear{(1, 2, 4).index(gear)} ")
    assert solo[f"gears[batch={gear}]"] == alone_gear["makespan_us"]


def test_co_run_table_columns_line_up_under_a_long_name(capsys: Any, tmp_path: pathlib.Path) -> None:
    """A gear's name (``gears[batch=2, seq=64]``) may be longer than the name column:
    the column widens, and every row of the table ends where its header does."""
    long = tmp_path / "a_model_whose_file_name_is_long.mlir"
    long.write_text(pathlib.Path(RESNET).read_text())
    capsys.readouterr()
    assert ge_run([str(long), TINY]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("model "))
    table = lines[header:header + 3]
    assert table[1].startswith("a_model_whose_file_name_is_long ")
    assert len({len(line) for line in table}) == 1
    assert len({line.index(" 0 ") for line in table[1:]}) == 1


@pytest.mark.parametrize("argv, message", [
    (["--priority", "0,1,2"], "--priority gives 3 priorities for 2 models"),
    (["--interpret"], "--interpret cannot apply to several models at once"),
    (["--inputs", "x.npz"], "--inputs cannot apply to several models at once"),
    (["--trace", "t.json"], "--trace cannot apply to several models at once"),
    (["--iterations", "two"], "--iterations must be a whole number at least 1"),
    (["--devices", "2"], "--devices cannot apply to several models at once"),
    (["--device", "nope"], "unknown device 'nope'"),
])
def test_several_models_diagnostics(capsys: Any, argv: list[str], message: str) -> None:
    assert ge_run([RESNET, TINY, *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_scenario_flags_reach_the_scenarios(capsys: Any) -> None:
    """--iterations on one model is scenario 1's (geir.tools.ge_run_scenarios)."""
    pytest.importorskip("geir.tools.ge_run_scenarios")
    out = _json(capsys, str(ROOT / "examples" / "video_pipeline.mlir"), "--iterations", "2")
    assert out["scenario"] == "video-pipeline" and out["iterations"] == 2


@settings(max_examples=5, deadline=None)
@given(st.sampled_from([0.0, 1.0, 3.0, 8.0, 20.0, 60.0]))
def test_passes_schedule_by_the_emulators_numbers(event_wait_us: float) -> None:
    """--device-param reaches the passes too: the cost strategy, whose
    portfolio holds the single stream, never ends slower than it on the same
    numbers (with costly events it falls back to one stream)."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert ge_run([TINY, "--timing-only", "--device-param", f"event_wait_us={event_wait_us}",
                       "--report", "json"]) == 0
    report = json.loads(out.getvalue())
    assert report["makespan_us"] <= report["single_stream"]["makespan_us"] + 1e-6
    assert f"--device-param event_wait_us={event_wait_us}" in report["pipeline"]
