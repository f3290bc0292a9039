"""Tests of the numpy kernel library (``geir.backends.kernels``).

1. The oracle: every single-node case of ONNX's own node test suite runs through
   our native kernel (or, for ops without one, through the AICPU fallback
   ``run_onnx_op``) and must reproduce ONNX's expected outputs, dtype and shape
   included.  The only exceptions are listed, each with its reason, in
   ``kernel_exclusions.txt``.
2. Property tests (hypothesis) against ``onnx.reference.ReferenceEvaluator`` and numpy.
"""

from __future__ import annotations

import functools
import pathlib
import traceback
import warnings
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import helper
from onnx.backend.test.case.node import collect_testcases
from onnx.backend.test.case.test_case import TestCase
from onnx.reference import ReferenceEvaluator

from geir.backends.kernels import DTYPE_ATTRIBUTES, KERNELS, get_kernel, onnx_node_attributes, register
from geir.backends.kernels import onnx_fallback
from geir.backends.kernels.onnx_fallback import run_onnx_op

EXCLUSIONS_FILE = pathlib.Path(__file__).with_name("kernel_exclusions.txt")
ONNX_DOMAINS = ("", "ai.onnx")


# ----------------------------------------------------------------------- oracle

def _load_exclusions() -> dict[str, str]:
    """``case name -> reason`` from kernel_exclusions.txt (``name # reason`` lines)."""
    exclusions: dict[str, str] = {}
    for number, line in enumerate(EXCLUSIONS_FILE.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, reason = line.partition(" # ")
        if not sep or not reason.strip():
            raise ValueError(f"{EXCLUSIONS_FILE.name}:{number}: expected 'case_name # reason'")
        exclusions[name.strip()] = reason.strip()
    return exclusions


def _collect_cases() -> dict[str, TestCase]:
    """ONNX's node test cases (generated in memory; numpy warns on the edge cases)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {case.name: case for case in collect_testcases(None)}


ALL_CASES = _collect_cases()
EXCLUSIONS = _load_exclusions()
SINGLE_NODE = {name: case for name, case in ALL_CASES.items() if len(case.model.graph.node) == 1}


def _node(case: TestCase) -> onnx.NodeProto:
    return case.model.graph.node[0]


def _is_native(case: TestCase) -> bool:
    node = _node(case)
    return node.domain in ONNX_DOMAINS and node.op_type in KERNELS


NATIVE_CASES = sorted(n for n, c in SINGLE_NODE.items() if n not in EXCLUSIONS and _is_native(c))
FALLBACK_CASES = sorted(n for n, c in SINGLE_NODE.items() if n not in EXCLUSIONS and not _is_native(c))
#: ops onnx.reference cannot run (Scatter was deprecated in opset 11 and dropped from it)
NO_REFERENCE_OPS = frozenset({"Scatter"})
#: natively covered cases that also exercise the fallback's attribute and dtype encoding
CROSS_CHECK_CASES = [n for n in NATIVE_CASES if _node(SINGLE_NODE[n]).op_type not in NO_REFERENCE_OPS]


def _opset(model: onnx.ModelProto, domain: str) -> int:
    for entry in model.opset_import:
        if entry.domain in ((domain,) if domain not in ONNX_DOMAINS else ONNX_DOMAINS):
            return entry.version
    raise LookupError(f"model imports no opset for domain {domain!r}")


def _tolerance(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) for comparing floats of ``dtype``."""
    if dtype.itemsize >= 4:
        return 1e-5, 1e-5
    if dtype == np.float16:
        return 1e-3, 1e-3
    return 1e-2, 1e-2  # bfloat16, float8, float4


def _is_float(dtype: np.dtype) -> bool:
    if dtype.kind == "f":
        return True
    try:
        ml_dtypes.finfo(dtype)
    except (ValueError, TypeError):
        return False
    return True


def assert_same(actual: Any, expected: np.ndarray, what: str) -> None:
    """``actual`` equals ``expected``: dtype and shape exactly, values within tolerance."""
    assert isinstance(actual, np.ndarray), f"{what}: got {type(actual).__name__}, not an ndarray"
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != expected {expected.shape}"
    if expected.dtype == object or expected.dtype.kind in "US":
        assert actual.tolist() == expected.tolist(), f"{what}: values differ"
    elif _is_float(expected.dtype):
        rtol, atol = _tolerance(expected.dtype)
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    elif expected.dtype.kind == "V":  # ml_dtypes integers (int4, uint2, ...)
        np.testing.assert_array_equal(actual.astype(np.int64), expected.astype(np.int64), err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def _as_array(value: Any) -> np.ndarray:
    """Test data come as arrays or, for the exotic dtypes, as TensorProtos."""
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value)
    raise TypeError(f"not a tensor: {type(value).__name__} (sequence/optional data are excluded)")


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype == object:
        return a.tolist() == b.tolist()
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _run_case(name: str, use_fallback: bool) -> None:
    case = SINGLE_NODE[name]
    node = _node(case)
    graph = case.model.graph
    attrs = onnx_node_attributes(node)
    for set_index, (feeds, expected) in enumerate(case.data_sets):
        by_name = dict(zip((i.name for i in graph.input), map(_as_array, feeds)))
        inputs = [by_name[i] if i else None for i in node.input]
        before = [None if x is None else x.copy() for x in inputs]
        with np.errstate(all="ignore"):
            if use_fallback:
                outputs = run_onnx_op(node.op_type, node.domain, _opset(case.model, node.domain),
                                      inputs, attrs, len(node.output))
            else:
                outputs = get_kernel(node.op_type)(inputs, attrs)
        for index, (x, saved) in enumerate(zip(inputs, before)):
            assert x is None or _same_bits(x, saved), f"the kernel modified input {index} in place"
        # Kernels return every output the op defines; the node may use fewer.
        assert len(outputs) >= len(node.output), (
            f"{len(outputs)} outputs for a node with {len(node.output)}")
        for graph_output, value in zip(graph.output, expected):
            index = list(node.output).index(graph_output.name)
            what = f"data set {set_index}, output {index} ({graph_output.name})"
            assert_same(outputs[index], _as_array(value), what)


@functools.cache
def case_failure(name: str, use_fallback: bool) -> str | None:
    """Run one oracle case once per session; the failure text, or None if it passed."""
    try:
        _run_case(name, use_fallback)
    except Exception:  # noqa: BLE001 - every failure is reported with its traceback
        return traceback.format_exc(limit=-3)
    return None


@pytest.mark.parametrize("name", NATIVE_CASES)
def test_onnx_node_case(name: str) -> None:
    """A native kernel reproduces ONNX's expected outputs."""
    failure = case_failure(name, False)
    assert failure is None, failure


@pytest.mark.parametrize("name", FALLBACK_CASES)
def test_onnx_node_case_fallback(name: str) -> None:
    """An op without a native kernel reproduces ONNX's outputs through run_onnx_op."""
    failure = case_failure(name, True)
    assert failure is None, failure


@pytest.mark.parametrize("name", CROSS_CHECK_CASES)
def test_onnx_node_case_native_op_through_fallback(name: str) -> None:
    """run_onnx_op also reproduces the cases of natively covered ops (Cast's dtypes, tensors ...)."""
    failure = case_failure(name, True)
    assert failure is None, failure


def test_oracle_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """Every listed exclusion names a real single-node case; print the counts."""
    stale = sorted(set(EXCLUSIONS) - set(SINGLE_NODE))
    assert not stale, f"kernel_exclusions.txt lists unknown or multi-node cases: {stale}"
    native_failed = [n for n in NATIVE_CASES if case_failure(n, False)]
    fallback_failed = [n for n in FALLBACK_CASES if case_failure(n, True)]
    cross_failed = [n for n in CROSS_CHECK_CASES if case_failure(n, True)]
    with capsys.disabled():
        print(f"\nkernel oracle: {len(ALL_CASES)} ONNX node cases, {len(SINGLE_NODE)} single-node "
              f"({len(ALL_CASES) - len(SINGLE_NODE)} multi-node skipped), {len(EXCLUSIONS)} excluded; "
              f"native kernels: {len(NATIVE_CASES) - len(native_failed)}/{len(NATIVE_CASES)} passed; "
              f"fallback (ops without a kernel): "
              f"{len(FALLBACK_CASES) - len(fallback_failed)}/{len(FALLBACK_CASES)} passed; "
              f"fallback cross-check on native ops: "
              f"{len(CROSS_CHECK_CASES) - len(cross_failed)}/{len(CROSS_CHECK_CASES)} passed; "
              f"{len(KERNELS)} kernels registered")
    assert not (native_failed or fallback_failed or cross_failed), (
        native_failed, fallback_failed, cross_failed)


# ---------------------------------------------------------- property tests

PROPERTY_SETTINGS = settings(max_examples=50, deadline=None)


def reference_outputs(op_type: str, inputs: list[np.ndarray | None], num_outputs: int = 1,
                      **attrs: Any) -> list[np.ndarray]:
    """Run one node through ``onnx.reference.ReferenceEvaluator`` (built here, independently
    of the fallback module) and return its outputs."""
    names = [f"in{i}" if x is not None else "" for i, x in enumerate(inputs)]
    node = helper.make_node(op_type, names, [f"out{i}" for i in range(num_outputs)], **attrs)
    graph = helper.make_graph(
        [node], "property",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
         for n, x in zip(names, inputs) if x is not None],
        [helper.make_empty_tensor_value_info(f"out{i}") for i in range(num_outputs)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
    feeds = {n: x for n, x in zip(names, inputs) if x is not None}
    return ReferenceEvaluator(model).run(None, feeds)


@st.composite
def window_cases(draw: st.DrawFn, max_rank: int = 3, pad_limit: int = 2) -> dict[str, Any]:
    """Spatial geometry of a conv/pool window: sizes, kernel, strides, dilations, pads."""
    rank = draw(st.integers(1, max_rank))
    kernel = [draw(st.integers(1, 3)) for _ in range(rank)]
    strides = [draw(st.integers(1, 3)) for _ in range(rank)]
    dilations = [draw(st.integers(1, 2)) for _ in range(rank)]
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    pads_begin = [draw(st.integers(0, min(pad_limit, e // 2))) for e in extents]
    pads_end = [draw(st.integers(0, min(pad_limit, e // 2))) for e in extents]
    spatial = [max(1, e - b - p + draw(st.integers(0, 4)))
               for e, b, p in zip(extents, pads_begin, pads_end)]
    return {"rank": rank, "spatial": spatial, "kernel_shape": kernel, "strides": strides,
            "dilations": dilations, "pads": pads_begin + pads_end,
            "seed": draw(st.integers(0, 2**31 - 1))}


@PROPERTY_SETTINGS
@given(window=window_cases(), batch=st.integers(1, 2), groups=st.integers(1, 3),
       in_per_group=st.integers(1, 3), out_per_group=st.integers(1, 3),
       auto_pad=st.sampled_from(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]),
       with_bias=st.booleans())
def test_conv_matches_reference(window: dict[str, Any], batch: int, groups: int, in_per_group: int,
                                out_per_group: int, auto_pad: str, with_bias: bool) -> None:
    """Conv equals ONNX's reference evaluator on random shapes, strides, pads, dilations, groups."""
    rng = np.random.default_rng(window["seed"])
    x = rng.standard_normal((batch, groups * in_per_group, *window["spatial"])).astype(np.float32)
    w = rng.standard_normal((groups * out_per_group, in_per_group, *window["kernel_shape"])
                            ).astype(np.float32)
    b = rng.standard_normal(groups * out_per_group).astype(np.float32) if with_bias else None
    attrs: dict[str, Any] = {"kernel_shape": window["kernel_shape"], "strides": window["strides"],
                             "dilations": window["dilations"], "group": groups}
    if auto_pad == "NOTSET":
        attrs["pads"] = window["pads"]
    else:
        attrs["auto_pad"] = auto_pad
    if auto_pad == "VALID" and any(s < (k - 1) * d + 1 for s, k, d in zip(
            window["spatial"], window["kernel_shape"], window["dilations"])):
        return  # no valid window position: not a meaningful conv
    inputs = [x, w] if b is None else [x, w, b]
    expected = reference_outputs("Conv", inputs, **attrs)[0]
    actual = get_kernel("Conv")(inputs, dict(attrs))[0]
    assert_same(actual, expected.astype(np.float32), "Conv")


@PROPERTY_SETTINGS
@given(window=window_cases(), batch=st.integers(1, 2), groups=st.integers(1, 2),
       in_per_group=st.integers(1, 3), out_per_group=st.integers(1, 3), with_bias=st.booleans(),
       data=st.data())
def test_conv_transpose_matches_reference(window: dict[str, Any], batch: int, groups: int,
                                          in_per_group: int, out_per_group: int, with_bias: bool,
                                          data: st.DataObject) -> None:
    """ConvTranspose equals the reference evaluator (explicit pads, output_padding, groups).

    The reference mishandles groups (it slices W by output channels and adds the first
    group's bias everywhere), so a grouped case is compared with the concatenation of
    per-group, group=1 reference runs; test_conv_transpose_grouped_bias pins one by hand.
    """
    rng = np.random.default_rng(window["seed"])
    # output_padding below the stride (the reference cannot do PyTorch's "or the dilation")
    output_padding = [data.draw(st.integers(0, s - 1)) for s in window["strides"]]
    x = rng.standard_normal((batch, groups * in_per_group, *window["spatial"])).astype(np.float32)
    w = rng.standard_normal((groups * in_per_group, out_per_group, *window["kernel_shape"])
                            ).astype(np.float32)
    b = rng.standard_normal(groups * out_per_group).astype(np.float32) if with_bias else None
    attrs = {"kernel_shape": window["kernel_shape"], "strides": window["strides"],
             "dilations": window["dilations"], "pads": window["pads"],
             "output_padding": output_padding}
    per_group = []
    for g in range(groups):
        ins, outs = slice(g * in_per_group, (g + 1) * in_per_group), slice(g * out_per_group,
                                                                           (g + 1) * out_per_group)
        group_inputs = [x[:, ins], w[ins]] + ([] if b is None else [b[outs]])
        per_group.append(reference_outputs("ConvTranspose", group_inputs, **attrs)[0])
    expected = np.concatenate(per_group, axis=1).astype(np.float32)
    inputs = [x, w] if b is None else [x, w, b]
    actual = get_kernel("ConvTranspose")(inputs, {**attrs, "group": groups})[0]
    assert_same(actual, expected, "ConvTranspose")


def test_conv_transpose_grouped_bias() -> None:
    """Each group of a grouped ConvTranspose gets its own output channels' bias."""
    x = np.array([[[1.0], [2.0]]], np.float32)
    w = np.array([[[3.0]], [[5.0]]], np.float32)
    b = np.array([10.0, 100.0], np.float32)
    y = get_kernel("ConvTranspose")([x, w, b], {"group": 2})[0]
    np.testing.assert_array_equal(y, np.array([[[13.0], [110.0]]], np.float32))


@PROPERTY_SETTINGS
@given(window=window_cases(), ceil_mode=st.booleans(), storage_order=st.integers(0, 1),
       auto_pad=st.sampled_from(["NOTSET", "SAME_UPPER", "VALID"]))
def test_max_pool_matches_reference(window: dict[str, Any], ceil_mode: bool, storage_order: int,
                                    auto_pad: str) -> None:
    """MaxPool values and Indices equal the reference evaluator.

    Only the reference's dedicated path (some stride or dilation above 1) is a
    faithful oracle: its generic path miscounts Indices and pads only 2-D inputs.
    SAME_LOWER is left to the ONNX node cases (the reference pads it like SAME_UPPER),
    and SAME_UPPER needs a window at least as wide as the stride (otherwise the
    reference applies a negative pad instead of none).
    """
    assume(max(window["strides"]) > 1 or max(window["dilations"]) > 1)
    extents = [(k - 1) * d + 1 for k, d in zip(window["kernel_shape"], window["dilations"])]
    assume(auto_pad != "SAME_UPPER" or all(e >= s for e, s in zip(extents, window["strides"])))
    rng = np.random.default_rng(window["seed"])
    # distinct values, so that Indices do not depend on tie-breaking
    x = rng.permutation(np.prod([2, 3, *window["spatial"]])).astype(np.float32).reshape(
        2, 3, *window["spatial"])
    attrs: dict[str, Any] = {"kernel_shape": window["kernel_shape"], "strides": window["strides"],
                             "dilations": window["dilations"], "ceil_mode": int(ceil_mode),
                             "storage_order": storage_order}
    if auto_pad == "NOTSET":
        attrs["pads"] = window["pads"]
    else:
        attrs["auto_pad"] = auto_pad
        if any(s < (k - 1) * d + 1 for s, k, d in zip(window["spatial"], window["kernel_shape"],
                                                       window["dilations"])):
            return  # VALID/SAME with a window larger than the input: no window fits
    actual = get_kernel("MaxPool")([x], dict(attrs))
    # -inf (from finite inputs) marks a dilated window that saw only padding: undefined
    assume(np.isfinite(actual[0]).all())
    expected = reference_outputs("MaxPool", [x], num_outputs=2, **attrs)
    assert_same(actual[0], expected[0], "MaxPool values")
    assert_same(actual[1], expected[1], "MaxPool indices")


@PROPERTY_SETTINGS
@given(window=window_cases(max_rank=2), ceil_mode=st.booleans(), count_include_pad=st.booleans())
def test_average_pool_matches_reference(window: dict[str, Any], ceil_mode: bool,
                                        count_include_pad: bool) -> None:
    """AveragePool equals the reference evaluator where the reference is sound:
    2-D, no dilations (it ignores them), the same pad on all four sides (it reads
    2-D pads as top, bottom, left, right) and, in ceil mode, a nonzero pad
    (unpadded it mis-averages: see test_average_pool_ceil_mode_unpadded)."""
    spatial = (window["spatial"] * 2)[:2]
    kernel = (window["kernel_shape"] * 2)[:2]
    strides = (window["strides"] * 2)[:2]
    pad = min(window["pads"][0], (min(kernel) - 1) // 2)
    pads = [pad] * 4
    assume(not ceil_mode or pad)
    spatial = [max(s, k) for s, k in zip(spatial, kernel)]
    rng = np.random.default_rng(window["seed"])
    x = rng.standard_normal((2, 3, *spatial)).astype(np.float32)
    attrs = {"kernel_shape": kernel, "strides": strides, "pads": pads,
             "ceil_mode": int(ceil_mode), "count_include_pad": int(count_include_pad)}
    expected = reference_outputs("AveragePool", [x], **attrs)[0]
    actual = get_kernel("AveragePool")([x], dict(attrs))[0]
    assert_same(actual, expected, "AveragePool")


def test_average_pool_ceil_mode_unpadded() -> None:
    """Ceil-mode AveragePool averages the partial last windows over the elements they cover."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    attrs = {"kernel_shape": [3, 3], "strides": [3, 3], "ceil_mode": 1}
    y = get_kernel("AveragePool")([x], attrs)[0]
    np.testing.assert_array_equal(y, np.array([[[[5.0, 7.0], [13.0, 15.0]]]], np.float32))


def average_pool_by_definition(x: np.ndarray, kernel: list[int], strides: list[int],
                               dilations: list[int], pads: list[int], ceil_mode: bool,
                               count_include_pad: bool) -> np.ndarray:
    """AveragePool written straight from the ONNX spec, one window at a time."""
    rank = len(kernel)
    spatial = x.shape[2:]
    begin, end = pads[:rank], pads[rank:]
    out_shape = []
    for size, k, s, d, b, e in zip(spatial, kernel, strides, dilations, begin, end):
        span = size + b + e - ((k - 1) * d + 1)
        count = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (count - 1) * s >= size + b:  # a window may not start in the end pad
            count -= 1
        out_shape.append(count)
    y = np.zeros(x.shape[:2] + tuple(out_shape))
    for out_index in np.ndindex(*out_shape):
        total, count = np.zeros(x.shape[:2]), 0
        for k_index in np.ndindex(*kernel):
            pos = [o * s - b + k * d for o, s, b, k, d in zip(out_index, strides, begin, k_index, dilations)]
            inside = all(0 <= p < n for p, n in zip(pos, spatial))
            in_pads = all(-b <= p < n + e for p, n, b, e in zip(pos, spatial, begin, end))
            if inside:
                total += x[(..., *pos)]
            count += inside or (count_include_pad and in_pads)
        y[(..., *out_index)] = total / count if count else np.nan
    return y.astype(x.dtype)


@PROPERTY_SETTINGS
@given(window=window_cases(), ceil_mode=st.booleans(), count_include_pad=st.booleans())
def test_average_pool_matches_definition(window: dict[str, Any], ceil_mode: bool,
                                         count_include_pad: bool) -> None:
    """AveragePool in 1-3 D with dilations and asymmetric pads equals the spec's definition."""
    rng = np.random.default_rng(window["seed"])
    x = rng.standard_normal((1, 2, *window["spatial"])).astype(np.float32)
    attrs = {k: window[k] for k in ("kernel_shape", "strides", "dilations", "pads")}
    attrs.update(ceil_mode=int(ceil_mode), count_include_pad=int(count_include_pad))
    expected = average_pool_by_definition(x, window["kernel_shape"], window["strides"],
                                          window["dilations"], window["pads"], ceil_mode,
                                          count_include_pad)
    assume(np.isfinite(expected).all())  # a dilated window saw only padding: undefined
    assert_same(get_kernel("AveragePool")([x], attrs)[0], expected, "AveragePool")


#: ONNX binary op -> what numpy computes for it (with broadcasting)
NUMPY_BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
    "Max": np.maximum, "Min": np.minimum, "Pow": np.power,
    "Equal": np.equal, "Less": np.less, "Greater": np.greater,
    "LessOrEqual": np.less_equal, "GreaterOrEqual": np.greater_equal,
}


@PROPERTY_SETTINGS
@given(op=st.sampled_from(sorted(NUMPY_BINARY)),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4),
       dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
       seed=st.integers(0, 2**31 - 1))
def test_broadcasting_binary_ops_match_numpy(op: str, shapes: Any, dtype: type,
                                             seed: int) -> None:
    """Binary ops broadcast exactly like numpy and keep the input dtype (bool for comparisons)."""
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(1, 5, size=s).astype(dtype) for s in shapes.input_shapes)
    if op == "Div" and np.dtype(dtype).kind == "i":
        expected = np.trunc(a / b).astype(dtype)  # ONNX integer Div truncates toward zero
    else:
        expected = np.asarray(NUMPY_BINARY[op](a, b))
        if expected.dtype != np.bool_:
            expected = expected.astype(dtype)
    actual = get_kernel(op)([a, b], {})[0]
    assert_same(actual, expected, op)
    assert actual.shape == shapes.result_shape


@PROPERTY_SETTINGS
@given(x=hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=5, max_side=4)),
       data=st.data())
def test_transpose_round_trip(x: np.ndarray, data: st.DataObject) -> None:
    """Transposing by a permutation and then by its inverse gives the input back."""
    perm = data.draw(st.permutations(range(x.ndim)))
    y = get_kernel("Transpose")([x], {"perm": list(perm)})[0]
    assert y.shape == tuple(x.shape[p] for p in perm)
    back = get_kernel("Transpose")([y], {"perm": [int(i) for i in np.argsort(perm)]})[0]
    np.testing.assert_array_equal(back, x)


@PROPERTY_SETTINGS
@given(x=hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=4, max_side=4)),
       data=st.data())
def test_reshape_round_trip(x: np.ndarray, data: st.DataObject) -> None:
    """Reshaping to any factorisation (written with 0 and -1) and back gives the input back."""
    dims = list(x.shape)
    factors = sorted(data.draw(st.permutations(dims)))  # same element count, other order
    target = list(factors)
    if data.draw(st.booleans()):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    if len(target) == x.ndim and target[0] == x.shape[0] and data.draw(st.booleans()):
        target[0] = 0  # 0 copies the input dim
    reshape = get_kernel("Reshape")
    y = reshape([x, np.array(target, dtype=np.int64)], {})[0]
    assert y.shape == tuple(factors)
    back = reshape([y, np.array(x.shape, dtype=np.int64)], {})[0]
    np.testing.assert_array_equal(back, x)
    flat = reshape([x, np.array([-1], dtype=np.int64)], {})[0]
    np.testing.assert_array_equal(flat, x.reshape(-1))


@pytest.mark.parametrize("op,extra,attrs", [
    ("Identity", [], {}), ("Reshape", [np.array([6, 2], np.int64)], {}), ("Flatten", [], {"axis": 1}),
    ("Squeeze", [np.array([0], np.int64)], {}), ("Unsqueeze", [np.array([0], np.int64)], {})])
def test_reshapes_copy_a_writable_input_and_view_a_read_only_one(op: str, extra: list[np.ndarray],
                                                                 attrs: dict[str, Any]) -> None:
    """Outputs never alias an input anything could write through; a read-only input
    (a weight, read in place from its blob) is viewed, not copied, and stays read-only."""
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    kernel = get_kernel(op)
    (copied,) = kernel([x, *extra], attrs)
    assert not np.shares_memory(copied, x)
    x.flags.writeable = False
    (viewed,) = kernel([x, *extra], attrs)
    assert np.shares_memory(viewed, x) and not viewed.flags.writeable
    np.testing.assert_array_equal(viewed, copied)


# ------------------------------------------------------------------ registry

def test_get_kernel_unknown_op_names_the_fallback() -> None:
    with pytest.raises(KeyError, match="no numpy kernel registered for op 'NoSuchOp'.*run_onnx_op"):
        get_kernel("NoSuchOp")


def test_register_rejects_duplicates() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register("Add")(lambda inputs, attrs: [])


def test_onnx_node_attributes_converts_values() -> None:
    """Tensors become arrays, strings str, dtype enums numpy dtypes (see DTYPE_ATTRIBUTES)."""
    cast = helper.make_node("Cast", ["x"], ["y"], to=onnx.TensorProto.BFLOAT16)
    assert onnx_node_attributes(cast) == {"to": np.dtype(ml_dtypes.bfloat16)}
    assert "to" in DTYPE_ATTRIBUTES
    const = helper.make_node("ConstantOfShape", ["s"], ["y"],
                             value=helper.make_tensor("v", onnx.TensorProto.INT32, [1], [7]))
    value = onnx_node_attributes(const)["value"]
    assert isinstance(value, np.ndarray) and value.dtype == np.int32 and value.tolist() == [7]
    pad = helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect")
    assert onnx_node_attributes(pad) == {"mode": "reflect"}
    # Split before opset 18 splits evenly into as many outputs as the node has.
    split = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1)
    assert onnx_node_attributes(split) == {"axis": 1, "num_outputs": 3}
    parts = get_kernel("Split")([np.arange(6).reshape(1, 6)], onnx_node_attributes(split))
    assert [p.tolist() for p in parts] == [[[0, 1]], [[2, 3]], [[4, 5]]]


def test_kernels_cover_the_design_modules() -> None:
    """Every op family the emulator relies on has a native kernel."""
    required = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "LpPool",
                "BatchNormalization", "LayerNormalization", "GroupNormalization", "MatMul", "Gemm",
                "Einsum", "Reshape", "Transpose", "Slice", "Gather", "ScatterND", "Pad", "Resize", "GridSample",
                "RoiAlign",
                "ReduceSum", "ArgMax", "NonMaxSuppression", "TopK", "Softmax", "Gelu", "Cast",
                "Where", "Clip", "ge.all_reduce", "ge.all_gather", "ge.broadcast",
                "ge.reduce_scatter", "ge.dvpp_decode", "ge.dvpp_resize", "ge.switch", "ge.merge",
                "ge.enter", "ge.ref_enter", "ge.cmo", "ge.onnx_op"}
    assert required <= set(KERNELS), sorted(required - set(KERNELS))


# -------------------------------------------------------------- GE-specific

@pytest.mark.parametrize(("reduction", "expected"), [
    ("sum", [4, -8, 0]), ("max", [1, -2, 0]), ("min", [1, -2, 0]), ("prod", [1, 16, 0])])
def test_all_reduce_over_identical_ranks(reduction: str, expected: list[int]) -> None:
    x = np.array([1, -2, 0], dtype=np.int32)
    y = get_kernel("ge.all_reduce")([x], {"reduction": reduction, "group": "hccl_world_group",
                                          "rank_size": 4})[0]
    assert y.dtype == np.int32 and y.tolist() == expected
    assert x.tolist() == [1, -2, 0]


def test_collectives_shapes() -> None:
    x = np.arange(8, dtype=np.float16).reshape(4, 2)
    gathered = get_kernel("ge.all_gather")([x], {"rank_size": 3})[0]
    assert gathered.shape == (12, 2) and gathered.dtype == np.float16
    np.testing.assert_array_equal(gathered[8:], x)
    scattered = get_kernel("ge.reduce_scatter")([x], {"reduction": "sum", "rank_size": 2})[0]
    np.testing.assert_array_equal(scattered, x[:2] * 2)
    broadcast = get_kernel("ge.broadcast")([x], {"root_rank": 0, "rank_size": 8})[0]
    np.testing.assert_array_equal(broadcast, x)
    assert broadcast is not x


def test_dvpp_decode_takes_raw_pixels() -> None:
    """No JPEG codec: the bytes are raw HWC pixels, zero-padded or truncated."""
    decode = get_kernel("ge.dvpp_decode")
    short = decode([np.arange(5, dtype=np.uint8)], {"height": 2, "width": 2, "channels": 3})[0]
    assert short.shape == (2, 2, 3) and short.dtype == np.uint8
    assert short.reshape(-1).tolist() == [0, 1, 2, 3, 4] + [0] * 7
    long = decode([np.arange(100, dtype=np.uint8)], {"height": 2, "width": 3, "channels": 1})[0]
    assert long.reshape(-1).tolist() == list(range(6))


def test_dvpp_resize_nearest() -> None:
    image = np.arange(2 * 4 * 3, dtype=np.uint8).reshape(2, 4, 3)
    y = get_kernel("ge.dvpp_resize")([image], {"height": 4, "width": 2})[0]
    assert y.shape == (4, 2, 3) and y.dtype == np.uint8
    np.testing.assert_array_equal(y, image[[0, 0, 1, 1]][:, [0, 2]])


def test_control_ops() -> None:
    data, pred = np.array([1.5, 2.5], np.float32), np.array(True)
    false_out, true_out = get_kernel("ge.switch")([data, pred], {})
    np.testing.assert_array_equal(false_out, data)
    np.testing.assert_array_equal(true_out, data)
    value, index = get_kernel("ge.merge")([None, data, data * 2], {})
    np.testing.assert_array_equal(value, data)
    assert index.dtype == np.int32 and index.shape == () and int(index) == 1
    for name in ("ge.enter", "ge.ref_enter", "ge.exit", "ge.next_iteration", "ge.loop_cond"):
        np.testing.assert_array_equal(get_kernel(name)([data], {"frame_name": "loop"})[0], data)
    assert get_kernel("ge.cmo")([data], {"type": "prefetch"}) == []


# ------------------------------------------------------------- the fallback

def test_onnx_op_kernel_runs_the_reference_evaluator() -> None:
    """ge.onnx_op names the ONNX op in its meta attributes; the rest are the op's own."""
    x = np.arange(2 * 5 * 5, dtype=np.float32).reshape(2, 5, 5)
    attrs = {"op_type": "CenterCropPad", "domain": "", "opset": 18, "axes": [1, 2],
             "engine": "AICPU", "stream": 3}  # pass decisions are not the op's attributes
    (y,) = get_kernel("ge.onnx_op")([x, np.array([3, 3], np.int64)], attrs)
    np.testing.assert_array_equal(y, x[:, 1:4, 1:4])
    # every schema output, optional ones included; opset defaults to the newest
    outputs = get_kernel("ge.onnx_op")([x[0]], {"op_type": "Dropout"})
    assert len(outputs) == 2 and outputs[1].dtype == np.bool_
    label = get_kernel("ge.onnx_op")([np.array([[1.0, -2.0]], np.float32)],
                                     {"op_type": "Binarizer", "domain": "ai.onnx.ml", "threshold": 0.0})
    np.testing.assert_array_equal(label[0], [[1.0, 0.0]])


def test_run_onnx_op_dtype_attributes_and_cache() -> None:
    """Dtype-valued attributes go back to enums; evaluators are built once per signature."""
    x = np.eye(3, dtype=np.float32)[:, :2]
    first = run_onnx_op("EyeLike", "", 22, [x], {"dtype": np.dtype(np.int32), "k": 1}, 1)[0]
    assert first.dtype == np.int32 and first.tolist() == [[0, 1], [0, 0], [0, 0]]
    cached = len(onnx_fallback._EVALUATORS)
    again = run_onnx_op("EyeLike", "", 22, [x + 1], {"dtype": np.dtype(np.int32), "k": 1}, 1)[0]
    np.testing.assert_array_equal(again, first)
    assert len(onnx_fallback._EVALUATORS) == cached
    det = run_onnx_op("Det", "", 22, [np.array([[2.0, 1.0], [1.0, 3.0]], np.float64)], {}, 1)[0]
    assert det.dtype == np.float64 and float(det) == pytest.approx(5.0)


@PROPERTY_SETTINGS
@given(mode=st.sampled_from(["nearest", "linear", "cubic"]),
       transform=st.sampled_from(["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                  "align_corners", "asymmetric", "tf_crop_and_resize"]),
       nearest_mode=st.sampled_from(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]),
       antialias=st.booleans(), exclude_outside=st.booleans(), use_sizes=st.booleans(),
       shape=st.lists(st.integers(1, 5), min_size=2, max_size=2),
       factors=st.lists(st.sampled_from([0.5, 0.6, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0]),
                        min_size=2, max_size=2),
       seed=st.integers(0, 2**31 - 1))
def test_resize_matches_reference(mode: str, transform: str, nearest_mode: str, antialias: bool,
                                  exclude_outside: bool, use_sizes: bool, shape: list[int],
                                  factors: list[float], seed: int) -> None:
    """Resize on the last two axes of an NCHW tensor equals the reference evaluator.

    Kept to outputs of at least 2 per axis (for a single output pixel the reference
    reads pytorch_half_pixel as -0.5 where the spec says 0), and tf_crop_and_resize
    to sizes (with scales the spec scales the output by the roi, the reference not).
    exclude_outside is a filter option: the reference also zeroes a nearest pixel
    rounded outside the input, which we (and onnxruntime) clamp to the edge.
    """
    antialias = antialias and mode != "nearest"
    exclude_outside = exclude_outside and mode != "nearest"
    use_sizes = use_sizes or transform == "tf_crop_and_resize"
    x = np.random.default_rng(seed).standard_normal((1, 2, *shape)).astype(np.float32)
    sizes = [max(2, int(s * f)) for s, f in zip(shape, factors)]
    assume(use_sizes or all(int(s * f) >= 2 for s, f in zip(shape, factors)))
    attrs: dict[str, Any] = {"mode": mode, "coordinate_transformation_mode": transform,
                             "nearest_mode": nearest_mode, "antialias": int(antialias),
                             "exclude_outside": int(exclude_outside), "axes": [2, 3],
                             "extrapolation_value": -7.0}
    # an irregular roi: regular ones put nearest sources on exact .5 ties, decided by rounding noise
    roi = np.array([0.13, 0.27, 0.77, 1.19], np.float32) if transform == "tf_crop_and_resize" else None
    scales = None if use_sizes else np.array(factors, np.float32)
    inputs = [x, roi, scales, np.array(sizes, np.int64) if use_sizes else None]
    while inputs[-1] is None:
        inputs.pop()
    expected = reference_outputs("Resize", inputs, **attrs)[0]
    assert_same(get_kernel("Resize")(inputs, dict(attrs))[0], expected, "Resize")


@PROPERTY_SETTINGS
@given(mode=st.sampled_from(["nearest", "linear", "cubic"]), padding=st.sampled_from(["zeros", "border", "reflection"]),
       align_corners=st.integers(0, 1), dims=st.lists(st.integers(2, 5), min_size=1, max_size=3),
       out=st.lists(st.integers(1, 4), min_size=3, max_size=3), seed=st.integers(0, 2**31 - 1))
def test_grid_sample_matches_reference(mode: str, padding: str, align_corners: int, dims: list[int],
                                       out: list[int], seed: int) -> None:
    """GridSample over 1-3 spatial dims, the grid reaching past the image so that
    every padding mode is exercised, equals the reference evaluator. (A spatial dim
    of 1 under align_corners and reflection is left out: the reference divides by
    the zero span there.)"""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, *dims)).astype(np.float32)
    grid = rng.uniform(-1.7, 1.7, (2, *out[:len(dims)], len(dims))).astype(np.float32)
    attrs = {"mode": mode, "padding_mode": padding, "align_corners": align_corners}
    expected = reference_outputs("GridSample", [x, grid], **attrs)[0]
    assert_same(get_kernel("GridSample")([x, grid], dict(attrs))[0], expected, "GridSample")


