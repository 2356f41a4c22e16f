"""The one scheduler (suites/scheduler.py): idle workers take cases from any adapter that has some left, so the
slowest adapter ends up with every core; results stay in corpus order and the same with any --jobs."""
from __future__ import annotations

import io
import json
import os
import signal
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


def _run(corpus, out, jobs, monkeypatch=None):
    captured = {}
    real = runner.RunSession.judged

    def spy(self, *a, **k):
        gen = real(self, *a, **k)
        yield from gen
        captured["lanes"] = self.scheduler.snapshot()
    if monkeypatch is not None:
        monkeypatch.setattr(runner.RunSession, "judged", spy)
    result = runner.run(["oracle", "bad_adapters:Slow"], corpus=corpus, out_dir=str(out), jobs=jobs)
    assert result.exit_code == 0, result.message
    return result, captured.get("lanes")


def test_the_slow_adapter_gets_every_worker_and_the_fast_one_keeps_one(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)    # 40 cases of 30 ms are worth a second worker here
    _, lanes = _run(corpus, tmp_path / "two", 2, monkeypatch)
    workers = {name: w for name, done, total, w, busy in lanes}
    assert workers == {"oracle": 1, "slow": 2}, f"actual workers per adapter {workers}; expected the slow one on both"
    assert {name: done for name, done, *_ in lanes} == {"oracle": 40, "slow": 40}


def test_a_fast_adapter_gets_no_second_worker_it_cannot_pay_for(corpus, tmp_path, monkeypatch):
    _, lanes = _run(corpus, tmp_path / "two", 2, monkeypatch)    # 40 x 30 ms: far less than a worker's start
    assert {name: w for name, _, _, w, _ in lanes} == {"oracle": 1, "slow": 1}


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
    sched = state_of(config)._session.scheduler
    with open(os.environ["LANES_OUT"], "w") as f:
        json.dump(sched.snapshot() if sched else None, f)
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


def test_slots_leave_ctrl_c_to_the_main_thread_and_workers_they_start_still_hear_it(corpus, tmp_path, monkeypatch):
    # A SIGINT the kernel hands to a slot thread (waiting on a hanging worker) is never seen: the run would not
    # stop.  So slots block it and SIGTERM; the main thread keeps both, and a worker a slot starts gets them back.
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)    # so the second worker is started from a slot
    masks = {}
    real_run = scheduler.Scheduler._run

    def spy(self, *a, **k):
        masks.setdefault("slot", signal.pthread_sigmask(signal.SIG_BLOCK, []))
        return real_run(self, *a, **k)
    monkeypatch.setattr(scheduler.Scheduler, "_run", spy)
    captured = {}
    real_judged = runner.RunSession.judged

    def lanes(self, *a, **k):
        yield from real_judged(self, *a, **k)
        captured["lanes"] = self.scheduler.snapshot()
    monkeypatch.setattr(runner.RunSession, "judged", lanes)
    result = runner.run(["bad_adapters:SignalMask"], corpus=corpus, out_dir=str(tmp_path / "out"), jobs=2)
    stop = {signal.SIGINT, signal.SIGTERM}
    assert stop <= masks["slot"], f"actual mask in a slot {masks['slot']}; expected SIGINT and SIGTERM blocked"
    assert not stop & signal.pthread_sigmask(signal.SIG_BLOCK, []), "the main thread must keep Ctrl-C"
    assert [w for _, _, _, w, _ in captured["lanes"]] == [2], "the test needs a worker started from a slot"
    verdicts = {r["verdict"] for r in _records(result.results_path)}
    assert result.exit_code == 0 and verdicts == {"pass"}, \
        f"actual verdicts {verdicts}, exit {result.exit_code}: {result.message}; a worker had SIGINT or SIGTERM blocked"
