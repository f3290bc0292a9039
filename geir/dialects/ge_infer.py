"""Result-type inference and verifiers of the ``ge`` dialect.

Every function here follows ONNX's shape-inference rules exactly: static operands
give the exact static result ONNX's reference produces; unknown dimensions
(``None``) stay unknown; a value-dependent result (Reshape's ``shape``, Slice's
``starts``...) is computed from ``ctx.constant(i)`` when the operand is a
constant and is dynamic otherwise. Inconsistent operands raise :class:`InferError`
with a message that names the operand or attribute and the numbers involved.

Operand positions are ONNX input positions. An optional ONNX input omitted in the
middle arrives as a value of type ``none``; one omitted at the end is absent.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from geir.opdef import InferContext, InferError
from geir.types import (F32, I1, I32, I64, NONE, UI8, ElementType, FloatType, FunctionType, IntegerType,
                        TensorType, Type)

Dim = int | None
Shape = tuple[Dim, ...]
InferFn = Callable[[InferContext], Sequence[Type]]

SAME_PADDING = ("SAME_UPPER", "SAME_LOWER")


# ------------------------------------------------------------------ formatting


def format_shape(shape: Sequence[Dim] | None) -> str:
    """``2x?x3`` (``*`` when unranked, ``scalar`` for rank 0), for messages."""
    if shape is None:
        return "*"
    if not shape:
        return "scalar"
    return "x".join("?" if d is None else str(d) for d in shape)


# --------------------------------------------------------- element-type classes


def is_bool(et: Type) -> bool:
    return isinstance(et, IntegerType) and et.width == 1


def is_integer(et: Type) -> bool:
    """An integer type other than ``i1`` (ONNX's bool)."""
    return isinstance(et, IntegerType) and et.width > 1


def is_unsigned(et: Type) -> bool:
    return is_integer(et) and et.signedness == "u"  # type: ignore[union-attr]


def is_float(et: Type) -> bool:
    return isinstance(et, FloatType)


def is_numeric(et: Type) -> bool:
    return is_integer(et) or is_float(et)


#: element-type classes an op can require of an operand, with their description
ELEMENT_CLASSES: dict[str, tuple[Callable[[Type], bool], str]] = {
    "any": (lambda et: True, "any element type"),
    "numeric": (is_numeric, "an integer or float element type"),
    "float": (is_float, "a float element type"),
    "int": (is_integer, "an integer element type"),
    "unsigned": (is_unsigned, "an unsigned integer element type"),
    "bool": (is_bool, "element type i1"),
    "index": (lambda et: et in (I32, I64), "element type i32 or i64"),
}


def require_element(t: TensorType, cls: str, name: str) -> None:
    """Raise unless operand ``name`` of type ``t`` has an element type of class ``cls``."""
    check, description = ELEMENT_CLASSES[cls]
    if not check(t.element_type):
        raise InferError(f"operand '{name}' must have {description}, got {t}")


def require_same_element(types: Sequence[TensorType], names: Sequence[str]) -> ElementType:
    """The common element type of ``types``; raises naming the first that differs."""
    et = types[0].element_type
    for t, name in zip(types[1:], names[1:]):
        if t.element_type is not et:
            raise InferError(f"operand '{name}' has element type {t.element_type}, "
                             f"expected {et} (the element type of '{names[0]}')")
    return et


# ------------------------------------------------------------ operand access


def operand(ctx: InferContext, index: int, name: str) -> TensorType:
    """Operand ``index`` (ONNX input ``name``), which must be present and a tensor."""
    if index >= len(ctx.operand_types):
        raise InferError(f"missing operand #{index} '{name}'")
    t = ctx.operand_types[index]
    if not isinstance(t, TensorType):
        raise InferError(f"operand #{index} '{name}' must be a tensor, got {t}")
    return t


def optional_operand(ctx: InferContext, index: int, name: str) -> TensorType | None:
    """Operand ``index`` if given, None when absent or passed as ``none``."""
    if index >= len(ctx.operand_types) or ctx.operand_types[index] is NONE:
        return None
    return operand(ctx, index, name)


def has_operand(ctx: InferContext, index: int) -> bool:
    return index < len(ctx.operand_types) and ctx.operand_types[index] is not NONE


def constant_array(ctx: InferContext, index: int) -> np.ndarray | None:
    """The value of operand ``index`` when it is a constant, else None."""
    if not has_operand(ctx, index):
        return None
    value = ctx.constant(index)
    return None if value is None else np.asarray(value)


def constant_ints(ctx: InferContext, index: int) -> list[int] | None:
    """Operand ``index`` as a flat list of ints when it is a constant, else None.
    Its values must be integers (ONNX types axes, shapes, counts as int32/int64)."""
    value = constant_array(ctx, index)
    if value is None:
        return None
    t = ctx.operand_types[index]
    if isinstance(t, TensorType) and not isinstance(t.element_type, IntegerType):
        raise InferError(f"operand #{index} must hold integers, got {t}")
    return [int(x) for x in value.reshape(-1)]


def constant_floats(ctx: InferContext, index: int) -> list[float] | None:
    value = constant_array(ctx, index)
    return None if value is None else [float(x) for x in value.reshape(-1)]


def constant_scalar_int(ctx: InferContext, index: int, name: str) -> int | None:
    """A one-element integer operand's value (TopK's K, OneHot's depth), or None."""
    values = constant_ints(ctx, index)
    if values is None:
        return None
    if len(values) != 1:
        raise InferError(f"operand '{name}' must hold one value, got {len(values)}")
    return values[0]


def static_length(t: TensorType) -> int | None:
    """The length of a 1-D tensor whose length is static (e.g. a shape operand), else None."""
    if t.shape is None or len(t.shape) != 1:
        return None
    return t.shape[0]


def unranked(et: ElementType) -> TensorType:
    return TensorType(None, et)


def dynamic(rank: int, et: ElementType) -> TensorType:
    return TensorType((None,) * rank, et)


def result_count(ctx: InferContext, default: int, lo: int, hi: int) -> int:
    """How many results a variadic-result op has: the declared count, else ``default``."""
    n = len(ctx.result_types) or default
    if not lo <= n <= hi:
        expected = str(lo) if lo == hi else f"{lo} to {hi}"
        raise InferError(f"expected {expected} results, got {n}")
    return n


# ------------------------------------------------------------ dim arithmetic


def product(dims: Iterable[Dim]) -> Dim:
    """The product of ``dims``; None when any is unknown (0 wins: 0 x ? = 0)."""
    n: int = 1
    unknown = False
    for d in dims:
        if d is None:
            unknown = True
        else:
            n *= d
    if n == 0:
        return 0
    return None if unknown else n


def dim_map(f: Callable[..., int], *dims: Dim) -> Dim:
    """``f(*dims)``, or None when any dim is unknown."""
    return None if any(d is None for d in dims) else f(*dims)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def positive_attr(ctx: InferContext, name: str) -> int:
    """Integer attribute ``name``, which must be positive (group, blocksize, rank_size...)."""
    value = ctx.attrs[name]
    if value <= 0:
        raise InferError(f"attribute '{name}' must be positive, got {value}")
    return value


def normalize_axis(axis: int, rank: int, what: str) -> int:
    """``axis`` in ``[0, rank)``; accepts ONNX's negative axes ``[-rank, -1]``."""
    if not -rank <= axis < rank:
        raise InferError(f"{what} {axis} is out of range for rank {rank} (expected {-rank} to {rank - 1})")
    return axis % rank


def normalize_axes(axes: Iterable[int], rank: int, what: str) -> list[int]:
    """Each axis normalized; duplicates are an error."""
    out = [normalize_axis(a, rank, what) for a in axes]
    if len(set(out)) != len(out):
        raise InferError(f"{what} {list(axes)} names an axis twice")
    return out


# --------------------------------------------------------------- broadcasting


def broadcast_shapes(shapes: Sequence[Shape | None], names: Sequence[str]) -> Shape | None:
    """ONNX multidirectional (numpy) broadcasting of ``shapes``.

    An unknown dim against a known ``d > 1`` gives ``d`` (anything else would be an
    error at run time); against 1 or unknown it stays unknown. None if any shape
    is unranked.
    """
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)  # type: ignore[arg-type]
    out: list[Dim] = []
    for i in range(rank):
        known: Dim = 1
        unknown = False
        for s, name in zip(shapes, names):
            k = i - (rank - len(s))  # type: ignore[arg-type]
            if k < 0:
                continue
            d = s[k]  # type: ignore[index]
            if d is None:
                unknown = True
            elif d != 1:
                if known != 1 and known != d:
                    described = ", ".join(f"'{n}' is {format_shape(t)}" for t, n in zip(shapes, names))
                    raise InferError(f"operands are not broadcast-compatible: {described} "
                                     f"(dimension {i - rank} is {known} in one and {d} in another)")
                known = d
        out.append(None if unknown and known == 1 else known)
    return tuple(out)


def unidirectional_broadcast(target: Shape | None, source: Shape | None, target_name: str,
                             source_name: str) -> None:
    """Raise unless ``source`` broadcasts to ``target`` without changing it (Gemm C, PRelu slope)."""
    if target is None or source is None:
        return
    if len(source) > len(target):
        raise InferError(f"operand '{source_name}' ({format_shape(source)}) has a higher rank than "
                         f"'{target_name}' ({format_shape(target)})")
    for i, d in enumerate(source):
        t = target[len(target) - len(source) + i]
        if d is not None and t is not None and d != 1 and d != t:
            raise InferError(f"operand '{source_name}' ({format_shape(source)}) does not broadcast to "
                             f"'{target_name}' ({format_shape(target)})")


# ===================================================================== graph


def infer_constant(ctx: InferContext) -> list[Type]:
    """``ge.const`` / ``ge.weights``: the type of the ``value`` attribute."""
    value = ctx.attrs.raw("value")
    if value is None or not isinstance(getattr(value, "type", None), TensorType):
        raise InferError("attribute 'value' must be a dense tensor")
    return [value.type]  # type: ignore[union-attr]


def infer_none(ctx: InferContext) -> list[Type]:
    return [NONE]


def infer_declared(ctx: InferContext) -> list[Type]:
    """Ops whose results cannot be inferred (region ops, ``ge.onnx_op``): the declared types."""
    return list(ctx.result_types)


def _terminator_types(op: Any, region_index: int, terminator: str) -> list[Type]:
    region = op.regions[region_index] if region_index < len(op.regions) else None
    if region is None or not region.blocks:
        raise InferError(f"region #{region_index} must have a block")
    last = region.blocks[0].last_op
    if last is None or last.name != terminator:
        raise InferError(f"region #{region_index} must end with '{terminator}'")
    return [v.type for v in last.operands]


