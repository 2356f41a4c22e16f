"""The contract every shipped adapter keeps, one test per promise, run for each adapter declared in
adapters/registry.py (SHIPPED):

- documented examples: every worked example of the documents (suites/doc_examples.py) either gets the
  documents' answer or is a divergence its expectations file lists; each op it maps meets some example;
- repros: the repro of an example it fails (one of each kind of failure), run as a script under its own
  interpreter (one for all its scripts), fails the same way;
- availability: in its own environment it is available at its pinned release; where its framework is absent it
  says so, naming the package; a run that starts it there refuses it with that reason (EXIT_ADAPTER);
- identity: its certificate's identity is measured in its environment and names the frameworks its row declares.

Each adapter starts its worker once for the module (the `run` fixture: `conform run` over the examples, in its
environment).  An adapter whose environment scripts/setup.sh has not built is skipped, with that reason.  What is
particular to one framework stays in its own tests/test_adapter_<framework>.py."""
from __future__ import annotations

import pytest

from adapter_helpers import (REPRODUCED, assert_reproduces, assert_unavailable_when_missing, conform,
                             documented_run, environment_missing, run_scripts)
from adapters import registry
from contract.vocabulary import EXIT_ADAPTER, EXIT_OK

NAMES = sorted(registry.SHIPPED)

# What this test found and the adapter does not do yet: the test fails (strict xfail) once it is fixed.
REPRO_FINDINGS = {
    "jax-jit": "SI-EX-7's repro raises jax's IndexError (slice entries must be static) under jax.jit, where the "
               "worker's call raised ValueError (truth value of an array): the repro does not make the call the "
               "worker made",
    "mindspore-graph": "mindspore.jit writes rank_0/ into the folder the repro runs in",
}


@pytest.fixture(scope="module", params=NAMES)
def run(request, tmp_path_factory):
    """Shipped adapter `request.param` run over the documents' worked examples, in its own worker."""
    name = request.param
    missing = environment_missing(name)
    if missing:
        pytest.skip(missing)
    return documented_run(name, tmp_path_factory.mktemp(name.replace(":", "_")))


def _started(run):
    assert run.header, f"{run.name}: the run wrote no header (exit {run.returncode})\n{run.stderr[-2000:]}"
    if not run.adapter["available"]:
        pytest.skip(f"{run.name} unavailable here: {run.adapter['reason']}")


# ---- documented examples ------------------------------------------------------------------------------

def test_every_documented_example_gets_the_documented_answer_or_a_listed_divergence(run):
    _started(run)
    unlisted = [(r["case_id"], r["case"].get("label"), r["verdict"], r["outcome"][:200]) for r in run.records
                if r["verdict"] not in ("pass", "not-applicable") and not r.get("expected_divergence")]
    assert run.returncode == EXIT_OK and not unlisted, (
        f"actual: exit {run.returncode}, unlisted {unlisted}\nexpected: exit 0, every divergence listed in "
        f"{run.adapter['expectations']}\n{run.stderr[-2000:]}")
    from suites.strategies import all_doc_examples
    assert len(run.records) == len(all_doc_examples()), "an example went unanswered"


# ---- repros -------------------------------------------------------------------------------------------

def test_repros_of_failing_examples_fail_the_same_way_in_its_environment(run, tmp_path, request):
    _started(run)
    if run.name in REPRO_FINDINGS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=REPRO_FINDINGS[run.name]))
    # one example per kind of failure (its verdict and the expectations line that lists it): examples that fail
    # alike fail alike in their repros
    kinds = {}
    for r in run.records:
        if r["verdict"] in REPRODUCED:
            kinds.setdefault((r["verdict"], r.get("expected_divergence")), r)
    failing = list(kinds.values())
    if not failing:
        pytest.skip(f"{run.name} fails no documented example: nothing to reproduce")
    ran = run_scripts([rec["repro"] for rec in failing], tmp_path, python=run.adapter["python"])
    for rec, r in zip(failing, ran):
        assert_reproduces(rec, tmp_path, ran=r)


# ---- availability -------------------------------------------------------------------------------------

def test_in_its_environment_it_is_available_at_its_pinned_release(run):
    assert run.header, f"{run.name}: the run wrote no header (exit {run.returncode})\n{run.stderr[-2000:]}"
    a = run.adapter
    if not a["available"] and registry.SHIPPED[run.name].environment == "":
        pytest.skip(f"{run.name} unavailable in the main environment here: {a['reason']}")
    assert a["available"] and a["reason"] == "", a
    row, cls = registry.SHIPPED[run.name], registry.load_class(run.name)
    pin = getattr(cls, "pin", None) or (row.releases[0] if row.releases else None)
    if pin:
        assert a["version"].split()[0].split("+")[0] == pin, f"actual: {run.name} {a['version']}; expected: the pin {pin}"


@pytest.mark.parametrize("name", NAMES)
def test_where_its_package_is_absent_it_says_so_naming_the_package(name):
    cls = registry.load_class(name)
    if not isinstance(getattr(cls, "package", None), (str, property)):
        pytest.skip(f"{name} wraps no package of its own")
    assert_unavailable_when_missing(cls)


@pytest.mark.parametrize("name", [n for n, row in sorted(registry.SHIPPED.items()) if row.environment])
def test_outside_its_environment_a_run_refuses_it_with_the_reason(name, tmp_path):
    # the main environment lacks the framework: the worker started there must say so, and the run stop
    import sys
    from adapters.environments import interpreter_for
    if interpreter_for(name) == sys.executable:
        pytest.skip(environment_missing(name) or f"{name} runs in this interpreter")
    from suites.corpus import write_corpus
    from suites.strategies import all_doc_examples
    write_corpus(str(tmp_path / "one.jsonl"), [all_doc_examples()[0][0]])
    r = conform("run", "--adapter", name, "--python", f"{name}={sys.executable}", "--corpus", tmp_path / "one.jsonl",
                "--out", tmp_path / "out", "--no-report", "--no-layouts")
    package = registry.load_class(name).package
    assert r.returncode == EXIT_ADAPTER and f"'{package}' is not installed" in r.stderr, (
        f"actual: exit {r.returncode}: {r.stderr[-600:]}\nexpected: exit {EXIT_ADAPTER}, naming {package!r}")
    assert "Traceback" not in r.stderr, r.stderr


# ---- identity -----------------------------------------------------------------------------------------

def test_its_identity_is_measured_in_its_environment_and_names_its_frameworks(run):
    # the measuring process is told the row's frameworks (adapters/registry.py, SHIPPED): each is recorded with
    # the version installed where the adapter runs
    _started(run)
    from adapters.identity import measure
    row = registry.SHIPPED[run.name]
    ident = measure(run.name, python=run.adapter["python"])
    assert ident["class"] == row.class_path.rpartition(":")[2], ident
    assert set(ident["frameworks"]) == {"numpy", *row.frameworks}, ident["frameworks"]
    unmeasured = [k for k, v in ident["frameworks"].items() if not v]
    assert not unmeasured, f"{run.name}: no version measured for {unmeasured}: {ident['frameworks']}"
