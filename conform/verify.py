"""`conform verify CERTDIR`: re-check a certificate without trusting its files.

1. Digests and claims: results_sha256 and verdicts_sha256 are recomputed from
   the results file next to the certificate, and the certificate's claims
   (claimed ops, totals, clause lists, completeness, suite) rebuilt from it.
2. Identity: the adapter's source hash, its package's name, version and hash,
   and the suite version, measured on this machine.
3. Coverage: where the certified corpus is at hand (`--corpus`, default the
   shipped one, recognised by its hash), every case of the claimed ops has a
   record and no record is of a case outside it.
4. A sample: N of the recorded cases (drawn with a seed, printed, so the same
   sample can be drawn again) re-run through the same adapter
   (conform.runner.run); each verdict, expected answer, raised class and
   recorded value must be the certificate's.

Anything that differs is listed and the exit code is 1.  Someone who edits
results.jsonl can recompute both digests; the re-run and the coverage check
are what they cannot fake.
"""
from __future__ import annotations

import json
import random
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from contract.vocabulary import EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, SUITE_VERSION

from . import runner

DEFAULT_SAMPLE = 50
# certificate fields rebuilt from the results file; a difference means the certificate or the file was edited
REBUILT = (("results", "results_sha256"), ("results", "verdicts_sha256"), ("results", "records"), ("claimed_ops",),
           ("totals",), ("ops",), ("suite",), ("run", "complete"), ("adapter", "name"))
COMPARED = ("verdict", "expected", "actual_values")     # per re-run case, plus the raised class


class VerifyError(RuntimeError):
    def __init__(self, message, exit_code=EXIT_BAD_INPUT):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class VerifyResult:
    seed: int
    sampled: int = 0
    differences: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_DIVERGED if self.differences else EXIT_OK


def verify(cert_dir, sample=DEFAULT_SAMPLE, seed=None, corpus=None, case_timeout=None, jobs=1,
           in_process=False) -> VerifyResult:
    cert, results = load(cert_dir)
    result = VerifyResult(seed=secrets.randbelow(2 ** 31) if seed is None else seed)
    spec = cert["adapter"].get("spec") or cert["adapter"]["name"]
    check_digests(cert, results, result)
    check_identity(cert, spec, result)
    recs = case_records(results, cert["claimed_ops"])
    check_coverage(cert, recs, corpus, result)
    rerun_sample(spec, recs, sample, result, case_timeout, jobs, in_process)
    return result


def load(cert_dir):
    """(certificate, path of its results file); VerifyError(3) when either is missing or malformed."""
    path = Path(cert_dir) / "certificate.json"
    try:
        cert = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VerifyError(f"{path}: no such certificate") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise VerifyError(f"{path}: not a certificate ({e})") from None
    if not isinstance(cert, dict):
        raise VerifyError(f"{path}: not a certificate (a JSON object is needed)")
    for key, typ in (("adapter", dict), ("suite", dict), ("results", dict), ("claimed_ops", list)):
        if not isinstance(cert.get(key), typ):
            raise VerifyError(f"{path}: not a certificate: {key} must be {'an object' if typ is dict else 'a list'}")
    from oracle.registry import ops as registered_ops
    OPS = registered_ops()
    if not all(op in OPS for op in cert["claimed_ops"]):
        raise VerifyError(f"{path}: claimed_ops must name ops ({', '.join(OPS)}); got {cert['claimed_ops']!r}"[:400])
    if not isinstance(cert["adapter"].get("name"), str):
        raise VerifyError(f"{path}: not a certificate (adapter.name must be a string)")
    name = cert["results"].get("file")
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        raise VerifyError(f"{path}: results.file must name a file next to the certificate, got {name!r}")
    results = Path(cert_dir) / name
    if not results.is_file():
        raise VerifyError(f"{results}: no such results file (named by {path})")
    return cert, results


def check_digests(cert, results, result):
    from reports import model as M
    from reports.certify import build_certificate
    try:
        rebuilt = build_certificate(results, adapter_spec=cert["adapter"].get("spec", ""))
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        raise VerifyError(str(e)) from None
    for path in REBUILT:
        said, found = _get(cert, path), _get(rebuilt, path)
        if said != found:
            result.differences.append(f"{'.'.join(path)}: the certificate says {_short(said)}, "
                                      f"{results.name} gives {_short(found)}")


