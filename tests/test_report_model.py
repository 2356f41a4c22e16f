"""The report model: matrix, agreement, clauses, findings, failure groups; strict, streaming input."""
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reports import model as M
from reports.model import ClauseInfo, build_model

from report_fixtures import case_record, clip_case, small_run, write_results


def _model(tmp_path, recs, catalogue=None, **kw):
    return build_model([write_results(tmp_path / "r.jsonl", recs, **kw)], catalogue=catalogue or {})


def test_matrix_counts_and_native_api(tmp_path):
    _, recs = small_run(6)
    m = _model(tmp_path, recs)
    assert m.records == 12
    assert dict(m.matrix[("clip", "oracle")]) == {"pass": 6}
    assert dict(m.matrix[("clip", "torch")]) == {"pass": 4, "value-mismatch": 1, "unexpected-error": 1}
    assert m.native_apis[("clip", "torch")] == {"torch.clamp"}
    assert m.adapter_names == ["oracle", "torch"]      # the oracle first: the reference column


def test_agreement_counts_shared_cases_and_lists_differences(tmp_path):
    cases, recs = small_run(6)
    recs.append(case_record(clip_case(n=50), "torch", "pass"))                 # torch only: not shared
    recs.append(case_record(clip_case(n=51), "oracle", "not-applicable"))       # no answer: not shared
    recs.append(case_record(clip_case(n=51), "torch", "pass"))
    cell = _model(tmp_path, recs).agreement()[("oracle", "torch")]
    assert (cell["shared"], cell["same"], cell["differ_count"]) == (6, 4, 2)
    assert {d[0] for d in cell["differ"]} == {cases[0].id, cases[1].id}


def test_identical_wrong_values_agree_different_ones_do_not(tmp_path):
    c = clip_case(n=4)
    recs = [case_record(c, "torch", "value-mismatch", actual=[9, 9, 9, 9]),
            case_record(c, "vendor", "value-mismatch", actual=[9, 9, 9, 9]),
            case_record(c, "oracle", "value-mismatch", actual=[8, 9, 9, 9])]
    agree = _model(tmp_path, recs, adapters=("oracle", "torch", "vendor")).agreement()
    assert agree[("torch", "vendor")]["same"] == 1
    assert agree[("oracle", "torch")]["same"] == 0


def test_agreement_compares_the_judges_answer_bit_for_bit_on_open_values_too(tmp_path):
    # both `extension` (the documents leave the value open): the values kept on no conforming verdict,
    # the records' `answer` (suites/judge.answer_of) still tells them apart, as the variants' gates do
    import numpy as np
    from adapters.base import Outcome
    from suites.judge import answer_of
    c = clip_case(n=4)
    recs = [case_record(c, a, "extension") for a in ("oracle", "torch", "vendor")]
    for rec, v in zip(recs, (1.0, 1.0, 2.0)):
        rec["answer"] = answer_of(Outcome.returned(out=np.full(4, v, np.float32)))
    agree = _model(tmp_path, recs, adapters=("oracle", "torch", "vendor")).agreement()
    assert agree[("oracle", "torch")]["same"] == 1
    assert agree[("oracle", "vendor")]["same"] == 0 and agree[("oracle", "vendor")]["differ_conforming"] == 1


def test_a_record_without_an_answer_stands_for_its_verdict_and_outcome(tmp_path):
    # a results file written before the judge wrote `answer` (docs/RESULTS.md) still reads
    c = clip_case(n=4)
    recs = [case_record(c, "oracle", "pass"), case_record(c, "torch", "pass"),
            case_record(c, "vendor", "unexpected-error", exc_class="ValueError")]
    for rec in recs:
        del rec["answer"]
    agree = _model(tmp_path, recs, adapters=("oracle", "torch", "vendor")).agreement()
    assert agree[("oracle", "torch")]["same"] == 1 and agree[("oracle", "vendor")]["same"] == 0


