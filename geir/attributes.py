"""Attributes: the compile-time constants attached to operations.

Each class knows its MLIR spelling (``str(attr)``) so the printer is a walk and the
generic form matches ``mlir-opt`` byte for byte. Attributes are immutable.
"""

from __future__ import annotations

import base64
import math
import struct
from typing import Any, Iterator, Mapping, Sequence

import attrs
import numpy as np

from geir.types import F32, F64, I64, ElementType, FloatType, IntegerType, TensorType, Type

__all__ = [
    "Attribute", "IntegerAttr", "FloatAttr", "BoolAttr", "StringAttr", "UnitAttr",
    "ArrayAttr", "DictionaryAttr", "SymbolRefAttr", "TypeAttr", "DenseElementsAttr",
    "DenseArrayAttr", "DenseResourceAttr", "ResourceBlob", "Location", "UnknownLoc",
    "FileLineColLoc", "NameLoc", "FusedLoc", "CallSiteLoc", "OpaqueAttr", "ResourceEntry",
    "FileMetadata", "escape_string", "is_splat_view", "splat_view",
    "format_float", "to_attribute", "UNIT", "UNKNOWN_LOC", "MAX_ATTRIBUTE_DEPTH",
]

#: how deep arrays, dictionaries and locations may nest in IR text geir reads:
#: printing and comparing them recurse once per level
MAX_ATTRIBUTE_DEPTH = 100


def escape_string(s: str) -> str:
    """``s`` quoted as LLVM's printEscapedString does: printable ASCII kept (a
    backslash doubled), anything else, the quote included, as ``\\XX``."""
    out = ['"']
    for b in s.encode("utf-8", "surrogateescape"):  # bytes that are not UTF-8 print as they were read
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif 0x20 <= b < 0x7F and c != '"':
            out.append(c)
        else:
            out.append("\\%02X" % b)
    out.append('"')
    return "".join(out)


def _round_trips(text: str, value: float, ftype: ElementType) -> bool:
    return _round_to(float(text), ftype) == value


def _round_to(value: float, ftype: ElementType) -> float:
    """``value`` rounded to the nearest value of float type ``ftype``."""
    name = str(ftype)
    if name == "f32":
        return float(np.float32(value))
    if name == "f16":
        return float(np.float16(value))
    if name == "f64":
        return value
    from geir.types import ML_DTYPES, storage_dtype  # bf16 and the float8 types: ml_dtypes, shipped with onnx
    if name in ML_DTYPES:
        return float(np.array(value).astype(storage_dtype(ftype)).astype(np.float32))
    return value


_PRECISION_BITS = {"f64": 53, "f32": 24, "f16": 11, "bf16": 8, "f8E4M3FN": 4, "f8E4M3FNUZ": 4, "f8E5M2": 3,
                   "f8E5M2FNUZ": 3}


def _precision_bits(ftype: ElementType) -> int:
    return _PRECISION_BITS.get(str(ftype), 24)


def _apfloat_to_string(value: float, bits: int, precision: int, max_padding: int, truncate_zero: bool) -> str:
    """LLVM's ``IEEEFloat::toString`` for a finite value, digit for digit: the exact
    decimal expansion, truncated to about ``precision`` digits, then rounded half
    up on the first dropped digit (its double rounding is what MLIR prints)."""
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    value = abs(value)
    if value == 0.0:
        if max_padding:
            return sign + "0"
        if truncate_zero:
            return sign + "0.0E+0"
        return sign + "0.0" + "0" * max(0, precision - 1) + "e+00"
    if precision == 0:
        precision = 2 + bits * 59 // 196
    mant, e2 = math.frexp(value)
    sig = int(mant * (1 << 64))  # exact: a double has 53 bits
    exp = e2 - 64
    while sig and not sig & 1:
        sig >>= 1
        exp += 1
    if exp > 0:
        sig <<= exp
        exp = 0
    elif exp < 0:
        sig *= 5 ** -exp
    # AdjustToPrecision on the integer: drop whole tens by truncation.
    required = (precision * 196 + 58) // 59
    active = sig.bit_length()
    if active > required:
        removable = (active - required) * 59 // 196
        if removable:
            exp += removable
            sig //= 10 ** removable
    digits = str(sig).rstrip("0")
    exp += len(str(sig)) - len(digits)
    # AdjustToPrecision on the digits: round half up at `precision` digits.
    n = len(digits)
    if n > precision:
        keep, dropped = digits[:precision], digits[precision]
        exp += n - precision
        if dropped >= "5":
            rounded = str(int(keep) + 1)
            if len(rounded) > len(keep):  # carried through: one digit left
                exp += len(keep)
                rounded = "1"
            keep = rounded
        stripped = keep.rstrip("0")
        exp += len(keep) - len(stripped)
        digits = stripped or "0"
    n = len(digits)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or n + exp > precision
    else:
        msd = exp + n - 1
        scientific = msd < 0 and -msd > max_padding
    if scientific:
        e = exp + n - 1
        body = digits[0] + "." + ("0" if n == 1 and truncate_zero else digits[1:])
        if not truncate_zero and precision > n - 1:
            body += "0" * (precision - n + 1)
        e_text = str(abs(e)).rjust(1 if truncate_zero else 2, "0")
        return f"{sign}{body}{'E' if truncate_zero else 'e'}{'+' if e >= 0 else '-'}{e_text}"
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + n
    if whole > 0:
        return f"{sign}{digits[:whole]}.{digits[whole:]}"
    return f"{sign}0.{'0' * -whole}{digits}"


