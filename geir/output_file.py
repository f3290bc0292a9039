"""Writing an output file whole or not at all: the bytes go to a temporary
file beside the target, renamed over it once complete, so a failure never
leaves half a file. A failure is a diagnostic that names the file the user
asked for, never the temporary one. What is not a regular file (``/dev/null``,
``/dev/stdout``, a pipe, a terminal) is written into as it is: there is no file
to replace, and renaming over a device would put a regular file in its place."""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from typing import Any, BinaryIO, Callable

from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["write_atomically", "save_figure", "cannot_write", "check_writable"]


def cannot_write(path: str, reason: str) -> DiagnosticError:
    """The error for an output file that could not be written."""
    return DiagnosticError(Diagnostic("error", f"cannot write '{path}': {reason}"))


def _reason(error: OSError, path: str) -> str:
    if isinstance(error, FileNotFoundError):
        return f"no such directory '{os.path.dirname(path) or '.'}'"
    if isinstance(error, IsADirectoryError):
        return "it is a directory"
    if isinstance(error, PermissionError):
        return "permission denied"
    return error.strerror or str(error)


def check_writable(path: str, image: bool = False) -> None:
    """Raise the error :func:`write_atomically` (``image``: :func:`save_figure`)
    would raise for ``path`` when it is plainly unwritable — a directory, a
    missing directory, an unknown image format — so that a command says so
    before its work rather than after it. ``-`` (standard output) is writable.

    Raises:
        DiagnosticError: ``path`` cannot be written.
    """
    if path == "-":
        return
    if os.path.isdir(path):
        raise cannot_write(path, "it is a directory")
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        raise cannot_write(path, f"no such directory '{directory}'")
    if image:
        try:
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            return  # the command that draws says matplotlib is missing
        _check_image_format(path, FigureCanvasBase.get_supported_filetypes())


def _check_image_format(path: str, supported: dict[str, str]) -> str:
    """The format ``path``'s extension names (``png`` without one)."""
    extension = os.path.splitext(path)[1][1:].lower()
    if extension and extension not in supported:
        raise DiagnosticError(Diagnostic(
            "error", f"cannot write '{path}': no image format '{extension}'").attach_note(
            f"formats: {', '.join(sorted(supported))}"))
    return extension or "png"


def write_atomically(path: str, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` with a binary stream whose bytes become the file ``path``
    once ``write`` returns; nothing is left behind when it raises.

    Raises:
        DiagnosticError: the file cannot be written (its directory is missing,
            it is a directory, the disk is full, ...).
    """
    check_writable(path)
    if path == "-":  # standard output, as check_writable has it: whole there too
        out = getattr(sys.stdout, "buffer", None)
        if out is None:  # a text stream put in place of stdout (tests, notebooks)
            raise cannot_write(path, "standard output takes no bytes here")
        buffer = io.BytesIO()
        write(buffer)
        sys.stdout.flush()
        out.write(buffer.getvalue())
        out.flush()
        return
    if _is_stream(path):
        try:
            with open(path, "wb") as stream:
                write(stream)
        except OSError as e:
            raise cannot_write(path, _reason(e, path)) from None
        return
    target = os.path.realpath(path)  # a symbolic link keeps naming the file it names
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".geir-")
    except OSError as e:
        raise cannot_write(path, _reason(e, path)) from None
    try:
        with os.fdopen(fd, "wb") as stream:
            write(stream)
        os.chmod(tmp, _mode(target))
        os.replace(tmp, target)
    except OSError as e:
        _remove(tmp)
        raise cannot_write(path, _reason(e, path)) from None
    except BaseException:
        _remove(tmp)
        raise


def _is_stream(path: str) -> bool:
    """Whether ``path`` names something to write into rather than a file to
    replace: a device, a pipe or a socket, or a path into ``/dev`` or ``/proc``
    (``/dev/stdout`` is the process's own output, redirected to a file or not)."""
    if os.path.abspath(path).startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(path).st_mode  # through symbolic links
    except OSError:
        return False  # not there yet: a new regular file
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _mode(path: str) -> int:
    """The permissions the file should get: those of the file it replaces, else
    what ``open`` would give a new file under the umask (a temporary file is
    made readable by its owner only)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)


def save_figure(figure: Any, path: str, dpi: int = 100) -> None:
    """Save a matplotlib ``figure`` to ``path`` in the image format its extension
    names (PNG when it has none), whole or not at all.

    Raises:
        DiagnosticError: the extension names no format matplotlib writes, or the
            file cannot be written.
    """
    image_format = _check_image_format(path, figure.canvas.get_supported_filetypes())
    write_atomically(path, lambda stream: figure.savefig(stream, format=image_format, dpi=dpi))
