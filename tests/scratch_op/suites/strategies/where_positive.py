"""Cases for where_positive(x, y) (clauses WP-*): values, mismatched shapes and dtypes, dtype edges."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ..doc_examples import doc_example
from ..error_cases import error_case
from .boundary import boundary_case, edge_array, label
from .common import array_of, coin, make_case, pick, shape_of

OP = "where_positive"
DTYPES = ("float32", "int32")


def _case(note, x, y):
    return make_case(OP, {"x": x, "y": y}, {}, label(note, {"x": x, "y": y}))


@st.composite
def values(draw):
    dt, shape = pick(draw, DTYPES), shape_of(draw, 0, 3, min_side=0, max_side=3)
    return _case("values", array_of(draw, dt, shape), array_of(draw, dt, shape))


@st.composite
def shapes_differ(draw):
    dt = pick(draw, DTYPES)
    shape = shape_of(draw, 1, 3)
    other = shape[:-1] + (shape[-1] + 1,) if coin(draw) else (2,) + shape
    return _case("shapes differ", array_of(draw, dt, shape), array_of(draw, pick(draw, DTYPES), other))


@st.composite
def dtypes_differ(draw):
    shape = shape_of(draw, 1, 3)
    dx = pick(draw, DTYPES)
    dy = pick(draw, tuple(d for d in DTYPES + ("float16", "int64") if d != dx))
    return _case("dtypes differ", array_of(draw, dx, shape), array_of(draw, dy, shape))


@st.composite
def edges(draw):
    dt = pick(draw, DTYPES)
    x = edge_array(draw, dt)
    return _case("edges", x, edge_array(draw, dt) if coin(draw) else -x)


FAMILIES = {"values": values(), "shape": shapes_differ(), "dtype": dtypes_differ(), "boundary": edges()}


def boundary_cases():
    from .boundary import float_edges, int_edges
    f, i = float_edges("float32"), int_edges("int32")
    return [boundary_case(OP, "float32 edges against their negation", {"x": f, "y": -f}, {}),
            boundary_case(OP, "int32 min/max against their reverse", {"x": i, "y": i[::-1].copy()}, {}),
            boundary_case(OP, "0-d x and y", {"x": np.array(-1.0, np.float32), "y": np.array(5.0, np.float32)}, {}),
            boundary_case(OP, "empty x and y", {"x": np.zeros((0, 2), np.int32), "y": np.zeros((0, 2), np.int32)}, {})]


_X = np.array([-1.0, 2.0, 0.0, 3.0], np.float32)
_Y = np.array([10.0, 20.0, 30.0, 40.0], np.float32)


def doc_examples():
    return [doc_example(OP, "WP-EX-1 where_positive(x, y), float32", ["WP-EX-1"], {"x": _X, "y": _Y}, {},
                        {"out": np.array([10.0, 2.0, 30.0, 3.0], np.float32)})]


def error_cases():
    return [error_case(OP, "WP-SHAPE", "ValueError", "y of shape [3]", {"x": _X, "y": _Y[:3].copy()}, {}),
            error_case(OP, "WP-DTYPE", "TypeError", "y of int32", {"x": _X, "y": _Y.astype(np.int32)}, {})]
