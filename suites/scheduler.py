"""The scheduler: which worker runs what next, as bookkeeping only (pytest-xdist's scheduler/load.py).

It holds, per adapter (a lane), the cases of the window still to run, its workers (opaque: it never calls
them), which of them are idle, and what its calls measured; `next_task()` says which task a free slot takes
and whether a worker must be started for it, `finished()` books what came back, `add_worker()` and
`remove_worker()` follow the workers.  No threads, no I/O, no callbacks: suites/loop.py owns the slots, the
worker handles and the lock under which every method here is called, as xdist's dsession.py drives its
LoadScheduling.  What follows is the policy it keeps.

Each adapter is a lane with its own workers (each a process running that one adapter).  A free slot takes
the earliest task of any lane that has an idle worker; where none has, it starts one more worker for the
lane whose earliest task is earliest, if that lane still has enough work to pay for a worker's start
(its measured time per case times the cases it has left).  So the fast adapters keep one worker each and
the slowest ends up with every core.  Tasks are taken only from a window of cases ahead of the one being
written: memory stays bounded and a kill loses at most the window, while verdicts are still yielded in
corpus order.  The slot that ran a case judges it and asks its repro of the same worker, so no worker is
ever used by two threads.

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

Modelled on pytest-xdist's split: the session owns adapters and judging, the loop (suites/loop.py) owns the
slots and the workers, and this module only decides which worker runs what next.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

WINDOW_PER_JOB = 32         # cases in flight per slot, ahead of the one being written
GROW_AFTER = 4              # cases a lane finishes, past its first ones, before its time per case is trusted
WARM_UP = 4                 # a lane's first cases, left out of its time per case: a framework's first calls
                            # load its kernels (paddle: 0.3 s for a case that then costs 1 ms)
GROW_WORTH_S = 8.0          # a lane gets one more worker only if it has at least this much work left per worker
OVERSUBSCRIBE = 4           # calls at once per core, at most (lanes whose workers mostly wait)
LOAD_WEIGHT = 0.125         # weight of a lane's newest call in its load (a moving average: the corpus is in op
                            # order, and a lane can sleep through one op and compute through the next)
LOAD_FLOOR = 0.05           # the least a lane's call weighs
BURST_FADE = 0.99           # per look without workers computing past their weight: a coincidence fades (~3.5 s
                            # half-life), workers computing in step are seen again every few looks


@dataclass
class Entry:
    """One case of the window: the lanes that run it, and their verdicts as they come back."""
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

    def __init__(self, name: str, target: str, total: int):
        self.name, self.target = name, target
        self.members: list = []         # its workers (the loop's handles; never called here)
        self.idle: list = []
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
        return len(self.members) + self.starting

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


@dataclass
class Task:
    """One (case, lane) handed to a free slot: `worker` None means the slot starts one for the lane first."""
    lane: Lane
    entry: Entry
    worker: Optional[object]
    weight: float               # what it counts against the cores while it runs


class Scheduler:
    """Pending work per lane, which worker gets what next, workers added and removed.

    `lanes`: (name, target, first worker) per adapter, in the adapters' order.  `jobs`: the cores kept busy;
    `most`: the calls at once at most (jobs, or OVERSUBSCRIBE per core where every call has a process of its
    own).  `total`: the cases each lane is expected to run.  `kept`: target -> workers an earlier run left
    that cost no start.  `loads`: lane name -> its measured load state from an earlier run (loads())."""

    def __init__(self, lanes: list, jobs: int, most: int, total: int = 0, kept: Optional[dict] = None,
                 loads: Optional[dict] = None):
        self.jobs, self.most = max(1, int(jobs)), max(1, int(most))
        self.lanes = {}
        for name, target, worker in lanes:
            self.lanes[name] = Lane(name, target, total)
            self.add_worker(name, worker)
        self.order = list(self.lanes)
        self.kept = {target: n for target, n in (kept or {}).items() if n}
        for name, load in (loads or {}).items():
            if name in self.lanes:
                self.lanes[name].carry(load)
        # per call that may run at once: a sleeping lane's cases are a few in a window, and only those overlap
        self.window = WINDOW_PER_JOB * self.most
        self.running, self.running_load, self.peak = 0, 0.0, 0     # calls now, their loads summed, the most seen

    # ---- workers ----------------------------------------------------------------------------
    def add_worker(self, lane: str, worker) -> None:
        """A worker of `lane` that is idle now."""
        ln = self.lanes[lane]
        ln.members.append(worker)
        ln.idle.append(worker)

    def remove_worker(self, lane: str, worker) -> None:
        """A worker gone from `lane` (it is no longer handed tasks)."""
        ln = self.lanes[lane]
        ln.members.remove(worker)
        if worker in ln.idle:
            ln.idle.remove(worker)

    def started(self, task: Task, worker) -> None:
        """The worker a slot started for `task` (next_task gave it none): it runs the task now."""
        task.lane.starting -= 1
        task.lane.members.append(worker)
        task.worker = worker

    def start_failed(self, task: Task) -> None:
        task.lane.starting -= 1

    # ---- work --------------------------------------------------------------------------------
    def enqueue(self, entry: Entry) -> None:
        """A case of the window, pending in every lane of its `todo`."""
        for n in entry.todo:
            self.lanes[n].queue.append(entry)

    def next_task(self) -> Optional[Task]:
        """The task a free slot takes now, or None: nothing that fits.  The earliest case of any lane with an
        idle worker; else the earliest of a lane worth (or kept) another worker, to be started for it."""
        best = None
        for ln in self.lanes.values():
            if ln.queue and ln.idle and self._fits(ln.weight) and (best is None or ln.queue[0].index < best.queue[0].index):
                best = ln
        if best is not None:
            return self._begin(best, best.idle.pop())
        grow = None
        for ln in self.lanes.values():
            # a worker kept from an earlier run costs no start: the lane takes it while it has room
            kept = self.kept.get(ln.target) and ln.workers < self.most
            if ln.queue and (kept or ln.worth_another(self.most)) and self._fits(ln.weight) \
                    and (grow is None or ln.queue[0].index < grow.queue[0].index):
                grow = ln
        if grow is None:
            return None
        # weighed as its calls: a start computes, but once per worker, and the workers are few
        grow.starting += 1
        if self.kept.get(grow.target):
            self.kept[grow.target] -= 1
        return self._begin(grow, None)

    def finished(self, task: Task, verdict, failure: str = "", cost: float = 0.0, share: float = 1.0,
                 wall_s: float = 0.0) -> None:
        """`task` came back: its verdict (None where the oracle failed, `failure` saying why), the adapter's
        own time `cost`, the share of the call's looks that found the worker computing and its wall time."""
        self.released(task)
        ln = task.lane
        ln.measured(share, wall_s)
        ln.add(cost)
        ln.idle.append(task.worker)
        if failure:
            task.entry.failure = failure
        task.entry.verdicts[ln.name] = verdict

    def released(self, task: Task) -> None:
        """`task` no longer runs (finished, or its slot failed): its weight leaves the cores."""
        if task.weight is None:
            return
        self.running -= 1
        self.running_load -= task.weight
        task.lane.running -= 1
        task.weight = None

    def _fits(self, load: float) -> bool:
        return self.running == 0 or self.running_load + min(load, self.jobs) <= self.jobs + 1e-9

    def _begin(self, lane: Lane, worker) -> Task:
        weight = min(lane.weight, self.jobs)
        self.running += 1
        self.running_load += weight
        lane.running += 1
        self.peak = max(self.peak, self.running)
        return Task(lane, lane.queue.popleft(), worker, weight)

    # ---- a lane's workers computing at once ---------------------------------------------------
    def crowded(self) -> list:
        """(lane, its calls running, its workers) of each lane with more than one worker."""
        return [(ln, ln.running, list(ln.members)) for ln in self.lanes.values() if len(ln.members) > 1]

    def computing_at_once(self, lane: Lane, running: int, computing: float) -> None:
        """`computing` of `lane`'s workers were seen computing at once while `running` of its calls ran: more
        than a core's worth, and more than those calls were weighed at, weighs each call by the share each
        took (Lane.burst); a look without fades it."""
        if computing > max(1.0, running * lane.weight) + 1e-9:
            lane.burst = max(lane.burst, min(1.0, computing / max(running, 1)))
        else:
            lane.burst *= BURST_FADE

    # ---- what the progress line and the end show ------------------------------------------------
    def snapshot(self) -> list:
        """(name, done, total, workers, busy seconds) per adapter."""
        return [(n, ln.done, max(ln.total, ln.done), ln.workers, ln.busy_s) for n, ln in self.lanes.items()]

    def busy_s(self) -> float:
        """The adapters' own time: the lanes' busy_s summed."""
        return sum(ln.busy_s for ln in self.lanes.values())

    def loads(self) -> dict:
        """Each lane's measured load state, for a later run of the same session (Lane.carry)."""
        return {n: (ln.load, ln._computing, ln._wall) for n, ln in self.lanes.items() if ln._wall > 0}
