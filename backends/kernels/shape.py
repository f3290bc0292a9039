"""Shape and data-movement kernels: reshaping, transposing, joining and
splitting, slicing, gathering and scattering, padding, tiling, and the small
tensor generators (Shape, Size, ConstantOfShape, Range, OneHot, EyeLike, ...).

Ops whose older opsets took an input as an attribute (Split's ``split``,
Slice's ``starts``/``ends``/``axes``, Pad's ``pads``/``value``, Squeeze and
Unsqueeze's ``axes``) accept both forms; the input wins when present.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import Attrs, Inputs, register
from .axes import axes_from, int_list, normalize_axes, normalize_axis, optional_input


def _index_array(indices: np.ndarray, size: int) -> np.ndarray:
    """int64 indices with negatives counted from the end, range-checked."""
    indices = indices.astype(np.int64)
    if indices.size and (indices.min() < -size or indices.max() >= size):
        raise IndexError(f"index out of range [-{size}, {size})")
    return np.where(indices < 0, indices + size, indices)


# ------------------------------------------------------------------- reshaping

def _own(view: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``view`` of ``source`` as an output: a copy, so that outputs never alias
    inputs, unless ``source`` is read-only (a weight, read in place from its
    blob): nothing can write through such a view, and a model that reshapes its
    weights (an exporter's Identity on each shared weight, one per layer) would
    otherwise hold a copy of each at once. (GE's no-task reshapes alias their
    input too.)"""
    return view if not source.flags.writeable else view.copy()


