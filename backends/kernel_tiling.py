"""How a kernel's tiling spreads its work over the cores: the block dim a
kernel of each op class gets, the work the cores really do once operands are
padded to the cube's fractals, and how evenly the blocks fill the cores.

This follows what CANN's op tilings decide, not a per-network factor:

* **Cube ops** (matmul, gemm, batch matmul, conv). The cube multiplies
  16 x 16 x 16 fractals (``DtypeMKN``: fp16 16 x 16 x 16, int8 16 x 32 x 16), so
  M, N and K are padded to the fractal; a convolution is an img2col GEMM with
  M = Ho x Wo, K = C1 x kh x kw x C0 and N = Cout, its channels padded to
  ``C0 = 16`` (a first layer with three input channels does the work of
  sixteen). Grouped convolutions whose groups are narrower than C0 are merged
  the way CANN's conv tiling enlarges groups (``enlarge = min(lcm(Cin_g, C0) /
  Cin_g, lcm(Cout_g, 16) / Cout_g, groups)``), so a depthwise convolution
  does 16 times its useful MACs. The output is cut into base blocks of
  ``base_m x base_n`` (MatMul's tiling picks the largest base block that still
  gives every core a block, down to one 16 x 16 fractal), over batch x M x N;
  MatMul keeps that size for the whole matrix, so a tail block of M or N takes
  a full block's time beside the full ones, and a batch of rows times one
  weight matrix is one M (batch folded into M, unless A is transposed);
  when M x N leaves cores idle and K is deep (GEMV: a fully connected layer at
  batch 1) K is split over the idle cores, as MatMul's multi-core split-K
  does. Blocks run in waves over the cores, so ``imbalance`` is the last
  wave's idle share: ``ceil(blocks / units) * units / blocks``. A block's
  operands stream into L1 from L2 at the core's fill rate (the platform
  config's ``l2_read_rate``; a convolution's feature map once per window, as
  load3d expands it in L1; a right-hand panel that fits in half of L1 once,
  MatMul's full load): a block that loads longer than it multiplies costs the
  load time. After its multiplications a block's accumulators leave L0C
  through UB (the platform config's ``l0_c_to_ub_rate`` and ``ub_to_l2_rate``,
  not overlapped with the next block: an assumption the measured rows favour)
  and each block pays a fixed cost, so thin blocks (a depthwise convolution's
  16 merged channels, a 1 x 1 convolution over few channels) run further
  from the cube's peak than deep ones. A core runs its blocks in ``rounds``,
  double-buffered: each block's operands load while the previous block
  multiplies, so the cost model overlaps loads and multiplications in all
  but one round (see :mod:`geir.backends.cost_model`).
* **Vector ops** (elementwise, reductions, normalisation, data movement,
  pooling). Elementwise tilings give each core at least a minimum chunk of
  bytes (``vector_min_bytes_per_core``) and use every core above that; a
  reduction (global pooling too) also splits its output rows, never a row, so
  it takes at most one core per output element.

Sources: ``hicann/ops-nn`` ``matmul/mat_mul_v3/op_host/op_tiling/
matmul_v3_base_tiling.cpp`` (all cube cores launched, base blocks of 128 or 256
over M x N with ``baseM = min(baseM, M)``, the split-K conditions),
``matmul/batch_mat_mul_v3/op_host/op_tiling/batch_mat_mul_v3_base_tiling.cpp``
(``MergeBatchAndMAxis``: the batch folded into M when B has none and A is not
transposed) and ``conv/conv3d_v2/op_host/op_tiling/
conv3d_tiling_engine.cpp`` (C0 padding, the batch x Cout x HoWo split),
``hicann/catlass`` block scheduling (one base block per core in turn). The
910B/310P Conv2D is a TBE op whose tiling is not public: the grouped-conv
enlargement above is TBE's documented group merging, and the vector tilings'
minimum chunk is an assumption of the profile. The device numbers come from
the profile.
"""

from __future__ import annotations

from math import gcd
from typing import NamedTuple

