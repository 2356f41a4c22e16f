"""summary.json: the machine-readable counterpart of the report (schema: schema/summary.schema.json).

Shaped like the array-api compliance data dashboards collect (pytest-json-report
plus array-api-tests metadata): an environment block naming the library under
test, its version and the suite version, then counts a dashboard can plot
without re-reading the results.  Documented in docs/SUMMARY.md.
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from contract.vocabulary import READINGS

from . import model as M

SUMMARY_VERSION = "1.7"
SCHEMA_PATH = Path(__file__).with_name("schema") / "summary.schema.json"


def build_summary(m: M.Model) -> dict:
    h0 = m.headers[0] if m.headers else {}
    return {
        "summary_version": SUMMARY_VERSION,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "run": {
            "suite": "tensor-conformance",
            "suite_version": _one(m, "suite_version"),
            "corpus_hash": _one(m, "corpus_hash"),
            "profile": _one(m, "profile"),
            "results": [{"path": h["path"], "run_id": h.get("run_id", ""), "shard": h.get("shard", ""),
                         "started": h.get("started", "")} for h in m.headers],
            "records": m.records,
            "duplicates_dropped": m.duplicates,
            "duplicate_conflicts": list(m.duplicate_conflicts),
        },
        "gate": m.gate(),
        "environment": {"platform": h0.get("platform", ""), "python": h0.get("python", ""),
                        "packages": {k: str(v) for k, v in (h0.get("packages") or {}).items()}},
        "implementations": [implementation(m, a) for a in m.adapter_names],
        "clauses": {cid: {"op": m.clause_op(cid), "kind": m.clause_kind(cid),
                          "cases": sum(m.clause_stats[(cid, a)]["cases"] for a in m.adapter_names
                                       if (cid, a) in m.clause_stats)}
                    for cid in m.clause_ids() if not M._is_range_id(cid)},
        "coverage_gaps": m.coverage_gaps(),
        "domain_coverage": domain_coverage(m),
        "conflicts": conflicts(m),
        "framework_bugs": framework_bugs(m),
        "modes": modes(m),
        "layouts": layouts(m),
    }


def layouts(m: M.Model) -> list:
    """The layout check: per adapter run in other layouts, per op and layout, how many cases both layouts
    answered, how many alike, and each case whose answer changes with layout (listed with its reason, or
    unlisted: the gate fails)."""
    out = []
    for a in sorted({a for a, _, _ in m.layout_stats}):
        per = {}
        for (b, op, layout), c in sorted(m.layout_stats.items()):
            if b == a:
                per.setdefault(op, {})[layout] = {k: int(c[k]) for k in MODE_COUNTS}
        out.append({"adapter": a, "ops": per, "cases": [c for c in m.layout_cases if c["adapter"] == a]})
    return out


def modes(m: M.Model) -> list:
    """The mode-consistency gate: per compiled mode, its eager twin, how many cases both answered, how many
    alike, and each case answered otherwise (listed with its reason, or unlisted: the gate fails)."""
    return [{"adapter": a, "twin": m.mode_twins[a], **{k: int(m.mode_stats[a][k]) for k in MODE_COUNTS},
             "cases": [c for c in m.mode_cases if c["adapter"] == a]} for a in sorted(m.mode_twins)]


MODE_COUNTS = ("compared", "agree", "differ", "unlisted")


def framework_bugs(m: M.Model) -> list:
    """Each framework bug the run found: the listed divergences whose expectations line says the framework's
    value is simply wrong (contract.vocabulary.FRAMEWORK_BUG), one entry per line and op."""
    return [b.to_json() for b in sorted(m.framework_bugs.values(), key=lambda b: (b.adapter, b.op, b.reason))]


def conflicts(m: M.Model) -> list:
    """Each contradiction of the documents (both readings admitted), with what each adapter did on the
    cases it touches: "<verdict>: <reading or outcome>" -> cases."""
    out = []
    for c in m.conflicts:
        per = {a: dict(m.conflict_outcomes[(c.clause, a)]) for a in m.adapter_names
               if (c.clause, a) in m.conflict_outcomes}
        out.append({"id": c.id, "op": c.op, "clause": c.clause, "inputs": c.inputs, "readings": list(c.readings),
                    "sentences": [sid for sid, _, _ in c.sentences], "outcomes": per})
    return out


def domain_coverage(m: M.Model) -> dict:
    """Per op of the run: how many of its distinct cases hit each boundary class of its documented domain
    (oracle.domains, docs/CASES.md "Domain coverage"); `unreached` counts the classes no case hit."""
    from collections import Counter
    try:
        from oracle.domains import DOMAINS
    except ImportError:
        return {}
    per_op = Counter(m.domain_cases.values())
    out = {}
    for op in m.ops:
        rows = [{"param": b.param, "class": b.cls, "kind": b.kind, "text": b.text,
                 "cases": m.domain_hits.get((op, b.param, b.cls), 0)} for b in DOMAINS.get(op, ())]
        if rows:
            out[op] = {"cases": per_op.get(op, 0), "unreached": sum(1 for r in rows if not r["cases"]),
                       "classes": rows}
    return out


def _one(m, key) -> str:
    """The header value shared by every input file, or 'mixed: a, b' when they differ."""
    vals = sorted({str(h.get(key, "")) for h in m.headers})
    if not vals:
        return ""
    return vals[0] if len(vals) == 1 else "mixed: " + ", ".join(vals)


def implementation(m: M.Model, a: str) -> dict:
    info = m.adapters.get(a, {})
    totals = m.totals(adapter=a)
    ops = {}
    for op in m.ops:
        c = m.matrix.get((op, a))
        if c:
            g = m.gate(adapter=a, op=op)
            ops[op] = {"native_api": sorted(m.native_apis.get((op, a), ())), "counts": _counts(c),
                       "conforming_rate": _rate(c), "gate": {"unlisted": g["unlisted"], "expected": g["expected"]}}
    clauses = {}
    for cid in m.clause_ids():
        s = m.clause_stats.get((cid, a))
        if s:
            clauses[cid] = {"op": m.clause_op(cid), "cases": s["cases"], "pass": s["pass"], "fail": s["fail"],
                            "met": s["fail"] == 0 and s["pass"] > 0}
    return {"library": a, "version": str(info.get("version", "")), "execution": str(info.get("execution", "")),
            "available": bool(info.get("available", True)), "reason": str(info.get("reason", "")),
            "totals": _counts(totals), "conforming_rate": _rate(totals), "gate": m.gate(adapter=a),
            "readings": {r: sum(int(m.readings[(op, a)].get(r, 0)) for op in m.ops) for r in READINGS},
            "ops": ops, "clauses": clauses}


def _counts(c) -> dict:
    return {v: int(c.get(v, 0)) for v in M.VERDICTS}


def _rate(c):
    applicable = sum(c.values()) - c.get("not-applicable", 0)
    return round(sum(c.get(v, 0) for v in M.CONFORMING) / applicable, 6) if applicable else None


def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate(summary: dict) -> None:
    """Raise jsonschema.ValidationError when summary does not follow the published schema."""
    import jsonschema
    jsonschema.validate(summary, schema(), cls=jsonschema.Draft202012Validator)
