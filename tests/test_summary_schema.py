"""summary.json follows its published, versioned schema, and carries the counts of the results."""
import copy
import json

import jsonschema
import pytest

from reports.render import write_report
from reports.summary import SUMMARY_VERSION, schema, validate

from report_fixtures import CORPUS_HASH, case_record, clip_case, small_run, write_results


@pytest.fixture
def summary(tmp_path):
    _, recs = small_run(5)
    recs.append(case_record(clip_case(n=9), "torch", "not-applicable"))
    write_results(tmp_path / "r.jsonl", recs)
    write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    return json.loads((tmp_path / "out" / "summary.json").read_text())


def test_summary_validates_against_schema(summary):
    jsonschema.Draft202012Validator.check_schema(schema())
    validate(summary)
    assert summary["summary_version"] == SUMMARY_VERSION


def test_summary_counts_match_the_results(summary):
    assert summary["run"]["corpus_hash"] == CORPUS_HASH
    assert summary["run"]["records"] == 11
    torch = next(i for i in summary["implementations"] if i["library"] == "torch")
    assert torch["version"] == "2.13.0+cpu" and torch["execution"] == "in a worker process"
    assert torch["totals"]["pass"] == 3 and torch["totals"]["value-mismatch"] == 1
    assert torch["totals"]["unexpected-error"] == 1 and torch["totals"]["not-applicable"] == 1
    assert torch["ops"]["clip"]["native_api"] == ["torch.clamp"]
    assert torch["conforming_rate"] == pytest.approx(3 / 5)     # not-applicable is not in the denominator
    assert torch["clauses"]["CL-FORMULA"] == {"op": "clip", "cases": 6, "pass": 3, "fail": 2, "met": False}


def test_summary_carries_the_gate(tmp_path):
    """Unlisted and listed divergences and the exit code (docs/CLI.md), per run, implementation and op."""
    _, recs = small_run(4)                                   # torch: 2 unlisted
    recs += [case_record(clip_case(n=2 + i, seed=40 + i), "vendor", "timeout", expected_divergence="slow")
             for i in range(2)]
    write_results(tmp_path / "r.jsonl", recs, adapters=("oracle", "torch", "vendor"))
    write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    validate(s)
    assert s["gate"] == {"unlisted": 2, "expected": 2, "exit_code": 1}
    impl = {i["library"]: i for i in s["implementations"]}
    assert impl["torch"]["gate"] == {"unlisted": 2, "expected": 0, "exit_code": 1}
    assert impl["vendor"]["gate"] == {"unlisted": 0, "expected": 2, "exit_code": 0}
    assert impl["oracle"]["gate"] == {"unlisted": 0, "expected": 0, "exit_code": 0}
    assert impl["vendor"]["ops"]["clip"]["gate"] == {"unlisted": 0, "expected": 2}


def test_a_1_0_summary_without_the_gate_still_validates(summary):
    """1.1 only added optional fields: a 1.0 consumer's files stay valid."""
    old = copy.deepcopy(summary)
    old["summary_version"] = "1.0"
    old.pop("gate")
    for i in old["implementations"]:
        i.pop("gate")
        for o in i["ops"].values():
            o.pop("gate")
    validate(old)


@pytest.mark.parametrize("tamper", [
    lambda s: s.pop("implementations"),
    lambda s: s["implementations"][0]["totals"].__setitem__("pass", -1),
    lambda s: s["implementations"][0]["totals"].__setitem__("passed", 1),
    lambda s: s.__setitem__("summary_version", "2.0"),
    lambda s: s["implementations"][0]["ops"]["clip"].pop("counts"),
    lambda s: s["gate"].__setitem__("exit_code", 2),
    lambda s: s["gate"].pop("unlisted"),
    lambda s: s["implementations"][1]["gate"].__setitem__("expected", -1),
])
def test_schema_rejects_a_broken_summary(summary, tamper):
    bad = copy.deepcopy(summary)
    tamper(bad)
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)


def test_conflicts_and_readings_are_counted_from_the_results(tmp_path):
    """A case citing a conflict's clause is counted under that conflict per adapter, by the reading it took;
    the implementation's `readings` count its conforming either-verdicts.  The HTML lists both readings."""
    from dataclasses import replace as dc_replace

    from reports.model import conflict_catalogue
    conflict = next(c for c in conflict_catalogue() if c.clause == "CL-BOUND-DTYPE")
    case = dc_replace(clip_case(n=3), clauses=("CL-FORMULA", "CL-BOUND-DTYPE"))
    raised = {**case_record(case, "torch", "pass"), "reading": "raises", "outcome": "raised TypeError: dtype"}
    returned = {**case_record(case, "oracle", "pass"), "reading": "returns"}
    write_results(tmp_path / "r.jsonl", [raised, returned])
    write_report([tmp_path / "r.jsonl"], tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    validate(summary)
    got = next(c for c in summary["conflicts"] if c["id"] == conflict.id)
    assert got["outcomes"] == {"oracle": {"pass: returns": 1}, "torch": {"pass: raises": 1}}, got
    assert len(got["readings"]) >= 2 and got["clause"] == "CL-BOUND-DTYPE"
    readings = {i["library"]: i["readings"] for i in summary["implementations"]}
    assert readings == {"oracle": {"raises": 0, "returns": 1}, "torch": {"raises": 1, "returns": 0}}, readings
    from markupsafe import escape
    html = (tmp_path / "out" / "report.html").read_text()
    block = html[html.index(f'data-conflict="{conflict.id}"'):]
    block = block[:block.index('<div class="finding', 10)]
    for text in conflict.readings:
        assert str(escape(text)) in block, f"actual: reading missing from the conflict's block; expected {text[:60]}"
    assert "torch" in block and "raises" in block and "returns" in block, block
