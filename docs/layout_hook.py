"""MkDocs hook: show the API reference the installed layout.

The source tree keeps ``passes/``, ``backends/`` and ``tools/`` at the top and
setuptools installs them as ``geir.passes``, ``geir.backends``, ``geir.tools``
(package-dir). mkdocstrings reads sources from disk, so this hook lays out a
``geir`` package as the wheel installs it — symbolic links into the checkout,
in a temporary folder — and points mkdocstrings there.
"""

from __future__ import annotations

import pathlib
import shutil
import tempfile
from typing import Any

from mkdocs.plugins import event_priority

#: import name -> source folder, as pyproject.toml's [tool.setuptools.package-dir]
SUBPACKAGES = {"passes": "passes", "backends": "backends", "tools": "tools"}

_made: list[pathlib.Path] = []


@event_priority(100)  # before mkdocstrings' own on_config, which creates the handler
def on_config(config: Any) -> Any:
    root = pathlib.Path(config.config_file_path).resolve().parent.parent
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="geir-docs-src-"))
    _made.append(tmp)
    package = tmp / "geir"
    package.mkdir()
    for entry in (root / "geir").iterdir():
        (package / entry.name).symlink_to(entry)
    for name, folder in SUBPACKAGES.items():
        (package / name).symlink_to(root / folder)
    python = config.plugins["mkdocstrings"].config["handlers"].setdefault("python", {})
    python["paths"] = [str(tmp)]
    return config


def on_shutdown() -> None:
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
