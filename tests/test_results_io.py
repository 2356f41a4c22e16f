"""The results file: streamed and flushed per record; the reader takes a torn last line and refuses other damage."""
import json
import os

import numpy as np
import pytest

from adapters.base import Outcome
from contract.codec import encode_array
from contract.results import (ResultsError, ResultsWriter, case_record, end_record, iter_records, read_case,
                              read_values, run_record)
from suites.describe import describe
from suites.judge import judge

from bad_adapters import GoodClip, clip_case, clip_expectation


def _write(path, n=3, end=True):
    cases = [clip_case(f"c{i}", x=[float(i), 5.0, -0.0]) for i in range(n)]
    with ResultsWriter(str(path)) as w:
        w.write(run_record("r1", "sha256:abc", n, [{"name": "good"}]))
        for c in cases:
            out = Outcome.returned(out=np.array([9, 9, 9], np.float32), x=c.inputs["x"])
            v = describe(judge(c, clip_expectation(c), out, GoodClip()), c, clip_expectation(c), GoodClip())   # as a run does
            w.write(case_record("r1", v, c))
        if end:
            w.write(end_record("r1", n, {"value-mismatch": n}))
    return cases


def test_round_trip_keeps_cases_and_values(tmp_path):
    p = tmp_path / "results.jsonl"
    cases = _write(p)
    recs = list(iter_records(str(p)))
    assert [r["record"] for r in recs] == ["run", "case", "case", "case", "end"]
    rec = recs[1]
    assert rec["verdict"] == "value-mismatch" and rec["adapter_version"] == "0.0-test"
    assert read_case(rec).id == cases[0].id
    assert np.signbit(read_case(rec).inputs["x"][2])                  # -0.0 survived
    assert read_values(rec)["out"].tolist() == [9, 9, 9]
    assert read_values(rec, "expected_values")["out"].tolist() == [2, 5, 2]
    assert rec["repro"] and rec["mismatch"]["count"] == 3
    assert recs[-1]["counts"] == {"value-mismatch": 3} and recs[-1]["cases"] == 3


def test_each_record_is_on_disk_before_the_next_is_written(tmp_path):
    p = tmp_path / "r.jsonl"
    w = ResultsWriter(str(p))
    w.write(run_record("r1", "h", 0, []))
    assert p.read_text().count("\n") == 1          # flushed, though the file is still open
    w.close()


@pytest.mark.parametrize("cut, cases", [(1, 3), (2, 2), (10, 2), (200, 2)])
def test_a_truncated_last_line_is_accepted(tmp_path, cut, cases):
    # cut 1 loses only the newline: the record is whole JSON and is kept
    p = tmp_path / "r.jsonl"
    _write(p, end=False)
    data = p.read_bytes()
    p.write_bytes(data[:-cut])
    recs = list(iter_records(str(p)))
    assert [r["record"] for r in recs] == ["run"] + ["case"] * cases


def _damage(tmp_path, lineno, new):
    p = tmp_path / "r.jsonl"
    _write(p)
    lines = p.read_text().splitlines(keepends=True)
    lines[lineno - 1] = new
    p.write_text("".join(lines))
    return str(p)


@pytest.mark.parametrize("lineno, new, match", [
    (2, "{not json\n", r"r\.jsonl:2: not JSON"),
    (3, "[1, 2]\n", r"r\.jsonl:3: a record must be a JSON object"),
    (2, '{"record": "case", "schema": 2}\n', r"r\.jsonl:2: schema 2 is not supported"),
    (2, '{"record": "nope", "schema": 1}\n', r"r\.jsonl:2: 'record' must be one of"),
    (2, '{"record": "case", "schema": 1, "run_id": "r1"}\n', r"r\.jsonl:2: case record field 'case_id'"),
    (1, '{"record": "end", "schema": 1, "run_id": "r1", "cases": 1, "counts": {}}\n', r"r\.jsonl:1: the first record"),
    (5, '{"record": "end", "schema": 1, "run_id": "r1", "cases": true, "counts": {}}\n', r":5: end record field 'cases'"),
    (3, '\xff\n', r"r\.jsonl:3: not UTF-8"),
])
def test_other_damage_is_refused_with_file_and_line(tmp_path, lineno, new, match):
    p = _damage(tmp_path, lineno, new)
    if new == '\xff\n':
        data = open(p, "rb").read().replace("\xff".encode(), b"\xff")
        open(p, "wb").write(data)
    with pytest.raises(ResultsError, match=match):
        list(iter_records(p))


