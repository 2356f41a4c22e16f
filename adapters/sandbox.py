"""What a worker may touch: its files, its environment, its limits, its capabilities.  Standard library
only (the keeper imports it before anything else, and runs no candidate code).

Files: where bubblewrap (`bwrap`, Debian's package bubblewrap) is installed and can start, every worker runs
under it (mode "bubblewrap"): the whole file system read-only, but for the worker's own scratch folder
(its working directory and TMPDIR) and the folders listed in CONFORM_WORKER_WRITABLE; a fresh, read-only
/dev with a 64 MiB /dev/shm; its own
network (a loopback) and pid namespace (its own /proc); no Unix sockets but socketpair() (seccomp); no
capabilities, so nothing the candidate does can mount, remount or unmount its way back, or raise a hard
limit.  Its uid is the harness's: it reads what the harness reads (interpreters, frameworks, caches), and
writes only its scratch folder.  Where bubblewrap is missing or cannot start (no user namespaces), or
CONFORM_SANDBOX=off, workers run without it (mode "none", and why, in the results header's `execution`):
the candidate can then write whatever the harness's user can.

A worker's environment is the harness's reduced to an allow-list (ENV_NAMES, ENV_PREFIXES, and the names
the user lists in CONFORM_WORKER_ENV): what an interpreter and a framework need to start, never the
harness's tokens, keys and passwords.  docs/CERTIFY.md ("Isolation and limits") lists the same.

A limit set in the worker is only a limit if the candidate cannot lift it again: a hard rlimit can be
raised by a process that holds CAP_SYS_RESOURCE, which a worker of a harness run as root holds.  So the
worker gives that capability up (and can never get it back, the bounding set included) before the
candidate's module is imported.
"""
from __future__ import annotations

import ctypes
import os

# Variables a worker gets from the harness's environment, by exact name and by prefix.
ENV_NAMES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH",
             "TC_CACHE_DIR")        # TC_CACHE_DIR: where pypto's calculator is built (adapters.pypto_runtime)
ENV_PREFIXES = ("LC_", "PYTHON", "CONFORM_", "XDG_", "OMP_", "MKL_", "OPENBLAS_", "KMP_", "CUDA_",
                "TORCH_", "TORCHINDUCTOR_", "GLOG_", "MS_", "MINDSPORE_", "PYPTO_", "TILE_FWK_")
EXTRA_ENV = "CONFORM_WORKER_ENV"    # more names to pass, comma-separated (a vendor's framework: JAX_PLATFORMS)


def worker_environment(environ) -> dict:
    """The variables of `environ` a worker may see."""
    extra = {n.strip() for n in environ.get(EXTRA_ENV, "").split(",") if n.strip()}
    return {k: v for k, v in environ.items()
            if k in ENV_NAMES or k in extra or k.startswith(ENV_PREFIXES)}


SANDBOX_ENV = "CONFORM_SANDBOX"              # "off": run workers without bubblewrap (debugging a framework)
WRITABLE_ENV = "CONFORM_WORKER_WRITABLE"     # more folders a sandboxed worker may write, os.pathsep-separated
# A pid namespace (with its own /proc): the candidate can neither see nor signal a process outside its tree,
# the harness included (same uid: without it, kill() would be allowed).  Its /dev is read-only but for a
# /dev/shm of SHM_BYTES (a tmpfs is memory: the watchdog counts what the worker holds there, and this caps
# what it could leave behind); System V IPC of its own (--unshare-ipc: what it made goes with it).
SHM_BYTES = 64 << 20
_BWRAP_FLAGS = ("--unshare-user", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
                "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--remount-ro", "/dev",
                "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--proc", "/proc")
_mode = None


def mode() -> tuple:
    """(mode, why): ("bubblewrap", path of bwrap) or ("none", why not), decided once per harness process."""
    global _mode
    if _mode is None:
        _mode = _find_mode()
    return _mode


