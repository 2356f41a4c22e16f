"""The documented domain as data: boundary classes of each op's parameters, and what a case must hold to hit one.

Each op module lists its `DOMAIN`: Boundary rows (parameter, class, kind, description, predicate over a
Case).  `oracle.domains` collects them; tests/test_domain_coverage.py fails when the shipped corpus has no
case for a row, and the report counts the cases of a run per row (docs/CASES.md, "Domain coverage").

Kinds, after the classes a conformance suite must reach:
- range:    both ends of a documented range and one step inside and outside it (ranks, sizes, offsets,
            index values);
- default:  a parameter passed explicitly with its default value (it must behave like the omitted one);
- form:     a syntactic form the documents allow (or name as unsupported);
- rounding: a value the dtype cannot hold exactly, so the conversion must round to nearest, ties to even;
- edge:     the edges of a dtype (smallest subnormal, largest finite, -0.0, NaN with a payload, int min/max).

Predicates read the case as data only (inputs, params); a rounding class also asks the oracle that the
case is not a documented error, so a conversion that never happens does not count.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterable

import ml_dtypes
import numpy as np

from contract.dtypes import FLOATS, INTS, dtype_name, dtype_from_name

BOUNDARY_KINDS = ("range", "default", "form", "rounding", "edge")
MAX_SCAN = 1 << 16      # elements a predicate looks at; larger inputs are not scanned


@dataclass(frozen=True)
class Boundary:
    param: str          # the parameter as the document names it
    cls: str            # the boundary class
    kind: str           # one of BOUNDARY_KINDS
    text: str           # what a case must hold, in words
    hits: Callable      # Case -> bool

    def __post_init__(self):
        assert self.kind in BOUNDARY_KINDS, self.kind


def hit(row: Boundary, case) -> bool:
    """Whether `case` hits `row`; a case a predicate cannot read (a damaged or hostile one) hits nothing."""
    try:
        return bool(row.hits(case))
    except Exception:       # noqa: BLE001  predicates meet arbitrary cases from results files
        return False


# ---- reading a case ----------------------------------------------------------------------------

def inp(case, name):
    """Input `name` as an array, or None."""
    a = case.inputs.get(name)
    return None if a is None else np.asarray(a)


def ndim(case, name) -> int:
    a = inp(case, name)
    return -1 if a is None else a.ndim


def shape(case, name) -> tuple:
    a = inp(case, name)
    return () if a is None else tuple(a.shape)


def dtype(case, name) -> str:
    a = inp(case, name)
    try:
        return "" if a is None else dtype_name(a.dtype)
    except KeyError:
        return ""


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@lru_cache(maxsize=8192)
def _answer(case) -> tuple:
    """(kind, clauses) of the oracle's answer; ("malformed", ()) for a case it cannot read."""
    from .expect import expect          # late: expect imports the op modules that import this one
    try:
        e = expect(case)
    except Exception:       # noqa: BLE001  a malformed case reaches nothing
        return "malformed", ()
    return e.kind, tuple(e.clauses)


def reached(case) -> bool:
    """The call is not a documented error: its conversions happen (a value or an unspecified answer)."""
    return _answer(case)[0] in ("value", "unspecified")


def valid(case) -> bool:
    """The spec gives a plain value for the case."""
    return _answer(case)[0] == "value"


def cites(case, clause: str) -> bool:
    """The oracle's answer for the case rests on `clause`."""
    return clause in _answer(case)[1]


# ---- dtype edges -------------------------------------------------------------------------------

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _finfo(name):
    return ml_dtypes.finfo(dtype_from_name(name))


def float_edges(a) -> frozenset:
    """Which float edges array `a` holds: 'subnormal', 'max', '-0.0', 'nan-payload'."""
    a = np.asarray(a)
    name = dtype_name(a.dtype)
    if name not in FLOATS or a.size == 0 or a.size > MAX_SCAN:
        return frozenset()
    info = _finfo(name)
    w = a.astype(np.float64).ravel()
    out = set()
    mag = np.abs(w)
    if (mag == float(info.smallest_subnormal)).any():
        out.add("subnormal")
    if (mag == float(info.max)).any():
        out.add("max")
    if ((w == 0) & np.signbit(w)).any():
        out.add("-0.0")
    if nan_payloads(a).any():
        out.add("nan-payload")
    return frozenset(out)


def nan_payloads(a) -> np.ndarray:
    """Mask of NaNs other than the default quiet NaN (of either sign): a payload or a signalling NaN."""
    a = np.asarray(a)
    bits = 8 * a.dtype.itemsize
    mant = _finfo(dtype_name(a.dtype)).nmant
    u = np.ascontiguousarray(a).view(_UINT[a.dtype.itemsize]).ravel().astype(np.uint64)
    expo = (u >> np.uint64(mant)) & np.uint64((1 << (bits - 1 - mant)) - 1)
    frac = u & np.uint64((1 << mant) - 1)
    is_nan = (expo == np.uint64((1 << (bits - 1 - mant)) - 1)) & (frac != 0)
    return is_nan & (frac != np.uint64(1 << (mant - 1)))


def int_edges(a) -> frozenset:
    a = np.asarray(a)
    name = dtype_name(a.dtype)
    if name not in INTS or a.size == 0 or a.size > MAX_SCAN:
        return frozenset()
    info = np.iinfo(a.dtype)
    return frozenset(k for k, v in (("min", info.min), ("max", info.max)) if (a == v).any())


