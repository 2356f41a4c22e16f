"""The answer is composed from every clause that applies (docs/DESIGN.md, "Composing the answer"): it does
not depend on the order in which the checks run, and a documented error is not masked by an open
precondition checked before it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from oracle.errors import shuffled_checks
from suites import strategies
from suites.corpus import load_corpus

F32 = np.float32


def _answer(case):
    """Everything an Expectation says, arrays as bytes: two answers are the same answer iff equal."""
    exp = oracle.expect(case)

    def array(a):
        return None if a is None else (a.dtype.str, a.shape, a.tobytes())
    outputs = tuple((k, v.rule, v.zero_sign, *map(array, (v.value, v.bound, v.choices, *v.alternatives)))
                    for k, v in exp.outputs.items())
    return (exp.kind, exp.error_clause, frozenset(exp.error_classes), frozenset(exp.clauses), exp.message,
            outputs)


def _same_in_every_order(case, seeds):
    plain = _answer(case)
    for seed in seeds:
        with shuffled_checks(seed):
            assert _answer(case) == plain, f"checks shuffled with seed {seed} change the answer of {case.label}"


def test_shuffling_reorders_the_checks():
    """The harness the property rests on: inside shuffled_checks, run_checks really runs another order."""
    from oracle.errors import run_checks
    seen = set()
    for seed in range(20):
        ran = []
        with shuffled_checks(seed):
            run_checks([lambda i=i: ran.append(i) for i in range(5)])
        seen.add(tuple(ran))
    assert len(seen) > 1


def test_the_corpus_answers_do_not_depend_on_the_order_of_the_checks():
    cases, _ = load_corpus()
    for i, case in enumerate(cases):
        _same_in_every_order(case, (i, i + 7919))


@settings(max_examples=300, deadline=None, database=None)
@given(st.data())
def test_drawn_answers_do_not_depend_on_the_order_of_the_checks(data):
    op = data.draw(st.sampled_from(strategies.ops()))
    case = data.draw(st.one_of(strategies.odd_cases(op), *strategies.families(op).values()))
    _same_in_every_order(case, (data.draw(st.integers(0, 2 ** 32)), data.draw(st.integers(0, 2 ** 32))))


_shape = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def _clashing(draw):
    """Small scatter / scatter_nd_add calls whose shapes, dtypes and values break several clauses at once."""
    from contract.case import Case
    dt = st.sampled_from(["float32", "int32", "int64", "int16", "float16"])

    def arr(shape, dtype, lo=-3, hi=4):
        n = int(np.prod(shape, dtype=np.int64))
        return np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)), dtype=dtype).reshape(shape)
    if draw(st.booleans()):
        x = arr(draw(_shape), draw(dt))
        idx = arr(draw(_shape), draw(dt))
        params = {"use_locking": draw(st.sampled_from([False, True, 1]))} if draw(st.booleans()) else {}
        return Case(op="scatter_nd_add", inputs={"x": x, "indices": idx, "updates": arr(draw(_shape), draw(dt))},
                    params=params)
    inputs = {"input": arr(draw(_shape), draw(dt)), "index": arr(draw(_shape), draw(dt))}
    params = {"dim": draw(st.integers(-3, 3))}
    if draw(st.booleans()):
        inputs["src"] = arr(draw(_shape), draw(dt))
    else:
        params["value"] = draw(st.sampled_from([1, 2.5, 70000]))
    return Case(op="scatter", inputs=inputs, params=params)


@settings(max_examples=400, deadline=None, database=None)
@given(_clashing(), st.integers(0, 2 ** 32))
def test_answers_to_clashing_inputs_do_not_depend_on_the_order_of_the_checks(case, seed):
    _same_in_every_order(case, (seed, seed + 1))


def _sna(x, indices, updates):
    from contract.case import Case
    return Case(op="scatter_nd_add", inputs={"x": x, "indices": indices, "updates": updates}, params={})


def test_a_documented_error_is_not_masked_by_an_open_rank():
    """indices of rank 1 leave SNA-SHAPES open, but updates (3,) is not indices.shape[:-1] + x.shape[1:] = ():
    the page's ValueError holds whatever else is open."""
    exp = oracle.expect(_sna(np.zeros(4, F32), np.array([1], np.int32), np.ones(3, F32)))
    assert (exp.kind, exp.error_clause, exp.error_classes) == ("error", "SNA-UPD-SHAPE", ("ValueError",))


def test_errors_of_unordered_checks_admit_each_class():
    """int16 indices (TypeError) and a wrong updates shape (ValueError): the Raises list orders nothing."""
    exp = oracle.expect(_sna(np.zeros(4, F32), np.array([[1]], np.int16), np.ones(3, F32)))
    assert exp.kind == "error" and set(exp.error_classes) == {"TypeError", "ValueError"}


