"""What running a model does before it emulates (:func:`geir.run_model`,
``ge-run``): load a model (ONNX through the importer, IR text, task-list JSON), pick
the device, and compile a graph that is not yet scheduled with a pass
pipeline — ``ge-default`` unless one is given — so a model goes to a measured
schedule in one call.

The pipeline gets ge-run's device (the passes' ``device=`` option, so the costs
the scheduler optimises are the emulator's) and ``--streams N`` as
``max-streams=N``. The same pipeline with ``strategy=single`` gives the
single-stream variant the report compares against. ``reuse-memory``'s
``ge.memory`` attribute (its arena lower bound) is read after the pass that sets
it, before ``lower-to-tasks`` turns the graph into a task list.

This module is light (no numpy at import): ``ge-run`` imports it to build its
argument parser.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from typing import TYPE_CHECKING, Any, Iterator

import attrs

from geir.diagnostics import error as _error

if TYPE_CHECKING:
    from geir.diagnostics import SourceManager

__all__ = ["DEFAULT_PIPELINE", "Compiled", "CompileReport", "PipelinePlan", "resolve_device",
           "pass_device", "load_model", "needs_pipeline", "needs_host", "sink_control_problem", "host_reason_in",
           "plan_pipeline", "compile_module", "task_list_of"]

#: the pipeline ``ge-run`` runs on a graph nothing has scheduled yet
DEFAULT_PIPELINE = "ge-default"


def resolve_device(name_or_path: str, overrides: list[str]) -> tuple[str, Any]:
    """(the device as the passes take it, the loaded profile). A shipped profile
    is matched case-insensitively (``910b2``, ``Ascend910B2``) and named as its
    file is; anything else is a JSON path. An unknown name is a diagnostic
    listing the known ones (from :func:`load_profile`)."""
    from geir.backends.device_profile import available_profiles, load_profile
    wanted = name_or_path.lower().removeprefix("ascend")
    canonical = next((n for n in available_profiles() if n.lower() == wanted), None)
    if canonical is not None and not os.path.exists(name_or_path):
        return canonical, load_profile(canonical, overrides)
    return name_or_path, load_profile(name_or_path, overrides)


@contextlib.contextmanager
def pass_device(device: str, profile: Any, overrides: list[str]) -> Iterator[str]:
    """The device as the passes' ``device=`` option takes it: ``device`` itself,
    or — with ``--device-param`` overrides — a temporary JSON file of the
    overridden ``profile``, so the costs the passes schedule by are the numbers
    the emulator runs with. The file is removed on exit."""
    if not overrides:
        yield device
        return
    data = {"name": profile.name, "soc": profile.soc, "description": profile.description,
            "params": {k: {"value": v, "source": profile.sources.get(k) or "ge-run --device-param"}
                       for k, v in profile.values.items()}}
    fd, path = tempfile.mkstemp(prefix="ge-run-device-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        yield path
    finally:
        os.unlink(path)


def load_model(path: str, allow_unregistered: bool,
               sources: SourceManager | None = None) -> tuple[Any, str, str | None]:
    """(module, name for diagnostics, its text or None for an ONNX model). An
    ``.onnx`` file is imported with its dynamic dims kept (``--input-shape`` and
    ``--inputs`` bind them afterwards, as for IR), and so are the bytes of an ONNX
    model under another name (a pipe, standard input; external weights are then
    absent: timing-only); a task-list JSON is read as the ``rt`` module it
    describes; anything else is parsed and verified as IR, its text
    added to ``sources`` (a :class:`~geir.diagnostics.SourceManager`) first, so
    that a diagnostic can show its line."""
    if path.lower().endswith(".onnx"):
        if not os.path.isfile(path):
            raise FileNotFoundError(2, "no such file", path)
        return _onnx_model(path, path), path, None
    from geir.source_text import decode_source, is_onnx_model, read_source_bytes, utf8_text
    name, data = read_source_bytes(path)
    if isinstance(data, bytes):
        try:
            text = utf8_text(data)
        except UnicodeDecodeError:  # IR text is UTF-8; a model's bytes seldom are
            if is_onnx_model(data):
                return _onnx_model(data, name), name, None
            text = decode_source(data, name)  # says where the text is not UTF-8
    else:
        text = data
    if sources is not None:
        from geir.diagnostics import SourceFile
        sources.add(SourceFile(name, text))
    if _is_json(text):  # the task-list JSON ge-translate --export-tasks-json writes
        from geir.backends.task_json import json_to_module
        return json_to_module(text, name), name, text
    from geir.parser import parse_module
    from geir.verifier import verify
    module = parse_module(text, name, allow_unregistered=allow_unregistered)
    verify(module, allow_unregistered=allow_unregistered)
    return module, name, text


def _is_json(text: str) -> bool:
    """Whether ``text`` is a JSON object: IR text never starts with ``{`` but for
    the ``{-#`` of a resource section."""
    start = text.lstrip()
    return start.startswith("{") and not start.startswith("{-#")


def _onnx_model(source: str | bytes, name: str) -> Any:
    """The module of the ONNX model ``source`` (a path or a model's bytes), its
    graph located at ``name``: the user named it, so a diagnostic about the whole
    graph (an input left dynamic) says that name, not the graph's own inside."""
    from geir.attributes import NameLoc
    from geir.onnx_importer import import_onnx
    module = import_onnx(source)
    for op in module.body.ops:
        if op.name == "ge.graph":
            op.location = NameLoc(name)
    return module


def needs_pipeline(module: Any) -> bool:
    """Whether ``module`` holds a graph nothing has scheduled: no ``rt.model``,
    and no op of ``@main``'s graphs on a stream, waiting on an event or given
    an arena offset. A scheduled graph (``ge-opt`` output, a hand-written
    schedule) runs as written, so a schedule under test is never redone."""
    if any(op.name == "rt.model" for op in module.body.ops):
        return False
    graphs = [op for op in module.body.ops if op.name == "ge.graph"]
    if not graphs:
        return False
    for graph in graphs:
        if "ge.arena_bytes" in graph.attributes:
            return False
        for op in graph.regions[0].blocks[0].ops:
            if "stream" in op.attributes or op.name in ("ge.record_event", "ge.wait_event"):
                return False
    return True


def needs_host(module: Any) -> bool:
    """Whether a graph needs the host between launches: a data-dependent size,
    or control flow the task sink cannot run (a loop with scan outputs, carried
    shapes that change, a scan over another axis, GE's dataflow control ops). ge-run
    runs it as host-driven launches (runtime v2), no pipeline; static ``ge.if``,
    ``ge.loop`` and ``ge.scan`` run in the task sink, as GE's runtime v1 runs static shapes."""
    from geir.passes.range_shapes import data_dependent_diagnostics
    return any(op.name == "ge.graph" and (sink_control_problem(op) is not None or data_dependent_diagnostics(op))
               for op in module.body.ops)


def host_reason(module: Any) -> str | None:
    """Why a graph needs the host between launches (:func:`needs_host`), said at
    the first op that does: ``loc: 'op' reason``; None when it does not."""
    from geir.passes.lower_to_tasks import loc_text
    for graph in module.body.ops:
        if graph.name != "ge.graph":
            continue
        found = host_reason_in(graph)
        if found is not None:
            why, location = found
            return f"{loc_text(location) if location is not None else '?'}: {why}"
    return None


def host_reason_in(graph: Any) -> tuple[str, Any] | None:
    """Why ``graph`` needs the host between launches and where: the first control
    op the task sink cannot run (``'op' reason`` at the op), else the first size
    that depends on values (its diagnostic's message and location); None when
    neither."""
    from geir.diagnostics import op_position
    from geir.passes.range_shapes import data_dependent_diagnostics
    control = _sink_control_reason(graph)
    if control is not None:
        op, why = control
        return f"'{op.name}' {why}", op_position(op)
    for d in data_dependent_diagnostics(graph)[:1]:
        return d.message, d.location
    return None


def sink_control_problem(graph: Any) -> Any:
    """The first control op of ``graph`` the task sink cannot run, or None."""
    control = _sink_control_reason(graph)
    return control[0] if control is not None else None


def _sink_control_reason(graph: Any) -> tuple[Any, str] | None:
    """The first control op of ``graph`` the task sink cannot run and why, or None."""
    from geir.passes.lower_control_flow import control_problems, is_control_op
    problems = {op: p for region in graph.regions for block in region.blocks
                for op, p in control_problems(block).items()}
    for op in graph.walk():
        if op is not graph and is_control_op(op):
            if op in problems:
                return op, problems[op]
            # a region value without a static shape (a branch the bound shapes do not fit)
            if any(not _static(r.type) for inner in op.walk() for r in inner.results):
                return op, "gives a value whose shape the bound inputs leave dynamic"
    return None


def _static(t: Any) -> bool:
    return bool(getattr(t, "is_static", True))


@attrs.define
class PipelinePlan:
    """The passes ge-run runs, and the same with ``strategy=single`` (None when
    no pass of the pipeline has a ``strategy``: nothing to compare)."""

    text: str  # as the report shows it
    passes: list[Any]
    single: list[Any] | None


_OPTION = re.compile(r"""(?<![\w-])(device|max-streams|max_streams)=('[^']*'|"[^"]*"|[^\s}]+)""")


def plan_pipeline(text: str | None, streams: int | None, device: str, shown_device: str | None = None,
                  overrides: list[str] = (), mode: str = "sink") -> PipelinePlan:  # type: ignore[assignment]
    """Parse ``text`` (default :data:`DEFAULT_PIPELINE`) and give every pass
    that declares them ``device`` and, with ``--streams``, ``max-streams``.
    ``shown_device`` names the device in the report (``device`` may be the
    temporary file of :func:`pass_device`), ``overrides`` its --device-param.
    Diagnostics: bad pipeline text, ``--streams`` below 1, ``--streams`` with a
    pipeline no pass of which has ``max-streams``, and a ``device=`` or
    ``max-streams=`` in the text that the command line contradicts."""
    from geir.passes.pipeline import PipelineError, parse_pipeline
    if streams is not None and streams < 1:
        raise _error(f"--streams must be at least 1, got {streams}")
    source = DEFAULT_PIPELINE if text is None else text
    try:
        passes = parse_pipeline(source)
    except PipelineError as e:
        raise _error(f"--pipeline '{source}': {e}", "ge-opt --list-passes lists the passes, their options "
                                                   "and the named pipelines") from None
    if not passes:
        raise _error(f"--pipeline '{source}' has no passes")
    shown_device = shown_device or device
    given = {k.replace("_", "-"): v.strip("'\"") for k, v in _OPTION.findall(source)}
    if "device" in given and (given["device"].lower() != shown_device.lower() or overrides):
        raise _error(f"--pipeline sets device={given['device']} but the emulator runs {shown_device}"
                     + (f" with --device-param {' '.join(overrides)}" if overrides else ""),
                     "drop device= from the pipeline (ge-run gives it --device) or pass --device "
                     f"{given['device']}")
    if streams is not None and "max-streams" in given and int(given["max-streams"], 0) != streams:
        raise _error(f"--streams {streams} contradicts max-streams={given['max-streams']} in --pipeline",
                     "give one of them")
    if streams is not None and not any(attrs.has(type(p)) and hasattr(p, "max_streams") for p in passes):
        raise _error(f"--streams {streams}: no pass of pipeline '{source}' has option max-streams",
                     "add partition-streams to the pipeline, or drop --streams")
    changes: dict[str, Any] = {"device": device}
    if mode != "sink":
        changes["mode"] = mode  # the cost strategy judges its plans in the runtime that will run them
    if streams is not None:
        changes["max_streams"] = streams
    passes = [_with(p, changes) for p in passes]
    # The default is shown as the text that reproduces it; a user's text with what ge-run added.
    options = _options_text({**changes, "device": shown_device})
    shown = f"{source} with {options}" if text is not None else f"{DEFAULT_PIPELINE}{{{options}}}"
    if overrides:
        shown += f" (and --device-param {' '.join(overrides)})"
    single = None
    if any(hasattr(p, "strategy") for p in passes):
        # GE's automatic multi-stream mode is refused with single-stream mode: the baseline drops it
        single = [_with(p, {"strategy": "single", "multi_stream_parallel_mode": ""}) for p in passes]
    return PipelinePlan(shown, passes, single)


def _options_text(changes: dict[str, Any]) -> str:
    from geir.passes.pass_base import option_value_text
    return " ".join(f"{k.replace('_', '-')}={option_value_text(v)}" for k, v in sorted(changes.items()))


def _with(p: Any, changes: dict[str, Any]) -> Any:
    """``p`` with the fields of ``changes`` it declares (attrs passes: their fields are their options)."""
    mine = {k: v for k, v in changes.items() if hasattr(p, k)}
    return attrs.evolve(p, **mine) if mine else p


@attrs.define
class Compiled:
    """A module after ge-run's pipeline, and what ``reuse-memory`` said about
    the main graph's arena (``ge.memory`` with ``arena_bytes``; None without
    reuse-memory)."""

    module: Any
    memory: dict[str, Any] | None
    warnings: list[Any] = attrs.Factory(list)  # the passes' warnings (remarks are dropped)
    #: the main graph's lower bound over any stream plan, taken before it was lowered
    bound: dict[str, Any] | None = None


@attrs.define
class CompileReport:
    """What the report says of ge-run's compilation: the pipeline as shown, the
    memory plan's figures, and the single-stream variant's task list (None:
    ``--no-compare``, or no pass of the pipeline has a ``strategy``)."""

    pipeline: str
    memory: dict[str, Any] | None
    single_task_list: Any
    #: :attr:`Compiled.bound` of the multi-stream build
    bound: dict[str, Any] | None = None
    #: the passes' warnings (diagnostics)
    warnings: list[Any] = attrs.Factory(list)


def compile_module(module: Any, passes: list[Any], allow_unregistered: bool = False,
                   copy_first: bool = False, device: str | None = None, warm_l2: bool = False) -> Compiled:
    """Run ``passes`` on ``module`` (a clone of it with ``copy_first``),
    keeping the last ``ge.memory`` the graph carried before it was lowered and,
    with ``device``, the graph's lower bound on it (:func:`graph_bound`; of a
    run after a warm-up with ``warm_l2``)."""
    from geir.passes.pass_base import PassContext
    from geir.passes.pass_manager import PassManager
    target = module.clone() if copy_first else module
    snapshot = _graph_snapshot(device, warm_l2)
    ctx = PassContext()
    PassManager(list(passes), allow_unregistered=allow_unregistered, instrumentations=[snapshot]).run(target, ctx)
    return Compiled(target, snapshot.memory, [d for d in ctx.diagnostics if d.severity == "warning"],
                    snapshot.bound)


def task_list_of(module: Any, allow_unregistered: bool = False) -> Any:
    """The task list of ``module``: its ``rt.model`` (``@main`` if several), or
    its graph lowered with ``lower-to-tasks`` (in place)."""
    from geir.backends.rt_module import task_list_from_module
    has_model = any(op.name == "rt.model" for op in module.body.ops)
    if not has_model and any(True for _ in module.graphs()):
        from geir.passes.lower_to_tasks import LowerToTasks
        from geir.passes.pass_manager import PassManager
        PassManager([LowerToTasks()], allow_unregistered=allow_unregistered).run(module)
    names = [op.get_attr("sym_name") for op in module.body.ops if op.name == "rt.model"]
    return task_list_from_module(module, "main" if "main" in names else None)


def graph_bound(graph: Any, device: str, warm_l2: bool = False) -> dict[str, Any] | None:
    """The lower bound of any stream plan for ``graph`` on ``device``
    (:func:`~geir.passes.schedule_stats.scheduled_graph_bound`): ``bound_us``,
    ``bound_by``, ``streams``, the trips counted per loop (``trips``) and the
    loops counted once for a trip count that is a value (``per_trip``: then the
    bound is per trip). None when the graph's ops have no engines yet. With
    ``warm_l2``, of a run that follows a warm-up: the weights in L2 when they
    fit in it with the arena, as the emulator runs it."""
    from geir.passes.schedule_stats import scheduled_graph_bound
    from geir.passes.scheduling.op_graph import OpGraph
    og = OpGraph.build(graph)
    if not all(op.get_attr("engine") for op in og.ops):
        return None
    bound, budget = scheduled_graph_bound(og, device, warm_l2 and _fits_l2(graph, device))
    return {"bound_us": round(bound.bound_us, 3), "bound_by": bound.binding, "streams": budget,
            "trips": dict(bound.trips), "per_trip": list(bound.per_trip)}


def _fits_l2(graph: Any, device: str) -> bool:
    """Whether ``graph``'s weights (its constants) and its planned arena
    (``ge.arena_bytes``) fit in ``device``'s L2 together."""
    from geir.backends.device_profile import load_profile
    from geir.constants import CONSTANT_OPS
    from geir.passes.memory.lifetimes import tensor_bytes
    from geir.types import TensorType
    arena = graph.get_attr("ge.arena_bytes")
    if arena is None:
        return False
    weights = sum(tensor_bytes(r.type) for op in graph.walk() if op.name in CONSTANT_OPS for r in op.results
                  if isinstance(r.type, TensorType) and r.type.is_static)
    return weights + int(arena) <= load_profile(device)["l2_bytes"]


def _memory_of(module: Any) -> dict[str, Any] | None:
    """``ge.memory`` of the main graph as a dict, with ``arena_bytes``; None without it."""
    from geir.backends.io_bindings import main_or_first_graph
    graph = main_or_first_graph(module)
    if graph is None or "ge.memory" not in graph.attributes:
        return None
    out = dict(graph.get_attr("ge.memory"))
    out["arena_bytes"] = graph.get_attr("ge.arena_bytes")
    return out


def _graph_snapshot(device: str | None, warm_l2: bool = False) -> Any:
    """A pass instrumentation keeping the graph's ``ge.memory`` after each pass
    and, with ``device``, its lower bound before ``lower-to-tasks`` (which
    replaces the graph, and with it both); made on call so importing this
    module does not import the pass manager."""
    from geir.passes.pass_manager import PassInstrumentation

    class GraphSnapshot(PassInstrumentation):
        def __init__(self) -> None:
            self.memory: dict[str, Any] | None = None
            self.bound: dict[str, Any] | None = None

        def before_pass(self, p: Any, module: Any) -> None:
            if device is None or getattr(p, "name", "") != "lower-to-tasks":
                return
            from geir.backends.io_bindings import main_or_first_graph
            graph = main_or_first_graph(module)
            if graph is not None:
                self.bound = graph_bound(graph, device, warm_l2)

        def after_pass(self, p: Any, module: Any) -> None:
            found = _memory_of(module)
            if found is not None:
                self.memory = found

    return GraphSnapshot()
