"""clip mutants: pypto `clip(x, min, max)` with one bug each (docs/CASES.md, clip).

Dropped, because the documents cannot tell them from the oracle (no verdict could kill them):
- NaN in x clamped to a bound: CL-GAP-NAN-X leaves NaN in x open, so any value is an extension.
- the sign of a zero result flipped (max(-0.0, 0.0) = -0.0): the formula leaves it open (reported, not failed).
- a BF16 input with a bound answered any way: CL-GAP-BF16.
- a scalar bound the dtype cannot hold (1.5 for INT32) rounded instead of truncated: CL-GAP-CAST.
- a bound of another dtype cast to the input's, and a scalar or Element beside a Tensor bound accepted:
  CL-BOUND-DTYPE and CL-SAME-KIND are preconditions with no stated consequence, so accepting them with the
  formula's value conforms (docs/SPEC.md, "Preconditions").
"""
from __future__ import annotations

import math

import numpy as np

from contract.case import Case
from contract.dtypes import dtype_from_name

from .base import Mutant, flush_subnormals, replace, returned, toward_zero, with_arrays

F16, F32, I32 = np.float16, np.float32, np.int32


def _case(label, x, lo=None, hi=None, **inputs):
    """A clip case: `lo`/`hi` are the min/max params, tensor bounds come as inputs min=/max=."""
    params = {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}
    return Case(op="clip", inputs={"x": np.asarray(x), **inputs}, params=params, origin="regression", label=label)


def _scalar(v):
    return {"kind": "float" if isinstance(v, float) else "int", "value": v}


_TENSOR = {"kind": "tensor"}


class _ClipMutant(Mutant):
    op = "clip"


class CrossedBoundsGiveMin(_ClipMutant):
    """Where min > max the result is min, not max: max(min(x, hi), lo) in place of min(max(x, lo), hi)."""

    @classmethod
    def witness(cls):
        return _case("min 8 > max 2", np.array([0, 5, 10], F32), _scalar(8.0), _scalar(2.0))

    def call(self, case):
        outcome = self.oracle(case)
        if not returned(outcome) or "min" not in case.params or "max" not in case.params:
            return outcome
        x = case.inputs["x"]
        # each bound in x's dtype and shape: max(lowest, lo) and min(highest, hi)
        lo = self.oracle(replace(case, inputs={"x": np.full(x.shape, _extreme(x.dtype, -1), x.dtype)}, drop=("max",)))
        hi = self.oracle(replace(case, inputs={"x": np.full(x.shape, _extreme(x.dtype, 1), x.dtype)}, drop=("min",)))
        if not (returned(lo) and returned(hi)):
            return outcome
        lo, hi = lo.arrays["out"], hi.arrays["out"]
        with np.errstate(invalid="ignore"):
            return with_arrays(outcome, out=np.where(lo > hi, lo, outcome.arrays["out"]))


def _extreme(dtype, sign):
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return info.max if sign > 0 else info.min
    return sign * math.inf


class NanBoundIgnored(_ClipMutant):
    """A NaN bound is skipped like an absent one (fmax/fmin semantics) instead of giving NaN."""

    @classmethod
    def witness(cls):
        return _case("min NaN", np.array([1, 2], F32), _scalar(math.nan), _scalar(5.0))

    def call(self, case):
        inputs, drop = {}, []
        for which, skip in (("min", -math.inf), ("max", math.inf)):
            spec = case.params.get(which)
            if spec is None:
                continue
            if spec["kind"] == "tensor":
                a = case.inputs[which]
                if a.dtype.kind == "f" or str(a.dtype) == "bfloat16":
                    inputs[which] = np.where(np.isnan(a.astype(np.float64)), np.array(skip, a.dtype), a)
            elif isinstance(spec["value"], float) and math.isnan(spec["value"]):
                drop.append(which)
        return self.checked(case, lambda c: replace(c, inputs=inputs, drop=drop))


