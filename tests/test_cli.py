"""`conform run` / `conform adapters` for real: subprocesses, real workers, killed and resumed runs, shards."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from adapter_helpers import conform
from contract.results import iter_records

from bad_adapters import clip_case, write_corpus

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
BAD = ["bad_adapters:Segfault", "bad_adapters:Hang", "bad_adapters:OddExceptions",
       "bad_adapters:WrongOutputs", "bad_adapters:Mutating"]
LABELS = ["ok", "crash", "hang", "base", "unprintable", "exit", "shape", "dtype", "value", "missing"]
TIMING = ("elapsed_s", "started", "finished")


def popen(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS])}
    return subprocess.Popen([sys.executable, "-m", "conform.cli", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def corpus(tmp_path):
    cases = [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in enumerate(LABELS)]
    path = tmp_path / "corpus" / "corpus.jsonl"
    path.parent.mkdir()
    write_corpus(str(path), cases)
    return str(path), cases


@pytest.fixture
def long_corpus(tmp_path):
    cases = [clip_case(f"c{i}", x=[float(i), 5.0, 9.0]) for i in range(60)]
    path = tmp_path / "long" / "corpus.jsonl"
    path.parent.mkdir()
    write_corpus(str(path), cases)
    return str(path), cases


def records(path, kind="case"):
    return [r for r in iter_records(path) if r["record"] == kind]


def without_timing(recs):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in recs]


def _adapter_rows(text):
    """{name: (version, available, rest)} from `conform adapters`, split at its header's columns."""
    head, *rows = text.splitlines()
    cols = [head.index(h) for h in ("version", "available", "source / reason")]
    return {r[:cols[0]].strip(): (r[cols[0]:cols[1]].strip(), r[cols[1]:cols[2]].strip(), r[cols[2]:].strip())
            for r in rows}


def test_adapters_lists_availability_versions_and_reasons():
    from adapters.catalog import available_adapters
    from adapters.registry import known
    r = conform("adapters")
    assert r.returncode == 0, r.stderr
    rows = _adapter_rows(r.stdout)
    assert set(rows) == set(known()), "every adapter found by name is listed, once"
    infos = {i.name: i for i in available_adapters()}
    for name, (version, available, rest) in rows.items():
        assert available == ("yes" if infos[name].available else "no"), (name, available)
        assert rest.split()[0] == known()[name], f"{name}: the source is its module:Class, got {rest!r}"
        if available == "yes":
            assert version not in ("", "-"), f"{name}: an available adapter has a version"
        else:
            assert re.search(r"\(\S.*\)$", rest), f"{name}: an unavailable adapter must say why: {rest!r}"
    assert rows["oracle"][1] == "yes"


def test_adapters_gives_the_reason_of_an_unavailable_one(monkeypatch, capsys):
    from adapters import catalog
    from conform import cli
    fake = [catalog.info("oracle"), catalog.info("bad_adapters:Unavailable")]
    monkeypatch.setattr(catalog, "available_adapters", lambda pythons=None: fake)
    assert cli.main(["adapters"]) == 0
    rows = _adapter_rows(capsys.readouterr().out)
    assert rows["oracle"][1] == "yes"
    version, available, rest = rows["unavailable"]
    assert (version, available) == ("-", "no") and rest.endswith("(the test framework is not installed)"), rest


