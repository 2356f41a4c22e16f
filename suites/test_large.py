"""The large-tensor cases of suites/large.py: opt-in, run only with --profile large (not in CI).

    .venv/bin/python -m pytest suites/test_large.py --profile large -p no:xdist

One case at a time (each holds up to ~13 GiB); a case whose memory is not free is skipped with the
figures, so a smaller machine gets a clear reason, not an out-of-memory kill.  Each case prints
`large: <name>: oracle S s, torch S s, peak RSS G GiB`.
"""
import gc
import os

import numpy as np
import pytest

from suites import large


def _large_profile(config) -> bool:
    # the profile as suites/plugin.py picks it: --profile, else CONFORM_PROFILE
    return (config.getoption("profile") or os.environ.get("CONFORM_PROFILE")) == "large"


@pytest.mark.parametrize("case", large.CASES, ids=[c.name for c in large.CASES])
def test_large_case_matches_torch(case, request, capsys):
    if not _large_profile(request.config):
        pytest.skip("large-tensor cases run only with --profile large (they need up to 14 GiB of memory)")
    torch = pytest.importorskip("torch", reason="the large cases compare the oracle with torch CPU")
    gc.collect()
    free = large.available_gib()
    if free < case.gib:
        pytest.skip(f"{case.name} needs {case.gib:.1f} GiB free, {free:.1f} GiB is available")
    large.reset_peak()
    figures = case.run(torch)       # raises AssertionError with actual, expected and the flat index
    line = (f"large: {case.name}: oracle {figures['oracle_s']:.2f} s, torch {figures['torch_s']:.2f} s, "
            f"peak RSS {large.peak_gib():.2f} GiB ({case.what})")
    with capsys.disabled():     # the figures are the point of the run: past pytest's capture
        print(f"\n{line}")
    request.node.user_properties.append(("large", line))


def test_assert_same_names_the_first_difference_and_whether_it_lies_past_2_31():
    """The comparison the large cases rest on (runs in every profile: it is small)."""
    a = large.filled(3 * large.PERIOD, np.int8, 0)
    assert a[5] == a[5 + large.PERIOD] and a.size == 3 * large.PERIOD      # the pattern repeats
    large.assert_same("same", a, a.copy())
    b = a.copy()
    b[-1] += 1
    with pytest.raises(AssertionError, match=rf"first difference at flat index {a.size - 1} \(past 2\*\*31: False\)"):
        large.assert_same("x", b, a)
    with pytest.raises(AssertionError, match="actual int16"):
        large.assert_same("x", a.astype(np.int16), a)
