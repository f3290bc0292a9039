"""The textual IR parser: Lark LALR with the contextual lexer, building the IR
while it reads (the transformer runs as the parser reduces; there is no parse
tree). Reads both printed forms, ``module``/``ge.graph`` sugar, locations,
attribute aliases and the ``{-# dialect_resources #-}`` section.

Errors are :class:`~geir.diagnostics.DiagnosticError` with a file position; the
caller decides how to show them.
"""

from __future__ import annotations

import gc
import os
import re
import struct
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

import lark
import numpy as np
from lark import Lark

from geir.attributes import (ArrayAttr, Attribute, BoolAttr, CallSiteLoc, DenseArrayAttr,
                             DenseElementsAttr, DenseResourceAttr, DictionaryAttr, FileLineColLoc,
                             FileMetadata, FloatAttr, FusedLoc, IntegerAttr, Location, NameLoc,
                             OpaqueAttr, ResourceBlob, ResourceEntry, StringAttr, SymbolRefAttr,
                             TypeAttr, UNIT, UNKNOWN_LOC, UnknownLoc, MAX_ATTRIBUTE_DEPTH, escape_string,
                             format_float)
from geir.diagnostics import Diagnostic, DiagnosticError, SourceFile
from geir.module import Module
from geir.operation import MAX_REGION_DEPTH, TOO_DEEP, Block, Operation, Region, Value
from geir.types import (F64, I1, I64, INDEX, ElementType, FloatType, FunctionType, IntegerType, NONE,
                        ML_DTYPES, OpaqueType, TensorType, Type, parse_element_type, storage_dtype)

__all__ = ["parse_module", "parse_file", "split_input_file", "parse_type", "parse_attribute"]

_GRAMMAR_PATH = os.path.join(os.path.dirname(__file__), "grammar.lark")


