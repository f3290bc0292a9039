"""Mutated inputs (truncated, bytes flipped, tokens inserted or deleted) never
raise anything but our diagnostic error — never a Python exception; nor does
any op's verifier on constant operands holding odd values (NaN, infinities,
the extremes of int64, empty tensors)."""

from __future__ import annotations

import glob
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geir.diagnostics import DiagnosticError
from geir.operation import Operation
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


#: values a constant operand may hold: what a malformed or hostile model may give
ODD_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e30, -1e30, float("inf"), float("-inf"), float("nan"), 1e-40]
ODD_INTS = [0, 1, -1, 2, 3, -2, 7, 2**31 - 1, -2**31, 2**62, -2**63, 2**63 - 1]


@st.composite
def constant_operand_op(draw: st.DrawFn) -> Operation:
    """A registered ge op whose operands are constants (and a few graph
    arguments), each of a small random shape, type and odd values."""
    import numpy as np

    from geir.attributes import DenseElementsAttr
    from geir.dialect_registry import get_dialect
    from geir.operation import Block
    from geir.types import F16, F32, I1, I32, I64, TensorType
    defs = sorted((od for od in get_dialect("ge").ops.values()
                   if od.num_regions == 0 and od.name not in ("ge.const", "ge.weights")), key=lambda od: od.name)
    od = draw(st.sampled_from(defs))
    lo, hi = od.operand_range()
    count = draw(st.integers(lo, hi if hi is not None else lo + 2))
    storage = {F32: np.float32, F16: np.float16, I64: np.int64, I32: np.int32, I1: np.bool_}
    block = Block([TensorType((2, 3), F32)])
    operands = []
    for _ in range(count):
        et = draw(st.sampled_from(sorted(storage, key=str)))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        n = int(np.prod(shape))
        dtype = np.dtype(storage[et])
        if dtype.kind == "f":
            values = np.array(draw(st.lists(st.sampled_from(ODD_FLOATS), min_size=n, max_size=n)))
            with np.errstate(over="ignore"):
                values = values.astype(dtype)
        elif dtype.kind == "b":
            values = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=dtype)
        else:
            info = np.iinfo(dtype)
            values = np.array([min(max(v, info.min), info.max) for v in
                               draw(st.lists(st.sampled_from(ODD_INTS), min_size=n, max_size=n))], dtype=dtype)
        if draw(st.integers(0, 9)) == 0:
            operands.append(block.arguments[0])
            continue
        t = TensorType(shape, et)
        const = Operation("ge.const", [], [t], {"value": DenseElementsAttr(t, values.reshape(shape))})
        block.append(const)
        operands.append(const.results[0])
    results = od.num_results if od.num_results >= 0 else 1
    op = Operation(od.name, operands, [TensorType(None, F32) for _ in range(results)], {})
    block.append(op)
    return op


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constant_operand_op())
def test_verifying_ops_on_odd_constants_only_raises_diagnostics(op: Operation) -> None:
    from geir.verifier import verify_op
    try:
        verify_op(op)
    except DiagnosticError:
        pass
