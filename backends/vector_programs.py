"""What a 910B's vector kernels issue per element, and the cycles it costs.

A vector kernel's compute is the sequence of vector instructions its CANN
implementation issues for each element, each at its own rate. The rates are
Huawei's: the linear cycle models ``cycles = k x elements + b`` of the Ascend C
vector APIs on the 910B's vector cores (hicann/ge
``compiler/graph/optimize/autofuse/att/gen_model_info/api_perf_register/v1/perf_param_v1.cpp``,
the non-regbase table the graph compiler's auto-fusion plans with). A
transcendental function is not four adds: an Exp costs 1.5 Adds, a Div 2.2, and
an f16 Exp or Div no less than an f32 one.

The sequences (:data:`PROGRAMS`) follow the kernels the 910B runs: the TBE
implementations CANN 8.1 ships for it (``opp/built-in/op_impl/ai_core/tbe/impl/dynamic``:
``exp.py``, ``sigmoid.py``, ``gelu.py``, ``mish.py``, ``softmax_v2.py``,
``maximum.py``, in the impl mode their binaries default to on the 910B) and
hicann/ops-nn's Ascend C ``norm/rms_norm``. The 910B's vector unit has no bf16
arithmetic, nor 8-bit maximum: those compute in f32 (f16) between casts. A
kernel's fixed cost adds its pipelines' heads, from the same table: the op's
head, the first load's (larger from 25,000 bytes up and with more cores), the
last store's and the vector pipe's. Every instruction also pays its fixed cycles
(``b``) once a UB tile: an elementwise kernel's tile is the UB shared among the
tensors TBE's elementwise schedule keeps alive at once (:func:`elewise_tiles`).

An op without a sequence here counts one Add per FLOP of its cost hint, in the
width it computes in. A transpose that moves the last axis runs TBE's Transpose,
which keeps one buffer (``transpose.py``: no ``thread_num``): each tile's load and
store follow one another at the same table's per-core transfer rates
(:func:`mte_cycles`). RmsNorm follows ops-nn's tiling (:func:`rms_norm_tiling`):
its instructions wait on one another behind pipe barriers, so each pays the
table's fixed cycles (``b``) once per row, or once per tile of merged short rows.
Not modelled: 64-bit integers (the 910B emulates them with 32-bit instructions
whose sequence is not public; counted as two 32-bit Adds per FLOP), the
reordering inside transposes (vnchwconv, absent from the table), and the scalar
unit's share of RmsNorm (a row's ``1 / sqrt`` and the vector-scalar handshakes
around it, which the table does not price).
"""

from __future__ import annotations

import functools
import math

import attrs

from geir.backends.task_list import element_bytes

__all__ = ["API_CYCLES", "API_HEAD_CYCLES", "CAST_HEADS", "ELEWISE_GRAPHS", "GAMMA_TO_F32",
           "LOAD_HEAD_CYCLES", "PROGRAMS", "RmsNormTiling", "SINGLE_BUFFERED", "STORE_HEAD_CYCLES", "TO_F32",
           "coexisting_tensors", "cycles_per_element", "elewise_graph", "elewise_tiles", "flop_cycles",
           "mte_cycles", "non_last_axis", "pipeline_head_cycles", "rms_norm_tiling", "softmax_workspace_bytes"]

#: cycles per element of each vector API on one 910B vector core, (16-bit, 32-bit):
#: the ``k`` of perf_param_v1.cpp's ``float16tofloat16`` and ``float32tofloat32`` models
API_CYCLES: dict[str, tuple[float, float]] = {
    "add": (0.0103, 0.0206),
    "sub": (0.0107, 0.0213),
    "mul": (0.0110, 0.0206),
    "adds": (0.0071, 0.0141),
    "muls": (0.0071, 0.0142),
    "max": (0.0111, 0.0215),
    "min": (0.0111, 0.0215),
    "relu": (0.0077, 0.0154),
    "abs": (0.0077, 0.0147),
    "exp": (0.0311, 0.0307),
    "div": (0.0460, 0.0454),
    "sqrt": (0.0312, 0.0313),
    "rsqrt": (0.0071, 0.0143),
    "reciprocal": (0.0078, 0.0146),
    "compare_scalar": (0.0084, 0.0160),
    "select": (0.0118, 0.0229),
    "copy": (0.0078, 0.0157),
    "whole_reduce_max": (0.0547, 0.1094),
    "whole_reduce_sum": (0.0547, 0.1094),
}
#: the table's Cast models: f16 to f32, f32 to f16, u8 to f16, f16 to u8
CAST_UP, CAST_DOWN, CAST_FROM_8, CAST_TO_8 = 0.0147, 0.0087, 0.0102, 0.0083

