"""Real misbehaving candidates in real worker processes: each gets the right outcome and the worker recovers."""
import os
import signal
import time

import numpy as np
import pytest

from adapters.base import CRASHED, RAISED, RETURNED, TIMED_OUT
from adapters.pool import InProcessHandle, WorkerHandle
from adapters.registry import AdapterError
from suites.describe import describe
from suites.judge import judge

from bad_adapters import clip_case, clip_expectation


@pytest.fixture
def handles():
    made = []

    def make(cls, **kw):
        h = WorkerHandle(f"bad_adapters:{cls}", **kw)
        made.append(h)
        return h
    yield make
    for h in made:
        h.close()


def _verdict(h, case):
    return judge(case, clip_expectation(case), h.run(case), h)


def test_good_candidate_passes_through_the_worker(handles):
    h = handles("GoodClip")
    assert (h.name, h.version, h.available) == ("good", "0.0-test", True)
    case = clip_case()
    out = h.run(case)
    assert out.kind == RETURNED, out
    assert out.arrays["out"].tolist() == [2.0, 5.0, 6.0] and out.arrays["out"].dtype == np.float32
    assert out.native_api == "GoodClip.clip" and out.elapsed_s > 0
    assert _verdict(h, case).verdict == "pass"


def test_segfault_is_a_crash_with_the_signal_and_the_worker_restarts(handles):
    h = handles("Segfault")
    out = h.run(clip_case("crash"))
    assert (out.kind, out.signal) == (CRASHED, signal.SIGSEGV), out
    assert "Segmentation fault" in out.stderr          # faulthandler's report, captured for the verdict
    v = judge(clip_case("crash"), clip_expectation(clip_case("crash")), out, h)
    assert v.verdict == "crash" and "SIGSEGV" in v.outcome and not v.repro      # the judge asks the worker nothing
    assert describe(v, clip_case("crash"), clip_expectation(clip_case("crash")), h).repro     # asked of it after
    assert _verdict(h, clip_case("after")).verdict == "pass"
    assert h.restarts >= 1


def test_refuses_to_blame_a_case_for_a_crash_an_earlier_case_of_the_worker_caused(handles):
    # 'damage' breaks the worker and returns; the next cases die in it.  Each crash is sent again, first to a
    # fresh worker: there 'victim' passes, and only a case that also kills a fresh worker is a crash
    h = handles("Damaged")
    for label in ("damage", "victim", "damage", "also a victim"):
        h.submit(clip_case(label))
    outs = [h.collect() for _ in range(4)]
    assert [o.kind for o in outs] == [RETURNED] * 4, [(o.kind, o.message) for o in outs]
    assert h.restarts == 2, h.restarts
    h.run(clip_case("damage"))
    own = h.run(clip_case("crash"))
    assert (own.kind, own.signal) == (CRASHED, signal.SIGSEGV), own
    assert _verdict(h, clip_case("after")).verdict == "pass"


def test_hang_is_a_timeout_and_the_next_case_runs(handles):
    h = handles("Hang", case_timeout=1.0)
    t0 = time.monotonic()
    out = h.run(clip_case("hang"))
    took = time.monotonic() - t0
    assert (out.kind, out.seconds) == (TIMED_OUT, 1.0), out
    assert took < 5, took
    v = judge(clip_case("hang"), clip_expectation(clip_case("hang")), out, h)
    assert v.verdict == "timeout" and "1 s" in v.outcome
    assert _verdict(h, clip_case("fine")).verdict == "pass"


@pytest.mark.parametrize("label, exc_type", [
    ("base", "_NotAnException"), ("unprintable", "_Unprintable"), ("exit", "SystemExit"),
    ("interrupt", "KeyboardInterrupt")])
def test_odd_exceptions_become_raised_outcomes_in_a_live_worker(handles, label, exc_type):
    h = handles("OddExceptions")
    pid = h.proc.pid
    out = h.run(clip_case(label))
    assert (out.kind, out.exc_type) == (RAISED, exc_type), out
    assert out.exc_mro[-2:] == ("BaseException", "object")
    if label == "unprintable":
        assert "str()" in out.message
    assert _verdict(h, clip_case(label)).verdict == "unexpected-error"
    assert h.proc.pid == pid, "the worker must survive what the candidate raises"


def test_run_returning_a_non_outcome_is_reported(handles):
    out = handles("OddExceptions").run(clip_case("notoutcome"))
    assert (out.kind, out.exc_type) == (RAISED, "AdapterProtocolError") and "list" in out.message


@pytest.mark.parametrize("label, verdict, text", [
    ("shape", "value-mismatch", "shape [1, 3] != [3]"),
    ("dtype", "value-mismatch", "dtype float64 != float32"),
    ("value", "value-mismatch", "1 of 3 elements differ; first at (2,): 7.0 != 6.0"),
    ("complex", "value-mismatch", "primary output 'out' missing"),
    ("missing", "value-mismatch", "primary output 'out' missing"),
])
def test_wrong_outputs_are_value_mismatches(handles, label, verdict, text):
    v = _verdict(handles("WrongOutputs"), clip_case(label))
    assert v.verdict == verdict and text in v.outcome, v.outcome
    if label == "complex":
        assert "complex64" in v.outcome


