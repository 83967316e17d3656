"""turbozarr.ZarrCodecPipeline under zarr-python 3.4: every read and write
gives what zarr-python's default pipeline gives, element for element and
byte for byte in the store."""

from __future__ import annotations

import functools
import http.server
import io
import logging
import os
import pathlib
import pickle
import re
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
if tuple(int(p) for p in zarr.__version__.split(".")[:2]) < (3, 4):
    pytest.skip("the codec pipeline needs zarr-python 3.4 or later", allow_module_level=True)

import turbozarr  # noqa: E402
from support_records import peer  # noqa: E402
from turbozarr import zarr_pipeline  # noqa: E402

PIPELINE = "turbozarr.ZarrCodecPipeline"
DEFAULT = "zarr.core.codec_pipeline.BatchedCodecPipeline"
# What the tests below prove, they prove through zarr-python's pipeline API.
ZARR_PIPELINE = f"{peer('zarr')} (codec pipeline)"


def pipeline_of(z) -> type:
    return type(z._async_array.codec_pipeline)


def engine_calls(monkeypatch) -> list[str]:
    """Records each read and write the engine runs for the pipeline."""
    calls: list[str] = []
    read, write = zarr_pipeline._read, zarr_pipeline._write

    def counted_read(*args, **kwargs):
        calls.append("read")
        return read(*args, **kwargs)

    def counted_write(*args, **kwargs):
        calls.append("write")
        return write(*args, **kwargs)

    monkeypatch.setattr(zarr_pipeline, "_read", counted_read)
    monkeypatch.setattr(zarr_pipeline, "_write", counted_write)
    return calls


STORE_KINDS = {"local": "local directory", "memory": "memory"}


def make_store(kind: str, tmp_path, name: str):
    if kind == "local":
        return zarr.storage.LocalStore(tmp_path / name)
    if kind == "memory":
        return zarr.storage.MemoryStore()
    raise AssertionError(kind)


ARRAYS = {
    # name: create_array arguments
    "v3": dict(shape=(100, 90), chunks=(10, 12), dtype="i4", fill_value=-1),
    "v3-sharded": dict(shape=(100, 90), chunks=(10, 6), shards=(20, 30), dtype="f8",
                       fill_value=np.nan),
    "v3-zstd-f4": dict(shape=(64, 50, 7), chunks=(16, 16, 7), dtype="f4", fill_value=0,
                       compressors=[{"name": "zstd", "configuration": {"level": 3}}]),
    "v2": dict(shape=(100, 90), chunks=(10, 12), dtype="u2", fill_value=7, zarr_format=2),
    "v2-F-blosc": dict(shape=(33, 41), chunks=(8, 8), dtype="i8", fill_value=0,
                       zarr_format=2, order="F",
                       compressors={"id": "blosc", "cname": "lz4", "clevel": 5,
                                    "shuffle": 1}),
    "v2-big-endian": dict(shape=(30, 30), chunks=(7, 9), dtype=">i4", fill_value=3,
                          zarr_format=2),
    "v3-bool": dict(shape=(50, 50), chunks=(8, 8), dtype="bool", fill_value=False),
    "v2-lzma": dict(shape=(40, 30), chunks=(16, 16), dtype="<f4", fill_value=0, zarr_format=2,
                    compressors={"id": "lzma", "preset": 1}),
    "v3-sharded-lzma": dict(shape=(40, 30), chunks=(8, 8), shards=(16, 16), dtype="u2",
                            fill_value=0, compressors=[
                                {"name": "numcodecs.lzma",
                                 "configuration": {"format": 2, "preset": 0}}]),
    "v3-0d": dict(shape=(), chunks=(), dtype="i2", fill_value=4),
}


def data_for(shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 1000, size=shape).astype(dtype)


