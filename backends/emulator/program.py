"""A task list compiled for the simulator: flat per-task arrays (kind, engine pool,
units, duration, event, arena ranges) indexed by a global task number.

The simulator's inner loop reads plain Python lists, never task objects, so the
timing-only mode stays fast; this module is also where a malformed task list is
rejected with a diagnostic (unknown engine, an engine the device lacks, a ref
outside the arena, a write into the weight space) and where the device's limits
are compared with the task list (warnings, not errors: GE would split streams).
"""

from __future__ import annotations

from operator import attrgetter, itemgetter
from typing import Any

import attrs
import numpy as np

from geir.backends.cost_model import COST_ATTRIBUTES, GE_LOCAL, POOLS, SDMA, CostModel, TaskCost, has_device_task
from geir.backends.emulator.control import control_duration
from geir.backends.task_list import (ARENA, CONTROL_TASKS, UB, WEIGHTS, Kernel, Memcpy, Record, Task, TaskList,
                                     TensorRef, Wait)
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.diagnostics import error as _error

__all__ = ["Program", "KernelRows", "compile_program", "KERNEL", "RECORD", "WAIT", "END", "CONTROL", "task_label"]

#: task kinds in :attr:`Program.kind` (a Memcpy is a KERNEL on the SDMA pool;
#: CONTROL: labels, stream switches and activations, :mod:`.control`)
KERNEL, RECORD, WAIT, END, CONTROL = 0, 1, 2, 3, 4
#: kinds only the compiler tells apart (a Memcpy runs as a KERNEL, an unknown task is an error)
_MEMCPY, _UNKNOWN = 5, 6
_KIND_CODE = {"kernel": KERNEL, "record": RECORD, "wait": WAIT, "end_graph": END, "memcpy": _MEMCPY,
              **{k: CONTROL for k in CONTROL_TASKS}}

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
    #: slots of the simulator's event tables: one per distinct event id
    num_event_ids: int
    warnings: list[str]
    #: each record's and wait's slot in the simulator's event tables (else -1):
    #: its event id, or, for ids far sparser than their count (an id of 10^9),
    #: the id's rank among those used
    event_slot: list[int] = attrs.Factory(list)
    #: index into :attr:`traffic` of a task that moves DRAM bytes, else -1
    traffic_id: list[int] = attrs.Factory(list)
    #: distinct (overhead us, DRAM bytes, demand bytes/us, peak rate bytes/us) of
    #: the tasks that move DRAM bytes; demand = the rate at which the task alone
    #: moves its bytes (below the peak rate when it is compute-bound)
    traffic: list[tuple[float, float, float, float]] = attrs.Factory(list)
    #: the device's DRAM bandwidth, bytes/us
    dram_bandwidth: float = INF
    #: tasks that are no device task of their own (:func:`~geir.backends.cost_model.has_device_task`:
    #: an op fused into its chain's head, a reshape, a concat or split laid out in place),
    #: in task order: no host launches them and no stream's task count holds them
    taskless: frozenset[int] = frozenset()
    #: each stream's device tasks: its tasks but the :attr:`taskless` ones
    tasks_per_stream: list[int] = attrs.Factory(list)
    #: a kernel starts on the units that are free when fewer than it asks for are
    #: (the profile's ``block_dispatch``; else it waits for all of them)
    block_dispatch: bool = False
    #: some task is a control task (labels, stream switches and activations)
    has_control: bool = False
    #: ``reads`` and ``writes`` flattened, task, lo, hi of every range in task
    #: order (for numpy, which reads a flat list of ints far faster than tuples)
    read_table: list[int] = attrs.Factory(list)
    write_table: list[int] = attrs.Factory(list)

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
    cost model and one arena, weight and unified-buffer size; the kernels must not change
    while it is kept."""

    #: id(kernel) -> (kernel, pool index, units, duration, traffic row or None, reads, writes,
    #: whether it is a device task of its own)
    rows: dict[int, tuple[Any, ...]] = attrs.Factory(dict)
    cost: CostModel | None = None
    arena_size: int = -1
    weight_size: int = -1
    ub_size: int = -1


def compile_program(task_list: TaskList, cost: CostModel, max_errors: int = 20,
                    reuse: KernelRows | None = None) -> Program:
    """Flatten ``task_list`` with durations and engine units from ``cost``
    (``reuse``: rows of kernels compiled before, see :class:`KernelRows`).

    Records, waits and end markers (most of a multi-stream task list) are
    compiled column-wise with numpy; kernels, copies and control tasks one by one.

    Raises:
        DiagnosticError: every problem found (up to ``max_errors``, in task
            order), each naming its task.
    """
    pool_index = {p: i for i, p in enumerate(POOLS)}
    stream_errors: list[Diagnostic] = []
    # (task, diagnostic) of each problem a task has: sorted into task order at the end
    errors: list[tuple[int, Diagnostic]] = []
    warnings: list[str] = []
    profile = cost.profile
    seen_ids: set[int] = set()
    for st in task_list.streams:
        if st.id in seen_ids:
            stream_errors.append(Diagnostic("error", f"stream id {st.id} is declared twice"))
        seen_ids.add(st.id)

    tasks: list[Task] = []
    stream_of: list[int] = []
    first: list[int] = []
    for s_index, st in enumerate(task_list.streams):
        first.append(len(tasks))
        tasks.extend(st.tasks)
        stream_of.extend([s_index] * len(st.tasks))
    first.append(len(tasks))
    n = len(tasks)
    arena_size = task_list.arena_size
    weight_size = task_list.weight_size
    ub_size = task_list.ub_size

    # One pass reads what every task has (its kind, a record's or wait's event): a
    # task object is touched once here and a kernel once more below, the rest of
    # the columns of the simple tasks are numpy's.
    codes: list[int] = []
    event: list[int] = []
    add_code, add_event = codes.append, event.append
    code_of = _KIND_CODE
    for t in tasks:
        c = code_of.get(t.kind, _UNKNOWN)
        add_code(c)
        add_event(t.event if c == RECORD or c == WAIT else -1)  # type: ignore[union-attr]
    code = np.frombuffer(bytes(codes), np.int8)
    is_event = (code == RECORD) | (code == WAIT)
    for g in np.flatnonzero(is_event & (np.fromiter(event, np.int64, n) < 0)).tolist():
        errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: negative event id "
                                              f"{event[g]}")))
        event[g] = 0
    max_event = max(event, default=-1)
    event_slot, slots = _event_slots(event, max_event)
    # by table lookup, not numpy's tolist: the tasks of one kind share one float
    # object, which the simulator then reads from cache instead of one per task
    zero = 0.0
    duration: list[float] = list(map((zero, cost.record_us, cost.wait_us, zero, zero, zero, zero).__getitem__, codes))
    kind: list[int] = list(map((KERNEL, RECORD, WAIT, END, CONTROL, KERNEL, END).__getitem__, codes))
    pool = [-1] * n
    units = [0] * n
    traffic_id = [-1] * n
    reads: list[tuple[Range, ...] | None] = [None] * n
    writes: list[tuple[Range, ...] | None] = [None] * n

    sdma = pool_index[SDMA]
    # Kernels repeat (op, engine, shapes, spaces, the attributes costs read) a lot:
    # their cost and the sizes of their refs are memoised.
    cost_memo: dict[Any, tuple[Any, ...]] = {}
    known = cost.memo  # the costs themselves outlive this program (a judge compiles many)
    traffic: list[tuple[float, float, float, float]] = []
    traffic_index: dict[tuple[float, float, float, float], int] = {}

    def traffic_id_of(row: tuple[float, float, float, float] | None) -> int:
        # the row's index in this program's traffic table (-1: none), numbered by first use
        if row is None:
            return -1
        i = traffic_index.get(row)
        if i is None:
            i = traffic_index[row] = len(traffic)
            traffic.append(row)
        return i

    def ref_range(ref: TensorRef, nbytes: int, g: int, role: str, writing: bool) -> Range | None:
        # the arena bytes ref names (None: weights or empty), checking it lies inside its space
        lo = ref.offset
        hi = lo + nbytes
        if ref.space == ARENA:
            if lo < 0 or hi > arena_size:
                errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: {role} [{lo}, {hi}) "
                                                      f"lies outside the arena of {arena_size} bytes")))
                return None
            return (lo, hi) if hi > lo else None
        if ref.space == WEIGHTS:
            if writing:
                errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: {role} writes the "
                                                      "read-only weight space")))
            elif lo < 0 or hi > weight_size:
                errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: {role} [{lo}, {hi}) "
                                                      f"lies outside the weight space of {weight_size} bytes")))
            return None
        if ref.space == UB:
            # a fused chain's intermediate: private to the chain's kernel on one stream, so neither
            # race-checked nor device traffic nor live device memory
            if lo < 0 or hi > ub_size:
                errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: {role} [{lo}, {hi}) "
                                                      f"lies outside the unified buffer of {ub_size} bytes")))
            return None
        errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: {role} names unknown space "
                                              f"'{ref.space}'")))
        return None

    def arena_ranges(refs: list[TensorRef | None] | list[TensorRef], sizes: tuple[int, ...], g: int, role: str,
                     writing: bool) -> tuple[Range, ...] | None:
        # the arena ranges of a kernel's inputs or outputs (sizes: each ref's bytes);
        # a ref in bounds in the arena is the common case, anything else goes through ref_range
        found = []
        for j, r in enumerate(refs):
            if r is None:
                continue
            lo = r.offset
            hi = lo + sizes[j]
            if r.space == ARENA and lo >= 0 and hi <= arena_size:
                if hi > lo:
                    found.append((lo, hi))
            else:
                x = ref_range(r, sizes[j], g, f"{role} #{j}", writing)
                if x is not None:
                    found.append(x)
        return tuple(found) if found else None

    reuse_get = None
    if reuse is not None:
        if (reuse.cost is not cost or reuse.arena_size != arena_size or reuse.weight_size != weight_size
                or reuse.ub_size != ub_size):
            reuse.rows.clear()  # checked against other limits, costed by another model
            reuse.cost, reuse.arena_size, reuse.weight_size, reuse.ub_size = cost, arena_size, weight_size, ub_size
        reuse_get = reuse.rows.get

    # kernels, copies, control tasks and unknown ones, in task order (the traffic
    # table is numbered by first use)
    read_table: list[int] = []
    write_table: list[int] = []
    taskless: list[int] = []
    for g in np.flatnonzero((code == KERNEL) | (code >= CONTROL)).tolist():
        t = tasks[g]
        c = codes[g]
        if c == KERNEL:
            assert isinstance(t, Kernel)
            if reuse_get is not None:
                known_row = reuse_get(id(t))
                if known_row is not None and known_row[0] is t:
                    pool[g], units[g], duration[g] = known_row[1], known_row[2], known_row[3]
                    if not known_row[7]:
                        taskless.append(g)
                    traffic_id[g] = traffic_id_of(known_row[4])
                    reads[g], writes[g] = known_row[5], known_row[6]
                    _flatten(g, known_row[5], read_table)
                    _flatten(g, known_row[6], write_table)
                    continue
            failed = len(errors)
            ins, outs = t.inputs, t.outputs
            n_in = len(ins)
            attributes = t.attributes
            costed = tuple((k, str(attributes[k])) for k in COST_ATTRIBUTES if k in attributes) if attributes else ()
            # One output and one or two inputs are most kernels: their memo key is one flat tuple
            # (no nested tuples to build and hash) and their ranges are built without a loop.
            # The three key shapes have different lengths, so they never collide.
            o = outs[0] if len(outs) == 1 else None
            a = ins[0] if n_in and o is not None else None
            b = ins[1] if n_in == 2 and a is not None else None
            if a is not None and n_in == 1:
                key: tuple[Any, ...] = (t.op, t.engine, t.block_dim, t.flops, t.bytes, costed, o.shape, o.dtype,
                                        a.shape, a.dtype, a.space)
            elif b is not None:
                key = (t.op, t.engine, t.block_dim, t.flops, t.bytes, costed, o.shape, o.dtype, a.shape, a.dtype,
                       a.space, b.shape, b.dtype, b.space)
            else:  # several outputs, no input, more inputs, or an absent optional one (None)
                a = b = None
                key = (t.op, t.engine, t.block_dim, t.flops, t.bytes, costed, tuple(map(_OUTPUT_KEY, outs)),
                       tuple(_INPUT_KEY(r) if r is not None else None for r in ins))
            cached = cost_memo.get(key)
            if cached is None:
                tc = known.get(key)
                if tc is None:
                    try:
                        tc = known[key] = cost.kernel(t)
                    except DiagnosticError as e:
                        errors.extend((g, d) for d in e.diagnostics)
                        tc = None
                if tc is not None and tc.pool != GE_LOCAL and cost.capacity[tc.pool] == 0:
                    errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: '{t.op}' runs "
                                                          f"on {tc.pool}, but device '{profile.name}' has no "
                                                          f"{tc.pool} units")))
                row = _traffic_row(tc) if tc is not None else None
                tid = traffic_id_of(row)
                in_sizes = tuple(r.nbytes if r is not None else 0 for r in ins)
                out_sizes = tuple(r.nbytes for r in outs)
                own_task = has_device_task(t.op, t.engine, attributes, outs[0].shape if outs else None)
                cached = cost_memo[key] = ((pool_index[tc.pool], tc.units, tc.duration_us, tid, row, in_sizes,
                                            out_sizes, own_task) if tc is not None
                                           else (0, 1, 0.0, tid, row, in_sizes, out_sizes, own_task))
            pool[g], units[g], duration[g], traffic_id[g] = cached[0], cached[1], cached[2], cached[3]
            if not cached[7]:
                taskless.append(g)
            in_sizes = cached[5]
            rr = None
            if a is not None:
                # the common case, every range in bounds in the arena and not empty; else arena_ranges
                lo = a.offset
                hi = lo + in_sizes[0]
                if b is None:
                    if lo >= 0 and hi <= arena_size and hi > lo and a.space == ARENA:
                        rr = ((lo, hi),)
                        read_table += (g, lo, hi)
                else:
                    lo_b = b.offset
                    hi_b = lo_b + in_sizes[1]
                    if (lo >= 0 and hi <= arena_size and hi > lo and a.space == ARENA and lo_b >= 0
                            and hi_b <= arena_size and hi_b > lo_b and b.space == ARENA):
                        rr = ((lo, hi), (lo_b, hi_b))
                        read_table += (g, lo, hi, g, lo_b, hi_b)
            if rr is None and n_in:
                rr = arena_ranges(ins, in_sizes, g, "input", False)
                _flatten(g, rr, read_table)
            if o is not None:
                lo = o.offset
                hi = lo + cached[6][0]
            if o is not None and lo >= 0 and hi <= arena_size and o.space == ARENA:
                wr = None
                if hi > lo:
                    wr = ((lo, hi),)
                    write_table += (g, lo, hi)
            else:
                wr = arena_ranges(outs, cached[6], g, "output", True)
                _flatten(g, wr, write_table)
            reads[g] = rr
            writes[g] = wr
            if reuse is not None and len(errors) == failed:
                reuse.rows[id(t)] = (t, cached[0], cached[1], cached[2], cached[4], rr, wr, cached[7])
        elif c == _MEMCPY:
            assert isinstance(t, Memcpy)
            tc = cost.memcpy(t)
            if cost.capacity[SDMA] == 0:
                errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: device "
                                                      f"'{profile.name}' has no SDMA channels for a memcpy")))
            if t.src.nbytes != t.dst.nbytes:
                errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: copies "
                                                      f"{t.src.nbytes} bytes into a {t.dst.nbytes}-byte destination")))
            r = ref_range(t.src, t.src.nbytes, g, "source", False)
            w = ref_range(t.dst, t.dst.nbytes, g, "destination", True)
            pool[g], units[g], duration[g] = sdma, 1, tc.duration_us
            reads[g] = (r,) if r is not None else None
            writes[g] = (w,) if w is not None else None
            _flatten(g, reads[g], read_table)
            _flatten(g, writes[g], write_table)
            traffic_id[g] = traffic_id_of(_traffic_row(tc))
        elif c == CONTROL:
            # a switch reads its value when it starts, as a kernel reads its inputs
            src = getattr(t, "index", None) or getattr(t, "cond", None)
            r = ref_range(src, src.nbytes, g, "the switch value", False) if src is not None else None
            duration[g] = control_duration(t, profile)
            reads[g] = (r,) if r is not None else None
            _flatten(g, reads[g], read_table)
        else:
            errors.append((g, Diagnostic("error", f"{_where(task_list, stream_of, first, g)}: unknown task "
                                                  f"{type(t).__name__}")))
    if errors or stream_errors:
        raise DiagnosticError(_first_errors(stream_errors, errors, max_errors, n))

    # a view (a reshape, an aliased split) whose results lie where its operand does
    # writes nothing on the device: its readers read the operand's bytes
    views = {g for g in taskless if writes[g] and reads[g]
             and all(any(a <= lo and hi <= b for a, b in reads[g]) for lo, hi in writes[g])}  # type: ignore[union-attr]
    if views:
        for g in views:
            writes[g] = None
        write_table = [x for k in range(0, len(write_table), 3) if write_table[k] not in views
                       for x in write_table[k:k + 3]]
    per_stream = np.diff(np.asarray(first, dtype=np.int64))
    if taskless:
        per_stream = per_stream - np.bincount(np.asarray(stream_of, dtype=np.int64)[taskless],
                                              minlength=len(task_list.streams))
    tasks_per_stream = per_stream.tolist()
    for st, count in zip(task_list.streams, tasks_per_stream):
        if count > profile["max_tasks_per_stream"]:
            warnings.append(f"stream {st.id} holds {count} tasks, more than the device's "
                            f"{profile['max_tasks_per_stream']} per stream (GE would split it)")
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
                   pool_names=POOLS, capacity=[cost.capacity[p] for p in POOLS], num_event_ids=slots, event_slot=event_slot,
                   warnings=warnings, traffic_id=traffic_id, traffic=traffic, dram_bandwidth=cost.dram_bw,
                   block_dispatch=profile.block_dispatch, has_control=bool((code == CONTROL).any()),
                   read_table=read_table, write_table=write_table, taskless=frozenset(taskless),
                   tasks_per_stream=tasks_per_stream)


def _event_slots(event: list[int], max_event: int) -> tuple[list[int], int]:
    """Each task's slot in the simulator's event tables, and how many there are:
    the ids themselves while they are dense, their ranks when a table by id
    would be mostly empty (it is allocated per run)."""
    if max_event < 1024:  # dense enough whatever the ids: no need to count them
        return event, max_event + 1
    used = {e for e in event if e >= 0}
    if max_event + 1 <= 4 * len(used) + 1024:
        return event, max_event + 1
    rank = {e: k for k, e in enumerate(sorted(used))}
    return [rank[e] if e >= 0 else -1 for e in event], len(rank)


def _flatten(g: int, ranges: tuple[Range, ...] | None, table: list[int]) -> None:
    """Append task ``g``'s ``ranges`` to a flat (task, lo, hi) table."""
    for lo, hi in ranges or ():
        table += (g, lo, hi)


