"""The `turbozarr` command-line tool, run as a subprocess on arrays and groups
that zarr-python writes: exact output of info, tree and cat, exit codes and
messages of failures, and copies (format conversion, rechunking, resharding,
recompression) that zarr-python reads back bit for bit."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import numcodecs
import numpy as np
import pytest
import zarr

import turbozarr as tz

CLI = os.environ.get("TURBOZARR_CLI", "")

pytestmark = pytest.mark.skipif(
    not CLI or not os.access(CLI, os.X_OK),
    reason="TURBOZARR_CLI does not name the built turbozarr binary "
    "(`make test-python` sets it to build/cli/turbozarr)",
)


def run_cli(*args: str, expect: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def compact(value) -> str:
    """JSON as the tool prints it: sorted keys, no spaces."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def byte_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value, units = n / 1024, ["KiB", "MiB", "GiB"]
    unit = 0
    while value >= 1024 and unit < 2:
        value /= 1024
        unit += 1
    return f"{value:.1f} {units[unit]}"


def stored_files(path: Path) -> list[Path]:
    names = {"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}
    return [p for p in path.rglob("*") if p.is_file() and p.name not in names]


def bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def field_lines(fields: list[tuple[str, str]]) -> str:
    return "".join(f"{label:<18}: {value}\n" for label, value in fields)


# --- info --------------------------------------------------------------------


def test_info_v3_array(tmp_path):
    path = tmp_path / "a.zarr"
    a = zarr.create_array(
        store=path, shape=(20, 30), dtype="int32", chunks=(10, 10), fill_value=7,
        attributes={"units": "m", "scale": [1, 2]}, dimension_names=["y", "x"],
    )
    data = np.arange(600, dtype="int32").reshape(20, 30)
    data[10:, 20:] = 7  # one chunk of fill value, which zarr-python does not store
    a[:] = data
    doc = json.loads((path / "zarr.json").read_text())
    files = stored_files(path)
    nbytes = sum(p.stat().st_size for p in files)
    assert len(files) == 5

    out = run_cli("info", path).stdout
    assert out == field_lines([
        ("Type", "array"),
        ("Zarr format", "3"),
        ("Shape", "[20, 30]"),
        ("Data type", "int32"),
        ("Chunk shape", "[10, 10]"),
        ("Fill value", "7"),
        ("Codecs", compact(doc["codecs"])),
        ("Dimension names", '["y","x"]'),
        ("Attributes", '{"scale":[1,2],"units":"m"}'),
        ("Stored chunks", "5 of 6"),
        ("Stored bytes", f"{nbytes} ({byte_size(nbytes)})"),
    ])


def test_info_v3_sharded_array_inside_a_group(tmp_path):
    root = zarr.open_group(tmp_path / "g.zarr", mode="w")
    a = root.create_array("images/raw", shape=(40, 40), dtype="float32", chunks=(5, 10),
                          shards=(20, 20), fill_value=0.5)
    a[:] = np.linspace(0, 1, 1600, dtype="float32").reshape(40, 40)
    doc = json.loads((tmp_path / "g.zarr/images/raw/zarr.json").read_text())
    nbytes = sum(p.stat().st_size for p in stored_files(tmp_path / "g.zarr/images/raw"))

    expected = field_lines([
        ("Type", "array"),
        ("Zarr format", "3"),
        ("Shape", "[40, 40]"),
        ("Data type", "float32"),
        ("Chunk shape", "[5, 10]"),
        ("Shard shape", "[20, 20]"),
        ("Fill value", "0.5"),
        ("Codecs", compact(doc["codecs"])),
        ("Attributes", "{}"),
        ("Stored shards", "4 of 4"),
        ("Stored bytes", f"{nbytes} ({byte_size(nbytes)})"),
    ])
    # The same node through --path and through its directory.
    assert run_cli("info", tmp_path / "g.zarr", "--path", "images/raw").stdout == expected
    assert run_cli("info", tmp_path / "g.zarr/images/raw").stdout == expected


def test_info_and_cat_of_an_array_over_http(tmp_path):
    """An HTTP server lists no keys: info describes the array all the same,
    the count of stored chunks unknown."""
    import functools
    import http.server
    import threading

    a = zarr.create_array(store=tmp_path / "a.zarr", shape=(4, 6), dtype="int16",
                          chunks=(2, 3), shards=(4, 6))
    a[:] = np.arange(24, dtype="int16").reshape(4, 6)
    doc = json.loads((tmp_path / "a.zarr/zarr.json").read_text())

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/a.zarr"
        assert run_cli("info", url).stdout == field_lines([
            ("Type", "array"),
            ("Zarr format", "3"),
            ("Shape", "[4, 6]"),
            ("Data type", "int16"),
            ("Chunk shape", "[2, 3]"),
            ("Shard shape", "[4, 6]"),
            ("Fill value", "0"),
            ("Codecs", compact(doc["codecs"])),
            ("Attributes", "{}"),
            ("Stored shards", "? of 1 (the store cannot list keys)"),
        ])
        assert ast.literal_eval(run_cli("cat", url, "1").stdout) == [6, 7, 8, 9, 10, 11]
    finally:
        server.shutdown()
        server.server_close()


def test_info_v2_array(tmp_path):
    path = tmp_path / "v2.zarr"
    a = zarr.create_array(store=path, shape=(8,), dtype="<f8", chunks=(3,), zarr_format=2,
                          compressors=numcodecs.Zlib(level=4), fill_value=-1.5)
    a[:] = np.arange(8) / 4
    zarray = json.loads((path / ".zarray").read_text())
    nbytes = sum(p.stat().st_size for p in stored_files(path))

    # The v2 fields as stored, and the codec chain they amount to.
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}},
              {"name": "numcodecs.zlib", "configuration": {"level": 4}}]
    assert run_cli("info", path).stdout == field_lines([
        ("Type", "array"),
        ("Zarr format", "2"),
        ("Shape", "[8]"),
        ("Data type", "float64 (<f8)"),
        ("Chunk shape", "[3]"),
        ("Fill value", "-1.5"),
        ("Order", "C"),
        ("Filters", "null"),
        ("Compressor", compact(zarray["compressor"])),
        ("Codecs", compact(codecs)),
        ("Attributes", "{}"),
        ("Stored chunks", "3 of 3"),
        ("Stored bytes", f"{nbytes} ({byte_size(nbytes)})"),
    ])


