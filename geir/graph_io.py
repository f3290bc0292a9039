"""The names of a ``ge.graph``'s inputs and outputs, as every tool sees them.

A name is the ``ge.name`` argument/result attribute (what the ONNX importer
records); an unnamed input falls back to its SSA name, then ``input_<i>``; an
unnamed output to ``output_<i>``. The interpreter's .npz files, the task list's
I/O bindings and the emulator's outputs all use these, so they always agree.
"""

from __future__ import annotations

from geir.attributes import ArrayAttr, Attribute, DictionaryAttr, StringAttr
from geir.operation import Operation

__all__ = ["attribute_dicts", "input_names", "output_names"]


def attribute_dicts(attr: Attribute | None) -> list[dict[str, Attribute]]:
    """The dictionaries of an ``arg_attrs`` / ``res_attrs`` array (``{}`` for a
    non-dictionary entry; ``[]`` when the attribute is absent)."""
    if not isinstance(attr, ArrayAttr):
        return []
    return [d.as_dict() if isinstance(d, DictionaryAttr) else {} for d in attr]


def _given(attr: Attribute | None, count: int) -> list[str | None]:
    out: list[str | None] = [None] * count
    for i, d in enumerate(attribute_dicts(attr)[:count]):
        name = d.get("ge.name")
        if isinstance(name, StringAttr):
            out[i] = name.value
    return out


def input_names(graph: Operation) -> list[str]:
    """One name per argument of ``graph``'s entry block."""
    args = graph.regions[0].blocks[0].arguments
    given = _given(graph.attributes.get("arg_attrs"), len(args))
    return [g or a.name_hint or f"input_{i}" for i, (g, a) in enumerate(zip(given, args))]


def output_names(graph: Operation, count: int) -> list[str]:
    """One name per result of ``graph`` (``count`` of them)."""
    given = _given(graph.attributes.get("res_attrs"), count)
    return [g or f"output_{i}" for i, g in enumerate(given)]