def format_float(value: float, ftype: ElementType = F64) -> str:
    """A float as MLIR's ``printFloatValue``: six significant digits when they
    read back to the same value, else the default digits if they contain a
    point, else the bits in hex (inf, nan, and long integers)."""
    bits = _precision_bits(ftype)
    if math.isfinite(value):
        text = _apfloat_to_string(value, bits, 6, 0, False)
        if _round_trips(text, value, ftype):
            return text
        text = _apfloat_to_string(value, bits, 0, 3, True)
        if "." in text:
            return text
    # MLIR prints what has no exact decimal form as its bit pattern in hex.
    if ftype is F32:
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]
    if getattr(ftype, "name", "") == "f16":
        return "0x%04X" % int(np.array(value, np.float16).view(np.uint16))
    if getattr(ftype, "name", "") == "bf16":
        return "0x%04X" % (struct.unpack("<I", struct.pack("<f", value))[0] >> 16)
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]


class Attribute:
    """Base of all attributes; ``str()`` is the MLIR spelling."""

    __slots__ = ()

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


@attrs.frozen(repr=False)
class IntegerAttr(Attribute):
    """An integer with its type (``i64`` by default; elided only inside arrays)."""

    value: int
    type: Type = I64

    def __str__(self) -> str:
        return f"{self.value} : {self.type}"

    def __repr__(self) -> str:
        return f"IntegerAttr({self})"


@attrs.frozen(repr=False)
class FloatAttr(Attribute):
    """A float with its type (``f64`` by default; elided only inside arrays).

    The value is kept rounded to its type, as MLIR's APFloat holds it."""

    value: float = attrs.field(converter=float)
    type: Type = F64

    def __attrs_post_init__(self) -> None:
        if isinstance(self.type, FloatType) and self.type is not F64 and math.isfinite(self.value):
            with np.errstate(over="ignore"):
                object.__setattr__(self, "value", _round_to(self.value, self.type))

    def __str__(self) -> str:
        return f"{format_float(self.value, self.type)} : {self.type}"  # type: ignore[arg-type]

    def elided(self) -> str:
        text = format_float(self.value, self.type)  # type: ignore[arg-type]
        # A hex bit pattern without its type would read back as an integer.
        return text if self.type is F64 and "x" not in text else f"{text} : {self.type}"

    def __repr__(self) -> str:
        return f"FloatAttr({self})"


@attrs.frozen(repr=False)
class BoolAttr(Attribute):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"

    def __repr__(self) -> str:
        return f"BoolAttr({self})"


@attrs.frozen(repr=False)
class StringAttr(Attribute):
    value: str
    type: Type | None = None

    def __str__(self) -> str:
        s = escape_string(self.value)
        return s if self.type is None else f"{s} : {self.type}"

    def __repr__(self) -> str:
        return f"StringAttr({self})"


@attrs.frozen(repr=False)
class UnitAttr(Attribute):
    """Presence-only attribute: ``{flag}`` in a dictionary, ``unit`` elsewhere."""

    def __str__(self) -> str:
        return "unit"

    def __repr__(self) -> str:
        return "UnitAttr()"


