"""Declarative op definitions: each op is declared once, as data.

An :class:`OpDef` states an op's operands, results, attributes (kind and default),
regions, traits, result-type inference, default engine and cost hint. The
verifier (:mod:`geir.verifier`) is derived from it, the kernels and the cost model
read it; nothing else restates an op's shape.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import attrs

from geir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                             DenseResourceAttr, DictionaryAttr, FloatAttr, IntegerAttr, StringAttr,
                             SymbolRefAttr, TypeAttr, UnitAttr, from_attribute)
from geir.types import Type

__all__ = ["OperandDef", "AttrDef", "OpDef", "Dialect", "InferError", "Attrs", "Cost", "InferContext", "op_cost",
           "SINGLE", "OPTIONAL", "VARIADIC"]

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"


class InferError(Exception):
    """Raised by a type-inference or verify function: the op's operands or
    attributes are inconsistent. The verifier turns it into a located diagnostic."""


@attrs.frozen
class OperandDef:
    name: str
    kind: str = SINGLE  # SINGLE, OPTIONAL (only at the end) or VARIADIC (at most one)


def _is_int(a: Attribute) -> bool:
    return isinstance(a, IntegerAttr) and not isinstance(a.value, bool)


def _is_num(a: Attribute) -> bool:
    return isinstance(a, (IntegerAttr, FloatAttr))


def _is_array_of(pred: Callable[[Attribute], bool]) -> Callable[[Attribute], bool]:
    def check(a: Attribute) -> bool:
        if isinstance(a, DenseArrayAttr):
            return True
        return isinstance(a, ArrayAttr) and all(pred(x) for x in a.value)
    return check


#: Attribute kinds an :class:`AttrDef` can name, with what they accept.
ATTR_KINDS: dict[str, Callable[[Attribute], bool]] = {
    "int": _is_int,
    "float": _is_num,
    "bool": lambda a: isinstance(a, BoolAttr) or (isinstance(a, IntegerAttr) and a.value in (0, 1)),
    "str": lambda a: isinstance(a, StringAttr),
    "ints": _is_array_of(_is_int),
    "floats": _is_array_of(_is_num),
    "strs": _is_array_of(lambda a: isinstance(a, StringAttr)),
    "type": lambda a: isinstance(a, TypeAttr),
    "tensor": lambda a: isinstance(a, (DenseElementsAttr, DenseResourceAttr)),
    "symbol": lambda a: isinstance(a, SymbolRefAttr),
    "dict": lambda a: isinstance(a, DictionaryAttr),
    "array": lambda a: isinstance(a, ArrayAttr),
    "unit": lambda a: isinstance(a, UnitAttr),
    "any": lambda a: True,
}

KIND_NAMES = {
    "int": "an integer", "float": "a number", "bool": "a boolean", "str": "a string",
    "ints": "an array of integers", "floats": "an array of numbers", "strs": "an array of strings",
    "type": "a type", "tensor": "a dense tensor", "symbol": "a symbol reference",
    "dict": "a dictionary", "array": "an array", "unit": "a unit attribute", "any": "an attribute",
}


@attrs.frozen
class AttrDef:
    """One attribute: its kind, a default used when absent, and whether it is required."""

    name: str
    kind: str
    default: Any = None
    required: bool = False
    choices: tuple[Any, ...] | None = None
    doc: str = ""

    def __attrs_post_init__(self) -> None:
        assert self.kind in ATTR_KINDS, self.kind


@attrs.frozen
class Cost:
    """A cost hint read by the emulator's cost model."""

    flops: float = 0.0
    bytes: float = 0.0


class Attrs:
    """Read-only view of an op's attributes as Python values, defaults filled in."""

    __slots__ = ("_attrs", "_defs")

    def __init__(self, attributes: Mapping[str, Attribute], defs: Mapping[str, AttrDef]) -> None:
        self._attrs = attributes
        self._defs = defs

    def __getitem__(self, name: str) -> Any:
        a = self._attrs.get(name)
        if a is not None:
            return from_attribute(a)
        d = self._defs.get(name)
        if d is None or d.default is None:
            raise InferError(f"missing attribute '{name}'")
        return d.default

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except InferError:
            return default

    def __contains__(self, name: str) -> bool:
        return name in self._attrs

    def raw(self, name: str) -> Attribute | None:
        return self._attrs.get(name)


class InferContext:
    """What type inference sees of one op: operand types, attributes (with
    defaults) and the value of any operand produced by a constant op."""

    __slots__ = ("operand_types", "attrs", "_operands", "result_types")

    def __init__(self, operand_types: Sequence[Type], attrs: Attrs, operands: Sequence[Any] = (),
                 result_types: Sequence[Type] = ()) -> None:
        self.operand_types = operand_types
        self.attrs = attrs
        self._operands = operands
        #: the declared result types (for ops whose results cannot be inferred)
        self.result_types = result_types

    @classmethod
    def for_op(cls, op: Any, od: "OpDef | None" = None) -> "InferContext":
        """The context of ``op`` (``od``: its definition, when the caller has it)."""
        od = od if od is not None else op.definition
        defs = od.attributes if od is not None else {}
        return cls([v.type for v in op.operands], Attrs(op.attributes, defs), op.operands,
                   [r.type for r in op.results])

    def constant(self, index: int) -> "Any | None":
        """The numpy value of operand ``index`` if a constant op defines it, else None."""
        if index >= len(self._operands):
            return None
        from geir.constants import constant_value
        return constant_value(self._operands[index])


