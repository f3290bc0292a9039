"""Chrome / Perfetto traces of an emulation (the Trace Event Format, JSON object form).

* process 1 "streams": one track (thread) per stream, a slice per task; a wait's
  slice spans the time the stream was stalled on it;
* process 2 "engines": per pool, as many lanes as it ever ran tasks at once, a
  slice per kernel, plus a counter track of the units in use;
* flow arrows from each record to the wait that consumed it.

Timestamps are microseconds, the format's unit. Open the file at
https://ui.perfetto.dev or chrome://tracing.
"""

from __future__ import annotations

import heapq
import json
from typing import Any

from geir.backends.emulator.program import END, KERNEL, WAIT
from geir.backends.emulator.simulator import INF, Schedule
from geir.backends.task_list import Kernel, Memcpy

__all__ = ["trace_events", "write_trace"]

STREAMS_PID = 1
ENGINES_PID = 2
#: engine lanes get thread ids pool * LANE_BASE + lane
LANE_BASE = 100_000


def _name(task: Any) -> str:
    if isinstance(task, Kernel):
        return task.op
    if isinstance(task, Memcpy):
        return "memcpy"
    return f"{task.kind} e{task.event}" if hasattr(task, "event") else task.kind


def trace_events(schedule: Schedule) -> dict[str, Any]:
    """The trace as a JSON-ready dict: ``{"traceEvents": [...], "displayTimeUnit": "ns", ...}``."""
    program = schedule.program
    events: list[dict[str, Any]] = [
        {"ph": "M", "pid": STREAMS_PID, "tid": 0, "ts": 0, "name": "process_name", "args": {"name": "streams"}},
        {"ph": "M", "pid": STREAMS_PID, "tid": 0, "ts": 0, "name": "process_sort_index", "args": {"sort_index": 0}},
        {"ph": "M", "pid": ENGINES_PID, "tid": 0, "ts": 0, "name": "process_name", "args": {"name": "engines"}},
        {"ph": "M", "pid": ENGINES_PID, "tid": 0, "ts": 0, "name": "process_sort_index", "args": {"sort_index": 1}},
    ]
    start, end, ready = schedule.start, schedule.end, schedule.ready
    for s, sid in enumerate(program.stream_ids):
        events.append({"ph": "M", "pid": STREAMS_PID, "tid": sid, "ts": 0, "name": "thread_name",
                       "args": {"name": f"stream {sid} (priority {program.priorities[s]})"}})
        events.append({"ph": "M", "pid": STREAMS_PID, "tid": sid, "ts": 0, "name": "thread_sort_index",
                       "args": {"sort_index": s}})
    per_pool: dict[int, list[int]] = {}
    for g, task in enumerate(program.tasks):
        k = program.kind[g]
        if k == END or start[g] == INF:
            continue
        sid = program.stream_ids[program.stream_of[g]]
        ts = ready[g] if k == WAIT else start[g]
        args: dict[str, Any] = {"task": program.label(g)}
        if task.loc:
            args["loc"] = task.loc
        if k == KERNEL:
            args["engine"] = program.pool_names[program.pool[g]]
            args["units"] = program.units[g]
            per_pool.setdefault(program.pool[g], []).append(g)
        events.append({"ph": "X", "pid": STREAMS_PID, "tid": sid, "ts": ts, "dur": max(end[g] - ts, 0.0),
                       "name": _name(task), "cat": task.kind, "args": args})

    flow_id = 0
    for g, r in enumerate(schedule.matched):
        if r < 0 or program.kind[g] != WAIT:
            continue
        flow_id += 1
        name = f"event {program.event[g]}"
        events.append({"ph": "s", "id": flow_id, "pid": STREAMS_PID, "tid": program.stream_ids[program.stream_of[r]],
                       "ts": start[r], "name": name, "cat": "event"})
        events.append({"ph": "f", "bp": "e", "id": flow_id, "pid": STREAMS_PID,
                       "tid": program.stream_ids[program.stream_of[g]], "ts": ready[g], "name": name, "cat": "event"})

    for p, tasks in sorted(per_pool.items()):
        pool_name = program.pool_names[p]
        tasks.sort(key=lambda g: (start[g], g))
        free_lanes: list[int] = []
        busy_lanes: list[tuple[float, int]] = []
        lanes = 0
        counter: list[tuple[float, int]] = []
        for g in tasks:
            while busy_lanes and busy_lanes[0][0] <= start[g]:
                heapq.heappush(free_lanes, heapq.heappop(busy_lanes)[1])
            if free_lanes:
                lane = heapq.heappop(free_lanes)
            else:
                lane = lanes
                lanes += 1
                events.append({"ph": "M", "pid": ENGINES_PID, "tid": p * LANE_BASE + lane, "ts": 0,
                               "name": "thread_name", "args": {"name": f"{pool_name} lane {lane}"}})
                events.append({"ph": "M", "pid": ENGINES_PID, "tid": p * LANE_BASE + lane, "ts": 0,
                               "name": "thread_sort_index", "args": {"sort_index": p * LANE_BASE + lane}})
            heapq.heappush(busy_lanes, (end[g], lane))
            events.append({"ph": "X", "pid": ENGINES_PID, "tid": p * LANE_BASE + lane, "ts": start[g],
                           "dur": end[g] - start[g], "name": _name(program.tasks[g]), "cat": pool_name,
                           "args": {"task": program.label(g), "units": program.units[g]}})
            counter.append((start[g], program.units[g]))
            counter.append((end[g], -program.units[g]))
        counter.sort(key=lambda x: (x[0], x[1]))
        in_use = 0
        for i, (ts, delta) in enumerate(counter):
            in_use += delta
            if i + 1 < len(counter) and counter[i + 1][0] == ts:
                continue  # one sample per instant
            events.append({"ph": "C", "pid": ENGINES_PID, "tid": 0, "ts": ts, "name": f"{pool_name} units in use",
                           "args": {"units": in_use}})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"task_list": program.task_list.name, "mode": schedule.mode,
                          "makespan_us": schedule.makespan}}


def write_trace(schedule: Schedule, path: str) -> None:
    """Write the trace of ``schedule`` to ``path``, whole or not at all.

    Raises:
        DiagnosticError: ``path`` cannot be written.
    """
    from geir.output_file import write_atomically
    data = json.dumps(trace_events(schedule), separators=(",", ":")).encode("utf-8")
    write_atomically(path, lambda stream: stream.write(data))