UNIT = UnitAttr()


@attrs.frozen(repr=False)
class ArrayAttr(Attribute):
    value: tuple[Attribute, ...] = attrs.field(converter=tuple)

    def __str__(self) -> str:
        return "[" + ", ".join(map(_array_element, self.value)) + "]"

    def __repr__(self) -> str:
        return f"ArrayAttr({self})"

    def __iter__(self) -> Iterator[Attribute]:
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __getitem__(self, i: int) -> Attribute:
        return self.value[i]


def _array_element(a: Attribute) -> str:
    # Inside arrays MLIR elides the default types, i64 and f64.
    if isinstance(a, IntegerAttr) and a.type is I64:
        return str(a.value)
    if isinstance(a, FloatAttr):
        return a.elided()
    return str(a)


def _is_bare_key(name: str) -> bool:
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return False
    return all(c.isalnum() or c in "_$." for c in name) and name.isascii()


def format_attr_entry(name: str, value: Attribute) -> str:
    key = name if _is_bare_key(name) else escape_string(name)
    return key if isinstance(value, UnitAttr) else f"{key} = {value}"


@attrs.frozen(repr=False)
class DictionaryAttr(Attribute):
    """A dictionary, kept sorted by key as MLIR does."""

    value: tuple[tuple[str, Attribute], ...]

    @classmethod
    def from_dict(cls, d: Mapping[str, Attribute]) -> "DictionaryAttr":
        return cls(tuple(sorted(d.items())))

    def __str__(self) -> str:
        return "{" + ", ".join(format_attr_entry(k, v) for k, v in self.value) + "}"

    def __repr__(self) -> str:
        return f"DictionaryAttr({self})"

    def as_dict(self) -> dict[str, Attribute]:
        return dict(self.value)


@attrs.frozen(repr=False)
class SymbolRefAttr(Attribute):
    root: str
    nested: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "::".join(_symbol(s) for s in (self.root, *self.nested))

    def __repr__(self) -> str:
        return f"SymbolRefAttr({self})"


def _symbol(name: str) -> str:
    return "@" + name if _is_bare_key(name) and "." not in name[:1] else "@" + escape_string(name)


@attrs.frozen(repr=False)
class TypeAttr(Attribute):
    value: Type

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"TypeAttr({self})"


def _format_scalar(x: Any, et: ElementType) -> str:
    if isinstance(x, (str, bytes)):  # string tensors (ONNX-ML): MLIR's quoted elements
        return escape_string(x.decode("utf-8", "replace") if isinstance(x, bytes) else x)
    if isinstance(et, IntegerType):
        if et.width == 1:
            return "true" if bool(x) else "false"
        return str(int(x))
    if isinstance(et, FloatType):
        return format_float(float(x), et)
    return str(x)


def _format_nested(a: Any, et: ElementType) -> str:
    if not isinstance(a, np.ndarray) or a.ndim == 0:
        return _format_scalar(a.item() if isinstance(a, np.ndarray) else a, et)
    return "[" + ", ".join(_format_nested(x, et) for x in a) + "]"


def is_splat_view(array: np.ndarray) -> bool:
    """Whether ``array`` is one value broadcast to its shape (some elements, every
    stride 0): a splat constant (a ConstantOfShape weight) kept a view, which
    printing, hashing, folding and conversion handle without materialising it."""
    return array.size > 0 and not any(array.strides)


