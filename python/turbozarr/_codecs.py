"""Building the codec part of new array metadata the way zarr-python 3.1
does: its defaults (bytes + zstd level 0 for v3, zstd level 0 for v2), the
same spelling of every codec's configuration, and codecs given as JSON dicts,
zarr-python codec objects or numcodecs objects.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from typing import Any

from turbozarr import _core
from turbozarr._dtypes import ZarrType, parse_dtype

# The sentinel for "zarr-python's default".
AUTO = "auto"

# zarr-python's default compressor (completed like any codec given by name).
_ZSTD_DEFAULT_V3 = {"name": "zstd"}
_ZSTD_DEFAULT_V2 = {"id": "zstd", "level": 0}
_SHARD_INDEX_CODECS = [
    {"name": "bytes", "configuration": {"endian": "little"}},
    {"name": "crc32c"},
]


def _plain_json(obj: Any) -> Any:
    """Tuples -> lists, enums -> values: what json.dumps would write."""

    def default(o: Any) -> Any:
        if isinstance(o, enum.Enum):
            return o.value
        raise TypeError(f"cannot turn {o!r} into JSON")

    return json.loads(json.dumps(obj, default=default))


def _v3_codec(codec: Any) -> dict:
    if isinstance(codec, str):
        return {"name": codec}
    if isinstance(codec, dict):
        if "name" not in codec:
            raise ValueError(f"a v3 codec needs a 'name': {codec!r}")
        return _plain_json(codec)
    if hasattr(codec, "to_dict"):
        d = _plain_json(codec.to_dict())
        # zarr-python codecs leave some fields to be chosen from the array
        # (blosc typesize and shuffle); drop them so that _complete() does.
        tunable = getattr(codec, "_tunable_attrs", ())
        for name in tunable:
            d.get("configuration", {}).pop(name, None)
        return d
    raise TypeError(f"cannot use {codec!r} as a Zarr v3 codec")


def _v2_codec(codec: Any) -> dict:
    if isinstance(codec, dict):
        if "id" not in codec:
            raise ValueError(f"a v2 (numcodecs) codec needs an 'id': {codec!r}")
        # numcodecs' defaults, which zarr-python writes out in full.
        return _core.complete_codec(_plain_json(codec), 1, 2)
    if hasattr(codec, "get_config"):
        return _plain_json(codec.get_config())
    raise TypeError(f"cannot use {codec!r} as a Zarr v2 (numcodecs) codec")


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (dict, str)) or not isinstance(value, Iterable):
        return [value]
    return list(value)


def _complete(codec: dict, itemsize: int) -> dict:
    """Fills in the configuration fields zarr-python writes out explicitly
    (the engine's codec table knows them)."""
    return _core.complete_codec(codec, itemsize, 3)


def default_serializer(zt: ZarrType) -> dict:
    if zt.kind == "string":
        return {"name": "vlen-utf8", "configuration": {}}
    if zt.kind == "bytes":
        return {"name": "vlen-bytes", "configuration": {}}
    if zt.has_byte_order():
        return {"name": "bytes", "configuration": {"endian": "little"}}
    return {"name": "bytes"}


# The configuration field that names the type an array->array codec stores,
# for the codecs that change it.
_STORED_TYPE_FIELD = {
    "cast_value": "data_type",
    "numcodecs.astype": "encode_dtype",
    "numcodecs.fixedscaleoffset": "astype",
    "numcodecs.quantize": "astype",
    "numcodecs.categorize": "astype",
}


def _encoded_type(zt: ZarrType, a2a: list[dict]) -> ZarrType:
    """The type the serializer sees: the array's after its array->array
    codecs (the serializer's byte order and a compressor's type size follow
    it, as zarr-python resolves them)."""
    for codec in a2a:
        field = _STORED_TYPE_FIELD.get(codec.get("name", ""))
        stored = (codec.get("configuration") or {}).get(field) if field else None
        if stored is not None:
            zt = parse_dtype(stored, 3 if codec["name"] == "cast_value" else None)
    return zt


def v3_codecs(
    zt: ZarrType,
    *,
    chunks: tuple[int, ...],
    shards: tuple[int, ...] | None,
    filters: Any,
    serializer: Any,
    compressors: Any,
    shard_index_location: str,
) -> list[dict]:
    """The v3 "codecs" list; when sharded, the inner chain goes inside
    sharding_indexed and `chunks` is the inner chunk shape."""
    a2a = [_complete(_v3_codec(c), zt.itemsize) for c in _as_list(filters)]
    zt = _encoded_type(zt, a2a)
    a2b = default_serializer(zt) if serializer == AUTO else _v3_codec(serializer)
    b2b_in = [_ZSTD_DEFAULT_V3] if compressors == AUTO else _as_list(compressors)
    b2b = [_complete(_v3_codec(c), zt.itemsize) for c in b2b_in]
    chain = a2a + [a2b] + b2b
    if shards is None:
        return chain
    if shard_index_location not in ("start", "end"):
        raise ValueError(f"shard_index_location must be 'start' or 'end', "
                         f"got {shard_index_location!r}")
    return [{
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": list(chunks),
            "codecs": chain,
            "index_codecs": _SHARD_INDEX_CODECS,
            "index_location": shard_index_location,
        },
    }]


def v2_codecs(zt: ZarrType, *, filters: Any, compressor: Any) -> tuple[Any, Any]:
    """The .zarray "filters" and "compressor" values."""
    filter_list = [_v2_codec(f) for f in _as_list(filters)]
    if zt.kind == "string" and not any(f["id"] == "vlen-utf8" for f in filter_list):
        filter_list.append({"id": "vlen-utf8"})
    if zt.kind == "bytes" and not any(f["id"] == "vlen-bytes" for f in filter_list):
        filter_list.append({"id": "vlen-bytes"})
    if compressor == AUTO:
        comp = dict(_ZSTD_DEFAULT_V2)
    elif compressor is None:
        comp = None
    else:
        items = _as_list(compressor)
        if len(items) != 1:
            raise ValueError(f"Zarr v2 arrays take one compressor, got {len(items)}")
        comp = _v2_codec(items[0])
    return (filter_list or None), comp
