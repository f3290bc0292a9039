"""ATC's AIPP configuration (``atc --insert_op_conf``): the static on-chip image
preprocessing GE puts in front of a model input.

The file is protobuf text format, one ``aipp_op { ... }`` block per input
(``https://www.hiascend.com/document/detail/en/canncommercial/800/devaids/atc/atlasatc_16_0029.html``
and the configuration template of the ATC guide)::

    aipp_op {
        aipp_mode: static
        related_input_rank: 0
        input_format: RGB888_U8
        src_image_size_w: 256
        src_image_size_h: 256
        crop: true
        load_start_pos_w: 16
        load_start_pos_h: 16
        crop_size_w: 224
        crop_size_h: 224
        min_chn_0: 123.675
        var_reci_chn_0: 0.0171247538316637
    }

AIPP reads a uint8 image (NHWC), crops it, optionally swaps its R and B
channels, and computes each channel as
``(pixel - mean_chn_i - min_chn_i) * var_reci_chn_i``, the model's input.
What this module takes: static mode, ``RGB888_U8`` and ``YUV400_U8`` inputs,
cropping and the channel swap. Colour-space conversion, padding, resizing and
dynamic AIPP are stopped with a diagnostic at their line; an unknown field too.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import lark

from geir.attributes import FileLineColLoc
from geir.diagnostics import Diagnostic, DiagnosticError, SourceFile
from geir.dialects.ge_infer import AIPP_CHANNELS

__all__ = ["AippConfig", "AippFile", "INPUT_FORMATS", "parse_aipp_config", "load_aipp_config"]

#: the input formats taken, with their channels (those ``ge.aipp`` computes)
INPUT_FORMATS: dict[str, int] = AIPP_CHANNELS

_GRAMMAR = r"""
start: block*
block: NAME "{" field* "}"
field: NAME ":" value
value: NUMBER -> number
     | NAME -> name
     | STRING -> string
NAME: /[A-Za-z_][A-Za-z0-9_]*/
NUMBER: /[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/
STRING: /"[^"\n]*"/
COMMENT: /#[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""

#: how a syntax error names the tokens it expected
_TOKENS = {"COLON": "':'", "LBRACE": "'{'", "RBRACE": "'}'", "NAME": "a name", "NUMBER": "a number",
           "STRING": "a string"}

#: fields taken, with their kind and default
_FIELDS: dict[str, tuple[str, Any]] = {
    "aipp_mode": ("name", ""),
    "related_input_rank": ("int", 0),
    "input_format": ("name", ""),
    "src_image_size_w": ("int", 0),
    "src_image_size_h": ("int", 0),
    "crop": ("bool", False),
    "load_start_pos_w": ("int", 0),
    "load_start_pos_h": ("int", 0),
    "crop_size_w": ("int", 0),
    "crop_size_h": ("int", 0),
    "rbuv_swap_switch": ("bool", False),
    "csc_switch": ("bool", False),
    "resize": ("bool", False),
    "padding": ("bool", False),
    **{f"mean_chn_{i}": ("int", 0) for i in range(4)},
    **{f"min_chn_{i}": ("float", 0.0) for i in range(4)},
    **{f"var_reci_chn_{i}": ("float", 1.0) for i in range(4)},
}
#: fields of features not taken: setting one to anything but its default stops
_UNSUPPORTED = {"csc_switch": "colour-space conversion", "resize": "resizing", "padding": "padding"}
#: fields that only matter with a feature not taken (the colour-space matrix and its biases): ignored
_IGNORED = frozenset({f"matrix_r{r}c{c}" for r in range(3) for c in range(3)}
                     | {f"input_bias_{i}" for i in range(3)} | {f"output_bias_{i}" for i in range(3)})


