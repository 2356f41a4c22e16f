"""JUnit XML (`conform run|certify --junit FILE`): one testcase per (adapter, op, failure group)."""
import os
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reports.junit import write_junit

from report_fixtures import case_record, clip_case, write_results

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def props(testcase) -> dict:
    return {p.get("name"): p.get("value") for p in testcase.find("properties")}


def cases_of(root):
    return {(tc.get("classname"), tc.get("name")): tc for tc in root.iter("testcase")}


def test_one_testcase_per_adapter_op_and_failure_group(tmp_path):
    ok = [clip_case(n=3 + i, seed=i) for i in range(4)]
    gt = [clip_case(n=2 + i, lo=3.0, hi=1.0, seed=i) for i in range(3)]       # cite CL-MIN-GT-MAX
    recs = [case_record(c, a, "pass") for c in ok for a in ("oracle", "torch")]
    recs += [case_record(c, "oracle", "pass") for c in gt]
    recs += [case_record(gt[0], "torch", "value-mismatch"), case_record(gt[1], "torch", "value-mismatch")]
    recs += [case_record(gt[2], "torch", "unexpected-error", message="boom \x1b[31mred\x1b[0m",
                         expected_divergence="torch raises here; listed")]
    out = tmp_path / "j" / "junit.xml"
    counts = write_junit([write_results(tmp_path / "r.jsonl", recs)], out)
    root = ET.parse(out).getroot()          # parses: no character XML cannot carry
    assert counts == {"tests": 4, "failures": 1, "skipped": 1}
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("4", "1", "1")
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"oracle", "torch"}
    assert cases_of(suites["oracle"]).keys() == {("oracle.clip", "conforming (7 cases)")}
    torch = cases_of(suites["torch"])
    assert set(torch) == {("torch.clip", "conforming (4 cases)"),
                          ("torch.clip", "value-mismatch CL-MIN-GT-MAX (2 cases)"),
                          ("torch.clip", "unexpected-error CL-MIN-GT-MAX (1 case, listed)")}
    failing = torch[("torch.clip", "value-mismatch CL-MIN-GT-MAX (2 cases)")]
    p = props(failing)
    assert p["verdict"] == "value-mismatch" and p["attributed_to"] == "CL-MIN-GT-MAX"
    assert p["case_id"] in (gt[0].id, gt[1].id) and p["clauses"] == "CL-MIN-GT-MAX,CL-FORMULA"
    assert (p["cases"], p["unlisted"]) == ("2", "2")
    failure = failing.find("failure")
    assert failure.get("type") == "value-mismatch" and failure.get("message").startswith("2 unlisted of 2: ")
    text = failure.text
    order = [text.index(w) for w in ("actual:", "expected:", "call:", "attributed to CL-MIN-GT-MAX:", "repro:")]
    assert order == sorted(order), text
    assert f"# case {p['case_id']}" in text, "the failure text carries the record's repro"
    listed = torch[("torch.clip", "unexpected-error CL-MIN-GT-MAX (1 case, listed)")]
    assert listed.find("failure") is None
    assert listed.find("skipped").get("message") == "expected divergence: torch raises here; listed"
    assert props(listed)["unlisted"] == "0"


def test_conform_run_writes_junit(tmp_path):
    from bad_adapters import clip_case as bad_case, write_corpus
    corpus = tmp_path / "c.jsonl"
    write_corpus(str(corpus), [bad_case(label, x=[1.0, 5.0, float(i)]) for i, label in
                               enumerate(["ok", "value", "shape"])])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    junit = tmp_path / "ci" / "junit.xml"
    r = subprocess.run([sys.executable, "-m", "conform.cli", "run", "--adapter", "bad_adapters:WrongOutputs",
                        "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--no-report", "--junit", str(junit)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert f"junit: {junit} (2 testcases, 1 failing, 0 expected divergences)" in r.stdout
    tcs = cases_of(ET.parse(junit).getroot())
    assert ("wrong.clip", "conforming (1 case)") in tcs, list(tcs)
    [failing] = [tc for (cls, name), tc in tcs.items() if name.startswith("value-mismatch ") and name.endswith("(2 cases)")]
    text = failing.find("failure").text
    assert "_check('out'" in text, "the repro in the failure checks the documents' answer"


def _node(path):
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_ino


@pytest.mark.parametrize("kind", ["fifo", "symlink to /dev/null"])
def test_a_junit_or_report_path_that_is_not_a_regular_file_is_refused_and_left_as_it_was(tmp_path, kind):
    # as root, `--junit /dev/null` replaced the device node with a regular file
    from conform.commands import main
    from contract.vocabulary import EXIT_OUTPUT
    from report_fixtures import small_run
    results = write_results(tmp_path / "r.jsonl", small_run(2)[1])

    def make(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path) if kind == "fifo" else os.symlink("/dev/null", path)
        return _node(path)

    junit = tmp_path / "ci" / "junit.xml"
    before = make(junit)
    with pytest.raises(OSError, match="not a regular file"):
        write_junit([results], junit)
    assert _node(junit) == before, "the node was replaced"
    # the junit writer of `conform run`: one clear line, exit 7, the node kept
    from conform.cli import _write_junit
    assert _write_junit(str(results), str(junit)) is False
    assert _node(junit) == before
    # `conform report --out` and `conform merge --out` whose files are such nodes
    html = tmp_path / "rep" / "report.html"
    before = make(html)
    assert main(["report", str(results), "--out", str(tmp_path / "rep")]) == EXIT_OUTPUT
    assert _node(html) == before
    merged = tmp_path / "m" / "results.jsonl"
    before = make(merged)
    assert main(["merge", str(results), "--out", str(merged)]) == EXIT_OUTPUT
    assert _node(merged) == before
    assert not [n for n in os.listdir(tmp_path / "m") if n != "results.jsonl"], "no temp file left behind"
