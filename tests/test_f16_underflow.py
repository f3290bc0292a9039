"""f16 underflow: under a precision mode that computes in f16, the values an
op's f16 result holds as zero although the same op in f32 (on the same f16
inputs, ``onnx.reference`` as the oracle) does not are counted per op, and
``ge-run`` warns at an op once they are a share of its values
(:data:`geir.report.UNDERFLOW_SHARE`), at the first ops it happens in;
zeros an op computes in f32 too are never counted, and nothing is counted
under a mode that keeps f32."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from geir.api import run_model
from geir.backends.interpreter import interpret
from geir.attributes import ArrayAttr, IntegerAttr
from geir.backends.kernel_dispatch import run_op
from geir.backends.kernels.underflow import (F16_SMALLEST, VALUE_COPYING_OPS, Underflow, check_underflow,
                                             watch_underflow)
from geir.dialects.ge import DIALECT
from geir.module import Module
from geir.parser import parse_module
from geir.passes.pass_base import PassContext
from geir.passes.precision_mode import PrecisionMode
from geir.report import UNDERFLOW_SHARE, UNDERFLOW_WARNINGS, keep_f32_hint, underflow_warnings

N = 200
T = f"tensor<{N}xf32>"


def scaled_graph(op: str) -> Module:
    """``y = op(x * s)``: one f16 mul (and a unary op) under force_fp16."""
    body = f"  %m = ge.mul %x, %s : ({T}, {T}) -> {T}\n"
    body += f"  %y = ge.{op} %m : ({T}) -> {T}\n" if op != "mul" else f"  %y = ge.mul %m, %s : ({T}, {T}) -> {T}\n"
    module = parse_module(f'ge.graph @main(%x: {T} {{ge.name = "x"}}, %s: {T} {{ge.name = "s"}}) -> '
                          f'({T} {{ge.name = "y"}}) {{\n{body}  ge.return %y : ({T}) -> ()\n}}\n')
    PrecisionMode("force_fp16", "910B2").run(module, PassContext())
    return module


def watched(module: Module, feeds: dict[str, np.ndarray]) -> dict[str, Underflow]:
    """Run ``module`` in the interpreter under a watch: what each op flushed, by its result's name."""
    with watch_underflow() as watch:
        interpret(module, feeds)
    graph = next(iter(module.body.ops))
    found = {}
    for op in graph.walk():
        count = watch.of(op.attributes)
        if count is not None:
            found[op.results[0].name_hint or op.name] = count
    return found


def reference_mul(x16: np.ndarray, s16: np.ndarray) -> np.ndarray:
    """``x * s`` by onnx.reference in f32 on the f16 values."""
    graph = helper.make_graph([helper.make_node("Mul", ["x", "s"], ["y"])], "mul",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [N]) for n in "xs"],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N])])
    run = ReferenceEvaluator(helper.make_model(graph)).run
    return run(None, {"x": x16.astype(np.float32), "s": s16.astype(np.float32)})[0]


magnitudes = st.floats(-10, 2)  # log10 of the values: from f16's normal range down below its floor


def lost(wide: np.ndarray) -> int:
    """The values of ``wide`` f16 holds as zero, not zero themselves, and at least
    2**-11 (f16's rounding) of the largest of them."""
    narrow = wide.astype(np.float16)
    return int(np.sum((wide != 0) & (narrow == 0) & (np.abs(wide) >= 2.0 ** -11 * np.abs(wide).max())))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), magnitudes, magnitudes)
def test_the_count_is_the_values_zero_in_f16_and_not_in_f32(seed: int, x_exp: float, s_exp: float) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(N) * 10 ** x_exp).astype(np.float32)
    x[rng.random(N) < 0.2] = 0.0  # zeros of the input stay zeros in f32: never counted
    s = (rng.uniform(0.5, 2, N) * 10 ** s_exp).astype(np.float32)
    found = watched(scaled_graph("relu"), {"x": x, "s": s})
    x16, s16 = x.astype(np.float16), s.astype(np.float16)
    # the casts of the inputs to f16 and the mul, each against its own f32 values
    wide = reference_mul(x16, s16)
    expected = {"x": lost(x), "s": lost(s), "m": lost(wide)}
    for name, count in expected.items():
        key = next((k for k in found if k.startswith(name)), None)
        assert (found[key].flushed if key is not None else 0) == count, name
        if key is not None:
            assert 0 < found[key].flushed <= found[key].nonzero <= found[key].size
    # relu makes zeros in f32 as well: it never flushes what its input held
    assert not any(k.startswith("y") for k in found)


