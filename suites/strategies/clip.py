"""Cases for pypto `clip(x, min, max)` (clauses CL-*): the document's examples, its documented errors, and
generated scalar, Element, Tensor and mixed bounds."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from contract.case import Case
from contract.dtypes import FLOATS, dtype_from_name, dtype_name
from oracle.boundary import tie_values
from oracle.registry import spec

from ..doc_examples import doc_example
from .boundary import (F16, F32, ROUNDED, around, boundary_case as _c, edge_array, float_edges, int_edges,
                       label as _label, rounded_value)
from .common import odd_arrays
from . import aliasing as aliasing_
from .common import array_of, coin, elements, int_range, ints, make_case, pick, shape_of, shape_text, shapes

OP = "clip"

DOC_DTYPES = spec(OP).dtypes["input"]           # CL-DTYPE
UNDOC_DTYPES = ("float64", "int8", "int64")
BOUND_DTYPES = spec(OP).dtypes["bound"]         # CL-BOUND-DTYPE's list
SCALAR_KINDS = ("int", "float", "element")


def _is_float(name) -> bool:
    return name in FLOATS


# The strategies a case draws from are built once, not per draw: Hypothesis validates each new strategy
# on its first draw, which costs more than the draw.
_FLOAT_BOUNDS = {specials: st.one_of(st.integers(-16, 16).map(lambda i: i / 2),
                                     st.sampled_from((math.nan, math.inf, -math.inf, -0.0)) if specials
                                     else st.nothing())
                 for specials in (True, False)}
_BOUND_KINDS = st.tuples(st.sampled_from((None,) + SCALAR_KINDS), st.sampled_from((None,) + SCALAR_KINDS)) \
    .filter(lambda ks: ks != (None, None))
_UNSUPPORTED_SHAPES = st.one_of(st.just(()), shapes(5, 5, max_side=2),
                                shapes(1, 3, min_side=0).filter(lambda s: 0 in s))


def _scalar_bound(draw, kind, xdt, specials=True):
    if kind == "int":
        return {"kind": "int", "value": ints(draw, -8, 8)}
    if kind == "float":
        return {"kind": "float", "value": draw(_FLOAT_BOUNDS[specials])}
    value = draw(elements(xdt, specials=specials and _is_float(xdt)))
    value = float(value) if _is_float(xdt) else int(value)
    return {"kind": "element", "dtype": xdt, "value": value}


def _broadcast_shape_for(draw, xshape):
    """A shape that broadcasts to xshape: some sides set to 1, some leading dims dropped."""
    drop = ints(draw, 0, len(xshape) - 1) if xshape else 0
    kept = xshape[drop:]
    return tuple(1 if ints(draw, 0, 2) == 0 else s for s in kept)


def _desc(p, arr) -> str:
    if p is None:
        return "omitted"
    if p["kind"] == "tensor":
        return f"tensor {dtype_name(arr.dtype)} {shape_text(arr.shape)}"
    if p["kind"] == "element":
        return f"Element({p['dtype']}, {p['value']!r})"
    return repr(p["value"])


def _case(x, lo, hi, note="", lo_arr=None, hi_arr=None):
    params, inputs = {}, {"x": x}
    for name, p, arr in (("min", lo, lo_arr), ("max", hi, hi_arr)):
        if p is not None:
            params[name] = p
            if p["kind"] == "tensor":
                inputs[name] = arr
    xdt = dtype_name(x.dtype)
    label = f"{note + ': ' if note else ''}x {xdt} {shape_text(x.shape)}, min {_desc(lo, lo_arr)}, max {_desc(hi, hi_arr)}"
    return make_case(OP, inputs, params, label)


@st.composite
def scalar_bounds(draw):
    xdt = pick(draw, DOC_DTYPES)
    x = array_of(draw, xdt, shape_of(draw, 1, 4))
    kinds = draw(_BOUND_KINDS)
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
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, "broadcast bounds" if bcast else "tensor bounds",
                 lo_arr, hi_arr)


@st.composite
def one_tensor_bound(draw):
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 4)
    arr = array_of(draw, xdt, _broadcast_shape_for(draw, xshape))
    x = array_of(draw, xdt, xshape)
    if coin(draw):
        return _case(x, {"kind": "tensor"}, None, "max omitted", lo_arr=arr)
    return _case(x, None, {"kind": "tensor"}, "min omitted", hi_arr=arr)


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
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, "min>max -> max", lo_arr, hi_arr)


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
    return _case(x, *pair, note="special bound, int x")


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
    shape = draw(_UNSUPPORTED_SHAPES)
    x = array_of(draw, xdt, shape)
    if coin(draw):
        lo, hi = _scalar_bound(draw, "int", xdt), _scalar_bound(draw, "int", xdt)
        return _case(x, lo, hi, note="unsupported rank/empty")
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, "unsupported rank/empty",
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
        return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, "bound dtype != x dtype", lo, hi)
    value = draw(elements(bdt, specials=False))
    bad = {"kind": "element", "dtype": bdt, "value": float(value) if _is_float(bdt) else int(value)}
    good = _scalar_bound(draw, "element", xdt, specials=False)
    lo, hi = (bad, good) if coin(draw) else (good, bad)
    return _case(x, lo, hi, "Element dtype != x dtype")


@st.composite
def mixed_kinds(draw):
    """CL-SAME-KIND: one bound a Tensor, the other an Element or a Python scalar."""
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 3)
    x = array_of(draw, xdt, xshape)
    arr = array_of(draw, xdt, xshape, specials=False)
    scalar = _scalar_bound(draw, pick(draw, SCALAR_KINDS), xdt, specials=False)
    if coin(draw):
        return _case(x, {"kind": "tensor"}, scalar, "Tensor min, scalar max", lo_arr=arr)
    return _case(x, scalar, {"kind": "tensor"}, "scalar min, Tensor max", hi_arr=arr)


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
    return _case(x, {"kind": "tensor"}, {"kind": "tensor"}, "bound does not broadcast to x", lo, hi)


@st.composite
def undocumented_dtype(draw):
    xdt = pick(draw, UNDOC_DTYPES)
    x = array_of(draw, xdt, shape_of(draw, 1, 3))
    lo, hi = _scalar_bound(draw, "int", xdt), _scalar_bound(draw, "int", xdt)
    return _case(x, lo, hi, note="undocumented x dtype")


# ---- boundary: values a dtype must round, dtype edges (oracle/*.DOMAIN) ------------------------


@st.composite
def clip_boundary(draw):
    if coin(draw):      # 1 x n: 2-D, the rank every implementation here takes
        dt = pick(draw, ROUNDED + ("int32", "int16"))
        x = edge_array(draw, dt)
        x = (x[~np.isnan(x.astype(np.float64))] if coin(draw) else x).reshape(1, -1)
        kind, one = ("float", 1.0) if dt in FLOATS else ("int", 1)
        bounds = {"min": {"kind": kind, "value": -one}, "max": {"kind": kind, "value": one}} if coin(draw) else {}
        return make_case(OP, {"x": x}, bounds, _label("edges", {"x": x}))
    dt = pick(draw, ROUNDED)
    v = rounded_value(draw, dt)
    which = pick(draw, ("min", "max"))
    kind = pick(draw, ("float", "element"))
    bound = {"kind": kind, "value": v, **({"dtype": dt} if kind == "element" else {})}
    x = around(dt, v).reshape(1, -1)
    return make_case(OP, {"x": x}, {which: bound}, _label(f"{which} {v!r} rounds", {"x": x}))


def _scalar(v):
    return {"kind": "float" if isinstance(v, float) else "int", "value": v}


def _element(dt, v):
    return {"kind": "element", "dtype": dt, "value": v}


def boundary_cases():
    """Targeted boundary cases (suites/strategies/boundary.py): one small case per class the draw may miss."""
    inf = math.inf
    out = [
        # a scalar bound becomes an Element of x's dtype: to nearest, ties to even
        _c(OP, "float16 x, min 0.7 (between two float16 values, nearer the upper)",
           {"x": np.array([0.0, 1.0], F16)}, {"min": _scalar(0.7)}),
        _c(OP, "float16 x, max 1.23", {"x": np.array([0.0, 2.0], F16)}, {"max": _scalar(1.23)}),
        _c(OP, "float16 x, min 1+3*2**-11 (a tie; the even neighbour is the upper)",
           {"x": np.array([0.0, 2.0], F16)}, {"min": _scalar(1 + 3 * 2**-11)}),
        _c(OP, "float32 x, min 0.1, max 2.0", {"x": np.array([0.0, 1.0], F32)},
           {"min": _scalar(0.1), "max": _scalar(2.0)}),
        _c(OP, "float32 x, max -0.1", {"x": np.array([-1.0, 0.0], F32)}, {"max": _scalar(-0.1)}),
        # ±inf passed explicitly is the default: it must act as the omitted bound
        _c(OP, "float32 x, min -inf, max 1.5", {"x": np.array([1.0, 2.0], F32)},
           {"min": _scalar(-inf), "max": _scalar(1.5)}),
        _c(OP, "float16 x, min 0.5, max +inf", {"x": np.array([1.0, 2.0], F16)},
           {"min": _scalar(0.5), "max": _scalar(inf)}),
        _c(OP, "float32 x, max +inf only", {"x": np.array([1.0, -2.0], F32)}, {"max": _scalar(inf)}),
        _c(OP, "float32 x, min Element(float32, -inf), max Element(float32, 3.0)",
           {"x": np.array([1.0, 5.0], F32)}, {"min": _element("float32", -inf), "max": _element("float32", 3.0)}),
        _c(OP, "float16 x, max Element(float16, +inf)", {"x": np.array([1.0, 65504.0], F16)},
           {"max": _element("float16", inf)}),
        _c(OP, "float16 x, max 2049 (an int bound that is a float16 tie)",
           {"x": np.array([2048.0, 2050.0], F16)}, {"max": _scalar(2049)}),
    ]
    # the rest are 2-D (1 x n): every implementation here takes 2-D input (pypto.clip refuses 1-D)
    for dt in ("float16", "bfloat16", "float32"):
        for key, v in tie_values(dt).items():
            x = around(dt, v).reshape(1, -1)
            for which in ("min", "max"):
                out.append(_c(OP, f"{dt} x, {which} {v!r} ({key})", {"x": x}, {which: _scalar(v)}))
            if key != "inexact":
                out.append(_c(OP, f"{dt} x, min Element({dt}, {v!r}) ({key})", {"x": x}, {"min": _element(dt, v)}))
    for dt in ("float32", "float16", "bfloat16"):
        e = float_edges(dt, nan=False).reshape(1, -1)
        out.append(_c(OP, f"{dt} edges (subnormal, max, -0.0), bounds omitted", {"x": e}, {}))
        out.append(_c(OP, f"{dt} edges, NaN with a payload, bounds omitted", {"x": float_edges(dt).reshape(1, -1)},
                      {}))
        out.append(_c(OP, f"{dt} edges, min 0.0, max 1.0", {"x": e}, {"min": _scalar(0.0), "max": _scalar(1.0)}))
    for dt in ("int32", "int16"):
        out.append(_c(OP, f"{dt} min/max, min -1, max 1", {"x": int_edges(dt).reshape(1, -1)},
                      {"min": _scalar(-1), "max": _scalar(1)}))
    return out


# Which bounds are views of x (the others: a tensor of their own, or omitted): CL-SAME-KIND holds for all
# but the lone bound (clip.conflict.3, either reading).
_ALIAS_BOUNDS = (("min",), ("max",), ("min", "max"), ("min", "max-own"), ("min-own", "max"))


@st.composite
def aliasing(draw):
    """clip(x, min, max) with a tensor bound that is a view of x, broadcast back over it (CL-GAP-ALIAS):
    each axis of the view is either the whole axis or one index of it."""
    xdt = pick(draw, DOC_DTYPES)
    xshape = shape_of(draw, 1, 3, min_side=2, max_side=5)
    x = aliasing_.distinct_array(draw, xdt, xshape)
    inputs, params, aliases, parts = {"x": x}, {}, {}, []
    for entry in pick(draw, _ALIAS_BOUNDS):
        which, own = entry.split("-")[0], entry.endswith("-own")
        params[which] = {"kind": "tensor"}
        if own:
            inputs[which] = array_of(draw, xdt, _broadcast_shape_for(draw, xshape), specials=False)
            parts.append(f"{which} its own tensor")
            continue
        box = []
        for length in xshape:
            if coin(draw):
                box.append((0, length))
            else:
                i = ints(draw, 0, length - 1)
                box.append((i, i + 1))
        aliases[which] = aliasing_.alias_of("x", box)
        inputs[which] = aliasing_.view(x, box)
        parts.append(f"{which} = {aliases[which].text()}")
    label = f"view bounds: x {xdt} {shape_text(xshape)}, {', '.join(parts)}"
    return make_case(OP, inputs, params, label, aliases=aliases)


FAMILIES = {
    "scalar": scalar_bounds(), "tensor": tensor_bounds(), "one_tensor": one_tensor_bound(), "none": no_bounds(),
    "min_gt_max": min_gt_max(), "nan_bound": nan_bound(), "nonfloat_special": nonfloat_special(),
    "nan_x": nan_x(), "rank": rank_unsupported(), "bound_dtype": bound_dtype(), "same_kind": mixed_kinds(),
    "bad_broadcast": bad_broadcast(), "undocumented_dtype": undocumented_dtype(),
    "boundary": clip_boundary(),
    "aliasing": aliasing(),
}
CORPUS_DRAWS = {"scalar": 100, "tensor": 100, "min_gt_max": 50}      # the wide families


# ---- the document's worked examples and documented errors -------------------------------------

I32 = np.int32


def doc_examples():
    return [
        doc_example(OP, "CL-EX-1 clip(x, min, max) with tensor bounds", ["CL-EX-1"],
                    {"x": np.array([[-2, 1, 2], [3, 4, 5]], I32), "min": np.array([[-1, 0, 2], [0, 3, 5]], I32),
                     "max": np.array([[1, 2, 1], [4, 4, 4]], I32)},
                    {"min": {"kind": "tensor"}, "max": {"kind": "tensor"}},
                    {"out": np.array([[-1, 1, 1], [3, 4, 4]], I32)}),
        doc_example(OP, "CL-EX-2 clip(x, 1, 3) with scalar bounds", ["CL-EX-2"],
                    {"x": np.array([[0, 2, 4], [3, 4, 6]], I32)},
                    {"min": {"kind": "int", "value": 1}, "max": {"kind": "int", "value": 3}},
                    {"out": np.array([[1, 2, 3], [3, 3, 3]], I32)}),
    ]


def error_cases():
    # clip documents no error: CL-BOUND-DTYPE and CL-SAME-KIND are preconditions with no stated consequence
    # ("raises, or returns the formula's value": docs/SPEC.md, "Preconditions")
    return []


# ---- odd but well-formed cases: the oracle answers each without crashing (tests/test_oracle_expect.py) ----
@st.composite
def _odd(draw):
    bound = st.one_of(st.none(), st.just({"kind": "tensor"}),
                      st.builds(lambda v: {"kind": "int", "value": v}, st.integers(-2**40, 2**40)),
                      st.builds(lambda v: {"kind": "float", "value": v}, st.floats()),
                      st.builds(lambda d, v: {"kind": "element", "dtype": d, "value": v},
                                st.sampled_from(["float32", "int16", "bfloat16", "bool"]),
                                st.one_of(st.integers(-9, 9), st.floats())))
    params = {k: v for k, v in (("min", draw(bound)), ("max", draw(bound))) if v is not None}
    return Case(op=OP, inputs={"x": draw(odd_arrays()), "min": draw(odd_arrays()), "max": draw(odd_arrays())},
                params=params)


ODD_CASES = _odd()


def well_formed(case) -> str:
    """What a generated clip case promises beyond the decoder: a tensor bound is exactly an input."""
    for name in ("min", "max"):
        bound = case.params.get(name)
        if bound is not None and (bound["kind"] == "tensor") != (name in case.inputs):
            return f"{name}: a tensor bound must be inputs.{name}, and only a tensor bound"
    return ""
