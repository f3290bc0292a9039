"""``bench/measured_910b2/``: CANN's own kernels measured on one 910B2 (MatMul,
Sigmoid, GELU, Maximum, Exp, Softmax, Transpose, Mish, RmsNorm), the only 910B2
times the profile is held against. Every case is
a sourced measurement of one kernel, and the profile states the error each
table gives today."""

from __future__ import annotations

from types import ModuleType

import pytest

from geir.backends.cost_model import CostModel
from geir.backends.device_profile import load_profile

from calibration_bench import load_bench_script, task_kernels


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("fidelity_910b2.py", "fidelity_910b2")


def test_every_case_is_a_sourced_measurement(bench: ModuleType) -> None:
    cases = bench.load_cases()
    tables = bench.by_table(cases, [1.0] * len(cases))
    assert {t: len(v) for t, v in tables.items()} == {"matmul-910b2.csv": 20, "vector-910b2.csv": 40,
                                                      "ops-910b2.csv": 75}
    for c in cases:
        assert c.measured_us > 0 and c.source.startswith("hicann/cann-bench@")


@pytest.mark.parametrize("index,op,types", [(19, "ge.matmul", ["bf16", "bf16"]), (22, "ge.sigmoid", ["bf16"]),
                                            (41, "ge.gelu", ["f32"]), (70, "ge.max", ["f32", "f32"]),
                                            (100, "ge.transpose", ["i32"]), (101, "ge.transpose", ["i64"]),
                                            (102, "ge.mish", ["f32"]), (117, "ge.rms_normalization", ["f16", "f16"])])
def test_a_case_is_one_kernel_of_its_types(bench: ModuleType, index: int, op: str, types: list[str]) -> None:
    kernels = task_kernels(bench.compile_case(bench.load_cases()[index], "910B2"))
    assert [k.op for k in kernels] == [op]
    assert [r.dtype for r in kernels[0].inputs] == types


def test_a_case_reads_its_inputs_from_dram(bench: ModuleType) -> None:
    # cann-bench launches each operator on its own: nothing just left its inputs in
    # L2, as a producer inside a model would have
    case = bench.load_cases()[61]  # Maximum on two 2048 x 2048 f32 inputs: 48 MiB, within L2
    task_list = bench.compile_case(case, "910B2")
    cost = CostModel(load_profile("910B2"))
    in_l2 = sum(cost.kernel(k).duration_us for k in task_kernels(task_list))
    assert bench.kernel_us(task_list, cost) > 2 * in_l2


def test_the_910b2_profile_states_the_error_each_table_gives_today(bench: ModuleType) -> None:
    # ge-run prints this beside every 910B2 time: a cost-model change that moves a
    # figure must restate it (python bench/fidelity_910b2.py prints it)
    cases = bench.load_cases()
    ratios = bench.evaluate(cases, [bench.compile_case(c, "910B2") for c in cases], "910B2")
    calibration = load_profile("910B2").calibration
    assert calibration is not None and calibration.command == "python bench/fidelity_910b2.py"
    summaries = {t: bench.summarize(r) for t, r in bench.by_table(cases, ratios).items()}
    for table, s in summaries.items():
        assert round(s.mape, 2) == calibration.mape_percent[f"bench/measured_910b2/{table}"]
    matmul, vector, ops = (summaries[f"{t}-910b2.csv"] for t in ("matmul", "vector", "ops"))
    assert calibration.result.startswith(
        f"MatMul MAPE {matmul.mape:.1f}% ({matmul.within} of {matmul.cases} within 1.5x), Sigmoid and GELU "
        f"{vector.mape:.1f}% ({vector.within} of {vector.cases}, vector_efficiency fitted to them), Maximum, Exp, "
        f"Softmax, Transpose, Mish and RmsNorm {ops.mape:.1f}% ({ops.within} of {ops.cases},")
