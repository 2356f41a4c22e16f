"""A worker's channel: the wire to it, every read's deadline, and the queue of requests in flight.

One Channel per worker handle (adapters/pool.py), over its process (adapters/worker_process.py), which it
starts (`start()`: spawn, then read and check the hello) and starts again when a request finds it dead.  It
trusts nothing the worker sends: every reply names the case it answers and is checked against it, every
read has a deadline, a malformed reply is a CRASHED outcome saying what was wrong, a reply's arrays are
counted from its header before any is read (wire.MAX_REPLY_BYTES), and a death by signal becomes a CRASHED
outcome carrying the signal, a hang TIMED_OUT, each with what the worker wrote to stderr during its case.
"""
from __future__ import annotations

import os
import select
import signal
import time
from collections import deque
from dataclasses import dataclass
from typing import Optional

from contract.vocabulary import name_problem

from . import proctree, settings, wire
from .base import CRASHED, RAISED, TIMED_OUT, Outcome, clean_text
from .environments import is_this_interpreter
from .registry import AdapterError
from .worker_process import WorkerProcess

# A worker whose memory (resident, and the shared memory it holds: proctree.memory_mb) passes this is killed
# and its case recorded as a crash, so a leaking candidate cannot take the machine.  Resident, not address
# space: mindspore maps ~10 GB it never uses.
RSS_LIMIT_MB = settings.WORKER_RSS_MB
RSS_POLL_S = 0.25
PIPE_BUDGET = 48 << 10         # request bytes allowed in flight: under a pipe's 64 KiB, so writes never block
FRAME_GRACE_S = 1.0            # a reply that began before its case's deadline gets this long to finish
BYE_WAIT_S = 5.0               # an idle worker's time to exit after "bye"


