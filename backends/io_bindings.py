"""A graph's inputs and outputs by name, and moving their values in and out of
``.npz`` files: what ``ge-run`` needs around an interpreter or emulator run.

The names are the ``{ge.name = "..."}`` argument/result attributes the ONNX
importer writes; a graph written by hand without them uses its SSA argument
names for inputs and ``output_<i>`` for outputs.
"""

from __future__ import annotations

import io
import math
import os
import zipfile
from typing import Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from geir.attributes import NameLoc, StringAttr
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.graph_io import input_names, output_names
from geir.module import Module
from geir.output_file import write_atomically
from geir.operation import Operation, Value
from geir.types import FunctionType, TensorType, Type

__all__ = ["Binding", "GraphSignature", "graph_signature", "find_graph", "load_inputs", "check_inputs",
           "gather_index_bound", "random_inputs", "RANDOM_INTEGER_BOUND", "shape_views", "beyond_host_memory",
           "save_outputs", "main_or_first_graph"]


#: random integer inputs lie in [0, this): valid as small indices
RANDOM_INTEGER_BOUND = 4


class Binding(NamedTuple):
    """One graph input or output: its name and type."""

    name: str
    type: Type
    #: for an input a Gather reads as indices, the size of the smallest axis it
    #: indexes (an embedding table's rows): random values stay below it
    index_bound: int | None = None


def gather_index_bound(reads: Iterable[tuple[Sequence[int | None] | None, int]]) -> int | None:
    """The size of the smallest axis among ``reads``, each a Gather that reads the
    input as indices: (its data's shape, its axis); None when none is static."""
    bound = None
    for shape, axis in reads:
        if shape is None or not -len(shape) <= axis < len(shape):
            continue
        size = shape[axis]
        if isinstance(size, int) and size >= 0:
            bound = size if bound is None else min(bound, size)
    return bound


class GraphSignature(NamedTuple):
    """A graph's inputs and outputs, in order."""

    graph: str
    inputs: list[Binding]
    outputs: list[Binding]


def bind_by_flag(bindings: Sequence[str]) -> str:
    """How ``ge-run`` and ``ge-bench`` make ``bindings`` ("batch=<size>"):
    ``--input-shape`` flags (a :data:`~geir.passes.range_shapes.BindingHint`)."""
    return " ".join(f"--input-shape {b}" for b in bindings)


def bind_by_flag_or_inputs(bindings: Sequence[str]) -> str:
    """:func:`bind_by_flag`, or ``--inputs``, whose arrays' shapes bind a run's
    inputs too."""
    return f"{bind_by_flag(bindings)}, or give --inputs"


def find_graph(module: Module, graph: str = "main") -> Operation:
    """The ``ge.graph @graph`` of ``module``.

    Raises:
        DiagnosticError: there is none.
    """
    op = module.lookup_symbol(graph)
    if op is None or op.name != "ge.graph":
        have = ", ".join("@" + str(g.attributes["sym_name"].value) for g in module.graphs()  # type: ignore[attr-defined]
                         if isinstance(g.attributes.get("sym_name"), StringAttr))
        raise DiagnosticError(Diagnostic("error", f"the module has no ge.graph @{graph}"
                                                  + (f" (graphs: {have})" if have else "")))
    return op


def main_or_first_graph(module: Module) -> Operation | None:
    """``ge.graph @main``, else the module's first graph (None without one):
    the graph a tool reports on when it is not told which."""
    graphs = [op for op in module.body.ops if op.name == "ge.graph"]
    return next((g for g in graphs if g.get_attr("sym_name") == "main"), graphs[0] if graphs else None)


def graph_signature(module: Module, graph: str = "main") -> GraphSignature:
    """The names and types of ``@graph``'s inputs and outputs."""
    op = find_graph(module, graph)
    ftype = op.attributes["function_type"].value  # type: ignore[attr-defined]
    assert isinstance(ftype, FunctionType)
    args = op.regions[0].blocks[0].arguments
    inputs = [Binding(n, t, gather_index_bound(_gather_reads(a)))
              for n, t, a in zip(input_names(op), ftype.inputs, args)]
    outputs = [Binding(n, t) for n, t in zip(output_names(op, len(ftype.results)), ftype.results)]
    return GraphSignature(graph, inputs, outputs)


