"""The one scheduler (suites/scheduler.py, driven by the run loop suites/loop.py): idle workers take cases from any adapter that has some left, so the
slowest adapter ends up with every core; results stay in corpus order and the same with any --jobs."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys

import pytest

from bad_adapters import clip_case, write_corpus
from conform import runner
from conform.cli import Progress
from suites import scheduler

TESTS = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    monkeypatch.syspath_prepend(TESTS)


def _records(path):
    with open(path) as f:
        recs = [json.loads(line) for line in f]
    return [{k: v for k, v in r.items() if k not in ("elapsed_s", "run_id")} for r in recs if r["record"] == "case"]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_corpus(str(path), [clip_case(f"c{i}", x=(float(i), 5.0, 9.0)) for i in range(40)])
    return str(path)


def _spy_lanes(monkeypatch) -> dict:
    """Its "lanes": the scheduler's snapshot at the end of the next run."""
    captured = {}
    real = runner.RunSession.judged

    def spy(self, *a, **k):
        yield from real(self, *a, **k)
        captured["lanes"] = self.loop.snapshot()
    monkeypatch.setattr(runner.RunSession, "judged", spy)
    return captured


def _run(corpus, out, jobs, monkeypatch=None, slow="bad_adapters:Slow"):
    captured = _spy_lanes(monkeypatch) if monkeypatch is not None else {}
    result = runner.run(["oracle", slow], corpus=corpus, out_dir=str(out), jobs=jobs)
    assert result.exit_code == 0, result.message
    return result, captured.get("lanes")


def test_the_slow_adapter_gets_every_worker_and_the_fast_one_keeps_one(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)    # 40 cases of 30 ms are worth a second worker here
    _, lanes = _run(corpus, tmp_path / "two", 2, monkeypatch, slow="bad_adapters:Spin")
    workers = {name: w for name, done, total, w, busy in lanes}
    assert workers == {"oracle": 1, "spin": 2}, f"actual workers per adapter {workers}; expected the slow one on both"
    assert {name: done for name, done, *_ in lanes} == {"oracle": 40, "spin": 40}


def test_a_fast_adapter_gets_no_second_worker_it_cannot_pay_for(corpus, tmp_path, monkeypatch):
    _, lanes = _run(corpus, tmp_path / "two", 2, monkeypatch)    # 40 x 30 ms: far less than a worker's start
    assert {name: w for name, _, _, w, _ in lanes} == {"oracle": 1, "slow": 1}


def _alone(spec, corpus, out, jobs, monkeypatch):
    """(workers, most calls at once) of `spec` run alone: 40 cases of 30 ms, worth more workers here, and looked
    at every 5 ms while they run (the harness looks every RSS_POLL_S: a call shorter than that counts as computing)."""
    from adapters import channel
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)
    monkeypatch.setattr(channel, "RSS_POLL_S", 0.005)
    captured = _spy_lanes(monkeypatch)
    result = runner.run([spec], corpus=corpus, out_dir=str(out), jobs=jobs)
    assert result.exit_code == 0, result.message
    return captured["lanes"][0][3], result.slots["peak"]


def test_a_lane_whose_worker_sleeps_gets_more_workers_than_cores(corpus, tmp_path, monkeypatch):
    # 30 ms asleep per case (mindspore-graph's 3 s wait after a failing kernel, scaled down): one core fits many
    workers, peak = _alone("bad_adapters:Slow", corpus, tmp_path / "out", 1, monkeypatch)
    assert workers > 1 and peak > 1, f"actual {workers} workers, {peak} calls at once; expected more than --jobs 1"
    assert workers <= scheduler.OVERSUBSCRIBE and peak <= scheduler.OVERSUBSCRIBE, (workers, peak)


@pytest.mark.parametrize("spec", ["bad_adapters:Spin", "bad_adapters:SpinInChild", "bad_adapters:SpinClaimingLongCalls"])
def test_a_lane_whose_worker_computes_gets_no_more_calls_than_cores(spec, corpus, tmp_path, monkeypatch):
    # the harness looks at the worker's whole process tree, with its own clock: computing in a child the worker
    # waits for, or claiming long calls in the outcome (elapsed_s is the candidate's), does not make it look asleep
    workers, peak = _alone(spec, corpus, tmp_path / "out", 1, monkeypatch)
    assert (workers, peak) == (1, 1), f"actual {workers} workers, {peak} calls at once; expected one, as --jobs 1"


