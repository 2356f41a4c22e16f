"""The ways the spec answers other than a plain value: a documented error, 'raises or returns exactly this'
(acceptance open, value fixed), or 'the docs leave the value open'."""
from __future__ import annotations

import contextvars
import functools
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
    """Collects the findings of one call -- every clause that applies, each decided on its own -- and
    composes the answer from them by one rule (docs/DESIGN.md, "Composing the answer"):

    1. a documented error whose condition holds (`error`) is admitted whatever else is open: the answer is
       that error, and where several hold (the documents order no checks) or an acceptance is open beside
       it, each of their classes is admitted (any class where one of them names none);
    2. otherwise a value-open condition (`note`: unsupported input, a gap) makes the answer unspecified:
       "anything" only where no applicable clause fixes more;
    3. otherwise an open acceptance (`note_accept`: raising or the value `outputs` the documents give)
       makes it "either", with the classes the refusing readings name;
    4. otherwise the value.

    The composition does not depend on the order the findings were made in: they are ranked by clause
    (the op's clause rows, in document order) and message before the first is chosen.  An op records
    each check's finding with `error` / `note` / `note_accept` and calls `raise_if_any` once every check
    that can be decided has run (`run_checks` runs a list of independent checks).
    """

    def __init__(self):
        self.items = []          # (clause, message, None for value-open | the admitted error classes)
        self.errors = []         # (clause, message, the classes the documents name: () for none)

    def error(self, clause: str, documented, message: str) -> None:
        self.errors.append((clause, message, class_names(documented)))

    def note(self, clause: str, message: str) -> None:
        self.items.append((clause, message, None))

    def note_accept(self, clause: str, message: str, classes=()) -> None:
        self.items.append((clause, message, class_names(classes)))

    def __bool__(self):
        return bool(self.items or self.errors)

    @property
    def clauses(self) -> tuple:
        """The clauses noted so far."""
        return tuple(c for c, _, _ in (*self.errors, *self.items))

    @property
    def value_open(self) -> bool:
        return any(it[2] is None for it in self.items)

    @property
    def accepted_classes(self) -> tuple:
        """The classes the readings that refuse admit: the union of the acceptance notes' classes, () (any
        class) where one of them names none."""
        return _union(it[2] for it in self.items if it[2] is not None)

    def raise_if_any(self, natural=None, clauses=()):
        if not self:
            return
        every = (*clauses, *dict.fromkeys(c for c, _, _ in _ranked((*self.errors, *self.items))))
        if self.errors:
            # the readings that refuse an open acceptance stand beside the documented errors
            refusals = _ranked([*self.errors, *(it for it in self.items if it[2] is not None)])
            raise SpecError(refusals[0][0], _union(r[2] for r in refusals) or None, _message(refusals),
                            clauses=every)
        value_open = _ranked([it for it in self.items if it[2] is None])
        if value_open:
            raise Unspecified(value_open[0][0], _message(value_open + _ranked(
                [it for it in self.items if it[2] is not None])), clauses=every, natural=natural)
        items = _ranked(self.items)
        raise Either(items[0][0], _message(items), natural or {}, classes=self.accepted_classes, clauses=every)


def _union(groups) -> tuple:
    """The union of class tuples, () (any class) where one group names none."""
    groups = list(groups)
    return () if any(not g for g in groups) else tuple(dict.fromkeys(c for g in groups for c in g))


def _rank(clause: str):
    from .registry import CLAUSES        # (at call time: the registry imports the op modules, which import this)
    order = _RANKS.get(len(CLAUSES))
    if order is None:
        order = _RANKS[len(CLAUSES)] = {c: i for i, c in enumerate(CLAUSES)}
    return order.get(clause, len(order))


_RANKS: dict = {}


def _ranked(items) -> list:
    return sorted(items, key=lambda it: (_rank(it[0]), it[0], it[1]))


def _message(items) -> str:
    first, more = items[0], [m for c, m, _ in items[1:] if (c, m) != items[0][:2]]
    return first[1] + (f"; also: {'; '.join(dict.fromkeys(more))}" if more else "")


# While a test shuffles the order of the checks (`shuffled_checks`): the random source, else None.
_SHUFFLE = None


def run_checks(checks, *args) -> None:
    """Run each check (a function of `args` that records its finding on an Open among them), in the order
    given -- or shuffled, inside `shuffled_checks`: the answer must not depend on it."""
    if _SHUFFLE is not None:
        checks = list(checks)
        _SHUFFLE.shuffle(checks)
    for check in checks:
        check(*args)


class shuffled_checks:
    """`with shuffled_checks(seed):` every `run_checks` inside runs its checks in a seeded random order."""

    def __init__(self, seed):
        import random
        self.random = random.Random(seed)

    def __enter__(self):
        global _SHUFFLE
        self.saved, _SHUFFLE = _SHUFFLE, self.random
        return self

    def __exit__(self, *exc):
        global _SHUFFLE
        _SHUFFLE = self.saved


def value_reading(solve, *args, **kwargs):
    """`solve(...)`'s outputs for the reference functions (oracle.clip, ...): a determined value is returned;
    an `either` answer raises Either (its .outputs: what the accepting reading gives) unless the caller asked
    for the accepting reading (`accepting()`: the oracle run as a candidate, which must return something);
    SpecError and Unspecified propagate."""
    try:
        return solve(*args, **kwargs)[0]
    except Either as e:
        if _ACCEPTING.get():
            return e.outputs
        raise


_ACCEPTING = contextvars.ContextVar("accepting", default=False)


class accepting:
    """`with oracle.accepting():` the reference functions return the accepting reading's value of an
    `either` answer instead of raising Either."""

    def __enter__(self):
        self.token = _ACCEPTING.set(True)
        return self

    def __exit__(self, *exc):
        _ACCEPTING.reset(self.token)

    def __call__(self, fn):
        """As a decorator: `fn` runs inside accepting()."""
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            with accepting():
                return fn(*args, **kwargs)
        return inner