def _gather_reads(value: Value) -> Iterator[tuple[Sequence[int | None] | None, int]]:
    """(data shape, axis) of each ``ge.gather`` that reads ``value`` as its indices."""
    for use in value.uses:
        gather = use.owner
        if gather.name != "ge.gather" or use.index != 1:
            continue
        data = gather.operands[0].type
        axis = gather.get_attr("axis", 0)
        yield (data.shape if isinstance(data, TensorType) else None), int(axis) if isinstance(axis, int) else 0


def _dtype_of(t: Type) -> np.dtype | None:
    from geir.backends.kernel_dispatch import KernelError, storage_dtype
    try:
        return storage_dtype(t)
    except KernelError:
        return None


def _shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape)) if shape else "scalar"


def check_inputs(inputs: Mapping[str, np.ndarray], sig: GraphSignature, where: str = "inputs") -> dict[str, np.ndarray]:
    """``inputs`` checked against the signature: every input given, no extra one,
    each of the right shape (``?`` takes any size) and dtype.

    Raises:
        DiagnosticError: one diagnostic per problem, each naming the input.
    """
    errors: list[Diagnostic] = []
    out: dict[str, np.ndarray] = {}
    known = {b.name for b in sig.inputs}
    for name in inputs:
        if name not in known:
            errors.append(Diagnostic("error", f"'{name}' is not an input of @{sig.graph} (inputs: "
                                              f"{', '.join(sorted(known)) or 'none'})", NameLoc(where)))
    for b in sig.inputs:
        if b.name not in inputs:
            errors.append(Diagnostic("error", f"input '{b.name}' ({b.type}) is missing", NameLoc(where)))
            continue
        value = np.asarray(inputs[b.name])
        out[b.name] = value
        if not isinstance(b.type, TensorType):
            continue
        want = b.type.shape
        if want is not None and (len(want) != value.ndim
                                 or any(d is not None and d != s for d, s in zip(want, value.shape))):
            errors.append(Diagnostic("error", f"input '{b.name}' has shape {_shape_text(value.shape)}, but the "
                                              f"graph expects {b.type}", NameLoc(where)))
        dtype = _dtype_of(b.type)
        if dtype == np.dtype(object) and value.dtype.kind in "US":
            value = out[b.name] = value.astype(object)  # an .npz stores strings as unicode
        if dtype is not None and value.dtype != dtype:
            errors.append(Diagnostic("error", f"input '{b.name}' has dtype {value.dtype}, but the graph "
                                              f"expects {b.type.element_type} ({dtype})", NameLoc(where)))
    if errors:
        raise DiagnosticError(errors)
    return out


