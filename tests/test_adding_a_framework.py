"""Adding a framework is its adapter module, its declaration and its expectations file, and nothing else.

In a scratch copy of the tree, the three files of tests/scratch_framework/ (an adapter over NumPy's array API
namespace, `scratch`) are copied to where they go and no other file is touched; then the framework resolves by
name, `conform run --adapter scratch` runs corpus cases through it and judges them against its expectations
file, the install scripts' command lists it, and the tests that hold the declarations, the packaging, the
install and CI scripts, the docs and the adapter families to one another pass in the copy.  A step that needed
one more file edited (a hand list in a script, a table in pyproject.toml, a registry row) fails here.
"""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from test_adding_an_op import _digests, _out, _run, _tree_files

from adapters.registry import SHIPPED
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / "tests" / "scratch_framework"
NAME = "scratch"
FILES = ("adapters/scratch_adapter.py", "adapters/scratch_framework.toml", "suites/expectations/scratch.txt")
GENERIC_TESTS = ("test_framework_declarations", "test_packaging", "test_report_families", "test_layers",
                 "test_module_graph")
CASES = 8       # clip cases of the shipped corpus, the documented examples first


def _small_corpus(path: Path) -> None:
    lines = (ROOT / "suites" / "corpus" / "corpus.jsonl").read_text().splitlines()
    head = json.loads(lines[0])
    cases = [line for line in lines[1:] if json.loads(line)["op"] == "clip"][:CASES]
    head["cases"] = len(cases)
    path.write_text("\n".join([json.dumps(head, separators=(",", ":")), *cases]) + "\n")


def test_a_framework_added_as_three_files_resolves_runs_and_passes_the_consistency_tests(tmp_path):
    assert NAME not in SHIPPED
    copy = tmp_path / "tree"
    for rel in _tree_files():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, copy / rel)
    # a git checkout, as a developer's is: the packaging and pin checks read what git tracks
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    subprocess.run(["git", "add", "-A"], cwd=copy, check=True)
    before = _digests(copy)
    for rel in FILES:
        assert not (copy / rel).exists(), f"{rel} is already in the tree: the scratch framework must be new"
        shutil.copyfile(SCRATCH / rel, copy / rel)
    subprocess.run(["git", "add", *FILES], cwd=copy, check=True)

    r = _run(copy, "-c", "from adapters.registry import SHIPPED, resolve, load; "
                         f"print(resolve({NAME!r}), SHIPPED[{NAME!r}].frameworks, load({NAME!r}).name)")
    assert r.returncode == 0 and r.stdout.split() == ["adapters.scratch_adapter:ScratchAdapter", "()", NAME], _out(r)

    corpus = tmp_path / "corpus.jsonl"
    _small_corpus(corpus)
    r = _run(copy, "-m", "conform.cli", "run", "--adapter", NAME, "--corpus", str(corpus), "--out",
             str(tmp_path / "out"), "--no-report", "--jobs", "1")
    assert r.returncode == 0 and f"{CASES} results" in r.stdout, f"conform run --adapter {NAME}: {_out(r)}"
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    verdicts = [rec for rec in records if rec.get("adapter") == NAME]
    assert len(verdicts) == CASES, f"{len(verdicts)} results for {NAME}"

    # the install scripts' command sees it: an adapter of the main environment with nothing to install
    r = _run(copy, "-I", "adapters/frameworks.py", "environments")
    assert r.returncode == 0 and NAME not in r.stdout.split(), _out(r)

    r = _run(copy, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
             *[f"tests/{t}.py" for t in GENERIC_TESTS], timeout=900)
    assert r.returncode == 0, f"the consistency tests in the copy: {_out(r)}"

    after = _digests(copy)
    changed = {rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)
               and not rel.startswith(".git/")}
    assert changed == set(FILES), f"files changed beyond the three: {sorted(changed - set(FILES))}"


@pytest.mark.parametrize("rel", FILES)
def test_the_scratch_files_are_new_to_the_tree(rel):
    assert (SCRATCH / rel).is_file() and not (ROOT / rel).exists()
