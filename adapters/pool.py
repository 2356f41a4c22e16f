"""Running an adapter: in a persistent worker process (default) or in this process (debugging).

Both handles offer the same interface: `name`, `version`, `execution`,
`available`, `reason`, `ops`, `run(case, timeout=None) -> Outcome`,
`submit(case)` / `collect()`, `native_api(op, case)`, `repro(case)`,
`abort()`, `close()`.  `probe(target)` asks a worker about an adapter without
importing it here: the candidate's code runs in workers only.  A worker runs
under the interpreter it is given (`python`: adapters.environments chooses it,
e.g. .venv-mindspore for mindspore); its hello says which, and its NumPy.

A worker handle is two parts, as pytest-xdist's WorkerController is a gateway
and a channel: its process (adapters/worker_process.py: start, sandbox and
compile cache, kill, stop) and its channel (adapters/channel.py: the wire,
every read's deadline, the queue of requests in flight, the restart of a
worker found dead).  The handle only joins them and says what the hello said.
"""
from __future__ import annotations

import shutil
import sys
import time
from collections import deque
from typing import Optional, Protocol

from . import sandbox
from .base import Outcome
from .channel import Channel
from .registry import AdapterError, AdapterInfo, load, resolve
from .worker_process import (PROBE_TIMEOUT, RESTART_FLOOR_S, START_TIMEOUT, Aborted,  # noqa: F401  (the pool's names)
                             WorkerProcess)

DEFAULT_CASE_TIMEOUT = 60.0
# The most an adapter's own case_timeout is taken for: a candidate that declares 1e12 s would hold a run for
# ever on one hang.  An explicit --case-timeout (the user's, not the candidate's) is taken as given.
MAX_ADAPTER_TIMEOUT = 600.0


class Handle(Protocol):
    """What the run session uses of an adapter, in a worker or in this process."""

    target: str
    name: str
    version: str
    execution: str
    available: bool
    reason: str
    ops: tuple
    constructions: tuple
    case_timeout: float
    isolated: bool

    def run(self, case, timeout=None) -> Outcome: ...
    def submit(self, case, timeout=None) -> None: ...
    def collect(self) -> Outcome: ...
    def native_api(self, op, case=None) -> str: ...
    def repro(self, case) -> str: ...
    def abort(self) -> None: ...
    def close(self) -> None: ...


def open_handle(target: str, in_process: bool = False, case_timeout=None, memory_mb: int = 0,
                python: Optional[str] = None) -> Handle:
    if in_process:
        return InProcessHandle(target)
    return WorkerHandle(target, case_timeout=case_timeout, memory_mb=memory_mb, python=python or sys.executable)


class InProcessHandle:
    """The adapter in this process: no isolation and no timeout; a crash takes the harness down."""

    isolated = False

    def __init__(self, target: str):
        self.target = target
        self._queue = deque()
        self.adapter = load(target)
        ok, reason = self.adapter.available()
        self.available, self.reason = bool(ok), reason or ""
        self.name = self.adapter.name
        self.execution = f"{self.adapter.execution}, in-process"
        self.ops = tuple(self.adapter.ops)
        self.constructions = tuple(self.adapter.constructions)
        self.layouts = tuple(getattr(self.adapter, "layouts", ()))
        self.excludes = tuple(str(x) for x in self.adapter.excludes)
        self.crashes = tuple(str(x) for x in getattr(self.adapter, "crashes", ()))
        self.case_timeout = adapter_timeout(self.adapter.case_timeout)
        self.version = ""
        if self.available:
            self.adapter.setup()
            from .worker import safe_call
            self.version = safe_call(self.adapter.version)

    def run(self, case, timeout=None) -> Outcome:
        from .worker import call_adapter
        return call_adapter(self.adapter, case, reraise=(KeyboardInterrupt,))

    def submit(self, case, timeout=None) -> None:
        self._queue.append(case)

    def collect(self) -> Outcome:
        return self.run(self._queue.popleft())

    def abort(self):
        """Nothing to stop: an in-process call returns only when the candidate does."""

    def native_api(self, op, case=None) -> str:
        from .worker import safe_call
        return safe_call(self.adapter.native_api, op, case)

    def repro(self, case, expectation=None) -> str:
        from .repro import call_repro
        from .worker import safe_call
        return safe_call(call_repro, self.adapter.repro, case, expectation)

    def close(self):
        pass


