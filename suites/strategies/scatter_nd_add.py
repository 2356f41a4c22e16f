"""Cases for mindspore `ops.scatter_nd_add(x, indices, updates, use_locking)` (clauses SNA-*): the document's
examples, its documented errors, and generated forms."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from contract.case import Case
from contract.dtypes import FLOATS, INTS, dtype_from_name, dtype_name

from oracle.boundary import neighbours
from ..doc_examples import doc_example
from ..error_cases import error_case
from .boundary import F64, I64, arr as _arr, boundary_case as _c, edge_array, float_edges, int_edges, label as _label
from .common import odd_arrays, odd_scalars
from . import aliasing as aliasing_
from .common import array_of, coin, ints, make_case, pick, shape_of, shape_text, shapes, weighted_dtypes

OP = "scatter_nd_add"

DTYPES = weighted_dtypes(("float32", "int32"), ("float16", "float64", "int64", "int8", "uint8", "bfloat16", "bool"))
IDX = ("int32", "int64")
LOCKING = (None, True, False)       # None here: the argument is not passed


def _case(x, indices, updates, note, locking=None, lock_given=False):
    params = {"use_locking": locking} if (locking is not None or lock_given) else {}
    label = (f"{dtype_name(x.dtype)} x {shape_text(x.shape)} indices {dtype_name(indices.dtype)} "
             f"{shape_text(indices.shape)} updates {shape_text(updates.shape)}{': ' + note if note else ''}")
    return make_case(OP, {"x": x, "indices": indices, "updates": updates}, params, label)


def _geometry(draw, min_rank=1):
    """(x shape, N, leading shape of indices) with at least one leading position."""
    xshape = shape_of(draw, min_rank, 4, max_side=4)
    n = ints(draw, 1, len(xshape))
    lead = shape_of(draw, 1, 2, min_side=1, max_side=4)
    return xshape, n, lead


def _rows(draw, xshape, n, lead, unique=True):
    """Index rows into x.shape[:n]; unique ones where there are enough distinct positions."""
    combos = math.prod(xshape[:n])
    m = math.prod(lead)
    rng = np.random.RandomState(ints(draw, 0, 2**32 - 1))
    flat = rng.choice(combos, size=m, replace=not (unique and m <= combos))
    coords = np.stack(np.unravel_index(flat, xshape[:n]), axis=-1) if n else np.zeros((m, 0), np.int64)
    return coords.reshape(tuple(lead) + (n,))


def _updates_shape(xshape, n, lead):
    return tuple(lead) + tuple(xshape[n:])


@st.composite
def rule(draw, unique=True):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    if unique and math.prod(lead) > math.prod(xshape[:n]):
        lead = (math.prod(xshape[:n]),)
    idx = _rows(draw, xshape, n, lead, unique).astype(dtype_from_name(pick(draw, IDX)))
    x = array_of(draw, dt, xshape)
    upd = array_of(draw, dt, _updates_shape(xshape, n, lead))
    note = ("slices" if n < len(xshape) else "elements") + ("" if unique else ", duplicates accumulate")
    return _case(x, idx, upd, note, pick(draw, LOCKING))


@st.composite
def duplicates(draw):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    lead = (max(2, lead[0]),) + tuple(lead[1:])
    idx = _rows(draw, xshape, n, lead, unique=False)
    flat = idx.reshape(-1, n)
    flat[1] = flat[0]                     # at least one repeat: it must accumulate (SNA-DUP)
    idx = flat.reshape(idx.shape).astype(dtype_from_name(pick(draw, IDX)))
    x = array_of(draw, dt, xshape)
    upd = array_of(draw, dt, _updates_shape(xshape, n, lead))
    return _case(x, idx, upd, "duplicates accumulate", pick(draw, LOCKING))


_WHOLE_X_SHAPES = st.one_of(st.just(()), shapes(1, 2, max_side=3))     # built once: see setitem._FULL_SHAPES


@st.composite
def whole_x(draw):
    """N = 0 (allowed: N <= P): every index row addresses all of x; a 0-d x needs exactly this."""
    dt = pick(draw, DTYPES)
    xshape = draw(_WHOLE_X_SHAPES)
    k = ints(draw, 1, 3)
    idx = np.zeros((k, 0), dtype=dtype_from_name(pick(draw, IDX)))
    x = array_of(draw, dt, xshape)
    upd = array_of(draw, dt, (k,) + tuple(xshape))
    return _case(x, idx, upd, "N=0 addresses all of x" + (" (0-d)" if not xshape else ""))


@st.composite
def empty(draw):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    lead = (0,) + tuple(lead[1:])
    idx = np.zeros(tuple(lead) + (n,), dtype=dtype_from_name(pick(draw, IDX)))
    return _case(array_of(draw, dt, xshape), idx, array_of(draw, dt, _updates_shape(xshape, n, lead)),
                 "empty indices")


@st.composite
def index_dtype(draw):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    bad = pick(draw, ("float32", "int16", "int8", "uint8", "float64", "bool"))
    idx = _rows(draw, xshape, n, lead).astype(dtype_from_name(bad))
    return _case(array_of(draw, dt, xshape), idx, array_of(draw, dt, _updates_shape(xshape, n, lead)),
                 f"{bad} indices")


# updates dtype whose values x's dtype holds exactly ("raises TypeError or RuntimeError, or returns the sum of
# the converted updates": SNA-DTYPE, SNA-CONVERT) vs one whose values it may not hold (the value is open then)
SAFE_PAIRS = (("float32", "float16"), ("float64", "float32"), ("int64", "int32"), ("int32", "int8"),
              ("float32", "int8"), ("float32", "bfloat16"))
LOSSY_PAIRS = (("int32", "float32"), ("int8", "int64"), ("float16", "float64"), ("int32", "int64"),
               ("uint8", "int8"), ("int32", "bool"), ("float16", "int32"))


@st.composite
def dtype_mismatch(draw, lossy=False):
    xdt, udt = pick(draw, LOSSY_PAIRS if lossy else SAFE_PAIRS)
    xshape, n, lead = _geometry(draw)
    idx = _rows(draw, xshape, n, lead).astype(dtype_from_name(pick(draw, IDX)))
    upd = array_of(draw, udt, _updates_shape(xshape, n, lead), specials=False)
    return _case(array_of(draw, xdt, xshape), idx, upd, f"{udt} updates into {xdt} x")


@st.composite
def locking(draw):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    idx = _rows(draw, xshape, n, lead).astype(dtype_from_name(pick(draw, IDX)))
    lock = pick(draw, (1, 0, "True", None, 1.0))
    return _case(array_of(draw, dt, xshape), idx, array_of(draw, dt, _updates_shape(xshape, n, lead)),
                 f"use_locking={lock!r}", lock, lock_given=True)


@st.composite
def updates_shape(draw):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    idx = _rows(draw, xshape, n, lead).astype(dtype_from_name(pick(draw, IDX)))
    good = _updates_shape(xshape, n, lead)
    how = pick(draw, ("extra dim", "missing dim", "side +1", "side -1"))
    if how == "extra dim":
        shape = (1,) + good
    elif how == "missing dim":
        shape = good[1:]
    else:
        ax = ints(draw, 0, len(good) - 1)
        delta = 1 if how == "side +1" or good[ax] == 0 else -1
        shape = tuple(s + delta if j == ax else s for j, s in enumerate(good))
    return _case(array_of(draw, dt, xshape), idx, array_of(draw, dt, shape),
                 f"updates shape {list(shape)} != {list(good)}")


@st.composite
def out_of_range(draw):
    dt = pick(draw, DTYPES)
    xshape, n, lead = _geometry(draw)
    idt = pick(draw, IDX)
    idx = _rows(draw, xshape, n, lead).astype(dtype_from_name(idt))
    col = ints(draw, 0, n - 1)
    size = xshape[col]
    big = (2**31 - 1,) if idt == "int32" else (2**31, 2**32, 2**32 + 1, 2**63 - 1, -2**63)
    bad = pick(draw, (size, size + 1, -1, -size, -size - 1) + big)
    idx.reshape(-1, n)[ints(draw, 0, idx.size // n - 1), col] = bad
    return _case(array_of(draw, dt, xshape), idx, array_of(draw, dt, _updates_shape(xshape, n, lead)),
                 f"index {bad} on an axis of size {size}")


@st.composite
def bad_index_rank(draw):
    """SNA-SHAPES: indices of rank 1 (Q < 2), or a last dim N larger than x's rank."""
    dt = pick(draw, DTYPES)
    xshape = shape_of(draw, 1, 3, max_side=4)
    if coin(draw):
        idx = np.asarray([ints(draw, 0, xshape[0] - 1)], dtype=np.int32)
        upd = array_of(draw, dt, tuple(xshape[1:]))
        note = "indices of rank 1"
    else:
        n = len(xshape) + 1
        idx = np.zeros((2, n), dtype=np.int32)
        upd = array_of(draw, dt, (2,))
        note = f"N={n} > rank {len(xshape)}"
    return _case(array_of(draw, dt, xshape), idx, upd, note)


