"""Diagnostics as MLIR prints them: ``file:line:col: error: message``, the source
line, a caret, then notes. User errors raise :class:`DiagnosticError`; the tools
catch it and exit 1, so a user never sees a Python traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

import attrs

from geir.attributes import CallSiteLoc, FileLineColLoc, FusedLoc, Location, NameLoc, UnknownLoc

if TYPE_CHECKING:
    from geir.operation import Operation

__all__ = ["Diagnostic", "DiagnosticError", "SourceFile", "SourceManager", "error", "error_at", "op_position",
           "location_from_text"]


@attrs.define
class SourceFile:
    """The text of one input, so diagnostics can show the offending line."""

    name: str
    text: str
    _lines: list[str] | None = None

    def line(self, number: int) -> str | None:
        if self._lines is None:
            self._lines = self.text.split("\n")
        if 1 <= number <= len(self._lines):
            return self._lines[number - 1].rstrip("\r")
        return None


@attrs.define
class SourceManager:
    """The inputs a tool has read, by name (what MLIR's SourceMgr is)."""

    files: dict[str, SourceFile] = attrs.Factory(dict)

    def add(self, source: SourceFile) -> SourceFile:
        self.files[source.name] = source
        return source

    def line(self, name: str, number: int) -> str | None:
        f = self.files.get(name)
        return f.line(number) if f is not None else None


@attrs.define
class Diagnostic:
    """One message with its severity, position and attached notes."""

    severity: str  # "error", "warning", "remark" or "note"
    message: str
    location: Location | None = None
    notes: list["Diagnostic"] = attrs.Factory(list)
    #: the pass that emitted it ("" outside passes): ge-opt's -Rpass=REGEX filters remarks on it
    origin: str = ""

    def attach_note(self, message: str, location: Location | None = None) -> "Diagnostic":
        self.notes.append(Diagnostic("note", message, location))
        return self

    @property
    def file_position(self) -> FileLineColLoc | None:
        return _file_position(self.location)

    @property
    def points_nowhere(self) -> bool:
        """No location to print (a command-line or option problem)."""
        return self.location is None or isinstance(self.location, UnknownLoc)

    def format(self, sources: SourceManager | None = None) -> str:
        """The message with its source line and caret, then its notes."""
        parts = [self._format_one(sources)]
        parts += [n._format_one(sources) for n in self.notes]
        return "".join(parts)

    def _format_one(self, sources: SourceManager | None) -> str:
        pos = self.file_position
        if pos is None:
            where = "" if self.points_nowhere else f"{_describe(self.location)}: "
            return f"{where}{self.severity}: {self.message}\n"
        text = f"{pos.file}:{pos.line}:{pos.col}: {self.severity}: {self.message}\n"
        line = sources.line(pos.file, pos.line) if sources is not None else None
        if line is not None:
            caret_col = max(1, pos.col)
            # Keep tabs so the caret lines up under the offending column.
            pad = "".join(c if c == "\t" else " " for c in line[: caret_col - 1])
            text += f"{line}\n{pad}^\n"
        return text


def _file_position(loc: Location | None) -> FileLineColLoc | None:
    if isinstance(loc, FileLineColLoc):
        return loc
    if isinstance(loc, NameLoc):
        return _file_position(loc.child)
    if isinstance(loc, CallSiteLoc):
        return _file_position(loc.callee)
    if isinstance(loc, FusedLoc):
        for sub in loc.locations:
            p = _file_position(sub)
            if p is not None:
                return p
    return None


def _describe(loc: Location) -> str:
    if isinstance(loc, NameLoc):
        return loc.name
    return loc.body()


class DiagnosticError(Exception):
    """A user-facing error: one or more diagnostics, already located."""

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic], source_files: Sequence[SourceFile] = ()) -> None:
        self.diagnostics: list[Diagnostic] = [diagnostics] if isinstance(diagnostics, Diagnostic) else list(diagnostics)
        #: texts the diagnostics point into that no tool read (a file a pass option names)
        self.source_files: list[SourceFile] = list(source_files)
        super().__init__(self.diagnostics[0].message if self.diagnostics else "error")

    def format(self, sources: SourceManager | None = None, tool: str = "") -> str:
        """Each diagnostic with its source line and caret; ``tool`` names the
        command before those that point nowhere (``ge-run: error: ...``)."""
        if self.source_files:
            merged = SourceManager(dict(sources.files) if sources is not None else {})
            for f in self.source_files:
                merged.files.setdefault(f.name, f)
            sources = merged
        return "".join(f"{tool}: {d.format(sources)}" if tool and d.points_nowhere else d.format(sources)
                       for d in self.diagnostics)


def op_position(op: "Operation") -> Location:
    """Where to point at ``op``: its parse position, else its own location."""
    if op.source is not None:
        return op.source
    return op.location


def error(message: str, *notes: str) -> DiagnosticError:
    """A :class:`DiagnosticError` with no position (a command-line or option
    problem) and its notes (raise it)."""
    d = Diagnostic("error", message)
    for n in notes:
        d.attach_note(n)
    return DiagnosticError(d)


def location_from_text(loc: str) -> Location | None:
    """A location printed as text (``file:line:col``, or a name, as a task
    keeps its op's) as a location again: a file position where it is one, so a
    diagnostic about the task shows the source line."""
    file, _, rest = loc.rpartition(":")
    head, _, line = file.rpartition(":")
    if head and line.isdigit() and rest.isdigit():
        return FileLineColLoc(head, int(line), int(rest))
    return NameLoc(loc) if loc else None


def error_at(op: "Operation", message: str, notes: Iterable[tuple[str, "Operation"]] = ()) -> DiagnosticError:
    """A :class:`DiagnosticError` pointing at ``op`` (raise it)."""
    d = Diagnostic("error", message, op_position(op))
    for text, other in notes:
        d.attach_note(text, op_position(other))
    return DiagnosticError(d)
