"""``unroll``: N iterations (frames) of one task list back to back on the same
streams, with double-buffered arena regions and events between iterations —
how GE's task sink runs a model loaded once over a stream of video frames.

Frame ``k`` is a copy of every stream's tasks (the end markers dropped, one
appended after the last frame):

* its arena refs move to region ``k % buffers`` (offset ``+ (k % buffers) x
  arena_size``; the arena grows to ``buffers x arena_size``), and its
  unified-buffer refs likewise (``+ (k % buffers) x ub_size``); the weights
  stay shared (read-only);
* its event ids move by ``k x num_events`` (an event is a binary flag: reusing
  an id across frames could lose a record);
* its kernels are named ``<name>@k`` so schedules can be split by frame;
* its input and output bindings are suffixed ``@k``.

Frame ``k + buffers`` reuses frame ``k``'s region, so before stream ``t`` of
frame ``k + buffers`` touches the region it waits for every other stream ``s``
of frame ``k`` whose accesses conflict with ``t``'s (a write on either side of
overlapping bytes, in the arena or the unified buffer): ``s`` records a fresh
event after its last access of frame ``k`` and ``t`` waits for it before its
first. Streams are in order, so a
stream never waits for itself. The race checker therefore finds no race in an
unrolled list of a race-free one; with ``buffers = 1`` the frames serialise on
their shared bytes, with ``buffers >= iterations`` nothing is reused.

Numerics: the emulator loads every input binding at time 0 and reads every
output at the end, so with ``buffers < iterations`` frames sharing a region see
the last such frame's input values; ``buffers >= iterations`` keeps every
frame's values. The unrolled list is meant for timing (frames per second,
utilisation, overlap).
"""

from __future__ import annotations

from geir.backends.task_list import (ARENA, UB, Binding, EndGraph, Kernel, Memcpy, Record, Stream, Task, TaskList,
                                     TensorRef, Wait)
from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["unroll", "frame_of", "event_count"]

Range = tuple[int, int]


def event_count(task_list: TaskList) -> int:
    """Event ids a task list uses: its ``num_events``, or one past its largest id."""
    top = -1
    for _, _, t in task_list.all_tasks():
        if isinstance(t, (Record, Wait)) and t.event > top:
            top = t.event
    return max(task_list.num_events, top + 1)


def frame_of(task: Task) -> int | None:
    """The frame of a kernel of an unrolled list (its ``@k`` name suffix), else None."""
    if not isinstance(task, Kernel):
        return None
    _, at, k = task.name.rpartition("@")
    return int(k) if at and k.isdigit() else None


class _Shifter:
    """Moves refs into one frame's region. Frames that share a region share the
    moved refs, so each ref is rebuilt once per region, not once per frame."""

    def __init__(self) -> None:
        self._moved: dict[tuple[int, int, int], TensorRef] = {}

    def ref(self, ref: TensorRef | None, by: int, ub_by: int = 0) -> TensorRef | None:
        if ref is None:
            return ref
        step = by if ref.space == ARENA else ub_by if ref.space == UB else 0
        if not step:
            return ref
        key = (id(ref), by, ub_by)  # the refs live as long as the task list being unrolled
        moved = self._moved.get(key)
        if moved is None:
            moved = self._moved[key] = TensorRef(ref.space, ref.offset + step, ref.shape, ref.dtype)
        return moved

    def task(self, task: Task, arena_shift: int, ub_shift: int, event_shift: int, frame: int, stream: int,
             index: int) -> Task:
        if isinstance(task, Kernel):
            name = task.name or f"{stream}:{index}"
            # the constructor, not attrs.evolve: evolve reads every field by name
            # first, which costs more than the copy over a long run's kernels
            return Kernel(op=task.op, engine=task.engine,
                          inputs=[self.ref(r, arena_shift, ub_shift) for r in task.inputs],
                          outputs=[self.ref(r, arena_shift, ub_shift) for r in task.outputs],  # type: ignore[misc]
                          attributes=task.attributes, block_dim=task.block_dim, flops=task.flops, bytes=task.bytes,
                          loc=task.loc, name=f"{name}@{frame}")
        if isinstance(task, Memcpy):
            return Memcpy(self.ref(task.src, arena_shift), self.ref(task.dst, arena_shift),  # type: ignore[arg-type]
                          task.loc)
        if isinstance(task, Record):
            return Record(task.event + event_shift, task.loc)
        if isinstance(task, Wait):
            return Wait(task.event + event_shift, task.loc)
        raise TypeError(f"cannot copy task {task!r}")


