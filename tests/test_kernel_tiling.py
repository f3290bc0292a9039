"""How kernels spread over the cores and what they cost: the tiling rules CANN's
op tilings follow, and the cost model's memory hierarchy, UB fusion and no-task
ops, as specifications."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import geir
from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.kernel_tiling import (L0C_256_KIB, CubeFeed, batch_matmul_v3_base_block, conv_tiling, matmul_tiling,
                                         matmul_v3_base_block, rows_tiling, vector_tiling)
from geir.backends.task_list import ARENA, WEIGHTS, Kernel, TensorRef
from geir.attributes import ArrayAttr, IntegerAttr, UnitAttr


# ================================================================ tiling


def test_gemv_spreads_n_over_every_core() -> None:
    # alexnet's fc6 at batch 1: M = 1, N = 4096: every core gets columns of N
    t = matmul_tiling(1, 1, 4096, 9216, cores=8)
    assert t.units == 8
    # M is padded to one 16-row fractal: 16x the useful MACs
    assert t.work == 2.0 * 16 * 4096 * 9216


def test_a_single_fractal_runs_on_one_core() -> None:
    assert matmul_tiling(1, 16, 16, 16, cores=24).units == 1


def test_idle_cores_split_a_deep_k() -> None:
    # one 16 x 16 output block, K = 8192: split-K uses more than one core
    assert matmul_tiling(1, 1, 16, 8192, cores=8).units == 8
    assert matmul_tiling(1, 1, 16, 512, cores=8).units == 1


def test_first_layer_pads_its_three_channels_to_c0() -> None:
    t = conv_tiling(1, 3, 64, 112 * 112, 49, 1, cores=8)
    useful = 2.0 * 112 * 112 * 64 * 3 * 49
    assert t.work == pytest.approx(useful * 16 / 3)


def test_depthwise_conv_is_merged_into_c0_groups() -> None:
    # groups = channels = 32: merged 16 at a time, each 16 x 16 on the cube
    t = conv_tiling(1, 32, 32, 64, 9, 32, cores=8)
    useful = 2.0 * 64 * 32 * 9
    assert t.work == pytest.approx(useful * 16)


def test_small_channel_pads_a_first_layer_to_four_channels() -> None:
    # ATC's C04 layout: K = 4 x 7 x 7 = 196, padded to 208, instead of 16 x 49 = 784
    c0 = conv_tiling(1, 3, 64, 112 * 112, 49, 1, cores=8)
    c04 = conv_tiling(1, 3, 64, 112 * 112, 49, 1, cores=8, c0=4)
    assert c0.work == 2 * 12544 * 64 * 784 and c04.work == 2 * 12544 * 64 * 208


def test_a_block_that_loads_longer_than_it_multiplies_costs_the_load() -> None:
    feed = CubeFeed(flops_per_cycle=8192, fill_bytes_per_cycle=114)
    # a 128 x 256 block over K = 2304: 73,728 cycles of MACs, its A panel loads in 5,174: compute-bound
    assert feed.slowdown(128, 256, 2304) == 1.0
    # a one-row GEMV block (16 x 128, K = 9216): its 2.25 MiB B panel streams (it does not fit half of
    # L1), 144 rows of K at 114 B/cycle against 4,608 cycles of MACs
    assert feed.slowdown(16, 128, 9216) == pytest.approx((2 * 9216 * 144 / 114) / (2 * 16 * 128 * 9216 / 8192))
    # a convolution's feature map serves its 3 x 3 window from L1: 9x less to stream than its img2col rows
    assert feed.slowdown(128, 32, 64, a_reuse=9) < feed.slowdown(128, 32, 64)
    # the feed only ever slows a tiling down, never speeds it up
    plain = matmul_tiling(1, 1, 4096, 9216, cores=8)
    fed = matmul_tiling(1, 1, 4096, 9216, cores=8, feed=feed)
    assert fed.units == plain.units and fed.work > plain.work


def test_a_block_drains_its_result_and_pays_its_fixed_cost_after_multiplying() -> None:
    feed = CubeFeed(flops_per_cycle=8192, fill_bytes_per_cycle=114, drain_cycles_per_element=0.025,
                    block_overhead_cycles=200)
    # a deep 128 x 256 block (K = 4608: 36,864 cycles of MACs, its panels load in 31,044) hardly
    # notices its 819 cycles of drain and 200 fixed
    assert feed.slowdown(128, 256, 4608) == pytest.approx((36864 + 0.025 * 128 * 256 + 200) / 36864)
    # a depthwise convolution's merged block (128 x 16 over K = 144, a 3 x 3 window served from L1):
    # 72 cycles of MACs, 51 of drain, 200 fixed
    assert feed.slowdown(128, 16, 144, a_reuse=9) == pytest.approx((72 + 0.025 * 128 * 16 + 200) / 72)
    # so thin blocks run further from the cube's peak than deep ones
    assert feed.slowdown(128, 64, 64, 9) > feed.slowdown(128, 64, 576, 9) > feed.slowdown(128, 64, 4608, 9) > 1
    # without a drain or a block cost the feed is what it was
    assert CubeFeed(8192, 114).slowdown(128, 256, 4608) == 1.0


def test_vector_kernels_take_every_core_above_the_minimum_chunk() -> None:
    assert vector_tiling(1024, 0, cores=8, min_bytes_per_core=8192).units == 1
    assert vector_tiling(3 * 8192, 0, cores=8, min_bytes_per_core=8192).units == 3
    assert vector_tiling(1 << 20, 0, cores=8, min_bytes_per_core=8192).units == 8


def test_a_vector_kernel_computes_at_the_share_of_its_lanes_the_profile_says() -> None:
    # a wide elementwise op, all eight cores: its arithmetic at the lanes' share, its bytes at the same rate
    relu = Kernel("ge.relu", "AICore", [_ref((8, 64, 56, 56))], [_ref((8, 64, 56, 56))], flops=8 * 64 * 56 * 56)
    full = CostModel(load_profile("310P3", ["vector_efficiency=1"])).kernel(relu)
    third = CostModel(load_profile("310P3", ["vector_efficiency=0.333"])).kernel(relu)
    p = load_profile("310P3").values
    assert full.units == third.units == 8
    assert full.compute_us == pytest.approx(relu.flops / (8 * p["clock_mhz"] * p["vector_flops_per_cycle"]))
    assert third.compute_us == pytest.approx(full.compute_us / 0.333)
    assert third.memory_us == full.memory_us


def test_a_resizes_f32_scales_leave_its_f16_lanes_at_the_f16_rate() -> None:
    # ONNX types a Resize's scales f32 in every precision mode; the kernel computes in f16
    x, y = _ref((1, 128, 40, 40)), _ref((1, 128, 80, 80))
    cost = CostModel(load_profile("310P3"))
    f16 = cost.kernel(Kernel("ge.resize", "AICore", [x], [y], flops=4 * 128 * 80 * 80))
    scaled = cost.kernel(Kernel("ge.resize", "AICore", [x, _ref((4,), "f32")], [y], flops=4 * 128 * 80 * 80))
    f32 = cost.kernel(Kernel("ge.resize", "AICore", [_ref((1, 128, 40, 40), "f32"), _ref((4,), "f32")],
                             [_ref((1, 128, 80, 80), "f32")], flops=4 * 128 * 80 * 80))
    assert scaled.compute_us == pytest.approx(f16.compute_us)
    assert f32.compute_us == pytest.approx(2 * f16.compute_us)


def test_rows_are_never_split() -> None:
    t = rows_tiling(3, 0, cores=8)
    assert t.units == 3 and t.imbalance == 1.0
    assert rows_tiling(12, 0, cores=8).imbalance == pytest.approx(16 / 12)


@settings(max_examples=200, deadline=None)
@given(batch=st.integers(1, 8), m=st.integers(1, 600), n=st.integers(1, 600), k=st.integers(1, 5000),
       cores=st.sampled_from([1, 8, 20, 24, 80]), fixed=st.booleans())
def test_matmul_tiling_invariants(batch: int, m: int, n: int, k: int, cores: int, fixed: bool) -> None:
    t = matmul_tiling(batch, m, n, k, cores, fixed_blocks=fixed)
    assert 1 <= t.units <= cores
    assert t.work >= 2.0 * batch * m * n * k  # padding never removes work
    assert t.imbalance >= 1.0
    # whole base blocks never cost less than fractals, and the same cores
    loose = matmul_tiling(batch, m, n, k, cores)
    assert t.units == loose.units and t.work >= loose.work
    # every core runs at least one round; uneven waves mean more blocks than cores; no
    # core runs more rounds than it has 16 x 16 fractals
    assert t.rounds >= 1 and (t.imbalance == 1.0 or t.rounds >= 2)
    assert t.rounds <= -(-batch * -(-m // 16) * -(-n // 16) // t.units)


def test_a_matmul_tail_block_takes_a_full_blocks_time() -> None:
    # 197 rows (ViT's tokens) in 128-row base blocks: the 80-row tail runs beside a full block
    loose = matmul_tiling(1, 197, 768, 768, cores=8)
    fixed = matmul_tiling(1, 197, 768, 768, cores=8, fixed_blocks=True)
    assert fixed.work == pytest.approx(loose.work * 256 / 208)
    # within one block nothing changes: a 128-row block holds M's 112 padded rows, N is 16 whole blocks
    assert matmul_tiling(1, 100, 4096, 768, cores=8, fixed_blocks=True).work == matmul_tiling(1, 100, 4096, 768,
                                                                                               cores=8).work


def test_a_batch_of_rows_times_one_weight_matrix_is_one_m() -> None:
    cost = CostModel(load_profile("310P3"))
    w = _ref((768, 768), space=WEIGHTS)
    batched = Kernel("ge.matmul", "AICore", [_ref((4, 197, 768)), w], [_ref((4, 197, 768))],
                     flops=2.0 * 4 * 197 * 768 * 768)
    flat = Kernel("ge.matmul", "AICore", [_ref((788, 768)), w], [_ref((788, 768))], flops=2.0 * 788 * 768 * 768)
    assert cost.tiling(batched, "AICore") == cost.tiling(flat, "AICore")
    unfed = CostModel(load_profile("310P3", ["l1_fill_bytes_per_cycle=0"]))
    assert unfed.tiling(batched, "AICore") == matmul_tiling(1, 788, 768, 768, cores=8, fixed_blocks=True,
                                                            l0c_bytes=L0C_256_KIB)
    # a batch of right-hand matrices (attention's scores) keeps its batch
    scores = Kernel("ge.matmul", "AICore", [_ref((4, 197, 64)), _ref((4, 64, 197))], [_ref((4, 197, 197))],
                    flops=2.0 * 4 * 197 * 197 * 64)
    assert unfed.tiling(scores, "AICore") == matmul_tiling(4, 197, 197, 64, cores=8, fixed_blocks=True,
                                                           l0c_bytes=L0C_256_KIB)


# ---------------------------------------------------------- MatMulV3 on a 256 KiB L0C (310P)


def test_a_large_matrix_takes_256_by_256_base_blocks_on_a_256_kib_l0c() -> None:
    assert matmul_v3_base_block(20480, 768, 768, cores=8) == (256, 256)
    # the base never exceeds the matrix
    assert matmul_v3_base_block(4096, 200, 768, cores=8)[1] <= 200


def test_a_small_matrix_spreads_m_over_the_cores_its_n_blocks_leave() -> None:
    # BERT at batch 1, sequence 320: three 256-column blocks of N leave two cores per
    # block, so M's 320 rows go in two bases of 160, not three of 128
    assert matmul_v3_base_block(320, 768, 768, cores=8) == (160, 256)
    t = matmul_tiling(1, 320, 768, 768, cores=8, fixed_blocks=True, l0c_bytes=L0C_256_KIB)
    assert (t.units, t.blocks, t.imbalance) == (6, 6, 1.0)
    assert t.work == 2.0 * 320 * 768 * 768  # no padded rows


def test_a_gemv_on_a_256_kib_l0c_cuts_n_and_leaves_k_whole() -> None:
    # alexnet's fc6 at batch 1, its weight transposed (Gemm transB): one row, N in 256-column blocks
    assert matmul_v3_base_block(1, 4096, 9216, cores=8, trans_b=True) == (1, 256)
    t = matmul_tiling(1, 1, 4096, 9216, cores=8, l0c_bytes=L0C_256_KIB, trans_b=True)
    assert (t.units, t.blocks) == (8, 16)
    # the 310P's MatMul tiling has no split-K: a single small block keeps one core
    assert matmul_tiling(1, 1, 16, 8192, cores=8, l0c_bytes=L0C_256_KIB).units == 1


def test_a_small_matrix_with_unaligned_k_and_n_takes_the_balanced_base() -> None:
    # K and N not 256-byte multiples in fp16 (both converted to the fractal layout):
    # BalanceBaseBlockTiling keeps M whole under 256 rows and N in 256-column bases
    assert matmul_v3_base_block(100, 1000, 100, cores=8) == (100, 256)
    # with K aligned the least-load base stands
    assert matmul_v3_base_block(100, 1000, 128, cores=8) != (100, 256)


def test_a_batch_of_small_matrices_takes_even_passes_not_a_spread_of_one_matrix() -> None:
    # attention's scores at sequence 128: 384 matrices of 128 x 128 fill the cores by
    # themselves, so each is one 128 x 128 block, not sixteen-row slivers of one matrix
    assert matmul_v3_base_block(128, 128, 64, cores=8)[0] == 16
    assert batch_matmul_v3_base_block(384, 128, 128, 64, cores=8) == (128, 128)
    t = matmul_tiling(384, 128, 128, 64, cores=8, fixed_blocks=True, l0c_bytes=L0C_256_KIB)
    assert t.blocks == 384
    # a full 256 x 256 base of a large matrix is kept
    assert batch_matmul_v3_base_block(12, 1024, 1024, 64, cores=8) == (256, 256)


@settings(max_examples=200, deadline=None)
@given(batch=st.sampled_from([1, 2, 12, 384]), m=st.integers(1, 5000), n=st.integers(1, 5000),
       k=st.integers(1, 10000), trans_a=st.booleans(), trans_b=st.booleans(), element_bytes=st.sampled_from([1, 2, 4]))
def test_a_256_kib_l0c_base_block_is_16_aligned_within_the_matrix_and_l0c(batch: int, m: int, n: int, k: int,
                                                                         trans_a: bool, trans_b: bool,
                                                                         element_bytes: int) -> None:
    bm, bn = (matmul_v3_base_block(m, n, k, 8, trans_a, trans_b, element_bytes) if batch == 1 else
              batch_matmul_v3_base_block(batch, m, n, k, 8, trans_a, trans_b, element_bytes))
    assert 1 <= bm and 1 <= bn
    assert bm == m or bm % 16 == 0
    assert bn == n or bn % 16 == 0
    # the fp32 accumulators of one base block fit in L0C
    assert 4 * bm * bn <= L0C_256_KIB
    t = matmul_tiling(batch, m, n, k, 8, fixed_blocks=True, l0c_bytes=L0C_256_KIB, trans_a=trans_a,
                      trans_b=trans_b, element_bytes=element_bytes)
    assert 1 <= t.units <= 8 and t.imbalance >= 1.0
    assert t.work >= 2.0 * batch * m * n * k


# ================================================================ costs


def _ref(shape: tuple[int, ...], dtype: str = "f16", space: str = ARENA) -> TensorRef:
    return TensorRef(space, 0, shape, dtype)


def _fc(batch: int) -> Kernel:
    x, w, y = _ref((batch, 9216)), _ref((9216, 4096), space=WEIGHTS), _ref((batch, 4096))
    return Kernel("ge.matmul", "AICore", [x, w], [y], flops=2.0 * batch * 9216 * 4096)


@pytest.mark.parametrize("device", ["310P3", "910B2"])
def test_a_larger_batch_never_runs_faster(device: str) -> None:
    cost = CostModel(load_profile(device))
    times = [cost.kernel(_fc(b)).duration_us for b in (1, 2, 4, 8, 16, 32, 64)]
    assert times == sorted(times)


def test_weights_stream_from_dram_at_the_cores_rate() -> None:
    # without the exposed round of a double-buffered pipeline, GEMV is its weight stream
    p = load_profile("310P3", ["kernel_overhead_us=0", "cube_pipeline_fill=0"])
    c = CostModel(p).kernel(_fc(1))
    weight_bytes = 9216 * 4096 * 2
    sustained = p["dram_bandwidth_gbps"] * p["dram_efficiency"] * 1e3
    cores = p["ai_cores"] * p["core_ddr_bytes_per_cycle"] * p["clock_mhz"]
    assert c.units == p["ai_cores"]
    assert c.duration_us == pytest.approx(weight_bytes / min(sustained, cores), rel=0.01)


def test_activations_that_fit_in_l2_are_served_from_it_and_a_longer_stream_from_dram() -> None:
    cost = CostModel(load_profile("310P3"))
    small = Kernel("ge.relu", "AICore", [_ref((1, 64, 56, 56))], [_ref((1, 64, 56, 56))], flops=64 * 56 * 56)
    dram, l2 = cost.traffic(small)
    assert dram == 0 and l2 == 2 * 64 * 56 * 56 * 2
    # 51 MiB read and written through a 16 MiB LRU L2: each line is evicted before it is read again
    big = Kernel("ge.relu", "AICore", [_ref((64, 64, 56, 56))], [_ref((64, 64, 56, 56))], flops=0)
    dram, l2 = cost.traffic(big)
    assert l2 == 0 and dram == 2 * 64 * 64 * 56 * 56 * 2
    # exactly L2's size still fits
    half = cost.l2_bytes // 4  # f16 elements in half of L2
    edge = Kernel("ge.relu", "AICore", [_ref((half,))], [_ref((half,))], flops=0)
    assert cost.traffic(edge) == (0, cost.l2_bytes)


def test_warm_weights_are_read_from_l2() -> None:
    """A run that follows a run of the same model finds its weights in L2;
    activations longer than L2 still stream from DRAM."""
    p = load_profile("310P3")
    cold, warm = CostModel(p), CostModel(p, warm_weights=True)
    weights = 64 * 64 * 9 * 2
    for batch in (1, 64):
        (dram, l2), (warm_dram, warm_l2) = cold.traffic(_conv(batch)), warm.traffic(_conv(batch))
        assert warm_dram + warm_l2 == dram + l2 and warm_l2 >= weights
        assert warm_dram == (0 if batch == 1 else dram - weights)
        assert warm.kernel(_conv(batch)).duration_us <= cold.kernel(_conv(batch)).duration_us


@settings(max_examples=60, deadline=None)
@given(batch=st.integers(1, 64), cin=st.sampled_from([3, 16, 64, 256]), cout=st.sampled_from([16, 64, 512]),
       hw=st.sampled_from([7, 14, 56, 112]), kernel=st.sampled_from([1, 3]), device=st.sampled_from(["310P3", "910B2"]))
def test_a_warm_run_moves_the_same_bytes_and_never_more_from_dram(batch: int, cin: int, cout: int, hw: int,
                                                                   kernel: int, device: str) -> None:
    """Warm weights only move the weights' bytes from DRAM to L2: the total is
    the same, DRAM keeps only the activations it had, and the kernel never
    takes longer."""
    p = load_profile(device)
    cold, warm = CostModel(p), CostModel(p, warm_weights=True)
    x, y = _ref((batch, cin, hw, hw)), _ref((batch, cout, hw, hw))
    w = _ref((cout, cin, kernel, kernel), space=WEIGHTS)
    conv = Kernel("ge.conv2d", "AICore", [x, w], [y], flops=2.0 * batch * cout * hw * hw * cin * kernel * kernel)
    (dram, l2), (warm_dram, warm_l2) = cold.traffic(conv), warm.traffic(conv)
    assert warm_dram + warm_l2 == dram + l2 and warm_dram == dram - w.nbytes
    assert warm.kernel(conv).duration_us <= cold.kernel(conv).duration_us + 1e-9


def _squeeze_fire(batch: int) -> geir.Module:
    """A squeeze layer and its two expands, concatenated: 22 KiB of f16 weights."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 64, 56, 56])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 128, 56, 56])
    rng = np.random.default_rng(0)
    weights = [onnx.numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
               for n, s in (("ws", (16, 64, 1, 1)), ("w1", (64, 16, 1, 1)), ("w3", (64, 16, 3, 3)))]
    nodes = [helper.make_node("Conv", ["x", "ws"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
             helper.make_node("Conv", ["r", "w1"], ["e1"]),
             helper.make_node("Conv", ["r", "w3"], ["e3"], pads=[1, 1, 1, 1]),
             helper.make_node("Concat", ["e1", "e3"], ["y"], axis=1)]
    model = helper.make_model(helper.make_graph(nodes, "fire", [x], [y], weights),
                              opset_imports=[helper.make_opsetid("", 17)])
    module = geir.import_onnx(model)
    geir.run_pipeline(module, "ge-default{device=310P3}")
    return module


@pytest.mark.parametrize("batch", [1, 16])
def test_a_warm_run_reads_weights_from_l2_only_when_the_model_fits_in_it(batch: int) -> None:
    task_list = geir.lower(_squeeze_fire(batch))
    fits = task_list.weight_size + task_list.arena_size <= load_profile("310P3")["l2_bytes"]
    assert fits == (batch == 1)
    cold, warm = (geir.emulate(task_list, device="310P3", timing_only=True, warm_l2=w).makespan_us
                  for w in (False, True))
    assert (warm < cold) if fits else (warm == cold)


def _conv(batch: int) -> Kernel:
    x, w, y = _ref((batch, 64, 56, 56)), _ref((64, 64, 3, 3), space=WEIGHTS), _ref((batch, 64, 56, 56))
    return Kernel("ge.conv2d", "AICore", [x, w], [y], flops=2.0 * batch * 64 * 56 * 56 * 64 * 9)


def test_a_cube_block_waits_longer_for_operands_from_dram() -> None:
    p = load_profile("310P3")
    cost = CostModel(p)
    # batch 1: everything but the weights from L2; batch 64: every byte from DRAM
    in_l2, spilled = _conv(1), _conv(64)
    dram, l2 = cost.traffic(in_l2)
    assert cost.block_cycles(in_l2) == pytest.approx(
        p["cube_block_overhead_cycles"] + p["cube_block_dram_wait_cycles"] * dram / (dram + l2))
    assert cost.block_cycles(spilled) == pytest.approx(p["cube_block_overhead_cycles"]
                                                       + p["cube_block_dram_wait_cycles"])
    # the wait lengthens the kernel; without it the block costs only its fixed cycles
    no_wait = CostModel(load_profile("310P3", ["cube_block_dram_wait_cycles=0"]))
    assert no_wait.block_cycles(spilled) == p["cube_block_overhead_cycles"]
    assert cost.kernel(spilled).compute_us > no_wait.kernel(spilled).compute_us


def test_double_buffered_blocks_expose_one_round_of_the_shorter_side() -> None:
    # a fill coefficient of 1: one whole round shows (the profile's own coefficient scales it)
    p = load_profile("310P3", ["cube_pipeline_fill=1"])
    cost = CostModel(p)
    overlapped = CostModel(load_profile("310P3", ["cube_pipeline_fill=0"]))
    # batch 64: many base blocks per core, loads hidden behind multiplications in all but one round
    conv = _conv(64)
    t = cost.tiling(conv, "AICore")
    c = cost.kernel(conv)
    # 56 x 56 pixels in 128-row base blocks (25 an image), 64 channels in one: 1600 blocks on 8 cores
    assert t.units == 8 and t.rounds == 64 * 25 // 8
    exposed = min(c.compute_us, c.memory_us) / t.rounds
    assert c.duration_us == pytest.approx(c.overhead_us + max(c.compute_us, c.memory_us) + exposed)
    assert overlapped.kernel(conv).duration_us == pytest.approx(c.overhead_us + max(c.compute_us, c.memory_us))
    # GEMV at batch 1: 4096 outputs in 16 blocks of 256, two rounds on 8 cores: half the shorter side shows
    gemv = cost.kernel(_fc(1))
    assert cost.tiling(_fc(1), "AICore").rounds == 2
    assert gemv.duration_us == pytest.approx(gemv.overhead_us + max(gemv.compute_us, gemv.memory_us)
                                             + min(gemv.compute_us, gemv.memory_us) / 2)
    # 1024 outputs in 8 blocks: one block per core, so nothing overlaps
    x, w, y = _ref((1, 9216)), _ref((9216, 1024), space=WEIGHTS), _ref((1, 1024))
    narrow = Kernel("ge.matmul", "AICore", [x, w], [y], flops=2.0 * 9216 * 1024)
    assert cost.tiling(narrow, "AICore").rounds == 1
    n = cost.kernel(narrow)
    assert n.duration_us == pytest.approx(n.overhead_us + n.compute_us + n.memory_us)
    # an explicit block dim runs the same blocks over fewer cores, in more rounds
    conv.block_dim = 2
    assert cost.tiling(conv, "AICore").rounds == -(-t.rounds * t.units // 2)
    # vector kernels are not cut into cube blocks: their loads and arithmetic overlap
    relu = Kernel("ge.relu", "AICore", [_ref((64, 64, 56, 56))], [_ref((64, 64, 56, 56))], flops=64 * 64 * 56 * 56)
    r = cost.kernel(relu)
    assert r.duration_us == pytest.approx(r.overhead_us + max(r.compute_us, r.memory_us))


@settings(max_examples=150, deadline=None)
@given(batch=st.integers(1, 64), cin=st.sampled_from([3, 16, 64, 160]), cout=st.sampled_from([16, 64, 192, 512]),
       hw=st.sampled_from([7, 14, 28, 56]), window=st.sampled_from([1, 3]), device=st.sampled_from(["310P3", "910B2"]))
def test_a_cube_kernel_takes_between_its_longer_side_and_both_sides(batch: int, cin: int, cout: int, hw: int,
                                                                    window: int, device: str) -> None:
    cost = CostModel(load_profile(device))
    x, y = _ref((batch, cin, hw, hw)), _ref((batch, cout, hw, hw))
    w = _ref((cout, cin, window, window), space=WEIGHTS)
    conv = Kernel("ge.conv2d", "AICore", [x, w], [y], flops=2.0 * batch * hw * hw * cout * cin * window * window)
    c = cost.kernel(conv)
    busy = c.duration_us - c.overhead_us
    # double buffering hides at most everything of the shorter side and never more
    assert max(c.compute_us, c.memory_us) <= busy * (1 + 1e-9)
    assert busy <= (c.compute_us + c.memory_us) * (1 + 1e-9)
    exposed = cost.pipeline_fill * min(c.compute_us, c.memory_us) / cost.tiling(conv, "AICore").rounds
    assert busy == pytest.approx(max(c.compute_us, c.memory_us) + exposed)


def test_a_fused_op_moves_nothing_and_is_not_launched() -> None:
    cost = CostModel(load_profile("310P3"))
    x = _ref((1, 16, 8, 8))
    fused = Kernel("ge.relu", "AICore", [x], [x], attributes={"fused_operand": IntegerAttr(0)}, flops=1024)
    c = cost.kernel(fused)
    assert c.overhead_us == 0 and c.memory_us == 0 and c.dram_bytes == 0
    head = Kernel("ge.conv2d", "AICore", [x, _ref((16, 16, 1, 1), space=WEIGHTS)], [x],
                  attributes={"fused_output": UnitAttr(), "fused_bytes": IntegerAttr(4096)}, flops=1.0)
    plain = Kernel("ge.conv2d", "AICore", head.inputs, [x], flops=1.0)
    assert sum(cost.traffic(head)) == sum(cost.traffic(plain)) + 4096


def test_a_fused_ops_vector_work_overlaps_a_cube_head_and_follows_a_vector_head() -> None:
    # the fused op takes no time of its own; its head's core does its vector work:
    # beside the cube's multiplications on a convolution, after its own on a vector op
    cost = CostModel(load_profile("310P3"))
    x, w = _ref((16, 256, 28, 28)), _ref((256, 256, 1, 1), space=WEIGHTS)
    conv_flops = 2.0 * 16 * 28 * 28 * 256 * 256
    relu = Kernel("ge.relu", "AICore", [x], [x], attributes={"fused_operand": IntegerAttr(0)}, flops=x.nbytes / 2)
    assert cost.kernel(relu).duration_us == 0
    plain = cost.kernel(Kernel("ge.conv2d", "AICore", [x, w], [x], flops=conv_flops))
    light, heavy = (cost.kernel(Kernel("ge.conv2d", "AICore", [x, w], [x], flops=conv_flops, attributes={
        "fused_output": UnitAttr(), "fused_flops": IntegerAttr(int(n))})) for n in (x.nbytes / 2, 1e11))
    assert light.compute_us == plain.compute_us  # one pass over the result hides under the cube
    vector = 1e11 / (heavy.units * cost.vector_rate)
    assert heavy.compute_us == pytest.approx(vector)  # a heavy chain is what bounds the kernel
    add = Kernel("ge.add", "AICore", [x, x], [x], flops=x.nbytes / 2)
    chained = Kernel("ge.add", "AICore", [x, x], [x], flops=x.nbytes / 2,
                     attributes={"fused_output": UnitAttr(), "fused_flops": IntegerAttr(x.nbytes // 2)})
    assert cost.kernel(chained).compute_us == pytest.approx(2 * cost.kernel(add).compute_us)


def test_a_pooling_fused_after_a_convolution_shrinks_what_the_chain_writes() -> None:
    # TbeAippConvReluMaxpoolingFusion: the stem convolution's 112 x 112 result never
    # leaves the core; the one kernel writes the 56 x 56 pooled result instead
    cost = CostModel(load_profile("310P3"))
    x, w = _ref((8, 3, 224, 224)), _ref((64, 3, 7, 7), space=WEIGHTS)
    y, pooled = _ref((8, 64, 112, 112)), _ref((8, 64, 56, 56))
    plain = Kernel("ge.conv2d", "AICore", [x, w], [y], flops=1.0)
    head = Kernel("ge.conv2d", "AICore", [x, w], [y], flops=1.0,
                  attributes={"fused_output": UnitAttr(), "fused_result_bytes": IntegerAttr(pooled.nbytes)})
    assert sum(cost.traffic(plain)) - sum(cost.traffic(head)) == y.nbytes - pooled.nbytes
    pool = Kernel("ge.max_pool", "AICore", [y], [pooled], attributes={"fused_operand": IntegerAttr(0)}, flops=1.0)
    c = cost.kernel(pool)
    assert c.overhead_us == 0 and c.memory_us == 0 and c.dram_bytes == 0


def test_an_attention_score_kernel_multiplies_both_matmuls_on_its_cores() -> None:
    # ZAttentionScoreFusionPass: the score MatMul heads one kernel that also multiplies
    # the probabilities by the values, on the same cores, and writes only the context
    cost = CostModel(load_profile("310P3"))
    q, scores, context = _ref((8, 12, 128, 64)), _ref((8, 12, 128, 128)), _ref((8, 12, 128, 64))
    flops = 2.0 * 8 * 12 * 128 * 128 * 64
    plain = Kernel("ge.matmul", "AICore", [q, q], [scores], attributes={"transB": IntegerAttr(1)}, flops=flops)
    head = Kernel("ge.matmul", "AICore", [q, q], [scores], flops=flops, attributes={
        "transB": IntegerAttr(1), "fused_output": UnitAttr(), "fused_cube_flops": IntegerAttr(int(flops)),
        "fused_result_bytes": IntegerAttr(context.nbytes)})
    alone, fused = cost.kernel(plain), cost.kernel(head)
    assert fused.units == alone.units
    # the second MatMul's multiplications at the first's rate (its blocks' fixed costs shared)
    extra = flops / (alone.units * cost.sustained_cube_rate(plain, "matmul"))
    assert fused.compute_us - alone.compute_us == pytest.approx(extra, rel=0.05)
    assert sum(cost.traffic(plain)) - sum(cost.traffic(head)) == scores.nbytes - context.nbytes


def _strided_conv(h: int, kernel: int, strides: tuple[int, int], pads: tuple[int, ...] = (0, 0, 0, 0),
                  **attributes: object) -> Kernel:
    x, w = _ref((64, 256, h, 56)), _ref((512, 256, kernel, kernel), space=WEIGHTS)
    out_h = (h + pads[0] + pads[2] - kernel) // strides[0] + 1
    y = _ref((64, 512, out_h, (56 + pads[1] + pads[3] - kernel) // strides[1] + 1))
    attributes = {"strides": ArrayAttr([IntegerAttr(s) for s in strides]),
                  "pads": ArrayAttr([IntegerAttr(p) for p in pads]), **attributes}
    return Kernel("ge.conv2d", "AICore", [x, w], [y], attributes=attributes, flops=1.0)


@pytest.mark.parametrize("h, expected_rows", [(56, 28), (55, 28), (7, 4)])
def test_a_one_row_high_kernel_striding_over_rows_reads_only_the_rows_it_uses(h: int, expected_rows: int) -> None:
    # TBE Conv2D's strideh_opti: the feature map enters L1 with the row stride,
    # so a ResNet downsampling 1 x 1 convolution of stride 2 reads every other row
    cost = CostModel(load_profile("310P3"))
    conv = _strided_conv(h, 1, (2, 2))
    x, w, y = conv.inputs[0], conv.inputs[1], conv.outputs[0]
    assert sum(cost.traffic(conv)) == x.nbytes * expected_rows // h + w.nbytes + y.nbytes


@settings(max_examples=100, deadline=None)
@given(h=st.integers(1, 300), stride=st.integers(2, 8))
def test_a_row_strided_load_reads_the_rows_the_output_uses_and_never_more(h: int, stride: int) -> None:
    cost = CostModel(load_profile("310P3"))
    x, w = _ref((2, 32, h, 20)), _ref((16, 32, 1, 1), space=WEIGHTS)
    rows = (h - 1) // stride + 1  # one input row per output row
    y = _ref((2, 16, rows, 20))
    attributes = {"strides": ArrayAttr([IntegerAttr(stride), IntegerAttr(1)]),
                  "pads": ArrayAttr([IntegerAttr(0)] * 4)}
    conv = Kernel("ge.conv2d", "AICore", [x, w], [y], attributes=attributes, flops=1.0)
    read = sum(cost.traffic(conv)) - w.nbytes - y.nbytes
    assert read == pytest.approx(x.nbytes / h * rows) and read <= x.nbytes


@pytest.mark.parametrize("conv", [
    _strided_conv(56, 3, (2, 2), (1, 1, 1, 1)),           # a 3 x 3 window needs every row
    _strided_conv(56, 1, (1, 2)),                         # a column stride loads whole rows
    _strided_conv(56, 1, (2, 2), (0, 0, 1, 1)),           # padded: the ordinary load
    _strided_conv(56, 1, (2, 2), small_channel=UnitAttr()),  # the C04 layout's load
], ids=["3x3", "column-stride", "padded", "small-channel"])
def test_every_other_convolution_reads_its_whole_input(conv: Kernel) -> None:
    cost = CostModel(load_profile("310P3"))
    assert sum(cost.traffic(conv)) == sum(r.nbytes for r in (*conv.inputs, *conv.outputs))


def test_no_task_ops_take_no_time() -> None:
    cost = CostModel(load_profile("310P3"))
    reshape = Kernel("ge.reshape", "AICore", [_ref((2, 8))], [_ref((16,))])
    assert cost.kernel(reshape).duration_us == 0
    back_to_back = Kernel("ge.concat", "AICore", [_ref((1, 8, 4)), _ref((1, 8, 4))], [_ref((1, 16, 4))],
                          attributes={"axis": IntegerAttr(1)})
    interleaved = Kernel("ge.concat", "AICore", [_ref((2, 8, 4)), _ref((2, 8, 4))], [_ref((2, 16, 4))],
                         attributes={"axis": IntegerAttr(1)})
    assert cost.kernel(back_to_back).duration_us == 0
    assert cost.kernel(interleaved).duration_us > 0
    # producers that write into the concat's channel slices (GE's StridedWrite) leave it nothing to do
    strided = Kernel("ge.concat", "AICore", interleaved.inputs, interleaved.outputs,
                     attributes={"axis": IntegerAttr(1), "strided_write": UnitAttr()})
    assert cost.kernel(strided).duration_us == 0


def test_block_dim_and_the_core_cap_win_over_the_tiling() -> None:
    cost = CostModel(load_profile("310P3"))
    k = _fc(1)
    assert cost.kernel(k).units == 8
    k.block_dim = 2
    assert cost.kernel(k).units == 2
    capped = Kernel(k.op, k.engine, k.inputs, k.outputs, attributes={"_op_aicore_num": IntegerAttr(3)},
                    flops=k.flops)
    assert cost.kernel(capped).units == 3


# ================================================================ graph fusion numerics


@pytest.mark.parametrize("order,fused", [("half of the product", True), ("half of x", True),
                                         ("half of x, operands swapped", True), ("half of the sum", False)])
def test_fused_gelu_computes_what_the_decomposed_graph_does(order: str, fused: bool) -> None:
    # GE's GeluONNXFusionPass: x (1 + erf(x / sqrt 2)) 0.5, the half taken of the product (torch's
    # export) or of x; not of the sum, which its patterns do not take
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])
    consts = [helper.make_tensor(n, TensorProto.FLOAT, [], [v])
              for n, v in (("s", 2 ** 0.5), ("one", 1.0), ("half", 0.5))]
    nodes = [helper.make_node("Div", ["x", "s"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["a"])]
    nodes += {"half of the product": [helper.make_node("Mul", ["x", "a"], ["m"]),
                                      helper.make_node("Mul", ["m", "half"], ["y"])],
              "half of x": [helper.make_node("Mul", ["x", "half"], ["h"]), helper.make_node("Mul", ["h", "a"], ["y"])],
              "half of x, operands swapped": [helper.make_node("Mul", ["half", "x"], ["h"]),
                                              helper.make_node("Mul", ["a", "h"], ["y"])],
              "half of the sum": [helper.make_node("Mul", ["a", "half"], ["h"]),
                                  helper.make_node("Mul", ["x", "h"], ["y"])]}[order]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y], consts),
                              opset_imports=[helper.make_opsetid("", 17)])
    module = geir.import_onnx(model.SerializeToString())
    geir.run_pipeline(module, "fuse-graph")
    names = [op.name for op in next(module.graphs()).regions[0].blocks[0].ops]
    assert ("ge.gelu" in names and "ge.erf" not in names) == fused
    data = np.linspace(-3, 3, 32, dtype=np.float32).reshape(2, 16)
    report = geir.emulate(geir.lower(module), device="910B2", inputs={"x": data})
    expected = ReferenceEvaluator(model).run(None, {"x": data})[0]
    np.testing.assert_allclose(report.outputs["y"], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("order", ["half of x", "half of the sum", "half of the product"])
def test_fused_tanh_gelu_computes_what_the_decomposed_graph_does(order: str) -> None:
    # GE's GeluFusionPass: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in each order GE and exporters write
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])
    consts = [helper.make_tensor(n, TensorProto.FLOAT, [], [v])
              for n, v in (("three", 3.0), ("c", 0.044715), ("s", (2 / np.pi) ** 0.5), ("one", 1.0), ("half", 0.5))]
    nodes = [helper.make_node("Pow", ["x", "three"], ["p"]), helper.make_node("Mul", ["p", "c"], ["m0"]),
             helper.make_node("Add", ["x", "m0"], ["a0"]), helper.make_node("Mul", ["a0", "s"], ["m1"]),
             helper.make_node("Tanh", ["m1"], ["t"]), helper.make_node("Add", ["t", "one"], ["a1"])]
    nodes += {"half of x": [helper.make_node("Mul", ["x", "half"], ["h"]), helper.make_node("Mul", ["h", "a1"], ["y"])],
              "half of the sum": [helper.make_node("Mul", ["a1", "half"], ["h"]),
                                  helper.make_node("Mul", ["x", "h"], ["y"])],
              "half of the product": [helper.make_node("Mul", ["x", "a1"], ["h"]),
                                      helper.make_node("Mul", ["h", "half"], ["y"])]}[order]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y], consts),
                              opset_imports=[helper.make_opsetid("", 17)])
    module = geir.import_onnx(model.SerializeToString())
    geir.run_pipeline(module, "fuse-graph")
    ops = list(next(module.graphs()).regions[0].blocks[0].ops)
    assert [op.name for op in ops if op.name not in ("ge.const", "ge.weights")] == ["ge.gelu", "ge.return"]
    data = np.linspace(-4, 4, 32, dtype=np.float32).reshape(2, 16)
    report = geir.emulate(geir.lower(module), device="910B2", inputs={"x": data})
    expected = ReferenceEvaluator(model).run(None, {"x": data})[0]
    np.testing.assert_allclose(report.outputs["y"], expected, rtol=1e-5, atol=1e-6)
