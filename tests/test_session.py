"""The run session both drivers share: expect once per case, one header and run id, availability from the worker."""
import json
import os
import subprocess
import sys

import pytest

from bad_adapters import clip_case, write_corpus
from contract.vocabulary import EXIT_ADAPTER
from suites.options import RunOptions
from suites.session import RunSession, SessionError, run_id_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")

COUNTING_PLUGIN = '''
import json, os
import oracle

calls = []
_real = oracle.expect


def _counting(case):
    calls.append(case.id)
    return _real(case)


def pytest_configure(config):
    oracle.expect = _counting


def pytest_unconfigure(config):
    with open(os.environ["EXPECT_CALLS"], "w") as f:
        json.dump(calls, f)
'''


@pytest.fixture
def corpus(tmp_path):
    cases = [clip_case(f"c{i}", (1.0, 5.0, -3.0), lo, hi) for i, (lo, hi) in
             enumerate([(0.0, 2.0), (-1.0, 1.0), (2.0, 4.0), (None, 0.5)])]
    path = tmp_path / "corpus.jsonl"
    write_corpus(str(path), cases)
    return str(path), cases


def test_pytest_corpus_tests_compute_expect_once_per_case(tmp_path, corpus):
    path, cases = corpus
    (tmp_path / "counting_plugin.py").write_text(COUNTING_PLUGIN)
    calls = tmp_path / "calls.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS, str(tmp_path)]), "EXPECT_CALLS": str(calls)}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "counting_plugin", "-q", "suites/test_corpus.py",
                        "--adapter", "oracle", "--adapter", "bad_adapters:WrongOutputs", "--in-process",
                        "--corpus", path, "-p", "no:xdist"],
                       cwd=ROOT, env=env, text=True, capture_output=True, timeout=300)
    assert "passed" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    ids = json.loads(calls.read_text())
    # two adapters ran every case, and the oracle answered each case once
    assert sorted(ids) == sorted(c.id for c in cases), ids


def test_conform_run_computes_expect_once_per_case_for_all_adapters(tmp_path, corpus):
    from conform import runner
    path, cases = corpus
    seen = []

    def expect(case):
        import oracle
        seen.append(case.id)
        return oracle.expect(case)

    r = runner.run(["oracle", "bad_adapters:WrongOutputs"], corpus=path, out_dir=str(tmp_path / "o"),
                   in_process=True, expect=expect)
    assert r.cases == 2 * len(cases)
    assert sorted(seen) == sorted(c.id for c in cases)


def test_the_run_id_names_the_adapters_and_their_versions(tmp_path, corpus):
    path, _ = corpus
    with RunSession(RunOptions(adapters=["oracle"], corpus=path, in_process=True)) as s:
        header = s.header()
        assert [a["name"] for a in header["adapters"]] == ["oracle"]
        assert header["run_id"] == run_id_of(s.source.hash, header["adapters"], "1/1", "ci")
        assert header["run_id"] != run_id_of(s.source.hash, [], "1/1", "ci")


def test_a_named_unavailable_adapter_is_refused_with_its_reason_from_the_worker(tmp_path, corpus):
    path, _ = corpus
    s = RunSession(RunOptions(adapters=["bad_adapters:Unavailable"], corpus=path))
    with pytest.raises(SessionError) as e:
        s.open()
    assert e.value.exit_code == EXIT_ADAPTER and "the test framework is not installed" in str(e.value)
    assert s.handle_sets == []


def test_default_selection_skips_unavailable_adapters_and_says_why(tmp_path, corpus, monkeypatch):
    import adapters.registry as R
    path, _ = corpus
    monkeypatch.setattr(R, "known", lambda: {"oracle": R.BUILTIN["oracle"],
                                               "gone": "bad_adapters:Unavailable"})
    with RunSession(RunOptions(corpus=path)) as s:
        assert [h.name for h in s.handles] == ["oracle"]
        assert s.skipped and s.skipped[0].startswith("gone: ") and "not installed" in s.skipped[0]


def test_an_explored_case_is_answered_by_the_oracle_once(monkeypatch):
    """Making a case asks the oracle for its clause tags; checking that very case reuses the answer, while any
    other case object, even one of the same content, is answered afresh."""
    import oracle
    from bad_adapters import clip_case
    from suites.tagging import with_oracle_clauses
    seen = []
    real = oracle.expect

    def counting(case):
        seen.append(case)
        return real(case)

    monkeypatch.setattr(oracle, "expect", counting)
    case = with_oracle_clauses(clip_case("explored"))
    with RunSession(RunOptions(adapters=["oracle"], in_process=True)) as session:
        handle = session.handle(session.handles[0].target)
        assert session.check(case, handle).verdict == "pass"
        assert len(seen) == 1, seen
    same = clip_case("explored")            # the same content, not the object with_oracle_clauses made
    with RunSession(RunOptions(adapters=["oracle"], in_process=True)) as session:
        handle = session.handle(session.handles[0].target)
        assert session.check(same, handle).verdict == "pass"
        assert len(seen) == 2 and seen[1] is same, seen
