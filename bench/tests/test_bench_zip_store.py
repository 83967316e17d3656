"""The zip store axis: fixtures packed into an archive, sources and targets
handed to the driver as archive paths."""

from __future__ import annotations

import zipfile

import numpy as np

from turbozarr_bench import ops
from turbozarr_bench.adapters.base import Driver


def _fixture(tmp_path):
    root = tmp_path / "tiny" / "data.zarr"
    (root / "c").mkdir(parents=True)
    (root / "zarr.json").write_text('{"zarr_format": 3}')
    (root / "c" / "0").write_bytes(bytes(range(256)))
    (root / "c" / "1").write_bytes(b"")
    return root


def test_packed_zip_holds_every_key_at_the_root_stored_and_is_made_once(tmp_path):
    root = _fixture(tmp_path)
    packed = ops.packed_zip(root)
    assert packed == root.with_suffix(".zip")
    with zipfile.ZipFile(packed) as zf:
        assert zf.testzip() is None
        assert zf.namelist() == ["c/0", "c/1", "zarr.json"]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        assert zf.read("c/0") == bytes(range(256))
        assert zf.read("zarr.json") == b'{"zarr_format": 3}'
    stamp = packed.stat().st_mtime_ns
    assert ops.packed_zip(root) == packed and packed.stat().st_mtime_ns == stamp
    assert not list(packed.parent.glob(".*.tmp")), "no temporary file left behind"


class _ZipDriver(Driver):
    def zip_source(self, path):
        self.source = path
        return zipfile.ZipFile(path)

    def open(self, source):
        return source

    def read_all(self, handle):
        return np.frombuffer(handle.read("c/0"), dtype=np.uint8)

    def zip_target(self, path):
        self.targets.append(path)
        return path

    def create(self, target):
        return target

    def write_all(self, handle, data):
        with zipfile.ZipFile(handle, "w") as zf:
            zf.writestr("c/0", data.tobytes())


def _case(tmp_path, op):
    root = _fixture(tmp_path)
    return {"op": op, "store": "zip", "cache": "warm", "nthreads": 1,
            "workdir": str(tmp_path / "work"),
            "fixture": {"path": str(root), "stamp": {"nbytes": 256},
                        "spec": {"shape": [256], "chunks": [256], "dtype": "uint8",
                                 "pixels": "photo", "seed": 0}}}


def test_reads_go_to_the_packed_archive(tmp_path):
    case = _case(tmp_path, "read_full")
    driver = _ZipDriver(case)
    m = ops.build(case, driver)
    assert driver.source == str(tmp_path / "tiny" / "data.zip")
    assert [str(p) for p in m.files] == [driver.source], "cache state follows the archive"
    assert m.run().tolist() == list(range(256))


def test_writes_go_to_a_fresh_archive_in_the_work_directory(tmp_path):
    case = _case(tmp_path, "round_trip")
    (tmp_path / "work").mkdir()
    driver = _ZipDriver(case)
    driver.targets = []
    m = ops.build(case, driver)
    out = tmp_path / "work" / "output.zip"
    assert m.output == out
    for _ in range(2):  # every run starts from no archive
        out.write_bytes(b"stale")
        m.setup()
        assert not out.exists()
        m.run()
        with zipfile.ZipFile(out) as zf:
            assert zf.read("c/0") == bytes(range(256))
    assert driver.targets == [str(out), str(out)]
