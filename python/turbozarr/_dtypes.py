"""Element types: numpy dtypes <-> the engine's types and zarr's JSON spellings.

The numpy dtype an array reports is the one zarr-python 3 reports for the
same stored array: native byte order for v3 (byte order is a codec's business
there), the stored byte order for v2, ``StringDType`` for variable-length
strings (v3 ``"string"`` and v2 ``"|O"`` + vlen-utf8), ``object`` holding
``bytes`` for variable-length bytes, ``datetime64``/``timedelta64`` at the
stored unit, and structured dtypes (packed, fields in order) for structs.
The low-precision types numpy lacks (bfloat16, the float8/float6/float4
types, int2/int4/uint2/uint4) are the ``ml_dtypes`` package's, as TensorStore
reports them.
"""

from __future__ import annotations

import base64
import json
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

# The zarr-extensions low-precision types: their v3 names, which are also
# ml_dtypes' type names and (without a byte order) TensorStore's v2 spelling.
LOW_PRECISION = (
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "int2", "int4", "uint2", "uint4",
)


def low_precision_dtype(name: str) -> np.dtype:
    """The ml_dtypes dtype of a low-precision type name."""
    try:
        import ml_dtypes
    except ImportError as e:  # pragma: no cover - a dependency of the package
        raise ImportError(f"the data type {name} needs the ml_dtypes package") from e
    return np.dtype(getattr(ml_dtypes, name))


def low_precision_name(dt: np.dtype) -> str | None:
    """The type name of an ml_dtypes dtype (any byte order), else None."""
    if dt.fields is not None or dt.subdtype is not None or dt.name not in LOW_PRECISION:
        return None
    return dt.name if np.dtype(dt.newbyteorder("=")) == low_precision_dtype(dt.name) else None


STRING_DTYPE = np.dtypes.StringDType()
OBJECT_DTYPE = np.dtype(object)

# numpy's NaT as stored: the smallest int64.
NAT = -(2**63)

# Structs nest at most this deep (numpy's own limit is 32).
_MAX_STRUCT_DEPTH = 32


def _time_v3(dt: np.dtype) -> dict[str, Any]:
    unit, scale = np.datetime_data(dt)
    name = "numpy.datetime64" if dt.kind == "M" else "numpy.timedelta64"
    return {"name": name, "configuration": {"unit": unit, "scale_factor": int(scale)}}


def _packed(dt: np.dtype, depth: int = 0) -> np.dtype:
    """A structured dtype without padding (numpy's layout of a list of
    fields), as every Zarr writer stores structs; other dtypes unchanged."""
    if dt.fields is None:
        return dt
    if depth > _MAX_STRUCT_DEPTH:
        raise TypeError(f"structured dtype nested more than {_MAX_STRUCT_DEPTH} deep")
    fields = []
    for name in dt.names:
        field = dt.fields[name][0]
        if field.subdtype is not None:
            base, shape = field.subdtype
            fields.append((name, _packed(base, depth + 1), shape))
        else:
            fields.append((name, _packed(field, depth + 1)))
    return np.dtype(fields)


def _check_struct(dt: np.dtype, zarr_format: int | None) -> None:
    for name in dt.names:
        field = dt.fields[name][0]
        if name == "":
            raise TypeError(f"structured dtype {dt} has a field without a name")
        if field.subdtype is not None:
            if zarr_format == 3:
                raise TypeError(f"field {name!r} of {dt} is a subarray; Zarr v3 structs "
                                "have none (use zarr_format=2, or one field per element)")
            field = field.subdtype[0]
        if field.kind in "OT":
            raise TypeError(f"field {name!r} of {dt} has a variable-length type")
        if field.fields is not None:
            _check_struct(field, zarr_format)
        elif field.kind not in "biufcSUVMm":
            raise TypeError(f"field {name!r} of {dt} has the unsupported dtype {field}")


def _struct_v3(dt: np.dtype) -> dict[str, Any]:
    fields = [{"name": name, "data_type": _fixed_v3(dt.fields[name][0])} for name in dt.names]
    return {"name": "struct", "configuration": {"fields": fields}}


def _fixed_v3(dt: np.dtype) -> Any:
    """The v3 data_type of a fixed-size numpy dtype."""
    if dt.fields is not None:
        return _struct_v3(dt)
    if low_precision_name(dt):
        return dt.name
    if dt.kind in "Mm":
        return _time_v3(dt)
    if dt.kind in "biufc":
        return np.dtype(dt.newbyteorder("=")).name if dt.kind != "b" else "bool"
    names = {"S": "null_terminated_bytes", "U": "fixed_length_utf32", "V": "raw_bytes"}
    return {"name": names[dt.kind], "configuration": {"length_bytes": dt.itemsize}}


