"""The Adapter protocol vendors subclass, and the Outcome an adapter reports."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np

RETURNED, RAISED, CRASHED, TIMED_OUT, NOT_APPLICABLE = (
    "returned", "raised", "crashed", "timed_out", "not_applicable")


@dataclass
class Outcome:
    kind: str
    arrays: Mapping[str, np.ndarray] = field(default_factory=dict)   # RETURNED: named outputs (docs/CASES.md)
    exc_type: str = ""                 # RAISED: class name, e.g. "RuntimeError"
    exc_mro: tuple = ()                # RAISED: base class names, so a subclass of the documented class passes
    message: str = ""                  # RAISED: the message; NOT_APPLICABLE: the reason
    stderr: str = ""                   # what the framework logged (mindspore's [ERROR] reason)
    signal: Optional[int] = None       # CRASHED: the signal, or None for a non-signal exit
    seconds: float = 0.0               # TIMED_OUT: the limit that ran out
    native_api: str = ""               # the framework call that was made
    elapsed_s: float = 0.0             # time spent in the adapter's run()

    @classmethod
    def returned(cls, **arrays):
        return cls(RETURNED, arrays={k: np.asarray(v) for k, v in arrays.items()})

    @classmethod
    def raised(cls, exc: BaseException, stderr: str = ""):
        mro = tuple(c.__name__ for c in type(exc).__mro__)
        try:
            message = str(exc)
        except BaseException as e:   # a framework exception whose __str__ itself fails
            message = f"<str() of the {type(exc).__name__} raised {type(e).__name__}>"
        return cls(RAISED, exc_type=type(exc).__name__, exc_mro=mro, message=message[:4000], stderr=stderr)

    @classmethod
    def not_applicable(cls, reason: str):
        return cls(NOT_APPLICABLE, message=reason)


class Adapter:
    """Subclass this to put an implementation under test.

    `run` gets a Case (contract.case.Case: op, inputs as NumPy arrays, params as
    in docs/CASES.md), calls the framework's own API exactly as a user would,
    and returns an Outcome.  It must not validate, clamp or cast inputs on the
    framework's behalf; it must catch every exception the framework raises.
    """

    name = "base"
    execution = "Python"     # how values are computed, shown in reports (the harness adds how it is isolated)
    ops = ("setitem", "clip", "scatter", "scatter_nd_add", "set_")
    case_timeout = None                 # per-case default in seconds for this adapter (None: the runner's)
    # The ways this adapter can build its inputs, the documented user way first (the default).  A spec
    # `NAME@WAY` runs it with another one; `conform run --construction-check` compares them all.
    constructions: tuple = ()
    construction: str = ""

    def version(self) -> str:
        return "unknown"

    def available(self) -> tuple:
        """(True, "") or (False, why): a missing package, an unverified version..."""
        return True, ""

    def setup(self) -> None:
        """Called once in the worker before the first case (import the framework here, not at module import)."""

    def supports(self, op: str, dtypes=()) -> tuple:
        """(True, "") or (False, reason): only for ops/dtypes the framework has no mapping for at all."""
        return (op in self.ops), ("" if op in self.ops else f"{self.name} has no mapping for {op}")

    def native_api(self, op: str, case=None) -> str:
        return op

    def run(self, case) -> Outcome:
        raise NotImplementedError

    def repro(self, case, expectation=None) -> str:
        """A script in the framework's own syntax that makes the call and, given the oracle's Expectation
        (contract.expectation), checks the answer: it fails exactly when the case fails (adapters/repro.py).

        The default calls native_api(op, case) as a function of NumPy arrays, arguments in the documented
        order.  An override taking only (case) still works: it then gets no Expectation and checks nothing.
        """
        from .repro import generic_repro
        return generic_repro(case, self.native_api(case.op, case), expectation)
