"""The paddle adapters against real paddlepaddle (CPU), what is particular to them (the documented examples,
availability and identity: tests/test_adapter_contract.py): put_along_axis's two broadcast modes, set_'s byte
offset, out-of-place scatter_nd_add, known divergences, bf16, repros of passing examples.  CI runs it under
.venv-paddle (.ci/run)."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED
from adapters.paddle_adapter import PaddleAdapter, from_paddle, to_paddle
from adapter_helpers import (adapter_fixture, assert_bf16_round_trip, assert_same, BF16_BITS, documented, example, exec_repro,
                             run_ok, with_params)
from contract.case import Case
from contract.dtypes import BFLOAT16

if not PaddleAdapter().available()[0]:
    pytest.skip(f"paddle adapter unavailable: {PaddleAdapter().available()[1]}", allow_module_level=True)

F32 = np.float32
adapter = adapter_fixture("paddle")
variant = adapter_fixture("paddle-variants")


# ---- scatter: put_along_axis, default broadcast=True and paddle-variants' broadcast=False ---------------

@pytest.mark.parametrize("case,outputs", documented("scatter"), ids=lambda v: getattr(v, "label", ""))
def test_scatter_doc_example_repros_run_with_broadcast_false(variant, case, outputs):
    ns = exec_repro(variant, case)
    assert isinstance(ns, dict), f"the repro raised {ns!r}:\n{variant.repro(case)}"


def test_scatter_default_broadcast_refuses_a_narrower_index_a_listed_divergence(adapter):
    # SC-EX-3: index [2, 3] into input [3, 5] along dim 1; broadcast=True cannot expand index to input's shape
    case = example("SC-EX-3")[0]
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "ValueError") and "non-singleton dimension" in out.message, out
    assert out.native_api == "paddle.Tensor.put_along_axis_"
    assert type(exec_repro(adapter, case)).__name__ == "ValueError", adapter.repro(case)


def test_scatter_inplace_updates_input_and_out_of_place_leaves_it(adapter):
    for inplace in (False, True):
        case = with_params(example("SC-EX-1")[0], inplace=inplace)
        arrays = run_ok(adapter, case)
        assert_same(arrays["input"], arrays["out"] if inplace else case.inputs["input"], "input after", adapter, case)


# ---- clip ---------------------------------------------------------------------------------------

def test_clip_scalar_doc_example_repro_makes_the_documented_out(adapter):
    case, want = example("CL-EX-2")
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict) and ns["out"].numpy().tolist() == want["out"].tolist(), adapter.repro(case)


def test_clip_integer_bound_tensor_is_read_as_its_first_element_a_framework_bug(adapter):
    case, want = example("CL-EX-1")
    x, lo, hi = (case.inputs[k] for k in ("x", "min", "max"))
    got = run_ok(adapter, case)["out"]
    assert got.tolist() == np.clip(x, lo.flat[0], hi.flat[0]).tolist() != want["out"].tolist(), got.tolist()


def test_clip_omitted_bound_clips_inf_to_the_finite_extreme_a_framework_bug(adapter):
    case = Case("clip", {"x": np.array([-np.inf, np.inf], F32)}, {"min": {"kind": "float", "value": -1.0}})
    got = run_ok(adapter, case)["out"]
    assert got.tolist() == [-1.0, float(np.finfo(F32).max)], got.tolist()     # the doc: [-1, inf]


# ---- scatter_nd_add: out of place ---------------------------------------------------------------

@pytest.mark.parametrize("case,outputs", documented("scatter_nd_add"), ids=lambda v: getattr(v, "label", ""))
def test_scatter_nd_add_doc_examples_out_and_x_unchanged(adapter, case, outputs):
    got = run_ok(adapter, case)
    assert_same(got["out"], outputs["out"], "out", adapter, case)
    assert_same(got["x"], case.inputs["x"], "x after (out of place)", adapter, case)


def test_scatter_nd_add_non_bool_use_locking_is_not_applicable(adapter):
    case = Case("scatter_nd_add", {"x": np.zeros(2, F32), "indices": np.array([[0]]), "updates": np.ones(1, F32)},
                {"use_locking": 1})
    assert adapter.run(case).kind == NOT_APPLICABLE


# ---- setitem --------------------------------------------------------------------------------------

def test_setitem_doc_example_repro_makes_the_documented_target(adapter):
    mixed, want = example("SI-EX-3")
    ns = exec_repro(adapter, mixed)
    assert isinstance(ns, dict) and ns["target"].numpy().tolist() == want["target"].tolist(), adapter.repro(mixed)


def test_setitem_int32_max_goes_through_float32_a_framework_bug(adapter):
    case = Case("setitem", {"target": np.zeros(2, np.int32)}, {"key": 0, "value": 2147483647})
    assert run_ok(adapter, case)["target"].tolist() == [-2147483648, 0]


# ---- set_: the offset is in bytes -----------------------------------------------------------------

def test_set_storage_offset_counts_elements_through_paddles_byte_offset(adapter):
    case = Case("set_", {"target": np.zeros(3, F32), "source": np.array([10, 20, 30, 40], F32)},
                {"source_kind": "storage", "storage_offset": 1, "size": [3], "stride": [1]})
    assert_same(run_ok(adapter, case)["self"], np.array([20, 30, 40], F32), "self", adapter, case)
    assert "offset=1 * source.element_size()" in adapter.repro(case)
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict) and ns["self_"].tolist() == [20, 30, 40], adapter.repro(case)


def test_reading_a_non_contiguous_self_back_leaves_it_on_the_storage(adapter):
    # Tensor.contiguous() would re-point a non-contiguous self at a copy; the probe must still reach the storage
    case = Case("set_", {"target": np.zeros(2, F32), "source": np.array([0, 1, 2, 3], F32)},
                {"source_kind": "storage", "storage_offset": 1, "size": [1, 1, 1, 1, 1, 1, 1, 2],
                 "stride": [1, 1, 1, 1, 1, 1, 1, 1], "probe": 7.0})
    arrays = run_ok(adapter, case)
    assert arrays["self"].ravel().tolist() == [1, 2]
    assert arrays["source_after_fill"].tolist() == [0, 7, 7, 3], arrays["source_after_fill"]


def test_paddle_offset_unit_is_bytes(adapter):
    import paddle
    src = paddle.to_tensor(np.array([10, 20, 30, 40], F32))
    t = paddle.zeros([2], "float32")
    t.set_(src, [2], [1], 4)            # 4 bytes = one float32
    assert t.numpy().tolist() == [20, 30]


def test_set_tensor_source_aliases(adapter):
    case = Case("set_", {"target": np.zeros(3, F32), "source": np.array([10, 20, 30], F32)},
                {"source_kind": "tensor", "probe": 7.0})
    arrays = run_ok(adapter, case)
    assert_same(arrays["self"], np.array([10, 20, 30], F32), "self", adapter, case)
    assert_same(arrays["source_after_fill"], np.full(3, 7, F32), "source after write", adapter, case)


# ---- bf16, availability ---------------------------------------------------------------------------

def test_bf16_round_trip_keeps_every_bit(adapter):
    assert_bf16_round_trip(to_paddle, from_paddle)


def test_bf16_set_shares_bits(adapter):
    case = Case("set_", {"target": np.zeros(8, BFLOAT16), "source": BF16_BITS.view(BFLOAT16)}, {"source_kind": "tensor"})
    got = run_ok(adapter, case)["self"]
    assert got.dtype == BFLOAT16 and got.view(np.uint16).tolist() == BF16_BITS.tolist(), got.view(np.uint16)


def test_the_variants_row_is_scatter_alone_and_the_main_row_has_set_(adapter, variant):
    # paddle-variants exists for put_along_axis's broadcast=False alone
    assert variant.ops == ("scatter",) and "set_" in adapter.ops