def _unescape(token_text: str) -> str:
    """The value of an MLIR string literal (``\\n``, ``\\"``, ``\\XX`` escapes)."""
    body = token_text[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i = 0
    raw = body.encode("utf-8")
    while i < len(raw):
        c = raw[i]
        if c == 0x5C and i + 1 < len(raw):
            n = chr(raw[i + 1])
            simple = {"n": 10, "t": 9, '"': 34, "\\": 92}
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            out += bytes.fromhex(raw[i + 1:i + 3].decode("ascii"))
            i += 3
            continue
        out.append(c)
        i += 1
    return out.decode("utf-8", errors="surrogateescape")


_DIMS_RE = re.compile(r"(?:[0-9]+x|\?x)*")
#: a tensor type with a negative dimension (``tensor<-1x3xf32>``), an error
_NEGATIVE_DIM_RE = re.compile(r"tensor<(?:[0-9]+x|\?x|-[0-9]+x)*?(-[0-9]+)x")

#: builtin scalar types MLIR has and geir keeps as opaque text
_UNMODELED_SCALARS = frozenset({"f80", "f128", "tf32", "f8E4M3", "f8E4M3B11FNUZ", "f8E3M4", "f8E8M0FNU",
                                "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"})


@lru_cache(maxsize=None)
def _tensor_type(text: str) -> Type:
    body = text[7:-1]
    if body.startswith("*x"):
        dims, elem = ["*"], body[2:]
    else:  # `4x?x` then the element type, which may hold an x itself (index)
        m = _DIMS_RE.match(body)
        dims, elem = m.group(0).split("x")[:-1], body[m.end():]  # type: ignore[union-attr]
    et = _checked_width(parse_element_type(elem))
    if et is None:
        if elem in _UNMODELED_SCALARS:  # a builtin element type geir does not model: kept verbatim
            return OpaqueType(text)
        raise ValueError(f"unknown element type '{elem}'")
    if dims == ["*"]:
        return TensorType(None, et)
    shape = [None if d == "?" else int(d) for d in dims]
    for d in shape:
        if d is not None and d > _MAX_DIM:  # MLIR keeps a dim in an int64_t
            raise _TypeTextError("invalid dimension", rf"(?<=[<x]){d}(?=x)")
    return TensorType(shape, et)


#: the largest static dim MLIR reads (int64_t), and integer width (IntegerType's 24 bits)
_MAX_DIM = 2**63 - 1
_MAX_INT_WIDTH = 2**24 - 1


class _TypeTextError(ValueError):
    """A type's text MLIR refuses, with where in it: ``piece`` matches the
    offending part (a dim, an integer type), at which MLIR points."""

    def __init__(self, message: str, piece: str) -> None:
        super().__init__(message)
        self.piece = piece


def _checked_width(et: ElementType | None) -> ElementType | None:
    """``et``, unless it is an integer type wider than MLIR's limit (ValueError)."""
    if isinstance(et, IntegerType) and et.width > _MAX_INT_WIDTH:
        raise _TypeTextError(f"integer bitwidth is limited to {_MAX_INT_WIDTH} bits",
                             rf"(?:^|(?<=[<x(,\s])){et.signedness}i{et.width}(?![0-9])")
    return et


@lru_cache(maxsize=None)
def _scalar_type(text: str) -> Type:
    if text == "none":
        return NONE
    et = _checked_width(parse_element_type(text))
    return OpaqueType(text) if et is None else et


@lru_cache(maxsize=4096)
def _function_type(text: str) -> FunctionType:
    """A FUNCTION_TYPE token: ``(t, t) -> t`` or ``(t) -> (t, t)`` in canonical spacing."""
    ins, _, outs = text.partition(") -> ")
    inputs = [_any_type(t) for t in ins[1:].split(", ") if t]
    if outs.startswith("("):
        results = [_any_type(t) for t in outs[1:-1].split(", ") if t]
    else:
        results = [_any_type(outs)]
    return FunctionType(inputs, results)


def _any_type(text: str) -> Type:
    return _tensor_type(text) if text.startswith("tensor<") else _scalar_type(text)


class _Frame:
    """The values visible in one region while it is being parsed."""

    __slots__ = ("defs", "forward", "region", "block", "pending_args", "labels", "undefined_blocks")

    def __init__(self, region: Region | None) -> None:
        # ^label -> block, and the labels branched to before their block was seen
        self.labels: dict[str, Block] = {}
        self.undefined_blocks: dict[str, Any] = {}
        self.defs: dict[str, Value | tuple[Value, ...]] = {}
        # name -> (placeholder, token) for uses seen before their definition
        self.forward: dict[str, tuple[Value, Any]] = {}
        self.region = region
        self.block: Block | None = None
        self.pending_args: list[tuple[Any, Type, Location | None]] | None = None


class _Forward(Value):
    """A use seen before its definition; replaced when the definition comes."""

    __slots__ = ()


class _DeferredLoc(Location):
    """``loc(#name)`` before ``#name = loc(...)`` (MLIR prints location aliases at
    the end of the file); replaced once the whole file is read."""

    __slots__ = ("token",)

    def __init__(self, token: Any) -> None:
        self.token = token

    def body(self) -> str:
        return self.token.value


#: `#name` / `!name` alias references, strings (skipped) and nested affine maps
#: inside the body of an opaque attribute or type
_REF_RE = re.compile(r'"(?:\\.|[^"\\])*"|([#!])([A-Za-z_][A-Za-z0-9_$\-]*)(?![A-Za-z0-9_$.\-<])|affine_(?:map|set)(?=<)')


class _Builder:
    """The callbacks Lark calls as it reduces each rule."""

    def __init__(self, source: SourceFile, unregistered_ok: bool) -> None:
        self.source = source
        self.filename = source.name
        self.frames: list[_Frame] = [_Frame(None)]
        self.top_ops: list[Operation] = []
        self.aliases: dict[str, Attribute] = {}
        self.blobs: dict[str, ResourceBlob] = {}
        self.pending_graph_args: list[tuple[Any, Type, Any, Location | None]] | None = None
        self.unregistered_ok = unregistered_ok
        self.type_aliases: dict[str, Type] = {}
        self.alias_names: set[str] = set()  # without '#' / '!', for telling MLIR's counters apart
        self.type_alias_names: set[str] = set()
        #: the alias names (counter dropped) of the dialect values they name, by
        #: inline text; the module keeps them, the values do not (types are interned)
        self.attribute_alias_bases: dict[str, str] = {}
        self.type_alias_bases: dict[str, str] = {}
        self.deferred_locs: list[_DeferredLoc] = []
        self.opaque_attrs: dict[str, OpaqueAttr] = {}
        self.metadata = FileMetadata()
        #: each ``dense_resource<name> : type`` read: (name token, type, blob)
        self.resource_uses: list[tuple[Any, TensorType, ResourceBlob]] = []
        #: how deep each array, dictionary, location or dense literal's list nesting
        #: others is, by id (the flat ones, nearly all, are not kept)
        self.nesting: dict[int, tuple[int, Any]] = {}

    # ------------------------------------------------------------ errors
    def type_error(self, token: Any, e: ValueError) -> DiagnosticError:
        """The error ``e`` for the type ``token`` spells: at the part of it MLIR
        points at where ``e`` says which (a dim, an integer width), else at the type."""
        found = (re.search(e.piece, token.value) if isinstance(e, _TypeTextError) and "\n" not in token.value
                 else None)
        return self.error(_Pos(token.line, token.column + found.start()) if found else token, str(e))

    def error(self, token: Any, message: str, note: tuple[str, Any] | None = None) -> DiagnosticError:
        d = Diagnostic("error", message, self.pos(token))
        if note is not None:
            d.attach_note(note[0], self.pos(note[1]))
        return DiagnosticError(d)

    def check_depth(self, token: Any, name: str) -> None:
        """Refuse an op whose regions nest deeper than :data:`MAX_REGION_DEPTH`
        before anything walks them recursively. The frames open now are the
        regions around it and the file's own; one more is a top-level
        ``module {`` the verifier does not count, and it judges the rest."""
        if len(self.frames) > MAX_REGION_DEPTH + 1:
            raise self.error(token, f"'{name}' op {TOO_DEEP}")

    def nested(self, value: Any, children: Iterable[Any]) -> Any:
        """``value``, an array, dictionary, location or dense literal's list
        holding ``children``, after checking how deep it nests
        (:data:`MAX_ATTRIBUTE_DEPTH`)."""
        depth = 1
        for child in children:
            if isinstance(child, _NESTING):
                known = self.nesting.get(id(child))
                depth = max(depth, (known[0] if known else 1) + 1)
        if depth > 1:
            if depth > MAX_ATTRIBUTE_DEPTH:
                raise _AtLastToken(f"{'a location' if isinstance(value, Location) else 'an attribute'} nests more "
                                   f"than {MAX_ATTRIBUTE_DEPTH} deep, the most geir takes")
            self.nesting[id(value)] = (depth, value)  # kept alive: its id stays its own
        return value

    def pos(self, token: Any) -> FileLineColLoc:
        return FileLineColLoc(self.filename, token.line, token.column)

    # ------------------------------------------------------------ values
    def lookup(self, token: Any) -> Value:
        text = token.value
        name, _, index = text[1:].partition("#")
        for frame in reversed(self.frames):
            v = frame.defs.get(name)
            if v is not None:
                break
        else:
            frame = self.frames[-1]
            fwd = frame.forward.get(text)
            if fwd is None:
                placeholder = _Forward(NONE, text[1:])
                frame.forward[text] = (placeholder, token)
                return placeholder
            return fwd[0]
        if isinstance(v, tuple):
            if not index:
                raise self.error(token, f"'%{name}' names {len(v)} results; use '%{name}#<index>'")
            i = int(index)
            if i >= len(v):
                raise self.error(token, f"result number {i} out of range: '%{name}' has {len(v)} results")
            return v[i]
        if index and index != "0":
            raise self.error(token, f"result number {index} out of range: '%{name}' has 1 result")
        return v

    def define(self, token: Any, value: Value | tuple[Value, ...], name: str) -> None:
        for frame in self.frames:
            if name in frame.defs:
                prev = frame.defs[name]
                prev_one = prev[0] if isinstance(prev, tuple) else prev
                raise self.error(token, f"redefinition of SSA value '%{name}'",
                                 ("previous definition here", self._def_token(prev_one) or token))
        frame = self.frames[-1]
        frame.defs[name] = value
        values = value if isinstance(value, tuple) else (value,)
        if frame.forward:
            for i, v in enumerate(values):
                use_name = f"%{name}#{i}" if isinstance(value, tuple) else f"%{name}"
                for key in ((use_name, f"%{name}#0") if i == 0 and not isinstance(value, tuple) else (use_name,)):
                    fwd = frame.forward.pop(key, None)
                    if fwd is not None:
                        self._resolve(fwd, v)

    def _def_token(self, value: Value) -> Any:
        op = getattr(value, "op", None)
        src = op.source if op is not None else None
        if src is None:
            return None
        return _Pos(src.line, src.col)

    def _resolve(self, fwd: tuple[Value, Any], value: Value) -> None:
        placeholder, token = fwd
        if placeholder.type is not NONE and placeholder.type is not value.type:
            raise self.error(token, f"use of value '%{placeholder.name_hint}' expects different type than prior uses: "
                                    f"'{placeholder.type}' vs '{value.type}'")
        placeholder.replace_all_uses_with(value)

    def check_operand_types(self, op_token: Any, operands: list[Value], tokens: list[Any], types: Sequence[Type]) -> None:
        if len(types) != len(operands):
            raise self.error(op_token, f"{len(operands)} operands present, but expected {len(types)} operand types")
        for v, t, tok in zip(operands, types, tokens):
            if v.type is not t:
                if isinstance(v, _Forward) and v.type is NONE:
                    v.type = t
                    continue
                raise self.error(tok, f"use of value '{tok.value}' expects different type than prior uses: "
                                      f"'{t}' vs '{v.type}'")

    # ------------------------------------------------------------ blocks
    def current_block(self) -> Block:
        frame = self.frames[-1]
        if frame.block is None:
            if frame.region is None:
                raise AssertionError("ops outside a region go to top_ops")
            block = Block()
            if frame.pending_args:
                for tok, t, loc in frame.pending_args:
                    arg = block.add_argument(t, tok.value[1:], loc if loc is not None else self.pos(tok))
                    self.define(tok, arg, tok.value[1:])
                frame.pending_args = None
            frame.region.add_block(block)
            frame.block = block
        return frame.block

    def add_op(self, op: Operation) -> None:
        if len(self.frames) == 1:
            self.top_ops.append(op)
        else:
            self.current_block().append(op)

    # ====================================================== rule callbacks
    # Lark calls these with the reduced children (placeholders are None).

    def start(self, *children: Any) -> None:
        return None

    def alias_def(self, name: Any, attr: Attribute) -> None:
        if name.value in self.aliases:
            raise self.error(name, f"redefinition of attribute alias id '{name.value[1:]}'")
        # Only a dialect's attributes take the source's alias name (builtin ones
        # are aliased by kind, or not at all), as MLIR's alias interfaces do.
        if isinstance(attr, OpaqueAttr) and attr.text.startswith("#") and attr.text not in self.attribute_alias_bases:
            # the name MLIR's dialect gave it
            self.attribute_alias_bases[attr.text] = _alias_base(name.value[1:], self.alias_names)
        self.aliases[name.value] = attr
        self.alias_names.add(name.value[1:])

    def type_alias_def(self, name: Any, t: Type) -> None:
        if name.value in self.type_aliases:
            raise self.error(name, f"redefinition of type alias id '{name.value[1:]}'")
        text = str(t)
        if isinstance(t, OpaqueType) and text.startswith("!") and text not in self.type_alias_bases:
            self.type_alias_bases[text] = _alias_base(name.value[1:], self.type_alias_names)
        self.type_aliases[name.value] = t
        self.type_alias_names.add(name.value[1:])

    def alias_attr(self, name: Any) -> Attribute:
        try:
            return self.aliases[name.value]
        except KeyError:
            raise self.error(name, f"undefined symbol alias id '{name.value[1:]}'") from None

    def loc_alias(self, name: Any) -> Location:
        attr = self.aliases.get(name.value)
        if attr is None:  # defined later in the file: resolved at the end
            d = _DeferredLoc(name)
            self.deferred_locs.append(d)
            return d
        if not isinstance(attr, Location):
            raise self.error(name, f"expected location, but '{name.value}' is an alias of '{attr}'")
        return attr

    def type_alias(self, name: Any) -> Type:
        try:
            return self.type_aliases[name.value]
        except KeyError:
            raise self.error(name, f"undefined symbol alias id '{name.value[1:]}'") from None

    def opaque_attr(self, token: Any, t: Type | None = None) -> Attribute:
        text = token.value
        attr = self.opaque_attrs.get(text)
        if attr is None:
            inline, pieces = self.opaque_pieces(token)
            attr = self.opaque_attrs.get(inline)
            if attr is None:
                attr = self.opaque_attrs[inline] = OpaqueAttr(inline, pieces)
            self.opaque_attrs[text] = attr
        if t is None:
            return attr
        # a typed one (`sparse<...> : tensor<2x2xf32>`): the type is part of it
        pieces = (*(attr.pieces or (attr.text,)), " : ", t)
        return OpaqueAttr(f"{attr.text} : {t}", pieces if attr.pieces or isinstance(t, OpaqueType) else ())

    def opaque_pieces(self, token: Any, start: int = 0) -> tuple[str, tuple[Any, ...]]:
        """The inline spelling of an opaque body and its pieces (text, and the
        attributes/types it names through aliases or nests as affine maps)."""
        text = token.value
        if "#" not in text[start + 1:] and "!" not in text[start + 1:] and "affine_" not in text[start + 1:]:
            return text, ()
        pieces: list[Any] = []
        last = 0
        pos = start + 1
        while True:
            m = _REF_RE.search(text, pos)
            if m is None:
                break
            if m.group(0).startswith('"'):
                pos = m.end()
                continue
            if m.group(1) is None:  # a nested affine_map<...> / affine_set<...>
                body = _body_re().match(text, m.end())
                if body is None:
                    pos = m.end()
                    continue
                end = body.end()
                child: Any = self.opaque_attrs.get(text[m.start():end])
                if child is None:
                    child = self.opaque_attrs[text[m.start():end]] = OpaqueAttr(text[m.start():end])
            else:
                end = m.end()
                table: dict[str, Any] = self.aliases if m.group(1) == "#" else self.type_aliases  # type: ignore[assignment]
                child = table.get(m.group(0))
                if child is None:
                    raise self.error(_offset_pos(token, m.start()), f"undefined symbol alias id '{m.group(2)}'")
            pieces += [text[last:m.start()], child]
            last = pos = end
        if not pieces:
            return text, ()
        pieces.append(text[last:])
        pieces = [p for p in pieces if not (isinstance(p, str) and not p)]
        return "".join(str(p) for p in pieces), tuple(pieces)

    def result_group(self, token: Any, count: Any) -> tuple[Any, int]:
        if "#" in token.value:
            raise self.error(token, f"expected a result name without '#', got '{token.value}'")
        n = 1 if count is None else int(count.value)
        if n < 1:
            raise self.error(count, "expected a positive number of results")
        return token, n

    def op_results(self, *groups: tuple[Any, int]) -> list[tuple[Any, int]]:
        return list(groups)

    def value_list(self, *tokens: Any) -> tuple[list[Value], list[Any]]:
        return [self.lookup(t) for t in tokens], list(tokens)

    def operation(self, results: list[tuple[Any, int]] | None, op: Operation, loc: Location | None) -> Operation:
        n_results = len(op.results)
        declared = sum(n for _, n in results) if results else 0
        # MLIR locates an op at its name, and a wrong count of results at the first of them
        first_token = results[0][0] if results else None
        if declared != n_results:
            at = first_token if first_token is not None else _Pos(op.source.line, op.source.col)  # type: ignore[union-attr]
            raise self.error(at, f"operation defines {n_results} results but was provided {declared} to bind")
        if results:
            i = 0
            for token, n in results:
                name = token.value[1:]
                if n == 1:
                    r = op.results[i]
                    r.name_hint = name
                    self.define(token, r, name)
                else:
                    group = tuple(op.results[i:i + n])
                    for k, r in enumerate(group):
                        r.name_hint = f"{name}#{k}"
                    self.define(token, group, name)
                i += n
        if loc is not None:
            op.location = loc
        self.add_op(op)
        return op

    def _make_op(self, name_token: Any, name: str, operands: tuple[list[Value], list[Any]] | None,
                 regions: list[Region] | None, attributes: dict[str, Attribute] | None,
                 ftype: FunctionType | None) -> Operation:
        values, tokens = operands if operands is not None else ([], [])
        if ftype is not None:
            self.check_operand_types(name_token, values, tokens, ftype.inputs)
            result_types: Sequence[Type] = ftype.results
        elif values:
            raise self.error(name_token, f"'{name}' has operands but no trailing ': (operand types) -> results'")
        else:
            result_types = ()
        if not self.unregistered_ok:
            from geir.dialect_registry import lookup_op
            if lookup_op(name) is None:
                raise self.error(name_token, f"unregistered operation '{name}' found in dialect "
                                             f"('{name.split('.', 1)[0]}') (use --allow-unregistered-dialect to allow it)")
        if regions:
            self.check_depth(name_token, name)
        op = Operation(name, values, result_types, attributes, regions or (), UNKNOWN_LOC)
        op.source = self.pos(name_token)
        op.location = op.source
        return op

    def generic_body(self, name: Any, operands: Any, successors: Any, props: Any, regions: Any, attributes: Any,
                     ftype: FunctionType) -> Operation:
        return self._op_with_extras(name, _unescape(name.value), operands, successors, props, regions,
                                    attributes, ftype)

    def custom_body(self, name: Any, operands: Any, successors: Any, props: Any, regions: Any, attributes: Any,
                    ftype: Any) -> Operation:
        return self._op_with_extras(name, name.value, operands, successors, props, regions, attributes, ftype)

    def _op_with_extras(self, name_token: Any, name: str, operands: Any, successors: Any, props: Any,
                        regions: Any, attributes: Any, ftype: Any) -> Operation:
        """An op with its successors and properties. A registered (ge) op's
        properties are attributes like any other; an unregistered op keeps
        them apart, so they print back as ``<{...}>``."""
        registered = False
        if props is not None:
            from geir.dialect_registry import lookup_op
            registered = lookup_op(name) is not None
            if registered:
                if not isinstance(props, DictionaryAttr):
                    raise self.error(name_token, f"expected a dictionary of properties for '{name}', got '{props}'")
                attributes = {**props.as_dict(), **(attributes or {})}
        op = self._make_op(name_token, name, operands, regions, attributes, ftype)
        if props is not None and not registered:
            op.properties = props
        if successors:
            op.successors = [self.block_ref(t) for t in successors]
        return op

    def properties(self, attr: Attribute) -> Attribute:
        return attr

    def successor_list(self, *labels: Any) -> list[Any]:
        return list(labels)

    def block_ref(self, token: Any) -> Block:
        """The block ``^label`` names in the region being read (perhaps not seen yet)."""
        frame = self.frames[-1]
        if frame.region is None:
            raise self.error(token, f"branch to '{token.value}' outside of any region")
        block = frame.labels.get(token.value)
        if block is None:
            block = frame.labels[token.value] = Block()
            block.label = token.value[1:]
            frame.undefined_blocks[token.value] = token
        return block

    def graph_arg(self, token: Any, t: Type, attributes: Any, loc: Any) -> tuple[Any, Type, Any]:
        if self.pending_graph_args is None:
            self.pending_graph_args = []
        self.pending_graph_args.append((token, t, attributes, loc))
        return token, t, attributes

    def graph_result(self, t: Type, attributes: Any) -> tuple[Type, Any]:
        return t, attributes

    def graph_results(self, *results: Any) -> list[tuple[Type, Any]]:
        return [r for r in results if r is not None]

    def single_graph_result(self, t: Type) -> list[tuple[Type, Any]]:
        return [(t, None)]

    def graph_body(self, name: Any, symbol: Any, *rest: Any) -> Operation:
        *args, results, attributes, region = rest
        args = [a for a in args if a is not None]
        results = results or []
        arg_types = [t for _, t, _ in args]
        attrs: dict[str, Attribute] = dict(attributes or {})
        attrs["sym_name"] = StringAttr(_symbol_name(symbol.value))
        attrs["function_type"] = TypeAttr(FunctionType(arg_types, [t for t, _ in results]))
        if any(a is not None for _, _, a in args):
            attrs["arg_attrs"] = ArrayAttr(DictionaryAttr.from_dict(a or {}) for _, _, a in args)
        if any(a is not None for _, a in results):
            attrs["res_attrs"] = ArrayAttr(DictionaryAttr.from_dict(a or {}) for _, a in results)
        if not region.blocks:  # an empty body still has its entry block
            block = Block(arg_types, [tok.value[1:] for tok, _, _ in args])
            region.add_block(block)
        return self._make_op(name, name.value, None, [region], attrs, None)

    def module_body(self, keyword: Any, symbol: Any, attributes: Any, region: Region) -> Operation:
        self.check_depth(keyword, "builtin.module")
        attrs = dict(attributes or {})
        if symbol is not None:
            attrs["sym_name"] = StringAttr(_symbol_name(symbol.value))
        if not region.blocks:
            region.add_block(Block())
        op = Operation("builtin.module", (), (), attrs, [region], UNKNOWN_LOC)
        return op

    # ------------------------------------------------------------ regions
    def region_open(self) -> None:
        frame = _Frame(Region())
        if self.pending_graph_args is not None:
            frame.pending_args = [(tok, t, loc) for tok, t, _, loc in self.pending_graph_args]
            self.pending_graph_args = None
        self.frames.append(frame)

    def region(self, *children: Any) -> Region:
        frame = self.frames.pop()
        if frame.pending_args:  # `{}` body: materialise the entry block's arguments
            self.frames.append(frame)
            self.current_block()
            self.frames.pop()
        for label, token in frame.undefined_blocks.items():
            raise self.error(token, f"reference to an undefined block '{label}'")
        if frame.forward:
            # Uses not yet defined may be defined later in an enclosing region.
            parent = self.frames[-1]
            for key, fwd in frame.forward.items():
                if len(self.frames) == 1:
                    raise self.error(fwd[1], f"use of undeclared SSA value name '{key}'")
                parent.forward.setdefault(key, fwd)
                if parent.forward[key] is not fwd:
                    fwd[0].replace_all_uses_with(parent.forward[key][0])
        assert frame.region is not None
        return frame.region

    def region_list(self, *regions: Region) -> list[Region]:
        return list(regions)

    def block_header(self, label: Any, *args: Any) -> Block:
        frame = self.frames[-1]
        block = frame.labels.get(label.value)
        if block is None:
            block = frame.labels[label.value] = Block()
            block.label = label.value[1:]
        elif frame.undefined_blocks.pop(label.value, None) is None:
            raise self.error(label, f"redefinition of block '{label.value}'")
        assert frame.region is not None
        frame.region.add_block(block)
        frame.block = block
        frame.pending_args = None
        for a in args:
            if a is None:
                continue
            tok, t, loc = a
            arg = block.add_argument(t, tok.value[1:], loc if loc is not None else self.pos(tok))
            self.define(tok, arg, tok.value[1:])
        return block

    def block_arg(self, token: Any, t: Type, loc: Any) -> tuple[Any, Type, Any]:
        return token, t, loc

    def block(self, *children: Any) -> None:
        return None

    # ------------------------------------------------------------ types
    def type(self, t: Type) -> Type:
        return t

    def non_function_type(self, token: Any) -> Type:
        kind = token.type
        text = token.value
        try:
            if kind == "TENSOR_TYPE":
                return _tensor_type(text)
            if kind == "SCALAR_TYPE":
                return _scalar_type(text)
            if text.startswith("tensor<") and _SIMPLE_TENSOR_RE.match(text):
                return _tensor_type(text)
            negative = _NEGATIVE_DIM_RE.match(text)
            if negative:
                raise ValueError(f"tensor dimension {negative.group(1)} is negative (a dynamic dimension is "
                                 "written '?')")
        except ValueError as e:
            raise self.type_error(token, e) from None
        inline, pieces = self.opaque_pieces(token)
        return OpaqueType(inline, pieces)

    def function_type(self, *children: Any) -> FunctionType:
        *inputs, results = children
        ins = [t for t in inputs if t is not None]
        outs = results if isinstance(results, list) else [results]
        return FunctionType(ins, outs)

    def simple_function_type(self, token: Any) -> FunctionType:
        try:
            return _function_type(token.value)
        except ValueError as e:
            raise self.type_error(token, e) from None

    def result_type_list(self, *types: Any) -> list[Type]:
        return [t for t in types if t is not None]

    # ------------------------------------------------------------ attributes
    def attr_dict(self, *entries: Any) -> dict[str, Attribute]:
        d: dict[str, Attribute] = {}
        for e in entries:
            if e is None:
                continue
            key_token, value = e
            key = _unescape(key_token.value) if key_token.type == "STRING" else key_token.value
            if key in d:
                raise self.error(key_token, f"duplicate key '{key}' in dictionary attribute")
            d[key] = value
        return d

    def attr_entry(self, key: Any, value: Attribute | None) -> tuple[Any, Attribute]:
        if key.type == "STRING" and key.value == '""':
            raise self.error(key, "expected valid attribute name")
        return key, (UNIT if value is None else value)

    def int_attr(self, token: Any, t: Type | None) -> Attribute:
        v = int(token.value)
        if t is None:  # an untyped integer is an i64, wrapped or refused as MLIR's APInt
            return self._integer(token, v, I64)
        if isinstance(t, FloatType):  # MLIR takes a float's bits in hex, never a decimal integer
            raise self.decimal_for_float(token)
        return self._integer(token, v, t)

    def float_attr(self, token: Any, t: Type | None) -> Attribute:
        if t is not None and not isinstance(t, FloatType):
            raise self.error(token, "floating point value not valid for specified type")
        return FloatAttr(float(token.value), F64 if t is None else t)

    def hex_attr(self, token: Any, t: Type | None) -> Attribute:
        if t is None:
            return self._integer(token, int(token.value, 16), I64)
        if isinstance(t, FloatType):
            return FloatAttr(self.hex_float(token, t), t)
        return self._integer(token, int(token.value, 16), t)

    def _integer(self, token: Any, v: int, t: Type) -> Attribute:
        """``v : t`` for a decimal or hex literal: an integer type holds it as MLIR's APInt does."""
        if not isinstance(t, IntegerType):
            if t is not INDEX:
                raise self.error(token, "integer literal not valid for specified type")
            return IntegerAttr(v, t)
        at = _digits(token)
        if token.value.startswith("-") and t.signedness == "u":
            raise self.error(at, "negative integer literal not valid for unsigned integer type")
        held = _integer_held(v, t)
        if held is None:
            raise self.error(at, f"integer constant out of range for attribute of type '{t}'")
        return BoolAttr(bool(held)) if t is I1 else IntegerAttr(held, t)

    def true_attr(self) -> Attribute:
        return BoolAttr(True)

    def false_attr(self) -> Attribute:
        return BoolAttr(False)

    def unit_attr(self) -> Attribute:
        return UNIT

    def dict_attr(self, entries: dict[str, Attribute]) -> Attribute:
        return self.nested(DictionaryAttr.from_dict(entries), entries.values())

    def string_attr(self, token: Any, t: Type | None) -> Attribute:
        return StringAttr(_unescape(token.value), t)

    def array_attr(self, *items: Any) -> Attribute:
        values = tuple(i for i in items if i is not None)
        return self.nested(ArrayAttr(values), values)

    def symbol_attr(self, *tokens: Any) -> Attribute:
        names = [_symbol_name(t.value) for t in tokens]
        return SymbolRefAttr(names[0], tuple(names[1:]))

    def type_attr(self, t: Type) -> Attribute:
        return TypeAttr(t)

    def dense_attr(self, keyword: Any, body: Any, t: Type) -> Attribute:
        at = _first_token(body)
        if isinstance(t, TensorType) and isinstance(t.element_type, OpaqueType) \
                and t.element_type.numpy_dtype is None:
            # a dialect's element type (strings of !foo.string): its elements kept as written
            pieces = (f"dense<{_dense_text(body)}> : ", t)
            return OpaqueAttr("".join(map(str, pieces)), pieces if str(t) in self.type_alias_bases else ())
        if isinstance(t, OpaqueType):  # dense<...> of a vector, a complex tensor: kept as text
            try:
                text = _opaque_dense_text(body, t)
            except _LiteralError as e:
                raise self.error(e.token, str(e), (e.note, e.token) if e.note else None) from None
            except (ValueError, OverflowError, TypeError) as e:
                raise self.error(at or keyword, f"invalid dense literal for '{t}': {e}") from None
            pieces = (f"dense<{text}> : ", t)
            return OpaqueAttr("".join(map(str, pieces)), pieces if t.pieces or str(t) in self.type_alias_bases else ())
        if not isinstance(t, TensorType) or not t.is_static:
            raise self.error(keyword, f"elements literal type must have static shape, got '{t}'")
        try:
            return DenseElementsAttr(t, _dense_array(body, t))
        except _LiteralError as e:
            raise self.error(e.token, str(e), (e.note, e.token) if e.note else None) from None
        except (ValueError, OverflowError, TypeError) as e:
            if str(e).startswith(("inferred shape", "elements hex", "parsed zero")):
                raise self.error(keyword, str(e)) from None  # the literal as a whole: at 'dense', as MLIR
            message = str(e) if str(e).startswith(("dense", "tensor literal")) else \
                f"invalid dense literal for '{t}': {e}"
            raise self.error(at or keyword, message) from None

    def dense_list(self, *items: Any) -> list[Any]:
        values = [i for i in items if i is not None]
        return self.nested(values, values)  # reading a literal's elements recurses once per bracket

    def dense_complex(self, re_part: Any, im_part: Any) -> Any:
        return _Complex(re_part, im_part)

    def dense_hex(self, token: Any) -> Any:
        blob = _HexBlob(_unescape(token.value))
        blob.line, blob.column = token.line, token.column  # where an error about it points
        return blob

    def true_scalar(self) -> bool:
        return True

    def false_scalar(self) -> bool:
        return False

    def dense_resource_attr(self, name: Any, t: Type) -> Attribute:
        blob = self.blobs.get(name.value)
        if blob is None:
            blob = self.blobs[name.value] = ResourceBlob(name.value)
        if not isinstance(t, TensorType):
            raise self.error(name, f"dense_resource needs a tensor type, got '{t}'")
        # its bytes come at the end of the file: checked against the type there
        self.resource_uses.append((name, t, blob))
        return DenseResourceAttr(t, blob)

    def dense_array_attr(self, t: Type, *values: Any) -> Attribute:
        """``array<t: v, ...>`` by MLIR's rules: integer or float elements of whole
        bytes (or i1, written true/false), a float as a decimal with a dot or as
        its bits in hex, an integer in its type's range."""
        items = [v for v in values if v is not None]
        if not isinstance(t, (IntegerType, FloatType)):
            raise _AtLastToken(f"expected integer or float type, got: '{t}'")
        if isinstance(t, IntegerType) and t.width != 1 and t.width % 8:
            raise _AtLastToken("element type bitwidth must be a multiple of 8")
        vals: list[Any] = []
        for v in items:
            if isinstance(v, bool) or t is I1:
                if not isinstance(v, bool) or t is not I1:
                    raise _AtLastToken("expected 'true' or 'false' values for i1 type" if t is I1
                                       else "expected i1 type for 'true' or 'false' values")
                vals.append(v)
            elif isinstance(t, FloatType):
                vals.append(self._array_float(v, t))
            else:
                if v.type == "FLOAT":
                    raise self.error(v, "expected integer literal")
                held = _array_integer_held(int(v.value, 16) if v.type == "HEX" else int(v.value), t)
                if held is None:  # MLIR reports it once the literal is read: past its end
                    raise self.error(_Pos(v.end_line, v.end_column), "integer constant out of range")
                vals.append(held)
        return DenseArrayAttr(t, tuple(vals))  # type: ignore[arg-type]

    def decimal_for_float(self, token: Any) -> DiagnosticError:
        """MLIR's error for a decimal integer given a float type, at its digits."""
        at = _digits(token)
        return self.error(at, "unexpected decimal integer literal for a floating point value",
                          ("add a trailing dot to make the literal a float", at))

    def _array_float(self, token: Any, t: FloatType) -> float:
        """One float element of ``array<t: ...>``: a decimal with a dot, or its bits in hex."""
        if token.type == "INT":
            raise self.decimal_for_float(token)
        if token.type == "HEX":
            return self.hex_float(token, t)
        return float(token.value)

    def hex_float(self, token: Any, t: FloatType) -> float:
        """The float whose bits a hex literal spells; MLIR's error when they are too many
        or carry a sign."""
        if token.value.startswith("-"):
            raise self.error(_digits(token), _HEX_FLOAT_MINUS)
        value = _float_from_bits(int(token.value, 16), t)
        if value is None:
            raise self.error(token, _HEX_FLOAT_RANGE)
        return value

    # ------------------------------------------------------------ locations
    def loc(self, body: Location) -> Location:
        return body

    def loc_unknown(self) -> Location:
        return UNKNOWN_LOC

    def loc_file(self, file: Any, line: Any, col: Any, end_line: Any, end_col: Any) -> Location:
        l, c = int(line.value), 0 if col is None else int(col.value)
        if end_col is None:
            return FileLineColLoc(_unescape(file.value), l, c)
        el, ec = l if end_line is None else int(end_line.value), int(end_col.value)
        if (el, ec) == (l, c):
            return FileLineColLoc(_unescape(file.value), l, c)
        return FileLineColLoc(_unescape(file.value), l, c, el, ec)

    def loc_name(self, name: Any, child: Location | None) -> Location:
        loc = NameLoc(_unescape(name.value), None if isinstance(child, UnknownLoc) else child)
        return self.nested(loc, (child,))

    def loc_fused(self, meta: Attribute | None, *locs: Location | None) -> Location:
        kept = tuple(l for l in locs if l is not None)
        return self.nested(FusedLoc(kept, meta), (*kept, meta))

    def loc_callsite(self, callee: Location, caller: Location) -> Location:
        return self.nested(CallSiteLoc(callee, caller), (callee, caller))

    # ------------------------------------------------------------ resources
    def file_metadata(self, *sections: Any) -> None:
        return None

    def resource_section(self, kind: Any, *groups: Any) -> None:
        if kind.value not in ("dialect_resources", "external_resources"):
            raise self.error(kind, f"unknown key '{kind.value}' in file metadata dictionary")
        md = self.metadata
        for g in groups:
            if g is None:
                continue
            name_token, entries = g
            name = _key_text(name_token)
            if kind.value == "external_resources":
                md.external_resources.setdefault(name, []).extend(self.resource_value(e) for e in entries)
                continue
            if name not in md.dialect_order:
                md.dialect_order.append(name)
            if name == "builtin":
                for key_token, value in entries:
                    self.builtin_blob(key_token, value)
            else:
                md.dialect_resources.setdefault(name, []).extend(self.resource_value(e) for e in entries)

    def resource_group(self, name: Any, *entries: Any) -> tuple[Any, list[Any]]:
        return name, [e for e in entries if e is not None]

    def resource_entry(self, key: Any, value: Any) -> tuple[Any, Any]:
        return key, value

    def resource_true(self) -> bool:
        return True

    def resource_false(self) -> bool:
        return False

    def resource_value(self, entry: tuple[Any, Any]) -> ResourceEntry:
        """Another dialect's (or an external) resource entry, kept as MLIR keeps it:
        a string starting with ``0x`` is a blob."""
        key_token, value = entry
        key = _key_text(key_token)
        if isinstance(value, bool):
            return ResourceEntry(key, value)
        if value.type == "INT":
            return ResourceEntry(key, int(value.value))
        text = _unescape(value.value)
        if text.startswith("0x"):
            try:
                return ResourceEntry(key, bytes.fromhex(text[2:]))
            except ValueError:
                raise self.error(value, "malformed hex in resource blob") from None
        return ResourceEntry(key, text)

    def builtin_blob(self, name: Any, value: Any) -> None:
        if isinstance(value, bool) or value.type != "STRING":
            raise self.error(name, f"expected a hex blob \"0x...\" for resource '{_key_text(name)}'")
        text = _unescape(value.value)
        if not text.startswith("0x"):
            raise self.error(value, "expected a hex blob \"0x...\" for a resource")
        try:
            raw = bytes.fromhex(text[2:])
        except ValueError:
            raise self.error(value, "malformed hex in resource blob") from None
        if len(raw) < 4:
            raise self.error(value, "resource blob is missing its 4-byte alignment header")
        alignment = struct.unpack("<I", raw[:4])[0]
        if alignment == 0 or alignment & (alignment - 1):
            raise self.error(value, f"resource blob's alignment header says {alignment}, which is not a power of two")
        key = _key_text(name)
        blob = self.blobs.get(key)
        if blob is None:
            blob = self.blobs[key] = ResourceBlob(key)
        blob.alignment = alignment
        blob.data = raw[4:]

    # ------------------------------------------------------------ end of file
    def check_resource_sizes(self) -> None:
        """Each ``dense_resource`` whose blob the file holds: the blob's size is
        the type's (a blob the file lacks is an absent, elided resource)."""
        for token, t, blob in self.resource_uses:
            if blob.data is None or not t.is_static or t.element_type.numpy_dtype is None:
                continue
            need = (t.num_elements or 0) * storage_dtype(t.element_type).itemsize
            if len(blob.data) != need:
                raise self.error(token, f"resource '{blob.name}' holds {len(blob.data)} bytes, but '{t}' needs "
                                        f"{need}")

    def resolve_deferred_locations(self) -> None:
        """Replace each ``loc(#name)`` read before ``#name`` was defined."""
        memo: dict[int, Location] = {}

        def resolve(loc: Location, depth: int = 0) -> Location:
            if isinstance(loc, _DeferredLoc):
                target = self.aliases.get(loc.token.value)
                if target is None:
                    raise self.error(loc.token, f"location alias '{loc.token.value}' is never defined")
                if not isinstance(target, Location):
                    raise self.error(loc.token, f"expected location, but '{loc.token.value}' is an alias of '{target}'")
                if depth > 64:
                    raise self.error(loc.token, f"location alias '{loc.token.value}' refers to itself")
                return resolve(target, depth + 1)
            if isinstance(loc, (UnknownLoc, FileLineColLoc)):
                return loc
            done = memo.get(id(loc))
            if done is not None:
                return done
            if isinstance(loc, NameLoc) and loc.child is not None:
                out: Location = NameLoc(loc.name, resolve(loc.child, depth + 1))
            elif isinstance(loc, CallSiteLoc):
                out = CallSiteLoc(resolve(loc.callee, depth + 1), resolve(loc.caller, depth + 1))
            elif isinstance(loc, FusedLoc):
                out = FusedLoc(tuple(resolve(l, depth + 1) for l in loc.locations), loc.metadata)
            else:
                out = loc
            memo[id(loc)] = out
            return out

        for name, attr in list(self.aliases.items()):
            if isinstance(attr, Location):
                self.aliases[name] = resolve(attr)
        for top in self.top_ops:
            for op in top.walk():
                op.location = resolve(op.location)
                for region in op.regions:
                    for block in region.blocks:
                        for arg in block.arguments:
                            arg.location = resolve(arg.location)


#: how deep brackets may nest inside an opaque body (MLIR prints far less)
_BODY_DEPTH = 6


def _body_closes(text: str, start: int) -> bool:
    """Whether the bracket at ``start`` is closed (strings skipped, ``->`` and
    ``>=`` closing nothing), however deep the brackets inside nest."""
    stack: list[str] = []
    closer = {"<": ">", "(": ")", "[": "]", "{": "}"}
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            m = re.compile(r'"(?:\\.|[^"\\\n])*"').match(text, i)
            if m is None:
                return False
            i = m.end()
            continue
        if c == "-" and text.startswith("->", i) or c == ">" and text.startswith(">=", i):
            i += 2
            continue
        if c in "<([{":
            stack.append(closer[c])
        elif c in ">)]}":
            if stack.pop() != c:
                return False
            if not stack:
                return True
        i += 1
    return False


def _body_regex(depth: int = _BODY_DEPTH) -> str:
    """A bracketed body as MLIR's lexer reads a dialect symbol body: brackets
    nest (up to ``depth``), strings are opaque, ``->`` and ``>=`` close nothing.

    Every alternative starts with a different character, so a failing match
    backtracks in linear time."""
    string = r'"(?:\\.|[^"\\\n])*"'
    plain = r'[^<>()\[\]{}"\-]'
    atom = rf'{plain}|{string}|->|-(?!>)|>='
    body = rf'(?:{atom})*'
    for _ in range(depth):
        body = rf'(?:{atom}|[<(\[{{]{body}[>)\]}}])*'
    return body


@lru_cache(maxsize=1)
def _body_re() -> "re.Pattern[str]":
    """``<body>`` at a position (for affine maps nested in an opaque body)."""
    return re.compile("<" + _body_regex() + ">")


_SIMPLE_TENSOR_RE = re.compile(r"tensor<(\*x|([0-9]+x|\?x)*)([A-Za-z_][A-Za-z0-9_]*|![A-Za-z_][A-Za-z0-9_$]*\.[A-Za-z0-9_$.]*)>\Z")


def _alias_base(name: str, defined: Any) -> str:
    """An alias name without MLIR's counter: MLIR numbers equal names ``map``,
    ``map1``, ... and, for a name ending in a digit, ``x86_64``, ``x86_64_1``.
    The unnumbered one is defined first, so a counter is only split off when
    what is left was already defined (``x86_64`` alone stays ``x86_64``)."""
    for pattern in (r"(.*[0-9])_[0-9]+\Z", r"(.*[^0-9])[0-9]+\Z"):
        m = re.match(pattern, name)
        if m is not None and m.group(1) in defined:
            return m.group(1)
    return name


def _key_text(token: Any) -> str:
    return _unescape(token.value) if token.type == "STRING" else token.value


def _offset_pos(token: Any, offset: int) -> "_Pos":
    """The position ``offset`` characters into ``token``."""
    before = token.value[:offset]
    newlines = before.count("\n")
    if newlines:
        return _Pos(token.line + newlines, offset - before.rfind("\n"))
    return _Pos(token.line, token.column + offset)


class _Complex:
    """``(re, im)`` in a dense literal (only kept as text)."""

    __slots__ = ("re", "im")

    def __init__(self, re_part: Any, im_part: Any) -> None:
        self.re, self.im = re_part, im_part


def _dense_text(body: Any) -> str:
    """A dense literal's elements spelled as they were read (canonical when
    they came from MLIR)."""
    if body is None:
        return ""
    if isinstance(body, list):
        return "[" + ", ".join(_dense_text(b) for b in body) + "]"
    if isinstance(body, _Complex):
        return f"({_dense_text(body.re)},{_dense_text(body.im)})"
    if isinstance(body, bool):
        return "true" if body else "false"
    if isinstance(body, _HexBlob):  # a string element (or the hex bytes, which escape as themselves)
        return escape_string(str(body))
    return body.value


_VECTOR_RE = re.compile(r"vector<((?:\d+x)+)([A-Za-z][A-Za-z0-9]*)>")
_COMPLEX_TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)complex<([A-Za-z][A-Za-z0-9]*)>>")


