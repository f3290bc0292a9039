"""Run a model end to end: what ``ge-run model`` does, as a library function
(:func:`run_model`, public as ``geir.run_model``).

The steps: load the model (an ``.onnx`` file through the importer, IR text,
an ``onnx.ModelProto`` or a ``Module``, which is cloned, not changed), bind and
specialise its dynamic dims (:func:`prepare`), compile a graph nothing has
scheduled yet with ``ge-default`` (or the given pipeline; given the device and
the stream budget) together with the same pipeline on a single stream, take the
graph's lower bound and the memory plan against its bound
(:mod:`geir.backends.model_compile`), lower, and emulate timing and numerics.
The result is one :class:`~geir.report.RunReport`.

A module of gears runs the smallest gear that fits the inputs, compiled as any
static graph is (gears lowered to task lists run as written). A graph with
static control flow (``ge.if``, the while form of ``ge.loop``) runs in the task
sink, as GE's runtime v1 runs static shapes: one task list whose label tasks
branch and loop on the device; the report compares it with the same model run
host-driven (time, launches, host round trips). A graph with data-dependent
sizes or control flow the sink cannot run runs as host-driven launches (GE's
runtime v2, :mod:`geir.backends.host_control`). A model whose weights are
absent (imported without its weights file) runs timing-only, and its report
says so.

Errors are diagnostics (``DiagnosticError``); races and deadlocks are findings
in the report, not errors.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import attrs

from geir.diagnostics import Diagnostic, DiagnosticError, SourceManager

if TYPE_CHECKING:
    import numpy as np

    from geir.backends.emulator import EmulatorOptions
    from geir.backends.model_compile import CompileReport
    from geir.backends.shape_gears import Selection
    from geir.backends.task_list import TaskList
    from geir.module import Module
    from geir.report import RunReport

__all__ = ["RunSettings", "Prepared", "Interpreted", "run_model", "interpret_prepared", "run_warnings", "kernel_locations", "with_device_resolved", "no_pipeline", "load", "prepare", "run_prepared", "compile_for_run",
           "emulate_module", "static_task_list", "binding_names", "graph_name", "SegmentPlan", "segment_pipeline"]


@attrs.define
class RunSettings:
    """How a model runs: ``ge-run``'s options (the names its flags have)."""

    pipeline: str | None = None  # None: ge-default on a graph not yet scheduled
    device: str = "910B2"
    device_params: list[str] = attrs.Factory(list)
    streams: int | None = None
    mode: str = "sink"
    #: the graph inputs by name, or an .npz path; None draws random ones from ``seed``
    inputs: Mapping[str, Any] | str | None = None
    #: input name -> shape or symbol -> size; or ``NAME=DIMS`` texts (``--input-shape``)
    input_shapes: Mapping[str, Any] | Sequence[str] | str | None = None
    compare: bool = True
    timing_only: bool = False
    seed: int = 0
    allow_unregistered: bool = False
    precision_mode: str | None = None
    #: the run follows a run of the same model (a benchmark's warm-up): weights
    #: that fit in L2 with the activations are read from it (``--warm-l2``)
    warm_l2: bool = False
    #: time the run as a host times a synchronous model execution (``--host-timed``):
    #: the report adds the profile's ``model_execute_us`` to the makespan
    host_timed: bool = False

    @property
    def inputs_named(self) -> str:
        """How diagnostics and the report name the inputs."""
        return self.inputs if isinstance(self.inputs, str) else "inputs"


def _emulator_options(settings: RunSettings, **overrides: Any) -> "EmulatorOptions":
    """The emulator's options for a run as ``settings`` say (device, its
    overrides, mode, seed, a warm L2, host timing), with ``overrides``."""
    from geir.backends.emulator import EmulatorOptions
    overrides.setdefault("host_timed", settings.host_timed)
    return EmulatorOptions(device=settings.device, device_params=list(settings.device_params), mode=settings.mode,
                           seed=settings.seed, warm_l2=settings.warm_l2, **overrides)


@attrs.define
class Prepared:
    """A loaded model made ready to run: ``kind`` is ``gears`` (a module of
    gears), ``interpret`` (asked for), ``host`` (control flow or data-dependent
    sizes) or ``graph`` (a ge graph or a task list, one emulation); ``inputs``
    the given inputs as arrays (None: random or none)."""

    module: Module
    kind: str
    inputs: dict[str, np.ndarray] | None = None


def run_model(model: Any, settings: RunSettings, sources: SourceManager | None = None) -> RunReport:
    """Load ``model`` and run it as ``settings`` say; the report.

    ``sources`` (when given) receives the IR text loaded, for diagnostics
    with source lines.

    Raises:
        DiagnosticError: bad input, a bad option, a model that cannot compile or run.
    """
    settings = with_device_resolved(settings)
    module = load(model, settings.allow_unregistered, sources)
    return run_prepared(prepare(module, settings), settings)


def with_device_resolved(settings: RunSettings) -> RunSettings:
    """``settings`` with the device as its profile names it (``910b2`` ->
    ``910B2``); a diagnostic for an unknown device."""
    from geir.backends.model_compile import resolve_device
    return attrs.evolve(settings, device=resolve_device(settings.device, list(settings.device_params))[0])


def load(model: Any, allow_unregistered: bool = False, sources: SourceManager | None = None) -> Module:
    """The module of ``model``: a path (``.onnx`` or IR text; ``-`` standard
    input), an ``onnx.ModelProto``, raw ONNX bytes, or a ``Module`` (cloned:
    running changes the module)."""
    from geir.module import Module as _Module
    if isinstance(model, _Module):
        return model.clone()
    if isinstance(model, (str, os.PathLike)):
        from geir.backends.model_compile import load_model
        return load_model(os.fspath(model), allow_unregistered, sources)[0]
    from geir.onnx_importer import import_onnx
    return import_onnx(model)


