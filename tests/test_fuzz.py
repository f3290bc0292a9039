"""Mutated inputs (truncated, bytes flipped, tokens inserted or deleted) never
raise anything but our diagnostic error — never a Python exception."""

from __future__ import annotations

import glob
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.diagnostics import DiagnosticError
from geir.parser import parse_module
from geir.printer import PrintOptions, module_to_string
from geir.verifier import verify

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = [open(p).read() for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
         + sorted(glob.glob(os.path.join(ROOT, "lit_tests", "parser", "*.mlir")))
         # upstream MLIR's generic form: properties, successors, opaque bodies, #loc aliases, resources
         + sorted(glob.glob(os.path.join(ROOT, "lit_tests", "interop", "Inputs", "*", "*.mlir")))]
TOKENS = ["%0", "%a#1", "(", ")", "{", "}", "[", "]", "<", ">", ":", ",", "=", "->", "ge.relu", '"ge.add"',
          "tensor<2xf32>", "tensor<?x3xi8>", "dense<1.0>", "dense<[1, 2]>", "0x7FC00000", "-1", "1.5e3",
          "loc(", "#a", "^bb0", "@g", "module", "{-#", "#-}", "\"", "\\", "array<i64: 1>", "i1", "unit",
          "dense_resource<x>", "attributes", "ge.graph", "//", "\n", "%", "#", "!ge.x", "f16", "tensor<*xf32>",
          "<{", "}>", "[^bb1]", "[^bb0, ^bb2]", "^bb1:", "^bb2(%z: f32 loc(unknown)):", "#loc1", "loc(#loc1)",
          "#loc1 = loc(\"f\":1:2)", "#foo.bar<", "#foo.bar<\"a>b\", [1]>", "!foo.t<", "!t", "!t = !foo.t",
          "affine_map<(d0) -> (d0)>", "memref<4x?xf32, #map>", "fused[", "fused<\"m\">[", "callsite(", " at ",
          " to ", ":3:4 to :9", "dialect_resources", "external_resources", "builtin: {", "\"0x01000000AB\"",
          "vector<4xf32>", "complex<f32>", "dense<(1.0,2.0)>"]


def _check(text: str) -> None:
    for unregistered in (False, True):
        try:
            m = parse_module(text, "fuzz.mlir", allow_unregistered=unregistered)
            verify(m, allow_unregistered=unregistered)
            module_to_string(m)
            module_to_string(m, PrintOptions(generic=True, debuginfo=True))
            module_to_string(m, PrintOptions(generic=True, debuginfo=True, local_scope=True))
        except DiagnosticError as e:
            assert e.diagnostics and all(d.message for d in e.diagnostics)
            e.format()


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 3))
        pos = draw(st.integers(0, max(0, len(text) - 1)))
        if kind == 0:
            text = text[:pos]
        elif kind == 1 and text:
            text = text[:pos] + chr(draw(st.integers(0, 127))) + text[pos + 1:]
        elif kind == 2:
            text = text[:pos] + " " + draw(st.sampled_from(TOKENS)) + " " + text[pos:]
        else:
            end = draw(st.integers(pos, min(len(text), pos + 12)))
            text = text[:pos] + text[end:]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_inputs_only_raise_diagnostics(text: str) -> None:
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TOKENS + ["1", "x", "ge.graph @g() {", "ge.return : () -> ()", "}"]),
                max_size=40).map(" ".join))
def test_random_token_soup_only_raises_diagnostics(text: str) -> None:
    _check(text)


def test_seeds_are_valid() -> None:
    assert len(SEEDS) >= 3
