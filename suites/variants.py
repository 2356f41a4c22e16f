"""Variants: an adapter run another way, beside the adapter it is a variant of, must answer every case alike.

Three kinds, one idea (docs/DESIGN.md, "Variants"):

- `layout`: `NAME@LAYOUT` (adapters/layouts.py: `strided`, `offset`, `expanded`), the inputs in another
  memory layout, run in the main job beside `NAME` for each layout the adapter declares (unless
  --no-layouts).
- `construction`: `NAME@WAY` (adapters.base.Adapter.constructions: `from_numpy`), the inputs built another
  user-plausible way, run beside `NAME` by `conform run --construction-check`.
- `mode`: a shipped compiled mode (adapters/registry.py, MODES: `jax-jit`), beside its eager twin (`jax`)
  whenever both run: a user's program must not change answer when it is compiled.

Each variant is judged against the oracle like any adapter, and for every case both ran its answer
(suites/judge.py, answer_of: the outcome's kind, exception class, signal, and every output bit for bit) must
equal its base's, on inputs the documents leave open too.  A difference is a finding like a divergence:
listed under `{kind}/...` (Variant.key) in the expectations file of the adapter the variant belongs to
(a mode's own file, else its base's), or it makes the exit code 1.  A compared layout or mode record
carries its finding (docs/RESULTS.md, `layout` and `mode`); construction differences go to
DIR/construction.json.
"""
from __future__ import annotations

from dataclasses import dataclass

from contract.results import LAYOUT_KEYS, MODE_KEYS
from contract.vocabulary import LAYOUTS

KINDS = ("mode", "layout", "construction")


@dataclass(frozen=True)
class Variant:
    kind: str       # one of KINDS
    name: str       # its adapter name in the run: NAME@WAY, or the compiled mode's name
    base: str       # the adapter it is compared with: NAME, or the mode's eager twin
    way: str        # the layout, the construction, or (a mode) its own name

    @property
    def prefix(self) -> str:
        return f"{self.kind}/"

    @property
    def owner(self) -> str:
        """The adapter whose expectations file lists this variant's differences: a mode is an adapter of
        its own (its own file); a layout or construction is its base's, with the way in the key."""
        return self.name if self.kind == "mode" else self.base

    def key(self, op, base_verdict, verdict, clauses, case_id) -> str:
        way = "" if self.kind == "mode" else f"{self.way}/"
        return f"{self.prefix}{way}{op}/{base_verdict}/{verdict}/{','.join(sorted(clauses))}/{case_id}"


def kinds(layouts: bool, construction_check: bool) -> set:
    """The kinds a run compares: a mode whenever it runs beside its twin; layouts unless --no-layouts
    (certify, verify and the pytest plugin run an adapter as it is); constructions on --construction-check."""
    return {"mode"} | ({"layout"} if layouts else set()) | ({"construction"} if construction_check else set())


def beside(handles, kinds) -> list:
    """The targets of the variants a run opens beside its adapters (anything with `target`, `constructions`,
    `layouts`): each other way an adapter builds inputs, then each layout it builds natively.  A mode is
    no such target: it runs where it is named, and is compared where its twin is named too."""
    ways = ([(h, way) for h in handles for way in h.constructions[1:]] if "construction" in kinds else []) + \
           ([(h, layout) for h in handles for layout in getattr(h, "layouts", ())] if "layout" in kinds else [])
    return [f"{h.target}@{way}" for h, way in ways]


def kind_of_way(way: str) -> str:
    """The kind of a variant NAME@WAY: a layout of contract.vocabulary.LAYOUTS, else a construction (the
    report, which reads results only, tells them by the same rule: reports/families.py)."""
    return "layout" if way in LAYOUTS else "construction"


