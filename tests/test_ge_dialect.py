"""The ge dialect: op table conventions, exact result-type inference, cost hints.

Three layers: hand-computed unit cases per op family; an oracle that runs every
single-node ONNX backend test case through the matching ge op's inference and
compares with the shapes and dtypes ONNX's reference produced; and property tests
(broadcasting vs numpy, conv vs ONNX's ReferenceEvaluator).
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
import warnings
from typing import Any, Sequence

import numpy as np
import onnx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from geir.attributes import (ArrayAttr, DenseElementsAttr, FloatAttr, IntegerAttr, StringAttr, TypeAttr,
                             to_attribute)
from geir.dialects.ge import DIALECT, IRREGULAR_MNEMONICS, ONNX_TO_GE, snake_case
from geir.dialects import ge_infer
from geir.onnx_attributes import (ONNX_ELEMENT_TYPES, element_type_from_onnx, from_onnx_attribute,
                                  kernel_attribute_value, onnx_data_type, to_onnx_attribute)
from geir.opdef import ATTR_KINDS, Attrs, Cost, InferContext, InferError, OpDef
from geir.operation import Block, Operation, Region
from geir.types import (BF16, F16, F32, I1, I32, NONE, UI8, FunctionType, TensorType, Type,
                        parse_element_type)

# ------------------------------------------------------------------ harness


class FakeContext(InferContext):
    """An InferContext whose operand values are given directly (no IR needed)."""

    def __init__(self, od: OpDef, operand_types: Sequence[Type], attributes: dict[str, Any],
                 constants: Sequence[Any] = (), result_types: Sequence[Type] = ()) -> None:
        self.attributes = {k: to_attribute(v) for k, v in attributes.items()}
        super().__init__(list(operand_types), Attrs(self.attributes, od.attributes), (), list(result_types))
        self.values = list(constants)

    def constant(self, index: int) -> Any:
        return self.values[index] if index < len(self.values) else None


def t(text: str) -> Type:
    """``t("1x3x?xf32")`` -> TensorType; ``t("f32")`` is a scalar; ``t("*xf32")`` unranked; ``none``."""
    if text == "none":
        return NONE
    *dims, et = text.split("x")
    element = parse_element_type(et)
    assert element is not None, et
    if dims == ["*"]:
        return TensorType(None, element)
    return TensorType([None if d == "?" else int(d) for d in dims], element)


def infer(op: str, operands: Sequence[Type | str], constants: Sequence[Any] = (), results: int = 0,
          **attributes: Any) -> list[Type]:
    """Run ``ge.<op>``'s inference on operand types (strings parsed by :func:`t`)."""
    od = DIALECT.ops[f"ge.{op}"]
    types = [t(x) if isinstance(x, str) else x for x in operands]
    consts = [None if c is None else np.asarray(c) for c in constants]
    ctx = FakeContext(od, types, attributes, consts, [NONE] * results)
    out = list(od.infer(ctx))
    assert od.cost is None or isinstance(od.cost(ctx, out), Cost)
    return out


def shapes(types: Sequence[Type]) -> list[str]:
    return [str(x) for x in types]


def infer_one(op: str, operands: Sequence[Type | str], constants: Sequence[Any] = (), **attributes: Any) -> str:
    (result,) = infer(op, operands, constants, **attributes)
    return str(result)


# ======================================================= table conventions


def test_op_table_size_and_traits():
    assert len(DIALECT.ops) >= 150
    for od in DIALECT.ops.values():
        assert od.name.startswith("ge.")
        if "side_effect" in od.traits:
            assert "pure" not in od.traits, od.name
        if od.num_results != 0 and od.name not in ("ge.if", "ge.loop", "ge.scan"):
            assert od.infer is not None, od.name
    assert DIALECT.ops["ge.const"].traits >= {"constant", "pure"}
    assert "commutative" in DIALECT.ops["ge.add"].traits and "commutative" not in DIALECT.ops["ge.sub"].traits
    assert DIALECT.ops["ge.nms"].engine == "AICPU" and "dynamic_shape" in DIALECT.ops["ge.nms"].traits
    assert "dynamic_shape" not in DIALECT.ops["ge.where"].traits
    assert DIALECT.ops["ge.top_k"].engine == "AICore"
    assert DIALECT.ops["ge.all_reduce"].engine == "HCCL" and DIALECT.ops["ge.dvpp_decode"].engine == "DVPP"
    for name in ("ge.graph", "ge.return", "ge.const", "ge.none", "ge.record_event", "ge.wait_event"):
        assert DIALECT.ops[name].engine is None, name
    assert DIALECT.ops["ge.cmo"].traits >= {"cmo", "side_effect"}
    assert DIALECT.ops["ge.wait_event"].traits >= {"sync", "side_effect"}
    for name in ("switch", "merge", "enter", "ref_enter", "if", "loop", "scan"):
        assert "control" in DIALECT.ops[f"ge.{name}"].traits
    for name in ("engine", "stream", "offsets", "block_dim", "stream_label", "engine_pin"):
        assert name in DIALECT.ops["ge.conv2d"].attributes and name in DIALECT.ops["ge.return"].attributes


def test_aicore_int64_is_a_trait_of_aicore_ops_only():
    # the table of ops whose CANN AI Core kernels take int64: each is an AICore op,
    # and Div, Mod and Cumsum (no int64 AI Core kernel on any chip but the 950) are not in it
    marked = {n for n, od in DIALECT.ops.items() if "aicore_int64" in od.traits}
    assert {"ge.add", "ge.transpose", "ge.concat", "ge.gather", "ge.where"} <= marked
    assert not marked & {"ge.div", "ge.mod", "ge.cum_sum", "ge.neg", "ge.cast"}
    for name in marked:
        assert DIALECT.ops[name].engine == "AICore", name


@pytest.mark.parametrize("soc,ops,casts", [
    ("Ascend910B2", {"ge.neg", "ge.abs", "ge.reduce_max", "ge.reduce_sum", "ge.scatter_nd", "ge.arg_max", "ge.arg_min"},
     {("i64", "f32"), ("f32", "i64"), ("f16", "i64"), ("i64", "bf16")}),
    ("Ascend310P3", {"ge.reduce_sum"}, set()),
    ("Ascend910A", {"ge.arg_max", "ge.arg_min"}, set()),
    ("NVIDIA Tesla V100 SXM2 (GV100)", set(), set()),
])
def test_int64_kernels_some_chips_have(soc: str, ops: set[str], casts: set[tuple[str, str]]) -> None:
    from geir.dialects.ge import AICORE_INT64_CASTS, aicore_int64_extras

    extra_ops, extra_casts = aicore_int64_extras(soc)
    assert extra_ops == ops and casts <= extra_casts and (extra_casts == set()) == (casts == set())
    assert not extra_casts & AICORE_INT64_CASTS
    for name in extra_ops:
        assert DIALECT.ops[name].engine == "AICore" and "aicore_int64" not in DIALECT.ops[name].traits, name


def test_int64_casts_every_chip_does_are_cast_cpp_default_pairs():
    from geir.dialects.ge import AICORE_INT64_CASTS

    # int64 <-> int32, uint8 and bool both ways; int64 -> fp16 one way only
    assert AICORE_INT64_CASTS == {("i64", "i32"), ("i32", "i64"), ("i64", "ui8"), ("ui8", "i64"), ("i64", "i1"),
                                  ("i1", "i64"), ("i64", "f16")}


def test_arg_max_and_arg_min_write_int64_indices():
    for name in ("ge.arg_max", "ge.arg_min"):
        assert "int64_indices" in DIALECT.ops[name].traits and "aicore_int64" not in DIALECT.ops[name].traits


def test_add_traits_extends_a_declared_op_only():
    from geir.opdef import Dialect

    d = Dialect("t")
    d.define("x", traits=("pure",))
    assert d.add_traits("x", "extra").traits == {"pure", "extra"}
    assert d.ops["t.x"].traits == {"pure", "extra"}
    with pytest.raises(ValueError, match="'t.y' is not defined"):
        d.add_traits("y", "extra")


