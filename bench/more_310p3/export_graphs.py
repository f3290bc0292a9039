"""Export the architectures of ``measured-310p3.csv`` here as graph-only ONNX files (``models/``).

    python bench/more_310p3/export_graphs.py [--out bench/more_310p3/models] [--models inception_v3,mnasnet1_0]

Needs torch, torchvision and timm (the ``exports`` extra; CI does not). Each
architecture is built with random weights — nothing pretrained is downloaded —
and exported the way the calibration graphs of ``shared/calibration`` were:
TorchScript exporter, opset 17, constant folding, eval mode, fp32, a symbolic
``batch`` dim on the input and output. Every floating-point parameter gets
small seeded noise and every batch norm non-trivial running statistics, so the
exporter folds batch norms into distinct weights and merges no initializers
that happen to be equal in a fresh net. The weights are then moved to an
external file that is deleted: every initializer keeps its name, type and
shape, none of its bytes (``geir.import_onnx`` imports such a file
timing-only).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any, Callable

#: name -> (library, builder, input size): the architectures of ``measured-310p3.csv`` here
ARCHITECTURES: dict[str, tuple[str, Callable[[], Any], int]] = {}


def _torchvision(name: str, size: int = 224, **kwargs: Any) -> None:
    def build() -> Any:
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kwargs)
    ARCHITECTURES[name] = ("torchvision", build, size)


def _timm(name: str, file: str, size: int = 224) -> None:
    def build() -> Any:
        import timm
        return timm.create_model(name, pretrained=False)
    ARCHITECTURES[file] = ("timm", build, size)


# torchvision's own classifiers, as the vendor exported them from torchvision
_torchvision("inception_v3", 299, aux_logits=False, init_weights=False)
_torchvision("resnet34")
_torchvision("resnet101")
_torchvision("resnet152")
_torchvision("wide_resnet50_2")
_torchvision("wide_resnet101_2")
_torchvision("resnext101_32x8d")
_torchvision("mnasnet1_0")
_torchvision("mobilenet_v2")
# timm's, as the vendor exported them from timm
_timm("regnetx_016", "regnetx_016")
_timm("regnety_016", "regnety_016")
_timm("spnasnet_100", "spnasnet_100")
# Cadene's pretrained-models architectures, which timm carries as ports
_timm("inception_v4", "inception_v4", 299)
_timm("dpn131", "dpn131")
_timm("legacy_seresnet50", "se_resnet50")


def _perturb(module: Any) -> None:
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


def export(name: str, out: str) -> str:
    """Export ``name`` graph-only into ``out``; the path written."""
    import onnx
    import torch
    _, build, size = ARCHITECTURES[name]
    torch.manual_seed(0)
    module = build().eval()
    _perturb(module)
    full = os.path.join(out, f"{name}.full.onnx")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (torch.randn(1, 3, size, size),), full, input_names=["image"],
                          output_names=["class"], dynamic_axes={"image": {0: "batch"}, "class": {0: "batch"}},
                          opset_version=17, do_constant_folding=True, dynamo=False)
    model = onnx.load(full)
    onnx.checker.check_model(model)
    path = os.path.join(out, f"{name}.onnx")
    weights = f"{name}.weights"
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=weights,
                    size_threshold=1024)
    os.remove(os.path.join(out, weights))
    os.remove(full)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))
    p.add_argument("--models", default="", help="comma-separated names (default: every architecture)")
    args = p.parse_args(argv)
    names = [n for n in args.models.split(",") if n] or list(ARCHITECTURES)
    unknown = sorted(set(names) - set(ARCHITECTURES))
    if unknown:
        print(f"export_graphs: unknown architecture(s) {', '.join(unknown)}; known: {', '.join(ARCHITECTURES)}",
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        path = export(name, args.out)
        print(f"{ARCHITECTURES[name][0]:12s} {name:18s} {os.path.getsize(path) / 1024:8.1f} KiB  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