class Channel:
    """Requests to one worker and its replies, in order.  `case_timeout`: the seconds a case gets (set once the
    hello said the adapter's own)."""

    def __init__(self, process: WorkerProcess, case_timeout: float = 0.0):
        self.process = process
        self.case_timeout = case_timeout
        self._why = None                  # (signal, message) when the harness kills the worker itself
        self._garbled = ""                # what was wrong with the last thing read, if it was no message
        self._start_failure = ""          # why the last restart failed: the cases waiting get it
        self._desc = (None, "", "")       # ((case id, with an expectation), native_api, repro) of the last describe()
        self._queue = deque()             # _Items sent or waiting to be sent, oldest first
        self._ready = deque()             # outcomes read early (while waiting for a repro), in order
        self._last_reply = 0.0
        self._answered = 0                # cases the current worker answered: a crash after one may not be its case's
        # While it waits for a reply the harness looks at the worker's tree every RSS_POLL_S: how often, and how
        # often a thread of it was computing (the scheduler's measure of a worker that sleeps: suites/scheduler.py)
        self.tree_polls = [0, 0]

    # ---- the worker's start and stop, as the wire sees them -------------------------------------
    def start(self, limit=None) -> dict:
        """Spawn the worker and read its hello (checked, its text cleaned); AdapterError if it says none."""
        p = self.process
        p.spawn()
        limit = limit or p.start_timeout
        try:
            head = self._recv(time.monotonic() + limit)
        except TimeoutError:
            head = {"type": "fatal", "message": f"no hello within {limit:g} s"}
        problem = _hello_problem(head) if head is not None and head.get("type") == "hello" else ""
        if head is None or head.get("type") != "hello" or problem:
            if problem:
                why = f"its hello is malformed: {problem}"
            elif head is None:
                why = self._garbled or "the worker died or did not answer while starting"
            else:
                why = clean_text(str(head.get("message", head.get("type"))), 4000)
            tail = self._stderr()
            self._stop()
            under = "" if is_this_interpreter(p.python) else f" under {p.python}"
            err = AdapterError(f"adapter {self.process.target!r} failed to start{under}: {why}" + (f"\n{tail}" if tail else ""))
            err.reason = why
            raise err
        for k in ("name", "version", "reason", "execution"):
            head[k] = clean_text(head[k], 4000)
        for k in ("ops", "constructions", "layouts"):
            head[k] = [clean_text(o, 100) for o in head.get(k, [])]
        for k in ("excludes", "crashes"):
            head[k] = [clean_text(x, 4096) for x in head.get(k, [])[:256]]
        if p.aborted:       # aborted while it started (another thread): it must not run a case
            self._stop()
            p.check_not_aborted()
        return head

    def _stop(self):
        """Stop the worker; what was known of its misbehaviour goes with it.  Its return code."""
        rc = self.process.stop()
        self._why, self._garbled = None, ""      # about that worker only
        return rc

    def _ensure(self):
        p = self.process
        if not p.alive():
            began = time.monotonic()
            self._stop()
            self.start(p.restart_timeout(self.case_timeout))
            self._answered = 0
            p.restarts += 1
            p.restart_s += time.monotonic() - began

    def close(self):
        """Say bye to an idle worker (a busy one, Ctrl-C mid-case, is killed at once), then stop it."""
        p = self.process
        busy = any(i.sent_at is not None for i in self._queue)
        if p.proc is not None and p.proc.returncode is None and not (busy or p.aborted or p.probe_only):
            try:
                _write_all(p.wfd, wire.encode({"type": "bye"}), time.monotonic() + 1.0)
                p.exited(BYE_WAIT_S)
            except (OSError, TimeoutError):
                pass
        self._stop()

    # ---- one request ----------------------------------------------------------------------
    def _recv(self, deadline):
        """The next message, or None if the worker died or sent something that is no message
        (self._garbled says what); raises TimeoutError if none came by `deadline`."""
        watch = [self.process.rfd] + ([self.process.pidfd] if self.process.pidfd is not None else [])
        poll = RSS_POLL_S if self.process.pidfd is not None else 0.05
        while True:
            # Poll even when the time is up: a reply may have arrived while another worker was awaited.
            left = max(0.0, deadline - time.monotonic())
            try:
                ready, _, _ = select.select(watch, [], [], min(left, poll))
            except InterruptedError:
                continue
            if self.process.rfd in ready:
                break
            if self.process.pidfd in ready or (self.process.pidfd is None and self.process.exited(0)):
                # The keeper exited, so the worker and all it started are gone (whoever held the pipe):
                # only a reply finished before the end can still be read.
                if select.select([self.process.rfd], [], [], 0)[0]:
                    break
                return None
            tree = self.process.tree()
            rss = proctree.memory_mb(tree)
            self.tree_polls[0] += 1
            self.tree_polls[1] += proctree.runnable(tree)
            if rss > RSS_LIMIT_MB:
                self._why = (signal.SIGKILL, f"worker killed: resident memory and shared memory held, {rss} MB, of its process tree "
                                             f"passed the limit of {RSS_LIMIT_MB} MB (CONFORM_WORKER_RSS_MB)")
                self.process.kill_now()
                return None
            if left <= 0:
                raise TimeoutError
        try:
            head, arrays = wire.recv(self.process.rfd, deadline=max(deadline, time.monotonic() + FRAME_GRACE_S),
                                     max_bytes=wire.MAX_REPLY_BYTES)
        except wire.OverCap as e:      # refused before a byte of its arrays was read
            self._why = (None, f"the worker's reply was refused: {e}; worker killed")
            self.process.kill_now()
            return None
        except wire.WireError as e:
            # Not an end of file: something that is no message (the candidate wrote on the pipe).
            self._garbled = "" if isinstance(e, (wire.PeerClosed, wire.Truncated)) else str(e)
            return None
        head["_arrays"] = arrays
        return head

    # ---- requests in flight ---------------------------------------------------------------
    # Cases are pipelined: the next ones are sent while the worker runs the current one, so the
    # worker never waits for the harness to judge.  Replies come back in order; the first one
    # missing when the worker dies or hangs belongs to the case at the head of the queue.
    def run(self, case, timeout=None) -> Outcome:
        """Run one case (nothing else may be in flight)."""
        self.submit(case, timeout)
        return self.collect()

    def submit(self, case, timeout=None) -> None:
        """Queue a case; collect() returns outcomes in submission order."""
        self._queue.append(_Item("run", case.id, wire.encode(*wire.case_to_msg(case)),
                                 float(timeout or self.case_timeout)))
        self._pump()

    def collect(self) -> Outcome:
        while not self._ready:
            item, result = self._next_reply()
            if item.kind == "run":
                return result
        return self._ready.popleft()

    def _pump(self):
        """Send queued requests while the bytes waiting in the pipe stay under PIPE_BUDGET.

        Under that budget a write never blocks, so the harness can never block on a full request pipe
        while the worker blocks on a full reply pipe.  (A worker that shrank or stopped draining its
        request pipe is killed when a write cannot finish within the case's time.)"""
        in_flight = sum(len(i.data) for i in self._queue if i.sent_at is not None)
        for item in self._queue:
            if item.sent_at is not None:
                continue
            if in_flight and in_flight + len(item.data) > PIPE_BUDGET:
                return
            self.process.check_not_aborted()
            if not in_flight:
                try:        # nothing in flight: a dead worker can be replaced without losing a reply
                    self._ensure()
                except AdapterError as e:
                    self._start_failure = str(e)
                    return
            try:
                _write_all(self.process.wfd, item.data, time.monotonic() + item.limit)
            except BrokenPipeError:
                return              # the worker died: _next_reply sees it, blames the head, resends the rest
            except TimeoutError:
                self._why = (None, "the worker stopped reading its requests; worker killed")
                self.process.kill_now()
                return
            item.sent_at = time.monotonic()
            in_flight += len(item.data)

    def _next_reply(self):
        """(item, Outcome or repro dict or None) for the head of the queue."""
        item = self._queue[0]
        if item.sent_at is None:
            self._pump()
        if item.sent_at is None and self._start_failure:
            failure, self._start_failure = self._start_failure, ""
            return self._lost(item, Outcome(CRASHED, message=f"the worker could not be restarted: {failure}"))
        started = max(item.sent_at or time.monotonic(), self._last_reply)
        try:
            reply = self._recv(max(0.0, started + item.limit))
        except TimeoutError:
            stderr = self._stderr()
            self._stop()
            result = Outcome(TIMED_OUT, seconds=item.limit, stderr=stderr,
                             message=f"no answer within {item.limit:g} s; worker killed")
            return self._lost(item, result)
        if reply is None:
            crashed = self._crashed()
            died = crashed.message.startswith(("worker killed by signal", "worker exited with status"))
            if died and item.kind == "run" and self._answered and not item.confirming:
                # The worker had run other cases: one of them may have corrupted its memory (a write past a
                # storage's end) and this case only met the damage.  A crash is the case's own when a fresh
                # worker, whose first case it is, dies on it too; otherwise the fresh answer is its answer.
                return self._confirm(item)
            return self._lost(item, crashed)
        want = "outcome" if item.kind == "run" else "repro"
        if reply.get("type") != want or reply.get("id") != item.case_id:
            self._garbled = (f"it sent a {str(reply.get('type'))[:20]!r} reply for case {str(reply.get('id'))[:20]!r} "
                             f"while the {want} of case {item.case_id[:16]} was awaited")
            return self._lost(item, self._crashed())
        self._queue.popleft()
        self._last_reply = time.monotonic()
        self._answered += 1
        self._pump()
        arrays = reply.pop("_arrays")
        if item.kind == "repro":
            ok = all(isinstance(reply.get(k), str) for k in ("repro", "native_api"))
            return item, ({k: clean_text(reply[k]) for k in ("repro", "native_api")} if ok else None)
        try:
            outcome = wire.outcome_from_msg(reply, arrays)
        except wire.BadReply as e:
            stderr = reply.get("stderr")
            outcome = Outcome(CRASHED, message=f"the worker's reply is malformed: {e}",
                              stderr=clean_text(stderr, keep_tail=True) if isinstance(stderr, str) else "")
        if outcome.kind == RAISED and "MemoryError" in outcome.exc_mro:
            self._recycle()
        return item, outcome

    def _recycle(self):
        # A worker that ran out of memory may keep what it leaked: later cases get a fresh one.
        self._stop()
        for other in self._queue:
            other.sent_at = None
        self._last_reply = 0.0
        if self._queue:
            self._pump()

    def _confirm(self, item):
        # the crashed head goes first to a fresh worker, with everything queued behind it
        item.confirming = True
        self._recycle()
        return self._next_reply()

    def _lost(self, item, outcome):
        # The worker is gone: the head case gets the outcome, the rest go to a fresh worker.
        self._queue.popleft()
        for other in self._queue:
            other.sent_at = None
        self._last_reply = 0.0
        if self._queue:
            self._pump()
        return item, (outcome if item.kind == "run" else None)

    def _crashed(self) -> Outcome:
        stderr = self._stderr()     # what the crashing case wrote (the worker truncates after each case)
        why, self._why = self._why, None
        garbled, self._garbled = self._garbled, ""
        if why is None and garbled and self.process.proc is not None and not self.process.exited(0.2):
            # alive: the harness kills it, which is no signal of the candidate's
            why = (None, f"the worker broke the protocol ({garbled[:300]}); worker killed")
        if why is not None:
            self._stop()
            return Outcome(CRASHED, signal=why[0], stderr=stderr, message=why[1])
        if self.process.proc is not None:
            self.process.exited(5.0)     # EOF came first; let the exit status arrive
        rc = self._stop()
        if rc is not None and rc < 0:
            sig = -rc
            return Outcome(CRASHED, signal=sig, stderr=stderr,
                           message=f"worker killed by signal {sig} ({_signame(sig)})")
        return Outcome(CRASHED, signal=None, stderr=stderr, message=f"worker exited with status {rc}")

    def _stderr(self) -> str:
        return wire.read_capped(self.process.err) if self.process.err is not None else ""

    def _describe(self, case, expectation=None):
        key = (case.id, expectation is not None)
        if self._desc[0] != key:
            head, arrays = wire.case_to_msg(case)
            head["type"] = "repro"
            if expectation is not None:
                head["expectation"], more = wire.expectation_to_msg(expectation)
                arrays.update(more)
            mine = _Item("repro", case.id, wire.encode(head, arrays), self.case_timeout)
            self._queue.append(mine)
            self._pump()
            while True:
                item, result = self._next_reply()
                if item is mine:
                    break
                if item.kind == "run":
                    self._ready.append(result)      # an earlier case's outcome: collect() returns it next
            if result is None:
                from .repro import generic_repro
                self._desc = (key, case.op, generic_repro(case, case.op, expectation))
            else:
                self._desc = (key, result["native_api"], result["repro"])
        return self._desc

    def native_api(self, op, case=None) -> str:
        return self._describe(case)[1] if case is not None else op

    def repro(self, case, expectation=None) -> str:
        return self._describe(case, expectation)[2]



