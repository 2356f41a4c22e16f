"""Documented errors as data: an input, the `err` clause it breaks, and the exception class the document names.

Each op's error cases are in its case module (`suites/strategies/<op>.py`, `error_cases()`; all of them:
`strategies.all_error_cases()`).  Each
starts from the op's own doc example where there is one and breaks exactly one rule, so the error it
must raise is the documented one and no other.  `exception` is None where the source document names
no class.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from contract.case import Case

from .tagging import with_oracle_clauses


@dataclass(frozen=True)
class ErrorCase:
    case: Case
    clause: str                  # the err clause that decides the error
    exception: Optional[str]     # the class the source document names for it (None: it names none)


def error_case(op, clause, exception, label, inputs, params) -> ErrorCase:
    """The case is tagged by the oracle's answer alone; `clause` and `exception` are what the document says
    that answer must be (tests/test_strategies.py holds the oracle to it)."""
    case = Case(op=op, inputs=inputs, params=params, origin="error-case", label=f"{clause}: {label}")
    return ErrorCase(with_oracle_clauses(case), clause, exception)
