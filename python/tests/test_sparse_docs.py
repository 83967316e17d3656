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
    assert [name for name, _ in examples] == ["write", "read", "train"], \
        "docs/sparse.md lost an example"
    try:
        import torch  # noqa: F401
    except ImportError:  # the training example needs torch
        examples = examples[:2]
    monkeypatch.chdir(tmp_path)
    scope = {"__name__": "example"}
    for name, code in examples:
        exec(compile(code, f"{DOC}:{name}", "exec"), scope)
    printed = capsys.readouterr().out
    if len(examples) == 3:
        assert "epoch 0: 12000 cells" in printed and "epoch 1: 12000 cells" in printed
    assert "12000 cells x 1000 genes, 3 tiles" in printed
    assert "(5000, 1000) (512, 1000) (2, 3)" in printed
