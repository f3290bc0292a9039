"""``ge-run M.onnx`` on real architectures that geir's authors did not write:
torchvision, timm and transformers models with random weights, exported to
ONNX here, each then run by :func:`geir.run_model` at its defaults.

    pip install -e '.[exports]'                 # torch, torchvision, timm, transformers, onnxscript
    python bench/real_models.py                 # the default list (about 10 minutes on 2 cores)
    python bench/real_models.py --models resnet18,bert --keep /tmp/onnx
    python bench/real_models.py --list          # every model it knows
    python bench/real_models.py --models all

No weights are downloaded: each model is built with random initialisation
(``weights=None``, ``pretrained=False``, ``from_config``), in eval mode, seeded.
The export is ``torch.onnx.export`` with the TorchScript exporter
(``--exporter torchscript``, the default, opset 17: one file per model, the
form most deployed ONNX files have; ``--opset 13`` or 11 as the Ascend
ModelZoo exports, where LayerNorm arrives op by op) or the dynamo exporter
(``--exporter dynamo``: ``torch.export`` and onnxscript, opset 18, weights in
an external ``.data`` file); a model the chosen exporter cannot export is
exported with the other one, and the ``export`` column says which.

For each model one row: ``ops`` the ONNX nodes; ``run`` ``ok`` or the first
line of the diagnostic ``ge-run`` would print; then, of the run at the defaults
(``ge-run M.onnx``: ``ge-default`` for the 910B2, the device's default
``force_fp16``, random inputs of seed 0): ``speed-up`` over the same pipeline on
a single stream, ``graph LB us`` the graph's lower bound over any plan and
``mk/LB`` the makespan against it, ``mem/LB`` the memory plan's peak against its
lower bound, ``races`` (``none`` when the emulator found no race, deadlock or
uninitialised read); ``f16 err`` the largest difference from onnxruntime on the
same inputs relative to the output's largest magnitude (``inf`` with the count
of non-finite values when f16 overflowed), and ``f32 err`` the same under
``--precision-mode must_keep_origin_dtype``; ``s`` the seconds the row took
(export, both runs, onnxruntime).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Callable, Iterator

import attrs
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@attrs.define
class RealModel:
    """One architecture: its source package and how to build it with random
    weights (the module and its example inputs)."""

    name: str
    source: str
    build: Callable[[], tuple[Any, tuple[Any, ...], list[str]]]
    default: bool = True


def _image(size: int = 224) -> tuple[Any, ...]:
    import torch
    return (torch.randn(1, 3, size, size),)


def _torchvision(name: str, size: int = 224, **kwargs: Any) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kwargs), _image(size), ["x"]
    return build


def _vit_b_16() -> tuple[Any, tuple[Any, ...], list[str]]:
    """torchvision's ViT-B/16 with a random classifier: its own initialises
    the head to zeros, which would make every output 0 and any error 0."""
    import torch
    import torchvision
    model = torchvision.models.vit_b_16(weights=None)
    torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    return model, _image(), ["x"]


def _detector(name: str, size: int = 320) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    """A torchvision detector with its post-processing (NMS, top-k, mask pasting):
    data-dependent sizes, so ``ge-run`` runs it host-driven."""
    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import torch
        import torchvision
        model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None)
        return model, ([torch.rand(3, size, size)],), ["images"]
    return build


def _raft_small() -> tuple[Any, tuple[Any, ...], list[str]]:
    """torchvision's RAFT-small optical flow: twelve refinement steps of GridSample lookups."""
    import torch
    import torchvision
    model = torchvision.models.optical_flow.raft_small(weights=None)
    return model, (torch.rand(1, 3, 128, 128), torch.rand(1, 3, 128, 128)), ["image1", "image2"]


def _timm(name: str, size: int = 224) -> Callable[[], tuple[Any, tuple[Any, ...], list[str]]]:
    def build() -> tuple[Any, tuple[Any, ...], list[str]]:
        import timm
        return timm.create_model(name, pretrained=False), _image(size), ["x"]
    return build


class _FirstOutput:
    """A transformers model called with tensors, returning its first output
    (``last_hidden_state`` or ``logits``) as a plain tensor."""

    @staticmethod
    def wrap(model: Any) -> Any:
        import torch

        class First(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *args: Any) -> Any:
                out = self.model(*args, return_dict=True)
                return out[0]
        return First()


