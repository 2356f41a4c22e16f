"""Running an adapter: in a persistent worker process (default) or in this process (debugging).

Both handles offer the same interface: `name`, `version`, `execution`,
`available`, `reason`, `ops`, `run(case, timeout=None) -> Outcome`,
`native_api(op, case)`, `repro(case)`, `close()`; `python`, `python_version` and `numpy` say
which interpreter runs the adapter (adapters.environments chooses it) and its NumPy.

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

from collections import deque
from dataclasses import dataclass
from typing import Optional

from . import wire
from .base import CRASHED, RAISED, TIMED_OUT, Outcome
from .environments import is_this_interpreter
from .registry import AdapterError
from .worker import interpreter, read_capped

DEFAULT_CASE_TIMEOUT = 60.0
# A worker whose resident memory passes this is killed and its case recorded as a crash, so a leaking
# candidate cannot take the machine.  Resident, not address space: mindspore maps ~10 GB it never uses.
RSS_LIMIT_MB = int(os.environ.get("CONFORM_WORKER_RSS_MB", "8192"))
RSS_POLL_S = 0.25
START_TIMEOUT = 300.0           # pypto may build its calculator on first start
PIPE_BUDGET = 48 << 10         # request bytes allowed in flight: under a pipe's 64 KiB, so writes never block
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def open_handle(spec: str, in_process: bool = False, case_timeout=None, memory_mb: int = 0, python=None):
    """`python`: the interpreter of the worker (None: this one); in-process needs this one."""
    if in_process:
        if not is_this_interpreter(python):
            raise AdapterError(f"adapter {spec!r} cannot run in-process: it is set to run under {python}")
        return InProcessHandle(spec)
    return WorkerHandle(spec, case_timeout=case_timeout, memory_mb=memory_mb, python=python)


def probe(spec: str, python=None, timeout: float = 120.0) -> dict:
    """The hello of `spec` under `python` without starting a worker or its framework (adapters.worker
    --probe): name, version, available, reason, python, numpy.  Raises AdapterError when it gives none."""
    import json
    python = python or sys.executable
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(_worker_path(python)))
    cmd = [python, "-m", "adapters.worker", spec, "--probe"]
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=tempfile.gettempdir(), start_new_session=True)
    except OSError as e:
        raise AdapterError(f"adapter {spec!r}: cannot run {python}: {e.strerror or e}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)     # not reaped yet, so the group is still the probe's
        proc.communicate()
        raise AdapterError(f"adapter {spec!r}: no answer from {python} within {timeout:g} s") from None
    lines = out.decode("utf-8", "replace").strip().splitlines()
    try:
        msg = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = err.decode("utf-8", "replace").strip()[-2000:]
        raise AdapterError(f"adapter {spec!r} cannot be loaded under {python} (exit status "
                           f"{proc.returncode})" + (f"\n{tail}" if tail else "")) from None
    if msg.get("type") != "hello":
        raise AdapterError(f"adapter {spec!r} cannot be loaded under {python}: {msg.get('message', msg)}")
    return msg


def header_entry(h) -> dict:
    """What the results header records of an open handle (docs/RESULTS.md)."""
    return {"name": h.name, "version": h.version, "execution": h.execution, "available": h.available,
            "reason": h.reason, "spec": h.spec, "python": h.python, "python_version": h.python_version,
            "numpy": h.numpy}


class InProcessHandle:
    """The adapter in this process: no isolation and no timeout; a crash takes the harness down."""

    isolated = False

    def __init__(self, spec: str):
        from .registry import load
        self.spec = spec
        self._queue = deque()
        self.adapter = load(spec)
        ok, reason = self.adapter.available()
        self.available, self.reason = bool(ok), reason or ""
        self.name = self.adapter.name
        self.execution = f"{self.adapter.execution}, in-process"
        self.ops = tuple(self.adapter.ops)
        self.case_timeout = self.adapter.case_timeout
        self.version = ""
        self.python, self.python_version, self.numpy = interpreter()
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

    def __init__(self, spec: str, case_timeout=None, memory_mb: int = 0, python=None):
        self.spec, self.memory_mb = spec, memory_mb
        self._python = python or sys.executable
        self.proc = None
        self.restarts = 0
        self._desc = (None, "", "")       # (case id, native_api, repro) of the last describe()
        self._queue = deque()             # _Items sent or waiting to be sent, oldest first
        self._ready = deque()             # outcomes read early (while waiting for a repro), in order
        self._last_reply = 0.0
        _sweep_orphans()
        self._cwd = tempfile.mkdtemp(prefix=f"conform-worker-{os.getpid()}-")
        try:
            hello = self._start()
        except BaseException:
            shutil.rmtree(self._cwd, ignore_errors=True)
            raise
        self.name = hello["name"]
        self.version = hello["version"]
        self.available, self.reason = hello["available"], hello["reason"]
        self.execution = f"{hello['execution']}, in a worker process"
        self.ops = tuple(hello["ops"])
        self.case_timeout = float(case_timeout or hello.get("case_timeout") or DEFAULT_CASE_TIMEOUT)
        # the interpreter as the worker itself reports it
        self.python, self.python_version, self.numpy = (str(hello.get(k, ""))
                                                        for k in ("python", "python_version", "numpy"))

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
        env["PYTHONPATH"] = os.pathsep.join(_worker_path(self._python))
        env.setdefault("PYTHONFAULTHANDLER", "1")
        # Tells an adapter its fd 2 is already captured per case (a crash report then survives).
        env["CONFORM_WORKER"] = "1"
        # Marks every process the candidate starts, so _stop finds daemons that left the session too.
        env[_MARK] = self._cwd
        cmd = [self._python, "-m", "adapters.worker", self.spec, "--rfd", str(to_w), "--wfd", str(from_w)]
        if self.memory_mb:
            cmd += ["--memory-mb", str(self.memory_mb)]
        try:
            self.proc = subprocess.Popen(cmd, pass_fds=(to_w, from_w), stdin=subprocess.DEVNULL,
                                         stdout=self._err, stderr=self._err, cwd=self._cwd, env=env,
                                         start_new_session=True)
        except OSError as e:        # no such interpreter, not executable, not a program
            self._wfd, self._rfd = from_c, to_c
            self._stop()
            raise AdapterError(f"adapter {self.spec!r} failed to start: cannot run {self._python}: "
                               f"{e.strerror or e}") from None
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
            under = "" if is_this_interpreter(self._python) else f" under {self._python}"
            raise AdapterError(f"adapter {self.spec!r} failed to start{under}: {why}" + (f"\n{tail}" if tail else ""))
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
            _kill_marked(f"{_MARK}={self._cwd}".encode())
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
            # Poll even when the time is up: a reply may have arrived while another worker was awaited.
            left = max(0.0, deadline - time.monotonic())
            try:
                ready, _, _ = select.select([self._rfd], [], [], min(left, RSS_POLL_S))
            except InterruptedError:
                continue
            if ready:
                break
            rss = _rss_mb(self.proc.pid) if self.proc is not None else 0
            if rss > RSS_LIMIT_MB:
                self._over_memory = (rss, self._stderr())
                self._stop()
                return None
            if left <= 0:
                raise TimeoutError
        try:
            head, arrays = wire.recv(self._rfd)
        except wire.WireError as e:
            # Not an end of file: a live worker wrote something that is no message (the candidate wrote on the pipe).
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
        self._queue.append(_Item("run", wire.encode(*wire.case_to_msg(case)), float(timeout or self.case_timeout)))
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
        while the worker blocks on a full reply pipe."""
        in_flight = sum(len(i.data) for i in self._queue if i.sent_at is not None)
        for item in self._queue:
            if item.sent_at is not None:
                continue
            if in_flight and in_flight + len(item.data) > PIPE_BUDGET:
                return
            if not in_flight:
                self._ensure()      # nothing in flight: a dead worker can be replaced without losing a reply
            try:
                _write_all(self._wfd, item.data)
            except BrokenPipeError:
                return              # the worker died: _next_reply sees it, blames the head, resends the rest
            item.sent_at = time.monotonic()
            in_flight += len(item.data)

    def _next_reply(self):
        """(item, Outcome or repro dict or None) for the head of the queue."""
        item = self._queue[0]
        if item.sent_at is None:
            self._pump()
        started = max(item.sent_at or time.monotonic(), self._last_reply)
        try:
            reply = self._recv(max(0.0, started + item.limit - time.monotonic()))
        except TimeoutError:
            stderr = self._stderr()
            self._stop()
            result = Outcome(TIMED_OUT, seconds=item.limit, stderr=stderr,
                             message=f"no answer within {item.limit:g} s; worker killed")
            return self._lost(item, result)
        if reply is None:
            return self._lost(item, self._crashed())
        self._queue.popleft()
        self._last_reply = time.monotonic()
        self._pump()
        if item.kind == "repro":
            return item, reply
        outcome = wire.outcome_from_msg(reply, reply.pop("_arrays"))
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
        garbled, self._garbled = getattr(self, "_garbled", ""), ""
        over, self._over_memory = getattr(self, "_over_memory", None), None
        if over:
            return Outcome(CRASHED, signal=signal.SIGKILL, stderr=over[1],
                           message=f"worker killed: resident memory {over[0]} MB passed the limit of "
                                   f"{RSS_LIMIT_MB} MB (CONFORM_WORKER_RSS_MB)")
        if garbled and self.proc is not None and not _exited(self.proc.pid, 0.2):
            self._stop()            # alive: the harness kills it, which is no signal of the candidate's
            return Outcome(CRASHED, signal=None, stderr=stderr,
                           message=f"the worker broke the protocol ({garbled[:200]}); worker killed")
        if self.proc is not None:
            _exited(self.proc.pid, 5.0)     # EOF came first; let the exit status arrive
        rc = self._stop()
        if rc is not None and rc < 0:
            sig = -rc
            return Outcome(CRASHED, signal=sig, stderr=stderr,
                           message=f"worker killed by signal {sig} ({_signame(sig)})")
        return Outcome(CRASHED, signal=None, stderr=stderr, message=f"worker exited with status {rc}")

    def _stderr(self) -> str:
        return read_capped(self._err) if self._err is not None else ""

    def _describe(self, case):
        if self._desc[0] != case.id:
            head, arrays = wire.case_to_msg(case)
            head["type"] = "repro"
            mine = _Item("repro", wire.encode(head, arrays), self.case_timeout)
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
                self._desc = (case.id, case.op, generic_repro(case, case.op))
            else:
                self._desc = (case.id, result["native_api"], result["repro"])
        return self._desc

    def native_api(self, op, case=None) -> str:
        return self._describe(case)[1] if case is not None else op

    def repro(self, case) -> str:
        return self._describe(case)[2]


