"""The ``ge`` dialect: Huawei GE graph ops, one declaration per op.

A ge op that mirrors an ONNX op takes the ONNX inputs, in ONNX order, as its
operands (an optional input omitted in the middle is a ``ge.none`` value), and
the ONNX attributes under their ONNX names with their ONNX defaults; data-type
attributes (``to``, ``dtype``, ``output_dtype``, ``stash_type``, ``precision``)
hold element types. Its mnemonic is the snake_case of the ONNX type except the names in
:data:`IRREGULAR_MNEMONICS`; :data:`ONNX_TO_GE` maps every ONNX type to its op.

Inference and verification live in :mod:`geir.dialects.ge_infer`, cost hints in
:mod:`geir.dialects.ge_cost`; numpy semantics live with the emulator's kernels.
"""

from __future__ import annotations

import re
from typing import Sequence

from geir.dialects import ge_cost as cost
from geir.dialects import ge_infer as infer
from geir.opdef import AttrDef, Dialect
from geir.types import F32, I1, I32

__all__ = ["DIALECT", "ONNX_TO_GE", "IRREGULAR_MNEMONICS", "COMMON_ATTRIBUTES", "snake_case"]

#: attributes every ge op accepts: the decisions passes make, and the user's pins
COMMON_ATTRIBUTES = (
    AttrDef("engine", "str", doc="engine the op runs on (AICore, AICPU, DVPP, HCCL, ...)"),
    AttrDef("stream", "int", doc="stream the op is queued on"),
    AttrDef("offsets", "ints", doc="arena offset of each result"),
    AttrDef("block_dim", "int", doc="cores an AICore kernel occupies"),
    AttrDef("stream_label", "str", doc="user pinning: ops with one label share a stream"),
    AttrDef("engine_pin", "str", doc="user pinning of the engine"),
    AttrDef("_op_aicore_num", "int", doc="most AI cores the op's kernel may use (GE's per-op core cap)"),
    AttrDef("_do_not_constant_folding", "unit", doc="the op stays a kernel when its operands are all constants "
                                                    "(GE's attribute)"),
    AttrDef("fused_operand", "int", doc="the operand read from the unified buffer of the op this one is fused "
                                        "into (UB fusion)"),
    AttrDef("fused_output", "unit", doc="the result stays in the unified buffer of the op fused after it"),
    AttrDef("fused_bytes", "int", doc="bytes the ops fused after this one read besides the chain (UB fusion)"),
    AttrDef("fused_flops", "int", doc="vector work of the ops fused after this one (UB fusion)"),
    AttrDef("fused_cube_flops", "int", doc="cube work of a MatMul fused after this one, which its kernel does "
                                           "too (AttentionScore)"),
    AttrDef("fused_result_bytes", "int", doc="bytes the chain fused after this op writes, where a pooling "
                                             "fused into it shrinks its result (UB fusion)"),
    AttrDef("aipp_input", "unit", doc="a convolution reads its image operand through the AIPP fused into it: "
                                      "the uint8 pixels (UB fusion)"),
    AttrDef("small_channel", "unit", doc="a convolution reads its at most four input channels in the C04 layout "
                                         "(ATC's --enable_small_channel)"),
    AttrDef("strided_write", "unit", doc="a concat whose producers write into its channel slices (GE's "
                                         "ConvConcatFusionPass): it needs no task"),
    AttrDef("no_task", "unit", doc="a split whose results are contiguous chunks of its operand, read where they "
                                   "lie (GE's SplitNOptimizer, SplitCToNOptimizer): it needs no task"),
)

DIALECT = Dialect("ge", common_attributes=COMMON_ATTRIBUTES)

#: ONNX op types whose mnemonic is not the snake_case of the type
IRREGULAR_MNEMONICS: dict[str, str] = {
    "Conv": "conv2d", "ConvTranspose": "conv_transpose", "MatMul": "matmul",
    "BatchNormalization": "batch_norm", "LayerNormalization": "layer_norm", "MaxPool": "max_pool",
    "AveragePool": "avg_pool", "GlobalAveragePool": "global_avg_pool", "GlobalMaxPool": "global_max_pool",
    "NonMaxSuppression": "nms", "LogSoftmax": "log_softmax", "HardSigmoid": "hard_sigmoid",
    "HardSwish": "hard_swish", "LeakyRelu": "leaky_relu",
    # acronyms and fused words read better unsplit
    "IsNaN": "is_nan", "PRelu": "prelu", "NonZero": "nonzero", "MatMulInteger": "matmul_integer",
    "QLinearConv": "qlinear_conv", "QLinearMatMul": "qlinear_matmul",
}


def snake_case(onnx_type: str) -> str:
    """``ReduceLogSumExp`` -> ``reduce_log_sum_exp``, ``GatherND`` -> ``gather_nd``."""
    words = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", onnx_type)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", words).lower()


AICORE, AICPU, DVPP, HCCL = "AICore", "AICPU", "DVPP", "HCCL"
PURE = ("pure",)
COMMUTATIVE = ("pure", "commutative")
SIDE_EFFECT = ("side_effect",)
DYNAMIC = ("pure", "dynamic_shape")
CONTROL = ("control",)
#: CANN's AI Core kernel of the op takes 64-bit integers on the 910, 910B and 310P:
#: the op's ``IsAiCoreSupport`` routes an int64 tensor to AI Core, not to AICPU
AICORE_INT64 = "aicore_int64"
#: the op's int64 results are indices its AI Core kernel writes on every chip; its
#: inputs decide whether it runs there
INT64_INDICES = "int64_indices"
T = cost.TRANSCENDENTAL

# ------------------------------------------------------- shared attribute sets

AUTO_PAD = AttrDef("auto_pad", "str", "NOTSET", choices=("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"))
WINDOW_ATTRS = (AUTO_PAD, AttrDef("dilations", "ints"), AttrDef("pads", "ints"), AttrDef("strides", "ints"))
CONV_ATTRS = (*WINDOW_ATTRS, AttrDef("group", "int", 1), AttrDef("kernel_shape", "ints"))
POOL_ATTRS = (*WINDOW_ATTRS, AttrDef("ceil_mode", "int", 0), AttrDef("kernel_shape", "ints", required=True))
REDUCE_ATTRS = (AttrDef("axes", "ints", doc="opset < 13/18: axes as an attribute"),
                AttrDef("keepdims", "int", 1), AttrDef("noop_with_empty_axes", "int", 0))
AXIS_LAST = (AttrDef("axis", "int", -1),)
EPSILON = AttrDef("epsilon", "float", 1e-5)
STASH_TYPE = AttrDef("stash_type", "type", F32)
CAST_ATTRS = (AttrDef("saturate", "int", 1), AttrDef("round_mode", "str", "up"))
RNN_ATTRS = (AttrDef("activation_alpha", "floats"), AttrDef("activation_beta", "floats"),
             AttrDef("clip", "float"), AttrDef("hidden_size", "int"), AttrDef("layout", "int", 0),
             AttrDef("direction", "str", "forward", choices=("forward", "reverse", "bidirectional")))
RNN_OPERANDS = ("X", "W", "R", "B?", "sequence_lens?", "initial_h?")
REDUCTION = AttrDef("reduction", "str", "none", choices=("none", "add", "mul", "max", "min"))
SEED = AttrDef("seed", "float")
HCCL_ATTRS = (AttrDef("group", "str", "hccl_world_group"), AttrDef("rank_size", "int", 1))
HCCL_REDUCTION = AttrDef("reduction", "str", "sum", choices=("sum", "prod", "max", "min"))
QLINEAR_CONV_OPERANDS = ("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale",
                         "y_zero_point")