def _v2_descr(dt: np.dtype) -> Any:
    """The v2 "dtype" of a fixed-size numpy dtype: its type string, or for a
    struct the [name, type] (or [name, type, shape]) lists zarr-python writes."""
    if dt.fields is None:
        if low_precision_name(dt):
            return dt.name  # TensorStore's spelling (bfloat16: little-endian)
        if dt.kind in "Mm" and np.datetime_data(dt) != ("generic", 1) and \
                np.datetime_data(dt)[0] == "generic":
            # numpy's str drops a generic multiple; zarr-python spells it out.
            return f"{dt.str}[{np.datetime_data(dt)[1]}generic]"
        return dt.str
    out = []
    for name in dt.names:
        field = dt.fields[name][0]
        if field.subdtype is not None:
            base, shape = field.subdtype
            out.append([name, _v2_descr(base), list(shape)])
        else:
            out.append([name, _v2_descr(field)])
    return out


def _from_v3(data_type: Any) -> np.dtype:
    """The numpy dtype of a v3 data_type (the ones numpy_dtype's engine name
    does not say alone: times and structs)."""
    if isinstance(data_type, str):
        if data_type in LOW_PRECISION:
            return low_precision_dtype(data_type)
        data_type = {"complex_float32": "complex64",
                     "complex_float64": "complex128"}.get(data_type, data_type)
        return np.dtype(_NUMERIC[data_type]) if data_type in _NUMERIC else np.dtype(data_type)
    name = data_type["name"]
    config = data_type.get("configuration", {})
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        unit, scale = config["unit"], config["scale_factor"]
        kind = "M8" if name == "numpy.datetime64" else "m8"
        return np.dtype(f"{kind}[{scale}{unit}]")
    if name in ("struct", "structured"):
        fields = []
        for f in config["fields"]:
            fname, ftype = (f["name"], f["data_type"]) if isinstance(f, dict) else f
            fields.append((fname, _from_v3(ftype)))
        return np.dtype(fields)
    if name == "raw_bytes":
        return np.dtype(f"V{config['length_bytes']}")
    if name == "null_terminated_bytes":
        return np.dtype(f"S{config['length_bytes']}")
    if name == "fixed_length_utf32":
        return np.dtype(f"U{config['length_bytes'] // 4}")
    return np.dtype(_NUMERIC[name])


def _from_v2(dtype: Any) -> np.dtype:
    if isinstance(dtype, str):
        return low_precision_dtype(dtype) if dtype in LOW_PRECISION else np.dtype(dtype)
    fields = []
    for f in dtype:
        if len(f) == 3:
            shape = tuple(f[2]) if isinstance(f[2], list) else (f[2],)
            fields.append((f[0], _from_v2(f[1]), shape))
        else:
            fields.append((f[0], _from_v2(f[1])))
    return np.dtype(fields)


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
        return _fixed_v3(self.numpy)

    def v2_dtype(self) -> Any:
        if self.is_variable_length:
            return "|O"
        return _v2_descr(self.numpy)

    def has_byte_order(self) -> bool:
        """Whether stored elements have a byte order (multi-byte numbers,
        times, UTF-32, structs with such fields)."""
        return not self.is_variable_length and _has_byte_order(self.numpy)


def _has_byte_order(dt: np.dtype) -> bool:
    if dt.fields is not None:
        return any(_has_byte_order(dt.fields[name][0]) for name in dt.names)
    if dt.subdtype is not None:
        return _has_byte_order(dt.subdtype[0])
    if low_precision_name(dt):
        return dt.itemsize > 1
    return dt.kind in "iufcUMm" and dt.itemsize > 1


def parse_dtype(dtype: Any, zarr_format: int | None = None) -> ZarrType:
    """The element type a create() call asks for.

    Accepts anything numpy accepts for fixed-size types, plus ``str``,
    ``"string"`` and numpy's StringDType for variable-length strings, and
    ``bytes`` or ``"variable_length_bytes"`` for variable-length bytes.
    """
    if dtype is str or (isinstance(dtype, str) and dtype in ("string", "str")):
        return ZarrType("string", STRING_DTYPE)
    if dtype is bytes or (isinstance(dtype, str) and dtype in ("variable_length_bytes", "bytes")):
        return ZarrType("bytes", OBJECT_DTYPE)
    if isinstance(dtype, str) and dtype in LOW_PRECISION:
        dtype = low_precision_dtype(dtype)
    dt = np.dtype(dtype)
    if low_precision_name(dt):
        if not dt.isnative:
            raise TypeError(f"dtype {dt.name} is stored little-endian; pass it in native order")
        return ZarrType("fixed", dt)
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
        _check_struct(dt, zarr_format)
        return ZarrType("fixed", _packed(dt))
    if dt.subdtype is not None:
        raise TypeError(f"subarray dtype {dt}: pass its base type and add the shape")
    if dt.kind not in "biufcSUVMm":
        raise TypeError(f"unsupported dtype {dt}")
    return ZarrType("fixed", dt)


