"""What a stream-partitioning strategy sees: the task DAG of one graph, each
node's engine and cost on one device, the user's stream labels and the stream
budget. Costs come from the emulator's own cost model applied to the very
kernel task ``lower-to-tasks`` will emit for the op, so a strategy and its
judge never disagree about what a node costs."""

from __future__ import annotations

import functools

import attrs

from geir.backends.cost_model import AICORE, AICPU, DVPP, GE_LOCAL, HCCL, VECTOR, CostModel, TaskCost
from geir.backends.device_profile import DeviceProfile, load_profile
from geir.backends.task_list import ARENA, WEIGHTS, Kernel, TensorRef
from geir.constants import CONSTANT_OPS
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.operation import Operation, OpResult, Value
from geir.passes.fuse_ub import chain_heads
from geir.passes.lower_to_tasks import kernel_task, loc_text
from geir.passes.scheduling.op_graph import OpGraph
from geir.types import TensorType

__all__ = ["ScheduleProblem", "node_kernel", "ATTACH_POOLS", "INDEPENDENT_POOLS"]

#: GE's engine_conf.json ``attach = true`` engines (AICPU variants, DVPP, RTS,
#: GE_LOCAL, HOST_CPU): a subgraph of such an engine may continue its
#: predecessor's stream whatever the predecessor's engine
ATTACH_POOLS = frozenset({AICPU, DVPP, GE_LOCAL})
#: GE's ``independent = true`` engines: only HCCL
INDEPENDENT_POOLS = frozenset({HCCL})


def _ref(t: object, space: str = ARENA) -> TensorRef:
    """A ref with the shape and dtype of ``t`` (unknown dims count as 1) in
    ``space``: costs depend on sizes and on whether a tensor is a weight, not on
    its offset."""
    if isinstance(t, TensorType):
        shape = tuple(d if isinstance(d, int) and d >= 0 else 1 for d in t.shape or ())  # unranked: one element
        return TensorRef(space, 0, shape, str(t.element_type))
    return TensorRef(space, 0, (), "f32")


def _operand_ref(v: Value) -> TensorRef | None:
    """The ref of operand ``v``: none for an omitted optional input (a ``ge.none``
    value), as the lowering gives it."""
    if isinstance(v, OpResult) and v.op.name == "ge.none":
        return None
    weight = isinstance(v, OpResult) and v.op.name in CONSTANT_OPS
    return _ref(v.type, WEIGHTS if weight else ARENA)


def node_kernel(op: Operation) -> Kernel:
    """The kernel task ``lower-to-tasks`` emits for ``op`` (offsets aside; constants'
    values are weights, as the lowering places them)."""
    return kernel_task(op, [_operand_ref(v) for v in op.operands], [_ref(r.type) for r in op.results],
                       loc_text(op.location))


def _no_units(missing: list[tuple[Operation, str]], profile: DeviceProfile, graph: Operation) -> list[Diagnostic]:
    """An error for each op of ``missing`` (an op and the pool it runs on) on a
    device without such units, with why it left AICore when it fell back to
    AICPU; the first that a dynamic shape sent there notes the graph input whose
    dims to bind."""
    from geir.passes.assign_engines import engine_for
    from geir.passes.range_shapes import unbound_input_diagnostics
    out, noted = [], False
    for op, pool in missing:
        why = engine_for(op, soc=profile.soc)[1] if pool == AICPU else None
        d = Diagnostic("error", f"'{op.name}' runs on {pool}, but device '{profile.name}' has no {pool} units"
                                + (f" (it falls back from AICore: {why})" if why else ""), op.location)
        if why and not noted and any(isinstance(r.type, TensorType) and not r.type.is_static for r in op.results):
            for unbound in unbound_input_diagnostics(graph)[:1]:
                d.attach_note(unbound.message, unbound.location)
            noted = True
        out.append(d)
    return out


@attrs.define(eq=False)
class ScheduleProblem:
    """One graph's scheduling problem.

    ``pools[i]`` is the cost model's pool of node ``i`` (``AICore``,
    ``VectorCore``, ``AICPU``, ``DVPP``, ``HCCL``, ``SDMA``, ``GE_LOCAL``);
    ``engines[i]`` the engine name as written on the op (GE's rules key on it);
    ``costs[i]`` its duration and units; ``labels[i]`` its ``stream_label``.
    """

    graph: OpGraph
    kernels: list[Kernel]
    pools: list[str]
    engines: list[str]
    costs: list[TaskCost]
    labels: list[str | None]
    max_streams: int
    model: CostModel
    #: frames run back to back (double-buffered): plans are judged by the time of
    #: all of them, so a plan that lets frame k+1 overlap frame k wins
    iterations: int = 1
    #: the runtime that judges plans: ``sink`` (v1 task sink) or ``host`` (v2,
    #: a host launch per task, so every event costs a launch too)
    mode: str = "sink"

    @classmethod
    def build(cls, graph: OpGraph, max_streams: int, device: str | DeviceProfile = "910B2",
              iterations: int = 1, mode: str = "sink", warm_weights: bool = False) -> "ScheduleProblem":
        """The problem of ``graph`` on ``device`` with at most ``max_streams``
        streams, judged over ``iterations`` back-to-back frames in ``mode``;
        ``warm_weights``: the weights are in L2 from a run just before."""
        profile = device if isinstance(device, DeviceProfile) else load_profile(device)
        model = CostModel(profile, warm_weights=warm_weights)
        kernels = [node_kernel(op) for op in graph.ops]
        costs = [model.kernel(k) for k in kernels]
        missing = [(op, c.pool) for op, c in zip(graph.ops, costs)
                   if c.pool != GE_LOCAL and model.capacity[c.pool] == 0]
        if missing:  # no plan can place these ops: said here, before a bound divides by the missing units
            raise DiagnosticError(_no_units(missing, profile, graph.graph)[:20])
        labels = []
        for op in graph.ops:
            label = op.get_attr("stream_label")
            labels.append(str(label) if label else None)
        return cls(graph, kernels, [c.pool for c in costs], [k.engine for k in kernels], costs, labels,
                   max_streams, model, iterations, mode)

    @functools.cached_property
    def largest_tensor_bytes(self) -> int:
        """The largest tensor any node reads or writes: the arena of a timing-only
        task list whose refs all sit at offset 0 (computed once; evaluations are a hot path)."""
        return max((r.nbytes for k in self.kernels for r in (*k.inputs, *k.outputs) if r is not None), default=0)

    @functools.cached_property
    def fused_heads(self) -> list[int]:
        """For each node, the head of the UB-fused chain it belongs to (``fuse-ub``),
        or -1: a fused op runs in its head's kernel, so it goes on that node's stream."""
        return chain_heads(self.graph.ops)

    def keep_fused_chains(self, streams: list[int]) -> list[int]:
        """``streams`` with every UB-fused op on the stream of its chain's head;
        the list itself when nothing moves."""
        out = streams
        for i, j in enumerate(self.fused_heads):
            if j >= 0 and out[i] != out[j]:
                if out is streams:
                    out = list(streams)
                out[i] = out[j]
        return out

    @property
    def n(self) -> int:
        return self.graph.n

    @property
    def durations(self) -> list[float]:
        return [c.duration_us for c in self.costs]

    @property
    def sync_us(self) -> float:
        """What one cross-stream dependency costs: a record and a wait."""
        return self.model.record_us + self.model.wait_us

    def capacity(self, pool: str) -> int:
        return self.model.capacity[pool]

    def units(self, i: int) -> int:
        return self.costs[i].units

    def is_compute(self, i: int) -> bool:
        return self.pools[i] in (AICORE, VECTOR)
