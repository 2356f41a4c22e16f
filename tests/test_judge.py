"""The judge: every verdict of docs/DESIGN.md from hand-made Expectations (derived from the clauses) and Outcomes."""
import json
import math

import numpy as np
import pytest

from adapters.base import CRASHED, NOT_APPLICABLE, TIMED_OUT, Outcome
from contract.dtypes import BFLOAT16
from contract.expectation import BOUND, CHOICES, ZERO_REPORT, ExpectedArray, Expectation
from suites.failure_message import assert_conforms, failure_message

from adapter_helpers import in_a_script
from suites.describe import describe
from suites.known_divergences import KnownDivergences, KnownDivergencesError
from suites.judge import compare, judge

from bad_adapters import GoodClip, clip_case, clip_expectation

A = GoodClip()
CASE = clip_case("judge")


def _err(cls="TypeError", clause="SNA-IDX-DTYPE"):
    return Expectation("error", clauses=(clause,), error_clause=clause, error_classes=(cls,) if cls else (), message="bad indices dtype")


def _val(**outputs):
    return Expectation("value", clauses=("CL-FORMULA",), outputs=outputs)


class _SubTypeError(TypeError):
    pass


@pytest.mark.parametrize("exp, exc, verdict", [
    (_err("TypeError"), TypeError("x"), "pass"),
    (_err("TypeError"), _SubTypeError("x"), "pass"),                  # a subclass of the documented class
    (_err("TypeError"), ValueError("x"), "wrong-error-class"),
    (_err(None), ValueError("x"), "pass"),                            # the doc names no class: any will do
    (_err("RuntimeError"), KeyError("x"), "wrong-error-class"),
])
def test_documented_errors(exp, exc, verdict):
    v = judge(CASE, exp, Outcome.raised(exc), A)
    assert v.verdict == verdict
    if verdict == "wrong-error-class":
        assert v.error["expected_class"] == (" or ".join(exp.error_classes) or None) and v.error["actual_class"] == type(exc).__name__
        assert describe(v, CASE, exp, A).repro


def test_missing_error():
    v = judge(CASE, _err(), Outcome.returned(out=np.zeros(3, np.float32)), A)
    assert v.verdict == "missing-error" and v.error["expected_class"] == "TypeError"
    assert v.outcome.startswith("returned out: float32[3]")


def test_unexpected_error_keeps_message_and_stderr():
    out = Outcome.raised(RuntimeError("Launch kernel failed\nmore"), stderr="[ERROR] index out of range")
    v = judge(CASE, clip_expectation(CASE), out, A)
    assert v.verdict == "unexpected-error"
    assert v.outcome == "raised RuntimeError: Launch kernel failed"
    assert v.error["stderr"] == "[ERROR] index out of range"


def _uns(natural=None):
    return Expectation("unspecified", clauses=("SI-STEP",), outputs=natural or {}, message="step not supported")


def test_unspecified_raised_is_a_pass_with_a_note():
    v = judge(CASE, _uns(), Outcome.raised(ValueError("no")), A)
    assert v.verdict == "pass" and "SI-STEP" in v.notes[0]


@pytest.mark.parametrize("natural, got, note", [
    ({"out": ExpectedArray(np.array([1, 2], np.int32))}, [1, 2], "matches the NumPy natural value"),
    ({"out": ExpectedArray(np.array([1, 2], np.int32))}, [1, 3], "differs from the NumPy natural value"),
    (None, [1, 3], "no NumPy natural value"),
])
def test_unspecified_returned_is_an_extension_checked_against_numpy(natural, got, note):
    v = judge(CASE, _uns(natural), Outcome.returned(out=np.array(got, np.int32)), A)
    assert v.verdict == "extension" and note in v.notes[0]


@pytest.mark.parametrize("kind, field, verdict, text", [
    (CRASHED, {"signal": 11}, "crash", "signal 11 (SIGSEGV)"),
    (CRASHED, {"message": "worker exited with status 3"}, "crash", "status 3"),
    (TIMED_OUT, {"seconds": 2.5}, "timeout", "2.5 s"),
    (NOT_APPLICABLE, {"message": "no bf16"}, "not-applicable", "no bf16"),
])
def test_process_level_outcomes(kind, field, verdict, text):
    v = judge(CASE, clip_expectation(CASE), Outcome(kind, **field), A)
    assert v.verdict == verdict and text in v.outcome


