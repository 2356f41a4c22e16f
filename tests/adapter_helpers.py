"""Assertions shared by the real-framework adapter tests; messages read actual, expected, call, repro."""
import numpy as np

from adapters.base import RETURNED


def run_ok(adapter, case):
    out = adapter.run(case)
    assert out.kind == RETURNED, (
        f"actual: {out.kind} {out.exc_type}: {out.message[:300]}\nexpected: returned\n"
        f"call: {out.native_api}\nrepro:\n{adapter.repro(case)}")
    return out.arrays


def assert_same(actual, expected, what, adapter, case):
    """Bit for bit: dtype, shape and bytes (so -0.0 and NaN payloads count)."""
    expected = np.asarray(expected)
    ok = actual.dtype == expected.dtype and actual.shape == expected.shape and np.array_equal(
        np.ascontiguousarray(actual).view(np.uint8), np.ascontiguousarray(expected).view(np.uint8))
    assert ok, (f"actual {what}: {actual.dtype}{list(actual.shape)} {actual.tolist()}\n"
                f"expected: {expected.dtype}{list(expected.shape)} {expected.tolist()}\n"
                f"call: {adapter.native_api(case.op, case)}\nrepro:\n{adapter.repro(case)}")


def exec_repro(adapter, case):
    """Run the repro snippet for real; returns its namespace, or the exception it raised."""
    ns = {}
    try:
        exec(compile(adapter.repro(case), f"<repro {case.id}>", "exec"), ns)
    except Exception as e:        # the snippet reproduces a failure: that is its job
        return e
    return ns


def documented(op):
    """The seeds' worked examples of `op` with their documented outputs: [(case, {output: array})]."""
    from suites.strategies import all_doc_examples as doc_examples
    return [(c, out) for c, out in doc_examples() if c.op == op and out]


def assert_doc_example(adapter, case, outputs, also_in_place=()):
    """Each documented output, and each name in `also_in_place` (the in-place object read back), equals
    the documented primary output."""
    got = run_ok(adapter, case)
    for name, want in outputs.items():
        assert_same(got[name], want, name, adapter, case)
    primary = next(iter(outputs.values()))
    for name in also_in_place:
        assert_same(got[name], primary, f"{name} after the call", adapter, case)
