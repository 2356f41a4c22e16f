"""Cases for pypto `Tensor.__setitem__` (clauses SI-*): every key form, including the unsupported ones."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle.case import decode_key, key_text
from oracle.dtypes import dtype_name

from .common import arrays, int_range, make_case, shape_text, shapes, unique_along, weighted_dtypes

DTYPES = weighted_dtypes(("float32", "int32"),
                         ("float16", "bfloat16", "int16", "int8", "int64", "float64", "uint8", "bool"))
BASE = ("SI-KEY", "SI-INPLACE")


def sl(start=None, stop=None, step=None) -> dict:
    return {"slice": [start, stop, step]}


def tup(*elems) -> dict:
    return {"tuple": list(elems)}


def _case(target, key, clauses, what, value=None, scalar=None, extra=None):
    inputs = {"target": target, **(extra or {})}
    params = {"key": key}
    if value is not None:
        inputs["value"] = value
    if scalar is not None:
        params["value"] = scalar
    label = f"a[{key_text(key)}] = {what} {dtype_name(target.dtype)} {shape_text(target.shape)}"
    return make_case("setitem", inputs, params, BASE + tuple(clauses), label)


def _region(shape, key, inputs=None):
    """The region NumPy's indexing selects: used only to size a well-formed value."""
    try:
        return np.empty(shape, dtype=np.int8)[decode_key(key, inputs or {})].shape
    except (IndexError, ValueError, TypeError):
        return None


def _axis_slice(draw, size, open_ok=True, neg_ok=True):
    """(slice element, start, extent of the value along this axis, took extent from value, negative)."""
    start = draw(st.integers(0, size - 1))
    extent = draw(st.integers(1, size - start))
    form = draw(st.sampled_from(("explicit", "open", "negative") if open_ok else ("explicit", "negative")))
    if form == "open":
        return sl(start, None), extent, extent < size - start, False
    if form == "negative" and neg_ok:
        stop = start + extent - size
        return sl(start - size, stop if stop < 0 else None), extent, False, True
    return sl(start, start + extent), extent, False, False


@st.composite
def full(draw):
    dt = draw(DTYPES)
    shape = draw(st.one_of(shapes(1, 4), shapes(1, 3, min_side=0)))
    target = draw(arrays(dt, shape))
    if draw(st.integers(0, 4)) == 0:    # a v of another shape: 'move' and 'assemble' disagree (SI-GAP-MOVE)
        vshape = tuple(draw(st.integers(1, max(1, s))) for s in shape)
        if vshape == tuple(shape):
            vshape = vshape + (1,)
        return _case(target, sl(), ("SI-EMPTY", "SI-VAL-T"), "v of another shape (move)",
                     value=draw(arrays(dt, vshape)))
    empty = " empty tensor" if 0 in shape else ""
    return _case(target, sl(), ("SI-EMPTY", "SI-VAL-T"), "v (move)" + empty, value=draw(arrays(dt, shape)))


@st.composite
def zero_d(draw):
    dt = draw(DTYPES)
    target, value = draw(arrays(dt, ())), draw(arrays(dt, ()))
    return _case(target, "...", ("SI-ELLIPSIS", "SI-VAL-T"), "v 0-d", value=value)


@st.composite
def assemble(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(1, 4))
    k = draw(st.integers(1, len(shape)))
    elems, extents, took, neg = [], [], False, False
    for size in shape[:k]:
        e, extent, t, n = _axis_slice(draw, size)
        elems.append(e), extents.append(extent)
        took, neg = took or t, neg or n
    key = elems[0] if k == 1 and draw(st.booleans()) else tup(*elems)
    vshape = tuple(extents) + tuple(shape[k:])
    clauses = ("SI-VAL-T",) + (("SI-ASSEMBLE",) if took else ()) + (("SI-NEG",) if neg else ())
    what = "smaller b (assemble)" if took else "b"
    return _case(draw(arrays(dt, shape)), key, clauses, what, value=draw(arrays(dt, vshape)))


