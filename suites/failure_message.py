"""How a test fails on a divergence: actual, expected, call, repro."""
from __future__ import annotations

from .judge import Verdict


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
