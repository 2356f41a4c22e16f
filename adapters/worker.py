"""The adapter worker process: `python -m adapters.worker SPEC --rfd R --wfd W [--memory-mb M]`.

`python -m adapters.worker SPEC --probe` only loads the adapter and prints its hello (availability,
version, interpreter) as the last line of stdout: how the harness asks an adapter that runs under
another interpreter whether it is available there, without starting its framework.

It loads one adapter, calls its setup() once, then answers requests on the
two protocol pipes (adapters.wire).  The candidate's own stdout is pointed at
stderr, which the client captures per case, so nothing a framework prints can
corrupt the protocol.
"""
from __future__ import annotations

import argparse
import ctypes
import faulthandler
import os
import platform
import sys
import time

import numpy as np

from . import wire
from contract.dtypes import dtype_name

from .base import RAISED, RETURNED, Outcome


def call_adapter(adapter, case, reraise=()) -> Outcome:
    """adapter.run(case) that never lets anything escape: what it raises becomes a RAISED outcome.

    `reraise`: exception classes to let through (in-process, a real Ctrl-C must stop the run).
    """
    t0 = time.perf_counter()
    try:
        out = adapter.run(case)
    except reraise:
        raise
    except BaseException as e:      # noqa: BLE001 - a candidate may raise anything, even SystemExit
        out = Outcome.raised(e)
        out.message = "escaped the adapter: " + out.message
    elapsed = time.perf_counter() - t0
    if not isinstance(out, Outcome):
        out = Outcome(RAISED, exc_type="AdapterProtocolError", exc_mro=("AdapterProtocolError",),
                      message=f"run() returned {type(out).__name__}, not an Outcome")
    if not out.elapsed_s:
        out.elapsed_s = elapsed
    if not out.native_api:
        out.native_api = safe_call(adapter.native_api, case.op, case)
    return out


def safe_call(f, *args) -> str:
    try:
        return str(f(*args))
    except BaseException as e:      # noqa: BLE001
        return f"<{getattr(f, '__name__', 'call')} failed: {type(e).__name__}>"


def interpreter() -> tuple:
    """(path, Python version, NumPy version) of the interpreter running this code."""
    return sys.executable, platform.python_version(), np.__version__


def hello(adapter) -> dict:
    ok, reason = adapter.available()
    python, python_version, numpy_version = interpreter()
    return {"type": "hello", "pid": os.getpid(), "name": adapter.name,
            "version": safe_call(adapter.version), "available": bool(ok), "reason": reason or "",
            "execution": adapter.execution, "ops": list(adapter.ops), "case_timeout": adapter.case_timeout,
            "python": python, "python_version": python_version, "numpy": numpy_version}


class _Hygiene:
    """Undo what a candidate may leave behind between cases: cwd, NumPy error state and print options,
    C stdio buffers.  (The global RNG is left alone: restoring it costs ~0.1 ms a case, and only a
    candidate that draws from it unseeded could notice.)"""

    def __init__(self):
        self.cwd = os.getcwd()
        self.np_err = np.geterr()
        self.np_print = np.get_printoptions()
        try:
            self._fflush = ctypes.CDLL(None).fflush
        except (OSError, AttributeError):
            self._fflush = None

    def after_case(self):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        if self._fflush is not None:
            self._fflush(None)
        try:
            cwd = os.getcwd()
        except OSError:         # the candidate removed the directory it moved into
            cwd = None
        if cwd != self.cwd:
            os.chdir(self.cwd)
            sys.stderr.write(f"[conform] the candidate changed the working directory; restored {self.cwd}\n")
            sys.stderr.flush()
        if np.geterr() != self.np_err:
            np.seterr(**self.np_err)
        if np.get_printoptions() != self.np_print:
            np.set_printoptions(**self.np_print)


STDERR_CAP = 64 << 10


def read_capped(fd: int) -> str:
    """What the file behind `fd` holds, at most STDERR_CAP bytes of it: head and tail of a flood."""
    size = os.fstat(fd).st_size
    if size == 0:
        return ""
    if size <= STDERR_CAP:
        raw = os.pread(fd, size, 0)
    else:
        head = os.pread(fd, 4096, 0)
        tail = os.pread(fd, STDERR_CAP - 4096, size - STDERR_CAP + 4096)
        raw = head + f"\n[... {size - STDERR_CAP} bytes cut ...]\n".encode() + tail
    return raw.decode("utf-8", errors="replace")


