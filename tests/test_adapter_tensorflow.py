"""The tensorflow adapter against real tensorflow-cpu, what is particular to it (the documented examples,
availability and identity: tests/test_adapter_contract.py): the torch-style scatter grid, out-of-place
read-back, known divergences, bf16, repros of passing examples, tf.function.  CI runs it under .venv-tensorflow (.ci/run)."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED
from adapters.tensorflow_adapter import TensorflowAdapter, from_tf, to_tf
from adapter_helpers import (adapter_fixture, assert_bf16_round_trip, assert_same, BF16_BITS, documented, example, exec_repro,
                             run_ok, with_params)
from contract.case import Case
from contract.dtypes import BFLOAT16

if not TensorflowAdapter().available()[0]:
    pytest.skip(f"tensorflow adapter unavailable: {TensorflowAdapter().available()[1]}", allow_module_level=True)

F32 = np.float32
adapter = adapter_fixture("tensorflow")
compiled = adapter_fixture("tensorflow-function")


# ---- scatter: the torch document's examples through tensor_scatter_nd_update over the grid --------------

@pytest.mark.parametrize("case,outputs", documented("scatter"), ids=lambda v: getattr(v, "label", ""))
def test_scatter_doc_example_repros_make_the_documented_out(adapter, case, outputs):
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict), f"the repro raised {ns!r}:\n{adapter.repro(case)}"
    assert_same(from_tf(ns["out"]), next(iter(outputs.values())), "repro out", adapter, case)


def test_scatter_out_of_place_leaves_input_and_inplace_updates_the_variable(adapter):
    for inplace in (False, True):
        case = with_params(example("SC-EX-1")[0], inplace=inplace)
        arrays = run_ok(adapter, case)
        expected_input = arrays["out"] if inplace else case.inputs["input"]
        assert_same(arrays["input"], expected_input, "input after", adapter, case)
        assert adapter.native_api("scatter", case).startswith(
            "tf.Variable.scatter_nd_update" if inplace else "tf.tensor_scatter_nd_update")


def test_scatter_index_out_of_range_is_tensorflows_error(adapter):
    case = Case("scatter", {"input": np.zeros((2, 3), F32), "index": np.array([[5]]), "src": np.ones((1, 1), F32)},
                {"dim": 0})
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "InvalidArgumentError"), out
    assert type(exec_repro(adapter, case)).__name__ == "InvalidArgumentError", adapter.repro(case)


# ---- clip ---------------------------------------------------------------------------------------

def test_clip_scalar_doc_example_repro_makes_the_documented_out(adapter):
    case, want = example("CL-EX-2")
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict) and ns["out"].numpy().tolist() == want["out"].tolist(), adapter.repro(case)


def test_clip_min_above_max_returns_min_a_listed_divergence(adapter):
    # CL-EX-1: where min > max the documents return max; tf.clip_by_value returns min (its stated precondition)
    case, want = example("CL-EX-1")
    x, lo, hi = (case.inputs[k] for k in ("x", "min", "max"))
    got = run_ok(adapter, case)["out"]
    assert got.tolist() == np.where(lo > hi, lo, np.clip(x, lo, hi)).tolist() != want["out"].tolist(), got


def test_clip_one_bound_is_not_applicable_and_declared(adapter):
    case = Case("clip", {"x": np.zeros(3, F32)}, {"max": {"kind": "float", "value": 1.0}})
    out = adapter.run(case)
    assert out.kind == NOT_APPLICABLE and "both bounds" in out.message
    assert any(e.startswith("clip/not-applicable/") for e in adapter.excludes)


def test_clip_element_bound_is_a_0d_tensor_of_its_dtype(adapter):
    case = Case("clip", {"x": np.array([0.5, 2.5], F32)},
                {"min": {"kind": "element", "value": 1, "dtype": "float32"},
                 "max": {"kind": "element", "value": 2, "dtype": "float32"}})
    assert_same(run_ok(adapter, case)["out"], np.array([1, 2], F32), "out", adapter, case)
    assert "tf.constant(1, dtype=tf.float32)" in adapter.repro(case)


def test_subnormal_is_flushed_a_listed_framework_bug(adapter):
    tiny = np.array([1e-45], F32)           # a float32 subnormal; [-1, 1] keeps it
    case = Case("clip", {"x": tiny}, {"min": {"kind": "float", "value": -1.0}, "max": {"kind": "float", "value": 1.0}})
    assert run_ok(adapter, case)["out"].tolist() == [0.0]


# ---- scatter_nd_add: out of place ---------------------------------------------------------------

@pytest.mark.parametrize("case,outputs", documented("scatter_nd_add"), ids=lambda v: getattr(v, "label", ""))
def test_scatter_nd_add_doc_examples_out_and_x_unchanged(adapter, case, outputs):
    got = run_ok(adapter, case)
    assert_same(got["out"], outputs["out"], "out", adapter, case)
    assert_same(got["x"], case.inputs["x"], "x after (a tf.Tensor is immutable)", adapter, case)


def test_scatter_nd_add_crash_on_a_short_updates_rank_is_a_framework_bug():
    from adapters.base import CRASHED
    from adapters.pool import WorkerHandle
    case = Case("scatter_nd_add", {"x": np.array([5, 5], np.int64), "indices": np.zeros((4, 4, 1), np.int32),
                                   "updates": np.array([-2, 0, 1, -1], np.int64)}, {})
    h = WorkerHandle("tensorflow", case_timeout=120)
    try:
        out = h.run(case)
    finally:
        h.close()
    assert out.kind == CRASHED, f"actual: {out.kind} {out.message[:200]}; expected: crashed (SIGABRT in TF)"


# ---- setitem on a tf.Variable ---------------------------------------------------------------------

def test_setitem_doc_example_repro_writes_the_variable(adapter):
    single, want = example("SI-EX-6")
    ns = exec_repro(adapter, single)
    assert isinstance(ns, dict) and from_tf(ns["target"]).tolist() == want["target"].tolist(), \
        adapter.repro(single)


def test_setitem_tensor_key_is_tensorflows_own_error(adapter):
    case = Case("setitem", {"target": np.zeros(4, F32), "idx": np.array([0, 2]), "value": np.ones(2, F32)},
                {"key": {"tensor": "idx"}})
    out = adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "TypeError") and "valid indices" in out.message, out
    assert type(exec_repro(adapter, case)).__name__ == "TypeError", adapter.repro(case)


# ---- bf16, availability ---------------------------------------------------------------------------

def test_bf16_round_trip_keeps_every_bit(adapter):
    assert_bf16_round_trip(to_tf, from_tf)


def test_bf16_setitem_moves_bits(adapter):
    case = Case("setitem", {"target": np.zeros(8, BFLOAT16), "value": BF16_BITS.view(BFLOAT16)},
                {"key": {"slice": [None, None, None]}})
    got = run_ok(adapter, case)["target"]
    assert got.dtype == BFLOAT16 and got.view(np.uint16).tolist() == BF16_BITS.tolist(), got.view(np.uint16)


def test_set_has_no_row(adapter):
    assert "set_" not in adapter.ops and adapter.run(Case("set_", {"target": np.zeros(1, F32)}, {})).kind == \
        NOT_APPLICABLE


# ---- tensorflow-function: the same rows, each call compiled by tf.function(jit_compile=True) -------------

def test_function_gives_the_doc_examples_and_its_repro_compiles_the_call(compiled):
    case, want = example("CL-EX-2")
    text = compiled.repro(case)
    assert "tf.function(jit_compile=True)(call)(x)" in text, text
    ns = exec_repro(compiled, case)
    assert isinstance(ns, dict) and np.asarray(ns["out"]).tolist() == want["out"].tolist(), text
    for inplace in (False, True):       # a Variable (scatter_) is made before the function, as tf.function needs
        sc = with_params(next(c for c, _ in documented("scatter")), inplace=inplace)
        got = run_ok(compiled, sc)["out"]
        ns = exec_repro(compiled, sc)
        assert isinstance(ns, dict) and np.asarray(ns["out"]).tolist() == got.tolist(), compiled.repro(sc)
    st = example("SI-EX-1")[0]
    ns = exec_repro(compiled, st)
    assert isinstance(ns, dict) and np.asarray(ns["target"]).tolist() == run_ok(compiled, st)["target"].tolist(), \
        compiled.repro(st)


def test_compiled_scatter_drops_an_out_of_range_index_that_eager_refuses(adapter, compiled):
    # the mode-consistency gate's finding: XLA's scatter skips out-of-bounds updates
    case = Case("scatter", {"input": np.zeros((2, 3), F32), "index": np.array([[5]]), "src": np.ones((1, 1), F32)},
                {"dim": 0})
    assert (adapter.run(case).kind, adapter.run(case).exc_type) == (RAISED, "InvalidArgumentError")
    assert_same(run_ok(compiled, case)["out"], np.zeros((2, 3), F32), "out (update dropped)", compiled, case)


def test_compiled_framework_bug_half_clip_drops_a_nan_bound(adapter, compiled):
    case = Case("clip", {"x": np.array([0.0, 0.5], np.float16)},
                {"min": {"kind": "float", "value": -2.0}, "max": {"kind": "float", "value": float("nan")}})
    assert np.isnan(run_ok(adapter, case)["out"]).all()
    out = run_ok(compiled, case)["out"]
    assert not np.isnan(out).any(), (out, "fixed in XLA? drop the CL-NAN-BOUND lines of tensorflow-function.txt")


def test_a_corpus_sample_through_tensorflow_and_its_function_mode_is_gated_and_every_difference_listed(tmp_path):
    import json
    from conform import runner
    from suites.corpus import write_corpus
    from suites.session import CorpusSource
    cases = [c for i, c in enumerate(CorpusSource(None)) if i % 11 == 0]
    write_corpus(str(tmp_path / "sample.jsonl"), cases)
    result = runner.run(["tensorflow", "tensorflow-function"], corpus=str(tmp_path / "sample.jsonl"),
                        out_dir=str(tmp_path / "out"))
    unlisted = [(d.case_id, d.op, d.base_outcome, d.outcome) for d in result.modes if not d.listed]
    assert result.exit_code == 0 and not unlisted, (result.exit_code, result.message, unlisted[:5])
    recs = [json.loads(line) for line in open(result.results_path)]
    gated = [r for r in recs if r["record"] == "case" and r["adapter"] == "tensorflow-function"]
    assert gated and all(r["mode"]["twin"] == "tensorflow" for r in gated)
    assert any(not r["mode"]["agrees"] for r in gated), "the sample holds no listed mode difference: sample more"


def test_function_check_adapter_reports_its_mode_and_every_requirement_ok():
    from conform import check
    needs = check.check_adapter("tensorflow-function", per_op=1)
    assert all(n.ok for n in needs), [n for n in needs if not n.ok]
    assert any("held to tensorflow's answer" in n.found for n in needs if n.what.startswith("mode")), needs
