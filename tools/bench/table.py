"""The result table as people read it: aligned text on a terminal, or Markdown
in the README's format (``ge-bench --markdown``; the README's results section
is this output). Configuration columns that are the same on every row go into
a caption line above the table; the geometric means per strategy follow it.

The Markdown form leaves out the wall-clock column (compile seconds), so a
rerun of the same sweep prints the same text: every number in it comes from
the emulator or the passes' decisions. Below the table, each device profile
says how many of its numbers are sourced and which are assumed, since every
emulated figure rests on them.
"""

from __future__ import annotations

import math
from typing import Any, Callable

__all__ = ["render", "render_pivot", "geomeans", "profile_notes"]

# (header, the cell's text of a row, right-aligned)
_Cell = tuple[str, Callable[[dict[str, Any]], str], bool]


def _num(column: str, fmt: str, suffix: str = "") -> Callable[[dict[str, Any]], str]:
    def cell(r: dict[str, Any]) -> str:
        v = r.get(column)
        return "-" if v is None else f"{v:{fmt}}{suffix}"
    return cell


def _events(r: dict[str, Any]) -> str:
    if r.get("events") is None:
        return "-"
    return f"{r['events']} ({r['ge_events']})"


def _kib(r: dict[str, Any]) -> str:
    v = r.get("arena_bytes")
    return "-" if v is None else f"{v / 1024:,.0f}"


def _races(r: dict[str, Any]) -> str:
    if r.get("error"):
        return "error: " + r["error"]
    if r.get("races") is None:
        return "-"
    return f"{r['races']}" + (" deadlock" if r.get("deadlock") else "")


_CONFIG = [("device", "device"), ("mode", "mode"), ("prepare", "prepare"), ("max-streams", "max_streams"),
           ("memory", "memory"), ("strategy", "strategy")]
_FIGURES: list[_Cell] = [
    ("makespan us", _num("makespan_us", ",.1f"), True),
    ("speed-up", _num("speedup", ".2f", "x"), True),
    ("makespan/LB", _num("lb_ratio", ".3f"), True),
    ("streams", _num("streams", "d"), True),
    ("events (GE rule)", _events, True),
    ("arena KiB", _kib, True),
    ("races", _races, True),
]
_TIMING: list[_Cell] = [("compile s", _num("compile_s", ".2f"), True)]


def _geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def geomeans(rows: list[dict[str, Any]]) -> list[tuple[str, float | None, float | None, int, int]]:
    """Per configuration (its varying columns as text): the geometric mean of
    the speed-ups and of makespan/LB over the models that ran, how many ran,
    and how many failed (left out of the means)."""
    varying = [c for _, c in _CONFIG if len({r[c] for r in rows}) > 1 or c == "strategy"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(" ".join(str(r[c]) for c in varying), []).append(r)
    means = []
    for name, g in groups.items():
        failed = sum(1 for r in g if r.get("error"))
        means.append((name, _geomean([r["speedup"] for r in g if r.get("speedup")]),
                      _geomean([r["lb_ratio"] for r in g if r.get("lb_ratio")]), len(g) - failed, failed))
    return means


def render(rows: list[dict[str, Any]], markdown: bool = False, order: dict[str, list[Any]] | None = None) -> str:
    """The table of ``rows``, sorted by model then configuration (in ``order``,
    the sweep's own order of each list, when given)."""
    if not rows:
        return "no results\n"
    order = order or {}

    def rank(column: str, value: Any) -> Any:
        values = order.get(column)
        return (values.index(value), "") if values and value in values else (len(values or ()), str(value))
    models = order.get("model") or sorted({r["model"] for r in rows})
    rows = sorted(rows, key=lambda r: (models.index(r["model"]) if r["model"] in models else len(models),
                                       *(rank(c, r[c]) for _, c in _CONFIG)))
    constant = [(h, c) for h, c in _CONFIG if len({r[c] for r in rows}) == 1 and c != "strategy"]
    varying = [(h, c) for h, c in _CONFIG if (h, c) not in constant]
    cells: list[_Cell] = [("model", lambda r: str(r["model"]), False), ("ops", _num("ops", "d"), True)]
    cells += [(h, (lambda r, c=c: str(r[c])), c == "max_streams") for h, c in varying]
    cells += _FIGURES + ([] if markdown else _TIMING)
    table = [[f(r) for _, f, _ in cells] for r in rows]
    heads = [h for h, _, _ in cells]
    out = []
    if constant:
        out.append(", ".join(f"{h} {rows[0][c]}" for h, c in constant) + ":")
        out.append("")
    if markdown:
        out.append("| " + " | ".join(heads) + " |")
        out.append("|" + "|".join("---:" if right else "---" for _, _, right in cells) + "|")
        out += ["| " + " | ".join(line) + " |" for line in table]
    else:
        widths = [max(len(h), *(len(line[i]) for line in table)) for i, h in enumerate(heads)]

        def fmt(line: list[str]) -> str:
            return "  ".join(v.rjust(w) if cells[i][2] else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths)))
        out.append(fmt(heads).rstrip())
        out += [fmt(line).rstrip() for line in table]
    means = geomeans(rows)
    if any(sp is not None or lb is not None for _, sp, lb, _, _ in means):
        out.append("")
        out.append("Geometric means over the models:")
        out.append("")
        for name, sp, lb, n, failed in means:
            sp_text = f"speed-up {sp:.3f}x" if sp is not None else "speed-up -"
            lb_text = f"makespan/LB {lb:.3f}" if lb is not None else "makespan/LB -"
            failures = f"; {failed} failed, left out" if failed else ""
            out.append(f"{'* ' if markdown else '  '}{name}: {sp_text}, {lb_text} ({n} models{failures})")
    return "\n".join(out) + "\n"


