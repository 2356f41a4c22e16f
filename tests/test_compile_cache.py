"""The compile cache a shipped compiled mode keeps between runs (adapters/compile_cache.py): the harness
decides who gets one, from the spec it was given; no candidate gets one, reads its path, or writes one."""
import os
import shutil

import pytest

from adapters import compile_cache, pool, sandbox
from adapters.registry import AdapterError
from conform import runner
from contract.results import iter_records
from contract.vocabulary import EXIT_USAGE

from bad_adapters import clip_case, write_corpus
from misbehaving_adapters import HARNESS_ENV, TARGETS_ENV


@pytest.fixture
def root(tmp_path, monkeypatch):
    d = tmp_path / "compile-cache"
    monkeypatch.setenv(compile_cache.ENV, str(d))
    return d


def labelled(path):
    return {r["case"]["label"]: r for r in iter_records(path) if r["record"] == "case"}


@pytest.mark.parametrize("spec", ["torch-compile", "adapters.torch_adapter:TorchCompileAdapter"])
def test_a_shipped_compiled_mode_gets_a_folder_of_its_own(root, spec):
    assert compile_cache.folder(spec, os.environ) == str(root / "torch-compile")
    assert (root / "torch-compile").is_dir()


@pytest.mark.parametrize("spec", ["torch", "jax", "misbehaving_adapters:CacheSeeker", "torch-compile@from_numpy",
                                  # a candidate subclassing the shipped mode, or naming itself after it
                                  "tests.spy_adapter:TorchCompileAdapter", "adapters.torch_adapter:TorchAdapter"])
def test_refuses_a_folder_to_anything_else(root, spec):
    assert compile_cache.folder(spec, os.environ) == ""
    assert not root.exists()


def test_off_and_a_folder_that_is_a_link_give_none(root, monkeypatch, tmp_path):
    monkeypatch.setenv(compile_cache.ENV, "off")
    assert compile_cache.folder("torch-compile", os.environ) == ""
    monkeypatch.setenv(compile_cache.ENV, str(root))
    root.mkdir()
    (root / "torch-compile").symlink_to(tmp_path)       # planted: the worker would write where it points
    assert compile_cache.folder("torch-compile", os.environ) == ""


def test_the_default_is_under_the_users_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(compile_cache.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compile_cache.root(os.environ) == str(tmp_path / "tensor-conformance" / "compile")


def test_refuses_a_candidate_the_folders_path_and_a_write_into_it(root, tmp_path, monkeypatch):
    if sandbox.mode()[0] != "bubblewrap":
        pytest.skip(f"workers are not sandboxed here ({sandbox.mode()[1]}): any folder is writable")
    kept = root / "torch-compile"
    kept.mkdir(parents=True)
    (kept / "entry").write_text("a kernel")
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case("vandalise"), clip_case("ok", x=[0.0, 7.0, 3.0])])
    monkeypatch.setenv(TARGETS_ENV, os.pathsep.join([str(kept / "entry"), str(kept / "planted"), str(root / "x")]))
    monkeypatch.setenv(HARNESS_ENV, str(os.getpid()))
    out = tmp_path / "out"
    runner.run(["misbehaving_adapters:Vandal", "misbehaving_adapters:CacheSeeker"], corpus=str(corpus),
               out_dir=str(out))
    got = {(r["adapter"], r["case"]["label"]): r for r in iter_records(out / "results.jsonl") if r["record"] == "case"}
    assert got[("vandal", "vandalise")]["verdict"] == "pass", got[("vandal", "vandalise")]["outcome"]
    assert got[("cache-seeker", "ok")]["verdict"] == "pass", got[("cache-seeker", "ok")]["outcome"]
    assert sorted(os.listdir(kept)) == ["entry"] and (kept / "entry").read_text() == "a kernel"
    assert sorted(os.listdir(root)) == ["torch-compile"]


def test_torch_compile_keeps_its_kernels_between_runs_and_answers_alike(root, tmp_path):
    pytest.importorskip("torch")
    if shutil.which("g++") is None:
        pytest.skip("no C++ compiler: inductor cannot build kernels (scripts/setup.sh installs g++)")
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case("a", x=[0.5, 7.0, 3.0], lo=1.0, hi=5.0)])
    answers = []
    for i in range(2):
        runner.run(["torch-compile"], corpus=str(corpus), out_dir=str(tmp_path / f"out{i}"))
        rec = labelled(tmp_path / f"out{i}" / "results.jsonl")["a"]
        assert rec["verdict"] == "pass", rec["outcome"]
        answers.append(rec["answer"])
        if i == 0:
            kept = {p.relative_to(root) for p in root.rglob("*") if p.is_file()}
            assert any(p.suffix == ".so" for p in kept), f"no built kernel kept under {root}: {sorted(kept)[:10]}"
            # a graph kept by its shape handed one case another's graph (519a2866a324c417): kernels only
            graphs = [p for p in kept if {"fxgraph", "aotautograd"} & set(p.parts)]
            assert not graphs, f"graphs kept under {root}: {graphs[:5]}"
    assert answers[0] == answers[1]


