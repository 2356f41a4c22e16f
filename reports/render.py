"""Render results files into one self-contained report.html plus summary.json."""
from __future__ import annotations

import base64
import gzip
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import jinja2
import numpy as np
from markupsafe import Markup, escape

from contract.codec import CodecError, decode_array
from contract.outputfile import refuse_non_regular

from contract.vocabulary import VERDICT_MEANINGS as VOCABULARY_MEANINGS
from .glossary import plain
from oracle.opspec import KIND_MEANINGS  # noqa: F401  (the clause kinds, defined once; the glossary shows them)
from . import model as M
from .badge import badge_filename, badge_svg
from .families import families
from .summary import build_summary

TEMPLATES = Path(__file__).with_name("templates")
# The clause document the report links each clause to (generated from oracle.CLAUSES; anchors: the clause id in
# lower case).  It lives in the repository; the report links to it relative to where the report is written.
SPEC_DOC = Path(__file__).resolve().parents[1] / "docs" / "SPEC.md"
PAGE_ROWS = 50         # failing cases per page of the case list
# Lists the page shows only the start of (the whole list is in summary.json / results.jsonl): at the main job's
# 24 adapters every pair of adapters and every layout would otherwise add thousands of rows to the page.
SHOWN_DIFFERING = 5    # differing cases per agreement pair
SHOWN_VARIANT_CASES = 10   # cases per adapter whose answer changes with its layout or compiled mode
MAX_CELLS = 256        # array elements drawn per output in a drill-down
VERDICT_COLOURS = {
    "pass": "#2e7d32", "extension": "#00897b", "not-applicable": "#9e9e9e",
    "value-mismatch": "#c62828", "missing-error": "#ef6c00", "unexpected-error": "#6a1b9a",
    "wrong-error-class": "#f9a825", "crash": "#212121", "timeout": "#5d4037",
    "undeclared-not-applicable": "#ad1457",
}

# The glossary's words.  The verdicts' are docs/DESIGN.md's table, which owns them (tests/test_report_words.py
# keeps the two equal); the kinds' are those docs/SPEC.md explains.
# the verdicts' meanings, defined once (contract.vocabulary), as the glossary prints them
VERDICT_MEANINGS = {v: plain(m) for v, m in VOCABULARY_MEANINGS.items()}


def write_report(results_paths, out_dir) -> dict:
    """Read the results files (streaming), write out_dir/report.html, summary.json and badge-<adapter>.svg.

    Returns {"report_html", "summary_json", "badges": {adapter: path}, "summary",
    "records"}. Raises model.INPUT_ERRORS (naming file and line) on a damaged
    input; then nothing is written.
    """
    paths = [Path(p) for p in ([results_paths] if isinstance(results_paths, (str, os.PathLike)) else results_paths)]
    m = M.build_model(paths)
    summary = build_summary(m)
    out = Path(out_dir)
    html = render_html(m, summary, spec_href=spec_doc_href(out))
    out.mkdir(parents=True, exist_ok=True)
    report = atomic_write(out / "report.html", html)
    summ = atomic_write(out / "summary.json", json.dumps(summary, indent=2, sort_keys=False) + "\n")
    badges = {i["library"]: str(atomic_write(out / badge_filename(i["library"]),
                                             badge_svg(i["library"], i["conforming_rate"], i["gate"]["unlisted"])))
              for i in summary["implementations"]}
    return {"report_html": str(report), "summary_json": str(summ), "badges": badges, "summary": summary,
            "records": m.records}


def spec_doc_href(out_dir) -> str:
    """The clause document, relative to the report's folder (the report is opened from disk, next to its checkout)."""
    try:
        return Path(os.path.relpath(SPEC_DOC, Path(out_dir).resolve())).as_posix()
    except ValueError:          # another drive (Windows): no relative path
        return SPEC_DOC.as_uri()


def atomic_write(path: Path, text: str) -> Path:
    """Write beside the target and rename, so a reader never sees half a file."""
    path = Path(path)
    refuse_non_regular(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())     # mkstemp makes 0600; a report is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda x: "n/a" if x is None else f"{100 * x:.1f}%"
    return env


def render_html(m: M.Model, summary: dict, title="Tensor conformance report", spec_href="docs/SPEC.md") -> str:
    return environment().get_template("report.html.j2").render(title=title, spec_href=spec_href, **view(m, summary))


