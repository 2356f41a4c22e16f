"""The stratified sample pytest runs for slow frameworks (suites/sampling.py): every (op, input dtypes, clause) of
the corpus at least once, the same sample every time, and only for the adapters named."""
from __future__ import annotations

import os
import subprocess
import sys

from suites.corpus import load_corpus
from suites.sampling import strata, stratified

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_sample_reaches_every_op_dtypes_and_clause_of_the_corpus_and_is_stable():
    cases = load_corpus()[0]
    sample = stratified(cases)
    assert set().union(*map(strata, sample)) == set().union(*map(strata, cases))
    assert [c.id for c in stratified(cases)] == [c.id for c in sample]
    assert len(sample) < len(cases) / 2, f"a sample of {len(sample)} of {len(cases)} cases saves little"


def _collected(*args) -> int:
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
                        "suites/test_corpus.py", "--adapter", "oracle", *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return int(r.stdout.strip().splitlines()[-1].split()[0])


def test_only_the_named_adapters_run_the_sample():
    whole = len(load_corpus()[0])
    assert _collected() == whole                                   # oracle is not in conform_sample
    assert _collected("--sample", "oracle") == len(stratified(load_corpus()[0]))
    assert _collected("--sample", "none") == whole