def _opaque_dense_text(body: Any, t: OpaqueType) -> str:
    """The elements of ``dense<...>`` of a type geir keeps as text, spelled as
    MLIR prints them: a static vector's as a tensor of its shape and element
    type prints them (canonical numbers, one repeated value as a splat, more than
    100 as hex bytes), a complex tensor's parts as its element type's numbers.
    Anything else stays as written."""
    text = str(t)
    m = _VECTOR_RE.fullmatch(text)
    if m is not None:
        et = parse_element_type(m.group(2))
        if isinstance(et, (IntegerType, FloatType)):
            tensor = TensorType([int(d) for d in m.group(1).split("x") if d], et)
            printed = str(DenseElementsAttr(tensor, _dense_array(body, tensor)))
            return printed[len("dense<"):printed.rindex("> : ")]
    m = _COMPLEX_TENSOR_RE.fullmatch(text)
    if m is not None:
        et = parse_element_type(m.group(2))
        if isinstance(et, (IntegerType, FloatType)):
            leaves: list[str] = []
            nested = _complex_text(body, et, leaves)
            count = 1
            for d in m.group(1).split("x")[:-1]:
                count *= int(d)
            return leaves[0] if len(leaves) == count and len(set(leaves)) == 1 else nested
    return _dense_text(body)


