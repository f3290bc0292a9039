"""The result table of a sweep, one row per (model, configuration), kept in a
CSV (``.csv``) or JSON-lines (``.jsonl``/``.json``) file.

Rows are appended and flushed as runs finish, so an interrupted sweep leaves
every finished row behind; reopening the file reads them back (a last line cut
short by the interruption is dropped) and the sweep runs only what is missing.
When the sweep ends, the file is rewritten whole (atomically) with the derived
column ``speedup`` filled in, which needs the ``single`` row of the same model
and device and so cannot be known when a row is first written.
"""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Any, Iterable

from geir.attributes import FileLineColLoc
from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["COLUMNS", "KEY_COLUMNS", "TIMING_COLUMNS", "ResultStore", "row_key", "with_speedups"]

#: what identifies a row: the model and its configuration
#: (``model_sha``: the model text's digest, so an edited model is run again, not taken from the file)
KEY_COLUMNS = ("model", "model_sha", "strategy", "max_streams", "device", "memory", "mode", "prepare")
#: column -> type, in file order
COLUMNS: dict[str, type] = {
    "model": str, "model_sha": str, "strategy": str, "max_streams": int, "device": str, "memory": str, "mode": str,
    "prepare": str, "ops": int, "makespan_us": float, "speedup": float, "lb_us": float, "lb_ratio": float, "lb_by": str,
    "emu_lb_us": float, "streams": int, "events": int, "ge_events": int, "arena_bytes": int,
    "peak_live_bytes": int, "races": int, "deadlock": bool, "compile_s": float, "error": str,
}
#: a results file whose rows have no ``prepare`` column ran the graphs as imported
_AS_IMPORTED = {"prepare": "none"}
#: wall-clock figures: they differ between runs (and machines), nothing else does
TIMING_COLUMNS = ("compile_s",)

Key = tuple[Any, ...]


def row_key(row: dict[str, Any]) -> Key:
    """The identity of ``row`` (its model and configuration)."""
    return tuple(row[c] for c in KEY_COLUMNS)


