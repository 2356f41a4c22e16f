"""Running an adapter: in a persistent worker process (default) or in this process (debugging).

Both handles offer the same interface: `name`, `version`, `execution`,
`available`, `reason`, `ops`, `run(case, timeout=None) -> Outcome`,
`submit(case)` / `collect()`, `native_api(op, case)`, `repro(case)`,
`abort()`, `close()`.  `probe(spec)` asks a worker about an adapter without
importing it here: the candidate's code runs in workers only.  A worker runs
under the interpreter it is given (`python`: adapters.environments chooses it,
e.g. .venv-mindspore for mindspore); its hello says which, and its NumPy.

The worker handle restarts the worker lazily after a crash or a timeout, turns
a death by signal into a CRASHED outcome carrying the signal and a hang into
TIMED_OUT, and attaches what the worker wrote to stderr during each case.  It
trusts nothing the worker sends: every reply names the case it answers and is
checked against it, every read has a deadline, a malformed reply is a CRASHED
outcome saying what was wrong, and the worker runs under a keeper
(adapters.keeper) whose exit shows the worker's death at once and takes every
process the candidate started with it.  The keeper runs the worker under the
sandbox adapters.sandbox chooses (bubblewrap: read-only files but its scratch
folder, no network, its own pid namespace), with an allow-listed environment,
and a reply's arrays are counted from its header before any is read
(wire.MAX_REPLY_BYTES).
"""
from __future__ import annotations

import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from collections import deque
from dataclasses import dataclass
from typing import Optional, Protocol

from contract.vocabulary import name_problem

from . import compile_cache, folders, proctree, sandbox, threads, wire
from .base import CRASHED, RAISED, TIMED_OUT, Outcome, clean_text
from .environments import is_this_interpreter
from .registry import AdapterError, AdapterInfo, load, resolve
from . import settings

DEFAULT_CASE_TIMEOUT = 60.0
# The most an adapter's own case_timeout is taken for: a candidate that declares 1e12 s would hold a run for
# ever on one hang.  An explicit --case-timeout (the user's, not the candidate's) is taken as given.
MAX_ADAPTER_TIMEOUT = 600.0
# A worker whose memory (resident, and the shared memory it holds: proctree.memory_mb) passes this is killed
# and its case recorded as a crash, so a leaking candidate cannot take the machine.  Resident, not address
# space: mindspore maps ~10 GB it never uses.
RSS_LIMIT_MB = settings.WORKER_RSS_MB
RSS_POLL_S = 0.25
START_TIMEOUT = 300.0           # pypto may build its calculator on first start
# A worker started again (after a crash, a timeout, a recycle) has the case timeout to say hello, not
# START_TIMEOUT: a candidate that crashes and then starts slowly would otherwise cost minutes per case.  Never
# under RESTART_FLOOR_S, nor under twice what its first start took (paddle declares 5 s cases and takes ~4 s to
# import on a loaded machine), so an honest worker's start is not taken for a hang.
RESTART_FLOOR_S = 5.0
INDUCTOR_CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
PROBE_TIMEOUT = 60.0            # a probe runs import, available() and version() only
PIPE_BUDGET = 48 << 10         # request bytes allowed in flight: under a pipe's 64 KiB, so writes never block
FRAME_GRACE_S = 1.0            # a reply that began before its case's deadline gets this long to finish
BYE_WAIT_S = 5.0               # an idle worker's time to exit after "bye"
KEEPER_WAIT_S = 2.0            # the keeper's time to exit once its worker is killed
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Handle(Protocol):
    """What the run session uses of an adapter, in a worker or in this process."""

    spec: str
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


def open_handle(spec: str, in_process: bool = False, case_timeout=None, memory_mb: int = 0,
                python: Optional[str] = None) -> Handle:
    if in_process:
        return InProcessHandle(spec)
    return WorkerHandle(spec, case_timeout=case_timeout, memory_mb=memory_mb, python=python or sys.executable)


