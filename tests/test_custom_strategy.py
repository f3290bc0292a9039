"""User stream strategies (``geir.register_strategy``, the ``geir.strategies``
entry points) as a specification: a registered function runs from a pipeline
on a read-only view of the problem; what it returns is checked (any plan that
keeps the rules is accepted, any that breaks one is a located error, never a
traceback); registration refuses what worker processes could not find; and the
guide shows the example files it tests."""

from __future__ import annotations

import pathlib
import random
import re

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geir
from geir.passes.scheduling import strategy_registry
from geir.passes.scheduling.stream_plan import StreamPlan

from scheduling_graphs import dags, random_dag_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: what the strategy below last saw and must return (module state: the strategy is a top-level function)
_seen: list[object] = []
_answer: list[object] = []


def replay(problem: object) -> object:
    """A strategy that records its view and returns what the test set."""
    _seen.append(problem)
    return _answer[-1] if _answer else _random_valid_plan(problem, random.Random(0))  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def registered() -> None:
    geir.register_strategy("replay", replay)
    _seen.clear()
    _answer.clear()


_LEARN = object()  # no answer set: replay returns a valid plan


def _run(text: str, answer: object = _LEARN, max_streams: int = 3) -> geir.Module:
    _answer.clear()
    if answer is not _LEARN:
        _answer.append(answer)
    module = geir.parse(text)
    geir.run_pipeline(module, f"assign-engines,partition-streams{{strategy=replay max-streams={max_streams}}},"
                              "insert-events")
    return module


def _streams(module: geir.Module) -> list[int]:
    graph = next(module.graphs())
    return [op.get_attr("stream") for op in graph.regions[0].blocks[0].ops
            if op.get_attr("stream") is not None and not op.name.endswith("_event")]


def _random_valid_plan(view: strategy_registry.StrategyProblem, rng: random.Random) -> list[int]:
    labels = sorted({x for x in view.labels if x is not None})
    return [view.max_streams + labels.index(x) if x is not None else rng.randrange(view.max_streams)
            for x in view.labels]


@SETTINGS
@given(dags(2, 20), st.integers(1, 4), st.integers(0, 2), st.integers(0, 1000))
def test_any_plan_that_keeps_the_rules_is_applied(dag: tuple[int, int], budget: int, labels: int, seed: int) -> None:
    text = random_dag_text(*dag, labels=labels)
    _run(text, max_streams=budget)  # learn the view
    view = _seen[-1]
    assert isinstance(view, strategy_registry.StrategyProblem) and view.max_streams == budget
    plan = _random_valid_plan(view, random.Random(seed))
    streams = _streams(_run(text, plan, budget))
    # applied up to GE's renumbering by first use: the same partition of the ops
    assert [len({s for s, p in zip(streams, plan) if p == q}) for q in set(plan)] == [1] * len(set(plan))


def test_the_view_is_read_only_and_describes_the_graph() -> None:
    text = random_dag_text(12, 5, labels=1)
    _run(text)
    view = _seen[-1]
    assert isinstance(view, strategy_registry.StrategyProblem)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        view.max_streams = 99  # type: ignore[misc]
    assert isinstance(view.preds, tuple) and all(isinstance(p, tuple) for p in view.preds)
    assert all(i in view.succs[p] for i in range(view.n) for p in view.preds[i])
    assert all(d > 0 for d in view.durations_us) and len(view.ge_streams) == view.n
    assert view.allocate_next_stream_id(view.ge_streams) == max(view.ge_streams) + 1


@pytest.mark.parametrize(("answer", "message"), [
    (lambda v: [0] * (v.n - 1), r"returned \d+ stream\(s\) for \d+ op\(s\); this op has none"),
    (lambda v: [v.stream_budget] * v.n, r"outside the budget \[0, \d+\)"),
    (lambda v: [-1] * v.n, r"outside the budget"),
    (lambda v: ["0"] * v.n, r"stream ids are ints"),
    (lambda v: None, r"returned NoneType; expected a stream id per op"),
    (lambda v: StreamPlan([0] * v.n, list(reversed(range(v.n)))), r"issues this op before"),
    (lambda v: StreamPlan([0] * v.n, [0] * v.n), r"not a permutation"),
])
def test_a_plan_that_breaks_a_rule_is_an_error_at_the_op(answer, message: str) -> None:  # type: ignore[no-untyped-def]
    text = random_dag_text(8, 11)
    _run(text)
    view = _seen[-1]
    with pytest.raises(geir.Error, match=message) as info:
        _run(text, answer(view))
    assert re.match(r"\S+:\d+:\d+: error: partition-streams: strategy 'replay'", str(info.value))


