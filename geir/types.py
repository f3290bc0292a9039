"""Types of the IR: element types, ranked tensors, function types.

Types are immutable and interned: ``TensorType((1, 3), F16) is
TensorType((1, 3), F16)``, so comparing types is an identity check and a
100k-op module holds each distinct type once.
"""

from __future__ import annotations

import math
import re
from typing import ClassVar, Sequence

import numpy as np

__all__ = [
    "Type", "ElementType", "IntegerType", "FloatType", "IndexType", "NoneType",
    "TensorType", "FunctionType", "OpaqueType", "DYNAMIC", "parse_element_type",
    "element_type_from_numpy", "storage_dtype", "ML_DTYPES", "I1", "I8", "I16", "I32", "I64", "UI8", "F16", "BF16",
    "F32", "F64", "INDEX", "NONE", "MAX_ELEMENTS",
]

#: the most elements a tensor geir computes with may hold: its bytes, at 8 an
#: element, stay a 64-bit signed count, as numpy and the arena offsets need
MAX_ELEMENTS = 2**60

#: A dynamic dimension (`?` in the text).
DYNAMIC: None = None


class Type:
    """Base of every type. Subclasses are interned, so ``==`` is ``is``."""

    __slots__ = ("_text",)
    _text: str

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"<type {self._text}>"


class ElementType(Type):
    """A scalar type that can be the element type of a tensor."""

    __slots__ = ("numpy_dtype", "bitwidth")
    numpy_dtype: np.dtype | None
    bitwidth: int


class IntegerType(ElementType):
    """``i1``, ``i8`` ... ``i64``, ``si32``, ``ui8`` ... ``ui64``."""

    __slots__ = ("width", "signedness")
    _cache: ClassVar[dict[tuple[int, str], "IntegerType"]] = {}

    def __new__(cls, width: int, signedness: str = "") -> "IntegerType":
        key = (width, signedness)
        self = cls._cache.get(key)
        if self is None:
            self = object.__new__(cls)
            self.width = width
            self.signedness = signedness  # "" (signless), "s" or "u"
            self.bitwidth = width
            self._text = f"{signedness}i{width}"
            kind = "u" if signedness == "u" else "i"
            if width == 1:
                self.numpy_dtype = np.dtype(np.bool_)
            elif width in (8, 16, 32, 64):
                self.numpy_dtype = np.dtype(f"{kind}{width // 8}")
            else:
                self.numpy_dtype = None
            cls._cache[key] = self
        return self

    def __reduce__(self):
        return (IntegerType, (self.width, self.signedness))


class FloatType(ElementType):
    """``f16``, ``bf16``, ``f32``, ``f64`` and the float8 types ONNX names."""

    __slots__ = ("name",)
    _cache: ClassVar[dict[str, "FloatType"]] = {}
    _WIDTHS: ClassVar[dict[str, int]] = {
        "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f8E4M3FN": 8, "f8E5M2": 8,
        "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8,
    }

    def __new__(cls, name: str) -> "FloatType":
        self = cls._cache.get(name)
        if self is None:
            if name not in cls._WIDTHS:
                raise ValueError(f"unknown float type '{name}'")
            self = object.__new__(cls)
            self.name = name
            self._text = name
            self.bitwidth = cls._WIDTHS[name]
            # numpy has no bf16/f8: those are stored with a wider dtype.
            self.numpy_dtype = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32),
                                "f64": np.dtype(np.float64)}.get(name, np.dtype(np.float32))
            cls._cache[name] = self
        return self

    def __reduce__(self):
        return (FloatType, (self.name,))


class IndexType(ElementType):
    """MLIR's ``index``."""

    __slots__ = ()
    _instance: ClassVar["IndexType | None"] = None

    def __new__(cls) -> "IndexType":
        if cls._instance is None:
            self = object.__new__(cls)
            self._text = "index"
            self.numpy_dtype = np.dtype(np.int64)
            self.bitwidth = 64
            cls._instance = self
        return cls._instance

    def __reduce__(self):
        return (IndexType, ())


