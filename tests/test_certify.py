"""`conform certify` end to end with the worked vendor example, and the certificate's contents."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from contract.case import Case
from reports.certify import build_certificate
from suites.corpus import write_corpus

from report_fixtures import case_record, clip_case, write_results

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "examples" / "vendor_adapter"
SPEC = "vendor_clip.adapter:VendorClipAdapter"


@pytest.fixture
def vendor_path(monkeypatch):
    monkeypatch.syspath_prepend(str(VENDOR))


def _bound(v):
    return {"kind": "float", "value": v}


def corpus_cases():
    f32 = np.float32
    return [
        Case("clip", {"x": np.array([-2.0, 0.5, 3.0, 7.0], f32)}, {"min": _bound(0.0), "max": _bound(5.0)},
             clauses=("CL-FORMULA",), origin="regression", label="inside and outside [0, 5]"),
        Case("clip", {"x": np.array([1.0, 2.0, 3.0], f32)}, {"min": _bound(4.0), "max": _bound(2.0)},
             clauses=("CL-MIN-GT-MAX",), origin="regression", label="min>max -> max"),
        Case("clip", {"x": np.array([[1.0, 9.0], [4.0, -3.0]], f32), "min": np.array([[0.0], [2.0]], f32),
                      "max": np.array([[5.0], [3.0]], f32)},
             {"min": {"kind": "tensor"}, "max": {"kind": "tensor"}},
             clauses=("CL-BROADCAST",), origin="regression", label="tensor bounds [m, 1]"),
        Case("clip", {"x": np.array([5, -5, 0], np.int32)}, {}, clauses=("CL-NONE",), origin="regression",
             label="no bounds"),
    ]


def test_vendor_adapter_runs_the_vendor_call_and_shows_its_quirk(vendor_path):
    from vendor_clip.adapter import VendorClipAdapter
    a = VendorClipAdapter()
    assert a.available() == (True, "") and a.version() == "1.0.0"
    ok, gt = corpus_cases()[:2]
    np.testing.assert_array_equal(a.run(ok).arrays["out"], np.array([0.0, 0.5, 3.0, 5.0], np.float32))
    # CL-MIN-GT-MAX: where lo > hi the document says hi (2.0); the vendor's order of operations gives lo (4.0)
    np.testing.assert_array_equal(a.run(gt).arrays["out"], np.array([4.0, 4.0, 4.0], np.float32))
    assert "vendor_clip.clip(x, min=4.0, max=2.0)" in a.repro(gt)
    assert a.run(Case("scatter", {"input": np.zeros(2), "index": np.zeros(2, np.int64), "src": np.ones(2)},
                      {"dim": 0})).kind == "not_applicable"


def test_certificate_from_results(tmp_path):
    cs = [clip_case(n=3 + i, seed=i) for i in range(3)] + [clip_case(n=2, lo=3.0, hi=1.0)]
    recs = [case_record(c, "vendor", "pass") for c in cs[:3]] + [case_record(cs[3], "vendor", "value-mismatch")]
    p = write_results(tmp_path / "results.jsonl", recs, adapters=("vendor",), profile="certify")
    cert = build_certificate(p, adapter_spec="vendor_clip.adapter:VendorClipAdapter")
    assert cert["adapter"]["name"] == "vendor" and cert["suite"]["profile"] == "certify"
    assert cert["totals"]["pass"] == 3 and cert["totals"]["value-mismatch"] == 1
    clip = cert["ops"]["clip"]
    # the mismatch is attributed to CL-MIN-GT-MAX, the rule its case was written for
    assert clip["clauses_failed"] == ["CL-MIN-GT-MAX"] and clip["clauses_met"] == ["CL-FORMULA"]
    assert cert["run"]["complete"] is True
    # verdicts_sha256 ignores timings and record order; results_sha256 is the exact file
    shuffled = write_results(tmp_path / "b.jsonl", [dict(r, elapsed_s=9.9) for r in reversed(recs)],
                             adapters=("vendor",), profile="certify")
    again = build_certificate(shuffled)
    assert again["results"]["verdicts_sha256"] == cert["results"]["verdicts_sha256"]
    assert again["results"]["results_sha256"] != cert["results"]["results_sha256"]


def test_certify_end_to_end_with_the_vendor_adapter(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, corpus_cases())
    out = tmp_path / "cert"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(VENDOR), str(ROOT)]))
    r = subprocess.run([sys.executable, "-m", "reports.commands", "certify", "--adapter", SPEC,
                        "--corpus", str(corpus), "--out", str(out), "--case-timeout", "60"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert (out / "certificate.json").is_file(), f"no certificate; exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert r.returncode == 1, f"exit {r.returncode}, expected 1 (a failing case)\n{r.stdout}\n{r.stderr}"
    cert = json.loads((out / "certificate.json").read_text())
    clip = cert["ops"]["clip"]
    assert cert["adapter"]["version"] == "1.0.0" and cert["suite"]["profile"] == "certify"
    assert clip["counts"]["value-mismatch"] == 1, clip
    assert clip["clauses_failed"] == ["CL-MIN-GT-MAX"], clip
    assert {"CL-FORMULA", "CL-BROADCAST", "CL-NONE"} <= set(clip["clauses_met"]), clip
    assert sum(clip["counts"].values()) == 4
    assert (out / "report.html").is_file() and (out / "summary.json").is_file()
    assert "vendor_clip.clip(x, min=4.0, max=2.0)" in (out / "report.html").read_text()


def test_certify_unknown_adapter_exits_5(tmp_path):
    r = subprocess.run([sys.executable, "-m", "reports.commands", "certify", "--adapter", "no_such_mod:Nope",
                        "--out", str(tmp_path / "c"), "--corpus", str(tmp_path / "none.jsonl")],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 5, r.stderr
    assert "no_such_mod" in r.stderr
    assert not (tmp_path / "c" / "certificate.json").exists()
