"""The trust boundary holds from the first process the harness starts (issue 38, items 1 and 4).

The keeper runs outside the sandbox: nothing it imports may come from a folder the candidate can write.  A
candidate plants packages named like the harness's own in its folders and forces a new worker three ways; the
planted code must never run (it would write a file outside the sandbox), and the new worker finds its folders
empty.  Memory the candidate holds without having it resident (memfds, a detached System V segment) counts
against the worker's limit or is refused.
"""
import os
import shutil
import sys

import pytest

from adapters import channel, pool, sandbox

from bad_adapters import clip_case
from boundary_adapters import MARK_ENV, MEMFD_ENV

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cases(spec, *labels, **options) -> list:
    """The outcomes of clip cases with these labels, run in order by one worker handle of `spec`."""
    h = pool.WorkerHandle(spec, **options)
    try:
        return [h.run(clip_case(label)) for label in labels]
    finally:
        h.close()


@pytest.fixture
def mark(tmp_path, monkeypatch):
    path = tmp_path / "escaped.txt"        # outside every folder a sandboxed worker may write
    monkeypatch.setenv(MARK_ENV, str(path))
    return path


@pytest.mark.parametrize("how", ["plant-crash", "plant-memory"])
def test_refuses_to_run_code_planted_in_the_scratch_folder_outside_the_sandbox(mark, how):
    """The attack of issue 38: `python -m adapters.keeper` with its working directory in the scratch folder
    imported the candidate's `adapters` package when the worker was started again."""
    h = pool.WorkerHandle("boundary_adapters:Planter")
    try:
        first = h.run(clip_case(how))
        assert "planted" in first.stderr, f"actual: {first.kind} {first.stderr!r}; expected: the candidate planted"
        look = h.run(clip_case("look"))
        again = h.run(clip_case("look"))
    finally:
        h.close()
    escaped = mark.read_text() if mark.exists() else ""
    assert not escaped, f"actual: the planted code ran outside the sandbox: {escaped!r}; expected: never imported"
    assert h.restarts >= 1, "actual: no new worker was started; expected: the attack's restart"
    assert look.kind == again.kind == "returned", (look.kind, look.message)
    assert "left over: []" in look.stderr, f"actual: {look.stderr!r}; expected: a new worker's folders emptied"


def test_refuses_a_writable_folder_that_holds_or_lies_in_the_workers_import_path(mark, tmp_path, monkeypatch):
    """A folder the user lets the worker write (CONFORM_WORKER_WRITABLE) that is also on the import path: the
    candidate could plant code there that the next keeper imports outside the sandbox, so no worker starts."""
    from adapters.registry import AdapterError
    extra = tmp_path / "cache"
    extra.mkdir()
    from boundary_adapters import _plant
    _plant(str(extra), str(mark))       # as a candidate would have, in an earlier run
    monkeypatch.setenv(sandbox.WRITABLE_ENV, str(extra))
    monkeypatch.syspath_prepend(str(extra))
    with pytest.raises(AdapterError, match="code planted there would run outside the sandbox"):
        pool.WorkerHandle("boundary_adapters:Planter")
    assert not mark.exists(), f"actual: {mark.read_text()!r}; expected: nothing planted ever imported"


def test_the_keeper_is_started_in_safe_path_mode_outside_the_scratch_folder():
    h = pool.WorkerHandle("boundary_adapters:Planter")
    try:
        keeper = h.proc.pid
        cwd = os.readlink(f"/proc/{keeper}/cwd")
        argv = open(f"/proc/{keeper}/cmdline", "rb").read().split(b"\0")
        scratch = h._scratch
    finally:
        h.close()
    assert not (cwd + os.sep).startswith(scratch + os.sep), f"actual: keeper's cwd {cwd} in {scratch}"
    if sys.version_info >= (3, 11):
        assert b"-P" in argv[:argv.index(b"-m")], f"actual: {argv}; expected: -P before -m"


# ---- memory the resident count does not see (issue 38, item 4) --------------------------------------

@pytest.mark.parametrize("label", ["memfd", "memfd-mapped"])
def test_memory_held_in_memfds_counts_against_the_workers_limit(monkeypatch, label):
    """900 MB in memfds under a 256 MB limit: the worker is killed, as for resident memory."""
    monkeypatch.setattr(channel, "RSS_LIMIT_MB", 256)
    monkeypatch.setenv(MEMFD_ENV, "900")
    out, after = run_cases("boundary_adapters:MemfdHoarder", label, "ok")
    assert out.kind == "crashed" and "passed the limit of 256 MB" in out.message, (
        f"actual: {out.kind}: {out.message!r} {out.stderr[-300:]!r}; expected: killed for the memory it held")
    assert after.kind == "returned", after.message


def test_a_system_v_segment_is_refused_in_the_sandbox(monkeypatch):
    """A detached segment is held by no process: it is refused (seccomp) and, in a namespace of the
    worker's own, would go with it."""
    if shutil.which("bwrap") is None or sandbox.mode()[0] != "bubblewrap":
        pytest.skip("bubblewrap is not installed: workers run in mode none (docs/CERTIFY.md, Isolation and limits)")
    monkeypatch.setenv(MEMFD_ENV, "300")
    out, = run_cases("boundary_adapters:MemfdHoarder", "sysv")
    assert out.kind == "returned" and "refused shmget" in out.stderr, (
        f"actual: {out.kind}: {out.stderr!r}; expected: shmget refused")


# ---- a worker's start again is bounded by the case timeout (issue 38, item 5) ------------------------------

def test_a_worker_started_again_has_the_case_timeout_to_say_hello_not_five_minutes(tmp_path, monkeypatch):
    """A candidate that crashes and then starts slowly: each start again costs the case timeout (at least
    RESTART_FLOOR_S), not START_TIMEOUT."""
    import time
    from boundary_adapters import SLOW_START_ENV
    flag = tmp_path / "slow"
    monkeypatch.setenv(SLOW_START_ENV, str(flag))
    monkeypatch.setenv(sandbox.WRITABLE_ENV, str(tmp_path))     # the worker's /tmp is its own: bound back
    h = pool.WorkerHandle("boundary_adapters:SlowToRestart", case_timeout=2)
    try:
        flag.write_text("from now on")
        t0 = time.monotonic()
        crashed = h.run(clip_case("crash"))
        after = h.run(clip_case("ok"))
        took = time.monotonic() - t0
    finally:
        h.close()
    assert crashed.kind == "crashed", crashed.message
    assert after.kind == "crashed" and f"no hello within {pool.RESTART_FLOOR_S:g} s" in after.message, (
        f"actual: {after.kind}: {after.message!r}; expected: the start again given up after the floor")
    assert took < 4 * pool.RESTART_FLOOR_S + 10, f"actual: {took:.1f} s for two cases; expected: starts bounded"


def test_a_cache_folder_torch_set_in_the_harness_does_not_stop_a_worker(monkeypatch):
    """torch sets TORCHINDUCTOR_CACHE_DIR=/tmp/torchinductor_<user> in a process that compiled in-process (as
    a pytest process does); a worker, whose /tmp is its own and read-only, then failed to start torch."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/tmp/torchinductor_conform_test")
    out, = run_cases("torch", "ok")
    assert out.kind in ("returned", "raised"), f"actual: {out.kind}: {out.message}"