def test_a_lane_that_computes_keeps_to_the_cores_while_others_load_them(corpus, tmp_path, monkeypatch):
    # two spinning lanes at --jobs 1 on a machine already busy: waiting for a core is computing, so the run
    # never makes more calls at once than it has cores (CPU time over wall time would say half asleep)
    from adapters import channel
    monkeypatch.setattr(channel, "RSS_POLL_S", 0.005)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        result = runner.run(["bad_adapters:Spin", "bad_adapters:SpinInChild"], corpus=corpus,
                            out_dir=str(tmp_path / "out"), jobs=1)
    finally:
        hog.kill()
        hog.wait()
    assert result.exit_code == 0, result.message
    assert result.slots["peak"] == 1, f"actual {result.slots['peak']} calls at once; expected 1"


def test_a_lanes_workers_that_sleep_in_step_then_compute_get_no_more_than_a_core_at_once(corpus, tmp_path,
                                                                                        monkeypatch):
    # weighed by their calls' average, workers asleep in step shared one core's slot, and then computed in
    # step: several workers computing at once on one core, every quarter second
    import threading
    from adapters import proctree
    looks, done = [], threading.Event()

    def watch():                # every 10 ms: how many of the run's processes compute at once
        while not done.wait(0.01):
            looks.append(sum(proctree.runnable([p]) for p in proctree.descendants(os.getpid())))
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        workers, peak = _alone("bad_adapters:InStep", corpus, tmp_path / "out", 1, monkeypatch)
    finally:
        done.set()
        watcher.join()
    assert workers > 1, "the attack needs a lane grown past one worker while it slept"
    computing = [n for n in looks[len(looks) // 2:] if n]       # the in-step half
    together = sum(n > 1 for n in computing)
    assert together <= 0.2 * len(computing), \
        f"actual: {together} of {len(computing)} looks found several workers computing at once at --jobs 1 " \
        f"(up to {max(computing)}); expected one at a time"


def test_results_are_identical_with_jobs_1_and_jobs_4_case_by_case_and_in_order(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)
    one, _ = _run(corpus, tmp_path / "one", 1)
    four, _ = _run(corpus, tmp_path / "four", 4)
    a, b = _records(one.results_path), _records(four.results_path)
    assert [(r["case_id"], r["adapter"]) for r in a] == [(r["case_id"], r["adapter"]) for r in b]
    assert a == b


def test_progress_in_a_log_is_a_line_every_few_seconds_naming_each_adapter():
    now = [0.0]
    out = io.StringIO()
    bar = Progress(out, clock=lambda: now[0])
    bar.per_adapter = lambda: [("oracle", 40, 40, 1, 0.4), ("pypto", 10, 40, 2, 20.0)]
    for t in range(0, 25):
        now[0] = float(t)
        bar(50 + t, 80, {"pass": 50 + t})
    now[0] = 30.0
    bar(80, 80, {"pass": 78, "value-mismatch": 2})
    bar(80, 80, {"pass": 78, "value-mismatch": 2})      # the end is written once
    lines = out.getvalue().splitlines()
    assert len(lines) == 4, lines       # t = 0, 10, 20 and the end
    assert "oracle 40/40" in lines[0] and "pypto 10/40 x2" in lines[0] and "left" in lines[0]
    # the slowest adapter decides the time left: 30 cases x 2 s per case / 2 workers = 30 s
    assert "30s left" in lines[0], lines[0]
    assert lines[-1].startswith("conform: 80/80 results (100%), 2 failing"), lines[-1]


def test_progress_on_a_terminal_redraws_one_line():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    now = [0.0]
    out = Tty()
    bar = Progress(out, clock=lambda: now[0])
    for t in range(5):
        now[0] = t * 0.5
        bar(t, 4, {"pass": t})
    bar.finish()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.count("\r") == 5 and "4/4 results (100%)" in text


LANES_PLUGIN = '''
import json, os
from suites import scheduler
from suites.plugin import state_of

scheduler.GROW_WORTH_S = 0.05


def pytest_unconfigure(config):
    loop = state_of(config)._session.loop
    with open(os.environ["LANES_OUT"], "w") as f:
        json.dump(loop.snapshot() if loop else None, f)
'''


def test_the_pytest_plugin_runs_its_corpus_items_through_the_same_scheduler(corpus, tmp_path):
    import subprocess
    (tmp_path / "lanes_plugin.py").write_text(LANES_PLUGIN)
    out = tmp_path / "lanes.json"
    root = os.path.dirname(TESTS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, TESTS, str(tmp_path)]), "LANES_OUT": str(out)}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "lanes_plugin", "-q", "suites/test_corpus.py",
                        "--adapter", "oracle", "--adapter", "bad_adapters:Slow", "--corpus", corpus, "-p", "no:xdist"],
                       cwd=root, env=env, text=True, capture_output=True, timeout=300)
    assert "80 passed" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    lanes = json.loads(out.read_text())
    assert lanes is not None, "the corpus items were checked one by one, not by the scheduler"
    assert {name: (done, w) for name, done, _, w, _ in lanes} == {"oracle": (40, 1), "slow": (40, 2)}, lanes


