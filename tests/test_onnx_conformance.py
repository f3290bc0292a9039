"""ONNX backend conformance: ONNX's own backend test suite through geir's
``onnx.backend`` implementation (import with ``geir.onnx_importer``, run with
the reference interpreter), compared by ONNX's own ``assert_similar_outputs``
with each case's tolerances.

* node cases: every case ``onnx.backend.test.case.node.collect_testcases``
  generates in memory (model, inputs, expected outputs);
* model cases: the models shipped in ``onnx/backend/test/data`` -- ``simple``,
  ``pytorch-converted``, ``pytorch-operator`` (``test_data_set_*`` folders) and
  ``real`` (the ``light_*`` models: inputs generated as ONNX's runner does,
  expected outputs from ``light_*_output_0.pb``).

The cases we do not pass are listed, one per line with a categorised reason, in
``onnx_conformance_exclusions.txt``; everything else must pass, and an excluded
case that starts passing is reported so the list cannot rot.
"""

from __future__ import annotations

import functools
import glob
import os
import pathlib
import time
import traceback
import warnings
from typing import Any, Iterator

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.backend.test.case.node import collect_testcases
from onnx.backend.test.case.test_case import TestCase
from onnx.backend.test.loader import load_model_tests
from onnx.backend.test.runner import Runner

from geir.backends.onnx_backend import GeirBackend

EXCLUSIONS_FILE = pathlib.Path(__file__).with_name("onnx_conformance_exclusions.txt")
#: the folders of onnx/backend/test/data we run ("real" holds the light_* models)
MODEL_KINDS = ("simple", "pytorch-converted", "pytorch-operator", "real")
#: exclusion categories, the first word of a reason (``name # type: ...``)
CATEGORIES = {
    "training": "a training op (ai.onnx.preview.training)",
    "type": "a type geir chose not to support (sequence, optional, string, 4-bit/e8m0 floats)",
    "random": "random outputs: ONNX's expected values come from one particular random stream",
    "dependency": "ONNX's reference implementation needs a package that is not a dependency (these may "
                  "pass where it happens to be installed)",
    "precision": "ONNX's expected values are computed at a lower precision than our kernel's",
    "machine": "the outcome depends on the machine's floating-point summation order (these may pass on some "
               "machines)",
    "kernel": "a numpy kernel bug, reported to the kernel library's owner",
    "unsupported": "a construct geir does not import (named in the reason)",
    "invalid": "statically invalid IR that ONNX accepts because it never runs",
}


# ------------------------------------------------------------------ the cases


