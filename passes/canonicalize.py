"""``canonicalize``: fold what is known at compile time, remove identity ops,
and erase dead pure ops, to a fixed point.

Folds (each a pattern, tried on every op a rewrite touches):

* a reshape or transpose (squeeze, unsqueeze, flatten) of a constant;
* ``ge.shape`` / ``ge.size`` whose dims are static, although other dims of the
  operand are not (a model with a symbolic batch reads its static H and W);
* ``ge.gather`` / ``ge.slice`` of a ``ge.shape`` that picks static dims only
  (Shape -> Gather(2) of ``tensor<?x3x224x224xf32>`` is 224);
* a pure op whose operands are all constants, run through its kernel, whatever
  its size, as GE's ``ConstantFoldingPass`` folds every node whose inputs are
  all constants (a model that builds its weights with ConstantOfShape, a
  position table from Range and Expand); ``fold-limit=N`` folds only results of
  at most N elements, and an op carrying GE's ``_do_not_constant_folding``
  attribute is never folded; in a graph without its weights such an op becomes
  a constant without bytes (its values unknown, its kernel gone all the same);
* ``ge.if`` with a constant condition: the taken branch, inlined (the other is
  never inferred again); ``ge.loop`` that runs no iteration: its initial values.
"""

from __future__ import annotations

import math

import attrs

import numpy as np

from geir.absent_weights import is_absent
from geir.attributes import DenseElementsAttr, DenseResourceAttr, is_splat_view, splat_view
from geir.constants import CONSTANT_OPS, constant_value
from geir.module import Module
from geir.operation import Operation, Value
from geir.patterns import RewritePattern, apply_patterns_greedily
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import NONE, TensorType, element_type_from_numpy, storage_dtype
from geir.passes.pass_base import ModulePass, PassContext, option

__all__ = ["Canonicalize", "fold_op", "inline_constant_control", "FOLD_LIMIT", "SHAPE_OPS"]

#: above this many elements a folded constant goes to a resource blob
INLINE_CONSTANT_LIMIT = 16
#: results with at most this many elements fold when their operands are known
#: and the caller asks only for shape arithmetic (``specialize-shapes``)
FOLD_LIMIT = 64
#: GE's attribute that keeps a node from constant folding
DO_NOT_FOLD = "_do_not_constant_folding"
#: float results fold up to this many elements when only shape arithmetic is
#: asked for: what passes through floats (Cast -> Div -> Ceil) works on a few dims
FLOAT_FOLD_LIMIT = 8
#: ops whose value depends only on their operand's shape
SHAPE_OPS = frozenset({"ge.shape", "ge.size"})
#: ops that pick elements of a vector (what a shape vector is indexed by)
_SELECT_OPS = frozenset({"ge.gather", "ge.slice"})
_KERNEL_ERRORS = (ValueError, TypeError, IndexError, KeyError, ArithmeticError, NotImplementedError)


def constant_attr(module: Module, array: np.ndarray, rt: TensorType,
                  op: Operation) -> DenseElementsAttr | DenseResourceAttr:
    """The ``value`` of a constant folded from ``op``: inline when small or a
    splat, else a resource blob of ``module`` named after the one ``op`` read."""
    if is_splat_view(array):  # a ConstantOfShape: a splat, never materialised
        return DenseElementsAttr(rt, splat_view(array, rt.shape))
    flat = array.reshape(-1)
    splat = flat.size > 0 and bool(np.all(flat == flat[0]))
    if array.size <= INLINE_CONSTANT_LIMIT or splat or element_type_from_numpy(array.dtype) is not rt.element_type:
        return DenseElementsAttr(rt, np.broadcast_to(flat[0], rt.shape) if splat else array)
    src = next((v.op.attributes.get("value") for v in op.operands if getattr(v, "op", None) is not None
                and v.op.name in CONSTANT_OPS), None)  # type: ignore[attr-defined]
    stem = src.blob.name if isinstance(src, DenseResourceAttr) else "folded"
    blob = module.add_resource(stem, array.tobytes())
    return DenseResourceAttr(rt, blob)


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


