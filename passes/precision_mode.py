"""``precision-mode``: the type each op of a ``ge.graph`` computes in, as ATC's
and GE's ``--precision_mode`` decide it.

An Ascend compiler does not run an f32 model as written: on Atlas devices
ATC's default is ``force_fp16``. The modes (ATC ``--precision_mode``,
https://www.hiascend.com/doc_center/source/zh/canncommercial/62RC1/inferapplicationdev/atctool/atctool_000092.html):

* ``force_fp16``: an op that supports f16 and f32 runs in f16;
* ``allow_fp32_to_fp16``: matrix (cube) ops run in f16, vector ops keep f32;
* ``allow_mix_precision``: GE's built-in lists (``precision_reduce`` in the
  ops-info JSON of the op package): white-list ops run in f16, black-list ops
  keep f32, any other op follows the op that feeds it (its first float operand);
* ``must_keep_origin_dtype``: the graph as written; an f32 cube op on a device
  whose cube has no f32 (the profile's ``cube_fp32``: 310P, 910A) is an error,
  as in ATC;
* ``force_fp32``: f16 ops run in f32, except cube ops on a device whose cube
  has no f32, which keep f16.

Only AICore ops change type: ops on AICPU, DVPP or HCCL keep their types, as
the precision mode selects among AICore kernels. Under ``force_fp16`` and
``force_fp32`` the ops inside an if's, a case's or a loop's regions change too,
with the op's edges (its results, a loop's carried values), as GE compiles a
subgraph under the same mode; under the other modes, and in ``ge.scan``'s body,
a region's ops keep their types. Integer and bool tensors are
untouched; an operand or result whose ONNX type is fixed (``Resize``'s
``scales`` is ``tensor(float)``) or whose type variable has no f16 (the
statistics of ``LayerNormalization``) keeps its type, and an op whose type
inference disagrees with the new types (an op whose result type comes from an
attribute, such as ``ConstantOfShape``) keeps its types too.

Where types change, a visible ``ge.cast`` converts: after a graph input read by
f16 ops, before a graph output (the graph's signature keeps its types, as an
ATC model keeps its input and output types), and between f32-kept and f16 ops.
Each value is converted once, right after it is defined; constants and weights
are converted themselves (their data cast with numpy; weights without data
change type only). A constant that loses at least
:data:`~geir.report.UNDERFLOW_SHARE` of its non-zero values to f16 (an
epsilon of 1e-12 becomes 0, and ``x / max(|x|, eps)`` of a zero row becomes
NaN) gets a warning at it, for the first few such constants; the rest are
counted. Without ``mode`` the pass uses the device profile's
``default_precision_mode``.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import numpy as np

from geir.attributes import (Attribute, DenseElementsAttr, DenseResourceAttr, ResourceBlob, TypeAttr, is_splat_view,
                             splat_view)
from geir.backends.cost_model import CUBE_OPS, INT8_CUBE_OPS, normalize_engine
from geir.backends.device_profile import PRECISION_MODES, DeviceProfile, load_profile
from geir.backends.kernels.underflow import F16_ROUNDING, Underflow, count_flushed
from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.module import Module
from geir.opdef import Attrs, InferContext, InferError
from geir.operation import Block, BlockArgument, Operation, OpResult, Value
from geir.passes.assign_engines import engine_for
from geir.passes.pass_base import ModulePass, PassContext
from geir.report import UNDERFLOW_SHARE, UNDERFLOW_WARNINGS, f16_mode_suffix, keep_f32_hint, underflow_message
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import ElementType, FloatType, TensorType, Type
from geir.verifier import types_compatible

__all__ = ["PrecisionMode", "MIX_WHITE_LIST", "MIX_BLACK_LIST", "FLOAT_CUBE_OPS", "resolve_mode", "converted_constant",
           "flushed_to_zero"]

F16, F32 = FloatType("f16"), FloatType("f32")

#: the cube ops that compute on floats
FLOAT_CUBE_OPS = frozenset(f"ge.{n}" for n in CUBE_OPS - INT8_CUBE_OPS)

#: allow_mix_precision's white list (``precision_reduce: true``): the ge ops of
#: GE's MatMul(V2), BatchMatMul(V2), GemmV2, Conv2D/3D, Conv2DTranspose,
#: Deconvolution, DepthwiseConv2D, FullyConnection, MaxPool and Add, from the
#: op package's aic-ascend910b-ops-info-*.json (hicann/ge,
#: tests/engines/nn_engine/depends/CANN_910b_stub/cann/opp/built-in/op_impl/ai_core/tbe/config/ascend910b/)
MIX_WHITE_LIST = FLOAT_CUBE_OPS | frozenset({"ge.max_pool", "ge.add", "ge.rms_normalization"})
#: allow_mix_precision's black list (``precision_reduce: false``), same source:
#: Log, Log1p, Pow, ReduceSum, ReduceMeanD, ReduceProd, LogSoftmaxV2, SquareSum
#: and Abs; and, kept f32 here as well because in f16 they lose what they are
#: for (sums over a whole axis, exponentials that overflow at 11.1), exp,
#: softmax, the other reductions that sum and the normalisations' statistics
MIX_BLACK_LIST = frozenset({
    "ge.log", "ge.pow", "ge.abs", "ge.reduce_sum", "ge.reduce_mean", "ge.reduce_prod", "ge.reduce_sum_square",
    "ge.log_softmax",
    "ge.exp", "ge.softmax", "ge.reduce_l1", "ge.reduce_l2", "ge.reduce_log_sum", "ge.reduce_log_sum_exp",
    "ge.layer_norm", "ge.instance_normalization", "ge.group_normalization", "ge.mean_variance_normalization",
    "ge.lp_normalization",
})


def resolve_mode(mode: str, device: str) -> str:
    """The precision mode to apply: ``mode``, or the device's default when empty;
    a DiagnosticError for an unknown mode."""
    if not mode:
        return load_profile(device).default_precision_mode
    if mode not in PRECISION_MODES:
        raise DiagnosticError(Diagnostic(
            "error", f"precision-mode: unknown mode '{mode}'; known: {', '.join(PRECISION_MODES)}"))
    return mode


@functools.lru_cache(maxsize=None)
def _retypable_slots(onnx_op: str | None, n_operands: int, n_results: int) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Which operands and results may change float type: those whose ONNX type
    is a type variable that allows float16 (all of them for an op ONNX does
    not define)."""
    if onnx_op is None:
        return (True,) * n_operands, (True,) * n_results
    import onnx.defs
    try:
        schema = onnx.defs.get_schema(onnx_op)
    except onnx.defs.SchemaError:
        return (True,) * n_operands, (True,) * n_results
    f16_vars = {c.type_param_str for c in schema.type_constraints if "tensor(float16)" in c.allowed_type_strs}

    def slots(params: Any, n: int) -> tuple[bool, ...]:
        if not params:
            return (False,) * n
        return tuple(params[min(i, len(params) - 1)].type_str in f16_vars for i in range(n))
    return slots(schema.inputs, n_operands), slots(schema.outputs, n_results)