def _one(expected, actual, **kw):
    exp = _val(out=ExpectedArray(np.asarray(expected), **kw))
    return judge(CASE, exp, Outcome.returned(out=np.asarray(actual)), A)


def test_exact_mismatch_details():
    v = _one(np.array([[1, 2], [3, 4]], np.int32), np.array([[1, 9], [3, 8]], np.int32))
    assert v.verdict == "value-mismatch"
    assert v.mismatch == {"output": "out", "count": 2, "total": 4, "indices": [[0, 1], [1, 1]]}
    assert "2 of 4 elements differ; first at (0, 1): 9 != 2" in v.outcome
    assert v.expected_values["out"].tolist() == [[1, 2], [3, 4]] and v.actual_values["out"][0, 1] == 9
    assert "np.array" in describe(v, CASE, _val(), A).repro


def test_nan_equals_nan_and_payloads_do_not_matter():
    a = np.array([math.nan, 1.0], np.float32)
    b = a.copy()
    b.view(np.uint32)[0] = 0x7FC00001
    assert _one(a, b).verdict == "pass"
    assert _one(a, np.array([1.0, 1.0], np.float32)).verdict == "value-mismatch"


def test_zero_sign_strict_is_a_mismatch_and_report_is_a_note():
    v = _one(np.array([-0.0, 1.0], np.float32), np.array([0.0, 1.0], np.float32))
    assert v.verdict == "value-mismatch" and "-0.0" in v.outcome
    v = _one(np.array([-0.0, 1.0], np.float32), np.array([0.0, 1.0], np.float32), zero_sign=ZERO_REPORT)
    assert v.verdict == "pass" and v.notes == ["out: sign of zero differs at 1 element"]


def test_dtype_and_shape_are_checked_first():
    v = _one(np.zeros(3, np.float32), np.zeros(3, np.float64))
    assert v.verdict == "value-mismatch" and "dtype float64 != float32" in v.outcome
    v = _one(np.zeros(3, np.float32), np.zeros((1, 3), np.float32))
    assert v.verdict == "value-mismatch" and "shape [1, 3] != [3]" in v.outcome


def test_bound_rule():
    exp = np.array([1.0, 2.0, math.inf], np.float32)
    bound = np.array([0.5, 0.0, 0.0])
    assert _one(exp, np.array([1.4, 2.0, math.inf], np.float32), rule=BOUND, bound=bound).verdict == "pass"
    v = _one(exp, np.array([1.6, 2.0, math.inf], np.float32), rule=BOUND, bound=bound)
    assert v.verdict == "value-mismatch" and "(bound 0.5)" in v.outcome


def test_choices_rule_admits_any_colliding_value():
    value = np.array([5, 7], np.int64)
    choices = np.array([[5, 7], [6, 7]], np.int64)
    assert _one(value, np.array([6, 7], np.int64), rule=CHOICES, choices=choices).verdict == "pass"
    v = _one(value, np.array([4, 7], np.int64), rule=CHOICES, choices=choices)
    assert v.verdict == "value-mismatch" and "admissible: 5, 6" in v.outcome
    f = np.array([[-0.0], [1.0]], np.float32)
    assert _one(f[0], np.array([0.0], np.float32), rule=CHOICES, choices=f).verdict == "value-mismatch"
    assert _one(f[0], np.array([-0.0], np.float32), rule=CHOICES, choices=f).verdict == "pass"


def test_bfloat16_compares_exactly():
    a = np.array([1.0, 1.0078125], BFLOAT16)
    assert _one(a, a.copy()).verdict == "pass"
    assert _one(a, np.array([1.0, 1.015625], BFLOAT16)).verdict == "value-mismatch"


