"""Running an adapter: in a persistent worker process (default) or in this process (debugging).

Both handles offer the same interface: `name`, `version`, `execution`,
`available`, `reason`, `ops`, `run(case, timeout=None) -> Outcome`,
`native_api(op, case)`, `repro(case)`, `close()`.

The worker handle restarts the worker lazily after a crash or a timeout, turns
a death by signal into a CRASHED outcome carrying the signal and a hang into
TIMED_OUT, and attaches what the worker wrote to stderr during each case.
"""
from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import wire
from .base import CRASHED, TIMED_OUT, Outcome
from .registry import AdapterError

DEFAULT_CASE_TIMEOUT = 60.0
START_TIMEOUT = 300.0           # pypto may build its calculator on first start
STDERR_CAP = 64 << 10
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def open_handle(spec: str, in_process: bool = False, case_timeout=None, memory_mb: int = 0):
    if in_process:
        return InProcessHandle(spec)
    return WorkerHandle(spec, case_timeout=case_timeout, memory_mb=memory_mb)


class InProcessHandle:
    """The adapter in this process: no isolation and no timeout; a crash takes the harness down."""

    isolated = False

    def __init__(self, spec: str):
        from .registry import load
        self.spec = spec
        self.adapter = load(spec)
        ok, reason = self.adapter.available()
        self.available, self.reason = bool(ok), reason or ""
        self.name = self.adapter.name
        self.execution = self.adapter.execution
        self.ops = tuple(self.adapter.ops)
        self.case_timeout = self.adapter.case_timeout
        self.version = ""
        if self.available:
            self.adapter.setup()
            from .worker import safe_call
            self.version = safe_call(self.adapter.version)

    def run(self, case, timeout=None) -> Outcome:
        from .worker import call_adapter
        return call_adapter(self.adapter, case, reraise=(KeyboardInterrupt,))

    def native_api(self, op, case=None) -> str:
        from .worker import safe_call
        return safe_call(self.adapter.native_api, op, case)

    def repro(self, case) -> str:
        from .worker import safe_call
        return safe_call(self.adapter.repro, case)

    def close(self):
        pass


