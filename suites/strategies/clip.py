"""Cases for pypto `clip(x, min, max)` (clauses CL-*): scalar, Element, Tensor and mixed bounds."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from contract.dtypes import FLOATS, dtype_from_name, dtype_name

from .common import (array_of, coin, elements, has_nan, int_range, ints, make_case, pick, shape_of,
                     shape_text, shapes)

DOC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16")      # CL-DTYPE
UNDOC_DTYPES = ("float64", "int8", "int64")
BOUND_DTYPES = ("float32", "float16", "int32", "int16")                 # CL-BOUND-DTYPE's list
SCALAR_KINDS = ("int", "float", "element")
BASE = ("CL-FORMULA", "CL-DTYPE")


def _is_float(name) -> bool:
    return name in FLOATS


def _scalar_bound(draw, kind, xdt, specials=True):
    if kind == "int":
        return {"kind": "int", "value": ints(draw, -8, 8)}
    if kind == "float":
        special = st.sampled_from((math.nan, math.inf, -math.inf, -0.0)) if specials else st.nothing()
        return {"kind": "float", "value": draw(st.one_of(st.integers(-16, 16).map(lambda i: i / 2), special))}
    value = draw(elements(xdt, specials=specials and _is_float(xdt)))
    value = float(value) if _is_float(xdt) else int(value)
    return {"kind": "element", "dtype": xdt, "value": value}


def _broadcast_shape_for(draw, xshape):
    """A shape that broadcasts to xshape: some sides set to 1, some leading dims dropped."""
    drop = ints(draw, 0, len(xshape) - 1) if xshape else 0
    kept = xshape[drop:]
    return tuple(1 if ints(draw, 0, 2) == 0 else s for s in kept)


def _bound_value(p, arr):
    if p is None:
        return None
    if p["kind"] == "tensor":
        return arr.astype(np.float64)
    return np.float64(p["value"])


def _desc(p, arr) -> str:
    if p is None:
        return "omitted"
    if p["kind"] == "tensor":
        return f"tensor {dtype_name(arr.dtype)} {shape_text(arr.shape)}"
    if p["kind"] == "element":
        return f"Element({p['dtype']}, {p['value']!r})"
    return repr(p["value"])


def _case(x, lo, hi, extra_clauses=(), note="", lo_arr=None, hi_arr=None):
    params, inputs = {}, {"x": x}
    for name, p, arr in (("min", lo, lo_arr), ("max", hi, hi_arr)):
        if p is not None:
            params[name] = p
            if p["kind"] == "tensor":
                inputs[name] = arr
    xdt = dtype_name(x.dtype)
    clauses = list(BASE) + list(extra_clauses)
    if any(p is not None and p["kind"] != "tensor" for p in (lo, hi)):
        clauses.append("CL-BOUND-TYPES")
    if (lo is None) != (hi is None):
        clauses.append("CL-DEFAULTS")
    if lo is None and hi is None:
        clauses.append("CL-NONE")
    lov, hiv = _bound_value(lo, lo_arr), _bound_value(hi, hi_arr)
    specials = [v for v in (lov, hiv) if v is not None]
    if lov is not None and hiv is not None:
        with np.errstate(invalid="ignore"):
            try:
                if np.any(np.asarray(lov) > np.asarray(hiv)):
                    clauses.append("CL-MIN-GT-MAX")
            except ValueError:      # bounds that do not broadcast against each other
                pass
    if any(np.isnan(v).any() for v in specials):
        clauses.append("CL-NAN-BOUND" if _is_float(xdt) else "CL-NONFLOAT-SPECIAL")
    if not _is_float(xdt) and any(np.isinf(v).any() for v in specials):
        clauses.append("CL-NONFLOAT-SPECIAL")
    if has_nan(x):
        clauses.append("CL-GAP-NAN-X")
    if xdt == "bfloat16" and any(p is not None and p["kind"] in ("tensor", "element") for p in (lo, hi)):
        clauses.append("CL-GAP-BF16")
    if x.ndim == 0 or x.ndim > 4 or x.size == 0:
        clauses.append("CL-RANK")
    label = f"{note + ': ' if note else ''}x {xdt} {shape_text(x.shape)}, min {_desc(lo, lo_arr)}, max {_desc(hi, hi_arr)}"
    return make_case("clip", inputs, params, clauses, label)


def _tensor(arr):
    return {"kind": "tensor"}, arr


@st.composite
def scalar_bounds(draw):
    xdt = pick(draw, DOC_DTYPES)
    x = array_of(draw, xdt, shape_of(draw, 1, 4))
    kinds = draw(st.tuples(st.sampled_from((None,) + SCALAR_KINDS), st.sampled_from((None,) + SCALAR_KINDS))
                 .filter(lambda ks: ks != (None, None)))
    lo, hi = (_scalar_bound(draw, k, xdt) if k else None for k in kinds)
    return _case(x, lo, hi, note="scalar bounds")


@st.composite
def tensor_bounds(draw):
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 4)
    x = array_of(draw, xdt, xshape)
    lo_arr = array_of(draw, xdt, _broadcast_shape_for(draw, xshape))
    hi_arr = array_of(draw, xdt, _broadcast_shape_for(draw, xshape))
    bcast = lo_arr.shape != xshape or hi_arr.shape != xshape
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, ("CL-BOUND-TYPES",) + (("CL-BROADCAST",) if bcast else ()),
                 "broadcast bounds" if bcast else "tensor bounds", lo_arr, hi_arr)


@st.composite
def one_tensor_bound(draw):
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 4)
    arr = array_of(draw, xdt, _broadcast_shape_for(draw, xshape))
    x = array_of(draw, xdt, xshape)
    bcast = ("CL-BROADCAST",) if arr.shape != xshape else ()
    if coin(draw):
        return _case(x, {"kind": "tensor"}, None, bcast, "max omitted", lo_arr=arr)
    return _case(x, None, {"kind": "tensor"}, bcast, "min omitted", hi_arr=arr)


@st.composite
def no_bounds(draw):
    xdt = pick(draw, DOC_DTYPES + UNDOC_DTYPES)
    return _case(array_of(draw, xdt, shape_of(draw, 1, 4)), None, None, note="both omitted -> x")


@st.composite
def min_gt_max(draw):
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 3)
    x = array_of(draw, xdt, xshape)
    if coin(draw):
        hi = ints(draw, -8, 7)
        lo = ints(draw, hi + 1, 8)
        kind = pick(draw, SCALAR_KINDS)
        mk = (lambda v: {"kind": "element", "dtype": xdt, "value": float(v) if _is_float(xdt) else v}) \
            if kind == "element" else (lambda v: {"kind": kind, "value": float(v) if kind == "float" else v})
        return _case(x, mk(lo), mk(hi), note="min>max -> max")
    lo_arr = array_of(draw, xdt, xshape, specials=False)
    gap = array_of(draw, xdt, xshape, specials=False)
    hi_arr = (lo_arr.astype(np.float64) - 1 - np.abs(gap.astype(np.float64)))
    hi_arr = np.maximum(hi_arr, int_range(xdt)[0]) if not _is_float(xdt) else hi_arr
    hi_arr = hi_arr.astype(dtype_from_name(xdt))
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, ("CL-BOUND-TYPES",), "min>max -> max", lo_arr, hi_arr)


@st.composite
def nan_bound(draw):
    xdt = pick(draw, ("float32", "float16", "bfloat16"))
    xshape = shape_of(draw, 1, 3)
    x = array_of(draw, xdt, xshape)
    other = None if coin(draw) else {"kind": "float", "value": ints(draw, -4, 4) / 2}
    form = pick(draw, ("float", "element", "tensor"))
    if form == "tensor":
        arr = np.array(array_of(draw, xdt, xshape))
        arr.flat[ints(draw, 0, arr.size - 1)] = np.nan
        other_arr = array_of(draw, xdt, xshape)
        pair = ((({"kind": "tensor"}, arr), ({"kind": "tensor"}, other_arr)))
    else:
        nan = {"kind": "float", "value": math.nan} if form == "float" else \
            {"kind": "element", "dtype": xdt, "value": math.nan}
        pair = ((nan, None), (other, None))
    (lo, lo_arr), (hi, hi_arr) = pair if coin(draw) else pair[::-1]
    return _case(x, lo, hi, note="NaN bound -> NaN", lo_arr=lo_arr, hi_arr=hi_arr)


@st.composite
def nonfloat_special(draw):
    xdt = pick(draw, ("int32", "int16"))
    x = array_of(draw, xdt, shape_of(draw, 1, 3))
    lo, hi = int_range(xdt)
    special = pick(draw, (math.nan, math.inf, -math.inf))
    sp = {"kind": "float", "value": special}
    if ints(draw, 0, 3) == 0:      # an int bound the int dtype cannot hold
        sp = {"kind": "int", "value": pick(draw, (hi + 1, lo - 1, 2**40))}
    other = pick(draw, (None, {"kind": "int", "value": ints(draw, -8, 8)}))
    pair = (sp, other) if coin(draw) else (other, sp)
    return _case(x, *pair, extra_clauses=("CL-NONFLOAT-SPECIAL",), note="special bound, int x")


@st.composite
def nan_x(draw):
    xdt = pick(draw, ("float32", "float16", "bfloat16"))
    x = np.array(array_of(draw, xdt, shape_of(draw, 1, 3)))
    x.flat[ints(draw, 0, x.size - 1)] = pick(draw, (math.nan, math.inf, -math.inf, -0.0))
    lo = _scalar_bound(draw, "float", xdt) if coin(draw) else None
    hi = _scalar_bound(draw, "float", xdt) if coin(draw) else None
    return _case(x, lo, hi, note="special values in x")


@st.composite
def rank_unsupported(draw):
    xdt = pick(draw, DOC_DTYPES)
    shape = draw(st.one_of(st.just(()), shapes(5, 5, max_side=2), shapes(1, 3, min_side=0).filter(lambda s: 0 in s)))
    x = array_of(draw, xdt, shape)
    if coin(draw):
        lo, hi = _scalar_bound(draw, "int", xdt), _scalar_bound(draw, "int", xdt)
        return _case(x, lo, hi, note="unsupported rank/empty")
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, ("CL-BOUND-TYPES",), "unsupported rank/empty",
                 array_of(draw, xdt, shape), array_of(draw, xdt, shape))


@st.composite
def bound_dtype(draw):
    xdt = pick(draw, DOC_DTYPES)
    bdt = pick(draw, tuple(d for d in BOUND_DTYPES + ("int8", "float64") if d != xdt))
    xshape = shape_of(draw, 1, 3)
    x = array_of(draw, xdt, xshape)
    if coin(draw):
        bad = array_of(draw, bdt, xshape, specials=False)
        good = array_of(draw, xdt, xshape, specials=False)
        lo, hi = (bad, good) if coin(draw) else (good, bad)
        return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, ("CL-BOUND-DTYPE", "CL-BOUND-TYPES"),
                     "bound dtype != x dtype", lo, hi)
    value = draw(elements(bdt, specials=False))
    bad = {"kind": "element", "dtype": bdt, "value": float(value) if _is_float(bdt) else int(value)}
    good = _scalar_bound(draw, "element", xdt, specials=False)
    lo, hi = (bad, good) if coin(draw) else (good, bad)
    return _case(x, lo, hi, ("CL-BOUND-DTYPE",), "Element dtype != x dtype")


@st.composite
def mixed_kinds(draw):
    """CL-SAME-KIND: one bound a Tensor, the other an Element or a Python scalar."""
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 3)
    x = array_of(draw, xdt, xshape)
    arr = array_of(draw, xdt, xshape, specials=False)
    scalar = _scalar_bound(draw, pick(draw, SCALAR_KINDS), xdt, specials=False)
    if coin(draw):
        return _case(x, {"kind": "tensor"}, scalar, ("CL-SAME-KIND",), "Tensor min, scalar max", lo_arr=arr)
    return _case(x, scalar, {"kind": "tensor"}, ("CL-SAME-KIND",), "scalar min, Tensor max", hi_arr=arr)


@st.composite
def bad_broadcast(draw):
    """A Tensor bound that does not broadcast to x, or that x would have to broadcast to (CL-BROADCAST)."""
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 3, min_side=2)
    x = array_of(draw, xdt, xshape)
    ax = ints(draw, 0, len(xshape) - 1)
    if coin(draw):
        bshape = tuple(s + 1 if i == ax else s for i, s in enumerate(xshape))
    else:
        bshape = (2,) + tuple(xshape)
    bad = array_of(draw, xdt, bshape)
    good = array_of(draw, xdt, xshape)
    lo, hi = (bad, good) if coin(draw) else (good, bad)
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, ("CL-BOUND-TYPES", "CL-BROADCAST"),
                 "bound does not broadcast to x", lo, hi)


@st.composite
def undocumented_dtype(draw):
    xdt = pick(draw, UNDOC_DTYPES)
    x = array_of(draw, xdt, shape_of(draw, 1, 3))
    lo, hi = _scalar_bound(draw, "int", xdt), _scalar_bound(draw, "int", xdt)
    return _case(x, lo, hi, note="undocumented x dtype")


FAMILIES = {
    "scalar": scalar_bounds(), "tensor": tensor_bounds(), "one_tensor": one_tensor_bound(), "none": no_bounds(),
    "min_gt_max": min_gt_max(), "nan_bound": nan_bound(), "nonfloat_special": nonfloat_special(),
    "nan_x": nan_x(), "rank": rank_unsupported(), "bound_dtype": bound_dtype(), "same_kind": mixed_kinds(),
    "bad_broadcast": bad_broadcast(), "undocumented_dtype": undocumented_dtype(),
}
