"""The printer: the custom form (default) and MLIR's generic form.

The generic form is byte for byte what ``mlir-opt --mlir-print-op-generic``
prints (MLIR's value numbering, sorted attributes, ``%0:2``/``%0#1``, ``^bb0``
labels), so golden files can be checked against upstream MLIR. The custom form
keeps the SSA names of the input. Output is deterministic.
"""

from __future__ import annotations

import io
import re
from typing import TextIO

import attrs

from geir.attributes import (Attribute, DenseElementsAttr, DenseResourceAttr,
                             Location, StringAttr, TypeAttr, escape_string,
                             format_attr_entry)
from geir.graph_io import attribute_dicts
from geir.module import Module
from geir.operation import Operation, Region, Value
from geir.types import FunctionType

__all__ = ["PrintOptions", "print_module", "print_op", "module_to_string"]

_NAME_RE = re.compile(r"[A-Za-z0-9_$.\-]+\Z")
#: attributes the custom ``ge.graph`` syntax shows in its signature
_GRAPH_SIGNATURE_ATTRS = ("sym_name", "function_type", "arg_attrs", "res_attrs")


@attrs.frozen
class PrintOptions:
    """How to print (each field is a ``ge-opt`` flag)."""

    generic: bool = False
    debuginfo: bool = False
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
        return str(a)

    def attr_dict(self, attributes: dict[str, Attribute], skip: tuple[str, ...] = (), keyword: bool = False) -> str:
        items = sorted((k, v) for k, v in attributes.items() if k not in skip)
        if not items:
            return ""
        body = ", ".join(format_attr_entry(k, _Raw(self.attribute(v)) if not _is_unit(v) else v) for k, v in items)
        return (" attributes {" if keyword else " {") + body + "}"

    def location(self, loc: Location) -> str:
        if not self.opts.debuginfo:
            return ""
        return f" {loc}"

    # --------------------------------------------------------- ops
    def op(self, op: Operation, indent: int) -> None:
        if self.namer is not None:
            self.namer.name_results(op)
        pad = " " * indent
        if self.opts.generic:
            self.generic_op(op, pad, indent)
        elif op.name == "builtin.module":
            self.module_op(op, pad, indent)
        elif op.name == "ge.graph" and _graph_is_printable(op):
            self.graph_op(op, pad, indent)
        else:
            self.custom_op(op, pad, indent)

    def generic_op(self, op: Operation, pad: str, indent: int) -> None:
        w = self.out.write
        w(pad + self.results_prefix(op))
        w(escape_string(op.name) + "(" + ", ".join(self.value(v) for v in op.operands) + ")")
        self.regions_and_tail(op, indent)

    def custom_op(self, op: Operation, pad: str, indent: int) -> None:
        w = self.out.write
        w(pad + self.results_prefix(op) + op.name)
        if op.operands:
            w(" " + ", ".join(self.value(v) for v in op.operands))
        self.regions_and_tail(op, indent)

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
        w(" : " + _functional_type(op))
        w(self.location(op.location))

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
                text = f"{self.names[a]}: {t}"
            else:
                text = f"%arg{i}: {t}"
            extra = arg_attrs[i] if i < len(arg_attrs) else {}
            text += self.attr_dict(extra)
            args.append(text)
        w(f"{pad}ge.graph @{_symbol_text(name)}(" + ", ".join(args) + ")")
        if ftype.results:
            outs = []
            for i, t in enumerate(ftype.results):
                extra = res_attrs[i] if i < len(res_attrs) else {}
                outs.append(str(t) + self.attr_dict(extra))
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
            if self.namer is not None:
                for a in block.arguments:
                    if a not in self.names.names:
                        self.names.names[a] = "%" + self.namer.fresh(a.name_hint)
                if block.label is None or i == 0:
                    block_label = f"^bb{i}"
                else:
                    block_label = f"^bb{i}"
            else:
                block_label = f"^bb{i}"
            show_header = i > 0 or (print_entry_args and block.arguments) or (print_empty_block and block.is_empty)
            if show_header:
                w(" " * indent + block_label)
                if block.arguments:
                    w("(" + ", ".join(f"{self.names[a]}: {a.type}" for a in block.arguments) + ")")
                # MLIR notes blocks that nothing branches to (we have no branches).
                w(":  // no predecessors\n" if i > 0 else ":\n")
            for op in block.ops:
                self.op(op, indent + 2)
                w("\n")
        w(" " * indent + "}")
        if self.namer is not None and scoped:
            self.namer.pop()

    # --------------------------------------------------------- module
    def top(self, root: Operation) -> None:
        if self.opts.generic:
            _number_generic(root, self.names)
        self.op(root, 0)
        self.out.write("\n")
        if self.module is not None:
            self.resources()
            self.out.write("\n")  # mlir-opt ends its output with a blank line

    def resources(self) -> None:
        assert self.module is not None
        blobs = [b for b in self.module.used_resources() if b.data is not None and id(b) not in self.elided
                 and b.name != "__elided__"]
        if not blobs:
            return
        w = self.out.write
        w("\n{-#\n  dialect_resources: {\n    builtin: {\n")
        for i, b in enumerate(blobs):
            w(f"      {b.name}: \"{b.to_hex()}\"" + (",\n" if i + 1 < len(blobs) else "\n"))
        w("    }\n  }\n#-}\n")


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
