"""The dataset of the tiny test runs: a 64 x 48 uint8 photo in 16 x 16 chunks
(zarr v2), as an experiment file's [datasets.tiny] table; `{codec}` stays to
be filled in (str.format or str.replace)."""

TINY_DATASET = """
[datasets.tiny]
shape = [64, 48]
dtype = "uint8"
chunks = [16, 16]
zarr_format = 2
codec = "{codec}"
pixels = "photo"
"""
