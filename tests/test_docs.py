"""The docs: they build with warnings as errors, the API reference documents
every public name, and what the guide shows is what the example files hold and
really does (the example pass, registered and run from Python and from its
ge-opt; its lit test; the diagnostic the guide quotes)."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import subprocess
import sys
from typing import Iterator

import attrs
import pytest

import geir
from geir.passes.pass_base import ModulePass, PassContext
from geir.passes.registry import PASSES

from tool_paths import find_tool

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GUIDE = DOCS / "guide"
EXAMPLES = DOCS / "examples"
TINY_CNN = ROOT / "examples" / "tiny_cnn.onnx"


def _fenced_after(page: pathlib.Path, marker: str) -> str:
    """The fenced code block that follows ``marker`` in ``page``."""
    text = page.read_text(encoding="utf-8")
    at = text.index(marker)
    m = re.compile(r"```\w*\n(.*?)\n```", re.S).search(text, at)
    assert m is not None, f"no code block after {marker!r} in {page.name}"
    return m.group(1)


# ------------------------------------------------------------------ building


def test_docs_build_strictly(tmp_path: pathlib.Path) -> None:
    for module in ("mkdocs", "mkdocstrings", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the docs extra is not installed ({module} is missing)")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(DOCS / "mkdocs.yml"),
                           "-d", str(site)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in geir.__all__:
        assert f'id="geir.{name}"' in api, f"the API reference has no entry for geir.{name}"
    # only the public names are documented at the top level
    top = set(re.findall(r'id="geir\.(\w+)"', api))
    assert top == set(geir.__all__)
    for page in ("index", "data-path", "design", "writing-a-pass", "lit-tests", "notebooks"):
        assert (site / ("index.html" if page == "index" else f"{page}/index.html")).exists()


# ------------------------------------------------------- the guide's sources


@pytest.mark.parametrize(("page", "marker", "source"), [
    ("writing-a-pass.md", "the block below is docs/examples/set_block_dim.py", "set_block_dim.py"),
    ("writing-a-pass.md", "(`docs/examples/geir_opt.py`):", "geir_opt.py"),
    ("lit-tests.md", "the block below is docs/examples/set_block_dim.mlir", "set_block_dim.mlir"),
])
def test_guide_shows_the_example_files(page: str, marker: str, source: str) -> None:
    assert _fenced_after(GUIDE / page, marker) == (EXAMPLES / source).read_text(encoding="utf-8").rstrip("\n")


def test_example_pass_is_about_thirty_lines() -> None:
    code = [line for line in (EXAMPLES / "set_block_dim.py").read_text().splitlines() if line.strip()]
    assert len(code) <= 35


def test_quoted_diagnostic_is_what_geir_raises() -> None:
    quoted = _fenced_after(GUIDE / "data-path.md", "the diagnostic the commands print:")
    with pytest.raises(geir.Error) as info:
        geir.parse("ge.graph @main() -> () {\n  %x = ge.relu %nope : (tensor<4xf32>) -> tensor<4xf32>\n}\n")
    assert str(info.value) == quoted


# ------------------------------------------------------------ the design page


def test_design_ir_examples_parse_and_verify() -> None:
    blocks = re.findall(r"```mlir\n(.*?)\n```", (GUIDE / "design.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 5
    for block in blocks:
        geir.parse(block + "\n")


def test_design_names_every_pass_strategy_device_and_public_name() -> None:
    from geir.passes.pipeline import NAMED_PIPELINES
    from geir.passes.scheduling.strategies import STRATEGIES
    text = (GUIDE / "design.md").read_text(encoding="utf-8")
    devices = [p.stem for p in (ROOT / "backends" / "devices").glob("*.json")]
    for name in [*PASSES, *NAMED_PIPELINES, *STRATEGIES, *devices, *geir.__all__]:
        assert re.search(rf"`{re.escape(name)}[`({{]", text), f"docs/guide/design.md does not mention {name}"


# ------------------------------------------------------------ the example pass


@pytest.fixture
def example_pass(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[ModulePass]]:
    """The guide's pass, imported as a user would (its folder on sys.path) and
    registered; the registry is restored afterwards."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    saved = dict(PASSES)
    from set_block_dim import SetBlockDim  # type: ignore[import-not-found]
    yield geir.register_pass(SetBlockDim)
    PASSES.clear()
    PASSES.update(saved)


def test_example_pass_from_python(example_pass: type[ModulePass]) -> None:
    text = (EXAMPLES / "set_block_dim.mlir").read_text(encoding="utf-8")
    tiled = geir.parse(text)
    geir.run_pipeline(tiled, "ge-default")
    baseline = geir.emulate(geir.lower(tiled), timing_only=True)
    module = geir.parse(text)
    geir.run_pipeline(module, "set-block-dim{op=ge.conv2d block-dim=4}")
    convs = [op for op in module.walk() if op.name == "ge.conv2d"]
    assert convs and all(op.get_attr("block_dim") == 4 for op in convs)
    geir.run_pipeline(module, "ge-default")
    tasks = geir.lower(module)
    kernels = [t for s in tasks.streams for t in s.tasks if getattr(t, "op", None) == "ge.conv2d"]
    assert len(kernels) == len(convs) and all(k.block_dim == 4 for k in kernels)
    report = geir.emulate(tasks, timing_only=True)
    # what the guide says: each convolution on 4 cores, the branches side by
    # side on more streams, a shorter run
    assert len(tasks.streams) > len(geir.lower(tiled).streams)
    assert report.makespan_us < baseline.makespan_us
    with pytest.raises(geir.Error, match="option 'block-dim' must be at least 1, got 0"):
        geir.run_pipeline(module, "set-block-dim{block-dim=0}")
    with pytest.raises(geir.Error, match="option 'block-dim' of pass 'set-block-dim' expects an integer"):
        geir.run_pipeline(module, "set-block-dim{block-dim=lots}")


