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
    unreadable, an aliased input of an op that lists no aliasing gap)."""
    spec = registry.spec(case.op)
    answer = _answer(spec, case)
    return _aliased(spec, case, answer) if case.aliases else answer


def _answer(spec, case) -> Expectation:
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


def _aliased(spec, case, exp: Expectation) -> Expectation:
    """The answer for a case with an input that is a view of another.  Where the call writes into no input
    (OpSpec.writes_nothing) it is the plain answer.  Elsewhere (opspec.ALIAS_GAP) the documents say
    nothing of aliasing, so the call may raise (any class), or must give exactly the value computed from
    the case's own arrays, which is the value as if the view had been copied first.  A documented error
    stays that error, an open value stays open: aliasing adds no freedom the clauses already fix."""
    unwritten = spec.writes_nothing(case) if spec.writes_nothing is not None else None
    if unwritten:
        # the call writes into no input: a view among them is read like any array, the value is fixed
        return Expectation(exp.kind, tuple(dict.fromkeys((*exp.clauses, unwritten))), exp.outputs,
                           error_clause=exp.error_clause, error_classes=exp.error_classes, message=exp.message)
    clause = spec.alias_clause
    if clause is None:
        raise ValueError(f"malformed {case.op} case {case.id}: input(s) {', '.join(sorted(case.aliases))} "
                         f"alias another, and {case.op} lists no aliasing gap ({spec.prefix}-...)")
    clauses = tuple(dict.fromkeys((*exp.clauses, clause)))
    views = "; ".join(f"{k} = {a.text()}" for k, a in sorted(case.aliases.items()))
    if exp.kind in (ERROR, UNSPECIFIED):
        return Expectation(exp.kind, clauses, exp.outputs, error_clause=exp.error_clause,
                           error_classes=exp.error_classes, message=exp.message)
    why = (f"{views}: the documents say nothing of aliased inputs ({clause}); raises, or the value as if "
           f"the view had been copied first")
    return Expectation(EITHER, clauses, exp.outputs, error_clause=clause, error_classes=(),
                       message=why if exp.kind == VALUE else f"{exp.message}; {why}")
