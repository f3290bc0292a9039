"""The printer: the custom form (default) and MLIR's generic form.

The generic form is byte for byte what ``mlir-opt --mlir-print-op-generic``
prints (MLIR's value numbering, sorted attributes, ``%0:2``/``%0#1``, ``^bb0``
labels, properties, successors and predecessor comments, attribute and type
aliases, and with ``--mlir-print-debuginfo`` block argument locations and the
``#loc`` aliases at the end of the file), so golden files can be checked
against upstream MLIR. The custom form keeps the SSA names of the input and
prints locations inline. Output is deterministic.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Callable, TextIO

import attrs

from geir.attributes import (ArrayAttr, Attribute, BoolAttr, CallSiteLoc, DenseArrayAttr,
                             DenseElementsAttr, DenseResourceAttr, DictionaryAttr, FileLineColLoc,
                             FileMetadata, FloatAttr, FusedLoc, IntegerAttr, Location, NameLoc,
                             OpaqueAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr, UnknownLoc,
                             escape_string, format_attr_entry)
from geir.graph_io import attribute_dicts
from geir.module import Module
from geir.operation import Block, Operation, Region, Value
from geir.types import (I64, F64, FloatType, FunctionType, IndexType, IntegerType, NoneType, OpaqueType,
                        TensorType, Type)

__all__ = ["PrintOptions", "print_module", "print_op", "module_to_string"]

_NAME_RE = re.compile(r"[A-Za-z0-9_$.\-]+\Z")
#: attributes the custom ``ge.graph`` syntax shows in its signature
_GRAPH_SIGNATURE_ATTRS = ("sym_name", "function_type", "arg_attrs", "res_attrs")


@attrs.frozen
class PrintOptions:
    """How to print (each field is a ``ge-opt`` flag)."""

    generic: bool = False
    debuginfo: bool = False
    #: ``--mlir-print-local-scope``: no aliases; every attribute, type and
    #: location printed where it is used
    local_scope: bool = False
    #: print constants with more elements than this as ``dense_resource<__elided__>``
    elide_constants_larger_than: int | None = None


class _Names:
    """SSA names for the values of one printed module."""

    def __init__(self) -> None:
        self.names: dict[Value, str] = {}
        self.groups: dict[Operation, tuple[str, int]] = {}

    def __getitem__(self, v: Value) -> str:
        name = self.names.get(v)
        if name is None:
            return "%<<UNKNOWN SSA VALUE>>"
        return name


def _number_generic(root: Operation, names: _Names) -> None:
    """MLIR's SSANameState for ops it does not know to be isolated (all of ours,
    upstream): one counter for values and one for entry-block arguments, running
    over regions in the order of a stack — a region's nested regions are pushed
    after it is numbered and the last pushed is numbered first."""
    next_value = 0
    next_arg = 0
    if root.results:
        _bind_results(root, f"%{next_value}", names)
        next_value += 1
    stack: list[Region] = list(root.regions)
    while stack:
        region = stack.pop()
        for i, block in enumerate(region.blocks):
            for arg in block.arguments:
                if i == 0:
                    names.names[arg] = f"%arg{next_arg}"
                    next_arg += 1
                else:
                    names.names[arg] = f"%{next_value}"
                    next_value += 1
            for op in block.ops:
                if op.results:
                    _bind_results(op, f"%{next_value}", names)
                    next_value += 1
        for block in region.blocks:
            for op in block.ops:
                stack.extend(op.regions)


def _bind_results(op: Operation, base: str, names: _Names) -> None:
    if len(op.results) == 1:
        names.names[op.results[0]] = base
    else:
        names.groups[op] = (base, len(op.results))
        for i, r in enumerate(op.results):
            names.names[r] = f"{base}#{i}"


# ------------------------------------------------------------------ aliases

#: attributes and types that never have an alias nor hold one
_LEAVES = frozenset({IntegerAttr, FloatAttr, BoolAttr, StringAttr, UnitAttr, SymbolRefAttr, DenseArrayAttr,
                     DenseResourceAttr, DenseElementsAttr, IntegerType, FloatType, IndexType, NoneType})
_LOCATIONS = (UnknownLoc, FileLineColLoc, NameLoc, CallSiteLoc, FusedLoc)
#: the kinds an alias can name; they are keyed by value (equal ones share an alias)
_ALIASABLE = frozenset({*_LOCATIONS, OpaqueAttr, OpaqueType})


class _AliasInfo:
    __slots__ = ("obj", "name", "depth", "is_type", "deferrable", "children")

    def __init__(self, obj: object, name: str | None, is_type: bool, deferrable: bool) -> None:
        self.obj = obj
        self.name = name
        self.depth = 1 if name is not None else 0
        self.is_type = is_type
        self.deferrable = deferrable
        self.children: list[object] = []


class _AliasState:
    """MLIR's AliasInitializer: walk what will be printed (in the order of its
    dummy printer), give ``loc``/``map``/``set`` and the source's dialect alias
    names to the values that take one, order them by nesting depth, then types
    first, then name, number equal names ``#map``, ``#map1``, ... and split
    them into the aliases printed before the module and the ones (locations of
    ops only) that may be printed after it."""

    def __init__(self, root: Operation, locations: bool, type_aliases: Mapping[str, str],
                 attribute_aliases: Mapping[str, str]) -> None:
        self.locations = locations
        #: the source's alias names (a module's, never the interned values')
        self.type_aliases = type_aliases
        self.attribute_aliases = attribute_aliases
        self.infos: dict[object, _AliasInfo] = {}
        self.visit_op(root)
        named = [i for i in self.infos.values() if i.name is not None]
        named.sort(key=lambda i: (i.depth, not i.is_type, i.name))
        counts: dict[str, int] = {}
        self.names: dict[object, str] = {}
        self.ordered: list[tuple[_AliasInfo, str]] = []
        for info in named:
            n = counts.get(info.name, 0)  # type: ignore[arg-type]
            counts[info.name] = n + 1  # type: ignore[index]
            # MLIR's counters: map, map1, ...; a name ending in a digit gets x86_64, x86_64_1, ...
            counter = "" if not n else f"_{n}" if info.name[-1].isdigit() else str(n)  # type: ignore[index]
            text = ("!" if info.is_type else "#") + info.name + counter  # type: ignore[operator]
            self.names[info.obj] = text
            self.ordered.append((info, text))

    def lookup(self, obj: object) -> str | None:
        if type(obj) not in _ALIASABLE:
            return None
        return self.names.get(obj)

    # the walk: an op's location, its regions (block argument types and
    # locations, then the ops), operand and result types, then its attributes
    def visit_op(self, op: Operation) -> None:
        leaves = _LEAVES
        if self.locations:
            self.visit(op.location, True, None)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    self.visit_type(arg.type)
                    if self.locations:
                        self.visit(arg.location, False, None)
                for inner in block.ops:
                    self.visit_op(inner)
        for v in op.operands:
            self.visit_type(v.type)
        for r in op.results:
            self.visit_type(r.type)
        props = op.properties
        if props is None:
            for a in op.attributes.values():
                if type(a) not in leaves:
                    self.visit(a, False, None)
            return
        if isinstance(props, DictionaryAttr):  # MLIR walks inherent and discardable attributes sorted by name
            values = [a for _, a in sorted([*props.value, *op.attributes.items()], key=lambda kv: kv[0])]
        else:
            values = [props, *op.attributes.values()]
        for a in values:
            if type(a) not in leaves:
                self.visit(a, False, None)

    def visit_type(self, t: Type) -> None:
        kind = type(t)
        if kind in _LEAVES or kind is TensorType and type(t.element_type) is not OpaqueType:  # type: ignore[attr-defined]
            return
        self.visit(t, False, None)

    def visit(self, obj: object, deferrable: bool, parent: list[object] | None) -> int:
        """Visit ``obj``; return its alias depth. Only what can take an alias is
        recorded (and listed in ``parent``, the nearest recorded ancestor's
        children); arrays, dictionaries and the like are looked through."""
        kind = type(obj)
        if kind in _LEAVES:
            return 0
        if kind not in _ALIASABLE:
            deepest = 0
            for child in _children(obj):
                if type(child) not in _LEAVES:
                    deepest = max(deepest, self.visit(child, deferrable, parent))
            return deepest + 1 if deepest else 0
        if parent is not None:
            parent.append(obj)
        info = self.infos.get(obj)
        if info is not None:
            if not deferrable:
                self.mark_non_deferrable(info)
            return info.depth
        info = self.infos[obj] = _AliasInfo(obj, self.alias_name(obj), isinstance(obj, Type), deferrable)
        deepest = 0
        for child in _children(obj):
            if type(child) not in _LEAVES:
                deepest = max(deepest, self.visit(child, deferrable, info.children))
        if deepest:
            info.depth = deepest + 1
        return info.depth

    def mark_non_deferrable(self, info: _AliasInfo) -> None:
        if not info.deferrable:
            return
        info.deferrable = False
        for k in info.children:
            self.mark_non_deferrable(self.infos[k])

    def alias_name(self, obj: object) -> str | None:
        if isinstance(obj, Location):
            return "loc"
        if isinstance(obj, OpaqueAttr):
            return self.attribute_aliases.get(obj.text) or obj.default_alias()
        if isinstance(obj, OpaqueType):
            return self.type_aliases.get(str(obj))
        return None


def _children(obj: object) -> list[object]:
    """What printing ``obj`` prints of other attributes and types, in order."""
    if isinstance(obj, (OpaqueAttr, OpaqueType)):
        return [p for p in obj.pieces if not isinstance(p, str)]
    if isinstance(obj, ArrayAttr):
        return list(obj.value)
    if isinstance(obj, DictionaryAttr):
        return [v for _, v in obj.value]
    if isinstance(obj, TypeAttr):
        return [obj.value]
    if isinstance(obj, FunctionType):
        return [*obj.inputs, *obj.results]
    if isinstance(obj, TensorType):
        return [obj.element_type]
    if isinstance(obj, NameLoc):
        return [] if obj.child is None or isinstance(obj.child, UnknownLoc) else [obj.child]
    if isinstance(obj, CallSiteLoc):
        return [obj.callee, obj.caller]
    if isinstance(obj, FusedLoc):
        return ([obj.metadata] if obj.metadata is not None else []) + list(obj.locations)
    return []


class _CustomNamer:
    """Names for the custom form: the input's names where valid and unique."""

    def __init__(self, names: _Names) -> None:
        self.names = names
        self.scopes: list[set[str]] = [set()]
        self.counters: list[int] = [0]

    def push(self) -> None:
        self.scopes.append(set())
        self.counters.append(0)

    def pop(self) -> None:
        self.scopes.pop()
        self.counters.pop()

    def _used(self, name: str) -> bool:
        return any(name in s for s in self.scopes)

    def fresh(self, hint: str | None) -> str:
        if hint and _NAME_RE.match(hint) and not self._used(hint):
            self.scopes[-1].add(hint)
            return hint
        while True:
            n = str(self.counters[-1])
            self.counters[-1] += 1
            if not self._used(n):
                self.scopes[-1].add(n)
                return n

    def name_results(self, op: Operation) -> None:
        rs = op.results
        if not rs:
            return
        if len(rs) == 1:
            self.names.names[rs[0]] = "%" + self.fresh(rs[0].name_hint)
            return
        hints = [r.name_hint for r in rs]
        stems = {h.partition("#")[0] for h in hints if h and "#" in h}
        if len(stems) == 1 and all(h == f"{next(iter(stems))}#{i}" for i, h in enumerate(hints)):
            base = "%" + self.fresh(next(iter(stems)))
        elif all(hints) and len(set(hints)) == len(hints) and all("#" not in h for h in hints):  # type: ignore[operator]
            for r in rs:
                self.names.names[r] = "%" + self.fresh(r.name_hint)
            return
        else:
            base = "%" + self.fresh(None)
        _bind_results(op, base, self.names)


