"""f16 underflow: the values an op's f16 result flushes to zero although
they are not zero in f32.

f16's smallest value is 2**-24 (about 6.0e-08, a subnormal); anything closer
to zero than half of it rounds to zero. Under a precision mode that runs an
f32 model in f16 this loses signal silently (the result holds zeros, not
NaN, unlike an overflow). While an :class:`UnderflowWatch` is active
(:func:`watch_underflow`), :func:`check_underflow`, called at the kernel door
(:mod:`geir.backends.kernel_dispatch`) for every op run, counts per op the
values of each f16 result that are non-zero when the same kernel runs on the
same inputs widened to f32, and zero in f16. Only those count: a zero the op
computes in f32 as well (a Relu's, a mask's) is not an underflow, nor a value
negligible beside the result's largest (below f16's rounding of it, as a
masked softmax's exp(-100) is).

The same watch counts f16 overflow: the values of an f16 result that are
infinite or NaN where the same kernel's f32 result is finite (f16's largest
value is 65504). An output that holds NaN or infinity is f16's doing only if
some op overflowed; otherwise the model makes them in f32 as well.

The f32 run is made only for an f16 result that holds a zero or a value that
is not finite (rare unless something underflows or overflows, or the op makes
zeros), and never for an op that only moves or selects values
(:data:`VALUE_COPYING_OPS`: a transpose, a slice, a ReLU, a max pooling) of
f16 inputs, whose every result value is one of theirs and so as exact in f16
as in f32; a model whose activations hold zeros (padding, ReLUs) would
otherwise run many of its kernels twice. ``ge.cast`` to f16 (what
``precision-mode`` inserts after an f32 input, or makes of a model's cast of
integers to f32) compares its input with its result.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

__all__ = ["F16_SMALLEST", "F16_ROUNDING", "Underflow", "UnderflowWatch", "watch_underflow", "check_underflow",
           "count_flushed", "count_overflowed", "located", "first_overflow", "VALUE_COPYING_OPS"]

#: ops each of whose result values is one of their operands' values (or a zero
#: they fill in): data movement and selection, which round nothing
VALUE_COPYING_OPS = frozenset({
    "ge.identity", "ge.reshape", "ge.flatten", "ge.squeeze", "ge.unsqueeze", "ge.transpose", "ge.trans_data",
    "ge.slice", "ge.split", "ge.concat", "ge.gather", "ge.gather_elements", "ge.gather_nd", "ge.scatter",
    "ge.scatter_elements", "ge.scatter_nd", "ge.expand", "ge.tile", "ge.depth_to_space", "ge.space_to_depth",
    "ge.reverse_sequence", "ge.compress", "ge.center_crop_pad", "ge.max_unpool", "ge.trilu", "ge.where",
    "ge.relu", "ge.max", "ge.min", "ge.abs", "ge.neg", "ge.max_pool",
})

#: f16's smallest positive value (a subnormal): half of it and less round to zero
F16_SMALLEST = float(np.finfo(np.float16).smallest_subnormal)
#: the most f16 rounds a normal value off, relative to it (half of its 2**-10 epsilon)
F16_ROUNDING = 2.0 ** -11

_F16 = np.dtype(np.float16)


@attrs.define
class Underflow:
    """The values one op flushed to zero in f16, and those it overflowed, over
    the times it ran and flushed or overflowed some."""

    op: str
    #: results' values non-zero in f32 and zero in f16
    flushed: int = 0
    #: results' values non-zero in f32
    nonzero: int = 0
    #: results' values (f16 results only)
    size: int = 0
    #: results' values finite in f32 and infinite or NaN in f16
    overflowed: int = 0

    @property
    def share(self) -> float:
        """The flushed values' share of those non-zero in f32."""
        return self.flushed / self.nonzero if self.nonzero else 0.0


