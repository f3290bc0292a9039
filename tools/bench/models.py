"""The models a sweep runs, named on the command line or in a config file:

* a generated workload by name (``inception``, ``attention``, ... — see
  :data:`geir.tools.bench.workloads.WORKLOADS`);
* ``light`` for every ``light_*`` model onnx ships, or one of them by name
  (``light_resnet50``);
* a path ending in ``.onnx`` (imported without its weights' bytes, as a sweep
  emulates timing only, and canonicalised) or ``.mlir`` (a ``ge``
  module whose ``main`` graph, or only graph, is run; a module of gears,
  ``ge-translate --dynamic-batch-size`` ..., is one model per gear, named
  ``gears.mlir[batch=4]``).

Each resolves to ``(name, ge IR text)``; the driver resolves every model once
(so a bad name, an unparsable file or an input dim left dynamic fails before any
run), binds the dynamic dims the sweep's input shapes name, and ships the text
with each task, which lets a Dask worker on another machine run it without the
file.
"""

from __future__ import annotations

import difflib
import glob
import os
from typing import TYPE_CHECKING, Callable, Mapping

import attrs

from geir.attributes import NameLoc
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.tools.bench.workloads import WORKLOADS

if TYPE_CHECKING:  # imported on call: a sweep of generated models needs no onnx
    import onnx

    from geir.module import Module

__all__ = ["Model", "light_model_paths", "light_models", "import_light_model", "symbolic_batch", "resolve_models",
           "known_model_names", "bind_input_shapes", "said_at_the_model"]


@attrs.frozen
class Model:
    """One model of a sweep: its name in the results and its ``ge`` IR text.
    ``located``: the text is the file ``name`` itself, so a diagnostic's line
    and column point into it (not so for an imported ONNX model, a gear, a
    generated workload, or a file whose dims a binding folded)."""

    name: str
    text: str
    located: bool = False


def said_at_the_model(error: DiagnosticError, name: str) -> DiagnosticError:
    """``error`` said at model ``name``, for a model whose text is not that file
    (lines and columns would point into a file that does not hold them; a sweep
    has many models, so each error names its own); a note that points into the
    text is said there too."""
    def in_text(note: Diagnostic) -> Diagnostic:
        pos = note.file_position
        return attrs.evolve(note, location=NameLoc(name)) if pos is not None and pos.file == name else note
    return DiagnosticError([attrs.evolve(d, location=NameLoc(name), notes=[in_text(n) for n in d.notes])
                            for d in error.diagnostics], error.source_files)


def light_model_paths() -> dict[str, str]:
    """``light_<net>`` -> path of the models onnx ships in its backend test data."""
    import onnx
    pattern = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", "light_*.onnx")
    return {os.path.basename(p)[:-5]: p for p in sorted(glob.glob(pattern))}


def symbolic_batch(path: str) -> onnx.ModelProto:
    """The ONNX model at ``path`` with dim 0 of its inputs and outputs named
    ``N`` and its inferred shapes dropped: a real export's symbolic batch."""
    import onnx
    model = onnx.load(path)
    initializers = {t.name for t in model.graph.initializer}
    for vi in [*model.graph.input, *model.graph.output]:
        if vi.name not in initializers:
            vi.type.tensor_type.shape.dim[0].dim_param = "N"
    del model.graph.value_info[:]
    return model


def import_light_model(path: str, elide_weights: bool = False) -> Module:
    """An ONNX model imported and canonicalised: what GE folds at compile time
    (the ``light_*`` models' ConstantOfShape weights) is folded; the benches
    prepare it further (``ge-optimize``). ``elide_weights``: its weights are
    imported without their bytes, for a timing-only run."""
    from geir.onnx_importer import import_onnx
    from geir.passes.canonicalize import Canonicalize
    from geir.passes.pass_manager import PassManager
    module = import_onnx(path, elide_weights=elide_weights)
    PassManager([Canonicalize()]).run(module)
    return module


