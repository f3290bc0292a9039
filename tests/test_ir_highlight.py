"""The notebook colouring of IR (geir.ir_highlight) changes how text looks,
never what it says: strip the spans and unescape, and the text comes back."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings, strategies as st

from geir.ir_highlight import TOKEN_COLOURS, highlight_html
from ir_strategies import modules

_SPAN = re.compile(r'<span class="geir-(\w+)" style="color: (#[0-9a-f]{6})">|</span>')


def _plain(page: str) -> str:
    return html.unescape(_SPAN.sub("", page))


@given(st.text())
def test_any_text_comes_back(text: str) -> None:
    page = highlight_html(text)
    assert _plain(page) == text
    # every '<' left is a tag of ours: the text's own are escaped
    assert "<" not in _SPAN.sub("", page)


@settings(max_examples=50, deadline=None)
@given(modules())
def test_printed_modules_come_back_with_known_kinds(module) -> None:  # type: ignore[no-untyped-def]
    text = str(module)
    page = highlight_html(text)
    assert _plain(page) == text
    for kind, colour in re.findall(r'<span class="geir-(\w+)" style="color: (#[0-9a-f]{6})">', page):
        assert TOKEN_COLOURS[kind] == colour


def test_token_kinds() -> None:
    line = '  %r = ge.relu %x {ge.name = "y", n = -1.5e3} : (tensor<2x?xf32>) -> tensor<2x?xf32> // done\n'
    kinds = {m.group(2): m.group(1) for m in re.finditer(r'<span class="geir-(\w+)"[^>]*>([^<]*)</span>',
                                                         highlight_html(line))}
    assert kinds["%r"] == kinds["%x"] == "value"
    assert kinds["ge.relu"] == "op"
    assert "ge.name" not in kinds  # an attribute name, not an op
    assert kinds["&quot;y&quot;"] == "string"
    assert kinds["-1.5e3"] == "number"
    assert kinds["tensor&lt;2x?xf32&gt;"] == "type"
    assert kinds["// done"] == "comment"
    assert highlight_html("ge.graph @main") == ('<span class="geir-op" style="color: #e65100">ge.graph</span> '
                                                '<span class="geir-symbol" style="color: #8e24aa">@main</span>')
