"""``fuse-ub``: GE's UB (unified buffer) fusion — an AICore op and the
elementwise ops that consume its result run as one kernel, the intermediate
tensor never leaving the core's unified buffer.

GE fuses before it assigns streams: a convolution or matrix product followed
by its activation and residual add (CANN's conv/matmul + elementwise buffer
fusion), and chains of elementwise ops, become one kernel launch. The pass
marks what GE would fuse rather than merging ops, so numerics, streams and
lowering see the same graph; the cost model reads the marks:

* ``fused_operand = k`` on the consumer: its operand ``k`` is read from the
  unified buffer of the op it is fused into; the consumer has no launch and
  no memory traffic of its own, only its vector work;
* ``fused_output`` on the producer: its result stays in the unified buffer
  (the fused chain writes one result, as large as its head's);
* ``fused_bytes = n`` on the chain's head: the bytes the fused ops read
  besides the chain (a residual, a scale), which the one kernel streams
  while its cube computes.

An elementwise op is fused into the producer of one of its operands when the
producer is a cube op or an elementwise op on AICore, that result has this op
as its only reader, both run on AICore, the operand has the op's result shape
(the fused operand is not broadcast), and the chain stays within
``max-chain`` elementwise ops after its head. Remarks say what was fused
(``ge-opt -Rpass=fuse-ub``).
"""

from __future__ import annotations

import attrs

from geir.attributes import IntegerAttr, UnitAttr
from geir.module import Module
from geir.operation import Operation, OpResult
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.types import TensorType

__all__ = ["FuseUB", "ELEMENTWISE_OPS", "HEAD_OPS"]

#: elementwise ops CANN's buffer fusion takes into a chain
ELEMENTWISE_OPS = frozenset({
    "ge.relu", "ge.leaky_relu", "ge.prelu", "ge.sigmoid", "ge.hard_sigmoid", "ge.hard_swish", "ge.swish", "ge.tanh",
    "ge.clip", "ge.elu", "ge.selu", "ge.celu", "ge.gelu", "ge.mish", "ge.softplus", "ge.add", "ge.sub", "ge.mul",
    "ge.div", "ge.max", "ge.min", "ge.abs", "ge.neg", "ge.exp", "ge.sqrt", "ge.reciprocal", "ge.cast",
    "ge.batch_norm",
})
#: ops that may head a fused chain: the cube ops (their output passes through the
#: vector unit on its way out) and the elementwise ops themselves
HEAD_OPS = frozenset({"ge.conv2d", "ge.matmul", "ge.gemm", "ge.batch_matmul"}) | ELEMENTWISE_OPS


def _engine(op: Operation) -> str:
    engine = op.get_attr("engine")
    if engine is None and op.definition is not None:
        engine = op.definition.engine
    return str(engine or "")


@attrs.define
class FuseUB(ModulePass):
    name = "fuse-ub"
    summary = "mark the elementwise ops GE fuses into the AICore op whose result they consume (UB fusion)"

    max_chain: int = option(4, "most elementwise ops fused after a chain's head")

    def run(self, module: Module, ctx: PassContext) -> None:
        for graph in module.graphs():
            #: elementwise ops already fused after each chain's head, by producer op
            depth: dict[int, int] = {}
            #: the head of the chain each fused op belongs to
            head: dict[int, Operation] = {}
            for op in graph.regions[0].blocks[0].ops:
                if op.name not in ELEMENTWISE_OPS or "fused_operand" in op.attributes or _engine(op) != "AICore":
                    continue
                k = self._fusible_operand(op, depth)
                if k is None:
                    continue
                producer = op.operands[k].owner
                assert isinstance(producer, Operation)
                producer.attributes["fused_output"] = UnitAttr()
                op.attributes["fused_operand"] = IntegerAttr(k)
                depth[id(op)] = depth.get(id(producer), 0) + 1
                chain_head = head[id(op)] = head.get(id(producer), producer)
                extra = sum(v.type.size_in_bytes or 0 for j, v in enumerate(op.operands)
                            if j != k and isinstance(v.type, TensorType))
                if extra:
                    before = chain_head.get_attr("fused_bytes", 0)
                    chain_head.attributes["fused_bytes"] = IntegerAttr(int(before or 0) + extra)
                ctx.remark(op, f"fused into '{producer.name}' (UB fusion): operand #{k} stays in the unified buffer")

    def _fusible_operand(self, op: Operation, depth: dict[int, int]) -> int | None:
        result = op.results[0].type if op.results else None
        for k, value in enumerate(op.operands):
            if not isinstance(value, OpResult):
                continue
            producer = value.owner
            if producer.name not in HEAD_OPS or _engine(producer) != "AICore" or len(producer.results) != 1:
                continue
            if "fused_output" in producer.attributes or len(value.uses) != 1:
                continue
            if depth.get(id(producer), 0) >= self.max_chain:
                continue
            if not isinstance(value.type, TensorType) or not isinstance(result, TensorType) \
                    or value.type.shape != result.shape:
                continue
            return k
        return None
