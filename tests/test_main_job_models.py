"""The main job on real models: ``ge-run M.onnx`` at its defaults (the
``ge-default`` pipeline, the single-stream comparison, the graph bound, the
memory plan, numerics; in f32, see ``KEEP_F32``, and at the device's default
f16 where f16 holds the model's values, see ``PEAK_ACTIVATION``) on the
``light_*`` models onnx ships, and the ``geir.RunReport`` that command is made
of (three models by default; ``GEIR_LIGHT_MODELS=all`` for every one).

Each model runs once per session (a module-scoped fixture): the command runs
in this process with ``--report json -o out.npz`` while the run it calls
(:func:`geir.backends.run_model.run_prepared`, what ``geir.run_model`` calls)
is watched, so one run checks both the command's output and the report
object. The outputs are compared with ``onnx.reference`` on the same inputs,
its BatchNormalization and (before opset 13) Softmax replaced by what the
models' opset defines: as shipped, they take the newest schema's defaults.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

LIGHT = pathlib.Path(os.path.dirname(onnx.__file__)) / "backend" / "test" / "data" / "light"
ALL_MODELS = sorted(p.stem for p in LIGHT.glob("light_*.onnx")) if LIGHT.is_dir() else []
#: what a test session runs by default: a chain, residual blocks and grouped
#: branches, 15-30 s each; GEIR_LIGHT_MODELS=all (or a comma-separated list)
#: runs the others (the cost strategy's search and onnx.reference at 224x224)
DEFAULT_MODELS = ["light_bvlc_alexnet", "light_resnet50", "light_shufflenet"]


def _chosen() -> list[str]:
    wanted = os.environ.get("GEIR_LIGHT_MODELS", "").strip()
    if wanted == "all":
        return ALL_MODELS
    names = [n if n.startswith("light_") else f"light_{n}" for n in wanted.split(",") if n] or DEFAULT_MODELS
    return [n for n in names if n in ALL_MODELS]


MODELS = _chosen()

# The light models' weights are one constant each (0.02): their activations grow
# far past f16's range (squeezenet's reach 1e11), so the device's default f16
# (ATC's force_fp16) overflows, as it would on the device. The runs keep the
# model's f32 and are compared with the f32 reference.
KEEP_F32 = (["--precision-mode", "must_keep_origin_dtype"]
            if importlib.util.find_spec("geir.passes.precision_mode") is not None else [])
RTOL, ATOL = 1e-3, 1e-6

#: The largest |activation| of each light model on ge-run's random inputs
#: (standard normal), measured in f32 with onnxruntime. Each model's weights are
#: one constant, so each layer multiplies the magnitude by about fan-in x 0.02;
#: past f16's largest value (65504) the device's default f16 overflows to inf,
#: and the softmax at the end makes inf - inf = NaN. In brackets, the first
#: tensor past 65504. (light_resnet50's NaN is that overflow, not a defect: its
#: f16 run follows f32 to 0.5% up to r50, whose largest value is 8.9e3; r51
#: reaches 2.0e5.)
PEAK_ACTIVATION = {
    "light_bvlc_alexnet": 7.9e11,  # (r12: conv3)
    "light_densenet121": 294.0,
    "light_inception_v1": 8.3e20,  # (r28)
    "light_inception_v2": 1.5e3,
    "light_resnet50": 9.7e18,  # (r51: the third stage's first block)
    "light_shufflenet": 18.4,
    "light_squeezenet": 9.0e9,  # (r44)
    "light_vgg19": 2.6e31,  # (r12)
    "light_zfnet512": 1.25e12,  # (r12)
}
F16_MAX = 65504.0
#: the models run at the default precision too: those whose values f16 holds,
#: and (only when chosen by GEIR_LIGHT_MODELS) those that overflow, for the warning
F16_MODELS = [m for m in MODELS if PEAK_ACTIVATION.get(m, F16_MAX) < F16_MAX
              or os.environ.get("GEIR_LIGHT_MODELS", "").strip()]
#: f16 keeps 11 significant bits; through tens of layers the outputs' relative
#: error stays within a few 1e-3 of the largest output
F16_RTOL = 2e-2


def _ge_run(name: str, flags: list[str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``ge-run`` of a light model with ``flags``: its exit code, JSON
    report, written outputs and the RunReport the command printed."""
    import contextlib
    import io

    import geir.backends.run_model as run_model
    from geir.tools.ge_run import main as ge_run

    path = LIGHT / f"{name}.onnx"
    out = tmp_path_factory.mktemp(name) / "outputs.npz"
    seen: list[Any] = []
    original = run_model.run_prepared

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(original(*args, **kwargs))
        return seen[-1]

    stdout, stderr = io.StringIO(), io.StringIO()
    run_model.run_prepared = watched  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = ge_run([str(path), *flags, "--report", "json", "-o", str(out)])
    finally:
        run_model.run_prepared = original  # type: ignore[assignment]
    assert code == 0, stderr.getvalue()
    assert len(seen) == 1
    written = dict(np.load(out)) if out.exists() else {}
    return {"path": path, "json": json.loads(stdout.getvalue()), "stdout": stdout.getvalue(),
            "stderr": stderr.getvalue(), "outputs": written, "report": seen[0]}


