"""The two calls exploration tests make: run a case through an adapter and judge it; fail readably."""
from __future__ import annotations

from .judge import Verdict, judge


def run_and_judge(case, handle) -> Verdict:
    """`handle`: an adapter handle (adapters.pool) or an Adapter; the oracle's Expectation decides."""
    import oracle
    expectation = oracle.expect(case)
    outcome = handle.run(case)
    return judge(case, expectation, outcome, handle)


def failure_message(verdict: Verdict, case) -> str:
    lines = [f"{verdict.adapter} {verdict.op} case {case.id} [{', '.join(verdict.clauses)}]: {verdict.verdict}",
             f"actual:   {verdict.outcome}",
             f"expected: {verdict.expected}",
             f"call:     {verdict.native_api}"]
    lines += [f"note:     {n}" for n in verdict.notes]
    if verdict.error and verdict.error.get("stderr"):
        lines.append("stderr:   " + verdict.error["stderr"].strip().replace("\n", "\n          "))
    lines.append("repro:\n" + (verdict.repro or "(none)"))
    return "\n".join(lines)


def assert_conforms(verdict: Verdict, case) -> None:
    """Fail with 'actual, expected, call, repro' on a divergence (a not-applicable call is no divergence)."""
    if verdict.divergent:
        raise AssertionError(failure_message(verdict, case))
