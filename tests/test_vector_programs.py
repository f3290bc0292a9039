"""A 910B vector kernel's compute is the cycles of the instructions its CANN kernel
issues per element (Huawei's per-API table), its fixed cost adds the pipelines'
heads, norm kernels run on one buffer, and a transpose that moves the last axis
loads and stores each tile in turn at a core's own transfer rates."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.task_list import ARENA, Kernel, TensorRef
from geir.backends.vector_programs import (API_CYCLES, CAST_DOWN, CAST_FROM_8, CAST_TO_8, CAST_UP, PROGRAMS,
                                           SINGLE_BUFFERED, TO_F32, cycles_per_element, flop_cycles,
                                           mte_cycles, pipeline_head_cycles, softmax_workspace_bytes)


def _kernel(op: str, shapes: list[tuple[int, ...]], dtype: str, out: tuple[int, ...] | None = None,
            **attributes: object) -> Kernel:
    """One ``ge.{op}`` kernel on arena tensors, its cost hint four FLOPs an element."""
    inputs = [TensorRef(ARENA, 0, s, dtype) for s in shapes]
    result = TensorRef(ARENA, 0, out or shapes[0], dtype)
    return Kernel(f"ge.{op}", "AICore", inputs=inputs, outputs=[result], attributes=dict(attributes),
                  flops=4.0 * math.prod(result.shape))


def test_every_program_step_is_an_api_of_the_table() -> None:
    for op, program in PROGRAMS.items():
        for step in program:
            assert step == TO_F32 or step in API_CYCLES, (op, step)


def test_an_f32_program_sums_its_apis_at_the_32_bit_rate() -> None:
    assert cycles_per_element("gelu", "f32") == pytest.approx(
        sum(API_CYCLES[a][1] for a in PROGRAMS["gelu"] if a != TO_F32))


@given(st.sampled_from(sorted(PROGRAMS)))
def test_bf16_computes_in_f32_between_casts(op: str) -> None:
    """The 910B's vector unit has no bf16 arithmetic: each input element is cast up,
    the f32 program runs, the result is cast down."""
    assert cycles_per_element(op, "bf16", 2.0) == pytest.approx(
        cycles_per_element(op, "f32") + 2.0 * CAST_UP + CAST_DOWN)


@given(st.sampled_from(sorted(op for op, p in PROGRAMS.items() if TO_F32 in p)))
def test_f16_is_cast_where_the_kernel_moves_to_f32(op: str) -> None:
    program = PROGRAMS[op]
    cut = program.index(TO_F32)
    before = sum(API_CYCLES[a][0] for a in program[:cut])
    after = sum(API_CYCLES[a][1] for a in program[cut + 1:])
    assert cycles_per_element(op, "f16") == pytest.approx(before + CAST_UP + after + CAST_DOWN)


def test_a_transcendental_costs_as_the_table_says_not_four_adds() -> None:
    # an f16 Exp is no faster per element than an f32 one
    assert cycles_per_element("exp", "f16") == pytest.approx(0.0311)
    assert cycles_per_element("exp", "f32") == pytest.approx(0.0307)
    assert cycles_per_element("exp", "f16") != pytest.approx(4 * API_CYCLES["add"][0])


def test_eight_bit_maximum_goes_through_f16() -> None:
    assert cycles_per_element("max", "i8", 2.0) == pytest.approx(2 * CAST_FROM_8 + API_CYCLES["max"][0] + CAST_TO_8)


def test_ops_without_a_program_or_64_bit_fall_back_to_flops() -> None:
    assert cycles_per_element("layer_normalization", "f16") is None
    assert cycles_per_element("max", "i64") is None
    assert flop_cycles("f16") == API_CYCLES["add"][0]
    assert flop_cycles("bf16") == API_CYCLES["add"][0]
    assert flop_cycles("f32") == API_CYCLES["add"][1]
    assert flop_cycles("i64") == 2 * API_CYCLES["add"][1]


def test_pipeline_heads_grow_with_cores_and_large_loads() -> None:
    small, large = pipeline_head_cycles(48, 1024), pipeline_head_cycles(48, 25000)
    assert small == pytest.approx(300 + 15.89 * 48 + 882.09 + 497.36 + 37.37)
    assert large == pytest.approx(300 + 32.72 * 48 + 1575.03 + 497.36 + 37.37)
    assert pipeline_head_cycles(1, 25000) < large


@pytest.mark.parametrize("shape, axis, spill", [
    ((4096, 4096), -1, False),  # the last axis: rows in UB
    ((8, 64, 32), 1, False),  # 64 x 8 blocks of f32 fit a tile
    ((127, 257, 1023), -2, True),  # 257 rows x 128 f16 lanes do not
    ((367, 373, 379), 1, True),
])
def test_softmax_over_a_non_last_axis_spills_to_a_workspace(shape: tuple[int, ...], axis: int, spill: bool) -> None:
    nbytes = 2 if shape[0] == 127 else 4
    extra = softmax_workspace_bytes(shape, axis, nbytes)
    # read the input again, write the f32 exponentials once and read them twice
    assert extra == (math.prod(shape) * (nbytes + 12) if spill else 0.0)


def test_the_910b2_costs_a_vector_kernel_by_its_instructions() -> None:
    profile = load_profile("910B2")
    cost = CostModel(profile)
    n = 48 * 65536
    k = _kernel("sigmoid", [(n,)], "f16")
    c = cost.kernel(k)
    assert c.units == 48
    expected = cycles_per_element("sigmoid", "f16") * n / 48 / (1800 * profile.values["vector_efficiency"])
    assert c.compute_us == pytest.approx(expected)
    assert c.overhead_us == pytest.approx(
        profile.values["kernel_overhead_us"] + pipeline_head_cycles(48, 2 * n / 48) / 1800)


def test_a_device_without_the_table_keeps_the_lanes_rate() -> None:
    profile = load_profile("310P3")
    k = _kernel("sigmoid", [(8 * 65536,)], "f16")
    c = CostModel(profile).kernel(k)
    rate = profile.values["clock_mhz"] * profile.values["vector_flops_per_cycle"] * profile.values["vector_efficiency"]
    assert c.compute_us == pytest.approx(k.flops / (c.units * rate))
    assert c.overhead_us == profile.values["kernel_overhead_us"]


@pytest.mark.parametrize("op, shapes, out, attributes", [
    ("rms_normalization", [(4096, 768), (768,)], (4096, 768), {}),
    ("softmax", [(4096, 1024)], None, {"axis": -1}),
    ("max", [(2049, 513), (1, 513)], (2049, 513), {}),
])
def test_single_buffered_kernels_add_compute_and_memory(op: str, shapes: list[tuple[int, ...]],
                                                         out: tuple[int, ...] | None, attributes: dict) -> None:
    """Norm kernels and broadcasts run one tile's load, compute and store in turn."""
    c = CostModel(load_profile("910B2")).kernel(_kernel(op, shapes, "f16", out, **attributes))
    assert c.duration_us == pytest.approx(c.overhead_us + c.compute_us + c.memory_us)
    assert op in SINGLE_BUFFERED or len(shapes) > 1


