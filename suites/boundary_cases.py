"""Small targeted cases for the boundary classes of each op's documented domain (oracle/*.DOMAIN).

The derandomized draw reaches most classes; these reach the rest on purpose,
one small case each where one will do: values a dtype must round (0.1, exact
ties whose even neighbour lies either way, a hair off a tie), the edges of
each dtype (smallest subnormal, largest finite, -0.0, NaN with a payload,
integer min/max), explicit defaults (step=1, ±inf bounds, a written-out
row-major stride) and the ends of each documented range (8 dims, offsets that
fit exactly).  Each value is built from the dtype's definition, not typed in,
and the inputs around a rounded value hold both of its neighbours, so a
conversion that goes the wrong way changes the output.

tests/test_domain_coverage.py checks that, with the rest of the corpus, every
class has a case; `conform selftest` shows which mutants they catch.
"""
from __future__ import annotations

import math

import numpy as np

from contract.case import Case
from contract.dtypes import BFLOAT16, FLOATS, dtype_from_name
from oracle.boundary import neighbours, tie_values

F16, F32, F64, I32, I64 = np.float16, np.float32, np.float64, np.int32, np.int64
NARROW = ("float16", "bfloat16")
PAYLOAD_BITS = {"float16": 0x7E01, "bfloat16": 0x7FC1, "float32": 0x7FC00001, "float64": 0x7FF8000000000001}
_UINT = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def _c(op, label, inputs, params) -> Case:
    """A case tagged with the clauses the oracle's answer to it cites, like every corpus case."""
    from .corpus import with_oracle_clauses
    return with_oracle_clauses(Case(op=op, inputs=inputs, params=params, origin="boundary", label=label))


def _arr(values, dt) -> np.ndarray:
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
    out = _arr([tiny, -tiny, big, -big, -0.0, 1.0], dt)
    return np.concatenate([out, payload_nan(dt).reshape(1)]) if nan else out


def int_edges(dt: str) -> np.ndarray:
    info = np.iinfo(dtype_from_name(dt))
    return np.array([info.min, info.max, 0, 1], dtype=dtype_from_name(dt))


def around(dt: str, v) -> np.ndarray:
    """The neighbours of `v` in `dt` and one step beyond each, ascending: the data that shows which way v rounded."""
    lo, hi = neighbours(dt, v)
    lo2, _ = neighbours(dt, lo - (hi - lo) / 2)
    _, hi2 = neighbours(dt, hi + (hi - lo) / 2)
    return _arr([lo2, lo, hi, hi2], dt)


# ---- setitem ---------------------------------------------------------------------------------

def _sl(start=None, stop=None, step=None):
    return {"slice": [start, stop, step]}


def _setitem():
    z4 = np.zeros(4, F32)
    v = np.array([1, 2, 3], F32)
    out = [
        _c("setitem", "a[1:3:1] = b: step 1 written out (the default)", {"target": z4, "value": v[:2]},
           {"key": _sl(1, 3, 1)}),
        _c("setitem", "a[0:2:1, 1:] = b: step 1 written out, 2-d", {"target": np.zeros((3, 3), F32),
                                                                  "value": np.ones((2, 2), F32)},
           {"key": {"tuple": [_sl(0, 2, 1), _sl(1)]}}),
        _c("setitem", "a[:-1] = b: open start, negative stop", {"target": z4, "value": v}, {"key": _sl(None, -1)}),
        _c("setitem", "a[5:] = b on 4 elements: start one past the end (SI-GAP-RANGE)",
           {"target": z4, "value": np.zeros(0, F32)}, {"key": _sl(5)}),
        _c("setitem", "a[()] = 5 on a 0-d int32 target: the empty key", {"target": np.array(3, I32)},
           {"key": {"tuple": []}, "value": 5}),
        _c("setitem", "a[0:indices] = values with index 4 on 4 rows (one past)",
           {"target": np.zeros((4, 4), F32), "indices": np.array([[0, 1, 2, 4]], I32),
            "value": np.full((1, 4), 10, F32)}, {"key": {"slice": [0, {"tensor": "indices"}, None]}}),
        _c("setitem", "a[0:indices] = values with index -1", {"target": np.zeros((4, 4), F32),
                                                               "indices": np.array([[0, -1, 2, 3]], I32),
                                                               "value": np.full((1, 4), 10, F32)},
           {"key": {"slice": [0, {"tensor": "indices"}, None]}}),
    ]
    for dt in FLOATS:       # data movement keeps every bit: the edges of each float dtype, moved whole
        e = float_edges(dt)
        out.append(_c("setitem", f"a[:] = {dt} edges (subnormal, max, -0.0, NaN payload)",
                      {"target": np.zeros(e.shape, e.dtype), "value": e}, {"key": _sl()}))
        out.append(_c("setitem", f"a[1:] = {dt} edges (assembled at 1)",
                      {"target": np.zeros(e.size + 1, e.dtype), "value": e}, {"key": {"tuple": [_sl(1)]}}))
    return out