def _is_isolated(op: Operation) -> bool:
    d = op.definition
    return op.name == "builtin.module" or (d is not None and d.has_trait("isolated"))


class _Printer:
    def __init__(self, out: TextIO, options: PrintOptions, module: Module | None) -> None:
        self.out = out
        self.opts = options
        self.module = module
        self.names = _Names()
        self.namer = _CustomNamer(self.names) if not options.generic else None
        self.elided: set[int] = set()
        self.aliases: _AliasState | None = None
        self.block_names: dict[Block, str] = {}
        #: MLIR's form of locations: aliases, and block arguments' locations
        self.mlir_locations = options.debuginfo and options.generic

    # --------------------------------------------------------- values
    def value(self, v: Value) -> str:
        return self.names[v]

    def results_prefix(self, op: Operation) -> str:
        if not op.results:
            return ""
        group = self.names.groups.get(op)
        if group is not None:
            return f"{group[0]}:{group[1]} = "
        return ", ".join(self.names[r] for r in op.results) + " = "

    # --------------------------------------------------------- attributes
    def attribute(self, a: Attribute) -> str:
        limit = self.opts.elide_constants_larger_than
        if limit is not None:
            if isinstance(a, DenseElementsAttr) and a.array.size > limit:
                return f"dense_resource<__elided__> : {a.type}"
            if isinstance(a, DenseResourceAttr) and (a.type.num_elements or 0) > limit:
                self.elided.add(id(a.blob))
                return f"dense_resource<__elided__> : {a.type}"
        if self.aliases is None or type(a) in _LEAVES:
            return str(a)
        return self.render_attr(a)

    def render_attr(self, a: Attribute, top: bool = False) -> str:
        """``a`` with the aliases of what it holds (and its own unless ``top``)."""
        assert self.aliases is not None
        if not top:
            name = self.aliases.lookup(a)
            if name is not None:
                return name
        kind = type(a)
        if kind in _LEAVES:
            return str(a)
        if kind is ArrayAttr:
            return "[" + ", ".join(self.render_element(e) for e in a.value) + "]"  # type: ignore[attr-defined]
        if kind is DictionaryAttr:
            return "{" + ", ".join(format_attr_entry(k, v if isinstance(v, UnitAttr) else _Raw(self.render_attr(v)))
                                   for k, v in a.value) + "}"  # type: ignore[attr-defined]
        if kind is TypeAttr:
            return self.render_type(a.value)  # type: ignore[attr-defined]
        if kind is OpaqueAttr:
            return self.render_pieces(a) if a.pieces else a.text  # type: ignore[attr-defined]
        if isinstance(a, Location):
            return "loc(" + self.render_loc(a, top=True) + ")"
        return str(a)

    def render_element(self, a: Attribute) -> str:
        # Inside arrays MLIR elides the default types, i64 and f64.
        if isinstance(a, IntegerAttr) and a.type is I64:
            return str(a.value)
        if isinstance(a, FloatAttr):
            return a.elided()
        return self.render_attr(a)

    def render_pieces(self, obj: OpaqueAttr | OpaqueType) -> str:
        return "".join(p if isinstance(p, str) else self.render_type(p) if isinstance(p, Type) else self.render_attr(p)
                       for p in obj.pieces)

    def type_text(self, t: Type) -> str:
        return str(t) if self.aliases is None else self.render_type(t)

    def render_type(self, t: Type, top: bool = False) -> str:
        kind = type(t)
        if kind in _LEAVES or self.aliases is None:
            return str(t)
        if kind is OpaqueType:
            if not top:
                name = self.aliases.lookup(t)
                if name is not None:
                    return name
            return self.render_pieces(t) if t.pieces else str(t)  # type: ignore[attr-defined]
        if kind is FunctionType:
            ins = ", ".join(self.render_type(i) for i in t.inputs)  # type: ignore[attr-defined]
            rs = t.results  # type: ignore[attr-defined]
            if len(rs) == 1 and not isinstance(rs[0], FunctionType):
                return f"({ins}) -> {self.render_type(rs[0])}"
            return f"({ins}) -> (" + ", ".join(self.render_type(r) for r in rs) + ")"
        return str(t)

    def render_loc(self, loc: Location, top: bool = False) -> str:
        """A location's body (inside ``loc(...)``), nested locations through their aliases."""
        if self.aliases is None:
            return loc.body()
        if not top:
            name = self.aliases.lookup(loc)
            if name is not None:
                return name
        if isinstance(loc, NameLoc):
            child = loc.child
            inner = "" if child is None or isinstance(child, UnknownLoc) else f"({self.render_loc(child)})"
            return escape_string(loc.name) + inner
        if isinstance(loc, CallSiteLoc):
            return f"callsite({self.render_loc(loc.callee)} at {self.render_loc(loc.caller)})"
        if isinstance(loc, FusedLoc):
            meta = "" if loc.metadata is None else f"<{self.render_attr(loc.metadata)}>"
            return f"fused{meta}[" + ", ".join(self.render_loc(l) for l in loc.locations) + "]"
        return loc.body()

    def attr_dict(self, attributes: dict[str, Attribute], skip: tuple[str, ...] = (), keyword: bool = False) -> str:
        items = sorted((k, v) for k, v in attributes.items() if k not in skip)
        if not items:
            return ""
        body = ", ".join(format_attr_entry(k, _Raw(self.attribute(v)) if not _is_unit(v) else v) for k, v in items)
        return (" attributes {" if keyword else " {") + body + "}"

    def location(self, loc: Location) -> str:
        if not self.opts.debuginfo:
            return ""
        if self.mlir_locations and self.aliases is not None:
            name = self.aliases.lookup(loc)
            return f" loc({name})" if name is not None else f" loc({self.render_loc(loc, top=True)})"
        return f" {loc}"

    def arg_location(self, loc: Location) -> str:
        # MLIR prints block arguments' locations without an alias of their own.
        if not self.mlir_locations:
            return ""
        return f" loc({self.render_loc(loc, top=True)})"

    # --------------------------------------------------------- ops
    def op(self, op: Operation, indent: int) -> None:
        if self.namer is not None:
            self.namer.name_results(op)
        pad = " " * indent
        if self.opts.generic or (op.definition is None and op.name != "builtin.module"):
            # an op no dialect defines has no custom form: MLIR prints it generic
            self.generic_op(op, pad, indent)
        elif op.name == "builtin.module" and op.properties is None and not op.successors:
            self.module_op(op, pad, indent)
        elif op.name == "ge.graph" and _graph_is_printable(op):
            self.graph_op(op, pad, indent)
        else:
            self.custom_op(op, pad, indent)

    def generic_op(self, op: Operation, pad: str, indent: int) -> None:
        w = self.out.write
        w(pad + self.results_prefix(op))
        w(escape_string(op.name) + "(" + ", ".join(self.value(v) for v in op.operands) + ")")
        self.successors_and_properties(op)
        self.regions_and_tail(op, indent)

    def custom_op(self, op: Operation, pad: str, indent: int) -> None:
        w = self.out.write
        w(pad + self.results_prefix(op) + op.name)
        if op.operands:
            w(" " + ", ".join(self.value(v) for v in op.operands))
        if op.successors:
            w(" ")
        self.successors_and_properties(op)
        self.regions_and_tail(op, indent)

    def successors_and_properties(self, op: Operation) -> None:
        """``[^bb1, ^bb2] <{...}>``: MLIR prints successors right after the operands."""
        w = self.out.write
        if op.successors:
            w("[" + ", ".join(self.block_names.get(b, "^<<UNKNOWN BLOCK>>") for b in op.successors) + "]")
        if op.properties is not None:
            w(" <" + self.attribute(op.properties) + ">")

    def regions_and_tail(self, op: Operation, indent: int) -> None:
        """`` ({...}, {...}) {attrs} : (types) -> types loc(...)``: the part both forms share."""
        w = self.out.write
        if op.regions:
            w(" (")
            for i, r in enumerate(op.regions):
                if i:
                    w(", ")
                self.region(r, indent, print_entry_args=True, print_empty_block=True,
                            scoped=_is_isolated(op))
            w(")")
        w(self.attr_dict(op.attributes))
        w(" : " + self.functional_type(op))
        w(self.location(op.location))

    def functional_type(self, op: Operation) -> str:
        if self.aliases is None:
            return _functional_type(op)
        ins = ", ".join(self.render_type(v.type) for v in op.operands)
        rs = op.results
        if len(rs) == 1 and not isinstance(rs[0].type, FunctionType):
            return f"({ins}) -> {self.render_type(rs[0].type)}"
        return f"({ins}) -> (" + ", ".join(self.render_type(r.type) for r in rs) + ")"
    def module_op(self, op: Operation, pad: str, indent: int) -> None:
        w = self.out.write
        w(pad + "module")
        sym = op.attributes.get("sym_name")
        if isinstance(sym, StringAttr):
            w(" @" + _symbol_text(sym.value))
        w(self.attr_dict(op.attributes, ("sym_name",), keyword=True))
        w(" ")
        self.region(op.regions[0], indent, print_entry_args=False, print_empty_block=False, scoped=True)
        w(self.location(op.location))

    def graph_op(self, op: Operation, pad: str, indent: int) -> None:
        w = self.out.write
        ftype = op.attributes["function_type"].value  # type: ignore[attr-defined]
        name = op.attributes["sym_name"].value  # type: ignore[attr-defined]
        region = op.regions[0]
        entry = region.blocks[0] if region.blocks else None
        assert self.namer is not None
        self.namer.push()
        arg_attrs = attribute_dicts(op.attributes.get("arg_attrs"))
        res_attrs = attribute_dicts(op.attributes.get("res_attrs"))
        args = []
        for i, t in enumerate(ftype.inputs):
            if entry is not None and i < len(entry.arguments):
                a = entry.arguments[i]
                self.names.names[a] = "%" + self.namer.fresh(a.name_hint)
                text = f"{self.names[a]}: {self.type_text(t)}"
            else:
                text = f"%arg{i}: {self.type_text(t)}"
            extra = arg_attrs[i] if i < len(arg_attrs) else {}
            text += self.attr_dict(extra)
            args.append(text)
        w(f"{pad}ge.graph @{_symbol_text(name)}(" + ", ".join(args) + ")")
        if ftype.results:
            outs = []
            for i, t in enumerate(ftype.results):
                extra = res_attrs[i] if i < len(res_attrs) else {}
                outs.append(self.type_text(t) + self.attr_dict(extra))
            if len(outs) == 1 and not (res_attrs and res_attrs[0]):
                w(" -> " + outs[0])
            else:
                w(" -> (" + ", ".join(outs) + ")")
        w(self.attr_dict(op.attributes, _GRAPH_SIGNATURE_ATTRS, keyword=True))
        w(" ")
        self.region(region, indent, print_entry_args=False, print_empty_block=False, scoped=False)
        self.namer.pop()
        w(self.location(op.location))

    # --------------------------------------------------------- regions
    def region(self, region: Region, indent: int, *, print_entry_args: bool, print_empty_block: bool,
               scoped: bool = False) -> None:
        w = self.out.write
        if self.namer is not None and scoped:
            self.namer.push()
        w("{\n")
        for i, block in enumerate(region.blocks):
            self.block_names[block] = f"^bb{i}"
        preds = _predecessors(region) if len(region.blocks) > 1 or region.blocks and region.blocks[0].label else {}
        for i, block in enumerate(region.blocks):
            if self.namer is not None:
                for a in block.arguments:
                    if a not in self.names.names:
                        self.names.names[a] = "%" + self.namer.fresh(a.name_hint)
            show_header = i > 0 or (print_entry_args and block.arguments) or (print_empty_block and block.is_empty)
            if show_header:
                w(" " * indent + self.block_names[block])
                if block.arguments:
                    w("(" + ", ".join(f"{self.names[a]}: {self.type_text(a.type)}{self.arg_location(a.location)}"
                                      for a in block.arguments) + ")")
                w(":" + self.predecessor_comment(block, i, preds.get(block)) + "\n")
            for op in block.ops:
                self.op(op, indent + 2)
                w("\n")
        w(" " * indent + "}")
        if self.namer is not None and scoped:
            self.namer.pop()

    def predecessor_comment(self, block: Block, index: int, preds: list[tuple[int, Block]] | None) -> str:
        """MLIR's ``// pred: ^bb0`` / ``// 2 preds: ^bb0, ^bb1`` / ``// no predecessors``."""
        if not preds:
            return "" if index == 0 else "  // no predecessors"
        if len(preds) == 1:  # MLIR counts branches: two from one block are "2 preds"
            return "  // pred: " + self.block_names[preds[0][1]]
        ordered = sorted(preds, key=lambda p: p[0])
        return f"  // {len(ordered)} preds: " + ", ".join(self.block_names[b] for _, b in ordered)

    # --------------------------------------------------------- module
    def top(self, root: Operation) -> None:
        if self.opts.generic:
            _number_generic(root, self.names)
        if self.module is not None and not self.opts.local_scope:
            aliases = _AliasState(root, self.mlir_locations, self.module.type_aliases,
                                  self.module.attribute_aliases)
            if aliases.ordered:
                self.aliases = aliases
        self.alias_definitions(deferred=False)
        self.op(root, 0)
        self.out.write("\n")
        self.alias_definitions(deferred=True)
        if self.module is not None:
            self.resources()
            if not self.opts.local_scope:
                # mlir-opt ends its output with a blank line, but not when it prints the
                # module in local scope (as an op alone, without the file's aliases)
                self.out.write("\n")

    def alias_definitions(self, deferred: bool) -> None:
        if self.aliases is None:
            return
        w = self.out.write
        for info, name in self.aliases.ordered:
            # Only op locations may be defined after their use, as MLIR does.
            if info.deferrable != deferred:
                continue
            obj = info.obj
            if isinstance(obj, Location):
                w(f"{name} = loc({self.render_loc(obj, top=True)})\n")
            elif isinstance(obj, Type):
                w(f"{name} = {self.render_type(obj, top=True)}\n")
            else:
                w(f"{name} = {self.render_attr(obj, top=True)}\n")  # type: ignore[arg-type]

    def resources(self) -> None:
        """The ``{-# ... #-}`` dictionary: the builtin blobs ops use, other
        dialects' resources and ``external_resources``, laid out as MLIR does."""
        assert self.module is not None
        blobs = [b for b in self.module.used_resources() if b.data is not None and id(b) not in self.elided
                 and b.name != "__elided__"]
        md: FileMetadata = self.module.file_metadata or FileMetadata()
        # (key, value) pairs per dialect; a blob's value is written as it comes, so
        # that a model's weights are never all in memory as text at once
        groups: dict[str, list[tuple[str, Callable[[], str] | str]]] = {}
        order = md.dialect_order if "builtin" in md.dialect_order else ["builtin", *md.dialect_order]
        for dialect in order:
            if dialect == "builtin":
                entries: list[tuple[str, Callable[[], str] | str]] = [(b.name, b.to_hex) for b in blobs]
            else:
                entries = [(_resource_key(e.key), e.value_text()) for e in md.dialect_resources.get(dialect, [])]
            if entries:
                groups[dialect] = entries
        external: dict[str, list[tuple[str, Callable[[], str] | str]]] = {
            name: [(_resource_key(e.key), e.value_text()) for e in entries]
            for name, entries in md.external_resources.items() if entries}
        sections = [(kind, g) for kind, g in (("dialect", groups), ("external", external)) if g]
        if not sections:
            return
        w = self.out.write
        w("\n{-#\n")
        for i, (kind, g) in enumerate(sections):
            if i:
                w(",\n")
            w(f"  {kind}_resources: {{\n")
            for j, (name, entries) in enumerate(g.items()):
                if j:
                    w(",\n")
                w(f"    {_resource_key(name)}: {{\n")
                for k, (key, value) in enumerate(entries):
                    if k:
                        w(",\n")
                    w(f"      {key}: ")
                    if callable(value):  # a blob: its hex string, made as it is written
                        w('"')
                        w(value())
                        w('"')
                    else:
                        w(value)
                w("\n    }")
            w("\n  }")
        w("\n#-}\n")


