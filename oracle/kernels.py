"""Vectorised NumPy formulations of the oracle's hot loops, for large inputs (issue 14).

Each function computes exactly what the op module's plain formulation computes (tests/test_oracle_kernels.py
checks them against it on random inputs); the op modules keep the plain formulation for the shapes and
dtypes a fast path does not cover.  Stays in NumPy: no C extension.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from contract.dtypes import is_float

CHUNK = 1 << 16     # elements per block: a block's temporaries stay in the core's L2 cache
LARGE = 1 << 15     # elements from which the op modules take a fast path (below it the plain one is as quick)
# NumPy releases the GIL inside its loops, so independent parts of one large call run side by side, the way
# torch's own threads do; every part writes its own elements, so the answer does not depend on the threads.
THREADS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
_POOL = None
_POOL_PID = None


def in_parallel(calls):
    """The results of the calls (independent, non-nesting NumPy work), run on up to THREADS threads."""
    global _POOL, _POOL_PID
    if THREADS == 1 or len(calls) < 2:
        return [c() for c in calls]
    if _POOL is None or _POOL_PID != os.getpid():       # a forked child has no pool threads: make its own
        _POOL, _POOL_PID = ThreadPoolExecutor(THREADS - 1, thread_name_prefix="oracle-kernels"), os.getpid()
    rest = [_POOL.submit(c) for c in calls[1:]]
    return [calls[0]()] + [f.result() for f in rest]


def _parts(n, step):
    """[start, stop) ranges splitting range(n) into up to THREADS parts whose starts are multiples of step."""
    per = -(-n // (THREADS * step)) * step
    return [(i, min(i + per, n)) for i in range(0, n, per)] if n else []


# ---- clip -----------------------------------------------------------------------------------------
# NumPy 1.x has no SIMD loops for float16: a comparison or a cast costs ~5 ns an element.  On the int16
# view the total-order key  k = bits ^ ((bits >> 15) & 0x7fff)  orders every non-NaN half like its value,
# except that -0 (key -1) sorts just below +0 (key 0), and it is its own inverse.  NumPy's clip is
# min(max(x, lo), hi) with ties kept on the left operand (_NPY_MAX(a, b) = a >= b ? a : b), so in key space
# a float tie between zeros of different signs needs the class of the bound: the least key equal to lo
# (x < lo), the greatest key equal to hi (r > hi).

_F16_INF_KEY = 0x7C00        # +inf; NaN keys lie above it or below -inf's key
_F16_NINF_KEY = -0x7C01


@dataclass
class ClipFacts:
    out: np.ndarray
    lo_nan: bool = False        # some lo element is NaN (CL-NAN-BOUND)
    hi_nan: bool = False
    x_nan_unbounded: bool = False   # NaN in x where no bound is NaN (CL-GAP-NAN-X)
    lo_gt_hi: bool = False      # some lo > hi (CL-MIN-GT-MAX)


def _key16(bits, out):
    np.right_shift(bits, 15, out=out)
    np.bitwise_and(out, 0x7FFF, out=out)
    np.bitwise_xor(out, bits, out=out)
    return out


def clip_pass(x, lo, hi):
    """ClipFacts for clip(x, lo, hi) in one blocked pass, or None where the plain formulation must run.

    x: float16/32/64, C-contiguous, non-empty; lo/hi: None, a 0-d array or an array of x's shape and dtype,
    C-contiguous (the bound operands of oracle.clip's solve); at least one bound."""
    if x.dtype not in (np.float16, np.float32, np.float64) or not x.flags.c_contiguous or x.size == 0:
        return None
    bounds = [b for b in (lo, hi) if b is not None]
    if not bounds:
        return None
    for b in bounds:
        if not isinstance(b, np.ndarray) or b.dtype != x.dtype or (
                b.ndim and (b.shape != x.shape or not b.flags.c_contiguous)):
            return None
    result = np.empty_like(x)
    flat = x.reshape(-1)
    out = result.reshape(-1)
    lo_f = None if lo is None else (lo if lo.ndim == 0 else lo.reshape(-1))
    hi_f = None if hi is None else (hi if hi.ndim == 0 else hi.reshape(-1))

    # a float16 block holds twice the elements: the same bytes, half the calls
    step = CHUNK * (2 if x.dtype == np.float16 else 1)

    def part(start, stop):
        facts = ClipFacts(result)
        block = (_Half if x.dtype == np.float16 else _Wide)(lo_f, hi_f, min(stop - start, step))
        for i in range(start, stop, step):
            j = min(i + step, stop)
            block.run(flat[i:j], None if lo_f is None else _part(lo_f, i, j),
                      None if hi_f is None else _part(hi_f, i, j), out[i:j], facts)
        return facts
    every = in_parallel([lambda a=a, b=b: part(a, b) for a, b in _parts(flat.size, step)])
    return ClipFacts(result, *(any(getattr(f, k) for f in every)
                               for k in ("lo_nan", "hi_nan", "x_nan_unbounded", "lo_gt_hi")))


def _part(b, i, j):
    return b if b.ndim == 0 else b[i:j]


def zero_signs(x, lo, hi, out):
    """The sign of a zero result of clip, by the formula read left to right: max(a, b) and min(a, b) keep
    a where a == b (+0.0 against -0.0).  The document leaves that sign open (reported, not failed); fixing
    it here keeps the answer the same on every NumPy (np.clip let the bound win such ties before NumPy 2).
    Used by oracle.clip's plain formulation and by the fast path's plain blocks."""
    zero = out == 0
    if not (is_float(out.dtype) and zero.any()):
        return
    m = x if lo is None else np.where(x < lo, lo, x)
    m = m if hi is None else np.where(m > hi, hi, m)
    np.copyto(out, m, where=zero, casting="unsafe")


def _plain_block(xc, loc, hic, oc, facts):
    """The op module's own formulation on one block (NaN present, or float16 bounds with NaN)."""
    with np.errstate(invalid="ignore"):
        if loc is not None and hic is not None:
            np.clip(xc, loc, hic, out=oc, casting="unsafe")
        elif loc is not None:
            np.maximum(xc, loc, out=oc, casting="unsafe")
        else:
            np.minimum(xc, hic, out=oc, casting="unsafe")
        zero_signs(xc, loc, hic, oc)
        nan_bound = np.zeros((), bool)
        for b, name in ((loc, "lo_nan"), (hic, "hi_nan")):
            if b is not None:
                isnan = np.isnan(b.astype(np.float64))
                if isnan.any():
                    setattr(facts, name, True)
                    nan_bound = nan_bound | isnan
        if (np.isnan(xc) & ~nan_bound).any():
            facts.x_nan_unbounded = True
        if loc is not None and hic is not None and np.any(loc > hic):
            facts.lo_gt_hi = True


class _Wide:
    """float32/float64 blocks: NumPy's SIMD maximum and minimum (its clip has no SIMD loop), the NaN checks as
    min reductions; a block with a NaN anywhere runs plain.  SIMD maximum and minimum let one operand win a
    tie of zeros (+0.0 against -0.0; which one is the CPU's choice), where the formula keeps its left operand
    (zero_signs): where a bound can be a zero, the ties get the left operand back, found by one comparison
    (a scalar bound that is not zero cannot tie with a zero)."""

    def __init__(self, lo, hi, size):
        self.mask, self.mask2 = np.empty(size, bool), np.empty(size, bool)
        self.scalar_nan = any(b is not None and b.ndim == 0 and np.isnan(b) for b in (lo, hi))
        self.lo_tie, self.hi_tie = (b is not None and bool(b.ndim or b == 0) for b in (lo, hi))

    def run(self, xc, loc, hic, oc, facts):
        if self.scalar_nan or np.isnan(np.min(xc)) or any(
                b is not None and b.ndim and np.isnan(np.min(b)) for b in (loc, hic)):
            _plain_block(xc, loc, hic, oc, facts)
            return
        if loc is not None:
            np.maximum(xc, loc, out=oc)
            if self.lo_tie and self._ties(xc, loc).any():
                np.copyto(oc, xc, where=self.mask[:xc.size])        # max(x, lo) keeps x on a tie
        if hic is not None:
            r = xc if loc is None else oc
            kept = None
            if self.hi_tie and self._ties(r, hic).any():
                tie = np.flatnonzero(self.mask[:xc.size])
                kept = tie, r[tie]
            np.minimum(r, hic, out=oc)
            if kept is not None:
                oc[kept[0]] = kept[1]                               # min(r, hi) keeps r on a tie
        if loc is not None and hic is not None and not facts.lo_gt_hi:
            gt = np.greater(loc, hic, out=self.mask[:xc.size]) if (loc.ndim or hic.ndim) else loc > hic
            facts.lo_gt_hi = bool(gt.any())


    def _ties(self, a, b):
        """self.mask: where a and b are both zeros (b a zero scalar or an array); b is read only where a
        has a zero at all."""
        m = np.equal(a, 0, out=self.mask[:a.size])
        if b.ndim and m.any():
            np.logical_and(m, np.equal(b, 0, out=self.mask2[:a.size]), out=m)
        return m


class _Half:
    """float16 blocks on the int16 bits (see the note above); a block with a NaN anywhere runs plain.

    Scalar bounds whose signs settle the order take one or two integer min/max passes on the raw bits.  Other
    bounds go to key space: k = mag ^ (bits >> 15) with mag = bits & 0x7fff (the same key as above: the
    magnitude serves the NaN check on the way), then max and min of keys, then back.  max and min of keys
    are NumPy's max and min of the values but for one tie each: x = -0 against lo = +0 (NumPy keeps -0, the
    key max gives +0) and r = +0 against hi = -0 (NumPy keeps +0); only a block holding zeros on both sides
    of such a pair looks for it.  A scalar operand is a block of its value: NumPy's integer max/min have
    SIMD loops for two arrays, not for an array and a scalar (~4x slower), nor does its clip."""

    def __init__(self, lo, hi, n):
        self.kx, self.kl_buf, self.kh_buf, self.t = (np.empty(n, np.int16) for _ in range(4))
        self.m, self.m2 = np.empty(n, bool), np.empty(n, bool)
        self.kl = None if lo is None or lo.ndim else _key16(lo.view(np.int16), np.empty((), np.int16))
        self.kh = None if hi is None or hi.ndim else _key16(hi.view(np.int16), np.empty((), np.int16))
        self.scalar_nan = any(k is not None and not _F16_NINF_KEY <= k <= _F16_INF_KEY for k in (self.kl, self.kh))
        self.scalar_gt = self.kl is not None and self.kh is not None and _gt16(self.kl, self.kh, None)
        self.mode = None if self.scalar_nan or (lo is not None and lo.ndim) or (hi is not None and hi.ndim) \
            else _sign_mode(lo, hi, self.scalar_gt)
        if self.mode is not None:
            _, lb, hb = self.mode
            self.lb = None if lb is None else np.full(n, lb, np.uint16)
            self.hb = None if hb is None else np.full(n, hb, np.uint16)
        else:
            self.klb = None if self.kl is None else np.full(n, self.kl, np.int16)
            self.khb = None if self.kh is None else np.full(n, self.kh, np.int16)

    def run(self, xc, loc, hic, oc, facts):
        if self.scalar_nan:
            _plain_block(xc, loc, hic, oc, facts)
        elif self.mode is not None:
            if _nan16(xc):
                _plain_block(xc, loc, hic, oc, facts)
            else:
                self._by_sign(xc, oc)
                facts.lo_gt_hi |= self.scalar_gt
        elif not self._by_key(xc, loc, hic, oc, facts):
            _plain_block(xc, loc, hic, oc, facts)

    def _key(self, a, buf, zero=True):
        """(key of a's bits in buf, whether a holds a zero (False unless asked)), or None where a holds a NaN."""
        mag = np.bitwise_and(a.view(np.uint16), 0x7FFF, out=buf.view(np.uint16))
        if mag.max() > _F16_INF_KEY:
            return None
        zero = zero and mag.min() == 0
        np.bitwise_xor(buf, np.right_shift(a.view(np.int16), 15, out=self.t[:a.size]), out=buf)
        return buf, zero

    def _by_key(self, xc, loc, hic, oc, facts) -> bool:
        """The block in key space: False (nothing written) where a NaN is in it."""
        n = xc.size
        kx = self._key(xc, self.kx[:n], zero=False)      # a tie needs a zero bound: x's zeros matter only then
        kl = (None, False) if loc is None else \
            (self.klb[:n], self.kl == 0) if loc.ndim == 0 else self._key(loc, self.kl_buf[:n])
        kh = (None, False) if hic is None else \
            (self.khb[:n], self.kh == -1) if hic.ndim == 0 else self._key(hic, self.kh_buf[:n])
        if kx is None or kl is None or kh is None:
            return False
        (kx, _), (kl, zl), (kh, zh) = kx, kl, kh
        m, m2, r = self.m[:n], self.m2[:n], self.t[:n]
        if kl is not None:
            np.maximum(kx, kl, out=r)
            if zl:      # the tie x = -0, lo = +0 keeps x's -0
                np.subtract(r, np.logical_and(np.equal(kx, -1, out=m), np.equal(kl, 0, out=m2), out=m),
                            out=r, casting="unsafe")
        else:
            r = kx
        if kh is not None:
            tie = None
            if zh:      # the tie r = +0, hi = -0 keeps r's +0
                tie = np.logical_and(np.equal(r, 0, out=m), np.equal(kh, -1, out=m2), out=m)
            np.minimum(r, kh, out=kx)
            r = kx
            if tie is not None:
                np.add(r, tie, out=r, casting="unsafe")
        if kl is not None and kh is not None and not facts.lo_gt_hi:
            facts.lo_gt_hi = self.scalar_gt if not (loc.ndim or hic.ndim) else _gt16(kl, kh, m2)
        _key16(r, oc.view(np.int16))        # the key is its own inverse on the bits
        return True

    def _by_sign(self, xc, oc):
        """Scalar bounds on the raw bits, no key (x holds no NaN)."""
        kind, lb, hb = self.mode
        n = xc.size
        u, s = xc.view(np.uint16), xc.view(np.int16)
        ou, os_ = oc.view(np.uint16), oc.view(np.int16)
        if kind == "neg-lo/pos-hi":
            # lo < 0 <= hi: a negative below lo has more magnitude bits (unsigned min); a positive above hi
            # has more bits, and every negative is a negative int16 (signed min): no tie changes a bit
            if lb is not None:
                np.minimum(u, self.lb[:n], out=ou)
            if hb is not None:
                np.minimum(s if lb is None else os_, self.hb[:n].view(np.int16), out=os_)
            if lb is None and hb is None:
                np.copyto(ou, u)
        elif kind == "pos-lo":
            # 0 <= lo <= hi: signed order is value order on positives, every negative lies below lo; the one
            # tie that moves a bit is x = -0 against lo = +0 (NumPy keeps -0)
            np.maximum(s, self.lb[:n].view(np.int16), out=os_)
            if hb is not None:
                np.minimum(os_, self.hb[:n].view(np.int16), out=os_)
            if lb == 0:
                minus0 = np.equal(u, 0x8000, out=self.m[:n])
                if minus0.any():
                    np.bitwise_or(ou, np.left_shift(minus0.view(np.uint8).astype(np.uint16), 15), out=ou)
        else:   # "neg-hi": lo <= hi <= -0: unsigned order is reversed value order on negatives, every positive
            # lies above hi; the one tie that moves a bit is x = +0 against hi = -0 (NumPy keeps +0)
            np.maximum(u, self.hb[:n], out=ou)
            if lb is not None:
                np.minimum(ou, self.lb[:n], out=ou)
            if hb == 0x8000:
                plus0 = np.equal(u, 0, out=self.m[:n])
                if plus0.any():
                    np.bitwise_xor(ou, np.left_shift(plus0.view(np.uint8).astype(np.uint16), 15), out=ou)


def _nan16(a) -> bool:
    """Some element of a float16 array is a NaN: a positive NaN is the greatest int16, a negative NaN the
    greatest uint16 (two reductions on the bits, no pass that writes)."""
    return bool(a.view(np.int16).max() > _F16_INF_KEY or a.view(np.uint16).max() > 0xFC00)


def _sign_mode(lo, hi, lo_gt_hi):
    """(kind, lo bits, hi bits) for scalar float16 bounds that the sign of their bits settles, else None."""
    lb = None if lo is None else int(lo.view(np.uint16))
    hb = None if hi is None else int(hi.view(np.uint16))
    neg = lambda b: b is not None and b >= 0x8000      # noqa: E731
    if lo_gt_hi:
        return None
    if (lb is None or neg(lb)) and (hb is None or not neg(hb)):
        return "neg-lo/pos-hi", lb, hb
    if lb is not None and not neg(lb) and (hb is None or not neg(hb)):
        return "pos-lo", lb, hb
    if hb is not None and neg(hb) and (lb is None or neg(lb)):
        return "neg-hi", lb, hb
    return None


def _gt16(kl, kh, buf) -> bool:
    """Some lo > hi in value: the keys' order but for +0 against -0, which are equal values."""
    gt = np.greater(kl, kh, out=buf if (kl.ndim or kh.ndim) else None)
    if not gt.any():
        return False
    return bool((gt & ~((kl == 0) & (kh == -1))).any())


# ---- scatter ----------------------------------------------------------------------------------------
# out[p with p[dim] = index[p]] = vals[p], with the check that no two positions hit one element (SC-DUP).
# Both passes run block by block over an axis other than dim, so that a block's flat targets, the part of
# out it writes and the part of the `written` marks it sets stay in cache; a block holds whole fibres
# along dim only when blocked across dim, but the marks cover all of out, so any blocking counts right.

SCATTER_BLOCK = 1 << 16     # index positions per block


def scatter_store(flat, shape, dim, index, vals) -> int:
    """Store vals at the flat C-order targets of index in `flat` (out, raveled); returns how many distinct
    elements were written.  When that is index.size no two positions collided and `flat` is the answer;
    otherwise `flat` holds one of the admissible answers and the caller builds the set."""
    strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))]
    ndim = index.ndim
    scalar = vals.ndim == 0 or not any(vals.strides)        # the value form: one broadcast value
    if scalar:
        vals = vals.reshape(-1)[:1].reshape(())
    # block along the last axis unless dim is last (then along the first): a block's targets stay local
    axis = ndim - 1 if dim != ndim - 1 else 0
    n_axis = index.shape[axis]
    per = max(1, index.size // max(n_axis, 1))
    step = max(1, SCATTER_BLOCK // per) if ndim > 1 else SCATTER_BLOCK
    written = np.zeros(flat.size, bool)

    def blocks(start, stop):
        # parts write disjoint elements unless two positions collide, and then the caller rebuilds the answer
        for a0 in range(start, stop, step):
            a1 = min(a0 + step, stop)
            sel = tuple(slice(a0, a1) if d == axis else slice(None) for d in range(ndim))
            idx_b = index[sel]
            t = np.multiply(idx_b, strides[dim], dtype=np.intp)
            for d in range(ndim):
                if d == dim or idx_b.shape[d] == 1 and d != axis:
                    continue
                first = a0 if d == axis else 0
                coord = np.arange(first * strides[d], (first + idx_b.shape[d]) * strides[d], strides[d],
                                  dtype=np.intp)
                np.add(t, coord.reshape([-1 if e == d else 1 for e in range(ndim)]), out=t)
            t = t.reshape(-1)       # one flat index and contiguous values: NumPy's fastest fancy store
            flat[t] = vals if scalar else np.ascontiguousarray(vals[sel]).reshape(-1)
            written[t] = True
    in_parallel([lambda a=a, b=b: blocks(a, b) for a, b in _parts(n_axis, step)])
    return int(np.count_nonzero(written))


# ---- scatter_nd_add ----------------------------------------------------------------------------------
# Float sums are taken in float64 in the order of the updates, starting from 0.0, which is what
# np.bincount(rows, weights) computes.  For wide rows the same sums come from the updates grouped by row
# (each row keeping its updates' order) and added rank by rank: rank 0 of every row, then rank 1 of the
# rows that have one, and so on, each step a vectorised row-wise add.  The rows are ordered by count,
# most first, so the rows that have a rank r are a prefix and each step adds in place into a contiguous
# slice; the work goes a block of rows at a time, so that its float64 sums stay in cache.  A row with
# many updates is summed by one reduction down its block (sequential in C order), whose result equals
# bincount's but for the sign of a zero: adding 0.0 (bincount's start) makes it equal.  For narrow rows
# np.add.at's indexed loop makes the same adds as bincount, in the same order, into memory the caller
# can reuse; its counts go into uint8 while no count reaches 256 (a 1 MB output per 1e6 rows stays in cache).

WIDE_ROW = 8            # columns from which row-wise sums beat a flat bincount
WIDE_OUTPUT = 1 << 19   # elements of x from which the flat sums' passes pay for a thread each
LONG_GROUP = 64         # updates of one row from which a reduction beats rank-by-rank adds
ROW_BLOCK = 1 << 18     # float64 sums per block of rows (2 MiB: the core's L2)
BOUND_CHUNK = 1 << 18   # elements per chunk of the flat bound (its temporaries, ~1/4 of it, stay in L2)


def bin_counts(rows, n):
    """np.bincount(rows, minlength=n)'s values: how many of rows name each of range(n), as uint8 where every
    count is below 256, else as int64.  Counted in uint8 first (an output that stays in cache): a count of
    256 or more wraps, which shows as a total short of len(rows); then again in int64."""
    for dtype in (np.uint8, np.int64):
        out = zeros(n, dtype)
        np.add.at(out, rows, dtype(1))
        if dtype is np.int64 or int(out.sum(dtype=np.int64)) == rows.size:
            return out


def bin_sums(flat, u, n, magnitudes=False, out=None):
    """np.bincount(flat, weights=w, minlength=n), w the updates u widened to float64 (their magnitudes if
    asked): each bin's weights added in their order, starting from 0.0 (into `out`, n float64s, when
    given).  np.add.at makes the same adds, CHUNK updates at a time: their float64 copy never exists whole
    (a fresh array costs the kernel's zeroing of its pages)."""
    if out is None:
        out = zeros(n)
    else:
        out.fill(0)
    buf = np.empty(min(CHUNK, flat.size), np.float64)
    with np.errstate(over="ignore", invalid="ignore"):     # inf + -inf is NaN, as bincount has it, silently
        for a in range(0, flat.size, CHUNK):
            b = min(a + CHUNK, flat.size)
            w = buf[:b - a]
            if magnitudes:
                np.abs(u[a:b], out=w, dtype=np.float64)
            else:
                w[...] = u[a:b]
            np.add.at(out, flat[a:b], w)
    return out


@dataclass
class RowGroups:
    """The updates grouped by the row they hit: `order` lists the updates row by row, each row's in their
    order; for each row hit, `rows` its index, `k` its count and `first` its start in `order`, the rows
    ordered by count, most first (so those with k > r are a prefix for every r)."""
    order: np.ndarray
    rows: np.ndarray
    k: np.ndarray
    first: np.ndarray

    def blocks(self, cols):
        """[start, stop) ranges of rows of about ROW_BLOCK sums each."""
        per = max(1, ROW_BLOCK // max(cols, 1))
        return [(i, min(i + per, self.rows.size)) for i in range(0, self.rows.size, per)]


def row_groups(rows, counts) -> RowGroups:
    """The updates of `rows` (indices into counts, which counts them) grouped by row (RowGroups)."""
    m = rows.size
    bits = max(1, (m - 1).bit_length())
    if counts.size <= 1 << (62 - bits):
        # (row, position) keys are distinct, so any sort of them is stable: NumPy's SIMD sort, not a merge sort
        keys = np.left_shift(rows, bits, dtype=np.int64)
        keys |= np.arange(m, dtype=np.int64)
        keys.sort()
        order = np.bitwise_and(keys, (1 << bits) - 1, out=keys)
    else:
        order = np.argsort(rows, kind="stable")
    hit = np.flatnonzero(counts)            # ascending: the order of the rows in `order`
    k = counts[hit].astype(np.int64)        # (counts may be uint8)
    first = np.cumsum(k) - k
    by = np.argsort(-k)                     # any order among equal counts: each row's sum is its own
    return RowGroups(order, hit[by], k[by], first[by])


class Scratch:
    """Buffers a loop over blocks reuses: a fresh large temporary costs its page faults every time (glibc
    hands freed memory at the top of the heap back to the kernel), a reused one only the first time."""

    def __init__(self):
        self._bufs = {}

    def __call__(self, name, shape, dtype):
        n = int(np.prod(shape, dtype=np.int64))
        buf = self._bufs.get(name)
        if buf is None or buf.size < n or buf.dtype != dtype:
            buf = self._bufs[name] = np.empty(n, dtype)
        return buf[:n].reshape(shape)


def group_sums(u2, g, start, stop, with_abs, scratch):
    """(sums, abs_sums) for the rows g.rows[start:stop]: the float64 sum of each row's updates (rows of u2)
    in their order starting from 0.0 (bincount's sum); with_abs: for the rows with k > 1 (a prefix), the
    same sum of the updates' magnitudes, else None.  The updates are widened to float64 by each add (exactly);
    u2 is float16, float32 or float64 (the caller widens bfloat16).  Both live in `scratch` (a Scratch)."""
    k, first = g.k[start:stop], g.first[start:stop]
    cols = u2.shape[1]
    sums = scratch("sums", (k.size, cols), np.float64)
    n_multi = int(np.count_nonzero(k > 1))
    abs_sums = scratch("abs_sums", (n_multi, cols), np.float64) if with_abs else None
    n_long = int(np.count_nonzero(k > LONG_GROUP))
    for p in range(n_long):
        block = u2.take(g.order[first[p]:first[p] + k[p]], axis=0).astype(np.float64)
        np.add(np.add.reduce(block, axis=0), 0.0, out=sums[p])
        if with_abs:
            np.add(np.add.reduce(np.abs(block, out=block), axis=0), 0.0, out=abs_sums[p])
    first = first[n_long:]
    alive = first.size
    rank = 0
    while alive:
        u = np.take(u2, g.order[first[:alive] + rank], axis=0, out=scratch("u", (alive, cols), u2.dtype))
        _add_rank(sums[n_long:n_long + alive], u, rank)
        if with_abs:
            n_abs = min(alive, n_multi - n_long)
            _add_rank(abs_sums[n_long:n_long + n_abs], np.abs(u[:n_abs], out=u[:n_abs]), rank)
        rank += 1
        alive = int(np.count_nonzero(k[n_long:n_long + alive] > rank))
    return sums, abs_sums


def _add_rank(acc, terms, rank):
    """acc += terms in float64, acc being the sums so far of ranks below `rank`; rank 0 starts them from 0.0
    (bincount's start: a -0 term gives +0)."""
    if rank == 0:
        np.add(terms, 0.0, out=acc, dtype=np.float64)
    else:
        np.add(acc, terms, out=acc, dtype=np.float64)


def plus_zero(a, copy=False):
    """a + 0.0 for a float array, in place (or into a copy, returned): -0 becomes +0, every other value stays
    (NumPy 1.x adds float16 and bfloat16 with scalar loops, so those clear the sign bit of -0 on the integer
    view instead)."""
    if a.dtype.itemsize >= 4:
        return np.add(a, a.dtype.type(0), out=None if copy else a)
    a = a.copy() if copy else a
    bits = a.view(np.uint16)
    np.bitwise_xor(bits, np.left_shift(np.equal(bits, 0x8000).view(np.uint8).astype(np.uint16), 15), out=bits)
    return a


def unchanged(a):
    """`a` as an expected output equal to the input: `a` itself when nothing can write it (it and every
    array it views are read-only, as a Case's inputs are), else a copy (the caller may change it later)."""
    cur = a
    while isinstance(cur, np.ndarray):
        if cur.flags.writeable:
            return a.copy()
        cur = cur.base
    return a if cur is None or isinstance(cur, bytes) else a.copy()


def zeros(shape, dtype=np.float64):
    """np.zeros for an array the caller then writes here and there: NumPy's np.empty asks the kernel for
    huge pages (madvise) and fill() faults them in a few at a time, where np.zeros' calloc leaves 4 KiB
    pages that each scattered write faults in (4x slower for an 80 MB bound)."""
    out = np.empty(shape, dtype)
    out.fill(0)
    return out
