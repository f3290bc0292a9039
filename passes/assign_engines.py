"""``assign-engines``: the engine of every task op of every ``ge.graph`` — GE's
first multi-stream step (``EnginePlacer``: the cheapest engine that supports the
node wins).

For each op, in order of precedence:

1. an ``engine`` attribute already on the op wins (a user's or an earlier pass's
   decision), as GE keeps a node's engine name once set;
2. an ``engine_pin`` attribute (the user's pin) becomes the engine;
3. otherwise the op definition's default engine (AICore for compute, AICPU for
   data-dependent ops such as NMS and NonZero and for ``ge.onnx_op``, DVPP for
   media ops, HCCL for collectives; ``ge.cmo`` is an RTS task), and an op whose
   default is AICore falls back to AICPU where AICore cannot run it:

   * float64, complex or string element types, which no AICore kernel takes,
   * 64-bit integers, except in the ops whose CANN AI Core kernels take them
     (``AICORE_INT64`` among the op's traits: elementwise arithmetic and
     comparisons, where, and data movement such as transpose, concat, slice,
     gather and expand; the casts to and from int64 of ``AICORE_INT64_CASTS``),
     and the further ops and casts the device's chip has int64 kernels for
     (``aicore_int64_extras``: Neg, Abs and ReduceMax on the 910B, ReduceSum on
     the 910B and the 310P, a cast between int64 and f32 on the 910B, ...). An
     op's int64 tensors are its results, and the input a cast converts; ArgMax's
     and ArgMin's int64 results are indices (``INT64_INDICES``), which every
     chip's kernel writes, so their input decides (int64 on the 910 and the 910B
     only),
   * a result whose shape is not static (the kernel's tiling needs every size),
   * ``ge.top_k`` (data-dependent selection: GE's AICore TopK needs a constant k
     and a sorted-size limit; we follow the conservative rule).

   Reshapes (reshape, flatten, squeeze, unsqueeze, identity) never fall back:
   they run no kernel on any engine (GE's local engine gives their output the
   input's memory, whatever its element type).

   Each fallback is a remark at the op naming the reason
   (``ge-opt -Rpass=assign-engines`` prints them).

``exclude-engines`` mirrors GE's ``ge.exec.exclude_engines``: excluded AICore
sends the op to AICPU (with a remark); an op whose only engine is excluded is an
error.
"""

from __future__ import annotations

import attrs

from geir.attributes import StringAttr
from geir.backends.cost_model import NO_TASK_OPS, normalize_engine
from geir.backends.device_profile import load_profile
from geir.diagnostics import Diagnostic, DiagnosticError, op_position
from geir.dialects.ge import AICORE_INT64, AICORE_INT64_CASTS, INT64_INDICES, aicore_int64_extras
from geir.module import Module
from geir.operation import Operation
from geir.passes.pass_base import ModulePass, PassContext, option
from geir.passes.scheduling.op_graph import is_node
from geir.types import TensorType

__all__ = ["AssignEngines", "engine_for", "AICPU_FALLBACK_TYPES", "INT64_TYPES"]

AICORE, AICPU, RTS = "AICore", "AICPU", "RTS"
#: element types no AICore kernel takes
AICPU_FALLBACK_TYPES = frozenset({"f64", "complex<f32>", "complex<f64>", "!ge.string"})
#: 64-bit integers: AICore kernels take them only in the ops with the AICORE_INT64 trait
INT64_TYPES = frozenset({"i64", "ui64", "si64"})
#: AICore ops GE runs on AICPU in practice
AICPU_OPS = frozenset({"ge.top_k"})


def _int64_name(element_type: str) -> str:
    """``element_type`` with a signed integer's ``si`` spelled ``i``, as the cast tables spell it."""
    return element_type[1:] if element_type.startswith("si") else element_type


