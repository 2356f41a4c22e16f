"""Cases for pypto `Tensor.__setitem__` (clauses SI-*): the document's examples, its documented errors, and
every key form, including the unsupported ones."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import strategies as st

from contract.case import Case
from contract.dtypes import FLOATS, INTS, dtype_from_name, dtype_name
from oracle.setitem import decode_key, key_text

from ..doc_examples import doc_example
from .boundary import boundary_case as _c, edge_array, float_edges, label as _label
from .common import odd_arrays
from . import aliasing as aliasing_
from .common import (array_of, coin, int_range, ints, make_case, pick, shape_of, shape_text, shapes,
                     unique_along, weighted_dtypes)

OP = "setitem"

DTYPES = weighted_dtypes(("float32", "int32"),
                         ("float16", "bfloat16", "int16", "int8", "int64", "float64", "uint8", "bool"))


def sl(start=None, stop=None, step=None) -> dict:
    return {"slice": [start, stop, step]}


def tup(*elems) -> dict:
    return {"tuple": list(elems)}


def _case(target, key, what, value=None, scalar=None, extra=None):
    inputs = {"target": target, **(extra or {})}
    params = {"key": key}
    if value is not None:
        inputs["value"] = value
    if scalar is not None:
        params["value"] = scalar
    label = f"a[{key_text(key)}] = {what} {dtype_name(target.dtype)} {shape_text(target.shape)}"
    return make_case(OP, inputs, params, label)


def _region(shape, key, inputs=None):
    """The region NumPy's indexing selects: used only to size a well-formed value."""
    try:
        return np.empty(shape, dtype=np.int8)[decode_key(key, inputs or {})].shape
    except (IndexError, ValueError, TypeError):
        return None


def _axis_slice(draw, size, open_ok=True, neg_ok=True):
    """(slice element, extent of the value on this axis, whether the extent is taken from the value)."""
    start = ints(draw, 0, size - 1)
    extent = ints(draw, 1, size - start)
    form = pick(draw, ("explicit", "open", "negative") if open_ok else ("explicit", "negative"))
    if form == "open":
        return sl(start, None), extent, extent < size - start
    if form == "negative" and neg_ok:
        stop = start + extent - size
        return sl(start - size, stop if stop < 0 else None), extent, False
    return sl(start, start + extent), extent, False


# The strategies a case draws from are built once, not per draw: Hypothesis validates each new strategy
# on its first draw, which costs more than the draw.
_FULL_SHAPES = st.one_of(shapes(1, 4), shapes(1, 3, min_side=0))
_INT32_SCALARS = st.one_of(st.integers(-100, 100), st.sampled_from((*int_range("int32"), 0, -1)))


@lru_cache(maxsize=None)
def _step_starts(size):
    return st.one_of(st.none(), st.integers(-size, size - 1))


@lru_cache(maxsize=None)
def _bool_lists(size):
    return st.lists(st.booleans(), min_size=size, max_size=size)


@lru_cache(maxsize=None)
def _permutations(size):
    return st.permutations(range(size))


@st.composite
def full(draw):
    dt = pick(draw, DTYPES)
    shape = draw(_FULL_SHAPES)
    target = array_of(draw, dt, shape)
    if ints(draw, 0, 4) == 0:    # a v of another shape: 'move' and 'assemble' disagree (SI-GAP-MOVE)
        vshape = tuple(ints(draw, 1, max(1, s)) for s in shape)
        if vshape == tuple(shape):
            vshape = vshape + (1,)
        return _case(target, sl(), "v of another shape (move)", value=array_of(draw, dt, vshape))
    empty = " empty tensor" if 0 in shape else ""
    return _case(target, sl(), "v (move)" + empty, value=array_of(draw, dt, shape))


@st.composite
def zero_d(draw):
    dt = pick(draw, DTYPES)
    target, value = array_of(draw, dt, ()), array_of(draw, dt, ())
    return _case(target, "...", "v 0-d", value=value)


