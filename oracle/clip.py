"""pypto clip: y = min(max(x, lo), hi) with pypto's bound kinds and dtype rules (seed pypto.clip.txt).

Readings the document leaves to the oracle: clip documents no error; its "must"s (CL-SAME-KIND, CL-BOUND-DTYPE,
CL-DTYPE, CL-RANK) are preconditions, "raises, or returns the formula's value" (docs/SPEC.md,
"Preconditions"; an Element of another dtype is also clip.conflict.1), the value open only where a bound the
input's dtype cannot hold decides an element; NaN in x with no NaN bound at that element is CL-GAP-NAN-X
(natural: NaN propagates); a BF16 input with any bound is CL-GAP-BF16 (scalars become BF16 Elements, which the bound
list lacks); a scalar bound the input dtype cannot hold is CL-GAP-CAST.  The result compares exactly, with
the sign of zero reported (max(-0.0, 0.0) is left open by the formula).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from contract.dtypes import (cast, dtype_from_name, dtype_name, holds, holds_exactly, is_float, is_int, is_number,
                             to_dtype)
from . import kernels
from .errors import Open, accepting, run_checks, value_reading
from .readings.clip import READING
from contract.expectation import EXACT, ZERO_REPORT, ZERO_STRICT, ExpectedArray
from .opspec import ADDED, Field, OpSpec, own_array, malformed, need_input

# What the document lists (pypto's DT_* names as the suite's dtype names)
DTYPES = {"input": ("float32", "float16", "bfloat16", "int32", "int16"),     # CL-DTYPE
          "bound": ("float32", "float16", "int32", "int16"),                 # CL-BOUND-DTYPE
          "special": ("float32", "float16")}                                 # CL-NONFLOAT-SPECIAL
INPUT_DTYPES = DTYPES["input"]
BOUND_DTYPES = DTYPES["bound"]
SPECIAL_DTYPES = DTYPES["special"]


@dataclass(frozen=True)
class Element:
    """pypto's Element: a scalar with a dtype (CL-BOUND-TYPES)."""
    value: float
    dtype: str


@dataclass(frozen=True)
class Bound:
    kind: str                       # "int" | "float" | "element" | "tensor"
    value: object = None            # the scalar (int/float/element) or the array (tensor)
    dtype: Optional[str] = None     # element only

    @property
    def is_tensor(self) -> bool:
        return self.kind == "tensor"

    def pass_as(self, tensor=lambda t: t, element=Element, scalar=lambda v: v):
        """The argument a user passes for this bound, in the caller's terms: tensor(the bound tensor),
        element(value, dtype name) for an Element, scalar(the Python int or float)."""
        if self.kind == "tensor":
            return tensor(self.value)
        if self.kind == "element":
            return element(self.value, self.dtype)
        return scalar(self.value)


def as_bound(b) -> Optional[Bound]:
    """A user's argument as a Bound: None, int, float, Element, a 0-d array (an Element) or a Tensor."""
    if b is None or isinstance(b, Bound):
        return b
    if isinstance(b, Element):
        return Bound("element", b.value, b.dtype)
    if isinstance(b, (np.ndarray, np.generic)):
        a = np.asarray(b)
        if a.ndim == 0:             # docs/SPEC.md (clip): an Element is a 0-d tensor of its dtype elsewhere
            return Bound("element", a[()].item(), dtype_name(a.dtype))
        return Bound("tensor", a)
    return Bound("float" if isinstance(b, float) else "int", b)