def _attrs(*pairs: tuple[str, float | int | str]) -> tuple[AttrDef, ...]:
    """Scalar attributes with defaults, their kind taken from the default's Python type."""
    kinds = {float: "float", int: "int", str: "str"}
    return tuple(AttrDef(name, kinds[type(default)], default) for name, default in pairs)


#: a MatMul's operand read with its last two axes swapped, as GE's BatchMatMulFusionPass
#: sets when it removes the Transpose before it
MATMUL_ATTRS = _attrs(("transA", 0), ("transB", 0))


# ================================================================ graph level

DIALECT.define(
    "graph", results=0, regions=1, traits=("isolated", "symbol"), verify=infer.verify_graph,
    attributes=(AttrDef("sym_name", "str", required=True), AttrDef("function_type", "type", required=True),
                AttrDef("arg_attrs", "array"), AttrDef("res_attrs", "array")),
    summary="A graph: one block whose arguments are the inputs, ending in ge.return.")
DIALECT.define("return", operands=("operands*",), results=0, traits=("terminator",),
               summary="Returns the graph's outputs.")
DIALECT.define("yield", operands=("operands*",), results=0, traits=("terminator",),
               summary="Ends a region of ge.if / ge.case / ge.loop / ge.scan with its values.")
for _name in ("const", "weights"):
    DIALECT.define(
        _name, attributes=(AttrDef("value", "tensor", required=True),), traits=("constant", "pure"),
        infer=infer.infer_constant,
        summary="A constant tensor." if _name == "const" else "A model weight (a constant the user may swap).")
DIALECT.define("none", traits=PURE, infer=infer.infer_none,
               summary="The absent value for an optional ONNX input omitted in the middle.")

# ========================================================= linear algebra, conv

DIALECT.define(
    "conv2d", onnx_op="Conv", operands=("X", "W", "B?"), attributes=CONV_ATTRS, traits=PURE,
    infer=infer.infer_conv, engine=AICORE, cost=cost.conv_cost,
    summary="Convolution of any spatial rank (1-D, 2-D, 3-D), grouped and dilated.")
DIALECT.define(
    "conv_transpose", onnx_op="ConvTranspose", operands=("X", "W", "B?"),
    attributes=(*CONV_ATTRS, AttrDef("output_padding", "ints"), AttrDef("output_shape", "ints")),
    traits=PURE, infer=infer.infer_conv_transpose, engine=AICORE, cost=cost.conv_transpose_cost,
    summary="Transposed (fractionally strided) convolution.")
DIALECT.define(
    "matmul", onnx_op="MatMul", operands=("A", "B"), attributes=MATMUL_ATTRS, traits=PURE,
    infer=infer.infer_matmul, engine=AICORE, cost=cost.matmul_cost,
    summary="numpy matmul: 1-D operands promoted, batch dims broadcast; transA / transB swap the last two "
            "axes of A / B first (GE's transpose_x1 / x2).")
DIALECT.define(
    "batch_matmul", onnx_op="MatMul", operands=("A", "B"), attributes=MATMUL_ATTRS, traits=PURE,
    infer=infer.infer_matmul, verify=infer.verify_batch_matmul, engine=AICORE, cost=cost.matmul_cost,
    summary="MatMul of rank >= 3 operands (GE's BatchMatMul; transA / transB: its adj_x1 / adj_x2).")
DIALECT.define(
    "gemm", onnx_op="Gemm", operands=("A", "B", "C?"),
    attributes=_attrs(("alpha", 1.0), ("beta", 1.0), ("transA", 0), ("transB", 0)), traits=PURE,
    infer=infer.infer_gemm, engine=AICORE, cost=cost.gemm_cost,
    summary="alpha * op(A) @ op(B) + beta * C.")
DIALECT.define("einsum", onnx_op="Einsum", operands=("Inputs*",),
               attributes=(AttrDef("equation", "str", required=True),), traits=PURE, infer=infer.infer_einsum,
               engine=AICORE, cost=cost.einsum_cost, summary="Einstein summation.")
DIALECT.define("det", onnx_op="Det", operands=("X",), traits=PURE, infer=infer.infer_det, engine=AICPU,
               cost=cost.reduction_cost(3.0), summary="Determinant of square matrices.")

# quantized linear algebra
DIALECT.define("quantize_linear", onnx_op="QuantizeLinear", operands=("x", "y_scale", "y_zero_point?"),
               attributes=(*_attrs(("axis", 1), ("block_size", 0), ("saturate", 1)),
                           AttrDef("output_dtype", "type"), AttrDef("precision", "type")),
               traits=PURE, infer=infer.infer_quantize_linear, engine=AICORE, cost=cost.elementwise_cost(2.0),
               summary="x / scale + zero_point, saturated to the quantized type.")
DIALECT.define("dequantize_linear", onnx_op="DequantizeLinear", operands=("x", "x_scale", "x_zero_point?"),
               attributes=(*_attrs(("axis", 1), ("block_size", 0)), AttrDef("output_dtype", "type")),
               traits=PURE, infer=infer.infer_dequantize_linear, engine=AICORE, cost=cost.elementwise_cost(2.0),
               summary="(x - zero_point) * scale.")
DIALECT.define("dynamic_quantize_linear", onnx_op="DynamicQuantizeLinear", operands=("x",), results=3,
               traits=PURE, infer=infer.infer_dynamic_quantize_linear, engine=AICORE,
               cost=cost.elementwise_cost(4.0), summary="Quantize to ui8 with a scale computed from the data.")
DIALECT.define("matmul_integer", onnx_op="MatMulInteger", operands=("A", "B", "a_zero_point?", "b_zero_point?"),
               traits=PURE, infer=infer.infer_matmul_integer, engine=AICORE, cost=cost.matmul_cost,
               summary="Integer matmul accumulating in i32.")
DIALECT.define("qlinear_matmul", onnx_op="QLinearMatMul",
               operands=("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"),
               traits=PURE, infer=infer.infer_qlinear_matmul, engine=AICORE, cost=cost.qlinear_matmul_cost,
               summary="Quantized matmul with requantized output.")
DIALECT.define("conv_integer", onnx_op="ConvInteger", operands=("x", "w", "x_zero_point?", "w_zero_point?"),
               attributes=CONV_ATTRS, traits=PURE, infer=infer.infer_conv_integer, engine=AICORE,
               cost=cost.conv_cost, summary="Integer convolution accumulating in i32.")
DIALECT.define("qlinear_conv", onnx_op="QLinearConv", operands=(*QLINEAR_CONV_OPERANDS, "B?"),
               attributes=CONV_ATTRS, traits=PURE, infer=infer.infer_qlinear_conv, engine=AICORE,
               cost=cost.qlinear_conv_cost, summary="Quantized convolution with requantized output.")

# ================================================================ elementwise

