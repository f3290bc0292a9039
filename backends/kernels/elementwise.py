"""Elementwise kernels: unary math, broadcasting binary arithmetic, variadic
Sum/Mean/Max/Min, comparisons, logic, bitwise ops, Where, Clip and casts.

Numpy's broadcasting is ONNX's multidirectional broadcasting, so binary ops are
plain ufunc calls; the care goes into dtypes (the output keeps the input dtype
even where numpy would promote) and the integer semantics numpy does not share
(Div truncates toward zero, Mod's ``fmod`` switch, BitShift out-of-range counts).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from . import Attrs, Inputs, register
from .axes import optional_input


def _same_dtype(result: np.ndarray | np.generic, dtype: np.dtype) -> np.ndarray:
    """``result`` as an ndarray of ``dtype`` (numpy may return scalars or promote)."""
    return np.asarray(result).astype(dtype, copy=False)


# --------------------------------------------------------------------------- erf

# Chebyshev fit of erfc (Numerical Recipes ``erfcc``), fractional error < 1.2e-7.
_ERFC_COEFFS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
                0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277)
# Taylor series erf(x) = x * sum_n c_n x^(2n), c_n = 2/sqrt(pi) (-1)^n / (n! (2n+1)),
# which at |x| < 1 is exact to 1e-15 after 16 terms.
_ERF_TAYLOR = tuple(2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                    for n in range(16))


def _horner(coeffs: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    """``sum_i coeffs[i] * x**i``."""
    result = np.full_like(x, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        result *= x
        result += c
    return result


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorised error function (numpy has none and scipy is not a dependency).

    Evaluated in float64: the Taylor series below |x| = 1 (where ``1 - erfc``
    would lose relative precision) and the Chebyshev erfc fit above; relative
    error stays below 1e-8 (checked against ``math.erf``), ample for float32/float16.
    """
    x64 = np.asarray(x, dtype=np.float64)
    z = np.abs(x64)
    small = z < 1.0
    magnitude = np.empty_like(z)
    zs = z[small]
    magnitude[small] = zs * _horner(_ERF_TAYLOR, zs * zs)
    zl = z[~small]  # NaN lands here and stays NaN
    t = 1.0 / (1.0 + 0.5 * zl)
    with np.errstate(over="ignore", under="ignore"):
        erfc = t * np.exp(-zl * zl + _horner(_ERFC_COEFFS, t))
    magnitude[~small] = 1.0 - erfc
    return np.copysign(magnitude, x64)


# ------------------------------------------------------------------------- unary

_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Abs": np.abs, "Neg": np.negative, "Floor": np.floor, "Ceil": np.ceil,
    "Sqrt": np.sqrt, "Exp": np.exp, "Log": np.log, "Reciprocal": np.reciprocal,
    "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos,
    "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh, "Tanh": np.tanh,
    "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh, "Sign": np.sign,
    # np.round rounds half to even, as ONNX requires.
    "Round": np.round, "Erf": erf,
    "Not": np.logical_not, "BitwiseNot": np.invert,
}