def test_a_scatter_range_error_is_not_masked_by_an_open_ndim():
    """SC-NDIM leaves the value open, but an index value past self's dim is SC-RANGE's error."""
    from contract.case import Case
    case = Case(op="scatter", inputs={"input": np.zeros((2, 2), F32), "index": np.array([5]),
                                              "src": np.ones(1, F32)}, params={"dim": 0})
    exp = oracle.expect(case)
    assert (exp.kind, exp.error_clause) == ("error", "SC-RANGE")


@pytest.mark.parametrize("seed", range(5))
def test_shuffled_named_examples_keep_their_answer(seed):
    case = _sna(np.zeros(4, F32), np.array([[1]], np.int16), np.ones(3, F32))
    _same_in_every_order(case, (seed,))


def test_a_mixed_key_counts_the_slices_it_holds():
    """setitem.cons.7: "key中slice的个数必须与value的维度数一致": a3[0, 1:3] holds one slice, v has two dims."""
    from contract.case import Case
    case = Case(op="setitem", inputs={"target": np.zeros((2, 4, 4), F32), "value": np.ones((2, 4), F32)},
                params={"key": {"tuple": [0, {"slice": [1, 3, None]}]}})
    exp = oracle.expect(case)
    assert (exp.kind, exp.clauses[0]) == ("unspecified", "SI-MIXED-N"), exp.summary()


def test_the_functional_api_tells_a_determined_value_from_one_reading_of_two():
    """An `either` answer (SC-DUP: two writes to one element) raises Either with the accepting reading's value;
    a determined value is returned; inside oracle.accepting() the accepting reading is returned."""
    z = np.zeros((2, 2), F32)
    dup = (z, 1, np.array([[0, 0]], np.int64), np.array([[1, 2]], F32))
    with pytest.raises(oracle.Either) as e:
        oracle.scatter(*dup)
    assert e.value.clause == "SC-DUP" and "out" in e.value.outputs
    with oracle.accepting():
        got = oracle.scatter(*dup)
    assert np.array_equal(got, e.value.outputs["out"].value)
    plain = oracle.scatter(z, 0, np.array([[1, 0]], np.int64), np.array([[1, 2]], F32))
    assert np.array_equal(plain, np.array([[0, 2], [1, 0]], F32))
    with pytest.raises(oracle.Either):
        oracle.clip(np.array([1, 3], np.int8), max=2)      # CL-DTYPE: int8 is not listed, the value is fixed


def test_set_errors_of_both_classes_hold_together():
    """A storage_offset that is no int (ST-E-TYPE's TypeError) with a source on another device (ST-E-DEVICE's
    RuntimeError): the Raises list orders nothing, so each class is admitted."""
    from contract.case import Case
    case = Case(op="set_", inputs={"target": np.zeros(2, F32), "source": np.arange(4, dtype=F32)},
                params={"source_kind": "tensor", "storage_offset": "1", "size": [2], "stride": [1],
                        "source_device": "other"})
    exp = oracle.expect(case)
    assert exp.kind == "error" and {"TypeError", "RuntimeError"} <= set(exp.error_classes), exp.summary()


class _Counting:
    """A stand-in for the shuffle's random source that records the size of every list of checks it is given."""

    def __init__(self):
        self.sizes = []

    def shuffle(self, checks):
        self.sizes.append(len(checks))


@pytest.mark.parametrize("op, inputs, params", [
    ("clip", {"x": np.arange(4, dtype=F32)}, {"min": {"kind": "int", "value": 1}, "max": {"kind": "int", "value": 2}}),
    ("setitem", {"target": np.zeros((2, 4), F32), "value": np.ones((1, 2), F32)},
     {"key": {"tuple": [{"slice": [0, 1, None]}, {"slice": [1, 3, None]}]}}),
    ("setitem", {"target": np.zeros((2, 4), np.int32)}, {"key": {"tuple": [1, 2]}, "value": 5}),
])
def test_clip_and_setitem_run_their_checks_as_independent_units(op, inputs, params):
    """The property test can only reorder checks an op hands to run_checks: clip and setitem hand over
    several at once (not one sequence of ifs)."""
    from contract.case import Case
    from oracle import errors
    counting, saved = _Counting(), errors._SHUFFLE
    errors._SHUFFLE = counting
    try:
        oracle.expect(Case(op=op, inputs=inputs, params=params))
    finally:
        errors._SHUFFLE = saved
    assert max(counting.sizes, default=0) >= 3, counting.sizes


def test_an_index_longer_than_self_off_dim_is_a_precondition_not_an_error():
    """scatter.sup.6: "除了在dim维度上,index.size(d) <= self.size(d)." names no consequence (the src sentence
    before it says "否则索引越界"): unsupported, any outcome but a crash, not a documented error."""
    from contract.case import Case
    case = Case(op="scatter", inputs={"input": np.zeros((2, 2), F32), "index": np.zeros((1, 3), np.int64),
                                      "src": np.ones((1, 3), F32)}, params={"dim": 0})
    exp = oracle.expect(case)
    assert (exp.kind, exp.clauses[0]) == ("unspecified", "SC-SIZE-SELF"), exp.summary()
