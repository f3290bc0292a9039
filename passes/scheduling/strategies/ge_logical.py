"""``ge``: GE's own logical stream allocation, done faithfully — the baseline the
other strategies are measured against.

It follows ``hicann/ge`` (``compiler/graph/partition/engine_partitioner.cc``,
``compiler/graph/build/stream/logical_stream_allocator.cc``, ``stream_utils.cc``).
The graph GE allocates on is the task nodes plus GE's NetOutput (a GE_LOCAL op
fed by the output producers; Data and Const nodes never get a stream):

1. **Engine partitioning** (``EnginePartitioner::MarkClusters``). Every node
   starts as its own cluster; for each node in block order, its parent clusters
   (fewest successors first) merge into it when both carry the same user stream
   label, or when engine and ``_stream_label`` are equal and no second path joins
   them (``HasSecondPath``). The clusters, ranked by their first node
   (``SortSubGraphs``), are GE's engine subgraphs. The engine is GE's engine
   *name*: an AICore op is ``AIcoreEngine`` whether the 910B cost model runs it
   on the cube or the vector cores; only an op pinned to VectorCore is
   ``VectorEngine``.
2. **AssignByLabelPass**: one new stream per distinct ``_stream_label``, shared
   across engines. A ``stream_label`` attribute is a *user* label (GE copies
   ``_user_stream_label`` into ``_stream_label``); ``ge.cmo`` ops get GE's
   automatic label ``<graph>_Cmo`` (AttachStreamLabelPass), so they always sit
   on a stream of their own.
3. **IndependentStreamPass**: HCCL subgraphs without a user label get streams
   keyed by label, so all unlabelled collectives share one stream.
4. **AssignByDependencyPass**, in subgraph order: a subgraph continues the
   stream of the highest-priority predecessor subgraph that ``CouldReuse``
   accepts — not HCCL, unlabelled, and *SubGraphCouldReuse*: the predecessor
   has no other successor subgraph of the predecessor's own engine (GE's fork
   rule); then same engine, or an attach engine (AICPU, DVPP, RTS, GE_LOCAL), or
   the predecessor itself continued a subgraph of this engine. Otherwise
   ``AssignNewStream`` hands out per-engine local ids 0, 1, ... that **wrap to 0
   at ``max_parallel_num``** (``ge.streamMaxParallelNum``). Engines then get
   global ranges in engine-name order (``std::map``), reuse chains follow their
   root.
5. **UpdateForSkippedEnginePass**: an unlabelled GE_LOCAL (skip-assign) op whose
   predecessors all lack a stream gets none (-1); otherwise, when it has
   successors and all its stream-bearing neighbours share one stream, it takes
   that stream.
6. **OptimizeIneffectiveMultiStreamPass**: an unlabelled op none of whose
   neighbours shares its stream moves onto a neighbour stream S (not a label
   stream) when its closest input and closest output on S are adjacent on S.
7. **RefreshContinuousStreams**: ids dense from 0 in id order; GE's final
   rewrite of stream -1 to 0 happens here too (our plans have no -1).

Ties GE breaks by ``std::set`` pointer order (``GetTopPrioritySubgraph``) are
broken here by subgraph rank, which is what allocation order usually gives.

**What GE's defaults therefore do.** ``kDefaultMaxParalleNum`` is 1, so
``AssignNewStream`` always wraps to the engine's single stream: by default
**each engine gets exactly one stream** (plus one per label and one for HCCL),
whatever the graph's width. The fork rule then only *separates* engines — a
fork off an AICore subgraph can never open a second AICore stream — so two
parallel AICore branches run on one in-order queue. ``plan_parallel`` is what a
user who sets ``ge.streamMaxParallelNum=AIcoreEngine:<max-streams>`` gets:
forks of AICore subgraphs open new AICore streams up to that many. Even then,
the partitioner merges same-engine siblings that meet again (a diamond of
AICore ops is one subgraph), so a CNN made only of AICore ops — Inception's
branches included — is one subgraph on one stream.

``plan_dynamic`` is GE's other allocator, ``DynamicStreamAllocator``, which GE
uses for dynamic-shape graphs when ``ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1``
(without it such a graph runs on one stream): one stream per engine, with the
``ac_parallel_enable`` rule for AICPU.

**Max-streams cap.** GE's logical allocator has no stream cap (the runtime's
limit is only read when streams are split for task counts), so when the result
exceeds the budget we merge the two least-loaded unlabelled streams until it
fits, and say so in a note. Unlabelled nodes get ``max(max_streams - L, 1)``
streams, ``L`` being the number of label streams: the total never exceeds
``max(max_streams, L + 1)``.

Not modelled, because the IR has nothing that triggers them: MDE groups
(``NewStreamId``), ``_parallel_group``, ``AllReduceParallelPass``
(``ge.hcomParallel``), ``_force_attach_stream``, memory-priority mode,
subgraph default streams, FFTS+ and control-flow activation labels
(partition-streams falls back to a safe strategy for control ops). GE does not
reorder: ``order`` is the block order.
"""

