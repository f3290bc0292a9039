"""``opara``: Opara's stream allocation (Chen et al., "Opara: Exploiting Operator
Parallelism for Expediting DNN Inference on GPUs", IEEE TC 2023;
icloud-ecnu/Opara ``Opara/StreamAllocator.py``), merged down to ``max-streams``.

In block order, each op continues the stream of its first producer, in operand
order, that no op has continued yet; an op with no such producer opens a stream
of its own. The streams are node-disjoint chains, as ``chain-cover``'s, but
chosen greedily and without the transitive reduction: every branch of a fork
but the first opens a stream, so Opara runs GoogLeNet on 28 streams where
Nimble's minimum cover has 4 (the paper, section 5.2). An event guards every
dependency between streams (``insert-events``), as Opara records one per op
and waits on each producer of another stream. Opara has no stream budget; over
``max-streams`` the chains are merged by load as ``chain-cover`` merges its own.
Opara's launch order (resource-aware interleaving of its streams' launches
into the CUDA graph) is not modelled: each stream issues its ops in block order.
"""

from __future__ import annotations

from geir.operation import OpResult
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan
from geir.passes.scheduling.strategies.chain_cover import plan_chains

__all__ = ["plan", "chains"]


def chains(problem: ScheduleProblem) -> list[list[int]]:
    """Opara's chains of the unlabelled nodes, in block order."""
    g = problem.graph
    free = [lb is None for lb in problem.labels]
    index = {id(op): i for i, op in enumerate(g.ops)}
    continued = [False] * g.n
    chain_of = [-1] * g.n
    out: list[list[int]] = []
    for i, op in enumerate(g.ops):
        if not free[i]:
            continue
        deps = set(g.preds[i])
        # the producers in operand order (an op's own dependencies, as torch.fx lists its inputs)
        producers = [index[id(v.op)] for v in op.operands if isinstance(v, OpResult) and id(v.op) in index]
        producers += [p for p in g.preds[i] if p not in producers]  # dependencies besides operands
        for p in producers:
            if p in deps and free[p] and not continued[p]:
                continued[p] = True
                chain_of[i] = chain_of[p]
                out[chain_of[i]].append(i)
                break
        else:
            chain_of[i] = len(out)
            out.append([i])
    return out


def plan(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """Opara's chains, merged by load onto at most ``max-streams`` streams."""
    return plan_chains(problem, chains(problem), "opara")
