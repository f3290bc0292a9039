"""The public Python API: the data path of the three commands as functions.

```python
import geir
module = geir.import_onnx("model.onnx")            # ge-translate --import-onnx
geir.run_pipeline(module, "canonicalize,cse")       # ge-opt --pass-pipeline=...
tasks = geir.lower(module)                           # lower-to-tasks -> a task list
report = geir.emulate(tasks, device="910B2")         # ge-run on a task list
report.makespan_us, report.to_json(), report.trace("t.json"), report.timeline()
run = geir.run_model("model.onnx")                   # ge-run model.onnx: all of the above
run.speedup, run.graph_bound, run.memory_plan, run.outputs, run.format_text()
```

Each function raises ``geir.Error`` for bad input: the same diagnostics the
commands print (``file:line:col: error: message``, the source line and a
caret), never a traceback from deep inside. Heavy dependencies (onnx,
matplotlib) are imported inside the functions that need them.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, TypeVar

from geir.diagnostics import Diagnostic, DiagnosticError, SourceFile, SourceManager

if TYPE_CHECKING:
    import numpy as np

    from geir.backends.run_model import Interpreted
    from geir.backends.task_list import TaskList
    from geir.module import Module
    from geir.passes.pass_base import ModulePass
    from geir.report import Report, RunReport

__all__ = ["Error", "PassWarning", "parse", "import_onnx", "run_pipeline", "lower", "emulate", "run_model", "interpret",
           "register_pass",
           "register_strategy",
           "opt_main"]

_T = TypeVar("_T")


class Error(DiagnosticError):
    """Bad input to the API: a parse or verifier error, an unknown pass or
    option, an op that cannot be lowered, an unusable device or input.

    ``str(error)`` is the full diagnostic text, as the commands print it;
    ``error.diagnostics`` holds the ``geir.diagnostics.Diagnostic`` objects.
    """

    def __init__(self, diagnostics: Diagnostic | Sequence[Diagnostic], sources: SourceManager | None = None,
                 source_files: Sequence[SourceFile] = ()) -> None:
        super().__init__(diagnostics, source_files)
        self.sources = sources

    def __str__(self) -> str:
        return self.format(self.sources).rstrip("\n")


class PassWarning(UserWarning):
    """A warning a pass reported (``ge-opt`` prints it on stderr)."""


def _guarded(body: Callable[[], _T], sources: SourceManager | None = None) -> _T:
    """Run ``body``; a DiagnosticError leaves as ``Error`` with the source
    lines it points into, so ``str()`` shows the caret."""
    try:
        return body()
    except Error:
        raise
    except DiagnosticError as e:
        raise Error(e.diagnostics, sources, e.source_files) from None


def _sources_of(module: Module) -> SourceManager:
    sources = SourceManager()
    if module.source is not None:
        sources.add(module.source)
    return sources


def parse(text_or_path: str | os.PathLike[str], *, allow_unregistered: bool = False) -> Module:
    """Parse and verify a module, from IR text or from a file.

    Args:
        text_or_path: a ``os.PathLike`` (always a file), or a string: a
            file name when it is one line ending in ``.mlir`` or naming an
            existing file, else the IR text itself.
        allow_unregistered: accept ops no dialect defines
            (``--allow-unregistered-dialect``).

    Returns:
        The verified ``geir.Module``.

    Raises:
        Error: the text does not parse or does not verify, or the file is not UTF-8 text.
        FileNotFoundError: a file name that does not exist.
    """
    from geir.parser import parse_module
    from geir.verifier import verify

    if isinstance(text_or_path, os.PathLike) or _looks_like_path(text_or_path):
        from geir.source_text import read_source
        name, text = _guarded(lambda: read_source(os.fspath(text_or_path)))
    else:
        text, name = str(text_or_path), "<string>"
    sources = SourceManager()
    from geir.diagnostics import SourceFile
    sources.add(SourceFile(name, text))

    def body() -> Module:
        module = parse_module(text, name, allow_unregistered=allow_unregistered)
        verify(module, allow_unregistered=allow_unregistered)
        return module
    return _guarded(body, sources)


def _looks_like_path(text: str) -> bool:
    if "\n" in text or not text.strip():
        return False
    return text.endswith(".mlir") or os.path.isfile(text)


def import_onnx(path: str | os.PathLike[str] | bytes, input_shapes: Mapping[str, Sequence[int]] | str | None = None,
                *, strict: bool = False, elide_weights: bool = False) -> Module:
    """Import an ONNX model as a ``ge`` module holding ``ge.graph @main``
    (what ``ge-translate --import-onnx`` prints).

    Args:
        path: the model file (or its raw bytes, or an ``onnx.ModelProto``).
        input_shapes: shapes for graph inputs by name, binding their dynamic
            dimensions (``{"x": (1, 3, 224, 224)}``, or the text
            ``--input-shape`` takes: ``"x=1x3x224x224"``, ATC's
            ``"x:1,3,224,224"``); the shape computations they feed fold, as
            under GE's ``--input_shape``.
        strict: make every ONNX op without a native ``ge`` op an error instead
            of a generic ``ge.onnx_op``.
        elide_weights: keep every weight's type but not its bytes (a graph
            without its weights, as ``ge-translate --elide-weights`` writes).

    Raises:
        Error: the model cannot be read, fails the ONNX checker or shape
            inference, leaves a dynamic input dimension unbound, or uses what
            the importer does not support; the message names the node or input.
    """
    from geir.onnx_importer import import_onnx as _import
    from geir.passes.specialize_shapes import parse_shape_bindings

    source = os.fspath(path) if isinstance(path, os.PathLike) else path

    def bound() -> Module:
        shapes = (parse_shape_bindings(input_shapes) if isinstance(input_shapes, str) else
                  {name: tuple(int(d) for d in dims) for name, dims in (input_shapes or {}).items()})
        module = _import(source, input_shapes=shapes, strict=strict, elide_weights=elide_weights)
        if shapes:  # the shape arithmetic the bound dims feed folds, as under GE's --input_shape
            from geir.passes.pass_base import PassContext
            from geir.passes.specialize_shapes import SpecializeShapes
            SpecializeShapes().run(module, PassContext())
        return module
    return _guarded(bound)


def run_pipeline(module: Module, pipeline: str, *, verify_each: bool = True,
                 remarks: str | None = None) -> Module:
    """Run a textual pass pipeline on ``module``, in place, as
    ``ge-opt --pass-pipeline=...`` does: the same pass registry, the same
    syntax (``p1,p2{opt=value other=value}``, optionally wrapped in
    ``builtin.module(...)``), the module verified after each pass.

    Warnings the passes report are issued as ``PassWarning``; their remarks
    (what they decided and why) are printed on stderr for the passes whose
    name ``remarks`` matches (a regular expression, like ``ge-opt -Rpass``).

    Args:
        module: the module to transform (changed in place).
        pipeline: the pipeline text; ``ge-opt --list-passes`` lists the passes
            and their options.
        verify_each: verify the module after every pass (the default, like
            ``ge-opt``).
        remarks: print the remarks of the passes whose whole name matches
            this pattern (``"assign-engines"``, ``".*"``); None prints none.

    Returns:
        ``module`` itself, so calls chain.

    Raises:
        Error: the pipeline names an unknown pass or option, or a pass fails.
    """
    from geir.passes.pass_base import PassContext
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import PipelineError, parse_pipeline

    try:
        wanted = re.compile(remarks) if remarks is not None else None
    except re.error as e:
        raise Error(Diagnostic("error", f"remarks='{remarks}' is not a valid regular expression: {e}")) from None
    try:
        passes = parse_pipeline(pipeline)
    except PipelineError as e:
        raise Error(Diagnostic("error", f"pass pipeline '{pipeline}': {e}")) from None
    ctx = PassContext()
    sources = _sources_of(module)
    try:
        _guarded(lambda: PassManager(passes, verify_each=verify_each).run(module, ctx), sources)
    finally:
        for d in ctx.diagnostics:
            if d.severity == "warning":
                warnings.warn(d.format(sources).rstrip("\n"), PassWarning, stacklevel=2)
            elif d.severity == "remark" and wanted is not None and wanted.fullmatch(d.origin):
                sys.stderr.write(d.format(sources))
    return module


def lower(module: Module, graph: str | None = None, *, alignment: int = 512) -> TaskList:
    """The task list of one graph of ``module``, what the emulator runs.

    A module that holds an ``rt.model`` (its pipeline ended in
    ``lower-to-tasks``) gives that model's task list. A ``ge`` module is
    lowered as ``lower-to-tasks`` lowers it, but ``module`` is left unchanged.

    Args:
        module: a ``ge`` module, or an ``rt`` module.
        graph: the graph (or model) name; default ``main``, else the only one.
        alignment: byte alignment of fresh arena buffers (``lower-to-tasks{alignment=}``).

    Returns:
        A ``geir.TaskList``.

    Raises:
        Error: there is no such graph, the module does not verify, or an op
            cannot be lowered (an op with regions, a dynamic shape ...).
    """
    from geir.backends.rt_module import task_list_from_model
    from geir.module import Module as _Module
    from geir.passes.lower_to_tasks import lower_graph
    from geir.verifier import verify

    sources = _sources_of(module)

    def body() -> TaskList:
        verify(module)
        ops = [op for op in module.body.ops if op.name in ("ge.graph", "rt.model")]
        models = [op for op in ops if op.name == "rt.model"]
        candidates = models or ops
        chosen = _pick(candidates, graph)
        if chosen.name == "rt.model":
            return task_list_from_model(chosen)
        # A scratch module takes the weight blobs, so the caller's module is untouched.
        return task_list_from_model(lower_graph(chosen, _Module(), alignment))
    return _guarded(body, sources)


def _pick(candidates: list[Any], name: str | None) -> Any:
    names = [str(op.get_attr("sym_name")) for op in candidates]
    if not candidates:
        raise DiagnosticError(Diagnostic("error", "the module has no 'ge.graph' and no 'rt.model' to lower"))
    if name is None:
        if "main" in names:
            return candidates[names.index("main")]
        if len(candidates) == 1:
            return candidates[0]
        raise DiagnosticError(Diagnostic("error", f"the module has several graphs ({', '.join(names)}) and none "
                                                  "is named 'main'; pass graph=<name>"))
    if name not in names:
        raise DiagnosticError(Diagnostic("error", f"the module has no graph named '{name}'; it has: "
                                                  f"{', '.join(names)}"))
    return candidates[names.index(name)]


def emulate(task_list: TaskList | Module, device: str = "910B2", mode: str = "sink",
            inputs: Mapping[str, np.ndarray] | str | os.PathLike[str] | None = None, *,
            timing_only: bool = False, seed: int = 0, device_params: Sequence[str] = (),
            check_races: bool = True, warm_l2: bool = False, host_timed: bool = False) -> Report:
    """Run a task list on the Ascend runtime emulator, as ``ge-run`` does.

    Args:
        task_list: from ``lower`` (a module is lowered first).
        device: a device profile name (``910B2``, ...) or a profile JSON file.
        mode: ``sink`` (runtime v1: the whole task list sunk to the device) or
            ``host`` (runtime v2: the host launches each task).
        inputs: the graph inputs by binding name, or an ``.npz`` file of them;
            None draws deterministic random values from ``seed`` (the values
            ``ge-run`` draws).
        timing_only: simulate time only, without numerics (no outputs).
        seed: the seed of random inputs.
        device_params: ``key=value`` overrides of the device profile's numbers.
        check_races: run the happens-before race checker.
        warm_l2: the run follows a run of the same task list (a benchmark's
            warm-up): when its weights and arena fit in L2 together, its
            kernels read the weights from L2.
        host_timed: time the run as a host times a synchronous model
            execution (``aclmdlExecute``, as ais_bench does): the report's
            ``host_timed`` adds the profile's ``model_execute_us`` to the makespan.

    Returns:
        A ``geir.Report``: the fields of ``ge-run --report json`` as
        attributes, the outputs, and the trace and timeline of the run.
        Races and deadlocks are findings in the report, not exceptions;
        ``f16_underflow`` lists the kernels whose f16 results flushed values
        to zero (``geir.report.underflow_warnings`` words them as ``ge-run``),
        ``f16_overflowed`` counts the values they overflowed to infinity or NaN.

    Raises:
        Error: the task list is malformed for this device, an option is
            invalid, or an input is missing or misshapen.
    """
    from geir.backends.emulator import EmulatorOptions, emulate as _emulate, task_list_signature
    from geir.backends.io_bindings import check_inputs, load_inputs
    from geir.backends.kernels.underflow import located, watch_underflow
    from geir.backends.run_model import kernel_locations
    from geir.module import Module as _Module
    from geir.report import Report

    if isinstance(task_list, _Module):
        task_list = lower(task_list)
    tl = task_list
    options = EmulatorOptions(device=device, device_params=list(device_params), mode=mode,
                              timing_only=timing_only, seed=seed, check_races=check_races, warm_l2=warm_l2,
                              host_timed=host_timed)

    def body() -> Report:
        arrays = None
        if timing_only:
            described = "none (timing only)"
        elif inputs is None:
            described = f"random, seed {seed}"
        elif isinstance(inputs, (str, os.PathLike)):
            arrays = load_inputs(os.fspath(inputs), task_list_signature(tl))
            described = os.fspath(inputs)
        else:
            arrays = check_inputs(dict(inputs), task_list_signature(tl), "inputs")
            described = "given"
        with watch_underflow() as watch:
            result = _emulate(tl, arrays, options)
        return Report(result, described, located(watch, kernel_locations([tl])), watch.overflowed)
    return _guarded(body)


def run_model(model: str | os.PathLike[str] | Any, *, pipeline: str | None = None, device: str = "910B2",
              streams: int | None = None, mode: str = "sink",
              inputs: Mapping[str, np.ndarray] | str | os.PathLike[str] | None = None,
              input_shapes: Mapping[str, Sequence[int] | int] | str | None = None, compare: bool = True,
              timing_only: bool = False, precision_mode: str | None = None, seed: int = 0,
              device_params: Sequence[str] = (), allow_unregistered: bool = False,
              warm_l2: bool = False, host_timed: bool = False) -> RunReport:
    """Run a model from end to end, as ``ge-run model`` does: import or parse
    it, bind its dynamic dims, compile it with ``ge-default`` (or
    ``pipeline``) for ``device``, together with the same pipeline on a single
    stream, take the graph's lower bound and the memory plan against its
    bound, lower it and emulate it (timing and numerics).

    A graph already scheduled (its ops on streams) or a task list runs as
    written; a module of gears runs the smallest gear that fits ``inputs``
    (or ``input_shapes``), compiled as any static graph is, and its report's
    ``gears_memory`` is the largest plan among the gears of the most input
    elements (compiled too), which GE's dynamic-batch memory holds for every
    gear; a graph with control flow or data-dependent sizes runs as
    host-driven launches. A model whose weights are absent runs timing-only, and the
    report says so (``weights_absent``).

    Args:
        model: an ONNX model file (by its ``.onnx`` name or its bytes), an IR
            file or a task-list JSON file, an ``onnx.ModelProto``, or a
            ``geir.Module`` (not changed: the run works on a clone).
        pipeline: the pass pipeline (``ge-opt`` syntax) for a graph nothing
            has scheduled; default ``ge-default``.
        device: a device profile name (``910B2``, ``310P3``, ...) or JSON file.
        streams: at most this many streams (the pipeline's ``max-streams``).
        mode: ``sink`` (runtime v1) or ``host`` (runtime v2).
        inputs: the graph inputs by name, or an ``.npz`` of them; None draws
            deterministic random values from ``seed``. Their shapes bind
            dynamic dims.
        input_shapes: binds dynamic dims before the run: an input's whole
            shape (``{"x": (1, 3, 8, 8)}``) or a symbol's size (``{"batch": 4}``),
            or the text ``--input-shape`` takes (``"x=1x3x8x8"``, ATC's ``"x:1,3,8,8"``).
        compare: also build and emulate the single-stream variant (the
            report's ``speedup``).
        timing_only: simulate time only, without numerics (no outputs).
        precision_mode: ATC's ``--precision_mode`` for ``ge-default``'s
            ``precision-mode`` pass (``force_fp16``, ``must_keep_origin_dtype``,
            ...); default the device's.
        seed: the seed of random inputs.
        device_params: ``key=value`` overrides of the device profile's numbers.
        allow_unregistered: accept ops no dialect defines.
        warm_l2: the run follows a run of the same model (a benchmark's
            warm-up): a model whose weights and activation arena fit in L2
            together reads its weights from L2 (``ge-run --warm-l2``).
        host_timed: time the run as a host times a synchronous model
            execution (``ge-run --host-timed``): the report's ``host_timed``
            adds the profile's ``model_execute_us`` to the makespan.

    Returns:
        A ``geir.RunReport``: the makespan, the lower bounds, the speed-up over
        single stream, engines, streams, arena and memory plan, races,
        deadlock and the outputs as numpy arrays; ``to_json()`` is
        ``ge-run --report json``'s object and ``format_text()`` its text;
        ``f16_underflow`` the ops whose f16 results flushed values to zero
        (``geir.report.underflow_warnings`` words them as ``ge-run``);
        ``f16_overflowed`` the values they overflowed to infinity or NaN.

    Raises:
        Error: bad input or a bad option (the diagnostics ``ge-run`` prints).
    """
    from geir.backends.run_model import RunSettings, run_model as _run

    settings = RunSettings(pipeline=pipeline, device=device, device_params=list(device_params), streams=streams,
                           mode=mode, inputs=os.fspath(inputs) if isinstance(inputs, os.PathLike) else inputs,
                           input_shapes=input_shapes, compare=compare, timing_only=timing_only, seed=seed,
                           allow_unregistered=allow_unregistered, precision_mode=precision_mode, warm_l2=warm_l2,
                           host_timed=host_timed)
    sources = SourceManager()
    return _guarded(lambda: _run(model, settings, sources), sources)


def interpret(model: str | os.PathLike[str] | Any, inputs: Mapping[str, np.ndarray] | str | os.PathLike[str] |
              None = None, *, input_shapes: Mapping[str, Sequence[int] | int] | str | None = None,
              precision_mode: str | None = None, device: str = "910B2", seed: int = 0,
              allow_unregistered: bool = False) -> Interpreted:
    """Run a model op by op with the reference interpreter, as
    ``ge-run model --interpret`` does: no streams, no memory plan, the graph
    as written (after the ``precision-mode`` pass when ``precision_mode`` is
    given, so it computes in the types that mode gives on ``device``).

    Args:
        model: an ONNX model file (by its ``.onnx`` name or its bytes), an IR
            file or a task-list JSON file, an ``onnx.ModelProto``, or a
            ``geir.Module`` (not changed: the run works on a clone).
        inputs: the graph inputs by name, or an ``.npz`` of them; None draws
            deterministic random values from ``seed``.
        input_shapes: binds dynamic dims before the run, as for ``run_model``.
        precision_mode: ATC's ``--precision_mode`` (``force_fp16``, ...);
            None runs the graph's own types.
        device: the device profile the precision mode is decided for.
        seed: the seed of random inputs.
        allow_unregistered: accept ops no dialect defines.

    Returns:
        ``outputs`` by name, ``input_arrays``, ``random_seed`` (None: inputs
        given), ``precision_mode``, ``f16_underflow``: the ops whose f16
        results flushed values to zero, as ``(loc, Underflow)`` pairs
        (``geir.report.underflow_warnings`` words them as ``ge-run``), and
        ``f16_overflowed``: the values they overflowed to infinity or NaN.

    Raises:
        Error: bad input or a bad option (the diagnostics ``ge-run`` prints).
    """
    from geir.backends.run_model import RunSettings, interpret_prepared, load, prepare, with_device_resolved

    settings = RunSettings(device=device, inputs=os.fspath(inputs) if isinstance(inputs, os.PathLike) else inputs,
                           input_shapes=input_shapes, seed=seed, allow_unregistered=allow_unregistered,
                           precision_mode=precision_mode)
    sources = SourceManager()

    def body() -> Interpreted:
        resolved = with_device_resolved(settings)
        module = load(model, allow_unregistered, sources)
        return interpret_prepared(prepare(module, resolved, interpret=True), resolved)
    return _guarded(body, sources)


def register_pass(cls: type[ModulePass], name: str | None = None) -> type[ModulePass]:
    """Register a pass class under its ``name`` so pipelines can name it:
    ``run_pipeline`` and ``opt_main`` (``ge-opt`` in this process).

    The class is an ``@attrs.define`` subclass of
    ``geir.passes.pass_base.ModulePass`` that sets ``name`` and
    ``summary``, declares its options with ``geir.passes.pass_base.option``
    and implements ``run(module, ctx)``; it must be defined at the top level of
    an importable module (the registry names it ``module:Class``). Usable as a
    decorator.

    Returns:
        ``cls``.

    Raises:
        TypeError: ``cls`` is not such a pass class.
        ValueError: the name is empty, or taken by another pass.
    """
    import importlib

    import attrs

    from geir.passes.pass_base import ModulePass
    from geir.passes.registry import PASSES

    if not (isinstance(cls, type) and issubclass(cls, ModulePass)):
        raise TypeError(f"register_pass expects a ModulePass subclass, got {cls!r}")
    if not (attrs.has(cls) and "__attrs_attrs__" in cls.__dict__):
        raise TypeError(f"pass class {cls.__qualname__} must be decorated with @attrs.define (its fields are its "
                        "options)")
    name = name or cls.name
    if not name:
        raise ValueError(f"pass class {cls.__qualname__} sets no 'name' (the name pipelines use)")
    target = f"{cls.__module__}:{cls.__qualname__}"
    module = importlib.import_module(cls.__module__)
    if getattr(module, cls.__qualname__, None) is not cls:
        raise ValueError(f"pass class {cls.__qualname__} is not a top-level name of module '{cls.__module__}'; "
                         "define it at the top level of a module")
    existing = PASSES.get(name)
    if existing is not None and existing != target:
        raise ValueError(f"a pass named '{name}' is already registered ({existing})")
    PASSES[name] = target
    return cls


def register_strategy(name: str, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Register ``fn`` as stream-allocation strategy ``name``, GE's
    ``CustomAllocateStreamPassFn``: ``partition-streams{strategy=name}`` (and
    ``ge-default{strategy=name}``, ``ge-bench --strategies name``) then runs it
    on every graph.

    ``fn(problem)`` gets a read-only view of one graph's scheduling problem
    (``geir.passes.scheduling.strategy_registry.StrategyProblem``): ``n`` ops in
    block order (topological), ``preds``/``succs``, ``engines``, ``pools``,
    ``durations_us`` on the device, ``labels`` (``stream_label``),
    ``max_streams``, ``stream_budget``, ``ge_streams`` (GE's default logical
    allocation, what GE's custom pass starts from) and
    ``allocate_next_stream_id(plan)``. It returns a stream id per op (a list of
    ints), or a ``StreamPlan`` that also reorders them. The pass checks the
    answer: every op gets a stream in ``[0, stream_budget)``, all ops of a label
    share one stream no other op uses, and the order keeps every dependency;
    otherwise it reports an error at the op.

    ``fn`` must be a top-level function of an importable module (worker
    processes import it by name). Installed packages can declare strategies in
    the ``geir.strategies`` entry-point group instead (``name = module:function``),
    which are loaded when a pipeline first names an unknown strategy.

    Returns:
        ``fn`` (usable as ``register_strategy("name", fn)`` in a module body).

    Raises:
        TypeError: ``fn`` is not callable.
        ValueError: the name is empty, a built-in strategy, or taken by another
            function; or ``fn`` is not a top-level name of its module.
    """
    from geir.passes.scheduling.strategy_registry import register
    return register(name, fn)


def opt_main(argv: Sequence[str] | None = None) -> int:
    """``ge-opt``'s command line in this process, with every pass registered
    so far (also by ``register_pass``), like MLIR's ``MlirOptMain``: a
    three-line script that registers its passes and calls this is a project's
    own ``ge-opt``.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).

    Returns:
        The exit code (0 success, 1 an error was reported on stderr).
    """
    from geir.tools.ge_opt import main
    return main(list(argv) if argv is not None else sys.argv[1:])
