"""Helpers shared by the tests, in one place: the one way to run the CLI (`conform`), the one in-process adapter
fixture of a framework's own tests (`adapter_fixture`), a shipped adapter's run over the documented examples in its
own worker (`documented_run`), repro scripts run as scripts (`run_script`, `assert_reproduces`), and the adapter
assertions (messages read actual, expected, call, repro)."""
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from adapters.base import RETURNED

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
VENDOR = ROOT / "examples" / "vendor_adapter"


# ---- the CLI -------------------------------------------------------------------------------------------

def cli_env(*path, **extra) -> dict:
    """This process's environment with PYTHONPATH `path` (default: the checkout, then tests/) and `extra`."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, path or (ROOT, TESTS))), **extra)


def conform(*args, timeout=600, cwd=ROOT, env=None, **kw) -> subprocess.CompletedProcess:
    """`python -m conform.cli ARGS` as a user runs it: its own process, output captured as text; `env`: the whole
    environment (default cli_env())."""
    return subprocess.run([sys.executable, "-m", "conform.cli", *map(str, args)], cwd=cwd,
                          env=cli_env() if env is None else env, capture_output=True, text=True, timeout=timeout,
                          **kw)


# ---- an adapter: in this process (a framework's own tests), or a shipped one in its worker ----------------

def adapter_fixture(spec):
    """A module-scoped fixture: the adapter `spec` names, set up once for the module and closed after it; the
    module's tests skip, with the adapter's own reason, where it is unavailable in this interpreter (its
    framework lives in another environment: .ci/run runs the module there)."""
    @pytest.fixture(scope="module")
    def adapter():
        from adapters.registry import load
        a = load(spec)
        ok, why = a.available()
        if not ok:
            pytest.skip(f"{spec} adapter unavailable here: {why}")
        a.setup()
        yield a
        close = getattr(a, "close", None)
        if close:
            close()
    return adapter


@dataclass
class AdapterRun:
    """`conform run` of one shipped adapter over the documents' worked examples."""
    name: str
    returncode: int
    stderr: str
    header: dict            # the results' run record ({} when the run stopped before writing one)
    records: list           # its case records

    @property
    def adapter(self) -> dict:
        return self.header["adapters"][0]


def documented_run(name, out_dir) -> AdapterRun:
    """Every worked example of the documents (suites/doc_examples.py) through shipped adapter `name`, in its own
    worker under the interpreter the harness picks for it (its environment: adapters/environments.py), as
    `conform run` runs it; in its default layout only."""
    import json
    from suites.corpus import write_corpus
    from suites.strategies import all_doc_examples
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_corpus(str(out_dir / "examples.jsonl"), [case for case, _ in all_doc_examples()])
    r = conform("run", "--adapter", name, "--corpus", out_dir / "examples.jsonl", "--out", out_dir / "out",
                "--no-report", "--no-layouts", "--jobs", "1")
    results = out_dir / "out" / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()] if results.is_file() else []
    header = next((x for x in lines if x["record"] == "run"), {})
    return AdapterRun(name, r.returncode, r.stderr, header, [x for x in lines if x["record"] == "case"])


def environment_missing(name) -> str:
    """Why shipped adapter `name` cannot be run here ("" when it can): the environment scripts/setup.sh builds
    for it is not there."""
    from adapters.registry import SHIPPED
    env = SHIPPED[name].environment
    if env and not (ROOT / env / "bin" / "python").is_file():
        return f"{name}: its environment {env} is not built here (bash scripts/setup.sh builds it)"
    return ""


# ---- repro scripts, run as scripts --------------------------------------------------------------------

# the verdicts a repro reproduces, and the expectation kind each needs
REPRODUCED = {"value-mismatch": "value", "unexpected-error": "value", "missing-error": "error",
              "wrong-error-class": "error"}


