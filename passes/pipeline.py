"""Textual pass pipelines, as MLIR writes them:
``canonicalize,partition-streams{max-streams=4 strategy=ge},insert-events``,
optionally wrapped in ``builtin.module(...)``."""

from __future__ import annotations

from typing import Any

from geir.passes.pass_base import ModulePass
from geir.passes.registry import PASSES, get_pass_class, pass_options

__all__ = ["PipelineError", "parse_pipeline", "make_pass", "NAMED_PIPELINES", "PIPELINE_OPTION_NAMES"]

#: pipelines registered by name: ``--pass-pipeline=ge-default`` or
#: ``ge-default{strategy=ge max-streams=4}`` (an option goes to every pass of the
#: pipeline that declares it)
NAMED_PIPELINES: dict[str, str] = {
    "ge-default": "specialize-shapes,insert-aipp,canonicalize,cse,fuse-graph,precision-mode,small-channel,insert-trans-data,fuse-conv-concat,assign-engines,fuse-ub,partition-streams,insert-events,reuse-memory,"
                  "lower-to-tasks",
}

#: (pass, option) -> the option's name on a named pipeline, where the pass's own
#: name would reach other passes: ``ge-default{precision-mode=force_fp16}`` is
#: ``precision-mode{mode=force_fp16}``, while ``ge-default{mode=host}`` stays
#: partition-streams' runtime mode
PIPELINE_OPTION_NAMES: dict[tuple[str, str], str] = {
    ("precision-mode", "mode"): "precision-mode",
    ("small-channel", "enable"): "enable-small-channel",
    ("insert-aipp", "config"): "insert-op-conf",
    ("fuse-conv-concat", "enable"): "fuse-conv-concat",
    ("insert-trans-data", "enable"): "insert-trans-data",
    ("specialize-shapes", "shapes"): "input-shape",
}


class PipelineError(Exception):
    """A pipeline names an unknown pass or gives a bad option; the message says
    what exists."""


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside braces and parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced '{ch}' in pass pipeline '{text}'")
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise PipelineError(f"unbalanced braces in pass pipeline '{text}'")
    parts.append("".join(cur))
    return parts


def parse_pipeline(text: str) -> list[ModulePass]:
    """The passes of pipeline ``text``, in order."""
    text = text.strip()
    for anchor in ("builtin.module(", "module("):
        if text.startswith(anchor) and text.endswith(")"):
            text = text[len(anchor):-1]
            break
    passes: list[ModulePass] = []
    for item in _split_top(text, ","):
        item = item.strip()
        if not item:
            continue
        name, brace, rest = item.partition("{")
        options: dict[str, str] = {}
        if brace:
            if not rest.endswith("}"):
                raise PipelineError(f"expected '}}' at the end of the options of '{name}'")
            for opt in rest[:-1].split():
                key, eq, value = opt.partition("=")
                if not eq:
                    raise PipelineError(f"option '{key}' of pass '{name}' needs a value: {key}=<value>")
                options[key] = value
        name = name.strip()
        if name in NAMED_PIPELINES:
            passes += _named_pipeline(name, options)
        else:
            passes.append(make_pass(name, options))
    return passes


def _named_pipeline(name: str, options: dict[str, str]) -> list[ModulePass]:
    """The passes of named pipeline ``name``, each given the options it declares."""
    names = [n.strip() for n in NAMED_PIPELINES[name].split(",")]
    used: set[str] = set()
    passes = []
    for pass_name in names:
        cls = get_pass_class(pass_name)
        assert cls is not None, f"named pipeline {name} lists unknown pass {pass_name}"
        declared = {PIPELINE_OPTION_NAMES.get((pass_name, o.name), o.name): o.name for o in pass_options(cls)}
        mine = {k: v for k, v in options.items() if k in declared}
        used |= mine.keys()
        passes.append(make_pass(pass_name, {declared[k]: v for k, v in mine.items()}))
    unknown = sorted(set(options) - used)
    if unknown:
        raise PipelineError(f"no pass of pipeline '{name}' ({', '.join(names)}) has option '{unknown[0]}'")
    return passes


def make_pass(name: str, options: dict[str, str]) -> ModulePass:
    """Instantiate pass ``name`` with textual ``options``."""
    cls = get_pass_class(name)
    if cls is None:
        known = ", ".join(sorted(PASSES))
        raise PipelineError(f"'{name}' does not refer to a registered pass; registered passes: {known}")
    infos = {o.name: o for o in pass_options(cls)}
    kwargs: dict[str, Any] = {}
    for key, raw in options.items():
        info = infos.get(key) or infos.get(key.replace("_", "-"))
        if info is None:
            known = ", ".join(sorted(infos)) or "none"
            raise PipelineError(f"no such option '{key}' for pass '{name}'; its options: {known}")
        kwargs[info.field] = _convert(raw, info.type, name, info.name)
    return cls(**kwargs)


def _convert(raw: str, typ: type, pass_name: str, opt: str) -> Any:
    try:
        if typ is bool:
            if raw.lower() in ("true", "1", "on"):
                return True
            if raw.lower() in ("false", "0", "off"):
                return False
            raise ValueError
        if typ is int:
            return int(raw, 0)
        if typ is float:
            return float(raw)
        return raw
    except ValueError:
        kind = {bool: "a boolean (true/false)", int: "an integer", float: "a number"}.get(typ, "a string")
        raise PipelineError(f"option '{opt}' of pass '{pass_name}' expects {kind}, got '{raw}'") from None
