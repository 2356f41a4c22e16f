"""The adapter worker process: `python -m adapters.worker SPEC --rfd R --wfd W [--memory-mb M] [--probe]`.

The pool starts it under its keeper (adapters.keeper), which kills whatever the
candidate leaves running.  It loads one adapter, calls its setup() once, then
answers requests on the two protocol pipes (adapters.wire); each reply carries
the id of the case it answers.  The candidate's own stdout is pointed at
stderr, which the client captures per case, so nothing a framework prints can
corrupt the protocol.  With --probe it only says hello (name, version,
availability, interpreter, NumPy) and exits: setup() is not called.
"""
from __future__ import annotations

import argparse
import ctypes
import faulthandler
import os
import platform
import stat
import sys
import time

import numpy as np

from . import wire
from contract.dtypes import dtype_name

from .base import CRASHED, RAISED, RETURNED, Outcome, clean_text
from .proctree import die_with_parent


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
    problem = out.clean().problem()
    if problem:     # a field of the wrong type would break the judge or the results file later
        out = Outcome(CRASHED, message=f"the adapter returned a malformed Outcome: {problem}",
                      stderr=out.stderr if isinstance(out.stderr, str) else "")
    if not out.elapsed_s:
        out.elapsed_s = elapsed
    if not out.native_api:
        out.native_api = safe_call(adapter.native_api, case.op, case)
    return out


def safe_call(f, *args) -> str:
    try:
        return clean_text(str(f(*args)))
    except BaseException as e:      # noqa: BLE001
        return f"<{getattr(f, '__name__', 'call')} failed: {type(e).__name__}>"


def hello(adapter, ok, reason) -> dict:
    """What the pool (and adapters.pool.probe) learn about the adapter; may raise on a broken adapter."""
    timeout = adapter.case_timeout
    if timeout is not None and not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                                    and 0 < timeout < float("inf")):
        raise TypeError(f"case_timeout must be a positive number of seconds or None, got {timeout!r}")
    return {"type": "hello", "pid": os.getpid(), "name": clean_text(str(adapter.name), 200),
            "version": safe_call(adapter.version), "available": bool(ok), "reason": clean_text(str(reason or "")),
            "execution": clean_text(str(adapter.execution), 400), "ops": [clean_text(str(o), 100) for o in adapter.ops],
            "case_timeout": timeout, "python": sys.executable, "python_version": platform.python_version(),
            "numpy": np.__version__,
            "constructions": [clean_text(str(c), 100) for c in getattr(adapter, "constructions", ())],
            "layouts": [clean_text(str(c), 100) for c in getattr(adapter, "layouts", ())],
            "excludes": [clean_text(str(x), 4096) for x in tuple(getattr(adapter, "excludes", ()))[:256]],
            "crashes": [clean_text(str(x), 4096) for x in tuple(getattr(adapter, "crashes", ()))[:256]]}


class _Hygiene:
    """Undo what a candidate may leave behind between cases: cwd, NumPy error state and print options,
    C stdio buffers.  (The global RNG is left alone: restoring it costs ~0.1 ms a case, and only a
    candidate that draws from it unseeded could notice.)"""

    def __init__(self):
        self.cwd = os.getcwd()      # the worker's scratch folder, made for it by the pool
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
        self._restore_cwd()
        if np.geterr() != self.np_err:
            np.seterr(**self.np_err)
        if np.get_printoptions() != self.np_print:
            np.set_printoptions(**self.np_print)


    def _restore_cwd(self):
        try:
            cwd = os.getcwd()
        except OSError:         # the candidate removed the directory it moved into
            cwd = None
        try:
            st = os.lstat(self.cwd)
            intact = stat.S_ISDIR(st.st_mode) and st.st_mode & 0o700 == 0o700
        except OSError:
            intact = False
        if cwd == self.cwd and intact:
            return
        if not intact:      # removed, replaced by a file or a link, or made unusable: make it anew
            if os.path.islink(self.cwd) or os.path.isfile(self.cwd):
                os.unlink(self.cwd)
            os.makedirs(self.cwd, mode=0o700, exist_ok=True)
            os.chmod(self.cwd, 0o700)
        os.chdir(self.cwd)
        what = "changed the working directory" if intact else "removed or damaged the working directory"
        sys.stderr.write(f"[conform] the candidate {what}; {'restored' if intact else 'recreated'} {self.cwd}\n")
        sys.stderr.flush()


def take_stderr() -> str:
    """This case's stderr (fd 2 is the client's O_APPEND file): read it, then empty it for the next case."""
    text = wire.read_capped(2)
    if text:
        os.ftruncate(2, 0)
    return text


