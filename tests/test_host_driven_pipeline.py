"""A host-driven run compiles its segments as GE compiles a dynamic graph.

GE runs a graph with data-dependent sizes on runtime v2: its known-shape
subgraphs are task-sink sub-models with the static build's streams, and the rest
runs on one stream (``dynamic_stream_allocator.cc``). ``ge-run`` does the same:
a segment whose shapes the graph fixes goes through the run's pipeline (its
stream budget, fusion and precision mode), one whose shapes only the run decides
keeps one stream. Either way the numbers are onnx.reference's.
"""

from __future__ import annotations

import numpy as np
import onnx
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from geir.backends.host_control import known_shape
from geir.backends.run_model import RunSettings, prepare, run_prepared
from geir.report import RunReport
from geir.onnx_importer import import_onnx
from geir.parser import parse_module

F = TensorProto.FLOAT


def branchy_nonzero(branches: int, depth: int, rows: int, tail_branches: int = 1) -> onnx.ModelProto:
    """``branches`` independent chains of ``depth`` MatMuls on x (rows x 32),
    summed and rectified, then NonZero (a size only the values decide) and
    ``tail_branches`` independent ops on its result, concatenated."""
    nodes, inits, ends = [], [], []
    for b in range(branches):
        w = np.random.default_rng(b).uniform(-0.3, 0.3, (32, 32)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{b}"))
        prev = "x"
        for k in range(depth):
            nodes.append(helper.make_node("MatMul", [prev, f"w{b}"], [f"m{b}_{k}"]))
            prev = f"m{b}_{k}"
        ends.append(prev)
    total = ends[0]
    for i, e in enumerate(ends[1:]):
        nodes.append(helper.make_node("Add", [total, e], [f"s{i}"]))
        total = f"s{i}"
    nodes += [helper.make_node("Relu", [total], ["r"]), helper.make_node("NonZero", ["r"], ["nz"])]
    tails = []
    for t in range(tail_branches):
        nodes.append(helper.make_node("Cast", ["nz"], [f"c{t}"], to=F))
        nodes.append(helper.make_node("Mul" if t % 2 else "Add", [f"c{t}", f"c{t}"], [f"t{t}"]))
        tails.append(f"t{t}")
    nodes.append(helper.make_node("Concat", tails, ["y"], axis=0))
    graph = helper.make_graph(nodes, "branchy", [helper.make_tensor_value_info("x", F, [rows, 32])],
                              [helper.make_tensor_value_info("y", F, ["rows", "nonzeros"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model


def run(model: onnx.ModelProto, x: np.ndarray, **options: object) -> RunReport:
    """``model`` run as ge-run runs it (the library function the command calls)."""
    settings = RunSettings(inputs={"x": x}, compare=False, **options)  # type: ignore[arg-type]
    prepared = prepare(import_onnx(model), settings)
    assert prepared.kind == "host"
    return run_prepared(prepared, settings)


def streams_of(report: RunReport) -> list[int]:
    return [launch["streams"] for launch in report.fields["launches"]]


def test_a_known_shape_segment_gets_the_pipelines_streams_and_the_rest_one() -> None:
    model = branchy_nonzero(branches=4, depth=3, rows=16, tail_branches=3)
    x = np.random.default_rng(0).uniform(-1, 1, (16, 32)).astype(np.float32)
    report = run(model, x)
    first, *rest = streams_of(report)
    assert first > 1  # four small MatMul chains: the cost strategy spreads them
    assert rest and all(s == 1 for s in rest)  # after NonZero: the run decides the shapes
    assert report.fields["precision_mode"] == "force_fp16"  # the 910B2's default, as for a static graph
    assert set(streams_of(run(model, x, streams=1))) == {1}


@settings(max_examples=8, deadline=None)
@given(branches=st.integers(1, 4), depth=st.integers(1, 3), rows=st.sampled_from([1, 5, 16]),
       tails=st.integers(1, 3), streams=st.sampled_from([None, 1, 3]), seed=st.integers(0, 2**16))
def test_compiled_segments_compute_what_onnx_reference_computes(branches: int, depth: int, rows: int, tails: int,
                                                               streams: int | None, seed: int) -> None:
    model = branchy_nonzero(branches, depth, rows, tails)
    x = np.random.default_rng(seed).uniform(-1, 1, (rows, 32)).astype(np.float32)
    report = run(model, x, precision_mode="must_keep_origin_dtype", streams=streams)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(report.outputs["y"], expected, rtol=1e-5, atol=1e-5)
    assert report.fields["findings"] == []  # every launch race- and deadlock-free
    if streams is not None:
        assert max(streams_of(report)) <= streams


def test_a_segment_isknown_shape_when_the_graph_fixes_all_it_reads_and_writes() -> None:
    module = parse_module("""
ge.graph @main(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<2x?xi64> {ge.name = "nz"}) {
  %r = ge.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %nz = ge.nonzero %r : (tensor<4x8xf32>) -> tensor<2x?xi64>
  %n = ge.neg %nz : (tensor<2x?xi64>) -> tensor<2x?xi64>
  ge.return %n : (tensor<2x?xi64>) -> ()
}
""", "known.mlir")
    relu, nonzero, neg, _ = list(next(module.graphs()).regions[0].blocks[0].ops)
    assert known_shape([relu])
    assert not known_shape([nonzero]) and not known_shape([neg])


@settings(max_examples=6, deadline=None)
@given(branches=st.integers(1, 3), rows=st.sampled_from([1, 16]), tails=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_segments_compute_in_the_types_the_whole_graph_was_given(branches: int, rows: int, tails: int,
                                                                 seed: int) -> None:
    """The precision mode retypes the graph once, before it is split (as GE
    retypes a graph before it partitions it): under force_fp16 the launches
    give what the interpreter gives for the same retyped graph."""
    import geir
    model = branchy_nonzero(branches, 2, rows, tails)
    x = np.random.default_rng(seed).uniform(-1, 1, (rows, 32)).astype(np.float32)
    report = run(model, x, precision_mode="force_fp16")
    interpreted = geir.interpret(import_onnx(model), {"x": x}, precision_mode="force_fp16")
    np.testing.assert_allclose(report.outputs["y"], interpreted.outputs["y"], rtol=2e-3, atol=2e-3)


def test_the_precision_mode_retypes_the_graph_once_not_each_segment_again() -> None:
    """What the graph-wide precision pass leaves in f32 (a Scan's body here:
    x * 30000 + 40000, past f16's 65504) stays f32 in its launches, as the
    interpreter computes the same retyped graph: a second pass per segment
    would overflow it."""
    import geir
    body = helper.make_graph(
        [helper.make_node("Mul", ["row", "big"], ["xb"]), helper.make_node("Add", ["xb", "big2"], ["t"]),
         helper.make_node("Identity", ["s_in"], ["s_out"])], "body",
        [helper.make_tensor_value_info("s_in", F, [8]), helper.make_tensor_value_info("row", F, [8])],
        [helper.make_tensor_value_info("s_out", F, [8]), helper.make_tensor_value_info("t", F, [8])],
        [numpy_helper.from_array(np.array(30000, np.float32), "big"),
         numpy_helper.from_array(np.array(40000, np.float32), "big2")])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["s", "x"], ["s_last", "y"], body=body, num_scan_inputs=1),
         helper.make_node("NonZero", ["x"], ["nz"])], "scan_then_nonzero",
        [helper.make_tensor_value_info("s", F, [8]), helper.make_tensor_value_info("x", F, [4, 8])],
        [helper.make_tensor_value_info("y", F, [4, 8]), helper.make_tensor_value_info("nz", TensorProto.INT64, [2, "n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    feeds = {"s": np.zeros(8, np.float32), "x": np.random.default_rng(0).uniform(1, 2, (4, 8)).astype(np.float32)}
    settings = RunSettings(inputs=feeds, compare=False)
    report = run_prepared(prepare(import_onnx(model), settings), settings)
    interpreted = geir.interpret(import_onnx(model), feeds, precision_mode="force_fp16")
    assert np.all(np.isfinite(interpreted.outputs["y"]))
    np.testing.assert_allclose(report.outputs["y"], interpreted.outputs["y"], rtol=1e-6)
