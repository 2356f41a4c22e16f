"""pypto clip: y = min(max(x, lo), hi) with pypto's bound kinds and dtype rules (seed pypto.clip.txt).

Readings the document leaves to the oracle: documented errors (CL-SAME-KIND, CL-BOUND-DTYPE) are decided
before the domain (dtype, rank) is; NaN in x with no NaN bound at that element is CL-GAP-NAN-X (natural:
NaN propagates); a BF16 input with any bound is CL-GAP-BF16 (scalars become BF16 Elements, which the bound
list lacks); a scalar bound the input dtype cannot hold is CL-GAP-CAST.  The result compares exactly, with
the sign of zero reported (max(-0.0, 0.0) is left open by the formula).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from contract.dtypes import DOCUMENTED, dtype_name, holds, is_float, is_int, is_number, to_dtype
from .errors import Open, SpecError
from contract.expectation import EXACT, ZERO_REPORT, ZERO_STRICT, ExpectedArray

INPUT_DTYPES = DOCUMENTED["clip"]["input"]         # CL-DTYPE
BOUND_DTYPES = DOCUMENTED["clip"]["bound"]         # CL-BOUND-DTYPE
SPECIAL_DTYPES = DOCUMENTED["clip"]["special"]     # CL-NONFLOAT-SPECIAL: FP16/FP32 only


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


def as_bound(b) -> Optional[Bound]:
    """A user's argument as a Bound: None, int, float, Element, a 0-d array (an Element) or a Tensor."""
    if b is None or isinstance(b, Bound):
        return b
    if isinstance(b, Element):
        return Bound("element", b.value, b.dtype)
    if isinstance(b, (np.ndarray, np.generic)):
        a = np.asarray(b)
        if a.ndim == 0:             # docs/CASES.md: an Element is a 0-d tensor of its dtype elsewhere
            return Bound("element", a[()].item(), dtype_name(a.dtype))
        return Bound("tensor", a)
    return Bound("float" if isinstance(b, float) else "int", b)


def solve(x: np.ndarray, lo: Optional[Bound], hi: Optional[Bound]):
    """(outputs, clauses) for clip(x, lo, hi); raises SpecError / Unspecified."""
    x = np.asarray(x)
    clauses = ["CL-FORMULA", "CL-DTYPE"]
    xd = dtype_name(x.dtype)
    present = [b for b in (lo, hi) if b is not None]
    if len(present) == 2 and (lo.kind == "tensor") != (hi.kind == "tensor"):
        # CL-SAME-KIND: scalars become Elements, so the only mix is Element with Tensor
        raise SpecError("CL-SAME-KIND", None, f"min is {lo.kind}, max is {hi.kind}: both Element or both Tensor",
                        clauses)
    for b in present:
        if b.kind in ("element", "tensor"):
            bd = b.dtype if b.kind == "element" else dtype_name(b.value.dtype)
            if bd != xd:    # CL-BOUND-DTYPE
                raise SpecError("CL-BOUND-DTYPE", None, f"a {b.kind} bound of {bd} for input {xd}", clauses)
    op = Open()
    if xd not in INPUT_DTYPES:
        op.note("CL-DTYPE", f"input dtype {xd} is not one of {', '.join(INPUT_DTYPES)}")
    if not 1 <= x.ndim <= 4 or x.size == 0:
        op.note("CL-RANK", f"input of shape {list(x.shape)}: only 1-4 dims, non-empty")
    if xd in INPUT_DTYPES and xd not in BOUND_DTYPES and present:     # only BF16 today
        op.note("CL-GAP-BF16", "BF16 input with a bound: Element/Tensor bounds are not documented for BF16")
    los = _operand(lo, x, "min", op, clauses)
    his = _operand(hi, x, "max", op, clauses)
    out = _formula(x, los, his)
    if lo is None and hi is None:
        clauses.append("CL-NONE")
    elif lo is None or hi is None:
        clauses.append("CL-DEFAULTS")
    if is_float(x.dtype) and present:
        _nan_rules(x, los, his, op, clauses)
    if isinstance(los, np.ndarray) and isinstance(his, np.ndarray):
        with np.errstate(invalid="ignore"):
            if np.any(np.asarray(los) > np.asarray(his)):
                clauses.append("CL-MIN-GT-MAX")
    # the sign of max(-0.0, 0.0) is not fixed by the formula: reported, not failed
    zero = ZERO_REPORT if (is_float(x.dtype) and present) else ZERO_STRICT
    outputs = {} if out is None else {"out": ExpectedArray(out, EXACT, zero_sign=zero), "x": ExpectedArray(x.copy())}
    op.raise_if_any(outputs, clauses)
    return outputs, tuple(dict.fromkeys(clauses))


def _operand(b, x, name, op, clauses):
    """The bound as an array of x's dtype (or None: skipped); notes open points; False: no natural value."""
    if b is None:
        return None
    clauses.append("CL-BOUND-TYPES")
    xd = dtype_name(x.dtype)
    if b.kind == "tensor":
        a = np.asarray(b.value)
        if not 1 <= a.ndim <= 4 or a.size == 0:
            op.note("CL-RANK", f"{name} tensor of shape {list(a.shape)}: only 1-4 dims, non-empty")
        try:
            shape = np.broadcast_shapes(a.shape, x.shape)
        except ValueError:
            shape = None
        if shape != x.shape:
            op.note("CL-BROADCAST", f"{name} of shape {list(a.shape)} does not broadcast to {list(x.shape)}")
            return False
        if a.shape != x.shape:
            clauses.append("CL-BROADCAST")
        return a
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
    _zero_signs(x, lo, hi, out)


def _zero_signs(x, lo, hi, out):
    """The sign of a zero result, by the formula read left to right: max(a, b) and min(a, b) keep a where
    a == b (+0.0 against -0.0).  The document leaves that sign open (reported, not failed); fixing it here
    keeps the answer the same on every NumPy (np.clip let the bound win such ties before NumPy 2)."""
    zero = out == 0
    if not (is_float(out.dtype) and zero.any()):
        return
    m = x if lo is None else np.where(x < lo, lo, x)
    m = m if hi is None else np.where(m > hi, hi, m)
    np.copyto(out, m, where=zero, casting="unsafe")


def _nan_rules(x, lo, hi, op, clauses):
    bounds = [np.asarray(b) for b in (lo, hi) if b is not None and b is not False]
    nan_bound = np.zeros((), bool)
    for b in bounds:
        isnan = np.isnan(b.astype(np.float64))
        if isnan.any():
            clauses.append("CL-NAN-BOUND")      # CL-NAN-BOUND: NaN out where a bound is NaN
            nan_bound = nan_bound | isnan
    with np.errstate(invalid="ignore"):
        if x.size == 0 or not np.isnan(np.min(x)):  # one reduction: NaN propagates through min
            return
    if (np.isnan(x.astype(np.float64)) & ~nan_bound).any():
        op.note("CL-GAP-NAN-X", "NaN in x where no bound is NaN: not stated (the natural value propagates NaN)")


def clip(x, min=None, max=None):
    """pypto clip(x, min, max): a new array; raises SpecError / Unspecified (with .natural) as documented."""
    outputs, _ = solve(np.asarray(x), as_bound(min), as_bound(max))
    return outputs["out"].value
