"""The construction check: inputs built the documented way and borrowed from NumPy must give one answer."""
import json

import pytest

from bad_adapters import clip_case, write_corpus
from contract.vocabulary import EXIT_ADAPTER, EXIT_DIVERGED, EXIT_OK
from suites import corpus as C
from test_cli import conform


def _sample(tmp_path, every=6):
    """Every 6th shipped case, plus every set_ case about bounds (where torch and mindspore differ)."""
    cases = [c for i, c in enumerate(C.iter_corpus(C.DEFAULT_PATH))
             if i % every == 0 or (c.op == "set_" and {"ST-GAP-BOUNDS", "ST-E-BOUNDS"} & set(c.clauses))]
    path = tmp_path / "sample.jsonl"
    write_corpus(str(path), cases)
    return str(path), cases


def test_torch_and_mindspore_answer_alike_however_inputs_are_built_or_the_difference_is_listed(tmp_path):
    path, cases = _sample(tmp_path)
    out = tmp_path / "out"
    r = conform("run", "--adapter", "torch", "--adapter", "mindspore", "--construction-check", "--no-layouts",
                "--corpus", path, "--out", str(out), "--no-report", timeout=900)
    report = json.loads((out / "construction.json").read_text())
    assert r.returncode == EXIT_OK, r.stderr[-3000:]
    assert report["unlisted"] == 0
    # every case ran four ways: each adapter built the documented way and borrowing NumPy's memory
    adapters = {json.loads(line).get("adapter") for line in open(out / "results.jsonl")} - {None}
    assert adapters == {"torch", "torch@from_numpy", "mindspore", "mindspore@from_numpy"}
    for d in report["differences"]:
        assert d["listed"] and d["key"].startswith("construction/from_numpy/set_/")


def test_a_candidate_whose_answer_depends_on_construction_is_caught(tmp_path):
    cases = [clip_case("plain"), clip_case("borrowed", x=(3.0, 7.0, 1.0))]
    path = tmp_path / "c.jsonl"
    write_corpus(str(path), cases)
    out = tmp_path / "out"
    r = conform("run", "--adapter", "bad_adapters:ConstructionSensitive", "--construction-check", "--corpus",
                str(path), "--out", str(out), "--no-report")
    assert r.returncode == EXIT_DIVERGED, r.stderr
    report = json.loads((out / "construction.json").read_text())
    assert report["unlisted"] == 1
    [d] = report["differences"]
    assert d["case_id"] == cases[1].id and d["default"] == "pass" and d["other"] == "value-mismatch"
    assert "construction-sensitive clip case" in r.stderr and "(unlisted)" in r.stderr


def test_without_the_check_only_the_documented_construction_runs(tmp_path):
    cases = [clip_case("borrowed", x=(3.0, 7.0, 1.0))]
    path = tmp_path / "c.jsonl"
    write_corpus(str(path), cases)
    r = conform("run", "--adapter", "bad_adapters:ConstructionSensitive", "--corpus", str(path), "--out",
                str(tmp_path / "out"), "--no-report")
    assert r.returncode == EXIT_OK, r.stderr
    assert not (tmp_path / "out" / "construction.json").exists()


@pytest.mark.parametrize("spec", ["torch@bogus", "oracle@from_numpy"])
def test_an_undeclared_construction_is_refused(tmp_path, spec):
    cases = [clip_case("x")]
    path = tmp_path / "c.jsonl"
    write_corpus(str(path), cases)
    r = conform("run", "--adapter", spec, "--corpus", str(path), "--out", str(tmp_path / "out"), "--no-report")
    assert r.returncode == EXIT_ADAPTER and "builds its inputs" in r.stderr, r.stderr