class UnderflowWatch:
    """The :class:`Underflow` of each op run while the watch is active.

    An op is known by its attribute mapping: each ge op and each kernel task
    holds its own, and the kernel door receives it with the inputs."""

    def __init__(self) -> None:
        self._by_op: dict[int, tuple[Mapping[str, Any], Underflow]] = {}

    def note(self, attributes: Mapping[str, Any], op_name: str, flushed: int, nonzero: int, size: int,
             overflowed: int = 0) -> None:
        """Add one run's counts to the op that ``attributes`` belong to."""
        key = id(attributes)
        entry = self._by_op.get(key)
        if entry is None or entry[0] is not attributes:
            # the mapping is kept, so its id stays its own while the watch lives
            entry = self._by_op[key] = (attributes, Underflow(op_name))
        count = entry[1]
        count.flushed += flushed
        count.nonzero += nonzero
        count.size += size
        count.overflowed += overflowed

    def of(self, attributes: Mapping[str, Any]) -> Underflow | None:
        """What the op holding ``attributes`` flushed (None: it flushed nothing)."""
        entry = self._by_op.get(id(attributes))
        if entry is None or entry[0] is not attributes or not entry[1].flushed:
            return None
        return entry[1]

    @property
    def overflowed(self) -> int:
        """The values, over every op, that overflowed f16 (finite in f32)."""
        return sum(count.overflowed for _, count in self._by_op.values())

    def overflows(self) -> Iterator[tuple[Mapping[str, Any], Underflow]]:
        """Each op whose f16 results overflowed a value that f32 keeps finite (its
        attributes, its count), in the order they first ran: the first is where
        a run's overflow starts."""
        return ((attributes, count) for attributes, count in self._by_op.values() if count.overflowed)

    def __len__(self) -> int:
        """The number of ops that flushed a value."""
        return sum(1 for _, count in self._by_op.values() if count.flushed)

    def __iter__(self) -> Iterator[tuple[Mapping[str, Any], Underflow]]:
        """Each op that flushed a value (its attributes, its count), in the
        order they first did: where a run's underflow starts comes first."""
        return ((attributes, count) for attributes, count in self._by_op.values() if count.flushed)


_ACTIVE: contextvars.ContextVar[UnderflowWatch | None] = contextvars.ContextVar("underflow_watch", default=None)


@contextlib.contextmanager
def watch_underflow() -> Iterator[UnderflowWatch]:
    """A watch that counts f16 underflow in every op run inside the ``with``."""
    watch = UnderflowWatch()
    token = _ACTIVE.set(watch)
    try:
        yield watch
    finally:
        _ACTIVE.reset(token)


def located(watch: UnderflowWatch, holders: Iterable[tuple[Mapping[str, Any], str]]) -> list[tuple[str, Underflow]]:
    """``(loc, Underflow)`` per op of ``holders`` (each op's attribute mapping
    and its location text: a kernel task's, an op's) that flushed values, in
    the order the ops first did; ops the watch saw outside ``holders`` are
    left out."""
    return list(_at(holders, watch))


def first_overflow(watch: UnderflowWatch, holders: Iterable[tuple[Mapping[str, Any], str]]
                   ) -> tuple[str, Underflow] | None:
    """``(loc, Underflow)`` of the first op of ``holders`` (as for :func:`located`)
    whose f16 results overflowed; None when none did."""
    return next(_at(holders, watch.overflows()), None)


def _at(holders: Iterable[tuple[Mapping[str, Any], str]],
        counts: Iterable[tuple[Mapping[str, Any], Underflow]]) -> Iterator[tuple[str, Underflow]]:
    """``(loc, Underflow)`` for each of ``counts`` whose op is one of ``holders``."""
    where = {id(attributes): (attributes, loc) for attributes, loc in holders}
    for attributes, count in counts:
        hit = where.get(id(attributes))
        if hit is not None and hit[0] is attributes:
            yield hit[1], count


