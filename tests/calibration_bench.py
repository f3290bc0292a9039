"""The calibration benches (``bench/calibration.py``, ``bench/fidelity.py``,
``bench/fit_calibration.py``) loaded as modules, and the kernels of a task list,
for the tests of those benches."""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType

from geir.backends.task_list import Kernel, TaskList

BENCH_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")


def load_bench_script(script: str, name: str) -> ModuleType:
    """``bench/<script>`` as a module named ``name`` (a bench is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(BENCH_DIR, script))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_calibration_bench(name: str) -> ModuleType:
    """``bench/calibration.py`` (the GPU calibration) as a module named ``name``."""
    return load_bench_script("calibration.py", name)


def task_kernels(tl: TaskList) -> list[Kernel]:
    """Every kernel task of ``tl``, stream by stream."""
    return [t for s in tl.streams for t in s.tasks if isinstance(t, Kernel)]