def test_mnemonics_are_snake_case_of_onnx_types():
    assert snake_case("ReduceLogSumExp") == "reduce_log_sum_exp"
    assert snake_case("GatherND") == "gather_nd"
    assert snake_case("RMSNormalization") == "rms_normalization"
    fixed = {"Conv": "ge.conv2d", "MatMul": "ge.matmul", "NonMaxSuppression": "ge.nms", "TopK": "ge.top_k",
             "GlobalAveragePool": "ge.global_avg_pool", "InstanceNormalization": "ge.instance_normalization",
             "ReduceMean": "ge.reduce_mean", "BatchNormalization": "ge.batch_norm", "Gelu": "ge.gelu"}
    for onnx_type, name in fixed.items():
        assert ONNX_TO_GE[onnx_type] == name
    for onnx_type, name in ONNX_TO_GE.items():
        assert name == "ge." + IRREGULAR_MNEMONICS.get(onnx_type, snake_case(onnx_type)), onnx_type
        assert DIALECT.ops[name].onnx_op == onnx_type
    assert DIALECT.ops["ge.batch_matmul"].onnx_op == "MatMul"
    assert "Constant" not in ONNX_TO_GE


def _schema_history(onnx_type: str) -> list[onnx.defs.OpSchema]:
    return [s for s in onnx.defs.get_all_schemas_with_history() if s.name == onnx_type and s.domain == ""]


def _converted_default(attr: onnx.defs.OpSchema.Attribute) -> Any:
    if not attr.default_value.name:
        return None
    converted = from_onnx_attribute(attr.default_value)
    return None if converted is None else kernel_attribute_value(converted) if not isinstance(
        converted, TypeAttr) else converted.value


#: attributes GE's graph fusion sets that no ONNX opset has (BatchMatMulFusionPass's
#: transposed operands)
GE_FUSION_ATTRIBUTES = {"ge.matmul": {"transA", "transB"}}


def test_operands_and_attributes_follow_onnx_schemas():
    """Operand names in ONNX order; every current ONNX attribute declared with its default;
    every other declared attribute from an older opset of the same op, or one GE's
    graph fusion sets."""
    common = set(DIALECT.common_attributes)
    for onnx_type, name in ONNX_TO_GE.items():
        od = DIALECT.ops[name]
        history = _schema_history(onnx_type)
        latest = max(history, key=lambda s: s.since_version)
        assert [o.name for o in od.operands] == [i.name for i in latest.inputs], name
        for attr in latest.attributes.values():
            if attr.type in (onnx.defs.OpSchema.AttrType.GRAPH, onnx.defs.OpSchema.AttrType.GRAPHS):
                continue  # subgraphs are regions
            assert attr.name in od.attributes, f"{name} lacks ONNX attribute {attr.name}"
            declared = od.attributes[attr.name]
            assert declared.required == attr.required, (name, attr.name)
            expected = _converted_default(attr)
            if isinstance(expected, float):
                assert np.float32(declared.default) == np.float32(expected), (name, attr.name)
            elif expected is not None:
                assert declared.default == expected, (name, attr.name, declared.default, expected)
        older = {a for s in history for a in s.attributes}
        for attr_name in set(od.attributes) - common - GE_FUSION_ATTRIBUTES.get(name, set()):
            assert attr_name in older, f"{name} declares {attr_name}, which no opset of {onnx_type} has"


# ====================================================== ONNX attributes


def test_onnx_attribute_conversion():
    make = helper.make_attribute
    assert from_onnx_attribute(make("axis", 2)) == IntegerAttr(2)
    assert from_onnx_attribute(make("alpha", 0.5)) == FloatAttr(0.5, F32)
    assert from_onnx_attribute(make("mode", "linear")) == StringAttr("linear")
    assert from_onnx_attribute(make("pads", [1, 2])) == ArrayAttr([IntegerAttr(1), IntegerAttr(2)])
    assert from_onnx_attribute(make("scales", [1.5])) == ArrayAttr([FloatAttr(1.5, F32)])
    assert from_onnx_attribute(make("activations", ["Tanh"])) == ArrayAttr([StringAttr("Tanh")])
    assert from_onnx_attribute(make("to", TensorProto.FLOAT16)) == TypeAttr(F16)
    assert from_onnx_attribute(make("dtype", TensorProto.BOOL)) == TypeAttr(I1)
    assert from_onnx_attribute(make("output_dtype", 0)) is None  # UNDEFINED: ONNX's "not set"
    value = from_onnx_attribute(make("value", helper.make_tensor("v", TensorProto.INT64, [2], [3, 4])))
    assert isinstance(value, DenseElementsAttr) and value.type is t("2xi64")
    bf16 = from_onnx_attribute(make("value", helper.make_tensor("v", TensorProto.BFLOAT16, [1], [1.5])))
    assert bf16.type is t("1xbf16") and bf16.array.dtype == np.float32  # type: ignore[union-attr]
    graph = helper.make_graph([], "g", [], [])
    with pytest.raises(ValueError, match="subgraph"):
        from_onnx_attribute(make("then_branch", graph))


def test_kernel_attribute_values_and_round_trip():
    assert kernel_attribute_value(TypeAttr(F16)) == np.dtype(np.float16)
    assert kernel_attribute_value(ArrayAttr([IntegerAttr(1), IntegerAttr(2)])) == [1, 2]
    assert kernel_attribute_value(FloatAttr(0.25, F32)) == 0.25
    array = kernel_attribute_value(to_attribute(np.arange(3, dtype=np.int32)))
    assert array.dtype == np.int32 and list(array) == [0, 1, 2]
    for proto in (helper.make_attribute("to", TensorProto.INT8), helper.make_attribute("pads", [0, 1]),
                  helper.make_attribute("alpha", 0.125), helper.make_attribute("mode", "edge"),
                  helper.make_attribute("activations", ["Relu", "Tanh"]),
                  helper.make_attribute("value", helper.make_tensor("", TensorProto.FLOAT, [2], [1.0, 2.0]))):
        back = to_onnx_attribute(proto.name, from_onnx_attribute(proto))  # type: ignore[arg-type]
        assert helper.get_attribute_value(back).__repr__() == helper.get_attribute_value(proto).__repr__() \
            or np.array_equal(onnx.numpy_helper.to_array(back.t), onnx.numpy_helper.to_array(proto.t))
    assert element_type_from_onnx(TensorProto.UINT8) is UI8 and onnx_data_type(BF16) == TensorProto.BFLOAT16
    for code, et in ONNX_ELEMENT_TYPES.items():  # the table is keyed by enum value: check the names
        name = TensorProto.DataType.Name(code)
        assert element_type_from_onnx(getattr(TensorProto, name)) is et and onnx_data_type(et) == code
    with pytest.raises(ValueError, match="COMPLEX64"):
        element_type_from_onnx(TensorProto.COMPLEX64)


def test_reading_attributes_does_not_import_onnx():
    """Kernels call kernel_attribute_value; onnx (0.6 s to import) must stay out of their way."""
    code = "import sys, geir.onnx_attributes, geir.dialects.ge; assert 'onnx' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ================================================================ ONNX oracle

#: ONNX node tests a ge op cannot express: name pattern (re.search) -> reason
ORACLE_SKIPS: dict[str, str] = {
    r"FLOAT4E2M1|float4e2m1": "f4E2M1FN has no geir element type (geir.types.FloatType lacks it)",
    r"FLOAT8E8M0": "f8E8M0FNU has no geir element type (geir.types.FloatType lacks it)",
    r"^test_(if|loop\d*|scan\d*)_?(seq|opt)": "sequence/optional values are not tensors",
    r"^test_identity_(sequence|opt)$": "sequence/optional values are not tensors",
    r"^test_(if|loop11|scan_sum|scan9_\w+)$": "region op: the importer declares its results from the subgraphs",
}


def _value_info_types(graph: onnx.GraphProto) -> dict[str, int | None]:
    """name -> ONNX elem_type of each graph input/output (None when not a plain tensor)."""
    out: dict[str, int | None] = {}
    for vi in (*graph.input, *graph.output):
        out[vi.name] = vi.type.tensor_type.elem_type if vi.type.HasField("tensor_type") else None
    return out


