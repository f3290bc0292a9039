"""LLVM's one-dash long options (``-cse``, ``-pass-pipeline=...``) read as the
two-dash ones the tools declare; nothing else in a command line changes."""

from __future__ import annotations

import argparse

from hypothesis import given, strategies as st

from geir.tools.driver import llvm_style_arguments


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
        "in.mlir", "--cse", "--pass-pipeline=cse,canonicalize", "--split-input-file", "-o", "out.mlir",
        "-Rpass=.*", "-"]


def test_unknown_options_and_everything_after_the_terminator_stay() -> None:
    argv = ["-no-such-option", "--cse", "--", "-cse"]
    assert llvm_style_arguments(_parser(), argv) == argv


def test_the_rewritten_line_parses_as_the_two_dash_one() -> None:
    parser = _parser()
    one = parser.parse_args(llvm_style_arguments(parser, ["a.mlir", "-cse", "-pass-pipeline=x", "-split-input-file"]))
    two = parser.parse_args(["a.mlir", "--cse", "--pass-pipeline=x", "--split-input-file"])
    assert one == two


@given(st.lists(st.text(alphabet="abcdefgh.=/", min_size=1) | st.sampled_from(["-o", "-", "--", "--cse"])))
def test_arguments_without_one_dash_long_options_are_unchanged(argv: list[str]) -> None:
    assert llvm_style_arguments(_parser(), argv) == argv
