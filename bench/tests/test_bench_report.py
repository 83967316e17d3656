"""The HTML report is self-contained and carries the audit."""

from __future__ import annotations

import json
import re

from turbozarr_bench import cli
from turbozarr_bench.results_csv import Appender


def test_report_is_self_contained(tmp_path):
    csv_path = tmp_path / "r.csv"
    base = {"run_id": "r1", "kind": "impl", "op": "read_full", "dataset": "d", "store": "local",
            "threads": "all", "cache": "warm", "status": "ok", "repeats": 3, "seconds_min": 0.9,
            "seconds_max": 1.1, "loadavg": "0.1 0.1 0.1", "ncpu": 2}
    with Appender(csv_path) as a:
        a.write({**base, "impl": "x", "seconds": 1.0, "checksum": "aa"})
        a.write({**base, "impl": "y", "seconds": 0.5, "checksum": "aa"})
        a.write({**base, "impl": "z", "seconds": 0.2, "checksum": "bb"})
        a.write({**base, "impl": "w", "status": "unsupported", "reason": "cannot <do> it"})
    out = tmp_path / "r.html"
    assert cli.main(["report", str(csv_path), "-o", str(out)]) == 0
    text = out.read_text()
    assert not re.search(r'(src|href)\s*=\s*"https?:', text)
    assert "<script src" not in text and "@import" not in text
    data = json.loads(re.search(r"const DATA = (.*);\n", text).group(1))
    assert [d["audit"] for d in data] == ["match", "match", "mismatch", ""]
    assert data[3]["reason"] == "cannot <do> it"
    assert "</script>" not in re.search(r"const DATA = (.*);\n", text).group(1)
    for view in ("Timing", "Coverage", "Memory &amp; CPU"):
        assert view in text