# ---- clip ------------------------------------------------------------------------------------

def _scalar(v):
    return {"kind": "float" if isinstance(v, float) else "int", "value": v}


def _element(dt, v):
    return {"kind": "element", "dtype": dt, "value": v}


def _clip():
    inf = math.inf
    out = [
        # a scalar bound becomes an Element of x's dtype: to nearest, ties to even
        _c("clip", "float16 x, min 0.7 (between two float16 values, nearer the upper)",
           {"x": np.array([0.0, 1.0], F16)}, {"min": _scalar(0.7)}),
        _c("clip", "float16 x, max 1.23", {"x": np.array([0.0, 2.0], F16)}, {"max": _scalar(1.23)}),
        _c("clip", "float16 x, min 1+3*2**-11 (a tie; the even neighbour is the upper)",
           {"x": np.array([0.0, 2.0], F16)}, {"min": _scalar(1 + 3 * 2**-11)}),
        _c("clip", "float32 x, min 0.1, max 2.0", {"x": np.array([0.0, 1.0], F32)},
           {"min": _scalar(0.1), "max": _scalar(2.0)}),
        _c("clip", "float32 x, max -0.1", {"x": np.array([-1.0, 0.0], F32)}, {"max": _scalar(-0.1)}),
        # ±inf passed explicitly is the default: it must act as the omitted bound
        _c("clip", "float32 x, min -inf, max 1.5", {"x": np.array([1.0, 2.0], F32)},
           {"min": _scalar(-inf), "max": _scalar(1.5)}),
        _c("clip", "float16 x, min 0.5, max +inf", {"x": np.array([1.0, 2.0], F16)},
           {"min": _scalar(0.5), "max": _scalar(inf)}),
        _c("clip", "float32 x, max +inf only", {"x": np.array([1.0, -2.0], F32)}, {"max": _scalar(inf)}),
        _c("clip", "float32 x, min Element(float32, -inf), max Element(float32, 3.0)",
           {"x": np.array([1.0, 5.0], F32)}, {"min": _element("float32", -inf), "max": _element("float32", 3.0)}),
        _c("clip", "float16 x, max Element(float16, +inf)", {"x": np.array([1.0, 65504.0], F16)},
           {"max": _element("float16", inf)}),
        _c("clip", "float16 x, max 2049 (an int bound that is a float16 tie)",
           {"x": np.array([2048.0, 2050.0], F16)}, {"max": _scalar(2049)}),
    ]
    # the rest are 2-D (1 x n): every implementation here takes 2-D input (pypto.clip refuses 1-D)
    for dt in ("float16", "bfloat16", "float32"):
        for key, v in tie_values(dt).items():
            x = around(dt, v).reshape(1, -1)
            for which in ("min", "max"):
                out.append(_c("clip", f"{dt} x, {which} {v!r} ({key})", {"x": x}, {which: _scalar(v)}))
            if key != "inexact":
                out.append(_c("clip", f"{dt} x, min Element({dt}, {v!r}) ({key})", {"x": x}, {"min": _element(dt, v)}))
    for dt in ("float32", "float16", "bfloat16"):
        e = float_edges(dt, nan=False).reshape(1, -1)
        out.append(_c("clip", f"{dt} edges (subnormal, max, -0.0), bounds omitted", {"x": e}, {}))
        out.append(_c("clip", f"{dt} edges, NaN with a payload, bounds omitted", {"x": float_edges(dt).reshape(1, -1)},
                      {}))
        out.append(_c("clip", f"{dt} edges, min 0.0, max 1.0", {"x": e}, {"min": _scalar(0.0), "max": _scalar(1.0)}))
    for dt in ("int32", "int16"):
        out.append(_c("clip", f"{dt} min/max, min -1, max 1", {"x": int_edges(dt).reshape(1, -1)},
                      {"min": _scalar(-1), "max": _scalar(1)}))
    return out