def solve(x: np.ndarray, lo: Optional[Bound], hi: Optional[Bound], *, input_output=True):
    """(outputs, clauses) for clip(x, lo, hi); raises SpecError / Unspecified.  input_output=False leaves
    out the "x" output (the input after the call), for a caller that only wants the value."""
    x = np.asarray(x)
    clauses = ["CL-FORMULA", "CL-DTYPE"]
    xd = dtype_name(x.dtype)
    present = [b for b in (lo, hi) if b is not None]
    op = Open()
    call = _Call(x, xd, lo, hi, present)
    # every check decides on its own whether its clause applies (errors.Open composes the findings)
    run_checks(CHECKS, call, op)
    los, more_lo = call.operands["min"]
    his, more_hi = call.operands["max"]
    clauses += more_lo + more_hi
    los, his, out = _straddled(x, los, his, op)
    # one blocked pass gives the value and the facts the rules below need, where it applies (large inputs)
    fast = None if los is False or his is False or x.size < kernels.LARGE else kernels.clip_pass(x, los, his)
    out = out if out is not None else (fast.out if fast is not None else _formula(x, los, his))
    if lo is None and hi is None:
        clauses.append("CL-NONE")
    elif lo is None or hi is None:
        clauses.append("CL-DEFAULTS")
    if is_float(x.dtype) and present:
        _nan_rules(x, los, his, op, clauses, fast)
    if isinstance(los, np.ndarray) and isinstance(his, np.ndarray):
        with np.errstate(invalid="ignore"):
            if fast.lo_gt_hi if fast is not None else np.any(np.asarray(los) > np.asarray(his)):
                clauses.append("CL-MIN-GT-MAX")
    # the sign of max(-0.0, 0.0) is not fixed by the formula: reported, not failed
    zero = ZERO_REPORT if (is_float(x.dtype) and present) else ZERO_STRICT
    outputs = {} if out is None else {"out": ExpectedArray(out, EXACT, zero_sign=zero)}
    if out is not None and input_output:
        outputs["x"] = ExpectedArray(kernels.unchanged(x))
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(dict.fromkeys(clauses))


@dataclass
class _Call:
    x: np.ndarray
    xd: str
    lo: Optional[Bound]
    hi: Optional[Bound]
    present: list
    operands: dict = field(default_factory=dict)    # "min"/"max" -> (the bound as an operand, its clauses)


# Preconditions with no stated consequence (docs/SPEC.md, "Preconditions"): refused with any class, or
# accepted with the formula's value
def _check_same_kind(c, op):
    if len(c.present) == 2 and (c.lo.kind == "tensor") != (c.hi.kind == "tensor"):
        # CL-SAME-KIND: scalars become Elements, so the only mix is Element with Tensor
        op.note_accept("CL-SAME-KIND", f"min is {c.lo.kind}, max is {c.hi.kind}: both Element or both Tensor")
    if len(c.present) == 1 and c.present[0].kind == "tensor":
        # clip.conflict.3: one Tensor bound, the other omitted: of different kinds (CL-SAME-KIND), or each
        # bound optional with its own default
        op.note_accept("CL-SAME-KIND", "one bound is a Tensor and the other is omitted")


def _check_dtype(c, op):
    if c.xd not in INPUT_DTYPES:
        op.note_accept("CL-DTYPE", f"input dtype {c.xd} is not one of {', '.join(INPUT_DTYPES)}")


def _check_rank(c, op):
    if not 1 <= c.x.ndim <= 4 or c.x.size == 0:
        op.note_accept("CL-RANK", f"input of shape {list(c.x.shape)}: only 1-4 dims, non-empty")


def _check_bf16(c, op):
    if c.xd in INPUT_DTYPES and c.xd not in BOUND_DTYPES and c.present:     # only BF16 today
        # clip.conflict.2: BF16 is no bound dtype (refused, any class), or scalars become BF16 Elements and
        # the formula applies; its value is fixed where every bound is exact in BF16
        note = op.note_accept if all(_exact_in(b, c.x.dtype) for b in c.present) else op.note
        note("CL-GAP-BF16", "BF16 input with a bound: Element/Tensor bounds are not documented for BF16")


def _check_operand(name):
    def check(c, op):
        more = []
        c.operands[name] = (_operand(c.lo if name == "min" else c.hi, c.x, name, op, more), more)
    return check


CHECKS = (_check_same_kind, _check_dtype, _check_rank, _check_bf16, _check_operand("min"), _check_operand("max"))