from __future__ import annotations

import bisect
from collections import Counter
from typing import Callable, Iterable

import attrs

from geir.backends.cost_model import AICORE, AICPU, DVPP, GE_LOCAL, HCCL, SDMA, VECTOR, normalize_engine
from geir.constants import CONSTANT_OPS
from geir.operation import BlockArgument, OpResult, Value
from geir.passes.scheduling.ge_event_rule import output_producers
from geir.passes.scheduling.problem import ScheduleProblem
from geir.passes.scheduling.stream_plan import StreamPlan

__all__ = ["plan", "plan_parallel", "plan_with_parallel_num", "plan_dynamic", "allocate", "allocate_dynamic",
           "Allocation", "AllocationStats", "partition",
           "GeGraph", "ge_engine", "EngineConf", "ENGINE_CONFS", "Subgraph", "MAX_PARALLEL_NUM", "INVALID_STREAM"]

#: GE's ``kDefaultMaxParalleNum`` (stream_utils.h): new streams per engine
MAX_PARALLEL_NUM = 1
#: GE's ``kInvalidStream``
INVALID_STREAM = -1
#: GE's ``PriorityEnum::COST_10``, the start value of ``GetTopPrioritySubgraph``
_COST_10 = 10


@attrs.frozen
class EngineConf:
    """One engine's scheduling flags (engine_conf.json) and priority
    (``compute_cost``, lower is preferred)."""

    name: str
    priority: int
    attach: bool = False
    independent: bool = False
    skip: bool = False


#: the engines a geir op can land on, by GE's engine name (ge-internals §1)
ENGINE_CONFS: dict[str, EngineConf] = {c.name: c for c in (
    EngineConf("AIcoreEngine", 1),
    EngineConf("VectorEngine", 2),
    EngineConf("DSAEngine", 2),
    EngineConf("DNN_HCCL", 2, independent=True),
    EngineConf("DNN_VM_RTS", 2, attach=True),
    EngineConf("DNN_VM_AICPU_ASCEND", 3, attach=True),
    EngineConf("DNN_VM_AICPU", 4, attach=True),
    EngineConf("DNN_VM_DVPP", 5, attach=True),
    EngineConf("DNN_VM_GE_LOCAL", 9, attach=True, skip=True),
)}

#: cost-model pool -> GE engine name
_POOL_ENGINES = {AICORE: "AIcoreEngine", VECTOR: "VectorEngine", HCCL: "DNN_HCCL", AICPU: "DNN_VM_AICPU_ASCEND",
                 DVPP: "DNN_VM_DVPP", SDMA: "DNN_VM_RTS", GE_LOCAL: "DNN_VM_GE_LOCAL"}
#: spellings whose GE engine the pool does not tell apart
_NAMED_ENGINES = {"rts": "DNN_VM_RTS", "dnn_vm_rts": "DNN_VM_RTS",
                  "aicpu_tf_kernel": "DNN_VM_AICPU", "dnn_vm_aicpu": "DNN_VM_AICPU"}


def ge_engine(problem: ScheduleProblem, i: int) -> str:
    """GE's engine name for node ``i``. Keyed on the engine *name* the op carries,
    not the cost-model pool: on split devices an AICore vector kernel runs on the
    vector cores, but GE still places it with AIcoreEngine."""
    raw = (problem.engines[i] or "").lower()
    if raw in _NAMED_ENGINES:
        return _NAMED_ENGINES[raw]
    pool = normalize_engine(raw)
    if pool is None:
        pool = AICORE if problem.pools[i] == VECTOR else problem.pools[i]
    return _POOL_ENGINES.get(pool, "AIcoreEngine")


