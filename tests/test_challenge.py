"""`conform verify`'s challenge and the certificate a candidate cannot earn without an implementation (issue 38).

Each attack is a real candidate (tests/challenge_adapters.py) certified and verified end to end."""
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from adapters.base import terminal_text
from conform import challenge as CH
from suites.corpus import DEFAULT_PATH, iter_corpus, write_corpus
from adapter_helpers import cli_env, conform

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def clip_cases(n):
    return [c for c in iter_corpus(DEFAULT_PATH) if c.op == "clip"][:n]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """40 clip cases of the shipped corpus, as a corpus of their own."""
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    write_corpus(path, clip_cases(40))
    return path


def memorized_table(cases, path):
    """What a vendor who ran the public corpus through the oracle once would store: every answer by case id."""
    from adapters.oracle_adapter import OracleAdapter
    oracle = OracleAdapter()
    with open(path, "wb") as f:
        pickle.dump({c.id: oracle.run(c) for c in cases}, f)
    return path


def table_env(tmp_path, corpus):
    """The memorizing candidate's environment: its table, in a folder its sandboxed worker can see."""
    folder = tmp_path / "table"
    folder.mkdir()
    table = memorized_table(list(iter_corpus(corpus)), folder / "table.pkl")
    return {"CONFORM_TEST_ANSWER_TABLE": str(table), "CONFORM_WORKER_WRITABLE": str(folder)}


# ---- (b) a table of answers keyed by case id ---------------------------------------------------------------

def test_verify_refuses_a_candidate_that_memorized_the_corpus(tmp_path, small):
    env = table_env(tmp_path, small)
    cert = tmp_path / "cert"
    r = conform("certify", "--adapter", "challenge_adapters:Memorized", "--corpus", small, "--out", cert, "--jobs", 1,
                env=cli_env(**env))
    assert r.returncode == 0, r.stdout + r.stderr       # every certified case passes
    r = conform("verify", cert, "--accept-other-corpus", "--challenge", 40, "--jobs", 1, env=cli_env(**env))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "DIFFERS: challenge: clip: fresh cases failing unlisted" in r.stdout, r.stdout
    assert "re-ran 40 cases" in r.stdout, "the recorded sample alone agrees: only the fresh cases tell"


def test_the_challenge_is_drawn_from_a_seed_told_after_the_run_and_repeats_with_it(small):
    cases = list(iter_corpus(small))
    ids = {c.id for c in cases}
    one = CH.challenge_cases(["clip"], 20, 1234, cases, avoid=ids)
    assert [c.id for c in one] == [c.id for c in CH.challenge_cases(["clip"], 20, 1234, cases, avoid=ids)]
    assert {c.id for c in one}.isdisjoint(ids) and len(one) >= 15
    other = CH.challenge_cases(["clip"], 20, 1235, cases, avoid=ids)
    assert {c.id for c in one} != {c.id for c in other}
    assert CH.new_seed() != CH.new_seed()


def _records(op, failing, total, listed=0):
    out = [{"op": op, "verdict": "value-mismatch", "expected_divergence": "listed" if i < listed else None}
           for i in range(failing)]
    return out + [{"op": op, "verdict": "pass"} for _ in range(total - failing)]


def test_the_statistics_refuse_a_significant_rise_only():
    cert = _records("clip", 3, 600)
    # listed failures are what the certificate admits: never counted
    assert not CH.compare(["clip"], cert, _records("clip", 150, 200, listed=150))[0].refused
    assert CH.compare(["clip"], cert, _records("clip", 40, 200))[0].refused
    assert not CH.compare(["clip"], cert, _records("clip", 2, 200))[0].refused
    # a rise below the minimum effect is not refused however many cases show it
    assert not CH.compare(["clip"], _records("clip", 0, 100000), _records("clip", 150, 10000))[0].refused
    # Fisher's upper tail, by hand: 2 of 2 failures among 2 of 4 cases
    assert CH.fisher_greater(2, 2, 0, 2) == pytest.approx(1 / 6)


# ---- (d) a corpus of the cases the candidate passes --------------------------------------------------------

def test_a_certificate_on_another_corpus_says_so_and_verify_refuses_it_unless_accepted(tmp_path, small):
    env = table_env(tmp_path, small)
    cert = tmp_path / "cert"
    r = conform("certify", "--adapter", "challenge_adapters:Memorized", "--corpus", small, "--out", cert, "--jobs", 1,
                env=cli_env(**env))
    assert "on NOT THE SHIPPED CORPUS" in r.stdout, r.stdout
    assert "NOT THE SHIPPED CORPUS" in json.loads((cert / "certificate.json").read_text())["headline"]
    r = conform("verify", cert, "--challenge", 0, "--sample", 5, "--jobs", 1, env=cli_env(**env))
    assert r.returncode == 1 and "DIFFERS: corpus: certified on a corpus other than the shipped one" in r.stdout, r.stdout
    r = conform("verify", cert, "--challenge", 0, "--sample", 5, "--accept-other-corpus", "--jobs", 1, env=cli_env(**env))
    assert r.returncode == 0 and "accepted (--accept-other-corpus)" in r.stdout, r.stdout + r.stderr