def _operand(b, x, name, op, clauses):
    """The bound as an array of x's dtype (or None: skipped); notes open points; False: no natural value."""
    if b is None:
        return None
    clauses.append("CL-BOUND-TYPES")
    xd = dtype_name(x.dtype)
    if b.kind == "tensor":
        a = np.asarray(b.value)
        if not 1 <= a.ndim <= 4 or a.size == 0:
            op.note_accept("CL-RANK", f"{name} tensor of shape {list(a.shape)}: only 1-4 dims, non-empty")
        try:
            shape = np.broadcast_shapes(a.shape, x.shape)
        except ValueError:
            shape = None
        if shape != x.shape:
            op.note("CL-BROADCAST", f"{name} of shape {list(a.shape)} does not broadcast to {list(x.shape)}")
            return False
        if a.shape != x.shape:
            clauses.append("CL-BROADCAST")
        if a.dtype != x.dtype:
            return _foreign(a, x, name, op, clauses, f"tensor of {dtype_name(a.dtype)}")
        return a
    if b.kind == "element" and b.dtype != xd:
        return _foreign_element(b, x, name, op, clauses)
    v = b.value
    target = b.dtype if b.kind == "element" else xd     # CL-BOUND-TYPES: a scalar becomes an Element of x's dtype
    if not is_number(v):
        op.note("CL-BOUND-TYPES", f"{name}={v!r} is not an int or a float")
        return False
    v = v.item() if isinstance(v, np.generic) else v
    special = isinstance(v, float) and not math.isfinite(v)
    if special:
        clauses.append("CL-NONFLOAT-SPECIAL")
        if target not in SPECIAL_DTYPES:
            op.note("CL-NONFLOAT-SPECIAL", f"{name}={v} for {target}: NaN/inf only mean something for FP16/FP32")
            # the natural reading of an infinite default-like bound on an int input: no comparison
            skip = (name == "min" and v == -math.inf) or (name == "max" and v == math.inf)
            return None if (skip and is_int(x.dtype)) else (to_dtype(target, v) if is_float(target) else False)
        return to_dtype(target, v)
    if not holds(target, v):
        op.note("CL-GAP-CAST", f"{name}={v!r} is not representable in {target}")
        return to_dtype(target, v) if is_float(target) else False     # a float overflows to inf naturally
    return to_dtype(target, v)


def _exact_in(b, dt) -> bool:
    """The bound's values are exact in `dt` (a Tensor of `dt` always is; NaN and infinities are)."""
    if b.kind == "tensor":
        return b.value.dtype == dt
    v = b.value.item() if isinstance(b.value, np.generic) else b.value
    return is_number(v) and holds_exactly(dt, v)


@dataclass(frozen=True)
class Straddle:
    """A bound whose value x's dtype cannot hold: its conversion is not stated, so the two neighbours in
    x's dtype (`down` < value < `up`) are both faithful; `near` is the nearest (the natural value)."""
    down: np.ndarray
    up: np.ndarray
    near: np.ndarray


def _foreign_element(b, x, name, op, clauses):
    """An Element bound of another dtype (clip.conflict.1): CL-BOUND-DTYPE says the dtype must be the
    input's; the same paragraph says another dtype is built through Element.  Refused (any class) or
    accepted, see _foreign."""
    v = b.value
    if not is_number(v):
        op.note("CL-BOUND-TYPES", f"{name}={v!r} is not an int or a float")
        return False
    v = v.item() if isinstance(v, np.generic) else v
    if not holds(b.dtype, v):      # (a float dtype holds NaN and the infinities; an integer one does not)
        op.note("CL-GAP-CAST", f"{name}={v!r} is not representable in its Element's {b.dtype}")
        return False
    return _foreign(to_dtype(b.dtype, v), x, name, op, clauses, f"Element of {b.dtype}")