HANDED_PLUGIN = '''
import json, os, threading
import pytest
from suites import loop

seen = {"verdicts": 0, "beside": []}
real = loop.Loop.judged


def judged(self, *a, **k):
    for case, verdicts, failure in real(self, *a, **k):
        seen["verdicts"] += len(verdicts)
        yield case, verdicts, failure
loop.Loop.judged = judged


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if "corpus_item" not in getattr(getattr(item, "callspec", None), "params", {}):
        if any(t.name == "conform-ahead" and t.is_alive() for t in threading.enumerate()):
            seen["beside"].append(item.nodeid)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    # the other tests spread among the corpus items, so a worker's queue holds corpus items after them
    corpus = [it for it in items if "corpus_item" in getattr(getattr(it, "callspec", None), "params", {})]
    other = [it for it in items if it not in corpus]
    items[:] = [it for i, c in enumerate(corpus) for it in ([c] + ([other.pop()] if i % 7 == 3 and other else []))] + other


def pytest_unconfigure(config):
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    with open(os.path.join(os.environ["HANDED_OUT"], worker + ".json"), "w") as f:
        json.dump(seen, f)
'''

OTHER_TESTS = '''
import time
import pytest


@pytest.mark.parametrize("i", range(6))
def test_other(i):
    time.sleep(0.01)
'''


def test_under_xdist_the_corpus_items_a_worker_is_handed_run_through_the_scheduler(corpus, tmp_path):
    # each xdist worker runs the corpus items queued in it together (so sleeping workers overlap), and never
    # beside another test: a look-ahead ends at the first other test in its queue (here among the corpus items)
    import subprocess
    (tmp_path / "handed_plugin.py").write_text(HANDED_PLUGIN)
    for name in ("test_before.py", "test_after.py"):
        (tmp_path / name).write_text(OTHER_TESTS)
    out = tmp_path / "seen"
    out.mkdir()
    root = os.path.dirname(TESTS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, TESTS, str(tmp_path)]), "HANDED_OUT": str(out)}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "handed_plugin", "-q", "-n", "2", "-p", "no:cacheprovider",
                        "-c", os.path.join(root, "pyproject.toml"), "--rootdir", root,
                        str(tmp_path / "test_before.py"), "suites/test_corpus.py", str(tmp_path / "test_after.py"),
                        "--adapter", "oracle", "--adapter", "bad_adapters:Slow", "--corpus", corpus],
                       cwd=root, env=env, text=True, capture_output=True, timeout=300)
    assert "92 passed" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    seen = [json.loads(p.read_text()) for p in out.glob("gw*.json")]
    assert len(seen) == 2, seen
    # a lone item at the end of a worker's queue may still be checked by itself
    assert sum(s["verdicts"] for s in seen) >= 76, f"actual {seen}; expected nearly all 80 items through the scheduler"
    assert not [n for s in seen for n in s["beside"]], f"tests that ran beside a look-ahead: {seen}"


