"""A device-parameter sweep: emulate one task list once per value of one
number of the device profile (launch latency, event latency, DRAM bandwidth
...), so a user sees how much a conclusion depends on an assumed number
(``ge-run --sweep PARAM=V1,V2,...``).

Each row: the value, the makespan, the lower bound and what bounds it,
``makespan / LB``, and the makespan relative to the first value's. A sweep runs
timing-only without the race checker (neither the numerics nor the races depend
on a device number); other device-parameter overrides apply to every row, and
so does ``warm_l2`` (each row a run that follows a warm-up run of the model).
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from geir.diagnostics import error as _error

__all__ = ["SweepReport", "parse_sweep", "sweep_device_param"]


@attrs.define
class SweepReport:
    """The rows of a sweep: ``fields`` as ``--report json`` prints them, and the text."""

    fields: dict[str, Any]
    text: str

    def to_json(self, indent: int | None = 1) -> str:
        """The object ``ge-run --sweep ... --report json`` prints."""
        return json.dumps(self.fields, indent=indent)


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


def sweep_device_param(task_list: Any, specs: list[str], device: Any = "910B2", device_params: list[str] = (),
                       mode: str = "sink", warm_l2: bool = False) -> SweepReport:  # type: ignore[assignment]
    """Emulate ``task_list`` once per value of the parameter ``specs`` sweeps
    (``["event_wait_us=0,1,2"]``, :func:`parse_sweep`) on ``device`` with
    ``device_params``, each row after a warm-up run when ``warm_l2``
    (:attr:`~geir.backends.emulator.EmulatorOptions.warm_l2`); the rows.

    Raises:
        DiagnosticError: a malformed sweep, an unknown device or parameter.
    """
    from geir.backends.device_profile import DeviceProfile, load_profile
    from geir.backends.emulator import EmulatorOptions, emulate

    key, values, texts = parse_sweep(list(specs), list(device_params))
    base: DeviceProfile = load_profile(device, list(device_params))
    rows: list[dict[str, Any]] = []
    for value, text in zip(values, texts):
        options = EmulatorOptions(device=base, device_params=[f"{key}={text}"], mode=mode, timing_only=True,
                                  check_races=False, progress=False, warm_l2=warm_l2)
        report = emulate(task_list, None, options).report
        rows.append({key: value, "makespan_us": report["makespan_us"], "lower_bound_us": report["lower_bound_us"],
                     "bound_by": report["lower_bound"]["bound_by"],
                     "makespan_over_lower_bound": report["makespan_over_lower_bound"],
                     "dram_saturated_us": report["dram"]["saturated_us"]})
    first = rows[0]["makespan_us"]
    for row in rows:
        row["vs_first"] = round(row["makespan_us"] / first, 4) if first > 0 else None
    source = base.sources.get(key, "")
    fields = {"task_list": task_list.name, "device": base.name, "mode": mode, "warm_l2": warm_l2, "param": key,
              "default": base.values[key], "source": source, "assumed": key in base.assumed, "rows": rows}
    warm = ", after a warm-up run" if warm_l2 else ""
    lines = [f"sweep of {key} on {base.name} ({mode} mode{warm}), '{task_list.name}': {len(rows)} values; "
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
    return SweepReport(fields, "\n".join(lines) + "\n")


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:g}" if isinstance(v, float) else str(v)
