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

# pypto documents its dtypes as DT_*; the wire uses NumPy names.
PYPTO_NAMES = {"DT_FP32": "float32", "DT_FP16": "float16", "DT_BF16": "bfloat16",
               "DT_INT32": "int32", "DT_INT16": "int16", "DT_INT8": "int8",
               "DT_INT64": "int64", "DT_UINT8": "uint8", "DT_BOOL": "bool", "DT_FP64": "float64"}


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
    with np.errstate(over="ignore"):
        return bool(np.isfinite(np.array(v, dtype=np.float64).astype(dt)))


def to_dtype(dt, v) -> np.ndarray:
    """The 0-d array of `v` in `dt` (round to nearest, ties to even, for floats). Call `holds` first for ints."""
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype_name(dt) == "bfloat16":
            return _to_bfloat16(float(v))
        if is_float(dt):
            return np.array(float(v), dtype=np.float64).astype(dt)
        return np.array(int(v), dtype=dt)


def _to_bfloat16(v: float) -> np.ndarray:
    # ml_dtypes casts float64 to bfloat16 through float32, rounding twice: 1 + 2**-8 + 2**-40 lands on the
    # tie 1 + 2**-8 and then goes to 1.0, not to the nearer 1 + 2**-7.  Rounding to odd first (truncate to
    # float32, then set the last bit if anything was cut off) keeps the information the second rounding needs.
    f = np.array(v, dtype=np.float64).astype(np.float32)
    if math.isfinite(v) and float(f) != v:
        if abs(float(f)) > abs(v):
            f = np.nextafter(f, np.float32(0), dtype=np.float32)
        f = (np.asarray(f).view(np.uint32) | np.uint32(1)).view(np.float32)
    return np.asarray(f).astype(BFLOAT16)


def is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
