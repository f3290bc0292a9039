"""The discrete-event loop: streams, events and engine pools in simulated time.

Rules (one device, times in microseconds):

* **Streams** are in-order queues: a task starts only after the task before it
  on its stream has finished.
* **Kernels** (and memcpys) then queue for their engine pool and start as soon
  as ``units`` of it are free. A task that moves device memory then spends its
  fixed overhead and moves its bytes through the shared DRAM (the fluid model of
  :mod:`geir.backends.emulator.bandwidth`): alone it takes its roofline
  duration, beside other memory traffic possibly longer; a task without DRAM
  traffic takes its duration. The pool serves its queue in order of stream
  priority (smaller value first, ACL's convention), then of arrival, then of
  task number; a task that does not fit blocks the ones behind it (no
  backfilling, so a wide kernel is never starved by narrow ones). Under **block
  dispatch** (a GPU profile's ``block_dispatch``) a kernel at the head of the
  queue that finds fewer units free than it asks for starts on those, its
  compute and its bytes stretched by the ratio (its blocks in more waves; it
  gains no units freed later), as a GPU's block scheduler hands a grid's blocks
  to whatever SMs have room instead of waiting for all of them; there a
  kernel's fixed cost (launch, block dispatch, the last wave's tail) is
  latency: its stream waits it out before the kernel takes its SMs, which other
  streams' kernels use meanwhile. All tasks that
  become ready at one instant are queued before any is served, so priorities
  decide ties exactly.
* **Records** take ``event_record_us`` on their stream, then set their event.
* **Waits** finish ``event_wait_us`` after their event is set (or after they
  reach the head of their stream, if it already was), and consume it: an event
  is a binary flag reset by the wait, as GE's EVENT_WAIT + EVENT_RESET tasks do.
  A record of an event that is still set is *lost* (reported: that is an
  event-reuse bug). Several waiters of one event are served first come, first served.
* **Host mode** (runtime v2): one host thread launches every task, in a
  topological order, ``host_launch_us`` apiece (a record or wait at
  ``EmulatorOptions.host_event_launch_us`` when set: a runtime whose operator
  dispatch costs more than its event calls); a task cannot start before it is
  launched. The host launches nothing for an end-of-graph marker or for a
  kernel that is no device task of its own (a fused op, a reshape: they cost it
  nothing). The launch order is the order in which tasks start in sink mode (a
  valid topological order of the task graph, found by a first timing-only pass).
  **Sink mode** (runtime v1 task sink): every task is on the device at time 0.
* **Control tasks** (:mod:`.control`) hold their stream for their time, then
  act: a label goto or switch sets where the stream goes on, a stream active
  or a switch that holds starts another stream (which joins the starting one's
  clock and critical path). A stream some task starts is idle until then, and
  idle again after its last task. Only the taken branch runs; a loop runs its
  tasks once per iteration (``start`` / ``end`` keep a task's last run).

The loop is a binary heap of (time, stream, version) — one live entry per
stream; an entry whose version is not the stream's current one was superseded
when the bandwidth shares changed and is skipped (only a new share moves a
stream's version on: the loop's own entries are one at a time per stream, each
pushed after the one before was popped) — plus one priority queue per
pool, so each task costs O(log streams); there is no per-step scan over streams
or tasks (a saturated DRAM rebalances the flows running at that moment). When the heap empties with tasks left,
the device is stalled: :mod:`geir.backends.emulator.deadlock` explains why.

The critical path is computed on the fly: a task's path length is its duration
alone (so the path is a lower bound even when bandwidth sharing stretched it)
plus the longest of (its stream predecessor's, its wait's matched record's, its
host launch time) — the longest path through the task graph as it executed.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING

import attrs

from geir.backends.emulator.bandwidth import DramShare
from geir.backends.emulator.deadlock import Deadlock, explain_deadlock
from geir.backends.emulator.control import ControlState
from geir.backends.emulator.program import CONTROL, END, KERNEL, RECORD, WAIT, Program

if TYPE_CHECKING:
    from geir.backends.emulator.arena import NumericExecutor
    from geir.backends.emulator.happens_before import RaceChecker
    from geir.backends.emulator.progress import ProgressBar

__all__ = ["Schedule", "simulate", "HOST_PRED", "host_launch_costs"]

INF = float("inf")
#: ``cp_pred`` of a task whose critical path starts at its host launch
HOST_PRED = -2
#: a stream's phase (see ``simulate``)
_HEAD, _RUNNING, _IN_OVERHEAD = 0, 1, 2


@attrs.define(eq=False)
class Schedule:
    """What one simulation produced, per task (global index) and per pool."""

    program: Program
    mode: str
    start: list[float]  # inf: never started (deadlock)
    end: list[float]
    ready: list[float]  # when the task reached the head of its stream (and was launched)
    launch: list[float] | None  # host mode: when the host launched it
    matched: list[int]  # wait -> the record it consumed (-1)
    cp_end: list[float]
    cp_pred: list[int]  # predecessor on the longest path: a task, -1 (none) or HOST_PRED
    makespan: float
    pool_busy: list[float]  # wall time with at least one unit busy
    pool_work: list[float]  # unit-microseconds the units were held
    pool_tasks: list[int]
    finished: int
    lost_records: list[tuple[int, int]]  # (record that was lost, record whose set it hit)
    unconsumed_records: list[int]  # records whose event no wait ever consumed
    deadlock: Deadlock | None
    #: unit-microseconds at every task's duration alone (the engines' lower bound)
    pool_min_work: list[float] = attrs.Factory(list)
    #: DRAM bytes moved by the tasks that started
    dram_bytes: float = 0.0
    #: time with the summed demand above the DRAM bandwidth (tasks slowed by sharing)
    dram_saturated_us: float = 0.0
    #: task runs (a loop's tasks count once per iteration, an untaken branch's not at all)
    executed: int = 0
    #: what the control tasks did (:meth:`ControlState.summary`), None without any
    control: dict | None = None
    #: host mode: the host's cost of a record or wait when not the kernels' launch cost
    event_launch_us: float | None = None
    #: host mode: the events whose records and waits cost the host nothing
    free_events: frozenset[int] = frozenset()

    @property
    def critical_path_us(self) -> float:
        return max(self.cp_end, default=0.0) if self.program.n else 0.0

    def critical_path(self) -> tuple[list[int], bool]:
        """The tasks on the longest path, first to last, and whether it begins
        with the host's launches (host mode: the path then runs through every
        launch before its first task)."""
        if not self.program.n:
            return [], False
        cp_end, cp_pred = self.cp_end, self.cp_pred
        g = cp_end.index(max(cp_end))  # the first task to end the longest path
        path = []
        if not self.program.has_control:
            # every task ran once: the predecessors form no cycle
            while g >= 0:
                path.append(g)
                g = cp_pred[g]
            return path[::-1], g == HOST_PRED
        seen: set[int] = set()
        while g >= 0 and g not in seen:  # a loop's tasks ran more than once: their last run ends the walk
            seen.add(g)
            path.append(g)
            g = cp_pred[g]
        return path[::-1], g == HOST_PRED


def host_launch_costs(program: Program, launch_us: float, event_launch_us: float | None = None,
                      free_events: frozenset[int] = frozenset()) -> list[float]:
    """What launching each task costs the host thread: ``launch_us``, a record or
    wait ``event_launch_us`` when given, one of ``free_events`` nothing, and nothing
    for what the host does not launch: an end-of-graph marker (runtime v2 has no
    such task: the host waits for its streams) and a kernel that is no device task
    of its own (:attr:`Program.taskless`)."""
    kind, event, taskless = program.kind, program.event, program.taskless
    event_us = launch_us if event_launch_us is None else event_launch_us
    return [0.0 if g in taskless or kind[g] == END
            else ((0.0 if event[g] in free_events else event_us) if kind[g] in (RECORD, WAIT) else launch_us)
            for g in range(program.n)]


def host_launch_times(program: Program, sink: Schedule, launch_us: float,
                      event_launch_us: float | None = None, free_events: frozenset[int] = frozenset()) -> list[float]:
    """When the single host thread launches each task: in sink-mode start order,
    each after the one before, at :func:`host_launch_costs` apiece (tasks a
    stalled sink run never started go last)."""
    order = sorted(range(program.n), key=lambda g: (sink.start[g], program.stream_of[g], g))
    launch = [0.0] * program.n
    costs = host_launch_costs(program, launch_us, event_launch_us, free_events)
    at = 0.0
    for g in order:
        at += costs[g]
        launch[g] = at
    return launch


def simulate(program: Program, mode: str = "sink", launch_us: float = 0.0,
             checker: "RaceChecker | None" = None, numerics: "NumericExecutor | None" = None,
             progress: "ProgressBar | None" = None, latency: list[float] | None = None,
             event_launch_us: float | None = None, free_events: frozenset[int] = frozenset()) -> Schedule:
    """Run ``program`` in simulated time (see the module doc for the rules).
    ``latency`` (a GPU profile's, per task): the part of a kernel's duration that
    is latency — its fixed cost — spent on its stream before it takes its units.
    ``event_launch_us``: the host's cost of a record or wait, when not ``launch_us``;
    the records and waits of ``free_events`` cost the host nothing."""
    launch: list[float] | None = None
    if mode == "host":
        sink = simulate(program, "sink", latency=latency)
        launch = host_launch_times(program, sink, launch_us, event_launch_us, free_events)
    elif mode != "sink":
        raise ValueError(f"unknown mode '{mode}'")

    n = program.n
    S = program.num_streams
    kind = program.kind
    pool = program.pool
    units = program.units
    dur = program.duration
    event = program.event_slot
    stream_of = program.stream_of
    prio = program.priorities
    reads = program.reads
    writes = program.writes
    capacity = program.capacity
    npools = len(capacity)
    traffic_id = program.traffic_id
    traffic = program.traffic

    start = [INF] * n
    end = [INF] * n
    ready = [INF] * n
    matched = [-1] * n
    cp_end = [0.0] * n
    cp_pred = [-1] * n
    cur = program.first[:-1]  # head task of each stream
    last = program.first[1:]
    # what a stream's heap entry stands for: _RUNNING, its head task's end; _IN_OVERHEAD, the
    # end of its head kernel's fixed overhead (its bytes start to move); _HEAD, no task running
    phase = [_HEAD] * S
    version = [0] * S
    cp_prev = [0.0] * S
    cp_prev_task = [-1] * S

    num_events = program.num_event_ids
    ev_set = [False] * num_events
    ev_rec = [-1] * num_events
    # the streams waiting for each event, first come first served (a list by event id: the
    # loop reads it at every record)
    ev_waiters: list[list[int]] = [[] for _ in range(num_events)]
    consumed_by: dict[int, int] = {}
    lost: list[tuple[int, int]] = []

    free = list(capacity)
    # a kernel whose latency is spent waits for its units (reset when it takes them: loops)
    latency_spent = [False] * n if latency is not None else None
    block_dispatch = program.block_dispatch
    granted = list(units)  # units a kernel holds (fewer than it asked for under block dispatch)
    stretch = [1.0] * S  # how much longer the head kernel of a stream runs on the units it got
    busy = [0.0] * npools
    busy_since = [0.0] * npools
    work = [0.0] * npools
    min_work = [0.0] * npools
    ntasks = [0] * npools
    queues: list[list[tuple[int, float, int]]] = [[] for _ in range(npools)]
    dirty_flag = [False] * npools
    dirty: list[int] = []
    heap: list[tuple[float, int, int]] = []
    dram = DramShare(program.dram_bandwidth, S, heap, version)
    finished = 0
    executed = 0
    # the control pass scans every task: only worth it when the compiler saw a control task
    control = ControlState.build(program, numerics) if program.has_control else None
    # per-task checks the loop makes on every event, answered once for the run
    has_launch = launch is not None
    has_latency = latency is not None
    # no task moves DRAM bytes: no flow ever joins, so there is never a rebalance to make
    shares_dram = bool(program.traffic)

    def satisfy(g: int, s: int, ev: int, t: float) -> None:
        # wait task g (head of stream s) consumes the record of event ev at time t
        r = ev_rec[ev]
        ev_set[ev] = False
        ev_rec[ev] = -1
        matched[g] = r
        consumed_by[r] = g
        start[g] = ready[g]
        fin = t + dur[g]
        end[g] = fin
        base = cp_prev[s]
        pred = cp_prev_task[s]
        if cp_end[r] > base:
            base = cp_end[r]
            pred = r
        if has_launch and launch[g] > base:  # type: ignore[index]
            base = launch[g]
            pred = HOST_PRED
        cp_end[g] = base + dur[g]
        cp_pred[g] = pred
        phase[s] = _RUNNING
        heappush(heap, (fin, s, version[s]))
        if checker is not None:
            checker.acquire(g, r)

    def advance(s: int, t: float) -> None:
        # stream s is free at time t: take its head task as far as it can go now
        nonlocal executed
        g = cur[s]
        stop = last[s]
        while g < stop:
            if has_launch and launch[g] > t:  # type: ignore[index]
                cur[s] = g
                heappush(heap, (launch[g], s, version[s]))  # type: ignore[index]
                return
            k = kind[g]
            if k == KERNEL:
                if has_latency and latency[g] > 0.0:  # type: ignore[index]
                    if not latency_spent[g]:  # type: ignore[index]
                        # the kernel's fixed cost holds no units: its stream waits, then it queues
                        latency_spent[g] = True  # type: ignore[index]
                        ready[g] = t
                        executed += 1
                        cur[s] = g
                        heappush(heap, (t + latency[g], s, version[s]))  # type: ignore[index]
                        return
                    # its latency is spent: it was made ready when that began
                else:
                    ready[g] = t
                    executed += 1
                p = pool[g]
                heappush(queues[p], (prio[s], t, g))
                if not dirty_flag[p]:
                    dirty_flag[p] = True
                    dirty.append(p)
                cur[s] = g
                return
            ready[g] = t
            executed += 1
            if k == RECORD or k == CONTROL:
                start[g] = t
                fin = t + dur[g]
                end[g] = fin
                base = cp_prev[s]
                pred = cp_prev_task[s]
                if has_launch and launch[g] > base:  # type: ignore[index]
                    base = launch[g]
                    pred = HOST_PRED
                cp_end[g] = base + dur[g]
                cp_pred[g] = pred
                phase[s] = _RUNNING
                cur[s] = g
                heappush(heap, (fin, s, version[s]))
                if k == CONTROL and checker is not None and reads[g] is not None:
                    checker.reads(g, reads[g])  # type: ignore[arg-type]
                return
            if k == WAIT:
                cur[s] = g
                ev = event[g]
                if ev_set[ev]:
                    satisfy(g, s, ev, t)
                else:
                    ev_waiters[ev].append(s)
                return
            # END: takes no time
            start[g] = t
            end[g] = t
            base = cp_prev[s]
            pred = cp_prev_task[s]
            if has_launch and launch[g] > base:  # type: ignore[index]
                base = launch[g]
                pred = HOST_PRED
            cp_end[g] = base
            cp_pred[g] = pred
            cp_prev[s] = base
            cp_prev_task[s] = g
            g += 1
        cur[s] = g

    def dispatch(t: float) -> None:
        # serve the pools whose queue or free units changed at time t
        for p in dirty:
            dirty_flag[p] = False
            q = queues[p]
            avail = free[p]
            while q:
                g = q[0][2]
                want = units[g]
                u = want
                if want > avail:
                    if not block_dispatch or not avail:
                        break
                    # a GPU's block scheduler puts the kernel's blocks on the free cores: it runs
                    # on fewer, its blocks in more waves (it does not gain cores freed later)
                    u = avail
                heappop(q)
                if avail == capacity[p]:  # the pool was idle
                    busy_since[p] = t
                avail -= u
                granted[g] = u
                d = dur[g]
                start[g] = t
                s = stream_of[g]
                held = d
                if has_latency:
                    latency_spent[g] = False  # type: ignore[index]
                    held = d - latency[g]  # type: ignore[index]
                if u == want or not u:
                    # all it asked for (the common case): x 1.0 would change nothing
                    stretch[s] = 1.0
                    fin = t + held
                else:
                    stretch[s] = want / u
                    fin = t + held * stretch[s]
                end[g] = fin
                min_work[p] += held * want
                ntasks[p] += 1
                base = cp_prev[s]
                pred = cp_prev_task[s]
                if has_launch and launch[g] > base:  # type: ignore[index]
                    base = launch[g]  # type: ignore[index]
                    pred = HOST_PRED
                cp_end[g] = base + d
                cp_pred[g] = pred
                phase[s] = _RUNNING
                tid = traffic_id[g]
                if tid < 0:
                    heappush(heap, (fin, s, version[s]))  # its end
                else:
                    overhead, nbytes, demand, peak = traffic[tid]
                    if latency_spent is not None:
                        overhead = 0.0  # spent as latency before the kernel took its units
                    if overhead > 0.0:
                        phase[s] = _IN_OVERHEAD
                        heappush(heap, (t + overhead, s, version[s]))
                    else:
                        # its end comes from its share of the DRAM
                        dram.join(s, t, nbytes, demand / stretch[s], peak / stretch[s])
                if checker is not None and reads[g] is not None:
                    checker.reads(g, reads[g])  # type: ignore[arg-type]
                if numerics is not None:
                    numerics.start(g)
            free[p] = avail
        dirty.clear()

    def activate(g: int, target: int, t: float) -> None:
        # control task g started stream index ``target`` at time t
        assert control is not None
        if cur[target] < last[target]:
            control.lost_activations += 1
            return
        control.activations += 1
        cur[target] = program.first[target]
        cp_prev[target] = cp_end[g]
        cp_prev_task[target] = g
        if checker is not None:
            checker.activate(g, target)
        advance(target, t)

    for s in range(S):
        if control is not None and s in control.activated:
            cur[s] = last[s]  # a non-head stream: idle until a task starts it
            continue
        advance(s, 0.0)
    if dirty:
        dispatch(0.0)
    if shares_dram and dram.changed:
        dram.rebalance(0.0)

    t = 0.0
    pops = 0
    # with numerics every step may take long: report each; timing-only steps are cheap
    progress_mask = 0 if numerics is not None else 4095
    while heap:
        t, s, v = heappop(heap)
        if v == version[s]:
            state = phase[s]
            if state == _IN_OVERHEAD:
                # the head kernel's overhead is over: its bytes start to move
                phase[s] = _RUNNING
                _, nbytes, demand, peak = traffic[traffic_id[cur[s]]]
                dram.join(s, t, nbytes, demand / stretch[s], peak / stretch[s])
            else:
                if state:  # _RUNNING
                    g = cur[s]
                    k = kind[g]
                    if k == KERNEL:
                        p = pool[g]
                        u = granted[g]
                        if shares_dram and traffic_id[g] >= 0:
                            dram.leave(s)
                        end[g] = t
                        work[p] += (t - start[g]) * u
                        left = free[p] + u
                        free[p] = left
                        if left == capacity[p]:  # the pool is idle
                            busy[p] += t - busy_since[p]
                        if queues[p] and not dirty_flag[p]:
                            dirty_flag[p] = True
                            dirty.append(p)
                        if checker is not None and writes[g] is not None:
                            checker.writes(g, writes[g])  # type: ignore[arg-type]
                        if numerics is not None:
                            numerics.finish(g)
                    elif k == RECORD:
                        ev = event[g]
                        if checker is not None:
                            checker.record(g)
                        if ev_set[ev]:
                            lost.append((g, ev_rec[ev]))
                        else:
                            ev_set[ev] = True
                            ev_rec[ev] = g
                            waiters = ev_waiters[ev]
                            if waiters:
                                w = waiters.pop(0)
                                satisfy(cur[w], w, ev, t)
                    cp_prev[s] = cp_end[g]
                    cp_prev_task[s] = g
                    phase[s] = _HEAD
                    finished += 1
                    if k == CONTROL:
                        assert control is not None
                        nxt, target = control.fire(g)
                        if nxt <= g and checker is not None:
                            checker.rebase(s)  # a loop's next iteration: later epochs on the stream
                        cur[s] = nxt
                        if target is not None:
                            activate(g, target, t)
                    else:
                        cur[s] = g + 1
                g = cur[s]
                k = kind[g] if g < last[s] and not has_launch else END
                if k == RECORD or k == WAIT:
                    # advance's two commonest cases (most of a multi-stream list), here without a call
                    ready[g] = t
                    executed += 1
                    if k == RECORD:
                        start[g] = t
                        fin = t + dur[g]
                        end[g] = fin
                        cp_end[g] = cp_prev[s] + dur[g]
                        cp_pred[g] = cp_prev_task[s]
                        phase[s] = _RUNNING
                        heappush(heap, (fin, s, version[s]))
                    else:
                        ev = event[g]
                        if ev_set[ev]:
                            satisfy(g, s, ev, t)
                        else:
                            ev_waiters[ev].append(s)
                else:
                    advance(s, t)
        if heap and heap[0][0] == t:
            continue  # everything that happens at t is queued before anything is served
        if dirty:
            dispatch(t)
            if heap and heap[0][0] == t:
                continue
        if shares_dram and dram.changed:
            dram.rebalance(t)
        if progress is not None:
            pops += 1
            if not pops & progress_mask:
                progress.update(finished)
    dram.finish(t)

    deadlock = None
    if any(cur[s] < last[s] for s in range(S)):
        deadlock = explain_deadlock(program, cur, consumed_by)
    # a task that never ran ends at inf; most runs have none, and then no per-task filter is needed
    all_ran = INF not in end
    makespan = max(end if all_ran else [e for e in end if e != INF], default=0.0)
    ends_run = kind.count(END) if all_ran else sum(1 for g in range(n) if kind[g] == END and end[g] != INF)
    unconsumed = [ev_rec[e] for e in range(num_events) if ev_set[e]]
    return Schedule(program=program, mode=mode, start=start, end=end, ready=ready, launch=launch, matched=matched,
                    cp_end=cp_end, cp_pred=cp_pred, makespan=makespan, pool_busy=busy, pool_work=work,
                    pool_tasks=ntasks, finished=finished + ends_run,
                    lost_records=lost, unconsumed_records=unconsumed, deadlock=deadlock, pool_min_work=min_work,
                    dram_bytes=dram.bytes_moved, dram_saturated_us=dram.saturated_us, executed=executed,
                    control=control.summary() if control is not None else None,
                    event_launch_us=event_launch_us, free_events=free_events)