def test_version():
    from contract.vocabulary import SUITE_VERSION
    r = conform("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"conform (tensor-conformance) {SUITE_VERSION}", r


def test_oracle_run_writes_results_and_passes(tmp_path, corpus):
    path, cases = corpus
    out = tmp_path / "out"
    r = conform("run", "--adapter", "oracle", "--corpus", path, "--out", str(out), "--no-report")
    assert r.returncode == 0, r.stderr
    recs = list(iter_records(str(out / "results.jsonl")))
    assert recs[0]["record"] == "run" and recs[-1]["record"] == "end"
    assert [x["verdict"] for x in recs[1:-1]] == ["pass"] * len(cases)
    assert recs[-1]["counts"] == {"pass": len(cases)}
    assert "10/10 results (100%)" in r.stderr


def test_every_bad_candidate_gets_its_verdict_and_every_case_is_recorded(tmp_path, corpus):
    path, cases = corpus
    out = tmp_path / "out"
    args = [a for spec in BAD for a in ("--adapter", spec)]
    r = conform("run", *args, "--corpus", path, "--out", str(out), "--case-timeout", "2", "--no-report")
    assert r.returncode == 1, r.stderr                # unlisted divergences
    recs = records(str(out / "results.jsonl"))
    assert len(recs) == len(cases) * len(BAD)
    got = {(x["adapter"], x["case"]["label"]): x for x in recs}
    assert got["segfault", "crash"]["verdict"] == "crash" and "SIGSEGV" in got["segfault", "crash"]["outcome"]
    assert got["hang", "hang"]["verdict"] == "timeout"
    # the others answered at once; waiting on the hung worker must not make their replies late
    assert [a for (a, label), x in got.items() if x["verdict"] == "timeout"] == ["hang"]
    assert [a for (a, label), x in got.items() if x["verdict"] == "crash"] == ["segfault"]
    for label in ("base", "unprintable", "exit"):
        assert got["odd", label]["verdict"] == "unexpected-error"
    for label in ("shape", "dtype", "value", "missing"):
        assert got["wrong", label]["verdict"] == "value-mismatch"
    assert got["mutating", "ok"]["verdict"] == "value-mismatch" and got["mutating", "ok"]["mismatch"]["output"] == "x"
    for adapter in ("segfault", "hang", "odd", "wrong"):
        assert got[adapter, "ok"]["verdict"] == "pass"      # the worker came back for the next case
    assert got["segfault", "crash"]["repro"].startswith("# case")


def test_listed_divergences_pass_and_unmatched_patterns_are_reported(tmp_path, corpus):
    path, _ = corpus
    exp = tmp_path / "wrong.txt"       # a candidate's file is named by --expectations, never chosen by its name
    exp.write_text("clip/value-mismatch/*/* :: this candidate is wrong on purpose\n"
                   "scatter/* :: never matches\n")
    out = tmp_path / "out"
    r = conform("run", "--adapter", "bad_adapters:WrongOutputs", "--corpus", path, "--out", str(out),
                "--expectations", str(exp), "--no-report")
    assert r.returncode == 0, r.stderr
    bad = [x for x in records(str(out / "results.jsonl")) if x["verdict"] != "pass"]
    assert len(bad) == 4 and {x["expected_divergence"] for x in bad} == {"this candidate is wrong on purpose"}
    assert "matched nothing" in r.stderr and "wrong.txt:2 scatter/*" in r.stderr


@pytest.mark.parametrize("args, code, text", [
    (["--adapter", "nope"], 5, "known adapters: "),
    (["--adapter", "bad_adapters:Unavailable"], 5, "the test framework is not installed"),
    (["--adapter", "bad_adapters:BrokenSetup"], 5, "libfoo.so"),
    (["--adapter", "oracle", "--shard", "4/3"], 2, "1 <= K <= N"),
    (["--adapter", "oracle", "--shard", "x"], 2, "K/N"),
    (["--adapter", "oracle", "--corpus", "/nonexistent/corpus.jsonl"], 3, "/nonexistent/corpus.jsonl"),
])
def test_exit_codes(tmp_path, corpus, args, code, text):
    if "--corpus" not in args:
        args = [*args, "--corpus", corpus[0]]
    r = conform("run", *args, "--out", str(tmp_path / "out"), "--no-report")
    assert r.returncode == code, r.stderr
    assert text in r.stderr


@pytest.mark.parametrize("option, value, why", [
    ("--jobs", "0", "'0' is not a whole number >= 1"),
    ("--jobs", "-3", "'-3' is not a whole number >= 1"),
    ("--jobs", "two", "'two' is not a whole number >= 1"),
    ("--case-timeout", "0", "'0' is not a number of seconds > 0"),
    ("--case-timeout", "-1", "'-1' is not a number of seconds > 0"),
    ("--case-timeout", "nan", "'nan' is not a number of seconds > 0"),
    ("--memory-mb", "-1", "'-1' is not a whole number >= 0"),
])
def test_run_refuses_a_non_positive_count_or_timeout(tmp_path, corpus, option, value, why):
    out = tmp_path / "out"
    r = conform("run", "--adapter", "oracle", "--corpus", corpus[0], "--out", str(out), option, value, "--no-report")
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert f"argument {option}: {why}" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists(), "nothing is run or written"


@pytest.mark.parametrize("make, says", [("missing", "does not exist"),
                                        ("a file, two adapters", "a file belongs to one adapter"),
                                        ("a file for an adapter not run", "does not exist")])
def test_run_refuses_an_expectations_path_it_cannot_use(tmp_path, corpus, make, says):
    where = tmp_path / "exp"
    adapters = ["--adapter", "oracle"]
    if make == "a file, two adapters":
        where.write_text("clip/* :: a file\n")
        adapters += ["--adapter", "bad_adapters:GoodClip"]
    value = f"nope={where}" if make == "a file for an adapter not run" else str(where)
    out = tmp_path / "out"
    r = conform("run", *adapters, "--corpus", corpus[0], "--out", str(out), "--expectations", value, "--no-report")
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert says in r.stderr and "Traceback" not in r.stderr and not out.exists(), r.stderr


def test_runner_refuses_the_same_options_for_every_caller(tmp_path, corpus):
    from conform import runner
    for kw, code in [({"jobs": 0}, 2), ({"case_timeout": -1.0}, 2), ({"case_timeout": 0}, 2),
                     ({"expectations_dir": str(tmp_path / "none")}, 3), ({"ops": ["clap"]}, 2)]:
        r = runner.run(["oracle"], corpus=corpus[0], out_dir=str(tmp_path / "o"), **kw)
        assert r.exit_code == code, (kw, r.exit_code, r.message)
    assert not (tmp_path / "o").exists()


def test_a_damaged_corpus_is_refused_with_file_and_line(tmp_path, corpus):
    lines = open(corpus[0]).read().splitlines(keepends=True)
    lines[3] = lines[3].replace('"clip"', '"clap"')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines))
    r = conform("run", "--adapter", "oracle", "--corpus", str(bad), "--out", str(tmp_path / "o"), "--no-report")
    assert r.returncode == 3 and "bad.jsonl:4" in r.stderr, r.stderr