def test_zero_dim_outputs():
    assert _one(np.array(3, np.int32), np.array(3, np.int32)).verdict == "pass"
    assert "first at ()" in _one(np.array(3, np.int32), np.array(4, np.int32)).outcome


def test_primary_output_required_later_ones_optional():
    exp = clip_expectation(CASE)
    v = judge(CASE, exp, Outcome.returned(out=np.array([2, 5, 6], np.float32)), A)
    assert v.verdict == "pass" and v.notes == ["output 'x' not reported by the adapter; not compared"]
    v = judge(CASE, exp, Outcome.returned(x=CASE.inputs["x"]), A)
    assert v.verdict == "value-mismatch" and "primary output 'out' missing" in v.outcome


def test_a_later_output_is_compared_when_present():
    exp = clip_expectation(CASE)
    v = judge(CASE, exp, Outcome.returned(out=np.array([2, 5, 6], np.float32), x=np.array([2, 5, 6], np.float32)), A)
    assert v.verdict == "value-mismatch" and v.mismatch["output"] == "x"


def test_verdict_carries_clauses_api_and_key():
    v = describe(judge(CASE, clip_expectation(CASE), Outcome.raised(TypeError("no")), A), CASE, clip_expectation(CASE), A)
    assert v.clauses == ("CL-FORMULA",) and v.native_api == "GoodClip.clip" and v.adapter == "good"
    assert v.adapter_version == "0.0-test"
    assert v.key() == f"clip/unexpected-error/CL-FORMULA/float32/x:1d/{CASE.id}"


def test_large_arrays_are_not_copied_into_the_verdict():
    big = np.zeros(5000, np.int32)
    v = _one(big, big + 1)
    assert v.verdict == "value-mismatch" and v.expected_values == {} and len(v.mismatch["indices"]) == 10


def test_an_empty_array_with_a_dim_the_results_reader_refuses_is_not_copied_into_the_verdict():
    # set_ may declare self of shape [0, 2**40]: written into a failing record, the reader would refuse the
    # whole results file (contract/codec.py's dim limit), and the report with it
    from contract.results import case_record, check_record
    v = _one(np.zeros((0, 2 ** 40), np.float32), np.zeros((0,), np.float32))
    assert v.verdict == "value-mismatch" and "out" in v.actual_values
    assert check_record(json.loads(json.dumps(case_record("r", v, CASE))))["verdict"] == "value-mismatch"


def test_assert_conforms_message_reads_actual_expected_call_repro():
    v = describe(judge(CASE, clip_expectation(CASE), Outcome.raised(TypeError("no")), A), CASE, clip_expectation(CASE), A)
    with pytest.raises(AssertionError) as e:
        assert_conforms(v, CASE)
    text = str(e.value)
    order = [text.index(w) for w in ("actual:", "expected:", "call:", "repro:")]
    assert order == sorted(order) and "raised TypeError: no" in text
    assert_conforms(judge(CASE, clip_expectation(CASE), GoodClip().run(CASE), A), CASE)
    assert failure_message(v, CASE).startswith("good clip case")


def test_expectations_file(tmp_path):
    p = tmp_path / "good.txt"
    p.write_text("# comment\n\nclip/value-mismatch/*CL-FORMULA*/* :: torch keeps -0.0\n"
                 "scatter/* :: never matches\nClip/* :: case-sensitive, never matches\n")
    e = KnownDivergences.load(str(p))
    assert e.match(f"clip/value-mismatch/CL-FORMULA,CL-MIN-GT-MAX/{CASE.id}") == "torch keeps -0.0"
    assert e.match(f"clip/crash/CL-FORMULA/{CASE.id}") is None
    assert [(x.line, x.glob) for x in e.unmatched()] == [(4, "scatter/*"), (5, "Clip/*")]


