"""pytest plugin for bench_explore.py: CPU and wall seconds of each test's call phase, one line per test.

CPU time keeps the figures steady on a machine other jobs share.  It counts this process and, on Linux,
its live descendants (an adapter's worker process), read from /proc at the start and the end of the call,
so a test that runs its adapter through the worker is charged for the worker's work too.
"""
import os
import time

import pytest

_TIMES = []
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _descendants_cpu() -> float:
    """User + system seconds of the live descendants of this process (0 where /proc is absent)."""
    total, todo, seen = 0.0, [os.getpid()], set()
    while todo:
        pid = todo.pop()
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split() if int(c) not in seen]
        except OSError:
            continue
        if pid == os.getpid():
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / _TICK     # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total


def _cpu() -> float:
    return time.process_time() + _descendants_cpu()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    cpu, wall = _cpu(), time.perf_counter()
    yield
    _TIMES.append((item.nodeid, _cpu() - cpu, time.perf_counter() - wall))


def pytest_terminal_summary(terminalreporter):
    for nodeid, cpu, wall in _TIMES:
        terminalreporter.write_line(f"bench-timing {nodeid} {cpu:.6f} {wall:.6f}")
