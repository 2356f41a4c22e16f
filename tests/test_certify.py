"""`conform certify` and `conform verify` end to end with the worked vendor example; the certificate's contents."""
import csv
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from contract.case import Case
from reports.certify import build_certificate, write_certificate
from reports.model import EDGE_EMPTY
from suites.corpus import write_corpus

from report_fixtures import case_record, clip_case, report_text, write_results
from adapter_helpers import cli_env, conform

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "examples" / "vendor_adapter"
SPEC = "vendor_clip.adapter:VendorClipAdapter"
DOC = ROOT / "docs" / "CERTIFY.md"


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
        Case("scatter", {"input": np.zeros(3, f32), "index": np.array([2, 0], np.int64),
                         "src": np.array([1.0, 2.0], f32)}, {"dim": 0, "inplace": False},
             clauses=("SC-RULE",), origin="regression", label="one scatter case"),
    ]


@pytest.fixture
def small_corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_corpus(path, corpus_cases())
    return path


def test_vendor_adapter_runs_the_vendor_call_and_shows_its_quirk(vendor_path):
    from vendor_clip.adapter import VendorClipAdapter
    a = VendorClipAdapter()
    assert a.available() == (True, "") and a.version() == "1.0.0"
    ok, gt = corpus_cases()[:2]
    np.testing.assert_array_equal(a.run(ok).arrays["out"], np.array([0.0, 0.5, 3.0, 5.0], np.float32))
    # CL-MIN-GT-MAX: where lo > hi the document says hi (2.0); the vendor's order of operations gives lo (4.0)
    np.testing.assert_array_equal(a.run(gt).arrays["out"], np.array([4.0, 4.0, 4.0], np.float32))
    assert "vendor_clip.clip(x, min=4.0, max=2.0)" in a.repro(gt)
    sc = corpus_cases()[4]          # the second op the example maps
    np.testing.assert_array_equal(a.run(sc).arrays["out"], np.array([2.0, 0.0, 1.0], np.float32))
    assert "vendor_clip.scatter(input, 0, index, src)" in a.repro(sc)


def test_certificate_from_results(tmp_path):
    cs = [clip_case(n=3 + i, seed=i) for i in range(3)] + [clip_case(n=2, lo=3.0, hi=1.0)]
    recs = [case_record(c, "vendor", "pass") for c in cs[:3]] + [case_record(cs[3], "vendor", "value-mismatch")]
    p = write_results(tmp_path / "results.jsonl", recs, adapters=("vendor",), profile="certify", cases=4)
    cert = build_certificate(p, target="vendor_clip.adapter:VendorClipAdapter")
    assert cert["adapter"]["name"] == "vendor" and cert["suite"]["profile"] == "certify"
    assert cert["totals"]["pass"] == 3 and cert["totals"]["value-mismatch"] == 1
    assert cert["claimed_ops"] == ["clip"] and list(cert["ops"]) == ["clip"]
    clip = cert["ops"]["clip"]
    # the mismatch is attributed to CL-MIN-GT-MAX, the rule its case was written for
    assert clip["clauses_failed"] == ["CL-MIN-GT-MAX"] and clip["clauses_met"] == ["CL-FORMULA"]
    assert cert["run"]["complete"] is True
    # verdicts_sha256 ignores timings and record order; results_sha256 is the exact file
    shuffled = write_results(tmp_path / "b.jsonl", [dict(r, elapsed_s=9.9) for r in reversed(recs)],
                             adapters=("vendor",), profile="certify", cases=4)
    again = build_certificate(shuffled)
    assert again["results"]["verdicts_sha256"] == cert["results"]["verdicts_sha256"]
    assert again["results"]["results_sha256"] != cert["results"]["results_sha256"]
    # both digests, computed as docs/CERTIFY.md states them
    lines = sorted(f"{r['case_id']}\t{r['adapter']}\t{r['verdict']}\n" for r in recs)
    assert cert["results"]["verdicts_sha256"] == "sha256:" + hashlib.sha256("".join(lines).encode()).hexdigest()
    assert cert["results"]["results_sha256"] == "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
    # an interrupted run (no end record) does not certify the whole corpus
    cut = write_results(tmp_path / "cut.jsonl", recs, adapters=("vendor",), end=False, cases=4)
    assert build_certificate(cut)["run"]["complete"] is False


