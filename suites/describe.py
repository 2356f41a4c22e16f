"""What only the adapter can say of a verdict, asked of it once the judge has decided (suites/judge.py).

The judge reads the case, the oracle's answer and the outcome, and nothing else.  The call made (where the
outcome does not carry it: a crash, a timeout) and, for a failing verdict, the repro are the adapter's to
write: for a worker handle that is a request to its process, made here by whoever holds the worker (the run
loop's slot that ran the case, or the pytest plugin's check), never by the judge.
"""
from __future__ import annotations

from adapters.repro import call_repro


def describe(verdict, case, expectation, adapter):
    """`verdict` with its native_api and (failing) repro filled in from `adapter` (anything with
    native_api(op, case) and repro(case[, expectation]): an Adapter or a handle); returned."""
    if not verdict.native_api:
        verdict.native_api = adapter.native_api(case.op, case)
    if verdict.verdict != "pass":
        # the expectation goes along: the repro checks the documents' answer and fails where the case fails
        verdict.repro = call_repro(adapter.repro, case, expectation)
    return verdict
