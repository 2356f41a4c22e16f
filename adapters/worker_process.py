"""A worker's process: its start (folders, sandbox, environment, compile cache), its death and its stop.

One WorkerProcess per worker handle (adapters/pool.py), which pairs it with its channel (adapters/channel.py:
the wire, deadlines and the queue of requests).  This module starts and kills processes and owns the pipes'
descriptors; it never reads or writes a message.

The keeper (adapters.keeper) runs the worker under the sandbox adapters.sandbox chooses (bubblewrap:
read-only files but its scratch folder, no network, its own pid namespace), with an allow-listed
environment, and its exit shows the worker's death at once and takes every process the candidate started
with it.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import compile_cache, folders, proctree, sandbox, threads
from .environments import is_this_interpreter
from .registry import AdapterError

START_TIMEOUT = 300.0           # pypto may build its calculator on first start
PROBE_TIMEOUT = 60.0            # a probe runs import, available() and version() only
# A worker started again (after a crash, a timeout, a recycle) has the case timeout to say hello, not
# START_TIMEOUT: a candidate that crashes and then starts slowly would otherwise cost minutes per case.  Never
# under RESTART_FLOOR_S, nor under twice what its first start took (paddle declares 5 s cases and takes ~4 s to
# import on a loaded machine), so an honest worker's start is not taken for a hang.
RESTART_FLOOR_S = 5.0
INDUCTOR_CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
KEEPER_WAIT_S = 2.0            # the keeper's time to exit once its worker is killed
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Aborted(RuntimeError):
    """The handle was aborted (Ctrl-C): its worker is dead and none is started again."""


class WorkerProcess:
    """The process side of one worker of one adapter target: `spawn()` starts it (the pipes `rfd`/`wfd`, its
    stderr file `err`, `pidfd` that becomes readable when it exits), `kill_now()` and `stop()` end it,
    `close()` removes its folders.  `abort()` (any thread) kills it and refuses every later start."""

    def __init__(self, target: str, python: str = sys.executable, memory_mb: int = 0, *, probe: bool = False,
                 start_timeout=None):
        self.target, self.memory_mb, self.python = target, memory_mb, python
        self.probe_only = probe
        self.start_timeout = start_timeout or (PROBE_TIMEOUT if probe else START_TIMEOUT)
        self.proc = None
        self.pidfd = self.wfd = self.rfd = self.err = None
        self.restarts = 0
        self.restart_s = 0.0         # seconds spent starting a worker again after one died (a crash, a timeout)
        self.first_start_s = 0.0
        self._lock = threading.Lock()     # abort() may kill the worker from another thread
        self.aborted = False
        _sweep_orphans()
        # The handle's folder, read-only to the candidate: the keeper starts here (never in a folder the candidate
        # may write: it runs outside the sandbox, and `python -m` puts its working directory on the import path),
        # and the worker's scratch folder (self.scratch, its TMPDIR, with its working directory work/) lies in it.
        self.cwd = tempfile.mkdtemp(prefix=f"conform-worker-{os.getpid()}-")
        self.scratch = os.path.join(self.cwd, "scratch")
        # its own compile-cache folder, kept between runs, checked against its seal before any worker uses it
        self.cache = compile_cache.folder(self.target, os.environ)
        self.cache_note = compile_cache.claim(self.cache) if self.cache else ""
        if self.cache_note:
            print(f"conform: note: {self.cache_note}", file=sys.stderr)

    def restart_timeout(self, case_timeout: float) -> float:
        """Seconds a worker started again has to say hello: the case timeout (the user's --case-timeout, else
        the adapter's), at least RESTART_FLOOR_S and twice the first start's time, at most the first start's
        limit."""
        return min(self.start_timeout, max(case_timeout, RESTART_FLOOR_S, 2 * self.first_start_s))

    def check_not_aborted(self) -> None:
        if self.aborted:
            raise Aborted(f"adapter {self.target!r}: the run was interrupted")

    def spawn(self) -> None:
        """Start the keeper and its worker, with empty folders, under the sandbox; AdapterError if it cannot."""
        self.check_not_aborted()
        # Every worker starts with its folders empty: nothing a crashed or recycled worker left there reaches it.
        work = os.path.join(self.scratch, "work")      # under the scratch folder: a candidate may remove it
        _ensure_folder(self.cwd)
        _empty_folder(self.scratch)
        _ensure_folder(work)
        if (problem := compile_cache.writable_problem(os.environ)):     # probes too, not only a run's workers
            err = AdapterError(f"adapter {self.target!r}: {problem}")
            err.reason = problem
            raise err
        cache = self.cache     # its own, kept between runs; none for the rest
        writable = (self.scratch, *sandbox.writable_folders(os.environ), *([cache] if cache else []))
        import_path = _worker_path(self.python)
        _refuse_writable_imports(self.target, import_path, writable)
        to_w, from_c = os.pipe()
        to_c, from_w = os.pipe()
        fd, path = tempfile.mkstemp(prefix="stderr-", dir=self.cwd)
        os.close(fd)
        # O_APPEND: after the client truncates the file, the worker's writes land at offset 0 again.
        self.err = os.open(path, os.O_RDWR | os.O_APPEND)
        os.unlink(path)
        env = self._environment(import_path, writable)
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
            cmd += ["--wrap", json.dumps(sandbox.bwrap_prefix(self.scratch, work, os.environ, readable=readable,
                                                                      writable=(cache,) if cache else ()))]
        cmd += [self.target, "--rfd", str(to_w), "--wfd", str(from_w)]
        if self.memory_mb:
            cmd += ["--memory-mb", str(self.memory_mb)]
        if self.probe_only:
            cmd.append("--probe")
        self.wfd, self.rfd = from_c, to_c
        try:
            self.proc = subprocess.Popen(cmd, pass_fds=(to_w, from_w), stdin=subprocess.DEVNULL,
                                         stdout=self.err, stderr=self.err, cwd=self.cwd, env=env,
                                         start_new_session=True)
        except OSError as e:        # no such interpreter (python=...), or no process to be had
            self.stop()
            err = AdapterError(f"adapter {self.target!r} failed to start: cannot run {self.python}: {e}")
            err.reason = f"cannot run {self.python}: {e}"
            raise err from None
        finally:
            os.close(to_w)
            os.close(from_w)
        os.set_blocking(self.wfd, False)       # a worker that stops reading cannot block the harness
        self.pidfd = _pidfd(self.proc.pid)

    def _environment(self, import_path, writable) -> dict:
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
        env["TMPDIR"] = self.scratch       # the one folder (with its work/) a sandboxed worker may write
        env.pop(compile_cache.ENV, None)
        env.pop(compile_cache.FOLDER_ENV, None)
        if self.cache:
            env[compile_cache.FOLDER_ENV] = self.cache
        return env

    def alive(self) -> bool:
        return self.proc is not None and not _exited(self.proc.pid, 0)

    def exited(self, timeout: float) -> bool:
        """Whether the worker has exited (waiting up to `timeout`), without reaping it; True if there is none."""
        return self.proc is None or _exited(self.proc.pid, timeout)

    def kill_now(self):
        """SIGKILL the worker's whole tree; the keeper then exits (reaped later by stop)."""
        with self._lock:
            if self.proc is not None and self.proc.returncode is None:
                _kill_tree(self.proc.pid)

    def stop(self):
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
        for fd in ("pidfd", "wfd", "rfd", "err"):
            if getattr(self, fd, None) is not None:
                os.close(getattr(self, fd))
                setattr(self, fd, None)
        return rc

    def abort(self):
        """Stop now, from any thread (Ctrl-C): kill the worker's tree; no worker is started again."""
        self.aborted = True
        self.kill_now()

    def tree(self) -> list:
        """The keeper's pid and every process below it."""
        return [self.proc.pid, *proctree.descendants(self.proc.pid)]

    def close(self):
        """Stop it and remove its folders; its compile cache is released."""
        self.stop()
        shutil.rmtree(self.cwd, ignore_errors=True)
        self.release_cache()

    def release_cache(self):
        if self.cache:
            compile_cache.release(self.cache)
            self.cache = ""


def _worker_path(python) -> list:
    """PYTHONPATH for a worker: this checkout first, so the worker side imports from it.

    Under this interpreter the worker sees every module this process sees, so module:Class targets
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


def _refuse_writable_imports(target, path, writable) -> None:
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
                    f"adapter {target!r}: the worker may write {folder} ({sandbox.WRITABLE_ENV} or its compile "
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
