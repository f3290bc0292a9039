"""Syntax colouring of IR text for notebooks: HTML spans for comments, strings,
SSA values, symbols, op names, types and numbers — kept simple on purpose: a
regular-expression scan, not a parse, so it also colours text that does not
verify."""

from __future__ import annotations

import html
import re

__all__ = ["highlight_html", "TOKEN_COLOURS"]

#: token kind -> CSS colour (readable on light and dark notebook themes)
TOKEN_COLOURS = {
    "comment": "#6a9955", "string": "#c2185b", "value": "#1e88e5", "symbol": "#8e24aa",
    "block": "#8e24aa", "type": "#00897b", "op": "#e65100", "number": "#6d4c41",
}

# One alternation, first match wins: comments and strings before anything that
# could match inside them; types before op names (``tensor<...>`` holds dots).
_TOKEN = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in (
    ("comment", r"//[^\n]*"),
    ("string", r'"(?:[^"\\\n]|\\.)*"'),
    ("value", r"%[A-Za-z0-9_$.\-#]+"),
    ("symbol", r"@[A-Za-z0-9_$.\-]+|@\"(?:[^\"\\\n]|\\.)*\""),
    ("block", r"\^[A-Za-z0-9_$.\-]+"),
    ("type", r"\b(?:tensor|memref|vector|tuple|complex)<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>"
             r"|![A-Za-z_][\w.]*(?:<[^<>\n]*>)?|\b(?:[su]?i\d+|f\d+|bf16|index|none)\b"),
    # a dotted name followed by '=' is an attribute (``ge.name = "x"``), not an op
    ("op", r"\b[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*\b(?!\s*=)"),
    ("number", r"(?<![\w.])-?(?:0x[0-9A-Fa-f]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\b"),
)))


def highlight_html(text: str) -> str:
    """``text`` HTML-escaped, each token in a ``<span style="color: ...">``
    (put the result inside a ``<pre>``)."""
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        kind = m.lastgroup or ""
        out.append(f'<span class="geir-{kind}" style="color: {TOKEN_COLOURS[kind]}">{html.escape(m.group())}</span>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)
