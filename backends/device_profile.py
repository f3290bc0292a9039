"""Ascend device profiles: the numbers the cost model and the emulator use, as data.

A profile is a JSON file (``backends/devices/<name>.json``) whose every number
carries its ``source`` — or ``"assumed": true`` with a ``reason`` where no public
figure exists, so the user knows which numbers to sweep. Load one by name
(``910B2``, ``Ascend910B2``, case-insensitive) or by file path, then override
single numbers as on the command line (``--device-param host_launch_us=10``)::

    profile = load_profile("910B2", overrides=["host_launch_us=10", "ai_cores=20"])

Derived figures (peak FP16 throughput per core and in total) are computed from
the parameters; the file states them too, and loading checks that the two agree
so a typo in either is caught.
"""

from __future__ import annotations

import difflib
import json
import os
from typing import Any, Iterable

import attrs

from geir.diagnostics import error as _error

__all__ = ["DeviceProfile", "Calibration", "ParamSpec", "PARAMS", "load_profile", "available_profiles",
           "parse_override", "DEVICES_DIR", "PRECISION_MODES"]

#: where the shipped profiles live
DEVICES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "devices")


@attrs.frozen
class ParamSpec:
    """What one profile number is: its type, its smallest legal value, and what it means."""

    type: type  # int, float or bool
    minimum: float
    doc: str
    #: a parameter a profile may leave out takes this other parameter's value
    #: (added after the first profiles were written; None: required)
    default_from: str | None = None