#: ops whose result type an attribute names (a cast's ``to``; AIPP's ``dtype``, the type the model reads)
_RESULT_TYPE_ATTRIBUTES = {"ge.cast": "to", "ge.aipp": "dtype"}


@attrs.define
class _Retype:
    """How one op changes: its new operand and result types and attributes."""

    operand_types: list[Type]
    result_types: list[Type]
    attributes: dict[str, Attribute]
    #: what converting the op's own value to f16 flushed to zero (a filled tensor's fill)
    flushed: Underflow | None = None


def _swap(t: Type, source: ElementType, target: ElementType) -> Type:
    if isinstance(t, TensorType) and t.element_type is source:
        return t.with_element_type(target)
    return t


def _has_float(op: Operation, et: ElementType) -> bool:
    return any(isinstance(v.type, TensorType) and v.type.element_type is et
               for v in (*op.operands, *op.results))


def _is_aicore(op: Operation, soc: str) -> bool:
    pinned = op.get_attr("engine") or op.get_attr("engine_pin")
    if isinstance(pinned, str) and pinned:
        return normalize_engine(pinned) == "AICore"
    # decided for the op, not its shape: an op that waits for its dims (a dynamic
    # batch's gears, --input-shape at run time) runs on AICore once they are bound
    return engine_for(op, shapes_bound=True, soc=soc)[0] == "AICore"


