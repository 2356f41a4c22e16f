"""mindspore ops.scatter_nd_add (seed mindspore.ops.scatter_nd_add.txt): x[indices[i]] += updates[i].

Readings the document leaves to the oracle: a dtype difference is SNA-DTYPE's TypeError or, by SNA-CONVERT,
a conversion of updates to x's dtype (RuntimeError where impossible): both are admitted (SNA-GAP-CONVERT);
negative or out-of-range indices are SNA-GAP-RANGE (natural: negatives count from the end); an integer sum
outside the dtype is SNA-GAP-OVERFLOW (natural: wrap-around); bool x is SNA-GAP-DTYPE.  Float sums with
repeated indices get a per-element bound derived from their terms (_float_sum); integers compare exactly.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from dataclasses import dataclass

from contract.dtypes import cast, converts_exactly, dtype_name, is_float
from . import kernels
from .errors import Open, accepting, run_checks, value_reading
from .readings.scatter_nd_add import READING
from contract.expectation import BOUND, EXACT, ZERO_REPORT, ExpectedArray
from .opspec import ADDED, Field, OpSpec, alias_gap_row, own_array, need_input

# x's dtypes are not listed (SNA-GAP-DTYPE)
DTYPES = {"indices": ("int32", "int64")}       # SNA-IDX-DTYPE
INDEX_DTYPES = DTYPES["indices"]


def solve(x, indices, updates, use_locking=False):
    """({"out", "x"}: ExpectedArray, clauses); raises SpecError / Either / Unspecified.

    Every check of CHECKS decides on its own whether its clause applies (none waits for another to pass);
    the answer is their composition (errors.Open); the value is computed only where no documented error
    holds and the shapes give one."""
    x, indices, updates = np.asarray(x), np.asarray(indices), np.asarray(updates)
    clauses = ["SNA-RULE", "SNA-SHAPES", "SNA-RETURN"]
    op = Open()
    run_checks(CHECKS, x, indices, updates, use_locking, op, clauses)
    clauses = list(dict.fromkeys(clauses))
    if op.errors or not _shapes_fit(x, indices):
        op.raise_if_any(clauses=clauses)
    n = indices.shape[-1]
    if updates.dtype != x.dtype:
        updates = cast(updates, x.dtype)
    m = int(np.prod(indices.shape[:-1], dtype=np.int64))
    rows = _rows(x.shape[:n], indices.reshape(m, n), op)
    if rows is None:
        op.raise_if_any(clauses=clauses)
    x2 = x.reshape(int(np.prod(x.shape[:n], dtype=np.int64)), int(np.prod(x.shape[n:], dtype=np.int64)))
    u2 = updates.reshape(rows.size, x2.shape[1])
    if is_float(x.dtype):
        out, dup = _float_sum(x2, rows, u2)
    else:
        dup = _repeated(kernels.bin_counts(rows, x2.shape[0]))
        out = _int_sum(x2, rows, u2, op)
    if dup:
        clauses.append("SNA-DUP")       # SNA-DUP: repeated indices accumulate
    outputs = {"out": _reshape(out, x.shape), "x": _reshape(out, x.shape)}
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(clauses)


def _shapes_fit(x, indices) -> bool:
    """SNA-SHAPES' precondition on x and indices: indices of rank >= 2 with a last dim <= rank(x)."""
    return indices.ndim >= 2 and indices.shape[-1] <= x.ndim


def _expected_updates(x, indices):
    """`indices.shape[:-1] + x.shape[indices.shape[-1]:]`, the Raises line's own expression, evaluated as
    written wherever it has a value: indices with a last dim (a rank-1 indices, or N > rank(x) where
    x.shape[N:] is (), included: the expression does not wait for SNA-SHAPES)."""
    if indices.ndim < 1:
        return None
    return indices.shape[:-1] + x.shape[indices.shape[-1]:]


def _check_lock(x, indices, updates, use_locking, op, clauses):
    if not isinstance(use_locking, (bool, np.bool_)):       # SNA-LOCK
        op.error("SNA-LOCK", "TypeError", f"use_locking={use_locking!r} is not a bool")


def _check_index_dtype(x, indices, updates, use_locking, op, clauses):
    if dtype_name(indices.dtype) not in INDEX_DTYPES:       # SNA-IDX-DTYPE
        op.error("SNA-IDX-DTYPE", "TypeError", f"indices dtype {indices.dtype}, not int32/int64")


