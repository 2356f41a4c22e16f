"""The strategies reach every sem/err/uns clause, make only well-formed cases tagged by the oracle alone, and
those survive JSON.

Cases come from a derandomized draw of every family (the same draw on every
run), so a failure here names a case that can be rebuilt exactly.
"""
import json
import math

import numpy as np
import pytest

import oracle
from contract.case import Case
from contract.dtypes import ALL
from oracle import registry
from oracle.clauses import CLAUSES
from oracle.errors import class_names
from suites import strategies
from suites.corpus import draw_examples
from suites.strategies import all_error_cases as error_cases
from suites.strategies import all_cases, cases, families

PER_FAMILY = 8
UNREACHABLE = set()
REQUIRED = sorted(c.id for c in CLAUSES.values()
                  if c.kind in ("sem", "err", "uns") and not c.added and c.id not in UNREACHABLE)
ERR = sorted(c.id for c in CLAUSES.values() if c.kind == "err" and c.id not in UNREACHABLE)



@pytest.fixture(scope="module")
def drawn():
    """(op, family, case) for PER_FAMILY derandomized draws of every family."""
    return [(op, name, case) for op in strategies.ops() for name, strat in families(op).items()
            for case in draw_examples(strat, PER_FAMILY)]


@pytest.fixture(scope="module")
def oracle_answers(drawn):
    """(answered, crashed): (op, family, case, Expectation) per case, and (case, exception) where the oracle broke."""
    answered, crashed = [], []
    for op, name, case in drawn:
        try:
            answered.append((op, name, case, oracle.expect(case)))
        except Exception as e:          # reported by test_oracle_answers_every_case, not hidden
            crashed.append((case, e))
    return answered, crashed


@pytest.fixture(scope="module")
def answered(oracle_answers):
    return oracle_answers[0]


def test_every_op_of_the_oracle_has_strategies():
    assert strategies.ops() == registry.ops(), (f"actual: strategies for {strategies.ops()}; expected one module "
                                                f"per op the oracle registers {registry.ops()}")


def test_every_family_draws_cases(drawn):
    got = {(op, name) for op, name, _ in drawn}
    want = {(op, name) for op in strategies.ops() for name in families(op)}
    assert got == want, f"families that drew nothing: {sorted(want - got)}"


@pytest.mark.parametrize("clause", REQUIRED)
def test_clause_is_reached(answered, clause):
    """The oracle's answer to some generated case cites the clause."""
    cited = [c for _, _, c, e in answered if clause in e.clauses or e.error_clause == clause]
    assert cited, f"actual: the oracle cites {clause} for no generated case; expected: at least one"


def test_tags_are_the_oracles_citations(answered):
    """A strategy restates no rule: a generated case carries exactly the clauses the oracle's answer cites."""
    for op, name, case, exp in answered:
        assert case.clauses == tuple(exp.clauses), (f"{op}.{name} {case.label!r}: actual tags {case.clauses}, "
                                                    f"expected the oracle's {tuple(exp.clauses)}")


@pytest.mark.parametrize("clause", [c for c in ERR])
def test_error_clause_decides_some_case(answered, clause):
    """Each documented error is the deciding rule for at least one generated case (or, where a second
    sentence admits a value too, the reading that raises: an "either" answer citing it)."""
    hits = [c for _, _, c, e in answered if (e.kind == "error" and e.error_clause == clause)
            or (e.kind == "either" and clause in e.clauses)]
    assert hits, f"actual: no generated case fails with {clause}; expected: at least one"


def test_tags_belong_to_the_op(drawn):
    for op, name, case in drawn:
        # the scatter form of setitem cites scatter's rules too (SI-SCATTER: it *is* pypto.scatter)
        borrowed = {"scatter"} if "SI-SCATTER" in case.clauses else set()
        own = [c for c in case.clauses if registry.op_of_clause(c) not in {op} | borrowed]
        assert not own, f"{op}.{name} {case.label!r}: clauses of another op {own}"
        unknown = [c for c in case.clauses if c not in CLAUSES]
        assert not unknown, f"{op}.{name} {case.label!r}: clauses not in the registry {unknown}"


