"""`conform selftest`: the shipped corpus kills every shipped mutant; survivors, fragile kills and bad input
give the documented exit codes (docs/CLI.md).  In-process: the mutants are our own code."""
import json

import numpy as np
import pytest

from adapters.mutants import MUTANTS
from conform.cli import main
from contract.case import Case
from suites.corpus import load_corpus, write_corpus


def _selftest(capsys, *args):
    code = main(["selftest", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _clip(label, x, lo, hi):
    return Case(op="clip", inputs={"x": np.array(x, np.float32)},
                params={"min": {"kind": "float", "value": lo}, "max": {"kind": "float", "value": hi}},
                origin="regression", label=label)


@pytest.fixture
def tiny_corpus(tmp_path):
    # finite bounds only; one case whose result differs from x (so clip writing into x shows), one where none does
    path = tmp_path / "tiny" / "corpus.jsonl"
    write_corpus(path, [_clip("clipped", [0.0, 5.0, 10.0], 2.0, 8.0), _clip("inside", [3.0, 4.0], 2.0, 8.0)])
    return str(path)


def test_the_corpus_kills_every_shipped_mutant(tmp_path, capsys):
    code, out, err = _selftest(capsys, "--out", str(tmp_path))
    report = json.loads((tmp_path / "selftest.json").read_text())
    survivors = [f"{m['name']}: {m['bug']}" for m in report["mutants"] if not m["killed"]]
    assert not survivors, "mutants the shipped corpus does not kill (blind spots):\n" + "\n".join(survivors)
    assert code == 0, err
    assert report["totals"] == {"mutants": len(MUTANTS), "killed": len(MUTANTS), "survived": 0,
                                "fragile": sum(m["fragile"] for m in report["mutants"])}
    # each mutant ran on its own op's cases, all of them
    cases, _ = load_corpus()
    for m in report["mutants"]:
        assert m["cases"] == sum(c.op == m["op"] for c in cases), m["name"]
    assert (tmp_path / "selftest.html").read_text().count("<code>") >= len(MUTANTS)


def test_a_mutant_that_survives_gives_exit_1(tiny_corpus, tmp_path, capsys):
    name = "clip.infinite-default-rejected"     # the tiny corpus passes no infinite bound
    code, out, err = _selftest(capsys, "--mutants", name, "--corpus", tiny_corpus, "--out", str(tmp_path))
    assert code == 1, (out, err)
    report = json.loads((tmp_path / "selftest.json").read_text())
    assert report["totals"]["survived"] == 1 and report["ops"]["clip"]["survived"] == [name]
    [m] = report["mutants"]
    assert (m["name"], m["killed"], m["kills"], m["cases"]) == (name, False, 0, 2)
    assert f"survives: {name}" in out
    html = (tmp_path / "selftest.html").read_text()
    assert 'id="selftest-survivors"' in html and name in html


def test_a_kill_on_fewer_than_three_cases_is_fragile(tiny_corpus, tmp_path, capsys):
    name = "clip.writes-into-input"             # only the "clipped" case changes x
    code, out, err = _selftest(capsys, "--mutants", name, "--corpus", tiny_corpus, "--out", str(tmp_path))
    assert code == 0, (out, err)
    report = json.loads((tmp_path / "selftest.json").read_text())
    [m] = report["mutants"]
    assert (m["killed"], m["kills"], m["fragile"]) == (True, 1, True)
    assert m["verdicts"] == {"value-mismatch": 1}
    assert m["examples"][0]["label"] == "clipped"
    assert report["clauses"]["CL-FORMULA"] == {name: {"cases": 1, "verdicts": {"value-mismatch": 1}}}
    assert report["ops"]["clip"]["fragile"] == [name] and f"fragile (killed by fewer than 3 cases): {name}" in out


def test_exploration_is_reported_beside_the_corpus(tiny_corpus, tmp_path, capsys):
    name = "clip.infinite-default-rejected"
    code, out, err = _selftest(capsys, "--mutants", name, "--corpus", tiny_corpus, "--out", str(tmp_path),
                               "--explore", "ci")
    assert code == 1, (out, err)                # the exit code is the corpus's verdict alone
    report = json.loads((tmp_path / "selftest.json").read_text())
    assert report["explore"]["profile"] == "ci" and report["explore"]["cases"]["clip"] > 0
    [m] = report["mutants"]
    assert m["explore"]["cases"] == report["explore"]["cases"]["clip"]
    assert report["ops"]["clip"]["killed_by_explore"] == int(m["explore"]["killed"])


def test_a_glob_that_matches_no_mutant_is_a_usage_error(tmp_path, capsys):
    code, out, err = _selftest(capsys, "--mutants", "nothing.*", "--out", str(tmp_path))
    assert code == 2 and "matches no mutant" in err and "Traceback" not in err
    assert not (tmp_path / "selftest.json").exists()


def test_an_unknown_profile_is_a_usage_error(tmp_path, capsys):
    code, out, err = _selftest(capsys, "--explore", "fast", "--out", str(tmp_path))
    assert code == 2 and "profiles are dev, ci, certify, thorough" in err


def test_a_missing_or_malformed_corpus_is_bad_input(tmp_path, capsys):
    code, _, err = _selftest(capsys, "--corpus", str(tmp_path / "none.jsonl"), "--out", str(tmp_path))
    assert code == 3 and "none.jsonl" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"record": "corpus", "schema": 1, "cases": 1}\n{not json\n')
    code, _, err = _selftest(capsys, "--corpus", str(bad), "--out", str(tmp_path))
    assert code == 3 and "bad.jsonl:2" in err and "Traceback" not in err


def test_an_output_folder_that_cannot_be_written_is_exit_7(tiny_corpus, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, out, err = _selftest(capsys, "--mutants", "clip.writes-into-input", "--corpus", tiny_corpus,
                               "--out", str(blocker))
    assert code == 7 and str(blocker) in err and "Traceback" not in err
    assert "clip: 1/1 mutants killed" in out       # the table is printed before the write