def render_pivot(rows: list[dict[str, Any]], markdown: bool = False, order: dict[str, list[Any]] | None = None) -> str:
    """The compact form (``--table pivot``): a line per model (and per value of
    each other varying column), a column per strategy holding its speed-up over
    single and, in parentheses, its makespan over the lower bound; the last line
    is the geometric mean of each column."""
    if not rows:
        return "no results\n"
    order = order or {}
    strategies = order.get("strategy") or list(dict.fromkeys(r["strategy"] for r in rows))
    models = order.get("model") or list(dict.fromkeys(r["model"] for r in rows))
    constant = [(h, c) for h, c in _CONFIG if len({r[c] for r in rows}) == 1 and c != "strategy"]
    varying = [(h, c) for h, c in _CONFIG if (h, c) not in constant and c != "strategy"]
    groups: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["model"], *(r[c] for _, c in varying)), {})[r["strategy"]] = r

    def rank(key: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = [models.index(key[0]) if key[0] in models else len(models)]
        for (_, c), v in zip(varying, key[1:]):
            values = order.get(c) or []
            out.append(values.index(v) if v in values else len(values))
        return tuple(out)
    heads = ["model", "ops", *(h for h, _ in varying), "single us", "LB us", *strategies]
    right = [False, True, *(c == "max_streams" for _, c in varying), True, True, *([True] * len(strategies))]
    table = []
    for key in sorted(groups, key=rank):
        by = groups[key]
        any_row = next(iter(by.values()))
        single = by.get("single", {}).get("makespan_us")
        cells = [str(key[0]), _num("ops", "d")(any_row), *(str(v) for v in key[1:]),
                 "-" if single is None else f"{single:,.1f}", _num("lb_us", ",.1f")(any_row)]
        for s in strategies:
            r = by.get(s)
            cells.append("-" if r is None else _pivot_cell(r))
        table.append(cells)
    means = ["geomean", "", *([""] * len(varying)), "", ""]
    for s in strategies:
        have = [r for r in rows if r["strategy"] == s]
        sp = _geomean([r["speedup"] for r in have if r.get("speedup")])
        lb = _geomean([r["lb_ratio"] for r in have if r.get("lb_ratio")])
        means.append(_pivot_cell({"speedup": sp, "lb_ratio": lb}))
    table.append(means)
    out = []
    caption = ", ".join(f"{h} {rows[0][c]}" for h, c in constant)
    out.append(f"{caption + '; ' if caption else ''}speed-up over single (makespan / lower bound):")
    out.append("")
    if markdown:
        out.append("| " + " | ".join(heads) + " |")
        out.append("|" + "|".join("---:" if r else "---" for r in right) + "|")
        out += ["| " + " | ".join(line) + " |" for line in table]
    else:
        widths = [max(len(h), *(len(line[i]) for line in table)) for i, h in enumerate(heads)]
        out += ["  ".join(v.rjust(w) if right[i] else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths))).rstrip()
                for line in [heads, *table]]
    return "\n".join(out) + "\n"


def _pivot_cell(r: dict[str, Any]) -> str:
    if r.get("error"):
        return "error"
    sp, lb = r.get("speedup"), r.get("lb_ratio")
    return f"{'-' if sp is None else f'{sp:.2f}x'} ({'-' if lb is None else f'{lb:.2f}'})"


def profile_notes(devices: list[str]) -> str:
    """A line per device profile: how many of its numbers have a source (and
    which of those were fitted to measurements), the names of those that are
    assumed, and what the profile's times were held against."""
    from geir.backends.device_profile import load_profile
    lines = []
    for d in devices:
        p = load_profile(d)
        assumed = sorted(p.assumed)
        fitted = f" ({len(p.fitted)} fitted to measurements: {', '.join(sorted(p.fitted))})" if p.fitted else ""
        c = p.calibration
        checked = f"{c.against}: {c.result}" if c is not None else "no measured time of the device"
        lines.append(f"{p.name}: {len(p.values) - len(assumed)} of {len(p.values)} profile numbers sourced{fitted}; "
                     f"assumed: {', '.join(assumed) or 'none'}. Times checked against {checked}.")
    return "\n".join(lines) + "\n"