def _retype(op: Operation, source: ElementType, target: ElementType) -> _Retype | None:
    """``op`` computing in ``target`` where it computed in ``source``, or None
    when it cannot (nothing changes, or inference disagrees)."""
    od = op.definition
    if od is None or od.infer is None:
        return None
    in_ok, out_ok = _retypable_slots(od.onnx_op, len(op.operands), len(op.results))
    operand_types = [_swap(v.type, source, target) if ok else v.type for v, ok in zip(op.operands, in_ok)]
    result_types = [_swap(r.type, source, target) if ok else r.type for r, ok in zip(op.results, out_ok)]
    if operand_types == [v.type for v in op.operands] and result_types == [r.type for r in op.results]:
        return None
    attributes = dict(op.attributes)
    # an op whose result type an attribute names: the attribute follows
    key = _RESULT_TYPE_ATTRIBUTES.get(op.name)
    named = attributes.get(key) if key is not None else None
    if key is not None and (named is None and od.attributes[key].default is source
                            or isinstance(named, TypeAttr) and named.value is source):
        attributes[key] = TypeAttr(target)
    value = attributes.get("value")
    flushed = None
    if op.name == "ge.constant_of_shape" and isinstance(value, DenseElementsAttr) \
            and value.type.element_type is source:
        # a filled tensor (how ONNX's light models spell their weights) is a constant ATC folds and converts
        result_types = [_swap(r.type, source, target) for r in op.results]
        fill = np.asarray(value.array)
        converted = converted_constant(fill, target.numpy_dtype)
        attributes["value"] = DenseElementsAttr(_swap(value.type, source, target),  # type: ignore[arg-type]
                                                converted)
        flushed = flushed_to_zero(op.name, fill, converted)
    ctx = InferContext(operand_types, Attrs(attributes, od.attributes), op.operands, result_types)
    try:
        inferred = list(od.infer(ctx))
    except InferError:
        return None
    if len(inferred) != len(result_types) or not all(types_compatible(i, r) for i, r in zip(inferred, result_types)):
        return None
    return _Retype(operand_types, result_types, attributes, flushed)