@dataclass
class _Item:
    kind: str                       # "run" | "repro"
    data: bytes                     # the encoded request
    limit: float                    # seconds the worker gets once it starts on it
    sent_at: Optional[float] = None


def _worker_path(python) -> list:
    """PYTHONPATH for a worker: this checkout first, so the worker side imports from it.

    Under this interpreter the worker sees every module this process sees, so module:Class specs
    resolve the same way.  Under another one, only the folders that belong to no installation (the
    working directory, PYTHONPATH, a vendor's checkout): this environment's site-packages and standard
    library would shadow the other's own (its NumPy, its Python version's modules)."""
    paths = [_REPO_ROOT, os.getcwd()]
    same = is_this_interpreter(python)
    for p in sys.path:
        if p and (same or not _installed(os.path.abspath(p))):
            paths.append(os.path.abspath(p))
    return list(dict.fromkeys(paths))


def _installed(path) -> bool:
    import site
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    try:
        roots.add(site.getusersitepackages())
    except AttributeError:      # a site module without user site-packages (embedded Pythons)
        pass
    parts = path.split(os.sep)
    return ("site-packages" in parts or "dist-packages" in parts
            or any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots if r))


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


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


_MARK = "CONFORM_WORKER_MARK"


def _kill_marked(marker: bytes) -> None:
    """SIGKILL every process whose environment holds `marker`: what a candidate started and left
    behind in a session of its own (setsid, double fork), out of reach of the process-group kill."""
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError:         # no /proc: the process-group kill is all there is
        return
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if marker in env:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "unknown"


def _rss_mb(pid) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
    except (OSError, ValueError, IndexError):
        return 0        # gone, or no /proc: nothing to watch


_swept = False


def _sweep_orphans():
    """Remove the worker folders of harnesses that died without cleaning up (SIGKILL, power loss).

    A folder is named after the harness's pid; one whose harness is gone belongs to nobody."""
    global _swept
    if _swept or not os.path.isdir("/proc/self"):     # no /proc: no way to tell the dead from the living
        return
    _swept = True
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        parts = name.split("-")
        if len(parts) >= 4 and name.startswith("conform-worker-") and parts[2].isdigit():
            pid = int(parts[2])
            if pid != os.getpid() and not os.path.exists(f"/proc/{pid}"):
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)