def test_unclaimed_ops_are_absent_not_inconclusive(tmp_path):
    cs = [clip_case(n=3 + i, seed=i) for i in range(2)]
    other = Case("scatter", {"input": np.zeros(2, np.float32), "index": np.zeros(1, np.int64),
                             "src": np.ones(1, np.float32)}, {"dim": 0}, clauses=("SC-RULE",))
    recs = [case_record(c, "vendor", "pass") for c in cs] + [case_record(other, "vendor", "not-applicable")]
    p = write_results(tmp_path / "r.jsonl", recs, adapters=("vendor",))
    cert = build_certificate(p)
    assert cert["claimed_ops"] == ["clip"] and set(cert["ops"]) == {"clip"}, "scatter was not claimed"
    assert cert["totals"]["not-applicable"] == 0


def test_a_failure_charged_to_another_ops_clause_stays_in_the_certificate(tmp_path):
    """A setitem case charged to a scatter clause: listed under setitem's failed clauses, as the report's
    failure group shows it, though scatter is not claimed."""
    case = Case("setitem", {"target": np.zeros(3, np.float32), "value": np.ones(1, np.float32)},
                {"key": {"int": 0}}, clauses=("SC-RULE",), origin="regression", label="cites scatter")
    p = write_results(tmp_path / "r.jsonl", [case_record(case, "vendor", "unexpected-error", message="no")],
                      adapters=("vendor",))
    cert = build_certificate(p)
    assert cert["claimed_ops"] == ["setitem"] and cert["ops"]["setitem"]["clauses_failed"] == ["SC-RULE"], cert["ops"]


def test_a_certify_report_shows_what_matters_for_one_candidate(tmp_path):
    from reports.render import write_report
    cs = [clip_case(n=3 + i, seed=i) for i in range(2)]
    p = write_results(tmp_path / "r.jsonl", [case_record(c, "vendor", "pass") for c in cs], adapters=("vendor",),
                      profile="certify")
    lines = p.read_text().splitlines(keepends=True)
    head = json.loads(lines[0])
    head["ops"] = ["clip"]
    p.write_text(json.dumps(head) + "\n" + "".join(lines[1:]))
    write_report([p], tmp_path / "out")
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<h2>Certification</h2>" in html and "<h2>CI gate</h2>" not in html
    assert 'id="agreement"' not in html, "one adapter: no agreement table"
    rows = re.findall(r'<tr id="clause-[^"]*" class="([^"]*)" data-clause="([^"]+)" data-op="([^"]+)"', html)
    assert rows and {op for _, _, op in rows} == {"clip"}, "another op's clauses are out of the run's scope"
    assert all(op == "clip" for cls, _, op in rows if cls == "gaprow")


def _edge_records():
    """scatter_nd_add: ordinary cases pass, every N = 0 case (indices.shape[-1] == 0) fails."""
    f32, i64 = np.float32, np.int64
    general = ("SNA-RULE", "SNA-SHAPES", "SNA-RETURN", "SNA-DUP")
    ok = [Case("scatter_nd_add", {"x": np.arange(4, dtype=f32) + i, "indices": np.array([[1], [1]], i64),
                                  "updates": np.ones(2, f32)}, {}, clauses=general) for i in range(4)]
    empty = [Case("scatter_nd_add", {"x": np.arange(3, dtype=f32) + i, "indices": np.zeros((2, 0), i64),
                                     "updates": np.ones((2, 3), f32)}, {}, clauses=general) for i in range(2)]
    return ([case_record(c, "vendor", "pass") for c in ok] +
            [case_record(c, "vendor", "unexpected-error", message="shape mismatch") for c in empty])


def test_an_edge_case_failure_is_not_charged_to_the_general_rule(tmp_path):
    p = write_results(tmp_path / "r.jsonl", _edge_records(), adapters=("vendor",))
    sna = build_certificate(p)["ops"]["scatter_nd_add"]
    assert sna["clauses_failed"] == [], sna
    assert {"SNA-RULE", "SNA-DUP", "SNA-SHAPES", "SNA-RETURN"} <= set(sna["clauses_met"])
    assert sna["edge_cases_failed"] == {EDGE_EMPTY: 2}