@st.composite
def assemble(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 4)
    k = ints(draw, 1, len(shape))
    elems, extents, took = [], [], False
    for size in shape[:k]:
        e, extent, t = _axis_slice(draw, size)
        elems.append(e), extents.append(extent)
        took = took or t
    key = elems[0] if k == 1 and coin(draw) else tup(*elems)
    vshape = tuple(extents) + tuple(shape[k:])
    what = "smaller b (assemble)" if took else "b"
    return _case(array_of(draw, dt, shape), key, what, value=array_of(draw, dt, vshape))


def _mixed_key(draw, shape):
    """A key with at least one int and one slice over every axis; returns (key, region)."""
    kinds = [coin(draw) for _ in shape]
    if all(kinds) or not any(kinds):        # at least one int and one slice
        kinds[ints(draw, 0, len(shape) - 1)] = not kinds[0]
    elems, region = [], []
    for is_int, size in zip(kinds, shape):
        if is_int:
            elems.append(ints(draw, -size, size - 1))
        else:
            e, extent, _ = _axis_slice(draw, size, open_ok=False)
            elems.append(e), region.append(extent)
    return tup(*elems), tuple(region)


@st.composite
def mixed(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 2, 4)
    key, region = _mixed_key(draw, shape)
    return _case(array_of(draw, dt, shape), key, "b mixed", value=array_of(draw, dt, region))


@st.composite
def negative(draw):
    """The documented a[-1, -3:-1] form and its relatives: a negative int with a negative slice."""
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 2, 2, min_side=2)
    i = ints(draw, -shape[0], -1)
    start = ints(draw, -shape[1], -2)
    stop = ints(draw, start + 1, -1)
    key = tup(i, sl(start, stop))
    value = array_of(draw, dt, (stop - start,))
    return _case(array_of(draw, dt, shape), key, "b negative", value=value)


@st.composite
def ellipsis(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 4)
    m = ints(draw, 0, len(shape))
    pos = ints(draw, 0, m)
    explicit = [None] * m
    named_axes = list(range(pos)) + list(range(len(shape) - (m - pos), len(shape)))
    vshape = [None] * len(shape)
    for j, ax in enumerate(named_axes):
        if ints(draw, 0, 3) == 0:
            explicit[j] = ints(draw, -shape[ax], shape[ax] - 1)
        else:
            explicit[j], vshape[ax], _ = _axis_slice(draw, shape[ax], open_ok=False)
    for ax in range(pos, len(shape) - (m - pos)):
        # SI-ELLIPSIS example: the value's extent decides how much of an elided axis is written.
        vshape[ax] = ints(draw, 1, shape[ax])
    key = tup(*explicit[:pos], "...", *explicit[pos:])
    vshape = tuple(v for ax, v in enumerate(vshape) if v is not None)
    return _case(array_of(draw, dt, shape), key, "b ellipsis", value=array_of(draw, dt, vshape))


def _int_key(draw, shape):
    idx = [ints(draw, -s, s - 1) for s in shape]
    return idx[0] if len(idx) == 1 and coin(draw) else tup(*idx)


@st.composite
def single(draw):
    dt = pick(draw, ("int32",) * 6 + ("float32", "int64", "int16", "float16"))
    shape = shape_of(draw, 0, 4)
    key = _int_key(draw, shape)
    scalar = draw(_INT32_SCALARS)
    if dt != "int32":
        scalar = ints(draw, -100, 100)
    what = f"{scalar} (int scalar" + (")" if dt == "int32" else ", non-int32 target)")
    return _case(array_of(draw, dt, shape), key, what, scalar=scalar)


@st.composite
def int_row(draw):
    """An int key shorter than the rank with a tensor value: neither a slice key nor a single element."""
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 2, 4)
    n = ints(draw, 1, len(shape) - 1)
    idx = [ints(draw, -s, s - 1) for s in shape[:n]]
    key = idx[0] if n == 1 else tup(*idx)
    value = array_of(draw, dt, shape[n:])
    return _case(array_of(draw, dt, shape), key, "row (int key, tensor value)", value=value)