def test_info_group(tmp_path):
    root = zarr.open_group(tmp_path / "g.zarr", mode="w", attributes={"title": "demo"})
    root.create_array("temperature", shape=(4, 5), dtype="float64")
    root.create_group("sub")
    assert run_cli("info", tmp_path / "g.zarr").stdout == field_lines([
        ("Type", "group"),
        ("Zarr format", "3"),
        ("Attributes", '{"title":"demo"}'),
        ("Consolidated", "no"),
        ("Members", "2"),
    ]) + "  sub          group\n  temperature  array [4, 5] float64\n"


def test_tree(tmp_path):
    root = zarr.open_group(tmp_path / "g.zarr", mode="w")
    root.create_array("labels", shape=(512, 512), dtype="int32", chunks=(256, 256))
    images = root.create_group("images")
    images.create_array("raw", shape=(10,), dtype="uint16")
    assert run_cli("tree", tmp_path / "g.zarr").stdout == (
        "/\n"
        "├── images\n"
        "│   └── raw (10,) uint16\n"
        "└── labels (512, 512) int32\n"
    )
    assert run_cli("tree", tmp_path / "g.zarr/labels").stdout == "/ (512, 512) int32\n"


# --- cat ---------------------------------------------------------------------


@pytest.fixture
def int_array(tmp_path) -> Path:
    path = tmp_path / "ints.zarr"
    a = zarr.create_array(store=path, shape=(4, 6), dtype="int16", chunks=(3, 4))
    a[:] = np.arange(24, dtype="int16").reshape(4, 6) - 5
    return path


def test_cat_whole_array(int_array):
    assert run_cli("cat", int_array).stdout == (
        "[[-5, -4, -3, -2, -1, 0],\n"
        " [1, 2, 3, 4, 5, 6],\n"
        " [7, 8, 9, 10, 11, 12],\n"
        " [13, 14, 15, 16, 17, 18]]\n"
    )


@pytest.mark.parametrize(
    "selection, expected",
    [
        ("1", "[1, 2, 3, 4, 5, 6]\n"),
        ("-1, -2", "17\n"),
        ("1:3, ::2", "[[1, 3, 5],\n [7, 9, 11]]\n"),
        (":, 4", "[-1, 5, 11, 17]\n"),
        ("..., 5", "[0, 6, 12, 18]\n"),
        ("-2:, -3:", "[[10, 11, 12],\n [16, 17, 18]]\n"),
        ("3:1", "[]\n"),
        ("0:100:3, 1::4", "[[-4, 0],\n [14, 18]]\n"),
    ],
)
def test_cat_selection(int_array, selection, expected):
    assert run_cli("cat", int_array, selection).stdout == expected