@attrs.frozen
class AippConfig:
    """One ``aipp_op`` block. Sizes of 0 are taken from the model input."""

    related_input_rank: int = 0
    input_format: str = "RGB888_U8"
    src_image_size_w: int = 0
    src_image_size_h: int = 0
    crop: bool = False
    load_start_pos_w: int = 0
    load_start_pos_h: int = 0
    crop_size_w: int = 0
    crop_size_h: int = 0
    rbuv_swap_switch: bool = False
    mean_chn: tuple[int, ...] = (0, 0, 0, 0)
    min_chn: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    var_reci_chn: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0)
    #: where the block starts, for diagnostics about it
    location: FileLineColLoc | None = attrs.field(default=None, eq=False)
    #: where each field was set
    positions: dict[str, FileLineColLoc] = attrs.field(factory=dict, eq=False)

    @property
    def channels(self) -> int:
        return INPUT_FORMATS[self.input_format]

    def position(self, *fields: str) -> FileLineColLoc | None:
        """Where the first of ``fields`` that was set is, else where the block starts."""
        return next((self.positions[f] for f in fields if f in self.positions), self.location)


@attrs.frozen
class AippFile:
    """A configuration file: its blocks, and its text for diagnostics that point into it."""

    blocks: list[AippConfig]
    source: SourceFile


@functools.cache
def _parser() -> lark.Lark:
    return lark.Lark(_GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True)


