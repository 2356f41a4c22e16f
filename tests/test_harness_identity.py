"""The harness, not the candidate, decides what a candidate is: its expectations file and its identity (issue 18).

Each test is an attack by a real candidate (tests/misbehaving_adapters.py) run through the real CLI in
worker processes; it fails when the attack succeeds.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bad_adapters import clip_case, write_corpus
from contract.results import file_sha256, iter_records

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def conform(*args, timeout=300, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    return subprocess.run([sys.executable, "-m", "conform.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_corpus(str(path), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in
                             enumerate(["ok", "value", "shape", "dtype"])])
    return path


def header(results):
    return next(r for r in iter_records(str(results)) if r["record"] == "run")


def cases(results):
    return [r for r in iter_records(str(results)) if r["record"] == "case"]


# ---- 1. the expectations file is the harness's choice -------------------------------------------------

def test_a_candidate_named_like_a_shipped_adapter_gets_none_of_its_lines(tmp_path, corpus):
    out = tmp_path / "out"
    r = conform("run", "--adapter", "misbehaving_adapters:CallsItselfMindsporeVariants", "--corpus", corpus,
                "--out", out, "--no-report")
    assert r.returncode == 1, f"actual: exit {r.returncode} (its failures were listed?)\n{r.stderr[-1500:]}"
    recs = cases(out / "results.jsonl")
    assert {x["adapter"] for x in recs} == {"mindspore-variants"}
    assert [x for x in recs if x["verdict"] != "pass"] and not [x for x in recs if x.get("expected_divergence")]
    assert header(out / "results.jsonl")["adapters"][0]["expectations"] is None


def test_a_candidate_named_by_a_path_loads_nothing_from_it(tmp_path, corpus):
    from misbehaving_adapters import PLANTED
    out = tmp_path / "out"
    try:
        r = conform("run", "--adapter", "misbehaving_adapters:NamedByAPath", "--corpus", corpus, "--out", out,
                    "--no-report")
        planted = os.path.isfile(PLANTED + ".txt")
    finally:
        shutil.rmtree(os.path.dirname(PLANTED), ignore_errors=True)
    assert r.returncode == 1, r.stderr[-1500:]
    assert not [x for x in cases(out / "results.jsonl") if x.get("expected_divergence")]
    assert header(out / "results.jsonl")["adapters"][0]["expectations"] is None
    assert planted or True      # whether the sandbox let it write or not, nothing was read


def test_a_torch_subclass_keeping_the_name_torch_gets_no_torch_lines(tmp_path, corpus):
    pytest.importorskip("torch")
    from suites.expectations import DEFAULT_DIR
    from suites.session import RunSession
    with RunSession(["misbehaving_adapters:KeepsTorchsName"], corpus=str(corpus)) as s:
        s.open()
        assert [h.name for h in s.handles] == ["torch"]
        assert s.expectations["torch"].patterns == [] and s.adapters_meta()[0]["expectations"] is None
    with RunSession(["adapters.torch_adapter:TorchAdapter"], corpus=str(corpus)) as s:     # the shipped one, by spec
        s.open()
        shipped = os.path.join(DEFAULT_DIR, "torch.txt")
        assert s.expectations["torch"].patterns and s.adapters_meta()[0]["expectations"] == {
            "file": shipped, "sha256": file_sha256(shipped), "patterns": len(s.expectations["torch"].patterns)}


def test_an_explicit_expectations_file_is_used_and_recorded(tmp_path, corpus):
    exp = tmp_path / "mine.txt"
    exp.write_text("clip/value-mismatch/* :: the last element is off by one, on purpose\n"
                   "clip/dtype-mismatch/* :: float64 out\n"
                   "clip/shape-mismatch/* :: reshaped\n")
    out = tmp_path / "out"
    r = conform("run", "--adapter", "misbehaving_adapters:CallsItselfMindsporeVariants", "--corpus", corpus,
                "--out", out, "--no-report", "--expectations", exp)
    assert r.returncode == 0, r.stderr[-1500:]
    assert header(out / "results.jsonl")["adapters"][0]["expectations"] == {
        "file": str(exp), "sha256": file_sha256(exp), "patterns": 3}
    failing = [x for x in cases(out / "results.jsonl") if x["verdict"] != "pass"]
    assert len(failing) == 3 and all(x.get("expected_divergence") for x in failing), failing


def test_expectations_check_says_which_line_matches_what(tmp_path, corpus):
    out = tmp_path / "out"
    r = conform("run", "--adapter", "misbehaving_adapters:CallsItselfMindsporeVariants", "--corpus", corpus,
                "--out", out, "--no-report")
    assert r.returncode == 1, r.stderr[-1500:]
    recs = {x["case"]["label"]: x for x in cases(out / "results.jsonl")}
    exp = tmp_path / "mine.txt"
    exp.write_text("# value only\n"
                   f"clip/value-mismatch/*/{recs['value']['case_id']} :: off by one\n"
                   "scatter/* :: never matches\n")
    r = conform("expectations", "check", exp, out / "results.jsonl")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "3 divergences, 1 listed, 2 unlisted" in r.stdout, r.stdout
    assert f"matches 1: {exp}:2 clip/value-mismatch/*/{recs['value']['case_id']}" in r.stdout
    assert f"matches nothing: {exp}:3 scatter/*" in r.stdout
    unlisted = [line for line in r.stdout.splitlines() if line.startswith("unlisted: ")]
    assert sorted(u.rsplit("/", 1)[1] for u in unlisted) == sorted(recs[k]["case_id"] for k in ("shape", "dtype"))
    exp.write_text("clip/value-mismatch/* :: all of them\n")
    r = conform("expectations", "check", exp, out / "results.jsonl")
    assert r.returncode == 0 and "3 listed, 0 unlisted" in r.stdout, r.stdout


@pytest.mark.parametrize("damage, code, says", [("no file", 3, "no such expectations file"),
                                                ("a bad line", 3, "expected '<glob> :: <reason>'"),
                                                ("no results", 3, "no such results file"),
                                                ("another adapter", 2, "has no records of adapter 'nope'")])
def test_expectations_check_refuses_bad_input(tmp_path, corpus, damage, code, says):
    out = tmp_path / "out"
    conform("run", "--adapter", "oracle", "--corpus", corpus, "--out", out, "--no-report")
    exp = tmp_path / "e.txt"
    exp.write_text("clip/* :: x\n" if damage != "a bad line" else "clip/*\n")
    args = [exp if damage != "no file" else tmp_path / "none.txt",
            out / "results.jsonl" if damage != "no results" else tmp_path / "none.jsonl"]
    r = conform("expectations", "check", *args, *(["--adapter", "nope"] if damage == "another adapter" else []))
    assert r.returncode == code and says in r.stderr and "Traceback" not in r.stderr, (r.returncode, r.stderr)
