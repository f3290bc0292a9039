"""``--verify-diagnostics``: check emitted diagnostics against the
``// expected-error@+1 {{message}}`` annotations in the source (MLIR's
SourceMgrDiagnosticVerifierHandler)."""

from __future__ import annotations

import re

import attrs

from geir.diagnostics import Diagnostic

__all__ = ["Expectation", "parse_expectations", "check_diagnostics"]

_EXPECT_RE = re.compile(
    r"expected-(error|warning|remark|note)(?:@([+-]\d+|above|below))?\s*(?:(\d+)\s*)?\{\{(.*?)\}\}")


@attrs.define
class Expectation:
    severity: str
    line: int
    text: str
    source_line: int  # where the annotation itself is written
    count: int = 1
    matched: int = 0


def parse_expectations(text: str, line_offset: int = 0) -> list[Expectation]:
    """The annotations in ``text``; lines are 1-based and shifted by ``line_offset``."""
    out: list[Expectation] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for m in _EXPECT_RE.finditer(line):
            sev, where, count, msg = m.groups()
            here = i + 1
            if where is None:
                target = here
            elif where == "above":
                target = here - 1
            elif where == "below":
                target = here + 1
            else:
                target = here + int(where)
            out.append(Expectation(sev, target + line_offset, msg, here + line_offset, int(count or 1)))
    return out


def _flatten(diags: list[Diagnostic]) -> list[Diagnostic]:
    flat: list[Diagnostic] = []
    for d in diags:
        flat.append(d)
        flat.extend(d.notes)
    return flat


def check_diagnostics(filename: str, expectations: list[Expectation], emitted: list[Diagnostic]) -> list[Diagnostic]:
    """Errors describing every unexpected diagnostic and every unmet expectation."""
    problems: list[Diagnostic] = []
    from geir.attributes import FileLineColLoc
    for d in _flatten(emitted):
        pos = d.file_position
        line = pos.line if pos is not None else None
        for e in expectations:
            if e.severity == d.severity and e.line == line and e.text in d.message and e.matched < e.count:
                e.matched += 1
                break
        else:
            loc = pos if pos is not None else FileLineColLoc(filename, 1, 1)
            problems.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}", loc))
    for e in expectations:
        if e.matched < e.count:
            problems.append(Diagnostic("error", f"expected {e.severity} \"{e.text}\" was not produced",
                                       FileLineColLoc(filename, e.source_line, 1)))
    return problems