# ---- boundary: values a dtype must round, dtype edges (oracle/*.DOMAIN) ------------------------


@st.composite
def scatter_nd_add_boundary(draw):
    idx_dt = pick(draw, (np.int32, np.int64))
    if coin(draw):
        # x[i] + u whose exact sum lies on a tie (or between): one update per element, so the sum rounds once
        dt = pick(draw, FLOATS)
        scale = Fraction(2) ** ints(draw, -3, 3)
        lo, hi = neighbours(dt, scale * (1 + Fraction(1, 2**60)))     # x = scale and the next value up
        step = hi - lo
        u = step * pick(draw, (0.5, 1.5, 0.25))
        x = np.array([lo, hi], np.float64).astype(dtype_from_name(dt))
        upd = np.array([u, -u if coin(draw) else u], np.float64).astype(dtype_from_name(dt))
        inputs = {"x": x, "indices": np.array([[0], [1]], idx_dt), "updates": upd}
        return make_case(OP, inputs, {}, _label("sums on ties", inputs))
    dt = pick(draw, FLOATS + INTS)
    x = edge_array(draw, dt)
    k = ints(draw, 1, x.size)
    rows = np.random.RandomState(ints(draw, 0, 2**16)).permutation(x.size)[:k]
    upd = edge_array(draw, dt)[:k]
    inputs = {"x": x, "indices": rows.reshape(k, 1).astype(idx_dt), "updates": upd}
    return make_case(OP, inputs, {}, _label("edges", inputs))