#: every parameter a profile must define (the JSON's ``params``), in file order
PARAMS: dict[str, ParamSpec] = {
    "ai_cores": ParamSpec(int, 1, "AI cores (cube units): the AICore engine's capacity"),
    "vector_cores": ParamSpec(int, 0, "vector cores (AIV): the VectorCore engine's capacity"),
    "cube_vector_split": ParamSpec(bool, 0, "vector kernels run on the vector cores, not the AI cores (910B)"),
    "aicpu_cores": ParamSpec(int, 0, "AI CPU cores: the AICPU engine's capacity"),
    "clock_mhz": ParamSpec(float, 1e-9, "AI core clock"),
    "cube_flops_per_cycle": ParamSpec(float, 1e-9, "FP16 FLOPs per cycle of one AI core's cube unit"),
    "cube_fp32_flops_per_cycle": ParamSpec(float, 1e-9, "FP32 FLOPs per cycle of one core's cube unit (cube ops "
                                                        "whose output is f32)", default_from="cube_flops_per_cycle"),
    "vector_flops_per_cycle": ParamSpec(float, 1e-9, "FP16 FLOPs per cycle of one core's vector unit"),
    "core_ddr_bytes_per_cycle": ParamSpec(float, 1e-9, "bytes per cycle one core moves from device memory"),
    "dram_bandwidth_gbps": ParamSpec(float, 1e-9, "device memory bandwidth, all cores together (GB/s)"),
    "memory_bytes": ParamSpec(int, 1, "device memory"),
    "dvpp_channels": ParamSpec(int, 0, "DVPP channels: the DVPP engine's capacity"),
    "dvpp_jpegd_fps_per_channel": ParamSpec(float, 1e-9, "JPEG decode frames/s per channel at 1080p"),
    "dvpp_vpc_fps_per_channel": ParamSpec(float, 1e-9, "VPC (resize/crop) frames/s per channel at 1080p"),
    "dvpp_overhead_us": ParamSpec(float, 0, "fixed cost of a DVPP task"),
    "hccl_link_gbps": ParamSpec(float, 1e-9, "HCCL link bandwidth (GB/s)"),
    "hccl_latency_us": ParamSpec(float, 0, "fixed latency of one collective"),
    "hccl_concurrency": ParamSpec(int, 0, "collectives that can run at once: the HCCL engine's capacity"),
    "sdma_channels": ParamSpec(int, 0, "SDMA channels: the SDMA engine's capacity (memcpy tasks)"),
    "sdma_bandwidth_gbps": ParamSpec(float, 1e-9, "bandwidth of one SDMA channel (GB/s)"),
    "sdma_overhead_us": ParamSpec(float, 0, "fixed cost of a memcpy task"),
    "aicpu_gflops_per_core": ParamSpec(float, 1e-9, "throughput of one AI CPU core (GFLOP/s)"),
    "aicpu_bandwidth_gbps": ParamSpec(float, 1e-9, "memory throughput of one AI CPU core (GB/s)"),
    "aicpu_overhead_us": ParamSpec(float, 0, "fixed cost of an AI CPU kernel"),
    "kernel_overhead_us": ParamSpec(float, 0, "fixed cost of an AI core / vector core kernel"),
    "host_launch_us": ParamSpec(float, 0, "host cost of launching one task (host mode, runtime v2)"),
    "model_execute_us": ParamSpec(float, 0, "host time of one synchronous model execution beyond its tasks (the "
                                            "runtime's model launch and the host's return on completion): what a "
                                            "host-timed run adds to the makespan"),
    "event_record_us": ParamSpec(float, 0, "time a stream spends on an event record"),
    "core_sync_us": ParamSpec(float, 0, "time a kernel's cores take to meet at a SyncAll (a recurrent kernel "
                                        "syncs twice a step)", default_from="event_record_us"),
    "event_wait_us": ParamSpec(float, 0, "time from an event being recorded to its waiting stream going on"),
    "label_switch_us": ParamSpec(float, 0, "time a stream spends on a label switch (reads an index, jumps)",
                                 default_from="event_record_us"),
    "label_goto_us": ParamSpec(float, 0, "time a stream spends on a label goto", default_from="event_record_us"),
    "label_set_us": ParamSpec(float, 0, "time a stream spends on a label set", default_from="event_record_us"),
    "stream_switch_us": ParamSpec(float, 0, "time a stream spends on a stream switch (reads a value, maybe "
                                            "activates)", default_from="event_record_us"),
    "stream_active_us": ParamSpec(float, 0, "time from a stream-active task to its stream starting",
                                  default_from="event_record_us"),
    "l2_bytes": ParamSpec(int, 0, "L2 cache: the activations a kernel reads and writes are served from it as far "
                                  "as they fit"),
    "core_l2_bytes_per_cycle": ParamSpec(float, 1e-9, "bytes per cycle one core reads from L2"),
    "dram_efficiency": ParamSpec(float, 1e-9, "the fraction of dram_bandwidth_gbps streaming kernels sustain"),
    "cube_efficiency": ParamSpec(float, 1e-9, "the fraction of the cube's peak a core sustains on aligned tiles"),
    "matmul_efficiency": ParamSpec(float, 1e-9, "the fraction of the cube's peak MatMul, GEMM and batch MatMul "
                                                "sustain on aligned tiles", default_from="cube_efficiency"),
    "vector_api_cycles": ParamSpec(bool, 0, "vector kernels cost the cycles of the vector instructions they issue "
                                            "per element (the 910B's table); false: vector_flops_per_cycle"),
    "vector_efficiency": ParamSpec(float, 1e-9, "the fraction of vector_flops_per_cycle a core's vector kernels "
                                                "sustain (of the instructions' rate where vector_api_cycles)"),
    "cube_align": ParamSpec(int, 1, "M, N and K of a cube op are padded to this (the cube's fractal)"),
    "channel_align": ParamSpec(int, 1, "a convolution's channels are padded to this (C0 of the 5-D layout)"),
    "cube_min_block": ParamSpec(int, 1, "the smallest output block (each side) a cube kernel's tiling gives a core"),
    "l0c_bytes": ParamSpec(int, 0, "bytes of a core's L0C (cube accumulators); 256 KiB selects MatMulV3's base "
                                   "blocks for such a core (0: no cube L0C)"),
    "l1_fill_bytes_per_cycle": ParamSpec(float, 0, "bytes per cycle a core's L1 is filled with cube operands (0: the "
                                                   "feed is not modelled, only cube_efficiency)"),
    "cube_drain_cycles_per_element": ParamSpec(float, 0, "cycles per output element a cube base block spends "
                                                         "after its multiplications moving its result out of L0C "
                                                         "(0: not modelled)"),
    "cube_block_overhead_cycles": ParamSpec(float, 0, "fixed cycles of each cube base block"),
    "cube_block_dram_wait_cycles": ParamSpec(float, 0, "cycles a cube base block waits beyond its fixed cost "
                                                       "when its operands come from DRAM rather than L2"),
    "cube_pipeline_fill": ParamSpec(float, 0, "the share of one round of base blocks whose loads (or "
                                              "multiplications) a double-buffered cube kernel cannot overlap "
                                              "(0: loads and multiplications overlap fully)"),
    "vector_min_bytes_per_core": ParamSpec(int, 1, "the fewest bytes a vector kernel's tiling gives one core"),
    "max_tasks_per_stream": ParamSpec(int, 1, "tasks one stream may hold (GE splits longer streams)"),
    "max_streams": ParamSpec(int, 1, "streams per device"),
    "max_events": ParamSpec(int, 1, "events per device"),
}


