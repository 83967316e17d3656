"""Page-cache control and RSS probes work on this kernel."""

from __future__ import annotations

from turbozarr_bench import measure


def test_evict_and_resident_fraction(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"x" * (1 << 20))
    p.read_bytes()
    assert measure.resident_fraction([p]) == 1.0
    measure.evict([p])
    assert measure.resident_fraction([p]) < 0.5
    p.read_bytes()
    assert measure.resident_fraction([p]) == 1.0


def test_rss_probes():
    assert measure.rss_mb() > 1
    assert measure.peak_rss_mb() >= measure.rss_mb() - 1
    if measure.reset_peak_rss():
        assert abs(measure.peak_rss_mb() - measure.rss_mb()) < 5
    assert measure.cpu_seconds() > 0