def test_cases_are_well_formed(drawn):
    for op, name, case in drawn:
        where = f"{op}.{name} {case.label!r} ({case.id})"
        assert case.op == op and case.origin == "generated" and case.label, where
        assert 0 < len(case.label) <= 200, where
        spec = registry.spec(op)
        need, may = _names(spec.inputs)
        # a contract field named "<name>" admits inputs of any name (setitem's key tensors); the op's
        # well_formed says which
        wildcard = any(n.startswith("<") for n in may)
        assert need <= set(case.inputs) and (wildcard or set(case.inputs) <= need | may), \
            f"{where}: inputs {sorted(case.inputs)}"
        need, may = _names(spec.params)
        assert need <= set(case.params) <= need | may, f"{where}: params {sorted(case.params)}"
        for k, a in case.inputs.items():
            assert str(a.dtype) in ALL, f"{where}: input {k} dtype {a.dtype}"
            assert a.size <= 4096, f"{where}: input {k} has {a.size} elements; keep cases small"
        spec.decode(case)       # the op's one decoder reads it (ValueError: malformed)
        problem = strategies.well_formed(op, case)      # and what the op's strategies promise beyond it
        assert not problem, f"{where}: {problem}"


def _names(fields):
    return {f.name for f in fields if f.required}, {f.name for f in fields if not f.required}


def test_oracle_answers_every_case(oracle_answers):
    answered, crashed = oracle_answers
    assert not crashed, "actual: the oracle raised on %d generated cases, e.g.\n%s\nexpected: an Expectation" % (
        len(crashed), "\n".join(f"  {c.label!r} ({c.id}): {type(e).__name__}: {str(e)[:160]}"
                                for c, e in crashed[:5]))
    kinds = {e.kind for *_, e in answered}
    assert kinds == {"value", "error", "either", "unspecified"}, kinds


def _same(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


def test_cases_round_trip_through_json(drawn):
    for op, name, case in drawn:
        back = Case.from_json(json.loads(json.dumps(case.to_json())))
        where = f"{op}.{name} {case.label!r}"
        assert back.id == case.id and back.clauses == case.clauses and back.label == case.label, where
        assert back.inputs.keys() == case.inputs.keys(), where
        for k, a in case.inputs.items():
            b = back.inputs[k]
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), f"{where}: {k}"
        assert _same(dict(case.params), dict(back.params)), f"{where}: params {case.params} != {back.params}"


def test_specials_survive_in_generated_arrays(drawn):
    """NaN, infinities and -0.0 do reach the data (and so the round trip above covers them)."""
    flat = np.concatenate([a.astype(np.float64).ravel() for _, _, c in drawn for a in c.inputs.values()
                           if a.dtype.kind == "f" or str(a.dtype) == "bfloat16"])
    assert np.isnan(flat).any() and np.isposinf(flat).any() and np.isneginf(flat).any()
    assert ((flat == 0) & np.signbit(flat)).any()


def test_cases_strategy_covers_each_op():
    for op in strategies.ops():
        example = draw_examples(cases(op), 3)
        assert example and all(c.op == op for c in example)
    # enough draws that an op added last (tests/test_adding_an_op.py) is drawn whatever the families before it
    assert {c.op for c in draw_examples(all_cases(), 200)} == set(strategies.ops())


# ---- error cases --------------------------------------------------------------------------

def test_error_cases_cover_every_err_clause():
    covered = {e.clause for e in error_cases()} | {c for e in error_cases() for c in e.case.clauses}
    missing = sorted(set(ERR) - covered)
    assert not missing, f"actual: no error case for {missing}; expected: one per err clause"


@pytest.mark.parametrize("ec", error_cases(), ids=lambda e: e.case.label)
def test_error_case_matches_the_oracle(ec):
    assert ec.case.origin == "error-case" and ec.clause in ec.case.clauses
    exp = oracle.expect(ec.case)
    assert (exp.kind, exp.error_clause, exp.error_classes) == ("error", ec.clause, class_names(ec.exception)), (
        f"actual: oracle says {exp.kind} {exp.error_clause} {exp.error_classes} ({exp.message}); "
        f"expected: error {ec.clause} {ec.exception}; case {ec.case.label!r}")


def test_a_case_tagged_with_other_clauses_keeps_its_content_and_id():
    from contract.case import encode_params
    from suites.tagging import with_oracle_clauses
    (case,) = draw_examples(cases("setitem"), 1)
    bare = Case(op=case.op, inputs=dict(case.inputs), params=dict(case.params), label=case.label)
    tagged = with_oracle_clauses(bare)
    assert bare.clauses == () and tagged.clauses == oracle.expect(bare).clauses != ()
    assert tagged.id == bare.id == case.id and tagged.inputs is bare.inputs and tagged.params is bare.params
    assert tagged.encoded_params == encode_params(tagged.params)
    assert tagged.to_json() == {**bare.to_json(), "clauses": list(tagged.clauses)}


def test_the_cases_strategy_of_an_op_is_built_once():
    # Built per draw, Hypothesis would validate it again for every example (benchmarks/bench_explore.py).
    assert all(cases(op) is cases(op) for op in strategies.ops())