@PROPERTY_SETTINGS
@given(transform=st.sampled_from(["half_pixel", "output_half_pixel"]), mode=st.sampled_from(["avg", "max"]),
       size=st.lists(st.integers(1, 9), min_size=2, max_size=2), bins=st.lists(st.integers(1, 4), min_size=2, max_size=2),
       sampling_ratio=st.integers(0, 2), spatial_scale=st.sampled_from([1.0, 0.5, 0.25]), rois=st.integers(1, 4),
       seed=st.integers(0, 2**31 - 1))
def test_roi_align_matches_reference(transform: str, mode: str, size: list[int], bins: list[int], sampling_ratio: int,
                                     spatial_scale: float, rois: int, seed: int) -> None:
    """RoiAlign over rois that reach past the map and may be malformed (end before
    start), either coordinate mode, both poolings, fixed and adaptive sampling,
    equals the reference evaluator."""
    rng = np.random.default_rng(seed)
    height, width = size
    x = rng.standard_normal((2, 3, height, width)).astype(np.float32)
    x1, y1 = rng.uniform(-4, 2 * width, rois), rng.uniform(-4, 2 * height, rois)
    boxes = np.stack([x1, y1, x1 + rng.uniform(-1, 2 * width, rois), y1 + rng.uniform(-1, 2 * height, rois)], 1)
    inputs = [x, boxes.astype(np.float32), rng.integers(0, 2, rois).astype(np.int64)]
    attrs = {"coordinate_transformation_mode": transform, "mode": mode, "output_height": bins[0],
             "output_width": bins[1], "sampling_ratio": sampling_ratio, "spatial_scale": spatial_scale}
    expected = reference_outputs("RoiAlign", inputs, **attrs)[0]
    assert_same(get_kernel("RoiAlign")(inputs, dict(attrs))[0], expected, "RoiAlign")


