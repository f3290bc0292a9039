"""``insert-events``: the record/wait pairs that keep every cross-stream
dependency in order — GE's third multi-stream step, with a transitive reduction
GE does not have.

For every ``ge.graph`` whose ops carry ``stream`` attributes (``partition-streams``
sets them; absent means stream 0), each stream issuing its ops in block order:

1. every data dependency between two streams needs its producer to happen
   before its consumer; the waits already implied by in-stream order and other
   events are dropped (:mod:`geir.passes.scheduling.sync_plan`: vector clocks,
   latest producer first). GE emits one event per cross-stream edge minus
   same-pair duplicates; the remark reports both counts;
2. a ``ge.record_event {event, stream}`` goes right after the producer and a
   ``ge.wait_event {event, stream}`` right before the consumer;
3. event ids are reused once the previous wait of an id is ordered before the
   next record and wait (the emulator's rule for binary events), within the
   device profile's ``max_events``;
4. a stream with more tasks than the device allows (``max_tasks_per_stream``,
   2013 on 910B) is split, each part chained to the next by an event — GE's
   ``SplitStreamAndRefreshTaskDef``. An op that is no task of its own (fused
   into its chain's head, a reshape, a concat or split laid out in place)
   counts for none. A part counts the end-of-graph task and the
   output copies ``lower-to-tasks`` will append to it: one for a value its ops
   compute that the graph returns again, and on stream 0 one for each returned
   input or constant (a value a task computes, returned once, is written in
   place and needs none).
"""

from __future__ import annotations

import attrs

from geir.attributes import IntegerAttr
from geir.backends.device_profile import load_profile
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.module import Module
from geir.operation import Operation, OpResult
from geir.passes.fuse_ub import runs_as_task
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.passes.scheduling.op_graph import SYNC_OPS, OpGraph, first_sync_op, is_node
from geir.passes.scheduling.sync_plan import plan_sync
from geir.rewriter import Rewriter

__all__ = ["InsertEvents", "ge_rule_event_count", "stream_attr"]


def stream_attr(op: Operation) -> int:
    """The stream an op is queued on (0 when it has none)."""
    s = op.get_attr("stream", 0)
    return s if isinstance(s, int) and s >= 0 else 0


def ge_rule_event_count(og: OpGraph, streams: list[int]) -> int:
    """How many events GE's own rule (one per cross-stream edge, same-pair
    duplicates dropped, its NetOutput joined to the outputs) would insert for
    this assignment."""
    from geir.passes.scheduling.ge_event_rule import ge_event_count_with_net_output
    return ge_event_count_with_net_output(og, streams)


@attrs.define
class InsertEvents(ModulePass):
    """Synchronise the streams of every graph with events."""

    name = "insert-events"
    summary = "insert record/wait events for cross-stream dependencies, transitively reduced, ids reused"

    reduce: bool = option(True, "drop waits implied by stream order and other events (false: one per cross-stream "
                                "dependency, as GE without its same-pair rules)")
    reuse_ids: bool = option(True, "reuse event ids whose lifetimes do not overlap")
    device: str = option("910B2", "device profile for max_tasks_per_stream and max_events")
    max_tasks_per_stream: int = option(0, "split streams longer than this (0: the device profile's limit)")

    def run(self, module: Module, ctx: PassContext) -> None:
        profile = load_profile(self.device)
        limit = self.max_tasks_per_stream or int(profile["max_tasks_per_stream"])
        max_events = int(profile["max_events"])
        for graph in list(module.graphs()):
            self._insert(graph, ctx, limit, max_events)

    def _insert(self, graph: Operation, ctx: PassContext, limit: int, max_events: int) -> None:
        synced = first_sync_op(graph.regions[0].blocks[0])
        if synced is not None:
            raise DiagnosticError(Diagnostic("error", f"'{synced.name}' op: insert-events found a graph that is "
                                                      "already synchronised; run it once, after partition-streams",
                                             op_position(synced)))
        og = OpGraph.build(graph)
        if og.n == 0:
            return
        streams = [stream_attr(op) for op in og.ops]
        order = list(range(og.n))
        sync = plan_sync(og.preds, streams, order, reuse_ids=self.reuse_ids, reduce=self.reduce)
        if sync.num_ids > max_events:
            raise DiagnosticError(Diagnostic("error", f"insert-events: the graph needs {sync.num_ids} event ids, "
                                                      f"more than the device's {max_events}", op_position(graph)))
        rewriter = Rewriter()
        last_record: dict[int, Operation] = {}
        for (p, c), eid in zip(sync.events, sync.ids):
            producer, consumer = og.ops[p], og.ops[c]
            record = _sync_op("ge.record_event", eid, streams[p], producer)
            # a producer's records go out in event order: the order its consumers are issued in
            rewriter.insert_after(last_record.get(p, producer), record)
            last_record[p] = record
            rewriter.insert_before(consumer, _sync_op("ge.wait_event", eid, streams[c], consumer))
        if len(set(streams)) > 1 or sync.events:
            ge_count = ge_rule_event_count(og, streams)
            ctx.remark(graph, f"insert-events: {sync.cross_edges} cross-stream dependencies; GE's rule inserts "
                              f"{ge_count} events, kept {len(sync.events)} after transitive reduction, "
                              f"using {sync.num_ids} event ids")
        copies, loose = _output_copies(og.block.last_op)
        split = _split_streams(graph, limit, copies, loose, sync.num_ids, rewriter)
        if split:
            ctx.remark(graph, f"insert-events: split {split} stream(s) longer than {limit} tasks, each part "
                              "chained to the next by an event")


