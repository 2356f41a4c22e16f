"""Small Hypothesis helpers shared by the per-op strategies: dtypes, shapes, arrays, cases.

Arrays stay small (a few to a few hundred elements) so a frozen corpus stays
well under its size limit and every adapter gets through it in CI.
"""
from __future__ import annotations

import math
from functools import lru_cache

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from contract.case import Case
from contract.dtypes import BFLOAT16, dtype_from_name, is_float

from ..tagging import with_oracle_clauses

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


@lru_cache(maxsize=None)
def elements(name: str, specials: bool = True) -> st.SearchStrategy:
    if name == "bool":
        return st.booleans()
    if is_float(dtype_from_name(name)):
        return float_elements(name, specials)
    return int_elements(name, extremes=specials)


# One legacy-seeded generator reused: constructing a RandomState draws OS entropy first, which costs more
# than the whole layout.  Strategies run one example at a time, so sharing it is safe.
_RNG = np.random.RandomState(0)
_FLOAT_NAMES = frozenset(("float16", "bfloat16", "float32", "float64"))


@lru_cache(maxsize=None)
def candidates(name: str, specials: bool = True) -> tuple:
    """The values an array's pool draws from, simplest first (Hypothesis shrinks towards 0)."""
    if name == "bool":
        return (False, True)
    if name in _INT_RANGE:
        lo, hi = _INT_RANGE[name]
        small = (0, 1, -1, 2, -2, 3, 7, -8, 5, 100)
        edges = (lo, hi, lo + 1, hi - 1) if specials else ()
        return tuple(dict.fromkeys(v for v in small + edges if lo <= v <= hi))
    info = ml_dtypes.finfo(BFLOAT16 if name == "bfloat16" else np.dtype(name))
    small = (0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, -8.0, 1.0 / 3.0, 100.0)
    edges = (float(info.max), float(-info.max), float(info.smallest_subnormal), float(info.eps)) + SPECIAL_FLOATS
    return small + (edges if specials else ())


def arrays(name: str, shape, specials: bool = True) -> st.SearchStrategy:
    """An array of dtype `name` (bfloat16 included) and the given shape, in O(1) Hypothesis draws."""
    return _arrays(name, tuple(int(s) for s in shape), specials)


@lru_cache(maxsize=4096)        # building and validating a strategy per draw costs more than the draw
def _arrays(name: str, shape: tuple, specials: bool) -> st.SearchStrategy:
    return _ArrayStrategy(name, shape, specials)


class _ArrayStrategy(st.SearchStrategy):
    """An array of dtype `name` (bfloat16 included) and the given shape, from three integer choices.

    Two choices pick a pool of two values (they shrink to the simplest
    candidates, 0 first) and one seeds the layout with the legacy NumPy RNG,
    whose streams NumPy keeps stable across releases, so a derandomized corpus
    rebuilds byte for byte.  Half the layouts hold mostly distinct values, so a
    misplaced element shows.  The choices are drawn raw, not through nested
    strategies: generation, not the check, is what an exploration example
    mostly costs.
    """

    def __init__(self, name, shape, specials):
        super().__init__()
        self.name, self.shape, self.specials = name, shape, specials
        self.dtype = dtype_from_name(name)
        self.n = math.prod(shape)
        self.values = candidates(name, specials)

    def do_draw(self, data):
        if self.n == 0:
            return np.zeros(self.shape, dtype=self.dtype)
        last = len(self.values) - 1
        pool = (self.values[data.draw_integer(0, last)], self.values[data.draw_integer(0, last)])
        return _layout(self.name, self.dtype, self.shape, self.n, pool, data.draw_integer(0, 2**33 - 1))


