"""Run one pypto kernel call in a forked child of the (already set-up) worker.

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
import select
import signal
import time
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass
class ChildResult:
    payload: Optional[dict] = None      # what fn() returned (JSON-able), when the child finished
    signal: Optional[int] = None        # the child died by this signal
    exit_status: Optional[int] = None   # the child exited without an answer, with this status
    timed_out: bool = False


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
    """How long a kernel call may take before it counts as hung.

    Some keys make pypto 0.2.0 loop forever (a tensor key: Tensor.__setitem__ iterates the
    index tensor, whose __getitem__ never raises IndexError); every second of the limit costs
    32 corpus cases a second each.  A call 25x slower than the recent typical one (at least
    FLOOR_S, at most `ceiling` s) is taken as hung: the floor is measured, and the factor
    follows the machine's load (a loaded machine slows every call, so the limit rises with it).
    """

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
