"""The dtype table: names on the wire, NumPy dtypes, and each op's documented lists."""
from __future__ import annotations

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


def dtype_name(dt) -> str:
    dt = np.dtype(dt)
    try:
        return _BY_DTYPE[dt.newbyteorder("=") if dt.byteorder in "<>" else dt]
    except KeyError:
        raise KeyError(f"dtype {dt} is not one the suite knows ({', '.join(ALL)})") from None


def is_float(dt) -> bool:
    return dtype_name(dt) in FLOATS


def is_int(dt) -> bool:
    return dtype_name(dt) in INTS