# (mnemonic, ONNX type, operand element class, FLOPs per element, attributes)
UNARY: Sequence[tuple[str, str, str, float, tuple[AttrDef, ...]]] = (
    ("abs", "Abs", "numeric", 1, ()), ("neg", "Neg", "numeric", 1, ()), ("exp", "Exp", "float", T, ()),
    ("log", "Log", "float", T, ()), ("sqrt", "Sqrt", "float", T, ()), ("reciprocal", "Reciprocal", "float", 1, ()),
    ("floor", "Floor", "float", 1, ()), ("ceil", "Ceil", "float", 1, ()), ("round", "Round", "float", 1, ()),
    ("sign", "Sign", "numeric", 1, ()), ("erf", "Erf", "numeric", T, ()),
    ("sin", "Sin", "float", T, ()), ("cos", "Cos", "float", T, ()), ("tan", "Tan", "float", T, ()),
    ("asin", "Asin", "float", T, ()), ("acos", "Acos", "float", T, ()), ("atan", "Atan", "float", T, ()),
    ("sinh", "Sinh", "float", T, ()), ("cosh", "Cosh", "float", T, ()), ("asinh", "Asinh", "float", T, ()),
    ("acosh", "Acosh", "float", T, ()), ("atanh", "Atanh", "float", T, ()),
    ("not", "Not", "bool", 1, ()), ("bitwise_not", "BitwiseNot", "int", 1, ()),
    ("identity", "Identity", "any", 0, ()),
    # activations
    ("relu", "Relu", "numeric", 1, ()), ("sigmoid", "Sigmoid", "float", T, ()), ("tanh", "Tanh", "float", T, ()),
    ("gelu", "Gelu", "float", T, (AttrDef("approximate", "str", "none", choices=("none", "tanh")),)),
    ("elu", "Elu", "float", T, _attrs(("alpha", 1.0))),
    ("selu", "Selu", "float", T, _attrs(("alpha", 1.67326319217681884765625), ("gamma", 1.05070102214813232421875))),
    ("celu", "Celu", "float", T, _attrs(("alpha", 1.0))),
    ("leaky_relu", "LeakyRelu", "float", 2, _attrs(("alpha", 0.01))),
    ("hard_sigmoid", "HardSigmoid", "float", 3, _attrs(("alpha", 0.2), ("beta", 0.5))),
    ("hard_swish", "HardSwish", "float", 4, ()),
    ("softplus", "Softplus", "float", T, ()), ("softsign", "Softsign", "float", 3, ()),
    ("thresholded_relu", "ThresholdedRelu", "float", 2, _attrs(("alpha", 1.0))),
    ("mish", "Mish", "float", 3 * T, ()), ("swish", "Swish", "float", T, _attrs(("alpha", 1.0))),
    ("shrink", "Shrink", "numeric", 2, _attrs(("bias", 0.0), ("lambd", 0.5))),
)
#: unary ONNX ops whose operand ONNX names 'input' (the others name it 'X')
UNARY_INPUT_NAMED = frozenset({"Exp", "Log", "Sign", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
                               "Cosh", "Asinh", "Acosh", "Atanh", "Identity", "Tanh", "Softsign", "Shrink"})
for _mnemonic, _onnx, _class, _flops, _attributes in UNARY:
    _operand = "input" if _onnx in UNARY_INPUT_NAMED else "X"
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=(_operand,), attributes=_attributes, traits=PURE,
                   infer=infer.unary(_class, name=_operand), engine=AICORE, cost=cost.elementwise_cost(_flops),
                   summary=f"Elementwise {_onnx}.")
DIALECT.define("is_nan", onnx_op="IsNaN", operands=("X",), traits=PURE, infer=infer.unary("float", I1),
               engine=AICORE, cost=cost.elementwise_cost(), summary="Elementwise isnan, as i1.")
DIALECT.define("is_inf", onnx_op="IsInf", operands=("X",),
               attributes=_attrs(("detect_negative", 1), ("detect_positive", 1)), traits=PURE,
               infer=infer.unary("float", I1), engine=AICORE, cost=cost.elementwise_cost(),
               summary="Elementwise isinf, as i1.")

# (mnemonic, ONNX type, element class, i1 result, commutative, attributes)
BINARY: Sequence[tuple[str, str, str, bool, bool, tuple[AttrDef, ...]]] = (
    ("add", "Add", "numeric", False, True, ()), ("sub", "Sub", "numeric", False, False, ()),
    ("mul", "Mul", "numeric", False, True, ()), ("div", "Div", "numeric", False, False, ()),
    ("mod", "Mod", "numeric", False, False, _attrs(("fmod", 0))),
    ("and", "And", "bool", True, True, ()), ("or", "Or", "bool", True, True, ()),
    ("xor", "Xor", "bool", True, True, ()),
    ("bitwise_and", "BitwiseAnd", "int", False, True, ()), ("bitwise_or", "BitwiseOr", "int", False, True, ()),
    ("bitwise_xor", "BitwiseXor", "int", False, True, ()),
    ("equal", "Equal", "any", True, True, ()), ("less", "Less", "numeric", True, False, ()),
    ("greater", "Greater", "numeric", True, False, ()),
    ("less_or_equal", "LessOrEqual", "numeric", True, False, ()),
    ("greater_or_equal", "GreaterOrEqual", "numeric", True, False, ()),
)
for _mnemonic, _onnx, _class, _bool_result, _commutative, _attributes in BINARY:
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("A", "B"), attributes=_attributes,
                   traits=COMMUTATIVE if _commutative else PURE,
                   infer=infer.broadcasting(_class, I1 if _bool_result else None), engine=AICORE,
                   cost=cost.elementwise_cost(), summary=f"Elementwise {_onnx} with numpy broadcasting.")
DIALECT.define("pow", onnx_op="Pow", operands=("X", "Y"), traits=PURE,
               infer=infer.broadcasting("numeric", same_element=False, names=("X", "Y")), engine=AICORE,
               cost=cost.elementwise_cost(T), summary="X ** Y; the result has X's element type.")
DIALECT.define("bit_shift", onnx_op="BitShift", operands=("X", "Y"),
               attributes=(AttrDef("direction", "str", required=True, choices=("LEFT", "RIGHT")),),
               traits=PURE, infer=infer.broadcasting("int", names=("X", "Y")), engine=AICORE,
               cost=cost.elementwise_cost(), summary="Bitwise shift of integers.")
for _mnemonic, _onnx in (("max", "Max"), ("min", "Min"), ("sum", "Sum"), ("mean", "Mean")):
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("data_0*",), traits=COMMUTATIVE,
                   infer=infer.broadcasting("numeric", names=()), engine=AICORE, cost=cost.elementwise_cost(),
                   summary=f"Elementwise {_onnx} of any number of broadcast operands.")
DIALECT.define("prelu", onnx_op="PRelu", operands=("X", "slope"), traits=PURE, infer=infer.infer_prelu,
               engine=AICORE, cost=cost.elementwise_cost(2), summary="Leaky ReLU with a learned slope.")
DIALECT.define("where", onnx_op="Where", operands=("condition", "X", "Y"), traits=PURE, infer=infer.infer_where,
               engine=AICORE, cost=cost.elementwise_cost(), summary="condition ? X : Y, broadcast.")
DIALECT.define("clip", onnx_op="Clip", operands=("input", "min?", "max?"),
               attributes=(AttrDef("min", "float", doc="opset < 11"), AttrDef("max", "float", doc="opset < 11")),
               traits=PURE, infer=infer.infer_clip, engine=AICORE, cost=cost.elementwise_cost(2),
               summary="Clamp to [min, max].")
for _mnemonic, _onnx in (("softmax", "Softmax"), ("log_softmax", "LogSoftmax"), ("hardmax", "Hardmax")):
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("input",), attributes=AXIS_LAST, traits=PURE,
                   infer=infer.infer_along_axis, engine=AICORE, cost=cost.reduction_cost(cost.NORMALIZATION),
                   summary=f"{_onnx} along 'axis'.")

# ==================================================================== pooling