class NoneType(Type):
    """MLIR's ``none``."""

    __slots__ = ()
    _instance: ClassVar["NoneType | None"] = None

    def __new__(cls) -> "NoneType":
        if cls._instance is None:
            self = object.__new__(cls)
            self._text = "none"
            cls._instance = self
        return cls._instance

    def __reduce__(self):
        return (NoneType, ())


class OpaqueType(ElementType):
    """A type we do not interpret, kept verbatim: a dialect type (``!ge.string``,
    ``!foo.bar<"x", [1]>``) or a builtin one we do not model (``memref<...>``,
    ``vector<4xf32>``, ``complex<f32>``).

    The text is the inline spelling. ``pieces`` splits it where it refers to
    aliased attributes or types (``memref<4xf32, #map>``), so the printer can
    print those through their aliases. Interned by text like every type, so it
    holds nothing a source says of it: the alias name a source gives a type is
    kept by the parsed :class:`~geir.module.Module` (``type_aliases``)."""

    __slots__ = ("pieces",)
    _cache: ClassVar[dict[str, "OpaqueType"]] = {}

    def __new__(cls, text: str, pieces: tuple = ()) -> "OpaqueType":
        self = cls._cache.get(text)
        if self is None:
            self = object.__new__(cls)
            self._text = text
            self.numpy_dtype = np.dtype(object) if text == "!ge.string" else None
            self.bitwidth = 0
            self.pieces = pieces
            cls._cache[text] = self
        elif pieces and not self.pieces:
            self.pieces = pieces
        return self

    def __reduce__(self):
        return (OpaqueType, (self._text,))


class TensorType(Type):
    """A tensor: ``tensor<1x3x?x224xf16>`` (ranked) or ``tensor<*xf32>`` (unranked)."""

    __slots__ = ("shape", "element_type", "_elements", "__weakref__")
    shape: tuple[int | None, ...] | None
    element_type: ElementType
    _cache: ClassVar[dict[tuple, "TensorType"]] = {}

    def __new__(cls, shape: Sequence[int | None] | None, element_type: ElementType) -> "TensorType":
        key_shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        key = (key_shape, element_type)
        self = cls._cache.get(key)
        if self is None:
            self = object.__new__(cls)
            self.shape = key_shape
            self.element_type = element_type
            # counted once per interned type: the verifier and the cost model ask often
            self._elements = None if key_shape is None or None in key_shape else math.prod(key_shape)
            if key_shape is None:
                self._text = f"tensor<*x{element_type}>"
            else:
                dims = "".join(("?" if d is None else str(d)) + "x" for d in key_shape)
                self._text = f"tensor<{dims}{element_type}>"
            cls._cache[key] = self
        return self


    def __reduce__(self):
        return (TensorType, (self.shape, self.element_type))

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def is_static(self) -> bool:
        return self.shape is not None and None not in self.shape

    @property
    def num_elements(self) -> int | None:
        return self._elements

    @property
    def size_in_bytes(self) -> int | None:
        """Bytes of a dense buffer of this tensor (bools and i1 take a byte each)."""
        n = self.num_elements
        if n is None:
            return None
        return n * max(1, (self.element_type.bitwidth + 7) // 8)

    def with_shape(self, shape: Sequence[int | None] | None) -> "TensorType":
        return TensorType(shape, self.element_type)

    def with_element_type(self, element_type: ElementType) -> "TensorType":
        return TensorType(self.shape, element_type)


class FunctionType(Type):
    """``(inputs) -> results``, as in an op's trailing type or a graph's signature."""

    __slots__ = ("inputs", "results")
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]
    _cache: ClassVar[dict[tuple, "FunctionType"]] = {}

    def __new__(cls, inputs: Sequence[Type], results: Sequence[Type]) -> "FunctionType":
        key = (tuple(inputs), tuple(results))
        self = cls._cache.get(key)
        if self is None:
            self = object.__new__(cls)
            self.inputs, self.results = key
            ins = ", ".join(map(str, key[0]))
            if len(key[1]) == 1 and not isinstance(key[1][0], FunctionType):
                outs = str(key[1][0])
            else:
                outs = "(" + ", ".join(map(str, key[1])) + ")"
            self._text = f"({ins}) -> {outs}"
            cls._cache[key] = self
        return self

    def __reduce__(self):
        return (FunctionType, (self.inputs, self.results))


