"""benchmarks/bench_explore.py's honesty: a side whose run failed gives no ratio and a non-zero exit."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_explore.py"
_spec = importlib.util.spec_from_file_location("bench_explore", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _output(nodes, seconds, passing, invalid=0):
    # pytest's ids: array-api-tests' tests are parametrized by nothing we name, ours by adapter and op
    nodes = [n if "[" in n else f"{n}[oracle]" for n in nodes]
    lines = ["============ Hypothesis Statistics ============"]
    for node in nodes:
        lines += [f"{node}:", "", "  - during generate phase (1.0 seconds):",
                  f"    - {passing} passing, 0 failing, and {invalid} invalid test cases", ""]
    lines += [f"bench-timing {node} {seconds:.6f} {seconds * 2:.6f}" for node in nodes]
    return "\n".join(lines)


def _fake_runs(monkeypatch, aat_rc):
    def run_pytest(args, cwd, env=None, timeout=0):
        if any("array_api_tests" in a for a in args):
            many = args[-1] == bench.AAT_MAX_EXAMPLES[1]
            return aat_rc, _output(bench.AAT.values(), 30.0 if many else 3.0, 1000 if many else 100,
                                   300 if many else 30)
        many = "certify" in args
        return 0, _output(bench.OURS.values(), 1.0 if many else 0.1, 1000 if many else 100)
    monkeypatch.setattr(bench, "run_pytest", run_pytest)
    monkeypatch.setenv("AAT_DIR", "/nonexistent-aat")


def test_a_failing_side_exits_1_with_no_ratio(monkeypatch, capsys):
    _fake_runs(monkeypatch, aat_rc=1)
    assert bench.main(["--mode", "in-process"]) == 1
    out, err = capsys.readouterr()
    assert "ratio" not in out and "x " not in out
    assert "array-api-tests" in err and "exited 1" in err


def test_a_side_with_no_examples_counted_fails():
    with pytest.raises(bench.SideFailed, match="no timing or no examples for clip"):
        bench._checked("ours", 0, _output([bench.OURS["setitem"]], 1.0, 10), bench.OURS)


def test_costs_per_example_and_per_passing_example(monkeypatch, capsys):
    _fake_runs(monkeypatch, aat_rc=0)
    assert bench.main(["--mode", "in-process"]) == 0        # 30 ms/ex against 1 ms/ex: 30x
    out = capsys.readouterr().out
    # ours: 0.9 s over 900 more examples; theirs: 27 s over 1170 more examples of which 900 passing
    assert "ours, in-process" in out and " 1.000 " in out
    assert " 23.077 " in out and " 30.000 " in out and "23.1x" in out and "met" in out
