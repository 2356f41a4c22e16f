"""Every worked example of the source documents as a Case, with the output the document prints.

Each op's examples are in its case module (`suites/strategies/<op>.py`, `doc_examples()`), typed in
from the document (not computed), so the oracle is checked against the document and not against
itself.  Where a document shows no output (a call that raised), the dict is empty and the example's
clauses say why.
"""
from __future__ import annotations

from contract.case import Case

from .tagging import with_oracle_clauses


def doc_example(op, label, clauses, inputs, params, outputs) -> tuple:
    """(Case, {output name: documented array}); `clauses`: the ids of the example itself (its `ex` clause,
    or the `gap` it shows): the oracle's answer adds the rules it applies (tagging.with_oracle_clauses)."""
    case = Case(op=op, inputs=inputs, params=params, clauses=tuple(clauses), origin="doc-example", label=label)
    return with_oracle_clauses(case), outputs