def _layout(name, dt, shape, n, pool, code) -> np.ndarray:
    _RNG.seed(code >> 1)                    # low bit: distinct layout or not; the rest seeds the layout
    as_f64 = np.asarray(pool, dtype=np.float64 if name != "int64" else np.int64)
    if not code & 1 or name == "bool":
        flat = as_f64[_RNG.randint(0, len(pool), size=n)]
    else:
        step = 0.5 if name in _FLOAT_NAMES else 1
        flat = ((_RNG.permutation(n) - n // 2) * step).astype(as_f64.dtype)
        spots = _RNG.randint(0, n, size=_RNG.randint(0, min(n, len(pool)) + 1))
        flat[spots] = as_f64[_RNG.randint(0, len(pool), size=len(spots))]
    if name == "bool":
        return flat.astype(bool).reshape(shape)
    if name in _INT_RANGE and name != "int64":
        flat = flat.astype(np.int64)          # wrap like a C cast, not float->int UB
    return flat.astype(dt).reshape(shape)


@lru_cache(maxsize=None)
def shapes(min_dims: int = 1, max_dims: int = 4, min_side: int = 1, max_side: int = MAX_SIDE):
    return _ShapeStrategy(min_dims, max_dims, min_side, max_side)


class _ShapeStrategy(st.SearchStrategy):
    """Like hypothesis.extra.numpy.array_shapes, drawn raw (see _ArrayStrategy); shrinks to the fewest, smallest dims."""

    def __init__(self, min_dims, max_dims, min_side, max_side):
        super().__init__()
        self.dims, self.sides = (min_dims, max_dims), (min_side, max_side)

    def do_draw(self, data):
        rank = data.draw_integer(*self.dims)
        return tuple(data.draw_integer(*self.sides) for _ in range(rank))


def shape_text(shape) -> str:
    return "x".join(map(str, shape)) if len(shape) else "0-d"


def make_case(op: str, inputs: dict, params: dict, label: str, origin: str = "generated", aliases=None) -> Case:
    """A case tagged with the clauses the oracle's answer to it cites (suites.tagging.with_oracle_clauses):
    the tags come from the spec, never from the strategy.  `aliases`: input name -> contract.case.Alias."""
    return with_oracle_clauses(Case(op=op, inputs=inputs, params=params, origin=origin, label=label,
                                    aliases=aliases or {}))


def weighted_dtypes(common: tuple, rare: tuple, common_weight: int = 3) -> tuple:
    """Every dtype is reachable (pick from it); the ones the documents show most get drawn more."""
    return tuple(d for d in common for _ in range(common_weight)) + tuple(rare)


def unique_along(draw, shape, dim: int, size: int, dtype: str = "int64"):
    """Index values in [0, size) that never repeat along `dim` (needs shape[dim] <= size)."""
    moved = tuple(s for i, s in enumerate(shape) if i != dim) + (shape[dim],)
    lines = int(np.prod(moved[:-1], dtype=np.int64))
    _RNG.seed(ints(draw, 0, 2**32 - 1))     # one choice (shrinks to the identity-like layout of seed 0)
    rows = [_RNG.permutation(size)[: shape[dim]] for _ in range(lines)]
    flat = np.asarray(rows, dtype=np.int64).reshape(moved)
    return np.moveaxis(flat, -1, dim).astype(dtype_from_name(dtype))


# ---- raw choices ----------------------------------------------------------------------------
# Inside a composite, `draw` is ConjectureData.draw: drawing a nested strategy for every int costs
# three times the choice itself (a span, a strategy lookup).  These make the choice directly on the
# ConjectureData (it shrinks the same way) and fall back to a plain draw where that is not available.

def _data(draw):
    data = getattr(draw, "__self__", None)
    return data if hasattr(data, "draw_integer") else None


def ints(draw, lo: int, hi: int) -> int:
    data = _data(draw)
    return data.draw_integer(lo, hi) if data is not None else draw(st.integers(lo, hi))


def coin(draw) -> bool:
    data = _data(draw)
    return data.draw_boolean() if data is not None else draw(st.booleans())


def pick(draw, seq):
    """One of seq, shrinking towards its first element."""
    return seq[ints(draw, 0, len(seq) - 1)]


def shape_of(draw, *args, **kwargs) -> tuple:
    strat, data = shapes(*args, **kwargs), _data(draw)
    return strat.do_draw(data) if data is not None else draw(strat)


def array_of(draw, name: str, shape, specials: bool = True) -> np.ndarray:
    strat, data = arrays(name, shape, specials), _data(draw)
    return strat.do_draw(data) if data is not None else draw(strat)


# ---- odd inputs: any dtype and shape, any param type (each op's ODD_CASES) -------------------------
ODD_DTYPES = (np.float32, np.float16, BFLOAT16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
              np.bool_)
odd_scalars = st.one_of(st.integers(-5, 5), st.floats(allow_nan=True), st.booleans(), st.none(),
                        st.text(max_size=2), st.lists(st.integers(-3, 9), max_size=10))


@st.composite
def odd_arrays(draw, max_dims=4):
    """An array of any listed dtype with up to `max_dims` sides of 0-3 (empty ones among them)."""
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=max_dims)))
    dt = draw(st.sampled_from(ODD_DTYPES))
    n = int(np.prod(shape))
    data = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    return np.array(data).astype(dt).reshape(shape)