def count_flushed(wide: np.ndarray, narrow: np.ndarray) -> tuple[int, int]:
    """``(flushed, nonzero)``: the values of ``wide`` that are non-zero, and of
    those the ones ``narrow`` (the same values rounded) holds as zero that are
    not negligible beside the largest finite value of ``wide``: at least
    :data:`F16_ROUNDING` of it. Less than that is below what f16 rounds off
    the tensor's own values (a masked softmax's exp(-100)), and no sum of
    them can tell it is gone."""
    nonzero = wide != 0
    lost = nonzero & (narrow == 0)
    if np.any(lost):
        magnitude = np.abs(wide)
        finite = magnitude[np.isfinite(magnitude)]
        if finite.size:
            lost &= magnitude >= F16_ROUNDING * finite.max()
    return int(np.count_nonzero(lost)), int(np.count_nonzero(nonzero))


def check_underflow(attributes: Mapping[str, Any], op_name: str, inputs: Sequence[np.ndarray | None],
                    results: Sequence[np.ndarray], rerun: Callable[[list[np.ndarray | None]], Sequence[Any]]) -> None:
    """With a watch active, count the values each f16 result of the op flushed
    to zero: ``rerun`` runs the op's kernel (without the cast to the declared
    result types) on the inputs, f16 ones widened to f32."""
    watch = _ACTIVE.get()
    if watch is None:
        return
    if op_name in VALUE_COPYING_OPS and all(x is None or x.dtype.kind != "f" or x.dtype == _F16 for x in inputs):
        return  # its f16 values are its f16 inputs': the f32 run would give the same
    narrow = [i for i, r in enumerate(results) if r.dtype == _F16 and r.size and not _nonzero_and_finite(r)]
    if not narrow:
        return
    if op_name == "ge.cast":
        source = inputs[0]
        if source is not None and source.dtype.kind in "fiub" and source.shape == results[0].shape:
            # an integer source too: an int32 sum past 65504 (a MatMulInteger's) is infinite in f16
            wide = np.asarray(source) if source.dtype.kind == "f" else np.asarray(source, dtype=np.float64)
            _note(watch, attributes, op_name, [(wide, results[0])])
        return
    if not any(x is not None and x.dtype == _F16 for x in inputs):
        return  # nothing to widen: the kernel's f32 is not at hand
    wide_inputs = [x.astype(np.float32) if x is not None and x.dtype == _F16 else x for x in inputs]
    with np.errstate(all="ignore"):
        wide = rerun(wide_inputs)
    pairs = []
    for i in narrow:
        w = np.asarray(wide[i]) if i < len(wide) else None
        if w is not None and w.dtype.kind == "f" and w.shape == results[i].shape:
            pairs.append((w, results[i]))
    _note(watch, attributes, op_name, pairs)


def _nonzero_and_finite(values: np.ndarray) -> bool:
    """Whether every f16 value is neither zero nor infinite nor NaN, read from
    its bits (numpy's f16 arithmetic converts each value; this is one pass of
    integer work): magnitude bits, less one, below the largest finite value's."""
    magnitude = values.view(np.uint16) & np.uint16(0x7FFF)
    magnitude -= np.uint16(1)  # a zero wraps round to the largest
    return bool(np.all(magnitude < np.uint16(0x7BFF)))


def count_overflowed(wide: np.ndarray, narrow: np.ndarray) -> int:
    """The values of ``wide`` that are finite and that ``narrow`` (the same
    values rounded) holds as infinite or NaN."""
    return int(np.count_nonzero(np.isfinite(wide) & ~np.isfinite(narrow)))


def _note(watch: UnderflowWatch, attributes: Mapping[str, Any], op_name: str,
          pairs: list[tuple[np.ndarray, np.ndarray]]) -> None:
    flushed = nonzero = size = overflowed = 0
    for wide, narrow in pairs:
        f, n = count_flushed(wide, narrow)
        flushed, nonzero, size = flushed + f, nonzero + n, size + narrow.size
        overflowed += count_overflowed(wide, narrow)
    if flushed or overflowed:
        watch.note(attributes, op_name, flushed, nonzero, size, overflowed)
