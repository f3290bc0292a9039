"""Control flow in the task sink against host-driven launches: the same model
and inputs run both ways, as ``ge-run`` reports them.

    python bench/control_flow_sink.py [--device 910B2] [--trips 1 4 16 64]

The model is an ``If`` feeding a ``Loop`` whose body adds a vector of 4096
floats ``trips`` times (a ``Less`` on the trip count ends it), plus ONNX's If and
Scan node cases. For each: the sink's makespan and task runs (one launch, no
host round trip) and the host-driven path's time (its launches' device time
plus ``host_launch_us`` per task the host launches), launches and round trips.
The host's own latency per round trip (a device-to-host copy and a
synchronisation) is not modelled: the host-driven figures are a lower bound.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper

from geir.backends.run_model import RunSettings, run_model


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


def node_cases() -> list[Any]:
    import onnx.backend.test.case.node as node
    for name in ("if_", "scan"):
        importlib.import_module(f"{node.__name__}.{name}")
    return [c for c in node._NodeTestCases if c.name in ("test_if", "test_scan9_sum", "test_scan9_scalar")]


def row(name: str, model: onnx.ModelProto, feeds: dict[str, np.ndarray], device: str) -> str:
    report = run_model(model, RunSettings(inputs=feeds, device=device))
    compared = report.fields["sink_vs_host"]
    sink, host = compared["sink"], compared["host"]
    ratio = host["time_us"] / sink["time_us"] if sink["time_us"] else float("nan")
    return (f"{name:<22} {sink['time_us']:>10.1f} {sink['tasks_run']:>6} {host['time_us']:>10.1f} "
            f"{host['launches']:>8} {host['host_round_trips']:>6} {ratio:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="910B2")
    parser.add_argument("--trips", type=int, nargs="+", default=[1, 4, 16, 64])
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


if __name__ == "__main__":
    main()
