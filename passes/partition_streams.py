"""``partition-streams``: a ``stream`` for every task op of every ``ge.graph``
and the order the streams issue them in — GE's second multi-stream step.

The strategy (``strategy=``) decides; see :mod:`geir.passes.scheduling.strategies`:

* ``single`` — everything on stream 0 (GE's single-stream mode);
* ``ge`` — GE's LogicalStreamAllocator, faithfully: the baseline (GE's default
  ``max_parallel_num`` of 1 gives each engine one stream);
* ``ge-parallel`` — the same with ``ge.streamMaxParallelNum=AIcoreEngine:N``
  for N = ``max-streams``, what a GE user tuning it gets;
* ``chain-cover`` — Nimble's minimum chain cover of the transitive reduction,
  merged by load to ``max-streams``;
* ``opara`` — Opara's greedy chains (each op continues its first producer's
  stream not yet continued, else opens one), merged the same way;
* ``cost`` — list scheduling on the emulator's cost model, the fastest of a
  small portfolio (always including the single stream) as the emulator
  measures it;
* ``optimal`` — CP-SAT's exact schedule (small graphs, ``time-limit``), or its
  best schedule with the proven bound;
* ``ge-cv``, ``ge-load-balance``, ``ge-main-stream``, ``ge-weighted-load-balance`` — GE's automatic modes
  below as strategies of their own, N = ``max-streams``;
* a user strategy registered with ``geir.register_strategy`` or the
  ``geir.strategies`` entry points (:mod:`geir.passes.scheduling.strategy_registry`):
  its plan is checked (every op on a stream within the budget, labels kept,
  dependencies ordered) and any broken rule is an error at the op.

``multi-stream-parallel-mode`` is GE's ``ge.autoMultistreamParallelMode`` (ATC's
``--multi_stream_parallel_mode``), with ``strategy=ge`` only: ``cv``,
``LoadBalance:N``, ``MainStream:N`` or ``WeightedLoadBalance:N`` (:mod:`~geir.passes.scheduling.strategies.ge_auto_multistream`);
GE's single-stream mode refuses it, and a dynamic-shape graph still needs
``dynamic-shape-multi-stream``.

GE's rules that override the strategy, each reported as a remark on the graph:

* a graph with GE's dataflow control ops the task sink cannot run (loop
  frames: ``ge.enter``, ``ge.ref_enter`` ...; a switch/merge that is not a
  diamond) or control flow it cannot run (a loop with scan outputs, a
  backwards scan) is put on one stream, GE's safe strategy for them;
* the ops of a ``ge.switch`` / ``ge.merge`` diamond go on the stream of its
  last merge, where ``lower-to-tasks`` issues its stream switches (each
  branch and the merges then run on a stream of their own);
* ``ge.if``, ``ge.loop`` and ``ge.scan`` are scheduled like any op (their label tasks go on
  the stream they get), and each of their regions gets a stream of its own, as
  GE allocates a subgraph's streams separately
  (``LogicalStreamAllocator::Assign`` runs on every subgraph) and starts them
  with the ``StreamActive`` its label makers put at the head of each branch;
  with ``strategy=single`` or no stream left under ``max-streams`` a region
  stays on its control op's stream;
* ``ge.cmo`` ops share a stream of their own (GE labels them ``<graph>_Cmo``);
* an op ``fuse-ub`` fused into another runs in that op's kernel, so it takes
  that op's stream whatever the strategy chose (GE merges a fused chain into
  one node before it assigns streams);
* a graph with dynamic shapes stays on one stream unless
  ``dynamic-shape-multi-stream`` (GE's ``ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1``,
  which the option's default reads) is set;
* ``ac-parallel-enable=false`` keeps AICPU ops on their predecessor's stream
  (GE's ``ac_parallel_enable``: without it AICPU work does not get a stream of
  its own); with ``strategy=ge`` a dynamic-shape graph uses GE's dynamic-shape
  allocator, which reads the option itself.

Ops keep their results' uses; the pass only sets ``stream`` attributes and,
when the strategy reorders, moves ops: constants first (they are not tasks),
then the task ops in the plan's topological order.
"""

