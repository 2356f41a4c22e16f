"""`conform verify CERTDIR`: re-check a certificate without trusting anything it is given.

1. The folder: certificate.json, its results file and its expectations copy must be regular files (not a
   link, a FIFO, a device or a folder), of bounded size, strict JSON of bounded nesting, every field the
   check reads of its documented type; anything else is exit 3 with one message.
2. Digests and claims: results_sha256 and verdicts_sha256 are recomputed from the results file, and the
   certificate's claims (claimed ops, totals, clause lists, completeness, suite, the adapter's `spec` (its target), name
   and version, the expectations entry) rebuilt from it.
3. Identity, before anything runs: the target is resolved here and the adapter measured by the harness
   (adapters.identity.measure: module, class, source hash, package, framework versions) and asked its
   name and version by a worker; the expectations copy's hash (and, for a shipped adapter, the shipped
   file's); the suite version.  Any difference is a refusal: nothing is re-run.
4. Expectations: every failing record's `expected_divergence` is what the copy of the expectations file
   gives it.
5. Coverage: where the certified corpus is at hand (`--corpus`, default the shipped one, recognised by
   its hash), every case of the claimed ops has a record and no record is of a case outside it.
6. A sample: N of the recorded cases (drawn with a seed, printed, so the same sample can be drawn again)
   re-run through the adapter the target names (conform.runner.run, with the same expectations file); each
   verdict, expected answer, listed reason, raised class and recorded value must be the certificate's.
7. The challenge (conform/challenge.py), in the same run as the sample: fresh cases drawn with a seed only
   this verifier knows; an op whose unlisted failures on them are significantly more frequent than on the
   certified cases is refused.
The certified corpus must be the shipped one, unless the caller accepts another (accept_corpus).

Anything that differs is listed and the exit code is 1.  Someone who edits results.jsonl can recompute
both digests and rebuild the certificate with the project's own builder; the identity check, the re-run
and the coverage check are what they cannot fake.
"""
from __future__ import annotations

import os
import random
import secrets
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from contract.vocabulary import DIVERGENT, EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, SUITE_VERSION

from . import runner
from .certify import EXPECTATIONS_COPY

DEFAULT_SAMPLE = 50
MAX_CERTIFICATE = 4 << 20       # bytes: a real certificate is a few kilobytes
# certificate fields rebuilt from the results file; a difference means the certificate or the file was edited
REBUILT = (("results", "results_sha256"), ("results", "verdicts_sha256"), ("results", "records"), ("claimed_ops",),
           ("totals",), ("ops",), ("suite",), ("run", "complete"), ("adapter", "name"), ("adapter", "spec"),
           ("adapter", "version"), ("adapter", "excludes"), ("adapter", "borrowed"), ("expectations",))
COMPARED = ("verdict", "expected", "expected_divergence", "actual_values")     # per re-run case, plus the raised class
IDENTITY = ("module", "class", "source_sha256")
SHOWN = 5       # expectation differences printed one by one


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
    refused: bool = False       # the identity differs: nothing was re-run
    challenge_seed: int = None  # the challenge's seed, told after the run
    challenged: int = 0         # fresh cases run
    challenge: list = field(default_factory=list)       # conform.challenge.OpVerdict per claimed op
    borrowed: list = field(default_factory=list)        # suite packages the worker imported (no sandbox)

    @property
    def exit_code(self) -> int:
        return EXIT_DIVERGED if self.differences else EXIT_OK


def verify(cert_dir, sample=DEFAULT_SAMPLE, seed=None, corpus=None, case_timeout=None, jobs=1,
           in_process=False, challenge=None, challenge_seed=None, accept_corpus=False) -> VerifyResult:
    """`challenge`: fresh cases per claimed op (default conform.challenge.DEFAULT_PER_OP; 0: none);
    `challenge_seed`: repeat an earlier challenge (default: os.urandom's); `accept_corpus`: take a
    certificate made on a corpus other than the shipped one."""
    from . import challenge as CH
    cert, results, expectations_copy = load(cert_dir)
    result = VerifyResult(seed=secrets.randbelow(2 ** 31) if seed is None else seed)
    result.challenge_seed = CH.new_seed() if challenge_seed is None else challenge_seed
    target = cert["adapter"]["spec"]
    check_corpus(cert, accept_corpus, result)
    check_source_copy(cert, Path(cert_dir), result)
    check_digests(cert, results, result)
    if cert["adapter"].get("borrowed"):
        result.differences.append(f"borrowed: the certified run used the suite's own "
                                  f"{', '.join(map(str, cert['adapter']['borrowed']))} (adapter.borrowed)")
    check_identity(cert, target, expectations_copy, result)
    if result.differences and any(d.startswith("identity") for d in result.differences):
        result.refused = True
        return result
    recs = case_records(results, cert["claimed_ops"])
    check_listed_reasons(recs, expectations_copy, result)
    check_coverage(cert, recs, corpus, result)
    per_op = CH.DEFAULT_PER_OP if challenge is None else challenge
    rerun_sample(target, recs, sample, result, case_timeout, jobs, in_process, expectations_copy, per_op,
                 cert["claimed_ops"])
    return result