def test_slots_leave_ctrl_c_to_the_main_thread_and_workers_they_start_still_hear_it(corpus, tmp_path, monkeypatch):
    # A SIGINT the kernel hands to a slot thread (waiting on a hanging worker) is never seen: the run would not
    # stop.  So slots block it and SIGTERM; the main thread keeps both, and a worker a slot starts gets them back.
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)    # so the second worker is started from a slot
    masks = {}
    from suites.loop import Loop
    real_run = Loop._run

    def spy(self, *a, **k):
        masks.setdefault("slot", signal.pthread_sigmask(signal.SIG_BLOCK, []))
        return real_run(self, *a, **k)
    monkeypatch.setattr(Loop, "_run", spy)
    captured = _spy_lanes(monkeypatch)
    result = runner.run(["bad_adapters:SignalMask"], corpus=corpus, out_dir=str(tmp_path / "out"), jobs=2)
    stop = {signal.SIGINT, signal.SIGTERM}
    assert stop <= masks["slot"], f"actual mask in a slot {masks['slot']}; expected SIGINT and SIGTERM blocked"
    assert not stop & signal.pthread_sigmask(signal.SIG_BLOCK, []), "the main thread must keep Ctrl-C"
    assert [w for _, _, _, w, _ in captured["lanes"]] == [2], "the test needs a worker started from a slot"
    verdicts = {r["verdict"] for r in _records(result.results_path)}
    assert result.exit_code == 0 and verdicts == {"pass"}, \
        f"actual verdicts {verdicts}, exit {result.exit_code}: {result.message}; a worker had SIGINT or SIGTERM blocked"


# ---- start-up: the adapters' first workers start `jobs` at a time ------------------------------------

def test_the_first_workers_start_at_once_not_one_after_the_other(corpus, tmp_path, monkeypatch):
    # Each of the two candidates starts only if the other is starting at the same time (bad_adapters.py):
    # one after the other, the first would fail to start and the run would stop (exit 5).
    from adapters.sandbox import WRITABLE_ENV
    from bad_adapters import RENDEZVOUS_ENV
    meet = tmp_path / "meet"
    meet.mkdir()
    monkeypatch.setenv(RENDEZVOUS_ENV, str(meet))
    monkeypatch.setenv(WRITABLE_ENV, str(meet))
    result = runner.run(["bad_adapters:RendezvousA", "bad_adapters:RendezvousB"], corpus=corpus,
                        out_dir=str(tmp_path / "out"), jobs=2)
    assert result.exit_code == 0, f"actual: exit {result.exit_code}: {result.message}; expected both started at once"
    assert {r["adapter"] for r in _records(result.results_path)} == {"rendezvous-a", "rendezvous-b"}


def _children() -> set:
    """This process's live children (not zombies)."""
    me, out = str(os.getpid()), set()
    for pid in os.listdir("/proc"):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if pid.isdigit() and fields[1] == me and fields[0] != "Z":
            out.add(int(pid))
    return out


def test_a_refused_adapter_among_workers_started_at_once_leaves_no_worker_running(corpus, tmp_path, monkeypatch):
    # The refusal is decided in the adapters' order, while the workers after it have already started: every
    # one of them is closed before the error leaves the session (counted there, while the error's traceback
    # still holds them: a worker only the garbage collector would close counts as left running).
    from contract.vocabulary import EXIT_ADAPTER
    before, left = _children(), {}
    real_open = runner.RunSession.open

    def spy(self):
        try:
            return real_open(self)
        except BaseException:
            left["workers"] = _children() - before
            raise
    monkeypatch.setattr(runner.RunSession, "open", spy)
    result = runner.run(["oracle", "bad_adapters:Unavailable", "bad_adapters:GoodClip", "bad_adapters:Slow"],
                        corpus=corpus, out_dir=str(tmp_path / "out"), jobs=2)
    assert result.exit_code == EXIT_ADAPTER and "'bad_adapters:Unavailable' is not available" in result.message, \
        f"actual: exit {result.exit_code}: {result.message}"
    assert left["workers"] == set(), f"actual: workers {sorted(left['workers'])} still running after the refusal"


