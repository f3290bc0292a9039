"""A progress bar on stderr for long emulator runs — only when stderr is a
terminal, so logs and pipes never fill with carriage returns."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar", "make_progress"]

#: a bar appears only once a run has taken this long (seconds): short runs stay quiet
DELAY = 1.0


class ProgressBar:
    """``emulating [#######.....]  61%  123456/200000 tasks``, drawn once the run
    has taken ``delay`` seconds, then redrawn at most 10 times a second."""

    def __init__(self, total: int, label: str = "emulating", stream: TextIO | None = None,
                 delay: float = DELAY) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.delay = delay
        self.last_draw = 0.0
        self.drawn = False

    def update(self, done: int) -> None:
        now = time.monotonic()
        if now - self.started < self.delay or now - self.last_draw < 0.1:
            return
        self.last_draw = now
        frac = min(done / self.total, 1.0)
        width = 30
        filled = int(frac * width)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {frac * 100:3.0f}%  "
                          f"{done}/{self.total} tasks")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()


def make_progress(total: int, enabled: bool | None, label: str = "emulating") -> ProgressBar | None:
    """A bar when ``enabled`` (None: when stderr is a terminal), else None."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    return ProgressBar(total, label) if enabled else None