def test_labels_keep_one_stream_to_themselves() -> None:
    text = random_dag_text(16, 2, labels=1)
    _run(text)
    view = _seen[-1]
    labelled = [i for i, x in enumerate(view.labels) if x is not None]
    assert labelled
    with pytest.raises(geir.Error, match="a label keeps its stream to itself"):
        _run(text, [0] * view.n)
    split = _random_valid_plan(view, random.Random(0))
    if len(labelled) > 1:
        split[labelled[-1]] = view.max_streams - 1
        with pytest.raises(geir.Error, match="(is on stream|holds)"):
            _run(text, split)


_CHAIN = """
ge.graph @main(%x: tensor<1x16x4x4xf16>, %r: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const {value = dense<1.000000e+00> : tensor<16x16x1x1xf16>} : () -> tensor<16x16x1x1xf16>
  %c = ge.conv2d %x, %w : (tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  %a = ge.add %r, %c : (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  %y = ge.relu %a : (tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16>
  ge.return %y : (tensor<1x16x4x4xf16>) -> ()
}
"""


def test_a_fused_chain_stays_on_its_head_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever a strategy says, an op UB-fused into another runs in that op's
    kernel: it takes the head's stream, and a remark says how many moved."""
    _answer[:] = [[0, 1, 2]]
    module = geir.parse(_CHAIN)
    geir.run_pipeline(module, "assign-engines,fuse-ub,partition-streams{strategy=replay max-streams=3},insert-events",
                      remarks="partition-streams")
    assert _streams(module) == [0, 0, 0]
    assert "partition-streams: 2 UB-fused op(s) moved onto the stream of the op they are fused into" \
        in capsys.readouterr().err


def test_registration_refuses_what_no_worker_could_find() -> None:
    with pytest.raises(ValueError, match="built-in"):
        geir.register_strategy("ge", replay)
    with pytest.raises(ValueError, match="top-level"):
        geir.register_strategy("inline", lambda p: [0] * p.n)
    with pytest.raises(TypeError):
        geir.register_strategy("nothing", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="already registered"):
        geir.register_strategy("replay", _random_valid_plan)  # type: ignore[arg-type]


def test_entry_points_are_found_on_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "docs" / "examples" / "plugin"))
    monkeypatch.setattr(strategy_registry, "_entry_points_loaded", False)
    monkeypatch.setattr(strategy_registry, "CUSTOM_STRATEGIES", dict(strategy_registry.CUSTOM_STRATEGIES))
    assert "fork-streams" in strategy_registry.names()
    module = geir.parse(random_dag_text(10, 4))
    geir.run_pipeline(module, "assign-engines,partition-streams{strategy=fork-streams max-streams=2}")
    assert len(set(_streams(module))) <= 2


@pytest.mark.parametrize(("marker", "source"), [
    ("the block below is docs/examples/plugin/fork_streams.py", "plugin/fork_streams.py"),
    ("the block below is docs/examples/geir_opt_strategy.py", "geir_opt_strategy.py"),
])
def test_guide_shows_the_example_files(marker: str, source: str) -> None:
    page = (ROOT / "docs" / "guide" / "writing-a-strategy.md").read_text(encoding="utf-8")
    m = re.compile(r"```\w*\n(.*?)\n```", re.S).search(page, page.index(marker))
    assert m is not None
    assert m.group(1) == (ROOT / "docs" / "examples" / source).read_text(encoding="utf-8").rstrip("\n")


def test_example_strategy_is_about_twenty_lines() -> None:
    code = [line for line in (ROOT / "docs/examples/plugin/fork_streams.py").read_text().splitlines()
            if line.strip() and not line.startswith(('"""', "its first", "streams (round"))]
    assert len(code) <= 25
