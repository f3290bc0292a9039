"""The emulator's report: one JSON-ready dict, and its text rendering.

Keys other tools rely on (``ge-run --report json`` prints exactly this dict):

``makespan_us``
    end of the last task.
``lower_bound_us``
    ``max(critical_path_us, max over engines of work / capacity, DRAM bytes /
    DRAM bandwidth)`` (and, in host mode, the host thread's launch work), every
    term at the tasks' durations alone; ``lower_bound`` holds the parts
    (``parts_us``: ``critical path``, one per engine, ``DRAM bandwidth``,
    ``Host``) and ``bound_by`` names the largest; ``makespan_over_lower_bound``
    the ratio.
``critical_path_us``
    the longest path through the executed task graph (stream order, event
    record -> wait, host launches), each task at its own duration;
    ``critical_path`` lists its length in tasks and its longest tasks.
``engines``
    pool name -> ``busy_us`` (wall time with at least one unit busy),
    ``work_us`` (unit-microseconds the units were held), ``min_work_us`` (the
    same at every task's duration alone; more is time lost to sharing the DRAM),
    ``capacity``, ``utilization`` (``work / (capacity * makespan)``), ``tasks``;
    in host mode also ``Host``, the launching thread (capacity 1).
``dram``
    ``type`` (the device memory the profile names, or null), ``bytes``
    moved, ``bandwidth_gbps``, ``bound_us`` (bytes / bandwidth),
    ``utilization`` (``bound / makespan``) and ``saturated_us``, the time the
    running tasks asked for more bandwidth than the device has.
``calibration``
    what the device profile's times were held against: ``against`` (the
    measurements), ``result``, ``command`` (what reproduces it), and
    ``overridden``, the parameters ``--device-param`` changed (the calibration is
    of the profile as shipped); null when no measurement of the device was found.
``warm_l2``
    only for a run asked to follow a warm-up (``EmulatorOptions.warm_l2``):
    ``weights_in_l2`` (whether the model's weights and arena, ``footprint_bytes``,
    fit in ``l2_bytes``, so its kernels read the weights from L2).
``host_timed``
    only for a run timed as the host times a synchronous model execution
    (``EmulatorOptions.host_timed``): ``latency_us``, the makespan plus
    ``execute_us``, the profile's ``model_execute_us``.
``streams``
    a list, one entry per stream: ``id``, ``priority``, ``tasks``, ``kernels``,
    ``busy_us`` (time running kernels and copies), ``wait_us`` (time stalled at
    waits), ``utilization`` (``busy / makespan``).
``events``
    the number of distinct event ids used; ``event_stats`` has the records,
    waits, lost records (recorded again before a wait consumed them) and
    unconsumed records (never waited for).
``tasks``
    the number of device tasks; ``task_counts`` by kind, with ``no_task`` the
    kernels of the task list that are no device task of their own (an op fused
    into its chain's head, a reshape, a concat or split laid out in place: no
    stream counts them and no host launches them).
``arena_bytes``, ``weight_bytes``, ``peak_live_bytes``
    the planned arena, the weight space, the most arena bytes live at once
    (None when the caller asked for no liveness).
``races``
    a list of races (empty when clean), each with both tasks (stream, index,
    op, loc), the kind and the byte range; ``races_total`` counts them all.
``uninitialised_reads``
    reads of arena bytes nothing wrote.
``deadlock``
    null, or ``message``, the ``stalled`` waits with a reason each, and the
    ``cycle`` of streams when the stall is a cycle of waits.
``warnings``
    device limits exceeded (tasks per stream, streams, events, memory).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from geir.backends.cost_model import GE_LOCAL, SDMA
from geir.backends.emulator.liveness import peak_live_bytes
from geir.backends.emulator.program import CONTROL, END, KERNEL, RECORD, WAIT
from geir.backends.emulator.simulator import INF, Schedule, host_launch_costs

if TYPE_CHECKING:
    from geir.backends.device_profile import DeviceProfile
    from geir.backends.emulator.happens_before import RaceChecker

__all__ = ["build_report", "format_text", "calibration_line", "REQUIRED_KEYS"]

#: the keys ``--report json`` always has
REQUIRED_KEYS = ("makespan_us", "lower_bound_us", "critical_path_us", "engines", "streams", "events", "tasks",
                 "arena_bytes", "peak_live_bytes", "races", "deadlock")

_TOP_TASKS = 10


def _r(x: float) -> float:
    return round(x, 3)


def build_report(schedule: Schedule, profile: "DeviceProfile", checker: "RaceChecker | None",
                 launch_us: float = 0.0, liveness: bool = True) -> dict[str, Any]:
    """The report of one emulation (see the module doc for the keys);
    ``liveness`` False leaves out the peak live bytes."""
    program = schedule.program
    tl = program.task_list
    n = program.n
    makespan = schedule.makespan

    engines: dict[str, dict[str, Any]] = {}
    bounds: dict[str, float] = {}
    for p, name in enumerate(program.pool_names):
        cap = program.capacity[p]
        used = schedule.pool_tasks[p]
        if name == GE_LOCAL or (cap == 0 and not used):
            continue
        work = schedule.pool_work[p]
        alone = schedule.pool_min_work[p] if schedule.pool_min_work else work
        engines[name] = {"capacity": cap, "busy_us": _r(schedule.pool_busy[p]), "work_us": _r(work),
                         "min_work_us": _r(alone),
                         "utilization": round(work / (cap * makespan), 4) if makespan > 0 and cap else 0.0,
                         "tasks": used}
        if used:
            bounds[name] = alone / cap
    if schedule.mode == "host":
        # the host thread launches every task that ran (all of them, unless the device stalled)
        costs = host_launch_costs(schedule.program, launch_us, schedule.event_launch_us, schedule.free_events)
        host = sum(costs[g] for g, x in enumerate(schedule.start) if x != INF)
        launched = sum(1 for g, x in enumerate(schedule.start) if x != INF and costs[g] > 0)
        engines["Host"] = {"capacity": 1, "busy_us": _r(host), "work_us": _r(host),
                           "utilization": round(host / makespan, 4) if makespan > 0 else 0.0, "tasks": launched}
        bounds["Host"] = host
    bandwidth = program.dram_bandwidth
    shared = bandwidth != INF
    dram_bound = schedule.dram_bytes / bandwidth if schedule.dram_bytes > 0 and shared else 0.0
    if dram_bound > 0:
        bounds["DRAM bandwidth"] = dram_bound
    path, from_host = schedule.critical_path()
    # the path's last task ends the longest path: its length without another scan of every task
    cp = schedule.cp_end[path[-1]] if path else 0.0
    bounds["critical path"] = cp
    bound_by = max(bounds, key=bounds.__getitem__)
    lower = bounds[bound_by]

    # per-stream and per-kind sums with numpy: a Python loop over every task would
    # cost as much as the simulation itself
    # (fromiter with the length known, bytes for the small kinds: the cheapest conversions of long lists)
    kind = np.frombuffer(bytes(program.kind), dtype=np.int8)
    nstreams = program.num_streams
    stream_of = np.repeat(np.arange(nstreams, dtype=np.int64), np.diff(program.first))  # streams are contiguous
    start = np.fromiter(schedule.start, np.float64, n)
    end = np.fromiter(schedule.end, np.float64, n)
    ready = np.fromiter(schedule.ready, np.float64, n)
    ran = end != INF
    is_copy = np.fromiter(program.pool, np.int64, n) == program.pool_names.index(SDMA)
    taskless = np.zeros(n, dtype=bool)
    taskless[list(program.taskless)] = True
    is_kernel = (kind == KERNEL) & ~is_copy & ~taskless
    counts = {"kernel": int(is_kernel.sum()), "memcpy": int(((kind == KERNEL) & is_copy).sum()),
              "record": int((kind == RECORD).sum()), "wait": int((kind == WAIT).sum()),
              "end_graph": int((kind == END).sum()), "control": int((kind == CONTROL).sum()),
              "no_task": len(program.taskless)}
    working = (kind == KERNEL) & ran
    busy = np.bincount(stream_of[working], weights=end[working] - start[working], minlength=nstreams)
    waits = kind == WAIT
    stalled_until = np.where(ran, end, makespan)
    waited = waits & (ready != INF)
    wait_time = np.bincount(stream_of[waited], weights=stalled_until[waited] - ready[waited], minlength=nstreams)
    kernels_per_stream = np.bincount(stream_of[is_kernel], minlength=nstreams)
    streams: list[dict[str, Any]] = []
    for s, sid in enumerate(program.stream_ids):
        b = float(busy[s]) if nstreams else 0.0
        streams.append({"id": sid, "priority": program.priorities[s],
                        "tasks": program.tasks_per_stream[s],
                        "kernels": int(kernels_per_stream[s]), "busy_us": _r(b), "wait_us": _r(float(wait_time[s])),
                        "utilization": round(b / makespan, 4) if makespan > 0 else 0.0})

    event_ids = set(program.event)
    event_ids.discard(-1)
    # the longest kernels on the path, the earlier first among equals (a stable sort)
    on_path = np.asarray(path, np.int64)
    on_path = on_path[kind[on_path] == KERNEL]
    top = on_path[np.argsort(start[on_path] - end[on_path], kind="stable")[:_TOP_TASKS]].tolist()
    peak, peak_at = peak_live_bytes(schedule, start, end) if liveness else (None, None)

    races = [r.to_dict(program) for r in checker.races] if checker is not None else []
    uninit = ([{"task": program.describe(g), "bytes": [lo, hi],
                "message": f"{program.label(g)} reads arena bytes [{lo}, {hi}) that nothing wrote"}
               for g, lo, hi in checker.uninitialised] if checker is not None else [])
    if checker is not None and schedule.deadlock is None:
        for b in tl.outputs:
            if b.ref.space == "arena":
                for lo, hi in checker.unwritten(b.ref.offset, b.ref.end):
                    uninit.append({"task": None, "output": b.name, "bytes": [lo, hi],
                                   "message": f"graph output '{b.name}' holds arena bytes [{lo}, {hi}) that "
                                              "nothing wrote"})
    return {
        "task_list": tl.name,
        "device": profile.name,
        "calibration": _calibration(profile),
        "mode": schedule.mode,
        "makespan_us": _r(makespan),
        "lower_bound_us": _r(lower),
        "lower_bound": {"bound_by": bound_by, "parts_us": {k: _r(v) for k, v in bounds.items()}},
        "makespan_over_lower_bound": round(makespan / lower, 4) if lower > 0 else None,
        "critical_path_us": _r(cp),
        "critical_path": {"tasks": len(path), "after_host_launches": from_host, "longest": [
            {**program.describe(g), "duration_us": _r(schedule.end[g] - schedule.start[g])} for g in top]},
        "engines": engines,
        "dram": {"type": profile.memory_type or None, "bytes": int(round(schedule.dram_bytes)), "shared": shared,
                "bandwidth_gbps": round(bandwidth / 1e3, 4) if shared else None,
                "bound_us": _r(dram_bound),
                "utilization": round(dram_bound / makespan, 4) if makespan > 0 else 0.0,
                "saturated_us": _r(schedule.dram_saturated_us)},
        "streams": streams,
        "events": len(event_ids),
        "event_stats": {
            "records": counts["record"], "waits": counts["wait"], "declared": tl.num_events,
            "lost_records": [{"record": program.describe(g), "overwrote": program.describe(o),
                              "message": f"{program.label(g)} set event {program.event[g]} while "
                                         f"{program.label(o)}'s record of it was still unconsumed"}
                             for g, o in schedule.lost_records[:100]],
            "unconsumed_records": [{"record": program.describe(g),
                                    "message": f"{program.label(g)}: no wait ever consumed this record"}
                                   for g in schedule.unconsumed_records[:100]],
        },
        "tasks": n - counts["no_task"],
        "task_counts": counts,
        "finished_tasks": schedule.finished - int((taskless & ran).sum()),
        "executed_tasks": schedule.executed,
        "control": schedule.control,
        "arena_bytes": tl.arena_size,
        "weight_bytes": tl.weight_size,
        "peak_live_bytes": peak,
        "peak_live_at_us": _r(peak_at) if peak_at is not None else None,
        "races": races,
        "races_total": checker.total_races if checker is not None else None,
        "race_check": checker is not None,
        "uninitialised_reads": uninit,
        "deadlock": schedule.deadlock.to_dict() if schedule.deadlock is not None else None,
        "warnings": list(program.warnings),
    }


def _calibration(profile: "DeviceProfile") -> dict[str, Any] | None:
    """The report's ``calibration``: what the profile's times were held against."""
    c = profile.calibration
    if c is None:
        return None
    return {"against": c.against, "result": c.result, "command": c.command, "overridden": profile.overridden}


def calibration_line(report: dict[str, Any]) -> str:
    """The report's ``checked against`` line: every emulated time is a prediction,
    so it says what the device profile's times were held against."""
    c = report.get("calibration")
    if c is None:
        return (f"checked against nothing: no measured {report['device']} time was found; these times are "
                "predictions from the profile's sourced and assumed numbers")
    changed = c["overridden"]
    shipped = f" (of the profile as shipped; --device-param changed {', '.join(changed)})" if changed else ""
    return f"checked against {c['against']}: {c['result']}{shipped}"


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n} B ({n / size:.2f} {unit})"
    return f"{n} B"


