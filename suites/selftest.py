"""The suite measures its own finding power: every mutant (adapters/mutants) against the corpus.

Each mutant runs in this process (they are our own, not hostile) on its op's cases
only; the oracle's Expectation is computed once per case and the judge decides each
outcome, exactly as for any candidate.  A mutant is killed by a case whose verdict
is divergent (contract.vocabulary.DIVERGENT), or, for a mutant of a compiled mode
(`Mutant.compiled`), whose answer differs from its eager twin's, the oracle adapter's
(the mode-consistency gate; counted as MODE_INCONSISTENT); a kill resting on fewer
than FRAGILE_BELOW cases is fragile: one edit of the corpus could lose it.

`selftest()` returns the report as plain data (docs/CLI.md, `conform selftest`):
selftest.json is that dict, reports/selftest.py lays it out as HTML.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable, Iterable, Optional

import numpy as np

from contract.vocabulary import DIVERGENT, SUITE_VERSION

from .judge import judge

SCHEMA = 1
FRAGILE_BELOW = 3       # a kill on fewer cases than this is fragile
MODE_INCONSISTENT = "mode-inconsistent"     # a kill by the mode-consistency gate, counted as a verdict
EXAMPLES_KEPT = 3       # killing cases named per mutant (the first ones, in corpus order)


class OracleFailure(Exception):
    """oracle.expect failed on some cases (a bug in the spec's code): .cases holds (case id, message)."""

    def __init__(self, cases):
        super().__init__(f"the oracle failed on {len(cases)} case(s): "
                         + "; ".join(f"{cid}: {msg}" for cid, msg in cases[:5]))
        self.cases = cases


def selftest(mutants: Iterable[type], cases: list, corpus: Optional[dict] = None,
             explore: Optional[dict] = None, progress: Optional[Callable] = None) -> dict:
    """Run every mutant class on its op's corpus cases (and the exploration's, if given) and report.

    `corpus`: {"path", "hash"} recorded in the report.  `explore`: {"profile", "cases": {op: [Case]}}.
    `progress(done, total)` is called after each mutant.  Raises OracleFailure when oracle.expect fails.
    """
    mutants = list(mutants)
    by_op = _by_op(cases)
    answers = _expect(cases)
    explore_cases = (explore or {}).get("cases") or {}
    explore_expect = _expect([c for cs in explore_cases.values() for c in cs]) if explore else {}
    results = []
    for i, cls in enumerate(mutants, 1):
        m = cls()
        entry = _describe(cls)
        entry.update(_kills(m, by_op.get(cls.op, []), answers))
        if getattr(cls, "layouts", ()):     # a layout bug: its op's cases again in each layout it declares
            entry["layouts"] = {}
            for layout in cls.layouts:
                m.layout = layout
                entry["layouts"][layout] = _summary(_kills(m, by_op.get(cls.op, []), answers))
            m.layout = ""
            entry["killed"] = entry["killed"] or any(k["killed"] for k in entry["layouts"].values())
        if explore is not None:
            entry["explore"] = _summary(_kills(m, explore_cases.get(cls.op, []), explore_expect))
        results.append(entry)
        if progress:
            progress(i, len(mutants))
    return _report(results, cases, by_op, corpus or {}, explore)


def explore_cases(profile: str, ops=None) -> dict:
    """{op: [Case]}: as many fresh cases per op as the Hypothesis profile's max_examples, from the same
    strategies the exploration tests use, drawn derandomized so a selftest is reproducible."""
    from hypothesis import settings

    from . import profiles  # noqa: F401  (registers the Hypothesis profiles)
    from .corpus import draw_examples
    from .strategies import cases as strategy
    from .strategies import ops as strategy_ops
    n = settings.get_profile(profile).max_examples
    return {op: draw_examples(strategy(op), n) for op in (strategy_ops() if ops is None else ops)}


def survivors(report: dict) -> list:
    return [m["name"] for m in report["mutants"] if not m["killed"]]


# ---- running ------------------------------------------------------------------------------------

def _by_op(cases) -> dict:
    out = defaultdict(list)
    for c in cases:
        out[c.op].append(c)
    return out


def _expect(cases) -> dict:
    import oracle
    out, failed = {}, []
    for c in cases:
        if c.id in out:
            continue
        try:
            out[c.id] = oracle.expect(c)
        except Exception as e:      # a bug in the spec's code: named, never hidden
            failed.append((c.id, f"{type(e).__name__}: {e}"))
    if failed:
        raise OracleFailure(failed)
    return out


def _kills(mutant, cases, answers) -> dict:
    """Run `mutant` on `cases`; the divergent verdicts, counted by verdict and by clause and verdict."""
    verdicts, clauses, examples, kills = Counter(), defaultdict(Counter), [], 0
    for case in cases:
        with np.errstate(all="ignore"):     # inf - inf in a mutated sum is the mutant's business, not a warning
            outcome = mutant.run(case)
        v = judge(case, answers[case.id], outcome, mutant)
        expected, verdict = v.expected, v.verdict if v.verdict in DIVERGENT else ""
        twin = "" if verdict else _twin_differs(mutant, case, answers[case.id], v)
        if twin:
            expected, verdict = f"its eager twin's answer: {twin}", MODE_INCONSISTENT
        if not verdict:
            continue
        kills += 1
        verdicts[verdict] += 1
        for c in v.clauses:
            clauses[c][verdict] += 1
        if len(examples) < EXAMPLES_KEPT:
            examples.append({"case_id": case.id, "label": case.label, "origin": case.origin,
                             "verdict": verdict, "outcome": v.outcome, "expected": expected})
    return {"cases": len(cases), "kills": kills, "killed": kills > 0, "fragile": 0 < kills < FRAGILE_BELOW,
            "verdicts": dict(sorted(verdicts.items())),
            "clauses": {c: {"cases": sum(n.values()), "verdicts": dict(sorted(n.items()))}
                        for c, n in sorted(clauses.items())},
            "examples": examples}


def _twin_differs(mutant, case, expectation, v) -> str:
    """For a compiled-mode mutant, its eager twin's (the unmutated oracle adapter's) outcome where the two
    answers differ, else "": what the mode-consistency gate (suites/variants.py) fails, on open inputs too."""
    if not getattr(mutant, "compiled", False):
        return ""
    with np.errstate(all="ignore"):
        twin = judge(case, expectation, mutant.oracle(case), mutant)
    return twin.outcome if twin.answer != v.answer else ""


def _summary(k: dict) -> dict:
    return {key: k[key] for key in ("cases", "kills", "killed", "verdicts", "examples")}


def _describe(cls) -> dict:
    return {"name": cls.name, "op": cls.op, "bug": cls.bug(), "adapter": f"{cls.__module__}:{cls.__qualname__}"}


# ---- the report ---------------------------------------------------------------------------------

def _report(results, cases, by_op, corpus, explore) -> dict:
    from oracle.registry import ops as registered
    ops = {}
    for op in registered():
        mine = [r for r in results if r["op"] == op]
        if not mine:
            continue
        ops[op] = {"cases": len(by_op.get(op, [])), "mutants": len(mine),
                   "killed": sum(r["killed"] for r in mine),
                   "survived": [r["name"] for r in mine if not r["killed"]],
                   "fragile": [r["name"] for r in mine if r["fragile"]]}
        if explore is not None:
            ops[op]["killed_by_explore"] = sum(r["explore"]["killed"] for r in mine)
    report = {
        "record": "selftest", "schema": SCHEMA, "suite_version": SUITE_VERSION,
        "corpus": {"path": str(corpus.get("path", "")), "hash": corpus.get("hash", ""), "cases": len(cases)},
        "explore": None if explore is None else {
            "profile": explore.get("profile", ""),
            "cases": {op: len(cs) for op, cs in (explore.get("cases") or {}).items()}},
        "fragile_below": FRAGILE_BELOW,
        "totals": {"mutants": len(results), "killed": sum(r["killed"] for r in results),
                   "survived": sum(not r["killed"] for r in results),
                   "fragile": sum(r["fragile"] for r in results)},
        "ops": ops,
        "clauses": _by_clause(results),
        "mutants": results,
    }
    if explore is not None:
        report["totals"]["killed_by_explore"] = sum(r["explore"]["killed"] for r in results)
        report["totals"]["survived_both"] = sum(not r["killed"] and not r["explore"]["killed"] for r in results)
    return report


def _by_clause(results) -> dict:
    """clause -> mutant name -> {"cases": its killing cases that cite the clause, "verdicts": {verdict: n}}."""
    out = defaultdict(dict)
    for r in results:
        for clause, n in r["clauses"].items():
            out[clause][r["name"]] = n
    return {c: dict(sorted(ms.items())) for c, ms in sorted(out.items())}
