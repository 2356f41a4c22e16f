"""An adapter's worker under an interpreter of its own: --python, conform.toml, pyproject.toml, setup.sh's
environments; the header records each adapter's interpreter and NumPy; bad settings give exit 2, 3 or 5.

The tests that need a second environment use the one scripts/setup.sh builds (.venv-mindspore, NumPy 1.x)
and are skipped, with the reason, where it is absent.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")


def conform(*args, cwd=ROOT, timeout=300):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS])}
    return subprocess.run([sys.executable, "-m", "conform.cli", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=timeout)


def header(out_dir) -> dict:
    with open(os.path.join(out_dir, "results.jsonl"), encoding="utf-8") as f:
        return json.loads(f.readline())


@functools.lru_cache(maxsize=None)
def other_major():
    """(python, its NumPy version) of setup.sh's NumPy-1 environment when this one has NumPy 2, or the
    reverse; None when there is no such environment here."""
    from adapters.environments import default_for, is_this_interpreter
    python = default_for("mindspore")
    if is_this_interpreter(python):
        return None
    got = subprocess.run([python, "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True)
    version = got.stdout.strip()
    if got.returncode or version.split(".")[0] == np.__version__.split(".")[0]:
        return None
    return python, version


def needs_other_major():
    if other_major() is None:
        pytest.skip("no environment with the other NumPy major here (scripts/setup.sh builds .venv-mindspore)")
    return other_major()


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    from bad_adapters import clip_case, write_corpus
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    write_corpus(str(path), [clip_case(f"c{i}", x=[float(i), -2.0, 9.0]) for i in range(4)])
    return str(path)


# ---- the header ---------------------------------------------------------------------------------------

def test_header_records_the_interpreter_its_python_and_numpy_versions(tmp_path, small_corpus):
    out = tmp_path / "out"
    r = conform("run", "--adapter", "oracle", "--python", f"oracle={sys.executable}", "--corpus", small_corpus,
                "--out", str(out), "--no-report")
    assert r.returncode == 0, r.stderr
    entry = header(out)["adapters"][0]
    assert (entry["python"], entry["python_version"], entry["numpy"]) == (
        sys.executable, platform.python_version(), np.__version__), f"actual header entry {entry}"


def test_run_under_the_other_numpy_major_records_it_and_agrees_with_this_oracle(tmp_path):
    python, version = needs_other_major()
    out = tmp_path / "out"
    r = conform("run", "--adapter", "oracle", "--python", f"oracle={python}", "--shard", "1/16",
                "--out", str(out), "--no-report")
    assert r.returncode == 0, f"actual exit {r.returncode}; expected 0; stderr {r.stderr[-2000:]}"
    entry = header(out)["adapters"][0]
    assert (entry["python"], entry["numpy"]) == (python, version), (
        f"actual header entry {entry}; expected python {python} with NumPy {version}")
    with open(out / "results.jsonl", encoding="utf-8") as f:
        verdicts = {json.loads(line).get("verdict") for line in f} - {None}
    # the oracle under one NumPy major, judged by the oracle under the other: nothing may diverge
    assert verdicts <= {"pass", "extension"}, f"actual verdicts {sorted(verdicts)}; expected only pass/extension"


def _expectations_digest() -> str:
    """sha256 over oracle.expect of every shipped corpus case: kind, clauses, error, values, rules, bounds."""
    import oracle
    from suites.corpus import iter_corpus
    h = hashlib.sha256()
    for case in iter_corpus():
        e = oracle.expect(case)
        h.update(repr((case.id, e.kind, e.clauses, e.error_clause, e.error_classes, e.message)).encode())
        for name, ea in e.outputs.items():
            h.update(repr((name, ea.rule, ea.zero_sign)).encode())
            for a in (ea.value, ea.bound, ea.choices):
                if a is not None:
                    a = np.ascontiguousarray(a)
                    h.update(f"{a.dtype}{a.shape}".encode() + a.tobytes())
    return h.hexdigest()


def _assert_same_digest_under_both_majors(digest, what, repro):
    """digest() (a function of this module) gives the same under the other NumPy major as here."""
    python, version = needs_other_major()
    code = f"import sys; sys.path[:0] = sys.argv[1:3]; import test_environments as t; print(t.{digest.__name__}())"
    got = subprocess.run([python, "-c", code, ROOT, TESTS], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
    mine = digest()
    assert got.stdout.strip() == mine, (
        f"actual: NumPy {version} ({python}) digests {what} to {got.stdout.strip()}; "
        f"expected NumPy {np.__version__}'s {mine}; repro: {repro}")


def test_the_oracles_answers_are_bit_identical_under_both_numpy_majors():
    _assert_same_digest_under_both_majors(_expectations_digest, "the shipped corpus's expectations",
                                          "run oracle.expect over suites/corpus under both")


def _large_digest() -> str:
    """sha256 over the oracle's answers on inputs large enough for its fast paths (oracle/kernels.py): clip
    with +-0 ties, with and without NaN blocks, scalar and tensor bounds; scatter_nd_add's row-wise bfloat16
    sums.  The inputs are built from index arithmetic, not a random generator (whose streams may change
    between NumPy releases)."""
    import importlib

    import ml_dtypes
    from oracle import kernels
    from oracle.errors import Either, Unspecified
    clip_mod = importlib.import_module("oracle.clip")
    sna = importlib.import_module("oracle.scatter_nd_add")
    h = hashlib.sha256()

    def digest(solve, *args):
        try:
            outputs = solve(*args)[0]
        except Unspecified as e:        # an open case: its natural answer must agree too
            outputs = e.natural
        except Either as e:             # acceptance open: the value of the reading that accepts it
            outputs = e.outputs
        for name, ea in sorted(outputs.items()):
            for a in (ea.value, ea.bound):
                if a is not None:
                    h.update(name.encode() + np.ascontiguousarray(a).tobytes())

    n = 2 * kernels.LARGE + 3
    i = np.arange(n)
    specials = np.array([-0.0, 0.0, 1.0, -1.0, 0.5, -2.5, np.nan])
    for dt in (np.float16, np.float32, np.float64):
        # a NaN in every block (the plain blocks), then none (the SIMD or key-space blocks)
        for x in (specials[i % 7].astype(dt), specials[(i // 7 + i) % 6].astype(dt)):
            tensor_lo = np.where(i % 3 == 0, -0.0, 0.0).astype(dt)
            for lo, hi in ((0.0, 1.0), (-0.0, 0.0), (0.0, None), (None, -0.0), (-1.0, -0.0), (tensor_lo, np.zeros(n, dt))):
                bound = [None if b is None else clip_mod.as_bound(np.asarray(b, dt)) for b in (lo, hi)]
                digest(clip_mod.solve, x, *bound)
    bf16 = np.dtype(ml_dtypes.bfloat16)
    for rows, cols in ((4096, 16), (40000, 1)):     # the row-wise sums, the flat ones
        # every row hit twice: 256 + 1 + 2**-20 lies just above a bfloat16 tie, which a second rounding
        # (through float32) would take to even, below it
        x = np.full((rows, cols), 256.0, bf16)
        indices = np.tile(np.arange(rows, dtype=np.int32), 2).reshape(-1, 1)
        updates = np.concatenate([np.full((rows, cols), 1.0), np.full((rows, cols), 2.0 ** -20)]).astype(bf16)
        digest(sna.solve, x, indices, updates)
    return h.hexdigest()


def test_the_oracles_fast_paths_are_bit_identical_under_both_numpy_majors():
    _assert_same_digest_under_both_majors(_large_digest, "the oracle's large-input answers",
                                          "tests/test_environments.py _large_digest() under both")


# ---- bad settings ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["oracle", "=python3", "oracle=", "oracle=a --python oracle=b"])
def test_a_malformed_python_option_is_a_usage_error(tmp_path, small_corpus, value):
    extra = value.split(" --python ")
    args = [a for v in extra for a in ("--python", v)]
    r = conform("run", "--adapter", "oracle", *args, "--corpus", small_corpus, "--out", str(tmp_path / "o"))
    assert r.returncode == 2, f"actual exit {r.returncode}; expected 2 (usage); stderr {r.stderr}"
    assert "--python" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_python_for_an_adapter_the_run_does_not_run_is_a_usage_error(tmp_path, small_corpus):
    r = conform("run", "--adapter", "oracle", "--python", f"torch={sys.executable}", "--corpus", small_corpus,
                "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "torch" in r.stderr and "does not run" in r.stderr, (r.returncode, r.stderr)


def test_python_with_in_process_is_a_usage_error(tmp_path, small_corpus):
    r = conform("run", "--adapter", "oracle", "--in-process", "--python", f"oracle={sys.executable}",
                "--corpus", small_corpus, "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--in-process" in r.stderr, (r.returncode, r.stderr)


def _not_python(tmp_path):
    script = tmp_path / "not-python"
    script.write_text("#!/bin/sh\necho 'not a python' >&2\nexit 1\n")
    script.chmod(0o755)
    return str(script)


def _not_executable(tmp_path):
    f = tmp_path / "plain-file"
    f.write_text("")
    f.chmod(0o644)
    return str(f)


@pytest.mark.parametrize("make, says", [
    (lambda tmp: str(tmp / "no" / "such" / "python"), "does not exist"),
    (lambda tmp: str(tmp), "is a folder"),
    (_not_executable, "is not executable"),
    (_not_python, "failed to start"),
], ids=["missing", "folder", "not-executable", "not-python"])
def test_a_python_that_cannot_run_the_worker_is_exit_5_naming_it(tmp_path, small_corpus, make, says):
    bad = make(tmp_path)
    out = tmp_path / "out"
    r = conform("run", "--adapter", "oracle", "--python", f"oracle={bad}", "--corpus", small_corpus,
                "--out", str(out))
    assert r.returncode == 5, f"actual exit {r.returncode}; expected 5 (adapter unavailable); stderr {r.stderr}"
    assert bad in r.stderr and says in r.stderr, f"actual stderr {r.stderr!r}; expected {bad} and {says!r}"
    assert "Traceback" not in r.stderr
    # the run takes the results file's lock (creating it) before any worker starts: it must stay empty
    results = out / "results.jsonl"
    assert not results.exists() or results.stat().st_size == 0, "a run that could not start wrote records"


# ---- conform.toml and pyproject.toml --------------------------------------------------------------------

def _write(folder, conform_toml=None, pyproject=None):
    if conform_toml is not None:
        (folder / "conform.toml").write_text(conform_toml)
    if pyproject is not None:
        (folder / "pyproject.toml").write_text(pyproject)


def test_command_line_then_conform_toml_then_pyproject_then_the_default(tmp_path):
    from adapters.environments import choose
    _write(tmp_path, pyproject='[tool.tensor-conformance.python]\noracle = "envs/a/bin/python"\n'
                                'torch = "envs/t/bin/python"\n',
           conform_toml='[python]\noracle = "envs/b/bin/python"\n')
    assert choose("oracle", {"oracle": "/cli/python"}, cwd=tmp_path) == ("/cli/python", "--python")
    path, where = choose("oracle", cwd=tmp_path)
    assert (path, where.split(" [")[0]) == (str(tmp_path / "envs/b/bin/python"), str(tmp_path / "conform.toml"))
    path, where = choose("torch", cwd=tmp_path)
    assert (path, where.split(" [")[0]) == (str(tmp_path / "envs/t/bin/python"), str(tmp_path / "pyproject.toml"))
    assert choose("oracle", cwd=tmp_path / "nothing-here") == (sys.executable, "this interpreter")


def test_conform_toml_is_what_conform_run_uses(tmp_path, small_corpus):
    _write(tmp_path, conform_toml='[python]\noracle = "no-such-env/bin/python"\n')
    r = conform("run", "--adapter", "oracle", "--corpus", small_corpus, "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert r.returncode == 5, (r.returncode, r.stderr)
    assert str(tmp_path / "no-such-env/bin/python") in r.stderr and "conform.toml" in r.stderr, r.stderr
    # the command line wins over the file
    r = conform("run", "--adapter", "oracle", "--python", f"oracle={sys.executable}", "--corpus", small_corpus,
                "--out", str(tmp_path / "o"), "--no-report", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_pyproject_entry_runs_the_worker_under_the_other_environment(tmp_path, small_corpus):
    python, version = needs_other_major()
    _write(tmp_path, pyproject=f'[tool.tensor-conformance.python]\noracle = "{python}"\n')
    r = conform("run", "--adapter", "oracle", "--corpus", small_corpus, "--out", str(tmp_path / "o"),
                "--no-report", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert header(tmp_path / "o")["adapters"][0]["numpy"] == version


@pytest.mark.parametrize("text, says", [
    ("[python\noracle = 1\n", "TOML"),
    ("[python]\noracle = 3\n", "must be a path string"),
    ("python = 'x'\n", "must be a table"),
], ids=["not-toml", "not-a-string", "not-a-table"])
def test_a_bad_conform_toml_is_exit_3_naming_the_file(tmp_path, small_corpus, text, says):
    _write(tmp_path, conform_toml=text)
    for args in (["--adapter", "oracle"], []):
        r = conform("run", *args, "--corpus", small_corpus, "--out", str(tmp_path / "o"), cwd=tmp_path)
        assert r.returncode == 3, f"actual exit {r.returncode}; expected 3; args {args}; stderr {r.stderr}"
        assert str(tmp_path / "conform.toml") in r.stderr and says in r.stderr and "Traceback" not in r.stderr


# ---- the worker's view and `conform adapters` -----------------------------------------------------------

def test_a_worker_under_another_interpreter_sees_none_of_this_environments_installation():
    from adapters.worker_process import _worker_path
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    other = _worker_path("/elsewhere/bin/python")
    assert other[0] == ROOT
    leaked = [p for p in other if "site-packages" in p or any(p.startswith(x + os.sep) for x in prefixes)]
    assert not leaked, f"actual: {leaked} on another interpreter's PYTHONPATH; expected none of this installation"
    mine = _worker_path(sys.executable)
    assert any("site-packages" in p for p in mine), "this interpreter's worker should see what this process sees"


def test_adapters_lists_an_adapter_with_a_missing_python_as_unavailable_with_the_reason():
    r = conform("adapters", "--python", "oracle=/no/such/python")
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("oracle "))
    assert " no " in line and "/no/such/python" in line and "does not exist" in line, line


def test_setup_environment_is_the_default_for_mindspore():
    python, version = needs_other_major()
    r = conform("adapters")
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("mindspore "))
    assert f"(python: {python})" in line and " yes " in line, (
        f"actual: {line!r}; expected mindspore available under {python} (scripts/setup.sh's environment)")


def test_certify_takes_the_adapters_python_and_refuses_a_missing_one_with_exit_5(tmp_path, small_corpus):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS])}
    base = [sys.executable, "-m", "conform.cli", "certify", "--adapter", "oracle", "--corpus", small_corpus]
    r = subprocess.run(base + ["--python", "/no/such/python", "--out", str(tmp_path / "bad")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 5 and "/no/such/python" in r.stderr and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    r = subprocess.run(base + ["--python", sys.executable, "--out", str(tmp_path / "good")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert header(tmp_path / "good")["adapters"][0]["python"] == sys.executable
