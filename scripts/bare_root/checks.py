"""What a new user does first, run inside a bare Debian root by
scripts/bare_root/test_wheels.sh (make test-wheel-bare): the installed wheel,
its command-line tool and every layer, with nothing from the source tree's
set-up on the machine.

    python checks.py README.md [--only LAYER]

With --only, runs the checks of one layer (an environment that installed
just that layer's extra: base, zarr, xarray, dask, ome, sparse, vcz), so
that each extra is shown to carry what its layer imports; the package alone
and its numpy-only layers must bring none of the extras' libraries. Prints one line per check and exits
non-zero if any failed."""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

import turbozarr as tz

FAILED: list[str] = []
TURBOZARR = Path(sys.executable).parent / "turbozarr"


def check(name: str, fn: Callable[[Path], str | None], tmp: Path) -> None:
    work = tmp / re.sub(r"\W+", "-", name)
    work.mkdir()
    try:
        note = fn(work)
    except Exception:
        FAILED.append(name)
        print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)
        return
    print(f"ok   {name}{f' ({note})' if note else ''}", flush=True)


def run(*args: str | Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, (args, done.returncode, done.stdout, done.stderr)
    return done.stdout


def sample_array(path: Path) -> np.ndarray:
    data = (np.arange(60 * 50, dtype="int32").reshape(60, 50) * 7) - 1000
    a = tz.create(str(path), shape=data.shape, dtype="i4", chunks=(16, 16),
                  compressors=[{"name": "zstd"}])
    a[...] = data
    return data


# --- base: the package and the command-line tool ------------------------------

def check_version(work: Path) -> str:
    text = run(TURBOZARR, "--version").strip()
    assert text == f"turbozarr {tz.__version__}", text
    assert importlib.metadata.version("turbozarr") == tz.__version__
    assert run(sys.executable, "-m", "turbozarr", "--version").strip() == text
    return text


def check_cli(work: Path) -> None:
    data = sample_array(work / "a.zarr")
    info = run(TURBOZARR, "info", work / "a.zarr")
    assert "Shape             : [60, 50]" in info and ": int32" in info, info
    run(TURBOZARR, "cp", work / "a.zarr", work / "b.zarr", "--chunks", "30,25")
    b = tz.open(str(work / "b.zarr"))
    assert b.chunks == (30, 25), b.chunks
    np.testing.assert_array_equal(b[...], data)
    printed = run(TURBOZARR, "cat", work / "b.zarr", "2, :4")
    assert ast.literal_eval(printed) == data[2, :4].tolist(), printed


def check_readme(work: Path, readme: Path) -> None:
    # The README's "Python in brief", as written there, in an empty directory.
    text = readme.read_text(encoding="utf-8")
    section = text[text.index("## Python in brief"):]
    code = section[section.index("```python") + len("```python"):]
    code = code[:code.index("```")]
    os.chdir(work)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    a, c = namespace["a"], namespace["c"]
    np.testing.assert_array_equal(tz.open("copy.zarr")[...], a[...])
    assert float(tz.open("data.zarr")[9, 999]) == 1.0 and c.shape == (1000, 1000)


def check_http(work: Path) -> str:
    data = sample_array(work / "a.zarr")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1", "--directory", str(work)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port)
        a = tz.open(f"http://127.0.0.1:{port}/a.zarr")
        np.testing.assert_array_equal(a[...], data)
        np.testing.assert_array_equal(a[17:40, 3], data[17:40, 3])
    finally:
        server.terminate()
        server.wait()
    return "python -m http.server"


def check_s3(work: Path) -> str:
    import boto3  # moto[server] brings it; test_wheels.sh installs both

    data = sample_array(work / "a.zarr")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                               "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port, seconds=60)
        endpoint = f"http://127.0.0.1:{port}"
        credentials = {"aws_access_key_id": "bare", "aws_secret_access_key": "root"}
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **credentials)
        s3.create_bucket(Bucket="bare")
        for f in sorted((work / "a.zarr").rglob("*")):
            if f.is_file():
                s3.upload_file(str(f), "bare", f"a.zarr/{f.relative_to(work / 'a.zarr')}")
        os.environ.update({"AWS_ENDPOINT_URL": endpoint, "AWS_REGION": "us-east-1",
                           "AWS_ACCESS_KEY_ID": "bare", "AWS_SECRET_ACCESS_KEY": "root"})
        a = tz.open("s3://bare/a.zarr")
        np.testing.assert_array_equal(a[...], data)
    finally:
        server.terminate()
        server.wait()
    return "moto " + importlib.metadata.version("moto")


# --- the layers ----------------------------------------------------------------