__all__ = ["Tiling", "CubeFeed", "matmul_tiling", "conv_tiling", "vector_tiling", "rows_tiling", "FRACTAL", "C0",
           "BASE_BLOCKS"]

#: edge of the cube's fractal (M and N of DtypeMKN; K too for 16-bit types)
FRACTAL = 16
#: channels per C0 block of the 5-D NC1HWC0 layout for 16-bit types
C0 = 16
#: MatMul's base blocks (base_m, base_n), largest first: a 128 x 256 fp16 block
#: fills half of L0C (128 KiB on 910B) in fp32 accumulators; smaller ones are
#: taken when the larger leave cores without a block
BASE_BLOCKS: tuple[tuple[int, int], ...] = ((128, 256), (256, 128), (128, 128), (64, 128), (64, 64), (32, 64),
                                            (16, 64), (16, 32), (16, 16))
#: a split-K share keeps at least this many K elements (fewer lose to the
#: split's accumulation pass, as MatMul's tiling argues)
MIN_SPLIT_K = 1024


class Tiling(NamedTuple):
    """What a kernel's tiling decides: ``units`` cores, ``work`` in FLOPs after
    padding (cube) or the kernel's own FLOPs (vector), the ``imbalance``
    factor (>= 1) of blocks running in uneven waves, and the base ``blocks`` the
    cores share (0: the kernel is not cut into blocks)."""

    units: int
    work: float
    imbalance: float
    blocks: int = 0

    @property
    def rounds(self) -> int:
        """Base blocks each core runs one after another (their loads overlap the previous
        block's multiplications, so the first load and the last block's work do not)."""
        return max(1, -(-self.blocks // self.units))


def _ceil_to(x: int, m: int) -> int:
    return -(-x // m) * m


def _ceil_div(x: int, m: int) -> int:
    return -(-x // m)


def _waves(blocks: int, units: int) -> float:
    return _ceil_div(blocks, units) * units / blocks


def matmul_tiling(batch: int, m: int, n: int, k: int, cores: int, align: int = FRACTAL,
                  k_align: int = FRACTAL, min_block: int = FRACTAL, feed: "CubeFeed | None" = None,
                  a_reuse: float = 1.0, fixed_blocks: bool = False) -> Tiling:
    """Block dim, padded FLOPs and imbalance of a ``batch`` x (M x K @ K x N) product on
    ``cores``; base blocks are no smaller than ``min_block`` on either side. With ``feed``,
    a block whose operands take longer to load into L1 than the cube takes to multiply
    them costs the load time (``work`` grows by that factor); ``a_reuse`` is how many
    times each byte of the left operand is used once loaded (a convolution's window).
    With ``fixed_blocks`` (MatMul's tiling: one base block size for the whole matrix,
    the remainder of M or N in a tail block) a tail block runs beside full ones and
    takes as long, so M and N count in whole base blocks once they span more than one."""
    batch, m, n, k = max(1, batch), max(1, m), max(1, n), max(1, k)
    pm, pn, pk = _ceil_to(m, align), _ceil_to(n, align), _ceil_to(k, k_align)
    work = 2.0 * batch * pm * pn * pk
    blocks = 0
    bm = bn = min_block
    for bm, bn in BASE_BLOCKS:
        if bm < min_block or bn < min_block:
            bm = bn = min_block
            break
        blocks = batch * _ceil_div(pm, bm) * _ceil_div(pn, bn)
        if blocks >= cores:
            break
    if blocks == 0:
        blocks = batch * _ceil_div(pm, min_block) * _ceil_div(pn, min_block)
    if fixed_blocks:
        work *= (_ceil_to(pm, bm) / pm if pm > bm else 1.0) * (_ceil_to(pn, bn) / pn if pn > bn else 1.0)
    if feed is not None:
        work *= feed.slowdown(min(bm, pm), min(bn, pn), pk, a_reuse)
    if blocks >= cores:
        return Tiling(cores, work, _waves(blocks, cores), blocks)
    # Idle cores: split K when each share stays deep enough.
    split = min(cores // blocks, max(1, pk // MIN_SPLIT_K))
    units = blocks * split
    # each core's share of a split block is a block of its own
    return Tiling(max(1, units), work, 1.0, max(1, units))


class CubeFeed(NamedTuple):
    """How fast a core's cube is fed: the FLOPs it multiplies per cycle and the bytes
    per cycle its L1 is filled from L2 (the platform config's ``l2_rate``)."""

    #: the FLOPs per cycle the cube sustains on this kernel (its peak times the op
    #: class's efficiency): the rate the kernel's work is divided by, so loads and
    #: drains are weighed against the multiplications as they really run
    flops_per_cycle: float
    fill_bytes_per_cycle: float
    #: L1's size: a right-hand panel that fits in half of it stays loaded (MatMul's
    #: "full load" of B), so only the left panels stream
    l1_bytes: int = 1 << 20
    #: bytes per operand element
    element_bytes: int = 2
    #: cycles per output element a base block spends after its multiplications
    #: moving its accumulators out of L0C and writing them back
    drain_cycles_per_element: float = 0.0
    #: fixed cycles of each base block (pipeline start and barriers)
    block_overhead_cycles: float = 0.0

    def slowdown(self, bm: int, bn: int, k: int, a_reuse: float = 1.0) -> float:
        """How much longer than its multiplications a ``bm x bn`` base block over depth
        ``k`` takes when its operand panels stream into L1 once per block (``bm x k`` of
        A, each byte used ``a_reuse`` times once loaded; ``k x bn`` of B unless it stays
        in L1), its ``bm x bn`` result drains out of L0C after the multiplications, and
        the block pays its fixed cost: >= 1."""
        mmad = 2.0 * bm * bn * k / self.flops_per_cycle
        b_panel = self.element_bytes * k * bn
        streamed = self.element_bytes * k * bm / max(1.0, a_reuse) + (b_panel if 2 * b_panel > self.l1_bytes else 0)
        fill = streamed / self.fill_bytes_per_cycle
        drain = self.drain_cycles_per_element * bm * bn
        return (max(mmad, fill) + drain + self.block_overhead_cycles) / mmad


def conv_tiling(n: int, cin: int, cout: int, out_spatial: int, window: int, groups: int, cores: int,
                c0: int = C0, align: int = FRACTAL, min_block: int = FRACTAL, feed: CubeFeed | None = None,
                in_spatial: int = 0) -> Tiling:
    """Block dim, padded FLOPs and imbalance of an N x Cin -> Cout convolution with
    ``out_spatial`` output pixels per image (``in_spatial`` input pixels) and a ``window``
    of kh x kw, as an img2col GEMM: the feature map is loaded into L1 once and expanded
    there (load3d), so each input byte serves ``window / stride^2`` rows of the GEMM."""
    groups = max(1, groups)
    cin_g, cout_g = max(1, cin // groups), max(1, cout // groups)
    enlarge = 1
    if groups > 1:
        enlarge = min(_lcm(cin_g, c0) // cin_g, _lcm(cout_g, align) // cout_g, groups)
    merged_groups = _ceil_div(groups, enlarge)
    k = _ceil_to(cin_g * enlarge, c0) * window
    cols = cout_g * enlarge
    reuse = window * out_spatial / in_spatial if in_spatial > 0 else 1.0
    return matmul_tiling(n * merged_groups, out_spatial, cols, k, cores, align, align, min_block, feed,
                         max(1.0, reuse))


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


def vector_tiling(nbytes: float, flops: float, cores: int, min_bytes_per_core: int) -> Tiling:
    """Block dim of an elementwise-like kernel moving ``nbytes``: every core above the minimum chunk."""
    chunks = int(nbytes // max(1, min_bytes_per_core))
    units = max(1, min(cores, chunks))
    return Tiling(units, flops, 1.0)


def rows_tiling(rows: int, flops: float, cores: int) -> Tiling:
    """Block dim of a kernel whose ``rows`` are independent (a reduction's output
    elements): rows over cores, never a row split, in waves."""
    rows = max(1, rows)
    units = max(1, min(cores, rows))
    return Tiling(units, flops, _waves(rows, units))