@attrs.define(eq=False)
class Subgraph:
    """One engine subgraph: its nodes (block order), engine, labels, neighbour
    subgraphs and the stream GE gives it. ``reused`` is the root subgraph of the
    reuse chain it continues (GE's ``reused_subgraph``)."""

    index: int
    engine: EngineConf
    label: str | None
    user_label: str | None
    nodes: list[int]
    preds: list[int] = attrs.Factory(list)
    succs: list[int] = attrs.Factory(list)
    stream: int = INVALID_STREAM
    reused: "Subgraph | None" = None


@attrs.define(eq=False)
class GeGraph:
    """The graph GE allocates streams on: the task nodes (0..n-1, block order)
    plus, when the graph returns a node's result, GE's NetOutput node (index n),
    a GE_LOCAL op fed by every output producer. Data and Const nodes are left
    out: GE leaves them without a stream and they neither send nor wait."""

    preds: list[list[int]]
    succs: list[list[int]]
    engines: list[str]
    labels: list[str | None]  # _stream_label
    user_labels: list[str | None]  # _user_stream_label
    has_regions: list[bool]
    reads_inputs: list[bool]  # fed by a graph input or a constant (GE's input subgraph)
    net_output: int | None

    @property
    def n(self) -> int:
        return len(self.preds)

    @classmethod
    def build(cls, problem: ScheduleProblem, net_output: bool = True) -> "GeGraph":
        """GE's view of ``problem``'s graph; ``net_output=False`` leaves NetOutput out."""
        g = problem.graph
        graph_name = g.graph.get_attr("sym_name") or "graph"
        labels: list[str | None] = []
        for i, op in enumerate(g.ops):
            label = problem.labels[i]
            if label is None and op.name == "ge.cmo":
                label = f"{graph_name}_Cmo"  # AttachStreamLabelPass: every Cmo op on one stream
            labels.append(label)
        preds = [list(ps) for ps in g.preds]
        succs = [list(ss) for ss in g.succs]
        engines = [ge_engine(problem, i) for i in range(g.n)]
        user_labels = list(problem.labels)
        has_regions = [bool(op.regions) for op in g.ops]

        def from_inputs(values: Iterable[Value]) -> bool:
            # a graph argument (Data) or a constant: both live in GE's input subgraph
            return any(isinstance(v, BlockArgument) or v.op.name in CONSTANT_OPS for v in values
                       if isinstance(v, (BlockArgument, OpResult)))

        reads_inputs = [from_inputs(op.operands) for op in g.ops]
        outs = output_producers(g) if net_output else []
        net = None
        if outs:
            net = g.n
            preds.append(outs)
            succs.append([])
            for j in outs:
                succs[j].append(net)
            engines.append("DNN_VM_GE_LOCAL")
            labels.append(None)
            user_labels.append(None)
            has_regions.append(False)
            ret = g.block.terminator
            reads_inputs.append(ret is not None and from_inputs(ret.operands))
        return cls(preds, succs, engines, labels, user_labels, has_regions, reads_inputs, net)