def _check_shapes(x, indices, updates, use_locking, op, clauses):
    if not _shapes_fit(x, indices):                          # SNA-SHAPES: a "must" with no consequence
        op.note("SNA-SHAPES", f"indices of shape {list(indices.shape)} for x of rank {x.ndim}: "
                              "needs rank >= 2 and a last dim <= rank(x)")


def _check_updates_shape(x, indices, updates, use_locking, op, clauses):
    want = _expected_updates(x, indices)
    if want is not None and updates.shape != want:           # SNA-UPD-SHAPE
        op.error("SNA-UPD-SHAPE", "ValueError", f"updates shape {list(updates.shape)}, expected {list(want)}")


def _check_dtype(x, indices, updates, use_locking, op, clauses):
    if updates.dtype != x.dtype:
        _converted(x, updates, op, clauses)


def _check_bool(x, indices, updates, use_locking, op, clauses):
    if dtype_name(x.dtype) == "bool":
        op.note("SNA-GAP-DTYPE", "bool x: addition is not defined for bool (natural: logical or)")


CHECKS = (_check_lock, _check_index_dtype, _check_shapes, _check_updates_shape, _check_dtype, _check_bool)


# Two sentences on a dtype difference (SNA-GAP-CONVERT): SNA-DTYPE raises TypeError for any difference;
# SNA-CONVERT raises RuntimeError only when updates "cannot be converted" to x's dtype, which presumes the
# conversion happens when it can.  Both readings are admitted.
CONVERT_CLAUSES = ("SNA-DTYPE", "SNA-CONVERT", "SNA-GAP-CONVERT")
DTYPE_ERRORS = ("TypeError", "RuntimeError")


def _converted(x, updates, op, clauses):
    """Notes the reading of a dtype difference on `op`: "raises TypeError or RuntimeError, or returns the
    sum with updates converted" where every value of updates converts exactly; where one does not, the
    conversion rule the second reading needs is not stated, so the value is open.  With a documented
    error as well (a wrong shape), the composition admits its class beside these two."""
    clauses.extend(CONVERT_CLAUSES)
    what = f"updates {updates.dtype} and x {x.dtype} differ"
    converted = cast(updates, x.dtype)
    if converts_exactly(updates, converted):
        op.note_accept("SNA-DTYPE", f"{what}: TypeError (SNA-DTYPE), or updates converted to {x.dtype} "
                                    "(SNA-CONVERT)", DTYPE_ERRORS)
    else:
        op.note_accept("SNA-DTYPE", f"{what}: TypeError (SNA-DTYPE) or RuntimeError (SNA-CONVERT)", DTYPE_ERRORS)
        op.note("SNA-GAP-CONVERT", f"{what}, and some value of updates has no exact {x.dtype}: the "
                                   "conversion rule is not stated")


def _rows(lead_shape, idx, op):
    """The row of x (x viewed as (prod(x.shape[:N]), -1)) each index addresses; None if some are outside x."""
    if idx.shape[1] == 0:
        return np.zeros(idx.shape[0], np.intp)
    dims = np.asarray(lead_shape, dtype=np.int64)
    if idx.shape[0]:
        lo, hi = idx.min(axis=0).astype(np.int64), idx.max(axis=0).astype(np.int64)    # one pass per column
        if (lo < -dims).any() or (hi >= dims).any():
            op.note("SNA-GAP-RANGE", "indices outside x's shape (no natural value)")
            return None
        if (lo < 0).any():
            op.note("SNA-GAP-RANGE", "negative indices: not mentioned (natural: counted from the end)")
            idx = np.where(idx < 0, idx + dims.astype(idx.dtype), idx)
    if idx.shape[1] == 1:
        return idx[:, 0].astype(np.intp, copy=False)
    return np.ravel_multi_index(tuple(idx.T), lead_shape).astype(np.intp, copy=False)


