"""What a sweep runs: models x strategies x max-streams x devices x memory
algorithms x runtime modes x graph preparations, from a config file (TOML or
JSON) and/or the command line's lists (which win over the file's).

A config file holds the same lists under the same names::

    # sweep.toml
    models = ["inception", "light", "nets/my.onnx"]   # paths relative to this file
    strategies = ["single", "ge", "cost"]
    max_streams = [2, 4, 8]
    devices = ["910B2", "V100"]
    memory = ["best", "ge-blocks"]        # reuse-memory algorithms, or "none"
    modes = ["sink"]                      # sink | host
    prepare = ["ge-optimize"]             # ge-optimize (as ge-default) | none (as imported)
    input_shape = ["batch=8", "seq=128"]  # bindings of dynamic dims, where a model has them
    time_limit = 10.0                     # seconds for strategy=optimal

Every value is checked before anything runs; an error points at the value in
the file (``file:line:col``, the line and a caret) or names the option.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from typing import Any

import attrs

from geir.attributes import FileLineColLoc, Location
from geir.diagnostics import Diagnostic, DiagnosticError, SourceFile

__all__ = ["Configuration", "Sweep", "Setting", "load_config", "MEMORY_ALGORITHMS", "DEFAULT_STRATEGIES",
           "CONFIG_KEYS"]

#: reuse-memory's algorithms, and "none": no reuse-memory pass (a fresh buffer per tensor)
MEMORY_ALGORITHMS = ("none", "greedy-by-size", "ge-blocks", "best")
#: what a sweep runs without --strategies (optimal is slow past a hundred ops: ask for it)
DEFAULT_STRATEGIES = ("single", "ge", "ge-parallel", "chain-cover", "cost")
MODES = ("sink", "host")
#: how a model's graph is prepared before the streams are planned: as ge-default
#: prepares it for the device (``ge-optimize``: ATC's fusion, precision mode,
#: formats, engines and UB fusion), or as imported (``none``: engines only)
PREPARATIONS = ("ge-optimize", "none")
#: config keys (dashes are accepted for underscores) -> the command-line option of the same list
CONFIG_KEYS = {"models": "--models", "strategies": "--strategies", "max_streams": "--max-streams",
               "devices": "--devices", "memory": "--memory", "modes": "--modes", "prepare": "--prepare",
               "input_shape": "--input-shape", "time_limit": "--time-limit"}


@attrs.frozen(order=True)
class Configuration:
    """One point of the sweep's configuration space (a model runs under each)."""

    strategy: str
    max_streams: int
    device: str
    memory: str
    mode: str = "sink"
    #: one of :data:`PREPARATIONS`
    prepare: str = "ge-optimize"

    def columns(self) -> dict[str, Any]:
        """The configuration as result-table columns."""
        return {"strategy": self.strategy, "max_streams": self.max_streams, "device": self.device,
                "memory": self.memory, "mode": self.mode, "prepare": self.prepare}


@attrs.define
class Setting:
    """One value of a list with where it was written: a config file position,
    or the command-line option that gave it."""

    value: Any
    location: Location | None = None
    option: str = ""

    def error(self, message: str, notes: tuple[str, ...] = ()) -> DiagnosticError:
        """A diagnostic about this value, at its position (or naming its option)."""
        named = self.location is None and self.option  # a positional model names itself
        d = Diagnostic("error", f"{self.option}: {message}" if named else message, self.location)
        for n in notes:
            d.attach_note(n)
        return DiagnosticError(d)


