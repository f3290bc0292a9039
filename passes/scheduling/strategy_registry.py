"""User stream-allocation strategies: GE's ``CustomAllocateStreamPassFn``.

A strategy is a function that gets a read-only :class:`StrategyProblem` (one
graph's task ops, their dependencies, engines, costs on the device, stream
labels, the stream budget and GE's own logical allocation, which GE's custom
pass sees too) and returns the stream of every op: a sequence of ints in op
order, or a :class:`StreamPlan` when it also reorders the ops.
``partition-streams{strategy=<name>}`` runs it and checks the answer
(:func:`check_plan`) before any stream attribute is written.

Strategies come from :func:`register` (``geir.register_strategy``) or, for an
installed package, from the ``geir.strategies`` entry-point group (name =
``module:function``), loaded the first time an unknown name is asked for. A
registered function must be a top-level name of an importable module: the
registry keeps ``module:function`` so worker processes (``ge-bench``) find it.
"""

from __future__ import annotations

import importlib
from typing import Callable, Sequence, Union

import attrs

from geir.passes.lower_to_tasks import loc_text
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["StrategyProblem", "CustomStrategy", "ENTRY_POINT_GROUP", "CUSTOM_STRATEGIES", "register", "lookup",
           "names", "check_plan", "PlanError"]

#: the entry-point group installed packages declare strategies in
ENTRY_POINT_GROUP = "geir.strategies"
#: registered strategy name -> "module:function" (a registry: the one global table)
CUSTOM_STRATEGIES: dict[str, str] = {}
_entry_points_loaded = False


@attrs.frozen
class StrategyProblem:
    """What a user strategy sees of one graph (tuples: it cannot change them).

    Ops are numbered 0..n-1 in block order, which is topological. ``preds[i]``
    and ``succs[i]`` are the ops ``i`` depends on and that depend on it;
    ``engines[i]`` the engine written on the op (GE's names), ``pools[i]`` the
    cost model's unit pool (``AICore``, ``VectorCore``, ``AICPU`` ...),
    ``durations_us[i]`` its time on ``device``; ``labels[i]`` its
    ``stream_label`` (labelled ops must share one stream per label, used by no
    other op); ``max_streams`` the streams unlabelled ops may use;
    ``ge_streams`` the stream GE's default logical allocation gives each op
    (what GE's custom pass starts from); ``sync_us`` the cost of one
    cross-stream dependency (a record and a wait).
    """

    graph_name: str
    op_names: tuple[str, ...]
    locations: tuple[str, ...]
    preds: tuple[tuple[int, ...], ...]
    succs: tuple[tuple[int, ...], ...]
    engines: tuple[str, ...]
    pools: tuple[str, ...]
    durations_us: tuple[float, ...]
    labels: tuple[str | None, ...]
    max_streams: int
    ge_streams: tuple[int, ...]
    sync_us: float
    device: str

    @property
    def n(self) -> int:
        return len(self.op_names)

    @property
    def stream_budget(self) -> int:
        """Stream ids a plan may use: ``max_streams`` plus one per label."""
        return self.max_streams + len({label for label in self.labels if label is not None})

    def allocate_next_stream_id(self, plan: Sequence[int]) -> int:
        """GE's ``AllocateNextStreamId``: the first stream id ``plan`` does not use."""
        return max(plan, default=-1) + 1

    @classmethod
    def of(cls, problem: ScheduleProblem, ge_streams: Sequence[int], device: str) -> "StrategyProblem":
        """The view of ``problem``, with GE's default allocation ``ge_streams``."""
        g = problem.graph
        return cls(str(g.graph.get_attr("sym_name", "graph")), tuple(op.name for op in g.ops),
                   tuple(loc_text(op.location) for op in g.ops), tuple(tuple(p) for p in g.preds),
                   tuple(tuple(s) for s in g.succs), tuple(problem.engines), tuple(problem.pools),
                   tuple(problem.durations), tuple(problem.labels), problem.max_streams, tuple(ge_streams),
                   problem.sync_us, device)


#: what a user strategy is
CustomStrategy = Callable[[StrategyProblem], Union[Sequence[int], StreamPlan]]


