"""The public API (``geir.__all__``) as a user meets it: this file imports only
``geir``, runs the whole data path through it, and checks each step against
what the commands (ge-translate, ge-opt, ge-run) produce for the same input."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import geir

from tool_paths import find_tool

ROOT = pathlib.Path(__file__).resolve().parent.parent
TWO_STREAMS = ROOT / "examples" / "two_streams.mlir"
TINY_CNN = ROOT / "examples" / "tiny_cnn.onnx"
DYNAMIC = ROOT / "lit_tests" / "import" / "Inputs" / "dynamic.onnx"


def _tool(name: str, *args: str, stdin: str | None = None) -> str:
    path = find_tool(name)
    assert path is not None, f"{name} is not installed"
    done = subprocess.run([path, *args], input=stdin, capture_output=True, text=True, check=True)
    return done.stdout


# ------------------------------------------------------------------ __all__


@pytest.mark.parametrize("name", geir.__all__)
def test_every_public_name_exists_and_is_documented(name: str) -> None:
    obj = getattr(geir, name)
    doc = obj.__doc__
    assert doc and doc.strip(), f"geir.{name} has no docstring"
    assert obj.__doc__ is not type(obj).__doc__ or isinstance(obj, type), f"geir.{name} only inherits a docstring"


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="no attribute 'parse_modul'"):
        geir.parse_modul  # noqa: B018


def test_import_geir_loads_no_heavy_dependency() -> None:
    code = ("import sys, geir; heavy = ('onnx', 'matplotlib', 'numpy', 'lark', 'geir.parser');"
            "print(','.join(m for m in heavy if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""


# ------------------------------------------------------------ the data path


def test_parse_emulate_equals_ge_run_report() -> None:
    """parse -> run_pipeline -> lower -> emulate gives ge-run's JSON report, trace and outputs."""
    module = geir.parse(str(TWO_STREAMS))
    assert geir.run_pipeline(module, "canonicalize,cse") is module
    tasks = geir.lower(module)
    assert isinstance(tasks, geir.TaskList)
    report = geir.emulate(tasks, device="910B2", mode="sink")
    assert isinstance(report, geir.Report)

    expected = json.loads(_tool("ge-run", "-", "--report", "json", stdin=_tool("ge-opt", str(TWO_STREAMS),
                                                                                 "--canonicalize", "--cse",
                                                                                 "--mlir-print-debuginfo")))
    assert json.loads(report.to_json()) == expected
    # every field of the JSON report is an attribute of the same value
    for key, value in expected.items():
        if key != "outputs":
            assert json.loads(json.dumps(getattr(report, key))) == value, key
    assert report.fields == list(expected)
    assert len(report.streams) == 2 and report.clean and report.findings == []
    assert set(report.outputs) == set(expected["outputs"])
    y = report.outputs["y"]
    assert list(y.shape) == expected["outputs"]["y"]["shape"]
    assert float(y.astype(np.float64).mean()) == pytest.approx(expected["outputs"]["y"]["mean"])


def test_trace_is_ge_runs_trace(tmp_path: pathlib.Path) -> None:
    module = geir.parse(TWO_STREAMS)
    report = geir.emulate(geir.lower(module), timing_only=True)
    ours = report.trace(tmp_path / "ours.json")
    _tool("ge-run", str(TWO_STREAMS), "--timing-only", "--trace", str(tmp_path / "theirs.json"))
    got = json.loads(pathlib.Path(ours).read_text())
    assert got == json.loads((tmp_path / "theirs.json").read_text())
    names = {e.get("args", {}).get("name") for e in got["traceEvents"] if e.get("name") == "thread_name"}
    assert {"stream 0 (priority 0)", "stream 1 (priority 0)"} <= names


def test_a_trace_that_cannot_be_written_is_a_geir_error(tmp_path: pathlib.Path) -> None:
    report = geir.emulate(geir.lower(geir.parse(TWO_STREAMS)), timing_only=True)
    with pytest.raises(geir.Error, match="cannot write '.*missing/t.json': no such directory"):
        report.trace(tmp_path / "missing" / "t.json")


