"""alias-splits: a split along axis 0, or axis 1 at batch 1, whose readers are AI
core tasks runs as no task (GE's SplitNOptimizer, SplitCToNOptimizer) — it takes
no time, and the run's outputs are those of the split run as a task."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import geir
from geir.backends.cost_model import GE_LOCAL, CostModel
from geir.backends.device_profile import load_profile


def _graph(batch: int, parts: int, rows: int, cols: int, axis: int) -> str:
    """Exp, then a split into ``parts`` along ``axis`` (0: parts x batch x rows x
    cols; 1: batch x parts*rows x cols), each part read by a Relu and summed."""
    if axis == 0:
        whole, part = f"{parts}x{batch}x{rows}x{cols}", f"1x{batch}x{rows}x{cols}"
    else:
        whole, part = f"{batch}x{parts * rows}x{cols}", f"{batch}x{rows}x{cols}"
    names = [f"%p{i}" for i in range(parts)]
    lines = [f"ge.graph @main(%x: tensor<{whole}xf16>) -> tensor<{part}xf16> {{",
             f"  %e = ge.exp %x : (tensor<{whole}xf16>) -> tensor<{whole}xf16>",
             f"  {', '.join(names)} = ge.split %e {{axis = {axis}, num_outputs = {parts}}} : "
             f"(tensor<{whole}xf16>) -> ({', '.join(f'tensor<{part}xf16>' for _ in names)})"]
    total = None
    for i, name in enumerate(names):
        lines.append(f"  %r{i} = ge.relu {name} : (tensor<{part}xf16>) -> tensor<{part}xf16>")
        if total is None:
            total = f"%r{i}"
        else:
            lines.append(f"  %s{i} = ge.add {total}, %r{i} : (tensor<{part}xf16>, tensor<{part}xf16>) "
                         f"-> tensor<{part}xf16>")
            total = f"%s{i}"
    lines += [f"  ge.return {total} : (tensor<{part}xf16>) -> ()", "}"]
    return "\n".join(lines) + "\n"


def _compiled(text: str, aliased: bool) -> geir.TaskList:
    module = geir.parse(text)
    geir.run_pipeline(module, f"ge-default{{alias-splits={'true' if aliased else 'false'}}}")
    return geir.lower(module)


def _split_pools(task_list: geir.TaskList) -> list[tuple[str, float]]:
    """The pool and time of each split kernel the 910B2 runs."""
    cost = CostModel(load_profile("910B2"))
    return [(cost.pool_of(k), cost.kernel(k).duration_us) for _, _, k in task_list.all_tasks()
            if getattr(k, "op", "") == "ge.split"]


@settings(max_examples=25, deadline=None)
@given(batch=st.integers(1, 3), parts=st.integers(2, 4), rows=st.integers(1, 6), cols=st.sampled_from([8, 16, 24]),
       axis=st.sampled_from([0, 1]))
def test_an_aliased_split_takes_no_time_and_changes_no_output(batch: int, parts: int, rows: int, cols: int,
                                                              axis: int) -> None:
    text = _graph(batch, parts, rows, cols, axis)
    contiguous = axis == 0 or batch == 1
    with_pass, without = _compiled(text, aliased=True), _compiled(text, aliased=False)
    [(pool, time)] = _split_pools(with_pass)
    assert (pool == GE_LOCAL) == contiguous and (time == 0.0) == contiguous
    [(pool, time)] = _split_pools(without)
    assert pool != GE_LOCAL and time > 0.0
    no_task, task = geir.emulate(with_pass, seed=3), geir.emulate(without, seed=3)
    assert not no_task.races and not task.races
    for name, value in task.outputs.items():
        np.testing.assert_array_equal(no_task.outputs[name], value)
    if contiguous:
        assert no_task.makespan_us < task.makespan_us
    else:
        assert no_task.makespan_us == task.makespan_us