def test_a_candidate_that_clamps_in_place_is_caught_by_the_input_output(handles):
    v = _verdict(handles("Mutating"), clip_case("inplace"))
    assert v.verdict == "value-mismatch" and v.mismatch["output"] == "x", v.outcome


def test_a_candidate_cannot_write_into_the_cases_arrays(handles):
    case = clip_case("direct")
    before = case.inputs["x"].copy()
    out = handles("Mutating").run(case)
    assert out.kind == RAISED and "read-only" in out.message
    h = InProcessHandle("bad_adapters:Mutating")
    assert h.run(case).kind == RAISED
    assert np.array_equal(case.inputs["x"], before)


def test_floods_are_bounded_and_the_error_line_is_kept(handles):
    h = handles("Noisy")
    out = h.run(clip_case("flood"))
    assert out.kind == RETURNED
    assert len(out.stderr) < 80_000 and "bytes cut" in out.stderr
    assert "[ERROR] the reason is here" in out.stderr
    assert h.run(clip_case("quiet")).stderr == ""       # captured per case, not accumulated


def test_cwd_and_numpy_state_are_restored_between_cases(handles):
    h = handles("Noisy")
    out = h.run(clip_case("chdir"))
    assert "changed the working directory" in out.stderr
    x = clip_case("overflow", x=[1e38, 3e38, -3e38], lo=-1e38, hi=1e38)
    assert _verdict(h, x).verdict == "pass"      # np.seterr(all="raise") did not leak into the next case


def test_children_left_behind_die_with_the_worker(handles):
    h = handles("Noisy")
    assert h.run(clip_case("fork")).kind == RETURNED
    pgid = h.proc.pid
    from adapters.sandbox import mode
    sandboxed = mode()[0] == "bubblewrap"
    # the keeper, bubblewrap's two where it runs the worker (its monitor, its pid namespace's init), the worker
    # and the child it forked
    assert len(_live_in_group(pgid)) == 3 + 2 * sandboxed, mode()
    h.close()
    time.sleep(0.2)
    assert _live_in_group(pgid) == []


def _live_in_group(pgid):
    """Processes of a group that are not zombies (a container's init may never reap the dead)."""
    live = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(int(pid))
    return live


def test_unavailable_adapter_reports_why(handles):
    h = handles("Unavailable")
    assert (h.available, h.reason) == (False, "the test framework is not installed")


def test_setup_failure_is_a_clear_error_with_the_reason():
    with pytest.raises(AdapterError, match="libfoo.so"):
        WorkerHandle("bad_adapters:BrokenSetup")


def test_unknown_module_is_a_clear_error():
    with pytest.raises(AdapterError, match="cannot import no_such_module"):
        WorkerHandle("no_such_module:Thing")


def test_in_process_handle_has_the_same_interface():
    h = InProcessHandle("bad_adapters:GoodClip")
    case = clip_case()
    assert (h.name, h.version, h.available) == ("good", "0.0-test", True)
    assert _verdict(h, case).verdict == "pass"
    assert h.native_api("clip", case) == "GoodClip.clip"
    assert "np.array([1.0, 5.0, 9.0], dtype=np.float32)" in h.repro(case)


def test_a_leak_hits_the_per_worker_memory_limit_and_the_worker_goes_on(handles):
    h = handles("Leaky", memory_mb=1536, case_timeout=60)
    out = h.run(clip_case("leak"))
    assert (out.kind, out.exc_type) == (RAISED, "MemoryError"), out
    assert h.restarts == 0


def test_pipelined_cases_keep_order_through_a_crash_a_hang_and_a_repro(handles):
    seg, hang = handles("Segfault"), handles("Hang", case_timeout=1.0)
    labels = ["a", "crash", "b", "c", "crash", "d"]
    for label in labels:
        seg.submit(clip_case(label))
    got = [seg.collect() for _ in labels]
    assert [o.kind for o in got] == [RETURNED, CRASHED, RETURNED, RETURNED, CRASHED, RETURNED]
    assert seg.restarts == 4        # each crash after other cases is confirmed first in a fresh worker
    labels = ["a", "hang", "b"]
    for label in labels:
        hang.submit(clip_case(label, x=[1.0, float(len(label))]))
    first = hang.collect()
    assert "np.array" in hang.repro(clip_case("a"))      # a repro request while two cases are in flight
    assert [first.kind, hang.collect().kind, hang.collect().kind] == [RETURNED, TIMED_OUT, RETURNED]


def test_pipelined_stderr_stays_with_its_case(handles):
    h = handles("Noisy")
    for label in ("flood", "quiet", "chdir", "quiet"):
        h.submit(clip_case(label))
    outs = [h.collect() for _ in range(4)]
    assert "[ERROR] the reason is here" in outs[0].stderr
    assert outs[1].stderr == "" and outs[3].stderr == ""
    assert "changed the working directory" in outs[2].stderr


def test_big_cases_are_not_pipelined_into_a_deadlock(handles):
    h = handles("GoodClip")
    big = [clip_case(f"big{i}", x=np.arange(200_000, dtype=np.float32) + i) for i in range(3)]
    for c in big:
        h.submit(c)
    for c in big:
        out = h.collect()
        assert out.kind == RETURNED and out.arrays["out"].shape == (200_000,)