#: a program's marker: the 16-bit input is cast to f32 here (bf16 from the start)
TO_F32 = "to_f32"
#: a program's marker: a 16-bit operand of the same size (rms_norm's gamma) is cast to f32
#: here; nothing for 32-bit inputs
GAMMA_TO_F32 = "gamma_to_f32"

#: per op, the vector APIs one element passes through, in order
PROGRAMS: dict[str, tuple[str, ...]] = {
    # exp.py: vexp in f16 (high_performance, the 910B binary's default)
    "exp": ("exp",),
    # sigmoid.py, high_precision on the 910B: 1 / (1 + exp(-x)) in f32, vdiv (the 910B keeps inf/nan)
    "sigmoid": (TO_F32, "muls", "exp", "adds", "div"),
    # gelu.py gelu_compute_v2 (no vtanh on the 910B): x / (1 + exp(-1.5958 (x + 0.044715 x^3))) in f32
    "gelu": (TO_F32, "mul", "mul", "muls", "add", "muls", "exp", "adds", "div"),
    # mish.py, high_performance: x tanh(softplus x) by exps on both signs of x, selected
    "mish": (TO_F32, "compare_scalar", "muls", "muls", "exp", "exp", "muls", "muls", "adds", "add", "adds", "div",
             "select", "compare_scalar", "muls", "exp", "muls", "exp", "add", "adds", "div", "select", "add", "mul"),
    # softmax_v2.py: max and subtract in the input's type, then exp, sum and divide in f32,
    # the max and the sum broadcast back along the row
    "softmax": ("whole_reduce_max", "sub", TO_F32, "exp", "whole_reduce_sum", "div", "copy", "copy"),
    # over an axis other than the last, the reductions are elementwise max and add across
    # the reduced rows (the norm schedule's dichotomy reduce), not reductions along a row
    "softmax_non_last": ("max", "sub", TO_F32, "exp", "add", "div", "copy", "copy"),
    # ops-nn rms_norm, MERGE_N (several short rows a tile): x^2, its sum, rstd broadcast
    # along each row, x * rstd * gamma, in f32
    "rms_normalization": (TO_F32, "mul", "add", "copy", "mul", "mul"),
    # ops-nn rms_norm, NORMAL and SPLIT_D (a row, or a slice of one, at a time): x^2, its
    # sum, x times the scalar rstd, gamma cast to f32 with every row, times gamma
    "rms_normalization_row": (TO_F32, "mul", "add", "muls", GAMMA_TO_F32, "mul"),
    # maximum.py and the arithmetic ops: one instruction
    "max": ("max",),
    "min": ("min",),
    "add": ("add",),
    "sub": ("sub",),
    "mul": ("mul",),
    "div": ("div",),
    "relu": ("relu",),
    "abs": ("abs",),
    "sqrt": ("sqrt",),
    "reciprocal": ("reciprocal",),
}

#: ops whose 910B kernels load, compute and store one tile after another on one buffer:
#: ops-nn rms_norm (``BUFFER_NUM = 1``) and the TBE norm schedule's binaries (softmax_v2's
#: tiling key sets no double buffer)
SINGLE_BUFFERED = frozenset({"softmax", "softmax_non_last", "rms_normalization", "rms_normalization_row"})

_SIXTEEN = frozenset({"f16", "bf16"})
_EIGHT = frozenset({"i8", "ui8"})


def _width(dtype: str) -> int:
    """0 for the 16-bit column of :data:`API_CYCLES`, 1 for the 32-bit one."""
    return 0 if dtype in ("f16", "i16", "ui16") else 1


