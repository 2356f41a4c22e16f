"""set_ mutants: mindspore `self.set_(source, storage_offset, size, stride)` with one bug each (docs/CASES.md, set_).

Dropped, because the documents cannot tell them from the oracle (no verdict could kill them):
- storage_offset counted from the source tensor's own offset: the oracle's reading (absolute offset) is
  one the page does not fix, so a mutant on it would test the reading, not the page.
- set_() leaving self of shape (0, 0) rather than (0,): "an empty tensor" is both.
- set_(source, storage_offset=0) without size accepted or refused: ST-GAP-DEFAULT-ARG leaves it open.
"""
from __future__ import annotations

import numpy as np

from contract.case import Case

from .base import Mutant, replace, returned, reraise_as, spec_clause, with_arrays

F32, F64, I32 = np.float32, np.float64, np.int32


def _case(label, target, source, **params):
    inputs = {"target": np.asarray(target)}
    if source is not None:
        inputs["source"] = np.asarray(source)
    return Case(op="set_", inputs=inputs, params=params, origin="regression", label=label)


def _ints(v) -> bool:
    return isinstance(v, (list, tuple)) and all(isinstance(e, int) and not isinstance(e, bool) for e in v)


def _needed(params) -> int:
    """Storage elements the view of `size`/`stride`/`storage_offset` addresses (0 when empty); -1 if unreadable."""
    size, offset = params.get("size"), params.get("storage_offset", 0)
    stride = params.get("stride")
    if not _ints(size) or isinstance(offset, bool) or not isinstance(offset, int):
        return -1
    if stride is None:
        stride, acc = [], 1
        for n in reversed(size):
            stride.insert(0, acc)
            acc *= max(n, 1)
    if not _ints(stride) or len(stride) != len(size):
        return -1
    if 0 in size:
        return 0
    return offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1


class _SetMutant(Mutant):
    op = "set_"


class TensorSourceOffsetIgnored(_SetMutant):
    """set_(tensor) starts self at the storage's first element, ignoring the source view's own offset."""

    @classmethod
    def witness(cls):
        return _case("source at offset 2 of 6", np.zeros(3, F32), np.arange(6, dtype=F32), source_kind="tensor",
                     source_view={"offset": 2, "size": [3], "stride": [1]}, probe=9.0)

    def call(self, case):
        p = case.params
        view = p.get("source_view")
        if (p.get("source_kind") != "tensor" or not view or not view["offset"] or not _contiguous(view)
                or any(k in p for k in ("size", "storage_offset", "stride"))):
            return self.oracle(case)
        # implemented as set_(source, 0, source.size(), source.stride()): the same view, at offset 0
        return self.checked(case, lambda c: replace(c, params={"size": list(view["size"]),
                                                               "stride": list(view["stride"])}))


def _contiguous(view) -> bool:
    """Whether a source_view is row-major contiguous (size-1 axes may have any stride)."""
    expect = 1
    for n, s in zip(reversed(view["size"]), reversed(view["stride"])):
        if n == 0:
            return True
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