DIALECT.define("max_pool", onnx_op="MaxPool", operands=("X",), results=-1,
               attributes=(*POOL_ATTRS, AttrDef("storage_order", "int", 0)), traits=PURE,
               infer=infer.infer_max_pool, engine=AICORE, cost=cost.pool_cost,
               summary="Max pooling; an optional second result holds the i64 indices.")
DIALECT.define("avg_pool", onnx_op="AveragePool", operands=("X",),
               attributes=(*POOL_ATTRS, AttrDef("count_include_pad", "int", 0)), traits=PURE,
               infer=infer.infer_pool, engine=AICORE, cost=cost.pool_cost, summary="Average pooling.")
DIALECT.define("lp_pool", onnx_op="LpPool", operands=("X",), attributes=(*POOL_ATTRS, AttrDef("p", "int", 2)),
               traits=PURE, infer=infer.infer_pool, engine=AICORE, cost=cost.pool_cost, summary="Lp pooling.")
for _mnemonic, _onnx, _attributes in (("global_avg_pool", "GlobalAveragePool", ()),
                                      ("global_max_pool", "GlobalMaxPool", ()),
                                      ("global_lp_pool", "GlobalLpPool", _attrs(("p", 2)))):
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("X",), attributes=_attributes, traits=PURE,
                   infer=infer.infer_global_pool, engine=AICORE, cost=cost.reduction_cost(),
                   summary=f"{_onnx}: one value per channel.")
DIALECT.define("max_unpool", onnx_op="MaxUnpool", operands=("X", "I", "output_shape?"),
               attributes=(AttrDef("kernel_shape", "ints", required=True), AttrDef("pads", "ints"),
                           AttrDef("strides", "ints")),
               traits=PURE, infer=infer.infer_max_unpool, engine=AICORE, cost=cost.data_movement_cost,
               summary="Scatter pooled maxima back to their positions.")
DIALECT.define("roi_align", onnx_op="RoiAlign", operands=("X", "rois", "batch_indices"),
               attributes=(AttrDef("coordinate_transformation_mode", "str", "half_pixel",
                                   choices=("half_pixel", "output_half_pixel")),
                           AttrDef("mode", "str", "avg", choices=("avg", "max")),
                           *_attrs(("output_height", 1), ("output_width", 1), ("sampling_ratio", 0),
                                   ("spatial_scale", 1.0))),
               traits=PURE, infer=infer.infer_roi_align, engine=AICORE, cost=cost.elementwise_cost(4),
               summary="Region-of-interest align (detection heads).")
DIALECT.define("grid_sample", onnx_op="GridSample", operands=("X", "grid"),
               attributes=(AttrDef("align_corners", "int", 0),
                           AttrDef("mode", "str", "linear", choices=("linear", "nearest", "cubic")),
                           AttrDef("padding_mode", "str", "zeros", choices=("zeros", "border", "reflection"))),
               traits=PURE, infer=infer.infer_grid_sample, engine=AICORE, cost=cost.elementwise_cost(8),
               summary="Sample X at the grid's coordinates.")

# ============================================================== normalisation

DIALECT.define("batch_norm", onnx_op="BatchNormalization", operands=("X", "scale", "B", "input_mean", "input_var"),
               results=-1, attributes=(EPSILON, *_attrs(("momentum", 0.9), ("training_mode", 0))), traits=PURE,
               infer=infer.infer_batch_norm, engine=AICORE, cost=cost.elementwise_cost(2),
               summary="Batch normalisation; in inference mode one result.")
DIALECT.define("layer_norm", onnx_op="LayerNormalization", operands=("X", "Scale", "B?"), results=-1,
               attributes=(*AXIS_LAST, EPSILON, STASH_TYPE), traits=PURE, infer=infer.infer_layer_norm,
               engine=AICORE, cost=cost.elementwise_cost(cost.NORMALIZATION),
               summary="Layer normalisation over the dims from 'axis'; optional Mean and InvStdDev.")
DIALECT.define("instance_normalization", onnx_op="InstanceNormalization", operands=("input", "scale", "B"),
               attributes=(EPSILON,), traits=PURE, infer=infer.infer_instance_norm, engine=AICORE,
               cost=cost.elementwise_cost(cost.NORMALIZATION), summary="Instance normalisation.")
DIALECT.define("group_normalization", onnx_op="GroupNormalization", operands=("X", "scale", "bias"),
               attributes=(EPSILON, AttrDef("num_groups", "int", required=True), STASH_TYPE), traits=PURE,
               infer=infer.infer_group_norm, engine=AICORE, cost=cost.elementwise_cost(cost.NORMALIZATION),
               summary="Group normalisation.")
DIALECT.define("rms_normalization", onnx_op="RMSNormalization", operands=("X", "scale"),
               attributes=(*AXIS_LAST, EPSILON, STASH_TYPE), traits=PURE, infer=infer.infer_rms_norm,
               engine=AICORE, cost=cost.elementwise_cost(4), summary="RMS normalisation.")
DIALECT.define("lrn", onnx_op="LRN", operands=("X",),
               attributes=(*_attrs(("alpha", 0.0001), ("beta", 0.75), ("bias", 1.0)),
                           AttrDef("size", "int", required=True)),
               traits=PURE, infer=infer.unary("float"), engine=AICORE, cost=cost.elementwise_cost(T),
               summary="Local response normalisation across channels.")
DIALECT.define("lp_normalization", onnx_op="LpNormalization", operands=("input",),
               attributes=(*AXIS_LAST, AttrDef("p", "int", 2)), traits=PURE, infer=infer.infer_along_axis,
               engine=AICORE, cost=cost.elementwise_cost(3), summary="Lp-normalise along 'axis'.")
DIALECT.define("mean_variance_normalization", onnx_op="MeanVarianceNormalization", operands=("X",),
               attributes=(AttrDef("axes", "ints", [0, 2, 3]),), traits=PURE, infer=infer.unary("float"),
               engine=AICORE, cost=cost.elementwise_cost(cost.NORMALIZATION), summary="(X - mean) / std over 'axes'.")

# ================================================================ shape ops

DIALECT.define("reshape", onnx_op="Reshape", operands=("data", "shape"), attributes=_attrs(("allowzero", 0)),
               traits=PURE, infer=infer.infer_reshape, engine=AICORE, cost=cost.data_movement_cost,
               summary="Reshape: 0 copies an input dim, -1 is inferred.")
DIALECT.define("flatten", onnx_op="Flatten", operands=("input",), attributes=_attrs(("axis", 1)), traits=PURE,
               infer=infer.infer_flatten, engine=AICORE, cost=cost.data_movement_cost,
               summary="Flatten to 2-D around 'axis'.")
DIALECT.define("transpose", onnx_op="Transpose", operands=("data",), attributes=(AttrDef("perm", "ints"),),
               traits=PURE, infer=infer.infer_transpose, engine=AICORE, cost=cost.data_movement_cost,
               summary="Permute dims (reverse them by default).")
DIALECT.define("squeeze", onnx_op="Squeeze", operands=("data", "axes?"),
               attributes=(AttrDef("axes", "ints", doc="opset < 13"),), traits=PURE, infer=infer.infer_squeeze,
               engine=AICORE, cost=cost.data_movement_cost, summary="Remove size-1 dims.")
DIALECT.define("unsqueeze", onnx_op="Unsqueeze", operands=("data", "axes?"),
               attributes=(AttrDef("axes", "ints", doc="opset < 13"),), traits=PURE, infer=infer.infer_unsqueeze,
               engine=AICORE, cost=cost.data_movement_cost, summary="Insert size-1 dims.")
