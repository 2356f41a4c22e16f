"""The construction check: one case, inputs built two user-plausible ways, must give one answer.

A tensor that borrows NumPy's memory (`torch.from_numpy`, `mindspore.Tensor.from_numpy`) can behave
differently from one the framework allocated itself (`torch.tensor`, `mindspore.Tensor(ndarray)`): the
adapters build inputs the documented way by default, and `conform run --construction-check` also runs
each case as `NAME@WAY` for every other way the adapter declares (adapters.base.Adapter.constructions)
and reports each case whose verdict or values change.  A difference is a finding like a divergence:
fixed in the adapter, or listed in the adapter's expectations file under the key
`construction/{way}/{op}/{default verdict}/{other verdict}/{sorted clauses joined by ','}/{case_id}`,
optionally with `~ regex` searched in the two outcome summaries.
"""
from __future__ import annotations

from dataclasses import dataclass

from adapters.registry import split_construction
from contract.vocabulary import LAYOUTS

from .judge import arrays_digest


def answer(verdict) -> tuple:
    """What a verdict says the adapter answered, comparable between two constructions of one case."""
    values = arrays_digest(verdict.actual_values) if verdict.actual_values else ""
    err = verdict.error or {}
    return verdict.verdict, err.get("actual_class") or "", tuple(verdict.notes), values


@dataclass
class Difference:
    adapter: str
    way: str
    case_id: str
    op: str
    default: str            # the verdict with inputs built the documented way
    other: str              # the verdict with inputs built `way`
    default_outcome: str
    other_outcome: str
    clauses: tuple = ()
    listed: str = ""        # the expectations line's reason, when one lists it

    def key(self) -> str:
        return (f"construction/{self.way}/{self.op}/{self.default}/{self.other}/{','.join(sorted(self.clauses))}/"
                f"{self.case_id}")

    def to_json(self) -> dict:
        return {**self.__dict__, "key": self.key()}


def differences(case, verdicts) -> list:
    """Each pair (default, NAME@WAY) among one case's verdicts whose answers differ."""
    by_name = {v.adapter: v for v in verdicts}
    out = []
    for v in verdicts:
        base, way = split_construction(v.adapter)
        if not way or way in LAYOUTS or base not in by_name:     # a layout variant: suites/layouts.py
            continue
        d = by_name[base]
        if answer(d) != answer(v):
            out.append(Difference(base, way, case.id, case.op, d.verdict, v.verdict, d.outcome, v.outcome,
                                  tuple(d.clauses)))
    return out
