"""The stratified sample of a corpus: every (op, input dtypes, clause) the corpus reaches, at least once.

Greedy in corpus order, so the same corpus gives the same sample: a case is kept when it brings a combination
of its op, its inputs' dtypes and one of its clauses that no kept case has.  pytest runs the adapters named
marked `sampled` in adapters/registry.py (or named in the `conform_sample` ini option) on it (docs/CLI.md, "Running the corpus in pytest"); `conform run`, the
main job, runs every case on every adapter.
"""
from __future__ import annotations


def strata(case) -> set:
    dtypes = tuple(sorted(str(a.dtype) for a in case.inputs.values()))
    return {(case.op, dtypes, c) for c in case.clauses} or {(case.op, dtypes, "")}


def stratified(cases) -> list:
    seen, kept = set(), []
    for case in cases:
        new = strata(case) - seen
        if new:
            seen |= new
            kept.append(case)
    return kept
