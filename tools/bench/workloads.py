"""Multi-branch ``ge`` graphs for the stream-partitioning benchmark: the shapes of
parallelism the multi-stream technique is for (branches of one engine that do
not fill the cores, computation beside communication), as valid ``ge`` IR text.

* :func:`inception` — a stack of Inception-v3-style blocks (four branches of 1x1,
  3x3, 5x5 convolutions and pooling, concatenated);
* :func:`attention` — transformer layers whose heads are parallel matmul chains;
* :func:`fpn_head` — an FPN detection head: class and box towers on five
  pyramid levels, the small levels leaving most cores idle;
* :func:`training_step` — a data-parallel training step: forward, backward and a
  gradient all-reduce per layer (rank size 8) that can overlap the backward
  pass of the earlier layers;
* :func:`random_dag` — layered random DAGs of convolutions and elementwise ops of
  mixed sizes.

:data:`WORKLOADS` names them for ``ge-bench --models inception,...`` and for
``bench/streams.py`` (which imports them through ``bench/stream_workloads.py``).
"""

from __future__ import annotations

import random

__all__ = ["inception", "attention", "fpn_head", "training_step", "random_dag", "WORKLOADS"]


class _Builder:
    """Emits ge ops with fresh SSA names; shapes are given by the caller."""

    def __init__(self, dtype: str = "f16") -> None:
        self.dtype = dtype
        self.lines: list[str] = []
        self.weights = 0
        self.n = 0

    def t(self, *shape: int) -> str:
        return f"tensor<{'x'.join(map(str, shape))}x{self.dtype}>"

    def fresh(self, hint: str = "v") -> str:
        self.n += 1
        return f"%{hint}{self.n}"

    def const(self, *shape: int) -> str:
        """A weight of its own, as a real model's layers have: a splat of a value
        no other weight has (k/1024, exact in f16), so that common-subexpression
        elimination does not merge the branches that read it."""
        self.weights += 1
        name = f"%w{self.weights}"  # numbered apart from the ops, so n counts ops
        t = self.t(*shape)
        value = self.weights / 1024
        self.lines.append(f"  {name} = ge.const {{value = dense<{value:e}> : {t}}} : () -> {t}")
        return name

    def op(self, op: str, operands: list[tuple[str, str]], result: str, attrs: str = "", hint: str = "v") -> str:
        name = self.fresh(hint)
        args = ", ".join(v for v, _ in operands)
        types = ", ".join(t for _, t in operands)
        attr_text = f" {{{attrs}}}" if attrs else ""
        self.lines.append(f"  {name} = ge.{op} {args}{attr_text} : ({types}) -> {result}")
        return name

    def conv(self, x: str, c_in: int, c_out: int, h: int, w: int, k: int) -> str:
        weight = self.const(c_out, c_in, k, k)
        p = k // 2
        return self.op("conv2d", [(x, self.t(1, c_in, h, w)), (weight, self.t(c_out, c_in, k, k))],
                       self.t(1, c_out, h, w), f"pads = [{p}, {p}, {p}, {p}]", "conv")

    def unary(self, op: str, x: str, t: str) -> str:
        return self.op(op, [(x, t)], t)

    def graph(self, name: str, args: list[tuple[str, str]], results: list[tuple[str, str]]) -> str:
        head = ", ".join(f"{a}: {t}" for a, t in args)
        res = ", ".join(t for _, t in results)
        ret = f"  ge.return {', '.join(v for v, _ in results)} : ({res}) -> ()"
        return "\n".join([f"ge.graph @{name}({head}) -> ({res}) {{", *self.lines, ret, "}"]) + "\n"


def inception(blocks: int = 4, channels: int = 192, size: int = 17) -> str:
    """``blocks`` Inception blocks on a 1 x channels x size x size input."""
    b = _Builder()
    x = "%x"
    c = channels
    for _ in range(blocks):
        t_in = b.t(1, c, size, size)
        b1 = b.unary("relu", b.conv(x, c, 64, size, size, 1), b.t(1, 64, size, size))
        b2 = b.conv(b.unary("relu", b.conv(x, c, 48, size, size, 1), b.t(1, 48, size, size)), 48, 64, size, size, 5)
        b3 = b.conv(b.conv(b.conv(x, c, 64, size, size, 1), 64, 96, size, size, 3), 96, 96, size, size, 3)
        pooled = b.op("avg_pool", [(x, t_in)], t_in, "kernel_shape = [3, 3], pads = [1, 1, 1, 1]")
        b4 = b.conv(pooled, c, 32, size, size, 1)
        out_c = 64 + 64 + 96 + 32
        x = b.op("concat", [(b1, b.t(1, 64, size, size)), (b2, b.t(1, 64, size, size)),
                            (b3, b.t(1, 96, size, size)), (b4, b.t(1, 32, size, size))],
                 b.t(1, out_c, size, size), "axis = 1", "cat")
        c = out_c
    return b.graph("inception", [("%x", b.t(1, channels, size, size))], [(x, b.t(1, c, size, size))])


