"""The dtype table: names on the wire and NumPy dtypes (what each op's document lists: its OpSpec.dtypes)."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

_BY_NAME = {
    "bool": np.dtype(np.bool_),
    "int8": np.dtype(np.int8), "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32), "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "float16": np.dtype(np.float16), "bfloat16": BFLOAT16,
    "float32": np.dtype(np.float32), "float64": np.dtype(np.float64),
}
_BY_DTYPE = {v: k for k, v in _BY_NAME.items()}

ALL = tuple(_BY_NAME)
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8")

def dtype_from_name(name: str) -> np.dtype:
    return _BY_NAME[name]


def _as_dtype(dt) -> np.dtype:
    # A suite name resolves through this table, not NumPy's: importing mindspore re-registers
    # NumPy's "bfloat16" name to its own type, which is not ml_dtypes' bfloat16.
    return _BY_NAME[dt] if isinstance(dt, str) and dt in _BY_NAME else np.dtype(dt)


def dtype_name(dt) -> str:
    dt = _as_dtype(dt)
    try:
        return _BY_DTYPE[dt.newbyteorder("=") if dt.byteorder in "<>" else dt]
    except KeyError:
        raise KeyError(f"dtype {dt} is not one the suite knows ({', '.join(ALL)})") from None


def is_float(dt) -> bool:
    return dtype_name(dt) in FLOATS


def is_int(dt) -> bool:
    return dtype_name(dt) in INTS


# ---- scalar -> dtype conversions the ops share: exact where the dtype holds the value --------------

def holds(dt, v) -> bool:
    """Whether dtype `dt` represents the Python number `v` (after IEEE rounding for floats: no overflow)."""
    dt = _as_dtype(dt)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if dtype_name(dt) == "bool":
        return v in (0, 1)
    if is_int(dt):
        if isinstance(v, float) and (not math.isfinite(v) or v != int(v)):
            return False
        info = np.iinfo(dt)
        return info.min <= int(v) <= info.max
    # float dtypes: any finite value rounds to the nearest; one that rounds to inf overflowed
    if isinstance(v, float) and not math.isfinite(v):
        return True
    return bool(np.isfinite(cast(np.array(v, dtype=np.float64), dt)))


def holds_exactly(dt, v) -> bool:
    """Whether `dt` represents the Python number `v` without rounding (`holds`, and for a float dtype the
    value itself: NaN and the infinities are exact)."""
    return holds(dt, v) and (not is_float(dt) or not math.isfinite(v) or float(to_dtype(dt, v)) == v)


def to_dtype(dt, v) -> np.ndarray:
    """The 0-d array of `v` in `dt` (round to nearest, ties to even, for floats: once, bfloat16 too). Call
    `holds` first for ints."""
    if is_float(dt):
        return cast(np.array(float(v), dtype=np.float64), dt)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(int(v), dtype=dt)


def cast(a, dt) -> np.ndarray:
    """`a.astype(dt)`, the same whatever the ml_dtypes release, wherever bfloat16 is involved.

    ml_dtypes changed its bfloat16 casts between releases, and its release follows the NumPy major
    (0.5 and 0.6: bfloat16 -> uint8 wraps, NaN -> int64 is INT64_MIN, int32 and float64 -> bfloat16 round
    twice, through float32; 0.7: clamp, 0, round once).  The oracle's answers must not depend on the
    environment, so: bfloat16 -> an integer or bool is NumPy's cast of the same float32 (exact); anything
    -> bfloat16 is rounded once, to nearest even (through float64, exact up to 2**53 for integers, then
    _to_bfloat16).  Overflow gives inf, invalid casts NumPy's value, silently."""
    a = np.asarray(a)
    dt = _as_dtype(dt)
    with np.errstate(over="ignore", invalid="ignore"):
        if a.dtype == BFLOAT16 and not is_float(dt):
            return a.astype(np.float32).astype(dt)
        if dt == BFLOAT16 and a.dtype != BFLOAT16:
            return _to_bfloat16(a.astype(np.float64))
        return a.astype(dt, copy=False)


def converts_exactly(a, converted) -> bool:
    """Every value of `a` survived the conversion that gave `converted` (its `cast` to another dtype):
    cast back, each equals the original (NaN to NaN; a NaN or an infinity into an integer dtype does not)."""
    a, converted = np.asarray(a), np.asarray(converted)
    with np.errstate(invalid="ignore", over="ignore"):
        if is_float(a.dtype) and not is_float(converted.dtype) and not np.isfinite(a.astype(np.float64)).all():
            return False
        back = cast(converted, a.dtype)
    same = back == a
    if is_float(a.dtype) and is_float(converted.dtype):
        same |= np.isnan(a.astype(np.float64)) & np.isnan(back.astype(np.float64))
    return bool(np.all(same))


def _to_bfloat16(a: np.ndarray) -> np.ndarray:
    """float64 -> bfloat16 rounded once to nearest even: round to odd into float32 first (24 bits hold
    the 8 of bfloat16 and 2 more, so the second rounding, float32 -> bfloat16, which every ml_dtypes
    release does to nearest even, cannot fall on a false tie)."""
    f = a.astype(np.float32)
    inexact = (f.astype(np.float64) != a) & np.isfinite(f)
    even = (f.view(np.uint32) & 1) == 0
    fix = inexact & even        # the other float32 around a is odd: take it
    toward = np.where(a[fix] > f[fix], np.float32(np.inf), np.float32(-np.inf))
    f[fix] = np.nextafter(f[fix], toward)
    return f.astype(BFLOAT16)


def is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