def _complex_text(body: Any, et: ElementType, leaves: list[str]) -> str:
    """``body``'s complex elements with their parts spelled as ``et``'s numbers."""
    if isinstance(body, list):
        return "[" + ", ".join(_complex_text(b, et, leaves) for b in body) + "]"
    if isinstance(body, _Complex):
        parts = []
        for part in (body.re, body.im):
            value = _scalar_value(part, et) if not isinstance(part, (list, _Complex)) else None
            if value is None or isinstance(value, (bool, str)):
                return _dense_text(body)
            # a part is held as its type holds it (rounded), as MLIR's APFloat does
            parts.append(format_float(FloatAttr(float(value), et).value, et) if isinstance(et, FloatType)
                         else str(int(value)))
        leaves.append(f"({parts[0]},{parts[1]})")
        return leaves[-1]
    return _dense_text(body)


class _Pos:
    """A token-like position for notes that point at an op already built."""

    __slots__ = ("line", "column", "value")

    def __init__(self, line: int, column: int) -> None:
        self.line, self.column, self.value = line, column, ""


class _HexBlob(str):
    """``dense<"0x...">``: raw little-endian element bytes (and where it is)."""

    line: int
    column: int


def _digits(token: Any) -> Any:
    """Where MLIR points at a number literal's error: past a leading minus, at its digits."""
    return _Pos(token.line, token.column + 1) if token.value.startswith("-") else token


