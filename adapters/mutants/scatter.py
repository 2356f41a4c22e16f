"""scatter mutants: torch `input.scatter(dim, index, src)` / `scatter_` with one bug each (docs/CASES.md, scatter).

Dropped, because the documents cannot tell them from the oracle (no verdict could kill them):
- repeated targets resolved by the first write instead of the last: SC-DUP leaves the winner open.
- a negative dim rejected, or an index of int32 accepted: SC-GAP-DIM, SC-GAP-DTYPE leave both open.
- 1.23 written into an integer self truncated rather than rejected: SC-GAP-VALUE-CAST.
- an index out of range raising IndexError instead of RuntimeError: the document names no class for
  SC-RANGE (the transcript's RuntimeError is the repeated-index call's), so any class conforms.
- an index larger than self off dim not refused (its positions past self dropped): SC-SIZE-SELF names no
  consequence, so the call is unsupported and any outcome conforms.
"""
from __future__ import annotations

import math

import numpy as np

from contract.case import Case

from ..torch_adapter import from_torch, torch_in_layout
from ..layouts import LAYOUTS, STRIDED, contiguous_strides, plans
from .base import Mutant, replace, returned, toward_zero, with_arrays

F16, F32, I32, I64 = np.float16, np.float32, np.int32, np.int64


def _case(label, self_, dim, index, src=None, value=None, inplace=False):
    inputs = {"input": np.asarray(self_), "index": np.asarray(index, I64)}
    params = {"dim": dim, "inplace": inplace}
    if src is not None:
        inputs["src"] = np.asarray(src)
    else:
        params["value"] = value
    return Case(op="scatter", inputs=inputs, params=params, origin="regression", label=label)


def _dim(case):
    """The dim as an axis of self, or None where the dim is not a plain in-range int (SC-GAP-DIM)."""
    dim, ndim = case.params.get("dim"), case.inputs["input"].ndim
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < ndim:
        return None
    return dim


class _ScatterMutant(Mutant):
    op = "scatter"


class InplaceReturnsCopy(_ScatterMutant):
    """scatter_ writes into a copy: it returns the result but leaves self unchanged."""

    @classmethod
    def witness(cls):
        return _case("scatter_", np.zeros(3, F32), 0, [1], np.array([5], F32), inplace=True)

    def call(self, case):
        outcome = self.oracle(case)
        return with_arrays(outcome, input=case.inputs["input"]) if case.params.get("inplace") else outcome


class OutOfPlaceWritesSelf(_ScatterMutant):
    """scatter (out of place) also writes into self, as scatter_ does."""

    @classmethod
    def witness(cls):
        return _case("scatter", np.zeros(3, F32), 0, [1], np.array([5], F32))

    def call(self, case):
        outcome = self.oracle(case)
        if returned(outcome) and not case.params.get("inplace") and "out" in outcome.arrays:
            return with_arrays(outcome, input=outcome.arrays["out"])
        return outcome


class IndexEqualToSizeAccepted(_ScatterMutant):
    """The range check is off by one: an index equal to self.size(dim) passes (and wraps round to 0)."""

    @classmethod
    def witness(cls):
        return _case("index 3 on a dim of 3", np.zeros(3, F32), 0, [3], np.array([5], F32))

    def call(self, case):
        dim, index = _dim(case), case.inputs["index"]
        if dim is None or index.dtype.kind not in "iu":
            return self.oracle(case)
        n = case.inputs["input"].shape[dim]
        return self.oracle(replace(case, inputs={"index": np.where(index == n, 0, index).astype(index.dtype)}))


class NegativeIndexFromEnd(_ScatterMutant):
    """A negative index counts from the end, Python style, instead of raising RuntimeError."""

    @classmethod
    def witness(cls):
        return _case("index -1", np.zeros(3, F32), 0, [-1], np.array([5], F32))

    def call(self, case):
        dim, index = _dim(case), case.inputs["index"]
        if dim is None or index.dtype.kind != "i":
            return self.oracle(case)
        n = case.inputs["input"].shape[dim]
        wrapped = np.where((index < 0) & (index >= -n), index + n, index).astype(index.dtype)
        return self.oracle(replace(case, inputs={"index": wrapped}))


class SizeSrcUnchecked(_ScatterMutant):
    """An index larger than src is not refused (SC-SIZE-SRC): the src elements past its end read as zero."""

    @classmethod
    def witness(cls):
        return _case("index of 2, src of 1", np.zeros(3, F32), 0, [0, 2], np.array([5], F32))

    def call(self, case):
        src, index = case.inputs.get("src"), case.inputs["index"]
        if src is None or src.ndim != index.ndim:
            return self.oracle(case)
        padded = np.zeros(np.maximum(src.shape, index.shape), src.dtype)
        padded[tuple(slice(0, n) for n in src.shape)] = src
        return self.oracle(replace(case, inputs={"src": padded}))