@register("Reshape")
def reshape(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Reshape: 0 copies the input dim (unless ``allowzero``), -1 is inferred."""
    x, shape = inputs
    dims = int_list(shape)
    if not attrs.get("allowzero", 0):
        dims = [x.shape[i] if d == 0 else d for i, d in enumerate(dims)]
    if x.size == 0 and -1 in dims and 0 in [d for d in dims if d != -1]:
        # ONNX infers -1 from the element count, which no element leaves open
        raise ValueError(f"a tensor of no elements ({'x'.join(map(str, x.shape))}) cannot be reshaped to "
                         f"{dims}: with no elements, the -1 dim could be any size")
    return [_own(x.reshape(dims), x)]


@register("Flatten")
def flatten(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Flatten to 2-D at ``axis`` (default 1, range [-rank, rank])."""
    x = inputs[0]
    axis = int(attrs.get("axis", 1))
    axis = axis + x.ndim if axis < 0 else axis
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    return [_own(x.reshape(outer, -1 if outer else int(np.prod(x.shape[axis:]))), x)]


@register("Transpose")
def transpose(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Transpose by ``perm`` (default: reverse the dims)."""
    x = inputs[0]
    perm = attrs.get("perm")
    return [np.transpose(x, perm).copy()]  # copy() is C-ordered and keeps 0-d arrays 0-d


@register("Squeeze")
def squeeze(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Squeeze the given axes (input or attribute), or every size-1 dim when
    none are given (an empty axes tensor counts as none, as in onnxruntime)."""
    x = inputs[0]
    axes = axes_from(inputs, attrs, 1)
    if not axes:
        return [_own(np.squeeze(x), x)]
    return [_own(np.squeeze(x, axis=normalize_axes(axes, x.ndim)), x)]


@register("Unsqueeze")
def unsqueeze(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Unsqueeze: ``axes`` (input or attribute) index the *output* dims."""
    x = inputs[0]
    axes = axes_from(inputs, attrs, 1) or []
    out_rank = x.ndim + len(axes)
    return [_own(np.expand_dims(x, normalize_axes(axes, out_rank)), x)]


@register("Identity")
def identity(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Identity (a copy of a writable input: see :func:`_own`)."""
    return [_own(inputs[0], inputs[0])]


# ------------------------------------------------------------- join and split

@register("Concat")
def concat(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Concat along ``axis`` (negative allowed)."""
    arrays = [x for x in inputs if x is not None]
    axis = normalize_axis(attrs["axis"], arrays[0].ndim)
    return [np.concatenate(arrays, axis=axis)]


def split_sizes(dim: int, inputs: Inputs, attrs: Attrs) -> list[int]:
    """Chunk sizes of a Split: the ``split`` input (opset >= 13) or attribute
    (older), else ``num_outputs`` chunks of ``ceil(dim / n)`` with a smaller last one.

    Opsets < 18 split evenly into as many outputs as the node has; the node's
    output count reaches the kernel as ``num_outputs`` (see ``onnx_node_attributes``).
    """
    sizes = int_list(optional_input(inputs, 1))
    if sizes is None:
        sizes = int_list(attrs.get("split"))
    if sizes is not None:
        return sizes
    count = int(attrs["num_outputs"])
    chunk = -(-dim // count)
    return [min(chunk, max(0, dim - i * chunk)) for i in range(count)]


@register("Split")
def split(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Split along ``axis`` (default 0) into :func:`split_sizes` chunks."""
    x = inputs[0]
    axis = normalize_axis(attrs.get("axis", 0), x.ndim)
    sizes = split_sizes(x.shape[axis], inputs, attrs)
    bounds = np.cumsum(sizes)[:-1]
    return [part.copy() for part in np.split(x, bounds, axis=axis)]


# --------------------------------------------------------------------- slicing

def _slice_for(start: int, end: int, step: int, dim: int) -> slice:
    """ONNX's clamping of one axis' start/end into a Python slice.

    With a negative step, an end clamped to -1 means "before index 0", which a
    Python slice can only say with ``None``.
    """
    if step == 0:
        raise ValueError("Slice step cannot be 0")
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        return slice(min(max(start, 0), dim), min(max(end, 0), dim), step)
    start = min(max(start, 0), dim - 1)
    end = min(max(end, -1), dim - 1)
    return slice(start, None if end < 0 else end, step)


@register("Slice")
def slice_(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Slice(data, starts, ends, axes?, steps?) or, in opset 1, attributes starts/ends/axes."""
    x = inputs[0]
    if len(inputs) > 1:
        starts, ends = int_list(inputs[1]), int_list(inputs[2])
        axes = int_list(optional_input(inputs, 3))
        steps = int_list(optional_input(inputs, 4))
    else:
        starts, ends = int_list(attrs["starts"]), int_list(attrs["ends"])
        axes, steps = int_list(attrs.get("axes")), None
    axes = normalize_axes(axes if axes is not None else range(len(starts)), x.ndim)
    steps = steps if steps is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for axis, start, end, step in zip(axes, starts, ends, steps):
        index[axis] = _slice_for(start, end, step, x.shape[axis])
    return [x[tuple(index)].copy()]


# ------------------------------------------------------------------- gathering

@register("Gather")
def gather(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Gather along ``axis`` (default 0); negative indices count from the end."""
    x, indices = inputs
    axis = normalize_axis(attrs.get("axis", 0), x.ndim)
    return [np.take(x, _index_array(indices, x.shape[axis]), axis=axis)]


@register("GatherElements")
def gather_elements(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """GatherElements: ``out[i][j] = x[indices[i][j]][j]`` for axis 0, etc."""
    x, indices = inputs
    axis = normalize_axis(attrs.get("axis", 0), x.ndim)
    return [np.take_along_axis(x, _index_array(indices, x.shape[axis]), axis=axis)]


def _nd_index(data_shape: tuple[int, ...], indices: np.ndarray, batch_dims: int) -> tuple[np.ndarray, ...]:
    """Fancy index of GatherND/ScatterND: the batch dims' own positions, then the index tuples."""
    depth = indices.shape[-1]
    batch_shape = indices.shape[:batch_dims]
    outer = indices.shape[batch_dims:-1]
    columns = [_index_array(indices[..., i], data_shape[batch_dims + i]) for i in range(depth)]
    batch = [np.arange(n).reshape((-1,) + (1,) * (batch_dims - 1 - b + len(outer)))
             for b, n in enumerate(batch_shape)]
    return (*batch, *columns)


@register("GatherND")
def gather_nd(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """GatherND with ``batch_dims``: the last index dim addresses leading data dims."""
    x, indices = inputs
    batch_dims = int(attrs.get("batch_dims", 0))
    return [x[_nd_index(x.shape, indices, batch_dims)].copy()]


#: ufunc applying each ``reduction`` of ScatterElements / ScatterND at repeated indices
_SCATTER_REDUCTIONS: dict[str, np.ufunc] = {
    "add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
}


def _scatter(data: np.ndarray, index: tuple[np.ndarray, ...], updates: np.ndarray,
             reduction: str) -> np.ndarray:
    out = data.copy()
    if reduction == "none":
        out[index] = updates  # repeated indices: ONNX leaves the winner undefined
    else:
        _SCATTER_REDUCTIONS[reduction].at(out, index, updates)
    return out


@register("ScatterElements", "Scatter")
def scatter_elements(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ScatterElements (and the deprecated Scatter) with reduction none/add/mul/max/min."""
    data, indices, updates = inputs
    axis = normalize_axis(attrs.get("axis", 0), data.ndim)
    index = list(np.indices(indices.shape, sparse=True))
    index[axis] = _index_array(indices, data.shape[axis])
    return [_scatter(data, tuple(index), updates, attrs.get("reduction", "none"))]


@register("ScatterND")
def scatter_nd(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ScatterND with reduction none/add/mul/max/min."""
    data, indices, updates = inputs
    return [_scatter(data, _nd_index(data.shape, indices, 0), updates,
                     attrs.get("reduction", "none"))]


@register("Compress")
def compress(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Compress along ``axis``, or over the flattened input when no axis is given."""
    x, condition = inputs
    axis = attrs.get("axis")
    if axis is None:
        return [np.compress(condition.astype(bool), x.reshape(-1))]
    return [np.compress(condition.astype(bool), x, axis=normalize_axis(axis, x.ndim))]


@register("NonZero")
def nonzero(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """NonZero -> int64 ``(rank, count)`` coordinates in row-major order."""
    x = inputs[0]
    if x.ndim == 0:  # numpy refuses 0-d nonzero; a scalar has no coordinates
        return [np.zeros((0, int(bool(x))), dtype=np.int64)]
    return [np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)]


# -------------------------------------------------------- expand, tile and pad

@register("Expand")
def expand(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Expand: bidirectional broadcast of ``x`` with ``shape``."""
    x, shape = inputs
    target = np.broadcast_shapes(x.shape, tuple(int_list(shape)))
    return [np.broadcast_to(x, target).copy()]


@register("Tile")
def tile(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Tile by ``repeats`` (one per dim)."""
    x, repeats = inputs
    return [np.tile(x, int_list(repeats))]


#: ONNX Pad modes; numpy's np.pad modes of the same names have the same meaning
_PAD_MODES = frozenset({"constant", "reflect", "edge", "wrap"})


@register("Pad")
def pad(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Pad(data, pads, constant_value?, axes?) or opset-2 attributes ``pads``/``value``.

    Negative pads crop.  Modes: constant, reflect, edge, wrap.
    """
    x = inputs[0]
    mode = attrs.get("mode", "constant")
    if mode not in _PAD_MODES:
        raise ValueError(f"unknown Pad mode {mode!r}")
    if len(inputs) > 1 and inputs[1] is not None:
        pads = int_list(inputs[1])
        value_input = optional_input(inputs, 2)
        value = value_input.reshape(-1)[0] if value_input is not None and value_input.size else 0
        axes = int_list(optional_input(inputs, 3))
    else:
        pads, value, axes = int_list(attrs["pads"]), attrs.get("value", 0.0), None
    axes = normalize_axes(axes if axes is not None else range(x.ndim), x.ndim)
    width = [(0, 0)] * x.ndim
    for i, axis in enumerate(axes):
        width[axis] = (pads[i], pads[i + len(axes)])
    grow = [(max(b, 0), max(e, 0)) for b, e in width]
    kwargs = {"constant_values": np.asarray(value).astype(x.dtype)} if mode == "constant" else {}
    out = np.pad(x, grow, mode=mode, **kwargs)
    crop = tuple(slice(-min(b, 0), out.shape[i] + min(e, 0)) for i, (b, e) in enumerate(width))
    return [out[crop].copy()]


# ------------------------------------------------------- depth <-> space moves

@register("DepthToSpace")
def depth_to_space(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """DepthToSpace in DCR (default) or CRD mode."""
    x = inputs[0]
    b = int(attrs["blocksize"])
    n, c, h, w = x.shape
    if attrs.get("mode", "DCR") == "DCR":
        tmp = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        tmp = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return [tmp.reshape(n, c // (b * b), h * b, w * b).copy()]


@register("SpaceToDepth")
def space_to_depth(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """SpaceToDepth in DCR (default) or CRD mode, the inverse of DepthToSpace."""
    x = inputs[0]
    b = int(attrs["blocksize"])
    n, c, h, w = x.shape
    tmp = x.reshape(n, c, h // b, b, w // b, b)
    if attrs.get("mode", "DCR") == "DCR":
        tmp = tmp.transpose(0, 3, 5, 1, 2, 4)
    else:
        tmp = tmp.transpose(0, 1, 3, 5, 2, 4)
    return [tmp.reshape(n, c * b * b, h // b, w // b).copy()]


# ------------------------------------------------------------------ generators

@register("Shape")
def shape(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Shape -> int64 dims ``[start:end]`` (clamped like Python slicing)."""
    dims = inputs[0].shape
    start = attrs.get("start", 0)
    end = attrs.get("end")
    return [np.array(dims[start:end], dtype=np.int64)]


@register("Size")
def size(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Size -> int64 scalar element count."""
    return [np.array(inputs[0].size, dtype=np.int64)]


@register("ConstantOfShape")
def constant_of_shape(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ConstantOfShape: ``value`` (a one-element tensor, default float32 0) everywhere."""
    value = attrs.get("value")
    value = np.zeros(1, dtype=np.float32) if value is None else np.asarray(value)
    return [np.full(tuple(int_list(inputs[0])), value.reshape(-1)[0], dtype=value.dtype)]


_CONSTANT_ATTRS: dict[str, Callable[[Any], np.ndarray]] = {
    "value": np.asarray,
    "value_float": lambda v: np.array(v, dtype=np.float32),
    "value_floats": lambda v: np.array(v, dtype=np.float32),
    "value_int": lambda v: np.array(v, dtype=np.int64),
    "value_ints": lambda v: np.array(v, dtype=np.int64),
    "value_string": lambda v: np.array(v, dtype=object),
    "value_strings": lambda v: np.array(v, dtype=object),
}


@register("Constant")
def constant(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Constant from whichever ``value*`` attribute is set."""
    for name, convert in _CONSTANT_ATTRS.items():
        if name in attrs:
            return [convert(attrs[name]).copy()]
    raise ValueError(f"Constant needs one of {sorted(_CONSTANT_ATTRS)}; got {sorted(attrs)}")


@register("Range")
def range_(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Range(start, limit, delta): ``max(ceil((limit - start) / delta), 0)`` values
    ``start + i * delta`` in the inputs' dtype."""
    start, limit, delta = (np.asarray(v).reshape(()) for v in inputs)
    dtype = start.dtype
    count = max(int(np.ceil((float(limit) - float(start)) / float(delta))), 0)
    if dtype.kind in "iu":
        values = int(start) + np.arange(count, dtype=np.int64) * int(delta)
    else:
        values = start.astype(np.float64) + np.arange(count, dtype=np.float64) * delta.astype(np.float64)
    return [values.astype(dtype)]


@register("OneHot")
def one_hot(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """OneHot(indices, depth, values=[off, on]) with the new axis at ``axis`` (default -1).

    Negative indices count from ``depth``; out-of-range ones give an all-off row.
    """
    indices, depth, values = inputs
    depth = int(np.asarray(depth).reshape(-1)[0])
    axis = normalize_axis(attrs.get("axis", -1), indices.ndim + 1)
    idx = indices.astype(np.int64)
    idx = np.where(idx < 0, idx + depth, idx)
    hot = np.expand_dims(idx, axis) == np.arange(depth).reshape(
        [-1 if i == axis else 1 for i in range(indices.ndim + 1)])
    off, on = values.reshape(-1)[:2]
    return [np.where(hot, on, off).astype(values.dtype)]


@register("EyeLike")
def eye_like(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """EyeLike: ones on diagonal ``k`` of a 2-D tensor shaped like the input."""
    x = inputs[0]
    dtype = np.dtype(attrs.get("dtype", x.dtype))
    return [np.eye(x.shape[0], x.shape[1], k=int(attrs.get("k", 0)), dtype=dtype)]


@register("Trilu")
def trilu(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Trilu: upper (default) or lower triangle of the last two dims, offset by k."""
    x = inputs[0]
    k_input = optional_input(inputs, 1)
    k = 0 if k_input is None else int(np.asarray(k_input).reshape(-1)[0])
    return [np.triu(x, k) if attrs.get("upper", 1) else np.tril(x, k)]


# --------------------------------------------------- cumulative and reordering

def _cumulative(fn: Callable[..., np.ndarray], inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """CumSum/CumProd along the scalar ``axis`` input, with ``exclusive`` and ``reverse``."""
    x, axis_input = inputs
    axis = normalize_axis(int(np.asarray(axis_input).reshape(-1)[0]), x.ndim)
    work = np.flip(x, axis) if attrs.get("reverse", 0) else x
    result = fn(work, axis=axis, dtype=x.dtype)
    if attrs.get("exclusive", 0):
        identity = 0 if fn is np.cumsum else 1
        shifted = np.full_like(result, identity)
        head = [slice(None)] * x.ndim
        tail = [slice(None)] * x.ndim
        head[axis], tail[axis] = slice(1, None), slice(None, -1)
        shifted[tuple(head)] = result[tuple(tail)]
        result = shifted
    return [(np.flip(result, axis) if attrs.get("reverse", 0) else result).copy()]


register("CumSum")(functools.partial(_cumulative, np.cumsum))
register("CumProd")(functools.partial(_cumulative, np.cumprod))


@register("ReverseSequence")
def reverse_sequence(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """ReverseSequence: reverse the first ``sequence_lens[b]`` steps of every batch entry."""
    x, lengths = inputs
    batch_axis = int(attrs.get("batch_axis", 1))
    time_axis = int(attrs.get("time_axis", 0))
    steps = np.arange(x.shape[time_axis])[:, None]
    lengths = lengths.astype(np.int64)[None, :]
    # source[t, b]: step t of entry b reads step len[b] - 1 - t inside the prefix, t past it
    source = np.where(steps < lengths, lengths - 1 - steps, steps)
    if time_axis > batch_axis:
        source = source.T  # reshape below keeps the order of the two dims
    shape = [1] * x.ndim
    shape[time_axis], shape[batch_axis] = x.shape[time_axis], x.shape[batch_axis]
    source = np.broadcast_to(source.reshape(shape), x.shape)
    return [np.take_along_axis(x, source, axis=time_axis)]


@register("Unique")
def unique(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Unique -> [Y, indices, inverse_indices, counts] (int64), over the
    flattened input or along ``axis``; ``sorted=0`` keeps first-occurrence order."""
    x = inputs[0]
    axis = attrs.get("axis")
    axis = None if axis is None else normalize_axis(axis, x.ndim)
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not attrs.get("sorted", 1):
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        first, counts, inverse = first[order], counts[order], rank[inverse]
        y = np.take(x.reshape(-1) if axis is None else x, first, axis=0 if axis is None else axis)
    return [y, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)]