def partition(problem: ScheduleProblem | GeGraph) -> list[Subgraph]:
    """GE's engine subgraphs, in GE's rank order (``EnginePartitioner::MarkClusters``
    then ``SortSubGraphs``). From a problem: of its task nodes only, without NetOutput."""
    gg = problem if isinstance(problem, GeGraph) else GeGraph.build(problem, net_output=False)
    n = gg.n
    engines, labels, user_labels = gg.engines, gg.labels, gg.user_labels
    members: list[list[int]] = [[i] for i in range(n)]
    in_clu: list[set[int]] = [set(ps) for ps in gg.preds]
    out_clu: list[set[int]] = [set(ss) for ss in gg.succs]

    def has_second_path(src: int, dst: int, upper: int) -> bool:
        # the direct edge is removed by the caller; clusters at or past `upper`
        # are unprocessed singletons that cannot lead back
        if not out_clu[src] or not in_clu[dst]:
            return False
        stack, seen = [src], set()
        while stack:
            c = stack.pop()
            if c in seen:
                continue
            seen.add(c)
            for o in out_clu[c]:
                if o == dst:
                    return True
                if o < upper:
                    stack.append(o)
        return False

    def mergeable(parent: int, child: int, upper: int) -> bool:
        p, c = members[parent][0], members[child][0]
        if user_labels[p] is not None and user_labels[p] == user_labels[c]:
            return True  # second partitioning: one user label merges across engines
        if engines[p] != engines[c] or labels[p] != labels[c]:
            return False
        out_clu[parent].discard(child)
        in_clu[child].discard(parent)
        second = has_second_path(parent, child, upper)
        out_clu[parent].add(child)
        in_clu[child].add(parent)
        return not second

    def merge(parent: int, child: int) -> int:
        # GE keeps the smaller cluster index and rewires the bigger one's edges to it
        small, big = min(parent, child), max(parent, child)
        members[small].extend(members[big])
        members[big] = []
        out_clu[parent].discard(child)
        in_clu[child].discard(parent)
        in_clu[small] |= in_clu[big]
        out_clu[small] |= out_clu[big]
        for x in in_clu[big]:
            out_clu[x].discard(big)
            out_clu[x].add(small)
        for x in out_clu[big]:
            in_clu[x].discard(big)
            in_clu[x].add(small)
        in_clu[small].discard(small)
        out_clu[small].discard(small)
        in_clu[big], out_clu[big] = set(), set()
        return small

    for child in range(n):
        # GE sorts the parents by their number of successor clusters (ties: index)
        parents = sorted(in_clu[child], key=lambda p: (len(out_clu[p]), p))
        merged = child
        for parent in parents:
            if members[parent] and parent != merged and mergeable(parent, merged, child):
                merged = merge(parent, merged)

    cluster_of = [0] * n
    subgraphs: list[Subgraph] = []
    for c in range(n):  # rank = order of first node
        if not members[c]:
            continue
        nodes = sorted(members[c])
        first = nodes[0]
        sg = Subgraph(len(subgraphs), ENGINE_CONFS[engines[first]], labels[first], user_labels[first], nodes)
        for i in nodes:
            cluster_of[i] = sg.index
        subgraphs.append(sg)
    for sg in subgraphs:
        preds = {cluster_of[j] for i in sg.nodes for j in gg.preds[i]} - {sg.index}
        sg.preds = sorted(preds)
        for p in sg.preds:
            subgraphs[p].succs.append(sg.index)
    return subgraphs


@attrs.define
class AllocationStats:
    """What the passes did, for the notes."""

    forks: int = 0
    wraps: int = 0
    skipped_invalid: int = 0
    skipped_moved: int = 0
    ineffective: int = 0


@attrs.define(eq=False)
class Allocation:
    """What GE's logical allocator decides: ``streams[i]`` for every node of
    ``graph`` (the task nodes, then NetOutput if any; ``INVALID_STREAM`` where
    GE leaves a node without a stream), before RefreshContinuousStreams."""

    graph: GeGraph
    subgraphs: list[Subgraph]
    streams: list[int]
    stats: AllocationStats


def _top_priority(cur: Subgraph, peers: list[int], subgraphs: list[Subgraph],
                  could_reuse: Callable[[Subgraph, Subgraph], bool]) -> Subgraph | None:
    """GE's GetTopPrioritySubgraph: among the ``peers`` ``cur`` could reuse, the
    first with the strictly lowest engine cost (None when it can reuse none)."""
    best: Subgraph | None = None
    priority = _COST_10
    for p in peers:
        peer = subgraphs[p]
        if could_reuse(cur, peer):
            if best is None:
                best = peer
            if peer.engine.priority < priority:
                priority, best = peer.engine.priority, peer
    return best