def splat_view(array: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """``array``'s first element broadcast to ``shape`` (a read-only view)."""
    return np.broadcast_to(array[(0,) * array.ndim], tuple(shape))


@attrs.frozen(repr=False, eq=False)
class DenseElementsAttr(Attribute):
    """``dense<...> : tensor<...>``: a constant tensor held as a numpy array."""

    type: TensorType
    array: np.ndarray

    def __str__(self) -> str:
        et = self.type.element_type
        a = self.array
        if a.size == 0:
            return f"dense<> : {self.type}"
        flat = a.reshape(-1)
        if is_splat_view(a):  # a splat without looking at every element
            return f"dense<{_format_scalar(flat[0].item(), et)}> : {self.type}"
        # One repeated value prints as a splat, as MLIR does (bitwise, so -0.0 and NaN count).
        if a.dtype.kind in "biuf":
            bits = flat.view(_uint_view(a.dtype))
            if bool(np.all(bits == bits[0])):
                return f"dense<{_format_scalar(flat[0].item(), et)}> : {self.type}"
            hex_text = self.hex_text()
            if hex_text is not None:
                return hex_text
        return f"dense<{_format_nested(a, et)}> : {self.type}"

    def hex_text(self) -> str | None:
        """MLIR's spelling of a constant of more than 100 elements that are not
        all equal: ``dense<"0x...">``, the elements' bytes as stored (an i1 a
        byte, bf16 two); None when MLIR prints the elements."""
        a = self.array
        if a.size <= 100 or a.dtype.kind not in "biuf" or is_splat_view(a):
            return None
        flat = a.reshape(-1)
        bits = flat.view(_uint_view(a.dtype))
        if bool(np.all(bits == bits[0])):
            return None
        from geir.types import storage_dtype
        try:
            raw = np.ascontiguousarray(flat.astype(storage_dtype(self.type.element_type))).tobytes()
        except ValueError:
            return None
        return f'dense<"0x{raw.hex().upper()}"> : {self.type}'

    def __repr__(self) -> str:
        return f"DenseElementsAttr({self.type}, shape={self.array.shape})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DenseElementsAttr) and other.type is self.type
                and self.array.dtype == other.array.dtype
                and np.array_equal(self.array, other.array, equal_nan=self.array.dtype.kind == "f"))

    def __hash__(self) -> int:
        # Equal arrays share their first and last elements: hashing those (not
        # every byte) keeps a splat weight of 100 M elements a broadcast view.
        a = self.array
        if a.size == 0:
            return hash((self.type, a.dtype.str))
        return hash((self.type, a.dtype.str, _hash_key(a[(0,) * a.ndim]), _hash_key(a[(-1,) * a.ndim])))


def _hash_key(x: Any) -> Any:
    """An element as a hash key consistent with ``np.array_equal(equal_nan=True)``."""
    v = x.item() if isinstance(x, np.generic) else x
    return "nan" if isinstance(v, float) and v != v else v


def _uint_view(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"u{dtype.itemsize}")


@attrs.frozen(repr=False)
class DenseArrayAttr(Attribute):
    """``array<i64: 1, 2, 3>``: a 1-D array of scalars (MLIR's DenseArrayAttr)."""

    element_type: ElementType
    value: tuple[int | float | bool, ...]

    def __str__(self) -> str:
        if not self.value:
            return f"array<{self.element_type}>"
        body = ", ".join(_format_scalar(x, self.element_type) for x in self.value)
        return f"array<{self.element_type}: {body}>"

    def __repr__(self) -> str:
        return f"DenseArrayAttr({self})"


@attrs.define(eq=False)
class ResourceBlob:
    """The bytes behind a ``dense_resource`` handle (MLIR's ``dialect_resources``).

    Mutable on purpose: the parser creates the handle at its first use and fills the
    bytes when it reaches the resource section at the end of the file.
    """

    name: str
    #: the bytes: ``bytes``, or a read-only byte view of an array that holds them
    #: (:meth:`bytes_of`: a converted weight keeps its array, not a copy); None when
    #: they are absent (a graph without its weights)
    data: bytes | memoryview | None = None
    alignment: int = 16

    @staticmethod
    def bytes_of(array: np.ndarray) -> memoryview:
        """A read-only byte view of ``array``'s C-ordered bytes: no copy when it is
        C-contiguous. The array must be one nothing writes to afterwards (a fresh
        result of a conversion, or an array over immutable bytes)."""
        flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        flat.flags.writeable = False
        return memoryview(flat)

    def __getstate__(self) -> dict[str, Any]:
        # a memoryview does not pickle: the bytes it shows do
        data = self.data
        return {"name": self.name, "data": bytes(data) if isinstance(data, memoryview) else data,
                "alignment": self.alignment}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.name, self.data, self.alignment = state["name"], state["data"], state["alignment"]

    def to_hex(self) -> str:
        """MLIR's blob encoding: a little-endian u32 alignment, then the bytes."""
        assert self.data is not None
        # b16encode writes upper-case hex in one pass (bytes.hex() and upper() take two)
        return "0x" + base64.b16encode(struct.pack("<I", self.alignment) + self.data).decode("ascii")


