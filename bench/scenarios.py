"""The three multi-stream scenarios on the emulator, their figures printed:

1. the video pipeline (``examples/video_pipeline.mlir``: DVPP decode + resize,
   a small CNN, AICPU top-5) over N frames on 310P3 (an inference card):
   frames/s single-stream vs the cost strategy vs GE's engine streams;
2. several models on one device: a ResNet block (priority 0) beside an FPN
   detection head (priority 1) on 310P3, each 3 runs back to back, latency
   under load vs alone, then with the priorities swapped;
3. a data-parallel training step (``examples/training_step.mlir``) on 1, 2, 4
   and 8 devices of 910B2: step time with overlap (collectives on their own
   stream) and without (one stream); then training (priority 1) beside
   inference (the ResNet block, priority 0, 8 runs) on one device, and the
   priorities swapped, for the example's step (batch 8192) and a batch-512 one.

Every figure is an emulator run (timing only); the device profiles say which
numbers are sourced and which assumed (``ge-run --device-param`` overrides,
``ge-run --sweep`` shows how much a figure depends on one)::

    python bench/scenarios.py [--frames 16] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from geir.backends.scenarios.build import compile_task_list
from geir.backends.scenarios.co_run import co_run
from geir.backends.scenarios.data_parallel import (format_steps, mixed_training_inference, step_times_of,
                                                   training_step_graph)
from geir.backends.scenarios.video_pipeline import compare_frames, format_frames
from geir.tools.bench.workloads import fpn_head

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _example(name: str) -> str:
    with open(os.path.join(ROOT, "examples", name), encoding="utf-8") as f:
        return f.read()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=16, help="frames of scenario 1")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    out: dict[str, object] = {}
    text: list[str] = []

    # scenario 1
    runs = compare_frames(_example("video_pipeline.mlir"), args.frames, device="310P3")
    out["video_pipeline"] = [r.as_dict() for r in runs]
    text.append("== scenario 1: video analysis pipeline\n" + format_frames(runs))

    # scenario 2
    resnet = compile_task_list(_example("resnet_block.mlir"))
    fpn = compile_task_list(fpn_head())
    co = []
    for priorities in ((0, 1), (1, 0)):
        result = co_run([resnet, fpn], ["resnet_block", "fpn_head"], priorities, "310P3", iterations=3)
        co.append(result.as_dict())
        text.append(result.text())
    out["co_run"] = co
    text[-2] = "== scenario 2: several models on one device (310P3)\n" + text[-2]

    # scenario 3
    training = _example("training_step.mlir")
    rows = step_times_of(training, [1, 2, 4, 8], device="910B2")
    out["data_parallel"] = [r.as_dict() for r in rows]
    text.append("== scenario 3: computation beside communication\n" + format_steps(rows, "910B2", "sink"))
    # the pools do not preempt a running kernel, so what priority buys depends
    # on the size of the training kernels: the example's (batch 8192) and batch 512
    mixed = []
    for batch, graph in ((8192, training), (512, training_step_graph(batch=512, width=1024))):
        train_tl = compile_task_list(graph)
        for train_priority, infer_priority in ((1, 0), (0, 1)):
            result = mixed_training_inference(train_tl, resnet, device="910B2", training_priority=train_priority,
                                              inference_priority=infer_priority, inference_runs=8)
            mixed.append({"training_batch": batch, **result.as_dict()})
            text.append(result.text())
        text[-2] = (f"training step (batch {batch}) beside 8 inference runs on one 910B2 (priorities one way, "
                    "then the other)\n" + text[-2])
    out["mixed"] = mixed

    elapsed = time.perf_counter() - t0
    if args.json:
        out["seconds"] = round(elapsed, 2)
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
    else:
        sys.stdout.write("\n".join(text) + f"\n({elapsed:.1f} s)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
