"""support_table.py renders what the records prove, and --check refuses a
document that claims more."""

import json

import pytest

import support_table as st


def _record(feature, way, peer, test, python="3.12", kind="data type", zarr_format=2):
    return {"python": python, "test": test, "kind": kind, "feature": feature,
            "zarr_format": zarr_format, "way": way, "peer": peer}


RECORDS = [
    _record("|b1", "read", "zarr-python 3.1", "t.py::a", python="3.11"),
    _record("|b1", "read", "zarr-python 3.4", "t.py::a"),
    _record("|b1", "read", "zarr-python 3.4", "t.py::a"),  # the same test again
    _record("|b1", "write", "zarr-python 3.4", "t.py::b"),
    _record("zip archive", "read", "Python zipfile", "z.py::c", kind="store",
            zarr_format=None),
]
ROWS = [("data type", "|b1", 2), ("data type", "int4", 3), ("store", "s3", None)]


def _files(tmp_path, records, doc=None):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "support.md"
    out.write_text(doc if doc is not None else st.render(st.prove(records), ROWS))
    return path, out


def test_cells_name_the_peers_and_count_passing_tests():
    doc = st.render(st.prove(RECORDS), ROWS)
    assert "Do not edit by hand" in doc and "make support-table" in doc
    lines = doc.splitlines()
    assert "| `\\|b1` | v2 | zarr-python 3.1, zarr-python 3.4 (2 tests) | " \
           "zarr-python 3.4 (1 test) |" in lines
    assert "| `int4` | v3 | — | — |" in lines  # a row no test proves
    assert "| `s3` | — | — |" in lines  # stores have no format column
    assert "| `zip archive` | Python zipfile (1 test) | — |" in lines  # not in ROWS: added
    assert lines.index("## Data types") < lines.index("## Codecs") < lines.index("## Stores")
    # What is rendered reads back as the same cells.
    claims = st.parse(doc)
    assert claims[("data type", "|b1", 2)]["read"].peers == {"zarr-python 3.1",
                                                             "zarr-python 3.4"}
    assert claims[("data type", "|b1", 2)]["read"].tests == 2
    assert not claims[("store", "s3", None)]["write"].peers


def test_check_passes_a_generated_document_and_lists_what_it_lacks(tmp_path, capsys):
    records, doc = _files(tmp_path, RECORDS)
    assert st.main(["--check", str(records), "--doc", str(doc)]) == 0
    # One more passing test: the document lacks it, which is reported only.
    more = RECORDS + [_record("int4", "write", "TensorStore 0.1", "l.py::d", zarr_format=3)]
    records.write_text("".join(json.dumps(r) + "\n" for r in more))
    capsys.readouterr()
    assert st.main(["--check", str(records), "--doc", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "lacks" in out and "data type 'int4' (v3), write: TensorStore 0.1 (1 test)" in out


def test_check_refuses_a_claim_the_records_do_not_prove(tmp_path, capsys):
    doc = st.render(st.prove(RECORDS), ROWS)
    edits = {
        # a cell no test proves
        "| `int4` | v3 | — | — |": "| `int4` | v3 | zarrs 0.2 (3 tests) | — |",
        # a peer the records do not name
        "zarr-python 3.4 (1 test) |": "zarr-python 3.4, zarrs 0.2 (1 test) |",
    }
    for old, new in edits.items():
        assert doc.count(old) == 1, old
        records, path = _files(tmp_path, RECORDS, doc.replace(old, new))
        capsys.readouterr()
        assert st.main(["--check", str(records), "--doc", str(path)]) == 1, new
        err = capsys.readouterr().err
        assert "claims more than the tests show (1 cell;" in err, err
    assert "data type 'int4' (v3), read: no passing test proves it against zarrs 0.2" in \
        st.check(st.parse(doc.replace("| `int4` | v3 | — | — |",
                                      "| `int4` | v3 | zarrs 0.2 (3 tests) | — |")),
                 st.prove(RECORDS))[0]


def test_a_count_above_the_passing_tests_is_reported_not_refused(tmp_path, capsys):
    # The peers are the claim; a test merged or renamed lowers a count,
    # which --write refreshes.
    doc = st.render(st.prove(RECORDS), ROWS).replace(
        "zarr-python 3.1, zarr-python 3.4 (2 tests)", "zarr-python 3.1, zarr-python 3.4 (5 tests)")
    records, path = _files(tmp_path, RECORDS, doc)
    assert st.main(["--check", str(records), "--doc", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(the document says 5 tests)" in out, out


def test_a_record_of_another_kind_is_refused(tmp_path):
    records, _ = _files(tmp_path, [dict(RECORDS[0], kind="colour")])
    with pytest.raises(SystemExit, match=r"records.jsonl:1: not a support record.*colour"):
        st.load(records)


def test_codec_rows_follow_the_codec_table():
    table = [{"name": "zstd", "numcodecs_id": "zstd", "numcodecs_in_v3": True},
             {"name": "vlen-utf8", "numcodecs_id": "vlen-utf8", "numcodecs_in_v3": False},
             {"name": None, "numcodecs_id": "lz4", "numcodecs_in_v3": True},
             {"name": "sharding_indexed", "numcodecs_id": None, "numcodecs_in_v3": True}]
    assert st.codec_rows(table) == [
        ("zstd", 3), ("vlen-utf8", 3), ("sharding_indexed", 3), ("numcodecs.zstd", 3),
        ("numcodecs.lz4", 3), ("zstd", 2), ("vlen-utf8", 2), ("lz4", 2)]


def test_interpreters_section_lists_each_python_and_check_refuses_one_not_run(tmp_path):
    ran = st.interpreters(RECORDS)
    assert ran == {"3.11": ({"zarr-python 3.1"}, 1),
                   "3.12": ({"zarr-python 3.4", "Python zipfile"}, 3)}
    doc = st.render(st.prove(RECORDS), ROWS) + st.render_interpreters(ran)
    lines = doc.splitlines()
    assert lines[lines.index("## Interpreters") + 2:][:4] == [
        "| Python | peers | passing interop tests |",
        "|---|---|---|",
        "| 3.11 | zarr-python 3.1 | 1 |",
        "| 3.12 | Python zipfile, zarr-python 3.4 | 3 |"]
    assert st.check_interpreters(doc, ran) == []
    claimed = doc + "| 3.13 | zarr-python 3.4 | 9 |\n"
    assert st.check_interpreters(claimed, ran) == [
        "Python 3.13: no passing interop test ran on it"]
    path, out = _files(tmp_path, RECORDS, claimed)
    assert st.main(["--check", str(path), "--doc", str(out)]) == 1
    out.write_text(doc)
    assert st.main(["--check", str(path), "--doc", str(out)]) == 0
