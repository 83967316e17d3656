"""Statistics, the CSV schema check, checksums and the majority audit."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from turbozarr_bench.checksum import ArrayDigest, RegionDigests, array_digest
from turbozarr_bench.measure import summarize
from turbozarr_bench.results_csv import COLUMNS, Appender, SchemaError, read_rows
from turbozarr_bench.table import checksum_audit, fmt_spread, render


def test_summarize_median_mad_min_max():
    s = summarize([1.0, 2.0, 10.0])
    assert s == {"median": 2.0, "mad": 1.0, "min": 1.0, "max": 10.0}
    s = summarize([4.0, 1.0, 3.0, 2.0])
    assert s["median"] == 2.5 and s["mad"] == 1.0
    assert summarize([0.5]) == {"median": 0.5, "mad": 0.0, "min": 0.5, "max": 0.5}
    with pytest.raises(ValueError):
        summarize([])


def test_spread_says_n1_for_one_repeat():
    assert fmt_spread({"repeats": "1", "seconds": "1", "seconds_mad": "0"}) == "n=1"
    assert fmt_spread({"repeats": 3, "seconds": 1.0, "seconds_mad": 0.2}) == "± 200.0 ms (20%)"


def test_csv_appends_under_one_header(tmp_path):
    p = tmp_path / "r.csv"
    with Appender(p) as a:
        a.write({"run_id": "1", "status": "ok", "seconds": 0.5})
    with Appender(p) as a:
        a.write({"run_id": "2", "status": "failed", "reason": "x"})
    rows = read_rows(p)
    assert [r["run_id"] for r in rows] == ["1", "2"]
    assert rows[0]["seconds"] == "0.5" and rows[1]["reason"] == "x"
    with open(p) as f:
        assert next(csv.reader(f)) == COLUMNS


def test_csv_with_another_header_is_refused(tmp_path):
    p = tmp_path / "old.csv"
    p.write_text("run_id,seconds\n1,2\n")
    before = p.read_text()
    with pytest.raises(SchemaError, match="missing"):
        Appender(p)
    with pytest.raises(SchemaError):
        read_rows(p)
    assert p.read_text() == before
    reordered = tmp_path / "reordered.csv"
    reordered.write_text(",".join(reversed(COLUMNS)) + "\n")
    with pytest.raises(SchemaError, match="order"):
        Appender(reordered)


def test_csv_rejects_unknown_fields(tmp_path):
    with Appender(tmp_path / "r.csv") as a, pytest.raises(ValueError):
        a.write({"run_id": "1", "bogus": 1})


def test_digest_is_slab_independent_and_shape_sensitive():
    a = np.arange(1000, dtype=np.uint16).reshape(10, 100)
    d = ArrayDigest(a.shape, a.dtype)
    for i in range(0, 10, 3):
        d.update(a[i:i + 3])
    assert d.hexdigest() == array_digest(a)
    assert array_digest(a) != array_digest(a.reshape(100, 10))
    assert array_digest(a) != array_digest(a.astype(np.int16))
    b = a.copy()
    b[5, 5] += 1
    assert array_digest(a) != array_digest(b)
    assert array_digest(np.asfortranarray(a)) == array_digest(a)


def test_region_digests_ignore_arrival_order():
    parts = [np.full(4, i, np.uint8) for i in range(5)]
    x, y = RegionDigests(), RegionDigests()
    for i in range(5):
        x.add(i, parts[i])
    for i in reversed(range(5)):
        y.add(i, parts[i])
    assert x.hexdigest() == y.hexdigest()
    y.add(2, parts[3])
    assert x.hexdigest() != y.hexdigest()


def _row(impl, digest, op="read_full", ref=""):
    return {"kind": "impl", "status": "ok", "op": op, "dataset": "d", "impl": impl,
            "checksum": digest, "reference_checksum": ref, "seconds": "1", "store": "local",
            "threads": "all", "cache": "warm", "variant": ""}


def test_audit_marks_the_minority():
    rows = [_row("a", "x"), _row("b", "x"), _row("c", "y"), _row("d", "", op="read_full")]
    assert checksum_audit(rows) == ["match", "match", "mismatch", "unchecked"]


def test_audit_tie_is_broken_by_the_reference():
    rows = [_row("a", "x", "write_full", "x"), _row("b", "y", "write_full", "x")]
    assert checksum_audit(rows) == ["match", "mismatch"]
    # without a reference a tie cannot be settled: both are suspect
    rows = [_row("a", "x"), _row("b", "y")]
    assert checksum_audit(rows) == ["mismatch", "mismatch"]


def test_audit_cells_are_per_op_and_dataset():
    rows = [_row("a", "x"), _row("a", "z", op="read_chunks")]
    assert checksum_audit(rows) == ["match", "match"]


def test_table_has_ratio_against_baseline_and_marks():
    rows = [_row("zarr-python", "x"), _row("fast", "x"), _row("liar", "y")]
    rows[0]["seconds"], rows[1]["seconds"], rows[2]["seconds"] = "2", "0.5", "0.1"
    text = render(rows, "zarr-python")
    assert "speedup vs zarr-python" in text
    assert "4.00x" in text and "1.00x" in text
    assert "!= MISMATCH" in text


def test_results_of_an_older_schema_are_set_aside_not_lost(tmp_path, capsys):
    path = tmp_path / "exp.csv"
    older = COLUMNS[:-3]  # a file written before the last three columns existed
    path.write_text(",".join(older) + "\n" + ",".join("x" for _ in older) + "\n")
    with Appender(path) as out:
        out.write({"op": "read_full"})
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("exp.before-")]
    assert len(kept) == 1 and kept[0].read_text().splitlines()[0] == ",".join(older)
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)
    assert [r["op"] for r in read_rows(path)] == ["read_full"]
    assert "older version" in capsys.readouterr().err
    # a header that is not one of ours is still refused, and left alone
    path.write_text("a,b\n1,2\n")
    with pytest.raises(SchemaError):
        Appender(path)
    assert path.read_text() == "a,b\n1,2\n"
