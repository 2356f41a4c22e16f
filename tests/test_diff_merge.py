"""`conform diff` and `conform merge`: categories, exit codes, refusals, nothing half-written."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contract.vocabulary import EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_INCOMPATIBLE, EXIT_OK
from conform.commands import main
from reports.diff import diff_results
from reports.merge import MergeError, merge
from reports.model import build_model, iter_records

from report_fixtures import case_record, clip_case, write_results

ROOT = Path(__file__).resolve().parents[1]


def _runs(tmp_path):
    cs = [clip_case(n=3 + i, seed=i) for i in range(6)]
    base = [case_record(cs[0], "torch", "pass"), case_record(cs[1], "torch", "value-mismatch"),
            case_record(cs[2], "torch", "unexpected-error", message="old text"),
            case_record(cs[3], "torch", "crash"), case_record(cs[4], "torch", "pass"),
            case_record(cs[5], "oracle", "pass")]
    new = [case_record(cs[0], "torch", "value-mismatch", run_id="run-2"),          # new failure
           case_record(cs[1], "torch", "pass", run_id="run-2"),                    # fixed
           case_record(cs[2], "torch", "unexpected-error", message="new text", run_id="run-2"),  # message
           case_record(cs[3], "torch", "timeout", run_id="run-2"),                 # changed verdict (regression)
           case_record(cs[4], "torch", "crash", run_id="run-2", expected_divergence="known segfault"),
           case_record(cs[5], "oracle", "pass", run_id="run-2")]
    return (write_results(tmp_path / "base.jsonl", base),
            write_results(tmp_path / "new.jsonl", new, run_id="run-2"))


def test_diff_categories(tmp_path):
    r = diff_results(*_runs(tmp_path))
    t = r["adapters"]["torch"]
    assert [e["case_id"] for e in t.new_failures] == [clip_case(n=3, seed=0).id, clip_case(n=7, seed=4).id]
    assert [e["case_id"] for e in t.fixed] == [clip_case(n=4, seed=1).id]
    assert [(e["base"]["verdict"], e["new"]["verdict"]) for e in t.changed_verdicts] == [("crash", "timeout")]
    assert [e["new"]["outcome"] for e in t.changed_messages] == ["raised RuntimeError: new text"]
    # the expected divergence is listed as a new failure but does not gate
    assert t.regressions == 2 and r["regressions"] == 2
    assert r["adapters"]["oracle"].regressions == 0


def test_diff_cli_exit_codes_and_outputs(tmp_path, capsys):
    base, new = _runs(tmp_path)
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d")]) == EXIT_DIVERGED
    text = (tmp_path / "d" / "diff.txt").read_text()
    assert "torch: 2 new failures, 1 fixed, 1 changed verdicts, 1 changed messages; 2 regressions" in text
    assert "expected divergence: known segfault" in text
    html = (tmp_path / "d" / "diff.html").read_text()
    assert "2 regression(s)" in html and "new text" in html
    assert main(["diff", str(base), str(base), "--out", str(tmp_path / "same")]) == EXIT_OK
    assert "no regressions" in (tmp_path / "same" / "diff.txt").read_text()


def _shards(tmp_path, corpus_hash=None, suite_version=None):
    cs = [clip_case(n=2 + i, seed=i) for i in range(9)]
    paths = []
    for k in range(3):
        recs = [case_record(c, a, "pass", run_id=f"s{k}") for c in cs[k::3] for a in ("oracle", "torch")]
        kw = {"run_id": f"s{k}", "shard": f"{k + 1}/3"}
        if k == 2 and corpus_hash:
            kw["corpus_hash"] = corpus_hash
        if k == 2 and suite_version:
            kw["suite_version"] = suite_version
        paths.append(write_results(tmp_path / f"shard{k}.jsonl", recs, **kw))
    return cs, paths


def test_merge_three_shards_dedups_and_keeps_every_answer(tmp_path):
    cs, paths = _shards(tmp_path)
    r = merge(paths + [paths[0]], tmp_path / "m" / "results.jsonl")    # a shard given twice
    assert r["records"] == 18 and r["duplicates"] == 6 and r["conflicts"] == []
    recs = list(iter_records(tmp_path / "m" / "results.jsonl"))
    assert recs[0]["record"] == "run" and recs[-1]["record"] == "end" and recs[-1]["cases"] == 18
    assert {(x["case_id"], x["adapter"]) for x in recs[1:-1]} == {(c.id, a) for c in cs for a in ("oracle", "torch")}
    assert [m["shard"] for m in recs[0]["merged_from"]] == ["1/3", "2/3", "3/3", "1/3"]
    assert build_model([tmp_path / "m" / "results.jsonl"], catalogue={}).records == 18


def test_merge_reports_conflicting_duplicates(tmp_path):
    c = clip_case(n=3)
    a = write_results(tmp_path / "a.jsonl", [case_record(c, "torch", "pass")])
    b = write_results(tmp_path / "b.jsonl", [case_record(c, "torch", "crash", run_id="run-b")], run_id="run-b")
    r = merge([a, b], tmp_path / "m.jsonl")
    assert r["conflicts"] == [{"case_id": c.id, "adapter": "torch", "kept": "pass", "dropped": "crash", "file": str(b)}]


def test_report_names_conflicting_duplicates_and_fails_the_gate(tmp_path, capsys):
    # merge names such a conflict; the report dropped it with only "1 duplicates dropped" and a green gate
    from reports.summary import validate
    c = clip_case(n=3)
    a = write_results(tmp_path / "a.jsonl", [case_record(c, "torch", "pass")])
    b = write_results(tmp_path / "b.jsonl", [case_record(c, "torch", "crash", run_id="run-b")], run_id="run-b")
    out = tmp_path / "o"
    assert main(["report", str(a), str(b), "--out", str(out)]) == EXIT_OK     # the report is written
    err = capsys.readouterr().err
    assert f"torch case {c.id}: kept pass, dropped crash from {b}" in err
    summary = json.loads((out / "summary.json").read_text())
    validate(summary)
    assert summary["gate"]["exit_code"] == EXIT_DIVERGED and summary["gate"]["unlisted"] == 1
    assert summary["run"]["duplicate_conflicts"] == [{"case_id": c.id, "adapter": "torch", "kept": "pass",
                                                      "dropped": "crash", "file": str(b)}]
    assert "kept pass, dropped crash" in (out / "report.html").read_text()
    # a duplicate that agrees is dropped quietly and does not gate
    same = write_results(tmp_path / "same.jsonl", [case_record(c, "torch", "pass", run_id="run-c")], run_id="run-c")
    assert main(["report", str(a), str(same), "--out", str(tmp_path / "o2")]) == EXIT_OK
    assert json.loads((tmp_path / "o2" / "summary.json").read_text())["gate"]["exit_code"] == EXIT_OK


@pytest.mark.parametrize("field, kw", [("corpus_hash", {"corpus_hash": "sha256:" + "cd" * 32}),
                                       ("suite_version", {"suite_version": "0.2.0"})])
def test_merge_refuses_mixed_corpus_or_suite(tmp_path, capsys, field, kw):
    _, paths = _shards(tmp_path, **kw)
    out = tmp_path / "m"
    with pytest.raises(MergeError, match=rf"shard2\.jsonl:1 has {field}"):
        merge(paths, out / "results.jsonl")
    assert main(["merge", *map(str, paths), "--out", str(out)]) == EXIT_INCOMPATIBLE
    assert f"shard2.jsonl:1 has {field}" in capsys.readouterr().err
    assert not out.exists() or os.listdir(out) == [], "nothing half-written"


def test_merge_refuses_shards_of_one_adapter_made_with_different_versions(tmp_path, capsys):
    # resume refuses this mix (tests/test_run_outputs.py); merge labelled the whole result with the first version
    _, paths = _shards(tmp_path)
    lines = paths[2].read_text().splitlines(keepends=True)
    head = json.loads(lines[0])
    head["adapters"][1]["version"] = "2.0"
    paths[2].write_text(json.dumps(head) + "\n" + "".join(lines[1:]))
    out = tmp_path / "m"
    with pytest.raises(MergeError, match=r"shard2\.jsonl:1 ran adapter torch 2\.0.*shard0\.jsonl:1 ran torch 2\.13"):
        merge(paths, out / "results.jsonl")
    assert main(["merge", *map(str, paths), "--out", str(out)]) == EXIT_INCOMPATIBLE
    assert "torch 2.0" in capsys.readouterr().err
    assert not out.exists() or os.listdir(out) == [], "nothing half-written"


def test_merge_of_malformed_input_names_file_and_line_and_writes_nothing(tmp_path, capsys):
    _, paths = _shards(tmp_path)
    lines = paths[1].read_text().splitlines(keepends=True)
    lines[2] = lines[2][:30] + "\n"
    paths[1].write_text("".join(lines))
    out = tmp_path / "m"
    assert main(["merge", *map(str, paths), "--out", str(out)]) == EXIT_BAD_INPUT
    assert "shard1.jsonl:3:" in capsys.readouterr().err
    assert os.listdir(out) == [], "the temp file is removed and no results.jsonl appears"


def test_report_cli_bad_input_and_missing_file(tmp_path, capsys):
    p = tmp_path / "r.jsonl"
    p.write_text('{"record": "run", "schema": 1}\n')
    assert main(["report", str(p), "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
    assert "r.jsonl:1:" in capsys.readouterr().err
    assert not (tmp_path / "o" / "report.html").exists()
    assert main(["report", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
    assert "nope.jsonl: no such results file" in capsys.readouterr().err


def test_commands_run_as_a_real_process(tmp_path):
    base, new = _runs(tmp_path)
    r = subprocess.run([sys.executable, "-m", "conform.commands", "diff", str(base), str(new), "--out",
                        str(tmp_path / "d")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == EXIT_DIVERGED, r.stderr
    assert "2 regression(s)" in r.stdout


# ---- gates: lost coverage, incomplete shard sets ---------------------------------------------------

def _pair(tmp_path, base_recs, new_recs, **new_kw):
    return (write_results(tmp_path / "base.jsonl", base_recs),
            write_results(tmp_path / "new.jsonl", new_recs, run_id="run-2", **new_kw))


def _same_verdicts(cs, adapters=("oracle", "torch"), run_id="run-1"):
    return [case_record(c, a, "pass", run_id=run_id) for c in cs for a in adapters]


def test_diff_refuses_a_lost_adapter(tmp_path, capsys):
    cs = [clip_case(n=3 + i, seed=i) for i in range(3)]
    base, new = _pair(tmp_path, _same_verdicts(cs), _same_verdicts(cs, ("torch",), "run-2"))
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d")]) == EXIT_DIVERGED
    err = capsys.readouterr().err
    assert "error: adapter oracle has 3 records in base and none in new" in err and "--allow-lost-coverage" in err
    assert "gate: adapter oracle has 3 records in base and none in new" in (tmp_path / "d" / "diff.txt").read_text()
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d2"), "--allow-lost-coverage"]) == EXIT_OK
    assert "warning: adapter oracle" in capsys.readouterr().err


def test_diff_refuses_lost_cases(tmp_path, capsys):
    cs = [clip_case(n=3 + i, seed=i) for i in range(4)]
    base, new = _pair(tmp_path, _same_verdicts(cs), _same_verdicts(cs[:3], run_id="run-2") +
                      [case_record(cs[3], "oracle", "pass", run_id="run-2")])
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d")]) == EXIT_DIVERGED
    assert "adapter torch: 1 cases of base have no record in new" in capsys.readouterr().err
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d"), "--allow-lost-coverage"]) == EXIT_OK
    # cases only in new are gained coverage, not lost
    assert main(["diff", str(new), str(base), "--out", str(tmp_path / "d")]) == EXIT_OK


@pytest.mark.parametrize("field, kw", [("corpus_hash", {"corpus_hash": "sha256:" + "cd" * 32}),
                                       ("suite_version", {"suite_version": "0.2.0"})])
def test_diff_refuses_runs_of_another_corpus_or_suite(tmp_path, capsys, field, kw):
    cs = [clip_case(n=3 + i, seed=i) for i in range(3)]
    base, new = _pair(tmp_path, _same_verdicts(cs), _same_verdicts(cs, run_id="run-2"), **kw)
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d")]) == EXIT_INCOMPATIBLE
    assert f"error: the runs differ in {field}" in capsys.readouterr().err
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d"), "--allow-lost-coverage"]) == EXIT_OK


def test_diff_a_regression_still_gates_when_lost_coverage_is_allowed(tmp_path):
    cs = [clip_case(n=3 + i, seed=i) for i in range(3)]
    new = [case_record(cs[0], "torch", "crash", run_id="run-2")]
    base, new = _pair(tmp_path, _same_verdicts(cs), new)
    assert main(["diff", str(base), str(new), "--out", str(tmp_path / "d"), "--allow-lost-coverage"]) == EXIT_DIVERGED


def _complete_shards(tmp_path, n_cases=9, drop=None, no_end=None, only=(0, 1, 2)):
    """Three shards of an n_cases corpus declared in every header; `drop`: (shard, adapter) losing a record."""
    cs = [clip_case(n=2 + i, seed=i) for i in range(n_cases)]
    paths = []
    for k in only:
        recs = [case_record(c, a, "pass", run_id=f"s{k}") for c in cs[k::3] for a in ("oracle", "torch")]
        if drop and drop[0] == k:       # the shard's first record of that adapter is lost
            recs.remove(next(r for r in recs if r["adapter"] == drop[1]))
        paths.append(write_results(tmp_path / f"shard{k}.jsonl", recs, run_id=f"s{k}", shard=f"{k + 1}/3",
                                   cases=n_cases, end=(k != no_end)))
    return cs, paths


def test_merge_of_a_complete_set_says_complete(tmp_path):
    _, paths = _complete_shards(tmp_path)
    r = merge(paths, tmp_path / "m.jsonl")
    assert r["complete"] is True and r["incomplete"] == []
    end = list(iter_records(tmp_path / "m.jsonl"))[-1]
    assert end["record"] == "end" and end["complete"] is True
    assert build_model([tmp_path / "m.jsonl"], catalogue={}).complete


@pytest.mark.parametrize("what, kw, says", [
    ("a missing shard", {"only": (0, 2)}, "shard 2/3 missing: the shards do not cover the corpus"),
    ("a shard without its end record", {"no_end": 1}, "shard1.jsonl: no end record"),
    ("a shard missing a case", {"drop": (2, "torch")}, "adapter torch: 8 of the corpus's 9 cases have a record"),
])
def test_merge_refuses_an_incomplete_shard_set(tmp_path, capsys, what, kw, says):
    _, paths = _complete_shards(tmp_path, **kw)
    out = tmp_path / "m"
    with pytest.raises(MergeError, match="incomplete"):
        merge(paths, out / "results.jsonl")
    assert main(["merge", *map(str, paths), "--out", str(out)]) == EXIT_INCOMPATIBLE, what
    err = capsys.readouterr().err
    assert says in err and "--allow-incomplete" in err, err
    assert not out.exists() or os.listdir(out) == [], "nothing written"
    # opted in: written, and marked incomplete where the report reads it
    assert main(["merge", *map(str, paths), "--out", str(out), "--allow-incomplete"]) == EXIT_OK
    assert says in capsys.readouterr().err
    recs = list(iter_records(out / "results.jsonl"))
    assert recs[-1]["complete"] is False and any(says in line for line in recs[-1]["incomplete"])
    m = build_model([out / "results.jsonl"], catalogue={})
    assert m.complete is False and any(says in line for line in m.incomplete)
    # the report says so on its first screen, before the matrix
    from markupsafe import escape      # the report's own escaping (jinja2's)
    from reports.render import write_report
    page = open(write_report([out / "results.jsonl"], tmp_path / "report")["report_html"], encoding="utf-8").read()
    assert 'id="incomplete"' in page and page.index('id="incomplete"') < page.index('id="matrix"')
    assert str(escape(says)) in page
    # and merging that merge again stays incomplete
    assert main(["merge", str(out / "results.jsonl"), "--out", str(tmp_path / "again")]) == EXIT_INCOMPATIBLE


def test_model_of_an_interrupted_run_is_incomplete(tmp_path):
    cs = [clip_case(n=3 + i, seed=i) for i in range(3)]
    p = write_results(tmp_path / "r.jsonl", _same_verdicts(cs), end=False, cases=3)
    m = build_model([p], catalogue={})
    assert not m.complete and m.incomplete == [f"{p}: no end record (an interrupted run; `conform run --resume` "
                                                "finishes it)"]
    assert build_model([write_results(tmp_path / "f.jsonl", _same_verdicts(cs), cases=3)], catalogue={}).complete