def of_run(handles, kinds) -> dict:
    """{variant name: Variant} among the run's open adapters (anything with `target` and `name`), for the
    `kinds` this run compares.  Decided from the targets the harness was given, never from what a candidate
    says of itself: a mode only for a shipped mode whose shipped twin (not a variant of it) runs too."""
    from adapters import registry
    by_target = {h.target: h.name for h in handles}
    # a construction or layout variant (NAME@WAY) is never a mode's twin: the adapter itself is
    eager = {registry.shipped_name(h.target): h.name for h in handles
             if registry.shipped_name(h.target) and not registry.split_construction(h.target)[1]}
    out = {}
    for h in handles:
        base_target, way = registry.split_construction(h.target)
        if way and base_target in by_target:
            v = Variant(kind_of_way(way), h.name, by_target[base_target], way)
        elif registry.eager_twin(h.target) in eager:
            v = Variant("mode", h.name, eager[registry.eager_twin(h.target)], h.name)
        else:
            continue
        if v.kind in kinds:
            out[h.name] = v
    return out


@dataclass
class Difference:
    """One case a variant answered otherwise than its base."""
    variant: Variant
    case_id: str
    op: str
    base_verdict: str
    verdict: str
    base_outcome: str
    outcome: str
    clauses: tuple = ()
    listed: str = ""        # the expectations line's reason, when one lists it

    @property
    def kind(self) -> str:
        return self.variant.kind

    @property
    def adapter(self) -> str:
        return self.variant.owner

    def key(self) -> str:
        return self.variant.key(self.op, self.base_verdict, self.verdict, self.clauses, self.case_id)

    def evidence(self) -> str:
        """What a `~ regex` of its line is searched in: the base's outcome, then the variant's."""
        return f"{self.base_outcome}\n{self.outcome}"

    def to_json(self) -> dict:
        v = self.variant
        out = {"kind": v.kind, "adapter": self.adapter, "variant": v.name, "base": v.base, "way": v.way,
               "case_id": self.case_id, "op": self.op, "base_verdict": self.base_verdict, "verdict": self.verdict,
               "base_outcome": self.base_outcome, "outcome": self.outcome, "clauses": list(self.clauses),
               "listed": self.listed, "key": self.key()}
        if v.kind == "construction":    # construction.json's names before the variants were one idea
            out.update(default=self.base_verdict, other=self.verdict, default_outcome=self.base_outcome,
                       other_outcome=self.outcome)
        return out


def finding(variant: Variant, base, agrees: bool, listed: str):
    """(record field, its value) of a compared record (docs/RESULTS.md, contract/results.py's keys), or
    None: a construction's differences go to construction.json, not into the records."""
    if variant.kind == "mode":
        return "mode", dict(zip(MODE_KEYS, (base.adapter, agrees, base.verdict, base.outcome, listed)))
    if variant.kind == "layout":
        return "layout", dict(zip(LAYOUT_KEYS, (variant.way, base.adapter, agrees, base.verdict, base.outcome, listed)))
    return None


def compare(case, verdicts, variants: dict, match) -> list:
    """The one comparison of a variant with its base: for each verdict of a variant (`variants`, as
    of_run gives) whose base answered this case too, its finding on the verdict (`finding`), and the
    differences, each matched by `match(variant, key, evidence)` -> reason or None."""
    by_name = {v.adapter: v for v in verdicts}
    found = []
    for v in verdicts:
        var = variants.get(v.adapter)
        base = by_name.get(var.base) if var else None
        if base is None:
            continue
        agrees = bool(v.answer) and v.answer == base.answer
        listed = ""
        if not agrees:
            d = Difference(var, case.id, case.op, base.verdict, v.verdict, base.outcome, v.outcome, tuple(v.clauses))
            d.listed = listed = match(var, d.key(), d.evidence()) or ""
            found.append(d)
        field = finding(var, base, agrees, listed)
        if field:
            setattr(v, *field)
    return found


def unlisted_record(rec) -> bool:
    """Whether a results record is a variant's difference from its base that no line lists."""
    return any(isinstance(m, dict) and m.get("agrees") is False and not m.get("listed")
               for m in (rec.get("mode"), rec.get("layout")))
