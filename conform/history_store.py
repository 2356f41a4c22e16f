"""The history store (the conform layer: it re-judges with suites.judge): one sqlite3 file indexing many runs' results, by framework, release, mode and case.

Results files stay the artifact of a run; the store indexes them (docs/HISTORY.md).  A run is one adapter's
records of one results file: (run_id, adapter) is its identity, so adding the same file twice adds nothing.
Each case row keeps the record's outcome (its outcome text, error and values, as the results file has them)
beside the verdict, so `rejudge` can judge the stored outcomes again with the current oracle without running
any framework.  A file is read and checked in full before the one transaction that adds it: a damaged or
foreign file adds nothing.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import replace

from contract.expectation import ERROR, UNSPECIFIED
from contract.results import check_record, iter_records
from oracle.identity import oracle_id

SCHEMA = 1
_TABLES = """
create table if not exists meta (key text primary key, value text);
create table if not exists runs (
  id integer primary key, run_id text, adapter text, framework text, release text, mode text,
  suite_version text, corpus_hash text, machine text, date text, source text, source_sha256 text,
  judged_by text, unique (run_id, adapter));
create table if not exists cases (
  run integer references runs(id), case_id text, op text, verdict text, listed text, key text,
  record text, judged_by text, primary key (run, case_id));