def selections(shape):
    """Reads and writes of every kind zarr-python's indexers make."""
    if shape == ():
        return [("basic", ())]
    n0 = shape[0]
    rest = (slice(None),) * (len(shape) - 1)
    picks = np.array([0, 3, n0 // 2, n0 - 1])
    return [
        ("basic", (slice(None),)),
        ("basic", (slice(5, n0 - 7),) + tuple(slice(1, s - 2) for s in shape[1:])),
        ("basic", (slice(1, n0, 3),) + tuple(slice(None, None, 2) for _ in shape[1:])),
        ("basic", (7,) + rest),
        ("basic", (n0 - 1,) + tuple(s - 1 for s in shape[1:])),
        ("orthogonal", (picks,) + rest),
        ("orthogonal", (slice(2, 9), ) + tuple(np.array([0, s - 1]) for s in shape[1:])),
        ("orthogonal", (3,) + tuple(np.array([0, s - 1]) for s in shape[1:])),
        ("vectorized", (picks,) + tuple(np.array([0, 1, s // 2, s - 1]) for s in shape[1:])),
        ("block", (slice(1, 3),) + rest),
    ]


def index(z, kind, sel):
    return {"basic": z, "orthogonal": z.oindex, "vectorized": z.vindex,
            "block": z.blocks}[kind]


def numpy_index(ref, kind, sel, chunks):
    if kind == "basic":
        return ref[sel]
    if kind == "orthogonal":
        out = ref
        for axis, s in enumerate(sel):
            if isinstance(s, (int, np.integer)):
                out = np.take(out, [s], axis=axis)
            else:
                out = out[(slice(None),) * axis + (s,)]
        return out.reshape(tuple(
            n for s, n in zip(sel, out.shape) if not isinstance(s, (int, np.integer))))
    if kind == "vectorized":
        return ref[sel]
    block = sel[0]
    return ref[block.start * chunks[0]:block.stop * chunks[0]]


def stored(store) -> dict[str, bytes]:
    """Every key of a zarr-python store and its bytes."""
    async def collect():
        out = {}
        async for key in store.list():
            buf = await store.get(key, prototype=zarr.core.buffer.default_buffer_prototype())
            out[key] = buf.to_bytes()
        return out
    return zarr.core.sync.sync(collect())


@pytest.mark.parametrize("store_kind", ["local", "memory"])
@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_reads_and_writes_match_the_default_pipeline(tmp_path, store_kind, name, rng,
                                                     monkeypatch, supports):
    """The same writes through both pipelines leave the same bytes in the
    store, and every selection reads the same values."""
    args = ARRAYS[name]
    data = data_for(args["shape"], args["dtype"], rng)
    arrays = {}
    calls = engine_calls(monkeypatch)
    for pipeline in (DEFAULT, PIPELINE):
        with zarr.config.set({"codec_pipeline.path": pipeline}):
            z = zarr.create_array(make_store(store_kind, tmp_path, pipeline), **args)
            assert pipeline_of(z).__name__ == pipeline.rsplit(".", 1)[1]
            if z.ndim:
                z[: args["shape"][0] // 2] = data[: args["shape"][0] // 2]  # partial chunks
                z[args["shape"][0] - 5:] = data[args["shape"][0] - 5:]
                rest = (slice(None),) * (len(args["shape"]) - 1)
                z.oindex[(np.array([0, 2]),) + rest] = data[[0, 2]]
                z.vindex[(np.array([1, 4]),) + tuple(np.array([0, 1]) for _ in args["shape"][1:])] = 1
            else:
                z[()] = data
            arrays[pipeline] = z
    assert calls.count("write") >= 1
    assert stored(arrays[DEFAULT].store) == stored(arrays[PIPELINE].store)

    chunks = arrays[DEFAULT].chunks
    for kind, sel in selections(args["shape"]):
        expected = index(arrays[DEFAULT], kind, sel)[sel]
        calls.clear()
        with zarr.config.set({"codec_pipeline.path": PIPELINE}):
            got = index(arrays[PIPELINE], kind, sel)[sel]
        assert calls == ["read"] or np.size(expected) == 0, (kind, sel)
        np.testing.assert_array_equal(got, expected, err_msg=f"{kind} {sel}")
        assert np.asarray(got).dtype == np.asarray(expected).dtype
        if kind != "block":
            ref = arrays[DEFAULT][...]
            np.testing.assert_array_equal(got, numpy_index(ref, kind, sel, chunks))
    # The engine's writes left zarr-python's bytes, and its reads of them
    # gave what zarr-python gives.
    supports("store", STORE_KINDS[store_kind], ["read", "write"], peer=ZARR_PIPELINE)


@pytest.mark.parametrize("write_empty_chunks", [False, True])
@pytest.mark.parametrize("shards", [None, (20, 20)])
def test_write_empty_chunks_and_missing_chunks(tmp_path, write_empty_chunks, shards):
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        z = zarr.create_array(tmp_path / "a.zarr", shape=(40, 40), chunks=(10, 10),
                              shards=shards, dtype="i4", fill_value=5,
                              config={"write_empty_chunks": write_empty_chunks})
        z[:20] = 5          # all fill value
        z[20:30, :10] = 1   # one chunk (shard) of data
        keys = sorted(k for k in stored(z.store) if "/c/" in "/" + k)
        unit = 20 if shards else 10
        written = {f"c/{i}/{j}" for i in range(0, 20 // unit) for j in range(40 // unit)}
        data_key = f"c/{20 // unit}/0"
        expected = sorted(written | {data_key}) if write_empty_chunks else [data_key]
        assert keys == expected
        np.testing.assert_array_equal(z[:20], 5)

        # A missing chunk reads as the fill value, or raises when the array
        # refuses to read missing chunks.
        np.testing.assert_array_equal(z[30:], 5)
        strict = zarr.open_array(tmp_path / "a.zarr", config={"read_missing_chunks": False})
        with pytest.raises(zarr.errors.ChunkNotFoundError, match="c/3/3" if not shards else "c/1/1"):
            strict[:]
        np.testing.assert_array_equal(strict[20:30, :10], 1)


def test_read_statuses(tmp_path):
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        for store in (zarr.storage.LocalStore(tmp_path / "s"), zarr.storage.MemoryStore()):
            z = zarr.create_array(store, shape=(20,), chunks=(10,), dtype="i4")
            z[:10] = 1
            a = z._async_array
            spec = a._chunk_grid  # noqa: F841 (the grid zarr-python reads with)
            batch = [(a.store_path / a.metadata.encode_chunk_key((i,)),
                      zarr.core.array_spec.ArraySpec(
                          shape=(10,), dtype=a.metadata.dtype, fill_value=0,
                          config=a.config,
                          prototype=zarr.core.buffer.default_buffer_prototype()),
                      (slice(0, 10),), (slice(10 * i, 10 * i + 10),), True)
                     for i in range(2)]
            out = zarr.core.buffer.default_buffer_prototype().nd_buffer.empty(
                shape=(20,), dtype=np.dtype("i4"))
            results = zarr.core.sync.sync(a.codec_pipeline.read(batch, out))
            assert [r["status"] for r in results] == ["present", "missing"]
            np.testing.assert_array_equal(out.as_ndarray_like(), [1] * 10 + [0] * 10)


def test_zip_store_read_by_the_engine_and_written_by_zarr_python(tmp_path, rng, monkeypatch,
                                                                 supports):
    data = rng.integers(0, 100, size=(30, 30)).astype("i4")
    path = tmp_path / "a.zip"
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        store = zarr.storage.ZipStore(path, mode="w")
        z = zarr.create_array(store, shape=(30, 30), chunks=(8, 8), dtype="i4")
        z[:] = data  # staged: the archive is being written by zarr-python
        store.close()
        assert zipfile.ZipFile(path).testzip() is None
        calls = engine_calls(monkeypatch)
        reader = zarr.open_array(zarr.storage.ZipStore(path, mode="r"))
        np.testing.assert_array_equal(reader[:], data)
        assert calls == ["read"]
        assert reader._async_array.codec_pipeline._core_store is not None
    supports("store", "zip archive", "read", peer=ZARR_PIPELINE)


def test_fallback_is_logged_once_and_strict_refuses(tmp_path, caplog):
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        z = zarr.create_array(tmp_path / "s.zarr", shape=(4,), chunks=(2,), dtype="V3")
        values = np.array([b"abc", b"\x00\x01\x02", b"xyz", b"   "], dtype="V3")
        with caplog.at_level(logging.DEBUG, logger="turbozarr.zarr_pipeline"):
            z[:] = values
            np.testing.assert_array_equal(z[:], values)
        reasons = [r.getMessage() for r in caplog.records
                   if r.name == "turbozarr.zarr_pipeline"]
        assert len(reasons) == 1 and "data type" in reasons[0], reasons
        with zarr.config.set({"codec_pipeline.strict": True}):
            with pytest.raises(turbozarr.UnsupportedError, match="data type"):
                zarr.open_array(tmp_path / "s.zarr")[:]


def test_pipeline_and_arrays_pickle(tmp_path, rng):
    data = rng.standard_normal((25, 25)).astype("f4")
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        z = zarr.create_array(tmp_path / "p.zarr", shape=(25, 25), chunks=(5, 5),
                              shards=(10, 10), dtype="f4")
        z[:] = data
        pipeline = z._async_array.codec_pipeline
        blob = pickle.dumps(pipeline)
        assert len(blob) < 4096  # metadata and store location, no data
        again = pickle.loads(blob)
        assert type(again) is type(pipeline) and again.metadata == pipeline.metadata
        z2 = pickle.loads(pickle.dumps(z))
        np.testing.assert_array_equal(z2[:], data)
        assert pipeline_of(z2) is type(pipeline)


def test_environment_variable_selects_the_pipeline(tmp_path):
    code = ("import zarr, numpy as np, turbozarr.zarr_pipeline\n"
            f"z = zarr.create_array({str(tmp_path / 'e.zarr')!r}, shape=(4,), chunks=(2,),"
            " dtype='i4')\n"
            "z[:] = np.arange(4)\n"
            "print(type(z._async_array.codec_pipeline).__name__, z[:].tolist())\n")
    env = {"ZARR_CODEC_PIPELINE__PATH": PIPELINE, "PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["ZarrCodecPipeline", "[0,", "1,", "2,", "3]"]


def test_the_documented_example_runs(tmp_path):
    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "zarr-pipeline.md"
    example = re.search(r"```python\n(.*?)```", doc.read_text(), re.S).group(1)
    # Installed, the entry point registers the pipeline; from the source tree
    # the import does.
    code = "import turbozarr.zarr_pipeline\n" + example + "\nprint('done')\n"
    env = {"PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["done"]
    assert (tmp_path / "example.zarr" / "c" / "1" / "1").is_file()


@pytest.fixture
def http_root(tmp_path):
    """A directory served over HTTP on loopback, with Range requests."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_head(self):
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
            path = self.translate_path(self.path)
            if match is None or not os.path.isfile(path):
                return super().send_head()
            data = pathlib.Path(path).read_bytes()
            first, last = match.groups()
            if first == "":
                first, last = len(data) - int(last), len(data) - 1
            else:
                first, last = int(first), min(int(last or len(data) - 1), len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {first}-{last}/{len(data)}")
            self.send_header("Content-Length", str(last - first + 1))
            self.end_headers()
            return io.BytesIO(data[first:last + 1])

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("shards", [None, (16, 16)])
def test_http_reads_go_through_the_engine(http_root, shards, rng, monkeypatch, supports):
    pytest.importorskip("fsspec")
    pytest.importorskip("aiohttp")
    root, url = http_root
    data = rng.integers(0, 1 << 20, size=(40, 40)).astype("i4")
    z = zarr.create_array(root / "a.zarr", shape=(40, 40), chunks=(8, 8), shards=shards,
                          dtype="i4", fill_value=-1)
    z[:30] = data[:30]
    expected = np.where(np.arange(40)[:, None] < 30, data, -1)
    calls = engine_calls(monkeypatch)
    with zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.strict": True}):
        store = zarr.storage.FsspecStore.from_url(f"{url}/a.zarr", read_only=True)
        remote = zarr.open_array(store)
        pipeline = remote._async_array.codec_pipeline
        assert pipeline._core_store is not None  # the engine's HTTP store
        np.testing.assert_array_equal(remote[:], expected)
        np.testing.assert_array_equal(remote[3:33:4, 5], expected[3:33:4, 5])
        np.testing.assert_array_equal(remote.vindex[[0, 39], [1, 38]], expected[[0, 39], [1, 38]])
    assert calls == ["read"] * 3
    supports("store", "http(s)", "read", peer=ZARR_PIPELINE)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_strings_run_on_the_engine(tmp_path, zarr_format, monkeypatch):
    words = np.array([["alpha", "", "γάμμα"], ["delta", "epsilon", "z" * 300]] * 5)
    arrays = {}
    calls = engine_calls(monkeypatch)
    for pipeline in (DEFAULT, PIPELINE):
        with zarr.config.set({"codec_pipeline.path": pipeline}):
            z = zarr.create_array(tmp_path / pipeline, shape=words.shape, chunks=(3, 2),
                                  dtype=str, zarr_format=zarr_format)
            z[:7] = words[:7]
            z.vindex[[9, 8], [0, 2]] = ["x", "yy"]
            arrays[pipeline] = z
    assert stored(arrays[DEFAULT].store) == stored(arrays[PIPELINE].store)
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        for sel in [(slice(None),), (slice(1, 9, 2), 2), (4, slice(None))]:
            expected = arrays[DEFAULT][sel]
            got = arrays[PIPELINE][sel]
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        got = arrays[PIPELINE].oindex[[0, 9], [2, 0]]
        np.testing.assert_array_equal(got, arrays[DEFAULT].oindex[[0, 9], [2, 0]])
    assert calls.count("write") == 2 and calls.count("read") == 4


def test_a_product_batch_is_one_box_and_a_gap_or_a_stray_selection_is_not():
    # chunks (4, 5) of an (8, 15) array: the 2 x 3 chunks of a full read
    def item(i, j):
        return zarr_pipeline._Item((i, j), None, (slice(0, 4, 1), slice(0, 5, 1)),
                                   (slice(4 * i, 4 * i + 4), slice(5 * j, 5 * j + 5)),
                                   True, f"c/{i}/{j}", None)

    def box(items):
        return zarr_pipeline._one_box(items, zarr_pipeline._Grid((4, 5)), (8, 15), (8, 15), ())

    items = [item(i, j) for i in range(2) for j in range(3)]
    assert box(items) == [(0, 8, 1), (0, 15, 1)]
    assert box(items[::-1]) == [(0, 8, 1), (0, 15, 1)]
    assert box(items[:-1]) is None  # a chunk missing
    # one chunk's selection disagrees with its row's: not a product, and no box
    odd = item(1, 2)
    odd.chunk_selection = (slice(0, 3, 1), slice(0, 5, 1))
    assert box(items[:-1] + [odd]) is None


# Layouts for the one-box planner: regular grids, both key encodings and
# separators, a path inside a group, shards (whose grid is the shard's).
ONE_BOX_LAYOUTS = {
    "v3-2d": dict(shape=(23, 31), chunks=(4, 5)),
    "v3-3d-dot": dict(shape=(9, 10, 11), chunks=(4, 3, 5),
                      chunk_key_encoding={"name": "default", "separator": "."}),
    "v3-v2-keys": dict(shape=(17, 12), chunks=(5, 5),
                       chunk_key_encoding={"name": "v2", "separator": "/"}),
    "v3-sharded": dict(shape=(24, 30), chunks=(3, 5), shards=(6, 10)),
    "v2-1d": dict(shape=(50,), chunks=(7,), zarr_format=2),
    "v2-2d-slash": dict(shape=(13, 14), chunks=(4, 4), zarr_format=2,
                        chunk_key_encoding={"name": "v2", "separator": "/"}),
}


def random_basic_selection(shape, rng):
    sel = []
    for n in shape:
        kind = rng.integers(0, 4)
        if kind == 0:
            sel.append(int(rng.integers(0, n)))
        elif kind == 1:
            sel.append(slice(None))
        else:
            start = int(rng.integers(0, n))
            stop = int(rng.integers(start, n + 1))
            sel.append(slice(start, stop, int(rng.integers(1, 4)) if kind == 3 else None))
    return tuple(sel)


@pytest.mark.parametrize("layout", sorted(ONE_BOX_LAYOUTS))
def test_the_engine_plans_the_boxes_python_plans(tmp_path, layout, rng, monkeypatch):
    """batch_one_box (C++) answers what _one_box (Python) answers, on the
    batches zarr-python makes for reads and writes: the same box and call
    shape, or None; and on basic selections it finds every box Python finds."""
    args = dict(ONE_BOX_LAYOUTS[layout])
    zarr_format = args.pop("zarr_format", 3)
    compared = []
    one_box_call = zarr_pipeline.ZarrCodecPipeline._one_box_call

    def both(self, batch, target, drop_axes):
        found = one_box_call(self, batch, target, drop_axes)
        items, engine = self._items(batch)
        call = engine.for_call(self._call_shape(engine, items))
        expected = (zarr_pipeline._one_box(items, call.grid, call.shape, target.shape,
                                           drop_axes)
                    if isinstance(target, np.ndarray) else None)
        if found is not None:
            assert found[1].box == [tuple(r) for r in expected]
            assert found[0].shape == call.shape
        compared.append((found is not None, expected is not None))
        return found

    monkeypatch.setattr(zarr_pipeline.ZarrCodecPipeline, "_one_box_call", both)
    with zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.strict": True}):
        group = zarr.open_group(tmp_path / "g.zarr", mode="w", zarr_format=zarr_format)
        z = group.create_array("inner/a", dtype="i4", fill_value=-1, **args)
        data = np.arange(np.prod(args["shape"]), dtype="i4").reshape(args["shape"])
        z[...] = data
        for i in range(60):
            sel = random_basic_selection(args["shape"], rng)
            if i % 3 == 2:  # a write of the selection, then the whole array
                values = rng.integers(-50, 50, np.shape(data[sel])).astype("i4")
                z[sel] = values
                data[sel] = values
                sel = ...
            np.testing.assert_array_equal(z[sel], data[sel], err_msg=str(sel))
    assert compared and all(found == expected for found, expected in compared)
    assert any(found for found, _ in compared)


@pytest.mark.parametrize("store_kind", ["local", "memory"])
def test_resize_in_place_and_masks(tmp_path, store_kind):
    """zarr-python resizes an array keeping its pipeline: reads and writes
    after the resize see the new shape, and cells a shrink left in a kept
    chunk come back when the array grows, as with zarr-python's pipeline."""
    results = {}
    for pipeline in (DEFAULT, PIPELINE):
        with zarr.config.set({"codec_pipeline.path": pipeline}):
            z = zarr.create_array(make_store(store_kind, tmp_path, pipeline), shape=(10,),
                                  chunks=(2,), shards=(4,), dtype="i2", fill_value=0)
            z[:] = np.arange(1, 11)
            z.resize((6,))
            z[:5] = 7
            z.resize((12,))
            z[10:] = 3
            mask = np.zeros(12, dtype=bool)
            mask[[1, 5, 11]] = True
            z.oindex[mask] = -1
            results[pipeline] = (z[:], z.oindex[mask], z.get_mask_selection(mask))
    for got, expected in zip(results[PIPELINE], results[DEFAULT]):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(results[PIPELINE][0],
                                  [7, -1, 7, 7, 7, -1, 7, 8, 0, 0, 3, -1])


@pytest.mark.parametrize("shards", [None, (16, 16)])
def test_scattered_writes_are_masked_engine_writes_that_lose_nothing(tmp_path, shards,
                                                                      monkeypatch):
    """Integer-array (vindex) and mask selections are written as each
    chunk's bounding box and a mask, merged by the engine under the chunk's
    lock: no read-back in Python, so a concurrent write to an unselected
    element in the box is never undone. Two threads write interleaved
    elements of the same chunks; each element is written once, so a lost
    update would stay lost."""
    reads_in_writes = []
    read_block = turbozarr.Array._read_block
    writing = threading.local()

    def spied_read_block(self, *args, **kwargs):
        if getattr(writing, "active", False):
            reads_in_writes.append(args)
        return read_block(self, *args, **kwargs)

    write = zarr_pipeline._write

    def spied_write(*args, **kwargs):
        writing.active = True
        try:
            return write(*args, **kwargs)
        finally:
            writing.active = False

    monkeypatch.setattr(turbozarr.Array, "_read_block", spied_read_block)
    monkeypatch.setattr(zarr_pipeline, "_write", spied_write)
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        z = zarr.create_array(zarr.storage.LocalStore(tmp_path / "a"), shape=(16, 16),
                              chunks=(8, 8), shards=shards, dtype="i4", fill_value=0)
        rows, cols = np.indices((16, 16))

        def writer(parity: int) -> None:
            mine = np.argwhere((rows + cols) % 2 == parity)
            for k in range(0, len(mine), 4):
                points = mine[k:k + 4]
                if k % 8:
                    z.vindex[points[:, 0], points[:, 1]] = parity + 1
                else:
                    mask = np.zeros((16, 16), dtype=bool)
                    mask[points[:, 0], points[:, 1]] = True
                    z.set_mask_selection(mask, parity + 1)

        threads = [threading.Thread(target=writer, args=(p,)) for p in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(z[...], 1 + (rows + cols) % 2)
    assert reads_in_writes == []