def test_a_value_negligible_beside_its_results_largest_is_not_counted() -> None:
    """A masked softmax: exp(-100) beside a row's 1 is below what f16 rounds off
    the 1, and the device's zero there changes no sum; a row scaled below f16's
    floor as a whole is counted."""
    from geir.backends.kernels.underflow import count_flushed
    masked = np.array([1.0, 0.5, np.exp(-100.0), np.exp(-100.0)], np.float32)
    assert count_flushed(masked, masked.astype(np.float16)) == (0, 4)
    tiny = np.array([2e-8, 1e-8, 2.5e-8, 1.5e-8], np.float32)  # all below half of f16's smallest value
    assert count_flushed(tiny, tiny.astype(np.float16)) == (4, 4)


def test_an_op_that_makes_zeros_in_f32_is_not_counted() -> None:
    x = np.linspace(-4, 4, N, dtype=np.float32)  # half of relu's results are zero, in f32 too
    found = watched(scaled_graph("relu"), {"x": x, "s": np.ones(N, np.float32)})
    assert found == {}


def test_a_mul_below_f16s_floor_is_counted_at_that_op() -> None:
    x = np.random.default_rng(0).uniform(0.5, 1.0, N).astype(np.float32)
    s = np.full(N, 1e-4, np.float32)  # x * s about 1e-4: f16 holds it; times s again about 1e-8: it does not
    found = watched(scaled_graph("mul"), {"x": x, "s": s})
    assert list(found) == ["y"]
    assert found["y"].op == "ge.mul" and found["y"].flushed == found["y"].nonzero == N


def test_outside_a_watch_and_without_zeros_the_kernel_runs_once() -> None:
    def rerun(inputs: list[Any]) -> list[Any]:
        raise AssertionError("the kernel ran again")

    inputs = [np.ones(4, np.float16)]
    zeros = [np.zeros(4, np.float16)]
    check_underflow({}, "ge.relu", inputs, zeros, rerun)  # no watch: nothing to count
    with watch_underflow() as watch:
        check_underflow({}, "ge.relu", inputs, [np.ones(4, np.float16)], rerun)  # no zero: nothing flushed
        check_underflow({}, "ge.relu", inputs, [np.zeros(4, np.float32)], rerun)  # not f16
    assert len(watch) == 0


def test_an_op_that_only_moves_f16_values_runs_once_though_its_result_holds_zeros() -> None:
    def rerun(inputs: list[Any]) -> list[Any]:
        raise AssertionError("the kernel ran again")

    x = np.array([0.0, -1.0, 2.0, 0.0], np.float16)
    with watch_underflow() as watch:
        check_underflow({}, "ge.relu", [x], [np.maximum(x, 0)], rerun)
        check_underflow({}, "ge.transpose", [x.reshape(2, 2)], [x.reshape(2, 2).T], rerun)
    assert len(watch) == 0
    # an f32 operand is rounded on its way into an f16 result: that run is checked
    reran = []
    with watch_underflow():
        check_underflow({}, "ge.concat", [x, np.full(4, 1e-9, np.float32)],
                        [np.concatenate([x, np.zeros(4, np.float16)])],
                        lambda inputs: reran.append(1) or [np.concatenate(inputs)])
    assert reran == [1]
    assert VALUE_COPYING_OPS <= set(DIALECT.ops)


@pytest.mark.parametrize("value,checked", [(0.0, True), (-0.0, True), (np.inf, True), (-np.inf, True),
                                           (np.nan, True), (6e-8, False), (-65504.0, False), (1.0, False)])