@attrs.frozen(repr=False)
class DenseResourceAttr(Attribute):
    """``dense_resource<name> : tensor<...>``: a large constant stored out of line."""

    type: TensorType
    # Two handles are equal when they name the same blob object.
    blob: ResourceBlob = attrs.field(eq=id)

    def __str__(self) -> str:
        return f"dense_resource<{self.blob.name}> : {self.type}"

    def __repr__(self) -> str:
        return f"DenseResourceAttr({self})"

    def to_numpy(self) -> np.ndarray:
        """The constant as an array of the tensor's shape.

        Raises:
            ValueError: the blob is absent (a graph without its weights), or its
                size is not the type's.
        """
        et = self.type.element_type
        data = self.blob.data
        if data is None:
            raise ValueError(f"resource '{self.blob.name}' has no bytes (the model was imported without its "
                             "weights)")
        bf16 = et.bitwidth == 16 and getattr(et, "name", "") == "bf16"
        dtype = np.dtype(np.uint16) if bf16 else et.numpy_dtype
        need = (self.type.num_elements or 0) * np.dtype(dtype).itemsize
        if len(data) != need:
            raise ValueError(f"resource '{self.blob.name}' holds {len(data)} bytes, but '{self.type}' needs {need}")
        if bf16:
            raw = np.frombuffer(data, dtype=np.uint16).astype(np.uint32) << 16
            return raw.view(np.float32).reshape(self.type.shape)
        return np.frombuffer(data, dtype=dtype).reshape(self.type.shape)


# ----------------------------------------------------------------- locations


