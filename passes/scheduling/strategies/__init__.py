"""Stream-partitioning strategies: each maps a :class:`ScheduleProblem` to a
:class:`StreamPlan`.

A strategy is a function ``plan(problem, time_limit_s) -> StreamPlan`` in its
own module, registered here by name and imported on first use. Every strategy
must return a topological ``order``, put nodes of one ``stream_label`` on one
stream, and use at most ``problem.max_streams`` streams for unlabelled nodes
(labels each take a stream of their own, as in GE).

User strategies (``geir.register_strategy``) live in
:mod:`geir.passes.scheduling.strategy_registry`, not here: they see a
read-only view and their plans are checked.
"""

from __future__ import annotations

import importlib
from typing import Callable

from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["STRATEGIES", "get_strategy", "Strategy"]

Strategy = Callable[[ScheduleProblem, float], StreamPlan]

#: strategy name -> "module:function"
STRATEGIES: dict[str, str] = {
    "single": "geir.passes.scheduling.strategies.single:plan",
    "ge": "geir.passes.scheduling.strategies.ge_logical:plan",
    "ge-parallel": "geir.passes.scheduling.strategies.ge_logical:plan_parallel",
    "ge-cv": "geir.passes.scheduling.strategies.ge_auto_multistream:plan_cv_strategy",
    "ge-load-balance": "geir.passes.scheduling.strategies.ge_auto_multistream:plan_load_balance",
    "ge-main-stream": "geir.passes.scheduling.strategies.ge_auto_multistream:plan_main_stream",
    "ge-weighted-load-balance": "geir.passes.scheduling.strategies.ge_auto_multistream:plan_weighted_load_balance",
    "chain-cover": "geir.passes.scheduling.strategies.chain_cover:plan",
    "opara": "geir.passes.scheduling.strategies.opara:plan",
    "cost": "geir.passes.scheduling.strategies.list_scheduling:plan",
    "optimal": "geir.passes.scheduling.strategies.cp_sat:plan",
}


def get_strategy(name: str) -> Strategy:
    """The plan function of strategy ``name`` (KeyError when unknown)."""
    module, _, func = STRATEGIES[name].partition(":")
    return getattr(importlib.import_module(module), func)