def _types_text(types: Iterable[Type]) -> str:
    return "(" + ", ".join(map(str, types)) + ")"


def verify_graph(op: Any) -> None:
    """The entry block's arguments and the returned types equal ``function_type``."""
    ftype = op.get_attr("function_type")
    if not isinstance(ftype, FunctionType):
        raise InferError(f"attribute 'function_type' must be a function type, got {ftype}")
    if not op.regions or not op.regions[0].blocks:
        raise InferError("ge.graph must have a body block")
    block = op.regions[0].blocks[0]
    args = [a.type for a in block.arguments]
    if tuple(args) != ftype.inputs:
        raise InferError(f"entry block argument types {_types_text(args)} do not match the "
                         f"function type inputs {_types_text(ftype.inputs)}")
    returned = _terminator_types(op, 0, "ge.return")
    if tuple(returned) != ftype.results:
        raise InferError(f"ge.return operand types {_types_text(returned)} do not match the "
                         f"function type results {_types_text(ftype.results)}")


def _require_predicate(t: Type, name: str) -> None:
    """A GE/ONNX condition: an i1 tensor of one element (rank 0 or 1)."""
    if not isinstance(t, TensorType) or t.element_type is not I1:
        raise InferError(f"operand '{name}' must be an i1 tensor, got {t}")
    if t.shape is not None and (len(t.shape) > 1 or product(t.shape) not in (1, None)):
        raise InferError(f"operand '{name}' must hold a single element, got {t}")


def verify_if(op: Any) -> None:
    """``ge.if``: an i1 condition; each branch yields the op's result types, or
    refinements of them (ONNX branches may yield different static shapes, which
    the op's results then join with ``?`` dims)."""
    from geir.verifier import types_compatible
    _require_predicate(op.operands[0].type, "cond")
    results = [r.type for r in op.results]
    for index, branch in enumerate(("then", "else")):
        yielded = _terminator_types(op, index, "ge.yield")
        if len(yielded) != len(results) or not all(map(types_compatible, results, yielded)):
            raise InferError(f"the {branch} branch yields {_types_text(yielded)}, "
                             f"but the op's results are {_types_text(results)}")


def verify_case(op: Any) -> None:
    """``ge.case`` (GE's Case): a single-element i32 ``branch_index`` and at
    least one branch; each branch yields the op's result types (or refinements
    of them, as for ``ge.if``)."""
    from geir.verifier import types_compatible
    t = op.operands[0].type
    if not isinstance(t, TensorType) or t.element_type is not I32:
        raise InferError(f"operand 'branch_index' must be an i32 tensor, got {t}")
    if t.shape is not None and (len(t.shape) > 1 or product(t.shape) not in (1, None)):
        raise InferError(f"operand 'branch_index' must hold a single element, got {t}")
    results = [r.type for r in op.results]
    for index in range(len(op.regions)):
        yielded = _terminator_types(op, index, "ge.yield")
        if len(yielded) != len(results) or not all(map(types_compatible, results, yielded)):
            raise InferError(f"branch #{index} yields {_types_text(yielded)}, "
                             f"but the op's results are {_types_text(results)}")


def verify_loop(op: Any) -> None:
    """``ge.loop`` (ONNX Loop): body(iter, cond, v...) yields (cond, v..., scan outputs...)."""
    carried = [v.type for v in op.operands[2:]]
    block = op.regions[0].blocks[0] if op.regions and op.regions[0].blocks else None
    if block is None:
        raise InferError("ge.loop must have a body block")
    if len(block.arguments) != 2 + len(carried):
        raise InferError(f"the loop body takes {len(block.arguments)} arguments, expected "
                         f"{2 + len(carried)} (iteration number, condition, {len(carried)} loop-carried)")
    yielded = _terminator_types(op, 0, "ge.yield")
    scan_outputs = len(yielded) - 1 - len(carried)
    if scan_outputs < 0:
        raise InferError(f"the loop body yields {len(yielded)} values, expected at least "
                         f"{1 + len(carried)} (condition and loop-carried values)")
    if len(op.results) != len(carried) + scan_outputs:
        raise InferError(f"ge.loop has {len(op.results)} results, expected {len(carried) + scan_outputs} "
                         f"({len(carried)} loop-carried + {scan_outputs} scan outputs)")
    for i, (init, body_out) in enumerate(zip(carried, yielded[1:])):
        if getattr(init, "element_type", None) is not getattr(body_out, "element_type", None):
            raise InferError(f"loop-carried value #{i} starts as {init} but the body yields {body_out}")


def verify_scan(op: Any) -> None:
    """``ge.scan``: body takes the N states and M scan slices; yields N states and K outputs."""
    block = op.regions[0].blocks[0] if op.regions and op.regions[0].blocks else None
    if block is None:
        raise InferError("ge.scan must have a body block")
    num_scan_inputs = op.get_attr("num_scan_inputs")
    states = len(op.operands) - num_scan_inputs
    if states < 0:
        raise InferError(f"num_scan_inputs = {num_scan_inputs} exceeds the {len(op.operands)} operands")
    if len(block.arguments) != len(op.operands):
        raise InferError(f"the scan body takes {len(block.arguments)} arguments, expected {len(op.operands)}")
    yielded = _terminator_types(op, 0, "ge.yield")
    if len(yielded) != len(op.results):
        raise InferError(f"the scan body yields {len(yielded)} values but ge.scan has {len(op.results)} results")


# ================================================================ elementwise


def unary(element_class: str = "any", result: ElementType | None = None, name: str = "X") -> InferFn:
    """Elementwise unary op: same shape; element type kept (or ``result``, e.g. i1 for is_nan)."""

    def infer(ctx: InferContext) -> list[Type]:
        x = operand(ctx, 0, name)
        require_element(x, element_class, name)
        return [x if result is None else x.with_element_type(result)]

    return infer


def broadcasting(element_class: str = "numeric", result: ElementType | None = None,
                 same_element: bool = True, names: Sequence[str] = ("A", "B")) -> InferFn:
    """Elementwise op over broadcast operands (binary, or variadic when ``names`` is empty).

    ``result`` None keeps the first operand's element type (comparisons give i1).
    ``same_element`` False lets later operands differ (Pow's exponent).
    """

    def infer(ctx: InferContext) -> list[Type]:
        count = len(ctx.operand_types) if not names else len(names)
        if count == 0:
            raise InferError("expected at least one operand")
        labels = list(names) or [f"data_{i}" for i in range(count)]
        types = [operand(ctx, i, labels[i]) for i in range(count)]
        for t, label in zip(types, labels):
            require_element(t, element_class, label)
        if same_element:
            require_same_element(types, labels)
        shape = broadcast_shapes([t.shape for t in types], labels)
        return [TensorType(shape, result or types[0].element_type)]

    return infer


def infer_where(ctx: InferContext) -> list[Type]:
    cond, x, y = operand(ctx, 0, "condition"), operand(ctx, 1, "X"), operand(ctx, 2, "Y")
    require_element(cond, "bool", "condition")
    et = require_same_element([x, y], ["X", "Y"])
    return [TensorType(broadcast_shapes([cond.shape, x.shape, y.shape], ["condition", "X", "Y"]), et)]


def infer_prelu(ctx: InferContext) -> list[Type]:
    x, slope = operand(ctx, 0, "X"), operand(ctx, 1, "slope")
    require_same_element([x, slope], ["X", "slope"])
    unidirectional_broadcast(x.shape, slope.shape, "X", "slope")
    return [x]


def infer_clip(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    for index, name in ((1, "min"), (2, "max")):
        bound = optional_operand(ctx, index, name)
        if bound is not None:
            require_same_element([x, bound], ["input", name])
            if bound.shape is not None and product(bound.shape) not in (1, None):
                raise InferError(f"operand '{name}' must be a scalar, got {bound}")
    return [x]


def infer_along_axis(ctx: InferContext) -> list[Type]:
    """Softmax, LogSoftmax, Hardmax, LpNormalization, CumSum attr form...: same type, valid ``axis``."""
    x = operand(ctx, 0, "input")
    if x.shape is not None:
        normalize_axis(ctx.attrs["axis"], len(x.shape), "attribute 'axis'")
    return [x]


# ============================================================ linear algebra


def matmul_shape(a: Shape | None, b: Shape | None) -> Shape | None:
    """numpy ``matmul`` result shape: 1-D operands promoted, batch dims broadcast."""
    if a is None or b is None:
        return None
    if not a or not b:
        raise InferError(f"matmul operands must have rank >= 1, got A {format_shape(a)} and B {format_shape(b)}")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] is not None and b2[-2] is not None and a2[-1] != b2[-2]:
        raise InferError(f"matmul contraction mismatch: A is {format_shape(a)} (K = {a2[-1]}), "
                         f"B is {format_shape(b)} (K = {b2[-2]})")
    batch = broadcast_shapes([a2[:-2], b2[:-2]], ["A (batch dims)", "B (batch dims)"])
    assert batch is not None
    return batch + ((a2[-2],) if len(a) > 1 else ()) + ((b2[-1],) if len(b) > 1 else ())


def swap_last_two(shape: tuple[int | None, ...] | None) -> tuple[int | None, ...] | None:
    """``shape`` with its last two axes swapped (unchanged below rank 2)."""
    if shape is None or len(shape) < 2:
        return shape
    return (*shape[:-2], shape[-1], shape[-2])


def infer_matmul(ctx: InferContext) -> list[Type]:
    a, b = operand(ctx, 0, "A"), operand(ctx, 1, "B")
    et = require_same_element([a, b], ["A", "B"])
    sa = swap_last_two(a.shape) if ctx.attrs["transA"] else a.shape
    sb = swap_last_two(b.shape) if ctx.attrs["transB"] else b.shape
    return [TensorType(matmul_shape(sa, sb), et)]


def verify_batch_matmul(op: Any) -> None:
    for value, name in zip(op.operands, ("A", "B")):
        rank = getattr(value.type, "rank", None)
        if rank is not None and rank < 3:
            raise InferError(f"ge.batch_matmul operand '{name}' must have rank >= 3, got {value.type}")


def infer_matmul_integer(ctx: InferContext) -> list[Type]:
    a, b = operand(ctx, 0, "A"), operand(ctx, 1, "B")
    for t, name in ((a, "A"), (b, "B")):
        require_element(t, "int", name)
    return [TensorType(matmul_shape(a.shape, b.shape), I32)]


