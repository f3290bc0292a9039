"""GE's dynamic batch / image size / dims "gears": one static graph per gear
in one module, and, at run time, the smallest gear that fits the inputs.

ATC's ``--dynamic_batch_size="1,2,4,8"`` (and ``--dynamic_image_size``,
``--dynamic_dims``) compiles the model once per listed size; the runtime then
runs the gear that fits. Here:

* :func:`specialize_gears` clones ``@main`` per gear and binds it with
  ``specialize-shapes``' machinery into a static ``ge.graph @main_gear<i>``.
  Each carries

  - ``ge.gear = [["batch", 4]]``: the size of each gear symbol;
  - ``ge.gear_inputs = [["x", 0, "batch"], ...]``: the input dims a gear pads;
  - ``ge.gear_outputs = [["y", 0, "batch", 3, 1], ...]``: the output dims
    trimmed back after the run, to ``3/1`` times the real size of ``batch``
    (found by comparing the gears' output shapes).

  A run compiles the gear it picks as it compiles any static model: the
  device's pipeline (``ge-default``), then ``lower-to-tasks``, so a gear's
  time is the time of that batch compiled for the device. ``lower-to-tasks``
  keeps the three attributes on each ``rt.model``, so a module of gears
  lowered by ``ge-opt`` runs its task lists as written.

* :func:`select_gear` reads the symbol sizes off the input arrays (one size per
  symbol), takes the gear with the fewest input elements among those at least
  as large in every symbol, and zero-pads the inputs to it; :func:`trim_outputs`
  cuts the outputs back. A batch gear gives exactly the unpadded results (rows
  are independent); an image-size gear pads the image, which changes what
  convolutions see at the border, so results equal the unpadded model's only
  when the input fits a gear exactly.

* :func:`largest_gears`: the gears GE sizes a gear module's memory by. GE's
  dynamic-batch memory assigner (``compiler/graph/build/memory/
  dynamic_batch_mem_assigner.cc`` in ``hicann/ge``) takes the gear whose memory
  blocks add up to the most and lays every other gear's blocks inside them: the
  model holds that gear's memory whichever gear runs.

Gear kinds and their symbols: ``batch`` — dim 0 of every input whose dim 0 is
dynamic (one symbol: a model whose inputs name it differently is refused);
``image`` — dims 2 and 3 (H, W) of every rank-4 input with dynamic H and W;
``dims`` — every symbolic dim, in order of first appearance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

import numpy as np

from geir.attributes import ArrayAttr, IntegerAttr, NameLoc, StringAttr
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.graph_io import attribute_dicts, input_names, output_names
from geir.module import Module
from geir.operation import Operation
from geir.types import TensorType

if TYPE_CHECKING:
    from geir.backends.io_bindings import GraphSignature

__all__ = ["GEAR_KINDS", "parse_gears", "gear_symbols", "specialize_gears", "has_gears", "gear_ops",
           "gears_are_graphs", "gear_label", "largest_gears", "keep_only", "select_gear", "bound_signature",
           "gear_binding_names", "trim_outputs", "Selection", "gear_signature", "gear_description"]

#: the ge-translate option of each gear kind (GE's ATC names, with dashes)
GEAR_KINDS = {"batch": "--dynamic-batch-size", "image": "--dynamic-image-size", "dims": "--dynamic-dims"}
_ANONYMOUS_BATCH = "batch"


def parse_gears(kind: str, text: str) -> list[tuple[int, ...]]:
    """The gears an option lists: ``"1,2,4"`` (batch), ``"224,224;448,448"``
    (image: H,W per gear), ``"1,16;4,32"`` (dims: one size per symbol per gear).

    Raises:
        DiagnosticError: not a list of positive integers of the kind's arity.
    """
    what = GEAR_KINDS[kind]
    groups = [g for g in text.replace(" ", "").split(";")] if kind != "batch" else text.replace(" ", "").split(",")
    gears: list[tuple[int, ...]] = []
    for g in groups:
        try:
            sizes = tuple(int(s) for s in g.split(",")) if kind != "batch" else (int(g),)
        except ValueError:
            sizes = ()
        if not sizes or any(s < 1 for s in sizes) or (kind == "image" and len(sizes) != 2):
            form = {"batch": "N,N,...", "image": "H,W;H,W;...", "dims": "D,D;D,D;..."}[kind]
            raise DiagnosticError(Diagnostic("error", f"{what} expects positive integers {form}, got '{text}'"))
        if sizes in gears:
            raise DiagnosticError(Diagnostic("error", f"{what} lists gear {','.join(map(str, sizes))} twice"))
        gears.append(sizes)
    arities = {len(g) for g in gears}
    if len(arities) != 1:
        raise DiagnosticError(Diagnostic("error", f"{what}: every gear needs the same number of sizes, got '{text}'"))
    return gears


def gear_symbols(graph: Operation, kind: str) -> tuple[list[str], list[tuple[str, int, str]]]:
    """The symbols a gear kind sizes, and the (input, dim, symbol) each pads.

    Raises:
        DiagnosticError: the graph has no dim the kind can size, or (batch) its
            inputs name their batch dims differently.
    """
    from geir.passes.specialize_shapes import graph_symbols
    block = graph.regions[0].blocks[0]
    names = input_names(graph)
    symbols = graph_symbols(graph)
    dims: list[tuple[str, int, str]] = []
    for name, arg, syms in zip(names, block.arguments, symbols):
        t = arg.type
        if not isinstance(t, TensorType) or t.shape is None:
            continue
        if kind == "batch":
            picked = [0] if t.shape and t.shape[0] is None else []
        elif kind == "image":
            picked = [2, 3] if len(t.shape) == 4 and t.shape[2] is None and t.shape[3] is None else []
        else:
            picked = [k for k, d in enumerate(t.shape) if d is None]
        for k in picked:
            symbol = syms[k] or (_ANONYMOUS_BATCH if kind == "batch" else
                                 ("H", "W")[k - 2] if kind == "image" else f"{name}.{k}")
            dims.append((name, k, symbol))
    what = GEAR_KINDS[kind]
    if not dims:
        need = {"batch": "has a dynamic dim 0", "image": "is rank 4 with dynamic H and W (dims 2, 3)",
                "dims": "has a dynamic dim"}[kind]
        raise DiagnosticError(Diagnostic("error", f"{what}: no input of @main {need}"))
    order: list[str] = []
    for _, _, s in dims:
        if s not in order:
            order.append(s)
    if kind == "batch" and len(order) > 1:
        raise DiagnosticError(Diagnostic("error", f"{what}: the inputs' dim 0 are different symbols "
                                                  f"({', '.join(order)}); bind all but one with --input-shape"))
    if kind == "image" and len(order) > 2:
        raise DiagnosticError(Diagnostic("error", f"{what}: the inputs' H and W are different symbols "
                                                  f"({', '.join(order)})"))
    return order, dims


# ================================================================ specialize


def specialize_gears(module: Module, kind: str, gears: Sequence[tuple[int, ...]]) -> None:
    """Replace ``@main`` of ``module`` by one static ``ge.graph @main_gear<i>`` per gear.

    Raises:
        DiagnosticError: a gear's arity does not match the kind's symbols, or a
            dim stays dynamic after binding (naming it).
    """
    from geir.backends.io_bindings import bind_by_flag, find_graph
    from geir.passes.range_shapes import dynamic_shape_diagnostics
    from geir.passes.specialize_shapes import fold_static_shapes, resolve_bindings, specialize_graph
    graph = find_graph(module)
    order, dims = gear_symbols(graph, kind)
    what = GEAR_KINDS[kind]
    if kind == "dims" and any(len(g) != len(order) for g in gears):
        raise DiagnosticError(Diagnostic("error", f"{what}: each gear gives {len(gears[0])} sizes, but @main has "
                                                  f"{len(order)} dynamic dims ({', '.join(order)})"))
    if kind == "image" and len(order) == 1:
        order = order * 2  # H and W are one symbol: a square gear
    block = graph.regions[0].blocks[0]
    names = input_names(graph)
    specialized: list[Operation] = []
    gear_sizes: list[dict[str, int]] = []
    for index, gear in enumerate(gears):
        sizes = dict(zip(order, gear))
        if kind == "image" and order[0] == order[1] and gear[0] != gear[1]:
            raise DiagnosticError(Diagnostic("error", f"{what}: H and W are one symbol ('{order[0]}'), so gear "
                                                      f"{gear[0]},{gear[1]} cannot be square"))
        shapes: dict[str, tuple[int, ...]] = {}
        for name, k, symbol in dims:
            t = block.arguments[names.index(name)].type
            shape = list(shapes.get(name, t.shape))  # type: ignore[union-attr]
            shape[k] = sizes[symbol]
            shapes[name] = tuple(shape)
        clone = graph.clone()  # attributes are shared: weights still point at the module's blobs
        clone.attributes["sym_name"] = StringAttr(f"main_gear{index}")
        module.body.insert_before(graph, clone)
        try:
            resolved = {i: s for i, s in resolve_bindings(clone, {n: tuple(s) for n, s in shapes.items()
                                                                  if None not in s}, what).items()}
            for name, shape in shapes.items():  # dims the gear leaves to --input-shape
                resolved.setdefault(names.index(name), shape)
            _require_static(clone, resolved, what)
            specialize_graph(clone, module, resolved)
            fold_static_shapes(clone, module)  # dims only shape arithmetic decides, as a run binds them
            problems = dynamic_shape_diagnostics(clone, bind_by_flag)
            if problems:
                raise DiagnosticError(problems)
        except BaseException:
            _unlink(clone)
            for done in specialized:
                _unlink(done)
            raise
        specialized.append(clone)
        gear_sizes.append(sizes)
    outputs = _output_dims(graph, order, gear_sizes, specialized)
    for gear_graph, sizes in zip(specialized, gear_sizes):
        gear_graph.attributes["ge.gear"] = ArrayAttr(ArrayAttr((StringAttr(s), IntegerAttr(v)))
                                                     for s, v in sizes.items())
        gear_graph.attributes["ge.gear_inputs"] = ArrayAttr(_triple(n, k, s) for n, k, s in dims)
        gear_graph.attributes["ge.gear_outputs"] = ArrayAttr(
            ArrayAttr((StringAttr(n), IntegerAttr(k), StringAttr(s), IntegerAttr(a), IntegerAttr(b)))
            for n, k, s, a, b in outputs)
    _unlink(graph)


def _unlink(op: Operation) -> None:
    from geir.rewriter import Rewriter
    Rewriter().erase_op(op)


def _triple(name: str, k: int, symbol: str) -> ArrayAttr:
    return ArrayAttr((StringAttr(name), IntegerAttr(k), StringAttr(symbol)))


def _require_static(graph: Operation, shapes: Mapping[int, Sequence[int | None]], what: str) -> None:
    from geir.passes.specialize_shapes import graph_symbols
    names = input_names(graph)
    symbols = graph_symbols(graph)
    for i, arg in enumerate(graph.regions[0].blocks[0].arguments):
        t = arg.type
        shape = shapes.get(i, t.shape if isinstance(t, TensorType) else None)
        if shape is None:
            continue
        for k, d in enumerate(shape):
            if d is None:
                symbol = symbols[i][k] if k < len(symbols[i]) else ""
                named, how = (f" ('{symbol}')", f"{symbol}=<size>") if symbol else ("", f"{names[i]}=<dims>")
                raise DiagnosticError(Diagnostic("error", f"{what}: input '{names[i]}' dim {k}{named} is dynamic "
                                                          f"but no gear sizes it; bind it with --input-shape {how}"))


def _output_dims(graph: Operation, order: list[str], gears: Sequence[dict[str, int]],
                 specialized: Sequence[Operation]) -> list[tuple[str, int, str, int, int]]:
    """The (output, dim, symbol, num, den) a run trims back: every output dim
    that is dynamic in ``graph`` and, in every gear, is ``num/den`` times the
    gear's size of one symbol (a batch-major ``batch*seq`` dim too: rows are
    independent). The symbol the importer named on the result is tried first."""
    from fractions import Fraction
    ftype = graph.attributes["function_type"].value  # type: ignore[attr-defined]
    dicts = attribute_dicts(graph.attributes.get("res_attrs"))
    shapes = [_io_shapes(g, "outputs") for g in specialized]
    out = []
    for i, (name, t) in enumerate(zip(output_names(graph, len(ftype.results)), ftype.results)):
        if not isinstance(t, TensorType) or t.shape is None:
            continue
        attr = dicts[i].get("ge.symbols") if i < len(dicts) else None
        named = [a.value for a in attr] if isinstance(attr, ArrayAttr) else []  # type: ignore[attr-defined]
        for k, d in enumerate(t.shape):
            if d is not None:
                continue
            first = named[k] if k < len(named) and named[k] in order else None
            for symbol in ([first] if first else []) + [s for s in order if s != first]:
                ratios = {Fraction(int(sh[name][k]), g[symbol]) for sh, g in zip(shapes, gears) if name in sh}
                if len(ratios) == 1:
                    r = ratios.pop()
                    out.append((name, k, symbol, r.numerator, r.denominator))
                    break
    return out


# ================================================================ run


def gear_ops(module: Module) -> list[Operation]:
    """The gears of ``module``: its ``ge.graph`` or ``rt.model`` ops that carry ``ge.gear``."""
    return [op for op in module.body.ops if op.name in ("ge.graph", "rt.model") and "ge.gear" in op.attributes]


def has_gears(module: Module) -> bool:
    """Whether ``module`` holds gears (from :func:`specialize_gears`, as graphs
    or lowered to task lists)."""
    return bool(gear_ops(module))


def gears_are_graphs(module: Module) -> bool:
    """Whether the gears of ``module`` are graphs a run compiles (not task lists)."""
    return any(op.name == "ge.graph" for op in gear_ops(module))


def keep_only(module: Module, name: str) -> None:
    """Erase every graph and task list of ``module`` but ``@name`` (a gear that
    runs, or is measured, alone)."""
    for op in list(module.body.ops):
        if op.name in ("ge.graph", "rt.model") and op.get_attr("sym_name") != name:
            _unlink(op)


def _io_shapes(op: Operation, which: str) -> dict[str, tuple[int, ...]]:
    """The static shapes of a gear's ``inputs`` or ``outputs`` by name, from a
    graph's signature or a task list's bindings."""
    if op.name == "rt.model":
        from geir.backends.rt_module import task_list_from_model
        task_list = task_list_from_model(op)
        return {b.name: tuple(b.ref.shape) for b in (task_list.inputs if which == "inputs" else task_list.outputs)}
    ftype = op.attributes["function_type"].value  # type: ignore[attr-defined]
    types = ftype.inputs if which == "inputs" else ftype.results
    names = input_names(op) if which == "inputs" else output_names(op, len(types))
    return {n: tuple(t.shape) for n, t in zip(names, types)
            if isinstance(t, TensorType) and t.shape is not None and None not in t.shape}


class Selection(NamedTuple):
    """The gear a run takes: its graph or task list (``model``), its sizes, the padded inputs,
    and the real sizes."""

    model: Operation
    gear: dict[str, int]
    inputs: dict[str, np.ndarray]
    sizes: dict[str, int]


def _triples(model: Operation, key: str) -> list[tuple[str, int, str]]:
    return [(str(a.value[0].value), int(a.value[1].value), str(a.value[2].value))  # type: ignore[attr-defined]
            for a in model.attributes.get(key, ArrayAttr(()))]  # type: ignore[union-attr]


def select_gear(module: Module, arrays: Mapping[str, np.ndarray], where: str = "inputs",
                pad: bool = True) -> Selection:
    """The smallest gear that fits ``arrays`` (see the module doc), with the inputs
    padded to it (``pad``; else as given: a run that needs no values).

    Raises:
        DiagnosticError: a symbol has two sizes in two inputs, an input's other
            dims differ from the gears', no gear is large enough (listing them),
            or the padded inputs need more than this machine's memory.
    """
    models = gear_ops(module)
    loc = NameLoc(where)
    sizes: dict[str, tuple[int, str]] = {}
    for name, k, symbol in _triples(models[0], "ge.gear_inputs"):
        if name not in arrays or np.ndim(arrays[name]) <= k:
            continue  # load_inputs names a missing input or a wrong rank
        size = int(np.shape(arrays[name])[k])
        seen = sizes.get(symbol)
        if seen is not None and seen[0] != size:
            raise DiagnosticError(Diagnostic("error", f"symbolic dim '{symbol}' is {seen[0]} in {seen[1]} but {size} "
                                                      f"in input '{name}' (dim {k})", loc))
        sizes.setdefault(symbol, (size, f"input '{name}' (dim {k})"))
    real = {s: v for s, (v, _) in sizes.items()}
    fitting = []
    for model in models:
        gear = {str(p.value[0].value): int(p.value[1].value) for p in model.attributes["ge.gear"]}  # type: ignore[attr-defined]
        if all(real.get(s, 0) <= v for s, v in gear.items()):
            fitting.append((_input_elements(model), model, gear))
    if not fitting:
        listed = "; ".join(_gear_text(_gear(m)) for m in models)
        raise DiagnosticError(Diagnostic("error", f"no gear fits the inputs ({_gear_text(real)}); the gears are: "
                                                  f"{listed}", loc))
    _, model, gear = min(fitting, key=lambda f: f[0])
    padded = dict(arrays)
    if not pad:
        return Selection(model, gear, padded, real)
    shapes = _io_shapes(model, "inputs")
    _check_padded_fit(model, shapes, padded, loc)
    for name, k, _ in _triples(model, "ge.gear_inputs"):
        if name in padded and name in shapes and np.ndim(padded[name]) == len(shapes[name]):
            a = np.asarray(padded[name])
            pad = [(0, 0)] * a.ndim
            pad[k] = (0, max(0, int(shapes[name][k]) - a.shape[k]))
            padded[name] = np.pad(a, pad) if pad[k][1] else a
    return Selection(model, gear, padded, real)


def _check_padded_fit(model: Operation, shapes: Mapping[str, tuple[int, ...]], arrays: Mapping[str, np.ndarray],
                      loc: NameLoc) -> None:
    """A diagnostic, not numpy's MemoryError, when the gear's inputs need more
    than this machine's memory (a gear of 10^11 rows): its time needs none."""
    from geir.backends.io_bindings import beyond_host_memory
    need = sum(int(np.prod(shapes[name], dtype=np.float64)) * np.asarray(a).dtype.itemsize
               for name, a in arrays.items() if name in shapes)
    host = beyond_host_memory(need)
    if host is not None:
        raise DiagnosticError(Diagnostic("error", f"gear {gear_label(model)} takes inputs of {need} B, more than this "
                                                  f"machine's {host} B: run it --timing-only", loc))


