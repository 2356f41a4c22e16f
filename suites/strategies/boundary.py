"""What each op's boundary cases share (oracle/*.DOMAIN): the edges of each dtype, values a dtype must round.

Each op's strategy module declares a `boundary` family and `boundary_cases()` (suites/strategies/__init__.py
collects them; suites/corpus.py puts them in the shipped corpus).  The other families draw from small exact
values, which never need rounding and never carry a NaN payload.  The boundary ones reach the rest on
purpose, one small case each where one will do: values a dtype must round (0.1, exact ties whose even
neighbour lies either way, a hair off a tie), the edges of each dtype (smallest subnormal, largest finite,
-0.0, NaN with a payload, integer min/max), explicit defaults and the ends of each documented range.  Each
value is built from the dtype's definition, not typed in, and the inputs around a rounded value hold both of
its neighbours, so a conversion that goes the wrong way changes the output.

This module knows no op.  tests/test_domain_coverage.py checks that, with the rest of the corpus, every
class has a case; `conform selftest` shows which mutants they catch.
"""
from __future__ import annotations

import numpy as np

from contract.case import Case
from contract.dtypes import BFLOAT16, FLOATS, dtype_from_name, dtype_name
from oracle.boundary import neighbours, tie_values

from ..tagging import with_oracle_clauses
from .common import coin, ints, pick, shape_text

F16, F32, F64, I32, I64 = np.float16, np.float32, np.float64, np.int32, np.int64
ROUNDED = ("float16", "bfloat16", "float32")      # the float dtypes a Python float (a float64) must round into
PAYLOAD_BITS = {"float16": 0x7E01, "bfloat16": 0x7FC1, "float32": 0x7FC00001, "float64": 0x7FF8000000000001}
_UINT = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}
_SUB = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149}


def boundary_case(op, label, inputs, params) -> Case:
    """A targeted case tagged with the clauses the oracle's answer to it cites, like every corpus case."""
    return with_oracle_clauses(Case(op=op, inputs=inputs, params=params, origin="boundary", label=label))


def arr(values, dt) -> np.ndarray:
    return np.array(values, dtype=np.float64).astype(dtype_from_name(dt)) if dt in FLOATS else \
        np.array(values, dtype=dtype_from_name(dt))


def payload_nan(dt: str) -> np.ndarray:
    """A quiet NaN of `dt` with the lowest payload bit set (not the default NaN)."""
    return np.array(PAYLOAD_BITS[dt], dtype=_UINT[dt]).view(dtype_from_name(dt))


def float_edges(dt: str, nan: bool = True) -> np.ndarray:
    """±smallest subnormal, ±largest finite, -0.0, 1.0 (and a NaN with a payload) in float dtype `dt`."""
    import ml_dtypes
    info = ml_dtypes.finfo(BFLOAT16 if dt == "bfloat16" else np.dtype(dt))
    tiny, big = float(info.smallest_subnormal), float(info.max)
    out = arr([tiny, -tiny, big, -big, -0.0, 1.0], dt)
    return np.concatenate([out, payload_nan(dt).reshape(1)]) if nan else out


def int_edges(dt: str) -> np.ndarray:
    info = np.iinfo(dtype_from_name(dt))
    return np.array([info.min, info.max, 0, 1], dtype=dtype_from_name(dt))


def around(dt: str, v) -> np.ndarray:
    """The neighbours of `v` in `dt` and one step beyond each, ascending: the data that shows which way v rounded."""
    lo, hi = neighbours(dt, v)
    lo2, _ = neighbours(dt, lo - (hi - lo) / 2)
    _, hi2 = neighbours(dt, hi + (hi - lo) / 2)
    return arr([lo2, lo, hi, hi2], dt)


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


def label(note, arrays) -> str:
    return f"{note}: " + ", ".join(f"{k} {dtype_name(a.dtype)} {shape_text(a.shape)}" for k, a in arrays.items())