def check_source_copy(cert, folder, result):
    """The copy of the adapter's module file beside the certificate (certify's source/) must be the file
    the certificate's source_sha256 names."""
    from contract.results import file_sha256
    from .certify import SOURCE_COPY
    module = cert["adapter"]["module"]
    if not module or not (folder / SOURCE_COPY).is_dir():
        return
    base = folder / SOURCE_COPY / module.replace(".", "/")
    copy = next((p for p in (base.with_name(base.name + ".py"), base / "__init__.py") if os.path.lexists(p)), None)
    if copy is None or not stat.S_ISREG(os.lstat(copy).st_mode) or file_sha256(copy) != cert["adapter"]["source_sha256"]:
        result.differences.append(f"source: {SOURCE_COPY}/ beside the certificate does not hold the adapter's "
                                  f"module file ({module}) with the certified source_sha256")


def check_corpus(cert, accept, result):
    """A certificate made on another corpus than the shipped one proves nothing about the shipped cases
    (a corpus of the cases the candidate passes certifies anything): refused unless accepted."""
    from suites import corpus as C
    said = cert["suite"]["corpus_hash"]
    if said == C.corpus_hash(C.DEFAULT_PATH):
        return
    if accept:
        result.notes.append(f"certified on a corpus other than the shipped one ({said}), accepted "
                            f"(--accept-other-corpus)")
    else:
        result.differences.append(f"corpus: certified on a corpus other than the shipped one ({said}); "
                                  f"`--accept-other-corpus` takes it")


# ---- 1. the folder ---------------------------------------------------------------------------------