def _foreign(a, x, name, op, clauses, what):
    """A bound `a` (its own dtype's values) of a dtype other than the input's.  CL-BOUND-DTYPE's "must be
    the input's dtype" states no consequence (a precondition: refused with any class, or accepted), and
    accepted, the bound takes part in min(max(x, lo), hi) in the input's dtype.  The value is fixed where
    the input's dtype holds the bound's values; where it does not, the conversion is not stated and both
    neighbours are faithful (Straddle); values no neighbour holds (NaN or out of range into integers)
    leave the value open."""
    clauses.append("CL-BOUND-DTYPE")
    xd, a = dtype_name(x.dtype), np.asarray(a)
    op.note_accept("CL-BOUND-DTYPE", f"{name} is a {what} for input {xd}: refused (the dtype must be the "
                                     "input's) or accepted" + (" (other dtypes are built through Element)"
                                                               if what.startswith("Element") else ""))
    wide = a.astype(np.float64) if is_float(a.dtype) else a.astype(np.int64)
    if is_float(x.dtype):
        if not np.isfinite(wide).all():
            clauses.append("CL-NONFLOAT-SPECIAL")
        near = cast(a, x.dtype)
        back = near.astype(np.float64)
        if dtype_name(x.dtype) not in BOUND_DTYPES or np.array_equal(back, wide, equal_nan=True):
            return near         # exact (BF16 is open already: CL-GAP-BF16)
        with np.errstate(invalid="ignore"):
            toward = np.where(back < wide, np.inf, -np.inf).astype(near.dtype)
            other = np.where(back == wide, near, np.nextafter(near, toward))
            return Straddle(np.minimum(near, other), np.maximum(near, other), near)
    if not is_int(x.dtype):
        op.note("CL-BOUND-DTYPE", f"a {dtype_name(a.dtype)} bound for a {xd} input: no stated conversion")
        return False
    if is_float(a.dtype) and not np.isfinite(wide).all():
        op.note("CL-NONFLOAT-SPECIAL", f"{name} holds NaN or an infinity of {dtype_name(a.dtype)} for an "
                                       "integer input: no stated meaning")
        return False
    info = np.iinfo(x.dtype)
    down, up = (np.floor(wide), np.ceil(wide)) if is_float(a.dtype) else (wide, wide)
    if down.size and (down.min() < info.min or up.max() > info.max):
        op.note("CL-BOUND-DTYPE", f"{name} holds values outside {xd}: their conversion is not stated")
        return False
    down, up = down.astype(x.dtype), up.astype(x.dtype)
    if np.array_equal(down, up):
        return down
    return Straddle(down, up, np.rint(wide).astype(x.dtype))


def _straddled(x, lo, hi, op):
    """(lo, hi, out): a Straddle bound replaced by its natural value, with `out` already computed where
    every choice of neighbours gives one answer (None: compute as usual); where two choices differ at
    some element, the value is open there and is noted."""
    if not (isinstance(lo, Straddle) or isinstance(hi, Straddle)):
        return lo, hi, None
    choices = lambda b: (b.down, b.up) if isinstance(b, Straddle) else (b,)
    natural = lambda b: b.near if isinstance(b, Straddle) else b
    if lo is False or hi is False:
        return natural(lo), natural(hi), None
    outs = [_formula(x, a, c) for a in choices(lo) for c in choices(hi)]
    if any(not np.array_equal(outs[0], o, equal_nan=is_float(x.dtype)) for o in outs[1:]):
        op.note("CL-BOUND-DTYPE", "a bound's value is not representable in the input's dtype and decides "
                                  "some element: its conversion is not stated")
        return natural(lo), natural(hi), None
    return natural(lo), natural(hi), outs[0]


def _formula(x, lo, hi):
    if lo is False or hi is False:
        return None
    out = x.copy()
    with np.errstate(invalid="ignore"):
        _apply_bounds(x, lo, hi, out)
    return out


def _apply_bounds(x, lo, hi, out):
    # CL-FORMULA, CL-MIN-GT-MAX: min(max(x, lo), hi) gives hi where lo > hi; CL-DEFAULTS: an absent bound is skipped
    if lo is not None and hi is not None:
        np.clip(x, lo, hi, out=out, casting="unsafe")
    elif lo is not None:
        np.maximum(x, lo, out=out, casting="unsafe")
    elif hi is not None:
        np.minimum(x, hi, out=out, casting="unsafe")
    kernels.zero_signs(x, lo, hi, out)


