"""Assertions shared by the real-framework adapter tests; messages read actual, expected, call, repro."""
import numpy as np

from adapters.base import RETURNED


def in_a_script(code, ns) -> None:
    """exec `code` as the script it is, in a context of its own: what it sets in context variables (a repro's
    `oracle.accepting().__enter__()`) stays there, not in this test process."""
    import contextvars
    contextvars.copy_context().run(exec, code, ns)


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
        in_a_script(compile(adapter.repro(case), f"<repro {case.id}>", "exec"), ns)
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


# Every bf16 bit class: ordinary values, -0, quiet and signalling NaNs of both signs with payloads,
# both infinities, the smallest subnormal and the largest finite value.
BF16_BITS = np.array([0x3FC0, 0x8000, 0x7FC1, 0xFF81, 0x7F80, 0xFF80, 0x0001, 0x7F7F], np.uint16)


def assert_bf16_round_trip(to_framework, from_framework):
    from contract.dtypes import BFLOAT16
    back = from_framework(to_framework(BF16_BITS.view(BFLOAT16)))
    assert back.dtype == BFLOAT16 and back.view(np.uint16).tolist() == BF16_BITS.tolist(), (
        f"actual: {back.dtype} bits {back.view(np.uint16).tolist()}; expected: bfloat16 bits {BF16_BITS.tolist()}; "
        f"call: {to_framework.__name__} then {from_framework.__name__}")


def assert_unavailable_when_missing(adapter_cls):
    """A subclass whose package is not installed reports itself unavailable, naming the package, and its version
    'unavailable'."""
    missing = type(f"Absent{adapter_cls.__name__}", (adapter_cls,), {"package": f"{adapter_cls.package}_that_is_not_installed"})
    ok, why = missing().available()
    assert not ok and missing.package in why and "not installed" in why, (
        f"actual: available={ok}, why={why!r}; expected: unavailable, naming {missing.package}")
    assert missing().version() == "unavailable"


def shift_alias_case(dtype=np.float32):
    """a[:, 1:4] = a[:, 0:3] on a 2x4 target: the value a non-dense view of the target, overlapping the
    region written behind it (contract.case.Alias; tests/test_aliasing.py)."""
    from contract.case import Alias, Case, view_of
    target = np.arange(8, dtype=dtype).reshape(2, 4)
    alias = Alias("target", ((None, None, 1), (0, 3, 1)))
    return Case(op="setitem", inputs={"target": target, "value": view_of(target, alias)},
                params={"key": {"tuple": [{"slice": [None, None, None]}, {"slice": [1, 4, None]}]}},
                aliases={"value": alias})