@attrs.frozen
class Calibration:
    """What a profile's times were held against: the top-level ``calibration``
    entry. A profile without one was held against no measurement of its device."""

    #: the measurements, and how they were taken (the runs they are comparable to)
    against: str
    #: how far the emulated times came out from them
    result: str
    #: the command that reproduces ``result``
    command: str
    #: the mean absolute percentage error over each measured table, by the table's
    #: path from the repository's root (what ``result`` sums up; a test recomputes them)
    mape_percent: dict[str, float] = attrs.Factory(dict)


#: ATC's ``--precision_mode`` values: the profile's ``default_precision_mode`` is
#: one of them (what ATC picks when the option is not given)
PRECISION_MODES = ("force_fp16", "allow_fp32_to_fp16", "must_keep_origin_dtype", "allow_mix_precision", "force_fp32")
#: a profile without ``default_precision_mode`` gets ATC's documented default
#: (https://www.hiascend.com/doc_center/source/zh/canncommercial/62RC1/inferapplicationdev/atctool/atctool_000092.html)
_ATC_DEFAULT_PRECISION_MODE = "force_fp16"

#: how the source of a ``--device-param`` override begins
_COMMAND_LINE = "command line"
#: derived figures a profile states and the loader checks (relative tolerance)
_DERIVED_TOLERANCE = 0.01


