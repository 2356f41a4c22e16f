"""Hypothesis exploration: fresh cases of every op against each selected adapter, shrunk to a minimal failure.

How many examples, derandomized or not, and the example database come from the
profile the plugin loads (--profile dev|ci|certify|thorough); nothing here
fixes them.  A divergence listed in suites/expectations/<adapter>.txt is
accepted (it is a known, explained finding); any other one fails with actual,
expected, call and repro for the shrunk case.
"""
import pytest
from hypothesis import HealthCheck, given, note, settings

from suites.check import assert_conforms
from suites.strategies import cases

# The handle fixtures hand back one cached handle per adapter, so reusing them across examples is safe.
_SETTINGS = settings(suppress_health_check=[*settings.default.suppress_health_check,
                                            HealthCheck.function_scoped_fixture])


def _explore(conform, handle, case):
    if case.op not in handle.ops:
        pytest.skip(f"{handle.name} has no mapping for {case.op}")
    note(f"case {case.id}: {case.label} [{', '.join(case.clauses)}]")
    verdict = conform.explore(handle, case)
    if verdict.expected_divergence:
        return
    assert_conforms(verdict, case)


@_SETTINGS
@given(case=cases("setitem"))
def test_setitem_follows_the_spec(conform, adapter_handle, case):
    _explore(conform, adapter_handle, case)


@_SETTINGS
@given(case=cases("clip"))
def test_clip_follows_the_spec(conform, adapter_handle, case):
    _explore(conform, adapter_handle, case)


@_SETTINGS
@given(case=cases("scatter"))
def test_scatter_follows_the_spec(conform, adapter_handle, case):
    _explore(conform, adapter_handle, case)


@_SETTINGS
@given(case=cases("scatter_nd_add"))
def test_scatter_nd_add_follows_the_spec(conform, adapter_handle, case):
    _explore(conform, adapter_handle, case)


@_SETTINGS
@given(case=cases("set_"))
def test_set_follows_the_spec(conform, adapter_handle, case):
    _explore(conform, adapter_handle, case)
