"""The certificate of one adapter's results file: what `conform certify` writes and `conform verify` re-checks.

The certificate states facts a third party can re-check: the ops the vendor
claims and, per claimed op, the clauses the implementation met (exercised, no
failing case), failed and did not reach; the verdict counts; corpus and suite;
the environment and every interpreter used; the adapter's source and package;
and digests whose exact byte formats docs/CERTIFY.md gives: `results_sha256`
over the exact file (integrity of this copy) and `verdicts_sha256` over the
sorted (case, adapter, verdict) lines, which a re-run on the same corpus
reproduces although its timings differ.  Building it reads files only: the run
(conform/certify.py) and the re-check (conform/verify.py) live in conform/.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections import Counter
from pathlib import Path

from contract.results import file_sha256
from contract.vocabulary import READINGS

from . import model as M

CERTIFICATE_VERSION = "1.3"     # 1.3: headline, adapter.borrowed; 1.2: adapter.frameworks, expectations, ops.*.listed_divergences, ops.*.readings
PROFILE = "certify"
EXCLUDED_NOTE = "declared exclusion: "      # the note the run session puts on a case a declared exclusion matched


def write_certificate(results_path, out_dir, target: str = "", identity=None, shipped_corpus=None) -> dict:
    """Build the certificate from a finished results file; write certificate.json and the report."""
    from .render import atomic_write, write_report
    cert = build_certificate(results_path, target=target, identity=identity, shipped_corpus=shipped_corpus)
    write_report([results_path], out_dir)
    atomic_write(Path(out_dir) / "certificate.json", json.dumps(cert, indent=2) + "\n")
    return cert


def build_certificate(results_path, target: str = "", identity=None, claimed=None, shipped_corpus=None) -> dict:
    """The certificate of one adapter's results file.

    identity: the adapter's module, class, source hash, package and frameworks (adapters/identity.py, measured by the
    harness from the target), recorded as given.  claimed: the ops the vendor claims; default the run header's `ops` (conform certify --op), else
    every op with a case the adapter answered (not all not-applicable).  Unclaimed ops are absent.
    shipped_corpus: the shipped corpus's hash (the caller's to know: reports read results files only), for the
    headline."""
    results_path = Path(results_path)
    m = M.build_model([results_path], keep_verdicts=True)
    names = sorted({a for _, a in m.matrix})
    if len(names) > 1:
        raise M.ReportInputError(f"{results_path}: a certificate covers one adapter; this file has {names}")
    header = m.headers[0] if m.headers else {}
    name = names[0] if names else ""
    entry = m.adapters.get(name, {})
    ops = claimed_ops(m, header, claimed)
    totals = sum((m.totals(adapter=name, op=op) for op in ops), Counter())
    identity = identity or {}
    return {
        "certificate_version": CERTIFICATE_VERSION,
        "issued": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "adapter": {"name": name, "spec": target or entry.get("spec") or name,
                    "version": str(entry.get("version", "")), "execution": str(entry.get("execution", "")),
                    "module": identity.get("module", ""), "class": identity.get("class", ""),
                    "source_sha256": identity.get("source_sha256", ""), "package": identity.get("package"),
                    "package_note": identity.get("package_note", ""),
                    "frameworks": identity.get("frameworks", {}),
                    "excludes": exclusions(results_path, entry, ops),
                    "borrowed": borrowed(results_path)},
        "claimed_ops": ops,
        "headline": headline(name, entry, ops, header, shipped_corpus),
        "suite": {"version": header.get("suite_version", ""), "corpus_hash": header.get("corpus_hash", ""),
                  "corpus_cases": header.get("corpus_cases"), "profile": header.get("profile", ""),
                  "seed": header.get("seed")},
        "environment": {"platform": header.get("platform", ""), "python": header.get("python", ""),
                        "packages": header.get("packages", {}),
                        "interpreters": interpreters(header, [m.adapters[a] for a in names])},
        "run": {"run_id": header.get("run_id", ""), "started": header.get("started", ""),
                "finished": m.ends[-1].get("finished", "") if m.ends else "", "complete": m.complete,
                "incomplete": m.incomplete},
        "results": {"file": results_path.name, "records": m.records,
                    "results_sha256": file_sha256(results_path),
                    "verdicts_sha256": verdicts_sha256(m.verdict_lines)},
        "totals": {v: totals.get(v, 0) for v in M.VERDICTS},
        "expectations": expectations_entry(m, entry, name, ops),
        "ops": {op: _op_entry(m, op, name) for op in ops},
    }


def borrowed(results_path) -> list:
    """What the worker's tripwire saw the candidate take from the suite (adapters/borrow.py), over every case."""
    from contract.vocabulary import BORROWED_NOTE
    seen = set()
    for rec in M.iter_records(results_path):
        for note in rec.get("notes") or () if rec.get("record") == "case" else ():
            if isinstance(note, str) and note.startswith(BORROWED_NOTE):
                seen.update(x.strip() for x in note[len(BORROWED_NOTE):].split(","))
    return sorted(seen)


