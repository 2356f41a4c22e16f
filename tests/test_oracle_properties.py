"""Hypothesis: the vectorised oracle against slow, independent loop formulations written here."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from contract.case import Case
from contract.expectation import BOUND, CHOICES, EXACT

SETTINGS = settings(max_examples=150, deadline=None, database=None)   # no files in the tree
DTYPES = [np.float32, np.float16, np.int32, np.int16, np.float64, np.int64]
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def _arr(draw, shape, dtype, lo=-50, hi=50):
    n = int(np.prod(shape))
    return np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)), dtype=dtype).reshape(shape)


def _msg(actual, expected, call):
    return f"actual   {actual}\nexpected {expected}\ncall     {call}"


# ---- setitem: assemble rule, untouched elements ----------------------------------------------------

@st.composite
def setitem_cases(draw):
    shape = draw(shapes)
    dtype = draw(st.sampled_from(DTYPES))
    key, region = [], []          # region: per axis (start, extent or None for an int)
    for n in shape:
        kind = draw(st.sampled_from(["int", "open", "explicit", "whole"]))
        start = draw(st.integers(0, n - 1))
        neg = draw(st.booleans())
        if kind == "int":
            key.append(start - n if neg else start)
            region.append((start, None))
        elif kind == "whole":       # ':' (extent from the value, all of the axis here)
            key.append(slice(None))
            region.append((0, n))
        else:
            ext = draw(st.integers(1, n - start))
            stop = None if kind == "open" else start + ext
            if neg and stop is not None:
                key.append(slice(start - n, stop - n if stop < n else None if draw(st.booleans()) else stop))
            else:
                key.append(slice(start - n if neg else start, stop))
            region.append((start, ext))
    whole = [k == slice(None) for k in key]
    form = draw(st.sampled_from(["plain", "ellipsis", "short"]))
    if form == "ellipsis":
        # SI-ELLIPSIS: a run (possibly empty) of ':' axes written as ...
        i = draw(st.integers(0, len(key)))
        j = i
        while j < len(key) and whole[j] and draw(st.booleans()):
            j += 1
        key = key[:i] + [Ellipsis] + key[j:]
    elif form == "short" and not any(isinstance(e, int) for e in key):
        # trailing ':' axes left out of the key (not beside an int: a mixed key's slices are those it holds,
        # setitem.cons.7, so leaving one out breaks SI-MIXED-N)
        while key and whole[len(key) - 1] and draw(st.booleans()):
            key.pop()
    vshape = tuple(e for _, e in region if e is not None)
    target = _arr(draw, shape, dtype)
    value = _arr(draw, vshape, dtype, 100, 200)
    return target, tuple(key), value, region


@given(setitem_cases())
@SETTINGS
def test_setitem_matches_a_loop_and_keeps_untouched_elements(c):
    target, key, value, region = c
    if all(e is None for _, e in region):
        # an all-int key takes a scalar (SI-VAL-S): a tensor value is unsupported; NumPy's meaning is natural
        with pytest.raises(oracle.Unspecified) as u:
            oracle.setitem(target, key, value)
        got = u.value.natural["target"].value
    else:
        got = oracle.setitem(target, key, value)
    want, written = target.copy(), np.zeros(target.shape, bool)
    for pos in itertools.product(*map(range, target.shape)):
        vpos, inside = [], True
        for p, (start, ext) in zip(pos, region):
            if ext is None:
                inside &= p == start
            else:
                inside &= start <= p < start + ext
                vpos.append(p - start)
        if inside:
            want[pos] = value[tuple(vpos)]
            written[pos] = True
    call = f"oracle.setitem(target{list(target.shape)}, {key}, value{list(value.shape)})"
    assert np.array_equal(got[~written], target[~written]), _msg(got.tolist(), target.tolist(), call)
    assert np.array_equal(got, want), _msg(got.tolist(), want.tolist(), call)
    assert written.sum() == value.size


# ---- scatter: the rule, gather round trip, duplicates as choices -----------------------------------

@st.composite
def scatter_cases(draw, allow_dups):
    shape = draw(shapes)
    dim = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(0, n)) if d != dim else draw(st.integers(0, shape[dim] if not allow_dups
                   else shape[dim] + 2)) for d, n in enumerate(shape))
    n = shape[dim]
    if allow_dups:
        index = _arr(draw, ishape, np.int64, 0, n - 1)
    else:   # distinct along dim: a prefix of a permutation per fibre
        perm = np.array(draw(st.permutations(range(n))), np.int64)
        index = np.broadcast_to(perm[:ishape[dim]].reshape([-1 if d == dim else 1 for d in range(len(shape))]),
                                ishape).copy()
    sshape = tuple(i + draw(st.integers(0, 1)) for i in ishape)
    dtype = draw(st.sampled_from(DTYPES))
    return _arr(draw, shape, dtype), dim, index, _arr(draw, sshape, dtype, 100, 200)


def _scatter_loop(self_, dim, index, src):
    """Per target position: the list of src values written there, in loop order."""
    hits = {}
    for p in itertools.product(*map(range, index.shape)):
        t = list(p)
        t[dim] = int(index[p])
        hits.setdefault(tuple(t), []).append(src[p])
    return hits


@given(scatter_cases(allow_dups=False))
@SETTINGS
def test_scatter_matches_a_loop_and_gather_returns_src(c):
    self_, dim, index, src = c
    got = oracle.scatter(self_, dim, index, src)
    want = self_.copy()
    for t, vals in _scatter_loop(self_, dim, index, src).items():
        want[t] = vals[-1]
    call = f"oracle.scatter(self{list(self_.shape)}, {dim}, index{index.tolist()}, src{list(src.shape)})"
    assert np.array_equal(got, want), _msg(got.tolist(), want.tolist(), call)
    sub = got[tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(index.shape))]
    gathered = np.take_along_axis(sub, index, dim) if index.size else index.astype(src.dtype)
    assert np.array_equal(gathered, src[tuple(slice(0, n) for n in index.shape)]), call


@given(scatter_cases(allow_dups=True))
@SETTINGS
def test_scatter_duplicates_admit_exactly_the_colliding_values(c):
    self_, dim, index, src = c
    exp = oracle.expect(Case(op="scatter", inputs={"input": self_, "index": index, "src": src},
                             params={"dim": dim, "inplace": False}))
    hits = _scatter_loop(self_, dim, index, src)
    dup = any(len(v) > 1 for v in hits.values())
    assert exp.kind == ("either" if dup else "value"), exp.summary()      # SC-DUP: raises, or one of the values
    out = exp.outputs["out"]
    assert out.rule == (CHOICES if dup else EXACT)
    assert np.array_equal(exp.outputs["input"].value, self_)
    for pos in itertools.product(*map(range, self_.shape)):
        admissible = set(out.choices[(slice(None), *pos)].tolist()) if dup else {out.value[pos].item()}
        want = {v.item() for v in hits[pos]} if pos in hits else {self_[pos].item()}
        assert admissible == want, _msg(sorted(admissible), sorted(want), f"position {pos}")
        if pos in hits:
            assert out.value[pos] == hits[pos][-1]      # the natural value: a sequential loop's last write


# ---- scatter_nd_add: a sequential loop ------------------------------------------------------------

@st.composite
def sna_cases(draw, dtype):
    xshape = draw(shapes)
    n = draw(st.integers(0, len(xshape)))
    lead = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=2)))
    idx = np.stack([_arr(draw, lead, np.int64, 0, xshape[j] - 1) for j in range(n)], -1) if n else \
        np.zeros(lead + (0,), np.int64)
    ushape = lead + xshape[n:]
    if np.dtype(dtype).kind == "f":
        vals = st.floats(-1e3, 1e3, allow_subnormal=False, width=16 if dtype == np.float16 else 32)
        x = np.array(draw(st.lists(vals, min_size=int(np.prod(xshape)), max_size=int(np.prod(xshape)))),
                     dtype).reshape(xshape)
        u = np.array(draw(st.lists(vals, min_size=int(np.prod(ushape)), max_size=int(np.prod(ushape)))),
                     dtype).reshape(ushape)
    else:
        x, u = _arr(draw, xshape, dtype), _arr(draw, ushape, dtype)
    return x, idx.astype(draw(st.sampled_from([np.int32, np.int64]))), u


def _sna_loop(x, idx, u, order):
    out = x.copy()
    positions = list(itertools.product(*map(range, idx.shape[:-1])))
    for i in (positions if order > 0 else positions[::-1]):
        tgt = tuple(int(v) for v in idx[i])
        out[tgt] = (out[tgt] + u[i]).astype(x.dtype)     # in the dtype, one addition at a time
    return out


@given(st.sampled_from([np.int32, np.int16, np.int64]).flatmap(sna_cases))
@SETTINGS
def test_scatter_nd_add_ints_equal_a_sequential_loop(c):
    x, idx, u = c
    got = oracle.scatter_nd_add(x, idx, u)
    want = _sna_loop(x, idx, u, 1)
    assert np.array_equal(got, want), _msg(got.tolist(), want.tolist(), f"indices {idx.tolist()}")


@given(st.sampled_from([np.float32, np.float16]).flatmap(sna_cases))
@SETTINGS
def test_scatter_nd_add_floats_within_the_derived_bound_in_any_order(c):
    x, idx, u = c
    exp = oracle.expect(Case(op="scatter_nd_add", inputs={"x": x, "indices": idx, "updates": u}, params={}))
    assert exp.kind == "value", exp.summary()
    out = exp.outputs["out"]
    for order in (1, -1):
        loop = _sna_loop(x, idx, u, order)
        err = np.abs(loop.astype(np.float64) - out.value.astype(np.float64))
        bound = np.zeros(x.shape) if out.rule == EXACT else out.bound
        assert (err <= bound).all(), _msg(loop.tolist(), f"{out.value.tolist()} +- {bound.tolist()}",
                                          f"indices {idx.tolist()} order {order}")
    if out.rule == BOUND:
        hits = np.zeros(x.shape, int)
        for i in itertools.product(*map(range, idx.shape[:-1])):
            hits[tuple(int(v) for v in idx[i])] += 1
        assert (out.bound[hits <= 1] == 0).all(), "one addition is correctly rounded: exact"


# ---- clip: a per-element loop, idempotence, order independence -----------------------------------

@st.composite
def clip_cases(draw):
    dtype = draw(st.sampled_from([np.float32, np.float16, np.int32, np.int16]))
    x = _arr(draw, draw(shapes), dtype, -100, 100)
    lo, hi = draw(st.integers(-100, 100)), draw(st.integers(-100, 100))
    return x, draw(st.sampled_from([None, lo])), draw(st.sampled_from([None, hi]))


@given(clip_cases())
@SETTINGS
def test_clip_matches_a_loop_is_idempotent_and_order_independent(c):
    x, lo, hi = c
    got = oracle.clip(x, lo, hi)
    want = x.copy()
    for pos in itertools.product(*map(range, x.shape)):
        v = x[pos].item()
        if lo is not None and v < lo:
            v = lo
        if hi is not None and v > hi:
            v = hi
        want[pos] = v
    call = f"oracle.clip(x{x.tolist()}, {lo}, {hi})"
    assert got.dtype == x.dtype and np.array_equal(got, want), _msg(got.tolist(), want.tolist(), call)
    assert np.array_equal(oracle.clip(got, lo, hi), got), "clip is idempotent"
    if lo is not None and hi is not None and lo <= hi:
        # CL-FORMULA: with lo <= hi, min(max(x, lo), hi) == max(min(x, hi), lo)
        other = oracle.clip(oracle.clip(x, None, hi), lo, None)
        assert np.array_equal(other, got), _msg(other.tolist(), got.tolist(), call)


# ---- set_: the storage model element by element, aliasing -----------------------------------------

@st.composite
def set_cases(draw):
    storage = np.arange(draw(st.integers(1, 40)), dtype=np.float32)
    ndim = draw(st.integers(0, 3))
    size = [draw(st.integers(0, 3)) for _ in range(ndim)]
    stride = [draw(st.integers(0, 5)) for _ in range(ndim)]
    span = sum((n - 1) * s for n, s in zip(size, stride)) if 0 not in size else 0
    offset = draw(st.integers(0, max(0, storage.size - 1 - span)))
    return storage, offset, size, stride


@given(set_cases())
@SETTINGS
def test_set_addresses_storage_offset_plus_strides_and_aliases(c):
    storage, offset, size, stride = c
    span = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if 0 not in size else 0
    case = Case(op="set_", inputs={"target": np.zeros(7, np.float32), "source": storage},
                params={"source_kind": "storage", "storage_offset": offset, "size": size, "stride": stride,
                        "probe": -1.0})
    exp = oracle.expect(case)
    if span > storage.size:
        assert exp.kind == "unspecified" and "ST-GAP-BOUNDS" in exp.clauses, exp.summary()
        return
    assert exp.kind == "value", exp.summary()
    self_, after = exp.outputs["self"].value, exp.outputs["source_after_fill"].value
    want_after = storage.copy()
    for i in itertools.product(*map(range, size)):
        addr = offset + sum(a * b for a, b in zip(i, stride))
        assert self_[i] == storage[addr], _msg(self_[i], storage[addr], f"self{list(i)}")
        want_after[addr] = -1.0
    assert np.array_equal(after, want_after), _msg(after.tolist(), want_after.tolist(), "fill_(-1) through self")
    view = oracle.set_(np.zeros(7, np.float32), oracle.Storage(buf := storage.copy()), offset, size, stride)
    assert view.shape == tuple(size) and (view.size == 0 or np.shares_memory(view, buf))
