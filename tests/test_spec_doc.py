"""docs/SPEC.md is generated from the op registry and is not stale; it names every clause and its source."""
from __future__ import annotations

from oracle import registry, spec_doc


def test_spec_page_is_current():
    current = spec_doc.PATH.read_text(encoding="utf-8")
    assert current == spec_doc.render(), (
        f"actual: {spec_doc.PATH} differs from what the op modules declare; expected the generated page; "
        "repro: python -m oracle.spec_doc")


def test_spec_page_lists_every_clause_with_its_kind_section_and_document():
    text = spec_doc.render()
    for spec in registry.SPECS.values():
        assert f"## {spec.name}" in text and f"`{spec.source}`" in text, spec.name
        for c in spec.clauses:
            row = f"| {c.id} | {c.kind}{' (added)' if c.added else ''} | {c.section} | {c.statement} |"
            assert row in text, f"actual: no row for {c.id}; expected {row!r}"
        for f in (*spec.inputs, *spec.params):
            assert f"`inputs.{f.name}`" in text or f"`params.{f.name}`" in text, f"{spec.name}: field {f.name}"


def test_check_mode_reports_a_stale_page(tmp_path, capsys):
    stale = tmp_path / "SPEC.md"
    stale.write_text(spec_doc.render().replace("| sem |", "| err |", 1), encoding="utf-8")
    assert spec_doc.main(["--check", "--out", str(stale)]) == 1
    assert "stale" in capsys.readouterr().err
    assert spec_doc.main(["--out", str(stale)]) == 0 and spec_doc.main(["--check", "--out", str(stale)]) == 0
