"""Explaining a stalled device: which waits can never finish, and why.

When the simulator runs out of things to do while some streams still have
tasks, every such stream is stopped at a wait (kernels cannot stall: a kernel
needs at most its engine's capacity, and running kernels always finish). For
each stalled wait we look for a record of its event that is still ahead in
some stream:

* none: the wait can never finish — its event is never recorded, or every
  record of it was already consumed by another wait (events reset on wait, as
  GE's EVENT_WAIT + EVENT_RESET tasks do);
* some: the wait depends on those streams, which are themselves stalled; the
  dependencies form a cycle of waits, which is reported stream by stream.
"""

from __future__ import annotations

from typing import Any

import attrs

from geir.backends.emulator.program import RECORD, WAIT, Program

__all__ = ["Deadlock", "explain_deadlock"]


@attrs.define
class Deadlock:
    """A device stall: the waits that cannot finish and, when there is one, the cycle."""

    message: str
    stalled: list[dict[str, Any]]
    cycle: list[int] | None  # stream ids, in dependency order

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "stalled": self.stalled, "cycle": self.cycle}


def explain_deadlock(program: Program, cursor: list[int], consumed_by: dict[int, int]) -> Deadlock:
    """The deadlock of a run stopped with stream ``s`` at task ``cursor[s]``.

    ``consumed_by`` maps record tasks to the wait task that consumed them.
    """
    stalled_streams = [s for s in range(program.num_streams) if cursor[s] < program.first[s + 1]]
    records_of: dict[int, list[int]] = {}
    for g, k in enumerate(program.kind):
        if k == RECORD:
            records_of.setdefault(program.event[g], []).append(g)

    depends: dict[int, list[int]] = {}  # stalled stream -> streams holding a pending record it needs
    entries: list[dict[str, Any]] = []
    for s in stalled_streams:
        g = cursor[s]
        entry = program.describe(g)
        entry["task"] = program.label(g)
        if program.kind[g] != WAIT:
            entry["reason"] = "stopped with no wait at its head (simulator invariant broken)"
            entries.append(entry)
            continue
        e = program.event[g]
        all_records = records_of.get(e, [])
        pending = [r for r in all_records if r >= cursor[program.stream_of[r]]]
        if not pending:
            if not all_records:
                entry["reason"] = f"event {e} is never recorded"
            else:
                used = [f"{program.label(r)} by {program.label(consumed_by[r])}" if r in consumed_by
                        else program.label(r) for r in all_records]
                entry["reason"] = (f"every record of event {e} was already consumed by another wait: "
                                   + "; ".join(used))
        else:
            holders = sorted({program.stream_of[r] for r in pending})
            depends[s] = holders
            entry["reason"] = "needs " + ", ".join(
                f"{program.label(r)}, which is behind {program.label(cursor[program.stream_of[r]])}" for r in pending)
        entries.append(entry)

    cycle = _find_cycle(depends)
    cycle_ids = [program.stream_ids[s] for s in cycle] if cycle else None
    if cycle:
        steps = " -> ".join(f"stream {program.stream_ids[s]} (at {program.label(cursor[s])})" for s in cycle)
        message = f"deadlock: a cycle of waits: {steps} -> stream {program.stream_ids[cycle[0]]}"
    else:
        never = [x for x in entries if "needs " not in x["reason"]]
        first = never[0] if never else entries[0]
        message = (f"deadlock: {len(entries)} stream(s) stalled; {first['task']} can never finish: {first['reason']}")
    return Deadlock(message, entries, cycle_ids)


def _find_cycle(depends: dict[int, list[int]]) -> list[int] | None:
    """A cycle in the stream dependency graph, as the list of its streams
    (iterative depth-first search: there may be thousands of streams)."""
    color: dict[int, int] = {}  # 1: on the current path, 2: done
    for root in sorted(depends):
        if root in color:
            continue
        path: list[int] = [root]
        iters = [iter(depends.get(root, ()))]
        color[root] = 1
        while path:
            nxt = next(iters[-1], None)
            if nxt is None:
                color[path.pop()] = 2
                iters.pop()
            elif color.get(nxt) == 1:
                return path[path.index(nxt):]
            elif nxt not in color:
                color[nxt] = 1
                path.append(nxt)
                iters.append(iter(depends.get(nxt, ())))
    return None
