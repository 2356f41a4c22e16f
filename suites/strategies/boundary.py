"""One `boundary` family per op: values a dtype must round and the edges of each dtype (oracle/*.DOMAIN).

The other families draw from small exact values, which never need rounding and
never carry a NaN payload.  These draw a value from the rounding classes of a
float dtype (0.1, 1/3, exact ties whose even neighbour lies either way, a hair
off a tie; scaled by a power of two, negated, or in the subnormal range) or
an array of the dtype's edges, and put the value's neighbours in the data so
the direction of every rounding shows.  suites/boundary_cases.py holds one
targeted case per class; these families let exploration find more.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from contract.dtypes import FLOATS, INTS, dtype_from_name, dtype_name
from oracle.boundary import NARROW, neighbours, tie_values

from ..boundary_cases import around, float_edges, int_edges
from .common import coin, ints, make_case, pick, shape_text

ROUNDED = ("float16", "bfloat16", "float32")      # the float dtypes a Python float (a float64) must round into
_SUB = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149}


def rounded_value(draw, dt: str, double: bool = True) -> float:
    """A value `dt` cannot hold: a tie value of tie_values, scaled by 2**k and maybe negated, or a subnormal tie."""
    if ints(draw, 0, 5) == 0:
        v = _SUB[dt] * pick(draw, (1.5, 2.5, 0.5, 1 / 3))       # ties to 2 and 2 units, the smallest / 2, inexact
    else:
        table = tie_values(dt)
        keys = tuple(k for k in table if double or k != "double")
        v = table[pick(draw, keys)] * 2.0 ** ints(draw, -4, 4)
    return -v if coin(draw) else v


def edge_array(draw, dt: str) -> np.ndarray:
    """The edges of `dt` (float: ±subnormal, ±max, -0.0, 1.0, a NaN payload; int: min, max, 0, 1), shuffled."""
    e = float_edges(dt) if dt in FLOATS else int_edges(dt)
    rng = np.random.RandomState(ints(draw, 0, 2**16))
    return e[rng.permutation(e.size)]


def _label(op, note, arrays):
    return f"{note}: " + ", ".join(f"{k} {dtype_name(a.dtype)} {shape_text(a.shape)}" for k, a in arrays.items())


@st.composite
def setitem_edges(draw):
    dt = pick(draw, FLOATS + INTS)
    value = edge_array(draw, dt)
    start = ints(draw, 0, 2)
    target = np.zeros(value.size + start, dtype_from_name(dt))
    key = {"slice": [start, None, None]} if start or coin(draw) else {"slice": [None, None, None]}
    inputs = {"target": target, "value": value}
    return make_case("setitem", inputs, {"key": key}, _label("setitem", "edges moved", inputs))


@st.composite
def clip_boundary(draw):
    if coin(draw):      # 1 x n: 2-D, the rank every implementation here takes
        dt = pick(draw, ROUNDED + ("int32", "int16"))
        x = edge_array(draw, dt)
        x = (x[~np.isnan(x.astype(np.float64))] if coin(draw) else x).reshape(1, -1)
        kind, one = ("float", 1.0) if dt in FLOATS else ("int", 1)
        bounds = {"min": {"kind": kind, "value": -one}, "max": {"kind": kind, "value": one}} if coin(draw) else {}
        return make_case("clip", {"x": x}, bounds, _label("clip", "edges", {"x": x}))
    dt = pick(draw, ROUNDED)
    v = rounded_value(draw, dt)
    which = pick(draw, ("min", "max"))
    kind = pick(draw, ("float", "element"))
    bound = {"kind": kind, "value": v, **({"dtype": dt} if kind == "element" else {})}
    x = around(dt, v).reshape(1, -1)
    return make_case("clip", {"x": x}, {which: bound}, _label("clip", f"{which} {v!r} rounds", {"x": x}))


@st.composite
def scatter_boundary(draw):
    if coin(draw):
        dt = pick(draw, ROUNDED)
        v = rounded_value(draw, dt)
        n = ints(draw, 1, 4)
        self_ = np.zeros((2, n), dtype_from_name(dt))
        index = np.array([[ints(draw, 0, n - 1)], [ints(draw, 0, n - 1)]], np.int64)
        inputs = {"input": self_, "index": index}
        return make_case("scatter", inputs, {"dim": 1, "inplace": coin(draw), "value": v},
                         _label("scatter", f"value {v!r} rounds", inputs))
    dt = pick(draw, FLOATS + INTS)
    src = edge_array(draw, dt)
    index = np.random.RandomState(ints(draw, 0, 2**16)).permutation(src.size).astype(np.int64)
    inputs = {"input": np.ones(src.size, src.dtype), "index": index, "src": src}
    return make_case("scatter", inputs, {"dim": 0, "inplace": coin(draw)}, _label("scatter", "edges", inputs))


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
        return make_case("scatter_nd_add", inputs, {}, _label("scatter_nd_add", "sums on ties", inputs))
    dt = pick(draw, FLOATS + INTS)
    x = edge_array(draw, dt)
    k = ints(draw, 1, x.size)
    rows = np.random.RandomState(ints(draw, 0, 2**16)).permutation(x.size)[:k]
    upd = edge_array(draw, dt)[:k]
    inputs = {"x": x, "indices": rows.reshape(k, 1).astype(idx_dt), "updates": upd}
    return make_case("scatter_nd_add", inputs, {}, _label("scatter_nd_add", "edges", inputs))


@st.composite
def set_boundary(draw):
    if coin(draw):
        dt = pick(draw, ROUNDED)
        v = rounded_value(draw, dt, double=dt not in NARROW)     # the probe is fill_'s conversion, not set_'s
        n = ints(draw, 1, 4)
        inputs = {"target": np.zeros(n, dtype_from_name(dt)), "source": np.zeros(n, dtype_from_name(dt))}
        kind = pick(draw, ("storage", "tensor"))
        return make_case("set_", inputs, {"source_kind": kind, "probe": v},
                         _label("set_", f"fill {v!r} rounds", inputs))
    dt = pick(draw, FLOATS + INTS)
    source = edge_array(draw, dt)
    inputs = {"target": np.zeros(source.size, source.dtype), "source": source}
    probe = 7 if dt in INTS else 2.0
    params = {"source_kind": pick(draw, ("storage", "tensor")), "probe": probe}
    if coin(draw):      # a view that ends on the storage's last element: offset 1, the rest of the storage
        params.update(storage_offset=1, size=[source.size - 1], stride=[1])
        inputs["target"] = np.zeros(source.size - 1, source.dtype)
    return make_case("set_", inputs, params, _label("set_", "edges", inputs))


FAMILIES = {
    "setitem": {"boundary": setitem_edges()},
    "clip": {"boundary": clip_boundary()},
    "scatter": {"boundary": scatter_boundary()},
    "scatter_nd_add": {"boundary": scatter_nd_add_boundary()},
    "set_": {"boundary": set_boundary()},
}

