"""Set-valued expectations ("raises C, or returns exactly V"): judged on hand-made outcomes.

The expectation under test is the oracle's own answer to the documents' worked examples where two
sentences of one document disagree, so the admissible values come from the document, not from here."""
import numpy as np
import pytest

import oracle
from adapters.base import Outcome
from contract.expectation import EITHER
from suites.strategies import all_doc_examples as doc_examples
from suites.describe import describe
from suites.judge import READ_RAISES, READ_RETURNS, judge

from bad_adapters import GoodClip

A = GoodClip()
# ST-EX-1 prints [10., 20., 30.] for a float64 target set_ to float32 data; ST-E-DTYPE says RuntimeError
SET_EXAMPLE, _DOC = next((c, d) for c, d in doc_examples() if "ST-GAP-EXAMPLE" in c.clauses)
SET_PRINTED = _DOC["self"]


def _judged(case, exp, out, verdict, reading):
    """judge() of a hand-made outcome, held to the verdict and reading the documents give it."""
    v = judge(case, exp, out, A)
    assert (v.verdict, v.reading) == (verdict, reading), (
        f"actual {v.verdict}/{v.reading}: {v.outcome}; expected {verdict}/{reading}; call {case.label}; "
        f"expectation {exp.summary()}")
    return v


def _returns_printed(exp, tweak=None):
    """What an implementation that does what the example shows returns (the printed values, the
    source's storage seen through self); `tweak` spoils one element."""
    self_ = np.asarray(SET_PRINTED, dtype=exp.outputs["self"].value.dtype)
    if tweak is not None:
        self_ = self_.copy()
        self_[0] += tweak
    return Outcome.returned(self=self_, source_after_fill=np.asarray(exp.outputs["source_after_fill"].value))


def test_set_example_is_an_either_expectation_whose_value_is_the_printed_one():
    exp = oracle.expect(SET_EXAMPLE)
    assert exp.kind == EITHER and exp.error_classes == ("RuntimeError",), exp.summary()
    assert np.array_equal(exp.outputs["self"].value, np.asarray(SET_PRINTED, dtype=exp.outputs["self"].value.dtype))


@pytest.mark.parametrize("outcome, verdict, reading", [
    ("printed", "pass", READ_RETURNS),                            # does what the example shows
    ("raises RuntimeError", "pass", READ_RAISES),                 # follows the Raises list
    ("wrong value", "value-mismatch", READ_RETURNS),              # accepted, but not the document's value
    ("raises KeyError", "wrong-error-class", READ_RAISES),        # a class the document does not name
])
def test_set_example_admits_both_readings_and_nothing_else(outcome, verdict, reading):
    exp = oracle.expect(SET_EXAMPLE)
    out = {"printed": lambda: _returns_printed(exp), "wrong value": lambda: _returns_printed(exp, 1.0),
           "raises RuntimeError": lambda: Outcome.raised(RuntimeError("dtype differs")),
           "raises KeyError": lambda: Outcome.raised(KeyError("x"))}[outcome]()
    v = _judged(SET_EXAMPLE, exp, out, verdict, reading)
    if verdict == "pass":
        assert any("took the reading" in n for n in v.notes), v.notes
    else:
        assert describe(v, SET_EXAMPLE, exp, A).repro, "a failing either-verdict carries a repro"


def test_either_summary_names_both_readings():
    exp = oracle.expect(SET_EXAMPLE)
    assert exp.summary().startswith("raises RuntimeError (") and ", or returns self: " in exp.summary()


# ---- scatter_nd_add: SNA-DTYPE's TypeError beside SNA-CONVERT's conversion ---------------------------
# The document's first example (SNA-EX-1) with updates given as int8: the same values, which float32 holds
# exactly, so the reading that converts must print the example's own output.
SNA_EXAMPLE, SNA_DOC = next((c, d) for c, d in doc_examples() if "SNA-EX-1" in c.clauses)
SNA_INT8 = SNA_EXAMPLE.__class__(op=SNA_EXAMPLE.op, params=dict(SNA_EXAMPLE.params), origin="regression",
                                 label="SNA-EX-1 with int8 updates",
                                 inputs={**SNA_EXAMPLE.inputs,
                                         "updates": SNA_EXAMPLE.inputs["updates"].astype(np.int8)})


def _sna_returns(tweak=0.0, dtype=None):
    out = np.asarray(SNA_DOC["out"], dtype=dtype or SNA_EXAMPLE.inputs["x"].dtype).copy()
    out[1] += tweak
    return Outcome.returned(out=out, x=out.copy())


@pytest.mark.parametrize("outcome, verdict, reading", [
    ("printed", "pass", READ_RETURNS),                    # SNA-CONVERT: updates converted, the example's sum
    ("raises TypeError", "pass", READ_RAISES),            # SNA-DTYPE
    ("raises RuntimeError", "pass", READ_RAISES),         # SNA-CONVERT's error, read as the one that applies
    ("wrong value", "value-mismatch", READ_RETURNS),
    ("raises ValueError", "wrong-error-class", READ_RAISES),
])
def test_scatter_nd_add_dtype_admits_both_sentences_and_nothing_else(outcome, verdict, reading):
    exp = oracle.expect(SNA_INT8)
    assert exp.kind == EITHER and exp.error_classes == ("TypeError", "RuntimeError"), exp.summary()
    out = {"printed": lambda: _sna_returns(), "wrong value": lambda: _sna_returns(1.0),
           "raises TypeError": lambda: Outcome.raised(TypeError("dtype differs")),
           "raises RuntimeError": lambda: Outcome.raised(RuntimeError("cannot convert")),
           "raises ValueError": lambda: Outcome.raised(ValueError("x"))}[outcome]()
    _judged(SNA_INT8, exp, out, verdict, reading)


