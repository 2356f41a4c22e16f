"""The pypto adapter against real pypto 0.2.0 (its tensor-graph interpreter on the CPU), what is particular to it
(the documented examples, availability and identity: tests/test_adapter_contract.py): its own errors, hangs and
the hang limit, the kept child, its files, version refusal, the calculator, 0-d tensors, kernel-source repros.

Skipped, with the reason, only where pypto or its calculator cannot be had.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED, RETURNED, TIMED_OUT
from adapters.pypto_adapter import PyptoAdapter
from adapters.pypto_runtime import calculator, patches
from adapter_helpers import adapter_fixture, assert_same, documented, run_ok
from contract.case import Case
from suites.strategies import all_doc_examples as doc_examples

ROOT = Path(__file__).resolve().parents[1]
F32, I32 = np.float32, np.int32
AVAILABLE, WHY = PyptoAdapter().available()
needs_pypto = pytest.mark.skipif(not AVAILABLE, reason=f"pypto adapter unavailable: {WHY}")


adapter = adapter_fixture("pypto")


# ---- scatter -----------------------------------------------------------------------------------


@needs_pypto
def test_scatter_out_of_place_leaves_self_unchanged(adapter):
    case = Case("scatter", {"input": np.ones((2, 4), F32), "index": np.array([[2], [3]], np.int64)},
                {"dim": 1, "value": 1.23, "inplace": False})
    arrays = run_ok(adapter, case)
    assert_same(arrays["out"], np.array([[1, 1, 1.23, 1], [1, 1, 1, 1.23]], F32), "out", adapter, case)
    assert_same(arrays["input"], case.inputs["input"], "self after scatter", adapter, case)


# ---- unsupported forms go to pypto as written; its own answer is reported ---------------------

@needs_pypto
def test_slice_step_is_rejected_by_pypto_itself(adapter):
    case = Case("setitem", {"target": np.zeros((4, 4), F32), "value": np.full((1, 4), 10, F32)},
                {"key": {"tuple": [{"slice": [1, 2, 2]}, {"slice": [None, None, None]}]}}, clauses=("SI-STEP",))
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "ValueError"), (
        f"actual: {out.kind} {out.exc_type}: {out.message[:200]}\nexpected: pypto's own ValueError "
        f"(RenderedParserError unwrapped)\ncall: {out.native_api}\nrepro:\n{adapter.repro(case)}")
    assert "target[1:2:2, :] = value" in adapter.repro(case)
    assert "step" in out.message and "step" in out.stderr, out.stderr[-500:]


@needs_pypto
def test_a_hanging_call_times_out_and_the_adapter_lives_on():
    # a[b] (SI-TINDEX) makes pypto 0.2.0 loop forever; the forked call is killed, the worker is not.
    a = PyptoAdapter()
    a.setup()
    try:
        ex, want = documented("setitem")[1]
        assert_same(run_ok(a, ex)["target"], want["target"], "target", a, ex)
        hang = Case("setitem", {"target": np.zeros((4, 4), F32), "b": np.array([2], I32),
                                "value": np.full((1, 4), 10, F32)}, {"key": {"tensor": "b"}})
        out = a.run(hang)
        assert out.kind == TIMED_OUT and out.seconds <= 10, f"actual: {out.kind} {out.message}\nexpected: timed_out"
        assert_same(run_ok(a, ex)["target"], want["target"], "target after a timeout", a, ex)
    finally:
        a.close()


def test_the_hang_limit_is_the_measured_floor_and_follows_the_typical_call():
    from adapters.pypto_runtime.isolate import FLOOR_S, HangLimit
    limit = HangLimit()
    for _ in range(50):
        limit.record(0.037)                         # the corpus's median call on the 2-core machine
    assert limit.seconds() == FLOOR_S == 1.0
    for _ in range(50):
        limit.record(0.2)                           # calls that do five times the work
    assert limit.seconds() == 5.0


def _work(request):
    """A kernel call's stand-in: spins for request["cpu"] s of its own CPU time (None: forever), or sleeps."""
    import time as t
    if request.get("sleep"):
        t.sleep(1e6)
    start = t.process_time()
    while request["cpu"] is None or t.process_time() - start < request["cpu"]:
        pass
    return {"done": request["cpu"]}, True