def _nan_rules(x, lo, hi, op, clauses, fast=None):
    bound_nan, x_nan = (((fast.lo_nan, fast.hi_nan), fast.x_nan_unbounded) if fast is not None
                        else _nan_facts(x, lo, hi))
    clauses += ["CL-NAN-BOUND"] * sum(bound_nan)     # CL-NAN-BOUND: NaN out where a bound is NaN
    if x_nan:
        op.note("CL-GAP-NAN-X", "NaN in x where no bound is NaN: not stated (the natural value propagates NaN)")


def _nan_facts(x, lo, hi):
    """((NaN in lo, NaN in hi), NaN in x at an element where no bound is NaN): the plain formulation."""
    nan_bound = np.zeros((), bool)
    bound_nan = []
    for b in (lo, hi):
        isnan = np.isnan(np.asarray(b).astype(np.float64)) if b is not None and b is not False else np.zeros((), bool)
        bound_nan.append(bool(isnan.any()))
        nan_bound = nan_bound | isnan
    with np.errstate(invalid="ignore"):
        if x.size == 0 or not np.isnan(np.min(x)):  # one reduction: NaN propagates through min
            return tuple(bound_nan), False
    return tuple(bound_nan), bool((np.isnan(x.astype(np.float64)) & ~nan_bound).any())


# ---- the documented domain (oracle/boundary.py; docs/CASES.md, "Domain coverage") -----------------
# (imported here so the domain stays one block of this module)
from contract.dtypes import FLOATS  # noqa: E402

from . import boundary as bd  # noqa: E402


def _d_bound(case, which):
    """The bound's params entry ({"kind": ...}) or None when omitted."""
    b = case.params.get(which)
    return b if isinstance(b, dict) else None


def _d_kind_is(which, *kinds):
    return lambda c: (_d_bound(c, which) or {}).get("kind") in kinds


def _d_scalar(case, which):
    """The number of a scalar or Element bound (None for a tensor or an omitted bound)."""
    b = _d_bound(case, which)
    return b.get("value") if b is not None and b.get("kind") in ("int", "float", "element") else None


def _d_tensor(case, which):
    b = _d_bound(case, which)
    return case.inputs.get(which) if b is not None and b.get("kind") == "tensor" else None


def _d_values(case, which):
    """The bound as float64 data (a tensor or a scalar), or None."""
    t = _d_tensor(case, which)
    if t is not None:
        return np.asarray(t).astype(np.float64)
    v = _d_scalar(case, which)
    return None if not is_number(v) else np.float64(v)


def _d_relation(case, test):
    lo, hi = _d_values(case, "min"), _d_values(case, "max")
    if lo is None or hi is None:
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.any(test(lo, hi)))


def _d_conversions(which):
    """(dtype, number) for a scalar bound: it becomes an Element of x's dtype, an Element keeps its own."""
    def values(case):
        b, v = _d_bound(case, which), _d_scalar(case, which)
        if b is None or not is_number(v):
            return ()
        return ((b["dtype"] if b["kind"] == "element" else bd.dtype(case, "x")), v),
    return values


def _d_special(which, want):
    def pred(case):
        v = _d_scalar(case, which)
        return isinstance(v, float) and (math.isnan(v) if want == "nan" else v == want and
                                         math.copysign(1, v) == math.copysign(1, want))
    return pred


