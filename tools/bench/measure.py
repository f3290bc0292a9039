"""One run of a sweep: a model under one configuration, prepared as ge-default
prepares it for the device (or as imported), scheduled by the passes, lowered
and emulated; every figure comes from that run.

:func:`run_task` is what a worker executes (a process of the local pool or a
Dask worker): it must be a top-level function of an importable module so both
can pickle it by reference.
"""

from __future__ import annotations

import time
from typing import Any

from geir.diagnostics import DiagnosticError
from geir.tools.bench.sweep_config import Configuration

__all__ = ["preparation_text", "pipeline_text", "measure", "run_task", "model_digest", "INTERNAL_ERROR"]

#: how a row's ``error`` starts when the run hit a bug rather than a diagnostic
INTERNAL_ERROR = "internal error: "


def preparation_text(device: str, prepare: str) -> str:
    """The passes that prepare a graph for ``device`` before its streams are
    planned (``prepare``, one of the sweep's preparations): GE's preparation and
    optimisation (``ge-optimize``, the first part of ``ge-default``), or engines
    alone for a graph run as imported (``none``)."""
    from geir.passes.pass_base import option_value_text
    first = "ge-optimize" if prepare == "ge-optimize" else "assign-engines"
    return f"{first}{{device={option_value_text(device)}}}"


def pipeline_text(config: Configuration, time_limit: float) -> str:
    """The pass pipeline of ``config`` (without ``lower-to-tasks``: the task list
    is lowered without changing the module)."""
    from geir.passes.pass_base import option_value_text
    d = option_value_text(config.device)
    text = (f"partition-streams{{strategy={config.strategy} max-streams={config.max_streams} device={d} "
            f"time-limit={time_limit}}},insert-events{{device={d}}}")
    if config.memory != "none":
        text += f",reuse-memory{{algorithm={config.memory} device={d}}}"
    return text


def measure(text: str, config: Configuration, time_limit: float = 10.0, name: str = "bench.mlir") -> dict[str, Any]:
    """Prepare ``text``'s main graph (:func:`preparation_text`), schedule it under
    ``config`` and emulate it (timing only, race checker on). The figures, by
    column name:

    ``ops``; ``lb_us`` the schedule-independent lower bound
    (:func:`~geir.passes.scheduling.lower_bound.graph_lower_bound`) and what
    binds it (``lb_by``); ``makespan_us`` and the emulator's own bound of the
    program it ran (``emu_lb_us``); ``streams`` used, ``events`` inserted,
    ``ge_events`` (GE's rule on the same assignment); ``arena_bytes`` of the
    task list and the run's ``peak_live_bytes``; ``races``, ``deadlock``;
    ``compile_s`` of the passes from ``assign-engines`` on (wall clock, the only
    figure not from the emulator; the preparation before it is the same for
    every strategy).
    """
    from geir.backends.emulator import EmulatorOptions, emulate
    from geir.backends.io_bindings import main_or_first_graph
    from geir.parser import parse_module
    from geir.passes.insert_events import ge_rule_event_count, stream_attr
    from geir.passes.lower_to_tasks import graph_task_list
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    from geir.passes.scheduling.lower_bound import graph_lower_bound
    from geir.passes.scheduling.op_graph import OpGraph
    from geir.passes.scheduling.problem import ScheduleProblem

    module = parse_module(text, name)
    _refuse_host_driven(module, name)
    preparation = parse_pipeline(preparation_text(config.device, config.prepare))
    # compile_s counts from assign-engines on: what a graph run as imported runs too.
    engines = next(i for i, p in enumerate(preparation) if p.name == "assign-engines")
    PassManager(preparation[:engines], verify_each=False).run(module)
    t0 = time.perf_counter()
    PassManager(preparation[engines:], verify_each=False).run(module)
    assign_s = time.perf_counter() - t0
    graph = main_or_first_graph(module)
    # The bound needs engines but no streams: take it between the two passes.
    bound = graph_lower_bound(ScheduleProblem.build(OpGraph.build(graph), config.max_streams, config.device))
    t0 = time.perf_counter()
    PassManager(parse_pipeline(pipeline_text(config, time_limit)), verify_each=False).run(module)
    compile_s = assign_s + time.perf_counter() - t0
    graph = main_or_first_graph(module)
    og = OpGraph.build(graph)
    streams = [stream_attr(op) for op in og.ops]
    records = sum(1 for op in og.block.ops if op.name == "ge.record_event")
    options = EmulatorOptions(device=config.device, mode=config.mode, timing_only=True, progress=False)
    report = emulate(graph_task_list(graph), None, options).report
    makespan = float(report["makespan_us"])
    return {
        "ops": len(og.ops),
        "makespan_us": makespan,
        "lb_us": round(bound.bound_us, 3),
        "lb_ratio": round(makespan / bound.bound_us, 4) if bound.bound_us > 0 else None,
        "lb_by": bound.binding,
        "emu_lb_us": report["lower_bound_us"],
        "streams": len(set(streams)),
        "events": records,
        "ge_events": ge_rule_event_count(og, streams),
        "arena_bytes": int(report["arena_bytes"]),
        "peak_live_bytes": int(report["peak_live_bytes"]),
        "races": int(report["races_total"] or 0),
        "deadlock": report["deadlock"] is not None,
        "compile_s": round(compile_s, 4),
    }


