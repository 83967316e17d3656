"""VCF Zarr (VCZ) datasets: what `turbozarr vcz` does, from Python.

The functions take a dataset as `turbozarr.open_group` takes a store (a
path, a URL, a zip archive, a store object) or an opened `Dataset`, and run
on the C++ engine with the GIL released. Output is returned as text (or
written to files, for `view_plink`, `view_bgen` and `view(output=...)`; the
.bgen as bytes without an output), byte for byte
what the command line prints; the options are the command line's, by name
(`samples="S1,S2"`, `include="INFO/DP>10"`, ...). docs/vcz.md has the rules.

    >>> from turbozarr import vcz
    >>> vcz.sample_ids("calls.vcz")
    ['S00', 'S01', ...]
    >>> text = vcz.query("calls.vcz", "%CHROM\\t%POS[\\t%GT]\\n", regions="chr1:1-1000")
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from turbozarr import _core
from turbozarr._api import open_group
from turbozarr._dtypes import STRING_DTYPE, numpy_dtype

__all__ = ["Dataset", "open", "num_records", "contig_stats", "sample_ids", "read", "iter_blocks",
           "query", "view", "view_plink", "view_bgen"]


class Dataset:
    """A VCZ dataset, opened once: its samples and contigs, checked and
    read when opened. Pass it to the functions below to reuse it."""

    def __init__(self, store: Any, *, path: str = "") -> None:
        root = open_group(store, mode="r", path=path)
        self._core = _core.vcz_open(root._core)
        self._group = root

    @property
    def group(self) -> Any:
        """The dataset's root group (read-only), to reach its arrays."""
        return self._group

    @property
    def num_variants(self) -> int:
        return self._core.num_variants

    @property
    def num_samples(self) -> int:
        return self._core.num_samples

    @property
    def sample_ids(self) -> list[str]:
        return list(self._core.sample_ids)

    @property
    def contig_ids(self) -> list[str]:
        return list(self._core.contig_ids)

    def __repr__(self) -> str:
        return f"<turbozarr.vcz.Dataset {self._core.describe()}>"


def open(store: Any, *, path: str = "") -> Dataset:  # noqa: A001 (as turbozarr.open)
    """The VCZ dataset whose root group is at `path` in `store`."""
    return Dataset(store, path=path)


def _dataset(dataset: Dataset | Any) -> Dataset:
    return dataset if isinstance(dataset, Dataset) else Dataset(dataset)


def _selection(d: Dataset, selection: dict[str, Any]) -> dict[str, Any]:
    """`selection` with `variants` (a slice or range of variant numbers, as
    for a list of num_variants, or a (start, stop) pair) as the pair the
    core takes."""
    v = selection.get("variants")
    if v is None:
        return selection
    if isinstance(v, (slice, range)):
        start, stop, step = slice(v.start, v.stop, v.step).indices(d.num_variants)
        if step != 1:
            raise ValueError(f"variants: only a step of 1 is supported, not {step}")
        v = (start, max(start, stop))
    else:
        v = tuple(v)
        if len(v) != 2:
            raise ValueError(f"variants: a slice, a range or a (start, stop) pair, not {v!r}")
    return {**selection, "variants": (int(v[0]), int(v[1]))}


def _run_bytes(dataset: Dataset | Any, command: str, *, stacklevel: int = 3,
               **options: Any) -> bytes:
    """What `command` wrote; its warnings as Python warnings, attributed to
    the caller `stacklevel` - 1 frames up."""
    d = _dataset(dataset)
    out, warned = _core.vcz_run(d._core, command, _selection(d, options))
    if warned:
        warnings.warn(warned.rstrip("\n"), stacklevel=stacklevel)
    return out


def _run(dataset: Dataset | Any, command: str, **options: Any) -> str:
    return _run_bytes(dataset, command, stacklevel=4, **options).decode("utf-8")


def num_records(dataset: Dataset | Any) -> int:
    """The number of records (`vcz index -n`)."""
    return int(_run(dataset, "index_records"))


def contig_stats(dataset: Dataset | Any) -> str:
    """Per contig with records: name, length, records (`vcz index -s`)."""
    return _run(dataset, "index_stats")


def sample_ids(dataset: Dataset | Any) -> list[str]:
    """The sample IDs but the null ones (`vcz query -l`)."""
    return _run(dataset, "samples").splitlines()


