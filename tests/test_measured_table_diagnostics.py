"""A measured table (``measured-<device>.csv``: ``measured-310p3.csv`` for the 310P3)
that a person wrote by hand is checked before anything is compiled: each mistake
is an error at its row and field, as MLIR prints them, and the benches that read
the table exit 1 without a traceback. Each device has a table of its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from geir.diagnostics import DiagnosticError

from calibration_bench import BENCH_DIR, load_bench_script

EXAMPLES = os.path.join(os.path.dirname(BENCH_DIR), "examples")
HEADER = "model_file,batch,seq,input,fps,ms_per_execution,source_path,notes\n"


@pytest.fixture(scope="module")
def fidelity() -> ModuleType:
    return load_bench_script("fidelity.py", "fidelity_table_diagnostics")


def _table(tmp_path: Path, text: str, models: tuple[str, ...] = ("net.onnx",)) -> str:
    (tmp_path / "models").mkdir()
    for m in models:
        (tmp_path / "models" / m).write_bytes(b"")
    (tmp_path / "measured-310p3.csv").write_text(text, encoding="utf-8")
    return str(tmp_path)


def _errors(fidelity: ModuleType, data: str) -> str:
    with pytest.raises(DiagnosticError) as info:
        fidelity.load_rows(data)
    return info.value.format()


def test_a_well_formed_table_gives_its_rows(fidelity: ModuleType, tmp_path: Path) -> None:
    data = _table(tmp_path, "\ufeff" + HEADER + 'net.onnx,8,,3x224x224,100,80.0,src,"notes, with a comma"\n\n'
                  "net.onnx,1,64,,10,2.5,src,DUPLICATE of a row\n")
    rows = fidelity.load_rows(data)
    assert [(r.model, r.batch, r.seq, r.measured_ms, r.duplicate) for r in rows] == [
        ("net.onnx", 8, None, 80.0, False), ("net.onnx", 1, 64, 2.5, True)]


def test_each_bad_field_is_an_error_at_its_row_and_column(fidelity: ModuleType, tmp_path: Path) -> None:
    data = _table(tmp_path, HEADER + 'net.onnx,abc,,3x224x224,1,2,src,"a, b"\n'
                  '"net.onnx",4,0,3x224x224,1,-2,src,y\n'
                  "gone.onnx,1,,3x224x224,1,nan,src,y\n")
    text = _errors(fidelity, data)
    table = os.path.join(data, "measured-310p3.csv")
    assert f"{table}:2:10: error: batch 'abc' is not a whole number above 0\n" \
           'net.onnx,abc,,3x224x224,1,2,src,"a, b"\n' \
           "         ^\n" in text
    assert f"{table}:3:14: error: seq '0' is not a whole number above 0 (or empty for an image model)\n" in text
    assert f"{table}:3:28: error: ms_per_execution '-2' is not a time in ms above 0\n" in text
    assert f"{table}:4:1: error: model 'gone.onnx' is not in {os.path.join(data, 'models')}\n" in text
    assert f"{table}:4:26: error: ms_per_execution 'nan' is not a time in ms above 0\n" in text


def test_a_header_without_a_column_the_rows_need_is_an_error_at_line_one(fidelity: ModuleType,
                                                                          tmp_path: Path) -> None:
    data = _table(tmp_path, "model,batch,ms_per_execution\nnet.onnx,1,2\n")
    text = _errors(fidelity, data)
    assert f"{os.path.join(data, 'measured-310p3.csv')}:1:1: error: the header has no column 'model_file', " \
           "'seq', 'source_path', 'notes'\n" in text
    assert "note: a table gives model_file, batch, seq, ms_per_execution, source_path, notes\n" in text


def test_the_first_twenty_errors_are_shown_and_the_rest_counted(fidelity: ModuleType, tmp_path: Path) -> None:
    data = _table(tmp_path, HEADER + "net.onnx,x,,,1,2,src,y\n" * 25)
    with pytest.raises(DiagnosticError) as info:
        fidelity.load_rows(data)
    assert len(info.value.diagnostics) == fidelity.MAX_ERRORS
    assert "note: 5 more error(s) in this table not shown\n" in info.value.format()


def test_rows_of_models_not_asked_for_are_not_checked(fidelity: ModuleType, tmp_path: Path) -> None:
    data = _table(tmp_path, HEADER + "net.onnx,2,,,1,4,src,y\nother.onnx,x,,,1,2,src,y\n")
    assert [r.batch for r in fidelity.load_rows(data, ["net"])] == [2]


@pytest.mark.parametrize("script", ["fidelity.py", "fit_calibration.py", "fidelity_components.py"])
def test_a_bench_given_a_bad_table_exits_1_with_the_errors_and_no_traceback(script: str, tmp_path: Path) -> None:
    data = _table(tmp_path, HEADER + "net.onnx,0,,,1,2,src,y\n")
    run = subprocess.run([sys.executable, os.path.join(BENCH_DIR, script), "--data", data],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert f"measured-310p3.csv:2:10: error: batch '0' is not a whole number above 0\n" in run.stderr
    assert "Traceback" not in run.stderr


def _tiny_table(tmp_path: Path, name: str) -> str:
    (tmp_path / "models").mkdir()
    shutil.copy(os.path.join(EXAMPLES, "tiny_cnn.onnx"), tmp_path / "models" / "net.onnx")
    (tmp_path / name).write_text(HEADER + "net.onnx,1,,3x32x32,20000,0.05,my bench,plain\n", encoding="utf-8")
    return str(tmp_path)


def test_each_device_has_its_own_table(fidelity: ModuleType, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = _tiny_table(tmp_path, "measured-910b2.csv")
    assert fidelity.table_name("910b2") == "measured-910b2.csv" and fidelity.table_name() == "measured-310p3.csv"
    assert fidelity.main(["--device", "910B2", "--data", data, "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    (row,) = figures["rows"]
    assert figures["device"] == "910B2" and row["source"] == "my bench" and row["emulated_ms"] > 0
    with pytest.raises(SystemExit) as exit_info:  # the folder holds no 310P3 times
        fidelity.main(["--data", data])
    assert "no measured times of 310P3 (measured-310p3.csv) in" in str(exit_info.value.code)


def test_a_fit_for_another_device_reads_its_own_table_alone(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    fit_calibration = load_bench_script("fit_calibration.py", "fit_calibration_device_table")
    data = _tiny_table(tmp_path, "measured-910b2.csv")
    assert fit_calibration.main(["--device", "910B2", "--data", data, "--params", "kernel_overhead_us"]) == 0
    assert capsys.readouterr().out.startswith("device 910B2: 1 rows")