def test_an_elementwise_kernel_overlaps_compute_and_memory() -> None:
    c = CostModel(load_profile("910B2")).kernel(_kernel("add", [(1 << 20,), (1 << 20,)], "f16"))
    assert c.duration_us == pytest.approx(c.overhead_us + max(c.compute_us, c.memory_us))


def test_a_softmax_over_another_axis_reduces_across_rows() -> None:
    """Over a non-last axis the reductions are elementwise Max and Add, not row reductions."""
    profile = load_profile("910B2")
    n = 48 * 64 * 1024
    over_rows = CostModel(profile).kernel(_kernel("softmax", [(48, 64, 1024)], "f16", axis=1))
    along = CostModel(profile).kernel(_kernel("softmax", [(48, 64, 1024)], "f16", axis=-1))
    scale = n / 48 / (1800 * profile.values["vector_efficiency"])
    assert over_rows.compute_us == pytest.approx(cycles_per_element("softmax_non_last", "f16") * scale)
    assert along.compute_us == pytest.approx(cycles_per_element("softmax", "f16") * scale)
    assert over_rows.compute_us < along.compute_us


def test_a_core_moves_about_ten_bytes_a_cycle_each_way() -> None:
    # perf_param_v1.cpp: Load a=9.9074 b=15.8960 (LoadSmallBlk 7.9052, 7.31 under 25,000
    # bytes), Store a=9.96 b=3.79, each bytes / (a + b / block_dim)
    assert mte_cycles(48, 1e6, 0.0) == pytest.approx(1e6 / (9.9074 + 15.8960 / 48))
    assert mte_cycles(48, 0.0, 1e6) == pytest.approx(1e6 / (9.96 + 3.79 / 48))
    assert mte_cycles(1, 24999.0, 0.0) == pytest.approx(24999.0 / (7.9052 + 7.31))