class InProcessHandle:
    """The adapter in this process: no isolation and no timeout; a crash takes the harness down."""

    isolated = False

    def __init__(self, spec: str):
        self.spec = spec
        self._queue = deque()
        self.adapter = load(spec)
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


class Aborted(RuntimeError):
    """The handle was aborted (Ctrl-C): its worker is dead and none is started again."""


class WorkerHandle:
    """One persistent worker process for one adapter spec.

    `probe=True`: the worker only says hello (setup() is not called) and exits; see probe().
    `start_timeout`: seconds the worker has to say hello (default START_TIMEOUT; PROBE_TIMEOUT for a probe);
    a worker started again gets restart_timeout() instead.
    """

    isolated = True

    def __init__(self, spec: str, case_timeout=None, memory_mb: int = 0, python: str = sys.executable,
                 *, probe: bool = False, start_timeout=None):
        self.spec, self.memory_mb, self.python = spec, memory_mb, python
        self.probe_only = probe
        self.start_timeout = start_timeout or (PROBE_TIMEOUT if probe else START_TIMEOUT)
        self.proc = None
        self.restarts = 0
        self.restart_s = 0.0         # seconds spent starting a worker again after one died (a crash, a timeout)
        self._pidfd = self._wfd = self._rfd = self._err = None
        self._lock = threading.Lock()     # abort() may kill the worker from another thread
        self._aborted = False
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
        self.looks = [0, 0]
        _sweep_orphans()
        # The handle's folder, read-only to the candidate: the keeper starts here (never in a folder the candidate
        # may write: it runs outside the sandbox, and `python -m` puts its working directory on the import path),
        # and the worker's scratch folder (self._scratch, its TMPDIR, with its working directory work/) lies in it.
        self._cwd = tempfile.mkdtemp(prefix=f"conform-worker-{os.getpid()}-")
        self._scratch = os.path.join(self._cwd, "scratch")
        # its own compile-cache folder, kept between runs, checked against its seal before any worker uses it
        self._cache = compile_cache.folder(self.spec, os.environ)
        self.cache_note = compile_cache.claim(self._cache) if self._cache else ""
        if self.cache_note:
            print(f"conform: note: {self.cache_note}", file=sys.stderr)
        began = time.monotonic()
        try:
            hello = self._start()
        except BaseException:
            shutil.rmtree(self._cwd, ignore_errors=True)
            self._release_cache()
            raise
        self.hello = hello
        self.first_start_s = time.monotonic() - began
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
        self.case_timeout = float(case_timeout or adapter_timeout(hello.get("case_timeout")))

    @property
    def info(self) -> AdapterInfo:
        """What the worker said of its adapter (conform adapters, the results header)."""
        h = self.hello
        return AdapterInfo(h["name"], self.spec, h["version"], h["available"], h["reason"], ops=tuple(h["ops"]),
                           execution=h["execution"], python=h["python"], python_version=h["python_version"],
                           numpy=h["numpy"], excludes=tuple(h.get("excludes", ())), crashes=tuple(h.get("crashes", ())),
                           constructions=tuple(h.get("constructions", ())), layouts=tuple(h.get("layouts", ())))

    # ---- process management -------------------------------------------------------------
    def restart_timeout(self) -> float:
        """Seconds a worker started again has to say hello: the case timeout (the user's --case-timeout, else
        the adapter's), at least RESTART_FLOOR_S and twice the first start's time, at most the first start's
        limit."""
        return min(self.start_timeout, max(self.case_timeout, RESTART_FLOOR_S, 2 * self.first_start_s))

    def _start(self, limit=None) -> dict:
        if self._aborted:
            raise Aborted(f"adapter {self.spec!r}: the run was interrupted")
        # Every worker starts with its folders empty: nothing a crashed or recycled worker left there reaches it.
        work = os.path.join(self._scratch, "work")      # under the scratch folder: a candidate may remove it
        _ensure_folder(self._cwd)
        _empty_folder(self._scratch)
        _ensure_folder(work)
        if (problem := compile_cache.writable_problem(os.environ)):     # probes too, not only a run's workers
            err = AdapterError(f"adapter {self.spec!r}: {problem}")
            err.reason = problem
            raise err
        cache = self._cache     # its own, kept between runs; none for the rest
        writable = (self._scratch, *sandbox.writable_folders(os.environ), *([cache] if cache else []))
        import_path = _worker_path(self.python)
        _refuse_writable_imports(self.spec, import_path, writable)
        to_w, from_c = os.pipe()
        to_c, from_w = os.pipe()
        fd, path = tempfile.mkstemp(prefix="stderr-", dir=self._cwd)
        os.close(fd)
        # O_APPEND: after the client truncates the file, the worker's writes land at offset 0 again.
        self._err = os.open(path, os.O_RDWR | os.O_APPEND)
        os.unlink(path)
        env = threads.apply(sandbox.worker_environment(os.environ))     # one core each: one thread each
        # torch sets TORCHINDUCTOR_CACHE_DIR in the process that first compiles (a pytest process that ran
        # torch.compile in-process: /tmp/torchinductor_<user>); a worker may write no such folder, so it gets
        # the variable only where it may write, and inductor otherwise defaults under its own TMPDIR
        where = env.get(INDUCTOR_CACHE_ENV, "")
        if where and not any(_inside(where, w) for w in writable):
            del env[INDUCTOR_CACHE_ENV]
        env["PYTHONPATH"] = os.pathsep.join(import_path)
        env.setdefault("PYTHONFAULTHANDLER", "1")
        # Tells an adapter its fd 2 is already captured per case (a crash report then survives).
        env["CONFORM_WORKER"] = "1"
        env["TMPDIR"] = self._scratch       # the one folder (with its work/) a sandboxed worker may write
        env.pop(compile_cache.ENV, None)
        env.pop(compile_cache.FOLDER_ENV, None)
        if cache:
            env[compile_cache.FOLDER_ENV] = cache
        # The keeper forks the worker with these arguments and takes down whatever it leaves behind.  Safe path
        # mode (-P, Python 3.11+) besides the read-only working directory: nothing but PYTHONPATH and the
        # installation is on its import path.
        cmd = [self.python, *_safe_path_flag(self.python), "-m", "adapters.keeper", "--harness", str(os.getpid()),
               "--chdir", work]
        if sandbox.mode()[0] == "bubblewrap":
            # what the worker runs and imports, where it lies under the /tmp the worker gets a private one of
            interpreter = os.path.abspath(self.python)
            readable = (os.path.dirname(os.path.dirname(interpreter)),
                        os.path.dirname(os.path.dirname(os.path.realpath(interpreter))), *import_path)
            cmd += ["--wrap", json.dumps(sandbox.bwrap_prefix(self._scratch, work, os.environ, readable=readable,
                                                                      writable=(cache,) if cache else ()))]
        cmd += [self.spec, "--rfd", str(to_w), "--wfd", str(from_w)]
        if self.memory_mb:
            cmd += ["--memory-mb", str(self.memory_mb)]
        if self.probe_only:
            cmd.append("--probe")
        self._wfd, self._rfd = from_c, to_c
        try:
            self.proc = subprocess.Popen(cmd, pass_fds=(to_w, from_w), stdin=subprocess.DEVNULL,
                                         stdout=self._err, stderr=self._err, cwd=self._cwd, env=env,
                                         start_new_session=True)
        except OSError as e:        # no such interpreter (python=...), or no process to be had
            self._stop()
            err = AdapterError(f"adapter {self.spec!r} failed to start: cannot run {self.python}: {e}")
            err.reason = f"cannot run {self.python}: {e}"
            raise err from None
        finally:
            os.close(to_w)
            os.close(from_w)
        os.set_blocking(self._wfd, False)       # a worker that stops reading cannot block the harness
        self._pidfd = _pidfd(self.proc.pid)
        limit = limit or self.start_timeout
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
            under = "" if is_this_interpreter(self.python) else f" under {self.python}"
            err = AdapterError(f"adapter {self.spec!r} failed to start{under}: {why}" + (f"\n{tail}" if tail else ""))
            err.reason = why
            raise err
        for k in ("name", "version", "reason", "execution"):
            head[k] = clean_text(head[k], 4000)
        for k in ("ops", "constructions", "layouts"):
            head[k] = [clean_text(o, 100) for o in head.get(k, [])]
        for k in ("excludes", "crashes"):
            head[k] = [clean_text(x, 4096) for x in head.get(k, [])[:256]]
        if self._aborted:       # aborted while it started (another thread): it must not run a case
            self._stop()
            raise Aborted(f"adapter {self.spec!r}: the run was interrupted")
        return head

    def _kill_now(self):
        """SIGKILL the worker's whole tree; the keeper then exits (reaped later by _stop)."""
        with self._lock:
            if self.proc is not None and self.proc.returncode is None:
                _kill_tree(self.proc.pid)

    def _stop(self):
        """Kill the worker and everything it started, close the pipes; the keeper's return code (None: none)."""
        rc = None
        with self._lock:
            proc, self.proc = self.proc, None
            if proc is not None:
                if proc.returncode is None:     # alive or unreaped: its pid cannot have been reused
                    _kill_tree(proc.pid)
                try:
                    rc = proc.wait(KEEPER_WAIT_S)
                except subprocess.TimeoutExpired:       # the keeper itself is stuck (stopped?)
                    proctree.kill_all(proctree.descendants(proc.pid))
                    _killpg(proc.pid)
                    rc = proc.wait()
        for fd in ("_pidfd", "_wfd", "_rfd", "_err"):
            if getattr(self, fd, None) is not None:
                os.close(getattr(self, fd))
                setattr(self, fd, None)
        self._why, self._garbled = None, ""      # about that worker only
        return rc

    def _ensure(self):
        if self.proc is None or _exited(self.proc.pid, 0):
            began = time.monotonic()
            self._stop()
            self._start(self.restart_timeout())
            self._answered = 0
            self.restarts += 1
            self.restart_s += time.monotonic() - began

    def abort(self):
        """Stop now, from any thread (Ctrl-C): kill the worker's tree; a call waiting on it returns,
        and no worker is started again (the next request raises Aborted)."""
        self._aborted = True
        self._kill_now()

    def close(self):
        busy = any(i.sent_at is not None for i in self._queue)
        if self.proc is not None and self.proc.returncode is None and not (busy or self._aborted or self.probe_only):
            try:        # an idle worker leaves cleanly; a busy one (Ctrl-C mid-case) is killed at once
                _write_all(self._wfd, wire.encode({"type": "bye"}), time.monotonic() + 1.0)
                _exited(self.proc.pid, BYE_WAIT_S)
            except (OSError, TimeoutError):
                pass
        self._stop()
        shutil.rmtree(self._cwd, ignore_errors=True)
        self._release_cache()

    def _release_cache(self):
        if self._cache:
            compile_cache.release(self._cache)
            self._cache = ""

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ---- one request ----------------------------------------------------------------------
    def _recv(self, deadline):
        """The next message, or None if the worker died or sent something that is no message
        (self._garbled says what); raises TimeoutError if none came by `deadline`."""
        watch = [self._rfd] + ([self._pidfd] if self._pidfd is not None else [])
        poll = RSS_POLL_S if self._pidfd is not None else 0.05
        while True:
            # Poll even when the time is up: a reply may have arrived while another worker was awaited.
            left = max(0.0, deadline - time.monotonic())
            try:
                ready, _, _ = select.select(watch, [], [], min(left, poll))
            except InterruptedError:
                continue
            if self._rfd in ready:
                break
            if self._pidfd in ready or (self._pidfd is None and _exited(self.proc.pid, 0)):
                # The keeper exited, so the worker and all it started are gone (whoever held the pipe):
                # only a reply finished before the end can still be read.
                if select.select([self._rfd], [], [], 0)[0]:
                    break
                return None
            tree = [self.proc.pid, *proctree.descendants(self.proc.pid)]
            rss = proctree.memory_mb(tree)
            self.looks[0] += 1
            self.looks[1] += proctree.runnable(tree)
            if rss > RSS_LIMIT_MB:
                self._why = (signal.SIGKILL, f"worker killed: resident memory and shared memory held, {rss} MB, of its process tree "
                                             f"passed the limit of {RSS_LIMIT_MB} MB (CONFORM_WORKER_RSS_MB)")
                self._kill_now()
                return None
            if left <= 0:
                raise TimeoutError
        try:
            head, arrays = wire.recv(self._rfd, deadline=max(deadline, time.monotonic() + FRAME_GRACE_S),
                                     max_bytes=wire.MAX_REPLY_BYTES)
        except wire.OverCap as e:      # refused before a byte of its arrays was read
            self._why = (None, f"the worker's reply was refused: {e}; worker killed")
            self._kill_now()
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
            if self._aborted:
                raise Aborted(f"adapter {self.spec!r}: the run was interrupted")
            if not in_flight:
                try:        # nothing in flight: a dead worker can be replaced without losing a reply
                    self._ensure()
                except AdapterError as e:
                    self._start_failure = str(e)
                    return
            try:
                _write_all(self._wfd, item.data, time.monotonic() + item.limit)
            except BrokenPipeError:
                return              # the worker died: _next_reply sees it, blames the head, resends the rest
            except TimeoutError:
                self._why = (None, "the worker stopped reading its requests; worker killed")
                self._kill_now()
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
        if why is None and garbled and self.proc is not None and not _exited(self.proc.pid, 0.2):
            # alive: the harness kills it, which is no signal of the candidate's
            why = (None, f"the worker broke the protocol ({garbled[:300]}); worker killed")
        if why is not None:
            self._stop()
            return Outcome(CRASHED, signal=why[0], stderr=stderr, message=why[1])
        if self.proc is not None:
            _exited(self.proc.pid, 5.0)     # EOF came first; let the exit status arrive
        rc = self._stop()
        if rc is not None and rc < 0:
            sig = -rc
            return Outcome(CRASHED, signal=sig, stderr=stderr,
                           message=f"worker killed by signal {sig} ({_signame(sig)})")
        return Outcome(CRASHED, signal=None, stderr=stderr, message=f"worker exited with status {rc}")

    def _stderr(self) -> str:
        return wire.read_capped(self._err) if self._err is not None else ""

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