def allocate(problem: ScheduleProblem, max_parallel: dict[str, int] | None = None) -> Allocation:
    """GE's logical stream allocation of ``problem``'s graph. ``max_parallel``
    maps GE engine names to ``ge.streamMaxParallelNum`` (default
    :data:`MAX_PARALLEL_NUM` for every engine)."""
    max_parallel = max_parallel or {}
    gg = GeGraph.build(problem)
    subgraphs = partition(gg)
    stats = AllocationStats()
    next_stream = 0

    # AssignByLabelPass
    label_streams: dict[str, int] = {}
    for sg in subgraphs:
        if sg.label is not None:
            if sg.label not in label_streams:
                label_streams[sg.label] = next_stream
                next_stream += 1
            sg.stream = label_streams[sg.label]

    # IndependentStreamPass: keyed by (engine, label); a user label keeps its stream
    independent: dict[tuple[str, str | None], int] = {}
    for sg in subgraphs:
        if not sg.engine.independent or (sg.stream != INVALID_STREAM and sg.user_label is not None):
            continue
        key = (sg.engine.name, sg.label)
        if key not in independent:
            independent[key] = next_stream
            next_stream += 1
        sg.stream = independent[key]

    # AssignByDependencyPass
    engine_next: dict[str, int] = {}
    engine_num: dict[str, int] = {}
    assigned: list[Subgraph] = []
    reused_pairs: list[tuple[Subgraph, Subgraph]] = []

    def assign_new(sg: Subgraph) -> int:
        name = sg.engine.name
        sid = engine_next.get(name, 0)
        if sid >= max_parallel.get(name, MAX_PARALLEL_NUM):
            sid = 0
            stats.wraps += 1
        sg.stream = sid
        engine_next[name] = sid + 1
        assigned.append(sg)
        engine_num[name] = max(engine_num.get(name, 0), sid + 1)
        return sid

    def sub_graph_could_reuse(cur: Subgraph, pred: Subgraph) -> bool:
        return not any(s != cur.index and subgraphs[s].engine.name == pred.engine.name for s in pred.succs)

    def could_reuse(cur: Subgraph, pred: Subgraph) -> bool:
        if pred.engine.independent or pred.label is not None:
            return False
        if not sub_graph_could_reuse(cur, pred):
            stats.forks += 1
            return False
        if cur.engine.name == pred.engine.name or cur.engine.attach:
            return True
        return pred.reused is not None and pred.reused.engine.name == cur.engine.name

    for sg in subgraphs:
        if sg.stream != INVALID_STREAM:
            continue
        best = _top_priority(sg, sg.preds, subgraphs, could_reuse)
        if best is None:
            assign_new(sg)
            continue
        sg.stream = best.stream if best.stream != INVALID_STREAM else assign_new(best)
        root = best.reused if best.reused is not None else best
        sg.reused = root
        reused_pairs.append((sg, root))

    # UpdateAssignedSubgraphs: engines get global ranges in engine-name order
    starts: dict[str, int] = {}
    for name in sorted(engine_num):
        starts[name] = next_stream
        next_stream += engine_num[name]
    for sg in assigned:
        sg.stream += starts[sg.engine.name]
    for sg, root in reused_pairs:  # UpdateReusedSubgraphs
        sg.stream = root.stream

    # NodeStreamUpdatePass
    streams = [INVALID_STREAM] * gg.n
    for sg in subgraphs:
        for i in sg.nodes:
            streams[i] = sg.stream

    # UpdateForSkippedEnginePass
    candidates = {i for sg in subgraphs if sg.engine.skip and sg.label is None for i in sg.nodes
                  if streams[i] != INVALID_STREAM}
    for i in range(gg.n):
        if i not in candidates:
            continue
        if not gg.has_regions[i] and all(streams[j] == INVALID_STREAM for j in gg.preds[i]):
            streams[i] = INVALID_STREAM
            stats.skipped_invalid += 1
        elif gg.succs[i]:
            around = {streams[j] for j in (*gg.preds[i], *gg.succs[i])} - {INVALID_STREAM}
            if len(around) == 1:
                (s,) = around
                if s != streams[i]:
                    stats.skipped_moved += 1
                streams[i] = s

    _optimize_ineffective(gg, streams, stats)
    return Allocation(gg, subgraphs, streams, stats)


