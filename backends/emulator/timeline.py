"""A Gantt chart of an emulation (PNG, SVG or PDF by the file's extension), drawn
with matplotlib — an optional extra (``pip install 'geir[plot]'``).

Top: one row per stream, a bar per kernel coloured by engine, waits hatched
grey (the time the stream stalled). Bottom: units in use per engine over time.
"""

from __future__ import annotations

from geir.backends.emulator.program import KERNEL, WAIT
from geir.backends.emulator.simulator import INF, Schedule
from geir.diagnostics import Diagnostic, DiagnosticError

__all__ = ["draw_timeline"]

_COLOURS = {"AICore": "#1f77b4", "VectorCore": "#2ca02c", "AICPU": "#d62728", "DVPP": "#9467bd",
            "HCCL": "#8c564b", "SDMA": "#e377c2", "GE_LOCAL": "#7f7f7f"}


def draw_timeline(schedule: Schedule, path: str, title: str | None = None) -> None:
    """Draw the Gantt chart of ``schedule`` into ``path``.

    Raises:
        DiagnosticError: matplotlib is not installed.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        raise DiagnosticError(Diagnostic(
            "error", "--timeline needs matplotlib, which is not installed").attach_note(
            "install the optional extra: pip install 'geir[plot]' (or pip install matplotlib)")) from None

    program = schedule.program
    start, end, ready = schedule.start, schedule.end, schedule.ready
    nstreams = program.num_streams
    fig, (ax, ax_units) = plt.subplots(2, 1, figsize=(14, 2 + 0.45 * nstreams + 2.5), sharex=True,
                                       gridspec_kw={"height_ratios": [max(nstreams, 2), 2]})
    used_pools: set[int] = set()
    for s in range(nstreams):
        bars: dict[int, list[tuple[float, float]]] = {}
        waits: list[tuple[float, float]] = []
        for g in range(program.first[s], program.first[s + 1]):
            if start[g] == INF:
                continue
            if program.kind[g] == KERNEL:
                bars.setdefault(program.pool[g], []).append((start[g], end[g] - start[g]))
            elif program.kind[g] == WAIT and end[g] - ready[g] > 0:
                waits.append((ready[g], end[g] - ready[g]))
        for p, spans in bars.items():
            used_pools.add(p)
            ax.broken_barh(spans, (s - 0.4, 0.8), facecolors=_COLOURS.get(program.pool_names[p], "#17becf"),
                           edgecolors="none")
        if waits:
            ax.broken_barh(waits, (s - 0.25, 0.5), facecolors="#dddddd", edgecolors="#999999", hatch="//",
                           linewidth=0.3)
    ax.set_yticks(range(nstreams))
    ax.set_yticklabels([f"stream {sid}" for sid in program.stream_ids])
    ax.invert_yaxis()
    handles = [Patch(color=_COLOURS.get(program.pool_names[p], "#17becf"), label=program.pool_names[p])
               for p in sorted(used_pools)]
    handles.append(Patch(facecolor="#dddddd", edgecolor="#999999", hatch="//", label="waiting on an event"))
    ax.legend(handles=handles, loc="upper right", fontsize="small")
    ax.set_title(title or f"{program.task_list.name}: {schedule.mode} mode, makespan {schedule.makespan:.1f} us")

    for p in sorted(used_pools):
        changes: list[tuple[float, int]] = []
        for g in range(program.n):
            if program.kind[g] == KERNEL and program.pool[g] == p and start[g] != INF:
                changes.append((start[g], program.units[g]))
                changes.append((end[g], -program.units[g]))
        changes.sort()
        xs, ys, level = [0.0], [0], 0
        for t, d in changes:
            level += d
            xs.append(t)
            ys.append(level)
        cap = program.capacity[p]
        ax_units.step(xs, [y / cap for y in ys] if cap else ys, where="post",
                      color=_COLOURS.get(program.pool_names[p], "#17becf"), label=program.pool_names[p])
    ax_units.set_ylabel("share of units busy")
    ax_units.set_ylim(0, 1.05)
    ax_units.set_xlabel("time (us)")
    if used_pools:
        ax_units.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
