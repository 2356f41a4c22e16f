"""Cost per Hypothesis example: our setitem/clip exploration tests (oracle adapter) vs array-api-tests'.

    .venv/bin/python benchmarks/bench_explore.py                        # ours only
    AAT_DIR=/tmp/aat AAT_PYTHONPATH=/tmp/aat-deps .venv/bin/python benchmarks/bench_explore.py   # side by side

Every side runs under pytest in a subprocess with --hypothesis-show-statistics (which counts the test
cases Hypothesis ran: passing, failing and invalid) and _timing_plugin.py (CPU seconds of each test's call
phase, the adapter's worker process included, and wall seconds).  Each side runs twice, with few and with
many examples, and the cost of an example is the marginal one, (T_many - T_few) / (N_many - N_few):
one-time work (imports, strategy validation, starting a worker) cancels out on both sides alike.  Two
costs are shown: per example (invalid ones included: Hypothesis paid for their draws) and per passing
example (what one checked case costs).  Ours runs twice over: in-process (--in-process) and through the
oracle adapter's worker process, as `conform run` and the default pytest run do.

array-api-tests is not a dependency: point AAT_DIR at a checkout of data-apis/array-api-tests with its
array-api submodule (git clone --recursive).  It runs with ARRAY_API_TESTS_MODULE, default
array_api_compat.numpy (NumPy 1.26 itself is not array-API complete: both tests fail at once on plain
numpy 1.26; on NumPy 2.4 they pass on either), and AAT_PYTHONPATH prepended to PYTHONPATH for its own requirements (ndindex,
pytest-json-report; `pip install .[bench]` brings them and array-api-compat).  Its example database
(AAT_DIR/.hypothesis/examples) is deleted before each run, so no stored failure is replayed.  Its
test_setitem and test_clip are "unvectorized": they get a tenth of --max-examples.

A side whose run fails (a failing test, an error, no timing or no examples counted) is reported with its
output and no ratio, and the benchmark exits 1; it exits 2 when the target ratio is not met.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
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
AAT_MODULE = "array_api_compat.numpy"
TARGET_RATIO = 5.0

_TIMING = re.compile(r"^bench-timing (\S+) ([\d.]+) ([\d.]+)$")
_COUNTS = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")


class SideFailed(Exception):
    """One side's pytest run failed: its figures would mean nothing."""


def parse(output: str) -> dict:
    """nodeid (ours with, theirs without parameters) -> {"cpu", "wall": call seconds, "examples", "passing"}."""
    out = {}
    for line in output.splitlines():
        m = _TIMING.match(line.strip())
        if m:
            row = out.setdefault(_base(m.group(1)), {"cpu": 0.0, "wall": 0.0, "examples": 0, "passing": 0})
            row["cpu"] += float(m.group(2))
            row["wall"] += float(m.group(3))
    current = None
    for line in output.splitlines():
        if line.rstrip().endswith(":") and "::" in line and not line.startswith(" "):
            current = _base(line.rstrip()[:-1])
        elif current in out and (m := _COUNTS.search(line)):
            passing, failing, invalid = map(int, m.groups())
            out[current]["examples"] += passing + failing + invalid
            out[current]["passing"] += passing
    return out


def _base(nodeid: str) -> str:
    # Our exploration test is one test parametrized by adapter and op: its parameters name the op.
    return nodeid if nodeid.startswith("suites/") else nodeid.split("[", 1)[0]


def run_pytest(args, cwd, env=None, timeout=1800) -> tuple:
    env = dict(env or os.environ)
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_timing_plugin",
           "--hypothesis-show-statistics", *args]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def _checked(name, rc, output, nodes) -> dict:
    got = parse(output)
    rows = {op: got.get(node) for op, node in nodes.items()}
    missing = [op for op, row in rows.items() if not row or not row["examples"]]
    if rc != 0 or missing:
        failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR", "E "))][:12]
        why = f"exited {rc}" if rc else f"no timing or no examples for {', '.join(missing)}"
        raise SideFailed(f"{name} {why}:\n" + "\n".join(failed or output.splitlines()[-20:]))
    return rows


