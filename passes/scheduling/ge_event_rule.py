"""The events GE itself would emit for a stream assignment, so insert-events can
report "ours vs GE-rule".

GE (``compiler/graph/build/stream/stream_allocator.cc``, ``stream_utils.cc``)
synchronises streams in three steps, all over the graph's topological order
(here: the block order of the task nodes):

1. **InsertSyncEvents / InsertOneEventInTwoNodes**: one event per data or
   control edge ``cur -> next`` unless ``cur`` has no stream (-1), both are on
   the same stream, or ``cur`` is an Enter/RefEnter whose successor is not a
   StreamActive (geir has no StreamActive op, so an ``ge.enter``/``ge.ref_enter``
   never sends). A successor without a stream is an error in GE. Parallel edges
   between one pair of nodes give one event each in GE; step 2 always drops
   the duplicates, so counting each node pair once gives the same total.
2. **OptimizeBySendEvents**: per receiving stream, walking its nodes in order,
   a sender that already sent to an earlier (or the same) node of this stream
   loses its later events — one sender, many receivers on one stream: keep the
   first.
3. **OptimizeByRecvEvents**: per sending stream, walking its nodes in order, a
   receiver that already has an event from an earlier node of this stream loses
   that earlier one — many senders on one stream, one receiver: keep the last.

GE's graphs end in a NetOutput node fed by every output producer, and those
edges get events too. ``net_output_stream`` models it: the stream GE's
allocation put NetOutput on (``ge`` reports it in its notes), or the stream a
plan joins its outputs onto; None leaves NetOutput out. For another
strategy's assignment :func:`ge_event_count_with_net_output` puts it on the
output producer's stream that costs GE the fewest events.

That is all: GE has no transitive reduction (OptimizeByStreamActivate only
applies to label streams activated by StreamActive nodes, which geir graphs do
not have), so an event implied by a chain through a third stream is still
emitted.
"""

from __future__ import annotations

from geir.passes.scheduling.op_graph import OpGraph

__all__ = ["ge_events", "ge_event_count", "ge_event_count_with_net_output", "output_producers", "ENTER_OPS"]

#: GE's ENTER / REFENTER: they send no event unless the successor is a StreamActive
ENTER_OPS = frozenset({"ge.enter", "ge.ref_enter"})
_INVALID = -1


def output_producers(graph: OpGraph) -> list[int]:
    """The nodes whose results the graph returns (NetOutput's inputs in GE)."""
    index = {id(op): i for i, op in enumerate(graph.ops)}
    outs: set[int] = set()
    for op in graph.block.ops:
        if op.name == "ge.return":
            for v in op.operands:
                j = index.get(id(getattr(v, "op", None)))
                if j is not None:
                    outs.add(j)
    return sorted(outs)


def ge_events(graph: OpGraph, streams: list[int], net_output_stream: int | None = None) -> list[tuple[int, int]]:
    """The (sender, receiver) node pairs GE keeps an event for, in GE's event-id
    order, when node ``i`` runs on ``streams[i]`` (-1: no stream, as GE leaves
    skip-engine ops). With ``net_output_stream``, node ``graph.n`` is GE's
    NetOutput on that stream. ValueError when an event would go to a node
    without a stream (GE's "stream id of next_node is invalid")."""
    n = graph.n
    if len(streams) != n:
        raise ValueError(f"{len(streams)} streams for {n} nodes")
    succs = graph.succs
    ops = [op.name for op in graph.ops]
    if net_output_stream is not None:
        succs = [list(ss) for ss in succs] + [[]]
        for j in output_producers(graph):
            succs[j].append(n)
        streams = [*streams, net_output_stream]
        ops.append("NetOutput")
        n += 1
    # InsertSyncEvents: event ids in sender order, then successor order
    events: list[tuple[int, int]] = []
    for cur in range(n):
        s = streams[cur]
        if s == _INVALID or ops[cur] in ENTER_OPS:
            continue
        for nxt in succs[cur]:
            t = streams[nxt]
            if t == s:
                continue
            if t == _INVALID:
                raise ValueError(f"node {nxt} ({ops[nxt]}) has no stream but waits for node {cur}")
            events.append((cur, nxt))
    alive = [True] * len(events)
    recv_of: list[list[int]] = [[] for _ in range(n)]
    send_of: list[list[int]] = [[] for _ in range(n)]
    for e, (cur, nxt) in enumerate(events):
        send_of[cur].append(e)
        recv_of[nxt].append(e)
    # OptimizeBySendEvents: per receiving stream, the first event of each sender
    senders_seen: dict[int, set[int]] = {}
    for r in range(n):  # the per-stream walks are independent; one global walk visits each in order
        seen = senders_seen.setdefault(streams[r], set())
        for e in recv_of[r]:
            sender = events[e][0]
            if sender in seen:
                alive[e] = False
            else:
                seen.add(sender)
    # OptimizeByRecvEvents: per sending stream, the last event into each receiver
    last: dict[tuple[int, int], int] = {}
    for s in range(n):
        for e in send_of[s]:
            if not alive[e]:
                continue
            key = (streams[s], events[e][1])
            if key in last:
                alive[last[key]] = False
            last[key] = e
    return [ev for ev, keep in zip(events, alive) if keep]


def ge_event_count(graph: OpGraph, streams: list[int], net_output_stream: int | None = None) -> int:
    """How many events GE's InsertSyncEvents + OptimizeBySendEvents +
    OptimizeByRecvEvents emit for this stream assignment (see the module doc)."""
    return len(ge_events(graph, streams, net_output_stream))


def ge_event_count_with_net_output(graph: OpGraph, streams: list[int]) -> int:
    """GE's count for this assignment with its NetOutput, which GE attaches to
    an output producer's stream: on whichever of those costs GE the fewest
    events (geir needs no such join: a graph ends when all its streams do)."""
    candidates = {streams[j] for j in output_producers(graph) if streams[j] != _INVALID}
    if not candidates:
        return ge_event_count(graph, streams)
    return min(ge_event_count(graph, streams, s) for s in sorted(candidates))