class BoundBroadcastLeftAligned(_ClipMutant):
    """A Tensor bound of lower rank than x is broadcast from x's leading axes, not its trailing ones."""

    @classmethod
    def witness(cls):
        return _case("2x2 x, min of shape (2,)", np.array([[0, 5], [10, 15]], F32), _TENSOR,
                     min=np.array([1, 12], F32))

    def call(self, case):
        x, inputs = case.inputs["x"], {}
        for which in ("min", "max"):
            spec = case.params.get(which)
            if spec is not None and spec["kind"] == "tensor":
                a = case.inputs[which]
                if a.ndim < x.ndim:
                    inputs[which] = a.reshape(a.shape + (1,) * (x.ndim - a.ndim))
        return self.oracle(replace(case, inputs=inputs))


class Float16ResultPromoted(_ClipMutant):
    """A float16 input gives a float32 result: computed in float32 and never cast back."""

    @classmethod
    def witness(cls):
        return _case("float16 x", np.array([1, 2, 3], F16), _scalar(1.5), _scalar(2.5))

    def call(self, case):
        outcome = self.oracle(case)
        out = outcome.arrays.get("out") if returned(outcome) else None
        if out is not None and out.dtype == F16:
            return with_arrays(outcome, out=out.astype(F32))
        return outcome


class WritesIntoInput(_ClipMutant):
    """clip writes its result into x (an in-place clip_), though the input must stay unchanged."""

    @classmethod
    def witness(cls):
        return _case("x outside [2, 8]", np.array([0, 5, 10], F32), _scalar(2.0), _scalar(8.0))

    def call(self, case):
        outcome = self.oracle(case)
        if returned(outcome) and "out" in outcome.arrays:
            return with_arrays(outcome, x=outcome.arrays["out"])
        return outcome


class ScalarBoundTruncated(_ClipMutant):
    """A float scalar bound becomes the input's float dtype rounding toward zero, not to nearest."""

    @classmethod
    def witness(cls):
        # 0.7 lies between the float16 values 0.69970703125 and 0.7001953125, nearer the upper one
        return _case("float16 x, min 0.7", np.array([0.0, 1.0], F16), _scalar(0.7))

    def call(self, case):
        x, params = case.inputs["x"], {}
        for which in ("min", "max"):
            spec = case.params.get(which)
            if spec is None or spec["kind"] not in ("float", "element") or not isinstance(spec["value"], float):
                continue
            dt = np.dtype(x.dtype) if spec["kind"] == "float" else spec["dtype"]
            if str(dt) in ("float16", "bfloat16", "float32") and math.isfinite(spec["value"]):
                dtype = dtype_from_name(str(dt))
                params[which] = {**spec, "value": float(toward_zero(spec["value"], dtype))}
        return self.oracle(replace(case, params=params))


class InfiniteDefaultRejected(_ClipMutant):
    """An explicit default bound (min=-inf or max=+inf) is rejected as out of range."""

    @classmethod
    def witness(cls):
        return _case("float32 x, min -inf", np.array([1, 2], F32), _scalar(-math.inf), _scalar(1.5))

    def call(self, case):
        for which, default in (("min", -math.inf), ("max", math.inf)):
            spec = case.params.get(which)
            if spec is not None and spec["kind"] != "tensor" and spec["value"] == default:
                raise ValueError(f"clip: {which}={spec['value']} is out of range")
        return self.oracle(case)


class BoundDtypePromotes(_ClipMutant):
    """A bound of another dtype promotes the result to the wider dtype instead of keeping the input's (CL-DTYPE)."""

    @classmethod
    def witness(cls):
        return _case("int32 x, float32 min tensor", np.array([0, 3], I32), _TENSOR,
                     min=np.array([1, 1], F32))

    def call(self, case):
        outcome = self.oracle(case)
        x = case.inputs["x"]
        dts = [case.inputs[w].dtype if case.params[w]["kind"] == "tensor" else dtype_from_name(case.params[w]["dtype"])
               for w in ("min", "max") if case.params.get(w, {}).get("kind") in ("tensor", "element")]
        wide = np.result_type(x.dtype, *dts) if dts else x.dtype
        if not returned(outcome) or wide == x.dtype:
            return outcome
        return with_arrays(outcome, out=outcome.arrays["out"].astype(wide))