def test_a_kernel_runs_again_in_f32_only_for_a_result_holding_a_zero_or_a_non_finite_value(
        value: float, checked: bool) -> None:
    reran = []
    result = np.array([[1.0, value], [2.0, -3.0]], np.float16)[:, ::-1]  # strided, as a view may be
    with watch_underflow():
        check_underflow({}, "ge.mul", [result], [result], lambda inputs: reran.append(1) or [inputs[0]])
    assert reran == ([1] if checked else [])


def _ints(*values: int) -> ArrayAttr:
    return ArrayAttr(tuple(IntegerAttr(v) for v in values))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1e-7, -6e-8, 3e-5, 1.0, -2.5, 65504.0, np.inf, -np.inf]),
                min_size=16, max_size=16))
def test_the_value_copying_ops_give_in_f16_what_they_give_in_f32(values: list[float]) -> None:
    """Each op of VALUE_COPYING_OPS tried here rounds nothing: its f16 run on f16
    operands is its f32 run on the same operands widened, value for value."""
    x = np.array(values, np.float16).reshape(1, 1, 4, 4)
    y = x[..., ::-1].copy()
    condition = np.arange(16).reshape(1, 1, 4, 4) % 3 == 0
    cases = (("ge.relu", [x], {}), ("ge.abs", [x], {}), ("ge.neg", [x], {}), ("ge.max", [x, y], {}),
             ("ge.min", [x, y], {}), ("ge.where", [condition, x, y], {}),
             ("ge.transpose", [x], {"perm": _ints(0, 1, 3, 2)}), ("ge.concat", [x, y], {"axis": IntegerAttr(1)}),
             ("ge.max_pool", [x], {"kernel_shape": _ints(2, 2), "strides": _ints(2, 2)}),
             ("ge.slice", [x, np.array([1]), np.array([3]), np.array([2])], {}),
             ("ge.gather", [x, np.array([0, 3])], {"axis": IntegerAttr(2)}),
             ("ge.expand", [x, np.array([2, 1, 4, 4])], {}), ("ge.tile", [x, np.array([1, 2, 1, 1])], {}),
             ("ge.trilu", [x], {}), ("ge.reshape", [x, np.array([4, 4])], {}),
             ("ge.depth_to_space", [x.reshape(1, 4, 2, 2)], {"blocksize": IntegerAttr(2)}))
    for op, inputs, attributes in cases:
        assert op in VALUE_COPYING_OPS
        narrow = run_op(op, attributes, inputs, 1)[0]
        wide = run_op(op, attributes, [i.astype(np.float32) if i.dtype == np.float16 else i for i in inputs], 1)[0]
        np.testing.assert_array_equal(narrow.astype(np.float32), wide, err_msg=op)


@pytest.mark.parametrize("flushed", [1, 99, 100, 500])
def test_a_warning_only_from_a_share_of_the_values(flushed: int) -> None:
    count = Underflow("ge.mul", flushed=flushed, nonzero=1000, size=1000)
    warnings = underflow_warnings([("model.mlir:3:5", count)], "force_fp16")
    assert len(warnings) == (1 if flushed / 1000 >= UNDERFLOW_SHARE else 0)
    for d in warnings:
        assert d.severity == "warning" and d.file_position is not None and d.file_position.line == 3
        assert f"'ge.mul' op: {flushed} of its 1000 value(s)" in d.message
        assert "--precision-mode must_keep_origin_dtype" in d.message


def test_the_first_ops_to_flush_are_warned_and_the_others_counted() -> None:
    ops = [{"k": i} for i in range(UNDERFLOW_WARNINGS + 3)]
    with watch_underflow() as watch:
        for attributes in reversed(ops):  # the last op first: the order they ran
            watch.note(attributes, "ge.mul", flushed=50, nonzero=100, size=100)
        watch.note(ops[0], "ge.mul", flushed=50, nonzero=100, size=100)  # again: added, not moved
    order = [attributes["k"] for attributes, _ in watch]
    assert order == [len(ops) - 1 - i for i in range(len(ops))]
    assert (watch.of(ops[0]).flushed, watch.of(ops[0]).nonzero) == (100, 200)  # type: ignore[union-attr]
    underflows = [(f"m.mlir:{a['k'] + 1}:3", count) for a, count in watch]
    warnings = underflow_warnings(underflows, None)
    assert len(warnings) == UNDERFLOW_WARNINGS + 1
    assert [d.file_position.line for d in warnings[:-1]] == [len(ops) - i for i in range(UNDERFLOW_WARNINGS)]
    assert warnings[-1].message.startswith("3 more op(s) flush")