def _traffic_row(c: TaskCost) -> tuple[float, float, float, float] | None:
    """The fluid-model parameters of a costed task (None: it moves no DRAM bytes)."""
    if c.dram_bytes <= 0 or c.dram_rate <= 0:
        return None
    alone = c.duration_us - c.overhead_us  # max(compute, memory)
    demand = c.dram_bytes / alone if alone > 0 else c.dram_rate
    return (c.overhead_us, c.dram_bytes, min(demand, c.dram_rate), c.dram_rate)


def _where(task_list: TaskList, stream_of: list[int], first: list[int], g: int) -> str:
    """``stream 1 task 4 (kernel @ loc)``: how a diagnostic names task ``g``."""
    s = stream_of[g]
    t = task_list.streams[s].tasks[g - first[s]]
    return f"stream {task_list.streams[s].id} task {g - first[s]} ({t.kind}{' @ ' + t.loc if t.loc else ''})"


def _first_errors(stream_errors: list[Diagnostic], errors: list[tuple[int, Diagnostic]], max_errors: int,
                  n: int) -> list[Diagnostic]:
    """The problems in task order, up to the task at which there are ``max_errors``
    (that task's all included, as a scan that stops there would report them)."""
    errors.sort(key=itemgetter(0))  # stable: a task's own problems keep their order
    found = list(stream_errors)
    stop = 0 if len(found) >= max_errors and n else None
    for i, (g, d) in enumerate(errors):
        if stop is not None and g > stop:
            break
        found.append(d)
        if stop is None and len(found) >= max_errors and (i + 1 == len(errors) or errors[i + 1][0] != g):
            break
    return found