def _onnx_model(path: str) -> tuple[str, Module]:
    """(text, module) of an ONNX model as a sweep takes it."""
    from geir.printer import module_to_string
    # A sweep emulates timing only: the weights' bytes would only be shipped to
    # every run and parsed again (hundreds of MB for a real model).
    try:
        module = import_light_model(path, elide_weights=True)
    except DiagnosticError as e:
        # an ONNX node's name says where in the graph, not which of a sweep's files
        for d in e.diagnostics:
            if d.file_position is None and not (isinstance(d.location, NameLoc) and d.location.name == path):
                d.attach_note(f"in model '{path}'")
        raise
    return module_to_string(module), module


def light_models() -> dict[str, str]:
    """The ``light_*`` models, imported without their weights' bytes and
    canonicalised, as ge IR text keyed by their name without the ``light_``
    prefix (``bench/streams.py``'s names)."""
    return {name[6:]: _onnx_model(path)[0] for name, path in light_model_paths().items()}


def _mlir_model(path: str) -> tuple[str, Module]:
    from geir.parser import parse_module
    from geir.verifier import verify
    from geir.source_text import read_source
    text = read_source(path)[1]
    module = parse_module(text, path)  # fail here, once, rather than in every task
    verify(module)
    graphs = [op for op in module.body.ops if op.name == "ge.graph"]
    if not graphs:
        raise DiagnosticError(Diagnostic("error", f"model '{path}' holds no ge.graph to schedule"))
    return text, module


def known_model_names() -> list[str]:
    """The names ``--models`` accepts besides paths."""
    return [*WORKLOADS, "light", *light_model_paths()]


#: the file names ``--models`` takes as models
MODEL_SUFFIXES = (".onnx", ".mlir")


def _file_loader(path: str) -> Callable[[], tuple[str, Module | None]]:
    loader = _onnx_model if path.endswith(".onnx") else _mlir_model
    return lambda: loader(path)


def _resolve_one(spec: str, base_dir: str) -> list[tuple[str, Callable[[], tuple[str, Module | None]]]]:
    """(name, loader) of each model ``spec`` names; a loader gives the model's
    text and, when it had to build or parse it anyway, its module."""
    if spec in WORKLOADS:
        return [(spec, lambda: (WORKLOADS[spec](), None))]
    light = light_model_paths()
    if spec == "light":
        return [(name, (lambda p=path: _onnx_model(p))) for name, path in light.items()]
    if spec in light:
        return [(spec, lambda: _onnx_model(light[spec]))]
    path = spec if os.path.isabs(spec) else os.path.normpath(os.path.join(base_dir, spec))
    if spec.endswith(MODEL_SUFFIXES):
        if not os.path.isfile(path):
            raise DiagnosticError(Diagnostic("error", f"model file '{spec}' does not exist"))
        return [(spec, _file_loader(path))]
    if os.path.isdir(path):
        # a folder of exports: its models in name order, named as the user would write them
        files = sorted(f for f in os.listdir(path) if f.endswith(MODEL_SUFFIXES)
                       and os.path.isfile(os.path.join(path, f)))
        if not files:
            raise DiagnosticError(Diagnostic("error", f"model folder '{spec}' holds no .onnx or .mlir file"))
        return [(os.path.join(spec, f), _file_loader(os.path.join(path, f))) for f in files]
    d = Diagnostic("error", f"unknown model '{spec}'")
    d.attach_note(f"known models: {', '.join([*WORKLOADS, 'light', 'light_<net>'])}, a path ending in .onnx "
                  "or .mlir, or a folder of them")
    close = difflib.get_close_matches(spec, known_model_names(), n=1)
    if close:
        d.attach_note(f"did you mean '{close[0]}'?")
    raise DiagnosticError(d)


