"""Store arguments: a path (str or os.PathLike) or URL, or a Store object.

Paths and URLs: a directory ("data.zarr", "file:///data.zarr"), a zip archive
("data.zip", "zip:///data.zip"), "memory://" (a new, empty in-memory store
each time), "http(s)://host/path" (read-only) or "s3://bucket/prefix". An
existing zip archive opens read-only in mode "r"; it is replaced by a new one
in mode "w" (or with overwrite=True) at its root, and appended to otherwise
(modes "a", "r+", "w-", "w" below the root; create and group): new entries
go after the old ones, whose bytes are never changed, and a key written again
replaces the old entry (as zarr-python's ZipStore lets the later entry win).
What is written is in the archive on disk after ``store.flush()`` (or
``close()``, or when the last reference to the store goes).

S3 stores take their endpoint, region and credentials from the keyword
options of ``open_store``, else the AWS environment variables, else an AWS
profile in ~/.aws/credentials and ~/.aws/config; with no credentials anywhere,
requests go unsigned (public buckets). HTTP(S) and S3 stores take the
connection options (timeouts, retries, requests in flight, connections per
host) of ``open_store``.

Wrappers change how a store is reached: ``ThrottledStore`` (a slow network
made of a fast store), ``MetricsStore`` (counts requests and bytes),
``CachingStore`` (an LRU of values read) and ``FaultStore`` (injected
failures, for testing what a program does when storage fails). Each takes
and gives a store that ``open_array``, ``create_array`` and the other
functions accept.

Arrays and groups pickle as where they live (``store_spec``): the store's URL
and whether it was opened read-only, plus, for s3:// and http(s):// URLs, the
keyword options ``open_store`` was last given for that URL in this process. Stores
with nothing to name them by refuse: "memory://" (its keys live in this
process only), zip archives being written (one process writes an archive),
and the throttled, caching and fault wrappers (their state belongs to this
process).
A MetricsStore pickles as the store it counts, without its counts.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from turbozarr import _core
from turbozarr.errors import AlreadyExistsError

Store = _core.Store

# The keyword options open_store was last given per s3:// or http(s):// store
# URL (as the store describes itself), so that a pickled array reopens its
# store with them in another process. Stores are not weakly referenceable, so
# the URL is the key.
_S3_OPTIONS_BY_URL: dict[str, dict[str, Any]] = {}

# URL schemes of stores that another process can reopen by URL alone.
_REOPENABLE = ("file://", "zip://", "http://", "https://", "s3://")

_ADDRESSING = ("auto", "virtual", "path")
_S3_OPTION_TYPES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(("endpoint_url", "region", "access_key_id", "secret_access_key",
                     "session_token", "profile", "addressing"), (str,)),
    **dict.fromkeys(("connect_timeout", "idle_timeout", "request_timeout", "deadline"),
                    (float, int)),
    **dict.fromkeys(("max_concurrency", "max_retries", "max_connections"), (int,)),
    "ca_file": (str,),
    "http2": (bool,),
}
# The options of the HTTP transport under both remote stores; the others are
# S3's alone.
_CONNECTION_OPTIONS = frozenset(("connect_timeout", "idle_timeout", "request_timeout",
                                 "deadline", "max_concurrency", "max_retries",
                                 "max_connections", "ca_file", "http2"))


def open_store(url: str | os.PathLike, *, read_only: bool = False,
               truncate: bool = False, append: bool = False,
               endpoint_url: str | None = None,
               region: str | None = None,
               access_key_id: str | None = None,
               secret_access_key: str | None = None,
               session_token: str | None = None,
               profile: str | None = None,
               addressing: Literal["auto", "virtual", "path"] | None = None,
               connect_timeout: float | None = None,
               idle_timeout: float | None = None,
               request_timeout: float | None = None,
               deadline: float | None = None,
               max_concurrency: int | None = None,
               max_retries: int | None = None,
               max_connections: int | None = None,
               ca_file: str | None = None,
               http2: bool | None = None) -> Store:
    """The store a path or URL names (see the module docstring).

    `read_only` refuses writes; `truncate` writes a new zip archive in place
    of an existing one; `append` opens an existing zip archive to add to it
    (other stores ignore both).

    The connection options (`connect_timeout` to `http2` below)
    apply to "http(s)://" and "s3://" URLs, the others to "s3://bucket/prefix"
    URLs only (any other URL with one of them raises ValueError). Each S3
    option left as None is taken from the AWS environment variables (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,
    AWS_REGION, AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
    AWS_SESSION_TOKEN), else from the AWS profile in the shared files, as
    the AWS CLI does:

    - `endpoint_url`: "http(s)://host[:port]" of an S3-compatible server;
      AWS itself if unset.
    - `region`: the region requests are signed for (default "us-east-1").
    - `access_key_id`, `secret_access_key`, `session_token`: credentials,
      taken together (given here, none comes from elsewhere).
    - `profile`: the profile of ~/.aws/credentials and ~/.aws/config (or
      AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE) to read, instead of
      AWS_PROFILE or "default"; as with the CLI's --profile, its credentials
      win over those of the environment.
    - `addressing`: "path" (endpoint/bucket/key), "virtual"
      (bucket.endpoint/key) or "auto" (path-style with an endpoint, else
      virtual).
    - `connect_timeout`, `idle_timeout`, `request_timeout`: seconds to open a
      connection, to wait for the next byte, and for a whole request (0: no
      limit), per attempt.
    - `deadline`: seconds one request may take in all, retries and their
      waits included (0: no limit); past it the call fails with OSError.
    - `max_concurrency`: requests in flight at once (default 64).
    - `max_retries`: further attempts after a failed one (default 5).
    - `max_connections`: connections open at once to one host, kept open and
      reused (default: $TURBOZARR_HTTP_MAX_CONNECTIONS, else 32). New ones
      are opened a few at a time, and the requests in flight grow while the
      server keeps up and halve when it is overloaded (refused or reset
      connections, 429, 503; a Retry-After pauses the host), so a modest
      server with a small listen backlog is never flooded.
    - `ca_file`: a PEM file of the certificate authorities to trust instead
      of the system's (a private or institutional CA).
    - `http2`: use HTTP/2 where an https server offers it (default True):
      one connection then carries every request in flight.
    """
    path = os.fspath(url)
    given = {
        "endpoint_url": endpoint_url, "region": region, "access_key_id": access_key_id,
        "secret_access_key": secret_access_key, "session_token": session_token,
        "profile": profile, "addressing": addressing, "connect_timeout": connect_timeout,
        "idle_timeout": idle_timeout, "request_timeout": request_timeout,
        "deadline": deadline,
        "max_concurrency": max_concurrency, "max_retries": max_retries,
        "max_connections": max_connections, "ca_file": ca_file, "http2": http2,
    }
    s3 = {name: value for name, value in given.items() if value is not None}
    lower = path.lower()
    is_http = lower.startswith(("http://", "https://"))
    if s3 and not lower.startswith("s3://"):
        misplaced = [n for n in s3 if not (is_http and n in _CONNECTION_OPTIONS)]
        if misplaced:
            names = ", ".join(misplaced)
            where = "an s3:// URL" if is_http else "an s3:// or http(s):// URL"
            raise ValueError(f"S3 option(s) {names} given for '{path}', which is not "
                             f"{where}")
    for name, value in s3.items():
        want = _S3_OPTION_TYPES[name]
        if not isinstance(value, want) or (isinstance(value, bool) and bool not in want):
            raise TypeError(f"S3 option {name} must be {want[0].__name__}, not "
                            f"{type(value).__name__}")
    if addressing is not None and addressing not in _ADDRESSING:
        raise ValueError(f"addressing must be 'auto', 'virtual' or 'path', not "
                         f"{addressing!r}")
    for name in ("connect_timeout", "idle_timeout"):
        if name in s3 and not s3[name] > 0:
            raise ValueError(f"{name} must be a positive number of seconds, not "
                             f"{s3[name]!r}")
    for name in ("request_timeout", "deadline"):
        if name in s3 and not s3[name] >= 0:
            raise ValueError(f"{name} must be 0 (no limit) or a positive number of "
                             f"seconds, not {s3[name]!r}")
    store = _core.open_store(path, read_only=read_only, truncate=truncate, append=append,
                             s3=s3)
    if s3:
        _S3_OPTIONS_BY_URL[store.describe()] = dict(s3)
    return store


def MemoryStore() -> Store:  # noqa: N802 (reads like a class, as in zarr-python)
    """A new, empty store held in memory."""
    return _core.memory_store()


def LocalStore(root: str | os.PathLike, *, read_only: bool = False,  # noqa: N802
               durable: bool = False) -> Store:
    """A store over a local directory, created on first write. With
    `durable`, each value written is fsync'ed, and its directory, before the
    write returns, so that it survives a power loss (docs/guarantees.md)."""
    if read_only:
        return _core.open_store("file://" + os.path.abspath(os.fspath(root)), read_only=True)
    return _core.local_store(os.fspath(root), durable=bool(durable))


def ZipStore(path: str | os.PathLike, mode: str = "r") -> Store:  # noqa: N802
    """A zip archive, as zarr-python's ZipStore: mode "r" reads an existing
    archive, "w" writes a new one (replacing the file on the first write), "x"
    writes a new one and fails if the file exists, "a" adds to an existing
    one (or writes a new one if there is none). Entries are stored (not
    compressed). Appending writes new entries after the old ones and a key
    written again replaces the old entry; erasing a key drops it from the
    archive's directory. Call flush() or close() (or use ``with``) to finish
    the archive; it is also finished when the store is released."""
    p = os.path.abspath(os.fspath(path))
    url = "zip://" + p
    if mode == "r":
        return _core.open_store(url, read_only=True)
    if mode == "w":
        return _core.open_store(url, truncate=True)
    if mode == "x":
        if os.path.lexists(p):
            raise AlreadyExistsError(f"zip archive '{p}' already exists (mode 'x')")
        return _core.open_store(url)
    if mode == "a":
        return _core.open_store(url, append=True)
    raise ValueError(f"ZipStore mode must be 'r', 'w', 'x' or 'a', got {mode!r}")


def ThrottledStore(store: Any, *, latency: float = 0.0,  # noqa: N802
                   bytes_per_second: float = 0.0, connections: int = 0) -> Store:
    """`store` made to behave like an object store across a network: every
    request waits `latency` seconds (a round trip) plus its payload's time at
    `bytes_per_second` per connection (0: unlimited), and at most
    `connections` requests run at once (0: unlimited). Batched reads use that
    many connections together, as a remote store would."""
    if not latency >= 0:
        raise ValueError(f"latency must be a number of seconds >= 0, not {latency!r}")
    if not bytes_per_second >= 0:
        raise ValueError(f"bytes_per_second must be >= 0, not {bytes_per_second!r}")
    if connections < 0:
        raise ValueError(f"connections must be >= 0, not {connections!r}")
    return _core.throttled_store(as_store(store), float(latency), float(bytes_per_second),
                                 int(connections))


FAULTS = ("read_error", "reset", "short_read", "write_error", "partial_write",
          "latency_spike")


def FaultStore(store: Any, faults: Any = FAULTS, *, rate: float,  # noqa: N802
               key_contains: str = "", seed: int = 1, spike: float = 0.02) -> Store:
    """`store` failing the ways storage fails, to check that a program copes:
    each read, write or erase is faulted with probability `rate` (only keys
    containing `key_contains`, if given), with one of `faults` that applies
    to it: "read_error" and "reset" fail a read with an IOError, "short_read"
    answers only the first half of a value as if it were all of it,
    "write_error" fails a write changing nothing (a full disk),
    "partial_write" stores half the value and then fails, "latency_spike"
    waits `spike` seconds first. Errors name the key and say the fault was
    injected. turbozarr reads and writes through it either succeed with the
    right values or raise; `fault_count(store)` says how many were
    injected."""
    faults = [faults] if isinstance(faults, str) else list(faults)
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        raise ValueError(f"unknown faults {unknown}; the faults are {list(FAULTS)}")
    if not 0 <= rate <= 1:
        raise ValueError(f"rate must be between 0 and 1, not {rate!r}")
    if not spike >= 0:
        raise ValueError(f"spike must be a number of seconds >= 0, not {spike!r}")
    return _core.fault_store(as_store(store), faults, float(rate), str(key_contains),
                             int(seed), float(spike))


def fault_count(store: Store) -> int:
    """How many faults a FaultStore has injected."""
    return _core.fault_store_injected(store)


def CachingStore(store: Any, capacity_bytes: int) -> Store:  # noqa: N802
    """`store` with an LRU cache of the values (whole or byte ranges) read
    through it, holding at most `capacity_bytes`. Writes and erases through
    the cache drop what it held of the key; writes made to `store` behind its
    back are not seen."""
    if capacity_bytes < 0:
        raise ValueError(f"capacity_bytes must be >= 0, not {capacity_bytes!r}")
    return _core.caching_store(as_store(store), int(capacity_bytes))


class MetricsStore:
    """`store` with counters of the requests made through it and the bytes
    they moved. Pass it wherever a store is taken (open_array, create_array,
    other wrappers); it also answers get, set, list and the other Store
    methods.

        m = tz.MetricsStore(tz.open_store("s3://bucket/data.zarr"))
        tz.open_array(m)[:]
        m.metrics()["gets"]
    """

    __slots__ = ("store",)

    def __init__(self, store: Any) -> None:
        #: The counting store itself (a turbozarr Store).
        self.store: Store = _core.metrics_store(as_store(store))

    def metrics(self) -> dict[str, int | float]:
        """The counts so far: gets (reads, each read of a batch counting
        one), get_misses (of those, absent keys), bytes_read, get_many_calls
        (batches of other than one read), sets, bytes_written, erases, lists,
        and seconds (time spent in the inner store, summed over calls)."""
        return _core.store_metrics(self.store)

    def reset_metrics(self) -> None:
        """Sets every count back to zero."""
        _core.reset_store_metrics(self.store)

    def __getattr__(self, name: str) -> Any:
        if name == "store":  # not set yet: no forwarding to itself
            raise AttributeError(name)
        return getattr(self.store, name)

    def __enter__(self) -> MetricsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.store.flush()

    def __repr__(self) -> str:
        return f"<turbozarr.MetricsStore {self.store.describe()}>"


def as_store(store: Any, *, read_only: bool = False, truncate: bool = False,
             append: bool = False) -> Store:
    """The Store for a store argument. For paths and URLs, `read_only` refuses
    writes, `truncate` starts a new zip archive in place of an existing one
    and `append` opens an existing zip archive to add to it (other stores
    ignore both)."""
    if isinstance(store, _core.Store):
        return store
    if isinstance(store, (str, os.PathLike)):
        s = os.fspath(store)
        if s.startswith("memory://"):
            return _core.memory_store()
        return _core.open_store(s, read_only=read_only, truncate=truncate, append=append)
    # An object of this package that holds a store (Array, Group).
    inner = getattr(store, "store", None)
    if isinstance(inner, _core.Store):
        return inner
    raise TypeError(f"expected a path, a URL or a turbozarr Store, got {type(store).__name__}")


def store_spec(store: Store) -> tuple[str, bool, dict[str, Any]]:
    """(url, read_only, s3 options): what reopens `store` in another process
    (see the module docstring); TypeError for stores that cannot be."""
    url = store.describe()
    if url == "memory://":
        raise TypeError("cannot pickle a node of a memory:// store: its keys live in "
                        "this process only; write it to a directory, zip archive or "
                        "s3:// store to share it with other processes")
    if not url.startswith(_REOPENABLE):
        raise TypeError(f"cannot pickle a node of the store {url}: a throttled, "
                        f"caching or fault wrapper holds state of this process; pickle "
                        f"the node "
                        f"opened on the store's URL (and wrap again where it is "
                        f"unpickled)")
    if url.startswith("zip://") and store.writable:
        raise TypeError(f"cannot pickle a node of {url} while the archive is being "
                        f"written (one process writes a zip archive): close it, then "
                        f"open it read-only (turbozarr.ZipStore(path)) to share it")
    remote = url.startswith(("s3://", "http://", "https://"))
    s3 = _S3_OPTIONS_BY_URL.get(url, {}) if remote else {}
    return url, not store.writable, dict(s3)


def reopen_store(spec: tuple[str, bool, dict[str, Any]]) -> Store:
    """The store a ``store_spec`` names, opened again."""
    url, read_only, s3 = spec
    if s3:
        return open_store(url, read_only=read_only, **s3)
    return _core.open_store(url, read_only=read_only, truncate=False, s3={})


def normalize_path(path: str) -> str:
    return "/".join(p for p in str(path).split("/") if p)
