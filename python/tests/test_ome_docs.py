"""The examples of docs/ome-zarr.md run as written, in order, on one image."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "ome-zarr.md"


def test_the_documented_examples_run_in_order(tmp_path, monkeypatch, capsys):
    text = DOC.read_text()
    examples = re.findall(r"<!-- example: (\w+) -->\s*```python\n(.*?)```", text, re.S)
    assert [name for name, _ in examples] == ["create", "read", "labels"], \
        "docs/ome-zarr.md lost an example"
    monkeypatch.chdir(tmp_path)
    for name, code in examples:
        exec(compile(code, f"{DOC}:{name}", "exec"), {"__name__": "example"})
    printed = capsys.readouterr().out
    assert "levels (2, 16, 1024, 1024), (2, 16, 512, 512), (2, 16, 256, 256)" in printed
    assert ("Axis(name='y', type='space', unit='micrometer') [1.0, 2.0, 1.3, 1.3] "
            "['DAPI', 'GFP']") in printed