def boundary_cases():
    """Targeted boundary cases (suites/strategies/boundary.py): one small case per class the draw may miss."""
    out = [
        _c(OP, "x (0, 3), indices (0, 1), updates (0, 3): an empty axis", {
            "x": np.zeros((0, 3), F32), "indices": np.zeros((0, 1), I32), "updates": np.zeros((0, 3), F32)},
           {"use_locking": False}),
        _c(OP, "float64 0.1 + 0.2 (the exact sum needs rounding)", {
            "x": np.array([0.1, 0.0], F64), "indices": np.array([[0]], I64), "updates": np.array([0.2], F64)}, {}),
    ]
    for dt in FLOATS:
        # 1 + half a spacing and (1 + a spacing) + half a spacing: exact ties of the sum, even down and up
        one = np.array(1.0, dtype=np.float64).astype(dtype_from_name(dt))
        lo, hi = neighbours(dt, float(one) + 2.0 ** -(1 + {"float16": 10, "bfloat16": 7, "float32": 23,
                                                          "float64": 52}[dt]))
        half = (hi - lo) / 2
        out.append(_c(OP, f"{dt} x[i] + half a spacing: sums on a tie, even down and up", {
            "x": _arr([lo, hi, 0.0], dt), "indices": np.array([[0], [1]], I32), "updates": _arr([half, half], dt)},
            {"use_locking": False}))
        e = float_edges(dt)
        out.append(_c(OP, f"{dt} edges in x and updates (subnormal, max, -0.0, NaN payload)", {
            "x": e, "indices": np.array([[5], [0]], I64), "updates": np.concatenate([e[[0]], e[[6]]])}, {}))
    for dt in ("int8", "int16"):
        e = int_edges(dt)
        out.append(_c(OP, f"{dt} min/max in x, +1 at the zero", {
            "x": e, "indices": np.array([[2]], I32), "updates": np.array([1], e.dtype)}, {}))
    return out


ALIAS_DTYPES = ("float32", "int32", "float16", "int64", "bfloat16")


@st.composite
def aliasing(draw):
    """scatter_nd_add(x, indices, updates) with updates a view of x: rows of x added into rows of x,
    the rows written among the rows read or not (SNA-GAP-ALIAS).  Unique rows: the value is exact."""
    dt = pick(draw, ALIAS_DTYPES)
    xshape = shape_of(draw, 1, 3, min_side=2, max_side=5)
    overlapping = aliasing_.draw_overlap(draw)
    write, read = aliasing_.boxes(draw, xshape[:1], overlapping)
    (w0, w1), (r0, r1) = write[0], read[0]
    rows = np.arange(w0, w1)
    rows = rows[np.random.RandomState(ints(draw, 0, 2**32 - 1)).permutation(len(rows))]
    idx = rows.reshape(-1, 1).astype(dtype_from_name(pick(draw, IDX)))
    x = aliasing_.distinct_array(draw, dt, xshape)
    box = ((r0, r1),) + tuple((0, s) for s in xshape[1:])
    alias = aliasing_.alias_of("x", box)
    case = _case(x, idx, aliasing_.view(x, box), f"updates = {alias.text()} "
                 f"({aliasing_.overlap_word(overlapping)} with the rows written)")
    return make_case(OP, dict(case.inputs), dict(case.params), case.label, aliases={"updates": alias})


