"""Textual pass pipelines, as MLIR writes them:
``canonicalize,partition-streams{max-streams=4 strategy=ge},insert-events``,
optionally wrapped in ``builtin.module(...)``."""

from __future__ import annotations

import difflib
from typing import Any, Iterable

import attrs

from geir.passes.pass_base import ModulePass
from geir.passes.registry import PASSES, PassOptionInfo, get_pass_class, pass_options

__all__ = ["PipelineError", "parse_pipeline", "make_pass", "pipeline_options", "PipelineOption", "NAMED_PIPELINES",
           "PIPELINE_OPTION_NAMES", "GE_OPTIMIZE"]

#: GE's graph preparation and optimisation, what ATC does to a graph before its
#: build allocates streams: shapes, AIPP, folding, graph fusion, the precision
#: mode, formats, engines, UB fusion and the fusion engine's no-task splits
GE_OPTIMIZE = ("specialize-shapes,insert-aipp,canonicalize,cse,fuse-graph,precision-mode,small-channel,"
               "insert-trans-data,fuse-conv-concat,assign-engines,fuse-ub,alias-splits")

#: pipelines registered by name: ``--pass-pipeline=ge-default`` or
#: ``ge-default{strategy=ge max-streams=4}`` (an option goes to every pass of the
#: pipeline that declares it)
NAMED_PIPELINES: dict[str, str] = {
    "ge-optimize": GE_OPTIMIZE,
    # ...then GE's build: streams, events, memory, the task list
    "ge-default": GE_OPTIMIZE + ",partition-streams,insert-events,reuse-memory,lower-to-tasks",
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
    ("alias-splits", "enable"): "alias-splits",
    ("insert-trans-data", "enable"): "insert-trans-data",
    ("specialize-shapes", "shapes"): "input-shape",
}

#: the help of an option several passes of a named pipeline declare, each with a
#: help of its own
SHARED_OPTION_HELP: dict[str, str] = {
    "device": "device profile of every pass that takes one (a name or a JSON path)",
    "alignment": "byte alignment of arena buffers and weights (GE: 512)",
}


@attrs.frozen
class PipelineOption:
    """An option a named pipeline takes: its name there, and each pass it reaches
    with that pass's own option (its type, default and help)."""

    name: str
    passes: tuple[tuple[str, PassOptionInfo], ...]

    @property
    def help(self) -> str:
        """What the option does: its pass's help, or one for all the passes it reaches."""
        if len(self.passes) > 1 and self.name in SHARED_OPTION_HELP:
            return SHARED_OPTION_HELP[self.name]
        return self.passes[0][1].help


def pipeline_options(name: str) -> list[PipelineOption]:
    """The options named pipeline ``name`` takes, in the order its passes first
    declare them; an option several passes declare (``device``) reaches them all."""
    found: dict[str, list[tuple[str, PassOptionInfo]]] = {}
    for pass_name in _pipeline_passes(name):
        cls = get_pass_class(pass_name)
        assert cls is not None, f"named pipeline {name} lists unknown pass {pass_name}"
        for info in pass_options(cls):
            found.setdefault(PIPELINE_OPTION_NAMES.get((pass_name, info.name), info.name), []).append((pass_name, info))
    return [PipelineOption(option, tuple(reached)) for option, reached in found.items()]


def _pipeline_passes(name: str) -> list[str]:
    return [n.strip() for n in NAMED_PIPELINES[name].split(",")]


class PipelineError(Exception):
    """A pipeline names an unknown pass or gives a bad option; the message says
    what exists."""


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside braces and parentheses."""
    parts, depth, cur, quote = [], 0, [], ""
    for ch in text:
        if quote or ch in "'\"" and depth > 0:
            # a quoted option value: nothing in it separates or nests
            quote = "" if ch == quote else (quote or ch)
            cur.append(ch)
            continue
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
    if quote:
        raise PipelineError(f"unterminated {quote} in pass pipeline '{text}'")
    if depth != 0:
        raise PipelineError(f"unbalanced braces in pass pipeline '{text}'")
    parts.append("".join(cur))
    return parts


def _split_options(text: str) -> list[str]:
    """``key=value`` items separated by spaces, as MLIR reads a pass's options: a
    value may be quoted ('...' or "...") or braced, and then hold spaces (the
    whole pipeline's quotes were checked when it was split into passes)."""
    items, cur, quote, depth = [], [], "", 0
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch.isspace() and depth == 0:
            if cur:
                items.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if cur:
        items.append("".join(cur))
    return items


def _unquote(value: str) -> str:
    """A quoted value without its quotes, as MLIR passes it to the option."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


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
        anchor, paren, _ = name.partition("(")
        if paren:
            # MLIR's `func.func(cse)`: a pipeline nested on the ops of one name
            raise PipelineError(f"'{item}' nests passes on '{anchor.strip()}' ops, but every geir pass runs on the "
                                f"whole module (each graph in it): write the passes without '{anchor.strip()}(...)'")
        options: dict[str, str] = {}
        if brace:
            if not rest.endswith("}"):
                raise PipelineError(f"expected '}}' at the end of the options of '{name}'")
            for opt in _split_options(rest[:-1]):
                key, eq, value = opt.partition("=")
                if not eq:
                    raise PipelineError(f"option '{key}' of pass '{name}' needs a value: {key}=<value>")
                options[key] = _unquote(value)
        name = name.strip()
        if name in NAMED_PIPELINES:
            passes += _named_pipeline(name, options)
        else:
            passes.append(make_pass(name, options))
    return passes


def _named_pipeline(name: str, options: dict[str, str]) -> list[ModulePass]:
    """The passes of named pipeline ``name``, each given the options it declares."""
    reached = {option.name: option for option in pipeline_options(name)}
    # max_streams is max-streams, as for a single pass
    options = {k if k in reached else k.replace("_", "-"): v for k, v in options.items()}
    unknown = sorted(set(options) - reached.keys())
    if unknown:
        raise PipelineError(f"no pass of pipeline '{name}' has option '{unknown[0]}'"
                            f"{_suggestion(unknown[0], reached.values())}; its options: {', '.join(sorted(reached))}")
    # each pass takes the options that reach it, under its own names for them
    given: dict[str, dict[str, str]] = {}
    for key, value in options.items():
        for pass_name, info in reached[key].passes:
            given.setdefault(pass_name, {})[info.name] = value
    return [make_pass(pass_name, given.get(pass_name, {})) for pass_name in _pipeline_passes(name)]


def _suggestion(unknown: str, options: Iterable[PipelineOption]) -> str:
    """' (did you mean ...?)' for a pipeline option a pass spells ``unknown`` (the
    pipeline renamed it) or one spelled close to it; empty when none is."""
    for option in options:
        for pass_name, info in option.passes:
            if info.name == unknown:
                return f" ({pass_name}'s '{unknown}' is '{option.name}' here)"
    close = difflib.get_close_matches(unknown, sorted(o.name for o in options), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


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