def no_pipeline(settings: RunSettings, why: str) -> None:
    """A pipeline or a stream budget is an error where no pipeline runs."""
    given = [f for f, v in (("--pipeline", settings.pipeline), ("--streams", settings.streams)) if v is not None]
    if given:
        raise DiagnosticError(Diagnostic("error", f"{' and '.join(given)} cannot apply: {why}"))


def prepare(module: Module, settings: RunSettings, interpret: bool = False) -> Prepared:
    """Say how ``module`` runs and bind its dynamic dims (``input_shapes``,
    then the shapes of ``inputs``), specialising ``@main``; with ``interpret``
    it is to run op by op with the reference interpreter.

    Raises:
        DiagnosticError: an option that cannot apply to this kind of model, a
            binding that does not fit, an input dim left unbound.
    """
    from geir.backends.shape_gears import gears_are_graphs, has_gears
    if has_gears(module):
        if not gears_are_graphs(module):
            no_pipeline(settings, "the gears are task lists (rt.model), already lowered")
        if interpret or (settings.inputs is None) == (not settings.input_shapes):
            why = ("--interpret runs one graph as written and picks no gear: interpret the model imported without "
                   "a gear option" if interpret else
                   "a gear is picked from the shapes of --inputs or from --input-shape, not both"
                   if settings.input_shapes else
                   "a gear module picks its gear from the shapes of --inputs, or from --input-shape (batch=4); "
                   "give one")
            raise DiagnosticError(Diagnostic("error", why))
        return Prepared(module, "gears")
    inputs = _specialize(module, settings, interpret)
    if interpret:
        no_pipeline(settings, "--interpret runs the graph op by op as written")
        return Prepared(module, "interpret", inputs)
    from geir.backends.model_compile import needs_host
    if needs_host(module):
        return Prepared(module, "host", inputs)
    return Prepared(module, "graph", inputs)


def _specialize(module: Module, settings: RunSettings, interpret: bool) -> dict[str, np.ndarray] | None:
    if not any(op.name == "ge.graph" for op in module.body.ops):
        return None  # a task list: static by construction
    from geir.backends.io_bindings import find_graph, graph_signature, load_inputs
    from geir.passes.specialize_shapes import bindings_from_inputs, resolve_bindings, specialize_graph
    name = graph_name(module)
    graph = find_graph(module, name)
    if settings.input_shapes:
        bindings, where = _input_shape_bindings(settings)
        specialize_graph(graph, module, resolve_bindings(graph, bindings, where))
    inputs = None
    if settings.inputs is not None:
        if isinstance(settings.inputs, (str, os.PathLike)):
            inputs = load_inputs(os.fspath(settings.inputs), graph_signature(module, name))
        else:
            inputs = {k: v for k, v in settings.inputs.items()}
        shapes = resolve_bindings(graph, bindings_from_inputs(graph, inputs, settings.inputs_named),
                                  settings.inputs_named)
        if shapes:
            specialize_graph(graph, module, shapes)
    if not interpret:
        from geir.backends.io_bindings import bind_by_flag_or_inputs
        from geir.passes.range_shapes import unbound_input_diagnostics
        problems = unbound_input_diagnostics(graph, bind_by_flag_or_inputs)
        if problems:  # said at the input, before lower-to-tasks reports every op it reaches
            raise DiagnosticError(problems)
        from geir.passes.specialize_shapes import fold_static_shapes
        fold_static_shapes(graph, module)  # dims only shape arithmetic decides: static, not host-driven
    return inputs


def _input_shape_bindings(settings: RunSettings) -> tuple[dict[str, tuple[int, ...]], str]:
    """The bindings ``settings.input_shapes`` make (name or symbol -> dims), and
    what to call the option in a diagnostic."""
    from geir.passes.specialize_shapes import parse_shape_bindings
    shapes = settings.input_shapes or {}
    if isinstance(shapes, Mapping):
        return ({k: (int(v),) if isinstance(v, int) else tuple(int(d) for d in v) for k, v in shapes.items()},
                "input_shapes")
    # a text is one option's value ("x=1x3x8x8", or ATC's "x:1,3,8,8"), not its characters
    return parse_shape_bindings(shapes if isinstance(shapes, str) else list(shapes)), "--input-shape"


def graph_name(module: Module) -> str:
    """The graph a run runs: ``@main``, or the module's only graph."""
    names = [op.get_attr("sym_name") for op in module.body.ops if op.name == "ge.graph"]
    return names[0] if len(names) == 1 and "main" not in names else "main"


def run_prepared(prepared: Prepared, settings: RunSettings) -> RunReport:
    """Run a prepared model (not ``interpret``): gears, host-driven launches,
    or compile (when nothing has scheduled the graph) and emulate."""
    if prepared.kind == "gears":
        return _run_gears(prepared.module, settings)
    model_f32 = _computes_in_f32(prepared.module)
    if prepared.kind == "host":
        report = _run_host_driven(prepared.module, settings, prepared.inputs)
        report.model_f32 = model_f32
        return report
    if prepared.kind != "graph":
        raise ValueError(f"run_prepared cannot run a model prepared to {prepared.kind}")
    from geir.backends.host_control import has_control_flow
    original = prepared.module.clone() if any(op.name == "ge.graph" and has_control_flow(op)
                                              for op in prepared.module.body.ops) else None
    compiled = compile_for_run(prepared.module, settings)
    report = emulate_module(prepared.module, settings, compiled, prepared.inputs)
    report.model_f32 = model_f32
    if original is not None:
        _apply_input_passes(original, settings)
        _compare_with_host_driven(report, original, settings)
    return report


def _apply_input_passes(module: Module, settings: RunSettings) -> None:
    """The passes of the run's pipeline that change what the model takes
    (``insert-aipp``: ATC's preprocessing, part of the model the device runs),
    applied to ``module``, so that a host-driven run of it takes the same inputs."""
    if settings.pipeline is None:
        return
    from geir.passes.insert_aipp import InsertAipp
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    passes = [p for p in parse_pipeline(settings.pipeline) if isinstance(p, InsertAipp) and p.config]
    if passes:
        PassManager(list(passes), allow_unregistered=settings.allow_unregistered).run(module)


