"""Memory of control-flow regions: the tensors inside a ``ge.if`` branch, a
``ge.loop`` body or a ``ge.scan`` body, planned with the graph.

GE plans a subgraph's memory together with its root graph: the block
assigner walks the root graph's ``GetAllNodes()`` (subgraph nodes included),
``GraphUtils::GetRefMapping`` puts a subgraph's ``Data``, the parent node's
input, the subgraph's ``NetOutput`` input and the parent's output in one
symbol (so one buffer: a branch writes the ``If``'s output itself, and a
``While``'s carried values keep their buffers across trips,
``UpdateSymbolOutputOffset``), and its memory checker
(``DependencyAnalyzer::ExtendReachNodesMapCrossSubGraph``) treats the parent
node as a bracket: whatever reaches the parent reaches every node of its
subgraphs, and every subgraph node reaches what follows the parent.

Here the bracket is the plan's structure. Each region block is planned on its
own, as one stream (the lowering queues a region on one stream), by the same
algorithms as the graph: a region's tensors reuse each other's bytes, its
yielded values live to its end, its arguments are the control op's buffers.
The control op's *region buffer* — one buffer of its node in the enclosing
block — holds the plan of every region: the branches of an ``if`` (or a
``case``) from the same base, since only one runs; a loop's body once, reused
by every trip (trip ``k + 1`` starts after trip ``k`` has ended). Control ops
are planned innermost first, so a nested control op is one buffer of its
region's plan. A value a branch computes and yields once lives in the
``if``'s result buffer (what the lowering writes in place), not in the region.

A control op whose regions cannot be planned (a value without a static size,
or an op the task sink does not lower) gets no region buffer: its regions stay
unplanned, and the lowering gives their values fresh bytes past the arena.
"""

from __future__ import annotations

from typing import Mapping

import attrs

from geir.constants import CONSTANT_OPS
from geir.diagnostics import DiagnosticError
from geir.operation import Block, Operation, OpResult, Value
from geir.passes.memory.arena_plan import ArenaPlan, plan_arena
from geir.passes.memory.happens_before import StreamOrder
from geir.passes.memory.lifetimes import MemoryProblem, Nesting, align
from geir.passes.memory.memory_bound import MemoryBound, lower_bound

__all__ = ["RegionMemory", "ControlMemory", "plan_regions", "bound_with_regions", "EXCLUSIVE_REGION_OPS"]

#: control ops of which one region runs per execution: their regions share a base
EXCLUSIVE_REGION_OPS = frozenset({"ge.if", "ge.case"})
#: control ops whose lowering writes a value a region computes and yields once into the result
YIELDS_IN_PLACE_OPS = frozenset({"ge.if", "ge.case"})


@attrs.define(eq=False)
class RegionMemory:
    """The plan of region ``index`` of ``op``: ``plan.offsets`` are relative to
    ``base`` within the control op's region buffer; ``aliased`` maps a value
    of the region to the result of ``op`` it is written into."""

    op: Operation
    index: int
    plan: ArenaPlan
    bound: MemoryBound
    base: int
    aliased: dict[Value, Value]

    @property
    def problem(self) -> MemoryProblem:
        return self.plan.problem


@attrs.define(eq=False)
class ControlMemory:
    """The regions of a graph's control ops: per planned control op the bytes
    its regions need (``scratch``), a lower bound of them under any plan of
    these schedules (``bound``) and the bytes without reuse (``no_reuse``);
    ``regions`` outermost first; ``skipped`` the control ops left unplanned and why."""

    scratch: dict[Operation, int] = attrs.Factory(dict)
    bound: dict[Operation, int] = attrs.Factory(dict)
    no_reuse: dict[Operation, int] = attrs.Factory(dict)
    regions: list[RegionMemory] = attrs.Factory(list)
    skipped: list[tuple[Operation, str]] = attrs.Factory(list)

    def of(self, op: Operation) -> list[RegionMemory]:
        """The planned regions of ``op`` (empty when it was skipped)."""
        return [r for r in self.regions if r.op is op]

    def nested_no_reuse(self, problem: MemoryProblem) -> int:
        """``problem``'s bytes without reuse, its region buffers counted as their regions' tensors."""
        return sum(self.no_reuse.get(b.region_op, 0) if b.region_op is not None else b.size
                   for b in problem.buffers)

    def offsets(self, outer: Mapping[Value, int], region_base: Mapping[Operation, int]) -> dict[Value, int]:
        """The absolute offset of every planned region value, given the offsets
        of the graph's values (``outer``) and of its control ops' region buffers."""
        out: dict[Value, int] = dict(outer)
        base = dict(region_base)
        for rm in self.regions:  # outermost first: the enclosing base and results are known
            start = base.get(rm.op)
            if start is None:
                continue  # an unplanned enclosing control op: its regions stay unplanned
            start += rm.base
            for v, result in rm.aliased.items():
                if result in out:
                    out[v] = out[result]
            for b in rm.problem.buffers:
                if b.region_op is not None:
                    base[b.region_op] = start + rm.plan.offsets[b.id]
                for v in b.values:
                    out[v] = start + rm.plan.offsets[b.id] + rm.problem.within(v)
        return out


