"""``fuse-graph``: GE's graph fusion — subgraphs that exporters spell op by op
become the one op CANN has a kernel for, before engines and streams are chosen.

ATC runs graph fusion passes on a parsed model before anything else; their
effect on time is large where an exporter decomposes an activation. The
patterns here:

* **GELU, erf form** (GE's ``GeluONNXFusionPass``; PyTorch's ``nn.GELU``
  exported before opset 20): ``Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)``,
  or the half taken of ``x`` first, in any operand order, becomes ``ge.gelu x``
  — five kernels, three of them streaming a full activation, become one. The
  intermediate ops go when nothing else reads them.
* **GELU, tanh form** (GE's ``GeluFusionPass``; GPT-2's ``gelu_new``,
  ``nn.GELU(approximate="tanh")`` before opset 20):
  ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` — Pow, Mul, Add, Mul,
  Tanh, Add and the two Muls, the half taken of ``x`` or of the sum — becomes
  ``ge.gelu x {approximate = "tanh"}``: eight kernels become one.
* **LayerNorm** (GE's ``LayerNormONNXFusionPass``; PyTorch's ``nn.LayerNorm``
  exported before opset 17, which has no LayerNormalization):
  ``ReduceMean -> Sub -> [Cast ->] Pow 2 -> ReduceMean -> Add eps -> Sqrt -> Div``,
  then ``Mul`` by a constant gamma and ``Add`` of a constant beta when both
  follow, becomes ``ge.layer_norm`` — eight to eleven ops become one. As the
  pass's constraints have it (canndev ``layer_norm_onnx_fusion_pass.cpp``, its
  documentation in hicann/ops-nn): the means keep their dims and reduce
  consecutive axes that end at the last, epsilon is a scalar of at most 0.1,
  gamma and beta have the normalized dims' shape, no intermediate is read
  elsewhere, and a normalized dim of unknown size leaves the ops as they are.
  Without gamma and beta, the scale is ones (GE inserts ``Mul`` by 1 and
  ``Add`` of 0 and fuses those).
* **Average pooling on the cube** (``AvgPoolV2FusionPass``, which the 2-D
  ONNX AveragePool becomes): a window pooling that is not global becomes a
  depthwise convolution (``group`` = channels) with an assist filter — every
  weight ``1 / (kh x kw)`` when each window averages over its full size, else
  ones followed by a ``ge.mul`` by each output position's ``1 / count``
  (``count_include_pad = 0`` with pads, or a ceil-mode window that hangs over
  the end). GE leaves a global pooling, a window over 255 on a side or a
  stride over 63 on the vector path, as here; so too a dynamic shape, a
  dilation or a non-float input. GE's coefficient tensor has the output's full
  shape; here it is ``1 x 1 x Ho x Wo`` and broadcast, the same numbers.

* **A Transpose into its MatMul** (GE's ``BatchMatMulFusionPass``, on by
  default): a Transpose that swaps only the last two axes (its leading axes in
  place), read by nothing but one operand of a ``ge.matmul`` or
  ``ge.batch_matmul``, f16, bf16 or f32, goes; the MatMul reads its input
  with ``transA`` / ``transB`` (GE's ``adj_x1`` / ``adj_x2``) toggled, as the
  cube loads a transposed operand without a kernel that writes one.
  Attention's ``q @ k.transpose(-2, -1)`` loses its transpose this way; a
  permute of heads (``[0, 2, 1, 3]``, ``[0, 2, 3, 1]``) does not match.

Remarks say what was fused (``ge-opt -Rpass=fuse-graph``). An ONNX QDQ model
(QuantizeLinear and DequantizeLinear around its convolutions and matrix
products) gets one warning: ATC does not convert it as it is, but after AMCT's
``convert_qat_model`` has made each such layer an AscendQuant, int8 weights and
an AscendDequant, which is not modelled; its pairs run as written.
"""

from __future__ import annotations

import math

import attrs
import numpy as np

