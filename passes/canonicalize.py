"""``canonicalize``: fold constant reshapes and transposes, remove identity ops,
and erase dead pure ops, to a fixed point."""

from __future__ import annotations

import attrs

import numpy as np

from geir.attributes import DenseElementsAttr, DenseResourceAttr
from geir.constants import constant_value
from geir.module import Module
from geir.operation import Operation
from geir.patterns import RewritePattern, apply_patterns_greedily
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import TensorType, element_type_from_numpy
from geir.passes.pass_base import ModulePass, PassContext, option

__all__ = ["Canonicalize"]

#: above this many elements a folded constant goes to a resource blob
INLINE_CONSTANT_LIMIT = 16


def _is_pure(op: Operation) -> bool:
    d = op.definition
    return d is not None and d.has_trait("pure")


class EraseDeadOp(RewritePattern):
    """A pure op whose results nobody reads is dead."""

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if not op.results or any(r.uses for r in op.results) or not _is_pure(op):
            return False
        rewriter.erase_op(op)
        return True


class RemoveIdentity(RewritePattern):
    """``ge.identity x``, and reshapes/casts/transposes that change nothing, are ``x``."""

    op_names = frozenset({"ge.identity", "ge.reshape", "ge.cast", "ge.transpose", "ge.flatten",
                          "ge.squeeze", "ge.unsqueeze", "ge.expand", "ge.dropout"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if len(op.results) != 1 or not op.operands:
            return False
        src = op.operands[0]
        if op.name != "ge.identity":
            if src.type is not op.results[0].type or not isinstance(src.type, TensorType):
                return False
            if op.name == "ge.transpose":
                perm = op.get_attr("perm")
                rank = src.type.rank or 0
                if perm is not None and list(perm) != list(range(rank)):
                    return False
        rewriter.replace_op(op, [src])
        return True


class FoldConstantLayout(RewritePattern):
    """A reshape or transpose (or squeeze/unsqueeze/flatten) of a constant is a constant."""

    op_names = frozenset({"ge.reshape", "ge.transpose", "ge.flatten", "ge.squeeze", "ge.unsqueeze"})

    def __init__(self, module: Module) -> None:
        self.module = module

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if len(op.results) != 1 or not op.operands:
            return False
        rt = op.results[0].type
        value = constant_value(op.operands[0])
        if value is None or not isinstance(rt, TensorType) or not rt.is_static:
            return False
        if any(constant_value(v) is None for v in op.operands[1:]):
            return False  # a data-dependent shape operand
        if op.name == "ge.transpose":
            perm = op.get_attr("perm")
            folded = np.transpose(value, perm if perm is not None else None)
        else:
            folded = value.reshape(rt.shape)
        folded = np.ascontiguousarray(folded)
        rewriter.set_insertion_point(InsertionPoint.before(op))
        const = rewriter.create("ge.const", (), [rt], {"value": self._attr(folded, rt, op)}, location=op.location)
        const.results[0].name_hint = op.results[0].name_hint
        rewriter.replace_op(op, [const.results[0]])
        return True

    def _attr(self, array: np.ndarray, rt: TensorType, op: Operation) -> DenseElementsAttr | DenseResourceAttr:
        flat = array.reshape(-1)
        splat = flat.size > 0 and bool(np.all(flat == flat[0]))
        if array.size <= INLINE_CONSTANT_LIMIT or splat or element_type_from_numpy(array.dtype) is not rt.element_type:
            return DenseElementsAttr(rt, np.broadcast_to(flat[0], rt.shape) if splat else array)
        src = op.operands[0].op.attributes.get("value")  # type: ignore[attr-defined]
        stem = src.blob.name if isinstance(src, DenseResourceAttr) else "folded"
        blob = self.module.add_resource(stem, array.tobytes())
        return DenseResourceAttr(rt, blob)


@attrs.define
class Canonicalize(ModulePass):
    name = "canonicalize"
    summary = "Fold constant reshapes/transposes, remove identity ops, erase dead code"

    max_iterations: int = option(1_000_000, "stop after this many rewrites")

    def run(self, module: Module, ctx: PassContext) -> None:
        ops = [op for op in module.walk() if op is not module.op]
        patterns = [FoldConstantLayout(module), RemoveIdentity(), EraseDeadOp()]
        apply_patterns_greedily(ops, patterns, self.max_iterations)
