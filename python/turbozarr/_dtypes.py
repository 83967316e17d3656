"""Element types: numpy dtypes <-> the engine's types and zarr's JSON spellings.

The numpy dtype an array reports is the one zarr-python 3 reports for the
same stored array: native byte order for v3 (byte order is a codec's business
there), the stored byte order for v2, ``StringDType`` for variable-length
strings (v3 ``"string"`` and v2 ``"|O"`` + vlen-utf8) and ``object`` holding
``bytes`` for variable-length bytes.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

# The engine's type names (DataTypeIdName in python/src/array_binding.cc) for
# fixed-size numbers, with their numpy type characters.
_NUMERIC = {
    "bool": "?",
    "int8": "i1",
    "int16": "i2",
    "int32": "i4",
    "int64": "i8",
    "uint8": "u1",
    "uint16": "u2",
    "uint32": "u4",
    "uint64": "u8",
    "float16": "f2",
    "float32": "f4",
    "float64": "f8",
    "complex64": "c8",
    "complex128": "c16",
}

STRING_DTYPE = np.dtypes.StringDType()
OBJECT_DTYPE = np.dtype(object)


class ZarrType:
    """What create() needs to know about an element type.

    kind: "fixed", "string" (variable-length UTF-8) or "bytes" (variable-length
    bytes); numpy: the dtype values are converted to before writing.
    """

    def __init__(self, kind: str, numpy_dtype: np.dtype):
        self.kind = kind
        self.numpy = numpy_dtype

    @property
    def is_variable_length(self) -> bool:
        return self.kind != "fixed"

    @property
    def itemsize(self) -> int:
        """Bytes per element as the codecs see them (1 for variable length)."""
        return 1 if self.is_variable_length else self.numpy.itemsize

    def v3_data_type(self) -> Any:
        if self.kind == "string":
            return "string"
        if self.kind == "bytes":
            return "variable_length_bytes"
        dt = self.numpy
        if dt.kind in "biufc":
            return np.dtype(dt.newbyteorder("=")).name if dt.kind != "b" else "bool"
        names = {"S": "null_terminated_bytes", "U": "fixed_length_utf32", "V": "raw_bytes"}
        return {"name": names[dt.kind], "configuration": {"length_bytes": dt.itemsize}}

    def v2_dtype(self) -> str:
        if self.is_variable_length:
            return "|O"
        return self.numpy.str

    def has_byte_order(self) -> bool:
        """Whether stored elements have a byte order (multi-byte numbers, UTF-32)."""
        return not self.is_variable_length and (
            self.numpy.kind in "iufcU" and self.numpy.itemsize > 1
        )


def parse_dtype(dtype: Any) -> ZarrType:
    """The element type a create() call asks for.

    Accepts anything numpy accepts for fixed-size types, plus ``str``,
    ``"string"`` and numpy's StringDType for variable-length strings, and
    ``bytes`` or ``"variable_length_bytes"`` for variable-length bytes.
    """
    if dtype is str or (isinstance(dtype, str) and dtype in ("string", "str")):
        return ZarrType("string", STRING_DTYPE)
    if dtype is bytes or (isinstance(dtype, str) and dtype in ("variable_length_bytes", "bytes")):
        return ZarrType("bytes", OBJECT_DTYPE)
    dt = np.dtype(dtype)
    if dt.kind == "T":
        return ZarrType("string", STRING_DTYPE)
    if dt.kind == "O":
        raise TypeError(
            "an object dtype is ambiguous: pass dtype=str for variable-length strings "
            "or dtype=bytes for variable-length bytes"
        )
    if dt.kind in "SUV" and dt.itemsize == 0:
        raise TypeError(f"dtype {dt} has no length; pass e.g. 'S8', or str/bytes "
                        "for variable-length elements")
    if dt.kind == "V" and dt.fields is not None:
        raise TypeError(f"structured dtypes are not supported: {dt}")
    if dt.kind not in "biufcSUV":
        raise TypeError(f"unsupported dtype {dt}")
    return ZarrType("fixed", dt)


def numpy_dtype(engine_name: str, size: int, zarr_format: int, v2_byte_order: str) -> np.dtype:
    """The numpy dtype of an opened array, as zarr-python 3 reports it."""
    if engine_name == "string":
        return STRING_DTYPE
    if engine_name == "bytes":
        return OBJECT_DTYPE
    if engine_name == "raw_bits":
        return np.dtype(f"V{size}")
    if engine_name == "fixed_bytes":
        return np.dtype(f"S{size}")
    if engine_name == "fixed_unicode":
        dt = np.dtype(f"U{size // 4}")
    else:
        dt = np.dtype(_NUMERIC[engine_name])
    if zarr_format == 2 and v2_byte_order in "<>" and dt.itemsize > 1 and dt.kind != "b":
        dt = dt.newbyteorder(v2_byte_order)
    return dt


def native(dt: np.dtype) -> np.dtype:
    """The dtype the engine holds in memory: same type, native byte order."""
    if dt.kind in "OT" or dt.byteorder in ("=", "|"):
        return dt
    return dt.newbyteorder("=")


def _float_json(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def fill_value_json(zt: ZarrType, value: Any) -> Any:
    """The JSON spelling of a fill value, as zarr-python writes it; None asks
    for the default (zero, False, or the empty string/bytes)."""
    if zt.kind == "string":
        return "" if value is None else str(value)
    if zt.kind == "bytes":
        raw = b"" if value is None else bytes(value)
        return base64.standard_b64encode(raw).decode("ascii")
    dt = zt.numpy
    if dt.kind == "U":
        return "" if value is None else str(np.asarray(value, dtype=dt)[()])
    if dt.kind in "SV":
        if value is None:
            raw = b"" if dt.kind == "S" else bytes(dt.itemsize)
        elif dt.kind == "S":
            raw = bytes(np.asarray(value, dtype=dt)[()])
        else:
            raw = np.asarray(value, dtype=dt).tobytes()
        return base64.standard_b64encode(raw).decode("ascii")
    if value is None:
        value = 0
    scalar = np.asarray(value).astype(native(dt))[()]
    if dt.kind == "b":
        return bool(scalar)
    if dt.kind in "iu":
        return int(scalar)
    if dt.kind == "f":
        return _float_json(float(scalar))
    return [_float_json(float(scalar.real)), _float_json(float(scalar.imag))]


def decode_fill_value(raw: bytes, dt: np.dtype, is_null: bool) -> Any:
    """The fill value of an opened array as a numpy scalar (or str/bytes)."""
    if is_null:
        return None
    if dt.kind == "T":
        return raw.decode("utf-8")
    if dt.kind == "O":
        return bytes(raw)
    return np.frombuffer(raw, dtype=native(dt), count=1).astype(dt)[0]
