"""Cost per Hypothesis example: our setitem/clip exploration tests (oracle adapter) vs array-api-tests'.

    .venv/bin/python benchmarks/bench_explore.py
    AAT_DIR=/tmp/aat AAT_PYTHONPATH=/tmp/aat-deps .venv/bin/python benchmarks/bench_explore.py   # side by side

Both sides run under pytest in a subprocess with --hypothesis-show-statistics
(which counts the test cases Hypothesis ran: passing + failing + invalid) and
_timing_plugin.py (CPU and wall seconds of each test's call phase).  Each side
runs twice, with few and with many examples, and the cost of an example is the
marginal one, (T_many - T_few) / (N_many - N_few): one-time work (imports,
strategy validation) cancels out on both sides alike.  CPU time is the main
figure (the machine is shared); wall time is shown next to it.

array-api-tests is not a dependency: point AAT_DIR at a checkout of
data-apis/array-api-tests with its array-api submodule.  It runs with
ARRAY_API_TESTS_MODULE (default numpy; NumPy 1.26 itself is not array-API
complete, array_api_compat.numpy wraps it) and AAT_PYTHONPATH prepended to
PYTHONPATH for its own requirements (ndindex, pytest-json-report,
array-api-compat).  Its test_setitem and test_clip are "unvectorized": they
get a tenth of --max-examples.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = {"setitem": "suites/test_explore.py::test_op_follows_the_spec[oracle-setitem]",
        "clip": "suites/test_explore.py::test_op_follows_the_spec[oracle-clip]"}
AAT = {"setitem": "array_api_tests/test_array_object.py::test_setitem",
       "clip": "array_api_tests/test_operators_and_elementwise_functions.py::test_clip"}
OUR_PROFILES = ("ci", "certify")              # 100 and 1000 examples, derandomized
AAT_MAX_EXAMPLES = ("1000", "10000")          # 100 and 1000 for its unvectorized tests
TARGET_RATIO = 5.0

_TIMING = re.compile(r"^bench-timing (\S+) ([\d.]+) ([\d.]+)$")
_COUNTS = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")


def parse(output: str, keep_params: bool = False) -> dict:
    """nodeid (without parameters, unless keep_params) -> {"cpu", "wall": call seconds, "examples": test cases run}."""
    _base = _nodeid if keep_params else _unparametrized
    out = {}
    for line in output.splitlines():
        m = _TIMING.match(line.strip())
        if m:
            row = out.setdefault(_base(m.group(1)), {"cpu": 0.0, "wall": 0.0, "examples": 0})
            row["cpu"] += float(m.group(2))
            row["wall"] += float(m.group(3))
    current = None
    for line in output.splitlines():
        if line.rstrip().endswith(":") and "::" in line and not line.startswith(" "):
            current = _base(line.rstrip()[:-1])
        elif current in out and (m := _COUNTS.search(line)):
            out[current]["examples"] += sum(map(int, m.groups()))
    return out


def _unparametrized(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


def _nodeid(nodeid: str) -> str:
    return nodeid


def run_pytest(args, cwd, env=None, timeout=1200) -> tuple:
    env = dict(env or os.environ)
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_timing_plugin",
           "--hypothesis-show-statistics", *args]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def ours(profile: str, worker: bool) -> dict:
    args = [*OURS.values(), "--adapter", "oracle", "--profile", profile] + ([] if worker else ["--in-process"])
    rc, output = run_pytest(args, ROOT)
    if rc != 0:
        sys.exit(f"our exploration tests failed (rc {rc}):\n{output[-3000:]}")
    got = parse(output, keep_params=True)      # one parametrized test per op
    return {op: got.get(node) for op, node in OURS.items()}


def theirs(aat_dir: str, max_examples: str) -> tuple:
    env = dict(os.environ)
    env.setdefault("ARRAY_API_TESTS_MODULE", "numpy")
    extra = os.environ.get("AAT_PYTHONPATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra, env.get("PYTHONPATH", "")) if p)
    rc, output = run_pytest([*AAT.values(), "--max-examples", max_examples], aat_dir, env)
    failed = [line for line in output.splitlines() if line.startswith(("FAILED", "E "))][:6]
    note = "" if rc == 0 else (f"array-api-tests exited {rc} (a failing test stops early: its figures are low):\n"
                               + "\n".join(failed))
    got = parse(output)
    return {op: got.get(node) for op, node in AAT.items()}, note


def marginal(few, many, key) -> float:
    """Milliseconds per example between the two runs; the plain mean when the counts do not differ."""
    if not few or not many or not many["examples"]:
        return float("nan")
    dn = many["examples"] - few["examples"]
    if dn <= 0:
        return 1000.0 * many[key] / many["examples"]
    return 1000.0 * (many[key] - few[key]) / dn


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", action="store_true",
                   help="run the oracle adapter in its worker process (then only wall time counts it)")
    args = p.parse_args(argv)
    key = "wall" if args.worker else "cpu"
    mine = [ours(profile, args.worker) for profile in OUR_PROFILES]
    print(f"ours: oracle adapter {'in a worker process' if args.worker else 'in-process'}, "
          f"profiles {' and '.join(OUR_PROFILES)}; marginal {key} ms per example")
    aat_dir = os.environ.get("AAT_DIR")
    other = []
    if not aat_dir:
        print("AAT_DIR is unset: array-api-tests comparison skipped (see the module docstring)")
    else:
        for n in AAT_MAX_EXAMPLES:
            got, note = theirs(aat_dir, n)
            other.append(got)
            if note:
                print(note)
        print(f"array-api-tests {Path(aat_dir).name} on {os.environ.get('ARRAY_API_TESTS_MODULE', 'numpy')}, "
              f"--max-examples {' and '.join(AAT_MAX_EXAMPLES)}")
    head = f"{'op':8s} {'ours ms/ex':>10s} {'(wall)':>7s} {'examples':>9s}"
    print(head + (f" {'AAT ms/ex':>10s} {'(wall)':>7s} {'examples':>9s} {'ratio':>6s}" if other else ""))
    ok = True
    for op in OURS:
        ms, wall = marginal(mine[0][op], mine[1][op], key), marginal(mine[0][op], mine[1][op], "wall")
        n = mine[1][op]["examples"] if mine[1][op] else 0
        line = f"{op:8s} {ms:10.3f} {wall:7.3f} {n:9d}"
        if other:
            theirs_ms = marginal(other[0].get(op), other[1].get(op), "cpu")
            theirs_wall = marginal(other[0].get(op), other[1].get(op), "wall")
            ratio = theirs_ms / ms
            ok &= ratio >= TARGET_RATIO
            n = other[1][op]["examples"] if other[1].get(op) else 0
            line += f" {theirs_ms:10.3f} {theirs_wall:7.3f} {n:9d} {ratio:5.1f}x"
        print(line)
    if other:
        print(f"target: array-api-tests' cost per example >= {TARGET_RATIO:.0f}x ours: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