@attrs.define
class PrecisionMode(ModulePass):
    """Retype the ops of every ``ge.graph`` as ATC's ``--precision_mode`` does."""

    name = "precision-mode"
    summary = ("the type each op computes in, as ATC's --precision_mode decides (force_fp16, allow_fp32_to_fp16, "
               "allow_mix_precision, must_keep_origin_dtype, force_fp32), with ge.cast where types change")

    # The field is precision_mode so that ge-run's and ge-default's runtime
    # ``mode`` never reaches it; the pass itself spells it ``mode=``.
    precision_mode: str = attrs.field(default="", metadata={
        "help": "force_fp16, allow_fp32_to_fp16, allow_mix_precision, must_keep_origin_dtype or force_fp32 "
                "(default: the device profile's default_precision_mode)", "name": "mode"})
    device: str = attrs.field(default="910B2", metadata={
        "help": "device profile for the default mode, whether its cube computes in f32, and which ops its "
                "AI Core kernels take (an op on AICPU keeps its types)"})

    def run(self, module: Module, ctx: PassContext) -> None:
        mode = resolve_mode(self.precision_mode, self.device)
        profile = load_profile(self.device)
        cube_fp32 = profile.cube_fp32
        errors: list[Diagnostic] = []
        flushed: list[tuple[Operation, Underflow]] = []
        source, target = (F16, F32) if mode == "force_fp32" else (F32, F16)
        # each op's operand types as written: what an op the mode leaves alone reads
        written = {op: [v.type for v in op.operands] for op in module.walk()}
        for graph in module.graphs():
            # a block and the types its terminator yields (None: as written); the
            # regions of an if, a case or a loop whose edges change follow their
            # op's block, on an explicit stack
            pending: list[tuple[Block, list[Type] | None]] = [(graph.regions[0].blocks[0], None)]
            made: dict[tuple[int, Type], Value] = {}
            while pending:
                block, yields = pending.pop()
                if mode == "must_keep_origin_dtype":
                    errors += _unsupported_f32_cube(block, profile)
                    continue
                changes = self._decide(block, mode, cube_fp32, profile.soc)
                edges = {op: change for op in block.ops if mode in _EDGE_MODES and op.name in _CONTROL_EDGE_OPS
                         and (change := _control_retype(op, source, target)) is not None}
                changes.update(edges)
                if changes or yields is not None:
                    flushed += _rewrite(module, block, changes, written, yields, made)
                for op, change in edges.items():
                    if op.name == "ge.loop":  # the body's carried arguments take the carried values' types
                        for arg, t in zip(op.regions[0].blocks[0].arguments[2:], change.operand_types[2:]):
                            arg.type = t
                    for region in op.regions:
                        for inner in region.blocks:
                            pending.append((inner, [_swap(t, source, target) for t in written[inner.last_op]]))
        if errors:
            raise DiagnosticError(errors)
        # An epsilon below f16's smallest value becomes 0 on the host, as GE converts it; a division
        # by it, or a maximum with it, then makes NaN or infinity that f32 does not.
        suffix = f16_mode_suffix(mode, keep_f32_hint(profile.name, cube_fp32))
        flagged = [(op, count) for op, count in flushed if count.share >= UNDERFLOW_SHARE]
        for op, count in flagged[:UNDERFLOW_WARNINGS]:
            ctx.warning(op, underflow_message(count) + suffix)
        if len(flagged) > UNDERFLOW_WARNINGS:
            ctx.diagnostics.append(Diagnostic(
                "warning", f"{len(flagged) - UNDERFLOW_WARNINGS} more constant(s) flush at least "
                           f"{UNDERFLOW_SHARE:.0%} of their values to zero in f16", origin=ctx.current_pass))

    def _decide(self, block: Block, mode: str, cube_fp32: bool, soc: str) -> dict[Operation, _Retype]:
        """The ops of ``block`` that change type, in block order (``soc``: the chip,
        whose kernels decide which ops run on AI Core)."""
        source, target = (F16, F32) if mode == "force_fp32" else (F32, F16)
        changes: dict[Operation, _Retype] = {}
        # the element type each value has once the ops before it changed
        running: dict[Value, Type] = {}
        for op in block.ops:
            if op.regions or op.name in CONSTANT_OPS or not _has_float(op, source) or not _is_aicore(op, soc):
                continue
            if not self._wants(op, mode, cube_fp32, running):
                continue
            change = _retype(op, source, target)
            if change is not None:
                changes[op] = change
                for r, t in zip(op.results, change.result_types):
                    running[r] = t
        # a filled tensor is a constant to ATC: it takes the type its readers run in
        for op in block.ops:
            if op.name != "ge.constant_of_shape" or op in changes or not op.results[0].uses:
                continue
            uses = op.results[0].uses
            if all(u.owner in changes and changes[u.owner].operand_types[u.index] != op.results[0].type
                   for u in uses):
                change = _retype(op, source, target)
                if change is not None:
                    changes[op] = change
        return changes

    @staticmethod
    def _wants(op: Operation, mode: str, cube_fp32: bool, running: dict[Value, Type]) -> bool:
        cube = op.name in FLOAT_CUBE_OPS
        if mode == "force_fp16":
            return True
        if mode == "allow_fp32_to_fp16":
            return cube
        if mode == "force_fp32":
            return not cube or cube_fp32
        # allow_mix_precision: white, black, else the type of what feeds it
        if op.name in MIX_WHITE_LIST:
            return True
        if op.name in MIX_BLACK_LIST:
            return False
        father = next((v for v in op.operands if isinstance(v.type, TensorType)
                       and v.type.element_type is F32), None)
        return father is not None and isinstance(running.get(father), TensorType) \
            and running[father].element_type is F16  # type: ignore[union-attr]


#: the control ops whose edges a mode that retypes every op retypes with their
#: bodies: an if's and a case's results, a loop's carried values and scan outputs
#: (GE compiles a subgraph under the same mode); ``ge.scan``'s bodies keep their types
_CONTROL_EDGE_OPS = ("ge.if", "ge.case", "ge.loop")
_EDGE_MODES = ("force_fp16", "force_fp32")


def _control_retype(op: Operation, source: ElementType, target: ElementType) -> _Retype | None:
    """``op``'s edges in ``target`` where they were ``source``: its results, and a
    loop's carried operands (None when nothing changes)."""
    operand_types = [v.type for v in op.operands]
    if op.name == "ge.loop":
        operand_types = operand_types[:2] + [_swap(t, source, target) for t in operand_types[2:]]
    result_types = [_swap(r.type, source, target) for r in op.results]
    if operand_types == [v.type for v in op.operands] and result_types == [r.type for r in op.results]:
        return None
    return _Retype(operand_types, result_types, dict(op.attributes))


def _unsupported_f32_cube(block: Block, profile: DeviceProfile) -> list[Diagnostic]:
    """must_keep_origin_dtype: an f32 cube op where the cube of ``profile`` has no f32."""
    if profile.cube_fp32:
        return []
    return [Diagnostic("error", f"precision-mode: '{op.name}' computes in f32, but the cube unit of device "
                                f"{profile.name} has no f32, so must_keep_origin_dtype cannot keep its type",
                       op_position(op),
                       [Diagnostic("note", "use force_fp16 or allow_fp32_to_fp16 (ATC converts cube ops "
                                           "to f16), or cast the op's operands to f16 in the model",
                                   op_position(op))])
            for op in block.ops
            if op.name in FLOAT_CUBE_OPS and _has_float(op, F32) and _is_aicore(op, profile.soc)]