def probe(spec: str, python: str = None, timeout: float = PROBE_TIMEOUT) -> AdapterInfo:
    """What a worker says about an adapter: AdapterInfo(name, spec, version, available, reason, ops,
    execution, python, python_version, numpy), the candidate's module imported and its available() and
    version() called in the worker only, never in this process.  setup() is not called.

    `python`: the interpreter to start the worker with (default: this one).  Never raises for an
    adapter that is unknown, fails to import, breaks or hangs: it is then unavailable, with the reason.
    The name is the spec for a registered name, the adapter's own name for module:Class.
    What the adapter is (its files and packages, for a certificate) is not asked of it: the harness
    measures that from the spec (adapters.identity.measure).
    """
    try:
        target = resolve(spec)
    except AdapterError as e:
        return AdapterInfo(spec, spec, "", False, str(e))
    try:
        h = WorkerHandle(spec, python=python or sys.executable, probe=True, start_timeout=timeout)
    except AdapterError as e:
        return AdapterInfo(spec, target, "", False, getattr(e, "reason", "") or str(e))
    try:
        info = h.info
    finally:
        h.close()
    info.spec = target
    if ":" not in spec:
        info.name = spec
    if not info.available:
        info.version = ""
    return info


def adapter_timeout(own) -> float:
    """The per-case timeout an adapter gets from its own case_timeout (None: the default), at most
    MAX_ADAPTER_TIMEOUT."""
    return min(float(own or DEFAULT_CASE_TIMEOUT), MAX_ADAPTER_TIMEOUT)


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


