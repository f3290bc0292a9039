"""A 910B vector kernel's compute is the cycles of the instructions its CANN kernel
issues per element (Huawei's per-API table), its fixed cost adds the pipelines'
heads, every instruction pays its fixed cycles once a UB tile (an elementwise
kernel's tile sized as TBE's schedule sizes it), norm kernels run on one buffer,
RmsNorm pays each instruction's fixed cycles per row or tile as ops-nn's tiling cuts
it, and a transpose that moves the last axis loads and stores each tile in turn at a
core's own transfer rates."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile
from geir.backends.task_list import ARENA, Kernel, TensorRef
from geir.backends.vector_programs import (API_CYCLES, API_HEAD_CYCLES, CAST_DOWN, CAST_FROM_8, CAST_HEADS,
                                           CAST_TO_8, CAST_UP, ELEWISE_GRAPHS, GAMMA_TO_F32,
                                           LOAD_HEAD_CYCLES, PROGRAMS, SINGLE_BUFFERED, STORE_HEAD_CYCLES, TO_F32,
                                           coexisting_tensors, cycles_per_element, elewise_graph, elewise_tiles,
                                           flop_cycles, mte_cycles, pipeline_head_cycles, rms_norm_tiling,
                                           softmax_workspace_bytes)


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
            assert step in (TO_F32, GAMMA_TO_F32) or step in API_CYCLES, (op, step)


def test_an_f32_program_sums_its_apis_at_the_32_bit_rate() -> None:
    assert cycles_per_element("gelu", "f32") == pytest.approx(
        sum(API_CYCLES[a][1] for a in PROGRAMS["gelu"] if a != TO_F32))


@given(st.sampled_from(sorted(PROGRAMS)))
def test_bf16_computes_in_f32_between_casts(op: str) -> None:
    """The 910B's vector unit has no bf16 arithmetic: each input element is cast up,
    the f32 program runs, the result is cast down."""
    gamma = CAST_UP if GAMMA_TO_F32 in PROGRAMS[op] else 0.0
    assert cycles_per_element(op, "bf16", 2.0) == pytest.approx(
        cycles_per_element(op, "f32") + 2.0 * CAST_UP + gamma + CAST_DOWN)


@given(st.sampled_from(sorted(op for op, p in PROGRAMS.items() if TO_F32 in p)))
def test_f16_is_cast_where_the_kernel_moves_to_f32(op: str) -> None:
    program = PROGRAMS[op]
    cut = program.index(TO_F32)
    before = sum(API_CYCLES[a][0] for a in program[:cut])
    after = sum(API_CYCLES[a][1] if a != GAMMA_TO_F32 else CAST_UP for a in program[cut + 1:])
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
    tiles, heads = elewise_tiles("sigmoid", "f16", n / 48)
    expected = cycles_per_element("sigmoid", "f16") * n / 48 / (1800 * profile.values["vector_efficiency"])
    assert c.compute_us == pytest.approx(expected + tiles * heads / 1800)
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


@pytest.mark.parametrize("cols, dtype, mode", [
    (2000, "f16", "merge_n"), (1993, "f32", "merge_n"), (2001, "f16", "normal"), (2049, "f32", "normal"),
    (12288, "bf16", "normal"), (12289, "bf16", "split_d"), (10240, "f32", "normal"), (10241, "f32", "split_d"),
])
def test_rms_norm_tiles_rows_as_ops_nn_does(cols: int, dtype: str, mode: str) -> None:
    """rms_norm_tiling.cpp on the 910B: aligned rows of at most 2,000 merge into UB
    tiles, longer rows go one at a time up to the UB factor (12,288 16-bit or 10,240
    f32 elements), and longer ones in slices, read twice."""
    tiling = rms_norm_tiling(4096, cols, dtype, 48)
    assert tiling.mode == mode
    assert tiling.reads == (2 if mode == "split_d" else 1)
    assert tiling.program == ("rms_normalization" if mode == "merge_n" else "rms_normalization_row")


def test_a_row_at_a_time_pays_every_instruction_head_per_row() -> None:
    """A NORMAL row of 2,048 f32 elements: load, square, five halving Adds and a
    WholeReduceSum, scale by rstd, times gamma, store, each behind a pipe barrier."""
    h = {api: heads[1] for api, heads in API_HEAD_CYCLES.items()}  # f32
    row = (LOAD_HEAD_CYCLES + h["mul"] + 5 * h["add"] + h["whole_reduce_sum"] + h["muls"] + h["mul"]
           + STORE_HEAD_CYCLES)
    tiling = rms_norm_tiling(4096, 2048, "f32", 48)
    assert (tiling.units, tiling.rows_per_core) == (48, 86)
    assert tiling.head_cycles == pytest.approx(86 * row + 2 * STORE_HEAD_CYCLES)
    # 16-bit rows also cast x up, gamma up and the result down
    casts = 2 * CAST_HEADS["cast_up"] + CAST_HEADS["cast_down"]
    assert rms_norm_tiling(4096, 2048, "bf16", 48).head_cycles == pytest.approx(86 * (row + casts)
                                                                                 + 2 * STORE_HEAD_CYCLES)


def test_a_row_at_a_time_scales_by_a_scalar_and_casts_gamma_each_row() -> None:
    assert cycles_per_element("rms_normalization_row", "f32") == pytest.approx(
        sum(API_CYCLES[a][1] for a in ("mul", "add", "muls", "mul")))
    assert cycles_per_element("rms_normalization_row", "bf16", 1.0) == pytest.approx(
        CAST_UP + sum(API_CYCLES[a][1] for a in ("mul", "add", "muls", "mul")) + CAST_UP + CAST_DOWN)


@given(st.integers(0, 100_000), st.integers(0, 20_000), st.sampled_from(["f16", "bf16", "f32"]),
       st.integers(1, 48))
def test_rms_norm_gives_each_core_whole_rows(rows: int, cols: int, dtype: str, cores: int) -> None:
    """Every row on exactly one core, no core idle, never more cores than allowed."""
    tiling = rms_norm_tiling(rows, cols, dtype, cores)
    rows = max(1, rows)  # an empty x still launches one core
    assert 1 <= tiling.units <= min(cores, rows)
    assert (tiling.units - 1) * tiling.rows_per_core < rows <= tiling.units * tiling.rows_per_core
    assert tiling.head_cycles > 0


def test_the_910b2_prices_short_rows_above_long_ones_of_the_same_elements() -> None:
    """Per-row heads: 8,192 rows of 2,048 cost more than 4,096 rows of 4,096, where a
    device priced by lanes alone sees the same work."""
    many = _kernel("rms_normalization", [(8192, 2048), (2048,)], "f16")
    few = _kernel("rms_normalization", [(4096, 4096), (4096,)], "f16")
    b2 = CostModel(load_profile("910B2"))
    assert b2.kernel(many).compute_us > 1.2 * b2.kernel(few).compute_us
    p3 = CostModel(load_profile("310P3"))
    assert p3.kernel(many).compute_us == pytest.approx(p3.kernel(few).compute_us)


def test_a_row_split_in_slices_reads_x_twice() -> None:
    x = _kernel("rms_normalization", [(64, 16384), (16384,)], "f32")
    dram, l2 = CostModel(load_profile("910B2")).traffic(x)
    nbytes = 64 * 16384 * 4
    assert dram + l2 == pytest.approx(3 * nbytes + 16384 * 4)


@pytest.mark.parametrize("op", sorted(ELEWISE_GRAPHS))
def test_an_elementwise_graph_issues_its_programs_instructions(op: str) -> None:
    """The compute graph that sizes the tiles is the program that prices the elements."""
    issued = sorted(api for _, api, ins in ELEWISE_GRAPHS[op] if ins)
    assert issued == sorted(a for a in PROGRAMS[op] if a not in (TO_F32, GAMMA_TO_F32))


def _chain(length: int, reads_input_again: bool) -> dict[str, tuple[str, tuple[str, ...]]]:
    graph: dict[str, tuple[str, tuple[str, ...]]] = {"x": ("input", ())}
    previous = "x"
    for i in range(length):
        graph[f"n{i}"] = ("muls", (previous,))
        previous = f"n{i}"
    if reads_input_again:
        graph["r"] = ("mul", ("x", previous))
    return graph


@given(st.integers(1, 30))
def test_a_chain_keeps_two_tensors_alive(length: int) -> None:
    """Each step reads the last one's result and writes a new one (TBE's schedule
    gives a result its own buffer when its input was loaded or is still needed)."""
    assert coexisting_tensors(_chain(length, False)) == 2


@given(st.integers(1, 30))
def test_an_input_read_again_at_the_end_stays_alive_throughout(length: int) -> None:
    assert coexisting_tensors(_chain(length, True)) == 3


@pytest.mark.parametrize("op, dtype, tensors", [
    ("exp", "f32", 2), ("max", "f16", 4), ("gelu", "f32", 3), ("gelu", "bf16", 3), ("mish", "f32", 6),
])
def test_tbe_keeps_this_many_tensors_in_ub(op: str, dtype: str, tensors: int) -> None:
    """Walked as elewise_schedule.py walks them: GELU's x is read by three nodes and
    the divide, so x and one running result live together with the next; a binary
    op's two inputs earn one more."""
    assert coexisting_tensors(elewise_graph(op, dtype)) == tensors