def test_cat_negative_index_as_first_argument(int_array):
    # "-1" looks like an option; it must still be taken as the selection.
    assert run_cli("cat", int_array, "-1").stdout == "[13, 14, 15, 16, 17, 18]\n"


def test_cat_floats_round_trip(tmp_path):
    rng = np.random.default_rng(7)
    values = rng.standard_normal((5, 7)) * 10.0 ** rng.integers(-30, 30, size=(5, 7))
    values[0, :4] = [0.1, -0.0, 1e16, 1e-5]
    a = zarr.create_array(store=tmp_path / "f.zarr", shape=values.shape, dtype="float64",
                          chunks=(2, 3))
    a[:] = values
    out = run_cli("cat", tmp_path / "f.zarr").stdout
    assert out.startswith("[[0.1, -0.0, 1e+16, 1e-05, ")
    printed = np.array(ast.literal_eval(out), dtype="float64")
    assert bits_equal(printed, values)
    # Every value is printed as Python's repr prints it.
    assert out.replace("\n", "") == "[" + ", ".join(
        "[" + ", ".join(repr(float(v)) for v in row) + "]" for row in values) + "]"


def test_cat_float32_and_special_values(tmp_path):
    a = zarr.create_array(store=tmp_path / "f4.zarr", shape=(6,), dtype="float32", chunks=(4,))
    a[:] = np.array([0.1, 1 / 3, np.nan, np.inf, -np.inf, 3e38], dtype="float32")
    assert run_cli("cat", tmp_path / "f4.zarr").stdout == (
        "[0.1, 0.33333334, nan, inf, -inf, 3e+38]\n")


def test_cat_strings_bools_and_3d(tmp_path):
    s = zarr.create_array(store=tmp_path / "s.zarr", shape=(3,), dtype=str, chunks=(2,))
    s[:] = np.array(['plain', 'quote " and \\', 'naïve ☃'])
    assert run_cli("cat", tmp_path / "s.zarr").stdout == (
        '["plain", "quote \\" and \\\\", "naïve ☃"]\n')

    b = zarr.create_array(store=tmp_path / "b.zarr", shape=(2, 2, 2), dtype=bool, chunks=(1, 2, 2))
    b[:] = np.array([True, False, False, True, True, True, False, False]).reshape(2, 2, 2)
    assert run_cli("cat", tmp_path / "b.zarr").stdout == (
        "[[[True, False],\n"
        "  [False, True]],\n"
        "\n"
        " [[True, True],\n"
        "  [False, False]]]\n"
    )


def test_cat_reads_fill_value_where_nothing_is_stored(tmp_path):
    a = zarr.create_array(store=tmp_path / "e.zarr", shape=(5,), dtype="uint8", chunks=(2,),
                          fill_value=9)
    a[0] = 1
    assert run_cli("cat", tmp_path / "e.zarr").stdout == "[1, 9, 9, 9, 9]\n"


# --- errors ------------------------------------------------------------------


def test_errors_and_exit_codes(tmp_path, int_array):
    missing = run_cli("info", tmp_path / "nothing-here", expect=1)
    assert missing.stdout == ""
    assert missing.stderr.startswith("turbozarr: no Zarr array or group at ")

    bad_index = run_cli("cat", int_array, "9, 0", expect=2)
    assert bad_index.stderr == (
        "turbozarr: index 9 is out of bounds for dimension 0 with size 4\n")

    bad_step = run_cli("cat", int_array, "::-1", expect=2)
    assert "negative steps are not supported" in bad_step.stderr

    usage = run_cli("info", expect=2)
    assert usage.stderr.startswith("turbozarr: ")

    unknown = run_cli("frobnicate", expect=2)
    assert unknown.stderr.startswith("turbozarr: ")

    bad_chunks = run_cli("cp", int_array, tmp_path / "x.zarr", "--chunks", "2,0", expect=2)
    assert bad_chunks.stderr == (
        "turbozarr: invalid --chunks '2,0': '0' is not a positive integer\n")

    run_cli("cp", int_array, tmp_path / "copy.zarr")
    again = run_cli("cp", int_array, tmp_path / "copy.zarr", expect=1)
    assert again.stderr.startswith("turbozarr: ")
    assert again.stderr.endswith("pass --overwrite to replace it\n")
    run_cli("cp", int_array, tmp_path / "copy.zarr", "--overwrite")


