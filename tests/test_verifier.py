"""The verifier on modules built through the API (what passes produce), where the
parser's own checks have not run."""

from __future__ import annotations

import pytest

from geir.diagnostics import DiagnosticError
from geir.module import Module
from geir.operation import Block, Operation, Region
from geir.types import F32, TensorType, FunctionType
from geir.attributes import StringAttr, TypeAttr
from geir.verifier import types_compatible, verify

T = TensorType((4,), F32)


def _graph(*ops: Operation, args: int = 1) -> Module:
    block = Block([T] * args)
    for op in ops:
        block.append(op)
    m = Module()
    m.body.append(Operation("ge.graph", regions=[Region([block])],
                            attributes={"sym_name": StringAttr("g"), "function_type": TypeAttr(FunctionType([T] * args, []))}))
    return m


def test_unregistered_op_is_an_error_unless_allowed() -> None:
    m = _graph(Operation("ge.frobnicate"), Operation("ge.return"))
    with pytest.raises(DiagnosticError, match="'ge.frobnicate' op is not registered"):
        verify(m)
    verify(m, allow_unregistered=True)


def test_errors_are_collected_not_just_the_first() -> None:
    m = _graph(Operation("ge.relu"), Operation("ge.sigmoid"), Operation("ge.return"))
    with pytest.raises(DiagnosticError) as e:
        verify(m)
    assert [d.message for d in e.value.diagnostics] == [
        "'ge.relu' op expected 1 operands, but found 0", "'ge.sigmoid' op expected 1 operands, but found 0"]


def test_declared_types_may_refine_inferred_ones() -> None:
    assert types_compatible(TensorType((None, 3), F32), TensorType((2, 3), F32))
    assert types_compatible(TensorType(None, F32), TensorType((2, 3), F32))
    assert not types_compatible(TensorType((2, 3), F32), TensorType((3, 3), F32))
    assert not types_compatible(TensorType((2,), F32), TensorType((2, 1), F32))


def _nested(levels: int) -> Module:
    """A module holding ``levels`` unregistered ops, each in the one region of the one before."""
    m = Module()
    parent = m.body
    for _ in range(levels):
        block = Block()
        parent.append(Operation("t.op", regions=[Region([block])]))
        parent = block
    return m


@pytest.mark.parametrize("levels", [100, 101, 5000])
def test_regions_nest_at_most_max_region_depth(levels: int) -> None:
    """IR built in Python may nest without bound; past MAX_REGION_DEPTH the
    verifier says so once, at the op that goes past it, and does not recurse
    further (no RecursionError however deep)."""
    from geir.operation import MAX_REGION_DEPTH
    m = _nested(levels)
    if levels <= MAX_REGION_DEPTH:
        verify(m, allow_unregistered=True)
        return
    with pytest.raises(DiagnosticError) as e:
        verify(m, allow_unregistered=True)
    assert [d.message for d in e.value.diagnostics] == [
        f"'t.op' op nests regions more than {MAX_REGION_DEPTH} deep, the most geir takes"]
