"""``bench/fidelity_components.py``: a row's emulated time split by what bounds
each kernel, and the scale per part that measurements ask for."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile

from calibration_bench import load_bench_script


@pytest.fixture(scope="module")
def components() -> ModuleType:
    return load_bench_script("fidelity_components.py", "fidelity_components_bench")


def test_the_parts_of_a_row_sum_to_its_emulated_time(components: ModuleType) -> None:
    fidelity = components.fidelity
    row = [r for r in fidelity.load_rows(fidelity.MORE_DIR, ["mnasnet1_0"]) if r.batch == 4][0]
    tl = fidelity.compile_row(fidelity.MORE_DIR, row, "310P3", "ge")
    profile = load_profile("310P3")
    warm = tl.weight_size + tl.arena_size <= profile["l2_bytes"]  # as fidelity's warm-up leaves L2
    parts = components.components(components.kernel_costs(tl, CostModel(profile, warm_weights=warm)), warm,
                                  profile["model_execute_us"])
    assert set(parts) == set(components.PARTS)
    assert sum(parts.values()) == pytest.approx(fidelity.emulate_ms(tl, "310P3"), rel=1e-6)
    # MnasNet's depthwise layers are grouped convolutions; its classifier is a Gemm
    assert parts["cube: grouped convolution"] > 0 and parts["cube: 1x1 convolution"] > 0
    assert parts["kernel fixed cost"] > 0
    # ais_bench's clock holds the host's synchronous execute, a part of its own
    assert parts["host: synchronous execute"] == pytest.approx(profile["model_execute_us"] / 1000.0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.2, 5.0), min_size=3, max_size=3), st.integers(0, 2**31 - 1))
def test_scales_that_made_the_measurements_are_found_again(components: ModuleType, truth: list[float],
                                                           seed: int) -> None:
    parts = np.random.default_rng(seed).uniform(0.1, 1.0, size=(12, 3))
    measured = parts @ np.array(truth)
    assert components.fit_scales(parts, measured) == pytest.approx(truth, rel=1e-4)


def test_a_part_with_almost_no_time_keeps_scale_one(components: ModuleType) -> None:
    parts = np.array([[1.0, 0.0, 1e-6], [2.0, 0.0, 0.0], [3.0, 0.0, 1e-6]])
    scale = components.fit_scales(parts, 2.0 * parts[:, 0])
    assert scale == pytest.approx([2.0, 1.0, 1.0], rel=1e-4)


@pytest.mark.parametrize("model,batch", [("mnasnet1_0", 4), ("resnet34", 64)])
def test_the_emulated_time_never_beats_its_own_physical_floors(components: ModuleType, model: str,
                                                                batch: int) -> None:
    # The floors are the model's DRAM bytes at the card's full bandwidth and the useful
    # cube FLOPs at the cube's peak: the emulator, which charges both at sustained
    # rates, can never be faster than either.
    fidelity = components.fidelity
    row = [r for r in fidelity.load_rows(fidelity.MORE_DIR, [model]) if r.batch == batch][0]
    tl = fidelity.compile_row(fidelity.MORE_DIR, row, "310P3", "ge")
    profile = load_profile("310P3")
    dram_ms, cube_ms = components.floors(components.kernel_costs(tl, CostModel(profile)), profile)
    emulated = fidelity.emulate_ms(tl, "310P3")
    assert 0 < cube_ms < emulated
    assert 0 <= dram_ms < emulated
    if batch == 64:  # ResNet-34 at batch 64 spills its activations out of L2
        assert dram_ms > 0.25 * emulated
