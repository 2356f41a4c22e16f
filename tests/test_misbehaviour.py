"""Candidates that misbehave beyond crash and hang, run for real through `conform run`'s runner and workers.

For each: every case gets a verdict, the run completes, the harness process's
own state (cwd, NumPy state, environment, umask, descriptors) is what it was,
and no process the candidate started survives the run.
"""
import os
import signal
import time

import numpy as np
import pytest

from conform import runner
from contract.results import iter_records

from bad_adapters import write_corpus
from adapters.sandbox import WRITABLE_ENV
from misbehaving_adapters import PID_DIR_ENV, clip_case, outer_pid


def harness_state():
    return {"cwd": os.getcwd(), "np_err": np.geterr(), "np_print": np.get_printoptions(),
            "np_random": np.random.get_state()[1][:4].tolist(), "umask": _umask(),
            "env": os.environ.get("CONFORM_CANDIDATE_WAS_HERE"), "fds": sorted(os.listdir("/proc/self/fd")),
            "children": _children()}


def _umask():
    m = os.umask(0o022)
    os.umask(m)
    return m


def _children():
    out = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                out.update(f.read().split())
        except OSError:
            pass
    return sorted(out)


def alive(pid):
    """A process that exists and is not a zombie (a container's init may never reap the dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def run_candidate(tmp_path, monkeypatch):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    monkeypatch.setenv(PID_DIR_ENV, str(pid_dir))     # the workers inherit it
    monkeypatch.setenv(WRITABLE_ENV, str(pid_dir))    # and may write it, sandboxed (adapters.sandbox)

    def run(cls, labels, **kw):
        corpus = tmp_path / f"{cls}.jsonl"
        cases = [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in enumerate(labels)]
        write_corpus(str(corpus), cases)
        before = harness_state()
        t0 = time.monotonic()
        result = runner.run([f"misbehaving_adapters:{cls}"], corpus=str(corpus), out_dir=str(tmp_path / cls), **kw)
        took = time.monotonic() - t0
        after = harness_state()
        assert after == before, f"actual: harness state after the run {after}; expected: unchanged {before}"
        recs = [r for r in iter_records(result.results_path) if r["record"] == "case"]
        assert len(recs) == len(cases), f"actual: {len(recs)} records; expected: {len(cases)}; {result.message}"
        assert any(r["record"] == "end" for r in iter_records(result.results_path)), "the run did not finish"
        return {r["case"]["label"]: r for r in recs}, took, pid_dir
    return run


def test_output_floods_through_every_stream_are_bounded_and_keep_the_reason(run_candidate):
    got, took, _ = run_candidate("Flooder", ["flood", "quiet", "flood-again"], case_timeout=60)
    assert {lbl: r["verdict"] for lbl, r in got.items()} == {"flood": "pass", "quiet": "pass", "flood-again": "pass"}
    # Passing cases keep no stderr; the flood must not have slowed the run to a crawl either.
    assert took < 30, f"actual: {took:.1f} s for three cases; expected: well under the timeout"


def test_an_endless_flood_is_stopped_before_it_fills_the_disk(run_candidate):
    got, took, _ = run_candidate("Flooder", ["endless", "after"], case_timeout=60)
    v = got["endless"]
    # Past the worker's file-size limit a write fails: Python ignores SIGXFSZ and raises EFBIG (C code that
    # keeps the signal's default dies of it); either way the flood ends long before the case timeout.
    stopped = (v["verdict"] == "unexpected-error" and "File too large" in v["outcome"]) or \
              (v["verdict"] == "crash" and "SIGXFSZ" in v["outcome"])
    assert stopped, (
        f"actual: {v['verdict']} / {v['outcome']}; expected: stopped by the worker's file-size limit; "
        f"call: Flooder.clip writing to stdout forever; repro: {v['repro'][:200]}")
    assert len(v["error"].get("stderr") or "") < 80_000
    assert got["after"]["verdict"] == "pass"
    assert took < 40, f"actual: {took:.1f} s; expected: stopped by the size limit, not the 60 s timeout"


def test_a_leak_until_the_limit_is_a_memory_error_and_the_next_case_runs(run_candidate):
    got, _, _ = run_candidate("Leaker", ["leak-all", "ok"], memory_mb=1024, case_timeout=60)
    v = got["leak-all"]
    assert v["verdict"] == "unexpected-error" and "MemoryError" in v["outcome"], v["outcome"]
    assert got["ok"]["verdict"] == "pass"


def test_a_c_level_leak_hits_the_same_limit(run_candidate):
    got, _, _ = run_candidate("Leaker", ["leak-c", "ok"], memory_mb=1024, case_timeout=60)
    # RLIMIT_AS makes malloc return NULL instead of the kernel's OOM killer taking the machine's memory.
    v = got["leak-c"]
    assert v["verdict"] == "unexpected-error" and "malloc returned NULL" in v["outcome"], v["outcome"]
    assert got["ok"]["verdict"] == "pass"


def test_without_an_address_space_limit_the_resident_memory_watchdog_kills_the_leak(run_candidate, monkeypatch):
    # The default guard: no --memory-mb, so the leak runs until the pool sees the worker's resident
    # memory pass its limit (lowered here from the 8 GB default to keep the test small).
    from adapters import channel
    monkeypatch.setattr(channel, "RSS_LIMIT_MB", 400)
    got, _, _ = run_candidate("Leaker", ["leak-all", "ok"], case_timeout=60)
    v = got["leak-all"]
    assert v["verdict"] == "crash" and "resident memory" in v["outcome"], v["outcome"]
    assert got["ok"]["verdict"] == "pass"


def test_memory_kept_across_cases_does_not_poison_later_cases(run_candidate):
    # Each leak-some case keeps 200 MB for good; the limit is reached on one of them. The cases after
    # the MemoryError must get a worker with its memory back, not inherit the exhausted one.
    labels = [f"leak-some-{i}" for i in range(7)] + ["ok-1", "leak-some-after", "ok-2"]
    got, _, _ = run_candidate("Leaker", labels, memory_mb=1024, case_timeout=60)
    verdicts = {lbl: got[lbl]["verdict"] for lbl in labels}
    failed = [lbl for lbl in labels if verdicts[lbl] != "pass"]
    assert failed and all("MemoryError" in got[lbl]["outcome"] for lbl in failed), verdicts
    assert verdicts["ok-1"] == verdicts["ok-2"] == verdicts["leak-some-after"] == "pass", (
        f"actual: {verdicts}; expected: the worker restarted after the MemoryError, so later cases pass")


@pytest.mark.parametrize("mess", ["mess", "mess-deleted"])
def test_global_state_changes_stay_in_the_worker_and_are_undone_for_the_next_case(run_candidate, mess):
    # The harness state check in run_candidate covers this process; the next case checks the worker.
    got, _, _ = run_candidate("GlobalState", [mess, "next"], case_timeout=60)
    assert got[mess]["verdict"] == "pass", got[mess]["outcome"]
    assert got["next"]["verdict"] == "pass", (
        f"actual: {got['next']['verdict']}: {got['next']['outcome']}; expected: pass, the worker restored "
        f"cwd, NumPy error state and print options after {mess!r}")


def test_children_in_the_workers_group_do_not_survive_the_run(run_candidate):
    got, _, pid_dir = run_candidate("Forker", ["fork-group", "ok"], case_timeout=60)
    assert [r["verdict"] for r in got.values()] == ["pass", "pass"]
    pids = [outer_pid(p.read_text()) for p in pid_dir.iterdir()]
    assert len(pids) == 1
    time.sleep(0.2)
    assert not [p for p in pids if alive(p)], f"actual: {pids} still alive after the run; expected: none"


def test_a_daemon_that_escaped_into_its_own_session_does_not_survive_the_run(run_candidate):
    got, _, pid_dir = run_candidate("Forker", ["fork-session", "ok"], case_timeout=60)
    assert [r["verdict"] for r in got.values()] == ["pass", "pass"]
    pids = [outer_pid(p.read_text()) for p in pid_dir.iterdir()]
    assert len(pids) == 1
    try:
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and any(alive(p) for p in pids):
            time.sleep(0.05)
        assert not [p for p in pids if alive(p)], (
            f"actual: daemon {pids} (setsid + double fork) alive after the run; expected: killed with its worker")
    finally:
        for p in pids:
            if alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_background_thread_that_keeps_writing_does_not_disturb_later_cases(run_candidate):
    got, _, _ = run_candidate("Forker", ["thread", "ok-1", "ok-2"], case_timeout=60)
    assert [got[lbl]["verdict"] for lbl in ("thread", "ok-1", "ok-2")] == ["pass"] * 3


def test_a_hang_that_ignores_sigterm_is_a_timeout(run_candidate):
    got, took, _ = run_candidate("Stubborn", ["hang", "ok"], case_timeout=1.5)
    assert got["hang"]["verdict"] == "timeout" and got["ok"]["verdict"] == "pass"
    assert took < 15


@pytest.mark.parametrize("label", ["garbage", "close"])
def test_a_candidate_that_writes_on_or_closes_the_protocol_pipes_is_a_crash(run_candidate, label):
    got, took, _ = run_candidate("PipeWriter", [label, "ok"], case_timeout=20)
    assert got[label]["verdict"] == "crash", got[label]["outcome"]
    # The harness killed the garbling worker itself: no signal may be blamed on the candidate.
    why = {"garbage": "broke the protocol", "close": "exited with status 1"}[label]
    assert why in got[label]["outcome"] and "SIGKILL" not in got[label]["outcome"], got[label]["outcome"]
    assert got["ok"]["verdict"] == "pass"
    assert took < 10
