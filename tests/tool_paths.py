"""Finding command-line tools: next to the running interpreter (the venv) first."""

from __future__ import annotations

import os
import shutil
import sys


def find_tool(name: str) -> str | None:
    """The path of ``name`` in this interpreter's bin folder or on PATH."""
    local = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(local, os.X_OK):
        return local
    return shutil.which(name)


def find_mlir_opt() -> str | None:
    """Upstream MLIR's ``iree-opt``: the native binary its ``iree-opt`` script
    starts when IREE's compiler package is installed (it saves an interpreter
    start per call), else whatever ``iree-opt`` is on PATH."""
    try:
        from iree.compiler.tools.binaries import find_tool as find_iree_tool
        native = os.path.realpath(find_iree_tool("iree-opt"))
        if os.access(native, os.X_OK):
            return native
    except (ImportError, ValueError):
        pass
    return find_tool("iree-opt")
