"""ONNX attributes <-> geir attributes, and ONNX data types <-> element types.

The importer converts each ``onnx.AttributeProto`` with :func:`from_onnx_attribute`;
a numpy kernel reads a ge attribute back as the Python value ONNX's reference
implementation expects with :func:`kernel_attribute_value`; the ``ge.onnx_op``
fallback (and an exporter) rebuild a proto with :func:`to_onnx_attribute`.

Data-type-valued attributes (Cast's ``to``, ``dtype``, ``output_dtype``,
``stash_type``, QuantizeLinear's ``precision`` ...) become a :class:`TypeAttr` holding the element type, not an ONNX
enum, so the IR reads ``to = f16``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from geir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                             DenseResourceAttr, FloatAttr, IntegerAttr, StringAttr, TypeAttr)
from geir.types import (BF16, F16, F32, F64, I1, I8, I16, I32, I64, UI8, ElementType, FloatType,
                        IntegerType, OpaqueType, TensorType)

if TYPE_CHECKING:  # onnx takes ~0.6 s to import: kernels reading attributes never need it
    from onnx import AttributeProto, TensorProto

__all__ = ["ONNX_ELEMENT_TYPES", "TYPE_VALUED_ATTRIBUTES", "element_type_from_onnx", "onnx_data_type",
           "from_onnx_attribute", "kernel_attribute_value", "to_onnx_attribute"]

#: ONNX ``TensorProto.DataType`` value -> element type (complex and sub-byte floats have none)
ONNX_ELEMENT_TYPES: dict[int, ElementType] = {
    1: F32, 2: UI8, 3: I8, 4: IntegerType(16, "u"), 5: I16, 6: I32, 7: I64,  # FLOAT .. INT64
    8: OpaqueType("!ge.string"), 9: I1, 10: F16, 11: F64,  # STRING, BOOL, FLOAT16, DOUBLE
    12: IntegerType(32, "u"), 13: IntegerType(64, "u"), 16: BF16,  # UINT32, UINT64, BFLOAT16
    17: FloatType("f8E4M3FN"), 18: FloatType("f8E4M3FNUZ"), 19: FloatType("f8E5M2"),
    20: FloatType("f8E5M2FNUZ"), 21: IntegerType(4, "u"), 22: IntegerType(4),  # ..., UINT4, INT4
    25: IntegerType(2, "u"), 26: IntegerType(2),  # UINT2, INT2
}
#: ``TensorProto.UNDEFINED``: a data-type attribute that is "not set"
UNDEFINED_DATA_TYPE = 0
_ONNX_DATA_TYPES: dict[ElementType, int] = {et: code for code, et in ONNX_ELEMENT_TYPES.items()}

#: attributes whose ONNX value is a ``TensorProto.DataType`` enum (the kernels'
#: ``geir.backends.kernels.DTYPE_ATTRIBUTES`` names the same set)
TYPE_VALUED_ATTRIBUTES = frozenset({"to", "dtype", "output_dtype", "output_datatype", "stash_type", "precision"})


def element_type_from_onnx(data_type: int) -> ElementType:
    """The element type of ONNX data type ``data_type`` (``TensorProto.FLOAT`` -> f32)."""
    et = ONNX_ELEMENT_TYPES.get(data_type)
    if et is None:
        from onnx import TensorProto
        name = TensorProto.DataType.Name(data_type) if data_type in TensorProto.DataType.values() else data_type
        raise ValueError(f"ONNX data type {name} has no geir element type")
    return et


def onnx_data_type(et: ElementType) -> int:
    """The ONNX ``TensorProto.DataType`` of element type ``et``."""
    code = _ONNX_DATA_TYPES.get(et)
    if code is None:
        raise ValueError(f"element type {et} has no ONNX data type")
    return code


def _tensor_attribute(tensor: TensorProto) -> DenseElementsAttr:
    from onnx import numpy_helper
    et = element_type_from_onnx(tensor.data_type)
    array = numpy_helper.to_array(tensor)
    # numpy has no bf16/f8/i4: store them widened, as the element type's numpy_dtype says
    if et.numpy_dtype is not None and array.dtype != et.numpy_dtype:
        array = array.astype(et.numpy_dtype)
    return DenseElementsAttr(TensorType(array.shape, et), array)


def from_onnx_attribute(proto: AttributeProto) -> Attribute | None:
    """The ge attribute of an ONNX attribute.

    INT -> i64 ``IntegerAttr``, FLOAT -> f32 ``FloatAttr``, STRING -> ``StringAttr``,
    INTS/FLOATS/STRINGS -> ``ArrayAttr``, TENSOR -> ``DenseElementsAttr``; the
    data-type attributes (:data:`TYPE_VALUED_ATTRIBUTES`) -> ``TypeAttr``. Returns
    None for a data type of 0 (``UNDEFINED``, ONNX's "not set"): the ge op then
    uses its default. GRAPH attributes are subgraphs, which the importer turns
    into regions; they raise ``ValueError`` here, as do sparse tensors and types.
    """
    from onnx import AttributeProto
    kind = proto.type
    if kind == AttributeProto.INT:
        if proto.name in TYPE_VALUED_ATTRIBUTES and proto.i in ONNX_ELEMENT_TYPES:
            return TypeAttr(ONNX_ELEMENT_TYPES[proto.i])
        if proto.name in TYPE_VALUED_ATTRIBUTES and proto.i == UNDEFINED_DATA_TYPE:
            return None
        return IntegerAttr(int(proto.i))
    if kind == AttributeProto.FLOAT:
        return FloatAttr(float(proto.f), F32)
    if kind == AttributeProto.STRING:
        return StringAttr(proto.s.decode("utf-8"))
    if kind == AttributeProto.INTS:
        return ArrayAttr(IntegerAttr(int(v)) for v in proto.ints)
    if kind == AttributeProto.FLOATS:
        return ArrayAttr(FloatAttr(float(v), F32) for v in proto.floats)
    if kind == AttributeProto.STRINGS:
        return ArrayAttr(StringAttr(v.decode("utf-8")) for v in proto.strings)
    if kind == AttributeProto.TENSOR:
        return _tensor_attribute(proto.t)
    if kind in (AttributeProto.GRAPH, AttributeProto.GRAPHS):
        raise ValueError(f"attribute '{proto.name}' is a subgraph: the importer makes it a region, "
                         "not an attribute")
    raise ValueError(f"attribute '{proto.name}' of ONNX type "
                     f"{AttributeProto.AttributeType.Name(kind)} is not supported")


def kernel_attribute_value(attr: Attribute) -> Any:
    """The Python value a numpy kernel (or ONNX's reference op) wants for ``attr``.

    ints/floats/strings as Python scalars, arrays as lists, tensors as numpy
    arrays, a ``TypeAttr`` as the numpy dtype that stores its element type.
    """
    if isinstance(attr, TypeAttr):
        dtype = getattr(attr.value, "numpy_dtype", None)
        if dtype is None:
            raise ValueError(f"type {attr.value} has no numpy dtype")
        return dtype
    if isinstance(attr, BoolAttr):
        return int(attr.value)  # ONNX has no bool attributes: flags are ints
    if isinstance(attr, (IntegerAttr, FloatAttr, StringAttr)):
        return attr.value
    if isinstance(attr, ArrayAttr):
        return [kernel_attribute_value(a) for a in attr.value]
    if isinstance(attr, DenseArrayAttr):
        return list(attr.value)
    if isinstance(attr, DenseElementsAttr):
        return attr.array
    if isinstance(attr, DenseResourceAttr):
        return attr.to_numpy()
    raise ValueError(f"attribute {attr} has no kernel value")


def _tensor_proto(attr: DenseElementsAttr | DenseResourceAttr) -> TensorProto:
    import onnx
    from onnx import numpy_helper
    array = attr.array if isinstance(attr, DenseElementsAttr) else attr.to_numpy()
    et = attr.type.element_type
    if et.numpy_dtype is not None and array.dtype == et.numpy_dtype:
        tensor = numpy_helper.from_array(np.asarray(array))
    else:  # a widened bf16/f8: let ONNX narrow it to the declared data type
        tensor = onnx.helper.make_tensor("", onnx_data_type(et), array.shape, np.asarray(array).reshape(-1))
    return tensor


def to_onnx_attribute(name: str, attr: Attribute) -> AttributeProto:
    """The ONNX attribute ``name`` for ge attribute ``attr`` (inverse of :func:`from_onnx_attribute`)."""
    import onnx
    from onnx import AttributeProto
    if isinstance(attr, TypeAttr):
        return onnx.helper.make_attribute(name, onnx_data_type(attr.value))  # type: ignore[arg-type]
    if isinstance(attr, (DenseElementsAttr, DenseResourceAttr)):
        return onnx.helper.make_attribute(name, _tensor_proto(attr))
    value = kernel_attribute_value(attr)
    if isinstance(value, list) and not value:
        # an empty list has no element kind; ONNX's optional list attributes are ints
        return onnx.helper.make_attribute(name, [], attr_type=AttributeProto.INTS)
    return onnx.helper.make_attribute(name, value)
