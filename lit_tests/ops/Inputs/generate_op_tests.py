"""Generate the per-op lit tests in lit_tests/ops/ (run by hand after adding ops):

    python lit_tests/ops/Inputs/generate_op_tests.py

For every ge op that mirrors an ONNX op, the first single-node ONNX backend test
case of that op type gives real operand types and attributes; the op is built
through the IR API with the case's expected output types, verified (so inference
agrees with ONNX), and written as a chunk whose CHECK lines pin its custom form
and whose GENERIC lines pin its MLIR generic form. tests/test_peers.py then has
upstream MLIR and xDSL parse every one of them.
"""

from __future__ import annotations

import os
import re
import string
from typing import Any

import numpy as np
import onnx
from onnx.backend.test.case.node import collect_testcases

from geir.attributes import StringAttr, TypeAttr
from geir.diagnostics import DiagnosticError
from geir.dialects.ge import ONNX_TO_GE
from geir.module import Module
from geir.onnx_attributes import from_onnx_attribute
from geir.operation import Block, Operation, Region
from geir.printer import PrintOptions, module_to_string
from geir.types import NONE, FunctionType, TensorType, element_type_from_numpy
from geir.verifier import verify

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
OPS_PER_FILE = 30


def _name(raw: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_]", "_", raw) or "v"
    if base[0].isdigit():
        base = "v" + base
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}_{k}"
    used.add(name)
    return name


def _tensor_type(a: Any) -> TensorType | None:
    if isinstance(a, onnx.TensorProto):
        a = onnx.numpy_helper.to_array(a)
    elif isinstance(a, np.generic):
        a = np.asarray(a)
    if not isinstance(a, np.ndarray) or a.dtype.kind in "OUS" or a.dtype.itemsize == 0:
        return None
    try:
        return TensorType(a.shape, element_type_from_numpy(a.dtype))
    except ValueError:
        return None


def build(case: Any) -> Module | None:
    graph = case.model.graph
    if len(graph.node) != 1 or not case.data_sets:
        return None
    node = graph.node[0]
    if node.domain not in ("", "ai.onnx") or any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                                                 for a in node.attribute):
        return None
    inputs, outputs = case.data_sets[0]
    in_types = [_tensor_type(a) for a in inputs]
    out_types = [_tensor_type(a) for a in outputs]
    if None in in_types or None in out_types:
        return None
    used: set[str] = set()
    names = [_name(i.name, used) for i in graph.input]
    block = Block(in_types, names)  # type: ignore[arg-type]
    by_name = {i.name: a for i, a in zip(graph.input, block.arguments)}
    operands = []
    for name in node.input:
        if name:
            operands.append(by_name[name])
        else:
            none = Operation("ge.none", (), [NONE], result_names=["none"])
            block.append(none)
            operands.append(none.results[0])
    attrs = {}
    for a in node.attribute:
        v = from_onnx_attribute(a)
        if v is not None:
            attrs[a.name] = v
    op = Operation(ONNX_TO_GE[node.op_type], operands, out_types, attrs,  # type: ignore[arg-type]
                   result_names=[_name(o, used) for o in node.output[:len(out_types)]])
    block.append(op)
    block.append(Operation("ge.return", op.results))
    sym = re.sub(r"[^A-Za-z0-9_]", "_", case.name.removeprefix("test_"))
    g = Operation("ge.graph", regions=[Region([block])],
                  attributes={"sym_name": StringAttr(sym),
                              "function_type": TypeAttr(FunctionType(in_types, out_types))})  # type: ignore[arg-type]
    m = Module()
    m.body.append(g)
    try:
        verify(m)
    except DiagnosticError:
        return None
    return m


def main() -> None:
    chosen: dict[str, str] = {}
    for case in collect_testcases(None):
        op_type = case.model.graph.node[0].op_type if len(case.model.graph.node) == 1 else None
        if op_type not in ONNX_TO_GE or ONNX_TO_GE[op_type] in chosen:
            continue
        m = build(case)
        if m is None:
            continue
        custom = module_to_string(m)
        generic = module_to_string(m, PrintOptions(generic=True))
        body = custom.strip().split("\n")[1:-1]  # inside `module { ... }`
        graph_text = "\n".join(line[2:] for line in body)
        op_line = next(l.strip() for l in body if f" {ONNX_TO_GE[op_type]} " in l or l.strip().startswith(ONNX_TO_GE[op_type]))
        gen_line = next(l.strip() for l in generic.split("\n") if f'"{ONNX_TO_GE[op_type]}"(' in l)
        sym = graph_text.split("@", 1)[1].split("(", 1)[0]
        chosen[ONNX_TO_GE[op_type]] = "\n".join([
            f"// CHECK-LABEL: ge.graph @{sym}(",
            f"// CHECK: {op_line}",
            f"// GENERIC: {gen_line}",
            f"// GENERIC: sym_name = \"{sym}\"",
            graph_text,
        ])
    ops = sorted(chosen)
    for old in os.listdir(OUT):
        if old.startswith("onnx_ops_") and old.endswith(".mlir"):
            os.remove(os.path.join(OUT, old))
    for k in range(0, len(ops), OPS_PER_FILE):
        part = ops[k:k + OPS_PER_FILE]
        letter = string.ascii_lowercase[k // OPS_PER_FILE]
        header = "\n".join([
            "// Generated by Inputs/generate_op_tests.py from ONNX's node test cases: each op's",
            "// custom form (CHECK) and MLIR generic form (GENERIC), verified and round-tripped.",
            "// RUN: ge-opt %s --split-input-file | filecheck %s",
            "// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s",
            "// RUN: ge-opt %s --split-input-file --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC",
            "// RUN: ge-opt %s --split-input-file --mlir-print-op-generic | ge-opt --split-input-file --mlir-print-op-generic"
            " | filecheck %s --check-prefix=GENERIC",
            "",
        ])
        with open(os.path.join(OUT, f"onnx_ops_{letter}.mlir"), "w") as f:
            f.write(header + "\n" + "\n\n// -----\n\n".join(chosen[o] for o in part) + "\n")
    print(f"{len(ops)} ops in {(len(ops) + OPS_PER_FILE - 1) // OPS_PER_FILE} files; "
          f"without a usable case: {sorted(set(ONNX_TO_GE.values()) - set(ops))}")


if __name__ == "__main__":
    main()
