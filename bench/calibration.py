"""Calibration of the emulator against published multi-stream measurements: IOS
(Ding et al., MLSys 2021) on a V100, batch 1 — Sequential / Greedy / IOS-Parallel
latencies of Inception v3, RandWire, NASNet-A and SqueezeNet
(``shared/reference/scheduling-memory-hardware.md`` sections 1.2 and 4.5) — and
RAF's Inception v3 speed-up (``shared/calibration/measured-multistream.csv``).

    python bench/calibration.py [--device V100] [--mode host] [--no-sharing] [--sweep KEY=V1,V2]

The four networks are built here as task lists with the operator structure of
IOS's own model definitions (mit-han-lab/inter-operator-scheduler
``python/ios/models``: the same blocks, channels, kernels, strides; RandWire's
Watts-Strogatz stage graphs are drawn here with the paper's n, k, p, so their
wiring differs from IOS's files). An IOS node becomes the kernels IOS's runtime
(``src/ios/ios_runtime.cu``) launches for it, FP32 like IOS's default build: a
convolution with a ReLU is one kernel (cuDNN's fused bias and activation), one
without activation two (the convolution, then ``cudnnAddTensor`` for its bias),
so a ReLU + separable conv node is five; up to five summed values are one
kernel (``ge.sum``), more a chain of ``ge.add``; a node whose input
concatenates several terms first copies each into its slice of its own input
buffer, a kernel a term (``assign_with_stride_src``). Every kernel carries its
operand shapes (a convolution its weights and groups), and a node's summed
inputs become ``ge.sum`` / ``ge.add`` kernels as in :func:`to_ge`, so the task
lists and the IR form go through the same kernel tilings and cost the same
kernels but IOS's copies: the IR form's concat is GE's, laid out in place with
no task. Each network runs under these schedules:

* ``sequential`` — one stream, IOS's block order (IOS "Sequential");
* schedules in IOS's own space, run as IOS's runtime runs them
  (:class:`HostSynced`): stages of independent groups, a group on a stream of
  its own, and between two stages the host's ``cudaDeviceSynchronize`` (unless
  both stages hold one group), modelled as separate emulations from an idle
  device plus :data:`HOST_SYNC_US` per barrier:

  - ``greedy`` — IOS's Greedy: per block, stages of at most 10 ready nodes;
  - ``chain-stages`` — the same, a group growing into a chain of nodes;
  - ``block-choice`` — per block the fastest of one group, greedy and
    chain stages, as IOS-Parallel's dynamic program chooses among stage
    partitions by measuring them (here among three candidates only);

* event schedules, which IOS's runtime cannot run (a runtime such as RAF's):
  ``all-at-once`` — every node as soon as its inputs are ready, a chain cover
  with unlimited streams and an event on every cross-stream edge not already
  implied; ``chains<=k`` — those chains folded onto k streams (k = 2 .. 8);
* ``pass:<strategy>`` — the network as a ``ge.graph`` (:func:`to_ge`) through
  geir's own ``assign-engines,partition-streams{strategy=...},insert-events``
  with every strategy (single, ge, ge-parallel, chain-cover, cost), lowered
  and emulated.

IOS-Parallel (measured) is judged against the best IOS-space schedule; the best
event schedule and the passes' best strategy (against their own ``single``)
are printed beside it. None of these searches like IOS's DP, so they are
schedules, not bounds.

RAF's row (:func:`raf_row`) is Inception v3 as RAF runs it: RAF's graph (a
batch-norm kernel and a ReLU kernel after every convolution, a branch's last
ReLU in the concatenation's kernel: :func:`raf_joins`), RAF's schedule passes as
its sources build them (wavefront waves and IOS stages separated by device-side
barriers, ASAP chains with events), and RAF's virtual machine issuing every
operator from one host thread at :data:`RAF_OP_US` and every event instruction
at :data:`RAF_EVENT_US` (``EmulatorOptions.host_event_launch_us``), each
against RAF's own single stream; it is printed with batch norm and ReLU as one
kernel and with IOS's fused kernels beside it. ``raf_op_us=V`` / ``raf_event_us=V`` set those two costs.

It also prints the share of the all-at-once run with the DRAM saturated;
``--no-sharing`` repeats it with the bandwidth not shared
(``EmulatorOptions(share_dram=False)``). The emulator runs in ``host`` mode by
default — how IOS and RAF ran: one host thread launches every kernel, record
and wait onto CUDA streams, ``host_launch_us`` apiece; ``--mode sink`` puts
every task on the device up front. ``--sweep KEY=V1,V2`` prints instead the
speed-ups for every value of a device parameter (or of ``host_sync_us``): the
sensitivity to an assumed number. Nothing is tuned per network: every number
comes from the device profile. Never asserts.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Callable

import attrs

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from geir.backends.emulator import EmulatorOptions, emulate  # noqa: E402
from geir.backends.task_list import (ARENA, WEIGHTS, EndGraph, Kernel, Record, Stream, Task, TaskList,  # noqa: E402
                                    TensorRef, Wait)

#: IOS README, "Comparison of Different Schedules" (V100, batch 1, ms)
PUBLISHED = {
    "inception_v3": {"sequential": 6.51, "greedy": 4.62, "ios_parallel": 4.11},
    "randwire": {"sequential": 8.49, "greedy": 6.27, "ios_parallel": 6.02},
    "nasnet": {"sequential": 22.95, "greedy": 16.78, "ios_parallel": 16.04},
    "squeezenet": {"sequential": 0.86, "greedy": 0.98, "ios_parallel": 0.82},
}
F32 = 4  # bytes per element: IOS's default build is FP32
MAX_STAGE = 10  # IOS greedy_schedule(max_num_stream=10)
#: IOS's runtime sums up to five values in one kernel (``accumulate_sum_2`` ..
#: ``accumulate_sum_5`` in src/ios/ios_runtime.cu), more with one
#: ``cudnnAddTensor`` each (a chain of adds here)
MAX_SUM = 5


# ================================================================ the graphs

@attrs.define
class Op:
    """One kernel: ge op name, output (C, H, W), FLOPs, bytes it moves."""

    op: str
    out: tuple[int, int, int]
    flops: float
    nbytes: float
    #: conv / pool window: (kernel, stride, padding, groups)
    window: tuple[tuple[int, int], tuple[int, int], tuple[int, int], int] | None = None


@attrs.define
class Node:
    """An IOS node: a chain of kernels, its predecessor nodes and its block."""

    ops: list[Op]
    preds: list[int]
    block: int
    name: str
    #: the input terms (concatenated; the values of a term summed)
    terms: list[list[tuple[int, int, int, int]]] = attrs.Factory(list)
    #: the concatenation of the terms applies the ReLU their producers left
    #: out (RAF: TVM fuses a branch's last ReLU into the concatenation)
    relu_join: bool = False


#: a value: (producing node or -1 for the graph input, C, H, W)
Value = tuple[int, int, int, int]


@attrs.define
class Net:
    """A network under construction, in IOS's vocabulary (terms are concatenated
    along channels, the values of a term summed)."""

    name: str
    input: tuple[int, int] = (224, 224)
    nodes: list[Node] = attrs.Factory(list)
    block: int = 0
    #: what follows a convolution: ``fused`` (IOS: cuDNN's fused bias and ReLU,
    #: one kernel), ``bn_relu`` (a bias-free convolution, then batch norm and
    #: ReLU as one elementwise kernel) or ``raf`` (the convolution, a batch-norm
    #: kernel and a ReLU kernel, as RAF dispatches them: see :func:`raf_joins`)
    activation: str = "fused"
    #: how the runtime concatenates a node's input terms: ``copies`` (IOS's
    #: runtime: each node copies every term into its own input buffer, one
    #: ``assign_with_stride_src`` kernel a term, ``Input::forward`` in
    #: src/ios/ios_runtime.cu) or ``kernel`` (one concatenate kernel reading
    #: every term, as RAF's TVM operator)
    concat: str = "copies"

    def new_block(self) -> None:
        self.block += 1

    def _node(self, ops: list[Op], terms: list[list[Value]], name: str) -> Value:
        preds = sorted({v[0] for term in terms for v in term if v[0] >= 0})
        self.nodes.append(Node(ops, preds, self.block, name, terms))
        c, h, w = ops[-1].out
        return (len(self.nodes) - 1, c, h, w)

    @staticmethod
    def _input(terms: list[list[Value]]) -> tuple[int, int, int, float]:
        # channels, H, W of the node's input, and the elements it reads
        c = sum(term[0][1] for term in terms)
        _, _, h, w = terms[0][0]
        read = sum(v[1] * v[2] * v[3] for term in terms for v in term)
        return c, h, w, float(read)

    @staticmethod
    def _conv_op(cin: int, h: int, w: int, read: float, cout: int, kernel: tuple[int, int], stride: tuple[int, int],
                 padding: tuple[int, int], groups: int = 1) -> Op:
        ho = (h + 2 * padding[0] - kernel[0]) // stride[0] + 1
        wo = (w + 2 * padding[1] - kernel[1]) // stride[1] + 1
        weights = cout * (cin // groups) * kernel[0] * kernel[1]
        flops = 2.0 * weights * ho * wo
        return Op("ge.conv2d", (cout, ho, wo), flops, F32 * (read + weights + cout * ho * wo),
                  (kernel, stride, padding, groups))

    @staticmethod
    def _bias_op(conv: Op) -> Op:
        """The bias of a convolution without activation: IOS's ``ConvOP::forward``
        runs ``cudnnConvolutionForward`` then ``cudnnAddTensor`` (a kernel of its
        own); with an activation one ``cudnnConvolutionBiasActivationForward``."""
        c, h, w = conv.out
        return Op("ge.add", conv.out, float(c * h * w), F32 * (2 * c * h * w + c))

    def conv(self, terms: list[list[Value]], cout: int, kernel: tuple[int, int] = (1, 1),
             stride: tuple[int, int] = (1, 1), padding: tuple[int, int] = (0, 0), relu_first: bool = False,
             act: bool = True) -> Value:
        """A convolution, its ReLU fused (``act``; else a bias kernel follows, see
        :meth:`_bias_op`); ``relu_first``: IOS's relu_conv (a ReLU, then a
        convolution without activation)."""
        cin, h, w, read = self._input(terms)
        ops = []
        if self.activation != "fused":
            act = False
        if relu_first:
            ops.append(Op("ge.relu", (cin, h, w), float(cin * h * w), F32 * (read + cin * h * w)))
            read = float(cin * h * w)
            act = False
        ops.append(self._conv_op(cin, h, w, read, cout, kernel, stride, padding))
        if not act:
            ops.append(self._bias_op(ops[-1]))
        if self.activation == "raf" and not relu_first:
            c, h, w = ops[-1].out
            ops.append(Op("ge.relu", (c, h, w), float(c * h * w), F32 * 2 * c * h * w))
        return self._node(ops, terms, "relu_conv" if relu_first else "conv")

    def sep_conv(self, terms: list[list[Value]], cout: int, kernel: tuple[int, int], stride: tuple[int, int],
                 padding: tuple[int, int]) -> Value:
        """IOS's relu_sep_conv: ReLU, depthwise conv, pointwise conv, both convs
        without activation (five kernels: each conv's bias is one, :meth:`_bias_op`)."""
        cin, h, w, read = self._input(terms)
        relu = Op("ge.relu", (cin, h, w), float(cin * h * w), F32 * (read + cin * h * w))
        dw = self._conv_op(cin, h, w, float(cin * h * w), cin, kernel, stride, padding, groups=cin)
        c, ho, wo = dw.out
        pw = self._conv_op(c, ho, wo, float(c * ho * wo), cout, (1, 1), (1, 1), (0, 0))
        return self._node([relu, dw, self._bias_op(dw), pw, self._bias_op(pw)], terms, "sep_conv")

    def pool(self, terms: list[list[Value]], kind: str, kernel: tuple[int, int] = (1, 1),
             stride: tuple[int, int] = (1, 1), padding: tuple[int, int] = (0, 0)) -> Value:
        cin, h, w, read = self._input(terms)
        if kind == "global_avg":
            out = (cin, 1, 1)
            flops = float(cin * h * w)
        else:
            ho = (h + 2 * padding[0] - kernel[0]) // stride[0] + 1
            wo = (w + 2 * padding[1] - kernel[1]) // stride[1] + 1
            out = (cin, ho, wo)
            flops = float(cin * ho * wo * kernel[0] * kernel[1])
        op = {"max": "ge.max_pool", "avg": "ge.avg_pool", "global_avg": "ge.global_avg_pool"}[kind]
        return self._node([Op(op, out, flops, F32 * (read + out[0] * out[1] * out[2]), (kernel, stride, padding, 1))],
                          terms, kind + "_pool")

    def relu(self, terms: list[list[Value]]) -> Value:
        cin, h, w, read = self._input(terms)
        return self._node([Op("ge.relu", (cin, h, w), float(cin * h * w), F32 * (read + cin * h * w))], terms, "relu")

    def identity(self, terms: list[list[Value]]) -> Value:
        """Concatenate the terms, summing the values of each: a copy kernel."""
        cin, h, w, read = self._input(terms)
        if len(terms) == 1 and len(terms[0]) == 1:
            return terms[0][0]
        op = "ge.add" if all(len(t) > 1 for t in terms) and len(terms) == 1 else "ge.concat"
        return self._node([Op(op, (cin, h, w), read, F32 * (read + cin * h * w))], terms, "identity")


def raf_joins(net: Net) -> Net:
    """RAF's fusion of a branch's last ReLU into the concatenation: its TVM
    fusion (awslabs/raf src/pass/fuse_tvm.cc, TVM's post-dominator rule) fuses
    an elementwise op into the injective op all its paths reach, and batch norm
    is opaque there (src/op/dialect/tvm/nn.cc), so a convolution, its batch norm
    and its ReLU are three kernels (cuDNN's), except that the ReLU of a value
    only a concatenation reads joins the concatenation's kernel. Applied to a
    net built with ``activation="raf"``; returns it."""
    readers: list[int] = [0] * len(net.nodes)
    for node in net.nodes:
        for p in node.preds:
            readers[p] += 1
    for node in net.nodes:
        if len(node.terms) < 2:  # not a concatenation
            continue
        fused = False
        for term in node.terms:
            p = term[0][0]
            if len(term) == 1 and p >= 0 and readers[p] == 1 and net.nodes[p].ops[-1].op == "ge.relu":
                net.nodes[p].ops.pop()
                fused = True
        node.relu_join = fused
    return net


def inception_v3(activation: str = "fused") -> Net:
    """IOS ``inception_v3``: 299 x 299 input, blocks A x3, B, C x4, D, E x2
    (``activation``: see :attr:`Net.activation`; ``raf`` also :func:`raf_joins`)."""
    n = Net("inception_v3", (299, 299), activation=activation)
    v: Value = (-1, 3, 299, 299)
    v = n.conv([[v]], 32, (3, 3), (2, 2))
    v = n.conv([[v]], 32, (3, 3))
    v = n.conv([[v]], 64, (3, 3), padding=(1, 1))
    v = n.pool([[v]], "max", (3, 3), (2, 2))
    v = n.conv([[v]], 80)
    v = n.conv([[v]], 192, (3, 3))
    v = n.pool([[v]], "max", (3, 3), (2, 2))

    def a(v: Value, pool_features: int) -> Value:
        n.new_block()
        b1 = n.conv([[v]], 64)
        b5 = n.conv([[n.conv([[v]], 48)]], 64, (5, 5), padding=(2, 2))
        b3 = n.conv([[v]], 64)
        b3 = n.conv([[b3]], 96, (3, 3), padding=(1, 1))
        b3 = n.conv([[b3]], 96, (3, 3), padding=(1, 1))
        bp = n.conv([[n.pool([[v]], "avg", (3, 3), (1, 1), (1, 1))]], pool_features)
        return n.identity([[b1], [b5], [b3], [bp]])

    def b(v: Value) -> Value:
        n.new_block()
        b3 = n.conv([[v]], 384, (3, 3), (2, 2))
        bd = n.conv([[v]], 64)
        bd = n.conv([[bd]], 96, (3, 3), padding=(1, 1))
        bd = n.conv([[bd]], 96, (3, 3), (2, 2))
        bp = n.pool([[v]], "max", (3, 3), (2, 2))
        return n.identity([[b3], [bd], [bp]])

    def c(v: Value, c7: int) -> Value:
        n.new_block()
        b1 = n.conv([[v]], 192)
        b7 = n.conv([[v]], c7)
        b7 = n.conv([[b7]], c7, (1, 7), padding=(0, 3))
        b7 = n.conv([[b7]], 192, (7, 1), padding=(3, 0))
        bd = n.conv([[v]], c7)
        bd = n.conv([[bd]], c7, (7, 1), padding=(3, 0))
        bd = n.conv([[bd]], c7, (1, 7), padding=(0, 3))
        bd = n.conv([[bd]], c7, (7, 1), padding=(3, 0))
        bd = n.conv([[bd]], 192, (1, 7), padding=(0, 3))
        bp = n.conv([[n.pool([[v]], "avg", (3, 3), (1, 1), (1, 1))]], 192)
        return n.identity([[b1], [b7], [bd], [bp]])

    def d(v: Value) -> Value:
        n.new_block()
        b3 = n.conv([[n.conv([[v]], 192)]], 320, (3, 3), (2, 2))
        b7 = n.conv([[v]], 192)
        b7 = n.conv([[b7]], 192, (1, 7), padding=(0, 3))
        b7 = n.conv([[b7]], 192, (7, 1), padding=(3, 0))
        b7 = n.conv([[b7]], 192, (3, 3), (2, 2))
        bp = n.pool([[v]], "max", (3, 3), (2, 2))
        return n.identity([[b3], [b7], [bp]])

    def e(v: Value) -> Value:
        n.new_block()
        b1 = n.conv([[v]], 320)
        b3 = n.conv([[v]], 384)
        b3a = n.conv([[b3]], 384, (1, 3), padding=(0, 1))
        b3b = n.conv([[b3]], 384, (3, 1), padding=(1, 0))
        bd = n.conv([[v]], 448)
        bd = n.conv([[bd]], 384, (3, 3), padding=(1, 1))
        bda = n.conv([[bd]], 384, (1, 3), padding=(0, 1))
        bdb = n.conv([[bd]], 384, (3, 1), padding=(1, 0))
        bp = n.conv([[n.pool([[v]], "avg", (3, 3), (1, 1), (1, 1))]], 192)
        return n.identity([[b1], [b3a], [b3b], [bda], [bdb], [bp]])

    for pf in (32, 64, 64):
        v = a(v, pf)
    v = b(v)
    for c7 in (128, 160, 160, 192):
        v = c(v, c7)
    v = d(v)
    v = e(v)
    v = e(v)
    n.new_block()
    n.pool([[v]], "global_avg")
    return raf_joins(n) if activation == "raf" else n


def ws_graph(nodes: int, k: int, p: float, seed: int) -> list[tuple[int, int]]:
    """A Watts-Strogatz graph (ring lattice of degree k, each edge rewired with
    probability p, as RandWire's generator does) as DAG edges low -> high."""
    rng = random.Random(seed)
    adj = [set() for _ in range(nodes)]
    for i in range(nodes):
        for j in range(1, k // 2 + 1):
            adj[i].add((i + j) % nodes)
            adj[(i + j) % nodes].add(i)
    for i in range(nodes):
        for j in range(1, k // 2 + 1):
            cur = (i + j) % nodes
            if cur in adj[i] and rng.random() < p:
                free = [x for x in range(nodes) if x != i and x not in adj[i]]
                if free:
                    new = rng.choice(free)
                    adj[i].discard(cur)
                    adj[cur].discard(i)
                    adj[i].add(new)
                    adj[new].add(i)
    return sorted((i, j) for i in range(nodes) for j in adj[i] if i < j)


def randwire() -> Net:
    """IOS ``randwire_large``: channels 154, stages of WS(16, 4, 0.75) and 3 x WS(32, 4, 0.75)."""
    n = Net("randwire")
    ch = 154
    v = n.conv([[(-1, 3, 224, 224)]], ch // 2, (3, 3), (2, 2), (1, 1), act=False)
    for stage, (nodes, width) in enumerate([(16, ch), (32, 2 * ch), (32, 4 * ch), (32, 8 * ch)]):
        n.new_block()
        edges = ws_graph(nodes, 4, 0.75, seed=stage + 2)
        ins: list[list[int]] = [[] for _ in range(nodes)]
        has_out = [False] * nodes
        for a, b in edges:
            ins[b].append(a)
            has_out[a] = True
        out: list[Value] = []
        for u in range(nodes):
            if not ins[u]:
                out.append(n.sep_conv([[v]], width, (3, 3), (2, 2), (1, 1)))
            else:
                out.append(n.sep_conv([[out[x] for x in ins[u]]], width, (3, 3), (1, 1), (1, 1)))
        v = n.identity([[out[u] for u in range(nodes) if not has_out[u]]])
    n.new_block()
    v = n.relu([[v]])
    v = n.conv([[v]], 1280, act=False)
    n.pool([[v]], "global_avg")
    return n


def nasnet() -> Net:
    """IOS ``nasnet_large`` (stem 96, 168 filters; NASNet-A 6 @ 4032), one block."""
    n = Net("nasnet", (331, 331))

    def sep2(x: Value, cout: int, k: int, s: int, stem: bool = False) -> Value:
        # branch_separable (stem: branch_separable_stem): two relu-sep-convs
        pad = (k // 2, k // 2)
        mid = cout if stem else x[1]
        x = n.sep_conv([[x]], mid, (k, k), (s, s), pad)
        return n.sep_conv([[x]], cout, (k, k), (1, 1), pad)

    def pool(x: Value, kind: str, s: int) -> Value:
        return n.pool([[x]], kind, (3, 3), (s, s), (1, 1))

    def stem0(x: Value, f: int) -> Value:
        x1 = n.conv([[x]], f, relu_first=True)
        c0 = n.identity([[sep2(x1, f, 5, 2), sep2(x, f, 7, 2, stem=True)]])
        c1 = n.identity([[pool(x1, "max", 2), sep2(x, f, 7, 2, stem=True)]])
        c2l, c2r = pool(x1, "avg", 2), sep2(x, f, 5, 2, stem=True)
        c3r = pool(c0, "avg", 1)
        c4l, c4r = sep2(c0, f, 3, 1), pool(x1, "max", 2)
        return n.identity([[c1], [c2l, c2r], [c3r, c0], [c4l, c4r]])

    def stem1(hp: Value, h: Value, f: int) -> Value:
        xl = n.conv([[hp]], f, relu_first=True)
        xr = n.identity([[n.conv([[h]], f // 2, stride=(2, 2), relu_first=True),
                          n.conv([[h]], f // 2, stride=(2, 2), relu_first=True)]])
        c0 = n.identity([[sep2(xl, f, 5, 2), sep2(xr, f, 7, 2)]])
        c1 = n.identity([[pool(xl, "max", 2), sep2(xr, f, 7, 2)]])
        c2l, c2r = pool(xl, "avg", 2), sep2(xr, f, 5, 2)
        c3r = pool(c0, "avg", 1)
        c4l, c4r = sep2(c0, f, 3, 1), pool(xl, "max", 2)
        return n.identity([[c1], [c2l, c2r], [c3r, c1], [c4l, c4r]])

    def first_cell(x: Value, xp: Value, left: int, right: int) -> Value:
        xl = n.identity([[n.conv([[xp]], left, stride=(2, 2), relu_first=True)],
                         [n.conv([[xp]], left, stride=(2, 2), relu_first=True)]])
        xr = n.conv([[x]], right, relu_first=True)
        c0l, c0r = sep2(xr, right, 5, 1), sep2(xr, right, 3, 1)
        c1l, c1r = sep2(xl, right, 5, 1), sep2(xl, right, 3, 1)
        c2l = pool(xr, "avg", 1)
        c3l, c3r = pool(xl, "avg", 1), pool(xl, "avg", 1)
        c4l = sep2(xr, right, 3, 1)
        return n.identity([[xl], [c0l, c0r], [c1l, c1r], [c2l, xl], [c3l, c3r], [c4l, xr]])

    def normal_cell(x: Value, xp: Value, left: int, right: int) -> Value:
        xl = n.conv([[xp]], left, relu_first=True)
        xr = n.conv([[x]], right, relu_first=True)
        c0l, c0r = sep2(xr, right, 5, 1), sep2(xl, left, 3, 1)
        c1l, c1r = sep2(xl, left, 5, 1), sep2(xl, left, 3, 1)
        c2l = pool(xr, "avg", 1)
        c3l, c3r = pool(xl, "avg", 1), pool(xl, "avg", 1)
        c4l = sep2(xr, right, 3, 1)
        return n.identity([[c0l, c0r], [c1l, c1r], [c2l, xl], [c3l, c3r], [c4l, xr]])

    def reduction_cell(x: Value, xp: Value, left: int, right: int) -> Value:
        xl = n.conv([[xp]], left, relu_first=True)
        xr = n.conv([[x]], right, relu_first=True)
        c0 = n.identity([[sep2(xr, right, 5, 2), sep2(xl, right, 7, 2)]])
        c1l, c1r = pool(xr, "max", 2), sep2(xl, right, 7, 2)
        c1 = n.identity([[c1l, c1r]])
        c2l, c2r = pool(xr, "avg", 2), sep2(xl, right, 5, 2)
        c3r = pool(c0, "avg", 1)
        c4l, c4r = sep2(c0, right, 3, 1), pool(xr, "max", 2)
        return n.identity([[c1l, c1r], [c2l, c2r], [c1, c3r], [c4l, c4r]])

    f = 168
    v1 = n.conv([[(-1, 3, 331, 331)]], 96, (3, 3), (2, 2), act=False)
    v2 = stem0(v1, f // 4)
    v3 = stem1(v2, v1, f // 2)
    cells = [v2, v3]
    for scale, (left0, first_prev) in enumerate([(f // 2, None), (f, None), (2 * f, None)]):
        mult = 2 ** scale
        if scale > 0:
            cells.append(reduction_cell(cells[-1], cells[-2], mult * f, mult * f))
            cells.append(first_cell(cells[-1], cells[-3], left0, mult * f))
        else:
            cells.append(first_cell(cells[-1], cells[-2], left0, f))
        for _ in range(5):
            cells.append(normal_cell(cells[-1], cells[-2], mult * f, mult * f))
    v = n.relu([[cells[-1]]])
    n.pool([[v]], "global_avg")
    return n


def squeezenet() -> Net:
    """IOS ``squeezenet`` (fire modules with a 1x1 conv on the bypass when the channels change)."""
    n = Net("squeezenet")

    def fire(v: Value, squeeze: int, expand: int) -> Value:
        n.new_block()
        s = n.conv([[v]], squeeze)
        a = n.conv([[s]], expand, (3, 3), padding=(1, 1))
        b = n.conv([[s]], expand)
        cat = n.identity([[a], [b]])
        by = v if v[1] == cat[1] else n.conv([[v]], 2 * expand)
        return n.identity([[cat, by]])

    v = n.conv([[(-1, 3, 224, 224)]], 96, (7, 7), (2, 2), (3, 3))
    v = n.pool([[v]], "max", (3, 3), (2, 2))
    for sq, ex in ((16, 64), (16, 64), (32, 128)):
        v = fire(v, sq, ex)
    n.new_block()
    v = n.pool([[v]], "max", (3, 3), (2, 2))
    for sq, ex in ((32, 128), (48, 192), (48, 192), (64, 256)):
        v = fire(v, sq, ex)
    n.new_block()
    v = n.pool([[v]], "max", (3, 3), (2, 2))
    v = fire(v, 64, 256)
    n.new_block()
    v = n.conv([[v]], 1000)
    n.pool([[v]], "global_avg")
    return n


NETS: dict[str, Callable[[], Net]] = {"inception_v3": inception_v3, "randwire": randwire, "nasnet": nasnet,
                                      "squeezenet": squeezenet}


# ============================================================= the schedules

def _task_list(net: Net, stream_of: list[int], order: list[int], label: str = "",
               stage_of: list[int] | None = None, free_events: set[int] | None = None) -> TaskList:
    """Kernels of the nodes ``order`` lists, on the streams ``stream_of`` gives
    each node, in that order; a record (right after the producer) and a wait
    (right before the consumer) for every cross-stream edge the consumer's
    stream has not already waited for. A predecessor outside ``order`` ran
    before (a host barrier separates them): its output is read, with no event.

    ``stage_of`` (per node, non-decreasing along ``order``): a device-side
    barrier between two stages, as RAF's ``stream_barrier`` (an event recorded
    on CUDA's legacy default stream, which waits for every stream and which
    every stream's later work waits for, without blocking the host): every
    other stream of the stage ending records an event that stream 0 waits for,
    then stream 0 records one for every other stream of the next stage, which
    waits for it. An edge into a later stage then needs no event of its own.
    A barrier is one runtime call: ``free_events`` receives every event of a
    barrier but its first, whose record and wait stand for that call's host cost
    (``EmulatorOptions.host_free_events``)."""
    nstreams = max(stream_of[g] for g in order) + 1
    inside = set(order)
    stage = stage_of if stage_of is not None else [0] * len(net.nodes)
    streams_in: dict[int, set[int]] = {}
    for g in order:
        streams_in.setdefault(stage[g], set()).add(stream_of[g])
    # pass 1: which edges need an event (positions counted in nodes per stream)
    count = [0] * nstreams
    pos = [0] * len(net.nodes)
    seen = [[-1] * nstreams for _ in range(nstreams)]  # seen[s][t]: last node position of t that s has waited for
    needed: set[tuple[int, int]] = set()
    for g in order:
        s = stream_of[g]
        for p in net.nodes[g].preds:
            ps = stream_of[p]
            if p in inside and ps != s and seen[s][ps] < pos[p] and stage[p] == stage[g]:
                needed.add((p, g))
                seen[s][ps] = pos[p]
        pos[g] = count[s]
        count[s] += 1
    # pass 2: the tasks
    tasks: list[list[Task]] = [[] for _ in range(nstreams)]
    arena = _Arena()
    graph_input = arena.tensor((3, *net.input))
    outputs: list[TensorRef] = [TensorRef(ARENA, 0, (1, 1, 1, 1), "f32")] * len(net.nodes)
    for p in sorted({p for g in order for p in net.nodes[g].preds} - inside):
        outputs[p] = arena.tensor(net.nodes[p].ops[-1].out)  # computed before the barrier
    consumers: dict[int, list[int]] = {}
    for p, g in sorted(needed):
        consumers.setdefault(p, []).append(g)
    edge_event: dict[tuple[int, int], int] = {}
    weights = _Arena()
    event = 0
    current = stage[order[0]]
    for g in order:
        node = net.nodes[g]
        s = stream_of[g]
        if stage[g] != current:  # the barrier, funnelled through stream 0
            ending, starting = sorted(streams_in[current] - {0}), sorted(streams_in[stage[g]] - {0})
            if free_events is not None:
                free_events.update(range(event + 1, event + len(ending) + len(starting)))
            for t in ending:
                tasks[t].append(Record(event))
                tasks[0].append(Wait(event))
                event += 1
            for t in starting:
                tasks[0].append(Record(event))
                tasks[t].append(Wait(event))
                event += 1
            current = stage[g]
        for p in node.preds:
            if (p, g) in edge_event:
                tasks[s].append(Wait(edge_event[(p, g)]))
        loc = f"{net.name}:{node.name}{g}"
        value = _combine(node.terms, outputs, graph_input, arena, tasks[s], loc, node.relu_join, net.concat)
        # an identity node is its combined input (its own op only says which combination)
        for op in ([] if node.name == "identity" else node.ops):
            out = arena.tensor(op.out)
            ins: list[TensorRef | None] = [value]
            attributes: dict[str, object] = {}
            if op.op == "ge.conv2d":
                (kh, kw), _, _, groups = op.window  # type: ignore[misc]
                ins.append(weights.tensor((op.out[0], value.shape[1] // groups, kh, kw), WEIGHTS))
                attributes["group"] = groups
            elif op.op == "ge.add":  # a convolution's bias (:meth:`Net._bias_op`)
                ins.append(weights.tensor((op.out[0], 1, 1), WEIGHTS))
            tasks[s].append(Kernel(op=op.op, engine="AICore", inputs=ins, outputs=[out], attributes=attributes,
                                   flops=op.flops, loc=loc))
            value = out
        outputs[g] = value
        for h in consumers.get(g, []):
            tasks[s].append(Record(event))
            edge_event[(g, h)] = event
            event += 1
    for t in tasks:
        t.append(EndGraph())
    return TaskList(streams=[Stream(i, 0, t) for i, t in enumerate(tasks)], arena_size=arena.size,
                    weight_size=weights.size, num_events=event, name=f"{net.name}/{label}")


class _Arena:
    """Bump allocation of (1, C, H, W) f32 tensors, 512-byte aligned: every value its own block."""

    def __init__(self) -> None:
        self.size = 0

    def tensor(self, shape: tuple[int, ...], space: str = ARENA) -> TensorRef:
        ref = TensorRef(space, self.size, (1, *shape) if len(shape) == 3 else shape, "f32")  # type: ignore[arg-type]
        self.size += -(-ref.nbytes // 512) * 512
        return ref


def _combine(terms: list[list[Value]], outputs: list[TensorRef], graph_input: TensorRef, arena: _Arena,
             stream: list[Task], loc: str, relu_join: bool = False, concat: str = "copies") -> TensorRef:
    """A node's input as the runtime builds it: the values of a term summed
    (one ``ge.sum`` kernel for up to :data:`MAX_SUM` values, else a chain of
    ``ge.add``), the terms concatenated along channels (``concat``, see
    :attr:`Net.concat`): IOS's runtime copies each term into its slice of the
    node's input buffer, a kernel a term; RAF's runs one kernel reading them
    all. ``relu_join``: that kernel is an elementwise one (``ge.relu`` of every
    part into its slice: it reads them all and writes the output)."""
    parts = []
    for term in terms:
        value = outputs[term[0][0]] if term[0][0] >= 0 else graph_input
        if 1 < len(term) <= MAX_SUM:
            out = arena.tensor(value.shape[1:])
            stream.append(Kernel(op="ge.sum", engine="AICore", inputs=[value, *(outputs[o[0]] for o in term[1:])],
                                 outputs=[out], flops=float(out.nbytes // F32 * (len(term) - 1)), loc=loc))
            value = out
        else:
            for other in term[1:]:
                out = arena.tensor(value.shape[1:])
                stream.append(Kernel(op="ge.add", engine="AICore", inputs=[value, outputs[other[0]]], outputs=[out],
                                     flops=float(out.nbytes // F32), loc=loc))
                value = out
        parts.append(value)
    if len(parts) == 1:
        return parts[0]
    c = sum(p.shape[1] for p in parts)
    out = arena.tensor((c, *parts[0].shape[2:]))
    if relu_join:
        stream.append(Kernel(op="ge.relu", engine="AICore", inputs=list(parts), outputs=[out],
                             flops=float(out.nbytes // F32), loc=loc))
        return out
    if concat == "kernel":
        stream.append(Kernel(op="concatenate", engine="AICore", inputs=list(parts), outputs=[out], loc=loc))
        return out
    offset = out.offset
    for part in parts:  # batch 1: a term's channels are one dense range of the buffer
        stream.append(Kernel(op="assign_with_stride_src", engine="AICore", inputs=[part],
                             outputs=[TensorRef(ARENA, offset, part.shape, part.dtype)], loc=loc))
        offset += part.nbytes
    return out


def sequential(net: Net) -> TaskList:
    return _task_list(net, [0] * len(net.nodes), list(range(len(net.nodes))), label="sequential")


@attrs.define
class HostSynced:
    """A schedule as IOS's runtime runs it: task lists one after another, the
    host waiting for the whole device (``cudaDeviceSynchronize``) between two
    of them, so the device is idle at every boundary and each segment starts
    from an idle device and an idle host. Its makespan is the segments'
    makespans plus :data:`HOST_SYNC_US` per boundary."""

    name: str
    segments: list[TaskList]


def _host_synced(net: Net, stages: list[list[list[int]]], label: str) -> HostSynced:
    """Stages (each a list of groups, a group a list of nodes run in order on a
    stream of its own) as IOS's runtime runs them: the host synchronises with
    the device between two stages unless both hold one group (IOS's
    ``forward``: no ``cudaDeviceSynchronize`` when ``stage_size == 1`` and the
    next stage's too), so a segment is one stage of several groups or a run of
    one-group stages on one stream."""
    stream_of = [0] * len(net.nodes)
    segments: list[list[int]] = []
    prev = 0
    for stage in stages:
        if not segments or not (prev == 1 and len(stage) == 1):
            segments.append([])
        for j, group in enumerate(stage):
            for g in group:
                stream_of[g] = j
                segments[-1].append(g)
        prev = len(stage)
    return HostSynced(f"{net.name}/{label}", [_task_list(net, stream_of, seg, label=f"{label}.{i}")
                                              for i, seg in enumerate(segments)])


def _blocks(net: Net) -> list[list[int]]:
    blocks: dict[int, list[int]] = {}
    for g, node in enumerate(net.nodes):
        blocks.setdefault(node.block, []).append(g)
    return list(blocks.values())


def _greedy_block(net: Net, members: list[int]) -> list[list[list[int]]]:
    """IOS's ``Block.greedy_schedule``: stages of <= 10 ready nodes, a node a group."""
    inside = set(members)
    indeg = {g: sum(1 for p in net.nodes[g].preds if p in inside) for g in members}
    ready = [g for g in members if indeg[g] == 0]
    stages: list[list[list[int]]] = []
    while ready:
        stage, rest = ready[:MAX_STAGE], ready[MAX_STAGE:]
        stages.append([[g] for g in stage])
        nxt = []
        for g in stage:
            for h in members:
                if g in net.nodes[h].preds and h in indeg:
                    indeg[h] -= 1
                    if indeg[h] == 0:
                        nxt.append(h)
        ready = rest + nxt
    return stages


def _chain_block(net: Net, members: list[int]) -> list[list[list[int]]]:
    """Stages of chains: every ready node (at most 10) starts a group, and a group
    grows by a successor whose other inputs are all computed before the stage or
    earlier in the group (so the groups of a stage are independent)."""
    inside = set(members)
    succ: dict[int, list[int]] = {g: [] for g in members}
    for g in members:
        for p in net.nodes[g].preds:
            if p in inside:
                succ[p].append(g)
    done: set[int] = set()
    left = list(members)
    stages: list[list[list[int]]] = []
    while left:
        ready = [g for g in left if all(p in done for p in net.nodes[g].preds if p in inside)]
        taken: set[int] = set()
        stage = []
        for g in ready[:MAX_STAGE]:
            group = [g]
            taken.add(g)
            while True:
                ours = done.union(group)
                v = next((v for v in succ[group[-1]] if v not in taken
                          and all(p in ours for p in net.nodes[v].preds if p in inside)), None)
                if v is None:
                    break
                group.append(v)
                taken.add(v)
            stage.append(group)
        stages.append(stage)
        done |= taken
        left = [g for g in left if g not in taken]
    return stages


def greedy(net: Net) -> HostSynced:
    """IOS Greedy: :func:`_greedy_block` over every block, host barriers as
    :func:`_host_synced` places them."""
    return _host_synced(net, [st for members in _blocks(net) for st in _greedy_block(net, members)], "greedy")


def chain_stages(net: Net) -> HostSynced:
    """A schedule in IOS-Parallel's space (stages of independent groups, each a
    chain of nodes on one stream; host barriers between stages) built greedily
    by :func:`_chain_block`, not by IOS's dynamic programming."""
    return _host_synced(net, [st for members in _blocks(net) for st in _chain_block(net, members)],
                        "chain-stages")


def block_choice(net: Net, device: str, mode: str, params: list[str]) -> HostSynced:
    """IOS-Parallel's choice per block, among three candidates instead of its
    dynamic program over every partition: the block as one group (sequential),
    :func:`_greedy_block` or :func:`_chain_block`, whichever the emulator runs
    fastest (a block alone, between barriers, as IOS measures a stage)."""
    stages: list[list[list[int]]] = []
    for i, members in enumerate(_blocks(net)):
        options = [[[list(members)]], _greedy_block(net, members), _chain_block(net, members)]
        best = min(options, key=lambda st: run(_host_synced(net, st, f"block{i}"), device, mode, params))
        stages.extend(best)
    return _host_synced(net, stages, "block-choice")


def chains(net: Net, max_streams: int | None = None) -> TaskList:
    """Every node as soon as it is ready: a node continues the stream of a
    predecessor that is still that stream's last node, else takes a new stream
    (or, with ``max_streams``, the stream that has been idle longest)."""
    tail: list[int] = []  # last node of each stream
    stream_of = [0] * len(net.nodes)
    last_used: list[int] = []
    for g, node in enumerate(net.nodes):
        s = next((stream_of[p] for p in node.preds if tail[stream_of[p]] == p), None)
        if s is None:
            if max_streams is None or len(tail) < max_streams:
                s = len(tail)
                tail.append(-1)
                last_used.append(g)
            else:
                s = min(range(len(tail)), key=last_used.__getitem__)
        stream_of[g] = s
        tail[s] = g
        last_used[s] = g
    label = "all-at-once" if max_streams is None else f"chains<={max_streams}"
    return _task_list(net, stream_of, list(range(len(net.nodes))), label=label)


def wavefront_waves(net: Net) -> list[list[list[int]]]:
    """RAF's wavefront partition (``WavefrontPartition`` in awslabs/raf
    src/pass/stream_schedule_wavefront.cc) over the nodes: a wave is a chain
    from every node whose inputs are all computed; a chain grows while its last
    node has one consumer and that consumer no other input left."""
    succ: list[list[int]] = [[] for _ in net.nodes]
    left = [len(node.preds) for node in net.nodes]
    for g, node in enumerate(net.nodes):
        for p in node.preds:
            succ[p].append(g)
    free = [g for g in range(len(net.nodes)) if left[g] == 0]
    waves: list[list[list[int]]] = []
    while free:
        wave = []
        for g in free:
            chain = [g]
            while len(succ[chain[-1]]) == 1 and left[succ[chain[-1]][0]] == 1:
                chain.append(succ[chain[-1]][0])
            wave.append(chain)
        free = []
        for chain in wave:
            for h in succ[chain[-1]]:
                left[h] -= 1
                if left[h] == 0:
                    free.append(h)
        waves.append(wave)
    return waves


def asap(net: Net) -> TaskList:
    """RAF's ASAP schedule (``ASAPScheduler`` in awslabs/raf
    src/pass/stream_schedule_asap.cc) over the nodes. Heavy edges: in order of
    decreasing depth (the most nodes on a path from the node to the end), a node
    takes as its heavy input the first input no other node took; heavy edges
    form chains, a chain on one stream. Issue order: a stack of ready nodes by
    depth, the deepest first, a node's heavy successor right after it. A chain
    reuses the stream of a finished chain whose last node reaches its first,
    else takes a new stream; an event on every other edge between streams."""
    n = len(net.nodes)
    succ: list[list[int]] = [[] for _ in range(n)]
    for g, node in enumerate(net.nodes):
        for p in node.preds:
            succ[p].append(g)
    depth = [1] * n
    for g in reversed(range(n)):  # node order is topological
        depth[g] = 1 + max((depth[h] for h in succ[g]), default=0)
    heavy_in = [-1] * n  # the input a node continues
    heavy_out = [-1] * n  # the consumer that continues a node
    for g in sorted(range(n), key=lambda g: -depth[g]):
        p = next((p for p in net.nodes[g].preds if heavy_out[p] < 0), -1)
        if p >= 0:
            heavy_in[g], heavy_out[p] = p, g
    left = [len(node.preds) for node in net.nodes]
    stack = sorted((g for g in range(n) if left[g] == 0), key=lambda g: depth[g])
    order: list[int] = []
    while stack:
        g = stack.pop()
        order.append(g)
        for h in succ[g]:
            if h != heavy_out[g]:
                left[h] -= 1
                if left[h] == 0:
                    stack.append(h)
        stack.sort(key=lambda h: depth[h])
        if heavy_out[g] >= 0:
            left[heavy_out[g]] -= 1
            if left[heavy_out[g]] == 0:
                stack.append(heavy_out[g])
    # streams: the nodes each finished chain's last node reaches (filled as chains finish)
    reach: list[set[int] | None] = []
    stream_of = [0] * n
    for g in order:
        if heavy_in[g] >= 0:
            s = stream_of[heavy_in[g]]
        else:
            s = next((t for t, r in enumerate(reach) if r is not None and g in r), len(reach))
            if s == len(reach):
                reach.append(None)
            reach[s] = None
        stream_of[g] = s
        if heavy_out[g] < 0:  # the chain ends: what its last node reaches
            seen, todo = {g}, [g]
            while todo:
                for h in succ[todo.pop()]:
                    if h not in seen:
                        seen.add(h)
                        todo.append(h)
            reach[s] = seen
    return _task_list(net, stream_of, order, label="asap")


def event_staged(net: Net, stages: list[list[list[int]]], label: str,
                 free_events: set[int] | None = None) -> TaskList:
    """Stages (each a list of groups, a group a list of nodes) in one task list:
    group j of a stage on stream j, the stages separated by device-side barriers
    (:func:`_task_list`'s ``stage_of``) instead of host synchronisations: RAF's
    wavefront and IOS schedules (``AnnotateStreamBarrier`` between stages);
    ``free_events`` as :func:`_task_list` fills it."""
    stream_of = [0] * len(net.nodes)
    stage_of = [0] * len(net.nodes)
    order: list[int] = []
    for i, stage in enumerate(stages):
        for j, group in enumerate(stage):
            for g in group:
                stream_of[g], stage_of[g] = j, i
                order.append(g)
    return _task_list(net, stream_of, order, label=label, stage_of=stage_of, free_events=free_events)


def to_ge(net: Net) -> str:
    """``net`` as a ``ge.graph`` (f32, splat weights): what geir's scheduling
    passes take. A node's summed and concatenated inputs become ``ge.add`` and
    ``ge.concat`` ops of their own."""
    lines: list[str] = []
    consts: dict[tuple[int, ...], str] = {}
    consts_bias: dict[str, str] = {}
    names: dict[int, str] = {-1: "%x"}
    count = [0]

    def t(c: int, h: int, w: int) -> str:
        return f"tensor<1x{c}x{h}x{w}xf32>"

    def fresh() -> str:
        count[0] += 1
        return f"%v{count[0]}"

    def emit(op: str, args: list[tuple[str, str]], result: str, attrs_text: str = "") -> str:
        name = fresh()
        attr = f" {{{attrs_text}}}" if attrs_text else ""
        lines.append(f"  {name} = {op} {', '.join(a for a, _ in args)}{attr} : "
                     f"({', '.join(ty for _, ty in args)}) -> {result}")
        return name

    def combine(terms: list[list[Value]]) -> tuple[str, tuple[int, int, int]]:
        parts = []
        for term in terms:
            node, c, h, w = term[0]
            value = names[node]
            if 1 < len(term) <= MAX_SUM:
                value = emit("ge.sum", [(names[v[0]], t(c, h, w)) for v in term], t(c, h, w))
            else:
                for other in term[1:]:
                    value = emit("ge.add", [(value, t(c, h, w)), (names[other[0]], t(c, h, w))], t(c, h, w))
            parts.append((value, (c, h, w)))
        if len(parts) == 1:
            return parts[0]
        c = sum(p[1][0] for p in parts)
        _, h, w = parts[0][1]
        return emit("ge.concat", [(v, t(*shape)) for v, shape in parts], t(c, h, w), "axis = 1"), (c, h, w)

    for g, node in enumerate(net.nodes):
        value, shape = combine(node.terms)
        if node.name == "identity":
            names[g] = value
            continue
        for op in node.ops:
            if op.op == "ge.conv2d":
                (kh, kw), (sh, sw), (ph, pw), groups = op.window  # type: ignore[misc]
                wshape = (op.out[0], shape[0] // groups, kh, kw)
                if wshape not in consts:
                    consts[wshape] = f"%w{len(consts)}"
                    wt = f"tensor<{'x'.join(map(str, wshape))}xf32>"
                    lines.insert(0, f"  {consts[wshape]} = ge.const {{value = dense<1.000000e-02> : {wt}}} : () -> {wt}")
                wt = f"tensor<{'x'.join(map(str, wshape))}xf32>"
                value = emit("ge.conv2d", [(value, t(*shape)), (consts[wshape], wt)], t(*op.out),
                             f"group = {groups}, kernel_shape = [{kh}, {kw}], pads = [{ph}, {pw}, {ph}, {pw}], "
                             f"strides = [{sh}, {sw}]")
            elif op.op in ("ge.max_pool", "ge.avg_pool"):
                (kh, kw), (sh, sw), (ph, pw), _ = op.window  # type: ignore[misc]
                value = emit(op.op, [(value, t(*shape))], t(*op.out),
                             f"kernel_shape = [{kh}, {kw}], pads = [{ph}, {pw}, {ph}, {pw}], strides = [{sh}, {sw}]")
            elif op.op == "ge.add":  # a convolution's bias (:meth:`Net._bias_op`)
                bias = f"tensor<1x{op.out[0]}x1x1xf32>"
                if bias not in consts_bias:
                    consts_bias[bias] = f"%b{len(consts_bias)}"
                    lines.insert(0, f"  {consts_bias[bias]} = ge.const {{value = dense<1.000000e-02> : {bias}}} : "
                                    f"() -> {bias}")
                value = emit("ge.add", [(value, t(*shape)), (consts_bias[bias], bias)], t(*op.out))
            else:  # relu, global pooling
                value = emit(op.op, [(value, t(*shape))], t(*op.out))
            shape = op.out
        names[g] = value
    last = net.nodes[-1].ops[-1].out
    out = names[len(net.nodes) - 1]
    lines.append(f"  ge.return {out} : ({t(*last)}) -> ()")
    return "\n".join([f"ge.graph @{net.name}(%x: tensor<1x3x{net.input[0]}x{net.input[1]}xf32>) -> ({t(*last)}) {{",
                      *lines, "}"]) + "\n"


#: geir's partition-streams strategies the bench runs on the IR form (bench/streams.py's list)
PASS_STRATEGIES = ("single", "ge", "ge-parallel", "chain-cover", "cost")


def run_passes(net: Net, device: str, mode: str, params: list[str], max_streams: int,
               share: bool = True) -> dict[str, float]:
    """Makespan (ms) of every partition-streams strategy on ``net``'s IR form."""
    from geir.parser import parse_module
    from geir.passes.lower_to_tasks import graph_task_list
    from geir.passes.pass_manager import PassManager
    from geir.passes.pipeline import parse_pipeline
    text = to_ge(net)
    out = {}
    for strategy in PASS_STRATEGIES:
        module = parse_module(text, f"{net.name}.mlir")
        pipeline = (f"assign-engines{{device={device}}},partition-streams{{strategy={strategy} "
                    f"max-streams={max_streams} device={device}}},insert-events{{device={device}}}")
        PassManager(parse_pipeline(pipeline), verify_each=False).run(module)
        out[strategy] = run(graph_task_list(next(module.graphs())), device, mode, params, share)
    return out


def run(tl: TaskList | HostSynced, device: str, mode: str, params: list[str], share: bool = True,
        host_event_us: float | None = None, free_events: set[int] | frozenset[int] = frozenset()) -> float:
    """Emulated makespan in ms (and the share of it with the DRAM saturated in
    :data:`SATURATED`); raises when the schedule is not clean (a bug in the builders).
    ``host_event_us``: the host's cost of a record or wait when not ``host_launch_us``;
    ``free_events``: events whose records and waits cost the host nothing."""
    sync_us, params = host_sync_us(params)
    _, _, params = raf_costs(params)
    segments = tl.segments if isinstance(tl, HostSynced) else [tl]
    makespan = saturated = 0.0
    for segment in segments:
        r = emulate(segment, None, EmulatorOptions(device=device, device_params=params, mode=mode,
                                                   timing_only=True, check_races=True, progress=False,
                                                   share_dram=share, host_event_launch_us=host_event_us,
                                                   host_free_events=frozenset(free_events)))
        if not r.clean:
            raise RuntimeError(f"{segment.name}: {r.report['races'][:1] or r.report['deadlock']}")
        makespan += r.report["makespan_us"]
        saturated += r.report["dram"]["saturated_us"]
    makespan += sync_us * (len(segments) - 1)
    SATURATED[tl.name] = saturated / makespan
    return makespan / 1e3


#: the host's cost of one ``cudaDeviceSynchronize`` that finds work running: from
#: the device going idle to the host thread running again (the next launch is
#: ``host_launch_us`` on top). Assumed: CUDA.jl measured a small kernel launched
#: and then synchronised at 7.1 us blocking, 4.7 us spinning (JuliaGPU/CUDA.jl
#: pull request 896, 2021), launch and kernel included, so the wake-up alone is
#: a few microseconds at most: taken as 2 us. A bench parameter
#: (``--device-param host_sync_us=V``, ``--sweep host_sync_us=...``).
HOST_SYNC_US = 2.0


def host_sync_us(params: list[str]) -> tuple[float, list[str]]:
    """The host-sync cost ``params`` sets (last wins; else :data:`HOST_SYNC_US`)
    and the parameters left for the device profile."""
    value, rest = HOST_SYNC_US, []
    for p in params:
        key, _, v = p.partition("=")
        if key.strip() == "host_sync_us":
            value = float(v)
        else:
            rest.append(p)
    return value, rest


#: task list name -> fraction of its makespan with the DRAM saturated (last run)
SATURATED: dict[str, float] = {}


# ================================================================ RAF's row

#: RAF's measurement (awslabs/raf docs/wiki/3_dev_guide/pass/Multi-CUDA-Stream-Schedule.md):
#: "1.2x to 1.3x speedup for single batch inference of Inception V3" on V100 and
#: RTX 2080 Ti, multi-stream against RAF's own single stream; no latencies
RAF_MEASURED = (1.2, 1.3)
#: the host's cost of one operator in RAF's virtual machine (``AllocStorage``,
#: ``AllocTensor``, ``InvokeJit`` — a cache key printed from every argument's
#: shape, a workspace allocation, the kernel launch — and ``Free``), in place of
#: ``host_launch_us``. Source: the trace in RAF's own profiling guide
#: (docs/wiki/3_dev_guide/Profile-Model.md, level 1, GPU-side event times):
#: two tiny consecutive ``cast`` operators start 34 us apart with the GPU idle
#: in between (16 us from one's start event to its end event, 18 us to the
#: next's start), so the host is what paces them; the profiler's own two
#: ``cudaEventRecord`` calls per operator are in those 34 us: taken as 30 us.
#: The machine of that trace is not stated. A bench parameter (``raf_op_us=V``).
RAF_OP_US = 30.0
#: the host's cost of one ``CudaAddEvent`` / ``CudaWaitEvent`` instruction (a VM
#: dispatch and one ``cudaEventRecord`` / ``cudaStreamWaitEvent``). Assumed: no
#: figure in RAF's sources; CUDA's event calls are commonly a few microseconds.
#: A bench parameter (``raf_event_us=V``).
RAF_EVENT_US = 3.0


def raf_costs(params: list[str]) -> tuple[float, float, list[str]]:
    """RAF's per-operator and per-event host costs ``params`` sets (last wins;
    else :data:`RAF_OP_US`, :data:`RAF_EVENT_US`) and the parameters left."""
    op_us, event_us, rest = RAF_OP_US, RAF_EVENT_US, []
    for p in params:
        key, _, v = p.partition("=")
        if key.strip() == "raf_op_us":
            op_us = float(v)
        elif key.strip() == "raf_event_us":
            event_us = float(v)
        else:
            rest.append(p)
    return op_us, event_us, rest


#: RAF's schedule passes, as built here
RAF_POLICIES = ("wavefront", "asap", "ios")


def raf_row(device: str, mode: str, params: list[str], activation: str = "raf") -> dict[str, float]:
    """Makespans (ms) of Inception v3 as RAF runs it: RAF's graph (``activation``
    ``raf``: a bias-free convolution, a batch-norm kernel and a ReLU kernel, a
    branch's last ReLU in the concatenation's kernel; see :attr:`Net.activation`
    for the others), its virtual machine issuing every operator from one host
    thread at :data:`RAF_OP_US` and every event instruction at
    :data:`RAF_EVENT_US` (host mode; a barrier's further events cost the host
    nothing), under its ``sequential`` policy and its three schedule passes:

    * ``wavefront`` — :func:`wavefront_waves`, a barrier between waves;
    * ``asap`` — :func:`asap`, chains joined by events;
    * ``ios`` — stages, barriers between them, chosen per block among one
      group, IOS's greedy stages and chain stages by the device time of each
      block alone (RAF's IOS pass runs IOS's dynamic program over stages its
      op profiler times, up to 5 streams and 10 operators a stage).

    The kernels are the V100 profile's (IOS-calibrated cuDNN FP32), and the host
    launches in the order the tasks start in sink mode, not in RAF's program
    order (RAF's kernel times are unknown; with the host pacing the run, the
    launch order matters little)."""
    op_us, event_us, rest = raf_costs(params)
    params = [*rest, f"host_launch_us={op_us}"]
    net = inception_v3(activation)
    net.concat = "kernel"

    def time(tl: TaskList, free: set[int] | frozenset[int] = frozenset()) -> float:
        return run(tl, device, mode, params, host_event_us=event_us, free_events=free)

    def staged(stages: list[list[list[int]]], label: str) -> float:
        free: set[int] = set()
        return time(event_staged(net, stages, label, free), free)

    stages: list[list[list[int]]] = []
    for i, members in enumerate(_blocks(net)):
        options = [[[list(members)]], _greedy_block(net, members), _chain_block(net, members)]
        # RAF's IOS pass profiles a stage's kernels alone (its op profiler launches
        # them, not the VM): the device's time, without the host's
        stages.extend(min(options, key=lambda st: run(event_staged(net, st, f"raf-ios.{i}"), device, "sink", params)))
    return {"sequential": time(sequential(net)),
            "wavefront": staged(wavefront_waves(net), "wavefront"),
            "asap": time(asap(net)),
            "ios": staged(stages, "raf-ios")}


def raf_error(speedup: float) -> float:
    """Relative distance of ``speedup`` from RAF's measured range (0 inside it)."""
    low, high = RAF_MEASURED
    return speedup / low - 1 if speedup < low else speedup / high - 1 if speedup > high else 0.0


#: the schedules IOS's runtime can run (stages, host barriers): judged against IOS-Parallel
IOS_SPACE = ("greedy", "chain-stages", "block-choice")


def calibrate(device: str, mode: str, params: list[str], share: bool = True,
              passes: bool = True, max_streams: int = 64) -> list[dict[str, object]]:
    """One row per network: emulated ms of every schedule and the ratios."""
    rows = []
    for name, build in NETS.items():
        net = build()
        pass_times = run_passes(net, device, mode, params, max_streams, share) if passes else {}
        times = {"sequential": run(sequential(net), device, mode, params, share),
                 "greedy": run(greedy(net), device, mode, params, share),
                 "chain-stages": run(chain_stages(net), device, mode, params, share),
                 "block-choice": run(block_choice(net, device, mode, params), device, mode, params, share),
                 "all-at-once": run(chains(net), device, mode, params, share)}
        for k in (2, 3, 4, 6, 8):
            times[f"chains<={k}"] = run(chains(net, k), device, mode, params, share)
        # the same kernels as "sequential" in all of them: the same baseline
        ios = min(IOS_SPACE, key=times.__getitem__)
        events = min((k for k in times if k.startswith("chains") or k in ("all-at-once", "sequential")),
                     key=times.__getitem__)
        times.update({f"pass:{k}": v for k, v in pass_times.items()})
        rows.append({"net": name, "nodes": len(net.nodes), "times": times, "ios": ios, "events": events,
                     "saturated": SATURATED[f"{name}/all-at-once"]})
    return rows


def _print(rows: list[dict[str, object]], title: str) -> None:
    print(title)
    passes = any("pass:single" in r["times"] for r in rows)  # type: ignore[operator]
    extra = f" {'pass:single':>11} {'best pass':>16} {'speed-up':>8} {'err':>5}" if passes else ""
    print(f"{'network':<13} {'nodes':>5} {'seq ms':>7} {'IOS':>6} {'seq/greedy':>10} {'IOS':>5} {'err':>5} "
          f"{'IOS-space best':<14} {'speed-up':>8} {'IOS-P':>5} {'err':>5} {'events best':<12} {'speed-up':>8} "
          f"{'err':>5}{extra} {'DRAM sat':>7}")
    for row in rows:
        t: dict[str, float] = row["times"]  # type: ignore[assignment]
        pub = PUBLISHED[row["net"]]  # type: ignore[index]
        seq = t["sequential"]
        g_emu, g_pub = seq / t["greedy"], pub["sequential"] / pub["greedy"]
        b_pub = pub["sequential"] / pub["ios_parallel"]
        i_emu = seq / t[row["ios"]]  # type: ignore[index]
        e_emu = seq / t[row["events"]]  # type: ignore[index]
        cells = ""
        if passes:
            strategy = min((k for k in t if k.startswith("pass:") and k != "pass:single"), key=t.__getitem__)
            p_emu = t["pass:single"] / t[strategy]
            cells = (f" {t['pass:single']:>11.3f} {strategy[5:] + f' {t[strategy]:.3f}':>16} {p_emu:>8.2f} "
                     f"{p_emu / b_pub - 1:>+5.0%}")
        print(f"{row['net']:<13} {row['nodes']:>5} {seq:>7.3f} {pub['sequential']:>6.2f} {g_emu:>10.2f} {g_pub:>5.2f} "
              f"{g_emu / g_pub - 1:>+5.0%} {row['ios']:<14} {i_emu:>8.2f} {b_pub:>5.2f} {i_emu / b_pub - 1:>+5.0%} "
              f"{row['events']:<12} {e_emu:>8.2f} {e_emu / b_pub - 1:>+5.0%}{cells} {row['saturated']:>7.1%}")
    raf = next((r for r in rows if r["net"] == "inception_v3"), None)
    if raf is not None:
        t = raf["times"]  # type: ignore[assignment]
        e = t["sequential"] / t[raf["events"]]  # type: ignore[index]
        print(f"  (IOS's kernels and IOS's launch cost, no barriers: Inception v3 events best {e:.2f}, "
              f"{raf_error(e):+.0%} of RAF's 1.2-1.3 — not RAF's runtime: see the RAF row)")


def print_raf(device: str, mode: str, params: list[str]) -> None:
    """RAF's row (:func:`raf_row`) with its assumptions and its error against
    RAF's measured 1.2-1.3, and the same with batch norm and ReLU as one kernel
    and with IOS's fused activation."""
    op_us, event_us, _ = raf_costs(params)
    print(f"RAF, Inception v3 (measured 1.2-1.3x, its own single stream; {mode} mode): RAF's VM at {op_us:g} us "
          f"host per operator and {event_us:g} us per event instruction")
    for activation, what in (("raf", "conv, BN, ReLU kernels (RAF's graph)"), ("bn_relu", "conv, BN+ReLU kernels"),
                             ("fused", "conv+ReLU kernels (IOS's)")):
        t = raf_row(device, mode, params, activation)
        seq = t["sequential"]
        best = min(RAF_POLICIES, key=t.__getitem__)
        cells = " ".join(f"{k} {seq / t[k]:.2f}" for k in RAF_POLICIES)
        print(f"  {what:<37} seq {seq:6.3f} ms  {cells}  best {best} {seq / t[best]:.2f} "
              f"err {raf_error(seq / t[best]):+.0%}")


def sweep(device: str, mode: str, params: list[str], key: str, values: list[str]) -> None:
    """Sensitivity of the task-list schedules' speed-ups to one parameter:
    sequential ms, Sequential/Greedy, Sequential/best IOS-space schedule and
    Sequential/best event schedule per network for every value, then RAF's
    row (:func:`raf_row`: sequential ms, best policy and its speed-up; a
    ``raf_op_us`` / ``raf_event_us`` sweep prints only that row)."""
    print(f"sensitivity to {key} ({mode} mode): seq ms, seq/greedy, seq/IOS-space best, seq/events best per "
          "network; IOS measured: " + ", ".join(f"{n} {p['sequential']:.2f} {p['sequential'] / p['greedy']:.2f} "
                                               f"{p['sequential'] / p['ios_parallel']:.2f}"
                                               for n, p in PUBLISHED.items())
          + f"; RAF measured {RAF_MEASURED[0]}-{RAF_MEASURED[1]}")
    for value in values:
        t = raf_row(device, mode, [*params, f"{key}={value}"])
        best = min(RAF_POLICIES, key=t.__getitem__)
        raf = f"; RAF inception_v3 {t['sequential']:.2f} {best} {t['sequential'] / t[best]:.2f}"
        if key.startswith("raf_"):  # RAF's own costs move nothing else
            print(f"  {key}={value}: " + " ".join(f"{k} {t['sequential'] / t[k]:.2f}" for k in RAF_POLICIES)
                  + raf, flush=True)
            continue
        rows = calibrate(device, mode, [*params, f"{key}={value}"], passes=False)
        cells = []
        for row in rows:
            t: dict[str, float] = row["times"]  # type: ignore[assignment]
            seq = t["sequential"]
            cells.append(f"{row['net']} {seq:.2f} {seq / t['greedy']:.2f} {seq / t[row['ios']]:.2f} "  # type: ignore[index]
                         f"{seq / t[row['events']]:.2f}")  # type: ignore[index]
        print(f"  {key}={value}: " + "; ".join(cells) + raf, flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="V100")
    p.add_argument("--mode", choices=("sink", "host", "both"), default="host",
                   help="host (default; how IOS and RAF ran: one host thread launching every kernel, record and "
                        "wait onto CUDA streams): every task launched at host_launch_us apiece; sink: every task "
                        "on the device up front")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--no-sharing", action="store_true", help="also run without bandwidth sharing (share_dram off)")
    p.add_argument("--no-passes", action="store_true", help="skip geir's partition-streams strategies")
    p.add_argument("--max-streams", type=int, default=64, help="max-streams of the partition-streams strategies")
    p.add_argument("--sweep", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="instead of the table: the task-list speed-ups for every value of a device parameter")
    args = p.parse_args()
    modes = ("sink", "host") if args.mode == "both" else (args.mode,)
    if args.sweep:
        for spec in args.sweep:
            key, _, values = spec.partition("=")
            for mode in modes:
                sweep(args.device, mode, args.device_param, key, values.split(","))
        return 0
    kw = {"passes": not args.no_passes, "max_streams": args.max_streams}
    print(f"IOS calibration on {args.device}; published: IOS README (V100, batch 1); err = emulated / published - 1")
    for mode in modes:
        _print(calibrate(args.device, mode, args.device_param, **kw), f"{mode} mode, DRAM bandwidth shared (fluid model):")
        if args.no_sharing:
            _print(calibrate(args.device, mode, args.device_param, share=False, **kw),
                   f"{mode} mode, bandwidth not shared (every kernel at its duration alone):")
        print_raf(args.device, mode, args.device_param)
    return 0


if __name__ == "__main__":
    sys.exit(main())
