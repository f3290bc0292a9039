"""Weights whose bytes are absent: a graph without its weights.

A model exported as a graph only (its initializers in an external data file
that is not there), or imported with ``--elide-weights``, keeps every weight's
type but not its values. Such a weight is what MLIR calls an elided resource:
a ``dense_resource<name>`` constant whose blob is absent from the file. The
graph still compiles, lowers and emulates timing-only (time and memory depend
on types, not values); whatever needs the values (the interpreter, numeric
emulation, exporting the weights) stops with one diagnostic naming the first
such weight, made by :func:`absent_weights_error`.
"""

from __future__ import annotations

from typing import Iterator

from geir.attributes import ArrayAttr, Attribute, DenseResourceAttr, DictionaryAttr
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.module import Module
from geir.operation import Operation

__all__ = ["is_absent", "absent_weights", "module_has_absent_weights", "absent_weights_error",
           "require_weights"]


def is_absent(attr: Attribute) -> bool:
    """Whether ``attr`` is a ``dense_resource`` constant whose blob has no bytes."""
    return isinstance(attr, DenseResourceAttr) and attr.blob.data is None


def absent_weights(module: Module) -> Iterator[tuple[Operation, DenseResourceAttr]]:
    """Each op holding a constant without its bytes, with that constant, in
    pre-order (also inside arrays and dictionaries: ``rt.model``'s weights)."""
    for op in module.walk():
        stack: list[Attribute] = list(reversed(op.attributes.values()))
        while stack:
            attr = stack.pop()
            if isinstance(attr, DenseResourceAttr):
                if attr.blob.data is None:
                    yield op, attr
            elif isinstance(attr, ArrayAttr):
                stack.extend(reversed(attr.value))
            elif isinstance(attr, DictionaryAttr):
                stack.extend(v for _, v in reversed(attr.value))


def module_has_absent_weights(module: Module) -> bool:
    """Whether some constant of ``module`` has no bytes: the module then runs
    timing-only (its numerics need the weights file)."""
    return next(absent_weights(module), None) is not None


def absent_weights_error(weight: str, needs: str, op: Operation | None = None,
                         timing_only: bool = True) -> DiagnosticError:
    """The one diagnostic for ``needs`` (``"the interpreter"``, ...) meeting a
    weight without its bytes; located at ``op`` when given. ``timing_only``: the
    model has a timing-only run to suggest (one whose control flow or sizes the
    host decides from the values has none)."""
    remedy = ("to get numbers, import the model with its weights file beside it, or run timing-only" if timing_only
              else "the host decides what to launch from the values, so it has no timing-only run: import the "
                   "model with its weights file beside it")
    message = (f"{needs} needs the values of weight '{weight}', which the model does not hold (it was "
               f"imported without its weights); {remedy}")
    return DiagnosticError(Diagnostic("error", message, op_position(op) if op is not None else None))


def require_weights(module: Module, needs: str, timing_only: bool = True) -> None:
    """Raise :func:`absent_weights_error` for the first constant of ``module``
    without its bytes; return when every weight is there."""
    first = next(absent_weights(module), None)
    if first is not None:
        op, attr = first
        raise absent_weights_error(_weight_name(op, attr), needs, op, timing_only)


def _weight_name(op: Operation, attr: DenseResourceAttr) -> str:
    from geir.attributes import NameLoc
    if op.name in ("ge.weights", "ge.const") and isinstance(op.location, NameLoc):
        return op.location.name
    return attr.blob.name
