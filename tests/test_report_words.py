"""The report explains its terms in its own words; those words are the project's, not a second definition."""
import re
from pathlib import Path

from contract.vocabulary import VERDICTS
from oracle.clauses import CLAUSE_KINDS
from reports.render import KIND_MEANINGS, VERDICT_MEANINGS

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "DESIGN.md"


def test_verdict_meanings_are_the_design_documents():
    """docs/DESIGN.md's verdict table owns each verdict's meaning; the report's glossary carries it unchanged."""
    table = dict(re.findall(r"^\| `([a-z-]+)` \| (.+) \|$", DESIGN.read_text(encoding="utf-8"), re.M))
    assert set(table) == set(VERDICTS) == set(VERDICT_MEANINGS)
    for v in VERDICTS:
        assert VERDICT_MEANINGS[v] == table[v].replace("`", ""), f"{v}: report and docs/DESIGN.md differ"


def test_every_clause_kind_has_a_meaning():
    assert set(KIND_MEANINGS) == set(CLAUSE_KINDS)