# --- fsck --------------------------------------------------------------------

def _ended_pid() -> int:
    """A pid no running process has."""
    pid = 4_000_000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid += 1


def test_fsck_lists_and_repairs_what_killed_writes_left(tmp_path, int_array):
    store = tmp_path / "s.zarr"
    run_cli("cp", int_array, store)
    chunk_dir = next(p.parent for p in stored_files(store))
    ended = chunk_dir / f".tmp-{_ended_pid():x}-3-abc"
    running = chunk_dir / f".tmp-{os.getpid():x}-4-abc"
    ended.write_bytes(b"half a chunk")
    running.write_bytes(b"a chunk being written")
    rel = lambda p: str(p.relative_to(store))  # noqa: E731

    found = run_cli("fsck", store, expect=1)
    assert found.stdout == (f"ended write {rel(ended)}\nrunning write {rel(running)}\n"
                            f"{store}: 1 temporary file of ended writes, "
                            f"1 of writes still running\n")
    assert found.stderr == (f"turbozarr: {store}: 1 temporary file of ended writes; "
                            "run with --repair to remove them\n")
    assert ended.exists()

    repaired = run_cli("fsck", store, "--repair")
    assert repaired.stdout == (f"removed {rel(ended)}\nrunning write {rel(running)}\n"
                               f"{store}: 1 temporary file of ended writes removed, "
                               f"1 of writes still running\n")
    assert not ended.exists() and running.exists()
    clean = run_cli("fsck", store)
    assert clean.stdout.endswith("0 temporary files of ended writes, 1 of writes still running\n")
    assert bits_equal(zarr.open_array(str(store))[...], zarr.open_array(str(int_array))[...])


def test_fsck_of_zip_archives(tmp_path, int_array):
    archive = tmp_path / "a.zip"
    run_cli("cp", int_array, archive)
    ok = run_cli("fsck", archive)
    assert ok.stdout.startswith(f"{archive}: a complete zip archive of ")
    # An archive whose writer was killed before its central directory.
    data = archive.read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(data[: data.rfind(b"PK\x01\x02")])
    bad = run_cli("fsck", cut, expect=1)
    assert "ended before writing its central directory" in bad.stdout
    entries = len(tz.open_store(str(archive)).list(""))
    assert f"{entries} entries whole in their local headers" in bad.stdout
    assert "run with --repair" in bad.stderr
    assert cut.read_bytes() == data[: data.rfind(b"PK\x01\x02")], "a check changes nothing"
    repaired = run_cli("fsck", cut, "--repair")
    assert f"repaired: a central directory of {entries} entries written" in repaired.stdout
    assert bits_equal(tz.open_array(str(cut))[...], tz.open_array(str(int_array))[...])
    assert run_cli("fsck", cut).stdout.startswith(f"{cut}: a complete zip archive of ")
    neither = run_cli("fsck", tmp_path / "nothing", expect=2)
    assert neither.stderr.endswith("is neither\n")


def test_help_and_version():
    assert "cp" in run_cli("--help").stdout
    # One version everywhere: the file VERSION, the module and the tool.
    version = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert tz.__version__ == version
    assert run_cli("--version").stdout.strip() == f"turbozarr {version}"


# --- cp ----------------------------------------------------------------------


def test_cp_v2_to_v3_rechunk_reshard_recompress(tmp_path):
    rng = np.random.default_rng(3)
    # Random bit patterns: NaN payloads, infinities, subnormals and -0.0 too.
    values = rng.integers(0, 2**63, size=(50, 37), dtype="uint64").view("float64")
    src = zarr.create_array(store=tmp_path / "src.zarr", shape=values.shape, dtype="<f8",
                            chunks=(10, 10), zarr_format=2, fill_value=0.0,
                            attributes={"origin": "test", "n": 3})
    src[:] = values
    src[40:, :] = 0.0  # fill value: these chunks are not stored

    dst_path = tmp_path / "dst.zarr"
    run_cli("cp", tmp_path / "src.zarr", dst_path, "--zarr-format", "3",
            "--chunks", "5,8", "--shards", "10,16", "--codec", "zstd:5", "--memory", "64K")

    doc = json.loads((dst_path / "zarr.json").read_text())
    assert doc["zarr_format"] == 3
    assert doc["chunk_grid"]["configuration"]["chunk_shape"] == [10, 16]
    sharding = doc["codecs"][0]
    assert sharding["name"] == "sharding_indexed"
    assert sharding["configuration"]["chunk_shape"] == [5, 8]
    inner = sharding["configuration"]["codecs"]
    assert inner[-2]["name"] == "zstd" and inner[-2]["configuration"]["level"] == 5
    assert inner[-1] == {"name": "crc32c"}  # a converted copy is checked
    assert doc["attributes"] == {"origin": "test", "n": 3}

    dst = zarr.open_array(dst_path, mode="r")
    assert dst.metadata.zarr_format == 3
    assert bits_equal(dst[:], src[:])
    # Shards that only hold fill value were skipped.
    assert not (dst_path / "c" / "4" / "0").exists()
    assert (dst_path / "c" / "3" / "0").exists()