class IntMaxExclusive(_ClipMutant):
    """For integer inputs max is exclusive, as in range(): values are clipped to max - 1."""

    @classmethod
    def witness(cls):
        return _case("int32 x, clip(x, 2, 8)", np.array([0, 5, 10], I32), _scalar(2), _scalar(8))

    def call(self, case):
        x, spec = case.inputs["x"], case.params.get("max")
        if spec is None or x.dtype.kind != "i":
            return self.oracle(case)
        if spec["kind"] == "tensor":
            return self.checked(case, lambda c: replace(c, inputs={"max": _minus_one(c.inputs["max"])}))
        if isinstance(spec["value"], int):
            return self.checked(case, lambda c: replace(c, params={"max": {**spec, "value": spec["value"] - 1}}))
        return self.oracle(case)


def _minus_one(a):
    with np.errstate(all="ignore"):
        return a - np.ones((), a.dtype)


class FourDimsRejected(_ClipMutant):
    """The rank limit is off by one: a 4-d input (the documented maximum) is refused."""

    @classmethod
    def witness(cls):
        return _case("4-d x", np.zeros((1, 1, 1, 2), F32), _scalar(1.0), _scalar(2.0))

    def call(self, case):
        if case.inputs["x"].ndim >= 4:
            raise ValueError(f"clip: input of rank {case.inputs['x'].ndim}, at most 3 supported")
        return self.oracle(case)


class SubnormalFlushedToZero(_ClipMutant):
    """Subnormal results are flushed to zero (flush-to-zero arithmetic), though clip only selects values."""

    @classmethod
    def witness(cls):
        return _case("float32 x holding the smallest subnormal", np.array([2.0 ** -149, 1.0], F32),
                     _scalar(-1.0), _scalar(2.0))

    def call(self, case):
        return flush_subnormals(self.oracle(case), "out")


class Int32ClippedInFloat32(_ClipMutant):
    """INT32 inputs are clipped in float32 and cast back, losing every integer above 2**24."""

    @classmethod
    def witness(cls):
        return _case("int32 x of 2**24 + 1", np.array([2 ** 24 + 1, 0], I32), _scalar(0), _scalar(2 ** 30))

    def call(self, case):
        outcome = self.oracle(case)
        out = outcome.arrays.get("out") if returned(outcome) else None
        if out is None or out.dtype != I32:
            return outcome
        with np.errstate(all="ignore"):
            return with_arrays(outcome, out=out.astype(F32).astype(I32))


class CompiledWrapsBound(_ClipMutant):
    """Compiled, an int bound x's dtype cannot hold wraps into it (2**31 -> -2**31 in int32); eager refuses it."""

    compiled = True     # CL-GAP-CAST leaves such a bound open: alone it conforms, beside its eager twin it does not

    @classmethod
    def witness(cls):
        return _case("max 2**31 on int32", np.array([-7, 3, 9], I32), None, _scalar(2 ** 31))

    def call(self, case):
        x = case.inputs["x"]
        if x.dtype.kind not in "iu":
            return self.oracle(case)
        info, wrapped = np.iinfo(x.dtype), {}
        for name, p in case.params.items():
            if isinstance(p, dict) and p.get("kind") == "int" and not info.min <= p["value"] <= info.max:
                span = int(info.max) - int(info.min) + 1
                wrapped[name] = {**p, "value": (p["value"] - int(info.min)) % span + int(info.min)}
        return self.oracle(replace(case, params={**case.params, **wrapped}) if wrapped else case)
