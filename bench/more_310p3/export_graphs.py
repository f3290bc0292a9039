"""Export the architectures of ``measured-310p3.csv`` here as graph-only ONNX files (``models/``).

    python bench/more_310p3/export_graphs.py [--out bench/more_310p3/models] [--models inception_v3,mnasnet1_0]

Needs torch, torchvision and timm (the ``exports`` extra; CI does not). Each
architecture is built with random weights and exported the way the calibration
graphs of ``shared/calibration`` were (``bench/graph_export.py``), with a
symbolic ``batch`` dim on the input ``image`` and the output ``class``.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graph_export import export_main, image_exporter  # noqa: E402

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


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    return export_main(argv, __doc__.split("\n\n")[0], os.path.join(here, "models"),
                       {name: (library, image_exporter(build, size))
                        for name, (library, build, size) in ARCHITECTURES.items()})


if __name__ == "__main__":
    sys.exit(main())
