"""The mindspore adapters against real mindspore (CPU), what is particular to them (the documented examples,
availability and identity: tests/test_adapter_contract.py): in-place read-back, out-of-place scatter, aliasing
for set_, bf16, errors with their [ERROR] reason, worker stderr, layouts, graph mode."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.base import NOT_APPLICABLE, RAISED, RETURNED
from adapters.mindspore_adapter import MindsporeAdapter
from adapter_helpers import (adapter_fixture, assert_bf16_round_trip, assert_same, BF16_BITS, documented, example, exec_repro,
                             run_ok, with_params)
from contract.case import Case
from contract.dtypes import BFLOAT16

F32 = np.float32

if not MindsporeAdapter().available()[0]:
    pytest.skip(f"mindspore adapter unavailable: {MindsporeAdapter().available()[1]}", allow_module_level=True)


ms_adapter = adapter_fixture("mindspore")
variant = adapter_fixture("mindspore-variants")
graph = adapter_fixture("mindspore-graph")


def doc_scatter_case(inplace):
    return with_params(example("SC-EX-1")[0], inplace=inplace)


def scatter_doc_expected():
    return example("SC-EX-1")[1]["out"]


# ---- scatter --------------------------------------------------------------------------------------

def test_scatter_doc_example_out_of_place_leaves_input(ms_adapter):
    case = doc_scatter_case(False)
    arrays = run_ok(ms_adapter, case)
    assert_same(arrays["out"], scatter_doc_expected(), "out", ms_adapter, case)
    assert_same(arrays["input"], np.zeros((3, 5), F32), "input after", ms_adapter, case)
    assert ms_adapter.native_api("scatter", case) == "mindspore.ops.tensor_scatter_elements"


def test_scatter_inplace_goes_to_tensor_scatter_and_reports_what_mindspore_does(ms_adapter):
    import mindspore as ms
    case = doc_scatter_case(True)
    out = ms_adapter.run(case)
    assert out.native_api == "mindspore.Tensor.scatter_"
    self_ = ms.Tensor(np.zeros((3, 5), F32))
    try:                                   # the same call by hand: the adapter must agree with it
        self_.scatter_(0, ms.Tensor(case.inputs["index"]), ms.Tensor(case.inputs["src"]))
        direct = (RETURNED, "", self_.asnumpy())
    except Exception as e:
        direct = (RAISED, type(e).__name__, str(e))
    assert (out.kind, out.exc_type) == direct[:2], (out, direct)
    if out.kind == RETURNED:
        assert_same(out.arrays["input"], direct[2], "input after scatter_", ms_adapter, case)
    else:   # the adapter drops mindspore's "-----" rules and leading section headings only
        assert out.message.splitlines()[0] in direct[2].splitlines() and out.message.splitlines()[-1:] == [
            ln for ln in direct[2].splitlines() if ln.strip().strip("-")][-1:]


def test_variant_ops_scatter_doc_example_and_value_form(variant):
    case = doc_scatter_case(False)
    assert_same(run_ok(variant, case)["out"], scatter_doc_expected(), "out", variant, case)
    value, want = example("SC-EX-2")
    value = with_params(value, inplace=False)
    assert_same(run_ok(variant, value)["out"], want["out"], "out", variant, value)
    assert variant.run(doc_scatter_case(True)).kind == NOT_APPLICABLE


def test_main_adapter_has_no_out_of_place_value_form(ms_adapter):
    case = Case("scatter", {"input": np.zeros((2, 4), F32), "index": np.array([[2], [3]])},
                {"dim": 1, "value": 1.23, "inplace": False})
    out = ms_adapter.run(case)
    assert out.kind == NOT_APPLICABLE and "ops.scatter" in out.message


# ---- clip --------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["ms_adapter", "variant"])
def test_clip_doc_example_repro_makes_the_documented_out(which, request):
    adapter = request.getfixturevalue(which)
    c2, want = example("CL-EX-2")
    ns = exec_repro(adapter, c2)
    assert isinstance(ns, dict) and ns["out"].asnumpy().tolist() == want["out"].tolist(), adapter.repro(c2)


# ---- scatter_nd_add ----------------------------------------------------------------------------


def test_kernel_error_carries_class_message_and_stderr_reason(ms_adapter):
    case = Case("scatter_nd_add", {"x": np.zeros(8, F32), "indices": np.array([[40]], np.int32),
                                   "updates": np.ones(1, F32)}, {"use_locking": False})
    out = ms_adapter.run(case)
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError"), out
    assert "Launch kernel failed" in out.message
    assert "[ERROR]" in out.stderr and "out of range" in out.stderr, f"stderr: {out.stderr!r}"
    # synchronous launches: the next case is not blamed for this one's failure
    ok = Case("scatter_nd_add", {"x": np.zeros(8, F32), "indices": np.array([[4]], np.int32),
                                 "updates": np.ones(1, F32)}, {"use_locking": False})
    assert run_ok(ms_adapter, ok)["out"].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]


# ---- setitem -----------------------------------------------------------------------------------


def test_setitem_ellipsis_example_error_is_reported_and_reproduced(ms_adapter):
    case = Case("setitem", {"target": np.zeros((4, 4), F32), "value": np.full((2, 2), 10, F32)},
                {"key": {"tuple": ["...", {"slice": [2, 4, None]}]}})
    out = ms_adapter.run(case)
    reproduced = exec_repro(ms_adapter, case)
    assert out.kind == RAISED and type(reproduced).__name__ == out.exc_type, (out, reproduced)


# ---- set_ --------------------------------------------------------------------------------------

def test_set_storage_view_and_write_through_self_reaches_the_storage(ms_adapter):
    case = Case("set_", {"target": np.zeros(3, F32), "source": np.array([10, 20, 30, 40], F32)},
                {"source_kind": "storage", "storage_offset": 1, "size": [3], "stride": [1], "probe": 7.0})
    arrays = run_ok(ms_adapter, case)
    assert_same(arrays["self"], np.array([20, 30, 40], F32), "self", ms_adapter, case)
    assert_same(arrays["source_after_fill"], np.array([10, 7, 7, 7], F32), "storage after write", ms_adapter, case)


def test_set_tensor_source_aliases(ms_adapter):
    case = Case("set_", {"target": np.zeros(3, F32), "source": np.array([10, 20, 30], F32)},
                {"source_kind": "tensor", "probe": 7.0})
    arrays = run_ok(ms_adapter, case)
    assert_same(arrays["self"], np.array([10, 20, 30], F32), "self", ms_adapter, case)
    assert_same(arrays["source_after_fill"], np.full(3, 7, F32), "source after write", ms_adapter, case)


def test_set_doc_example_dtype_change_is_reported(ms_adapter):
    out = ms_adapter.run(example("ST-EX-1")[0])
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError") and "Float32" in out.message, out


# ---- bf16, availability --------------------------------------------------------------------------

def test_bf16_round_trip_keeps_every_bit(ms_adapter):
    from adapters.mindspore_adapter import from_ms, to_ms
    assert_bf16_round_trip(to_ms, from_ms)


def test_bf16_set_shares_bits(ms_adapter):
    # set_ moves no data, so it is the one op mindspore's CPU backend runs for every bf16 bit pattern.
    case = Case("set_", {"target": np.zeros(8, BFLOAT16), "source": BF16_BITS.view(BFLOAT16)},
                {"source_kind": "tensor"})
    got = run_ok(ms_adapter, case)["self"]
    assert got.dtype == BFLOAT16 and got.view(np.uint16).tolist() == BF16_BITS.tolist(), got.view(np.uint16)


def test_set_is_a_row_of_the_main_adapter_only(ms_adapter, variant):
    assert "set_" not in variant.ops and "set_" in ms_adapter.ops


# ---- stderr: in a worker the worker's own per-case capture holds mindspore's log --------------

def test_worker_mode_leaves_fd2_to_the_worker(monkeypatch, capfd):
    # With CONFORM_WORKER set, the adapter must not redirect fd 2: the worker's capture (which
    # outlives a crash) is what gets mindspore's [ERROR] lines.
    monkeypatch.setenv("CONFORM_WORKER", "1")
    a = MindsporeAdapter()
    a.setup()
    case = Case("scatter_nd_add", {"x": np.zeros(8, F32), "indices": np.array([[40]], np.int32),
                                   "updates": np.ones(1, F32)}, {"use_locking": False})
    capfd.readouterr()
    out = a.run(case)
    err = capfd.readouterr().err
    assert (out.kind, out.exc_type) == (RAISED, "RuntimeError"), out
    assert out.stderr == "", f"actual: adapter stderr {out.stderr!r}; expected: empty (the worker attaches fd 2)"
    assert "[ERROR]" in err and "out of range" in err, f"actual fd 2: {err[-600:]!r}; expected mindspore's [ERROR] line"


def test_crash_record_keeps_the_dying_process_stderr():
    from adapters.base import CRASHED
    from adapters.pool import WorkerHandle
    # storage_offset 2**62 on a 6-element int16 storage: mindspore 2.10 reads far outside it and dies
    case = Case("set_", {"target": np.zeros((4, 4), np.int16), "source": np.arange(6, dtype=np.int16)},
                {"source_kind": "storage", "storage_offset": 2 ** 62, "size": [4, 4], "stride": [4, 1],
                 "probe": 7})
    h = WorkerHandle("mindspore", case_timeout=60)
    try:
        out = h.run(case)
    finally:
        h.close()
    assert out.kind == CRASHED, f"actual: {out.kind} {out.message[:200]}; expected: crashed; case {case.params}"
    assert "Fatal Python error" in out.stderr, (
        f"actual stderr: {out.stderr[:400]!r}; expected the dying worker's fault report, not an empty capture")


# ---- mindspore bugs the corpus meets only through a worker's history ---------------------------

@pytest.mark.xfail(strict=True, reason="mindspore 2.10: ops.scatter's ScatterValue kernel keeps state from an "
                   "earlier call of higher rank and then writes only the first index (listed in "
                   "suites/expectations/mindspore-variants.txt)")
def test_ops_scatter_value_after_a_higher_rank_call(variant):
    ms = variant._ms
    idx = np.zeros((3, 3, 1, 2), np.int64)
    idx[..., 1] = 1
    ms.ops.scatter(ms.Tensor(np.zeros((3, 3, 2, 3), np.int64)), 3, ms.Tensor(idx), 7.0)
    out = ms.ops.scatter(ms.Tensor(np.array([5, -8, -8])), 0, ms.Tensor(np.array([0, 2])), -2.0).asnumpy()
    assert out.tolist() == [-2, -8, -2], (
        f"actual: {out.tolist()}, expected: [-2, -8, -2]; call: ops.scatter(input, 0, [0, 2], -2.0) after a 4-D "
        "int64 ops.scatter(..., 3, index[3,3,1,2], 7.0)")


# ---- layouts (adapters/layouts.py): built with mindspore's own PyNative view ops, as claimed, values exact

LAYOUT_ARRAYS = {
    "float32 3x4": np.arange(12, dtype=F32).reshape(3, 4),
    "bf16 nan payloads": BF16_BITS.view(BFLOAT16).reshape(2, 4),
    "int64 rows alike": np.array([[1, -2, 3]] * 4, np.int64),
    "bool": np.array([[True, False], [True, False]]),
}


@pytest.mark.parametrize("name", list(LAYOUT_ARRAYS))
def test_mindspore_builds_each_layout_as_claimed_with_the_exact_values(ms_adapter, name):
    from adapters import layouts as L
    from adapters.mindspore_adapter import from_ms
    a = LAYOUT_ARRAYS[name]
    built = 0
    for layout in L.LAYOUTS:
        p = L.plan(layout, a)
        if p is None:
            continue
        t = ms_adapter.in_layout(p)      # refuses (LayoutError) a tensor mindspore does not report in the layout
        back = from_ms(t)
        assert (back.dtype, back.shape, back.tobytes()) == (a.dtype, a.shape, np.ascontiguousarray(a).tobytes())
        dense = L.contiguous_strides(a.shape)
        if layout == L.OFFSET:
            assert t.storage_offset() == L.OFFSET_ELEMENTS and t.is_contiguous() and tuple(t.stride()) == dense
        elif layout == L.STRIDED:
            assert not t.is_contiguous() and t.stride()[p.axis] == 2 * dense[p.axis]
        else:
            assert not t.is_contiguous() and t.stride()[p.axis] == 0
        built += 1
    assert built >= 2


def test_a_mindspore_copy_is_refused_as_a_layout(ms_adapter):
    from adapters import layouts as L
    p = L.plan(L.STRIDED, np.arange(6, dtype=F32).reshape(2, 3))
    t = ms_adapter.in_layout(p).contiguous()     # what a framework hands back if it copies the view
    assert L.claim_problem(p, t.shape, t.stride(), t.storage_offset(), t.is_contiguous()).startswith("strided:")


def test_an_aliased_input_is_a_real_view_in_pynative(ms_adapter):
    """mindspore 2.10's PyNative t[key] is a view: same data pointer, writes to the base show through."""
    from adapter_helpers import shift_alias_case
    case = shift_alias_case()
    built = ms_adapter.inputs(case)
    target, value = built["target"], built["value"]
    assert value.data_ptr() == target.data_ptr() and not value.is_contiguous()
    target[0, 0] = 99.0
    assert value.asnumpy()[0, 0] == 99.0, "a write to the target must show through the value"


