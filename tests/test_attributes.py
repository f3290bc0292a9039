"""Attribute spelling: what MLIR prints, and reading it back."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geir.attributes import ArrayAttr, DenseElementsAttr, FloatAttr, IntegerAttr, StringAttr
from geir.parser import parse_attribute
from geir.types import BF16, F16, F32, F64, I32, OpaqueType, TensorType

# (value, type, what mlir-opt prints) — each checked against iree-opt 3.13's output.
MLIR_FLOATS = [
    (1e-7, F32, "1.000000e-07 : f32"), (123456789.0, F32, "0x4CEB79A3 : f32"),
    (3.14159265, F32, "3.14159274 : f32"), (0.3, F32, "3.000000e-01 : f32"), (1e-5, F32, "9.99999974E-6 : f32"),
    (1e-20, F64, "9.9999999999999995E-21 : f64"), (123456789.123, F64, "123456789.123 : f64"),
    (0.30000001192092896, F64, "0.30000001192092896 : f64"), (float("inf"), F32, "0x7F800000 : f32"),
    (-0.0, F32, "-0.000000e+00 : f32"), (2.0e-5, F16, "2.002720e-05 : f16"), (0.1, F16, "9.997550e-02 : f16"),
    (3.3, BF16, "3.296880e+00 : bf16"), (65504.0, F16, "6.550400e+04 : f16"),
]


@pytest.mark.parametrize("value,ftype,text", MLIR_FLOATS)
def test_floats_print_as_mlir_does(value: float, ftype, text: str) -> None:
    attr = FloatAttr(value, ftype)
    assert str(attr) == text
    assert parse_attribute(text) == attr


def test_arrays_elide_only_the_default_types() -> None:
    a = ArrayAttr([IntegerAttr(1), IntegerAttr(2, I32), FloatAttr(1.5), FloatAttr(2.5, F32)])
    assert str(a) == "[1, 2 : i32, 1.500000e+00, 2.500000e+00 : f32]"
    assert str(IntegerAttr(1)) == "1 : i64"


def test_strings_escape_as_llvm_does() -> None:
    assert str(StringAttr('a"b\\c\n\u00e9')) == '"a\\22b\\\\c\\0A\\C3\\A9"'
    assert parse_attribute(str(StringAttr('a"b\\c\n\u00e9'))) == StringAttr('a"b\\c\n\u00e9')


#: MLIR's string literal as a plain definition: any character but a quote, a
#: backslash or a newline, or one of the escapes \" \\ \n \t \XX
MLIR_STRING = re.compile(r'"(\\(["\\nt]|[0-9a-fA-F]{2})|[^"\\\n])*"')


@given(st.text(alphabet='"\\\nnt0aFgx\u00e9 ', max_size=24))
def test_the_string_token_is_mlirs_string_literal(body: str) -> None:
    """The grammar's STRING token (written for speed on long hex blobs) matches
    exactly the literals the plain definition does."""
    from geir.parser import _lark
    token = next(t for t in _lark().terminals if t.name == "STRING")
    literal = f'"{body}"'
    assert bool(re.fullmatch(token.pattern.to_regexp(), literal)) == bool(MLIR_STRING.fullmatch(literal))


def test_string_tensors_round_trip() -> None:
    t = TensorType((2,), OpaqueType("!ge.string"))
    attr = DenseElementsAttr(t, np.array(["a", 'b"c'], dtype=object))
    assert str(attr) == 'dense<["a", "b\\22c"]> : tensor<2x!ge.string>'
    assert parse_attribute(str(attr)) == attr


def test_a_blob_may_view_an_arrays_bytes_and_pickles_them() -> None:
    """A converted weight's blob views its array's bytes (read-only, nothing
    copied); it prints, parses back and pickles as the same bytes."""
    import pickle

    from geir.attributes import DenseResourceAttr, ResourceBlob
    from geir.module import Module
    from geir.parser import parse_module
    array = (np.arange(48, dtype=np.float32).reshape(6, 8) / 7).astype(np.float16)
    data = ResourceBlob.bytes_of(array)
    assert data.readonly and bytes(data) == array.tobytes() and np.shares_memory(np.frombuffer(data, np.uint8), array)
    module = parse_module('ge.graph @main() -> (tensor<6x8xf16>) {\n'
                          '  %w = ge.weights {value = dense<0.0> : tensor<6x8xf16>} : () -> tensor<6x8xf16>\n'
                          '  ge.return %w : (tensor<6x8xf16>) -> ()\n}\n')
    weights = next(op for op in module.walk() if op.name == "ge.weights")
    weights.attributes["value"] = DenseResourceAttr(TensorType((6, 8), F16), module.add_resource("w", data))
    again = parse_module(str(module))
    for copy in (again, pickle.loads(pickle.dumps(module))):
        assert str(copy) == str(module)
        (blob,) = copy.resources.values()
        np.testing.assert_array_equal(DenseResourceAttr(TensorType((6, 8), F16), blob).to_numpy(), array)
