"""conform certify's --out folder, progress and time line, and a certificate's report scope (issue 37, item 7)."""
from __future__ import annotations

import fnmatch
import io
import functools
import json
import re
from pathlib import Path

import numpy as np

from conform.cli import Progress
from contract.case import Case
from suites.corpus import write_corpus
from adapter_helpers import cli_env, conform as _conform

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "examples" / "vendor_adapter"
conform = functools.partial(_conform, env=cli_env(VENDOR, ROOT))     # the vendor example importable, as installed
SPEC = "vendor_clip.adapter:VendorClipAdapter"


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
    verified = conform("verify", out, "--sample", "1", "--accept-other-corpus", "--challenge", "20")
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


# ---- conform expectations draft (issue 37, item 4) ------------------------------------------------

def test_a_draft_lists_every_unlisted_divergence_by_cause_and_certify_refuses_it_until_reasons_are_written(tmp_path):
    from collections import Counter

    from suites.corpus import iter_corpus
    from suites.known_divergences import DRAFT_REASON, KnownDivergences
    from suites.judge import record_key
    corpus, out = tmp_path / "corpus.jsonl", tmp_path / "cert"
    write_corpus(corpus, [c for c in iter_corpus() if c.op in ("clip", "scatter")][::4])
    first = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", out)
    assert first.returncode == 1, first.stderr
    recs = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    failing = [r for r in recs if r.get("record") == "case" and r["verdict"] not in ("pass", "extension",
                                                                                    "not-applicable")]
    r = conform("expectations", "draft", out / "results.jsonl")
    assert r.returncode == 0, r.stderr
    draft = tmp_path / "draft.txt"
    draft.write_text(r.stdout)
    lines = KnownDivergences.load(str(draft)).patterns
    assert lines and all(p.reason == DRAFT_REASON for p in lines)
    # one line per cause: (op, verdict, clause, dtypes) each appear once
    causes = Counter(tuple(p.glob.split("/")[:4]) for p in lines)
    assert max(causes.values()) == 1, causes
    # the counts and examples it prints are what each line matches, and together every divergence
    counts = [int(x) for x in re.findall(r"^# (\d+) cases?, e\.g\. case ", r.stdout, re.M)]
    assert sum(counts) == len(failing) and len(counts) == len(lines), (counts, len(failing))
    check = conform("expectations", "check", draft, out / "results.jsonl")
    assert check.returncode == 0 and f"{len(failing)} listed, 0 unlisted" in check.stdout, check.stdout
    keys = {record_key(x) for x in failing}
    assert all(any(fnmatch.fnmatchcase(k, p.glob) for k in keys) for p in lines)
    # certify refuses the draft as it is, exit 3, and writes nothing
    refused = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", tmp_path / "c2",
                      "--expectations", draft)
    assert refused.returncode == 3 and DRAFT_REASON in refused.stderr and "draft.txt:" in refused.stderr, refused.stderr
    assert not (tmp_path / "c2").exists()
    written = tmp_path / "written.txt"
    written.write_text(r.stdout.replace(DRAFT_REASON, "vendor_clip applies the bounds in its own order (bug 7)"))
    ok = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", tmp_path / "c3", "--expectations", written)
    assert ok.returncode == 0, ok.stderr


# ---- a documented example shows its own verdict (issue 37, item 6) ---------------------------------

def test_a_failing_documented_example_shows_its_own_failure_whatever_rule_it_is_charged_to(tmp_path):
    from reports.model import build_model
    from suites.corpus import iter_corpus
    clip = [c for c in iter_corpus() if c.op == "clip"]
    examples = [c for c in clip if c.origin == "doc-example"]
    # CL-EX-1 has min > max: the vendor's bug; the other min > max cases make CL-MIN-GT-MAX the charged rule
    assert any("CL-MIN-GT-MAX" in c.clauses for c in examples)
    corpus, out = tmp_path / "corpus.jsonl", tmp_path / "cert"
    write_corpus(corpus, examples + [c for c in clip if "CL-MIN-GT-MAX" in c.clauses and c not in examples][:20])
    r = conform("certify", "--adapter", SPEC, "--corpus", corpus, "--out", out)
    assert r.returncode == 1, r.stderr
    recs = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    m = build_model([out / "results.jsonl"])
    for c in examples:
        own = next(x for x in recs if x.get("case_id") == c.id)
        ex = next(cid for cid in c.clauses if m.clause_kind(cid) == "ex")
        s = m.clause_stats[(ex, "vendor-clip")]
        failed = own["verdict"] not in ("pass", "extension")
        assert (s["fail"], s["pass"]) == ((1, 0) if failed else (0, 1)), (ex, own["verdict"], dict(s))
        cert = json.loads((out / "certificate.json").read_text())
        assert (ex in cert["ops"]["clip"]["clauses_failed"]) == failed, (ex, cert["ops"]["clip"])
    html = (out / "report.html").read_text()
    row = html[html.index('data-clause="CL-EX-1"'):]
    assert "1 ✗" in row[:row.index("</tr>")], row[:1500]


def test_a_draft_of_bad_input_is_one_line_and_its_exit_code(tmp_path):
    missing = conform("expectations", "draft", tmp_path / "none.jsonl")
    assert missing.returncode == 3 and "no such results file" in missing.stderr and "Traceback" not in missing.stderr
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    bad = conform("expectations", "draft", tmp_path / "bad.jsonl")
    assert bad.returncode == 3 and "Traceback" not in bad.stderr, bad.stderr