DIALECT.define("concat", onnx_op="Concat", operands=("inputs*",),
               attributes=(AttrDef("axis", "int", required=True),), traits=PURE, infer=infer.infer_concat,
               engine=AICORE, cost=cost.data_movement_cost, summary="Concatenate along 'axis'.")
DIALECT.define("split", onnx_op="Split", operands=("input", "split?"), results=-1,
               attributes=(AttrDef("axis", "int", 0), AttrDef("num_outputs", "int"),
                           AttrDef("split", "ints", doc="opset < 13")),
               traits=PURE, infer=infer.infer_split, engine=AICORE, cost=cost.data_movement_cost,
               summary="Split along 'axis' by sizes or into num_outputs chunks.")
DIALECT.define("slice", onnx_op="Slice", operands=("data", "starts?", "ends?", "axes?", "steps?"),
               attributes=(AttrDef("starts", "ints"), AttrDef("ends", "ints"), AttrDef("axes", "ints")),
               traits=PURE, infer=infer.infer_slice, engine=AICORE, cost=cost.data_movement_cost,
               summary="Strided slice (opset 1 took starts/ends/axes as attributes).")
DIALECT.define("gather", onnx_op="Gather", operands=("data", "indices"), attributes=_attrs(("axis", 0)),
               traits=PURE, infer=infer.infer_gather, engine=AICORE, cost=cost.data_movement_cost,
               summary="Take slices along 'axis'.")
DIALECT.define("gather_elements", onnx_op="GatherElements", operands=("data", "indices"),
               attributes=_attrs(("axis", 0)), traits=PURE, infer=infer.infer_gather_elements, engine=AICORE,
               cost=cost.data_movement_cost, summary="Elementwise gather along 'axis'.")
DIALECT.define("gather_nd", onnx_op="GatherND", operands=("data", "indices"), attributes=_attrs(("batch_dims", 0)),
               traits=PURE, infer=infer.infer_gather_nd, engine=AICORE, cost=cost.data_movement_cost,
               summary="Gather slices by index tuples.")
DIALECT.define("scatter_elements", onnx_op="ScatterElements", operands=("data", "indices", "updates"),
               attributes=(AttrDef("axis", "int", 0), REDUCTION), traits=PURE, infer=infer.infer_scatter,
               engine=AICORE, cost=cost.data_movement_cost, summary="Elementwise scatter along 'axis'.")
DIALECT.define("scatter_nd", onnx_op="ScatterND", operands=("data", "indices", "updates"), attributes=(REDUCTION,),
               traits=PURE, infer=infer.infer_scatter, engine=AICORE, cost=cost.data_movement_cost,
               summary="Scatter slices by index tuples.")
DIALECT.define("scatter", onnx_op="Scatter", operands=("data", "indices", "updates"),
               attributes=_attrs(("axis", 0)), traits=PURE, infer=infer.infer_scatter, engine=AICORE,
               cost=cost.data_movement_cost, summary="Deprecated ONNX Scatter (= scatter_elements).")
DIALECT.define("expand", onnx_op="Expand", operands=("input", "shape"), traits=PURE, infer=infer.infer_expand,
               engine=AICORE, cost=cost.data_movement_cost, summary="Broadcast to 'shape'.")
DIALECT.define("tile", onnx_op="Tile", operands=("input", "repeats"), traits=PURE, infer=infer.infer_tile,
               engine=AICORE, cost=cost.data_movement_cost, summary="Repeat along each dim.")
DIALECT.define("pad", onnx_op="Pad", operands=("data", "pads?", "constant_value?", "axes?"),
               attributes=(AttrDef("mode", "str", "constant", choices=("constant", "reflect", "edge", "wrap")),
                           AttrDef("pads", "ints", doc="opset < 11"), AttrDef("value", "float", doc="opset < 11")),
               traits=PURE, infer=infer.infer_pad, engine=AICORE, cost=cost.data_movement_cost,
               summary="Pad (negative pads crop).")
for _mnemonic, _onnx, _infer in (("depth_to_space", "DepthToSpace", infer.infer_depth_to_space),
                                 ("space_to_depth", "SpaceToDepth", infer.infer_space_to_depth)):
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("input",),
                   attributes=(AttrDef("blocksize", "int", required=True),
                               AttrDef("mode", "str", "DCR", choices=("DCR", "CRD"))),
                   traits=PURE, infer=_infer, engine=AICORE, cost=cost.data_movement_cost,
                   summary=f"{_onnx} rearrangement of N x C x H x W.")
DIALECT.define("shape", onnx_op="Shape", operands=("data",), attributes=(AttrDef("start", "int", 0),
                                                                           AttrDef("end", "int")),
               traits=PURE, infer=infer.infer_shape, engine=AICORE, cost=cost.data_movement_cost,
               summary="The input's shape (dims start..end) as i64.")
DIALECT.define("size", onnx_op="Size", operands=("data",), traits=PURE, infer=infer.infer_size, engine=AICORE,
               cost=cost.data_movement_cost, summary="The input's element count as an i64 scalar.")
DIALECT.define("constant_of_shape", onnx_op="ConstantOfShape", operands=("input",),
               attributes=(AttrDef("value", "tensor", doc="one element; f32 zero when absent"),), traits=PURE,
               infer=infer.infer_constant_of_shape, engine=AICORE, cost=cost.data_movement_cost,
               summary="A tensor of the given shape filled with 'value'.")
DIALECT.define("range", onnx_op="Range", operands=("start", "limit", "delta"), attributes=(STASH_TYPE,),
               traits=PURE, infer=infer.infer_range, engine=AICORE, cost=cost.elementwise_cost(),
               summary="start, start + delta, ... below limit.")
DIALECT.define("one_hot", onnx_op="OneHot", operands=("indices", "depth", "values"), attributes=AXIS_LAST,
               traits=PURE, infer=infer.infer_one_hot, engine=AICORE, cost=cost.elementwise_cost(),
               summary="One-hot encoding inserted at 'axis'.")
DIALECT.define("eye_like", onnx_op="EyeLike", operands=("input",),
               attributes=(AttrDef("dtype", "type"), AttrDef("k", "int", 0)), traits=PURE,
               infer=infer.infer_eye_like, engine=AICORE, cost=cost.elementwise_cost(),
               summary="Identity matrix of the input's shape.")
DIALECT.define("resize", onnx_op="Resize", operands=("X", "roi?", "scales?", "sizes?"),
               attributes=(AttrDef("antialias", "int", 0), AttrDef("axes", "ints"),
                           AttrDef("coordinate_transformation_mode", "str", "half_pixel",
                                   choices=("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                            "align_corners", "asymmetric", "tf_crop_and_resize",
                                            "tf_half_pixel_for_nn")),
                           AttrDef("cubic_coeff_a", "float", -0.75), AttrDef("exclude_outside", "int", 0),
                           AttrDef("extrapolation_value", "float", 0.0),
                           AttrDef("keep_aspect_ratio_policy", "str", "stretch",
                                   choices=("stretch", "not_larger", "not_smaller")),
                           AttrDef("mode", "str", "nearest", choices=("nearest", "linear", "cubic")),
                           AttrDef("nearest_mode", "str", "round_prefer_floor",
                                   choices=("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"))),
               traits=PURE, infer=infer.infer_resize, engine=AICORE, cost=cost.elementwise_cost(4),
               summary="Resize by scales or to sizes (roi is a ge.none when omitted).")
