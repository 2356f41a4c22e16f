"""The oracle's fast paths (oracle/kernels.py and the op modules' vectorised formulations) against the plain
formulations they replace, on random inputs rich in the values that decide ties and NaN rules: +-0, +-inf,
NaN, subnormals, repeated indices.  Blocks are made tiny so that every block boundary case is crossed."""
from __future__ import annotations

import numpy as np
import pytest

import importlib

from contract.dtypes import cast
from oracle import kernels

clip_mod = importlib.import_module("oracle.clip")     # by name: `oracle.clip` is the function


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(kernels, "CHUNK", 7)


def _special(rng, dtype, n, nan=True):
    """Random values of dtype, a third of them drawn from the special ones."""
    info = np.finfo(dtype)
    specials = [0.0, -0.0, np.inf, -np.inf, float(info.tiny), -float(info.tiny), float(info.tiny) / 4,
                -float(info.tiny) / 4, float(info.max), -float(info.max), 1.0, -1.0, 0.5, -0.5]
    if nan:
        specials.append(np.nan)
    with np.errstate(over="ignore", under="ignore"):
        v = (rng.standard_normal(n) * rng.choice([1e-6, 1.0, 1e3], n)).astype(dtype)
        pick = rng.random(n) < 0.35
        v[pick] = np.array(specials, dtype=np.float64)[rng.integers(0, len(specials), pick.sum())].astype(dtype)
    return v


def _bits(a):
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def _plain(x, lo, hi):
    out = clip_mod._formula(x, lo, hi)
    bound_nan, x_nan = clip_mod._nan_facts(x, lo, hi)
    gt = bool(np.any(lo > hi)) if lo is not None and hi is not None else False
    return out, bound_nan, x_nan, gt


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("form", ["scalar", "tensor", "mixed", "lo-only", "hi-only"])
def test_clip_pass_equals_the_plain_formulation(small_blocks, dtype, form):
    rng = np.random.default_rng(abs(hash((np.dtype(dtype).name, form))) % 2**32)
    for trial in range(300):
        n = int(rng.integers(1, 40))
        nan = trial % 3 == 0            # two trials in three have no NaN: the key-space path runs
        x = _special(rng, dtype, n, nan)
        if form in ("scalar", "lo-only", "hi-only"):
            lo, hi = (np.asarray(_special(rng, dtype, 1, nan)[0]) for _ in range(2))
        elif form == "tensor":
            lo, hi = _special(rng, dtype, n, nan), _special(rng, dtype, n, nan)
        else:
            lo, hi = _special(rng, dtype, n, nan), np.asarray(_special(rng, dtype, 1, nan)[0])
            if trial % 2:
                lo, hi = hi, lo
        lo = None if form == "hi-only" else lo
        hi = None if form == "lo-only" else hi
        fast = kernels.clip_pass(x, lo, hi)
        assert fast is not None
        out, bound_nan, x_nan, gt = _plain(x, lo, hi)
        call = f"clip({x.tolist()}, {None if lo is None else lo.tolist()}, {None if hi is None else hi.tolist()})"
        nan_out = np.isnan(out)
        assert np.array_equal(np.isnan(fast.out), nan_out), call
        assert np.array_equal(_bits(fast.out)[~nan_out], _bits(out)[~nan_out]), \
            f"actual {fast.out.tolist()}\nexpected {out.tolist()}\ncall {call}"
        assert (fast.lo_nan, fast.hi_nan) == bound_nan, call
        assert fast.x_nan_unbounded == x_nan, call
        assert fast.lo_gt_hi == gt, call


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_clip_pass_dense_zero_ties_equal_the_plain_formulation(small_blocks, dtype):
    rng = np.random.default_rng(7)
    pick = np.array([-0.0, 0.0, -1.0, 1.0], dtype)
    for _ in range(400):
        n = int(rng.integers(1, 30))
        x, lo, hi = (pick[rng.integers(0, 4, n)] for _ in range(3))
        lo0, hi0 = np.asarray(lo[0]), np.asarray(hi[0])
        for lo_, hi_ in ((lo, hi), (lo, None), (None, hi), (lo, hi0), (lo0, hi), (lo0, hi0), (lo0, None),
                         (None, hi0)):
            out = _plain(x, lo_, hi_)[0]
            got = kernels.clip_pass(x, lo_, hi_)
            assert np.array_equal(_bits(got.out), _bits(out)), (x, lo_, hi_, got.out, out)
            want_gt = bool(np.any(lo_ > hi_)) if lo_ is not None and hi_ is not None else False
            assert got.lo_gt_hi == want_gt, (lo_, hi_)


