"""Each failure is charged to the clause whose condition the case exercises (issue 37, item 6): a clause is
cited only by cases that meet its condition, so a candidate that breaks one thing is not charged to a clause
every case of the op cites (SC-INPLACE, SI-INPLACE) just because its id sorts first."""
from __future__ import annotations

import numpy as np

import oracle
from contract.case import Case
from reports.model import EDGE_EMPTY, build_model
from report_fixtures import case_record, write_results
from suites.corpus import load_corpus

F32 = np.float32


def test_only_scatter_underscore_cases_cite_sc_inplace():
    cases, _ = load_corpus()
    scatter = [c for c in cases if c.op == "scatter"]
    assert any("SC-INPLACE" in c.clauses for c in scatter if c.params.get("inplace") is True)
    wrong = [c.id for c in scatter if "SC-INPLACE" in oracle.expect(c).clauses
             and not c.params.get("inplace") and not c.aliases]
    assert not wrong, f"{len(wrong)} out-of-place scatter cases cite SC-INPLACE, e.g. {wrong[0]}"


def _setitem(target, key, value):
    return Case(op="setitem", inputs={"target": target, "value": value}, params={"key": key})


def test_si_inplace_is_cited_where_elements_lie_outside_the_region():
    whole = oracle.expect(_setitem(np.zeros(4, F32), {"slice": [None, None, None]}, np.ones(4, F32)))
    part = oracle.expect(_setitem(np.zeros(4, F32), {"slice": [1, 3, None]}, np.ones(2, F32)))
    assert "SI-INPLACE" not in whole.clauses and "SI-INPLACE" in part.clauses


def _src_wider_than_index(case) -> bool:
    src, index = case.inputs.get("src"), case.inputs.get("index")
    return src is not None and src.ndim == index.ndim and src.shape != index.shape


def test_a_candidate_that_breaks_broadcasting_only_is_not_charged_to_sc_inplace(tmp_path):
    """The candidate refuses every out-of-place scatter whose src is larger than index (a framework that
    wants src broadcast to index's shape) and conforms elsewhere: its failures go to the value's rule."""
    cases, _ = load_corpus()
    records, failing = [], 0
    for case in cases:
        if case.op != "scatter" or case.aliases:
            continue
        exp = oracle.expect(case)
        breaks = exp.kind == "value" and not case.params.get("inplace") and _src_wider_than_index(case)
        failing += breaks
        rec = case_record(case, "broadcaster", "unexpected-error" if breaks else "pass")
        rec["decided_by"] = list(exp.clauses)
        records.append(rec)
    assert failing >= 5, "the corpus must hold out-of-place scatter cases whose src is larger than index"
    model = build_model([write_results(tmp_path / "r.jsonl", records, adapters=("broadcaster",))], catalogue={})
    charged = {g.clause: g.count for g in model.groups.values() if g.adapter == "broadcaster"}
    assert sum(charged.values()) == failing and "SC-INPLACE" not in charged, charged
    edge = charged.pop(EDGE_EMPTY, 0)       # an empty input is charged to its edge case (docs/SUMMARY.md)
    assert charged == {"SC-RULE": failing - edge}, charged
