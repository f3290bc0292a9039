"""Hypothesis strategies that build random IR through the public API."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from geir.attributes import (ArrayAttr, BoolAttr, CallSiteLoc, DenseArrayAttr, DenseElementsAttr, DictionaryAttr,
                             FileLineColLoc, FloatAttr, FusedLoc, IntegerAttr, NameLoc, OpaqueAttr, StringAttr,
                             SymbolRefAttr, TypeAttr, UNIT, UNKNOWN_LOC)
from geir.module import Module
from geir.operation import Block, Operation, Region
from geir.types import F16, F32, F64, I1, I8, I32, I64, UI8, FunctionType, OpaqueType, TensorType

ELEMENT_TYPES = [F16, F32, F64, I1, I8, I32, I64, UI8]
#: `[a-z_][a-z0-9_]{0,6}`, built from characters (``from_regex`` draws about ten times slower)
names = st.builds(str.__add__, st.sampled_from("abcdefghijklmnopqrstuvwxyz_"),
                  st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", max_size=6))
dims = st.lists(st.one_of(st.integers(0, 9), st.none()), max_size=4)
tensor_types = st.builds(TensorType, dims, st.sampled_from(ELEMENT_TYPES))
static_types = st.builds(TensorType, st.lists(st.integers(1, 3), max_size=3), st.sampled_from([F32, I32, I1, F64]))

# Every strategy below is built once, at import: building (and validating) a
# strategy per draw cost hypothesis far more time than drawing from it.


@lru_cache(maxsize=None)
def _dense_values(et: object, n: int) -> st.SearchStrategy:
    if et is I1:
        return st.lists(st.booleans(), min_size=n, max_size=n)
    if et is I32:
        return st.lists(st.integers(-2**31, 2**31 - 1), min_size=n, max_size=n)
    return st.lists(st.floats(allow_nan=False, width=64 if et is F64 else 32), min_size=n, max_size=n)


def _dense(t: TensorType, draw) -> DenseElementsAttr:
    vals = draw(_dense_values(t.element_type, int(np.prod(t.shape))))
    return DenseElementsAttr(t, np.array(vals, dtype=t.element_type.numpy_dtype).reshape(t.shape))


#: dialect attributes and types kept verbatim: nested brackets, strings with
#: brackets in them, `->`
OPAQUE_ATTRS = ['#test.mode<fast>', '#test<"raw <text>">', '#test.cfg<{a = 1 : i32}, [#test.x, "s>"]>',
                '#test.map<(d0) -> (d0)>', '#test.flag']
OPAQUE_TYPES = ['!test.tok', '!test.ptr<i8, 3>', '!test.pair<"a>b", [1, 2]>', 'vector<4xf32>',
                'memref<2x?xf32, strided<[?, 1], offset: ?>>', 'complex<f64>']

_LEAF_ATTRS = st.one_of(
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
_ATTR_KINDS = st.integers(0, 5)


@lru_cache(maxsize=None)
def attributes(depth: int = 0) -> st.SearchStrategy:
    """Any attribute: leaves, and below ``depth`` 2 arrays, dictionaries and dense tensors."""
    if depth >= 2:
        return _LEAF_ATTRS
    return _nested_attributes(depth)


@lru_cache(maxsize=None)
def _attribute_lists(depth: int) -> st.SearchStrategy:
    return st.lists(attributes(depth), max_size=3)


@lru_cache(maxsize=None)
def _attribute_dicts(depth: int, max_size: int) -> st.SearchStrategy:
    return st.dictionaries(names, attributes(depth), max_size=max_size)


@st.composite
def _nested_attributes(draw, depth: int):
    kind = draw(_ATTR_KINDS)
    if kind == 0:
        return ArrayAttr(draw(_attribute_lists(depth + 1)))
    if kind == 1:
        return DictionaryAttr.from_dict(draw(_attribute_dicts(depth + 1, 3)))
    if kind == 2:
        return _dense(draw(static_types), draw)
    return draw(_LEAF_ATTRS)


file_locs = st.one_of(
    st.builds(FileLineColLoc, names, st.integers(1, 99), st.integers(1, 99)),
    # a range: on one line (`to :c`) or over several (`to l:c`)
    st.builds(lambda f, l, c, dl, dc: FileLineColLoc(f, l, c, l + dl, c + dc + (1 if dl == 0 else 0)),
              names, st.integers(1, 50), st.integers(1, 50), st.integers(0, 3), st.integers(0, 9)))
leaf_locs = st.one_of(file_locs, st.builds(NameLoc, names), st.builds(NameLoc, names, file_locs))
_LOC_KINDS = st.integers(0, 5)
_LEAF_LOC_PAIRS = st.lists(leaf_locs, min_size=2, max_size=2, unique=True)
_FUSED_META = st.one_of(st.none(), st.builds(StringAttr, names))


@st.composite
def _locations(draw):
    kind = draw(_LOC_KINDS)
    if kind == 0:
        return UNKNOWN_LOC
    if kind == 1:
        return CallSiteLoc(draw(leaf_locs), draw(leaf_locs))
    if kind == 2:
        a, b = draw(_LEAF_LOC_PAIRS)
        return FusedLoc((a, b), draw(_FUSED_META))
    return draw(leaf_locs)


_LOCATIONS = _locations()


def locations() -> st.SearchStrategy:
    """Every kind of location MLIR prints, in the forms it keeps as they are
    (a fused location of two different locations; MLIR folds one into itself)."""
    return _LOCATIONS


_ARG_TYPES = st.lists(tensor_types, min_size=1, max_size=3)
_OPTIONAL_NAMES = st.one_of(st.none(), names)
_OP_COUNTS = st.integers(0, 6)
_RESULT_TYPES = st.lists(st.one_of(tensor_types, st.builds(OpaqueType, st.sampled_from(OPAQUE_TYPES))), max_size=3)
_OP_ATTRS = st.dictionaries(names, attributes(), max_size=3)
_PROPERTIES = st.one_of(st.none(), st.none(), st.builds(DictionaryAttr.from_dict, _attribute_dicts(1, 2)),
                        st.builds(ArrayAttr, st.lists(attributes(1), max_size=2)))
_OP_NAMES = st.sampled_from(["test.a", "test.b", "test.c"])
_OPTIONAL_LOCATIONS = st.one_of(st.just(None), _LOCATIONS)
_REGION_COUNTS = st.integers(1, 2)
_BLOCK_COUNTS = st.integers(1, 3)
_BLOCK_ARG_TYPES = st.lists(tensor_types, max_size=2)


@lru_cache(maxsize=None)
def _picks(n: int, min_size: int) -> st.SearchStrategy:
    """Up to three indices into a list of ``n`` (``sampled_from`` of the list
    itself would be a new strategy per list)."""
    return st.lists(st.integers(0, n - 1), min_size=min_size, max_size=3)


@st.composite
def modules(draw) -> Module:
    """A module with one `ge.graph`-shaped op of random `test.*` ops: properties,
    regions of several blocks whose terminators branch to later blocks, block
    arguments and ops with locations of every kind, opaque attributes and types."""
    module = Module()
    arg_types = draw(_ARG_TYPES)
    block = Block(arg_types, [draw(_OPTIONAL_NAMES) for _ in arg_types])
    for a in block.arguments:
        a.location = draw(_LOCATIONS)
    graph = Operation("test.graph", regions=[Region([block])],
                      attributes={"sym_name": StringAttr("g"), "function_type": TypeAttr(FunctionType(arg_types, []))})
    module.body.append(graph)
    _fill(draw, block, list(block.arguments), depth=0)
    return module


def _fill(draw, block: Block, visible: list, depth: int) -> None:
    for _ in range(draw(_OP_COUNTS)):
        operands = [visible[i] for i in draw(_picks(len(visible), 0))] if visible else []
        result_types = draw(_RESULT_TYPES)
        attrs = draw(_OP_ATTRS)
        hint = draw(_OPTIONAL_NAMES)
        props = draw(_PROPERTIES)
        op = Operation(draw(_OP_NAMES), operands, result_types, attrs, properties=props)
        loc = draw(_OPTIONAL_LOCATIONS)
        if loc is not None:
            op.location = loc
        if len(op.results) == 1:
            op.results[0].name_hint = hint
        if depth < 1 and draw(st.booleans()):
            for _ in range(draw(_REGION_COUNTS)):
                op.add_region(_region(draw, visible, depth + 1))
        block.append(op)
        visible = visible + list(op.results)


def _region(draw, visible: list, depth: int) -> Region:
    """A region of one to three blocks; each block but the last ends in a branch
    to later blocks (never to the entry block, which MLIR forbids), and later
    blocks read only their own values, so every use is dominated."""
    n = draw(_BLOCK_COUNTS)
    blocks = [Block() for _ in range(n)]
    region = Region(blocks)
    for i, b in enumerate(blocks):
        if i or draw(st.booleans()):
            for t in draw(_BLOCK_ARG_TYPES):
                b.add_argument(t, None, draw(_LOCATIONS))
        _fill(draw, b, (visible if i == 0 else []) + list(b.arguments), depth)
        if i + 1 < n:
            later = blocks[1:]
            targets = [later[j] for j in draw(_picks(len(later), 1))]
            weights = DictionaryAttr.from_dict({"weights": DenseArrayAttr(I32, tuple(range(len(targets))))})
            b.append(Operation("test.br", successors=targets, properties=weights if draw(st.booleans()) else None))
        elif n > 1:  # MLIR allows an empty block only as a region's single block
            b.append(Operation("test.ret"))
    return region