def test_a_core_share_that_fits_one_tile_is_not_double_buffered() -> None:
    # GELU in f32: 192 KiB over three tensors is 16,384 f32 elements (16,383 at most a
    # tile) in one buffer, 8,192 in each of two once the share needs more than one tile
    assert elewise_tiles("gelu", "f32", 16383)[0] == 1
    assert elewise_tiles("gelu", "f32", 16384)[0] == 2
    assert elewise_tiles("gelu", "f32", 8192 * 10)[0] == 10


def test_a_tile_holds_at_most_the_split_factor() -> None:
    # Exp in f32 over two tensors would hold 24,576 elements; elewise_v3.cc caps it at 16,383
    assert elewise_tiles("exp", "f32", 16383)[0] == 1
    assert elewise_tiles("exp", "f32", 16384)[0] == 2


def test_a_tile_pays_each_instruction_and_cast_once() -> None:
    _, heads = elewise_tiles("sigmoid", "f16", 1e6)
    # muls, exp, adds, div in f32; the broadcast 1 issues nothing a tile
    expected = sum(API_HEAD_CYCLES[a][1] for a in ("muls", "exp", "adds", "div"))
    assert heads == pytest.approx(expected + CAST_HEADS["cast_up"] + CAST_HEADS["cast_down"])
    assert elewise_graph("exp", "i64") is None and elewise_tiles("softmax", "f16", 1e6) is None


def test_the_910b2_adds_the_tiles_fixed_cycles_to_an_elementwise_kernel() -> None:
    profile = load_profile("910B2")
    n = 48 * 65536
    c = CostModel(profile).kernel(_kernel("mish", [(n,)], "f32"))
    tiles, heads = elewise_tiles("mish", "f32", n / 48)
    per_element = cycles_per_element("mish", "f32") * n / 48 / (1800 * profile.values["vector_efficiency"])
    assert c.compute_us == pytest.approx(per_element + tiles * heads / 1800)
