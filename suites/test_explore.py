"""Hypothesis exploration: fresh cases of every op against each selected adapter, shrunk to a minimal failure.

How many examples, derandomized or not, and the example database come from the
profile the plugin loads (--profile, contract.vocabulary.PROFILES); nothing here
fixes them.  A divergence listed in suites/expectations/<adapter>.txt is
accepted (it is a known, explained finding); any other one fails with actual,
expected, call and repro for the shrunk case.
"""
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from suites import strategies
from suites.failure_message import assert_conforms

# The handle fixtures hand back one cached handle per adapter, so reusing them across examples is safe.
_SETTINGS = settings(suppress_health_check=[*settings.default.suppress_health_check,
                                            HealthCheck.function_scoped_fixture])


def _explore(conform, handle, case):
    if case.op not in handle.ops:
        pytest.skip(f"{handle.name} has no mapping for {case.op}")
    if handle.name in conform.sampled() or handle.target in conform.sampled():
        # a framework pytest runs on the corpus's sample (conform_sample) is explored with --sample none:
        # its expectations are curated on the shipped corpus, and fresh draws would fail CI at random
        pytest.skip(f"{handle.name} runs the stratified sample here (--sample none explores it)")
    note(f"case {case.id}: {case.label} [{', '.join(case.clauses)}]")
    verdict = conform.explore(handle, case)
    if verdict.expected_divergence:
        return
    assert_conforms(verdict, case)


@pytest.mark.parametrize("op", strategies.ops())
@_SETTINGS
@given(data=st.data())
def test_op_follows_the_spec(conform, adapter_handle, op, data):
    _explore(conform, adapter_handle, data.draw(strategies.cases(op), label="case"))