def _bert() -> tuple[Any, tuple[Any, ...], list[str]]:
    import torch
    from transformers import BertConfig, BertModel
    config = BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=512, max_position_embeddings=64)
    ids = torch.randint(0, 1000, (1, 16))
    return _FirstOutput.wrap(BertModel(config)), (ids, torch.ones_like(ids)), ["input_ids", "attention_mask"]


def _gpt2_config() -> Any:
    from transformers import GPT2Config
    return GPT2Config(vocab_size=1000, n_embd=128, n_layer=2, n_head=4, n_positions=64)


def _gpt2() -> tuple[Any, tuple[Any, ...], list[str]]:
    import torch
    from transformers import GPT2LMHeadModel
    model = GPT2LMHeadModel(_gpt2_config())
    model.config.use_cache = False
    return _FirstOutput.wrap(model), (torch.randint(0, 1000, (1, 16)),), ["input_ids"]


def _gpt2_kv() -> tuple[Any, tuple[Any, ...], list[str]]:
    """One decode step of GPT-2 with a KV cache of 15 positions: the cache's
    keys and values are inputs, the next logits and the grown cache outputs."""
    import torch
    from transformers import DynamicCache, GPT2LMHeadModel
    config = _gpt2_config()
    model = GPT2LMHeadModel(config)
    layers, heads, past = config.n_layer, config.n_head, 15
    head_dim = config.n_embd // heads

    class Step(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, *kv: Any) -> Any:
            cache = DynamicCache()
            for i in range(layers):
                cache.update(kv[2 * i], kv[2 * i + 1], i)
            out = self.model(input_ids=ids, past_key_values=cache, use_cache=True, return_dict=True)
            grown = out.past_key_values
            flat = []
            for i in range(layers):
                layer = grown.layers[i] if hasattr(grown, "layers") else None
                k, v = (layer.keys, layer.values) if layer is not None else grown[i]
                flat += [k, v]
            return (out.logits, *flat)

    kv = tuple(torch.randn(1, heads, past, head_dim) for _ in range(2 * layers))
    names = ["input_ids"] + [f"past_{kind}_{i}" for i in range(layers) for kind in ("key", "value")]
    return Step(), (torch.randint(0, 1000, (1, 1)), *kv), names


def _t5_encoder() -> tuple[Any, tuple[Any, ...], list[str]]:
    import torch
    from transformers import T5Config, T5EncoderModel
    config = T5Config(vocab_size=1000, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4)
    return _FirstOutput.wrap(T5EncoderModel(config)), (torch.randint(0, 1000, (1, 16)),), ["input_ids"]


def _whisper_encoder() -> tuple[Any, tuple[Any, ...], list[str]]:
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    config = WhisperConfig(vocab_size=1000, d_model=128, encoder_layers=2, encoder_attention_heads=4,
                           decoder_layers=2, decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
                           num_mel_bins=80, max_source_positions=100)
    return _FirstOutput.wrap(WhisperEncoder(config)), (torch.randn(1, 80, 200),), ["input_features"]