DIALECT.define("upsample", onnx_op="Upsample", operands=("X", "scales?"),
               attributes=(AttrDef("mode", "str", "nearest"), AttrDef("scales", "floats", doc="opset < 9")),
               traits=PURE, infer=infer.infer_upsample, engine=AICORE, cost=cost.elementwise_cost(4),
               summary="Deprecated ONNX Upsample: floor(dim * scale).")
DIALECT.define("center_crop_pad", onnx_op="CenterCropPad", operands=("input_data", "shape"),
               attributes=(AttrDef("axes", "ints"),), traits=PURE, infer=infer.infer_center_crop_pad,
               engine=AICORE, cost=cost.data_movement_cost, summary="Center crop or pad to 'shape'.")
DIALECT.define("affine_grid", onnx_op="AffineGrid", operands=("theta", "size"),
               attributes=_attrs(("align_corners", 0)), traits=PURE, infer=infer.infer_affine_grid,
               engine=AICORE, cost=cost.elementwise_cost(6), summary="Sampling grid of an affine transform.")
DIALECT.define("trilu", onnx_op="Trilu", operands=("input", "k?"), attributes=_attrs(("upper", 1)), traits=PURE,
               infer=infer.infer_trilu, engine=AICORE, cost=cost.elementwise_cost(),
               summary="Upper or lower triangle of the last two dims.")
for _mnemonic, _onnx in (("cum_sum", "CumSum"), ("cum_prod", "CumProd")):
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("x", "axis"),
                   attributes=_attrs(("exclusive", 0), ("reverse", 0)), traits=PURE, infer=infer.infer_cumulative,
                   engine=AICORE, cost=cost.elementwise_cost(), summary=f"{_onnx} along operand 'axis'.")
DIALECT.define("reverse_sequence", onnx_op="ReverseSequence", operands=("input", "sequence_lens"),
               attributes=_attrs(("batch_axis", 1), ("time_axis", 0)), traits=PURE,
               infer=infer.infer_reverse_sequence, engine=AICORE, cost=cost.data_movement_cost,
               summary="Reverse each batch entry's first sequence_lens steps.")

# ================================================================ reductions

for _onnx in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"):
    _transcendental = _onnx in ("ReduceLogSum", "ReduceLogSumExp", "ReduceL2")
    DIALECT.define(snake_case(_onnx), onnx_op=_onnx, operands=("data", "axes?"), attributes=REDUCE_ATTRS,
                   traits=PURE, infer=infer.infer_reduce, engine=AICORE,
                   cost=cost.reduction_cost(T if _transcendental else 1.0),
                   summary=f"{_onnx} over axes (operand, or attribute before opset 13/18).")
for _mnemonic, _onnx in (("arg_max", "ArgMax"), ("arg_min", "ArgMin")):
    DIALECT.define(_mnemonic, onnx_op=_onnx, operands=("data",),
                   attributes=_attrs(("axis", 0), ("keepdims", 1), ("select_last_index", 0)), traits=PURE,
                   infer=infer.infer_arg_reduce, engine=AICORE, cost=cost.reduction_cost(),
                   summary=f"{_onnx}: i64 index along 'axis'.")
DIALECT.define("top_k", onnx_op="TopK", operands=("X", "K?"), results=2,
               attributes=(*AXIS_LAST, *_attrs(("largest", 1), ("sorted", 1)), AttrDef("k", "int", doc="opset 1")),
               traits=PURE, infer=infer.infer_top_k, engine=AICORE, cost=cost.reduction_cost(T),
               summary="The k largest (or smallest) along 'axis': Values and i64 Indices.")

# ============================================================ type conversion

DIALECT.define("cast", onnx_op="Cast", operands=("input",),
               attributes=(AttrDef("to", "type", required=True), *CAST_ATTRS), traits=PURE, infer=infer.infer_cast,
               engine=AICORE, cost=cost.elementwise_cost(), summary="Convert to element type 'to'.")
DIALECT.define("cast_like", onnx_op="CastLike", operands=("input", "target_type"), attributes=CAST_ATTRS,
               traits=PURE, infer=infer.infer_cast_like, engine=AICORE, cost=cost.elementwise_cost(),
               summary="Convert to the element type of 'target_type'.")

# ============================================ data-dependent shapes (AICPU)

DIALECT.define("nms", onnx_op="NonMaxSuppression",
               operands=("boxes", "scores", "max_output_boxes_per_class?", "iou_threshold?", "score_threshold?"),
               attributes=_attrs(("center_point_box", 0)), traits=DYNAMIC, infer=infer.infer_nms, engine=AICPU,
               cost=cost.reduction_cost(8), summary="Non-maximum suppression: ?x3 (batch, class, box) indices.")
DIALECT.define("nonzero", onnx_op="NonZero", operands=("X",), traits=DYNAMIC, infer=infer.infer_nonzero,
               engine=AICPU, cost=cost.reduction_cost(), summary="Indices of the non-zero elements, rank x ?.")
DIALECT.define("unique", onnx_op="Unique", operands=("X",), results=-1,
               attributes=(AttrDef("axis", "int"), AttrDef("sorted", "int", 1)), traits=DYNAMIC,
               infer=infer.infer_unique, engine=AICPU, cost=cost.reduction_cost(T),
               summary="Unique values, and optionally indices, inverse indices and counts.")
DIALECT.define("compress", onnx_op="Compress", operands=("input", "condition"),
               attributes=(AttrDef("axis", "int"),), traits=DYNAMIC, infer=infer.infer_compress, engine=AICPU,
               cost=cost.data_movement_cost, summary="Keep the slices where condition is true.")

# ============================================================ recurrent nets

DIALECT.define("rnn", onnx_op="RNN", operands=RNN_OPERANDS, results=-1,
               attributes=(*RNN_ATTRS, AttrDef("activations", "strs", ["Tanh", "Tanh"])), traits=PURE,
               infer=infer.recurrent("RNN"), engine=AICORE, cost=cost.recurrent_cost("RNN"),
               summary="Elman RNN: Y, Y_h.")
DIALECT.define("gru", onnx_op="GRU", operands=RNN_OPERANDS, results=-1,
               attributes=(*RNN_ATTRS, AttrDef("activations", "strs"), AttrDef("linear_before_reset", "int", 0)),
               traits=PURE, infer=infer.recurrent("GRU"), engine=AICORE, cost=cost.recurrent_cost("GRU"),
               summary="GRU: Y, Y_h.")
DIALECT.define("lstm", onnx_op="LSTM", operands=(*RNN_OPERANDS, "initial_c?", "P?"), results=-1,
               attributes=(*RNN_ATTRS, AttrDef("activations", "strs"), AttrDef("input_forget", "int", 0)),
               traits=PURE, infer=infer.recurrent("LSTM"), engine=AICORE, cost=cost.recurrent_cost("LSTM"),
               summary="LSTM: Y, Y_h, Y_c.")

# ============================================================ misc and random

DIALECT.define("dropout", onnx_op="Dropout", operands=("data", "ratio?", "training_mode?"), results=-1,
               attributes=(AttrDef("seed", "int"), AttrDef("ratio", "float", doc="opset < 12")), traits=PURE,
               infer=infer.infer_dropout, engine=AICORE, cost=cost.data_movement_cost,
               summary="Dropout (identity at inference); an optional i1 mask result.")
