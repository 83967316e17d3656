"""Test doubles: adapters that run in the harness interpreter ("inline") with
numpy only, reading and writing uncompressed Zarr v2 chunk files by hand, and
one that returns wrong values, for the audit to catch. The child imports them
as `fake_adapters:<DriverClass>` (this directory is put on its PYTHONPATH).
Over HTTP (store = "http") they read each chunk with one urllib GET."""

from __future__ import annotations

import itertools
import json
import math
import sys
import types
import urllib.request
from pathlib import Path

import numpy as np

from turbozarr_bench.adapters.base import Driver as _Base, Unsupported

HERE = str(Path(__file__).resolve().parent)


class GoodDriver(_Base):
    """Reads and writes uncompressed v2 arrays ('.'-separated chunk keys)."""

    def _check(self):
        m = self.meta
        if m["zarr_format"] != 2 or m.get("compressor") or m.get("filters"):
            raise Unsupported("the fake adapter reads uncompressed v2 only")

    def http_source(self, url):
        return url

    def open(self, source):
        self._check()
        return source if str(source).startswith("http://") else Path(source)

    @staticmethod
    def _get(handle, key: str) -> bytes:
        if isinstance(handle, str):
            with urllib.request.urlopen(f"{handle}/{key}") as answer:
                return answer.read()
        return (handle / key).read_bytes()

    def _grid(self):
        m = self.meta
        return [range(math.ceil(s / c)) for s, c in zip(m["shape"], m["chunks"])]

    def read_all(self, handle):
        m = self.meta
        dt = np.dtype(m["dtype"])
        out = np.zeros(m["shape"], dtype=dt)
        for idx in itertools.product(*self._grid()):
            chunk = np.frombuffer(self._get(handle, ".".join(map(str, idx))), dt)
            chunk = chunk.reshape(m["chunks"])
            region = tuple(slice(i * c, min((i + 1) * c, s))
                           for i, c, s in zip(idx, m["chunks"], m["shape"]))
            out[region] = chunk[tuple(slice(0, r.stop - r.start) for r in region)]
        return out

    def read_region(self, handle, region):
        return self.read_all(handle)[region]

    def create(self, target):
        self._check()
        p = Path(target)
        p.mkdir(parents=True, exist_ok=True)
        (p / ".zarray").write_text(json.dumps(self.meta))
        return p

    def write_all(self, handle, data):
        m = self.meta
        for idx in itertools.product(*self._grid()):
            region = tuple(slice(i * c, min((i + 1) * c, s))
                           for i, c, s in zip(idx, m["chunks"], m["shape"]))
            chunk = np.zeros(m["chunks"], dtype=np.dtype(m["dtype"]))
            chunk[tuple(slice(0, r.stop - r.start) for r in region)] = data[region]
            (handle / ".".join(map(str, idx))).write_bytes(chunk.tobytes())


class WrongDriver(GoodDriver):
    """Returns one wrong element on reads, writes data + 1."""

    def read_all(self, handle):
        a = super().read_all(handle)
        a.flat[0] ^= 1
        return a

    def write_all(self, handle, data):
        super().write_all(handle, data + 1)


class UnsupportedDriver(GoodDriver):
    def open(self, source):
        raise Unsupported("found at run time: no such thing")


class FailingDriver(GoodDriver):
    def open(self, source):
        raise RuntimeError("boom")


def _module(name: str, driver: type, supports=("read_full", "write_full")) -> types.ModuleType:
    mod = types.ModuleType(f"fake_adapters_{name.replace('-', '_')}")
    mod.NAME = name
    mod.ENV = "inline"
    mod.PYTHONPATH = [HERE]
    mod.REQUIRES = ()
    mod.SUPPORTS = frozenset(supports)
    mod.FORMATS = frozenset({"zarr2"})
    mod.STORES = frozenset({"local", "http", "s3"})
    mod.OPTIONS = {}
    mod.NOTE = f"test double ({driver.__name__})"
    mod.Driver = driver
    mod.CHILD_MODULE = f"fake_adapters:{driver.__name__}"
    sys.modules[mod.__name__] = mod
    return mod


MODULES = {
    "fake-a": _module("fake-a", GoodDriver),
    "fake-b": _module("fake-b", GoodDriver),
    "fake-wrong": _module("fake-wrong", WrongDriver),
    "fake-unsupported": _module("fake-unsupported", UnsupportedDriver, ("read_full",)),
    "fake-failing": _module("fake-failing", FailingDriver, ("read_full",)),
}