MODELS: list[RealModel] = [
    RealModel("resnet18", "torchvision", _torchvision("resnet18")),
    RealModel("mobilenet_v3_small", "torchvision", _torchvision("mobilenet_v3_small")),
    RealModel("googlenet", "torchvision", _torchvision("googlenet", init_weights=True)),
    RealModel("inception_v3", "torchvision", _torchvision("inception_v3", 299, init_weights=True)),
    RealModel("densenet121", "torchvision", _torchvision("densenet121")),
    RealModel("efficientnet_b0", "torchvision", _torchvision("efficientnet_b0")),
    RealModel("convnext_tiny", "torchvision", _torchvision("convnext_tiny")),
    # 86M parameters, about 200 s a row on 2 cores: timm's ViT-Tiny stands for it by default
    RealModel("vit_b_16", "torchvision", _vit_b_16, default=False),
    RealModel("swin_t", "torchvision", _torchvision("swin_t")),
    RealModel("shufflenet_v2_x1_0", "torchvision", _torchvision("shufflenet_v2_x1_0"), default=False),
    RealModel("regnet_y_400mf", "torchvision", _torchvision("regnet_y_400mf"), default=False),
    RealModel("ssdlite320_mobilenet_v3_large", "torchvision", _detector("ssdlite320_mobilenet_v3_large"),
              default=False),
    RealModel("fasterrcnn_mobilenet_v3_large_320_fpn", "torchvision",
              _detector("fasterrcnn_mobilenet_v3_large_320_fpn"), default=False),
    RealModel("retinanet_resnet50_fpn", "torchvision", _detector("retinanet_resnet50_fpn"), default=False),
    RealModel("maskrcnn_resnet50_fpn", "torchvision", _detector("maskrcnn_resnet50_fpn"), default=False),
    RealModel("raft_small", "torchvision", _raft_small, default=False),
    RealModel("vit_tiny_patch16_224", "timm", _timm("vit_tiny_patch16_224")),
    RealModel("convnextv2_atto", "timm", _timm("convnextv2_atto")),
    RealModel("mobilevit_xxs", "timm", _timm("mobilevit_xxs", 256)),
    RealModel("bert", "transformers", _bert),
    RealModel("gpt2", "transformers", _gpt2),
    RealModel("gpt2_kv", "transformers", _gpt2_kv),
    RealModel("t5_encoder", "transformers", _t5_encoder),
    RealModel("whisper_encoder", "transformers", _whisper_encoder),
]


def export(model: RealModel, path: str, exporter: str, opset: int = 17) -> str:
    """Build ``model`` with random weights (seed 0) and export it to ``path``
    with ``exporter`` (the TorchScript one at ``opset``), or with the other one
    when that fails (the TorchScript exporter lacks ``aten::diff``, which
    transformers' causal masks use); the exporter that wrote the file."""
    import torch
    torch.manual_seed(0)
    module, args, names = model.build()
    module.eval()
    # torchvision's ViT would take the fused attention fast path, which has no ONNX export
    torch.backends.mha.set_fastpath_enabled(False)
    order = [exporter, "dynamo" if exporter == "torchscript" else "torchscript"]
    for k, which in enumerate(order):
        try:
            with torch.no_grad(), warnings.catch_warnings(), _quiet():
                warnings.simplefilter("ignore")
                if which == "dynamo":
                    torch.onnx.export(module, args, path, input_names=names, dynamo=True, verbose=False)
                else:
                    torch.onnx.export(module, args, path, input_names=names, dynamo=False, opset_version=opset)
            return which
        except Exception:
            if k == len(order) - 1:
                raise
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Standard output and error to /dev/null at the descriptor level: the
    exporters print progress and, on failure, the whole TorchScript graph."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


def onnxruntime_outputs(path: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The model's outputs by name under onnxruntime (CPU)."""
    import onnxruntime
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    feeds = {i.name: inputs[i.name] for i in session.get_inputs()}
    return dict(zip(names, session.run(None, feeds)))


def relative_error(ours: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str:
    """The largest |ours - want| over all outputs, relative to each output's
    largest magnitude; ``inf (N non-finite)`` when ours has non-finite values
    where onnxruntime's are finite; ``shape A vs B`` when a data-dependent
    output's size differs (a detector keeping other boxes in f16)."""
    worst, bad = 0.0, 0
    for name, ref in want.items():
        got = np.asarray(ours[name])
        ref = np.asarray(ref)
        if got.shape != ref.shape:
            return f"{name}: shape {'x'.join(map(str, got.shape))} vs {'x'.join(map(str, ref.shape))}"
        if ref.dtype.kind not in "fc":
            worst = max(worst, float(np.any(got != ref)))
            continue
        finite = np.isfinite(ref)
        bad += int(np.count_nonzero(~np.isfinite(got) & finite))
        scale = float(np.max(np.abs(ref[finite]))) if finite.any() else 1.0
        diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))[finite & np.isfinite(got)]
        if diff.size:
            worst = max(worst, float(diff.max()) / (scale or 1.0))
    return f"inf ({bad} non-finite)" if bad else f"{worst:.1e}"