def test_clip_pass_zero_ties_follow_numpy():
    """The ties the key space must not break: -0 against a +0 lo stays -0, +0 against a -0 hi stays +0."""
    h = np.float16
    x = np.array([-0.0, 0.0, -1.0, 1.0], h)
    for lo, hi in [(0.0, 1.0), (-0.0, 1.0), (-1.0, -0.0), (-1.0, 0.0), (0.0, -0.0), (-0.0, 0.0)]:
        lo_, hi_ = np.asarray(h(lo)), np.asarray(h(hi))
        got = kernels.clip_pass(x, lo_, hi_).out
        want = np.clip(x, lo_, hi_)
        assert np.array_equal(_bits(got), _bits(want)), (lo, hi, got, want)


def test_clip_pass_declines_what_it_does_not_cover():
    x = np.arange(6, dtype=np.float32)
    assert kernels.clip_pass(x.astype(np.int32), np.asarray(np.int32(1)), None) is None     # ints: plain
    assert kernels.clip_pass(x[::2], np.asarray(np.float32(1)), None) is None                # not contiguous
    assert kernels.clip_pass(x.reshape(2, 3), np.ones(3, np.float32), None) is None          # broadcast bound
    assert kernels.clip_pass(x, None, None) is None


scatter_mod = importlib.import_module("oracle.scatter")


def test_scatter_store_equals_the_flat_targets_formulation(monkeypatch):
    """Blocked store + distinct count against flat[_targets(...)] = vals and a full `written` mark array."""
    monkeypatch.setattr(kernels, "SCATTER_BLOCK", 5)
    rng = np.random.default_rng(3)
    for trial in range(400):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(n) for n in rng.integers(1, 7, ndim))
        dim = int(rng.integers(0, ndim))
        ishape = tuple(int(rng.integers(1, n + 1)) if d != dim else int(rng.integers(1, 9)) for d, n in
                       enumerate(shape))
        index = rng.integers(0, shape[dim], ishape)
        if trial % 2:       # a permutation along dim where it fits: no collisions
            if ishape[dim] <= shape[dim]:
                index = np.argsort(rng.random(ishape), axis=dim) % shape[dim]
        vals = rng.standard_normal(ishape).astype(np.float32) if trial % 3 else \
            np.broadcast_to(np.asarray(np.float32(2.5)), ishape)
        self_ = rng.standard_normal(shape).astype(np.float32)
        t = scatter_mod._targets(shape, dim, index)
        want = self_.copy().reshape(-1)
        want[t] = vals.ravel()
        written = np.zeros(want.size, bool)
        written[t] = True
        got = self_.copy().reshape(-1)
        distinct = kernels.scatter_store(got, shape, dim, index, vals)
        assert distinct == np.count_nonzero(written), (shape, dim, index.tolist())
        if distinct == index.size:      # no collision: the answer is fixed
            assert np.array_equal(got, want), (shape, dim, index.tolist())


sna_mod = importlib.import_module("oracle.scatter_nd_add")


