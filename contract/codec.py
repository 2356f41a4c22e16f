"""JSON encodings shared by cases, the worker wire and the results files.

Arrays travel as {"dtype", "shape", "data": base64 of little-endian bytes} so
NaN payloads, -0.0, bf16 and int64 survive exactly.  Scalars that JSON cannot
hold (NaN, +-inf, -0.0) travel tagged as {"float": "nan"}.
"""
from __future__ import annotations

import base64
import math

import numpy as np

from .dtypes import ALL as DTYPE_NAMES, dtype_from_name, dtype_name

# A declared shape is checked against these before anything is allocated or
# multiplied, so a hostile file cannot make a reader allocate on a declared size alone.
MAX_ELEMENTS = 1 << 26
MAX_DIMS = 32               # NumPy's own limit


class CodecError(ValueError):
    """A value that does not decode; the message says what and why."""


def encode_array(a: np.ndarray) -> dict:
    a = np.asarray(a)
    le = a.astype(a.dtype.newbyteorder("<"), copy=False) if a.dtype.byteorder == ">" else a
    return {"dtype": dtype_name(a.dtype), "shape": list(a.shape),
            "data": base64.b64encode(np.ascontiguousarray(le).tobytes()).decode("ascii")}


def declared_elements(shape):
    """The element count of a declared shape, or None when the shape is not a list of at most MAX_DIMS
    ints in 0..MAX_ELEMENTS or holds more than MAX_ELEMENTS elements (for an empty array: its nonzero
    dims, which NumPy must still fit in its size type).  Each dim is bounded before anything is
    multiplied, and the product stops at the limit, so no attacker int is ever multiplied."""
    if not isinstance(shape, list) or len(shape) > MAX_DIMS:
        return None
    if not all(type(s) is int and 0 <= s <= MAX_ELEMENTS for s in shape):
        return None
    nonzero = 1
    for s in shape:
        if s:
            nonzero *= s        # both factors are at most MAX_ELEMENTS here
            if nonzero > MAX_ELEMENTS:
                return None
    return 0 if 0 in shape else nonzero


def shape_problem(shape) -> str:
    """'' for a shape declared_elements accepts; else why not."""
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        return f"shape must be a list of non-negative ints; got {short(shape)}"
    if declared_elements(shape) is None:
        return (f"declared shape {short(shape)} is over the limit of {MAX_ELEMENTS} elements "
                f"and {MAX_DIMS} dims")
    return ""


def array_problem(obj) -> str:
    """'' when `obj` is a well-formed encoded array (keys, dtype, bounded shape, base64 of the right
    length); else what is wrong.  Nothing is decoded or allocated: a reader can check every array of a
    record this way and decode only the ones it shows."""
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        return f"an array must be an object with keys dtype, shape, data; got {short(obj)}"
    if not isinstance(obj["dtype"], str) or obj["dtype"] not in DTYPE_NAMES:
        return f"unknown dtype {short(obj['dtype'])}"
    shape = obj["shape"]
    problem = shape_problem(shape)
    if problem:
        return problem
    nbytes = declared_elements(shape) * dtype_from_name(obj["dtype"]).itemsize
    data = obj["data"]
    if not isinstance(data, str) or len(data) != 4 * -(-nbytes // 3):
        return f"data must be base64 of {nbytes} bytes for {obj['dtype']}{shape}; got {short(data, 40)}"
    return ""


def decode_array(obj) -> np.ndarray:
    problem = array_problem(obj)
    if problem:
        raise CodecError(problem)
    dt, shape = dtype_from_name(obj["dtype"]), obj["shape"]
    try:
        raw = base64.b64decode(obj["data"].encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as e:
        raise CodecError(f"data is not valid base64: {e}") from e
    n = declared_elements(shape)
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
            raise CodecError(f"bad tagged scalar {short(v)}")
        return _SPECIAL[v["float"]]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise CodecError(f"not a scalar: {short(v)}")


def short(obj, n=80) -> str:
    s = repr(obj)
    return s if len(s) <= n else s[: n - 3] + "..."
