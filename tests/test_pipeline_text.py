"""Pipeline text as MLIR reads it: a value may be quoted or braced and hold
spaces, and a pass prints its options so that they read back. A named pipeline's
options: each reaches every pass that declares it (under the pipeline's name for
it), and an option no pass takes is an error that says what the pipeline takes."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geir.passes.pipeline import (NAMED_PIPELINES, PIPELINE_OPTION_NAMES, PipelineError, parse_pipeline,
                                  pipeline_options)
from geir.passes.registry import get_pass_class, pass_options


@pytest.mark.parametrize("name", sorted(NAMED_PIPELINES))
def test_every_pass_option_is_one_pipeline_option(name: str) -> None:
    listed = {(pass_name, info.name): option.name for option in pipeline_options(name)
              for pass_name, info in option.passes}
    for pass_name in NAMED_PIPELINES[name].split(","):
        cls = get_pass_class(pass_name)
        assert cls is not None
        for info in pass_options(cls):
            assert listed[(pass_name, info.name)] == PIPELINE_OPTION_NAMES.get((pass_name, info.name), info.name)


def test_a_shared_option_reaches_every_pass_that_declares_it() -> None:
    passes = parse_pipeline("ge-default{device=310P3}")
    with_device = [p for p in passes if hasattr(p, "device")]
    assert len(with_device) >= 4
    assert all(p.device == "310P3" for p in with_device)
    device = next(o for o in pipeline_options("ge-default") if o.name == "device")
    assert [pass_name for pass_name, _ in device.passes] == [p.name for p in with_device]
    assert device.help.startswith("device profile of every pass")


def test_a_renamed_option_reaches_its_pass_under_its_own_name() -> None:
    passes = parse_pipeline("ge-default{input-shape=batch=2 precision-mode=force_fp32}")
    by_name = {p.name: p for p in passes}
    assert by_name["specialize-shapes"].shapes == "batch=2"
    assert by_name["precision-mode"].precision_mode == "force_fp32"


def test_underscores_spell_dashes_as_for_a_single_pass() -> None:
    passes = parse_pipeline("ge-default{max_streams=3}")
    assert next(p for p in passes if p.name == "partition-streams").max_streams == 3


@pytest.mark.parametrize("option, says", [
    ("colour", "has option 'colour'; its options: ac-parallel-enable"),
    ("devcie", "has option 'devcie' (did you mean 'device'?); its options:"),
    ("shapes", "has option 'shapes' (specialize-shapes's 'shapes' is 'input-shape' here); its options:"),
])
def test_an_unknown_option_names_what_the_pipeline_takes(option: str, says: str) -> None:
    with pytest.raises(PipelineError) as error:
        parse_pipeline(f"ge-default{{{option}=1}}")
    assert says in str(error.value)


def test_quoted_and_braced_values_hold_spaces() -> None:
    aipp, streams = parse_pipeline("insert-aipp{config='a b.cfg'},partition-streams{strategy=\"ge\" device=310P3}")
    assert aipp.config == "a b.cfg"
    assert (streams.strategy, streams.device) == ("ge", "310P3")
    assert aipp.pipeline_text() == "insert-aipp{config='a b.cfg'}"


def test_an_unterminated_quote_is_an_error() -> None:
    with pytest.raises(PipelineError, match="unterminated ' in pass pipeline 'insert-aipp{config='a b.cfg}'"):
        parse_pipeline("insert-aipp{config='a b.cfg}")


@given(st.text(st.characters(codec="ascii", exclude_categories=["Cc"]), min_size=1).filter(
    lambda v: not ("'" in v and '"' in v)))
def test_a_pass_prints_any_option_value_so_that_it_reads_back(value: str) -> None:
    text = parse_pipeline("insert-aipp")[0].__class__(config=value).pipeline_text()
    assert parse_pipeline(text)[0].config == value


def test_a_device_file_whose_path_has_a_space_reaches_every_pipeline(tmp_path: Any) -> None:
    """ge-bench's, ge-run's and the scenarios' pipeline texts quote such a path,
    so it reads back whole."""
    import shutil

    from geir.backends.model_compile import plan_pipeline
    from geir.backends.scenarios.video_pipeline import frame_builds
    from geir.tools.bench.measure import pipeline_text, preparation_text
    from geir.tools.bench.sweep_config import Configuration
    import geir.backends as backends
    folder = tmp_path / "my devices"
    folder.mkdir()
    device = str(folder / "310P3.json")
    shutil.copy(os.path.join(os.path.dirname(backends.__file__), "devices", "310P3.json"), device)
    config = Configuration("cost", 4, device, "best")
    texts = [preparation_text(config.device, config.prepare), pipeline_text(config, 1.0),
             *frame_builds(2, device).values(),
             plan_pipeline(None, None, device).text]
    for text in texts:
        devices = {p.device for p in parse_pipeline(text.split(" with ")[0]) if hasattr(p, "device")}
        assert devices == {device}, text
