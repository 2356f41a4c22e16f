"""The two ways the spec refuses to give a plain value: a documented error, or 'the docs leave it open'."""
from __future__ import annotations

from typing import Mapping, Optional


class SpecError(Exception):
    """A documented error (an `err` clause): the call must raise.

    `clause` is the clause that decides it, `documented` the exception class name
    the document names (None where it names none), `clauses` every clause that
    took part in the decision.
    """

    def __init__(self, clause: str, documented: Optional[str], message: str, clauses=()):
        super().__init__(f"[{clause}] {message}")
        self.clause = clause
        self.documented = documented
        self.clauses = tuple(dict.fromkeys((*clauses, clause)))
        self.message = message


class Unspecified(Exception):
    """Input the docs call unsupported (`uns`) or leave open (`gap`): any outcome but a crash is admissible.

    `natural` maps output names to ExpectedArray: the NumPy-semantics answer an
    implementation's extension is checked against; empty where none exists.
    """

    def __init__(self, clause: str, message: str, clauses=(), natural: Optional[Mapping] = None):
        super().__init__(f"[{clause}] {message}")
        self.clause = clause
        self.clauses = tuple(dict.fromkeys((clause, *clauses)))
        self.message = message
        self.natural = dict(natural or {})


class Open:
    """Collects the unspecified findings of one call, so the natural value can still be computed.

    An op checks its documented errors first (they raise at once), notes each
    unsupported/open condition here, computes the natural value if it has one,
    then calls `raise_if_any(outputs)`.
    """

    def __init__(self):
        self.items = []          # (clause, message)

    def note(self, clause: str, message: str) -> None:
        self.items.append((clause, message))

    def __bool__(self):
        return bool(self.items)

    def raise_if_any(self, natural=None, clauses=()):
        if self.items:
            clause, message = self.items[0]
            more = "; ".join(m for _, m in self.items[1:])
            raise Unspecified(clause, message + (f"; also: {more}" if more else ""),
                              clauses=(*[c for c, _ in self.items], *clauses), natural=natural)
