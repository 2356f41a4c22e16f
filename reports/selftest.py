"""selftest.json and selftest.html: the kill table of `conform selftest` (the report is made by suites/selftest.py).

The HTML is one small self-contained page: survivors first (the corpus's blind
spots), then each op's mutants with the verdicts and cases that killed them, then
the clause view (which mutants each clause's cases killed).
"""
from __future__ import annotations

import json
from pathlib import Path

from .render import VERDICT_COLOURS, atomic_write, environment


def write_selftest(report: dict, out_dir) -> dict:
    """Write out_dir/selftest.json and out_dir/selftest.html; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    js = atomic_write(out / "selftest.json", json.dumps(report, indent=2) + "\n")
    html = atomic_write(out / "selftest.html", render_selftest(report))
    return {"selftest_json": str(js), "selftest_html": str(html)}


def render_selftest(report: dict) -> str:
    by_op = {}
    for m in report["mutants"]:
        by_op.setdefault(m["op"], []).append(m)
    clause_ops = {m["name"]: m["op"] for m in report["mutants"]}
    clauses = [(c, clause_ops[next(iter(ms))], ms) for c, ms in report["clauses"].items()]
    return environment().get_template("selftest.html.j2").render(
        r=report, by_op=by_op, clauses=clauses, colours=VERDICT_COLOURS,
        survivors=[m for m in report["mutants"] if not m["killed"]])
