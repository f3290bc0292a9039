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