@attrs.frozen
class DeviceProfile:
    """One device's numbers. ``values`` holds every key of :data:`PARAMS`;
    ``sources`` says where each came from ("assumed: <reason>" when no public
    figure exists, "command line" when overridden)."""

    name: str
    soc: str
    description: str
    values: dict[str, Any]
    sources: dict[str, str]
    assumed: frozenset[str]
    path: str = ""
    #: the precision mode ATC uses on this device when none is given (top-level
    #: ``default_precision_mode``), one of :data:`PRECISION_MODES`
    default_precision_mode: str = _ATC_DEFAULT_PRECISION_MODE
    #: whether the cube unit computes in f32 (top-level ``cube_fp32``): without
    #: it an f32 matrix op cannot keep its type
    cube_fp32: bool = True
    #: whether the cube loads ND matrices itself (top-level ``cube_nd_operands``):
    #: without it a MatMul whose operands are not whole 16 x 16 fractals takes
    #: FRACTAL_NZ operands, converted by TransData
    cube_nd_operands: bool = True
    #: whether a kernel starts on the free cores when fewer than its block dim are
    #: free (top-level ``block_dispatch``: a GPU's block scheduler), instead of
    #: waiting for all of them
    block_dispatch: bool = False
    #: the chip family CANN's op implementations key their choices on (top-level
    #: ``short_soc``, the platform config's ``Short_SoC_version``: "Ascend310P",
    #: "Ascend910", "Ascend910B"); empty for a device CANN does not run on
    short_soc: str = ""
    #: what the device memory is (top-level ``memory_type``: "LPDDR4X", "HBM2",
    #: "GDDR6"), as the report names it beside its bandwidth; empty when not stated
    memory_type: str = ""
    #: the parameters fitted to device measurements (``"fitted": true``, with the
    #: fit that set them as their source)
    fitted: frozenset[str] = frozenset()
    #: what the profile's times were held against (None: no measurement of the device)
    calibration: Calibration | None = None

    @property
    def overridden(self) -> list[str]:
        """The parameters ``--device-param`` changed from the profile's file."""
        return sorted(k for k, source in self.sources.items() if source.startswith(_COMMAND_LINE))

    def __getitem__(self, key: str) -> Any:
        """One parameter's value: ``profile["ai_cores"]``."""
        return self.values[key]

    @property
    def peak_fp16_tflops_per_core(self) -> float:
        return self.values["clock_mhz"] * self.values["cube_flops_per_cycle"] / 1e6

    @property
    def peak_fp16_tflops(self) -> float:
        return self.values["ai_cores"] * self.peak_fp16_tflops_per_core

    def derived(self) -> dict[str, float]:
        """The derived figures, by name."""
        return {"peak_fp16_tflops_per_core": self.peak_fp16_tflops_per_core,
                "peak_fp16_tflops": self.peak_fp16_tflops}

    def with_overrides(self, overrides: Iterable[str]) -> "DeviceProfile":
        """A copy with ``key=value`` overrides applied (DiagnosticError on a bad one)."""
        values = dict(self.values)
        sources = dict(self.sources)
        assumed = set(self.assumed)
        for text in overrides:
            key, value = parse_override(text)
            values[key] = value
            sources[key] = f"{_COMMAND_LINE} (--device-param {text})"
            assumed.discard(key)
        profile = attrs.evolve(self, values=values, sources=sources, assumed=frozenset(assumed))
        _validate_values(profile.values, f"device '{self.name}' after --device-param")
        return profile

    def to_dict(self) -> dict[str, Any]:
        """The profile as the report shows it: name, values, derived figures, assumed keys,
        what its times were held against."""
        return {"name": self.name, "soc": self.soc, "values": dict(self.values),
                "memory_type": self.memory_type or None,
                "derived": {k: round(v, 4) for k, v in self.derived().items()}, "assumed": sorted(self.assumed),
                "calibration": attrs.asdict(self.calibration) if self.calibration is not None else None}




def available_profiles() -> list[str]:
    """Names of the shipped profiles."""
    return sorted(f[:-5] for f in os.listdir(DEVICES_DIR) if f.endswith(".json"))


def _resolve(name_or_path: str) -> str:
    if os.sep in name_or_path or name_or_path.endswith(".json") or os.path.exists(name_or_path):
        if not os.path.isfile(name_or_path):
            raise _error(f"device profile file '{name_or_path}' does not exist")
        return name_or_path
    names = available_profiles()
    wanted = name_or_path.lower().removeprefix("ascend")
    for n in names:
        if n.lower() == wanted:
            return os.path.join(DEVICES_DIR, n + ".json")
    hint = [f"known devices: {', '.join(names)}"]
    if wanted == "910b":
        # CANN's own Ascend910B.ini is a first-generation 910 variant, not the A2 910B1-B4.
        hint.append("'910B' is ambiguous: name the SoC (910B2, 910B4, ...)")
    # compared as the lookup compares, without case or the "Ascend" prefix
    close = difflib.get_close_matches(wanted, [n.lower() for n in names], n=1)
    if close:
        hint.append(f"did you mean '{next(n for n in names if n.lower() == close[0])}'?")
    raise _error(f"unknown device '{name_or_path}'", *hint)


