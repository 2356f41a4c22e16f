"""Repros that run and prove: a failing case's repro, run as a script, fails the same way; a passing one passes.

For every shipped adapter (oracle through mutated expectations, torch, mindspore,
mindspore-variants, pypto), the example vendor adapter and an adapter with only
the generic repro, a sample of cases goes through `conform.runner.run` (worker
processes: the Expectation crosses the wire to the worker's repro), and each
recorded repro runs in a fresh interpreter (the shared venv's python) in an
empty folder, which must stay empty.

"The same way": value-mismatch -> AssertionError naming the output the judge
named; missing-error -> "the call returned; the documents say it raises";
unexpected-error / wrong-error-class -> the exception class the adapter reported.
The sample of framework cases: for each line of the adapter's expectations file,
the first corpus case whose divergence key it would match (with a verdict the
oracle's expectation allows), so every known kind of divergence is tried.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import oracle
from adapter_helpers import REPRODUCED, assert_reproduces, run_script
from adapters.registry import load
from adapters.repro import accepts_expectation, call_repro
from contract.expectation import EXACT, Expectation, ExpectedArray
from conform import runner
from contract.results import iter_records
from suites.corpus import DEFAULT_PATH, iter_corpus, write_corpus
from suites.known_divergences import KnownDivergences
from suites.judge import divergence_key, input_ranks

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
VENDOR = ROOT / "examples" / "vendor_adapter"


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    # workers see this process's sys.path (adapters/pool.py): the test adapters and the vendor example
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.syspath_prepend(str(VENDOR))


def assert_passes(adapter, case, where: Path):
    expectation = oracle.expect(case)
    text = call_repro(adapter.repro, case, expectation)
    r = run_script(text, where)
    assert r.returncode == 0, f"{case.op} case {case.id} conforms, but its repro failed:\n{r.stderr[-3000:]}\n{text}"
    said = {"value": ("conforms to the documents",), "error": ("as documented",),
            "either": ("conforms to the documents", "as documented")}.get(expectation.kind, ())
    assert not said or any(s in r.stdout for s in said), r.stdout


def run_corpus(spec, cases, tmp_path, expect=None) -> list:
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, cases)
    result = runner.run([spec], corpus=str(corpus), out_dir=str(tmp_path / "out"), expect=expect, case_timeout=120)
    assert result.exit_code in (0, 1), result.message
    return [r for r in iter_records(result.results_path) if r["record"] == "case"]


def sample(adapter_name, ops, passing=2, limit=6):
    """(likely failing cases: one per expectations line that some corpus case's key would match, at most
    `limit`; likely passing cases: the first of `passing` ops that no line would match)."""
    patterns = KnownDivergences.for_adapter(adapter_name).patterns
    failing, chosen, used = [], {}, set()
    for case in iter_corpus(DEFAULT_PATH):
        if case.op not in ops:
            continue
        e = oracle.expect(case)
        clauses = sorted(set(case.clauses) | set(e.clauses))
        ranks = input_ranks({k: a.shape for k, a in case.inputs.items()})
        hit = False
        for verdict, kind in REPRODUCED.items():
            if e.kind != kind:
                continue
            key = divergence_key(case.op, verdict, clauses, case.dtypes(), ranks, case.id)
            for p in patterns:
                if p.regex.match(key):
                    hit = True
                    if p.where() not in used and len(failing) < limit and case not in failing:
                        used.add(p.where())
                        failing.append(case)
                    break
        if not hit and e.kind != "unspecified" and case.op not in chosen and len(chosen) < passing:
            chosen[case.op] = case
    return failing, list(chosen.values())


def check_adapter(spec, tmp_path, limit=6):
    a = load(spec)
    ok, why = a.available()
    if not ok:
        pytest.skip(f"{spec} unavailable: {why}")
    failing, passing = sample(a.name, a.ops, limit=limit)
    recs = run_corpus(spec, failing + passing, tmp_path)
    bad = [r for r in recs if r["verdict"] in REPRODUCED]
    assert bad, f"{spec}: none of the sampled cases failed; nothing was reproduced"
    for i, rec in enumerate(bad):
        assert_reproduces(rec, tmp_path / f"fail{i}")
    good = {r["case_id"] for r in recs if r["verdict"] == "pass"}
    checked = [c for c in passing if c.id in good]
    assert checked, f"{spec}: none of the sampled passing cases passed"
    for i, case in enumerate(checked):
        assert_passes(a, case, tmp_path / f"pass{i}")


@pytest.mark.parametrize("spec, limit", [("torch", 5), ("mindspore", 5), ("mindspore-variants", 3), ("pypto", 3)])
def test_framework_repros_fail_exactly_where_the_case_fails(spec, limit, tmp_path):
    check_adapter(spec, tmp_path, limit)


def test_vendor_example_repros_reproduce(tmp_path):
    from vendor_clip.adapter import VendorClipAdapter
    clip = [c for c in iter_corpus(DEFAULT_PATH) if c.op == "clip"]
    recs = run_corpus("vendor_clip.adapter:VendorClipAdapter", clip, tmp_path)
    by_verdict = {}
    for r in recs:
        by_verdict.setdefault(r["verdict"], []).append(r)
    # the documented quirk (CL-MIN-GT-MAX); clip documents no error (its "must"s are preconditions), so an
    # accepted Element/Tensor mix conforms where its value is the formula's
    assert by_verdict.get("value-mismatch"), sorted(by_verdict)
    for verdict in REPRODUCED:
        for i, rec in enumerate(by_verdict.get(verdict, [])[:2]):
            assert_reproduces(rec, tmp_path / f"{verdict}{i}")
    passed = {r["case_id"] for r in by_verdict["pass"]}
    for i, case in enumerate([c for c in clip if c.id in passed][:2]):
        assert_passes(VendorClipAdapter(), case, tmp_path / f"pass{i}")


def test_generic_repro_imports_calls_in_order_and_checks(tmp_path):
    clip = [c for c in iter_corpus(DEFAULT_PATH) if c.op == "clip"]
    recs = run_corpus("repro_adapters:NumpyClip", clip, tmp_path)
    failing = [r for r in recs if r["verdict"] in REPRODUCED]
    kinds = {r["verdict"] for r in failing}
    # numpy.clip's own failures differ between NumPy majors (1.x raises where 2.x returns): whichever kinds it
    # has, a wrong value is among them, and each kind's repro must reproduce
    assert "value-mismatch" in kinds, kinds
    first = failing[0]["repro"]
    assert "import numpy\n" in first and re.search(r"out = numpy\.clip\(x, \S", first), first
    for verdict in sorted(kinds):
        for i, rec in enumerate([r for r in failing if r["verdict"] == verdict][:2]):
            assert_reproduces(rec, tmp_path / f"{verdict}{i}")
    from repro_adapters import NumpyClip
    passed = {r["case_id"] for r in recs if r["verdict"] == "pass"}
    for i, case in enumerate([c for c in clip if c.id in passed][:2]):
        assert_passes(NumpyClip(), case, tmp_path / f"pass{i}")


def _mutant(expectation):
    """The expectation broken on purpose, so the oracle's own honest answer fails against it."""
    if expectation.kind == "error":         # another documented class: wrong-error-class
        other = "KeyError" if "KeyError" not in expectation.error_classes else "IndexError"
        return dataclasses.replace(expectation, error_classes=(other,))
    name, ea = next(iter(expectation.outputs.items()))
    value = np.array(ea.value, copy=True)
    if value.size:
        flat = value.reshape(-1)
        flat[0] = (not flat[0]) if value.dtype == np.bool_ else flat[0] + 1    # a value-mismatch
        return dataclasses.replace(expectation, outputs={**expectation.outputs, name: ExpectedArray(value, EXACT)})
    # nothing to alter: the documents "say" it raises instead (missing-error)
    return Expectation("error", expectation.clauses, {}, error_clause="MUTANT", error_classes=("TypeError",))