def _fallback_reason(op: Operation, shapes_bound: bool = False, soc: str = "") -> str | None:
    """Why an op whose default engine is AICore must run on AICPU, or None
    (``shapes_bound``: as if its dynamic dims were bound, as a gear binds them;
    ``soc``: the chip, for the int64 kernels some chips have and others do not)."""
    if op.name in AICPU_OPS:
        return f"'{op.name}' is a data-dependent selection, which runs on AICPU"
    od = op.definition
    extra_ops, extra_casts = aicore_int64_extras(soc)
    int64_ok = (od is not None and od.has_trait(AICORE_INT64)) or op.name in extra_ops
    indices = od is not None and od.has_trait(INT64_INDICES)
    first = op.operands[0].type if op.operands else None
    if isinstance(first, TensorType) and str(first.element_type) in INT64_TYPES and indices and not int64_ok:
        return f"operand #0 has element type {first.element_type}, which the AICore kernel of '{op.name}' does not take"
    result = op.results[0].type if op.results else None
    if op.name == "ge.cast" and isinstance(first, TensorType) and isinstance(result, TensorType):
        source, target = str(first.element_type), str(result.element_type)
        if source in INT64_TYPES or target in INT64_TYPES:
            pair = (_int64_name(source), _int64_name(target))
            if pair not in AICORE_INT64_CASTS and pair not in extra_casts:
                return f"a cast from {source} to {target}, which the AICore kernel of 'ge.cast' does not do"
        int64_ok = True
    for k, r in enumerate(op.results):
        t = r.type
        if isinstance(t, TensorType):
            et = str(t.element_type)
            if et in AICPU_FALLBACK_TYPES:
                return f"result #{k} has element type {t.element_type}, which AICore cannot compute on"
            if et in INT64_TYPES and not int64_ok and not indices:
                return (f"result #{k} has element type {t.element_type}, which the AICore kernel of '{op.name}' "
                        f"does not take")
            if not t.is_static and not shapes_bound:
                return f"result #{k} has a dynamic shape ({t}), which an AICore kernel cannot tile"
    for k, v in enumerate(op.operands):
        t = v.type
        if isinstance(t, TensorType) and str(t.element_type) in ("f64", "complex<f32>", "complex<f64>"):
            return f"operand #{k} has element type {t.element_type}, which AICore cannot compute on"
    return None


def engine_for(op: Operation, excluded: frozenset[str] = frozenset(),
               shapes_bound: bool = False, soc: str = "") -> tuple[str, str | None]:
    """The engine ``op`` gets by default and, when it is an AICore→AICPU
    fallback, the reason (else None). With ``shapes_bound`` a dynamic shape
    does not count: the engine the op gets once its dims are bound. ``soc``
    (a device profile's) adds the int64 kernels only some chips have."""
    od = op.definition
    if op.name == "ge.cmo":
        return RTS, None
    default = (od.engine if od is not None else None) or AICPU
    if default == AICORE and op.name.removeprefix("ge.") not in NO_TASK_OPS:
        reason = _fallback_reason(op, shapes_bound, soc)
        if reason is None and AICORE in excluded:
            reason = "AICore is excluded (exclude-engines)"
        if reason is not None:
            return AICPU, reason
    return default, None


@attrs.define
class AssignEngines(ModulePass):
    """Give every task op an ``engine`` attribute."""

    name = "assign-engines"
    summary = "give every op an engine (AICore, AICPU, DVPP, HCCL), AICore falling back to AICPU where it cannot run"

    exclude_engines: str = option("", "engines no op may use, comma-separated (GE's ge.exec.exclude_engines): "
                                      "AICore, AICPU, DVPP, HCCL")
    device: str = option("910B2", "device profile: its chip decides which 64-bit integer ops its AICore kernels "
                                  "take beyond those every chip's do")

    def run(self, module: Module, ctx: PassContext) -> None:
        excluded = self._excluded()
        soc = load_profile(self.device).soc
        errors: list[Diagnostic] = []
        for graph in module.graphs():
            for op in graph.regions[0].blocks[0].ops:
                if not is_node(op) or op.dialect != "ge":
                    continue
                engine = self._engine(op, excluded, soc, ctx, errors)
                if engine is not None and "engine" not in op.attributes:
                    op.attributes["engine"] = StringAttr(engine)
        if errors:
            raise DiagnosticError(errors)

    def _excluded(self) -> frozenset[str]:
        out = set()
        for name in filter(None, (s.strip() for s in self.exclude_engines.split(","))):
            pool = normalize_engine(name)
            if pool is None or pool not in (AICORE, AICPU, "DVPP", "HCCL"):
                raise DiagnosticError(Diagnostic(
                    "error", f"assign-engines: exclude-engines names unknown engine '{name}'; "
                             "known: AICore, AICPU, DVPP, HCCL"))
            out.add(pool)
        return frozenset(out)

    def _engine(self, op: Operation, excluded: frozenset[str], soc: str, ctx: PassContext,
                errors: list[Diagnostic]) -> str | None:
        for attr in ("engine", "engine_pin"):
            given = op.get_attr(attr)
            if given is None:
                continue
            if normalize_engine(str(given)) is None:
                errors.append(Diagnostic("error", f"'{op.name}' op has unknown {attr} '{given}'; known engines: "
                                                  "AICore, VectorCore, AICPU, DVPP, HCCL, RTS, GE_LOCAL",
                                         op_position(op)))
                return None
            return str(given)
        engine, reason = engine_for(op, excluded, soc=soc)
        if normalize_engine(engine) in excluded:
            errors.append(Diagnostic("error", f"'{op.name}' op can only run on {engine}, which exclude-engines "
                                              "excludes", op_position(op)))
            return None
        if reason is not None:
            ctx.remark(op, f"'{op.name}' runs on AICPU instead of AICore: {reason}")
        return engine
