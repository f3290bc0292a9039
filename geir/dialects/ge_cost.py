"""Cost hints of the ``ge`` dialect: FLOPs and bytes moved, from static shapes.

The emulator's cost model reads these through ``OpDef.cost``. They never raise:
an unknown dimension makes its part of the count 0. Bytes are the dense sizes
of every tensor operand and result.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from geir.dialects.ge_infer import RNN_GATES, einsum_dims
from geir.opdef import Cost, CostFn, InferContext, InferError
from geir.types import TensorType, Type

#: FLOPs per element of a transcendental function (exp, log, tanh ...) relative to an add
TRANSCENDENTAL = 4.0
#: FLOPs per element of a normalisation or softmax: statistics pass + scale pass
NORMALIZATION = 5.0


def elements(t: Type | None) -> int:
    """Elements of a static tensor; 0 for anything else (unknown counts as free)."""
    if isinstance(t, TensorType):
        return t.num_elements or 0
    return 0


def static_dims(t: Type | None) -> tuple[int, ...] | None:
    if isinstance(t, TensorType) and t.is_static:
        return t.shape  # type: ignore[return-value]
    return None


def tensor_bytes(types: Iterable[Type]) -> int:
    """Sum of the dense sizes of the static tensors among ``types``."""
    return sum(t.size_in_bytes or 0 for t in types if isinstance(t, TensorType))


def io_bytes(ctx: InferContext, results: Sequence[Type]) -> int:
    return tensor_bytes(ctx.operand_types) + tensor_bytes(results)


def _first(seq: Sequence[Type]) -> Type | None:
    return seq[0] if seq else None


def data_movement_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """Copies, reshapes, gathers, collectives without arithmetic: bytes only."""
    return Cost(0.0, io_bytes(ctx, results))


def elementwise_cost(flops_per_element: float = 1.0) -> CostFn:
    """``flops_per_element`` per element of the first result."""

    def cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
        return Cost(flops_per_element * elements(_first(results)), io_bytes(ctx, results))

    return cost


def reduction_cost(flops_per_element: float = 1.0) -> CostFn:
    """Reductions, global pooling, softmax-like ops: per element of the input."""

    def cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
        return Cost(flops_per_element * elements(_first(ctx.operand_types)), io_bytes(ctx, results))

    return cost


def pool_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """Windowed pooling: one op per window element per output (not per input: a stride-2
    pool would otherwise count four times the work)."""
    window = 1
    for k in ctx.attrs.get("kernel_shape") or ():
        window *= k
    return Cost(float(elements(_first(results)) * window), io_bytes(ctx, results))


def conv_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """``2 * N * Cout * spatial_out * (Cin / group) * prod(kernel)``; the last two are W's dims 1..."""
    return Cost(2.0 * elements(_first(results)) * _weight_fan_in(ctx, 1), io_bytes(ctx, results))


def qlinear_conv_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    return Cost(2.0 * elements(_first(results)) * _weight_fan_in(ctx, 3), io_bytes(ctx, results))


def _weight_fan_in(ctx: InferContext, index: int) -> int:
    w = static_dims(ctx.operand_types[index]) if index < len(ctx.operand_types) else None
    if w is None:
        return 0
    n = 1
    for d in w[1:]:
        n *= d
    return n


def conv_transpose_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """Each input element scatters into ``Cout / group * prod(kernel)`` outputs."""
    x = ctx.operand_types[0] if ctx.operand_types else None
    return Cost(2.0 * elements(x) * _weight_fan_in(ctx, 1), io_bytes(ctx, results))


def _contraction(t: Type | None, transposed: bool = False) -> int:
    dims = static_dims(t)
    if not dims:
        return 0
    if len(dims) == 1:
        return dims[0]
    return dims[-2] if transposed else dims[-1]


def matmul_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """``2 * batch * M * N * K``: two FLOPs per output element per contracted element."""
    k = _contraction(_first(ctx.operand_types), bool(ctx.attrs.get("transA", 0)))
    return Cost(2.0 * elements(_first(results)) * k, io_bytes(ctx, results))


def qlinear_matmul_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    k = _contraction(ctx.operand_types[0])
    return Cost(2.0 * elements(_first(results)) * k, io_bytes(ctx, results))


def gemm_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """``2 * M * N * K`` plus the bias add."""
    k = _contraction(_first(ctx.operand_types), bool(ctx.attrs.get("transA", 0)))
    out = elements(_first(results))
    bias = out if len(ctx.operand_types) > 2 else 0
    return Cost(2.0 * out * k + bias, io_bytes(ctx, results))


def einsum_cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
    """Two FLOPs per point of the full iteration space (every label and ellipsis dim)."""
    shapes = [static_dims(t) for t in ctx.operand_types]
    if any(s is None for s in shapes):
        return Cost(0.0, io_bytes(ctx, results))
    try:
        sizes, ellipsis, _ = einsum_dims(ctx.attrs["equation"], shapes)  # type: ignore[arg-type]
    except InferError:
        return Cost(0.0, io_bytes(ctx, results))
    space = 1
    for d in (*sizes.values(), *ellipsis):
        space *= d or 0
    return Cost(2.0 * space, io_bytes(ctx, results))


def recurrent_cost(kind: str) -> CostFn:
    """Per step and direction: ``2 * batch * gates * hidden * (input + hidden)``."""
    gates = RNN_GATES[kind]

    def cost(ctx: InferContext, results: Sequence[Type]) -> Cost:
        x, w = static_dims(ctx.operand_types[0]), static_dims(ctx.operand_types[1])
        flops = 0.0
        if x is not None and w is not None and len(x) == 3 and len(w) == 3:
            steps_times_batch = x[0] * x[1]
            directions, rows, inputs = w
            hidden = rows // gates
            flops = 2.0 * steps_times_batch * directions * rows * (inputs + hidden)
        return Cost(flops, io_bytes(ctx, results))

    return cost
