"""The happens-before race checker: GE's MIF idea (per-stream flags carried by
events), done with vector clocks and byte ranges.

* Every stream ``s`` keeps a vector clock ``C_s``; its own entry is the position
  (1-based) of the task it runs, since a stream runs its tasks in order.
* A record copies the recording stream's clock into the event; the wait that
  consumes the record joins it into the waiting stream's clock. A stream
  started by a stream-active or stream-switch task joins the starter's clock
  the same way; only the tasks that run are checked, so an untaken branch
  never races, and a loop's iterations are later epochs of their stream. So task ``a``
  happens before task ``b`` exactly when ``epoch(a) <= C_b[stream(a)]``.
* Shadow memory: the arena as disjoint byte segments (sorted lists searched with
  ``bisect``, never per-byte arrays), each holding its last write (stream, epoch,
  task) and, per stream, its latest read since that write. A kernel's reads are
  checked when it starts, its writes when it finishes (the same moments the
  numerics touch the arena). A conflicting earlier access that does not happen
  before the current one is a race, reported with both tasks and the bytes.

Keeping only the last write and the latest read per stream is enough to report
at least one race for every racy byte range (the FastTrack argument: an earlier
access that races with the current one either races with the kept one too, or
was already reported). The checker is independent of timing: a race is found
whether or not the two accesses happened to overlap in simulated time.

Bytes read before anything wrote them (not a graph input, not an earlier task's
output) are reported separately as uninitialised reads.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

import attrs

from geir.backends.emulator.program import Program

__all__ = ["RaceChecker", "Race"]

#: the task id of the host's writes (graph inputs copied in before the run)
HOST = -1


@attrs.define
class Race:
    """Two accesses to overlapping arena bytes, at least one a write, with no
    happens-before order between them. ``first`` is the earlier in simulated time."""

    kind: str  # "write-write", "write-read" (read of an unordered write), "read-write"
    first: int  # global task index
    second: int
    lo: int  # the overlapping bytes [lo, hi)
    hi: int

    def to_dict(self, program: Program) -> dict[str, Any]:
        return {"kind": self.kind, "first": program.describe(self.first), "second": program.describe(self.second),
                "bytes": [self.lo, self.hi],
                "message": f"{self.kind} race on arena bytes [{self.lo}, {self.hi}) between "
                           f"{program.label(self.first)} and {program.label(self.second)}: no event orders them"}


class _Segment:
    """Shadow state of one byte range: its last write and the reads since."""

    __slots__ = ("ws", "we", "wt", "reads")

    def __init__(self, ws: int, we: int, wt: int, reads: dict[int, tuple[int, int]] | None) -> None:
        self.ws = ws  # stream of the last write
        self.we = we  # its epoch (0: the host, before every task)
        self.wt = wt  # its task (HOST, or -2 when never written)
        self.reads = reads  # stream -> (epoch, task) of the latest read since the write

    def copy(self) -> "_Segment":
        return _Segment(self.ws, self.we, self.wt, dict(self.reads) if self.reads else None)


NEVER = -2


class RaceChecker:
    """Vector clocks per stream and shadow memory over the arena (see the module doc)."""

    def __init__(self, program: Program, max_races: int = 100) -> None:
        s = program.num_streams
        self.program = program
        self.clock: list[list[int]] = [[0] * s for _ in range(s)]
        self.record_clock: dict[int, list[int]] = {}
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.segs: list[_Segment] = []
        self.max_races = max_races
        self.races: list[Race] = []
        self.race_pairs: dict[tuple[int, int], Race] = {}
        self.total_races = 0
        self.uninitialised: list[tuple[int, int, int]] = []  # (task, lo, hi)
        self.total_uninitialised = 0
        self.first = program.first
        # epoch(g) = g - base[stream] + 1; a stream that runs its tasks again (a
        # loop's next iteration, a branch stream started again) moves its base
        # down by its length, so its epochs keep growing
        self.base: list[int] = list(program.first[:-1])
        self.stream_of = program.stream_of

    # ----------------------------------------------------------- synchronisation

    def host_write(self, lo: int, hi: int) -> None:
        """Bytes the host filled before the run (graph inputs): ordered before every task."""
        i, j = self._cover(lo, hi)
        self._collapse(i, j, lo, hi, _Segment(0, 0, HOST, None))

    def record(self, g: int) -> None:
        """Record task ``g`` fired: the event carries its stream's clock."""
        s = self.stream_of[g]
        c = self.clock[s]
        c[s] = g - self.base[s] + 1
        self.record_clock[g] = c[:]

    def acquire(self, g: int, record: int) -> None:
        """Wait task ``g`` consumed record task ``record``: join the clocks."""
        s = self.stream_of[g]
        c = self.clock[s]
        c[s] = g - self.base[s] + 1
        rc = self.record_clock.get(record)
        if rc is not None:
            for k, v in enumerate(rc):  # faster than map(max, ...) for short clocks
                if v > c[k]:
                    c[k] = v

    def rebase(self, s: int) -> None:
        """Stream ``s`` goes on at an earlier task (a loop): later epochs from now on."""
        self.base[s] -= self.first[s + 1] - self.first[s]

    def activate(self, g: int, target: int) -> None:
        """Control task ``g`` started stream ``target``: what ``g``'s stream did
        so far happens before everything ``target`` does now (its clock joins
        the starter's), and ``target``'s epochs continue past its last run."""
        s = self.stream_of[g]
        c = self.clock[s]
        c[s] = g - self.base[s] + 1
        self.rebase(target)
        tc = self.clock[target]
        for k, v in enumerate(c):
            if v > tc[k]:
                tc[k] = v

    # ------------------------------------------------------------------ accesses

    def reads(self, g: int, ranges: tuple[tuple[int, int], ...]) -> None:
        """Task ``g`` reads ``ranges`` (at its start)."""
        s = self.stream_of[g]
        c = self.clock[s]
        epoch = g - self.base[s] + 1
        c[s] = epoch
        starts, ends, segs = self.starts, self.ends, self.segs
        for lo, hi in ranges:
            i = bisect_right(ends, lo)
            if i < len(starts) and starts[i] == lo and ends[i] == hi:
                j = i + 1  # the common case: reading exactly what one task wrote
            else:
                i, j = self._cover(lo, hi)
            for k in range(i, j):
                seg = segs[k]
                wt = seg.wt
                if wt >= 0:
                    if wt != g and seg.we > c[seg.ws]:
                        self._race("write-read", wt, g, starts[k], ends[k])
                elif wt == NEVER:
                    self._uninitialised(g, starts[k], ends[k])
                if seg.reads is None:
                    seg.reads = {s: (epoch, g)}
                else:
                    seg.reads[s] = (epoch, g)

    def writes(self, g: int, ranges: tuple[tuple[int, int], ...]) -> None:
        """Task ``g`` writes ``ranges`` (at its end)."""
        s = self.stream_of[g]
        c = self.clock[s]
        epoch = g - self.base[s] + 1
        c[s] = epoch
        starts, ends, segs = self.starts, self.ends, self.segs
        for lo, hi in ranges:
            i = bisect_right(ends, lo)
            if i == len(starts) or starts[i] >= hi:
                # untouched bytes (a fresh buffer): nothing to check, one new segment
                starts.insert(i, lo)
                ends.insert(i, hi)
                segs.insert(i, _Segment(s, epoch, g, None))
                continue
            if starts[i] == lo and ends[i] == hi:
                j = i + 1
            else:
                i, j = self._cover(lo, hi)
            for k in range(i, j):
                seg = segs[k]
                wt = seg.wt
                if wt >= 0 and wt != g and seg.we > c[seg.ws]:
                    self._race("write-write", wt, g, starts[k], ends[k])
                if seg.reads:
                    for rs, (re, rt) in seg.reads.items():
                        if rt != g and re > c[rs]:
                            self._race("read-write", rt, g, starts[k], ends[k])
            self._collapse(i, j, lo, hi, _Segment(s, epoch, g, None))

    def unwritten(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The parts of ``[lo, hi)`` that nothing wrote (checked on the output
        bindings after the run: the host reads them)."""
        starts, ends, segs = self.starts, self.ends, self.segs
        holes: list[tuple[int, int]] = []
        pos = lo
        i = bisect_right(ends, lo)
        while pos < hi:
            if i < len(starts) and starts[i] <= pos:
                if segs[i].wt == NEVER:
                    holes.append((pos, min(ends[i], hi)))
                pos = ends[i]
                i += 1
            else:
                nxt = min(starts[i], hi) if i < len(starts) else hi
                holes.append((pos, nxt))
                pos = nxt
        merged: list[tuple[int, int]] = []
        for a, b in holes:
            if merged and merged[-1][1] == a:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        return merged

    # ------------------------------------------------------------------ shadow map

    def _cover(self, lo: int, hi: int) -> tuple[int, int]:
        """Split and fill segments so that segments ``i .. j-1`` tile ``[lo, hi)`` exactly."""
        starts, ends, segs = self.starts, self.ends, self.segs
        i = bisect_right(ends, lo)  # the first segment ending after lo
        n = len(starts)
        if i < n and starts[i] == lo and ends[i] == hi:
            return i, i + 1  # the common case: the same tensor again
        if i < n and starts[i] < lo:
            # split segment i at lo
            starts.insert(i + 1, lo)
            ends.insert(i + 1, ends[i])
            segs.insert(i + 1, segs[i].copy())
            ends[i] = lo
            i += 1
            n += 1
        j = i
        pos = lo
        while pos < hi:
            if j < n and starts[j] == pos:
                if ends[j] > hi:
                    starts.insert(j + 1, hi)
                    ends.insert(j + 1, ends[j])
                    segs.insert(j + 1, segs[j].copy())
                    ends[j] = hi
                    n += 1
                pos = ends[j]
                j += 1
            else:
                gap_end = starts[j] if j < n and starts[j] < hi else hi
                starts.insert(j, pos)
                ends.insert(j, gap_end)
                segs.insert(j, _Segment(0, 0, NEVER, None))
                n += 1
                pos = gap_end
                j += 1
        return i, j

    def _collapse(self, i: int, j: int, lo: int, hi: int, seg: _Segment) -> None:
        """Replace segments ``i .. j-1`` (which tile ``[lo, hi)``) by one segment."""
        if j == i + 1:
            self.segs[i] = seg
            return
        self.starts[i:j] = [lo]
        self.ends[i:j] = [hi]
        self.segs[i:j] = [seg]

    # ------------------------------------------------------------------ findings

    def _race(self, kind: str, first: int, second: int, lo: int, hi: int) -> None:
        key = (first, second)
        race = self.race_pairs.get(key)
        if race is not None:
            # one report per pair of tasks, covering every byte they conflict on
            race.lo = min(race.lo, lo)
            race.hi = max(race.hi, hi)
            return
        self.total_races += 1
        race = Race(kind, first, second, lo, hi)
        self.race_pairs[key] = race
        if len(self.races) < self.max_races:
            self.races.append(race)

    def _uninitialised(self, g: int, lo: int, hi: int) -> None:
        self.total_uninitialised += 1
        if self.uninitialised and self.uninitialised[-1][0] == g and self.uninitialised[-1][2] == lo:
            t, a, _ = self.uninitialised[-1]
            self.uninitialised[-1] = (t, a, hi)
            return
        if len(self.uninitialised) < self.max_races:
            self.uninitialised.append((g, lo, hi))
