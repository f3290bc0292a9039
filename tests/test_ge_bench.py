"""ge-bench: a sweep's rows come from the emulator's runs, the results file
survives interruption (resume), and the Dask executor gives the local
processes' table. The command-line options and every diagnostic are in
lit_tests/bench/."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.tools import ge_bench
from geir.tools.bench.measure import measure, run_task
from geir.tools.bench.results import COLUMNS, KEY_COLUMNS, TIMING_COLUMNS, ResultStore, with_speedups
from geir.tools.bench.sweep_config import Configuration, Sweep, load_config
from geir.tools.bench.table import render

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BRANCHES = os.path.join(ROOT, "lit_tests", "bench", "Inputs", "branches.mlir")


def _text() -> str:
    with open(BRANCHES, encoding="utf-8") as f:
        return f.read()


def _rows(path: str) -> list[dict[str, Any]]:
    store = ResultStore(path)
    store.load()
    return sorted(store.rows.values(), key=lambda r: tuple(str(r[c]) for c in KEY_COLUMNS))


def _untimed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows]


def _bench(*args: str) -> subprocess.Popen[str]:
    # One hash seed for every process: partition-streams{strategy=cost} visits
    # its engine pools in set order, so its plan can depend on the seed.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.Popen([sys.executable, "-m", "geir.tools.ge_bench", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env, preexec_fn=_as_from_a_shell)


def _as_from_a_shell() -> None:
    """Ctrl-C as a shell's child gets it: an xdist worker ignores SIGINT, and an
    ignored signal stays ignored across exec (Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# -- the figures of a run ------------------------------------------------------


def test_a_rows_figures_are_the_emulators() -> None:
    """measure's makespan and arena are what ge-run's path (passes, lower,
    emulate) gives for the same pipeline; the bounds hold."""
    import geir
    config = Configuration("cost", 4, "910B2", "best")
    row = measure(_text(), config)
    module = geir.parse(BRANCHES)
    geir.run_pipeline(module, "ge-optimize{device=910B2},partition-streams{strategy=cost max-streams=4 device=910B2},"
                              "insert-events{device=910B2},reuse-memory{algorithm=best device=910B2}")
    report = geir.emulate(geir.lower(module), device="910B2", timing_only=True)
    assert row["makespan_us"] == report.makespan_us
    assert row["arena_bytes"] == report.arena_bytes and row["peak_live_bytes"] == report.peak_live_bytes
    assert row["makespan_us"] >= row["lb_us"] - 1e-6
    assert row["makespan_us"] >= row["emu_lb_us"] - 1e-6
    assert row["lb_ratio"] == pytest.approx(row["makespan_us"] / row["lb_us"], abs=1e-4)
    assert row["races"] == 0 and row["deadlock"] is False
    assert row["streams"] > 1 and row["events"] > 0


@pytest.mark.parametrize("model", [BRANCHES, "light_squeezenet"])
def test_a_prepared_row_is_what_ge_run_gives_at_its_defaults(model: str) -> None:
    """ge-bench prepares a graph as ge-default does, so its row under ge-run's
    defaults (cost, 8 streams, best) is ge-run's makespan; as imported, it is
    the graph without graph fusion, precision mode or formats."""
    import geir
    from geir.tools.bench.models import resolve_models
    (m,) = resolve_models([model])
    from geir.tools.bench.models import light_model_paths
    report = geir.run_model(model if model.endswith(".mlir") else light_model_paths()[model], device="310P3",
                            timing_only=True, compare=False)
    prepared = measure(m.text, Configuration("cost", 8, "310P3", "best"))
    # an ONNX model comes in without its weights' bytes (a sweep is timing-only), to the same figures
    assert ("dense_resource<" in m.text) == (not model.endswith(".mlir"))
    assert prepared["makespan_us"] == pytest.approx(report.makespan_us, rel=1e-9)
    imported = measure(m.text, Configuration("cost", 8, "310P3", "best", prepare="none"))
    assert imported["makespan_us"] != prepared["makespan_us"]


def test_single_stream_row_has_no_events_and_the_most_makespan() -> None:
    rows = {s: measure(_text(), Configuration(s, 4, "910B2", "none")) for s in ("single", "cost")}
    assert rows["single"]["streams"] == 1 and rows["single"]["events"] == 0
    # cost's portfolio always holds the single-stream plan (sink mode)
    assert rows["cost"]["makespan_us"] <= rows["single"]["makespan_us"]


def test_a_rejected_model_is_an_error_row_not_a_crash() -> None:
    bad = "ge.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>) {\n  ge.return %x : (tensor<4xf16>) -> ()\n}\n"
    row = run_task("m", Configuration("single", 2, "910B2", "best"), bad + "}", 1.0)
    assert row["error"].startswith("m:") and "error" in row["error"]
    assert row["model"] == "m" and row["strategy"] == "single"


def _sliced_model(path: str, by_value: bool) -> str:
    """x[1, 8, 4] sliced on dim 1 up to half its size: computed from its shape
    (static once folded), or from its values (data-dependent: host-driven)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np
    ints = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)  # noqa: E731
    size = [helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Gather", ["shape", "one"], ["n"], axis=0)]
    if by_value:
        size = [helper.make_node("ReduceMax", ["x"], ["top"], keepdims=0), helper.make_node("Cast", ["top"], ["n"], to=7)]
    nodes = size + [helper.make_node("Div", ["n", "two"], ["half"]),
                    helper.make_node("Unsqueeze", ["half", "zero_axis"], ["end"]),
                    helper.make_node("Slice", ["x", "zero", "end", "one_axis"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, None, 4])],
                              [ints("one", 1), ints("two", 2), ints("zero", [0]), ints("zero_axis", [0]),
                               ints("one_axis", [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_a_model_that_runs_host_driven_is_said_so_in_its_rows_and_shape_arithmetic_is_not(tmp_path: Any) -> None:
    from geir.tools.bench.models import resolve_models
    config = Configuration("single", 2, "910B2", "best")
    static, data = (resolve_models([_sliced_model(str(tmp_path / f"{n}.onnx"), n == "data")])[0]
                    for n in ("shape", "data"))
    assert run_task("shape", config, static.text, 1.0)["error"] == ""
    error = run_task("data", config, data.text, 1.0)["error"]
    assert "runs as host-driven launches, which ge-bench does not plan" in error


# -- speed-ups, the table ---------------------------------------------------------


def _row(model: str, strategy: str, ms: int, makespan: float, memory: str = "best") -> dict[str, Any]:
    return {"model": model, "model_sha": "0" * 16, "strategy": strategy, "max_streams": ms, "device": "910B2", "memory": memory,
            "mode": "sink", "prepare": "ge-optimize", "makespan_us": makespan, "lb_ratio": 1.0}


def test_speedup_is_over_the_single_row_of_the_same_model_device_and_memory() -> None:
    rows = with_speedups([_row("a", "single", 2, 100.0), _row("a", "single", 4, 80.0), _row("a", "cost", 4, 40.0),
                          _row("a", "cost", 8, 50.0), _row("a", "cost", 4, 30.0, memory="none"),
                          _row("b", "cost", 4, 10.0)])
    by = {(r["model"], r["strategy"], r["max_streams"], r["memory"]): r["speedup"] for r in rows}
    assert by[("a", "single", 2, "best")] == 1.0
    assert by[("a", "cost", 4, "best")] == 2.0      # the single row of the same max-streams
    assert by[("a", "cost", 8, "best")] == 2.0      # none of that max-streams: the first single row (100 us)
    assert by[("a", "cost", 4, "none")] is None     # no single row with memory none
    assert by[("b", "cost", 4, "best")] is None


def test_markdown_leaves_out_wall_clock_and_puts_constant_columns_in_the_caption() -> None:
    rows = with_speedups([{**_row("a", "single", 4, 100.0), "compile_s": 0.5, "ops": 3},
                          {**_row("a", "cost", 4, 50.0), "compile_s": 0.7, "ops": 3}])
    md = render(rows, markdown=True)
    assert md.startswith("device 910B2, mode sink, prepare ge-optimize, max-streams 4, memory best:\n")
    assert "compile" not in md and "| a | 3 | cost | 50.0 | 2.00x |" in md
    assert "* cost: speed-up 2.000x" in md
    assert "compile s" in render(rows)


# -- config files -----------------------------------------------------------------


def test_config_positions_through_comments_and_line_breaks(tmp_path: Any) -> None:
    from geir.diagnostics import DiagnosticError, SourceManager
    path = tmp_path / "s.toml"
    path.write_text('models = ["fpn_head"]\nstrategies = [\n  "single",  # the baseline\n  # the next is wrong\n'
                    '  "gee",\n]\n')
    sweep = Sweep()
    sources = SourceManager()
    load_config(str(path), sweep, sources)
    with pytest.raises(DiagnosticError) as e:
        sweep.check()
    text = e.value.format(sources)
    assert text.startswith(f"{path}:5:3: error: unknown strategy 'gee'\n  \"gee\",\n  ^\n")
    assert "did you mean 'ge'?" in text


def test_configurations_are_the_cross_product_once_each() -> None:
    sweep = Sweep()
    for key, text in (("models", "fpn_head"), ("strategies", "single,cost,single"), ("max_streams", "2,4"),
                      ("devices", "910b2,910B2,V100"), ("memory", "best")):
        sweep.set_from_cli(key, text)
    sweep.check()
    configs = sweep.configurations()
    assert len(configs) == len(set(configs)) == 2 * 2 * 2
    assert {c.device for c in configs} == {"910B2", "V100"}  # the profile's own spelling


# -- the results file ----------------------------------------------------------------

_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=8)
_row_strategy = st.fixed_dictionaries({
    "model": _names, "model_sha": st.sampled_from(["0123456789abcdef", "fedcba9876543210"]), "strategy": st.sampled_from(["single", "ge", "cost"]), "max_streams": st.integers(1, 16),
    "device": st.sampled_from(["910B2", "V100"]), "memory": st.sampled_from(["best", "none"]),
    "mode": st.sampled_from(["sink", "host"]), "prepare": st.sampled_from(["ge-optimize", "none"]),
    "ops": st.integers(0, 10**6),
    "makespan_us": st.floats(0.001, 1e7, allow_nan=False), "speedup": st.none(),
    "lb_us": st.floats(0.001, 1e7), "lb_ratio": st.floats(1.0, 100.0), "lb_by": _names,
    "emu_lb_us": st.floats(0.0, 1e7), "streams": st.integers(1, 64), "events": st.integers(0, 1000),
    "ge_events": st.integers(0, 1000), "arena_bytes": st.integers(0, 2**40), "peak_live_bytes": st.integers(0, 2**40),
    "races": st.integers(0, 100), "deadlock": st.booleans(), "compile_s": st.floats(0.0, 100.0),
    "error": st.sampled_from(["", "x.mlir:1:2: error: a, \"quoted\" message"]),
})


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_row_strategy, min_size=1, max_size=6, unique_by=lambda r: tuple(r[c] for c in KEY_COLUMNS)),
       cut=st.floats(0.0, 1.0))
def test_results_round_trip_and_any_cut_keeps_whole_rows(tmp_path: Any, suffix: str, rows: list[dict[str, Any]],
                                                         cut: float) -> None:
    """Rows written are read back equal; a file cut anywhere (a killed sweep)
    reads back as a prefix of the rows, and appending after it is clean."""
    path = str(tmp_path / f"r{suffix}")
    if os.path.exists(path):
        os.unlink(path)
    store = ResultStore(path)
    store.open_for_append()
    for r in rows:
        store.append(r)
    store.close()
    back = ResultStore(path)
    assert back.load() == len(rows)
    assert list(back.rows.values()) == [{c: r[c] for c in COLUMNS} for r in rows]
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: int(len(data) * cut)])
    cut_store = ResultStore(path)
    n = cut_store.load()
    assert list(cut_store.rows.values()) == [{c: r[c] for c in COLUMNS} for r in rows[:n]]
    cut_store.open_for_append()
    for r in rows[n:]:
        cut_store.append(r)
    cut_store.close()
    again = ResultStore(path)
    again.load()
    assert list(again.rows.values()) == [{c: r[c] for c in COLUMNS} for r in rows]


def test_a_results_file_without_the_prepare_column_holds_runs_as_imported(tmp_path: Any) -> None:
    """Its rows read back with prepare 'none', and the file is rewritten with the column before rows are added."""
    path = str(tmp_path / "r.csv")
    old = [c for c in COLUMNS if c != "prepare"]
    row = {**_row("a", "single", 4, 100.0), "speedup": None, "error": ""}
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(old)
        w.writerow(["" if row.get(c) is None else row.get(c) for c in old])
    store = ResultStore(path)
    assert store.load() == 1
    (back,) = store.rows.values()
    assert back["prepare"] == "none" and back["makespan_us"] == 100.0
    assert open(path, encoding="utf-8").readline().strip() == ",".join(COLUMNS)


# -- input shapes -----------------------------------------------------------------------

DYNAMIC = """ge.graph @main(%x: tensor<?x64xf16> {ge.name = "x", ge.symbols = ["batch", ""]}) -> (tensor<?x64xf16>) {
  %y = ge.relu %x : (tensor<?x64xf16>) -> tensor<?x64xf16>
  ge.return %y : (tensor<?x64xf16>) -> ()
}
"""


def test_input_shapes_bind_the_models_that_have_them(tmp_path: Any) -> None:
    from geir.diagnostics import DiagnosticError
    from geir.tools.bench.models import resolve_models
    path = tmp_path / "dyn.mlir"
    path.write_text(DYNAMIC)
    with pytest.raises(DiagnosticError, match=r"input 'x' dim 0 \('batch'\) is dynamic .*--input-shape batch=<size>$"):
        resolve_models([str(path)])
    dyn, static = resolve_models([str(path), BRANCHES], input_shapes={"batch": (8,), "seq": (128,)})
    assert "tensor<8x64xf16>" in dyn.text and "?" not in dyn.text
    assert static.text == _text()  # no 'batch' or 'seq' here: as written
    with pytest.raises(DiagnosticError, match="input 'x' has rank 2"):
        resolve_models([str(path)], input_shapes={"x": (8,)})



def test_a_runs_error_points_into_a_models_text_only_where_that_text_is_the_file(tmp_path: Any) -> None:
    from geir.tools.bench.models import resolve_models
    path = tmp_path / "dyn.mlir"
    path.write_text(DYNAMIC)
    (as_written,) = resolve_models([BRANCHES])
    (bound,) = resolve_models([str(path)], input_shapes={"batch": (8,)})  # folded and printed again
    (imported,) = resolve_models([os.path.join(ROOT, "lit_tests", "import", "Inputs", "dynamic.onnx")],
                                 input_shapes={"N": (3,)})
    assert as_written.located and not bound.located and not imported.located
    config = Configuration("single", 2, "910B2", "best")
    broken = as_written.text.replace("ge.return", "ge.returns", 1)
    assert run_task(BRANCHES, config, broken, 1.0, located=True)["error"].startswith(f"{BRANCHES}:")
    assert run_task(BRANCHES, config, broken, 1.0, located=True)["error"].split(": error:")[0].count(":") == 2
    assert run_task(BRANCHES, config, broken, 1.0)["error"].startswith(f"{BRANCHES}: error: ")

def test_a_module_of_gears_is_one_model_per_gear(tmp_path: Any) -> None:
    """Each gear is a model of the sweep, named by its sizes, and its row is
    what ge-run gives for an input of that gear's size."""
    import numpy as np
    import geir
    from geir.backends.shape_gears import parse_gears, specialize_gears
    from geir.printer import module_to_string
    from geir.tools.bench.models import resolve_models
    module = geir.import_onnx(os.path.join(ROOT, "lit_tests", "import", "Inputs", "shape_chain.onnx"),
                              input_shapes={"seq": (2,)})
    specialize_gears(module, "batch", parse_gears("batch", "1,4"))
    path = tmp_path / "gears.mlir"
    path.write_text(module_to_string(module))
    models = resolve_models([str(path)])
    assert [m.name for m in models] == [f"{path}[batch=1]", f"{path}[batch=4]"]
    row = measure(models[1].text, Configuration("cost", 8, "310P3", "best"))
    report = geir.run_model(str(path), device="310P3", inputs={"x": np.ones((3, 2, 4), np.float32)}, compare=False)
    assert report.fields["gear"] == "main_gear1 (batch=4; inputs batch=3, padded)"
    assert row["makespan_us"] == pytest.approx(report.makespan_us, rel=1e-9)


# -- resume ---------------------------------------------------------------------------

_SWEEP = ["--models", "random_dag_60", "--strategies", "single,ge,chain-cover,cost", "--max-streams", "2,4,8"]
_RUNS = 12


def _wait_for_rows(path: str, proc: subprocess.Popen[str], rows: int, timeout: float = 120.0) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout and proc.poll() is None:
        if os.path.exists(path) and open(path).read().count("\n") >= rows + 1:  # + the header
            return
        time.sleep(0.005)


@pytest.fixture(scope="module")
def uninterrupted_sweep(tmp_path_factory: Any) -> list[dict[str, Any]]:
    """The rows of ``_SWEEP`` run to the end, once for both interruptions."""
    full = str(tmp_path_factory.mktemp("sweep") / "full.csv")
    proc = _bench(*_SWEEP, "--jobs", "1", "-o", full)
    assert proc.communicate(timeout=300) and proc.returncode == 0
    return _rows(full)


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_an_interrupted_sweep_resumes_from_its_file(tmp_path: Any, how: str,
                                                    uninterrupted_sweep: list[dict[str, Any]]) -> None:
    """SIGKILL mid-sweep (one process), or Ctrl-C (two worker processes):
    the rerun runs only the missing rows and the file ends equal to an
    uninterrupted sweep's (timing excluded)."""
    cut = str(tmp_path / "cut.csv")
    jobs = "1" if how == "kill" else "2"
    proc = _bench(*_SWEEP, "--jobs", jobs, "-o", cut)
    _wait_for_rows(cut, proc, 1)
    proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if how == "interrupt":
        assert proc.returncode == 130 and "Traceback" not in err, err
    done = _rows(cut)
    assert 1 <= len(done) < _RUNS, "the sweep was not interrupted mid-way"
    proc = _bench(*_SWEEP, "--jobs", "1", "-o", cut)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert f"{_RUNS} runs ({len(done)} already in {cut}); running {_RUNS - len(done)}" in err
    assert _untimed(_rows(cut)) == _untimed(uninterrupted_sweep)
    assert all(r["speedup"] is not None for r in _rows(cut))


# -- Dask ----------------------------------------------------------------------------------


def test_dask_cluster_gives_the_local_processes_table(tmp_path: Any, capsys: Any) -> None:
    """The same sweep on a LocalCluster of 2 workers and on 2 local worker
    processes: the same rows, the same Markdown table."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (the 'dist' extra)")
    sweep = ["--models", f"{BRANCHES},fpn_head", "--strategies", "single,ge-parallel,cost", "--max-streams", "2,8",
             "--markdown"]
    local, dask = str(tmp_path / "local.csv"), str(tmp_path / "dask.jsonl")
    assert ge_bench.main([*sweep, "--jobs", "2", "-o", local]) == 0
    local_out = capsys.readouterr().out
    # Threads in this process keep the test fast (no interpreter start per worker).
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        assert ge_bench.main([*sweep, "--executor", "dask", "--scheduler", cluster.scheduler_address,
                              "-o", dask]) == 0
    captured = capsys.readouterr()
    assert f"running 12 on Dask at {cluster.scheduler_address}" in captured.err
    assert captured.out == local_out
    assert _untimed(_rows(dask)) == _untimed(_rows(local))
    assert len(_rows(dask)) == 2 * 3 * 2


def test_dask_scheduler_that_is_not_there(capsys: Any, monkeypatch: Any) -> None:
    pytest.importorskip("distributed", reason="dask.distributed is not installed (the 'dist' extra)")
    from geir.tools.bench import executors
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT_S", 1.0)
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    t0 = time.monotonic()
    assert ge_bench.main(["--models", "fpn_head", "--strategies", "single", "--executor", "dask",
                          "--scheduler", f"tcp://127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ge-bench: error: cannot reach the Dask scheduler at 'tcp://127.0.0.1:{port}'"), err
    assert "Traceback" not in err and "running" not in err and time.monotonic() - t0 < 30


def test_csv_is_readable_by_the_csv_module(tmp_path: Any) -> None:
    path = str(tmp_path / "r.csv")
    assert ge_bench.main(["--models", BRANCHES, "--strategies", "single,cost", "--jobs", "1", "-o", path]) == 0
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["strategy"] for r in rows] == ["single", "cost"] and list(rows[0]) == list(COLUMNS)
    assert json.loads(json.dumps(rows))  # plain strings, nothing exotic


def test_a_run_that_hits_a_bug_is_recorded_and_retried_on_resume(tmp_path: Any, monkeypatch: Any,
                                                                 capsys: Any) -> None:
    from geir.tools.bench import measure as measure_module
    real = measure_module.measure

    def broken(text: str, config: Configuration, time_limit: float = 10.0, name: str = "") -> dict[str, Any]:
        if config.strategy == "cost" and name != "warm-up.mlir":
            raise RuntimeError("a bug in a pass")
        return real(text, config, time_limit, name)
    path = str(tmp_path / "r.csv")
    args = ["--models", BRANCHES, "--strategies", "single,cost", "--jobs", "1", "-o", path]
    monkeypatch.setattr(measure_module, "measure", broken)
    assert ge_bench.main(args) == 0
    err = capsys.readouterr().err
    assert "ge-bench: warning: 1 runs failed" in err and "internal error: RuntimeError: a bug in a pass" in err
    monkeypatch.setattr(measure_module, "measure", real)
    assert ge_bench.main(args) == 0
    assert "2 runs (1 already in" in capsys.readouterr().err
    assert [r["error"] for r in _rows(path)] == ["", ""]


@pytest.mark.parametrize("flag", ["--progress", "--no-progress"])
def test_progress_bar_on_stderr(flag: str) -> None:
    proc = _bench("--models", BRANCHES, "--strategies", "single,cost", "--jobs", "1", flag)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "| cost" not in out  # the table on stdout, untouched
    try:
        import tqdm  # noqa: F401
    except ImportError:
        assert ("no progress bar without tqdm" in err) == (flag == "--progress")
        return
    assert ("2/2" in err and "100%" in err) == (flag == "--progress"), err


def test_markdown_names_each_profiles_assumed_numbers() -> None:
    from geir.backends.device_profile import load_profile
    from geir.tools.bench.table import profile_notes
    for device in ("910B2", "V100"):
        p = load_profile(device)
        line = profile_notes([device])
        fitted = f" ({len(p.fitted)} fitted to measurements: {', '.join(sorted(p.fitted))})" if p.fitted else ""
        assert line.startswith(f"{device}: {len(p.values) - len(p.assumed)} of {len(p.values)} profile numbers "
                               f"sourced{fitted}; assumed: ")
        assert all(name in line for name in p.assumed)
