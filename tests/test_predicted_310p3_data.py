"""``bench/predicted_310p3/``: published 310P3 times of fifteen architectures that
no fit has seen. Every row names a graph that is there and carries no weight
bytes; no architecture is in a table the profile was fitted to; each row
compiles the way its notes say ATC ran."""

from __future__ import annotations

import os
from types import ModuleType

import onnx
import pytest

import geir
from geir.absent_weights import module_has_absent_weights

from calibration_bench import BENCH_DIR, load_bench_script


@pytest.fixture(scope="module")
def fidelity() -> ModuleType:
    return load_bench_script("fidelity.py", "fidelity_predicted_310p3")


@pytest.fixture(scope="module")
def rows(fidelity: ModuleType) -> list:
    return fidelity.load_rows(fidelity.PREDICTED_DIR)


def test_every_row_is_a_measurement_of_a_graph_that_is_there(fidelity: ModuleType, rows: list) -> None:
    assert len(rows) == 120
    assert len({r.model for r in rows}) == 15
    for r in rows:
        assert os.path.isfile(os.path.join(fidelity.PREDICTED_DIR, "models", r.model)), r.model
        assert r.measured_ms > 0 and r.source.startswith("Ascend/ModelZoo-PyTorch:ACL_PyTorch/")


def test_no_architecture_is_in_a_table_the_profile_was_fitted_to(fidelity: ModuleType, rows: list) -> None:
    fitted = {r.model for r in fidelity.load_rows(fidelity.MORE_DIR)}
    try:
        fitted |= {r.model for r in fidelity.load_rows(fidelity.find_data(None))}
    except SystemExit:
        pass  # the calibration table is not on this machine; its ten names are known
    fitted |= {"resnet18.onnx", "resnet50.onnx", "densenet121.onnx", "googlenet.onnx", "squeezenet1_1.onnx",
               "mobilenetv3_large_100.onnx", "alexnet.onnx", "vgg16.onnx", "vit_base_patch16_224.onnx",
               "bert_base_qa.onnx"}
    assert not {r.model for r in rows} & fitted
    # and the fit reads neither this folder nor its rows
    with open(os.path.join(BENCH_DIR, "fit_calibration.py"), encoding="utf-8") as f:
        assert "PREDICTED_DIR" not in f.read()


def test_rows_compile_with_the_atc_options_their_notes_record(rows: list) -> None:
    by_model = {r.model: r for r in rows}
    for model in ("shufflenet_v2_x1_0.onnx", "resnext50_32x4d.onnx"):
        assert by_model[model].small_channel and by_model[model].aipp.endswith("imagenet_224.cfg")
    assert by_model["vit_small_patch16_224.onnx"].small_channel and by_model["vit_small_patch16_224.onnx"].aipp == ""
    assert by_model["vgg19.onnx"].aipp == "" and not by_model["vgg19.onnx"].small_channel
    assert {r.seq for r in rows if r.model == "bert_large_squad.onnx"} == {64, 128, 256, 320, 384, 512}
    # the ViT-Bs compile the graphs opt_vit.py made of them, each variant's plan
    plans = {r.model: r.edits for r in rows if r.model.startswith("vit_base")}
    assert plans == {"vit_base_patch32_224.onnx": ("merge_bmm_axis",),
                     **{f"vit_base_{v}.onnx": ("pad_nz_block", "merge_bmm_axis")
                        for v in ("patch8_224", "patch16_384", "patch32_384")}}


@pytest.mark.parametrize("model, shapes", [
    ("efficientnetv2_rw_t.onnx", {"image": (2, 3, 288, 288)}),
    ("gpt2_chinese.onnx", {"input_ids": (2, 64)}),
    ("data2vec_audio_base.onnx", {"audio": (1, 16000)}),
])
def test_a_graph_has_no_weight_bytes_and_imports_timing_only(fidelity: ModuleType, model: str,
                                                             shapes: dict) -> None:
    path = os.path.join(fidelity.PREDICTED_DIR, "models", model)
    proto = onnx.load(path, load_external_data=False)
    assert not any(i.raw_data for i in proto.graph.initializer if len(i.dims) > 1 and i.dims[0] > 16)
    module = geir.import_onnx(path, input_shapes=shapes)
    assert module_has_absent_weights(module)


def test_predicted_emulates_the_rows_of_this_table(fidelity: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert fidelity.main(["--predicted", "--models", "vgg19"]) == 0
    out = capsys.readouterr().out
    assert f"data {fidelity.PREDICTED_DIR}" in out
    assert "rows 6: MAPE" in out and "vgg19.onnx" in out