def run_one(model: RealModel, directory: str, exporter: str, opset: int = 17) -> dict[str, str]:
    """Export ``model``, run it at the defaults and with f32 kept; its row."""
    import onnx

    import geir
    from geir.diagnostics import DiagnosticError
    row = {"model": model.name, "source": model.source}
    start = time.perf_counter()
    path = os.path.join(directory, f"{model.name}.onnx")
    try:
        row["export"] = export(model, path, exporter, opset)
    except Exception as e:  # an exporter failure is the row's finding, not ours
        row["run"] = f"export failed: {type(e).__name__}: {str(e).splitlines()[0][:80]}"
        row["s"] = f"{time.perf_counter() - start:.0f}"
        return row
    row["ops"] = str(len(onnx.load(path, load_external_data=False).graph.node))
    for mode, column in ((None, "f16 err"), ("must_keep_origin_dtype", "f32 err")):
        try:
            report = geir.run_model(path, precision_mode=mode, compare=mode is None)
        except DiagnosticError as e:
            row.setdefault("run", "error: " + e.format().splitlines()[0][:110])
            row[column] = "-"
            continue
        except Exception as e:  # an internal error: say where, keep going
            row.setdefault("run", f"internal: {type(e).__name__}: {str(e).splitlines()[0][:80]}")
            if os.environ.get("GEIR_BENCH_DEBUG"):
                traceback.print_exc()
            row[column] = "-"
            continue
        if mode is None:
            launches = report.fields.get("launches")
            row["run"] = "ok" if launches is None else f"ok, host-driven: {len(launches)} launches"
            row.update(_figures(report))
        if report.outputs is not None and report.input_arrays is not None:
            row[column] = relative_error(report.outputs, onnxruntime_outputs(path, report.input_arrays))
        else:
            row[column] = "n/a"
    row["s"] = f"{time.perf_counter() - start:.0f}"
    return row


def _figures(report: Any) -> dict[str, str]:
    """The timing, bound, memory and race columns of a run's report."""
    f = report.fields
    out: dict[str, str] = {}
    single = f.get("single_stream") or {}
    out["speed-up"] = f"{single['speedup']:.2f}x" if single.get("speedup") else "n/a"
    bound = f.get("graph_lower_bound")
    makespan = report.makespan_us
    if bound and bound.get("bound_us"):
        out["graph LB us"] = f"{bound['bound_us']:.1f}"
        out["mk/LB"] = f"{makespan / bound['bound_us']:.2f}"
    plan = f.get("memory_plan")
    if plan and plan.get("over_lower_bound") is not None:
        out["mem/LB"] = f"{plan['over_lower_bound']:.2f}"
    out["races"] = "none" if report.clean else "FOUND"
    return out


COLUMNS = ["model", "source", "export", "ops", "run", "speed-up", "graph LB us", "mk/LB", "mem/LB", "races", "f16 err",
           "f32 err", "s"]


def print_table(rows: list[dict[str, str]]) -> None:
    """The rows as a Markdown table."""
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "|".join("---" for _ in COLUMNS) + "|")
    for row in rows:
        print("| " + " | ".join(row.get(c, "") for c in COLUMNS) + " |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="default",
                   help="comma-separated names, 'default' (the list marked default) or 'all'")
    p.add_argument("--exporter", choices=("torchscript", "dynamo"), default="torchscript")
    p.add_argument("--opset", type=int, default=17,
                   help="the TorchScript exporter's opset (default 17; 11 or 13 as the Ascend ModelZoo exports)")
    p.add_argument("--keep", default=None, metavar="DIR", help="keep the exported .onnx files here")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    args = p.parse_args(argv)
    if args.list:
        for m in MODELS:
            print(f"{m.name:24} {m.source:13} {'default' if m.default else ''}")
        return 0
    by_name = {m.name: m for m in MODELS}
    if args.models == "all":
        chosen = MODELS
    elif args.models == "default":
        chosen = [m for m in MODELS if m.default]
    else:
        unknown = [n for n in args.models.split(",") if n not in by_name]
        if unknown:
            p.error(f"unknown model(s) {', '.join(unknown)}; --list shows them")
        chosen = [by_name[n] for n in args.models.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or scratch
        os.makedirs(directory, exist_ok=True)
        for model in chosen:
            row = run_one(model, directory, args.exporter, args.opset)
            print("  ".join(f"{c}={row[c]}" for c in COLUMNS if c in row), file=sys.stderr, flush=True)
            rows.append(row)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
