"""Scalar -> dtype conversions the ops share: exact where the dtype holds the value, else a finding."""
from __future__ import annotations

import math

import numpy as np

from .dtypes import dtype_name, is_float, is_int


def holds(dt, v) -> bool:
    """Whether dtype `dt` represents the Python number `v` (after IEEE rounding for floats: no overflow)."""
    dt = np.dtype(dt)
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
    """The 0-d array of `v` in `dt` (round to nearest for floats). Call `holds` first for ints."""
    with np.errstate(over="ignore", invalid="ignore"):
        if is_float(dt):
            return np.array(float(v), dtype=np.float64).astype(dt)
        return np.array(int(v), dtype=dt)


def is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