def run_script(text: str, where: Path, python=sys.executable, path=(), timeout=300) -> subprocess.CompletedProcess:
    """Run a repro as `python repro.py` under `python` from an empty folder, which must stay empty; the test
    adapters and the vendor example (then `path`) are importable, as a worker's are."""
    where.mkdir(parents=True, exist_ok=True)
    script = where / "repro.py"
    script.write_text(text)
    cwd = where / "cwd"
    cwd.mkdir()
    r = subprocess.run([python, str(script)], cwd=cwd, env=cli_env(ROOT, TESTS, VENDOR, *path), capture_output=True,
                       text=True, timeout=timeout)
    assert os.listdir(cwd) == [], f"the repro wrote into the working folder: {os.listdir(cwd)}\n{text}"
    return r


# Runs scripts one after another in one interpreter, each as __main__ in a fresh namespace, from its own folder:
# argv[1] a JSON list of [script, folder], argv[2] the file the answers go to (the frameworks write to fd 1 too).
_SCRIPTS = """
import contextlib, io, json, os, runpy, sys, traceback
answers = []
for script, folder in json.loads(sys.argv[1]):
    os.chdir(folder)
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
    answers.append({"returncode": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
with open(sys.argv[2], "w") as f:
    json.dump(answers, f)
"""


def run_scripts(texts, where: Path, python=sys.executable, timeout=600) -> list:
    """Run repro scripts under `python`, one interpreter for them all (a framework starts once), each as
    `python repro.py` would (as __main__, a namespace of its own) from an empty folder of its own, which must stay
    empty; -> [CompletedProcess-like (returncode, stdout, stderr)], in order."""
    import json
    from types import SimpleNamespace
    jobs = []
    for i, text in enumerate(texts):
        (where / f"{i}" / "cwd").mkdir(parents=True)
        (where / f"{i}" / "repro.py").write_text(text)
        jobs.append([str(where / f"{i}" / "repro.py"), str(where / f"{i}" / "cwd")])
    answers = where / "answers.json"
    r = subprocess.run([python, "-c", _SCRIPTS, json.dumps(jobs), str(answers)], cwd=where,
                       env=cli_env(ROOT, TESTS, VENDOR), capture_output=True, text=True, timeout=timeout)
    assert answers.is_file(), f"the scripts' interpreter died: exit {r.returncode}\n{r.stderr[-3000:]}"
    for (_, cwd), text in zip(jobs, texts):
        assert os.listdir(cwd) == [], f"the repro wrote into the working folder: {os.listdir(cwd)}\n{text}"
    return [SimpleNamespace(**a) for a in json.loads(answers.read_text())]


def assert_reproduces(rec: dict, where: Path, python=sys.executable, path=(), ran=None):
    """A failing record's repro fails the way the record says: value-mismatch -> an AssertionError naming the
    output the judge named; missing-error -> "the call returned; the documents say it raises"; unexpected-error /
    wrong-error-class -> the exception class the adapter reported.  `ran`: the script's run already made
    (run_scripts); else it is run here, as a script."""
    r = ran or run_script(rec["repro"], where, python, path)
    what = f"{rec['adapter']} {rec['op']} case {rec['case_id']}: {rec['verdict']} ({rec['outcome'][:200]})"
    assert r.returncode != 0, f"{what}: the repro exited 0\nstdout:\n{r.stdout[-2000:]}\nrepro:\n{rec['repro']}"
    err = r.stderr
    if rec["verdict"] == "value-mismatch":
        assert f"AssertionError: {rec['mismatch']['output']}:" in err, f"{what}\nstderr:\n{err[-3000:]}"
    elif rec["verdict"] == "missing-error":
        assert "AssertionError: the call returned; the documents say it raises" in err, f"{what}\n{err[-3000:]}"
    else:
        cls = rec["error"]["actual_class"]
        assert re.search(rf"(^|[.\s]){re.escape(cls)}(: |$)", err, re.M), \
            f"{what}: expected {cls} in the traceback\nstderr:\n{err[-3000:]}"


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


def example(clause):
    """The documents' worked example `clause` names ("SC-EX-1"): (case, {output: documented array})."""
    from suites.strategies import all_doc_examples as doc_examples
    return next((c, out) for c, out in doc_examples() if clause in c.clauses)


def with_params(case, **params):
    """`case` with some params replaced (an example run out of place, say); the same inputs and clauses."""
    from contract.case import Case
    return Case(case.op, case.inputs, {**case.params, **params}, clauses=case.clauses)


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