#: ``infer(ctx) -> result types``; raises InferError on inconsistent input
InferFn = Callable[[InferContext], Sequence[Type]]
#: ``cost(ctx, result_types) -> Cost``
CostFn = Callable[[InferContext, Sequence[Type]], Cost]
#: ``verify(op) -> None``, raising InferError; for checks types cannot express
VerifyFn = Callable[[Any], None]


@attrs.frozen
class OpDef:
    """Everything an op is, declared once."""

    name: str
    operands: tuple[OperandDef, ...] = ()
    #: number of results, or -1 for a variadic result list
    num_results: int = 1
    attributes: Mapping[str, AttrDef] = attrs.field(factory=dict)
    #: number of regions, or -1 for one or more (``ge.case``'s branches)
    num_regions: int = 0
    traits: frozenset[str] = frozenset()
    infer: InferFn | None = None
    verify: VerifyFn | None = None
    engine: str | None = None
    cost: CostFn | None = None
    summary: str = ""
    #: when set, attributes not declared are accepted (e.g. ``ge.onnx_op``)
    open_attributes: bool = False
    #: the ONNX op type whose semantics this op has (kernels are keyed by it)
    onnx_op: str | None = None

    #: (min, max) operand count, max None when variadic: the verifier asks for every op
    _operand_range: tuple[int, int | None] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        lo = sum(1 for o in self.operands if o.kind == SINGLE)
        hi: int | None = None if any(o.kind == VARIADIC for o in self.operands) else len(self.operands)
        object.__setattr__(self, "_operand_range", (lo, hi))

    def operand_range(self) -> tuple[int, int | None]:
        """(min, max) operand count; max is None when variadic."""
        return self._operand_range

    def has_trait(self, trait: str) -> bool:
        return trait in self.traits


def op_cost(op: Any) -> Cost:
    """The cost hint of ``op`` from its definition: zero for an op without one, or
    whose cost needs what its types do not say (a cost hint is a hint: an unknown
    cost is zero, as ``ge_cost`` does for '?' dims)."""
    od = op.definition
    if od is None or od.cost is None:
        return Cost()
    try:
        return od.cost(InferContext.for_op(op), [r.type for r in op.results])
    except InferError:
        return Cost()


class Dialect:
    """A namespace of op definitions (``ge``, ``rt``, ``builtin``)."""

    def __init__(self, name: str, common_attributes: Sequence[AttrDef] = ()) -> None:
        self.name = name
        self.ops: dict[str, OpDef] = {}
        self.common_attributes = {a.name: a for a in common_attributes}

    def define(self, mnemonic: str, *, operands: Sequence[str | OperandDef] = (), results: int = 1,
               attributes: Sequence[AttrDef] = (), regions: int = 0, traits: Sequence[str] = (),
               infer: InferFn | None = None, verify: VerifyFn | None = None, engine: str | None = None,
               cost: CostFn | None = None, summary: str = "", open_attributes: bool = False,
               onnx_op: str | None = None) -> OpDef:
        """Declare ``<dialect>.<mnemonic>``. Operand names ending in ``?`` are
        optional, in ``*`` variadic."""
        ods = []
        for o in operands:
            if isinstance(o, OperandDef):
                ods.append(o)
            elif o.endswith("*"):
                ods.append(OperandDef(o[:-1], VARIADIC))
            elif o.endswith("?"):
                ods.append(OperandDef(o[:-1], OPTIONAL))
            else:
                ods.append(OperandDef(o))
        attr_defs = dict(self.common_attributes)
        attr_defs.update({a.name: a for a in attributes})
        od = OpDef(f"{self.name}.{mnemonic}", tuple(ods), results, attr_defs, regions, frozenset(traits),
                   infer, verify, engine, cost, summary, open_attributes, onnx_op)
        if od.name in self.ops:
            raise ValueError(f"op '{od.name}' defined twice")
        self.ops[od.name] = od
        return od

    def add_traits(self, mnemonic: str, *traits: str) -> OpDef:
        """Give the declared op ``<dialect>.<mnemonic>`` more traits: for a property a
        dialect declares as one table of ops rather than op by op."""
        name = f"{self.name}.{mnemonic}"
        if name not in self.ops:
            raise ValueError(f"op '{name}' is not defined")
        od = attrs.evolve(self.ops[name], traits=self.ops[name].traits | frozenset(traits))
        self.ops[name] = od
        return od