def _symbol_name(text: str) -> str:
    body = text[1:]
    return _unescape(body) if body.startswith('"') else body


#: what MLIR says of a hex float literal with more bits than its type
_HEX_FLOAT_RANGE = "hexadecimal float constant out of range for type"
#: a hex literal spells a float's bits, which have no sign to negate
_HEX_FLOAT_MINUS = "hexadecimal float literal should not have a leading minus"


def _float_from_bits(bits: int, t: FloatType) -> float | None:
    """The float whose bit pattern is ``bits`` in type ``t``; None when ``bits``
    needs more bits than ``t`` has."""
    if bits >= 1 << t.bitwidth:
        return None
    if t.bitwidth == 32:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if t.bitwidth == 64:
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if t.name == "f16":
        return float(np.array(bits, np.uint16).view(np.float16))
    if t.name == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    return float("nan")


def _integer_held(v: int, t: IntegerType) -> int | None:
    """The value an attribute of ``t`` holds for the literal ``v``, as MLIR's APInt
    holds it: a signless integer takes either its signed or its unsigned range
    and reads back signed (``255 : i8`` is -1); None when ``v`` is out of range."""
    w = t.width
    lo = 0 if t.signedness == "u" else -(1 << (w - 1))
    hi = (1 << (w - 1)) - 1 if t.signedness == "s" else (1 << w) - 1
    if not lo <= v <= hi:
        return None
    return v - (1 << w) if t.signedness == "" and v >= 1 << (w - 1) else v


