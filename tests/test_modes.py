"""The mode-consistency gate (suites/variants.py, kind "mode"): a compiled mode must answer every case as its eager twin does,
bit for bit and on open inputs too; a difference no line of the mode's expectations lists fails the run, and
shows in the results, summary.json and the report.  The twin is the harness's choice (adapters/registry.py,
MODES), never the candidate's."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from adapters import registry
from adapters.base import Outcome
from bad_adapters import clip_case, write_corpus
from conform import runner
from reports.render import write_report
from suites import variants
from suites.judge import Verdict, answer_of

TESTS = os.path.dirname(os.path.abspath(__file__))
EAGER, COMPILED = "bad_adapters:GoodClip", "bad_adapters:CompiledDrift"


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    monkeypatch.syspath_prepend(TESTS)


@pytest.fixture
def shipped_mode(monkeypatch):
    """GoodClip and its drifting compiled mode, as if shipped: MODES names the pair."""
    monkeypatch.setitem(registry.BUILTIN, "good", EAGER)
    monkeypatch.setitem(registry.BUILTIN, "good-compiled", COMPILED)
    monkeypatch.setitem(registry.MODES, "good-compiled", "good")


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_corpus(str(path), [clip_case(f"c{i}" + (" drift" if i in (3, 7) else ""), x=(float(i), 5.0, 9.0))
                             for i in range(12)])
    return str(path)


def _records(path):
    with open(path) as f:
        return [r for r in map(json.loads, f) if r["record"] == "case"]


def test_an_unlisted_difference_from_the_eager_twin_fails_the_run_and_is_in_results_summary_and_report(
        shipped_mode, corpus, tmp_path):
    result = runner.run([EAGER, COMPILED], corpus=corpus, out_dir=str(tmp_path / "out"))
    assert result.exit_code == 1, f"actual exit {result.exit_code}; expected 1: two unlisted mode differences"
    assert sorted(d.case_id for d in result.modes) == sorted(
        r["case_id"] for r in _records(result.results_path) if "drift" in r["case"]["label"] and r["adapter"] == "good-compiled")
    compiled = [r for r in _records(result.results_path) if r["adapter"] == "good-compiled"]
    assert all(r["mode"]["twin"] == "good" for r in compiled) and len(compiled) == 12
    differ = [r for r in compiled if not r["mode"]["agrees"]]
    assert {r["case"]["label"] for r in differ} == {"c3 drift", "c7 drift"}
    assert all(r["mode"]["twin_verdict"] == "pass" and r["mode"]["listed"] == "" for r in differ)
    assert not any("mode" in r for r in _records(result.results_path) if r["adapter"] == "good")
    write_report([result.results_path], str(tmp_path / "rep"))
    summary = json.load(open(tmp_path / "rep" / "summary.json"))
    (m,) = summary["modes"]
    assert (m["adapter"], m["twin"], m["compared"], m["agree"], m["differ"], m["unlisted"]) == \
        ("good-compiled", "good", 12, 10, 2, 2)
    assert summary["gate"]["exit_code"] == 1
    html = open(tmp_path / "rep" / "report.html").read()
    assert "Execution modes: compiled vs eager" in html and all(d.case_id in html for d in result.modes)


def test_a_listed_difference_passes_and_the_line_is_keyed_mode_op_verdicts_clauses_case(shipped_mode, corpus, tmp_path):
    lines = tmp_path / "compiled.txt"
    # the two drifting cases are also value-mismatches against the target: listed like any divergence
    lines.write_text("clip/value-mismatch/* :: test: the compiled path rounds one ulp up\n"
                     "mode/clip/pass/value-mismatch/*CL-FORMULA*/* ~ differ :: test: folds the bound otherwise\n")
    result = runner.run([EAGER, COMPILED], corpus=corpus, out_dir=str(tmp_path / "out"),
                        expectations_files={COMPILED: str(lines)})
    assert result.exit_code == 0, result.message
    assert [d.listed for d in result.modes] == ["test: folds the bound otherwise"] * 2
    assert result.unmatched_patterns == []


def test_without_its_twin_in_the_run_a_mode_is_not_gated_and_its_mode_lines_are_not_reported_unmatched(
        shipped_mode, corpus, tmp_path):
    lines = tmp_path / "compiled.txt"
    lines.write_text("clip/value-mismatch/* :: test\nmode/clip/* :: test: not gated without the twin\n")
    result = runner.run([COMPILED], corpus=corpus, out_dir=str(tmp_path / "out"),
                        expectations_files={COMPILED: str(lines)})
    assert result.exit_code == 0 and result.modes == []
    assert not any("mode" in r for r in _records(result.results_path))
    assert result.unmatched_patterns == []


def test_refuses_a_candidate_choosing_its_twin_a_name_or_attribute_selects_no_gate(corpus, tmp_path):
    # CompiledDrift is not shipped here: its name, and an eager_twin it might declare, select nothing
    class Handle:
        def __init__(self, target, name):
            self.target, self.name = target, name
    assert variants.of_run([Handle(EAGER, "jax"), Handle(COMPILED, "jax-jit")], variants.KINDS) == {}
    assert registry.eager_twin("bad_adapters:CompiledDrift") == "" and registry.eager_twin("jax-jit") == "jax"
    assert registry.eager_twin("jax-jit@from_numpy") == "", "a construction variant is no mode"


def _verdict(adapter, verdict, outcome):
    return Verdict(verdict, "c", "clip", adapter, clauses=("CL-GAP-X",), outcome=verdict, answer=answer_of(outcome))


def test_open_inputs_are_compared_too_two_conforming_answers_that_differ_are_inconsistent():
    # both "extension": either alone conforms where the documents are silent, but not both from one framework
    a = _verdict("fw", "extension", Outcome.returned(out=np.array([1.0], np.float32)))
    b = _verdict("fw-jit", "extension", Outcome.returned(out=np.array([2.0], np.float32)))
    found = variants.compare(clip_case("c"), [a, b], {"fw-jit": variants.Variant("mode", "fw-jit", "fw", "fw-jit")},
                            lambda *_: None)
    assert [d.key() for d in found] == [f"mode/clip/extension/extension/CL-GAP-X/{clip_case('c').id}"]
    assert b.mode["agrees"] is False and a.mode is None


@pytest.mark.parametrize("other", [
    Outcome.returned(out=np.array([-0.0], np.float32)),                   # the sign of a zero
    Outcome.returned(out=np.array([0.0], np.float64)),                    # the dtype
    Outcome.returned(out=np.array([[0.0]], np.float32)),                  # the shape
    Outcome.returned(out=np.array(0.0, np.float32)),                      # 0-d, which ascontiguousarray makes 1-d
    Outcome.returned(out=np.array([0.0], np.float32), x=np.zeros(1)),     # another output
    Outcome.raised(ValueError("no")),
    Outcome.not_applicable("compiled has no row"),
], ids=["zero-sign", "dtype", "shape", "0-d", "outputs", "raised", "not-applicable"])
def test_answers_are_equal_only_bit_for_bit(other):
    base = Outcome.returned(out=np.array([0.0], np.float32))
    assert answer_of(base) == answer_of(Outcome.returned(out=np.array([0.0], np.float32)))
    assert answer_of(base) != answer_of(other)
    assert answer_of(Outcome.raised(ValueError("a"))) == answer_of(Outcome.raised(ValueError("b"))), \
        "the message is not the answer; its class is"
    assert answer_of(Outcome.raised(ValueError("a"))) != answer_of(Outcome.raised(TypeError("a")))


def test_the_construction_check_tells_a_0d_answer_from_a_1_element_one():
    # one digest for every variant: a construction is compared as a mode is, by answer_of
    one = _verdict("torch", "value-mismatch", Outcome.returned(out=np.array([5], np.int32)))
    zero_d = _verdict("torch@from_numpy", "value-mismatch", Outcome.returned(out=np.array(5, np.int32)))
    way = {"torch@from_numpy": variants.Variant("construction", "torch@from_numpy", "torch", "from_numpy")}
    found = variants.compare(clip_case("c"), [one, zero_d], way, lambda *_: None)
    assert [d.key() for d in found] == [f"construction/from_numpy/clip/value-mismatch/value-mismatch/CL-GAP-X/"
                                        f"{clip_case('c').id}"]
    assert zero_d.mode is None and zero_d.layout is None, "a construction has no record field"
    same = _verdict("torch@from_numpy", "value-mismatch", Outcome.returned(out=np.array([5], np.int32)))
    assert variants.compare(clip_case("c"), [one, same], way, lambda *_: None) == []


def test_a_construction_answering_another_open_value_is_a_difference_as_a_modes_is():
    # both `extension` (the documents leave the value open): no values are kept on a conforming verdict,
    # so only the one digest, answer_of, tells the two answers apart
    a = _verdict("torch", "extension", Outcome.returned(out=np.array([1.0], np.float32)))
    b = _verdict("torch@from_numpy", "extension", Outcome.returned(out=np.array([2.0], np.float32)))
    way = {"torch@from_numpy": variants.Variant("construction", "torch@from_numpy", "torch", "from_numpy")}
    assert [d.kind for d in variants.compare(clip_case("c"), [a, b], way, lambda *_: None)] == ["construction"]


def test_every_kind_of_variant_is_made_in_one_place_and_only_for_the_kinds_the_run_compares():
    class Handle:
        def __init__(self, target):
            self.target, self.name = target, target
    run = [Handle(s) for s in ("torch", "torch@from_numpy", "torch@strided", "torch-compile", "mindspore-graph")]
    got = variants.of_run(run, variants.KINDS)
    assert {n: (v.kind, v.base, v.way) for n, v in got.items()} == {
        "torch@from_numpy": ("construction", "torch", "from_numpy"), "torch@strided": ("layout", "torch", "strided"),
        "torch-compile": ("mode", "torch", "torch-compile")}, "mindspore-graph's twin is not in the run"
    assert set(variants.of_run(run, variants.kinds(False, False))) == {"torch-compile"}
    assert variants.beside([], variants.KINDS) == []


def test_a_nan_is_any_nan_as_the_judge_compares_values():
    # eager jax's clip gives -NaN where jax.jit gives +NaN: the judge calls both NaN, and so does the gate
    from contract.dtypes import BFLOAT16
    for dt in (np.float16, np.float32, np.float64, BFLOAT16):
        neg = np.array([np.nan, 1.0], dt)
        neg[0] = -neg[0]
        assert np.signbit(neg[0]), dt
        assert answer_of(Outcome.returned(out=neg)) == answer_of(Outcome.returned(out=np.array([np.nan, 1.0], dt)))
        assert answer_of(Outcome.returned(out=neg)) != answer_of(Outcome.returned(out=np.array([np.nan, 2.0], dt)))


def test_refuses_a_divergence_line_listing_a_mode_difference(shipped_mode, corpus, tmp_path):
    # `*` lists every divergence; a mode difference needs a line of its own kind (`mode/...`)
    lines = tmp_path / "compiled.txt"
    lines.write_text("* :: test: a catch-all divergence line\n")
    result = runner.run([EAGER, COMPILED], corpus=corpus, out_dir=str(tmp_path / "out"),
                        expectations_files={COMPILED: str(lines)})
    assert [d.listed for d in result.modes] == ["", ""], [d.listed for d in result.modes]
    assert result.exit_code == 1, "two mode differences no mode/ line lists"
