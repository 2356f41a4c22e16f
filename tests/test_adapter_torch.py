"""The torch adapter against real torch, what is particular to it: out-of-place scatter, negative indices passed
through, its errors and their repros, clip bounds, the scatter-form key, index_put_, set_'s storage views, bf16,
aliasing, torch.compile.  The documented examples, availability and identity: tests/test_adapter_contract.py."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED, RETURNED
from adapters.torch_adapter import from_torch, to_torch
from adapters.torch_adapter import TorchAdapter
from adapter_helpers import adapter_fixture, assert_bf16_round_trip, assert_same, BF16_BITS, example, exec_repro, run_ok, with_params
from contract.case import Case
from contract.dtypes import BFLOAT16

torch = pytest.importorskip("torch")

F32 = np.float32
adapter = adapter_fixture("torch")

# ---- scatter ---------------------------------------------------------------------------------


def test_scatter_doc_example_dim1_out_of_place_leaves_self(adapter):
    # the documented scatter_ (SC-EX-3) made as Tensor.scatter: the documented out, self untouched
    documented, outputs = example("SC-EX-3")
    case = with_params(documented, inplace=False)
    arrays = run_ok(adapter, case)
    assert_same(arrays["out"], outputs["out"], "out", adapter, case)
    assert_same(arrays["input"], case.inputs["input"], "input after scatter", adapter, case)


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


def test_clip_element_bound_is_a_0d_tensor_of_its_dtype(adapter):
    case = Case("clip", {"x": np.array([0.5, 2.5], F32)},
                {"min": {"kind": "element", "dtype": "float32", "value": 1.0}, "max": {"kind": "float", "value": 2.0}})
    assert_same(run_ok(adapter, case)["out"], np.array([1.0, 2.0], F32), "out", adapter, case)


# ---- setitem -------------------------------------------------------------------------------------

def _setitem(key, target, value=None, scalar=None):
    inputs = {"target": target} if value is None else {"target": target, "value": value}
    params = {"key": key} if scalar is None else {"key": key, "value": scalar}
    return Case("setitem", inputs, params)


def test_setitem_scatter_form_key_reaches_torch_with_a_tensor_stop(adapter):
    case = _setitem({"slice": [0, {"tensor": "indices"}, None]}, np.zeros((4, 4), F32), np.full((1, 4), 10, F32))
    case = Case("setitem", {**case.inputs, "indices": np.array([[0, 1, 2, 3]], np.int32)}, case.params)
    out = adapter.run(case)
    reproduced = exec_repro(adapter, case)
    assert out.kind == RAISED and type(reproduced).__name__ == out.exc_type, (out, reproduced)


# ---- scatter_nd_add through index_put_(accumulate=True) ------------------------------------------


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


# ---- set_ of no array, aliased inputs ------------------------------------------------------------


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