# ---- the view: plain data the template only lays out -------------------------------------------

def run_scope(m: M.Model):
    """The ops the run was limited to (the header's `ops`: conform certify --op, or the adapter's claim), else
    None: a clause of another op is then no coverage gap of this run, only out of its scope."""
    scopes = [h.get("ops") for h in m.headers if isinstance(h.get("ops"), list)]
    return set().union(*scopes) if scopes and len(scopes) == len(m.headers) else None


def view(m: M.Model, summary: dict) -> dict:
    members = families(m.adapter_names, m.mode_twins)
    adapters = [x.name for x in members]     # each adapter followed by its variants
    ops = m.ops
    groups = m.sorted_groups()
    scope = run_scope(m)
    group_views = [group_view(g, i) for i, g in enumerate(groups)]
    certify = bool(m.headers) and all(h.get("profile") == "certify" for h in m.headers)
    return {
        "gate_title": "Certification" if certify else "CI gate",
        "gate_command": "conform certify" if certify else "conform run",
        "show_agreement": len(adapters) > 1,
        "run": summary["run"], "generated": summary["generated"], "env": summary["environment"],
        "gate": dict(m.gate(), tone=gate_tone(m.gate(), _rate(m.totals()))),
        "adapters": [dict(adapter_view(m, x.name), **member_view(x)) for x in members],
        "families": families_view(m, members, ops),
        "ops": ops, "verdicts": M.VERDICTS, "colours": VERDICT_COLOURS,
        "matrix": {(op, a): cell_view(m, op, a) for op in ops for a in adapters},
        "bars": bars_view(m, ops, adapters),
        "agreement": agreement_view(m, adapters),
        "clauses": clauses_view(m, adapters, groups, scope),
        "findings": [f for f in findings_view(m, adapters) if scope is None or f["op"] in scope],
        # a certificate's report holds only the claimed ops' contradictions and gaps (run_scope)
        "conflicts": [c for c in conflicts_view(m, adapters) if scope is None or c["op"] in scope],
        "modes": [capped(md) for md in summary.get("modes") or []],
        "layouts": layouts_view(summary),
        "framework_bugs": [b.to_json() for b in sorted(m.framework_bugs.values(),
                                                       key=lambda b: (b.adapter, b.op, b.reason))],
        "groups": group_views,
        "failure_tree": failure_tree(members, groups),
        "shown_differing": SHOWN_DIFFERING, "shown_variant_cases": SHOWN_VARIANT_CASES,
        "failing_verdicts": [v for v in M.VERDICTS if v in M.DIVERGENT],
        "verdict_meanings": VERDICT_MEANINGS, "kind_meanings": KIND_MEANINGS,
        "conforming_verdicts": [v for v in M.VERDICTS if v in M.CONFORMING],
        "group_clauses": sorted({g.clause for g in groups}),
        "failing_data": packed(failing_data(groups)),
        "group_bodies": group_bodies(group_views),
        "page_rows": PAGE_ROWS,
        "records": m.records, "duplicates": m.duplicates, "duplicate_conflicts": m.duplicate_conflicts,
        "coverage_gaps": [c for c in m.coverage_gaps() if scope is None or m.clause_op(c) in scope],
        "domain": domain_view(summary),
        "incomplete": list(m.incomplete),
    }


def member_view(x) -> dict:
    """Where an adapter sits in its family: depth, what kind of variant, and its name breakable only at its
    joints (@, -, :), never inside a word."""
    label = escape(x.name)
    for joint in ("@", "-", ":"):
        label = label.replace(joint, Markup("<wbr>") + joint if joint == "@" else joint + Markup("<wbr>"))
    return {"family": x.family, "parent": x.parent, "kind": x.kind, "how": x.how, "depth": x.depth,
            "label": Markup(label)}


def families_view(m, members, ops) -> list:
    """The matrix's row groups: one per family, its root first, each member with its cells, op by op."""
    out = {}
    for x in members:
        out.setdefault(x.family, []).append(dict(member_view(x), name=x.name,
                                                 cells=[(op, cell_view(m, op, x.name)) for op in ops]))
    return [{"name": f, "members": rows} for f, rows in out.items()]