I1, I8, I16, I32, I64 = (IntegerType(w) for w in (1, 8, 16, 32, 64))
UI8 = IntegerType(8, "u")
F16, BF16, F32, F64 = (FloatType(n) for n in ("f16", "bf16", "f32", "f64"))
INDEX = IndexType()
NONE = NoneType()

_INT_RE = re.compile(r"(s|u)?i([1-9][0-9]*)\Z")


def parse_element_type(text: str) -> ElementType | None:
    """The element type spelled ``text`` (``f16``, ``ui8``, ``!ge.string``), or None."""
    m = _INT_RE.match(text)
    if m:
        return IntegerType(int(m.group(2)), m.group(1) or "")
    if text in FloatType._WIDTHS:
        return FloatType(text)
    if text == "index":
        return INDEX
    if text.startswith("!"):
        return OpaqueType(text)
    return None


_NUMPY_TO_ELEMENT: dict[np.dtype, ElementType] = {
    np.dtype(np.bool_): I1, np.dtype(np.int8): I8, np.dtype(np.int16): I16,
    np.dtype(np.int32): I32, np.dtype(np.int64): I64, np.dtype(np.uint8): UI8,
    np.dtype(np.uint16): IntegerType(16, "u"), np.dtype(np.uint32): IntegerType(32, "u"),
    np.dtype(np.uint64): IntegerType(64, "u"), np.dtype(np.float16): F16,
    np.dtype(np.float32): F32, np.dtype(np.float64): F64,
}


#: element types numpy lacks -> the ml_dtypes type that stores each (ml_dtypes is
#: imported only when one is met: loading it takes about half a second)
ML_DTYPES: dict[str, str] = {"bf16": "bfloat16", "f8E4M3FN": "float8_e4m3fn", "f8E4M3FNUZ": "float8_e4m3fnuz",
                             "f8E5M2": "float8_e5m2", "f8E5M2FNUZ": "float8_e5m2fnuz",
                             "i4": "int4", "ui4": "uint4", "i2": "int2", "ui2": "uint2"}
_ML_NAMES = {v: k for k, v in ML_DTYPES.items()}


def storage_dtype(et: ElementType) -> np.dtype:
    """The numpy dtype whose bytes are ``et``'s bytes in device memory: ONNX's
    choice, so bf16 is ``ml_dtypes.bfloat16`` (constants in the IR widen it to f32).
    Raises ValueError for a type with no fixed-size storage (strings)."""
    ml_name = ML_DTYPES.get(str(et))
    if ml_name is not None:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, ml_name))
    dtype = et.numpy_dtype
    if dtype is None or dtype.kind == "O":
        raise ValueError(f"element type {et} has no fixed-size storage")
    return dtype


def element_type_from_numpy(dtype: np.dtype) -> ElementType:
    """The element type that stores numpy ``dtype`` (ml_dtypes' too); ``!ge.string``
    for strings/objects. The inverse of :func:`storage_dtype`."""
    dtype = np.dtype(dtype)
    et = _NUMPY_TO_ELEMENT.get(dtype)
    if et is not None:
        return et
    ml = _ML_NAMES.get(dtype.name)
    if ml is not None:
        parsed = parse_element_type(ml)
        assert parsed is not None
        return parsed
    if dtype.kind in "OUS":
        return OpaqueType("!ge.string")
    raise ValueError(f"no element type for numpy dtype {dtype}")
