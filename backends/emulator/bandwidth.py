"""Shared DRAM bandwidth: a fluid (processor-sharing) model of device memory.

Every running task that moves device memory (AI core and vector kernels, AICPU
kernels, SDMA copies, collectives; see :mod:`geir.backends.cost_model`) is a
*flow*: it has ``bytes`` still to move, a *demand* — the byte rate at which it
would move them alone, ``dram_bytes / max(compute_us, memory_us)``, so a
compute-bound kernel asks for less than its cores could draw — and a *peak
rate*, its cores' (or channel's) byte rate. A task's fixed overhead comes before
its flow and takes no bandwidth.

While the demands sum to at most the DRAM bandwidth ``H`` every flow runs at its
demand, which is exactly the roofline duration of the task alone. When they sum
to more, the bandwidth is shared max-min fairly *per unit of peak rate* (a
water level ``lam`` in (0, 1)): a flow gets ``min(demand, lam x peak)`` and the
rates sum to ``H``. With every flow memory-bound this gives each flow a share
proportional to its cores (every core's requests are served alike); a
compute-bound flow that asks for less than its share keeps its demand and the
others divide the rest.

Rates change only when a flow joins or leaves. Then :meth:`DramShare.rebalance`
charges every changed flow the bytes it moved at its old rate, and pushes a new
finish entry ``(time, stream, version)`` on the simulator's heap; the old entry
stays in the heap and is skipped when popped because the stream's version moved
on (lazy deletion). While the device is not saturated a join or leave touches
only the flows that joined, so the common case costs O(1) per task; a saturated
device costs O(k log k) per change for k flows running at once (k <= streams).

Invariant (tested): the bytes moved in any interval never exceed ``H`` times its
length, and no task finishes earlier than alone.
"""

from __future__ import annotations

from heapq import heappush

__all__ = ["DramShare"]

#: relative slack when comparing summed demand with the bandwidth (float sums drift)
_SLACK = 1e-12


class DramShare:
    """The flows running on one device's DRAM, indexed by stream (a stream runs at
    most one task at a time). ``heap`` and ``version`` are the simulator's: a new
    finish time is pushed as ``(time, stream, version[stream])``."""

    __slots__ = ("bandwidth", "heap", "version", "remaining", "rate", "since", "demand", "peak", "ratio",
                 "active", "pending", "total_demand", "changed", "saturated", "saturated_since", "saturated_us",
                 "bytes_moved")

    def __init__(self, bandwidth: float, num_streams: int, heap: list[tuple[float, int, int]],
                 version: list[int]) -> None:
        self.bandwidth = bandwidth
        self.heap = heap
        self.version = version
        self.remaining = [0.0] * num_streams  # bytes left as of ``since``
        self.rate = [0.0] * num_streams  # bytes/us now (0: not given one yet)
        self.since = [0.0] * num_streams
        self.demand = [0.0] * num_streams
        self.peak = [0.0] * num_streams
        self.ratio = [0.0] * num_streams  # demand / peak: the water level at which the flow is satisfied
        self.active: set[int] = set()
        self.pending: list[int] = []  # joined since the last rebalance
        self.total_demand = 0.0
        self.changed = False  # a rebalance is due
        self.saturated = False
        self.saturated_since = 0.0
        self.saturated_us = 0.0  # time with the demands above the bandwidth
        self.bytes_moved = 0.0

    def join(self, s: int, t: float, nbytes: float, demand: float, peak: float) -> None:
        """The task at the head of stream ``s`` starts moving ``nbytes`` at time ``t``."""
        self.remaining[s] = nbytes
        self.rate[s] = 0.0
        self.since[s] = t
        self.demand[s] = demand
        self.peak[s] = peak
        self.ratio[s] = demand / peak
        self.active.add(s)
        self.pending.append(s)
        self.total_demand += demand
        self.bytes_moved += nbytes
        self.changed = True

    def leave(self, s: int) -> None:
        """Stream ``s``'s flow has moved its bytes."""
        self.active.discard(s)
        if self.active:
            self.total_demand -= self.demand[s]
        else:
            self.total_demand = 0.0  # no drift left behind
        if self.saturated:
            self.changed = True

    def _set(self, s: int, rate: float, t: float) -> None:
        old = self.rate[s]
        if old == rate:
            return
        left = self.remaining[s]
        if old > 0.0:
            left -= old * (t - self.since[s])
            if left < 0.0:
                left = 0.0
            self.remaining[s] = left
        self.since[s] = t
        self.rate[s] = rate
        v = self.version[s] + 1
        self.version[s] = v
        heappush(self.heap, (t + left / rate, s, v))

    def rebalance(self, t: float) -> None:
        """Give every flow its rate after the joins and leaves at time ``t``."""
        self.changed = False
        H = self.bandwidth
        if self.total_demand <= H * (1.0 + _SLACK):
            if self.saturated:
                self.saturated = False
                self.saturated_us += t - self.saturated_since
                for s in self.active:
                    self._set(s, self.demand[s], t)
            else:
                for s in self.pending:
                    if s in self.active:
                        self._set(s, self.demand[s], t)
            self.pending.clear()
            return
        self.pending.clear()
        if not self.saturated:
            self.saturated = True
            self.saturated_since = t
        demand, peak = self.demand, self.peak
        left = H
        weight = 0.0
        for s in self.active:
            weight += peak[s]
        level = -1.0
        for s in sorted(self.active, key=self.ratio.__getitem__):
            if level < 0.0:
                d = demand[s]
                if d * weight <= left * peak[s]:
                    # satisfied below the water level: the others share what it leaves
                    self._set(s, d, t)
                    left -= d
                    weight -= peak[s]
                    continue
                level = left / weight
            self._set(s, level * peak[s], t)

    def finish(self, t: float) -> None:
        """Close the saturated-time account at the end of the run."""
        if self.saturated:
            self.saturated_us += t - self.saturated_since
            self.saturated = False