_WARM_GRAPH = """ge.graph @main(%x: tensor<1x16xf16>) -> (tensor<1x16xf16>) {
  %a = ge.relu %x : (tensor<1x16xf16>) -> tensor<1x16xf16>
  %b = ge.sigmoid %a : (tensor<1x16xf16>) -> tensor<1x16xf16>
  %c = ge.tanh %a : (tensor<1x16xf16>) -> tensor<1x16xf16>
  %d = ge.add %b, %c : (tensor<1x16xf16>, tensor<1x16xf16>) -> tensor<1x16xf16>
  ge.return %d : (tensor<1x16xf16>) -> ()
}
"""
_warm: set[Configuration] = set()


def _warm_up(config: Configuration) -> None:
    """Run ``config`` once on a four-op graph in this process, so the first real
    run's ``compile_s`` does not include importing what the passes import
    lazily (the strategy's module, scipy's graph routines, the device profile)."""
    if config not in _warm:
        _warm.add(config)
        try:
            measure(_WARM_GRAPH, config, 1.0, "warm-up.mlir")
        except DiagnosticError:
            pass  # the real run reports it


def model_digest(text: str) -> str:
    """A short digest of a model's IR text (the results file's ``model_sha``)."""
    import hashlib
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _refuse_host_driven(module: Any, name: str) -> None:
    """A graph with control flow the task sink cannot run or data-dependent sizes
    runs as host-driven launches (``ge-run``), not as one stream plan: say so
    rather than fail in a pass. Sizes that shape arithmetic decides are folded
    first (in ``module``), as ``ge-run`` folds them."""
    from geir.attributes import NameLoc
    from geir.backends.model_compile import host_reason_in, needs_host
    from geir.diagnostics import Diagnostic
    from geir.passes.specialize_shapes import fold_static_shapes
    if not needs_host(module):
        return
    # what shape arithmetic alone decides is static, as ge-run folds it before it asks
    for graph in module.graphs():
        fold_static_shapes(graph, module)
    if not needs_host(module):
        return
    d = Diagnostic("error", "the graph has control flow or data-dependent sizes: it runs as host-driven launches, "
                            "which ge-bench does not plan (ge-run runs it)", NameLoc(name))
    for graph in module.graphs():
        found = host_reason_in(graph)
        if found is not None:
            d.attach_note(*found)
    raise DiagnosticError(d)


def _one_line(e: DiagnosticError) -> str:
    """A diagnostic as a row holds it: the first one's message, then each of its
    notes with its place, on one line (no source lines)."""
    return "; ".join(e.diagnostics[0].format().strip().splitlines()) if e.diagnostics else ""


def run_task(model: str, config: Configuration, text: str, time_limit: float, located: bool = False) -> dict[str, Any]:
    """The result row of ``model`` under ``config``: the configuration's columns,
    the figures of :func:`measure`, and ``error``: the diagnostic when the
    passes or the emulator rejected the model (a result: a resumed sweep does
    not retry it), or :data:`INTERNAL_ERROR` and the exception (retried).
    ``located``: ``text`` is the file ``model``, so the diagnostic points into
    it; else it is said at the model."""
    row: dict[str, Any] = {"model": model, "model_sha": model_digest(text), **config.columns()}
    _warm_up(config)
    try:
        row.update(measure(text, config, time_limit, f"{model}"))
        row["error"] = ""
    except DiagnosticError as e:
        if not located:
            from geir.tools.bench.models import said_at_the_model
            e = said_at_the_model(e, model)
        row["error"] = _one_line(e)
    except Exception as e:  # noqa: BLE001 - a bug in a pass must not end a long sweep
        # Recorded so the sweep goes on; a resumed sweep runs it again (it may be fixed by then).
        row["error"] = f"{INTERNAL_ERROR}{type(e).__name__}: {e}".splitlines()[0]
    return row
