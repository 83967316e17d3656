"""turbozarr-bench: config-driven, audited benchmarks of turbozarr against its peers.

An experiment is one TOML file (bench/experiments/*.toml). The parent process
reads and validates it, installs one isolated environment per implementation,
generates the fixtures with plain zarr-python, then runs every case in a child
process of its own and appends one CSV row per case. See docs/benchmarks.md.

Modules imported inside the children (child.py, ops.py, measure.py,
checksum.py, adapters/*, datasets/pixels.py) use only the standard library and
numpy, because they run in every peer's environment.
"""
