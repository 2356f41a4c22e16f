"""The mode-consistency gate: a compiled execution mode must answer every case as its eager twin does.

A shipped compiled mode (adapters/registry.py, MODES: `jax-jit` -> `jax`) runs the same rows as its twin
with the framework call compiled (adapters/execution.py).  For every case both ran, the two answers
(suites/judge.py, answer_of: the outcome's kind, exception class, and every output bit for bit) must be
equal, on inputs the documents leave open too: there either answer alone conforms, but one framework
must not give both, since a user's program changes answer when it is compiled.

Each compared verdict of the mode carries `mode` (docs/RESULTS.md): the twin, whether they agree, the
twin's verdict and outcome, and the expectations line listing a disagreement.  A disagreement no line
of the mode's own expectations file lists (key below, docs/EXPECTATIONS.md) makes the exit code 1.
"""
from __future__ import annotations

from dataclasses import dataclass

PREFIX = "mode/"


@dataclass
class Inconsistency:
    adapter: str            # the compiled mode
    twin: str               # its eager twin
    case_id: str
    op: str
    twin_verdict: str
    verdict: str
    twin_outcome: str
    outcome: str
    clauses: tuple = ()
    listed: str = ""        # the expectations line's reason, when one lists it

    def key(self) -> str:
        return (f"{PREFIX}{self.op}/{self.twin_verdict}/{self.verdict}/{','.join(sorted(self.clauses))}/"
                f"{self.case_id}")

    def evidence(self) -> str:
        """What a `~ regex` of its line is searched in: the twin's outcome, then the mode's."""
        return f"{self.twin_outcome}\n{self.outcome}"

    def to_json(self) -> dict:
        return {**self.__dict__, "clauses": list(self.clauses), "key": self.key()}


def compare(case, verdicts, twins: dict, match) -> list:
    """Set `mode` on each verdict of a compiled mode whose twin answered this case too; the
    inconsistencies, each matched by `match(mode name, key, evidence)` -> reason or None."""
    by_name = {v.adapter: v for v in verdicts}
    found = []
    for v in verdicts:
        twin = by_name.get(twins.get(v.adapter, ""))
        if twin is None:
            continue
        agrees = bool(v.answer) and v.answer == twin.answer
        listed = ""
        if not agrees:
            d = Inconsistency(v.adapter, twin.adapter, case.id, case.op, twin.verdict, v.verdict, twin.outcome,
                              v.outcome, tuple(v.clauses))
            d.listed = listed = match(v.adapter, d.key(), d.evidence()) or ""
            found.append(d)
        v.mode = {"twin": twin.adapter, "agrees": agrees, "twin_verdict": twin.verdict,
                  "twin_outcome": twin.outcome, "listed": listed}
    return found


def unlisted_record(rec) -> bool:
    """Whether a results record is a compiled mode's disagreement with its twin that no line lists."""
    m = rec.get("mode")
    return isinstance(m, dict) and m.get("agrees") is False and not m.get("listed")
