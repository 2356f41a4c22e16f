"""Every worked example of the seeds: the oracle reproduces the documented output exactly."""
from __future__ import annotations

import json

import numpy as np
import pytest

import oracle
from oracle import registry
from suites.strategies import all_doc_examples as doc_examples

EXAMPLES = doc_examples()
CONTRADICTED = "ST-GAP-EXAMPLE"     # the example the same page forbids (ST-E-DTYPE)
RAISED = "SC-GAP-DUP-ERR"           # the transcript's call that raised in torch 1.2


def _call(case) -> str:
    """The call as the op's repro spells it (OpSpec.repro)."""
    from adapters.repro import scalar_text
    return "; ".join(registry.spec(case.op).repro(case, scalar_text)[0])


def _msg(actual, expected, case) -> str:
    return (f"actual   {actual}\nexpected {expected}\ncall     {_call(case)}\n"
            f"repro    oracle.expect(Case.from_json({json.dumps(case.to_json())}))")


def _ex_id(case) -> str:
    return next(c for c in case.clauses if "-EX-" in c or c == RAISED)


@pytest.mark.parametrize("case,documented", EXAMPLES, ids=[c.label for c, _ in EXAMPLES])
def test_doc_example(case, documented):
    assert case.origin == "doc-example"
    assert oracle.CLAUSES[_ex_id(case)].kind in ("ex", "gap")
    exp = oracle.expect(case)
    if CONTRADICTED in case.clauses:
        # the page prints a value, its own ST-E-DTYPE rule says RuntimeError: both readings conform, and
        # the value of the one that returns is the page's
        assert (exp.kind, exp.error_classes) == ("either", ("RuntimeError",)), \
            _msg(exp.summary(), "raises RuntimeError (ST-E-DTYPE), or returns the example's values", case)
        assert {"ST-E-DTYPE", "ST-EX-1"} <= set(exp.clauses), exp.clauses
        got = exp.outputs["self"].value
        printed = documented["self"]
        assert got.dtype == printed.dtype and np.array_equal(got, printed), _msg(got.tolist(), printed.tolist(), case)
        assert documented and case.inputs["target"].dtype != case.inputs["source"].dtype
        assert oracle.CLAUSES[CONTRADICTED].finding
        return
    if RAISED in case.clauses:
        # repeats along dim (SC-DUP, scatter.conflict.1): the transcript's error (any class), or each element
        # hit twice holding one of the values aimed at it
        assert (exp.kind, exp.error_classes) == ("either", ()) and "SC-DUP" in exp.clauses, \
            _msg(exp.summary(), "raises, or one of the colliding values (SC-DUP)", case)
        assert not documented
        return
    assert exp.kind == "value", _msg(exp.summary(), "a value", case)
    for name, want in documented.items():
        got = exp.outputs[name].value
        assert got.dtype == want.dtype and got.shape == want.shape, \
            _msg(f"{got.dtype}{list(got.shape)}", f"{want.dtype}{list(want.shape)}", case)
        assert np.array_equal(got, want), _msg(got.tolist(), want.tolist(), case)


def _public_call(case):
    """The example through the plain function a user calls (oracle.setitem, oracle.clip, ...): the op's
    own `OpSpec.call`, its primary output."""
    spec = registry.spec(case.op)
    return spec.call(case)[spec.output_names[0]]


PUBLIC = [(c, d) for c, d in EXAMPLES if d and c.op != "set_"]


@pytest.mark.parametrize("case,documented", PUBLIC, ids=[c.label for c, _ in PUBLIC])
def test_doc_example_through_public_function(case, documented):
    got, want = _public_call(case), next(iter(documented.values()))
    assert got.dtype == want.dtype and np.array_equal(got, want), _msg(got.tolist(), want.tolist(), case)


def test_set_example_through_public_function_takes_the_reading_that_returns():
    case, documented = next((c, d) for c, d in EXAMPLES if CONTRADICTED in c.clauses)
    got = oracle.set_(np.array(case.inputs["target"]), np.array(case.inputs["source"]))
    printed = documented["self"]
    assert got.dtype == printed.dtype and np.array_equal(got, printed), _msg(got.tolist(), printed.tolist(), case)


def test_every_example_clause_has_a_doc_example():
    covered = {c for case, _ in EXAMPLES for c in case.clauses}
    missing = [cid for cid, c in oracle.CLAUSES.items() if c.kind == "ex" and cid not in covered]
    assert not missing, f"actual: no doc example for {missing}; expected: one per ex clause"


def test_doc_example_ids_are_stable_and_distinct():
    ids = [c.id for c, _ in EXAMPLES]
    assert len(set(ids)) == len(ids), f"actual {len(set(ids))} distinct ids, expected {len(ids)}"
    assert [c.id for c, _ in doc_examples()] == ids
