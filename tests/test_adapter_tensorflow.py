"""The tensorflow adapter against real tensorflow-cpu: doc examples, the torch-style scatter grid, out-of-place
read-back, known divergences, bf16, repros, availability.  CI runs it under .venv-tensorflow (.ci/run)."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED
from adapters.tensorflow_adapter import TensorflowAdapter, from_tf, to_tf
from adapter_helpers import assert_bf16_round_trip, assert_doc_example, assert_same, assert_unavailable_when_missing, BF16_BITS, documented, exec_repro, run_ok
from contract.case import Case
from contract.dtypes import BFLOAT16

if not TensorflowAdapter().available()[0]:
    pytest.skip(f"tensorflow adapter unavailable: {TensorflowAdapter().available()[1]}", allow_module_level=True)

F32 = np.float32
DOC_X = np.array([[0.9817, 0.9880, 0.8879, 0.3911, 0.8532],
                  [0.2367, 0.6074, 0.6374, 0.7830, 0.1322]], F32)


@pytest.fixture(scope="module")
def adapter():
    a = TensorflowAdapter()
    a.setup()
    return a


# ---- scatter: the torch document's examples through tensor_scatter_nd_update over the grid --------------

@pytest.mark.parametrize("case,outputs", documented("scatter"), ids=lambda v: getattr(v, "label", ""))
def test_scatter_doc_examples(adapter, case, outputs):
    assert_doc_example(adapter, case, outputs)
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict), f"the repro raised {ns!r}:\n{adapter.repro(case)}"
    assert_same(from_tf(ns["out"]), next(iter(outputs.values())), "repro out", adapter, case)


def test_scatter_out_of_place_leaves_input_and_inplace_updates_the_variable(adapter):
    index = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    for inplace in (False, True):
        case = Case("scatter", {"input": np.zeros((3, 5), F32), "index": index, "src": DOC_X},
                    {"dim": 0, "inplace": inplace})
        arrays = run_ok(adapter, case)
        expected_input = arrays["out"] if inplace else np.zeros((3, 5), F32)
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

def test_clip_scalar_doc_example_and_repro(adapter):
    case = Case("clip", {"x": np.array([[0, 2, 4], [3, 4, 6]], np.int32)},
                {"min": {"kind": "int", "value": 1}, "max": {"kind": "int", "value": 3}}, clauses=("CL-EX-2",))
    assert_same(run_ok(adapter, case)["out"], np.array([[1, 2, 3], [3, 3, 3]], np.int32), "out", adapter, case)
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict) and ns["out"].numpy().tolist() == [[1, 2, 3], [3, 3, 3]], adapter.repro(case)


def test_clip_min_above_max_returns_min_a_listed_divergence(adapter):
    # CL-EX-1: where min > max the documents return max; tf.clip_by_value returns min (its stated precondition)
    i32 = np.int32
    case = Case("clip", {"x": np.array([[-2, 1, 2], [3, 4, 5]], i32), "min": np.array([[-1, 0, 2], [0, 3, 5]], i32),
                         "max": np.array([[1, 2, 1], [4, 4, 4]], i32)},
                {"min": {"kind": "tensor"}, "max": {"kind": "tensor"}}, clauses=("CL-EX-1",))
    got = run_ok(adapter, case)["out"]
    assert got.tolist() == [[-1, 1, 2], [3, 4, 5]], got.tolist()     # the documents: [[-1, 1, 1], [3, 4, 4]]


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

def test_setitem_doc_examples_that_tensorflow_accepts(adapter):
    mixed = Case("setitem", {"target": np.zeros((4, 4), F32), "value": np.full(2, 10, F32)},
                 {"key": {"tuple": [0, {"slice": [1, 3, None]}]}})
    single = Case("setitem", {"target": np.zeros((4, 4), np.int32)}, {"key": {"tuple": [2, 3]}, "value": 5})
    e_mixed, e_single = np.zeros((4, 4), F32), np.zeros((4, 4), np.int32)
    e_mixed[0, 1:3] = 10
    e_single[2, 3] = 5
    assert_same(run_ok(adapter, mixed)["target"], e_mixed, "target", adapter, mixed)
    assert_same(run_ok(adapter, single)["target"], e_single, "target", adapter, single)
    ns = exec_repro(adapter, single)
    assert isinstance(ns, dict) and from_tf(ns["target"]).tolist() == e_single.tolist(), adapter.repro(single)


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


def test_missing_package_is_reported_unavailable_with_the_reason():
    assert_unavailable_when_missing(TensorflowAdapter)


def test_available_version_and_ops():
    a = TensorflowAdapter()
    assert a.available() == (True, "") and a.version() == "2.21.0"
    assert a.ops == ("setitem", "clip", "scatter", "scatter_nd_add") and a.run(
        Case("set_", {"target": np.zeros(1, F32)}, {})).kind == NOT_APPLICABLE


# ---- tensorflow-function: the same rows, each call compiled by tf.function(jit_compile=True) -------------

@pytest.fixture(scope="module")
def compiled():
    from adapters.tensorflow_adapter import TensorflowFunctionAdapter
    a = TensorflowFunctionAdapter()
    a.setup()
    return a


def test_function_gives_the_doc_examples_and_its_repro_compiles_the_call(compiled):
    case = Case("clip", {"x": np.array([[0, 2, 4], [3, 4, 6]], np.int32)},
                {"min": {"kind": "int", "value": 1}, "max": {"kind": "int", "value": 3}}, clauses=("CL-EX-2",))
    assert_same(run_ok(compiled, case)["out"], np.array([[1, 2, 3], [3, 3, 3]], np.int32), "out", compiled, case)
    text = compiled.repro(case)
    assert "tf.function(jit_compile=True)(call)(x)" in text, text
    ns = exec_repro(compiled, case)
    assert isinstance(ns, dict) and np.asarray(ns["out"]).tolist() == [[1, 2, 3], [3, 3, 3]], text
    for inplace in (False, True):       # a Variable (scatter_) is made before the function, as tf.function needs
        sc = next(c for c, _ in documented("scatter"))
        sc = Case(sc.op, sc.inputs, {**sc.params, "inplace": inplace}, clauses=sc.clauses)
        got = run_ok(compiled, sc)["out"]
        ns = exec_repro(compiled, sc)
        assert isinstance(ns, dict) and np.asarray(ns["out"]).tolist() == got.tolist(), compiled.repro(sc)
    st = next(c for c, _ in documented("setitem") if "SI-EX-1" in c.clauses)
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