@st.composite
def scatter_form(draw):
    dt = pick(draw, ("float32", "float32", "int32", "float16", "bfloat16", "int16"))
    shape = shape_of(draw, 1, 3, min_side=1, max_side=4)
    d = ints(draw, 0, len(shape) - 1)
    ishape = tuple(ints(draw, 1, s) for s in shape)
    idt = pick(draw, ("int32", "int32", "int64"))
    indices = unique_along(draw, ishape, d, shape[d], idt)
    key = sl(d, {"tensor": "indices"})
    return _case(array_of(draw, dt, shape), key, f"values (scatter dim {d}, {idt})",
                 value=array_of(draw, dt, ishape), extra={"indices": indices})


@st.composite
def step(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3, min_side=2)
    ax = ints(draw, 0, len(shape) - 1)
    stp = pick(draw, (2, 3, -1, -2))
    start = draw(_step_starts(shape[ax]))
    elems = [sl() for _ in shape]
    elems[ax] = sl(start, None, stp)
    key = tup(*elems)
    region = _region(shape, key)
    return _case(array_of(draw, dt, shape), key, f"b (step {stp})", value=array_of(draw, dt, region))


@st.composite
def bool_key(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3, min_side=1, max_side=4)
    form = pick(draw, ("bools", "bool", "mask"))
    extra = {}
    if form == "bools":   # the documented a[True, False, True, False]
        key = tup(*draw(_bool_lists(shape[0])))
    elif form == "bool":
        key = coin(draw)
    else:
        extra["mask"] = array_of(draw, "bool", shape[:1])
        key = {"tensor": "mask"}
    region = _region(shape, key, extra)
    return _case(array_of(draw, dt, shape), key, "b (bool index)", value=array_of(draw, dt, region), extra=extra)


@st.composite
def tensor_index(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3, min_side=1, max_side=4)
    k = ints(draw, 1, shape[0])
    b = np.asarray(draw(_permutations(shape[0]))[:k], dtype=np.int32)
    key = {"tensor": "b"} if len(shape) == 1 or coin(draw) else tup({"tensor": "b"}, sl())
    region = _region(shape, key, {"b": b})
    return _case(array_of(draw, dt, shape), key, "v (tensor index)", value=array_of(draw, dt, region),
                 extra={"b": b})


@st.composite
def float_scalar(draw):
    dt = pick(draw, ("int32", "int32", "float32", "float16"))
    shape = shape_of(draw, 1, 3)
    key = _int_key(draw, shape)
    scalar = pick(draw, (2.5, -1.5, 3.0, 0.5, float("nan"), float("inf"), -0.0))
    return _case(array_of(draw, dt, shape), key, f"{scalar!r} (float scalar)", scalar=scalar)


@st.composite
def mixed_ndim_mismatch(draw):
    """SI-MIXED-N: the value's ndim differs from the number of slices although NumPy would broadcast it."""
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 2, 4)
    key, region = _mixed_key(draw, shape)
    if len(region) >= 2 and coin(draw):
        elems = list(key["tuple"])
        first = next(j for j, e in enumerate(elems) if isinstance(e, dict))
        start = elems[first]["slice"][0]
        start = start if start >= 0 else start + shape[first]
        elems[first] = sl(start, start + 1)
        key, vshape = tup(*elems), region[1:]
    else:
        vshape = (1,) + region
    return _case(array_of(draw, dt, shape), key, f"b of ndim {len(vshape)} (mixed key)",
                 value=array_of(draw, dt, vshape))