def _kill_partway(args, results, at_least):
    p = popen(*args)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if os.path.exists(results) and open(results, "rb").read().count(b'"record":"case"') >= at_least:
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.communicate()
    return p.returncode


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path, long_corpus):
    path, cases = long_corpus
    full, cut = tmp_path / "full", tmp_path / "cut"
    base = ["run", "--adapter", "bad_adapters:Slow", "--corpus", path, "--no-report"]
    assert conform(*base, "--out", str(full)).returncode == 0
    results = str(cut / "results.jsonl")
    assert _kill_partway([*base, "--out", str(cut)], results, 15) == -signal.SIGKILL
    partial = records(results)
    assert 15 <= len(partial) < len(cases)
    assert not records(results, "end")
    t0 = time.monotonic()
    r = conform(*base, "--out", str(cut), "--resume")
    assert r.returncode == 0, r.stderr
    resumed = list(iter_records(results))
    assert without_timing(resumed) == without_timing(list(iter_records(str(full / "results.jsonl"))))
    assert len({x["case_id"] for x in resumed if x["record"] == "case"}) == len(cases)   # nothing duplicated
    assert time.monotonic() - t0 < 60


def test_sigterm_stops_with_130_and_resume_finishes(tmp_path, long_corpus):
    path, cases = long_corpus
    out = tmp_path / "out"
    args = ["run", "--adapter", "bad_adapters:Slow", "--corpus", path, "--out", str(out), "--no-report"]
    p = popen(*args)
    results = str(out / "results.jsonl")
    while not (os.path.exists(results) and open(results).read().count('"record":"case"') >= 5):
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "--resume" in err and not records(results, "end")
    r = conform(*args, "--resume")
    assert r.returncode == 0 and len(records(results)) == len(cases)
    assert records(results, "end")[0]["cases"] == len(cases)


