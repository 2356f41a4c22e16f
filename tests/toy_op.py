"""A toy op, `toy_abs(x)` (a name no real op takes), added the way docs/ADDING_AN_OP.md says, from outside the tree (tests/test_toy_op.py).

Everything about it is here: its OpSpec (document, two clauses, case contract, decoder, solver,
reference function), its strategy families and error case, and one candidate adapter with a bug.
`register()` adds it to the oracle's registry and the strategies; `unregister()` takes it out again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from adapters.base import Adapter, Outcome
from contract.expectation import ExpectedArray
from oracle import registry
from oracle.errors import SpecError
from oracle.opspec import Field, OpSpec, need_input
from suites import strategies
from suites.error_cases import error_case
from suites.strategies.common import array_of, make_case, pick, shape_of

OP = "toy_abs"
DTYPES = {"x": ("float32", "int32")}


# ---- the oracle side: oracle/toy_abs.py if it were shipped ------------------------------------------

@dataclass(frozen=True)
class AbsCall:
    x: object


def decode(case, inputs=None) -> AbsCall:
    return AbsCall(need_input(case, "x", inputs))


def solve(x):
    x = np.asarray(x)
    clauses = ("TOY-RULE",)
    if x.dtype == np.bool_:     # TOY-BOOL
        raise SpecError("TOY-BOOL", "TypeError", "abs of a bool tensor", clauses)
    return {"out": ExpectedArray(np.abs(x)), "x": ExpectedArray(x.copy())}, clauses


def absolute(x):
    """The reference function: a new array |x|; raises SpecError for a bool x."""
    return solve(x)[0]["out"].value


def call(case) -> dict:
    x = np.array(decode(case).x, copy=True)
    return {"out": absolute(x), "x": x}


SPEC = OpSpec(
    name=OP, source="toy.toy_abs.txt", title="a toy abs, for the test of adding an op",
    clause_rows=(("TOY-RULE", "sem", "Description", "y = |x| elementwise; returns a new tensor"),
                 ("TOY-BOOL", "err", "Raises", "a bool input: TypeError")),
    inputs=(Field("x", "the input"),), params=(),
    outputs=(Field("out", "what the call returned"), Field("x", "the input after the call (unchanged)")),
    decode=decode, solve=lambda case: solve(decode(case).x), reference=absolute, call=call,
    repro=lambda case, literal: (["out = oracle.toy_abs(x)"], [], {"out": "out", "x": "x"}), dtypes=DTYPES,
)


# ---- the suite side: suites/strategies/toy_abs.py ---------------------------------------------------

@st.composite
def values(draw):
    dt = pick(draw, DTYPES["x"])
    x = array_of(draw, dt, shape_of(draw, 1, 3), specials=False)
    return make_case(OP, {"x": x}, {}, f"abs of {dt} {list(x.shape)}")


@st.composite
def bools(draw):
    return make_case(OP, {"x": array_of(draw, "bool", shape_of(draw, 1, 2))}, {}, "abs of bools")


FAMILIES = {"values": values(), "bool": bools()}


def error_cases():
    return [error_case(OP, "TOY-BOOL", "TypeError", "a bool x", {"x": np.array([True, False])}, {})]


# ---- a candidate: one function in a framework adapter -------------------------------------------

class ForgetfulAbs(Adapter):
    """Forgets to negate: returns x itself, a bug the judge must report for every negative element."""
    name = "forgetful-toy-abs"
    ops = (OP,)

    def version(self) -> str:
        return "0.0"

    def run(self, case) -> Outcome:
        x = np.array(case.inputs["x"], copy=True)
        if x.dtype == np.bool_:
            return Outcome.raised(TypeError("bool"))
        return Outcome.returned(out=x.copy(), x=x)


def register() -> None:
    registry.register(SPEC)
    strategies.register(OP, FAMILIES, error_cases=error_cases)


def unregister() -> None:
    strategies.unregister(OP)
    registry.unregister(OP)