@st.composite
def region_gap(draw):
    """Explicit stops whose region disagrees with the value's shape (SI-GAP-REGION)."""
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3, min_side=2)
    elems, vshape = [], []
    for size in shape:
        start = ints(draw, 0, size - 2)
        room = size - start
        extent = ints(draw, 1, room)
        elems.append(sl(start, start + extent))
        vshape.append(ints(draw, 1, room))
    if all(v == e["slice"][1] - e["slice"][0] for v, e in zip(vshape, elems)):
        room = shape[0] - elems[0]["slice"][0]
        vshape[0] = vshape[0] % room + 1     # room >= 2, so this differs from the region's extent
    key = tup(*elems)
    return _case(array_of(draw, dt, shape), key, "b (region != value shape)", value=array_of(draw, dt, tuple(vshape)))


@st.composite
def empty_region(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3)
    i = ints(draw, 0, shape[0])
    key = tup(sl(i, i), *[sl() for _ in shape[1:]]) if coin(draw) else sl(i, i)
    value = array_of(draw, dt, (0,) + tuple(shape[1:]))
    return _case(array_of(draw, dt, shape), key, "empty b (empty region)", value=value)


@st.composite
def out_of_range(draw):
    """Keys past the target: an int beyond an axis, a slice running past it, more indices than dims."""
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3, max_side=4)
    how = pick(draw, ("int", "slice", "too many"))
    if how == "int":
        idx = [ints(draw, -s, s - 1) for s in shape]
        ax = ints(draw, 0, len(shape) - 1)
        idx[ax] = pick(draw, (shape[ax], shape[ax] + 3, -shape[ax] - 1, 2**31))
        return _case(array_of(draw, dt, shape), tup(*idx), "5 (int key out of range)", scalar=5)
    if how == "slice":
        start = ints(draw, 0, shape[0] - 1)
        extent = shape[0] - start + ints(draw, 1, 2)
        key = tup(sl(start, start + extent), *[sl() for _ in shape[1:]])
        value = array_of(draw, dt, (extent,) + tuple(shape[1:]))
        return _case(array_of(draw, dt, shape), key, "b (slice runs past the target)", value=value)
    key = tup(*[0] * (len(shape) + 1))
    return _case(array_of(draw, dt, shape), key, "5 (more indices than dims)", scalar=5)


@st.composite
def value_dtype(draw):
    """A value of another dtype than the target's, or an int scalar int32 cannot hold."""
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3)
    if ints(draw, 0, 3) == 0:
        key = _int_key(draw, shape)
        scalar = pick(draw, (2**31, -2**31 - 1, 2**40))
        return _case(array_of(draw, "int32", shape), key, f"{scalar} (beyond int32)", scalar=scalar)
    vdt = pick(draw, tuple(d for d in ("float32", "int32", "float16", "int64", "bool") if d != dt))
    value = array_of(draw, vdt, shape)
    return _case(array_of(draw, dt, shape), sl(), f"{vdt} v", value=value)


# ---- boundary: values a dtype must round, dtype edges (oracle/*.DOMAIN) ------------------------


@st.composite
def setitem_edges(draw):
    dt = pick(draw, FLOATS + INTS)
    value = edge_array(draw, dt)
    start = ints(draw, 0, 2)
    target = np.zeros(value.size + start, dtype_from_name(dt))
    key = {"slice": [start, None, None]} if start or coin(draw) else {"slice": [None, None, None]}
    inputs = {"target": target, "value": value}
    return make_case(OP, inputs, {"key": key}, _label("edges moved", inputs))


def _sl(start=None, stop=None, step=None):
    return {"slice": [start, stop, step]}