def cycles_per_element(op: str, dtype: str, inputs_per_output: float = 1.0) -> float | None:
    """Cycles per output element of ``op`` on elements of ``dtype`` (None: no program;
    see :func:`flop_cycles`). ``inputs_per_output`` is the input elements read per
    output element, each cast on the way in when the op computes in a wider type."""
    program = PROGRAMS.get(op)
    if program is None or dtype in ("i64", "ui64", "f64"):
        return None
    if dtype in _EIGHT:
        # no 8-bit arithmetic: through f16 and back
        if TO_F32 in program:
            return None
        return inputs_per_output * CAST_FROM_8 + sum(API_CYCLES[a][0] for a in program) + CAST_TO_8
    wide = _width(dtype) if dtype != "bf16" else 1
    cycles = 0.0
    cast = dtype == "bf16"
    if cast:
        cycles += inputs_per_output * CAST_UP
    for api in program:
        if api == GAMMA_TO_F32:
            if dtype in _SIXTEEN:
                cycles += CAST_UP
            continue
        if api == TO_F32:
            if dtype == "f16":
                cycles += CAST_UP
                cast = True
            wide = 1
            continue
        cycles += API_CYCLES[api][wide]
    if cast:
        cycles += CAST_DOWN
    return cycles


def flop_cycles(dtype: str) -> float:
    """Cycles one FLOP of a cost hint costs, counted as one Add in ``dtype``'s width."""
    add = API_CYCLES["add"]
    if dtype in _SIXTEEN or dtype in _EIGHT:
        return add[0]
    if dtype in ("i64", "ui64", "f64"):
        return 2.0 * add[1]
    return add[1]


def pipeline_head_cycles(units: int, largest_load_bytes: float) -> float:
    """A vector kernel's pipeline heads on ``units`` cores whose largest load is
    ``largest_load_bytes`` per core: the op's, the first load's, the last store's and
    the vector pipe's (perf_param_v1.cpp ``GetMTE2PipeHead``, ``kMte3PipeHeadcost``,
    ``kVecheadcost``, ``GetOpHeadCost``)."""
    if largest_load_bytes >= 25000:
        load = 32.72 * units + 1575.03
    else:
        load = 15.89 * units + 882.09
    return 300.0 + load + 497.36 + 37.37


def mte_cycles(units: int, load_bytes: float, store_bytes: float) -> float:
    """Cycles one of ``units`` cores takes to load ``load_bytes`` from global memory
    into UB and then store ``store_bytes`` back, one after the other: perf_param_v1.cpp's
    ``Load`` (``LoadSmallBlk`` under 25,000 bytes a load) and ``Store`` models, each
    ``bytes / (a + b / block_dim)`` cycles (``LoadStoreFunc`` in
    ``api_perf_utils.cpp``); a core moves about 10 bytes a cycle each way, not the 32
    of the platform config's ``ddr_rate``."""
    if load_bytes >= 25000:
        load_rate = 9.9074 + 15.8960 / units
    else:
        load_rate = 7.9052 + 7.3100 / units
    store_rate = 9.96 + 3.79 / units
    return load_bytes / load_rate + store_bytes / store_rate


#: elements of one UB tile of TBE's norm schedule: 192 KiB over about four f32 nodes
#: living at once (assumed: the compiled kernels' node count is not public)
NORM_UB_ELEMENTS = 12288


def non_last_axis(shape: tuple[int, ...], axis: int) -> int | None:
    """``axis`` of ``shape`` counted from the front when it is not the last one (a
    softmax over it reduces across rows), else None."""
    rank = len(shape)
    axis = axis + rank if axis < 0 else axis
    return axis if 0 <= axis < rank - 1 else None