def _compare_with_host_driven(report: RunReport, module: Module, settings: RunSettings) -> None:
    """Add ``sink_vs_host`` to a task-sink run of a graph with control flow:
    the same model and inputs run host-driven (runtime v2), with the time,
    the launches and the host round trips of each. Host-driven time is the
    launches' device time plus ``host_launch_us`` per launch the host makes:
    one per known-shape segment (a task-sink sub-model, as GE runs it), one per
    task of any other."""
    import numpy as np

    from geir.backends.device_profile import load_profile
    from geir.backends.host_control import HostDriver
    fields = report.fields
    control = fields.get("control") or {}
    # host mode launches every task run from the host, without reading anything back
    sink = {"time_us": float(fields["makespan_us"]),
            "launches": 1 if settings.mode == "sink" else fields.get("executed_tasks"), "host_round_trips": 0,
            "tasks_run": fields.get("executed_tasks"), "branches_assumed": bool(control.get("branches_assumed"))}
    host: dict[str, Any] | None = None
    why = None
    if report.input_arrays is None or report.outputs is None:
        why = "timing only: the host reads predicates and trip counts from the numerics"
    elif not settings.compare:
        why = "not asked for"
    else:
        options = _emulator_options(settings, progress=False, host_timed=False)
        # compiled as a host-driven run of the model is (_run_host_driven): the
        # sink's precision mode on the whole graph, the pipeline on each segment
        with segment_pipeline(settings) as plan:
            plan.retype(module, settings.allow_unregistered)
            driver = HostDriver(module, options, passes=plan.segment_passes)
            outputs = driver.run(report.input_arrays)
        # in host mode each launch's makespan already holds the host's per-task launches
        launch_us = (float(load_profile(settings.device, list(settings.device_params))["host_launch_us"])
                     if settings.mode == "sink" else 0.0)
        host_launches = sum(launch.host_launches for launch in driver.launches)
        device_us = sum(launch.makespan_us for launch in driver.launches)
        diff = max((float(np.max(np.abs(np.asarray(outputs[k], np.float64) - np.asarray(v, np.float64)),
                                 initial=0.0)) for k, v in report.outputs.items() if k in outputs), default=0.0)
        host = {"time_us": round(device_us + host_launches * launch_us, 3), "device_time_us": round(device_us, 3),
                "host_launch_us": round(host_launches * launch_us, 3), "launches": len(driver.launches),
                "host_launches": host_launches, "host_round_trips": driver.round_trips, "outputs_max_abs_diff": diff}
    fields["sink_vs_host"] = {"sink": sink, "host": host, "why_no_host": why}
    what = "task sink" if settings.mode == "sink" else "one task list (host mode)"
    if host is not None:
        speedup = host["time_us"] / sink["time_us"] if sink["time_us"] > 0 else None
        parts = (f"{host['device_time_us']:.3f} device + {host['host_launch_us']:.3f} for {host['host_launches']} "
                 f"host launches" if settings.mode == "sink" else
                 f"{host['host_launches']} host launches included")
        line = (f"sink vs host    {what} {sink['time_us']:.3f} us, {sink['launches']} launch(es), 0 host round trips; host-driven "
                f"{host['time_us']:.3f} us ({parts}), {host['launches']} launches, "
                f"{host['host_round_trips']} host round trips"
                f"{'' if not speedup else f': sink {speedup:.2f}x faster' if speedup >= 1 else f': host-driven {1 / speedup:.2f}x faster'}"
                f"; outputs differ by {diff:.3g} at most\n")
    else:
        line = f"sink vs host    {what} {sink['time_us']:.3f} us, {sink['launches']} launch(es); host-driven not run ({why})\n"
    body = report.body.splitlines(keepends=True)
    at = next((i + 1 for i, l in enumerate(body) if l.startswith("control ")), len(body))
    body.insert(at, line)
    report.body = "".join(body)


def compile_for_run(module: Module, settings: RunSettings, compare: bool | None = None) -> CompileReport | None:
    """Run the pipeline on a graph not yet scheduled (or on any graph, given a
    pipeline), and with ``compare`` (default ``settings.compare``) the same
    pipeline on a single stream; the figures for the report, None if no
    pipeline ran. ``module`` is compiled in place."""
    from geir.backends.model_compile import (CompileReport, Compiled, compile_module, needs_pipeline, pass_device,
                                             plan_pipeline, resolve_device, task_list_of)
    if not needs_pipeline(module):
        if any(op.name == "rt.model" for op in module.body.ops):
            no_pipeline(settings, "the module holds a task list (rt.model), already lowered")
            return None
        if settings.pipeline is None:
            if settings.streams is not None:
                raise DiagnosticError(Diagnostic(
                    "error", "--streams cannot apply: the graph is already scheduled (its ops carry streams or "
                             "events); give --pipeline too to schedule it again"))
            return None
    device_name, profile = resolve_device(settings.device, list(settings.device_params))
    text = _with_precision_mode(settings.pipeline, settings.precision_mode)
    with pass_device(device_name, profile, list(settings.device_params)) as device:
        plan = plan_pipeline(text, settings.streams, device, device_name, list(settings.device_params),
                             settings.mode)
        single = None
        shared: Compiled | None = None
        passes = plan.passes
        if (settings.compare if compare is None else compare) and plan.single is not None:
            # The passes before the first the single-stream plan changes (partition-streams)
            # run once; both plans go on from their result.
            k = next((i for i, (a, b) in enumerate(zip(plan.passes, plan.single)) if a != b), len(plan.single))
            if k:
                shared = compile_module(module, plan.passes[:k], settings.allow_unregistered)
            compiled = compile_module(module, plan.single[k:], settings.allow_unregistered, copy_first=True)
            single = task_list_of(compiled.module, settings.allow_unregistered)
            passes = plan.passes[k:]
        compiled = compile_module(module, passes, settings.allow_unregistered, device=device,
                                  warm_l2=settings.warm_l2)
    warnings = (list(shared.warnings) if shared is not None else []) + list(compiled.warnings)
    memory = compiled.memory if compiled.memory is not None or shared is None else shared.memory
    return CompileReport(plan.text, memory, single, compiled.bound, warnings)


