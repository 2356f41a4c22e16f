"""Real misbehaving candidates for the harness tests, loaded by the workers as `bad_adapters:Class`.

Each runs clip cases (docs/CASES.md: outputs `out`, then `x`).  `GoodClip`
computes CL-FORMULA, min(max(x, lo), hi), honestly with NumPy; the others
break the way real frameworks do.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

import numpy as np

from adapters.base import Adapter, Outcome


def _bound(case, which):
    spec = case.params.get(which)
    if spec is None:
        return None
    return case.inputs[which] if spec["kind"] == "tensor" else spec["value"]


def clip_formula(case):
    x = case.inputs["x"]
    lo, hi = _bound(case, "min"), _bound(case, "max")
    out = x.copy()
    if lo is not None:
        out = np.maximum(out, np.asarray(lo, dtype=x.dtype))
    if hi is not None:
        out = np.minimum(out, np.asarray(hi, dtype=x.dtype))
    return out.astype(x.dtype)


class _Clip(Adapter):
    ops = ("clip",)

    def version(self):
        return "0.0-test"

    def native_api(self, op, case=None):
        return f"{type(self).__name__}.clip"


class GoodClip(_Clip):
    name = "good"

    def run(self, case):
        return Outcome.returned(out=clip_formula(case), x=case.inputs["x"].copy())


class InvisiblyNamedTorch(GoodClip):
    name = "torch\u200b"       # "torch" and a zero-width space: a second "torch" column beside the real one


class Segfault(_Clip):
    """Dies by SIGSEGV on cases labelled 'crash', like a framework's kernel on bad input."""
    name = "segfault"

    def run(self, case):
        if "crash" in case.label:
            ctypes.string_at(0)       # a real NULL read: SIGSEGV
        return GoodClip.run(self, case)


class Damaged(_Clip):
    """Answers a 'damage' case cleanly but leaves its worker broken, as a kernel that wrote past a buffer's end
    does: every later case of that worker dies by SIGSEGV.  In a fresh worker any other case passes."""
    name = "damaged"
    broken = False

    def run(self, case):
        if "damage" in case.label:
            Damaged.broken = True
        elif Damaged.broken or "crash" in case.label:
            ctypes.string_at(0)
        return GoodClip.run(self, case)


class Hang(_Clip):
    name = "hang"

    def run(self, case):
        if "hang" in case.label:
            while True:
                time.sleep(0.05)
        return GoodClip.run(self, case)


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no str for you")


class _NotAnException(BaseException):
    pass


class OddExceptions(_Clip):
    """Lets odd things escape run(): a BaseException subclass, an unprintable error, SystemExit."""
    name = "odd"

    def run(self, case):
        if "base" in case.label:
            raise _NotAnException("escaped")
        if "unprintable" in case.label:
            raise _Unprintable()
        if "exit" in case.label:
            raise SystemExit(3)
        if "interrupt" in case.label:
            raise KeyboardInterrupt
        if "notoutcome" in case.label:
            return [1, 2, 3]
        return GoodClip.run(self, case)


class WrongOutputs(_Clip):
    name = "wrong"

    def run(self, case):
        good = clip_formula(case)
        x = case.inputs["x"].copy()
        if "shape" in case.label:
            return Outcome.returned(out=good.reshape(1, -1), x=x)
        if "dtype" in case.label:
            return Outcome.returned(out=good.astype(np.float64), x=x)
        if "value" in case.label:
            bad = good.copy()
            bad.flat[-1] = bad.flat[-1] + 1
            return Outcome.returned(out=bad, x=x)
        if "complex" in case.label:
            return Outcome.returned(out=good.astype(np.complex64), x=x)
        if "missing" in case.label:
            return Outcome.returned(x=x)
        return Outcome.returned(out=good, x=x)


class Mutating(_Clip):
    """Clamps in place (as torch.clamp_ would) and reports x after the call; or writes to the case itself."""
    name = "mutating"

    def run(self, case):
        if "direct" in case.label:
            case.inputs["x"][...] = 0       # the harness's arrays are read-only: this raises
            return Outcome.returned(out=case.inputs["x"], x=case.inputs["x"])
        x = case.inputs["x"].copy()
        np.copyto(x, clip_formula(case))
        return Outcome.returned(out=x, x=x)