def check_identity(cert, spec, result):
    from .certify import CertifyError, probe_adapter
    try:
        now = probe_adapter(spec).identity        # measured in the adapter's worker, as certify measured it
    except CertifyError as e:
        raise VerifyError(str(e), EXIT_ADAPTER) from None
    said = cert["adapter"]
    if said.get("source_sha256") != now["source_sha256"]:
        result.differences.append(f"adapter source ({now['module']}): the certificate says "
                                  f"{said.get('source_sha256')!r}, the installed one hashes to {now['source_sha256']!r}")
    before, after = said.get("package") or {}, now["package"] or {}
    for key in ("name", "version", "sha256"):
        if before.get(key) != after.get(key):
            result.differences.append(f"package {key}: the certificate says {before.get(key)!r}, "
                                      f"installed here: {after.get(key)!r}")
    if cert["suite"].get("version") != SUITE_VERSION:
        result.differences.append(f"suite version: the certificate says {cert['suite'].get('version')!r}, "
                                  f"this suite is {SUITE_VERSION!r} (its rules may differ)")


def case_records(results, claimed) -> list:
    """The first record of each (case, adapter) of the claimed ops, sorted by case id and adapter."""
    from reports.model import iter_records
    seen = {}
    for rec in iter_records(results):
        if rec["record"] == "case" and rec["op"] in claimed:
            seen.setdefault((rec["case_id"], rec["adapter"]), rec)
    return [seen[k] for k in sorted(seen)]


def check_coverage(cert, recs, corpus, result):
    from suites import corpus as C
    path = Path(corpus) if corpus else C.DEFAULT_PATH
    try:
        same = path.is_file() and C.corpus_hash(path) == cert["suite"].get("corpus_hash")
    except OSError:
        same = False
    if not same:
        result.notes.append(f"coverage not checked: {path} is not the certified corpus "
                            f"({cert['suite'].get('corpus_hash')}); give it with --corpus")
        return
    claimed = set(cert["claimed_ops"])
    try:
        want = {c.id for c in C.iter_corpus(path) if c.op in claimed}
    except (OSError, ValueError) as e:
        raise VerifyError(f"cannot read corpus {path}: {e}") from None
    have = {r["case_id"] for r in recs}
    if want - have:
        result.differences.append(f"coverage: {len(want - have)} cases of the claimed ops "
                                  f"({', '.join(sorted(claimed))}) have no record, e.g. {sorted(want - have)[0]}")
    if have - want:
        result.differences.append(f"coverage: {len(have - want)} records are of cases not in the corpus, "
                                  f"e.g. {sorted(have - want)[0]}")
    result.notes.append(f"coverage: all {len(want)} cases of the claimed ops of {path.name} have a record"
                        if want == have else "coverage: differs (above)")


def rerun_sample(spec, recs, n, result, case_timeout, jobs, in_process):
    from reports.model import iter_records
    from contract.results import ResultsError, read_case
    from suites.corpus import write_corpus
    chosen = random.Random(result.seed).sample(recs, min(n, len(recs)))
    try:
        cases = {r["case_id"]: read_case(r) for r in chosen}
    except ResultsError as e:
        raise VerifyError(str(e)) from None
    result.sampled = len(chosen)
    if not chosen:
        return
    with tempfile.TemporaryDirectory(prefix="conform-verify-") as tmp:
        corpus = Path(tmp) / "sample.jsonl"
        write_corpus(corpus, sorted(cases.values(), key=lambda c: c.id))
        run = runner.run([spec], corpus=str(corpus), out_dir=str(Path(tmp) / "out"), case_timeout=case_timeout,
                         jobs=jobs, in_process=in_process, profile="certify")
        if run.exit_code not in (EXIT_OK, EXIT_DIVERGED):
            raise VerifyError(run.message or f"the re-run stopped with exit code {run.exit_code}", run.exit_code)
        again = {r["case_id"]: r for r in iter_records(run.results_path) if r["record"] == "case"}
    for rec in chosen:
        now = again.get(rec["case_id"])
        where = f"case {rec['case_id']} ({rec['op']})"
        if now is None:
            result.differences.append(f"{where}: the re-run recorded nothing")
            continue
        for key in COMPARED:
            if rec.get(key) != now.get(key):
                what = "values" if key == "actual_values" else key
                result.differences.append(f"{where}: {what} differ: the certificate says "
                                          f"{_short(rec.get(key))}, the re-run gives {_short(now.get(key))}")
        raised = ((rec.get("error") or {}).get("actual_class"), (now.get("error") or {}).get("actual_class"))
        if raised[0] != raised[1]:
            result.differences.append(f"{where}: raised class differs: the certificate says {raised[0]!r}, "
                                      f"the re-run gives {raised[1]!r}")


def _get(obj, path):
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _short(v, n=160) -> str:
    s = repr(v)
    return s if len(s) <= n else s[: n - 1] + "…"