def _require_precision_mode_pass() -> None:
    """A precision mode needs the ``precision-mode`` pass (DiagnosticError when
    this installation lacks it)."""
    import importlib.util
    if importlib.util.find_spec("geir.passes.precision_mode") is None:
        raise DiagnosticError(Diagnostic("error", "precision_mode needs the precision-mode pass, which this "
                                                  "installation lacks"))


def _with_precision_mode(pipeline: str | None, precision_mode: str | None) -> str | None:
    """The pipeline with ``precision-mode=...`` for ge-default, when a
    precision mode is asked for (and the pipeline is the default one)."""
    if precision_mode is None:
        return pipeline
    _require_precision_mode_pass()
    if pipeline is not None:
        raise DiagnosticError(Diagnostic("error", "precision_mode applies to the default pipeline; with a "
                                                  "pipeline given, put precision-mode in it"))
    from geir.backends.model_compile import DEFAULT_PIPELINE
    return f"{DEFAULT_PIPELINE}{{precision-mode={precision_mode}}}"


def static_task_list(module: Module, settings: RunSettings, name: str, device: str,
                     warnings: list[Any] | None = None) -> TaskList:
    """The task list of one model run beside others: the pipeline on a graph
    not yet scheduled (or on any graph, given a pipeline), then lowering;
    ``device`` as the passes take it (:func:`~geir.backends.model_compile.pass_device`).
    The passes' warnings are added to ``warnings``.

    ``settings.input_shapes`` binds the dims it names in this model (an input or
    a symbolic dim of its graph; the others' names are not its), and picks a
    gear module's gear as a run of it alone would.

    Raises:
        DiagnosticError: a gear module no binding sizes, control flow,
            data-dependent sizes or unbound dynamic dims (one static task list
            each is needed).
    """
    from geir.backends.model_compile import (compile_module, needs_host, needs_pipeline, plan_pipeline,
                                             task_list_of)
    from geir.backends.io_bindings import bind_by_flag
    from geir.backends.shape_gears import has_gears
    from geir.diagnostics import error
    from geir.passes.range_shapes import unbound_input_diagnostics
    from geir.passes.specialize_shapes import fold_static_shapes
    bindings = _input_shape_bindings(settings)[0] if settings.input_shapes else {}
    known = binding_names(module)
    bindings = {k: v for k, v in bindings.items() if k in known}
    if has_gears(module):
        if not bindings:
            raise error(f"'{name}' is a gear module: beside other models, --input-shape picks its gear (it "
                        f"binds {', '.join(sorted(known))})")
        _keep_bound_gear(module, bindings)
        bindings = {}  # the gear's graph is static
    graphs = [op for op in module.body.ops if op.name == "ge.graph"]
    if bindings and graphs:
        from geir.passes.specialize_shapes import resolve_bindings, specialize_graph
        graph = next(op for op in graphs if op.get_attr("sym_name") == graph_name(module))
        specialize_graph(graph, module, resolve_bindings(graph, bindings, "--input-shape"))
    for graph in graphs:
        fold_static_shapes(graph, module)  # dims only shape arithmetic decides: static, as for one model
    if needs_host(module):
        raise error(f"'{name}' has control flow or data-dependent sizes: several models at once run one static "
                    "task list each")
    graphs = [op for op in module.body.ops if op.name == "ge.graph"]
    for graph in graphs:
        problems = unbound_input_diagnostics(graph, bind_by_flag)  # several models take no --inputs
        if problems:
            raise DiagnosticError(problems)
    if needs_pipeline(module) or (settings.pipeline is not None and graphs):
        plan = plan_pipeline(settings.pipeline, settings.streams, device, settings.device,
                             list(settings.device_params), settings.mode)
        compiled = compile_module(module, plan.passes, settings.allow_unregistered)
        if warnings is not None:
            warnings.extend(compiled.warnings)
    return task_list_of(module, settings.allow_unregistered)


def binding_names(module: Module) -> set[str]:
    """The names ``--input-shape`` may bind in ``module``: its graph's inputs and
    symbolic dims, a gear module's inputs and gear symbols; none in a task list."""
    from geir.backends.shape_gears import gear_binding_names, has_gears
    if has_gears(module):
        return gear_binding_names(module)
    from geir.passes.specialize_shapes import bindable_names
    graphs = [op for op in module.body.ops if op.name == "ge.graph"]
    if not graphs:
        return set()
    name = graph_name(module)
    return bindable_names(next((g for g in graphs if g.get_attr("sym_name") == name), graphs[0]))


def _keep_bound_gear(module: Module, bindings: Mapping[str, tuple[int, ...]]) -> None:
    """Leave in ``module`` only the gear that inputs of the bound sizes pick."""
    from geir.backends.io_bindings import shape_views
    from geir.backends.shape_gears import bound_signature, keep_only, select_gear
    selection = select_gear(module, shape_views(bound_signature(module, bindings)), "--input-shape", pad=False)
    keep_only(module, str(selection.model.get_attr("sym_name")))


def _weights_absent(module: Module) -> bool:
    from geir.absent_weights import module_has_absent_weights
    return module_has_absent_weights(module)


