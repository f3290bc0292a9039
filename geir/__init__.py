"""geir: an MLIR-style IR and toolkit for GE's multi-stream execution on Ascend.

The public entry points are imported lazily so that ``import geir`` stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["parse_module", "parse_file", "print_module", "module_to_string", "verify", "Module",
           "import_onnx"]

_LAZY = {
    "parse_module": "geir.parser", "parse_file": "geir.parser", "print_module": "geir.printer",
    "module_to_string": "geir.printer", "verify": "geir.verifier", "Module": "geir.module",
    "import_onnx": "geir.onnx_importer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'geir' has no attribute '{name}'")
    import importlib
    return getattr(importlib.import_module(module), name)