def infer_qlinear_matmul(ctx: InferContext) -> list[Type]:
    a, b = operand(ctx, 0, "a"), operand(ctx, 3, "b")
    y_zero_point = operand(ctx, 7, "y_zero_point")
    return [TensorType(matmul_shape(a.shape, b.shape), y_zero_point.element_type)]


def infer_gemm(ctx: InferContext) -> list[Type]:
    a, b = operand(ctx, 0, "A"), operand(ctx, 1, "B")
    et = require_same_element([a, b], ["A", "B"])
    if a.shape is None or b.shape is None:
        return [dynamic(2, et)]
    for t, name in ((a, "A"), (b, "B")):
        if len(t.shape) != 2:  # type: ignore[arg-type]
            raise InferError(f"operand '{name}' of gemm must be 2-D, got {t}")
    m, ka = (a.shape[1], a.shape[0]) if ctx.attrs["transA"] else a.shape
    kb, n = (b.shape[1], b.shape[0]) if ctx.attrs["transB"] else b.shape
    if ka is not None and kb is not None and ka != kb:
        raise InferError(f"gemm contraction mismatch: op(A) is {m}x{ka}, op(B) is {kb}x{n} "
                         f"(transA = {ctx.attrs['transA']}, transB = {ctx.attrs['transB']})")
    c = optional_operand(ctx, 2, "C")
    if c is not None:
        unidirectional_broadcast((m, n), c.shape, "Y", "C")
    return [TensorType((m, n), et)]


def infer_det(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "X")
    require_element(x, "float", "X")
    if x.shape is None:
        return [x]
    if len(x.shape) < 2 or None not in x.shape[-2:] and x.shape[-1] != x.shape[-2]:
        raise InferError(f"operand 'X' of det must be a batch of square matrices, got {x}")
    return [x.with_shape(x.shape[:-2])]


# ========================================================= convolution, pooling


def _spatial_attr(ctx: InferContext, name: str, count: int, default: int) -> list[int]:
    values = ctx.attrs.get(name)
    if values is None:
        return [default] * count
    if len(values) != count:
        raise InferError(f"attribute '{name}' has {len(values)} values, expected {count}")
    return list(values)


def window_output_dims(ctx: InferContext, spatial: Sequence[Dim], kernel: Sequence[int],
                       ceil_mode: bool = False) -> list[Dim]:
    """Output spatial dims of a convolution or pooling window (ONNX ``convPoolShapeInference``).

    ``SAME_*`` gives ``ceil(in / stride)``; ``VALID`` is no padding; otherwise
    ``(in + pads - dilated_kernel) / stride + 1`` rounded down, or up with
    ``ceil_mode`` -- dropping a last window that would start in the right padding.
    """
    n = len(spatial)
    strides = _spatial_attr(ctx, "strides", n, 1)
    dilations = _spatial_attr(ctx, "dilations", n, 1)
    auto_pad = ctx.attrs.get("auto_pad", "NOTSET")
    pads = [0] * (2 * n) if auto_pad == "VALID" else _spatial_attr(ctx, "pads", 2 * n, 0)
    out: list[Dim] = []
    for i, d in enumerate(spatial):
        if strides[i] <= 0 or dilations[i] <= 0:
            raise InferError(f"strides and dilations must be positive, got strides = {strides}, "
                             f"dilations = {dilations}")
        if d is None:
            out.append(None)
            continue
        if auto_pad in SAME_PADDING:
            out.append(ceil_div(d, strides[i]))
            continue
        extent = (kernel[i] - 1) * dilations[i] + 1
        span = d + pads[i] + pads[i + n] - extent
        if ceil_mode:
            size = ceil_div(span, strides[i]) + 1
            if (size - 1) * strides[i] >= d + pads[i]:
                size -= 1
        else:
            size = span // strides[i] + 1
        if size <= 0:
            raise InferError(f"spatial dimension {i} of size {d} with pads ({pads[i]}, {pads[i + n]}) "
                             f"is smaller than the dilated kernel ({extent})")
        out.append(size)
    return out


def conv_shape(ctx: InferContext, x: TensorType, w: TensorType, b: TensorType | None,
               names: tuple[str, str, str] = ("X", "W", "B")) -> Shape | None:
    """The output shape of ONNX Conv (any spatial rank), checking channels and groups."""
    if x.shape is None:
        return None
    rank = len(x.shape)
    if rank < 3:
        raise InferError(f"operand '{names[0]}' must be N x C x spatial... (rank >= 3), got {x}")
    if w.shape is not None and len(w.shape) != rank:
        raise InferError(f"operand '{names[1]}' ({w}) must have the rank of '{names[0]}' ({rank})")
    group = positive_attr(ctx, "group")
    w_shape: Shape = w.shape if w.shape is not None else (None,) * rank
    channels, m = x.shape[1], w_shape[0]
    if channels is not None and channels % group:
        raise InferError(f"attribute 'group' = {group} does not divide the {channels} input channels")
    if channels is not None and w_shape[1] is not None and w_shape[1] * group != channels:
        raise InferError(f"operand '{names[1]}' expects {w_shape[1]} x {group} (group) = {w_shape[1] * group} "
                         f"input channels, but '{names[0]}' has {channels}")
    if m is not None and m % group:
        raise InferError(f"attribute 'group' = {group} does not divide the {m} output channels")
    if b is not None and b.shape is not None and (len(b.shape) != 1 or None not in (b.shape[0], m)
                                                  and b.shape[0] != m):
        raise InferError(f"operand '{names[2]}' must be 1-D of size {m}, got {b}")
    kernel = _kernel_shape(ctx, w_shape, names[1], w)
    if None in kernel:
        return (x.shape[0], m) + (None,) * (rank - 2)
    return (x.shape[0], m, *window_output_dims(ctx, x.shape[2:], kernel))


def _kernel_shape(ctx: InferContext, w_shape: Shape, w_name: str, w: TensorType) -> Sequence[Dim]:
    """A convolution's window: ``kernel_shape`` when given (one value per
    spatial dim, equal to the weight's where that is known), else the weight's
    spatial dims."""
    kernel = ctx.attrs.get("kernel_shape")
    if kernel is None:
        return w_shape[2:]
    if len(kernel) != len(w_shape) - 2:
        raise InferError(f"attribute 'kernel_shape' has {len(kernel)} values for {len(w_shape) - 2} spatial dims")
    if any(k < 1 for k in kernel):
        raise InferError(f"attribute 'kernel_shape' = {kernel} must be positive")
    for k, wk in zip(kernel, w_shape[2:]):
        if wk is not None and k != wk:
            raise InferError(f"attribute 'kernel_shape' = {kernel} disagrees with '{w_name}' ({w})")
    return kernel


def infer_conv(ctx: InferContext) -> list[Type]:
    x, w, b = operand(ctx, 0, "X"), operand(ctx, 1, "W"), optional_operand(ctx, 2, "B")
    et = require_same_element([x, w] + ([b] if b is not None else []), ["X", "W", "B"])
    return [TensorType(conv_shape(ctx, x, w, b), et)]


def infer_conv_integer(ctx: InferContext) -> list[Type]:
    x, w = operand(ctx, 0, "x"), operand(ctx, 1, "w")
    return [TensorType(conv_shape(ctx, x, w, None, ("x", "w", "B")), I32)]


def infer_qlinear_conv(ctx: InferContext) -> list[Type]:
    x, w, y_zero_point = operand(ctx, 0, "x"), operand(ctx, 3, "w"), operand(ctx, 7, "y_zero_point")
    b = optional_operand(ctx, 8, "B")
    return [TensorType(conv_shape(ctx, x, w, b, ("x", "w", "B")), y_zero_point.element_type)]