FLOAT_EDGES = (("subnormal", "smallest subnormal", "±the smallest subnormal"),
               ("max", "largest finite", "±the largest finite value"),
               ("-0.0", "-0.0", "a negative zero"),
               ("nan-payload", "NaN with payload", "a NaN other than the default quiet NaN"))


def edge_rows(param: str, names: Iterable[str], dtypes: Iterable[str], why: str = "") -> list:
    """Edge rows for the data of input(s) `names`: the float edges of each float dtype, min/max of each int one."""
    names = tuple(names)
    rows = []
    for dt in dtypes:
        if dt in FLOATS:
            for key, cls, text in FLOAT_EDGES:
                rows.append(Boundary(param, f"{dt} {cls}", "edge", f"{param} {dt} holding {text}{why}",
                                     _edge_pred(names, dt, key, float_edges)))
        elif dt in INTS:
            for key in ("min", "max"):
                rows.append(Boundary(param, f"{dt} {key}", "edge", f"{param} {dt} holding {dt}'s {key}{why}",
                                     _edge_pred(names, dt, key, int_edges)))
    return rows


def _edge_pred(names, dt, key, edges):
    def pred(case):
        return any(dtype(case, n) == dt and key in edges(inp(case, n)) for n in names)
    return pred


# ---- rounding ----------------------------------------------------------------------------------

_FORMAT = {"float16": (10, -14), "bfloat16": (7, -126), "float32": (23, -126), "float64": (52, -1022)}
NARROW = ("float16", "bfloat16")        # narrower than float32: a conversion through float32 rounds twice
ROUNDING = (("inexact", "needs rounding", "a value {dt} cannot hold exactly (0.1, 1/3)"),
            ("tie-even-down", "tie, even toward zero",
             "a value exactly halfway between two {dt} neighbours, the even one nearer zero"),
            ("tie-even-up", "tie, even away from zero",
             "a value exactly halfway between two {dt} neighbours, the even one farther from zero"),
            ("double", "a hair off a tie",
             "a value just beside a {dt} tie: rounded to float32 first it lands on the tie and then goes "
             "the wrong way (double rounding)"))
TIES = ("inexact", "tie-even-down", "tie-even-up")


def rounding_classes(dt: str, v) -> frozenset:
    """The rounding classes the exact number `v` (float, int or Fraction) falls in for float dtype `dt`:
    empty when `dt` holds it; else 'inexact', plus 'tie-even-down' / 'tie-even-up' when it lies halfway
    between two neighbours (the even one nearer or farther from zero), plus 'double' when rounding it to
    float32 first would land on a tie it is not on.  Values beyond the largest finite are inexact."""
    if isinstance(v, float) and not math.isfinite(v):
        return frozenset()
    f = abs(Fraction(v))
    if f == 0:
        return frozenset()
    mant, emin = _FORMAT[dt]
    q = f / Fraction(2) ** (max(_floor_log2(f), emin) - mant)     # f in units of the spacing near f
    if q.denominator == 1:
        return frozenset() if f <= Fraction(float(_finfo(dt).max)) else frozenset({"inexact"})
    if q.denominator == 2:
        return frozenset({"inexact", "tie-even-down" if math.floor(q) % 2 == 0 else "tie-even-up"})
    out = {"inexact"}
    if dt in NARROW and f < Fraction(float(np.finfo(np.float32).max)):
        via32 = Fraction(float(np.float32(float(f))))
        if via32 != f and rounding_classes(dt, via32) - {"inexact"}:
            out.add("double")
    return frozenset(out)


def _floor_log2(f: Fraction) -> int:
    n, d = f.numerator, f.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def rounding_rows(param: str, dtypes: Iterable[str], values: Callable, what: str, classes=TIES) -> list:
    """Rounding rows: `values(case)` yields (dtype name, exact number converted into it) pairs.  The
    'double' class applies to the dtypes narrower than float32 only."""
    rows = []
    for dt in dtypes:
        for key, cls, text in ROUNDING:
            if key in classes and (key != "double" or dt in NARROW):
                rows.append(Boundary(param, f"{dt} {cls}", "rounding", f"{what}: {text.format(dt=dt)}",
                                     _rounding_pred(values, dt, key)))
    return rows


def _rounding_pred(values, dt, key):
    def pred(case):
        return any(d == dt and key in rounding_classes(d, v) for d, v in values(case)) and reached(case)
    return pred


def neighbours(dt: str, v) -> tuple:
    """(lo, hi): the two adjacent values of float dtype `dt` around the finite number `v` (lo <= v <= hi),
    as Python floats; equal when `dt` holds `v`.  For building cases that show which way a value rounded."""
    f = Fraction(v)
    mant, emin = _FORMAT[dt]
    step = Fraction(2) ** (max(_floor_log2(abs(f)) if f else emin, emin) - mant)
    lo = math.floor(f / step) * step
    return float(lo), float(lo if lo == f else lo + step)


def tie_values(dt: str) -> dict:
    """One value per rounding class that float dtype `dt` cannot hold: 0.1; the halfway points just above 1
    whose even neighbour is 1 (toward zero) and 1 + 2 spacings (away from zero); and, for the dtypes
    narrower than float32, the first halfway point plus 2**-40, which float32 cannot tell from the tie."""
    mant = _FORMAT[dt][0]
    half = 2.0 ** -(mant + 1)
    out = {"inexact": 0.1, "tie-even-down": 1 + half, "tie-even-up": 1 + 3 * half}
    if dt in NARROW:
        out["double"] = 1 + half + 2.0 ** -40
    return out
