"""The dialect registry: which module defines each dialect, loaded on first use so
that tools start fast (``ge-opt --version`` imports no dialect at all)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from geir.opdef import Dialect, OpDef

__all__ = ["lookup_op", "get_dialect", "known_dialects", "DIALECT_MODULES"]

#: dialect name -> module whose ``DIALECT`` attribute defines it
DIALECT_MODULES: dict[str, str] = {
    "builtin": "geir.dialects.builtin",
    "ge": "geir.dialects.ge",
    "rt": "geir.dialects.rt",
}

_loaded: dict[str, "Dialect"] = {}
_op_cache: dict[str, "OpDef | None"] = {}


def get_dialect(name: str) -> "Dialect | None":
    """The dialect ``name``, importing its module the first time."""
    d = _loaded.get(name)
    if d is None:
        module = DIALECT_MODULES.get(name)
        if module is None:
            return None
        d = importlib.import_module(module).DIALECT
        _loaded[name] = d
    return d


def lookup_op(name: str) -> "OpDef | None":
    """The definition of op ``name`` (``ge.conv2d``), or None if unregistered."""
    try:
        return _op_cache[name]
    except KeyError:
        pass
    dialect = get_dialect(name.split(".", 1)[0])
    od = dialect.ops.get(name) if dialect is not None else None
    _op_cache[name] = od
    return od


def known_dialects() -> list[str]:
    return sorted(DIALECT_MODULES)
