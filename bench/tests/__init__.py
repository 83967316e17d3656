"""Tests of the benchmark harness (bench/turbozarr_bench)."""
