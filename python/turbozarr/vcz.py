"""VCF Zarr (VCZ) datasets: what `turbozarr vcz` does, from Python.

The functions take a dataset as `turbozarr.open_group` takes a store (a
path, a URL, a zip archive, a store object) or an opened `Dataset`, and run
on the C++ engine with the GIL released. Output is returned as text (or
written to files, for `view_plink` and `view(output=...)`), byte for byte
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
from typing import Any

import numpy as np

from turbozarr import _core
from turbozarr._api import open_group
from turbozarr._dtypes import STRING_DTYPE, numpy_dtype

__all__ = ["Dataset", "open", "num_records", "contig_stats", "sample_ids", "read", "query",
           "view", "view_plink"]


class Dataset:
    """A VCZ dataset, opened once: its samples and contigs, checked and
    read when opened. Pass it to the functions below to reuse it."""

    def __init__(self, store: Any, *, path: str = "") -> None:
        root = open_group(store, mode="r", path=path)
        self._core = _core.vcz_open(root._core)

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


def _run(dataset: Dataset | Any, command: str, **options: Any) -> str:
    out, warned = _core.vcz_run(_dataset(dataset)._core, command, options)
    if warned:
        warnings.warn(warned.rstrip("\n"), stacklevel=3)
    return out.decode("utf-8")


def num_records(dataset: Dataset | Any) -> int:
    """The number of records (`vcz index -n`)."""
    return int(_run(dataset, "index_records"))


def contig_stats(dataset: Dataset | Any) -> str:
    """Per contig with records: name, length, records (`vcz index -s`)."""
    return _run(dataset, "index_stats")


def sample_ids(dataset: Dataset | Any) -> list[str]:
    """The sample IDs but the null ones (`vcz query -l`)."""
    return _run(dataset, "samples").splitlines()


def read(dataset: Dataset | Any, fields: list[str], **selection: Any) -> dict[str, np.ndarray]:
    """The arrays `fields` ("variant_position", "call_genotype", ...) for the
    selected variants, and for call fields the selected samples, as numpy
    arrays: numbers in the stored type, strings as numpy.dtypes.StringDType.
    `selection`: as for query (regions, samples, include, ...)."""
    d = _dataset(dataset)
    out = {}
    for name, kind, size, shape, values in _core.vcz_read(d._core, list(fields), selection):
        if kind == "string":
            out[name] = np.array(values, dtype=STRING_DTYPE).reshape(shape)
        else:
            out[name] = np.frombuffer(values, dtype=numpy_dtype(kind, size, 3, "<")).reshape(shape)
    return out


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