def _optimize_ineffective(gg: GeGraph, streams: list[int], stats: AllocationStats) -> None:
    """GE's OptimizeIneffectiveMultiStreamPass, in place."""
    on_stream: dict[int, list[int]] = {}  # stream -> its nodes, sorted (GE: topo ids per stream)
    label_streams: set[int] = set()
    for i, s in enumerate(streams):
        if s == INVALID_STREAM:
            continue
        on_stream.setdefault(s, []).append(i)
        if gg.labels[i] is not None:
            label_streams.add(s)
    for i in range(gg.n):
        cur = streams[i]
        if gg.labels[i] is not None or cur == INVALID_STREAM:
            continue
        preds, succs = gg.preds[i], gg.succs[i]
        if any(streams[j] == cur for j in preds) or any(streams[j] == cur for j in succs):
            continue  # moving it would not remove an event
        io: dict[int, list[int]] = {}  # stream -> [closest input, closest output] (-1: none)
        for j in preds:
            s = streams[j]
            if s != INVALID_STREAM:
                pair = io.setdefault(s, [-1, -1])
                if j > pair[0]:
                    pair[0] = j
        for j in succs:
            s = streams[j]
            if s != INVALID_STREAM:
                pair = io.setdefault(s, [-1, -1])
                if pair[1] < 0 or j < pair[1]:
                    pair[1] = j
        for s in sorted(io):  # GE does not stop at the first move
            before, after = io[s]
            if s in label_streams or before < 0 or after < 0:
                continue
            ids = on_stream[s]
            k = bisect.bisect_right(ids, before)
            if k == len(ids) or ids[k] != after:
                continue  # another node of s runs between them
            old = on_stream[streams[i]]
            del old[bisect.bisect_left(old, i)]
            bisect.insort(ids, i)
            streams[i] = s
            stats.ineffective += 1


def _refresh(streams: list[int]) -> list[int]:
    """RefreshContinuousStreams (dense in id order), then GE's final -1 -> 0."""
    ids = {s: k for k, s in enumerate(sorted(set(streams) - {INVALID_STREAM}))}
    return [ids.get(s, 0) for s in streams]


def _cap(problem: ScheduleProblem, gg: GeGraph, streams: list[int], notes: list[str], tag: str) -> list[int]:
    """Merge the two least-loaded unlabelled streams until the budget holds
    (GE has no cap of its own). ``streams`` covers the task nodes."""
    label_streams = {streams[i] for i in range(problem.n) if gg.labels[i] is not None}
    budget = max(problem.max_streams - len(label_streams), 1)
    load: dict[int, float] = {}
    for i, s in enumerate(streams):
        if s not in label_streams:
            load[s] = load.get(s, 0.0) + problem.costs[i].duration_us
    if len(load) <= budget:
        return streams
    before = len(set(streams))
    target = {s: s for s in load}
    while len(load) > budget:
        (a, _), (b, _) = sorted(load.items(), key=lambda kv: (kv[1], kv[0]))[:2]
        keep, gone = min(a, b), max(a, b)
        load[keep] += load.pop(gone)
        for s, t in target.items():
            if t == gone:
                target[s] = keep
    notes.append(f"{tag}: GE has no logical-stream cap and would use {before} streams; merged the "
                 f"least-loaded unlabelled streams to fit max-streams={problem.max_streams}")
    return _refresh([target.get(s, s) for s in streams])


def _finish(problem: ScheduleProblem, alloc: Allocation, tag: str, notes: list[str]) -> StreamPlan:
    """Subgraph and stream notes, GE's final renumbering, the max-streams cap."""
    gg, subgraphs = alloc.graph, alloc.subgraphs
    by_engine = Counter(sg.engine.name for sg in subgraphs)
    notes.insert(0, f"{tag}: {len(subgraphs)} engine subgraphs ("
                 + ", ".join(f"{k} {name}" for name, k in sorted(by_engine.items())) + ")"
                 + (", NetOutput included" if gg.net_output is not None else ""))
    labels = sorted({label for label in gg.labels if label is not None})
    if labels:
        notes.insert(1, f"{tag}: {len(labels)} stream label(s) on their own streams: {', '.join(labels)}")
    hccl = {alloc.streams[i] for sg in subgraphs if sg.engine.independent for i in sg.nodes}
    if hccl:
        notes.append(f"{tag}: HCCL on its own stream" + ("s" if len(hccl) > 1 else ""))
    real_invalid = sum(1 for s in alloc.streams[:problem.n] if s == INVALID_STREAM)
    if alloc.stats.skipped_moved or real_invalid:
        notes.append(f"{tag}: GE_LOCAL ops: {alloc.stats.skipped_moved} took their neighbours' stream, "
                     f"{real_invalid} left without one (stream 0, no event)")
    # RefreshContinuousStreams counts NetOutput's stream too; the plan holds the task nodes
    refreshed = _refresh(alloc.streams)
    streams = _refresh(_cap(problem, gg, refreshed[:problem.n], notes, tag))
    if gg.net_output is not None:
        net = alloc.streams[gg.net_output]
        shared = [i for i in range(problem.n) if alloc.streams[i] == net != INVALID_STREAM]
        if net == INVALID_STREAM:
            notes.append(f"{tag}: NetOutput without a stream")
        else:
            notes.append(f"{tag}: NetOutput on stream {streams[shared[0]]}" if shared
                         else f"{tag}: NetOutput on a stream of its own (no task; not in the plan)")
    notes.append(f"{tag}: {len(set(streams))} stream(s)")
    return StreamPlan(streams, list(range(problem.n)), notes)