def emulate_module(module: Module, settings: RunSettings, compiled: CompileReport | None = None,
                   inputs: Mapping[str, np.ndarray] | None = None) -> RunReport:
    """Lower ``module`` (when it holds a graph) and emulate it; ``compiled``
    is what the pipeline said, for the report."""
    from geir.backends.emulator import emulate, random_task_inputs, task_list_signature
    from geir.backends.io_bindings import check_inputs, load_inputs
    from geir.backends.model_compile import task_list_of
    from geir.report import WEIGHTS_ABSENT, RunReport, output_summary
    absent = _weights_absent(module)
    timing_only = settings.timing_only or absent
    task_list = task_list_of(module, settings.allow_unregistered)
    seed = None
    arrays = None
    if not timing_only:
        # the arrays prepare already read (a pipe reads once), else the file or mapping given
        given = inputs if inputs is not None else settings.inputs
        if isinstance(given, (str, os.PathLike)):
            arrays = load_inputs(os.fspath(given), task_list_signature(task_list))
        elif given is not None:
            arrays = check_inputs(dict(given), task_list_signature(task_list), settings.inputs_named)
        else:
            arrays = random_task_inputs(task_list, settings.seed)
            seed = settings.seed if arrays else None
    options = _emulator_options(settings, timing_only=timing_only)
    from geir.backends.kernels.underflow import first_overflow, located, watch_underflow
    with watch_underflow() as watch, _noting_random_inputs(seed):
        result = emulate(task_list, arrays, options)
    kernels = kernel_locations([task_list])
    underflow = located(watch, kernels)
    fields = result.report
    if result.outputs is not None:
        fields["outputs"] = output_summary(result.outputs)
    fields["inputs"] = ("none (timing only)" if timing_only else _described(settings))
    text = result.text()
    if compiled is not None:
        text = _add_compile_report(fields, text, compiled, settings, arrays)
    if absent:
        fields["weights"] = WEIGHTS_ABSENT
        text = f"weights {WEIGHTS_ABSENT}\n" + text
    return RunReport(fields, text, result.outputs, result, list(compiled.warnings) if compiled is not None else [],
                     seed, arrays, underflow, watch.overflowed, first_overflow(watch, kernels))


@contextlib.contextmanager
def _noting_random_inputs(seed: int | None) -> Iterator[None]:
    """A kernel that fails on random inputs (``seed`` set) gets a note
    saying so: an op that reads an input as a shape, an index or a size may
    fail on random values and run on the model's own."""
    from geir.backends.kernel_dispatch import KernelFailed
    try:
        yield
    except KernelFailed as e:
        if seed is not None and e.diagnostics:
            e.diagnostics[0].attach_note(f"the inputs were random (seed {seed}); an input read as a shape, an index "
                                         "or a size may need the model's own values: give them with --inputs")
        raise


def kernel_locations(task_lists: Sequence[TaskList]) -> list[tuple[Mapping[str, Any], str]]:
    """Each kernel task's attributes and location: the kernel door receives
    a task's own attributes, so they name the task an underflow was in."""
    from geir.backends.task_list import Kernel
    return [(t.attributes, t.loc) for task_list in task_lists for _, _, t in task_list.all_tasks()
            if isinstance(t, Kernel)]


def _described(settings: RunSettings) -> str:
    if settings.inputs is None:
        return f"random, seed {settings.seed}"
    return os.fspath(settings.inputs) if isinstance(settings.inputs, (str, os.PathLike)) else "given"


def _add_compile_report(report: dict[str, Any], text: str, compiled: CompileReport, settings: RunSettings,
                        arrays: Mapping[str, np.ndarray] | None = None) -> str:
    """Add the pipeline, the speed-up over single stream, the graph's bound
    and the memory plan against its lower bound to ``report`` and to its ``text``."""
    from geir.backends.emulator import emulate
    from geir.backends.emulator.report import _bytes
    lines = text.splitlines(keepends=True)
    report["pipeline"] = compiled.pipeline
    lines.insert(0, f"pipeline        {compiled.pipeline}\n")
    after: dict[str, list[str]] = {}
    makespan = float(report["makespan_us"])
    if compiled.single_task_list is not None:
        # Timing only, no race check: the figure compared is the makespan; with
        # control tasks, on the same inputs (branches and trips are values)
        from geir.backends.task_list import CONTROL_TASKS
        branches = arrays is not None and any(t.kind in CONTROL_TASKS for st in compiled.single_task_list.streams
                                              for t in st.tasks)
        options = _emulator_options(settings, timing_only=not branches, check_races=False, progress=False)
        single = float(emulate(compiled.single_task_list, arrays if branches else None, options)
                       .report["makespan_us"])
        speedup = single / makespan if makespan > 0 else None
        report["single_stream"] = {"makespan_us": single, "speedup": round(speedup, 4) if speedup else None}
        shown = f"{speedup:.2f}x" if speedup is not None else "n/a"
        after["makespan / LB"] = [f"speed-up over single stream  {shown} (single {single:.1f} us)\n"]
    else:
        report["single_stream"] = None
    bound = compiled.bound
    report["graph_lower_bound"] = bound
    if bound is not None and bound["bound_us"] > 0:
        # the emulator's bound is of the program that ran; this one holds for any plan
        after.setdefault("makespan / LB", []).append(_graph_bound_line(bound, makespan))
    memory = compiled.memory
    if memory is not None:
        arena, lower = memory["arena_bytes"], memory["lower_bound"]
        ratio = arena / lower if lower else None
        report["memory_plan"] = {"algorithm": memory["algorithm"], "arena_bytes": arena, "lower_bound_bytes": lower,
                                 "lower_bound_exact": memory["lower_bound_exact"],
                                 "over_lower_bound": round(ratio, 4) if ratio is not None else None,
                                 "single_stream_bytes": memory["single_stream"], "no_reuse_bytes": memory["no_reuse"],
                                 "zero_copy_bytes": memory["zero_copy"], "events_added": memory["events_added"]}
        exact = "exact" if memory["lower_bound_exact"] else "block-order peak"
        regions = memory.get("regions")
        report["memory_plan"]["region_bytes"] = regions
        # a control op's regions are one buffer of its node: say how much of the plan they hold
        held = f", control-flow regions {_bytes(regions)} of it" if regions is not None else ""
        after["arena"] = [f"memory plan     {_bytes(arena)} without I/O{held}; lower bound {_bytes(lower)}, {exact}: "
                          f"{f'{ratio:.3f}x' if ratio is not None else 'n/a'} ({memory['algorithm']}; single-stream "
                          f"plan {memory['single_stream']} B, no reuse {memory['no_reuse']} B)\n"]
    else:
        report["memory_plan"] = None
        after["arena"] = ["memory plan     none: the pipeline has no reuse-memory (fresh buffers, no lower bound)\n"]
    out: list[str] = []
    for line in lines:
        out.append(line)
        for key in list(after):
            if line.startswith(key):
                out += after.pop(key)
    for rest in after.values():  # a line the text did not have: at the end
        out += rest
    return "".join(out)


