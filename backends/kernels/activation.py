"""Activation kernels: Relu and friends, Gelu, Softmax/LogSoftmax/Hardmax, PRelu,
SwiGLU and (inference or seeded training) Dropout.

Each pointwise activation is one small function of ``(x, attrs)`` in a table;
they all compute in at least float32 (float16 inputs would lose accuracy in
``exp``) and return the input dtype.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from . import Attrs, Inputs, register
from .axes import normalize_axis, optional_input
from .dtypes import compute_dtype
from .elementwise import erf

_SELU_ALPHA = 1.67326319217681884765625
_SELU_GAMMA = 1.05070102214813232421875


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of a non-positive number never overflows, for either sign of x.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, x).astype(x.dtype)


def _gelu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    if attrs.get("approximate", "none") == "tanh":
        inner = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)
        return 0.5 * x * (1.0 + np.tanh(inner))
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)).astype(x.dtype))


_POINTWISE: dict[str, Callable[[np.ndarray, Attrs], np.ndarray]] = {
    "Relu": lambda x, a: np.maximum(x, 0),
    "LeakyRelu": lambda x, a: np.where(x >= 0, x, a.get("alpha", 0.01) * x),
    "Elu": lambda x, a: np.where(x >= 0, x, a.get("alpha", 1.0) * np.expm1(x)),
    "Selu": lambda x, a: a.get("gamma", _SELU_GAMMA) * np.where(
        x > 0, x, a.get("alpha", _SELU_ALPHA) * np.expm1(x)),
    "Celu": lambda x, a: np.maximum(x, 0) + np.minimum(
        0, a.get("alpha", 1.0) * np.expm1(x / a.get("alpha", 1.0))),
    "ThresholdedRelu": lambda x, a: np.where(x > a.get("alpha", 1.0), x, 0),
    "Sigmoid": lambda x, a: _sigmoid(x),
    "HardSigmoid": lambda x, a: np.clip(a.get("alpha", 0.2) * x + a.get("beta", 0.5), 0, 1),
    "HardSwish": lambda x, a: x * np.clip(x / 6 + 0.5, 0, 1),
    "Softplus": lambda x, a: _softplus(x),
    "Softsign": lambda x, a: x / (1 + np.abs(x)),
    "Mish": lambda x, a: x * np.tanh(_softplus(x)),
    "Swish": lambda x, a: x * _sigmoid(a.get("alpha", 1.0) * x),
    "Gelu": _gelu,
    "Shrink": lambda x, a: np.where(
        x < -a.get("lambd", 0.5), x + a.get("bias", 0.0),
        np.where(x > a.get("lambd", 0.5), x - a.get("bias", 0.0), 0)),
}


#: exact in any dtype, so computed without a float round trip (int64 Relu stays exact)
_IN_INPUT_DTYPE = frozenset({"Relu"})


def _pointwise(name: str, inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    x = inputs[0]
    work = x if name in _IN_INPUT_DTYPE else x.astype(compute_dtype(x.dtype))
    with np.errstate(over="ignore", under="ignore"):
        return [np.asarray(_POINTWISE[name](work, attrs)).astype(x.dtype)]


for _name in _POINTWISE:
    register(_name)(functools.partial(_pointwise, _name))


@register("PRelu")
def prelu(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """PRelu: ``slope`` broadcasts unidirectionally to ``x``."""
    x, slope = inputs
    return [np.where(x < 0, x * slope, x).astype(x.dtype)]


@register("SwiGLU")
def swiglu(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """SwiGLU(A, B) = Swish_alpha(A) * B, A and B of the same shape."""
    a, b = inputs
    work = compute_dtype(a.dtype)
    gate = _POINTWISE["Swish"](a.astype(work), attrs)
    return [(gate * b.astype(work)).astype(a.dtype)]


# --------------------------------------------------------------- softmax family

def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _hardmax(x: np.ndarray, axis: int) -> np.ndarray:
    # np.argmax returns the first maximum, the tie-break ONNX specifies.
    result = np.zeros_like(x)
    np.put_along_axis(result, np.expand_dims(np.argmax(x, axis=axis), axis), 1, axis=axis)
    return result


_SOFTMAX_FAMILY: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "Softmax": _softmax, "LogSoftmax": _log_softmax, "Hardmax": _hardmax,
}


def _softmax_family(name: str, inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Opset >= 13 semantics: normalise along ``axis`` (default -1).

    Opsets < 13 flattened to 2-D at ``axis`` (default 1); the importer rewrites
    those nodes, kernels do not see the opset.
    """
    x = inputs[0]
    axis = normalize_axis(attrs.get("axis", -1), x.ndim)
    if x.size == 0:  # nothing to normalise (a zero-length sequence): an empty result
        return [x.copy()]
    if name == "Hardmax":
        return [_hardmax(x, axis)]
    return [_SOFTMAX_FAMILY[name](x.astype(compute_dtype(x.dtype)), axis).astype(x.dtype)]


for _name in _SOFTMAX_FAMILY:
    register(_name)(functools.partial(_softmax_family, _name))


# ----------------------------------------------------------------------- dropout

@register("Dropout")
def dropout(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Dropout -> [output, mask].

    Inference (the default, and what the emulator runs) is the identity with an
    all-true mask.  Training mode drops with probability ``ratio`` using a numpy
    generator seeded from ``seed``; like ONNX, the exact random stream is
    implementation-defined.
    """
    x = inputs[0]
    ratio_input = optional_input(inputs, 1)
    ratio = float(attrs.get("ratio", 0.5) if ratio_input is None else ratio_input)
    training = optional_input(inputs, 2)
    if training is None or not bool(training) or ratio == 0:
        return [x.copy(), np.ones(x.shape, dtype=np.bool_)]
    rng = np.random.default_rng(attrs.get("seed"))
    mask = rng.uniform(0.0, 1.0, x.shape) >= ratio
    return [(x * mask / (1.0 - ratio)).astype(x.dtype), mask]