def test_resume_of_another_corpus_is_refused(tmp_path, corpus, long_corpus):
    out = tmp_path / "out"
    assert conform("run", "--adapter", "oracle", "--corpus", corpus[0], "--out", str(out),
                   "--no-report").returncode == 0
    r = conform("run", "--adapter", "oracle", "--corpus", long_corpus[0], "--out", str(out), "--resume",
                "--no-report")
    assert r.returncode == 4 and "corpus_hash" in r.stderr


def test_three_shards_partition_the_corpus_and_merge_to_the_full_run(tmp_path, long_corpus):
    path, cases = long_corpus
    base = ["run", "--adapter", "oracle", "--corpus", path, "--no-report"]
    assert conform(*base, "--out", str(tmp_path / "full")).returncode == 0
    parts = []
    for k in (1, 2, 3):
        out = tmp_path / f"s{k}"
        assert conform(*base, "--out", str(out), "--shard", f"{k}/3").returncode == 0
        parts.append(str(out / "results.jsonl"))
    ids = [{x["case_id"] for x in records(p)} for p in parts]
    assert all(ids) and sum(map(len, ids)) == len(cases) and set.union(*ids) == {c.id for c in cases}
    full = records(str(tmp_path / "full" / "results.jsonl"))
    key = lambda r: (r["case_id"], r["adapter"])  # noqa: E731
    sharded = sorted((x for p in parts for x in records(p)), key=key)
    strip = lambda rs: [{k: v for k, v in r.items() if k not in (*TIMING, "run_id")} for r in rs]  # noqa: E731
    assert strip(sharded) == strip(sorted(full, key=key))
    r = conform("merge", *parts, "--out", str(tmp_path / "merged"))
    assert r.returncode == 0, r.stderr
    merged = sorted(records(str(tmp_path / "merged" / "results.jsonl")), key=key)
    assert strip(merged) == strip(sorted(full, key=key))


def test_two_runs_give_identical_results_apart_from_timings(tmp_path, corpus):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert conform("run", "--adapter", "oracle", "--adapter", "bad_adapters:WrongOutputs", "--corpus",
                       corpus[0], "--out", str(out), "--no-report").returncode == 1
    ra, rb = (list(iter_records(str(d / "results.jsonl"))) for d in (a, b))
    assert without_timing(ra) == without_timing(rb)


def test_jobs_keep_corpus_order_and_results(tmp_path, long_corpus):
    path, cases = long_corpus
    one, two = tmp_path / "one", tmp_path / "two"
    base = ["run", "--adapter", "bad_adapters:Slow", "--corpus", path, "--no-report"]
    assert conform(*base, "--out", str(one)).returncode == 0
    assert conform(*base, "--out", str(two), "--jobs", "2").returncode == 0
    assert without_timing(records(str(one / "results.jsonl"))) == without_timing(records(str(two / "results.jsonl")))


def test_in_process_run(tmp_path, corpus):
    r = conform("run", "--adapter", "oracle", "--in-process", "--corpus", corpus[0], "--out", str(tmp_path / "o"),
                "--no-report")
    assert r.returncode == 0, r.stderr
    header = list(iter_records(str(tmp_path / "o" / "results.jsonl")))[0]
    assert "worker" not in header["adapters"][0]["execution"]




def pytest_corpus(*args, timeout=600):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS])}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rxf",
                           "suites/test_corpus.py", *args], cwd=ROOT, env=env, text=True, capture_output=True,
                          timeout=timeout)