def _worker_path(python) -> list:
    """PYTHONPATH for a worker: this checkout first, so the worker side imports from it.

    Under this interpreter the worker sees every module this process sees, so module:Class specs
    resolve the same way.  Under another one (adapters.environments), only the folders that belong to
    no installation (the working directory, PYTHONPATH, a vendor's checkout): this environment's
    site-packages and standard library would shadow the other's own (its NumPy, its Python's modules)."""
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


def _pidfd(pid):
    """A descriptor that becomes readable when `pid` exits (Linux 5.3+), or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _kill_tree(keeper: int) -> None:
    # The worker and all below it; the keeper, their subreaper, reaps them, kills stragglers and exits.
    below = proctree.descendants(keeper)
    proctree.kill_all(below)
    if not below:       # nothing to wait for (or no /proc to see it with): end the keeper itself
        _killpg(keeper)


def _killpg(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _empty_folder(path):
    """`path` made an empty folder of mode 0700, whatever a candidate left in it or in its place."""
    if os.path.isdir(path) and not os.path.islink(path):
        left = folders.empty(path)
        if left:
            raise AdapterError(f"cannot empty the worker's scratch folder {path}: {left[:3]} remain")
    _ensure_folder(path)


def _safe_path_flag(python) -> list:
    """["-P"] where `python` has safe path mode (3.11+): `-m` then puts no working directory on sys.path."""
    if is_this_interpreter(python):
        return ["-P"] if sys.version_info >= (3, 11) else []
    return _safe_path_of(python)


@functools.lru_cache(maxsize=None)
def _safe_path_of(python) -> list:
    try:
        r = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 11))"], capture_output=True,
                           text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL, cwd="/")
    except (OSError, subprocess.SubprocessError):
        return []
    return ["-P"] if r.stdout.strip() == "True" else []


def _refuse_writable_imports(spec, path, writable) -> None:
    """The keeper runs outside the sandbox with PYTHONPATH `path`: no entry may lie in a folder the candidate
    may write, nor such a folder lie in an entry where an import could reach it (a package path of
    identifiers: ~/.cache in the entry ~ is no module name), or the candidate could plant code the next keeper
    imports."""
    for folder in writable:
        for entry in path:
            inside = _inside(entry, folder)
            below = _inside(folder, entry) and all(
                part.isidentifier() for part in os.path.relpath(os.path.realpath(folder), os.path.realpath(entry))
                .split(os.sep) if part != ".")
            if inside or below:
                err = AdapterError(
                    f"adapter {spec!r}: the worker may write {folder} ({sandbox.WRITABLE_ENV} or its compile "
                    f"cache), which {'holds' if inside else 'an import can reach from'} the import path entry "
                    f"{entry}: code planted there would run outside the sandbox; take one off the other")
                err.reason = f"the import path entry {entry} and the writable folder {folder} overlap"
                raise err


def _inside(path, folder) -> bool:
    """Whether `path` is `folder` or lies in it, links resolved."""
    folder = os.path.realpath(folder)
    return os.path.commonpath([os.path.realpath(path), folder]) == folder


def _ensure_folder(path):
    """The worker's scratch folder, made anew if a candidate removed it or put something in its place."""
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
        os.unlink(path)
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "unknown"


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
                path = os.path.join(root, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:       # a candidate put a file or a link in its folder's place
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