def test_timeline_is_a_figure_with_a_row_per_stream(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")
    from matplotlib.figure import Figure
    report = geir.emulate(geir.lower(geir.parse(TWO_STREAMS)), timing_only=True)
    fig = report.timeline()
    assert isinstance(fig, Figure)
    gantt, units = fig.axes
    assert [t.get_text() for t in gantt.get_yticklabels()] == ["stream 0", "stream 1"]
    assert f"makespan {report.makespan_us:.1f} us" in gantt.get_title()
    # one bar collection per (engine, stream) pair that ran kernels, plus the stalls
    assert len(gantt.collections) >= 2
    assert units.get_ylabel() == "share of units busy"
    fig.savefig(tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 0


def test_the_timelines_busy_share_does_not_dip_between_kernels_back_to_back() -> None:
    pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")
    chain = """ge.graph @main(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %a = ge.exp %x : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %b = ge.sqrt %a : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
  %c = ge.exp %b : (tensor<8x4096xf16>) -> tensor<8x4096xf16>
  ge.return %c : (tensor<8x4096xf16>) -> ()
}
"""
    module = geir.parse(chain)
    geir.run_pipeline(module, "builtin.module(assign-engines,partition-streams{strategy=single},insert-events,"
                              "reuse-memory)")
    report = geir.emulate(geir.lower(module), timing_only=True)
    _, units = report.timeline().axes
    [line] = [l for l in units.get_lines() if max(l.get_ydata()) > 0]
    # the steps: 0 before the first kernel, then one level per instant a kernel starts
    # or ends, the last one 0 after the last kernel; every level between stays busy
    levels = list(line.get_ydata())
    assert levels[0] == 0 and levels[-1] == 0 and len(levels) == 5
    assert min(levels[1:-1]) > 0


def test_import_onnx_path_matches_the_commands() -> None:
    """import_onnx -> pipeline -> emulate (host mode) equals the README's main command."""
    module = geir.import_onnx(TINY_CNN)
    assert str(module) == _tool("ge-translate", "--import-onnx", str(TINY_CNN))
    # with locations, so the task names (from op locations) are the same on both sides
    imported = _tool("ge-translate", "--import-onnx", str(TINY_CNN), "--mlir-print-debuginfo")
    geir.run_pipeline(module, "builtin.module(canonicalize,cse,lower-to-tasks)")
    assert str(module) == _tool("ge-opt", "--canonicalize", "--cse", "--lower-to-tasks", stdin=imported)
    report = geir.emulate(geir.lower(module), mode="host")
    expected = json.loads(_tool("ge-run", "-", "--mode", "host", "--report", "json", stdin=str(module)))
    assert report.as_dict() == expected
    assert report.mode == "host" and "Host" in report.engines


def test_emulate_takes_inputs_as_arrays_or_npz(tmp_path: pathlib.Path) -> None:
    module = geir.parse(TWO_STREAMS)
    x = np.linspace(-1, 1, 64 * 56 * 56, dtype=np.float16).reshape(1, 64, 56, 56)
    np.savez(tmp_path / "in.npz", x=x)
    by_dict = geir.emulate(module, inputs={"x": x})  # a module is lowered first
    by_file = geir.emulate(geir.lower(module), inputs=tmp_path / "in.npz")
    _tool("ge-run", str(TWO_STREAMS), "--interpret", "--inputs", str(tmp_path / "in.npz"), "-o",
          str(tmp_path / "out.npz"))
    with np.load(tmp_path / "out.npz") as reference:
        np.testing.assert_array_equal(by_dict.outputs["y"], reference["y"])
    np.testing.assert_array_equal(by_file.outputs["y"], by_dict.outputs["y"])
    assert by_dict.inputs == "given" and by_file.inputs == str(tmp_path / "in.npz")


def test_import_onnx_binds_input_shapes() -> None:
    module = geir.import_onnx(DYNAMIC, input_shapes={"x": [3, 4]})
    assert "tensor<3x4xf32>" in str(module)
    # the text --input-shape takes, in either spelling, binds the same
    for text in ("x=3x4", "x:3,4", "N=3"):
        assert "tensor<3x4xf32>" in str(geir.import_onnx(DYNAMIC, input_shapes=text))
    with pytest.raises(geir.Error, match="expects NAME"):
        geir.import_onnx(DYNAMIC, input_shapes="x:3;4")
    run = geir.run_model(DYNAMIC, input_shapes="x:3,4", timing_only=True, compare=False)
    assert run.makespan_us > 0
    with pytest.raises(geir.Error, match=r"input 'x' dim 0 \('N'\) is dynamic \(tensor<\?x4xf32>\)"):
        geir.lower(geir.import_onnx(DYNAMIC))


def test_timing_only_report_has_no_outputs() -> None:
    report = geir.emulate(geir.lower(geir.parse(TWO_STREAMS)), timing_only=True, device="910B4")
    assert report.outputs is None and report.inputs == "none (timing only)" and report.device == "910B4"
    assert "outputs" not in report.as_dict()


def test_a_race_is_a_finding_not_an_exception() -> None:
    text = TWO_STREAMS.read_text()
    racy = "\n".join(line for line in text.splitlines() if "ge.wait_event {event = 1" not in line)
    report = geir.emulate(geir.lower(geir.parse(racy)), timing_only=True)
    assert report.races and not report.clean
    assert report.findings[0] == f"{report.races_total} data race(s)"
    # the same findings ge-run names when it exits with code 3
    done = subprocess.run([find_tool("ge-run"), "-", "--timing-only"], input=racy, capture_output=True, text=True)
    assert done.returncode == 3
    assert f"the emulator found {', '.join(report.findings)} (see the report)" in done.stderr
    assert "data race" in repr(report)


# ------------------------------------------------------------------ printing


def test_print_is_ge_opts_output(capsys: pytest.CaptureFixture[str]) -> None:
    module = geir.parse(TWO_STREAMS)
    module.print()
    assert capsys.readouterr().out == _tool("ge-opt", str(TWO_STREAMS))
    module.print(generic=True)
    generic = capsys.readouterr().out
    assert generic == _tool("ge-opt", "--mlir-print-op-generic", str(TWO_STREAMS))
    geir.parse(generic).print(generic=True)
    assert capsys.readouterr().out == generic


def test_module_displays_as_coloured_html_and_markdown() -> None:
    module = geir.parse(TWO_STREAMS)
    page = module._repr_html_()
    assert page.startswith("<pre class='geir-ir'>")
    assert '<span class="geir-op"' in page and ">ge.conv2d</span>" in page
    assert ">%stem</span>" in page and ">@main</span>" in page
    assert ">tensor&lt;1x64x56x56xf16&gt;</span>" in page
    # an attribute name is not coloured as an op, and no raw '<' of the IR leaks
    assert ">ge.name</span>" not in page
    assert "<1x64" not in page
    markdown = module._repr_markdown_()
    assert markdown.startswith("```mlir\n") and str(module).splitlines()[0] in markdown


def test_large_modules_display_cut() -> None:
    body = "\n".join(f"  %v{i} = ge.relu %v{i - 1} : (tensor<4xf32>) -> tensor<4xf32>" for i in range(1, 600))
    module = geir.parse(f"ge.graph @main(%v0: tensor<4xf32>) -> tensor<4xf32> {{\n{body}\n"
                        "  ge.return %v599 : (tensor<4xf32>) -> ()\n}\n")
    assert "more lines (module.print() shows all)" in module._repr_html_()
    assert module._repr_html_().count("\n") < 450


def test_report_displays_as_tables() -> None:
    report = geir.emulate(geir.lower(geir.parse(TWO_STREAMS)), timing_only=True)
    page = report._repr_html_()
    assert page.count("<table>") == 3
    assert f"{report.makespan_us:.3f} us" in page
    assert "<td>AICore</td>" in page
    assert report._repr_markdown_().count("| stream |") == 1


# -------------------------------------------------------------------- errors


def test_parse_error_is_a_located_diagnostic() -> None:
    with pytest.raises(geir.Error) as info:
        geir.parse("ge.graph @main() -> () {\n  %x = ge.relu %nope : (tensor<4xf32>) -> tensor<4xf32>\n}\n")
    text = str(info.value)
    assert text.startswith("<string>:2:")
    assert "error: use of undeclared SSA value name '%nope'" in text
    assert "  %x = ge.relu %nope" in text and "^" in text.splitlines()[2]
    assert isinstance(info.value, geir.Error) and info.value.diagnostics


def test_verifier_error_from_a_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("ge.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %y = ge.relu %x : (tensor<4xf32>) -> tensor<5xf32>\n"
                    "  ge.return %y : (tensor<5xf32>) -> ()\n}\n")
    with pytest.raises(geir.Error, match=rf"{path}:2:\d+: error: "):
        geir.parse(path)
    with pytest.raises(FileNotFoundError):
        geir.parse(str(tmp_path / "missing.mlir"))


def test_parse_of_an_onnx_file_says_what_reads_it() -> None:
    with pytest.raises(geir.Error) as info:
        geir.parse(TINY_CNN)
    text = str(info.value)
    assert text.startswith(f"{TINY_CNN}: error: not UTF-8 text: byte 0x")
    assert "note: this is an ONNX model: 'ge-translate --import-onnx' imports it as IR" in text


def test_pipeline_errors_name_what_exists() -> None:
    module = geir.parse(TWO_STREAMS)
    with pytest.raises(geir.Error, match="'no-such-pass' does not refer to a registered pass; registered passes: "
                                         ".*canonicalize"):
        geir.run_pipeline(module, "canonicalize,no-such-pass")
    with pytest.raises(geir.Error, match="no such option 'bogus' for pass 'lower-to-tasks'"):
        geir.run_pipeline(module, "lower-to-tasks{bogus=1}")
    with pytest.raises(geir.Error, match="option 'alignment' must be positive"):
        geir.run_pipeline(module, "lower-to-tasks{alignment=0}")


def test_lower_errors() -> None:
    with pytest.raises(geir.Error, match="no 'ge.graph' and no 'rt.model'"):
        geir.lower(geir.parse("module {\n}\n"))
    two = geir.parse("ge.graph @a() -> () {\n  ge.return : () -> ()\n}\nge.graph @b() -> () {\n"
                     "  ge.return : () -> ()\n}\n")
    with pytest.raises(geir.Error, match=r"several graphs \(a, b\)"):
        geir.lower(two)
    with pytest.raises(geir.Error, match="no graph named 'c'; it has: a, b"):
        geir.lower(two, graph="c")
    assert geir.lower(two, graph="b").name == "b"


def test_lower_leaves_the_module_unchanged() -> None:
    module = geir.parse(TWO_STREAMS)
    before = str(module)
    geir.lower(module)
    assert str(module) == before


def test_emulate_errors() -> None:
    tasks = geir.lower(geir.parse(TWO_STREAMS))
    with pytest.raises(geir.Error, match="'z' is not an input of @main"):
        geir.emulate(tasks, inputs={"z": np.zeros(3)})
    with pytest.raises(geir.Error, match="unknown emulator mode 'fast'"):
        geir.emulate(tasks, mode="fast")
    with pytest.raises(geir.Error, match="no-such-device"):
        geir.emulate(tasks, device="no-such-device")


def test_timeline_without_matplotlib_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    report = geir.emulate(geir.lower(geir.parse(TWO_STREAMS)), timing_only=True)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(geir.Error, match=r"needs matplotlib, which is not installed") as info:
        report.timeline()
    assert "pip install 'geir[plot]'" in str(info.value)



def every_op_alone(problem) -> list[int]:  # type: ignore[no-untyped-def]
    """A user stream strategy: op i on stream i."""
    return list(range(problem.n))


def test_a_registered_strategy_names_a_pipelines_streams() -> None:
    geir.register_strategy("every-op-alone", every_op_alone)
    t = "tensor<1024xf16>"
    text = (f"ge.graph @fork(%x: {t}) -> ({t}) {{\n  %a = ge.relu %x : ({t}) -> {t}\n"
            f"  %b = ge.sigmoid %a : ({t}) -> {t}\n  %c = ge.tanh %a : ({t}) -> {t}\n"
            f"  %d = ge.add %b, %c : ({t}, {t}) -> {t}\n  ge.return %d : ({t}) -> ()\n}}\n")
    module = geir.parse(text)
    geir.run_pipeline(module, "partition-streams{strategy=every-op-alone max-streams=4},insert-events")
    ops = [op for op in next(module.graphs()).regions[0].blocks[0].ops if op.name in ("ge.relu", "ge.sigmoid",
                                                                                    "ge.tanh", "ge.add")]
    assert [op.get_attr("stream") for op in ops] == [0, 1, 2, 3]
    with pytest.raises(geir.Error, match="outside the budget"):
        geir.run_pipeline(geir.parse(text), "partition-streams{strategy=every-op-alone max-streams=3}")
