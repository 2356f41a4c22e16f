"""Case -> Expectation: ask the op's OpSpec (its decoder and solver), wrap the answer."""
from __future__ import annotations

from contract.case import Case
from contract.expectation import EITHER, ERROR, UNSPECIFIED, VALUE, Expectation
from . import registry
from .errors import Either, SpecError, Unspecified


def expect(case: Case) -> Expectation:
    """The spec's answer for a case: values with a rule, a documented error, 'raises or returns exactly
    these values', or unspecified (+ natural value).

    Raises ValueError only for a malformed case (an unknown op, a required input or param missing or
    unreadable)."""
    spec = registry.spec(case.op)
    try:
        outputs, clauses = spec.solve(case)
    except SpecError as e:
        return Expectation(ERROR, e.clauses, {}, error_clause=e.clause, error_classes=e.classes,
                           message=e.message)
    except Either as e:
        return Expectation(EITHER, e.clauses, _ordered(spec, e.outputs), error_clause=e.clause,
                           error_classes=e.classes, message=e.message)
    except Unspecified as e:
        return Expectation(UNSPECIFIED, e.clauses, _ordered(spec, e.natural), message=e.message)
    return Expectation(VALUE, tuple(clauses), _ordered(spec, outputs))


def _ordered(spec, outputs):
    return {k: outputs[k] for k in spec.output_names if k in outputs}
