"""The jax adapter against real jax (CPU, x64), what is particular to it (the documented examples, their repros,
availability and identity: tests/test_adapter_contract.py): the rebound names of the in-place contracts,
64-bit inputs kept, bf16, the known divergences and framework bugs, repro scripts, check-adapter.

jax runs in its own environment (.venv-jax, scripts/setup.sh); .ci/run runs this file there.  Elsewhere
(the main .venv has no jax) it is skipped with the reason."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED, RETURNED
from adapters.jax_adapter import JaxAdapter
from adapter_helpers import adapter_fixture, assert_same, example, exec_repro, run_ok, with_params
from contract.case import Case
from contract.dtypes import BFLOAT16

if not JaxAdapter().available()[0]:
    pytest.skip(f"jax adapter unavailable: {JaxAdapter().available()[1]} (.ci/run runs this file in .venv-jax)",
                allow_module_level=True)

F32 = np.float32
adapter = adapter_fixture("jax")
jit = adapter_fixture("jax-jit")


def doc_scatter_case(inplace):
    return with_params(example("SC-EX-1")[0], inplace=inplace)


def test_in_place_contracts_report_the_rebound_name_out_of_place_the_unchanged_original(adapter):
    inplace = run_ok(adapter, doc_scatter_case(True))
    assert_same(inplace["input"], inplace["out"], "input = input.at[...].set(...)", adapter, doc_scatter_case(True))
    out_of_place = run_ok(adapter, doc_scatter_case(False))
    assert_same(out_of_place["input"], np.zeros((3, 5), F32), "input after", adapter, doc_scatter_case(False))
    assert adapter.native_api("scatter", doc_scatter_case(True)).endswith("(input rebound)")
    sna = Case("scatter_nd_add", {"x": np.zeros(4, F32), "indices": np.array([[1], [1], [3]], np.int32),
                                  "updates": np.array([1, 2, 3], F32)}, {})
    got = run_ok(adapter, sna)
    assert_same(got["out"], np.array([0, 3, 0, 3], F32), "out (duplicates accumulate)", adapter, sna)
    assert_same(got["x"], got["out"], "x = x.at[...].add(updates)", adapter, sna)


def test_64_bit_inputs_stay_64_bit(adapter):
    big = np.array([2**62 + 1, -(2**62) - 1, 5], np.int64)
    case = Case("clip", {"x": big}, {"min": {"kind": "int", "value": -(2**62) - 1}, "max": {"kind": "int", "value": 2**62 + 1}})
    assert_same(run_ok(adapter, case)["out"], big, "out", adapter, case)
    f = np.array([1 + 2**-40, -3.0], np.float64)
    case = Case("setitem", {"target": np.zeros(2, np.float64), "value": f}, {"key": {"slice": [None, None, None]}})
    assert_same(run_ok(adapter, case)["target"], f, "target", adapter, case)


def test_bf16_moves_through_jax_bit_for_bit(adapter):
    bits = np.array([0x3F81, 0x7FC1, 0x8000, 0x0080], np.uint16)      # 1.0078125, a NaN payload, -0.0, min normal
    value = bits.view(BFLOAT16)
    case = Case("setitem", {"target": np.zeros(4, BFLOAT16), "value": value}, {"key": {"slice": [None, None, None]}})
    got = run_ok(adapter, case)["target"]
    assert got.dtype == BFLOAT16 and got.view(np.uint16).tolist() == bits.tolist(), got.view(np.uint16)


def test_set_has_no_row_and_a_non_bool_use_locking_has_no_call(adapter):
    set_case = Case("set_", {"target": np.zeros(2, F32)}, {})
    assert "set_" not in adapter.ops and adapter.run(set_case).kind == NOT_APPLICABLE
    base = {"x": np.zeros(2, F32), "indices": np.array([[0]], np.int32), "updates": np.array([1], F32)}
    assert adapter.run(Case("scatter_nd_add", base, {"use_locking": 1})).kind == NOT_APPLICABLE
    assert adapter.run(Case("scatter_nd_add", base, {"use_locking": True})).kind == RETURNED


def test_listed_divergence_out_of_bounds_scatter_index_is_dropped_not_an_error(adapter):
    # SC-RANGE: the documents raise; jax drops the update (its documented out-of-bounds rule)
    case = Case("scatter", {"input": np.zeros(3, F32), "index": np.array([5]), "src": np.array([7], F32)},
                {"dim": 0, "inplace": False})
    assert_same(run_ok(adapter, case)["out"], np.zeros(3, F32), "out", adapter, case)


def test_listed_divergence_subnormals_flush_to_zero(adapter):
    tiny = np.array([1.401298464324817e-45, 1.0], F32)     # the smallest float32 subnormal
    case = Case("clip", {"x": tiny}, {"min": {"kind": "int", "value": 0}})
    assert_same(run_ok(adapter, case)["out"], np.array([0.0, 1.0], F32), "out (flushed)", adapter, case)


def test_framework_bug_int64_set_of_a_python_float_rewrites_elements_it_does_not_address(adapter):
    # suites/expectations/jax.txt, "framework bug": the whole array goes through float64 and back
    x = np.array([-(2**63) + 1, 2**62 + 1, 0], np.int64)
    case = Case("scatter", {"input": x, "index": np.array([2])}, {"dim": 0, "value": -2.0, "inplace": False})
    out = run_ok(adapter, case)["out"]
    assert out[2] == -2
    assert out[:2].tolist() == [-(2**63), 2**62], (out, "fixed in jax? drop the line from jax.txt")


def _bf16_value_case():
    # 1 + 2**-8 + 2**-40: a hair above the bfloat16 tie 1 + 2**-8, so once rounded it is 1 + 2**-7 (1.0078125)
    return Case("scatter", {"input": np.zeros(2, BFLOAT16), "index": np.array([0])},
                {"dim": 0, "value": 1.0039062500009095, "inplace": False})


def test_framework_bug_bf16_python_float_value_rounds_twice(adapter):
    case = _bf16_value_case()
    out = run_ok(adapter, case)["out"]
    assert float(out[0]) == 1.0, (out, "fixed in jax? (1.0078125 is the value rounded once) drop the line")


def test_repro_runs_and_makes_the_call_in_jax_syntax(adapter):
    case, want = example("CL-EX-2")
    text = adapter.repro(case)
    assert "jnp.clip(x, 1, 3)" in text and 'jax_enable_x64", True' in text
    ns = exec_repro(adapter, case)
    assert isinstance(ns, dict) and np.asarray(ns["out"]).tolist() == want["out"].tolist(), text
    sc = adapter.repro(doc_scatter_case(True))
    assert "input.at[tuple(grid)].set(src[tuple(map(slice, index.shape))])" in sc and "input = out" in sc
    ns = exec_repro(adapter, doc_scatter_case(True))
    assert isinstance(ns, dict) and np.array_equal(np.asarray(ns["input"]), np.asarray(ns["out"])), sc


def test_check_adapter_reports_every_requirement_ok():
    from conform import check
    needs = check.check_adapter("jax", per_op=1)
    assert all(n.ok for n in needs), [n for n in needs if not n.ok]


# ---- jax-jit: the same rows, each call compiled with jax.jit ------------------------------------------

def test_jit_gives_the_doc_examples_and_its_repro_compiles_the_call(jit):
    case, want = example("CL-EX-2")
    assert_same(run_ok(jit, case)["out"], want["out"], "out", jit, case)
    text = jit.repro(case)
    assert "def call(x):" in text and "jax.jit(call)(x)" in text, text
    ns = exec_repro(jit, case)
    assert isinstance(ns, dict) and np.asarray(ns["out"]).tolist() == want["out"].tolist(), text
    sc = doc_scatter_case(True)
    ns = exec_repro(jit, sc)
    assert isinstance(ns, dict) and np.array_equal(np.asarray(ns["input"]), np.asarray(ns["out"])), jit.repro(sc)


def test_jit_really_compiles_a_traced_boolean_mask_is_refused(adapter, jit):
    # eager jax reads bool indices as a mask; under jax.jit a traced mask cannot be (jax-jit.txt's mode line)
    case = Case("scatter_nd_add", {"x": np.zeros((2, 1), np.int32), "indices": np.ones((1, 2), bool),
                                   "updates": np.ones(1, np.int32)}, {})
    eager, compiled = adapter.run(case), jit.run(case)
    assert compiled.kind == RAISED and compiled.exc_type == "NonConcreteBooleanIndexError", compiled
    assert eager.exc_type != compiled.exc_type, (eager, compiled)


def test_jit_framework_bug_float16_python_float_bound_rounds_twice(adapter, jit):
    # 1 + 2**-11 + 2**-40: above the float16 tie, so once rounded it is 1 + 2**-10; jit gives 1.0.  Eager
    # jnp.clip converts at run time, as XLA's own float64 -> float16 convert does on this machine: once on
    # some machines, twice (1.0) on others (jax.txt: seen on an AMD EPYC without AVX-512).
    import jax.numpy as jnp
    v = 1.0004882812509095
    case = Case("clip", {"x": np.array([1.0], np.float16)}, {"min": {"kind": "float", "value": v}})
    here = float(jnp.asarray(v, dtype=jnp.float64).astype(jnp.float16))
    assert here in (1.0009765625, 1.0), here
    assert float(run_ok(adapter, case)["out"][0]) == here
    assert float(run_ok(jit, case)["out"][0]) == 1.0, "fixed in jax.jit? drop the line from jax-jit.txt"


def test_jit_folds_a_python_float_bfloat16_value_once_under_the_pinned_ml_dtypes(jit):
    # Eager .at[].set rounds this value twice (above, jax.txt); jax.jit folds it into a constant with ml_dtypes'
    # own cast, which rounds once only from ml_dtypes 0.7 (0.6.0 gives 1.0: the main job's jax-jit failed on
    # 3 corpus cases, b7ea2e5db1c1a3dd among them, under it), so pyproject.toml's jax extra pins 0.7.0.
    import ml_dtypes
    case = _bf16_value_case()
    assert_same(run_ok(jit, case)["out"], np.array([1.0078125, 0.0], BFLOAT16),
                f"out (ml_dtypes {ml_dtypes.__version__}, pinned 0.7.0 in pyproject.toml's jax extra; jax-jit.txt's "
                f"mode line holds jax.jit to rounding once)", jit, case)


def test_a_corpus_sample_through_jax_and_jax_jit_is_gated_and_every_difference_listed(tmp_path):
    from conform import runner
    from suites.corpus import write_corpus
    from suites.session import CorpusSource
    cases = [c for i, c in enumerate(CorpusSource(None)) if i % 11 == 0]
    write_corpus(str(tmp_path / "sample.jsonl"), cases)
    result = runner.run(["jax", "jax-jit"], corpus=str(tmp_path / "sample.jsonl"), out_dir=str(tmp_path / "out"))
    unlisted = [(d.case_id, d.op, d.base_outcome, d.outcome) for d in result.modes if not d.listed]
    assert result.exit_code == 0 and not unlisted, (result.exit_code, result.message, unlisted[:5])
    import json
    recs = [json.loads(line) for line in open(result.results_path)]
    gated = [r for r in recs if r["record"] == "case" and r["adapter"] == "jax-jit"]
    assert gated and all(r["mode"]["twin"] == "jax" for r in gated)


def test_jit_check_adapter_reports_its_mode_and_every_requirement_ok():
    from conform import check
    needs = check.check_adapter("jax-jit", per_op=1)
    assert all(n.ok for n in needs), [n for n in needs if not n.ok]
    assert any("held to jax's answer" in n.found for n in needs if n.what.startswith("mode")), needs
