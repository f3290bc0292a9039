"""Random ``ge`` graphs for the scheduling-pass property tests: DAGs of small
elementwise ops (so the numpy kernels run fast and the interpreter is the
oracle) whose ops carry random engines, sizes and fan-in — and random stream
plans for them, to hold bounds against plans no strategy would make."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan, label_streams

__all__ = ["random_dag_text", "dags", "random_plan", "ENGINES"]

#: engines a random op may be pinned to (AICore is the default of every op used)
ENGINES = ("AICore", "AICore", "AICore", "AICPU", "DVPP", "HCCL")
_UNARY = ("relu", "sigmoid", "tanh", "abs", "neg")
_BINARY = ("add", "mul", "sub", "max", "min")


def random_dag_text(n: int, seed: int, engines: bool = True, width: int = 64, labels: int = 0) -> str:
    """A module with one graph of ``n`` ops; op ``i`` reads 1-2 earlier values
    (graph input included), so the DAG has random branches and joins."""
    rng = random.Random(seed)
    t = f"tensor<4x{width}xf32>"
    values = ["x"]
    lines = [f"ge.graph @main(%x: {t} {{ge.name = \"x\"}}) -> ({t} {{ge.name = \"y\"}}, {t} {{ge.name = \"z\"}}) {{"]
    for i in range(n):
        attrs = []
        if engines:
            attrs.append(f'engine = "{rng.choice(ENGINES)}"')
        if labels and rng.random() < 0.2:
            attrs.append(f'stream_label = "l{rng.randrange(labels)}"')
        attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
        window = values[-6:] if rng.random() < 0.8 else values
        if rng.random() < 0.5 and len(values) > 1:
            a, b = rng.sample(window, 2) if len(window) > 1 else (window[0], window[0])
            op = rng.choice(_BINARY)
            lines.append(f"  %v{i} = ge.{op} %{a}, %{b}{attr_text} : ({t}, {t}) -> {t}")
        else:
            a = rng.choice(window)
            op = rng.choice(_UNARY)
            lines.append(f"  %v{i} = ge.{op} %{a}{attr_text} : ({t}) -> {t}")
        values.append(f"v{i}")
    last, other = values[-1], values[len(values) // 2]
    lines.append(f"  ge.return %{last}, %{other} : ({t}, {t}) -> ()")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dags(min_ops: int = 2, max_ops: int = 14) -> st.SearchStrategy[tuple[int, int]]:
    """(number of ops, seed) pairs for :func:`random_dag_text`."""
    return st.tuples(st.integers(min_ops, max_ops), st.integers(0, 2**31 - 1))


def random_plan(problem: ScheduleProblem, rng: random.Random) -> StreamPlan:
    """Any stream within the budget for each node (labels on their own), issued
    in a random topological order."""
    labels, first = label_streams(problem)
    streams = [labels[lb] if lb is not None else first + rng.randrange(problem.max_streams)
               for lb in problem.labels]
    missing = [len(ps) for ps in problem.graph.preds]
    ready = [i for i in range(problem.n) if missing[i] == 0]
    order: list[int] = []
    while ready:
        i = ready.pop(rng.randrange(len(ready)))
        order.append(i)
        for j in problem.graph.succs[i]:
            missing[j] -= 1
            if missing[j] == 0:
                ready.append(j)
    return StreamPlan(streams, order)
