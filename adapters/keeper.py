"""The worker's keeper: `python -P -m adapters.keeper [--harness PID] [--chdir WORK] [--wrap JSON] SPEC --rfd R --wfd W [worker options]`.

The pool starts this, not the worker itself.  The keeper makes itself a subreaper
(PR_SET_CHILD_SUBREAPER), forks the worker (adapters.worker.main with the same
arguments) and waits.  Whatever the candidate starts then stays in the keeper's
tree: a child that calls setsid, double-forks and clears its environment is
reparented to the keeper, not to init.  When the worker ends, however it ends
(a bye, a segfault, a kill by the pool), the keeper kills every process left in
its tree and exits the way the worker did (the same exit status, or the same
signal), so the pool sees the worker's end at once, from the keeper's exit,
whatever child still holds the protocol pipes.  When the harness process
(--harness) ends, however it ends, the keeper kills the worker and all the rest.

With --wrap (a command line from adapters.sandbox: bubblewrap's), the worker
runs in a fresh interpreter under that command instead of in the keeper's fork.

The keeper imports the standard library only and runs no candidate code.  It runs outside the sandbox, so
it starts in a folder the candidate cannot write, in safe path mode where the interpreter has it (-P); the
worker's working directory (--chdir) is set in the worker alone, and its interpreter too starts in safe path
mode, so a module the candidate left in its folder is never imported in place of the harness's own.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time

from .proctree import PR_SET_CHILD_SUBREAPER, descendants, die_with_parent, kill_all, prctl
from .sandbox import exit_status_of_bwrap, with_seccomp


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    harness = wrap = workdir = None
    if argv[:1] == ["--harness"]:
        harness, argv = int(argv[1]), argv[2:]
    if argv[:1] == ["--chdir"]:
        workdir, argv = argv[1], argv[2:]
    if argv[:1] == ["--wrap"]:      # the sandbox's command line (adapters.sandbox), the worker's put after it
        wrap, argv = json.loads(argv[1]), argv[2:]
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    # Watch the harness *process*: PR_SET_PDEATHSIG fires when the harness *thread* that started the
    # keeper ends (a --jobs thread at the end of a run), which would orphan what the candidate left.
    harness_fd = _pidfd(harness) if harness else None
    if harness_fd is None:
        die_with_parent()
    elif os.getppid() != harness:
        os._exit(1)         # the harness died before we watched it
    # Started from a scheduler slot, which keeps Ctrl-C for the harness's main thread: the worker (and
    # what the candidate starts) gets the signals as any program would.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    worker = os.fork()
    if worker == 0:
        if workdir is not None:
            try:
                os.chdir(workdir)
            except OSError:
                os._exit(1)
        if wrap:
            _exec_worker(wrap, argv)
        os._exit(_run_worker(argv))
    # The keeper holds no protocol pipe: their ends close when the worker's tree is gone.
    for flag in ("--rfd", "--wfd"):
        if flag in argv:
            try:
                os.close(int(argv[argv.index(flag) + 1]))
            except (ValueError, IndexError, OSError):
                pass
    status = _wait_for(worker, harness_fd)
    _kill_the_rest()
    # bwrap tells a death by signal N as exit status 128+N (so a worker's own exit(139) reads as SIGSEGV:
    # the worker itself exits 0, 1 or 3 only)
    if wrap and os.WIFEXITED(status):
        sig = exit_status_of_bwrap(os.WEXITSTATUS(status))
        if sig is not None:
            _exit_by_signal(sig)
    _exit_like(status)


def _exec_worker(wrap, argv) -> None:
    """Become the sandbox, which runs the worker in a fresh interpreter (never returns)."""
    try:
        die_with_parent()
        wrap = with_seccomp(wrap)
        safe = ["-P"] if sys.version_info >= (3, 11) else []
        os.execv(wrap[0], [*wrap, sys.executable, *safe, "-m", "adapters.worker", *argv])
    except BaseException:       # noqa: BLE001 - no sandbox, no worker: say why on the captured stderr
        import traceback
        traceback.print_exc()
    finally:
        os._exit(1)


def _run_worker(argv) -> int:
    try:
        die_with_parent()       # the keeper gone (killed with the harness): the worker goes too
        from .worker import main as worker_main
        return int(worker_main(argv) or 0)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except BaseException:       # noqa: BLE001 - the worker's own failure, reported on its stderr
        import traceback
        traceback.print_exc()
        return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _wait_for(worker: int, harness_fd) -> int:
    """The worker's wait status; orphans reparented here meanwhile are reaped.  The harness gone, the
    worker is killed: nobody is left to read its answers."""
    worker_fd = _pidfd(worker)
    if worker_fd is None or harness_fd is None:
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == worker:
                return status
    import select
    while True:
        ready = select.select([worker_fd, harness_fd], [], [])[0]
        if harness_fd in ready:
            os.kill(worker, signal.SIGKILL)
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == worker:
                return status
            if pid == 0:
                break


def _kill_the_rest() -> None:
    me = os.getpid()
    while True:
        kill_all(descendants(me))
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return          # nothing left below the keeper
        if pid == 0:
            time.sleep(0.002)


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        _exit_by_signal(os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _exit_by_signal(sig: int) -> None:
    import faulthandler
    import resource
    faulthandler.disable()          # the worker's report is the one that counts, not the keeper's
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        signal.signal(sig, signal.SIG_DFL)
    except (OSError, ValueError):
        pass
    os.kill(os.getpid(), sig)
    time.sleep(0.1)
    os._exit(128 + sig)


if __name__ == "__main__":
    main()
