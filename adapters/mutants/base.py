"""The mutant base: the oracle adapter with one injected bug, and the small tools mutants share.

A mutant is built on the oracle's public behaviour only (`OracleAdapter.run`, the
functions of `oracle`, `Outcome`): it rewrites the case a user would pass (a wrong
reading of an argument), rewrites what the call gives back (a wrong dtype, a lost
write), or refuses a call (a wrong check).  That keeps each bug one small, readable
change, independent of how the oracle adapter lays out its tables.
"""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np

from contract.case import Case

from ..base import RAISED, RETURNED, Outcome
from ..oracle_adapter import OracleAdapter

_CLAUSE = re.compile(r"^\[([A-Z0-9-]+)\]")


class Mutant(OracleAdapter):
    """Base of every mutant: set `op`, give a one-line docstring naming the bug, a `witness()` and `call()`."""

    op = ""
    execution = "NumPy reference oracle with one injected bug (a selftest mutant)"
    # A mutant whose bug only a non-default layout shows declares `layouts` (adapters/layouts.py) and the
    # one its witness needs; the others' witnesses run in the default layout.
    witness_layout = ""
    # A mutant of a compiled mode whose bug lies where the documents leave the answer open declares
    # `compiled`: its eager twin is the unmutated oracle adapter, and what kills it is the mode-consistency
    # gate (suites/variants.py): a case where its answer differs from the twin's, whatever the judge admits.
    compiled = False

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.op:
            cls.ops = (cls.op,)
            cls.name = f"{cls.op}.{_kebab(cls.__name__)}"

    @classmethod
    def bug(cls) -> str:
        """The bug in one line: the docstring's first line."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def witness(cls) -> Case:
        """A small case on which this mutant must diverge from the oracle (tests/test_mutants.py)."""
        raise NotImplementedError

    def call(self, case) -> Outcome:
        raise NotImplementedError

    def run(self, case) -> Outcome:
        try:
            return self.call(case)
        except Exception as e:          # the bug made the implementation raise: reported like any framework's
            return Outcome.raised(e)

    def oracle(self, case) -> Outcome:
        """What the unmutated oracle adapter does with `case`."""
        return OracleAdapter.run(self, case)

    def checked(self, case, mutate) -> Outcome:
        """The oracle's own checks on `case` (its refusals stand), then the values computed from the case
        `mutate(case)` gives: a bug in the computation that leaves every documented check in place."""
        outcome = self.oracle(case)
        if outcome.kind != RETURNED:
            return outcome
        m = self.oracle(mutate(case))
        return with_arrays(outcome, **m.arrays) if m.kind == RETURNED else m

    def native_api(self, op, case=None) -> str:
        return f"{super().native_api(op, case)} [mutant {self.name}]"

    def repro(self, case) -> str:
        return f"# mutant {self.name}: {self.bug()}\n" + super().repro(case)


# ---- rewriting a case or an outcome -------------------------------------------------------------

def replace(case, inputs=None, params=None, drop=()) -> Case:
    """`case` with some inputs/params replaced (None values are dropped) and the names in `drop` removed."""
    ins = {k: v for k, v in case.inputs.items() if k not in drop}
    ps = {k: v for k, v in case.params.items() if k not in drop}
    for src, dst in ((inputs or {}, ins), (params or {}, ps)):
        for k, v in src.items():
            if v is None:
                dst.pop(k, None)
            else:
                dst[k] = v
    return Case(op=case.op, inputs=ins, params=ps, clauses=case.clauses, origin=case.origin, label=case.label)


def returned(outcome) -> bool:
    return outcome.kind == RETURNED


def with_arrays(outcome, **arrays) -> Outcome:
    """A returned outcome with some outputs replaced (None drops one); other outcomes pass through."""
    if outcome.kind != RETURNED:
        return outcome
    out = dict(outcome.arrays)
    for k, v in arrays.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return Outcome.returned(**out)


def spec_clause(outcome) -> str:
    """The clause of a documented error the oracle raised ("" for anything else): its message starts [CLAUSE]."""
    if outcome.kind != RAISED:
        return ""
    m = _CLAUSE.match(outcome.message)
    return m.group(1) if m else ""


def reraise_as(outcome, exc_class) -> Outcome:
    """The same refusal, raised as `exc_class` (a wrong exception class)."""
    return Outcome.raised(exc_class(outcome.message))


def toward_zero(exact, dtype) -> np.ndarray:
    """`exact` (float64) converted to the float `dtype` rounding toward zero, not to nearest.

    The nearest value is one step too far from zero exactly where it rounded away from zero; for IEEE
    formats (sign and magnitude) one step toward zero is the bit pattern minus one, also from inf to max.
    """
    exact = np.asarray(exact, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        near = exact.astype(dtype)
        away = np.isfinite(exact) & (np.abs(near.astype(np.float64)) > np.abs(exact))
    bits = near.view(f"u{near.dtype.itemsize}").copy()
    bits[away] -= 1
    return bits.view(near.dtype).reshape(exact.shape)


def flush_subnormals(outcome, *names) -> Outcome:
    """A returned outcome whose float outputs `names` have every subnormal replaced by a zero of its sign."""
    if outcome.kind != RETURNED:
        return outcome
    flushed = {}
    for name in names:
        a = outcome.arrays.get(name)
        if a is None or not (a.dtype.kind == "f" or str(a.dtype) == "bfloat16"):
            continue
        wide = a.astype(np.float64)
        tiny = float(ml_dtypes.finfo(a.dtype).smallest_normal)
        flushed[name] = np.where((wide != 0) & (np.abs(wide) < tiny), np.copysign(0.0, wide), wide).astype(a.dtype)
    return with_arrays(outcome, **flushed)


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()
