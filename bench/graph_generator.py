"""Generate realistic N-op ``ge`` graphs for the benchmarks: conv / matmul /
elementwise chains with 1–3 operands and a few attributes each, in valid ``ge``
IR (every result type is what inference gives)."""

from __future__ import annotations

import random


def generate_graph(n_ops: int, seed: int = 0) -> str:
    """A module with one ``ge.graph`` of about ``n_ops`` ops, in the custom form."""
    rng = random.Random(seed)
    c = 64
    act = f"tensor<1x{c}x56x56xf16>"
    w3 = f"tensor<{c}x{c}x3x3xf16>"
    vec = f"tensor<{c}xf16>"
    mat = "tensor<128x256xf16>"
    wmat = "tensor<256x256xf16>"
    lines = [f"ge.graph @main(%x: {act}, %m: {mat}) -> ({act}, {mat}) {{"]
    acts = ["x"]
    mats = ["m"]
    weights: list[str] = []
    vid = 0

    def fresh() -> str:
        nonlocal vid
        vid += 1
        return f"v{vid}"

    emitted = 0
    while emitted < n_ops - 1:
        kind = rng.random()
        if kind < 0.25:
            w = fresh()
            lines.append(f"  %{w} = ge.const {{value = dense<1.000000e-02> : {w3}}} : () -> {w3}")
            b = fresh()
            lines.append(f"  %{b} = ge.const {{value = dense<0.000000e+00> : {vec}}} : () -> {vec}")
            r = fresh()
            src = rng.choice(acts[-8:])
            lines.append(f"  %{r} = ge.conv2d %{src}, %{w}, %{b} {{dilations = [1, 1], group = 1, "
                         f"kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]}} : "
                         f"({act}, {w3}, {vec}) -> {act}")
            acts.append(r)
            emitted += 3
        elif kind < 0.45:
            r = fresh()
            a, b = rng.choice(acts[-8:]), rng.choice(acts[-8:])
            op = rng.choice(["add", "mul", "sub"])
            lines.append(f"  %{r} = ge.{op} %{a}, %{b} : ({act}, {act}) -> {act}")
            acts.append(r)
            emitted += 1
        elif kind < 0.65:
            r = fresh()
            a = rng.choice(acts[-8:])
            op = rng.choice(["relu", "sigmoid", "tanh"])
            lines.append(f"  %{r} = ge.{op} %{a} : ({act}) -> {act}")
            acts.append(r)
            emitted += 1
        elif kind < 0.8:
            if not weights or rng.random() < 0.3:
                w = fresh()
                lines.append(f"  %{w} = ge.const {{value = dense<5.000000e-01> : {wmat}}} : () -> {wmat}")
                weights.append(w)
                emitted += 1
            r = fresh()
            a = rng.choice(mats[-8:])
            lines.append(f"  %{r} = ge.gemm %{a}, %{weights[-1]} {{alpha = 1.000000e+00 : f32, "
                         f"beta = 1.000000e+00 : f32, transA = 0, transB = 1}} : ({mat}, {wmat}) -> {mat}")
            mats.append(r)
            emitted += 1
        else:
            r = fresh()
            a, b, d = (rng.choice(acts[-8:]) for _ in range(3))
            lines.append(f"  %{r} = ge.sum %{a}, %{b}, %{d} : ({act}, {act}, {act}) -> {act}")
            acts.append(r)
            emitted += 1
    lines.append(f"  ge.return %{acts[-1]}, %{mats[-1]} : ({act}, {mat}) -> ()")
    lines.append("}")
    return "\n".join(lines) + "\n"