def test_oracle_repros_reproduce_mutant_expectations(tmp_path):
    cases, per_op = [], {}
    for case in iter_corpus(DEFAULT_PATH):
        kind = oracle.expect(case).kind
        if kind != "unspecified" and len(per_op.setdefault((case.op, kind), [])) < 1:
            per_op[(case.op, kind)].append(case)
            cases.append(case)
    mutated = {c.id for c in cases[::2]}
    recs = run_corpus("oracle", cases, tmp_path,
                      expect=lambda c: _mutant(oracle.expect(c)) if c.id in mutated else oracle.expect(c))
    failing = [r for r in recs if r["verdict"] in REPRODUCED]
    assert {r["case_id"] for r in failing} == mutated, "the oracle fails exactly the mutated cases"
    assert {r["verdict"] for r in failing} >= {"value-mismatch", "wrong-error-class"}
    for i, rec in enumerate(failing):
        assert_reproduces(rec, tmp_path / f"fail{i}")
    a = load("oracle")
    for i, case in enumerate(c for c in cases if c.id not in mutated):
        assert_passes(a, case, tmp_path / f"pass{i}")


def test_a_repro_taking_only_the_case_still_works(tmp_path):
    from repro_adapters import OldStyleRepro
    assert not accepts_expectation(OldStyleRepro().repro) and accepts_expectation(load("torch").repro)
    clip = [c for c in iter_corpus(DEFAULT_PATH) if c.op == "clip" and "CL-MIN-GT-MAX" in c.clauses][:40]
    recs = run_corpus("repro_adapters:OldStyleRepro", clip, tmp_path)
    failing = [r for r in recs if r["verdict"] in REPRODUCED]
    assert failing and all(r["repro"].startswith("import numpy\n# ") for r in failing)


