"""Where a sweep's runs execute: in this process (``--jobs 1``), in a pool of
worker processes (``concurrent.futures``, ``--jobs N``), or on a Dask cluster
(``--executor dask --scheduler ADDRESS``, the optional ``dist`` extra). Each
(model, configuration) is one task; results come back as they finish, in any
order, and the caller writes each one at once. We schedule nothing ourselves:
the pool and Dask's scheduler do.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Protocol

import attrs

from geir.diagnostics import Diagnostic, DiagnosticError
from geir.tools.bench.measure import run_task
from geir.tools.bench.models import Model
from geir.tools.bench.sweep_config import Configuration

__all__ = ["Task", "Executor", "InlineExecutor", "ProcessExecutor", "DaskExecutor", "make_executor"]


@attrs.frozen
class Task:
    """One run: a model (by name; its text travels separately, once per model
    where the executor allows) under one configuration."""

    model: str
    config: Configuration


#: seconds to wait for a Dask scheduler before giving up
CONNECT_TIMEOUT_S = 10.0


class Executor(Protocol):
    def start(self) -> None:
        """Connect to whatever runs the tasks (before the sweep prints its plan)."""

    def run(self, tasks: list[Task], models: Mapping[str, Model], time_limit: float) -> Iterator[dict[str, Any]]:
        """Run ``tasks`` and yield each one's row as it finishes."""


@attrs.define
class InlineExecutor:
    """Every run in this process, in order (``--jobs 1``: no pickling, and a
    debugger or profiler sees the passes)."""

    def start(self) -> None:
        pass

    def run(self, tasks: list[Task], models: Mapping[str, Model], time_limit: float) -> Iterator[dict[str, Any]]:
        for t in tasks:
            yield run_task(t.model, t.config, models[t.model].text, time_limit, models[t.model].located)


@attrs.define
class ProcessExecutor:
    """A ``ProcessPoolExecutor`` of ``jobs`` worker processes."""

    jobs: int

    def start(self) -> None:
        pass

    def run(self, tasks: list[Task], models: Mapping[str, Model], time_limit: float) -> Iterator[dict[str, Any]]:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool
        pool = ProcessPoolExecutor(max_workers=self.jobs)
        try:
            futures = [pool.submit(run_task, t.model, t.config, models[t.model].text, time_limit,
                                   models[t.model].located) for t in tasks]
            for f in as_completed(futures):
                try:
                    yield f.result()
                except BrokenProcessPool:
                    raise DiagnosticError(Diagnostic("error", "a worker process died (out of memory, or killed); "
                                                              "the rows written so far are kept: run again to "
                                                              "resume")) from None
        finally:
            # An interrupted sweep must not wait for the queued runs.
            pool.shutdown(wait=True, cancel_futures=True)


@attrs.define
class DaskExecutor:
    """The runs as tasks of a Dask cluster: ``address`` is its scheduler's
    (``tcp://host:8786``). Each model's text is scattered to the cluster once."""

    address: str
    _client: Any = None

    def start(self) -> None:
        try:
            import distributed
        except ImportError:
            raise DiagnosticError(Diagnostic("error", "--executor dask needs dask.distributed, which is not "
                                                      "installed; pip install 'geir[dist]'")) from None
        try:
            self._client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise DiagnosticError(Diagnostic("error", f"cannot reach the Dask scheduler at '{self.address}': "
                                                      f"{e}")) from None

    def run(self, tasks: list[Task], models: Mapping[str, Model], time_limit: float) -> Iterator[dict[str, Any]]:
        import distributed
        if self._client is None:
            self.start()
        client = self._client
        try:
            used = {t.model for t in tasks}
            scattered = {m: client.scatter(models[m].text, broadcast=False) for m in used}
            futures = [client.submit(run_task, t.model, t.config, scattered[t.model], time_limit,
                                     models[t.model].located, pure=False,
                                     key=f"ge-bench-{i}-{t.model}-{t.config.strategy}")
                       for i, t in enumerate(tasks)]
            for f in distributed.as_completed(futures, loop=client.loop):
                yield f.result()
        finally:
            client.close()
            self._client = None


def make_executor(kind: str, jobs: int, scheduler: str | None) -> Executor:
    """The executor ``--executor``/``--jobs``/``--scheduler`` ask for."""
    if kind == "dask":
        if not scheduler:
            raise DiagnosticError(Diagnostic("error", "--executor dask needs --scheduler ADDRESS (the Dask "
                                                      "scheduler's, e.g. tcp://127.0.0.1:8786)"))
        return DaskExecutor(scheduler)
    if scheduler:
        raise DiagnosticError(Diagnostic("error", "--scheduler is for --executor dask"))
    return InlineExecutor() if jobs == 1 else ProcessExecutor(jobs)

