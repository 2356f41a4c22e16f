"""Case -> Expectation: ask the op's OpSpec (its decoder and solver), wrap the answer."""
from __future__ import annotations

from contract.case import Case
from contract.expectation import Expectation
from . import registry
from .errors import SpecError, Unspecified


def expect(case: Case) -> Expectation:
    """The spec's answer for a case: values with a rule, a documented error, or unspecified (+ natural value).

    Raises ValueError only for a malformed case (an unknown op, a required input or param missing or
    unreadable)."""
    spec = registry.spec(case.op)
    try:
        outputs, clauses = spec.solve(case)
    except SpecError as e:
        return Expectation("error", e.clauses, {}, error_clause=e.clause, error_class=e.documented,
                           message=e.message)
    except Unspecified as e:
        return Expectation("unspecified", e.clauses, _ordered(spec, e.natural), message=e.message)
    return Expectation("value", tuple(clauses), _ordered(spec, outputs))


def _ordered(spec, outputs):
    return {k: outputs[k] for k in spec.output_names if k in outputs}
