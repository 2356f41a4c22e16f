"""Every worked example of the seed documents as a Case, with the output the document prints.

Inputs and outputs are typed in from ../shared/seeds/* (not computed), so the
oracle is checked against the document and not against itself.  Where a
document shows no output (a call that raised), the dict is empty and the
example's clauses say why.
"""
from __future__ import annotations

import numpy as np

from contract.case import Case

F32, I32, I64 = np.float32, np.int32, np.int64


def _a(rows, dt):
    return np.array(rows, dtype=dt)


def _ex(op, label, clauses, inputs, params, outputs):
    return Case(op=op, inputs=inputs, params=params, clauses=tuple(clauses), origin="doc-example",
                label=label), outputs


def _slice(start=None, stop=None):
    return {"slice": [start, stop, None]}


def setitem_examples():
    z44 = np.zeros((4, 4), F32)
    ten22, ten2 = np.full((2, 2), 10, F32), np.full((2,), 10, F32)
    a = _a([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]], I32)
    b = np.ones((4, 4), I32)
    return [
        _ex("setitem", "SI-EX-1 c[:] = a + b (empty slice, add kernel)", ["SI-EX-1", "SI-EMPTY"],
            {"target": np.zeros((4, 4), I32), "value": a + b}, {"key": _slice()},
            {"target": _a([[2, 3, 4, 5], [6, 7, 8, 9], [10, 11, 12, 13], [14, 15, 16, 17]], I32)}),
        _ex("setitem", "SI-EX-2 a[0:, 0:] = b (2x2 assembled into 4x4)", ["SI-EX-2", "SI-ASSEMBLE"],
            {"target": z44, "value": ten22}, {"key": {"tuple": [_slice(0), _slice(0)]}},
            {"target": _a([[10, 10, 0, 0], [10, 10, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], F32)}),
        _ex("setitem", "SI-EX-3 a[0, 1:3] = b (mixed key, b of shape [2])", ["SI-EX-3", "SI-MIXED"],
            {"target": z44, "value": ten2}, {"key": {"tuple": [0, _slice(1, 3)]}},
            {"target": _a([[0, 10, 10, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], F32)}),
        _ex("setitem", "SI-EX-4 a[-1, -3:-1] = b (negative indices)", ["SI-EX-4", "SI-NEG"],
            {"target": z44, "value": ten2}, {"key": {"tuple": [-1, _slice(-3, -1)]}},
            {"target": _a([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 10, 10, 0]], F32)}),
        _ex("setitem", "SI-EX-5 a[..., 2:4] = b (Ellipsis)", ["SI-EX-5", "SI-ELLIPSIS"],
            {"target": z44, "value": ten22}, {"key": {"tuple": ["...", _slice(2, 4)]}},
            {"target": _a([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 0, 0], [0, 0, 0, 0]], F32)}),
        _ex("setitem", "SI-EX-6 a[2, 3] = 5 (single element, DT_INT32)", ["SI-EX-6", "SI-VAL-S"],
            {"target": np.zeros((4, 4), I32)}, {"key": {"tuple": [2, 3]}, "value": 5},
            {"target": _a([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 5], [0, 0, 0, 0]], I32)}),
        _ex("setitem", "SI-EX-7 a[0:indices] = values (scatter form)", ["SI-EX-7", "SI-SCATTER"],
            {"target": z44, "indices": _a([[0, 1, 2, 3]], I32), "value": np.full((1, 4), 10, F32)},
            {"key": {"slice": [0, {"tensor": "indices"}, None]}},
            {"target": _a([[10, 0, 0, 0], [0, 10, 0, 0], [0, 0, 10, 0], [0, 0, 0, 10]], F32)}),
    ]


def clip_examples():
    return [
        _ex("clip", "CL-EX-1 clip(x, min, max) with tensor bounds", ["CL-EX-1", "CL-MIN-GT-MAX"],
            {"x": _a([[-2, 1, 2], [3, 4, 5]], I32), "min": _a([[-1, 0, 2], [0, 3, 5]], I32),
             "max": _a([[1, 2, 1], [4, 4, 4]], I32)},
            {"min": {"kind": "tensor"}, "max": {"kind": "tensor"}},
            {"out": _a([[-1, 1, 1], [3, 4, 4]], I32)}),
        _ex("clip", "CL-EX-2 clip(x, 1, 3) with scalar bounds", ["CL-EX-2", "CL-BOUND-TYPES"],
            {"x": _a([[0, 2, 4], [3, 4, 6]], I32)},
            {"min": {"kind": "int", "value": 1}, "max": {"kind": "int", "value": 3}},
            {"out": _a([[1, 2, 3], [3, 3, 3]], I32)}),
    ]


