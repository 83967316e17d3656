"""docs/support.md, the support table, from what the Python tests proved.

The interop tests record what they prove (python/tests/support_records.py):
a data type, codec, layout or store, read or written, against a peer. Run
with TURBOZARR_SUPPORT_RECORD=FILE, the tests that pass append their
records to FILE as JSON lines, the Python 3.11 and 3.12 runs to one file;
`make test` and `make support-table` do that, into build/support-records.jsonl.

    support_table.py --write RECORDS   rewrites docs/support.md from RECORDS
    support_table.py --check RECORDS   fails, naming the rows, where
                                       docs/support.md claims more than
                                       RECORDS prove; lists what it lacks

--write needs the turbozarr package (its codec table lists the codecs that
show as rows even where no test proves them).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "support.md"
NONE = "—"

# The tables, in order: kind -> (title, name of the feature column).
TABLES = {
    "data type": ("Data types", "data type"),
    "codec": ("Codecs", "codec"),
    "layout": ("Chunk grids and layouts", "layout"),
    "store": ("Stores", "store"),
}
WAYS = ("read", "write")

HEADER = f"""\
# Support table

<!-- Made by `make support-table` (scripts/support_table.py --write) from the
records of the passing Python tests. Do not edit by hand: `make test` fails
when this file claims a cell that the tests do not prove. -->

What turbozarr reads and writes, and against which other implementations
(peers) the tests prove it. This file is generated: `make support-table`
runs the Python tests on Python 3.11, 3.12 and 3.13, each interop test
recording what it proved (python/tests/support_records.py), and writes the
table from the records of the tests that passed; `make test` checks that this
file claims nothing the records do not show.

- **read**: data the peer wrote is read by turbozarr, bit for bit.
- **write**: data turbozarr wrote is read by the peer, bit for bit (or is,
  byte for byte, what the peer itself writes).

