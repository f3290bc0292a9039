"""``specialize-shapes``: bind the dynamic dims of a graph's inputs and make
every shape that follows from them static (GE's ``--input_shape``).

    ge-opt m.mlir --pass-pipeline='specialize-shapes{shapes="x=1x3x640x640"}'
    ge-opt m.mlir --pass-pipeline='specialize-shapes{shapes="batch=4,seq=16"}'

A binding is ``NAME=DxDx...``: NAME is a graph input (``ge.name``; the whole
shape) or a symbolic dim (an entry of an input's ``ge.symbols``, as the ONNX
importer keeps them; one size, for that dim in every input). Entries are
separated by ``,`` or ``;``.

Then, in block order (regions too), each op either folds or is re-inferred:

* an op whose value is known now and small (at most :data:`FOLD_LIMIT`
  elements: the shape computations, Shape -> Gather -> Cast -> Div -> Ceil ->
  Concat ...; canonicalize's :func:`~geir.passes.canonicalize.fold_op`)
  becomes a ``ge.const``;
* a ``ge.if`` whose condition is now a constant becomes its taken branch before
  either branch is inferred (the other may be invalid for the bound shapes: a
  branch for another sample rate), and a ``ge.loop`` that runs no iteration
  becomes its initial values;
* every other op gets the types ``ge``'s inference gives it now (it reads
  constant operands, so Reshape / ConstantOfShape / Range / Expand / TopK with
  a folded shape, size or k become static); a static dim that disagrees with
  the inference is an error at the op. Inside a region whose condition or trip
  count is known only at run time, such an error is not one: that region keeps
  its dynamic types (it may never run; ``ge-run`` specialises it when the host
  runs it, and reports the error then).

Ops left dead by folding are erased. What stays dynamic depends on tensor
*values* (NonZero, Unique, NMS, a Loop's trip count): ``lower-to-tasks`` names
the op and dim (:mod:`geir.passes.range_shapes`).

:func:`bindings_from_inputs` derives bindings from concrete input arrays (what
``ge-run --inputs`` does), checking that a symbol gets one size across inputs.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import attrs
import numpy as np

from geir.attributes import ArrayAttr, Attribute, DenseElementsAttr, DictionaryAttr, NameLoc, StringAttr, TypeAttr
from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.graph_io import attribute_dicts, input_names
from geir.module import Module
from geir.opdef import InferContext, InferError
from geir.operation import Block, OpResult, Operation, Region, Value
from geir.rewriter import InsertionPoint, Rewriter
from geir.types import FunctionType, TensorType, Type
from geir.passes.canonicalize import FOLD_LIMIT, fold_op, inline_constant_control
from geir.passes.pass_base import ModulePass, PassContext, option

__all__ = ["SpecializeShapes", "parse_shape_bindings", "resolve_bindings", "bindings_from_inputs",
           "specialize_graph", "fold_static_shapes", "graph_symbols", "infer_result_types", "SYMBOLS_ATTR",
           "FOLD_LIMIT"]

#: the argument/result attribute holding the ONNX names of the dynamic dims
SYMBOLS_ATTR = "ge.symbols"
_ENTRY_RE = re.compile(r"^\s*([^=\s]+)\s*=\s*(\d+(?:\s*[xX]\s*\d+)*)?\s*$")


# ================================================================ bindings


def parse_shape_bindings(items: Sequence[str] | str, what: str = "--input-shape") -> dict[str, tuple[int, ...]]:
    """``["x=1x3x8x8", "batch=4,seq=2"]`` -> ``{"x": (1, 3, 8, 8), "batch": (4,), ...}``.
    ``NAME=`` binds a scalar input (shape ``()``). A text without ``=`` may be
    spelled as ATC's ``--input_shape``: ``"x:1,3,8,8;mask:1,8"``.

    Raises:
        DiagnosticError: an entry is not ``NAME=DxD...`` (or ATC's ``NAME:D,D``)
            with non-negative integer dims, or binds a name twice.
    """
    texts = [items] if isinstance(items, str) else list(items)
    out: dict[str, tuple[int, ...]] = {}

    def bind(name: str, dims: tuple[int, ...]) -> None:
        if name in out:
            raise DiagnosticError(Diagnostic("error", f"{what} binds '{name}' twice"))
        out[name] = dims

    for text in texts:
        if "=" not in text and ":" in text:
            for name, dims in _atc_entries(text, what):
                bind(name, dims)
            continue
        for entry in re.split(r"[;,]", text):
            if not entry.strip() and len(texts) == 1 and not text.strip():
                continue
            m = _ENTRY_RE.match(entry)
            if m is None:
                raise DiagnosticError(_bad_entry(what, entry, text))
            name, dims = m.group(1), m.group(2)
            bind(name, tuple(int(d) for d in re.split(r"\s*[xX]\s*", dims)) if dims else ())
    return out


def _atc_entries(text: str, what: str) -> list[tuple[str, tuple[int, ...]]]:
    """ATC's ``NAME:D,D,D;NAME:`` entries (a name may hold ':', the dims follow the last)."""
    entries = []
    for entry in text.split(";"):
        if not entry.strip():
            continue
        name, _, dims = entry.strip().rpartition(":")
        parts = [part.strip() for part in dims.split(",")] if dims.strip() else []
        if not name or not all(re.fullmatch(r"\d+", part) for part in parts):
            diagnostic = Diagnostic("error", f"{what} expects NAME:D,D,D (ATC's spelling) or NAME=DxDxD, "
                                             f"got '{entry.strip()}'")
            if any(part.startswith("-") or "~" in part for part in parts):
                diagnostic.attach_note("ATC's -1 and ranges (1~8) leave a dim dynamic; here a dim is bound or left "
                                       "out: bind a symbolic dim by its name (batch=4), or use --dynamic-batch-size")
            raise DiagnosticError(diagnostic)
        entries.append((name, tuple(int(part) for part in parts)))
    return entries


def _bad_entry(what: str, entry: str, text: str) -> Diagnostic:
    """The error for an entry that is not ``NAME=DxD``; a text that separates its
    dims with commas is told which separator each spelling takes."""
    m = re.fullmatch(r"\s*([^=\s]+)\s*=\s*(\d+(?:\s*,\s*\d+)+)\s*", text)
    if m is not None:
        dims = re.split(r"\s*,\s*", m.group(2))
        d = Diagnostic("error", f"{what} expects NAME=DxDxD, got '{text.strip()}'")
        d.attach_note(f"dims are separated by 'x' ({m.group(1)}={'x'.join(dims)}), or by ',' in ATC's spelling "
                      f"({m.group(1)}:{','.join(dims)})")
        return d
    return Diagnostic("error", f"{what} expects NAME=DxDxD, got '{entry.strip()}'")


def graph_symbols(graph: Operation) -> list[list[str]]:
    """Per graph input, the ONNX name of each dim ("" for none)."""
    block = graph.regions[0].blocks[0]
    dicts = attribute_dicts(graph.attributes.get("arg_attrs"))
    out = []
    for i, arg in enumerate(block.arguments):
        rank = arg.type.rank if isinstance(arg.type, TensorType) else None
        attr = dicts[i].get(SYMBOLS_ATTR) if i < len(dicts) else None
        names = [a.value for a in attr] if isinstance(attr, ArrayAttr) else []  # type: ignore[attr-defined]
        out.append([names[k] if k < len(names) and isinstance(names[k], str) else "" for k in range(rank or 0)])
    return out


def bindable_names(graph: Operation) -> set[str]:
    """The names a binding of ``graph`` may use: its inputs and its symbolic dims."""
    return set(input_names(graph)) | {s for syms in graph_symbols(graph) for s in syms if s}


def resolve_bindings(graph: Operation, bindings: Mapping[str, tuple[int, ...]], where: str,
                     what: str = "--input-shape") -> dict[int, tuple[int | None, ...]]:
    """Per input index, the shape the bindings give it (unbound dims stay ``None``).

    Raises:
        DiagnosticError: a name is neither an input nor a symbol, a shape does not
            fit the input's rank or static dims, or one symbol gets two sizes (the
            message names both bindings).
    """
    block = graph.regions[0].blocks[0]
    names = input_names(graph)
    symbols = graph_symbols(graph)
    known_symbols = sorted({s for syms in symbols for s in syms if s})
    loc = NameLoc(where)
    errors: list[Diagnostic] = []
    sizes: dict[str, tuple[int, str]] = {}  # symbol -> (size, who bound it)

    def bind_symbol(symbol: str, size: int, who: str) -> None:
        seen = sizes.get(symbol)
        if seen is None:
            sizes[symbol] = (size, who)
        elif seen[0] != size:
            errors.append(Diagnostic("error", f"symbolic dim '{symbol}' is bound to {seen[0]} by {seen[1]} but to "
                                              f"{size} by {who}", loc))

    shapes: dict[int, list[int | None]] = {}
    for key, dims in bindings.items():
        if key in names:
            i = names.index(key)
            t = block.arguments[i].type
            if not isinstance(t, TensorType) or t.shape is None:
                errors.append(Diagnostic("error", f"input '{key}' has type {t}, which {what} cannot bind", loc))
                continue
            if len(dims) != len(t.shape):
                errors.append(Diagnostic("error", f"input '{key}' has rank {len(t.shape)}, but its bound shape "
                                                  f"{_dims_text(dims)} has rank {len(dims)}", loc))
                continue
            for k, (d, size) in enumerate(zip(t.shape, dims)):
                if d is not None and d != size:
                    errors.append(Diagnostic("error", f"input '{key}' dim {k} is {d}, but the bound shape says "
                                                      f"{size}", loc))
                elif d is None and symbols[i][k]:
                    bind_symbol(symbols[i][k], size, f"input '{key}' (dim {k})")
            shapes[i] = list(dims)
        elif key in known_symbols:
            if len(dims) != 1:
                errors.append(Diagnostic("error", f"symbolic dim '{key}' is one size, but {what} gives "
                                                  f"{_dims_text(dims)}", loc))
                continue
            bind_symbol(key, dims[0], f"'{key}={dims[0]}'")
        else:
            known = f"inputs: {', '.join(names) or 'none'}" + (f"; symbolic dims: {', '.join(known_symbols)}"
                                                              if known_symbols else "")
            errors.append(Diagnostic("error", f"'{key}' is neither an input nor a symbolic dim of @"
                                              f"{graph.get_attr('sym_name', 'main')} ({known})", loc))
    if errors:
        raise DiagnosticError(errors)
    for i, arg in enumerate(block.arguments):
        t = arg.type
        if not isinstance(t, TensorType) or t.shape is None:
            continue
        shape = shapes.get(i, list(t.shape))
        for k, symbol in enumerate(symbols[i]):
            if shape[k] is None and symbol in sizes:
                shape[k] = sizes[symbol][0]
        if i in shapes or tuple(shape) != tuple(t.shape):
            shapes[i] = shape
    return {i: tuple(s) for i, s in shapes.items()}


def bindings_from_inputs(graph: Operation, arrays: Mapping[str, np.ndarray],
                         where: str = "inputs") -> dict[str, tuple[int, ...]]:
    """The bindings concrete input arrays give (input name -> its array's shape),
    for the inputs with a dynamic dim.

    Raises:
        DiagnosticError: one symbolic dim has two sizes in two inputs (naming
            both inputs and dims).
    """
    block = graph.regions[0].blocks[0]
    out: dict[str, tuple[int, ...]] = {}
    for name, arg in zip(input_names(graph), block.arguments):
        t = arg.type
        if name in arrays and isinstance(t, TensorType) and not t.is_static:
            out[name] = tuple(int(d) for d in np.shape(arrays[name]))
    resolve_bindings(graph, out, where)  # the symbol check, naming both inputs
    return out


def _dims_text(dims: Sequence[int]) -> str:
    return "x".join(map(str, dims)) if dims else "(scalar)"


# ================================================================ specialising


def specialize_graph(graph: Operation, module: Module, shapes: Mapping[int, Sequence[int | None]]) -> None:
    """Give input ``i`` of ``graph`` the shape ``shapes[i]``, then fold and
    re-infer every op (see the module doc); the graph's type and ``ge.symbols``
    attributes follow.

    Raises:
        DiagnosticError: at an op whose static type contradicts the new shapes.
    """
    block = graph.regions[0].blocks[0]
    state = _Specializer()
    if any(op.regions for op in block.ops):  # a region that never runs goes back to these types
        state.original = {v: v.type for op in graph.walk() if op is not graph for v in op.results}
        state.original.update((a, a.type) for a in block.arguments)
    for i, shape in shapes.items():
        arg = block.arguments[i]
        assert isinstance(arg.type, TensorType)
        arg.type = TensorType(tuple(shape), arg.type.element_type)
    errors: list[Diagnostic] = []
    state.block(block, errors)
    if errors:
        raise DiagnosticError(errors)
    _erase_dead(state.folded, state.rewriter)
    ret = block.last_op
    assert ret is not None
    ftype = FunctionType([a.type for a in block.arguments], [v.type for v in ret.operands])
    graph.attributes["function_type"] = TypeAttr(ftype)
    for key, types in (("arg_attrs", ftype.inputs), ("res_attrs", ftype.results)):
        if key in graph.attributes:
            graph.attributes[key] = ArrayAttr(_drop_bound_symbols(d, t) for d, t in
                                              zip(attribute_dicts(graph.attributes[key]), types))


def fold_static_shapes(graph: Operation, module: Module) -> bool:
    """Fold the shape arithmetic of a graph whose inputs are all static and
    re-infer its types, when some dim inside it is still unknown: exporters
    compute the operands of Reshape, Slice, Expand and Pad from ``Shape`` at
    run time (Shape -> Gather -> Add -> Div -> Mul ...), and ONNX's data
    propagation at import follows only part of that arithmetic, leaving ``?``
    dims that look data-dependent though the input shapes decide them.
    True when it folded.

    Raises:
        DiagnosticError: at an op whose static type contradicts what folding finds.
    """
    block = graph.regions[0].blocks[0]
    if not all(isinstance(a.type, TensorType) and a.type.is_static for a in block.arguments):
        return False
    if all(not isinstance(r.type, TensorType) or r.type.is_static for op in graph.walk() for r in op.results):
        return False
    specialize_graph(graph, module, {})
    return True


def _drop_bound_symbols(entries: dict[str, Attribute], t: Type) -> DictionaryAttr:
    """An argument/result attribute dict whose ``ge.symbols`` names only dims that are still dynamic."""
    entries = dict(entries)
    attr = entries.get(SYMBOLS_ATTR)
    if isinstance(attr, ArrayAttr) and isinstance(t, TensorType) and t.shape is not None:
        names = [a.value if isinstance(a, StringAttr) else "" for a in attr]
        kept = [n if k < len(t.shape) and t.shape[k] is None else "" for k, n in enumerate(names)]
        if any(kept):
            entries[SYMBOLS_ATTR] = ArrayAttr(StringAttr(n) for n in kept)
        else:
            del entries[SYMBOLS_ATTR]
    return DictionaryAttr.from_dict(entries)


@attrs.define
class _Specializer:
    """Folds and re-infers the ops of a graph in block order, regions too."""

    rewriter: Rewriter = attrs.field(factory=Rewriter)
    #: ops whose readers folding replaced: erased at the end if dead
    folded: list[Operation] = attrs.field(factory=list)
    #: each value's type before binding (kept for the regions that may not run)
    original: dict[Value, Type] = attrs.field(factory=dict)

    def block(self, block: Block, errors: list[Diagnostic]) -> None:
        op = block.first_op
        while op is not None:
            following = op.next
            if op.name in CONSTANT_OPS or op.name in ("ge.none", "ge.return", "ge.yield"):
                op = following
                continue
            if op.regions:
                reads = [v.op for inner in op.walk() for v in inner.operands if isinstance(v, OpResult)]
                moved = inline_constant_control(op, self.rewriter, keep_signature=False)
                if moved is not None:  # the taken branch's ops are specialised next, in place
                    self.folded.extend(reads)  # what only the other branch read may be dead now
                    op = moved[0] if moved else following
                    continue
                self.regions(op)
                if op.name in ("ge.if", "ge.case"):
                    _refine_if(op, errors)
                op = following
                continue
            value = fold_op(op)
            if value is not None:
                self.rewriter.set_insertion_point(InsertionPoint.before(op))
                t = TensorType(value.shape, op.results[0].type.element_type)  # type: ignore[union-attr]
                const = self.rewriter.create("ge.const", (), [t], {"value": DenseElementsAttr(t, value)},
                                             location=op.location)
                const.results[0].name_hint = op.results[0].name_hint
                self.folded.extend(v.op for v in op.operands if isinstance(v, OpResult))
                self.rewriter.replace_op(op, [const.results[0]])
            else:
                _reinfer(op, errors)
            op = following

    def regions(self, op: Operation) -> None:
        """Specialise the regions of a control op whose branch or trip count is
        decided at run time. A region that cannot take the bound shapes may be
        one that never runs: it keeps its dynamic types then (the host
        specialises the region it runs, and reports the error if that one is it)."""
        kept = op.clone()  # detached: the regions as they were
        for i, region in enumerate(op.regions):
            errors: list[Diagnostic] = []
            for nested in region.blocks:
                self.block(nested, errors)
            if errors:
                _drop_region_uses(region)
                region.parent = None
                op.regions[i] = kept.regions[i]
                op.regions[i].parent = op
                kept.regions[i] = region  # (dropped below with the copy's other reads)
                self.widen_reads(op.regions[i])
        for region in kept.regions:
            _drop_region_uses(region)
        for i, v in enumerate(kept.operands):
            v.uses = [u for u in v.uses if not (u.owner is kept and u.index == i)]

    def widen_reads(self, region: Region) -> None:
        """Make a kept region read the values from outside it at their types
        before binding, through a ``ge.identity`` to that type at its entry (as
        MLIR's ``tensor.cast``): the region stays valid IR as it was."""
        inside = {v for inner in region.walk() for v in inner.results}
        inside.update(a for b in region.blocks for a in b.arguments)
        entry = region.blocks[0]
        casts: dict[Value, Value] = {}
        for inner in list(region.walk()):
            for k, v in enumerate(inner.operands):
                old = self.original.get(v)
                if v in inside or old is None or old is v.type or _is_constant(v):
                    continue
                if v not in casts:
                    cast = Operation("ge.identity", [v], [old], location=inner.location)
                    if entry.first_op is None:
                        entry.append(cast)
                    else:
                        entry.insert_before(entry.first_op, cast)
                    cast.results[0].name_hint = v.name_hint
                    casts[v] = cast.results[0]
                inner.set_operand(k, casts[v])


def _is_constant(v: Value) -> bool:
    return isinstance(v, OpResult) and v.op.name in CONSTANT_OPS


def _drop_region_uses(region: Region) -> None:
    """Forget the reads of every op in ``region`` (it leaves the IR)."""
    for nested in region.blocks:
        for inner in nested.ops:
            inner.drop_operand_uses()


def _merge(declared: Type, inferred: Type | None, op: Operation, k: int, errors: list[Diagnostic]) -> Type:
    """``declared`` with the dims ``inferred`` knows; a disagreement is an error."""
    if not isinstance(declared, TensorType) or not isinstance(inferred, TensorType) or inferred.shape is None:
        return declared
    if declared.shape is None:
        return TensorType(inferred.shape, declared.element_type)
    if len(declared.shape) != len(inferred.shape):
        errors.append(Diagnostic("error", f"'{op.name}' op result #{k} is declared {declared}, but with the bound "
                                          f"shapes it is {inferred}", op_position(op)))
        return declared
    dims = []
    for d, e in zip(declared.shape, inferred.shape):
        if d is not None and e is not None and d != e:
            errors.append(Diagnostic("error", f"'{op.name}' op result #{k} is declared {declared}, but with the "
                                              f"bound shapes it is {inferred}", op_position(op)))
            return declared
        dims.append(d if d is not None else e)
    return TensorType(dims, declared.element_type)


def infer_result_types(op: Operation) -> list[Type] | None:
    """The result types ``op``'s declaration infers from its operands as they are
    now; None when it declares no inference.

    Raises:
        InferError: the operands do not fit (an inference's own arithmetic
            failing on them says so too).
    """
    od = op.definition
    if od is None or od.infer is None:
        return None
    try:
        return list(od.infer(InferContext.for_op(op)))
    except (ValueError, TypeError, IndexError, ZeroDivisionError) as e:
        raise InferError(str(e)) from None


def _reinfer(op: Operation, errors: list[Diagnostic]) -> None:
    try:
        inferred = infer_result_types(op)
    except InferError as e:
        errors.append(Diagnostic("error", f"'{op.name}' op cannot be inferred with the bound shapes: {e}",
                                 op_position(op)))
        return
    if inferred is None:
        return
    for k, r in enumerate(op.results):
        r.type = _merge(r.type, inferred[k] if k < len(inferred) else None, op, k, errors)


def _refine_if(op: Operation, errors: list[Diagnostic]) -> None:
    """A ``ge.if`` / ``ge.case`` result is static when every branch yields the same static type."""
    yields = [r.blocks[0].last_op for r in op.regions]
    for k, r in enumerate(op.results):
        types = {y.operands[k].type for y in yields if y is not None and k < len(y.operands)}
        if len(types) == 1:
            r.type = _merge(r.type, types.pop(), op, k, errors)


def _erase_dead(candidates: list[Operation], rewriter: Rewriter) -> None:
    """Erase the pure ops folding left without readers (and theirs, transitively)."""
    work = list(candidates)
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        od = op.definition
        if op.name not in CONSTANT_OPS and (od is None or not od.has_trait("pure")):
            continue
        work.extend(v.op for v in op.operands if isinstance(v, OpResult))
        rewriter.erase_op(op)


# ================================================================ the pass


@attrs.define
class SpecializeShapes(ModulePass):
    name = "specialize-shapes"
    summary = "Bind dynamic input dims (by input or symbol name) and fold the shape computations they feed"

    shapes: str = option("", "bindings NAME=DxD... separated by ',' or ';' (NAME: an input or a symbolic dim)")
    graph: str = option("main", "the ge.graph to specialise (without @main: the module's only ge.graph, or "
                                "with no shapes every ge.graph)")

    def run(self, module: Module, ctx: PassContext) -> None:
        what = "specialize-shapes: option 'shapes'"
        bindings = parse_shape_bindings(self.shapes.strip().strip("\"'"), what)
        target = module.lookup_symbol(self.graph)
        if target is None and self.graph == "main":
            graphs = [op for op in module.body.ops if op.name == "ge.graph"]
            if not bindings:
                for graph in graphs:  # nothing to bind: fold what each graph's own shapes decide
                    specialize_graph(graph, module, {})
                return
            target = graphs[0] if len(graphs) == 1 else None
        if target is None or target.name != "ge.graph":
            raise DiagnosticError(Diagnostic("error", f"specialize-shapes: the module has no ge.graph @{self.graph}"))
        try:
            shapes = resolve_bindings(target, bindings, "specialize-shapes", what)
        except DiagnosticError as e:
            # point at the graph: the bindings are about its signature
            raise DiagnosticError([Diagnostic(d.severity, d.message, op_position(target))
                                   for d in e.diagnostics]) from None
        specialize_graph(target, module, shapes)