def test_clause_stats_and_coverage_gaps(tmp_path):
    _, recs = small_run(3)
    recs.append(case_record(clip_case(n=2, lo=3.0, hi=1.0), "torch", "crash"))
    cat = {cid: ClauseInfo(cid, "clip", kind, "") for cid, kind in
           (("CL-FORMULA", "sem"), ("CL-MIN-GT-MAX", "sem"), ("CL-NONE", "sem"), ("CL-EX-1, CL-EX-2", "ex"))}
    m = _model(tmp_path, recs, catalogue=cat)
    # the crash is attributed to CL-MIN-GT-MAX (its case's own first tag); for CL-FORMULA it is "other"
    assert dict(m.clause_stats[("CL-FORMULA", "torch")]) == {"cases": 4, "pass": 1, "fail": 2, "other": 1}
    assert dict(m.clause_stats[("CL-MIN-GT-MAX", "torch")]) == {"cases": 1, "fail": 1}
    assert {g.clause for g in m.groups.values()} == {"CL-FORMULA", "CL-MIN-GT-MAX"}
    assert ("CL-MIN-GT-MAX", "oracle") not in m.clause_stats
    assert m.coverage_gaps() == ["CL-NONE"]      # reached by no adapter; a family row is not a gap


def test_failure_is_attributed_to_the_documented_error_clause(tmp_path):
    c = clip_case(n=3)
    rec = case_record(c, "torch", "wrong-error-class", exc_class="ValueError")
    rec["expected"] = "raises TypeError (CL-BOUND-DTYPE)"
    rec["clauses"] = ["CL-BOUND-DTYPE", "CL-FORMULA"]
    m = _model(tmp_path, [rec])
    assert list(m.groups) == [("clip", "torch", "wrong-error-class", "CL-BOUND-DTYPE", False)]
    assert m.clause_stats[("CL-FORMULA", "torch")]["fail"] == 0


def test_failure_is_attributed_to_the_least_cited_clause_it_cites(tmp_path):
    common = [clip_case(n=2 + i, seed=i) for i in range(4)]
    recs = [case_record(c, "torch", "pass") for c in common]
    bad = []
    for n, extra in ((3, ["CL-NAN-BOUND"]), (9, ["CL-BROADCAST", "CL-NAN-BOUND"])):
        r = case_record(clip_case(n=n, seed=7), "torch", "value-mismatch")
        r["clauses"] = ["CL-FORMULA", *extra]              # the rare rule listed last, the general one first
        r["case"] = dict(r["case"], clauses=["CL-FORMULA", *extra])
        bad.append(r)
    bad[1]["case_id"] = "f" * 16                            # a second case
    recs += bad
    recs.append(case_record(clip_case(n=30), "torch", "pass"))
    recs[-1]["clauses"] = ["CL-FORMULA", "CL-BROADCAST"]   # CL-BROADCAST: cited twice, CL-NAN-BOUND: twice
    recs.append(case_record(clip_case(n=31), "torch", "pass"))
    recs[-1]["clauses"] = ["CL-FORMULA", "CL-BROADCAST"]   # now CL-BROADCAST is cited 3 times
    m = _model(tmp_path, recs)
    (g,) = m.groups.values()
    assert (g.clause, g.count) == ("CL-NAN-BOUND", 2)
    assert g.minimal["case"]["label"] == "clip n=3 seed=7" and len(g.rows) == 2
    assert m.clause_stats[("CL-NAN-BOUND", "torch")]["fail"] == 2
    assert m.clause_stats[("CL-FORMULA", "torch")]["fail"] == 0
    assert m.clause_stats[("CL-BROADCAST", "torch")]["other"] == 1


def test_spec_findings_collect_what_each_adapter_does_on_gap_clauses(tmp_path):
    c = clip_case(n=3)
    c = type(c)(c.op, c.inputs, c.params, clauses=("CL-GAP-NAN-X",), label="nan x")
    recs = [case_record(c, "torch", "extension"), case_record(c, "oracle", "pass"),
            case_record(clip_case(n=4), "torch", "pass")]
    m = _model(tmp_path, recs, catalogue={"CL-GAP-NAN-X": ClauseInfo("CL-GAP-NAN-X", "clip", "gap", "NaN in x")})
    assert m.gap_outcomes[("CL-GAP-NAN-X", "torch")] == {"extension: returned": 1}
    assert m.gap_outcomes[("CL-GAP-NAN-X", "oracle")] == {"pass: returned": 1}


