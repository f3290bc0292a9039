"""Running a sweep: resolve its models, skip the runs its results file already
holds, hand the rest to an executor, write each row as it comes back, and
finish the file (the derived columns) once all are in."""

from __future__ import annotations

import sys
from typing import Any, Callable

import attrs

from geir.diagnostics import DiagnosticError
from geir.tools.bench.executors import Executor, Task
from geir.tools.bench.measure import INTERNAL_ERROR, model_digest
from geir.tools.bench.models import Model, resolve_models
from geir.tools.bench.results import KEY_COLUMNS, ResultStore, row_key, with_speedups
from geir.tools.bench.sweep_config import Configuration, Sweep

__all__ = ["SweepRun", "prepare", "run_sweep"]


@attrs.define
class SweepRun:
    """A checked sweep ready to run: its models, configurations, results file
    (None: rows kept in memory only) and the runs still to do."""

    sweep: Sweep
    models: list[Model]
    configurations: list[Configuration]
    store: ResultStore | None
    todo: list[Task]
    skipped: int

    def keys(self) -> set[tuple[Any, ...]]:
        """The row keys this sweep consists of."""
        return {(m.name, model_digest(m.text), *c.columns().values()) for m in self.models for c in self.configurations}

    def order(self) -> dict[str, list[Any]]:
        """Each column's values in the sweep's own order (for tables and plots)."""
        c = self.configurations
        return {"model": [m.name for m in self.models],
                "strategy": list(dict.fromkeys(x.strategy for x in c)),
                "max_streams": list(dict.fromkeys(x.max_streams for x in c)),
                "device": list(dict.fromkeys(x.device for x in c)),
                "memory": list(dict.fromkeys(x.memory for x in c)),
                "mode": list(dict.fromkeys(x.mode for x in c)),
                "prepare": list(dict.fromkeys(x.prepare for x in c))}


def _model_error(setting: Any) -> Callable[[int, DiagnosticError], DiagnosticError]:
    def relocate(_: int, e: DiagnosticError) -> DiagnosticError:
        d = e.diagnostics[0]
        if d.location is not None:  # an error inside the model file: keep its position
            return e
        return setting.error(d.message, tuple(n.message for n in d.notes))
    return relocate


def prepare(sweep: Sweep, results: str | None) -> SweepRun:
    """Check ``sweep``, load its models and the rows of ``results``; fails
    (DiagnosticError) before anything runs."""
    sweep.check()
    models: dict[str, Model] = {}
    shapes = sweep.shape_bindings()
    for s in sweep.models:
        base = sweep.base_dir if s.location is not None else "."
        for m in resolve_models([s.value], base, on_error=_model_error(s), input_shapes=shapes):
            models.setdefault(m.name, m)
    configs = sweep.configurations()
    store = None
    if results is not None:
        store = ResultStore(results)
        store.load()
        store.open_for_append()
    # Rows of runs that hit a bug are run again: the bug may be fixed by now.
    done = {k for k, r in store.rows.items() if not str(r.get("error") or "").startswith(INTERNAL_ERROR)} \
        if store is not None else set()
    todo, skipped = [], 0
    for m in models.values():
        sha = model_digest(m.text)
        for c in configs:
            if (m.name, sha, *c.columns().values()) in done:
                skipped += 1
            else:
                todo.append(Task(m.name, c))
    return SweepRun(sweep, list(models.values()), configs, store, todo, skipped)


def run_sweep(run: SweepRun, executor: Executor, progress: bool = False) -> list[dict[str, Any]]:
    """Execute ``run.todo`` on ``executor``; return the sweep's rows (with the
    rows the results file already had), speed-ups filled in."""
    models = {m.name: m for m in run.models}
    bar = _progress_bar(len(run.todo), progress)
    fresh: dict[tuple[Any, ...], dict[str, Any]] = {}
    try:
        for row in executor.run(run.todo, models, float(run.sweep.time_limit.value)):
            if run.store is not None:
                run.store.append(row)
            fresh[row_key(row)] = row
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"{row['model']} {row['strategy']}", refresh=False)
    finally:
        if bar is not None:
            bar.close()
        if run.store is not None:
            run.store.close()
    if run.store is not None:
        rows = run.store.finalize()
    else:
        rows = with_speedups(fresh.values())
    wanted = run.keys()
    return [r for r in rows if tuple(r[c] for c in KEY_COLUMNS) in wanted]


def _progress_bar(total: int, wanted: bool) -> Any:
    """A tqdm bar on stderr when asked for and tqdm is installed (an optional
    dependency: without it the sweep runs without a bar)."""
    if not wanted or total == 0:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        sys.stderr.write("ge-bench: note: no progress bar without tqdm (pip install tqdm)\n")
        return None
    return tqdm(total=total, desc="ge-bench", unit="run", file=sys.stderr, dynamic_ncols=True)
