"""The whole lit suite, as one pytest test (so `pytest` runs everything)."""

from __future__ import annotations

import os
import subprocess

from tool_paths import find_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_lit_suite() -> None:
    lit = find_tool("lit")
    assert lit is not None, "LLVM's lit is not installed (pip install -e '.[test]')"
    proc = subprocess.run([lit, "-sv", os.path.join(ROOT, "lit_tests")], capture_output=True, text=True)
    summary = [l for l in proc.stdout.splitlines() if l.strip().startswith(("Passed", "Failed", "Unsupported",
                                                                            "Total Discovered", "Testing Time"))]
    print("\n".join(summary))
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]