@pytest.mark.parametrize("where", ["above", "the root", "inside"])
def test_refuses_a_writable_folder_holding_the_kept_cache(root, tmp_path, monkeypatch, where):
    # CONFORM_WORKER_WRITABLE above the kept kernels (as a user might, for a framework's ~/.cache) let a
    # candidate append code to inductor's kept wrappers and change a later torch-compile run
    kept = root / "torch-compile"
    kept.mkdir(parents=True)
    (kept / "wrapper.py").write_text("# a kept kernel\n")
    writable = {"above": tmp_path, "the root": root, "inside": kept}[where]
    monkeypatch.setenv(sandbox.WRITABLE_ENV, os.pathsep.join([str(tmp_path / "elsewhere"), str(writable)]))
    assert str(writable) in compile_cache.writable_problem(os.environ)
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case("vandalise")])
    monkeypatch.setenv(TARGETS_ENV, str(kept / "wrapper.py"))
    monkeypatch.setenv(HARNESS_ENV, str(os.getpid()))
    result = runner.run(["misbehaving_adapters:Vandal"], corpus=str(corpus), out_dir=str(tmp_path / "out"))
    assert result.exit_code == EXIT_USAGE and compile_cache.ENV in result.message, result.message
    assert (kept / "wrapper.py").read_text() == "# a kept kernel\n"
    # a worker the run does not start (a probe: certify's and verify's, conform check's) is refused too
    with pytest.raises(AdapterError, match=compile_cache.ENV):
        pool.WorkerHandle("misbehaving_adapters:Vandal", probe=True)
    assert (kept / "wrapper.py").read_text() == "# a kept kernel\n"
    # a folder beside it stays allowed, and so does the cache turned off
    monkeypatch.setenv(sandbox.WRITABLE_ENV, str(tmp_path / "elsewhere"))
    assert compile_cache.writable_problem(os.environ) == ""
    monkeypatch.setenv(sandbox.WRITABLE_ENV, str(tmp_path))
    monkeypatch.setenv(compile_cache.ENV, "off")
    assert compile_cache.writable_problem(os.environ) == ""


# ---- sealed between runs: checked before reuse -----------------------------------------------------------------

def _kept(root):
    kept = compile_cache.folder("torch-compile", os.environ)
    with open(os.path.join(kept, "wrapper.py"), "w") as f:
        f.write("# a kept kernel\n")
    return kept


def test_a_kept_cache_changed_between_runs_is_discarded_before_reuse(root):
    """A kept kernel is code a later compiled run loads: whatever wrote it after the run that kept it (not the
    owning adapter's worker, which only runs while a harness holds the folder) must not be reused."""
    kept = _kept(root)
    assert "had no seal" in compile_cache.claim(kept)       # nothing vouches for what was there: discarded
    assert os.listdir(kept) == []
    with open(os.path.join(kept, "wrapper.py"), "w") as f:  # the owning adapter's worker writes while held
        f.write("# a kept kernel\n")
    compile_cache.release(kept)
    assert compile_cache.claim(kept) == "" and os.listdir(kept) == ["wrapper.py"]      # sealed: reused as it is
    compile_cache.release(kept)
    with open(os.path.join(kept, "wrapper.py"), "a") as f:  # between runs: appended code
        f.write("import os; os.system('echo pwned')\n")
    note = compile_cache.claim(kept)
    assert "changed since its last run sealed it" in note and "wrapper.py" in note, note
    assert os.listdir(kept) == [], "actual: the changed kernel kept; expected: discarded before reuse"
    compile_cache.release(kept)


def test_a_second_harness_using_the_folder_neither_discards_nor_seals_it_under_the_first(root):
    import subprocess
    import sys
    kept = _kept(root)
    compile_cache.claim(kept)
    with open(os.path.join(kept, "wrapper.py"), "w") as f:
        f.write("# written while in use\n")
    other = subprocess.run([sys.executable, "-c", "import os, sys; from adapters import compile_cache as c; "
                            f"print(repr(c.claim({kept!r}))); c.release({kept!r})"],
                           capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(__file__)),
                           env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(__file__))})
    assert other.stdout.strip() == "''", other.stdout + other.stderr
    assert os.listdir(kept) == ["wrapper.py"]
    assert not os.path.exists(os.path.join(root, compile_cache.SEALS, "torch-compile.json"))   # the first seals
    compile_cache.release(kept)
    assert os.path.exists(os.path.join(root, compile_cache.SEALS, "torch-compile.json"))