def ours(profile: str, worker: bool) -> dict:
    args = [*OURS.values(), "--adapter", "oracle", "--profile", profile] + ([] if worker else ["--in-process"])
    rc, output = run_pytest(args, ROOT)
    return _checked(f"our exploration ({'worker' if worker else 'in-process'}, {profile})", rc, output, OURS)


def theirs(aat_dir: str, max_examples: str) -> dict:
    shutil.rmtree(Path(aat_dir) / ".hypothesis" / "examples", ignore_errors=True)
    env = dict(os.environ)
    env.setdefault("ARRAY_API_TESTS_MODULE", AAT_MODULE)
    extra = os.environ.get("AAT_PYTHONPATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra, env.get("PYTHONPATH", "")) if p)
    rc, output = run_pytest([*AAT.values(), "--max-examples", max_examples], aat_dir, env)
    return _checked(f"array-api-tests (--max-examples {max_examples})", rc, output, AAT)


def marginal(few, many, key, count="examples") -> float:
    """Milliseconds per example (or per passing example) between the two runs; the plain mean when the
    counts do not differ."""
    dn = many[count] - few[count]
    if dn <= 0:
        return 1000.0 * many[key] / max(many[count], 1)
    return 1000.0 * (many[key] - few[key]) / dn


def costs(pair, op) -> dict:
    few, many = pair[0][op], pair[1][op]
    return {"ex": marginal(few, many, "cpu"), "pass": marginal(few, many, "cpu", "passing"),
            "wall": marginal(few, many, "wall"), "n": many["examples"], "n_pass": many["passing"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mode", choices=("both", "in-process", "worker"), default="both",
                   help="how our side runs the oracle adapter (default: both)")
    args = p.parse_args(argv)
    modes = ("in-process", "worker") if args.mode == "both" else (args.mode,)
    aat_dir = os.environ.get("AAT_DIR")
    try:
        mine = {mode: [ours(profile, mode == "worker") for profile in OUR_PROFILES] for mode in modes}
        other = [theirs(aat_dir, n) for n in AAT_MAX_EXAMPLES] if aat_dir else None
    except SideFailed as e:
        print(f"benchmark failed, no figures: {e}", file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired as e:
        print(f"benchmark failed, no figures: a run took longer than {e.timeout:.0f} s", file=sys.stderr)
        return 1
    print(f"ours: oracle adapter, profiles {' and '.join(OUR_PROFILES)}; array-api-tests: "
          + (f"{Path(aat_dir).name} on {os.environ.get('ARRAY_API_TESTS_MODULE', AAT_MODULE)}, --max-examples "
             f"{' and '.join(AAT_MAX_EXAMPLES)}" if other else "AAT_DIR unset, not run (see the module docstring)"))
    print("marginal CPU ms per example (all / passing only); wall ms per example in brackets")
    head = f"{'op':8s} {'side':26s} {'ms/ex':>7s} {'ms/pass':>8s} {'(wall)':>8s} {'examples':>9s} {'passing':>8s}"
    print(head + (f" {'ratio/ex':>9s} {'ratio/pass':>10s}" if other else ""))
    ok = True
    for op in OURS:
        theirs_cost = costs(other, op) if other else None
        for mode in modes:
            c = costs(mine[mode], op)
            line = (f"{op:8s} {'ours, ' + mode:26s} {c['ex']:7.3f} {c['pass']:8.3f} {c['wall']:8.3f} "
                    f"{c['n']:9d} {c['n_pass']:8d}")
            if theirs_cost:
                r_ex, r_pass = theirs_cost["ex"] / c["ex"], theirs_cost["pass"] / c["pass"]
                ok &= r_ex >= TARGET_RATIO
                line += f" {r_ex:8.1f}x {r_pass:9.1f}x"
            print(line)
        if theirs_cost:
            c = theirs_cost
            print(f"{op:8s} {'array-api-tests':26s} {c['ex']:7.3f} {c['pass']:8.3f} {c['wall']:8.3f} "
                  f"{c['n']:9d} {c['n_pass']:8d}")
    if other:
        print(f"target: array-api-tests' cost per example >= {TARGET_RATIO:.0f}x ours, every op and mode: "
              f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
