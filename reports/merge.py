"""Join results files of shards or parallel workers into one results file.

Refuses inputs that were not made from the same corpus by the same suite:
their case ids would not mean the same cases.  Keeps the first record of each
(case_id, adapter) and reports a later record that disagrees with it (a
non-deterministic candidate, or a shard run on another build) instead of
hiding it.  Streams: memory holds one key and one verdict per record.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

from contract.outputfile import refuse_non_regular
from contract.results import adapter_identity, named_identities

from . import model as M


class MergeError(ValueError):
    """Inputs that must not be merged; the message names the files and the field that differs."""


class IncompleteError(MergeError):
    """Inputs that do not cover the corpus (a missing shard, an interrupted one); `problems` says which."""

    def __init__(self, problems):
        super().__init__("refusing to merge an incomplete set (--allow-incomplete writes it, marked "
                         "complete: false):\n  " + "\n  ".join(problems))
        self.problems = problems


IDENTITY = ("schema", "suite_version", "corpus_hash")


def read_header(path) -> dict:
    for rec in M.iter_records(path):
        if rec.get("record") != "run":
            raise M.ReportInputError(f"{path}:1: the first record is not a run header")
        return rec
    raise M.ReportInputError(f"{path}:1: empty results file (no run header)")


def check_compatible(paths) -> list:
    headers = [read_header(p) for p in paths]
    first = headers[0]
    for p, h in zip(paths[1:], headers[1:]):
        for key in IDENTITY:
            if h.get(key) != first.get(key):
                raise MergeError(f"refusing to merge: {p}:1 has {key} {h.get(key)!r}, "
                                 f"but {paths[0]}:1 has {first.get(key)!r}")
    # One adapter's verdicts under two versions (or Pythons, NumPys) are not one run: resume refuses the
    # same mix, and the merged header could name only one of them.
    made_by = {}
    for p, h in zip(paths, headers):
        for a in h.get("adapters") or []:
            ident = adapter_identity(a)
            p0, ident0 = made_by.setdefault(ident[0], (p, ident))
            if ident != ident0:
                raise MergeError(f"refusing to merge: {p}:1 ran adapter {named_identities([ident])}, "
                                 f"but {p0}:1 ran {named_identities([ident0])}")
    return headers


def merged_header(paths, headers) -> dict:
    adapters, seen = [], set()
    for h in headers:
        for a in h.get("adapters") or []:
            if a.get("name") not in seen:
                seen.add(a.get("name"))
                adapters.append(a)
    first = headers[0]
    out = {k: v for k, v in first.items() if k not in ("run_id", "started", "shard", "adapters")}
    out.update({"record": "run", "schema": 1, "run_id": _merged_run_id(headers),
                "started": min(str(h.get("started", "")) for h in headers),
                "shard": "merged", "merged_from": [{"path": str(p), "run_id": h.get("run_id", ""),
                                                   "shard": h.get("shard", "")} for p, h in zip(paths, headers)],
                "adapters": adapters})
    return out


def _merged_run_id(headers) -> str:
    # From the inputs, not random: merging the same shards twice gives the same file apart from timings.
    ids = sorted(str(h.get("run_id", "")) for h in headers)
    return "merge-" + hashlib.sha256("\n".join(ids).encode()).hexdigest()[:12]


def merge(paths, out_path, allow_incomplete=False) -> dict:
    """Write the merged results to out_path (atomically); return {"records", "duplicates", "conflicts", "counts",
    "complete", "incomplete"}.

    Inputs that do not cover the corpus (M.completeness_problems) raise IncompleteError and write nothing,
    unless allow_incomplete: then the merged end record says `"complete": false` and lists why."""
    paths = [Path(p) for p in paths]
    if not paths:
        raise MergeError("nothing to merge: give at least one results file")
    headers = check_compatible(paths)
    header = merged_header(paths, headers)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    refuse_non_regular(out_path)
    first, counts = M.FirstRecords(), Counter()
    files = [[str(p), h, None] for p, h in zip(paths, headers)]
    per_adapter = Counter()
    fd, tmp = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".tmp", dir=out_path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(header) + "\n")
            for i, p in enumerate(paths):
                for rec in M.iter_records(p):
                    if rec.get("record") == "end":
                        files[i][2] = rec
                    if rec.get("record") != "case":
                        continue
                    if not first.keep(rec, p):
                        continue
                    counts[rec["verdict"]] += 1
                    per_adapter[rec["adapter"]] += 1
                    rec = dict(rec, run_id=header["run_id"])
                    f.write(json.dumps(rec) + "\n")
            problems = M.completeness_problems(files, per_adapter)
            if problems and not allow_incomplete:
                raise IncompleteError(problems)
            end = {"record": "end", "schema": 1, "run_id": header["run_id"], "finished": _now(),
                   "cases": sum(counts.values()), "counts": dict(counts), "complete": not problems}
            if problems:
                end["incomplete"] = problems
            f.write(json.dumps(end) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, out_path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return {"out": str(out_path), "records": sum(counts.values()), "duplicates": first.duplicates,
            "conflicts": first.conflicts, "counts": dict(counts), "run_id": header["run_id"],
            "complete": not problems, "incomplete": problems}


def _now():
    import datetime as _dt
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