def boundary_cases():
    """Targeted boundary cases (suites/strategies/boundary.py): one small case per class the draw may miss."""
    z4 = np.zeros(4, F32)
    v = np.array([1, 2, 3], F32)
    out = [
        _c(OP, "a[1:3:1] = b: step 1 written out (the default)", {"target": z4, "value": v[:2]},
           {"key": _sl(1, 3, 1)}),
        _c(OP, "a[0:2:1, 1:] = b: step 1 written out, 2-d", {"target": np.zeros((3, 3), F32),
                                                                  "value": np.ones((2, 2), F32)},
           {"key": {"tuple": [_sl(0, 2, 1), _sl(1)]}}),
        _c(OP, "a[:-1] = b: open start, negative stop", {"target": z4, "value": v}, {"key": _sl(None, -1)}),
        _c(OP, "a[5:] = b on 4 elements: start one past the end (SI-GAP-RANGE)",
           {"target": z4, "value": np.zeros(0, F32)}, {"key": _sl(5)}),
        _c(OP, "a[()] = 5 on a 0-d int32 target: the empty key", {"target": np.array(3, I32)},
           {"key": {"tuple": []}, "value": 5}),
        _c(OP, "a[0:indices] = values with index 4 on 4 rows (one past)",
           {"target": np.zeros((4, 4), F32), "indices": np.array([[0, 1, 2, 4]], I32),
            "value": np.full((1, 4), 10, F32)}, {"key": {"slice": [0, {"tensor": "indices"}, None]}}),
        _c(OP, "a[0:indices] = values with index -1", {"target": np.zeros((4, 4), F32),
                                                               "indices": np.array([[0, -1, 2, 3]], I32),
                                                               "value": np.full((1, 4), 10, F32)},
           {"key": {"slice": [0, {"tensor": "indices"}, None]}}),
    ]
    for dt in FLOATS:       # data movement keeps every bit: the edges of each float dtype, moved whole
        e = float_edges(dt)
        out.append(_c(OP, f"a[:] = {dt} edges (subnormal, max, -0.0, NaN payload)",
                      {"target": np.zeros(e.shape, e.dtype), "value": e}, {"key": _sl()}))
        out.append(_c(OP, f"a[1:] = {dt} edges (assembled at 1)",
                      {"target": np.zeros(e.size + 1, e.dtype), "value": e}, {"key": {"tuple": [_sl(1)]}}))
    return out


ALIAS_DTYPES = ("float32", "int32", "float16", "bfloat16", "int64", "int8")


@st.composite
def aliasing(draw):
    """a[write box] = a[read box]: the value a view of the target, overlapping the region written or not
    (SI-GAP-ALIAS; suites/strategies/aliasing.py)."""
    dt = pick(draw, ALIAS_DTYPES)
    shape = shape_of(draw, 1, 3, min_side=2, max_side=5)
    overlapping = aliasing_.draw_overlap(draw)
    write, read = aliasing_.boxes(draw, shape, overlapping)
    target = aliasing_.distinct_array(draw, dt, shape)
    key = tup(*({"slice": [a, b, None]} for a, b in write))
    alias = aliasing_.alias_of("target", read)
    label = (f"a[{key_text(key)}] = {alias.text().replace('target', 'a', 1)} ({aliasing_.overlap_word(overlapping)} "
             f"view) {dt} {shape_text(shape)}")
    return make_case(OP, {"target": target, "value": aliasing_.view(target, read)}, {"key": key}, label,
                     aliases={"value": alias})


FAMILIES = {
    "full": full(), "zero_d": zero_d(), "assemble": assemble(), "mixed": mixed(), "negative": negative(),
    "ellipsis": ellipsis(), "single": single(), "int_row": int_row(), "scatter_form": scatter_form(),
    "step": step(), "bool": bool_key(), "tensor_index": tensor_index(), "float_scalar": float_scalar(),
    "mixed_n": mixed_ndim_mismatch(), "region_gap": region_gap(), "empty_region": empty_region(),
    "out_of_range": out_of_range(), "value_dtype": value_dtype(),
    "boundary": setitem_edges(),
    "aliasing": aliasing(),
}
CORPUS_DRAWS = {"assemble": 60, "mixed": 60, "ellipsis": 50}      # the wide families


# ---- the document's examples and documented errors -----------------------------------------------

F32, I32 = np.float32, np.int32


