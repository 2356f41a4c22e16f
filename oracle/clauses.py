"""The clause registry: every rule of the documents as data (docs/SPEC.md lists them, op by op).

Each op module declares its own clause rows in its OpSpec (oracle/opspec.py); this module is the
view over all of them that the suite and the report read.  `added=True` marks ids the oracle had to
decide while encoding the documents (all `gap` findings and one example), which the developers'
clause list does not have yet.
"""
from __future__ import annotations

from .opspec import CLAUSE_KINDS, Clause
from .registry import CLAUSES

__all__ = ["CLAUSES", "Clause", "CLAUSE_KINDS", "findings"]


def findings():
    """The gap clauses: what the report lists as spec findings."""
    return [c for c in CLAUSES.values() if c.finding]