def regular_file(path: Path, what: str, limit: int = None) -> Path:
    """`path` when it is a regular file (a link is not followed) of at most `limit` bytes; else VerifyError(3).
    Checked before it is opened, so a FIFO cannot block the check and a huge file is not read."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise VerifyError(f"{path}: no such {what}") from None
    except OSError as e:
        raise VerifyError(f"{path}: cannot read the {what}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a symbolic link" if stat.S_ISLNK(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode)
                else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file")
        raise VerifyError(f"{path}: not a {what}: it is {kind} (a certificate folder holds regular files only)")
    if limit is not None and st.st_size > limit:
        raise VerifyError(f"{path}: not a {what}: {st.st_size} bytes, over the {limit} a {what} may have")
    return path


def _read_json(path: Path):
    from contract.inputfile import InputFileError, parse_json
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):     # swapped after the lstat
                raise VerifyError(f"{path}: not a certificate: not a regular file")
            raw = f.read(MAX_CERTIFICATE + 1)
    except OSError as e:
        raise VerifyError(f"{path}: cannot read the certificate: {e.strerror or e}") from None
    if len(raw) > MAX_CERTIFICATE:
        raise VerifyError(f"{path}: not a certificate: over {MAX_CERTIFICATE} bytes")
    try:
        return parse_json(raw.strip() or b"null", path, 0)
    except InputFileError as e:
        raise VerifyError(f"{path}: not a certificate ({e.reason})") from None


# what each field the check reads must be: a type, a tuple of types, or a dict of the fields of an object
_STR, _OPT_STR = str, (str, type(None))
SHAPE = {"adapter": {"name": _STR, "spec": _STR, "version": _STR, "module": _STR, "class": _STR,
                     "source_sha256": _STR, "package": (dict, type(None)), "frameworks": dict, "excludes": list},
         "suite": {"version": _STR, "corpus_hash": _STR},
         "results": {"file": _STR},
         "claimed_ops": list, "totals": dict, "ops": dict,
         "expectations": {"file": _OPT_STR, "sha256": _OPT_STR}}


def _check_shape(obj, shape, where, path):
    for key, want in shape.items():
        value = obj.get(key) if isinstance(obj, dict) else None
        name = f"{where}{key}"
        if isinstance(want, dict):
            if not isinstance(value, dict):
                raise VerifyError(f"{path}: not a certificate: {name} must be an object")
            _check_shape(value, want, f"{name}.", path)
        elif not isinstance(value, want):
            kinds = " or ".join({str: "a string", dict: "an object", list: "a list", type(None): "null"}[t]
                                for t in (want if isinstance(want, tuple) else (want,)))
            raise VerifyError(f"{path}: not a certificate: {name} must be {kinds}, not {type(value).__name__}")


def load(cert_dir):
    """(certificate, path of its results file, path of its expectations copy or None); VerifyError(3) when
    any is missing, not a regular file, too large or malformed."""
    folder = Path(cert_dir)
    if not folder.is_dir():
        raise VerifyError(f"{folder}: no such certificate folder")
    path = regular_file(folder / "certificate.json", "certificate", MAX_CERTIFICATE)
    cert = _read_json(path)
    if not isinstance(cert, dict):
        raise VerifyError(f"{path}: not a certificate (a JSON object is needed)")
    _check_shape(cert, SHAPE, "", path)
    from oracle.registry import ops as registered_ops
    OPS = registered_ops()
    if not all(isinstance(op, str) and op in OPS for op in cert["claimed_ops"]):
        raise VerifyError(f"{path}: claimed_ops must name ops ({', '.join(OPS)}); got {cert['claimed_ops']!r}"[:400])
    pkg = cert["adapter"]["package"]
    if pkg is not None:
        _check_shape(pkg, {"name": _STR, "version": _STR, "sha256": _STR}, "adapter.package.", path)
    if not all(isinstance(k, str) and isinstance(v, _OPT_STR) for k, v in cert["adapter"]["frameworks"].items()):
        raise VerifyError(f"{path}: not a certificate: adapter.frameworks must map names to versions (strings)")
    if not all(isinstance(x, dict) and isinstance(x.get("line"), str) for x in cert["adapter"]["excludes"]):
        raise VerifyError(f"{path}: not a certificate: adapter.excludes must be a list of objects with a line")
    name = cert["results"]["file"]
    if Path(name).name != name or name in ("", ".", ".."):
        raise VerifyError(f"{path}: results.file must name a file next to the certificate, got {name!r}"[:400])
    results = folder / name
    if not os.path.lexists(results):
        raise VerifyError(f"{results}: no such results file (named by {path})")
    regular_file(results, "results file")
    expectations_copy = None
    if cert["expectations"]["file"] is not None:
        if cert["expectations"]["file"] != EXPECTATIONS_COPY or not cert["expectations"]["sha256"]:
            raise VerifyError(f"{path}: expectations.file must be {EXPECTATIONS_COPY!r} (with its sha256) or null")
        expectations_copy = regular_file(folder / EXPECTATIONS_COPY, "expectations file")
    return cert, results, expectations_copy


# ---- 2. digests and claims ---------------------------------------------------------------------------

def check_digests(cert, results, result):
    from reports import model as M
    from reports.certify import build_certificate
    try:
        rebuilt = build_certificate(results)
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        raise VerifyError(str(e)) from None
    for path in REBUILT:
        said, found = _get(cert, path), _get(rebuilt, path)
        if path == ("expectations",):      # where the file was chosen from is the certifying machine's path
            said, found = ({k: v for k, v in d.items() if k != "chosen"} for d in (said, found))
        if said != found:
            result.differences.append(f"{'.'.join(path)}: the certificate says {_short(said)}, "
                                      f"{results.name} gives {_short(found)}")


# ---- 3. identity ------------------------------------------------------------------------------------

def check_identity(cert, target, expectations_copy, result):
    """Measure what `target` names on this machine and compare it with what the certificate records; each
    difference starts with "identity" (verify then re-runs nothing)."""
    from adapters.registry import AdapterError, resolve, shipped_name
    from contract.results import file_sha256
    from .certify import CertifyError, probe_adapter
    try:
        resolve(target)
        info = probe_adapter(target)
    except (AdapterError, CertifyError) as e:
        raise VerifyError(str(e), EXIT_ADAPTER) from None
    now, said = info.identity, cert["adapter"]

    def differs(what, before, after):
        if before != after:
            result.differences.append(f"identity: {what}: the certificate says {_short(before)}, "
                                      f"{target} here is {_short(after)}")

    differs("adapter name", said["name"], info.name)
    differs("adapter version", said["version"], info.version)
    for key in IDENTITY:
        differs(f"adapter {key}" + (f" ({now['module']})" if key == "source_sha256" else ""), said[key], now[key])
    before, after = said["package"] or {}, now["package"] or {}
    for key in ("name", "version", "sha256"):
        differs(f"package {key}", before.get(key), after.get(key))
    differs("framework versions", said["frameworks"], now["frameworks"])
    from suites.known_divergences import KnownDivergences, KnownDivergencesError
    try:
        declared = [p.text() for p in KnownDivergences.from_lines(info.excludes, f"{target} excludes").patterns]
    except KnownDivergencesError as e:
        declared = [f"malformed: {e}"]
    differs("declared exclusions", [x["line"] for x in said["excludes"]], declared)
    if cert["suite"]["version"] != SUITE_VERSION:
        result.differences.append(f"identity: suite version: the certificate says {cert['suite']['version']!r}, "
                                  f"this suite is {SUITE_VERSION!r} (its rules may differ)")
    copy = file_sha256(expectations_copy) if expectations_copy else None
    differs("expectations file (the copy beside the certificate)", cert["expectations"]["sha256"], copy)
    shipped = shipped_name(target)
    if shipped:         # a shipped adapter's expectations are the suite's own, not the certificate's to choose
        from suites.known_divergences import chosen_file
        path = chosen_file(target)
        differs(f"expectations of the shipped adapter {shipped}", copy,
                file_sha256(path) if os.path.isfile(path) else None)


# ---- 4. expectations ----------------------------------------------------------------------------------

def check_listed_reasons(recs, expectations_copy, result):
    """Every failing record's listed reason must be what the expectations copy gives it."""
    from contract.inputfile import InputFileError
    from suites.known_divergences import KnownDivergences
    from suites.judge import record_evidence, record_key
    from .history_store import release_of
    try:
        known = KnownDivergences.load(str(expectations_copy)) if expectations_copy else KnownDivergences()
    except InputFileError as e:
        raise VerifyError(str(e)) from None
    wrong = []
    for rec in recs:
        if rec["verdict"] not in DIVERGENT:
            continue
        # a line with `@ <releases>` lists a divergence only of a release it names: the record's own
        reason = known.match(record_key(rec), record_evidence(rec), release=release_of(rec.get("adapter_version")))
        if (reason or None) != (rec.get("expected_divergence") or None):
            wrong.append(f"expectations: case {rec['case_id']} ({rec['op']}): the certificate lists it as "
                         f"{_short(rec.get('expected_divergence'))}, the expectations file gives {_short(reason)}")
    result.differences += wrong[:SHOWN]
    if len(wrong) > SHOWN:
        result.differences.append(f"expectations: … and {len(wrong) - SHOWN} more cases")


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


