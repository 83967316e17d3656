"""What an interop test proves, recorded for docs/support.md.

A test that shows turbozarr reading what a peer wrote ("read") or a peer
reading what turbozarr wrote ("write"), bit for bit, says so through the
`supports` fixture (conftest.py):

    supports("codec", "zstd", "read", peer=ZARR, zarr_format=3)
    supports.array(a, ["read", "write"], peer=ZARR)

The second form records everything the array's metadata document names:
its data type, its codecs, its chunk grid, sharding and chunk key encoding,
and its store. Each record is a ("supports", {...}) entry of the test's
user_properties; conftest.py writes those of tests that passed to the file
TURBOZARR_SUPPORT_RECORD names, and scripts/support_table.py makes the table
from that file.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable
from typing import Any

KINDS = ("data type", "codec", "layout", "store")
WAYS = ("read", "write")
PROPERTY = "supports"

_PEER_NAMES = {"zarr": "zarr-python", "tensorstore": "TensorStore", "zarrs": "zarrs"}

# The stores by the scheme their describe() starts with.
_STORES = {"file": "local directory", "memory": "memory", "zip": "zip archive",
           "http": "http(s)", "https": "http(s)", "s3": "s3"}

# Peers of the stores: Python's zip archive module, its web server, and
# the S3 client that looks at what moto's server holds.
ZIPFILE = "Python zipfile"
HTTP_SERVER = "Python http.server"
BOTO3 = "boto3 on moto"


def peer(distribution: str) -> str:
    """A peer by its installed release: "zarr-python 3.4"."""
    version = importlib.metadata.version(distribution)
    return f"{_PEER_NAMES.get(distribution, distribution)} {'.'.join(version.split('.')[:2])}"


def _ways(ways: str | Iterable[str]) -> list[str]:
    listed = [ways] if isinstance(ways, str) else list(ways)
    if not listed or any(w not in WAYS for w in listed):
        raise ValueError(f"ways must be 'read' and/or 'write', got {ways!r}")
    return listed


def record(kind: str, feature: str, ways: str | Iterable[str], *, peer: str,
           zarr_format: int | None = None) -> list[dict[str, Any]]:
    """The records that `ways` of `feature` were proven against `peer`."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if not feature or not peer:
        raise ValueError("a record names its feature and its peer")
    if zarr_format not in (None, 2, 3):
        raise ValueError(f"zarr_format must be 2, 3 or None, got {zarr_format!r}")
    return [{"kind": kind, "feature": feature, "zarr_format": zarr_format, "way": way,
             "peer": peer} for way in _ways(ways)]


def data_type_of(meta: dict) -> str:
    """The data type as the metadata document spells it: a v3 name without
    its configuration; a v2 type string with lengths and time units left
    out (`|Sn`, `<M8[unit]`), `[[name, type], ...]` for a v2 struct and
    `|O (<object codec>)` for v2 objects."""
    if meta["zarr_format"] == 3:
        dt = meta["data_type"]
        return dt if isinstance(dt, str) else dt["name"]
    dt = meta["dtype"]
    if isinstance(dt, list):
        return "[[name, type], ...]"
    if dt == "|O":
        ids = [f["id"] for f in meta.get("filters") or []]
        return f"|O ({', '.join(ids)})"
    dt = re.sub(r"^([<>|])([SUV])\d+$", r"\1\2n", dt)
    return re.sub(r"^([<>|]?[Mm]8)\[.*\]$", r"\1[unit]", dt)


def _v3_codec_names(codecs: list) -> Iterable[str]:
    for codec in codecs:
        codec = {"name": codec} if isinstance(codec, str) else codec
        yield codec["name"]
        if codec["name"] == "sharding_indexed":
            config = codec["configuration"]
            yield from _v3_codec_names(config.get("codecs", []))
            yield from _v3_codec_names(config.get("index_codecs", []))


def codecs_of(meta: dict) -> list[str]:
    """Every codec the metadata document names, those inside shards too:
    v3 names, v2 numcodecs ids (filters, then the compressor)."""
    if meta["zarr_format"] == 3:
        names = list(_v3_codec_names(meta["codecs"]))
    else:
        names = [f["id"] for f in meta.get("filters") or []]
        if meta.get("compressor"):
            names.append(meta["compressor"]["id"])
    return list(dict.fromkeys(names))


def _sharding_layouts(codecs: list, depth: int = 0) -> Iterable[str]:
    for codec in codecs:
        if isinstance(codec, dict) and codec["name"] == "sharding_indexed":
            config = codec["configuration"]
            if depth == 0:
                yield f"sharding, index at the {config.get('index_location', 'end')}"
            else:
                yield "nested sharding"
            yield from _sharding_layouts(config.get("codecs", []), depth + 1)


def layouts_of(meta: dict) -> list[str]:
    """The chunk grid, sharding and chunk key encoding (v3), or grid,
    dimension separator and memory order (v2), as table rows."""
    if meta["zarr_format"] == 2:
        return ["regular chunk grid",
                f'dimension_separator "{meta.get("dimension_separator") or "."}"',
                f'order "{meta["order"]}"']
    encoding = meta["chunk_key_encoding"]
    name = encoding["name"]
    separator = encoding.get("configuration", {}).get("separator",
                                                      "/" if name == "default" else ".")
    return [f"{meta['chunk_grid']['name']} chunk grid",
            *_sharding_layouts(meta["codecs"]),
            f'chunk key encoding "{name}", separator "{separator}"']


def store_of(description: str) -> str:
    """The store kind from a store's describe(): "zip://a.zip" -> "zip archive"."""
    scheme = description.split("://", 1)[0]
    if scheme not in _STORES:
        raise ValueError(f"no store kind for {description!r}")
    return _STORES[scheme]


def array_records(array, ways: str | Iterable[str], *, peer: str,
                  kinds: Iterable[str] = KINDS) -> list[dict[str, Any]]:
    """The records of everything a turbozarr Array's metadata names, and of
    its store (each kind in `kinds`)."""
    meta = array.metadata
    fmt = meta["zarr_format"]
    features = {"data type": [data_type_of(meta)], "codec": codecs_of(meta),
                "layout": layouts_of(meta), "store": [store_of(array.store.describe())]}
    out = []
    for kind in kinds:
        for feature in features[kind]:
            out += record(kind, feature, ways, peer=peer,
                          zarr_format=None if kind == "store" else fmt)
    return out


class Supports:
    """The `supports` fixture: records onto one test's user_properties."""

    def __init__(self, record_property):
        self._record_property = record_property

    def _add(self, records: list[dict[str, Any]]) -> None:
        for r in records:
            self._record_property(PROPERTY, r)

    def __call__(self, kind: str, feature: str, ways: str | Iterable[str], *, peer: str,
                 zarr_format: int | None = None) -> None:
        self._add(record(kind, feature, ways, peer=peer, zarr_format=zarr_format))

    def array(self, array, ways: str | Iterable[str], *, peer: str,
              kinds: Iterable[str] = KINDS) -> None:
        self._add(array_records(array, ways, peer=peer, kinds=kinds))