def serve(adapter, greeting, rfd: int, wfd: int, tripwire=None) -> None:
    hygiene = _Hygiene()
    hygiene.after_case()
    take_stderr()       # start-up noise is not the first case's
    wire.send(wfd, greeting)
    while True:
        try:
            head, arrays = wire.recv(rfd)
        except wire.PeerClosed:
            return
        kind = head.get("type")
        if kind == "bye":
            return
        expectation = wire.expectation_from_msg(head.pop("expectation"), arrays) if "expectation" in head else None
        case = wire.case_from_msg(head, arrays)
        if kind == "repro":
            from .repro import call_repro
            reply = {"type": "repro", "id": case.id, "repro": safe_call(call_repro, adapter.repro, case, expectation),
                     "native_api": safe_call(adapter.native_api, case.op, case)}
            hygiene.after_case()
            take_stderr()
            wire.send(wfd, reply)
            continue
        out = call_adapter(adapter, case)
        out.borrowed = tripwire.seen() if tripwire else ""     # the worker's word, whatever the candidate set
        hygiene.after_case()
        captured = take_stderr()
        out.stderr = f"{out.stderr}\n{captured}" if out.stderr and captured else (out.stderr or captured)
        _send_outcome(wfd, out, case.id)


def _send_outcome(wfd, out, case_id):
    head, arrays = wire.outcome_to_msg(out)
    head["id"] = case_id
    good, bad = {}, []
    for name, a in arrays.items():
        try:
            a = np.asarray(a)
            dtype_name(a.dtype)
            if a.nbytes > wire.MAX_ARRAY_BYTES or len(good) >= wire.MAX_ARRAYS:
                raise ValueError(f"{a.nbytes} bytes, or more than {wire.MAX_ARRAYS} outputs: over the wire's limits")
            good[name] = a
        except Exception as e:      # an object/complex array, or something not an array at all
            bad.append(f"output {name!r} cannot be reported ({type(e).__name__}: {clean_text(str(e), 200)})")
    if bad and out.kind == RETURNED:
        head["message"] = "; ".join([head.get("message") or "", *bad]).strip("; ")
    total = sum(a.nbytes for a in good.values())
    if total > wire.MAX_REPLY_BYTES:       # the harness would refuse the reply: say why, without sending them
        head = {"type": "outcome", "id": case_id, "kind": CRASHED, "stderr": head.get("stderr", ""),
                "message": f"the outputs total {total} bytes, over the cap of {wire.MAX_REPLY_BYTES} bytes "
                           f"a reply may carry (CONFORM_MAX_REPLY_MB)"}
        good = {}
    try:
        data = wire.encode(head, good)
    except (ValueError, TypeError) as e:    # Outcome.problem() let something through: still one verdict
        data = wire.encode({"type": "outcome", "id": case_id, "kind": CRASHED, "stderr": head.get("stderr", ""),
                            "message": f"the adapter's outcome cannot be sent ({type(e).__name__}: {e})"})
    wire.send_bytes(wfd, data)


OUTPUT_LIMIT = 1 << 30      # bytes the worker may write to one file (its captured stderr included)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m adapters.worker")
    ap.add_argument("target")
    ap.add_argument("--rfd", type=int, required=True)
    ap.add_argument("--wfd", type=int, required=True)
    ap.add_argument("--memory-mb", type=int, default=0)
    ap.add_argument("--probe", action="store_true", help="say hello (without setup()) and exit")
    args = ap.parse_args(argv)
    die_with_parent()
    # The candidate's prints go to the captured stderr, never onto a protocol pipe.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()       # a segfault leaves its Python traceback in the captured stderr
    import resource
    from .sandbox import harden_limit
    # Hard limits, soft and hard alike, set before the candidate is imported and with CAP_SYS_RESOURCE
    # dropped for good (adapters.sandbox): the candidate cannot raise them again.
    if args.memory_mb:
        harden_limit(resource.RLIMIT_AS, args.memory_mb << 20)
    # A candidate that logs without end would fill the disk through the captured stderr file before
    # its case timed out: past OUTPUT_LIMIT bytes in any one file, SIGXFSZ kills it (a crash verdict).
    harden_limit(resource.RLIMIT_FSIZE, OUTPUT_LIMIT)
    from .registry import AdapterError, load
    from .borrow import Tripwire, trusted
    tripwire = None if trusted(args.target) else Tripwire.install()     # before the candidate is imported
    try:
        adapter = load(args.target)
        ok, reason = adapter.available()
        if ok and not args.probe:
            adapter.setup()
        greeting = hello(adapter, ok, reason)
    except BaseException as e:      # noqa: BLE001
        msg = clean_text(Outcome.raised(e).message)
        wire.send(args.wfd, {"type": "fatal", "message": msg if isinstance(e, AdapterError) else f"{type(e).__name__}: {msg}"})
        return 3
    if args.probe:      # what the adapter *is* the harness measures itself, without it (adapters/identity.py)
        wire.send(args.wfd, greeting)
        return 0
    serve(adapter, greeting, args.rfd, args.wfd, tripwire)
    return 0


if __name__ == "__main__":
    sys.exit(main())
