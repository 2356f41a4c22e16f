"""The torch adapter against real torch: doc examples, in-place read-back, aliasing, bf16, errors."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED, RETURNED
from adapters.torch_adapter import from_torch, to_torch
from adapters.torch_adapter import TorchAdapter
from adapter_helpers import assert_bf16_round_trip, assert_doc_example, assert_same, assert_unavailable_when_missing, BF16_BITS, documented, exec_repro, run_ok
from contract.case import Case
from contract.dtypes import BFLOAT16

torch = pytest.importorskip("torch")

F32 = np.float32
# The src of the torch.Tensor.scatter_ document's session (SC-EX-1, SC-EX-3).
DOC_X = np.array([[0.9817, 0.9880, 0.8879, 0.3911, 0.8532],
                  [0.2367, 0.6074, 0.6374, 0.7830, 0.1322]], F32)


@pytest.fixture(scope="module")
def adapter():
    a = TorchAdapter()
    a.setup()
    return a








# ---- scatter: the document's session (SC-EX-1..3) ----------------------------------------------

def test_scatter_doc_example_dim0_inplace_reads_back_self(adapter):
    case = Case("scatter", {"input": np.zeros((3, 5), F32), "index": np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]]),
                            "src": DOC_X}, {"dim": 0, "inplace": True}, clauses=("SC-EX-1",))
    arrays = run_ok(adapter, case)
    x = DOC_X
    expected = np.array([[x[0, 0], x[1, 1], x[1, 2], x[0, 3], x[0, 4]],
                         [0, x[0, 1], 0, x[1, 3], 0],
                         [x[1, 0], 0, x[0, 2], 0, x[1, 4]]], F32)
    assert_same(arrays["out"], expected, "out", adapter, case)
    assert_same(arrays["input"], expected, "input after scatter_", adapter, case)


def test_scatter_doc_example_value_form(adapter):
    case = Case("scatter", {"input": np.zeros((2, 4), F32), "index": np.array([[2], [3]])},
                {"dim": 1, "value": 1.23, "inplace": True}, clauses=("SC-EX-2",))
    arrays = run_ok(adapter, case)
    expected = np.zeros((2, 4), F32)
    expected[0, 2] = expected[1, 3] = F32(1.23)
    assert_same(arrays["out"], expected, "out", adapter, case)


def test_scatter_doc_example_dim1_out_of_place_leaves_self(adapter):
    case = Case("scatter", {"input": np.zeros((3, 5), F32), "index": np.array([[0, 1, 2], [2, 0, 1]]),
                            "src": DOC_X}, {"dim": 1, "inplace": False}, clauses=("SC-EX-3",))
    arrays = run_ok(adapter, case)
    x = DOC_X
    expected = np.zeros((3, 5), F32)
    expected[0, :3] = x[0, :3]
    expected[1, :3] = [x[1, 1], x[1, 2], x[1, 0]]
    assert_same(arrays["out"], expected, "out", adapter, case)
    assert_same(arrays["input"], np.zeros((3, 5), F32), "input after scatter", adapter, case)


def test_scatter_negative_index_is_passed_through_not_normalised(adapter):
    # An adapter that wrapped -1 to the last position would hide torch's own answer.
    case = Case("scatter", {"input": np.zeros((2, 4), F32), "index": np.array([[-1], [3]])},
                {"dim": 1, "value": 1.0, "inplace": False})
    out = adapter.run(case)
    assert out.kind == RAISED and "index -1 is out of bounds" in out.message, (
        f"actual: {out.kind} {out.exc_type} {out.message[:200]}\nexpected: RuntimeError about index -1\n"
        f"call: {out.native_api}\nrepro:\n{adapter.repro(case)}")


def test_scatter_out_of_range_error_has_class_and_message_and_repro_reproduces(adapter):
    case = Case("scatter", {"input": np.zeros((2, 4), F32), "index": np.array([[5]]), "src": np.ones((1, 1), F32)},
                {"dim": 1, "inplace": True}, clauses=("SC-RANGE",))
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError"), (out.kind, out.exc_type, out.message)
    assert "index 5 is out of bounds" in out.message and out.native_api == "torch.Tensor.scatter_"
    reproduced = exec_repro(adapter, case)
    assert type(reproduced).__name__ == "RuntimeError" and str(reproduced) == out.message


# ---- clip ------------------------------------------------------------------------------------

def test_clip_doc_example_tensor_bounds(adapter):
    i32 = np.int32
    case = Case("clip", {"x": np.array([[-2, 1, 2], [3, 4, 5]], i32), "min": np.array([[-1, 0, 2], [0, 3, 5]], i32),
                         "max": np.array([[1, 2, 1], [4, 4, 4]], i32)},
                {"min": {"kind": "tensor"}, "max": {"kind": "tensor"}}, clauses=("CL-EX-1",))
    arrays = run_ok(adapter, case)
    assert_same(arrays["out"], np.array([[-1, 1, 1], [3, 4, 4]], i32), "out", adapter, case)
    assert_same(arrays["x"], case.inputs["x"], "x after clamp", adapter, case)


def test_clip_doc_example_scalar_bounds_and_repro_runs(adapter):
    case = Case("clip", {"x": np.array([[0, 2, 4], [3, 4, 6]], np.int32)},
                {"min": {"kind": "int", "value": 1}, "max": {"kind": "int", "value": 3}}, clauses=("CL-EX-2",))
    arrays = run_ok(adapter, case)
    assert_same(arrays["out"], np.array([[1, 2, 3], [3, 3, 3]], np.int32), "out", adapter, case)
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict), f"repro raised {ns!r}:\n{adapter.repro(case)}"
    assert ns["out"].tolist() == [[1, 2, 3], [3, 3, 3]]


def test_clip_element_bound_is_a_0d_tensor_of_its_dtype(adapter):
    case = Case("clip", {"x": np.array([0.5, 2.5], F32)},
                {"min": {"kind": "element", "dtype": "float32", "value": 1.0}, "max": {"kind": "float", "value": 2.0}})
    assert_same(run_ok(adapter, case)["out"], np.array([1.0, 2.0], F32), "out", adapter, case)


# ---- setitem: the pypto document's examples -------------------------------------------------------

def _setitem(key, target, value=None, scalar=None):
    inputs = {"target": target} if value is None else {"target": target, "value": value}
    params = {"key": key} if scalar is None else {"key": key, "value": scalar}
    return Case("setitem", inputs, params)


def test_setitem_mixed_and_negative_examples(adapter):
    b = np.full(2, 10, F32)
    mixed = _setitem({"tuple": [0, {"slice": [1, 3, None]}]}, np.zeros((4, 4), F32), b)
    neg = _setitem({"tuple": [-1, {"slice": [-3, -1, None]}]}, np.zeros((4, 4), F32), b)
    e_mixed, e_neg = np.zeros((4, 4), F32), np.zeros((4, 4), F32)
    e_mixed[0, 1:3] = 10
    e_neg[3, 1:3] = 10
    assert_same(run_ok(adapter, mixed)["target"], e_mixed, "target", adapter, mixed)
    assert_same(run_ok(adapter, neg)["target"], e_neg, "target", adapter, neg)


def test_setitem_single_int32_element(adapter):
    case = _setitem({"tuple": [2, 3]}, np.zeros((4, 4), np.int32), scalar=5)
    expected = np.zeros((4, 4), np.int32)
    expected[2, 3] = 5
    assert_same(run_ok(adapter, case)["target"], expected, "target", adapter, case)


def test_setitem_assemble_example_is_reported_as_torch_raises_it(adapter):
    # pypto's a[0:, 0:] = b writes a 2x2 b into a 4x4 a; torch broadcasts and refuses.
    case = _setitem({"tuple": [{"slice": [0, None, None]}, {"slice": [0, None, None]}]},
                    np.zeros((4, 4), F32), np.full((2, 2), 10, F32))
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError") and "must match" in out.message, out


def test_setitem_scatter_form_key_reaches_torch_with_a_tensor_stop(adapter):
    case = _setitem({"slice": [0, {"tensor": "indices"}, None]}, np.zeros((4, 4), F32), np.full((1, 4), 10, F32))
    case = Case("setitem", {**case.inputs, "indices": np.array([[0, 1, 2, 3]], np.int32)}, case.params)
    out = adapter.run(case)
    reproduced = exec_repro(adapter, case)
    assert out.kind == RAISED and type(reproduced).__name__ == out.exc_type, (out, reproduced)


# ---- scatter_nd_add through index_put_(accumulate=True) ------------------------------------------

@pytest.mark.parametrize("case,outputs", documented("scatter_nd_add"), ids=lambda v: getattr(v, "label", ""))
def test_scatter_nd_add_doc_examples(adapter, case, outputs):
    assert_doc_example(adapter, case, outputs, also_in_place=("x",))


def test_scatter_nd_add_duplicates_accumulate(adapter):
    case = Case("scatter_nd_add", {"x": np.zeros(3, np.int64), "indices": np.array([[1], [1], [1]]),
                                   "updates": np.array([1, 2, 4])}, {})
    assert_same(run_ok(adapter, case)["out"], np.array([0, 7, 0]), "out", adapter, case)


def test_scatter_nd_add_non_bool_use_locking_has_no_torch_mapping(adapter):
    case = Case("scatter_nd_add", {"x": np.zeros(3, F32), "indices": np.array([[1]]), "updates": np.ones(1, F32)},
                {"use_locking": 1})
    assert adapter.run(case).kind == NOT_APPLICABLE


# ---- set_: storage, views, aliasing ----------------------------------------------------------------

def test_set_storage_view_and_write_through_self_reaches_the_storage(adapter):
    case = Case("set_", {"target": np.zeros(2, F32), "source": np.array([1, 2, 3, 4], F32)},
                {"source_kind": "storage", "storage_offset": 1, "size": [2], "stride": [1], "probe": 9.0})
    arrays = run_ok(adapter, case)
    assert_same(arrays["self"], np.array([2, 3], F32), "self", adapter, case)
    assert_same(arrays["source_after_fill"], np.array([1, 9, 9, 4], F32), "storage after fill", adapter, case)


def test_set_tensor_source_view_shares_storage(adapter):
    case = Case("set_", {"target": np.zeros(1, F32), "source": np.arange(12, dtype=F32)},
                {"source_kind": "tensor", "source_view": {"offset": 1, "size": [3, 2], "stride": [4, 1]}, "probe": -1.0})
    arrays = run_ok(adapter, case)
    assert_same(arrays["self"], np.array([[1, 2], [5, 6], [9, 10]], F32), "self", adapter, case)
    assert_same(arrays["source_after_fill"], np.full((3, 2), -1, F32), "source after fill", adapter, case)


def test_set_doc_example_float64_target_float32_source(adapter):
    # ST-EX-1 prints [10, 20, 30]; torch refuses the dtype change (ST-E-DTYPE): reported as raised.
    case = Case("set_", {"target": np.zeros(3), "source": np.array([10, 20, 30], F32)},
                {"source_kind": "tensor", "probe": 7.0}, clauses=("ST-EX-1",))
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError"), out
    assert "Could not set tensor of type float to a tensor of type double" in out.message


def test_set_empty(adapter):
    case = Case("set_", {"target": np.ones((2, 2), F32)}, {"source_kind": "none"})
    assert_same(run_ok(adapter, case)["self"], np.zeros(0, F32), "self", adapter, case)


# ---- bf16 exactness ----------------------------------------------------------------------------

def test_bf16_round_trip_keeps_every_bit():
    assert_bf16_round_trip(to_torch, from_torch)


def test_bf16_setitem_moves_bits_through_torch(adapter):
    value = BF16_BITS.view(BFLOAT16)
    case = _setitem({"slice": [None, None, None]}, np.zeros(8, BFLOAT16), value)
    target = run_ok(adapter, case)["target"]
    assert target.view(np.uint16).tolist() == BF16_BITS.tolist(), target.view(np.uint16)


# ---- availability -----------------------------------------------------------------------------

def test_missing_package_is_reported_unavailable_with_the_reason():
    assert_unavailable_when_missing(TorchAdapter)


def test_available_and_version():
    assert TorchAdapter().available() == (True, "")
    assert TorchAdapter().version().startswith("2.13.0")


def test_set_negative_size_is_reported_as_returned_not_as_an_adapter_error(adapter):
    # torch accepts size [-2, 0] (ST-E-NEGSIZE expects RuntimeError); no array can hold the
    # result, so the adapter reports the call as returned, with why nothing was read back.
    case = Case("set_", {"target": np.zeros(1, np.int8), "source": np.arange(3, dtype=np.int8)},
                {"source_kind": "tensor", "storage_offset": 1, "size": [-2, 0], "stride": [1, 1], "probe": 7})
    out = adapter.run(case)
    assert out.kind == RETURNED and not out.arrays and "negative entry" in out.message, out


def test_an_aliased_input_is_a_real_view_sharing_the_base_storage(adapter):
    from adapter_helpers import shift_alias_case
    case = shift_alias_case()
    built = adapter.inputs(case)
    target, value = built["target"], built["value"]
    assert value._base is target, "the value must be a view of the target, not a copy"
    assert value.untyped_storage().data_ptr() == target.untyped_storage().data_ptr()
    target[0, 0] = 99.0
    assert value[0, 0].item() == 99.0, "a write to the target must show through the value"


# ---- torch.compile: the same rows, each call compiled (adapters.torch_adapter:TorchCompileAdapter) -------

def test_compiled_rows_stay_compiled_past_dynamos_recompile_limit():
    # Each case is a new graph of one function (adapters/execution.py).  Past dynamo's default limit (8) it
    # would run the call eagerly and the mode would answer as eager torch.  A bound above int32's range
    # tells the two apart: eager refuses it, the compiled clamp takes it (measured on torch 2.13.0).
    from adapters.torch_adapter import TorchCompileAdapter
    eager, compiled = TorchAdapter(), TorchCompileAdapter()
    eager.setup()
    compiled.setup()
    answers = []
    # Distinct dtypes and ranks: each case is a graph of its own (one shape and dtype would be one graph).
    for dt in (np.int32, np.int16, np.int8, np.uint8):
        for rank in (1, 2, 3):
            case = Case("clip", {"x": np.ones((2,) * rank, dt)}, {"max": {"kind": "int", "value": 2**31}})
            assert eager.run(case).kind == RAISED, eager.run(case)
            answers.append(compiled.run(case).kind)
    assert answers == [RETURNED] * 12, f"actual {answers}, expected 12 returned: a compiled call fell back to eager"
    text = compiled.repro(case)
    assert "torch.compile(dynamic=True)(call)(x)" in text, text


def test_each_compiled_case_compiles_from_a_fresh_start():
    # dynamo's in-process caches would hand a case the graph an earlier case of the worker compiled, and the
    # answer would depend on the cases run before (57 of 3271 answers moved between two runs without this):
    # the same case run three times traces three graphs
    import torch._dynamo.utils as dynamo_utils
    from adapters.torch_adapter import TorchCompileAdapter
    compiled = TorchCompileAdapter()
    compiled.setup()
    case = Case("clip", {"x": np.ones(3, np.float32)}, {"max": {"kind": "float", "value": 0.5}})
    before = dynamo_utils.counters["stats"]["unique_graphs"]
    for _ in range(3):
        assert compiled.run(case).kind == RETURNED
    assert dynamo_utils.counters["stats"]["unique_graphs"] - before == 3, dict(dynamo_utils.counters["stats"])