@pytest.fixture(scope="module")
def tiny_model() -> Module:
    """``y = (x * 1e-4) * 1e-4``: about 1e-8 in f32 for x about 1."""
    c = "ge.const {value = dense<1.000000e-04> : tensor<f32>} : () -> tensor<f32>"
    return parse_module(f'ge.graph @main(%x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{\n'
                        f"  %c = {c}\n  %a = ge.mul %x, %c : ({T}, tensor<f32>) -> {T}\n"
                        f"  %y = ge.mul %a, %c : ({T}, tensor<f32>) -> {T}\n  ge.return %y : ({T}) -> ()\n}}\n")


@pytest.mark.parametrize("mode", ["force_fp16", "must_keep_origin_dtype"])
def test_run_model_reports_the_op_that_flushed(tiny_model: Module, mode: str) -> None:
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    report = run_model(tiny_model, inputs={"x": x}, precision_mode=mode, compare=False)
    if mode == "must_keep_origin_dtype":
        assert report.f16_underflow == []
        y = report.outputs["y"]
        assert np.all(y != 0) and float(np.max(np.abs(y))) < F16_SMALLEST  # f32 holds what f16 cannot
        return
    assert [count.op for _, count in report.f16_underflow] == ["ge.mul"]
    loc, count = report.f16_underflow[0]
    assert loc.endswith(":4:8") and count.flushed == N  # the second mul, line 4 of the text, at its name
    assert [d.message.split(":")[0] for d in underflow_warnings(report.f16_underflow, mode)] == ["'ge.mul' op"]


# ------------------------------------------------------- every path that runs numbers

def tiny_text(data_dependent: bool) -> str:
    """``tiny_model``'s text; ``data_dependent`` adds a ``ge.nonzero`` output
    after it (a size only the values decide: the graph runs host-driven)."""
    c = "ge.const {value = dense<1.000000e-04> : tensor<f32>} : () -> tensor<f32>"
    outs, tail, ret = f'{T} {{ge.name = "y"}}', "", f"%y : ({T})"
    if data_dependent:
        outs += ', tensor<1x?xi64> {ge.name = "nz"}'
        tail = f"  %nz = ge.nonzero %x : ({T}) -> tensor<1x?xi64>\n"
        ret = f"%y, %nz : ({T}, tensor<1x?xi64>)"
    return (f'ge.graph @main(%x: {T} {{ge.name = "x"}}) -> ({outs}) {{\n'
            f"  %c = {c}\n  %a = ge.mul %x, %c : ({T}, tensor<f32>) -> {T}\n"
            f"  %y = ge.mul %a, %c : ({T}, tensor<f32>) -> {T}\n{tail}  ge.return {ret} -> ()\n}}\n")


def run_path(path: str, x: np.ndarray, precision_mode: str | None) -> Any:
    """The model run on ``path`` through the library function its command calls."""
    from geir.backends.run_model import RunSettings, interpret_prepared, prepare, run_prepared
    module = parse_module(tiny_text(path == "host-driven"), "tiny.mlir")
    settings = RunSettings(inputs={"x": x}, compare=False, precision_mode=precision_mode,
                           mode="host" if path == "host mode" else "sink")
    prepared = prepare(module, settings, interpret=path == "interpret")
    assert prepared.kind == {"interpret": "interpret", "host-driven": "host"}.get(path, "graph")
    return interpret_prepared(prepared, settings) if path == "interpret" else run_prepared(prepared, settings)


PATHS = ["sink", "host mode", "interpret", "host-driven"]


