"""The results file (docs/RESULTS.md): a streaming writer and a streaming, validating reader."""
from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import platform

import numpy as np

from contract.codec import CodecError, decode_array, encode_array
from contract.vocabulary import SUITE_VERSION

SCHEMA = 1
MAX_LINE = 64 << 20         # one record; a longer line is damage, and is never read whole
RECORD_KINDS = ("run", "case", "end")
_CASE_FIELDS = {"run_id": str, "case_id": str, "op": str, "adapter": str, "verdict": str,
                "clauses": list, "case": dict}
_RUN_FIELDS = {"run_id": str, "corpus_hash": str, "adapters": list}
_END_FIELDS = {"run_id": str, "cases": int, "counts": dict}


class ResultsError(ValueError):
    """A results file that is damaged other than by a truncated last line; names file and line."""


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
            "packages": _packages(), "shard": shard, "adapters": adapters}


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


# ---- reading -----------------------------------------------------------------------------

def iter_records(path: str, allow_truncated: bool = True):
    """Yield each record as a dict; a truncated last line (a killed run) is skipped.

    Any other damage raises ResultsError naming the file, the line and what is wrong.
    """
    with open(path, "rb") as f:
        n, run_id = 0, None
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                return
            n += 1
            last = not raw.endswith(b"\n")
            if len(raw) > MAX_LINE:
                raise ResultsError(f"{path}:{n}: line longer than {MAX_LINE} bytes")
            try:
                rec = json.loads(raw)
            except (ValueError, RecursionError) as e:    # also ints over 4300 digits, deep nesting
                if last and allow_truncated and f.read(1) == b"":
                    return      # the run was killed while writing this line
                raise ResultsError(f"{path}:{n}: not a JSON line ({e})") from None
            rec = check_record(rec, path, n)
            if n == 1 and rec["record"] != "run":
                raise ResultsError(f"{path}:1: the first record must be the run header, got a {rec['record']} record")
            if rec["record"] == "run":
                run_id = rec["run_id"]
            elif rec["run_id"] != run_id:
                raise ResultsError(f"{path}:{n}: run_id {rec['run_id'][:40]!r} differs from the header's {run_id!r}")
            yield rec


def check_record(rec, path="<results>", line=0) -> dict:
    where = f"{path}:{line}"
    if not isinstance(rec, dict):
        raise ResultsError(f"{where}: a record must be a JSON object, got {type(rec).__name__}")
    kind = rec.get("record")
    if kind not in RECORD_KINDS:
        raise ResultsError(f"{where}: 'record' must be one of {', '.join(RECORD_KINDS)}; got {str(kind)[:40]!r}")
    if rec.get("schema") != SCHEMA:
        raise ResultsError(f"{where}: schema {str(rec.get('schema'))[:40]!r} is not supported (this reader: {SCHEMA})")
    fields = {"run": _RUN_FIELDS, "case": _CASE_FIELDS, "end": _END_FIELDS}[kind]
    for name, typ in fields.items():
        if not isinstance(rec.get(name), typ) or (typ is int and isinstance(rec.get(name), bool)):
            raise ResultsError(f"{where}: {kind} record field {name!r} must be {typ.__name__}; "
                               f"got {str(rec.get(name))[:60]!r}")
    return rec


def read_case(rec: dict, path="<results>", line=0):
    """The Case stored in a case record (validated: content hash, arrays, sizes)."""
    from contract.case import Case
    try:
        return Case.from_json(rec["case"])
    except CodecError as e:
        raise ResultsError(f"{path}:{line}: bad case: {e}") from None


def read_values(rec: dict, which: str = "actual_values", path="<results>", line=0) -> dict:
    out = {}
    values = rec.get(which) or {}
    if not isinstance(values, dict):
        raise ResultsError(f"{path}:{line}: {which} must be an object; got {str(values)[:60]!r}")
    for k, v in values.items():
        if isinstance(v, dict) and "unencodable" in v:
            continue
        try:
            out[k] = decode_array(v)
        except CodecError as e:
            raise ResultsError(f"{path}:{line}: {which}[{k!r}]: {e}") from None
    return out
