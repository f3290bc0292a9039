"""Printing then parsing gives the same module; printing twice the same text —
for both printed forms, on random modules, and the generic form is what
upstream MLIR prints."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, given, settings

from geir.parser import parse_module
from geir.printer import PrintOptions, module_to_string
from ir_strategies import modules
from tool_paths import find_tool

GENERIC = PrintOptions(generic=True)
DEBUG = PrintOptions(debuginfo=True)


@pytest.mark.parametrize("options", [DEBUG, GENERIC], ids=["custom", "generic"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module=modules())
def test_printing_is_a_fixed_point(options: PrintOptions, module) -> None:
    text = module_to_string(module, options)
    again = module_to_string(parse_module(text, "t.mlir", allow_unregistered=True), options)
    assert again == text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_both_forms_describe_the_same_module(module) -> None:
    custom = module_to_string(module)
    via_custom = parse_module(custom, "t.mlir", allow_unregistered=True)
    assert module_to_string(via_custom, GENERIC) == module_to_string(module, GENERIC)


IREE_OPT = find_tool("iree-opt")


@pytest.mark.skipif(IREE_OPT is None, reason="upstream MLIR (iree-opt, the 'peers' extra) is not installed")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_generic_form_is_byte_identical_to_mlir_opt(module) -> None:
    text = module_to_string(module, GENERIC)
    proc = subprocess.run([IREE_OPT, "--allow-unregistered-dialect", "--mlir-print-op-generic", "-"],
                          input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text
