"""Peer parsers read what we print: every valid IR input of the lit suite, printed
in generic form, parses with xDSL (`xdsl-opt --allow-unregistered-dialect`) and
with upstream MLIR (`iree-opt`, when installed), which also prints it back byte
for byte."""

from __future__ import annotations

import glob
import os
import subprocess
from pathlib import Path

import pytest

from geir.diagnostics import DiagnosticError
from geir.parser import parse_module, split_input_file
from geir.printer import PrintOptions, module_to_string
from geir.verifier import verify
from tool_paths import find_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERIC = PrintOptions(generic=True)


def _valid_generic_chunks() -> list[tuple[str, str]]:
    """(where, generic text) for every chunk of every lit/example input that verifies."""
    paths = sorted(glob.glob(os.path.join(ROOT, "lit_tests", "**", "*.mlir"), recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    out = []
    for path in paths:
        if os.sep + "Output" + os.sep in path:
            continue
        with open(path) as f:
            text = f.read()
        for chunk, offset in split_input_file(text):
            if "expected-error" in chunk:
                continue
            try:
                m = parse_module(chunk, path, line_offset=offset)
                verify(m)
            except DiagnosticError:
                continue
            out.append((f"{os.path.relpath(path, ROOT)}:{offset + 1}", module_to_string(m, GENERIC)))
    return out


CHUNKS = _valid_generic_chunks()


def test_there_are_inputs() -> None:
    assert len(CHUNKS) >= 15


def _run_split(tool: str, chunks: list[tuple[str, str]], tmp_path: Path, *extra: str) -> list[str]:
    path = tmp_path / "inputs.mlir"  # xdsl-opt reads a file, not stdin
    path.write_text("// -----\n".join(t for _, t in chunks))
    proc = subprocess.run([tool, "--allow-unregistered-dialect", "--split-input-file", *extra, str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout.split("// -----\n")


XDSL_OPT = find_tool("xdsl-opt")
IREE_OPT = find_tool("iree-opt")


@pytest.mark.skipif(XDSL_OPT is None, reason="xdsl-opt (the 'test' extra) is not installed")
def test_xdsl_parses_every_valid_input(tmp_path: Path) -> None:
    outputs = _run_split(XDSL_OPT, CHUNKS, tmp_path)  # type: ignore[arg-type]
    assert len(outputs) == len(CHUNKS)
    for (where, _), out in zip(CHUNKS, outputs):
        assert '"ge.graph"' in out or "ge." in out or out.strip().startswith("builtin.module"), where


@pytest.mark.skipif(IREE_OPT is None, reason="upstream MLIR (iree-opt, the 'peers' extra) is not installed")
def test_mlir_prints_every_valid_input_back_byte_for_byte(tmp_path: Path) -> None:
    outputs = _run_split(IREE_OPT, CHUNKS, tmp_path, "--mlir-print-op-generic")  # type: ignore[arg-type]
    assert len(outputs) == len(CHUNKS)
    for (where, ours), theirs in zip(CHUNKS, outputs):
        assert theirs.rstrip("\n") == ours.rstrip("\n"), where
