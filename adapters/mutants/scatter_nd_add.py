"""scatter_nd_add mutants: mindspore `scatter_nd_add(x, indices, updates, use_locking)` with one bug each.

Dropped, because the documents cannot tell them from the oracle (no verdict could kill them):
- repeated indices summed in another order, or in float16 throughout: the per-element bound admits every
  order of a correctly rounded sum (SNA-DUP leaves the order open).
- negative indices rejected, or counted from the end: SNA-GAP-RANGE.
- an integer sum that saturates at the dtype's limits: SNA-GAP-OVERFLOW.
- bool x summed as integers: SNA-GAP-DTYPE.
- a dtype difference raising RuntimeError instead of TypeError: SNA-CONVERT's reading admits it (SNA-GAP-CONVERT).
"""
from __future__ import annotations

import numpy as np

import oracle
from contract.case import Case

from .base import Mutant, flush_subnormals, replace, returned, toward_zero, with_arrays

F16, F32, F64, I16, I32, I64 = np.float16, np.float32, np.float64, np.int16, np.int32, np.int64


def _case(label, x, indices, updates, **params):
    return Case(op="scatter_nd_add", inputs={"x": np.asarray(x), "indices": np.asarray(indices),
                                             "updates": np.asarray(updates)},
                params=params, origin="regression", label=label)


def _rows(case):
    """(indices as (m, N), updates as (m, -1), N) when the shapes fit SNA-SHAPES, else None."""
    x, idx, upd = (case.inputs[k] for k in ("x", "indices", "updates"))
    if idx.ndim < 2 or idx.shape[-1] > x.ndim or upd.shape != idx.shape[:-1] + x.shape[idx.shape[-1]:]:
        return None
    n = idx.shape[-1]
    m = int(np.prod(idx.shape[:-1], dtype=np.int64))
    return idx.reshape(m, n), upd.reshape((m,) + x.shape[n:]), n


class _SnaMutant(Mutant):
    op = "scatter_nd_add"


class InPlaceUpdateLost(_SnaMutant):
    """x is not updated in place: the sum is returned in a new tensor and x keeps its values."""

    @classmethod
    def witness(cls):
        return _case("x[1] += 5", np.zeros(3, F32), np.array([[1]], I32), np.array([5], F32))

    def call(self, case):
        return with_arrays(self.oracle(case), x=case.inputs["x"])


class DuplicatesOverwrite(_SnaMutant):
    """Repeated indices overwrite instead of accumulating (x[idx] += u with fancy indexing: the last wins)."""

    @classmethod
    def witness(cls):
        return _case("index 0 twice", np.zeros(2, F32), np.array([[0], [0]], I32), np.array([1, 2], F32))

    def call(self, case):
        rows = _rows(case)
        if rows is None or rows[0].shape[0] < 2:
            return self.oracle(case)
        idx, upd, n = rows
        if n == 0:          # every row addresses all of x
            keep = np.array([idx.shape[0] - 1])
        else:               # the last occurrence of each index row: the first in reversed order
            _, first = np.unique(idx[::-1], axis=0, return_index=True)
            keep = np.sort(idx.shape[0] - 1 - first)
        return self.checked(case, lambda c: replace(c, inputs={"indices": idx[keep], "updates": upd[keep]}))


class LockingFalseRejected(_SnaMutant):
    """An explicit use_locking=False (the default) is rejected as if locking were unsupported."""

    @classmethod
    def witness(cls):
        return _case("use_locking=False", np.zeros(2, F32), np.array([[0]], I32), np.array([1], F32),
                     use_locking=False)

    def call(self, case):
        if case.params.get("use_locking", None) is False:
            raise TypeError("scatter_nd_add: use_locking=False is not supported")
        return self.oracle(case)


class LockTypeUnchecked(_SnaMutant):
    """A use_locking that is not a bool (1, 'False') is taken for its truth value instead of raising TypeError."""

    @classmethod
    def witness(cls):
        return _case("use_locking=1", np.zeros(2, F32), np.array([[0]], I32), np.array([1], F32), use_locking=1)

    def call(self, case):
        lock = case.params.get("use_locking")
        if lock is None or isinstance(lock, bool):
            return self.oracle(case)
        return self.oracle(replace(case, params={"use_locking": bool(lock)}))


class IndicesDtypeUnchecked(_SnaMutant):
    """Integer indices of any dtype (int16, uint8) are accepted instead of raising TypeError."""

    @classmethod
    def witness(cls):
        return _case("int16 indices", np.zeros(2, F32), np.array([[0]], I16), np.array([1], F32))

    def call(self, case):
        idx = case.inputs["indices"]
        if idx.dtype.kind in "iu" and str(idx.dtype) not in ("int32", "int64"):
            return self.oracle(replace(case, inputs={"indices": idx.astype(I64)}))
        return self.oracle(case)


