"""``cse``: common-subexpression elimination of pure ops, scoped by region
nesting (a value defined in an outer region is visible in inner ones)."""

from __future__ import annotations

import attrs

from collections import ChainMap
from typing import Hashable

from geir.module import Module
from geir.operation import Operation, Region
from geir.rewriter import Rewriter
from geir.passes.pass_base import ModulePass, PassContext

__all__ = ["CSE"]


def _key(op: Operation) -> Hashable | None:
    d = op.definition
    if d is None or not d.has_trait("pure") or op.regions or not op.results:
        return None
    operands = tuple(id(v) for v in op.operands)
    if d.has_trait("commutative"):
        operands = tuple(sorted(operands))
    try:
        attrs = tuple(sorted(op.attributes.items()))
        key = (op.name, operands, attrs, tuple(r.type for r in op.results))
        hash(key)
    except TypeError:
        return None
    return key


@attrs.define
class CSE(ModulePass):
    name = "cse"
    summary = "Eliminate common sub-expressions among pure ops"

    def run(self, module: Module, ctx: PassContext) -> None:
        rewriter = Rewriter()
        for region in module.op.regions:
            self._region(region, ChainMap(), rewriter)

    def _region(self, region: Region, scope: ChainMap, rewriter: Rewriter) -> None:
        for block in region.blocks:
            local = scope.new_child()
            for op in block.ops:
                key = _key(op)
                if key is not None:
                    existing = local.get(key)
                    if existing is not None:
                        rewriter.replace_op(op, existing.results)
                        continue
                    local[key] = op
                for r in op.regions:
                    # Isolated ops (graphs) see nothing of their parent's values.
                    d = op.definition
                    isolated = d is not None and d.has_trait("isolated")
                    self._region(r, ChainMap() if isolated else local, rewriter)
