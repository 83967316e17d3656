"""The examples of docs/sparse.md run as written, in order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "sparse.md"


def test_the_documented_examples_run_in_order(tmp_path, monkeypatch, capsys):
    pytest.importorskip("scipy.sparse")
    pytest.importorskip("pandas")
    text = DOC.read_text()
    examples = re.findall(r"<!-- example: (\w+) -->\s*```python\n(.*?)```", text, re.S)
    assert [name for name, _ in examples] == ["write", "read"], "docs/sparse.md lost an example"
    monkeypatch.chdir(tmp_path)
    scope = {"__name__": "example"}
    for name, code in examples:
        exec(compile(code, f"{DOC}:{name}", "exec"), scope)
    printed = capsys.readouterr().out
    assert "12000 cells x 1000 genes, 3 tiles" in printed
    assert "(5000, 1000) (512, 1000) (2, 3)" in printed