def _gear(model: Operation) -> dict[str, int]:
    return {str(p.value[0].value): int(p.value[1].value) for p in model.attributes["ge.gear"]}  # type: ignore[attr-defined]


def _gear_text(sizes: Mapping[str, int]) -> str:
    return ", ".join(f"{s}={v}" for s, v in sizes.items())


def gear_label(gear: Operation) -> str:
    """``"batch=4"``: the sizes of a gear (one of :func:`gear_ops`)."""
    return _gear_text(_gear(gear))


def largest_gears(module: Module) -> list[Operation]:
    """The gears of ``module`` with the most input elements: those whose memory
    plans may be the largest, which GE's dynamic-batch memory holds for every
    gear (see the module doc). Without compiling, the input size ranks them; two
    gears of equal inputs (``--dynamic-dims`` 1x512 and 8x64) are both returned."""
    gears = gear_ops(module)
    most = max((_input_elements(g) for g in gears), default=0)
    return [g for g in gears if _input_elements(g) == most]


def _input_elements(model: Operation) -> int:
    return sum(int(np.prod(shape)) for shape in _io_shapes(model, "inputs").values())


def trim_outputs(selection: Selection, outputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The outputs of a gear run cut back to the real sizes along the dims the gear padded."""
    out = dict(outputs)
    for item in selection.model.attributes.get("ge.gear_outputs", ArrayAttr(())):  # type: ignore[union-attr]
        name, k, symbol, num, den = (a.value for a in item)  # type: ignore[attr-defined]
        if name in out and symbol in selection.sizes and np.ndim(out[name]) > k:
            index = [slice(None)] * np.ndim(out[name])
            index[k] = slice(0, -(-selection.sizes[symbol] * num // den))
            out[name] = np.ascontiguousarray(np.asarray(out[name])[tuple(index)])
    return out


def gear_description(selection: Selection) -> str:
    """``"main_gear2 (batch=4; inputs batch=3, padded)"``: what the report says."""
    name = selection.model.get_attr("sym_name")
    padded = any(selection.sizes.get(s, v) != v for s, v in selection.gear.items())
    return (f"{name} ({_gear_text(selection.gear)}; inputs {_gear_text(selection.sizes)}"
            f"{', padded' if padded else ''})")


def bound_signature(module: Module, bindings: Mapping[str, tuple[int, ...]]) -> "GraphSignature":
    """:func:`gear_signature` with its gear dims sized by ``bindings`` (an
    input's whole shape, ``x=3x3x224x224``, or a gear symbol's size,
    ``batch=3``), as ``aclmdlSetDynamicBatchSize`` sizes a run of GE's gears:
    the signature random inputs are drawn for.

    Raises:
        DiagnosticError: a binding names neither an input nor a gear symbol, an
            input's binding has the wrong rank or changes a dim no gear sizes,
            or a gear dim is left unbound.
    """
    from geir.backends.io_bindings import Binding, GraphSignature
    sig = gear_signature(module)
    triples = _triples(gear_ops(module)[0], "ge.gear_inputs")
    known = gear_binding_names(module)
    unknown = sorted(set(bindings) - known)
    if unknown:
        raise DiagnosticError(Diagnostic("error", f"--input-shape: '{unknown[0]}' is neither an input nor a gear "
                                                  f"symbol ({', '.join(sorted(known))})"))
    inputs = []
    for b in sig.inputs:
        t = b.type
        if not isinstance(t, TensorType) or t.shape is None:
            inputs.append(b)
            continue
        shape = list(t.shape)
        if b.name in bindings:
            given = bindings[b.name]
            if len(given) != len(shape) or any(d is not None and d != g for d, g in zip(shape, given)):
                raise DiagnosticError(Diagnostic("error", f"--input-shape: input '{b.name}' is {t}, which "
                                                          f"{'x'.join(map(str, given)) or 'a scalar'} does not fit"))
            shape = list(given)
        for name, k, symbol in triples:
            if name == b.name and shape[k] is None:
                if symbol not in bindings or len(bindings[symbol]) != 1:
                    raise DiagnosticError(Diagnostic("error", f"input '{b.name}' dim {k} ('{symbol}') is the gear's: "
                                                              f"bind it with --input-shape {symbol}=<size>, or give "
                                                              f"--inputs"))
                shape[k] = bindings[symbol][0]
        inputs.append(Binding(b.name, t.with_shape(shape)))
    return GraphSignature(sig.graph, inputs, sig.outputs)


def gear_binding_names(module: Module) -> set[str]:
    """The names :func:`bound_signature` takes: the gear module's inputs and gear symbols."""
    return {b.name for b in gear_signature(module).inputs} | {s for _, _, s in
                                                              _triples(gear_ops(module)[0], "ge.gear_inputs")}


def gear_signature(module: Module) -> "GraphSignature":
    """The inputs/outputs of a gear module, with the gear dims as ``?``: what
    ``--inputs`` is checked against before a gear is picked."""
    from geir.backends.io_bindings import Binding, GraphSignature, graph_signature
    model = gear_ops(module)[0]
    if model.name == "rt.model":
        from geir.backends.emulator import task_list_signature
        from geir.backends.rt_module import task_list_from_model
        sig = task_list_signature(task_list_from_model(model))
    else:
        sig = graph_signature(module, str(model.get_attr("sym_name")))
    dynamic: dict[str, set[int]] = {}
    for name, k, _ in _triples(model, "ge.gear_inputs"):
        dynamic.setdefault("in" + name, set()).add(k)
    for item in model.attributes.get("ge.gear_outputs", ArrayAttr(())):  # type: ignore[union-attr]
        dynamic.setdefault("out" + item.value[0].value, set()).add(int(item.value[1].value))  # type: ignore[attr-defined]

    def loosen(kind: str, b: Binding) -> Binding:
        t = b.type
        dims = dynamic.get(kind + b.name)
        if not dims or not isinstance(t, TensorType) or t.shape is None:
            return b
        return Binding(b.name, t.with_shape([None if k in dims else d for k, d in enumerate(t.shape)]))

    return GraphSignature(sig.graph, [loosen("in", b) for b in sig.inputs], [loosen("out", b) for b in sig.outputs])