def _float_sum(x2, rows, u2):
    """Value and per-element bound for a float sum whose order the doc leaves open.

    Each output element is s = t0 + t1 + ... + tk (t0 = x, k = updates that hit it), summed by the
    implementation in some order in the dtype (unit roundoff u) or wider.  Any order of recursive
    summation obeys |s_impl - s| <= gamma_k * sum|t_i|, gamma_k = k*u / (1 - k*u) (Higham, Accuracy and
    Stability, 4.2); a wider accumulator rounded once at the end stays within gamma_k*sum|t| + u*|s|.
    The oracle sums in float64 (error <= gamma_k(2^-53) * sum|t|) and rounds once (<= u*|s| <= u*sum|t|),
    so |s_impl - value| <= (gamma_k(u) + u + gamma_k(2^-53)) * sum|t|.  With k <= 1 there is a single
    correctly rounded addition: exact (bound 0).  If sum|finite t| exceeds the dtype's max, a partial sum
    may overflow in one order and not in another: bound inf (any non-NaN value).

    Returns (the expected array, whether some element is hit more than once).
    """
    dt = x2.dtype
    cols = x2.shape[1]
    if cols >= kernels.WIDE_ROW and rows.size and x2.size >= kernels.LARGE:
        counts = kernels.bin_counts(rows, x2.shape[0])
        dup = _repeated(counts)
        return _float_sum_rows(x2, rows, u2, counts, dup), dup
    flat = rows if cols == 1 else (rows[:, None] * cols + np.arange(cols)).ravel()
    if max(x2.size, flat.size) >= kernels.LARGE:
        return _float_sum_flat(x2, rows, flat, u2)
    w = u2.astype(np.float64).ravel()
    # the plain formulation: flat bincounts over every element
    counts = np.bincount(rows, minlength=x2.shape[0])
    dup = _repeated(counts)
    s = np.bincount(flat, weights=w, minlength=x2.size).astype(np.float64, copy=False)   # no updates: int64
    with np.errstate(over="ignore"):     # a sum beyond the dtype's range is inf, as in the dtype itself
        s = np.add(s, x2.reshape(-1), out=s)   # x widened by the add itself: no float64 copy of x
        value = cast(s, dt).reshape(x2.shape)
    if not dup:
        return ExpectedArray(value, EXACT, zero_sign=ZERO_REPORT), False
    # the sums of magnitudes (an inf/NaN term makes s non-finite, which takes bound 0 in _bound, so |t| needs
    # no masking here)
    mag = np.bincount(flat, weights=np.abs(w, out=w), minlength=x2.size) + np.abs(x2.reshape(-1))
    k = counts if cols == 1 else np.repeat(counts, cols)
    bound = np.zeros(x2.size)
    hit = np.flatnonzero(k > 1)
    bound[hit] = _bound(k[hit], mag[hit], s[hit], dt)
    return ExpectedArray(value, BOUND, bound=bound.reshape(x2.shape), zero_sign=ZERO_REPORT), True


def _repeated(counts) -> bool:
    """Some row is hit more than once (SNA-DUP): one reduction, no temporary."""
    return bool(counts.size) and int(counts.max()) > 1


def _float_sum_flat(x2, rows, flat, u2):
    """_float_sum for a large x or many updates of narrow rows: the same value and bound, by np.add.at into
    memory reused from pass to pass, the bound a chunk at a time."""
    dt, cols = x2.dtype, x2.shape[1]
    xf, u = x2.reshape(-1), u2.reshape(-1)     # (u: updates element by element, as flat indexes them)

    parallel = x2.size >= kernels.WIDE_OUTPUT      # the output is large enough for random writes to dominate

    # the counts and the sums are independent passes: side by side
    def counting():
        counts = kernels.bin_counts(rows, x2.shape[0])
        return counts if _repeated(counts) else None

    def summing():
        # a sum beyond the dtype's range is inf, as in the dtype itself; inf + -inf is NaN (on a thread: its
        # own error state)
        with np.errstate(over="ignore", invalid="ignore"):
            s = kernels.bin_sums(flat, u, x2.size)
            np.add(s, xf, out=s, dtype=np.float64)      # x widened by the add itself
            return s, cast(s, dt).reshape(x2.shape)
    sides = [counting, summing]
    counts, (s, value) = kernels.in_parallel(sides) if parallel else [f() for f in sides]
    if counts is None:
        return ExpectedArray(value, EXACT, zero_sign=ZERO_REPORT), False
    k = counts if cols == 1 else np.repeat(counts, cols)
    chunks = [(a, min(a + kernels.BOUND_CHUNK, x2.size)) for a in range(0, x2.size, kernels.BOUND_CHUNK)]
    top = int(k.max()) + 1
    factors = _factors(np.arange(top, dtype=np.float64), dt) if top < x2.size else None     # once per count
    scratch = kernels.Scratch()
    for a, b in chunks:
        # an inf/NaN term makes s non-finite, which decides the sum in every order (bound 0, as for a single
        # update): k = 1 there, so s is not needed again and |t| needs no masking
        finite = np.isfinite(s[a:b], out=scratch("finite", (b - a,), bool))
        if not finite.all():
            k[a:b][np.logical_not(finite, out=finite)] = 1
    # the sums of magnitudes, then the bound, in s's memory unless the value is s itself (a fresh array
    # costs the kernel's zeroing of its pages)
    mags = kernels.bin_sums(flat, u, x2.size, magnitudes=True, out=None if np.may_share_memory(value, s) else s)

    def bounds(chunks):
        """The bound over these [start, stop) chunks, written over the sums of magnitudes: a chunk at a time,
        its temporaries in reused buffers (a fresh large temporary costs its page faults)."""
        scratch = kernels.Scratch()
        with np.errstate(over="ignore"):
            for a, b in chunks:
                hit = np.flatnonzero(k[a:b] > 1)
                bound = None
                if hit.size:
                    # (take without out=: NumPy's take into a given array is slower than into a new one)
                    mag = mags[a:b].take(hit)
                    xs = xf[a:b].take(hit)
                    np.add(mag, np.abs(xs, out=xs), out=mag, dtype=np.float64)
                    bound = _bound(k[a:b].take(hit), mag, None, dt,
                                   out=scratch("bound", hit.shape, np.float64),
                                   mask=scratch("mask", hit.shape, bool), factors=factors)
                mags[a:b] = 0
                if bound is not None:
                    mags[a:b][hit] = bound
    kernels.in_parallel([lambda part=part: bounds(part) for part in (chunks[0::2], chunks[1::2]) if part]
                        if parallel else [lambda: bounds(chunks)])
    return ExpectedArray(value, BOUND, bound=mags.reshape(x2.shape), zero_sign=ZERO_REPORT), True