class WorkerHandle:
    """One persistent worker process for one adapter spec."""

    isolated = True

    def __init__(self, spec: str, case_timeout=None, memory_mb: int = 0, python: str = sys.executable):
        self.spec, self.memory_mb, self.python = spec, memory_mb, python
        self.proc = None
        self.restarts = 0
        self._desc = (None, "", "")       # (case id, native_api, repro) of the last describe()
        self._cwd = tempfile.mkdtemp(prefix="conform-worker-")
        hello = self._start()
        self.name = hello["name"]
        self.version = hello["version"]
        self.available, self.reason = hello["available"], hello["reason"]
        self.execution = f"{hello['execution']}, in a worker process"
        self.ops = tuple(hello["ops"])
        self.case_timeout = float(case_timeout or hello.get("case_timeout") or DEFAULT_CASE_TIMEOUT)

    # ---- process management -------------------------------------------------------------
    def _start(self) -> dict:
        to_w, from_c = os.pipe()
        to_c, from_w = os.pipe()
        fd, path = tempfile.mkstemp(prefix="stderr-", dir=self._cwd)
        os.close(fd)
        # O_APPEND: after the client truncates the file, the worker's writes land at offset 0 again.
        self._err = os.open(path, os.O_RDWR | os.O_APPEND)
        os.unlink(path)
        env = dict(os.environ)
        # The worker sees the modules this process sees, so module:Class specs resolve the same way.
        paths = [_REPO_ROOT, os.getcwd(), *[os.path.abspath(p) for p in sys.path if p]]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        env.setdefault("PYTHONFAULTHANDLER", "1")
        cmd = [self.python, "-m", "adapters.worker", self.spec, "--rfd", str(to_w), "--wfd", str(from_w)]
        if self.memory_mb:
            cmd += ["--memory-mb", str(self.memory_mb)]
        try:
            self.proc = subprocess.Popen(cmd, pass_fds=(to_w, from_w), stdin=subprocess.DEVNULL,
                                         stdout=self._err, stderr=self._err, cwd=self._cwd, env=env,
                                         start_new_session=True)
        finally:
            os.close(to_w)
            os.close(from_w)
        self._wfd, self._rfd = from_c, to_c
        try:
            head = self._recv(START_TIMEOUT)
        except TimeoutError:
            head = {"type": "fatal", "message": f"no hello within {START_TIMEOUT:g} s"}
        if head is None or head.get("type") != "hello":
            why = head.get("message") if head else "the worker died or did not answer while starting"
            tail = self._stderr()
            self._stop()
            raise AdapterError(f"adapter {self.spec!r} failed to start: {why}" + (f"\n{tail}" if tail else ""))
        return head

    def _stop(self):
        if self.proc is not None:
            if self.proc.returncode is None:
                # Kill the whole session while the worker is alive or an unreaped zombie (so its id
                # cannot have been reused): children it forked and left behind die with it.
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            rc = self.proc.wait()
            self.proc = None
        else:
            rc = None
        for fd in ("_wfd", "_rfd", "_err"):
            if getattr(self, fd, None) is not None:
                os.close(getattr(self, fd))
                setattr(self, fd, None)
        return rc

    def _ensure(self):
        if self.proc is None or _exited(self.proc.pid, 0):
            self._stop()
            self._start()
            self.restarts += 1

    def close(self):
        if self.proc is not None and self.proc.returncode is None:
            try:
                wire.send(self._wfd, {"type": "bye"})
                _exited(self.proc.pid, 5.0)
            except OSError:
                pass
        self._stop()
        shutil.rmtree(self._cwd, ignore_errors=True)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ---- one request ----------------------------------------------------------------------
    def _recv(self, timeout):
        """The next message, or None if the worker died; raises TimeoutError if none came in time."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            try:
                ready, _, _ = select.select([self._rfd], [], [], left)
            except InterruptedError:
                continue
            if ready:
                break
        try:
            head, arrays = wire.recv(self._rfd)
        except wire.WireError:
            return None
        head["_arrays"] = arrays
        return head

    def _request(self, head, arrays, timeout):
        self._ensure()
        os.ftruncate(self._err, 0)
        try:
            wire.send(self._wfd, head, arrays)
            return self._recv(timeout)
        except BrokenPipeError:
            return None

    def run(self, case, timeout=None) -> Outcome:
        limit = float(timeout or self.case_timeout)
        try:
            reply = self._request(*wire.case_to_msg(case), limit)
        except TimeoutError:
            stderr = self._stderr()
            self._stop()
            return Outcome(TIMED_OUT, seconds=limit, stderr=stderr,
                           message=f"no answer within {limit:g} s; worker killed")
        if reply is None:
            return self._crashed()
        out = wire.outcome_from_msg(reply, reply.pop("_arrays"))
        out.stderr = self._stderr()
        return out

    def _crashed(self) -> Outcome:
        stderr = self._stderr()
        if self.proc is not None:
            _exited(self.proc.pid, 5.0)     # EOF came first; let the exit status arrive
        rc = self._stop()
        if rc is not None and rc < 0:
            sig = -rc
            return Outcome(CRASHED, signal=sig, stderr=stderr,
                           message=f"worker killed by signal {sig} ({_signame(sig)})")
        return Outcome(CRASHED, signal=None, stderr=stderr, message=f"worker exited with status {rc}")

    def _stderr(self) -> str:
        if self._err is None:
            return ""
        size = os.fstat(self._err).st_size
        if size == 0:
            return ""
        if size <= STDERR_CAP:
            raw = os.pread(self._err, size, 0)
        else:
            head, tail = os.pread(self._err, 4096, 0), os.pread(self._err, STDERR_CAP - 4096, size - STDERR_CAP + 4096)
            raw = head + f"\n[... {size - STDERR_CAP} bytes cut ...]\n".encode() + tail
        return raw.decode("utf-8", errors="replace")

    def _describe(self, case):
        if self._desc[0] != case.id:
            head, arrays = wire.case_to_msg(case)
            head["type"] = "repro"
            try:
                reply = self._request(head, arrays, self.case_timeout)
            except TimeoutError:
                self._stop()
                reply = None
            if reply is None:
                self._stop()
                from .repro import generic_repro
                self._desc = (case.id, case.op, generic_repro(case, case.op))
            else:
                self._desc = (case.id, reply["native_api"], reply["repro"])
        return self._desc

    def native_api(self, op, case=None) -> str:
        return self._describe(case)[1] if case is not None else op

    def repro(self, case) -> str:
        return self._describe(case)[2]


def _exited(pid: int, timeout: float) -> bool:
    """Whether the worker has exited (waiting up to `timeout`), without reaping it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                return True
        except ChildProcessError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "unknown"