def region_order(block: Block) -> StreamOrder:
    """A region's schedule: its ops in block order on one stream (the lowering's)."""
    return StreamOrder.build([op for op in block.ops if op.name != "ge.yield"], single_stream=True)


def aliased_yields(op: Operation, block: Block) -> dict[Value, Value]:
    """The values of ``block`` (a region of ``op``) written straight into ``op``'s
    results: computed in the block, not constants, yielded once, of the result's type."""
    if op.name not in YIELDS_IN_PLACE_OPS:
        return {}
    ret = block.last_op
    if ret is None or ret.name != "ge.yield":
        return {}
    yielded = list(ret.operands)
    out: dict[Value, Value] = {}
    for v, r in zip(yielded, op.results):
        if (isinstance(v, OpResult) and v.op.parent is block and v.op.name not in CONSTANT_OPS
                and v.op.name != "ge.none" and yielded.count(v) == 1 and v.type == r.type):
            out[v] = r
    return out


def _unplannable(op: Operation) -> str | None:
    from geir.passes.lower_control_flow import control_op_problem
    return control_op_problem(op)


def bound_with_regions(problem: MemoryProblem, bounds: Mapping[Operation, int]) -> MemoryBound:
    """The lower bound of ``problem`` with each region buffer at its regions'
    lower bound (its planned size is a plan, not a bound)."""
    if not any(b.region_op is not None for b in problem.buffers):
        return lower_bound(problem)
    buffers = [attrs.evolve(b, size=align(bounds.get(b.region_op, 0), problem.alignment))
               if b.region_op is not None else b for b in problem.buffers]
    return lower_bound(attrs.evolve(problem, buffers=buffers))


def plan_regions(graph: Operation, algorithm: str = "greedy-by-size", in_place: bool = False,
                 alignment: int = 512) -> ControlMemory:
    """Plan the regions of every control op of ``graph``, innermost first (see the module doc)."""
    top = graph.regions[0].blocks[0]
    controls = [inner for op in top.ops if op.regions for inner in op.walk() if inner.regions]
    memory = ControlMemory()
    planned: list[list[RegionMemory]] = []
    for op in reversed(controls):  # pre-order reversed: every nested control op comes first
        problem_text = _unplannable(op)
        if problem_text is not None:
            memory.skipped.append((op, problem_text))
            continue
        exclusive = op.name in EXCLUSIVE_REGION_OPS
        regions: list[RegionMemory] = []
        try:
            for k, region in enumerate(op.regions):
                block = region.blocks[0]
                aliased = aliased_yields(op, block)
                nesting = Nesting(memory.scratch, block, frozenset(aliased))
                problem = MemoryProblem.build(graph, region_order(block), alignment, in_place, False, nesting)
                plan = plan_arena(problem, algorithm)
                regions.append(RegionMemory(op, k, plan, bound_with_regions(problem, memory.bound), 0, aliased))
        except DiagnosticError as e:
            memory.skipped.append((op, str(e.diagnostics[0].message) if e.diagnostics else str(e)))
            continue
        if exclusive:
            size = max((r.plan.arena_bytes for r in regions), default=0)
        else:  # regions that may all run: side by side
            size = 0
            for r in regions:
                r.base = size
                size += r.plan.arena_bytes
        memory.scratch[op] = size
        memory.bound[op] = max((r.bound.bytes for r in regions), default=0)
        memory.no_reuse[op] = sum(memory.nested_no_reuse(r.problem) for r in regions)
        planned.append(regions)
    for regions in reversed(planned):  # outermost first
        memory.regions.extend(regions)
    return memory