# ---- scatter ---------------------------------------------------------------------------------

def _scatter():
    out = [
        _c("scatter", "self (0, 3), index (0, 2), dim 0: an empty axis", {
            "input": np.zeros((0, 3), F32), "index": np.zeros((0, 2), I64), "src": np.zeros((0, 2), F32)},
           {"dim": 0, "inplace": False}),
        _c("scatter", "self (0, 3), index (0, 2), dim 1, in place", {
            "input": np.zeros((0, 3), F32), "index": np.zeros((0, 2), I64), "src": np.zeros((0, 2), F32)},
           {"dim": 1, "inplace": True}),
    ]
    for dt in ("float16", "bfloat16", "float32"):
        for key, v in tie_values(dt).items():
            for inplace in (False, True):
                out.append(_c("scatter", f"{dt} self, value {v!r} ({key})", {
                    "input": np.zeros((2, 3), dtype_from_name(dt)), "index": np.array([[1], [2]], I64)},
                    {"dim": 1, "inplace": inplace, "value": v}))
    for dt in FLOATS:       # the edges of each float dtype moved from src into self, every bit kept
        e = float_edges(dt)
        perm = np.arange(e.size, dtype=I64)[::-1].copy()
        out.append(_c("scatter", f"{dt} src edges, reversed into self", {
            "input": np.ones(e.size, e.dtype), "index": perm, "src": e}, {"dim": 0, "inplace": False}))
    return out


# ---- scatter_nd_add --------------------------------------------------------------------------

def _scatter_nd_add():
    out = [
        _c("scatter_nd_add", "x (0, 3), indices (0, 1), updates (0, 3): an empty axis", {
            "x": np.zeros((0, 3), F32), "indices": np.zeros((0, 1), I32), "updates": np.zeros((0, 3), F32)},
           {"use_locking": False}),
        _c("scatter_nd_add", "float64 0.1 + 0.2 (the exact sum needs rounding)", {
            "x": np.array([0.1, 0.0], F64), "indices": np.array([[0]], I64), "updates": np.array([0.2], F64)}, {}),
    ]
    for dt in FLOATS:
        # 1 + half a spacing and (1 + a spacing) + half a spacing: exact ties of the sum, even down and up
        one = np.array(1.0, dtype=np.float64).astype(dtype_from_name(dt))
        lo, hi = neighbours(dt, float(one) + 2.0 ** -(1 + {"float16": 10, "bfloat16": 7, "float32": 23,
                                                          "float64": 52}[dt]))
        half = (hi - lo) / 2
        out.append(_c("scatter_nd_add", f"{dt} x[i] + half a spacing: sums on a tie, even down and up", {
            "x": _arr([lo, hi, 0.0], dt), "indices": np.array([[0], [1]], I32), "updates": _arr([half, half], dt)},
            {"use_locking": False}))
        e = float_edges(dt)
        out.append(_c("scatter_nd_add", f"{dt} edges in x and updates (subnormal, max, -0.0, NaN payload)", {
            "x": e, "indices": np.array([[5], [0]], I64), "updates": np.concatenate([e[[0]], e[[6]]])}, {}))
    for dt in ("int8", "int16"):
        e = int_edges(dt)
        out.append(_c("scatter_nd_add", f"{dt} min/max in x, +1 at the zero", {
            "x": e, "indices": np.array([[2]], I32), "updates": np.array([1], e.dtype)}, {}))
    return out


# ---- set_ ------------------------------------------------------------------------------------

