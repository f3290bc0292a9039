"""Printing then parsing gives the same module; printing twice the same text —
for both printed forms, with and without debug info and aliases, on random
modules (properties, successors, several blocks, every kind of location), and
the generic form is what upstream MLIR prints, `#loc` aliases included."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.attributes import DenseElementsAttr
from geir.parser import parse_attribute, parse_module, parse_type
from geir.printer import PrintOptions, module_to_string
from ir_strategies import modules
from geir.types import TensorType
from tool_paths import find_mlir_opt

GENERIC = PrintOptions(generic=True)
DEBUG = PrintOptions(debuginfo=True)
GENERIC_DEBUG = PrintOptions(generic=True, debuginfo=True)
LOCAL_DEBUG = PrintOptions(generic=True, debuginfo=True, local_scope=True)


@pytest.mark.parametrize("options", [DEBUG, GENERIC, GENERIC_DEBUG, LOCAL_DEBUG],
                         ids=["custom", "generic", "generic-debuginfo", "generic-debuginfo-local-scope"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module=modules())
def test_printing_is_a_fixed_point(options: PrintOptions, module) -> None:
    text = module_to_string(module, options)
    again = module_to_string(parse_module(text, "t.mlir", allow_unregistered=True), options)
    assert again == text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_both_forms_describe_the_same_module(module) -> None:
    custom = module_to_string(module)
    via_custom = parse_module(custom, "t.mlir", allow_unregistered=True)
    assert module_to_string(via_custom, GENERIC) == module_to_string(module, GENERIC)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_aliases_and_local_scope_describe_the_same_module(module) -> None:
    """`#loc` aliases (defined after their uses) read back to the locations the
    local-scope form spells inline."""
    local = parse_module(module_to_string(module, LOCAL_DEBUG), "t.mlir", allow_unregistered=True)
    aliased = parse_module(module_to_string(module, GENERIC_DEBUG), "t.mlir", allow_unregistered=True)
    assert module_to_string(local, LOCAL_DEBUG) == module_to_string(aliased, LOCAL_DEBUG)
    assert module_to_string(local, GENERIC_DEBUG) == module_to_string(module, GENERIC_DEBUG)


IREE_OPT = find_mlir_opt()


@pytest.mark.skipif(IREE_OPT is None, reason="upstream MLIR (iree-opt, the 'peers' extra) is not installed")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
@pytest.mark.parametrize("options", [GENERIC, GENERIC_DEBUG], ids=["generic", "generic-debuginfo"])
def test_generic_form_is_byte_identical_to_mlir_opt(options: PrintOptions, module) -> None:
    text = module_to_string(module, options)
    flags = ["--mlir-print-debuginfo"] if options.debuginfo else []
    proc = subprocess.run([IREE_OPT, "--allow-unregistered-dialect", "--mlir-print-op-generic", *flags, "-"],
                          input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["f32", "f16", "bf16", "f64", "i1", "i8", "i32", "index", "ui16"]),
       st.integers(101, 300), st.integers(0, 2**32 - 1))
def test_large_constants_print_as_hex_and_read_back(element: str, n: int, seed: int) -> None:
    """More than 100 elements not all equal print as MLIR's `dense<"0x...">` (the
    bytes as stored: i1 a byte, bf16 two) and read back to the same values."""
    et = parse_type(element)
    rng = np.random.default_rng(seed)
    if element == "i1":
        values = rng.integers(0, 2, n).astype(bool)
    elif element in ("f32", "f16", "f64", "bf16"):
        values = rng.integers(-64, 64, n) / 4.0  # exact in every float type, bf16 too
    else:
        values = rng.integers(0, 100, n)
    values[0], values[1] = 0, 1  # not a splat
    t = TensorType((n,), et)
    attr = DenseElementsAttr(t, values.astype(et.numpy_dtype))
    assert str(attr).startswith('dense<"0x')
    again = parse_attribute(str(attr))
    assert again == attr and str(again) == str(attr)


_LITERAL_TYPES = ["f32", "f16", "bf16", "f64", "f8E4M3FN", "f8E5M2"]


@st.composite
def _written_dense(draw: st.DrawFn) -> str:
    """An op whose literal a person wrote: floats in several spellings, of a
    vector, a tensor or a complex tensor of any float type MLIR and geir share, or
    integers anywhere in their type's range."""
    et = draw(st.sampled_from(_LITERAL_TYPES))
    n = draw(st.integers(1, 6))
    floats = st.floats(-100, 100, allow_nan=False, width=32)
    spell = st.sampled_from(["{:.1f}", "{:.3e}", "{!r}", "{:.7g}"])

    def literal() -> str:
        # MLIR's float literal has a point before any exponent: 1e-05 is written 1.0e-05
        mantissa, e, exponent = draw(spell).format(draw(floats)).partition("e")
        return (mantissa if "." in mantissa else mantissa + ".0") + e + exponent

    kind = draw(st.sampled_from(["vector", "tensor", "complex", "integers"]))
    if kind == "integers":  # a signless type takes either range and reads back signed
        it = draw(st.sampled_from(["i8", "i16", "i32", "ui8", "si16"]))
        width = int(it.lstrip("su")[1:])
        lo = 0 if it.startswith("u") else -(1 << (width - 1))
        hi = (1 << (width - 1)) - 1 if it.startswith("s") else (1 << width) - 1
        ints = [draw(st.integers(lo, hi)) for _ in range(n)]
        shape = draw(st.sampled_from(["tensor", "vector", "array", "scalar"]))
        if shape == "array":
            return f'"t.o"() {{a = array<{it}: {", ".join(map(str, ints))}>}} : () -> ()\n'
        if shape == "scalar":
            return f'"t.o"() {{a = {ints[0]} : {it}}} : () -> ()\n'
        return f'"t.o"() {{a = dense<[{", ".join(map(str, ints))}]> : {shape}<{n}x{it}>}} : () -> ()\n'
    if kind == "complex":
        body = "[" + ", ".join(f"({literal()}, {literal()})" for _ in range(n)) + "]"
        return f'"t.o"() {{a = dense<{body}> : tensor<{n}xcomplex<{et}>>}} : () -> ()\n'
    body = "[" + ", ".join(literal() for _ in range(n)) + "]"
    return f'"t.o"() {{a = dense<{body}> : {kind}<{n}x{et}>}} : () -> ()\n'


@pytest.mark.skipif(IREE_OPT is None, reason="upstream MLIR (iree-opt, the 'peers' extra) is not installed")
@settings(max_examples=60, deadline=None)
@given(_written_dense())
def test_written_dense_literals_print_as_mlir_prints_them(text: str) -> None:
    """A vector's or complex tensor's elements (kept as text), a narrow float
    type's (rounded to it) and a signless integer's (read back signed) print as
    upstream MLIR prints the same source."""
    ours = module_to_string(parse_module(text, "t.mlir", allow_unregistered=True), GENERIC)
    proc = subprocess.run([IREE_OPT, "--allow-unregistered-dialect", "--mlir-print-op-generic", "-"],
                          input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert ours == proc.stdout
