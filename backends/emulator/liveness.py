"""Peak live bytes: the most arena bytes holding values still to be read, at any
instant of the simulated run — the floor a memory plan for this schedule could
reach, to compare with the plan's ``arena_size``.

A value lives from the start of the task that writes it (the buffer is taken
when the kernel starts; for an op UB-fused into another, when the chain's head
starts, as the chain is one kernel) to the end of its last reader; graph inputs
live from time 0, graph outputs until the end (one written at the very end is
live then). Values are identified by their exact byte range: a read of
``[a, b)`` extends the value last written to exactly ``[a, b)`` (a read of a
sub-range extends nothing, so slices of a buffer are not counted twice). A new
value written over exactly the bytes of an older one ends the older one there,
since one byte cannot hold two values.
"""

from __future__ import annotations

import numpy as np

from geir.backends.emulator.program import Program
from geir.backends.emulator.simulator import INF, Schedule
from geir.backends.task_list import UB, Kernel

__all__ = ["peak_live_bytes"]


def peak_live_bytes(schedule: Schedule, start: np.ndarray | None = None,
                    end: np.ndarray | None = None) -> tuple[int, float]:
    """(peak live bytes, the time it is first reached); ``start`` and ``end``:
    the schedule's times as arrays, when the caller has them already."""
    program = schedule.program
    n = program.n
    inputs = [(b.ref.offset, b.ref.end) for b in program.task_list.inputs if b.ref.space == "arena" and b.ref.nbytes]
    # Every access, flattened: the arena ranges each task reads, then those it writes. Tasks are taken
    # in order of start time (ties: task number), a task's reads before its writes, as they happen.
    # The compiler flattened the ranges already (a walk over every task's tuples costs more than the rest).
    if start is None or end is None:
        start = np.fromiter(schedule.start, np.float64, n)
        end = np.fromiter(schedule.end, np.float64, n)
    read = _table(program.read_table)
    write = _table(program.write_table)
    tasks = np.concatenate([read[:, 0], write[:, 0]])
    lo = np.concatenate([read[:, 1], write[:, 1]])
    hi = np.concatenate([read[:, 2], write[:, 2]])
    is_write = np.concatenate([np.zeros(len(read), bool), np.ones(len(write), bool)])
    # the rank of a task's start among the tasks with ranges orders accesses as the rank among all would
    has_ranges = np.zeros(n, bool)
    has_ranges[tasks] = True
    ranged = np.flatnonzero(has_ranges)
    rank = np.empty(n, np.int64)
    rank[ranged[np.argsort(start[ranged], kind="stable")]] = np.arange(len(ranged))
    ran = start[tasks] != INF
    tasks, lo, hi, is_write = tasks[ran], lo[ran], hi[ran], is_write[ran]
    # the graph inputs: written by the host at time 0, before everything
    k = len(inputs)
    seq = np.concatenate([np.arange(-k, 0), rank[tasks] * 2 + is_write])
    lo = np.concatenate([np.asarray([a for a, _ in inputs], np.int64), lo])
    hi = np.concatenate([np.asarray([b for _, b in inputs], np.int64), hi])
    is_write = np.concatenate([np.ones(k, bool), is_write])
    # a UB-fused op writes when its chain's head starts: the chain is one kernel writing tile by tile
    taken = start[_chain_heads(program)] if program.task_list.ub_size else start
    at = np.concatenate([np.zeros(k), np.where(is_write[k:], taken[tasks], start[tasks])])
    until = np.concatenate([np.zeros(k), end[tasks]])
    # A value is one write of one exact range; group the accesses by range, in the order they happen
    # (a stable sort keeps a task's accesses in their order).
    order = np.lexsort((seq, hi, lo))
    lo, hi, is_write, at, until = lo[order], hi[order], is_write[order], at[order], until[order]
    if not is_write.any():
        return 0, 0.0
    new_range = np.ones(len(lo), bool)
    new_range[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    written = np.cumsum(is_write)
    # a read extends the value last written to its range, if any (nothing before the range's first write)
    before = np.maximum.accumulate(np.where(new_range, written - is_write, 0))
    counts = (~is_write) & (written > before)
    w = np.flatnonzero(is_write)
    # a value lives from its writer's start to the last end among its writer and readers ...
    free = np.maximum.reduceat(np.where(is_write | counts, until, -INF), w)
    # ... but no longer than the next write of the same bytes
    group = np.cumsum(new_range)[w]
    follows = np.zeros(len(w), bool)
    follows[:-1] = group[1:] == group[:-1]
    free[follows] = np.minimum(free[follows], at[w[1:]][follows[:-1]])
    alloc = at[w]
    size = hi[w] - lo[w]
    # graph outputs live to the end (the last value of their range)
    last = ~follows
    output = np.zeros(len(w), bool)
    for b in program.task_list.outputs:
        hit = np.flatnonzero(last & (lo[w] == b.ref.offset) & (hi[w] == b.ref.end))
        if len(hit):
            free[hit[0]] = max(free[hit[0]], schedule.makespan)
            output[hit[0]] = True
    times = np.concatenate([alloc, free])
    deltas = np.concatenate([size, -size])
    # at equal times frees come first: a buffer released as another is taken is not both live; but a
    # graph output written at the very end (by a task of no time) is live then: its release comes last
    late = np.concatenate([np.zeros(len(alloc), bool), output & (free <= alloc)])
    order_idx = np.lexsort((np.where(late, 1, np.sign(deltas)), times))
    running = np.cumsum(deltas[order_idx])
    j = int(np.argmax(running))
    return int(running[j]), float(times[order_idx][j])


def _chain_heads(program: Program) -> np.ndarray:
    """Each task's UB-fused chain head: the task that wrote the unified-buffer
    value it reads, followed back (itself when it reads none)."""
    heads = np.arange(program.n)
    for s in range(len(program.first) - 1):
        written: dict[tuple[int, int], int] = {}  # a unified-buffer range -> the chain head that wrote it last
        for g in range(program.first[s], program.first[s + 1]):
            t = program.tasks[g]
            if not isinstance(t, Kernel):
                continue
            for r in t.inputs:
                if r is not None and r.space == UB and (r.offset, r.end) in written:
                    heads[g] = written[(r.offset, r.end)]
                    break
            for r in t.outputs:
                if r.space == UB:
                    written[(r.offset, r.end)] = int(heads[g])
    return heads


def _table(flat: list[int]) -> np.ndarray:
    """A program's flat (task, lo, hi) table as rows."""
    return np.fromiter(flat, np.int64, len(flat)).reshape(-1, 3)