def _load_exclusions() -> dict[str, tuple[str, str]]:
    """``case name -> (category, reason)`` from the exclusions file."""
    out: dict[str, tuple[str, str]] = {}
    for number, line in enumerate(EXCLUSIONS_FILE.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, reason = line.partition(" # ")
        category, colon, _ = reason.partition(":")
        if not sep or not colon or category.strip() not in CATEGORIES:
            raise ValueError(f"{EXCLUSIONS_FILE.name}:{number}: expected 'case_name # category: reason' "
                             f"with a category of {sorted(CATEGORIES)}")
        if name.strip() in out:
            raise ValueError(f"{EXCLUSIONS_FILE.name}:{number}: '{name.strip()}' is listed twice")
        out[name.strip()] = (category.strip(), reason.strip())
    return out


def _node_cases() -> dict[str, TestCase]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # numpy warns on the edge cases ONNX generates
        return {case.name: case for case in collect_testcases(None)}


def _model_cases() -> dict[str, TestCase]:
    return {case.name: case for kind in MODEL_KINDS for case in load_model_tests(kind=kind)}


NODE_CASES = _node_cases()
MODEL_CASES = _model_cases()
assert not set(NODE_CASES) & set(MODEL_CASES), "node and model case names collide"
EXCLUSIONS = _load_exclusions()


def _read_tensor_file(path: str, type_proto: onnx.TypeProto) -> Any:
    """A test-data ``.pb`` as the runner reads it (tensor, sequence or optional)."""
    with open(path, "rb") as f:
        data = f.read()
    if type_proto.HasField("sequence_type"):
        seq = onnx.SequenceProto()
        seq.ParseFromString(data)
        return numpy_helper.to_list(seq)
    if type_proto.HasField("optional_type"):
        opt = onnx.OptionalProto()
        opt.ParseFromString(data)
        return numpy_helper.to_optional(opt)
    tensor = onnx.TensorProto()
    tensor.ParseFromString(data)
    return numpy_helper.to_array(tensor)


def _data_sets(case: TestCase, model: onnx.ModelProto) -> Iterator[tuple[list[Any], list[Any]]]:
    """(inputs, expected outputs) of a model case, as ONNX's runner builds them."""
    if case.url is not None:  # a light_* model: inputs generated, outputs shipped next to it
        path = _light_path(case)
        initializers = {t.name for t in model.graph.initializer}
        inputs = [Runner.generate_dummy_data(x, seed=0, name=case.model_name, random=False)
                  for x in model.graph.input if x.name not in initializers]
        outputs = [numpy_helper.to_array(onnx.load_tensor(f"{path[:-5]}_output_{i}.pb"))
                   for i in range(len(model.graph.output))]
        yield inputs, outputs
        return
    assert case.model_dir is not None
    for folder in sorted(glob.glob(os.path.join(case.model_dir, "test_data_set*"))):
        n_in = len(glob.glob(os.path.join(folder, "input_*.pb")))
        n_out = len(glob.glob(os.path.join(folder, "output_*.pb")))
        yield ([_read_tensor_file(os.path.join(folder, f"input_{i}.pb"), model.graph.input[i].type)
                for i in range(n_in)],
               [_read_tensor_file(os.path.join(folder, f"output_{i}.pb"), model.graph.output[i].type)
                for i in range(n_out)])


def _light_path(case: TestCase) -> str:
    assert case.url is not None
    return os.path.join(os.path.dirname(onnx.__file__), os.path.relpath(case.url, "onnx"))


def _load(case: TestCase) -> tuple[onnx.ModelProto, list[tuple[list[Any], list[Any]]]]:
    if case.model is not None:  # a node case: everything in memory
        return case.model, [([_as_array(x) for x in ins], [_as_array(y) for y in outs])
                            for ins, outs in case.data_sets or []]
    path = _light_path(case) if case.url is not None else os.path.join(case.model_dir or "", "model.onnx")
    model = onnx.load(path)
    return model, list(_data_sets(case, model))


def _as_array(value: Any) -> Any:
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else value


def run_case(case: TestCase) -> None:
    """Prepare the model with our backend, run every data set, compare as ONNX does."""
    model, data_sets = _load(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = GeirBackend.prepare(model)
        for inputs, expected in data_sets:
            outputs = rep.run(inputs)
            Runner.assert_similar_outputs(expected, outputs, rtol=case.rtol, atol=case.atol)


ALL_CASES: dict[str, TestCase] = {**NODE_CASES, **MODEL_CASES}


@functools.cache
def case_result(name: str) -> tuple[str | None, float]:
    """(failure text or None, seconds) of one case, run once per session."""
    start = time.perf_counter()
    try:
        run_case(ALL_CASES[name])
    except Exception as e:  # noqa: BLE001 - every failure is reported with its cause
        text = e.format() if hasattr(e, "format") else traceback.format_exc(limit=-4)
        return str(text), time.perf_counter() - start
    return None, time.perf_counter() - start


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("name", sorted(n for n in NODE_CASES if n not in EXCLUSIONS))
def test_node(name: str) -> None:
    """An ONNX node test case reproduces ONNX's expected outputs."""
    failure, _ = case_result(name)
    assert failure is None, failure


@pytest.mark.parametrize("name", sorted(n for n in MODEL_CASES if n not in EXCLUSIONS))
def test_model(name: str) -> None:
    """A model shipped with onnx reproduces its expected outputs."""
    failure, _ = case_result(name)
    assert failure is None, failure


def test_conformance_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """Every exclusion names a real case that still fails; print the counts."""
    unknown = sorted(set(EXCLUSIONS) - set(ALL_CASES))
    assert not unknown, f"{EXCLUSIONS_FILE.name} lists cases that do not exist: {unknown}"
    results = {name: case_result(name) for name in sorted(ALL_CASES)}
    seconds = sum(s for _, s in results.values())
    # (whether a missing package is installed, or how the machine sums, depends on the environment: not stale)
    passing_exclusions = sorted(n for n, (category, _) in EXCLUSIONS.items()
                                if results[n][0] is None and category not in ("dependency", "machine"))
    failed = sorted(n for n, (f, _) in results.items() if f is not None and n not in EXCLUSIONS)

    def counts(names: list[str]) -> tuple[int, int, int]:
        passed = sum(1 for n in names if results[n][0] is None and n not in EXCLUSIONS)
        return passed, sum(1 for n in names if n in EXCLUSIONS), len(names)

    node_passed, node_excluded, node_total = counts(list(NODE_CASES))
    model_passed, model_excluded, model_total = counts(list(MODEL_CASES))
    type_excluded = sum(1 for n in NODE_CASES if EXCLUSIONS.get(n, ("",))[0] == "type")
    supported = node_total - type_excluded
    by_category: dict[str, int] = {}
    for category, _ in EXCLUSIONS.values():
        by_category[category] = by_category.get(category, 0) + 1
    slowest = sorted(((s, n) for n, (_, s) in results.items()), reverse=True)[:3]
    with capsys.disabled():
        print(f"\nONNX conformance: node cases {node_passed} passed / {node_excluded} excluded / {node_total} "
              f"total; model cases {model_passed} passed / {model_excluded} excluded / {model_total} total")
        print(f"  node cases passing among those not about unsupported types: {node_passed}/{supported} = "
              f"{100.0 * node_passed / supported:.1f}%")
        print("  exclusions by category: " + ", ".join(f"{k} {v}" for k, v in sorted(by_category.items())))
        print(f"  the cases took {seconds:.1f} s; slowest: " + ", ".join(f"{n} {s:.2f} s" for s, n in slowest))
    assert not failed, f"cases failing without an exclusion: {failed}"
    assert not passing_exclusions, (f"excluded cases that now pass (remove them from {EXCLUSIONS_FILE.name}): "
                                    f"{passing_exclusions}")
    assert node_passed >= 0.9 * supported


def test_onnx_runner_drives_the_backend() -> None:
    """ONNX's own ``BackendTest`` runner accepts GeirBackend (a few cases of each kind)."""
    import unittest

    import onnx.backend.test
    runner = onnx.backend.test.BackendTest(GeirBackend, __name__)
    runner.include(r"^(test_relu|test_conv_with_strides_padding|test_if|test_loop11|test_single_relu_model|"
                   r"test_shufflenet)_cpu$")
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(case)
                               for case in runner.test_cases.values())
    with warnings.catch_warnings(), open(os.devnull, "w") as sink:
        warnings.simplefilter("ignore")
        result = unittest.TextTestRunner(stream=sink, verbosity=0).run(suite)
    ran = result.testsRun - len(result.skipped)
    assert ran == 6 and result.wasSuccessful(), (ran, result.failures, result.errors)
