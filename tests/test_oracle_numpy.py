"""The oracle's answers do not depend on the NumPy major or the ml_dtypes release.

CI runs every tests/test_oracle_*.py under NumPy 2 (.venv) and NumPy 1.x (.venv-mindspore); these are the
places where the two majors (NEP 50 scalar rules, np.clip's ties) or the two ml_dtypes series that follow
them (0.5: NumPy 1 and 2; 0.6+: NumPy 2) answered differently before the oracle fixed its own rule.
"""
from __future__ import annotations

import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import oracle
from contract.case import Case
from contract.dtypes import cast

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.float32
TARGETS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: np.dtype(t).name)
def test_bfloat16_to_an_integer_casts_as_numpy_casts_the_same_float32(target):
    # every value below is exact in bfloat16 and float32: bfloat16 must behave as just another float
    values = [-3.0, 2.5, 300.0, -129.0, 2.0 ** 33, -(2.0 ** 40), float("nan"), float("inf"), float("-inf"), -0.0]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        actual = cast(np.array(values, F32).astype(BF16), target)
        expected = np.array(values, F32).astype(target)
    assert actual.dtype == np.dtype(target)
    assert np.array_equal(actual, expected), (
        f"actual: {actual.tolist()}; expected NumPy's float32 cast {expected.tolist()}; "
        f"call: cast(bfloat16 {values}, {np.dtype(target).name}); ml_dtypes {ml_dtypes.__version__}")


def _nearest_bf16(v) -> Fraction:
    """The bfloat16 nearest to v (normal range), ties to an even significand, by exact arithmetic."""
    v = Fraction(v)
    if v == 0:
        return v
    m = abs(v)
    k = m.numerator.bit_length() - m.denominator.bit_length()     # 2**k <= m < 2**(k+1) after the fix-up
    if Fraction(2) ** k > m:
        k -= 1
    ulp = Fraction(2) ** (k - 7)                                  # 8 significant bits
    q, r = divmod(m, ulp)
    if r > ulp / 2 or (r == ulp / 2 and q % 2):
        q += 1
    return q * ulp if v > 0 else -q * ulp


@pytest.mark.parametrize("source", [np.int32, np.int64], ids=["int32", "int64"])
def test_an_integer_to_bfloat16_rounds_once_to_nearest_even(source):
    rng = np.random.default_rng(12)
    info = np.iinfo(source)
    hi = min(int(info.max), 2 ** 53)
    # 2**24 + 2**16 + 1 lies just above a bfloat16 midpoint; through float32 it first rounds onto it
    values = [2 ** 24 + 2 ** 16 + 1, -(2 ** 24 + 2 ** 16 + 1), 255, 257, 383, 384, 385, 0, 1, -1]
    values += [int(v) for v in rng.integers(-hi, hi, 2000, dtype=np.int64)]
    actual = cast(np.array(values, source), BF16)
    bad = [(v, float(a)) for v, a in zip(values, actual) if Fraction(float(a)) != _nearest_bf16(v)]
    assert not bad, (f"actual: {bad[:5]} (value, bfloat16); expected the nearest bfloat16, ties to even; "
                     f"call: cast({np.dtype(source).name} array, bfloat16); ml_dtypes {ml_dtypes.__version__}")


def test_a_float64_to_bfloat16_rounds_once_to_nearest_even():
    rng = np.random.default_rng(7)
    # 1 + 2**-8 + 2**-30 lies just above a bfloat16 midpoint; through float32 it first rounds onto it
    values = [1 + 2.0 ** -8 + 2.0 ** -30, -(1 + 2.0 ** -8 + 2.0 ** -30), 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 0.1]
    values += (rng.standard_normal(2000) * 2.0 ** rng.integers(-100, 100, 2000)).tolist()
    actual = cast(np.array(values, np.float64), BF16)
    bad = [(v, float(a)) for v, a in zip(values, actual) if Fraction(float(a)) != _nearest_bf16(v)]
    assert not bad, (f"actual: {bad[:5]} (value, bfloat16); expected the nearest bfloat16, ties to even; "
                     f"call: cast(float64 array, bfloat16); ml_dtypes {ml_dtypes.__version__}")


def test_clip_keeps_x_where_a_bound_equals_it():
    """CL-FORMULA min(max(x, lo), hi) leaves the sign of a tie of zeros open: the oracle keeps x's."""
    x = np.array([0.0, -0.0, -1.0, 5.0], F32)
    out = oracle.clip(x, min=-0.0, max=0.0)
    assert np.signbit(out).tolist() == [False, True, True, False], (
        f"actual signs {np.signbit(out).tolist()} of {out.tolist()}; expected x's sign where x equals a bound "
        f"(+0.0 and -0.0 kept), the bound's where the bound wins (-1.0 -> -0.0, 5.0 -> +0.0); "
        f"call: oracle.clip({x.tolist()}, min=-0.0, max=0.0)")
    one_sided = oracle.clip(np.array([0.0, -0.0], F32), max=0.0)
    assert np.signbit(one_sided).tolist() == [False, True], f"actual {one_sided.tolist()}; expected x kept"


def test_set_probe_out_of_the_targets_range_is_numpys_cast():
    """NumPy 2 refuses an out-of-range Python int in np.copyto even with casting='unsafe'; the probe is cast."""
    case = Case("set_", {"target": np.zeros((), np.int8), "source": np.zeros(1, np.int8)},
                {"source_kind": "storage", "probe": 128})
    exp = oracle.expect(case)
    seen = exp.outputs["source_after_fill"].value
    assert exp.kind == "value" and seen.tolist() == [np.array(128).astype(np.int8).item()], (
        f"actual: {exp.kind} {seen.tolist()}; expected the fill of NumPy's int8 cast of 128; case {case.params}")
