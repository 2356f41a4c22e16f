"""Large-tensor cases: flat indices, offsets and strides past 2**31, the oracle against torch CPU.

A 64-bit index or offset truncated to 32 bits is a real divergence that only shows on tensors this size,
and no corpus case can carry one: the case wire caps an array at 2**26 elements (contract.codec).  So these
cases are built here, in memory, and run the oracle's solvers and torch's native calls directly, not
through the adapters' worker processes.  suites/test_large.py runs them under the opt-in `large` profile:

    .venv/bin/python -m pytest suites/test_large.py --profile large -p no:xdist

Each case needs its `gib` of free memory (checked before it starts) and prints the oracle's and torch's
seconds and the process's peak resident memory.  Input values repeat with a period that is no power of
two, so an element read or written at a wrapped (mod 2**32) position holds another value and shows.
"""
from __future__ import annotations

import importlib
import time
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

TWO31 = 1 << 31
PERIOD = (1 << 20) + 7          # the fill pattern's period: not a power of two
BLOCK = 1 << 24                 # elements compared per step (no temporaries the size of the tensor)


@dataclass(frozen=True)
class LargeCase:
    name: str
    what: str
    gib: float                              # peak memory the case needs, inputs and both answers
    run: Callable[[object], dict]           # torch -> {"oracle_s", "torch_s"}; raises AssertionError on a mismatch


def filled(n, dtype, seed, lo=-8, hi=8):
    """n elements of dtype: a random pattern of PERIOD values, repeated."""
    rng = np.random.default_rng(seed)
    pattern = rng.integers(lo, hi, PERIOD).astype(dtype) if np.dtype(dtype).kind in "iu" else \
        (rng.standard_normal(PERIOD) * 2).astype(dtype)
    out = np.empty(n, dtype)
    for i in range(0, n, PERIOD):
        out[i:i + PERIOD] = pattern[:n - i]
    return out


def assert_same(name, actual, expected):
    """Bit-equal, block by block (floats: NaN equals NaN; no NaN is made here)."""
    a, e = np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)
    if a.shape != e.shape or a.dtype != e.dtype:
        raise AssertionError(f"{name}: actual {a.dtype}{list(a.shape)}, expected {e.dtype}{list(e.shape)}")
    for i in range(0, a.size, BLOCK):
        x, y = a[i:i + BLOCK], e[i:i + BLOCK]
        if not np.array_equal(x, y):
            bad = i + int(np.flatnonzero(x != y)[0])
            raise AssertionError(f"{name}: first difference at flat index {bad} (past 2**31: {bad >= TWO31}): "
                                 f"actual {a[bad]!r}, expected {e[bad]!r}")


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _from_numpy(torch, a):
    with warnings.catch_warnings():     # a read-only input: torch only reads it
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(a)


# ---- clip: more than 2**31 elements -------------------------------------------------------------

def _clip(torch):
    clip = importlib.import_module("oracle.clip")
    x = filled(TWO31 + (1 << 20), np.float16, 1)
    x.flags.writeable = False       # the oracle's unchanged-input output shares it
    outputs, t_oracle = _timed(lambda: clip.solve(x, clip.Bound("float", -0.5), clip.Bound("float", 0.5))[0])
    out = outputs["out"].value
    del outputs
    theirs, t_torch = _timed(lambda: torch.clamp(_from_numpy(torch, x), -0.5, 0.5))
    assert_same("clip out", theirs.numpy().view(np.int16), out.view(np.int16))
    return {"oracle_s": t_oracle, "torch_s": t_torch}


# ---- scatter: flat targets past 2**31 ---------------------------------------------------------------

def _scatter(torch):
    scatter = importlib.import_module("oracle.scatter")
    rows, cols = (1 << 16) + 64, 1 << 15            # 2**31 + 2**21 elements; the last 64 rows lie past 2**31
    self_ = filled(rows * cols, np.uint8, 2, 0, 250).reshape(rows, cols)
    i = np.arange(8)[:, None]
    index = (1 << 16) + (i * 7 + np.arange(cols)[None, :]) % 64      # distinct rows along dim 0: no SC-DUP
    src = filled(8 * cols, np.uint8, 3, 0, 250).reshape(8, cols)
    outputs, t_oracle = _timed(lambda: scatter.solve(self_, 0, index, src)[0])
    out = outputs["out"].value
    del outputs
    theirs, t_torch = _timed(lambda: torch.from_numpy(self_).scatter(0, torch.from_numpy(index),
                                                                      torch.from_numpy(src)))
    assert_same("scatter out", theirs.numpy(), out)
    return {"oracle_s": t_oracle, "torch_s": t_torch}