@pytest.mark.parametrize("path", PATHS)
def test_every_path_warns_alike_at_the_op(path: str) -> None:
    from geir.backends.run_model import RunSettings, run_warnings
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    run = run_path(path, x, "force_fp16")
    assert [(loc, count.op, count.flushed) for loc, count in run.f16_underflow] == [("tiny.mlir:4:8", "ge.mul", N)]
    [warning] = run_warnings(run, RunSettings(precision_mode="force_fp16"))
    assert warning.file_position is not None and (warning.file_position.line, warning.file_position.col) == (4, 8)
    assert warning.message == (f"'ge.mul' op: {N} of its {N} value(s) not zero in f32 are flushed to zero in f16 "
                               f"(100.0%; f16's smallest value is 6.0e-08): under --precision-mode force_fp16 the "
                               "model computes in f16; --precision-mode must_keep_origin_dtype keeps the model's f32")
    assert np.all(run.outputs["y"] == 0)


def test_the_hint_names_a_mode_the_device_can_run() -> None:
    """must_keep_origin_dtype rejects an f32 cube op where the cube has no f32
    (310P3), so there the warning names force_fp32, and following it keeps
    the f32 the tiny model's vector ops need."""
    from geir.backends.run_model import RunSettings, prepare, run_prepared, run_warnings
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    runs = {}
    for mode in ("force_fp16", "force_fp32"):
        settings = RunSettings(inputs={"x": x}, compare=False, precision_mode=mode, device="310P3")
        run = run_prepared(prepare(parse_module(tiny_text(False), "tiny.mlir"), settings), settings)
        runs[mode] = run, run_warnings(run, settings)
    [warning] = runs["force_fp16"][1]
    assert warning.message.endswith("--precision-mode force_fp32 keeps f32 in every op but the cube ops, "
                                    "which device 310P3 computes only in f16")
    kept, warnings = runs["force_fp32"]
    assert warnings == [] and np.all(kept.outputs["y"] != 0)
    assert keep_f32_hint("910B2", True) == "--precision-mode must_keep_origin_dtype keeps the model's f32"


def test_the_interpreter_runs_the_graph_as_written() -> None:
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    run = run_path("interpret", x, None)  # f32 as written: nothing to flush
    assert run.f16_underflow == [] and np.all(run.outputs["y"] != 0)


@pytest.mark.parametrize("path", ["sink", "host-driven"])
def test_a_compiled_path_computes_in_the_devices_mode_by_default(path: str) -> None:
    """A host-driven run is compiled like a static graph: with no mode given it
    takes the device's (force_fp16 on the 910B2), and flushes alike."""
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    run = run_path(path, x, None)
    assert [(loc, count.flushed) for loc, count in run.f16_underflow] == [("tiny.mlir:4:8", N)]
    assert np.all(run.outputs["y"] == 0)


def test_geir_interpret_carries_the_counts(tiny_model: Module) -> None:
    import geir
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    run = geir.interpret(tiny_model, {"x": x}, precision_mode="force_fp16")
    assert run.precision_mode == "force_fp16" and run.random_seed is None
    assert [(loc.rsplit(":", 2)[1:], count.flushed) for loc, count in run.f16_underflow] == [(["4", "8"], N)]
    as_written = geir.interpret(tiny_model, seed=3)
    assert as_written.f16_underflow == [] and as_written.random_seed == 3 and as_written.precision_mode is None


def test_geir_emulate_carries_the_counts(tiny_model: Module) -> None:
    import geir
    module = tiny_model.clone()
    PrecisionMode("force_fp16", "910B2").run(module, PassContext())
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    report = geir.emulate(geir.lower(module), inputs={"x": x})
    assert [(count.op, count.flushed) for _, count in report.f16_underflow] == [("ge.mul", N)]
    assert report.f16_underflow[0][0].endswith(":4:8")
    assert geir.emulate(geir.lower(tiny_model), inputs={"x": x}).f16_underflow == []


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), magnitudes)
def test_the_interpreter_and_the_emulator_count_the_same(seed: int, x_exp: float) -> None:
    import geir
    module = scaled_graph("mul")
    task_list = geir.lower(module)
    rng = np.random.default_rng(seed)
    feeds = {"x": (rng.standard_normal(N) * 10 ** x_exp).astype(np.float32),
             "s": rng.uniform(1e-4, 1e-2, N).astype(np.float32)}
    with watch_underflow() as watch:
        interpret(module, feeds)
    interpreted = sorted((count.op, count.flushed, count.nonzero) for _, count in watch)
    emulated = sorted((count.op, count.flushed, count.nonzero)
                      for _, count in geir.emulate(task_list, inputs=feeds).f16_underflow)
    assert interpreted == emulated


