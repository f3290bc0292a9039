"""Export the architectures of ``measured-opara.csv`` here as graph-only ONNX files (``models/``).

    python bench/measured_opara/export_graphs.py [--out bench/measured_opara/models] [--models googlenet]

Needs torch and torchvision (the ``exports`` extra; CI does not). Each is
torchvision's model with random weights, as Opara's examples build it
(``torchvision.models.googlenet()``, ``inception_v3()``: in eval mode their
auxiliary classifiers do not run), exported as every calibration graph is
(``bench/graph_export.py``) but with its batch norms kept, since PyTorch runs
each as a kernel of its own inside the CUDA graph Opara measured.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graph_export import Exporters, export_main, image_exporter  # noqa: E402


def _torchvision(name: str, size: int) -> tuple[str, Callable[[str], str]]:
    def build() -> Any:
        import torchvision
        return getattr(torchvision.models, name)(weights=None, aux_logits=False, init_weights=False)
    return "torchvision", image_exporter(build, size, fold_batch_norm=False)


#: the architectures of ``measured-opara.csv``
ARCHITECTURES: Exporters = {
    "googlenet": _torchvision("googlenet", 224),
    "inception_v3": _torchvision("inception_v3", 299),
}

if __name__ == "__main__":
    sys.exit(export_main(sys.argv[1:], __doc__.splitlines()[0],
                         os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"), ARCHITECTURES))
