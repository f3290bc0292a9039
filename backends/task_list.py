"""The task list: what GE's task sink loads on the device, as plain data.

This is the in-memory form of the ``rt`` dialect (``geir/dialects/rt.py`` prints
and parses it; ``backends/task_json.py`` exports it). The emulator runs a
:class:`TaskList` and needs nothing of the ``ge`` module it was lowered from.

Memory model: one arena (``arena_size`` bytes) holds every activation, graph
input and graph output; constants live in a separate read-only weight space.
The intermediate results of a UB-fused chain, which never leave the AI core
that computes the chain, live in a third space, the unified buffer
(``ub_size`` bytes): it is no device memory, only where the emulator's
numerics keep those values between the chain's ops. A :class:`TensorRef`
names bytes in one of the three.
"""

from __future__ import annotations

from typing import Any, Literal, Mapping

from functools import lru_cache

import attrs
import numpy as np

from geir.types import parse_element_type

__all__ = ["element_bytes", "int_attribute", "TensorRef", "Kernel", "Record", "Wait", "Memcpy", "EndGraph", "LabelSet",
           "LabelGoto", "LabelSwitch", "StreamActive", "StreamSwitch", "CONTROL_TASKS", "SWITCH_CONDITIONS", "Task",
           "Stream", "WeightBlob", "Binding", "TaskList", "ARENA", "WEIGHTS", "UB", "SPACES"]

ARENA: Literal["arena"] = "arena"
WEIGHTS: Literal["weights"] = "weights"
#: a UB-fused chain's intermediates: not device memory
UB: Literal["ub"] = "ub"
#: the spaces a TensorRef may name
SPACES = (ARENA, WEIGHTS, UB)


