"""Run pypto kernel calls in a forked child of the (already set-up) worker.

A kernel that fails inside pypto's C++ leaves the process unusable: the failed
function stays open in the C++ program, later calls fail with "function nested
is not allowed", stale output folders or bare AssertionErrors, and resetting the
program segfaults.  A fork costs ~20-35 ms (pypto and the calculator are loaded
before it) and gives every case the clean state a user's own program starts
from.  It also makes a hang or a segfault cheap: the child is killed or reaped
here and the worker lives on.
"""
from __future__ import annotations

import json
import os
import struct
import select
import signal
import time
from dataclasses import dataclass
from typing import Callable, Optional

from .. import proctree


@dataclass
class ChildResult:
    payload: Optional[dict] = None      # what fn() returned (JSON-able), when the child finished
    signal: Optional[int] = None        # the child died by this signal
    exit_status: Optional[int] = None   # the child exited without an answer, with this status
    timed_out: bool = False
    cpu_s: float = 0.0                  # CPU time the child used on this call (KeptChild)


def call_in_child(fn: Callable[[], dict], timeout: float) -> ChildResult:
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:                                    # the child: never returns, never runs atexit
        os.close(read_fd)
        _die_with(parent)
        code = 0
        try:
            data = json.dumps(fn()).encode()
        except BaseException as e:                  # a bug of the adapter's, reported as such
            data = json.dumps({"adapter_error": f"{type(e).__name__}: {e}"}).encode()
            code = 3
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(write_fd, view):]
        finally:
            os._exit(code)
    os.close(write_fd)
    try:
        data, timed_out = _read_all(read_fd, timeout)
    finally:
        os.close(read_fd)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return ChildResult(timed_out=True)
    if os.WIFSIGNALED(status):
        return ChildResult(signal=os.WTERMSIG(status))
    if not data:
        return ChildResult(exit_status=os.WEXITSTATUS(status))
    return ChildResult(payload=json.loads(data))


