"""Instrumentations the driver offers: print the IR after passes, time them."""

from __future__ import annotations

import time
from typing import Callable, Collection, TextIO

from geir.module import Module
from geir.printer import PrintOptions, module_to_string
from geir.passes.pass_base import ModulePass
from geir.passes.pass_manager import PassInstrumentation

__all__ = ["PrintIR", "PassTiming", "TimingReport"]


class PrintIR(PassInstrumentation):
    """MLIR's IR printing around passes: the module before every pass
    (``before_all``) or the passes named in ``before``, after every pass
    (``after_all``) or those named in ``after``, and after only when the pass
    changed it with ``only_on_change`` (``--mlir-print-ir-before-all``,
    ``--mlir-print-ir-before=cse``, ``--mlir-print-ir-after-all``,
    ``--mlir-print-ir-after=cse``, ``--mlir-print-ir-after-change``)."""

    def __init__(self, out: TextIO, options: PrintOptions, *, before: Collection[str] = (),
                 after: Collection[str] = (), before_all: bool = False, after_all: bool = False,
                 only_on_change: bool = False) -> None:
        self.out = out
        self.options = options
        self.before, self.before_all = frozenset(before), before_all
        self.after, self.after_all = frozenset(after), after_all
        self.only_on_change = only_on_change
        self._before: str | None = None

    def before_pass(self, p: ModulePass, module: Module) -> None:
        dump = self.before_all or p.name in self.before
        keep = self.only_on_change and self._prints_after(p)
        if not (dump or keep):
            return
        text = module_to_string(module, self.options)  # printed once for both
        if dump:
            self._dump("Before", p, text)
        if keep:
            self._before = text

    def after_pass(self, p: ModulePass, module: Module) -> None:
        if not self._prints_after(p):
            return
        text = module_to_string(module, self.options)
        if self.only_on_change and text == self._before:
            return
        self._dump("After", p, text)

    def _prints_after(self, p: ModulePass) -> bool:
        return self.after_all or p.name in self.after

    def _dump(self, when: str, p: ModulePass, text: str) -> None:
        self.out.write(f"// -----// IR Dump {when} {_title(p.name)} ({p.name}) //----- //\n")
        self.out.write(text)
        self.out.write("\n")


def _title(name: str) -> str:
    return "".join(w.capitalize() for w in name.split("-"))


class TimingReport:
    """Rows of (name, seconds), printed as MLIR's ``--mlir-timing`` does."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float]] = []

    def add(self, name: str, seconds: float) -> None:
        self.rows.append((name, seconds))

    def time(self, name: str, fn: Callable[[], object]) -> object:
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.add(name, time.perf_counter() - t0)

    def format(self, total: float) -> str:
        lines = ["===" + "-" * 73 + "===",
                 "                         ... Execution time report ...",
                 "===" + "-" * 73 + "===",
                 f"  Total Execution Time: {total:.4f} seconds", "",
                 "  ----Wall Time----  ----Name----"]
        for name, s in self.rows:
            pct = 100.0 * s / total if total > 0 else 0.0
            lines.append(f"    {s:.4f} ({pct:5.1f}%)  {name}")
        lines.append(f"    {total:.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


class PassTiming(PassInstrumentation):
    """Adds one row per pass (and one for the verifier after it) to a report."""

    def __init__(self, report: TimingReport) -> None:
        self.report = report
        self._t0 = 0.0

    def before_pass(self, p: ModulePass, module: Module) -> None:
        self._t0 = time.perf_counter()

    def after_pass(self, p: ModulePass, module: Module) -> None:
        self.report.add(_title(p.name), time.perf_counter() - self._t0)