def check_zarr_pipeline(work: Path) -> str:
    import zarr

    data = np.linspace(0, 1, 40 * 30, dtype="f8").reshape(40, 30)
    with zarr.config.set({"codec_pipeline.path": "turbozarr.ZarrCodecPipeline"}):
        z = zarr.create_array(str(work / "z.zarr"), shape=data.shape, dtype="f8",
                              chunks=(16, 16), shards=(32, 32))
        assert type(z._async_array.codec_pipeline).__name__ == "ZarrCodecPipeline", \
            type(z._async_array.codec_pipeline)
        z[...] = data
        np.testing.assert_array_equal(zarr.open_array(str(work / "z.zarr"))[...], data)
    # And the bytes are zarr-python's own: its default pipeline and turbozarr read them.
    np.testing.assert_array_equal(zarr.open_array(str(work / "z.zarr"))[...], data)
    np.testing.assert_array_equal(tz.open(str(work / "z.zarr"))[...], data)
    return "zarr " + zarr.__version__


def check_zarr_beside(work: Path) -> str:
    # An older zarr-python (3.1 on Python 3.11) with turbozarr installed: its
    # own pipeline works (it loads turbozarr's entry point on every array),
    # and turbozarr reads what it wrote.
    import zarr

    z = zarr.create_array(str(work / "z.zarr"), shape=(6, 5), dtype="i4", chunks=(4, 4))
    z[...] = np.arange(30, dtype="i4").reshape(6, 5)
    np.testing.assert_array_equal(zarr.open_array(str(work / "z.zarr"))[...], z[...])
    np.testing.assert_array_equal(tz.open(str(work / "z.zarr"))[...], z[...])
    return "zarr " + zarr.__version__


def check_xarray(work: Path) -> str:
    import xarray as xr

    root = tz.group(str(work / "d.zarr"))
    t = np.arange(6, dtype="f4").reshape(2, 3) / 4
    v = root.create_array("temperature", shape=t.shape, dtype="f4", chunks=(1, 3),
                          dimension_names=["time", "x"])
    v[...] = t
    v.attrs["units"] = "K"
    x = root.create_array("x", shape=(3,), dtype="i8", chunks=(3,), dimension_names=["x"])
    x[...] = np.array([10, 20, 30])
    ds = xr.open_dataset(str(work / "d.zarr"), engine="turbozarr")
    np.testing.assert_array_equal(ds["temperature"].values, t)
    assert ds["temperature"].attrs["units"] == "K"
    assert list(ds["x"].values) == [10, 20, 30]
    return "xarray " + xr.__version__


def check_dask(work: Path) -> str:
    import dask

    data = sample_array(work / "a.zarr")
    d = tz.to_dask(tz.open(str(work / "a.zarr")))
    np.testing.assert_array_equal(d.sum(axis=0).compute(), data.sum(axis=0))
    return "dask " + dask.__version__


def check_vcz(work: Path) -> None:
    from turbozarr import vcz

    # One contig, two sites, three samples, one of them missing a call.
    path = work / "small.vcz"
    root = tz.group(str(path))
    for name, values, dtype in [
            ("variant_position", [100, 250], "int32"), ("variant_contig", [0, 0], "int8"),
            ("contig_id", ["chr1"], "str"), ("sample_id", ["S1", "S2", "S3"], "str"),
            ("variant_allele", [["C", "A"], ["G", "T"]], "str"),
            ("variant_length", [1, 1], "int32"),
            ("call_genotype", [[[0, 0], [0, 1], [1, 1]], [[1, 0], [-1, -1], [0, 0]]], "int8"),
            ("call_genotype_phased", [[False] * 3, [False] * 3], "bool"),
            ("region_index", [[0, 0, 100, 250, 250, 2]], "int32")]:
        data = np.array(values, dtype=dtype)
        root.create_array(name, shape=data.shape, dtype=dtype, chunks=data.shape)[...] = data
    fmt = r"%CHROM:%POS %REF>%ALT[ %GT]\n"
    assert run(TURBOZARR, "vcz", "query", "-f", fmt, path) == \
        "chr1:100 C>A 0/0 0/1 1/1\nchr1:250 G>T 1/0 ./. 0/0\n"
    assert vcz.query(path, r"%POS[ %GT]\n", samples="S2") == "100 0/1\n250 ./.\n"
    assert vcz.query(path, r"%POS\n", include="AN=6") == "100\n"
    # All samples: no AC/AN added (bcftools adds them when -s subsets).
    lines = run(TURBOZARR, "vcz", "view", "--no-version", path).splitlines()
    assert lines[0] == "##fileformat=VCFv4.3", lines[0]
    assert lines[-3:] == [
        "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\tS2\tS3",
        "chr1\t100\t.\tC\tA\t.\tPASS\t.\tGT\t0/0\t0/1\t1/1",
        "chr1\t250\t.\tG\tT\t.\tPASS\t.\tGT\t1/0\t./.\t0/0"], lines[-3:]


