"""setitem mutants: pypto `target[key] = value` with one bug each (docs/CASES.md, setitem).

Dropped, because the documents cannot tell them from the oracle (no verdict could kill them):
- a scalar into a target other than DT_INT32 accepted with its value: SI-VAL-S names no consequence (a
  precondition, docs/SPEC.md "Preconditions"), so accepting it with that value conforms.
- a negative slice stop taken as inclusive: a stop that disagrees with the value's extent is refused or
  ignored (SI-GAP-REGION, setitem.conflict.2: the value is assembled at the starts with its own extents),
  so with the value sized right the stop changes nothing a verdict can see.
- a value whose ndim differs from a mixed key's slice count squeezed: SI-MIXED-N names no consequence and
  gives no value then (any answer but a crash goes).
- slice steps, bool or tensor indices given NumPy's meaning: SI-STEP, SI-BOOL, SI-TINDEX are unsupported.
- a value of another dtype cast by truncation: SI-GAP-DTYPE; a region past the target clipped: SI-GAP-RANGE.
"""
from __future__ import annotations

import numpy as np

from contract.case import Alias, Case, view_of
from oracle.setitem import decode_key

from .base import Mutant, replace, returned, with_arrays

F32, I32 = np.float32, np.int32


def _slice(start=None, stop=None):
    return {"slice": [start, stop, None]}


def _case(label, target, key, value, **inputs):
    ins = {"target": np.asarray(target), **inputs}
    params = {"key": key}
    if isinstance(value, np.ndarray):
        ins["value"] = value
    else:
        params["value"] = value
    return Case(op="setitem", inputs=ins, params=params, origin="regression", label=label)


def _elems(key) -> list:
    return list(key["tuple"]) if isinstance(key, dict) and "tuple" in key else [key]


def _key(elems, like):
    """The key as data again, tuple or not as `like` was."""
    return {"tuple": elems} if isinstance(like, dict) and "tuple" in like else elems[0]


def _is_slice(e) -> bool:
    return isinstance(e, dict) and "slice" in e


def _is_int(e) -> bool:
    return isinstance(e, int) and not isinstance(e, bool)


def _axes(elems, ndim) -> list:
    """The target axis each key element addresses (None for Ellipsis)."""
    named = sum(e != "..." for e in elems)
    out, ax = [], 0
    for e in elems:
        if e == "...":
            out.append(None)
            ax += max(ndim - named, 0)
        else:
            out.append(ax)
            ax += 1
    return out


def _rekey(case, change):
    """The case with each key element e replaced by change(e, axis, axis length)."""
    key, target = case.params["key"], case.inputs["target"]
    elems = _elems(key)
    new = [change(e, ax, target.shape[ax] if ax is not None and ax < target.ndim else None)
           for e, ax in zip(elems, _axes(elems, target.ndim))]
    return replace(case, params={"key": _key(new, key)})


class _SetitemMutant(Mutant):
    op = "setitem"


class AssignsIntoCopy(_SetitemMutant):
    """The value is written into a copy of the region (a view that is a copy): the target keeps its values."""

    @classmethod
    def witness(cls):
        return _case("a[0, 1:3] = b", np.zeros((2, 4), F32), {"tuple": [0, _slice(1, 3)]}, np.ones(2, F32))

    def call(self, case):
        return with_arrays(self.oracle(case), target=case.inputs["target"])


class NumpyBroadcastAssign(_SetitemMutant):
    """Open slices run to the axis end and the value is broadcast in (NumPy's a[key] = v), not sized by the value."""

    @classmethod
    def witness(cls):
        return _case("a[0:, 0:] = b (2x2 into 4x4)", np.zeros((4, 4), F32),
                     {"tuple": [_slice(0), _slice(0)]}, np.ones((2, 2), F32))

    def call(self, case):
        outcome = self.oracle(case)
        if not returned(outcome) or "value" not in case.inputs or "tensor" in repr(case.params["key"]):
            return outcome      # the scatter form a[d:indices] has no NumPy meaning to fall into
        out = np.array(case.inputs["target"], copy=True)
        out[decode_key(case.params["key"], case.inputs)] = case.inputs["value"]
        return with_arrays(outcome, target=out)


class NegativeIndexRejected(_SetitemMutant):
    """A negative int index or slice bound is rejected instead of counting from the end."""

    @classmethod
    def witness(cls):
        return _case("a[-1, 0:2] = b", np.zeros((2, 4), F32), {"tuple": [-1, _slice(0, 2)]}, np.ones(2, F32))

    def call(self, case):
        for e in _elems(case.params["key"]):
            bounds = e["slice"][:2] if _is_slice(e) else [e]
            if any(_is_int(b) and b < 0 for b in bounds):
                raise IndexError(f"setitem: negative index in {e!r}")
        return self.oracle(case)


