"""Peak live bytes: the most arena bytes holding values still to be read, at any
instant of the simulated run — the floor a memory plan for this schedule could
reach, to compare with the plan's ``arena_size``.

A value lives from the start of the task that writes it (the buffer is taken
when the kernel starts) to the end of its last reader; graph inputs live from
time 0, graph outputs until the end. Values are identified by their exact byte
range: a read of ``[a, b)`` extends the value last written to exactly ``[a, b)``
(a read of a sub-range extends nothing, so slices of a buffer are not counted
twice). A new value written over exactly the bytes of an older one ends the
older one there, since one byte cannot hold two values.
"""

from __future__ import annotations

import numpy as np

from geir.backends.emulator.simulator import INF, Schedule

__all__ = ["peak_live_bytes"]


def peak_live_bytes(schedule: Schedule) -> tuple[int, float]:
    """(peak live bytes, the time it is first reached)."""
    program = schedule.program
    start, end = schedule.start, schedule.end
    alloc: list[float] = []
    free: list[float] = []
    size: list[int] = []
    live: dict[tuple[int, int], int] = {}
    for b in program.task_list.inputs:
        if b.ref.space == "arena" and b.ref.nbytes:
            live[(b.ref.offset, b.ref.end)] = len(alloc)
            alloc.append(0.0)
            free.append(0.0)
            size.append(b.ref.nbytes)
    touching = [g for g, (r, w) in enumerate(zip(program.reads, program.writes)) if (r or w) and start[g] != INF]
    starts = np.asarray([start[g] for g in touching])
    order = [touching[i] for i in np.argsort(starts, kind="stable")]
    reads_of, writes_of = program.reads, program.writes
    live_get = live.get
    alloc_add, free_add, size_add = alloc.append, free.append, size.append
    for g in order:
        reads = reads_of[g]
        if reads:
            e = end[g]
            for key in reads:
                i = live_get(key)
                if i is not None and free[i] < e:
                    free[i] = e
        writes = writes_of[g]
        if writes:
            s = start[g]
            e = end[g]
            for key in writes:
                old = live_get(key)
                if old is not None and free[old] > s:
                    free[old] = s
                live[key] = len(size)
                alloc_add(s)
                free_add(e)
                size_add(key[1] - key[0])
    for b in program.task_list.outputs:
        i = live.get((b.ref.offset, b.ref.end))
        if i is not None:
            free[i] = max(free[i], schedule.makespan)
    if not size:
        return 0, 0.0
    times = np.concatenate([np.asarray(alloc), np.asarray(free)])
    deltas = np.concatenate([np.asarray(size, dtype=np.int64), -np.asarray(size, dtype=np.int64)])
    # at equal times frees (negative deltas) come first: a buffer released as another is taken is not both live
    order_idx = np.lexsort((deltas, times))
    running = np.cumsum(deltas[order_idx])
    k = int(np.argmax(running))
    return int(running[k]), float(times[order_idx][k])
