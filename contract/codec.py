"""JSON encodings shared by cases, the worker wire and the results files.

Arrays travel as {"dtype", "shape", "data": base64 of little-endian bytes} so
NaN payloads, -0.0, bf16 and int64 survive exactly.  Scalars that JSON cannot
hold (NaN, +-inf, -0.0) travel tagged as {"float": "nan"}.
"""
from __future__ import annotations

import base64
import math

import numpy as np

from .dtypes import dtype_from_name, dtype_name

# A declared shape is checked against this before anything is allocated, so a
# hostile file cannot make the reader allocate on a declared size alone.
MAX_ELEMENTS = 1 << 26


class CodecError(ValueError):
    """A value that does not decode; the message says what and why."""


def encode_array(a: np.ndarray) -> dict:
    a = np.asarray(a)
    le = a.astype(a.dtype.newbyteorder("<"), copy=False) if a.dtype.byteorder == ">" else a
    return {"dtype": dtype_name(a.dtype), "shape": list(a.shape),
            "data": base64.b64encode(np.ascontiguousarray(le).tobytes()).decode("ascii")}


def decode_array(obj) -> np.ndarray:
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise CodecError(f"an array must be an object with keys dtype, shape, data; got {_short(obj)}")
    try:
        dt = dtype_from_name(obj["dtype"])
    except (KeyError, TypeError) as e:
        raise CodecError(f"unknown dtype {_short(obj['dtype'])}") from e
    shape = obj["shape"]
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise CodecError(f"shape must be a list of non-negative ints; got {_short(shape)}")
    n = math.prod(shape)
    # NumPy refuses more than 32 dims, and an empty shape whose other dims overflow its size type.
    if n > MAX_ELEMENTS or len(shape) > 32 or math.prod(s for s in shape if s) > MAX_ELEMENTS:
        raise CodecError(f"declared shape {_short(shape)} has {n} elements, over the limit of {MAX_ELEMENTS}"
                         + (" (or too many dims)" if n <= MAX_ELEMENTS else ""))
    data = obj["data"]
    if not isinstance(data, str) or len(data) > 4 * (n * dt.itemsize + 2) // 3 + 4:
        raise CodecError(f"data must be base64 of {n * dt.itemsize} bytes for {obj['dtype']}{shape}")
    try:
        raw = base64.b64decode(data.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as e:
        raise CodecError(f"data is not valid base64: {e}") from e
    if len(raw) != n * dt.itemsize:
        raise CodecError(f"data has {len(raw)} bytes; {obj['dtype']}{shape} needs {n * dt.itemsize}")
    return np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt, copy=True).reshape(shape)


_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}


def encode_scalar(v):
    """int/bool/str/None pass through; floats JSON cannot hold exactly are tagged."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return {"float": "nan"}
        if math.isinf(f):
            return {"float": "inf" if f > 0 else "-inf"}
        if f == 0.0 and math.copysign(1.0, f) < 0:
            return {"float": "-0.0"}
        return f
    if v is None or isinstance(v, str):
        return v
    raise CodecError(f"not a JSON scalar: {v!r}")


def decode_scalar(v):
    if isinstance(v, dict):
        if set(v) != {"float"} or not isinstance(v["float"], str) or v["float"] not in _SPECIAL:
            raise CodecError(f"bad tagged scalar {_short(v)}")
        return _SPECIAL[v["float"]]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise CodecError(f"not a scalar: {_short(v)}")


def _short(obj, n=80) -> str:
    s = repr(obj)
    return s if len(s) <= n else s[: n - 3] + "..."