@attrs.define
class Sweep:
    """The lists a sweep crosses, validated by :meth:`check`."""

    models: list[Setting] = attrs.Factory(list)
    strategies: list[Setting] = attrs.Factory(lambda: [Setting(s, None, "--strategies") for s in DEFAULT_STRATEGIES])
    max_streams: list[Setting] = attrs.Factory(lambda: [Setting(8, None, "--max-streams")])
    devices: list[Setting] = attrs.Factory(lambda: [Setting("910B2", None, "--devices")])
    memory: list[Setting] = attrs.Factory(lambda: [Setting("best", None, "--memory")])
    modes: list[Setting] = attrs.Factory(lambda: [Setting("sink", None, "--modes")])
    prepare: list[Setting] = attrs.Factory(lambda: [Setting("ge-optimize", None, "--prepare")])
    #: NAME=DIMS bindings of dynamic dims (``batch=8``), each applied to the models that have NAME
    input_shape: list[Setting] = attrs.Factory(list)
    time_limit: Setting = attrs.Factory(lambda: Setting(10.0, None, "--time-limit"))
    #: relative model paths are taken from here (the config file's folder)
    base_dir: str = "."

    def set_from_cli(self, key: str, text: str) -> None:
        """Replace list ``key`` by the comma-separated ``text`` of its option."""
        option = CONFIG_KEYS[key]
        if key == "time_limit":
            self.time_limit = Setting(_number(text, option), None, option)
            return
        items = [t.strip() for t in text.split(",")]
        if not text.strip() or any(not t for t in items):
            raise DiagnosticError(Diagnostic("error", f"{option}: empty item in '{text}' (a comma-separated list)"))
        if key == "max_streams":
            settings = [Setting(_int(t, option), None, option) for t in items]
        else:
            settings = [Setting(t, None, option) for t in items]
        setattr(self, key, settings)

    def check(self) -> None:
        """Every name known, every number in range (DiagnosticError otherwise).
        Device names become the profiles' own spelling, so ``910b2`` and
        ``910B2`` are one device in the results."""
        from geir.backends.device_profile import load_profile
        from geir.passes.scheduling.strategies import STRATEGIES
        if not self.models:
            raise DiagnosticError(Diagnostic("error", "no models to run: name them (ge-bench model.onnx), give "
                                                      "--models, or a config file with 'models'"))
        from geir.passes.scheduling import strategy_registry
        known_strategies = [*STRATEGIES, *strategy_registry.names()]  # user strategies too
        for s in self.strategies:
            _check_choice(s, known_strategies, "strategy")
        for s in self.memory:
            _check_choice(s, MEMORY_ALGORITHMS, "memory algorithm")
        for s in self.modes:
            _check_choice(s, MODES, "mode")
        for s in self.prepare:
            _check_choice(s, PREPARATIONS, "graph preparation")
        self.shape_bindings()
        for s in self.max_streams:
            if not isinstance(s.value, int) or isinstance(s.value, bool) or s.value < 1:
                raise s.error(f"max-streams must be a positive integer, got {s.value!r}")
        limit = self.time_limit
        if not isinstance(limit.value, (int, float)) or isinstance(limit.value, bool) or limit.value <= 0:
            raise limit.error(f"time-limit must be a positive number of seconds, got {limit.value!r}")
        for s in self.devices:
            if not isinstance(s.value, str):
                raise s.error(f"a device is a profile name or a JSON path, got {s.value!r}")
            path = s.value if s.location is None or os.path.isabs(s.value) else os.path.join(self.base_dir, s.value)
            try:
                profile = load_profile(path if s.value.endswith(".json") else s.value)
            except DiagnosticError as e:
                d = e.diagnostics[0]
                raise s.error(d.message, tuple(n.message for n in d.notes)) from None
            s.value = path if s.value.endswith(".json") else profile.name
        for s in self.models:
            if not isinstance(s.value, str):
                raise s.error(f"a model is a name or a path, got {s.value!r}")

    def configurations(self) -> list[Configuration]:
        """The cross product, in the order the lists give (each point once)."""
        seen: dict[Configuration, None] = {}
        for st, ms, dev, mem, mode, prep in itertools.product(self.strategies, self.max_streams, self.devices,
                                                              self.memory, self.modes, self.prepare):
            seen.setdefault(Configuration(st.value, ms.value, dev.value, mem.value, mode.value, prep.value))
        return list(seen)

    def shape_bindings(self) -> dict[str, tuple[int, ...]]:
        """``input_shape``'s bindings by name (DiagnosticError at a malformed one,
        or at a name bound twice)."""
        from geir.passes.specialize_shapes import parse_shape_bindings
        out: dict[str, tuple[int, ...]] = {}
        for s in self.input_shape:
            if not isinstance(s.value, str):
                raise s.error(f"an input shape is NAME=DIMS, got {s.value!r}")
            try:
                bound = parse_shape_bindings(s.value, s.option or "input_shape")
            except DiagnosticError as e:
                raise DiagnosticError(Diagnostic("error", e.diagnostics[0].message, s.location)) from None
            for name in bound:
                if name in out:
                    raise DiagnosticError(Diagnostic("error", f"{s.option or 'input_shape'} binds '{name}' twice",
                                                     s.location))
            out.update(bound)
        return out


def _check_choice(s: Setting, known: Any, what: str) -> None:
    import difflib
    if isinstance(s.value, str) and s.value in known:
        return
    notes = [f"known: {', '.join(known)}"]
    close = difflib.get_close_matches(str(s.value), list(known), n=1)
    if close:
        notes.append(f"did you mean '{close[0]}'?")
    raise s.error(f"unknown {what} '{s.value}'", tuple(notes))


