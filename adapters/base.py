"""The Adapter protocol vendors subclass, and the Outcome an adapter reports."""
from __future__ import annotations

import math
from collections.abc import Mapping      # not typing.Mapping: isinstance on it costs ten times more
from dataclasses import dataclass, field, fields
from typing import Optional

import numpy as np

RETURNED, RAISED, CRASHED, TIMED_OUT, NOT_APPLICABLE = (
    "returned", "raised", "crashed", "timed_out", "not_applicable")
OUTCOME_KINDS = (RETURNED, RAISED, CRASHED, TIMED_OUT, NOT_APPLICABLE)


@dataclass
class Outcome:
    kind: str
    arrays: Mapping[str, np.ndarray] = field(default_factory=dict)   # RETURNED: named outputs (docs/CASES.md)
    exc_type: str = ""                 # RAISED: class name, e.g. "RuntimeError"
    exc_mro: tuple = ()                # RAISED: base class names, so a subclass of the documented class passes
    message: str = ""                  # RAISED: the message; NOT_APPLICABLE: the reason
    stderr: str = ""                   # what the framework logged (mindspore's [ERROR] reason)
    signal: Optional[int] = None       # CRASHED: the signal, or None for a non-signal exit
    seconds: float = 0.0               # TIMED_OUT: the limit that ran out
    native_api: str = ""               # the framework call that was made
    elapsed_s: float = 0.0             # time spent in the adapter's run()
    borrowed: str = ""                 # set by the worker, never the candidate: what it took of the suite (adapters/borrow.py)

    @classmethod
    def returned(cls, **arrays):
        return cls(RETURNED, arrays={k: np.asarray(v) for k, v in arrays.items()})

    @classmethod
    def raised(cls, exc: BaseException, stderr: str = ""):
        mro = tuple(c.__name__ for c in type(exc).__mro__)
        try:
            message = str(exc)
        except BaseException as e:   # a framework exception whose __str__ itself fails
            message = f"<str() of the {type(exc).__name__} raised {type(e).__name__}>"
        return cls(RAISED, exc_type=type(exc).__name__, exc_mro=mro, message=message[:4000], stderr=stderr)

    @classmethod
    def not_applicable(cls, reason: str):
        return cls(NOT_APPLICABLE, message=reason)

    def clean(self) -> "Outcome":
        """Text fields made valid UTF-8 text in place (see clean_text); wrong types are left for problem()."""
        for name, limit in TEXT_LIMITS.items():
            v = getattr(self, name)
            if isinstance(v, (str, bytes, bytearray)):
                setattr(self, name, clean_text(v, limit, keep_tail=(name == "stderr")))
        if isinstance(self.exc_mro, (list, tuple)):
            self.exc_mro = tuple(clean_text(c, 200) if isinstance(c, (str, bytes)) else c for c in self.exc_mro)
        if isinstance(self.arrays, Mapping) and all(isinstance(k, str) for k in self.arrays):
            self.arrays = {clean_text(k, 200): a for k, a in self.arrays.items()}
        return self

    def problem(self) -> str:
        """'' for an Outcome whose fields have the documented types, else what is wrong (for the verdict)."""
        return outcome_problem({name: getattr(self, name) for name in _FIELDS})


_FIELDS = tuple(f.name for f in fields(Outcome))
# What a reply may carry in each text field; more is cut (the judge keeps 4000 characters of each).
TEXT_LIMITS = {"exc_type": 200, "message": 64 << 10, "stderr": 64 << 10, "native_api": 4000, "borrowed": 400}


def clean_text(v, limit: int = 64 << 10, keep_tail: bool = False) -> str:
    """Text that any UTF-8 writer accepts: invalid UTF-8 bytes and lone surrogates become visible
    escapes (\\xff, \\udc80) instead of failing the results file or the report later."""
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).decode("utf-8", errors="backslashreplace")
    if len(v) > limit:
        v = v[-limit:] if keep_tail else v[:limit]
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        v = v.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return v


_UNSHOWN = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")      # controls, format (bidi, zero-width), unassigned...