def _float_sum_rows(x2, rows, u2, counts, dup):
    """_float_sum for wide rows: the same value and bound, summed row-wise over the rows hit only, a block of
    rows at a time (the blocks write disjoint rows: split over threads)."""
    dt = x2.dtype
    if u2.dtype not in (np.float16, np.float32, np.float64):
        u2 = u2.astype(np.float64)      # ml_dtypes' bfloat16: widen once
    native = dt in (np.float16, np.float32, np.float64)
    # the grouping, x + 0.0 for every element (an element no update hits keeps it: -0 becomes +0) and a zero
    # bound, side by side
    (groups, value), bound = kernels.in_parallel([
        lambda: (kernels.row_groups(rows, counts), kernels.plus_zero(x2, copy=True)),
        lambda: kernels.zeros(x2.shape) if dup else None])

    def run(blocks):
        scratch = kernels.Scratch()
        with np.errstate(over="ignore", invalid="ignore"):     # inf - inf is NaN, as in the dtype
            for start, stop in blocks:
                one(start, stop, scratch)

    def one(start, stop, scratch):
        sums, abs_sums = kernels.group_sums(u2, groups, start, stop, dup, scratch)
        hit = groups.rows[start:stop]
        xs = np.take(x2, hit, axis=0, out=scratch("x", (hit.size, x2.shape[1]), dt))
        s = np.add(sums, xs, out=sums, dtype=np.float64)
        value[hit] = s if native else cast(s, dt)     # NumPy's own cast rounds once except to bfloat16
        if dup and abs_sums.shape[0]:
            n = abs_sums.shape[0]
            mag = np.add(abs_sums, np.abs(xs[:n], out=xs[:n]), out=abs_sums, dtype=np.float64)
            bound[hit[:n]] = _bound(groups.k[start:start + n][:, None], mag, s[:n], dt,
                                    out=scratch("bound", mag.shape, np.float64), mask=scratch("mask", mag.shape, bool))
    blocks = groups.blocks(x2.shape[1])
    kernels.in_parallel([lambda part=part: run(part) for part in (blocks[0::2], blocks[1::2]) if part])
    if not dup:
        return ExpectedArray(value, EXACT, zero_sign=ZERO_REPORT)
    return ExpectedArray(value, BOUND, bound=bound, zero_sign=ZERO_REPORT)