for _mnemonic, _onnx, _attributes in (("random_normal", "RandomNormal", _attrs(("mean", 0.0), ("scale", 1.0))),
                                      ("random_uniform", "RandomUniform", _attrs(("high", 1.0), ("low", 0.0)))):
    DIALECT.define(_mnemonic, onnx_op=_onnx,
                   attributes=(*_attributes, AttrDef("dtype", "type", F32), SEED,
                               AttrDef("shape", "ints", required=True)),
                   traits=SIDE_EFFECT, infer=infer.infer_random, engine=AICPU, cost=cost.elementwise_cost(T),
                   summary=f"{_onnx} samples of 'shape'.")
    DIALECT.define(f"{_mnemonic}_like", onnx_op=f"{_onnx}Like", operands=("input",),
                   attributes=(*_attributes, AttrDef("dtype", "type"), SEED), traits=SIDE_EFFECT,
                   infer=infer.infer_random_like, engine=AICPU, cost=cost.elementwise_cost(T),
                   summary=f"{_onnx} samples of the input's shape.")
DIALECT.define("bernoulli", onnx_op="Bernoulli", operands=("input",), attributes=(AttrDef("dtype", "type"), SEED),
               traits=SIDE_EFFECT, infer=infer.infer_random_like, engine=AICPU, cost=cost.elementwise_cost(T),
               summary="Bernoulli draws with the input's probabilities.")
DIALECT.define("multinomial", onnx_op="Multinomial", operands=("input",),
               attributes=(AttrDef("dtype", "type", I32), AttrDef("sample_size", "int", 1), SEED),
               traits=SIDE_EFFECT, infer=infer.infer_multinomial, engine=AICPU, cost=cost.elementwise_cost(T),
               summary="Class samples from unnormalised log-probabilities.")

# ==================================================================== DVPP

DIALECT.define("dvpp_decode", operands=("data",),
               attributes=(AttrDef("height", "int", required=True), AttrDef("width", "int", required=True),
                           AttrDef("channels", "int", 3)),
               traits=SIDE_EFFECT, infer=infer.infer_dvpp_decode, engine=DVPP, cost=cost.elementwise_cost(8),
               summary="DVPP image decode: 1-D ui8 bytes to height x width x channels ui8.")
DIALECT.define("dvpp_resize", operands=("image",),
               attributes=(AttrDef("height", "int", required=True), AttrDef("width", "int", required=True)),
               traits=SIDE_EFFECT, infer=infer.infer_dvpp_resize, engine=DVPP, cost=cost.elementwise_cost(4),
               summary="DVPP resize of an H x W x C ui8 image.")

# ==================================================================== AIPP

DIALECT.define("aipp", operands=("images",),
               attributes=(AttrDef("input_format", "str", "RGB888_U8", choices=tuple(infer.AIPP_CHANNELS),
                                   doc="the uint8 image's pixel format (3 or 1 channels, NHWC)"),
                           AttrDef("load_start_pos", "ints", [0, 0], doc="crop start (h, w)"),
                           AttrDef("crop_size", "ints", required=True, doc="crop size (h, w): the model's H, W"),
                           AttrDef("rbuv_swap", "bool", False, doc="swap the R and B channels"),
                           AttrDef("mean_chn", "ints", [0, 0, 0, 0], doc="per-channel mean, subtracted"),
                           AttrDef("min_chn", "floats", [0.0, 0.0, 0.0, 0.0], doc="per-channel min, subtracted"),
                           AttrDef("var_reci_chn", "floats", [1.0, 1.0, 1.0, 1.0],
                                   doc="per-channel reciprocal of the deviation, multiplied"),
                           AttrDef("dtype", "type", F32, doc="the element type the model reads")),
               traits=PURE, infer=infer.infer_aipp, engine=AICORE, cost=cost.elementwise_cost(3),
               summary="Static AIPP (ATC --insert_op_conf): an N x H x W x C ui8 image cropped to crop_size, "
                       "R and B optionally swapped, each channel (pixel - mean_chn - min_chn) * var_reci_chn, "
                       "as N x C x h x w of dtype.")

# ============================================================== TransData

#: the memory layouts GE converts between: at the edges of the AI core's 5-D domain,
#: and between ND matrices and the FRACTAL_NZ a MatMul takes where the cube loads no ND
TRANS_DATA_FORMATS = ("NCHW", "NC1HWC0", "NC1HWC0_C04", "ND", "FRACTAL_NZ")

DIALECT.define("trans_data", operands=("src",),
               attributes=(AttrDef("src_format", "str", "NCHW", choices=TRANS_DATA_FORMATS,
                                   doc="the layout the operand is stored in"),
                           AttrDef("dst_format", "str", "NC1HWC0", choices=TRANS_DATA_FORMATS,
                                   doc="the layout the result is stored in")),
               traits=PURE, infer=infer.infer_same_as_first, engine=AICORE, cost=cost.data_movement_cost,
               summary="GE's TransData: the same values in another memory layout — NCHW to the 5-D NC1HWC0 "
                       "the AI core's convolutions and poolings read and write (channels padded to C0 = 16, or to "
                       "4 for NC1HWC0_C04), ND to the FRACTAL_NZ of a MatMul (the last two dims padded to whole "
                       "16-row fractals), or back.")

# ==================================================================== HCCL

DIALECT.define("all_reduce", operands=("input",), attributes=(HCCL_REDUCTION, *HCCL_ATTRS), traits=SIDE_EFFECT,
               infer=infer.infer_same_as_first, engine=HCCL, cost=cost.elementwise_cost(),
               summary="HCCL all-reduce across rank_size ranks.")
DIALECT.define("all_gather", operands=("input",), attributes=HCCL_ATTRS, traits=SIDE_EFFECT,
               infer=infer.infer_all_gather, engine=HCCL, cost=cost.data_movement_cost,
               summary="HCCL all-gather: dim 0 times rank_size.")
DIALECT.define("broadcast", operands=("input",), attributes=(AttrDef("root", "int", 0), *HCCL_ATTRS),
               traits=SIDE_EFFECT, infer=infer.infer_same_as_first, engine=HCCL, cost=cost.data_movement_cost,
               summary="HCCL broadcast from rank 'root'.")
DIALECT.define("reduce_scatter", operands=("input",), attributes=(HCCL_REDUCTION, *HCCL_ATTRS),
               traits=SIDE_EFFECT, infer=infer.infer_reduce_scatter, engine=HCCL, cost=cost.elementwise_cost(),
               summary="HCCL reduce-scatter: dim 0 divided by rank_size.")

# ============================================================== GE control

DIALECT.define("switch", operands=("data", "pred"), results=2, traits=CONTROL, infer=infer.infer_switch,
               engine=AICPU, cost=cost.data_movement_cost,
               summary="Forward data to output_false (#0) or output_true (#1).")
DIALECT.define("merge", operands=("inputs*",), results=2, traits=CONTROL, infer=infer.infer_merge, engine=AICPU,
               cost=cost.data_movement_cost, summary="The first available input, and its i32 index.")
for _mnemonic in ("enter", "ref_enter"):
    DIALECT.define(_mnemonic, operands=("data",),
                   attributes=(AttrDef("frame_name", "str", required=True), AttrDef("is_constant", "bool", False)),
                   traits=CONTROL, infer=infer.infer_same_as_first, engine=AICPU, cost=cost.data_movement_cost,
                   summary="Enter a loop frame" + (" (by reference)." if _mnemonic == "ref_enter" else "."))
DIALECT.define("exit", operands=("data",), traits=CONTROL, infer=infer.infer_same_as_first, engine=AICPU,
               cost=cost.data_movement_cost, summary="Leave a loop frame.")
