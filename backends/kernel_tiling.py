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
  does. On a core whose L0C holds 256 KiB and which writes its results
  through UB (the 310P) MatMul's blocks are the ones MatMulV3 takes for that
  core instead: 256 x 256 for a large matrix; for a small one (fewer such
  blocks than cores, or under 256 rows or columns) ``FormulaicBaseBlockTiling``
  — M spread over the cores N's blocks leave, the candidate whose busiest core
  loads the fewest rows and columns, a balanced base where K and N need a
  layout conversion; for a batch of small matrices BatchMatMulV3's
  ``TuneBaseMN`` (even passes over M and N within L0A/L0B and L0C) — and no
  split-K (that core's tiling selects only its L2 tiling). Blocks run in
  waves over the cores, so ``imbalance`` is the last wave's idle share:
  ``ceil(blocks / units) * units / blocks``. A block's
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
over M x N with ``baseM = min(baseM, M)``, the split-K conditions; for a 256 KiB
L0C without ``supportL0c2out``: ``SetBaseBlockTiling``, ``DoSmallShapeTiling``,
``CalcBase``, ``CalBaseMBaseN``, ``BalanceBaseBlockTiling`` and the BASE tiling
select),
``matmul/batch_mat_mul_v3/op_host/op_tiling/batch_mat_mul_v3_base_tiling.cpp``
(``MergeBatchAndMAxis``: the batch folded into M when B has none and A is not
transposed; ``TuneBaseMKN``, ``TuneBaseMN`` and ``CalcBaseMN``: a batch of small
matrices) and ``conv/conv3d_v2/op_host/op_tiling/
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
           "BASE_BLOCKS", "L0C_256_KIB", "matmul_v3_base_block", "batch_matmul_v3_base_block"]

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
#: the L0C size of a core whose MatMul tiling takes 256 x 256 base blocks and has no
#: L0C-to-memory path (Ascend 310P, 910A: ``L0C_SIZE_256_KB``, ``supportL0c2out`` false)
L0C_256_KIB = 262144
#: the base blocks MatMulV3 weighs for a small matrix on a 256 KiB L0C
#: (``CALC_MN_BASIC_L0C_256``: base M = base N, largest last)
_SMALL_BASES_L0C_256 = (16, 32, 64, 128, 256)
#: MatMulV3 calls a matrix small below this many rows or columns (``SMALL_SHAPE_THRES``)
_SMALL_SHAPE = 256


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
                  a_reuse: float = 1.0, fixed_blocks: bool = False, l0c_bytes: int = 0,
                  trans_a: bool = False, trans_b: bool = False, element_bytes: int = 2) -> Tiling:
    """Block dim, padded FLOPs and imbalance of a ``batch`` x (M x K @ K x N) product on
    ``cores``; base blocks are no smaller than ``min_block`` on either side. With ``feed``,
    a block whose operands take longer to load into L1 than the cube takes to multiply
    them costs the load time (``work`` grows by that factor); ``a_reuse`` is how many
    times each byte of the left operand is used once loaded (a convolution's window).
    With ``fixed_blocks`` (MatMul's tiling: one base block size for the whole matrix,
    the remainder of M or N in a tail block) a tail block runs beside full ones and
    takes as long, so M and N count in whole base blocks once they span more than one.
    On a core with a 256 KiB L0C (``l0c_bytes``) the base block is MatMulV3's for that
    core (:func:`matmul_v3_base_block`, :func:`batch_matmul_v3_base_block`, with the
    operands' ``trans_a``, ``trans_b`` and ``element_bytes``), and idle cores stay idle:
    that tiling has no split-K."""
    batch, m, n, k = max(1, batch), max(1, m), max(1, n), max(1, k)
    pm, pn, pk = _ceil_to(m, align), _ceil_to(n, align), _ceil_to(k, k_align)
    work = 2.0 * batch * pm * pn * pk
    if l0c_bytes == L0C_256_KIB:
        bm, bn = (matmul_v3_base_block(m, n, k, cores, trans_a, trans_b, element_bytes) if batch == 1 else
                  batch_matmul_v3_base_block(batch, m, n, k, cores, trans_a, trans_b, element_bytes))
        bm, bn = _ceil_to(bm, align), _ceil_to(bn, align)
        blocks = batch * _ceil_div(pm, bm) * _ceil_div(pn, bn)
    else:
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
    if l0c_bytes == L0C_256_KIB:
        return Tiling(blocks, work, 1.0, blocks)  # that tiling leaves the idle cores idle
    # Idle cores: split K when each share stays deep enough.
    split = min(cores // blocks, max(1, pk // MIN_SPLIT_K))
    units = blocks * split
    # each core's share of a split block is a block of its own
    return Tiling(max(1, units), work, 1.0, max(1, units))


def _floor_to(x: int, m: int) -> int:
    return x // m * m


def _last_power_of_two(x: int) -> int:
    return 1 << (max(1, x).bit_length() - 1)


def _next_power_of_two(x: int) -> int:
    p = _last_power_of_two(x)
    return p if p == x else p * 2


def _aligned_256_bytes(x: int, element_bytes: int) -> bool:
    return x * element_bytes % 256 == 0


def _base_over_cores(count: int, cores: int, size: int, max_base: int) -> int:
    """``CalBaseSize``: the base that spreads ``size`` over the cores ``count`` blocks of
    the other side leave, 16-aligned and at most ``max_base``."""
    share = max(cores // count, 1) if count else 1
    return min(_ceil_to(max(size // share, 1), FRACTAL), max_base)


def _base_m_and_n(m: int, n: int, cores: int, bm: int, bn: int, max_m: int = 128,
                  max_n: int = 256) -> tuple[int, int]:
    """``CalBaseMBaseN``: the side with fewer blocks keeps its base, the other spreads
    over the cores left; both end 16-aligned within the matrix."""
    m_blocks, n_blocks = _ceil_div(m, max_m), _ceil_div(n, max_n)
    if m_blocks < n_blocks:
        bn = _base_over_cores(m_blocks, cores, n, max_n)
    else:
        bm = _base_over_cores(n_blocks, cores, m, max_m)
    return _ceil_to(min(m, bm), FRACTAL), _ceil_to(min(n, bn), FRACTAL)


def _least_load_base(m: int, n: int, cores: int, by_rows: bool) -> tuple[int, int]:
    """``CalcBase``: of MatMulV3's candidate bases, the one whose busiest core loads the
    fewest rows and columns (``by_rows``: base N fixed, base M spread over the cores,
    ``M_BY_BASE_NK``; else both adjusted, ``MN_BY_BASE_K``)."""
    best, least = (_SMALL_BASES_L0C_256[0],) * 2, None
    for base in _SMALL_BASES_L0C_256:
        if by_rows:
            bm, bn = _base_over_cores(_ceil_div(n, base), cores, m, base), base
        else:
            bm, bn = _base_m_and_n(m, n, cores, base, base, base, base)
        blocks = _ceil_div(m, bm) * _ceil_div(n, bn)
        load = (bm + bn) * (blocks // cores) + ((bm + bn) if blocks % cores else 0)
        if least is None or load < least:
            best, least = (bm, bn), load
    return best


def _balanced_base(m: int, n: int, cores: int) -> tuple[int, int]:
    """``BalanceBaseBlockTiling`` on a 256 KiB L0C: for operands that need a layout
    conversion, M in bases of 256 and N spread over the cores the M blocks leave."""
    bm = bn = 256
    if m >= 256:
        bn = min(_ceil_to(_ceil_div(n, max(cores // _ceil_div(m, 256), 1)), FRACTAL), 256)
    else:
        bm = _ceil_to(m, FRACTAL)
        bn = max(_ceil_to(max(n // cores, 1), FRACTAL), 256 if m >= 64 else 1024)
        bn = min(bn, _floor_to(L0C_256_KIB // (4 * bm), FRACTAL))  # fp32 accumulators fill L0C
        tail = _ceil_div(n, 256) % cores if bn > 256 else 0
        if _ceil_div(n, bn) % cores < tail:
            bn = 256
    return (bm, bn) if bm > 0 and bn > 0 and bm % FRACTAL == 0 and bn % FRACTAL == 0 else (256, 256)


def matmul_v3_base_block(m: int, n: int, k: int, cores: int, trans_a: bool = False, trans_b: bool = False,
                         element_bytes: int = 2) -> tuple[int, int]:
    """MatMulV3's base block (M, N) for one M x K @ K x N matrix on ``cores`` cores whose
    L0C holds 256 KiB and which write their results through UB (Ascend 310P):
    ``SetBaseBlockTiling`` starts from 256 x 256; a matrix of fewer 256 x 256 blocks than
    cores, or under 256 rows or columns, takes ``FormulaicBaseBlockTiling``'s base for its
    transposes and 256-byte alignments; the base never exceeds the matrix."""
    bm = bn = 256
    blocks = _ceil_div(m, 256) * _ceil_div(n, 256)
    if blocks < cores or m < _SMALL_SHAPE or n < _SMALL_SHAPE:
        m_aligned = _aligned_256_bytes(m, element_bytes)
        k_aligned = _aligned_256_bytes(k, element_bytes)
        n_aligned = _aligned_256_bytes(n, element_bytes)
        m_blocks, n_blocks = _ceil_div(m, bm), _ceil_div(n, bn)
        if not trans_a and not trans_b:
            bm, bn = _least_load_base(m, n, cores, by_rows=True)
            if not k_aligned and not n_aligned:
                bm, bn = _balanced_base(m, n, cores)
            elif not k_aligned:
                bm, bn = _base_over_cores(n_blocks, cores, m, 256), 256
            elif not n_aligned:
                bm, bn = _base_m_and_n(m, n, cores, bm, bn)
        elif trans_a and not trans_b:
            if not m_aligned and not n_aligned:
                bm, bn = _balanced_base(m, n, cores)
            elif not m_aligned:
                bm = _base_over_cores(n_blocks, cores, m, 256)
            elif not n_aligned:
                bn = _base_over_cores(m_blocks, cores, n, 256)
        elif trans_b and not trans_a:
            bm, bn = _least_load_base(m, n, cores, by_rows=False)
            if not k_aligned:
                bm, bn = _balanced_base(m, n, cores)
        else:
            bn = _base_over_cores(m_blocks, cores, n, 256)
            if not m_aligned and k_aligned:
                bm, bn = _balanced_base(m, n, cores)
            elif not m_aligned:
                bm, bn = _base_m_and_n(m, n, cores, bm, bn)
        bn = min(bn, 256)  # an ND result of more than 256 columns converts slowly
    return min(bm, m), min(bn, n)


def _least_padded_power(size: int, largest: int, least: int) -> int:
    """The power-of-two base from ``size``'s next power of two (at most ``largest``, at
    least 16) halving down to ``least`` that pads ``size`` least, stopping at one that
    divides it (``CalcBaseMN``'s search over M and over N)."""
    base = best = max(min(_next_power_of_two(size), largest), FRACTAL)
    while base >= least and size % base:
        if _ceil_to(size, base) < _ceil_to(size, best):
            best = base
        base >>= 1
    return best


def _even_base(m: int, n: int, k: int, trans_a: bool, trans_b: bool, element_bytes: int,
               divisor: int) -> tuple[int, int]:
    """``CalcBaseMN``: the base (M, N) that cuts M and N into even passes, within L0A/L0B
    (2 KiB of a row, halved by ``divisor``) and L0C (base M x base N <= 32768)."""
    if not trans_a:
        max_m = (1024 if k >= 32 else 2048) // (element_bytes * divisor)
        bm = _ceil_to(_ceil_div(m, _ceil_div(m, max_m)), FRACTAL)
    else:
        bm = _least_padded_power(m, 2048 // element_bytes // divisor, max(32768 // element_bytes // min(n, 512), 32))
    least = max(min(32768 // element_bytes // bm, 512 // element_bytes), 32)
    max_n = (1024 if trans_b and k >= 32 else 2048) // element_bytes // divisor
    return bm, min(_last_power_of_two(32768 // bm), _least_padded_power(n, max_n, least))


def batch_matmul_v3_base_block(batch: int, m: int, n: int, k: int, cores: int, trans_a: bool = False,
                               trans_b: bool = False, element_bytes: int = 2) -> tuple[int, int]:
    """BatchMatMulV3's base block for ``batch`` M x K @ K x N matrices on a 256 KiB L0C:
    MatMulV3's for one matrix, re-tuned (``TuneBaseMN``) when a matrix is small or its
    base is not a full 128/256 block — even passes over M and N, the half-size start
    taken when it fills the cores better (the batch's blocks below 60% of whole waves)
    or copies less per product."""
    bm, bn = matmul_v3_base_block(m, n, k, cores, trans_a, trans_b, element_bytes)
    if m >= _SMALL_SHAPE and n > _SMALL_SHAPE and bm in (128, 256) and bn in (128, 256):
        return bm, bn
    full = _even_base(m, n, k, trans_a, trans_b, element_bytes, 1)
    half = _even_base(m, n, k, trans_a, trans_b, element_bytes, 2)

    def used(base: tuple[int, int]) -> float:
        blocks = _ceil_div(m, base[0]) * _ceil_div(n, base[1]) * batch
        return blocks / _ceil_to(blocks, cores)

    if used(full) < 0.6 and used(half) > used(full):
        return half
    return half if 1 / half[0] + 1 / half[1] < 1 / full[0] + 1 / full[1] else full


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
