"""Answers that hold whole arrays (issue 39, item 5): where the readings of a gap give different whole arrays,
the Expectation admits exactly those arrays (or their errors), not "any outcome"."""
from __future__ import annotations

import numpy as np
import pytest

import oracle
from adapters import wire
from adapters.base import RETURNED, Outcome
from contract.case import Case
from contract.expectation import ExpectedArray
from suites.judge import _decide

F32 = np.float32


def _setitem(target, key, value):
    return Case(op="setitem", inputs={"target": target, "value": value}, params={"key": key})


def _verdict(exp, target):
    return _decide(exp, Outcome(RETURNED, arrays={"target": np.asarray(target, F32)}))[0]


FULL = {"slice": [None, None, None]}


def test_move_against_assemble_admits_each_reading_and_nothing_else():
    """setitem.conflict.1: c[:] = v with v shorter than c: v moved in (the target becomes v), or v assembled
    at the origin; an implementation that broadcasts v or anchors it elsewhere is neither."""
    c, v = np.zeros(6, F32), np.array([1, 2], F32)
    exp = oracle.expect(_setitem(c, FULL, v))
    assert exp.kind == "either" and exp.error_clause == "SI-GAP-MOVE", exp.summary()
    assert _verdict(exp, v) == "pass"
    assert _verdict(exp, [1, 2, 0, 0, 0, 0]) == "pass"
    assert _verdict(exp, [0, 0, 0, 0, 1, 2]) == "value-mismatch"      # anchored at the end
    assert _verdict(exp, [1, 2, 1, 2, 1, 2]) == "value-mismatch"      # tiled
    assert _verdict(exp, np.zeros(6, F32)) == "value-mismatch"        # ignored


def test_move_of_a_value_that_does_not_fit_admits_the_moved_array_only():
    c, v = np.zeros((2, 2), F32), np.ones((3, 1), F32)
    exp = oracle.expect(_setitem(c, FULL, v))
    assert exp.kind == "either" and exp.outputs["target"].alternatives == ()
    assert _verdict(exp, v) == "pass"
    assert _verdict(exp, np.ones((2, 2), F32)) == "value-mismatch"    # broadcast into c


def test_a_value_shorter_than_its_slice_is_anchored_at_the_slice_start():
    """SI-ASSEMBLE: a[-3:] = b with b of 2 puts b at n-3, not at the end of the slice."""
    exp = oracle.expect(_setitem(np.zeros(6, F32), {"slice": [-3, None, None]}, np.array([1, 2], F32)))
    assert _verdict(exp, [0, 0, 0, 1, 2, 0]) == "pass"
    assert _verdict(exp, [0, 0, 0, 0, 1, 2]) == "value-mismatch"
    exp = oracle.expect(_setitem(np.zeros(6, F32), {"slice": [3, 6, None]}, np.array([1, 2], F32)))
    assert exp.kind == "either" and _verdict(exp, [0, 0, 0, 0, 1, 2]) == "value-mismatch"


def test_alternatives_travel_over_the_wire():
    exp = oracle.expect(_setitem(np.zeros(6, F32), FULL, np.array([1, 2], F32)))
    head, arrays = wire.expectation_to_msg(exp)
    back = wire.expectation_from_msg(head, dict(arrays))
    alt = back.outputs["target"].alternatives
    assert len(alt) == 1 and np.array_equal(alt[0], exp.outputs["target"].alternatives[0])


@pytest.mark.parametrize("actual, ok", [([1, 2], True), ([1, 2, 0, 0], True), ([0, 0, 1, 2], False)])
def test_the_repro_check_admits_the_alternatives(actual, ok):
    from adapters.repro import CHECK_FUNCTION
    scope = {"np": np}
    exec(CHECK_FUNCTION, scope)
    call = lambda: scope["_check"]("target", np.array(actual, F32), np.array([1, 2], F32),
                                   alternatives=(np.array([1, 2, 0, 0], F32),))
    if ok:
        call()
    else:
        with pytest.raises(AssertionError):
            call()


def test_the_corpus_holds_set_sources_that_are_views_at_an_offset():
    """A set_ Tensor source at a non-zero offset of its storage, with storage_offset and without: an offset
    added to the source's own instead of taken as absolute shows."""
    from suites.corpus import load_corpus
    cases, _ = load_corpus()
    at_offset = [c for c in cases if c.op == "set_" and c.params.get("source_kind") == "tensor"
                 and (c.params.get("source_view") or {}).get("offset", 0) > 0]
    assert any("storage_offset" in c.params and c.params["storage_offset"] > 0 for c in at_offset)
    assert any("storage_offset" not in c.params for c in at_offset)