DIALECT.define("next_iteration", operands=("data",), traits=CONTROL, infer=infer.infer_same_as_first,
               engine=AICPU, cost=cost.data_movement_cost, summary="Pass a value to the next loop iteration.")
DIALECT.define("loop_cond", operands=("input",), traits=CONTROL, infer=infer.infer_loop_cond, engine=AICPU,
               cost=cost.data_movement_cost, summary="The i1 condition of a loop frame.")
DIALECT.define("if", onnx_op="If", operands=("cond",), results=-1, regions=2, traits=CONTROL,
               infer=infer.infer_declared, verify=infer.verify_if,
               summary="ONNX If: then/else regions ending in ge.yield.")
DIALECT.define("case", operands=("branch_index",), results=-1, regions=-1, traits=CONTROL,
               infer=infer.infer_declared, verify=infer.verify_case,
               summary="GE's Case (TF's Case): the i32 branch_index picks one of N branch regions, each "
                       "ending in ge.yield; an index out of range (negative or >= N) runs the last branch.")
DIALECT.define("loop", onnx_op="Loop", operands=("M", "cond", "v_initial*"), results=-1, regions=1,
               traits=CONTROL, infer=infer.infer_declared, verify=infer.verify_loop,
               summary="ONNX Loop (M and cond may be ge.none).")
DIALECT.define("scan", onnx_op="Scan", operands=("initial_state_and_scan_inputs*",), results=-1, regions=1,
               attributes=(AttrDef("num_scan_inputs", "int", required=True), AttrDef("scan_input_axes", "ints"),
                           AttrDef("scan_input_directions", "ints"), AttrDef("scan_output_axes", "ints"),
                           AttrDef("scan_output_directions", "ints")),
               traits=CONTROL, infer=infer.infer_declared, verify=infer.verify_scan, summary="ONNX Scan.")

# ============================================================ memory, sync

DIALECT.define("cmo", operands=("src",), results=0,
               attributes=(AttrDef("type", "str", required=True,
                                   choices=("prefetch", "invalidate", "writeback", "barrier")),),
               traits=("cmo", "side_effect"), cost=cost.data_movement_cost,
               summary="Cache maintenance on a tensor's buffer.")
for _mnemonic in ("record_event", "wait_event"):
    DIALECT.define(_mnemonic, results=0, attributes=(AttrDef("event", "int", required=True),),
                   traits=("sync", "side_effect"),
                   summary="Record an event on this stream." if _mnemonic == "record_event"
                   else "Block this stream until the event is recorded.")

# ============================================================ 64-bit integers

# The ops whose AI Core kernels take int64 on the 910, the 910B and the 310P alike:
# DT_INT64 is in the AI Core dtype list their op_api routing checks on each of the
# three (hicann/ops-math math/{add,sub,mul,maximum,minimum,equal,less,greater,
# less_equal,greater_equal,select,expand,tile,range}/op_api and conversion/
# {concat_d,slice,split_v,transpose}/op_api; hicann/ops-nn index/{gather_v2,
# gather_elements}/op_api). Left out: ops whose kernels take int64 on some of the
# chips only (below), Cast (by source and target pair, below), and ops whose kernels
# do not take it (Div, RealDiv, Mod, Cumsum, PadV3, ScatterElements).
for _mnemonic in ("add", "sub", "mul", "max", "min", "equal", "less", "greater", "less_or_equal",
                  "greater_or_equal", "where", "expand", "tile", "range", "concat", "slice", "split", "transpose",
                  "gather", "gather_elements"):
    DIALECT.add_traits(_mnemonic, AICORE_INT64)
# ArgMax's and ArgMin's int64 results are the indices their kernels write on every chip
# (the 310P's write int32 indices and cast them); their dtype lists judge the input.
for _mnemonic in ("arg_max", "arg_min"):
    DIALECT.add_traits(_mnemonic, INT64_INDICES)
#: ops whose AI Core kernels take int64 on some chips only, by the SoC name's prefix
#: (a device profile's ``soc``; the first prefix that matches wins): Neg, Abs,
#: ReduceMax and ScatterNdUpdate on the 910B (math/{neg,abs,reduce_max}/op_api,
#: ops-nn index/scatter_nd_update/op_api), ReduceSum on the 910B and the 310P but not
#: the 910 (math/reduce_sum/op_api/reduce_sum_op.cpp), an int64 input of ArgMax and
#: ArgMin on the 910 and the 910B but not the 310P (math/arg_max_v2/op_api/argmax_v2.cpp,
#: math/arg_min/op_api/argmin.cpp)
_INT64_910B_OPS = frozenset({"ge.neg", "ge.abs", "ge.reduce_max", "ge.reduce_sum", "ge.scatter_nd", "ge.arg_max",
                             "ge.arg_min"})
AICORE_INT64_BY_SOC: tuple[tuple[str, frozenset[str]], ...] = (
    ("Ascend910B", _INT64_910B_OPS), ("Ascend910_93", _INT64_910B_OPS), ("Ascend310P", frozenset({"ge.reduce_sum"})),
    ("Ascend910", frozenset({"ge.arg_max", "ge.arg_min"})),
)
#: the casts to or from int64 CANN's Cast kernel does on AI Core on every chip, as
#: (source, target) element types: the int64 pairs of hicann/ops-math
#: math/cast/op_api/cast.cpp's default list (the 910's and the 310P's): int64 <-> int32,
#: uint8 and bool, int64 -> fp16
AICORE_INT64_CASTS = frozenset({("i64", "i32"), ("i32", "i64"), ("i64", "f16"), ("ui8", "i64"), ("i64", "ui8"),
                                ("i1", "i64"), ("i64", "i1")})
#: the further int64 pairs of the 910B's list: int64 <-> fp32, bf16, int8, int16, uint16
#: and uint32, fp16 -> int64
_INT64_910B_CASTS = frozenset({("f16", "i64")} | {pair for t in ("f32", "bf16", "i8", "i16", "ui16", "ui32")
                                                  for pair in (("i64", t), (t, "i64"))})
AICORE_INT64_CASTS_BY_SOC: tuple[tuple[str, frozenset[tuple[str, str]]], ...] = (
    ("Ascend910B", _INT64_910B_CASTS), ("Ascend910_93", _INT64_910B_CASTS),
)


def aicore_int64_extras(soc: str) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """The ops (by name) whose AI Core kernels take int64 on the chip ``soc`` beyond
    the ``AICORE_INT64`` ones, and the further (source, target) int64 casts it does
    beyond :data:`AICORE_INT64_CASTS`."""
    ops = next((names for prefix, names in AICORE_INT64_BY_SOC if soc.startswith(prefix)), frozenset())
    casts = next((pairs for prefix, pairs in AICORE_INT64_CASTS_BY_SOC if soc.startswith(prefix)), frozenset())
    return ops, casts

# ================================================================ fallback

DIALECT.define("onnx_op", operands=("inputs*",), results=-1, open_attributes=True, engine=AICPU,
               attributes=(AttrDef("op_type", "str", required=True), AttrDef("domain", "str", ""),
                           AttrDef("opset", "int")),
               infer=infer.infer_declared, cost=cost.data_movement_cost,
               summary="An ONNX op with no ge counterpart, run on AICPU by ONNX's reference evaluator.")

#: ONNX op type -> ge op name (the first op declared with that onnx_op: MatMul -> ge.matmul)
ONNX_TO_GE: dict[str, str] = {}
for _od in DIALECT.ops.values():
    if _od.onnx_op is not None:
        ONNX_TO_GE.setdefault(_od.onnx_op, _od.name)