def register(name: str, fn: CustomStrategy) -> CustomStrategy:
    """Register ``fn`` as stream strategy ``name`` (see the module docstring)."""
    from geir.passes.scheduling.strategies import STRATEGIES
    if not name or not isinstance(name, str):
        raise ValueError("a strategy needs a non-empty name")
    if name in STRATEGIES:
        raise ValueError(f"'{name}' is a built-in strategy")
    if not callable(fn):
        raise TypeError(f"register_strategy expects a function, got {fn!r}")
    module_name, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    module = importlib.import_module(module_name) if module_name else None
    if module is None or getattr(module, qualname, None) is not fn:
        raise ValueError(f"strategy function {qualname or fn!r} is not a top-level name of an importable module; "
                         "define it at the top level of a module")
    target = f"{module_name}:{qualname}"
    existing = CUSTOM_STRATEGIES.get(name)
    if existing is not None and existing != target:
        raise ValueError(f"a strategy named '{name}' is already registered ({existing})")
    CUSTOM_STRATEGIES[name] = target
    return fn


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        CUSTOM_STRATEGIES.setdefault(ep.name, ep.value)


def lookup(name: str) -> CustomStrategy | None:
    """The user strategy called ``name``, or None (entry points are read on the first miss)."""
    if name not in CUSTOM_STRATEGIES:
        _load_entry_points()
    target = CUSTOM_STRATEGIES.get(name)
    if target is None:
        return None
    module, _, func = target.partition(":")
    obj: object = importlib.import_module(module)
    for part in func.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[return-value]


def names() -> list[str]:
    """Every user strategy name known now (entry points included), sorted."""
    _load_entry_points()
    return sorted(CUSTOM_STRATEGIES)


class PlanError(ValueError):
    """A user plan broke a rule; ``node`` is the op it is about (None: the whole graph)."""

    def __init__(self, message: str, node: int | None = None) -> None:
        super().__init__(message)
        self.node = node


def check_plan(name: str, view: StrategyProblem, result: object) -> StreamPlan:
    """``result`` as a :class:`StreamPlan` once it passes every rule the pass
    needs: a stream for every op, ids within the budget, one stream per label
    and none shared with other ops, an issue order that keeps every
    dependency (so insert-events can order the streams); else :class:`PlanError`."""
    who = f"strategy '{name}'"
    if isinstance(result, StreamPlan):
        streams, order, notes = list(result.streams), list(result.order), list(result.notes)
    elif isinstance(result, (list, tuple)):
        streams, order, notes = list(result), list(range(view.n)), []
    else:
        raise PlanError(f"{who} returned {type(result).__name__}; expected a stream id per op "
                        "(a list of ints) or a StreamPlan")
    if len(streams) != view.n:
        missing = len(streams) if len(streams) < view.n else None
        raise PlanError(f"{who} returned {len(streams)} stream(s) for {view.n} op(s)"
                        + ("; this op has none" if missing is not None else ""), missing)
    budget = view.stream_budget
    for i, s in enumerate(streams):
        if isinstance(s, bool) or not isinstance(s, int):
            raise PlanError(f"{who} gave this op stream {s!r}; stream ids are ints", i)
        if not 0 <= s < budget:
            raise PlanError(f"{who} put this op on stream {s}, outside the budget [0, {budget}) "
                            f"(max-streams={view.max_streams} plus one per stream label)", i)
    label_stream: dict[str, int] = {}
    stream_label: dict[int, str | None] = {}
    for i in range(view.n):
        label, s = view.labels[i], streams[i]
        if label is not None:
            first = label_stream.setdefault(label, s)
            if first != s:
                raise PlanError(f"{who} put this op on stream {s}, but its stream_label '{label}' is on "
                                f"stream {first}", i)
        owner = stream_label.setdefault(s, label)
        if owner != label:
            what = f"stream_label '{owner}'" if owner is not None else "unlabelled ops"
            mine = f"stream_label '{label}'" if label is not None else "no stream_label"
            raise PlanError(f"{who} put this op ({mine}) on stream {s}, which holds {what}; a label keeps "
                            "its stream to itself", i)
    if sorted(order) != list(range(view.n)):
        raise PlanError(f"{who} returned an order that is not a permutation of the {view.n} op(s)")
    position = {v: k for k, v in enumerate(order)}
    for i in order:
        for p in view.preds[i]:
            if position[p] > position[i]:
                raise PlanError(f"{who} issues this op before '{view.op_names[p]}' (op {p}), which it depends "
                                "on", i)
    return StreamPlan(streams, order, notes)