def test_the_thread_variables_reach_every_worker_and_the_users_own_wins(monkeypatch):
    # One core per worker (the scheduler's slots): each framework's pools capped at one thread, unless the
    # user has set the variable.
    from adapters import pool, threads
    for name in threads.variables(1):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    h = pool.WorkerHandle("misbehaving_adapters:EnvReader")
    try:
        out = h.run(clip_case("read-env"))
    finally:
        h.close()
    seen = dict(line.split("=", 1) for line in out.stderr.split("threads: ")[1].split("\n")[0].split(";"))
    assert seen == {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "3", "OPENBLAS_NUM_THREADS": "1",
                    "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1",
                    "TORCHINDUCTOR_COMPILE_THREADS": "1",
                    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}, f"actual: {seen}"


@pytest.mark.parametrize("value, expected", [("default", {"CONFORM_WORKER_THREADS": "default"}),
                                             ("4", {"OMP_NUM_THREADS": "4", "XLA_FLAGS": None})])
def test_conform_worker_threads_sets_the_count_or_leaves_the_frameworks_defaults(value, expected):
    import subprocess
    code = ("from adapters import threads; v = threads.apply({}); "
            "print(sorted(v.items()))")
    env = {**os.environ, "CONFORM_WORKER_THREADS": value}
    r = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(TESTS), env=env, text=True,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = dict(eval(r.stdout))
    for k, v in expected.items():
        assert got.get(k) == v, f"actual {got}; expected {k}={v}"
    if value == "default":
        assert got == expected, f"actual {got}; expected no thread variable with 'default'"


def test_a_bad_conform_worker_threads_is_one_line_and_exit_2():
    import subprocess
    r = subprocess.run([sys.executable, "-m", "conform.cli", "adapters"], cwd=os.path.dirname(TESTS),
                       env={**os.environ, "CONFORM_WORKER_THREADS": "many"}, text=True, capture_output=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr == "conform: error: CONFORM_WORKER_THREADS must be a whole number > 0 or 'default', got 'many'\n"


def test_the_run_ends_with_a_line_saying_where_its_wall_time_went(corpus, tmp_path):
    # start-up, the slots' shares (they add up to the whole), and the wall time against the adapters' own time
    import re
    import subprocess
    r = subprocess.run([sys.executable, "-m", "conform.cli", "run", "--adapter", "oracle", "--adapter",
                        "bad_adapters:Slow", "--corpus", corpus, "--out", str(tmp_path / "out"), "--jobs", "2"],
                       cwd=os.path.dirname(TESTS), env={**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(TESTS), TESTS])},
                       text=True, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    line = [ln for ln in r.stderr.splitlines() if ln.startswith("conform: time: ")]
    assert len(line) == 1, r.stderr
    m = re.fullmatch(r"conform: time: \d+s in all: [\d.]+ s to start the adapters, then 2 slot\(s\)"
                     r"(?: \(up to \d+ calls at once, while workers waited\))?: (\d+)% running "
                     r"cases, (\d+)% starting workers, (\d+)% waiting for a case; adapters' own time (\d+) s, "
                     r"wall / \(that / 2\) = ([\d.]+)", line[0])
    assert m, f"actual: {line[0]!r}"
    assert 98 <= sum(int(m.group(i)) for i in (1, 2, 3)) <= 102, line[0]
    assert float(m.group(5)) > 0


def test_the_time_line_counts_the_slots_the_run_had_not_the_jobs_asked_for(corpus, tmp_path):
    # --in-process runs one call at a time whatever --jobs says: its ratio is over one slot
    from conform.cli import _time_line
    result = runner.run(["oracle"], corpus=corpus, out_dir=str(tmp_path / "out"), jobs=2, in_process=True)
    assert result.exit_code == 0 and result.jobs == 1, (result.exit_code, result.jobs)
    assert "then 1 slot(s):" in _time_line(result), _time_line(result)