def _predecessors(region: Region) -> dict[Block, list[tuple[int, Block]]]:
    """For each block of ``region``, the (index, block) of each branch to it."""
    preds: dict[Block, list[tuple[int, Block]]] = {}
    for i, block in enumerate(region.blocks):
        for op in block.ops:
            for succ in op.successors:
                preds.setdefault(succ, []).append((i, block))
    return preds


def _resource_key(key: str) -> str:
    return key if re.match(r"[A-Za-z_][A-Za-z0-9_$.\-]*\Z", key) else escape_string(key)


class _Raw(Attribute):
    """Already-formatted attribute text (the printer's elision happens before)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def _is_unit(a: Attribute) -> bool:
    from geir.attributes import UnitAttr
    return isinstance(a, UnitAttr)


def _graph_is_printable(op: Operation) -> bool:
    """The custom graph syntax needs a signature and a single entry block that matches it."""
    ft = op.attributes.get("function_type")
    sym = op.attributes.get("sym_name")
    if not (isinstance(ft, TypeAttr) and isinstance(ft.value, FunctionType) and isinstance(sym, StringAttr)):
        return False
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1 or op.operands or op.results:
        return False
    entry = op.regions[0].blocks[0]
    return [a.type for a in entry.arguments] == list(ft.value.inputs)


def _symbol_text(name: str) -> str:
    if re.match(r"[A-Za-z_][A-Za-z0-9_$.\-]*\Z", name):
        return name
    return escape_string(name)


def _functional_type(op: Operation) -> str:
    ins = ", ".join(str(v.type) for v in op.operands)
    rs = op.results
    if len(rs) == 1 and not isinstance(rs[0].type, FunctionType):
        return f"({ins}) -> {rs[0].type}"
    return f"({ins}) -> (" + ", ".join(str(r.type) for r in rs) + ")"


def print_module(module: Module, out: TextIO, options: PrintOptions = PrintOptions()) -> None:
    """Write ``module`` to ``out``."""
    _Printer(out, options, module).top(module.op)


def module_to_string(module: Module, options: PrintOptions = PrintOptions()) -> str:
    """``module`` as text."""
    buf = io.StringIO()
    print_module(module, buf, options)
    return buf.getvalue()


def print_op(op: Operation, options: PrintOptions = PrintOptions()) -> str:
    """One op (and what it holds) as text, e.g. for ``--mlir-print-ir-after``."""
    buf = io.StringIO()
    p = _Printer(buf, options, None)
    p.top(op)
    return buf.getvalue()
