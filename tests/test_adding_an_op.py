"""Adding an op by following docs/ADDING_AN_OP.md, in a scratch copy of the tree, needs no edit outside the files
the page names, and the op-generic tests pass with it.

The op is `where_positive(x, y)` (tests/scratch_op/, a test-only op no other file knows): four clauses, its four
files copied to where the page puts them, the three regenerators run, then `conform check-op` and the tests that
are parametrized by op (or check every op) run in the copy, with the copy's modules ahead of the installed ones.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / "tests" / "scratch_op"
OP = "where_positive"
OP_FILES = ("oracle/where_positive.py", "oracle/readings/where_positive.py", "suites/strategies/where_positive.py",
            "adapters/mutants/where_positive.py")
REGENERATED = ("docs/SPEC.md", "docs/CASES.md", "suites/corpus/corpus.jsonl", "suites/corpus/corpus.sha256")
REGENERATORS = (("oracle.spec_doc",), ("oracle.domains", "--write"), ("suites.corpus", "build"))
GENERIC_TESTS = ("test_strategies", "test_oracle_expect", "test_oracle_examples", "test_domain_coverage",
                 "test_mutants", "test_reading", "test_spec_doc", "test_toy_op", "test_judge", "test_oracle_clauses",
                 "test_corpus_file", "test_op_names", "test_oracle_properties", "test_judge_readings",
                 "test_selftest", "test_module_graph", "test_layers", "test_report_model", "test_check_commands")
# Shipped tests that fail only because they list something per op by hand: what adding an op still needs
# beyond the page.  Each must still fail in the copy (remove its entry once the test derives it).
# (test_oracle_expect.py::test_every_err_clause_is_reached was one: it now takes each op's own error cases.)
NEEDS_SUPPORT: dict = {}
SKIP_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache"}


def _tree_files() -> list:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tree to copy is what git lists")
    return [p for p in out.split("\0") if p and (ROOT / p).is_file()]


def _digests(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*")
            if p.is_file() and not SKIP_PARTS & set(p.relative_to(root).parts)
            and not p.relative_to(root).parts[0].endswith(".egg-info")}


def _run(copy: Path, *args, timeout=600):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TC_"))}
    env["PYTHONPATH"] = str(copy)
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _out(r) -> str:
    return f"exit {r.returncode}\n{r.stdout[-6000:]}\n{r.stderr[-3000:]}"


def test_an_op_added_as_the_page_says_passes_check_op_and_the_op_generic_tests(tmp_path):
    copy = tmp_path / "tree"
    for rel in _tree_files():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, copy / rel)
    before = _digests(copy)
    for rel in OP_FILES:
        assert not (copy / rel).exists(), f"{rel} is already in the tree: the scratch op must be new"
        shutil.copyfile(SCRATCH / rel, copy / rel)

    for args in REGENERATORS:
        r = _run(copy, "-m", *args)
        assert r.returncode == 0, f"python -m {' '.join(args)}: {_out(r)}"
    r = _run(copy, "-m", "conform.cli", "check-op", OP)
    assert r.returncode == 0 and f"{OP}: " in r.stdout, f"conform check-op {OP}: {_out(r)}"

    after = _digests(copy)
    changed = {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)}
    assert changed == set(OP_FILES) | set(REGENERATED), (
        f"actual files added or changed: {sorted(changed)}; expected only the op's files {list(OP_FILES)} and "
        f"the regenerated {list(REGENERATED)}")

    deselect = [a for node in NEEDS_SUPPORT for a in ("--deselect", node)]
    r = _run(copy, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *deselect,
             *(f"tests/{name}.py" for name in GENERIC_TESTS))
    assert r.returncode == 0, f"the op-generic tests, with {OP} added: {_out(r)}"
    r = _run(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "suites", "-k", OP, "--adapter", "oracle")
    assert r.returncode == 0 and " passed" in r.stdout, f"pytest suites -k {OP} --adapter oracle: {_out(r)}"

    if not NEEDS_SUPPORT:
        return
    r = _run(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NEEDS_SUPPORT)
    still = [node for node in NEEDS_SUPPORT if f"FAILED {node}" in r.stdout]
    assert still == list(NEEDS_SUPPORT), (
        f"actual: of NEEDS_SUPPORT only {still} still fail with {OP} added; expected all (remove the entries "
        f"that no longer need an edit for a new op): {_out(r)}")