create index if not exists cases_by_case on cases (case_id);
"""


class HistoryError(Exception):
    """A history file that is not one, or a results file refused whole; the message names the file."""


def release_of(version: str) -> str:
    """'2.0.2 (array API 2022.12)' -> '2.0.2' (the adapter's version, as its worker reported it)."""
    return (version or "").split(" ")[0] or "unknown"


def open_store(path) -> sqlite3.Connection:
    fresh = not os.path.exists(path)
    if fresh and os.path.dirname(os.path.abspath(path)):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        db = sqlite3.connect(path)
        if fresh:
            db.executescript(_TABLES)
            db.execute("insert into meta values ('schema', ?)", (str(SCHEMA),))
            db.commit()
        got = db.execute("select value from meta where key = 'schema'").fetchone()
    except sqlite3.DatabaseError as e:
        raise HistoryError(f"{path}: not a history store ({e})") from None
    if not got or got[0] != str(SCHEMA):
        raise HistoryError(f"{path}: a history store of schema {got and got[0]}, this suite reads {SCHEMA}")
    return db


def _read(path) -> tuple:
    """(header, [case records]) of a results file, every record checked; ResultsError / HistoryError."""
    header, cases = None, []
    for n, rec in enumerate(iter_records(path, allow_truncated=False), 1):
        check_record(rec, path, n)
        if rec["record"] == "run":
            if header is not None:
                raise HistoryError(f"{path}:{n}: a second run header (merge shards with `conform merge` first)")
            header = rec
        elif rec["record"] == "case":
            if header is None or rec["run_id"] != header["run_id"]:
                raise HistoryError(f"{path}:{n}: a case record of another run than the header's")
            cases.append(rec)
    if header is None:
        raise HistoryError(f"{path}: no run header: not a results file (docs/RESULTS.md)")
    return header, cases


def add(db, path) -> dict:
    """Add one results file: {"runs": added, "skipped": already there, "cases": added}.  All or nothing."""
    from adapters.registry import MODES, SHIPPED
    from contract.results import file_sha256
    header, cases = _read(path)
    adapters = {a["name"]: a for a in header.get("adapters") or ()}
    judged = header.get("oracle") or ""
    out = {"runs": 0, "skipped": 0, "cases": 0}
    with db:        # one transaction: an error below rolls every row of this file back
        for name in sorted({r["adapter"] for r in cases}):
            if db.execute("select 1 from runs where run_id = ? and adapter = ?",
                          (header["run_id"], name)).fetchone():
                out["skipped"] += 1
                continue
            mine = [r for r in cases if r["adapter"] == name]
            info = adapters.get(name, {})
            version = info.get("version") or mine[0].get("adapter_version", "")
            row = SHIPPED.get(name)
            framework = (row.release_package or (row.frameworks or ("",))[0]) if row else ""
            cur = db.execute(
                "insert into runs (run_id, adapter, framework, release, mode, suite_version, corpus_hash, machine,"
                " date, source, source_sha256, judged_by) values (?,?,?,?,?,?,?,?,?,?,?,?)",
                (header["run_id"], name, framework or name, release_of(version),
                 "compiled" if name in MODES else "eager", header.get("suite_version", ""),
                 header.get("corpus_hash", ""), header.get("platform", ""), header.get("started", ""),
                 os.path.abspath(path), file_sha256(path), judged))
            seen = set()
            for r in mine:
                if r["case_id"] in seen:        # a resumed run's repeat: its first record counts, as for the run
                    continue
                seen.add(r["case_id"])
                db.execute("insert into cases values (?,?,?,?,?,?,?,?)",
                           (cur.lastrowid, r["case_id"], r["op"], r["verdict"], r.get("expected_divergence"),
                            _key(r), json.dumps(r, separators=(",", ":")), judged))
            out["runs"] += 1
            out["cases"] += len(seen)
    return out


def _key(rec) -> str:
    from suites.judge import record_key
    return record_key(rec)


def add_files(db, paths) -> list:
    """Each file added in its own transaction, after every file was checked: (path, counts) each."""
    for p in paths:
        if not os.path.isfile(p):
            raise HistoryError(f"{p}: no such results file")
    return [(p, add(db, p)) for p in paths]


# ---- re-judging -------------------------------------------------------------------------

def outcome_of(rec):
    """The Outcome a record keeps, or None where the results file kept too little (a returned answer that
    conformed: its values are not written, only their digest)."""
    from adapters.base import CRASHED, NOT_APPLICABLE, RAISED, RETURNED, TIMED_OUT, Outcome
    from contract.results import read_values
    text = rec.get("outcome", "")
    err = rec.get("error") or {}
    native = rec.get("native_api", "")
    if text.startswith("raised "):
        # a failing record names the class in `error`; a passing one keeps only its outcome line
        cls = err.get("actual_class") or text[len("raised "):].split(":", 1)[0].strip()
        # the record keeps the class, not its bases; a pass proved it a subclass of an admitted one
        admitted = (err.get("expected_class") or "").split(" or ") if rec["verdict"] == "pass" else []
        mro = tuple(dict.fromkeys([cls, *[a for a in admitted if a], "Exception", "BaseException", "object"]))
        return Outcome(RAISED, exc_type=cls, exc_mro=mro, message=err.get("message", ""),
                       stderr=err.get("stderr", ""), native_api=native)
    if rec["verdict"] == "not-applicable":
        return Outcome(NOT_APPLICABLE, message=text, native_api=native)
    if rec["verdict"] in ("crash", "timeout"):
        return None             # not a framework answer an oracle can judge otherwise
    values = read_values(rec)
    if rec.get("actual_values") and values:
        return Outcome(RETURNED, arrays=values, native_api=native)
    if text.startswith("returned"):
        return Outcome(RETURNED, arrays=None, native_api=native)    # returned; its values were not kept
    return None


_VALUELESS = (ERROR, UNSPECIFIED)     # Expectation kinds whose verdict on a return needs no values


def rejudge(db, progress=None) -> dict:
    """Judge every stored outcome again with the current oracle: {"records", "rejudged", "changed",
    "kept", "seconds", "oracle"}.  No framework runs; a record whose outcome was not kept keeps its verdict."""
    from contract.results import read_case
    from oracle.expect import expect
    from suites.judge import judge
    now = oracle_id()
    t0 = time.monotonic()
    out = {"records": 0, "rejudged": 0, "changed": 0, "kept": 0, "oracle": now}
    rows = db.execute("select run, case_id, verdict, record from cases").fetchall()
    cases = {}
    with db:
        for run, case_id, verdict, text in rows:
            out["records"] += 1
            rec = json.loads(text)
            outcome = outcome_of(rec)
            if outcome is None:
                out["kept"] += 1
                continue
            if case_id not in cases:    # a case id is its content's hash: one oracle answer serves every run
                case = read_case(rec)
                cases[case_id] = (case, expect(case))
            if outcome.arrays is None:
                # a return whose values were not kept is judged only where the answer needs no value: an error
                # (missing-error) or an unsupported call (extension)
                if cases[case_id][1].kind not in _VALUELESS:
                    out["kept"] += 1
                    continue
                outcome = replace(outcome, arrays={})
            v = judge(*cases[case_id], outcome, _Named(rec))
            out["rejudged"] += 1
            if v.verdict != verdict:
                out["changed"] += 1
                rec["verdict"] = v.verdict
                db.execute("update cases set verdict = ?, record = ?, key = ? where run = ? and case_id = ?",
                           (v.verdict, json.dumps(rec, separators=(",", ":")), _key(rec), run, case_id))
        db.execute("update cases set judged_by = ?", (now,))
        db.execute("update runs set judged_by = ?", (now,))
    out["seconds"] = round(time.monotonic() - t0, 3)
    return out


class _Named:
    """What judge() reads of an adapter (its name and version), from a stored record: nothing is run."""

    def __init__(self, rec):
        self.name, self.version = rec["adapter"], rec.get("adapter_version", "")


# ---- reading ----------------------------------------------------------------------------

def runs(db, adapter=None) -> list:
    q = "select id, adapter, framework, release, mode, date from runs"
    rows = db.execute(q + (" where adapter = ?" if adapter else ""), (adapter,) if adapter else ()).fetchall()
    from adapters.releases import version_key
    return sorted(rows, key=lambda r: (r[1], version_key(r[3]), r[5]))


def timeline(db, adapter) -> tuple:
    """(releases oldest first, {release: {case_id: record}}) of one adapter: the latest run of each release."""
    latest = {}
    for rid, _, _, release, _, _ in runs(db, adapter):
        latest[release] = rid           # runs() sorts by release then date: the last one wins
    return list(latest), {r: {c: v[3] for c, v in verdicts(db, rid).items()} for r, rid in latest.items()}


def analyses(db) -> list:
    """reports.history.analyse() of every adapter in the store."""
    from reports.history import analyse
    return [analyse(name, *timeline(db, name)) for name in sorted({r[1] for r in runs(db)})]


def verdicts(db, run_id) -> dict:
    """{case_id: (op, verdict, listed, record dict)} of one stored run."""
    return {c: (op, v, listed, json.loads(rec)) for c, op, v, listed, rec in
            db.execute("select case_id, op, verdict, listed, record from cases where run = ?", (run_id,))}