def _sna_flat_formulation(x2, rows, u2, counts):
    """scatter_nd_add's float sum as first written: flat bincounts over every element (value, bound)."""
    dt = x2.dtype
    cols = x2.shape[1]
    flat = rows if cols == 1 else (rows[:, None] * cols + np.arange(cols)).ravel()
    w = u2.astype(np.float64).ravel()
    s = x2.astype(np.float64).ravel() + np.bincount(flat, weights=w, minlength=x2.size)
    with np.errstate(over="ignore"):     # the oracle's cast: float64 -> bfloat16 rounds once on every ml_dtypes
        value = cast(s, dt).reshape(x2.shape)
    if not (counts > 1).any():
        return value, None
    k = (counts if cols == 1 else np.repeat(counts, cols)).astype(np.float64)
    mag = np.abs(x2.astype(np.float64)).ravel() + np.bincount(flat, weights=np.abs(w, out=w), minlength=x2.size)
    u = sna_mod._unit_roundoff(dt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        gamma = np.where(k * u < 1, k * u / (1 - k * u), np.inf)
        g64 = k * 2.0 ** -53 / (1 - k * 2.0 ** -53)
        bound = (gamma + u + g64) * mag * (1 + 2 * g64 + 2.0 ** -50)
        bound = np.where(mag > sna_mod._max(dt), np.inf, bound)
        bound = np.where(~np.isfinite(s), 0.0, bound)
    return value, np.where(k > 1, bound, 0.0).reshape(x2.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, "bfloat16"])
@pytest.mark.parametrize("path", ["plain", "fast", "fast on threads"])
def test_scatter_nd_add_float_sum_equals_the_flat_formulation(monkeypatch, dtype, path):
    import ml_dtypes
    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    monkeypatch.setattr(kernels, "LONG_GROUP", 3)       # long groups take the reduction often
    # the fast paths (row-wise, flat) on small inputs too, or none
    monkeypatch.setattr(kernels, "LARGE", 1 << 60 if path == "plain" else 0)
    # the flat path's two sides and the halves of the bound on threads, or all on one
    monkeypatch.setattr(kernels, "WIDE_OUTPUT", 0 if path == "fast on threads" else 1 << 60)
    monkeypatch.setattr(kernels, "ROW_BLOCK", 16)       # a few rows a block: blocks on both threads
    monkeypatch.setattr(kernels, "BOUND_CHUNK", 5)      # the flat bound a few elements at a time
    monkeypatch.setattr(kernels, "CHUNK", 3)            # the flat sums a few updates at a time
    rng = np.random.default_rng(11)
    for trial in range(150):
        n_rows = int(rng.integers(1, 12))
        cols = int(rng.choice([1, 3, 8, 9, 20]))
        m = int(rng.integers(0, 40))
        rows = rng.integers(0, n_rows, m) if trial % 4 else rng.permutation(max(n_rows, m))[:m] % n_rows
        with np.errstate(over="ignore", invalid="ignore"):
            x2 = _special(rng, np.float32, n_rows * cols, trial % 5 == 0).astype(dt).reshape(n_rows, cols)
            u2 = _special(rng, np.float32, m * cols, trial % 5 == 0).astype(dt).reshape(m, cols)
        if trial % 3 == 0:      # cancellations: sums that come out zero, of either sign
            half = m // 2
            u2[:half] = -u2[half:2 * half]
        counts = np.bincount(rows.astype(np.intp), minlength=n_rows)
        with np.errstate(invalid="ignore"):     # inf - inf: NaN, as in the dtype
            got, dup = sna_mod._float_sum(x2, rows.astype(np.intp), u2)
            value, bound = _sna_flat_formulation(x2, rows.astype(np.intp), u2, counts)
        assert dup == bool((counts > 1).any())
        nan = np.isnan(value.astype(np.float64))
        call = f"x2={x2.tolist()} rows={rows.tolist()} u2={u2.tolist()}"
        assert np.array_equal(np.isnan(got.value.astype(np.float64)), nan), call
        assert np.array_equal(_bits(got.value)[~nan], _bits(value)[~nan]), \
            f"actual {got.value.tolist()}\nexpected {value.tolist()}\n{call}"
        if bound is None:
            assert got.bound is None, call
        else:
            assert np.array_equal(got.bound, bound), f"actual {got.bound.tolist()}\nexpected {bound.tolist()}"


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_bin_counts_and_sums_equal_bincount(monkeypatch, dtype):
    """The counts (uint8 first, int64 once a count reaches 256) and the float64 sums of the updates or of
    their magnitudes, a few updates at a time, equal np.bincount's, bit for bit, signed zeros and NaN
    included."""
    monkeypatch.setattr(kernels, "CHUNK", 7)
    rng = np.random.default_rng(17)
    for trial in range(60):
        n = int(rng.integers(1, 50))
        m = int(rng.choice([0, 1, 7, 255, 256, 300, 1000]))
        rows = rng.integers(0, n, m) if trial % 3 else np.zeros(m, np.int64)     # one row hit m times
        counts = kernels.bin_counts(rows, n)
        assert np.array_equal(counts, np.bincount(rows, minlength=n)), (n, rows.tolist())
        assert counts.dtype == (np.uint8 if m < 256 or counts.max() < 256 else np.int64)
        with np.errstate(over="ignore"):
            u = _special(rng, np.float64, m).astype(dtype)
        w = u.astype(np.float64)
        for magnitudes, weights in ((False, w), (True, np.abs(w))):
            with np.errstate(invalid="ignore"):
                got = kernels.bin_sums(rows, u, n, magnitudes=magnitudes)
                want = np.bincount(rows, weights=weights, minlength=n)
            nan = np.isnan(want)
            assert np.array_equal(np.isnan(got), nan)
            assert np.array_equal(_bits(got)[~nan], _bits(want)[~nan]), (magnitudes, rows.tolist(), u.tolist())


