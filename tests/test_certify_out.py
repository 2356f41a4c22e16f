"""conform certify's --out folder, progress and time line, and a certificate's report scope (issue 37, item 7)."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from conform.cli import Progress
from contract.case import Case
from suites.corpus import write_corpus

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "examples" / "vendor_adapter"
SPEC = "vendor_clip.adapter:VendorClipAdapter"


def conform(*args, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(VENDOR), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "conform.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.jsonl"
    write_corpus(path, [Case("clip", {"x": np.array([1.0, 2.0, 3.0], np.float32)},
                             {"min": {"kind": "float", "value": 4.0}, "max": {"kind": "float", "value": 2.0}},
                             clauses=("CL-MIN-GT-MAX",), origin="regression", label="min>max -> max")])
    return path


def test_certify_refuses_an_out_folder_holding_a_certificate_unless_told_to_replace_it(tmp_path):
    corpus, out = _corpus(tmp_path), tmp_path / "cert"
    first = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", out)
    assert first.returncode == 1, first.stderr
    assert re.search(r"^conform: time: \S+ in all", first.stderr, re.M), first.stderr
    before = {f: (out / f).read_bytes() for f in ("certificate.json", "results.jsonl")}
    again = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", out)
    assert again.returncode == 2, (again.returncode, again.stderr)
    assert "already holds certificate.json and results.jsonl: pass --replace" in again.stderr, again.stderr
    assert {f: (out / f).read_bytes() for f in before} == before, "the earlier certificate is untouched"
    (out / "certificate.json").unlink()          # results alone are refused too
    assert conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", out).returncode == 2
    replaced = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", out, "--replace")
    assert replaced.returncode == 1 and (out / "certificate.json").is_file(), replaced.stderr
    verified = conform("verify", out, "--sample", "1")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert re.search(r"^conform: time: \S+ in all", verified.stderr, re.M), verified.stderr


def test_a_certificates_report_holds_only_the_claimed_ops_contradictions_and_gaps(tmp_path):
    from reports.model import conflict_catalogue
    out = tmp_path / "cert"
    r = conform("certify", "--adapter", SPEC, "--op", "clip", "--corpus", _corpus(tmp_path), "--out", out)
    assert r.returncode == 1, r.stderr
    html = (out / "report.html").read_text()
    others = [c for c in conflict_catalogue() if c.op != "clip"]
    assert others, "the documents' contradictions of other ops (set_'s)"
    for c in others:
        assert c.id not in html, f"{c.op}'s contradiction {c.id} in a certificate of clip alone"


def test_progress_of_one_adapter_shows_one_count():
    out = io.StringIO()
    bar = Progress(out, clock=lambda: 5.0)
    bar.per_adapter = lambda: [("mlx", 1364, 2601, 2, 30.0)]      # calls ended, ahead of the results written
    bar(1109, 2601, {"pass": 1109})
    line = out.getvalue()
    assert re.findall(r"\d+/\d+", line) == ["1109/2601"] and "mlx x2" in line, line
