"""The server behind store = "http": tz_http_serve, one for each case (parent side).

The server's contract (bench/serve):

    tz_http_serve --root DIR --latency-ms L --megabytes-per-second B --port 0

serves DIR over HTTP/1.1 (GET and HEAD, single byte ranges, keep-alive, many
connections), delays every answer by L ms and paces each connection's body at
B MB/s (10^6 bytes; 0 = unlimited). Once listening it prints one line on
stdout, `http://127.0.0.1:PORT`. It serves until SIGTERM or EOF on its stdin,
then prints one JSON line on stderr:
{"requests": N, "bytes_sent": N, "peak_connections": N}.

The runner starts a server before a case's child and stops it after, so the
counts are that case's own reads: the warm-up, timed and checksum runs. The
server's stdin is a pipe held by the harness, so a harness that dies takes
its server with it (EOF). Its stdout and stderr go to files in the case's
work directory, so a chatty server can never block on a full pipe.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from turbozarr_bench.envs import REPO_ROOT

START_TIMEOUT = 30.0  # seconds to print the URL
STOP_TIMEOUT = 30.0  # seconds to exit after SIGTERM
_URL = re.compile(r"https?://[^\s/]+(/\S*)?")


class ServerError(RuntimeError):
    """The server did not start, answer its contract, or stop; the message says how."""


@dataclass(frozen=True)
class ServerStats:
    """The server's exit line: totals over its whole life. tz_tcp_throttle (in
    front of moto, for store = "s3") sees bytes, not requests: its `requests`
    is None and `bytes_sent` counts the answers' heads too."""

    requests: int | None
    bytes_sent: int
    peak_connections: int


def resolve_binary(server: str) -> str:
    """The [http] server path; a relative one is relative to the repository, as
    the build directory is."""
    p = Path(server).expanduser()
    return str(p if p.is_absolute() else REPO_ROOT / p)


def usable(binary: str) -> bool:
    return os.path.isfile(binary) and os.access(binary, os.X_OK)


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def command(binary: str, root: str | os.PathLike, latency_ms: float,
            megabytes_per_second: float, backlog: int = 1024) -> list[str]:
    return [binary, "--root", os.fspath(root), "--latency-ms", _number(latency_ms),
            "--megabytes-per-second", _number(megabytes_per_second), "--port", "0",
            "--backlog", str(int(backlog))]


def parse_exit_line(stderr: str) -> ServerStats:
    """The last JSON object line of the server's stderr (log lines may precede it)."""
    for line in reversed(stderr.strip().splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
            if "bytes_down" in doc:  # tz_tcp_throttle
                return ServerStats(None, int(doc["bytes_down"]), int(doc["peak_connections"]))
            return ServerStats(**{k: int(doc[k]) for k in
                                  ("requests", "bytes_sent", "peak_connections")})
        except (ValueError, KeyError, TypeError):
            continue
    raise ServerError(f"no exit line {{\"requests\", \"bytes_sent\", \"peak_connections\"}} "
                      f"(or tz_tcp_throttle's, with \"bytes_down\") in its stderr"
                      f"{_tail(stderr)}")


def _tail(text: str, lines: int = 3) -> str:
    last = [ln for ln in text.strip().splitlines() if ln.strip()][-lines:]
    return (": " + " | ".join(last)) if last else " (empty)"


class HttpServer:
    """One server process: start() returns its URL, stop() its exit line.

    Not thread-safe; one owner starts and stops it. Usable as a context
    manager, which stops (or, on an error, kills) the server on exit."""

    def __init__(self, argv: list[str], logdir: Path, start_timeout: float = START_TIMEOUT,
                 stop_timeout: float = STOP_TIMEOUT):
        self.argv = list(argv)
        self.logdir = Path(logdir)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.url = ""
        self.proc: subprocess.Popen | None = None

    @property
    def _out(self) -> Path:
        return self.logdir / "server.stdout"

    @property
    def _err(self) -> Path:
        return self.logdir / "server.stderr"

    def _stderr(self) -> str:
        try:
            return self._err.read_text(errors="replace")
        except OSError:
            return ""

    def start(self) -> str:
        self.logdir.mkdir(parents=True, exist_ok=True)
        with open(self._out, "wb") as out, open(self._err, "wb") as err:
            try:
                self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=out,
                                             stderr=err)
            except OSError as e:
                raise ServerError(f"cannot start {self.argv[0]}: {e}") from None
        deadline = time.monotonic() + self.start_timeout
        while True:
            text = self._out.read_bytes().decode(errors="replace")
            if "\n" in text:
                line = text.split("\n", 1)[0].strip()
                break
            rc = self.proc.poll()
            if rc is not None:
                raise ServerError(f"{self.argv[0]} exited {rc} before listening"
                                  f"{_tail(self._stderr())}")
            if time.monotonic() > deadline:
                self._kill()
                raise ServerError(f"{self.argv[0]} printed no URL within "
                                  f"{self.start_timeout:g} s{_tail(self._stderr())}")
            time.sleep(0.01)
        if not _URL.fullmatch(line):
            self._kill()
            raise ServerError(f"{self.argv[0]}'s first line is not a URL: {line[:200]!r}")
        self.url = line.rstrip("/")
        return self.url

    def stop(self) -> ServerStats:
        """Asks the server to stop (EOF on stdin and SIGTERM), waits for it and
        returns its exit line. A server that had already exited is only read."""
        if self.proc is None:
            raise ServerError("the server was never started")
        proc = self.proc
        if proc.poll() is None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                self._kill()
                raise ServerError(f"{self.argv[0]} did not exit within {self.stop_timeout:g} s "
                                  f"of SIGTERM; killed") from None
        elif proc.stdin is not None:
            proc.stdin.close()
        stderr = self._stderr()
        try:
            return parse_exit_line(stderr)
        except ServerError:
            rc = proc.returncode
            if rc < 0:
                raise ServerError(f"{self.argv[0]} was killed by signal {-rc} and printed no "
                                  f"exit line{_tail(stderr)}") from None
            if rc != 0:
                raise ServerError(f"{self.argv[0]} exited {rc}{_tail(stderr)}") from None
            raise

    def _kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None and self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def __enter__(self) -> "HttpServer":
        self.start()
        return self

    def __exit__(self, exc_type, *_exc) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        if exc_type is not None:
            self._kill()
        else:
            self.stop()