def load_inputs(path: str, sig: GraphSignature) -> dict[str, np.ndarray]:
    """The graph inputs stored in the ``.npz`` at ``path``, checked against ``sig``.

    Raises:
        DiagnosticError: the file is not an ``.npz``, or an input is missing,
            extra, or of the wrong shape or dtype (each named).
    """
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a directory", path)
    with open(path, "rb") as f:  # whole, so that a pipe (<(...), /dev/stdin) reads as a file does
        raw = io.BytesIO(f.read())
    if not zipfile.is_zipfile(raw):
        raise DiagnosticError(Diagnostic("error", "cannot read inputs: not an .npz file", NameLoc(path)))
    try:
        data = np.load(raw, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("a single .npy array, not an .npz archive")
        with data:
            arrays = {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, KeyError) as e:
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DiagnosticError(Diagnostic("error", f"cannot read inputs: not an .npz file ({text})",
                                         NameLoc(path))) from None
    return check_inputs(arrays, sig, path)


def shape_views(sig: GraphSignature) -> dict[str, np.ndarray]:
    """Zeros of each static input's shape, as views that hold no memory: the
    sizes a gear is picked from before inputs of a bound size (which may fit no
    gear, nor this machine's memory) are drawn."""
    return {name: np.broadcast_to(np.zeros((), dtype), shape) for name, shape, dtype in _static_inputs(sig)}


def _static_inputs(sig: GraphSignature) -> list[tuple[str, tuple[int, ...], np.dtype]]:
    """(name, shape, dtype) of each input of ``sig`` whose shape is static and whose values can be drawn."""
    out = []
    for b in sig.inputs:
        t = b.type
        dtype = _dtype_of(t) if isinstance(t, TensorType) and t.is_static else None
        if dtype is not None:
            out.append((b.name, tuple(int(d) for d in t.shape), dtype))  # type: ignore[union-attr]
    return out


def beyond_host_memory(need: int) -> int | None:
    """This machine's memory when ``need`` bytes of inputs exceed it, else None:
    a caller says so in a diagnostic rather than meet numpy's MemoryError."""
    from geir.backends.emulator.arena import host_memory_bytes
    host = host_memory_bytes()
    return host if host is not None and need > host else None


def _check_fits_in_memory(sig: GraphSignature) -> None:
    """A diagnostic when the static inputs of ``sig`` need more bytes than this
    machine has (a size bound to 10^11 rows)."""
    need = sum(math.prod(shape) * dtype.itemsize for _, shape, dtype in _static_inputs(sig))
    host = beyond_host_memory(need)
    if host is not None:
        raise DiagnosticError(Diagnostic("error", f"random inputs of these shapes need {need} B, more than this "
                                                  f"machine's {host} B: bind smaller sizes, or run --timing-only"))


def random_inputs(sig: GraphSignature, seed: int = 0) -> dict[str, np.ndarray]:
    """Deterministic random values for every input: floats standard normal,
    integers in [0, 4) (valid as small indices; below a Gather's table size
    where the input indexes one, :attr:`Binding.index_bound`: a BERT's
    token types index a table of 2), booleans fair coins.

    Raises:
        DiagnosticError: a negative seed, an input with a dynamic dim (its
            size must be chosen), or inputs that together need more than this
            machine's memory.
    """
    if seed < 0:  # numpy's generators take no negative seed
        raise DiagnosticError(Diagnostic("error", f"--seed (of the random inputs) must be at least 0, got {seed}"))
    _check_fits_in_memory(sig)
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    errors: list[Diagnostic] = []
    for b in sig.inputs:
        t = b.type
        if not isinstance(t, TensorType) or not t.is_static:
            errors.append(Diagnostic("error", f"input '{b.name}' has the dynamic type {t}: give its values with "
                                              "--inputs, or bind its dims with --input-shape "
                                              f"{b.name}=<dims> (or SYMBOL=<size>)", NameLoc(b.name)))
            continue
        shape = tuple(int(d) for d in t.shape)  # type: ignore[union-attr]
        dtype = _dtype_of(t)
        if dtype is None:
            errors.append(Diagnostic("error", f"input '{b.name}' of type {t} cannot be generated; give it with "
                                              "--inputs", NameLoc(b.name)))
            continue
        if dtype == np.bool_:
            value = rng.random(shape) < 0.5
        elif dtype.kind in "iu":
            high = RANDOM_INTEGER_BOUND if b.index_bound is None else max(1, min(RANDOM_INTEGER_BOUND, b.index_bound))
            value = rng.integers(0, high, size=shape).astype(dtype)
        else:
            value = rng.standard_normal(shape).astype(dtype)
        out[b.name] = value
    if errors:
        raise DiagnosticError(errors)
    return out


def save_outputs(path: str, outputs: Mapping[str, np.ndarray]) -> None:
    """Write ``outputs`` to an ``.npz`` at ``path``, whole or not at all."""
    arrays = {}
    for name, value in outputs.items():
        value = np.asarray(value)
        # object arrays would need pickling to load; strings store as unicode
        arrays[name] = value.astype(str) if value.dtype == object else value
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomically(path, lambda stream: stream.write(buffer.getvalue()))
