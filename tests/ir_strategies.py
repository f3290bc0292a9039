"""Hypothesis strategies that build random IR through the public API."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from geir.attributes import (ArrayAttr, BoolAttr, CallSiteLoc, DenseArrayAttr, DenseElementsAttr, DictionaryAttr,
                             FileLineColLoc, FloatAttr, FusedLoc, IntegerAttr, NameLoc, OpaqueAttr, StringAttr,
                             SymbolRefAttr, TypeAttr, UNIT, UNKNOWN_LOC)
from geir.module import Module
from geir.operation import Block, Operation, Region
from geir.types import F16, F32, F64, I1, I8, I32, I64, UI8, FunctionType, OpaqueType, TensorType

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


#: dialect attributes and types kept verbatim: nested brackets, strings with
#: brackets in them, `->`
OPAQUE_ATTRS = ['#test.mode<fast>', '#test<"raw <text>">', '#test.cfg<{a = 1 : i32}, [#test.x, "s>"]>',
                '#test.map<(d0) -> (d0)>', '#test.flag']
OPAQUE_TYPES = ['!test.tok', '!test.ptr<i8, 3>', '!test.pair<"a>b", [1, 2]>', 'vector<4xf32>',
                'memref<2x?xf32, strided<[?, 1], offset: ?>>', 'complex<f64>']


@st.composite
def attributes(draw, depth: int = 0):
    leaf = st.one_of(
        st.builds(OpaqueAttr, st.sampled_from(OPAQUE_ATTRS)),
        st.builds(TypeAttr, st.builds(OpaqueType, st.sampled_from(OPAQUE_TYPES))),
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


file_locs = st.one_of(
    st.builds(FileLineColLoc, names, st.integers(1, 99), st.integers(1, 99)),
    # a range: on one line (`to :c`) or over several (`to l:c`)
    st.builds(lambda f, l, c, dl, dc: FileLineColLoc(f, l, c, l + dl, c + dc + (1 if dl == 0 else 0)),
              names, st.integers(1, 50), st.integers(1, 50), st.integers(0, 3), st.integers(0, 9)))
leaf_locs = st.one_of(file_locs, st.builds(NameLoc, names), st.builds(NameLoc, names, file_locs))


@st.composite
def locations(draw):
    """Every kind of location MLIR prints, in the forms it keeps as they are
    (a fused location of two different locations; MLIR folds one into itself)."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return UNKNOWN_LOC
    if kind == 1:
        return CallSiteLoc(draw(leaf_locs), draw(leaf_locs))
    if kind == 2:
        a, b = draw(st.lists(leaf_locs, min_size=2, max_size=2, unique=True))
        meta = draw(st.one_of(st.none(), st.builds(StringAttr, names)))
        return FusedLoc((a, b), meta)
    return draw(leaf_locs)


@st.composite
def modules(draw) -> Module:
    """A module with one `ge.graph`-shaped op of random `test.*` ops: properties,
    regions of several blocks whose terminators branch to later blocks, block
    arguments and ops with locations of every kind, opaque attributes and types."""
    module = Module()
    arg_types = draw(st.lists(tensor_types, min_size=1, max_size=3))
    block = Block(arg_types, [draw(st.one_of(st.none(), names)) for _ in arg_types])
    for a in block.arguments:
        a.location = draw(locations())
    graph = Operation("test.graph", regions=[Region([block])],
                      attributes={"sym_name": StringAttr("g"), "function_type": TypeAttr(FunctionType(arg_types, []))})
    module.body.append(graph)
    _fill(draw, block, list(block.arguments), depth=0)
    return module


def _fill(draw, block: Block, visible: list, depth: int) -> None:
    for _ in range(draw(st.integers(0, 6))):
        operands = draw(st.lists(st.sampled_from(visible), max_size=3)) if visible else []
        result_types = draw(st.lists(st.one_of(tensor_types, st.builds(OpaqueType, st.sampled_from(OPAQUE_TYPES))),
                                     max_size=3))
        attrs = draw(st.dictionaries(names, attributes(), max_size=3))
        hint = draw(st.one_of(st.none(), names))
        props = draw(st.one_of(st.none(), st.none(), st.builds(DictionaryAttr.from_dict,
                                                               st.dictionaries(names, attributes(1), max_size=2)),
                               st.builds(ArrayAttr, st.lists(attributes(1), max_size=2))))
        op = Operation("test." + draw(st.sampled_from(["a", "b", "c"])), operands, result_types, attrs,
                       properties=props)
        loc = draw(st.one_of(st.just(None), locations()))
        if loc is not None:
            op.location = loc
        if len(op.results) == 1:
            op.results[0].name_hint = hint
        if depth < 1 and draw(st.booleans()):
            for _ in range(draw(st.integers(1, 2))):
                op.add_region(_region(draw, visible, depth + 1))
        block.append(op)
        visible = visible + list(op.results)


def _region(draw, visible: list, depth: int) -> Region:
    """A region of one to three blocks; each block but the last ends in a branch
    to later blocks (never to the entry block, which MLIR forbids), and later
    blocks read only their own values, so every use is dominated."""
    n = draw(st.integers(1, 3))
    blocks = [Block() for _ in range(n)]
    region = Region(blocks)
    for i, b in enumerate(blocks):
        if i or draw(st.booleans()):
            for t in draw(st.lists(tensor_types, max_size=2)):
                b.add_argument(t, None, draw(locations()))
        _fill(draw, b, (visible if i == 0 else []) + list(b.arguments), depth)
        if i + 1 < n:
            targets = draw(st.lists(st.sampled_from(blocks[1:]), min_size=1, max_size=3))
            b.append(Operation("test.br", successors=targets,
                               properties=draw(st.one_of(st.none(), st.just(DictionaryAttr.from_dict(
                                   {"weights": DenseArrayAttr(I32, tuple(range(len(targets))))}))))))
        elif n > 1:  # MLIR allows an empty block only as a region's single block
            b.append(Operation("test.ret"))
    return region