def take_stderr() -> str:
    """This case's stderr (fd 2 is the client's O_APPEND file): read it, then empty it for the next case."""
    text = read_capped(2)
    if text:
        os.ftruncate(2, 0)
    return text


def serve(adapter, rfd: int, wfd: int) -> None:
    hygiene = _Hygiene()
    hygiene.after_case()
    take_stderr()       # start-up noise is not the first case's
    wire.send(wfd, hello(adapter))
    while True:
        try:
            head, arrays = wire.recv(rfd)
        except wire.PeerClosed:
            return
        kind = head.get("type")
        if kind == "bye":
            return
        case = wire.case_from_msg(head, arrays)
        if kind == "repro":
            reply = {"type": "repro", "repro": safe_call(adapter.repro, case),
                     "native_api": safe_call(adapter.native_api, case.op, case)}
            hygiene.after_case()
            take_stderr()
            wire.send(wfd, reply)
            continue
        out = call_adapter(adapter, case)
        hygiene.after_case()
        captured = take_stderr()
        out.stderr = f"{out.stderr}\n{captured}" if out.stderr and captured else (out.stderr or captured)
        _send_outcome(wfd, out)


def _send_outcome(wfd, out):
    head, arrays = wire.outcome_to_msg(out)
    good, bad = {}, []
    for name, a in arrays.items():
        try:
            a = np.asarray(a)
            dtype_name(a.dtype)
            good[name] = a
        except Exception as e:      # an object/complex array, or something not an array at all
            bad.append(f"output {name!r} cannot be reported ({type(e).__name__}: {str(e)[:200]})")
    if bad and out.kind == RETURNED:
        head["message"] = "; ".join([head.get("message") or "", *bad]).strip("; ")
    try:
        wire.send(wfd, head, good)
    except ValueError:      # a non-JSON value slipped into a text field: send the text forms
        head = {k: (v if isinstance(v, (int, float, list, type(None))) else str(v)) for k, v in head.items()}
        wire.send(wfd, head, good)


def _die_with_parent() -> None:
    """Have the kernel SIGKILL this worker when the harness dies: a SIGKILLed `conform run` cannot stop a
    worker stuck in a candidate's hang, which would otherwise live on.  Linux only.  The signal comes when
    the harness *thread* that started the worker ends; the runner closes its workers before its threads end."""
    try:
        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return
    import signal
    prctl(1, int(signal.SIGKILL), 0, 0, 0)      # PR_SET_PDEATHSIG
    if os.getppid() == 1:       # the harness died before the call
        os._exit(1)


OUTPUT_LIMIT = 1 << 30      # bytes the worker may write to one file (its captured stderr included)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m adapters.worker")
    ap.add_argument("spec")
    ap.add_argument("--rfd", type=int)
    ap.add_argument("--wfd", type=int)
    ap.add_argument("--memory-mb", type=int, default=0)
    ap.add_argument("--probe", action="store_true", help="print the adapter's hello and exit")
    args = ap.parse_args(argv)
    if args.probe:
        return _probe(args.spec)
    if args.rfd is None or args.wfd is None:
        ap.error("--rfd and --wfd are required (or --probe)")
    _die_with_parent()
    # The candidate's prints go to the captured stderr, never onto a protocol pipe.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()       # a segfault leaves its Python traceback in the captured stderr
    import resource
    if args.memory_mb:
        limit = args.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # A candidate that logs without end would fill the disk through the captured stderr file before
    # its case timed out: past OUTPUT_LIMIT bytes in any one file, SIGXFSZ kills it (a crash verdict).
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    cap = OUTPUT_LIMIT if hard == resource.RLIM_INFINITY else min(OUTPUT_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, hard))
    from .registry import load
    try:
        adapter = load(args.spec)
        ok, reason = adapter.available()
        if ok:
            adapter.setup()
    except BaseException as e:      # noqa: BLE001
        msg = Outcome.raised(e).message
        wire.send(args.wfd, {"type": "fatal", "message": f"{type(e).__name__}: {msg}"})
        return 3
    serve(adapter, args.rfd, args.wfd)
    return 0


def _probe(spec) -> int:
    import json

    from .registry import load
    try:
        msg = hello(load(spec))
    except BaseException as e:      # noqa: BLE001 - whatever loading a candidate raises is its reason
        msg = {"type": "fatal", "message": f"{type(e).__name__}: {Outcome.raised(e).message}"}
    sys.stdout.write("\n" + json.dumps(msg) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
