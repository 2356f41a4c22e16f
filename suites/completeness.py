"""What a complete op has, and what one op lacks (`conform check-op OP`, docs/ADDING_AN_OP.md).

Each requirement is one function of the op's OpSpec and its modules, and the tests that hold every
shipped op to it use the same functions and quotas (tests/test_domain_coverage.py, tests/test_mutants.py,
tests/test_strategies.py), so the command and the suite cannot disagree.  The quotas scale with the op:
a four-clause op needs fewer domain rows and mutants than setitem does.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from oracle import registry
from oracle.boundary import BOUNDARY_KINDS

ROOT = Path(__file__).resolve().parent.parent
DOMAIN_ROWS_PER_FIELD = 4       # boundary classes per input or parameter of the case contract ...
DOMAIN_ROWS_MAX = 40            # ... up to this many (the shipped ops each have more)
MUTANTS_MAX = 6                 # one mutant per sem/err clause, up to this many


@dataclass(frozen=True)
class Need:
    """One requirement of a complete op: met or not, what was found, and where to fix it."""
    what: str
    ok: bool
    found: str
    fix: str = ""


def op_module(op: str):
    """The oracle module of a registered op (where its reference function lives)."""
    return importlib.import_module(registry.spec(op).reference.__module__)


def checked_clauses(spec) -> list:
    """The clauses a case must reach: documented sem/err/uns rules (an ADDED one is the oracle's decision)."""
    return [c for c in spec.clauses if c.kind in ("sem", "err", "uns") and not c.added]


def domain_quota(spec) -> int:
    return min(DOMAIN_ROWS_MAX, DOMAIN_ROWS_PER_FIELD * (len(spec.inputs) + len(spec.params)))


def domain_without(op: str) -> dict:
    """Boundary kinds the op's documents give nothing to: kind -> why (its module's DOMAIN_WITHOUT)."""
    return dict(getattr(op_module(op), "DOMAIN_WITHOUT", {}))


def domain_kinds_wanted(op: str) -> set:
    return set(BOUNDARY_KINDS) - set(domain_without(op))


def mutant_quota(spec) -> int:
    return min(MUTANTS_MAX, max(1, sum(1 for c in spec.clauses if c.kind in ("sem", "err"))))


# ---- the requirements, in the order docs/ADDING_AN_OP.md takes them ------------------------------------

def _clauses(spec) -> list:
    kinds = sorted({c.kind for c in spec.clauses})
    return [Need("clauses: at least one sem rule", any(c.kind == "sem" for c in spec.clauses),
                 f"{len(spec.clauses)} clauses, kinds {', '.join(kinds) or 'none'}", f"clause_rows of oracle/{spec.name}.py")]


def _reading(spec) -> list:
    if spec.reading is None:
        return [Need("reading: the document's sentences", False, "none", f"oracle/readings/{spec.name}.py")]
    cited = {c for s in spec.reading.sentences for c in s.clauses}
    uncited = [c.id for c in spec.clauses if c.id not in cited]
    return [Need("reading: every clause comes from a recorded sentence", not uncited,
                 f"{len(spec.reading.sentences)} sentences" + (f"; uncited: {', '.join(uncited)}" if uncited else ""),
                 f"oracle/readings/{spec.name}.py")]


def _strategies(spec) -> list:
    from . import strategies
    if spec.name not in strategies.ops():
        return [Need("strategies: a module with families", False, "none", f"suites/strategies/{spec.name}.py")]
    fams = strategies.families(spec.name)
    # an error case decides its clause, and may show another err clause on the way (its tags)
    errs = {c for e in strategies.error_cases(spec.name) for c in (e.clause, *e.case.clauses)}
    missing_err = [c.id for c in spec.clauses if c.kind == "err" and c.id not in errs]
    examples = {c for case, _ in strategies.doc_examples(spec.name) for c in case.clauses}
    missing_ex = [c.id for c in spec.clauses if c.kind == "ex" and c.id not in examples]
    where = f"suites/strategies/{spec.name}.py"
    return [
        Need("strategies: families", bool(fams), ", ".join(fams) or "none", where),
        Need("strategies: a boundary family and boundary_cases()",
             "boundary" in fams and bool(strategies.boundary_cases(spec.name)),
             f"boundary family {'yes' if 'boundary' in fams else 'no'}, "
             f"{len(strategies.boundary_cases(spec.name))} boundary cases", where),
        Need("error cases: one per err clause", not missing_err,
             f"{sum(1 for c in spec.clauses if c.kind == 'err' and c.id in errs)} err clauses shown" + (f"; missing: {', '.join(missing_err)}" if missing_err else ""),
             f"error_cases() of {where}"),
        Need("doc examples: one per ex clause", not missing_ex,
             f"{len(examples & {c.id for c in spec.clauses if c.kind == 'ex'})} typed in"
             + (f"; missing: {', '.join(missing_ex)}" if missing_ex else ""), f"doc_examples() of {where}"),
    ]


def _domain(spec) -> list:
    rows = getattr(op_module(spec.name), "DOMAIN", None)
    where = f"DOMAIN of oracle/{spec.name}.py"
    if rows is None:
        return [Need("domain: a DOMAIN table", False, "none", where)]
    kinds = {b.kind for b in rows}
    missing = sorted(domain_kinds_wanted(spec.name) - kinds)
    return [Need(f"domain: at least {domain_quota(spec)} boundary classes", len(rows) >= domain_quota(spec),
                 f"{len(rows)} rows", where),
            Need("domain: a class of every kind (or DOMAIN_WITHOUT says why not)", not missing,
                 f"kinds {', '.join(sorted(kinds))}" + (f"; missing: {', '.join(missing)}" if missing else ""), where)]


def _corpus(spec, shipped) -> list:
    from oracle.domains import coverage
    mine = [c for c in shipped if c.op == spec.name]
    cited = {cl for c in mine for cl in c.clauses}
    unreached = [c.id for c in checked_clauses(spec) if c.id not in cited]
    fix = "python -m suites.corpus build"
    needs = [Need("corpus: cases of the op", bool(mine), f"{len(mine)} cases", fix),
             Need("corpus: every documented sem/err/uns clause cited by a case", bool(mine) and not unreached,
                  f"{len(checked_clauses(spec)) - len(unreached)}/{len(checked_clauses(spec))}"
                  + (f"; unreached: {', '.join(unreached)}" if unreached else ""), fix)]
    table = coverage(mine).get(spec.name)
    if table is not None:
        cold = [f"{p}/{cls}" for (p, cls), n in table.items() if n == 0]
        needs.append(Need("corpus: every boundary class hit by a case", not cold,
                          f"{len(table) - len(cold)}/{len(table)}" + (f"; missing: {', '.join(cold)}" if cold else ""),
                          f"boundary_cases() of suites/strategies/{spec.name}.py, then {fix}"))
    return needs


def _mutants(spec) -> list:
    from adapters.mutants import MUTANTS
    mine = [m.name for m in MUTANTS if m.op == spec.name]
    return [Need(f"mutants: at least {mutant_quota(spec)}", len(mine) >= mutant_quota(spec),
                 f"{len(mine)}" + (f" ({', '.join(mine)})" if mine else ""), f"adapters/mutants/{spec.name}.py")]


def _docs(spec) -> list:
    from oracle import domains, spec_doc
    page = spec_doc.PATH.read_text(encoding="utf-8") if spec_doc.PATH.is_file() else ""
    cases_md = domains.DOC.read_text(encoding="utf-8") if domains.DOC.is_file() else ""
    return [Need("docs: docs/SPEC.md regenerated", page == spec_doc.render(),
                 "current" if page == spec_doc.render() else "stale", "python -m oracle.spec_doc"),
            Need("docs: the domain tables of docs/CASES.md regenerated", domains.markdown() in cases_md,
                 "current" if domains.markdown() in cases_md else "stale", "python -m oracle.domains --write")]


def _adapters(spec) -> list:
    """Which shipped adapters map the op (information: an adapter that does not is not-applicable there)."""
    from adapters.registry import BUILTIN, load
    mapped, not_mapped = [], []
    for name in BUILTIN:
        (mapped if spec.name in load(name).ops else not_mapped).append(name)
    return [Need("adapters: the oracle adapter maps it", "oracle" in mapped,
                 f"mapped by {', '.join(mapped) or 'none'}; not by {', '.join(not_mapped) or 'none'}",
                 "a row in the TABLE of adapters/<framework>_adapter.py")]


def check_op(op: str, shipped=None) -> list:
    """Every requirement of a complete op, met or not, for registered op `op` (oracle.registry.UnknownOp
    when it is not registered).  `shipped`: the corpus cases (default: the shipped corpus)."""
    spec = registry.spec(op)
    if shipped is None:
        from .corpus import load_corpus
        shipped = load_corpus()[0]
    return [*_clauses(spec), *_reading(spec), *_strategies(spec), *_domain(spec), *_corpus(spec, shipped),
            *_mutants(spec), *_docs(spec), *_adapters(spec)]


def text(op: str, needs) -> str:
    lines = [f"{op}: {sum(n.ok for n in needs)}/{len(needs)} requirements met"]
    for n in needs:
        lines.append(f"  {'ok  ' if n.ok else 'MISSING'} {n.what}: {n.found}" + ("" if n.ok else f"  -> {n.fix}"))
    return "\n".join(lines)