def load_profile(name_or_path: str = "910B2", overrides: Iterable[str] = ()) -> DeviceProfile:
    """Load a profile by name or JSON path and apply ``key=value`` overrides."""
    path = _resolve(name_or_path)
    from geir.source_text import read_source
    try:
        data = json.loads(read_source(path)[1])
    except json.JSONDecodeError as e:
        raise _error(f"device profile '{path}' is not valid JSON: {e}") from None
    profile = _from_json(data, path)
    overrides = list(overrides)
    return profile.with_overrides(overrides) if overrides else profile


def _from_json(data: Any, path: str) -> DeviceProfile:
    where = f"device profile '{path}'"
    if not isinstance(data, dict) or not isinstance(data.get("params"), dict):
        raise _error(f"{where} must be an object with a 'params' object")
    params = data["params"]
    missing = [k for k, spec in PARAMS.items() if k not in params and spec.default_from is None]
    if missing:
        raise _error(f"{where} lacks parameter(s) {', '.join(missing)}")
    unknown = [k for k in params if k not in PARAMS]
    if unknown:
        raise _error(f"{where} has unknown parameter(s) {', '.join(unknown)}",
                     f"known parameters: {', '.join(PARAMS)}")
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    assumed: set[str] = set()
    fitted: set[str] = set()
    for key, entry in params.items():
        if not isinstance(entry, dict) or "value" not in entry:
            raise _error(f"{where}: parameter '{key}' must be an object with a 'value'")
        values[key] = _coerce(key, entry["value"], where)
        if entry.get("assumed"):
            if not entry.get("reason"):
                raise _error(f"{where}: parameter '{key}' is assumed but gives no 'reason'")
            assumed.add(key)
            sources[key] = f"assumed: {entry['reason']}" + (f" (from {entry['source']})" if entry.get("source") else "")
        elif entry.get("source"):
            sources[key] = str(entry["source"])
            if entry.get("fitted"):
                fitted.add(key)
        else:
            raise _error(f"{where}: parameter '{key}' has neither a 'source' nor \"assumed\": true")
    for key, spec in PARAMS.items():
        if key not in values and spec.default_from is not None:
            values[key] = values[spec.default_from]
            sources[key] = f"not stated: taken from '{spec.default_from}'"
    values = {k: values[k] for k in PARAMS}  # file order, whatever the JSON's
    _validate_values(values, where)
    mode = _top_level(data, "default_precision_mode", _ATC_DEFAULT_PRECISION_MODE, where)
    if mode not in PRECISION_MODES:
        raise _error(f"{where}: 'default_precision_mode' must be one of {', '.join(PRECISION_MODES)}, got {mode!r}")
    cube_fp32 = _top_level_flag(data, "cube_fp32", True, where)
    cube_nd_operands = _top_level_flag(data, "cube_nd_operands", True, where)
    block_dispatch = _top_level_flag(data, "block_dispatch", False, where)
    short_soc = _top_level(data, "short_soc", "", where)
    if not isinstance(short_soc, str):
        raise _error(f"{where}: 'short_soc' must be a text (the platform config's Short_SoC_version), "
                     f"got {short_soc!r}")
    memory_type = _top_level(data, "memory_type", None, where)
    if memory_type is None:
        memory_type = ""
    elif not isinstance(memory_type, str) or not memory_type.strip():
        raise _error(f"{where}: 'memory_type' must be a text naming the device memory (\"LPDDR4X\", \"HBM2\"), "
                     f"got {memory_type!r}")
    profile = DeviceProfile(str(data.get("name", os.path.basename(path)[:-5])), str(data.get("soc", "")),
                            str(data.get("description", "")), values, sources, frozenset(assumed), path,
                            mode, cube_fp32, cube_nd_operands, block_dispatch, short_soc, memory_type,
                            frozenset(fitted), _calibration(data.get("calibration"), where))
    for key, entry in (data.get("derived") or {}).items():
        computed = profile.derived().get(key)
        if computed is None:
            raise _error(f"{where}: unknown derived figure '{key}'", "known: peak_fp16_tflops_per_core, peak_fp16_tflops")
        stated = float(entry["value"]) if isinstance(entry, dict) else float(entry)
        if abs(computed - stated) > _DERIVED_TOLERANCE * max(abs(stated), 1e-12):
            raise _error(f"{where}: derived '{key}' states {stated} but the parameters give {computed:.4g}")
    return profile


