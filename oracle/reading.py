"""The second reading of a source document, kept as data: every normative sentence and worked example,
the clause that encodes it, and, where two sentences disagree, both readings.

Each op's `OpSpec.reading` (a `Reading`, from oracle/readings/<op>.py) is shown in docs/SPEC.md after the
op's clauses: its conflicts with both readings, then every sentence with its clauses.
`tests/test_reading.py` fails while a recorded sentence has no clause and no reason why it is not
testable, while it cites a clause that does not exist, or while a clause comes from no sentence.
The text is a paraphrase in English, never the document's own words.
"""
from __future__ import annotations

from dataclasses import dataclass

# What a recorded sentence is.
RULE = "rule"          # says what a call does or must be given
ERROR = "error"        # names a condition that raises (with or without a class)
EXAMPLE = "example"    # a worked example with printed values
NOTE = "note"          # advice or a platform remark; normative only if it constrains a result
SENTENCE_KINDS = (RULE, ERROR, EXAMPLE, NOTE)


@dataclass(frozen=True)
class Sentence:
    id: str                  # "<op>.<section tag>.<n>", stable: SPEC.md and findings cite it
    section: str             # where in the document (its heading, in English)
    kind: str                # one of SENTENCE_KINDS
    says: str                # the sentence in our words
    clauses: tuple = ()      # the clause ids that encode it
    untestable: str = ""     # why no clause can encode it (a hardware tile rule, a device transfer)

    def __post_init__(self):
        if self.kind not in SENTENCE_KINDS:
            raise ValueError(f"{self.id}: kind {self.kind!r} is not one of {SENTENCE_KINDS}")
        if not isinstance(self.clauses, tuple) or not all(isinstance(c, str) for c in self.clauses):
            raise ValueError(f"{self.id}: clauses must be a tuple of clause ids, got {self.clauses!r}")
        if bool(self.clauses) == bool(self.untestable):
            raise ValueError(f"{self.id}: give clauses or a reason it is untestable (exactly one)")


@dataclass(frozen=True)
class Conflict:
    """Two sentences of one document that cannot both hold for some inputs: both readings pass."""
    id: str                  # "<op>.conflict.<n>"
    sentences: tuple         # the Sentence ids that disagree (two or more)
    readings: tuple          # one text per admissible reading: what an implementation following it does
    clause: str              # the clause whose expectation admits every reading
    inputs: str              # which inputs it touches, in words


@dataclass(frozen=True)
class Reading:
    document: str            # the source document's file name
    sentences: tuple         # Sentence, in document order
    conflicts: tuple = ()    # Conflict
