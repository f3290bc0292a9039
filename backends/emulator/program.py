"""A task list compiled for the simulator: flat per-task arrays (kind, engine pool,
units, duration, event, arena ranges) indexed by a global task number.

The simulator's inner loop reads plain Python lists, never task objects, so the
timing-only mode stays fast; this module is also where a malformed task list is
rejected with a diagnostic (unknown engine, an engine the device lacks, a ref
outside the arena, a write into the weight space) and where the device's limits
are compared with the task list (warnings, not errors: GE would split streams).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import attrs

from geir.backends.cost_model import COST_ATTRIBUTES, GE_LOCAL, POOLS, SDMA, CostModel, TaskCost
from geir.backends.emulator.control import control_duration
from geir.backends.task_list import (ARENA, CONTROL_TASKS, WEIGHTS, Kernel, Memcpy, Record, Task, TaskList, TensorRef,
                                     Wait)
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.diagnostics import error as _error

__all__ = ["Program", "KernelRows", "compile_program", "KERNEL", "RECORD", "WAIT", "END", "CONTROL", "task_label"]

#: task kinds in :attr:`Program.kind` (a Memcpy is a KERNEL on the SDMA pool;
#: CONTROL: labels, stream switches and activations, :mod:`.control`)
KERNEL, RECORD, WAIT, END, CONTROL = 0, 1, 2, 3, 4

Range = tuple[int, int]
INF = float("inf")
#: a kernel output's and input's part of its cost memo key
_OUTPUT_KEY = attrgetter("shape", "dtype")
_INPUT_KEY = attrgetter("shape", "dtype", "space")


@attrs.define(eq=False)
class Program:
    """Everything the simulator needs, one entry per task (global index ``g``).

    Stream ``s`` (an index into :attr:`stream_ids`) holds tasks
    ``first[s] .. first[s + 1] - 1`` in queue order.
    """

    task_list: TaskList
    tasks: list[Task]
    stream_ids: list[int]
    priorities: list[int]
    first: list[int]
    stream_of: list[int]
    kind: list[int]
    pool: list[int]  # index into pool_names; -1 for records, waits and end markers
    units: list[int]
    duration: list[float]
    event: list[int]  # event id of records and waits, else -1
    reads: list[tuple[Range, ...] | None]  # arena byte ranges read at the start
    writes: list[tuple[Range, ...] | None]  # arena byte ranges written at the end
    pool_names: tuple[str, ...]
    capacity: list[int]
    num_event_ids: int
    warnings: list[str]
    #: index into :attr:`traffic` of a task that moves HBM bytes, else -1
    traffic_id: list[int] = attrs.Factory(list)
    #: distinct (overhead us, HBM bytes, demand bytes/us, peak rate bytes/us) of
    #: the tasks that move HBM bytes; demand = the rate at which the task alone
    #: moves its bytes (below the peak rate when it is compute-bound)
    traffic: list[tuple[float, float, float, float]] = attrs.Factory(list)
    #: the device's HBM bandwidth, bytes/us
    hbm_bandwidth: float = INF
    #: a kernel starts on the units that are free when fewer than it asks for are
    #: (the profile's ``block_dispatch``; else it waits for all of them)
    block_dispatch: bool = False
    #: some task is a control task (labels, stream switches and activations)
    has_control: bool = False

    @property
    def n(self) -> int:
        return len(self.tasks)

    @property
    def num_streams(self) -> int:
        return len(self.stream_ids)

    def index_in_stream(self, g: int) -> int:
        return g - self.first[self.stream_of[g]]

    def label(self, g: int) -> str:
        """``stream 1 task 4 (ge.conv2d @ model.onnx:3:5)``: how reports name a task."""
        return task_label(self, g)

    def describe(self, g: int) -> dict[str, Any]:
        """A task as reports list it: stream, index, kind, op, loc."""
        t = self.tasks[g]
        d: dict[str, Any] = {"stream": self.stream_ids[self.stream_of[g]], "index": self.index_in_stream(g),
                             "kind": t.kind, "loc": t.loc}
        if isinstance(t, Kernel):
            d["op"] = t.op
            if t.name:
                d["name"] = t.name
        elif isinstance(t, (Record, Wait)):
            d["event"] = t.event
        return d


def task_label(program: Program, g: int) -> str:
    t = program.tasks[g]
    what = t.op if isinstance(t, Kernel) else (f"{t.kind} event {t.event}" if isinstance(t, (Record, Wait)) else t.kind)
    where = f" @ {t.loc}" if t.loc else ""
    return f"stream {program.stream_ids[program.stream_of[g]]} task {program.index_in_stream(g)} ({what}{where})"

@attrs.define(eq=False)
class KernelRows:
    """What :func:`compile_program` learned about Kernel objects it will see
    again: a caller that emulates many task lists built from the same kernels
    (a judge measuring plans of one graph) keeps one, so each kernel is costed
    and its arena ranges are checked once. A row is kept by the object's
    identity (holding the object, so the id stays its own) and is valid for one
    cost model and one arena and weight size; the kernels must not change
    while it is kept."""

    #: id(kernel) -> (kernel, pool index, units, duration, traffic row or None, reads, writes)
    rows: dict[int, tuple[Any, ...]] = attrs.Factory(dict)
    cost: CostModel | None = None
    arena_size: int = -1
    weight_size: int = -1


def compile_program(task_list: TaskList, cost: CostModel, max_errors: int = 20,
                    reuse: KernelRows | None = None) -> Program:
    """Flatten ``task_list`` with durations and engine units from ``cost``
    (``reuse``: rows of kernels compiled before, see :class:`KernelRows`).

    Raises:
        DiagnosticError: every problem found (up to ``max_errors``), each naming its task.
    """
    pool_index = {p: i for i, p in enumerate(POOLS)}
    errors: list[Diagnostic] = []
    warnings: list[str] = []
    profile = cost.profile
    seen_ids: set[int] = set()
    for st in task_list.streams:
        if st.id in seen_ids:
            errors.append(Diagnostic("error", f"stream id {st.id} is declared twice"))
        seen_ids.add(st.id)

    tasks: list[Task] = []
    stream_of: list[int] = []
    first: list[int] = []
    # one row per task (kind, pool, units, duration, event, reads, writes), transposed
    # at the end: a tuple per task is cheaper than seven list appends
    rows: list[tuple[int, int, int, float, int, tuple[Range, ...] | None, tuple[Range, ...] | None]] = []
    add = rows.append
    arena_size = task_list.arena_size
    weight_size = task_list.weight_size
    max_event = -1
    record_us, wait_us = cost.record_us, cost.wait_us
    sdma = pool_index[SDMA]
    # Kernels repeat (op, engine, shapes, spaces, the attributes costs read) a lot:
    # their cost and sizes are memoised.
    cost_memo: dict[Any, tuple[int, int, float, int, tuple[float, float, float, float] | None]] = {}
    known = cost.memo  # the costs themselves outlive this program (a judge compiles many)
    size_memo: dict[Any, int] = {}  # (shape, dtype, ...) -> bytes
    traffic: list[tuple[float, float, float, float]] = []
    traffic_index: dict[tuple[float, float, float, float], int] = {}

    def traffic_row(c: TaskCost) -> tuple[float, float, float, float] | None:
        # the fluid-model parameters of a costed task (None: it moves no HBM bytes)
        if c.hbm_bytes <= 0 or c.hbm_rate <= 0:
            return None
        alone = c.duration_us - c.overhead_us  # max(compute, memory)
        demand = c.hbm_bytes / alone if alone > 0 else c.hbm_rate
        return (c.overhead_us, c.hbm_bytes, min(demand, c.hbm_rate), c.hbm_rate)

    def traffic_id_of(row: tuple[float, float, float, float] | None) -> int:
        # the row's index in this program's traffic table (-1: none), numbered by first use
        if row is None:
            return -1
        i = traffic_index.get(row)
        if i is None:
            i = traffic_index[row] = len(traffic)
            traffic.append(row)
        return i

    def where(s_index: int, i: int, t: Task) -> str:
        return f"stream {task_list.streams[s_index].id} task {i} ({t.kind}{' @ ' + t.loc if t.loc else ''})"

    def ref_range(ref: TensorRef, s_index: int, i: int, t: Task, role: str, writing: bool) -> Range | None:
        # the arena bytes ref names (None: weights or empty), checking it lies inside its space
        key = (ref.shape, ref.dtype)
        nbytes = size_memo.get(key)
        if nbytes is None:
            nbytes = size_memo[key] = ref.nbytes
        lo = ref.offset
        hi = lo + nbytes
        if ref.space == ARENA:
            if lo < 0 or hi > arena_size:
                errors.append(Diagnostic("error", f"{where(s_index, i, t)}: {role} [{lo}, {hi}) lies outside the "
                                                  f"arena of {arena_size} bytes"))
                return None
            return (lo, hi) if hi > lo else None
        if ref.space == WEIGHTS:
            if writing:
                errors.append(Diagnostic("error", f"{where(s_index, i, t)}: {role} writes the read-only weight space"))
            elif lo < 0 or hi > weight_size:
                errors.append(Diagnostic("error", f"{where(s_index, i, t)}: {role} [{lo}, {hi}) lies outside the "
                                                  f"weight space of {weight_size} bytes"))
            return None
        errors.append(Diagnostic("error", f"{where(s_index, i, t)}: {role} names unknown space '{ref.space}'"))
        return None

    size_get = size_memo.get

    def arena_ranges(refs: list[TensorRef | None] | list[TensorRef], keys: tuple[Any, ...], s_index: int, i: int,
                     t: Task, role: str, writing: bool) -> tuple[Range, ...] | None:
        # the arena ranges of a kernel's inputs or outputs (keys: each ref's memo key, shape and dtype
        # first); a ref in bounds in the arena is the common case, anything else goes through ref_range
        found = []
        for j, r in enumerate(refs):
            if r is None:
                continue
            size_key = keys[j]
            nbytes = size_get(size_key)
            if nbytes is None:
                nbytes = size_memo[size_key] = r.nbytes
            lo = r.offset
            hi = lo + nbytes
            if r.space == ARENA and lo >= 0 and hi <= arena_size:
                if hi > lo:
                    found.append((lo, hi))
            else:
                x = ref_range(r, s_index, i, t, f"{role} #{j}", writing)
                if x is not None:
                    found.append(x)
        return tuple(found) if found else None

    reuse_get = None
    if reuse is not None:
        if reuse.cost is not cost or reuse.arena_size != arena_size or reuse.weight_size != weight_size:
            reuse.rows.clear()  # checked against other limits, costed by another model
            reuse.cost, reuse.arena_size, reuse.weight_size = cost, arena_size, weight_size
        reuse_get = reuse.rows.get

    for s_index, st in enumerate(task_list.streams):
        first.append(len(tasks))
        tasks.extend(st.tasks)
        stream_of.extend([s_index] * len(st.tasks))
        if len(st.tasks) > profile["max_tasks_per_stream"]:
            warnings.append(f"stream {st.id} holds {len(st.tasks)} tasks, more than the device's "
                            f"{profile['max_tasks_per_stream']} per stream (GE would split it)")
        for i, t in enumerate(st.tasks):
            k = t.kind
            if k == "kernel":
                assert isinstance(t, Kernel)
                if reuse is not None:
                    known_row = reuse_get(id(t))
                    if known_row is not None and known_row[0] is t:
                        add((KERNEL, known_row[1], known_row[2], known_row[3], -1, known_row[5], known_row[6],
                             traffic_id_of(known_row[4])))
                        continue
                failed = len(errors)
                ins, outs = t.inputs, t.outputs
                # one or two inputs and one output are most kernels: tuple displays, no iterator
                if len(outs) == 1:
                    o = outs[0]
                    out_keys: tuple[Any, ...] = ((o.shape, o.dtype),)
                else:
                    out_keys = tuple(map(_OUTPUT_KEY, outs))
                n_in = len(ins)
                a = ins[0] if n_in else None
                b = ins[1] if n_in == 2 else None
                if n_in == 1 and a is not None:
                    in_keys: tuple[Any, ...] = ((a.shape, a.dtype, a.space),)
                elif n_in == 2 and a is not None and b is not None:
                    in_keys = ((a.shape, a.dtype, a.space), (b.shape, b.dtype, b.space))
                else:  # more inputs, or an absent optional one (None)
                    in_keys = tuple(_INPUT_KEY(r) if r is not None else None for r in ins)
                attributes = t.attributes
                key = (t.op, t.engine, t.block_dim, t.flops, t.bytes, out_keys, in_keys,
                       tuple((k, str(attributes[k])) for k in COST_ATTRIBUTES if k in attributes)
                       if attributes else ())
                cached = cost_memo.get(key)
                if cached is None:
                    c = known.get(key)
                    if c is None:
                        try:
                            c = known[key] = cost.kernel(t)
                        except DiagnosticError as e:
                            errors.extend(e.diagnostics)
                            c = None
                    if c is not None and c.pool != GE_LOCAL and cost.capacity[c.pool] == 0:
                        errors.append(Diagnostic("error", f"{where(s_index, i, t)}: '{t.op}' runs on {c.pool}, but "
                                                          f"device '{profile.name}' has no {c.pool} units"))
                    row = traffic_row(c) if c is not None else None
                    cached = cost_memo[key] = ((pool_index[c.pool], c.units, c.duration_us, traffic_id_of(row), row)
                                               if c is not None else (0, 1, 0.0, -1, None))
                rr = arena_ranges(ins, in_keys, s_index, i, t, "input", False)
                wr = arena_ranges(outs, out_keys, s_index, i, t, "output", True)
                add((KERNEL, cached[0], cached[1], cached[2], -1, rr, wr, cached[3]))
                if reuse is not None and len(errors) == failed:
                    reuse.rows[id(t)] = (t, cached[0], cached[1], cached[2], cached[4], rr, wr)
            elif k == "record" or k == "wait":
                assert isinstance(t, (Record, Wait))
                ev = t.event
                if ev < 0:
                    errors.append(Diagnostic("error", f"{where(s_index, i, t)}: negative event id {ev}"))
                    ev = 0
                if ev > max_event:
                    max_event = ev
                if k == "record":
                    add((RECORD, -1, 0, record_us, ev, None, None, -1))
                else:
                    add((WAIT, -1, 0, wait_us, ev, None, None, -1))
            elif k == "memcpy":
                assert isinstance(t, Memcpy)
                c = cost.memcpy(t)
                if cost.capacity[SDMA] == 0:
                    errors.append(Diagnostic("error", f"{where(s_index, i, t)}: device '{profile.name}' has no SDMA "
                                                      "channels for a memcpy"))
                if t.src.nbytes != t.dst.nbytes:
                    errors.append(Diagnostic("error", f"{where(s_index, i, t)}: copies {t.src.nbytes} bytes into a "
                                                      f"{t.dst.nbytes}-byte destination"))
                r = ref_range(t.src, s_index, i, t, "source", False)
                w = ref_range(t.dst, s_index, i, t, "destination", True)
                add((KERNEL, sdma, 1, c.duration_us, -1, (r,) if r is not None else None,
                     (w,) if w is not None else None, traffic_id_of(traffic_row(c))))
            elif k == "end_graph":
                add((END, -1, 0, 0.0, -1, None, None, -1))
            elif k in CONTROL_TASKS:
                # a switch reads its value when it starts, as a kernel reads its inputs
                src = getattr(t, "index", None) or getattr(t, "cond", None)
                r = ref_range(src, s_index, i, t, "the switch value", False) if src is not None else None
                add((CONTROL, -1, 0, control_duration(t, profile), -1, (r,) if r is not None else None, None, -1))
            else:
                errors.append(Diagnostic("error", f"{where(s_index, i, t)}: unknown task {type(t).__name__}"))
                add((END, -1, 0, 0.0, -1, None, None, -1))
            if errors and len(errors) >= max_errors:
                raise DiagnosticError(errors)
    first.append(len(tasks))
    if errors:
        raise DiagnosticError(errors)
    if rows:
        kind, pool, units, duration, event, reads, writes, traffic_id = (list(col) for col in zip(*rows))
    else:
        kind, pool, units, duration, event, reads, writes, traffic_id = [], [], [], [], [], [], [], []

    if len(task_list.streams) > profile["max_streams"]:
        warnings.append(f"{len(task_list.streams)} streams, more than the device's {profile['max_streams']}")
    if max_event + 1 > profile["max_events"]:
        warnings.append(f"event ids up to {max_event}, more than the device's {profile['max_events']} events")
    if task_list.num_events and max_event >= task_list.num_events:
        warnings.append(f"event id {max_event} is not below the task list's num_events = {task_list.num_events}")
    if arena_size + weight_size > profile["memory_bytes"]:
        warnings.append(f"arena ({arena_size} B) and weights ({weight_size} B) exceed the device memory "
                        f"({profile['memory_bytes']} B)")
    return Program(task_list=task_list, tasks=tasks, stream_ids=[s.id for s in task_list.streams],
                   priorities=[s.priority for s in task_list.streams], first=first, stream_of=stream_of, kind=kind,
                   pool=pool, units=units, duration=duration, event=event, reads=reads, writes=writes,
                   pool_names=POOLS, capacity=[cost.capacity[p] for p in POOLS], num_event_ids=max_event + 1,
                   warnings=warnings, traffic_id=traffic_id, traffic=traffic, hbm_bandwidth=cost.hbm_bw,
                   block_dispatch=profile.block_dispatch, has_control=CONTROL in kind)