def test_failure_group_keeps_smallest_case_and_every_case_row(tmp_path):
    sizes = [9, 3, 12, 5, 7, 8, 10, 11, 4, 6]
    recs = [case_record(clip_case(n=n, seed=n), "torch", "value-mismatch") for n in sizes]
    m = _model(tmp_path, recs)
    (g,) = m.groups.values()
    assert (g.op, g.adapter, g.verdict, g.clause, g.count) == ("clip", "torch", "value-mismatch", "CL-FORMULA", 10)
    assert g.minimal["case"]["label"] == "clip n=3 seed=3", "the smallest input is the minimal case"
    # every failing case stays reachable: one short row each, in reading order
    assert [r.case_id for r in g.rows] == [r["case_id"] for r in recs]
    assert [r.label for r in g.rows] == [f"clip n={n} seed={n}" for n in sizes]
    assert all(r.outcome.startswith("returned out: 1 of") and r.reason == "" for r in g.rows)


def test_gate_counts_unlisted_and_listed_divergences(tmp_path):
    """docs/CLI.md: exit 1 when a divergence is unlisted, else 0; per adapter and per op as well."""
    _, recs = small_run(4)                         # torch: a mismatch and an error, unlisted
    listed = [case_record(clip_case(n=2 + i, seed=50 + i), "vendor", "crash", expected_divergence="known")
              for i in range(3)]
    recs += listed + [case_record(clip_case(n=9), "vendor", "pass"), case_record(clip_case(n=10), "vendor", "extension")]
    m = _model(tmp_path, recs)
    assert m.gate() == {"unlisted": 2, "expected": 3, "exit_code": 1}
    assert m.gate(adapter="torch") == {"unlisted": 2, "expected": 0, "exit_code": 1}
    assert m.gate(adapter="vendor") == {"unlisted": 0, "expected": 3, "exit_code": 0}
    assert m.gate(adapter="oracle") == {"unlisted": 0, "expected": 0, "exit_code": 0}
    assert m.gate(adapter="vendor", op="clip") == m.gate(adapter="vendor")
    assert m.gate(op="setitem") == {"unlisted": 0, "expected": 0, "exit_code": 0}


def test_listed_and_unlisted_failures_never_share_a_group(tmp_path):
    a, b = clip_case(n=3, seed=1), clip_case(n=4, seed=2)
    recs = [case_record(a, "torch", "value-mismatch", expected_divergence="torch rounds"),
            case_record(b, "torch", "value-mismatch")]
    m = _model(tmp_path, recs)
    groups = sorted(m.groups.values(), key=lambda g: g.listed)
    assert [(g.listed, g.count, g.expected_divergences) for g in groups] == [(False, 1, 0), (True, 1, 1)]
    assert groups[1].rows[0].reason == "torch rounds" and groups[0].rows[0].reason == ""
    assert groups[0].key != groups[1].key
    assert m.sorted_groups()[0].listed is False, "unlisted first: they fail the gate"


def test_agreement_says_how_many_differences_are_both_conforming(tmp_path):
    """An extension and a rejection of the same unsupported input are different answers, both conforming."""
    c, d = clip_case(n=3), clip_case(n=4)
    recs = [case_record(c, "oracle", "pass"), case_record(c, "torch", "extension"),
            case_record(d, "oracle", "pass"), case_record(d, "torch", "value-mismatch")]
    cell = _model(tmp_path, recs).agreement()[("oracle", "torch")]
    assert (cell["shared"], cell["same"], cell["differ_count"], cell["differ_conforming"]) == (2, 0, 2, 1)


def test_duplicate_records_count_once(tmp_path):
    _, recs = small_run(3)
    m = _model(tmp_path, recs + recs[:2])
    assert m.records == 6 and m.duplicates == 2


def test_truncated_last_line_is_accepted(tmp_path):
    _, recs = small_run(3)
    p = write_results(tmp_path / "r.jsonl", recs, end=False)
    with open(p, "a") as f:
        f.write(json.dumps(recs[0])[:40])          # a killed run: half a line, no newline
    assert build_model([p], catalogue={}).records == 6


