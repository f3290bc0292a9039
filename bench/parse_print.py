"""Parse / verify / print throughput on generated N-op graphs, against xdsl-opt.

    python bench/parse_print.py [--sizes 1000,10000,100000] [--weights-mib 64] [--no-xdsl]

Each size runs in a fresh process (so peak memory is that size's alone). geir
reads the generic form, verifies it and prints it back — the same work
`xdsl-opt --allow-unregistered-dialect` does on the same file, timed in the same
run. A last row does the same with a graph of three ops and one weight of
``--weights-mib`` MiB, written as MLIR writes it (a hex blob in the resource
section), as ``ge-translate --import-onnx`` writes a model: its peak memory is
given per MiB of weight. Prints a table; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CHILD = r"""
import json, resource, sys, time
from geir.parser import parse_module
from geir.printer import PrintOptions, module_to_string
from geir.verifier import verify
path, = sys.argv[1:]
text = open(path).read()
t0 = time.perf_counter(); m = parse_module(text, path)
t1 = time.perf_counter(); verify(m)
t2 = time.perf_counter(); out = module_to_string(m, PrintOptions(generic=True))
t3 = time.perf_counter()
assert out == text, "generic form is not a fixed point"
print(json.dumps({"parse": t1 - t0, "verify": t2 - t1, "print": t3 - t2,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _ours(path: str) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def _xdsl(path: str) -> float | None:
    exe = os.path.join(os.path.dirname(sys.executable), "xdsl-opt")
    exe = exe if os.path.exists(exe) else shutil.which("xdsl-opt")
    if exe is None:
        return None
    t0 = time.perf_counter()
    subprocess.run([exe, "--allow-unregistered-dialect", path, "-o", os.devnull], check=True,
                   capture_output=True)
    return time.perf_counter() - t0


def _weighted_graph(mib: int) -> str:
    """``y = x + w`` over a random f32 weight of ``mib`` MiB, in generic form."""
    import numpy as np
    from geir.attributes import DenseResourceAttr, StringAttr, TypeAttr
    from geir.module import Module
    from geir.operation import Block, Operation, Region
    from geir.printer import PrintOptions, module_to_string
    from geir.types import F32, FunctionType, TensorType
    n = mib * (1 << 20) // 4
    t = TensorType((n,), F32)
    module = Module()
    blob = module.add_resource("w", np.random.default_rng(0).standard_normal(n).astype(np.float32).tobytes())
    block = Block()
    x = block.add_argument(t, "x")
    w = Operation("ge.weights", result_types=[t], attributes={"value": DenseResourceAttr(t, blob)})
    add = Operation("ge.add", [x, w.result], [t])
    block.append(w)
    block.append(add)
    block.append(Operation("ge.return", [add.result]))
    module.body.append(Operation("ge.graph", attributes={
        "sym_name": StringAttr("main"), "function_type": TypeAttr(FunctionType([t], [t]))}, regions=[Region([block])]))
    return module_to_string(module, PrintOptions(generic=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--weights-mib", type=int, default=64, help="the weight of the last row (0: no such row)")
    ap.add_argument("--no-xdsl", action="store_true", help="skip the xdsl-opt comparison")
    args = ap.parse_args()
    from graph_generator import generate_graph
    from geir.parser import parse_module
    from geir.printer import PrintOptions, module_to_string

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            generic = module_to_string(parse_module(generate_graph(n), "gen.mlir"), PrintOptions(generic=True))
            path = os.path.join(tmp, f"graph_{n}.mlir")
            with open(path, "w") as f:
                f.write(generic)
            ours = _ours(path)
            xdsl = None if args.no_xdsl else _xdsl(path)
            rows.append((n, ours, xdsl))
            total = ours["parse"] + ours["verify"] + ours["print"]
            print(f"# {n} ops: parse {ours['parse']:.2f}s verify {ours['verify']:.2f}s print {ours['print']:.2f}s "
                  f"total {total:.2f}s, peak {ours['peak_mib']:.0f} MiB; xdsl-opt "
                  f"{'skipped' if xdsl is None else f'{xdsl:.2f}s'}", file=sys.stderr)

        weighted = None
        if args.weights_mib > 0:
            path = os.path.join(tmp, "weighted.mlir")
            with open(path, "w") as f:
                f.write(_weighted_graph(args.weights_mib))
            weighted = _ours(path)
            weighted["file_mib"] = os.path.getsize(path) / (1 << 20)

    print("| ops | parse ops/s | verify ops/s | print ops/s | geir total s | peak MiB | xdsl-opt s | speed-up |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, o, x in rows:
        total = o["parse"] + o["verify"] + o["print"]
        ratio = f"{x / total:.1f}x" if x else "-"
        print(f"| {n:,} | {n / o['parse']:,.0f} | {n / o['verify']:,.0f} | {n / o['print']:,.0f} | {total:.2f} | "
              f"{o['peak_mib']:.0f} | {'-' if x is None else f'{x:.2f}'} | {ratio} |")
    if len(rows) >= 2:
        (n1, o1, _), (n2, o2, _) = rows[-2], rows[-1]
        t1 = o1["parse"] + o1["verify"] + o1["print"]
        t2 = o2["parse"] + o2["verify"] + o2["print"]
        print(f"\nscaling: t({n2:,})/t({n1:,}) = {t2 / t1:.1f} for {n2 / n1:.0f}x the ops")
    if weighted is not None:
        w = weighted
        mib = args.weights_mib
        print(f"\none {mib} MiB weight ({w['file_mib']:.0f} MiB of text): parse {mib / w['parse']:,.0f} MiB/s, "
              f"print {mib / w['print']:,.0f} MiB/s, peak {w['peak_mib']:.0f} MiB "
              f"= {w['peak_mib'] / mib:.1f} MiB per MiB of weight")


if __name__ == "__main__":
    main()