def _sync_op(name: str, event: int, stream: int, anchor: Operation) -> Operation:
    op = Operation(name, attributes={"event": IntegerAttr(event), "stream": IntegerAttr(stream)})
    op.location = anchor.location
    return op


def _output_copies(terminator: Operation | None) -> tuple[dict[Operation, int], int]:
    """The copies ``lower-to-tasks`` appends for the values ``terminator`` returns:
    per op, those of its results returned again (they go on its stream), and how
    many returned inputs or constants go on stream 0. A value a task computes,
    returned once, is written in place."""
    per_op: dict[Operation, int] = {}
    loose = 0
    written: set[OpResult] = set()
    for value in terminator.operands if terminator is not None else ():
        producer = value.op if isinstance(value, OpResult) else None
        if producer is None or not is_node(producer):
            loose += 1
        elif value in written:
            per_op[producer] = per_op.get(producer, 0) + 1
        else:
            written.add(value)
    return per_op, loose


def _split_streams(graph: Operation, limit: int, copies: dict[Operation, int], loose: int, first_event: int,
                   rewriter: Rewriter) -> int:
    """Split every stream whose tasks, with its end-of-graph task and the output
    ``copies`` its ops bring (``loose`` more on stream 0), exceed ``limit``; returns
    how many streams were split. A part ends with a record its continuation waits
    for. An op whose copies alone exceed a part gets a part of its own."""
    block = graph.regions[0].blocks[0]
    capacity = max(2, limit - 2)  # room for the part's end-of-graph task and closing record
    ops = [op for op in block.ops if is_node(op) or op.name in SYNC_OPS]
    logical = [stream_attr(op) for op in ops]
    if not ops:
        return 0
    weights = [(1 if op.name in SYNC_OPS or runs_as_task(op) else 0) + copies.get(op, 0) for op in ops]
    count: dict[int, int] = {0: loose}
    for weight, s in zip(weights, logical):
        count[s] = count.get(s, 0) + weight
    if max(count.values()) <= capacity + 1:
        return 0
    next_stream = max(logical) + 1
    physical: dict[int, int] = {}
    count = {0: loose}
    opened: set[int] = set()
    split: set[int] = set()
    event = first_event
    for op, s, weight in zip(ops, logical, weights):
        cur = physical.setdefault(s, s)
        if s in opened and weight and count.get(s, 0) + weight > capacity:
            new = next_stream
            next_stream += 1
            rewriter.insert_before(op, _sync_op("ge.record_event", event, cur, op))
            rewriter.insert_before(op, _sync_op("ge.wait_event", event, new, op))
            event += 1
            physical[s] = cur = new
            count[s] = 1  # the wait
            split.add(s)
        count[s] = count.get(s, 0) + weight
        opened.add(s)
        if cur != s:
            op.attributes["stream"] = IntegerAttr(cur)
    return len(split)
