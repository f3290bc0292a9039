"""``geir.run_model``: what ``ge-run model`` does, as one library call, and
the commands' last resort for a bug (an internal error said in one line).

The report is the command's: ``to_json()`` is ``ge-run --report json``'s
object and ``format_text()`` its text; the options are its flags.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
from typing import Any, Callable

import numpy as np
import pytest

import geir
from geir.tools.ge_run import main as ge_run

ROOT = pathlib.Path(__file__).resolve().parent.parent
TINY = str(ROOT / "examples" / "tiny_cnn.onnx")
TWO_STREAMS = str(ROOT / "examples" / "two_streams.mlir")
SHAPE_CHAIN = str(ROOT / "lit_tests" / "import" / "Inputs" / "shape_chain.onnx")


def _command(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = ge_run(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def tiny() -> geir.RunReport:
    return geir.run_model(TINY)


def test_report_is_ge_runs_json_and_text(tiny: geir.RunReport) -> None:
    code, out, err = _command(TINY, "--report", "json")
    assert code == 0 and "random inputs, seed 0" in err
    assert json.loads(out) == json.loads(tiny.to_json())
    code, text, _ = _command(TINY)
    assert code == 0 and text == tiny.format_text()


def test_report_holds_every_figure_of_the_run(tiny: geir.RunReport) -> None:
    f = tiny.fields
    assert tiny.makespan_us == f["makespan_us"] and tiny.lower_bound_us == f["lower_bound_us"]
    assert tiny.speedup == f["single_stream"]["speedup"]
    assert tiny.single_stream_us == pytest.approx(tiny.speedup * tiny.makespan_us, rel=1e-3)
    assert tiny.graph_bound["bound_us"] <= tiny.makespan_us
    assert tiny.memory_plan["lower_bound_bytes"] <= tiny.memory_plan["arena_bytes"]
    assert tiny.engines == f["engines"] and tiny.streams == f["streams"] and tiny.arena_bytes == f["arena_bytes"]
    assert tiny.clean and tiny.races == [] and tiny.deadlock is None
    assert set(tiny.outputs) == {"probs"} and isinstance(tiny.outputs["probs"], np.ndarray)
    assert tiny.random_seed == 0 and set(tiny.input_arrays) == {"image"}
    assert f"{tiny.speedup:.2f}x over single stream" in repr(tiny)


def test_outputs_follow_the_given_inputs(tiny: geir.RunReport) -> None:
    x = tiny.input_arrays["image"]
    again = geir.run_model(TINY, inputs={"image": x}, compare=False)
    assert again.fields["inputs"] == "given" and again.random_seed is None
    np.testing.assert_array_equal(again.outputs["probs"], tiny.outputs["probs"])
    other = geir.run_model(TINY, inputs={"image": x + 1}, compare=False)
    assert not np.array_equal(other.outputs["probs"], tiny.outputs["probs"])


def test_an_onnx_model_under_another_name_runs_as_the_onnx_file_does(tmp_path: pathlib.Path,
                                                                      tiny: geir.RunReport) -> None:
    # a model's bytes are not IR text: an extension, a pipe or stdin does not decide
    renamed = tmp_path / "tiny_cnn.bin"
    renamed.write_bytes(pathlib.Path(TINY).read_bytes())
    report = geir.run_model(str(renamed))
    assert report.makespan_us == tiny.makespan_us
    assert all(np.array_equal(report.outputs[k], tiny.outputs[k]) for k in tiny.outputs)


def test_a_module_is_run_on_a_clone() -> None:
    module = geir.import_onnx(TINY)
    before = str(module)
    report = geir.run_model(module, timing_only=True, compare=False)
    assert str(module) == before and report.outputs is None and report.single_stream_us is None


def test_input_shapes_bind_dynamic_dims() -> None:
    report = geir.run_model(SHAPE_CHAIN, input_shapes={"x": (5, 2, 4)})
    assert report.outputs["z"].shape == (5, 2, 4)
    with pytest.raises(geir.Error, match="input_shapes"):
        geir.run_model(SHAPE_CHAIN, input_shapes={"nothing": (1,)})


def test_options_reach_the_pipeline() -> None:
    report = geir.run_model(TINY, device="310p3", streams=1, timing_only=True)
    assert report.pipeline == "ge-default{device=310P3 max-streams=1}"
    assert len(report.streams) == 1 and report.speedup == pytest.approx(1.0, abs=0.01)


def test_the_single_stream_comparison_shares_the_passes_before_partitioning(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both plans go on from one run of the passes before partition-streams
    (the weights are converted once), and the report is what separate runs give."""
    from geir.passes.pass_manager import PassManager
    ran: list[str] = []
    original = PassManager.run

    def counting(self: PassManager, module: Any, ctx: Any = None) -> Any:
        ran.extend(p.name for p in self.passes)
        return original(self, module, ctx)

    monkeypatch.setattr(PassManager, "run", counting)
    report = geir.run_model(TINY, device="310p3", timing_only=True)
    assert ran.count("precision-mode") == 1 and ran.count("canonicalize") == 1
    assert ran.count("partition-streams") == 2 and ran.count("lower-to-tasks") == 2
    alone = geir.run_model(TINY, device="310p3", timing_only=True, streams=1)
    assert report.single_stream_us == pytest.approx(alone.makespan_us)