def _arrays(fields: list) -> dict[str, np.ndarray]:
    out = {}
    for name, kind, size, shape, values in fields:
        if kind == "string":
            out[name] = np.array(values, dtype=STRING_DTYPE).reshape(shape)
        else:
            # The bytes arrive as a uint8 array that owns them: a view, no copy.
            out[name] = values.view(numpy_dtype(kind, size, 3, "<")).reshape(shape)
    return out


def read(dataset: Dataset | Any, fields: list[str], **selection: Any) -> dict[str, np.ndarray]:
    """The arrays `fields` ("variant_position", "call_genotype", ...) for the
    selected variants, and for call fields the selected samples, as numpy
    arrays: numbers in the stored type, strings as numpy.dtypes.StringDType.
    "variant_index" gives the kept variants' row numbers. `selection`: as
    for query (regions, samples, include, ...), and `variants`: a slice of
    the variants (or range, or (start, stop) pair) to keep the selection
    within, such as one worker's share or the first chunks."""
    d = _dataset(dataset)
    return _arrays(_core.vcz_read(d._core, list(fields), _selection(d, selection)))


def iter_blocks(dataset: Dataset | Any, fields: list[str], *,
                readahead_bytes: int = 64 * 1024 * 1024,
                **selection: Any) -> Iterator[dict[str, np.ndarray]]:
    """What `read` returns, a block of variants at a time (the smallest
    variant chunk of the fields read, at most 10,000 variants, or 2^16 for
    variant_index alone; blocks that keep no variant are skipped), so that memory stays bounded whatever the dataset's size. The
    next blocks are read and decoded on a thread of their own while the
    caller works: at most `readahead_bytes` of values wait (at least one
    block). Bad options and unknown fields fail the call, before the first
    block."""
    d = _dataset(dataset)
    reader = _core.vcz_blocks(d._core, list(fields), readahead_bytes, _selection(d, selection))
    return _blocks(reader)


def _blocks(reader: Any) -> Iterator[dict[str, np.ndarray]]:
    while (fields := reader.next()) is not None:
        yield _arrays(fields)


def query(dataset: Dataset | Any, format: str, *,  # noqa: A002 (the command's name)
          disable_automatic_newline: bool = False, **selection: Any) -> str:
    """Each selected variant formatted by `format` (`vcz query -f`).
    `selection`: regions, regions_file, targets, targets_file, samples,
    samples_file, force_samples, include, exclude."""
    return _run(dataset, "query", format=format,
                disable_automatic_newline=disable_automatic_newline, **selection)


def view(dataset: Dataset | Any, output: str | Path | None = None, *,
         header_only: bool = False, no_header: bool = False, no_update: bool = False,
         drop_genotypes: bool = False, fill_tags: str | None = None,
         **selection: Any) -> str | None:
    """The selected variants and samples as a VCF (`vcz view --no-version`):
    returned as text, or written to `output` (then None). `selection`: as
    for query, plus types, exclude_types, min_alleles, max_alleles."""
    text = _run(dataset, "view", header_only=header_only, no_header=no_header,
                no_update=no_update, drop_genotypes=drop_genotypes, fill_tags=fill_tags,
                **selection)
    if output is None:
        return text
    Path(output).write_text(text)
    return None


def view_plink(dataset: Dataset | Any, output: str | Path, *, no_bim: bool = False,
               no_fam: bool = False, **selection: Any) -> None:
    """A PLINK 1 binary fileset: `output`.bed, .bim and .fam (`vcz
    view-plink`). `selection`: as for view."""
    _run(dataset, "view_plink", output=str(output), no_bim=no_bim, no_fam=no_fam, **selection)


def view_bgen(dataset: Dataset | Any, output: str | Path | None = None, *,
              compression_level: int | None = None, fixed_variant_size: bool = False,
              variant_id_field: str = "rsid", unphased: bool = False,
              no_header_samples: bool = False, no_bgi: bool = False,
              no_sample_file: bool = False, total_string_length: int | None = None,
              pad_byte: str | None = None, **selection: Any) -> bytes | None:
    """The selected biallelic variants and samples as BGEN 1.2 (`vcz
    view-bgen`): returned as the .bgen's bytes, or written to `output`.bgen
    with `output`.bgen.bgi and `output`.sample (then None). `selection`: as
    for view."""
    data = _run_bytes(dataset, "view_bgen", output=None if output is None else str(output),
                      compression_level=compression_level,
                      fixed_variant_size=fixed_variant_size, variant_id_field=variant_id_field,
                      unphased=unphased, no_header_samples=no_header_samples, no_bgi=no_bgi,
                      no_sample_file=no_sample_file, total_string_length=total_string_length,
                      pad_byte=pad_byte, **selection)
    return data if output is None else None