# ---- scatter_nd_add: flat offsets past 2**31, N=1 and N=2 -------------------------------------------

def _sna(torch, depth):
    sna = importlib.import_module("oracle.scatter_nd_add")
    cols = 1 << 15
    if depth == 1:
        shape = ((1 << 16) + 64, cols)
        idx = (1 << 16) + np.random.default_rng(4).integers(0, 64, (1000, 1))     # repeats: SNA-DUP sums
    else:
        shape = ((1 << 8) + 4, 1 << 8, cols)
        rng = np.random.default_rng(5)
        idx = np.stack([(1 << 8) + rng.integers(0, 4, 1000), rng.integers(0, 1 << 8, 1000)], axis=1)
    x = filled(int(np.prod(shape)), np.int8, 6).reshape(shape)
    upd = filled(1000 * cols, np.int8, 7, -2, 3).reshape(1000, cols)
    outputs, t_oracle = _timed(lambda: sna.solve(x, idx, upd)[0])
    out = outputs["out"].value
    del outputs
    tidx = tuple(torch.from_numpy(np.ascontiguousarray(idx[:, j])) for j in range(depth))
    theirs, t_torch = _timed(lambda: torch.from_numpy(x).clone().index_put_(tidx, torch.from_numpy(upd),
                                                                            accumulate=True))
    assert_same("scatter_nd_add out", theirs.numpy(), out)
    return {"oracle_s": t_oracle, "torch_s": t_torch}


# ---- set_: storage_offset and strides past 2**31 -------------------------------------------------------

def _set(torch, offset, size, stride):
    set_mod = importlib.import_module("oracle.set_")
    storage = filled(TWO31 + (1 << 20), np.int8, 8)
    target = np.zeros((2, 2), np.int8)
    args = {"storage_offset": offset, "size": size, "stride": stride}
    outputs, t_oracle = _timed(lambda: set_mod.solve(target, "storage", storage, None, args, probe=5)[0])

    def theirs():
        src = torch.from_numpy(storage)     # torch works on the input itself: the oracle has its answer
        t = torch.from_numpy(target.copy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)     # TypedStorage is deprecated; set_ documents it
            t.set_(src.storage(), offset, size, stride)
        before = t.clone()
        t.fill_(5)
        return before, src
    (before, src), t_torch = _timed(theirs)
    assert_same("set_ self", before.numpy(), outputs["self"].value)
    assert_same("set_ source_after_fill", src.numpy(), outputs["source_after_fill"].value)
    return {"oracle_s": t_oracle, "torch_s": t_torch}


CASES = (
    LargeCase("clip-float16-2^31", "clip of 2**31 + 2**20 float16 elements, scalar bounds", 13.5, _clip),
    LargeCase("scatter-uint8-flat-2^31", "scatter along dim 0 into the rows of a (65600, 32768) uint8 self "
              "whose flat offsets pass 2**31", 7.0, _scatter),
    LargeCase("scatter_nd_add-int8-N1-2^31", "scatter_nd_add, 1000 updates (repeats) into rows past 2**31 of a "
              "(65600, 32768) int8 x, N=1", 7.0, lambda torch: _sna(torch, 1)),
    LargeCase("scatter_nd_add-int8-N2-2^31", "scatter_nd_add, N=2 indices into a (260, 256, 32768) int8 x, "
              "offsets past 2**31", 7.0, lambda torch: _sna(torch, 2)),
    LargeCase("set_-storage_offset-2^31", "set_(Storage) with storage_offset 2**31 + 5 into a 2**31 + 2**20 "
              "int8 storage", 7.0, lambda torch: _set(torch, TWO31 + 5, (4, 8), (16, 1))),
    LargeCase("set_-stride-2^31", "set_(Storage) with a stride of 2**30 + 1 reaching past 2**31",
              7.0, lambda torch: _set(torch, 3, (3, 2), ((1 << 30) + 1, 7))),
)


# ---- memory ----------------------------------------------------------------------------------------

def _proc_gib(path, key, unknown) -> float:
    """The `key:` line of a /proc file (a figure in KiB), in GiB; `unknown` where the file or line is absent."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / (1 << 20)
    except OSError:
        pass
    return unknown


def available_gib() -> float:
    """MemAvailable in GiB (inf where /proc/meminfo is absent)."""
    return _proc_gib("/proc/meminfo", "MemAvailable", float("inf"))


def reset_peak() -> None:
    """Start a new peak-RSS window (Linux: writing 5 to clear_refs resets VmHWM)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_gib() -> float:
    """Peak resident memory of this process since the last reset_peak(), in GiB (nan where unknown)."""
    return _proc_gib("/proc/self/status", "VmHWM", float("nan"))