def terminal_text(v) -> str:
    """`v` as a terminal may print it: every control, escape, bidirectional, zero-width or unassigned
    character written as a visible escape (\x1b, \u202e), so a candidate's name, version or message can
    neither drive the terminal nor hide or reorder what is shown next to it."""
    import unicodedata
    s = clean_text(v if isinstance(v, (str, bytes, bytearray)) else str(v))
    if s.isprintable() and s.isascii():
        return s
    out = []
    for ch in s:
        if unicodedata.category(ch) in _UNSHOWN:
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def outcome_problem(values: dict) -> str:
    """'' when the Outcome fields in `values` (an Outcome's, or a worker's reply) have their documented
    types; else the first thing wrong, quoting the value, e.g. "elapsed_s must be a number of seconds,
    got str 'fast'".  Absent fields take their defaults and are not checked."""
    def got(v):
        return f"got {type(v).__name__} {str(v)[:60]!r}"

    kind = values.get("kind")
    if kind not in OUTCOME_KINDS:
        return f"kind must be one of {', '.join(OUTCOME_KINDS)}, {got(kind)}"
    for name in TEXT_LIMITS:
        if name in values and not isinstance(values[name], str):
            return f"{name} must be a string, {got(values[name])}"
    if "exc_mro" in values:
        mro = values["exc_mro"]
        if not isinstance(mro, (list, tuple)) or not all(isinstance(c, str) for c in mro):
            return f"exc_mro must be a list of class names, {got(mro)}"
    sig = values.get("signal")
    if sig is not None and (not isinstance(sig, int) or isinstance(sig, bool) or not 0 < sig < 128):
        return f"signal must be a signal number or null, {got(sig)}"
    for name in ("seconds", "elapsed_s"):
        if name in values and not _number(values[name]):
            return f"{name} must be a number of seconds, {got(values[name])}"
    arrays = values.get("arrays", {})
    if not isinstance(arrays, Mapping) or not all(isinstance(k, str) for k in arrays):
        return f"arrays must map output names to arrays, {got(arrays)}"
    return ""


class Adapter:
    """Subclass this to put an implementation under test.

    `run` gets a Case (contract.case.Case: op, inputs as NumPy arrays, params as
    in docs/CASES.md), calls the framework's own API exactly as a user would,
    and returns an Outcome.  It must not validate, clamp or cast inputs on the
    framework's behalf; it must catch every exception the framework raises.
    """

    name = "base"
    execution = "Python"     # how values are computed, shown in reports (the harness adds how it is isolated)
    case_timeout = None                 # per-case default in seconds for this adapter (None: the runner's)
    # The ways this adapter can build its inputs, the documented user way first (the default).  A spec
    # `NAME@WAY` runs it with another one; `conform run --construction-check` compares them all.
    constructions: tuple = ()
    construction: str = ""
    # The memory layouts, beyond the default contiguous one, this adapter builds natively with the
    # framework's own view ops (adapters/layouts.py).  `NAME@LAYOUT` runs it with one; the main job runs
    # each beside the default and compares their answers (suites/variants.py).
    layouts: tuple = ()
    layout: str = ""
    # The cases of its own ops this adapter declares it does not map, each a line in the format of an
    # expectations file matched against the not-applicable verdict's key (docs/CERTIFY.md, "Declared
    # exclusions"): "scatter/not-applicable/* ~ takes no scalar value :: <why>".  A not-applicable answer
    # inside one of its ops that no line matches is the failing verdict `undeclared-not-applicable`.
    excludes: tuple = ()
    # The framework's own crashes this adapter knows of, each a line in the same format matched against the
    # crash (or timeout) verdict's key and evidence, with its reason: "scatter/crash/* ~ SIGFPE :: <why>".
    # `conform check-adapter` reports a crash a line matches as known instead of MISSING (docs/CERTIFY.md,
    # "Known framework crashes"); the run still records it as a crash.
    crashes: tuple = ()

    @property
    def ops(self) -> tuple:
        """The ops this adapter maps (others are reported not-applicable); default: every op the oracle
        registers.  A subclass that maps fewer sets `ops = (...)`."""
        from oracle.registry import ops
        return ops()

    def version(self) -> str:
        return "unknown"

    def available(self) -> tuple:
        """(True, "") or (False, why): a missing package, an unverified version..."""
        return True, ""

    def setup(self) -> None:
        """Called once in the worker before the first case (import the framework here, not at module import)."""

    def native_api(self, op: str, case=None) -> str:
        return op

    def run(self, case) -> Outcome:
        raise NotImplementedError

    def repro(self, case, expectation=None) -> str:
        """A script in the framework's own syntax that makes the call and, given the oracle's Expectation
        (contract.expectation), checks the answer: it fails exactly when the case fails (adapters/repro.py).

        The default calls native_api(op, case) as a function of NumPy arrays, arguments in the documented
        order.  An override taking only (case) still works: it then gets no Expectation and checks nothing.
        """
        from .repro import generic_repro
        return generic_repro(case, self.native_api(case.op, case), expectation)