def _n(count: int, noun: str) -> str:
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{count} {noun if count == 1 else plural}"


def format_text(report: dict[str, Any]) -> str:
    """The report for people: makespan, lower bound, engines, streams, memory, findings."""
    lines: list[str] = []
    counts = report["task_counts"]
    lines.append(f"emulated '{report['task_list']}' on {report['device']} ({report['mode']} mode): "
                 f"{_n(report['tasks'], 'task')} ({_n(counts['kernel'], 'kernel')}, {_n(counts['memcpy'], 'copy')}, "
                 f"{_n(counts['record'], 'record')}, {_n(counts['wait'], 'wait')}) on "
                 f"{_n(len(report['streams']), 'stream')}, {_n(report['events'], 'event')}"
                 + (f"; {_n(counts['no_task'], 'op')} fused or aliased, no task of their own" if counts.get("no_task")
                    else ""))
    if "calibration" in report:
        lines.append(calibration_line(report))
    lines.append(f"makespan        {report['makespan_us']:14.3f} us")
    timed = report.get("host_timed")
    if timed:
        lines.append(f"host-timed      {timed['latency_us']:14.3f} us  (the makespan + {timed['execute_us']:.3f} us "
                     "of the host's synchronous model execute, model_execute_us)")
    lb = report["lower_bound"]
    parts = ", ".join(f"{k} {v:.3f}" for k, v in sorted(lb["parts_us"].items(), key=lambda kv: -kv[1]))
    lines.append(f"lower bound     {report['lower_bound_us']:14.3f} us  (bound by {lb['bound_by']}; {parts})")
    ratio = report["makespan_over_lower_bound"]
    lines.append(f"makespan / LB   {ratio:14.3f}" if ratio is not None else "makespan / LB              n/a")
    control = report.get("control")
    if control:
        assumed = " (branches assumed: timing only)" if control["branches_assumed"] else ""
        switches = f"{control['switches']} switch{'' if control['switches'] == 1 else 'es'}"
        lines.append(f"control         {switches}, {_n(control['activations'], 'activation')}, "
                     f"{_n(control['jumps_back'], 'loop iteration')}, {_n(report['executed_tasks'], 'task run')}"
                     f"{assumed}")
    cp = report["critical_path"]
    after = " (after the host's launches)" if cp["after_host_launches"] else ""
    lines.append(f"critical path   {report['critical_path_us']:14.3f} us over {_n(cp['tasks'], 'task')}{after}")
    dram = report.get("dram")
    label = f"DRAM ({dram['type']})" if dram and dram.get("type") else "DRAM"
    if dram and dram["bytes"] and not dram["shared"]:
        lines.append(f"{label:<15} {_bytes(dram['bytes'])}, bandwidth not shared (share_dram off)")
    elif dram and dram["bytes"]:
        lines.append(f"{label:<15} {_bytes(dram['bytes'])} at {dram['bandwidth_gbps']:g} GB/s: "
                     f"{dram['bound_us']:.3f} us ({dram['utilization'] * 100:.1f}% of the makespan), "
                     f"saturated {dram['saturated_us']:.3f} us")
    warm = report.get("warm_l2")
    if warm:
        fits = "fit in" if warm["weights_in_l2"] else "exceed"
        where = "L2" if warm["weights_in_l2"] else "DRAM"
        lines.append(f"L2              after a warm-up run: weights and arena {_bytes(warm['footprint_bytes'])} "
                     f"{fits} {_bytes(warm['l2_bytes'])}, so weights come from {where}")
    lines.append("engines          capacity      busy us      work us   util   tasks")
    idle = [name for name, e in report["engines"].items() if not e["tasks"]]
    for name, e in report["engines"].items():
        if not e["tasks"]:
            continue
        lines.append(f"  {name:<12} {e['capacity']:>10} {e['busy_us']:>12.3f} {e['work_us']:>12.3f} "
                     f"{e['utilization'] * 100:5.1f}% {e['tasks']:>7}")
    if idle:
        lines.append(f"  idle: {', '.join(idle)}")
    lines.append("streams          priority   tasks  kernels      busy us   waiting us   util")
    for st in report["streams"]:
        lines.append(f"  stream {st['id']:<6} {st['priority']:>8} {st['tasks']:>7} {st['kernels']:>8} "
                     f"{st['busy_us']:>12.3f} {st['wait_us']:>12.3f} {st['utilization'] * 100:5.1f}%")
    arena = report["arena_bytes"]
    peak = report["peak_live_bytes"]
    share = f" = {peak / arena * 100:.1f}% of the arena" if arena and peak is not None else ""
    live = _bytes(peak) if peak is not None else "not computed"
    lines.append(f"arena           {_bytes(arena)}; peak live {live}{share}; weights {_bytes(report['weight_bytes'])}")
    races = report["races"]
    if not report["race_check"]:
        lines.append("races           not checked")
    elif not races:
        lines.append("races           none")
    else:
        lines.append(f"races           {report['races_total']}")
        for r in races[:10]:
            lines.append(f"  {r['message']}")
        if len(races) > 10:
            lines.append(f"  ... and {report['races_total'] - 10} more (see --report json)")
    for u in report["uninitialised_reads"][:5]:
        lines.append(f"uninitialised   {u['message']}")
    stats = report["event_stats"]
    for item in stats["lost_records"][:5]:
        lines.append(f"lost record     {item['message']}")
    for item in stats["unconsumed_records"][:5]:
        lines.append(f"unused record   {item['message']}")
    dl = report["deadlock"]
    lines.append(f"deadlock        {dl['message'] if dl else 'none'}")
    if dl:
        for st in dl["stalled"][:10]:
            lines.append(f"  {st['task']}: {st['reason']}")
    for w in report["warnings"]:
        lines.append(f"warning         {w}")
    return "\n".join(lines) + "\n"
