"""where_positive mutants: `where_positive(x, y)` with one bug each."""
from __future__ import annotations

import numpy as np

from contract.case import Case

from .base import Mutant, reraise_as, returned, spec_clause, with_arrays


def _case(label, x, y):
    return Case(op="where_positive", inputs={"x": np.asarray(x), "y": np.asarray(y)}, params={},
                origin="regression", label=label)


class _WpMutant(Mutant):
    op = "where_positive"

    def picked(self, case, keep):
        outcome = self.oracle(case)
        x, y = case.inputs["x"], case.inputs["y"]
        return with_arrays(outcome, out=np.where(keep(x), x, y)) if returned(outcome) else outcome


class ZeroCountsAsPositive(_WpMutant):
    """x >= 0 in place of x > 0: a zero of x is kept."""

    @classmethod
    def witness(cls):
        return _case("x holds 0", np.array([0, 1], np.int32), np.array([7, 7], np.int32))

    def call(self, case):
        return self.picked(case, lambda x: x >= 0)


class NanKept(_WpMutant):
    """not (x <= 0) in place of x > 0: a NaN of x is kept."""

    @classmethod
    def witness(cls):
        return _case("x holds NaN", np.array([np.nan, 1], np.float32), np.array([7, 7], np.float32))

    def call(self, case):
        return self.picked(case, lambda x: ~(x <= 0))


class ShapesBroadcast(_WpMutant):
    """Shapes that differ but broadcast are accepted (NumPy's where) instead of raising ValueError."""

    @classmethod
    def witness(cls):
        return _case("y of shape [1]", np.array([-1, 2], np.int32), np.array([5], np.int32))

    def call(self, case):
        outcome, x, y = self.oracle(case), case.inputs["x"], case.inputs["y"]
        if spec_clause(outcome) != "WP-SHAPE" or x.dtype != y.dtype:
            return outcome
        return type(outcome).returned(out=np.where(x > 0, x, y))


class DtypeErrorIsValueError(_WpMutant):
    """Dtypes that differ raise ValueError, not TypeError."""

    @classmethod
    def witness(cls):
        return _case("y of int32", np.array([1.0], np.float32), np.array([1], np.int32))

    def call(self, case):
        outcome = self.oracle(case)
        return reraise_as(outcome, ValueError) if spec_clause(outcome) == "WP-DTYPE" else outcome
