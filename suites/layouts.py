"""The layout check: a case must get one answer whatever memory layout its inputs come in.

An adapter declaring layouts (adapters/layouts.py: `strided`, `offset`, `expanded`) runs in the main job
once per layout as `NAME@LAYOUT` beside `NAME` (suites/session.py); each variant is judged against the
oracle like any adapter (the documents do not depend on layout), and its answer (suites/judge.py,
answer_of: kind, exception class, every output bit for bit) is compared with the default layout's.
Each compared verdict of a variant carries `layout` (docs/RESULTS.md): the layout, the adapter it is a
layout of, whether they agree, the default's verdict and outcome, and the expectations line listing a
difference.  A difference no line of the adapter's expectations file lists, under the key below
(docs/EXPECTATIONS.md), makes the exit code 1.
"""
from __future__ import annotations

from dataclasses import dataclass

PREFIX = "layout/"


@dataclass
class LayoutDifference:
    adapter: str            # the adapter whose answer changes with layout (its default-layout name)
    layout: str
    case_id: str
    op: str
    default_verdict: str
    verdict: str
    default_outcome: str
    outcome: str
    clauses: tuple = ()
    listed: str = ""        # the expectations line's reason, when one lists it

    def key(self) -> str:
        return (f"{PREFIX}{self.layout}/{self.op}/{self.default_verdict}/{self.verdict}/"
                f"{','.join(sorted(self.clauses))}/{self.case_id}")

    def evidence(self) -> str:
        """What a `~ regex` of its line is searched in: the default layout's outcome, then the variant's."""
        return f"{self.default_outcome}\n{self.outcome}"

    def to_json(self) -> dict:
        return {**self.__dict__, "clauses": list(self.clauses), "key": self.key()}


def compare(case, verdicts, variants: dict, match) -> list:
    """Set `layout` on each verdict of a layout variant whose default answered this case too; the
    differences, each matched by `match(default adapter name, key, evidence)` -> reason or None.
    `variants`: {variant name: (default adapter name, layout)}."""
    by_name = {v.adapter: v for v in verdicts}
    found = []
    for v in verdicts:
        base, layout = variants.get(v.adapter, ("", ""))
        default = by_name.get(base)
        if default is None:
            continue
        agrees = bool(v.answer) and v.answer == default.answer
        listed = ""
        if not agrees:
            d = LayoutDifference(base, layout, case.id, case.op, default.verdict, v.verdict, default.outcome,
                                 v.outcome, tuple(v.clauses))
            d.listed = listed = match(base, d.key(), d.evidence()) or ""
            found.append(d)
        v.layout = {"layout": layout, "of": base, "agrees": agrees, "default_verdict": default.verdict,
                    "default_outcome": default.outcome, "listed": listed}
    return found


def unlisted_record(rec) -> bool:
    """Whether a results record is a layout variant's difference from its default that no line lists."""
    m = rec.get("layout")
    return isinstance(m, dict) and m.get("agrees") is False and not m.get("listed")
