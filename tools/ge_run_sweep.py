"""``ge-run --sweep PARAM=V1,V2,...``: emulate once per value of one device
parameter and print one row per value, so a user sees how much a conclusion
depends on an assumed number (launch latency, event latency, HBM bandwidth)::

  ge-run model.mlir --device V100 --sweep event_wait_us=0,1,2,5
  ge-run model.mlir --sweep hbm_bandwidth_gbps=700,1382.4,2000 --report json

Each row: the value, the makespan, the lower bound and what bounds it,
``makespan / LB``, and the makespan relative to the first value's. A sweep runs
timing-only without the race checker (neither the numerics nor the races depend
on a device number); other ``--device-param`` overrides apply to every row.

This module is light (no numpy at import) because ``ge-run`` adds its option
when it builds its argument parser.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from geir.diagnostics import error as _error

__all__ = ["add_sweep_argument", "parse_sweep", "run_sweep"]


def add_sweep_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--sweep`` to ``parser`` (once: a second call does nothing)."""
    if "--sweep" in parser._option_string_actions:  # noqa: SLF001 - argparse has no public query
        return
    parser.add_argument("--sweep", action="append", default=[], metavar="PARAM=V1,V2,...",
                        help="emulate once per value of one device parameter and print a row per value "
                             "(timing only); e.g. --sweep event_wait_us=0,1,2,5")




def parse_sweep(specs: list[str], device_params: list[str]) -> tuple[str, list[Any], list[str]]:
    """``["key=v1,v2"]`` -> (key, typed values, the values as typed). DiagnosticError
    for a malformed spec, an unknown key, a bad value, a second ``--sweep`` or a
    key that ``--device-param`` also sets."""
    from geir.backends.device_profile import PARAMS, parse_override
    if len(specs) > 1:
        raise _error(f"--sweep given {len(specs)} times: sweep one parameter at a time",
                     f"got: {', '.join(specs)}")
    text = specs[0]
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise _error(f"--sweep expects PARAM=V1,V2,..., got '{text}'")
    items = [v.strip() for v in raw.split(",")]
    if not raw.strip() or any(not v for v in items):
        raise _error(f"--sweep {key}: empty value in '{raw}'", "give a comma-separated list: PARAM=V1,V2,...")
    values = []
    for item in items:
        try:
            values.append(parse_override(f"{key}={item}")[1])
        except Exception as e:  # a DiagnosticError: say it came from --sweep
            from geir.diagnostics import DiagnosticError
            if not isinstance(e, DiagnosticError):
                raise
            message = e.diagnostics[0].message.replace("--device-param", "--sweep")
            raise _error(message, *[n.message for n in e.diagnostics[0].notes]) from None
        spec = PARAMS[key]
        if spec.type is not bool and values[-1] < spec.minimum:
            bound = "positive" if spec.minimum > 0 and spec.type is float else f"at least {spec.minimum:g}"
            raise _error(f"--sweep {key}: every value must be {bound}, got {item}")
    for other in device_params:
        if other.partition("=")[0].strip() == key:
            raise _error(f"--sweep {key} conflicts with --device-param {other}",
                         "drop one: the sweep sets the parameter for every row")
    return key, values, items


def run_sweep(task_list: Any, args: argparse.Namespace) -> int:
    """Emulate ``task_list`` once per swept value and print the rows; exit code 0."""
    from geir.backends.device_profile import DeviceProfile, load_profile
    from geir.backends.emulator import EmulatorOptions, emulate

    key, values, texts = parse_sweep(list(args.sweep), list(args.device_param))
    base: DeviceProfile = load_profile(args.device, list(args.device_param))
    rows: list[dict[str, Any]] = []
    for value, text in zip(values, texts):
        options = EmulatorOptions(device=base, device_params=[f"{key}={text}"], mode=args.mode, timing_only=True,
                                  check_races=False, progress=False)
        report = emulate(task_list, None, options).report
        rows.append({key: value, "makespan_us": report["makespan_us"], "lower_bound_us": report["lower_bound_us"],
                     "bound_by": report["lower_bound"]["bound_by"],
                     "makespan_over_lower_bound": report["makespan_over_lower_bound"],
                     "hbm_saturated_us": report["hbm"]["saturated_us"]})
    first = rows[0]["makespan_us"]
    for row in rows:
        row["vs_first"] = round(row["makespan_us"] / first, 4) if first > 0 else None
    source = base.sources.get(key, "")
    if getattr(args, "report", "text") == "json":
        out = {"task_list": task_list.name, "device": base.name, "mode": args.mode, "param": key,
               "default": base.values[key], "source": source, "assumed": key in base.assumed, "rows": rows}
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
        return 0
    lines = [f"sweep of {key} on {base.name} ({args.mode} mode), '{task_list.name}': {len(rows)} values; "
             f"profile value {_value(base.values[key])} "
             f"({source if key in base.assumed else 'source: ' + source})"]
    width = max(len(key), 12)
    lines.append(f"{key:<{width}} {'makespan us':>14} {'lower bound us':>15} {'bound by':<16} {'makespan/LB':>11} "
                 f"{'vs first':>9}")
    for row in rows:
        ratio = row["makespan_over_lower_bound"]
        lines.append(f"{_value(row[key]):<{width}} {row['makespan_us']:>14.3f} {row['lower_bound_us']:>15.3f} "
                     f"{row['bound_by']:<16} {ratio if ratio is not None else float('nan'):>11.3f} "
                     f"{row['vs_first'] if row['vs_first'] is not None else float('nan'):>9.3f}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:g}" if isinstance(v, float) else str(v)
