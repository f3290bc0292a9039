"""``bench/fidelity.py``'s summary: how rows become the figures the emulator is
judged by (MAPE, worst ratio, batch-scaling series)."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from calibration_bench import load_bench_script


@pytest.fixture(scope="module")
def fidelity() -> ModuleType:
    return load_bench_script("fidelity.py", "fidelity_bench")


def _result(fidelity: ModuleType, batch: int, measured: float, emulated: float, *, aipp: str = "",
            small_channel: bool = False, duplicate: bool = False, model: str = "net.onnx"):
    row = fidelity.Row(model, batch, None, measured, "src", duplicate, small_channel, aipp)
    return fidelity.Result(row, emulated)


def test_rows_give_mape_worst_ratio_and_rows_within_one_and_a_half(fidelity: ModuleType) -> None:
    s = fidelity.summarize([_result(fidelity, 1, 1.0, 1.1), _result(fidelity, 8, 4.0, 2.0)])
    assert s.mape == pytest.approx((0.1 + 0.5) / 2)
    assert s.worst_ratio == pytest.approx(0.5)
    assert s.within_1_5x == 1


def test_scaling_is_throughput_at_the_largest_batch_over_the_smallest(fidelity: ModuleType) -> None:
    s = fidelity.summarize([_result(fidelity, 1, 1.0, 1.0), _result(fidelity, 8, 4.0, 2.0)])
    # measured 8/4 over 1/1 = 2x; emulated 8/2 over 1/1 = 4x
    assert s.batch_scaling == {"net.onnx": (pytest.approx(2.0), pytest.approx(4.0))}


def test_a_model_compiled_two_ways_is_two_series_each_against_its_own_measurements(fidelity: ModuleType) -> None:
    cfg = "imagenet.cfg"
    s = fidelity.summarize([
        _result(fidelity, 1, 1.0, 1.0, aipp=cfg, small_channel=True),
        _result(fidelity, 8, 4.0, 4.0, aipp=cfg, small_channel=True, duplicate=True),
        _result(fidelity, 1, 2.0, 1.0),
        _result(fidelity, 8, 4.0, 4.0, duplicate=True),
    ])
    assert s.batch_scaling == {"net.onnx (AIPP, small channel)": (pytest.approx(2.0), pytest.approx(2.0)),
                               "net.onnx (plain)": (pytest.approx(4.0), pytest.approx(2.0))}


def test_a_configuration_measured_twice_counts_at_its_mean_time(fidelity: ModuleType) -> None:
    s = fidelity.summarize([
        _result(fidelity, 1, 1.0, 1.0),
        _result(fidelity, 8, 3.0, 4.0),
        _result(fidelity, 8, 5.0, 4.0, duplicate=True),
    ])
    # the two batch-8 measurements at their mean, 4 ms: 8/4 over 1/1
    assert s.batch_scaling["net.onnx"][0] == pytest.approx(2.0)


def test_the_last_step_is_time_per_image_at_the_largest_batch_over_the_next(fidelity: ModuleType) -> None:
    s = fidelity.summarize([_result(fidelity, 1, 1.0, 1.0), _result(fidelity, 8, 4.0, 4.0),
                            _result(fidelity, 16, 12.0, 8.0)])
    # measured 12/16 over 4/8 per image: 1.5x slower at the largest batch; emulated 8/16 over 4/8: 1x
    assert s.last_step == {"net.onnx": (pytest.approx(1.5), pytest.approx(1.0))}
    # two batches give a scaling ratio but no step
    assert fidelity.summarize([_result(fidelity, 1, 1.0, 1.0), _result(fidelity, 8, 4.0, 2.0)]).last_step == {}


def test_each_architecture_sums_up_its_own_rows(fidelity: ModuleType) -> None:
    s = fidelity.summarize([_result(fidelity, 1, 1.0, 1.1), _result(fidelity, 8, 4.0, 2.0),
                            _result(fidelity, 4, 2.0, 3.0, model="other.onnx")])
    assert list(s.architectures) == ["net.onnx", "other.onnx"]
    net = s.architectures["net.onnx"]
    assert (net.rows, net.batches) == (2, (1, 8))
    assert net.mape == pytest.approx((0.1 + 0.5) / 2)
    assert net.ratios == (pytest.approx(0.5), pytest.approx(1.1))
    assert s.architectures["other.onnx"].ratios == (pytest.approx(1.5), pytest.approx(1.5))


def test_a_smaller_problem_measured_slower_than_a_larger_is_a_contradiction(fidelity: ModuleType) -> None:
    def row(batch: int, seq: int, measured: float, **kw):  # type: ignore[no-untyped-def]
        r = fidelity.Row("bert.onnx", batch, seq, measured, "src", False, **kw)
        return fidelity.Result(r, measured)

    s = fidelity.summarize([row(1, 64, 2.4), row(1, 128, 2.1), row(4, 64, 2.5), row(4, 128, 4.0)])
    # batch 1 seq 64 does less work than batch 1 seq 128 but was measured slower;
    # batch 4 seq 64 against batch 1 seq 128 is no contradiction (neither is smaller)
    assert s.contradictions == [("bert.onnx batch 1 seq 64", "bert.onnx batch 1 seq 128", 2.4, 2.1)]
    # another configuration (with AIPP) is not compared with this one
    assert fidelity.summarize([row(1, 64, 2.4), row(1, 128, 2.1, aipp="a.cfg")]).contradictions == []


def test_json_holds_every_row_and_the_summary_the_tables_print(fidelity: ModuleType) -> None:
    results = [_result(fidelity, 1, 1.0, 1.1), _result(fidelity, 8, 4.0, 2.0, duplicate=True),
               _result(fidelity, 8, 4.4, 2.0, duplicate=True)]
    figures = fidelity.figures_json(results, {"device": "310P3"})
    assert figures["device"] == "310P3"
    first, second, third = figures["rows"]
    assert (first["batch"], first["measured_ms"], first["emulated_ms"]) == (1, 1.0, 1.1)
    assert first["ratio"] == pytest.approx(1.1) and first["error"] == pytest.approx(0.1)
    assert (second["second_measurement"], third["second_measurement"]) == (False, True)
    s = fidelity.summarize(results)
    summary = figures["summary"]
    assert (summary["rows"], summary["mape"], summary["within_1_5x"]) == (3, s.mape, s.within_1_5x)
    measured, emulated = s.batch_scaling["net.onnx"]
    assert summary["batch_scaling"] == {"net.onnx": {"measured": measured, "emulated": emulated}}
    assert summary["architectures"]["net.onnx"]["rows"] == 3


def test_json_is_what_the_bench_prints_with_json(fidelity: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert fidelity.main(["--more", "--models", "mobilenet_v2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    (row,) = figures["rows"]
    assert (row["model"], row["batch"], row["aipp"]) == ("mobilenet_v2.onnx", 4, "imagenet_224.cfg")
    assert row["ratio"] == pytest.approx(row["emulated_ms"] / row["measured_ms"])
    assert figures["summary"]["mape"] == pytest.approx(row["error"])
    assert figures["device"] == "310P3" and figures["data"].endswith("more_310p3")