def _array_integer_held(v: int, t: IntegerType) -> int | None:
    """An ``array<...>`` element as MLIR's dense-array parser holds it: as
    :func:`_integer_held`, except that an unsigned type also takes a negative
    literal down to its signed range and holds its two's complement (``-1`` in
    ``array<ui8: ...>`` is 255)."""
    if t.signedness == "u" and v < 0:
        return v + (1 << t.width) if v >= -(1 << (t.width - 1)) else None
    return _integer_held(v, t)


class _LiteralError(ValueError):
    """A dense literal's element that does not fit its element type, at its token."""

    def __init__(self, token: Any, message: str, note: str = "") -> None:
        super().__init__(message)
        self.token, self.note = token, note


def _scalar_value(item: Any, et: ElementType) -> Any:
    if isinstance(item, (bool, _HexBlob)):  # a _HexBlob here is a string element
        return item if isinstance(item, bool) else str(item)
    if isinstance(item, _Complex):  # a complex type's literal is kept as text, never read here
        raise _LiteralError(item.re, f"expected a real element for type '{et}', got a complex literal")
    text = item.value
    if item.type == "FLOAT" and isinstance(et, IntegerType):
        raise _LiteralError(item, "expected integer elements, but parsed floating-point")
    if item.type == "INT" and isinstance(et, FloatType):
        raise _LiteralError(item, "unexpected decimal integer literal for a floating point value",
                            "add a trailing dot to make the literal a float")
    if item.type in ("INT", "HEX") and isinstance(et, IntegerType):  # i1 too: 0, 1 and -1 (true)
        v = int(text, 16) if item.type == "HEX" else int(text)
        if v < 0 and et.signedness == "u":
            raise _LiteralError(_digits(item),
                                "expected unsigned integer elements, but parsed negative value")
        held = _integer_held(v, et)
        if held is None:
            raise _LiteralError(item, f"integer constant out of range for type '{et}'")
        return held
    if item.type == "HEX":  # a float's bit pattern, as MLIR prints inf and nan
        bits = int(text, 16)
        if not isinstance(et, FloatType):
            return bits
        if bits < 0:
            raise _LiteralError(_digits(item), _HEX_FLOAT_MINUS)
        value = _float_from_bits(bits, et)
        if value is None:
            raise _LiteralError(item, _HEX_FLOAT_RANGE)
        return value
    return float(text) if item.type == "FLOAT" else int(text)