def _graph_bound_line(bound: dict[str, Any], makespan: float) -> str:
    """The report's graph-bound line: loops counted at their trips, or the
    bound per trip (no ratio) when a loop's trip count is a value."""
    trips = bound.get("trips") or {}
    per_trip = bound.get("per_trip") or []
    counted = f"; loops at {', '.join(str(t) for t in trips.values())} trips" if trips else ""
    head = (f"graph bound             {bound['bound_us']:.3f} us{' per trip' if per_trip else ''}  "
            f"({bound['bound_by']}; any plan on {bound['streams']} streams{counted})")
    if per_trip:
        return (f"{head}: one trip of each loop whose trip count is a value ({', '.join(per_trip)}), "
                f"not a bound of the run\n")
    return f"{head}: makespan {makespan / bound['bound_us']:.3f}x it\n"


def _run_gears(module: Module, settings: RunSettings) -> RunReport:
    """Run the smallest gear that fits the inputs: a gear graph compiled as any
    static graph is (the pipeline for the device, then lowering), a gear task
    list as written; outputs trimmed back to the real sizes; the report's
    ``gear`` says which ran."""
    from geir.backends.io_bindings import check_inputs, load_inputs
    from geir.backends.shape_gears import (bound_signature, gear_description, gear_ops, gear_signature, keep_only,
                                           select_gear, trim_outputs)
    from geir.report import output_summary
    where = settings.inputs_named if settings.inputs is not None else _input_shape_bindings(settings)[1]
    if settings.inputs is None:  # sized by --input-shape: random inputs of that size
        from geir.backends.io_bindings import random_inputs, shape_views
        signature = bound_signature(module, _input_shape_bindings(settings)[0])
        arrays = shape_views(signature)  # sizes only: a size no gear fits is said before any is drawn
        if not settings.timing_only:
            select_gear(module, arrays, where, pad=False)
            arrays = random_inputs(signature, settings.seed)
    elif isinstance(settings.inputs, (str, os.PathLike)):
        arrays = load_inputs(os.fspath(settings.inputs), gear_signature(module))
    else:
        arrays = check_inputs(dict(settings.inputs or {}), gear_signature(module), "inputs")
    # a timing-only run takes no values: nothing is padded to the gear's size
    selection = select_gear(module, arrays, where, pad=not settings.timing_only)
    given = None if settings.timing_only else selection.inputs
    padded = attrs.evolve(settings, inputs=given, input_shapes=None)
    others = _largest_gear_plans(module, selection, padded) if selection.model.name == "ge.graph" else {}
    count = len(gear_ops(module))
    keep_only(module, str(selection.model.get_attr("sym_name")))  # the gear that runs, alone in its module
    if selection.model.name == "ge.graph":  # a static graph now: run as one
        from geir.backends.model_compile import needs_host
        report = run_prepared(Prepared(module, "host" if needs_host(module) else "graph", given), padded)
    else:
        report = emulate_module(module, padded, None, given)
    report.fields["gear"] = gear_description(selection)
    _add_gears_memory(report, selection, others, count)
    if report.input_arrays is not None:  # the inputs as given (a timing-only run took none)
        report.fields["inputs"] = _described(settings)
    if report.outputs is not None:
        report.outputs = trim_outputs(selection, report.outputs)
        report.fields["outputs"] = output_summary(report.outputs)
    report.input_arrays = None if report.input_arrays is None else arrays
    if settings.inputs is None and report.input_arrays is not None:
        report.random_seed = settings.seed
    report.body = f"gear: {report.fields['gear']}\n" + report.body
    return report


def _largest_gear_plans(module: Module, selection: "Selection", settings: RunSettings) -> dict[str, int | None]:
    """The memory plans (bytes without I/O, None when the pipeline plans none) of
    the gears GE sizes the model's memory by (:func:`largest_gears`), each
    compiled as the run compiles its own gear, but for the gear that runs."""
    from geir.backends.shape_gears import gear_label, keep_only, largest_gears
    plans: dict[str, int | None] = {}
    for gear in largest_gears(module):
        if gear is selection.model:
            continue
        alone = module.clone()
        keep_only(alone, str(gear.get_attr("sym_name")))
        compiled = compile_for_run(alone, settings, compare=False)
        plans[gear_label(gear)] = (None if compiled is None or compiled.memory is None
                                   else int(compiled.memory["arena_bytes"]))
    return plans


def _add_gears_memory(report: RunReport, selection: "Selection", others: Mapping[str, int | None],
                      count: int) -> None:
    """``gears_memory`` and its line after the memory plan's: the largest plan of
    the gears GE sizes the model's memory by (the running gear's among them),
    which a gear module holds on the device whichever gear runs. Absent for a
    single gear, lowered gears (planned by ge-opt) or a pipeline with no plan."""
    from geir.backends.emulator.report import _bytes
    from geir.backends.shape_gears import gear_label
    plan = report.fields.get("memory_plan")
    if count < 2 or not isinstance(plan, dict) or any(v is None for v in others.values()):
        return
    plans = {gear_label(selection.model): int(plan["arena_bytes"]), **{k: int(v) for k, v in others.items()
                                                                        if v is not None}}
    gear, size = max(plans.items(), key=lambda kv: kv[1])
    report.fields["gears_memory"] = {"plan_bytes": size, "gear": gear, "gears": count}
    whose = "this gear's plan" if gear == gear_label(selection.model) else f"the plan of gear {gear}"
    line = (f"gears memory    {_bytes(size)} without I/O: {whose}, the largest of the {count} gears; GE lays every "
            f"gear's memory blocks into the largest gear's, so the model holds at least this whichever gear runs\n")
    body = report.body.splitlines(keepends=True)
    at = next((i + 1 for i, l in enumerate(body) if l.startswith("memory plan ")), len(body))
    body.insert(at, line)
    report.body = "".join(body)


