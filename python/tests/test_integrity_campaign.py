"""The integrity campaign's fast run (scripts/integrity, docs/guarantees.md,
"Damage: the integrity campaign"): a few hundred trials of damage to every
layout turbozarr writes, read through every path. No crash, no hang, no
exception of an unexpected type, and no silently wrong read of a damaged
chunk or index of a layout that carries checksums. `make test-integrity`
runs 100,000 trials and writes the table."""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("scipy")
pytest.importorskip("pandas")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from integrity import campaign, damage, layouts, readers  # noqa: E402

TRIALS = int(os.environ.get("TURBOZARR_INTEGRITY_TRIALS", "400"))


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """Every layout, built once."""
    args = campaign.parse(["--workdir", str(tmp_path_factory.mktemp("integrity"))])
    campaign.prepare(args)
    return Path(args.pristine)


def test_reads_of_the_undamaged_layouts_are_exact(pristine, tmp_path):
    """Without damage every path reads the expected values, so that what
    the campaign counts as silently wrong is the damage's doing."""
    served = tmp_path / "served"
    shutil.copytree(pristine, served)
    cli = campaign.parse([]).cli
    url, stop = readers.serve(served)
    try:
        ctx = readers.Context(url, served, tmp_path, cli, campaign.DEFAULT_TIMEOUT)
        nothing = damage.Damage("none", "chunk", "", "")
        for lay in campaign.selected_layouts(None):
            built = layouts.load(served, lay)
            assert built.chunk_keys and built.meta_keys, lay.name
            for reader in readers.readers_for(lay.kind, lay.zip, cli):
                got, want = reader.read(ctx, built, nothing, random.Random(0))
                assert campaign.same(got, want), (lay.name, reader.name)
    finally:
        stop()


def test_damage_reads_as_an_error_or_the_right_values(pristine, tmp_path):
    args = campaign.parse(["--jobs", "2", "--workdir", str(tmp_path), "--pristine", str(pristine)])
    records, table, _ = campaign.run_campaign(args, list(range(TRIALS)), progress=False)
    chosen = campaign.selected_layouts(None)
    detected = campaign.detected_checksums(args, chosen)
    for lay in chosen:
        # (A zip archive's CRC-32 is the archive's, not the metadata's.)
        if lay.checksummed is True and not lay.zip:
            assert detected[lay.name], f"{lay.name} asks for checksums but stores none"
    checks = {lay.name: campaign.is_checked(lay, detected[lay.name]) for lay in chosen}
    assert len(records) == TRIALS
    # Every layout and path was tried (the seeds go round the combinations).
    assert {(r["layout"], r["path"]) for r in records} == {(c.layout, c.path) for c in table}
    bad = [r for r in records if campaign.is_bad(r, checks)]
    assert not bad, "bad trials (replay: python -m integrity --replay SEED):\n" + \
        campaign.bad_report(bad)


def test_a_crash_and_a_hang_are_counted_and_the_worker_restarted(pristine, tmp_path, monkeypatch):
    monkeypatch.setenv("TURBOZARR_INTEGRITY_SELF_TEST", "crash=3,hang=6")
    args = campaign.parse(["--jobs", "1", "--timeout", "3", "--workdir", str(tmp_path),
                           "--pristine", str(pristine), "--layouts", "v3", "v3-checksum"])
    records, _, _ = campaign.run_campaign(args, list(range(10)), progress=False)
    outcomes = [r["outcome"] for r in records]
    assert outcomes[3] == "crash" and "signal 11" in records[3]["detail"]
    assert outcomes[6] == "hang"
    assert records[3]["key"] and records[3]["key"] != "?"  # what the trial did is known
    assert all(o not in ("crash", "hang") for i, o in enumerate(outcomes) if i not in (3, 6))
