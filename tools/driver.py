"""What every command-line driver shares: reading input, writing output whole
(never half a file), and turning errors into diagnostics and exit codes."""

from __future__ import annotations

import argparse
import io
import os
import sys
import traceback
import weakref
from typing import BinaryIO, Callable, Sequence, TextIO

__all__ = ["read_input", "write_output", "run_guarded", "add_debug_argument", "llvm_style_arguments",
           "refuse_repeated_options", "EXIT_INTERNAL"]

#: exit code of an internal error (BSD's EX_SOFTWARE): a bug, not bad input
EXIT_INTERNAL = 70


def read_input(path: str) -> tuple[str, str]:
    """(name for diagnostics, text) of ``path``; ``-`` is standard input
    (:func:`geir.source_text.read_source`: bytes that are not UTF-8 are a diagnostic)."""
    from geir.source_text import read_source
    return read_source(path)


def write_output(path: str, data: str | bytes | Callable[[TextIO], None]) -> None:
    """Write ``data`` to ``path`` atomically (a temp file renamed into place).
    ``data`` may be a function that writes text to the stream it is given, so that
    a large output (a model's weights as hex) never has to be one string."""
    if path == "-":
        if callable(data):  # whole or nothing on stdout too
            buffer = io.StringIO()
            data(buffer)
            data = buffer.getvalue()
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    from geir.output_file import write_atomically

    def write(stream: BinaryIO) -> None:
        if callable(data):
            text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
            data(text)
            text.flush()
            text.detach()  # the caller closes the binary stream
        else:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)

    write_atomically(path, write)


def llvm_style_arguments(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``argv`` with LLVM's one-dash long options (``-cse``, ``-split-input-file``,
    ``-pass-pipeline=...``, as mlir-opt and MLIR's lit tests write them) spelled
    with two dashes, for ``parser``'s options that have a two-dash form and no
    one-dash one; everything else, and anything after ``--``, as given.

    An option whose value is optional takes it after ``=`` only, as LLVM's do
    (``--canonicalize=max-iterations=1``): given bare, it is given its ``const``,
    so that ``ge-opt --canonicalize in.mlir`` reads ``in.mlir`` as the input."""
    known = parser._option_string_actions  # noqa: SLF001 - argparse has no public query
    out: list[str] = []
    rest = False
    for arg in argv:
        if rest or arg == "--":
            rest = True
        elif arg.startswith("-") and len(arg) > 2:
            name, sep, value = arg.partition("=")
            if not name.startswith("--") and name not in known and "-" + name in known:
                name = "-" + name
            action = known.get(name)
            if not sep and action is not None and action.nargs == "?" and action.const is not None:
                sep, value = "=", str(action.const)
            arg = name + sep + value
        out.append(arg)
    return out


class _StoreOnce(argparse.Action):
    """argparse's ``store``, refusing a second, different value: as LLVM's options
    "may only occur zero or one times", so that of ``--device 310P3 ... --device
    910B2`` neither is silently dropped. Repeatable options use ``append``."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: the namespace of the parse that gave a value, and that value (weakly: a
        #: later parse's namespace is another object, even at the same address)
        self._given: tuple[weakref.ref[argparse.Namespace], object] | None = None

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        if self._given is not None and self._given[0]() is namespace and self._given[1] != values:
            parser.error(f"{option_string} is given twice ({_shown(self._given[1])}, then {_shown(values)}); "
                         "give it once")
        self._given = (weakref.ref(namespace), values)
        setattr(namespace, self.dest, values)


def _shown(value: object) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def refuse_repeated_options(parser: argparse.ArgumentParser) -> None:
    """Make every single-valued option ``parser`` adds from here on refuse a second,
    different value (call it before adding them)."""
    parser.register("action", None, _StoreOnce)
    parser.register("action", "store", _StoreOnce)


def add_debug_argument(p: argparse.ArgumentParser) -> None:
    """Add ``--debug``: an internal error prints its Python traceback."""
    p.add_argument("--debug", action="store_true",
                   help="on an internal error, print its Python traceback (also: environment GEIR_DEBUG=1)")


def _debugging(debug: bool) -> bool:
    return debug or os.environ.get("GEIR_DEBUG", "").strip() not in ("", "0")


def run_guarded(body: Callable[[], int], tool: str, debug: bool = False) -> int:
    """Run a tool's body: user errors become ``tool: error: ...`` and exit 1;
    anything else unexpected is an internal error, said in one line (the
    traceback with ``debug`` or ``GEIR_DEBUG=1``), exit :data:`EXIT_INTERNAL`."""
    from geir.diagnostics import DiagnosticError
    try:
        return body()
    except DiagnosticError as e:
        sys.stderr.write(e.format(tool=tool))
        return 1
    except FileNotFoundError as e:
        sys.stderr.write(f"{tool}: error: cannot open '{e.filename}': no such file\n")
        return 1
    except IsADirectoryError as e:
        sys.stderr.write(f"{tool}: error: cannot open '{e.filename}': it is a directory\n")
        return 1
    except PermissionError as e:
        sys.stderr.write(f"{tool}: error: cannot open '{e.filename}': permission denied\n")
        return 1
    except UnicodeDecodeError as e:  # a reader without a diagnostic of its own
        sys.stderr.write(f"{tool}: error: cannot read input: {e}\n")
        return 1
    except OSError as e:  # the system refused a read or write (standard output on a full disk)
        where = f" ('{e.filename}')" if e.filename else ""
        sys.stderr.write(f"{tool}: error: {e.strerror or e}{where}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the last resort: a bug, said without a traceback
        sys.stdout.flush()
        if _debugging(debug):
            traceback.print_exc()
        else:
            message = " ".join(str(e).split())
            sys.stderr.write(f"{tool}: internal error: {type(e).__name__}{': ' + message if message else ''}\n")
            sys.stderr.write(f"{tool}: this is a bug; run with --debug (or GEIR_DEBUG=1) to see the traceback\n")
        return EXIT_INTERNAL