def test_kernel_or_fallback() -> None:
    """Native kernels where they exist, the reference evaluator for the rest."""
    assert onnx_fallback.kernel_or_fallback("Relu") is get_kernel("Relu")
    lstm = onnx_fallback.kernel_or_fallback("LSTM", opset=22)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 1, 2)).astype(np.float32)  # seq, batch, input
    w = rng.standard_normal((1, 16, 2)).astype(np.float32)  # 4 gates x hidden 4
    r = rng.standard_normal((1, 16, 4)).astype(np.float32)
    y, y_h, y_c = lstm([x, w, r], {"hidden_size": 4})
    assert y.shape == (3, 1, 1, 4) and y_h.shape == y_c.shape == (1, 1, 4)
    np.testing.assert_array_equal(y[-1], y_h)


def test_an_empty_tensor_reshapes_where_minus_one_is_determined_and_says_why_not_elsewhere() -> None:
    """With no elements, -1 is inferable only when every other dim is nonzero
    (0 x 4 to -1 x 2 is 0 x 2); beside a 0 it could be any size, which onnxruntime
    also refuses: the error says so, in place of numpy's 'newaxis' message."""
    reshape = get_kernel("Reshape")
    empty = np.zeros((0, 4), np.float32)
    assert reshape([empty, np.array([-1, 2])], {})[0].shape == (0, 2)
    with pytest.raises(ValueError, match=r"no elements \(0x192x14x14\) cannot be reshaped to \[0, 192, -1\]"):
        reshape([np.zeros((0, 192, 14, 14), np.float32), np.array([0, 192, -1])], {})


