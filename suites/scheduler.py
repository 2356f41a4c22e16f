"""One scheduler for the whole run: `jobs` slots over every adapter's (case, adapter) tasks.

Each adapter is a lane with its own workers (each a process running that one adapter).  A free slot takes
the earliest task of any lane that has an idle worker; where none has, it starts one more worker for the
lane whose earliest task is earliest, if that lane still has enough work to pay for a worker's start
(its measured time per case times the cases it has left).  So the fast adapters keep one worker each and
the slowest ends up with every core.  Tasks are taken only from a window of cases ahead of the one being
written: memory stays bounded and a kill loses at most the window, while verdicts are still yielded in
corpus order.  The slot that ran a case judges it with the same worker (the repro is asked of it), so no
worker is ever used by two threads.

`jobs` is the cores the run keeps busy, not the calls at once.  While a slot waits for a worker's reply the
harness looks at the worker's process tree every RSS_POLL_S (adapters/pool.py): a look that finds a thread
running or waiting for a core (state R) counts as computing, whoever else shares the cores.  Each lane keeps
the share of its calls' wall time so spent (1 for a call too short to be looked at), and a task starts while
the calls running, each weighed by its lane's share, leave room for it.  A run of lanes that compute makes
`jobs` calls at once, as it always did; a worker asleep in its framework (mindspore's graph scheduler waits
3 s after a failing kernel) weighs little, and its lane gets more workers than cores, up to OVERSUBSCRIBE per
core.  In-process there is one call at a time.

A lane's extra workers never compute more than one core's worth at once: weighed by their calls' average,
workers that sleep in step and then compute in step (a candidate timing itself on the clock) would share one
core's slot while each computes.  So every CPU_WINDOW_S the harness counts the lane's workers computing at
once (a thread of the tree running or waiting for a core, /proc); more than one, and more than its running
calls were weighed at, weighs each call by the share of those computing (Lane.burst): the lane gets no more
calls at once than that leaves room for.  A look that finds no such excess fades the burst, so a chance
coincidence of workers that mostly wait costs little, and workers computing in step are held to the cores.

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
OVERSUBSCRIBE = 4           # calls at once per core, at most (lanes whose workers mostly wait)
LOAD_WEIGHT = 0.125         # weight of a lane's newest call in its load (a moving average: the corpus is in op
                            # order, and a lane can sleep through one op and compute through the next)
LOAD_FLOOR = 0.05           # the least a lane's call weighs
CPU_WINDOW_S = 0.05         # how often the harness counts a lane's workers computing at once
BURST_FADE = 0.99           # per look without workers computing past their weight: a coincidence fades (~3.5 s
                            # half-life), workers computing in step are seen again every few looks


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
        self.load = 1.0                 # the share of a core one of its calls keeps busy (1 until measured)
        self.burst = 0.0                # the share of a core each call took while its workers computed at once
        self.running = 0                # its calls now
        self._computing = self._wall = 0.0      # moving averages of a call's seconds computing and in all

    @property
    def workers(self) -> int:
        return len(self.handles) + self.starting

    @property
    def weight(self) -> float:
        """What one of its calls weighs: its average load, or what its workers took at once, whichever is more."""
        return max(self.load, self.burst)

    def mean_s(self) -> float:
        """Its time per case once warm (past its first WARM_UP cases)."""
        steady = self.done - WARM_UP
        return (self.busy_s - self.warm_up_s) / steady if steady > 0 else 0.0

    def add(self, cost: float) -> None:
        self.busy_s += cost
        self.done += 1
        if self.done <= WARM_UP:
            self.warm_up_s += cost

    def carry(self, state) -> None:
        self.load, self._computing, self._wall = state

    def measured(self, share: float, wall_s: float) -> None:
        """One call: the share of its looks that found the worker computing, and its wall time."""
        self._computing += LOAD_WEIGHT * (share * wall_s - self._computing)
        self._wall += LOAD_WEIGHT * (wall_s - self._wall)
        if self._wall > 0:
            self.load = max(self._computing / self._wall, LOAD_FLOOR)

    def worth_another(self, most: int) -> bool:
        if self.workers >= most or self.done < WARM_UP + GROW_AFTER:
            return False
        left = max(self.total - self.done, len(self.queue))
        return self.mean_s() * left / (self.workers + 1) >= GROW_WORTH_S


class Scheduler:
    """Runs `session`'s cases through its first handle set, `jobs` at a time over all adapters.

    `open_more(spec)` opens another worker of an adapter (the session's; closed by `close()`).  `total`
    is the number of cases expected (for progress and the decision to add workers)."""

    def __init__(self, session, handles: list, jobs: int, open_more: Callable, total: int = 0,
                 spare: dict = None, loads: dict = None):
        self.session, self.jobs, self.open_more = session, max(1, int(jobs)), open_more
        self.spare = spare if spare is not None else {}    # spec: workers open_more hands out before a new one
        self.lanes = {h.name: Lane(h, total) for h in handles}
        for name, load in (loads or {}).items():        # measured by an earlier run of the same session
            if name in self.lanes:
                self.lanes[name].carry(load)
        self.order = [h.name for h in handles]
        # calls at once, at most: more than jobs only where each call has a worker process of its own
        isolated = all(getattr(h, "isolated", False) and hasattr(h, "looks") for h in handles)
        self.most = self.jobs * OVERSUBSCRIBE if isolated else self.jobs
        # per call that may run at once: a sleeping lane's cases are a few in a window, and only those overlap
        self.window = WINDOW_PER_JOB * self.most
        self.running, self.running_load, self.peak = 0, 0.0, 0     # calls now, their loads summed, the most seen
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
        wall time is measured against: benchmarks/README.md); and `peak`, the most calls that ran at once."""
        with self._cv:
            again = sum(getattr(h, "restart_s", 0.0) for ln in self.lanes.values() for h in ln.handles)
            out = dict(self.slot_s)
            out["case"] -= again
            out["start"] += again
            out["busy"] = sum(ln.busy_s for ln in self.lanes.values())
            out["peak"] = self.peak
            return out

    # ---- the run --------------------------------------------------------------------------------
    def judged(self, cases: Iterable, skip: Callable) -> Iterator:
        """(case, verdicts, oracle failure) in corpus order."""
        pending: deque = deque()
        source = iter(cases)
        exhausted = False
        threads = [threading.Thread(target=self._slot, args=(i,), name=f"conform-slot-{i}", daemon=True)
                   for i in range(self.most)]
        if self.most > self.jobs:       # only where a lane may have more calls at once than cores
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
        for h in self.release():
            h.close()

    def release(self) -> list:
        """The workers this scheduler opened, no longer its own (close() closes them)."""
        out, self._started = self._started, []
        return out

    def loads(self) -> dict:
        """Each lane's measured load state, for a later run of the same session (Lane.carry)."""
        with self._cv:
            return {n: (ln.load, ln._computing, ln._wall) for n, ln in self.lanes.items() if ln._wall > 0}

    # ---- a slot ---------------------------------------------------------------------------------
    def _slot(self, i: int) -> None:
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
                # a slot past the cores' own waits whenever the calls running fill the cores: not counted
                since = self._spent("wait", since) if i < self.jobs else time.monotonic()
                if task is None:
                    return
            lane, entry, handle, weight = task
            try:
                if handle is None:
                    handle = self._grow(lane)
                    since = self._spent("start", since)
                self._run(lane, entry, handle, weight)
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
        """(lane, entry, idle handle or None: start one, its weight) for the next task, under the lock;
        None: nothing that fits."""
        best = None
        for ln in self.lanes.values():
            if ln.queue and ln.idle and self._fits(ln.weight) and (best is None or ln.queue[0].index < best.queue[0].index):
                best = ln
        if best is not None:
            return self._begin(best, best.queue.popleft(), best.idle.pop(), best.weight)
        grow = None
        for ln in self.lanes.values():
            # a worker kept from an earlier run costs no start: the lane takes it while it has room
            kept = self.spare.get(ln.spec) and ln.workers < self.most
            if ln.queue and (kept or ln.worth_another(self.most)) and self._fits(ln.weight) \
                    and (grow is None or ln.queue[0].index < grow.queue[0].index):
                grow = ln
        if grow is not None:
            # weighed as its calls: a start computes, but once per worker, and the workers are few
            grow.starting += 1
            return self._begin(grow, grow.queue.popleft(), None, grow.weight)
        return None

    def _fits(self, load: float) -> bool:
        return self.running == 0 or self.running_load + min(load, self.jobs) <= self.jobs + 1e-9

    def _begin(self, lane, entry, handle, load):
        weight = min(load, self.jobs)
        self.running += 1
        self.running_load += weight
        lane.running += 1
        self.peak = max(self.peak, self.running)
        return lane, entry, handle, weight

    def _end(self, lane, weight) -> None:
        self.running -= 1
        self.running_load -= weight
        lane.running -= 1

    # ---- a lane's workers computing at once -------------------------------------------------------
    def _watch_cpu(self) -> None:
        """Every CPU_WINDOW_S, how many of each lane's workers compute at once (a thread running or waiting
        for a core: proctree.runnable).  More than a core's worth, and more than its running calls were
        weighed at, weighs the lane by the share each took (Lane.burst); a look without fades it."""
        from adapters import proctree
        while True:
            deadline = time.monotonic() + CPU_WINDOW_S
            with self._cv:
                while not self._stop and deadline > time.monotonic():
                    self._cv.wait(deadline - time.monotonic())
                if self._stop:
                    return
                lanes = [(ln, ln.running, [h.proc.pid for h in ln.handles if getattr(h, "proc", None)])
                         for ln in self.lanes.values() if len(ln.handles) > 1]
            for ln, running, roots in lanes:
                computing = sum(proctree.runnable([r, *proctree.descendants(r)]) for r in roots)
                with self._cv:
                    if computing > max(1.0, running * ln.weight) + 1e-9:
                        ln.burst = max(ln.burst, min(1.0, computing / max(running, 1)))
                    else:
                        ln.burst *= BURST_FADE

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

    def _run(self, lane, entry, handle, weight) -> None:
        session, case = self.session, entry.case
        started = time.monotonic()
        before = _looks(handle)
        try:
            handle.submit(case, timeout=session.case_timeout)     # the worker runs while the oracle answers
            try:
                expectation, failure = session.expectation(case), ""
            except Exception as e:      # an oracle bug on one case must not stop the other cases
                expectation, failure = None, f"{type(e).__name__}: {e}"
            outcome = handle.collect()
            after = _looks(handle)
            # the adapter's own time where the worker measured it (the oracle's answer, computed meanwhile by
            # whichever lane reached the case first, is not the adapter's cost); a timeout or a crash costs its
            # wall time up to here: the worker started again for the repro is counted as a start (usage())
            cost = getattr(outcome, "elapsed_s", 0.0) or (time.monotonic() - started)
            verdict = None if failure else session.verdict(case, expectation, outcome, handle)
        except BaseException:
            with self._cv:
                self._end(lane, weight)
            raise
        with self._cv:
            self._end(lane, weight)
            looked, computing = after[0] - before[0], after[1] - before[1]
            lane.measured(computing / looked if looked else 1.0, time.monotonic() - started)
            lane.add(cost)
            lane.idle.append(handle)
            if failure:
                entry.failure = failure
            entry.verdicts[lane.name] = verdict
            self._cv.notify_all()


def _looks(handle) -> tuple:
    """(looks at the worker so far, those that found it computing): (0, 0) in-process."""
    return tuple(getattr(handle, "looks", (0, 0)))
