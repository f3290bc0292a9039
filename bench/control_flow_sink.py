"""Control flow in the task sink against host-driven launches: the same model
and inputs run both ways, as ``ge-run`` reports them.

    python bench/control_flow_sink.py [--device 910B2] [--trips 1 4 16 64] [--branches 2 4 8] [--size 4096]

The models: an ``If`` feeding a ``Loop`` whose body adds a vector of ``size``
floats ``trips`` times (a ``Less`` on the trip count ends it); ONNX's If and
Scan node cases; GE's ``Case`` with N branches (each three elementwise ops)
picking its last branch; and a ``ge.switch`` / ``ge.merge`` diamond (TF v1's
cond, the same branch work) taken each way. For each: the sink's makespan and
task runs (one launch, no host round trip) and the host-driven path's time (its
launches' device time plus ``host_launch_us`` per task the host launches),
launches and round trips. The host's own latency per round trip (a
device-to-host copy and a synchronisation) is not modelled: the host-driven
figures are a lower bound.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper

from geir.backends.run_model import RunSettings, run_model
from geir.module import Module
from geir.parser import parse_module

_CHAIN = ("relu", "neg", "abs")


def if_loop_model(size: int) -> onnx.ModelProto:
    """``If`` (x + x or -x) and a ``Loop`` of ``trips`` adds, ``trips`` a graph input."""
    vec = [size]
    then_graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                                   [helper.make_tensor_value_info("t", TensorProto.FLOAT, vec)])
    else_graph = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                                   [helper.make_tensor_value_info("e", TensorProto.FLOAT, vec)])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]), helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, vec)],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, vec)])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["picked"], then_branch=then_graph, else_branch=else_graph),
         helper.make_node("Loop", ["trips", "go", "picked"], ["y"], body=body)],
        "if_loop",
        [helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("trips", TensorProto.INT64, []),
         helper.make_tensor_value_info("go", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, vec)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, vec)])
    graph.value_info.append(helper.make_tensor_value_info("picked", TensorProto.FLOAT, vec))
    graph.value_info.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, vec))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def case_module(branches: int, size: int) -> Module:
    """``y = case(i, ...)(x) * x``; branch k applies a rotation of ``_CHAIN``."""
    t = f"tensor<{size}xf32>"
    regions = []
    for k in range(branches):
        lines, v = [], "%x"
        for j in range(len(_CHAIN)):
            lines.append(f"    %b{k}_{j} = ge.{_CHAIN[(k + j) % len(_CHAIN)]} {v} : ({t}) -> {t}")
            v = f"%b{k}_{j}"
        regions.append("{\n" + "\n".join(lines) + f"\n    ge.yield {v} : ({t}) -> ()\n  }}")
    return parse_module(
        f'ge.graph @main(%i: tensor<i32> {{ge.name = "i"}}, %x: {t} {{ge.name = "x"}}) -> ({t} {{ge.name = "y"}}) {{\n'
        f"  %r = ge.case %i ({', '.join(regions)}) : (tensor<i32>) -> {t}\n"
        f"  %y = ge.mul %r, %x : ({t}, {t}) -> {t}\n  ge.return %y : ({t}) -> ()\n}}\n")


def diamond_module(size: int) -> Module:
    """``y = merge(chain(false x), chain'(true x)) * x`` on one switch."""
    t = f"tensor<{size}xf32>"
    lines = [f"  %f, %t = ge.switch %x, %p : ({t}, tensor<i1>) -> ({t}, {t})"]
    for tag, shift in (("f", 0), ("t", 1)):
        v = f"%{tag}"
        for j in range(len(_CHAIN)):
            lines.append(f"  %{tag}{j} = ge.{_CHAIN[(shift + j) % len(_CHAIN)]} {v} : ({t}) -> {t}")
            v = f"%{tag}{j}"
    last = len(_CHAIN) - 1
    lines += [f"  %m, %k = ge.merge %f{last}, %t{last} : ({t}, {t}) -> ({t}, tensor<i32>)",
              f"  %y = ge.mul %m, %x : ({t}, {t}) -> {t}", f"  ge.return %y : ({t}) -> ()"]
    return parse_module(f'ge.graph @main(%p: tensor<i1> {{ge.name = "p"}}, %x: {t} {{ge.name = "x"}}) -> '
                        f'({t} {{ge.name = "y"}}) {{\n' + "\n".join(lines) + "\n}\n")


def node_cases() -> list[Any]:
    import onnx.backend.test.case.node as node
    for name in ("if_", "scan"):
        importlib.import_module(f"{node.__name__}.{name}")
    return [c for c in node._NodeTestCases if c.name in ("test_if", "test_scan9_sum", "test_scan9_scalar")]


def row(name: str, model: onnx.ModelProto | Module, feeds: dict[str, np.ndarray], device: str) -> str:
    report = run_model(model, RunSettings(inputs=feeds, device=device, compare=True))
    compared = report.fields["sink_vs_host"]
    sink, host = compared["sink"], compared["host"]
    ratio = host["time_us"] / sink["time_us"] if sink["time_us"] else float("nan")
    return (f"{name:<22} {sink['time_us']:>10.1f} {sink['tasks_run']:>6} {host['time_us']:>10.1f} "
            f"{host['launches']:>8} {host['host_round_trips']:>6} {ratio:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="910B2")
    parser.add_argument("--trips", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--branches", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    print(f"{'model':<22} {'sink us':>10} {'runs':>6} {'host us':>10} {'launches':>8} {'reads':>6} "
          f"{'host/sink':>8}")
    model = if_loop_model(args.size)
    x = np.linspace(-1, 1, args.size, dtype=np.float32)
    for trips in args.trips:
        feeds = {"flag": np.array(True), "trips": np.array(trips, np.int64), "go": np.array(True), "x": x}
        print(row(f"if+loop trips={trips}", model, feeds, args.device))
    for case in node_cases():
        (inputs, _), = case.data_sets
        feeds = {i.name: np.asarray(a) for i, a in zip(case.model.graph.input, inputs)}
        print(row(case.name, case.model, feeds, args.device))
    for n in args.branches:
        feeds = {"i": np.array(n - 1, np.int32), "x": x}
        print(row(f"case branches={n}", case_module(n, args.size), feeds, args.device))
    for p in (True, False):
        print(row(f"switch/merge p={p}", diamond_module(args.size), {"p": np.array(p), "x": x}, args.device))


if __name__ == "__main__":
    main()