def _d_bound_rows(which, default):
    sign = "-" if default < 0 else "+"
    B = bd.Boundary
    return [
        B(which, "omitted", "form", f"{which} not passed (its default {sign}inf)", lambda c: _d_bound(c, which) is None),
        B(which, "int", "form", f"{which} a Python int", _d_kind_is(which, "int")),
        B(which, "float", "form", f"{which} a Python float", _d_kind_is(which, "float")),
        B(which, "Element", "form", f"{which} an Element", _d_kind_is(which, "element")),
        B(which, "Tensor, x's shape", "form", f"{which} a Tensor of x's shape",
          lambda c: _d_tensor(c, which) is not None and bd.shape(c, which) == bd.shape(c, "x")),
        B(which, "Tensor, broadcast", "form", f"{which} a Tensor broadcast to x (size-1 sides or fewer dims)",
          lambda c: _d_tensor(c, which) is not None and bd.shape(c, which) != bd.shape(c, "x")),
        B(which, "Tensor of rank 4", "range", f"{which} a Tensor of 4 dims (the documented maximum)",
          lambda c: _d_tensor(c, which) is not None and bd.ndim(c, which) == 4),
        B(which, "Tensor of rank 0 or 5", "range", f"{which} a Tensor of 0 or 5 dims (one step outside 1-4)",
          lambda c: _d_tensor(c, which) is not None and bd.ndim(c, which) in (0, 5)),
        B(which, "Tensor with a side 0", "range", f"{which} an empty Tensor (not supported)",
          lambda c: _d_tensor(c, which) is not None and 0 in bd.shape(c, which)),
        B(which, "Tensor of another dtype", "form", f"{which} a Tensor whose dtype is not x's (CL-BOUND-DTYPE)",
          lambda c: _d_tensor(c, which) is not None and bd.dtype(c, which) != bd.dtype(c, "x")),
        B(which, "Element of another dtype", "form", f"{which} an Element whose dtype is not x's (CL-BOUND-DTYPE)",
          lambda c: _d_kind_is(which, "element")(c) and _d_bound(c, which).get("dtype") != bd.dtype(c, "x")),
        B(which, f"explicit {sign}inf", "default", f"{which}={sign}inf passed as a float on a float x: must act "
          "as the omitted bound", lambda c: _d_kind_is(which, "float")(c) and _d_special(which, default)(c)
          and bd.dtype(c, "x") in FLOATS),
        B(which, f"explicit {sign}inf Element", "default", f"{which}=Element(x's float dtype, {sign}inf): must act "
          "as the omitted bound", lambda c: _d_kind_is(which, "element")(c) and _d_special(which, default)(c)
          and _d_bound(c, which).get("dtype") == bd.dtype(c, "x") and bd.dtype(c, "x") in FLOATS),
        B(which, f"{sign}inf on an int x", "default", f"{which}={sign}inf with an INT16/INT32 x: the default "
          "comparison is skipped (CL-DEFAULTS)", lambda c: _d_special(which, default)(c)
          and bd.dtype(c, "x") in ("int16", "int32")),
        B(which, "NaN", "edge", f"{which} a NaN scalar or Element (CL-NAN-BOUND)", _d_special(which, "nan")),
        B(which, "-0.0", "edge", f"{which} the scalar -0.0", _d_special(which, -0.0)),
        B(which, "Tensor holding NaN", "edge", f"{which} a Tensor with a NaN element",
          lambda c: _d_tensor(c, which) is not None and bool(np.isnan(_d_values(c, which)).any())),
        *bd.rounding_rows(which, ("float16", "bfloat16", "float32"), _d_conversions(which),
                          f"{which} a scalar or Element converted into the dtype", classes=bd.TIES + ("double",)),
    ]


_B = bd.Boundary
DOMAIN = [
    _B("x", "rank 0", "range", "a 0-d x (one step below 1-4 dims: unsupported)", lambda c: bd.ndim(c, "x") == 0),
    _B("x", "rank 1", "range", "x of 1 dim (the documented minimum)", lambda c: bd.ndim(c, "x") == 1),
    _B("x", "rank 4", "range", "x of 4 dims (the documented maximum)", lambda c: bd.ndim(c, "x") == 4),
    _B("x", "rank 5", "range", "x of 5 dims (one step above: unsupported)", lambda c: bd.ndim(c, "x") == 5),
    _B("x", "side 0", "range", "an empty x (unsupported)", lambda c: 0 in bd.shape(c, "x")),
    _B("x", "side 1", "range", "x with a side of 1", lambda c: 1 in bd.shape(c, "x")),
    _B("x", "side 2", "range", "x with a side of 2", lambda c: 2 in bd.shape(c, "x")),
    *[_B("x", f"dtype {d}", "form", f"x of {d} (a documented input dtype)",
         lambda c, d=d: bd.dtype(c, "x") == d) for d in INPUT_DTYPES],
    _B("x", "undocumented dtype", "form", "x of a dtype the page does not list (float64, int8, int64...)",
       lambda c: bd.dtype(c, "x") not in INPUT_DTYPES),
    *bd.edge_rows("x", ("x",), INPUT_DTYPES),
    *_d_bound_rows("min", -math.inf),
    *_d_bound_rows("max", math.inf),
    _B("min, max", "both omitted", "form", "clip(x): both bounds omitted (CL-NONE)",
       lambda c: _d_bound(c, "min") is None and _d_bound(c, "max") is None),
    _B("min, max", "min < max", "range", "both bounds given, min below max at some element",
       lambda c: _d_relation(c, np.less)),
    _B("min, max", "min == max", "range", "both bounds given and equal at some element (the edge of min > max)",
       lambda c: _d_relation(c, np.equal)),
    _B("min, max", "min > max", "range", "both bounds given, min above max at some element (CL-MIN-GT-MAX)",
       lambda c: _d_relation(c, np.greater)),
    _B("min, max", "Tensor and scalar", "form", "one bound a Tensor, the other a scalar or Element "
       "(CL-SAME-KIND)", lambda c: (_d_tensor(c, "min") is None) != (_d_tensor(c, "max") is None)
       and _d_bound(c, "min") is not None and _d_bound(c, "max") is not None),
]


