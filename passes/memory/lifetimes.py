"""What a memory plan places, and which pairs may not share bytes.

A *buffer* is the storage of one tensor — or of several, when an elementwise op
writes in place over an input it is the last reader of. It is *defined* by the
node that writes its first tensor (a graph input by the host, before every
task) and *used* by that node and by every node reading or writing one of its
tensors; a graph output is also used by the end of the graph.

Buffers ``a`` (defined first in block order) and ``b`` may share bytes exactly
when every use of ``a`` happens before ``b``'s definition starts
(:mod:`.happens_before`). Since a stream's clocks only grow along its queue,
``a`` is dead for stream ``s`` from one queue position on: ``free[s]``. So a
sweep in block order that keeps, per stream, the buffers not yet dead there
finds every conflicting pair, in time proportional to their number.

A UB-fused chain is one node, as GE merges it before it assigns memory: what
any of its ops writes is defined when its head starts, and what any of them
reads is used until its last op ends (the kernel reads and writes tile by
tile, so its inputs and its result are live at once). Its intermediate results
(:func:`~geir.passes.fuse_ub.stays_in_unified_buffer`) are no buffers of the
arena: they never reach device memory. ``unified_buffer=True``
builds the problem of exactly those values instead, which the lowering keeps
in the task list's ``ub`` space (the emulator's numerics need somewhere to put
them; the device does not).

A concat that runs as no task holds its inputs (:mod:`.concat_slices`): they
are values of its result's buffer, :meth:`MemoryProblem.within` bytes from its
start, and the buffer is defined at a node that happens before every producer
of them.

An op GE runs as no task whose results are views of its operand — a reshape
(flatten, squeeze, unsqueeze, identity) or a split marked ``no_task``
(``alias-splits``) — writes nothing: its results are values of its operand's
buffer (a split's each :meth:`MemoryProblem.within` its chunk's bytes from the
operand's start), which then lives until their last reader (GE's
``ReshapeRemovePass`` leaves a reshape's readers reading its input; a no-task
split's outputs reuse its input, ``_output_reuse_input``). Not where the
operand or a result is zero-copy I/O, a concat's slice or a concat's result.

Graph inputs and outputs are *zero-copy* with ``zero_copy``: they live in
buffers of their own after the arena (GE's ``AssignZeroCopyMemory``), never
shared, so the plan does not see them.

A control op (an op with regions) is one node of its block: its regions run
between its start and its end, so what its regions need is one more buffer of
the node, its *region buffer* (:class:`Nesting` gives the sizes; see
:mod:`.region_plan`), and a value its regions read from outside is used by the
node. The same build serves a region's block (``Nesting.block``): its
arguments belong to the control op, its yielded values live to the region's
end, and a value written straight into the control op's result is no buffer
of its own.
"""

from __future__ import annotations

import heapq
from typing import Container, Sequence

import attrs

from geir.backends.task_list import element_bytes
from geir.constants import CONSTANT_OPS
from geir.diagnostics import error_at
from geir.dialects.ge import BINARY, UNARY
from geir.operation import Block, BlockArgument, Operation, OpResult, Value
from geir.passes.fuse_ub import chain_heads, runs_as_task, stays_in_unified_buffer
from geir.passes.memory.concat_slices import VIEW_OPS, ConcatLayout, concat_slices
from geir.passes.memory.happens_before import NEVER, StreamOrder
from geir.types import TensorType

__all__ = ["Buffer", "MemoryProblem", "Nesting", "IN_PLACE_OPS", "align", "tensor_bytes", "captured_values"]

#: elementwise ops whose result may overwrite an operand of the same type (the
#: kernel reads its inputs before it writes its output)
IN_PLACE_OPS = frozenset({f"ge.{u[0]}" for u in UNARY} | {f"ge.{b[0]}" for b in BINARY}
                         | {"ge.pow", "ge.max", "ge.min", "ge.sum", "ge.mean", "ge.is_nan"})

