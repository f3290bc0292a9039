"""The arena over time (``ge-run --memory-timeline out.png``): one rectangle per
value — its bytes on the y axis, from the start of the task that writes it to
the end of its last reader on the x axis — coloured by the writer's stream,
with the live-byte total below. Drawn from an emulation, so what it shows is
one run of the planned arena; overlapping rectangles would be a plan error
(the race checker reports those).

Values follow :mod:`geir.backends.emulator.liveness`: a value is the exact
byte range a task writes; a read of that range extends it; graph inputs live
from time 0 and outputs until the end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from geir.backends.emulator.simulator import INF
from geir.backends.task_list import ARENA
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.output_file import save_figure

if TYPE_CHECKING:
    from geir.backends.emulator import EmulationResult

__all__ = ["ArenaSpan", "arena_spans", "draw_memory_timeline"]

_STREAM_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                   "#bcbd22", "#17becf")


@attrs.define
class ArenaSpan:
    """Bytes ``[lo, hi)`` holding one value from ``t0`` to ``t1`` (us); ``stream``
    is the writer's stream id (-1: a graph input, written by the host)."""

    lo: int
    hi: int
    t0: float
    t1: float
    stream: int


def arena_spans(result: "EmulationResult") -> list[ArenaSpan]:
    """Every value's bytes and lifetime in the run ``result``."""
    schedule = result.schedule
    program = schedule.program
    spans: list[ArenaSpan] = []
    live: dict[tuple[int, int], int] = {}
    for b in program.task_list.inputs:
        if b.ref.space == ARENA and b.ref.nbytes:
            live[(b.ref.offset, b.ref.end)] = len(spans)
            spans.append(ArenaSpan(b.ref.offset, b.ref.end, 0.0, 0.0, -1))
    tasks = [g for g in range(program.n) if (program.reads[g] or program.writes[g]) and schedule.start[g] != INF]
    tasks.sort(key=lambda g: schedule.start[g])
    for g in tasks:
        for key in program.reads[g] or ():
            i = live.get(key)
            if i is None:  # part of a value: a view's chunk (an aliased split's result)
                i = next((j for (lo, hi), j in live.items() if lo <= key[0] and key[1] <= hi), None)
            if i is not None:
                spans[i].t1 = max(spans[i].t1, schedule.end[g])
        for key in program.writes[g] or ():
            old = live.get(key)
            if old is not None and spans[old].t1 > schedule.start[g]:
                spans[old].t1 = schedule.start[g]
            live[key] = len(spans)
            spans.append(ArenaSpan(key[0], key[1], schedule.start[g], schedule.end[g],
                                   program.stream_ids[program.stream_of[g]]))
    for b in program.task_list.outputs:
        i = live.get((b.ref.offset, b.ref.end))
        if i is not None:
            spans[i].t1 = max(spans[i].t1, schedule.makespan)
    return spans


def draw_memory_timeline(result: "EmulationResult", path: str, title: str | None = None) -> None:
    """Draw the arena of ``result`` over time into ``path`` (PNG, SVG or PDF by extension).

    Raises:
        DiagnosticError: matplotlib is not installed, or the file cannot be written.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch, Rectangle
    except ImportError:
        raise DiagnosticError(Diagnostic(
            "error", "--memory-timeline needs matplotlib, which is not installed").attach_note(
            "install the optional extra: pip install 'geir[plot]' (or pip install matplotlib)")) from None
    spans = arena_spans(result)
    program = result.schedule.program
    makespan = max(result.schedule.makespan, 1e-9)
    arena = program.task_list.arena_size
    fig, (ax, ax_live) = plt.subplots(2, 1, figsize=(12, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    streams = sorted({s.stream for s in spans})
    for s in spans:
        colour = "#aaaaaa" if s.stream < 0 else _STREAM_COLOURS[streams.index(s.stream) % len(_STREAM_COLOURS)]
        ax.add_patch(Rectangle((s.t0, s.lo), max(s.t1 - s.t0, makespan * 1e-3), s.hi - s.lo, facecolor=colour,
                               edgecolor="black", linewidth=0.2, alpha=0.8))
    ax.set_xlim(0, makespan)
    ax.set_ylim(0, max(arena, 1))
    ax.set_ylabel("arena offset (bytes)")
    ax.set_title(title or f"arena of '{program.task_list.name}': {arena} B, "
                          f"peak live {result.report.get('peak_live_bytes', 0)} B")
    ax.legend(handles=[Patch(color="#aaaaaa" if s < 0 else _STREAM_COLOURS[k % len(_STREAM_COLOURS)],
                             label="input" if s < 0 else f"stream {s}") for k, s in enumerate(streams)],
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    # live bytes over time: +size at t0, -size at t1 (frees first at equal times)
    events = sorted([(s.t0, s.hi - s.lo) for s in spans] + [(s.t1, -(s.hi - s.lo)) for s in spans],
                    key=lambda e: (e[0], e[1]))
    times, levels, level = [0.0], [0], 0
    for t, d in events:
        level += d
        if times[-1] == t:
            levels[-1] = level  # one step per instant: a buffer handed over is not a dip
        else:
            times.append(t)
            levels.append(level)
    ax_live.step(times, levels, where="post", color="black", linewidth=0.8)
    ax_live.axhline(arena, color="red", linestyle="--", linewidth=0.8, label="arena")
    ax_live.set_xlabel("time (us)")
    ax_live.set_ylabel("live bytes")
    ax_live.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
