"""The distribution installs one import name, ``geir``: the source folders
``passes/``, ``backends/`` and ``tools/`` are ``geir.passes``, ``geir.backends``
and ``geir.tools``, and no module imports them by their folder names (which
other distributions use too)."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ("geir", "passes", "backends", "tools", "tests", "bench", "examples")
FORBIDDEN = {"passes", "backends", "tools"}


def _sources() -> list[pathlib.Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py") if "Output" not in p.parts)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_top_level_folder_imports(path: pathlib.Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, (
                f"{path.relative_to(ROOT)}:{node.lineno} imports '{name}'; write 'geir.{name}'")


def test_subpackages_resolve_to_the_layout_folders() -> None:
    import geir.backends
    import geir.passes
    import geir.tools
    for module, folder in ((geir.passes, "passes"), (geir.backends, "backends"), (geir.tools, "tools")):
        assert pathlib.Path(module.__file__).parent == ROOT / folder