def plan_with_parallel_num(problem: ScheduleProblem, max_parallel: dict[str, int], tag: str = "ge") -> StreamPlan:
    """GE's allocation with ``ge.streamMaxParallelNum`` = ``max_parallel`` (GE
    engine name -> new streams that engine may open; unnamed engines get
    :data:`MAX_PARALLEL_NUM`), capped to ``problem.max_streams``."""
    if problem.n == 0:
        return StreamPlan([], [], [f"{tag}: empty graph"])
    alloc = allocate(problem, max_parallel)
    stats = alloc.stats
    notes: list[str] = []
    if stats.forks:
        notes.append(f"{tag}: fork rule (SubGraphCouldReuse) refused reuse {stats.forks} time(s)")
    if stats.wraps:
        limits = ", ".join(f"{k}:{v}" for k, v in sorted(max_parallel.items())) or f"{MAX_PARALLEL_NUM} per engine"
        notes.append(f"{tag}: max_parallel_num ({limits}) sent {stats.wraps} new-stream request(s) back to "
                     "an engine's existing stream")
    if stats.ineffective:
        notes.append(f"{tag}: OptimizeIneffectiveMultiStream moved {stats.ineffective} op(s) onto a "
                     "neighbour's stream")
    return _finish(problem, alloc, tag, notes)


# ------------------------------------------------------------ dynamic shape

#: DynamicStreamAllocator's engines that own a stream (kEnginesOwningStream)
_OWNING_STREAM = frozenset({"AIcoreEngine", "VectorEngine", "DNN_HCCL", "DSAEngine"})
#: kAicpuEngineIds
_AICPU_ENGINES = frozenset({"DNN_VM_AICPU", "DNN_VM_AICPU_ASCEND"})
#: kEnginesNoTask
_NO_TASK_ENGINES = frozenset({"DNN_VM_GE_LOCAL"})


