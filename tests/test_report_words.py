"""The report explains its terms in its own words; those words are the project's, not a second definition."""
import re
from pathlib import Path

from contract.vocabulary import VERDICT_MEANINGS as VOCABULARY_MEANINGS
from contract.vocabulary import VERDICTS
from reports import glossary
from oracle.clauses import CLAUSE_KINDS
from reports.render import KIND_MEANINGS, VERDICT_MEANINGS

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "DESIGN.md"


def test_the_design_documents_verdict_table_is_generated_from_the_vocabulary():
    """contract.vocabulary owns each verdict's meaning; docs/DESIGN.md's table is written from it."""
    assert glossary.main(["--check"]) == 0, "docs/DESIGN.md's verdict table is stale: python -m reports.glossary --write"
    table = dict(re.findall(r"^\| `([a-z-]+)` \| (.+) \|$", DESIGN.read_text(encoding="utf-8"), re.M))
    assert tuple(table) == VERDICTS and all(table[v] == VOCABULARY_MEANINGS[v] for v in VERDICTS)


def test_the_reports_glossary_shows_the_vocabularys_meanings():
    assert set(VERDICT_MEANINGS) == set(VERDICTS)
    assert all(VERDICT_MEANINGS[v] == glossary.plain(VOCABULARY_MEANINGS[v]) for v in VERDICTS)


def test_a_stale_verdict_table_is_refused(tmp_path, monkeypatch):
    page = tmp_path / "DESIGN.md"
    page.write_text(glossary.BEGIN + "\n| `pass` | something else |\n" + glossary.END + "\n")
    monkeypatch.setattr(glossary, "DESIGN", page)
    assert glossary.main(["--check"]) == 1


def test_every_clause_kind_has_a_meaning():
    assert set(KIND_MEANINGS) == set(CLAUSE_KINDS)