def test_remarks_and_warnings_from_python(example_pass: type[ModulePass], capsys: pytest.CaptureFixture[str]) -> None:
    module = geir.import_onnx(TINY_CNN)
    convs = sum(1 for op in module.walk() if op.name == "ge.conv2d")
    geir.run_pipeline(module, "set-block-dim{block-dim=2}")
    geir.run_pipeline(module, "set-block-dim{block-dim=2}", remarks="cse|canonicalize")
    assert capsys.readouterr().err == ""
    geir.run_pipeline(module, "set-block-dim{block-dim=2}", remarks="set-.*")
    assert f"remark: block_dim = 2 on {convs} 'ge.conv2d' op(s)" in capsys.readouterr().err
    with pytest.raises(geir.Error, match=r"remarks='\(' is not a valid regular expression"):
        geir.run_pipeline(module, "cse", remarks="(")
    saved = dict(PASSES)
    try:
        geir.register_pass(_Warns)
        with pytest.warns(geir.PassWarning, match=r"warning: the first op is odd"):
            geir.run_pipeline(geir.parse("ge.graph @main() -> () {\n  ge.return : () -> ()\n}\n"), "warns")
    finally:
        PASSES.clear()
        PASSES.update(saved)


def test_example_pass_from_its_ge_opt(tmp_path: pathlib.Path) -> None:
    script = EXAMPLES / "geir_opt.py"
    listed = subprocess.run([sys.executable, str(script), "--list-passes"], capture_output=True, text=True,
                            check=True).stdout
    assert "--set-block-dim  Set block_dim" in listed and "block-dim=<int>" in listed
    assert "--canonicalize" in listed  # and every built-in pass
    out = subprocess.run([sys.executable, str(script), str(ROOT / "examples" / "two_streams.mlir"),
                          "--set-block-dim=op=ge.conv2d block-dim=4", "--lower-to-tasks"],
                         capture_output=True, text=True, check=True).stdout
    kernels = [line for line in out.splitlines() if 'op = "ge.conv2d"' in line]
    assert len(kernels) == 2 and all("block_dim = 4 : i64" in k for k in kernels)
    # the output runs on ge-run
    run = subprocess.run([find_tool("ge-run") or "ge-run", "-", "--timing-only"], input=out, capture_output=True,
                         text=True)
    assert run.returncode == 0 and "makespan" in run.stdout


def test_the_readme_shows_what_its_main_command_prints() -> None:
    # the first text block of the README is `ge-run examples/tiny_cnn.onnx`'s report, as printed
    shown = _fenced_after(ROOT / "README.md", "```text")
    run = subprocess.run([find_tool("ge-run") or "ge-run", "examples/tiny_cnn.onnx"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert run.stdout.rstrip("\n") == shown


def test_example_lit_test_passes() -> None:
    lit = find_tool("lit")
    assert lit is not None, "LLVM's lit is not installed (pip install -e '.[test]')"
    done = subprocess.run([lit, "-v", str(EXAMPLES)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert f"Passed: {len(list(EXAMPLES.glob('*.mlir')))}" in done.stdout


# ------------------------------------------------------------ register_pass


@attrs.define
class _Renamed(ModulePass):
    name = "canonicalize"
    summary = "takes a built-in's name"

    def run(self, module: geir.Module, ctx: PassContext) -> None:
        pass


@attrs.define
class _Warns(ModulePass):
    name = "warns"
    summary = "warns at the first graph"

    def run(self, module: geir.Module, ctx: PassContext) -> None:
        ctx.warning(next(module.graphs()), "the first op is odd")


class _NotAttrs(ModulePass):
    name = "not-attrs"


@attrs.define
class _Nameless(ModulePass):
    summary = "no name"


def test_register_pass_refuses_what_cannot_work() -> None:
    saved = dict(PASSES)
    try:
        with pytest.raises(TypeError, match="expects a ModulePass subclass"):
            geir.register_pass(int)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"must be decorated with @attrs.define"):
            geir.register_pass(_NotAttrs)
        with pytest.raises(ValueError, match="sets no 'name'"):
            geir.register_pass(_Nameless)
        with pytest.raises(ValueError, match="a pass named 'canonicalize' is already registered"):
            geir.register_pass(_Renamed)

        @attrs.define
        class Local(ModulePass):
            name = "local"

        with pytest.raises(ValueError, match="is not a top-level name of module"):
            geir.register_pass(Local)
        # under another name it registers, and registering it again is harmless
        assert geir.register_pass(_Renamed, "renamed") is _Renamed
        assert geir.register_pass(_Renamed, "renamed") is _Renamed
        geir.run_pipeline(geir.parse("module {\n}\n"), "renamed")
        assert PASSES["renamed"] == f"{__name__}:_Renamed"
    finally:
        PASSES.clear()
        PASSES.update(saved)
