"""What every command-line driver shares: reading input, writing output whole
(never half a file), and turning errors into diagnostics and exit codes."""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Callable

__all__ = ["read_input", "write_output", "run_guarded"]


def read_input(path: str) -> tuple[str, str]:
    """(name for diagnostics, text) of ``path``; ``-`` is standard input."""
    if path == "-":
        return "<stdin>", sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return path, f.read()


def write_output(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temp file renamed into place)."""
    if path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".geir-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_guarded(body: Callable[[], int], tool: str) -> int:
    """Run a tool's body: user errors become ``tool: error: ...`` and exit 1."""
    from geir.diagnostics import DiagnosticError
    try:
        return body()
    except DiagnosticError as e:
        sys.stderr.write(e.format())
        return 1
    except FileNotFoundError as e:
        sys.stderr.write(f"{tool}: error: cannot open '{e.filename}': no such file\n")
        return 1
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as e:
        sys.stderr.write(f"{tool}: error: cannot read input: {e}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0

