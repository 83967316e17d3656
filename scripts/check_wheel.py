"""Checks an installed turbozarr wheel from outside the source tree (run by
scripts/test_wheel.sh in a fresh virtual environment holding only the wheel
and numpy): the package imports from site-packages and round-trips an array,
the `turbozarr` command (console script and `python -m turbozarr`) is the C++
tool and reads that array, `turbozarr-bench` runs, the type information is
there and the entry points are declared. Exits non-zero on the first failure."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np

import turbozarr as tz

BIN = Path(sys.executable).parent
SITE = Path(sysconfig.get_paths()["platlib"]).resolve()
PACKAGE = Path(tz.__file__).resolve().parent


def run(*args: str | Path) -> str:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (args, proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout


def check_package() -> None:
    # The installed package, with exactly this interpreter's extension module.
    assert PACKAGE == SITE / "turbozarr", (PACKAGE, SITE)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    modules = sorted(p.name for p in PACKAGE.glob("_core*.so"))
    assert modules == [f"_core{suffix}"], modules
    assert Path(tz._core.__file__).resolve() == PACKAGE / f"_core{suffix}"


# What a manylinux wheel may take from the system: auditwheel's list for the
# manylinux_2_x policies (PEP 600 leaves it to auditwheel), less the graphics
# libraries turbozarr has no use for, plus the loader itself; everything else
# it links must come from the wheel's own turbozarr.libs.
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libmvec.so.1", "libgcc_s.so.1",
                    "libstdc++.so.6", "libatomic.so.1", "libpthread.so.0", "libdl.so.2",
                    "librt.so.1", "libanl.so.1", "libnsl.so.1", "libutil.so.1",
                    "libresolv.so.2", "libexpat.so.1", "libz.so.1",
                    "ld-linux-x86-64.so.2", "linux-vdso.so.1"}


def check_linkage() -> None:
    # The wheel is tagged manylinux, and each binary in it resolves every
    # library outside that list to a copy inside the wheel.
    tags = [line.split(": ", 1)[1] for line in
            importlib.metadata.distribution("turbozarr").read_text("WHEEL").splitlines()
            if line.startswith("Tag: ")]
    assert tags and all("-manylinux_" in t for t in tags), tags
    vendored = (SITE / "turbozarr.libs").resolve()
    for binary in [Path(tz._core.__file__), PACKAGE / "_bin" / "turbozarr"]:
        for line in run("ldd", binary).splitlines():
            name, _, where = line.strip().partition(" => ")
            name = name.split(" ")[0]
            assert "not found" not in where, (binary, line)
            if name in SYSTEM_LIBRARIES or name.startswith("/"):
                continue
            resolved = Path(where.split(" (")[0]).resolve()
            assert resolved.parent == vendored, (binary, name, resolved)
    print(f"check_wheel: {tags[0]}; every library but the system's from turbozarr.libs")


def check_round_trip(path: Path) -> np.ndarray:
    data = np.arange(40 * 30, dtype="int32").reshape(40, 30) * 3 - 700
    a = tz.create(str(path), shape=data.shape, dtype="i4", chunks=(16, 16))
    a[...] = data
    assert (path / "zarr.json").is_file()
    b = tz.open(str(path))
    assert b.shape == (40, 30) and b.dtype == np.dtype("int32"), (b.shape, b.dtype)
    np.testing.assert_array_equal(b[...], data)
    np.testing.assert_array_equal(b[3:20:4, 29], data[3:20:4, 29])
    assert int(b[39, 0]) == 39 * 30 * 3 - 700
    return data


def info_fields(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines():
        label, _, value = line.partition(": ")
        fields[label.strip()] = value
    return fields


def check_cli(path: Path, data: np.ndarray) -> None:
    exe = PACKAGE / "_bin" / "turbozarr"
    assert exe.is_file() and os.access(exe, os.X_OK), exe

    help_text = run(BIN / "turbozarr", "--help")
    assert help_text.startswith("Inspect, print and copy Zarr arrays and groups"), help_text
    for command in ("info", "tree", "cat", "cp"):
        assert f"  {command} " in help_text, (command, help_text)
    assert run(sys.executable, "-m", "turbozarr", "--help") == help_text
    assert run(BIN / "turbozarr", "--version").strip() == f"turbozarr {tz.__version__}"
    # The VCF Zarr commands come with the wheel, by both routes.
    vcz_help = run(BIN / "turbozarr", "vcz", "--help")
    for command in ("index", "query", "view", "view-plink", "view-bgen"):
        assert f"  {command} " in vcz_help, (command, vcz_help)
    assert "--fill-tags" in run(sys.executable, "-m", "turbozarr", "vcz", "view", "--help")

    fields = info_fields(run(BIN / "turbozarr", "info", path))
    assert fields["Type"] == "array", fields
    assert fields["Shape"] == "[40, 30]", fields
    assert fields["Data type"] == "int32", fields
    assert fields["Chunk shape"] == "[16, 16]", fields
    assert fields["Stored chunks"] == "6 of 6", fields

    printed = run(sys.executable, "-m", "turbozarr", "cat", path, "5, 2:9:3")
    assert ast.literal_eval(printed) == data[5, 2:9:3].tolist(), printed

    # A failure is the tool's own: its message and exit status come through.
    proc = subprocess.run([BIN / "turbozarr", "info", path / "absent"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("turbozarr: "), proc


def check_vcz(directory: Path) -> None:
    """A small VCF Zarr dataset written here: the Python module and the
    command give the same BGEN, and the block iterator the same values as
    read."""
    from turbozarr import vcz

    root = tz.group(str(directory / "small.vcz"))
    for name, values, dtype in [
            ("variant_position", [5, 9], "int32"), ("variant_contig", [0, 0], "int8"),
            ("contig_id", ["c1"], "str"), ("sample_id", ["A", "B"], "str"),
            ("variant_allele", [["A", "T"], ["G", "C"]], "str"),
            ("call_genotype", [[[0, 1], [1, 1]], [[0, 0], [-1, -1]]], "int8")]:
        data = np.array(values, dtype=dtype)
        root.create_array(name, shape=data.shape, dtype=dtype, chunks=data.shape)[...] = data
    path = directory / "small.vcz"
    bgen = vcz.view_bgen(path)
    assert bgen[16:20] == b"bgen", bgen[:24]
    proc = subprocess.run([BIN / "turbozarr", "vcz", "view-bgen", path], capture_output=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stdout == bgen, proc
    blocks = list(vcz.iter_blocks(path, ["variant_index", "call_genotype"]))
    assert [b["variant_index"].tolist() for b in blocks] == [[0, 1]], blocks
    assert (blocks[0]["call_genotype"] == vcz.read(path, ["call_genotype"])["call_genotype"]).all()


def check_bench() -> None:
    text = run(BIN / "turbozarr-bench", "--help")
    assert text.startswith("usage: turbozarr-bench"), text
    assert "run" in text and "report" in text, text


def check_typing() -> None:
    assert (PACKAGE / "py.typed").is_file()
    stub = (PACKAGE / "_core.pyi").read_text()
    # Signatures the Python layer relies on, as the stub generator writes them.
    assert "def codec_table(" in stub, stub[:2000]
    assert "def complete_codec(" in stub, stub[:2000]


ENTRY_POINTS = {
    "xarray.backends": ("turbozarr.xarray_backend:TurbozarrBackendEntrypoint",
                        "turbozarr.xarray_backend", "xarray"),
    "zarr.codec_pipeline": ("turbozarr._zarr_entry_point:ZarrCodecPipeline",
                            "turbozarr.zarr_pipeline", "zarr"),
}


def check_entry_points() -> None:
    dist = importlib.metadata.distribution("turbozarr")
    declared = {(ep.group, ep.name): ep.value for ep in dist.entry_points}
    assert declared[("console_scripts", "turbozarr")] == "_turbozarr_cli:main", declared
    assert dist.version == tz.__version__, (dist.version, tz.__version__)
    assert declared[("console_scripts", "turbozarr-bench")] == "turbozarr_bench.cli:main"
    for group, (value, module, peer) in ENTRY_POINTS.items():
        assert declared.get((group, "turbozarr")) == value, (group, declared)
        # Loading needs the integration's module and its peer library, which
        # this environment (numpy and the wheel only) may lack; the
        # declaration is what the wheel itself is responsible for.
        if importlib.util.find_spec(module) and importlib.util.find_spec(peer):
            (ep,) = importlib.metadata.entry_points(group=group, name="turbozarr")
            assert isinstance(ep.load(), type), (group, value)
            print(f"check_wheel: entry point {group} loads")


def main() -> None:
    assert not (Path.cwd() / "turbozarr").exists()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.zarr"
        check_package()
        check_linkage()
        data = check_round_trip(path)
        check_cli(path, data)
        check_vcz(Path(tmp))
    check_bench()
    check_typing()
    check_entry_points()
    print(f"check_wheel: turbozarr {tz.__version__} on Python "
          f"{sys.version_info[0]}.{sys.version_info[1]}: all checks passed")


if __name__ == "__main__":
    main()