def test_scatter_nd_add_result_keeps_x_dtype():
    """SNA-RETURN: the converted sum has x's dtype; the sum in updates' dtype is not the document's value."""
    exp = oracle.expect(SNA_INT8)
    v = judge(SNA_INT8, exp, _sna_returns(dtype=np.int8), A)
    assert v.verdict != "pass", f"actual {v.verdict}: {v.outcome}; expected a failing verdict (int8 result)"


# ---- clip: "the bound's dtype must be the input's" beside "another dtype is built through Element" ------
# The document's first example's input with Element bounds of INT16 (the input is INT32): the returning
# reading is the formula, computed here independently with NumPy's maximum/minimum.
CLIP_X = next(c for c, _ in doc_examples() if "CL-EX-1" in c.clauses).inputs["x"]
CLIP_INT16 = SNA_EXAMPLE.__class__(op="clip", inputs={"x": CLIP_X}, origin="regression",
                                   label="CL-EX-1's input, Element(INT16) bounds 0 and 3",
                                   params={"min": {"kind": "element", "dtype": "int16", "value": 0},
                                           "max": {"kind": "element", "dtype": "int16", "value": 3}})


@pytest.mark.parametrize("outcome, verdict, reading", [
    ("formula", "pass", READ_RETURNS),
    ("raises TypeError", "pass", READ_RAISES),            # no class is named: any class
    ("raises KeyError", "pass", READ_RAISES),
    ("wrong value", "value-mismatch", READ_RETURNS),
])
def test_clip_element_of_another_dtype_admits_both_sentences(outcome, verdict, reading):
    exp = oracle.expect(CLIP_INT16)
    assert exp.kind == EITHER and exp.error_classes == (), exp.summary()
    value = np.minimum(np.maximum(CLIP_X, 0), 3)
    out = {"formula": lambda: Outcome.returned(out=value, x=CLIP_X.copy()),
           "wrong value": lambda: Outcome.returned(out=value + 1, x=CLIP_X.copy()),
           "raises TypeError": lambda: Outcome.raised(TypeError("dtype")),
           "raises KeyError": lambda: Outcome.raised(KeyError("dtype"))}[outcome]()
    _judged(CLIP_INT16, exp, out, verdict, reading)


def test_clip_tensor_bound_of_another_dtype_is_the_same_precondition():
    """A Tensor bound of another dtype has only the must-equal sentence, which names no consequence
    (docs/SPEC.md, "Preconditions"): raises, or the formula's value in the input's dtype."""
    big = np.full_like(CLIP_X, 100)
    case = CLIP_INT16.__class__(op="clip", inputs={"x": CLIP_X, "min": np.zeros_like(CLIP_X, np.int16), "max": big},
                                params={"min": {"kind": "tensor"}, "max": {"kind": "tensor"}}, origin="regression",
                                label="INT16 tensor min, INT32 tensor max")
    exp = oracle.expect(case)
    assert (exp.kind, exp.clauses[0]) == (EITHER, "CL-BOUND-DTYPE"), exp.summary()
    want = np.minimum(np.maximum(CLIP_X, 0), big)
    assert np.array_equal(exp.outputs["out"].value, want) and exp.outputs["out"].value.dtype == CLIP_X.dtype


@pytest.mark.parametrize("value, kind", [(2.5, "unspecified"), (0.5, EITHER)])
def test_clip_element_value_the_input_cannot_hold_is_open_only_where_it_wins(value, kind):
    """Element(FP32, 2.5) on INT32 [1, 2, 3]: its conversion (2 or 3) is not stated and it decides x = 1
    and 2, so the value is open; 0.5 (0 or 1) decides no element, so the value is fixed."""
    x = np.array([1, 2, 3], np.int32)
    case = CLIP_INT16.__class__(op="clip", inputs={"x": x}, origin="regression", label=f"Element(FP32, {value})",
                                params={"min": {"kind": "element", "dtype": "float32", "value": value}})
    exp = oracle.expect(case)
    assert exp.kind == kind, exp.summary()


# ---- set_: "no listed signature" beside a prototype whose view is not stated -------------------------
ST_OFFSET_ONLY = SNA_EXAMPLE.__class__(op="set_", inputs={"target": np.zeros(2, np.float32),
                                                          "source": np.arange(4, dtype=np.float32)},
                                       params={"source_kind": "storage", "storage_offset": 1}, origin="regression",
                                       label="set_(storage, storage_offset=1) without size")


@pytest.mark.parametrize("outcome, verdict, reading", [
    ("raises TypeError", "pass", READ_RAISES),            # the closed signature list (ST-E-TYPE)
    ("returns", "extension", READ_RETURNS),               # the prototype's defaults: no view is stated
    ("raises KeyError", "wrong-error-class", READ_RAISES),
])
def test_set_offset_without_size_admits_typeerror_or_any_value(outcome, verdict, reading):
    exp = oracle.expect(ST_OFFSET_ONLY)
    assert (exp.kind, exp.error_classes, exp.outputs) == (EITHER, ("TypeError",), {}), exp.summary()
    out = {"raises TypeError": lambda: Outcome.raised(TypeError("no such signature")),
           "returns": lambda: Outcome.returned(self=np.arange(3, dtype=np.float32),
                                               source_after_fill=np.arange(4, dtype=np.float32)),
           "raises KeyError": lambda: Outcome.raised(KeyError("x"))}[outcome]()
    _judged(ST_OFFSET_ONLY, exp, out, verdict, reading)