FAMILIES = {
    "rule": rule(), "duplicates": duplicates(), "whole_x": whole_x(), "empty": empty(),
    "index_dtype": index_dtype(), "dtype": dtype_mismatch(), "convert": dtype_mismatch(lossy=True),
    "locking": locking(), "updates_shape": updates_shape(), "out_of_range": out_of_range(),
    "bad_index_rank": bad_index_rank(),
    "boundary": scatter_nd_add_boundary(),
    "aliasing": aliasing(),
}
CORPUS_DRAWS = {"rule": 120, "duplicates": 60}      # the wide families


# ---- the document's examples and documented errors -----------------------------------------------

F32, I32 = np.float32, np.int32


def doc_examples():
    upd2 = np.stack([np.repeat(np.arange(1, 5, dtype=I32)[:, None], 4, 1),
                     np.repeat(np.arange(5, 9, dtype=I32)[:, None], 4, 1)])
    out2 = np.zeros((4, 4, 4), I32)
    out2[0] = np.array([[1] * 4, [2] * 4, [3] * 4, [4] * 4], I32)
    out2[2] = np.array([[5] * 4, [6] * 4, [7] * 4, [8] * 4], I32)
    return [
        doc_example(OP, "SNA-EX-1 1-D float32", ["SNA-EX-1"],
                    {"x": np.array([1, 2, 3, 4, 5, 6, 7, 8], F32), "indices": np.array([[2], [4], [1], [7]], I32),
                     "updates": np.array([6, 7, 8, 9], F32)}, {"use_locking": False},
                    {"out": np.array([1.0, 10.0, 9.0, 4.0, 12.0, 6.0, 7.0, 17.0], F32)}),
        doc_example(OP, "SNA-EX-2 3-D int32, slices", ["SNA-EX-2"],
                    {"x": np.zeros((4, 4, 4), I32), "indices": np.array([[0], [2]], I32), "updates": upd2},
                    {"use_locking": False}, {"out": out2}),
    ]


def error_cases():
    x = np.array([1, 2, 3, 4, 5, 6, 7, 8], F32)               # the doc's first example
    idx = np.array([[2], [4], [1], [7]], I32)
    upd = np.array([6, 7, 8, 9], F32)
    base = {"x": x, "indices": idx, "updates": upd}
    lock = {"use_locking": False}
    return [
        error_case(OP, "SNA-IDX-DTYPE", "TypeError", "float32 indices", {**base, "indices": idx.astype(F32)}, lock),
        error_case(OP, "SNA-IDX-DTYPE", "TypeError", "int16 indices", {**base, "indices": idx.astype(np.int16)}, lock),
        # a dtype difference alone is "raises TypeError or RuntimeError, or returns the converted sum"
        # (SNA-GAP-CONVERT); with a wrong shape as well it must raise, the class open among the three
        error_case(OP, "SNA-DTYPE", ("TypeError", "RuntimeError", "ValueError"),
                   "float16 updates of shape (3,) into float32 x", {**base, "updates": upd[:3].astype(np.float16)},
                   lock),
        error_case(OP, "SNA-LOCK", "TypeError", "use_locking=1", base, {"use_locking": 1}),
        error_case(OP, "SNA-LOCK", "TypeError", "use_locking='False'", base, {"use_locking": "False"}),
        error_case(OP, "SNA-UPD-SHAPE", "ValueError", "updates of shape (3,) for 4 index rows",
                   {**base, "updates": upd[:3]}, lock),
        error_case(OP, "SNA-UPD-SHAPE", "ValueError", "updates of shape (4, 1)", {**base, "updates": upd[:, None]},
                   lock),
    ]


# ---- odd but well-formed cases: the oracle answers each without crashing (tests/test_oracle_expect.py) ----
@st.composite
def _odd(draw):
    params = {} if draw(st.booleans()) else {"use_locking": draw(odd_scalars)}
    return Case(op=OP, inputs={"x": draw(odd_arrays()), "indices": draw(odd_arrays()),
                               "updates": draw(odd_arrays())}, params=params)


ODD_CASES = _odd()
