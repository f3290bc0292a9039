"""Compile-time happens-before over a scheduled ``ge.graph``.

The schedule is what ``lower-to-tasks`` will emit: each task op of the block
goes to the queue of its ``stream`` (absent: 0) in block order, and
``ge.record_event`` / ``ge.wait_event`` go to theirs (absent: the stream of the
closest kernel before a record, after a wait — the lowering's rule). A stream
runs its queue in order, each task after the previous one has finished; a
record fires once everything before it on its stream has finished; a wait lets
its stream go on once a record of its event has fired, and consumes it.

Vector clocks, as the emulator's race checker keeps them at run time, but
computed once over the block order: every stream holds a clock, a record
carries its stream's clock, the wait that consumes it joins it in. The clock a
node sees *before it starts* says, per stream, how many of that stream's tasks
have certainly finished, so task ``a`` happens before task ``b`` exactly when
``epoch(a) <= before(b)[stream(a)]``.

A wait pairs with the records of its event since the previous wait of that id
in block order (our passes put each record before its one wait and reuse an id
only once the previous wait is ordered before the next record). When several
such records are pending the wait is only sure of what they all carry, so it
joins their elementwise minimum; a wait with no record before it orders
nothing. Both keep the relation an under-approximation of the run-time one,
which is what makes reuse built on it safe.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Mapping, Sequence

import attrs

from geir.attributes import IntegerAttr
from geir.operation import Operation
from geir.passes.scheduling.op_graph import SYNC_OPS, is_node

__all__ = ["StreamOrder", "NEVER"]

#: an epoch no task reaches: a use that nothing is ordered after (graph outputs)
NEVER = 1 << 62


@attrs.define(eq=False)
class StreamOrder:
    """Happens-before of the task nodes of one graph block.

    ``nodes`` are the task ops in block order; node ``i`` runs on dense stream
    ``stream[i]`` (``stream_ids[stream[i]]`` is the id written on the op) at
    1-based ``epoch[i]`` of that stream's queue (records and waits count), and
    ``before[i][s]`` tasks of stream ``s`` have finished when it starts.
    ``queue[s]`` lists the nodes of stream ``s`` in order; ``column[s][t]`` is
    ``before[n][t]`` for the nodes ``n`` of ``queue[s]`` (non-decreasing).
    """

    nodes: list[Operation]
    index: dict[int, int]  # id(op) -> node
    stream_ids: list[int]
    stream: list[int]
    epoch: list[int]
    before: list[tuple[int, ...]]
    queue: list[list[int]]
    rank: list[int]  # node -> its position in queue[stream]
    column: list[list[list[int]]]

    @classmethod
    def build(cls, block_ops: Sequence[Operation], single_stream: bool = False) -> "StreamOrder":
        """The order of the tasks of ``block_ops`` (a graph block's ops). With
        ``single_stream`` every task is on one stream and events are ignored:
        the schedule the block order itself is."""
        ops = list(block_ops)
        raw = [0 if single_stream else _stream_attr(op) for op in ops]
        stream_of_op = _resolve_sync_streams(ops, raw) if not single_stream else raw
        ids = sorted({s for op, s in zip(ops, stream_of_op) if is_node(op)} | {0})
        dense = {s: k for k, s in enumerate(ids)}
        for op, s in zip(ops, stream_of_op):
            if op.name in SYNC_OPS and s not in dense:
                dense[s] = len(ids)
                ids.append(s)
        n_streams = len(ids)
        clock = [[0] * n_streams for _ in range(n_streams)]
        pos = [0] * n_streams
        pending: dict[int, list[list[int]]] = {}
        nodes: list[Operation] = []
        stream: list[int] = []
        epoch: list[int] = []
        before: list[tuple[int, ...]] = []
        queue: list[list[int]] = [[] for _ in range(n_streams)]
        rank: list[int] = []
        task = [is_node(op) for op in ops]
        for op, sid, is_task in zip(ops, stream_of_op, task):
            if op.name in SYNC_OPS:
                if single_stream:
                    continue
                s = dense[sid]
                c = clock[s]
                c[s] = pos[s]
                pos[s] += 1
                event = op.get_attr("event")
                if op.name == "ge.record_event":
                    pending.setdefault(event, []).append(c[:])  # type: ignore[arg-type]
                else:
                    records = pending.pop(event, None)  # type: ignore[arg-type]
                    if records:
                        for k in range(n_streams):
                            v = min(r[k] for r in records)
                            if v > c[k]:
                                c[k] = v
                continue
            if not is_task:
                continue
            s = dense[sid]
            c = clock[s]
            c[s] = pos[s]
            pos[s] += 1
            i = len(nodes)
            nodes.append(op)
            stream.append(s)
            epoch.append(pos[s])
            before.append(tuple(c))
            rank.append(len(queue[s]))
            queue[s].append(i)
        column = [[[before[n][t] for n in queue[s]] for t in range(n_streams)] for s in range(n_streams)]
        return cls(nodes, {id(op): i for i, op in enumerate(nodes)}, ids, stream, epoch, before, queue, rank,
                   column)

    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def num_streams(self) -> int:
        return len(self.stream_ids)

    def happens_before(self, a: int, b: int) -> bool:
        """Whether node ``a`` has finished whenever node ``b`` starts."""
        return self.epoch[a] <= self.before[b][self.stream[a]]

    def last_uses(self, uses: Sequence[int]) -> dict[int, int]:
        """The latest epoch per stream among nodes ``uses``."""
        last: dict[int, int] = {}
        for u in uses:
            s = self.stream[u]
            e = self.epoch[u]
            if e > last.get(s, 0):
                last[s] = e
        return last

    def ordered_after(self, last: Mapping[int, int], node: int) -> bool:
        """Whether every use summarised by ``last`` (see :meth:`last_uses`)
        happens before ``node`` starts."""
        b = self.before[node]
        return all(e <= b[s] for s, e in last.items())

    def first_free(self, last: Mapping[int, int], s: int) -> int:
        """The first position in ``queue[s]`` from which every node starts after
        all the uses ``last`` summarises (``len(queue[s])`` when none does)."""
        col = self.column[s]
        k = 0
        for t, e in last.items():
            if e >= NEVER:
                return len(self.queue[s])
            j = bisect_left(col[t], e)
            if j > k:
                k = j
        return k


def _stream_attr(op: Operation) -> int:
    attr = op.attributes.get("stream")  # not get_attr: no OpDef lookup per op on 100k-op graphs
    s = attr.value if isinstance(attr, IntegerAttr) else 0
    return s if s >= 0 else 0


def _resolve_sync_streams(ops: list[Operation], raw: list[int]) -> list[int]:
    """Each op's stream; a record or wait without one takes the lowering's
    default (the closest kernel before a record, after a wait; else 0)."""
    out = list(raw)
    last = 0
    for i, op in enumerate(ops):
        if op.name == "ge.record_event" and "stream" not in op.attributes:
            out[i] = last
        if is_node(op):
            last = raw[i]
    last = 0
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if op.name == "ge.wait_event" and "stream" not in op.attributes:
            out[i] = last
        if is_node(op):
            last = raw[i]
    return out