class OracleCase:
    """One single-node ONNX backend test case turned into ge inference inputs."""

    def __init__(self, case: Any) -> None:
        self.name: str = case.name
        graph = case.model.graph
        self.node = graph.node[0]
        self.inputs, self.outputs = case.data_sets[0]
        self.elem_types = _value_info_types(graph)
        self.input_index = {vi.name: i for i, vi in enumerate(graph.input)}
        self.output_index = {vi.name: i for i, vi in enumerate(graph.output)}

    def element_type(self, name: str) -> Type:
        code = self.elem_types.get(name)
        if code is None:
            raise _Skip("input or output is not a plain tensor (sequence/optional)")
        try:
            return element_type_from_onnx(code)
        except ValueError as e:
            raise _Skip(str(e)) from None

    def context(self, od: OpDef, with_constants: bool) -> FakeContext:
        names = list(self.node.input)
        while names and not names[-1]:
            names.pop()  # trailing omitted optional inputs are just absent
        types: list[Type] = []
        values: list[Any] = []
        for name in names:
            if not name:
                types.append(NONE)
                values.append(None)
                continue
            et = self.element_type(name)
            array = _as_array(self.inputs[self.input_index[name]])
            types.append(TensorType(array.shape, et))
            values.append(array if with_constants else None)
        attrs = {}
        for proto in self.node.attribute:
            try:
                converted = from_onnx_attribute(proto)
            except ValueError as e:
                raise _Skip(str(e)) from None
            if converted is not None:
                attrs[proto.name] = converted
        outputs = list(self.node.output)
        while outputs and not outputs[-1]:
            outputs.pop()
        return FakeContext(od, types, attrs, values, [NONE] * len(outputs))

    def expected(self) -> list[tuple[int, TensorType]]:
        out = []
        for position, name in enumerate(self.node.output):
            if name:
                et = self.element_type(name)
                out.append((position, TensorType(_as_array(self.outputs[self.output_index[name]]).shape, et)))
        return out


class _Skip(Exception):
    pass


def _as_array(data: Any) -> np.ndarray:
    """A test input/output as numpy (float8/int4 data come as TensorProtos)."""
    if isinstance(data, TensorProto):
        return onnx.numpy_helper.to_array(data)
    return np.asarray(data)


def _compatible(inferred: Type, expected: TensorType) -> tuple[bool, bool]:
    """(matches, exactly): element types equal and each inferred dim equal or unknown."""
    if not isinstance(inferred, TensorType) or inferred.element_type is not expected.element_type:
        return False, False
    if inferred.shape is None:
        return True, False
    if len(inferred.shape) != len(expected.shape):  # type: ignore[arg-type]
        return False, False
    exact = True
    for d, e in zip(inferred.shape, expected.shape):  # type: ignore[arg-type]
        if d is None:
            exact = False
        elif d != e:
            return False, False
    return True, exact


@pytest.fixture(scope="module")
def onnx_node_cases() -> list[Any]:
    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect_testcases(None)


def run_oracle(cases: Sequence[Any], with_constants: bool) -> dict[str, Any]:
    """Run every applicable case; returns counts, mismatches and skip reasons."""
    counts: collections.Counter[str] = collections.Counter()
    mismatches: list[str] = []
    skipped: collections.Counter[str] = collections.Counter()
    for case in cases:
        graph = case.model.graph
        if len(graph.node) != 1:
            counts["not applicable (multi-node)"] += 1
            continue
        node = graph.node[0]
        name = ONNX_TO_GE.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if name is None:
            counts["not applicable (no ge op)"] += 1
            continue
        reason = next((r for pattern, r in ORACLE_SKIPS.items() if re.search(pattern, case.name)), None)
        if reason is not None:
            skipped[reason] += 1
            continue
        od = DIALECT.ops[name]
        oracle = OracleCase(case)
        try:
            expected = oracle.expected()
            ctx = oracle.context(od, with_constants)
        except _Skip as e:
            mismatches.append(f"{case.name}: cannot be checked ({e}) and is not in ORACLE_SKIPS")
            continue
        counts["checked"] += 1
        for attr_name, attr in ctx.attributes.items():  # what the importer makes must pass the verifier
            declared = od.attributes.get(attr_name)
            if declared is None or not ATTR_KINDS[declared.kind](attr):
                mismatches.append(f"{case.name}: attribute '{attr_name}' = {attr} is not declared as such on {name}")
        try:
            results = list(od.infer(ctx))  # type: ignore[misc]
            assert od.cost is None or isinstance(od.cost(ctx, results), Cost)
        except InferError as e:
            mismatches.append(f"{case.name}: InferError: {e}")
            continue
        ok, exact = True, True
        for position, want in expected:
            got = results[position] if position < len(results) else None
            match, is_exact = _compatible(got, want) if got is not None else (False, False)
            if not match:
                ok = False
                mismatches.append(f"{case.name} ({name}) result #{position}: inferred {got}, ONNX gives {want}")
            exact = exact and is_exact
        if ok:
            counts["matched exactly" if exact else "matched with dynamic dims"] += 1
    return {"counts": counts, "mismatches": mismatches, "skipped": skipped}


def _report(title: str, result: dict[str, Any]) -> None:
    print(f"\n{title}: " + ", ".join(f"{k}: {v}" for k, v in sorted(result["counts"].items())))
    print(f"  skipped: {sum(result['skipped'].values())}")
    for reason, n in result["skipped"].most_common():
        print(f"    {n:4d}  {reason}")
    for line in result["mismatches"]:
        print("  MISMATCH", line)


def test_oracle_against_onnx_node_tests(onnx_node_cases):
    """Every single-node ONNX node test of a mapped op: inferred type == ONNX's output type."""
    result = run_oracle(onnx_node_cases, with_constants=True)
    _report("ONNX oracle (inputs as constants)", result)
    counts = result["counts"]
    assert counts["checked"] > 800
    assert not result["mismatches"]
    # with every input a constant, only data-dependent results (nonzero, unique, nms) stay dynamic
    assert counts["matched with dynamic dims"] < 40


def test_oracle_without_constants(onnx_node_cases):
    """With no operand values known, inference still never fails and stays compatible."""
    result = run_oracle(onnx_node_cases, with_constants=False)
    _report("ONNX oracle (no constants)", result)
    assert not result["mismatches"]


# ======================================================== unit: helpers


def test_shape_helpers():
    names = ["a", "b"]
    assert ge_infer.broadcast_shapes([(None, 3), (4, 1)], names) == (4, 3)
    assert ge_infer.broadcast_shapes([(None,), (1,)], names) == (None,)
    assert ge_infer.broadcast_shapes([(), (2, 1)], names) == (2, 1)
    assert ge_infer.broadcast_shapes([None, (2,)], names) is None
    assert ge_infer.slice_dim(10, -1, -11, -1) == 10
    assert ge_infer.slice_dim(10, 2, 9, 3) == 3  # 2, 5, 8
    assert ge_infer.product([2, None, 0]) == 0 and ge_infer.product([2, None]) is None
    with pytest.raises(InferError, match=r"attribute 'axis' 3 is out of range for rank 3 \(expected -3 to 2\)"):
        ge_infer.normalize_axis(3, 3, "attribute 'axis'")


# ======================================================== unit: elementwise


def test_broadcasting_binary_ops():
    assert infer_one("add", ["2x3x4xf32", "4xf32"]) == "tensor<2x3x4xf32>"
    assert infer_one("mul", ["2x1x4xf16", "3x1xf16"]) == "tensor<2x3x4xf16>"
    assert infer_one("sub", ["f32", "5xf32"]) == "tensor<5xf32>"
    assert infer_one("add", ["?x3xf32", "1x3xf32"]) == "tensor<?x3xf32>"
    assert infer_one("add", ["?x3xf32", "4x1xf32"]) == "tensor<4x3xf32>"  # ? must be 4 or 1
    assert infer_one("add", ["*xf32", "3xf32"]) == "tensor<*xf32>"
    assert infer_one("less", ["2x3xi64", "3xi64"]) == "tensor<2x3xi1>"
    assert infer_one("equal", ["4xi1", "4xi1"]) == "tensor<4xi1>"
    assert infer_one("and", ["2x1xi1", "1x5xi1"]) == "tensor<2x5xi1>"
    assert infer_one("pow", ["3xf32", "i64"]) == "tensor<3xf32>"  # exponent may differ
    assert infer_one("sum", ["2x1xf32", "3xf32", "1x1xf32"]) == "tensor<2x3xf32>"
    assert infer_one("max", ["4xi32"]) == "tensor<4xi32>"
    assert infer_one("where", ["2x1xi1", "3xf32", "f32"]) == "tensor<2x3xf32>"
    assert infer_one("prelu", ["1x8x4x4xf32", "8x1x1xf32"]) == "tensor<1x8x4x4xf32>"
    assert infer_one("bit_shift", ["3xui8", "ui8"], direction="LEFT") == "tensor<3xui8>"


