"""The damage a trial does to one stored key of a built layout, and its
undoing.

Kinds: a single bit flipped, 8 bytes overwritten with random ones, a 4 KiB
page (aligned, as a disk loses it) zeroed, the value truncated, the key
deleted, and two chunks of the same array exchanged (both valid, so no
per-chunk checksum can see it). Targets: a chunk (most trials), an index
(a shard's index inside its value; a zip archive's central directory), or
a metadata document. In a zip archive the damage hits the bytes of the
entry inside the archive; deleting or exchanging entries rewrites the
archive with valid CRCs, as a tool that rebuilt it would.
"""

from __future__ import annotations

import random
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .layouts import Built, entry_data_range

KINDS = ("bitflip", "bytes8", "zero4k", "truncate", "delete", "swap")
TARGETS = ("chunk", "index", "meta")
PAGE = 4096


@dataclass
class Damage:
    kind: str
    target: str
    key: str               # the key damaged ("" for a zip archive's directory)
    detail: str
    other_key: str = ""    # the partner of a swap
    _saved: list[tuple[Path, bytes | None]] = field(default_factory=list, repr=False)

    def keys(self) -> list[str]:
        return [k for k in (self.key, self.other_key) if k]

    def restore(self) -> None:
        """Puts back the pristine bytes of every file the damage touched."""
        for path, data in reversed(self._saved):
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        self._saved.clear()


def choose_target(built: Built, kind: str, rng: random.Random) -> tuple[str, str, tuple[int, int] | None]:
    """(target class, key, byte range or None for the whole value)."""
    if kind == "swap":
        candidates = [k for k in built.chunk_keys if swap_partners(built, k)]
        if candidates:
            return "chunk", rng.choice(candidates), None
        return "chunk", rng.choice(built.chunk_keys), None
    draw = rng.random()
    if draw < 0.1 and built.meta_keys:
        return "meta", rng.choice(built.meta_keys), None
    if draw < 0.2 and built.index_targets and kind not in ("delete",):
        key, start, stop = rng.choice(built.index_targets)
        return "index", key, (start, stop)
    return "chunk", rng.choice(built.chunk_keys), None


def apply(built: Built, kind: str, rng: random.Random) -> Damage:
    target, key, span = choose_target(built, kind, rng)
    if built.layout.zip:
        return _apply_zip(built, kind, target, key, span, rng)
    path = built.root / key
    data = path.read_bytes()
    damage = Damage(kind, target, key, "")
    damage._saved.append((path, data))
    if kind == "delete":
        path.unlink()
        damage.detail = f"deleted ({len(data)} bytes)"
    elif kind == "swap":
        partners = swap_partners(built, key)
        if not partners:
            damage.detail = "no partner: nothing exchanged"
            return damage
        other = rng.choice(partners)
        other_path = built.root / other
        other_data = other_path.read_bytes()
        damage._saved.append((other_path, other_data))
        path.write_bytes(other_data)
        other_path.write_bytes(data)
        damage.other_key = other
        damage.detail = f"exchanged with {other}"
    else:
        new, damage.detail = _damaged_bytes(data, kind, span, rng)
        path.write_bytes(new)
    return damage


def _damaged_bytes(data: bytes, kind: str, span: tuple[int, int] | None,
                   rng: random.Random) -> tuple[bytes, str]:
    start, stop = span if span else (0, len(data))
    if stop <= start:
        return data, "empty value: nothing changed"
    out = bytearray(data)
    if kind == "bitflip":
        bit = rng.randrange(start * 8, stop * 8)
        out[bit // 8] ^= 1 << (bit % 8)
        return bytes(out), f"bit {bit} of {len(data) * 8}"
    if kind == "bytes8":
        at = rng.randrange(start, max(start + 1, stop - 7))
        end = min(at + 8, len(data))
        out[at:end] = bytes(rng.randrange(256) for _ in range(end - at))
        return bytes(out), f"bytes {at}..{end} of {len(data)} overwritten"
    if kind == "zero4k":
        first_page, last_page = start // PAGE, (stop - 1) // PAGE
        page = rng.randint(first_page, last_page)
        lo, hi = max(page * PAGE, start), min((page + 1) * PAGE, stop)
        out[lo:hi] = bytes(hi - lo)
        return bytes(out), f"page {page} zeroed (bytes {lo}..{hi} of {len(data)})"
    if kind == "truncate":
        cut = rng.randrange(start, stop)
        return bytes(out[:cut]), f"cut to {cut} of {len(data)} bytes"
    raise ValueError(kind)


# -- zip archives --------------------------------------------------------------------

def _apply_zip(built: Built, kind: str, target: str, key: str, span: tuple[int, int] | None,
               rng: random.Random) -> Damage:
    archive = built.root
    data = archive.read_bytes()
    damage = Damage(kind, target, key, "")
    damage._saved.append((archive, data))
    if kind in ("delete", "swap"):
        with zipfile.ZipFile(archive) as z:
            entries = {name: z.read(name) for name in z.namelist()}
        if kind == "delete":
            del entries[key]
            damage.detail = "entry dropped from the archive"
        else:
            partners = swap_partners(built, key)
            if not partners:
                damage.detail = "no partner: nothing exchanged"
                return damage
            other = rng.choice(partners)
            entries[key], entries[other] = entries[other], entries[key]
            damage.other_key = other
            damage.detail = f"exchanged with {other}"
        tmp = archive.with_suffix(".rewrite")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
            for name, value in entries.items():
                z.writestr(name, value)
        shutil.move(tmp, archive)
        return damage
    if span is None:
        span = entry_data_range(archive, key)
    if kind == "truncate":
        # A cut archive loses everything after the cut: its directory too.
        cut = rng.randrange(*span) if span[1] > span[0] else span[0]
        archive.write_bytes(data[:cut])
        damage.detail = f"archive cut at {cut} of {len(data)} bytes"
        return damage
    new, detail = _damaged_bytes(data, kind, span, rng)
    archive.write_bytes(new)
    damage.detail = f"in the archive: {detail}"
    return damage


# -- exchanging chunks ------------------------------------------------------------------

_CHUNK_COORDS = re.compile(r"(^|/)c(/\d+)+$|/?\d+(\.\d+)*$")
_partner_cache: dict[int, dict[str, list[str]]] = {}


def array_of(key: str) -> str:
    """The array a chunk key belongs to: what precedes `c/i/j` (v3) or
    `i.j` (v2)."""
    return _CHUNK_COORDS.sub("", key)


def swap_partners(built: Built, key: str) -> list[str]:
    """Chunks of the same array whose bytes differ from `key`'s; when the
    array has no other chunk, chunks of the same field elsewhere (a sparse
    matrix's tile arrays: tiles/1/values and tiles/2/values)."""
    cache = _partner_cache.setdefault(id(built), {})
    if key not in cache:
        cache[key] = _partners(built, key)
    return cache[key]


def _partners(built: Built, key: str) -> list[str]:
    files = built.pristine
    mine = array_of(key)
    same = [k for k in built.chunk_keys if k != key and array_of(k) == mine and files[k] != files[key]]
    if same:
        return same
    family = re.sub(r"\d+", "#", mine)
    return [k for k in built.chunk_keys
            if k != key and re.sub(r"\d+", "#", array_of(k)) == family and files[k] != files[key]]