def _run_host_driven(module: Module, settings: RunSettings, inputs: Mapping[str, np.ndarray] | None) -> RunReport:
    """A graph with ge.if / ge.loop / ge.scan or a data-dependent size: the host
    runs the control flow and launches the static segments between, and each
    data-dependent op alone at the size it gives (GE's runtime v2)."""
    from geir.backends.host_control import HostDriver
    from geir.backends.io_bindings import graph_signature, random_inputs
    from geir.report import RunReport, output_summary
    if settings.timing_only:
        raise DiagnosticError(Diagnostic("error", "--timing-only cannot run control flow or data-dependent sizes: "
                                                  "the host reads predicates, trip counts and sizes from the numerics"))
    if settings.host_timed:
        raise DiagnosticError(Diagnostic("error", "--host-timed times one synchronous model execution; a graph with "
                                                  "control flow or data-dependent sizes runs as several host-driven "
                                                  "launches"))
    from geir.absent_weights import require_weights
    require_weights(module, "a host-driven run (control flow or data-dependent sizes)", timing_only=False)
    options = _emulator_options(settings)
    from geir.backends.kernels.underflow import first_overflow, located, watch_underflow
    from geir.backends.model_compile import host_reason
    reason = host_reason(module)
    with segment_pipeline(settings) as plan:  # the pipeline's diagnostics first
        _apply_input_passes(module, settings)
        seed = None
        if inputs is None:
            inputs = random_inputs(graph_signature(module), settings.seed)
            seed = settings.seed
        precision_mode, mode_warnings = plan.retype(module, settings.allow_unregistered)
        driver = HostDriver(module, options, passes=plan.segment_passes)
        with watch_underflow() as watch, _noting_random_inputs(seed):
            outputs = driver.run(inputs)
    for w in driver.warnings:  # each segment's compile may repeat one
        if w not in mode_warnings:
            mode_warnings.append(w)
    # the device's kernels only: a data-dependent op the host also runs for its size is counted once
    kernels = kernel_locations(driver.task_lists())
    underflow = located(watch, kernels)
    launches = driver.launches
    found = sorted({f for launch in launches for f in launch.findings})
    device, mode = settings.device, settings.mode
    fields = {"control_flow": "host-driven launches (GE runtime v2)", "device": device, "mode": mode,
              "pipeline": plan.text,
              "launches": [{"segment": l.segment, "at": l.at, "tasks": l.tasks, "streams": l.streams,
                            "makespan_us": l.makespan_us, "findings": l.findings} for l in launches],
              "segments": len({l.segment for l in launches}),
              "device_time_us": sum(l.makespan_us for l in launches), "findings": found,
              "outputs": output_summary(outputs),
              "inputs": settings.inputs if isinstance(settings.inputs, str) else
              ("given" if settings.inputs is not None else f"random, seed {settings.seed}")}
    if precision_mode is not None:
        fields["precision_mode"] = precision_mode
    lines = [f"host-driven run on {device} ({mode} mode per launch; control flow and data-dependent sizes on the "
             f"host, as GE's runtime v2): {len(launches)} launch(es) of {fields['segments']} segment(s), "
             f"device time {fields['device_time_us']:.3f} us (sum of makespans)\n",
             f"pipeline        {plan.text} (each known-shape segment; the others on one stream as the "
             f"graph-wide passes left them)\n"]
    if reason is not None:
        fields["host_driven_because"] = reason
        lines.insert(1, f"host-driven at  {reason}\n")
    for i, l in enumerate(launches[:20]):
        lines.append(f"  launch {i:<4} {l.segment:<10} {l.tasks:>5} tasks on {l.streams} stream{'s' if l.streams != 1 else ' '} "
                     f"{l.makespan_us:>10.3f} us  "
                     f"from {l.at or '?'}{'  ' + ', '.join(l.findings) if l.findings else ''}\n")
    if len(launches) > 20:
        lines.append(f"  ... {len(launches) - 20} more launches\n")
    lines.append(f"findings        {', '.join(found) or 'none'}\n")
    return RunReport(fields, "".join(lines), outputs, None, mode_warnings, seed, dict(inputs), underflow,
                     watch.overflowed, first_overflow(watch, kernels))


@attrs.frozen
class SegmentPlan:
    """How a host-driven run compiles: the graph-wide passes (``precision-mode``:
    GE retypes the whole graph before it splits it, so the host's ops and the
    values between launches take the types the device computes in), the passes
    each known-shape segment goes through, and the pipeline's text."""

    graph_passes: list[Any]
    segment_passes: list[Any]
    text: str

    def retype(self, module: Module, allow_unregistered: bool = False) -> tuple[str | None, list[Diagnostic]]:
        """Run the graph-wide passes on ``module``: the precision mode applied
        (None without one) and the passes' warnings."""
        if not self.graph_passes:
            return None, []
        from geir.backends.model_compile import compile_module
        from geir.passes.precision_mode import resolve_mode
        last = self.graph_passes[-1]
        return (resolve_mode(last.precision_mode, last.device),
                compile_module(module, self.graph_passes, allow_unregistered).warnings)


@contextlib.contextmanager
def segment_pipeline(settings: RunSettings) -> Iterator[SegmentPlan]:
    """The run's pipeline (configured for its device, stream budget and precision
    mode) split as a host-driven run uses it (:class:`SegmentPlan`), as GE
    compiles a dynamic graph; valid inside the ``with`` (a device with
    ``--device-param`` overrides lives in a temporary file until then)."""
    from geir.backends.model_compile import pass_device, plan_pipeline, resolve_device
    from geir.passes.insert_aipp import InsertAipp
    from geir.passes.precision_mode import PrecisionMode
    device_name, profile = resolve_device(settings.device, list(settings.device_params))
    text = _with_precision_mode(settings.pipeline, settings.precision_mode)
    with pass_device(device_name, profile, list(settings.device_params)) as device:
        plan = plan_pipeline(text, settings.streams, device, device_name, list(settings.device_params),
                             settings.mode)
        # AIPP preprocesses the model's input once (_apply_input_passes); the precision mode retypes the graph once
        yield SegmentPlan([p for p in plan.passes if isinstance(p, PrecisionMode)],
                          [p for p in plan.passes if not isinstance(p, (InsertAipp, PrecisionMode))], plan.text)


