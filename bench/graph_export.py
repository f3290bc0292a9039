"""Graph-only ONNX exports of measured architectures, made one way for every table.

A module built with random weights (nothing pretrained is downloaded) gets small
seeded noise on every floating-point parameter and non-trivial running
statistics on every batch norm, so the exporter folds batch norms into distinct
weights and merges no initializers that happen to be equal in a fresh net. It
is exported with torch's TorchScript exporter at opset 17 with constant folding
(without, for a table measured as PyTorch runs the model: its batch norms stay),
in eval mode and fp32, with the symbolic dims the caller names (``batch``,
``seq``), and its weights are then moved to an external file that is deleted:
every initializer keeps its name, type and shape, none of its bytes
(``geir.import_onnx`` imports such a file timing-only). Needs torch (the
``exports`` extra; CI does not).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any, Callable, Sequence


def perturb(module: Any) -> None:
    """Seeded noise on every floating-point parameter; running statistics on every batch norm."""
    import torch
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in module.parameters():
            if p.dtype.is_floating_point:
                p.add_(torch.randn(p.shape, generator=generator) * 1e-3)
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=generator) * 0.1)
                m.running_var.copy_(1 + torch.rand(m.running_var.shape, generator=generator))


def export_graph_only(module: Any, args: tuple[Any, ...], path: str, input_names: Sequence[str],
                      output_names: Sequence[str], dynamic_axes: dict[str, dict[int, str]],
                      fold_batch_norm: bool = True) -> str:
    """Export ``module`` (perturbed, in eval mode) at ``args`` to ``path`` without its
    weights' bytes; the path written. ``fold_batch_norm`` false keeps every batch norm
    a node of its own (no constant folding), as PyTorch runs it on a GPU."""
    import onnx
    import torch
    module = module.eval()
    perturb(module)
    full = path[:-len(".onnx")] + ".full.onnx"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, full, input_names=list(input_names), output_names=list(output_names),
                          dynamic_axes=dynamic_axes, opset_version=17, do_constant_folding=fold_batch_norm,
                          dynamo=False)
    model = onnx.load(full)
    onnx.checker.check_model(model)
    weights = os.path.basename(path)[:-len(".onnx")] + ".weights"
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=weights,
                    size_threshold=1024)
    os.remove(os.path.join(os.path.dirname(path), weights))
    os.remove(full)
    return path


def image_exporter(build: Callable[[], Any], size: int, fold_batch_norm: bool = True) -> Callable[[str], str]:
    """An exporter of the image model ``build`` makes, on a ``size`` x ``size`` RGB
    ``image`` of symbolic ``batch``, to its ``class`` output."""
    def export(path: str) -> str:
        import torch
        return export_graph_only(build(), (torch.randn(1, 3, size, size),), path, ["image"], ["class"],
                                 {"image": {0: "batch"}, "class": {0: "batch"}}, fold_batch_norm)
    return export


#: name -> (library, exporter of that architecture into a path, returning the path)
Exporters = dict[str, tuple[str, Callable[[str], str]]]


def export_main(argv: Sequence[str] | None, description: str, out: str, architectures: Exporters) -> int:
    """The command line of a table's ``export_graphs.py``: ``--out DIR`` (default
    ``out``) and ``--models a,b`` (default: every architecture), each exported
    with torch seeded to 0."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", default=out)
    p.add_argument("--models", default="", help="comma-separated names (default: every architecture)")
    args = p.parse_args(argv)
    names = [n for n in args.models.split(",") if n] or list(architectures)
    unknown = sorted(set(names) - set(architectures))
    if unknown:
        print(f"export_graphs: unknown architecture(s) {', '.join(unknown)}; known: {', '.join(architectures)}",
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    import torch
    for name in names:
        torch.manual_seed(0)
        library, export = architectures[name]
        path = export(os.path.join(args.out, f"{name}.onnx"))
        print(f"{library:12s} {name:22s} {os.path.getsize(path) / 1024:8.1f} KiB  {path}")
    return 0
