"""The roofline cost model: how long each task of a task list takes on a device,
and how many units of which engine it occupies.

Engines are pools of identical units (:data:`POOLS`):

=============  =========================  ==================================
pool           capacity (profile key)      tasks
=============  =========================  ==================================
``AICore``     ``ai_cores``                cube kernels (conv, matmul, ...);
                                           every AICore kernel on a device
                                           without a cube/vector split
``VectorCore`` ``vector_cores``            vector kernels on a split device
                                           (910B: AIV cores), or kernels
                                           pinned to ``VectorCore``
``AICPU``      ``aicpu_cores``             AICPU kernels, one core each
``DVPP``       ``dvpp_channels``           image decode / resize, one channel
``HCCL``       ``hccl_concurrency``        collectives
``SDMA``       ``sdma_channels``           ``Memcpy`` tasks
``GE_LOCAL``   unbounded                   ops GE runs without a device task
                                           (they take no time)
=============  =========================  ==================================

Durations (microseconds):

* **AI core / vector core kernel**: ``kernel_overhead_us + max(compute, memory)``
  over the cores its tiling gives it (:mod:`geir.backends.kernel_tiling`, after
  CANN's op tilings). ``compute`` is the padded work (cube ops padded to the
  cube's fractal and C0; base blocks in waves) over ``units x`` the per-core
  rate (cube work grows where a base block's operands stream into L1 slower
  than the cube multiplies them, ``l1_fill_bytes_per_cycle``, and by each
  block's drain out of L0C and fixed cost, ``cube_drain_cycles_per_element``
  and ``cube_block_overhead_cycles``; cube ops on a
  ``small_channel`` convolution pad their channels to 4, not C0) — the cube
  rate times ``cube_efficiency`` for cube ops (``matmul_efficiency`` for the
  MatMul family; doubled for
  8-bit integer ops, the FP32 cube rate when the kernel's first output is
  ``f32``), the vector rate times ``vector_efficiency`` otherwise (halved for
  32-bit elements; an input smaller than the result, such as a Resize's f32
  scales, sets no width). Where the profile sets ``vector_api_cycles`` (the 910B), a
  vector kernel's compute is the cycles of the instructions its CANN kernel
  issues per element (:mod:`geir.backends.vector_programs`, after Huawei's
  per-API table) at ``vector_efficiency`` of them, its fixed cost adds the
  vector pipelines' heads, and a kernel on one buffer (Softmax, RmsNorm, a
  broadcast operand) adds compute and memory instead of overlapping them.
  ``memory`` is the DRAM bytes over ``min(units x per-core DRAM rate, sustained
  DRAM bandwidth)`` plus the L2 bytes over ``units x`` the per-core L2 rate:
  weights come from DRAM, the activations a kernel reads and writes are served
  from L2 when they fit in ``l2_bytes`` together and from DRAM when they do not
  (a stream longer than an LRU cache finds nothing of itself in it; MindStudio
  Advisor describes the same cliff for a layer whose inputs and outputs outgrow
  L2: it writes back to DDR and turns MTE2-bound, hiascend.com CANN 7.0
  ``atlasadvisor_16_0008``), and
  gathers and slices read only what they keep, and a convolution whose kernel
  is one row high, strides over rows and pads nothing reads only the input rows
  it uses (TBE Conv2D's ``strideh_opti``: the feature map is loaded into L1
  with the row stride). Each cube base block waits
  ``cube_block_dram_wait_cycles`` more for its first operands in the share of
  the kernel's bytes DRAM serves. A cube kernel's cores run their base blocks
  in ``rounds``, double-buffered: each block's loads overlap the previous
  block's multiplications, but the first round's loads and the last round's
  multiplications overlap nothing, so ``cube_pipeline_fill x min(compute,
  memory) / rounds`` is added to the maximum (a GEMV with one block per core
  pays both sides; a kernel of hundreds of rounds, its maximum). A run that
  follows a run of the same model (``warm_weights``: a benchmark's warm-up
  before its timed runs) finds the weights in L2 when the model's weights and
  activation arena fit in it together, and reads them from there.
* **block dim**: a kernel's own ``block_dim`` when it is above 1, capped by an
  ``_op_aicore_num`` attribute (GE's per-op core cap); a ``block_dim`` of 0 or 1
  means *unset* and the kernel's tiling decides.
* **GE's no-task ops**: reshapes (flatten, squeeze, unsqueeze, identity), a
  concat whose inputs lie back to back in its output and a split marked
  ``no_task`` (``alias-splits``) run on no engine (``GE_LOCAL``) and take no time.
  They, and the ops fused into a chain's head, are no device task of their own
  (:func:`has_device_task`): a host that launches tasks one by one (runtime
  v2) launches nothing for them, and a stream's task count leaves them out.
* **UB fusion** (``fuse-ub``): an op fused into its producer (``fused_operand``)
  takes no time of its own. The chain's head does its vector work
  (``fused_flops``) — a cube head's vector unit on one tile while its cube
  multiplies the next, so the larger of the two counts; a vector head's after
  its own — moves what the fused ops read besides the chain (``fused_bytes``)
  within the same roofline, and writes one result: its own, or the pooled one
  when a pooling ends the chain (``fused_result_bytes``); an AttentionScore
  kernel's head also does the second MatMul's multiplications
  (``fused_cube_flops``) on its cores. An AIPP fused into
  the convolution that reads it takes no time; the convolution reads the
  crop's uint8 pixels (``aipp_input``).
* **TransData** (``insert-trans-data``): a vector kernel that reads the tensor
  in one layout and writes it in the other, the 5-D side (``NC1HWC0``,
  ``NC1HWC0_C04``) padded to whole blocks of C0 (4) channels: an RGB image
  written as 16 channels moves 5.3 times its bytes.
* **recurrent ops** (RNN, GRU, LSTM), as CANN's LSTM kernel runs them (hicann/ops-nn
  ``rnn/dynamic_rnn/op_kernel/LstmFP16.cpp``, written for the 910B; other chips'
  kernels are taken to run their steps alike): one MatMul projecting every step's
  input, then, step after step and direction after direction, the hidden state's
  MatMul by R (loaded again each step: from L2 while R fits there), a SyncAll of
  the cores (``core_sync_us``), the gates on the vector units and another SyncAll.
* **AICPU**: ``aicpu_overhead_us + max(flops / core rate, bytes / core bandwidth)``.
* **DVPP**: ``dvpp_overhead_us`` plus one frame time of the channel, scaled by the
  output's pixels relative to 1080p (JPEG decode rate for ``dvpp_decode``, VPC
  rate otherwise).
* **HCCL**: ``hccl_latency_us + traffic / link bandwidth``, traffic from a ring
  algorithm over ``rank_size`` ranks (all-reduce ``2(r-1)/r``, all-gather ``r-1``,
  reduce-scatter ``(r-1)/r`` times the input bytes, broadcast the input bytes).
* **SDMA memcpy**: ``sdma_overhead_us + bytes / channel bandwidth``.

These are the durations of a task *alone* on the device. Every task that moves
device memory also states its DRAM traffic (:attr:`TaskCost.dram_bytes`) and the
byte rate it can draw at most (:attr:`TaskCost.dram_rate`): kernels their DRAM
bytes at their cores' rate, AICPU kernels theirs at the core's bandwidth, a
memcpy reads and writes its bytes (twice its size, at twice the channel rate), a
collective reads what it sends and writes what it receives (twice its link
traffic, at twice the link rate). The emulator's fluid model
(:mod:`geir.backends.emulator.bandwidth`) shares the sustained DRAM bandwidth
among the tasks running at once; alone, a task takes exactly the time above.

Not modelled (documented so nobody trusts it for that): L2 contents across
kernels and launches (each kernel's own activations are in L2 when they fit,
weights never), bank and cache conflicts, the cube's L1/L0 loading
pipeline beyond ``cube_efficiency``, DVPP traffic, and kernels whose blocks
outnumber the cores they are granted (a kernel is gang-scheduled: it starts
when all its units are free).
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

from geir.backends.device_profile import DeviceProfile
from geir.backends.kernel_tiling import CubeFeed, Tiling, conv_tiling, matmul_tiling, rows_tiling, vector_tiling
from geir.backends.task_list import WEIGHTS, Kernel, Memcpy, TensorRef, element_bytes, int_attribute
from geir.backends.vector_programs import (SINGLE_BUFFERED, RmsNormTiling, cycles_per_element, elewise_tiles,
                                          flop_cycles, mte_cycles, non_last_axis, pipeline_head_cycles,
                                          rms_norm_tiling, softmax_workspace_bytes)
from geir.diagnostics import Diagnostic, DiagnosticError
from geir.dialects.ge_cost import TRANSCENDENTAL
from geir.dialects.ge_infer import transpose_perm

__all__ = ["CostModel", "TaskCost", "POOLS", "NO_TASK_OPS", "AICORE", "VECTOR", "AICPU", "DVPP", "HCCL", "SDMA",
           "GE_LOCAL", "CUBE_OPS", "COST_ATTRIBUTES", "normalize_engine", "has_device_task"]

AICORE, VECTOR, AICPU, DVPP, HCCL, SDMA, GE_LOCAL = "AICore", "VectorCore", "AICPU", "DVPP", "HCCL", "SDMA", "GE_LOCAL"
#: every pool, in report order
POOLS = (AICORE, VECTOR, AICPU, DVPP, HCCL, SDMA, GE_LOCAL)
#: capacity of GE_LOCAL: ops without a device task never wait for a unit
UNBOUNDED = 1 << 30

#: ge ops that run on the cube unit (everything else on an AI core is vector work)
CUBE_OPS = frozenset({"conv2d", "conv_transpose", "matmul", "batch_matmul", "gemm", "einsum", "matmul_integer",
                      "qlinear_matmul", "conv_integer", "qlinear_conv", "rnn", "gru", "lstm", "attention"})
#: recurrent cube ops, whose steps run one after another (the gates a step computes per hidden unit:
#: the transcendental activations and the other elementwise ops of ONNX's definitions: LSTM's three
#: sigmoids, its cell input's and its cell's tanh, the four bias adds, f*c + i*g and o*tanh(c))
RECURRENT_OPS = {"rnn": (1, 2), "gru": (3, 6), "lstm": (5, 8)}
#: cube ops on 8-bit integers: the cube does twice the MACs per cycle (DtypeMKN int8 = 16x32x16)
INT8_CUBE_OPS = frozenset({"matmul_integer", "qlinear_matmul", "conv_integer", "qlinear_conv"})

#: cube ops that are convolutions (img2col GEMMs) and matrix products
CONV_OPS = frozenset({"conv2d", "conv_transpose", "conv_integer", "qlinear_conv"})
MATMUL_OPS = frozenset({"matmul", "batch_matmul", "gemm", "matmul_integer", "qlinear_matmul"})
#: ops GE runs without a device task (GE_LOCAL "no task" ops: the output aliases the input)
NO_TASK_OPS = frozenset({"reshape", "flatten", "squeeze", "unsqueeze", "identity"})
# A concat whose inputs GE places back to back in the output needs no task either
# (GE's no-task concat: continuous input memory); see _no_task_concat.
#: vector ops whose tiling splits independent rows (one per output element), never a row
ROW_OPS = frozenset({"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_l1",
                     "reduce_l2", "reduce_log_sum", "reduce_log_sum_exp", "reduce_sum_square", "arg_max", "arg_min",
                     "global_avg_pool", "global_max_pool", "global_lp_pool"})
#: ops that read only the part of their first input they keep
PARTIAL_READ_OPS = frozenset({"gather", "gather_elements", "gather_nd", "slice", "strided_slice"})

#: kernel attributes a cost depends on (besides shapes, types and spaces)
COST_ATTRIBUTES = ("fused_operand", "fused_output", "fused_bytes", "fused_flops", "fused_cube_flops",
                   "fused_result_bytes", "aipp_input",
                   "_op_aicore_num", "axis", "group", "transA", "transB", "small_channel", "strided_write",
                   "src_format", "dst_format", "strides", "pads", "no_task")
#: channels per block of the C04 layout (``small-channel``, ATC's --enable_small_channel)
C04 = 4

#: engine names as passes, GE and users spell them -> pool
_ENGINE_ALIASES = {
    "aicore": AICORE, "ai_core": AICORE, "aic": AICORE, "aicoreengine": AICORE, "": AICORE,
    "vectorcore": VECTOR, "vector_core": VECTOR, "aiv": VECTOR, "aivector": VECTOR, "vectorengine": VECTOR,
    "aicpu": AICPU, "ai_cpu": AICPU, "dnn_vm_aicpu": AICPU, "aicpu_ascend_kernel": AICPU, "aicpu_tf_kernel": AICPU,
    "dvpp": DVPP, "dnn_vm_dvpp": DVPP,
    "hccl": HCCL, "ops_kernel_info_hccl": HCCL,
    "sdma": SDMA,
    "ge_local": GE_LOCAL, "gelocal": GE_LOCAL, "dnn_vm_ge_local": GE_LOCAL, "rts": GE_LOCAL, "dnn_vm_rts": GE_LOCAL,
}

#: pixels of a 1080p frame, the unit of the published DVPP rates
_FRAME_1080P = 1920 * 1080


def normalize_engine(engine: str | None) -> str | None:
    """The pool an engine name means, or None when it names no engine we know."""
    return _ENGINE_ALIASES.get((engine or "").lower())


class TaskCost(NamedTuple):
    """What one task costs. A NamedTuple, not an attrs class: the emulator builds
    one per task and the timing-only mode must stay above 200k tasks/s."""

    pool: str
    units: int
    duration_us: float
    compute_us: float = 0.0
    memory_us: float = 0.0
    overhead_us: float = 0.0
    #: bytes of device memory (DRAM) the task reads and writes
    dram_bytes: float = 0.0
    #: the most DRAM bytes per microsecond it can move (its cores' or channel's rate)
    dram_rate: float = 0.0


def _op_name(op: str) -> str:
    return op[3:] if op.startswith("ge.") else op


def _first_shape(kernel: Kernel) -> tuple[int, ...] | None:
    """The shape of the kernel's first output (None when it has none)."""
    return kernel.outputs[0].shape if kernel.outputs and kernel.outputs[0] is not None else None


