"""`conform bisect`: the first release in a range at which one case's verdict changed, by running that case alone
on releases made on demand (adapters/releases.py), halving the range as git bisect does.

It assumes one change in the range, as any bisection does: the verdict of the oldest release holds up to a
release and the newest's from there on; where a range holds several changes it finds one of them.
"""
from __future__ import annotations

import json
import os
import tempfile

from adapters import releases as R


def _case_line(case_id, corpus=None) -> tuple:
    from suites.corpus import DEFAULT_PATH
    path = corpus or DEFAULT_PATH
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        for line in f:
            if f'"id":"{case_id}"' in line and json.loads(line).get("id") == case_id:
                return header, line
    raise LookupError(f"case {case_id!r} is not in {path}")


def run_case(adapter, version, case_id, corpus=None, log=None) -> dict:
    """The case's record on one release (its environment made if missing)."""
    from conform import runner
    header, line = _case_line(case_id, corpus)
    env = R.ensure(adapter, version, log)
    with tempfile.TemporaryDirectory(prefix="bisect-") as tmp:
        one = os.path.join(tmp, "corpus.jsonl")
        with open(one, "w", encoding="utf-8") as f:
            f.write(json.dumps({**header, "cases": 1}) + "\n" + line)
        result = runner.run([adapter], corpus=one, out_dir=tmp, jobs=1, pythons={adapter: env["python"]})
        recs = [json.loads(l) for l in open(result.results_path, encoding="utf-8")] if result.results_path else []
    recs = [r for r in recs if r.get("record") == "case"]
    if not recs:
        raise LookupError(f"{adapter} {version}: case {case_id} gave no record ({result.message})")
    return recs[0]


def bisect(adapter, case_id, versions, corpus=None, log=None) -> dict:
    """{"first": release or None, "last_same", "before", "after" (records), "ran": [releases run]}."""
    if len(versions) < 2:
        raise LookupError("bisect needs a range of at least two releases")
    ran, seen = [], {}

    def rec(i):
        if i not in seen:
            ran.append(versions[i])
            seen[i] = run_case(adapter, versions[i], case_id, corpus, log)
            if log:
                log(f"{versions[i]}: {seen[i]['verdict']}")
        return seen[i]

    lo, hi = 0, len(versions) - 1
    if rec(lo)["verdict"] == rec(hi)["verdict"]:
        return {"first": None, "last_same": versions[hi], "before": rec(lo), "after": rec(hi), "ran": ran}
    start = rec(lo)["verdict"]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if rec(mid)["verdict"] == start:
            lo = mid
        else:
            hi = mid
    return {"first": versions[hi], "last_same": versions[lo], "before": rec(lo), "after": rec(hi), "ran": ran}