def _calibration(entry: Any, where: str) -> Calibration | None:
    """The top-level ``calibration`` entry: ``against``, ``result`` and ``command``
    as text, and ``mape_percent`` (optional) as table -> number."""
    if entry is None:
        return None
    texts = ("against", "result", "command")
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) and entry[k] for k in texts):
        raise _error(f"{where}: 'calibration' must be an object with 'against', 'result' and 'command' texts")
    unknown = sorted(set(entry) - {*texts, "mape_percent"})
    if unknown:
        raise _error(f"{where}: 'calibration' has unknown key(s) {', '.join(unknown)}",
                     "known keys: against, result, command, mape_percent")
    mape = entry.get("mape_percent", {})
    if not isinstance(mape, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0
                                             for v in mape.values()):
        raise _error(f"{where}: 'calibration' 'mape_percent' must map each table to a percentage")
    return Calibration(entry["against"], entry["result"], entry["command"], {str(k): float(v) for k, v in mape.items()})


def _top_level(data: dict[str, Any], key: str, default: Any, where: str) -> Any:
    """A top-level ``{"value": ..., "source": ...}`` entry's value (``default`` when absent)."""
    entry = data.get(key)
    if entry is None:
        return default
    if not isinstance(entry, dict) or "value" not in entry or not (entry.get("source") or entry.get("reason")):
        raise _error(f"{where}: '{key}' must be an object with a 'value' and a 'source'")
    return entry["value"]


def _top_level_flag(data: dict[str, Any], key: str, default: bool, where: str) -> bool:
    """A top-level true/false entry's value (``default`` when absent)."""
    value = _top_level(data, key, default, where)
    if not isinstance(value, bool):
        raise _error(f"{where}: '{key}' must be true or false, got {value!r}")
    return value


def _coerce(key: str, raw: Any, where: str) -> Any:
    spec = PARAMS[key]
    if spec.type is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in ("true", "1", "false", "0"):
            return raw.lower() in ("true", "1")
        raise _error(f"{where}: '{key}' must be true or false, got {raw!r}")
    if isinstance(raw, bool):
        raise _error(f"{where}: '{key}' must be a number, got {raw!r}")
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise _error(f"{where}: '{key}' must be a number, got {raw!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise _error(f"{where}: '{key}' must be finite, got {raw!r}")
    if spec.type is int:
        if number != int(number):
            raise _error(f"{where}: '{key}' must be a whole number, got {raw!r}")
        return int(number)
    return number


def _validate_values(values: dict[str, Any], where: str) -> None:
    for key, spec in PARAMS.items():
        if spec.type is not bool and values[key] < spec.minimum:
            bound = "positive" if spec.minimum > 0 and spec.type is float else f"at least {spec.minimum:g}"
            raise _error(f"{where}: '{key}' must be {bound}, got {values[key]}")


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` -> (key, typed value); DiagnosticError for an unknown key or a bad value."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise _error(f"--device-param expects KEY=VALUE, got '{text}'")
    if key not in PARAMS:
        derived = {"peak_fp16_tflops_per_core", "peak_fp16_tflops"}
        notes = []
        if key in derived:
            notes.append(f"'{key}' is derived: override clock_mhz, cube_flops_per_cycle or ai_cores instead")
        close = difflib.get_close_matches(key, list(PARAMS), n=1)
        if close:
            notes.append(f"did you mean '{close[0]}'?")
        notes.append(f"known parameters: {', '.join(PARAMS)}")
        raise _error(f"unknown device parameter '{key}'", *notes)
    return key, _coerce(key, raw.strip(), "--device-param")