def _mixed_key(draw, shape):
    """A key with at least one int and one slice over every axis; returns (key, region, negative)."""
    kinds = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))
                 .filter(lambda ks: any(ks) and not all(ks)))
    elems, region, neg = [], [], False
    for is_int, size in zip(kinds, shape):
        if is_int:
            i = draw(st.integers(-size, size - 1))
            elems.append(i)
            neg = neg or i < 0
        else:
            e, extent, _, n = _axis_slice(draw, size, open_ok=False)
            elems.append(e), region.append(extent)
            neg = neg or n
    return tup(*elems), tuple(region), neg


@st.composite
def mixed(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(2, 4))
    key, region, neg = _mixed_key(draw, shape)
    clauses = ("SI-MIXED", "SI-VAL-T") + (("SI-NEG",) if neg else ())
    return _case(draw(arrays(dt, shape)), key, clauses, "b mixed", value=draw(arrays(dt, region)))


@st.composite
def negative(draw):
    """The documented a[-1, -3:-1] form and its relatives: a negative int with a negative slice."""
    dt = draw(DTYPES)
    shape = draw(shapes(2, 2, min_side=2))
    i = draw(st.integers(-shape[0], -1))
    start = draw(st.integers(-shape[1], -2))
    stop = draw(st.integers(start + 1, -1))
    key = tup(i, sl(start, stop))
    value = draw(arrays(dt, (stop - start,)))
    return _case(draw(arrays(dt, shape)), key, ("SI-NEG", "SI-MIXED", "SI-VAL-T"), "b negative", value=value)


@st.composite
def ellipsis(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(1, 4))
    m = draw(st.integers(0, len(shape)))
    pos = draw(st.integers(0, m))
    explicit = [None] * m
    named_axes = list(range(pos)) + list(range(len(shape) - (m - pos), len(shape)))
    vshape, ints, neg = [None] * len(shape), False, False
    for j, ax in enumerate(named_axes):
        if draw(st.integers(0, 3)) == 0:
            explicit[j] = draw(st.integers(-shape[ax], shape[ax] - 1))
            ints, neg = True, neg or explicit[j] < 0
        else:
            explicit[j], vshape[ax], _, n = _axis_slice(draw, shape[ax], open_ok=False)
            neg = neg or n
    for ax in range(pos, len(shape) - (m - pos)):
        # ST-ELLIPSIS example: the value's extent decides how much of an elided axis is written.
        vshape[ax] = draw(st.integers(1, shape[ax]))
    key = tup(*explicit[:pos], "...", *explicit[pos:])
    vshape = tuple(v for ax, v in enumerate(vshape) if v is not None)
    clauses = ("SI-ELLIPSIS", "SI-VAL-T") + (("SI-MIXED",) if ints else ()) + (("SI-NEG",) if neg else ())
    return _case(draw(arrays(dt, shape)), key, clauses, "b ellipsis", value=draw(arrays(dt, vshape)))


def _int_key(draw, shape):
    idx = [draw(st.integers(-s, s - 1)) for s in shape]
    key = idx[0] if len(idx) == 1 and draw(st.booleans()) else tup(*idx)
    return key, any(i < 0 for i in idx)


@st.composite
def single(draw):
    dt = draw(st.sampled_from(("int32",) * 6 + ("float32", "int64", "int16", "float16")))
    shape = draw(shapes(0, 4))
    key, neg = _int_key(draw, shape)
    lo, hi = int_range("int32")
    scalar = draw(st.one_of(st.integers(-100, 100), st.sampled_from((lo, hi, 0, -1))))
    if dt != "int32":
        scalar = draw(st.integers(-100, 100))
    clauses = ("SI-VAL-S",) + (("SI-NEG",) if neg else ())
    what = f"{scalar} (int scalar" + (")" if dt == "int32" else ", non-int32 target)")
    return _case(draw(arrays(dt, shape)), key, clauses, what, scalar=scalar)


@st.composite
def int_row(draw):
    """An int key shorter than the rank with a tensor value: neither a slice key nor a single element."""
    dt = draw(DTYPES)
    shape = draw(shapes(2, 4))
    n = draw(st.integers(1, len(shape) - 1))
    idx = [draw(st.integers(-s, s - 1)) for s in shape[:n]]
    key = idx[0] if n == 1 else tup(*idx)
    value = draw(arrays(dt, shape[n:]))
    return _case(draw(arrays(dt, shape)), key, ("SI-VAL-T",), "row (int key, tensor value)", value=value)