class StopAtSizeRejected(_SetitemMutant):
    """An explicit slice stop equal to the axis length is refused: the range check is off by one."""

    @classmethod
    def witness(cls):
        return _case("a[0, 2:4] = v on a 2x4 target", np.zeros((2, 4), F32), {"tuple": [0, _slice(2, 4)]},
                     np.ones(2, F32))

    def call(self, case):
        def check(e, ax, n):
            if _is_slice(e) and _is_int(e["slice"][1]) and n is not None and e["slice"][1] == n:
                raise IndexError(f"setitem: slice stop {n} out of range for an axis of {n}")
            return e
        _rekey(case, check)
        return self.oracle(case)


class EllipsisOneAxis(_SetitemMutant):
    """Ellipsis stands for exactly one axis (an open slice), whatever the number of axes it should cover."""

    @classmethod
    def witness(cls):
        return _case("a[..., 2:4] = b on a 2x2x4 target", np.zeros((2, 2, 4), F32),
                     {"tuple": ["...", _slice(2, 4)]}, np.ones((2, 2, 2), F32))

    def call(self, case):
        return self.oracle(_rekey(case, lambda e, ax, n: _slice() if e == "..." else e))


class ScatterFormAlongFirstDim(_SetitemMutant):
    """The scatter form a[d:indices] = v scatters along dim 0 whatever d is."""

    @classmethod
    def witness(cls):
        return _case("a[1:indices] = v", np.zeros((2, 2), F32), _slice(1, {"tensor": "indices"}),
                     np.array([[1, 2]], F32), indices=np.array([[1, 0]], I32))

    def call(self, case):
        key = case.params["key"]
        if _is_slice(key) and isinstance(key["slice"][1], dict) and _is_int(key["slice"][0]):
            return self.oracle(replace(case, params={"key": {"slice": [0, *key["slice"][1:]]}}))
        return self.oracle(case)


class OpenSliceStartIgnored(_SetitemMutant):
    """A slice with an open stop places the value at 0: a[0, 1:] = v writes v at a[0, 0:len(v)]."""

    @classmethod
    def witness(cls):
        return _case("a[0, 1:] = v", np.zeros((2, 4), F32), {"tuple": [0, _slice(1)]}, np.ones(2, F32))

    def call(self, case):
        def change(e, ax, n):
            if _is_slice(e) and e["slice"][1] is None and e["slice"][0] is not None:
                return {"slice": [None, None, e["slice"][2]]}
            return e
        return self.oracle(_rekey(case, change))


class EmptyValueRejected(_SetitemMutant):
    """A tensor value with a dim of size 0 is refused instead of assigning nothing."""

    @classmethod
    def witness(cls):
        return _case("a[0:, 0:] = v of shape (0, 3)", np.ones((2, 3), F32), {"tuple": [_slice(0), _slice(0)]},
                     np.zeros((0, 3), F32))

    def call(self, case):
        value = case.inputs.get("value")
        if value is not None and value.size == 0:
            raise ValueError("setitem: the value is empty")
        return self.oracle(case)


class ScalarPromotesTarget(_SetitemMutant):
    """A scalar assignment gives an int64 target: the Python int's dtype wins over the int32 target's."""

    @classmethod
    def witness(cls):
        return _case("a[2, 3] = 5", np.zeros((4, 4), I32), {"tuple": [2, 3]}, 5)

    def call(self, case):
        outcome = self.oracle(case)
        if returned(outcome) and "value" in case.params and outcome.arrays["target"].dtype == I32:
            return with_arrays(outcome, target=outcome.arrays["target"].astype(np.int64))
        return outcome


class WritesBeforeReadingAlias(_SetitemMutant):
    """A value that is a view of the target is read element by element while the region is written, in order, so an overlapping view gives back elements already overwritten."""

    @classmethod
    def witness(cls):
        # a[:, 1:4] = a[:, 0:3]: written forward, each element copies its left neighbour's new value
        target = np.arange(8, dtype=F32).reshape(2, 4)
        alias = Alias("target", ((None, None, 1), (0, 3, 1)))
        return Case(op="setitem", inputs={"target": target, "value": view_of(target, alias)},
                    params={"key": {"tuple": [_slice(), _slice(1, 4)]}}, origin="regression",
                    label="a[:, 1:4] = a[:, 0:3] (an overlapping view)", aliases={"value": alias})

    def call(self, case):
        outcome = self.oracle(case)
        alias = case.aliases.get("value")
        if not returned(outcome) or alias is None or alias.of != "target":
            return outcome
        target = np.array(case.inputs["target"], copy=True)
        region = target[decode_key(case.params["key"], case.inputs)]      # a view: writes land in target
        live = target[alias.key]                                           # the value, read as it is now
        if region.shape != live.shape:
            return outcome      # a value assembled at the starts (SI-GAP-REGION): not this bug's ground
        for i in np.ndindex(*region.shape):
            region[i] = live[i]
        return with_arrays(outcome, target=target)
