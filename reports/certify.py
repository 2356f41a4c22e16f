"""`conform certify`: run the shipped corpus on one adapter and write certificate.json + the report.

The certificate states facts a third party can re-check: per op the clauses the
implementation met (exercised, no failing case), failed and did not reach; the
verdict counts; corpus and suite hashes; the environment; and two digests:
`results_sha256` over the exact file (integrity of this copy) and
`verdicts_sha256` over the sorted (case, adapter, verdict) triples, which a
re-run on the same corpus reproduces although its timings differ.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

from . import model as M

CERTIFICATE_VERSION = "1.0"
PROFILE = "certify"


class CertifyError(RuntimeError):
    """The adapter cannot be certified at all; exit_code follows reports.commands / conform.runner."""

    def __init__(self, message, exit_code=5):
        super().__init__(message)
        self.exit_code = exit_code


def certify(adapter_spec: str, out_dir, corpus=None, in_process=False, case_timeout=None, resume=False,
            jobs=1) -> dict:
    """Run the corpus (default: the shipped one) on one adapter with profile `certify`, then certify it."""
    _check_adapter(adapter_spec)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results_path = _run_corpus(adapter_spec, out, corpus, in_process, case_timeout, resume, jobs)
    return write_certificate(results_path, out, adapter_spec=adapter_spec)


def _check_adapter(spec):
    # Before any corpus is read or folder made: a typo in --adapter is the commonest mistake.
    from adapters.registry import AdapterError, load
    try:
        ok, reason = load(spec).available()
    except AdapterError as e:
        raise CertifyError(str(e), 5) from None
    if not ok:
        raise CertifyError(f"adapter {spec!r} is not available: {reason}", 5)


def _run_corpus(adapter_spec, out: Path, corpus, in_process, case_timeout, resume, jobs) -> Path:
    from conform import runner
    result = runner.run([adapter_spec], corpus=corpus, out_dir=str(out), case_timeout=case_timeout,
                        jobs=jobs, in_process=in_process, profile=PROFILE, resume=resume)
    if result.exit_code not in (runner.EXIT_OK, runner.EXIT_DIVERGED):
        raise CertifyError(result.message or f"the run stopped with exit code {result.exit_code}",
                           result.exit_code)
    path = Path(result.results_path)
    if not path.is_file():
        raise CertifyError(f"the run wrote no results file at {path}", 3)
    return path


def write_certificate(results_path, out_dir, adapter_spec: str = "") -> dict:
    """Build the certificate from a finished results file; write certificate.json and the report."""
    from .render import atomic_write, write_report
    cert = build_certificate(results_path, adapter_spec=adapter_spec)
    write_report([results_path], out_dir)
    atomic_write(Path(out_dir) / "certificate.json", json.dumps(cert, indent=2) + "\n")
    return cert


def build_certificate(results_path, adapter_spec: str = "") -> dict:
    results_path = Path(results_path)
    header, end, triples = {}, None, []
    counts = defaultdict(Counter)                       # op -> verdict counts
    clause_stats = defaultdict(lambda: Counter())        # (op, clause) -> pass/fail
    adapters = set()
    for rec in M.iter_records(results_path):
        kind = rec.get("record")
        if kind == "run":
            header = rec
        elif kind == "end":
            end = rec
        elif kind == "case":
            adapters.add(rec["adapter"])
            triples.append(f"{rec['case_id']}\t{rec['adapter']}\t{rec['verdict']}")
            counts[rec["op"]][rec["verdict"]] += 1
            blamed = M.blamed_clause(rec)
            for c in rec["clauses"]:
                clause_stats[(rec["op"], c)][M.clause_outcome(rec["verdict"], c, blamed)] += 1
    if len(adapters) > 1:
        raise M.ReportInputError(f"{results_path}: a certificate covers one adapter; this file has {sorted(adapters)}")
    name = next(iter(adapters)) if adapters else ""
    entry = next((a for a in header.get("adapters") or [] if a.get("name") == name), {})
    catalogue = M.clause_catalogue()
    triples.sort()
    totals = Counter()
    for c in counts.values():
        totals.update(c)
    return {
        "certificate_version": CERTIFICATE_VERSION,
        "issued": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "adapter": {"name": name, "spec": adapter_spec or name, "version": str(entry.get("version", "")),
                    "execution": str(entry.get("execution", ""))},
        "suite": {"version": header.get("suite_version", ""), "corpus_hash": header.get("corpus_hash", ""),
                  "corpus_cases": header.get("corpus_cases"), "profile": header.get("profile", ""),
                  "seed": header.get("seed")},
        "environment": {"platform": header.get("platform", ""), "python": header.get("python", ""),
                        "packages": header.get("packages", {})},
        "run": {"run_id": header.get("run_id", ""), "started": header.get("started", ""),
                "finished": (end or {}).get("finished", ""), "complete": end is not None},
        "results": {"file": results_path.name, "records": len(triples),
                    "results_sha256": _sha256_file(results_path),
                    "verdicts_sha256": "sha256:" + hashlib.sha256(("\n".join(triples) + "\n").encode()).hexdigest()},
        "totals": {v: totals.get(v, 0) for v in M.VERDICTS},
        "ops": {op: _op_entry(op, counts.get(op, Counter()), clause_stats, catalogue)
                for op in M.OPS if op in counts or any(i.op == op for i in catalogue.values())},
    }


def _op_entry(op, counts, clause_stats, catalogue) -> dict:
    met, failed, inconclusive = [], [], []
    for (o, c), s in sorted(clause_stats.items()):
        if o != op:
            continue
        (failed if s["fail"] else met if s["pass"] else inconclusive).append(c)
    reached = set(met) | set(failed) | set(inconclusive)
    unreached = sorted(cid for cid, i in catalogue.items()
                       if i.op == op and cid not in reached and not M._is_range_id(cid))
    return {"counts": {v: counts.get(v, 0) for v in M.VERDICTS},
            "clauses_met": met, "clauses_failed": failed,
            "clauses_inconclusive": inconclusive, "clauses_not_exercised": unreached}


def _sha256_file(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()
