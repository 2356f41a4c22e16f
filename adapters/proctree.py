"""A worker's process tree, read from /proc: find it, measure it, kill it.  Standard library only
(the keeper imports it before anything else).

A worker is a subreaper (adapters.keeper), so whatever the candidate starts stays in the tree under
it, whatever it does to its session, process group or environment: the tree is the whole truth of
what the candidate left running, and the only handle on it that a candidate cannot shed.
"""
from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, value: int) -> bool:
    """prctl(2) through libc; False where there is none (not Linux)."""
    try:
        f = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    return f(option, value, 0, 0, 0) == 0


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when the thread that started it ends (Linux only)."""
    parent = os.getppid()
    # Reparented meanwhile: the parent died before the call.  (Not "the parent is pid 1": a sandboxed worker's
    # parent is its pid namespace's init.)
    if prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL)) and os.getppid() != parent:
        os._exit(1)


# Some kernels are built without CONFIG_PROC_CHILDREN: then every process's parent is read instead.
_CHILDREN_FILES = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def children(pid: int) -> list:
    """Direct children of `pid` (every thread's), [] when it is gone."""
    if not _CHILDREN_FILES:
        return _children_by_scan(pid)
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return out


def _children_by_scan(pid: int) -> list:
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:         # no /proc at all: nothing can be found
        return out
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
    return out


def descendants(pid: int) -> list:
    """Every process below `pid`, parents before their children."""
    out, todo, seen = [], [pid], {pid}
    while todo:
        for c in children(todo.pop()):
            if c not in seen:
                seen.add(c)
                out.append(c)
                todo.append(c)
    return out


def kill_all(pids) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def runnable(pids) -> bool:
    """Whether a thread of these processes is running or waiting for a core (state R): a process tree that
    computes, however many others share the cores, and not one asleep (S) or in the kernel (D)."""
    for p in pids:
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split(None, 1)[0] == "R":
                        return True
            except (OSError, IndexError):
                continue
    return False


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids, reaped: bool = False) -> float:
    """CPU time (user and system, every thread) these processes have used together; with `reaped`, that of
    their children they waited for too.  A process gone, or /proc that cannot say, counts 0."""
    ticks = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            ticks += sum(int(x) for x in fields[11:15 if reaped else 13])    # utime stime [cutime cstime]
        except (OSError, IndexError, ValueError):
            continue
    return ticks / _TICK


# Memory that is no process's own resident memory: shared memory objects (memfds, /dev/shm files, System V
# segments, shared anonymous maps) live as long as a descriptor or a mapping holds them, resident or not.
_SHARED = ("/memfd:", "/dev/shm/", "/SYSV", "/dev/zero")


def memory_mb(pids) -> int:
    """The memory these processes hold together, in MB: each one's private resident memory (anonymous and
    file-backed) and, once each, every shared memory object one of them holds by a descriptor or a mapping,
    at its allocated size (a memfd written and held, even by a mapping never touched, is memory the machine
    gives up).  Without /proc: 0."""
    kb = 0
    shared = {}
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith(("RssAnon:", "RssFile:")):
                        kb += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
        _shared_by_descriptor(p, shared)
        _shared_by_mapping(p, shared)
    return (kb << 10) + sum(shared.values()) >> 20


def _shared_by_descriptor(pid, found) -> None:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return
    for fd in fds:
        where = f"/proc/{pid}/fd/{fd}"
        try:
            if os.readlink(where).startswith(_SHARED):
                st = os.stat(where)
                found[(st.st_dev, st.st_ino)] = st.st_blocks * 512
        except OSError:
            continue


def _shared_by_mapping(pid, found) -> None:
    try:
        with open(f"/proc/{pid}/maps") as f:
            lines = [ln for ln in f if "/memfd:" in ln or "/dev/shm/" in ln or "/SYSV" in ln or "/dev/zero" in ln]
    except OSError:
        return
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) < 6 or not fields[5].startswith(_SHARED):
            continue
        try:
            key = (fields[3], int(fields[4]))
        except ValueError:
            continue
        try:        # the object's whole allocated size (needs CAP_SYS_ADMIN, as a harness run as root holds)
            st = os.stat(f"/proc/{pid}/map_files/{fields[0]}")
            found[(st.st_dev, st.st_ino)] = st.st_blocks * 512
        except OSError:     # at least what is mapped
            lo, _, hi = fields[0].partition("-")
            found.setdefault(key, int(hi, 16) - int(lo, 16))