def _int(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise DiagnosticError(Diagnostic("error", f"{option}: '{text}' is not an integer")) from None


def _number(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise DiagnosticError(Diagnostic("error", f"{option}: '{text}' is not a number")) from None


def load_config(path: str, sweep: Sweep, sources: Any) -> None:
    """Fill ``sweep`` from the TOML (``.toml``) or JSON file ``path``; its text
    goes into ``sources`` so diagnostics can show the offending line."""
    from geir.source_text import read_source
    text = read_source(path)[1]
    sources.add(SourceFile(path, text))
    data = _parse(path, text)
    if not isinstance(data, dict):
        raise DiagnosticError(Diagnostic("error", "a sweep config is a table (TOML) or an object (JSON)",
                                         FileLineColLoc(path, 1, 1)))
    locate = _Locator(path, text)
    sweep.base_dir = os.path.dirname(os.path.abspath(path))
    for raw_key, value in data.items():
        key = raw_key.replace("-", "_")
        if key not in CONFIG_KEYS:
            import difflib
            d = Diagnostic("error", f"unknown key '{raw_key}' in the sweep config", locate(raw_key))
            d.attach_note(f"known keys: {', '.join(CONFIG_KEYS)}")
            close = difflib.get_close_matches(key, list(CONFIG_KEYS), n=1)
            if close:
                d.attach_note(f"did you mean '{close[0]}'?")
            raise DiagnosticError(d)
        if key == "time_limit":
            sweep.time_limit = Setting(value, locate(raw_key, None, value=True), "")
            continue
        values = value if isinstance(value, list) else [value]
        if not values:
            raise DiagnosticError(Diagnostic("error", f"'{raw_key}' is an empty list", locate(raw_key)))
        settings = [Setting(v, locate(raw_key, i if isinstance(value, list) else None, value=True), "")
                    for i, v in enumerate(values)]
        if key != "max_streams":
            for s in settings:
                if not isinstance(s.value, str):
                    raise s.error(f"'{raw_key}' holds names (strings), got {s.value!r}")
        setattr(sweep, key, settings)


def _parse(path: str, text: str) -> Any:
    if path.endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise DiagnosticError(Diagnostic("error", f"invalid JSON: {e.msg}",
                                             FileLineColLoc(path, e.lineno, e.colno))) from None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 reads TOML through tomli
        try:
            import tomli as tomllib
        except ImportError:
            raise DiagnosticError(Diagnostic("error", "a TOML sweep config needs Python 3.11 or the tomli package; "
                                                      "or write it as JSON")) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # tomllib puts the position at the end of its message: "... (at line 3, column 7)".
        message = str(e)
        m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if m is None:
            m2 = re.search(r"\s*\(at end of document\)$", message)
            lines = text.split("\n")
            loc = FileLineColLoc(path, len(lines), len(lines[-1]) + 1) if m2 else FileLineColLoc(path, 1, 1)
            message = message[: m2.start()] if m2 else message
        else:
            loc = FileLineColLoc(path, int(m.group(1)), int(m.group(2)))
            message = message[: m.start()]
        raise DiagnosticError(Diagnostic("error", f"invalid TOML: {message}", loc)) from None


class _Locator:
    """Positions of keys and list items in a config's text. Neither tomllib nor
    json reports where a value was, so the text is scanned: the key, then the
    items of the list after it (strings, numbers, comments skipped)."""

    _ITEM = re.compile(r"""\s*(?:\#[^\n]*\n\s*)*("(?:[^"\\]|\\.)*"|'[^']*'|[^,\]\s#]+)\s*(?:\#[^\n]*\n\s*)*,?""")

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text

    def _position(self, offset: int) -> FileLineColLoc:
        line = self.text.count("\n", 0, offset) + 1
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return FileLineColLoc(self.path, line, col)

    def __call__(self, key: str, index: int | None = None, value: bool = False) -> FileLineColLoc:
        m = re.search(r"""(?m)(?:^[ \t]*|[{,][ \t\r\n]*)(["']?)(%s)\1[ \t]*[=:][ \t]*""" % re.escape(key), self.text)
        if m is None:
            return FileLineColLoc(self.path, 1, 1)
        if not value:
            return self._position(m.start(2) - len(m.group(1)))
        pos = m.end()
        if index is None:
            return self._position(pos)
        if pos < len(self.text) and self.text[pos] == "[":
            pos += 1
        for _ in range(index + 1):
            item = self._ITEM.match(self.text, pos)
            if item is None:
                break
            start, pos = item.start(1), item.end()
        else:
            return self._position(start)
        return self._position(m.end())

