"""Experiment files: everything that shapes a run lives in one TOML file.

Rules (see bench/README.md, "The experiment file"):
- Every key is optional; an empty file runs the defaults.
- An unknown key is an error that names the key and the file.
- A singular key is an axis and selects labels (`dataset`, `impl`, `op`,
  `threads`, `store`, `cache`, `ceiling`); a plural table defines what a
  label means (`[datasets.<name>]` adds a dataset, `[env.<impl>]` pins an
  environment, `[options.<impl>]` sweeps an adapter's own declared axes).
- `[http]` sets up the link behind store = "http" and store = "s3" (latency,
  bandwidth per connection, the binaries: tz_http_serve for HTTP, moto behind
  tz_tcp_throttle for S3).
- Dataset specs are validated here, when the file is read, before anything
  is installed or generated.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turbozarr_bench import adapters
from turbozarr_bench.adapters.base import ALL_OPS
from turbozarr_bench.ceilings import NAMES as CEILINGS
from turbozarr_bench.datasets import DatasetSpec, SpecError, resolve

DEFAULT_DATA_DIR = "~/.cache/turbozarr-bench/data"
DEFAULT_ENV_DIR = "~/.cache/turbozarr-bench/envs"
STORES = ("local", "memory", "zip", "http", "s3")
CACHES = ("warm", "cold")
# [http]: key -> (default, one-line meaning)
HTTP_KEYS: dict[str, tuple[Any, str]] = {
    "latency_ms": (50, "ms before every answer"),
    "megabytes_per_second": (150, "per connection; MB = 10^6 bytes; 0 = unlimited"),
    "server": ("build/bench/serve/tz_http_serve", "relative to the repository"),
    "backlog": (1024, "connections held before they are accepted; 5 = a modest server"),
    "throttle": ("build/bench/serve/tz_tcp_throttle",
                 "the link in front of moto for store = \"s3\"; relative to the repository"),
}

# key -> (default, one-line meaning) ; the reference file is generated from this.
TOP_LEVEL: dict[str, tuple[Any, str]] = {
    "title": ("", "free text printed above the table"),
    "description": ("", "free text"),
    "output": (None, "CSV to append to, relative to this file (default results/<stem>.csv)"),
    "data_dir": (DEFAULT_DATA_DIR, "where fixtures are generated and cached"),
    "env_dir": (DEFAULT_ENV_DIR, "where peer environments are installed and cached"),
    "repeats": (3, "timed runs per case"),
    "warmup": (1, "untimed runs before them"),
    "timeout": (1800, "seconds a case may take before it is killed (then: failed)"),
    "baseline": ("zarr-python", "implementation the ratio column is against"),
    "dataset": (["b-raw"], "datasets to run (registry names or [datasets.*] tables)"),
    "impl": (None, "implementations (default: all)"),
    "op": (["read_full"], f"operations: {', '.join(ALL_OPS)}"),
    "threads": (["all"], "thread counts: integers or \"all\" (= cores)"),
    "store": (["local"], "local (directory), memory, zip (fixture in a zip archive), "
                         "http (served by tz_http_serve), s3 (moto behind tz_tcp_throttle)"),
    "cache": (["warm"], "warm, or cold (fixture pages dropped before each run)"),
    "ceiling": (list(CEILINGS), f"physical ceilings per dataset: {', '.join(CEILINGS)}"),
    "datasets": ({}, "[datasets.<name>] tables: dataset specs"),
    "env": ({}, "[env.<impl>] tables: requires, python, pythonpath, binary"),
    "options": ({}, "[options.<impl>] tables: the adapter's own axes"),
    "http": ({k: v[0] for k, v in HTTP_KEYS.items()},
             "[http] table: the link behind store = \"http\" and \"s3\""),
}
ENV_KEYS = {"requires", "python", "pythonpath", "binary"}


class ConfigError(ValueError):
    """An experiment file that cannot run; the message names the file and key."""


@dataclass(frozen=True)
class HttpConfig:
    """The link behind store = "http" (tz_http_serve, started for each case) and
    store = "s3" (moto, started once per run, behind a tz_tcp_throttle for each
    case)."""

    latency_ms: float = HTTP_KEYS["latency_ms"][0]
    megabytes_per_second: float = HTTP_KEYS["megabytes_per_second"][0]
    server: str = HTTP_KEYS["server"][0]
    backlog: int = HTTP_KEYS["backlog"][0]
    throttle: str = HTTP_KEYS["throttle"][0]


@dataclass
class Experiment:
    path: Path
    title: str
    description: str
    output: Path
    data_dir: Path
    env_dir: Path
    repeats: int
    warmup: int
    timeout: float
    baseline: str
    datasets: list[DatasetSpec]
    impls: list[str]
    ops: list[str]
    threads: list[int | str]
    stores: list[str]
    caches: list[str]
    ceilings: list[str]
    env: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, dict[str, list]] = field(default_factory=dict)
    http: HttpConfig = field(default_factory=HttpConfig)

    @property
    def name(self) -> str:
        return self.path.stem


def _err(path: Path, key: str, message: str) -> ConfigError:
    return ConfigError(f"{path}: key '{key}': {message}")


def _label_list(path: Path, key: str, value: Any, allowed=None, kind=str) -> list:
    if not isinstance(value, list):
        raise _err(path, key, f"must be a list, got {value!r}")
    out = []
    for v in value:
        if not isinstance(v, kind) or (isinstance(v, bool) and kind is not object):
            raise _err(path, key, f"entries must be {getattr(kind, '__name__', kind)}, "
                       f"got {v!r}")
        if allowed is not None and v not in allowed:
            raise _err(path, key, f"unknown value {v!r} (allowed: {', '.join(map(str, allowed))})")
        if v in out:
            raise _err(path, key, f"value {v!r} is listed twice")
        out.append(v)
    return out


def _resolve_path(base: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else (base / p).resolve()


def load(path: str | Path) -> Experiment:
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such experiment file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return parse(raw, path)


def parse(raw: dict[str, Any], path: Path) -> Experiment:
    for key in raw:
        if key not in TOP_LEVEL:
            raise ConfigError(f"{path}: unknown key '{key}' (known keys: "
                              f"{', '.join(TOP_LEVEL)})")
    get = lambda k: raw.get(k, TOP_LEVEL[k][0])  # noqa: E731
    base = path.resolve().parent

    for key in ("title", "description", "baseline", "data_dir", "env_dir"):
        if not isinstance(get(key), str):
            raise _err(path, key, f"must be a string, got {get(key)!r}")
    for key, lo in (("repeats", 1), ("warmup", 0)):
        v = get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise _err(path, key, f"must be an integer >= {lo}, got {v!r}")
    timeout = get("timeout")
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise _err(path, key="timeout", message=f"must be a positive number, got {timeout!r}")
    output = get("output")
    if output is not None and not isinstance(output, str):
        raise _err(path, "output", f"must be a string, got {output!r}")
    output_path = _resolve_path(base, output) if output else base / "results" / f"{path.stem}.csv"

    impl_names = adapters.names()
    impls = _label_list(path, "impl", get("impl") if get("impl") is not None else impl_names,
                        impl_names)
    ops = _label_list(path, "op", get("op"), ALL_OPS)
    stores = _label_list(path, "store", get("store"), STORES)
    caches = _label_list(path, "cache", get("cache"), CACHES)
    ceilings = _label_list(path, "ceiling", get("ceiling"), CEILINGS)
    threads = get("threads")
    if not isinstance(threads, list) or not threads:
        raise _err(path, "threads", f"must be a non-empty list, got {threads!r}")
    for t in threads:
        if not (t == "all" or (isinstance(t, int) and not isinstance(t, bool) and t > 0)):
            raise _err(path, "threads", f"entries must be positive integers or \"all\", got {t!r}")
    if len(set(map(str, threads))) != len(threads):
        raise _err(path, "threads", "a value is listed twice")
    for key, values in (("impl", impls), ("op", ops), ("store", stores), ("cache", caches)):
        if not values:
            raise _err(path, key, "must select at least one value")
    baseline = get("baseline")
    if baseline not in impls:
        raise _err(path, "baseline", f"'{baseline}' is not among impl = {impls}")

    tables = get("datasets")
    if not isinstance(tables, dict):
        raise _err(path, "datasets", "must be a table of [datasets.<name>] tables")
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise _err(path, f"datasets.{name}", "must be a table")
    selected = _label_list(path, "dataset", get("dataset"))
    if not selected:
        raise _err(path, "dataset", "must select at least one dataset")
    try:
        specs = [resolve(name, tables, str(path)) for name in selected]
        for name in tables:  # a defined but unselected spec is still checked now
            if name not in selected:
                resolve(name, tables, str(path))
    except SpecError as e:
        raise ConfigError(str(e)) from None

    env = get("env")
    if not isinstance(env, dict):
        raise _err(path, "env", "must be a table of [env.<impl>] tables")
    for impl, table in env.items():
        where = f"env.{impl}"
        if impl not in impl_names:
            raise _err(path, where, f"unknown implementation '{impl}'")
        if not isinstance(table, dict):
            raise _err(path, where, "must be a table")
        for k, v in table.items():
            if k not in ENV_KEYS:
                raise _err(path, f"{where}.{k}", f"unknown key (allowed: "
                           f"{', '.join(sorted(ENV_KEYS))})")
            if k in ("requires", "pythonpath"):
                if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                    raise _err(path, f"{where}.{k}", "must be a list of strings")
            elif not isinstance(v, str):
                raise _err(path, f"{where}.{k}", "must be a string")
        kind = adapters.load(impl).ENV
        allowed = {"venv": {"requires", "python"}, "project": {"python", "pythonpath"},
                   "binary": {"binary"}}.get(kind, ENV_KEYS)
        for k in table:
            if k not in allowed:
                raise _err(path, f"{where}.{k}", f"does not apply to '{impl}', whose environment "
                           f"is '{kind}' (keys: {', '.join(sorted(allowed))})")

    options = get("options")
    if not isinstance(options, dict):
        raise _err(path, "options", "must be a table of [options.<impl>] tables")
    parsed_options: dict[str, dict[str, list]] = {}
    for impl, table in options.items():
        where = f"options.{impl}"
        if impl not in impl_names:
            raise _err(path, where, f"unknown implementation '{impl}'")
        if impl not in impls:
            raise _err(path, where, f"'{impl}' is not among impl = {impls}")
        if not isinstance(table, dict):
            raise _err(path, where, "must be a table")
        declared = getattr(adapters.load(impl), "OPTIONS", {})
        parsed_options[impl] = {}
        for k, v in table.items():
            if k not in declared:
                raise _err(path, f"{where}.{k}", f"'{impl}' declares no option '{k}' "
                           f"(its options: {', '.join(declared) or 'none'})")
            parsed_options[impl][k] = _label_list(path, f"{where}.{k}", v, declared[k],
                                                  kind=object)
            if not parsed_options[impl][k]:
                raise _err(path, f"{where}.{k}", "must select at least one value")

    http = _parse_http(path, raw, stores)

    return Experiment(
        path=path, title=get("title"), description=get("description"), output=output_path,
        data_dir=_resolve_path(base, get("data_dir")),
        env_dir=_resolve_path(base, get("env_dir")),
        repeats=get("repeats"), warmup=get("warmup"), timeout=float(timeout),
        baseline=baseline, datasets=specs, impls=impls, ops=ops, threads=threads,
        stores=stores, caches=caches, ceilings=ceilings, env=env, options=parsed_options,
        http=http)


def _parse_http(path: Path, raw: dict[str, Any], stores: list[str]) -> HttpConfig:
    if "http" not in raw:
        return HttpConfig()
    table = raw["http"]
    if not isinstance(table, dict):
        raise _err(path, "http", "must be a table ([http])")
    if "http" not in stores and "s3" not in stores:
        raise _err(path, "http", f"applies only to store = \"http\" or \"s3\", neither of "
                   f"which is among store = {stores}")
    for k, v in table.items():
        if k not in HTTP_KEYS:
            raise _err(path, f"http.{k}", f"unknown key (allowed: {', '.join(HTTP_KEYS)})")
        if k in ("server", "throttle"):
            if not isinstance(v, str) or not v:
                raise _err(path, f"http.{k}", f"must be a non-empty string, got {v!r}")
        elif k == "backlog":
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 65535:
                raise _err(path, "http.backlog", f"must be an integer in 1..65535, got {v!r}")
        elif not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
            raise _err(path, f"http.{k}", f"must be a number >= 0, got {v!r}")
    return HttpConfig(**table)


def reference_toml() -> str:
    """Every key with its default, commented out: a file equivalent to the
    defaults (experiments/reference.toml). Tables are shown by example."""
    lines = ["# Every key with its default, all commented out: as shipped this file runs",
             "# the defaults, and `turbozarr-bench run reference.toml --list` shows them.",
             "# Copy it and uncomment what you need. An unknown key is an error.", ""]
    defaults = dict(TOP_LEVEL)
    defaults["output"] = ("results/reference.csv", TOP_LEVEL["output"][1])
    defaults["impl"] = (adapters.names(), TOP_LEVEL["impl"][1])
    for key, (default, meaning) in defaults.items():
        if key in ("datasets", "env", "options", "http"):
            continue
        lines.append(f"# {meaning}")
        lines.append(f"# {key} = {_toml_value(default)}")
        lines.append("")
    lines += [
        "# A dataset of the config's own, or one derived from a shipped dataset (base);",
        "# validated when the file is read. Keys: kind (array|npy|vcz|csr), base, shape,",
        "# dtype, chunks, shards ([] removes a base's), zarr_format (2|3), codec",
        "# (none|zstd|gzip|blosc-lz4|blosc-zstd|blosc-blosclz), level, shuffle",
        "# (none|byte|bit; blosc only), fill_value, pixels (photo|arange|randint24|",
        "# cubic|ome), seed, levels, roi_size, workload, description.",
        "# [datasets.my-small-a]",
        '# base = "a-lz4-20000"',
        "# shape = [5000, 2000]",
        "",
        "# Pin a peer's environment (venv adapters: requires, python; turbozarr:",
        "# python, pythonpath; turbozarr-cli: binary).",
        "# [env.tensorstore]",
        '# requires = ["tensorstore==0.1.86", "numpy==2.4.6"]',
        "",
        "# Sweep an adapter's own declared axes (zarr-python's and zarrs' remote",
        "# applies to store = \"http\" only).",
        "# [options.zarr-python]",
        '# pipeline = ["batched", "fused"]',
        '# remote = ["fsspec", "obstore"]',
        "",
        "# The link behind store = \"http\" and \"s3\" (a server or throttle started for",
        "# each case; an error unless store has \"http\" or \"s3\").",
        "# [http]",
    ]
    for key, (default, meaning) in HTTP_KEYS.items():
        lines.append(f"# {key} = {_toml_value(default)}  # {meaning}")
    return "\n".join(lines) + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return str(v)


def suite_of(path: Path) -> str:
    """The `suite` an experiment file names ("vcz", "ome", "sparse": the
    workloads with runners of their own), or "" for the generic runner and
    for a file that does not parse (its loader says why)."""
    try:
        return str(tomllib.loads(Path(path).read_text()).get("suite", ""))
    except (OSError, tomllib.TOMLDecodeError):
        return ""