def _dense_array(body: Any, t: TensorType) -> np.ndarray:
    et = t.element_type
    dtype = et.numpy_dtype if et.numpy_dtype is not None else np.dtype(np.float32)
    shape = t.shape
    assert shape is not None
    literal: list[int] | None = None
    if body is None:
        arr = np.zeros((0,), dtype)
    elif isinstance(body, _HexBlob) and dtype.kind != "O":
        raw = bytes.fromhex(body[2:])
        stored = storage_dtype(et)  # bf16/f8 bytes are not numpy's: read as stored, then widen
        if len(raw) % stored.itemsize or len(raw) // stored.itemsize not in (1, t.num_elements):
            raise ValueError(f"elements hex data size is invalid for provided type: '{t}'")
        arr = np.frombuffer(raw, dtype=stored).astype(dtype) if stored != dtype else np.frombuffer(raw, dtype=dtype).copy()
        if arr.size == 1:  # a splat: a read-only broadcast view costs no memory
            return np.broadcast_to(arr[0], shape)
    else:
        literal = _literal_shape(body)  # before numpy sees it: its own complaint is no help
        with np.errstate(over="ignore"):  # a literal beyond the type's range is inf, as in MLIR
            arr = np.array(_to_python(body, et), dtype=dtype)
            if isinstance(et, FloatType) and et.name in ML_DTYPES:
                # a decimal literal rounds to the type's nearest value (bf16, f8), as MLIR's APFloat does
                arr = arr.astype(storage_dtype(et)).astype(dtype)
    if arr.ndim == 0:
        return np.broadcast_to(arr, shape)
    if literal is not None and literal != list(shape):
        # MLIR takes a bracketed literal only in the type's own shape
        raise ValueError(f"inferred shape of elements literal ({_shape_text(literal)}) does not match type "
                         f"({_shape_text(shape)})")
    if arr.size != t.num_elements:
        if arr.size == 0:
            raise ValueError(f"parsed zero elements, but type ('{t}') expected at least 1")
        raise ValueError(f"dense literal has {arr.size} elements, but type '{t}' needs {t.num_elements}")
    return arr.reshape(shape)


def _literal_shape(body: Any) -> list[int] | None:
    """The shape a bracketed dense literal spells (None for a splat or hex bytes);
    ValueError when its sub-lists disagree, in MLIR's words."""
    if not isinstance(body, list):
        return None
    shapes = [_literal_shape(b) for b in body]
    if any(sh != shapes[0] for sh in shapes):
        raise ValueError("tensor literal is invalid; ranks are not consistent between elements")
    return [len(body), *(shapes[0] or [])] if body else [0]


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _first_token(body: Any) -> Any:
    """The first token in a dense literal (for pointing at it), or None."""
    while isinstance(body, list):
        if not body:
            return None
        body = body[0]
    return body if hasattr(body, "line") else None


def _to_python(body: Any, et: ElementType) -> Any:
    if isinstance(body, list):
        return [_to_python(b, et) for b in body]
    return _scalar_value(body, et)


# --------------------------------------------------------------- the parser

_TERMINAL_NAMES = {
    "VALUE_ID": "an SSA value (%name)", "SYMBOL": "a symbol (@name)", "BLOCK_ID": "a block label (^bb)",
    "OP_NAME": "an operation name", "BARE_ID": "an identifier", "TENSOR_TYPE": "a tensor type",
    "SCALAR_TYPE": "a type", "DIALECT_TYPE": "a dialect type", "INT": "an integer", "FLOAT": "a float",
    "HEX": "a hex literal", "STRING": "a string", "ATTR_ALIAS": "an attribute alias (#name)",
    "$END": "end of input", "TYPE_ALIAS": "a type alias (!name)",
    "DIALECT_ATTR": "a dialect attribute (#dialect.name<...>)", "FUNCTION_TYPE": "a function type",
}


def _terminal_name(terminal: str) -> str:
    """How a diagnostic names an expected terminal: a literal by its spelling,
    read from the grammar (lark names `->` `__ANON_0`), a pattern by what it matches."""
    if terminal in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[terminal]
    try:
        pattern = _lark().get_terminal(terminal).pattern
    except KeyError:
        return terminal
    if isinstance(pattern, lark.lexer.PatternStr):
        return f"'{pattern.value}'"
    return terminal.lstrip("_").lower().replace("_", " ")