def test_broadcast_failures_name_the_operands_and_dims():
    with pytest.raises(InferError, match=r"'A' is 2x3, 'B' is 4 \(dimension -1 is 3 in one and 4 in another\)"):
        infer("add", ["2x3xf32", "4xf32"])
    with pytest.raises(InferError, match=r"dimension -2 is 2 in one and 5 in another"):
        infer("sum", ["2x3xf32", "5x3xf32", "3xf32"])
    with pytest.raises(InferError, match=r"'slope' \(3\) does not broadcast to 'X' \(1x8x4x4\)"):
        infer("prelu", ["1x8x4x4xf32", "3xf32"])


def test_element_type_checks():
    with pytest.raises(InferError, match="operand 'A' must have element type i1, got tensor<3xf32>"):
        infer("and", ["3xf32", "3xf32"])
    with pytest.raises(InferError, match="operand 'B' has element type f16, expected f32"):
        infer("add", ["3xf32", "3xf16"])
    with pytest.raises(InferError, match="float element type"):
        infer("exp", ["3xi32"])
    with pytest.raises(InferError, match="'condition' must have element type i1"):
        infer("where", ["3xf32", "3xf32", "3xf32"])


def test_unary_and_activations():
    assert infer_one("relu", ["1x3xf16"]) == "tensor<1x3xf16>"
    assert infer_one("is_nan", ["2x?xf32"]) == "tensor<2x?xi1>"
    assert infer_one("is_inf", ["2xf64"]) == "tensor<2xi1>"
    assert infer_one("not", ["5xi1"]) == "tensor<5xi1>"
    assert infer_one("leaky_relu", ["*xf32"], alpha=0.1) == "tensor<*xf32>"
    assert infer_one("softmax", ["2x10xf32"], axis=1) == "tensor<2x10xf32>"
    assert infer_one("clip", ["4xf32", "f32", "f32"]) == "tensor<4xf32>"
    assert infer_one("gelu", ["8xbf16"], approximate="tanh") == "tensor<8xbf16>"
    with pytest.raises(InferError, match="attribute 'axis' 2 is out of range for rank 2"):
        infer("log_softmax", ["2x10xf32"], axis=2)


# ======================================================= unit: conv, matmul


@pytest.mark.parametrize("x, w, attrs, expected", [
    ("1x3x224x224xf32", "64x3x7x7xf32", dict(strides=[2, 2], pads=[3, 3, 3, 3]), "1x64x112x112"),
    # SAME_UPPER: ceil(in / stride), whatever the dilation
    ("1x8x15x15xf32", "16x8x3x3xf32", dict(auto_pad="SAME_UPPER", strides=[2, 2], dilations=[2, 2]), "1x16x8x8"),
    ("1x8x15x16xf32", "16x8x3x3xf32", dict(auto_pad="SAME_LOWER", strides=[2, 3]), "1x16x8x6"),
    # VALID with dilation 2: dilated kernel 5, (10 - 5) / 1 + 1
    ("1x1x10x10xf32", "1x1x3x3xf32", dict(auto_pad="VALID", dilations=[2, 2]), "1x1x6x6"),
    ("1x1x7x5xf32", "1x1x3x3xf32", dict(strides=[2, 2], pads=[1, 0, 1, 0]), "1x1x4x2"),
    ("1x32x28x28xf32", "64x8x3x3xf32", dict(group=4, pads=[1, 1, 1, 1]), "1x64x28x28"),
    ("2x32x9x9xf16", "32x1x3x3xf16", dict(group=32), "2x32x7x7"),  # depthwise
    ("1x4x10xf32", "8x4x3xf32", {}, "1x8x8"),  # 1-D
    ("1x2x5x6x7xf32", "4x2x3x3x3xf32", dict(pads=[1] * 6), "1x4x5x6x7"),  # 3-D
    ("?x3x?x224xf32", "64x3x7x7xf32", dict(strides=[2, 2], pads=[3, 3, 3, 3]), "?x64x?x112"),
])
def test_conv_shapes(x, w, attrs, expected):
    et = x.rsplit("x", 1)[1]
    assert infer_one("conv2d", [x, w], **attrs) == f"tensor<{expected}x{et}>"


def test_conv_errors():
    with pytest.raises(InferError, match=r"'W' expects 16 x 4 \(group\) = 64 input channels, but 'X' has 32"):
        infer("conv2d", ["1x32x8x8xf32", "64x16x3x3xf32"], group=4)
    with pytest.raises(InferError, match="'group' = 3 does not divide the 32 input channels"):
        infer("conv2d", ["1x32x8x8xf32", "63x16x3x3xf32"], group=3)
    with pytest.raises(InferError, match="'B' must be 1-D of size 64"):
        infer("conv2d", ["1x3x8x8xf32", "64x3x3x3xf32", "32xf32"])
    with pytest.raises(InferError, match=r"'strides' has 3 values, expected 2"):
        infer("conv2d", ["1x3x8x8xf32", "4x3x3x3xf32"], strides=[1, 1, 1])
    with pytest.raises(InferError, match="smaller than the dilated kernel"):
        infer("conv2d", ["1x3x4x4xf32", "4x3x3x3xf32"], dilations=[3, 3])


def test_conv_transpose_shapes():
    x, w = "1x16x14x14xf32", "16x8x4x4xf32"
    assert infer_one("conv_transpose", [x, w], strides=[2, 2], pads=[1, 1, 1, 1]) == "tensor<1x8x28x28xf32>"
    assert infer_one("conv_transpose", [x, w], strides=[2, 2], pads=[1, 1, 1, 1],
                     output_padding=[1, 1]) == "tensor<1x8x29x29xf32>"
    assert infer_one("conv_transpose", [x, w], group=2, strides=[2, 2], auto_pad="SAME_UPPER") == \
        "tensor<1x16x28x28xf32>"
    assert infer_one("conv_transpose", [x, w], output_shape=[30, 31]) == "tensor<1x8x30x31xf32>"


def test_matmul_shapes():
    assert infer_one("matmul", ["2x3x4xf32", "4x5xf32"]) == "tensor<2x3x5xf32>"
    assert infer_one("matmul", ["4xf32", "4x5xf32"]) == "tensor<5xf32>"
    assert infer_one("matmul", ["2x3x4xf32", "4xf32"]) == "tensor<2x3xf32>"
    assert infer_one("matmul", ["4xf32", "4xf32"]) == "tensor<f32>"
    assert infer_one("matmul", ["1x3x4xf32", "7x1x4x5xf32"]) == "tensor<7x1x3x5xf32>"
    assert infer_one("matmul", ["?x?x64xf16", "64x32xf16"]) == "tensor<?x?x32xf16>"
    assert infer_one("batch_matmul", ["8x3x4xf32", "8x4x5xf32"]) == "tensor<8x3x5xf32>"
    assert infer_one("matmul_integer", ["2x4xui8", "4x3xi8"]) == "tensor<2x3xi32>"
    with pytest.raises(InferError, match=r"A is 3x4 \(K = 4\), B is 5x6 \(K = 5\)"):
        infer("matmul", ["3x4xf32", "5x6xf32"])
    with pytest.raises(InferError, match="not broadcast-compatible"):
        infer("matmul", ["2x3x4xf32", "5x4x6xf32"])


def test_gemm_shapes():
    assert infer_one("gemm", ["4x3xf32", "5x4xf32", "5xf32"], transA=1, transB=1) == "tensor<3x5xf32>"
    assert infer_one("gemm", ["3x4xf32", "4x5xf32", "3x1xf32"]) == "tensor<3x5xf32>"
    with pytest.raises(InferError, match=r"'C' \(4\) does not broadcast to 'Y' \(3x5\)"):
        infer("gemm", ["3x4xf32", "4x5xf32", "4xf32"])
    with pytest.raises(InferError, match="contraction mismatch: op\\(A\\) is 3x4, op\\(B\\) is 5x4"):
        infer("gemm", ["3x4xf32", "5x4xf32"])


