"""The ways the spec answers other than a plain value: a documented error, 'raises or returns exactly this'
(acceptance open, value fixed), or 'the docs leave the value open'."""
from __future__ import annotations

from typing import Mapping, Optional


class SpecError(Exception):
    """A documented error (an `err` clause): the call must raise.

    `clause` is the clause that decides it, `documented` the exception class name the document
    names (None where it names none; a tuple where two sentences name different classes for the same
    input, each admitted), `clauses` every clause that took part in the decision.
    """

    def __init__(self, clause: str, documented, message: str, clauses=()):
        super().__init__(f"[{clause}] {message}")
        self.clause = clause
        self.classes = class_names(documented)
        self.clauses = tuple(dict.fromkeys((*clauses, clause)))
        self.message = message

    @property
    def documented(self):
        """The first class the document names, None where it names none (what a raised SpecError stands
        for when the oracle runs as a candidate)."""
        return self.classes[0] if self.classes else None


class Either(Exception):
    """The documents leave open whether the call is accepted but say what it gives if it is: raising
    (one of `classes`, any where empty) and returning exactly `outputs` both conform, nothing else does.
    Also the answer where two sentences contradict and one says raise, the other gives the value."""

    def __init__(self, clause: str, message: str, outputs: Mapping, classes=(), clauses=()):
        super().__init__(f"[{clause}] {message}")
        self.clause = clause
        self.classes = class_names(classes)
        self.clauses = tuple(dict.fromkeys((clause, *clauses)))
        self.message = message
        self.outputs = dict(outputs)


def class_names(documented) -> tuple:
    """None -> (), "C" -> ("C",), ("C1", "C2") -> itself."""
    if documented is None:
        return ()
    return (documented,) if isinstance(documented, str) else tuple(documented)


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
    """Collects the open findings of one call, so the value can still be computed.

    An op checks its documented errors first (they raise at once), notes each open condition here,
    computes the value, then calls `raise_if_any(outputs)`.  Two sorts of open condition:
    `note` -- the value itself is open (any outcome but a crash; `outputs` is only the NumPy natural
    value an extension is compared with); `note_accept` -- only whether the input is accepted is open,
    and `outputs` is the value the documents give if it is (raises, or returns exactly that).
    One value-open note makes the whole answer unspecified.
    """

    def __init__(self):
        self.items = []          # (clause, message, None for value-open | the admitted error classes)

    def note(self, clause: str, message: str) -> None:
        self.items.append((clause, message, None))

    def note_accept(self, clause: str, message: str, classes=()) -> None:
        self.items.append((clause, message, class_names(classes)))

    def __bool__(self):
        return bool(self.items)

    @property
    def clauses(self) -> tuple:
        """The clauses noted so far, in order."""
        return tuple(c for c, _, _ in self.items)

    @property
    def accepted_classes(self) -> tuple:
        """The classes the readings that refuse admit: the union of the acceptance notes' classes, () (any
        class) where one of them names none."""
        named = [it[2] for it in self.items if it[2] is not None]
        return () if any(not c for c in named) else tuple(dict.fromkeys(c for cs in named for c in cs))

    def raise_if_any(self, natural=None, clauses=()):
        if not self.items:
            return
        value_open = [it for it in self.items if it[2] is None]
        first = (value_open or self.items)[0]
        more = "; ".join(m for c, m, _ in self.items if (c, m) != first[:2])
        message = first[1] + (f"; also: {more}" if more else "")
        every = (*dict.fromkeys(c for c, _, _ in self.items), *clauses)
        if value_open:
            raise Unspecified(first[0], message, clauses=every, natural=natural)
        raise Either(first[0], message, natural or {}, classes=self.accepted_classes, clauses=every)


def value_reading(solve, *args, **kwargs):
    """`solve(...)`'s outputs, where an Either answer gives its value: the reference functions take the
    reading that accepts the input and returns what the documents say it gives."""
    try:
        return solve(*args, **kwargs)[0]
    except Either as e:
        return e.outputs
