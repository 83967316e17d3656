"""The terminal table: long, not wide; grouped by operation and dataset.

Each block holds rows that are directly comparable (same operation, dataset,
store, threads and cache state), one per implementation and variant, and
ends with the dataset's physical ceilings measured in the same run. The
`speedup` column is the baseline's median over the row's median (2.00x = half
the time of the baseline) against the baseline the experiment names.

The checksum column carries the audit: a row whose digest disagrees with the
majority of its (operation, dataset) cell is marked `!= MISMATCH`.

Blocks of store = http add the link: `wire MB/s` (stored bytes the server sent
per read, over the median), `link %` (that over the per-connection
bandwidth), `requests` per read and the server's `peak conns`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

GROUP_KEYS = ("op", "dataset", "store", "threads", "cache")


def _f(row: dict[str, Any], key: str) -> float | None:
    v = row.get(key)
    if v in (None, ""):
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def checksum_audit(rows: list[dict[str, Any]]) -> list[str]:
    """Per row: 'match', 'mismatch', 'unchecked' (ok but no digest) or ''.

    The expected digest of an (op, dataset) cell is the majority of the rows'
    digests; on a tie, the fixture's reference digest (where the op has one)
    decides. The auditor is never one contestant: a contestant being the odd
    one out is reportable."""
    cells: dict[tuple, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        if r.get("kind") == "ceiling" or r.get("status") != "ok":
            continue
        cells[(r.get("op"), r.get("dataset"))].append(i)
    marks = [""] * len(rows)
    for idx in cells.values():
        digests = [rows[i].get("checksum") for i in idx if rows[i].get("checksum")]
        expected = None
        if digests:
            counts = Counter(digests).most_common()
            if len(counts) == 1 or counts[0][1] > counts[1][1]:
                expected = counts[0][0]
            else:
                refs = {rows[i].get("reference_checksum") for i in idx} - {None, ""}
                if len(refs) == 1 and next(iter(refs)) in digests:
                    expected = next(iter(refs))
        for i in idx:
            d = rows[i].get("checksum")
            if not d:
                marks[i] = "unchecked"
            elif expected is None:
                marks[i] = "match" if len(set(digests)) == 1 else "mismatch"
            else:
                marks[i] = "match" if d == expected else "mismatch"
    return marks


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 100:
        return f"{s:.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} us"


def fmt_spread(row: dict[str, Any]) -> str:
    if str(row.get("repeats")) == "1":
        return "n=1"
    mad, med = _f(row, "seconds_mad"), _f(row, "seconds")
    if mad is None or med is None:
        return ""
    text = "± " + fmt_seconds(mad)
    if med > 0 and mad / med > 0.05:
        text += f" ({100 * mad / med:.0f}%)"
    return text


def link_title(row: dict[str, Any]) -> str:
    """"50 ms, 150 MB/s per connection" from an http row, or ""."""
    lat, mbps = _f(row, "latency_ms"), _f(row, "link_mbps")
    if lat is None or mbps is None:
        return ""
    rate = "unlimited bandwidth" if mbps == 0 else f"{mbps:g} MB/s per connection"
    return f"{lat:g} ms, {rate}"


def _group_title(row: dict[str, Any], describe: dict[str, str]) -> str:
    threads = row.get("threads")
    n = row.get("nthreads")
    t = f"{threads}({n})" if str(threads) == "all" and n else str(threads)
    desc = describe.get(row.get("dataset", ""), "")
    store = str(row["store"])
    link = link_title(row) if store in REMOTE_STORES else ""
    store += f"({link})" if link else ""
    return (f"{row['op']} | {row['dataset']}" + (f" [{desc}]" if desc else "")
            + f" | store={store} threads={t} cache={row['cache']}")


HTTP_HEADER = ["wire MB/s", "link %", "requests", "peak conns"]
# Stores read over the throttled link, whose rows have the link columns.
REMOTE_STORES = ("http", "s3")


def http_cells(row: dict[str, Any]) -> list[str]:
    """The link columns of an ok http row (empty cells where the server gave no
    counts)."""
    mbps, pct = _f(row, "wire_mbps"), _f(row, "link_pct")
    req, peak = _f(row, "requests"), _f(row, "peak_connections")
    return [f"{mbps:.0f}" if mbps is not None else "",
            f"{pct:.0f}%" if pct is not None else "",
            f"{req:.0f}" if req is not None else "",
            f"{peak:.0f}" if peak is not None else ""]


def render(rows: list[dict[str, Any]], baseline: str, describe: dict[str, str] | None = None,
           title: str = "") -> str:
    describe = describe or {}
    marks = checksum_audit(rows)
    groups: dict[tuple, list[int]] = {}
    ceilings: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        if r.get("kind") == "ceiling":
            ceilings[r["dataset"]].append(i)
        else:
            groups.setdefault(tuple(r.get(k) for k in GROUP_KEYS), []).append(i)
    out: list[str] = []
    if title:
        out.append(title)
    for impl in sorted({r["impl"] for r in rows if "UNOPTIMIZED" in str(r.get("versions", ""))}):
        out.append(f"WARNING: {impl} ran an unoptimized (-O0) build: its timings are not "
                   f"representative (see the versions column)")
    loads = [float(str(r.get("loadavg", "")).split()[0]) for r in rows
             if str(r.get("loadavg", "")).split()]
    ncpu = next((float(r["ncpu"]) for r in rows if r.get("ncpu")), 0.0)
    if loads and ncpu and max(loads) > ncpu:
        out.append(f"note: the load average reached {max(loads):.1f} on {ncpu:.0f} cores during "
                   f"this run; other work competed with it (see the loadavg column)")
    # Blocks in the order the run met them, operation first: the experiment's order.
    first: dict[tuple[int, Any], int] = {}
    for r in rows:
        for pos, k in enumerate(GROUP_KEYS):
            first.setdefault((pos, r.get(k)), len(first))
    order = sorted(groups, key=lambda key: tuple(first[(pos, v)] for pos, v in enumerate(key)))
    for key in order:
        idx = groups[key]
        out.append("")
        out.append("== " + _group_title(rows[idx[0]], describe))
        base = next((_f(rows[i], "seconds") for i in idx if rows[i].get("impl") == baseline
                     and rows[i].get("status") == "ok"), None)
        header = ["impl", "variant", "median", "spread", "min..max", "GB/s", "cpu/wall",
                  "RSS MB base>peak", "checksum", f"speedup vs {baseline}"]
        served = rows[idx[0]].get("store") in REMOTE_STORES
        if served:
            header += HTTP_HEADER
        table = [header]
        for i in idx:
            r = rows[i]
            if r.get("status") != "ok":
                reason = (r.get("reason") or "").replace("\n", " ")
                table.append([r["impl"], r.get("variant", ""), r["status"].upper(),
                              reason[:110]])
                continue
            med = _f(r, "seconds")
            lo, hi = _f(r, "seconds_min"), _f(r, "seconds_max")
            gbps = _f(r, "gbps")
            cpw = _f(r, "cpu_per_wall")
            rb, rp = _f(r, "rss_base_mb"), _f(r, "rss_peak_mb")
            mark = {"match": "ok", "mismatch": "!= MISMATCH", "unchecked": "unchecked"}.get(
                marks[i], "")
            digest = (r.get("checksum") or "")[:8]
            ratio = f"{base / med:.2f}x" if base and med else ""
            table.append([
                r["impl"], r.get("variant", ""), fmt_seconds(med), fmt_spread(r),
                f"{fmt_seconds(lo)}..{fmt_seconds(hi)}" if lo is not None else "",
                f"{gbps:.2f}" if gbps is not None else "",
                f"{cpw:.2f}" if cpw is not None else "",
                f"{rb:.0f}>{rp:.0f}" if rb is not None and rp is not None else "",
                f"{digest} {mark}".strip(), ratio] + (http_cells(r) if served else []))
        out.extend(_align(table))
        ds = rows[idx[0]]["dataset"]
        if ceilings.get(ds):
            parts = []
            for i in ceilings[ds]:
                c = rows[i]
                if c.get("status") == "ok":
                    parts.append(f"{c['variant']} {fmt_seconds(_f(c, 'seconds'))} "
                                 f"({_f(c, 'gbps') or 0:.2f} GB/s)")
                else:
                    parts.append(f"{c['variant']} n/a")
            out.append("   ceilings: " + " | ".join(parts))
    return "\n".join(out)


def _align(table: list[list[str]]) -> list[str]:
    full = [r for r in table if len(r) == len(table[0])]
    widths = [max(len(str(r[c])) for r in full) for c in range(len(table[0]))]
    lines = []
    for r in table:
        if len(r) == len(table[0]):
            lines.append("  " + "  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())
        else:  # a status row: impl, variant, STATUS, reason
            lines.append("  " + str(r[0]).ljust(widths[0]) + "  " + str(r[1]).ljust(widths[1])
                         + "  " + f"{r[2]}: {r[3]}")
    return lines


def render_markdown(rows: list[dict[str, Any]], baseline: str) -> str:
    """Compact Markdown for docs: one table per operation, a line per
    (dataset, store, threads, cache), a column per implementation holding the
    median and the speedup against the baseline. `≠` marks a checksum
    mismatch; a case without a number shows its status."""
    marks = checksum_audit(rows)
    cases = [(r, m) for r, m in zip(rows, marks) if r.get("kind") != "ceiling"]
    first: dict[Any, int] = {}
    for r, _ in cases:
        for k in ("op", "dataset", "store", "threads", "cache"):
            first.setdefault((k, r.get(k)), len(first))
        first.setdefault(("series", _series(r)), len(first))
    out = []
    for op in sorted({r["op"] for r, _ in cases}, key=lambda o: first[("op", o)]):
        items = [(r, m) for r, m in cases if r["op"] == op]
        series = sorted({_series(r) for r, _ in items}, key=lambda s: first[("series", s)])
        # a series with no number anywhere in this table gets no column
        series = [s for s in series if any(_series(r) == s and r["status"] == "ok"
                                           for r, _ in items)]
        lines = sorted({tuple(r[k] for k in ("dataset", "store", "threads", "cache"))
                        for r, _ in items},
                       key=lambda t: [first[(k, v)] for k, v in
                                      zip(("dataset", "store", "threads", "cache"), t)])
        out.append(f"**{op}** (median; in brackets the speedup vs {baseline})")
        out.append("")
        out.append("| dataset | store | threads | cache | " + " | ".join(series) + " |")
        out.append("|---|---|---|---|" + "---|" * len(series))
        for line in lines:
            here = [(r, m) for r, m in items
                    if tuple(r[k] for k in ("dataset", "store", "threads", "cache")) == line]
            base = next((_f(r, "seconds") for r, _ in here
                         if r["impl"] == baseline and r["status"] == "ok"), None)
            cells = []
            for s_ in series:
                hit = [(r, m) for r, m in here if _series(r) == s_]
                if not hit:
                    cells.append("")
                    continue
                r, m = hit[0]
                if r["status"] != "ok":
                    cells.append(r["status"])
                    continue
                med = _f(r, "seconds")
                text = fmt_seconds(med)
                if base and med:
                    text += f" ({base / med:.2f}x)"
                if m == "mismatch":
                    text += " ≠"
                cells.append(text)
            out.append("| " + " | ".join(line) + " | " + " | ".join(cells) + " |")
        out.append("")
        for store in REMOTE_STORES:
            served = [(r, m) for r, m in items if r.get("store") == store]
            if any(r["status"] == "ok" for r, _ in served):
                out.extend(_markdown_link_table(op, store, served, series, first))
    ceil = [r for r in rows if r.get("kind") == "ceiling" and r.get("status") == "ok"]
    if ceil:
        out.append("Ceilings in GB/s (pagecache: stored bytes; the others: decoded bytes):")
        out.append("")
        order = ["memcpy", "pagecache", "decode-1", "decode-all"]
        names = sorted({r["variant"] for r in ceil}, key=order.index)
        dsets = sorted({r["dataset"] for r in ceil}, key=lambda d: first.get(("dataset", d), 0))
        out.append("| dataset | " + " | ".join(names) + " |")
        out.append("|---|" + "---|" * len(names))
        for d in dsets:
            vals = []
            for n in names:
                hit = [r for r in ceil if r["dataset"] == d and r["variant"] == n]
                vals.append(f"{_f(hit[0], 'gbps'):.2f}" if hit and _f(hit[0], "gbps") else "-")
            out.append(f"| {d} | " + " | ".join(vals) + " |")
        out.append("")
    return "\n".join(out)


def _markdown_link_table(op: str, store: str, items: list[tuple[dict[str, Any], str]],
                         series: list[str], first: dict[Any, int]) -> list[str]:
    """The link columns of an operation's rows over one remote store, one cell
    per series."""
    link = next((link_title(r) for r, _ in items if link_title(r)), "")
    series = [s_ for s_ in series if any(_series(r) == s_ and r["status"] == "ok"
                                         for r, _ in items)]
    keys = ("dataset", "threads", "cache")
    lines = sorted({tuple(r[k] for k in keys) for r, _ in items},
                   key=lambda t: [first[(k, v)] for k, v in zip(keys, t)])
    out = [f"**{op} over {store.upper()}** ({link}): stored MB/s over the wire per read, link % (that "
           f"over the per-connection bandwidth), requests per read, peak connections", "",
           "| dataset | threads | cache | " + " | ".join(series) + " |",
           "|---|---|---|" + "---|" * len(series)]
    for line in lines:
        cells = []
        for s_ in series:
            hit = [r for r, _ in items
                   if _series(r) == s_ and tuple(r[k] for k in keys) == line]
            if not hit:
                cells.append("")
            elif hit[0]["status"] != "ok":
                cells.append(hit[0]["status"])
            else:
                mbps, pct, req, peak = http_cells(hit[0])
                parts = [f"{mbps} MB/s" if mbps else "", pct, f"{req} req" if req else "",
                         f"{peak} conn" if peak else ""]
                cells.append(", ".join(p for p in parts if p) if mbps else "no server counts")
        out.append("| " + " | ".join(line) + " | " + " | ".join(cells) + " |")
    out.append("")
    return out


def _series(r: dict[str, Any]) -> str:
    return r["impl"] + (f" [{r['variant']}]" if r.get("variant") else "")