def test_einsum_shapes():
    assert infer_one("einsum", ["2x3x4xf32", "2x4x5xf32"], equation="bij,bjk->bik") == "tensor<2x3x5xf32>"
    assert infer_one("einsum", ["3x4xf32", "4x5xf32"], equation="ij,jk") == "tensor<3x5xf32>"
    assert infer_one("einsum", ["2x7x3x4xf32"], equation="...ij->...ji") == "tensor<2x7x4x3xf32>"
    assert infer_one("einsum", ["3x3xf32"], equation="ii->i") == "tensor<3xf32>"
    assert infer_one("einsum", ["5xf32", "5xf32"], equation="i,i") == "tensor<f32>"
    with pytest.raises(InferError, match="label 'j' is 4 in one operand and 6 in operand #1"):
        infer("einsum", ["3x4xf32", "6x5xf32"], equation="ij,jk->ik")


# ============================================================= unit: pooling


def test_pooling_shapes():
    x = "1x1x32x32xf32"
    assert infer_one("max_pool", [x], kernel_shape=[3, 3], strides=[2, 2]) == "tensor<1x1x15x15xf32>"
    assert infer_one("max_pool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1) == "tensor<1x1x16x16xf32>"
    # ceil_mode drops a last window that would start in the right padding: 4 -> 3
    assert infer_one("max_pool", ["1x1x5x5xf32"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1],
                     ceil_mode=1) == "tensor<1x1x3x3xf32>"
    assert infer_one("max_pool", ["1x1x10x10xf32"], kernel_shape=[3, 3], dilations=[2, 2]) == "tensor<1x1x6x6xf32>"
    y, indices = infer("max_pool", [x], results=2, kernel_shape=[2, 2], strides=[2, 2])
    assert (str(y), str(indices)) == ("tensor<1x1x16x16xf32>", "tensor<1x1x16x16xi64>")
    assert infer_one("avg_pool", ["1x3x7x7xf32"], kernel_shape=[3, 3], strides=[2, 2],
                     auto_pad="SAME_LOWER") == "tensor<1x3x4x4xf32>"
    assert infer_one("avg_pool", ["1x3x7xf32"], kernel_shape=[3], pads=[1, 1], count_include_pad=1) == \
        "tensor<1x3x7xf32>"
    assert infer_one("global_avg_pool", ["2x64x7x7xf16"]) == "tensor<2x64x1x1xf16>"
    assert infer_one("global_max_pool", ["2x64x?xf16"]) == "tensor<2x64x1xf16>"
    with pytest.raises(InferError, match="'kernel_shape' has 1 values for 2 spatial dims"):
        infer("max_pool", [x], kernel_shape=[3])
    with pytest.raises(InferError, match="missing attribute 'kernel_shape'"):
        infer("avg_pool", [x])


# ====================================================== unit: normalisation


def test_normalisation_shapes():
    bn = ["2x16x8x8xf32", "16xf32", "16xf32", "16xf32", "16xf32"]
    assert shapes(infer("batch_norm", bn)) == ["tensor<2x16x8x8xf32>"]
    assert shapes(infer("batch_norm", bn, training_mode=1)) == ["tensor<2x16x8x8xf32>", "tensor<16xf32>",
                                                                "tensor<16xf32>"]
    with pytest.raises(InferError, match="'scale' must be 1-D of size C = 16, got tensor<8xf32>"):
        infer("batch_norm", ["2x16x8x8xf32", "8xf32", "16xf32", "16xf32", "16xf32"])
    assert shapes(infer("layer_norm", ["2x3x4xf16", "3x4xf16"], results=3, axis=1)) == [
        "tensor<2x3x4xf16>", "tensor<2x1x1xf32>", "tensor<2x1x1xf32>"]  # stats in stash_type
    assert infer_one("instance_normalization", ["1x3x5x5xf32", "3xf32", "3xf32"]) == "tensor<1x3x5x5xf32>"
    assert infer_one("group_normalization", ["1x32x5xf32", "32xf32", "32xf32"], num_groups=8) == "tensor<1x32x5xf32>"
    with pytest.raises(InferError, match="'num_groups' = 5 does not divide the 32 channels"):
        infer("group_normalization", ["1x32x5xf32", "32xf32", "32xf32"], num_groups=5)


# =========================================================== unit: shape ops


def test_reshape():
    data = "2x3x4xf32"
    assert infer_one("reshape", [data, "2xi64"], [None, [0, -1]]) == "tensor<2x12xf32>"
    assert infer_one("reshape", [data, "1xi64"], [None, [-1]]) == "tensor<24xf32>"
    assert infer_one("reshape", [data, "4xi64"], [None, [0, 0, -1, 1]]) == "tensor<2x3x4x1xf32>"
    assert infer_one("reshape", ["?x3x4xf32", "2xi64"], [None, [0, -1]]) == "tensor<?x12xf32>"
    assert infer_one("reshape", ["?x3x4xf32", "2xi64"], [None, [-1, 6]]) == "tensor<?x6xf32>"
    assert infer_one("reshape", ["0x3xf32", "2xi64"], [None, [3, 0]], allowzero=1) == "tensor<3x0xf32>"
    assert infer_one("reshape", [data, "3xi64"]) == "tensor<?x?x?xf32>"  # shape not a constant
    with pytest.raises(InferError, match=r"cannot reshape 2x3x4 \(24 elements\) to \[5, -1\]"):
        infer("reshape", [data, "2xi64"], [None, [5, -1]])
    with pytest.raises(InferError, match=r"to \[5, 5\] \(25 elements\)"):
        infer("reshape", [data, "2xi64"], [None, [5, 5]])
    with pytest.raises(InferError, match="more than one -1"):
        infer("reshape", [data, "2xi64"], [None, [-1, -1]])
    with pytest.raises(InferError, match=r"'shape'\[3\] = 0 copies input dimension 3, but 'data' has rank 3"):
        infer("reshape", [data, "4xi64"], [None, [1, 1, 1, 0]])


def test_flatten_transpose_squeeze_unsqueeze():
    assert infer_one("flatten", ["2x3x4x5xf32"], axis=0) == "tensor<1x120xf32>"
    assert infer_one("flatten", ["2x3x4x5xf32"], axis=-1) == "tensor<24x5xf32>"
    assert infer_one("flatten", ["2x3x4x5xf32"], axis=4) == "tensor<120x1xf32>"
    assert infer_one("transpose", ["2x3x4xf32"]) == "tensor<4x3x2xf32>"
    assert infer_one("transpose", ["2x3x4xf32"], perm=[0, 2, 1]) == "tensor<2x4x3xf32>"
    with pytest.raises(InferError, match=r"'perm' = \[0, 0, 1\] is not a permutation"):
        infer("transpose", ["2x3x4xf32"], perm=[0, 0, 1])
    assert infer_one("squeeze", ["1x3x1x4xf32", "1xi64"], [None, [-2]]) == "tensor<1x3x4xf32>"
    assert infer_one("squeeze", ["1x3x1x4xf32"], axes=[0]) == "tensor<3x1x4xf32>"  # opset 1 attribute
    assert infer_one("squeeze", ["1x3x1x4xf32"]) == "tensor<3x4xf32>"
    with pytest.raises(InferError, match="cannot squeeze axis 1 of size 3"):
        infer("squeeze", ["1x3x1x4xf32", "1xi64"], [None, [1]])
    # negative axes count in the output rank: -1 is the new last dim
    assert infer_one("unsqueeze", ["3x4xf32", "2xi64"], [None, [-1, 0]]) == "tensor<1x3x4x1xf32>"
    assert infer_one("unsqueeze", ["3x4xf32", "1xi64"], [None, [1]]) == "tensor<3x1x4xf32>"
    assert infer_one("unsqueeze", ["3x4xf32"], axes=[0, 3]) == "tensor<1x3x4x1xf32>"
    assert infer_one("unsqueeze", ["3x4xf32", "2xi64"]) == "tensor<?x?x?x?xf32>"
    with pytest.raises(InferError, match="names an axis twice"):
        infer("unsqueeze", ["3x4xf32", "2xi64"], [None, [0, -4]])


def test_concat_and_split():
    assert infer_one("concat", ["2x3xf32", "2x5xf32", "2x?xf32"], axis=1) == "tensor<2x?xf32>"
    assert infer_one("concat", ["2x3xf32", "4x3xf32"], axis=-2) == "tensor<6x3xf32>"
    with pytest.raises(InferError, match=r"'inputs\[1\]' \(3x5\) has dimension 0 = 3, expected 2"):
        infer("concat", ["2x3xf32", "3x5xf32"], axis=1)
    assert shapes(infer("split", ["7x2xf32"], num_outputs=3)) == ["tensor<3x2xf32>"] * 2 + ["tensor<1x2xf32>"]
    assert shapes(infer("split", ["2x6xf32", "2xi64"], [None, [2, 4]], axis=1)) == ["tensor<2x2xf32>",
                                                                                   "tensor<2x4xf32>"]
    assert shapes(infer("split", ["6xf32"], results=2)) == ["tensor<3xf32>"] * 2  # count from declared results
    assert shapes(infer("split", ["6xf32"], split=[1, 5])) == ["tensor<1xf32>", "tensor<5xf32>"]  # opset < 13
    assert shapes(infer("split", ["6xf32", "3xi64"])) == ["tensor<?xf32>"] * 3  # sizes unknown
    with pytest.raises(InferError, match=r"split sizes \[2, 3\] sum to 5, but dimension 0 is 6"):
        infer("split", ["6xf32", "2xi64"], [None, [2, 3]])
    with pytest.raises(InferError, match="needs 'num_outputs'"):
        infer("split", ["6xf32"])


def test_slice():
    data = "10x20xf32"

    def sliced(starts, ends, axes=None, steps=None):
        operands = [data, "1xi64", "1xi64"] + (["1xi64"] if axes is not None or steps is not None else []) + \
            (["1xi64"] if steps is not None else [])
        return infer_one("slice", operands, [None, starts, ends, axes, steps])

    assert sliced([2], [5]) == "tensor<3x20xf32>"
    assert sliced([1], [1000], [1]) == "tensor<10x19xf32>"  # ends clamp
    assert sliced([-1], [0], [0], [-2]) == "tensor<5x20xf32>"  # 9, 7, 5, 3, 1
    assert sliced([9], [-100], [0], [-1]) == "tensor<10x20xf32>"  # whole axis reversed
    assert sliced([-3], [2 ** 63 - 1], [-1]) == "tensor<10x3xf32>"
    assert sliced([5], [2], [0]) == "tensor<0x20xf32>"
    assert infer_one("slice", [data], starts=[0], ends=[4], axes=[1]) == "tensor<10x4xf32>"  # opset 1
    assert infer_one("slice", [data, "1xi64", "1xi64", "1xi64"], [None, None, None, [1]]) == "tensor<10x?xf32>"
    with pytest.raises(InferError, match="step must not be 0"):
        sliced([0], [1], [0], [0])


def test_gather_scatter_expand_tile_pad():
    assert infer_one("gather", ["5x4x3xf32", "2x2xi64"], axis=1) == "tensor<5x2x2x3xf32>"
    assert infer_one("gather", ["5x4xf32", "i64"]) == "tensor<4xf32>"
    with pytest.raises(InferError, match="'indices' must have element type i32 or i64"):
        infer("gather", ["5x4xf32", "2xf32"])
    assert infer_one("gather_elements", ["3x3xf32", "2x3xi64"], axis=0) == "tensor<2x3xf32>"
    assert infer_one("gather_nd", ["2x2x2xf32", "2x1x2xi64"]) == "tensor<2x1x2xf32>"
    assert infer_one("gather_nd", ["2x2x2xf32", "2x1xi64"], batch_dims=1) == "tensor<2x2xf32>"
    assert infer_one("scatter_nd", ["4x4xf32", "2x1xi64", "2x4xf32"]) == "tensor<4x4xf32>"
    assert infer_one("expand", ["3x1xf32", "3xi64"], [None, [2, 1, 6]]) == "tensor<2x3x6xf32>"
    assert infer_one("expand", ["3x1xf32", "3xi64"]) == "tensor<?x3x?xf32>"
    assert infer_one("tile", ["2x3xf32", "2xi64"], [None, [2, 2]]) == "tensor<4x6xf32>"
    pads = [0, 0, 1, 2, 0, 0, 3, 4]
    assert infer_one("pad", ["1x3x4x4xf32", "8xi64"], [None, pads]) == "tensor<1x3x8x10xf32>"
    assert infer_one("pad", ["1x3x4x4xf32", "4xi64", "none", "2xi64"], [None, [1, 1, -1, -1], None, [2, 3]],
                     mode="edge") == "tensor<1x3x4x4xf32>"
    with pytest.raises(InferError, match="pads has 2 values, expected 8"):
        infer("pad", ["1x3x4x4xf32", "2xi64"], [None, [1, 1]])


def test_misc_shape_ops():
    assert infer_one("depth_to_space", ["1x8x2x3xf32"], blocksize=2) == "tensor<1x2x4x6xf32>"
    assert infer_one("space_to_depth", ["1x2x4x6xf32"], blocksize=2) == "tensor<1x8x2x3xf32>"
    with pytest.raises(InferError, match="channels 6 are not divisible by blocksize\\^2 = 4"):
        infer("depth_to_space", ["1x6x2x3xf32"], blocksize=2)
    assert infer_one("shape", ["2x3x4x5xf16"]) == "tensor<4xi64>"
    assert infer_one("shape", ["2x3x4x5xf16"], start=1, end=-1) == "tensor<2xi64>"
    assert infer_one("size", ["2x3xf16"]) == "tensor<i64>"
    assert infer_one("constant_of_shape", ["2xi64"], [[2, 3]],
                     value=np.array([7], np.int32)) == "tensor<2x3xi32>"
    assert infer_one("constant_of_shape", ["3xi64"]) == "tensor<?x?x?xf32>"
    assert infer_one("range", ["i64", "i64", "i64"], [0, 10, 3]) == "tensor<4xi64>"
    assert infer_one("range", ["f32", "f32", "f32"], [1.0, 2.0, 0.3]) == "tensor<4xf32>"
    assert infer_one("range", ["i32", "i32", "i32"], [10, 0, 1]) == "tensor<0xi32>"
    assert infer_one("one_hot", ["2x3xi64", "i64", "2xf32"], [None, 10]) == "tensor<2x3x10xf32>"
    assert infer_one("one_hot", ["2x3xi64", "i64", "2xf32"], [None, 10], axis=0) == "tensor<10x2x3xf32>"
    assert infer_one("eye_like", ["3x4xf32"], dtype=I32) == "tensor<3x4xi32>"
    assert infer_one("trilu", ["3x4xf32", "i64"]) == "tensor<3x4xf32>"
    assert infer_one("cum_sum", ["3x4xf32", "i64"], [None, 1]) == "tensor<3x4xf32>"


def test_resize():
    x = "1x3x4x6xf32"
    assert infer_one("resize", [x, "none", "4xf32"], [None, None, [1, 1, 2, 0.5]]) == "tensor<1x3x8x3xf32>"
    assert infer_one("resize", [x, "none", "none", "4xi64"], [None, None, None, [1, 3, 5, 7]]) == \
        "tensor<1x3x5x7xf32>"
    # keep the aspect ratio: scale min(8/4, 8/6) = 4/3 -> round(4 * 4/3) = 5, 8
    assert infer_one("resize", [x, "none", "none", "2xi64"], [None, None, None, [8, 8]], axes=[2, 3],
                     keep_aspect_ratio_policy="not_larger") == "tensor<1x3x5x8xf32>"
    assert infer_one("resize", [x, "0xf32", "4xf32"], [None, None, [1, 1, 1.5, 1.5]]) == "tensor<1x3x6x9xf32>"
    assert infer_one("resize", [x, "none", "4xf32"]) == "tensor<?x?x?x?xf32>"  # scales unknown
    assert infer_one("resize", [x, "none", "2xf32"], axes=[2, 3]) == "tensor<1x3x?x?xf32>"
    with pytest.raises(InferError, match="either 'scales' or 'sizes'"):
        infer("resize", [x, "none", "4xf32", "4xi64"])
    assert infer_one("upsample", ["1x1x2x2xf32", "4xf32"], [None, [1, 1, 2, 3]]) == "tensor<1x1x4x6xf32>"


# ===================================================== unit: reductions etc.


def test_reductions():
    x = "2x3x4xf32"
    assert infer_one("reduce_mean", [x], axes=[1]) == "tensor<2x1x4xf32>"
    assert infer_one("reduce_sum", [x, "1xi64"], [None, [-1]], keepdims=0) == "tensor<2x3xf32>"
    assert infer_one("reduce_max", [x]) == "tensor<1x1x1xf32>"
    assert infer_one("reduce_max", [x, "0xi64"], [None, []], keepdims=0) == "tensor<f32>"
    assert infer_one("reduce_l2", [x, "0xi64"], [None, []], noop_with_empty_axes=1) == "tensor<2x3x4xf32>"
    assert infer_one("reduce_sum", [x, "2xi64"], keepdims=0) == "tensor<?xf32>"  # axes unknown
    assert infer_one("reduce_sum", [x, "2xi64"]) == "tensor<?x?x?xf32>"
    with pytest.raises(InferError, match="reduction axes 3 is out of range for rank 3"):
        infer("reduce_sum", [x], axes=[3])
    assert infer_one("arg_max", [x], axis=1) == "tensor<2x1x4xi64>"
    assert infer_one("arg_min", [x], axis=-1, keepdims=0) == "tensor<2x3xi64>"
    values, indices = infer("top_k", ["3x10xf32", "1xi64"], [None, [4]])
    assert (str(values), str(indices)) == ("tensor<3x4xf32>", "tensor<3x4xi64>")
    assert shapes(infer("top_k", ["3x10xf32", "1xi64"], axis=0)) == ["tensor<?x10xf32>", "tensor<?x10xi64>"]
    with pytest.raises(InferError, match="k = 11 is out of range for axis 1 of size 10"):
        infer("top_k", ["3x10xf32", "1xi64"], [None, [11]])


def test_casts_and_data_dependent_ops():
    assert infer_one("cast", ["2x3xf32"], to=F16) == "tensor<2x3xf16>"
    assert infer_one("cast_like", ["2x3xf32", "i8"]) == "tensor<2x3xi8>"
    assert infer_one("quantize_linear", ["4xf32", "f32", "i8"]) == "tensor<4xi8>"
    assert infer_one("quantize_linear", ["4xf32", "f32"]) == "tensor<4xui8>"
    assert infer_one("dequantize_linear", ["4xi8", "f16"]) == "tensor<4xf16>"
    assert infer_one("nms", ["1x6x4xf32", "1x1x6xf32", "1xi64"]) == "tensor<?x3xi64>"
    with pytest.raises(InferError, match="disagree on the number of boxes: 6 vs 5"):
        infer("nms", ["1x6x4xf32", "1x1x5xf32"])
    assert infer_one("nonzero", ["3x4xf32"]) == "tensor<2x?xi64>"
    assert shapes(infer("unique", ["12xf32"], results=4)) == ["tensor<?xf32>", "tensor<?xi64>",
                                                               "tensor<12xi64>", "tensor<?xi64>"]
    assert shapes(infer("unique", ["3x4xf32"], axis=1, results=3))[::2] == ["tensor<3x?xf32>", "tensor<4xi64>"]
    assert infer_one("compress", ["3x2xf32", "3xi1"], [None, [True, False, True]], axis=0) == "tensor<2x2xf32>"
    assert infer_one("compress", ["3x2xf32", "3xi1"]) == "tensor<?xf32>"
    assert shapes(infer("dropout", ["2x3xf32"], results=2)) == ["tensor<2x3xf32>", "tensor<2x3xi1>"]
    y, y_h, y_c = infer("lstm", ["7x2x5xf32", "2x12x5xf32", "2x12x3xf32"], direction="bidirectional")
    assert (str(y), str(y_h), str(y_c)) == ("tensor<7x2x2x3xf32>", "tensor<2x2x3xf32>", "tensor<2x2x3xf32>")
    assert shapes(infer("gru", ["2x7x5xf32", "1x9x5xf32", "1x9x3xf32"], layout=1, results=2)) == [
        "tensor<2x7x1x3xf32>", "tensor<2x1x3xf32>"]


# ======================================================== unit: GE-specific


def test_engine_specific_ops():
    assert infer_one("dvpp_decode", ["?xui8"], height=224, width=320) == "tensor<224x320x3xui8>"
    with pytest.raises(InferError, match="must be 1-D ui8"):
        infer("dvpp_decode", ["4x4xui8"], height=2, width=2)
    assert infer_one("dvpp_resize", ["480x640x3xui8"], height=224, width=224) == "tensor<224x224x3xui8>"
    assert infer_one("all_reduce", ["8x4xf16"]) == "tensor<8x4xf16>"
    assert infer_one("all_gather", ["2x8xf16"], rank_size=4) == "tensor<8x8xf16>"
    assert infer_one("broadcast", ["2x8xf16"], root=1) == "tensor<2x8xf16>"
    assert infer_one("reduce_scatter", ["8x4xf16"], rank_size=4) == "tensor<2x4xf16>"
    with pytest.raises(InferError, match=r"dimension 0 \(6\) is not divisible by rank_size = 4"):
        infer("reduce_scatter", ["6x4xf16"], rank_size=4)
    assert shapes(infer("switch", ["2x3xf32", "i1"])) == ["tensor<2x3xf32>"] * 2
    with pytest.raises(InferError, match="'pred' must be an i1 tensor"):
        infer("switch", ["2x3xf32", "f32"])
    assert shapes(infer("merge", ["2xf32", "2xf32"])) == ["tensor<2xf32>", "tensor<i32>"]
    with pytest.raises(InferError, match="merge operand #1 is tensor<3xf32>, expected tensor<2xf32>"):
        infer("merge", ["2xf32", "3xf32"])
    assert infer_one("enter", ["2xf32"], frame_name="loop") == "tensor<2xf32>"
    assert infer_one("ref_enter", ["2xf32"], frame_name="loop", is_constant=True) == "tensor<2xf32>"
    assert infer("none", []) == [NONE]
    assert infer_one("const", [], value=np.zeros((2, 3), np.float16)) == "tensor<2x3xf16>"
    od = DIALECT.ops["ge.onnx_op"]
    ctx = FakeContext(od, [t("3xf32")], {"op_type": "Celu2"}, result_types=[t("3xf32"), t("i64")])
    assert shapes(od.infer(ctx)) == ["tensor<3xf32>", "tensor<i64>"]  # type: ignore[misc]
    assert od.open_attributes and od.engine == "AICPU"


# =========================================================== verifiers


def _op(name: str, operands=(), result_types=(), regions=(), **attributes) -> Operation:
    return Operation(name, list(operands), list(result_types), {k: to_attribute(v) for k, v in attributes.items()},
                     list(regions))


def _region(arg_types: Sequence[Type], terminator: str, yielded: Sequence[int] = (0,)) -> Region:
    """A one-block region whose terminator returns the given block arguments."""
    block = Block(list(arg_types))
    block.append(_op(terminator, [block.arguments[i] for i in yielded]))
    return Region([block])


def test_verify_graph():
    x = t("2xf32")
    verify = DIALECT.ops["ge.graph"].verify
    good = _op("ge.graph", regions=[_region([x], "ge.return")], sym_name="main", function_type=FunctionType([x], [x]))
    verify(good)  # type: ignore[misc]
    bad_result = _op("ge.graph", regions=[_region([x], "ge.return")], sym_name="main",
                     function_type=FunctionType([x], [t("3xf32")]))
    with pytest.raises(InferError, match=r"ge.return operand types \(tensor<2xf32>\) do not match"):
        verify(bad_result)  # type: ignore[misc]
    bad_args = _op("ge.graph", regions=[_region([x], "ge.return")], sym_name="main",
                   function_type=FunctionType([t("2xf16")], [x]))
    with pytest.raises(InferError, match="entry block argument types"):
        verify(bad_args)  # type: ignore[misc]
    no_return = _op("ge.graph", regions=[_region([x], "ge.yield")], sym_name="main",
                    function_type=FunctionType([x], [x]))
    with pytest.raises(InferError, match="must end with 'ge.return'"):
        verify(no_return)  # type: ignore[misc]


def test_verify_if_and_batch_matmul():
    cond_block = Block([t("i1"), t("2xf32")])
    cond, value = cond_block.arguments
    then_block, else_block = Block(), Block()
    then_block.append(_op("ge.yield", [value]))
    else_block.append(_op("ge.yield", [value]))
    if_op = _op("ge.if", [cond], [t("2xf32")], [Region([then_block]), Region([else_block])])
    DIALECT.ops["ge.if"].verify(if_op)  # type: ignore[misc]
    wrong = _op("ge.if", [cond], [t("3xf32")], [Region([Block()]), Region([Block()])])
    wrong.regions[0].blocks[0].append(_op("ge.yield", [value]))
    wrong.regions[1].blocks[0].append(_op("ge.yield", [value]))
    with pytest.raises(InferError, match=r"the then branch yields \(tensor<2xf32>\)"):
        DIALECT.ops["ge.if"].verify(wrong)  # type: ignore[misc]
    args = Block([t("3x4xf32"), t("4x5xf32")]).arguments
    with pytest.raises(InferError, match="'A' must have rank >= 3"):
        DIALECT.ops["ge.batch_matmul"].verify(_op("ge.batch_matmul", args, [t("3x5xf32")]))  # type: ignore[misc]


# ================================================================= costs


def _cost(op: str, operands: Sequence[str], **attributes: Any) -> Cost:
    od = DIALECT.ops[f"ge.{op}"]
    ctx = FakeContext(od, [t(x) for x in operands], attributes)
    return od.cost(ctx, od.infer(ctx))  # type: ignore[misc]


def test_cost_hints():
    c = _cost("conv2d", ["1x3x224x224xf32", "64x3x7x7xf32"], strides=[2, 2], pads=[3, 3, 3, 3])
    assert c.flops == 2 * 64 * 112 * 112 * 3 * 7 * 7
    assert c.bytes == 4 * (3 * 224 * 224 + 64 * 3 * 7 * 7 + 64 * 112 * 112)
    grouped = _cost("conv2d", ["1x32x8x8xf16", "32x8x3x3xf16"], group=4, pads=[1, 1, 1, 1])
    assert grouped.flops == 2 * 32 * 8 * 8 * (32 // 4) * 9
    assert _cost("matmul", ["5x3x4xf32", "4x6xf32"]).flops == 2 * 5 * 3 * 6 * 4
    assert _cost("gemm", ["4x3xf32", "4x6xf32"], transA=1).flops == 2 * 3 * 6 * 4
    assert _cost("exp", ["10xf32"]).flops > _cost("add", ["10xf32", "10xf32"]).flops == 10
    assert _cost("reduce_sum", ["4x8xf32"]).flops == 32
    assert _cost("max_pool", ["1x1x8x8xf32"], kernel_shape=[2, 2], strides=[2, 2]).flops == 16 * 4
    assert _cost("einsum", ["2x3xf32", "3x4xf32"], equation="ij,jk->ik").flops == 2 * 2 * 3 * 4
    dynamic = _cost("conv2d", ["?x3x32x32xf32", "8x3x3x3xf32"])
    assert dynamic.flops == 0 and dynamic.bytes == 8 * 3 * 3 * 3 * 4  # only the weight is static
    assert _cost("reshape", ["2x3xf16", "1xi64"]).flops == 0


# ============================================================ properties


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([1, 2, 3]), max_size=4), min_size=2, max_size=3))
def test_broadcasting_matches_numpy(shape_list):
    operands = [TensorType(s, F32) for s in shape_list]
    try:
        expected = np.broadcast_shapes(*map(tuple, shape_list))
    except ValueError:
        with pytest.raises(InferError, match="not broadcast-compatible"):
            infer("sum", operands)
        return
    (result,) = infer("sum", operands)
    assert result.shape == expected  # type: ignore[attr-defined]
    if len(shape_list) == 2:
        assert infer("add", operands)[0].shape == expected  # type: ignore[attr-defined]


