"""IR source text as every reader takes it: a file, or standard input for
``-``, decoded as UTF-8. Bytes that are not UTF-8 are a diagnostic naming the
file and the first bad byte — with a note when the bytes are an ONNX model, the
usual reason a binary file reaches an IR reader — never a decoding traceback.
"""

from __future__ import annotations

import sys

from geir.attributes import NameLoc
from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["read_source", "read_source_bytes", "utf8_text", "decode_source", "is_onnx_model"]

#: the note on bytes that parse as an ONNX model
ONNX_NOTE = ("this is an ONNX model: 'ge-translate --import-onnx' imports it as IR, and 'ge-run' "
             "runs it as it is")


def read_source(path: str) -> tuple[str, str]:
    """(name for diagnostics, text) of ``path``; ``-`` is standard input.

    Raises:
        DiagnosticError: the bytes are not UTF-8.
        FileNotFoundError, IsADirectoryError, PermissionError: as ``open`` does.
    """
    name, data = read_source_bytes(path)
    return name, data if isinstance(data, str) else decode_source(data, name)


def read_source_bytes(path: str) -> tuple[str, bytes | str]:
    """(name for diagnostics, bytes) of ``path``; ``-`` is standard input (its
    text, when a text stream stands in for it: tests, notebooks).

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError: as ``open`` does.
    """
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            return "<stdin>", sys.stdin.read()
        return "<stdin>", stream.read()
    with open(path, "rb") as f:
        return path, f.read()


def utf8_text(data: bytes) -> str:
    """``data`` as UTF-8 text, without the byte order mark some editors put first.

    Raises:
        UnicodeDecodeError: it is not UTF-8 (:func:`decode_source` says so as a
            diagnostic).
    """
    return data.decode("utf-8").removeprefix("\ufeff")


def decode_source(data: bytes, name: str) -> str:
    """:func:`utf8_text` of ``data``; DiagnosticError at ``name`` when it is not UTF-8."""
    try:
        return utf8_text(data)
    except UnicodeDecodeError as e:
        diagnostic = Diagnostic("error", f"not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} "
                                         f"({e.reason})", NameLoc(name))
        if is_onnx_model(data):
            diagnostic.attach_note(ONNX_NOTE)
        raise DiagnosticError(diagnostic) from None


def is_onnx_model(data: bytes) -> bool:
    """Whether ``data`` parses as an ONNX model with a graph (protobuf parses
    many byte strings as some message, so an empty one does not count)."""
    try:
        import onnx
        model = onnx.ModelProto.FromString(data)
    except Exception:  # noqa: BLE001 - any failure means: not ONNX
        return False
    return model.HasField("graph") and len(model.graph.node) > 0
