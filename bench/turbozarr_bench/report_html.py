"""One self-contained HTML report of a results CSV (no network, no dependencies).

Views, all scoped by one filter row (run, operation, dataset, store, threads,
cache, implementation):
- Timing: median wall time per row, one card per operation, grouped by
  dataset (and store/threads/cache where those vary), min/max whiskers;
  linear or log scale; absolute seconds or the ratio to a chosen baseline.
  The dataset's physical ceilings appear as grey bars in absolute mode.
- Coverage: implementation x case, coloured ok / unsupported / unavailable /
  failed, the reason on hover.
- Memory & CPU: RSS before the case and what the case added on top of it,
  and CPU seconds over wall seconds (a rule at 1.0: one core busy).
- Table: every row, for reading exact numbers.
Rows whose checksum disagrees with the majority of their (operation, dataset)
cell are hatched and marked with "≠" on every chart. Rows read over the
throttled link (store = http or s3) also show the wire rate and link % beside
their bar, and the server's requests and peak connections on hover and in
the table.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from turbozarr_bench.results_csv import read_rows
from turbozarr_bench.table import checksum_audit

NUMERIC = ("seconds", "seconds_mad", "seconds_min", "seconds_max", "cpu_seconds",
           "cpu_per_wall", "nbytes", "stored_bytes", "gbps", "rss_import_mb", "rss_base_mb",
           "rss_peak_mb", "resident_before", "sync_seconds", "nthreads", "repeats",
           "wire_bytes", "wire_mbps", "latency_ms", "link_mbps", "requests", "peak_connections",
           "link_pct")
KEEP = ("run_id", "timestamp", "experiment", "kind", "op", "dataset", "workload", "impl",
        "variant", "store", "threads", "cache", "status", "reason", "checksum", "versions",
        "loadavg", "note", "machine", "cpu_model", "ncpu", "mem_gb", "kernel")


def _num(v: str) -> float | None:
    try:
        return float(v) if v not in ("", None) else None
    except ValueError:
        return None


def build_data(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    # The audit is per run: a cell's majority is taken among the rows of one run.
    marks = [""] * len(rows)
    by_run: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_run.setdefault(r["run_id"], []).append(i)
    for idx in by_run.values():
        for i, m in zip(idx, checksum_audit([rows[i] for i in idx])):
            marks[i] = m
    out = []
    for r, m in zip(rows, marks):
        d: dict[str, Any] = {k: r.get(k, "") for k in KEEP}
        for k in NUMERIC:
            d[k] = _num(r.get(k, ""))
        d["audit"] = m
        out.append(d)
    return out


def write_report(csv_path: Path, out_path: Path) -> None:
    rows = read_rows(csv_path)
    data = build_data(rows)
    doc = TEMPLATE.replace("__TITLE__", html.escape(f"turbozarr-bench: {Path(csv_path).name}"))
    doc = doc.replace("__DATA__", json.dumps(data).replace("</", "<\\/"))
    Path(out_path).write_text(doc)


TEMPLATE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>__TITLE__</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2430;background:#fafbfc}
header{padding:12px 20px;background:#fff;border-bottom:1px solid #dde2e8}
h1{font-size:18px;margin:0 0 4px}
.meta{color:#5a6472;font-size:12px}
.warn{color:#9a4d00;font-weight:600}
#filters{display:flex;flex-wrap:wrap;gap:14px;padding:10px 20px;background:#fff;border-bottom:1px solid #dde2e8}
#filters fieldset{border:1px solid #dde2e8;border-radius:6px;padding:4px 8px;margin:0}
#filters legend{font-size:11px;color:#5a6472}
#filters label{margin-right:8px;font-size:12px;white-space:nowrap}
nav{padding:8px 20px}
nav button{border:1px solid #c5ccd6;background:#fff;padding:5px 12px;border-radius:5px;cursor:pointer}
nav button.on{background:#1d2430;color:#fff}
.controls{padding:0 20px 8px;font-size:12px}
.controls label{margin-right:14px}
.card{background:#fff;border:1px solid #dde2e8;border-radius:8px;margin:10px 20px;padding:10px 14px}
.card h2{font-size:15px;margin:0 0 6px}
svg text{font-size:11px;fill:#1d2430}
.legend span{display:inline-block;margin-right:12px;font-size:12px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border-radius:2px}
table.rows{border-collapse:collapse;font-size:12px}
table.rows td,table.rows th{border-bottom:1px solid #eceff3;padding:3px 7px;text-align:left;white-space:nowrap}
table.cov td{width:18px;height:18px;border:1px solid #fff;text-align:center;font-size:11px}
table.cov th{font-size:11px;font-weight:normal;padding:2px 6px;text-align:left}
table.cov th.col{writing-mode:vertical-rl;transform:rotate(180deg);height:auto;max-height:240px}
.s-ok{background:#3d8b5a}.s-unsupported{background:#c9ced6}.s-unavailable{background:#e0a53a}.s-failed{background:#c4403a}
.hidden{display:none}
</style></head><body>
<header><h1>__TITLE__</h1><div class="meta" id="meta"></div></header>
<div id="filters"></div>
<nav><button data-view="timing" class="on">Timing</button> <button data-view="coverage">Coverage</button>
<button data-view="memory">Memory &amp; CPU</button> <button data-view="table">Table</button></nav>
<div class="controls" id="ctl-timing">
 <label>scale <select id="scale"><option value="lin">linear</option><option value="log">log</option></select></label>
 <label>value <select id="value"><option value="abs">seconds</option><option value="ratio">ratio to baseline</option></select></label>
 <label>baseline <select id="baseline"></select></label>
 <label><input type="checkbox" id="hatch"> texture per series</label>
</div>
<div id="view"></div>
<script>
const DATA = __DATA__;
const $ = s => document.querySelector(s);
const uniq = a => [...new Set(a)];
const esc = s => String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
const series = r => r.kind === "ceiling" ? "ceiling: " + r.variant : r.impl + (r.variant ? " [" + r.variant + "]" : "");
const PALETTE = ["#2f6db5","#d0672a","#3d8b5a","#8d4fb0","#b8a12c","#2a9ca0","#c4406f","#6b7a8f","#7a5a2e"];
const colours = {};
uniq(DATA.filter(r => r.kind !== "ceiling").map(series)).sort().forEach((s, i) => colours[s] = PALETTE[i % PALETTE.length]);
const colour = s => s.startsWith("ceiling") ? "#b9c0ca" : colours[s];
const FKEYS = ["run_id","op","dataset","store","threads","cache","impl"];
const filt = {};
let view = "timing";

function fmtS(s){ if (s == null) return "-"; if (s >= 100) return s.toFixed(0)+" s"; if (s >= 1) return s.toFixed(2)+" s";
  if (s >= 1e-3) return (s*1e3).toFixed(1)+" ms"; return (s*1e6).toFixed(0)+" us"; }

// Store = http: the stored bytes the server sent per read, their rate, and the
// share of the per-connection bandwidth.
function linkText(r){ return r.wire_mbps == null ? "" : ` · wire ${r.wire_mbps.toFixed(0)} MB/s` + (r.link_pct == null ? "" : ` (${r.link_pct.toFixed(0)}% of link)`); }
function linkTitle(r){ return r.store !== "http" && r.store !== "s3" ? "" : `\nlink: ${r.latency_ms ?? "?"} ms, ${r.link_mbps ? r.link_mbps + " MB/s per connection" : "unlimited"}; wire ${r.wire_mbps == null ? "-" : r.wire_mbps.toFixed(1) + " MB/s"}, ${r.requests == null ? "-" : r.requests.toFixed(0)} requests per read, peak ${r.peak_connections ?? "-"} connections`; }

function init(){
  const runs = uniq(DATA.map(r => r.run_id)).sort();
  const first = DATA[0] || {};
  const loads = DATA.map(r => parseFloat((r.loadavg||"").split(" ")[0])).filter(x => !isNaN(x));
  const maxLoad = loads.length ? Math.max(...loads) : 0;
  const ncpu = parseFloat(first.ncpu) || 0;
  $("#meta").innerHTML = `${DATA.length} rows, ${runs.length} run(s): ${runs.map(esc).join(", ")}<br>` +
    `machine ${esc(first.machine)} · ${esc(first.cpu_model)} · ${esc(first.ncpu)} cores · ${esc(first.mem_gb)} GiB · kernel ${esc(first.kernel)}` +
    (ncpu && maxLoad > ncpu ? `<br><span class="warn">load average reached ${maxLoad.toFixed(1)} on ${ncpu} cores: other work competed with these runs; compare rows within one run.</span>` : "");
  const f = $("#filters");
  for (const k of FKEYS){
    const vals = uniq(DATA.filter(r => r.kind !== "ceiling" || !["op","impl"].includes(k)).map(r => r[k])).sort();
    filt[k] = new Set(k === "run_id" ? [runs[runs.length-1]] : vals);
    if (vals.length < 2) continue;
    const fs = document.createElement("fieldset");
    fs.innerHTML = `<legend>${k === "run_id" ? "run" : k}</legend>` + vals.map(v =>
      `<label><input type="checkbox" data-k="${k}" value="${esc(v)}" ${filt[k].has(v) ? "checked" : ""}>${esc(v || "(none)")}</label>`).join("");
    f.appendChild(fs);
  }
  f.addEventListener("change", e => { const k = e.target.dataset.k; if (!k) return;
    e.target.checked ? filt[k].add(e.target.value) : filt[k].delete(e.target.value); render(); });
  const impls = uniq(DATA.filter(r => r.kind !== "ceiling").map(series)).sort();
  const okImpls = uniq(DATA.filter(r => r.kind !== "ceiling" && r.status === "ok").map(series));
  const pick = okImpls.filter(s => s.startsWith("zarr-python")).sort()[0] || okImpls.sort()[0];
  $("#baseline").innerHTML = impls.map(s => `<option ${s === pick ? "selected" : ""}>${esc(s)}</option>`).join("");
  for (const id of ["scale","value","baseline","hatch"]) $("#"+id).addEventListener("change", render);
  document.querySelectorAll("nav button").forEach(b => b.addEventListener("click", () => {
    document.querySelectorAll("nav button").forEach(x => x.classList.remove("on"));
    b.classList.add("on"); view = b.dataset.view; render(); }));
  const h = new URLSearchParams(location.hash.slice(1));  // e.g. #view=coverage&scale=log
  for (const id of ["scale","value"]) if (h.get(id)) $("#"+id).value = h.get(id);
  if (h.get("view")) document.querySelector(`nav button[data-view="${h.get("view")}"]`)?.click();
  else render();
}

function rows(){
  return DATA.filter(r => FKEYS.every(k => r.kind === "ceiling" && (k === "op" || k === "impl" || k === "threads" || k === "store" || k === "cache") ? true : filt[k].has(r[k])));
}

function groupKey(r, vary){ return [r.dataset, ...vary.map(k => k + "=" + r[k])].join(" · "); }

function render(){
  $("#ctl-timing").classList.toggle("hidden", view !== "timing");
  const rs = rows();
  const v = $("#view"); v.innerHTML = "";
  if (!rs.length){ v.innerHTML = '<div class="card">No rows match the filters.</div>'; return; }
  ({timing, coverage, memory, table})[view](rs, v);
}

function varying(rs){ return ["store","threads","cache"].filter(k => uniq(rs.filter(r => r.kind !== "ceiling").map(r => r[k])).length > 1); }

function legend(names){ return '<div class="legend">' + names.map(s => `<span><i style="background:${colour(s)}"></i>${esc(s)}</span>`).join("") + "</div>"; }

function patternDefs(){ return `<defs><pattern id="mm" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c4403a" stroke-width="3"/></pattern>
  <pattern id="h45" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="1.5"/></pattern>
  <pattern id="h135" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(135)"><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="1.5"/></pattern></defs>`; }

function barChart(groups, opts){
  // groups: [{label, bars:[{name, value, lo, hi, text, mark, title}]}]
  const W = 980, L = 240, R = 250, BH = 16, GAP = 10;
  let n = 0; groups.forEach(g => n += g.bars.length);
  const H = n * BH + groups.length * (GAP + 16) + 24;
  const vals = groups.flatMap(g => g.bars.flatMap(b => [b.value, b.hi].filter(x => x != null && x > 0)));
  if (!vals.length) return "<p>No numbers to draw.</p>";
  const log = opts.log, max = Math.max(...vals, opts.rule ?? 0) * 1.05, min = log ? Math.min(...vals) / 1.5 : 0;
  const x = val => L + (W - L - R) * (log ? (Math.log(Math.max(val, min)) - Math.log(min)) / (Math.log(max) - Math.log(min)) : val / max);
  let y = 8, s = `<svg width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${patternDefs()}`;
  if (opts.rule != null){ const rx = x(opts.rule); s += `<line x1="${rx}" x2="${rx}" y1="0" y2="${H-16}" stroke="#1d2430" stroke-dasharray="3 3"/><text x="${rx+3}" y="${H-4}">${esc(opts.ruleLabel)}</text>`; }
  for (const g of groups){
    s += `<text x="4" y="${y+11}" font-weight="600">${esc(g.label)}</text>`; y += 16;
    for (const b of g.bars){
      s += `<text x="12" y="${y+12}">${esc(b.name.length > 34 ? b.name.slice(0,33)+"…" : b.name)}</text>`;
      if (b.value == null){ s += `<text x="${L+4}" y="${y+12}" fill="#6b7a8f">${esc(b.text)}</text>`; y += BH; continue; }
      const w = Math.max(1, x(b.value) - L);
      const fill = b.mark === "mismatch" ? "url(#mm)" : colour(b.name);
      s += `<g><title>${esc(b.title)}</title><rect x="${L}" y="${y+2}" width="${w}" height="${BH-4}" fill="${fill}" stroke="${b.mark === "mismatch" ? "#c4403a" : "none"}"/>`;
      if ($("#hatch").checked && b.hatch) s += `<rect x="${L}" y="${y+2}" width="${w}" height="${BH-4}" fill="url(#${b.hatch})"/>`;
      if (b.lo != null && b.hi != null && b.hi > b.lo){ const a = x(b.lo), c = x(b.hi), m = y + BH/2;
        s += `<line x1="${a}" x2="${c}" y1="${m}" y2="${m}" stroke="#1d2430"/><line x1="${a}" x2="${a}" y1="${m-4}" y2="${m+4}" stroke="#1d2430"/><line x1="${c}" x2="${c}" y1="${m-4}" y2="${m+4}" stroke="#1d2430"/>`; }
      s += `<text x="${Math.max(x(b.value), b.hi != null ? x(b.hi) : 0) + 4}" y="${y+12}">${esc(b.text)}${b.mark === "mismatch" ? " ≠ checksum" : ""}</text></g>`;
      y += BH;
    }
    y += GAP;
  }
  return s + "</svg>";
}

function timing(rs, v){
  const vary = varying(rs), ratio = $("#value").value === "ratio", log = $("#scale").value === "log";
  const base = $("#baseline").value;
  const ops = uniq(rs.filter(r => r.kind !== "ceiling").map(r => r.op)).sort();
  for (const op of ops){
    const mine = rs.filter(r => r.op === op && r.kind !== "ceiling");
    const keys = uniq(mine.map(r => groupKey(r, vary)));
    const names = new Set();
    const groups = keys.map(k => {
      const g = mine.filter(r => groupKey(r, vary) === k);
      const b = g.find(r => series(r) === base && r.status === "ok");
      const bars = g.map((r, i) => { names.add(series(r));
        const title = `${series(r)}\n${r.status}${r.reason ? ": " + r.reason : ""}\nmedian ${fmtS(r.seconds)} (min ${fmtS(r.seconds_min)}, max ${fmtS(r.seconds_max)}, n=${r.repeats})\nchecksum ${r.checksum || "-"} (${r.audit || "n/a"})${linkTitle(r)}\n${r.versions}\nload ${r.loadavg}`;
        if (r.status !== "ok" || r.seconds == null) return {name: series(r), value: null, text: r.status + (r.reason ? ": " + r.reason.slice(0, 70) : ""), title};
        if (ratio){ if (!b) return {name: series(r), value: null, text: "no baseline in this group", title};
          return {name: series(r), value: r.seconds / b.seconds, lo: r.seconds_min / b.seconds, hi: r.seconds_max / b.seconds, text: (r.seconds / b.seconds).toFixed(2) + "x", mark: r.audit, title, hatch: i % 2 ? "h135" : "h45"}; }
        return {name: series(r), value: r.seconds, lo: r.seconds_min, hi: r.seconds_max, text: fmtS(r.seconds) + (r.gbps ? ` · ${r.gbps.toFixed(2)} GB/s` : "") + linkText(r), mark: r.audit, title, hatch: i % 2 ? "h135" : "h45"}; });
      if (!ratio){ const ds = g[0].dataset;
        for (const c of rs.filter(r => r.kind === "ceiling" && r.dataset === ds && r.status === "ok" && filt.run_id.has(r.run_id)))
          bars.push({name: series(c), value: c.seconds, text: `${fmtS(c.seconds)} · ${c.gbps ? c.gbps.toFixed(2) : "?"} GB/s (${c.variant === "pagecache" ? "stored bytes" : "decoded bytes"})`, title: `${series(c)}: ${c.note}`}); }
      return {label: k, bars};
    });
    const card = document.createElement("div"); card.className = "card";
    card.innerHTML = `<h2>${esc(op)}</h2>` + legend([...names].sort()) + barChart(groups, {log, rule: ratio ? 1 : null, ruleLabel: "baseline"}) +
      (ratio ? "<p class='meta'>Ratio = row median / baseline median: below 1 is faster than the baseline.</p>" : "<p class='meta'>Median of the timed runs; whiskers span min to max. Grey bars: this dataset's physical ceilings from the same run.</p>");
    v.appendChild(card);
  }
}

function coverage(rs, v){
  const cases = rs.filter(r => r.kind !== "ceiling");
  const vary = varying(cases);
  const cols = uniq(cases.map(r => r.op + " · " + groupKey(r, vary))).sort();
  const rowsN = uniq(cases.map(series)).sort();
  let s = '<table class="cov"><tr><th></th>' + cols.map(c => `<th class="col">${esc(c)}</th>`).join("") + "</tr>";
  for (const n of rowsN){
    s += `<tr><th>${esc(n)}</th>`;
    for (const c of cols){
      const r = cases.find(r => series(r) === n && r.op + " · " + groupKey(r, vary) === c);
      s += r ? `<td class="s-${r.status}" title="${esc(r.status + (r.reason ? ": " + r.reason : ""))}">${r.audit === "mismatch" ? "≠" : ""}</td>` : "<td></td>";
    }
    s += "</tr>";
  }
  s += "</table>";
  const card = document.createElement("div"); card.className = "card";
  card.innerHTML = "<h2>Coverage</h2><div class='legend'><span><i class='s-ok'></i>ok</span><span><i class='s-unsupported'></i>unsupported</span><span><i class='s-unavailable'></i>unavailable</span><span><i class='s-failed'></i>failed</span></div>" + s + "<p class='meta'>Hover a cell for the adapter's reason.</p>";
  v.appendChild(card);
}

function memory(rs, v){
  const vary = varying(rs);
  const ok = rs.filter(r => r.kind !== "ceiling" && r.status === "ok");
  for (const op of uniq(ok.map(r => r.op)).sort()){
    const mine = ok.filter(r => r.op === op);
    const keys = uniq(mine.map(r => groupKey(r, vary)));
    const names = uniq(mine.map(series)).sort();
    const rssGroups = keys.map(k => ({label: k, bars: mine.filter(r => groupKey(r, vary) === k).map(r => ({
      name: series(r), value: r.rss_peak_mb, lo: r.rss_base_mb, hi: r.rss_peak_mb, mark: r.audit,
      text: `peak ${r.rss_peak_mb?.toFixed(0)} MB (before the case ${r.rss_base_mb?.toFixed(0)}, +${(r.rss_peak_mb - r.rss_base_mb).toFixed(0)})`,
      title: `${series(r)}: RSS after imports ${r.rss_import_mb?.toFixed(0)} MB, before the timed runs ${r.rss_base_mb?.toFixed(0)} MB, peak ${r.rss_peak_mb?.toFixed(0)} MB`}))}));
    const cpuGroups = keys.map(k => ({label: k, bars: mine.filter(r => groupKey(r, vary) === k).map(r => ({
      name: series(r), value: r.cpu_per_wall, text: `${r.cpu_per_wall?.toFixed(2)} cpu/wall (${fmtS(r.cpu_seconds)} CPU)`, mark: r.audit,
      title: `${series(r)}: ${fmtS(r.cpu_seconds)} CPU over ${fmtS(r.seconds)} wall`}))}));
    const card = document.createElement("div"); card.className = "card";
    card.innerHTML = `<h2>${esc(op)}: peak RSS</h2>` + legend(names) + barChart(rssGroups, {log: false}) +
      "<p class='meta'>Bar: peak RSS of the case's process; whisker from the RSS before the timed runs (imports + inputs) to the peak, i.e. what the operation itself added.</p>" +
      `<h2>${esc(op)}: CPU / wall</h2>` + barChart(cpuGroups, {log: false, rule: 1, ruleLabel: "one core"});
    v.appendChild(card);
  }
}

function table(rs, v){
  const served = rs.some(r => r.store === "http" || r.store === "s3");
  const cols = ["run_id","op","dataset","store","threads","cache","impl","variant","status","seconds","seconds_mad","seconds_min","seconds_max","gbps",
    ...(served ? ["wire_mbps","link_pct","requests","peak_connections"] : []),
    "cpu_per_wall","rss_base_mb","rss_peak_mb","resident_before","checksum","audit","loadavg","versions","reason","note"];
  let s = '<table class="rows"><tr>' + cols.map(c => `<th>${c}</th>`).join("") + "</tr>";
  for (const r of rs) s += "<tr>" + cols.map(c => { let x = r[c]; if (typeof x === "number") x = c.startsWith("seconds") ? fmtS(x) : x.toFixed(2); return `<td>${esc(x)}</td>`; }).join("") + "</tr>";
  const card = document.createElement("div"); card.className = "card"; card.style.overflowX = "auto";
  card.innerHTML = s + "</table>"; v.appendChild(card);
}
init();
</script></body></html>
"""
