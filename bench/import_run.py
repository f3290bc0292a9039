"""Import and interpreter speed on the ``light_*`` models shipped with onnx,
against ``onnx.reference.ReferenceEvaluator`` on the same inputs, in one run.

    python bench/import_run.py [--models resnet50,vgg19] [--repeat 3]

For each model: ``import s`` is :func:`geir.onnx_importer.import_onnx` (load,
check, shape inference, IR build, verification); ``interpret s`` is one
:func:`geir.backends.interpreter.interpret`; ``onnx ref s`` is one
``ReferenceEvaluator.run`` (built beforehand, its build time not counted). Each
time is the best of ``--repeat`` runs. ``ratio`` = onnx ref / interpret (above 1:
we are faster). ``our err`` / ``ref err``: the largest difference of each
output from the expected output shipped with the model.

Dynamic-shape columns: the model with its batch dim made symbolic (``N``) is
imported once, then ``dyn b1 s`` / ``dyn b8 s`` time ``specialize-shapes`` with
``N`` bound to 1 / 8, ``lower-to-tasks`` and one emulator run (timing only; add
``--dynamic-numerics`` for the numerics too), the best of ``--repeat``. A model
whose exporter baked batch 1 into a Reshape constant cannot take batch 8: its
column says ``fixed-1`` (the reason is the diagnostic ge-run prints).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
import warnings
from typing import Callable

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.test.runner import Runner
from onnx.reference import ReferenceEvaluator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from geir.backends.interpreter import interpret  # noqa: E402
from geir.diagnostics import DiagnosticError  # noqa: E402
from geir.onnx_importer import import_onnx  # noqa: E402
from geir.tools.bench.models import symbolic_batch  # noqa: E402

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    """The fastest of ``repeat`` runs of ``fn`` and its last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def bench_model(path: str, repeat: int) -> tuple[str, float, float, float, float, float]:
    """(model, import s, interpret s, onnx reference s, max |ours - expected|,
    max |reference - expected|)."""
    name = os.path.basename(path)[len("light_"):-len(".onnx")]
    model = onnx.load(path)
    initializers = {t.name for t in model.graph.initializer}
    feeds = {x.name: Runner.generate_dummy_data(x) for x in model.graph.input if x.name not in initializers}
    expected = numpy_helper.to_array(onnx.load_tensor(path[:-len(".onnx")] + "_output_0.pb"))

    import_s, module = best_of(repeat, lambda: import_onnx(path))
    run_s, ours = best_of(repeat, lambda: interpret(module, feeds))  # type: ignore[arg-type]
    reference = ReferenceEvaluator(model)
    ref_s, theirs = best_of(repeat, lambda: reference.run(None, feeds))
    (our_out,) = ours.values()  # type: ignore[union-attr]
    return (name, import_s, run_s, ref_s, float(np.abs(our_out - expected).max()),
            float(np.abs(theirs[0] - expected).max()))  # type: ignore[index]


def bench_dynamic(model: onnx.ModelProto, batch: int, repeat: int, numerics: bool) -> float | None:
    """Best time of specialise (N=batch) + lower + emulate; None when the model cannot take ``batch``."""
    from geir.backends.emulator import EmulatorOptions, emulate
    from geir.backends.rt_module import task_list_from_module
    from geir.passes.lower_to_tasks import LowerToTasks
    from geir.passes.pass_manager import PassManager
    from geir.passes.specialize_shapes import SpecializeShapes

    best = float("inf")
    for _ in range(repeat):
        module = import_onnx(model)  # not timed: the dynamic module a user starts from
        start = time.perf_counter()
        try:
            PassManager([SpecializeShapes(shapes=f"N={batch}"), LowerToTasks()]).run(module)
            emulate(task_list_from_module(module), None, EmulatorOptions(timing_only=not numerics))
        except DiagnosticError:
            return None
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="", help="comma-separated model names (default: all light models)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--dynamic-numerics", action="store_true",
                        help="the dynamic-shape columns emulate with numerics (default: timing only)")
    args = parser.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(LIGHT, "light_*.onnx")))
    if args.models:
        wanted = set(args.models.split(","))
        paths = [p for p in paths if os.path.basename(p)[len("light_"):-len(".onnx")] in wanted]
    print(f"{'model':<14} {'nodes':>6} {'import s':>9} {'interpret s':>12} {'onnx ref s':>11} {'ratio':>6} "
          f"{'our err':>9} {'ref err':>9} {'dyn b1 s':>9} {'dyn b8 s':>9}")
    slower = []
    for path in paths:
        nodes = len(onnx.load(path).graph.node)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            name, import_s, run_s, ref_s, err, ref_err = bench_model(path, args.repeat)
            dynamic = symbolic_batch(path)
            dyn = [bench_dynamic(dynamic, b, args.repeat, args.dynamic_numerics) for b in (1, 8)]
        ratio = ref_s / run_s
        if ratio < 1.0:
            slower.append(name)
        dyn_text = " ".join(f"{d:>9.3f}" if d is not None else f"{'fixed-1':>9}" for d in dyn)
        print(f"{name:<14} {nodes:>6} {import_s:>9.3f} {run_s:>12.3f} {ref_s:>11.3f} {ratio:>6.2f} {err:>9.2e} "
              f"{ref_err:>9.2e} {dyn_text}", flush=True)
    print("interpreter at least as fast as ReferenceEvaluator on every model" if not slower
          else f"interpreter slower than ReferenceEvaluator on: {', '.join(slower)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