def _set_():
    ar = lambda n, dt=F32: np.arange(n, dtype=dt)      # noqa: E731
    out = [
        # size of exactly 8 dims (the documented maximum) must be accepted
        _c("set_", "set_(storage arange(3), size=[1]*8, stride=[1]*8): 8 dims", {
            "target": np.zeros((1,) * 8, F32), "source": ar(3)},
           {"source_kind": "storage", "storage_offset": 0, "size": [1] * 8, "stride": [1] * 8, "probe": 7.0}),
        _c("set_", "set_(tensor arange(4), size=[2,1,1,1,1,1,1,2]): 8 dims, default stride", {
            "target": np.zeros((2, 1, 1, 1, 1, 1, 1, 2), F32), "source": ar(4)},
           {"source_kind": "tensor", "size": [2, 1, 1, 1, 1, 1, 1, 2], "probe": 7.0}),
        _c("set_", "set_(storage arange(4), storage_offset=1, size=[1]*7+[2], stride=[1]*8): 8 dims, fits exactly",
           {"target": np.zeros(2, F32), "source": ar(4)},
           {"source_kind": "storage", "storage_offset": 1, "size": [1] * 7 + [2], "stride": [1] * 8, "probe": 7.0}),
        # with a size and no stride the strides are row-major
        _c("set_", "set_(tensor arange(6), size=[2, 3]): row-major default stride", {
            "target": np.zeros((2, 3), F32), "source": ar(6)}, {"source_kind": "tensor", "size": [2, 3], "probe": 7.0}),
        _c("set_", "set_(storage arange(6), size=[3, 2]): row-major default stride", {
            "target": np.zeros((3, 2), F32), "source": ar(6)}, {"source_kind": "storage", "size": [3, 2], "probe": 7.0}),
        _c("set_", "set_(tensor arange(6), storage_offset=0, size=[2, 3]): row-major default stride", {
            "target": np.zeros((2, 3), F32), "source": ar(6)},
           {"source_kind": "tensor", "storage_offset": 0, "size": [2, 3], "probe": 7.0}),
        _c("set_", "set_(storage arange(6), storage_offset=0, size=[3, 2]): row-major default stride", {
            "target": np.zeros((3, 2), F32), "source": ar(6)},
           {"source_kind": "storage", "storage_offset": 0, "size": [3, 2], "probe": 7.0}),
        _c("set_", "set_(storage arange(6), 0, [2, 3], [3, 1]): the row-major stride written out", {
            "target": np.zeros((2, 3), F32), "source": ar(6)},
           {"source_kind": "storage", "storage_offset": 0, "size": [2, 3], "stride": [3, 1], "probe": 7.0}),
        _c("set_", "set_(storage arange(6), 1, [2, 2], [3, 1]): offset 1, the view ends on the last element", {
            "target": np.zeros(4, F32), "source": ar(6)},
           {"source_kind": "storage", "storage_offset": 1, "size": [2, 2], "stride": [3, 1], "probe": 7.0}),
    ]
    for dt in ("float16", "bfloat16", "float32"):
        for key, v in tie_values(dt).items():
            if key == "double":     # the probe is the harness's fill_, not set_'s own conversion
                continue
            out.append(_c("set_", f"set_({dt} storage), then fill_({v!r}) ({key})", {
                "target": np.zeros(3, dtype_from_name(dt)), "source": np.zeros(3, dtype_from_name(dt))},
                {"source_kind": "storage", "probe": v}))
    for dt in FLOATS:
        e = float_edges(dt)
        out.append(_c("set_", f"set_(tensor of {dt} edges): self sees every bit", {
            "target": np.zeros(e.size, e.dtype), "source": e}, {"source_kind": "tensor", "probe": 2.0}))
    for dt in ("int16", "int8"):
        e = int_edges(dt)
        out.append(_c("set_", f"set_(storage of {dt} min/max)", {"target": np.zeros(4, e.dtype), "source": e},
                      {"source_kind": "storage", "probe": 7}))
    return out


def cases() -> list:
    """Every targeted boundary case, in a fixed order."""
    return _setitem() + _clip() + _scatter() + _scatter_nd_add() + _set_()