def _bound(k, mag, s, dt, out=None, mask=None, factors=None):
    """The bound of _float_sum where k > 1 updates hit an element (k broadcasts against mag and s; s None:
    the caller has left out the elements whose sum is not finite), written into `out` and using `mask`
    (float64 and bool buffers of mag's shape) when given; `factors`: _factors(arange(top), dt) for some top
    above every k, when the caller has them."""
    if factors is None:
        top = int(k.max()) + 1
        # the k-only factors once per count where there are fewer counts than elements, else per element
        factors = _factors(np.arange(top, dtype=np.float64) if top < k.size else k.astype(np.float64), dt)
        at = k if top < k.size else Ellipsis
    else:
        at = k
    at = at.astype(np.intp, copy=False) if at is not Ellipsis else at   # (the counts as an index once)
    with np.errstate(invalid="ignore", over="ignore"):     # inf * 0 where k*u >= 1: NaN, as before
        # mag itself is a float64 sum, low by at most g64 relative: inflate by that and the bound's own rounding
        bound = np.multiply(factors[0][at], mag, out=out)
        np.multiply(bound, factors[1][at], out=bound)
        over = np.greater(mag, _max(dt), out=mask)
        if over.any():          # (most calls have neither: one comparison and one reduction each)
            np.copyto(bound, np.inf, where=over)
        finite = None if s is None else np.isfinite(s, out=mask)
        if finite is not None and not finite.all():    # a NaN/inf term decides the sum in every order
            np.copyto(bound, 0.0, where=np.logical_not(finite, out=finite))
        return bound


def _factors(kk, dt):
    """The bound's factors of the counts kk (float64): gamma_k(u) + u + g64 and 1 + 2 g64 + 2^-50, where
    g64 = gamma_k(2^-53)."""
    u = _unit_roundoff(dt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        gamma = np.where(kk * u < 1, kk * u / (1 - kk * u), np.inf)
        g64 = kk * 2.0 ** -53 / (1 - kk * 2.0 ** -53)
        return gamma + u + g64, 1 + 2 * g64 + 2.0 ** -50


def _unit_roundoff(dt) -> float:
    mant = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}[dtype_name(dt)]
    return 2.0 ** -(mant + 1)


def _max(dt) -> float:
    return float(ml_dtypes.finfo(dt).max)


def _int_sum(x2, rows, u2, op):
    """Exact integer sum; a result outside the dtype is SNA-GAP-OVERFLOW (natural: two's complement wrap)."""
    if x2.size >= kernels.LARGE and x2.shape[0] > 2 * rows.size:
        # few rows hit in a large x: sum on those rows only (the rest is x itself and cannot overflow)
        uniq, inverse = np.unique(rows, return_inverse=True)
        out = x2.copy()
        out[uniq] = _int_sum(x2[uniq], inverse.reshape(-1), u2, op).value
        return ExpectedArray(out, EXACT)
    dt = x2.dtype
    if dtype_name(dt) == "bool":
        out = x2.copy()
        np.logical_or.at(out, rows, u2)
        return ExpectedArray(out, EXACT)
    wide = x2.astype(np.int64)
    np.add.at(wide, rows, u2.astype(np.int64))
    if dtype_name(dt) == "int64":
        over = _int64_overflow(x2, rows, u2)
    else:
        info = np.iinfo(dt)
        over = (wide < info.min).any() or (wide > info.max).any()
    if over:
        op.note("SNA-GAP-OVERFLOW", f"the sum leaves the range of {dt} (natural: wraps around)")
    return ExpectedArray(wide.astype(dt), EXACT)


def _int64_overflow(x2, rows, u2) -> bool:
    """Exact check that some int64 sum leaves the int64 range: sum high and low 32-bit halves separately."""
    def halves(a):
        a = a.astype(np.int64)
        return a >> 32, a & 0xFFFFFFFF
    xh, xl = halves(x2)
    uh, ul = halves(u2)
    hi, lo = xh.copy(), xl.copy()
    np.add.at(hi, rows, uh)         # |hi| <= (k+1) * 2^31: no overflow below 2^32 terms
    np.add.at(lo, rows, ul)
    hi = hi + (lo >> 32)
    return bool(((hi < -(1 << 31)) | (hi >= (1 << 31))).any())


def _reshape(ea, shape):
    b = None if ea.bound is None else ea.bound.reshape(shape)
    return ExpectedArray(ea.value.reshape(shape), ea.rule, bound=b, zero_sign=ea.zero_sign)


# ---- the documented domain (oracle/boundary.py; docs/CASES.md, "Domain coverage") -----------------
# (imported here so the domain stays one block of this module)
from fractions import Fraction  # noqa: E402
from functools import lru_cache  # noqa: E402