def test_row_sums_reduction_is_sequential():
    """A long group's reduction adds down the block in order: the result equals the sequential float64 sum
    (pairwise summation would differ in the last bits on this data)."""
    rng = np.random.default_rng(5)
    w = (rng.standard_normal((1000, 16)) * 10.0 ** rng.integers(-8, 8, (1000, 16)))
    seq = np.zeros(16)
    for row in w:
        seq = seq + row
    rows = np.zeros(1000, np.intp)
    groups = kernels.row_groups(rows, np.bincount(rows))
    sums, _ = kernels.group_sums(w, groups, 0, 1, False, kernels.Scratch())
    assert np.array_equal(sums[0], seq)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.bool_])
def test_scatter_nd_add_int_sum_on_the_rows_hit_equals_the_whole(monkeypatch, dtype):
    rng = np.random.default_rng(13)
    for trial in range(100):
        n_rows, cols, m = int(rng.integers(3, 30)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
        info = np.iinfo(dtype) if dtype != np.bool_ else None
        draw = (lambda shape: rng.integers(0, 2, shape).astype(bool)) if info is None else \
            (lambda shape: rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
             if trial % 2 else rng.integers(-3, 4, shape).astype(dtype))
        x2, u2 = draw((n_rows, cols)), draw((m, cols))
        rows = rng.integers(0, n_rows, m).astype(np.intp)
        whole_op, rows_op = sna_mod.Open(), sna_mod.Open()
        monkeypatch.setattr(kernels, "LARGE", 1 << 60)
        want = sna_mod._int_sum(x2, rows, u2, whole_op)
        monkeypatch.setattr(kernels, "LARGE", 0)
        got = sna_mod._int_sum(x2, rows, u2, rows_op)
        assert np.array_equal(got.value, want.value) and got.value.dtype == want.value.dtype
        assert rows_op.items == whole_op.items, (x2, rows, u2)


def test_unchanged_copies_whatever_can_still_be_written():
    a = np.arange(4.0)
    assert kernels.unchanged(a) is not a                  # writable: a copy
    ro = a.view()
    ro.flags.writeable = False
    assert kernels.unchanged(ro) is not ro                # read-only view of a writable array: a copy
    frozen = np.arange(4.0)
    frozen.flags.writeable = False
    assert kernels.unchanged(frozen) is frozen            # nothing can write it: itself
    wire = np.frombuffer(b"\0" * 16, dtype=np.float32)
    assert kernels.unchanged(wire) is wire                # a view of immutable bytes: itself