def test_the_certificate_folder_carries_the_adapters_source_and_verify_checks_the_copy(tmp_path, small):
    env = table_env(tmp_path, small)
    cert = tmp_path / "cert"
    conform("certify", "--adapter", "challenge_adapters:Memorized", "--corpus", small, "--out", cert, "--jobs", 1, env=cli_env(**env))
    copy = cert / "source" / "challenge_adapters.py"
    assert copy.read_bytes() == (TESTS / "challenge_adapters.py").read_bytes()
    copy.write_text(copy.read_text() + "\n# not what ran\n")
    r = conform("verify", cert, "--challenge", 0, "--sample", 5, "--accept-other-corpus", "--jobs", 1, env=cli_env(**env))
    assert r.returncode == 1 and "DIFFERS: source: source/ beside the certificate" in r.stdout, r.stdout


# ---- (a) the suite's own oracle in the worker --------------------------------------------------------------

@pytest.mark.parametrize("cls", ["Borrower", "ReadsTheJudge"])
def test_a_candidate_that_borrows_the_suite_is_marked_and_refused(tmp_path, small, cls):
    cert = tmp_path / "cert"
    r = conform("certify", "--adapter", f"challenge_adapters:{cls}", "--corpus", small, "--out", cert, "--jobs", 1)
    c = json.loads((cert / "certificate.json").read_text())
    assert c["adapter"]["borrowed"], (c["adapter"], r.stderr)
    assert "verify refuses it" in r.stderr
    r = conform("verify", cert, "--accept-other-corpus", "--challenge", 10, "--sample", 5, "--jobs", 1)
    assert r.returncode == 1 and "DIFFERS: borrowed:" in r.stdout, r.stdout


def test_under_bubblewrap_the_suites_judge_and_corpus_are_not_there_for_a_candidate(tmp_path, small):
    from adapters import sandbox
    if sandbox.mode()[0] != "bubblewrap":
        pytest.skip(f"no sandbox here: {sandbox.describe()}")
    out = tmp_path / "out"
    r = conform("run", "--adapter", "challenge_adapters:ReadsTheJudge", "--corpus", small, "--out", out, "--jobs", 1)
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    outcomes = [r["outcome"] for r in recs if r.get("record") == "case"]
    assert outcomes and not any("read the judge" in o for o in outcomes), outcomes[:3]


def test_the_shipped_oracle_adapter_is_not_marked():
    from adapters.borrow import trusted
    assert trusted("oracle") and trusted("adapters.mutants.setitem:Mutant")
    assert not trusted("challenge_adapters:Borrower")


# ---- (c) nothing in the worker's view tells certify from verify --------------------------------------------

def test_the_worker_sees_no_trace_of_verify(tmp_path, small):
    cert = tmp_path / "cert"
    r = conform("certify", "--adapter", "challenge_adapters:Telling", "--corpus", small, "--out", cert, "--jobs", 1)
    assert r.returncode == 1, r.stdout + r.stderr       # it answers wrong when it sees no verify
    r = conform("verify", cert, "--accept-other-corpus", "--challenge", 0, "--sample", 40, "--jobs", 1)
    assert r.returncode == 0, "the worker told verify from certify:\n" + r.stdout


# ---- no candidate string reaches a terminal raw ------------------------------------------------------------

def test_terminal_text_escapes_controls_bidi_and_invisible_characters():
    assert terminal_text("torch\u200b") == "torch\\u200b"
    assert terminal_text("a\x1b[31mred\x07") == "a\\x1b[31mred\\x07"
    assert terminal_text("x\u202eevil") == "x\\u202eevil"
    assert terminal_text("ok é 中") == "ok é 中"


def test_certify_and_verify_print_a_candidates_escape_sequences_escaped(tmp_path, small):
    cert = tmp_path / "cert"
    r = conform("certify", "--adapter", "challenge_adapters:Escaping", "--corpus", small, "--out", cert, "--jobs", 1)
    assert "\x1b" not in r.stdout + r.stderr and "\u202e" not in r.stdout + r.stderr, repr(r.stdout)
    assert "\\x1b]0;owned\\x07" in r.stdout, r.stdout
    r = conform("verify", cert, "--accept-other-corpus", "--challenge", 5, "--sample", 3, "--jobs", 1)
    assert "\x1b" not in r.stdout + r.stderr and "\u202e" not in r.stdout + r.stderr, repr(r.stdout)