def test_pytest_xdist_loses_no_results(tmp_path, corpus):
    path, cases = corpus
    serial, para = str(tmp_path / "serial.jsonl"), str(tmp_path / "xdist.jsonl")
    r = pytest_corpus("--adapter", "oracle", "--corpus", path, "--results", serial)
    assert r.returncode == 0, r.stdout[-2000:]
    r = pytest_corpus("--adapter", "oracle", "--corpus", path, "--results", para, "-n", "2")
    assert r.returncode == 0, r.stdout[-2000:]
    assert f"{len(cases)} passed" in r.stdout
    assert len(records(para)) == len(cases) and records(para, "end")[0]["cases"] == len(cases)
    assert without_timing(records(para)) == without_timing(records(serial))


def test_pytest_listed_divergence_xfails_unlisted_fails_readably(tmp_path, corpus):
    path, cases = corpus
    shape = next(c for c in cases if c.label == "shape")
    exp = tmp_path / "wrong.txt"
    exp.write_text(f"clip/value-mismatch/*/{shape.id} :: reshapes its output\n"
                   "setitem/* :: never matches\n")
    results = str(tmp_path / "r.jsonl")
    r = pytest_corpus("--adapter", "bad_adapters:WrongOutputs", "--corpus", path, "--expectations", str(exp),
                      "--results", results)
    assert r.returncode == 1
    assert "3 failed, 6 passed, 1 xfailed" in r.stdout, r.stdout[-3000:]
    assert f"test_corpus_case[clip-WrongOutputs-shape-{shape.id[:6]}]" in r.stdout and "reshapes its output" in r.stdout
    fail = r.stdout[r.stdout.index("actual:"):]
    assert fail.index("actual:") < fail.index("expected:") < fail.index("call:") < fail.index("repro:")
    assert "wrong.txt:2 setitem/*" in r.stdout and "matched nothing" in r.stdout
    listed = [x for x in records(results) if x.get("expected_divergence")]
    assert [x["case_id"] for x in listed] == [shape.id]


def test_pytest_unknown_adapter_is_a_usage_error_naming_the_available_ones():
    r = pytest_corpus("--adapter", "nope", "--collect-only")
    assert r.returncode == 4, r.stderr          # pytest's exit code for a usage error
    assert "unknown adapter 'nope'" in r.stderr and "available adapters: " in r.stderr and "oracle" in r.stderr


def test_an_oracle_failure_on_one_case_is_reported_and_the_rest_recorded(tmp_path, corpus):
    import oracle
    from conform import runner

    def expect(case):
        if case.label == "hang":
            raise IndexError("oracle bug")
        return oracle.expect(case)
    r = runner.run(["oracle"], corpus=corpus[0], out_dir=str(tmp_path), expect=expect)
    assert r.exit_code == runner.EXIT_ORACLE and "IndexError: oracle bug" in r.oracle_failures[0]
    assert len(records(r.results_path)) == len(corpus[1]) - 1


def test_a_run_survives_floods_chdir_forks_and_leaks(tmp_path):
    cases = [clip_case(label, x=[1.0, float(i)]) for i, label in enumerate(["flood", "chdir", "fork", "leak", "ok"])]
    path = tmp_path / "c" / "corpus.jsonl"
    path.parent.mkdir()
    write_corpus(str(path), cases)
    out = tmp_path / "out"
    r = conform("run", "--adapter", "bad_adapters:Noisy", "--adapter", "bad_adapters:Leaky", "--memory-mb", "1536",
                "--corpus", str(path), "--out", str(out), "--no-report")
    assert r.returncode == 1, r.stderr          # Leaky's MemoryErrors are unlisted divergences
    got = {(x["adapter"], x["case"]["label"]): x for x in records(str(out / "results.jsonl"))}
    assert len(got) == 10
    assert all(got["noisy", label]["verdict"] == "pass" for label in ("flood", "chdir", "fork", "ok"))
    assert all(got["leaky", c.label]["verdict"] == "unexpected-error" and "MemoryError" in got["leaky", c.label]["outcome"]
               for c in cases)


# ---- pytest output: short, ids without spaces, --lf with the cache outside the working tree ---------