def numpy_dtype(engine_name: str, size: int, zarr_format: int, v2_byte_order: str,
                dtype_json: str | None = None) -> np.dtype:
    """The numpy dtype of an opened array, as zarr-python 3 reports it; times
    and structs need the metadata's spelling (`dtype_json`)."""
    if engine_name in ("datetime64", "timedelta64", "struct"):
        spelled = json.loads(dtype_json)
        return _from_v2(spelled) if zarr_format == 2 else _from_v3(spelled)
    if engine_name in LOW_PRECISION:
        return low_precision_dtype(engine_name)
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
    if dt.fields is not None:
        return dt if dt.isnative else dt.newbyteorder("=")
    if dt.kind in "OT" or dt.byteorder in ("=", "|"):
        return dt
    return dt.newbyteorder("=")


def in_byte_order_of(values: np.ndarray, dt: np.dtype) -> np.ndarray:
    """`values` swapped into `dt` when they are of the same type in the other
    byte order, else unchanged: numpy's own cast between byte orders leaves
    generic-unit times unswapped (numpy 2.4), so assignments and casts go
    through this first."""
    if values.dtype != dt and values.dtype.kind not in "OT" and \
            values.dtype.newbyteorder("=") == dt.newbyteorder("="):
        return values.byteswap().view(dt)
    return values


def to_native(values: Any, native_dt: np.dtype) -> np.ndarray:
    """`values` as a C-contiguous array of `native_dt` (a native-order
    fixed-size type)."""
    if isinstance(values, np.ndarray):
        values = in_byte_order_of(values, native_dt)
    # Python values (a tuple is one struct element) take the type directly.
    return np.asarray(values, dtype=native_dt, order="C")


def _float_json(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def fill_value_json(zt: ZarrType, value: Any, zarr_format: int = 3) -> Any:
    """The JSON spelling of a fill value, as zarr-python writes it; None asks
    for zarr-python's default: NaT for times, zero, False or the empty
    string/bytes otherwise (structs: every field zero, times included)."""
    if zt.kind == "string":
        return "" if value is None else str(value)
    if zt.kind == "bytes":
        raw = b"" if value is None else bytes(value)
        return base64.standard_b64encode(raw).decode("ascii")
    return _fixed_fill_json(zt.numpy, value, zarr_format)


def _fixed_fill_json(dt: np.dtype, value: Any, zarr_format: int) -> Any:
    if low_precision_name(dt):
        spelled = _low_precision_fill_json(dt, value)
        if zarr_format == 2 and dt.name == "float4_e2m1fn":
            # TensorStore's v2 spelling: base64 of the byte.
            raw = np.asarray(spelled).astype(dt).tobytes()
            return base64.standard_b64encode(raw).decode("ascii")
        return spelled
    if dt.kind in "Mm":
        if value is None:
            return NAT
        scalar = np.asarray(value).astype(dt)
        return int(scalar.view(np.int64))
    if dt.fields is not None:
        scalar = np.zeros((), dtype=dt) if value is None else np.asarray(value, dtype=dt)
        if zarr_format == 2 or any(dt.fields[n][0].subdtype is not None for n in dt.names):
            return base64.standard_b64encode(scalar.tobytes()).decode("ascii")
        return {name: _fixed_fill_json(dt.fields[name][0], scalar[name][()], zarr_format)
                for name in dt.names}
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


def _low_precision_fill_json(dt: np.dtype, value: Any) -> Any:
    """As TensorStore writes them: numbers (zero by default; for
    float8_e8m0fnu, which has no zero, 0.0 stands for its all-zero bits),
    "NaN" for the type's NaN, hex bits for any other NaN, "Infinity"."""
    is_int = dt.name.startswith(("int", "uint"))
    if value is None:
        return 0 if is_int else 0.0
    if is_int:
        bits = int(dt.name[-1])
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt.name[0] == "i" \
            else (0, (1 << bits) - 1)
        as_int = int(value)
        if as_int != value or not lo <= as_int <= hi:
            raise ValueError(f"fill value {value!r} is not a {dt.name} ({lo} to {hi})")
        return as_int
    scalar = np.asarray(value).astype(dt)
    as_float = float(scalar.astype(np.float64))
    given = np.asarray(value)
    if given.dtype.kind in "fc" or given.dtype == dt:
        wanted = float(given.astype(np.float64))
        for special, test in (("NaN", math.isnan), ("infinity", math.isinf)):
            if test(wanted) and not test(as_float):
                raise ValueError(f"fill value {value!r}: {dt.name} has no {special}")
    if math.isnan(as_float):
        unsigned = np.uint16 if dt.itemsize == 2 else np.uint8
        bits = int(scalar.view(unsigned))
        if bits == int(np.asarray(np.nan).astype(dt).view(unsigned)):
            return "NaN"
        return f"0x{bits:0{dt.itemsize * 2}x}"
    return _float_json(as_float)


def decode_fill_value(raw: bytes, dt: np.dtype, is_null: bool) -> Any:
    """The fill value of an opened array as a numpy scalar (or str/bytes)."""
    if is_null:
        return None
    if dt.kind == "T":
        return raw.decode("utf-8")
    if dt.kind == "O":
        return bytes(raw)
    return np.frombuffer(raw, dtype=native(dt), count=1).astype(dt)[0]
