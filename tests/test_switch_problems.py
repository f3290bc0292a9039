"""Which control ops of a graph the task sink cannot run, asked for a whole
block at once: :func:`control_problems` gives, for every control op, what
:func:`control_op_problem` gives for it alone, and the callers that ask about
every op of a graph (``needs_host``'s ``sink_control_problem``,
partition-streams' safe single-stream check) group a block's switch/merge
diamonds a fixed number of times, however many diamonds it holds."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geir.passes.lower_switch_merge as lower_switch_merge
from geir.backends.model_compile import sink_control_problem
from geir.operation import Operation
from geir.parser import parse_module
from geir.passes.lower_control_flow import control_op_problem, control_problems, is_control_op
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline

T = "tensor<2xf32>"
PAIR = f"({T}, {T})"
MERGED = f"{PAIR} -> ({T}, tensor<i32>)"


def _switch(k: int, v: str) -> str:
    """A switch on the ``k``-th predicate (GE groups the switches of one predicate)."""
    return f"  %f{k}, %t{k} = ge.switch {v}, %p{k} : ({T}, tensor<i1>) -> {PAIR}"


#: one diamond (or a broken one) on value ``v``, its result ``%m{k}``: the
#: lowerable diamond and each way control_switch_errors.mlir refuses one
KINDS: dict[str, Callable[[int, str], list[str]]] = {
    "diamond": lambda k, v: [_switch(k, v), f"  %a{k} = ge.neg %f{k} : ({T}) -> {T}",
                             f"  %b{k} = ge.relu %t{k} : ({T}) -> {T}",
                             f"  %m{k}, %i{k} = ge.merge %a{k}, %b{k} : {MERGED}"],
    "one_sided": lambda k, v: [_switch(k, v), f"  %a{k} = ge.neg %t{k} : ({T}) -> {T}",
                               f"  %m{k}, %i{k} = ge.merge %t{k}, %a{k} : {MERGED}"],
    "no_merge": lambda k, v: [_switch(k, v), f"  %m{k} = ge.abs {v} : ({T}) -> {T}"],
    "stray_merge": lambda k, v: [f"  %m{k}, %i{k} = ge.merge {v}, {v} : {MERGED}"],
    "escapes": lambda k, v: [_switch(k, v), f"  %a{k} = ge.neg %t{k} : ({T}) -> {T}",
                             f"  %c{k}, %i{k} = ge.merge %f{k}, %a{k} : {MERGED}",
                             f"  %m{k} = ge.add %c{k}, %a{k} : {PAIR} -> {T}"],
    "both": lambda k, v: [_switch(k, v), f"  %a{k} = ge.add %f{k}, %t{k} : {PAIR} -> {T}",
                          f"  %m{k}, %i{k} = ge.merge %a{k}, %t{k} : {MERGED}"],
    "nested": lambda k, v: [_switch(k, v), f"  %g{k}, %u{k} = ge.switch %t{k}, %q : ({T}, tensor<i1>) -> {PAIR}",
                            f"  %n{k}, %j{k} = ge.merge %g{k}, %u{k} : {MERGED}",
                            f"  %m{k}, %i{k} = ge.merge %f{k}, %n{k} : {MERGED}"],
    "if": lambda k, v: [f"  %m{k} = ge.if %q ({{", f"    %n{k} = ge.neg {v} : ({T}) -> {T}",
                        f"    ge.yield %n{k} : ({T}) -> ()", "  }, {", f"    ge.yield {v} : ({T}) -> ()",
                        f"  }}) : (tensor<i1>) -> {T}"],
    "frame": lambda k, v: [f"  %m{k} = ge.enter {v} {{frame_name = \"w{k}\"}} : ({T}) -> {T}"],
}


def graph_text(kinds: Sequence[str]) -> str:
    """A chain of the ``kinds``, each reading the previous one's result."""
    lines: list[str] = []
    v = "%x"
    for k, kind in enumerate(kinds):
        lines += KINDS[kind](k, v)
        v = f"%m{k}"
    preds = "".join(f", %p{k}: tensor<i1>" for k in range(len(kinds)))
    return (f"ge.graph @main(%x: {T}, %q: tensor<i1>{preds}) -> {T} {{\n" + "\n".join(lines) +
            f"\n  ge.return {v} : ({T}) -> ()\n}}\n")


def graph_of(kinds: Sequence[str]) -> Operation:
    return next(iter(parse_module(graph_text(kinds)).body.ops))


def one_by_one(graph: Operation) -> dict[Operation, str]:
    """control_op_problem asked of each control op of ``graph`` on its own."""
    asked = {op: control_op_problem(op) for op in graph.walk() if op is not graph and is_control_op(op)}
    return {op: p for op, p in asked.items() if p is not None}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=6))
def test_the_block_answer_is_each_op_answer(kinds: list[str]) -> None:
    graph = graph_of(kinds)
    block = graph.regions[0].blocks[0]
    assert control_problems(block) == one_by_one(graph)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=6))
def test_sink_control_problem_is_the_first_op_with_a_problem(kinds: list[str]) -> None:
    graph = graph_of(kinds)
    first = next(iter(one_by_one(graph)), None)
    assert sink_control_problem(graph) is first


def test_only_lowerable_diamonds_have_no_problem() -> None:
    graph = graph_of(["diamond", "diamond", "one_sided", "diamond"])
    problems = control_problems(graph.regions[0].blocks[0])
    refused = {op.name for op in problems}
    assert refused == {"ge.switch", "ge.merge"}
    switches = [op for op in graph.walk() if op.name == "ge.switch"]
    merges = [op for op in graph.walk() if op.name == "ge.merge"]
    assert [op in problems for op in switches] == [False, False, True, False]
    assert [op in problems for op in merges] == [False, False, True, False]


@pytest.fixture
def groupings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of switch_groups calls made so far (one list item per call)."""
    calls: list[int] = []
    real = lower_switch_merge.switch_groups

    def counted(block: Any) -> Any:
        calls.append(1)
        return real(block)

    monkeypatch.setattr(lower_switch_merge, "switch_groups", counted)
    return calls


def _calls(groupings: list[int], run: Callable[[], object]) -> int:
    before = len(groupings)
    run()
    return len(groupings) - before


@pytest.mark.parametrize("ask", ["control_problems", "sink_control_problem", "partition-streams"])
def test_the_diamonds_are_grouped_a_fixed_number_of_times(groupings: list[int], ask: str) -> None:
    def run(n: int) -> Callable[[], object]:
        graph = graph_of(["diamond"] * n)
        if ask == "control_problems":
            return lambda: control_problems(graph.regions[0].blocks[0])
        if ask == "sink_control_problem":
            return lambda: sink_control_problem(graph)
        module = parse_module(graph_text(["diamond"] * n))
        return lambda: PassManager(parse_pipeline("assign-engines,partition-streams{strategy=ge}")).run(module)

    few, many = _calls(groupings, run(2)), _calls(groupings, run(24))
    assert few >= 1
    assert many == few
