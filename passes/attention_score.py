"""CANN's attention-score fusion on an Atlas inference chip: the score MatMul,
its scale and mask, the softmax, the MatMul by the values and the permute of
the heads back run as one ``AttentionScore`` kernel, whose scores never leave
the core.

GE's ``ZAttentionScoreFusionPass`` (canndev ``ops/built-in/fusion_pass/
graph_fusion/ai_core/attention_score_fusion_pass.cc``) rewrites
``BatchMatMulV2 -> FusedMulAdd -> SoftmaxV2 -> BatchMatMulV2 ->
ConfusionTransposeD`` into that kernel on an Ascend 310P (on a 910 only in
training, which is not modelled). Here the chain is the score MatMul with its
scale ``Mul`` and mask ``Add`` UB-fused after it (what GE's FusedMulAdd is),
then ``ge.softmax``, the second MatMul and the ``[0, 2, 1, 3]`` transpose.
The pass's inference conditions, every one checked:

* the softmax's result is f16 and 4-D, ``B x H x S x S``, with ``H`` 12 or 16
  heads, ``S`` a multiple of 32 and at most 512, and ``B x H`` a multiple of 8
  (so BERT-base's 12 heads fuse at even batches only);
* the query, the key as stored and the values have the same dims, the last of
  them 64: the key is ``B x H x S x 64`` and the MatMul reads it transposed,
  which is why the model zoo's BERT script permutes the key as the query and
  swaps its last two axes after (``fix_onnx.py``);
* the mask added is ``B x 1 x S x S`` (the script expands it to that).

``fuse-ub`` marks the chain as it marks a UB-fused one
(:mod:`geir.passes.fuse_ub`): the softmax, the second MatMul and the transpose
get ``fused_operand = 0`` and no task; the score MatMul heads the kernel, doing
the softmax's vector work (``fused_flops``) and the second MatMul's
(``fused_cube_flops``), reading the values (``fused_bytes``) and writing the
permuted context (``fused_result_bytes``). Numerics are unchanged.
"""

from __future__ import annotations

import attrs

from geir.operation import Operation, OpResult, Value
from geir.types import F16, TensorType

__all__ = ["AttentionScoreChain", "attention_score_chain", "ATTENTION_SCORE_SOC"]

#: the SoC family whose inference graphs ZAttentionScoreFusionPass rewrites
ATTENTION_SCORE_SOC = "Ascend310P"
#: the pass's shape conditions (attention_score_fusion_pass.cc)
HEADS = (12, 16)
HEAD_DIM = 64
SEQ_MULTIPLE = 32
MAX_SEQ = 512
BATCH_HEADS_MULTIPLE = 8
#: the heads' permute the ConfusionTransposeD after the second MatMul makes
CONTEXT_PERM = [0, 2, 1, 3]
MATMUL_OPS = frozenset({"ge.matmul", "ge.batch_matmul"})


@attrs.frozen
class AttentionScoreChain:
    """The ops of one attention the fusion takes, the score MatMul at its head."""

    score: Operation
    #: the mask's Add, the last op UB-fused after the score MatMul
    mask: Operation
    softmax: Operation
    #: the MatMul of the probabilities by the values
    context: Operation
    #: the permute of heads back, ``[0, 2, 1, 3]``
    permute: Operation


def attention_score_chain(softmax: Operation) -> AttentionScoreChain | None:
    """The attention around ``softmax`` when every condition of the fusion holds, else None."""
    shape = _scores_shape(softmax)
    if shape is None:
        return None
    batch, heads, seq, _ = shape
    add = _producer(softmax, 0)
    if add is None or add.name != "ge.add" or len(add.results[0].uses) != 1 or "fused_output" in add.attributes:
        return None
    mul = _fused_producer(add)
    score = _fused_producer(mul) if mul is not None and mul.name == "ge.mul" else None
    if score is None or score.name not in MATMUL_OPS or score.get_attr("transA", 0):
        return None
    if not _scale(mul) or _other_shape(add) != [batch, 1, seq, seq]:
        return None
    context = _only_reader(softmax)
    if context is None or context.name not in MATMUL_OPS or context.operands[0] is not softmax.results[0] \
            or context.get_attr("transA", 0) or context.get_attr("transB", 0):
        return None
    permute = _only_reader(context)
    if permute is None or permute.name != "ge.transpose" or permute.get_attr("perm") != CONTEXT_PERM:
        return None
    # the query, the key as stored (read transposed) and the values: one shape, 64 wide
    query, key, values = (_shape(v.type) for v in (score.operands[0], score.operands[1], context.operands[1]))
    if query != [batch, heads, seq, HEAD_DIM] or key != query or values != query or not score.get_attr("transB", 0):
        return None
    if any(op.get_attr("engine") != "AICore" for op in (score, softmax, context, permute)):
        return None
    return AttentionScoreChain(score, add, softmax, context, permute)


def _scores_shape(softmax: Operation) -> list[int] | None:
    """The softmax's ``B x H x S x S`` when its result is one the fusion takes."""
    if softmax.name != "ge.softmax" or len(softmax.results) != 1 or "fused_operand" in softmax.attributes:
        return None
    t = softmax.results[0].type
    shape = _shape(t)
    if shape is None or len(shape) != 4 or not isinstance(t, TensorType) or t.element_type != F16:
        return None
    if softmax.get_attr("axis", -1) not in (-1, 3):
        return None
    batch, heads, seq, seq2 = shape
    if heads not in HEADS or seq != seq2 or seq % SEQ_MULTIPLE or seq > MAX_SEQ \
            or (batch * heads) % BATCH_HEADS_MULTIPLE:
        return None
    return shape


def _shape(t: object) -> list[int] | None:
    if not isinstance(t, TensorType) or not t.is_static or t.shape is None:
        return None
    return [int(d) for d in t.shape]


def _producer(op: Operation, k: int) -> Operation | None:
    value = op.operands[k] if k < len(op.operands) else None
    return value.owner if isinstance(value, OpResult) else None


def _fused_producer(op: Operation | None) -> Operation | None:
    """The op ``op`` is UB-fused into, when ``op`` reads that op's only result once."""
    if op is None:
        return None
    k = op.get_attr("fused_operand")
    if not isinstance(k, int):
        return None
    producer = _producer(op, k)
    if producer is None or len(producer.results) != 1 or len(producer.results[0].uses) != 1:
        return None
    return producer


def _only_reader(op: Operation) -> Operation | None:
    """The one op that reads ``op``'s one result, when exactly one does."""
    if len(op.results) != 1 or len(op.results[0].uses) != 1:
        return None
    reader = op.results[0].uses[0].owner
    return reader if isinstance(reader, Operation) and "fused_operand" not in reader.attributes else None


def _scale(mul: Operation) -> bool:
    """Whether ``mul`` scales the scores by one number (FusedMulAdd's multiplier)."""
    other = _other_operand(mul)
    t = other.type if other is not None else None
    return isinstance(t, TensorType) and t.is_static and t.num_elements == 1


def _other_shape(add: Operation) -> list[int] | None:
    """The shape of the operand ``add`` adds to the scores (the mask)."""
    other = _other_operand(add)
    return _shape(other.type) if other is not None else None


def _other_operand(op: Operation) -> Value | None:
    """The one operand of a binary ``op`` besides the one it reads from the unified buffer."""
    k = op.get_attr("fused_operand")
    other = [v for j, v in enumerate(op.operands) if j != k]
    return other[0] if len(other) == 1 else None