@st.composite
def conv_cases(draw: Any) -> dict[str, Any]:
    rank = draw(st.integers(1, 2))
    group = draw(st.sampled_from([1, 2]))
    kernel = [draw(st.integers(1, 3)) for _ in range(rank)]
    dilations = [draw(st.integers(1, 2)) for _ in range(rank)]
    strides = [draw(st.integers(1, 3)) for _ in range(rank)]
    pads = [draw(st.integers(0, 2)) for _ in range(2 * rank)]
    auto_pad = draw(st.sampled_from(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    # inputs at least as large as the dilated kernel, so every configuration is valid
    spatial = [draw(st.integers((k - 1) * d + 1, 9)) for k, d in zip(kernel, dilations)]
    return dict(x=[draw(st.integers(1, 2)), 2 * group, *spatial], w=[2 * group, 2, *kernel], group=group,
                kernel_shape=kernel, dilations=dilations, strides=strides, pads=pads, auto_pad=auto_pad)


@settings(max_examples=30, deadline=None)
@given(conv_cases())
def test_conv_matches_onnx_reference(case):
    from onnx.reference import ReferenceEvaluator
    attrs = {k: case[k] for k in ("group", "kernel_shape", "dilations", "strides", "auto_pad")}
    if case["auto_pad"] == "NOTSET":
        attrs["pads"] = case["pads"]
    node = helper.make_node("Conv", ["x", "w"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, case["x"]),
                                            helper.make_tensor_value_info("w", TensorProto.FLOAT, case["w"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    rng = np.random.default_rng(0)
    x = rng.standard_normal(case["x"]).astype(np.float32)
    w = rng.standard_normal(case["w"]).astype(np.float32)
    (y,) = ReferenceEvaluator(model).run(None, {"x": x, "w": w})
    inferred = infer_one("conv2d", [TensorType(case["x"], F32), TensorType(case["w"], F32)], **attrs)
    assert inferred == str(TensorType(y.shape, F32))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(0, 3), st.integers(4, 12), st.integers(1, 2), st.booleans())
def test_max_pool_ceil_mode_matches_onnx_shape_inference(kernel, stride, pad, size, dilation, ceil_mode):
    """Against ONNX's C++ shape inference: the reference evaluator's padded MaxPool is off
    (4x4, kernel 2, pads 1, ceil_mode gives 7x7 there)."""
    assume(pad < kernel and (kernel - 1) * dilation + 1 <= size + 2 * pad)
    attrs = dict(kernel_shape=[kernel, kernel], strides=[stride, 1], pads=[pad, 0, pad, 0],
                 dilations=[dilation, 1], ceil_mode=int(ceil_mode))
    node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, size, 9])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)]),
                                              strict_mode=True)
    dims = [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim]
    assert infer_one("max_pool", [f"1x1x{size}x9xf32"], **attrs) == str(TensorType(dims, F32))