from __future__ import annotations

import os

import attrs

from geir.attributes import IntegerAttr
from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.module import Module
from geir.operation import Operation
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.passes.scheduling.op_graph import OpGraph, first_sync_op
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling import strategy_registry
from geir.passes.scheduling.strategies import STRATEGIES, get_strategy
from geir.passes.scheduling.strategies.ge_auto_multistream import (ATC_OPTION, MODE_OPTION, AutoMultistreamMode,
                                                                   ModeError, parse_mode, plan_auto)
from geir.passes.scheduling.strategy_registry import CustomStrategy, PlanError, StrategyProblem, check_plan
from geir.passes.scheduling.stream_plan import StreamPlan
from geir.rewriter import Rewriter
from geir.types import TensorType

__all__ = ["PartitionStreams", "CMO_LABEL"]

#: the label GE's AttachStreamLabelPass gives every Cmo op (suffix of the graph name)
CMO_LABEL = "_Cmo"
#: GE's kDefaultMaxStreamNum
DEFAULT_MAX_STREAMS = 8


def _dynamic_multi_stream_default() -> bool:
    return os.environ.get("ENABLE_DYNAMIC_SHAPE_MULTI_STREAM") == "1"


@attrs.define
class PartitionStreams(ModulePass):
    """Give every task op a stream."""

    name = "partition-streams"
    summary = ("give every op a stream (strategies: single, ge, ge-parallel, ge-cv, ge-load-balance, "
               "ge-main-stream, ge-weighted-load-balance, chain-cover, opara, cost, optimal, or a registered one)")

    max_streams: int = option(DEFAULT_MAX_STREAMS, "most streams for unlabelled ops (GE's kDefaultMaxStreamNum)")
    strategy: str = option("cost", "single | ge | ge-parallel | ge-cv | ge-load-balance | ge-main-stream | "
                                   "ge-weighted-load-balance | chain-cover | opara | cost | optimal | "
                                   "a registered strategy")
    device: str = option("910B2", "device profile the costs come from (a name or a JSON path)")
    time_limit: float = option(10.0, "seconds the optimal strategy may search")
    mode: str = option("sink", "runtime the cost strategy judges plans in: sink (v1 task sink) or host (v2: a "
                                "host launch per task, events included)")
    iterations: int = option(1, "judge plans over this many back-to-back frames (double-buffered), so the cost "
                                "strategy favours plans that pipeline frames")
    ac_parallel_enable: bool = option(True, "AICPU ops may take a stream of their own (GE's ac_parallel_enable)")
    dynamic_shape_multi_stream: bool = option(False, "multi-stream also for graphs with dynamic shapes (GE's "
                                                     "ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1, which sets it too)")
    multi_stream_parallel_mode: str = option("", "GE's automatic multi-stream mode with strategy=ge: cv | "
                                                 "LoadBalance:N | MainStream:N | WeightedLoadBalance:N, N in [1, 64] "
                                                 "(ge.autoMultistreamParallelMode)")

    def run(self, module: Module, ctx: PassContext) -> None:
        if self.strategy not in STRATEGIES and strategy_registry.lookup(self.strategy) is None:
            raise DiagnosticError(Diagnostic("error", f"partition-streams: unknown strategy '{self.strategy}'; "
                                                      f"strategies: {', '.join(STRATEGIES)}"
                                                      + "".join(f", {n}" for n in strategy_registry.names())))
        auto = self._parse_auto_mode(module)
        if self.mode not in ("sink", "host"):
            raise DiagnosticError(Diagnostic("error", f"partition-streams: mode must be sink or host, got "
                                                      f"'{self.mode}'"))
        if self.iterations < 1:
            raise DiagnosticError(Diagnostic("error", f"partition-streams: iterations must be at least 1, "
                                                      f"got {self.iterations}"))
        if self.max_streams < 1:
            raise DiagnosticError(Diagnostic("error", f"partition-streams: max-streams must be at least 1, "
                                                      f"got {self.max_streams}"))
        for graph in list(module.graphs()):
            self._partition(graph, ctx, auto)

    def _parse_auto_mode(self, module: Module) -> AutoMultistreamMode | None:
        """The automatic mode, checked as GE checks it; errors are at the first graph."""
        graphs = list(module.graphs())
        where = op_position(graphs[0]) if graphs else None
        try:
            mode = parse_mode(self.multi_stream_parallel_mode)
        except ModeError as e:  # GE's E10001
            raise DiagnosticError(Diagnostic("error", f"partition-streams: value '{self.multi_stream_parallel_mode}' "
                                                      f"for {ATC_OPTION} ({MODE_OPTION}) is invalid: {e}",
                                             where)) from None
        if mode is None:
            return None
        if self.strategy == "single":  # GE's E10056
            raise DiagnosticError(Diagnostic("error", f"partition-streams: cannot configure both {ATC_OPTION} "
                                                      f"({MODE_OPTION}) and single-stream mode (strategy=single, "
                                                      "ge.enableSingleStream) simultaneously", where))
        if self.strategy != "ge":
            raise DiagnosticError(Diagnostic("error", f"partition-streams: multi-stream-parallel-mode is GE's, "
                                                      f"for strategy=ge only (got strategy={self.strategy})",
                                             where))
        return mode

    # ------------------------------------------------------------------
    def _partition(self, graph: Operation, ctx: PassContext, auto: AutoMultistreamMode | None) -> None:
        synced = first_sync_op(graph.regions[0].blocks[0])
        if synced is not None:
            raise DiagnosticError(Diagnostic("error", f"'{synced.name}' op: partition-streams must run before "
                                                      "insert-events (this graph is already synchronised)",
                                             op_position(synced)))
        og = OpGraph.build(graph)
        if og.n == 0:
            return
        problem = ScheduleProblem.build(og, self.max_streams, self.device, self.iterations, self.mode)
        strategy = self.strategy
        reason = self._safe_strategy_reason(og)
        if reason is not None and strategy != "single":
            ctx.remark(graph, f"partition-streams: single stream instead of '{strategy}': {reason}")
            strategy = "single"
        cmo = [i for i, op in enumerate(og.ops) if op.name == "ge.cmo" and problem.labels[i] is None]
        if cmo and strategy != "single":
            for i in cmo:
                problem.labels[i] = str(graph.get_attr("sym_name", "graph")) + CMO_LABEL
            ctx.remark(graph, f"partition-streams: {len(cmo)} ge.cmo op(s) on a stream of their own (GE's Cmo label)")
        custom = strategy_registry.lookup(strategy) if strategy not in STRATEGIES else None
        if custom is not None:
            plan = self._custom_plan(strategy, custom, problem, og)
        elif strategy == "ge" and auto is not None:
            plan = self._auto_plan(auto, problem, og)
        elif strategy == "ge" and _has_dynamic_shape(og):
            # GE's dynamic-shape allocator (reached only with ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1)
            from geir.passes.scheduling.strategies.ge_logical import plan_dynamic
            plan = plan_dynamic(problem, self.time_limit, ac_parallel=self.ac_parallel_enable)
        else:
            plan = self._plan(strategy, problem, graph)
        if not self.ac_parallel_enable and strategy in STRATEGIES and strategy not in ("single", "ge"):
            moved = _attach_aicpu(problem, plan)
            if moved:
                ctx.remark(graph, f"partition-streams: {moved} AICPU op(s) kept on their predecessor's stream "
                                  "(ac-parallel-enable=false)")
        chained = problem.keep_fused_chains(plan.streams)
        moved = sum(a != b for a, b in zip(chained, plan.streams))
        plan.streams[:] = chained
        if moved:
            ctx.remark(graph, f"partition-streams: {moved} UB-fused op(s) moved onto the stream of the op they are "
                              "fused into (a fused chain is one kernel)")
        plan = plan.normalized()
        assert og.is_topological(plan.order), f"strategy '{strategy}' returned an order that is not topological"
        for note in plan.notes:
            ctx.remark(graph, note)
        _apply(og, plan)
        self._place_regions(graph, ctx, strategy)
        _place_switch_groups(graph, ctx)

    def _place_regions(self, graph: Operation, ctx: PassContext, strategy: str) -> None:
        """A stream per region of each ge.if / ge.loop (nested ones too, with
        a work list: no recursion per nesting level), past the streams in use."""
        top = [op for op in graph.regions[0].blocks[0].ops if op.regions]
        if not top:
            return
        used = [op.get_attr("stream", 0) for op in graph.walk() if "stream" in op.attributes]
        next_id = 1 + max((s for s in used if isinstance(s, int)), default=0)
        work = list(reversed(top))
        while work:
            op = work.pop()
            parent = op.get_attr("stream", 0)
            placed = []
            for region in op.regions:
                body = [o for o in region.blocks[0].ops if o.name not in ("ge.yield", "ge.none")
                        and o.name not in CONSTANT_OPS]
                if not body:
                    continue
                if strategy == "single" or next_id >= self.max_streams:
                    sid = parent
                else:
                    sid, next_id = next_id, next_id + 1
                for o in body:
                    o.attributes["stream"] = IntegerAttr(sid)  # type: ignore[arg-type]
                    if o.regions:
                        work.append(o)
                placed.append(sid)
            if placed and any(sid != parent for sid in placed):
                ctx.remark(op, f"partition-streams: the regions of '{op.name}' on stream(s) "
                               f"{', '.join(map(str, placed))}, started by a stream-active task after each branch's "
                               f"label on stream {parent} (GE assigns a subgraph's streams itself)")
            elif placed:
                ctx.remark(op, f"partition-streams: the regions of '{op.name}' stay on its stream {parent} "
                               f"({'strategy single' if strategy == 'single' else 'no stream left under max-streams'})")

    def _auto_plan(self, mode: AutoMultistreamMode, problem: ScheduleProblem, og: OpGraph) -> StreamPlan:
        return plan_auto(problem, mode, dynamic=_has_dynamic_shape(og) is not None,
                         ac_parallel=self.ac_parallel_enable)

    def _custom_plan(self, name: str, fn: CustomStrategy, problem: ScheduleProblem, og: OpGraph) -> StreamPlan:
        """Run user strategy ``fn`` on a read-only view and check its plan."""
        from geir.passes.scheduling.strategies.ge_logical import plan as ge_plan
        view = StrategyProblem.of(problem, ge_plan(problem).normalized().streams, self.device)
        try:
            result = fn(view)
        except Exception as e:  # the user's code failed: say so at the graph, not as geir's bug
            raise DiagnosticError(Diagnostic("error", f"partition-streams: strategy '{name}' raised "
                                                      f"{type(e).__name__}: {e}", op_position(og.graph))) from None
        try:
            return check_plan(name, view, result)
        except PlanError as e:
            where = og.ops[e.node] if e.node is not None else og.graph
            raise DiagnosticError(Diagnostic("error", f"partition-streams: {e}", op_position(where))) from None

    def _safe_strategy_reason(self, og: OpGraph) -> str | None:
        from geir.passes.lower_control_flow import control_problems, is_control_op
        problems = control_problems(og.block)  # the block's diamonds grouped once, not per op
        for op in og.ops:
            sinkable = (op.regions or op.name in ("ge.switch", "ge.merge")) and not any(
                o in problems for o in op.walk())
            if not sinkable and is_control_op(op):
                return f"the graph has control flow ('{op.name}'), which GE runs on a safe single stream"
        if not (self.dynamic_shape_multi_stream or _dynamic_multi_stream_default()):
            dynamic = _has_dynamic_shape(og)
            if dynamic is not None:
                op, t = dynamic
                return (f"'{op.name}' has a dynamic shape ({t}); GE uses one stream for dynamic "
                        "shapes unless ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1")
        return None

    def _plan(self, strategy: str, problem: ScheduleProblem, graph: Operation) -> StreamPlan:
        refusals: tuple[type[Exception], ...] = (ValueError,)
        if strategy == "optimal":
            from geir.passes.scheduling.strategies.cp_sat import ProblemTooLarge
            refusals = (ValueError, ProblemTooLarge)
        try:
            return get_strategy(strategy)(problem, self.time_limit)
        except refusals as e:  # a strategy that cannot take this problem says why
            raise DiagnosticError(Diagnostic("error", f"partition-streams{{strategy={strategy}}}: {e}",
                                             op_position(graph))) from None