class Noisy(_Clip):
    """Floods stdout and stderr, changes directory and NumPy's error state, leaves a child behind."""
    name = "noisy"

    def run(self, case):
        if "flood" in case.label:
            chunk = "x" * 1023 + "\n"
            for _ in range(4096):                  # 4 MiB on each stream
                sys.stdout.write(chunk)
                sys.stderr.write(chunk)
            os.write(2, b"[ERROR] the reason is here\n")
        if "chdir" in case.label:
            os.chdir("/")
            np.seterr(all="raise")
        if "fork" in case.label:
            if os.fork() == 0:      # a child that would outlive the worker
                signal.pause()
                os._exit(0)
        return GoodClip.run(self, case)


class Unavailable(_Clip):
    name = "unavailable"

    def available(self):
        return False, "the test framework is not installed"


class BrokenSetup(_Clip):
    name = "brokensetup"

    def setup(self):
        raise ImportError("libfoo.so: cannot open shared object file")


# ---- hand-made clip cases and their expectations (CL-FORMULA), for the harness tests ------

def clip_case(label="", x=(1.0, 5.0, 9.0), lo=2.0, hi=6.0, dtype="float32"):
    from contract.case import Case
    params = {}
    if lo is not None:
        params["min"] = {"kind": "float", "value": float(lo)}
    if hi is not None:
        params["max"] = {"kind": "float", "value": float(hi)}
    from contract.dtypes import dtype_from_name
    # by the suite's name: NumPy's "bfloat16" is mindspore's type once mindspore is imported in this process
    dt = dtype_from_name(dtype) if isinstance(dtype, str) else dtype
    return Case(op="clip", inputs={"x": np.array(x, dtype=dt)}, params=params,
                clauses=("CL-FORMULA",), label=label)


def clip_expectation(case):
    """y = min(max(x, lo), hi), input unchanged (CL-FORMULA), exact."""
    from contract.expectation import ExpectedArray, Expectation
    return Expectation("value", clauses=("CL-FORMULA",),
                       outputs={"out": ExpectedArray(clip_formula(case)), "x": ExpectedArray(case.inputs["x"])})


def write_corpus(path, cases):
    """A corpus file the runner reads (suites.corpus's writer when present, else one Case per line)."""
    try:
        from suites.corpus import write_corpus as w
    except ImportError:
        w = None
    if w is not None:
        return w(path, cases)
    import json
    with open(path, "w") as f:
        for c in cases:
            f.write(json.dumps(c.to_json()) + "\n")
    return path


class Slow(_Clip):
    """An honest candidate that takes its time, so a test can kill a run partway."""
    name = "slow"

    def run(self, case):
        time.sleep(0.03)
        return GoodClip.run(self, case)


class Spin(_Clip):
    """Honest and slow the way a framework computing is: 30 ms of CPU a case (a core kept busy)."""
    name = "spin"

    def run(self, case):
        _spin(0.03)
        return GoodClip.run(self, case)


class SpinClaimingLongCalls(Spin):
    """Spin, whose outcomes claim each call took 10 s: its 30 ms of CPU would then look like a worker asleep."""
    name = "spin-claiming-long-calls"

    def run(self, case):
        out = Spin.run(self, case)
        out.elapsed_s = 10.0
        return out


class SpinInChild(_Clip):
    """Honest; each case's 30 ms of CPU is spent in a child process it waits for, so the worker itself looks
    asleep: the scheduler must weigh it as computing, like Spin, not give it more workers than cores."""
    name = "spin-in-child"

    def run(self, case):
        import subprocess
        subprocess.run([sys.executable, "-c", "import time\nend = time.process_time() + 0.03\n"
                        "while time.process_time() < end: pass"], check=True)
        return GoodClip.run(self, case)


