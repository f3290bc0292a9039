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
  (the fused chain writes one result, as large as its head's). Such a result,
  read only by ops fused into the chain, never reaches device memory
  (:func:`stays_in_unified_buffer`): GE merges a fused chain into one node
  (FE's ``FusionGraphMerge``) before it assigns memory, so ``reuse-memory``
  gives it no arena bytes and the task list keeps it in the ``ub`` space;
* ``fused_bytes = n`` on the chain's head: the bytes the fused ops read
  besides the chain (a residual, a scale), which the one kernel streams
  while its cube computes;
* ``fused_flops = n`` on the chain's head: the fused ops' vector work, which
  the core's vector unit does on one tile while the cube multiplies the next.

An elementwise op is fused into the producer of one of its operands when the
producer is a cube op or an elementwise op on AICore, that result has this op
as its only reader, both run on AICore, the operand has the op's result shape
(the fused operand is not broadcast), and the chain stays within
``max-chain`` elementwise ops after its head.

A convolution's SiLU — ``Mul(y, Sigmoid(y))`` on the convolution's result
``y``, which those two ops alone read — runs in the convolution's kernel too
(CANN's ``TbeConvSigmoidMulFusionPass``: Conv2D whose result goes to a Sigmoid
and to the Mul that takes the Sigmoid's), though ``y`` has two readers: both
are fused, each reading ``y`` from the unified buffer (two ops of ``max-chain``),
and, as GE's pattern ends at the Mul, nothing more joins that chain.

An AIPP (``insert-aipp``) whose result only a convolution reads runs in that
convolution's kernel, converting the pixels as they load (CANN's AIPP + Conv2D
UB fusions, TbeAippCommonFusionPass and TbeAippConvReluMaxpoolingFusion): the
AIPP gets ``fused_output`` and no task time, the convolution ``aipp_input``
and reads the crop's uint8 pixels.

On the same SoC an attention runs as one AttentionScore kernel (GE's
``ZAttentionScoreFusionPass``; the pattern and its conditions are
:mod:`geir.passes.attention_score`'s): the score MatMul, its scale and mask
fused after it, the softmax, the MatMul by the values and the permute of heads
back. The softmax, the second MatMul and the permute get ``fused_operand``; the
score MatMul heads the kernel, doing the softmax's vector work
(``fused_flops``) and the second MatMul's multiplications
(``fused_cube_flops``), reading the values (``fused_bytes``) and writing the
permuted context (``fused_result_bytes``).

A max pooling joins the chain of a ResNet-style first convolution on an
Atlas inference device (``device`` whose SoC is an Ascend 310P), as CANN's
``TbeAippConvReluMaxpoolingFusion`` fuses Conv2D + Relu/LeakyRelu + MaxPoolV3
(what ATC makes of an ONNX MaxPool), under the conditions its UB fusion
reference lists for MaxPoolV3: the convolution reads a 3 x 224 x 224 image in
the C04 layout (``small_channel``) with a 7 x 7 kernel, pads 3, strides 2, no
dilation, one group and 1 to 96 output channels; the pooling has a 3 x 3
window, strides 2, pads 1 and no ceil mode; at most one ReLU or LeakyReLU lies
between them, after at most an inference batch norm (which GE's
ConvBatchnormFusionPass folds into the convolution first). The pooled result
is what the one kernel writes: ``fused_result_bytes`` on the head says how many
bytes that is, and the pooling's work joins the head's ``fused_flops``. Remarks
say what was fused (``ge-opt -Rpass=fuse-ub``), and which elementwise op a
reshape keeps from its cube op's chain: GE's ReshapeRecoveryPass puts back a
reshape whose two sides' shapes differ before UB fusion, whose matcher joins
adjacent ops only (transformers' Conv1D writes Gemm, Reshape, then its GELU).
"""

from __future__ import annotations

from typing import Sequence

import attrs

from geir.attributes import IntegerAttr, UnitAttr
from geir.backends.cost_model import has_device_task
from geir.backends.device_profile import load_profile
from geir.module import Module
from geir.opdef import op_cost
from geir.operation import Operation, OpResult, Value
from geir.passes.attention_score import ATTENTION_SCORE_SOC, attention_score_chain
from geir.passes.memory.concat_slices import VIEW_OPS
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.types import TensorType

__all__ = ["FuseUB", "ELEMENTWISE_OPS", "HEAD_OPS", "POOL_CHAIN_OPS", "stays_in_unified_buffer", "fused_into",
           "runs_as_task", "chain_heads", "op_engine"]

#: elementwise ops CANN's buffer fusion takes into a chain
ELEMENTWISE_OPS = frozenset({
    "ge.relu", "ge.leaky_relu", "ge.prelu", "ge.sigmoid", "ge.hard_sigmoid", "ge.hard_swish", "ge.swish", "ge.tanh",
    "ge.clip", "ge.elu", "ge.selu", "ge.celu", "ge.gelu", "ge.mish", "ge.softplus", "ge.add", "ge.sub", "ge.mul",
    "ge.div", "ge.max", "ge.min", "ge.abs", "ge.neg", "ge.exp", "ge.sqrt", "ge.reciprocal", "ge.cast",
    "ge.batch_norm",
})
#: the cube ops that may head a fused chain (their output passes through the
#: vector unit on its way out)
CUBE_HEAD_OPS = frozenset({"ge.conv2d", "ge.matmul", "ge.gemm", "ge.batch_matmul"})
#: ops that may head a fused chain: the cube ops and the elementwise ops themselves
HEAD_OPS = CUBE_HEAD_OPS | ELEMENTWISE_OPS
#: the activations TbeAippConvReluMaxpoolingFusion allows between the convolution and the pooling
POOL_CHAIN_OPS = frozenset({"ge.relu", "ge.leaky_relu"})
#: the SoC family whose MaxPoolV3 TbeAippConvReluMaxpoolingFusion fuses (Atlas inference cards)
POOL_FUSION_SOC = "Ascend310P"


def stays_in_unified_buffer(value: Value) -> bool:
    """Whether ``value`` never leaves the unified buffer: the result of an op
    marked ``fused_output`` whose every reader is fused into the same chain."""
    if not isinstance(value, OpResult) or "fused_output" not in value.op.attributes or not value.uses:
        return False
    return all("fused_operand" in use.owner.attributes for use in value.uses)


def fused_into(op: Operation) -> Operation | None:
    """The op ``op`` is fused into (the producer of its ``fused_operand``), or None."""
    k = op.get_attr("fused_operand")
    if not isinstance(k, int) or not 0 <= k < len(op.operands):
        return None
    producer = op.operands[k]
    return producer.op if isinstance(producer, OpResult) else None


def chain_heads(ops: Sequence[Operation]) -> list[int]:
    """For each of ``ops`` (each after the op it is fused into, as in block
    order): the index of its UB-fused chain's head among ``ops``, or -1 when it
    is fused into none of them."""
    index = {id(op): i for i, op in enumerate(ops)}
    heads = [-1] * len(ops)
    for i, op in enumerate(ops):
        producer = fused_into(op)
        j = index.get(id(producer), -1) if producer is not None else -1
        if j >= 0:
            heads[i] = heads[j] if heads[j] >= 0 else j
    return heads


def op_engine(op: Operation) -> str:
    """The engine ``op`` runs on: its ``engine`` attribute, else its definition's default."""
    engine = op.get_attr("engine")
    if engine is None and op.definition is not None:
        engine = op.definition.engine
    return str(engine or "")


def runs_as_task(op: Operation) -> bool:
    """Whether GE gives ``op`` a device task of its own: not an op fused into its
    chain's head, a reshape, or a concat or split laid out in place
    (:func:`~geir.backends.cost_model.has_device_task`, on the op's engine and its
    first result's static shape)."""
    first = op.results[0].type if op.results else None
    return has_device_task(op.name, op_engine(op), op.attributes,
                           first.shape if isinstance(first, TensorType) and first.is_static else None)


@attrs.define
class FuseUB(ModulePass):
    name = "fuse-ub"
    summary = "mark the elementwise ops GE fuses into the AICore op whose result they consume (UB fusion)"

    max_chain: int = option(4, "most elementwise ops fused after a chain's head")
    device: str = option("910B2", "device profile: on an Atlas inference SoC (Ascend 310P) a ResNet-style "
                                  "first convolution's max pooling joins its chain, and an attention runs as one "
                                  "AttentionScore kernel")

    def run(self, module: Module, ctx: PassContext) -> None:
        soc = load_profile(self.device).short_soc
        fuse_pools = soc == POOL_FUSION_SOC
        for graph in module.graphs():
            #: elementwise ops already fused after each chain's head, by producer op
            depth: dict[int, int] = {}
            #: the head of the chain each fused op belongs to
            head: dict[int, Operation] = {}
            for op in graph.regions[0].blocks[0].ops:
                if op.name == "ge.conv2d" and op_engine(op) == "AICore":
                    self._fuse_aipp(op, ctx)
                if op.name == "ge.max_pool" and fuse_pools and "fused_operand" not in op.attributes \
                        and op_engine(op) == "AICore":
                    self._fuse_pool(op, head, ctx)
                    continue
                if op.name not in ELEMENTWISE_OPS or "fused_operand" in op.attributes or op_engine(op) != "AICore":
                    continue
                if op.name == "ge.sigmoid" and self.max_chain >= 2:
                    mul = _fuse_silu(op, ctx)
                    if mul is not None:
                        # GE's pattern ends at the Mul: nothing more joins this chain
                        depth[id(mul)] = self.max_chain
                        continue
                k = self._fusible_operand(op, depth)
                if k is None:
                    _remark_reshape_between(op, ctx)
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
                    _accumulate(chain_head, "fused_bytes", extra)
                _accumulate(chain_head, "fused_flops", op_cost(op).flops)
                ctx.remark(op, f"fused into '{producer.name}' (UB fusion): operand #{k} stays in the unified buffer")
            if soc == ATTENTION_SCORE_SOC:
                for op in graph.regions[0].blocks[0].ops:
                    if op.name == "ge.softmax":
                        _fuse_attention_score(op, ctx)

    @staticmethod
    def _fuse_aipp(conv: Operation, ctx: PassContext) -> None:
        """The AIPP whose only reader is ``conv``'s image runs in its load path."""
        value = conv.operands[0] if conv.operands else None
        if not isinstance(value, OpResult) or value.owner.name != "ge.aipp" or len(value.uses) != 1 \
                or op_engine(value.owner) != "AICore":
            return
        value.owner.attributes["fused_output"] = UnitAttr()
        conv.attributes["aipp_input"] = UnitAttr()
        ctx.remark(value.owner, "fused into 'ge.conv2d' (UB fusion, AIPP + convolution): the convolution reads "
                                "the uint8 image")

    @staticmethod
    def _fuse_pool(pool: Operation, head: dict[int, Operation], ctx: PassContext) -> None:
        """Fuse ``pool`` after a ResNet-style first convolution, its batch norm
        and one ReLU (TbeAippConvReluMaxpoolingFusion) when every condition holds."""
        value = pool.operands[0] if pool.operands else None
        if not isinstance(value, OpResult) or len(value.uses) != 1 or len(pool.results) != 1:
            return
        producer = value.owner
        if "fused_output" in producer.attributes or op_engine(producer) != "AICore":
            return
        conv = head.get(id(producer), producer)
        if not _pool_chain(producer, conv):
            return
        if conv.name != "ge.conv2d" or not _fusible_conv(conv) or not _fusible_pool(pool):
            return
        written = pool.results[0].type.size_in_bytes if isinstance(pool.results[0].type, TensorType) else None
        if written is None:
            return
        producer.attributes["fused_output"] = UnitAttr()
        pool.attributes["fused_operand"] = IntegerAttr(0)
        conv.attributes["fused_result_bytes"] = IntegerAttr(written)
        _accumulate(conv, "fused_flops", op_cost(pool).flops)
        ctx.remark(pool, f"fused into '{producer.name}' (UB fusion, conv + relu + max pool): the chain writes "
                         f"the pooled result")

    def _fusible_operand(self, op: Operation, depth: dict[int, int]) -> int | None:
        result = op.results[0].type if op.results else None
        for k, value in enumerate(op.operands):
            if not isinstance(value, OpResult):
                continue
            producer = value.owner
            if producer.name not in HEAD_OPS or op_engine(producer) != "AICore" or len(producer.results) != 1:
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


def _fuse_silu(sigmoid: Operation, ctx: PassContext) -> Operation | None:
    """Fuse ``sigmoid`` and the Mul of its result by its own operand into the
    convolution that computes that operand, when those two are its only readers
    (TbeConvSigmoidMulFusionPass); the Mul, or None."""
    value = sigmoid.operands[0] if sigmoid.operands else None
    if not isinstance(value, OpResult) or len(value.uses) != 2 or len(sigmoid.results) != 1:
        return None
    conv = value.owner
    if conv.name != "ge.conv2d" or op_engine(conv) != "AICore" or "fused_output" in conv.attributes:
        return None
    gate = sigmoid.results[0]
    mul = next((use.owner for use in value.uses if use.owner is not sigmoid), None)
    if mul is None or mul.name != "ge.mul" or op_engine(mul) != "AICore" or len(gate.uses) != 1 \
            or gate.uses[0].owner is not mul or {id(v) for v in mul.operands} != {id(value), id(gate)}:
        return None
    conv.attributes["fused_output"] = UnitAttr()
    sigmoid.attributes["fused_output"] = UnitAttr()
    sigmoid.attributes["fused_operand"] = IntegerAttr(0)
    mul.attributes["fused_operand"] = IntegerAttr(mul.operands.index(gate))
    _accumulate(conv, "fused_flops", op_cost(sigmoid).flops + op_cost(mul).flops)
    ctx.remark(sigmoid, "fused into 'ge.conv2d' with the Mul that takes it (UB fusion, conv + sigmoid + mul): "
                        "the convolution's result stays in the unified buffer")
    return mul


def _fuse_attention_score(softmax: Operation, ctx: PassContext) -> None:
    """Mark ``softmax``'s attention as one AttentionScore kernel headed by its
    score MatMul, when the fusion takes it (:mod:`geir.passes.attention_score`)."""
    chain = attention_score_chain(softmax)
    if chain is None:
        return
    chain.mask.attributes["fused_output"] = UnitAttr()
    for op in (softmax, chain.context):
        op.attributes["fused_operand"] = IntegerAttr(0)
        op.attributes["fused_output"] = UnitAttr()
    chain.permute.attributes["fused_operand"] = IntegerAttr(0)
    _accumulate(chain.score, "fused_flops", op_cost(softmax).flops)
    _accumulate(chain.score, "fused_cube_flops", op_cost(chain.context).flops)
    values = chain.context.operands[1].type
    _accumulate(chain.score, "fused_bytes", (values.size_in_bytes or 0) if isinstance(values, TensorType) else 0)
    written = chain.permute.results[0].type
    if isinstance(written, TensorType) and written.size_in_bytes:
        chain.score.attributes["fused_result_bytes"] = IntegerAttr(written.size_in_bytes)
    ctx.remark(softmax, f"fused with '{chain.score.name}', its scale and mask, the MatMul by the values and the "
                        "permute of heads into one AttentionScore kernel (ZAttentionScoreFusionPass): the scores "
                        "stay in the core")


def _accumulate(head: Operation, name: str, amount: float) -> None:
    """Add ``amount`` to the integer attribute ``name`` of a chain's ``head`` (none when it stays 0)."""
    total = int(head.get_attr(name, 0) or 0) + int(amount)
    if total:
        head.attributes[name] = IntegerAttr(total)


def _pool_chain(producer: Operation, conv: Operation) -> bool:
    """The ops fused between ``conv`` and the pooling, ``producer`` last, are
    at most an inference batch norm (which GE's ConvBatchnormFusionPass folds
    into the convolution before UB fusion) and then one ReLU or LeakyReLU."""
    chain: list[str] = []
    op = producer
    while op is not conv:
        k = op.get_attr("fused_operand")
        if not isinstance(k, int) or len(chain) >= 2:
            return False
        chain.append(op.name)
        owner = op.operands[k].owner
        if not isinstance(owner, Operation):
            return False
        op = owner
    chain.reverse()
    if chain and chain[0] == "ge.batch_norm":
        chain.pop(0)
    return len(chain) <= 1 and all(name in POOL_CHAIN_OPS for name in chain)


def _ints(op: Operation, name: str, default: list[int]) -> list[int] | None:
    value = op.get_attr(name)
    if value is None:
        return default
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return list(value)
    return None


def _fusible_conv(conv: Operation) -> bool:
    """The convolution of TbeAippConvReluMaxpoolingFusion's MaxPoolV3 case: a
    small-channel 3 x 224 x 224 image, a 7 x 7 kernel with 1 to 96 outputs,
    pads 3, strides 2, no dilation, one group."""
    if "small_channel" not in conv.attributes or len(conv.operands) < 2:
        return False
    x, w = conv.operands[0].type, conv.operands[1].type
    if not isinstance(x, TensorType) or not isinstance(w, TensorType) or x.shape is None or w.shape is None:
        return False
    if len(x.shape) != 4 or tuple(x.shape[1:]) != (3, 224, 224) or len(w.shape) != 4:
        return False
    cout = w.shape[0]
    return (isinstance(cout, int) and 1 <= cout <= 96 and tuple(w.shape[1:]) == (3, 7, 7)
            and _ints(conv, "pads", [0, 0, 0, 0]) == [3, 3, 3, 3] and _ints(conv, "strides", [1, 1]) == [2, 2]
            and _ints(conv, "dilations", [1, 1]) == [1, 1] and conv.get_attr("group", 1) == 1
            and conv.get_attr("auto_pad", "NOTSET") == "NOTSET")


def _fusible_pool(pool: Operation) -> bool:
    """The MaxPoolV3 of the same rule: a 3 x 3 window, strides 2, pads 1, no ceil mode."""
    return (_ints(pool, "kernel_shape", []) == [3, 3] and _ints(pool, "strides", [1, 1]) == [2, 2]
            and _ints(pool, "pads", [0, 0, 0, 0]) == [1, 1, 1, 1] and not pool.get_attr("ceil_mode", 0)
            and _ints(pool, "dilations", [1, 1]) == [1, 1] and pool.get_attr("auto_pad", "NOTSET") == "NOTSET")


def _remark_reshape_between(op: Operation, ctx: PassContext) -> None:
    """Say so when ``op`` would join a cube op's chain but for a reshape between
    them (transformers' Conv1D writes Gemm, Reshape, then its GELU or residual
    Add): GE's ReshapeRecoveryPass puts back a reshape whose two sides' shapes
    differ before UB fusion, whose matcher joins adjacent ops only."""
    for value in op.operands:
        if not isinstance(value, OpResult) or value.owner.name not in VIEW_OPS or len(value.uses) != 1:
            continue
        reshape = value.owner
        source = reshape.operands[0] if reshape.operands else None
        if isinstance(source, OpResult) and source.owner.name in CUBE_HEAD_OPS and len(source.uses) == 1 \
                and op_engine(source.owner) == "AICore":
            ctx.remark(op, f"not fused into '{source.owner.name}': the '{reshape.name}' between them stays "
                           "(GE's ReshapeRecoveryPass keeps a reshape whose sides' shapes differ; UB fusion joins "
                           "adjacent ops only)")
            return
