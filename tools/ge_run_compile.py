"""``ge-run``'s compile options: ``--pipeline``, ``--streams`` and
``--no-compare``. What they do is :mod:`geir.backends.model_compile`'s.

This module is light (no numpy at import): ``ge-run`` imports it to build its
argument parser.
"""

from __future__ import annotations

import argparse

from geir.backends.model_compile import DEFAULT_PIPELINE

__all__ = ["add_compile_arguments"]


def add_compile_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--pipeline``, ``--streams`` and ``--no-compare`` to ``p``."""
    p.add_argument("--pipeline", default=None, metavar="TEXT",
                   help=f"pass pipeline for a graph not yet scheduled, and for each known-shape segment of a "
                        f"host-driven run (default: {DEFAULT_PIPELINE}); any ge-opt pipeline text, e.g. "
                        "'ge-default{strategy=ge}' or an explicit list of passes")
    p.add_argument("--streams", type=int, default=None, metavar="N",
                   help="at most N streams (the pipeline's max-streams option)")
    p.add_argument("--precision-mode", default=None, metavar="MODE",
                   help="the types ops compute in, as ATC's --precision_mode: force_fp16, allow_fp32_to_fp16, "
                        "allow_mix_precision, must_keep_origin_dtype, force_fp32 (default: the device's; with "
                        "--interpret, the graph's own types)")
    p.add_argument("--no-compare", dest="compare", action="store_false",
                   help="skip the single-stream run the report's speed-up compares against")