class DtypeMismatchSumsInUpdatesDtype(_SnaMutant):
    """updates of another dtype are added, but the result takes updates' dtype instead of x's (SNA-RETURN)."""

    @classmethod
    def witness(cls):
        return _case("float16 updates into float32 x", np.zeros(2, F32), np.array([[0]], I32),
                     np.array([1], F16))

    def call(self, case):
        outcome = self.oracle(case)
        udt = case.inputs["updates"].dtype
        if not returned(outcome) or udt == case.inputs["x"].dtype:
            return outcome
        return with_arrays(outcome, out=outcome.arrays["out"].astype(udt), x=outcome.arrays["x"].astype(udt))


class UpdatesShapeUnchecked(_SnaMutant):
    """updates of the wrong shape but the right number of elements are reshaped instead of raising ValueError."""

    @classmethod
    def witness(cls):
        return _case("updates (2, 1) for 2 index rows", np.zeros(3, F32), np.array([[0], [2]], I32),
                     np.array([[1], [2]], F32))

    def call(self, case):
        x, idx, upd = (case.inputs[k] for k in ("x", "indices", "updates"))
        if idx.ndim >= 2 and idx.shape[-1] <= x.ndim:
            want = idx.shape[:-1] + x.shape[idx.shape[-1]:]
            if upd.shape != want and upd.size == int(np.prod(want, dtype=np.int64)):
                return self.oracle(replace(case, inputs={"updates": upd.reshape(want)}))
        return self.oracle(case)


class SumTruncated(_SnaMutant):
    """A float sum is rounded toward zero, not to nearest."""

    @classmethod
    def witness(cls):
        # 1 + 3/4 of float16's step at 1 (2**-10): nearest is 1 + 2**-10, toward zero 1
        return _case("float16 1 + 0.000732421875", np.ones(1, F16), np.array([[0]], I32),
                     np.array([0.000732421875], F16))

    def call(self, case):
        x, idx, upd = (case.inputs[k] for k in ("x", "indices", "updates"))
        outcome = self.oracle(case)
        if not returned(outcome) or str(x.dtype) not in ("float16", "bfloat16", "float32"):
            return outcome
        with np.errstate(all="ignore"):
            exact = oracle.scatter_nd_add(x.astype(F64), idx, upd.astype(F64))
        total = toward_zero(exact, x.dtype)
        return with_arrays(outcome, out=total, x=total)


class IndicesColumnMajor(_SnaMutant):
    """Index rows of two or more columns are linearised in column-major order (the strides of the wrong axes)."""

    @classmethod
    def witness(cls):
        return _case("x 2x3, x[0, 1] += 5", np.zeros((2, 3), F32), np.array([[0, 1]], I32), np.array([5], F32))

    def call(self, case):
        rows = _rows(case)
        if rows is None or rows[2] < 2 or rows[0].size == 0 or rows[0].min() < 0:
            return self.oracle(case)
        return self.checked(case, lambda c: replace(c, inputs={"indices": _column_major(c)}))


def _column_major(case):
    """The indices that address, in row-major x, the rows the column-major linearisation picks."""
    idx, _, n = _rows(case)
    lead = case.inputs["x"].shape[:n]
    flat = np.ravel_multi_index(tuple(idx.T.astype(np.intp)), lead, order="F")
    wrong = np.stack(np.unravel_index(flat, lead), axis=-1).astype(idx.dtype)
    return wrong.reshape(case.inputs["indices"].shape)


class EmptyIndicesRejected(_SnaMutant):
    """indices with no rows (a leading dim of size 0) are refused instead of leaving x unchanged."""

    @classmethod
    def witness(cls):
        return _case("indices of shape (0, 1)", np.ones(2, F32), np.zeros((0, 1), I32), np.zeros(0, F32))

    def call(self, case):
        idx = case.inputs["indices"]
        if idx.ndim >= 2 and 0 in idx.shape[:-1]:
            raise ValueError("scatter_nd_add: indices is empty")
        return self.oracle(case)


class Int32ResultPromoted(_SnaMutant):
    """An int32 x gives an int64 result: accumulated in int64 and never cast back."""

    @classmethod
    def witness(cls):
        return _case("int32 x", np.zeros(2, I32), np.array([[0]], I32), np.array([1], I32))

    def call(self, case):
        outcome = self.oracle(case)
        out = outcome.arrays.get("out") if returned(outcome) else None
        if out is not None and out.dtype == I32:
            return with_arrays(outcome, out=out.astype(I64))
        return outcome


class SubnormalSumFlushed(_SnaMutant):
    """A subnormal sum is flushed to zero (flush-to-zero arithmetic) instead of kept."""

    @classmethod
    def witness(cls):
        return _case("float32 0 + the smallest subnormal", np.zeros(1, F32), np.array([[0]], I32),
                     np.array([2.0 ** -149], F32))

    def call(self, case):
        return flush_subnormals(self.oracle(case), "out", "x")