def failure_tree(members, groups) -> list:
    """The failure groups, nested family > adapter > op (the order of `members`, then the ops' order);
    each level with its failing cases, unlisted ones and groups, so a reader opens only what they look for."""
    by = {}
    for i, g in enumerate(groups):
        by.setdefault(g.adapter, {}).setdefault(g.op, []).append(i)
    fams = {}
    for x in members:
        if x.name not in by:
            continue
        ops = []
        for op, ix in by[x.name].items():
            ops.append({"op": op, "groups": ix, "count": sum(groups[i].count for i in ix),
                        "unlisted": sum(groups[i].count for i in ix if not groups[i].listed)})
        node = dict(member_view(x), name=x.name, ops=ops, groups=sum(len(o["groups"]) for o in ops),
                    count=sum(o["count"] for o in ops), unlisted=sum(o["unlisted"] for o in ops))
        fams.setdefault(x.family, []).append(node)
    return [{"name": f, "adapters": a, "count": sum(n["count"] for n in a), "unlisted": sum(n["unlisted"] for n in a),
             "groups": sum(n["groups"] for n in a)} for f, a in fams.items()]


def domain_view(summary: dict) -> list:
    """The domain coverage view: per op of the run, its boundary classes grouped by parameter (summary.json's
    `domain_coverage`, so the page and the file cannot disagree)."""
    out = []
    for op, d in (summary.get("domain_coverage") or {}).items():
        params = {}
        for r in d["classes"]:
            params.setdefault(r["param"], []).append(r)
        out.append({"op": op, "cases": d["cases"], "classes": len(d["classes"]), "unreached": d["unreached"],
                    "params": [{"name": name, "rows": rows, "unreached": sum(1 for r in rows if not r["cases"])}
                               for name, rows in params.items()]})
    return out


def gate_tone(gate, rate) -> str:
    """The colour of a card or matrix cell: the gate's, not the rate's (glossary: colours)."""
    if gate["unlisted"]:
        return "unlisted"
    if gate["expected"]:
        return "listed"
    return "na" if rate is None else "clean"


def _rate(c):
    applicable = sum(c.values()) - c["not-applicable"]
    return sum(c[v] for v in M.CONFORMING) / applicable if applicable else None


def layouts_view(summary: dict) -> list:
    """Per adapter run in other layouts: its layouts (the columns), one row per op with each layout's cell
    (cases compared, how many differ, how many of those unlisted), and the differing cases."""
    from contract.vocabulary import LAYOUTS
    out = []
    for entry in summary.get("layouts") or []:
        seen = {layout for per in entry["ops"].values() for layout in per}
        columns = [x for x in LAYOUTS if x in seen] + sorted(seen - set(LAYOUTS))
        rows = [{"op": op, "cells": [per.get(x) for x in columns]} for op, per in entry["ops"].items()]
        out.append(capped({"adapter": entry["adapter"], "columns": columns, "rows": rows, "cases": entry["cases"]}))
    return out


def capped(entry: dict) -> dict:
    """A layout or mode entry with only its first SHOWN_VARIANT_CASES differing cases; `more`: the rest's count
    (summary.json lists them all)."""
    cases = entry.get("cases") or []
    return dict(entry, cases=cases[:SHOWN_VARIANT_CASES], more=max(0, len(cases) - SHOWN_VARIANT_CASES))


def adapter_view(m, a):
    info = m.adapters.get(a, {})
    t = m.totals(adapter=a)
    applicable = sum(t.values()) - t["not-applicable"]
    conf = sum(t[v] for v in M.CONFORMING)
    rate = _rate(t)
    gate = m.gate(adapter=a)
    return {"name": a, "version": info.get("version", ""), "execution": info.get("execution", ""),
            "available": info.get("available", True), "reason": info.get("reason", ""),
            "total": sum(t.values()), "applicable": applicable, "conforming": conf,
            "failing": sum(t[v] for v in M.DIVERGENT), "rate": rate, "gate": gate, "tone": gate_tone(gate, rate),
            "counts": dict(t)}


