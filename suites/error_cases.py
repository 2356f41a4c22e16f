"""Documented errors as data: an input, the `err` clause it breaks, and the exception class the document names.

Each entry starts from the op's own doc example where there is one and breaks
exactly one rule, so the error it must raise is the documented one and no
other.  `exception` is None where the source document names no class.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from contract.case import Case

F32, I32, I64 = np.float32, np.int32, np.int64


@dataclass(frozen=True)
class ErrorCase:
    case: Case
    clause: str                  # the err clause that decides the error
    exception: Optional[str]     # the class the source document names for it (None: it names none)


def _e(op, clause, exception, label, inputs, params, also=()) -> ErrorCase:
    case = Case(op=op, inputs=inputs, params=params, clauses=(clause, *also), origin="error-case",
                label=f"{clause}: {label}")
    return ErrorCase(case, clause, exception)


def _setitem():
    a = np.zeros((4, 4), F32)
    key = {"tuple": [0, {"slice": [1, 3, None]}]}          # the doc's a[0, 1:3] = b
    return [
        _e("setitem", "SI-MIXED-N", None, "a[0, 1:3] = b with b of shape (1, 2)",
           {"target": a, "value": np.full((1, 2), 10, F32)}, {"key": key}),
        _e("setitem", "SI-MIXED-N", None, "a[0, 0:2, 1] = b with b of shape (2, 1)",
           {"target": np.zeros((2, 3, 4), F32), "value": np.ones((2, 1), F32)},
           {"key": {"tuple": [0, {"slice": [0, 2, None]}, 1]}}),
    ]


def _clip():
    x = np.array([[-2, 1, 2], [3, 4, 5]], I32)                # the doc's first example
    lo = np.array([[-1, 0, 2], [0, 3, 5]], I32)
    hi = np.array([[1, 2, 1], [4, 4, 4]], I32)
    tensor = {"kind": "tensor"}
    return [
        _e("clip", "CL-BOUND-DTYPE", None, "int32 x, float32 min tensor",
           {"x": x, "min": lo.astype(F32), "max": hi}, {"min": tensor, "max": tensor}),
        _e("clip", "CL-BOUND-DTYPE", None, "float32 x, Element(int16) max",
           {"x": x.astype(F32)}, {"min": {"kind": "element", "dtype": "float32", "value": 0.0},
                                  "max": {"kind": "element", "dtype": "int16", "value": 3}}),
        _e("clip", "CL-SAME-KIND", None, "min=1 (an Element), max a Tensor",
           {"x": np.array([[0, 2, 4], [3, 4, 6]], I32), "max": hi}, {"min": {"kind": "int", "value": 1},
                                                                    "max": tensor}),
        _e("clip", "CL-SAME-KIND", None, "min a Tensor, max an Element",
           {"x": x, "min": lo}, {"min": tensor, "max": {"kind": "element", "dtype": "int32", "value": 4}}),
    ]


def _scatter():
    src = np.arange(1, 11, dtype=F32).reshape(2, 5)
    index = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]], I64)  # the doc's dim-0 example
    base = {"input": np.zeros((3, 5), F32), "index": index, "src": src}
    p = {"dim": 0, "inplace": True}
    # SC-RANGE's class: the source's transcript shows torch's "RuntimeError: Invalid index in scatter"
    return [
        _e("scatter", "SC-NDIM", None, "1-D index into a 2-D self", {**base, "index": index[0]}, p),
        _e("scatter", "SC-NDIM", None, "3-D src", {**base, "src": src[None]}, p),
        _e("scatter", "SC-RANGE", "RuntimeError", "index 3 on a dim of size 3",
           {**base, "index": np.array([[0, 1, 2, 0, 3], [2, 0, 0, 1, 2]], I64)}, p),
        _e("scatter", "SC-RANGE", "RuntimeError", "index -1",
           {**base, "index": np.array([[0, 1, 2, 0, -1], [2, 0, 0, 1, 2]], I64)}, p),
        _e("scatter", "SC-RANGE", "RuntimeError", "index 2**32 (wraps to 0 in 32 bits)",
           {**base, "index": np.array([[0, 1, 2, 0, 2**32], [2, 0, 0, 1, 2]], I64)}, p),
        _e("scatter", "SC-SIZE-SRC", None, "index 2x5, src 2x4", {**base, "src": src[:, :4]}, p),
        _e("scatter", "SC-SIZE-SELF", None, "index 2x6, self 3x5 (dim 0)",
           {**base, "index": np.zeros((2, 6), I64), "src": np.ones((2, 6), F32)}, p),
    ]


def _scatter_nd_add():
    x = np.array([1, 2, 3, 4, 5, 6, 7, 8], F32)               # the doc's first example
    idx = np.array([[2], [4], [1], [7]], I32)
    upd = np.array([6, 7, 8, 9], F32)
    base = {"x": x, "indices": idx, "updates": upd}
    lock = {"use_locking": False}
    return [
        _e("scatter_nd_add", "SNA-IDX-DTYPE", "TypeError", "float32 indices",
           {**base, "indices": idx.astype(F32)}, lock),
        _e("scatter_nd_add", "SNA-IDX-DTYPE", "TypeError", "int16 indices",
           {**base, "indices": idx.astype(np.int16)}, lock),
        _e("scatter_nd_add", "SNA-DTYPE", "TypeError", "float16 updates into float32 x",
           {**base, "updates": upd.astype(np.float16)}, lock),
        _e("scatter_nd_add", "SNA-LOCK", "TypeError", "use_locking=1", base, {"use_locking": 1}),
        _e("scatter_nd_add", "SNA-LOCK", "TypeError", "use_locking='False'", base, {"use_locking": "False"}),
        _e("scatter_nd_add", "SNA-UPD-SHAPE", "ValueError", "updates of shape (3,) for 4 index rows",
           {**base, "updates": upd[:3]}, lock),
        _e("scatter_nd_add", "SNA-UPD-SHAPE", "ValueError", "updates of shape (4, 1)",
           {**base, "updates": upd[:, None]}, lock),
        # SNA-CONVERT's RuntimeError presumes an implicit conversion that SNA-DTYPE's TypeError forbids
        # for every dtype difference (SNA-GAP-CONVERT): the explicit TypeError rule decides
        _e("scatter_nd_add", "SNA-DTYPE", "TypeError", "bool updates into int32 x (no conversion: SNA-CONVERT)",
           {"x": x.astype(I32), "indices": idx, "updates": np.array([True, False, True, True])}, lock,
           also=("SNA-CONVERT", "SNA-GAP-CONVERT")),
    ]


def _set_():
    target = np.zeros(3, np.float32)
    data = np.array([10, 20, 30], F32)
    view = {"storage_offset": 0, "size": [3], "stride": [1], "probe": 7.5}

    def st(label, clause, exc, params, source=data, tgt=target):
        return _e("set_", clause, exc, label, {"target": tgt, "source": source}, params)

    return [
        st("storage_offset='0'", "ST-E-TYPE", "TypeError", {"source_kind": "storage", **view, "storage_offset": "0"}),
        st("size=3 (an int)", "ST-E-TYPE", "TypeError", {"source_kind": "tensor", **view, "size": 3}),
        st("offset 1 with self's size [3] over 3 elements", "ST-E-BOUNDS", "RuntimeError",
           {"source_kind": "storage", **view, "storage_offset": 1}),
        st("offset 2**62 with self's size", "ST-E-BOUNDS", "RuntimeError",
           {"source_kind": "tensor", **view, "storage_offset": 2**62}),
        st("storage_offset -1", "ST-E-OFFSET", "RuntimeError", {"source_kind": "storage", **view,
                                                                "storage_offset": -1}),
        st("size [-1]", "ST-E-NEGSIZE", "RuntimeError", {"source_kind": "storage", **view, "size": [-1]}),
        st("stride [-1]", "ST-E-NEGSTRIDE", "RuntimeError", {"source_kind": "storage", **view, "stride": [-1]}),
        st("size [3], stride [1, 1]", "ST-E-RANK", "RuntimeError", {"source_kind": "storage", **view,
                                                                    "stride": [1, 1]}),
        st("9 dims", "ST-E-MAXDIM", "RuntimeError", {"source_kind": "storage", **view, "size": [1] * 9,
                                                     "stride": [1] * 9}),
        st("transposed 2x2 source with size/stride", "ST-E-NONCONTIG", "RuntimeError",
           {"source_kind": "tensor", "source_view": {"offset": 0, "size": [2, 2], "stride": [1, 2]},
            **view, "size": [2], "stride": [1]}, source=np.array([1, 2, 3, 4], F32)),
        st("set_(tensor) int32 source into float32 self", "ST-E-DTYPE", "RuntimeError",
           {"source_kind": "tensor", "probe": 7.5}, source=data.astype(I32)),
        st("set_(storage) float64 storage into float32 self", "ST-E-DTYPE", "RuntimeError",
           {"source_kind": "storage", "probe": 7.5}, source=data.astype(np.float64)),
        st("set_(tensor) with the source on another device", "ST-E-DEVICE", "RuntimeError",
           {"source_kind": "tensor", "source_device": "other", "probe": 7.5}),
    ]


def error_cases() -> list:
    """Every documented error as an ErrorCase, in a fixed order."""
    return _setitem() + _clip() + _scatter() + _scatter_nd_add() + _set_()


def cases() -> list:
    return [e.case for e in error_cases()]