INFERRED_OPS = sorted(name for name, od in DIALECT.ops.items() if od.infer is not None)
element_types = st.sampled_from([F32, F16, I32, I1, UI8])
tensor_types = st.one_of(
    st.builds(TensorType, st.lists(st.sampled_from([None, 0, 1, 2, 3, 4]), max_size=4), element_types),
    st.builds(TensorType, st.none(), element_types), st.just(NONE))
constants = st.one_of(st.none(), st.integers(-3, 5).map(np.array),
                      st.lists(st.integers(-3, 5), max_size=4).map(np.array),
                      st.lists(st.floats(-2, 3), max_size=4).map(np.array))
ATTRIBUTE_VALUES: dict[str, Any] = {
    "int": st.integers(-3, 4), "ints": st.lists(st.integers(-2, 4), max_size=5), "float": st.floats(-1, 3),
    "floats": st.lists(st.floats(0, 3), max_size=4), "bool": st.booleans(), "type": element_types,
    "strs": st.just(["Tanh"]), "tensor": st.just(np.zeros(1, np.int64)),
    "str": st.sampled_from(["x", "ij,jk->ik", "...i->i", "i,i", "bidirectional", "not_larger"]),
}


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_inference_never_crashes(data):
    """Whatever the operands, attributes and constants, inference returns types or raises
    InferError (a diagnostic), and the cost hint never raises."""
    od = DIALECT.ops[data.draw(st.sampled_from(INFERRED_OPS))]
    attributes = {}
    for attr in od.attributes.values():
        if attr.name not in DIALECT.common_attributes and (attr.required or data.draw(st.booleans())):
            values = st.sampled_from(attr.choices) if attr.choices else ATTRIBUTE_VALUES.get(attr.kind)
            if values is not None:
                attributes[attr.name] = data.draw(values)
    types = data.draw(st.lists(tensor_types, max_size=5))
    values = data.draw(st.lists(constants, min_size=len(types), max_size=len(types)))
    ctx = FakeContext(od, types, attributes, values, [NONE] * data.draw(st.integers(0, 4)))
    try:
        results = list(od.infer(ctx))  # type: ignore[misc]
    except InferError:
        return
    assert all(isinstance(r, Type) for r in results)
    if od.cost is not None:
        assert isinstance(od.cost(ctx, results), Cost)
