"""``ge-run --sweep PARAM=V1,V2,...``: emulate once per value of one device
parameter and print one row per value (:mod:`geir.backends.device_sweep`), so
a user sees how much a conclusion depends on an assumed number (launch
latency, event latency, DRAM bandwidth)::

  ge-run model.mlir --device V100 --sweep event_wait_us=0,1,2,5
  ge-run model.mlir --sweep dram_bandwidth_gbps=700,1382.4,2000 --report json

Each row: the value, the makespan, the lower bound and what bounds it,
``makespan / LB``, and the makespan relative to the first value's. A sweep runs
timing-only without the race checker (neither the numerics nor the races depend
on a device number); other ``--device-param`` overrides and ``--warm-l2`` apply
to every row.

This module is light (no numpy at import) because ``ge-run`` adds its option
when it builds its argument parser.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


__all__ = ["add_sweep_argument", "run_sweep"]


def add_sweep_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--sweep`` to ``parser`` (once: a second call does nothing)."""
    if "--sweep" in parser._option_string_actions:  # noqa: SLF001 - argparse has no public query
        return
    parser.add_argument("--sweep", action="append", default=[], metavar="PARAM=V1,V2,...",
                        help="emulate once per value of one device parameter and print a row per value "
                             "(timing only); e.g. --sweep event_wait_us=0,1,2,5")


def run_sweep(task_list: Any, args: argparse.Namespace) -> int:
    """Emulate ``task_list`` once per swept value and print the rows; exit code 0."""
    from geir.backends.device_sweep import sweep_device_param
    report = sweep_device_param(task_list, list(args.sweep), args.device, list(args.device_param), args.mode,
                                warm_l2=getattr(args, "warm_l2", False))
    sys.stdout.write(report.to_json() + "\n" if getattr(args, "report", "text") == "json" else report.text)
    return 0
