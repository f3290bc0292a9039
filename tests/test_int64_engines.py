"""Which engine a 64-bit integer op gets, as a specification: a cast runs on AI
Core exactly when CANN's Cast kernel for the chip does its (source, target) pair,
and ``precision-mode`` never changes the types of an op that ``assign-engines``
sends to AICPU on the same device (the mode chooses among AI Core kernels)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from geir.backends.device_profile import load_profile
from geir.dialects.ge import AICORE_INT64_CASTS, aicore_int64_extras
from geir.module import Module
from geir.operation import Operation
from geir.parser import parse_module
from geir.passes.pass_manager import PassManager
from geir.passes.pipeline import parse_pipeline

TYPES = ("f32", "f16", "bf16", "i64", "i32", "i16", "i8", "ui8", "i1")
DEVICES = ("910B2", "310P3", "910A")
MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype")


def _cast_graph(source: str, target: str) -> str:
    return (f"ge.graph @main(%x: tensor<4x8x{source}>) -> tensor<8x4x{target}> {{\n"
            f"  %c = ge.cast %x {{to = {target}}} : (tensor<4x8x{source}>) -> tensor<4x8x{target}>\n"
            f"  %t = ge.transpose %c {{perm = [1, 0]}} : (tensor<4x8x{target}>) -> tensor<8x4x{target}>\n"
            f"  ge.return %t : (tensor<8x4x{target}>) -> ()\n}}\n")


def _cast(module: Module) -> Operation:
    """The graph's own cast (``%c``), among those ``precision-mode`` may add."""
    return next(op for op in next(module.graphs()).regions[0].blocks[0].ops
                if op.name == "ge.cast" and op.results[0].name_hint == "c")


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(TYPES), st.sampled_from(TYPES), st.sampled_from(DEVICES))
def test_a_cast_with_int64_runs_on_aicore_exactly_when_the_chip_does_its_pair(source: str, target: str,
                                                                              device: str) -> None:
    module = parse_module(_cast_graph(source, target), "cast.mlir")
    PassManager(parse_pipeline(f"assign-engines{{device={device}}}")).run(module)
    engine = str(_cast(module).get_attr("engine"))
    if "i64" not in (source, target):
        assert engine == "AICore"
    else:
        pairs = AICORE_INT64_CASTS | aicore_int64_extras(load_profile(device).soc)[1]
        assert (engine == "AICore") == ((source, target) in pairs)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(TYPES), st.booleans(), st.sampled_from(DEVICES), st.sampled_from(MODES))
def test_precision_mode_keeps_the_types_of_an_op_on_aicpu(peer: str, from_int64: bool, device: str,
                                                          mode: str) -> None:
    source, target = ("i64", peer) if from_int64 else (peer, "i64")
    alone = parse_module(_cast_graph(source, target), "cast.mlir")
    PassManager(parse_pipeline(f"assign-engines{{device={device}}}")).run(alone)
    on_aicpu = str(_cast(alone).get_attr("engine")) == "AICPU"
    module = parse_module(_cast_graph(source, target), "cast.mlir")
    PassManager(parse_pipeline(f"precision-mode{{mode={mode} device={device}}},assign-engines{{device={device}}}")
                ).run(module)
    cast = _cast(module)
    if on_aicpu:
        assert str(cast.results[0].type.element_type) == target
        assert str(cast.get_attr("engine")) == "AICPU"
    else:
        assert str(cast.get_attr("engine")) == "AICore"