def cell_view(m, op, a):
    c = m.matrix.get((op, a))
    if not c:
        return None
    total = sum(c.values())
    rate = _rate(c)
    gate = m.gate(adapter=a, op=op)
    return {"total": total, "counts": [(v, c[v]) for v in M.VERDICTS if c[v]], "rate": rate,
            "failing": sum(c[v] for v in M.DIVERGENT), "apis": sorted(m.native_apis.get((op, a), ())),
            "gate": gate, "tone": gate_tone(gate, rate)}


def bars_view(m, ops, adapters, width=360):
    rows = []
    for op in ops:
        for a in adapters:
            c = m.matrix.get((op, a))
            if not c:
                continue
            total, x, segs = sum(c.values()), 0.0, []
            for v in M.VERDICTS:
                if c[v]:
                    w = width * c[v] / total
                    segs.append({"verdict": v, "x": round(x, 2), "w": round(w, 2), "n": c[v]})
                    x += w
            rows.append({"op": op, "adapter": a, "segs": segs, "total": total})
    # the labels' column as wide as the longest "op · adapter" (12 px text: about 7 px a character)
    label = max([170] + [7 * (len(r["op"]) + len(r["adapter"]) + 3) for r in rows])
    return {"rows": rows, "width": width, "label": label}


def agreement_view(m, adapters):
    cells = m.agreement()
    out = {}
    for (a, b), cell in cells.items():
        v = dict(cell, anchor=M.slug(f"agree-{a}-{b}"),
                 rate=(cell["same"] / cell["shared"]) if cell["shared"] else None)
        out[(a, b)] = out[(b, a)] = v
    # in the model's pair order, so each list's anchor is its table cell's
    pairs = [(k, c) for k, c in cells.items() if c["differ_count"]]
    return {"cells": out, "pairs": [{"a": a, "b": b, "anchor": M.slug(f"agree-{a}-{b}"),
                                     **dict(c, differ=c["differ"][:SHOWN_DIFFERING])} for (a, b), c in pairs],
            "camps": m.camps_by_clause()}


def clauses_view(m, adapters, groups, scope=None):
    # per clause, one link per adapter (its failures charged to the clause, opening on its first group): at the
    # main job's 24 adapters a link per group made a clause's row hundreds of links long
    failing, unlisted, rank = {}, Counter(), {a: i for i, a in enumerate(adapters)}
    for g in groups:
        per = failing.setdefault(g.clause, {})
        f = per.setdefault(g.adapter, {"key": g.key, "adapter": g.adapter, "count": 0, "unlisted": 0})
        f["count"] += g.count
        if not g.listed:
            f["unlisted"] += g.count
            unlisted[(g.clause, g.adapter)] += g.count
    failing = {c: sorted(per.values(), key=lambda f: rank.get(f["adapter"], len(rank))) for c, per in failing.items()}
    unlisted.update(m.example_unlisted)
    rows = []
    for cid in m.clause_ids():
        if M._is_range_id(cid):
            continue
        if scope is not None and m.clause_op(cid) not in scope and not any((cid, a) in m.clause_stats for a in adapters):
            continue        # another op's clause, which this run did not set out to reach
        cells = []
        for a in adapters:
            s = m.clause_stats.get((cid, a))
            if s:
                u = unlisted[(cid, a)]
                tone = "unlisted" if u else "listed" if s["fail"] else "clean" if s["pass"] else "na"
                cells.append({"cases": s["cases"], "pass": s["pass"], "fail": s["fail"], "unlisted": u, "tone": tone})
            else:
                cells.append(None)
        info = m.catalogue.get(cid)
        rows.append({"id": cid, "op": m.clause_op(cid), "kind": m.clause_kind(cid),
                     "rule": info.rule if info else "", "cells": cells,
                     "section": _clause_attr(info, cid, "section"), "source": _clause_attr(info, cid, "source"),
                     "added": bool(_clause_attr(info, cid, "added")),
                     "anchor": "clause-" + M.slug(cid), "spec_anchor": cid.lower(),
                     "failing": failing.get(cid, []), "gap": all(c is None for c in cells)})
    return rows


def _clause_attr(info, cid, name):
    """A clause's section / source document / added flag: from the catalogue entry, else from oracle.CLAUSES."""
    value = getattr(info, name, None)
    if value is None:
        try:
            import oracle
            value = getattr((getattr(oracle, "CLAUSES", None) or {}).get(cid), name, "")
        except ImportError:
            value = ""
    return value if isinstance(value, (str, bool)) else str(value or "")