from geir.attributes import ArrayAttr, Attribute, DenseElementsAttr, FloatAttr, IntegerAttr, StringAttr
from geir.backends.kernels.window import SAME_PADDINGS, Window, window_counts, window_for
from geir.constants import CONSTANT_OPS, constant_axes, constant_value
from geir.dialects.ge_infer import transpose_perm
from geir.module import Module
from geir.operation import Operation, OpResult, Value
from geir.passes.pass_base import ModulePass, PassContext
from geir.patterns import RewritePattern, apply_patterns_greedily
from geir.rewriter import Rewriter
from geir.types import F32, TensorType

__all__ = ["AvgPoolFusion", "FuseGraph", "GeluFusion", "GeluTanhFusion", "LayerNormFusion", "TransposeMatMulFusion"]

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


def _replace_with_gelu(op: Operation, x: Value, decomposed: tuple[Operation, ...], rewriter: Rewriter,
                       ctx: PassContext, attributes: dict[str, Attribute], remark: str) -> None:
    """Replace ``op``, the last op of a GELU spelled op by op on ``x``, with one
    ``ge.gelu``; erase the ``decomposed`` ops nothing else reads."""
    gelu = Operation("ge.gelu", [x], [op.results[0].type], attributes, location=op.location,
                     result_names=[op.results[0].name_hint])
    rewriter.insert_before(op, gelu)
    rewriter.replace_op(op, gelu.results)
    for dead in decomposed:
        if not any(r.uses for r in dead.results):
            rewriter.erase_op(dead)
    ctx.remark(gelu, remark)


def _gelu_splits(op: Operation, half_of_sum: bool) -> list[tuple[Value, Value, Operation]]:
    """(x, the ``1 + ...`` sum, the op that takes the half) for each way ``op`` may be
    GELU's last Mul: ``(x * sum) * 0.5``, ``(x * 0.5) * sum`` and, when
    ``half_of_sum``, ``x * (sum * 0.5)``; each Mul's operands in either order."""
    found = []
    a, b = op.operands
    for this, other in ((a, b), (b, a)):
        inner = _producer(this, "ge.mul")
        halved = _split(inner, 0.5) if inner is not None else None
        if halved is not None:
            found.append((halved, other, inner))  # (x * 0.5) * sum
            if half_of_sum:
                found.append((other, halved, inner))  # x * (sum * 0.5)
    product = _split(op, 0.5)
    inner = _producer(product, "ge.mul") if product is not None else None
    if inner is not None:  # (x * sum) * 0.5
        p, q = inner.operands
        found += [(p, q, inner), (q, p, inner)]
    return found


def _erf_gelu_input(sum_: Value) -> tuple[Value, tuple[Operation, ...]] | None:
    """``x`` and the ops of ``1 + erf(x / sqrt 2)`` when ``sum_`` is that."""
    add = _producer(sum_, "ge.add")
    erf_value = _split(add, 1.0) if add is not None else None
    erf = _producer(erf_value, "ge.erf") if erf_value is not None else None
    div = _producer(erf.operands[0], "ge.div") if erf is not None else None
    if div is None or not _scalar(div.operands[1], math.sqrt(2.0)):
        return None
    return div.operands[0], (add, erf, div)