@lru_cache(maxsize=1)
def _lark() -> Lark:
    with open(_GRAMMAR_PATH) as f:
        grammar = f.read().replace("__BODY__", _body_regex().replace("/", "\\/"))
    try:  # lark-cython runs the same tables about twice as fast
        import lark_cython
        plugins: dict[str, Any] = {"_plugins": lark_cython.plugins}
    except ImportError:
        plugins = {}
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=False,
                maybe_placeholders=True, cache=_cache_path(grammar + str(bool(plugins))), **plugins)


def _cache_path(grammar: str) -> str | bool:
    # Lark can pickle the compiled LALR tables; it cuts tool start-up for lit.
    import hashlib
    import tempfile
    digest = hashlib.sha256((grammar + lark.__version__).encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"geir-grammar-{digest}.lark-cache")


def _run_parser(builder: _Builder, text: str) -> None:
    """Run Lark's LALR tables with ``builder``'s methods as the reduce callbacks.

    Lark's public ``transformer=`` option binds one transformer when the parser is
    built; building a parser per input costs more than parsing a small file, so the
    compiled tables are shared and only the callbacks (made by Lark's own
    ParseTreeBuilder, which drops punctuation and fills ``[x]`` placeholders) are
    per input.
    """
    lk = _lark()
    callbacks = lk._parse_tree_builder.create_callback(_Spread(builder))
    frontend = lk.parser.parser  # LALR_Parser (lark's or lark-cython's)
    core = type(frontend.parser)(frontend._parse_table, callbacks)
    tokens = lk.parser._make_lexer_thread(text)
    try:
        core.parse(tokens, "start")
    except _AtLastToken as e:
        # a reduce has no token of its own: the one read after it is where it closed
        raise builder.error(tokens.state.last_token, str(e)) from None


class _AtLastToken(Exception):
    """An error found where a rule closes, said at the token read after it: an
    attribute nesting past :data:`MAX_ATTRIBUTE_DEPTH`, an array of a type MLIR
    refuses."""


#: what :meth:`_Builder.nested` counts as a level
_NESTING = (ArrayAttr, DictionaryAttr, NameLoc, FusedLoc, CallSiteLoc, list)


class _Spread:
    """Presents ``builder``'s methods as Lark callbacks that take the children list
    (Lark's own ``v_args(inline=True)`` wraps every call; this costs nothing)."""

    def __init__(self, builder: _Builder) -> None:
        for name in dir(builder):
            if not name.startswith("_"):
                fn = getattr(builder, name)
                if callable(fn):
                    setattr(self, name, _spread(fn))


def _spread(fn: Callable[..., Any]) -> Callable[[list[Any]], Any]:
    return lambda children: fn(*children)


#: the start of a bracketed body: `#dialect.name<`, `!dialect.type<`, `memref<`, ...
_OPEN_BODY_RE = re.compile(r"([#!][A-Za-z_][A-Za-z0-9_$.]*|tensor|memref|vector|complex|tuple|affine_map|affine_set"
                           r"|strided|sparse)<")


#: a string up to its first escape MLIR does not know
_BAD_ESCAPE_RE = re.compile(r'"(?:\\(?:["\\nt]|[0-9a-fA-F]{2})|[^"\\\n])*\\(?!["\\nt]|[0-9a-fA-F]{2})')


def _translate_lark_error(e: lark.exceptions.LarkError, source: SourceFile) -> DiagnosticError:
    if isinstance(e, lark.exceptions.UnexpectedCharacters):
        ch = source.text[e.pos_in_stream] if e.pos_in_stream < len(source.text) else "end of input"
        msg = f"unexpected character '{ch}'"
        bad = _BAD_ESCAPE_RE.match(source.text, e.pos_in_stream) if ch == '"' else None
        if bad is not None:  # MLIR knows \" \\ \n \t and \XX only
            at = bad.end() - 1  # the backslash (a string holds no newline)
            return DiagnosticError(Diagnostic("error", f"unknown escape '{source.text[at:at + 2]}' in string literal",
                                              FileLineColLoc(source.name, e.line, e.column + at - e.pos_in_stream)))
        opened = _OPEN_BODY_RE.match(source.text, e.pos_in_stream)
        if opened is not None:  # a dialect/builtin body the token regex could not match
            if _body_closes(source.text, opened.end() - 1):
                msg = (f"the body of '{opened.group(1)}' nests brackets more than {_BODY_DEPTH + 1} deep, "
                       f"deeper than geir reads")
            else:
                msg = f"unterminated body of '{opened.group(1)}': no matching '>' (or a string in it is not closed)"
        return DiagnosticError(Diagnostic("error", msg, FileLineColLoc(source.name, e.line, e.column)))
    if isinstance(e, lark.exceptions.UnexpectedToken):
        tok = e.token
        expected = sorted({_terminal_name(t) for t in e.expected})
        got = "end of input" if tok.type == "$END" else f"'{tok.value}'"
        exp = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        line = getattr(tok, "line", None)
        col = getattr(tok, "column", None)
        if line is None or tok.type == "$END":  # end of input: point past the last character
            lines = source.text.split("\n")
            line, col = len(lines), len(lines[-1]) + 1
        return DiagnosticError(Diagnostic("error", f"unexpected {got}, expected {exp}",
                                          FileLineColLoc(source.name, line, col)))
    if isinstance(e, lark.exceptions.UnexpectedEOF):
        lines = source.text.split("\n")
        return DiagnosticError(Diagnostic("error", "unexpected end of input",
                                          FileLineColLoc(source.name, len(lines), len(lines[-1]) + 1)))
    return DiagnosticError(Diagnostic("error", str(e), FileLineColLoc(source.name, 1, 1)))


def parse_module(text: str, filename: str = "<stdin>", *, allow_unregistered: bool = False,
                 line_offset: int = 0) -> Module:
    """Parse ``text`` into a :class:`Module`; raise :class:`DiagnosticError` on bad input.

    ``line_offset`` shifts reported line numbers (for ``--split-input-file`` chunks).
    """
    source = SourceFile(filename, text)
    builder = _Builder(source, allow_unregistered)
    padded = "\n" * line_offset + text if line_offset else text
    # Pausing the collector matters: a 100k-op module is millions of small objects.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        _run_parser(builder, padded)
    except lark.exceptions.UnexpectedInput as e:
        raise _translate_lark_error(e, SourceFile(filename, padded)) from None
    except DiagnosticError as e:
        for d in e.diagnostics:  # errors from callbacks without a position
            if d.location is None:
                d.location = FileLineColLoc(filename, 1, 1)
        raise
    finally:
        if gc_was_enabled:
            gc.enable()
    for key, (_, token) in builder.frames[0].forward.items():
        raise builder.error(token, f"use of undeclared SSA value name '{key}'")
    if builder.deferred_locs:
        builder.resolve_deferred_locations()
    builder.check_resource_sizes()
    module = Module.from_top_level(builder.top_ops, builder.blobs, SourceFile(filename, padded))
    md = builder.metadata
    if md.dialect_order or md.external_resources:
        module.file_metadata = md
    module.type_aliases = builder.type_alias_bases
    module.attribute_aliases = builder.attribute_alias_bases
    return module


def parse_file(path: str, **kwargs: Any) -> Module:
    """Parse the file at ``path`` (``-`` reads standard input)."""
    import sys
    if path == "-":
        return parse_module(sys.stdin.read(), "<stdin>", **kwargs)
    with open(path, encoding="utf-8") as f:
        return parse_module(f.read(), path, **kwargs)


def split_input_file(text: str) -> list[tuple[str, int]]:
    """Split on ``// -----`` lines; each chunk with its starting line offset."""
    chunks: list[tuple[str, int]] = []
    start = 0
    current: list[str] = []
    for i, line in enumerate(text.split("\n")):
        if line.strip() == "// -----":
            chunks.append(("\n".join(current), start))
            current = []
            start = i + 1
        else:
            current.append(line)
    chunks.append(("\n".join(current), start))
    return chunks


def parse_type(text: str) -> Type:
    """Parse one type, e.g. ``tensor<1x3xf16>``."""
    m = parse_module(f"ge.__type__ {{t = {text}}}", "<type>", allow_unregistered=True)
    attr = next(iter(m.body.ops)).attributes["t"]
    assert isinstance(attr, TypeAttr)
    return attr.value


def parse_attribute(text: str) -> Attribute:
    """Parse one attribute, e.g. ``[1, 2]`` or ``dense<1.0> : tensor<2xf32>``."""
    m = parse_module(f"ge.__attr__ {{a = {text}}}", "<attribute>", allow_unregistered=True)
    return next(iter(m.body.ops)).attributes["a"]