def attention(layers: int = 2, heads: int = 8, seq: int = 128, dim: int = 512) -> str:
    """``layers`` multi-head attention layers with residuals on a seq x dim input."""
    b = _Builder()
    d = dim // heads
    x = "%x"
    tx = b.t(seq, dim)
    for _ in range(layers):
        outs = []
        for _h in range(heads):
            q = b.op("matmul", [(x, tx), (b.const(dim, d), b.t(dim, d))], b.t(seq, d), hint="q")
            k = b.op("matmul", [(x, tx), (b.const(dim, d), b.t(dim, d))], b.t(seq, d), hint="k")
            v = b.op("matmul", [(x, tx), (b.const(dim, d), b.t(dim, d))], b.t(seq, d), hint="v")
            kt = b.op("transpose", [(k, b.t(seq, d))], b.t(d, seq), "perm = [1, 0]")
            s = b.op("matmul", [(q, b.t(seq, d)), (kt, b.t(d, seq))], b.t(seq, seq), hint="s")
            p = b.op("softmax", [(s, b.t(seq, seq))], b.t(seq, seq), "axis = -1")
            outs.append(b.op("matmul", [(p, b.t(seq, seq)), (v, b.t(seq, d))], b.t(seq, d), hint="o"))
        cat = b.op("concat", [(o, b.t(seq, d)) for o in outs], tx, "axis = 1", "cat")
        proj = b.op("matmul", [(cat, tx), (b.const(dim, dim), b.t(dim, dim))], tx, hint="proj")
        x = b.op("add", [(proj, tx), (x, tx)], tx, hint="res")
    return b.graph("attention", [("%x", tx)], [(x, tx)])


def fpn_head(levels: int = 5, channels: int = 256, base: int = 64, depth: int = 2) -> str:
    """Class and box towers (``depth`` 3x3 convolutions each) on ``levels`` levels."""
    b = _Builder()
    args, results = [], []
    for lvl in range(levels):
        size = max(1, base >> lvl)
        t = b.t(1, channels, size, size)
        x = f"%p{lvl}"
        args.append((x, t))
        for head, out_c in (("cls", 9 * 8), ("box", 9 * 4)):
            y = x
            for _ in range(depth):
                y = b.unary("relu", b.conv(y, channels, channels, size, size, 3), t)
            y = b.conv(y, channels, out_c, size, size, 3)
            results.append((y, b.t(1, out_c, size, size)))
    return b.graph("fpn_head", args, results)


def training_step(layers: int = 6, batch: int = 256, width: int = 2048, ranks: int = 8) -> str:
    """Forward, backward and per-layer gradient all-reduce of a ``layers``-deep MLP."""
    b = _Builder()
    th, tw = b.t(batch, width), b.t(width, width)
    weights = [f"%W{i}" for i in range(layers)]
    hs = ["%x"]
    for i in range(layers):
        z = b.op("matmul", [(hs[-1], th), (weights[i], tw)], th, hint="z")
        hs.append(b.unary("relu", z, th))
    grad = "%dy"
    updated = []
    for i in reversed(range(layers)):
        ht = b.op("transpose", [(hs[i], th)], b.t(width, batch), "perm = [1, 0]")
        dw = b.op("matmul", [(ht, b.t(width, batch)), (grad, th)], tw, hint="dw")
        reduced = b.op("all_reduce", [(dw, tw)], tw, f'reduction = "sum", rank_size = {ranks}', "ar")
        step = b.op("mul", [(reduced, tw), (b.const(1), b.t(1))], tw, hint="lr")
        updated.append((b.op("sub", [(weights[i], tw), (step, tw)], tw, hint="upd"), tw))
        if i > 0:
            wt = b.op("transpose", [(weights[i], tw)], tw, "perm = [1, 0]")
            grad = b.op("matmul", [(grad, th), (wt, tw)], th, hint="dh")
    args = [("%x", th), ("%dy", th)] + [(w, tw) for w in weights]
    return b.graph("training_step", args, updated)


def random_dag(n: int = 60, seed: int = 0) -> str:
    """A layered random DAG of ``n`` ops: convolutions of mixed widths and
    elementwise joins (the last three values are its results; ops that reach
    none of them are dead, and canonicalize erases them)."""
    rng = random.Random(seed)
    b = _Builder()
    size, c = 28, 64
    t = b.t(1, c, size, size)
    values = ["%x"]
    while b.n < n:
        kind = rng.random()
        src = rng.choice(values[-8:])
        if kind < 0.45:
            y = b.conv(src, c, c, size, size, rng.choice((1, 3)))
        elif kind < 0.75 and len(values) > 1:
            other = rng.choice(values[-8:])
            y = b.op(rng.choice(("add", "mul", "max")), [(src, t), (other, t)], t)
        else:
            y = b.unary(rng.choice(("relu", "sigmoid", "tanh")), src, t)
        values.append(y)
    sinks = values[-3:]
    return b.graph("random_dag", [("%x", t)], [(v, t) for v in sinks])


#: name -> generator of the benchmark's generated workloads
WORKLOADS = {
    "inception": inception,
    "attention": attention,
    "fpn_head": fpn_head,
    "training_step": training_step,
    "random_dag_60": lambda: random_dag(60, 1),
    "random_dag_150": lambda: random_dag(150, 2),
}
