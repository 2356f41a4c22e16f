"""Results files for the report tests, built from real Cases in the docs/RESULTS.md format.

The verdicts are chosen by the test, not judged: these files exercise the
report, diff, merge and certificate code, not the judge.
"""
from __future__ import annotations

import json
import platform
import sys

import numpy as np

from contract.case import Case
from adapters.base import RAISED, Outcome
from contract.codec import decode_array, encode_array
from suites.judge import answer_of

SUITE_VERSION = "0.1.0"
CORPUS_HASH = "sha256:" + "ab" * 32
ADAPTERS = {
    "oracle": ("0.1.0", "NumPy reference, in-process", "oracle.clip"),
    "torch": ("2.13.0+cpu", "in a worker process", "torch.clamp"),
    "vendor": ("1.0", "in a worker process", "vendor.clip"),
    # long names on purpose: the report's layout must hold them
    "mindspore": ("2.10.0", "mindspore CPU, synchronous kernel launches, in a worker process", "mindspore.ops.clamp"),
    "mindspore-variants": ("2.10.0", "mindspore CPU, in a worker process", "mindspore.ops.clip_by_value"),
    "pypto": ("0.2.0", "tensor-graph interpreter on CPU, in a worker process", "pypto.clip"),
}
FIVE = ("oracle", "mindspore", "mindspore-variants", "pypto", "torch")


def clip_case(n=4, lo=1.0, hi=3.0, seed=0, dtype="float32", label=""):
    x = (np.arange(n, dtype=np.float64) + seed * 0.25).astype(dtype)
    return Case("clip", {"x": x}, {"min": {"kind": "float", "value": lo}, "max": {"kind": "float", "value": hi}},
                clauses=("CL-MIN-GT-MAX", "CL-FORMULA") if lo > hi else ("CL-FORMULA",),
                label=label or f"clip n={n} seed={seed}")


def clip_expected(case):
    x = case.inputs["x"]
    lo, hi = (case.params.get(b, {}).get("value") for b in ("min", "max"))     # an omitted bound clips nothing
    out = x if lo is None else np.maximum(x, x.dtype.type(lo))
    return out if hi is None else np.minimum(out, x.dtype.type(hi))            # CL-FORMULA


def header(run_id="run-1", adapters=("oracle", "torch"), corpus_hash=CORPUS_HASH,
           suite_version=SUITE_VERSION, shard="1/1", cases=0, profile="ci"):
    return {"record": "run", "schema": 1, "run_id": run_id, "suite_version": suite_version,
            "corpus_hash": corpus_hash, "corpus_cases": cases, "profile": profile, "seed": 0,
            "started": "2026-11-30T16:00:00Z", "platform": platform.platform(),
            "python": sys.version.split()[0], "packages": {"numpy": np.__version__}, "shard": shard,
            "adapters": [{"name": a, "version": ADAPTERS.get(a, ("1", "", ""))[0],
                          "execution": ADAPTERS.get(a, ("", "in-process", ""))[1],
                          "available": True, "reason": ""} for a in adapters]}


def _outcome(case, verdict, rec, exc_class):
    """An outcome that gives `verdict`, for the record's `answer` as the judge writes it."""
    if verdict == "pass":       # the documents' answer, whatever the op (the oracle's, as a conforming adapter)
        from oracle.expect import expect
        exp = expect(case)
        if exp.outputs:
            return Outcome.returned(**{name: e.value for name, e in exp.outputs.items()})
        return Outcome(RAISED, exc_type=(exp.error_classes or ("RuntimeError",))[0])
    if verdict == "value-mismatch":
        return Outcome.returned(out=decode_array(rec["actual_values"]["out"]))
    if verdict in ("unexpected-error", "wrong-error-class"):
        return Outcome(RAISED, exc_type=exc_class or "RuntimeError")
    return Outcome(verdict)     # one answer per other verdict: enough for the report's tests