def test_an_op_that_overflows_f16_where_f32_stays_finite_is_counted_and_not_listed_as_underflow() -> None:
    def rerun(inputs: list[Any]) -> list[Any]:
        return [inputs[0] * np.float32(1e5)]

    x = np.array([1.0, 2.0, np.inf, 0.5], np.float16)
    with np.errstate(over="ignore"):
        narrow = [(x.astype(np.float32) * np.float32(1e5)).astype(np.float16)]
    with watch_underflow() as watch:
        check_underflow({}, "ge.mul", [x], narrow, rerun)
    # 1e5 and 2e5 overflow f16 (65504), 5e4 does not; the infinite input is infinite in f32 too
    assert watch.overflowed == 2
    assert len(watch) == 0 and list(watch) == []


def test_a_cast_of_integers_past_f16s_largest_value_overflows_f16() -> None:
    """A MatMulInteger's int32 sums cast to f16 (what ``precision-mode`` makes of
    the model's cast to f32) are infinite past 65504: f16's doing, counted."""
    sums = np.array([1000, -70000, 83878, 65504], np.int32)
    with np.errstate(over="ignore"):
        narrow = [sums.astype(np.float16)]
    with watch_underflow() as watch:
        check_underflow({}, "ge.cast", [sums], narrow, lambda inputs: [])
    assert watch.overflowed == 2
    assert len(watch) == 0


@pytest.mark.parametrize("overflowed,blamed", [(None, True), (3, True), (0, False)])
def test_a_non_finite_output_blames_f16_only_when_an_op_overflowed_it(overflowed: int | None, blamed: bool) -> None:
    from geir.report import non_finite_warnings

    outputs = {"y": np.array([np.nan, 1.0], np.float32)}
    [d] = non_finite_warnings(outputs, "force_fp16", f16_overflowed=overflowed, random_seed=7)
    assert ("--precision-mode must_keep_origin_dtype" in d.message) == blamed
    assert ("the model makes them in f32 too" in d.message) == (not blamed)
    assert [n.message.split(";")[0] for n in d.notes] == ["the inputs were random (seed 7)"]
    # under a mode that keeps f32 nothing is said of f16, and given inputs get no note
    [kept] = non_finite_warnings(outputs, "must_keep_origin_dtype", f16_overflowed=0)
    assert kept.message == "output 'y' holds 1 non-finite value(s) of 2" and not kept.notes


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", ["force_fp16", "must_keep_origin_dtype"])
def test_a_model_in_f16_is_not_told_to_keep_an_f32_it_lacks(path: str, mode: str) -> None:
    """An f16 export (``model.half()``) computes in f16 under every mode: its
    underflow is its own, and no mode that keeps f32 would change it."""
    from geir.backends.run_model import RunSettings, interpret_prepared, prepare, run_prepared, run_warnings
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float16)
    module = parse_module(tiny_text(path == "host-driven").replace("f32", "f16"), "tiny.mlir")
    settings = RunSettings(inputs={"x": x}, compare=False, precision_mode=mode,
                           mode="host" if path == "host mode" else "sink")
    prepared = prepare(module, settings, interpret=path == "interpret")
    run = interpret_prepared(prepared, settings) if path == "interpret" else run_prepared(prepared, settings)
    assert run.model_f32 is False
    [warning] = run_warnings(run, settings)
    assert warning.message.startswith("'ge.mul' op: ")
    assert warning.message.endswith("flushed to zero in f16 (100.0%; f16's smallest value is 6.0e-08): the model "
                                    "computes in f16 itself")


