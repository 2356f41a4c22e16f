"""One scheduler for the whole run: `jobs` slots over every adapter's (case, adapter) tasks.

Each adapter is a lane with its own workers (each a process running that one adapter).  A free slot takes
the earliest task of any lane that has an idle worker; where none has, it starts one more worker for the
lane whose earliest task is earliest, if that lane still has enough work to pay for a worker's start
(its measured time per case times the cases it has left).  So the fast adapters keep one worker each and
the slowest ends up with every core.  Tasks are taken only from a window of cases ahead of the one being
written: memory stays bounded and a kill loses at most the window, while verdicts are still yielded in
corpus order.  The slot that ran a case judges it with the same worker (the repro is asked of it), so no
worker is ever used by two threads.  With jobs=1 the same code runs one task at a time.

Modelled on pytest-xdist's split: the session owns adapters and judging, the workers run calls, and this
module only decides which worker runs what next.
"""
from __future__ import annotations

import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

WINDOW_PER_JOB = 32         # cases in flight per slot, ahead of the one being written
GROW_AFTER = 4              # cases a lane finishes, past its first ones, before its time per case is trusted
WARM_UP = 4                 # a lane's first cases, left out of its time per case: a framework's first calls
                            # load its kernels (paddle: 0.3 s for a case that then costs 1 ms)
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}    # the main thread's alone: it stops the run
GROW_WORTH_S = 8.0          # a lane gets one more worker only if it has at least this much work left per worker


@dataclass
class _Entry:
    index: int
    case: object
    todo: list                              # lane names, in the adapters' order
    verdicts: dict = field(default_factory=dict)
    failure: str = ""                       # the oracle failed on this case

    @property
    def complete(self) -> bool:
        return len(self.verdicts) == len(self.todo)


class Lane:
    """One adapter: its workers, the window's cases it still has to run, what it has done."""

    def __init__(self, handle, total: int):
        self.name, self.spec = handle.name, handle.spec
        self.handles = [handle]
        self.idle = [handle]
        self.starting = 0
        self.queue: deque = deque()
        self.done = 0
        self.total = total              # the cases it will run (an estimate until the corpus has streamed)
        self.busy_s = 0.0               # seconds its workers spent on cases (the adapter's own run() time)
        self.warm_up_s = 0.0            # the part of busy_s its first WARM_UP cases took

    @property
    def workers(self) -> int:
        return len(self.handles) + self.starting

    def mean_s(self) -> float:
        """Its time per case once warm (past its first WARM_UP cases)."""
        steady = self.done - WARM_UP
        return (self.busy_s - self.warm_up_s) / steady if steady > 0 else 0.0

    def add(self, cost: float) -> None:
        self.busy_s += cost
        self.done += 1
        if self.done <= WARM_UP:
            self.warm_up_s += cost

    def worth_another(self, jobs: int) -> bool:
        if self.workers >= jobs or self.done < WARM_UP + GROW_AFTER:
            return False
        left = max(self.total - self.done, len(self.queue))
        return self.mean_s() * left / (self.workers + 1) >= GROW_WORTH_S


