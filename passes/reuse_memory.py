"""``reuse-memory``: an arena offset for every intermediate tensor of each
scheduled ``ge.graph``, reusing bytes only where the schedule proves it safe.

The schedule is the one ``lower-to-tasks`` emits (``stream`` per op, block
order per stream, ``ge.record_event`` / ``ge.wait_event``). A tensor lives
from its producer's start to its last use's end; two tensors may share bytes
only when every use of one happens before the other's producer starts under
stream order and events (:mod:`geir.passes.memory.happens_before`) — the
multi-stream rule GE approximates with per-stream free lists and edge tables.

The regions of ``ge.if`` / ``ge.loop`` / ``ge.scan`` are planned with the graph
(:mod:`geir.passes.memory.region_plan`): each region's tensors reuse each
other's bytes, the branches of an ``if`` overlap (one runs), a loop body's
bytes serve every trip, and the control op's node holds them as one buffer.

A UB-fused chain's intermediate results (``fuse-ub``: read only by ops fused
into the same kernel) take no arena bytes — GE merges the chain into one node
before it assigns memory — and are planned in a space of their own, the
unified buffer, which the lowering keeps out of the arena (``ub``).

A concat that runs as no task takes its inputs inside its result where they
are dense slices of it (``concat-in-place``, GE's no-padding continuous input:
each producer writes its slice in place; :mod:`geir.passes.memory.concat_slices`),
with a remark per such concat saying whether, or which check refused. A
reshape's result and a ``no_task`` split's (``alias-splits``) are views: they lie
inside their operand's buffer and take no bytes of their own
(:mod:`geir.passes.memory.lifetimes`).

Writes ``offsets`` on every op with results (one per result; for a value that
stays in the unified buffer, its offset there), also inside regions,
``ge.offset`` on each graph input's argument attributes, ``ge.arena_bytes``
(the arena the plan needs, zero-copy I/O excluded) and ``ge.memory`` on the
graph: the lower bound of this schedule (``lower_bound``,
``lower_bound_exact``), the single-stream plan of the same block order, the
no-reuse total (region tensors included), the zero-copy bytes, the unified
buffer's bytes (``unified_buffer``, with fused chains only), the bytes of the
top-level control ops' regions (``regions``, with control flow only), the
winning algorithm and the events memory priority added. Each planned control
op gets a remark with its regions' bytes, their bound and their no-reuse total;
one left unplanned (the task sink cannot lower it) a remark saying why.

Options: ``algorithm`` (``greedy-by-size``: TFLite's best fit by size;
``ge-blocks``: GE's size-class reuse, the baseline; ``best``: several, the
smallest kept), ``in-place`` (an elementwise op overwrites an operand of its
result's type that it is the last reader of), ``concat-in-place`` (above),
``zero-copy-io`` (graph inputs and outputs get their own buffers after the
arena, as GE's zero-copy memory),
``memory-priority`` with ``budget`` and ``max-slowdown`` (add ordering events
until the arena fits the budget — by default the single-stream plan's — while
the measured makespan grows by at most ``max-slowdown``, or warn that it
cannot), ``alignment`` (GE's 512 B), ``device`` (a plan beyond its memory is
an error naming the biggest live set) and ``print-plan`` (the plan table on
stderr).
"""

from __future__ import annotations

import gc
import sys

import attrs

from geir.attributes import ArrayAttr, BoolAttr, DictionaryAttr, IntegerAttr, StringAttr
from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.graph_io import attribute_dicts
from geir.module import Module
from geir.operation import Operation
from geir.passes.memory.arena_plan import ALGORITHMS, ArenaPlan, plan_arena
from geir.passes.memory.happens_before import StreamOrder
from geir.passes.memory.lifetimes import MemoryProblem, Nesting, align, tensor_bytes
from geir.passes.memory.memory_bound import MemoryBound
from geir.passes.memory.memory_plan_table import buffer_name, format_plan
from geir.passes.memory.region_plan import ControlMemory, bound_with_regions, plan_regions
from geir.passes.memory.memory_priority import fit_budget, offsets_by_value, transfer
from geir.passes.pass_base import ModulePass, PassContext, option

__all__ = ["ReuseMemory", "GraphMemory", "plan_graph"]

#: buffers a too-big error lists by name
SHOWN_LIVE = 8