def load_aipp_config(path: str) -> AippFile:
    """The AIPP configuration file ``path``.

    Raises:
        DiagnosticError: ``path:line:col: error: ...`` at what is wrong, with the line.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise DiagnosticError(Diagnostic("error", f"cannot read AIPP configuration '{path}': "
                                                  f"{e.strerror or e}")) from None
    except UnicodeDecodeError:
        raise DiagnosticError(Diagnostic("error", f"AIPP configuration '{path}' is not UTF-8 text")) from None
    return AippFile(parse_aipp_config(text, path), SourceFile(path, text))


def parse_aipp_config(text: str, filename: str = "<aipp>") -> list[AippConfig]:
    """The ``aipp_op`` blocks of ``text`` (an ATC ``--insert_op_conf`` file).

    Raises:
        DiagnosticError: at the line and column of what is wrong; its ``source_files``
            hold ``text`` so the error prints the line and a caret.
    """
    source = SourceFile(filename, text)

    def fail(message: str, line: int, col: int, *notes: str) -> DiagnosticError:
        d = Diagnostic("error", message, FileLineColLoc(filename, line, col))
        for n in notes:
            d.attach_note(n)
        return DiagnosticError(d, source_files=[source])

    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        found, expected = "input", "'aipp_op { name: value ... }'"
        if isinstance(e, lark.exceptions.UnexpectedToken):
            found = "end of file" if e.token.type == "$END" else f"'{e.token}'"
            spelled = sorted(_TOKENS.get(t, t.lower()) for t in e.expected)
            expected = " or ".join(spelled) if spelled else expected
        elif isinstance(e, lark.exceptions.UnexpectedCharacters):
            found = f"'{text[e.pos_in_stream]}'" if e.pos_in_stream < len(text) else "end of file"
        line, col = getattr(e, "line", 1), getattr(e, "column", 1)
        if found == "end of file" or not isinstance(line, int) or line < 1:
            lines = text.split("\n")
            line, col = len(lines), len(lines[-1]) + 1
        raise fail(f"AIPP configuration: unexpected {found}; expected {expected}", line, col) from None
    blocks: list[AippConfig] = []
    for block in tree.children:
        name = block.children[0]
        if str(name) != "aipp_op":
            raise fail(f"unknown AIPP configuration block '{name}' (expected 'aipp_op')", name.line, name.column)
        blocks.append(_block(block, filename, fail))
    if not blocks:
        raise fail("AIPP configuration has no 'aipp_op' block", 1, 1)
    ranks: dict[int, AippConfig] = {}
    for b in blocks:
        if b.related_input_rank in ranks:
            assert b.location is not None
            raise fail(f"a second 'aipp_op' for input {b.related_input_rank} (related_input_rank)",
                       b.location.line, b.location.col)
        ranks[b.related_input_rank] = b
    return blocks


def _block(block: lark.Tree, filename: str, fail: Any) -> AippConfig:
    head = block.children[0]
    values: dict[str, Any] = {}
    where: dict[str, tuple[int, int]] = {}
    for field in block.children[1:]:
        key, value = field.children
        name, line, col = str(key), key.line, key.column
        if name in where:
            raise fail(f"AIPP field '{name}' is set twice", line, col)
        where[name] = (line, col)
        if name in _IGNORED:
            continue
        if name not in _FIELDS:
            raise fail(f"unknown AIPP field '{name}'", line, col,
                       "known fields: " + ", ".join(sorted(_FIELDS)))
        kind, _ = _FIELDS[name]
        values[name] = _value(name, kind, value, fail)
    mode = values.get("aipp_mode", "")
    if mode != "static":
        line, col = where.get("aipp_mode", (head.line, head.column))
        raise fail("only static AIPP is supported (aipp_mode: static)" if mode else
                   "AIPP block needs 'aipp_mode: static'", line, col)
    if "input_format" not in values:
        raise fail("AIPP block needs 'input_format' (RGB888_U8 or YUV400_U8)", head.line, head.column)
    if values["input_format"] not in INPUT_FORMATS:
        line, col = where["input_format"]
        raise fail(f"AIPP input_format '{values['input_format']}' is not supported", line, col,
                   "supported: " + ", ".join(INPUT_FORMATS))
    for name, feature in _UNSUPPORTED.items():
        if values.get(name):
            line, col = where[name]
            raise fail(f"AIPP {feature} ({name}: true) is not supported", line, col)
    for name in ("related_input_rank", "src_image_size_w", "src_image_size_h", "load_start_pos_w",
                 "load_start_pos_h", "crop_size_w", "crop_size_h"):
        if values.get(name, 0) < 0:
            line, col = where[name]
            raise fail(f"AIPP field '{name}' must not be negative", line, col)
    if not values.get("crop", False):
        for name in ("load_start_pos_w", "load_start_pos_h", "crop_size_w", "crop_size_h"):
            if values.get(name):
                line, col = where[name]
                raise fail(f"AIPP field '{name}' needs 'crop: true'", line, col)
    per_channel = {key: tuple(values.get(f"{key}_{i}", _FIELDS[f"{key}_{i}"][1]) for i in range(4))
                   for key in ("mean_chn", "min_chn", "var_reci_chn")}
    return AippConfig(
        related_input_rank=values.get("related_input_rank", 0), input_format=values["input_format"],
        src_image_size_w=values.get("src_image_size_w", 0), src_image_size_h=values.get("src_image_size_h", 0),
        crop=values.get("crop", False), load_start_pos_w=values.get("load_start_pos_w", 0),
        load_start_pos_h=values.get("load_start_pos_h", 0), crop_size_w=values.get("crop_size_w", 0),
        crop_size_h=values.get("crop_size_h", 0), rbuv_swap_switch=values.get("rbuv_swap_switch", False),
        location=FileLineColLoc(filename, head.line, head.column),
        positions={k: FileLineColLoc(filename, line, col) for k, (line, col) in where.items()}, **per_channel)


def _value(name: str, kind: str, value: lark.Tree, fail: Any) -> Any:
    token = value.children[0]
    text = str(token)
    if kind == "name":
        if value.data != "name":
            raise fail(f"AIPP field '{name}' takes a name, not {text}", token.line, token.column)
        return text
    if kind == "bool":
        if value.data == "name" and text in ("true", "false"):
            return text == "true"
        if value.data == "number" and text in ("0", "1"):
            return text == "1"
        raise fail(f"AIPP field '{name}' takes true or false, not {text}", token.line, token.column)
    if value.data != "number":
        raise fail(f"AIPP field '{name}' takes a number, not {text}", token.line, token.column)
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise fail(f"AIPP field '{name}' takes an integer, not {text}", token.line, token.column) from None
    return float(text)