def check_ome(work: Path) -> None:
    from turbozarr import ome

    pixels = np.random.default_rng(0).integers(0, 4000, (2, 4, 256, 256), dtype=np.uint16)
    ome.create(pixels, str(work / "cells.ome.zarr"), axes="czyx", levels=3,
               pixel_sizes={"z": 2.0, "y": 0.5, "x": 0.5}, chunks=(1, 1, 64, 64),
               method="mean", channel_names=["DAPI", "GFP"], ngff_version="0.5")
    image = ome.open(str(work / "cells.ome.zarr"))
    assert [lv.shape for lv in image.levels] == [(2, 4, 256, 256), (2, 4, 128, 128),
                                                  (2, 4, 64, 64)], image
    assert image.channel_names == ["DAPI", "GFP"]
    np.testing.assert_array_equal(image.read({"c": (1, 2)}, level=0), pixels[1:2])
    coarse = pixels.reshape(2, 4, 128, 2, 128, 2).astype("f8").mean(axis=(3, 5))
    got = image.read({}, level=1).astype("f8")
    assert np.abs(got - coarse).max() <= 1.0, np.abs(got - coarse).max()


def check_sparse(work: Path) -> str:
    import pandas as pd
    import scipy.sparse

    import turbozarr.sparse

    rng = np.random.default_rng(0)
    X = scipy.sparse.random(3000, 400, density=0.03, format="csr", dtype=np.int32,
                            random_state=0, data_rvs=lambda n: rng.integers(1, 4, n))
    obs = pd.DataFrame({"cell_type": pd.Categorical(rng.choice(["T", "B"], 3000))},
                       index=[f"cell-{i}" for i in range(3000)])
    turbozarr.sparse.write(str(work / "counts.zarr"), X, obs=obs, tile_cells=1000)
    ds = turbozarr.sparse.open(str(work / "counts.zarr"))
    picks = rng.permutation(3000)[:300]
    assert (ds.cells(picks) != X[picks]).nnz == 0
    assert (ds.tile(2) != X[2000:3000]).nnz == 0
    assert ds.obs["cell_type"].tolist() == obs["cell_type"].tolist()
    return "scipy " + scipy.__version__


# --- helpers -------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing answered on port {port} in {seconds} s")


# Each layer's checks and the libraries its extra brings.
LAYERS: dict[str, tuple[list[tuple[str, Callable]], list[str]]] = {
    "zarr": ([("zarr-python with turbozarr.ZarrCodecPipeline", check_zarr_pipeline)], ["zarr"]),
    "xarray": ([("xarray with engine=\"turbozarr\"", check_xarray)], ["xarray"]),
    "dask": ([("dask array over a turbozarr array", check_dask)], ["dask"]),
    "vcz": ([("turbozarr vcz view and query", check_vcz)], []),
    "ome": ([("turbozarr.ome create and open", check_ome)], []),
    "sparse": ([("turbozarr.sparse write and read", check_sparse)],
               ["scipy", "pandas", "anndata", "h5py"]),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("readme", type=Path)
    parser.add_argument("--only", choices=["base", *LAYERS])
    args = parser.parse_args()
    readme = args.readme.resolve()
    print(f"turbozarr {tz.__version__}, Python {sys.version.split()[0]}, {sys.executable}")
    assert not os.environ.get("LD_LIBRARY_PATH"), "LD_LIBRARY_PATH is set"
    tmp = Path(tempfile.mkdtemp(prefix="tz-bare-"))
    try:
        base = [("turbozarr --version", check_version),
                ("turbozarr info, cp and cat on a local array", check_cli),
                ("the README's Python example", lambda w: check_readme(w, readme)),
                ("HTTP read from a local server", check_http)]
        if args.only is None:
            base.append(("S3 read from the moto server", check_s3))
        for name, fn in base:
            check(name, fn, tmp)
        for layer, (checks, _) in LAYERS.items():
            if args.only is None or args.only == layer:
                for name, fn in checks:
                    if layer == "zarr" and sys.version_info < (3, 12):
                        print(f"--   {name} (zarr-python 3.4 needs Python 3.12)")
                        if importlib.util.find_spec("zarr"):
                            check("zarr-python's own pipeline beside turbozarr", check_zarr_beside,
                                  tmp)
                        continue
                    check(name, fn, tmp)
        # The package itself and its numpy-only layers bring none of the
        # extras' libraries (the others share some: anndata needs zarr,
        # xarray and the sparse layer both pandas).
        if args.only in ("base", "ome", "vcz"):
            present = [m for _, libraries in LAYERS.values() for m in libraries
                       if importlib.util.find_spec(m)]
            if present:
                FAILED.append(f"[{args.only}] brought {present}")
                print(f"FAIL [{args.only}] brought {present}")
    finally:
        os.chdir("/")
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + ', '.join(FAILED) if FAILED else 'all checks passed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