_EMPTY = np.zeros((0, 4, 6, 6), np.float32)
#: (op, inputs, attributes, the result's shape, whether onnx.reference runs it: its
#: GlobalAveragePool divides by zero, its Flatten and GroupNormalization cannot
#: reshape an empty batch, its GridSample returns no tuple)
_EMPTY_BATCH_CASES = [
    ("MaxPool", [_EMPTY], {"kernel_shape": [3, 3], "strides": [2, 2]}, (0, 4, 2, 2), True),
    ("AveragePool", [_EMPTY], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, (0, 4, 6, 6), True),
    ("GlobalAveragePool", [_EMPTY], {}, (0, 4, 1, 1), False),
    ("LpPool", [_EMPTY], {"kernel_shape": [2, 2]}, (0, 4, 5, 5), True),
    ("Conv", [_EMPTY, np.ones((8, 4, 3, 3), np.float32)], {"pads": [1, 1, 1, 1]}, (0, 8, 6, 6), True),
    ("GroupNormalization", [_EMPTY, np.ones(4, np.float32), np.zeros(4, np.float32)], {"num_groups": 2},
     (0, 4, 6, 6), False),
    ("InstanceNormalization", [_EMPTY, np.ones(4, np.float32), np.zeros(4, np.float32)], {}, (0, 4, 6, 6), True),
    ("LRN", [_EMPTY], {"size": 3}, (0, 4, 6, 6), True),
    ("Softmax", [_EMPTY], {"axis": 1}, (0, 4, 6, 6), True),
    ("GridSample", [_EMPTY, np.zeros((0, 3, 3, 2), np.float32)], {}, (0, 4, 3, 3), False),
    ("Flatten", [_EMPTY], {"axis": 1}, (0, 144), False),
    # normalised along a zero-length axis (a sequence of no tokens)
    ("Softmax", [np.zeros((2, 0), np.float32)], {"axis": -1}, (2, 0), True),
    ("LogSoftmax", [np.zeros((2, 0), np.float32)], {"axis": -1}, (2, 0), True),
    ("Hardmax", [np.zeros((2, 0), np.float32)], {"axis": -1}, (2, 0), True),
]


@pytest.mark.parametrize("op, inputs, attrs, shape, oracle", _EMPTY_BATCH_CASES,
                         ids=[c[0] for c in _EMPTY_BATCH_CASES])
def test_an_empty_batch_gives_an_empty_result(op: str, inputs: list[np.ndarray], attrs: dict[str, Any],
                                              shape: tuple[int, ...], oracle: bool) -> None:
    """A batch of 0 (``--input-shape batch=0``), or a softmax's axis of length 0,
    is an empty result of the op's shape (the reference's, where it runs one),
    not a reshape that cannot tell what -1 is nor a reduction with no identity."""
    actual = get_kernel(op)(list(inputs), dict(attrs))[0]
    assert actual.shape == shape and actual.dtype == np.float32
    if oracle:
        assert_same(actual, reference_outputs(op, list(inputs), **attrs)[0], op)
