"""Graph-only ONNX exports of measured architectures, made one way for every table.

A module built with random weights (nothing pretrained is downloaded) gets small
seeded noise on every floating-point parameter and non-trivial running
statistics on every batch norm, so the exporter folds batch norms into distinct
weights and merges no initializers that happen to be equal in a fresh net. It
is exported with torch's TorchScript exporter at opset 17 with constant folding,
in eval mode and fp32, with the symbolic dims the caller names (``batch``,
``seq``), and its weights are then moved to an external file that is deleted:
every initializer keeps its name, type and shape, none of its bytes
(``geir.import_onnx`` imports such a file timing-only). Needs torch (the
``exports`` extra; CI does not).
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Sequence


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
                      output_names: Sequence[str], dynamic_axes: dict[str, dict[int, str]]) -> str:
    """Export ``module`` (perturbed, in eval mode) at ``args`` to ``path`` without its
    weights' bytes; the path written."""
    import onnx
    import torch
    module = module.eval()
    perturb(module)
    full = path[:-len(".onnx")] + ".full.onnx"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, full, input_names=list(input_names), output_names=list(output_names),
                          dynamic_axes=dynamic_axes, opset_version=17, do_constant_folding=True, dynamo=False)
    model = onnx.load(full)
    onnx.checker.check_model(model)
    weights = os.path.basename(path)[:-len(".onnx")] + ".weights"
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=weights,
                    size_threshold=1024)
    os.remove(os.path.join(os.path.dirname(path), weights))
    os.remove(full)
    return path