from contract.dtypes import FLOATS, INTS, dtype_from_name  # noqa: E402

from . import boundary as bd  # noqa: E402


def _d_n(case) -> int:
    """N = indices.shape[-1], or -1 when indices has no dims."""
    s = bd.shape(case, "indices")
    return s[-1] if s else -1


def _d_index_at(test):
    """Some index value i on its axis of size n satisfies test(i, n)."""
    def pred(case):
        idx, n, xs = case.inputs.get("indices"), _d_n(case), bd.shape(case, "x")
        if idx is None or n <= 0 or n > len(xs) or np.size(idx) == 0 or dtype_name(idx.dtype) not in INDEX_DTYPES:
            return False
        rows = np.asarray(idx).reshape(-1, n)
        return any(test(int(i), xs[k]) for k in range(n) for i in np.unique(rows[:, k]))
    return pred


@lru_cache(maxsize=1024)      # a dozen rows ask for the same sums of one case
def _d_single_sums(case):
    """(x's dtype, exact x[e] + u) for the elements of x that exactly one update reaches."""
    x, idx, upd = (case.inputs.get(k) for k in ("x", "indices", "updates"))
    if x is None or idx is None or upd is None or x.size > bd.MAX_SCAN or not bd.valid(case):
        return ()
    dt = dtype_name(x.dtype)
    if dt not in FLOATS:
        return ()
    n = idx.shape[-1]
    rows = _rows(x.shape[:n], np.asarray(idx).reshape(-1, n), Open())
    x2 = x.reshape(-1, int(np.prod(x.shape[n:], dtype=np.int64))).astype(np.float64)
    u2 = np.asarray(upd).reshape(rows.size, x2.shape[1]).astype(np.float64)
    counts = np.bincount(rows, minlength=x2.shape[0])
    return tuple((dt, Fraction(float(x2[r, j])) + Fraction(float(u2[i, j])))
                 for i, r in enumerate(rows) if counts[r] == 1 for j in range(x2.shape[1])
                 if np.isfinite(x2[r, j]) and np.isfinite(u2[i, j]))


def _d_overflows(case):
    """A float sum whose exact value is beyond the dtype's largest finite (so it rounds to inf)."""
    return any(abs(v) > Fraction(_max(dtype_from_name(d))) and bd.rounding_classes(d, v)
               for d, v in _d_single_sums(case))


