"""Which cross-stream dependencies need an event, and which event ids they use.

Streams are in-order queues, so a dependency ``p -> c`` between streams needs a
record after ``p`` and a wait before ``c`` — unless ``p`` already happens before
``c`` through in-stream order and other events. GE emits one event per
cross-stream edge and only drops same-pair duplicates (``OptimizeBySendEvents``,
``OptimizeByRecvEvents``); we reduce over happens-before with vector clocks:

* stream ``s`` keeps a clock ``C_s``: ``C_s[t]`` is the position on stream ``t``
  of the last node known to happen before the current point of ``s``;
* a node ``c`` on ``s`` needs, per other stream ``t``, only its latest
  predecessor ``p`` there, and none at all when ``C_s[t] >= pos(p)``;
* the remaining candidates are joined latest-first (by clock sum: when ``p``
  happens before ``q``, ``q``'s clock dominates ``p``'s and its sum is larger),
  skipping every candidate the joins already cover.

Every wait kept is then necessary: without it its producer is ordered before its
consumer by nothing else (the waits kept at one node form an antichain, and the
earlier waits of its stream are in ``C_s``). The result is the transitive
reduction of the cross-stream order that the stream assignment and block order
leave to events.

Event ids: a binary event consumed by its wait may be recorded again once that
wait is done. Event ``k`` takes the id of an earlier event ``j`` when ``j``'s
consumer happens before ``k``'s producer (so ``j``'s wait precedes ``k``'s
record) and before the point where ``k``'s wait sits (so ``k``'s wait cannot
consume ``j``'s record) — the emulator's reuse rule, checked on the same clocks.
"""

from __future__ import annotations

from typing import Sequence

import attrs

__all__ = ["SyncPlan", "plan_sync"]

#: how many free ids are tried before a new one is opened
_REUSE_PROBES = 32


@attrs.define(eq=False)
class SyncPlan:
    """``events[k] = (producer, consumer)`` node indices, in consumer order;
    ``ids[k]`` the event id of event k; ``cross_edges`` the cross-stream data
    dependencies before any reduction (GE's per-edge count)."""

    events: list[tuple[int, int]]
    ids: list[int]
    cross_edges: int
    positions: list[int]  # 1-based position of each node on its stream

    @property
    def num_ids(self) -> int:
        return max(self.ids, default=-1) + 1


def plan_sync(preds: Sequence[Sequence[int]], streams: Sequence[int], order: Sequence[int],
              reuse_ids: bool = True, reduce: bool = True) -> SyncPlan:
    """The events that order every dependency of ``preds`` (node -> its
    predecessors) when node ``i`` runs on ``streams[i]`` and each stream issues
    its nodes in ``order``. ``reduce=False`` keeps one event per cross-stream
    dependency (the unreduced baseline)."""
    n = len(streams)
    ids_of = {s: k for k, s in enumerate(sorted(set(streams)))}
    k_streams = len(ids_of)
    sidx = [ids_of[s] for s in streams]
    pos = [0] * n
    count = [0] * k_streams
    for i in order:
        count[sidx[i]] += 1
        pos[i] = count[sidx[i]]
    clock = [[0] * k_streams for _ in range(k_streams)]
    after: list[tuple[int, ...] | None] = [None] * n  # the clock of a node's stream right after it
    before: list[tuple[int, ...] | None] = [None] * n  # ... right before its waits
    events: list[tuple[int, int]] = []
    cross = 0
    for c in order:
        s = sidx[c]
        cs = clock[s]
        before[c] = tuple(cs)
        latest: dict[int, int] = {}
        for p in preds[c]:
            t = sidx[p]
            if t == s:
                continue
            cross += 1
            if not reduce:
                events.append((p, c))
                _join(cs, after[p])
            elif pos[p] > cs[t]:
                q = latest.get(t)
                if q is None or pos[p] > pos[q]:
                    latest[t] = p
        if latest:
            cands = sorted(latest.values(), key=lambda p: -sum(after[p]))  # type: ignore[arg-type]
            for p in cands:
                if pos[p] <= cs[sidx[p]]:
                    continue  # an earlier join covered it
                events.append((p, c))
                _join(cs, after[p])
        cs[s] = pos[c]
        after[c] = tuple(cs)
    ids = _assign_ids(events, sidx, pos, after, before) if reuse_ids else list(range(len(events)))
    return SyncPlan(events, ids, cross, pos)


def _join(clock: list[int], other: tuple[int, ...] | None) -> None:
    assert other is not None
    for t, v in enumerate(other):
        if v > clock[t]:
            clock[t] = v


def _assign_ids(events: list[tuple[int, int]], sidx: list[int], pos: list[int],
                after: list[tuple[int, ...] | None], before: list[tuple[int, ...] | None]) -> list[int]:
    """Event ids, reusing an id once its previous wait is ordered before both the
    new record and the new wait."""
    ids: list[int] = []
    free: list[tuple[int, int]] = []  # (id, consumer of its last event), oldest first
    next_id = 0
    for p, c in events:
        cp, cb = after[p], before[c]
        assert cp is not None and cb is not None
        chosen = -1
        for k in range(min(len(free), _REUSE_PROBES)):
            eid, last_c = free[k]
            t, at = sidx[last_c], pos[last_c]
            # last_c (and the wait just before it) happens before p's record and c's wait
            if cp[t] >= at and (cb[t] >= at or (t == sidx[c] and at < pos[c])):
                chosen = eid
                del free[k]
                break
        if chosen < 0:
            chosen = next_id
            next_id += 1
        ids.append(chosen)
        free.append((chosen, c))
    return ids
