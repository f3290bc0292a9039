"""Export the architectures of ``measured-310p3.csv`` here as graph-only ONNX files (``models/``).

    python bench/predicted_310p3/export_graphs.py [--out bench/predicted_310p3/models] [--models vgg19,gpt2_chinese]

Needs torch, torchvision, timm and transformers (the ``exports`` extra; CI does
not). Each architecture is built with random weights from the library code the
vendor ran, at the configuration its README gives, and exported the way every
calibration graph was (``bench/graph_export.py``): image models with a symbolic
``batch`` dim on the input ``image``; text models on ``input_ids`` (and
``attention_mask``, ``token_type_ids`` where the vendor's graph had them) and
speech models on the raw waveform ``audio``, each ``batch`` x ``seq``.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graph_export import Exporters, export_graph_only, export_main, image_exporter  # noqa: E402

#: the architectures of ``measured-310p3.csv`` here
ARCHITECTURES: Exporters = {}


def _torchvision(name: str, size: int = 224) -> None:
    def build() -> Any:
        import torchvision
        return getattr(torchvision.models, name)(weights=None)
    ARCHITECTURES[name] = ("torchvision", image_exporter(build, size))


def _timm_06_attention(model: Any) -> Any:
    """``model`` with each ViT attention computed as timm 0.6 wrote it, which the vendor
    exported: the scores scaled after the product (one Mul of batch x heads x tokens x
    tokens), where today's timm scales the query, or the exporter of
    ``scaled_dot_product_attention`` the query and the key."""
    from timm.models.vision_transformer import Attention

    def forward(self: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, c // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))

    for module in model.modules():
        if isinstance(module, Attention):
            module.forward = forward.__get__(module)
    return model


def _timm(name: str, size: int = 224, vendor_timm_06: bool = False) -> None:
    def build() -> Any:
        import timm
        model = timm.create_model(name, pretrained=False)
        return _timm_06_attention(model) if vendor_timm_06 else model
    ARCHITECTURES[name] = ("timm", image_exporter(build, size))


class _Outputs:
    """A transformers model called with named inputs, returning its outputs as a tuple;
    ``full_mask``: with an attention mask of ones made in the graph, for a model whose
    exported graph took ``input_ids`` alone (transformers' own mask code otherwise
    looks for packed sequences with an op the exporter lacks)."""

    def __new__(cls, model: Any, names: tuple[str, ...], full_mask: bool = False) -> Any:
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *inputs: Any) -> Any:
                named = dict(zip(names, inputs))
                if full_mask:
                    named["attention_mask"] = torch.ones_like(inputs[0])
                return self.model(**named, return_dict=False)

        return Wrapped()


def _transformers(name: str, build: Callable[[], Any], inputs: tuple[str, ...], outputs: tuple[str, ...],
                  waveform: bool = False, full_mask: bool = False) -> None:
    def export(path: str) -> str:
        import torch
        if waveform:
            args: tuple[Any, ...] = (torch.randn(1, 16000),)
        else:
            args = tuple(torch.ones(1, 32, dtype=torch.long) for _ in inputs)
        axes = {n: {0: "batch", 1: "seq"} for n in (("audio",) if waveform else inputs)}
        axes.update({n: {0: "batch"} for n in outputs})
        return export_graph_only(_Outputs(build(), ("input_values",) if waveform else inputs, full_mask), args, path,
                                 ("audio",) if waveform else inputs, outputs, axes)
    ARCHITECTURES[name] = ("transformers", export)


def _bert_large_squad() -> Any:
    from transformers import BertConfig, BertForQuestionAnswering
    return BertForQuestionAnswering(BertConfig(
        vocab_size=30522, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
        max_position_embeddings=512, type_vocab_size=2, attn_implementation="eager"))


def _gpt2_chinese() -> Any:
    from transformers import GPT2Config, GPT2LMHeadModel
    return GPT2LMHeadModel(GPT2Config(
        vocab_size=21128, n_positions=1024, n_embd=768, n_layer=12, n_head=12, activation_function="gelu_new",
        layer_norm_epsilon=1e-5, bos_token_id=None, eos_token_id=None, use_cache=False, attn_implementation="eager"))


def _data2vec_audio() -> Any:
    from transformers import Data2VecAudioConfig, Data2VecAudioForCTC
    return Data2VecAudioForCTC(Data2VecAudioConfig(vocab_size=32, attn_implementation="eager"))


# torchvision's own classifiers, as the vendor exported them from torchvision
_torchvision("shufflenet_v2_x1_0")
_torchvision("resnext50_32x4d")
_torchvision("vgg19")
# timm's, as the vendor exported them from timm
_timm("efficientnetv2_rw_t", 288)
_timm("cspresnext50")
_timm("tresnet_m")
_timm("pnasnet5large", 331)
# the ViTs as timm 0.6 wrote their attention (the vendor's timm)
_timm("vit_small_patch16_224", vendor_timm_06=True)
_timm("vit_base_patch32_224", vendor_timm_06=True)
_timm("vit_base_patch8_224", vendor_timm_06=True)
_timm("vit_base_patch16_384", 384, vendor_timm_06=True)
_timm("vit_base_patch32_384", 384, vendor_timm_06=True)
# transformers', at the configurations of the vendor's checkpoints
_transformers("bert_large_squad", _bert_large_squad, ("input_ids", "attention_mask", "token_type_ids"),
              ("start_logits", "end_logits"))
_transformers("gpt2_chinese", _gpt2_chinese, ("input_ids",), ("logits",), full_mask=True)
_transformers("data2vec_audio_base", _data2vec_audio, (), ("logits",), waveform=True)


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    return export_main(argv, __doc__.split("\n\n")[0], os.path.join(here, "models"),
                       ARCHITECTURES)


if __name__ == "__main__":
    sys.exit(main())