def _rewrite(module: Module, block: Block, changes: dict[Operation, _Retype], written: dict[Operation, list[Type]],
             yields: list[Type] | None = None,
             made: dict[tuple[int, Type], Value] | None = None) -> list[tuple[Operation, Underflow]]:
    """Apply ``changes`` to ``block`` and convert every value where a reader
    needs it in another type (``yields``: what the block's terminator yields,
    when its op's edges changed); the constants whose conversion to f16 flushed
    values to zero, each with what it flushed."""
    # What each reader of the block needs: the new types of a changed op, the
    # types as written (``written``) for every other op, nested regions included
    # unless their op's edges change (their blocks are rewritten in turn).
    needs: list[tuple[Operation, list[Type]]] = []
    for op in block.ops:
        change = changes.get(op)
        if change:
            needs.append((op, change.operand_types))
        elif yields is not None and op is block.last_op:
            needs.append((op, yields))
        else:
            needs.append((op, written.get(op, [v.type for v in op.operands])))
        if op.name in _CONTROL_EDGE_OPS and change is not None:
            continue
        for region in op.regions:
            for inner in region.walk():
                needs.append((inner, written.get(inner, [v.type for v in inner.operands])))
    for op, change in changes.items():
        for r, t in zip(op.results, change.result_types):
            r.type = t
        op.attributes = change.attributes
    converter = _Converter(module, block, made)
    for op, wanted in needs:
        for k, (v, t) in enumerate(zip(list(op.operands), wanted)):
            if v.type is not t:
                converter.rewriter.set_operand(op, k, converter.convert(v, t))
    for op in changes:
        # a model's own cast that now converts a type to itself
        if op.name == "ge.cast" and op.operands[0].type is op.results[0].type:
            converter.rewriter.replace_op(op, [op.operands[0]])
    for const in converter.replaced_constants:
        if not any(r.uses for r in const.results):
            converter.rewriter.erase_op(const)
    filled = [(op, change.flushed) for op, change in changes.items() if change.flushed is not None]
    return filled + converter.flushed


class _Converter:
    """One conversion of a value to a type, made once and placed right after
    the value is defined: a ``ge.cast``, or a converted constant."""

    def __init__(self, module: Module, block: Block, made: dict[tuple[int, Type], Value] | None = None) -> None:
        self.module = module
        self.block = block
        self.rewriter = Rewriter()
        #: the conversions made so far; shared with the converters of enclosing blocks,
        #: whose casts dominate a region's reads
        self.made: dict[tuple[int, Type], Value] = made if made is not None else {}
        self.replaced_constants: list[Operation] = []
        #: the converted constants that lost values to f16, with what they lost
        self.flushed: list[tuple[Operation, Underflow]] = []
        # where the casts of the graph's inputs go: before the first op, in argument order
        self.first = next(iter(block.ops), None)
        self.after_args: Operation | None = None

    def convert(self, value: Value, to: Type) -> Value:
        key = (id(value), to)
        made = self.made.get(key)
        if made is None:
            made = self._make(value, to)
            self.made[key] = made
        return made

    def _make(self, value: Value, to: Type) -> Value:
        assert isinstance(to, TensorType)
        if isinstance(value, OpResult) and value.op.name in CONSTANT_OPS:
            return self._constant(value.op, to)
        if isinstance(value, BlockArgument) and value.block is not self.block:
            # an enclosing block's argument a region reads: cast once, where it is defined
            first = next(iter(value.block.ops), None)
            self.rewriter.set_insertion_point(InsertionPoint.before(first) if first is not None
                                              else InsertionPoint.at_end(value.block))
            location = value.location
        elif isinstance(value, BlockArgument):
            if self.after_args is not None:
                self.rewriter.set_insertion_point(InsertionPoint.after(self.after_args))
            elif self.first is not None:
                self.rewriter.set_insertion_point(InsertionPoint.before(self.first))
            else:
                self.rewriter.set_insertion_point(InsertionPoint.at_end(self.block))
            location = value.location
        else:
            assert isinstance(value, OpResult)
            self.rewriter.set_insertion_point(InsertionPoint.after(value.op))
            location = value.op.location
        cast = self.rewriter.create("ge.cast", [value], [to], {"to": TypeAttr(to.element_type)}, location=location)
        if isinstance(value, BlockArgument) and value.block is self.block:
            self.after_args = cast
        if value.name_hint:
            cast.results[0].name_hint = f"{value.name_hint}_{to.element_type}"
        return cast.results[0]

    def _constant(self, const: Operation, to: TensorType) -> Value:
        """``const`` with its data converted to ``to`` (type only when it has no data)."""
        attr = const.attributes.get("value")
        new: Attribute
        flushed = None
        if isinstance(attr, DenseElementsAttr):
            source = np.asarray(attr.array)
            converted = converted_constant(source, to.element_type.numpy_dtype)
            new = DenseElementsAttr(to, converted)
            flushed = flushed_to_zero(const.name, source, converted)
        elif isinstance(attr, DenseResourceAttr) and attr.blob.data is not None:
            source = attr.to_numpy()
            converted = converted_constant(source, to.element_type.numpy_dtype)
            data = ResourceBlob.bytes_of(converted)
            new = DenseResourceAttr(to, self.module.add_resource(f"{attr.blob.name}_{to.element_type}", data))
            flushed = flushed_to_zero(const.name, source, converted)
        elif isinstance(attr, DenseResourceAttr):
            new = DenseResourceAttr(to, attr.blob)
        else:
            raise AssertionError(f"constant '{const.name}' without a value")
        self.rewriter.set_insertion_point(InsertionPoint.after(const))
        converted = self.rewriter.create(const.name, [], [to], {**const.attributes, "value": new},
                                         location=const.location)
        converted.results[0].name_hint = const.results[0].name_hint
        self.replaced_constants.append(const)
        if flushed is not None:
            self.flushed.append((converted, flushed))
        return converted.results[0]