def rerun_sample(target, recs, n, result, case_timeout, jobs, in_process, expectations_copy=None, per_op=0, ops=()):
    """Re-run n recorded cases and the challenge's fresh cases in one run (so the worker cannot tell the
    two apart by when they come), then compare each: the recorded ones case by case, the fresh ones per
    op by their unlisted-failure rate."""
    from reports.model import iter_records
    from contract.results import ResultsError, read_case
    from suites.corpus import write_corpus
    from . import challenge as CH
    chosen = random.Random(result.seed).sample(recs, min(n, len(recs)))
    try:
        cases = {r["case_id"]: read_case(r) for r in chosen}
        recorded = [read_case(r) for r in recs] if per_op else []
    except ResultsError as e:
        raise VerifyError(str(e)) from None
    fresh = CH.challenge_cases(ops, per_op, result.challenge_seed, recorded, avoid={r["case_id"] for r in recs})
    result.sampled, result.challenged = len(chosen), len(fresh)
    if not chosen and not fresh:
        return
    # neutral names: nothing the worker can see says "verify" (the certify run makes no such folder either)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        write_corpus(corpus, sorted([*cases.values(), *fresh], key=lambda c: c.id))
        run = runner.run([target], corpus=str(corpus), out_dir=str(Path(tmp) / "out"), case_timeout=case_timeout,
                         jobs=jobs, in_process=in_process, profile="certify",
                         expectations_files={target: str(expectations_copy)} if expectations_copy else None)
        if run.exit_code not in (EXIT_OK, EXIT_DIVERGED):
            raise VerifyError(run.message or f"the re-run stopped with exit code {run.exit_code}", run.exit_code)
        again = {r["case_id"]: r for r in iter_records(run.results_path) if r["record"] == "case"}
        result.borrowed = _borrowed(run.results_path)
    if fresh:
        ids = {c.id for c in fresh}
        result.challenge = CH.compare(ops, recs, [r for i, r in again.items() if i in ids])
        for v in result.challenge:
            if v.refused:
                result.differences.append(f"challenge: {v.line()}")
    if result.borrowed:
        result.differences.append(f"borrowed: the worker imported the suite's own {', '.join(result.borrowed)} "
                                  f"(an answer taken from the suite is not the candidate's)")
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


def _borrowed(results_path) -> list:
    """What the worker's tripwire saw the candidate take from the suite in the re-run (adapters/borrow.py)."""
    from reports.certify import borrowed
    return borrowed(results_path)


def _get(obj, path):
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _short(v, n=160) -> str:
    s = repr(v)
    return s if len(s) <= n else s[: n - 1] + "…"