@attrs.define(eq=False)
class GraphMemory:
    """Everything ``reuse-memory`` decided and measured for one graph."""

    plan: ArenaPlan
    bound: MemoryBound
    single_stream_bytes: int
    events_added: int = 0
    slowdown: float = 0.0  # memory priority's measured makespan growth
    regions: ControlMemory = attrs.Factory(ControlMemory)
    #: the plan of the values that stay in the unified buffer (a UB-fused chain's
    #: intermediates): their own space, not device memory
    unified_buffer: ArenaPlan | None = None

    @property
    def no_reuse_bytes(self) -> int:
        """Every tensor its own bytes, the regions' included."""
        return self.regions.nested_no_reuse(self.problem)

    @property
    def problem(self) -> MemoryProblem:
        return self.plan.problem


@attrs.define
class ReuseMemory(ModulePass):
    name = "reuse-memory"
    summary = "Plan the arena: an offset per tensor, reusing bytes only across happens-before-ordered lifetimes"

    algorithm: str = option("best", "greedy-by-size (TFLite best fit), ge-blocks (GE size classes) or best")
    in_place: bool = option(False, "an elementwise op writes over an operand of its type it is the last reader of")
    concat_in_place: bool = option(True, "a concat that runs as no task takes its inputs inside its result, where "
                                         "they are dense slices of it (GE's no-padding continuous input)")
    zero_copy_io: bool = option(True, "graph inputs and outputs live outside the arena (GE zero-copy)")
    memory_priority: bool = option(False, "add ordering events until the arena fits the budget")
    budget: int = option(0, "memory-priority's arena budget in bytes (0: the single-stream plan's arena)")
    max_slowdown: float = option(0.05, "memory-priority's limit on the measured makespan growth (0.05: 5%)")
    alignment: int = option(512, "byte alignment of every buffer (GE: 512)")
    device: str = option("910B2", "device profile whose memory the plan must fit")
    print_plan: bool = option(False, "print the plan table (offset, size, lifetime, stream per tensor) to stderr")

    def run(self, module: Module, ctx: PassContext) -> None:
        self.check_options()
        # The plan allocates a few objects per tensor and keeps them alive, so
        # CPython's cyclic collector would rescan the whole IR again and again
        # (it took half the time on 100k-op graphs); nothing here makes cycles.
        enabled = gc.isenabled()
        gc.disable()
        try:
            self.plan_module(module, ctx)
        finally:
            if enabled:
                gc.enable()

    def plan_module(self, module: Module, ctx: PassContext) -> None:
        from geir.backends.device_profile import load_profile
        memory_bytes = int(load_profile(self.device)["memory_bytes"])
        for graph in list(module.graphs()):
            result = plan_graph(graph, self.algorithm, self.in_place, self.zero_copy_io, self.alignment,
                                self.memory_priority, self.budget, ctx, self.device, self.max_slowdown,
                                self.concat_in_place)
            self.check_fits(graph, result, memory_bytes)
            write_plan(graph, result)
            name = str(graph.get_attr("sym_name", "main"))
            p = result.plan
            unified = result.unified_buffer
            ctx.remark(graph, f"arena {p.arena_bytes} B ({p.algorithm}), lower bound {result.bound.bytes} B, "
                              f"single-stream {result.single_stream_bytes} B, no reuse "
                              f"{result.no_reuse_bytes} B, zero-copy I/O {p.zero_copy_bytes} B"
                              + (f", unified buffer {unified.arena_bytes} B (a fused chain's intermediates, no "
                                 "device memory)" if unified is not None else ""))
            remark_regions(result.regions, ctx)
            if self.concat_in_place:
                remark_concats(result.problem, ctx)
            if self.print_plan:
                sys.stderr.write(format_plan(p, result.bound, result.single_stream_bytes, name, result.no_reuse_bytes,
                                             unified))

    def check_options(self) -> None:
        def bad(message: str) -> DiagnosticError:
            return DiagnosticError(Diagnostic("error", f"reuse-memory: {message}"))
        if self.algorithm not in ALGORITHMS:
            raise bad(f"option 'algorithm' must be one of {', '.join(ALGORITHMS)}, got '{self.algorithm}'")
        if self.alignment < 1:
            raise bad(f"option 'alignment' must be positive, got {self.alignment}")
        if self.budget < 0:
            raise bad(f"option 'budget' must be non-negative, got {self.budget}")
        if self.max_slowdown < 0:
            raise bad(f"option 'max-slowdown' must be non-negative, got {self.max_slowdown}")

    def check_fits(self, graph: Operation, result: GraphMemory, memory_bytes: int) -> None:
        """A plan beyond the device memory is an error naming the biggest live set."""
        weights = sum(align(tensor_bytes(op.results[0].type), self.alignment)
                      for op in graph.regions[0].blocks[0].ops if op.name in CONSTANT_OPS)
        p = result.plan
        total = p.arena_bytes + p.zero_copy_bytes + weights
        if total <= memory_bytes:
            return
        bufs = result.problem.buffers
        live = sorted(result.bound.live, key=lambda k: -bufs[k].size)
        names = ", ".join(f"{buffer_name(bufs[k])} ({bufs[k].size} B)" for k in live[:SHOWN_LIVE])
        more = f" and {len(live) - SHOWN_LIVE} more" if len(live) > SHOWN_LIVE else ""
        why = (f"the biggest live set, {result.bound.bytes} B that this schedule keeps live at once, is {names}{more}"
               if live else "the arena keeps nothing live: the graph's inputs, outputs and weights alone exceed it")
        raise DiagnosticError(Diagnostic(
            "error", f"reuse-memory: the plan needs {total} B (arena {p.arena_bytes} B, zero-copy I/O "
                     f"{p.zero_copy_bytes} B, weights {weights} B), more than the {memory_bytes} B of device "
                     f"{self.device}; {why}", op_position(graph)))


