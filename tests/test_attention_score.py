"""The 310P's AttentionScore fusion (``fuse-ub`` with ``passes/attention_score.py``):
it takes an attention exactly when every condition of GE's
ZAttentionScoreFusionPass holds, and what it marks changes neither the numbers
nor the safety of the schedule."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import geir


def _attention(batch: int, heads: int, seq: int, width: int, mask_rows: int, key_stored_as_query: bool) -> str:
    """BERT's attention in ge IR: scores scaled and masked, softmax, the values, the heads permuted back."""
    q = f"tensor<{batch}x{heads}x{seq}x{width}xf16>"
    k = q if key_stored_as_query else f"tensor<{batch}x{heads}x{width}x{seq}xf16>"
    s = f"tensor<{batch}x{heads}x{seq}x{seq}xf16>"
    m = f"tensor<{batch}x1x{mask_rows}x{seq}xf16>"
    out = f"tensor<{batch}x{seq}x{heads}x{width}xf16>"
    trans = " {transB = 1 : i64}" if key_stored_as_query else ""
    return f"""ge.graph @main(%q: {q}, %k: {k}, %v: {q}, %mask: {m}) -> {out} {{
  %scale = ge.const {{value = dense<1.250000e-01> : tensor<f16>}} : () -> tensor<f16>
  %s = ge.matmul %q, %k{trans} : ({q}, {k}) -> {s}
  %m = ge.mul %s, %scale : ({s}, tensor<f16>) -> {s}
  %a = ge.add %m, %mask : ({s}, {m}) -> {s}
  %p = ge.softmax %a {{axis = -1 : i64}} : ({s}) -> {s}
  %c = ge.matmul %p, %v : ({s}, {q}) -> {q}
  %t = ge.transpose %c {{perm = [0, 2, 1, 3]}} : ({q}) -> {out}
  ge.return %t : ({out}) -> ()
}}
"""


def _takes(batch: int, heads: int, seq: int, width: int, mask_rows: int, key_stored_as_query: bool) -> bool:
    """The pass's inference conditions, restated."""
    return (heads in (12, 16) and seq % 32 == 0 and seq <= 512 and (batch * heads) % 8 == 0 and width == 64
            and mask_rows == seq and key_stored_as_query)


@settings(max_examples=25, deadline=None)
@example(batch=2, heads=12, seq=64, width=64, full_mask=True, key_stored_as_query=True)  # BERT-base, fused
@example(batch=1, heads=16, seq=32, width=64, full_mask=True, key_stored_as_query=True)  # BERT-large, fused
@example(batch=1, heads=12, seq=64, width=64, full_mask=True, key_stored_as_query=True)  # 12 batch-heads: not
@given(batch=st.integers(1, 3), heads=st.sampled_from([4, 12, 16]), seq=st.sampled_from([16, 32, 48, 64]),
       width=st.sampled_from([32, 64]), full_mask=st.booleans(), key_stored_as_query=st.booleans())
def test_the_fusion_takes_exactly_the_attentions_the_pass_does_and_keeps_numbers_and_safety(
        batch: int, heads: int, seq: int, width: int, full_mask: bool, key_stored_as_query: bool) -> None:
    mask_rows = seq if full_mask else 1
    text = _attention(batch, heads, seq, width, mask_rows, key_stored_as_query)
    runs = {}
    for device in ("310P3", "910B2"):  # the 910B2 takes no attention: the same graph, unfused
        module = geir.parse(text)
        geir.run_pipeline(module, f"ge-default{{device={device}}}")
        kernels = {op.get_attr("name"): op for op in module.walk() if op.name == "rt.kernel"}
        fused = "fused_operand" in kernels["%p"].get_attr("attrs")
        assert fused == (device == "310P3" and _takes(batch, heads, seq, width, mask_rows, key_stored_as_query))
        runs[device] = geir.emulate(module, device=device, seed=3)
        assert not runs[device].races
    got, want = (runs[d].outputs["output_0"] for d in ("310P3", "910B2"))
    np.testing.assert_array_equal(got, want)