def findings_view(m, adapters):
    out = []
    for cid in m.clause_ids():
        if m.clause_kind(cid) != "gap":
            continue
        info = m.catalogue.get(cid)
        per = []
        for a in adapters:
            outcomes = m.gap_outcomes.get((cid, a))
            if outcomes:
                per.append({"adapter": a, "cases": sum(outcomes.values()),
                            "outcomes": [(k, n, m.gap_examples.get((cid, a, k), "")) for k, n in outcomes.most_common()]})
        out.append({"id": cid, "op": m.clause_op(cid), "rule": info.rule if info else "", "adapters": per})
    return out


def conflicts_view(m, adapters):
    """Each contradiction of the documents: both readings, the sentences they come from, the cases it
    touches and, per adapter, the reading taken (or the verdict) on them."""
    out = []
    for c in m.conflicts:
        per = [{"adapter": a, "cases": sum(m.conflict_outcomes[(c.clause, a)].values()),
                "outcomes": m.conflict_outcomes[(c.clause, a)].most_common()}
               for a in adapters if (c.clause, a) in m.conflict_outcomes]
        out.append({"id": c.id, "op": c.op, "clause": c.clause, "inputs": c.inputs, "readings": c.readings,
                    "sentences": c.sentences, "cases": m.citations.get(c.clause, 0), "adapters": per})
    return out


ERROR_FIELDS = ("expected_class", "actual_class", "message", "stderr")     # docs/RESULTS.md


def group_view(g: M.FailureGroup, index: int):
    rec = g.minimal or {}
    # every field present (None when the record lacks it): the template tests them, and the input may omit any
    err = {k: (rec.get("error") or {}).get(k) for k in ERROR_FIELDS} if rec.get("error") else {}
    mismatch = rec.get("mismatch") or {}
    return {"key": g.key, "index": index, "op": g.op, "adapter": g.adapter, "verdict": g.verdict,
            "clause": g.clause, "why": g.why, "listed": g.listed, "count": g.count,
            "case_id": rec.get("case_id", ""), "label": (rec.get("case") or {}).get("label", ""),
            "clauses": rec.get("clauses", []), "native_api": rec.get("native_api", ""),
            "expected": rec.get("expected", ""), "outcome": rec.get("outcome", ""),
            "notes": rec.get("notes") or [], "divergence": rec.get("expected_divergence") or "",
            "error": err, "repro": rec.get("repro", ""),
            "inputs": inputs_view(rec.get("case") or {}),
            "params": json.dumps((rec.get("case") or {}).get("params", {}), sort_keys=True),
            "outputs": outputs_view(rec, mismatch)}


def group_bodies(views) -> str:
    """Every failure group's body (group_body.html.j2) as a JSON list of HTML, packed: the page draws a body when
    its group first opens.  The bodies are most of a full-scale report (minimal case, arrays, repro per group)."""
    macro = environment().get_template("group_body.html.j2").module.body
    return packed(json.dumps([str(macro(g)) for g in views], ensure_ascii=False, separators=(",", ":")))


def packed(text: str) -> str:
    """Text as the page carries its data: gzip, then base64 (no character of it can end its <script> block); the
    page unpacks it with DecompressionStream.  JSON this repetitive shrinks five- to tenfold."""
    # a lone surrogate (a candidate's broken text) can only stand inside a JSON string: written as its \\u escape
    blob = text.encode("utf-8", "backslashreplace")
    return base64.b64encode(gzip.compress(blob, compresslevel=9, mtime=0)).decode("ascii")


def failing_data(groups) -> str:
    """Every failing case as compact JSON for the page's script (search, pages, CSV), safe inside <script> even
    unpacked.

    {"groups": [[key, op, adapter, verdict, clause, listed 0/1]...], "reasons": [...],
     "rows": [[group index, case id, label, outcome, message, cited clauses, reason index or -1]...]}
    """
    reasons, rix, rows = [], {}, []
    for gi, g in enumerate(groups):
        for r in g.rows:
            ri = -1
            if r.reason:
                ri = rix.get(r.reason)
                if ri is None:
                    ri = rix[r.reason] = len(reasons)
                    reasons.append(r.reason)
            rows.append([gi, r.case_id, r.label, r.outcome, r.message if r.message not in r.outcome else "",
                         " ".join(r.clauses), ri])
    data = {"groups": [[g.key, g.op, g.adapter, g.verdict, g.clause, int(g.listed)] for g in groups],
            "reasons": reasons, "rows": rows}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # No "</script>" or "<!--" can close or confuse the data block; U+2028/9 are escaped for old parsers' sake.
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def inputs_view(case):
    out = []
    for name, enc in sorted((case.get("inputs") or {}).items()):
        arr = _decode(enc)
        out.append({"name": name, "desc": _desc(enc), "table": array_table(arr) if arr is not None else None})
    return out