def plan_graph(graph: Operation, algorithm: str = "best", in_place: bool = False, zero_copy: bool = True,
               alignment: int = 512, memory_priority: bool = False, budget: int = 0,
               ctx: PassContext | None = None, device: str = "910B2", max_slowdown: float = 0.05,
               concat_in_place: bool = True) -> GraphMemory:
    """Plan ``graph``'s arena under its current schedule (adding events first in
    memory-priority mode). The IR is changed only by those events."""
    block = graph.regions[0].blocks[0]
    regions = plan_regions(graph, algorithm, in_place, alignment)

    def build(single: bool = False, fork: bool = True) -> MemoryProblem:
        order = StreamOrder.build(list(block.ops), single_stream=single)
        return MemoryProblem.build(graph, order, alignment, in_place, zero_copy, Nesting(regions.scratch),
                                   concat_in_place=concat_in_place, concat_fork=fork)

    single = plan_arena(build(single=True), algorithm)
    added, slowdown, aims = 0, 0.0, []
    if memory_priority:
        target = budget or single.arena_bytes
        added, aims, slowdown = fit_budget(
            graph, build, lambda p, offsets: plan_arena(p, algorithm, [("aim", o) for o in offsets]).arena_bytes,
            target, offsets_by_value(single.problem, single.offsets), device, max_slowdown)

    def final(problem: MemoryProblem) -> ArenaPlan:
        extra: list[tuple[str, list[int]]] = []
        if memory_priority:
            for name, aim in zip(("measured-run", "single-stream"), aims):
                offsets = transfer(problem, aim)
                if offsets is not None:
                    extra.append((f"{plan_name(algorithm)}+{name}", offsets))
        return plan_arena(problem, algorithm, extra)

    problem = build()
    plan = final(problem)
    if problem.concats.forked:
        # a concat whose producers run at once holds its buffer from their fork, over every
        # branch: where that costs more than copying, the smaller plan is kept
        copied = final(build(fork=False))
        if copied.arena_bytes < plan.arena_bytes:
            problem, plan = copied.problem, copied
    bound = bound_with_regions(problem, regions.bound)
    # a second walk of the block, only where fuse-ub left a chain
    unified = (plan_arena(MemoryProblem.build(graph, problem.order, alignment, unified_buffer=True), algorithm)
               if any("fused_output" in op.attributes for op in block.ops) else None)
    if memory_priority and ctx is not None:
        cost = f"{added} added events (measured makespan {100 * slowdown:+.1f}%)"
        if plan.arena_bytes > target:
            ctx.warning(graph, f"reuse-memory: cannot fit the arena in the budget of {target} B within a "
                               f"{100 * max_slowdown:g}% slowdown: it needs {plan.arena_bytes} B after {cost}; "
                               f"lower bound {bound.bytes} B")
        elif added:
            ctx.remark(graph, f"memory priority: {cost} to fit {target} B")
    return GraphMemory(plan, bound, single.arena_bytes, added, slowdown, regions,
                       unified if unified is not None and unified.problem.buffers else None)


def plan_name(algorithm: str) -> str:
    return "plan" if algorithm == "best" else algorithm


