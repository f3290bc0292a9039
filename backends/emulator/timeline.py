"""A Gantt chart of an emulation (PNG, SVG or PDF by the file's extension), drawn
with matplotlib — an optional extra (``pip install 'geir[plot]'``).

Top: one row per stream, a bar per kernel coloured by engine, waits hatched
grey (the time the stream stalled). Bottom: units in use per engine over time.
The figure is built without pyplot, so drawing one in a notebook never switches
its backend nor closes its figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from geir.backends.emulator.program import KERNEL, WAIT
from geir.backends.emulator.simulator import INF, Schedule
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.output_file import save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["draw_timeline", "timeline_figure"]

_COLOURS = {"AICore": "#1f77b4", "VectorCore": "#2ca02c", "AICPU": "#d62728", "DVPP": "#9467bd",
            "HCCL": "#8c564b", "SDMA": "#e377c2", "GE_LOCAL": "#7f7f7f"}


def draw_timeline(schedule: Schedule, path: str, title: str | None = None) -> None:
    """Draw the Gantt chart of ``schedule`` into ``path``.

    Raises:
        DiagnosticError: matplotlib is not installed, or ``path`` cannot be written
            (in the image format its extension names).
    """
    save_figure(timeline_figure(schedule, title), path, dpi=120)


def timeline_figure(schedule: Schedule, title: str | None = None, needs: str = "--timeline") -> "Figure":
    """The Gantt chart of an emulator schedule as a matplotlib figure.

    The figure is built without pyplot, so it never switches the notebook's
    backend nor closes its figures; the chart is the one ``ge-run --timeline``
    saves. ``needs`` names the feature in the error when matplotlib is missing.

    Raises:
        DiagnosticError: matplotlib is not installed.
    """
    try:
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch
    except ImportError:
        raise DiagnosticError(Diagnostic("error", f"{needs} needs matplotlib, which is not installed").attach_note(
            "install the optional extra: pip install 'geir[plot]' (or pip install matplotlib)")) from None

    program = schedule.program
    start, end, ready = schedule.start, schedule.end, schedule.ready
    rows = program.num_streams
    colour = {p: _COLOURS.get(name, "#17becf") for p, name in enumerate(program.pool_names)}
    fig = Figure(figsize=(12, 1.5 + 0.45 * rows + 2.0), layout="constrained")
    ax, ax_units = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [max(rows, 2), 2]})
    kernels = [g for g in range(program.n) if program.kind[g] == KERNEL and start[g] != INF]
    pools = sorted({program.pool[g] for g in kernels})
    bars: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for g in kernels:
        bars.setdefault((program.pool[g], program.stream_of[g]), []).append((start[g], end[g] - start[g]))
    for (p, s), spans in bars.items():
        ax.broken_barh(spans, (s - 0.4, 0.8), facecolors=colour[p], edgecolors="none")
    stalls: dict[int, list[tuple[float, float]]] = {}
    for g in range(program.n):
        if program.kind[g] == WAIT and start[g] != INF and end[g] > ready[g]:
            stalls.setdefault(program.stream_of[g], []).append((ready[g], end[g] - ready[g]))
    for s, spans in stalls.items():
        ax.broken_barh(spans, (s - 0.25, 0.5), facecolors="#dddddd", edgecolors="#999999", hatch="//",
                       linewidth=0.3)
    ax.set_yticks(range(rows), [f"stream {sid}" for sid in program.stream_ids])
    ax.set_ylim(rows - 0.5, -0.5)
    handles = [Patch(color=colour[p], label=program.pool_names[p]) for p in pools]
    handles.append(Patch(facecolor="#dddddd", edgecolor="#999999", hatch="//", label="waiting on an event"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.set_title(title or f"{program.task_list.name}: {schedule.mode} mode, makespan {schedule.makespan:.1f} us")
    changes: dict[int, dict[float, int]] = {}
    for g in kernels:
        # units in use over time: +units at each start, -units at each end; a kernel that
        # starts as another ends nets out at that instant (no dip to the level between)
        at = changes.setdefault(program.pool[g], {})
        at[start[g]] = at.get(start[g], 0) + program.units[g]
        at[end[g]] = at.get(end[g], 0) - program.units[g]
    for p in pools:
        steps = sorted(changes[p].items())
        times = [0.0] + [t for t, _ in steps]
        levels = np.concatenate([[0], np.cumsum([d for _, d in steps])]) / max(program.capacity[p], 1)
        ax_units.step(times, levels, where="post", color=colour[p], label=program.pool_names[p])
    ax_units.set_ylabel("share of units busy")
    ax_units.set_ylim(0, 1.05)
    ax_units.set_xlabel("time (us)")
    if pools:
        ax_units.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    return fig
