"""Hypothesis strategies that build random IR through the public API."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from geir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DictionaryAttr,
                             FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr, UNIT, NameLoc,
                             FileLineColLoc)
from geir.module import Module
from geir.operation import Block, Operation, Region
from geir.types import F16, F32, F64, I1, I8, I32, I64, UI8, FunctionType, TensorType

ELEMENT_TYPES = [F16, F32, F64, I1, I8, I32, I64, UI8]
names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
dims = st.lists(st.one_of(st.integers(0, 9), st.none()), max_size=4)
tensor_types = st.builds(TensorType, dims, st.sampled_from(ELEMENT_TYPES))
static_types = st.builds(TensorType, st.lists(st.integers(1, 3), max_size=3), st.sampled_from([F32, I32, I1, F64]))


def _dense(t: TensorType, draw) -> DenseElementsAttr:
    n = int(np.prod(t.shape))
    et = t.element_type
    if et is I1:
        vals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif et is I32:
        vals = draw(st.lists(st.integers(-2**31, 2**31 - 1), min_size=n, max_size=n))
    else:
        vals = draw(st.lists(st.floats(allow_nan=False, width=64 if et is F64 else 32), min_size=n, max_size=n))
    return DenseElementsAttr(t, np.array(vals, dtype=et.numpy_dtype).reshape(t.shape))


@st.composite
def attributes(draw, depth: int = 0):
    leaf = st.one_of(
        st.builds(IntegerAttr, st.integers(-2**63, 2**63 - 1)),
        st.builds(IntegerAttr, st.integers(-2**31, 2**31 - 1), st.just(I32)),
        st.builds(FloatAttr, st.floats(allow_nan=False), st.just(F64)),
        st.builds(FloatAttr, st.floats(width=32), st.just(F32)),
        st.builds(BoolAttr, st.booleans()),
        st.builds(StringAttr, st.text(max_size=8)),
        st.just(UNIT),
        st.builds(TypeAttr, tensor_types),
        st.builds(SymbolRefAttr, names),
        st.builds(lambda xs: DenseArrayAttr(I64, tuple(xs)), st.lists(st.integers(-100, 100), max_size=4)),
    )
    if depth >= 2:
        return draw(leaf)
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return ArrayAttr(draw(st.lists(attributes(depth + 1), max_size=3)))
    if kind == 1:
        return DictionaryAttr.from_dict(draw(st.dictionaries(names, attributes(depth + 1), max_size=3)))
    if kind == 2:
        return _dense(draw(static_types), draw)
    return draw(leaf)


@st.composite
def modules(draw) -> Module:
    """A module with one `ge.graph`-shaped op of random `test.*` ops."""
    module = Module()
    arg_types = draw(st.lists(tensor_types, min_size=1, max_size=3))
    block = Block(arg_types, [draw(st.one_of(st.none(), names)) for _ in arg_types])
    graph = Operation("test.graph", regions=[Region([block])],
                      attributes={"sym_name": StringAttr("g"), "function_type": TypeAttr(FunctionType(arg_types, []))})
    module.body.append(graph)
    _fill(draw, block, list(block.arguments), depth=0)
    return module


def _fill(draw, block: Block, visible: list, depth: int) -> None:
    for _ in range(draw(st.integers(0, 6))):
        operands = draw(st.lists(st.sampled_from(visible), max_size=3)) if visible else []
        result_types = draw(st.lists(tensor_types, max_size=3))
        attrs = draw(st.dictionaries(names, attributes(), max_size=3))
        hint = draw(st.one_of(st.none(), names))
        loc = draw(st.one_of(st.just(None), st.builds(NameLoc, names), st.builds(FileLineColLoc, names, st.integers(1, 99), st.integers(1, 99))))
        op = Operation("test." + draw(st.sampled_from(["a", "b", "c"])), operands, result_types, attrs)
        if loc is not None:
            op.location = loc
        if len(op.results) == 1:
            op.results[0].name_hint = hint
        if depth < 1 and draw(st.booleans()):
            for _ in range(draw(st.integers(1, 2))):
                inner = Block()
                op.add_region(Region([inner]))
                _fill(draw, inner, visible, depth + 1)
        block.append(op)
        visible = visible + list(op.results)
