"""``bench/calibration.py`` loaded as a module, and the kernels of its task
lists, for the tests of the GPU calibration bench."""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType

from geir.backends.task_list import Kernel, TaskList

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "calibration.py")


def load_calibration_bench(name: str) -> ModuleType:
    """The bench script as a module named ``name`` (a bench is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_kernels(tl: TaskList) -> list[Kernel]:
    """Every kernel task of ``tl``, stream by stream."""
    return [t for s in tl.streams for t in s.tasks if isinstance(t, Kernel)]