def allocate_dynamic(problem: ScheduleProblem, ac_parallel: bool = False) -> Allocation:
    """GE's DynamicStreamAllocator (``dynamic_stream_allocator.cc``), used for
    dynamic-shape graphs when ``ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1``: one
    stream per engine that owns one (AIcoreEngine, VectorEngine, HCCL, DSA);
    with ``ac_parallel`` (``ac_parallel_enable=1``) an AICPU subgraph gets the
    AICPU stream when it has no input, only no-task inputs, or no predecessor
    it may follow; then every other subgraph follows a predecessor, else a
    successor (AICPU never follows HCCL), else takes its engine's stream; stream
    labels override per node. Streams are numbered by engine priority, then
    labels; unassigned nodes, nodes with regions and NetOutput go to stream 0.
    The returned streams are final (no further renumbering)."""
    gg = GeGraph.build(problem)
    subgraphs = partition(gg)
    engine_streams: dict[str, int] = {}
    next_stream = 0

    def own(sg: Subgraph) -> None:  # AssignStreamForSubgraph
        nonlocal next_stream
        if sg.engine.name not in engine_streams:
            engine_streams[sg.engine.name] = next_stream
            next_stream += 1
        sg.stream = engine_streams[sg.engine.name]

    def no_input(sg: Subgraph) -> bool:
        return not sg.preds and not any(gg.reads_inputs[i] for i in sg.nodes)

    for sg in subgraphs:  # AssignEnginesOwningStream
        if sg.engine.name in _OWNING_STREAM:
            own(sg)
    if ac_parallel:  # AssignAicpuCanParallel
        for sg in subgraphs:
            if sg.engine.name not in _AICPU_ENGINES:
                continue
            only_no_task = not any(gg.reads_inputs[i] for i in sg.nodes) and all(
                subgraphs[p].engine.name in _NO_TASK_ENGINES and no_input(subgraphs[p]) for p in sg.preds)
            can_follow = any(
                subgraphs[p].engine.name in _OWNING_STREAM and not subgraphs[p].engine.independent
                and not any(q != sg.index and subgraphs[q].engine.name == subgraphs[p].engine.name
                            for q in subgraphs[p].succs)
                for p in sg.preds)
            if no_input(sg) or only_no_task or not can_follow:
                own(sg)
    # (otherwise AssignIndependentAicpuNode: only GetNext/DropOutGenMask-like ops, which geir has not)

    def could_reuse(cur: Subgraph, peer: Subgraph) -> bool:
        if cur.engine.name in _AICPU_ENGINES and peer.engine.independent:
            return False  # AICPU cannot attach to HCCL
        if cur.engine.name == peer.engine.name or cur.engine.attach:
            return True
        return peer.reused is not None and peer.reused.engine.name == cur.engine.name

    def top(cur: Subgraph, peers: list[int]) -> Subgraph | None:
        return _top_priority(cur, peers, subgraphs, could_reuse)

    for sg in subgraphs:  # AssignWithReuse
        if sg.stream != INVALID_STREAM:
            continue
        peer = top(sg, sg.preds) or top(sg, sg.succs)
        if peer is None:
            continue
        if peer.reused is not None:
            peer = peer.reused
        if peer.stream == INVALID_STREAM:
            continue  # GE gives up here rather than trying another peer
        sg.stream, sg.reused = peer.stream, peer
    for sg in subgraphs:  # AssignRemainSubgraphNeedAssignStream
        if sg.stream == INVALID_STREAM and not sg.engine.skip:
            own(sg)

    streams = [INVALID_STREAM] * gg.n
    for sg in subgraphs:
        for i in sg.nodes:
            streams[i] = sg.stream
    label_ids: dict[str, int] = {}
    for i in range(gg.n):  # ReassignStreamByStreamLabel
        label = gg.labels[i]
        if label is not None:
            if label not in label_ids:
                label_ids[label] = next_stream
                next_stream += 1
            streams[i] = label_ids[label]

    # RefreshContinuousStreams: engines still owning nodes by priority, then labels (by name)
    used = set(streams)
    order = sorted((e for e, sid in engine_streams.items() if sid in used),
                   key=lambda e: (ENGINE_CONFS[e].priority, e))
    old_to_new = {engine_streams[e]: k for k, e in enumerate(order)}
    for label in sorted(label_ids):
        old_to_new[label_ids[label]] = len(old_to_new)
    for i in range(gg.n):
        if streams[i] == INVALID_STREAM or gg.has_regions[i] or i == gg.net_output or not old_to_new:
            streams[i] = 0
        else:
            streams[i] = old_to_new[streams[i]]
    return Allocation(gg, subgraphs, streams, AllocationStats())


def plan_dynamic(problem: ScheduleProblem, time_limit_s: float = 0.0, ac_parallel: bool = False) -> StreamPlan:
    """GE's allocation for a dynamic-shape graph with
    ``ENABLE_DYNAMIC_SHAPE_MULTI_STREAM=1`` (without it GE runs such a graph on
    one stream) and ``ac_parallel_enable`` = ``ac_parallel``."""
    tag = "ge-dynamic"
    if problem.n == 0:
        return StreamPlan([], [], [f"{tag}: empty graph"])
    alloc = allocate_dynamic(problem, ac_parallel)
    notes = [f"{tag}: one stream per engine (AIcoreEngine, VectorEngine, HCCL, DSA); AICPU "
             + ("on its own stream where it cannot follow a predecessor (ac_parallel_enable=1)" if ac_parallel
                else "follows its neighbours (ac_parallel_enable unset)")]
    return _finish(problem, alloc, tag, notes)


def plan(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """GE's logical stream allocation with GE's defaults (one stream per engine)."""
    return plan_with_parallel_num(problem, {}, "ge")


def plan_parallel(problem: ScheduleProblem, time_limit_s: float = 0.0) -> StreamPlan:
    """GE with ``ge.streamMaxParallelNum=AIcoreEngine:<max-streams>``: what a GE
    user who tunes the option gets."""
    return plan_with_parallel_num(problem, {"AIcoreEngine": max(problem.max_streams, 1)}, "ge-parallel")