class InStep(_Clip):
    """Sleeps through its first 16 cases (c0..c15), so it is weighed as a lane asleep and gets more workers
    than cores; then every call waits for the next quarter second of the clock, which all its workers share,
    and spins 30 ms of CPU: its workers compute in step, several at once where the scheduler gave one core,
    while each call looks mostly asleep."""
    name = "in-step"

    def run(self, case):
        if int(case.label.lstrip("c")) < 16:
            time.sleep(0.03)
        else:
            time.sleep(0.25 - time.time() % 0.25)
            _spin(0.03)
        return GoodClip.run(self, case)


def _spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class SignalMask(Slow):
    """Honest, slowly, while SIGINT and SIGTERM reach it; with either blocked its answers are off by one, as a
    worker the harness left deaf to Ctrl-C would be a candidate that cannot be stopped like any program."""
    name = "signal-mask"

    def run(self, case):
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        outcome = Slow.run(self, case)
        if blocked & {signal.SIGINT, signal.SIGTERM}:
            outcome.arrays["out"] = outcome.arrays["out"] + 1
        return outcome


class SlowStart(_Clip):
    """Honest; its first four calls in a worker take half a second each (a framework loading its kernels),
    every later one no time: a lane worth one worker, whose first cases alone would ask for more."""
    name = "slow-start"

    def __init__(self):
        self._calls = 0

    def run(self, case):
        self._calls += 1
        if self._calls <= 4:
            time.sleep(0.5)
        return GoodClip.run(self, case)


RENDEZVOUS_ENV = "CONFORM_TEST_RENDEZVOUS"     # a folder both Rendezvous workers may write


class RendezvousA(GoodClip):
    """Starts only if its peer (RendezvousB) starts while it does: its setup() leaves its name in the folder
    of CONFORM_TEST_RENDEZVOUS and waits for the peer's.  Started one after the other, the first waits in
    vain and fails to start: the harness starts workers at once or it does not."""
    name = "rendezvous-a"
    peer = "rendezvous-b"
    WAIT_S = 20.0

    def setup(self):
        import os
        folder = os.environ[RENDEZVOUS_ENV]
        open(os.path.join(folder, self.name), "w").close()
        deadline = time.monotonic() + self.WAIT_S
        while not os.path.exists(os.path.join(folder, self.peer)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.peer} did not start while {self.name} was starting")
            time.sleep(0.05)


class RendezvousB(RendezvousA):
    name = "rendezvous-b"
    peer = "rendezvous-a"


class CompiledDrift(GoodClip):
    """A "compiled mode" of GoodClip that answers otherwise on cases labelled 'drift' (one ulp up), as a
    compiled path that folds a bound differently would (tests/test_modes.py names it GoodClip's mode)."""
    name = "good-compiled"

    def run(self, case):
        outcome = GoodClip.run(self, case)
        if "drift" in case.label:
            out = outcome.arrays["out"]
            outcome.arrays["out"] = np.nextafter(out, np.inf).astype(out.dtype)
        return outcome


class Leaky(_Clip):
    """Allocates until the allocation fails: with a per-worker memory limit that is a MemoryError."""
    name = "leaky"

    def run(self, case):
        hoard = []
        while True:
            hoard.append(np.ones(16 << 20, np.uint8))      # touched, so it is real memory


class ConstructionSensitive(_Clip):
    """Right with inputs built the documented way, wrong (off by one) with inputs borrowed from NumPy."""
    name = "construction-sensitive"
    constructions = ("tensor", "from_numpy")

    def run(self, case):
        out = clip_formula(case)
        if self.construction == "from_numpy" and "borrowed" in case.label:
            out = out + 1
        return Outcome.returned(out=out, x=case.inputs["x"].copy())


class LyingRepro(_Clip):
    """Returns clip's value off by one, and a repro script that exits 0 whatever happens."""
    name = "lying-repro"

    def run(self, case):
        return Outcome.returned(out=clip_formula(case) + 1, x=case.inputs["x"].copy())

    def repro(self, case, expectation=None):
        return 'print("all fine")\n'


class ClaimsUnknownOp(GoodClip):
    """Lists an op the oracle does not register beside clip."""
    name = "claims-unknown-op"
    ops = ("clip", "no_such_op")