def clip(x, min=None, max=None):
    """pypto clip(x, min, max): a new array; raises SpecError / Either / Unspecified (oracle/__init__.py)."""
    outputs = value_reading(solve, np.asarray(x), as_bound(min), as_bound(max), input_output=False)
    return outputs["out"].value


# ---- the op's declaration: document, clauses, case contract, decoder (docs/SPEC.md) --------------

@dataclass(frozen=True)
class ClipCall:
    """clip's arguments: `clip(x, min, max)`; an omitted bound is None."""
    x: object
    min: Optional[Bound]
    max: Optional[Bound]


def decode(case, inputs=None) -> ClipCall:
    """The one reading of a clip case (params.min/max: absent, or {"kind": tensor|int|float|element, ...})."""
    return ClipCall(need_input(case, "x", inputs), _decode_bound(case, "min", inputs),
                    _decode_bound(case, "max", inputs))


def _decode_bound(case, which, inputs):
    spec = case.params.get(which)
    if spec is None:
        return None
    kind = spec.get("kind") if hasattr(spec, "get") else None
    if kind == "tensor":
        return Bound("tensor", need_input(case, which, inputs))
    if kind not in ("int", "float", "element"):
        raise malformed(case, f"{which} = {spec!r} has no known kind")
    if "value" not in spec:
        raise malformed(case, f"{which} field 'value' is missing")
    if kind != "element":
        return Bound(kind, spec["value"])
    try:
        dtype_from_name(spec.get("dtype"))
    except (KeyError, TypeError):
        raise malformed(case, f"{which} element dtype {spec.get('dtype')!r}") from None
    return Bound("element", spec["value"], spec["dtype"])


def solve_case(case):
    a = decode(case)
    return solve(a.x, a.min, a.max)


@accepting()        # the oracle as a candidate returns the accepting reading of an either answer
def call(case, inputs=None) -> dict:
    a = decode(case, inputs)
    x = own_array(a.x, inputs)
    out = clip(x, min=a.min and a.min.pass_as(), max=a.max and a.max.pass_as())
    return {"out": out, "x": x}


def repro(case, literal) -> tuple:
    a = decode(case)

    def text(which, b):
        if b is None:
            return "None"
        return b.pass_as(lambda _: which, lambda v, dt: f"oracle.Element({literal(v)}, {dt!r})", literal)
    return [f"out = oracle.clip(x, min={text('min', a.min)}, max={text('max', a.max)})"], [], {"out": "out", "x": "x"}

def generic_call(case, api, literal, array) -> list:
    """`out = api(x, min, max)`, an Element bound as a 0-d array of its dtype (adapters/repro.generic_repro)."""
    a = decode(case)

    def text(which, b):
        return "None" if b is None else b.pass_as(lambda _: which, array, literal)
    return [f"out = {api}(x, {text('min', a.min)}, {text('max', a.max)})"]