def pytest_plain(*args, home, timeout=600):
    """pytest with the project's own configuration (pyproject addopts, cache_dir), HOME moved to `home`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS]), "HOME": str(home)}
    env.pop("XDG_CACHE_HOME", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "suites/test_corpus.py", *args],
                          cwd=ROOT, env=env, text=True, capture_output=True, timeout=timeout)


@pytest.fixture
def spaced_corpus(tmp_path):
    cases = [clip_case(label, x=[1.0, 5.0, float(i)]) for i, label in
             enumerate(["ok", "value", "shape", "two  words\tand a tab"])]
    path = tmp_path / "spaced.jsonl"
    write_corpus(str(path), cases)
    return str(path), cases


def test_pytest_ids_have_no_whitespace(tmp_path, spaced_corpus):
    r = pytest_plain("--adapter", "oracle", "--corpus", spaced_corpus[0], "--collect-only", home=tmp_path)
    ids = [line for line in r.stdout.splitlines() if "::test_corpus_case[clip-" in line]
    assert len(ids) == len(spaced_corpus[1]), r.stdout
    assert all(not re.search(r"\s", i) for i in ids), ids
    assert any("two_words_and_a_tab" in i for i in ids), ids


def test_pytest_summary_lists_failures_not_expected_divergences(tmp_path, spaced_corpus):
    path, cases = spaced_corpus
    shape = next(c for c in cases if c.label == "shape")
    exp = tmp_path / "wrong.txt"
    exp.write_text(f"clip/value-mismatch/*/{shape.id} :: reshapes its output\n")
    r = pytest_plain("--adapter", "bad_adapters:WrongOutputs", "--corpus", path, "--expectations", str(exp),
                     home=tmp_path)
    assert r.returncode == 1, r.stdout[-3000:]
    summary = r.stdout[r.stdout.index("short test summary info"):]
    assert "FAILED suites/test_corpus.py::test_corpus_case[clip-WrongOutputs-value-" in summary
    assert "XFAIL" not in summary and "SKIPPED" not in summary and "PASSED" not in summary, summary
    assert "1 xfailed" in summary


def test_pytest_last_failed_reruns_the_failures_with_its_cache_outside_the_tree(tmp_path, spaced_corpus):
    path, cases = spaced_corpus
    args = ("--adapter", "bad_adapters:WrongOutputs", "--corpus", path)
    first = pytest_plain(*args, home=tmp_path)
    assert first.returncode == 1 and "2 failed, 2 passed" in first.stdout, first.stdout[-2000:]
    again = pytest_plain(*args, "--lf", home=tmp_path)
    assert again.returncode == 1, again.stdout[-2000:]
    failed = lambda r: sorted(re.findall(r"^FAILED (\S+)", r.stdout, re.M))  # noqa: E731
    assert failed(again) == failed(first) and len(failed(first)) == 2, again.stdout[-2000:]
    assert re.search(r"^2 failed, \d+ deselected in ", again.stdout, re.M), again.stdout[-2000:]
    assert (tmp_path / ".cache" / "tensor-conformance" / "pytest" / "v" / "cache" / "lastfailed").is_file()
    assert not os.path.exists(os.path.join(ROOT, ".pytest_cache")), "the cache stays out of the working tree"


@pytest.mark.parametrize("args, says", [
    (["--case-timeout", "0"], "--case-timeout must be a number of seconds > 0, got 0.0"),
    (["--case-timeout", "-1"], "--case-timeout must be a number of seconds > 0, got -1.0"),
    (["--expectations", "/nonexistent/expectations"], "--expectations /nonexistent/expectations: does not exist"),
])
def test_pytest_refuses_the_options_conform_run_refuses(tmp_path, corpus, args, says):
    r = pytest_plain("--adapter", "oracle", "--corpus", corpus[0], *args, home=tmp_path)
    assert r.returncode == 4, (r.returncode, r.stdout[-1500:], r.stderr[-1500:])     # pytest's usage error
    assert says in r.stderr and "Traceback" not in r.stderr, r.stderr