def doc_examples():
    z44 = np.zeros((4, 4), F32)
    ten22, ten2 = np.full((2, 2), 10, F32), np.full((2,), 10, F32)
    a = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]], I32)
    b = np.ones((4, 4), I32)
    return [
        doc_example(OP, "SI-EX-1 c[:] = a + b (empty slice, add kernel)", ["SI-EX-1"],
                    {"target": np.zeros((4, 4), I32), "value": a + b}, {"key": sl()},
                    {"target": np.array([[2, 3, 4, 5], [6, 7, 8, 9], [10, 11, 12, 13], [14, 15, 16, 17]], I32)}),
        doc_example(OP, "SI-EX-2 a[0:, 0:] = b (2x2 assembled into 4x4)", ["SI-EX-2"],
                    {"target": z44, "value": ten22}, {"key": tup(sl(0), sl(0))},
                    {"target": np.array([[10, 10, 0, 0], [10, 10, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], F32)}),
        doc_example(OP, "SI-EX-3 a[0, 1:3] = b (mixed key, b of shape [2])", ["SI-EX-3"],
                    {"target": z44, "value": ten2}, {"key": tup(0, sl(1, 3))},
                    {"target": np.array([[0, 10, 10, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], F32)}),
        doc_example(OP, "SI-EX-4 a[-1, -3:-1] = b (negative indices)", ["SI-EX-4"],
                    {"target": z44, "value": ten2}, {"key": tup(-1, sl(-3, -1))},
                    {"target": np.array([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 10, 10, 0]], F32)}),
        doc_example(OP, "SI-EX-5 a[..., 2:4] = b (Ellipsis)", ["SI-EX-5"],
                    {"target": z44, "value": ten22}, {"key": tup("...", sl(2, 4))},
                    {"target": np.array([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 0, 0], [0, 0, 0, 0]], F32)}),
        doc_example(OP, "SI-EX-6 a[2, 3] = 5 (single element, DT_INT32)", ["SI-EX-6"],
                    {"target": np.zeros((4, 4), I32)}, {"key": tup(2, 3), "value": 5},
                    {"target": np.array([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 5], [0, 0, 0, 0]], I32)}),
        doc_example(OP, "SI-EX-7 a[0:indices] = values (scatter form)", ["SI-EX-7"],
                    {"target": z44, "indices": np.array([[0, 1, 2, 3]], I32), "value": np.full((1, 4), 10, F32)},
                    {"key": sl(0, {"tensor": "indices"})},
                    {"target": np.array([[10, 0, 0, 0], [0, 10, 0, 0], [0, 0, 10, 0], [0, 0, 0, 10]], F32)}),
    ]


def error_cases():
    # setitem documents no error of its own: SI-MIXED-N is a precondition with no stated consequence
    # (docs/SPEC.md, "Preconditions"); the scatter form's errors are scatter's
    return []


# ---- odd but well-formed cases: the oracle answers each without crashing (tests/test_oracle_expect.py) ----
@st.composite
def _odd(draw):
    sl = lambda a, b, c: {"slice": [a, b, c]}       # noqa: E731
    elem = st.one_of(st.integers(-5, 5), st.just("..."), st.booleans(), st.floats(-2, 2),
                     st.builds(sl, *[st.one_of(st.none(), st.integers(-5, 5))] * 3),
                     st.just({"tensor": "b"}), st.just(sl(0, {"tensor": "b"}, None)))
    key = draw(st.one_of(elem, st.lists(elem, max_size=5).map(lambda e: {"tuple": e})))
    inputs, params = {"target": draw(odd_arrays()), "b": draw(odd_arrays())}, {"key": key}
    if draw(st.booleans()):
        inputs["value"] = draw(odd_arrays())
    else:
        params["value"] = draw(st.one_of(st.integers(-2**40, 2**40), st.floats(), st.booleans()))
    return Case(op=OP, inputs=inputs, params=params)


ODD_CASES = _odd()


def well_formed(case) -> str:
    """What a generated setitem case promises beyond the decoder: every input but target and value is a
    tensor the key refers to."""
    from oracle.setitem import key_tensors
    stray = set(case.inputs) - {"target", "value"} - set(key_tensors(case.params["key"]))
    return f"inputs {sorted(stray)} are neither target, value nor a key tensor" if stray else ""
