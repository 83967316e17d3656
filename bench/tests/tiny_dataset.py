"""The tiny test runs' shared experiment-file parts: TINY_RUN, the top lines
of a run of dataset "tiny" (`{data}` and `{envs}` stay to be filled in), and
TINY_DATASET, that dataset's [datasets.tiny] table, a 64 x 48 uint8 photo
in 16 x 16 chunks (zarr v2), whose `{codec}` stays to be filled in."""

TINY_RUN = """
data_dir = "{data}"
env_dir = "{envs}"
repeats = 2
warmup = 1
dataset = ["tiny"]
"""

TINY_DATASET = """
[datasets.tiny]
shape = [64, 48]
dtype = "uint8"
chunks = [16, 16]
zarr_format = 2
codec = "{codec}"
pixels = "photo"
"""
