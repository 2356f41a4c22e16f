"""The second reading of the source documents (oracle/readings/<op>.py): every recorded sentence is encoded
by a clause or says why it cannot be, every clause comes from a recorded sentence, every conflict names
recorded sentences and a clause of its op."""
import pytest

from oracle import registry
from oracle.reading import Conflict, Sentence

SPECS = list(registry.SPECS.values())


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_op_has_a_reading_of_its_own_document(spec):
    assert spec.reading is not None, f"actual: {spec.name} has no reading; expected oracle/readings/{spec.name}.py"
    assert spec.reading.document == spec.source, (spec.reading.document, spec.source)
    ids = [s.id for s in spec.reading.sentences]
    assert len(ids) == len(set(ids)), "sentence ids repeat"


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_sentence_cites_existing_clauses_and_every_clause_is_cited(spec):
    known = set(registry.CLAUSES)
    unknown = [(s.id, c) for s in spec.reading.sentences for c in s.clauses if c not in known]
    assert not unknown, f"actual: sentences cite clauses that do not exist {unknown}; expected clause ids of oracle.CLAUSES"
    cited = {c for s in spec.reading.sentences for c in s.clauses}
    uncited = [c.id for c in spec.clauses if c.id not in cited]
    assert not uncited, f"actual: clauses no recorded sentence gives {uncited}; expected every clause from the document"


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_conflicts_name_recorded_sentences_two_readings_and_a_clause_of_their_op(spec):
    ids = {s.id for s in spec.reading.sentences}
    own = {c.id for c in spec.clauses}
    for c in spec.reading.conflicts:
        assert set(c.sentences) <= ids and len(c.readings) >= 2 and c.clause in own, c


def test_a_sentence_without_clause_or_reason_is_refused():
    with pytest.raises(ValueError, match="clauses or a reason"):
        Sentence("x.1", "Section", "rule", "says something")
    with pytest.raises(ValueError, match="clauses or a reason"):
        Sentence("x.2", "Section", "rule", "says something", ("CL-FORMULA",), untestable="and a reason")
    with pytest.raises(ValueError, match="tuple of clause ids"):
        Sentence("x.3", "Section", "rule", "says something", "CL-FORMULA")     # a string, not a tuple
    Conflict("x.c", ("x.1", "x.2"), ("raises", "returns"), "CL-FORMULA", "inputs")     # the record type itself


def test_the_set_example_conflict_is_recorded_with_both_readings():
    set_ = registry.spec("set_").reading
    assert any(c.clause in ("ST-E-DTYPE", "ST-GAP-EXAMPLE") for c in set_.conflicts), set_.conflicts


def test_every_reread_cites_a_recorded_sentence_in_the_page_words():
    """oracle/readings/reread.py: each changed answer quotes its sentence; the quote is on the page."""
    from pathlib import Path
    from oracle import registry
    from oracle.readings.reread import REREAD
    sentences = {s.id for spec in registry.SPECS.values() if spec.reading for s in spec.reading.sentences}
    seeds = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
    for r in REREAD:
        assert r.sentence in sentences, r.sentence
        assert r.original and r.english and r.change, r.sentence
        if seeds.is_dir():      # the developers' tree only: the quote is the page's own text
            text = "".join(p.read_text(encoding="utf-8") for p in seeds.glob("*.txt"))
            assert r.original.replace(" ", "") in text.replace(" ", ""), r.original