def _computes_in_f32(module: Module) -> bool:
    """Whether ``module`` computes in f32 (or f64, or bf16) anywhere: a value of
    a float type a precision mode may run in f16. A model exported in f16 has
    none, and no precision mode keeps a wider type for it."""
    from geir.types import BF16, F32, F64, TensorType
    return any(isinstance(v.type, TensorType) and v.type.element_type in (F32, F64, BF16)
               for op in module.walk() for v in (*op.results, *(a for r in op.regions for b in r.blocks
                                                                for a in b.arguments)))


def _apply_precision_mode(module: Module, settings: RunSettings) -> tuple[str | None, list[Diagnostic]]:
    """Run the ``precision-mode`` pass alone on a graph the interpreter runs
    when a precision mode is asked for, so it computes in the types that mode
    gives; the mode (or None) and the pass's warnings."""
    if settings.precision_mode is None or not any(op.name == "ge.graph" for op in module.body.ops):
        return None, []
    _require_precision_mode_pass()
    from geir.backends.model_compile import compile_module
    from geir.passes.precision_mode import PrecisionMode
    return settings.precision_mode, compile_module(module, [PrecisionMode(settings.precision_mode, settings.device)],
                                                   settings.allow_unregistered).warnings


@attrs.define
class Interpreted:
    """A run of the reference interpreter (``ge-run --interpret``): the outputs
    by name, the inputs it ran on (``random_seed``: drawn from it, else None),
    the precision mode applied first (None: the graph as written) and the ops
    whose f16 results flushed values to zero, as ``(loc, Underflow)`` pairs in
    the order they ran, as :attr:`~geir.report.RunReport.f16_underflow`, and
    how many values overflowed f16 (:attr:`~geir.report.RunReport.f16_overflowed`)."""

    outputs: dict[str, np.ndarray]
    input_arrays: dict[str, np.ndarray]
    random_seed: int | None = None
    precision_mode: str | None = None
    f16_underflow: list[tuple[str, Any]] = attrs.Factory(list)
    #: values the ops' f16 results made infinite or NaN where f32 stays finite (None: not watched)
    f16_overflowed: int | None = None
    #: the first op whose f16 results overflowed, ``(loc, Underflow)``
    f16_first_overflow: tuple[str, Any] | None = None
    #: whether the model as loaded computes in f32 anywhere
    model_f32: bool = True
    #: the precision-mode pass's warnings (constants it flushed to zero in f16)
    warnings: list[Diagnostic] = attrs.Factory(list)


def interpret_prepared(prepared: Prepared, settings: RunSettings) -> Interpreted:
    """Run a model prepared to ``interpret`` with the reference interpreter,
    op by op as written, after ``precision-mode`` when ``settings`` ask for
    a precision mode; random inputs from ``settings.seed`` when none are given.

    Raises:
        DiagnosticError: a missing or misshapen input, an op that fails.
    """
    from geir.backends.interpreter import Interpreter
    from geir.backends.io_bindings import graph_signature, random_inputs
    from geir.backends.kernels.underflow import first_overflow, located, watch_underflow
    from geir.passes.lower_to_tasks import loc_text
    module = prepared.module
    model_f32 = _computes_in_f32(module)
    mode, mode_warnings = _apply_precision_mode(module, settings)
    inputs, seed = prepared.inputs, None
    if inputs is None:
        inputs, seed = random_inputs(graph_signature(module), settings.seed), settings.seed
    interpreter = Interpreter(module, graph_name(module))
    with watch_underflow() as watch, _noting_random_inputs(seed):
        outputs = interpreter.run(inputs)
    ops = [(op.attributes, loc_text(op.location)) for op in interpreter.graph.walk()]
    return Interpreted(outputs, dict(inputs), seed, mode, located(watch, ops), watch.overflowed,
                       first_overflow(watch, ops), model_f32, mode_warnings)


def run_warnings(report: RunReport | Interpreted, settings: RunSettings) -> list[Diagnostic]:
    """The warnings a run's numbers call for: an output holding NaN or
    infinity, an op whose f16 results flushed values to zero; each names the
    precision mode the model computed under (when one was applied and f16 is
    to blame) and the mode that keeps f32."""
    from geir.backends.device_profile import load_profile
    from geir.passes.precision_mode import PrecisionMode
    from geir.report import UNDERFLOW_SHARE, keep_f32_hint, non_finite_warnings, underflow_warnings
    if report.outputs is None:
        return []
    profile = load_profile(settings.device, list(settings.device_params))
    if isinstance(report, Interpreted):
        mode = report.precision_mode
    elif report.fields.get("pipeline"):
        mode = settings.precision_mode or profile.default_precision_mode
    else:
        mode = report.fields.get("precision_mode")
    keep_f32 = keep_f32_hint(profile.name, profile.cube_fp32)
    # random floats make a fine image or embedding; a mask, an index or a length is an integer
    integers = any(a.dtype.kind in "iub" for a in (report.input_arrays or {}).values())
    # what f16 flushed and the warnings show: an op's results, or a constant the precision mode converted
    flushed = (any(count.share >= UNDERFLOW_SHARE for _, count in report.f16_underflow)
               or any(d.origin == PrecisionMode.name for d in report.warnings))
    return (non_finite_warnings(report.outputs, mode, keep_f32, report.f16_overflowed,
                                report.random_seed if integers else None, report.f16_first_overflow,
                                report.model_f32, flushed)
            + underflow_warnings(report.f16_underflow, mode, keep_f32, report.model_f32))