class KeptChild:
    """A forked child that runs `handler(request) -> (payload, keep)` for each JSON-able request, until a call leaves it
    unclean (keep False: it answers, then exits) or it hangs or dies; the next call forks a fresh one."""

    def __init__(self, handler: Callable, reuse: bool = True):
        """reuse False: a fresh child for every call (the way every call ran before; tests compare the two)."""
        self.handler, self.reuse = handler, reuse
        self.pid = self._to_child = self._from_child = None
        self.forks = 0

    def call(self, request, timeout: float, wall_limit: float = None) -> ChildResult:
        """The child's answer to `request`; timed out once the call has used `timeout` s of CPU time, or
        used none for `timeout` s of wall time, or ran `wall_limit` s (default: `timeout`) in all.

        A call is judged hung by what it consumed, not by the clock: on a loaded machine a passing call
        gets a fraction of a core and takes longer, and the wall clock alone would call it a timeout.
        A hang that spins (pypto's) uses CPU time and is stopped at `timeout` of it; one that waits on
        nothing is stopped after `timeout` s without progress; `wall_limit` bounds a call that crawls."""
        if self.pid is None:
            self._fork()
        try:
            _send(self._to_child, json.dumps(request).encode())
        except OSError:             # it died between calls: a fresh one takes the request
            self._reap(kill=True)
            self._fork()
            _send(self._to_child, json.dumps(request).encode())
        started, cpu0, pid = time.monotonic(), cpu_seconds(self.pid), self.pid
        wall_limit = max(timeout, wall_limit or timeout)
        progress = [started, cpu0]      # when the child last used CPU time, and its CPU time then

        def more_time() -> float:
            now, cpu = time.monotonic(), cpu_seconds(pid)
            if cpu > progress[1]:
                progress[:] = [now, cpu]
            used, took, idle = cpu - cpu0, now - started, now - progress[0]
            if used >= timeout or idle >= timeout or took >= wall_limit:
                return 0.0
            return max(0.02, min(timeout - used, timeout - idle, wall_limit - took))
        data, timed_out = _read_message(self._from_child, timeout, more_time)
        cpu_s = max(0.0, cpu_seconds(pid) - cpu0)
        if timed_out:
            self._reap(kill=True)
            return ChildResult(timed_out=True, cpu_s=cpu_s)
        if data is None:            # it died mid-call
            status = self._reap(kill=False)
            if os.WIFSIGNALED(status):
                return ChildResult(signal=os.WTERMSIG(status))
            return ChildResult(exit_status=os.WEXITSTATUS(status))
        reply = json.loads(data)
        if not reply["keep"]:
            self._reap(kill=False)      # it exits after answering
        elif not self.reuse:
            self._reap(kill=True)       # clean, but not to be used again
        return ChildResult(payload=reply["payload"], cpu_s=cpu_s)

    def close(self) -> None:
        if self.pid is not None:
            self._reap(kill=True)

    def _fork(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:                                # the child: never returns, never runs atexit
            os.close(req_w)
            os.close(rep_r)
            _die_with(parent)
            _serve(self.handler, req_r, rep_w)
            os._exit(0)
        os.close(req_r)
        os.close(rep_w)
        self.pid, self._to_child, self._from_child = pid, req_w, rep_r
        self.forks += 1

    def _reap(self, kill: bool) -> int:
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for fd in (self._to_child, self._from_child):
            os.close(fd)
        _, status = os.waitpid(self.pid, 0)
        self.pid = self._to_child = self._from_child = None
        return status


def _serve(handler, req_fd: int, rep_fd: int) -> None:
    while True:
        data, _ = _read_message(req_fd, None)
        if data is None:            # the parent closed the pipe
            return
        try:
            payload, keep = handler(json.loads(data))
        except BaseException as e:  # a bug of the adapter's, reported as such
            payload, keep = {"adapter_error": f"{type(e).__name__}: {e}"}, False
        _send(rep_fd, json.dumps({"payload": payload, "keep": bool(keep)}).encode())
        if not keep:
            return


def _send(fd: int, data: bytes) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_message(fd: int, timeout, more_time=None):
    """(one length-prefixed message, or None at end of file; timed out).  At the deadline, `more_time()`
    may give more seconds (0: none)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    buf, need, head = bytearray(), 8, True
    while True:
        if len(buf) >= need:
            if head:
                need = 8 + struct.unpack("<Q", bytes(buf[:8]))[0]
                head = False
                continue
            return bytes(buf[8:need]), False
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                more = more_time() if more_time else 0.0
                if more <= 0:
                    return None, True
                deadline = time.monotonic() + more
                continue
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue        # the deadline is checked (and maybe moved) above
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return None, False
        buf += chunk


def cpu_seconds(pid: int) -> float:
    """CPU time the process has used, its threads and the children it waited for included."""
    return proctree.cpu_seconds([pid], reaped=True)


def _die_with(parent: int) -> None:
    """A hung child must not outlive a worker the harness killed (it would spin forever)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)    # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:                       # the parent died before the line above
        os._exit(1)


def _read_all(fd: int, timeout: float):
    chunks, deadline = [], time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"", True
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)


# The least a kernel call is given before it counts as hung: measured over the shipped corpus on the 2-core
# machine with two pypto workers running (benchmarks/README.md), the slowest call that returned took 0.21 s
# (p99.9 0.20 s, median 0.037 s); a hang never returns.  1 s is five times the slowest pass.
FLOOR_S = 1.0


class HangLimit:
    """How much CPU time a kernel call may use before it counts as hung.

    Some keys make pypto 0.2.0 loop forever (a tensor key: Tensor.__setitem__ iterates the
    index tensor, whose __getitem__ never raises IndexError); every second of the limit costs
    32 corpus cases a second each.  A call using 25x the CPU time of the recent typical one (at
    least FLOOR_S, at most `ceiling` s) is taken as hung: the floor is measured.  CPU time, not
    wall time (KeptChild.call): a sudden rise in the machine's load slows a call's clock but not
    the work it does, so load alone never turns a slow pass into a timeout; a call that uses no
    CPU time and never returns is stopped after the limit's worth of wall time without progress, and
    any call at WALL_S (below the pool's 30 s case timeout, which would cost the worker).
    """

    WALL_S = 20.0

    def __init__(self, floor: float = FLOOR_S, ceiling: float = 10.0, factor: float = 25.0, window: int = 50):
        self.floor, self.ceiling, self.factor, self.window = floor, ceiling, factor, window
        self._recent: list = []

    def seconds(self) -> float:
        if not self._recent:
            return self.ceiling
        typical = sorted(self._recent)[len(self._recent) // 2]
        return min(self.ceiling, max(self.floor, self.factor * typical))

    def record(self, seconds: float) -> None:
        self._recent = (self._recent + [seconds])[-self.window:]