@attrs.define
class GeluFusion(RewritePattern):
    """``x * (1 + erf(x / sqrt 2)) * 0.5`` is ``gelu(x)``: GE's ``GeluONNXFusionPass``,
    whose two patterns take the half of the product (``(x * sum) * 0.5``, as
    PyTorch exports ``nn.GELU``) or of ``x`` (``(x * 0.5) * sum``, as a hand-written
    ``x * 0.5 * (1 + erf(...))`` exports); each Mul's operands in either order."""

    ctx: PassContext
    op_names = frozenset({"ge.mul"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if len(op.operands) != 2:
            return False
        for x, sum_, half in _gelu_splits(op, half_of_sum=False):
            fused = _erf_gelu_input(sum_)
            if fused is None or fused[0] is not x or x.type is not op.results[0].type:
                continue
            _replace_with_gelu(op, x, (half, *fused[1]), rewriter, self.ctx, {},
                               "fused the erf form of GELU (Div, Erf, Add, Mul, Mul) into 'ge.gelu'")
            return True
        return False


@attrs.define
class GeluTanhFusion(RewritePattern):
    """``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` is ``gelu(x)`` with
    ``approximate = "tanh"``: GE's ``GeluFusionPass``, whose two patterns take the
    half of the sum (``x * ((1 + tanh) * 0.5)``) or of ``x`` (``(x * 0.5) * (1 + tanh)``);
    the erf form's order (``(x * (1 + tanh)) * 0.5``) too, as ``GeluFusion`` takes it."""

    ctx: PassContext
    op_names = frozenset({"ge.mul"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if len(op.operands) != 2:
            return False
        for x, sum_, half in _gelu_splits(op, half_of_sum=True):
            fused = _tanh_gelu_input(sum_)
            if fused is None or fused[0] is not x or x.type is not op.results[0].type:
                continue
            _replace_with_gelu(op, x, (half, *fused[1]), rewriter, self.ctx, {"approximate": StringAttr("tanh")},
                               "fused the tanh form of GELU (Pow, Mul, Add, Mul, Tanh, Add, Mul, Mul) into "
                               "'ge.gelu' (approximate = \"tanh\")")
            return True
        return False


#: the constants of GELU's tanh approximation
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_CUBIC = 0.044715


def _tanh_gelu_input(sum_: Value) -> tuple[Value, tuple[Operation, ...]] | None:
    """``x`` and the ops of ``1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))`` when ``sum_`` is that."""
    add1 = _producer(sum_, "ge.add")
    tanh_value = _split(add1, 1.0) if add1 is not None else None
    tanh = _producer(tanh_value, "ge.tanh") if tanh_value is not None else None
    scale = _producer(tanh.operands[0], "ge.mul") if tanh is not None else None
    inner_value = _split(scale, _SQRT_2_OVER_PI) if scale is not None else None
    add0 = _producer(inner_value, "ge.add") if inner_value is not None else None
    if add0 is None:
        return None
    for x, cubic_value in ((add0.operands[0], add0.operands[1]), (add0.operands[1], add0.operands[0])):
        cubic = _producer(cubic_value, "ge.mul")
        power_value = _split(cubic, _CUBIC) if cubic is not None else None
        power = _producer(power_value, "ge.pow") if power_value is not None else None
        if power is not None and power.operands[0] is x and _scalar(power.operands[1], 3.0):
            return x, (add1, tanh, scale, add0, cubic, power)
    return None


#: the largest epsilon LayerNormONNXFusionPass takes for one (a larger Add is not an epsilon)
MAX_LAYER_NORM_EPSILON = 0.1


def _single_value(value: Value) -> float | None:
    """The element of a one-element constant (shape ``[]`` or ``[1]``), else None."""
    array = constant_value(value)
    if array is None or array.size != 1 or array.ndim > 1 or array.dtype.kind != "f":
        return None
    return float(array.reshape(-1)[0])


def _only_use(value: Value, name: str) -> Operation | None:
    """The op ``name`` that is the one reader of ``value``, else None."""
    if len(value.uses) != 1 or value.uses[0].owner.name != name:
        return None
    return value.uses[0].owner


def _trailing_mean(op: Operation, rank: int) -> int | None:
    """The first axis of a keepdims ReduceMean over trailing axes (``k`` of them,
    ``rank - k`` to ``rank - 1``), else None."""
    if not op.get_attr("keepdims", 1):
        return None
    axes = constant_axes(op)
    if not axes or any(not -rank <= a < rank for a in axes):
        return None
    normalized = sorted(a % rank for a in axes)
    first = rank - len(normalized)
    return first if normalized == list(range(first, rank)) else None


def _affine_constant(value: Value, dims: tuple[int, ...]) -> bool:
    """Whether ``value`` is a constant (weights too) of exactly the normalized dims' shape."""
    if not isinstance(value, OpResult) or value.op.name not in CONSTANT_OPS:
        return False
    return isinstance(value.type, TensorType) and value.type.shape == dims


@attrs.define
class LayerNormFusion(RewritePattern):
    """``(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)``, times gamma plus beta
    when they follow, over trailing axes, is ``layer_norm(x, gamma, beta)``
    (GE's ``LayerNormONNXFusionPass``); the Div is the anchor."""

    ctx: PassContext
    op_names = frozenset({"ge.div"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        sub, sqrt = _producer(op.operands[0], "ge.sub"), _producer(op.operands[1], "ge.sqrt")
        add = _producer(sqrt.operands[0], "ge.add") if sqrt is not None else None
        if sub is None or add is None:
            return False
        x = sub.operands[0]
        if not isinstance(x.type, TensorType) or x.type.shape is None or x.type != op.results[0].type:
            return False
        if x.type.element_type.numpy_dtype is None or np.dtype(x.type.element_type.numpy_dtype).kind != "f":
            return False
        for variance_value, epsilon_value in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
            variance, epsilon = _producer(variance_value, "ge.reduce_mean"), _single_value(epsilon_value)
            if variance is not None and epsilon is not None:
                break
        else:
            return False
        if not 0.0 <= epsilon <= MAX_LAYER_NORM_EPSILON:
            return False
        power = _producer(variance.operands[0], "ge.pow")
        if power is None or not _scalar(power.operands[1], 2.0):
            return False
        cast = _producer(power.operands[0], "ge.cast")
        casts = [cast] if cast is not None else []
        squared = cast.operands[0] if cast is not None else power.operands[0]
        mean = _producer(sub.operands[1], "ge.reduce_mean")
        if squared is not sub.results[0] or mean is None or mean.operands[0] is not x:
            return False
        rank = len(x.type.shape)
        axis = _trailing_mean(mean, rank)
        if axis is None or _trailing_mean(variance, rank) != axis:
            return False
        # nothing but the pattern reads its intermediates: the centred x feeds the square and the Div
        chain = [mean, power, variance, add, sqrt, *casts]
        if any(len(o.results[0].uses) != 1 for o in chain) or len(sub.results[0].uses) != 2:
            return False
        dims = x.type.shape[axis:]
        if not all(isinstance(d, int) and d >= 0 for d in dims):
            return False  # as GE's pass, not for a normalized dim of unknown size
        gamma = beta = None
        mul = _only_use(op.results[0], "ge.mul")
        shift = _only_use(mul.results[0], "ge.add") if mul is not None else None
        if mul is not None and shift is not None:
            gamma = next((v for v in mul.operands if v is not op.results[0] and _affine_constant(v, dims)), None)
            beta = next((v for v in shift.operands if v is not mul.results[0] and _affine_constant(v, dims)), None)
        last = shift if gamma is not None and beta is not None else op
        if last.results[0].type != x.type:
            return False
        if last is op:
            # GE makes the affine-free form affine with a Mul by 1 and an Add of 0 before fusing
            ones_type = TensorType(dims, x.type.element_type)
            ones = Operation("ge.const", [], [ones_type],
                             {"value": DenseElementsAttr(ones_type, np.ones(dims, x.type.element_type.numpy_dtype))},
                             location=op.location, result_names=[f"{op.results[0].name_hint or 'layer_norm'}_gamma"])
            rewriter.insert_before(op, ones)
            operands = [x, ones.results[0]]
        else:
            operands = [x, gamma, beta]
        layer_norm = Operation("ge.layer_norm", operands, [x.type],
                               {"axis": IntegerAttr(axis), "epsilon": FloatAttr(epsilon, F32)},
                               location=last.location, result_names=[last.results[0].name_hint])
        rewriter.insert_before(last, layer_norm)
        rewriter.replace_op(last, layer_norm.results)
        for dead in ([mul, op] if last is not op else []) + [sqrt, add, variance, power] + casts + [sub, mean]:
            rewriter.erase_op(dead)
        affine = ", Mul, Add" if last is not op else ""
        self.ctx.remark(layer_norm, f"fused LayerNorm from axis {axis} (ReduceMean, Sub, "
                                    f"{'Cast, ' if casts else ''}Pow, ReduceMean, Add, Sqrt, Div{affine}) "
                                    "into 'ge.layer_norm'")
        return True


#: AvgPoolV2's AI-core limits (the ONNX parser sends larger windows and strides to the AI CPU)
MAX_POOL_WINDOW = 255
MAX_POOL_STRIDE = 63


def _global(window: Window, spatial: tuple[int, int], auto_pad: str) -> bool:
    """GE's ``CheckGlobal``: the window is the whole unpadded map (under SAME, strided by it too)."""
    if spatial != window.kernel or any(window.pads_begin) or any(window.pads_end):
        return False
    return auto_pad not in SAME_PADDINGS or spatial == window.strides


@attrs.define
class AvgPoolFusion(RewritePattern):
    """A 2-D average pooling that is not global becomes a depthwise convolution
    with an assist filter, times a coefficient where windows average over fewer
    elements than their size (GE's ``AvgPoolV2FusionPass``)."""

    ctx: PassContext
    op_names = frozenset({"ge.avg_pool"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        x, y = op.operands[0].type, op.results[0].type
        if not isinstance(x, TensorType) or not isinstance(y, TensorType) or x.shape is None or y.shape is None:
            return False
        if len(x.shape) != 4 or any(d is None for d in (*x.shape, *y.shape)):
            return False
        if x.element_type.numpy_dtype is None or np.dtype(x.element_type.numpy_dtype).kind != "f":
            return False
        kernel = op.get_attr("kernel_shape")
        strides = op.get_attr("strides") or [1, 1]
        if op.get_attr("dilations") not in (None, [1, 1]) or len(kernel) != 2 or len(strides) != 2:
            return False
        if max(kernel) > MAX_POOL_WINDOW or max(strides) > MAX_POOL_STRIDE:
            return False
        _, c, h, w = x.shape
        auto_pad = op.get_attr("auto_pad") or "NOTSET"
        window = window_for((h, w), kernel, {"auto_pad": auto_pad, "pads": op.get_attr("pads"),
                                             "strides": strides}, bool(op.get_attr("ceil_mode") or 0))
        if window.output != tuple(y.shape[2:]) or _global(window, (h, w), auto_pad):
            return False  # GE leaves a global pooling to the vector unit
        # a ceil-mode window past the pads reads zeros the convolution pads with
        over_h, over_w = window.overhang((h, w))
        (top, left), (bottom, right) = window.pads_begin, window.pads_end
        counts = window_counts((h, w), window, bool(op.get_attr("count_include_pad") or 0))
        ho, wo = window.output
        area = kernel[0] * kernel[1]
        uniform = bool(np.all(counts == area))
        dtype = x.element_type.numpy_dtype
        filter_type = TensorType((c, 1, kernel[0], kernel[1]), x.element_type)
        weight = np.full(filter_type.shape, 1.0 / area if uniform else 1.0, dtype=dtype)
        location, name = op.location, op.results[0].name_hint or "pool"
        assist = Operation("ge.const", [], [filter_type], {"value": DenseElementsAttr(filter_type, weight)},
                           location=location, result_names=[f"{name}_assist"])
        conv = Operation("ge.conv2d", [op.operands[0], assist.results[0]], [y], {
            "group": IntegerAttr(c),
            "kernel_shape": ArrayAttr([IntegerAttr(k) for k in kernel]),
            "pads": ArrayAttr([IntegerAttr(p) for p in (top, left, bottom + over_h, right + over_w)]),
            "strides": ArrayAttr([IntegerAttr(s) for s in strides]),
        }, location=location, result_names=[op.results[0].name_hint])
        rewriter.insert_before(op, assist)
        rewriter.insert_before(op, conv)
        result = conv.results[0]
        if not uniform:
            coefficient_type = TensorType((1, 1, ho, wo), x.element_type)
            coefficient = (1.0 / counts).astype(dtype).reshape(coefficient_type.shape)
            coefficient_op = Operation("ge.const", [], [coefficient_type],
                                       {"value": DenseElementsAttr(coefficient_type, coefficient)},
                                       location=location, result_names=[f"{name}_coefficient"])
            conv.results[0].name_hint = f"{name}_sum"
            mul = Operation("ge.mul", [result, coefficient_op.results[0]], [y], location=location,
                            result_names=[op.results[0].name_hint])
            rewriter.insert_before(op, coefficient_op)
            rewriter.insert_before(op, mul)
            result = mul.results[0]
        rewriter.replace_op(op, [result])
        scaled = "" if uniform else ", times each window's 1 / count"
        self.ctx.remark(conv, f"average pooling {kernel[0]} x {kernel[1]} on the cube: a depthwise convolution "
                              f"with an assist filter{scaled}")
        return True


#: the element types BatchMatMulFusionPass fuses a Transpose of
_TRANSPOSE_FUSED_TYPES = frozenset({"f16", "bf16", "f32"})
_MATMULS = frozenset({"ge.matmul", "ge.batch_matmul"})


def _swaps_last_two(transpose: Operation) -> bool:
    """Whether ``transpose`` swaps its input's last two axes and keeps the others."""
    source = transpose.operands[0].type
    rank = source.rank if isinstance(source, TensorType) else None
    if rank is None or rank < 2:
        return False
    return transpose_perm(transpose.get_attr("perm"), rank) == [*range(rank - 2), rank - 1, rank - 2]


@attrs.define
class TransposeMatMulFusion(RewritePattern):
    """A MatMul operand that is a Transpose of the last two axes, read by nothing
    else, is its input read transposed (GE's ``BatchMatMulFusionPass``)."""

    ctx: PassContext

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if op.name not in _MATMULS:
            return False
        for index, flag in ((0, "transA"), (1, "transB")):
            transpose = _producer(op.operands[index], "ge.transpose")
            if (transpose is None or len(transpose.results[0].uses) != 1 or not _swaps_last_two(transpose)
                    or str(getattr(transpose.results[0].type, "element_type", "")) not in _TRANSPOSE_FUSED_TYPES):
                continue
            rewriter.set_operand(op, index, transpose.operands[0])
            if op.get_attr(flag, 0):
                rewriter.remove_attribute(op, flag)  # transposed twice: read as it is
            else:
                rewriter.set_attribute(op, flag, IntegerAttr(1))
            rewriter.erase_op(transpose)
            self.ctx.remark(op, f"fused the transpose of operand #{index} (its last two axes) into the MatMul: {flag}")
            return True
        return False


@attrs.define
class FuseGraph(ModulePass):
    name = "fuse-graph"
    summary = ("GE's graph fusion: rewrite op-by-op spellings into the one op CANN runs (GELU, "
               "erf and tanh forms; LayerNorm); "
               "average pooling as a depthwise convolution on the cube; a last-two-axes transpose into its MatMul")

    def run(self, module: Module, ctx: PassContext) -> None:
        for graph in module.graphs():
            apply_patterns_greedily(list(graph.regions[0].blocks[0].ops),
                                    [GeluFusion(ctx), GeluTanhFusion(ctx), LayerNormFusion(ctx), AvgPoolFusion(ctx),
                                     TransposeMatMulFusion(ctx)])
            _warn_of_qdq(graph, ctx)


#: the ops whose QuantizeLinear-DequantizeLinear inputs AMCT's convert_qat_model quantizes
_QAT_LAYERS = frozenset({"ge.conv2d", "ge.conv_transpose", "ge.gemm", "ge.matmul", "ge.batch_matmul"})


def _warn_of_qdq(graph: Operation, ctx: PassContext) -> None:
    """One warning, at the first DequantizeLinear a convolution or matrix product
    reads, that the ONNX QDQ model runs as written: ATC does not convert a QDQ
    (QAT) model; AMCT's ``convert_qat_model`` first makes each such layer an
    AscendQuant, int8 weights and an AscendDequant (CANN's AMCT guide, "QAT Model
    Adaptation to CANN Format")."""
    for op in graph.walk():
        if op.name == "ge.dequantize_linear" and any(u.name in _QAT_LAYERS for u in op.results[0].users()):
            ctx.warning(op, "an ONNX QDQ (quantization-aware) model: its QuantizeLinear and DequantizeLinear run as "
                            "written, each a kernel, around float layers; ATC converts such a model only after AMCT's "
                            "convert_qat_model makes each quantized Conv, Gemm or MatMul an AscendQuant, int8 weights "
                            "and an AscendDequant, which geir does not model")
            return