def test_expectations_line_that_names_what_the_framework_said(tmp_path):
    # `~ regex` keys a line on the cause where the key cannot (the first matching line wins).
    p = tmp_path / "says.txt"
    p.write_text("clip/unexpected-error/* ~ BroadcastAxes size should be <= 1 :: two broadcast axes\n"
                 "clip/unexpected-error/* :: anything else\n")
    e = KnownDivergences.load(str(p))
    key = f"clip/unexpected-error/CL-BROADCAST/float32/x:3d/{CASE.id}"
    assert e.match(key, "raised RuntimeError: FC0000\nminBroadcastAxes size should be <= 1") == "two broadcast axes"
    assert e.match(key, "raised RuntimeError: FC0000\nonly support 2~4") == "anything else"
    v = judge(CASE, clip_expectation(CASE), Outcome.raised(RuntimeError("FC0000"), stderr="maxBroadcastAxes size "
                                                                                        "should be <= 1"), A)
    assert e.match(v.key(), v.evidence()) == "two broadcast axes", v.evidence()


def test_expectations_bad_regex_is_an_error_with_file_and_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("clip/* ~ ([ :: reason\n")
    with pytest.raises(KnownDivergencesError, match=r"bad\.txt:1"):
        KnownDivergences.load(str(p))


@pytest.mark.parametrize("line", ["clip/*", "clip/* ::   ", " :: reason"])
def test_expectations_line_without_reason_is_an_error(tmp_path, line):
    p = tmp_path / "x.txt"
    p.write_text("# ok\n" + line + "\n")
    with pytest.raises(KnownDivergencesError, match=r"x\.txt:2"):
        KnownDivergences.load(str(p))


def test_shipped_oracle_expectations_file_is_valid_and_empty():
    assert KnownDivergences.for_adapter("oracle").patterns == []


# ---- repro snippets run and reproduce -----------------------------------------------------------

def _primary_var(case) -> str:
    """The repro's variable holding the primary output: the op's own OpSpec.repro names it."""
    from adapters.repro import scalar_text
    from oracle import registry
    spec = registry.spec(case.op)
    return spec.repro(case, scalar_text)[2][spec.output_names[0]]


def _spec_cases():
    from suites.corpus import doc_example_cases, error_case_list
    return doc_example_cases() + error_case_list()


@pytest.mark.parametrize("case", _spec_cases(), ids=lambda c: f"{c.op}-{c.label[:40]}-{c.id[:6]}")
def test_oracle_repro_snippet_runs_and_gives_the_expected_answer(case):
    import oracle
    from adapters.oracle_adapter import OracleAdapter
    exp = oracle.expect(case)
    src = OracleAdapter().repro(case, exp)
    ns = {}
    in_a_script(src, ns)    # with the expectation, a conforming call's repro runs clean (its checks pass)
    if exp.kind == "value":
        name, want = next(iter(exp.outputs.items()))
        fail, _, _ = compare(name, want, np.asarray(ns[_primary_var(case)]))
        assert not fail, f"{fail}\n{src}"
    elif exp.kind == "error":
        # without it, the call itself: the class the document names, the oracle's clause in the message
        with pytest.raises(Exception) as e:
            in_a_script(OracleAdapter().repro(case), {})
        assert exp.admits_class([c.__name__ for c in type(e.value).__mro__]), src
        assert str(e.value).startswith(f"[{exp.error_clause}]"), src


class _Untouchable:
    """An adapter whose every call fails the test: all the judge may read of it is its name and version."""
    name, version = "untouchable", "1.0"

    def native_api(self, op, case=None):
        raise AssertionError("the judge asked the adapter for its call")

    def repro(self, case, expectation=None):
        raise AssertionError("the judge asked the adapter for a repro")


@pytest.mark.parametrize("outcome", [Outcome.raised(TypeError("no")), Outcome(CRASHED, signal=11, message="died"),
                                     Outcome.returned(out=np.zeros(3, np.float32))])
def test_the_judge_asks_the_adapter_for_nothing(outcome):
    """Judging is pure: a failing verdict's call and repro are asked of the adapter afterwards (describe)."""
    v = judge(CASE, clip_expectation(CASE), outcome, _Untouchable())
    assert v.verdict != "pass" and v.repro == "" and v.native_api == outcome.native_api
    d = describe(v, CASE, clip_expectation(CASE), A)
    assert d is v and v.native_api == "GoodClip.clip" and v.repro