def _accesses(tasks: list[Task], arena_size: int) -> tuple[list[Range], list[Range], int, int]:
    """(ranges read, ranges written, index of the first and the last task
    touching memory; -1 when none) of one stream's tasks: arena bytes, and
    unified-buffer bytes numbered after the arena's ``arena_size``."""
    reads: list[Range] = []
    writes: list[Range] = []
    first = last = -1
    for i, t in enumerate(tasks):
        ins: list[TensorRef | None]
        outs: list[TensorRef]
        if isinstance(t, Kernel):
            ins, outs = t.inputs, t.outputs
        elif isinstance(t, Memcpy):
            ins, outs = [t.src], [t.dst]
        else:
            continue
        touched = False
        for r in ins:
            if r is not None and r.space in (ARENA, UB) and r.nbytes:
                base = arena_size if r.space == UB else 0
                reads.append((base + r.offset, base + r.end))
                touched = True
        for r in outs:
            if r.space in (ARENA, UB) and r.nbytes:
                base = arena_size if r.space == UB else 0
                writes.append((base + r.offset, base + r.end))
                touched = True
        if touched:
            if first < 0:
                first = i
            last = i
    return reads, writes, first, last


def _overlap(a: list[Range], b: list[Range]) -> bool:
    if not a or not b:
        return False
    b_sorted = sorted(b)
    for lo, hi in a:
        for blo, bhi in b_sorted:
            if blo >= hi:
                break
            if bhi > lo:
                return True
    return False


def unroll(task_list: TaskList, iterations: int, buffers: int = 2) -> TaskList:
    """``iterations`` frames of ``task_list`` back to back, arena regions
    ``k % buffers`` (see the module doc).

    Raises:
        DiagnosticError: ``iterations`` or ``buffers`` below 1.
    """
    if iterations < 1:
        raise DiagnosticError(Diagnostic("error", f"iterations must be at least 1, got {iterations}"))
    if buffers < 1:
        raise DiagnosticError(Diagnostic("error", f"buffers must be at least 1, got {buffers}"))
    buffers = min(buffers, iterations)
    size = task_list.arena_size
    events = event_count(task_list)
    bodies = [[t for t in s.tasks if not isinstance(t, EndGraph)] for s in task_list.streams]
    access = [_accesses(body, size) for body in bodies]
    n = len(bodies)
    # conflict[s][t]: stream t of frame k + buffers must wait for stream s of frame k
    conflict = [[s != t and access[s][2] >= 0 and access[t][2] >= 0 and
                 (_overlap(access[t][1], access[s][0] + access[s][1]) or _overlap(access[t][0], access[s][1]))
                 for t in range(n)] for s in range(n)]
    pairs = [(s, t) for s in range(n) for t in range(n) if conflict[s][t]]
    pair_index = {p: i for i, p in enumerate(pairs)}
    frame_events = iterations * events

    def handoff(k: int, s: int, t: int) -> int:
        # the event stream s of frame k records for stream t of frame k + buffers
        return frame_events + (k * len(pairs) + pair_index[(s, t)])

    used_handoffs = max(0, iterations - buffers) * len(pairs)
    shifter = _Shifter()
    streams: list[Stream] = []
    for si, st in enumerate(task_list.streams):
        body = bodies[si]
        first, last = access[si][2], access[si][3]
        out: list[Task] = []
        for k in range(iterations):
            shift, ub_shift = (k % buffers) * size, (k % buffers) * task_list.ub_size
            for i, t in enumerate(body):
                if i == first and k >= buffers:
                    out.extend(Wait(handoff(k - buffers, s, si), f"frame {k} reuses region {k % buffers}")
                               for s in range(n) if conflict[s][si])
                out.append(shifter.task(t, shift, ub_shift, k * events, k, st.id, i))
                if i == last and k + buffers < iterations:
                    out.extend(Record(handoff(k, si, t2), f"frame {k} done with region {k % buffers}")
                               for t2 in range(n) if conflict[si][t2])
        out.append(EndGraph())
        streams.append(Stream(st.id, st.priority, out))

    def bindings(items: list[Binding]) -> list[Binding]:
        return [Binding(f"{b.name}@{k}", shifter.ref(b.ref, (k % buffers) * size))  # type: ignore[arg-type]
                for k in range(iterations) for b in items]

    return TaskList(streams=streams, arena_size=size * buffers, weights=list(task_list.weights),
                    weight_size=task_list.weight_size, inputs=bindings(task_list.inputs),
                    outputs=bindings(task_list.outputs), num_events=frame_events + used_handoffs,
                    name=f"{task_list.name}x{iterations}", ub_size=task_list.ub_size * buffers)
