"""LLVM's one-dash long options (``-cse``, ``-pass-pipeline=...``) read as the
two-dash ones the tools declare, and an option whose value is optional takes it
after ``=`` only; nothing else in a command line changes. A single-valued option
given twice with two values is refused."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, strategies as st

from geir.tools.driver import llvm_style_arguments, refuse_repeated_options


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("input", nargs="*")
    p.add_argument("-o")
    p.add_argument("-Rpass")
    p.add_argument("--cse", nargs="?", const="")
    p.add_argument("--pass-pipeline")
    p.add_argument("--split-input-file", action="store_true")
    return p


def test_one_dash_long_options_become_two_dash() -> None:
    argv = ["in.mlir", "-cse", "-pass-pipeline=cse,canonicalize", "-split-input-file", "-o", "out.mlir",
            "-Rpass=.*", "-"]
    assert llvm_style_arguments(_parser(), argv) == [
        "in.mlir", "--cse=", "--pass-pipeline=cse,canonicalize", "--split-input-file", "-o", "out.mlir",
        "-Rpass=.*", "-"]


def test_unknown_options_and_everything_after_the_terminator_stay() -> None:
    argv = ["-no-such-option", "--cse=x", "--", "-cse", "--cse"]
    assert llvm_style_arguments(_parser(), argv) == argv


def test_an_optional_value_follows_an_equals_sign_only() -> None:
    # as mlir-opt reads `--canonicalize in.mlir`: the pass, then the input
    parser = _parser()
    args = parser.parse_args(llvm_style_arguments(parser, ["--cse", "in.mlir"]))
    assert args.cse == "" and args.input == ["in.mlir"]
    args = parser.parse_args(llvm_style_arguments(parser, ["--cse=max-iterations=1", "in.mlir"]))
    assert args.cse == "max-iterations=1" and args.input == ["in.mlir"]


def test_the_rewritten_line_parses_as_the_two_dash_one() -> None:
    parser = _parser()
    one = parser.parse_args(llvm_style_arguments(parser, ["a.mlir", "-cse", "-pass-pipeline=x", "-split-input-file"]))
    two = parser.parse_args(["a.mlir", "--cse", "--pass-pipeline=x", "--split-input-file"])
    assert one == two


@given(st.lists(st.text(alphabet="abcdefgh.=/", min_size=1) | st.sampled_from(["-o", "-", "--", "--cse=", "--cse=x"])))
def test_arguments_without_one_dash_long_options_are_unchanged(argv: list[str]) -> None:
    assert llvm_style_arguments(_parser(), argv) == argv


def _once() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tool")
    refuse_repeated_options(p)
    p.add_argument("--device")
    p.add_argument("--device-param", action="append", default=[])
    p.add_argument("--timing-only", action="store_true")
    return p


def test_an_option_given_twice_with_two_values_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _once().parse_args(["--device", "310P3", "--device=910B2"])
    assert exit_info.value.code == 2
    assert "tool: error: --device is given twice (310P3, then 910B2); give it once" in capsys.readouterr().err


def test_a_repeat_of_the_same_value_and_repeatable_options_are_accepted() -> None:
    args = _once().parse_args(["--device", "310P3", "--device", "310P3", "--device-param", "a=1",
                               "--device-param", "b=2", "--timing-only", "--timing-only"])
    assert args.device == "310P3" and args.device_param == ["a=1", "b=2"] and args.timing_only


def test_each_parse_starts_afresh() -> None:
    parser = _once()
    assert parser.parse_args(["--device", "310P3"]).device == "310P3"
    assert parser.parse_args(["--device", "910B2"]).device == "910B2"