OVERFLOWING = (f'ge.graph @main(%x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{\n'
               "  %c = ge.const {value = dense<3.000000e+02> : tensor<f32>} : () -> tensor<f32>\n"
               f"  %a = ge.mul %x, %c : ({T}, tensor<f32>) -> {T}\n"
               f"  %b = ge.mul %a, %c : ({T}, tensor<f32>) -> {T}\n"
               f"  %y = ge.sub %b, %b : ({T}, {T}) -> {T}\n"
               f"  ge.return %y : ({T}) -> ()\n}}\n")


@pytest.mark.parametrize("path", ["sink", "host mode", "interpret"])
def test_the_first_op_to_overflow_f16_is_noted_where_it_is(path: str) -> None:
    """x in [0.5, 2] times 300 fits f16; times 300 again (up to 180,000) does
    not, and the subtraction that follows turns the infinities into NaN: the
    output's warning notes the second multiplication, at its line."""
    from geir.backends.run_model import RunSettings, interpret_prepared, prepare, run_prepared, run_warnings
    x = np.random.default_rng(1).uniform(0.5, 2.0, N).astype(np.float32)
    settings = RunSettings(inputs={"x": x}, compare=False, precision_mode="force_fp16",
                           mode="host" if path == "host mode" else "sink")
    prepared = prepare(parse_module(OVERFLOWING, "over.mlir"), settings, interpret=path == "interpret")
    run = interpret_prepared(prepared, settings) if path == "interpret" else run_prepared(prepared, settings)
    loc, count = run.f16_first_overflow
    assert count.op == "ge.mul" and count.overflowed == int(np.count_nonzero(x * 300 * 300 > 65504))
    [warning] = run_warnings(run, settings)
    assert "--precision-mode must_keep_origin_dtype keeps the model's f32" in warning.message
    [note] = warning.notes  # the inputs were given: no note about random ones
    assert note.message == f"the first op to overflow f16: 'ge.mul' op, {count.overflowed} value(s)"
    assert (note.file_position.line, note.file_position.col) == (4, 8)


def test_a_non_finite_output_blames_f16_when_it_flushed_values_though_nothing_overflowed() -> None:
    """0 / 0 is NaN: a divisor or an epsilon f16 flushed to zero makes NaN that
    f32 does not, with no op overflowing."""
    from geir.report import non_finite_warnings

    outputs = {"y": np.array([np.nan, 1.0], np.float32)}
    [d] = non_finite_warnings(outputs, "force_fp16", f16_overflowed=0, f16_flushed=True)
    assert "the model makes them in f32 too" not in d.message
    assert "f16 flushed values to zero that f32 holds" in d.message
    assert d.message.endswith("--precision-mode must_keep_origin_dtype keeps the model's f32")
    # under a mode that keeps f32, f16 flushed nothing the run could blame
    [kept] = non_finite_warnings(outputs, "must_keep_origin_dtype", f16_overflowed=0, f16_flushed=True)
    assert kept.message == "output 'y" "' holds 1 non-finite value(s) of 2"


# values across f16's range and below its floor (as f32 holds them), and a few not finite
constant_values = st.floats(-1e3, 1e3) | st.floats(-1e-6, 1e-6) | st.sampled_from([np.inf, -np.inf, np.nan])


@settings(max_examples=80, deadline=None)
@given(st.lists(constant_values, min_size=1, max_size=64))
def test_a_constant_is_held_to_the_rule_of_an_op_s_f16_results(values: list[float]) -> None:
    """A converted constant's flushed values are counted as an op's f16 results
    are (``count_flushed``: zero in f16, not zero in f32, and not negligible
    beside its largest finite value), however the count is reached."""
    from geir.backends.kernels.underflow import count_flushed
    from geir.passes.precision_mode import converted_constant, flushed_to_zero

    source = np.array(values, np.float32)
    converted = converted_constant(source, np.dtype(np.float16))
    count = flushed_to_zero("ge.const", source, converted)
    flushed, nonzero = count_flushed(source, converted)
    if flushed == 0:
        assert count is None
    else:
        assert count is not None and (count.flushed, count.nonzero, count.size) == (flushed, nonzero, source.size)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6000), st.floats(-9, 2), st.booleans())