def _find_mode() -> tuple:
    import shutil
    import subprocess
    if os.environ.get(SANDBOX_ENV, "").strip().lower() == "off":
        return "none", f"{SANDBOX_ENV}=off"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "none", "bubblewrap (bwrap) is not installed"
    # The very command line the workers get: a kernel without user namespaces or seccomp refuses it.
    cmd = with_seccomp([bwrap, *_BWRAP_FLAGS, "--"])
    fds = tuple(int(cmd[i + 1]) for i, a in enumerate(cmd) if a == "--seccomp")
    try:
        r = subprocess.run([*cmd, "/bin/true"], capture_output=True, text=True, timeout=30, pass_fds=fds)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "none", f"bubblewrap cannot start: {e}"
    finally:
        for fd in fds:
            os.close(fd)
    if r.returncode != 0:
        return "none", f"bubblewrap cannot start here: {r.stderr.strip()[:300]}"
    return "bubblewrap", bwrap


def describe() -> str:
    """The mode in words, for the `execution` of every worker's adapter (the results header)."""
    name, why = mode()
    return "sandboxed by bubblewrap" if name == "bubblewrap" else f"not sandboxed: {why}"


def bwrap_prefix(scratch: str, workdir: str, environ, writable=(), readable=()) -> list:
    """The bwrap command line (up to `--`) a worker is started under, writable `scratch` and the folders of
    `writable` (the harness's choice: adapters/compile_cache.py), cwd `workdir`."""
    name, bwrap = mode()
    assert name == "bubblewrap", "bwrap_prefix without bubblewrap"
    tmp = private_tmp(scratch, readable)
    cmd = [bwrap, *_BWRAP_FLAGS, *tmp, *masked_suite(), "--bind", scratch, scratch]
    for folder in (*(os.path.abspath(w) for w in writable if os.path.isdir(w)), *writable_folders(environ)):
        cmd += ["--bind", folder, folder]
    if tmp:     # read-only, once the folders bound into it have their mount points (not recursive: they stay writable)
        cmd += ["--remount-ro", tmp[1]]
    return cmd + ["--chdir", workdir, "--"]



def writable_folders(environ) -> list:
    """The existing folders CONFORM_WORKER_WRITABLE names, absolute."""
    return [os.path.abspath(f.strip()) for f in environ.get(WRITABLE_ENV, "").split(os.pathsep)
            if f.strip() and os.path.isdir(f.strip())]


# The suite's judge, corpus, expectations and certificate code: no worker needs them (the worker side is
# contract/, adapters/ and the oracle's decoders), and a candidate must not answer from them.
SUITE_FOLDERS = ("suites", "reports", "conform")


def masked_suite() -> list:
    """bwrap arguments that put an empty, read-only folder over each of SUITE_FOLDERS, the checkout's and an
    installed copy's (found without importing them)."""
    import sys
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folders = {os.path.join(here, name) for name in SUITE_FOLDERS}
    for name in SUITE_FOLDERS:
        # every copy a worker could import: on its path, and where an import hook (an editable install's
        # finder) would take it
        folders.update(os.path.join(p, name) for p in sys.path if p and os.path.isfile(os.path.join(p, name, "__init__.py")))
        for finder in sys.meta_path:
            try:
                spec = finder.find_spec(name, None)
            except Exception:       # noqa: BLE001 - a finder that cannot answer hides nothing
                continue
            folders.update(os.path.abspath(p) for p in ((spec and spec.submodule_search_locations) or ()))
    out = []
    for folder in sorted(f for f in folders if os.path.isdir(f)):
        out += ["--tmpfs", folder, "--remount-ro", folder]
    return out


def private_tmp(scratch: str, readable=()) -> list:
    """bwrap arguments that give the worker a temporary folder of its own: an empty tmpfs over the harness's
    (where the scratch folder, other workers' folders and conform verify's own lie: what a candidate could
    tell certify from verify by), the scratch folder then bound back at its path, and read-only again what
    the worker imports from there (a checkout or a module folder on its path)."""
    import sys
    import tempfile
    roots = {os.path.realpath(tempfile.gettempdir()), "/tmp"}
    root = next((r for r in sorted(roots) if os.path.realpath(scratch).startswith(r.rstrip("/") + "/")), None)
    if root is None:
        return []
    out = ["--tmpfs", root]
    wanted = [os.getcwd(), *sys.path, *os.environ.get("PYTHONPATH", "").split(os.pathsep), sys.prefix, *readable]
    for p in dict.fromkeys(os.path.realpath(p) for p in wanted if p):
        if p.startswith(root.rstrip("/") + "/") and os.path.exists(p):
            out += ["--ro-bind", p, p]
    return out