def test_cp_gives_converted_copies_a_checksum_unless_told(tmp_path):
    values = np.arange(40 * 30, dtype="i4").reshape(40, 30)
    src = zarr.create_array(store=tmp_path / "src.zarr", shape=values.shape, dtype="i4",
                            chunks=(10, 10), zarr_format=2)
    src[:] = values

    def compressor(name: str) -> dict:
        return json.loads((tmp_path / name / ".zarray").read_text())["compressor"]

    def codecs(name: str) -> list:
        return json.loads((tmp_path / name / "zarr.json").read_text())["codecs"]

    run_cli("cp", tmp_path / "src.zarr", tmp_path / "same.zarr")
    assert compressor("same.zarr") == compressor("src.zarr")  # a plain copy: as it was
    assert "checksum" not in compressor("same.zarr")
    run_cli("cp", tmp_path / "src.zarr", tmp_path / "rechunked.zarr", "--chunks", "20,15")
    assert compressor("rechunked.zarr")["checksum"] is True
    run_cli("cp", tmp_path / "src.zarr", tmp_path / "told.zarr", "--chunks", "20,15",
            "--no-checksum")
    assert "checksum" not in compressor("told.zarr")
    run_cli("cp", tmp_path / "src.zarr", tmp_path / "v3.zarr", "--zarr-format", "3")
    assert codecs("v3.zarr")[-1] == {"name": "crc32c"}
    run_cli("cp", tmp_path / "src.zarr", tmp_path / "whole.zarr", "--zarr-format", "3",
            "--codecs", '[{"name":"bytes","configuration":{"endian":"little"}}]')
    assert [c["name"] for c in codecs("whole.zarr")] == ["bytes"]
    run_cli("cp", tmp_path / "same.zarr", tmp_path / "asked.zarr", "--checksum")
    assert compressor("asked.zarr")["checksum"] is True
    run_cli("cp", tmp_path / "src.zarr", tmp_path / "x.zarr", "--checksum", "--no-checksum",
            expect=2)
    for name in ("rechunked.zarr", "v3.zarr", "asked.zarr"):
        assert bits_equal(zarr.open_array(tmp_path / name, mode="r")[:], values)

    # A damaged chunk of the checked copy is an error naming it.
    chunk = tmp_path / "v3.zarr" / "c" / "1" / "2"
    raw = bytearray(chunk.read_bytes())
    raw[len(raw) // 2] ^= 0x40
    chunk.write_bytes(bytes(raw))
    failed = run_cli("cat", tmp_path / "v3.zarr", expect=1)
    assert "c/1/2" in failed.stderr and "crc32c" in failed.stderr


@pytest.mark.parametrize("options,how", [
    (("--codec", "gzip:1"), "unit by unit"),
    (("--chunks", "10,10", "--shards", "20,40"), "unit by unit"),
    (("--chunks", "5,5", "--shards", "none"), "in blocks"),
    (("--chunks", "8,8"), "in blocks"),
])
def test_cp_copies_unit_by_unit_where_the_layouts_allow(tmp_path, options, how):
    values = np.random.default_rng(9).integers(-99, 99, size=(45, 37), dtype="int32")
    values[20:30] = 0
    src = zarr.create_array(store=tmp_path / "src.zarr", shape=values.shape, dtype="i4",
                            chunks=(10, 10), fill_value=0)
    src[:] = values
    done = run_cli("cp", tmp_path / "src.zarr", tmp_path / "dst.zarr", "-v", *options)
    assert how in done.stderr
    np.testing.assert_array_equal(zarr.open_array(tmp_path / "dst.zarr", mode="r")[:], values)


def test_cp_v3_to_v2_and_back_keeps_values(tmp_path):
    rng = np.random.default_rng(4)
    values = rng.integers(-(2**31), 2**31, size=(33, 20), dtype="int32")
    src = zarr.create_array(store=tmp_path / "v3.zarr", shape=values.shape, dtype="int32",
                            chunks=(4, 5), shards=(8, 20), fill_value=-1,
                            dimension_names=["a", "b"])
    src[:] = values
    run_cli("cp", tmp_path / "v3.zarr", tmp_path / "v2.zarr", "--zarr-format", "2",
            "--codec", "blosc:zstd:3")
    v2 = zarr.open_array(tmp_path / "v2.zarr", mode="r")
    assert v2.metadata.zarr_format == 2
    assert v2.chunks == (4, 5)
    assert v2.fill_value == -1
    assert v2.metadata.compressor.get_config()["id"] == "blosc"
    assert bits_equal(v2[:], values)

    run_cli("cp", tmp_path / "v2.zarr", tmp_path / "back.zarr", "--zarr-format", "3",
            "--chunks", "11,20", "--codec", "gzip:1", "--codec", "crc32c")
    back = zarr.open_array(tmp_path / "back.zarr", mode="r")
    assert back.chunks == (11, 20)
    assert [c.to_dict()["name"] for c in back.compressors] == ["gzip", "crc32c"]
    assert bits_equal(back[:], values)


def test_cp_group_recursively(tmp_path):
    root = zarr.open_group(tmp_path / "g.zarr", mode="w", zarr_format=2,
                           attributes={"title": "t"})
    temps = root.create_array("temps", shape=(6, 6), dtype="float32", chunks=(3, 3))
    temps[:] = np.arange(36, dtype="float32").reshape(6, 6) / 7
    names = root.create_group("meta").create_array("names", shape=(3,), dtype=str, chunks=(2,))
    names[:] = np.array(["x", "", "zz"])

    run_cli("cp", tmp_path / "g.zarr", tmp_path / "g3.zarr", "--zarr-format", "3")
    copy = zarr.open_group(tmp_path / "g3.zarr", mode="r")
    assert copy.metadata.zarr_format == 3
    assert dict(copy.attrs) == {"title": "t"}
    assert bits_equal(copy["temps"][:], temps[:])
    assert list(copy["meta/names"][:]) == ["x", "", "zz"]
    assert run_cli("tree", tmp_path / "g3.zarr").stdout == (
        "/\n├── meta\n│   └── names (3,) string\n└── temps (6, 6) float32\n")


def test_cp_progress_bar_on_request(tmp_path, int_array):
    quiet = run_cli("cp", int_array, tmp_path / "q.zarr")
    assert quiet.stderr == ""  # stderr is not a terminal: no bar
    shown = run_cli("cp", int_array, tmp_path / "p.zarr", "--progress")
    assert "100%" in shown.stderr and shown.stderr.endswith("\n")


def test_cp_into_a_path_creates_parent_groups(tmp_path, int_array):
    run_cli("cp", int_array, tmp_path / "h.zarr", "--dst-path", "a/b/ints")
    group = zarr.open_group(tmp_path / "h.zarr", mode="r")
    assert bits_equal(group["a/b/ints"][:], zarr.open_array(int_array, mode="r")[:])
    assert json.loads((tmp_path / "h.zarr/a/zarr.json").read_text())["node_type"] == "group"
    assert run_cli("tree", tmp_path / "h.zarr").stdout == (
        "/\n└── a\n    └── b\n        └── ints (4, 6) int16\n")
    # An array is in the way.
    blocked = run_cli("cp", int_array, tmp_path / "h.zarr", "--dst-path", "a/b/ints/x",
                      expect=2)
    assert blocked.stderr.endswith("'a/b/ints' is an array\n")


def test_cat_and_cp_scalar_array(tmp_path):
    a = zarr.create_array(store=tmp_path / "s.zarr", shape=(), dtype="complex128")
    a[()] = 1.5 - 2j
    assert run_cli("cat", tmp_path / "s.zarr").stdout == "(1.5-2j)\n"
    run_cli("cp", tmp_path / "s.zarr", tmp_path / "s2.zarr", "--zarr-format", "2")
    assert zarr.open_array(tmp_path / "s2.zarr", mode="r")[()] == 1.5 - 2j