def _unary(fn: Callable[[np.ndarray], np.ndarray], inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    (x,) = inputs
    with np.errstate(all="ignore"):  # log(0), sqrt(-1) ... follow IEEE like ONNX
        return [_same_dtype(fn(x), x.dtype)]


for _name, _fn in _UNARY.items():
    register(_name)(functools.partial(_unary, _fn))


@register("IsNaN")
def is_nan(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """IsNaN: boolean mask of NaN elements."""
    return [np.asarray(np.isnan(inputs[0]))]


@register("IsInf")
def is_inf(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """IsInf with ``detect_negative`` / ``detect_positive`` (both default 1)."""
    x = inputs[0]
    negative = bool(attrs.get("detect_negative", 1))
    positive = bool(attrs.get("detect_positive", 1))
    return [np.asarray((np.isneginf(x) & negative) | (np.isposinf(x) & positive))]


# ------------------------------------------------------------------------ binary

def _truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero (C semantics), as ONNX Div requires."""
    q = np.floor_divide(a, b)
    adjust = (np.remainder(a, b) != 0) & ((a < 0) ^ (b < 0))
    return q + adjust.astype(q.dtype)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        return _truncating_divide(a, b)
    return np.divide(a, b)


_ARITHMETIC: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": _divide,
    "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
    "BitwiseXor": np.bitwise_xor,
}

_PREDICATES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Equal": np.equal, "Greater": np.greater, "GreaterOrEqual": np.greater_equal,
    "Less": np.less, "LessOrEqual": np.less_equal,
    "And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor,
}


def _arithmetic(fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    a, b = inputs
    with np.errstate(all="ignore"):  # integer /0 and float overflow are not errors
        return [_same_dtype(fn(a, b), a.dtype)]


def _predicate(fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
               inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    a, b = inputs
    return [np.asarray(fn(a, b), dtype=np.bool_)]


for _name, _fn in _ARITHMETIC.items():
    register(_name)(functools.partial(_arithmetic, _fn))
for _name, _fn in _PREDICATES.items():
    register(_name)(functools.partial(_predicate, _fn))


@register("Pow")
def power(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Pow: base and exponent may differ in dtype; the result has the base's."""
    base, exponent = inputs
    with np.errstate(all="ignore"):
        if np.issubdtype(base.dtype, np.integer) and np.issubdtype(exponent.dtype, np.integer):
            # numpy refuses negative integer exponents; ONNX leaves them to floats.
            result = np.power(base.astype(np.float64), exponent.astype(np.float64))
        else:
            result = np.power(base, exponent)
    return [_same_dtype(result, base.dtype)]


@register("Mod")
def mod(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Mod: ``fmod=0`` takes the divisor's sign (Python ``%``), ``fmod=1`` the dividend's (C)."""
    a, b = inputs
    fn = np.fmod if attrs.get("fmod", 0) else np.mod
    with np.errstate(all="ignore"):
        return [_same_dtype(fn(a, b), a.dtype)]


@register("BitShift")
def bit_shift(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """BitShift; a shift count outside ``[0, bits)`` shifts every bit out.

    Right shifts of signed values are arithmetic (so they saturate at -1 for
    negatives); left shifts go through the unsigned view so overflow wraps
    instead of being undefined.
    """
    x, shift = np.broadcast_arrays(*inputs)
    bits = np.iinfo(x.dtype).bits
    in_range = (shift >= 0) & (shift < bits)
    safe = np.where(in_range, shift, 0)
    if attrs["direction"] == "LEFT":
        unsigned = np.dtype(f"u{x.dtype.itemsize}")
        shifted = np.left_shift(x.view(unsigned), safe.astype(unsigned)).view(x.dtype)
        shifted_out = np.zeros((), x.dtype)
    else:
        shifted = np.right_shift(x, safe.astype(x.dtype))
        shifted_out = np.where(x < 0, -1, 0).astype(x.dtype) if x.dtype.kind == "i" else 0
    return [np.where(in_range, shifted, shifted_out).astype(x.dtype)]


# ---------------------------------------------------------------------- variadic

_VARIADIC: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    # np.maximum/np.minimum propagate NaN, as ONNX Max/Min do.
    "Max": np.maximum, "Min": np.minimum, "Sum": np.add, "Mean": np.add,
}


def _variadic(name: str, inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    arrays = [x for x in inputs if x is not None]
    fn = _VARIADIC[name]
    result = functools.reduce(fn, arrays[1:], arrays[0])
    result = np.broadcast_to(result, np.broadcast_shapes(*(a.shape for a in arrays)))
    if name == "Mean":
        result = result / len(arrays)
    return [np.array(result, dtype=arrays[0].dtype)]


for _name in _VARIADIC:
    register(_name)(functools.partial(_variadic, _name))


# ------------------------------------------------------------------ where / clip

@register("Where")
def where(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Where(condition, X, Y) with broadcasting."""
    condition, x, y = inputs
    return [_same_dtype(np.where(condition, x, y), x.dtype)]


@register("Clip")
def clip(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Clip: bounds as optional inputs (opset >= 11) or ``min``/``max`` attributes (opset 6).

    When min > max every element becomes max, which is what ``minimum(maximum())`` gives.
    """
    x = inputs[0]
    low = optional_input(inputs, 1)
    high = optional_input(inputs, 2)
    low = attrs.get("min") if low is None else low
    high = attrs.get("max") if high is None else high
    result = x
    if low is not None:
        result = np.maximum(result, np.asarray(low).astype(x.dtype))
    if high is not None:
        result = np.minimum(result, np.asarray(high).astype(x.dtype))
    return [np.array(result, dtype=x.dtype)]


# ------------------------------------------------------------------------- casts

#: float8 types that Cast (and QuantizeLinear) saturate to their finite range by
#: default, by numpy name (so that ml_dtypes, slow to load, is loaded only when used)
SATURATING_FLOAT8 = frozenset({"float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"})


def cast_array(x: np.ndarray, dtype: np.dtype, saturate: bool = True,
               round_mode: str = "up") -> np.ndarray:
    """Convert ``x`` to ``dtype`` the way ONNX Cast does.

    float8 targets saturate to the largest finite value when ``saturate`` (the
    default); float8e8m0 rounds with ``round_mode``; strings print in numpy's
    shortest round-trip form and parse with numpy's float parser.
    """
    dtype = np.dtype(dtype)
    if dtype.kind in "OUS":
        return x.astype(np.str_).astype(object)
    if x.dtype == object or x.dtype.kind in "US":
        x = x.astype(np.str_)
        if dtype.kind in "iu":  # "1.5" -> int needs a float parse first
            return x.astype(np.float64).astype(dtype)
        if dtype.kind == "b":
            return x.astype(np.float64).astype(dtype)
        if dtype != np.float64 and dtype.kind == "f" and dtype.itemsize < 8:
            return x.astype(np.float64).astype(dtype)
    if dtype.name in SATURATING_FLOAT8 and saturate:
        from onnx import numpy_helper
        return numpy_helper.saturate_cast(x, dtype)
    if dtype.name == "float8_e8m0fnu":
        from onnx import numpy_helper
        return numpy_helper.to_float8e8m0(x, saturate, round_mode).astype(dtype)
    with np.errstate(all="ignore"):
        return x.astype(dtype)


@register("Cast")
def cast(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """Cast to the numpy dtype in attribute ``to``."""
    return [cast_array(inputs[0], attrs["to"], bool(attrs.get("saturate", 1)),
                       attrs.get("round_mode", "up"))]


@register("CastLike")
def cast_like(inputs: Inputs, attrs: Attrs) -> list[np.ndarray]:
    """CastLike: cast input 0 to the dtype of input 1."""
    x, target = inputs
    return [cast_array(x, target.dtype, bool(attrs.get("saturate", 1)),
                       attrs.get("round_mode", "up"))]
