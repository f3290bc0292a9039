"""Task lists for the scenarios: a ``ge`` module compiled through a pass
pipeline, without touching the caller's module (a scenario compiles one model
several ways, e.g. single-stream and multi-stream)."""

from __future__ import annotations

from geir.backends.task_list import TaskList
from geir.module import Module

__all__ = ["SINGLE_STREAM", "MULTI_STREAM", "ENGINE_STREAMS", "AS_SCHEDULED", "compile_task_list", "has_graph",
           "is_scheduled"]

#: the baseline: every op on one stream (no overlap of anything)
SINGLE_STREAM = "ge-default{strategy=single}"
#: the default multi-stream build (the cost strategy)
MULTI_STREAM = "ge-default"
#: GE's engine-based streams (LogicalStreamAllocator): DVPP, AI core, HCCL ...
#: on streams of their own, which is what lets iterations pipeline
ENGINE_STREAMS = "ge-default{strategy=ge}"
#: a graph whose streams and events are already in the IR: lowered as it is
AS_SCHEDULED = "lower-to-tasks"


def is_scheduled(module: Module) -> bool:
    """Whether ``module``'s graphs already carry events (``ge.record_event`` /
    ``ge.wait_event``): the stream passes would refuse them, so a scenario
    lowers them as they are."""
    from geir.passes.scheduling.op_graph import SYNC_OPS
    return any(op.name in SYNC_OPS for graph in module.graphs() for op in graph.regions[0].blocks[0].ops)


def has_graph(module: Module) -> bool:
    """Whether ``module`` holds a ``ge.graph`` (rather than an ``rt.model``)."""
    return any(True for _ in module.graphs())


def compile_task_list(source: Module | str, pipeline: str = MULTI_STREAM, name: str = "<scenario>") -> TaskList:
    """The task list of ``source``'s graph after ``pipeline`` (which must end in
    ``lower-to-tasks``, as the ``ge-default`` pipelines do). A module is copied
    through its text first, so the caller's module is left as it was; a module
    that already holds an ``rt.model`` is read as it is.

    Raises:
        DiagnosticError: the text does not parse, a pass fails, or the
            pipeline leaves no ``rt.model``.
    """
    from geir.backends.rt_module import task_list_from_module
    from geir.diagnostics import Diagnostic, DiagnosticError
    from geir.parser import parse_module
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import PipelineError, parse_pipeline

    if isinstance(source, Module):
        if not has_graph(source):
            return task_list_from_module(source)
        import io
        buffer = io.StringIO()
        source.print(debuginfo=True, file=buffer)
        text = buffer.getvalue()
        if source.source is not None:
            name = source.source.name
    else:
        text = source
    module = parse_module(text, name)
    try:
        passes = parse_pipeline(pipeline)
    except PipelineError as e:
        raise DiagnosticError(Diagnostic("error", f"scenario pipeline '{pipeline}': {e}")) from None
    PassManager(passes).run(module)
    return task_list_from_module(module)
