"""geir: an MLIR-style IR and toolkit for GE's multi-stream execution on Ascend.

The public API is what ``geir.__all__`` names; everything else (the
subpackages ``geir.passes``, ``geir.backends``, ``geir.tools`` and the modules
beside this one) is internal and may change. The data path:

```python
import geir
module = geir.import_onnx("model.onnx")                # or geir.parse("model.mlir")
geir.run_pipeline(module, "canonicalize,cse")           # any ge-opt pipeline
report = geir.emulate(geir.lower(module), device="910B2", mode="sink")
report.makespan_us, report.to_json(), report.trace("trace.json"), report.timeline()
run = geir.run_model("model.onnx", device="910B2")      # what ge-run model.onnx does
```

Names are imported on first use, so ``import geir`` stays cheap (no onnx, no
matplotlib, no parser until a function needs them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["parse", "import_onnx", "run_pipeline", "lower", "emulate", "run_model", "interpret", "verify", "register_pass",
           "register_strategy", "opt_main", "Module", "TaskList", "Report", "RunReport", "Error", "PassWarning", "module_has_absent_weights"]

__version__ = "0.1.0"

#: public name -> the module that defines it
_LAZY = {
    "parse": "geir.api", "import_onnx": "geir.api", "run_pipeline": "geir.api", "lower": "geir.api",
    "emulate": "geir.api", "run_model": "geir.api", "interpret": "geir.api", "register_pass": "geir.api", "register_strategy": "geir.api", "opt_main": "geir.api",
    "Error": "geir.api",
    "PassWarning": "geir.api", "verify": "geir.verifier", "Module": "geir.module",
    "TaskList": "geir.backends.task_list", "Report": "geir.report", "RunReport": "geir.report",
    "module_has_absent_weights": "geir.absent_weights",
}

if TYPE_CHECKING:
    from geir.absent_weights import module_has_absent_weights
    from geir.api import (Error, PassWarning, emulate, import_onnx, interpret, lower, opt_main, parse,
                          register_pass, register_strategy, run_model, run_pipeline)
    from geir.backends.task_list import TaskList
    from geir.module import Module
    from geir.report import Report, RunReport
    from geir.verifier import verify


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'geir' has no attribute '{name}'")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
