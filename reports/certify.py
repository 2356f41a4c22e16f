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
import os
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
            jobs=1, python=None) -> dict:
    """Run the corpus (default: the shipped one) on one adapter with profile `certify`, then certify it.

    `python`: the interpreter of the adapter's worker (default: as adapters.environments chooses)."""
    pythons = {adapter_spec: os.path.abspath(os.path.expanduser(python))} if python else {}
    _check_adapter(adapter_spec, in_process, pythons)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results_path = _run_corpus(adapter_spec, out, corpus, in_process, case_timeout, resume, jobs, pythons)
    return write_certificate(results_path, out, adapter_spec=adapter_spec)


def _check_adapter(spec, in_process=False, pythons=None):
    # Before any corpus is read or folder made: a typo in --adapter is the commonest mistake.  Asked under
    # the interpreter the adapter runs under (adapters.environments).
    from adapters.environments import InterpreterError, ask
    from adapters.registry import info
    try:
        i = info(spec) if in_process and not pythons else ask(spec, pythons)
    except InterpreterError as e:
        raise CertifyError(str(e), e.exit_code) from None
    if not i.available:
        raise CertifyError(f"adapter {spec!r} is not available: {i.reason}", 5)


def _run_corpus(adapter_spec, out: Path, corpus, in_process, case_timeout, resume, jobs, pythons=None) -> Path:
    from conform import runner
    result = runner.run([adapter_spec], corpus=corpus, out_dir=str(out), case_timeout=case_timeout,
                        jobs=jobs, in_process=in_process, profile=PROFILE, resume=resume, pythons=pythons)
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
    """The certificate of one adapter's results file (the counts and clause verdicts come from the report model)."""
    results_path = Path(results_path)
    m = M.build_model([results_path], keep_verdicts=True)
    if len(m.matrix) and len({a for _, a in m.matrix}) > 1:
        raise M.ReportInputError(f"{results_path}: a certificate covers one adapter; "
                                 f"this file has {sorted({a for _, a in m.matrix})}")
    header = m.headers[0] if m.headers else {}
    name = next(iter({a for _, a in m.matrix}), "")
    entry = m.adapters.get(name, {})
    totals = m.totals(adapter=name)
    ops = {op for op, _ in m.matrix} | {i.op for i in m.catalogue.values()}
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
                "finished": m.ends[-1].get("finished", "") if m.ends else "", "complete": bool(m.ends)},
        "results": {"file": results_path.name, "records": m.records,
                    "results_sha256": _sha256_file(results_path),
                    "verdicts_sha256": "sha256:" + hashlib.sha256(
                        "".join(line + "\n" for line in sorted(m.verdict_lines)).encode()).hexdigest()},
        "totals": {v: totals.get(v, 0) for v in M.VERDICTS},
        "ops": {op: _op_entry(m, op, name) for op in M.OPS if op in ops},
    }


def _op_entry(m: M.Model, op: str, adapter: str) -> dict:
    met, failed, inconclusive, unreached = [], [], [], []
    for cid in sorted(m.clause_ids()):
        if m.clause_op(cid) != op or M._is_range_id(cid):
            continue
        s = m.clause_stats.get((cid, adapter))
        if not s:
            unreached.append(cid)
        else:
            (failed if s["fail"] else met if s["pass"] else inconclusive).append(cid)
    c = m.matrix.get((op, adapter), {})
    return {"counts": {v: c.get(v, 0) for v in M.VERDICTS},
            "clauses_met": met, "clauses_failed": failed,
            "clauses_inconclusive": inconclusive, "clauses_not_exercised": unreached}


def _sha256_file(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()
