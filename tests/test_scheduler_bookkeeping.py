"""The scheduler is bookkeeping (suites/scheduler.py, as pytest-xdist's scheduler/load.py): it imports nothing
that starts a process or a thread, and is driven by plain method calls, with plain objects as its workers."""
from __future__ import annotations

import ast
import os
import sys

import pytest

from suites import scheduler
from suites.scheduler import Entry, Scheduler

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what starts a process or a thread, waits on one, or does I/O on a worker
FORBIDDEN = {"threading", "_thread", "subprocess", "multiprocessing", "concurrent", "asyncio", "signal", "select",
             "socket", "os", "time", "adapters"}


def _imports(path) -> set:
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add("." if node.level else node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            out.add("__import__")
    return out


def test_the_scheduler_module_imports_nothing_that_starts_a_process_or_a_thread():
    found = _imports(os.path.join(ROOT, "suites", "scheduler.py"))
    assert not found & (FORBIDDEN | {".", "__import__"}), f"actual imports {sorted(found)}"


def test_the_import_check_sees_a_thread_import(tmp_path):
    # the check above must fail where the module imports threading, however it is spelled
    for line in ("import threading", "from concurrent.futures import ThreadPoolExecutor", "from . import loop",
                 "import adapters.pool"):
        p = tmp_path / "m.py"
        p.write_text(f"def f():\n    {line}\n")
        assert _imports(str(p)) & (FORBIDDEN | {"."}), line


def test_importing_the_scheduler_alone_loads_no_thread_or_process_module():
    import subprocess
    code = ("import sys; before = set(sys.modules); import suites.scheduler; "
            "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
            "{'threading', 'subprocess', 'multiprocessing', 'concurrent', 'adapters', 'select'}))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def _entries(sched, n, lanes=None):
    out = []
    for i in range(n):
        e = Entry(i, f"case{i}", list(lanes or sched.order))
        sched.enqueue(e)
        out.append(e)
    return out


def test_an_idle_worker_takes_the_earliest_case_of_any_lane():
    s = Scheduler([("a", "a", "wa"), ("b", "b", "wb")], jobs=2, most=2)
    entries = _entries(s, 3)
    t1, t2 = s.next_task(), s.next_task()
    assert (t1.lane.name, t1.entry.index, t1.worker) == ("a", 0, "wa")
    assert (t2.lane.name, t2.entry.index, t2.worker) == ("b", 0, "wb")
    assert s.next_task() is None, "both workers are busy: nothing to hand out"
    s.finished(t2, "verdict-b0", cost=0.01, share=1.0, wall_s=0.01)
    t3 = s.next_task()
    assert (t3.lane.name, t3.entry.index, t3.worker) == ("b", 1, "wb")
    s.finished(t1, "verdict-a0", cost=0.01, wall_s=0.01)
    assert entries[0].complete and entries[0].verdicts == {"a": "verdict-a0", "b": "verdict-b0"}
    assert s.snapshot()[0][:4] == ("a", 1, 1, 1) and s.peak == 2


def test_a_slow_lane_is_given_another_worker_and_the_worker_is_added_and_removed(monkeypatch):
    monkeypatch.setattr(scheduler, "GROW_WORTH_S", 0.05)
    s = Scheduler([("slow", "slow", "w1")], jobs=2, most=2, total=40)
    _entries(s, 40)
    for _ in range(scheduler.WARM_UP + scheduler.GROW_AFTER):     # its time per case is trusted after these
        t = s.next_task()
        assert t.worker == "w1"
        s.finished(t, "v", cost=0.5, wall_s=0.5)
    t = s.next_task()
    assert t.worker == "w1"
    grow = s.next_task()
    assert grow is not None and grow.worker is None and grow.lane.starting == 1, "a worker to start for the lane"
    s.started(grow, "w2")
    assert grow.worker == "w2" and s.lanes["slow"].workers == 2
    s.finished(grow, "v", cost=0.5, wall_s=0.5)
    s.remove_worker("slow", "w2")
    assert s.lanes["slow"].members == ["w1"] and "w2" not in s.lanes["slow"].idle


def test_a_worker_kept_from_an_earlier_run_is_taken_before_any_measure():
    s = Scheduler([("a", "spec-a", "w1")], jobs=2, most=2, kept={"spec-a": 1})
    _entries(s, 2)
    assert s.next_task().worker == "w1"
    t = s.next_task()
    assert t is not None and t.worker is None and s.kept["spec-a"] == 0
    assert s.next_task() is None, "no more kept workers and no measure yet: no third worker"


def test_a_lane_that_computes_fills_the_cores_and_a_sleeping_one_may_oversubscribe():
    s = Scheduler([("a", "a", "w1")], jobs=1, most=4)
    s.add_worker("a", "w2")
    _entries(s, 4)
    first = s.next_task()
    assert s.next_task() is None, "a lane weighed 1 (unmeasured) fills the one core"
    s.finished(first, "v", cost=1.0, share=0.0, wall_s=1.0)      # it slept through its call
    assert s.lanes["a"].weight < 1
    assert s.next_task() is not None and s.next_task() is not None, "two sleeping calls share the core"


def test_workers_computing_in_step_weigh_their_lane_and_it_fades():
    s = Scheduler([("a", "a", "w1")], jobs=1, most=4)
    ln = s.lanes["a"]
    ln.load = 0.1
    s.computing_at_once(ln, running=2, computing=2)
    assert ln.weight == 1.0
    for _ in range(100):
        s.computing_at_once(ln, running=2, computing=0)
    assert ln.weight < 0.5


@pytest.mark.parametrize("state", [(0.3, 0.3, 1.0)])
def test_a_lanes_measured_load_carries_to_the_next_run(state):
    s = Scheduler([("a", "a", "w1")], jobs=1, most=4, loads={"a": state, "gone": state})
    assert s.lanes["a"].load == 0.3 and s.loads() == {"a": state}