def headline(name, entry, ops, header, shipped_corpus=None) -> str:
    """One line saying what was certified and on what; a corpus other than the shipped one says so first."""
    where = ("the shipped corpus" if header.get("corpus_hash") and header.get("corpus_hash") == shipped_corpus else
             f"NOT THE SHIPPED CORPUS: another corpus ({header.get('corpus_hash', '')}), which proves nothing "
             f"about the shipped cases")
    return f"{name} {entry.get('version', '')}: {', '.join(ops)} on {where}"


def exclusions(results_path, entry: dict, ops) -> list:
    """The adapter's declared exclusions (the results header's `excludes`: Adapter.excludes as the run parsed
    them), each {"line", "reason", "cases"}: how many not-applicable cases of the claimed ops it excluded (the
    run notes `declared exclusion: <reason>` on each)."""
    declared = [x for x in entry.get("excludes") or () if isinstance(x, dict) and isinstance(x.get("reason"), str)]
    notes = Counter()
    for rec in M.iter_records(results_path):
        if rec["record"] == "case" and rec["verdict"] == "not-applicable" and rec["op"] in ops:
            notes.update(n for n in rec.get("notes") or () if isinstance(n, str))
    return [{"line": str(x.get("line", "")), "reason": x["reason"], "cases": notes[EXCLUDED_NOTE + x["reason"]]}
            for x in declared]


def expectations_entry(m: M.Model, entry: dict, adapter: str, ops) -> dict:
    """The expectations file the harness chose for the run (the results header's `expectations`), as
    copied beside the certificate (conform.certify.EXPECTATIONS_COPY), and how many of the claimed ops'
    failing cases it lists: `unlisted` is what makes `conform certify` exit 1.  None chosen: file null."""
    chosen = entry.get("expectations") if isinstance(entry.get("expectations"), dict) else None
    gates = [m.gate(adapter=adapter, op=op) for op in ops]
    return {"file": "expectations.txt" if chosen else None, "sha256": (chosen or {}).get("sha256"),
            "chosen": (chosen or {}).get("file"), "patterns": (chosen or {}).get("patterns", 0),
            "listed": sum(g["expected"] for g in gates), "unlisted": sum(g["unlisted"] for g in gates)}


def claimed_ops(m: M.Model, header: dict, claimed=None) -> list:
    if claimed is None:
        claimed = header.get("ops")
    if claimed is None:
        claimed = [op for (op, _), c in m.matrix.items() if sum(c.values()) > c.get("not-applicable", 0)]
    return m.op_order(set(claimed))


def interpreters(header: dict, adapters) -> list:
    """Every Python the run used: the harness's, then each adapter worker's (docs/RESULTS.md header)."""
    found = []
    if isinstance(header.get("interpreter"), dict):
        found.append({"role": "harness", **header["interpreter"]})
    for a in adapters:
        if isinstance(a, dict) and a.get("python"):     # a worker's interpreter (in-process: the harness's)
            found.append({"role": f"adapter {a.get('name', '')}", "executable": a["python"],
                          "version": a.get("python_version", "")})
    return found


def _op_entry(m: M.Model, op: str, adapter: str) -> dict:
    """One claimed op's clause lists.  `clauses_failed`: every clause this op's failing cases are charged to
    (reports/model.py blame), another op's included (a setitem case charged to a scatter clause), as the
    report's failure groups show them; a clause of this op failed only by another op's cases is met or
    inconclusive here by its own cases."""
    charged = {g.clause for g in m.groups.values()
               if g.op == op and g.adapter == adapter and g.clause != M.EDGE_EMPTY}
    # a documented example whose own case fails is failed, whatever rule that failure is charged to
    charged |= {cid for (cid, a), s in m.clause_stats.items()
                if a == adapter and m.clause_op(cid) == op and m.clause_kind(cid) == "ex" and s["fail"]}
    met, inconclusive, unreached = [], [], []
    for cid in sorted(m.clause_ids()):
        if m.clause_op(cid) != op or M._is_range_id(cid) or cid in charged:
            continue
        s = m.clause_stats.get((cid, adapter))
        if not s:
            unreached.append(cid)
        else:
            (met if s["pass"] else inconclusive).append(cid)
    c = m.matrix.get((op, adapter), {})
    edge = {g.clause: g.count for g in m.groups.values()
            if g.op == op and g.adapter == adapter and g.clause == M.EDGE_EMPTY}
    return {"counts": {v: c.get(v, 0) for v in M.VERDICTS},
            "clauses_met": met, "clauses_failed": sorted(charged, key=lambda cid: (m.clause_op(cid) != op, cid)),
            "clauses_inconclusive": inconclusive, "clauses_not_exercised": unreached,
            "edge_cases_failed": edge, "listed_divergences": m.listed.get((op, adapter), 0),
            # conforming answers where the documents admit raising and a value: which reading was taken
            "readings": {r: int(m.readings[(op, adapter)].get(r, 0)) for r in READINGS}}


# ---- the digests (byte formats: docs/CERTIFY.md) -----------------------------------------------------



def verdicts_sha256(verdict_lines) -> str:
    """sha256 of the UTF-8 bytes of the sorted "case_id<TAB>adapter<TAB>verdict" lines, each ended by LF
    (one per (case, adapter): M.build_model(keep_verdicts=True) keeps the first record of each)."""
    return "sha256:" + hashlib.sha256("".join(line + "\n" for line in sorted(verdict_lines)).encode()).hexdigest()