class Scheduler:
    """Runs `session`'s cases through its first handle set, `jobs` at a time over all adapters.

    `open_more(spec)` opens another worker of an adapter (the session's; closed by `close()`).  `total`
    is the number of cases expected (for progress and the decision to add workers)."""

    def __init__(self, session, handles: list, jobs: int, open_more: Callable, total: int = 0):
        self.session, self.jobs, self.open_more = session, max(1, int(jobs)), open_more
        self.lanes = {h.name: Lane(h, total) for h in handles}
        self.order = [h.name for h in handles]
        self.window = WINDOW_PER_JOB * self.jobs
        self._cv = threading.Condition()
        self._stop = self._cancelled = False
        self._error = None
        self._started = []          # handles this scheduler opened (closed at the end)
        self.started_at = time.monotonic()
        self.slot_s = {"case": 0.0, "start": 0.0, "wait": 0.0}   # the slots' time, summed: see usage()

    # ---- what the progress line shows ---------------------------------------------------------------
    def snapshot(self) -> list:
        """(name, done, total, workers, busy seconds) per adapter."""
        with self._cv:
            return [(n, ln.done, max(ln.total, ln.done), ln.workers, ln.busy_s) for n, ln in self.lanes.items()]

    def usage(self) -> dict:
        """Seconds the slots spent running a case (the call and its judging), starting a worker (one more for
        a lane, or again after one died), and waiting for a task (nothing in the window a free slot may
        take), summed over the slots; and `busy`, the adapters' own time (the lanes' busy_s, the figure the
        wall time is measured against: benchmarks/README.md)."""
        with self._cv:
            again = sum(getattr(h, "restart_s", 0.0) for ln in self.lanes.values() for h in ln.handles)
            out = dict(self.slot_s)
            out["case"] -= again
            out["start"] += again
            out["busy"] = sum(ln.busy_s for ln in self.lanes.values())
            return out

    # ---- the run --------------------------------------------------------------------------------
    def judged(self, cases: Iterable, skip: Callable) -> Iterator:
        """(case, verdicts, oracle failure) in corpus order."""
        pending: deque = deque()
        source = iter(cases)
        exhausted = False
        threads = [threading.Thread(target=self._slot, name=f"conform-slot-{i}", daemon=True)
                   for i in range(self.jobs)]
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
                    entry = _Entry(index, case, [n for n in self.order if not skip(case, n)])
                    index += 1
                    with self._cv:
                        for n in entry.todo:
                            self.lanes[n].queue.append(entry)
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
            for ln in self.lanes.values():
                for h in list(ln.handles):
                    h.abort()
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
        for ln in self.lanes.values():
            for h in list(ln.handles):
                h.abort()

    def close(self) -> None:
        for h in self._started:
            h.close()
        self._started = []

    # ---- a slot ---------------------------------------------------------------------------------
    def _slot(self) -> None:
        # Ctrl-C and SIGTERM go to the main thread, whose wait they interrupt at once: a signal the kernel
        # hands to a slot (blocked in select on a hanging worker) can sit unhandled, and the run not stop.
        # The workers a slot starts inherit the mask; the keeper unblocks both before it forks the worker.
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        while True:
            with self._cv:
                since = time.monotonic()
                task = self._take()
                while task is None and not self._stop:
                    self._cv.wait(0.5)
                    task = self._take()
                since = self._spent("wait", since)
                if task is None:
                    return
            lane, entry, handle = task
            try:
                if handle is None:
                    handle = self._grow(lane)
                    since = self._spent("start", since)
                self._run(lane, entry, handle)
                self._spent("case", since)
            except BaseException as e:       # a harness bug: stop the run with it rather than hang
                with self._cv:
                    self._error = e
                    self._cv.notify_all()
                return

    def _spent(self, what: str, since: float) -> float:
        """Add the time since `since` to the slots' `what` (usage()); now."""
        now = time.monotonic()
        with self._cv:      # a Condition's lock is reentrant: also called with it held
            self.slot_s[what] += now - since
        return now

    def _take(self):
        """(lane, entry, idle handle or None: start one) for the next task, under the lock; None: nothing."""
        best = None
        for ln in self.lanes.values():
            if ln.queue and ln.idle and (best is None or ln.queue[0].index < best.queue[0].index):
                best = ln
        if best is not None:
            return best, best.queue.popleft(), best.idle.pop()
        grow = None
        for ln in self.lanes.values():
            if ln.queue and ln.worth_another(self.jobs) and (grow is None or ln.queue[0].index < grow.queue[0].index):
                grow = ln
        if grow is not None:
            grow.starting += 1
            return grow, grow.queue.popleft(), None
        return None

    def _grow(self, lane):
        try:
            h = self.open_more(lane.spec)
        finally:
            with self._cv:
                lane.starting -= 1
        with self._cv:
            lane.handles.append(h)
            self._started.append(h)
        return h

    def _run(self, lane, entry, handle) -> None:
        session, case = self.session, entry.case
        started = time.monotonic()
        handle.submit(case, timeout=session.case_timeout)     # the worker runs while the oracle answers
        try:
            expectation, failure = session.expectation(case), ""
        except Exception as e:      # an oracle bug on one case must not stop the other cases
            expectation, failure = None, f"{type(e).__name__}: {e}"
        outcome = handle.collect()
        # the adapter's own time where the worker measured it (the oracle's answer, computed meanwhile by
        # whichever lane reached the case first, is not the adapter's cost); a timeout or a crash costs its
        # wall time up to here: the worker started again for the repro is counted as a start (usage())
        cost = getattr(outcome, "elapsed_s", 0.0) or (time.monotonic() - started)
        verdict = None if failure else session.verdict(case, expectation, outcome, handle)
        with self._cv:
            lane.add(cost)
            lane.idle.append(handle)
            if failure:
                entry.failure = failure
            entry.verdicts[lane.name] = verdict
            self._cv.notify_all()
