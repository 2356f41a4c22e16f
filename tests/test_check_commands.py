"""`conform check-op` and `conform check-adapter` (conform/check.py, suites/completeness.py): every shipped op
and adapter is complete, and what an incomplete one lacks is named."""
from __future__ import annotations

from pathlib import Path

import pytest

import toy_op
from conform import check, cli
from contract.vocabulary import EXIT_ADAPTER, EXIT_DIVERGED, EXIT_OK, EXIT_USAGE
from oracle import registry
from suites import completeness
from suites.corpus import load_corpus

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def shipped():
    return load_corpus()[0]


@pytest.fixture
def importable(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))     # workers see this process's sys.path


def _missing(needs) -> list:
    return [n.what for n in needs if not n.ok]


@pytest.mark.parametrize("op", registry.ops())
def test_every_shipped_op_is_complete(op, shipped):
    needs = completeness.check_op(op, shipped)
    assert not _missing(needs), completeness.text(op, needs)


def test_refuses_an_op_that_lacks_reading_domain_and_mutants(shipped, capsys):
    toy_op.register()
    try:
        missing = _missing(completeness.check_op("toy_abs", shipped))
        assert cli.main(["check-op", "toy_abs"]) == EXIT_DIVERGED
    finally:
        toy_op.unregister()
    for what in ("reading: the document's sentences", "domain: a DOMAIN table", "corpus: cases of the op",
                 "strategies: a boundary family and boundary_cases()", "docs: docs/SPEC.md regenerated"):
        assert what in missing, f"actual missing: {missing}; expected {what!r} among them"
    assert any(w.startswith("mutants:") for w in missing), missing
    assert "MISSING" in capsys.readouterr().out


def test_an_unknown_op_is_a_usage_error(capsys):
    assert cli.main(["check-op", "no_such_op"]) == EXIT_USAGE
    assert "unknown op 'no_such_op'" in capsys.readouterr().err


def test_quotas_scale_with_the_op():
    small = toy_op.SPEC          # one sem and one err clause, one input
    assert completeness.mutant_quota(small) == 2 and completeness.domain_quota(small) == 4
    for op in registry.ops():
        spec = registry.spec(op)
        rules = sum(1 for c in spec.clauses if c.kind in ("sem", "err"))
        assert completeness.mutant_quota(spec) == min(completeness.MUTANTS_MAX, rules), op


def test_the_oracle_adapter_is_complete(capsys):
    assert cli.main(["check-adapter", "oracle", "--cases-per-op", "1"]) == EXIT_OK, capsys.readouterr().out


def test_refuses_a_repro_that_passes_where_the_case_fails(importable):
    needs = check.check_adapter("bad_adapters:LyingRepro", per_op=2)
    bad = [n for n in needs if not n.ok]
    assert [n.what for n in bad] == ["clip: its repro scripts run and fail exactly where their cases fail"], bad
    assert "exited 0" in bad[0].found and "expected non-zero" in bad[0].found


def test_refuses_an_adapter_naming_an_op_the_oracle_does_not_register(importable):
    needs = {n.what: n for n in check.check_adapter("bad_adapters:ClaimsUnknownOp", per_op=1)}
    assert not needs["ops: names only registered ops"].ok
    assert "no_such_op" in needs["ops: names only registered ops"].found


def test_an_unavailable_adapter_exits_5(importable, capsys):
    assert cli.main(["check-adapter", "bad_adapters:Unavailable"]) == EXIT_ADAPTER
    assert "unavailable" in capsys.readouterr().err


# ---- issue 37: repros of every shape, lazy repros, known framework crashes ----------------------------

EXAMPLE = TESTS.parent / "examples" / "vendor_adapter"


@pytest.fixture
def vendor_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.syspath_prepend(str(EXAMPLE))


def _needs(spec):
    return {n.what: n for n in check.check_adapter(spec, per_op=1)}


def test_the_sample_covers_every_shape_kind_of_every_op():
    sample = check.sample_cases(registry.ops(), 1)
    for op in registry.ops():
        mine = [c for c in sample if c.op == op]
        for kind, test in check.SHAPE_KINDS.items():
            in_corpus = any(test(c) for c in load_corpus()[0] if c.op == op)
            assert not in_corpus or any(test(c) for c in mine), (op, kind)


def test_the_example_adapter_passes_with_repros_of_every_shape(vendor_importable):
    needs = _needs("vendor_clip.adapter:VendorClipAdapter")
    assert all(n.ok for n in needs.values()), [n for n in needs.values() if not n.ok]


def test_refuses_a_repro_that_loses_an_empty_inputs_shape(vendor_importable):
    # scatter's first empty case has an input of shape (0, 3) (clip's are 1-D, which a flat list keeps)
    bad = [n for n in _needs("vendor_variants:EmptyShapesLost").values() if not n.ok]
    assert [n.what for n in bad] == ["scatter: its repro scripts run and fail exactly where their cases fail"], bad
    assert "shape [0], expected [0, 3]" in bad[0].found and "expected 0" in bad[0].found, bad[0].found


def test_refuses_a_lazy_repro_whose_error_never_surfaces_in_the_call(vendor_importable):
    bad = [n for n in _needs("vendor_variants:LazyRepro").values() if not n.ok]
    assert [n.what for n in bad] == ["scatter: its repro scripts run and fail exactly where their cases fail"], bad
    assert "the call returned; the documents say it raises" in bad[0].found, bad[0].found


def test_a_declared_framework_crash_is_known_not_missing(vendor_importable):
    undeclared = _needs("vendor_variants:CrashesOnEmpty")
    declared = _needs("vendor_variants:CrashesOnEmptyDeclared")
    what = "clip: its cases run (no crash, hang, malformed or undeclared not-applicable answer)"
    assert not undeclared[what].ok and "SIGSEGV" in undeclared[what].found
    assert declared[what].ok, declared[what]
    assert "known framework crashes (1)" in declared[what].found and "vendor bug 12" in declared[what].found


def test_a_crash_declaration_without_a_reason_is_missing(vendor_importable, tmp_path, monkeypatch):
    (tmp_path / "no_reason.py").write_text(
        "from vendor_variants import CrashesOnEmpty\n"
        "class NoReason(CrashesOnEmpty):\n    crashes = ('*/crash/*',)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    need = _needs("no_reason:NoReason")["known framework crashes: each a line with its reason"]
    assert not need.ok and "reason" in need.found
