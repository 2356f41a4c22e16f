"""Two `ci`-profile runs of the same commit give identical results files apart from timings.

The runs differ in everything that must not matter: PYTHONHASHSEED (set and
dict-of-set orders), --jobs (thread interleaving), and the route (`conform
run` twice; the pytest plugin twice).  Two corpus builds being byte-identical
is proven by tests/test_corpus_file.py::test_shipped_corpus_is_not_stale (a
rebuild in a fresh process equals the shipped bytes).
"""
import json
import os
import subprocess
import sys

import pytest

from suites import corpus as C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
TIMING = ("elapsed_s", "started", "finished")


def _run(args, hashseed, timeout=300):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS]), "PYTHONHASHSEED": str(hashseed)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, text=True, capture_output=True,
                          timeout=timeout)


def normalised_lines(path):
    """Each line re-serialised without its timing fields; key order is the writer's, so it is compared too."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            out.append(json.dumps({k: v for k, v in rec.items() if k not in TIMING}))
    return out


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return f"line {i}:\n  {x[:300]}\n  {y[:300]}"
    return f"lengths {len(a)} != {len(b)}"


@pytest.fixture(scope="module")
def subset(tmp_path_factory):
    cases = [c for i, c in enumerate(C.iter_corpus(C.DEFAULT_PATH)) if i % 6 == 0]
    path = tmp_path_factory.mktemp("det") / "corpus.jsonl"
    C.write_corpus(path, cases)
    return str(path), cases


def test_two_ci_runs_of_conform_run_are_identical_apart_from_timings(tmp_path, subset):
    path, cases = subset
    files = []
    for name, seed, jobs in (("a", 1, "1"), ("b", 2, "2")):
        out = tmp_path / name
        # WrongOutputs (clip only) adds failing records: repro, mismatch and value fields must repeat too.
        r = _run(["-m", "conform.cli", "run", "--adapter", "oracle", "--adapter", "bad_adapters:WrongOutputs",
                  "--profile", "ci", "--corpus", path, "--out", str(out), "--jobs", jobs, "--no-report"], seed)
        assert r.returncode in (0, 1), r.stderr[-2000:]
        files.append(str(out / "results.jsonl"))
    a, b = (normalised_lines(f) for f in files)
    assert len(a) == 2 * len(cases) + 2
    assert json.loads(a[0])["profile"] == "ci"
    verdicts = {json.loads(line).get("verdict") for line in a[1:-1]}
    assert {"pass", "value-mismatch", "unexpected-error"} <= verdicts, verdicts
    assert a == b, ("actual: the two ci runs differ at " + first_difference(a, b) +
                    f"; expected: identical apart from {TIMING}; repro: conform run --adapter oracle --profile ci "
                    f"--corpus {path} twice (PYTHONHASHSEED 1 and 2, --jobs 1 and 2)")


def test_two_ci_runs_of_the_pytest_suite_are_identical_apart_from_timings(tmp_path, subset):
    path, cases = subset
    small = tmp_path / "small.jsonl"
    C.write_corpus(small, cases[:120])
    files = []
    for name, seed in (("a", 3), ("b", 4)):
        results = str(tmp_path / f"{name}.jsonl")
        r = _run(["-m", "pytest", "-p", "no:cacheprovider", "-q", "suites/test_corpus.py", "--profile", "ci",
                  "--adapter", "oracle", "--corpus", str(small), "--results", results], seed)
        assert r.returncode == 0, r.stdout[-2000:]
        files.append(results)
    a, b = (normalised_lines(f) for f in files)
    assert len(a) == 120 + 2
    assert a == b, "actual: the two ci pytest runs differ at " + first_difference(a, b)