def with_speedups(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``speedup``: the ``single`` row's makespan over this one's,
    for the same model, device, memory algorithm, mode and preparation (the same
    ``max_streams`` when there is such a single row, else any: one stream does
    not depend on it). None where the sweep has no single row to compare with."""
    rows = [dict(r) for r in rows]
    base: dict[Key, dict[int, float]] = {}
    for r in rows:
        if r["strategy"] == "single" and r.get("makespan_us"):
            base.setdefault(_single_key(r), {})[r["max_streams"]] = r["makespan_us"]
    for r in rows:
        singles = base.get(_single_key(r))
        mk = r.get("makespan_us")
        if not singles or not mk:
            r["speedup"] = None
            continue
        b = singles.get(r["max_streams"], next(iter(singles.values())))
        r["speedup"] = round(b / mk, 4)
    return rows


def _single_key(r: dict[str, Any]) -> Key:
    return r["model"], r["model_sha"], r["device"], r["memory"], r["mode"], r["prepare"]


def _typed(column: str, value: Any) -> Any:
    if value is None or value == "":
        return None if column != "error" else ""
    kind = COLUMNS[column]
    if kind is bool:
        return value if isinstance(value, bool) else str(value).lower() == "true"
    return kind(value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ResultStore:
    """The rows of one results file: those already there, and appended ones."""

    def __init__(self, path: str) -> None:
        self.path = path
        if path.endswith(".csv"):
            self.format = "csv"
        elif path.endswith((".jsonl", ".json")):
            self.format = "jsonl"
        else:
            raise DiagnosticError(Diagnostic("error", f"results file '{path}': the name must end in .csv, .jsonl "
                                                      "or .json (the format)"))
        self.rows: dict[Key, dict[str, Any]] = {}
        self._file: io.TextIOBase | None = None

    # -- reading ------------------------------------------------------------

    def load(self) -> int:
        """Read the rows already in the file (none when it does not exist);
        return how many. A truncated last line is dropped (and the file
        rewritten without it, so appending starts on a fresh line)."""
        if not os.path.exists(self.path):
            return 0
        try:
            # A kill can cut a character in two: only the (dropped) last line has it.
            with open(self.path, encoding="utf-8", errors="replace", newline="") as f:
                text = f.read()
        except OSError as e:
            raise self._io_error("cannot read", e) from None
        rows, clean = (self._parse_csv if self.format == "csv" else self._parse_jsonl)(text)
        for r in rows:
            self.rows[row_key(r)] = r
        if not clean:
            self._rewrite(list(self.rows.values()))
        return len(self.rows)

    def _bad(self, line: int, message: str) -> DiagnosticError:
        return DiagnosticError(Diagnostic("error", f"{message}; give another results file or delete this one",
                                          FileLineColLoc(self.path, line, 1)))

    def _parse_csv(self, text: str) -> tuple[list[dict[str, Any]], bool]:
        if not text.strip():
            return [], True
        lines = text.split("\n")
        head = ",".join(COLUMNS)
        if len(lines) == 1 and head.startswith(lines[0]):
            return [], False  # killed while writing the header
        header = next(csv.reader([lines[0]]))
        if header != list(COLUMNS) and header != [c for c in COLUMNS if c not in _AS_IMPORTED]:
            raise self._bad(1, "the results file's columns are not ge-bench's")
        # rows without a prepare column: rewritten (clean=False) with it before appending
        rows, clean = [], header == list(COLUMNS)
        body = lines[1:]
        complete = text.endswith("\n")
        for i, line in enumerate(body):
            if not line:
                continue
            last = i == len(body) - 1 or (i == len(body) - 2 and not body[-1])
            cells = next(csv.reader([line]))
            try:
                if len(cells) != len(header) or (last and not complete):
                    raise ValueError("short row")
                rows.append({c: _typed(c, v) for c, v in {**_AS_IMPORTED, **dict(zip(header, cells))}.items()})
            except ValueError:
                if not last:
                    raise self._bad(i + 2, "malformed row in the results file") from None
                clean = False  # the interrupted write of the last row
        return rows, clean

    def _parse_jsonl(self, text: str) -> tuple[list[dict[str, Any]], bool]:
        rows, clean = [], True
        lines = text.split("\n")
        complete = text.endswith("\n") or not text
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            last = i == len(lines) - 1
            try:
                if last and not complete:
                    raise ValueError("cut short")
                data = json.loads(line)
                if not isinstance(data, dict) or any(c not in data for c in KEY_COLUMNS if c not in _AS_IMPORTED):
                    raise self._bad(i + 1, "a line of the results file is not a ge-bench row")
                data = {**_AS_IMPORTED, **data}
                rows.append({c: _typed(c, data.get(c)) for c in COLUMNS})
            except ValueError:
                if not last:
                    raise self._bad(i + 1, "malformed row in the results file") from None
                clean = False
        return rows, clean

    # -- writing ------------------------------------------------------------

    def open_for_append(self) -> None:
        """Open the file for appending (creating it with its header): fails
        here, before any run, when the file cannot be written."""
        try:
            new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
            self._file = open(self.path, "a", encoding="utf-8", newline="")
            if new and self.format == "csv":
                self._file.write(",".join(COLUMNS) + "\n")
                self._file.flush()
        except OSError as e:
            raise self._io_error("cannot write", e) from None

    def append(self, row: dict[str, Any]) -> None:
        """Add ``row`` to the table and to the file (flushed at once)."""
        self.rows[row_key(row)] = row
        if self._file is None:
            return
        self._file.write(self._line(row))
        self._file.flush()

    def _line(self, row: dict[str, Any]) -> str:
        if self.format == "jsonl":
            return json.dumps({c: row.get(c) for c in COLUMNS}) + "\n"
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow([_cell(row.get(c)) for c in COLUMNS])
        return out.getvalue()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def finalize(self) -> list[dict[str, Any]]:
        """Close the file and rewrite it whole with the derived columns; return
        every row (those of earlier sweeps in the file too)."""
        self.close()
        rows = with_speedups(self.rows.values())
        self.rows = {row_key(r): r for r in rows}
        self._rewrite(rows)
        return rows

    def _rewrite(self, rows: list[dict[str, Any]]) -> None:
        from geir.tools.driver import write_output
        head = ",".join(COLUMNS) + "\n" if self.format == "csv" else ""
        try:
            write_output(self.path, head + "".join(self._line(r) for r in rows))
        except OSError as e:
            raise self._io_error("cannot write", e) from None

    def _io_error(self, what: str, e: Exception) -> DiagnosticError:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return DiagnosticError(Diagnostic("error", f"{what} results file '{self.path}': {reason}"))