class ViewIsCopy(_SetMutant):
    """self gets a copy of the source's data, not its storage: a write through self does not reach the source."""

    @classmethod
    def witness(cls):
        return _case("set_(storage), then self.fill_(7)", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", probe=7.0)

    def call(self, case):
        outcome = self.oracle(case)
        if not returned(outcome) or case.params.get("probe") is None:
            return outcome
        unfilled = self.oracle(replace(case, drop=("probe",)))
        if not returned(unfilled) or "source_after_fill" not in unfilled.arrays:
            return outcome
        return with_arrays(outcome, source_after_fill=unfilled.arrays["source_after_fill"])


class StrideDefaultColumnMajor(_SetMutant):
    """With a size and no stride, the default stride is column-major (the first axis varies fastest)."""

    @classmethod
    def witness(cls):
        return _case("size [2, 3], no stride", np.zeros((2, 3), F32), np.arange(6, dtype=F32),
                     source_kind="storage", size=[2, 3])

    def call(self, case):
        size = case.params.get("size")
        if "stride" in case.params or not _ints(size) or len(size) < 2:
            return self.oracle(case)
        stride, acc = [], 1
        for n in size:
            stride.append(acc)
            acc *= max(n, 1)
        return self.checked(case, lambda c: replace(c, params={"stride": stride}))


class ExplicitStrideIgnored(_SetMutant):
    """An explicit stride is not passed on: the view always gets the contiguous strides of its size."""

    @classmethod
    def witness(cls):
        return _case("size [2, 2], stride [3, 1]", np.zeros((2, 2), F32), np.arange(6, dtype=F32),
                     source_kind="storage", size=[2, 2], stride=[3, 1])

    def call(self, case):
        if "stride" not in case.params or "size" not in case.params:
            return self.oracle(case)
        return self.checked(case, lambda c: replace(c, drop=("stride",)))


class ExplicitZeroOffsetRejected(_SetMutant):
    """An explicit storage_offset=0 (the default) is rejected as an unexpected argument."""

    @classmethod
    def witness(cls):
        return _case("storage_offset=0, size [3]", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", storage_offset=0, size=[3], stride=[1])

    def call(self, case):
        off = case.params.get("storage_offset")
        if isinstance(off, int) and not isinstance(off, bool) and off == 0:
            raise TypeError("set_(): storage_offset given without a reason")
        return self.oracle(case)


class BoundsCheckRejectsExactFit(_SetMutant):
    """The storage bounds check is off by one: a view that ends at the storage's last element is refused."""

    @classmethod
    def witness(cls):
        return _case("size [3] over 3 elements", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", size=[3], stride=[1])

    def call(self, case):
        outcome = self.oracle(case)
        if returned(outcome) and "source" in case.inputs and _needed(case.params) == case.inputs["source"].size:
            raise RuntimeError(f"set_(): the view needs {_needed(case.params)} elements, the storage has "
                               f"{case.inputs['source'].size}")
        return outcome


class BoundsCheckMissesLastElement(_SetMutant):
    """The storage bounds check is off by one: a view one element past the storage's end is accepted."""

    @classmethod
    def witness(cls):
        return _case("offset 1, size [3] over 3 elements", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", storage_offset=1, size=[3], stride=[1])

    def call(self, case):
        outcome = self.oracle(case)
        source = case.inputs.get("source")
        if spec_clause(outcome) != "ST-E-BOUNDS" or _needed(case.params) != source.size + 1:
            return outcome
        # the element past the end reads whatever lies there: zero here
        return self.oracle(replace(case, inputs={"source": np.concatenate([source, np.zeros(1, source.dtype)])}))


class NegativeOffsetWraps(_SetMutant):
    """A negative storage_offset is not refused: it counts from the end of the storage, Python style."""

    @classmethod
    def witness(cls):
        return _case("storage_offset -1", np.zeros(1, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", storage_offset=-1, size=[1], stride=[1])

    def call(self, case):
        outcome = self.oracle(case)
        if spec_clause(outcome) != "ST-E-OFFSET":
            return outcome
        n = case.inputs["source"].size
        return self.oracle(replace(case, params={"storage_offset": case.params["storage_offset"] % max(n, 1)}))


class BoundsErrorIsIndexError(_SetMutant):
    """A view past the end of the storage raises IndexError, not the documented RuntimeError."""

    @classmethod
    def witness(cls):
        return _case("offset 1, size [3] over 3 elements", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", storage_offset=1, size=[3], stride=[1])

    def call(self, case):
        outcome = self.oracle(case)
        return reraise_as(outcome, IndexError) if spec_clause(outcome) == "ST-E-BOUNDS" else outcome


class EightDimsRejected(_SetMutant):
    """The rank limit is off by one: a view of exactly 8 dims (the documented maximum) is refused."""

    @classmethod
    def witness(cls):
        return _case("size [1] * 8", np.zeros(1, F32), np.array([1, 2], F32), source_kind="storage",
                     size=[1] * 8, stride=[1] * 8)

    def call(self, case):
        size = case.params.get("size")
        if isinstance(size, (list, tuple)) and len(size) == 8:
            raise RuntimeError("set_(): at most 7 dims")
        return self.oracle(case)


class RankMismatchUnchecked(_SetMutant):
    """size and stride of different lengths are not refused: the extra entries are ignored (zip)."""

    @classmethod
    def witness(cls):
        return _case("size [3], stride [1, 1]", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="storage", size=[3], stride=[1, 1])

    def call(self, case):
        outcome = self.oracle(case)
        if spec_clause(outcome) != "ST-E-RANK":
            return outcome
        size, stride = case.params["size"], case.params["stride"]
        k = min(len(size), len(stride))
        return self.oracle(replace(case, params={"size": list(size[:k]), "stride": list(stride[:k])}))


class DeviceCheckMissing(_SetMutant):
    """A source on another device than self is not refused: its data is used as if it were on self's device."""

    @classmethod
    def witness(cls):
        return _case("source on another device", np.zeros(3, F32), np.array([1, 2, 3], F32),
                     source_kind="tensor", source_device="other")

    def call(self, case):
        outcome = self.oracle(case)
        if spec_clause(outcome) != "ST-E-DEVICE":
            return outcome
        return self.oracle(replace(case, drop=("source_device",)))


class DtypeCheckMissing(_SetMutant):
    """A source of another dtype than self is converted to self's dtype instead of refused (ST-E-DTYPE)."""

    @classmethod
    def witness(cls):
        # a Storage source: for a Tensor source the documents also admit sharing it (ST-GAP-EXAMPLE)
        return _case("float32 self, int32 storage", np.zeros(3, F32), np.array([1, 2, 3], I32), source_kind="storage")

    def call(self, case):
        outcome = self.oracle(case)
        if spec_clause(outcome) != "ST-E-DTYPE":
            return outcome
        with np.errstate(all="ignore"):
            source = case.inputs["source"].astype(case.inputs["target"].dtype)
        return self.oracle(replace(case, inputs={"source": source}))
