"""--verify-diagnostics reads annotations as MLIR's verifier does: designators,
stacked annotations, the -re form and diagnostics without a position."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from geir.attributes import FileLineColLoc
from geir.diagnostic_verifier import check_diagnostics, parse_expectations
from geir.diagnostics import Diagnostic, DiagnosticError


def _lines(text: str) -> list[tuple[str, int]]:
    return [(e.text, e.line) for e in parse_expectations(text)]


def test_designators_name_their_lines() -> None:
    text = ("op0\n"
            "// expected-error@below {{b1}}\n"
            "// expected-error@below {{b2}}\n"
            "op3\n"
            "// expected-error@above {{a1}}\n"
            "// expected-error@above {{a2}}\n"
            "// expected-error@+2 {{p}}\n"
            "op7 // expected-error {{same}}\n"
            "op8\n"
            "// expected-error@-9 {{m}}\n")
    assert _lines(text) == [("b1", 4), ("b2", 4), ("a1", 4), ("a2", 4), ("p", 9), ("same", 8), ("m", 1)]


def test_line_offset_shifts_every_line() -> None:
    assert _lines("x\n// expected-note@above {{n}}\n") == [("n", 1)]
    assert [(e.line, e.source_line) for e in parse_expectations("x\n// expected-note@above {{n}}\n", 10)] == [
        (11, 12)]


def test_an_above_with_no_line_above_matches_nothing() -> None:
    (e,) = parse_expectations("// expected-error@above {{x}}\n")
    problems = check_diagnostics("f", [e], [Diagnostic("error", "x")])
    assert [p.message for p in problems] == ["unexpected error: x", 'expected error "x" was not produced']


def test_unknown_matches_a_diagnostic_without_a_position() -> None:
    expectations = parse_expectations("// expected-error@unknown {{no place}}\n")
    assert check_diagnostics("f", expectations, [Diagnostic("error", "it has no place")]) == []


def test_the_re_form_matches_its_blocks_as_regular_expressions() -> None:
    text = "// expected-error-re@+1 {{type tensor<{{[0-9]+}}xf32> (with [brackets])}}\nop\n"
    at = FileLineColLoc("f", 2, 1)
    assert check_diagnostics("f", parse_expectations(text),
                             [Diagnostic("error", "bad type tensor<12xf32> (with [brackets])", at)]) == []
    problems = check_diagnostics("f", parse_expectations(text),
                                 [Diagnostic("error", "bad type tensor<Nxf32> (with [brackets])", at)])
    assert len(problems) == 2


@pytest.mark.parametrize("annotation, message", [
    ("{{a {{(}} b}}", "invalid regular expression in the annotation"),
    ("{{a {{b}}", "without its end"),
])
def test_a_bad_re_annotation_is_a_located_error(annotation: str, message: str) -> None:
    with pytest.raises(DiagnosticError) as info:
        parse_expectations(f"op\n  // expected-error-re@above {annotation}\n", filename="t.mlir")
    (d,) = info.value.diagnostics
    assert message in d.message
    assert (d.location.file, d.location.line, d.location.col) == ("t.mlir", 2, 6)


@given(st.text(alphabet="abc <>[]().*+?", min_size=1).filter(lambda s: "}}" not in s and "{{" not in s))
def test_a_plain_message_matches_itself_in_either_form(message: str) -> None:
    at = FileLineColLoc("f", 1, 1)
    for form in ("expected-error", "expected-error-re"):
        expectations = parse_expectations(f"op // {form} {{{{{message}}}}}\n")
        assert check_diagnostics("f", expectations, [Diagnostic("error", f"x {message} y", at)]) == []
