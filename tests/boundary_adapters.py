"""Candidates that go for the trust boundary itself (issue 38): the processes the harness starts outside the
sandbox, and memory the resident-memory watchdog would not see.  Loaded by workers as
`boundary_adapters:Class`; each is an honest clip (bad_adapters.GoodClip) that attacks on one case label.
"""
from __future__ import annotations

import os
import signal
import sys
import time

from bad_adapters import GoodClip

MARK_ENV = "CONFORM_TEST_MARK"      # a file outside the sandbox the planted code writes when it runs
PLANTED = "conform-planted"         # what a restarted worker finds of what the last one left in its folders


def _plant(folder: str, mark: str) -> list:
    """Packages named like the harness's own, with code that writes `mark` (outside the sandbox) when
    imported; returns where they went."""
    code = (f"import os\n"
            f"with open({mark!r}, 'a') as f:\n"
            f"    f.write('planted code ran in pid %d\\n' % os.getpid())\n")
    done = []
    for package in ("adapters", "contract", "encodings_conform"):
        where = os.path.join(folder, package)
        try:
            os.makedirs(where, exist_ok=True)
            with open(os.path.join(where, "__init__.py"), "w") as f:
                f.write(code)
            for module in ("keeper.py", "worker.py", "proctree.py", "sandbox.py"):
                with open(os.path.join(where, module), "w") as f:
                    f.write(code)
            done.append(where)
        except OSError:
            pass
    for name in ("sitecustomize.py", "usercustomize.py", "numpy.py"):
        try:
            with open(os.path.join(folder, name), "w") as f:
                f.write(code)
            done.append(os.path.join(folder, name))
        except OSError:
            pass
    return done


class Planter(GoodClip):
    """On "plant": writes Python packages named `adapters` (and more) into every folder it may write (its
    working directory, its TMPDIR and the folder above), then forces a restart of its worker (label
    "plant-crash": SIGSEGV; "plant-memory": a correct answer whose error classes include MemoryError,
    which makes the pool recycle the worker).  On "look": says on stderr whether anything it planted is
    still in its folders."""
    name = "planter"

    def run(self, case):
        if case.label.startswith("plant"):
            mark = os.environ[MARK_ENV]
            here = os.getcwd()
            tmp = os.environ.get("TMPDIR", here)
            planted = []
            for folder in dict.fromkeys([here, tmp, os.path.dirname(here)]):
                planted += _plant(folder, mark)
            with open(os.path.join(here, PLANTED), "w") as f:
                f.write("\n".join(planted))
            sys.stderr.write(f"planted {len(planted)}\n")
            sys.stderr.flush()
            if case.label == "plant-crash":
                os.kill(os.getpid(), signal.SIGSEGV)
                time.sleep(5)
            if case.label == "plant-memory":
                raise MemoryError("a quiet way to a new worker")
        if case.label == "look":
            left = [n for n in (PLANTED, "adapters", "sitecustomize.py") if os.path.lexists(n)]
            left += [n for n in ("adapters",) if os.path.lexists(os.path.join(os.environ.get("TMPDIR", "."), n))]
            sys.stderr.write(f"left over: {left}\n")
        return super().run(case)


MEMFD_ENV = "CONFORM_TEST_MEMFD_MB"


class MemfdHoarder(GoodClip):
    """Holds CONFORM_TEST_MEMFD_MB of memory that no process has resident: in memfds ("memfd"), in a memfd
    mapped and closed but never touched ("memfd-mapped"), or in a System V segment detached from
    every process ("sysv"); then sleeps, so a watchdog that counts it kills the worker."""
    name = "memfdhoarder"

    def run(self, case):
        mb = int(os.environ.get(MEMFD_ENV, "900"))
        if case.label.startswith("memfd"):
            import mmap
            chunk = b"\1" * (1 << 20)
            keep = []
            for i in range(mb // 100):       # several files of 100 MB, written (so allocated) through write()
                fd = os.memfd_create(f"hoard{i}")
                for _ in range(100):
                    os.write(fd, chunk)
                if case.label == "memfd-mapped":
                    keep.append(mmap.mmap(fd, 4096))    # keeps the file alive; its pages are never touched
                    os.close(fd)
                else:
                    keep.append(fd)
            sys.stderr.write(f"holding {mb} MB in memfds\n")
            sys.stderr.flush()
            time.sleep(8)
        if case.label == "sysv":
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.shmat.restype = ctypes.c_void_p
            shmid = libc.shmget(0, ctypes.c_size_t(mb << 20), 0o1600)     # IPC_PRIVATE, IPC_CREAT | 0600
            if shmid < 0:
                sys.stderr.write(f"refused shmget: {os.strerror(ctypes.get_errno())}\n")
            else:
                addr = libc.shmat(shmid, None, 0)
                ctypes.memset(addr, 1, mb << 20)
                libc.shmdt(ctypes.c_void_p(addr))
                sys.stderr.write(f"holding {mb} MB in a detached System V segment\n")
                sys.stderr.flush()
                time.sleep(8)
        return super().run(case)


SLOW_START_ENV = "CONFORM_TEST_SLOW_START"     # a file: once it exists, every start of the worker takes 60 s


class SlowToRestart(GoodClip):
    """Starts at once the first time; once the test has made the file CONFORM_TEST_SLOW_START, every new worker's
    setup() takes 60 s.  Case "crash" kills its worker (SIGSEGV)."""
    name = "slowtorestart"

    def setup(self):
        if os.path.exists(os.environ.get(SLOW_START_ENV, "/nonexistent")):
            time.sleep(60)

    def run(self, case):
        if case.label == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        return super().run(case)