def _hello_problem(h) -> str:
    """'' for a hello whose fields have their documented types, else what is wrong."""
    def bad(k, what):
        return f"{k} must be {what}, got {type(h.get(k)).__name__} {str(h.get(k))[:60]!r}"
    for k in ("name", "version", "reason", "execution", "python", "python_version", "numpy"):
        if not isinstance(h.get(k), str):
            return bad(k, "a string")
    if not h["name"]:
        return "name must not be empty"
    if (problem := name_problem(h["name"])):
        return problem
    if not isinstance(h.get("available"), bool):
        return bad("available", "true or false")
    for k in ("ops", "constructions", "layouts", "excludes", "crashes"):
        if not (isinstance(h.get(k, []), list) and all(isinstance(o, str) for o in h.get(k, []))):
            return bad(k, "a list of lines" if k in ("excludes", "crashes") else "a list of names")
    t = h.get("case_timeout")
    if t is not None and not (isinstance(t, (int, float)) and not isinstance(t, bool) and 0 < t < float("inf")):
        return bad("case_timeout", "a positive number of seconds or null")
    return ""


@dataclass
class _Item:
    kind: str                       # "run" | "repro"
    case_id: str                    # what the reply must name
    data: bytes                     # the encoded request
    limit: float                    # seconds the worker gets once it starts on it
    sent_at: Optional[float] = None
    confirming: bool = False        # sent again, first to a fresh worker, after a crash of a worker that had run others



def _write_all(fd, data, deadline):
    """Write all of `data` to a non-blocking fd; TimeoutError if the reader has not taken it by `deadline`."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError from None
            select.select([], [fd], [], left)



def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "unknown"