def softmax_workspace_bytes(shape: tuple[int, ...], axis: int, element_bytes: int) -> float:
    """Bytes a softmax over ``axis`` of ``shape`` moves beyond reading its input and
    writing its result once. TBE's norm schedule keeps a reduction over a non-last axis
    in UB only when the reduced axis times eight 32-byte blocks of the inner axes fits
    a tile (canndev ``norm.cc``: ``reduce_align_product * nlast_common_product >
    common_max_ub_count``); otherwise it runs in workspace mode: the input is read a
    second time, and the f32 exponentials are written to global memory and read twice."""
    reduced = non_last_axis(shape, axis)
    if reduced is None:
        return 0.0
    axis = reduced
    inner = 1
    for d in shape[axis + 1:]:
        inner *= d
    if shape[axis] * min(inner, 8 * 32 // element_bytes) <= NORM_UB_ELEMENTS:
        return 0.0
    elements = 1
    for d in shape:
        elements *= d
    return float(elements * (element_bytes + 3 * 4))


#: the fixed cycles ``b`` of each vector API's model in perf_param_v1.cpp, (16-bit, 32-bit);
#: ``broadcast`` is assumed to be Brcb's (Ascend C's BroadCast is not in the table)
API_HEAD_CYCLES: dict[str, tuple[float, float]] = {
    "add": (22.2173, 23.2225), "sub": (22.1226, 22.1254), "mul": (23.1243, 23.2291), "div": (29.1233, 29.0892),
    "adds": (22.0938, 22.0936), "muls": (23.1006, 23.0966), "max": (20.1200, 20.1333), "min": (20.1104, 20.1271),
    "relu": (20.0173, 20.0189), "abs": (20.0153, 20.0592), "exp": (28.0144, 28.0376), "sqrt": (29.0056, 28.9961),
    "reciprocal": (21.0076, 21.0639), "compare_scalar": (21.9204, 21.9749), "select": (45.9656, 43.9906),
    "duplicate": (16.9993, 16.9965), "whole_reduce_sum": (35.0021, 32.0029), "broadcast": (13.0572, 13.0732),
}
#: the Cast models' ``b``: f16 to f32, f32 to f16, u8 to f16, f16 to u8
CAST_HEADS = {"cast_up": 20.1204, "cast_down": 20.4393, "cast_from_8": 46.512, "cast_to_8": 19.9408}
#: the ``h`` of the table's Load and Store models: what a DataCopy in or out costs before its bytes
LOAD_HEAD_CYCLES, STORE_HEAD_CYCLES = 27.01, 12.09

#: a 910B vector core's UB (Ascend910B2.ini ``ub_size``) less the 1 KiB rms_norm's tiling keeps back
RMS_NORM_UB_BYTES = 196608 - 1024
#: elements of x a NORMAL row may hold before the tiling splits it (``UB_FACTOR_B16``, ``UB_FACTOR_B32``)
_RMS_NORM_UB_FACTOR = {2: 12288, 4: 10240}
#: a MERGE_N row's UB bytes per aligned column and per row (``numColAlignWeight``, 260)
_MERGE_N_BYTES_PER_COLUMN, _MERGE_N_BYTES_PER_ROW = 16, 260
#: elements one vector instruction repeat covers in f32, and the most repeats it takes
_REPEAT_F32, _MAX_REPEATS = 64, 255


@attrs.frozen
class RmsNormTiling:
    """How ops-nn's ``rms_norm`` tiling runs an x of ``rows`` rows of ``cols`` on a 910B.

    ``mode`` is its tiling key: ``merge_n`` (several rows a UB tile), ``normal`` (a row at
    a time) or ``split_d`` (a row too long for UB, in slices, read twice). ``units`` cores
    each take ``rows_per_core`` whole rows; ``head_cycles`` is what the busiest core's
    instructions cost before their elements (each API's fixed cycles, in dependent order
    behind pipe barriers), ``reads`` how often x comes in from global memory."""

    mode: str
    program: str
    units: int
    rows_per_core: int
    head_cycles: float
    reads: int


def _half_interval_adds(cols: int) -> int:
    """Adds ``ReduceSumHalfInterval`` issues for a row of ``cols``: the tail beyond the
    largest power of two, then halving down to one 64-element repeat."""
    if cols <= _REPEAT_F32:
        return 0
    body = 1 << (cols.bit_length() - 1)
    adds = 1 if cols > body else 0
    while body > _REPEAT_F32:
        body //= 2
        adds += 1
    return adds


def rms_norm_tiling(rows: int, cols: int, dtype: str, cores: int) -> RmsNormTiling:
    """The 910B path of hicann/ops-nn ``norm/rms_norm`` (``op_host/rms_norm_tiling.cpp``,
    ``op_kernel/rms_norm.h``, ``rms_norm_merge_n.h``, ``rms_norm_split_d.h``) for x of
    ``dtype`` with gamma of the same type: rows spread over ``cores`` (``blockFactor =
    ceil(rows / cores)``); rows whose aligned length is at most 2,000 merge into UB tiles,
    longer ones go a row at a time, and rows beyond the UB factor in slices."""
    rows, cols = max(1, rows), max(1, cols)
    size = 2 if dtype in _SIXTEEN else 4
    align = 32 // size
    col_align = -(-cols // align) * align
    per_core = -(-rows // max(1, cores))
    units = -(-rows // per_core)
    sixteen = size == 2
    up = CAST_HEADS["cast_up"] if sixteen else 0.0
    down = CAST_HEADS["cast_down"] if sixteen else 0.0
    # rms_norm computes in f32
    h = {api: heads[1] for api, heads in API_HEAD_CYCLES.items()}
    if col_align <= 2000:
        tile = max(1, RMS_NORM_UB_BYTES // (col_align * _MERGE_N_BYTES_PER_COLUMN + _MERGE_N_BYTES_PER_ROW))
        tiles = -(-per_core // tile)
        # ReduceSumMultiN: a zeroed sum, one Add per 64 columns over every row of the tile
        # (at most 255 rows an instruction), then one WholeReduceSum
        adds = -(-cols // _REPEAT_F32) * -(-min(tile, per_core) // _MAX_REPEATS)
        per_tile = (LOAD_HEAD_CYCLES + up + h["mul"] + h["duplicate"] + adds * h["add"] + h["whole_reduce_sum"]
                    + h["muls"] + h["adds"] + h["sqrt"] + h["duplicate"] + h["div"] + STORE_HEAD_CYCLES
                    + h["broadcast"] + h["mul"] + h["mul"] + down + STORE_HEAD_CYCLES)
        return RmsNormTiling("merge_n", "rms_normalization", units, per_core, tiles * per_tile, 1)
    reduce = _half_interval_adds(cols) * h["add"] + h["whole_reduce_sum"]
    if col_align <= _RMS_NORM_UB_FACTOR[size]:
        # per row: load, cast, square, reduce, scale by rstd, cast gamma, times gamma, cast, store;
        # rstd stored once per 64 rows
        per_row = (LOAD_HEAD_CYCLES + up + h["mul"] + reduce + h["muls"] + up + h["mul"] + down
                   + STORE_HEAD_CYCLES)
        stores = -(-per_core // _REPEAT_F32) * STORE_HEAD_CYCLES
        return RmsNormTiling("normal", "rms_normalization_row", units, per_core, per_core * per_row + stores, 1)
    # SPLIT_D: each slice of a row is loaded, squared and summed; then loaded again, scaled,
    # multiplied by its slice of gamma (loaded once per 64 rows) and stored
    slices = math.ceil(cols / _RMS_NORM_UB_FACTOR[size])
    sum_pass = (LOAD_HEAD_CYCLES + up + h["mul"] + _half_interval_adds(-(-cols // slices)) * h["add"]
                + h["whole_reduce_sum"])
    scale_pass = LOAD_HEAD_CYCLES + up + h["muls"] + up + h["mul"] + down + STORE_HEAD_CYCLES
    gammas = -(-per_core // _REPEAT_F32) * slices * LOAD_HEAD_CYCLES
    return RmsNormTiling("split_d", "rms_normalization_row", units, per_core,
                         per_core * slices * (sum_pass + scale_pass) + gammas, 2)


#: per op, the compute graph of the TBE kernel :data:`PROGRAMS` costs, in the type it
#: computes in: ``(node, API, inputs)`` in the order the compute function builds them,
#: ``x`` and ``y`` its inputs (``duplicate`` with no input: a constant broadcast into UB
#: once, which takes a buffer but issues nothing a tile: Sigmoid's measured times leave
#: no room for a Duplicate an element);
#: the last node is the result. Casts in and out are added by :func:`elewise_graph`.
ELEWISE_GRAPHS: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "exp": (("r", "exp", ("x",)),),
    # sigmoid.py: 1 / (1 + exp(-x)), the 1 a broadcast tensor for vdiv
    "sigmoid": (("neg", "muls", ("x",)), ("e", "exp", ("neg",)), ("s", "adds", ("e",)),
                ("one", "duplicate", ()), ("r", "div", ("one", "s"))),
    # gelu.py gelu_compute_v2: x / (1 + exp(-1.5958 (x + 0.044715 x^3)))
    "gelu": (("sq", "mul", ("x", "x")), ("cube", "mul", ("sq", "x")), ("c", "muls", ("cube",)),
             ("t", "add", ("x", "c")), ("m", "muls", ("t",)), ("e", "exp", ("m",)), ("s", "adds", ("e",)),
             ("r", "div", ("x", "s"))),
    # mish.py, high_performance: x tanh(softplus x) from exps of -x and -2x where x > 0 and
    # of x and 2x elsewhere, each selected by a bit mask
    "mish": (("gt", "compare_scalar", ("x",)), ("n1", "muls", ("x",)), ("n2", "muls", ("x",)),
             ("e1", "exp", ("n1",)), ("e2", "exp", ("n2",)), ("t1", "muls", ("e1",)), ("t2", "muls", ("e2",)),
             ("a1", "adds", ("t1",)), ("a2", "add", ("t1", "t2")), ("a3", "adds", ("a2",)),
             ("q1", "div", ("a1", "a3")), ("s1", "select", ("gt", "q1")),
             ("le", "compare_scalar", ("x",)), ("p2", "muls", ("x",)), ("f1", "exp", ("x",)),
             ("g1", "muls", ("f1",)), ("f2", "exp", ("p2",)), ("h1", "add", ("g1", "f2")), ("h2", "adds", ("h1",)),
             ("q2", "div", ("h1", "h2")), ("s2", "select", ("le", "q2")), ("tanh", "add", ("s1", "s2")),
             ("r", "mul", ("x", "tanh"))),
    **{op: (("r", op, ("x", "y")),) for op in ("max", "min", "add", "sub", "mul", "div")},
    **{op: (("r", op, ("x",)),) for op in ("relu", "abs", "sqrt", "reciprocal")},
}
#: a TBE elementwise kernel's UB (the 910B's), the block its buffers align to, and the most
#: elements a tile may hold per element size (canndev ``elewise_v3.cc`` ``SPLIT_FACTORS``)
ELEWISE_UB_BYTES, ELEWISE_BLOCK_BYTES = 196608, 32
_SPLIT_FACTORS = {1: 32767, 2: 32767, 4: 16383, 8: 8191}


def elewise_graph(op: str, dtype: str) -> dict[str, tuple[str, tuple[str, ...]]] | None:
    """``op``'s compute graph for inputs of ``dtype`` as its kernel runs it: node ->
    (API, inputs) in build order, with a cast of each input up to f32 where the kernel
    computes in f32 (bf16 always, f16 where :data:`PROGRAMS` casts) and of the result
    back, through f16 for 8-bit types; the inputs map to ``("input", ())``. None when
    the op has no graph or its type is 64-bit."""
    nodes = ELEWISE_GRAPHS.get(op)
    if nodes is None or dtype in ("i64", "ui64", "f64"):
        return None
    up = down = None
    if dtype in _EIGHT:
        up, down = "cast_from_8", "cast_to_8"
    elif dtype == "bf16" or (dtype == "f16" and TO_F32 in PROGRAMS[op]):
        up, down = "cast_up", "cast_down"
    inputs = sorted({i for _, _, ins in nodes for i in ins if i in ("x", "y")})
    graph: dict[str, tuple[str, tuple[str, ...]]] = {i: ("input", ()) for i in inputs}
    rename = {}
    if up is not None:
        for i in inputs:
            graph[f"{i}_cast"] = (up, (i,))
            rename[i] = f"{i}_cast"
    for name, api, ins in nodes:
        graph[name] = (api, tuple(rename.get(i, i) for i in ins))
    if down is not None:
        graph["result"] = (down, (nodes[-1][0],))
    return graph


def coexisting_tensors(graph: dict[str, tuple[str, tuple[str, ...]]]) -> int:
    """How many UB tensors TBE's elementwise schedule reserves room for (``elewise_schedule.py``
    ``_calc_storage_bound``): visiting the result's inputs depth first, each node needs the
    tensors still awaiting a consumer, plus its own when it cannot reuse an input's buffer
    (an input loaded from memory, or every input still needed); at least one more when the
    kernel reads two tensors or more."""
    result = next(reversed(graph))
    consumers: dict[str, set[str]] = {n: set() for n in graph}
    for n, (_, ins) in graph.items():
        for i in ins:
            consumers[i].add(n)
    live: dict[str, set[str]] = {}

    def current(n: str) -> int:
        ins = graph[n][1]
        return len(live) + (1 if not ins or set(ins) <= live.keys() else 0)

    def done(n: str) -> None:
        for i in graph[n][1]:
            if i in live:
                live[i].discard(n)
                if not live[i]:
                    del live[i]
        live.setdefault(n, set(consumers[n]))

    def visit(root: str) -> int:
        # TBE's recursion (_r_coexisting), on an explicit stack
        stack: list[tuple[str, int, int]] = [(root, 0, 0)]
        returned = 0
        while stack:
            n, k, most = stack.pop()
            most = max(most, returned)
            returned = 0
            if k == 0 and n in live:
                returned = len(live)
                continue
            ins = graph[n][1]
            if k < len(ins):
                stack.append((n, k + 1, most))
                stack.append((ins[k], 0, 0))
                continue
            most = max(most, current(n))
            done(n)
            returned = most
        return returned

    quantity = max([visit(i) for i in graph[result][1]] + [current(result)])
    if sum(1 for api, _ in graph.values() if api == "input") >= 2:
        quantity += 1
    return quantity


@functools.lru_cache(maxsize=None)
def _elewise_tile_shape(op: str, dtype: str) -> tuple[int, int, int, float] | None:
    """(elements a tile holds on one buffer, on each of two, the cap, the fixed cycles a
    tile's instructions cost) of ``op``'s kernel on ``dtype``: fixed per op and type."""
    graph = elewise_graph(op, dtype)
    if graph is None:
        return None
    # the widest type a tile holds: f32 once cast up; 8-bit types compute in f16
    widest = 4 if any(api == "cast_up" for api, _ in graph.values()) else max(2, element_bytes(dtype))
    quantity = coexisting_tensors(graph)
    single = (ELEWISE_UB_BYTES // quantity) // ELEWISE_BLOCK_BYTES * ELEWISE_BLOCK_BYTES // widest
    double = (ELEWISE_UB_BYTES // 2 // quantity) // ELEWISE_BLOCK_BYTES * ELEWISE_BLOCK_BYTES // widest
    wide = 1 if widest == 4 else 0
    heads = 0.0
    for api, ins in graph.values():
        if not ins:
            # an input, or a constant broadcast once: it takes UB but no instruction a tile
            continue
        heads += CAST_HEADS[api] if api in CAST_HEADS else API_HEAD_CYCLES[api][wide]
    return single, double, _SPLIT_FACTORS[widest], heads


def elewise_tiles(op: str, dtype: str, elements_per_core: float) -> tuple[int, float] | None:
    """(UB tiles, fixed cycles a tile's instructions cost) of ``op``'s TBE elementwise
    kernel on one core's ``elements_per_core`` elements of ``dtype``: the tile holds
    the UB over :func:`coexisting_tensors` tensors of the widest type (halved when the
    core's share needs more than one tile and the kernel double-buffers, at most
    ``SPLIT_FACTORS``; canndev ``elewise_v3.cc`` ``DoUbTiling``), and every instruction
    pays its ``b`` once a tile. None without a graph."""
    shape = _elewise_tile_shape(op, dtype)
    if shape is None:
        return None
    single, double, split, heads = shape
    limit = min(double, split) if elements_per_core > min(single, split) else min(single, split)
    return max(1, math.ceil(elements_per_core / limit)), heads
