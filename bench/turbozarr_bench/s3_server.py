"""The object store behind store = "s3": moto's S3 server behind tz_tcp_throttle.

moto (the harness's own interpreter runs it, served by waitress;
requirements-dev.txt has both) holds each dataset's fixture as objects under
s3://bench/<dataset>/, uploaded once per run. For each case the runner puts a
tz_tcp_throttle in front of it with the [http] link (latency per request,
bandwidth per connection), so S3 readers are timed under the same link as
the HTTP readers behind tz_http_serve, and the throttle's exit line gives
the case's connections and bytes.

moto accepts any credentials unless told to check them; the readers sign
their requests all the same (SigV4 with the keys below), so the S3 code path
is the one they take against a real object store.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

BUCKET = "bench"
REGION = "us-east-1"
ACCESS_KEY_ID = "AKIABENCHMARKEXAMPLE"
SECRET_ACCESS_KEY = "bench-secret-access-key"
START_TIMEOUT = 60.0  # importing moto takes seconds

# moto's own server (werkzeug's) closes the connection after every answer,
# where S3 keeps connections alive; a benchmark of S3 readers against it
# would time connection set-up, not reads. So moto's application is served
# by waitress (HTTP/1.1 keep-alive, TCP_NODELAY, a pool of threads), as moto's
# main() would serve it otherwise.
_BOOTSTRAP = (
    "import os, sys\n"
    "os.environ.setdefault('MOTO_PORT', sys.argv[2])\n"
    "from moto.moto_server.werkzeug_app import DomainDispatcherApplication, "
    "create_backend_app\n"
    "from waitress import serve\n"
    "serve(DomainDispatcherApplication(create_backend_app), host=sys.argv[1], "
    "port=int(sys.argv[2]), threads=16, connection_limit=1000, backlog=1024, "
    "channel_timeout=60, outbuf_overflow=1 << 30, send_bytes=1 << 18, _quiet=True)\n")


class MotoError(RuntimeError):
    """moto did not start or refused the fixture; the message says how."""


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


def throttle_command(binary: str, upstream: str, latency_ms: float,
                     megabytes_per_second: float) -> list[str]:
    """tz_tcp_throttle in front of `upstream` (http://HOST:PORT)."""
    from turbozarr_bench.http_server import _number

    hostport = upstream.split("://", 1)[-1].rstrip("/")
    return [binary, "--upstream", hostport, "--latency-ms", _number(latency_ms),
            "--megabytes-per-second", _number(megabytes_per_second), "--port", "0"]


class Moto:
    """One moto server for a run: start(), upload(), stop()."""

    def __init__(self, logdir: Path, python: str = sys.executable):
        self.logdir = Path(logdir)
        self.python = python
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.uploaded: set[str] = set()
        self._client = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _log(self) -> str:
        try:
            return (self.logdir / "moto.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def start(self) -> str:
        self.logdir.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items()
               if k not in ("MOTO_PORT", "INITIAL_NO_AUTH_ACTION_COUNT")}
        with open(self.logdir / "moto.log", "wb") as log:
            try:
                self.proc = subprocess.Popen(
                    [self.python, "-c", _BOOTSTRAP, "127.0.0.1", str(self.port)],
                    env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            except OSError as e:
                raise MotoError(f"cannot start moto with {self.python}: {e}") from None
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(self.port):
            if self.proc.poll() is not None:
                raise MotoError(f"moto exited {self.proc.returncode} (requirements-dev.txt "
                                f"has moto[s3] and waitress): {self._log()}")
            if time.monotonic() > deadline:
                self.stop()
                raise MotoError(f"moto did not listen within {START_TIMEOUT:g} s")
            time.sleep(0.05)
        import boto3
        from botocore.config import Config

        self._client = boto3.client(
            "s3", endpoint_url=self.endpoint, region_name=REGION,
            aws_access_key_id=ACCESS_KEY_ID, aws_secret_access_key=SECRET_ACCESS_KEY,
            config=Config(s3={"addressing_style": "path"}, max_pool_connections=16))
        self._client.create_bucket(Bucket=BUCKET)
        return self.endpoint

    def upload(self, name: str, root: Path) -> str:
        """Puts every file under `root` at <name>/<relative path>, once per run;
        returns the prefix."""
        if name not in self.uploaded:
            files = [p for p in sorted(Path(root).rglob("*")) if p.is_file()]

            def put(p: Path) -> None:
                key = f"{name}/{p.relative_to(root).as_posix()}"
                self._client.put_object(Bucket=BUCKET, Key=key, Body=p.read_bytes())

            with ThreadPoolExecutor(8) as pool:
                list(pool.map(put, files))
            self.uploaded.add(name)
        return name

    def source(self, url: str, prefix: str) -> dict[str, Any]:
        """The case document's "s3" entry: where a reader finds the fixture."""
        return {"endpoint": url, "bucket": BUCKET, "prefix": prefix, "region": REGION,
                "access_key_id": ACCESS_KEY_ID, "secret_access_key": SECRET_ACCESS_KEY}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