A cell names the peers and counts the passing tests behind it (a test run
on several interpreters counts once on each); {NONE} means no Python test
proves it. The peers' releases are pinned in requirements-dev.txt (Python
3.11) and requirements-py312.txt (Python 3.12 and 3.13; "Interpreters" at
the end says which ran what); "(codec pipeline)" means through
zarr-python's own API with turbozarr.ZarrCodecPipeline on
(docs/zarr-pipeline.md). Rows are spelled as the metadata documents spell
them: v3 data type and codec names, v2 type strings (lengths and time units
left out) and numcodecs ids. The C++ tests check more against fixtures that
zarr-python and numcodecs wrote (src/testing/); they are not counted here.
"""

NOTES = {
    "layout": "subchunk_write_order is zarr-python 3.4's write-time choice of the order "
              "of a shard's inner chunks (not in zarr.json): turbozarr reads every order "
              "and writes Morton order, zarr-python's default.",
    "store": "http(s) stores are read-only. A peer reaches a memory store only through "
             "zarr-python's codec pipeline: zarr-python's MemoryStore, staged through an "
             "engine memory store.",
}

# The rows that show even where no test proves them (the codecs come from
# the engine's codec table): (feature, zarr format).
_V3_TYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "complex_float32",
    "complex_float64", "string", "variable_length_bytes", "null_terminated_bytes",
    "fixed_length_utf32", "raw_bytes", "numpy.datetime64", "numpy.timedelta64", "struct"]
_LOW_PRECISION = [
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float6_e2m3fn",
    "float6_e3m2fn", "float4_e2m1fn", "int2", "int4", "uint2", "uint4"]
_V2_TYPES = [
    "|b1", "|i1", "<i2", "<i4", "<i8", ">i2", ">i4", ">i8", "|u1", "<u2", "<u4", "<u8",
    ">u2", ">u4", ">u8", "<f2", "<f4", "<f8", ">f2", ">f4", ">f8", "<c8", "<c16", ">c8",
    ">c16", "|Sn", "<Un", ">Un", "|Vn", "|O (vlen-utf8)", "|O (vlen-bytes)", "<M8[unit]",
    ">M8[unit]", "<m8[unit]", ">m8[unit]", "[[name, type], ...]"]
_V3_LAYOUTS = [
    "regular chunk grid", "rectilinear chunk grid", "sharding, index at the end",
    "sharding, index at the start", "nested sharding",
    'subchunk_write_order "lexicographic"', 'subchunk_write_order "colexicographic"',
    'subchunk_write_order "unordered"',
    'chunk key encoding "default", separator "/"',
    'chunk key encoding "default", separator "."',
    'chunk key encoding "v2", separator "."', 'chunk key encoding "v2", separator "/"']
_V2_LAYOUTS = ["regular chunk grid", 'dimension_separator "."', 'dimension_separator "/"',
               'order "C"', 'order "F"']
_STORES = ["local directory", "memory", "zip archive", "zip archive, appended to",
           "http(s)", "s3"]

Key = tuple[str, str, "int | None"]  # (kind, feature, zarr format)


def codec_rows(table: list[dict]) -> list[tuple[str, int]]:
    """The codec rows of the engine's codec table: v3 names and
    numcodecs.<id> spellings, then v2 numcodecs ids."""
    v3 = [(r["name"], 3) for r in table if r["name"]]
    v3 += [(f"numcodecs.{r['numcodecs_id']}", 3) for r in table
           if r["numcodecs_id"] and r["numcodecs_in_v3"]]
    return v3 + [(r["numcodecs_id"], 2) for r in table if r["numcodecs_id"]]


def catalogue(table: list[dict]) -> list[Key]:
    rows = [("data type", t, 3) for t in _V3_TYPES + _LOW_PRECISION]
    rows += [("data type", t, 2) for t in _V2_TYPES + _LOW_PRECISION]
    rows += [("codec", name, fmt) for name, fmt in codec_rows(table)]
    rows += [("layout", name, 3) for name in _V3_LAYOUTS]
    rows += [("layout", name, 2) for name in _V2_LAYOUTS]
    rows += [("store", name, None) for name in _STORES]
    return rows


@dataclass
class Cell:
    peers: set[str] = field(default_factory=set)
    tests: int = 0

    def text(self) -> str:
        if not self.peers:
            return NONE
        peers = ", ".join(sorted(self.peers, key=str.lower))
        return f"{peers} ({self.tests} test{'' if self.tests == 1 else 's'})"


def load(path: Path) -> list[dict]:
    records = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            if r["kind"] not in TABLES or r["way"] not in WAYS:
                raise ValueError(f"kind {r['kind']!r}, way {r['way']!r}")
            for name in ("feature", "peer", "test", "python"):
                if not isinstance(r[name], str) or not r[name]:
                    raise ValueError(f"{name} {r[name]!r}")
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{path}:{n}: not a support record: {e}") from None
        records.append(r)
    return records


def prove(records: list[dict]) -> dict[Key, dict[str, Cell]]:
    """The cells the records prove: each names its peers and counts its
    distinct passing tests (per interpreter)."""
    tests: dict[tuple[Key, str], set] = defaultdict(set)
    peers: dict[tuple[Key, str], set] = defaultdict(set)
    for r in records:
        key = (r["kind"], r["feature"], r.get("zarr_format"))
        tests[key, r["way"]].add((r["python"], r["test"]))
        peers[key, r["way"]].add(r["peer"])
    cells: dict[Key, dict[str, Cell]] = {}
    for (key, way), names in peers.items():
        cells.setdefault(key, {w: Cell() for w in WAYS})[way] = Cell(names, len(tests[key, way]))
    return cells


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _format(fmt: int | None) -> str:
    return "" if fmt is None else f"v{fmt}"


def render(cells: dict[Key, dict[str, Cell]], rows: list[Key]) -> str:
    """The document: HEADER, then a table per kind, the catalogue's rows
    first and then any other row the records prove."""
    listed = list(dict.fromkeys(rows))
    extra = sorted(set(cells) - set(listed), key=lambda k: (k[0], -(k[2] or 0), k[1]))
    out = [HEADER.rstrip("\n")]
    for kind, (title, column) in TABLES.items():
        keys = [k for k in listed + extra if k[0] == kind]
        with_format = any(k[2] is not None for k in keys)
        out.append(f"\n## {title}\n")
        head = [column] + (["format"] if with_format else []) + list(WAYS)
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for key in keys:
            cell = cells.get(key, {w: Cell() for w in WAYS})
            row = [f"`{_escape(key[1])}`"] + ([_format(key[2])] if with_format else [])
            row += [_escape(cell[w].text()) for w in WAYS]
            out.append("| " + " | ".join(row) + " |")
        if kind in NOTES:
            out.append("\n" + textwrap.fill(NOTES[kind], width=78, break_on_hyphens=False))
    return "\n".join(out) + "\n"


INTERPRETERS = "Interpreters"


def interpreters(records: list[dict]) -> dict[str, tuple[set[str], int]]:
    """Per Python version: the peers its passing interop tests ran against,
    and how many tests those were."""
    peers: dict[str, set[str]] = defaultdict(set)
    tests: dict[str, set[str]] = defaultdict(set)
    for r in records:
        peers[r["python"]].add(r["peer"])
        tests[r["python"]].add(r["test"])
    return {v: (peers[v], len(tests[v])) for v in peers}


def render_interpreters(ran: dict[str, tuple[set[str], int]]) -> str:
    out = [f"\n## {INTERPRETERS}\n", "| Python | peers | passing interop tests |", "|---|---|---|"]
    for version in sorted(ran, key=lambda v: tuple(int(p) for p in v.split("."))):
        names, count = ran[version]
        out.append(f"| {version} | {_escape(', '.join(sorted(names)))} | {count} |")
    return "\n".join(out) + "\n"


def check_interpreters(text: str, ran: dict[str, tuple[set[str], int]]) -> list[str]:
    """The interpreters the document names that no passing test ran on."""
    section = text.split(f"## {INTERPRETERS}\n", 1)
    claimed = [_split_row(line)[0] for line in section[1].splitlines()[3:]
               if line.startswith("|")] if len(section) == 2 else []
    return [f"Python {v}: no passing interop test ran on it" for v in claimed if v not in ran]


_CELL = re.compile(r"^(?P<peers>.+) \((?P<tests>\d+) tests?\)$")


def _split_row(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [c.strip().replace("\\|", "|") for c in cells]


def parse(text: str) -> dict[Key, dict[str, Cell]]:
    """What a support document claims, cell by cell."""
    titles = {title: kind for kind, (title, _) in TABLES.items()}
    claims: dict[Key, dict[str, Cell]] = {}
    kind, head = None, None
    for line in text.splitlines():
        if line.startswith("## "):
            kind, head = titles.get(line[3:].strip()), None
            continue
        if kind is None or not line.startswith("|"):
            continue
        row = _split_row(line)
        if head is None:
            head = row
            continue
        if set("".join(row)) <= set("-: "):
            continue  # the rule under the header
        values = dict(zip(head, row))
        fmt = values.get("format", "")
        key = (kind, values[head[0]].strip("`"), int(fmt[1:]) if fmt else None)
        cells = {}
        for way in WAYS:
            value = values.get(way, NONE)
            if value == NONE:
                cells[way] = Cell()
                continue
            m = _CELL.match(value)
            if not m:
                raise SystemExit(f"docs/support.md: cannot read the {way} cell of "
                                 f"{_describe(key)}: {value!r}")
            cells[way] = Cell(set(m["peers"].split(", ")), int(m["tests"]))
        claims[key] = cells
    return claims


def _describe(key: Key, way: str | None = None) -> str:
    kind, feature, fmt = key
    where = f"{kind} {feature!r}" + (f" (v{fmt})" if fmt else "")
    return f"{where}, {way}" if way else where


def check(claims: dict[Key, dict[str, Cell]],
          proven: dict[Key, dict[str, Cell]]) -> tuple[list[str], list[str]]:
    """(claims the records do not prove, proven cells the document lacks)."""
    unproven, lacking = [], []
    for key, cells in claims.items():
        for way, claim in cells.items():
            if not claim.peers:
                continue
            shown = proven.get(key, {}).get(way, Cell())
            missing = claim.peers - shown.peers
            if missing:
                unproven.append(f"{_describe(key, way)}: no passing test proves it against "
                                f"{', '.join(sorted(missing))}")
            elif claim.tests > shown.tests:
                # Fewer tests behind a proven cell (a test merged or renamed):
                # the claim holds; the count is refreshed by --write.
                lacking.append(f"{_describe(key, way)}: {shown.text()} (the document says "
                               f"{claim.tests} tests)")
    for key, cells in proven.items():
        for way, shown in cells.items():
            claim = claims.get(key, {}).get(way, Cell())
            if shown.peers - claim.peers or shown.tests > claim.tests:
                lacking.append(f"{_describe(key, way)}: {shown.text()}")
    return unproven, lacking


def _cells(n: int) -> str:
    return f"{n} cell{'' if n == 1 else 's'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="RECORDS", type=Path,
                      help="rewrite the document from these records")
    mode.add_argument("--check", metavar="RECORDS", type=Path,
                      help="fail if the document claims more than these records prove")
    parser.add_argument("--doc", type=Path, default=DOC, help="default: docs/support.md")
    args = parser.parse_args(argv)
    records_path = args.write or args.check
    if not records_path.is_file():
        parser.error(f"{records_path} does not exist: run the Python tests with "
                     "TURBOZARR_SUPPORT_RECORD naming it (make support-table)")
    records = load(records_path)
    proven, ran = prove(records), interpreters(records)
    if args.write:
        from turbozarr import _core

        args.doc.write_text(render(proven, catalogue(_core.codec_table()))
                            + render_interpreters(ran), encoding="utf-8")
        print(f"{args.doc}: {sum(bool(c.peers) for v in proven.values() for c in v.values())} "
              f"cells proven by the records in {records_path}")
        return 0
    if not args.doc.is_file():
        print(f"{args.doc} does not exist: make support-table writes it", file=sys.stderr)
        return 1
    text = args.doc.read_text(encoding="utf-8")
    unproven, lacking = check(parse(text), proven)
    unproven += check_interpreters(text, ran)
    if lacking:
        print(f"{args.doc} lacks what the tests prove ({_cells(len(lacking))}; "
              "`make support-table` adds them):")
        print("\n".join(f"  {line}" for line in lacking))
    if unproven:
        print(f"{args.doc} claims more than the tests show ({_cells(len(unproven))}; "
              "`make support-table` rewrites it from the tests):", file=sys.stderr)
        print("\n".join(f"  {line}" for line in unproven), file=sys.stderr)
        return 1
    print(f"{args.doc}: every claim is proven by {records_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