def _has_dynamic_shape(og: OpGraph) -> tuple[Operation, TensorType] | None:
    """The first op with a dynamically shaped result, and that type."""
    for op in og.ops:
        for r in op.results:
            if isinstance(r.type, TensorType) and not r.type.is_static:
                return op, r.type
    return None


def _attach_aicpu(problem: ScheduleProblem, plan: StreamPlan) -> int:
    """Put every unlabelled AICPU node on its first predecessor's stream (stream
    of the previous node in order when it has none). Returns how many moved."""
    moved = 0
    prev_stream = 0
    for i in plan.order:
        if problem.pools[i] == "AICPU" and problem.labels[i] is None:
            ps = problem.graph.preds[i]
            target = plan.streams[ps[0]] if ps else prev_stream
            if plan.streams[i] != target:
                plan.streams[i] = target
                moved += 1
        prev_stream = plan.streams[i]
    return moved


def _apply(og: OpGraph, plan: StreamPlan) -> None:
    """Write ``stream`` attributes and, when the order changed, reorder the block."""
    for i, op in enumerate(og.ops):
        op.attributes["stream"] = IntegerAttr(plan.streams[i])
    if plan.order == list(range(og.n)):
        return
    block = og.block
    terminator = block.last_op
    assert terminator is not None
    node_ids = {id(op) for op in og.ops}
    rewriter = Rewriter()
    others = [op for op in block.ops if id(op) not in node_ids and op is not terminator]
    for op in others:  # constants and ge.none first: they are not tasks and have no operands
        rewriter.move_before(op, terminator)
    for i in plan.order:
        rewriter.move_before(og.ops[i], terminator)


def _place_switch_groups(graph: Operation, ctx: PassContext) -> None:
    """A switch/merge diamond's ops on the stream of its last merge: lower-to-tasks
    issues its stream switches there and gives each branch and the merges a
    stream of their own, as GE labels each switch branch and merge with a
    stream label (``SetSwitchBranchNodeLabel``) and so a stream of its own."""
    from geir.passes.lower_switch_merge import switch_groups
    for group in switch_groups(graph.regions[0].blocks[0])[0]:
        sid = group.merges[-1].get_attr("stream", 0)
        for o in group.ops:
            o.attributes["stream"] = IntegerAttr(sid)  # type: ignore[arg-type]
        ctx.remark(group.switches[0], f"partition-streams: the {len(group.switches)} switch(es) on this predicate, "
                                      f"their branches and {len(group.merges)} merge(s) on stream {sid}; "
                                      "lower-to-tasks runs each branch and the merges on a stream of their own, "
                                      "started by stream-switch and stream-active tasks (GE's "
                                      "SwitchToStreamSwitchPass, MergeToStreamMergePass)")