def bind_input_shapes(text: str, name: str, bindings: Mapping[str, tuple[int, ...]], located: bool = True,
                      module: Module | None = None) -> str:
    """``text`` with its graph's dynamic dims bound by those of ``bindings`` it
    has (an input's name or a symbol: ``batch``; the others are for other models)
    and the shape computations they decide folded. ``located``: ``text`` is the
    file ``name`` (an ``.mlir`` model), so a diagnostic points into it; else (an
    imported ONNX model) it names the model alone. ``module``: ``text`` already
    parsed (not parsed again; changed when a binding applies).

    Raises:
        DiagnosticError: a binding that does not fit, or an input dim left
            dynamic (the message says which ``--input-shape`` binds it).
    """
    try:
        return _bind_input_shapes(text, name, bindings, module)
    except DiagnosticError as e:
        if located:
            raise
        raise said_at_the_model(e, name) from None


def _bind_input_shapes(text: str, name: str, bindings: Mapping[str, tuple[int, ...]],
                       module: Module | None) -> str:
    from geir.backends.io_bindings import bind_by_flag, main_or_first_graph
    from geir.diagnostics import op_position
    from geir.parser import parse_module
    from geir.passes.range_shapes import unbound_input_diagnostics
    from geir.passes.specialize_shapes import bindable_names, fold_static_shapes, resolve_bindings, specialize_graph
    from geir.printer import module_to_string
    if module is None:
        module = parse_module(text, name)
    graph = main_or_first_graph(module)
    if graph is None:
        return text
    mine = {k: v for k, v in bindings.items() if k in bindable_names(graph)}
    if mine:
        try:
            shapes = resolve_bindings(graph, mine, "--input-shape")
        except DiagnosticError as e:  # said at the model's graph: a sweep has many models
            raise DiagnosticError([Diagnostic("error", f"--input-shape: {d.message}", op_position(graph))
                                   for d in e.diagnostics]) from None
        specialize_graph(graph, module, shapes)
    problems = unbound_input_diagnostics(graph, bind_by_flag)
    if problems:
        raise DiagnosticError(problems)
    if not mine:
        return text
    fold_static_shapes(graph, module)
    return module_to_string(module)


def resolve_models(specs: list[str], base_dir: str = ".",
                   on_error: Callable[[int, DiagnosticError], DiagnosticError] | None = None,
                   input_shapes: Mapping[str, tuple[int, ...]] | None = None) -> list[Model]:
    """The models ``specs`` name, in order, each once, their dynamic dims bound
    by ``input_shapes`` (:func:`bind_input_shapes`). Relative paths are taken
    from ``base_dir`` (a config file's folder). ``on_error(index, error)`` may
    relocate an error to where spec ``index`` was written."""
    models: dict[str, Model] = {}
    for i, spec in enumerate(specs):
        try:
            for name, load in _resolve_one(spec, base_dir):
                if name not in models:
                    text, module = load()
                    for model_name, model_text, model_module in _one_per_gear(name, text, module):
                        located = name.endswith(".mlir") and model_text is text  # a gear's text is not the file
                        bound = bind_input_shapes(model_text, model_name, input_shapes or {}, located=located,
                                                  module=model_module)
                        models[model_name] = Model(model_name, bound, located and bound is model_text)
        except DiagnosticError as e:
            raise (on_error(i, e) if on_error else e) from None
    return list(models.values())


def _one_per_gear(name: str, text: str, module: Module | None) -> list[tuple[str, str, Module | None]]:
    """``(name, text, module)`` of a model, or of each gear of a module of
    gears (``name[batch=4]``: the module with that gear's graph alone)."""
    from geir.backends.shape_gears import gear_label, gear_ops, keep_only
    gears = gear_ops(module) if module is not None else []
    if not gears:
        return [(name, text, module)]
    from geir.printer import module_to_string
    out: list[tuple[str, str, Module | None]] = []
    for gear in gears:
        one = module.clone()  # type: ignore[union-attr]
        keep_only(one, str(gear.get_attr("sym_name")))
        out.append((f"{name}[{gear_label(gear)}]", module_to_string(one), one))
    return out
