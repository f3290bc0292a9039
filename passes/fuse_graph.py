"""``fuse-graph``: GE's graph fusion — subgraphs that exporters spell op by op
become the one op CANN has a kernel for, before engines and streams are chosen.

ATC runs graph fusion passes on a parsed model before anything else; their
effect on time is large where an exporter decomposes an activation. The
patterns here:

* **GELU, erf form** (PyTorch's ``nn.GELU`` exported before opset 20):
  ``Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)``, in any operand order,
  becomes ``ge.gelu x`` — five kernels, three of them streaming a full
  activation, become one. The intermediate ops go when nothing else reads them.

Remarks say what was fused (``ge-opt -Rpass=fuse-graph``).
"""

from __future__ import annotations

import math

import attrs

from geir.constants import constant_value
from geir.module import Module
from geir.operation import Operation, OpResult, Value
from geir.passes.pass_base import ModulePass, PassContext
from geir.patterns import RewritePattern, apply_patterns_greedily
from geir.rewriter import Rewriter

__all__ = ["FuseGraph", "GeluFusion"]

#: relative tolerance when matching a pattern's constants (they may be f16)
_RTOL = 1e-3


def _scalar(value: Value, expected: float) -> bool:
    """Whether ``value`` is a constant whose every element is ``expected``."""
    array = constant_value(value)
    if array is None or array.size == 0:
        return False
    try:
        flat = array.reshape(-1).astype(float)
    except (TypeError, ValueError):
        return False
    return bool(all(math.isclose(v, expected, rel_tol=_RTOL) for v in flat))


def _producer(value: Value, name: str) -> Operation | None:
    if isinstance(value, OpResult) and value.op.name == name:
        return value.op
    return None


def _split(op: Operation, constant: float) -> Value | None:
    """The operand of binary ``op`` that is not the constant ``constant`` (either side)."""
    a, b = op.operands[0], op.operands[1]
    if _scalar(b, constant):
        return a
    if _scalar(a, constant):
        return b
    return None


@attrs.define
class GeluFusion(RewritePattern):
    """``x * (1 + erf(x / sqrt 2)) * 0.5`` (any operand order) is ``gelu(x)``."""

    ctx: PassContext
    op_names = frozenset({"ge.mul"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if len(op.operands) != 2:
            return False
        inner_value = _split(op, 0.5)
        inner = _producer(inner_value, "ge.mul") if inner_value is not None else None
        if inner is None:
            return False
        for x, rest in ((inner.operands[0], inner.operands[1]), (inner.operands[1], inner.operands[0])):
            add = _producer(rest, "ge.add")
            erf_value = _split(add, 1.0) if add is not None else None
            erf = _producer(erf_value, "ge.erf") if erf_value is not None else None
            div = _producer(erf.operands[0], "ge.div") if erf is not None else None
            if div is None or div.operands[0] is not x or not _scalar(div.operands[1], math.sqrt(2.0)):
                continue
            if x.type is not op.results[0].type:
                return False
            gelu = Operation("ge.gelu", [x], [op.results[0].type], location=op.location,
                             result_names=[op.results[0].name_hint])
            rewriter.insert_before(op, gelu)
            rewriter.replace_op(op, gelu.results)
            for dead in (inner, add, erf, div):
                if not any(r.uses for r in dead.results):
                    rewriter.erase_op(dead)
            self.ctx.remark(gelu, "fused the erf form of GELU (Div, Erf, Add, Mul, Mul) into 'ge.gelu'")
            return True
        return False


@attrs.define
class FuseGraph(ModulePass):
    name = "fuse-graph"
    summary = "GE's graph fusion: rewrite op-by-op spellings of an activation into the one op CANN runs (GELU)"

    def run(self, module: Module, ctx: PassContext) -> None:
        for graph in module.graphs():
            apply_patterns_greedily(list(graph.regions[0].blocks[0].ops), [GeluFusion(ctx)])