# ---- mindspore-graph: the same rows, each call compiled by mindspore.jit (graph mode) ----------------------

def test_graph_rows_are_compiled_set_tells_graph_from_eager(ms_adapter, graph):
    # measured on mindspore 2.10.0: eager set_ makes self the source; in a graph, set_ on an argument leaves
    # the returned self as it was (listed in mindspore-graph.txt).  Were the row run eagerly, both would
    # answer alike and the mode would be its twin under another name.
    case = Case("set_", {"target": np.zeros(3, F32), "source": np.array([10, 20, 30], F32)},
                {"source_kind": "tensor", "probe": 7.0})
    assert run_ok(ms_adapter, case)["self"].tolist() == [10, 20, 30]
    assert run_ok(graph, case)["self"].tolist() == [0, 0, 0]


def test_graph_in_place_writes_are_read_from_what_the_graph_returns(graph):
    # a graph takes its arguments as values: `target[key] = value` reaches the caller only in the result
    # (execution.written), which the row reads as a user of the mode does (`t = jit(f)(t, v)`)
    case = Case("setitem", {"target": np.zeros((2, 3), F32), "value": np.ones(2, F32)},
                {"key": {"tuple": [1, {"slice": [0, 2, None]}]}})
    assert run_ok(graph, case)["target"].tolist() == [[0, 0, 0], [1, 1, 0]]


@pytest.mark.parametrize("op", ["setitem", "clip", "scatter", "scatter_nd_add"])
def test_graph_parses_every_row_a_doc_example_eager_answers_the_graph_answers(ms_adapter, graph, op):
    # the rows are written as the graph parser takes them (a `def`, no inline lambda): where eager mindspore
    # returns on a worked example, so does the graph
    for case, expected in documented(op):
        if ms_adapter.run(case).kind == RETURNED:
            out = graph.run(case)
            assert out.kind == RETURNED, (case.label, out.exc_type, out.message[:300])


def test_graph_repro_compiles_the_call_and_rebinds_what_it_writes(graph, tmp_path):
    import subprocess
    import sys
    case = Case("scatter", {"input": np.zeros((2, 3), F32), "index": np.array([[0, 1, 0]], np.int64),
                            "src": np.ones((1, 3), F32)}, {"dim": 0, "inplace": True})
    text = graph.repro(case)
    assert "out, input = mindspore.jit(call)(input, index, src)" in text, text
    # the graph parser reads the function's source: the repro runs as the file a user saves
    (tmp_path / "repro.py").write_text(text)
    r = subprocess.run([sys.executable, "repro.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