@st.composite
def scatter_form(draw):
    dt = draw(st.sampled_from(("float32", "float32", "int32", "float16", "bfloat16", "int16")))
    shape = draw(shapes(1, 3, min_side=1, max_side=4))
    d = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(1, s)) for s in shape)
    idt = draw(st.sampled_from(("int32", "int32", "int64")))
    indices = unique_along(draw, ishape, d, shape[d], idt)
    key = sl(d, {"tensor": "indices"})
    return _case(draw(arrays(dt, shape)), key, ("SI-SCATTER", "SC-RULE"), f"values (scatter dim {d}, {idt})",
                 value=draw(arrays(dt, ishape)), extra={"indices": indices})


@st.composite
def step(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3, min_side=2))
    ax = draw(st.integers(0, len(shape) - 1))
    stp = draw(st.sampled_from((2, 3, -1, -2)))
    start = draw(st.one_of(st.none(), st.integers(-shape[ax], shape[ax] - 1)))
    elems = [sl() for _ in shape]
    elems[ax] = sl(start, None, stp)
    key = tup(*elems)
    region = _region(shape, key)
    return _case(draw(arrays(dt, shape)), key, ("SI-STEP",), f"b (step {stp})", value=draw(arrays(dt, region)))


@st.composite
def bool_key(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3, min_side=1, max_side=4))
    form = draw(st.sampled_from(("bools", "bool", "mask")))
    extra = {}
    if form == "bools":   # the documented a[True, False, True, False]
        key = tup(*draw(st.lists(st.booleans(), min_size=shape[0], max_size=shape[0])))
    elif form == "bool":
        key = draw(st.booleans())
    else:
        extra["mask"] = draw(arrays("bool", shape[:1]))
        key = {"tensor": "mask"}
    region = _region(shape, key, extra)
    return _case(draw(arrays(dt, shape)), key, ("SI-BOOL",), "b (bool index)", value=draw(arrays(dt, region)),
                 extra=extra)


@st.composite
def tensor_index(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3, min_side=1, max_side=4))
    k = draw(st.integers(1, shape[0]))
    b = np.asarray(draw(st.permutations(range(shape[0])))[:k], dtype=np.int32)
    key = {"tensor": "b"} if len(shape) == 1 or draw(st.booleans()) else tup({"tensor": "b"}, sl())
    region = _region(shape, key, {"b": b})
    return _case(draw(arrays(dt, shape)), key, ("SI-TINDEX",), "v (tensor index)", value=draw(arrays(dt, region)),
                 extra={"b": b})


@st.composite
def float_scalar(draw):
    dt = draw(st.sampled_from(("int32", "int32", "float32", "float16")))
    shape = draw(shapes(1, 3))
    key, neg = _int_key(draw, shape)
    scalar = draw(st.sampled_from((2.5, -1.5, 3.0, 0.5, float("nan"), float("inf"), -0.0)))
    clauses = ("SI-FLOATSCALAR",) + (("SI-NEG",) if neg else ())
    return _case(draw(arrays(dt, shape)), key, clauses, f"{scalar!r} (float scalar)", scalar=scalar)


@st.composite
def mixed_ndim_mismatch(draw):
    """SI-MIXED-N: the value's ndim differs from the number of slices although NumPy would broadcast it."""
    dt = draw(DTYPES)
    shape = draw(shapes(2, 4))
    key, region, _ = _mixed_key(draw, shape)
    if len(region) >= 2 and draw(st.booleans()):
        elems = list(key["tuple"])
        first = next(j for j, e in enumerate(elems) if isinstance(e, dict))
        start = elems[first]["slice"][0]
        start = start if start >= 0 else start + shape[first]
        elems[first] = sl(start, start + 1)
        key, vshape = tup(*elems), region[1:]
    else:
        vshape = (1,) + region
    return _case(draw(arrays(dt, shape)), key, ("SI-MIXED", "SI-MIXED-N"), f"b of ndim {len(vshape)} (mixed key)",
                 value=draw(arrays(dt, vshape)))