def case_record(case, adapter, verdict, run_id="run-1", actual=None, message="", exc_class="",
                expected_divergence=None):
    version, _, api = ADAPTERS.get(adapter, ("1", "", f"{adapter}.{case.op}"))
    rec = {"record": "case", "schema": 1, "run_id": run_id, "case_id": case.id, "op": case.op,
           "adapter": adapter, "adapter_version": version, "native_api": api, "verdict": verdict,
           "clauses": list(case.clauses), "expected": "returns out: float32 exact",
           "outcome": "returned out", "repro": f"import {adapter}\n{api}(x, min, max)  # case {case.id}",
           "elapsed_s": 0.001, "case": case.to_json()}
    if verdict == "value-mismatch":
        exp = clip_expected(case)
        act = exp.copy() if actual is None else np.asarray(actual, dtype=exp.dtype)
        if actual is None:
            act.flat[0] = act.flat[0] + 7
        diff = np.argwhere(exp != act)
        rec["outcome"] = f"returned out: {len(diff)} of {exp.size} elements differ"
        rec["mismatch"] = {"output": "out", "count": int(len(diff)), "total": int(exp.size),
                           "indices": diff.tolist()[:64]}
        rec["expected_values"] = {"out": encode_array(exp)}
        rec["actual_values"] = {"out": encode_array(act)}
    elif verdict in ("unexpected-error", "wrong-error-class"):
        rec["outcome"] = f"raised {exc_class or 'RuntimeError'}: {message.splitlines()[0] if message else ''}"
        rec["error"] = {"expected_class": None, "actual_class": exc_class or "RuntimeError",
                        "message": message, "stderr": ""}
    elif verdict == "crash":
        rec["outcome"] = "crashed with signal 11"
    rec["answer"] = answer_of(_outcome(case, verdict, rec, exc_class))
    if expected_divergence:
        rec["expected_divergence"] = expected_divergence
    return rec


def end_record(records, run_id="run-1"):
    counts = {}
    for r in records:
        if r.get("record") == "case":
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return {"record": "end", "schema": 1, "run_id": run_id, "finished": "2026-11-30T16:01:00Z",
            "cases": sum(counts.values()), "counts": counts}


def write_results(path, records, end=True, **header_kw):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header(**header_kw)) + "\n")
        for r in records:
            f.write(json.dumps(r) + "\n")
        if end:
            f.write(json.dumps(end_record(records, header_kw.get("run_id", "run-1"))) + "\n")
    return path


def small_run(n_cases=6):
    """oracle passes everything; torch fails the first two cases (one mismatch, one error)."""
    cases = [clip_case(n=3 + i, seed=i) for i in range(n_cases)]
    recs = [case_record(c, "oracle", "pass") for c in cases]
    for i, c in enumerate(cases):
        verdict = "value-mismatch" if i == 0 else "unexpected-error" if i == 1 else "pass"
        recs.append(case_record(c, "torch", verdict, message="boom <script>alert(1)</script>"))
    return cases, recs


def five_adapter_run(listed=60):
    """The shipped adapters' shape of a run: 5 adapters, unlisted and listed divergences, no-mapping, extensions.

    oracle passes 6 cases; torch fails 2 of them, unlisted (a mismatch, an error
    with markup in its message); mindspore has `listed` value-mismatches, all
    listed (expected divergences, more than one page of cases); mindspore-variants
    has no mapping; pypto extends 2 and has 1 listed crash.  Gate: 2 unlisted,
    listed + 1 expected, exit 1.
    """
    cases, recs = small_run(6)
    for i in range(listed):
        # the first label starts like a spreadsheet formula: the CSV export must defuse it
        c = clip_case(n=2 + i % 7, seed=100 + i, label="=1+1 ms listed 000" if i == 0 else f"ms listed {i:03d}")
        recs.append(case_record(c, "mindspore", "value-mismatch",
                                expected_divergence="mindspore.ops.clamp: = a listed reason, shown as text"))
    recs += [case_record(c, "mindspore", "pass") for c in cases]
    recs += [case_record(c, "mindspore-variants", "not-applicable") for c in cases]
    recs += [case_record(c, "pypto", "extension") for c in cases[:2]]
    recs += [case_record(c, "pypto", "pass") for c in cases[2:5]]
    recs.append(case_record(cases[5], "pypto", "crash", expected_divergence="pypto's interpreter dies on this shape"))
    return cases, recs


def unpacked(html: str, block: str):
    """The JSON of one of report.html's packed blocks ("failing-data", "group-bodies": reports.render.packed)."""
    import base64
    import gzip
    import re
    packed = re.search(rf'<script type="application/octet-stream" id="{block}">([^<]*)</script>', html).group(1)
    assert re.fullmatch(r"[A-Za-z0-9+/=]*", packed), "a packed block holds base64 only"
    return json.loads(gzip.decompress(base64.b64decode(packed)))


def report_text(path) -> str:
    """report.html as a reader of the open page meets its text: the page, every failure group's body (drawn
    when the group opens) and the failing cases' data, both of which the file carries packed."""
    html = open(path, encoding="utf-8").read()
    return html + "".join(unpacked(html, "group-bodies")) + json.dumps(unpacked(html, "failing-data"))