@pytest.mark.parametrize("damage, expect", [
    (lambda lines: lines.insert(3, "{not json\n"), r"r\.jsonl:4: not .*JSON"),
    (lambda lines: lines.__setitem__(2, lines[2].replace('"schema": 1', '"schema": 2')), r"r\.jsonl:3: .*schema.*2"),
    (lambda lines: lines.__setitem__(2, lines[2].replace('"verdict": "pass"', '"verdict": "fine"')), r"r\.jsonl:3: unknown verdict"),
    (lambda lines: lines.pop(0), r"r\.jsonl:1: the first .*must be the run header"),
    (lambda lines: lines.__setitem__(2, lines[2].rstrip("\n")[:-9] + "\n"), r"r\.jsonl:3: not .*JSON"),
])
def test_damaged_input_names_file_and_line(tmp_path, damage, expect):
    _, recs = small_run(3)
    p = write_results(tmp_path / "r.jsonl", recs)
    lines = p.read_text().splitlines(keepends=True)
    damage(lines)
    p.write_text("".join(lines))
    with pytest.raises(M.INPUT_ERRORS, match=expect):
        build_model([p], catalogue={})


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=8)
FIELDS = ("error", "mismatch", "expected_values", "actual_values", "notes", "outcome", "expected", "repro",
          "native_api", "expected_divergence", "clauses")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=JSON, case_field=st.sampled_from(("inputs", "label", "clauses", None)))
def test_hostile_field_is_refused_with_file_and_line_or_rendered(tmp_path, field, value, case_field):
    """A damaged optional field: either the report renders, or a clear error names file and line."""
    from reports.render import write_report
    _, recs = small_run(2)
    bad = dict(recs[3])                      # torch's failing record: every field is shown
    bad[field] = value
    if case_field:
        bad["case"] = dict(bad["case"], **{case_field: value})
    p = write_results(tmp_path / "h.jsonl", recs[:3] + [bad])
    try:
        write_report([p], tmp_path / "out")
    except M.INPUT_ERRORS as e:
        assert re.match(r".*h\.jsonl:5: ", str(e)), str(e)


def test_framework_bugs_are_findings_in_the_summary_and_the_report(tmp_path):
    """A listed divergence whose reason starts with 'framework bug:' is the framework's own bug: the summary and
    the report list it; a listed divergence with any other reason (a documented choice) is not one."""
    import json as _json

    from report_fixtures import case_record as rec_of, clip_case as make, write_results
    from reports.render import write_report
    cases = [make(n=2 + i, seed=i) for i in range(3)]
    records = [rec_of(cases[0], "torch", "value-mismatch", expected_divergence="framework bug: clamps NaN to 0"),
               rec_of(cases[1], "torch", "value-mismatch", expected_divergence="framework bug: clamps NaN to 0"),
               rec_of(cases[2], "torch", "value-mismatch", expected_divergence="torch promotes to the bound's dtype")]
    path = tmp_path / "results.jsonl"
    write_results(path, records)
    write_report([str(path)], str(tmp_path / "out"))
    summary = _json.loads((tmp_path / "out" / "summary.json").read_text())
    bugs = summary["framework_bugs"]
    assert [(b["adapter"], b["op"], b["reason"], b["cases"]) for b in bugs] == [("torch", "clip", "clamps NaN to 0", 2)]
    assert bugs[0]["example_case"] == cases[0].id       # the smaller case
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Framework bugs found" in html and html.count('class="finding framework-bug"') == 1
    assert "promotes to the bound" not in html.split("Framework bugs found")[1].split("</section>")[0]


def test_camps_by_clause_group_adapters_that_answer_alike():
    from report_fixtures import case_record as rec_of, clip_case as make
    from reports.model import Model, add_record
    m = Model()
    c = make(n=3, seed=5)
    for name, verdict, actual in (("oracle", "pass", None), ("torch", "pass", None), ("jax", "value-mismatch", [9.0] * 3),
                                  ("paddle", "value-mismatch", [9.0] * 3), ("tensorflow", "value-mismatch", [7.0] * 3)):
        m.adapter_names.append(name)
        add_record(m, rec_of(c, name, verdict, actual=actual))
    camps = {clause: groups for clause, _, _, groups in m.camps_by_clause()}
    assert camps and all(g == [["oracle", "torch"], ["jax", "paddle"], ["tensorflow"]] for g in camps.values()), camps