_B = bd.Boundary
DOMAIN = [
    _B("input_x", "rank 0", "range", "a 0-d x (P = 0, so N = 0)", lambda c: bd.ndim(c, "x") == 0),
    _B("input_x", "rank 1", "range", "a 1-d x", lambda c: bd.ndim(c, "x") == 1),
    _B("input_x", "rank 4", "range", "a 4-d x (any rank is documented; the suite draws up to 4)",
       lambda c: bd.ndim(c, "x") == 4),
    _B("input_x", "side 0", "range", "x with an empty axis", lambda c: 0 in bd.shape(c, "x")),
    _B("input_x", "side 1", "range", "x with a side of 1", lambda c: 1 in bd.shape(c, "x")),
    _B("input_x", "side 2", "range", "x with a side of 2", lambda c: 2 in bd.shape(c, "x")),
    _B("indices", "rank 1", "range", "indices of rank 1 (one below Q >= 2: SNA-SHAPES)",
       lambda c: bd.ndim(c, "indices") == 1),
    _B("indices", "rank 2", "range", "indices of rank 2 (the documented minimum)", lambda c: bd.ndim(c, "indices") == 2),
    _B("indices", "rank 3", "range", "indices of rank 3", lambda c: bd.ndim(c, "indices") == 3),
    _B("indices", "N = 0", "range", "indices.shape[-1] = 0: each row addresses all of x", lambda c: _d_n(c) == 0),
    _B("indices", "N = 1", "range", "indices.shape[-1] = 1", lambda c: _d_n(c) == 1),
    _B("indices", "N = P", "range", "indices.shape[-1] = rank(x) (the documented maximum): elements",
       lambda c: bd.ndim(c, "x") > 0 and _d_n(c) == bd.ndim(c, "x")),
    _B("indices", "N = P + 1", "range", "indices.shape[-1] = rank(x) + 1 (one past: SNA-SHAPES)",
       lambda c: _d_n(c) == bd.ndim(c, "x") + 1),
    _B("indices", "no rows", "range", "indices with no rows (a leading side 0)",
       lambda c: 0 in bd.shape(c, "indices")[:-1]),
    _B("indices", "one row", "range", "a single index row", lambda c: bd.ndim(c, "indices") >= 2
       and int(np.prod(bd.shape(c, "indices")[:-1])) == 1),
    _B("indices", "repeated row", "form", "a repeated index row: the updates accumulate (SNA-DUP)",
       lambda c: bd.cites(c, "SNA-DUP")),
    _B("indices", "value 0", "range", "an index value 0", _d_index_at(lambda i, n: i == 0)),
    _B("indices", "value size-1", "range", "an index value size-1 (the last in range)",
       _d_index_at(lambda i, n: n > 1 and i == n - 1)),
    _B("indices", "value size", "range", "an index value size (one past: SNA-GAP-RANGE)",
       _d_index_at(lambda i, n: i == n)),
    _B("indices", "value -1", "range", "an index value -1 (SNA-GAP-RANGE)", _d_index_at(lambda i, n: i == -1)),
    _B("indices", "value -size", "range", "an index value -size (SNA-GAP-RANGE, natural: the first row)",
       _d_index_at(lambda i, n: n > 0 and i == -n)),
    _B("indices", "value -size-1", "range", "an index value -size-1 (one past, negative)",
       _d_index_at(lambda i, n: i == -n - 1)),
    _B("indices", "int32", "form", "int32 indices", lambda c: bd.dtype(c, "indices") == "int32"),
    _B("indices", "int64", "form", "int64 indices", lambda c: bd.dtype(c, "indices") == "int64"),
    _B("indices", "another dtype", "form", "indices neither int32 nor int64 (SNA-IDX-DTYPE)",
       lambda c: bd.dtype(c, "indices") not in INDEX_DTYPES),
    _B("updates", "documented shape", "form", "updates of shape indices.shape[:-1] + x.shape[N:]",
       lambda c: 0 <= _d_n(c) <= bd.ndim(c, "x")
       and bd.shape(c, "updates") == bd.shape(c, "indices")[:-1] + bd.shape(c, "x")[_d_n(c):]),
    _B("updates", "another shape", "range", "updates of another shape (SNA-UPD-SHAPE)",
       lambda c: 0 <= _d_n(c) <= bd.ndim(c, "x")
       and bd.shape(c, "updates") != bd.shape(c, "indices")[:-1] + bd.shape(c, "x")[_d_n(c):]),
    _B("updates", "another dtype", "form", "updates of another dtype than x (SNA-DTYPE)",
       lambda c: bd.dtype(c, "updates") != bd.dtype(c, "x")),
    _B("use_locking", "omitted", "form", "use_locking not passed", lambda c: "use_locking" not in c.params),
    _B("use_locking", "False", "default", "use_locking=False written out (the default)",
       lambda c: c.params.get("use_locking", None) is False),
    _B("use_locking", "True", "form", "use_locking=True", lambda c: c.params.get("use_locking", None) is True),
    _B("use_locking", "not a bool", "range", "use_locking of another type (SNA-LOCK)",
       lambda c: "use_locking" in c.params and not isinstance(c.params["use_locking"], bool)),
    *bd.rounding_rows("x + updates", FLOATS, _d_single_sums, "x[i] + one update, the exact sum"),
    _B("x + updates", "overflow to inf", "edge", "an exact float sum beyond the dtype's largest finite", _d_overflows),
    _B("x + updates", "int overflow", "edge", "an integer sum outside the dtype (SNA-GAP-OVERFLOW)",
       lambda c: bd.cites(c, "SNA-GAP-OVERFLOW")),
    *bd.edge_rows("input_x, updates", ("x", "updates"), FLOATS + INTS),
]


def scatter_nd_add(x, indices, updates, use_locking=False):
    """mindspore scatter_nd_add: x after the update (a new array here; the caller owns the in-place part)."""
    outputs = value_reading(solve, x, indices, updates, use_locking)
    return outputs["out"].value


# ---- the op's declaration: document, clauses, case contract, decoder (docs/SPEC.md) --------------

NOT_GIVEN = object()     # use_locking not passed


@dataclass(frozen=True)
class ScatterNdAddCall:
    """`scatter_nd_add(x, indices, updates[, use_locking])`."""
    x: object
    indices: object
    updates: object
    use_locking: object = NOT_GIVEN     # passed exactly as given, when given (SNA-LOCK)

    @property
    def lock_given(self) -> bool:
        return self.use_locking is not NOT_GIVEN