@st.composite
def region_gap(draw):
    """Explicit stops whose region disagrees with the value's shape (SI-GAP-REGION)."""
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3, min_side=2))
    elems, vshape = [], []
    for size in shape:
        start = draw(st.integers(0, size - 2))
        room = size - start
        extent = draw(st.integers(1, room))
        elems.append(sl(start, start + extent))
        vshape.append(draw(st.integers(1, room)))
    if all(v == e["slice"][1] - e["slice"][0] for v, e in zip(vshape, elems)):
        room = shape[0] - elems[0]["slice"][0]
        vshape[0] = vshape[0] % room + 1     # room >= 2, so this differs from the region's extent
    key = tup(*elems)
    return _case(draw(arrays(dt, shape)), key, ("SI-VAL-T", "SI-GAP-REGION", "SI-ASSEMBLE"),
                 "b (region != value shape)", value=draw(arrays(dt, tuple(vshape))))


@st.composite
def empty_region(draw):
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3))
    i = draw(st.integers(0, shape[0]))
    key = tup(sl(i, i), *[sl() for _ in shape[1:]]) if draw(st.booleans()) else sl(i, i)
    value = draw(arrays(dt, (0,) + tuple(shape[1:])))
    return _case(draw(arrays(dt, shape)), key, ("SI-VAL-T",), "empty b (empty region)", value=value)


@st.composite
def out_of_range(draw):
    """Keys past the target: an int beyond an axis, a slice running past it, more indices than dims."""
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3, max_side=4))
    how = draw(st.sampled_from(("int", "slice", "too many")))
    if how == "int":
        idx = [draw(st.integers(-s, s - 1)) for s in shape]
        ax = draw(st.integers(0, len(shape) - 1))
        idx[ax] = draw(st.sampled_from((shape[ax], shape[ax] + 3, -shape[ax] - 1, 2**31)))
        return _case(draw(arrays(dt, shape)), tup(*idx), (), "5 (int key out of range)", scalar=5)
    if how == "slice":
        start = draw(st.integers(0, shape[0] - 1))
        extent = shape[0] - start + draw(st.integers(1, 2))
        key = tup(sl(start, start + extent), *[sl() for _ in shape[1:]])
        value = draw(arrays(dt, (extent,) + tuple(shape[1:])))
        return _case(draw(arrays(dt, shape)), key, ("SI-VAL-T",), "b (slice runs past the target)", value=value)
    key = tup(*[0] * (len(shape) + 1))
    return _case(draw(arrays(dt, shape)), key, (), "5 (more indices than dims)", scalar=5)


@st.composite
def value_dtype(draw):
    """A value of another dtype than the target's, or an int scalar int32 cannot hold."""
    dt = draw(DTYPES)
    shape = draw(shapes(1, 3))
    if draw(st.integers(0, 3)) == 0:
        key, _ = _int_key(draw, shape)
        scalar = draw(st.sampled_from((2**31, -2**31 - 1, 2**40)))
        return _case(draw(arrays("int32", shape)), key, ("SI-VAL-S",), f"{scalar} (beyond int32)", scalar=scalar)
    vdt = draw(st.sampled_from(tuple(d for d in ("float32", "int32", "float16", "int64", "bool") if d != dt)))
    value = draw(arrays(vdt, shape))
    return _case(draw(arrays(dt, shape)), sl(), ("SI-EMPTY", "SI-VAL-T"), f"{vdt} v", value=value)


FAMILIES = {
    "full": full(), "zero_d": zero_d(), "assemble": assemble(), "mixed": mixed(), "negative": negative(),
    "ellipsis": ellipsis(), "single": single(), "int_row": int_row(), "scatter": scatter_form(),
    "step": step(), "bool": bool_key(), "tensor_index": tensor_index(), "float_scalar": float_scalar(),
    "mixed_n": mixed_ndim_mismatch(), "region_gap": region_gap(), "empty_region": empty_region(),
    "out_of_range": out_of_range(), "value_dtype": value_dtype(),
}
