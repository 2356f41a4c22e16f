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


@pytest.mark.parametrize("tamper", [
    lambda s: s.pop("implementations"),
    lambda s: s["implementations"][0]["totals"].__setitem__("pass", -1),
    lambda s: s["implementations"][0]["totals"].__setitem__("passed", 1),
    lambda s: s.__setitem__("summary_version", "2.0"),
    lambda s: s["implementations"][0]["ops"]["clip"].pop("counts"),
])
def test_schema_rejects_a_broken_summary(summary, tamper):
    bad = copy.deepcopy(summary)
    tamper(bad)
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)
