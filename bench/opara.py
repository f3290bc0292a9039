"""The emulator against Opara's multi-stream measurements on a GeForce RTX 2080 SUPER:
CUDA Graph on one stream against the same graph on Opara's streams (Chen et al.,
"Opara: Exploiting Operator Parallelism for Expediting DNN Inference on GPUs",
IEEE TC 2023; ``bench/measured_opara/measured-opara.csv``, each row with its source).

    python bench/opara.py [--device RTX2080S] [--strategies opara,chain-cover] [--device-param KEY=VALUE]

Each row's architecture (``bench/measured_opara/models``: torchvision's GoogLeNet
and Inception-v3, graph-only, their batch norms kept) is imported at the row's
batch and scheduled as PyTorch runs it inside a CUDA graph: every ONNX op one
kernel (no fusion, FP32, as written), ``partition-streams`` with ``single``
(sequential CUDA Graph) and with ``opara`` (Opara's stream allocation, no stream
budget), ``insert-events`` on every dependency between streams, lowered and
emulated in sink mode (a CUDA graph replays from the device, as a task sink
does: no host launch per kernel). Printed per row: the emulated single-stream
time (and the measured one where the source gives it), the measured speed-up,
the emulated one and its error; beside them the speed-ups of the other
``--strategies``. Nothing here is fitted: the profile's assumed numbers are the
V100's, which ``bench/calibration.py`` took from IOS's measurements.

Not modelled: torch.cat's copy kernels (geir lays a concat's inputs back to back
and runs no kernel for it, as GE does: 9 in GoogLeNet, 11 in Inception-v3);
Opara's resource-aware launch order (each stream issues in block order), which
the paper credits with up to 29% of GoogLeNet's latency. Never asserts.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
from typing import Sequence

import attrs

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import geir  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "measured_opara")
#: a speed-up within this relative error of the measured one counts as agreeing
TOLERANCE = 0.15


@attrs.frozen
class Row:
    """One measured speed-up: an architecture at a batch on a GPU, and where it was read."""

    model: str
    batch: int
    input: tuple[int, ...]
    baseline_ms: float | None
    multistream_ms: float | None
    speedup: float
    source: str


def load_rows(path: str) -> list[Row]:
    """The rows of ``measured-opara.csv``."""
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.append(Row(r["model_file"], int(r["batch"]), tuple(int(d) for d in r["input"].split("x")),
                            float(r["baseline_ms"]) if r["baseline_ms"] else None,
                            float(r["multistream_ms"]) if r["multistream_ms"] else None,
                            float(r["speedup"]), r["source_path"]))
    return rows


def makespan_us(row: Row, strategy: str, device: str, params: Sequence[str]) -> float:
    """``row``'s architecture on ``strategy``'s streams, emulated in sink mode on ``device``."""
    module = geir.import_onnx(os.path.join(DATA, "models", row.model), input_shapes={"image": (row.batch, *row.input)})
    geir.run_pipeline(module, f"canonicalize,assign-engines{{device={device}}},"
                              f"partition-streams{{strategy={strategy} max-streams=1024 device={device}}},"
                              f"insert-events{{device={device}}}")
    report = geir.emulate(geir.lower(module), device=device, mode="sink", timing_only=True,
                          device_params=list(params))
    if not report.clean:
        raise SystemExit(f"opara: {row.model} on {strategy}'s streams is not race-free: {report.races[:1]}")
    return report.makespan_us


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="RTX2080S")
    p.add_argument("--strategies", default="opara,chain-cover",
                   help="partition-streams strategies to run beside single (the first is judged; cost takes "
                        "two minutes more)")
    p.add_argument("--device-param", action="append", default=[], metavar="KEY=VALUE",
                   help="override one number of the device profile (repeatable)")
    args = p.parse_args(argv)
    strategies = [s for s in args.strategies.split(",") if s]
    rows = load_rows(os.path.join(DATA, "measured-opara.csv"))
    head = f"{'model':16s} {'batch':>5s} {'single ms (meas)':>18s} {'measured':>9s} {strategies[0]:>9s} {'error':>7s}"
    print(head + "".join(f" {s:>12s}" for s in strategies[1:]))
    errors = []
    for row in rows:
        single = makespan_us(row, "single", args.device, args.device_param)
        speedups = [single / makespan_us(row, s, args.device, args.device_param) for s in strategies]
        error = speedups[0] / row.speedup - 1.0
        errors.append(error)
        measured = f" ({row.baseline_ms:.3f})" if row.baseline_ms is not None else ""
        print(f"{row.model[:-5]:16s} {row.batch:5d} {f'{single / 1e3:.3f}{measured}':>18s} {row.speedup:8.2f}x "
              f"{speedups[0]:8.2f}x {error:+6.0%}" + "".join(f" {s:11.2f}x" for s in speedups[1:]))
    within = sum(abs(e) <= TOLERANCE for e in errors)
    mape = 100.0 * sum(abs(e) for e in errors) / len(errors)
    print(f"\n{strategies[0]} on {args.device}: {within}/{len(errors)} speed-ups within {TOLERANCE:.0%} of "
          f"Opara's measured ones, mean absolute error {mape:.1f}%, worst {max(errors, key=abs):+.0%}")
    print("a prediction: nothing is fitted to these rows")
    return 0 if all(math.isfinite(e) for e in errors) else 1


if __name__ == "__main__":
    sys.exit(main())
