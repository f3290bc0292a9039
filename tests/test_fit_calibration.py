"""``bench/fit_calibration.py``: one parameter set per device, fitted by least
squares of log(emulated/measured), and the held-out check that the set predicts
architectures the fit has not seen."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Sequence

import numpy as np
import pytest

from calibration_bench import load_bench_script


@pytest.fixture(scope="module")
def fit_calibration() -> ModuleType:
    return load_bench_script("fit_calibration.py", "fit_calibration_bench")


def _rows(fc: ModuleType) -> list:
    row = fc.fidelity.Row
    return [row("a.onnx", 1, None, 1.0, "src", False, False, ""), row("a.onnx", 8, None, 4.0, "src", False, False, ""),
            row("b.onnx", 1, None, 2.0, "src", False, False, ""), row("c.onnx", 4, 128, 3.0, "src", False, False, "")]


def test_each_architecture_is_held_out_once_and_trained_on_the_others(fit_calibration: ModuleType) -> None:
    rows = _rows(fit_calibration)
    splits = fit_calibration.hold_out_splits(rows)
    assert [model for model, _, _ in splits] == ["a.onnx", "b.onnx", "c.onnx"]
    for model, train, test in splits:
        assert test and all(r.model == model for r in test)
        assert all(r.model != model for r in train)
        assert sorted(map(id, train + test)) == sorted(map(id, rows))


def _emulator(fc: ModuleType, truth: dict[str, float]):
    """Emulated time = measured x (fitted overhead / the architecture's true overhead)."""
    def evaluate(rows: Sequence, params: list[str]) -> list:
        value = float(params[0].split("=")[1])
        return [fc.fidelity.Result(r, r.measured_ms * value / truth[r.model]) for r in rows]
    return evaluate


def test_the_fit_finds_the_parameter_that_matches_every_row(fit_calibration: ModuleType) -> None:
    evaluate = _emulator(fit_calibration, {"a.onnx": 2.5, "b.onnx": 2.5, "c.onnx": 2.5})
    x, evaluations = fit_calibration.fit(_rows(fit_calibration), evaluate, ["kernel_overhead_us"], np.array([4.0]),
                                         lambda x: [f"kernel_overhead_us={x[0]}"])
    assert x[0] == pytest.approx(2.5, rel=1e-3) and evaluations > 0


def test_a_held_out_architecture_is_predicted_by_the_others_fit(fit_calibration: ModuleType,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # b's rows take twice the others' overhead
    evaluate = _emulator(fit_calibration, {"a.onnx": 1.0, "b.onnx": 2.0, "c.onnx": 1.0})
    fit_calibration.print_hold_out(_rows(fit_calibration), evaluate, ["kernel_overhead_us"], np.array([1.5]),
                                   lambda x: [f"kernel_overhead_us={x[0]}"])
    out = capsys.readouterr().out
    b = next(line for line in out.splitlines() if line.startswith("b.onnx"))
    # fitted to a and c alone the overhead is 1.0, so b's row emulates at half its time
    assert b.split()[2] == "50.0%" and b.split()[3] == "0.50x"
    assert "every row predicted by a fit that never saw its architecture" in out


def test_the_fit_takes_the_rows_of_both_tables(fit_calibration: ModuleType, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # a calibration table of no rows beside two architectures of bench/more_310p3: their rows are the fit's
    (tmp_path / "measured-310p3.csv").write_text(
        "model_file,batch,seq,input,fps,ms_per_execution,source_path,notes\n")
    assert fit_calibration.main(["--data", str(tmp_path), "--models", "mobilenet_v2,se_resnet50",
                                 "--params", "kernel_overhead_us"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("device 310P3: 2 rows")
    assert "mobilenet_v2.onnx" in out and "se_resnet50.onnx" in out


def test_calibration_only_leaves_the_more_rows_out(fit_calibration: ModuleType, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "measured-310p3.csv").write_text(
        "model_file,batch,seq,input,fps,ms_per_execution,source_path,notes\n")
    with pytest.raises(SystemExit) as exit_info:
        fit_calibration.main(["--data", str(tmp_path), "--calibration-only", "--models", "mobilenet_v2",
                              "--params", "kernel_overhead_us"])
    assert exit_info.value.code == 2
    assert "no row measures --models mobilenet_v2" in capsys.readouterr().err


def test_the_more_rows_are_predicted_only_by_a_fit_that_left_them_out(fit_calibration: ModuleType,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        fit_calibration.main(["--predict-more"])
    assert exit_info.value.code == 2
    assert "--predict-more needs --calibration-only" in capsys.readouterr().err


def test_batches_above_the_bound_are_held_out_and_the_rest_fitted(fit_calibration: ModuleType) -> None:
    rows = _rows(fit_calibration)
    fitted, held = fit_calibration.batch_split(rows, 4)
    assert [r.batch for r in fitted] == [1, 1, 4] and [r.batch for r in held] == [8]


def test_large_batches_are_predicted_by_the_small_batches_fit(fit_calibration: ModuleType,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # the batch-8 row takes twice the overhead of the others
    def evaluate(rows: Sequence, params: list[str]) -> list:
        value = float(params[0].split("=")[1])
        return [fit_calibration.fidelity.Result(r, r.measured_ms * value / (2.0 if r.batch > 4 else 1.0))
                for r in rows]

    fit_calibration.print_batch_hold_out(_rows(fit_calibration), evaluate, ["kernel_overhead_us"], np.array([1.5]),
                                         lambda x: [f"kernel_overhead_us={x[0]}"], 4)
    out = capsys.readouterr().out
    a = next(line for line in out.splitlines() if line.startswith("a.onnx"))
    # fitted to batches 1 and 4 alone the overhead is 1.0, so the batch-8 row emulates at half its time
    assert a.split()[1:4] == ["1", "50.0%", "0.50x"]
    assert "every row above batch 4 predicted by a fit that saw none of them: MAPE 50.0%" in out
    # a's throughput from batch 1 to 8 is measured 2x and emulated 4x under that fit
    assert "measured   2.00x  emulated   4.00x  (+100%)" in out
    assert "series within 20% of the measured scaling: 0/1" in out


def test_a_batch_bound_with_nothing_on_one_side_is_refused(fit_calibration: ModuleType, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # no calibration rows; bench/more_310p3 measures mobilenet_v2 at batch 4 alone
    (tmp_path / "measured-310p3.csv").write_text(
        "model_file,batch,seq,input,fps,ms_per_execution,source_path,notes\n")
    with pytest.raises(SystemExit) as exit_info:
        fit_calibration.main(["--data", str(tmp_path), "--models", "mobilenet_v2", "--hold-out-batches", "256",
                              "--params", "kernel_overhead_us"])
    assert exit_info.value.code == 2
    assert "--hold-out-batches 256: the rows need batches both at or below it and above it" in capsys.readouterr().err
