"""Adding an op touches no file of the suite: a toy `toy_abs` (tests/toy_op.py) registers itself and runs through
the strategies, a corpus, the oracle adapter, the judge and the report (docs/ADDING_AN_OP.md)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import oracle
import toy_op
from adapters import wire
from adapters.oracle_adapter import OracleAdapter
from contract.codec import CodecError
from oracle import registry, spec_doc
from reports.render import write_report
from contract.results import ResultsWriter, case_record, end_record, run_record
from suites import corpus as C
from suites import strategies
from suites.judge import judge
from suites.strategies import all_error_cases as error_cases


@pytest.fixture
def toy():
    toy_op.register()
    yield toy_op
    toy_op.unregister()


def test_the_oracle_knows_the_toy_op_from_its_spec_alone(toy):
    assert "toy_abs" in registry.ops() and registry.outputs("toy_abs") == ("out", "x")
    assert oracle.toy_abs is toy.absolute and registry.clause_prefixes()["TOY"] == "toy_abs"
    assert oracle.CLAUSES["TOY-BOOL"].kind == "err" and oracle.CLAUSES["TOY-BOOL"].source == "toy.toy_abs.txt"
    assert "toy_abs" in OracleAdapter().ops and "TOY-RULE" in spec_doc.render()


def _run(adapter, cases, path):
    """Judge every case on the adapter and write a results file; the verdicts."""
    verdicts = [judge(case, oracle.expect(case), adapter.run(case), adapter) for case in cases]
    header = {"name": adapter.name, "version": adapter.version(), "execution": adapter.execution,
              "available": True, "reason": "", "spec": adapter.name}
    with ResultsWriter(path) as out:
        out.write(run_record("toy-run", "sha256:toy", len(cases), [header]))
        for v, case in zip(verdicts, cases):
            out.write(case_record("toy-run", v, case))
        out.write(end_record("toy-run", len(cases), {}))
    return verdicts


def test_toy_op_runs_through_strategies_corpus_adapters_judge_and_report(toy, tmp_path):
    drawn = [c for s in strategies.families("toy_abs").values() for c in C.draw_examples(s, 6)]
    assert {c.op for c in drawn} == {"toy_abs"}
    for case in drawn:      # tagged by the oracle alone
        assert case.clauses == oracle.expect(case).clauses, f"actual tags {case.clauses}"
    assert {"TOY-RULE", "TOY-BOOL"} <= {c for case in drawn for c in case.clauses}
    assert [e.clause for e in error_cases() if e.case.op == "toy_abs"] == ["TOY-BOOL"]

    path = tmp_path / "corpus.jsonl"
    C.write_corpus(path, [e.case for e in error_cases() if e.case.op == "toy_abs"] + drawn)
    cases, digest = C.load_corpus(path)
    assert [c.id for c in cases][1:] == [c.id for c in drawn] and digest == C.recorded_hash(path)

    good = _run(OracleAdapter(), cases, tmp_path / "oracle.jsonl")
    assert {v.verdict for v in good} == {"pass"}, [(v.verdict, v.outcome) for v in good if v.verdict != "pass"]
    bad = _run(toy.ForgetfulAbs(), cases, tmp_path / "forgetful.jsonl")
    negative = [v for v, c in zip(bad, cases) if c.inputs["x"].dtype != np.bool_ and (c.inputs["x"] < 0).any()]
    assert negative and {v.verdict for v in negative} == {"value-mismatch"}

    out = write_report([tmp_path / "oracle.jsonl", tmp_path / "forgetful.jsonl"], tmp_path / "report")
    summary = json.loads(open(out["summary_json"]).read())
    assert "toy_abs" in json.dumps(summary["implementations"]), "actual: the summary has no abs entry"
    html = open(out["report_html"], encoding="utf-8").read()
    for text in ("toy_abs", "TOY-RULE", "TOY-BOOL", "forgetful-toy-abs"):
        assert text in html, f"actual: report.html lacks {text!r}"


def test_an_unregistered_op_is_refused_where_a_case_enters(tmp_path):
    toy_op.register()
    try:
        case = C.draw_examples(strategies.cases("toy_abs"), 1)[0]
        path = tmp_path / "corpus.jsonl"
        C.write_corpus(path, [case])
        head, arrays = wire.case_to_msg(case)
    finally:
        toy_op.unregister()
    with pytest.raises(CodecError, match="unknown op 'toy_abs'"):
        C.load_corpus(path)
    with pytest.raises(CodecError, match="unknown op 'toy_abs'"):
        wire.case_from_msg(head, arrays)
    with pytest.raises(ValueError, match="unknown op 'toy_abs'"):
        oracle.expect(case)


def test_an_op_cannot_take_a_registered_name_or_clause_prefix(toy):
    with pytest.raises(ValueError, match="already registered"):
        registry.register(toy_op.OpSpec(**{**_fields(toy.SPEC), "name": "toy_abs"}))
    with pytest.raises(ValueError, match="prefix CL is clip's"):
        registry.register(toy_op.OpSpec(**{**_fields(toy.SPEC), "name": "abs2",
                                           "clause_rows": (("CL-X", "sem", "Description", "a clash"),)}))
    with pytest.raises(ValueError, match="already registered"):
        strategies.register("toy_abs", toy.FAMILIES)
    with pytest.raises(ValueError, match="unknown op"):
        strategies.register("no-such-op", toy.FAMILIES)


def _fields(spec):
    return {k: getattr(spec, k) for k in ("name", "source", "title", "clause_rows", "inputs", "params", "outputs",
                                          "decode", "solve", "reference", "call", "repro", "dtypes")}