def test_a_torn_line_in_the_middle_is_damage(tmp_path):
    p = tmp_path / "r.jsonl"
    _write(p)
    lines = p.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:40] + "\n"
    p.write_text("".join(lines))
    with pytest.raises(ResultsError, match=r":3: not JSON"):
        list(iter_records(str(p)))


def test_a_record_of_another_run_is_refused(tmp_path):
    p = tmp_path / "r.jsonl"
    _write(p)
    text = p.read_text().splitlines(keepends=True)
    rec = json.loads(text[2])
    rec["run_id"] = "other"
    text[2] = json.dumps(rec) + "\n"
    p.write_text("".join(text))
    with pytest.raises(ResultsError, match=r":3: run_id 'other' differs"):
        list(iter_records(str(p)))


def test_bad_case_content_is_refused_by_read_case(tmp_path):
    p = tmp_path / "r.jsonl"
    _write(p)
    rec = list(iter_records(str(p)))[1]
    rec["case"]["inputs"]["x"]["shape"] = [1 << 20, 1 << 20]
    with pytest.raises(ResultsError, match="over the limit"):
        read_case(rec, str(p), 2)
    rec["case"]["inputs"]["x"]["shape"] = [3]
    rec["case"]["inputs"]["x"]["data"] = "!!!!"
    with pytest.raises(ResultsError, match="base64"):
        read_case(rec, str(p), 2)


def test_a_huge_line_is_refused_without_reading_it_whole(tmp_path, monkeypatch):
    import contract.results as R
    monkeypatch.setattr(R, "MAX_LINE", 1000)
    p = tmp_path / "r.jsonl"
    _write(p)
    with pytest.raises(ResultsError, match=r":2: line longer than 1000 bytes"):
        list(iter_records(str(p)))


# ---- fuzz: a hostile record is refused naming its line, or read back exactly ---------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)


def _fuzz_file(lines: bytes) -> str:
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        f.write(json.dumps(run_record("r1", "h", 1, [])).encode() + b"\n" + lines)
    return path


CASE_DEFAULTS = {"origin": "generated", "label": "", "clauses": []}


def _read_all(path, fuzzed: bytes):
    """The fuzzed lines (after the header) are refused naming one of them, or read back exactly:
    each record is its line, each case and array decodes and re-encodes to what the file holds."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        recs = []
        try:
            for n, rec in enumerate(iter_records(path), 1):
                if rec["record"] == "case":
                    assert read_case(rec, path, n).to_json() == {**CASE_DEFAULTS, **rec["case"]}
                    for which in ("actual_values", "expected_values"):
                        stored = {k: v for k, v in rec.get(which, {}).items() if "unencodable" not in v}
                        assert {k: encode_array(v) for k, v in read_values(rec, which, path, n).items()} == stored
                recs.append(rec)
        except ResultsError as e:
            last = 1 + fuzzed.count(b"\n")
            assert e.path == path and 2 <= e.line <= last, f"actual: {e}; expected: a line in 2..{last}"
            assert f"{path}:{e.line}: " in str(e)
            return "refused"
        assert recs == [json.loads(line) for line in data.splitlines()], "actual: records differ from their lines"
        return "accepted"
    finally:
        os.unlink(path)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_arbitrary_bytes(data):
    assert _read_all(_fuzz_file(data + b"\n"), data + b"\n") == "refused"      # no bytes after a header make a record


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["record", "schema", "run_id", "case_id", "op", "adapter", "verdict",
                                        "clauses", "case", "actual_values"]), _json, max_size=10))
def test_fuzz_records_with_wrong_fields(rec):
    line = json.dumps(rec).encode() + b"\n"
    _read_all(_fuzz_file(line), line)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["id", "op", "origin", "label", "clauses", "inputs", "params"]), _json)
def test_fuzz_a_case_field_of_a_valid_record(field, value):
    c = clip_case("fuzz")
    rec = case_record("r1", judge(c, clip_expectation(c), GoodClip().run(c), GoodClip()), c)
    rec["case"][field] = value
    line = json.dumps(rec).encode() + b"\n"
    _read_all(_fuzz_file(line), line)


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({"dtype": st.sampled_from(["float32", "bfloat16", "int64", "complex64", 3, None]),
                              "shape": st.lists(st.integers(-2, 1 << 40), max_size=3) | _json,
                              "data": st.text(max_size=20) | _json}))
def test_fuzz_array_encodings(arr):
    c = clip_case("fuzz")
    rec = case_record("r1", judge(c, clip_expectation(c), GoodClip().run(c), GoodClip()), c)
    rec["case"]["inputs"]["x"] = arr
    rec["actual_values"] = {"out": arr}
    line = json.dumps(rec).encode() + b"\n"
    _read_all(_fuzz_file(line), line)