def _elements(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _io_bytes(kernel: Kernel) -> float:
    return float(sum(r.nbytes for r in kernel.inputs if r is not None) + sum(r.nbytes for r in kernel.outputs))


def _no_task_concat(attributes: Mapping[str, Any] | None, shape: Sequence[int] | None) -> bool:
    """Whether a concat of result ``shape`` needs no task: its producers write into its
    channel slices (``strided_write``, GE's ConvConcatFusionPass), or GE lays its inputs
    out back to back — every dim before the axis is 1 (its inputs are contiguous slices
    of the output)."""
    if attributes and "strided_write" in attributes:
        return True
    if shape is None:
        return False
    axis = int_attribute(attributes or {}, "axis", 0)
    if axis < 0:
        axis += len(shape)
    return 0 <= axis < len(shape) and _elements(shape[:axis]) == 1


def _aliases_its_input(op: str, attributes: Mapping[str, Any] | None, shape: Sequence[int] | None) -> bool:
    """Whether an AI core op (``op`` without its ``ge.``) runs as one of GE's no-task
    ops, its results views of its input: a reshape, a concat laid out in place, a
    split marked ``no_task``."""
    return (op in NO_TASK_OPS or (op == "concat" and _no_task_concat(attributes, shape))
            or (op == "split" and bool(attributes) and "no_task" in attributes))  # type: ignore[operator]


#: engines of ops that are device tasks although they take no AI core, vector or
#: AICPU unit (the runtime's own tasks: a cache maintenance op, a label, a copy)
_RTS_ENGINES = frozenset({"rts", "dnn_vm_rts"})


def has_device_task(op: str, engine: str | None, attributes: Mapping[str, Any] | None,
                    shape: Sequence[int] | None) -> bool:
    """Whether GE gives an op (a kernel's ``op`` and ``engine``, its attributes and
    its first result's ``shape``) a device task of its own. Not an op fused into its
    chain's head (FE merges the chain into one node, one task), nor static AIPP run
    inside its convolution, nor a no-task op: GE's local engine generates no task for a
    reshape, a concat laid out in place or an aliased split, and runtime v2 lowers a
    reshape to its input's address with no launch (hicann/ge ``runtime/v2/engine/
    gelocal/reshape_converter.cc``). An RTS op (``ge.cmo``) is a task."""
    pool = normalize_engine(engine)
    if pool == GE_LOCAL:
        return (engine or "").lower() in _RTS_ENGINES
    if attributes and ("fused_operand" in attributes or ("fused_output" in attributes and _op_name(op) == "aipp")):
        return False
    return not (pool in (AICORE, VECTOR) and _aliases_its_input(_op_name(op), attributes, shape))


def _widest_bytes(kernel: Kernel) -> int:
    """Bytes per element of the kernel's widest floating-point tensor (2 when it has none).
    An input smaller than the result (a Resize's f32 scales, which ONNX types f32 in
    every precision mode and GE folds into the kernel's attributes) sets no lanes."""
    shape = _first_shape(kernel)
    result = _elements(shape) if shape is not None else 0
    for r in kernel.outputs:
        if r is not None and r.dtype in _WIDE_FLOATS:
            return 4
    for r in kernel.inputs:
        if r is not None and r.dtype in _WIDE_FLOATS and _elements(r.shape) >= result:
            return 4
    return 2


_WIDE_FLOATS = frozenset({"f32", "f64", "tf32"})


def _broadcasts(kernel: Kernel) -> bool:
    """Whether one of ``kernel``'s several inputs is broadcast to its result (TBE's
    broadcast schedule, which runs such ops on one buffer)."""
    inputs = [r for r in kernel.inputs if r is not None]
    if len(inputs) < 2 or not kernel.outputs:
        return False
    out = _elements(kernel.outputs[0].shape)
    return any(_elements(r.shape) < out for r in inputs)


def _moves_last_axis(kernel: Kernel) -> bool:
    """Whether a transpose's last axis of more than one element ends elsewhere (its
    ``perm``; ONNX's default reverses the axes)."""
    source = kernel.inputs[0] if kernel.inputs else None
    if source is None:
        return False
    shape = source.shape
    perm = transpose_perm(_ints_attribute(kernel.attributes, "perm") or None, len(shape))  # () when absent
    if sorted(perm) != list(range(len(shape))):
        return False
    kept = [p for p in perm if shape[p] != 1]
    return bool(kept) and kept[-1] != max(kept)


def _rms_norm_rows(kernel: Kernel) -> int:
    """Rows of an RMS normalisation: the elements of its input's axes before ``axis``."""
    shape = kernel.inputs[0].shape
    axis = int_attribute(kernel.attributes or {}, "axis", -1)
    axis = axis + len(shape) if axis < 0 else axis
    return _elements(shape[:axis])


def _program(kernel: Kernel, op: str) -> str:
    """The name of the vector program ``kernel`` runs: a softmax over an axis other than
    the last reduces across rows."""
    if op == "softmax" and kernel.inputs and kernel.inputs[0] is not None \
            and non_last_axis(kernel.inputs[0].shape, int_attribute(kernel.attributes or {}, "axis", -1)) is not None:
        return "softmax_non_last"
    return op


def _compute_dtype(kernel: Kernel) -> str:
    """The element type a vector kernel's instructions work on: its first input's (a
    comparison's i1 result or a cast's target is not), else its first output's."""
    for r in (*kernel.inputs, *kernel.outputs):
        if r is not None:
            return r.dtype
    return "f32"


def _str_attribute(attributes: dict[str, Any] | None, name: str, default: str) -> str:
    value = attributes.get(name) if attributes else None
    text = getattr(value, "value", value)
    return text if isinstance(text, str) else default


#: a FRACTAL_NZ fractal: 16 rows of 32 bytes (16 x 16 for f16; C0 = 32 bytes per element size)
NZ_FRACTAL_ROWS, NZ_FRACTAL_BYTES = 16, 32


def _layout_bytes(ref: TensorRef, layout: str, c0: int) -> float:
    """Bytes ``ref`` takes in ``layout``: its own in NCHW and ND; in NC1HWC0 (NC1HWC0_C04) its
    channels padded to whole blocks of ``c0`` (4); in FRACTAL_NZ its last two dims padded
    to whole fractals of 16 rows by 32 bytes (16 f16 columns)."""
    if layout == "FRACTAL_NZ" and len(ref.shape) >= 2:
        rows, cols = ref.shape[-2], ref.shape[-1]
        width = max(1, NZ_FRACTAL_BYTES // max(1, element_bytes(ref.dtype)))
        if rows <= 0 or cols <= 0:
            return 0.0
        return float(ref.nbytes) / (rows * cols) * (-(-rows // NZ_FRACTAL_ROWS) * NZ_FRACTAL_ROWS) \
            * (-(-cols // width) * width)
    if layout in ("NCHW", "ND") or len(ref.shape) not in (3, 4):
        return float(ref.nbytes)
    block = C04 if layout == "NC1HWC0_C04" else c0
    channels = ref.shape[1]
    return float(ref.nbytes) / max(1, channels) * (-(-channels // block) * block) if channels > 0 else 0.0


def _ints_attribute(attributes: dict[str, Any] | None, name: str) -> tuple[int, ...]:
    value = attributes.get(name) if attributes else None
    value = getattr(value, "value", value)  # a geir ArrayAttr, or a plain sequence
    try:
        return tuple(int(getattr(v, "value", v)) for v in value) if value is not None else ()
    except (TypeError, ValueError):
        return ()


def _rows_read(kernel: Kernel) -> float:
    """The share of a convolution's input rows its kernel loads. TBE's Conv2D loads the
    feature map into L1 with the row stride when the kernel is one row high, the row
    stride is above 1 and nothing is padded (``strideh_opti_flag`` in canndev's
    ``auto_schedule/python/tbe/dsl/compute/conv_compute.py`` and ``conv_compute_v2.py``,
    mirrored on GitHub as dengguojie/vue-element-admin), so a 1 x 1
    convolution of stride 2 reads every other row; any other convolution reads all of
    them. The C04 layout (``small_channel``) takes the ordinary load."""
    attributes = kernel.attributes
    if len(kernel.inputs) < 2 or kernel.inputs[0] is None or kernel.inputs[1] is None:
        return 1.0
    x, w = kernel.inputs[0].shape, kernel.inputs[1].shape
    strides = _ints_attribute(attributes, "strides")
    if len(x) != 4 or len(w) != 4 or w[2] != 1 or not strides or strides[0] <= 1 or x[2] <= 0:
        return 1.0
    if any(_ints_attribute(attributes, "pads")) or attributes and "small_channel" in attributes:
        return 1.0
    return ((x[2] - 1) // strides[0] + 1) / x[2]


def _recurrence(kernel: Kernel) -> tuple[int, int, int, int, int, int] | None:
    """(steps of every direction, directions, batch, input size, hidden size, gates) of a
    recurrent kernel (ONNX's X, W and R), None when its shapes do not say."""
    if len(kernel.inputs) < 3 or any(r is None or len(r.shape) != 3 for r in kernel.inputs[:3]):
        return None
    x, w, r = (t.shape for t in kernel.inputs[:3])  # type: ignore[union-attr]
    seq, batch = (x[1], x[0]) if int_attribute(kernel.attributes or {}, "layout", 0) else (x[0], x[1])
    directions, rows, inputs = w
    hidden = r[2]
    if hidden <= 0 or rows % hidden:
        return None
    return seq * directions, directions, batch, inputs, hidden, rows // hidden


class CostModel:
    """Task durations and engine occupancy on one device profile."""

    def __init__(self, profile: DeviceProfile, warm_weights: bool = False) -> None:
        v = profile.values
        self.profile = profile
        #: the weights are in L2, left there by a run of the same model just before
        #: (a benchmark's warm-up): kernels read them from L2, not DRAM
        self.warm_weights = warm_weights
        self.capacity: dict[str, int] = {
            AICORE: v["ai_cores"], VECTOR: v["vector_cores"], AICPU: v["aicpu_cores"], DVPP: v["dvpp_channels"],
            HCCL: v["hccl_concurrency"], SDMA: v["sdma_channels"], GE_LOCAL: UNBOUNDED}
        self.split = bool(v["cube_vector_split"]) and v["vector_cores"] > 0
        mhz = v["clock_mhz"]
        # Everything below is per microsecond: MHz x (things per cycle) = things per us.
        cube_eff = v["cube_efficiency"]
        self.cube_rate = mhz * v["cube_flops_per_cycle"] * cube_eff
        self.cube_fp32_rate = mhz * v["cube_fp32_flops_per_cycle"] * cube_eff
        #: MatMul's share of the same peaks (its ND operands are not the convolution's 5-D layout)
        self.matmul_share = v["matmul_efficiency"] / cube_eff
        #: the vector unit's lanes at the share vector kernels sustain of them
        self.vector_rate = mhz * v["vector_flops_per_cycle"] * v["vector_efficiency"]
        #: vector kernels costed by the cycles of the instructions they issue
        #: (:mod:`geir.backends.vector_programs`), at ``vector_efficiency`` of them
        self.api_cycles = bool(v["vector_api_cycles"])
        self.vector_efficiency = v["vector_efficiency"]
        self.core_bw = mhz * v["core_ddr_bytes_per_cycle"]
        self.core_l2_bw = mhz * v["core_l2_bytes_per_cycle"]
        #: the DRAM bandwidth streaming kernels sustain (all cores together)
        self.dram_bw = v["dram_bandwidth_gbps"] * v["dram_efficiency"] * 1e3
        self.l2_bytes = v["l2_bytes"]
        self.cube_align = v["cube_align"]
        self.channel_align = v["channel_align"]
        self.min_block = v["cube_min_block"]
        self.l0c_bytes = v["l0c_bytes"]
        fill = v["l1_fill_bytes_per_cycle"]
        self.mhz = mhz
        #: how fast a core's L1 takes cube operands (None: not modelled on this device); its
        #: FLOPs per cycle are set per kernel to the rate the kernel's cube sustains
        self.feed = CubeFeed(v["cube_flops_per_cycle"] * cube_eff, fill,
                             drain_cycles_per_element=v["cube_drain_cycles_per_element"],
                             block_overhead_cycles=v["cube_block_overhead_cycles"]) if fill > 0 else None
        self.block_dram_wait = v["cube_block_dram_wait_cycles"]
        self.pipeline_fill = v["cube_pipeline_fill"]
        self.vector_min_bytes = v["vector_min_bytes_per_core"]
        self.aicpu_rate = v["aicpu_gflops_per_core"] * 1e3
        self.aicpu_bw = v["aicpu_bandwidth_gbps"] * 1e3
        self.hccl_bw = v["hccl_link_gbps"] * 1e3
        self.sdma_bw = v["sdma_bandwidth_gbps"] * 1e3
        self.kernel_overhead = v["kernel_overhead_us"]
        self.core_sync = v["core_sync_us"]
        self.aicpu_overhead = v["aicpu_overhead_us"]
        self.dvpp_overhead = v["dvpp_overhead_us"]
        self.sdma_overhead = v["sdma_overhead_us"]
        self.hccl_latency = v["hccl_latency_us"]
        self.jpegd_fps = v["dvpp_jpegd_fps_per_channel"]
        self.vpc_fps = v["dvpp_vpc_fps_per_channel"]
        self.record_us: float = v["event_record_us"]
        self.wait_us: float = v["event_wait_us"]
        self.launch_us: float = v["host_launch_us"]
        #: kernel costs by what they depend on, filled by the emulator's program compiler
        self.memo: dict[Any, TaskCost] = {}

    # ------------------------------------------------------------------ pools

    def pool_of(self, kernel: Kernel) -> str:
        """The pool ``kernel`` runs on (DiagnosticError for an unknown engine)."""
        pool = normalize_engine(kernel.engine)
        if pool is None:
            known = sorted({p for p in _ENGINE_ALIASES.values()})
            raise DiagnosticError(Diagnostic(
                "error", f"kernel '{kernel.name or kernel.op}' ({kernel.loc or 'no location'}) runs on unknown "
                         f"engine '{kernel.engine}'").attach_note(f"known engines: {', '.join(known)}"))
        op = _op_name(kernel.op)
        if pool in (AICORE, VECTOR) and _aliases_its_input(op, kernel.attributes, _first_shape(kernel)):
            return GE_LOCAL
        if pool == AICORE and self.split and op not in CUBE_OPS:
            # 910B splits cube and vector cores: a vector kernel runs on the AIV cores.
            return VECTOR
        return pool

    def tiling(self, kernel: Kernel, pool: str, traffic: tuple[float, float] | None = None) -> Tiling:
        """How ``kernel``'s tiling spreads it over ``pool`` (:mod:`geir.backends.kernel_tiling`):
        units, padded work and imbalance. An explicit ``block_dim`` above 1 wins; an
        ``_op_aicore_num`` attribute caps the cores as GE's per-op option does. ``traffic``
        is :meth:`traffic` of ``kernel`` when the caller has it (computed here otherwise)."""
        cap = self._cores(kernel, pool)
        op = _op_name(kernel.op)
        if op in CUBE_OPS:
            t = self._cube_tiling(kernel, op, cap, traffic)
        else:
            nbytes = kernel.bytes if kernel.bytes > 0 and not kernel.inputs else _io_bytes(kernel)
            t = vector_tiling(nbytes, kernel.flops, cap, self.vector_min_bytes)
            if op in ROW_OPS and kernel.outputs:
                rows = _elements(kernel.outputs[0].shape)
                if rows < t.units:
                    t = rows_tiling(rows, t.work, t.units)
            rms = self._rms_norm(kernel, op, pool)
            if rms is not None:
                t = Tiling(rms.units, t.work, rms.rows_per_core * rms.units / max(1, _rms_norm_rows(kernel)))
        if kernel.block_dim > 1:
            # the same blocks over the cores it is given
            return Tiling(min(kernel.block_dim, cap), t.work, 1.0, t.blocks)
        return t

    def _rms_norm(self, kernel: Kernel, op: str, pool: str) -> RmsNormTiling | None:
        """ops-nn's RmsNorm tiling of ``kernel`` where the device's vector APIs are costed
        (:func:`~geir.backends.vector_programs.rms_norm_tiling`), else None."""
        if op != "rms_normalization" or not self.api_cycles or not kernel.inputs or kernel.inputs[0] is None:
            return None
        x = kernel.inputs[0]
        rows = _rms_norm_rows(kernel)
        return rms_norm_tiling(rows, _elements(x.shape) // max(1, rows), x.dtype, self._cores(kernel, pool))

    def _cores(self, kernel: Kernel, pool: str) -> int:
        """The units of ``pool`` ``kernel`` may use: all of them, or as many as its
        ``_op_aicore_num`` allows."""
        cap = self.capacity[pool]
        limit = int_attribute(kernel.attributes, "_op_aicore_num", 0) if kernel.attributes else 0
        return limit if 0 < limit < cap else cap

    def _feed(self, kernel: Kernel, op: str, traffic: tuple[float, float] | None = None) -> CubeFeed | None:
        """The cube feed of ``kernel`` (an ``op`` of :data:`CUBE_OPS`): its loads and drains
        weighed against its multiplications at the rate its cube sustains, each block
        paying its fixed cycles (:meth:`block_cycles`)."""
        if self.feed is None:
            return None
        return self.feed._replace(flops_per_cycle=self.sustained_cube_rate(kernel, op) / self.mhz,
                                  block_overhead_cycles=self.block_cycles(kernel, traffic))

    def block_dim(self, kernel: Kernel, pool: str) -> int:
        """Units ``kernel`` occupies on ``pool``: its block dim, or what its tiling chooses when unset."""
        if pool == GE_LOCAL:
            return 0
        if pool not in (AICORE, VECTOR):
            return 1
        return self.tiling(kernel, pool).units

    def sustained_cube_rate(self, kernel: Kernel, op: str) -> float:
        """FLOPs per microsecond one core's cube sustains on ``kernel`` (an ``op`` of
        :data:`CUBE_OPS`): the FP16 rate, doubled for 8-bit integers, the FP32 rate when
        the first output is ``f32``, MatMul's share for the MatMul family."""
        if op in INT8_CUBE_OPS:
            rate = self.cube_rate * 2.0
        elif _widest_bytes(kernel) >= 4 and kernel.outputs and kernel.outputs[0].dtype == "f32":
            rate = self.cube_fp32_rate
        else:
            rate = self.cube_rate
        if op in MATMUL_OPS:
            rate *= self.matmul_share
        return rate

    def block_cycles(self, kernel: Kernel, traffic: tuple[float, float] | None = None) -> float:
        """Fixed cycles of each of ``kernel``'s cube base blocks: the profile's fixed cost,
        plus the wait for the block's first operands from DRAM (``cube_block_dram_wait_cycles``)
        in the share of the kernel's bytes that DRAM serves (the rest come from L2;
        ``traffic`` is :meth:`traffic` of ``kernel`` when the caller has it)."""
        base = self.feed.block_overhead_cycles if self.feed else 0.0
        if self.block_dram_wait <= 0:
            return base
        dram, l2 = traffic if traffic is not None else self.traffic(kernel)
        return base + self.block_dram_wait * dram / (dram + l2) if dram > 0 else base

    def _cube_tiling(self, kernel: Kernel, op: str, cores: int, traffic: tuple[float, float] | None) -> Tiling:
        align, c0 = self.cube_align, self.channel_align
        feed = self._feed(kernel, op, traffic)
        if op in INT8_CUBE_OPS:
            c0 *= 2  # DtypeMKN int8: K fractal 32
        shapes = [r.shape if r is not None else () for r in kernel.inputs]
        out = kernel.outputs[0].shape if kernel.outputs else ()
        try:
            if op in CONV_OPS and len(shapes) >= 2 and len(shapes[0]) >= 3 and len(shapes[1]) == len(shapes[0]):
                x, w = shapes[0], shapes[1]
                groups = max(1, int_attribute(kernel.attributes, "group", 1))
                if kernel.attributes and "small_channel" in kernel.attributes:
                    c0 = C04
                window = _elements(w[2:])
                if op == "conv_transpose":
                    # as the gradient of a convolution: each input pixel meets every weight
                    spatial, cin, cout = _elements(x[2:]), x[1], w[1] * groups
                else:
                    spatial, cin, cout = _elements(out[2:]), x[1], w[0]
                return conv_tiling(x[0], cin, cout, spatial, window, groups, cores, c0, align, self.min_block,
                                   feed, _elements(x[2:]) if op != "conv_transpose" else 0)
            if op in MATMUL_OPS and len(shapes) >= 2 and shapes[0] and shapes[1] and out:
                a, b = shapes[0], shapes[1]
                trans_a = int_attribute(kernel.attributes, "transA", 0)
                trans_b = int_attribute(kernel.attributes, "transB", 0)
                k = a[-2] if trans_a and len(a) >= 2 else a[-1]
                m = out[-2] if len(out) >= 2 else 1
                n = out[-1]
                batch = _elements(out[:-2])
                if len(b) == 2 and not trans_a:
                    # one weight matrix for every batch: MatMul folds the batch into M
                    m, batch = m * batch, 1
                operand = kernel.inputs[0]
                return matmul_tiling(batch, m, n, k, cores, align, c0, self.min_block, feed, fixed_blocks=True,
                                     l0c_bytes=self.l0c_bytes, trans_a=bool(trans_a), trans_b=bool(trans_b),
                                     element_bytes=element_bytes(operand.dtype) if operand is not None else 2)
            if op in RECURRENT_OPS and (recurrence := _recurrence(kernel)) is not None:
                # one step's MatMul of the hidden state by R; the steps run one after another
                steps, _, batch, _, hidden, gates = recurrence
                step = matmul_tiling(1, batch, gates * hidden, hidden, cores, align, c0, self.min_block, feed,
                                     fixed_blocks=True, l0c_bytes=self.l0c_bytes,
                                     element_bytes=element_bytes(kernel.inputs[2].dtype))
                return Tiling(step.units, step.work * steps, step.imbalance, step.blocks * steps)
        except (IndexError, ZeroDivisionError):
            pass
        # any other cube op (attention, einsum): its own FLOPs over the output's fractals
        tiles = -(-_elements(out) // (align * align)) if out else 1
        units = max(1, min(cores, tiles))
        return Tiling(units, kernel.flops, 1.0, tiles)

    # ------------------------------------------------------------------ costs

    def traffic(self, kernel: Kernel) -> tuple[float, float]:
        """(bytes from DRAM, bytes from L2) ``kernel`` moves. Weights come from DRAM,
        or from L2 when a run of the same model just left them there (``warm_weights``);
        the activations a kernel reads and writes stay in L2 when they fit in it together
        (the producer just wrote them). When they do not, every byte goes to DRAM: a
        stream longer than an LRU cache evicts each line before it is read again.
        Gathers and slices read only what they keep, a row-strided 1 x 1-high
        convolution only the rows it uses (:func:`_rows_read`). Under UB fusion an op fused into
        another moves nothing of its own: the chain's head reads what the fused ops read
        (``fused_bytes``) and writes one result as large as its own, overlapped with its
        compute in one roofline."""
        if not kernel.inputs and not kernel.outputs:
            return float(kernel.bytes), 0.0
        if not kernel.inputs and kernel.bytes > 0:
            return float(kernel.bytes), 0.0
        op = _op_name(kernel.op)
        attributes = kernel.attributes
        if attributes and "fused_operand" in attributes:
            return 0.0, 0.0  # the chain's head streams what a fused op reads
        weights = 0.0
        activations = float(int_attribute(attributes, "fused_bytes", 0)) if attributes else 0.0
        if op == "trans_data":
            # the 5-D side stores its channels padded to whole C0 blocks
            out_bytes = _layout_bytes(kernel.outputs[0], _str_attribute(attributes, "dst_format", "NC1HWC0"),
                                      self.channel_align) if kernel.outputs else 0.0
        else:
            out_bytes = 0.0
            for r in kernel.outputs:
                out_bytes += r.nbytes
        # the chain's one result, where a pooling fused after this kernel shrinks it
        written = int_attribute(attributes, "fused_result_bytes", -1) if attributes else -1
        for j, r in enumerate(kernel.inputs):
            if r is None:
                continue
            nbytes = r.nbytes
            if op == "trans_data" and j == 0:
                nbytes = _layout_bytes(r, _str_attribute(attributes, "src_format", "NCHW"), self.channel_align)
            elif j == 0 and op in PARTIAL_READ_OPS:
                nbytes = min(nbytes, out_bytes)
            elif j == 0 and (op == "aipp" or attributes and "aipp_input" in attributes):
                # AIPP reads the crop's uint8 pixels, one byte per element of its result
                nbytes = min(nbytes, _elements(r.shape if op != "aipp" else kernel.outputs[0].shape))
            elif j == 0 and op == "conv2d":
                nbytes *= _rows_read(kernel)
            if r.space == WEIGHTS:
                weights += nbytes
            else:
                activations += nbytes
        activations += out_bytes if written < 0 else written
        rms = self._rms_norm(kernel, op, self.pool_of(kernel))
        if rms is not None and rms.reads > 1 and kernel.inputs[0] is not None:
            activations += (rms.reads - 1) * kernel.inputs[0].nbytes
        if op == "softmax" and kernel.inputs and kernel.inputs[0] is not None:
            x = kernel.inputs[0]
            activations += softmax_workspace_bytes(x.shape, int_attribute(attributes or {}, "axis", -1),
                                                   element_bytes(x.dtype))
        if op in RECURRENT_OPS and (recurrence := _recurrence(kernel)) is not None:
            # each step loads R again (the step's MatMul leaves nothing in L1): from L2 while all
            # of it fits there, from DRAM otherwise
            steps, directions = recurrence[0], recurrence[1]
            again = kernel.inputs[2].nbytes * (steps // directions - 1)
            if kernel.inputs[2].nbytes <= self.l2_bytes:
                l2_again, dram_again = again, 0.0
            else:
                l2_again, dram_again = 0.0, again
        else:
            l2_again = dram_again = 0.0
        if self.warm_weights:
            dram, l2 = (0.0, weights + activations) if activations <= self.l2_bytes else (activations, weights)
        elif activations <= 0:
            dram, l2 = weights, 0.0
        elif activations <= self.l2_bytes:
            dram, l2 = weights, activations
        else:
            dram, l2 = weights + activations, 0.0
        return dram + dram_again, l2 + l2_again

    def _recurrence_rest(self, kernel: Kernel, op: str, pool: str, units: int,
                         traffic: tuple[float, float]) -> float:
        """The microseconds a recurrent kernel spends besides its steps' MatMuls by R, as
        CANN's LSTM kernel runs (hicann/ops-nn ``rnn/dynamic_rnn/op_kernel/LstmFP16.cpp``):
        first every step's input projection as one MatMul per direction, then at each step,
        after the hidden state's MatMul, a SyncAll of the cores, the gates on their vector
        units and another SyncAll (``core_sync_us`` each)."""
        recurrence = _recurrence(kernel)
        if recurrence is None:
            return 0.0
        steps, directions, batch, inputs, hidden, gates = recurrence
        projection = matmul_tiling(directions, steps // directions * batch, gates * hidden, inputs,
                                   self._cores(kernel, pool), self.cube_align, self.channel_align, self.min_block,
                                   self._feed(kernel, op, traffic), fixed_blocks=True, l0c_bytes=self.l0c_bytes,
                                   element_bytes=element_bytes(kernel.inputs[1].dtype))
        cube = projection.work * projection.imbalance / (projection.units * self.sustained_cube_rate(kernel, op))
        activations, others = RECURRENT_OPS[op]
        gate_flops = batch * hidden * (activations * TRANSCENDENTAL + others)
        return cube + steps * (self._flops_us(kernel, gate_flops) / units + 2.0 * self.core_sync)

    def _flops_us(self, kernel: Kernel, flops: float) -> float:
        """Microseconds one core's vector unit takes for ``flops`` of ``kernel``'s cost
        hints: as many Adds in the type it computes in where the device's vector APIs are
        costed, else at the lanes' rate, which holds half as many 32-bit elements as 16-bit
        ones."""
        if self.api_cycles:
            return flops * flop_cycles(_compute_dtype(kernel)) / (self.mhz * self.vector_efficiency)
        return flops / (self.vector_rate if _widest_bytes(kernel) <= 2 else self.vector_rate * 0.5)

    def _vector_us(self, kernel: Kernel, program: str, tiling: Tiling) -> float:
        """Microseconds a vector kernel's busiest core computes: the instructions its CANN
        kernel issues per element for ``program`` (:func:`_program`;
        :func:`~geir.backends.vector_programs.cycles_per_element`) where the device's
        vector APIs are costed and the program is known, else its cost
        hint's FLOPs (:meth:`_flops_us`), as for a kernel built by hand without inputs."""
        share = tiling.imbalance / tiling.units
        if self.api_cycles and kernel.outputs and kernel.inputs:
            out = _elements(kernel.outputs[0].shape)
            read = sum(_elements(r.shape) for r in kernel.inputs if r is not None)
            dtype = _compute_dtype(kernel)
            cycles = cycles_per_element(program, dtype, read / out if out else 1.0)
            if cycles is not None:
                us = cycles * out * share / (self.mhz * self.vector_efficiency)
                tiles = None if _broadcasts(kernel) else elewise_tiles(program, dtype, out * share)
                if tiles is not None:
                    # each UB tile's instructions pay their fixed cycles, at the table's own rate
                    us += tiles[0] * tiles[1] / self.mhz
                return us
        return self._flops_us(kernel, tiling.work) * share

    def kernel(self, kernel: Kernel) -> TaskCost:
        """Pool, units and duration of ``kernel``."""
        pool = self.pool_of(kernel)
        if pool == GE_LOCAL:
            return TaskCost(pool, 0, 0.0)
        flops = kernel.flops
        if pool == AICORE or pool == VECTOR:
            op = _op_name(kernel.op)
            attributes = kernel.attributes
            if attributes and ("fused_operand" in attributes or op == "aipp" and "fused_output" in attributes):
                # the chain's head does a fused op's work (fused_flops); AIPP converts the
                # pixels as the convolution loads them
                return TaskCost(pool, 1, 0.0)
            dram, l2 = self.traffic(kernel)
            tiling = self.tiling(kernel, pool, (dram, l2))
            units = tiling.units
            # The fused ops' vector work: a cube head's vector unit does it on one tile
            # while the cube multiplies the next; a vector head's does it after its own
            # work, on the same unit.
            fused = int_attribute(attributes, "fused_flops", 0) if attributes else 0
            if op in CUBE_OPS:
                # a second MatMul fused after this one (AttentionScore) multiplies on the same cores
                work = tiling.work + (int_attribute(attributes, "fused_cube_flops", 0) if attributes else 0)
                compute = work * tiling.imbalance / (units * self.sustained_cube_rate(kernel, op))
                if op in RECURRENT_OPS:
                    compute += self._recurrence_rest(kernel, op, pool, units, (dram, l2))
                if fused > 0:
                    vector = self._flops_us(kernel, fused) / units
                    if vector > compute:
                        compute = vector
            else:
                program = _program(kernel, op)
                rms = self._rms_norm(kernel, op, pool)
                if rms is not None:
                    program = rms.program
                compute = self._vector_us(kernel, program, tiling) + self._flops_us(kernel, fused) / units
                if rms is not None:
                    compute += rms.head_cycles / self.mhz
            bw = units * self.core_bw
            if bw > self.dram_bw:
                bw = self.dram_bw
            memory = dram / bw
            if l2 > 0:
                memory += l2 / (units * self.core_l2_bw)
            overhead = self.kernel_overhead
            single_buffered = False
            if self.api_cycles and op == "transpose" and _moves_last_axis(kernel):
                # TBE's Transpose: one buffer, each core's tiles loaded and stored in turn
                # at its own transfer rates, whatever memory serves them
                share = tiling.imbalance / units
                moved = mte_cycles(units, sum(r.nbytes for r in kernel.inputs if r is not None) * share,
                                   sum(r.nbytes for r in kernel.outputs) * share) / self.mhz
                memory = moved if moved > memory else memory
                single_buffered = True
            busy = compute if compute > memory else memory
            if self.api_cycles and op not in CUBE_OPS:
                # the vector pipelines' heads: the first load and the last store overlap nothing
                largest = max((r.nbytes for r in kernel.inputs if r is not None), default=0)
                overhead += pipeline_head_cycles(units, largest / units) / self.mhz
                if single_buffered or program in SINGLE_BUFFERED or _broadcasts(kernel):
                    # one buffer: a tile's load, compute and store follow one another
                    busy = compute + memory
            if op in CUBE_OPS and self.pipeline_fill > 0:
                # Double-buffered blocks: a block's loads overlap the previous block's
                # multiplications, but not the first block's, and nothing overlaps the
                # last block's: one round of the shorter side stays exposed.
                busy += self.pipeline_fill * (memory if compute > memory else compute) / tiling.rounds
            # The fluid model moves the DRAM bytes; L2 time is part of the task's own length.
            return TaskCost(pool, units, overhead + busy, compute, memory, overhead, dram, bw if dram > 0 else 0.0)
        nbytes = kernel.bytes
        if nbytes <= 0:
            nbytes = _io_bytes(kernel)
        if pool == AICPU:
            compute = flops / self.aicpu_rate
            bw = min(self.aicpu_bw, self.dram_bw)
            memory = nbytes / bw
            overhead = self.aicpu_overhead
            return TaskCost(pool, 1, overhead + (compute if compute > memory else memory), compute, memory,
                            overhead, nbytes, bw)
        elif pool == DVPP:
            op = _op_name(kernel.op)
            pixels = 0
            for out in kernel.outputs:
                # images are (H, W), (H, W, C) or (N, H, W, C): every dim but the channels counts
                shape = out.shape
                pixels += _elements(shape[:-1] if len(shape) >= 3 else shape)
            fps = self.jpegd_fps if op == "dvpp_decode" else self.vpc_fps
            compute = (pixels / _FRAME_1080P) / fps * 1e6
            memory = 0.0
            overhead = self.dvpp_overhead
        else:  # HCCL: every byte sent is read from DRAM, every byte received written to it
            traffic = 2.0 * self._hccl_traffic(kernel)
            rate = min(2.0 * self.hccl_bw, self.dram_bw)
            memory = traffic / rate
            return TaskCost(pool, 1, self.hccl_latency + memory, 0.0, memory, self.hccl_latency, traffic, rate)
        return TaskCost(pool, 1, overhead + (compute if compute > memory else memory), compute, memory, overhead)

    def _hccl_traffic(self, kernel: Kernel) -> float:
        """Bytes one rank sends over its link in a ring implementation of the collective."""
        first = next((r for r in kernel.inputs if r is not None), None)
        size = float(first.nbytes if first is not None else sum(r.nbytes for r in kernel.outputs))
        ranks = max(1, int_attribute(kernel.attributes, "rank_size", 1))
        op = _op_name(kernel.op)
        if op == "all_reduce":
            return 2.0 * (ranks - 1) / ranks * size
        if op == "all_gather":
            return (ranks - 1) * size
        if op == "reduce_scatter":
            return (ranks - 1) / ranks * size
        return size

    def memcpy(self, task: Memcpy) -> TaskCost:
        """SDMA channel and duration of a copy."""
        # a device-to-device copy reads and writes every byte
        rate = min(2.0 * self.sdma_bw, self.dram_bw)
        traffic = 2.0 * task.dst.nbytes
        memory = traffic / rate
        return TaskCost(SDMA, 1, self.sdma_overhead + memory, 0.0, memory, self.sdma_overhead, traffic, rate)