class Location(Attribute):
    """Where an op came from; printed ``loc(...)`` with ``--mlir-print-debuginfo``."""

    __slots__ = ()

    def body(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return f"loc({self.body()})"


@attrs.frozen(repr=False)
class UnknownLoc(Location):
    def body(self) -> str:
        return "unknown"

    def __repr__(self) -> str:
        return "UnknownLoc()"


UNKNOWN_LOC = UnknownLoc()


@attrs.frozen(repr=False)
class FileLineColLoc(Location):
    """``"file":line:col``, or MLIR's range form ``"file":l:c to :c2`` / ``to l2:c2``
    when ``end_col`` is set (kept only when the range is not a single point)."""

    file: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None

    def body(self) -> str:
        text = f"{escape_string(self.file)}:{self.line}:{self.col}"
        if self.end_col is None:
            return text
        if self.end_line is None or self.end_line == self.line:
            return f"{text} to :{self.end_col}"
        return f"{text} to {self.end_line}:{self.end_col}"

    def __repr__(self) -> str:
        return f"FileLineColLoc({self.body()})"


@attrs.frozen(repr=False)
class NameLoc(Location):
    """A named location (an ONNX node name), optionally wrapping a child."""

    name: str
    child: Location | None = None

    def body(self) -> str:
        # MLIR leaves out an unknown child.
        inner = "" if self.child is None or isinstance(self.child, UnknownLoc) else f"({self.child.body()})"
        return escape_string(self.name) + inner

    def __repr__(self) -> str:
        return f"NameLoc({self.body()})"


@attrs.frozen(repr=False)
class FusedLoc(Location):
    locations: tuple[Location, ...]
    metadata: Attribute | None = None

    def body(self) -> str:
        meta = "" if self.metadata is None else f"<{self.metadata}>"
        return f"fused{meta}[" + ", ".join(l.body() for l in self.locations) + "]"

    def __repr__(self) -> str:
        return f"FusedLoc({self.body()})"


@attrs.frozen(repr=False)
class CallSiteLoc(Location):
    callee: Location
    caller: Location

    def body(self) -> str:
        return f"callsite({self.callee.body()} at {self.caller.body()})"

    def __repr__(self) -> str:
        return f"CallSiteLoc({self.body()})"


# ------------------------------------------------------- opaque attributes


class OpaqueAttr(Attribute):
    """An attribute geir does not interpret, kept verbatim: a dialect attribute
    (``#arith.fastmath<none>``, ``#foo<"x">``), a builtin one we do not model
    (``affine_map<...>``, ``strided<...>``) or ``dense<...>`` of a non-tensor type.

    ``text`` is the inline (``--mlir-print-local-scope``) spelling and is what two
    opaque attributes compare by. ``pieces`` splits it where it refers to other
    attributes or types (an alias ``#map`` in the source, a nested affine map),
    so the printer can print those through their aliases again. ``alias`` is the
    alias name the source gave it (its trailing counter dropped), if any.
    """

    __slots__ = ("text", "pieces", "alias")

    def __init__(self, text: str, pieces: tuple[Any, ...] = (), alias: str | None = None) -> None:
        self.text = text
        self.pieces = pieces
        self.alias = alias

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"OpaqueAttr({self.text})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpaqueAttr) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    @property
    def children(self) -> Iterator[Any]:
        """The attributes and types this one refers to, in text order."""
        return (p for p in self.pieces if not isinstance(p, str))

    def default_alias(self) -> str | None:
        """The alias MLIR gives this attribute: ``map``/``set`` for affine maps
        and sets, else the name the source used."""
        if self.alias is not None:
            return self.alias
        if self.text.startswith("affine_map<"):
            return "map"
        if self.text.startswith("affine_set<"):
            return "set"
        if self.text.startswith("distinct["):
            return "distinct"
        return None


# ----------------------------------------------------------- file metadata


@attrs.frozen
class ResourceEntry:
    """One ``key: value`` of a ``{-# ... #-}`` resource group that geir does not
    interpret (another dialect's resources, ``external_resources``). ``value``
    is a bool, a string, or bytes for a blob (its 4-byte alignment header
    included), printed back as MLIR prints each."""

    key: str
    value: bool | str | bytes | int

    def value_text(self) -> str:
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        if isinstance(self.value, bytes):
            return '"0x' + self.value.hex().upper() + '"'
        if isinstance(self.value, int):
            return str(self.value)
        return escape_string(self.value)


@attrs.define
class FileMetadata:
    """The ``{-# ... #-}`` dictionary at the end of a file, besides the builtin
    blobs (which live in :attr:`Module.resources`): the order of the dialect
    groups, other dialects' resources and ``external_resources``, all kept."""

    dialect_order: list[str] = attrs.field(factory=list)
    dialect_resources: dict[str, list[ResourceEntry]] = attrs.field(factory=dict)
    external_resources: dict[str, list[ResourceEntry]] = attrs.field(factory=dict)


# ------------------------------------------------------------ python -> attr


def to_attribute(value: Any) -> Attribute:
    """A Python value as an attribute: ints → ``IntegerAttr`` (i64), floats → f32
    ``FloatAttr``, str, bool, lists → ``ArrayAttr``, dicts, numpy arrays → dense."""
    if isinstance(value, Attribute):
        return value
    if isinstance(value, (bool, np.bool_)):
        return BoolAttr(bool(value))
    if isinstance(value, (int, np.integer)):
        return IntegerAttr(int(value))
    if isinstance(value, (float, np.floating)):
        return FloatAttr(float(value), F32)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, Type):
        return TypeAttr(value)
    if isinstance(value, np.ndarray):
        from geir.types import element_type_from_numpy
        return DenseElementsAttr(TensorType(value.shape, element_type_from_numpy(value.dtype)), value)
    if isinstance(value, Mapping):
        return DictionaryAttr.from_dict({k: to_attribute(v) for k, v in value.items()})
    if isinstance(value, Sequence):
        return ArrayAttr(tuple(to_attribute(v) for v in value))
    raise TypeError(f"cannot make an attribute of {value!r}")


def from_attribute(attr: Attribute) -> Any:
    """The Python value of an attribute (inverse of :func:`to_attribute`)."""
    if isinstance(attr, (IntegerAttr, FloatAttr, BoolAttr, StringAttr)):
        return attr.value
    if isinstance(attr, ArrayAttr):
        return [from_attribute(a) for a in attr.value]
    if isinstance(attr, DictionaryAttr):
        return {k: from_attribute(v) for k, v in attr.value}
    if isinstance(attr, DenseElementsAttr):
        return attr.array
    if isinstance(attr, DenseResourceAttr):
        return attr.to_numpy()
    if isinstance(attr, TypeAttr):
        return attr.value
    if isinstance(attr, DenseArrayAttr):
        return list(attr.value)
    if isinstance(attr, UnitAttr):
        return True
    return attr