#: ops whose result shape is an operand's value: the same type says nothing when
#: a dim is dynamic
_SHAPE_OPERAND_OPS = frozenset({"ge.reshape", "ge.expand"})


class RemoveIdentity(RewritePattern):
    """``ge.identity x``, and reshapes/casts/transposes that change nothing, are ``x``
    (a reshape or expand only when its type is static).
    An identity to another type inside a control op's region stays: it is a
    cast (MLIR's ``tensor.cast``) through which a branch that may not run reads
    a value at its type before ``specialize-shapes``."""

    op_names = frozenset({"ge.identity", "ge.reshape", "ge.cast", "ge.transpose", "ge.flatten",
                          "ge.squeeze", "ge.unsqueeze", "ge.expand", "ge.dropout"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if len(op.results) != 1 or not op.operands:
            return False
        src = op.operands[0]
        if op.name == "ge.identity" and src.type is not op.results[0].type:
            parent = op.parent_op
            if parent is not None and parent.name != "ge.graph":
                return False
        if op.name != "ge.identity":
            if src.type is not op.results[0].type or not isinstance(src.type, TensorType):
                return False
            if op.name in _SHAPE_OPERAND_OPS and not src.type.is_static:
                # ?x16x?x? to ?x16x?x? may swap its dynamic extents (XLNet's
                # relative shift) or broadcast one that is 1 at run time
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
        if is_splat_view(value):
            folded = splat_view(value, rt.shape)  # a splat stays one value
        elif op.name == "ge.transpose":
            perm = op.get_attr("perm")
            folded = np.ascontiguousarray(np.transpose(value, perm if perm is not None else None))
        else:
            folded = np.ascontiguousarray(value.reshape(rt.shape))
        rewriter.set_insertion_point(InsertionPoint.before(op))
        const = rewriter.create("ge.const", (), [rt], {"value": constant_attr(self.module, folded, rt, op)},
                                location=op.location)
        const.results[0].name_hint = op.results[0].name_hint
        rewriter.replace_op(op, [const.results[0]])
        return True


# ================================================================ folding


def _run_kernel(op: Operation, inputs: list[np.ndarray | None]) -> list[np.ndarray] | None:
    """``op``'s kernel on ``inputs``, or None when it fails (it fails at run time
    too, where the interpreter names it) or its result cannot be allocated (a
    constant too large to hold stays an op)."""
    from geir.backends.kernel_dispatch import KernelError, prepare_op
    try:
        fn = prepare_op(op.name, op.attributes, len(op.results), [r.type for r in op.results])
        with np.errstate(all="ignore"):
            return [np.asarray(v) for v in fn(inputs)]
    except (KernelError, MemoryError, *_KERNEL_ERRORS):
        return None


def _shape_value(op: Operation) -> np.ndarray | None:
    """``ge.shape`` / ``ge.size`` when every dim they read is static."""
    from geir.dialects.ge_infer import shape_dims
    t = op.operands[0].type
    if op.name == "ge.size":
        if not isinstance(t, TensorType) or not t.is_static:
            return None
        return np.array(int(np.prod(t.shape, dtype=np.int64)), np.int64)  # type: ignore[arg-type]
    dims = shape_dims(op)
    if dims is None or any(d is None for d in dims):
        return None
    return np.array(dims, np.int64)


def _selected_shape_value(op: Operation) -> np.ndarray | None:
    """A gather or slice (axis 0) of a ``ge.shape`` whose picked dims are static,
    even when others are not: the op runs on the positions of the shape vector,
    and the positions it picks are looked up in the operand's type."""
    from geir.dialects.ge_infer import shape_dims
    src = op.operands[0]
    source = getattr(src, "op", None)
    if source is None or source.name != "ge.shape" or op.get_attr("axis", 0) not in (0, -1):
        return None
    dims = shape_dims(source)
    if dims is None:
        return None
    inputs: list[np.ndarray | None] = [np.arange(len(dims), dtype=np.int64)]
    for v in op.operands[1:]:
        c = constant_value(v)
        if c is None and v.type is not NONE:
            return None
        inputs.append(c)
    out = _run_kernel(op, inputs)
    if out is None:
        return None
    positions = out[0]
    picked = [dims[int(k)] for k in positions.reshape(-1)]
    if any(d is None for d in picked):
        return None
    return np.array(picked, np.int64).reshape(positions.shape)


def _constant_value_of(op: Operation, limit: int | None = None) -> np.ndarray | None:
    """``op``'s kernel on its operands, when they are all constants; not run when
    its result would hold more than ``limit`` elements (see :func:`_result_elements`)."""
    inputs: list[np.ndarray | None] = []
    for v in op.operands:
        c = constant_value(v)
        if c is None and v.type is not NONE:  # (an omitted optional operand is None to the kernel)
            return None
        inputs.append(c)
    if all(c is None for c in inputs):
        return None
    if limit is not None:
        planned = _result_elements(op, inputs)
        if planned is not None and planned > limit:
            return None
    out = _run_kernel(op, inputs)
    return None if out is None else out[0]


def _result_elements(op: Operation, inputs: list[np.ndarray | None]) -> int | None:
    """The elements of the result of an op whose result can dwarf its constant
    operands (Expand, Tile, Range: a shape bound to 10^11 rows makes a mask of
    terabytes), counted before its kernel runs; None for other ops or operands
    the count cannot read."""
    try:
        if op.name == "ge.expand" and inputs[0] is not None and inputs[1] is not None:
            shape = np.broadcast_shapes(inputs[0].shape, tuple(int(d) for d in inputs[1].reshape(-1)))
            return math.prod(shape)
        if op.name == "ge.tile" and inputs[0] is not None and inputs[1] is not None:
            return inputs[0].size * math.prod(max(int(r), 0) for r in inputs[1].reshape(-1))
        if op.name == "ge.range" and all(c is not None and c.size for c in inputs[:3]):
            start, limit, delta = (float(c.reshape(-1)[0]) for c in inputs[:3])  # type: ignore[union-attr]
            return max(math.ceil((limit - start) / delta), 0) if delta else None
    except (ValueError, OverflowError):
        return None  # not a shape numpy broadcasts: the kernel's own failure says so
    return None


def _foldable(op: Operation) -> bool:
    """Whether ``op`` may become a constant: pure, one result read (a training-mode
    batch norm's running statistics unread, as when it standardises a weight), no
    regions, some operands, not a constant already, and without
    ``_do_not_constant_folding``."""
    od = op.definition
    return (od is not None and od.has_trait("pure") and not any(r.uses for r in op.results[1:]) and not op.regions
            and bool(op.operands) and op.name not in CONSTANT_OPS and DO_NOT_FOLD not in op.attributes)


def _replace_by_constant(rewriter: Rewriter, op: Operation, const: Operation) -> None:
    """``op``'s first result becomes ``const``'s; the others are unread, and ``op`` goes."""
    const.results[0].name_hint = op.results[0].name_hint
    rewriter.replace_all_uses_with(op.results[0], const.results[0])
    rewriter.erase_op(op)


def _constant_of_shape_value(op: Operation) -> np.ndarray | None:
    """``ge.constant_of_shape`` of a constant shape: its one value broadcast to the
    shape (a view: a model's weights built this way are never materialised)."""
    shape = constant_value(op.operands[0])
    if shape is None:
        return None
    rt = op.results[0].type
    assert isinstance(rt, TensorType)
    attr = op.attributes.get("value")
    array = getattr(attr, "array", None)
    fill = np.asarray(array).reshape(-1)[0] if array is not None and np.asarray(array).size else 0
    dims = tuple(int(d) for d in shape.reshape(-1))
    if any(d < 0 for d in dims):
        return None
    return np.broadcast_to(np.asarray(fill, dtype=storage_dtype(rt.element_type)), dims)


def fold_op(op: Operation, limit: int | None = FOLD_LIMIT,
            float_limit: int | None = FLOAT_FOLD_LIMIT) -> np.ndarray | None:
    """The value of a pure op's one read result known at compile time, else None:
    constant operands (run through the op's kernel), or static dims read through
    ``ge.shape`` / ``ge.size`` / a gather or slice of a shape. ``limit`` folds
    only results of at most that many elements, ``float_limit`` float results
    (the shape arithmetic that passes through floats); None folds any size, as
    GE's constant folding does. An op with GE's ``_do_not_constant_folding``
    attribute never folds."""
    if not _foldable(op):
        return None
    rt = op.results[0].type
    if not isinstance(rt, TensorType) or rt.element_type.numpy_dtype is None:
        return None
    if np.dtype(rt.element_type.numpy_dtype).kind not in "iub" and float_limit is not None:
        limit = float_limit if limit is None else min(limit, float_limit)
    if limit is not None:
        if rt.shape is not None and all(d is not None for d in rt.shape) and (rt.num_elements or 0) > limit:
            return None
    if op.name in SHAPE_OPS:
        value = _shape_value(op)
    elif op.name == "ge.constant_of_shape":
        value = _constant_of_shape_value(op)
    else:
        value = _selected_shape_value(op) if op.name in _SELECT_OPS else None
        if value is None:
            value = _constant_value_of(op, limit)
    if value is None or (limit is not None and value.size > limit) or value.dtype == object:
        return None
    if rt.shape is not None and (len(rt.shape) != value.ndim
                                 or any(d is not None and d != s for d, s in zip(rt.shape, value.shape))):
        return None  # not what the op declares: leave it to the verifier's diagnostic
    value = value.astype(storage_dtype(rt.element_type), copy=False)
    if is_splat_view(value):
        return value  # kept a view
    return np.ascontiguousarray(value) if value.ndim else value


def _replaceable(old: Value, new: Value) -> bool:
    """Whether ``new`` may stand for ``old`` without changing a graph's signature:
    the same type, or ``old`` returned by no graph."""
    return new.type is old.type or not any(u.owner.name == "ge.return" for u in old.uses)


def inline_constant_control(op: Operation, rewriter: Rewriter, keep_signature: bool = True) -> list[Operation] | None:
    """Replace a ``ge.if`` whose condition is a constant by its taken branch, or
    a ``ge.loop`` that runs no iteration (constant trip count 0 or condition
    false) by its initial values. Returns the ops moved out of the branch (in
    order), or None when ``op`` stays. With ``keep_signature``, a value a graph
    returns must keep its type (the pattern); without, the caller fixes the
    signature (``specialize-shapes``)."""
    if op.name == "ge.if":
        cond = constant_value(op.operands[0])
        if cond is None or cond.size != 1:
            return None
        block = op.regions[0 if bool(cond.reshape(-1)[0]) else 1].blocks[0]
        terminator = block.last_op
        assert terminator is not None
        values = list(terminator.operands)
    elif op.name == "ge.case":
        from geir.backends.interpreter import case_branch
        index = constant_value(op.operands[0])
        if index is None or index.size != 1:
            return None
        block = op.regions[case_branch(index, len(op.regions))].blocks[0]
        terminator = block.last_op
        assert terminator is not None
        values = list(terminator.operands)
    elif op.name == "ge.loop":
        trip, cond = (constant_value(v) for v in op.operands[:2])
        runs = not ((trip is not None and trip.size == 1 and int(trip.reshape(-1)[0]) <= 0)
                    or (cond is not None and cond.size == 1 and not bool(cond.reshape(-1)[0])))
        carried = op.operands[2:]
        if runs or len(op.results) != len(carried):  # scan outputs of no iteration: left to the kernel
            return None
        block, terminator, values = None, None, list(carried)
    else:
        return None
    if keep_signature and not all(_replaceable(r, v) for r, v in zip(op.results, values)):
        return None
    moved: list[Operation] = []
    if block is not None:
        for inner in list(block.ops):
            if inner is terminator:
                break
            block.unlink(inner)
            rewriter.insert_before(op, inner)
            moved.append(inner)
    for r, v in zip(op.results, values):
        rewriter.replace_all_uses_with(r, v)
    rewriter.erase_op(op)
    return moved


class FoldKnownValue(RewritePattern):
    """A pure op whose value is known (see :func:`fold_op`) is a constant."""

    def __init__(self, module: Module, limit: int | None = None) -> None:
        self.module = module
        self.limit = limit

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        value = fold_op(op, self.limit, self.limit)
        if value is None:
            return False
        rt = op.results[0].type
        assert isinstance(rt, TensorType)
        t = TensorType(value.shape, rt.element_type)
        if t != rt and any(u.owner.name == "ge.return" for u in op.results[0].uses):
            return False  # a graph's signature keeps its types
        rewriter.set_insertion_point(InsertionPoint.before(op))
        const = rewriter.create("ge.const", (), [t], {"value": constant_attr(self.module, value, t, op)},
                                location=op.location)
        _replace_by_constant(rewriter, op, const)
        return True


class FoldAbsentValue(RewritePattern):
    """A pure op whose operands are all constants, some without their bytes (a
    graph imported without its weights), is a constant without bytes too: GE
    folds it at compile time, so it is no kernel, though its values are unknown
    here (whatever needs them says so, as for any absent weight)."""

    def __init__(self, module: Module, limit: int | None = None) -> None:
        self.module = module
        self.limit = limit

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        if not _foldable(op):
            return False
        rt = op.results[0].type
        if not isinstance(rt, TensorType) or not rt.is_static:
            return False
        if self.limit is not None and (rt.num_elements or 0) > self.limit:
            return False
        sources = [getattr(v, "op", None) for v in op.operands if v.type is not NONE]
        if not all(src is not None and src.name in CONSTANT_OPS for src in sources):
            return False
        absent = [a for a in (src.attributes.get("value") for src in sources) if is_absent(a)]
        if not absent:
            return False  # every value known: FoldKnownValue computes it
        blob = self.module.add_resource(f"{absent[0].blob.name}_folded", None)
        rewriter.set_insertion_point(InsertionPoint.before(op))
        const = rewriter.create("ge.const", (), [rt], {"value": DenseResourceAttr(rt, blob)}, location=op.location)
        _replace_by_constant(rewriter, op, const)
        return True


class InlineConstantControl(RewritePattern):
    """``ge.if`` on a constant is its taken branch; a loop that never runs is its initial values."""

    op_names = frozenset({"ge.if", "ge.case", "ge.loop"})

    def match_and_rewrite(self, op: Operation, rewriter: Rewriter) -> bool:
        moved = inline_constant_control(op, rewriter)
        return moved is not None


@attrs.define
class Canonicalize(ModulePass):
    name = "canonicalize"
    summary = ("Fold constants and static shapes, inline constant control flow, remove identity ops, "
               "erase dead code")

    max_iterations: int = option(1_000_000, "stop after this many rewrites")
    fold_limit: int = option(-1, "fold an op whose operands are all constants only when its result has at most "
                                 "this many elements (-1: any size, as GE's constant folding)")

    def run(self, module: Module, ctx: PassContext) -> None:
        ops = [op for op in module.walk() if op is not module.op]
        limit = self.fold_limit if self.fold_limit >= 0 else None
        patterns = [FoldConstantLayout(module), FoldKnownValue(module, limit), FoldAbsentValue(module, limit),
                    InlineConstantControl(), RemoveIdentity(), EraseDeadOp()]
        apply_patterns_greedily(ops, patterns, self.max_iterations)
