"""The results file (docs/RESULTS.md): a streaming writer and a streaming, validating reader."""
from __future__ import annotations

import datetime as _dt
import hashlib
import fcntl
import json
import os
import platform

import numpy as np

from contract.codec import CodecError, array_problem, decode_array, encode_array, short
from contract.inputfile import InputFileError, open_input, parse_json, read_lines
from contract.vocabulary import SUITE_VERSION, VERDICTS, name_problem

SCHEMA = 1
MAX_LINE = 16 << 20         # bytes in one record (docs/RESULTS.md); a longer line is refused unread
RECORD_KINDS = ("run", "case", "end")


class ResultsError(InputFileError):
    """A results file that is damaged other than by a truncated last line: ResultsError(path, line, reason)."""


# ---- writing -----------------------------------------------------------------------------

class ResultsLocked(OSError):
    """Another process writes this results file (a second run into the same --out)."""


def lock_results(path: str) -> int:
    """An fd of `path` (created if missing, never truncated) holding its exclusive lock; ResultsLocked if taken.

    The lock is taken before anything is read or cut, so a refused second run changes nothing.  It is an
    flock: the kernel drops it when the holder dies, so a killed run never leaves a stale lock behind.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ResultsLocked(f"{path} is being written by another run (it holds the file's lock); "
                            "wait for it or choose another --out") from None
    return fd


class ResultsWriter:
    """Appends one JSON line per record and flushes it, so a killed run keeps all it finished.

    `fd`: an already locked descriptor of `path` (lock_results), which the writer then owns; without one
    the writer takes the lock itself.  `append=False` empties the file once the lock is held.
    """

    def __init__(self, path: str, append: bool = False, fd: int = None):
        self.path = path
        fd = lock_results(path) if fd is None else fd
        try:
            if not append:
                os.ftruncate(fd, 0)
            self._f = os.fdopen(fd, "a", encoding="utf-8")
        except BaseException:
            os.close(fd)
            raise

    def write(self, record: dict) -> None:
        self._f.write(json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n")
        self._f.flush()

    def close(self):
        if not self._f.closed:
            self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def run_record(run_id, corpus_hash, corpus_cases, adapters, profile="ci", seed=0, shard="1/1") -> dict:
    return {"record": "run", "schema": SCHEMA, "run_id": run_id, "suite_version": SUITE_VERSION,
            "corpus_hash": corpus_hash, "corpus_cases": corpus_cases, "profile": profile, "seed": seed,
            "started": now(), "platform": platform.platform(), "python": platform.python_version(),
            "packages": _packages(), "shard": shard, "adapters": adapters, "interpreter": interpreter()}


def interpreter() -> dict:
    """The Python running the harness, for the results header; each adapter worker's is in its `adapters`
    entry (`python`, `python_version`: the worker's hello).  A certificate lists them all."""
    import sys
    return {"executable": sys.executable, "version": platform.python_version()}


def case_record(run_id: str, verdict, case) -> dict:
    rec = {"record": "case", "schema": SCHEMA, "run_id": run_id, "case_id": case.id, "op": case.op,
           "adapter": verdict.adapter, "adapter_version": verdict.adapter_version,
           "native_api": verdict.native_api, "verdict": verdict.verdict, "clauses": list(verdict.clauses),
           "decided_by": list(verdict.decided_by), "expected": verdict.expected, "outcome": verdict.outcome, "notes": list(verdict.notes)}
    if verdict.error:
        rec["error"] = _jsonable(verdict.error)
    if verdict.mismatch:
        rec["mismatch"] = verdict.mismatch
    if verdict.expected_values:
        rec["expected_values"] = {k: encode_array(v) for k, v in verdict.expected_values.items()}
    if verdict.actual_values:
        rec["actual_values"] = {k: _encode_any(v) for k, v in verdict.actual_values.items()}
    if verdict.expected_divergence:
        rec["expected_divergence"] = verdict.expected_divergence
    if verdict.reading:
        rec["reading"] = verdict.reading
    if verdict.answer:
        rec["answer"] = verdict.answer
    if verdict.mode:
        rec["mode"] = _jsonable(verdict.mode)
    if getattr(verdict, "layout", None):
        rec["layout"] = _jsonable(verdict.layout)
    rec["repro"] = verdict.repro
    rec["elapsed_s"] = round(float(verdict.elapsed_s), 6)
    rec["case"] = case.to_json()
    return rec


def end_record(run_id: str, cases: int, counts: dict) -> dict:
    return {"record": "end", "schema": SCHEMA, "run_id": run_id, "finished": now(),
            "cases": cases, "counts": dict(sorted(counts.items()))}


def _encode_any(a):
    try:
        return encode_array(a)
    except KeyError:        # a dtype the suite has no name for: keep a description instead
        a = np.asarray(a)
        return {"unencodable": f"{a.dtype}{list(a.shape)}"}


def _jsonable(d):
    return {k: (v if v is None or isinstance(v, (str, int, float, bool)) else str(v)) for k, v in d.items()}


def _packages() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for name in ("numpy", "ml_dtypes", "hypothesis", "torch", "mindspore", "pypto"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


# ---- which adapter made a record ----------------------------------------------------------

def adapter_identity(adapter_meta) -> tuple:
    """(name, version, Python, NumPy) of a header's adapter entry: verdicts made under two of these are not
    one run (a resumed run and merged shards refuse the mix).  NumPy's casts and the framework's NumPy
    interop can change verdicts; the interpreter's path is not compared: the same environment at another
    path (a resumed CI job) gives the same verdicts."""
    # str(): a hostile header's non-string fields must not break a sort
    return tuple(str(adapter_meta.get(k) or "") for k in ("name", "version", "python_version", "numpy"))


def named_identities(identities) -> str:
    return ", ".join(f"{n} {v}" + (f" (Python {p}, NumPy {np})" if p or np else "") for n, v, p, np in identities)


# ---- reading -----------------------------------------------------------------------------

def iter_records(path: str, allow_truncated: bool = True):
    """Yield each record as a dict; a truncated last line (a killed run) is skipped.

    Any other damage raises ResultsError naming the file, the line and what is wrong: a line over
    MAX_LINE bytes, bytes that are not UTF-8, JSON that is not strict (contract/inputfile.py), a
    record of the wrong shape or a field of the wrong type (check_record), a record of another run.
    """
    run_id = None
    with open_input(path, "results file", ResultsError) as f:
        for n, raw in read_lines(f, path, MAX_LINE, ResultsError):
            try:
                rec = parse_json(raw, path, n, ResultsError)
            except ResultsError:
                # the run was killed while writing this line: no newline, and nothing after it
                if allow_truncated and not raw.endswith(b"\n") and f.read(1) == b"":
                    return
                raise
            rec = check_record(rec, path, n)
            if n == 1 and rec["record"] != "run":
                raise ResultsError(path, 1, f"the first record must be the run header, got a {rec['record']} record")
            if rec["record"] == "run":
                run_id = rec["run_id"]
            elif rec["run_id"] != run_id:
                raise ResultsError(path, n, f"run_id {rec['run_id'][:40]!r} differs from the header's {run_id!r}")
            yield rec


# ---- what a record holds: each field's JSON type -------------------------------------------
# A check is (test, what it must be).  Required fields must be present; the others are checked
# where present.  Fields this reader does not know are left alone (a later writer may add some).

def _t(test, what):
    return test, what


_STR = _t(lambda v: isinstance(v, str), "a string")
_NAME = _t(lambda v: isinstance(v, str) and v != "", "a non-empty string")
_OPT_STR = _t(lambda v: v is None or isinstance(v, str), "a string or null")
_INT = _t(lambda v: type(v) is int, "an integer")
_OPT_INT = _t(lambda v: v is None or type(v) is int, "an integer or null")
_COUNT = _t(lambda v: type(v) is int and v >= 0, "a non-negative integer")
_SECONDS = _t(lambda v: type(v) in (int, float) and v >= 0, "a non-negative number")
_BOOL = _t(lambda v: type(v) is bool, "true or false")
_OBJECT = _t(lambda v: isinstance(v, dict), "an object")
_STRS = _t(lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings")
_STR_MAP = _t(lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
              "an object of strings")
ERROR_KEYS = ("expected_class", "actual_class", "message", "stderr")
_ERROR = _t(lambda v: isinstance(v, dict) and all(k in v for k in ERROR_KEYS)
            and all(x is None or isinstance(x, str) for x in v.values()),
            f"an object with {', '.join(ERROR_KEYS)}, each a string or null")
_OBJECTS = _t(lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v), "a list of objects")
_INDICES = _t(lambda v: isinstance(v, list) and all(isinstance(i, list) and all(type(k) is int for k in i) for i in v),
              "a list of lists of integers")

_ADAPTER_FIELDS = {"name": _NAME, "version": _OPT_STR, "execution": _OPT_STR, "available": _BOOL,
                   "reason": _OPT_STR, "spec": _OPT_STR}
_MISMATCH_FIELDS = {"output": _OPT_STR, "count": _OPT_INT, "total": _OPT_INT, "indices": _INDICES}
_CASE_JSON_FIELDS = {"id": _NAME, "op": _STR, "origin": _STR, "label": _STR, "clauses": _STRS,
                     "inputs": _OBJECT, "params": _OBJECT}
MODE_KEYS = ("twin", "agrees", "twin_verdict", "twin_outcome", "listed")
_MODE = _t(lambda v: isinstance(v, dict) and all(k in v for k in MODE_KEYS) and type(v["agrees"]) is bool
           and all(isinstance(v[k], str) for k in MODE_KEYS if k != "agrees"),
           f"an object with {', '.join(MODE_KEYS)} (agrees true or false, the others strings)")
LAYOUT_KEYS = ("layout", "of", "agrees", "default_verdict", "default_outcome", "listed")
_LAYOUT = _t(lambda v: isinstance(v, dict) and all(k in v for k in LAYOUT_KEYS) and type(v["agrees"]) is bool
             and all(isinstance(v[k], str) for k in LAYOUT_KEYS if k != "agrees"),
             f"an object with {', '.join(LAYOUT_KEYS)} (agrees true or false, the others strings)")
RECORD_FIELDS = {
    "run": ({"run_id": _STR, "corpus_hash": _STR, "adapters": _OBJECTS},
            {"suite_version": _STR, "corpus_cases": _OPT_INT, "profile": _STR, "seed": _INT, "started": _STR,
             "platform": _STR, "python": _STR, "packages": _STR_MAP, "shard": _STR, "merged_from": _OBJECTS}),
    "case": ({"run_id": _STR, "case_id": _NAME, "op": _STR, "adapter": _NAME, "verdict": _STR,
              "clauses": _STRS, "case": _OBJECT},
             {"adapter_version": _STR, "native_api": _STR, "decided_by": _STRS, "expected": _STR,
              "outcome": _STR, "notes": _STRS, "error": _ERROR, "mismatch": _OBJECT,
              "expected_values": _OBJECT, "actual_values": _OBJECT, "expected_divergence": _OPT_STR,
              "reading": _STR, "repro": _STR, "elapsed_s": _SECONDS, "answer": _STR, "mode": _MODE,
              "layout": _LAYOUT}),
    "end": ({"run_id": _STR, "cases": _COUNT, "counts": _OBJECT}, {"finished": _STR}),
}


def _field_problem(obj, required, optional, prefix="") -> str:
    for name, (test, what) in required.items():
        if name not in obj:
            return f"{prefix}field {name!r} is missing"
        if not test(obj[name]):
            return f"{prefix}field {name!r} must be {what}; got {short(obj[name], 60)}"
    for name, (test, what) in optional.items():
        if name in obj and not test(obj[name]):
            return f"{prefix}field {name!r} must be {what}; got {short(obj[name], 60)}"
    return ""


def record_problem(rec) -> str:
    """'' for a record of docs/RESULTS.md; else what is wrong with it, naming the field."""
    if not isinstance(rec, dict):
        return f"a record must be a JSON object, got {type(rec).__name__}"
    kind = rec.get("record")
    if kind not in RECORD_KINDS:
        return f"'record' must be one of {', '.join(RECORD_KINDS)}; got {short(kind, 40)}"
    if type(rec.get("schema")) is not int or rec["schema"] != SCHEMA:
        return f"schema {short(rec.get('schema'), 40)} is not supported (this reader: {SCHEMA})"
    problem = _field_problem(rec, *RECORD_FIELDS[kind], prefix=f"{kind} record ")
    if problem:
        return problem
    if kind == "run":
        for i, a in enumerate(rec["adapters"]):
            problem = _field_problem(a, {"name": _NAME}, _ADAPTER_FIELDS, prefix=f"adapters[{i}] ")
            if problem:
                return problem
            if (problem := name_problem(a["name"])):
                return f"adapters[{i}] field 'name': {problem}"
    elif kind == "end":
        if not all(v in VERDICTS and type(n) is int and n >= 0 for v, n in rec["counts"].items()):
            return "end record field 'counts' must map verdicts to non-negative integers"
    else:
        return _case_record_problem(rec)
    return ""


def _case_record_problem(rec) -> str:
    # The report counts by verdict: one it does not know would silently vanish from every table.
    if rec["verdict"] not in VERDICTS:
        return f"unknown verdict {short(rec['verdict'], 40)}"
    if (problem := name_problem(rec["adapter"])):
        return f"field 'adapter': {problem}"
    if "mismatch" in rec:
        problem = _field_problem(rec["mismatch"], {}, _MISMATCH_FIELDS, prefix="mismatch ")
        if problem:
            return problem
    for which in ("expected_values", "actual_values"):
        for name, enc in rec.get(which, {}).items():
            if which == "actual_values" and isinstance(enc, dict) and set(enc) == {"unencodable"} \
                    and isinstance(enc["unencodable"], str):
                continue    # a value the writer could not encode, described instead
            problem = array_problem(enc)
            if problem:
                return f"{which}[{short(name, 40)}]: {problem}"
    case = rec["case"]
    problem = _field_problem(case, {k: _CASE_JSON_FIELDS[k] for k in ("id", "op", "inputs", "params")},
                             _CASE_JSON_FIELDS, prefix="case ")
    if problem:
        return problem
    for name, enc in case["inputs"].items():
        problem = array_problem(enc)
        if problem:
            return f"case input {short(name, 40)}: {problem}"
    return ""


def check_record(rec, path="<results>", line=0) -> dict:
    """The record, when it is one docs/RESULTS.md describes (every known field of its JSON type, every
    array well-formed and within the size limit, nothing decoded); else ResultsError naming file and line."""
    problem = record_problem(rec)
    if problem:
        raise ResultsError(path, line, problem)
    return rec


def read_case(rec: dict, path="<results>", line=0):
    """The Case stored in a case record (validated: content hash, arrays, sizes)."""
    from contract.case import Case
    try:
        return Case.from_json(rec["case"])
    except CodecError as e:
        raise ResultsError(path, line, f"bad case: {e}") from None


def read_values(rec: dict, which: str = "actual_values", path="<results>", line=0) -> dict:
    out = {}
    values = rec.get(which) or {}
    if not isinstance(values, dict):
        raise ResultsError(path, line, f"{which} must be an object; got {short(values, 60)}")
    for k, v in values.items():
        if isinstance(v, dict) and "unencodable" in v:
            continue
        try:
            out[k] = decode_array(v)
        except CodecError as e:
            raise ResultsError(path, line, f"{which}[{k!r}]: {e}") from None
    return out


def file_sha256(path) -> str:
    """"sha256:" + hex SHA-256 of a file's exact bytes (docs/CERTIFY.md), read in bounded memory."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()