def _transpose(shape: tuple[int, ...], perm: tuple[int, ...], dtype: str = "f32") -> Kernel:
    return _kernel("transpose", [shape], dtype, tuple(shape[p] for p in perm), perm=list(perm))


def test_a_transpose_moving_the_last_axis_loads_and_stores_in_turn() -> None:
    """TBE's Transpose keeps one buffer: each core's bytes in, then out, at its own
    rates (bench/fidelity_910b2.py holds the result against CANN's kernels)."""
    profile = load_profile("910B2")
    c = CostModel(profile).kernel(_transpose((2048, 2048), (1, 0)))
    share = 2048 * 2048 * 4 / 48
    assert c.units == 48
    assert c.memory_us == pytest.approx(mte_cycles(48, share, share) / 1800)
    assert c.duration_us == pytest.approx(c.overhead_us + c.compute_us + c.memory_us)


def test_a_transpose_keeping_the_last_axis_is_a_double_buffered_copy() -> None:
    c = CostModel(load_profile("910B2")).kernel(_transpose((64, 512, 2048), (1, 0, 2)))
    assert c.duration_us == pytest.approx(c.overhead_us + max(c.compute_us, c.memory_us))
    assert c.memory_us < mte_cycles(c.units, 64 * 512 * 2048 * 4 / c.units, 64 * 512 * 2048 * 4 / c.units) / 1800


def test_a_device_without_the_table_prices_every_transpose_alike() -> None:
    cost = CostModel(load_profile("310P3"))
    moving = cost.kernel(_transpose((2048, 2048), (1, 0), "f16"))
    keeping = cost.kernel(_transpose((2048, 1, 2048), (1, 0, 2), "f16"))
    assert moving.duration_us == pytest.approx(keeping.duration_us)


@given(st.lists(st.integers(1, 5), min_size=1, max_size=5).flatmap(
    lambda dims: st.tuples(st.just(tuple(dims)), st.permutations(range(len(dims))),
                           st.integers(0, len(dims)), st.integers(0, len(dims)))))
def test_only_a_transpose_whose_last_long_axis_ends_elsewhere_loads_and_stores_in_turn(
        case: tuple[tuple[int, ...], list[int], int, int]) -> None:
    """The last axis moving puts a transpose on one buffer; an axis of one element
    moves nothing, wherever it stands before and after."""
    dims, perm, at, to = case
    shape = tuple(d * 64 for d in dims)
    cost = CostModel(load_profile("910B2"))
    c = cost.kernel(_transpose(shape, tuple(perm)))
    if perm[-1] != len(shape) - 1:
        assert c.duration_us == pytest.approx(c.overhead_us + c.compute_us + c.memory_us)
    else:
        assert c.duration_us == pytest.approx(c.overhead_us + max(c.compute_us, c.memory_us))
    # the same transpose with an axis of one element inserted at ``at`` of the input,
    # which the permutation puts at ``to`` of the result
    wider = shape[:at] + (1,) + shape[at:]
    moved = [p + (p >= at) for p in perm]
    wider_perm = tuple(moved[:to] + [at] + moved[to:])
    assert cost.kernel(_transpose(wider, wider_perm)).duration_us == pytest.approx(c.duration_us)
