"""The pass registry: pass name -> the module that defines it, imported on first
use so that ``ge-opt`` starts without loading every pass."""

from __future__ import annotations

import importlib

import attrs

from geir.passes.pass_base import ModulePass

__all__ = ["PASSES", "get_pass_class", "all_pass_classes", "PassOptionInfo", "pass_options"]

#: pass name -> "module:ClassName"
PASSES: dict[str, str] = {
    "alias-splits": "geir.passes.alias_splits:AliasSplits",
    "assign-engines": "geir.passes.assign_engines:AssignEngines",
    "canonicalize": "geir.passes.canonicalize:Canonicalize",
    "cse": "geir.passes.cse:CSE",
    "fuse-graph": "geir.passes.fuse_graph:FuseGraph",
    "fuse-conv-concat": "geir.passes.fuse_conv_concat:FuseConvConcat",
    "fuse-ub": "geir.passes.fuse_ub:FuseUB",
    "insert-aipp": "geir.passes.insert_aipp:InsertAipp",
    "insert-events": "geir.passes.insert_events:InsertEvents",
    "lower-to-tasks": "geir.passes.lower_to_tasks:LowerToTasks",
    "partition-streams": "geir.passes.partition_streams:PartitionStreams",
    "precision-mode": "geir.passes.precision_mode:PrecisionMode",
    "reuse-memory": "geir.passes.reuse_memory:ReuseMemory",
    "schedule-stats": "geir.passes.schedule_stats:ScheduleStats",
    "small-channel": "geir.passes.small_channel:SmallChannel",
    "insert-trans-data": "geir.passes.insert_trans_data:InsertTransData",
    "specialize-shapes": "geir.passes.specialize_shapes:SpecializeShapes",
}


def get_pass_class(name: str) -> type[ModulePass] | None:
    """The class of pass ``name``, or None when no such pass exists."""
    target = PASSES.get(name)
    if target is None:
        return None
    module, _, cls_name = target.partition(":")
    cls = getattr(importlib.import_module(module), cls_name)
    # Options are attrs fields: a pass class without @attrs.define has none.
    assert attrs.has(cls) and "__attrs_attrs__" in cls.__dict__, f"pass {cls_name} needs @attrs.define"
    return cls


def all_pass_classes() -> list[type[ModulePass]]:
    return [c for c in (get_pass_class(n) for n in sorted(PASSES)) if c is not None]


@attrs.frozen
class PassOptionInfo:
    name: str  # as written in a pipeline: max-streams (a field's metadata "name" when it has one)
    field: str  # the attrs field: max_streams
    type: type
    default: object
    help: str


def pass_options(cls: type[ModulePass]) -> list[PassOptionInfo]:
    """The options of pass ``cls``, from its attrs fields."""
    import typing
    hints = typing.get_type_hints(cls)
    return [PassOptionInfo(f.metadata.get("name", f.name.replace("_", "-")), f.name, hints.get(f.name, str), f.default,
                           f.metadata.get("help", "")) for f in attrs.fields(cls)]