def outputs_view(rec, mismatch):
    exp_all, act_all = rec.get("expected_values") or {}, rec.get("actual_values") or {}
    out = []
    for name in list(exp_all) + [n for n in act_all if n not in exp_all]:
        exp, act = _decode(exp_all.get(name)), _decode(act_all.get(name))
        # Marks compare element with element: only where the two have one shape.  An output of another
        # shape is shown as it came, unmarked; its description (dtype[shape]) says what differs.
        marks = None
        if exp is not None and act is not None and exp.shape == act.shape:
            if name == mismatch.get("output") and mismatch.get("indices") is not None:
                marks = _marks_from_indices(exp.shape, mismatch["indices"])
            else:
                marks = differing(exp, act)
        out.append({"name": name, "expected_desc": _desc(exp_all.get(name)), "actual_desc": _desc(act_all.get(name)),
                    "expected": array_table(exp, marks) if exp is not None else None,
                    "actual": array_table(act, marks) if act is not None else None,
                    "ndiff": int(marks.sum()) if marks is not None else None})
    return out


def differing(exp: np.ndarray, act: np.ndarray):
    """Elementwise 'not the same value': NaN equals NaN, -0.0 differs from +0.0.  None when the two
    cannot be compared element by element (another shape)."""
    if np.shape(exp) != np.shape(act):
        return None
    e, a = _numeric(exp), _numeric(act)
    same = e == a
    if e.dtype.kind == "f" and a.dtype.kind == "f":
        same = (same & (np.signbit(e) == np.signbit(a))) | (np.isnan(e) & np.isnan(a))
    return ~np.asarray(same, dtype=bool)


def _numeric(x):
    # bfloat16 (ml_dtypes, dtype kind "V") compares through float64, which holds it exactly.
    return x.astype(np.float64) if x.dtype.kind in "fV" else x


def _marks_from_indices(shape, indices):
    marks = np.zeros(shape, dtype=bool)
    for idx in indices:
        try:
            marks[tuple(idx)] = True
        except (IndexError, TypeError, ValueError):
            continue     # an index the judge computed on another shape: leave it unmarked
    return marks


def array_table(arr: np.ndarray, marks=None):
    """Rows of (text, differs) cells; n-D shown as 2-D (last axis across), capped at MAX_CELLS."""
    a = np.asarray(arr)
    flat_marks = None if marks is None else np.asarray(marks).reshape(-1)
    if a.ndim == 0:
        return {"rows": [[(_fmt(a[()]), bool(flat_marks[0]) if flat_marks is not None else False)]],
                "hidden": 0, "reshaped": False}
    cols = a.shape[-1] if a.shape[-1] else 1
    flat = a.reshape(-1)
    shown = min(flat.size, MAX_CELLS)
    rows, row = [], []
    for i in range(shown):
        row.append((_fmt(flat[i]), bool(flat_marks[i]) if flat_marks is not None else False))
        if len(row) == cols:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    return {"rows": rows, "hidden": flat.size - shown, "reshaped": a.ndim > 2}


def _fmt(v):
    if isinstance(v, (np.floating, float)) or "bfloat16" in str(getattr(v, "dtype", "")):
        f = float(v)
        return "-0.0" if f == 0 and np.signbit(f) else repr(f) if abs(f) >= 1e-4 or f == 0 else f"{f:.3g}"
    return str(v.item() if hasattr(v, "item") else v)


def _decode(enc):
    if enc is None:
        return None
    try:
        return decode_array(enc)
    except CodecError:
        return None


def _desc(enc):
    if not isinstance(enc, dict):
        return ""
    return f"{enc.get('dtype')}{enc.get('shape')}"
