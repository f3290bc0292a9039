"""A recurrent kernel (ONNX RNN, GRU, LSTM) as CANN's LSTM kernel runs it
(hicann/ops-nn ``rnn/dynamic_rnn/op_kernel/LstmFP16.cpp``): one MatMul
projecting every step's input, then per step the hidden state's MatMul by R,
a SyncAll, the gates on the vector units and another SyncAll. Its steps run
one after another, so its time grows with the sequence, and each step costs
at least its two syncs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geir.attributes import IntegerAttr
from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.task_list import ARENA, WEIGHTS, Kernel, TensorRef


def _lstm(seq: int, batch: int = 1, inputs: int = 64, hidden: int = 128, directions: int = 1,
          batch_first: bool = False, op: str = "ge.lstm", gates: int = 4) -> Kernel:
    x = (batch, seq, inputs) if batch_first else (seq, batch, inputs)
    w = TensorRef(WEIGHTS, 0, (directions, gates * hidden, inputs), "f16")
    r = TensorRef(WEIGHTS, 0, (directions, gates * hidden, hidden), "f16")
    y = TensorRef(ARENA, 0, (seq, directions, batch, hidden), "f16")
    attributes = {"layout": IntegerAttr(1)} if batch_first else {}
    return Kernel(op, "AICore", [TensorRef(ARENA, 0, x, "f16"), w, r], [y], attributes=attributes, flops=1.0)


@pytest.mark.parametrize("device", ["910B2", "310P3"])
@settings(max_examples=30, deadline=None)
@given(seq=st.integers(1, 400), hidden=st.sampled_from([16, 64, 128, 256]), op=st.sampled_from(["lstm", "gru", "rnn"]))
def test_every_step_costs_at_least_its_two_syncs(device: str, seq: int, hidden: int, op: str) -> None:
    cost = CostModel(load_profile(device))
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[op]
    one, more = (cost.kernel(_lstm(n, hidden=hidden, op=f"ge.{op}", gates=gates)) for n in (seq, seq + 10))
    # the steps are compute: ten more steps compute ten more pairs of syncs
    assert more.compute_us - one.compute_us >= 10 * 2 * cost.core_sync
    assert one.duration_us >= cost.kernel_overhead + seq * 2 * cost.core_sync


def test_the_time_grows_with_the_sequence_at_one_rate_per_step() -> None:
    cost = CostModel(load_profile("910B2"))
    t = {n: cost.kernel(_lstm(n)).duration_us for n in (100, 200, 400)}
    # each further hundred steps costs the same: the steps do not overlap
    assert t[400] - t[200] == pytest.approx(2 * (t[200] - t[100]), rel=0.05)
    assert t[400] > 3.5 * t[100]


def test_both_directions_run_one_after_the_other() -> None:
    cost = CostModel(load_profile("910B2"))
    one = cost.kernel(_lstm(200)).duration_us - cost.kernel_overhead
    both = cost.kernel(_lstm(200, directions=2)).duration_us - cost.kernel_overhead
    assert both == pytest.approx(2 * one, rel=0.05)


def test_batch_first_layout_reads_the_sequence_from_the_second_dim() -> None:
    cost = CostModel(load_profile("910B2"))
    assert cost.kernel(_lstm(300, batch=2, batch_first=True)).duration_us == \
        pytest.approx(cost.kernel(_lstm(300, batch=2)).duration_us)


def test_r_is_loaded_again_every_step_from_dram_once_it_outgrows_l2() -> None:
    cost = CostModel(load_profile("310P3"))  # 16 MiB of L2
    small, large = _lstm(10, hidden=256), _lstm(10, hidden=2048)  # R: 0.5 MiB and 32 MiB of f16
    dram, l2 = cost.traffic(small)
    assert l2 >= 9 * small.inputs[2].nbytes and dram < 2 * small.inputs[2].nbytes
    dram, _ = cost.traffic(large)
    assert dram >= 10 * large.inputs[2].nbytes
