"""ge-opt with user strategies that break each rule partition-streams checks
(and one that keeps them all), for custom_strategy*.mlir."""

import sys

import geir
from geir.passes.scheduling.stream_plan import StreamPlan


def one_stream_each(problem):
    return [problem.max_streams + sorted({x for x in problem.labels if x}).index(label) if label else 0
            for label in problem.labels]


def short(problem):
    return [0] * (problem.n - 1)


def over_budget(problem):
    return [problem.stream_budget] * problem.n


def not_int(problem):
    return [0.0] * problem.n


def not_a_plan(problem):
    return {i: 0 for i in range(problem.n)}


def split_label(problem):
    """The first labelled op on the last stream of the budget, the others one below."""
    first = problem.labels.index(next(x for x in problem.labels if x))
    return [0 if not label else problem.stream_budget - (1 if i == first else 2)
            for i, label in enumerate(problem.labels)]


def share_label(problem):
    return [0] * problem.n


def backwards(problem):
    return StreamPlan(one_stream_each(problem), list(reversed(range(problem.n))))


def raises(problem):
    return [problem.labels.index("missing")]


def ge_then_next(problem):
    """GE's allocation, then the last op on the stream AllocateNextStreamId gives."""
    streams = list(problem.ge_streams)
    streams[-1] = problem.allocate_next_stream_id(streams)
    return streams


for fn in (one_stream_each, short, over_budget, not_int, not_a_plan, split_label, share_label, backwards, raises,
           ge_then_next):
    geir.register_strategy(fn.__name__.replace("_", "-"), fn)
sys.exit(geir.opt_main())