@pytest.mark.skipif(not (ROOT / "passes" / "precision_mode.py").exists(), reason="no precision-mode pass")
def test_precision_mode_is_ge_defaults_option() -> None:
    kept = geir.run_model(TINY, precision_mode="must_keep_origin_dtype", compare=False)
    assert "precision-mode=must_keep_origin_dtype" in kept.pipeline
    reference = geir.run_model(TINY, inputs=kept.input_arrays, pipeline="canonicalize", compare=False)
    np.testing.assert_allclose(kept.outputs["probs"], reference.outputs["probs"], rtol=1e-5, atol=1e-6)
    with pytest.raises(geir.Error, match="precision_mode applies to the default pipeline"):
        geir.run_model(TINY, precision_mode="force_fp16", pipeline="ge-default")


def test_a_scheduled_graph_runs_as_written() -> None:
    report = geir.run_model(TWO_STREAMS)
    assert report.pipeline is None and "pipeline" not in report.fields and report.speedup is None
    assert report.format_text() == _command(TWO_STREAMS)[1]


def test_bad_input_is_a_located_error(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text('"ge.graph"() ({\n  %0 = "ge.nope"() : () -> f32\n}) : () -> ()\n')
    with pytest.raises(geir.Error) as e:
        geir.run_model(bad)
    assert str(e.value).startswith(f"{bad}:2:") and "^" in str(e.value)
    with pytest.raises(geir.Error, match="--streams must be at least 1"):
        geir.run_model(TINY, streams=0)


def test_absent_weights_run_timing_only(tmp_path: pathlib.Path) -> None:
    importer = pytest.importorskip("geir.onnx_importer")
    try:
        module = importer.import_onnx(TINY, elide_weights=True)
    except TypeError:
        pytest.skip("the importer cannot import without weights")
    report = geir.run_model(module)
    assert report.weights_absent and report.outputs is None
    assert report.fields["inputs"] == "none (timing only)"
    assert report.format_text().startswith("weights absent: timing only\n")
    assert report.speedup is not None and report.memory_plan is not None  # time and memory need no values
    path = tmp_path / "graph_only.mlir"
    path.write_text(str(module))
    code, out, err = _command(str(path))
    assert code == 0 and out.startswith("weights absent: timing only\n") and "random inputs" not in err


# ---------------------------------------------------------------- internal errors


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the model\nbroke")


def _ge_opt(argv: list[str]) -> int:
    from geir.tools.ge_opt import main
    return main(argv)


def _ge_translate(argv: list[str]) -> int:
    from geir.tools.ge_translate import main
    return main(argv)


def _ge_bench(argv: list[str]) -> int:
    from geir.tools.ge_bench import main
    return main(argv)


#: command, its main, a library function it calls, arguments
COMMANDS: list[tuple[str, Callable[[list[str]], int], str, list[str]]] = [
    ("ge-run", ge_run, "geir.backends.run_model.run_prepared", [TWO_STREAMS]),
    ("ge-opt", _ge_opt, "geir.parser.parse_module", [TWO_STREAMS]),
    ("ge-translate", _ge_translate, "geir.onnx_importer.import_onnx", ["--import-onnx", TINY]),
    ("ge-bench", _ge_bench, "geir.tools.bench.sweep.prepare", ["--models", TINY, "--strategies", "single"]),
]


@pytest.mark.parametrize("tool,main,target,argv", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_an_internal_error_is_one_line_and_exit_70(tool: str, main: Callable[[list[str]], int], target: str,
                                                    argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("GEIR_DEBUG", raising=False)
    monkeypatch.setattr(target, _boom)
    assert main(argv) == 70
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{tool}: internal error: RuntimeError: the model broke",
                   f"{tool}: this is a bug; run with --debug (or GEIR_DEBUG=1) to see the traceback"]


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_shows_the_traceback(how: str, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("geir.backends.run_model.run_prepared", _boom)
    if how == "env":
        monkeypatch.setenv("GEIR_DEBUG", "1")
    assert ge_run([TWO_STREAMS, *(["--debug"] if how == "flag" else [])]) == 70
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError: the model" in err


def test_a_diagnostic_is_not_an_internal_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert ge_run([TINY, "--streams", "0"]) == 1
    err = capsys.readouterr().err
    assert "error: --streams must be at least 1" in err and "internal error" not in err


@pytest.mark.parametrize("tool", ["ge-run", "ge-opt", "ge-translate", "ge-bench"])
def test_help_names_no_tracker_issue(tool: str) -> None:
    import importlib
    module = importlib.import_module(f"geir.tools.{tool.replace('-', '_')}")
    text = module.build_arg_parser().format_help()
    assert "issue" not in text.lower() and "--debug" in text
