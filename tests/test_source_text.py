"""Reading IR source text: UTF-8 as it is, anything else a located diagnostic."""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import given, settings, strategies as st

from geir.diagnostics import DiagnosticError
from geir.source_text import ONNX_NOTE, decode_source, read_source

TINY_CNN = pathlib.Path(__file__).resolve().parent.parent / "examples" / "tiny_cnn.onnx"


@given(st.text())
def test_utf8_text_reads_back_as_written(text: str) -> None:
    assert decode_source(text.encode("utf-8"), "t.mlir") == text.removeprefix("\ufeff")


@given(st.text())
def test_utf8_text_after_a_byte_order_mark_reads_back_as_written(text: str) -> None:
    assert decode_source(("\ufeff" + text).encode("utf-8"), "t.mlir") == text


@settings(deadline=None)  # the first undecodable bytes import onnx to look for a model
@given(st.binary())
def test_any_bytes_decode_or_give_one_diagnostic(data: bytes) -> None:
    try:
        text = decode_source(data, "t.mlir")
    except DiagnosticError as e:
        (diagnostic,) = e.diagnostics
        assert diagnostic.severity == "error" and diagnostic.message.startswith("not UTF-8 text: byte 0x")
        assert e.format().startswith("t.mlir: error: ")
    else:
        assert text.encode("utf-8") == data


def test_the_diagnostic_names_the_first_bad_byte(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.mlir"
    path.write_bytes(b"ge.graph @g() {\xff}")
    with pytest.raises(DiagnosticError) as info:
        read_source(str(path))
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.message == "not UTF-8 text: byte 0xff at offset 15 (invalid start byte)"
    assert not diagnostic.notes


def test_an_onnx_model_gets_a_note_on_what_reads_it() -> None:
    with pytest.raises(DiagnosticError) as info:
        read_source(str(TINY_CNN))
    (diagnostic,) = info.value.diagnostics
    assert [n.message for n in diagnostic.notes] == [ONNX_NOTE]


def test_a_byte_order_mark_is_not_part_of_the_text() -> None:
    # editors on Windows write one; line 1, column 1 is the first character after it
    assert decode_source("\ufeffge.graph".encode("utf-8"), "m.mlir") == "ge.graph"
    assert decode_source("a\ufeff".encode("utf-8"), "m.mlir") == "a\ufeff"