class WorkerHandle:
    """One persistent worker process for one adapter target: its process and its channel, joined.

    `probe=True`: the worker only says hello (setup() is not called) and exits; see probe().
    `start_timeout`: seconds the worker has to say hello (default START_TIMEOUT; PROBE_TIMEOUT for a probe);
    a worker started again gets restart_timeout() instead.
    """

    isolated = True

    def __init__(self, target: str, case_timeout=None, memory_mb: int = 0, python: str = sys.executable,
                 *, probe: bool = False, start_timeout=None):
        self.target, self.memory_mb, self.python = target, memory_mb, python
        self.process = WorkerProcess(target, python, memory_mb, probe=probe, start_timeout=start_timeout)
        self.channel = Channel(self.process)
        self.cache_note = self.process.cache_note
        began = time.monotonic()
        try:
            hello = self.channel.start()
        except BaseException:
            shutil.rmtree(self.process.cwd, ignore_errors=True)
            self.process.release_cache()
            raise
        self.process.first_start_s = time.monotonic() - began
        self.hello = hello
        self.name = hello["name"]
        self.version = hello["version"]
        self.available, self.reason = hello["available"], hello["reason"]
        self.execution = f"{hello['execution']}, in a worker process, {sandbox.describe()}"
        self.numpy = hello["numpy"]     # in the worker's interpreter (self.python)
        self.python_version = hello["python_version"]
        self.ops = tuple(hello["ops"])
        self.constructions = tuple(hello.get("constructions", ()))
        self.layouts = tuple(hello.get("layouts", ()))
        self.excludes = tuple(hello.get("excludes", ()))
        self.crashes = tuple(hello.get("crashes", ()))
        self.case_timeout = self.channel.case_timeout = float(case_timeout or adapter_timeout(hello.get("case_timeout")))

    @property
    def info(self) -> AdapterInfo:
        """What the worker said of its adapter (conform adapters, the results header)."""
        h = self.hello
        return AdapterInfo(h["name"], self.target, h["version"], h["available"], h["reason"], ops=tuple(h["ops"]),
                           execution=h["execution"], python=h["python"], python_version=h["python_version"],
                           numpy=h["numpy"], excludes=tuple(h.get("excludes", ())), crashes=tuple(h.get("crashes", ())),
                           constructions=tuple(h.get("constructions", ())), layouts=tuple(h.get("layouts", ())))

    # ---- what the run loop reads of it ------------------------------------------------------------
    proc = property(lambda self: self.process.proc)
    restarts = property(lambda self: self.process.restarts)
    restart_s = property(lambda self: self.process.restart_s)
    first_start_s = property(lambda self: self.process.first_start_s)
    tree_polls = property(lambda self: self.channel.tree_polls)
    _scratch = property(lambda self: self.process.scratch)
    _cwd = property(lambda self: self.process.cwd)

    def restart_timeout(self) -> float:
        return self.process.restart_timeout(self.case_timeout)

    # ---- requests: the channel's ----------------------------------------------------------------
    def run(self, case, timeout=None) -> Outcome:
        """Run one case (nothing else may be in flight)."""
        return self.channel.run(case, timeout)

    def submit(self, case, timeout=None) -> None:
        """Queue a case; collect() returns outcomes in submission order."""
        self.channel.submit(case, timeout)

    def collect(self) -> Outcome:
        return self.channel.collect()

    def native_api(self, op, case=None) -> str:
        return self.channel.native_api(op, case)

    def repro(self, case, expectation=None) -> str:
        return self.channel.repro(case, expectation)

    # ---- its end ----------------------------------------------------------------------------------
    def abort(self):
        """Stop now, from any thread (Ctrl-C): kill the worker's tree; a call waiting on it returns,
        and no worker is started again (the next request raises Aborted)."""
        self.process.abort()

    def close(self):
        self.channel.close()
        self.process.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def probe(target: str, python: str = None, timeout: float = PROBE_TIMEOUT) -> AdapterInfo:
    """What a worker says about an adapter: AdapterInfo(name, target, version, available, reason, ops,
    execution, python, python_version, numpy), the candidate's module imported and its available() and
    version() called in the worker only, never in this process.  setup() is not called.

    `python`: the interpreter to start the worker with (default: this one).  Never raises for an
    adapter that is unknown, fails to import, breaks or hangs: it is then unavailable, with the reason.
    The name is the target for a registered name, the adapter's own name for module:Class.
    What the adapter is (its files and packages, for a certificate) is not asked of it: the harness
    measures that from the target (adapters.identity.measure).
    """
    try:
        class_path = resolve(target)
    except AdapterError as e:
        return AdapterInfo(target, target, "", False, str(e))
    try:
        h = WorkerHandle(target, python=python or sys.executable, probe=True, start_timeout=timeout)
    except AdapterError as e:
        return AdapterInfo(target, class_path, "", False, getattr(e, "reason", "") or str(e))
    try:
        info = h.info
    finally:
        h.close()
    info.class_path = class_path
    if ":" not in target:
        info.name = target
    if not info.available:
        info.version = ""
    return info


def adapter_timeout(own) -> float:
    """The per-case timeout an adapter gets from its own case_timeout (None: the default), at most
    MAX_ADAPTER_TIMEOUT."""
    return min(float(own or DEFAULT_CASE_TIMEOUT), MAX_ADAPTER_TIMEOUT)


