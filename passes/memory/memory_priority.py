"""Memory priority: order two buffers that an antichain keeps apart by adding
an event, so one may reuse the other's bytes (GE's ``memory_priority_mode``
trades streams for reuse; here the trade is one record/wait pair at a time).

A candidate is a conflicting pair ``a``, ``b`` whose uses of ``a`` all come
before ``b``'s definition in block order and ``a`` is not a graph output: for
every other stream holding a use of ``a`` not yet ordered before ``b``, a
``ge.record_event`` right after that stream's last use and its
``ge.wait_event`` right before ``b``'s producer. The block order stays an
order every record precedes its wait in, so no deadlock can appear. Pairs of
the bound's heaviest live set come first (ordering them breaks it), largest
reusable size first, then the widest gap (the wait is likelier to be free).
"""

from __future__ import annotations

from typing import Sequence

from geir.attributes import IntegerAttr
from geir.operation import Operation
from geir.passes.memory.lifetimes import Buffer, MemoryProblem
from geir.rewriter import Rewriter

__all__ = ["order_one_pair", "next_event_id"]


def next_event_id(block_ops: Sequence[Operation]) -> int:
    """An event id no sync op of the block uses yet."""
    ids = [op.get_attr("event") for op in block_ops if op.name in ("ge.record_event", "ge.wait_event")]
    return max((i for i in ids if isinstance(i, int)), default=-1) + 1


def _candidate(problem: MemoryProblem, a: Buffer, b: Buffer) -> tuple[int, int] | None:
    """(reusable bytes, gap) when ``a`` can be ordered before ``b``, else None."""
    if b.is_input or a.live_out or a.define >= b.define or not a.size or not b.size:
        return None
    last = max(a.uses, default=-1)
    if last >= b.define:
        return None
    return min(a.size, b.size), b.define - last


def order_one_pair(problem: MemoryProblem, live: Sequence[int], first_event: int) -> tuple[int, str] | None:
    """Add the events that order the best candidate pair (live set first).
    Returns (events added, a description of the pair) or None when no pair can be ordered."""
    bufs = problem.buffers
    best: tuple[tuple[int, int], Buffer, Buffer] | None = None
    for pool in (list(live), None):
        ids = set(pool) if pool is not None else None
        for x in (pool if pool is not None else range(len(bufs))):
            for y in problem.conflicts[x]:
                if ids is not None and y not in ids:
                    continue
                a, b = (bufs[x], bufs[y]) if bufs[x].define < bufs[y].define else (bufs[y], bufs[x])
                score = _candidate(problem, a, b)
                if score is not None and (best is None or score > best[0]):
                    best = (score, a, b)
        if best is not None:
            break
    if best is None:
        return None
    _, a, b = best
    order = problem.order
    consumer = order.nodes[b.define]
    target = order.stream[b.define]
    rewriter = Rewriter()
    event = first_event
    by_stream: dict[int, int] = {}
    for u in a.uses:
        s = order.stream[u]
        if s != target and not order.happens_before(u, b.define):
            by_stream[s] = max(by_stream.get(s, -1), u)
    for s, u in sorted(by_stream.items()):
        attrs = {"event": IntegerAttr(event), "stream": IntegerAttr(order.stream_ids[s])}
        rewriter.insert_after(order.nodes[u], Operation("ge.record_event", attributes=dict(attrs),
                                                        location=order.nodes[u].location))
        attrs["stream"] = IntegerAttr(order.stream_ids[target])
        rewriter.insert_before(consumer, Operation("ge.wait_event", attributes=attrs, location=consumer.location))
        event += 1
    return event - first_event, f"{_name(a)} before {_name(b)}"


def _name(b: Buffer) -> str:
    v = b.values[0]
    return f"%{v.name_hint}" if v.name_hint else "%?"
