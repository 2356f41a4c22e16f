"""The run loop: the slots (threads) and the worker handles, driving the scheduler (pytest-xdist's dsession.py).

`Loop.judged(cases, skip)` streams a window of cases into the scheduler (suites/scheduler.py), runs `most`
slots that each ask it for the next task, start a worker where it says so, run the case on the worker while
the session's oracle answers, have the session judge the outcome and then ask the same worker for the repro
(suites/describe.py), and book the result back.  Verdicts are yielded in corpus order.  Every scheduler call
is made under the loop's one lock; the scheduler itself has none, and no thread.
"""
from __future__ import annotations

import signal
import threading
import time
from collections import deque
from typing import Callable, Iterable, Iterator

from .describe import describe
from .scheduler import OVERSUBSCRIBE, Entry, Scheduler

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}    # the main thread's alone: it stops the run
CPU_WINDOW_S = 0.05         # how often the harness counts a lane's workers computing at once


class Loop:
    """Runs `session`'s cases through `handles` (one open handle per adapter), `jobs` at a time over all
    adapters.  `open_more(target)` opens another worker of an adapter (closed by `close()` unless released);
    `total`, `kept` and `loads` are the scheduler's (suites/scheduler.py)."""

    def __init__(self, session, handles: list, jobs: int, open_more: Callable, total: int = 0,
                 kept: dict = None, loads: dict = None):
        self.session, self.open_more = session, open_more
        jobs = max(1, int(jobs))
        # calls at once, at most: more than jobs only where each call has a worker process of its own
        isolated = all(getattr(h, "isolated", False) and hasattr(h, "tree_polls") for h in handles)
        self.scheduler = Scheduler([(h.name, h.target, h) for h in handles], jobs,
                                   jobs * OVERSUBSCRIBE if isolated else jobs, total=total, kept=kept, loads=loads)
        self.jobs, self.window = self.scheduler.jobs, self.scheduler.window
        self._cv = threading.Condition()
        self._stop = self._cancelled = False
        self._error = None
        self._started = []          # handles this loop opened (closed at the end unless released)
        self.slot_s = {"case": 0.0, "start": 0.0, "wait": 0.0}   # the slots' time, summed: see usage()

    # ---- what the progress line and the end show ------------------------------------------------
    def snapshot(self) -> list:
        """(name, done, total, workers, busy seconds) per adapter."""
        with self._cv:
            return self.scheduler.snapshot()

    def usage(self) -> dict:
        """Seconds the slots spent running a case (the call and its judging), starting a worker (one more for
        a lane, or again after one died), and waiting for a task (nothing in the window a free slot may
        take), summed over the slots; and `busy`, the adapters' own time (the lanes' busy_s, the figure the
        wall time is measured against: benchmarks/README.md); and `peak`, the most calls that ran at once."""
        with self._cv:
            again = sum(getattr(h, "restart_s", 0.0) for ln in self.scheduler.lanes.values() for h in ln.members)
            out = dict(self.slot_s)
            out["case"] -= again
            out["start"] += again
            out["busy"] = self.scheduler.busy_s()
            out["peak"] = self.scheduler.peak
            return out

    def loads(self) -> dict:
        with self._cv:
            return self.scheduler.loads()

    # ---- the run --------------------------------------------------------------------------------
    def judged(self, cases: Iterable, skip: Callable) -> Iterator:
        """(case, verdicts, oracle failure) in corpus order."""
        pending: deque = deque()
        source = iter(cases)
        exhausted = False
        most = self.scheduler.most
        threads = [threading.Thread(target=self._slot, args=(i,), name=f"conform-slot-{i}", daemon=True)
                   for i in range(most)]
        if most > self.jobs:       # only where a lane may have more calls at once than cores
            threads.append(threading.Thread(target=self._watch_cpu, name="conform-cpu", daemon=True))
        for t in threads:
            t.start()
        try:
            index = 0
            while True:
                while not exhausted and len(pending) < self.window:
                    case = next(source, None)
                    if case is None:
                        exhausted = True
                        break
                    entry = Entry(index, case, [n for n in self.scheduler.order if not skip(case, n)])
                    index += 1
                    with self._cv:
                        self.scheduler.enqueue(entry)
                        self._cv.notify_all()
                    pending.append(entry)
                if not pending:
                    return
                head = pending[0]
                with self._cv:
                    while not head.complete and self._error is None and not self._cancelled:
                        self._cv.wait(0.2)      # a timed wait: Ctrl-C reaches this thread
                    if self._error is not None:
                        raise self._error
                    if self._cancelled:
                        return
                pending.popleft()
                verdicts = [head.verdicts[n] for n in head.todo]
                yield head.case, ([] if head.failure else verdicts), head.failure or None
        except BaseException:
            # Ctrl-C, or the caller stopped early: a hanging case must not be waited for.  Kill every
            # worker (abort: no descriptor is closed under a slot still reading it), then join the slots.
            with self._cv:
                self._stop = True
                self._cv.notify_all()
            self._abort_all()
            raise
        finally:
            with self._cv:
                self._stop = True
                self._cv.notify_all()
            for t in threads:
                t.join()

    def cancel(self) -> None:
        """From another thread: stop taking tasks, kill every worker (the calls in flight end at once), and
        end judged() at its next case."""
        with self._cv:
            self._stop = self._cancelled = True
            self._cv.notify_all()
        self._abort_all()

    def _abort_all(self) -> None:
        with self._cv:
            handles = [h for ln in self.scheduler.lanes.values() for h in ln.members]
        for h in handles:
            h.abort()

    def close(self) -> None:
        for h in self.release():
            h.close()

    def release(self) -> list:
        """The workers this loop opened, no longer its own (close() closes them)."""
        out, self._started = self._started, []
        return out

    # ---- a slot ---------------------------------------------------------------------------------
    def _slot(self, i: int) -> None:
        # Ctrl-C and SIGTERM go to the main thread, whose wait they interrupt at once: a signal the kernel
        # hands to a slot (blocked in select on a hanging worker) can sit unhandled, and the run not stop.
        # The workers a slot starts inherit the mask; the keeper unblocks both before it forks the worker.
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        while True:
            with self._cv:
                since = time.monotonic()
                task = self.scheduler.next_task()
                while task is None and not self._stop:
                    self._cv.wait(0.5)
                    task = self.scheduler.next_task()
                # a slot past the cores' own waits whenever the calls running fill the cores: not counted
                since = self._spent("wait", since) if i < self.jobs else time.monotonic()
                if task is None:
                    return
            try:
                if task.worker is None:
                    self._grow(task)
                    since = self._spent("start", since)
                self._run(task)
                self._spent("case", since)
            except BaseException as e:       # a harness bug: stop the run with it rather than hang
                with self._cv:
                    self.scheduler.released(task)
                    self._error = e
                    self._cv.notify_all()
                return

    def _spent(self, what: str, since: float) -> float:
        """Add the time since `since` to the slots' `what` (usage()); now."""
        now = time.monotonic()
        with self._cv:      # a Condition's lock is reentrant: also called with it held
            self.slot_s[what] += now - since
        return now

    def _grow(self, task) -> None:
        try:
            h = self.open_more(task.lane.target)
        except BaseException:
            with self._cv:
                self.scheduler.start_failed(task)
            raise
        with self._cv:
            self.scheduler.started(task, h)
            self._started.append(h)

    def _run(self, task) -> None:
        session, case, handle = self.session, task.entry.case, task.worker
        started = time.monotonic()
        before = _tree_polls(handle)
        handle.submit(case, timeout=session.case_timeout)     # the worker runs while the oracle answers
        try:
            expectation, failure = session.expectation(case), ""
        except Exception as e:      # an oracle bug on one case must not stop the other cases
            expectation, failure = None, f"{type(e).__name__}: {e}"
        outcome = handle.collect()
        after = _tree_polls(handle)
        # the adapter's own time where the worker measured it (the oracle's answer, computed meanwhile by
        # whichever lane reached the case first, is not the adapter's cost); a timeout or a crash costs its
        # wall time up to here: the worker started again for the repro is counted as a start (usage())
        cost = getattr(outcome, "elapsed_s", 0.0) or (time.monotonic() - started)
        verdict = None
        if not failure:
            verdict = session.verdict(case, expectation, outcome, handle)
            describe(verdict, case, expectation, handle)        # asked of the worker once judged
        looked, computing = after[0] - before[0], after[1] - before[1]
        with self._cv:
            self.scheduler.finished(task, verdict, failure, cost=cost,
                                    share=computing / looked if looked else 1.0, wall_s=time.monotonic() - started)
            self._cv.notify_all()

    # ---- a lane's workers computing at once -------------------------------------------------------
    def _watch_cpu(self) -> None:
        """Every CPU_WINDOW_S, how many of each lane's workers compute at once (a thread running or waiting
        for a core: proctree.runnable), booked with the scheduler (Scheduler.computing_at_once)."""
        from adapters import proctree
        while True:
            deadline = time.monotonic() + CPU_WINDOW_S
            with self._cv:
                while not self._stop and deadline > time.monotonic():
                    self._cv.wait(deadline - time.monotonic())
                if self._stop:
                    return
                lanes = [(ln, running, [h.proc.pid for h in members if getattr(h, "proc", None)])
                         for ln, running, members in self.scheduler.crowded()]
            for ln, running, roots in lanes:
                computing = sum(proctree.runnable([r, *proctree.descendants(r)]) for r in roots)
                with self._cv:
                    self.scheduler.computing_at_once(ln, running, computing)


def _tree_polls(handle) -> tuple:
    """(looks at the worker so far, those that found it computing): (0, 0) in-process."""
    return tuple(getattr(handle, "tree_polls", (0, 0)))
