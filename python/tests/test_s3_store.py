"""S3 stores opened with keyword options, against moto's S3 server on
loopback.

moto runs as the C++ tests run it (src/testing/moto_server.h): a child
process on a free port, checking every request's SigV4 signature as an IAM
user made by its first three (unchecked) requests. Arrays are written and
read with the options given as keywords, from a profile in AWS shared files,
and with virtual-hosted addressing, and an array zarr-python wrote, put in the
bucket by boto3, is read; options beat the environment; wrong
values and options given for other URLs raise. Children started with each
multiprocessing start method after the parent used S3 read and write the
same array, and a deadline bounds a request to a server that never answers.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import boto3
import numpy as np
import pytest
from botocore.config import Config

import turbozarr as tz
from conftest import METHODS, run_in_pool, run_in_process
from support_records import BOTO3

# Nagle's algorithm off on moto's connections, as in moto_server.cc: werkzeug
# writes headers and body apart, and the body would wait for a delayed ACK.
_BOOTSTRAP = (
    "import socketserver, sys\n"
    "socketserver.StreamRequestHandler.disable_nagle_algorithm = True\n"
    "from moto.server import main\n"
    "main(sys.argv[1:])\n"
)

_AWS_VARIABLES = (
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
    "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE",
    "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE")


@dataclass
class Moto:
    port: int
    key: str
    secret: str
    bucket: str
    s3: object  # a boto3 S3 client, to look at what turbozarr wrote
    log: Path  # the server's log: a line per request, with its path

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def options(self, **overrides) -> dict:
        """Keyword options that reach moto as its IAM user, with test timeouts."""
        o = dict(endpoint_url=self.endpoint, region="us-east-1", access_key_id=self.key,
                 secret_access_key=self.secret, connect_timeout=2.0, idle_timeout=20.0,
                 max_retries=2)
        o.update(overrides)
        return o

    def requested(self, method: str, path: str) -> bool:
        """Whether the log shows a request for exactly this path."""
        return f'"{method} {path} HTTP/1.1"' in self.log.read_text(errors="replace")

    def objects(self, prefix: str) -> list[str]:
        r = self.s3.list_objects_v2(Bucket=self.bucket, Prefix=prefix)
        return sorted(o["Key"] for o in r.get("Contents", []))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def moto(tmp_path_factory) -> Moto:
    port = _free_port()
    log_path = tmp_path_factory.mktemp("moto") / "moto.log"
    env = {k: v for k, v in os.environ.items()
           if k not in ("MOTO_PORT", "S3_UPLOAD_PART_MIN_SIZE")}
    env["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", _BOOTSTRAP, "-H", "127.0.0.1", "-p", str(port)],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60  # importing moto takes seconds
        while not _answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("moto's server did not come up (requirements-dev.txt has "
                            "moto[s3]): " + log_path.read_text(errors="replace"))
            time.sleep(0.05)
        endpoint = f"http://127.0.0.1:{port}"
        config = Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"})
        # The three unchecked requests: an IAM user with a key and s3:*.
        iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
                           aws_secret_access_key="unchecked", config=config)
        iam.create_user(UserName="turbozarr-test")
        key = iam.create_access_key(UserName="turbozarr-test")["AccessKey"]
        iam.put_user_policy(
            UserName="turbozarr-test", PolicyName="s3-all",
            PolicyDocument='{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
                           '"Action":"s3:*","Resource":"*"}]}')
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id=key["AccessKeyId"],
                          aws_secret_access_key=key["SecretAccessKey"], config=config)
        bucket = f"tz-py-{os.getpid()}"
        s3.create_bucket(Bucket=bucket)
        yield Moto(port, key["AccessKeyId"], key["SecretAccessKey"], bucket, s3, log_path)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(autouse=True)
def aws_files(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """No AWS settings but the test's own: every variable unset, and the
    shared files pointed at (absent) files of the test."""
    for name in _AWS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    credentials, config = tmp_path / "credentials", tmp_path / "config"
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    return credentials, config


def write_and_read(store, rng) -> np.ndarray:
    data = rng.integers(0, 1 << 30, size=(30, 20), dtype=np.int64)
    a = tz.create_array(store, shape=data.shape, chunks=(10, 10), dtype="i8")
    a[...] = data
    np.testing.assert_array_equal(tz.open_array(store)[...], data)
    return data


def test_keyword_options_write_and_read_an_array(moto, rng, supports):
    store = tz.open_store(f"s3://{moto.bucket}/kw/a.zarr",
                          **moto.options(addressing="path", max_concurrency=4,
                                         request_timeout=60.0))
    assert store.writable
    assert store.describe() == f"s3://{moto.bucket}/kw/a.zarr"
    data = write_and_read(store, rng)
    keys = moto.objects("kw/a.zarr/")
    assert "kw/a.zarr/zarr.json" in keys
    assert len([k for k in keys if k.startswith("kw/a.zarr/c/")]) == 6
    # What moto holds is what was written: read it back through boto3.
    raw = moto.s3.get_object(Bucket=moto.bucket, Key="kw/a.zarr/c/2/1")["Body"].read()
    assert raw == store.get("c/2/1")
    assert moto.requested("PUT", f"/{moto.bucket}/kw/a.zarr/c/2/1")
    np.testing.assert_array_equal(tz.open_array(store)[20:30, 10:20], data[20:30, 10:20])
    supports("store", "s3", "write", peer=BOTO3)


def test_reads_an_array_another_client_put_in_the_bucket(moto, rng, tmp_path, supports):
    # zarr-python writes a local array; boto3 uploads its files as they are.
    zarr = pytest.importorskip("zarr")
    data = rng.standard_normal((30, 20)).astype("<f4")
    local = tmp_path / "z.zarr"
    z = zarr.create_array(str(local), shape=data.shape, chunks=(10, 10), dtype="<f4",
                          fill_value=-1.0)
    z[:20] = data[:20]  # the last chunk row stays unwritten: the fill value
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        moto.s3.put_object(Bucket=moto.bucket, Key=f"up/z.zarr/{path.relative_to(local)}",
                           Body=path.read_bytes())
    a = tz.open_array(tz.open_store(f"s3://{moto.bucket}/up/z.zarr",
                                    **moto.options(addressing="path")))
    expected = np.concatenate([data[:20], np.full((10, 20), -1.0, dtype="<f4")])
    np.testing.assert_array_equal(a[...], expected)
    np.testing.assert_array_equal(a[3:27:4, ::-3], expected[3:27:4, ::-3])
    assert moto.requested("GET", f"/{moto.bucket}/up/z.zarr/c/1/1")
    supports("store", "s3", "read", peer=BOTO3)


def test_verify_reads_every_chunk_of_a_bucket(moto, rng):
    # S3 lists its keys: stray ones are seen, and chunks are fetched in
    # windows of batched reads.
    store = tz.open_store(f"s3://{moto.bucket}/verified.zarr", **moto.options())
    data = rng.integers(0, 1 << 30, size=(30, 20), dtype=np.int64)
    tz.create_array(store, shape=data.shape, chunks=(10, 10), dtype="i8",
                    checksum=True)[...] = data
    assert tz.verify(store)["damaged"] is False
    key = "verified.zarr/c/1/0"
    raw = bytearray(moto.s3.get_object(Bucket=moto.bucket, Key=key)["Body"].read())
    raw[7] ^= 1
    moto.s3.put_object(Bucket=moto.bucket, Key=key, Body=bytes(raw))
    moto.s3.put_object(Bucket=moto.bucket, Key="verified.zarr/c/9/9", Body=b"x")
    report = tz.verify(store)
    array, = report["arrays"]
    assert array["chunks"] == 6
    assert [f["key"] for f in array["findings"]] == ["c/9/9", "c/1/0"]
    assert "crc32c: checksum mismatch" in array["findings"][1]["message"]
    assert report["notes"] == []


def test_virtual_hosted_addressing(moto, rng):
    # "<bucket>.localhost" resolves to loopback, and moto takes the bucket
    # from the Host header.
    store = tz.open_store(f"s3://{moto.bucket}/virtual",
                          **moto.options(endpoint_url=f"http://localhost:{moto.port}",
                                         addressing="virtual"))
    store.set("k", b"through bucket.localhost")
    assert store.get("k") == b"through bucket.localhost"
    assert moto.objects("virtual/") == ["virtual/k"]
    assert moto.requested("PUT", "/virtual/k"), "the bucket went in the host name"
    assert not moto.requested("PUT", f"/{moto.bucket}/virtual/k")


def test_profile_from_the_shared_files(moto, aws_files, rng, monkeypatch):
    credentials, config = aws_files
    credentials.write_text(
        f"[moto]\naws_access_key_id = {moto.key}\naws_secret_access_key = {moto.secret}\n"
        f"[wrong]\naws_access_key_id = {moto.key}\naws_secret_access_key = nope\n")
    config.write_text(
        f"[profile moto]\nregion = us-east-1\ns3 =\n  endpoint_url = {moto.endpoint}\n"
        f"  addressing_style = path\n"
        f"[profile wrong]\nendpoint_url = {moto.endpoint}\n")
    url = f"s3://{moto.bucket}/profile"
    store = tz.open_store(url, profile="moto", max_retries=1)
    write_and_read(store, rng)
    assert "profile/zarr.json" in moto.objects("profile/")

    # The same through AWS_PROFILE, with no options at all (as tz.open does).
    monkeypatch.setenv("AWS_PROFILE", "moto")
    assert tz.open_store(url).get("zarr.json") == store.get("zarr.json")
    assert tz.open_array(url).shape == (30, 20)

    # A profile with the wrong secret: moto refuses its signature.
    with pytest.raises(tz.StoreIOError, match="403"):
        tz.open_store(url, profile="wrong", max_retries=0).get("zarr.json")
    with pytest.raises(tz.InvalidArgumentError, match="'absent'"):
        tz.open_store(url, profile="absent")


def test_a_malformed_profile_file_names_file_and_line(aws_files):
    credentials, _ = aws_files
    credentials.write_text("[default]\naws_access_key_id AKID\n")
    with pytest.raises(tz.InvalidArgumentError, match=re.escape(f"{credentials}:2:")):
        tz.open_store("s3://bucket/x")


def test_options_win_over_the_environment(moto, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", moto.key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wrong secret")
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto.endpoint)
    url = f"s3://{moto.bucket}/env"
    with pytest.raises(tz.StoreIOError, match="403"):
        tz.open_store(url, max_retries=0).set("k", b"v")
    store = tz.open_store(url, secret_access_key=moto.secret, access_key_id=moto.key)
    store.set("k", b"v")
    assert moto.objects("env/") == ["env/k"]
    # Nothing listens on port 1: the endpoint option beats AWS_ENDPOINT_URL.
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", moto.secret)
    with pytest.raises(tz.StoreIOError, match="127.0.0.1:1"):
        tz.open_store(url, endpoint_url="http://127.0.0.1:1", max_retries=0).get("k")


def test_read_only_s3_store(moto):
    store = tz.open_store(f"s3://{moto.bucket}/ro", read_only=True, **moto.options())
    assert not store.writable
    with pytest.raises(tz.TurbozarrError):
        store.set("k", b"v")
    assert moto.objects("ro/") == []


def test_s3_options_for_other_urls_raise_value_error(tmp_path):
    for url in ("memory://", str(tmp_path / "d.zarr"), f"zip://{tmp_path}/a.zip",
                "https://host/x"):
        with pytest.raises(ValueError, match="region") as e:
            tz.open_store(url, region="us-east-1")
        assert url in str(e.value)
    with pytest.raises(ValueError, match="endpoint_url, profile"):
        tz.open_store("memory://", endpoint_url="http://h", profile="p")


def test_bad_s3_option_values():
    url = "s3://bucket/x"
    with pytest.raises(ValueError, match="addressing"):
        tz.open_store(url, addressing="sideways")
    with pytest.raises(ValueError, match="connect_timeout"):
        tz.open_store(url, connect_timeout=0)
    with pytest.raises(ValueError, match="request_timeout"):
        tz.open_store(url, request_timeout=-1.0)
    with pytest.raises(TypeError, match="max_concurrency"):
        tz.open_store(url, max_concurrency=2.5)
    with pytest.raises(TypeError, match="region"):
        tz.open_store(url, region=5)
    # Checked by the store itself.
    with pytest.raises(tz.InvalidArgumentError, match="max_concurrency"):
        tz.open_store(url, max_concurrency=0)
    with pytest.raises(tz.InvalidArgumentError, match="needs its secret"):
        tz.open_store(url, access_key_id="AKID")


def test_deadline_bounds_a_request_to_a_server_that_never_answers():
    # A listener that accepts connections and reads, but never answers: only
    # the deadline (well under the idle timeout) ends the request.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    held = []

    def accept_forever():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)

    import threading
    threading.Thread(target=accept_forever, daemon=True).start()
    try:
        store = tz.open_store("s3://bucket/x", endpoint_url=f"http://127.0.0.1:{port}",
                              access_key_id="a", secret_access_key="b",
                              idle_timeout=30.0, deadline=0.4)
        start = time.monotonic()
        with pytest.raises(OSError, match=r"bucket/x/k.*no answer within the deadline "
                                          r"of 400 ms"):
            store.get("k")
        assert time.monotonic() - start < 3.0
    finally:
        listener.close()
        for conn in held:
            conn.close()
    with pytest.raises(ValueError, match="deadline"):
        tz.open_store("s3://bucket/x", deadline=-1.0)


def _fork_values(seed: int) -> np.ndarray:
    return np.arange(60 * 50, dtype=np.int32).reshape(60, 50) * 3 + seed


def _child_reads_and_writes_s3(url: str, options: dict, seed: int) -> bool:
    """Reads `_fork_values(seed)` from the S3 array at `url` and writes
    `_fork_values(seed + 1)` there, on connections of its own."""
    a = tz.open_array(tz.open_store(url, **options), mode="r+")
    np.testing.assert_array_equal(a[...], _fork_values(seed))
    a[...] = _fork_values(seed + 1)
    a[7:41, 3:29] = _fork_values(seed + 1)[7:41, 3:29]  # partial chunks: updates
    np.testing.assert_array_equal(a[...], _fork_values(seed + 1))
    return True


_inherited_s3: dict = {}


def _child_uses_the_parents_s3_array() -> bool:
    a = _inherited_s3["array"]
    seed = _inherited_s3["seed"]
    np.testing.assert_array_equal(a[...], _fork_values(seed))
    a[10:20, 10:20] = _fork_values(seed + 1)[10:20, 10:20]
    a[...] = _fork_values(seed + 1)
    np.testing.assert_array_equal(a[...], _fork_values(seed + 1))
    return True


@pytest.mark.parametrize("method", METHODS)
def test_children_read_and_write_over_s3(method, moto):
    # The parent writes and reads first, so that its HTTP driver thread runs
    # and its connections to the server are open at the fork.
    url = f"s3://{moto.bucket}/fork-{method}/a"
    options = moto.options(addressing="path")
    parent = tz.create_array(tz.open_store(url, **options), shape=(60, 50),
                             chunks=(16, 16), dtype="i4")
    parent[...] = _fork_values(1)
    np.testing.assert_array_equal(parent[...], _fork_values(1))
    run_in_pool(method, _child_reads_and_writes_s3, url, options, 1)
    np.testing.assert_array_equal(parent[...], _fork_values(2))
    if method == "fork":
        _inherited_s3.update(array=parent, seed=2)
        try:
            run_in_process("fork", _child_uses_the_parents_s3_array)
        finally:
            _inherited_s3.clear()
        np.testing.assert_array_equal(parent[...], _fork_values(3))
    # The parent's own connections still work, for reads and writes.
    parent[...] = _fork_values(9)
    np.testing.assert_array_equal(parent[...], _fork_values(9))
