"""Small Hypothesis helpers shared by the per-op strategies: dtypes, shapes, arrays, cases.

Arrays stay small (a few to a few hundred elements) so a frozen corpus stays
well under its size limit and every adapter gets through it in CI.
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from oracle.case import Case
from oracle.dtypes import BFLOAT16, dtype_from_name, is_float

SPECIAL_FLOATS = (math.nan, math.inf, -math.inf, -0.0)
MAX_SIDE = 5

# Widest exactly-representable integers per dtype, so array elements are never rounded.
_INT_RANGE = {n: (int(np.iinfo(n).min), int(np.iinfo(n).max))
              for n in ("int8", "int16", "int32", "int64", "uint8")}


def int_range(name: str) -> tuple:
    return _INT_RANGE[name]


def float_elements(name: str, specials: bool = True, finite_max: float = 1e4) -> st.SearchStrategy:
    """Mostly small exact values (ties and collisions are where bugs hide), some arbitrary ones."""
    width = 16 if name == "float16" else (64 if name == "float64" else 32)
    grid = st.integers(-16, 16).map(lambda i: i / 2)
    anyf = st.floats(-finite_max, finite_max, width=width, allow_nan=False, allow_infinity=False)
    parts = [grid, anyf] + ([st.sampled_from(SPECIAL_FLOATS)] if specials else [])
    return st.one_of(*parts)


def int_elements(name: str, extremes: bool = True) -> st.SearchStrategy:
    lo, hi = _INT_RANGE[name]
    small = st.integers(max(lo, -8), min(hi, 8))
    return st.one_of(small, st.sampled_from((lo, hi))) if extremes else small


def elements(name: str, specials: bool = True) -> st.SearchStrategy:
    if name == "bool":
        return st.booleans()
    if is_float(dtype_from_name(name)):
        return float_elements(name, specials)
    return int_elements(name, extremes=specials)


@st.composite
def arrays(draw, name: str, shape, specials: bool = True) -> np.ndarray:
    """An array of dtype `name` (bfloat16 included) and the given shape, in O(1) Hypothesis draws.

    A few values come from Hypothesis (they shrink to 0) and a seed lays them
    out with the legacy NumPy RNG, whose streams NumPy keeps stable across
    releases, so a derandomized corpus rebuilds byte for byte.  Half the
    arrays hold mostly distinct values, so a misplaced element shows.
    """
    shape = tuple(shape)
    dt = dtype_from_name(name)
    n = math.prod(shape)
    if n == 0:
        return np.zeros(shape, dtype=dt)
    pool = draw(st.lists(elements(name, specials), min_size=1, max_size=4))
    distinct = draw(st.booleans())
    rng = np.random.RandomState(draw(st.integers(0, 2**32 - 1)))
    as_f64 = np.asarray(pool, dtype=np.float64 if name != "int64" else np.int64)
    if not distinct or name == "bool":
        flat = as_f64[rng.randint(0, len(pool), size=n)]
    else:
        step = 0.5 if _floatish(np.zeros(0, dt)) else 1
        flat = ((rng.permutation(n) - n // 2) * step).astype(as_f64.dtype)
        spots = rng.randint(0, n, size=rng.randint(0, min(n, len(pool)) + 1))
        flat[spots] = as_f64[rng.randint(0, len(pool), size=len(spots))]
    if name == "bool":
        return flat.astype(bool).reshape(shape)
    if name in _INT_RANGE and name != "int64":
        flat = flat.astype(np.int64)          # wrap like a C cast, not float->int UB
    return flat.astype(dt).reshape(shape)


def shapes(min_dims: int = 1, max_dims: int = 4, min_side: int = 1, max_side: int = MAX_SIDE):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def shape_at_most(shape, min_side: int = 1) -> st.SearchStrategy:
    """A shape of the same rank whose every side is <= the given one (and >= min_side where possible)."""
    return st.tuples(*[st.integers(min(min_side, s), s) for s in shape])


def index_array(values, dtype: str = "int64") -> np.ndarray:
    return np.asarray(values, dtype=dtype_from_name(dtype))


def has_nan(*arrs) -> bool:
    return any(_floatish(a) and a.size and bool(np.isnan(a.astype(np.float64)).any()) for a in arrs)


def _floatish(a) -> bool:
    return a.dtype.kind == "f" or a.dtype == BFLOAT16


def shape_text(shape) -> str:
    return "x".join(map(str, shape)) if len(shape) else "0-d"


def make_case(op: str, inputs: dict, params: dict, clauses, label: str, origin: str = "generated") -> Case:
    """Clause tags are deduplicated in first-seen order (stable across runs)."""
    seen = list(dict.fromkeys(clauses))
    return Case(op=op, inputs=inputs, params=params, clauses=tuple(seen), origin=origin, label=label)


def weighted_dtypes(common: tuple, rare: tuple, common_weight: int = 3) -> st.SearchStrategy:
    """Every dtype is reachable; the ones the documents show most get drawn more."""
    return st.sampled_from(tuple(d for d in common for _ in range(common_weight)) + tuple(rare))


@st.composite
def unique_along(draw, shape, dim: int, size: int, dtype: str = "int64"):
    """Index values in [0, size) that never repeat along `dim` (needs shape[dim] <= size)."""
    moved = tuple(s for i, s in enumerate(shape) if i != dim) + (shape[dim],)
    lines = int(np.prod(moved[:-1], dtype=np.int64))
    rows = [draw(st.permutations(range(size)))[: shape[dim]] for _ in range(lines)]
    flat = np.asarray(rows, dtype=np.int64).reshape(moved)
    return np.moveaxis(flat, -1, dim).astype(dtype_from_name(dtype))
