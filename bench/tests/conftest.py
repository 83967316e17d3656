"""Shared fixtures: the harness importable, fake adapters registered."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
for p in (str(BENCH), str(TESTS)):
    if p not in sys.path:
        sys.path.insert(0, p)


@pytest.fixture
def fakes():
    """Registers the fake adapters (see fake_adapters.py) for one test."""
    from turbozarr_bench import adapters

    import fake_adapters

    for name, module in fake_adapters.MODULES.items():
        adapters.EXTRA[name] = module
    yield fake_adapters.MODULES
    for name in fake_adapters.MODULES:
        adapters.EXTRA.pop(name, None)


@pytest.fixture
def write_toml(tmp_path):
    def write(text: str, name: str = "exp.toml") -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return write
