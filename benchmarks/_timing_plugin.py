"""pytest plugin for bench_explore.py: CPU and wall seconds of each test's call phase, one line per test.

CPU time (this process only) keeps the figures steady on a machine other jobs
share; the adapter under test runs in-process so its work is counted too.
"""
import time

import pytest

_TIMES = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    cpu, wall = time.process_time(), time.perf_counter()
    yield
    _TIMES.append((item.nodeid, time.process_time() - cpu, time.perf_counter() - wall))


def pytest_terminal_summary(terminalreporter):
    for nodeid, cpu, wall in _TIMES:
        terminalreporter.write_line(f"bench-timing {nodeid} {cpu:.6f} {wall:.6f}")