#: the "node" that defines graph inputs: the host, before every task
HOST = -1


def align(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def tensor_bytes(t: object) -> int:
    """The bytes a tensor of type ``t`` takes in device memory (what the lowering allots)."""
    assert isinstance(t, TensorType) and t.is_static
    n = 1
    for d in t.shape:
        n *= d  # type: ignore[operator]
    return n * element_bytes(str(t.element_type))


@attrs.define(eq=False)
class Buffer:
    """One placed unit of memory (see the module doc)."""

    id: int
    values: list[Value]
    size: int  # aligned bytes
    define: int  # the defining node, or HOST
    uses: list[int]
    live_out: bool  # a graph output: live until the end
    stream: int  # the dense stream of the defining node (0 for inputs)
    free: list[int] = attrs.Factory(list)  # per stream: first queue position after every use
    #: the control op whose regions this buffer holds (then ``values`` is empty)
    region_op: Operation | None = None

    @property
    def is_input(self) -> bool:
        return self.define == HOST

    @property
    def key(self) -> object:
        """What names the buffer across rebuilds of a problem: its first tensor, or its control op."""
        return self.values[0] if self.values else self.region_op


@attrs.define(eq=False)
class Nesting:
    """How control ops and regions enter a block's memory problem: ``scratch``
    holds the bytes the regions of each control op of the block need (absent
    or 0: none planned); ``block`` is the region block to plan (None: the
    graph's); ``aliased`` are values of that block that live in a buffer of
    the enclosing block (written straight into the control op's result)."""

    scratch: dict[Operation, int] = attrs.Factory(dict)
    block: Block | None = None
    aliased: frozenset[Value] = frozenset()


def captured_values(op: Operation) -> list[Value]:
    """The values ``op``'s regions read that are defined outside ``op``."""
    inner: set[int] = set()
    for nested in op.walk():
        inner.add(id(nested))
        for region in nested.regions:
            for block in region.blocks:
                inner.add(id(block))
    out: list[Value] = []
    seen: set[int] = set()
    for nested in op.walk():
        if nested is op:
            continue
        for v in nested.operands:
            owner = v.op if isinstance(v, OpResult) else getattr(v, "block", None)
            if id(owner) not in inner and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


@attrs.define(eq=False)
class MemoryProblem:
    """The buffers of one graph under one schedule, and their conflicts.

    ``buffers`` are those the arena plan places; ``io`` the zero-copy ones;
    ``conflicts[b]`` the ids of the arena buffers that may not overlap ``b``.
    """

    graph: Operation
    order: StreamOrder
    alignment: int
    buffers: list[Buffer]
    io: list[Buffer]
    of_value: dict[Value, Buffer]
    conflicts: list[list[int]]
    in_place: list[tuple[Operation, Value]]  # (op, the operand it overwrites)
    #: which concats take their inputs inside their result, and why the others do not
    concats: ConcatLayout = attrs.Factory(ConcatLayout)
    #: the results of no-task views (a reshape, an aliased split): their operand and
    #: where in it they start, in bytes
    views: dict[Value, tuple[Value, int]] = attrs.Factory(dict)

    @classmethod
    def build(cls, graph: Operation, order: StreamOrder, alignment: int = 512, in_place: bool = False,
              zero_copy: bool = False, nesting: Nesting | None = None,
              unified_buffer: bool = False, concat_in_place: bool = True,
              concat_fork: bool = True) -> "MemoryProblem":
        """The problem of ``graph``'s block (or of ``nesting.block``, a region
        inside it) under ``order``: of its arena, or with ``unified_buffer`` of
        the values that stay in the unified buffer. With ``concat_in_place`` a
        no-task concat's inputs live inside its result (:mod:`.concat_slices`;
        ``concat_fork``: also where its producers run at once on several streams)."""
        nesting = nesting or Nesting()
        block = nesting.block or graph.regions[0].blocks[0]
        in_region = nesting.block is not None
        zero_copy = zero_copy and not in_region  # a region's yields are not the graph's outputs
        ret = block.last_op
        returned = set(ret.operands) if ret is not None and ret.name in ("ge.return", "ge.yield") else set()
        of_value: dict[Value, Buffer] = {}
        uses: dict[Value, list[int]] = {}
        arena: list[Buffer] = []
        io: list[Buffer] = []
        pairs: list[tuple[Operation, Value]] = []

        sizes: dict[object, int] = {}

        def new_buffer(v: Value, define: int, stream: int) -> Buffer:
            size = sizes.get(v.type)
            if size is None:
                where = graph if define == HOST else order.nodes[define]
                if not isinstance(v.type, TensorType) or not v.type.is_static:
                    from geir.passes.range_shapes import dynamic_shape_diagnostics
                    e = error_at(where, f"reuse-memory: value of type {v.type} has no static size; "
                                        f"an arena plan needs every tensor's size")
                    for origin in dynamic_shape_diagnostics(graph)[:1]:
                        # why the dim is dynamic, where it starts, says how to make it static
                        e.diagnostics[0].attach_note(origin.message, origin.location)
                    raise e
                try:
                    size = sizes[v.type] = align(tensor_bytes(v.type), alignment)
                except ValueError:  # a string: its bytes depend on its value
                    raise error_at(where, f"reuse-memory: value of type {v.type} has no fixed size per element; "
                                          f"an arena plan needs every tensor's size") from None
            b = Buffer(-1, [v], size, define, [] if define == HOST else [define], v in returned, stream)
            if zero_copy and (define == HOST or v in returned):
                io.append(b)
            else:
                b.id = len(arena)
                arena.append(b)
            of_value[v] = b
            return b

        views: dict[Value, tuple[Value, int]] = {}
        nodes = [(op, order.index[id(op)]) for op in block.ops if id(op) in order.index]
        span = _fused_spans(nodes, order)
        layout = (concat_slices([op for op, _ in nodes], order, returned,
                                lambda op, i: span[id(op)][0] if id(op) in span else i, concat_fork)
                  if concat_in_place and not unified_buffer else ConcatLayout())
        slices, concat_defines = layout.slices, layout.defines
        for op, i in nodes:  # every read first: in place needs to know the *last* reader
            last = span[id(op)][1] if id(op) in span else i
            for v in op.operands:
                uses.setdefault(v, []).append(last)
            if op.regions:
                for v in captured_values(op):
                    uses.setdefault(v, []).append(i)
        if not in_region and not unified_buffer:  # a region's arguments are the control op's buffers
            for arg in block.arguments:
                new_buffer(arg, HOST, 0)
        for op, i in nodes:
            # a fused chain's ops write while the chain reads: none writes over what it reads
            viewed = (None if unified_buffer else
                      _viewed_operand(op, of_value, slices, concat_defines, returned, zero_copy, nesting.aliased))
            target = (_in_place_target(op, i, order, of_value, uses, returned, zero_copy, slices)
                      if in_place and not unified_buffer and id(op) not in span and viewed is None
                      and not any(r in slices for r in op.results) else None)
            # a view of its operand (no bytes of its own, nothing written) or an
            # elementwise op writing over it: the result joins the operand's buffer
            owner = viewed if viewed is not None else target
            at = 0
            for r in op.results:
                if r in nesting.aliased or stays_in_unified_buffer(r) != unified_buffer:
                    continue
                if owner is not None:
                    b = of_value[owner]
                    b.values.append(r)
                    b.uses.append(i)
                    b.live_out |= r in returned
                    of_value[r] = b
                    if viewed is not None:
                        views[r] = (viewed, at)
                        at += tensor_bytes(r.type)
                    else:
                        pairs.append((op, owner))
                elif r in concat_defines and r in of_value:  # its inputs took its buffer: the concat writes nothing
                    of_value[r].uses.append(i)
                elif r in slices:  # written into its concat's result, taken before the first producer
                    where = slices[r]
                    b = of_value.get(where.result)
                    if b is None:
                        define = concat_defines[where.result]
                        b = new_buffer(where.result, define, order.stream[define])
                    b.values.append(r)
                    b.uses.extend(span[id(op)] if id(op) in span else (i,))
                    of_value[r] = b
                elif id(op) in span:  # taken when the chain's head starts, held while the chain runs
                    first, last = span[id(op)]
                    new_buffer(r, first, order.stream[first]).uses.append(last)
                else:
                    new_buffer(r, i, order.stream[i])
            scratch = nesting.scratch.get(op, 0) if op.regions and not unified_buffer else 0
            if scratch > 0:
                b = Buffer(len(arena), [], align(scratch, alignment), i, [i], False, order.stream[i], region_op=op)
                arena.append(b)
        for v, us in uses.items():
            if v in of_value:
                of_value[v].uses.extend(us)
        for b in arena:
            last = order.last_uses(b.uses)
            if b.live_out:
                last = {s: NEVER for s in range(order.num_streams)}
            b.free = [order.first_free(last, s) for s in range(order.num_streams)]
        return cls(graph, order, alignment, arena, io, of_value, _conflicts(order, arena), pairs, layout, views)

    def within(self, v: Value) -> int:
        """Where ``v`` lies in its buffer: bytes from the start (a no-task concat's
        input inside the concat's result, a no-task split's result inside its
        operand; 0 for every other value)."""
        at = 0
        while v in self.views:  # a view of a view: a split of a reshape
            v, offset = self.views[v]
            at += offset
        inside = self.concats.slices.get(v)
        return at + (inside.offset if inside is not None else 0)

    @property
    def no_reuse_bytes(self) -> int:
        """The arena without reuse: every buffer its own bytes."""
        return sum(b.size for b in self.buffers)

    def ordered(self, a: Buffer, b: Buffer) -> bool:
        """Whether ``a`` is dead before ``b`` is defined (so ``b`` may reuse it)."""
        if b.is_input or a.define >= b.define:
            return False  # HOST < every node: inputs come first, and conflict with each other
        return self.order.rank[b.define] >= a.free[self.order.stream[b.define]]


def _fused_spans(nodes: list[tuple[Operation, int]], order: StreamOrder) -> dict[int, tuple[int, int]]:
    """For each op of a UB-fused chain (``fuse-ub``), by ``id``: the nodes of
    the chain's head and of its last op. The chain is one kernel, so what any of
    its ops writes is taken when the head starts and what any of them reads is
    held until the last one ends."""
    heads = chain_heads([op for op, _ in nodes])
    head_of = {i: nodes[h][1] for k, (_, i) in enumerate(nodes)
               if (h := heads[k]) >= 0 and order.stream[nodes[h][1]] == order.stream[i]}
    last: dict[int, int] = {}
    for i, h in head_of.items():
        last[h] = max(last.get(h, h), i)
    return {id(op): (head_of.get(i, i), last[head_of.get(i, i)]) for op, i in nodes
            if i in head_of or i in last}


def _viewed_operand(op: Operation, of_value: dict[Value, Buffer], slices: Container[Value],
                    concat_defines: Container[Value], returned: set[Value], zero_copy: bool,
                    aliased: Container[Value]) -> Value | None:
    """The operand whose buffer ``op``'s results are views of (see the module doc),
    or None: a reshape's or a no-task split's first operand, static and in a
    buffer of the arena, when neither it nor a result is zero-copy I/O, a
    concat's slice or a concat's result."""
    if op.name not in VIEW_OPS and not (op.name == "ge.split" and "no_task" in op.attributes):
        return None
    if not op.operands or not op.results:
        return None
    if runs_as_task(op):
        return None  # on an engine that runs it as a task (AICPU)
    v = op.operands[0]
    b = of_value.get(v)
    if b is None or b.region_op is not None or v in slices or v in concat_defines or v in aliased:
        return None
    if zero_copy and (b.is_input or b.live_out):
        return None  # zero-copy I/O: its own buffer outside the arena
    for r in op.results:
        if (not isinstance(r.type, TensorType) or not r.type.is_static or r in slices or r in concat_defines
                or r in aliased or (zero_copy and r in returned)):
            return None
    if sum(tensor_bytes(r.type) for r in op.results) != tensor_bytes(v.type):
        return None
    return v


def _in_place_target(op: Operation, i: int, order: StreamOrder, of_value: dict[Value, Buffer],
                     uses: dict[Value, list[int]], returned: set[Value], zero_copy: bool,
                     inside: Container[Value] = ()) -> Value | None:
    """The operand ``op`` (node ``i``) may overwrite, or None: an elementwise op
    whose one result has an operand's exact type, when every other use of that
    operand's buffer happens before ``op`` and the buffer is not zero-copy I/O
    (nor a slice of a concat's result, ``inside``)."""
    if op.name not in IN_PLACE_OPS or len(op.results) != 1:
        return None
    r = op.results[0]
    if zero_copy and r in returned:
        return None
    for v in op.operands:
        if v.type != r.type or v in returned or v in inside or not isinstance(v, (OpResult, BlockArgument)):
            continue
        if isinstance(v, OpResult) and v.op.name in CONSTANT_OPS:
            continue
        b = of_value.get(v)
        if b is None or b.live_out or (zero_copy and b.is_input):
            continue
        if any(w is not v and of_value.get(w) is b for w in op.operands):
            continue  # two operands in the buffer: one would be overwritten while read
        others = [u for u in b.uses + _all_uses(b, uses) if u != i]
        if all(order.happens_before(u, i) for u in others):
            return v
    return None


def _all_uses(b: Buffer, uses: dict[Value, list[int]]) -> list[int]:
    """Every read of ``b``'s tensors (they join ``b.uses`` at the end)."""
    out: list[int] = []
    for v in b.values:
        out.extend(uses.get(v, ()))
    return out


def _conflicts(order: StreamOrder, buffers: Sequence[Buffer]) -> list[list[int]]:
    """For each buffer, the buffers it may not overlap (symmetric lists)."""
    n_streams = order.num_streams
    conflicts: list[list[int]] = [[] for _ in buffers]
    live: list[set[int]] = [set() for _ in range(n_streams)]
    expiry: list[list[tuple[int, int]]] = [[] for _ in range(n_streams)]  # (free position, buffer)
    done = [0] * n_streams  # queue positions of each stream already swept

    def activate(b: Buffer) -> None:
        for s in range(n_streams):
            if b.free[s] > done[s]:
                live[s].add(b.id)
                heapq.heappush(expiry[s], (b.free[s], b.id))

    inputs = [b for b in buffers if b.is_input]
    for k, a in enumerate(inputs):  # the host writes every input before the first task
        for b in inputs[:k]:
            conflicts[a.id].append(b.id)
            conflicts[b.id].append(a.id)
        activate(a)
    by_define: dict[int, list[Buffer]] = {}
    for b in buffers:
        if not b.is_input:
            by_define.setdefault(b.define, []).append(b)
    for i in range(order.n):
        s = order.stream[i]
        k = order.rank[i]
        heap, alive = expiry[s], live[s]
        while heap and heap[0][0] <= k:
            alive.discard(heapq.heappop(heap)[1])
        defined = by_define.get(i)
        if defined:
            for b in defined:
                others = list(alive)
                conflicts[b.id].extend(others)
                for o in others:
                    conflicts[o].append(b.id)
                activate(b)
        done[s] = k + 1
    return conflicts