_DOC = "Parameters: min, max"
SPEC = OpSpec(
    reading=READING,
    name="clip", source="pypto.clip.txt", title="pypto clip",
    clause_rows=(
        ("CL-FORMULA", "sem", "Description; Return value",
         "y = min(max(x, lo), hi) elementwise; returns a new tensor; the input is not modified"),
        ("CL-DTYPE", "sem", "Parameters: input; Return value",
         "input dtypes FP32, FP16, BF16, INT32, INT16; output dtype equals input dtype"),
        ("CL-RANK", "uns", "Parameters: input, min, max", "only 1-4 dims; no empty tensors; at most INT32_MAX elements"),
        ("CL-BOUND-TYPES", "sem", "Prototype; Parameters: min, max",
         "a bound is int, float, Element or Tensor; scalars become an Element of the input dtype"),
        ("CL-BOUND-DTYPE", "uns", _DOC, "a Tensor/Element bound must have the input's dtype (FP32, FP16, INT32, "
                                        "INT16), no consequence named; other dtypes are built through Element"),
        ("CL-SAME-KIND", "uns", "Constraints, item 1", "lo and hi must be of the same kind: both Element or both "
                                                       "Tensor (no consequence named)"),
        ("CL-BROADCAST", "sem", "Constraints, item 2", "a Tensor bound must broadcast to the input's shape"),
        ("CL-DEFAULTS", "sem", _DOC,
         "lo defaults to -inf, hi to +inf; for integer inputs the default comparison is skipped"),
        ("CL-NONE", "sem", "Constraints, item 3", "both bounds omitted: the values are returned unchanged"),
        ("CL-NAN-BOUND", "sem", "Return value", "a NaN bound gives NaN output"),
        ("CL-MIN-GT-MAX", "sem", "Return value", "where lo > hi the output is hi"),
        ("CL-NONFLOAT-SPECIAL", "sem", _DOC, "NaN and infinities only mean something for float dtypes"),
        ("CL-EX-1", "ex", "Call examples: the first (tensor bounds)", "the tensor-bound example"),
        ("CL-EX-2", "ex", "Call examples: example 2 (scalar bounds)", "the scalar-bound example"),
        ("CL-GAP-NAN-X", "gap", "Return value", "what NaN in x gives is not stated: \"裁剪到指定的最小值到最大值范围内\" "
                                                "(clipped into [min, max]) and \"其余值维持不变\" (the other values "
                                                "stay) disagree for a NaN, which is neither below min nor above max "
                                                "and not in the range"),
        ("CL-GAP-BF16", "gap", "Parameters: input against min, max",
         "BF16 is listed for the input but not for Tensor/Element bounds"),
        ("CL-GAP-CAST", "gap", _DOC, "a scalar bound the input dtype cannot hold (1.5 for INT32, 40000 for INT16): "
                                     "its conversion is not stated", ADDED),
    ),
    inputs=(Field("x", "the input"),
            Field("min", "the min bound, when params.min is of kind tensor", required=False),
            Field("max", "the max bound, when params.max is of kind tensor", required=False)),
    params=(Field("min", 'absent: the bound is omitted (None); else {"kind": K, ...}. Kind "tensor": the bound '
                         'is inputs.min; "int" / "float": the Python scalar "value"; "element": a pypto Element of '
                         '"dtype" with "value" (a 0-d tensor of that dtype in other frameworks)', required=False),
            Field("max", "as min, for the max bound (inputs.max)", required=False)),
    outputs=(Field("out", "what the call returned"),
             Field("x", "the input after the call (must be unchanged)")),
    decode=decode, solve=solve_case, reference=clip, call=call, repro=repro, generic_call=generic_call,
    generic_outputs={"out": "out", "x": "x"}, dtypes=DTYPES,
    exports={"Element": Element},
    # clip.desc.2: "该接口非原地操作，不改变输入Tensor，而是返回一个新的Tensor" -- not in place: a bound that is a
    # view of the input is read like any tensor, nothing is written, CL-FORMULA fixes the value
    writes_nothing=lambda case: "CL-FORMULA",
)
