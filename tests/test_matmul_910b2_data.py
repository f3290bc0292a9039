"""``bench/measured_910b2/``: CANN's MatMul kernels measured on one 910B2, the
only 910B2 times the profile is held against. Every case is a measurement with
its source, and the profile states the error they give today."""

from __future__ import annotations

import statistics
from types import ModuleType

import pytest

from geir.backends.device_profile import load_profile

from calibration_bench import load_bench_script, task_kernels

_TABLE = "bench/measured_910b2/matmul-910b2.csv"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("fidelity_matmul.py", "fidelity_matmul_910b2")


def test_every_case_is_a_sourced_measurement_of_one_matmul(bench: ModuleType) -> None:
    cases = bench.load_cases()
    assert len(cases) == 20 and len({c.case for c in cases}) == 20
    for c in cases:
        assert c.m > 0 and c.k > 0 and c.n > 0 and c.dtype in ("f16", "bf16")
        assert c.measured_us > 0 and c.source.startswith("hicann/cann-bench@")


def test_a_case_is_one_matmul_kernel_of_its_types(bench: ModuleType) -> None:
    case = bench.load_cases()[19]
    kernels = task_kernels(bench.compile_case(case, "910B2"))
    assert [k.op for k in kernels] == ["ge.matmul"]
    assert [r.dtype for r in kernels[0].inputs] == ["bf16", "bf16"]


def test_the_910b2_profile_states_the_error_the_cases_give_today(bench: ModuleType) -> None:
    # ge-run prints this beside every 910B2 time: a cost-model change that moves a
    # figure must restate it (python bench/fidelity_matmul.py prints it)
    cases = bench.load_cases()
    ratios = bench.evaluate(cases, [bench.compile_case(c, "910B2") for c in cases], "910B2")
    calibration = load_profile("910B2").calibration
    assert calibration is not None and calibration.command == "python bench/fidelity_matmul.py"
    mape = 100 * statistics.fmean(abs(r - 1) for r in ratios)
    assert round(mape, 2) == calibration.mape_percent[_TABLE]
    within = sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5)
    assert calibration.result.startswith(f"MAPE {mape:.1f}%, {within} of {len(cases)} within 1.5x")
