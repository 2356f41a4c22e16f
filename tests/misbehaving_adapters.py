"""Real candidates that misbehave beyond crashing and hanging (issue 7), loaded by workers as `misbehaving_adapters:Class`.

Each is an honest clip implementation (bad_adapters.GoodClip: CL-FORMULA) that
also does one thing a real framework does to its process: floods the output
streams, leaks memory, changes the working directory or NumPy's global state,
leaves processes behind (in its group, or escaped into a session of its own),
ignores SIGTERM, writes onto the protocol pipes.  The case label selects the
misbehaviour, so one corpus gives each candidate a bad case and a good one.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

import numpy as np

from adapters.base import RAISED, Outcome
from adapters.oracle_adapter import OracleAdapter

from bad_adapters import GoodClip, clip_case, clip_formula  # noqa: F401 - clip_case re-exported for tests

FLOOD_BYTES = 8 << 20          # per stream: megabytes, far over the 64 KiB the pool keeps per case
PID_DIR_ENV = "CONFORM_TEST_PID_DIR"   # where candidates that leave processes behind record their pids


def _record_pid(pid: int, what: str) -> None:
    """Record `pid` (a process of this one's pid namespace) with that namespace, so the harness's side can
    find it (outer_pid): a sandboxed worker has a pid namespace of its own."""
    d = os.environ.get(PID_DIR_ENV)
    if d:
        with open(os.path.join(d, f"{what}-{pid}"), "w") as f:
            f.write(f"{pid} {os.readlink('/proc/self/ns/pid')}")


def outer_pid(recorded: str):
    """The pid, in this process's namespace, of a process _record_pid recorded; None when it is gone."""
    parts = recorded.split()
    if len(parts) == 1 or parts[1] == os.readlink("/proc/self/ns/pid"):
        return int(parts[0])
    inner, ns = int(parts[0]), parts[1]
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{name}/ns/pid") != ns:
                continue
            with open(f"/proc/{name}/status") as f:
                nspid = next(line for line in f if line.startswith("NSpid:")).split()
            if int(nspid[-1]) == inner:
                return int(name)
        except (OSError, StopIteration, ValueError):
            continue
    return None


def _stay_alive():
    """A left-behind child's body: deaf to SIGTERM, asleep until killed."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(1)


def _fork_child(what, body=_stay_alive) -> None:
    """A child running body (which never returns), its pid recorded as `what`."""
    pid = os.fork()
    if pid == 0:
        body()
    _record_pid(pid, what)


def _fork_escaped(what, body=_stay_alive) -> None:
    """A grandchild out of the worker's session and process group (setsid, double fork) running body (which
    never returns), its pid recorded as `what`."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            body()
        os.write(w, str(grandchild).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    _record_pid(int(os.read(r, 32)), what)
    os.close(r)


class Flooder(GoodClip):
    """Writes megabytes through every path a framework logs by: Python streams, fd 1/2, C stdio."""
    name = "flooder"

    def run(self, case):
        if "flood" in case.label:
            line = b"W" * 1023 + b"\n"
            for _ in range(FLOOD_BYTES // len(line)):
                os.write(1, line)
                sys.stderr.write("E" * 1023 + "\n")
            libc = ctypes.CDLL(None)
            for _ in range(1024):
                libc.printf(b"%s\n", b"C" * 1000)     # buffered by C stdio, never flushed by Python
            os.write(2, b"[ERROR] flood: the reason is at the end\n")
        if "endless" in case.label:
            line = b"F" * 4095 + b"\n"
            while True:                                # until the per-case timeout or the flood cap
                os.write(1, line)
        return super().run(case)


class Leaker(GoodClip):
    """Leaks memory: in one case until the allocation fails, or a little in every case, kept forever."""
    name = "leaker"
    _kept: list = []

    def run(self, case):
        if "leak-all" in case.label:
            hoard = []
            while True:
                hoard.append(np.ones(32 << 20, np.uint8))     # touched: resident, not just reserved
        if "leak-c" in case.label:
            libc = ctypes.CDLL(None)
            libc.malloc.restype = ctypes.c_void_p
            while True:
                p = libc.malloc(64 << 20)
                if not p:       # malloc failed under the limit: a C library would now crash or report
                    raise MemoryError("malloc returned NULL")
                ctypes.memset(p, 1, 64 << 20)
        if "leak-some" in case.label:
            type(self)._kept.append(np.ones(200 << 20, np.uint8))
        return super().run(case)


class GlobalState(GoodClip):
    """Changes process-wide state and leaves it changed: cwd (even into a directory it then removes),
    NumPy's error state and print options, the global RNG, the environment.  Its other cases raise if they
    find the state an earlier case left, so a leak between cases shows as a verdict."""
    name = "globalstate"

    def setup(self):
        self.start = {"cwd": os.getcwd(), "err": np.geterr(), "print": np.get_printoptions()}

    def run(self, case):
        if "mess" in case.label:
            if "deleted" in case.label:
                import shutil
                import tempfile
                d = tempfile.mkdtemp()
                os.chdir(d)
                shutil.rmtree(d)                # the worker's cwd no longer exists
            else:
                os.chdir("/")
            np.seterr(all="raise")
            np.set_printoptions(precision=1, threshold=3)
            np.random.seed(12345)
            os.environ["CONFORM_CANDIDATE_WAS_HERE"] = "1"
            return super().run(case)
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = None
        now = {"cwd": cwd, "err": np.geterr(), "print": np.get_printoptions()}
        leaked = [k for k in now if now[k] != self.start[k]]
        if leaked:
            raise RuntimeError(f"state left by an earlier case: {leaked}")
        return super().run(case)


class Forker(GoodClip):
    """Leaves children behind: one in its own process group, one double-forked into a new session."""
    name = "forker"

    def run(self, case):
        if "fork-group" in case.label:
            _fork_child("group")
        if "fork-session" in case.label:
            _fork_escaped("session")
        if "thread" in case.label:
            # A framework's background thread that keeps printing after run() returned.
            def chatter():
                while True:
                    os.write(2, b"[bg] still here\n")
                    time.sleep(0.001)
            threading.Thread(target=chatter, daemon=True).start()
        return super().run(case)


class Stubborn(GoodClip):
    """Ignores SIGTERM and SIGINT and hangs: only SIGKILL stops it."""
    name = "stubborn"

    def run(self, case):
        if "hang" in case.label:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            while True:
                time.sleep(0.05)
        return super().run(case)


class PipeWriter(GoodClip):
    """Writes garbage onto, or closes, every inherited descriptor it has, the protocol pipes included."""
    name = "pipewriter"

    def run(self, case):
        # Every descriptor the worker holds, however high its number: in a long-lived harness process
        # (a pytest worker) the protocol pipes can sit far above the first few dozen.
        fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd") if int(fd) > 2)
        if "garbage" in case.label:
            for fd in fds:
                try:
                    os.write(fd, b"\xff\xff\xff\xffnot a message")
                except OSError:
                    pass
        if "close" in case.label:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
        return super().run(case)


class SlowOracle(OracleAdapter):
    """The oracle, a few milliseconds per case, so a test can kill a run of a few hundred cases partway."""
    name = "slow-oracle"

    def run(self, case):
        time.sleep(0.004)
        return super().run(case)


# ---- issue 12, section 1: candidates that attack the harness itself ---------------------------

def _reply_fd() -> int:
    """The worker's reply pipe, found the way a hostile candidate would: on the worker's command line."""
    argv = sys.argv
    return int(argv[argv.index("--wfd") + 1])


class BadFields(GoodClip):
    """Returns Outcomes whose fields have the wrong type or hold text that is not valid UTF-8."""
    name = "badfields"

    def run(self, case):
        good = super().run(case)
        label = case.label
        if label == "elapsed-str":
            good.elapsed_s = "fast"
        elif label == "elapsed-nan":
            good.elapsed_s = float("nan")
        elif label == "message-list":
            return Outcome(RAISED, exc_type="ValueError", exc_mro=("ValueError", "Exception"), message=["a", "b"])
        elif label == "mro-int":
            return Outcome(RAISED, exc_type="ValueError", exc_mro=(1, 2), message="m")
        elif label == "kind-bogus":
            good.kind = "splendid"
        elif label == "surrogate":
            raise ValueError("lone surrogate \ud800 in the message")
        elif label == "bytes":
            return Outcome(RAISED, exc_type="ValueError", exc_mro=("ValueError", "Exception"),
                           message=b"invalid utf-8 \xff\xfe here")
        elif label == "native-surrogate":
            good.native_api = "clip\udcff"
        elif label == "stderr-bytes":
            os.write(2, b"[ERROR] invalid utf-8 \xff\xfe on stderr\n")
            return Outcome(RAISED, exc_type="ValueError", exc_mro=("ValueError", "Exception"), message="see stderr")
        elif label == "name-int":
            good.arrays = {0: good.arrays["out"]}
        return good


class WireGarbage(GoodClip):
    """Writes onto the reply pipe itself: a partial frame, stray bytes, a whole reply to another request."""
    name = "wiregarbage"

    def run(self, case):
        fd, label = _reply_fd(), case.label
        if label == "partial":
            os.write(fd, b"\x00\x00\x00\x10{")            # 16 header bytes declared, one sent, then silence
            while True:
                time.sleep(0.05)
        if label == "stray":
            os.write(fd, b"\x00\x00\x10\x00")             # four stray bytes, then the worker's real reply
        if label == "wrong-id":
            from adapters import wire
            out = super().run(case)
            head, arrays = wire.outcome_to_msg(out)
            os.write(fd, wire.encode({**head, "id": "f" * 16}, arrays))
        if label == "wrong-type":
            from adapters import wire
            os.write(fd, wire.encode({"type": "hello", "id": case.id}))
        if label == "shrink-hang":         # the request pipe made too small for what is sent next, then a hang
            import fcntl
            argv = sys.argv
            fcntl.fcntl(int(argv[argv.index("--rfd") + 1]), 1031, 4096)      # F_SETPIPE_SZ
            while True:
                time.sleep(0.05)
        if label.startswith("forged-"):     # a whole reply for this very case, written past the worker's checks
            from adapters import wire
            fields = {"forged-fields": {"kind": "returned", "elapsed_s": "fast"},
                      "forged-surrogate": {"kind": "raised", "exc_type": "ValueError", "exc_mro": ["ValueError"],
                                           "message": "lone \udcff surrogate", "stderr": "\ud800"}}[label]
            os.write(fd, wire.encode({"type": "outcome", "id": case.id, **fields}))
            os._exit(0)         # no second reply: the forged one is all the harness gets
        return super().run(case)


class Orphaner(GoodClip):
    """Leaves processes that hold the protocol pipes, escape the session and clear their environment,
    or eat memory; then crashes or hangs, or returns normally."""
    name = "orphaner"

    def run(self, case):
        label = case.label
        if "holder" in label:          # a forked child keeps the reply pipe open
            _fork_child("holder")
        if "daemon" in label:          # setsid, double fork, exec with an empty environment
            _fork_escaped("daemon", _sleep_with_nothing)
        if "hog" in label:             # a child whose resident memory the worker's own count would miss
            _fork_child("hog", _hoard)
        if "segfault" in label:
            ctypes.string_at(0)
        if "hang" in label:
            while True:
                time.sleep(0.05)
        return super().run(case)


HOG_BYTES = 400 << 20


def _sleep_with_nothing():
    os.closerange(3, 1024)
    os.execve("/bin/sleep", ["sleep", "1000"], {})


def _hoard():
    hoard = np.ones(HOG_BYTES, np.uint8)      # touched: resident  # noqa: F841
    while True:
        time.sleep(1)


class CwdBreaker(GoodClip):
    """Removes the worker's scratch folder (its working directory), or puts a file in its place."""
    name = "cwdbreaker"

    def run(self, case):
        import shutil
        if case.label == "rmtree":
            shutil.rmtree(os.getcwd())
        if case.label == "replace":
            here = os.getcwd()
            shutil.rmtree(here)
            with open(here, "w") as f:
                f.write("not a folder")
        if case.label == "chmod":
            os.chmod(os.getcwd(), 0)
        return super().run(case)


class OtherShapes(GoodClip):
    """Returns outputs of another shape or dtype than documented: ordinary value-mismatches."""
    name = "othershapes"

    def run(self, case):
        out = clip_formula(case)
        x = case.inputs["x"].copy()
        arrays = {"longer": {"out": np.concatenate([out, out])}, "matrix": {"out": np.stack([out, out])},
                  "scalar": {"out": np.asarray(out[0])}, "empty": {"out": out[:0]},
                  "int64": {"out": out.astype(np.int64)}, "x-longer": {"x": np.concatenate([x, x])}}.get(case.label, {})
        return Outcome.returned(**{"out": out, "x": x, **arrays})


class SlowToAnswer(GoodClip):
    """available() never returns: asking about it must still end."""
    name = "slowtoanswer"

    def available(self):
        while True:
            time.sleep(0.05)


class FixedShapes(GoodClip):
    """OtherShapes after its vendor fixed it: the same name, the documented outputs (a diff's base)."""
    name = "othershapes"


# ---- issue 18, point 4: limits the candidate cannot lift, isolation it cannot undo ----------------

HUGE_ARRAY = 1 << 26        # float64 elements: 512 MiB, the most one array on the wire may hold


class Hoarder(GoodClip):
    """Replies with more array bytes than the harness takes: in a well-formed frame written past the
    worker's checks (three 512 MiB arrays, each under the wire's per-array limit), or as a returned Outcome."""
    name = "hoarder"

    def run(self, case):
        if case.label == "huge-frame":
            import json
            metas = [{"name": f"out{i}", "dtype": "float64", "shape": [HUGE_ARRAY]} for i in range(3)]
            head = json.dumps({"type": "outcome", "id": case.id, "kind": "returned", "arrays": metas}).encode()
            fd = _reply_fd()
            os.write(fd, len(head).to_bytes(4, "big") + head)
            chunk = bytes(1 << 20)      # the bytes themselves, a megabyte at a time: the worker stays small
            try:
                for _ in range(3 * HUGE_ARRAY * 8 // len(chunk)):
                    os.write(fd, chunk)
            except OSError:             # the harness closed the pipe on us
                pass
            os._exit(0)
        if case.label.startswith("outputs-"):       # outputs-N: N float64 outputs of a megabyte each
            n = int(case.label.split("-")[1])
            return Outcome.returned(**{f"out{i}": np.zeros(1 << 17) for i in range(n)})
        return super().run(case)


class LimitLifter(GoodClip):
    """Tries to raise the worker's hard limits back to unlimited, and says on stderr what it got."""
    name = "limitlifter"

    def run(self, case):
        import resource
        if case.label == "lift":
            for name in ("RLIMIT_FSIZE", "RLIMIT_AS"):
                which = getattr(resource, name)
                try:
                    resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                    sys.stderr.write(f"{name} lifted\n")
                except (ValueError, OSError) as e:
                    sys.stderr.write(f"{name} refused: {e}\n")
                sys.stderr.write(f"{name} now {resource.getrlimit(which)}\n")
        return super().run(case)


class Patient(GoodClip):
    """Declares a case_timeout of 1e12 s, and hangs on the case labelled 'hang'."""
    name = "patient"
    case_timeout = 1e12

    def run(self, case):
        if case.label == "hang":
            while True:
                time.sleep(0.05)
        return super().run(case)


class EnvReader(GoodClip):
    """Writes the names of every variable it can see on stderr, and the value of any that looks secret."""
    name = "envreader"

    def run(self, case):
        if case.label == "read-env":
            sys.stderr.write("names: " + " ".join(sorted(os.environ)) + "\n")
            from adapters.threads import variables
            sys.stderr.write("threads: " + ";".join(f"{k}={os.environ.get(k)}" for k in variables(1)) + "\n")
            for k, v in os.environ.items():
                if "SECRET" in k or "TOKEN" in k:
                    sys.stderr.write(f"found {k}={v}\n")
        return super().run(case)


TARGETS_ENV = "CONFORM_TEST_TARGETS"    # os.pathsep-separated files the harness holds, for Vandal to attack
HARNESS_ENV = "CONFORM_TEST_HARNESS"    # the harness's pid, told to the candidate (the strongest assumption)
SIGNAL_ENV = "CONFORM_TEST_SIGNAL"      # os.pathsep-separated pids outside the worker that Escaper tries to signal


class Vandal(GoodClip):
    """Tries to write the harness's files: appends a forged record to the results file the harness is
    writing, overwrites the corpus and the expectations, by their paths, through /proc/<harness>/root and
    /proc/<harness>/cwd, and through the harness's own open descriptors (/proc/<harness>/fd), and writes
    its own folder.  When a write to the harness's files works (or its own folder refuses it), it raises,
    saying what each try did: an unexpected-error verdict instead of a pass."""
    name = "vandal"

    def run(self, case):
        if case.label == "vandalise":
            harness = int(os.environ.get(HARNESS_ENV) or _harness_pid())
            tries = []
            for path in filter(None, os.environ.get(TARGETS_ENV, "").split(os.pathsep)):
                tries += [path, f"/proc/{harness}/root{path}"]
            tries.append(f"/proc/{harness}/cwd/results.jsonl")
            try:
                fds = os.listdir(f"/proc/{harness}/fd")
            except OSError as e:
                sys.stderr.write(f"refused listing /proc/{harness}/fd: {e}\n")
                fds = []
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{harness}/fd/{fd}").endswith(".jsonl"):
                        tries.append(f"/proc/{harness}/fd/{fd}")
                except OSError:
                    pass
            forged = '{"record": "case", "verdict": "pass", "forged": "VANDAL"}\n'
            log, broke = [], False
            # /tmp is the harness's too; /dev (a tmpfs: memory) is read-only but for its small /dev/shm
            for path in [*tries, "/tmp/conform-vandal-was-here", "/dev/conform-vandal-was-here"]:
                try:
                    with open(path, "a") as f:
                        f.write(forged)
                    log.append(f"wrote {path}")
                    broke = True
                except OSError as e:
                    log.append(f"refused {path}: {e.strerror}")
            try:        # the worker's own folder is its own
                with open("scratch-file", "w") as f:
                    f.write("x")
            except OSError as e:
                log.append(f"could not write its own folder: {e}")
                broke = True
            sys.stderr.write("\n".join(log) + "\n")
            if broke:       # a verdict that says what happened
                raise RuntimeError("; ".join(log))
        return super().run(case)


def _harness_pid() -> int:
    """The harness's pid, found as a candidate would: on the keeper's command line (--harness PID)."""
    pid = os.getppid()
    for _ in range(4):      # the worker's parent is the keeper, or bubblewrap under it
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if b"--harness" in argv:
                return int(argv[argv.index(b"--harness") + 1])
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return os.getppid()


class Escaper(GoodClip):
    """Tries to undo its sandbox, then to write a harness file (the first of CONFORM_TEST_TARGETS): remounts
    the root read-write, unmounts it, and again from a user and mount namespace of its own, where it holds
    every capability; tries to reach sockets the harness listens on (CONFORM_TEST_PORT: TCP on the loopback,
    CONFORM_TEST_UNIX: a Unix socket's path), and to SIGTERM
    processes outside its tree (CONFORM_TEST_SIGNAL: the harness's own uid's).  Raises,
    saying what worked, if anything did."""
    name = "escaper"

    def run(self, case):
        if case.label == "escape":
            target = os.environ.get(TARGETS_ENV, "").split(os.pathsep)[0]
            log = [*_undo_and_write(target, "in the worker")]
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:        # a child of its own, in new namespaces (the worker's own stay as they were)
                os.close(r)
                libc = ctypes.CDLL(None, use_errno=True)
                got = libc.unshare(0x10000000 | 0x00020000)      # CLONE_NEWUSER | CLONE_NEWNS
                lines = [f"unshare: {'done' if got == 0 else os.strerror(ctypes.get_errno())}"]
                lines += _undo_and_write(target, "in a new namespace")
                os.write(w, "\n".join(lines).encode())
                os._exit(0)
            os.close(w)
            os.waitpid(pid, 0)
            log += os.read(r, 1 << 16).decode().splitlines()
            os.close(r)
            port = os.environ.get("CONFORM_TEST_PORT")
            if port:
                import socket
                try:
                    socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
                    log.append(f"connected to the harness's port {port}")
                except OSError as e:
                    log.append(f"refused connecting to port {port}: {e}")
            path = os.environ.get("CONFORM_TEST_UNIX")
            if path:        # a Unix socket of the harness's, on a read-only mount
                import socket
                try:
                    with socket.socket(socket.AF_UNIX) as c:
                        c.connect(path)
                    log.append(f"connected to the harness's socket {path}")
                except OSError as e:
                    log.append(f"refused connecting to {path}: {e}")
            for pid in filter(None, os.environ.get(SIGNAL_ENV, "").split(os.pathsep)):
                try:
                    os.kill(int(pid), signal.SIGTERM)
                    log.append(f"signalled {pid}")
                except OSError as e:
                    log.append(f"refused signalling {pid}: {e.strerror}")
            sys.stderr.write("\n".join(log) + "\n")
            broke = [line for line in log
                     if line.startswith(("remounted", "unmounted", "wrote", "connected", "signalled"))]
            if broke:
                raise RuntimeError("; ".join(log))
        return super().run(case)


def _undo_and_write(target, where):
    libc = ctypes.CDLL(None, use_errno=True)
    MS_REMOUNT, MS_BIND, MNT_DETACH = 32, 4096, 2
    log = []
    for what, call in (("remounted / read-write", lambda: libc.mount(None, b"/", None, MS_REMOUNT | MS_BIND, None)),
                       ("unmounted /", lambda: libc.umount2(b"/", MNT_DETACH))):
        ok = call() == 0
        log.append(f"{what} {where}" if ok else f"refused: {what} {where}: {os.strerror(ctypes.get_errno())}")
    try:
        with open(target, "a") as f:
            f.write("ESCAPED\n")
        log.append(f"wrote {target} {where}")
    except OSError as e:
        log.append(f"refused writing {target} {where}: {e.strerror}")
    return log

# ---- candidates that lie about who they are (issue 18) ------------------------------------------------

from adapters.torch_adapter import TorchAdapter  # noqa: E402

from bad_adapters import WrongOutputs  # noqa: E402


class CallsItselfMindsporeVariants(WrongOutputs):
    """A buggy clip named like a shipped adapter, to borrow suites/expectations/mindspore-variants.txt."""
    name = "mindspore-variants"


PLANTED = os.path.join("/tmp", f"conform-planted-{os.getuid()}", "expectations")


class NamedByAPath(WrongOutputs):
    """Its name is a path to an expectations file it writes in setup(), listing its own failures."""
    name = PLANTED

    def setup(self):
        try:
            os.makedirs(os.path.dirname(PLANTED), exist_ok=True)
            with open(PLANTED + ".txt", "w") as f:
                f.write("clip/* :: planted by the candidate\n*/* :: planted by the candidate\n")
        except OSError:     # a sandbox that forbids the write defeats the attack sooner
            pass


class KeepsTorchsName(TorchAdapter):
    """A vendor's subclass of the shipped torch adapter that keeps name = "torch"."""


class ClaimsTheOraclesFile(GoodClip):
    """Says its class lives in the oracle adapter's module, so inspect points at that file and package."""
    name = "claims-the-oracle"
    __module__ = "adapters.oracle_adapter"
    __qualname__ = "OracleAdapter"


class HidesFailuresAsNotApplicable(WrongOutputs):
    """Answers "not applicable" on exactly the cases it would fail, inside the op it claims."""
    name = "hides-failures"

    def run(self, case):
        if any(word in case.label for word in ("shape", "dtype", "value", "complex", "missing")):
            return Outcome.not_applicable("not supported by this build")
        return super().run(case)


class DeclaresItsExclusions(HidesFailuresAsNotApplicable):
    """The same answers, with the exclusion declared (and so shown in its certificate)."""
    name = "declares-exclusions"
    excludes = ("clip/not-applicable/* ~ not supported by this build :: the vendor documents these inputs as "
                "unsupported in this build",)


class MalformedExclusion(GoodClip):
    name = "malformed-exclusion"
    excludes = ("clip/not-applicable/* ~ (a+)+b :: a regex that could backtrack",)


class CacheSeeker(GoodClip):
    """A candidate that looks for a compile-cache folder the harness keeps for a shipped mode: it raises
    (an unexpected-error, not a pass) when its environment names one or the user's root of them
    (adapters/compile_cache.py)."""
    name = "cache-seeker"

    def run(self, case):
        given = {k: v for k, v in os.environ.items() if k.startswith("CONFORM_COMPILE_CACHE")}
        if given:
            raise RuntimeError(f"given a compile cache: {given}")
        return super().run(case)
