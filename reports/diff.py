"""Run-to-run diff: what changed between a BASE and a NEW results file, per adapter.

A regression is a case that conformed (or was not applicable) in BASE and fails
in NEW, or a case that fails in both with a different failing verdict.  A NEW
failure marked as an expected divergence is listed but does not regress.

Lost coverage gates too: an adapter, or cases, that BASE has and NEW lacks
(a candidate that stopped loading, an interrupted run, a narrower shard), and
runs of different corpora or suite versions, whose case ids do not mean the
same cases.  `conform diff --allow-lost-coverage` accepts both; then only the
cases present in both files are compared.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import model as M

LIST_CAP = 200      # entries listed per adapter and category; counts stay exact


@dataclass
class AdapterDiff:
    adapter: str
    new_failures: list = field(default_factory=list)
    fixed: list = field(default_factory=list)
    changed_verdicts: list = field(default_factory=list)
    changed_messages: list = field(default_factory=list)
    counts: dict = field(default_factory=lambda: defaultdict(int))
    only_base: int = 0
    only_new: int = 0

    def add(self, kind, entry):
        self.counts[kind] += 1
        lst = getattr(self, kind)
        if len(lst) < LIST_CAP:
            lst.append(entry)

    @property
    def regressions(self) -> int:
        return self.counts["regressions"]


def _brief(rec):
    return {"verdict": rec["verdict"], "outcome": M.short_outcome(rec, 300),
            "divergence": rec.get("expected_divergence") or ""}


def _load(path):
    header, out = {}, {}
    for rec in M.iter_records(path):
        if rec.get("record") == "run":
            header = rec
        elif rec.get("record") == "case":
            # the first record of a (case, adapter) counts, as in the report and in merge
            out.setdefault((rec["case_id"], rec["adapter"]),
                           dict(_brief(rec), op=rec["op"], label=(rec.get("case") or {}).get("label", "")))
    return header, out


def diff_results(base_path, new_path) -> dict:
    """{"base": header, "new": header, "adapters": {name: AdapterDiff}, "regressions": n}."""
    base_h, base = _load(base_path)
    new_h, new = _load(new_path)
    per = {}

    def get(a):
        return per.setdefault(a, AdapterDiff(a))

    for key, n in new.items():
        cid, adapter = key
        b = base.pop(key, None)
        d = get(adapter)
        if b is None:
            d.only_new += 1
            continue
        entry = {"case_id": cid, "op": n["op"], "label": n["label"], "base": b, "new": n}
        b_fail, n_fail = b["verdict"] in M.DIVERGENT, n["verdict"] in M.DIVERGENT
        if n_fail and not b_fail:
            d.add("new_failures", entry)
            if not n["divergence"]:
                d.counts["regressions"] += 1
        elif b_fail and not n_fail:
            d.add("fixed", entry)
        elif b["verdict"] != n["verdict"]:
            d.add("changed_verdicts", entry)
            if n_fail and not n["divergence"]:
                d.counts["regressions"] += 1
        elif b["outcome"] != n["outcome"]:
            d.add("changed_messages", entry)
    in_new = {a for _, a in new}
    for (_, adapter) in base:
        get(adapter).only_base += 1
    lost_adapters = sorted({a for _, a in base} - in_new)
    lost_cases = {a: d.only_base for a, d in sorted(per.items()) if d.only_base and a not in lost_adapters}
    differ = [(k, base_h.get(k, ""), new_h.get(k, "")) for k in IDENTITY if base_h.get(k, "") != new_h.get(k, "")]
    return {"base": {"path": str(base_path), **_hdr(base_h)}, "new": {"path": str(new_path), **_hdr(new_h)},
            "adapters": dict(sorted(per.items())), "regressions": sum(d.regressions for d in per.values()),
            "lost_adapters": lost_adapters, "lost_cases": lost_cases, "differ": differ}


IDENTITY = ("corpus_hash", "suite_version")     # runs that differ here ran different cases or rules


def _hdr(h):
    return {k: h.get(k, "") for k in ("run_id", "suite_version", "corpus_hash", "started")}


def coverage_problems(result) -> list:
    """Why NEW does not cover what BASE covered, one line each ([] when it does)."""
    lines = [f"adapter {a} has {result['adapters'][a].only_base} records in base and none in new"
             for a in result["lost_adapters"]]
    lines += [f"adapter {a}: {n} cases of base have no record in new" for a, n in result["lost_cases"].items()]
    return lines


def identity_problems(result) -> list:
    return [f"the runs differ in {k}: base {b!r}, new {n!r}" for k, b, n in result["differ"]]


CATEGORIES = (("new_failures", "new failures"), ("fixed", "fixed"),
              ("changed_verdicts", "changed verdicts"), ("changed_messages", "changed messages"))


def render_text(result) -> str:
    lines = [f"base: {result['base']['path']} (run {result['base']['run_id']}, corpus {result['base']['corpus_hash']})",
             f"new:  {result['new']['path']} (run {result['new']['run_id']}, corpus {result['new']['corpus_hash']})"]
    for line in identity_problems(result) + coverage_problems(result):
        lines.append(f"gate: {line}")
    if result["differ"]:
        lines.append("note: only cases present in both runs are compared")
    for name, d in result["adapters"].items():
        summary = ", ".join(f"{d.counts[k]} {label}" for k, label in CATEGORIES)
        lines.append(f"\n== {name}: {summary}; {d.regressions} regressions"
                     f"{f'; {d.only_base} only in base' if d.only_base else ''}{f'; {d.only_new} only in new' if d.only_new else ''}")
        for k, label in CATEGORIES:
            for e in getattr(d, k):
                div = f"  [expected divergence: {e['new']['divergence']}]" if e["new"]["divergence"] else ""
                lines.append(f"  {label[:-1] if label.endswith('s') else label}: {e['op']} {e['case_id']} "
                             f"{e['base']['verdict']} -> {e['new']['verdict']}: {e['new']['outcome']}{div}")
                if k == "changed_messages":
                    lines.append(f"      was: {e['base']['outcome']}")
            if d.counts[k] > len(getattr(d, k)):
                lines.append(f"  ... {d.counts[k] - len(getattr(d, k))} more {label} not listed")
    lines.append(f"\n{result['regressions']} regression(s)" if result["regressions"] else "\nno regressions")
    return "\n".join(lines) + "\n"


def render_html(result) -> str:
    from .render import environment
    return environment().get_template("diff.html.j2").render(r=result, categories=CATEGORIES)


def write_diff(base_path, new_path, out_dir) -> dict:
    """Write out_dir/diff.txt and out_dir/diff.html; return the diff (its 'regressions' gates CI)."""
    from .render import atomic_write
    result = diff_results(base_path, new_path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "diff.txt", render_text(result))
    atomic_write(out / "diff.html", render_html(result))
    return result
