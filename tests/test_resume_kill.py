"""SIGKILL a live `conform run` over a few hundred corpus cases partway, `--resume` it, and compare with a run never killed.

The resumed results must equal the uninterrupted ones record for record
(timings apart), with no (case, adapter) twice, whether the kill left a whole
last line, a torn one, came twice, or came before the first case.
"""
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from contract.results import iter_records
from oracle import registry
from suites import corpus as C
from adapter_helpers import conform

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
ADAPTER = "misbehaving_adapters:SlowOracle"       # the oracle at ~4 ms a case: slow enough to kill partway
N_CASES = 300
TIMING = ("elapsed_s", "started", "finished")
TOKEN = "CONFORM_RESUME_TEST_TOKEN"


def _env(token):
    return {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS]), TOKEN: token}


def kill_when(token, args, results, records_at_least):
    """Start `conform run`, SIGKILL it once the results file holds that many case records (0: the header)."""
    p = subprocess.Popen([sys.executable, "-m", "conform.cli", *args], cwd=ROOT, env=_env(token),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and p.poll() is None:
            if os.path.exists(results):
                data = open(results, "rb").read()
                if data.count(b"\n") >= 1 and data.count(b'"record":"case"') >= records_at_least:
                    break
            time.sleep(0.005)
        assert p.poll() is None, f"the run ended before the kill (rc {p.returncode}): make the corpus slower"
        p.send_signal(signal.SIGKILL)
    finally:
        _, err = p.communicate(timeout=30)
    assert p.returncode == -signal.SIGKILL, err.decode()[-2000:]


def processes_with(token):
    """Live processes (not zombies) carrying the test's token: workers orphaned by the kill."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"{TOKEN}={token}".encode() in env and state != "Z":
            found.append(int(pid))
    return found


def without_timing(recs):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in recs]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    # Every 8th shipped case: all five ops, doc examples and error cases among them.
    cases = [c for i, c in enumerate(C.iter_corpus(C.DEFAULT_PATH)) if i % 8 == 0][:N_CASES]
    path = tmp_path_factory.mktemp("resume") / "corpus.jsonl"
    C.write_corpus(path, cases)
    assert {c.op for c in cases} == set(registry.SPECS), sorted({c.op for c in cases})
    return str(path), cases


@pytest.fixture(scope="module")
def uninterrupted(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("full")
    r = conform("run", "--adapter", ADAPTER, "--corpus", corpus[0], "--out", str(out), "--no-report", env=_env("full"), timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    recs = list(iter_records(str(out / "results.jsonl")))
    assert sum(1 for x in recs if x["record"] == "case") == len(corpus[1])
    return recs


def cut_last_line(path):
    """Leave the last record half written, as a kill in the middle of a write would."""
    data = open(path, "rb").read()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    assert len(data) - start > 20, "need a whole last record to tear"
    open(path, "wb").write(data[:start + (len(data) - start) // 2])


@pytest.mark.parametrize("scenario", ["kill", "torn-last-line", "killed-twice", "before-first-case", "jobs-2"])
def test_sigkill_then_resume_equals_the_uninterrupted_run(tmp_path, corpus, uninterrupted, scenario):
    path, cases = corpus
    out = tmp_path / "out"
    results = str(out / "results.jsonl")
    token = str(tmp_path)
    jobs = ["--jobs", "2"] if scenario == "jobs-2" else []
    args = ["run", "--adapter", ADAPTER, "--corpus", path, "--out", str(out), "--no-report", *jobs]

    kill_when(token, args, results, 0 if scenario == "before-first-case" else 60)
    partial = [r for r in iter_records(results) if r["record"] == "case"]
    assert len(partial) < len(cases) and not [r for r in iter_records(results) if r["record"] == "end"]
    if scenario == "torn-last-line":
        cut_last_line(results)
    if scenario == "killed-twice":
        kill_when(token, [*args, "--resume"], results, len(partial) + 60)

    t0 = time.monotonic()
    r = conform(*args, "--resume", env=_env(token), timeout=120)
    took = time.monotonic() - t0
    assert r.returncode == 0, f"actual: exit {r.returncode}; expected: 0; stderr: {r.stderr[-2000:]}"

    resumed = list(iter_records(results))
    keys = Counter((x["case_id"], x["adapter"]) for x in resumed if x["record"] == "case")
    twice = [k for k, n in keys.items() if n > 1]
    assert not twice, f"actual: {len(twice)} cases recorded twice, e.g. {twice[:3]}; expected: none"
    assert without_timing(resumed) == without_timing(uninterrupted), (
        f"actual: {len(resumed)} records after resume; expected: the {len(uninterrupted)} of the uninterrupted run, "
        f"equal apart from {TIMING}; repro: conform {' '.join(args)} (SIGKILL it), then again with --resume")
    assert open(results, "rb").read().endswith(b"\n")
    assert took < 30, f"actual: resume took {took:.1f} s"
    time.sleep(0.3)
    assert processes_with(token) == [], "a worker of the killed run outlived it"


def test_resume_of_a_finished_run_adds_nothing(tmp_path, corpus, uninterrupted):
    out = tmp_path / "out"
    args = ["run", "--adapter", ADAPTER, "--corpus", corpus[0], "--out", str(out), "--no-report"]
    assert conform(*args, env=_env("done"), timeout=120).returncode == 0
    before = open(out / "results.jsonl", "rb").read()
    r = conform(*args, "--resume", env=_env("done"), timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert open(out / "results.jsonl", "rb").read() == before, "resuming a finished run must not write"


def test_resume_refuses_damage_other_than_a_torn_last_line(tmp_path, corpus):
    out = tmp_path / "out"
    results = str(out / "results.jsonl")
    args = ["run", "--adapter", ADAPTER, "--corpus", corpus[0], "--out", str(out), "--no-report"]
    kill_when("damage", args, results, 30)
    lines = open(results, "rb").read().split(b"\n")
    lines[5] = lines[5][: len(lines[5]) // 2]            # a torn line in the middle is not a kill
    open(results, "wb").write(b"\n".join(lines))
    r = conform(*args, "--resume", env=_env("damage"), timeout=120)
    assert r.returncode == 3, f"actual: exit {r.returncode}; expected: 3 (bad input); {r.stderr[-1000:]}"
    assert f"{results}:6" in r.stderr, r.stderr[-1000:]
    json.loads(lines[1])      # the file was left as it was: nothing appended after the refusal
    assert open(results, "rb").read() == b"\n".join(lines)


def test_a_worker_stuck_in_a_hang_dies_with_a_sigkilled_harness(tmp_path):
    # The harness cannot time the case out once it is dead: the worker must not live on in the hang.
    from bad_adapters import write_corpus
    from misbehaving_adapters import clip_case
    corpus = tmp_path / "corpus.jsonl"
    # distinct contents: a corpus holds each case id once
    write_corpus(str(corpus), [clip_case(lbl, x=[1.0, 5.0, 9.0, float(i)]) for i, lbl in enumerate(["ok", "hang", "after"])])
    out = tmp_path / "out"
    token = str(tmp_path)
    args = ["run", "--adapter", "misbehaving_adapters:Stubborn", "--corpus", str(corpus), "--out", str(out),
            "--case-timeout", "120", "--no-report"]
    kill_when(token, args, str(out / "results.jsonl"), 1)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and processes_with(token):
        time.sleep(0.05)
    left = processes_with(token)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"actual: worker(s) {left} alive after the harness was SIGKILLed; expected: none"