def int_attribute(attributes: Mapping[str, Any], name: str, default: int) -> int:
    """The integer a kernel's attribute ``name`` holds (a geir IntegerAttr or a
    plain int, as a task-list JSON gives it), else ``default``."""
    value = attributes.get(name, default)
    value = getattr(value, "value", value)
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@attrs.frozen
class TensorRef:
    """A dense tensor at ``offset`` in the arena, the weight space or the unified buffer."""

    space: str  # ARENA, WEIGHTS or UB
    offset: int
    shape: tuple[int, ...]
    dtype: str  # element type as the IR spells it: "f16", "i64", "i1", ...

    @property
    def nbytes(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n * element_bytes(self.dtype)

    @property
    def end(self) -> int:
        return self.offset + self.nbytes


@lru_cache(maxsize=None)
def element_bytes(dtype: str) -> int:
    """Bytes per element of the element type spelled ``dtype`` (an i1 takes a byte)."""
    et = parse_element_type(dtype)
    if et is None or et.bitwidth <= 0:
        raise ValueError(f"no storage size for element type '{dtype}'")
    return max(1, (et.bitwidth + 7) // 8)


@attrs.define
class Kernel:
    """Run ge op ``op`` on ``engine``: read ``inputs`` when it starts, write
    ``outputs`` when it finishes. ``attributes`` are the ge op's attributes
    (geir Attribute objects); ``loc`` points back to the source."""

    op: str
    engine: str
    inputs: list[TensorRef | None]
    outputs: list[TensorRef]
    attributes: dict[str, Any] = attrs.Factory(dict)
    block_dim: int = 1
    flops: float = 0.0
    bytes: float = 0.0
    loc: str = ""
    name: str = ""  # a stable id for reports: "<stream>:<index>" or the op's loc

    kind: str = attrs.field(default="kernel", init=False)


@attrs.define
class Record:
    """Record event ``event`` on this stream (it fires when the stream reaches it)."""

    event: int
    loc: str = ""
    kind: str = attrs.field(default="record", init=False)


@attrs.define
class Wait:
    """Block this stream until event ``event`` has been recorded."""

    event: int
    loc: str = ""
    kind: str = attrs.field(default="wait", init=False)


@attrs.define
class Memcpy:
    """Copy ``src`` to ``dst`` on the SDMA engine."""

    src: TensorRef
    dst: TensorRef
    loc: str = ""
    kind: str = attrs.field(default="memcpy", init=False)


@attrs.define
class EndGraph:
    """The end of a stream's work for one run."""

    loc: str = ""
    kind: str = attrs.field(default="end_graph", init=False)


@attrs.define
class LabelSet:
    """Mark this point of the stream as label ``label`` (a jump target; GE's
    LABEL_SET task, ``rtLabelSet``)."""

    label: int
    loc: str = ""
    kind: str = attrs.field(default="label_set", init=False)


@attrs.define
class LabelGoto:
    """Go on at label ``label`` of this stream (GE's LABEL_GOTO_EX, ``rtLabelGotoEx``)."""

    label: int
    loc: str = ""
    kind: str = attrs.field(default="label_goto", init=False)


@attrs.define
class LabelSwitch:
    """Read the integer scalar at ``index`` and go on at ``labels[index]`` of this
    stream; an index past the end takes the last label (GE's
    LABEL_SWITCH_BY_INDEX, ``rtLabelSwitchByIndex``: ``If`` switches on its
    predicate over [else, then], ``While`` over [exit, body])."""

    index: TensorRef
    labels: list[int]
    loc: str = ""
    kind: str = attrs.field(default="label_switch", init=False)


@attrs.define
class StreamActive:
    """Start stream ``stream`` from its first task (GE's STREAM_ACTIVE,
    ``rtStreamActive``); a stream some task activates is not started with the
    model (GE binds it as a non-head stream)."""

    stream: int
    loc: str = ""
    kind: str = attrs.field(default="stream_active", init=False)


#: the comparisons a stream switch makes, GE's ``rtCondition_t`` order
SWITCH_CONDITIONS = ("eq", "ne", "gt", "ge", "lt", "le")


@attrs.define
class StreamSwitch:
    """Read the scalar at ``cond`` and, when ``cond <condition> value`` holds,
    start stream ``true_stream``; this stream goes on either way (GE's
    STREAM_SWITCH, ``rtStreamSwitchEx``)."""

    cond: TensorRef
    true_stream: int
    condition: str = "ne"
    value: int = 0
    loc: str = ""
    kind: str = attrs.field(default="stream_switch", init=False)


#: the task kinds that steer streams instead of computing
CONTROL_TASKS = ("label_set", "label_goto", "label_switch", "stream_active", "stream_switch")

Task = Kernel | Record | Wait | Memcpy | EndGraph | LabelSet | LabelGoto | LabelSwitch | StreamActive | StreamSwitch


@attrs.define
class Stream:
    id: int
    priority: int = 0
    tasks: list[Task] = attrs.Factory(list)


@attrs.define(eq=False)
class WeightBlob:
    """A constant in the weight space. An ``absent`` one has its type but not
    its values (a graph without its weights): ``data`` is then zeros, and only
    timing-only runs take it."""

    name: str
    offset: int
    data: np.ndarray
    absent: bool = False


@attrs.define
class Binding:
    """A graph input or output by name, and where it lives in the arena."""

    name: str
    ref: TensorRef


@attrs.define
class TaskList:
    """Everything the device needs to run one graph."""

    streams: list[Stream] = attrs.Factory(list)
    arena_size: int = 0
    weights: list[WeightBlob] = attrs.Factory(list)
    weight_size: int = 0
    inputs: list[Binding] = attrs.Factory(list)
    outputs: list[Binding] = attrs.Factory(list)
    num_events: int = 0
    name: str = "main"
    #: bytes of the unified-buffer space (a UB-fused chain's intermediates; no device memory)
    ub_size: int = 0

    def space_size(self, space: str) -> int:
        """Bytes of ``space`` (one of :data:`SPACES`)."""
        return {ARENA: self.arena_size, WEIGHTS: self.weight_size, UB: self.ub_size}[space]

    def activated_streams(self) -> set[int]:
        """The streams a stream-active or stream-switch task starts: they do not
        start with the model (GE's non-head streams)."""
        return {t.stream if isinstance(t, StreamActive) else t.true_stream
                for s in self.streams for t in s.tasks if isinstance(t, (StreamActive, StreamSwitch))}

    def all_tasks(self) -> list[tuple[int, int, Task]]:
        """(stream id, index in stream, task) for every task."""
        return [(s.id, i, t) for s in self.streams for i, t in enumerate(s.tasks)]