@pytest.fixture
def loaded_machine():
    """Every core busy, and more: os.cpu_count() + 1 spinning processes, killed after the test (at most 60 s)."""
    spin = [sys.executable, "-c", "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"]
    procs = [subprocess.Popen(spin) for _ in range((os.cpu_count() or 1) + 1)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_load_alone_never_turns_a_slow_pass_into_a_timeout_and_a_hang_still_times_out(loaded_machine):
    # a slow pass on a loaded machine was "timed out after 1.30331 s": the limit was 25x the median wall
    # time of the last calls (floor 1 s), and a sudden rise in load is not in that median yet
    import time
    from adapters.pypto_runtime.isolate import FLOOR_S, KeptChild
    child = KeptChild(_work)
    try:
        for _ in range(3):      # each uses 0.8 s of CPU, under the 1 s limit, and takes longer than 1 s of wall
            t0 = time.monotonic()
            r = child.call({"cpu": 0.8}, FLOOR_S, wall_limit=20.0)
            took = time.monotonic() - t0
            assert not r.timed_out and r.payload == {"done": 0.8}, \
                f"actual: a call of 0.8 s CPU timed out after {took:.2f} s under load; expected its answer"
            assert 0.75 <= r.cpu_s <= 1.5, r.cpu_s
        t0 = time.monotonic()
        r = child.call({"cpu": None}, FLOOR_S, wall_limit=20.0)       # spins forever: stopped at 1 s of CPU
        assert r.timed_out and FLOOR_S <= r.cpu_s < 1.5 and time.monotonic() - t0 < 20.0, r
        t0 = time.monotonic()
        r = child.call({"sleep": True}, FLOOR_S, wall_limit=20.0)     # waits on nothing: 1 s without progress
        assert r.timed_out and r.cpu_s < 0.5 and time.monotonic() - t0 < 5.0, r
    finally:
        child.close()


@needs_pypto
def test_the_slowest_passing_corpus_case_does_not_time_out_under_the_floor(adapter):
    # the slowest call that returned in a full corpus run (0.21 s): a bool key, measured in benchmarks/README.md
    from adapters.pypto_runtime.isolate import FLOOR_S
    for _ in range(50):
        adapter._hang_limit.record(0.01)            # a history of fast calls: the limit is the floor itself
    assert adapter._hang_limit.seconds() == FLOOR_S
    from suites.corpus import iter_corpus
    slow = next(c for c in iter_corpus() if c.id == "2733429cffdc5e8d")     # a[True, True, False, False] = b
    out = adapter.run(slow)
    assert out.kind != TIMED_OUT, f"actual: a slow pass timed out after {out.seconds} s; expected an answer"


@needs_pypto
def test_a_kept_child_answers_exactly_as_a_fresh_child_per_call():
    # every 9th pypto-mapped corpus case, in corpus order (raises, hangs and returns interleave), both ways;
    # benchmarks/README.md has the same comparison over the whole corpus (3143 cases before the aliasing cases, identical)
    from suites.corpus import iter_corpus
    sample = [c for c in iter_corpus() if c.op in PyptoAdapter.ops][::9]
    answers = {}
    for reuse in (False, True):
        a = PyptoAdapter(reuse_child=reuse)
        a.setup()
        try:
            answers[reuse] = [_answer(a.run(c)) for c in sample]
            forks = a._child.forks
        finally:
            a.close()
    differ = [(c.id, c.label, x, y) for c, x, y in zip(sample, answers[False], answers[True]) if x != y]
    assert not differ, f"actual: {len(differ)} of {len(sample)} cases answered otherwise, e.g. {differ[:3]}"
    assert forks < len(sample), "the kept child was never kept"


def _answer(out):
    arrays = {k: (str(v.dtype), v.shape, np.asarray(v).tobytes()) for k, v in out.arrays.items()}
    return out.kind, out.exc_type, tuple(out.exc_mro), arrays


@needs_pypto
def test_an_interpreter_error_does_not_poison_later_calls(adapter):
    # pypto leaves its controller inside the failed function after this error; each call is a fresh fork.
    bad = Case("scatter", {"input": np.zeros((2, 4), F32), "index": np.array([[7], [3]], np.int64)},
               {"dim": 1, "value": 1.23, "inplace": False}, clauses=("SC-RANGE",))
    out = adapter.run(bad)
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError"), f"actual: {out.kind} {out.exc_type} {out.message}"
    assert "out of bounds" in out.stderr
    case, want = documented("clip")[0]
    assert_same(run_ok(adapter, case)["out"], want["out"], "out after an error", adapter, case)


@needs_pypto
def test_ops_without_a_pypto_mapping_are_not_applicable(adapter):
    case = next(c for c, _ in doc_examples() if c.op == "scatter_nd_add")
    out = adapter.run(case)
    assert out.kind == NOT_APPLICABLE and "no mapping" in out.message, f"actual: {out.kind} {out.message}"
    assert "set_" not in adapter.ops and adapter.run(next(c for c, _ in doc_examples() if c.op == "set_")).kind \
        == NOT_APPLICABLE


# ---- files: a private temp folder, removed at exit; nothing in the tree or the home folder ----------

@needs_pypto
def test_every_file_lands_in_the_temp_folder_and_is_removed_at_exit(tmp_path):
    # Run from the repository root, where pypto's default ./output would land, with an empty HOME
    # (its defaults: ~/ascend/log, ~/.pypto).  Other engineers edit the tree meanwhile, so the tree
    # check is on new top-level entries (where pypto writes), not on the whole git status.
    home = tmp_path / "home"
    home.mkdir()
    script = textwrap.dedent("""
        from adapters.pypto_adapter import PyptoAdapter
        from suites.strategies import all_doc_examples as doc_examples
        a = PyptoAdapter(); a.setup()
        case = next(c for c, _ in doc_examples() if c.op == "clip")
        print(a.workspace, a.run(case).kind)
    """)
    env = dict(os.environ, HOME=str(home), PYTHONPATH=str(ROOT),
               TC_CACHE_DIR=str(calculator.cache_dir().parent))     # the built calculator, not a rebuild
    env.pop("XDG_CACHE_HOME", None)
    before = set(os.listdir(ROOT))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    workspace, kind = done.stdout.split()
    assert kind == RETURNED, done.stdout
    assert not Path(workspace).exists(), f"actual: {workspace} still exists after exit\nexpected: removed"
    assert list(home.iterdir()) == [], (
        f"actual: HOME holds {sorted(str(p.relative_to(home)) for p in home.rglob('*'))}\nexpected: empty")
    new = set(os.listdir(ROOT)) - before
    assert not new, f"actual: new in the repository root: {sorted(new)}\nexpected: nothing"


# ---- refusing what was not verified -------------------------------------------------------------

def test_another_pypto_version_is_refused_with_the_reason():
    ok, why = PyptoAdapter(pypto_version="0.3.0").available()
    assert not ok and "0.3.0" in why and "0.2.0" in why, f"actual: {ok} {why!r}\nexpected: refused, naming both"
    with pytest.raises(patches.UnverifiedVersion, match="0.3.0"):
        patches.apply("0.3.0")
    with pytest.raises(RuntimeError, match="unavailable"):
        PyptoAdapter(pypto_version="0.3.0").setup()
    assert patches.version_problem("0.2.0") == ""


def test_missing_build_tools_make_the_calculator_unavailable(tmp_path, monkeypatch):
    if importlib_missing("pypto") or importlib_missing("torch"):
        pytest.skip("pypto or torch is not installed: the calculator question does not arise")
    monkeypatch.setenv("TC_CACHE_DIR", str(tmp_path))           # an empty cache: not built
    monkeypatch.setenv("PATH", str(tmp_path))                   # and no cmake or g++ to build it
    reason = calculator.why_unbuildable()
    assert "cmake" in reason and "g++" in reason, f"actual: {reason!r}\nexpected: names cmake and g++"
    with pytest.raises(calculator.CalculatorError, match="cmake"):
        calculator.build()


def importlib_missing(name):
    import importlib.util
    return importlib.util.find_spec(name) is None


@needs_pypto
def test_a_0d_tensor_is_not_observable_on_the_cpu_and_says_so(adapter):
    # pypto's verify plumbing (set_verify_golden_data, _pto_to_tensor_data) cannot carry a 0-d tensor,
    # so the interpreter never sees the kernel: that is no verdict on pypto's setitem.
    case = Case("setitem", {"target": np.zeros((), F32), "value": np.ones((), F32)}, {"key": "..."})
    out = adapter.run(case)
    assert out.kind == NOT_APPLICABLE and "not observable on the CPU interpreter" in out.message, (
        f"actual: {out.kind} {out.exc_type} {out.message}\nexpected: not_applicable naming the interpreter")


@needs_pypto
@pytest.mark.parametrize("case", [c for c, _ in doc_examples() if c.op in ("setitem", "clip", "scatter")],
                         ids=lambda c: c.label.split(" ")[0])
def test_repro_is_the_kernel_source_and_valid_python(adapter, case):
    text = adapter.repro(case)
    compile(text, f"<repro {case.id}>", "exec")
    assert "@pypto.frontend.jit(**CPU_INTERPRETER)" in text and adapter.native_api(case.op, case) in text, text


def test_an_aliased_case_is_a_declared_not_applicable(adapter):
    """pypto's kernel arguments are buffers of their own: an aliased case is refused, and the refusal is one
    of the adapter's declared exclusions (never a silent run on copies)."""
    from adapter_helpers import shift_alias_case
    from oracle.expect import expect
    from suites.known_divergences import KnownDivergences as Expectations
    from suites.judge import judge
    case = shift_alias_case(np.int32)
    out = adapter.run(case)
    assert out.kind == NOT_APPLICABLE, out
    v = judge(case, expect(case), out, adapter)
    declared = Expectations.from_lines(adapter.excludes, "pypto excludes")
    assert declared.match(v.key(), out.message) is not None, (v.key(), out.message)