@pytest.fixture(scope="module", params=MODELS)
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``ge-run M.onnx`` keeping the model's f32."""
    return _ge_run(request.param, KEEP_F32, tmp_path_factory)


@pytest.fixture(scope="module", params=F16_MODELS)
def run_f16(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``ge-run M.onnx`` at the device's default precision mode (force_fp16):
    one more run per model (about 25 s for light_shufflenet, the only one by
    default), the numerics a user of the main command gets."""
    return _ge_run(request.param, [], tmp_path_factory)


#: onnx.reference's outputs by model, with the inputs they are for: the f32 and
#: the f16 runs draw the same random inputs, and the reference is slow
_REFERENCES: dict[pathlib.Path, tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = {}


def _reference(path: pathlib.Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    known = _REFERENCES.get(path)
    if known is not None and known[0].keys() == inputs.keys() \
            and all(np.array_equal(known[0][k], inputs[k]) for k in inputs):
        return known[1]
    _REFERENCES[path] = (dict(inputs), _evaluate(path, inputs))
    return _REFERENCES[path][1]


def _inference_batch_norm() -> type:
    """BatchNormalization as opsets 9-13 define it for one output (inference: the
    running mean and variance). onnx.reference's ``BatchNormalization_9`` takes
    the schema's default momentum (0.9) for a training step and mixes in the
    batch's own statistics, which light_densenet121's opset-9 model exposes."""
    from onnx.reference.op_run import OpRun

    class BatchNormalization(OpRun):
        op_domain = ""

        def _run(self, x, scale, bias, mean, var, epsilon=None, momentum=None,  # type: ignore[no-untyped-def]
                 training_mode=None, spatial=None):
            shape = (1, -1) + (1,) * (x.ndim - 2)
            eps = 1e-5 if epsilon is None else epsilon
            y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape) \
                + bias.reshape(shape)
            return (y.astype(x.dtype),)

    return BatchNormalization


def _coerced_softmax() -> type:
    """Softmax as opsets 1-12 define it: the input coerced to 2-D at ``axis``
    (default 1), normalised over the second dimension. onnx.reference takes
    opset 13's default axis (-1) and normalises over it alone: light_squeezenet's
    N x 1000 x 1 x 1 output, over its last axis of size 1, comes out 1 everywhere.
    (The schema's default reaches ``_run`` too, so the node's own attribute decides.)"""
    from onnx.reference.op_run import OpRun

    class Softmax(OpRun):
        op_domain = ""

        def _run(self, x, axis=None):  # type: ignore[no-untyped-def]
            written = any(a.name == "axis" for a in self.onnx_node.attribute)
            axis = axis % x.ndim if written and axis is not None else 1
            flat = x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)
            e = np.exp(flat - flat.max(axis=1, keepdims=True))
            return ((e / e.sum(axis=1, keepdims=True)).reshape(x.shape).astype(x.dtype),)

    return Softmax


def _evaluate(path: pathlib.Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(str(path))
    names = [o.name for o in model.graph.output]
    feeds = {i.name: inputs[i.name] for i in model.graph.input if i.name in inputs}
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    fixed = [_inference_batch_norm()] + ([_coerced_softmax()] if opset < 13 else [])
    evaluator = ReferenceEvaluator(model, new_ops=fixed)
    return dict(zip(names, evaluator.run(None, feeds)))


#: models whose classifier's logits all tie: one weight constant makes every
#: class's logit the same sum, of about 1e9 in light_squeezenet, where one f32
#: unit in the last place is 64, so the order a kernel adds in picks the
#: softmax's winners (the reference: 1/1000 each; geir's 1 x 1 convolution: a
#: few classes share it). Only what every order agrees on is compared.
TIED_LOGITS = {"light_squeezenet"}


def test_outputs_match_onnx_reference(run: dict[str, Any]) -> None:
    report = run["report"]
    assert report.input_arrays, "the run drew random inputs"
    expected = _reference(run["path"], report.input_arrays)
    assert set(run["outputs"]) == set(expected) == set(report.outputs)
    for name, want in expected.items():
        got = run["outputs"][name]
        if run["path"].stem in TIED_LOGITS:
            np.testing.assert_allclose(got.sum(axis=1), want.sum(axis=1), rtol=RTOL, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=name)
        np.testing.assert_array_equal(got, report.outputs[name])


def test_no_race_and_no_deadlock(run: dict[str, Any]) -> None:
    data = run["json"]
    assert data["races"] == [] and data["deadlock"] is None
    assert run["report"].clean and run["report"].findings == []


def test_report_is_complete(run: dict[str, Any]) -> None:
    """At the defaults the report has the comparison with a single stream,
    the emulator's bound, the graph's bound and the memory plan against its bound."""
    data, report = run["json"], run["report"]
    assert data["pipeline"].startswith("ge-default") and "device=910B2" in data["pipeline"]
    single = data["single_stream"]
    assert single["makespan_us"] > 0
    assert single["speedup"] == pytest.approx(single["makespan_us"] / data["makespan_us"], abs=1e-4)
    # no plan runs below the bounds: the emulator's of the program, the graph's of any plan
    assert 0 < data["lower_bound_us"] <= data["makespan_us"] * (1 + 1e-9)
    assert data["graph_lower_bound"]["bound_us"] > 0
    plan = data["memory_plan"]
    assert plan["lower_bound_bytes"] <= plan["arena_bytes"] <= plan["no_reuse_bytes"]
    assert data["engines"] and data["streams"]
    assert report.speedup == single["speedup"] and report.graph_bound == data["graph_lower_bound"]
    assert report.memory_plan == plan and report.makespan_us == data["makespan_us"]


def test_command_prints_the_report_object(run: dict[str, Any]) -> None:
    """``--report json`` is ``to_json()``; the text mode is ``format_text()``
    (printed here from the same report, as ge-run prints it)."""
    import argparse
    import contextlib
    import io

    from geir.tools.ge_run import print_report
    report = run["report"]
    assert run["stdout"] == report.to_json() + "\n"
    text = io.StringIO()
    args = argparse.Namespace(report="text", output=None, trace=None, timeline=None, memory_timeline=None)
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()):
        assert print_report(report, args) == 0
    assert text.getvalue() == report.format_text()
    for line in ("speed-up over single stream", "graph bound", "memory plan", "races           none",
                 "deadlock        none"):
        assert line in text.getvalue()


def test_default_precision_matches_onnx_reference_where_f16_holds(run_f16: dict[str, Any]) -> None:
    """At the defaults, a model whose values stay within f16's range gives the
    f32 reference's outputs to f16's precision, with no warning; one whose
    values leave it gets a warning naming each output that holds non-finite
    values, their count and the mode that keeps f32 (never a silent NaN)."""
    report = run_f16["report"]
    assert "precision-mode" not in run_f16["json"]["pipeline"]  # the device's default
    expected = _reference(run_f16["path"], report.input_arrays)
    name = run_f16["path"].stem
    if PEAK_ACTIVATION[name] < F16_MAX:
        assert report.non_finite_outputs == {} and "warning" not in run_f16["stderr"]
        for out, want in expected.items():
            scale = float(np.abs(want).max())
            np.testing.assert_allclose(run_f16["outputs"][out], want, rtol=F16_RTOL, atol=F16_RTOL * scale,
                                       err_msg=out)
        return
    assert report.non_finite_outputs, "f16 overflowed, as measured"
    for out, count in report.non_finite_outputs.items():
        assert f"warning: output '{out}' holds {count} non-finite value(s)" in run_f16["stderr"]
    assert "--precision-mode must_keep_origin_dtype keeps the model's f32" in run_f16["stderr"]
