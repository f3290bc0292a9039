"""``bench/more_310p3/``: the published 310P3 times of fifteen architectures outside
the calibration table. Every row names a graph that is there, carries no weight
bytes and imports at its batch, compiled the way its notes say ATC ran."""

from __future__ import annotations

import os
from types import ModuleType

import onnx
import pytest

import geir
from geir.absent_weights import module_has_absent_weights
from geir.backends.device_profile import load_profile

from calibration_bench import load_bench_script


@pytest.fixture(scope="module")
def fidelity() -> ModuleType:
    return load_bench_script("fidelity.py", "fidelity_more_310p3")


@pytest.fixture(scope="module")
def rows(fidelity: ModuleType) -> list:
    return fidelity.load_rows(fidelity.MORE_DIR)


def test_every_row_is_a_measurement_of_a_graph_that_is_there(fidelity: ModuleType, rows: list) -> None:
    assert len(rows) == 84
    assert len({r.model for r in rows}) == 15
    for r in rows:
        assert os.path.isfile(os.path.join(fidelity.MORE_DIR, "models", r.model)), r.model
        assert r.measured_ms > 0 and r.source.startswith("Ascend/ModelZoo-PyTorch:ACL_PyTorch/")


def test_no_architecture_is_also_in_the_calibration_table(fidelity: ModuleType, rows: list) -> None:
    try:
        calibration = fidelity.find_data(None)
    except SystemExit:
        pytest.skip("the calibration table is not on this machine")
    assert not {r.model for r in rows} & {r.model for r in fidelity.load_rows(calibration)}


def test_rows_compile_with_the_atc_options_their_notes_record(rows: list) -> None:
    by_model = {r.model: r for r in rows}
    assert by_model["resnet101.onnx"].small_channel
    assert by_model["resnet101.onnx"].aipp.endswith("imagenet_256_crop_224.cfg")
    assert by_model["inception_v3.onnx"].aipp.endswith("imagenet_224.cfg")
    assert not by_model["inception_v3.onnx"].small_channel
    assert by_model["mnasnet1_0.onnx"].aipp == "" and not by_model["mnasnet1_0.onnx"].small_channel


@pytest.mark.parametrize("model", ["inception_v3.onnx", "mnasnet1_0.onnx", "dpn131.onnx"])
def test_a_graph_has_no_weight_bytes_and_imports_timing_only(fidelity: ModuleType, model: str) -> None:
    path = os.path.join(fidelity.MORE_DIR, "models", model)
    proto = onnx.load(path, load_external_data=False)
    assert not any(i.raw_data for i in proto.graph.initializer if len(i.dims) > 1 and i.dims[0] > 16)
    size = 299 if model == "inception_v3.onnx" else 224
    module = geir.import_onnx(path, input_shapes={"image": (2, 3, size, size)})
    assert module_has_absent_weights(module)


def test_more_and_data_name_two_tables(fidelity: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        fidelity.main(["--more", "--data", fidelity.MORE_DIR])
    assert exit_info.value.code == 2
    assert "--more, --predicted and --data each name a table; give one" in capsys.readouterr().err


def test_more_emulates_the_rows_of_this_table(fidelity: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert fidelity.main(["--more", "--models", "mobilenet_v2"]) == 0
    out = capsys.readouterr().out
    assert f"data {fidelity.MORE_DIR}" in out
    assert "rows 1: MAPE" in out and "mobilenet_v2.onnx" in out


#: the measured tables the 310P3 profile's calibration states, by their path from the repository
_CALIBRATION, _MORE, _PREDICTED = ("../shared/calibration/measured-310p3.csv", "bench/more_310p3/measured-310p3.csv",
                                   "bench/predicted_310p3/measured-310p3.csv")


@pytest.mark.parametrize("table", [_CALIBRATION, _MORE, _PREDICTED])
def test_the_310p3_profile_states_the_error_each_table_gives_today(fidelity: ModuleType, table: str) -> None:
    # ge-run prints this calibration beside every 310P3 time: a cost-model change that
    # moves a figure must restate it (bench/fidelity.py [--more | --predicted] prints it)
    if table == _CALIBRATION:
        try:
            data = fidelity.find_data(None)
        except SystemExit:
            pytest.skip("the calibration table is not on this machine")
    else:
        data = os.path.join(os.path.dirname(os.path.dirname(fidelity.MORE_DIR)), os.path.dirname(table))
    rows = fidelity.load_rows(data)
    results = fidelity.evaluate(rows, fidelity.compile_rows(data, rows, "310P3", "ge", progress=False), "310P3")
    calibration = load_profile("310P3").calibration
    assert calibration is not None
    stated = calibration.mape_percent[table]
    assert round(100 * fidelity.summarize(results).mape, 2) == stated
    if table == _CALIBRATION:
        # the fitted rows' figure sums up both fitted tables, row by row
        more = len(fidelity.load_rows(fidelity.MORE_DIR))
        both = (stated * len(rows) + calibration.mape_percent[_MORE] * more) / (len(rows) + more)
        assert calibration.result.startswith(f"MAPE {both:.1f}% over the {len(rows) + more} rows ")
    if table == _PREDICTED:
        models = len({r.model for r in rows})
        assert calibration.result.endswith(f"{stated:.1f}% over {len(rows)} rows of {models} models no fit has seen")