def test_a_failure_is_charged_to_the_clause_its_failures_go_with(tmp_path):
    # broadcasting alone works; min > max fails, also when the bounds broadcast (a rarer combination)
    f32 = np.float32

    def case(i, lo, hi, broadcast):
        x = np.arange(4, dtype=f32).reshape(2, 2) + i
        clauses = ("CL-FORMULA",) + (("CL-MIN-GT-MAX",) if lo > hi else ()) + (("CL-BROADCAST",) if broadcast else ())
        return Case("clip", {"x": x}, {"min": _bound(lo), "max": _bound(hi)}, clauses=clauses)
    recs = [case_record(case(i, 0.0, 9.0, True), "vendor", "pass") for i in range(6)]
    recs += [case_record(case(i, 5.0, 1.0, False), "vendor", "unexpected-error") for i in range(3)]
    recs += [case_record(case(9, 5.0, 1.0, True), "vendor", "unexpected-error")]
    clip = build_certificate(write_results(tmp_path / "r.jsonl", recs, adapters=("vendor",)))["ops"]["clip"]
    assert clip["clauses_failed"] == ["CL-MIN-GT-MAX"] and "CL-BROADCAST" in clip["clauses_met"], clip


def test_certify_end_to_end_with_the_vendor_adapter(tmp_path, small_corpus):
    out = tmp_path / "cert"
    r = conform("certify", "--adapter", SPEC, "--corpus", small_corpus, "--out", out, "--case-timeout", "60",
                "--junit", tmp_path / "junit.xml", env=cli_env(VENDOR, ROOT))
    assert (out / "certificate.json").is_file(), f"no certificate; exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert r.returncode == 1, f"exit {r.returncode}, expected 1 (a failing case)\n{r.stdout}\n{r.stderr}"
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["claimed_ops"] == ["clip", "scatter"] and list(cert["ops"]) == ["clip", "scatter"]
    clip = cert["ops"]["clip"]
    assert cert["adapter"]["version"] == "1.0.0" and cert["suite"]["profile"] == "certify"
    assert clip["counts"]["value-mismatch"] == 1, clip
    assert clip["clauses_failed"] == ["CL-MIN-GT-MAX"], clip
    assert {"CL-FORMULA", "CL-BROADCAST", "CL-NONE"} <= set(clip["clauses_met"]), clip
    assert sum(clip["counts"].values()) == 4 and cert["results"]["records"] == 5
    assert cert["ops"]["scatter"]["counts"]["pass"] == 1
    assert cert["adapter"]["source_sha256"] == "sha256:" + hashlib.sha256(
        (VENDOR / "vendor_clip" / "adapter.py").read_bytes()).hexdigest()
    assert cert["adapter"]["package"] is None and "not part of an installed distribution" in cert["adapter"]["package_note"]
    roles = [i["role"] for i in cert["environment"]["interpreters"]]
    assert roles == ["harness", "adapter vendor-clip"], roles
    assert all(i["executable"] and i["version"] for i in cert["environment"]["interpreters"])
    assert (out / "report.html").is_file() and (out / "summary.json").is_file()
    assert "vendor_clip.clip(x, min=4.0, max=2.0)" in report_text(out / "report.html")   # in its failure group
    assert "<testsuite name=\"vendor-clip\"" in (tmp_path / "junit.xml").read_text()


def test_certify_op_subset(tmp_path, small_corpus):
    out = tmp_path / "cert"
    r = conform("certify", "--adapter", "oracle", "--op", "scatter", "--corpus", small_corpus, "--out", out)
    assert r.returncode == 0, r.stderr
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["claimed_ops"] == ["scatter"] and list(cert["ops"]) == ["scatter"]
    assert cert["results"]["records"] == 1 and cert["totals"]["pass"] == 1
    header = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert header["ops"] == ["scatter"]
    # the oracle's own module comes from the suite's distribution, editable here: its files are not the module's
    pkg = cert["adapter"]["package"]
    assert pkg is None or (pkg["name"] == "tensor-conformance" and pkg["sha256"].startswith("sha256:"))


@pytest.mark.parametrize("args, code, says", [
    (["--op", "setitem"], 2, "--op setitem: adapter vendor-clip does not implement it (its ops: clip, scatter)"),
    (["--op", "clap"], 2, "invalid choice: 'clap'"),
    (["--jobs", "0"], 2, "'0' is not a whole number >= 1"),
    (["--case-timeout", "-5"], 2, "'-5' is not a number of seconds > 0"),
])
def test_certify_refuses_bad_options(tmp_path, small_corpus, args, code, says):
    out = tmp_path / "cert"
    r = conform("certify", "--adapter", SPEC, "--corpus", small_corpus, "--out", out, *args, env=cli_env(VENDOR, ROOT))
    assert r.returncode == code and says in r.stderr, (r.returncode, r.stderr)
    assert not (out / "certificate.json").exists()