class SrcReadAtTarget(_ScatterMutant):
    """src is read at the written position, not at the index position: scatter confused with gather."""

    @classmethod
    def witness(cls):
        return _case("dim 0, index [2, 0]", np.zeros(3, F32), 0, [2, 0], np.array([1, 2, 3], F32))

    def call(self, case):
        dim, src, index = _dim(case), case.inputs.get("src"), case.inputs["index"]
        if dim is None or src is None or src.ndim != index.ndim or index.dtype.kind not in "iu":
            return self.oracle(case)
        cut = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
        return self.checked(case, lambda c: replace(c, inputs={"src": np.take_along_axis(src[cut], index, axis=dim)}))


class DimCountedFromEnd(_ScatterMutant):
    """dim is counted from the last axis: dim 0 of a 2-d tensor scatters along axis 1."""

    @classmethod
    def witness(cls):
        return _case("2x2, dim 0", np.zeros((2, 2), F32), 0, [[1, 0]], np.array([[5, 6]], F32))

    def call(self, case):
        dim = _dim(case)
        if dim is None:
            return self.oracle(case)
        return self.checked(case, lambda c: replace(c, params={"dim": c.inputs["input"].ndim - 1 - dim}))


class ValueTruncated(_ScatterMutant):
    """The scalar of the value form becomes self's float dtype rounding toward zero, not to nearest."""

    @classmethod
    def witness(cls):
        # 1.23 lies between the float16 values 1.2294921875 and 1.23046875, nearer the upper one
        return _case("float16 self, value 1.23", np.zeros(2, F16), 0, [1], value=1.23)

    def call(self, case):
        value, self_ = case.params.get("value"), case.inputs["input"]
        float_self = self_.dtype.kind == "f" or str(self_.dtype) == "bfloat16"
        if not isinstance(value, float) or not math.isfinite(value) or not float_self:
            return self.oracle(case)
        return self.oracle(replace(case, params={"value": float(toward_zero(value, self_.dtype))}))


class IntegerSelfFloatValuePromoted(_ScatterMutant):
    """The value form with a float value on an integer self returns a float32 tensor."""

    @classmethod
    def witness(cls):
        return _case("int32 self, value 2.0", np.zeros(3, I32), 0, [1], value=2.0)

    def call(self, case):
        outcome = self.oracle(case)
        integer_self = case.inputs["input"].dtype.kind in "iu"
        if returned(outcome) and isinstance(case.params.get("value"), float) and integer_self:
            return with_arrays(outcome, out=outcome.arrays["out"].astype(F32))
        return outcome


class EmptyIndexRejected(_ScatterMutant):
    """An empty index (a dim of size 0) is refused instead of leaving self unchanged."""

    @classmethod
    def witness(cls):
        return _case("index of shape (0, 2)", np.zeros((2, 2), F32), 0, np.zeros((0, 2), I64), np.ones((1, 2), F32))

    def call(self, case):
        if case.inputs["index"].size == 0:
            raise RuntimeError("scatter(): index is empty")
        return self.oracle(case)


class SrcReadInStorageOrder(_ScatterMutant):
    """src is read in storage order from its first element (a kernel assuming a contiguous src), not in logical order."""

    # Only a non-default layout shows this bug: a contiguous src's storage order is its logical order.  So
    # the mutant builds src as torch does in each layout it declares (adapters/layouts.py), and the
    # selftest runs it in every one of them (suites/selftest.py).
    layouts = LAYOUTS
    witness_layout = STRIDED

    @classmethod
    def witness(cls):
        return _case("src (2, 3) read through a strided view", np.zeros((2, 3), F32), 1, [[0, 1, 2], [2, 1, 0]],
                     np.arange(1, 7, dtype=F32).reshape(2, 3))

    def call(self, case):
        src = case.inputs.get("src")
        plan = plans(self.layout, case).get("src") if src is not None else None
        if plan is None:
            return self.oracle(case)
        import torch  # noqa: F401  (the mutant's kernel is torch's tensor, read the buggy way)
        t = torch_in_layout(plan)
        read = from_torch(t.as_strided(t.shape, contiguous_strides(t.shape)))  # the bug: the view's strides ignored
        return self.checked(case, lambda c: replace(c, inputs={"src": read}))