def flushed_to_zero(op: str, source: np.ndarray, converted: np.ndarray) -> Underflow | None:
    """What converting a constant ``source`` to f16 (``converted``) flushed, by
    the rule an op's f16 results are held to
    (:func:`~geir.backends.kernels.underflow.count_flushed`): its values not
    zero that are zero in f16 and not negligible beside its largest; None when
    it flushed none (or is not a conversion to f16)."""
    if converted.dtype != np.float16 or source.dtype.kind != "f" or source.dtype.itemsize <= 2:
        return None
    if is_splat_view(source):  # one value, repeated: count it once per element
        flushed, nonzero = count_flushed(source[(0,) * source.ndim].reshape(1),
                                         converted[(0,) * converted.ndim].reshape(1))
        return Underflow(op, flushed * source.size, nonzero * source.size, int(source.size)) if flushed else None
    # A model's weights hold millions of values and a few below f16's floor: first look only at
    # the zeros of the result (by their bits, +0 and -0: numpy compares f16 values several times
    # slower), and at whether its first values already make those negligible; the rule in full
    # only for the rare constant that is left (an epsilon).
    zero = (np.ascontiguousarray(converted).view(np.uint16) & 0x7FFF) == 0
    lost = np.abs(source[zero]) if zero.any() else source[:0]
    lost = lost[lost != 0]
    if not lost.size:
        return None
    head = np.abs(source.reshape(-1)[:4096])
    head = head[np.isfinite(head)]
    if head.size and float(head.max()) * F16_ROUNDING > float(lost.max()):
        return None
    flushed, nonzero = count_flushed(source, converted)
    return Underflow(op, flushed, nonzero, int(source.size)) if flushed else None


def converted_constant(data: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``data`` converted to ``dtype`` the way GE converts a constant on the host.
    To f16 from a wider float, GE's ``fp16_t`` (``base/common/fp16_t/fp16_t.cc``)
    saturates: a value beyond f16's range, infinity and NaN become the largest
    finite f16 of their sign (an attention mask's ``finfo(float32).min`` becomes
    -65504, not -inf, so ``0 * mask`` stays 0)."""
    dtype = np.dtype(dtype)
    if is_splat_view(data):  # a splat weight: convert the value, keep the view
        return splat_view(converted_constant(data[(0,) * data.ndim].reshape(1), dtype), data.shape)
    if dtype != np.float16 or data.dtype.kind != "f" or data.dtype.itemsize <= 2:
        return data.astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        out = data.astype(np.float16)  # rounds as GE's conversion does in range; inf beyond
    bad = ~np.isfinite(out)  # (two passes over a model's weights; clipping first took five)
    if bad.any():
        out[bad] = np.copysign(np.finfo(np.float16).max, data[bad])
    return out