def test_certify_unknown_adapter_exits_5(tmp_path):
    r = conform("certify", "--adapter", "no_such_mod:Nope", "--out", tmp_path / "c", "--corpus", tmp_path / "none.jsonl")
    assert r.returncode == 5, r.stderr
    assert "no_such_mod" in r.stderr
    assert not (tmp_path / "c" / "certificate.json").exists()


# ---- verify ----------------------------------------------------------------------------------------

@pytest.fixture
def certified(tmp_path, small_corpus):
    """A certificate of a private copy of the vendor package (so a test may edit its adapter)."""
    pkg = tmp_path / "pkg"
    shutil.copytree(VENDOR / "vendor_clip", pkg / "vendor_clip", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "cert"
    r = conform("certify", "--adapter", SPEC, "--corpus", small_corpus, "--out", out, env=cli_env(pkg, ROOT))
    assert r.returncode == 1, r.stderr
    return out, pkg


def verify(cert, pkg, *args):
    """The certificates here are made on a small corpus of their own: accepted as such."""
    return conform("verify", cert, "--accept-other-corpus", "--challenge", "20", *args, env=cli_env(pkg, ROOT))


def test_verify_accepts_an_untouched_certificate(certified, small_corpus):
    cert, pkg = certified
    r = verify(cert, pkg, "--corpus", small_corpus, "--seed", "7")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "re-ran 5 cases (seed 7;" in r.stdout and "verified:" in r.stdout
    assert "coverage: all 5 cases of the claimed ops" in r.stdout
    r = verify(cert, pkg, "--sample", "2")
    assert r.returncode == 0 and re.search(r"re-ran 2 cases \(seed \d+;", r.stdout), r.stdout
    assert "coverage not checked" in r.stdout, "the shipped corpus is not the certified one"


def _edit_results(cert: Path, edit):
    lines = (cert / "results.jsonl").read_text().splitlines(keepends=True)
    out = []
    for line in lines:
        rec = json.loads(line)
        rec = edit(rec)
        if rec is not None:
            out.append(json.dumps(rec) + "\n")
    (cert / "results.jsonl").write_text("".join(out))


def identity_of(cert):
    """The identity fields of a certificate, as a forger passes them to the project's certificate builder."""
    return {k: cert["adapter"][k] for k in ("module", "class", "source_sha256", "package", "package_note", "frameworks")}


def _forge_pass(rec):
    if rec.get("record") == "case" and rec["verdict"] == "value-mismatch":
        for k in ("mismatch", "expected_values", "actual_values"):
            rec.pop(k, None)
        rec["verdict"], rec["repro"] = "pass", ""
    return rec


def test_verify_refuses_an_edited_results_file(certified, small_corpus):
    cert, pkg = certified
    _edit_results(cert, _forge_pass)
    r = verify(cert, pkg, "--corpus", small_corpus)
    assert r.returncode == 1, r.stdout
    assert "DIFFERS: results.results_sha256" in r.stdout and "DIFFERS: results.verdicts_sha256" in r.stdout
    assert "DIFFERS: totals" in r.stdout


def test_verify_refuses_a_consistent_forgery(certified, small_corpus):
    """Someone edits results.jsonl and rebuilds every hash and count: only the re-run can tell."""
    cert, pkg = certified
    said = json.loads((cert / "certificate.json").read_text())
    _edit_results(cert, _forge_pass)
    forged = write_certificate(cert / "results.jsonl", cert, target=SPEC, identity=identity_of(said))
    assert forged["totals"]["value-mismatch"] == 0
    r = verify(cert, pkg, "--corpus", small_corpus, "--sample", "100")
    assert r.returncode == 1, r.stdout
    assert re.search(r"DIFFERS: case \w+ \(clip\): verdict differ: the certificate says 'pass', "
                     r"the re-run gives 'value-mismatch'", r.stdout), r.stdout
    assert "DIFFERS: results." not in r.stdout, "the forged hashes themselves agree"


def test_verify_refuses_a_dropped_case(certified, small_corpus):
    cert, pkg = certified
    said = json.loads((cert / "certificate.json").read_text())
    _edit_results(cert, lambda rec: None if rec.get("verdict") == "value-mismatch" else rec)
    write_certificate(cert / "results.jsonl", cert, target=SPEC, identity=identity_of(said))
    r = verify(cert, pkg, "--corpus", small_corpus)
    assert r.returncode == 1 and "DIFFERS: coverage: 1 cases of the claimed ops (clip, scatter) have no record" in r.stdout, \
        r.stdout


def test_verify_refuses_another_adapter_source(certified, small_corpus):
    cert, pkg = certified
    adapter = pkg / "vendor_clip" / "adapter.py"
    adapter.write_text(adapter.read_text() + "\n# a later build\n")
    r = verify(cert, pkg, "--corpus", small_corpus)
    assert r.returncode == 1 and "DIFFERS: identity: adapter source_sha256 (vendor_clip.adapter)" in r.stdout, r.stdout
    assert "nothing was re-run" in r.stdout and "re-ran" not in r.stdout, "refused before anything runs"


def test_verify_refuses_changed_behaviour(certified, small_corpus):
    cert, pkg = certified
    kernel = pkg / "vendor_clip" / "kernel.py"     # the vendor fixes the bug but keeps the certificate
    kernel.write_text(kernel.read_text().replace("    if max is not None:\n        out = np.minimum(out, _operand(max, x, \"max\"))\n"
                                                 "    if min is not None:\n        out = np.maximum(out, _operand(min, x, \"min\"))",
                                                 "    if min is not None:\n        out = np.maximum(out, _operand(min, x, \"min\"))\n"
                                                 "    if max is not None:\n        out = np.minimum(out, _operand(max, x, \"max\"))"))
    r = verify(cert, pkg, "--corpus", small_corpus, "--sample", "10")
    assert r.returncode == 1 and "the re-run gives 'pass'" in r.stdout, r.stdout


@pytest.mark.parametrize("damage, code, says", [
    ("no certificate", 3, "no such certificate"),
    ("not json", 3, "not a certificate"),
    ("results elsewhere", 3, "results.file must name a file next to the certificate"),
    ("unknown adapter", 5, "no_such_mod"),
    ("claims a string", 3, "claimed_ops must be a list"),
    ("claims no op", 3, "claimed_ops must name ops"),
])
def test_verify_bad_inputs(certified, damage, code, says):
    cert, pkg = certified
    path = cert / "certificate.json"
    c = json.loads(path.read_text())
    if damage == "no certificate":
        path.unlink()
    elif damage == "not json":
        path.write_text("{")
    elif damage == "results elsewhere":
        c["results"]["file"] = "../../etc/passwd"
        path.write_text(json.dumps(c))
    elif damage == "claims a string":
        c["claimed_ops"] = "clip"
        path.write_text(json.dumps(c))
    elif damage == "claims no op":
        c["claimed_ops"] = ["clap"]
        path.write_text(json.dumps(c))
    else:
        c["adapter"]["spec"] = "no_such_mod:Nope"
        path.write_text(json.dumps(c))
    r = verify(cert, pkg)
    assert r.returncode == code and says in r.stderr, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr


# ---- the walkthrough of docs/CERTIFY.md, run as written --------------------------------------------

def walkthrough():
    """[(command, exit code)] of the sh block in docs/CERTIFY.md's walkthrough section."""
    text = DOC.read_text()
    section = text[text.index("## 5. Walkthrough"):]
    block = section[section.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    steps = []
    for line in block.splitlines():
        m = re.fullmatch(r"(.*?)\s+# exit (\d+)", line)
        assert m, f"every walkthrough command states its exit code: {line!r}"
        steps.append((m.group(1), int(m.group(2))))
    return steps


def test_the_certify_walkthrough_runs_as_documented(tmp_path):
    steps = walkthrough()
    assert any(c.startswith("conform certify") for c, _ in steps) and any(c.startswith("conform verify") for c, _ in steps)
    shims = tmp_path / "bin"
    shims.mkdir()
    for name, target in (("conform", "-m conform.cli"), ("pip", "-m pip")):
        shim = shims / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {target} "$@"\n')
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    script = "".join(f"{cmd}\necho \"[step {i} exit $?]\"\n" for i, (cmd, _) in enumerate(steps))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, PATH=f"{shims}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT), TMPDIR=str(scratch))
    r = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    got = [int(x) for x in re.findall(r"\[step \d+ exit (\d+)\]", r.stdout)]
    assert got == [code for _, code in steps], f"exit codes {got}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr[-3000:]}"
    # the outputs the document quotes
    documented = DOC.read_text()
    from suites.corpus import iter_corpus
    n = sum(1 for c in iter_corpus() if c.op in ("clip", "scatter"))     # the shipped corpus's cases of the claimed ops
    for line in (f"vendor-clip 1.0.0: clip, scatter on the shipped corpus: {n} cases, 202 failing (11 listed in vendor-src/expectations.txt, "
                 "191 unlisted) -> cert/certificate.json",
                 "junit: cert/junit.xml (6 testcases, 2 failing, 2 expected divergences)",
                 "vendor-src/expectations.txt against cert/results.jsonl (adapter vendor-clip): 202 divergences, "
                 "11 listed, 191 unlisted",
                 f"note: coverage: all {n} cases of the claimed ops of corpus.jsonl have a record",
                 "re-ran 40 cases (seed 1; `--seed 1` draws the same sample)",
                 "verified: hashes, claims, identity, the re-run sample and the challenge agree with the certificate"):
        assert line in documented and line in r.stdout, f"{line!r}\n{r.stdout}"
    assert f"the {n} clip and scatter cases" in documented
    progress = re.findall(r"^conform: %d/%d results \(100%%\), \d+ failing, .*; vendor-clip.*$" % (n, n), r.stderr, re.M)
    assert progress, f"certify's progress, to the claimed total, naming the adapter:\n{r.stderr[-2000:]}"
    assert len(re.findall(r"\d+/\d+", progress[0])) == 1, f"one count, not two: {progress[0]}"
    assert re.search(r"^conform: time: \S+ in all", r.stderr, re.M), "certify's time line"
    certs = list(scratch.glob("*/cert/certificate.json"))
    assert len(certs) == 1, certs
    cert = json.loads(certs[0].read_text())
    site = certs[0].parent.parent / "vendor-site"
    pkg = cert["adapter"]["package"]
    assert (pkg["name"], pkg["version"], pkg["contains_module"]) == ("vendor-clip-conformance", "1.0.0", True)
    assert pkg["sha256"] == _distribution_hash_as_documented(site), "docs/CERTIFY.md's byte format"
    assert cert["adapter"]["source_sha256"] == "sha256:" + hashlib.sha256(
        (site / "vendor_clip" / "adapter.py").read_bytes()).hexdigest()
    assert cert["claimed_ops"] == ["clip", "scatter"]
    # the document's own example CL-EX-1 (min > max) fails with it: an example shows its own case's verdict
    assert cert["ops"]["clip"]["clauses_failed"] == ["CL-EX-1", "CL-MIN-GT-MAX"], cert["ops"]["clip"]["clauses_failed"]
    assert cert["ops"]["scatter"]["clauses_failed"] == ["SC-RANGE", "SC-SIZE-SRC", "SC-VALUE"], \
        cert["ops"]["scatter"]["clauses_failed"]
    # the readings an either expectation admits, counted from the results the certificate covers
    recs = [json.loads(x) for x in (certs[0].parent / "results.jsonl").read_text().splitlines()]
    for op in ("clip", "scatter"):
        want = {r: sum(1 for x in recs if x.get("op") == op and x.get("reading") == r
                       and x.get("verdict") in ("pass", "extension")) for r in ("raises", "returns")}
        assert cert["ops"][op]["readings"] == want, (op, cert["ops"][op]["readings"], want)
    assert cert["ops"]["clip"]["readings"]["raises"] > 0 and cert["ops"]["clip"]["readings"]["returns"] > 0
    assert cert["expectations"]["sha256"] == "sha256:" + hashlib.sha256(
        (VENDOR / "expectations.txt").read_bytes()).hexdigest()
    assert "numpy" in cert["adapter"]["frameworks"]
    assert not (ROOT / "cert").exists() and not (ROOT / "vendor-site").exists(), "nothing lands in the checkout"
    assert not list((ROOT / "examples" / "vendor_adapter").glob("*.egg-info")), "the build ran on a copy"


def _distribution_hash_as_documented(site: Path) -> str:
    """docs/CERTIFY.md: sorted "path<TAB>hex<LF>" over RECORD's files, installer records, __pycache__ and
    paths starting with '..' left out."""
    record = next(site.glob("*.dist-info/RECORD"))
    lines = []
    for row in csv.reader(record.read_text().splitlines()):
        path = row[0]
        name, parent = path.rsplit("/", 1)[-1], path.rsplit("/", 2)[-2] if path.count("/") else ""
        if ("__pycache__" in path.split("/") or path.startswith("../")
                or (parent.endswith(".dist-info") and name in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json"))):
            continue
        lines.append(f"{path}\t{hashlib.sha256((site / path).read_bytes()).hexdigest()}\n")
    return "sha256:" + hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()
