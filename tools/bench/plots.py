"""The sweep's figures (``ge-bench --plot DIR``, matplotlib from the ``plot``
extra), one PNG each, a panel per device:

* ``speedup.png`` — speed-up over ``single`` per model and strategy;
* ``lb_ratio.png`` — makespan over the schedule-independent lower bound per
  model and strategy (1.0 is a provably optimal schedule);
* ``memory_streams.png`` — the trade-off multi-stream pays in memory: arena
  bytes over the single-stream arena of the same model against the streams
  used, one point per run (colour: strategy, marker: memory algorithm).

The bar charts show one slice of the sweep: the largest ``max_streams`` and the
first memory algorithm, mode and graph preparation of the sweep (named in the
title).
"""

from __future__ import annotations

import os
from typing import Any

from geir.diagnostics import Diagnostic, DiagnosticError
from geir.output_file import save_figure

__all__ = ["write_plots", "require_matplotlib"]

_MARKERS = "osD^vP*X"


def require_matplotlib() -> None:
    """DiagnosticError now, before a long sweep, when ``--plot`` cannot draw."""
    _pyplot()


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise DiagnosticError(Diagnostic("error", "--plot needs matplotlib, which is not installed; "
                                                  "pip install 'geir[plot]'")) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def write_plots(rows: list[dict[str, Any]], directory: str, order: dict[str, list[Any]]) -> list[str]:
    """Draw the three figures of ``rows`` into ``directory`` (created when
    missing); return the paths written."""
    plt = _pyplot()
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise DiagnosticError(Diagnostic("error", f"cannot create plot directory '{directory}': "
                                                  f"{e.strerror or e}")) from None
    rows = [r for r in rows if not r.get("error") and r.get("makespan_us")]
    devices = [d for d in order["device"] if any(r["device"] == d for r in rows)]
    if not rows or not devices:
        return []
    ms, memory, mode, prep = max(order["max_streams"]), order["memory"][0], order["mode"][0], order["prepare"][0]
    chosen = [r for r in rows if r["max_streams"] == ms and r["memory"] == memory and r["mode"] == mode
              and r["prepare"] == prep]
    where = f"max-streams {ms}, memory {memory}, {mode} mode, prepare {prep}"
    paths = []
    strategies = [s for s in order["strategy"] if s != "single"]
    if strategies and any(r.get("speedup") for r in chosen):
        paths.append(_bars(plt, chosen, devices, order["model"], strategies, "speedup", "speed-up over single",
                           f"speed-up over a single stream per model and strategy\n({where})",
                           os.path.join(directory, "speedup.png"), 1.0))
    paths.append(_bars(plt, chosen, devices, order["model"], order["strategy"], "lb_ratio", "makespan / LB",
                       f"makespan over the schedule-independent lower bound\n({where})",
                       os.path.join(directory, "lb_ratio.png"), 1.0))
    paths.append(_memory(plt, rows, devices, order, os.path.join(directory, "memory_streams.png")))
    return [p for p in paths if p]


def _bars(plt: Any, rows: list[dict[str, Any]], devices: list[str], models: list[str], strategies: list[str],
          column: str, ylabel: str, title: str, path: str, line: float) -> str:
    fig, axes = plt.subplots(len(devices), 1, figsize=(min(16.0, max(6.0, len(models) * 0.9)), 4.2 * len(devices)),
                             squeeze=False)
    width = 0.8 / max(1, len(strategies))
    for ax, device in zip(axes[:, 0], devices):
        by = {(r["model"], r["strategy"]): r.get(column) for r in rows if r["device"] == device}
        for k, s in enumerate(strategies):
            pts = [(i + k * width, by[(m, s)]) for i, m in enumerate(models) if by.get((m, s))]
            if pts:
                ax.bar([x for x, _ in pts], [y for _, y in pts], width, label=s)
        ax.axhline(line, color="black", linewidth=0.8)
        # Paths are long: the file name is enough under a bar group.
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(models))], [os.path.basename(m) for m in models],
                      rotation=30, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(device, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    try:
        save_figure(fig, path, dpi=110)
    finally:
        plt.close(fig)
    return path


def _memory(plt: Any, rows: list[dict[str, Any]], devices: list[str], order: dict[str, list[Any]],
            path: str) -> str:
    fig, axes = plt.subplots(1, len(devices), figsize=(5.2 * len(devices), 3.8), squeeze=False)
    colours = {s: f"C{i}" for i, s in enumerate(order["strategy"])}
    markers = {m: _MARKERS[i % len(_MARKERS)] for i, m in enumerate(order["memory"])}
    for ax, device in zip(axes[0], devices):
        mine = [r for r in rows if r["device"] == device and r.get("arena_bytes")]
        # The reference arena: the model's single-stream run with the same memory algorithm, mode and preparation.
        base = {(r["model"], r["memory"], r["mode"], r["prepare"]): r["arena_bytes"] for r in mine
                if r["strategy"] == "single"}
        fallback = {}
        for r in mine:
            key = (r["model"], r["memory"], r["mode"], r["prepare"])
            fallback[key] = min(fallback.get(key, r["arena_bytes"]), r["arena_bytes"])
        seen = set()
        for r in mine:
            key = (r["model"], r["memory"], r["mode"], r["prepare"])
            ref = base.get(key) or fallback[key]
            label = f"{r['strategy']} / {r['memory']}"
            ax.scatter(r["streams"], r["arena_bytes"] / ref, color=colours.get(r["strategy"], "grey"),
                       marker=markers.get(r["memory"], "o"), s=28, alpha=0.8,
                       label=None if label in seen else label)
            seen.add(label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("streams used")
        ax.set_ylabel("arena / single-stream arena")
        ax.set_title(f"{device}: memory vs streams", fontsize=9)
        ax.legend(fontsize=6)
    fig.tight_layout()
    try:
        save_figure(fig, path, dpi=110)
    finally:
        plt.close(fig)
    return path
