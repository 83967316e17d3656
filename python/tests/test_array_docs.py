"""The examples of docs/selections.md, data-types.md and arrays-and-groups.md
run as written (each ends in assertions on its results)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("page", ["selections.md", "data-types.md", "arrays-and-groups.md"])
def test_the_documented_examples_run(tmp_path, monkeypatch, page):
    doc = DOCS / page
    examples = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)
    assert examples, f"docs/{page} lost its example"
    monkeypatch.chdir(tmp_path)
    for i, code in enumerate(examples):
        exec(compile(code, f"{doc}:{i}", "exec"), {"__name__": "example"})
