"""Every command and API entry on graphs far deeper than Python's recursion
limit: a 20,000-op chain and a 5,000-op graph of splits, concats, skip
connections and matmuls. No algorithm may recurse over the depth of a graph,
so all of this runs at the default limit of 1000 frames.

Each graph is built, imported and scheduled once (module-scoped fixtures); the
cheap per-op entries run on the chain, the expensive ones (scheduling,
lowering, emulation, the tools) on the 5,000-op graph.
"""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import sys
import warnings
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import geir
from geir.attributes import UNIT
from geir.backends.interpreter import interpret
from geir.backends.task_json import module_to_json, task_list_from_json, task_list_to_json
from geir.module import Module
from geir.printer import PrintOptions, module_to_string

CHAIN_OPS = 20_000
BRANCHY_OPS = 5_000
#: the unary ops the chain cycles through; every MATMUL_EVERY-th op is a MatMul
CHAIN_KINDS = ("Relu", "Tanh", "Sigmoid", "Neg")
MATMUL_EVERY = 1000
GENERIC = PrintOptions(generic=True)


@pytest.fixture(scope="module", autouse=True)
def default_recursion_limit() -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(old)


# ------------------------------------------------------------------ graphs


def chain_model(n: int) -> onnx.ModelProto:
    """``n`` ops in one line on a 1x4 f32 tensor: the unary ops of
    :data:`CHAIN_KINDS` in turn, every :data:`MATMUL_EVERY`-th a MatMul by 0.5·I."""
    nodes = []
    current = "x"
    for i in range(n):
        out = f"v{i}"
        if i % MATMUL_EVERY == MATMUL_EVERY - 1:
            nodes.append(helper.make_node("MatMul", [current, "w"], [out]))
        else:
            nodes.append(helper.make_node(CHAIN_KINDS[i % len(CHAIN_KINDS)], [current], [out]))
        current = out
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, [1, 4])],
                              [numpy_helper.from_array(np.eye(4, dtype=np.float32) * 0.5, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def chain_reference(x: np.ndarray, n: int) -> np.ndarray:
    """What :func:`chain_model` computes, in numpy."""
    unary: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "Relu": lambda v: np.maximum(v, 0), "Tanh": np.tanh, "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "Neg": np.negative}
    w = np.eye(4, dtype=np.float32) * 0.5
    for i in range(n):
        x = x @ w if i % MATMUL_EVERY == MATMUL_EVERY - 1 else unary[CHAIN_KINDS[i % len(CHAIN_KINDS)]](x)
    return x


def branchy_model(n: int) -> onnx.ModelProto:
    """About ``n`` ops on a 1x4 f16 tensor, in steps of six: split in halves,
    Relu one and Tanh the other, concat, add the value of ten steps back,
    then Sigmoid (every 50th step a MatMul by 0.5·I)."""
    nodes = []
    current, history = "x", ["x"]
    step = 0
    while len(nodes) < n:
        nodes += [helper.make_node("Split", [current, "halves"], [f"a{step}", f"b{step}"], axis=1),
                  helper.make_node("Relu", [f"a{step}"], [f"ra{step}"]),
                  helper.make_node("Tanh", [f"b{step}"], [f"tb{step}"]),
                  helper.make_node("Concat", [f"ra{step}", f"tb{step}"], [f"c{step}"], axis=1),
                  helper.make_node("Add", [f"c{step}", history[max(0, len(history) - 10)]], [f"s{step}"])]
        if step % 50 == 49:
            nodes.append(helper.make_node("MatMul", [f"s{step}", "w"], [f"o{step}"]))
        else:
            nodes.append(helper.make_node("Sigmoid", [f"s{step}"], [f"o{step}"]))
        current = f"o{step}"
        history.append(current)
        step += 1
    graph = helper.make_graph(nodes, "branchy", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 4])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT16, [1, 4])],
                              [numpy_helper.from_array(np.eye(4, dtype=np.float16) * 0.5, "w"),
                               numpy_helper.from_array(np.array([2, 2], dtype=np.int64), "halves")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def graph_ops(module: Module) -> int:
    """The ops in the module's graph, its terminator included."""
    graph = next(module.graphs())
    return len(graph.regions[0].blocks[0])


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("deep")


@pytest.fixture(scope="module")
def chain_onnx(files: Path) -> Path:
    path = files / "chain.onnx"
    onnx.save(chain_model(CHAIN_OPS), path)
    return path


@pytest.fixture(scope="module")
def branchy_onnx(files: Path) -> Path:
    path = files / "branchy.onnx"
    onnx.save(branchy_model(BRANCHY_OPS), path)
    return path


@pytest.fixture(scope="module")
def chain(chain_onnx: Path) -> Module:
    return geir.import_onnx(chain_onnx)


@pytest.fixture(scope="module")
def branchy(branchy_onnx: Path) -> Module:
    return geir.import_onnx(branchy_onnx)


@pytest.fixture(scope="module")
def branchy_mlir(branchy: Module, files: Path) -> Path:
    path = files / "branchy.mlir"
    path.write_text(str(branchy))
    return path


@pytest.fixture(scope="module")
def scheduled(branchy: Module) -> Module:
    """The 5,000-op graph through ``ge-default``, lowered to an ``rt.model``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", geir.PassWarning)
        return geir.run_pipeline(branchy.clone(), "ge-default")


#: the input the 5,000-op graph is run on
X16 = np.array([[0.5, -1.0, 2.0, 0.25]], np.float16)


@pytest.fixture(scope="module")
def branchy_expected(branchy: Module) -> np.ndarray:
    """The 5,000-op graph's output on :data:`X16`, by the reference interpreter."""
    (y,) = interpret(branchy, {"x": X16}).values()
    return y


def run_main(main: Callable[[Sequence[str]], int], argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------ IR core, on the chain


def test_the_limit_is_python_s_default() -> None:
    assert sys.getrecursionlimit() == 1000


def test_import_onnx_keeps_every_node(chain: Module, branchy: Module) -> None:
    assert graph_ops(chain) >= CHAIN_OPS + 1
    assert graph_ops(branchy) >= BRANCHY_OPS + 1


def test_print_and_parse_round_trip(chain: Module) -> None:
    text = str(chain)
    assert str(geir.parse(text)) == text
    generic = module_to_string(chain, GENERIC)
    assert generic.count("\n") > CHAIN_OPS


def test_generic_form_parses_back(branchy: Module) -> None:
    generic = module_to_string(branchy, GENERIC)
    assert module_to_string(geir.parse(generic), GENERIC) == generic


def test_verify(chain: Module) -> None:
    geir.verify(chain)


def test_clone_and_pickle_give_equal_independent_copies(chain: Module) -> None:
    text = str(chain)
    for copy in (chain.clone(), pickle.loads(pickle.dumps(chain))):
        assert str(copy) == text
        block = next(copy.graphs()).regions[0].blocks[0]
        for op in block.ops:  # the copy's ops are its own: marking them leaves the original as it was
            op.attributes["copied"] = UNIT
    assert str(chain) == text


def test_interpret(chain: Module) -> None:
    x = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)
    (y,) = interpret(chain, {"x": x}).values()
    np.testing.assert_allclose(y, chain_reference(x, CHAIN_OPS), rtol=1e-5, atol=1e-6)


# ------------------------------------- passes, lowering, emulation, on branchy


def test_ge_default_schedules_and_lowers(scheduled: Module) -> None:
    (model,) = [op for op in scheduled.body.ops if op.name == "rt.model"]
    geir.verify(scheduled)


def test_lower_and_emulate_in_both_modes(scheduled: Module, branchy_expected: np.ndarray, files: Path) -> None:
    tasks = geir.lower(scheduled)
    timing = geir.emulate(tasks, timing_only=True)
    assert timing.makespan_us > 0 and not timing.races
    timing.trace(files / "trace.json")
    assert json.loads(timing.to_json())["makespan_us"] == timing.makespan_us
    for mode in ("sink", "host"):
        report = geir.emulate(tasks, mode=mode, inputs={"x": X16})
        assert not report.races
        (actual,) = report.outputs.values()
        np.testing.assert_allclose(actual, branchy_expected, rtol=1e-3, atol=1e-3)


def test_host_driver_launches_the_graph_as_one_segment(branchy: Module, branchy_expected: np.ndarray) -> None:
    from geir.backends.host_control import HostDriver
    driver = HostDriver(branchy)
    (actual,) = driver.run({"x": X16}).values()
    np.testing.assert_allclose(actual, branchy_expected, rtol=1e-3, atol=1e-3)
    assert len(driver.launches) == 1 and not driver.launches[0].findings


def test_task_json_round_trip(scheduled: Module) -> None:
    text = module_to_json(scheduled)
    assert task_list_to_json(task_list_from_json(text)) == text


# ---------------------------------------------------- the tools, in process


def test_ge_translate_imports_onnx(branchy_onnx: Path, branchy: Module, files: Path) -> None:
    from geir.tools.ge_translate import main
    out = files / "imported.mlir"
    code, _, err = run_main(main, ["--import-onnx", str(branchy_onnx), "-o", str(out)])
    assert code == 0, err
    assert out.read_text() == str(branchy)


def test_ge_opt_runs_a_pipeline(branchy_mlir: Path, branchy: Module, files: Path) -> None:
    from geir.tools.ge_opt import main
    out = files / "opt.mlir"
    code, _, err = run_main(main, [str(branchy_mlir), "--pass-pipeline=canonicalize,cse,assign-engines",
                                   "--mlir-print-op-generic", "-o", str(out)])
    assert code == 0, err
    assert graph_ops(geir.parse(out.read_text())) == graph_ops(branchy)


def test_ge_run_compiles_compares_and_emulates(branchy_mlir: Path) -> None:
    from geir.tools.ge_run import main
    pipeline = "assign-engines,partition-streams{strategy=ge},insert-events,reuse-memory,lower-to-tasks"
    code, out, err = run_main(main, [str(branchy_mlir), "--timing-only", "--pipeline", pipeline])
    assert code == 0, err
    assert "races           none" in out and "deadlock        none" in out