def infer_conv_transpose(ctx: InferContext) -> list[Type]:
    """ConvTranspose: ``stride*(in-1) + output_padding + dilated_kernel - pads``, or ``output_shape``."""
    x, w, b = operand(ctx, 0, "X"), operand(ctx, 1, "W"), optional_operand(ctx, 2, "B")
    et = require_same_element([x, w] + ([b] if b is not None else []), ["X", "W", "B"])
    if x.shape is None:
        return [unranked(et)]
    rank = len(x.shape)
    if rank < 3:
        raise InferError(f"operand 'X' must be N x C x spatial... (rank >= 3), got {x}")
    w_shape: Shape = w.shape if w.shape is not None else (None,) * rank
    if len(w_shape) != rank:
        raise InferError(f"operand 'W' ({w}) must have the rank of 'X' ({rank})")
    group = positive_attr(ctx, "group")
    if None not in (x.shape[1], w_shape[0]) and x.shape[1] != w_shape[0]:
        raise InferError(f"operand 'X' has {x.shape[1]} channels but 'W' ({w}) expects {w_shape[0]}")
    out_channels = dim_map(lambda c: c * group, w_shape[1])
    n = rank - 2
    kernel = _kernel_shape(ctx, w_shape, "W", w)
    output_shape = ctx.attrs.get("output_shape")
    if output_shape is not None:
        spatial = list(output_shape[-n:])
        if len(spatial) != n:
            raise InferError(f"attribute 'output_shape' = {output_shape} needs {n} spatial values")
        return [TensorType((x.shape[0], out_channels, *spatial), et)]
    strides = _spatial_attr(ctx, "strides", n, 1)
    dilations = _spatial_attr(ctx, "dilations", n, 1)
    output_padding = _spatial_attr(ctx, "output_padding", n, 0)
    auto_pad = ctx.attrs["auto_pad"]
    pads = [0] * (2 * n) if auto_pad != "NOTSET" else _spatial_attr(ctx, "pads", 2 * n, 0)
    spatial_out: list[Dim] = []
    for i, d in enumerate(x.shape[2:]):
        if d is None or kernel[i] is None:
            spatial_out.append(None)
        elif auto_pad in SAME_PADDING:
            spatial_out.append(d * strides[i])
        else:
            size = (strides[i] * (d - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1
                    - pads[i] - pads[i + n])
            if size <= 0:
                raise InferError(f"conv_transpose spatial dimension {i} would have size {size}")
            spatial_out.append(size)
    return [TensorType((x.shape[0], out_channels, *spatial_out), et)]


def _pool_shape(ctx: InferContext, x: TensorType) -> Shape | None:
    if x.shape is None:
        return None
    if len(x.shape) < 3:
        raise InferError(f"operand 'X' must be N x C x spatial... (rank >= 3), got {x}")
    kernel = ctx.attrs["kernel_shape"]
    if len(kernel) != len(x.shape) - 2:
        raise InferError(f"attribute 'kernel_shape' has {len(kernel)} values for {len(x.shape) - 2} spatial dims")
    if any(k <= 0 for k in kernel):
        raise InferError(f"attribute 'kernel_shape' = {list(kernel)} must be positive")
    return (*x.shape[:2], *window_output_dims(ctx, x.shape[2:], kernel, bool(ctx.attrs.get("ceil_mode", 0))))


def infer_pool(ctx: InferContext) -> list[Type]:
    """AveragePool, LpPool."""
    x = operand(ctx, 0, "X")
    return [x.with_shape(_pool_shape(ctx, x))]


def infer_max_pool(ctx: InferContext) -> list[Type]:
    """MaxPool: Y and, when declared, the i64 Indices of the maxima."""
    x = operand(ctx, 0, "X")
    shape = _pool_shape(ctx, x)
    results: list[Type] = [x.with_shape(shape)]
    if result_count(ctx, 1, 1, 2) == 2:
        results.append(TensorType(shape, I64))
    return results


def infer_global_pool(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "X")
    if x.shape is None:
        return [x]
    if len(x.shape) < 3:
        raise InferError(f"operand 'X' must be N x C x spatial... (rank >= 3), got {x}")
    return [x.with_shape((*x.shape[:2], *(1,) * (len(x.shape) - 2)))]


def infer_max_unpool(ctx: InferContext) -> list[Type]:
    x, indices = operand(ctx, 0, "X"), operand(ctx, 1, "I")
    require_element(indices, "index", "I")
    if x.shape is None:
        return [x]
    output_shape = constant_ints(ctx, 2)
    if output_shape is not None:
        return [x.with_shape(output_shape)]
    if has_operand(ctx, 2):
        return [dynamic(len(x.shape), x.element_type)]
    kernel = ctx.attrs["kernel_shape"]
    n = len(x.shape) - 2
    if n < 1 or len(kernel) != n:
        raise InferError(f"attribute 'kernel_shape' has {len(kernel)} values for 'X' ({x}): "
                         f"expected one per spatial dim of N x C x spatial...")
    strides = _spatial_attr(ctx, "strides", n, 1)
    pads = _spatial_attr(ctx, "pads", 2 * n, 0)
    spatial = [dim_map(lambda d: (d - 1) * strides[i] + kernel[i] - pads[i] - pads[i + n], d)
               for i, d in enumerate(x.shape[2:])]
    return [x.with_shape((*x.shape[:2], *spatial))]


def infer_roi_align(ctx: InferContext) -> list[Type]:
    x, rois, batch_indices = operand(ctx, 0, "X"), operand(ctx, 1, "rois"), operand(ctx, 2, "batch_indices")
    if x.shape is not None and len(x.shape) != 4:
        raise InferError(f"operand 'X' must be N x C x H x W, got {x}")
    if rois.shape is not None and (len(rois.shape) != 2 or rois.shape[1] not in (4, None)):
        raise InferError(f"operand 'rois' must be num_rois x 4, got {rois}")
    num_rois = rois.shape[0] if rois.shape is not None else None
    if num_rois is None and batch_indices.shape is not None and len(batch_indices.shape) == 1:
        num_rois = batch_indices.shape[0]
    channels = x.shape[1] if x.shape is not None else None
    return [x.with_shape((num_rois, channels, ctx.attrs["output_height"], ctx.attrs["output_width"]))]


def infer_grid_sample(ctx: InferContext) -> list[Type]:
    x, grid = operand(ctx, 0, "X"), operand(ctx, 1, "grid")
    if x.shape is None or grid.shape is None:
        return [unranked(x.element_type)]
    if len(x.shape) < 3 or len(grid.shape) != len(x.shape) or grid.shape[-1] not in (len(x.shape) - 2, None):
        raise InferError(f"operand 'grid' ({grid}) must be N x spatial... x {len(x.shape) - 2} for 'X' ({x})")
    return [x.with_shape((x.shape[0], x.shape[1], *grid.shape[1:-1]))]


# ============================================================= normalisation


def _require_channel_vector(t: TensorType, channels: Dim, name: str, what: str = "C") -> None:
    if t.shape is None:
        return
    if len(t.shape) != 1 or None not in (t.shape[0], channels) and t.shape[0] != channels:
        raise InferError(f"operand '{name}' must be 1-D of size {what} = {channels}, got {t}")


def infer_batch_norm(ctx: InferContext) -> list[Type]:
    """BatchNormalization: Y; in training mode also the running mean and variance."""
    x = operand(ctx, 0, "X")
    names = ("scale", "B", "input_mean", "input_var")
    params = [operand(ctx, i + 1, n) for i, n in enumerate(names)]
    channels = x.shape[1] if x.shape is not None and len(x.shape) > 1 else None
    for t, name in zip(params, names):
        _require_channel_vector(t, channels, name)
    training = bool(ctx.attrs["training_mode"])
    count = result_count(ctx, 3 if training else 1, 1, 3)
    if count > 1 and not training:
        raise InferError(f"batch_norm in inference mode (training_mode = 0) has 1 result, got {count}")
    return [x, params[2], params[3]][:count]


def infer_layer_norm(ctx: InferContext) -> list[Type]:
    """LayerNormalization: Y, then Mean and InvStdDev of shape ``X.shape[:axis] + 1...`` in stash_type."""
    x, scale = operand(ctx, 0, "X"), operand(ctx, 1, "Scale")
    count = result_count(ctx, 1, 1, 3)
    stash = ctx.attrs["stash_type"]
    if x.shape is None:
        return [x] + [unranked(stash)] * (count - 1)
    axis = normalize_axis(ctx.attrs["axis"], len(x.shape), "attribute 'axis'")
    unidirectional_broadcast(x.shape[axis:], scale.shape, "X (normalized dims)", "Scale")
    stats = TensorType((*x.shape[:axis], *(1,) * (len(x.shape) - axis)), stash)
    return [x, stats, stats][:count]


def infer_instance_norm(ctx: InferContext) -> list[Type]:
    x, scale, bias = operand(ctx, 0, "input"), operand(ctx, 1, "scale"), operand(ctx, 2, "B")
    channels = x.shape[1] if x.shape is not None and len(x.shape) > 1 else None
    _require_channel_vector(scale, channels, "scale")
    _require_channel_vector(bias, channels, "B")
    return [x]


def infer_group_norm(ctx: InferContext) -> list[Type]:
    x, scale, bias = operand(ctx, 0, "X"), operand(ctx, 1, "scale"), operand(ctx, 2, "bias")
    groups = positive_attr(ctx, "num_groups")
    channels = x.shape[1] if x.shape is not None and len(x.shape) > 1 else None
    if channels is not None and channels % groups:
        raise InferError(f"attribute 'num_groups' = {groups} does not divide the {channels} channels")
    for t, name in ((scale, "scale"), (bias, "bias")):
        # opset 18 had one scale per group, opset 21 one per channel
        size = t.shape[0] if t.shape is not None and len(t.shape) == 1 else None
        if size not in (channels, groups, None) or t.shape is not None and len(t.shape) != 1:
            raise InferError(f"operand '{name}' must be 1-D of size C = {channels} (or num_groups = {groups}), got {t}")
    return [x]


def infer_rms_norm(ctx: InferContext) -> list[Type]:
    x, scale = operand(ctx, 0, "X"), operand(ctx, 1, "scale")
    if x.shape is not None:
        axis = normalize_axis(ctx.attrs["axis"], len(x.shape), "attribute 'axis'")
        unidirectional_broadcast(x.shape[axis:], scale.shape, "X (normalized dims)", "scale")
    return [x]


# ==================================================================== shapes


def infer_reshape(ctx: InferContext) -> list[Type]:
    """Reshape: ``0`` copies the input dim (unless allowzero), one ``-1`` is inferred."""
    x, shape_t = operand(ctx, 0, "data"), operand(ctx, 1, "shape")
    require_element(shape_t, "index", "shape")
    target = constant_ints(ctx, 1)
    if target is None:
        length = static_length(shape_t)
        return [unranked(x.element_type) if length is None else dynamic(length, x.element_type)]
    allowzero = bool(ctx.attrs["allowzero"])
    if target.count(-1) > 1:
        raise InferError(f"operand 'shape' = {target} has more than one -1")
    if allowzero and 0 in target and -1 in target:
        raise InferError(f"operand 'shape' = {target} has both 0 and -1 with allowzero = 1")
    out: list[Dim] = []
    for i, t in enumerate(target):
        if t == 0 and not allowzero:
            if x.shape is not None and i >= len(x.shape):
                raise InferError(f"operand 'shape'[{i}] = 0 copies input dimension {i}, "
                                 f"but 'data' has rank {len(x.shape)}")
            out.append(None if x.shape is None else x.shape[i])
        elif t < -1:
            raise InferError(f"operand 'shape'[{i}] = {t} is negative")
        else:
            out.append(t)
    if x.shape is None:
        return [x.with_shape([None if t == -1 else d for t, d in zip(target, out)])]
    # a dim copied by 0 is on both sides, so it cancels even when unknown: ?x3x4 -> [0, -1] is ?x12
    copied = {i for i, t in enumerate(target) if t == 0 and not allowzero}
    rest_in = product(d for i, d in enumerate(x.shape) if i not in copied)
    rest_out = product(d for i, d in enumerate(out) if i not in copied and target[i] != -1)
    total = product(x.shape)
    if -1 in target:
        k = target.index(-1)
        if rest_in is None or rest_out is None:
            out[k] = None
        elif rest_out == 0 or rest_in % rest_out:
            raise InferError(f"cannot reshape {format_shape(x.shape)} ({total} elements) to {target}")
        else:
            out[k] = rest_in // rest_out
    elif None not in (rest_in, rest_out) and rest_in != rest_out:
        raise InferError(f"cannot reshape {format_shape(x.shape)} ({total} elements) to {target} "
                         f"({product(out)} elements)")
    return [x.with_shape(out)]


def infer_flatten(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    if x.shape is None:
        return [dynamic(2, x.element_type)]
    rank = len(x.shape)
    axis = ctx.attrs["axis"]
    if not -rank <= axis <= rank:  # axis = rank is valid: everything goes to the first dim
        raise InferError(f"attribute 'axis' {axis} is out of range for rank {rank} (expected {-rank} to {rank})")
    axis %= rank + 1 if axis >= 0 else rank
    return [x.with_shape((product(x.shape[:axis]), product(x.shape[axis:])))]


def transpose_perm(perm: Sequence[int] | None, rank: int) -> list[int]:
    """A transpose's permutation of ``rank`` axes: ``perm``, or ONNX's default, the
    axes reversed, when it is not given."""
    return [int(p) for p in perm] if perm is not None else list(range(rank))[::-1]


def infer_transpose(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "data")
    if x.shape is None:
        return [x]
    rank = len(x.shape)
    perm = transpose_perm(ctx.attrs.get("perm"), rank)
    if sorted(perm) != list(range(rank)):
        raise InferError(f"attribute 'perm' = {perm} is not a permutation of 0..{rank - 1}")
    return [x.with_shape([x.shape[p] for p in perm])]


def _axes_operand_or_attr(ctx: InferContext, index: int) -> tuple[list[int] | None, bool]:
    """Axes given as operand ``index`` (opset 13+) or attribute ``axes`` (earlier).

    Returns (axes, known): axes None with known True means "not given".
    """
    if has_operand(ctx, index):
        values = constant_ints(ctx, index)
        return values, values is not None
    return ctx.attrs.get("axes"), True


def infer_squeeze(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "data")
    axes, known = _axes_operand_or_attr(ctx, 1)
    if x.shape is None:
        return [x]
    if not known:
        length = static_length(operand(ctx, 1, "axes"))
        return [unranked(x.element_type) if length is None else dynamic(len(x.shape) - length, x.element_type)]
    if axes is None:
        if None in x.shape:  # which dims are 1 is unknown
            return [unranked(x.element_type)]
        return [x.with_shape([d for d in x.shape if d != 1])]
    axes = normalize_axes(axes, len(x.shape), "axes")
    for a in axes:
        if x.shape[a] not in (1, None):
            raise InferError(f"cannot squeeze axis {a} of size {x.shape[a]} (shape {format_shape(x.shape)})")
    return [x.with_shape([d for i, d in enumerate(x.shape) if i not in axes])]


def infer_unsqueeze(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "data")
    axes, known = _axes_operand_or_attr(ctx, 1)
    if axes is None and known:
        raise InferError("unsqueeze needs axes (operand 'axes' or attribute 'axes')")
    if x.shape is None:
        return [x]
    if not known:
        length = static_length(operand(ctx, 1, "axes"))
        return [unranked(x.element_type) if length is None else dynamic(len(x.shape) + length, x.element_type)]
    rank = len(x.shape) + len(axes)  # type: ignore[arg-type]
    axes = normalize_axes(axes, rank, "axes")  # type: ignore[arg-type]
    dims = iter(x.shape)
    return [x.with_shape([1 if i in axes else next(dims) for i in range(rank)])]


def infer_concat(ctx: InferContext) -> list[Type]:
    if not ctx.operand_types:
        raise InferError("concat needs at least one operand")
    names = [f"inputs[{i}]" for i in range(len(ctx.operand_types))]
    types = [operand(ctx, i, n) for i, n in enumerate(names)]
    et = require_same_element(types, names)
    ranked = [t for t in types if t.shape is not None]
    if not ranked:
        return [unranked(et)]
    rank = len(ranked[0].shape)  # type: ignore[arg-type]
    axis = normalize_axis(ctx.attrs["axis"], rank, "attribute 'axis'")
    out: list[Dim] = list(ranked[0].shape)  # type: ignore[arg-type]
    out[axis] = 0
    for t, name in zip(types, names):
        if t.shape is None:
            out[axis] = None
            continue
        if len(t.shape) != rank:
            raise InferError(f"operand '{name}' has rank {len(t.shape)}, expected {rank}")
        for i, d in enumerate(t.shape):
            if i == axis:
                out[axis] = dim_map(lambda a, b: a + b, out[axis], d)
            elif d is not None:
                if out[i] is not None and out[i] != d:
                    raise InferError(f"operand '{name}' ({format_shape(t.shape)}) has dimension {i} = {d}, "
                                     f"expected {out[i]} (all but axis {axis} must match)")
                out[i] = d
    return [TensorType(out, et)]


def infer_split(ctx: InferContext) -> list[Type]:
    """Split into ``split`` sizes, or ``num_outputs`` chunks of ``ceil(dim / n)`` (last smaller)."""
    x = operand(ctx, 0, "input")
    sizes: list[int] | None
    sizes_known = True
    if has_operand(ctx, 1):
        sizes = constant_ints(ctx, 1)
        sizes_known = sizes is not None
    else:
        sizes = ctx.attrs.get("split")
    num_outputs = ctx.attrs.get("num_outputs")
    if sizes is not None:
        count = len(sizes)
    elif not sizes_known:
        count = static_length(operand(ctx, 1, "split")) or len(ctx.result_types)
    else:
        count = num_outputs or len(ctx.result_types)
    if not count:
        raise InferError("split needs 'num_outputs', split sizes or declared results")
    for claimed, what in ((num_outputs, "attribute 'num_outputs'"), (len(ctx.result_types), "declared results")):
        if claimed and claimed != count:
            raise InferError(f"{what} ({claimed}) disagrees with the {count} outputs of the split")
    if x.shape is None:
        return [x] * count
    axis = normalize_axis(ctx.attrs["axis"], len(x.shape), "attribute 'axis'")
    dim = x.shape[axis]
    chunks: list[Dim]
    if sizes is not None:
        if any(s < 0 for s in sizes):
            raise InferError(f"split sizes {sizes} must not be negative")
        if dim is not None and sum(sizes) != dim:
            raise InferError(f"split sizes {sizes} sum to {sum(sizes)}, but dimension {axis} is {dim}")
        chunks = list(sizes)
    elif not sizes_known or dim is None:
        chunks = [None] * count
    else:
        chunk = ceil_div(dim, count)
        last = dim - chunk * (count - 1)
        if last < 0:
            raise InferError(f"cannot split dimension {axis} of size {dim} into {count} outputs")
        chunks = [chunk] * (count - 1) + [last]
    return [x.with_shape([c if i == axis else d for i, d in enumerate(x.shape)]) for c in chunks]


def slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int]:
    """The ``start`` and ``end`` of a ``start:end:step`` slice of a dim of size ``dim``,
    negative ones counted from the end and clamped as ONNX clamps them (``step`` not 0)."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        return min(max(start, 0), dim), min(max(end, 0), dim)
    return min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)


def slice_dim(dim: int, start: int, end: int, step: int) -> int:
    """Elements a ``start:end:step`` slice takes of a dim of size ``dim`` (ONNX clamping)."""
    if step == 0:
        raise InferError("slice step must not be 0")
    start, end = slice_bounds(dim, start, end, step)
    return max(0, ceil_div(end - start, step))


def _slice_arg(ctx: InferContext, index: int, attr: str) -> tuple[list[int] | None, bool]:
    """A Slice argument from operand ``index`` (opset 10+) or attribute ``attr`` (opset 1)."""
    if index < len(ctx.operand_types):
        if ctx.operand_types[index] is NONE:
            return None, True
        values = constant_ints(ctx, index)
        return values, values is not None
    return ctx.attrs.get(attr), True


def slice_ranges(ctx: InferContext) -> dict[int, tuple[int, int, int]] | None:
    """Per axis a Slice cuts, its ``(start, end, step)`` clamped as ONNX clamps them
    (:func:`slice_bounds`; ``range(start, end, step)`` is what it takes); None unless
    every argument is a constant and every sliced dim static."""
    x = operand(ctx, 0, "data")
    if x.shape is None:
        return None
    starts, _ = _slice_arg(ctx, 1, "starts")
    ends, _ = _slice_arg(ctx, 2, "ends")
    axes, axes_known = _slice_arg(ctx, 3, "axes")
    steps, steps_known = _slice_arg(ctx, 4, "steps")
    if starts is None or ends is None or not axes_known or not steps_known:
        return None
    try:
        axes = normalize_axes(axes if axes is not None else range(len(starts)), len(x.shape), "slice axes")
    except InferError:
        return None
    steps = steps if steps is not None else [1] * len(axes)
    if not len(starts) == len(ends) == len(steps) == len(axes):
        return None
    ranges = {}
    for a, start, end, step in zip(axes, starts, ends, steps):
        dim = x.shape[a]
        if not isinstance(dim, int) or step == 0:
            return None
        ranges[a] = (*slice_bounds(dim, start, end, step), step)
    return ranges


def infer_slice(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "data")
    if x.shape is None:
        return [x]
    rank = len(x.shape)
    starts, starts_known = _slice_arg(ctx, 1, "starts")
    ends, ends_known = _slice_arg(ctx, 2, "ends")
    axes, axes_known = _slice_arg(ctx, 3, "axes")
    steps, steps_known = _slice_arg(ctx, 4, "steps")
    if not axes_known:
        return [dynamic(rank, x.element_type)]
    if starts is None and starts_known or ends is None and ends_known:
        raise InferError("slice needs starts and ends")
    if axes is None:
        # the default axes are the first len(starts): unknown when starts is an unknown value
        n = len(starts) if starts is not None else len(ends) if ends is not None else static_length(
            operand(ctx, 1, "starts"))
        axes = range(rank if n is None else n)
    axes = normalize_axes(axes, rank, "slice axes")
    out = list(x.shape)
    if not (starts_known and ends_known and steps_known):
        for a in axes:
            out[a] = None
        return [x.with_shape(out)]
    steps = steps if steps is not None else [1] * len(axes)
    for what, values in (("starts", starts), ("ends", ends), ("steps", steps)):
        if len(values) != len(axes):  # type: ignore[arg-type]
            raise InferError(f"slice {what} has {len(values)} values for {len(axes)} axes")  # type: ignore[arg-type]
    for a, s, e, st in zip(axes, starts, ends, steps):  # type: ignore[arg-type]
        out[a] = dim_map(lambda d: slice_dim(d, s, e, st), x.shape[a])
    return [x.with_shape(out)]


def infer_gather(ctx: InferContext) -> list[Type]:
    data, indices = operand(ctx, 0, "data"), operand(ctx, 1, "indices")
    require_element(indices, "index", "indices")
    if data.shape is None or indices.shape is None:
        return [unranked(data.element_type)]
    axis = normalize_axis(ctx.attrs["axis"], len(data.shape), "attribute 'axis'")
    return [data.with_shape((*data.shape[:axis], *indices.shape, *data.shape[axis + 1:]))]


def infer_gather_elements(ctx: InferContext) -> list[Type]:
    data, indices = operand(ctx, 0, "data"), operand(ctx, 1, "indices")
    require_element(indices, "index", "indices")
    if data.shape is not None and indices.shape is not None:
        if len(data.shape) != len(indices.shape):
            raise InferError(f"operands 'data' ({data}) and 'indices' ({indices}) must have the same rank")
        normalize_axis(ctx.attrs["axis"], len(data.shape), "attribute 'axis'")
    return [TensorType(indices.shape, data.element_type)]


def infer_gather_nd(ctx: InferContext) -> list[Type]:
    data, indices = operand(ctx, 0, "data"), operand(ctx, 1, "indices")
    require_element(indices, "index", "indices")
    if data.shape is None or indices.shape is None or not indices.shape or indices.shape[-1] is None:
        return [unranked(data.element_type)]
    batch_dims = ctx.attrs["batch_dims"]
    depth = indices.shape[-1]
    if batch_dims + depth > len(data.shape):
        raise InferError(f"operand 'indices' ({indices}) indexes {depth} dims after {batch_dims} batch dims, "
                         f"but 'data' has rank {len(data.shape)}")
    return [data.with_shape((*indices.shape[:-1], *data.shape[batch_dims + depth:]))]


def infer_scatter(ctx: InferContext) -> list[Type]:
    """ScatterElements, ScatterND, Scatter: the data's type; updates must match it."""
    data, indices, updates = operand(ctx, 0, "data"), operand(ctx, 1, "indices"), operand(ctx, 2, "updates")
    require_element(indices, "index", "indices")
    require_same_element([data, updates], ["data", "updates"])
    return [data]


def infer_expand(ctx: InferContext) -> list[Type]:
    x, shape_t = operand(ctx, 0, "input"), operand(ctx, 1, "shape")
    target = constant_ints(ctx, 1)
    if target is None:
        length = static_length(shape_t)
        if length is None or x.shape is None:
            return [unranked(x.element_type)]
        target_shape: Shape = (None,) * length
    else:
        target_shape = tuple(target)
    return [x.with_shape(broadcast_shapes([x.shape, target_shape], ["input", "shape"]))]


def infer_tile(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    if x.shape is None:
        return [x]
    repeats = constant_ints(ctx, 1)
    if repeats is None:
        return [dynamic(len(x.shape), x.element_type)]
    if len(repeats) != len(x.shape):
        raise InferError(f"operand 'repeats' has {len(repeats)} values for rank {len(x.shape)}")
    return [x.with_shape([dim_map(lambda d: d * r, d) for d, r in zip(x.shape, repeats)])]


def infer_pad(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "data")
    if x.shape is None:
        return [x]
    rank = len(x.shape)
    pads, pads_known = _slice_arg(ctx, 1, "pads")
    axes, axes_known = _slice_arg(ctx, 3, "axes")
    if not axes_known:
        return [dynamic(rank, x.element_type)]
    if pads is None and pads_known:
        raise InferError("pad needs pads")
    axes = normalize_axes(axes if axes is not None else range(rank), rank, "pad axes")
    out = list(x.shape)
    if not pads_known:
        for a in axes:
            out[a] = None
        return [x.with_shape(out)]
    if len(pads) != 2 * len(axes):  # type: ignore[arg-type]
        raise InferError(f"pads has {len(pads)} values, "  # type: ignore[arg-type]
                         f"expected {2 * len(axes)} (begin and end per axis)")
    n = len(axes)
    for i, a in enumerate(axes):
        size = dim_map(lambda d: d + pads[i] + pads[i + n], x.shape[a])  # type: ignore[index]
        if size is not None and size < 0:
            raise InferError(f"pads {pads} shrink axis {a} of size {x.shape[a]} below zero")
        out[a] = size
    return [x.with_shape(out)]


def _require_rank(t: TensorType, rank: int, name: str, layout: str = "") -> None:
    if t.shape is not None and len(t.shape) != rank:
        raise InferError(f"operand '{name}' must have rank {rank}{' (' + layout + ')' if layout else ''}, got {t}")


def infer_depth_to_space(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    _require_rank(x, 4, "input", "N x C x H x W")
    if x.shape is None:
        return [x]
    b = positive_attr(ctx, "blocksize")
    n, c, h, w = x.shape
    if c is not None and c % (b * b):
        raise InferError(f"depth_to_space: channels {c} are not divisible by blocksize^2 = {b * b}")
    return [x.with_shape((n, dim_map(lambda c: c // (b * b), c), dim_map(lambda h: h * b, h),
                          dim_map(lambda w: w * b, w)))]


def infer_space_to_depth(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    _require_rank(x, 4, "input", "N x C x H x W")
    if x.shape is None:
        return [x]
    b = positive_attr(ctx, "blocksize")
    n, c, h, w = x.shape
    for d, what in ((h, "height"), (w, "width")):
        if d is not None and d % b:
            raise InferError(f"space_to_depth: {what} {d} is not divisible by blocksize {b}")
    return [x.with_shape((n, dim_map(lambda c: c * b * b, c), dim_map(lambda h: h // b, h),
                          dim_map(lambda w: w // b, w)))]


def shape_range(rank: int, start: int, end: int | None) -> range:
    """The dims ``ge.shape {start, end}`` reads of a rank-``rank`` value
    (negative counts from the back; both clamped to the rank, as ONNX's Shape)."""

    def clamp(i: int) -> int:
        return min(max(i + rank if i < 0 else i, 0), rank)

    return range(clamp(start), rank if end is None else max(clamp(start), clamp(end)))


def shape_dims(op: Any) -> list[Dim] | None:
    """The dims a ``ge.shape`` op's result holds (``None`` for a dynamic one), or
    None when its operand has no static rank: what folds, and what stays."""
    t = op.operands[0].type
    if not isinstance(t, TensorType) or t.shape is None:
        return None
    start = op.get_attr("start", 0)
    return [t.shape[k] for k in shape_range(len(t.shape), 0 if start is None else start, op.get_attr("end"))]


def infer_shape(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "data")
    if x.shape is None:
        return [dynamic(1, I64)]
    return [TensorType((len(shape_range(len(x.shape), ctx.attrs["start"], ctx.attrs.get("end"))),), I64)]


def infer_size(ctx: InferContext) -> list[Type]:
    operand(ctx, 0, "data")
    return [TensorType((), I64)]


def infer_constant_of_shape(ctx: InferContext) -> list[Type]:
    shape_t = operand(ctx, 0, "input")
    value = ctx.attrs.raw("value")
    et = value.type.element_type if value is not None else F32  # type: ignore[union-attr]
    dims = constant_ints(ctx, 0)
    if dims is None:
        length = static_length(shape_t)
        return [unranked(et) if length is None else dynamic(length, et)]
    if any(d < 0 for d in dims):
        raise InferError(f"operand 'input' = {dims} has a negative dimension")
    return [TensorType(dims, et)]


def infer_range(ctx: InferContext) -> list[Type]:
    names = ("start", "limit", "delta")
    types = [operand(ctx, i, n) for i, n in enumerate(names)]
    et = require_same_element(types, names)
    for t, name in zip(types, names):
        if t.shape is not None and product(t.shape) not in (1, None):
            raise InferError(f"operand '{name}' must be a scalar, got {t}")
    values = [constant_array(ctx, i) for i in range(3)]
    if any(v is None for v in values):
        return [dynamic(1, et)]
    start, limit, delta = (v.reshape(-1)[0].item() for v in values)  # type: ignore[union-attr]
    if delta == 0:
        raise InferError("operand 'delta' must not be 0")
    count = (limit - start) / delta
    if not math.isfinite(count):
        raise InferError(f"range from {start} to {limit} by {delta} has no finite length")
    return [TensorType((max(math.ceil(count), 0),), et)]


def infer_one_hot(ctx: InferContext) -> list[Type]:
    indices, values = operand(ctx, 0, "indices"), operand(ctx, 2, "values")
    operand(ctx, 1, "depth")
    if values.shape is not None and product(values.shape) not in (2, None):
        raise InferError(f"operand 'values' must hold [off_value, on_value], got {values}")
    if indices.shape is None:
        return [unranked(values.element_type)]
    depth_values = constant_floats(ctx, 1)
    depth: Dim = None
    if depth_values is not None:
        if len(depth_values) != 1:
            raise InferError(f"operand 'depth' must hold one value, got {len(depth_values)}")
        if not (math.isfinite(depth_values[0]) and depth_values[0] >= 1):
            raise InferError(f"operand 'depth' must be a positive number, got {depth_values[0]}")
        depth = int(depth_values[0])
    rank = len(indices.shape) + 1
    axis = normalize_axis(ctx.attrs["axis"], rank, "attribute 'axis'")
    out = list(indices.shape)
    out.insert(axis, depth)
    return [TensorType(out, values.element_type)]


def infer_eye_like(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    _require_rank(x, 2, "input")
    return [x.with_element_type(ctx.attrs.get("dtype") or x.element_type)]


def _positive_scales(scales: Sequence[float] | None, what: str) -> Sequence[float] | None:
    """``scales`` when every one is a finite positive number (ONNX's rule);
    an InferError naming ``what`` otherwise."""
    if scales is not None and not all(math.isfinite(v) and v > 0 for v in scales):
        raise InferError(f"{what} must be finite and positive, got {list(scales)}")
    return scales


def infer_resize(ctx: InferContext) -> list[Type]:
    """Resize: ``sizes`` (with keep_aspect_ratio_policy) or ``floor(in * scale)``."""
    x = operand(ctx, 0, "X")
    if x.shape is None:
        return [x]
    rank = len(x.shape)
    axes = normalize_axes(ctx.attrs.get("axes") or range(rank), rank, "attribute 'axes'")

    def given(index: int, name: str) -> TensorType | None:
        # opset 11-12 pass an empty tensor for an unused scales/roi
        t = optional_operand(ctx, index, name)
        return None if t is None or static_length(t) == 0 else t

    scales_t, sizes_t = given(2, "scales"), given(3, "sizes")
    if scales_t is not None and sizes_t is not None:
        raise InferError("resize takes either 'scales' or 'sizes', not both")
    if scales_t is None and sizes_t is None:
        raise InferError("resize needs 'scales' or 'sizes'")
    out = list(x.shape)
    if sizes_t is not None:
        sizes = constant_ints(ctx, 3)
        if sizes is not None and len(sizes) != len(axes):
            raise InferError(f"operand 'sizes' has {len(sizes)} values for {len(axes)} axes")
        if sizes is not None and any(v < 0 for v in sizes):
            raise InferError(f"operand 'sizes' must be non-negative, got {sizes}")
        policy = ctx.attrs["keep_aspect_ratio_policy"]
        if sizes is not None and policy != "stretch":
            in_dims = [x.shape[a] for a in axes]
            if None in in_dims or 0 in in_dims:  # an empty axis has no aspect ratio to keep
                sizes = None
            else:
                ratios = [s / d for s, d in zip(sizes, in_dims)]  # type: ignore[operator]
                scale = min(ratios) if policy == "not_larger" else max(ratios)
                sizes = [int(scale * d + 0.5) for d in in_dims]  # type: ignore[operator]
        for i, a in enumerate(axes):
            out[a] = None if sizes is None else sizes[i]
        return [x.with_shape(out)]
    scales = _positive_scales(constant_floats(ctx, 2), "operand 'scales'")
    if scales is not None and len(scales) != len(axes):
        raise InferError(f"operand 'scales' has {len(scales)} values for {len(axes)} axes")
    for i, a in enumerate(axes):
        out[a] = None if scales is None else dim_map(lambda d: int(math.floor(d * scales[i])), x.shape[a])
    return [x.with_shape(out)]


def infer_upsample(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "X")
    if x.shape is None:
        return [x]
    scales = _positive_scales(constant_floats(ctx, 1) if has_operand(ctx, 1) else ctx.attrs.get("scales"),
                              "upsample scales")
    if scales is None:
        return [dynamic(len(x.shape), x.element_type)]
    if len(scales) != len(x.shape):
        raise InferError(f"upsample scales has {len(scales)} values for rank {len(x.shape)}")
    return [x.with_shape([dim_map(lambda d: int(math.floor(d * s)), d) for d, s in zip(x.shape, scales)])]


def infer_center_crop_pad(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input_data")
    if x.shape is None:
        return [x]
    rank = len(x.shape)
    axes = normalize_axes(ctx.attrs.get("axes") or range(rank), rank, "attribute 'axes'")
    shape = constant_ints(ctx, 1)
    if shape is not None and len(shape) != len(axes):
        raise InferError(f"operand 'shape' has {len(shape)} values for {len(axes)} axes")
    out = list(x.shape)
    for i, a in enumerate(axes):
        out[a] = None if shape is None else shape[i]
    return [x.with_shape(out)]


def infer_affine_grid(ctx: InferContext) -> list[Type]:
    theta = operand(ctx, 0, "theta")
    size = constant_ints(ctx, 1)
    if size is None:
        length = static_length(operand(ctx, 1, "size"))
        return [unranked(theta.element_type) if length is None else dynamic(length, theta.element_type)]
    if len(size) not in (4, 5):
        raise InferError(f"operand 'size' must be (N, C, H, W) or (N, C, D, H, W), got {size}")
    return [TensorType((size[0], *size[2:], len(size) - 2), theta.element_type)]


def infer_trilu(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    if x.shape is not None and len(x.shape) < 2:
        raise InferError(f"operand 'input' must have rank >= 2, got {x}")
    return [x]


def infer_cumulative(ctx: InferContext) -> list[Type]:
    """CumSum, CumProd: same type; ``axis`` is a scalar integer operand."""
    x, axis_t = operand(ctx, 0, "x"), operand(ctx, 1, "axis")
    require_element(axis_t, "index", "axis")
    axis = constant_scalar_int(ctx, 1, "axis")
    if axis is not None and x.shape is not None:
        normalize_axis(axis, len(x.shape), "operand 'axis'")
    return [x]


def infer_reverse_sequence(ctx: InferContext) -> list[Type]:
    x, lens = operand(ctx, 0, "input"), operand(ctx, 1, "sequence_lens")
    if x.shape is not None:
        if len(x.shape) < 2:
            raise InferError(f"operand 'input' must have rank >= 2, got {x}")
        batch = x.shape[normalize_axis(ctx.attrs["batch_axis"], len(x.shape), "attribute 'batch_axis'")]
        normalize_axis(ctx.attrs["time_axis"], len(x.shape), "attribute 'time_axis'")
        _require_channel_vector(lens, batch, "sequence_lens", "batch")
    return [x]


# ================================================================ reductions


def infer_reduce(ctx: InferContext) -> list[Type]:
    """Reduce*: axes from operand 1 (opset 13/18+) or attribute; keepdims; noop_with_empty_axes."""
    x = operand(ctx, 0, "data")
    keepdims = bool(ctx.attrs["keepdims"])
    axes, known = _axes_operand_or_attr(ctx, 1)
    if x.shape is None:
        return [x]
    rank = len(x.shape)
    if not known:
        if keepdims:
            return [dynamic(rank, x.element_type)]
        length = static_length(operand(ctx, 1, "axes"))
        return [unranked(x.element_type) if length is None else dynamic(rank - length, x.element_type)]
    if not axes:
        if ctx.attrs["noop_with_empty_axes"]:
            return [x]
        axes = list(range(rank))
    axes = normalize_axes(axes, rank, "reduction axes")
    if keepdims:
        return [x.with_shape([1 if i in axes else d for i, d in enumerate(x.shape)])]
    return [x.with_shape([d for i, d in enumerate(x.shape) if i not in axes])]


def infer_arg_reduce(ctx: InferContext) -> list[Type]:
    """ArgMax, ArgMin: i64 indices along ``axis``."""
    x = operand(ctx, 0, "data")
    if x.shape is None:
        return [unranked(I64)]
    axis = normalize_axis(ctx.attrs["axis"], len(x.shape), "attribute 'axis'")
    if ctx.attrs["keepdims"]:
        return [TensorType([1 if i == axis else d for i, d in enumerate(x.shape)], I64)]
    return [TensorType([d for i, d in enumerate(x.shape) if i != axis], I64)]


def infer_top_k(ctx: InferContext) -> list[Type]:
    """TopK: Values (X's type) and i64 Indices, ``k`` long along ``axis``."""
    x = operand(ctx, 0, "X")
    k = constant_scalar_int(ctx, 1, "K") if has_operand(ctx, 1) else ctx.attrs.get("k")
    if x.shape is None:
        return [x, unranked(I64)]
    axis = normalize_axis(ctx.attrs["axis"], len(x.shape), "attribute 'axis'")
    dim = x.shape[axis]
    if k is not None and (k < 0 or dim is not None and k > dim):
        raise InferError(f"top_k: k = {k} is out of range for axis {axis} of size {dim}")
    shape = [k if i == axis else d for i, d in enumerate(x.shape)]
    return [x.with_shape(shape), TensorType(shape, I64)]


# ============================================================ type conversion


def infer_cast(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    to = ctx.attrs["to"]
    if not isinstance(to, (IntegerType, FloatType)) and not str(to).startswith("!"):
        raise InferError(f"attribute 'to' must be an element type, got {to}")
    return [x.with_element_type(to)]


def infer_cast_like(ctx: InferContext) -> list[Type]:
    x, target = operand(ctx, 0, "input"), operand(ctx, 1, "target_type")
    return [x.with_element_type(target.element_type)]


def infer_quantize_linear(ctx: InferContext) -> list[Type]:
    """QuantizeLinear: the zero point's type, else ``output_dtype``, else ui8."""
    x = operand(ctx, 0, "x")
    operand(ctx, 1, "y_scale")
    zero_point = optional_operand(ctx, 2, "y_zero_point")
    et = zero_point.element_type if zero_point is not None else ctx.attrs.get("output_dtype") or UI8
    return [x.with_element_type(et)]


def infer_dequantize_linear(ctx: InferContext) -> list[Type]:
    """DequantizeLinear: ``output_dtype``, else the scale's type."""
    x, scale = operand(ctx, 0, "x"), operand(ctx, 1, "x_scale")
    return [x.with_element_type(ctx.attrs.get("output_dtype") or scale.element_type)]


def infer_dynamic_quantize_linear(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "x")
    require_element(x, "float", "x")
    return [x.with_element_type(UI8), TensorType((), F32), TensorType((), UI8)]


# ===================================================== data-dependent shapes


def infer_nms(ctx: InferContext) -> list[Type]:
    """NonMaxSuppression: ``?x3`` i64 (batch, class, box) triples."""
    boxes, scores = operand(ctx, 0, "boxes"), operand(ctx, 1, "scores")
    _require_rank(boxes, 3, "boxes", "num_batches x spatial_dimension x 4")
    _require_rank(scores, 3, "scores", "num_batches x num_classes x spatial_dimension")
    if boxes.shape is not None and scores.shape is not None:
        if boxes.shape[2] not in (4, None):
            raise InferError(f"operand 'boxes' must end in 4 coordinates, got {boxes}")
        for i, j, what in ((0, 0, "batches"), (1, 2, "boxes")):
            b, s = boxes.shape[i], scores.shape[j]
            if None not in (b, s) and b != s:
                raise InferError(f"operands 'boxes' ({boxes}) and 'scores' ({scores}) disagree on the number "
                                 f"of {what}: {b} vs {s}")
    return [TensorType((None, 3), I64)]


def infer_nonzero(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "X")
    return [TensorType((None if x.shape is None else len(x.shape), None), I64)]


def infer_unique(ctx: InferContext) -> list[Type]:
    """Unique: Y, indices, inverse_indices, counts (declared prefix of them)."""
    x = operand(ctx, 0, "X")
    count = result_count(ctx, 1, 1, 4)
    axis = ctx.attrs.get("axis")
    if axis is None or x.shape is None:
        y = dynamic(1, x.element_type) if axis is None else unranked(x.element_type)
        inverse: Dim = product(x.shape) if axis is None and x.shape is not None else None
    else:
        axis = normalize_axis(axis, len(x.shape), "attribute 'axis'")
        y = x.with_shape([None if i == axis else d for i, d in enumerate(x.shape)])
        inverse = x.shape[axis]
    per_unique = TensorType((None,), I64)
    return [y, per_unique, TensorType((inverse,), I64), per_unique][:count]


def infer_compress(ctx: InferContext) -> list[Type]:
    """Compress: exact when the condition is a constant, dynamic along the axis otherwise."""
    x, cond = operand(ctx, 0, "input"), operand(ctx, 1, "condition")
    require_element(cond, "bool", "condition")
    _require_rank(cond, 1, "condition")
    value = constant_array(ctx, 1)
    kept: Dim = None if value is None else int(np.count_nonzero(value))
    axis = ctx.attrs.get("axis")
    if axis is None:
        return [TensorType((kept,), x.element_type)]
    if x.shape is None:
        return [x]
    axis = normalize_axis(axis, len(x.shape), "attribute 'axis'")
    if value is not None and x.shape[axis] is not None and value.size > x.shape[axis]:
        raise InferError(f"operand 'condition' has {value.size} values for axis {axis} of size {x.shape[axis]}")
    return [x.with_shape([kept if i == axis else d for i, d in enumerate(x.shape)])]


# ==================================================================== einsum


EINSUM_TERM = re.compile(r"^(?:[A-Za-z]|\.\.\.)*$")


def parse_einsum(equation: str, count: int) -> tuple[list[str], str | None]:
    """The input terms and the explicit output term (None when implicit) of ``equation``.

    An ellipsis is written ``...`` in the text and returned as ``.`` so each label
    is one character.
    """
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != count:
        raise InferError(f"einsum equation '{equation}' has {len(terms)} inputs, got {count} operands")
    for term in terms + ([rhs] if arrow else []):
        if not EINSUM_TERM.match(term) or term.count("...") > 1:
            raise InferError(f"einsum equation '{equation}' has a malformed term '{term}'")
    return [t.replace("...", ".") for t in terms], rhs.replace("...", ".") if arrow else None


def einsum_dims(equation: str, shapes: Sequence[Shape]) -> tuple[dict[str, Dim], Shape, str]:
    """Label sizes, the broadcast ellipsis dims and the output term of ``equation``."""
    terms, output = parse_einsum(equation, len(shapes))
    sizes: dict[str, Dim] = {}
    ellipses: list[Shape] = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        labels = len(term) - term.count(".")
        if len(shape) < labels or "." not in term and len(shape) != labels:
            raise InferError(f"einsum term '{term.replace('.', '...')}' does not fit operand #{i} "
                             f"of shape {format_shape(shape)}")
        ellipsis_rank = len(shape) - labels
        dims = iter(shape)
        for label in term:
            if label == ".":
                ellipses.append(tuple(next(dims) for _ in range(ellipsis_rank)))
                continue
            d = next(dims)
            seen = sizes.get(label)
            if d is not None and seen is not None and seen != d and 1 not in (seen, d):
                raise InferError(f"einsum label '{label}' is {seen} in one operand and {d} in operand #{i}")
            if seen is None or seen == 1:
                sizes[label] = d
    ellipsis = broadcast_shapes(ellipses, [f"ellipsis #{i}" for i in range(len(ellipses))]) or ()
    if output is None:
        letters = "".join(terms).replace(".", "")
        output = ("." if ellipses else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return sizes, ellipsis, output


def infer_einsum(ctx: InferContext) -> list[Type]:
    names = [f"Inputs[{i}]" for i in range(len(ctx.operand_types))]
    types = [operand(ctx, i, n) for i, n in enumerate(names)]
    if not types:
        raise InferError("einsum needs at least one operand")
    et = require_same_element(types, names)
    if any(t.shape is None for t in types):
        return [unranked(et)]
    sizes, ellipsis, output = einsum_dims(ctx.attrs["equation"], [t.shape for t in types])  # type: ignore[misc]
    out: list[Dim] = []
    for label in output:
        if label == ".":
            out.extend(ellipsis)
        elif label not in sizes:
            raise InferError(f"einsum output label '{label}' does not appear in any input")
        else:
            out.append(sizes[label])
    return [TensorType(out, et)]


# ============================================================= recurrent nets


#: gates per cell: the first dim of W is num_directions x gates x hidden_size
RNN_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def recurrent(kind: str) -> InferFn:
    """RNN, GRU, LSTM: Y, Y_h (and LSTM's Y_c), honouring ``layout`` and ``direction``."""
    gates = RNN_GATES[kind]
    max_results = 3 if kind == "LSTM" else 2

    def infer(ctx: InferContext) -> list[Type]:
        x, w, r = operand(ctx, 0, "X"), operand(ctx, 1, "W"), operand(ctx, 2, "R")
        et = require_same_element([x, w, r], ["X", "W", "R"])
        count = result_count(ctx, max_results, 1, max_results)
        directions = 2 if ctx.attrs["direction"] == "bidirectional" else 1
        hidden = ctx.attrs.get("hidden_size")
        if hidden is None and r.shape is not None and len(r.shape) == 3:
            hidden = r.shape[2]
        for t, name in ((x, "X"), (w, "W"), (r, "R")):
            _require_rank(t, 3, name)
        if w.shape is not None and hidden is not None and w.shape[1] not in (gates * hidden, None):
            raise InferError(f"operand 'W' ({w}) must have {gates} x hidden_size = {gates * hidden} rows")
        if w.shape is not None and w.shape[0] not in (directions, None):
            raise InferError(f"operand 'W' ({w}) must have {directions} direction(s)")
        seq, batch = (x.shape[:2] if x.shape is not None else (None, None))
        if ctx.attrs["layout"]:
            seq, batch = batch, seq
            y: Shape = (batch, seq, directions, hidden)
            state: Shape = (batch, directions, hidden)
        else:
            y, state = (seq, directions, batch, hidden), (directions, batch, hidden)
        return [TensorType(y, et), TensorType(state, et), TensorType(state, et)][:count]

    return infer


# ======================================================================= misc


def infer_dropout(ctx: InferContext) -> list[Type]:
    """Dropout: the data's type, and an i1 mask when declared."""
    x = operand(ctx, 0, "data")
    if result_count(ctx, 1, 1, 2) == 2:
        return [x, x.with_element_type(I1)]
    return [x]


def infer_random(ctx: InferContext) -> list[Type]:
    """RandomNormal, RandomUniform: ``shape`` and ``dtype`` attributes."""
    return [TensorType(ctx.attrs["shape"], ctx.attrs["dtype"])]


def infer_random_like(ctx: InferContext) -> list[Type]:
    """RandomNormalLike, RandomUniformLike, Bernoulli: the input's shape, ``dtype`` or its type."""
    x = operand(ctx, 0, "input")
    return [x.with_element_type(ctx.attrs.get("dtype") or x.element_type)]


def infer_multinomial(ctx: InferContext) -> list[Type]:
    x = operand(ctx, 0, "input")
    _require_rank(x, 2, "input", "batch_size x class_size")
    batch = x.shape[0] if x.shape is not None else None
    return [TensorType((batch, ctx.attrs["sample_size"]), ctx.attrs["dtype"])]


# ============================================================ engine-specific


def infer_dvpp_decode(ctx: InferContext) -> list[Type]:
    """DVPP JPEG decode: 1-D ui8 bytes in, ``height x width x channels`` ui8 out."""
    data = operand(ctx, 0, "data")
    if data.element_type is not UI8 or data.shape is not None and len(data.shape) != 1:
        raise InferError(f"operand 'data' must be 1-D ui8 (the encoded image), got {data}")
    return [TensorType((ctx.attrs["height"], ctx.attrs["width"], ctx.attrs["channels"]), UI8)]


def infer_dvpp_resize(ctx: InferContext) -> list[Type]:
    """DVPP resize: ``H x W x C`` ui8 in, ``height x width x C`` ui8 out."""
    image = operand(ctx, 0, "image")
    if image.element_type is not UI8 or image.shape is not None and len(image.shape) != 3:
        raise InferError(f"operand 'image' must be H x W x C ui8, got {image}")
    channels = image.shape[2] if image.shape is not None else None
    return [TensorType((ctx.attrs["height"], ctx.attrs["width"], channels), UI8)]


#: channels of each AIPP input format
AIPP_CHANNELS = {"RGB888_U8": 3, "YUV400_U8": 1}


def infer_aipp(ctx: InferContext) -> list[Type]:
    """Static AIPP: ``N x H x W x C`` ui8 images in, the crop as ``N x C x h x w`` of ``dtype``."""
    images = operand(ctx, 0, "images")
    channels = AIPP_CHANNELS.get(ctx.attrs["input_format"])
    if channels is None:
        raise InferError(f"unknown AIPP input_format '{ctx.attrs['input_format']}'")
    if images.element_type is not UI8 or images.shape is not None and len(images.shape) != 4:
        raise InferError(f"operand 'images' must be N x H x W x C ui8, got {images}")
    start, size = list(ctx.attrs["load_start_pos"]), list(ctx.attrs["crop_size"])
    if len(start) != 2 or len(size) != 2 or min(start) < 0 or min(size) < 1:
        raise InferError(f"load_start_pos must be 2 non-negative and crop_size 2 positive sizes, got {start} "
                         f"and {size}")
    dtype = ctx.attrs["dtype"]
    if images.shape is None:
        return [TensorType((None, channels, *size), dtype)]
    n, h, w, c = images.shape
    if isinstance(c, int) and c >= 0 and c != channels:
        raise InferError(f"{ctx.attrs['input_format']} images have {channels} channel(s), got {images}")
    for axis, (dim, begin, extent) in enumerate(zip((h, w), start, size)):
        if isinstance(dim, int) and dim >= 0 and begin + extent > dim:
            raise InferError(f"the crop's {'hw'[axis]} range [{begin}, {begin + extent}) leaves the "
                             f"{dim}-pixel image")
    return [TensorType((n, channels, *size), dtype)]


def infer_all_gather(ctx: InferContext) -> list[Type]:
    """HCCL all-gather: every rank's tensor stacked along dim 0."""
    x = operand(ctx, 0, "input")
    ranks = positive_attr(ctx, "rank_size")
    if x.shape is None:
        return [x]
    if not x.shape:
        raise InferError(f"all_gather needs rank >= 1, got {x}")
    return [x.with_shape((dim_map(lambda d: d * ranks, x.shape[0]), *x.shape[1:]))]


def infer_reduce_scatter(ctx: InferContext) -> list[Type]:
    """HCCL reduce-scatter: dim 0 split evenly over the ranks."""
    x = operand(ctx, 0, "input")
    ranks = positive_attr(ctx, "rank_size")
    if x.shape is None:
        return [x]
    if not x.shape:
        raise InferError(f"reduce_scatter needs rank >= 1, got {x}")
    if x.shape[0] is not None and x.shape[0] % ranks:
        raise InferError(f"reduce_scatter: dimension 0 ({x.shape[0]}) is not divisible by rank_size = {ranks}")
    return [x.with_shape((dim_map(lambda d: d // ranks, x.shape[0]), *x.shape[1:]))]


def infer_switch(ctx: InferContext) -> list[Type]:
    """GE Switch: data forwarded to output_false or output_true by an i1 predicate."""
    data = operand(ctx, 0, "data")
    _require_predicate(ctx.operand_types[1] if len(ctx.operand_types) > 1 else NONE, "pred")
    return [data, data]


def infer_merge(ctx: InferContext) -> list[Type]:
    """GE Merge: the first available input, and its index as ``tensor<i32>``."""
    if not ctx.operand_types:
        raise InferError("merge needs at least one operand")
    first = ctx.operand_types[0]
    for i, t in enumerate(ctx.operand_types[1:], 1):
        if t is not first:
            raise InferError(f"merge operand #{i} is {t}, expected {first} (all inputs must have one type)")
    return [first, TensorType((), I32)]


def infer_loop_cond(ctx: InferContext) -> list[Type]:
    _require_predicate(ctx.operand_types[0] if ctx.operand_types else NONE, "input")
    return [ctx.operand_types[0]]


def infer_same_as_first(ctx: InferContext) -> list[Type]:
    """Ops whose single result has the first operand's type (collectives, enter/exit...)."""
    if not ctx.operand_types:
        raise InferError("expected an operand")
    return [ctx.operand_types[0]]