def test_a_repro_without_an_expectation_makes_the_call_and_checks_nothing(tmp_path):
    case = next(c for c in iter_corpus(DEFAULT_PATH) if c.op == "clip")
    text = load("oracle").repro(case)
    assert "_check(" not in text and "oracle.clip(x, " in text
    assert run_script(text, tmp_path).returncode == 0


# ---- issue 37: a repro rebuilds every input exactly, whatever its shape or layout ---------------------

def _shape_cases() -> list:
    """Per op, the first corpus case of each shape a literal must keep (empty, 0-d, large), and a view."""
    from conform.check import SHAPE_KINDS
    kinds = {k: t for k, t in SHAPE_KINDS.items() if k != "documented error"}
    seen, out = set(), []
    for case in iter_corpus(DEFAULT_PATH):
        for kind, test in kinds.items():
            if (case.op, kind) not in seen and test(case):
                seen.add((case.op, kind))
                out.append(case)
    return out


def _framework_specs() -> list:
    """Every shipped table-driven adapter, and each layout it builds natively (NAME@LAYOUT)."""
    from adapters.mapping import FrameworkAdapter
    from adapters.registry import SHIPPED
    from contract.vocabulary import LAYOUTS
    specs = []
    for name in SHIPPED:
        try:
            a = load(name)
        except Exception:           # its framework's module cannot even be imported here
            continue
        if isinstance(a, FrameworkAdapter):
            specs += [name] + [f"{name}@{layout}" for layout in LAYOUTS if layout in a.layouts]
    return specs


@pytest.mark.parametrize("spec", _framework_specs())
def test_a_repros_inputs_are_the_cases_inputs_for_every_shape_and_layout(spec, tmp_path):
    """The input lines of each adapter's repro (imports, setup, `name = <tensor>`), run as a script, give back
    each input with the case's dtype, shape and bytes: an empty (0, 4, 4, 3) input stays (0, 4, 4, 3)."""
    from adapters import layouts, repro as R
    from contract.dtypes import dtype_name
    a = load(spec)
    ok, why = a.available()
    if not ok:
        pytest.skip(f"{spec} unavailable here: {why}")
    # the array API namespaces have no float16/bfloat16: those cases are not-applicable, not run
    cases = [c for c in _shape_cases() if c.op in a.ops and not getattr(a, "_missing_dtype", lambda c: "")(c)]
    lines = [*R.needed_imports([x for c in cases for x in c.inputs.values()]), "import base64", "import ml_dtypes",
             *a.REPRO_IMPORTS, *a.REPRO_SETUP, "import sys", "bad = []"]
    for c in cases:
        plans = None if c.aliases else layouts.plans(a.layout, c)
        lines += [f"# case {c.id}", *R.input_lines(c, a.tensor_maker(a.construction), plans)]
        for name, want in sorted(c.inputs.items()):
            le = want.astype(want.dtype.newbyteorder("<"), copy=False).tobytes()
            lines += [f"got = np.asarray(to_numpy({name}))",   # tobytes() reads any layout in C order
                      f"if (got.shape, str(got.dtype), got.tobytes()) != ({tuple(want.shape)!r}, "
                      f"{dtype_name(want.dtype)!r}, {le!r}):",
                      f"    bad.append(({c.id!r}, {name!r}, got.shape, {tuple(want.shape)!r}))"]
    lines += ["print(len(bad), 'differ:', bad)", "sys.exit(1 if bad else 0)"]
    r = run_script("\n".join(lines) + "\n", tmp_path)
    assert r.returncode == 0, f"{spec}: {r.stdout[-2000:]}{r.stderr[-2000:]}"