def remark_regions(regions: ControlMemory, ctx: PassContext) -> None:
    """A remark per planned control op: its regions' bytes, their bound and no-reuse total."""
    for op, scratch in regions.scratch.items():
        sizes = ", ".join(f"{r.plan.arena_bytes} B" for r in regions.of(op))
        ctx.remark(op, f"regions {scratch} B ({sizes}), lower bound {regions.bound[op]} B, no reuse "
                       f"{regions.no_reuse[op]} B")
    for op, why in regions.skipped:
        ctx.remark(op, f"regions not planned (the lowering gives their values fresh bytes): {why}")


def remark_concats(problem: MemoryProblem, ctx: PassContext) -> None:
    """A remark per concat whose inputs lie back to back in its result (GE runs
    it as no task): its inputs laid out inside its result, or why they keep
    buffers of their own; and per strided-write concat, that its slices do."""
    layout = problem.concats
    for op in problem.graph.regions[0].blocks[0].ops:
        if op.name != "ge.concat":
            continue
        if op.results[0] in layout.defines:
            ctx.remark(op, f"its {len(op.operands)} inputs are written in place inside its result "
                           "(no-task concat, no copy)")
        elif op in layout.refused:
            ctx.remark(op, f"its inputs keep buffers of their own: {layout.refused[op]}")
        elif "strided_write" in op.attributes:
            ctx.remark(op, "its inputs keep buffers of their own: they are strided slices of its result "
                           "(a dim before the axis is above 1)")


def write_plan(graph: Operation, result: GraphMemory) -> None:
    """Put the plan on the IR: ``offsets`` per op (in regions too), ``ge.offset``
    per input, the report on the graph."""
    problem = result.problem
    plan = result.plan
    io_index = {id(b): k for k, b in enumerate(problem.io)}
    top: dict[object, int] = {}
    bases = {}
    for b in problem.buffers:
        if b.region_op is not None:
            bases[b.region_op] = plan.offsets[b.id]
    for v, b in problem.of_value.items():
        k = io_index.get(id(b))
        top[v] = plan.io_offsets[k] if k is not None else plan.offsets[b.id] + problem.within(v)
    if result.unified_buffer is not None:  # offsets in the ub space, which the lowering knows by fuse-ub's marks
        for v, b in result.unified_buffer.problem.of_value.items():
            top[v] = result.unified_buffer.offsets[b.id]
    offsets = result.regions.offsets(top, bases)  # type: ignore[arg-type]

    def offset(v: object) -> int:
        return offsets[v]  # type: ignore[index]

    block = graph.regions[0].blocks[0]
    for top_op in block.ops:
        for op in top_op.walk() if top_op.regions else (top_op,):
            if (op.results and op.name not in CONSTANT_OPS and op.name != "ge.none"
                    and all(r in offsets for r in op.results)):
                op.attributes["offsets"] = ArrayAttr(tuple(IntegerAttr(offset(r)) for r in op.results))
    args = block.arguments
    dicts = attribute_dicts(graph.attributes.get("arg_attrs"))
    dicts += [{} for _ in range(len(args) - len(dicts))]
    for i, arg in enumerate(args):
        dicts[i] = {**dicts[i], "ge.offset": IntegerAttr(offset(arg))}
    if args:
        graph.attributes["arg_attrs"] = ArrayAttr(tuple(DictionaryAttr.from_dict(d) for d in dicts))
    graph.attributes["ge.arena_bytes"] = IntegerAttr(plan.arena_bytes)
    figures: dict[str, object] = {
        "algorithm": StringAttr(plan.algorithm),
        "lower_bound": IntegerAttr(result.bound.bytes),
        "lower_bound_exact": BoolAttr(result.bound.exact),
        "single_stream": IntegerAttr(result.single_stream_bytes),
        "no_reuse": IntegerAttr(result.no_reuse_bytes),
        "zero_copy": IntegerAttr(plan.zero_copy_bytes),
        "events_added": IntegerAttr(result.events_added),
    }
    if result.unified_buffer is not None:  # a UB-fused chain's intermediates, which take no arena bytes
        figures["unified_buffer"] = IntegerAttr(result.unified_buffer.arena_bytes)
    if result.regions.scratch:  # a graph with planned control flow: its top-level regions' bytes
        figures["regions"] = IntegerAttr(sum(b.size for b in problem.buffers if b.region_op is not None))
    graph.attributes["ge.memory"] = DictionaryAttr.from_dict(figures)  # type: ignore[arg-type]
