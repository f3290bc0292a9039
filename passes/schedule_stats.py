"""``schedule-stats``: what a schedule achieves, per graph, printed to stderr
(as MLIR's print passes write to ``llvm::errs()``); the IR is unchanged.

For each ``ge.graph``: task ops and dependencies; the width (largest set of ops
no dependency orders: exact by Dilworth's theorem on graphs up to 20,000 ops, else
the widest depth level, a lower bound, marked ``>=``); streams used; cross-stream
dependencies, the events GE's rule would insert for this stream assignment and
the events present; the critical path by the cost model; the lower bound of
any plan on at least as many streams (:mod:`~geir.passes.scheduling.lower_bound`,
with the term that binds it); and, when the graph lowers, the emulator's
makespan, its own bound of the program it ran, the makespan over the graph's
bound, and races.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import attrs

from geir.backends.device_profile import load_profile
from geir.diagnostics import DiagnosticError
from geir.module import Module
from geir.operation import Operation
from geir.passes.insert_events import ge_rule_event_count, stream_attr
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.passes.partition_streams import DEFAULT_MAX_STREAMS
from geir.passes.scheduling.lower_bound import GraphBound, graph_lower_bound
from geir.passes.scheduling.op_graph import OpGraph
from geir.passes.scheduling.problem import ScheduleProblem

__all__ = ["ScheduleStats", "schedule_stats", "scheduled_graph_bound"]


def scheduled_graph_bound(og: OpGraph, device: str = "910B2", warm_weights: bool = False) -> tuple[GraphBound, int]:
    """The lower bound of any plan of ``og`` within GE's default stream budget
    or the streams its ops are on now, whichever is more, and that budget
    (``warm_weights``: the weights are in L2 from a run just before)."""
    budget = max(DEFAULT_MAX_STREAMS, len({stream_attr(op) for op in og.ops}))
    return graph_lower_bound(ScheduleProblem.build(og, budget, device, warm_weights=warm_weights)), budget


def schedule_stats(graph: Operation, device: str = "910B2") -> dict[str, Any]:
    """The statistics of ``graph`` as it is scheduled now (a JSON-ready dict)."""
    og = OpGraph.build(graph)
    streams = [stream_attr(op) for op in og.ops]
    bound, budget = scheduled_graph_bound(og, device)
    block = og.block
    records = sum(1 for op in block.ops if op.name == "ge.record_event")
    width, exact = og.width()
    stats: dict[str, Any] = {
        "graph": str(graph.get_attr("sym_name", "")),
        "ops": og.n,
        "dependencies": og.num_edges,
        "width": width,
        "width_exact": exact,
        "streams": len(set(streams)),
        "cross_stream_dependencies": sum(1 for p, c in og.edges() if streams[p] != streams[c]),
        "events_ge_rule": ge_rule_event_count(og, streams),
        "events": records,
        "critical_path_us": round(bound.critical_path_us, 3),
        "graph_lower_bound_us": round(bound.bound_us, 3),
        "graph_lower_bound_by": bound.binding,
        "graph_lower_bound_streams": budget,
    }
    try:
        from geir.backends.emulator import EmulatorOptions, emulate
        from geir.passes.lower_to_tasks import graph_task_list
        tl = graph_task_list(graph)
        report = emulate(tl, None, EmulatorOptions(device=load_profile(device), timing_only=True,
                                                   progress=False)).report
        stats["makespan_us"] = report["makespan_us"]
        stats["lower_bound_us"] = report["lower_bound_us"]
        stats["races"] = report["races_total"]
    except DiagnosticError as e:
        stats["makespan_us"] = None
        stats["not_emulated"] = e.diagnostics[0].message if e.diagnostics else "cannot be lowered"
    return stats


def _format(stats: dict[str, Any]) -> str:
    w = ("" if stats["width_exact"] else ">=") + str(stats["width"])
    lines = [f"=== schedule stats: @{stats['graph']} ===",
             f"  ops                         {stats['ops']}",
             f"  dependencies                {stats['dependencies']}",
             f"  width (max antichain)       {w}",
             f"  streams                     {stats['streams']}",
             f"  cross-stream dependencies   {stats['cross_stream_dependencies']}",
             f"  events (GE's rule)          {stats['events_ge_rule']}",
             f"  events (present)            {stats['events']}",
             f"  critical path               {stats['critical_path_us']:.3f} us",
             f"  graph lower bound           {stats['graph_lower_bound_us']:.3f} us ({stats['graph_lower_bound_by']}; "
             f"any plan on {stats['graph_lower_bound_streams']} streams)"]
    if stats.get("makespan_us") is not None:
        ratio = stats["makespan_us"] / stats["lower_bound_us"] if stats["lower_bound_us"] else 1.0
        graph_ratio = stats["makespan_us"] / stats["graph_lower_bound_us"] if stats["graph_lower_bound_us"] else 1.0
        lines += [f"  makespan (emulated)         {stats['makespan_us']:.3f} us",
                  f"  lower bound                 {stats['lower_bound_us']:.3f} us",
                  f"  makespan / lower bound      {ratio:.3f}",
                  f"  makespan / graph bound      {graph_ratio:.3f}",
                  f"  races                       {stats['races']}"]
    else:
        lines.append(f"  makespan                    not emulated: {stats['not_emulated']}")
    return "\n".join(lines) + "\n"


@attrs.define
class ScheduleStats(ModulePass):
    """Print each graph's schedule statistics."""

    name = "schedule-stats"
    summary = "print ops, width, streams, events (ours and GE's rule), critical path, emulated makespan"

    device: str = option("910B2", "device profile for costs and the emulator")
    json: bool = option(False, "print one JSON object per graph instead of a table")
    def run(self, module: Module, ctx: PassContext) -> None:
        for graph in module.graphs():
            stats = schedule_stats(graph, self.device)
            sys.stderr.write(json.dumps(stats) + "\n" if self.json else _format(stats))