# seccomp (classic BPF), given to bwrap with --seccomp: socket(AF_UNIX, ...) fails with EACCES.  A read-only
# mount does not stop a connect() to a Unix socket on it (a tmux server's, a container runtime's): a path-bound
# socket needs socket(AF_UNIX) first; socketpair() stays allowed.  shmget() fails with EACCES too: a System V
# segment outlives every process that attached it, held by no descriptor and no mapping the memory watchdog
# could count (proctree.memory_mb); memfds and /dev/shm files are counted instead.  A system call of another
# ABI than the native one (x32, i386's socketcall) fails whatever it is.
_AUDIT_ARCH = {"x86_64": (0xC000003E, 41, 29), "aarch64": (0xC00000B7, 198, 194)}   # (arch, socket, shmget)
_X32_BIT = 0x40000000
_AF_UNIX = 1
_EACCES = 13


def seccomp_program(machine=None) -> bytes:
    """The filter as bwrap reads it (struct sock_filter[], native byte order); b"" on another machine."""
    import platform
    import struct
    arch, nr_socket, nr_shmget = _AUDIT_ARCH.get(machine or platform.machine(), (None, None, None))
    if arch is None:
        return b""
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | _EACCES      # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EACCES
    # a jump's offsets (true, false) count the instructions skipped after it
    prog = [(ld, 0, 0, 4),                  # 0: A = arch
            (jeq, 0, 7, arch),              # 1: another ABI: deny
            (ld, 0, 0, 0),                  # 2: A = nr
            (jge, 5, 0, _X32_BIT),          # 3: x32: deny
            (jeq, 4, 0, nr_shmget),         # 4: shmget(): deny
            (jeq, 0, 2, nr_socket),         # 5: not socket(): allow
            (ld, 0, 0, 16),                 # 6: A = args[0] (low 32 bits)
            (jeq, 1, 0, _AF_UNIX),          # 7: AF_UNIX: deny
            (ret, 0, 0, allow),             # 8
            (ret, 0, 0, deny)]              # 9
    return b"".join(struct.pack("=HBBI", *ins) for ins in prog)


def with_seccomp(wrap: list) -> list:
    """`wrap` (a bwrap command line ending in `--`) with the seccomp filter on an inherited pipe."""
    program = seccomp_program()
    if not program:
        return wrap
    r, w = os.pipe()
    os.write(w, program)            # ~72 bytes: far under a pipe's buffer
    os.close(w)
    os.set_inheritable(r, True)
    return [*wrap[:-1], "--seccomp", str(r), "--"]


def exit_status_of_bwrap(code: int):
    """bwrap exits 128+N when the worker died by signal N: the signal, or None for an ordinary exit."""
    return code - 128 if 128 < code < 128 + 65 else None


CAP_SYS_RESOURCE = 24
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capability(cap: int) -> bool:
    """Remove `cap` from this process's effective, permitted, inheritable and bounding sets (and clear the
    ambient set), so neither this process nor anything it executes holds it again.  True when it is gone
    (or was never held); False where libc cannot be reached (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)          # EPERM without CAP_SETPCAP: then it was never ours
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    head, data = _CapHeader(_CAP_VERSION_3, 0), (_CapData * 2)()
    if libc.capget(ctypes.byref(head), data) != 0:
        return False
    word, bit = divmod(cap, 32)
    mask = ~(1 << bit) & 0xFFFFFFFF
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[word], field, getattr(data[word], field) & mask)
    if libc.capset(ctypes.byref(head), data) != 0:
        return False
    return not holds(cap)


def holds(cap: int) -> bool:
    """Whether this process's effective set holds `cap` (from /proc/self/status; False without /proc)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> cap & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def harden_limit(resource_id: int, cap: int) -> None:
    """Set the soft and the hard limit of `resource_id` to at most `cap`, for good: CAP_SYS_RESOURCE is
    dropped first, without which no process can raise a hard limit again."""
    import resource
    drop_capability(CAP_SYS_RESOURCE)
    hard = resource.getrlimit(resource_id)[1]
    cap = cap if hard == resource.RLIM_INFINITY else min(cap, hard)
    resource.setrlimit(resource_id, (cap, cap))