def decode(case, inputs=None) -> ScatterNdAddCall:
    return ScatterNdAddCall(need_input(case, "x", inputs), need_input(case, "indices", inputs),
                            need_input(case, "updates", inputs), case.params.get("use_locking", NOT_GIVEN))


def solve_case(case):
    a = decode(case)
    return solve(a.x, a.indices, a.updates, a.use_locking if a.lock_given else False)


@accepting()        # the oracle as a candidate returns the accepting reading of an either answer
def call(case, inputs=None) -> dict:
    a = decode(case, inputs)
    x = own_array(a.x, inputs)
    out = scatter_nd_add(x, a.indices, a.updates, **({"use_locking": a.use_locking} if a.lock_given else {}))
    x[...] = out                # SNA-RETURN: x itself is updated
    return {"out": out, "x": x}


def repro(case, literal) -> tuple:
    a = decode(case)
    extra = f", use_locking={literal(a.use_locking)}" if a.lock_given else ""
    return ([f"out = oracle.scatter_nd_add(x, indices, updates{extra})"],
            ["x[...] = out   # x itself is updated (SNA-RETURN)"], {"out": "out", "x": "x"})

def generic_call(case, api, literal, array) -> list:
    """`out = api(x, indices, updates(, use_locking))`: use_locking passed iff the case gives it, as given."""
    extra = [literal(case.params["use_locking"])] if "use_locking" in case.params else []
    return [f"out = {api}({', '.join(['x', 'indices', 'updates', *extra])})"]


_RAISES = "Raises"
SPEC = OpSpec(
    reading=READING,
    name="scatter_nd_add", source="mindspore.ops.scatter_nd_add.txt", title="mindspore ops.scatter_nd_add",
    clause_rows=(
        ("SNA-RULE", "sem", "Description", "for every leading position i of indices: x[indices[i]] += updates[i]"),
        ("SNA-SHAPES", "sem", "Description; Args: indices, updates",
         "x rank P; indices rank Q >= 2, last dim N <= P; updates shape indices.shape[:-1] + x.shape[N:]"),
        ("SNA-DUP", "sem", "Description (a sparse addition)", "repeated indices accumulate"),
        ("SNA-RETURN", "sem", "Description; Returns", "returns x after the update, same shape and dtype; x itself "
                                                      "is updated"),
        ("SNA-IDX-DTYPE", "err", _RAISES, "indices dtype other than int32/int64: TypeError"),
        ("SNA-DTYPE", "err", _RAISES, "x and updates of different dtypes: TypeError"),
        ("SNA-LOCK", "err", _RAISES, "use_locking not a bool: TypeError"),
        ("SNA-UPD-SHAPE", "err", _RAISES, "updates shape not equal to indices.shape[:-1] + x.shape[N:]: ValueError"),
        ("SNA-CONVERT", "err", _RAISES, "an impossible implicit conversion of updates: RuntimeError"),
        ("SNA-EX-1", "ex", "Examples: the first", "the 1-D float32 example"),
        ("SNA-EX-2", "ex", "Examples: the second", "the 3-D int32 example"),
        ("SNA-GAP-RANGE", "gap", "Args: indices", "out-of-range and negative indices are not mentioned"),
        ("SNA-GAP-CONVERT", "gap", _RAISES, "SNA-DTYPE raises TypeError for any dtype difference, SNA-CONVERT "
                                            "implies an implicit conversion that fails with RuntimeError only when "
                                            "impossible", ADDED),
        ("SNA-GAP-DTYPE", "gap", "Args: input_x", "x's dtypes are not listed; bool has no addition", ADDED),
        ("SNA-GAP-OVERFLOW", "gap", "Description", "an integer sum outside the dtype's range is not mentioned", ADDED),
        alias_gap_row("SNA", "Args: updates; Description", "updates is"),
    ),
    inputs=(Field("x", "input_x"), Field("indices", "the indices"), Field("updates", "the updates")),
    params=(Field("use_locking", "passed as given (absent: not passed); non-bool values exercise SNA-LOCK",
                  required=False),),
    outputs=(Field("out", "the returned tensor"), Field("x", "x after the call (updated in place)")),
    decode=decode, solve=solve_case, reference=scatter_nd_add, call=call, repro=repro, generic_call=generic_call,
    generic_outputs={"out": "out", "x": "x"}, dtypes=DTYPES,
)