def test_a_large_constant_is_held_to_the_same_rule(seed: int, size: int, scale_exp: float, infinite: bool) -> None:
    """The same beyond the first values the count looks at first (a model's weights)."""
    from geir.backends.kernels.underflow import count_flushed
    from geir.passes.precision_mode import converted_constant, flushed_to_zero

    rng = np.random.default_rng(seed)
    source = (rng.standard_normal(size) * 10.0 ** scale_exp).astype(np.float32)
    if infinite:
        source[rng.integers(0, size)] = np.inf
    converted = converted_constant(source, np.dtype(np.float16))
    count = flushed_to_zero("ge.const", source, converted)
    flushed, nonzero = count_flushed(source, converted)
    if flushed:
        assert count is not None and (count.flushed, count.nonzero) == (flushed, nonzero)
    else:
        assert count is None


def test_a_splat_constant_counts_its_value_once_per_element() -> None:
    from geir.attributes import splat_view
    from geir.passes.precision_mode import converted_constant, flushed_to_zero

    source = splat_view(np.array([1e-12], np.float32), (3, 4))
    count = flushed_to_zero("ge.const", source, converted_constant(source, np.dtype(np.float16)))
    assert count is not None and (count.flushed, count.nonzero, count.size) == (12, 12, 12)


def _epsilons_graph(values: list[str]) -> Module:
    """``y = x + c_0 + c_1 + ...``, one f32 constant per value."""
    lines, last = [], "%x"
    for k, v in enumerate(values):
        lines.append(f"  %c{k} = ge.const {{value = dense<{v}> : {T}}} : () -> {T}")
        lines.append(f"  %s{k} = ge.add {last}, %c{k} : ({T}, {T}) -> {T}")
        last = f"%s{k}"
    return parse_module(f'ge.graph @main(%x: {T} {{ge.name = "x"}}) -> ({T} {{ge.name = "y"}}) {{\n'
                        + "\n".join(lines) + f"\n  ge.return {last} : ({T}) -> ()\n}}\n", "eps.mlir")


def test_the_precision_mode_warns_at_the_first_constants_it_flushes_and_counts_the_others() -> None:
    from geir.passes.pass_manager import PassManager
    module = _epsilons_graph(["1.0e-12"] * (UNDERFLOW_WARNINGS + 2))
    ctx = PassManager([PrecisionMode("force_fp16", "310P3")]).run(module)
    warnings = [d for d in ctx.diagnostics if d.severity == "warning"]
    assert len(warnings) == UNDERFLOW_WARNINGS + 1
    assert all(d.origin == "precision-mode" for d in warnings)
    for k, d in enumerate(warnings[:UNDERFLOW_WARNINGS]):
        assert d.message.startswith(f"'ge.const' op: {N} of its {N} value(s) not zero in f32 are flushed to zero")
        assert d.message.endswith(keep_f32_hint("310P3", cube_fp32=False))
        assert d.file_position is not None and d.file_position.line == 2 * k + 2
    assert warnings[-1].message == "2 more constant(s) flush at least 10% of their values to zero in f16"


def test_a_constant_that_loses_a_thin_tail_or_negligible_values_to_f16_or_keeps_f32_is_not_warned() -> None:
    # 1 of 200 values below f16's floor: under the share, as an op's would be
    tail = "[" + ", ".join(["3.0e-8"] + ["1.0e-5"] * (N - 1)) + "]"
    # a bias whose flushed values are below what f16 rounds off its largest (a BN running mean's 5e-9 beside 0.09)
    negligible = "[" + ", ".join(["5.0e-9", "0.09"] * (N // 2)) + "]"
    for mode, values in (("force_fp16", [tail]), ("force_fp16", [negligible]),
                         ("must_keep_origin_dtype", ["1.0e-12"]), ("allow_fp32_to_fp16", ["1.0e-12"])):
        ctx = PassContext()
        PrecisionMode(mode, "910B2").run(_epsilons_graph(values), ctx)
        assert ctx.diagnostics == [], mode