# torch.rand(2, 5) under seed 20200910, as the transcript prints it (4 decimals: the typed-in src)
_X = _a([[0.9817, 0.9880, 0.8879, 0.3911, 0.8532], [0.2367, 0.6074, 0.6374, 0.7830, 0.1322]], F32)


def scatter_examples():
    dup_index = _a([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]], I64)
    return [
        _ex("scatter", "SC-EX-1 zeros(3, 5).scatter_(0, index, x)", ["SC-EX-1", "SC-RULE"],
            {"input": np.zeros((3, 5), F32), "index": dup_index, "src": _X}, {"dim": 0, "inplace": True},
            {"out": _a([[0.9817, 0.6074, 0.6374, 0.3911, 0.8532], [0.0, 0.9880, 0.0, 0.7830, 0.0],
                        [0.2367, 0.0, 0.8879, 0.0, 0.1322]], F32)}),
        _ex("scatter", "SC-EX-2 zeros(2, 4).scatter_(1, [[2], [3]], 1.23)", ["SC-EX-2", "SC-VALUE"],
            {"input": np.zeros((2, 4), F32), "index": _a([[2], [3]], I64)},
            {"dim": 1, "value": 1.23, "inplace": True},
            {"out": _a([[0.0, 0.0, 1.23, 0.0], [0.0, 0.0, 0.0, 1.23]], F32)}),
        _ex("scatter", "SC-EX-3 zeros(3, 5).scatter_(1, [[0, 1, 2], [2, 0, 1]], x)", ["SC-EX-3", "SC-RULE"],
            {"input": np.zeros((3, 5), F32), "index": _a([[0, 1, 2], [2, 0, 1]], I64), "src": _X},
            {"dim": 1, "inplace": True},
            {"out": _a([[0.9817, 0.9880, 0.8879, 0.0, 0.0], [0.6074, 0.6374, 0.2367, 0.0, 0.0],
                        [0.0, 0.0, 0.0, 0.0, 0.0]], F32)}),
        # The transcript's failing call: repeats along dim 1; torch 1.2 raised "Invalid index in scatter".
        _ex("scatter", "SC-GAP-DUP-ERR zeros(3, 5).scatter_(1, index with repeats, x) raised in torch 1.2",
            ["SC-GAP-DUP-ERR", "SC-DUP"],
            {"input": np.zeros((3, 5), F32), "index": dup_index, "src": _X}, {"dim": 1, "inplace": True}, {}),
    ]


def scatter_nd_add_examples():
    upd2 = np.stack([np.repeat(np.arange(1, 5, dtype=I32)[:, None], 4, 1),
                     np.repeat(np.arange(5, 9, dtype=I32)[:, None], 4, 1)])
    out2 = np.zeros((4, 4, 4), I32)
    out2[0] = _a([[1] * 4, [2] * 4, [3] * 4, [4] * 4], I32)
    out2[2] = _a([[5] * 4, [6] * 4, [7] * 4, [8] * 4], I32)
    return [
        _ex("scatter_nd_add", "SNA-EX-1 1-D float32", ["SNA-EX-1", "SNA-RULE"],
            {"x": _a([1, 2, 3, 4, 5, 6, 7, 8], F32), "indices": _a([[2], [4], [1], [7]], I32),
             "updates": _a([6, 7, 8, 9], F32)}, {"use_locking": False},
            {"out": _a([1.0, 10.0, 9.0, 4.0, 12.0, 6.0, 7.0, 17.0], F32)}),
        _ex("scatter_nd_add", "SNA-EX-2 3-D int32, slices", ["SNA-EX-2", "SNA-RULE"],
            {"x": np.zeros((4, 4, 4), I32), "indices": _a([[0], [2]], I32), "updates": upd2},
            {"use_locking": False}, {"out": out2}),
    ]


def set_examples():
    # The page's own example: a float64 target (np.zeros) set_ to a float32 tensor, printed as [10., 20., 30.];
    # ST-E-DTYPE on the same page says this raises RuntimeError (ST-GAP-EXAMPLE).
    return [
        _ex("set_", "ST-EX-1 float64 target.set_(float32 data) printed [10., 20., 30.]",
            ["ST-EX-1", "ST-GAP-EXAMPLE", "ST-E-DTYPE"],
            {"target": np.zeros(3, np.float64), "source": _a([10, 20, 30], F32)}, {"source_kind": "tensor"},
            {"self": _a([10, 20, 30], F32)}),
    ]


def doc_examples() -> list:
    """[(Case, {output name: documented array})] for every worked example, in document order."""
    return (setitem_examples() + clip_examples() + scatter_examples() + scatter_nd_add_examples()
            + set_examples())
