"""``--verify-diagnostics``: check emitted diagnostics against the
``// expected-error@+1 {{message}}`` annotations in the source (MLIR's
SourceMgrDiagnosticVerifierHandler)."""

from __future__ import annotations

import re

import attrs

from geir.attributes import FileLineColLoc
from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["Expectation", "parse_expectations", "check_diagnostics"]

#: one annotation a line, its message to the line's last ``}}`` (MLIR's pattern):
#: the ``-re`` form's message holds ``{{regex}}`` blocks of its own
_EXPECT_RE = re.compile(
    r"expected-(error|warning|remark|note)(-re)?\s*(?:@([+-]\d+|above|below|unknown))?\s*(?:(\d+)\s*)?"
    r"\{\{(.*)\}\}\s*$")


@attrs.define
class Expectation:
    severity: str
    line: int  # 0: a diagnostic without a file position (``@unknown``)
    text: str
    source_line: int  # where the annotation itself is written
    count: int = 1
    matched: int = 0
    #: the ``-re`` form: ``text`` with its ``{{...}}`` blocks as regular expressions
    pattern: "re.Pattern[str] | None" = None

    def matches(self, message: str) -> bool:
        """Whether ``message`` holds this expectation's text (or matches its pattern)."""
        return self.pattern.search(message) is not None if self.pattern is not None else self.text in message


def parse_expectations(text: str, line_offset: int = 0, filename: str = "<input>") -> list[Expectation]:
    """The annotations in ``text``; lines are 1-based and shifted by ``line_offset``.

    As in MLIR, ``@above`` names the closest line above that holds no annotation,
    ``@below`` the closest below (so annotations stack above or below their line),
    ``@+N`` / ``@-N`` the line that far from the annotation, ``@unknown`` a
    diagnostic with no position, and ``expected-error-re`` a message whose
    ``{{...}}`` blocks are regular expressions (DiagnosticError, at the
    annotation in ``filename``, for one that does not compile)."""
    out: list[Expectation] = []
    waiting: list[Expectation] = []  # the @below annotations, until a line without one
    last_plain = -1  # no line above yet: an @above there matches nothing
    for i, line in enumerate(text.split("\n")):
        here = i + 1 + line_offset
        m = _EXPECT_RE.search(line.rstrip())
        if m is None:
            for e in waiting:
                e.line = here
            waiting.clear()
            last_plain = here
            continue
        sev, regex, where, count, msg = m.groups()
        pattern = _message_pattern(msg, FileLineColLoc(filename, here, m.start() + 1)) if regex else None
        e = Expectation(sev, here, msg, here, int(count or 1), pattern=pattern)
        if where == "above":
            e.line = last_plain
        elif where == "below":
            waiting.append(e)
        elif where == "unknown":
            e.line = 0
        elif where is not None:
            e.line = here + int(where)
        out.append(e)
    return out


def _message_pattern(message: str, where: FileLineColLoc) -> "re.Pattern[str]":
    """The ``-re`` form's message as one pattern: text outside ``{{...}}`` literal."""
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", message):
        parts.append(re.escape(message[pos:m.start()]))
        parts.append(f"(?:{m.group(1)})")
        pos = m.end()
    if "{{" in message[pos:]:
        raise DiagnosticError(Diagnostic("error", "found the start of a regular expression, '{{', without its "
                                                  "end, '}}', in the annotation", where))
    parts.append(re.escape(message[pos:]))
    try:
        return re.compile("".join(parts))
    except re.error as e:
        raise DiagnosticError(Diagnostic("error", f"invalid regular expression in the annotation: {e}",
                                         where)) from None


def _flatten(diags: list[Diagnostic]) -> list[Diagnostic]:
    flat: list[Diagnostic] = []
    for d in diags:
        flat.append(d)
        flat.extend(d.notes)
    return flat


def check_diagnostics(filename: str, expectations: list[Expectation], emitted: list[Diagnostic]) -> list[Diagnostic]:
    """Errors describing every unexpected diagnostic and every unmet expectation."""
    problems: list[Diagnostic] = []
    for d in _flatten(emitted):
        pos = d.file_position
        line = pos.line if pos is not None else 0
        for e in expectations:
            if e.severity == d.severity and e.line == line and e.matches(d.message) and e.matched < e.count:
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
