"""The words every layer shares, defined once: verdicts and their sets, exit codes, the suite version."""
from __future__ import annotations

# The suite's version: pyproject.toml reads it from here, results and corpus headers record it.
SUITE_VERSION = "0.1.0"

# What each verdict means, in markdown (`code` in backticks): the one definition, which docs/DESIGN.md's
# verdict table (python -m reports.glossary --write) and the report's glossary both show.
VERDICT_MEANINGS = {
    "pass": ("the spec gives a value and the adapter returned it (by the comparison rule of each output: "
             "exact, within a derived bound, or one of the admissible choices or whole arrays); or the spec "
             "names an error and the adapter raised that class (or a subclass; any class where the document names none); or the "
             "documents admit both raising and a value (a reading left open, or two sentences that contradict)"
             " and the adapter did one of them: raised an admitted class, or returned exactly that value; or "
             "the input is unsupported and the adapter rejected it"),
    "value-mismatch": ("the spec gives a value and the adapter returned something else: other values, another shape or "
                       "dtype, or a missing primary output"),
    "missing-error": "the spec names an error and the adapter returned",
    "unexpected-error": "the spec gives a value and the adapter raised",
    "wrong-error-class": "the spec names an error class and the adapter raised another one",
    "crash": "the worker died (a signal, an exit, the memory watchdog) or broke the protocol",
    "timeout": "the case ran past its time limit; the worker was killed",
    "undeclared-not-applicable": ("the adapter answered not applicable inside an op it claims, where none of its declared "
                                  "exclusions (`Adapter.excludes`) says so: an answer withheld, counted as failing"),
    "extension": ("the input is unsupported or left open by the documents (`uns`/`gap` clauses) and the adapter "
                  "returned a value; the note says whether it equals the NumPy natural value"),
    "not-applicable": "the adapter has no mapping for this call",
}
VERDICTS = tuple(VERDICT_MEANINGS)
# Not applicable inside an op the adapter claims, where none of its declared exclusions says so: an answer
# withheld, which counts as failing (else answering "not applicable" on exactly the failing cases passes).
UNDECLARED = "undeclared-not-applicable"
# How an expectations line says its divergence is the framework's own bug (a value simply wrong), not a
# documented choice: its reason starts so (docs/EXPECTATIONS.md); the report lists those as findings.
FRAMEWORK_BUG = "framework bug:"
# A divergence from the spec: what an expectations file may list and what fails a gate.
DIVERGENT = frozenset({"value-mismatch", "missing-error", "unexpected-error", "wrong-error-class",
                       "crash", "timeout", UNDECLARED})
# The spec's answer, or an admissible extension of unsupported input.
CONFORMING = frozenset({"pass", "extension"})
# No answer: the adapter has no mapping for the call.  VERDICTS = DIVERGENT | CONFORMING | NO_ANSWER.
NO_ANSWER = frozenset({"not-applicable"})
assert DIVERGENT | CONFORMING | NO_ANSWER == set(VERDICTS) and not DIVERGENT & CONFORMING

# Exit codes of `conform` (docs/CLI.md).
# the note a case record carries when the worker's tripwire saw the candidate use the suite's own code
# (adapters/borrow.py); the certificate's adapter.borrowed gathers them
BORROWED_NOTE = "borrowed from the suite: "

EXIT_OK = 0             # conformant, or only listed divergences
EXIT_DIVERGED = 1       # unlisted divergences (diff: a regression; certify: failures)
EXIT_USAGE = 2          # bad command line
EXIT_BAD_INPUT = 3      # an input file is missing, unreadable or malformed
EXIT_INCOMPATIBLE = 4   # resume or merge of runs that do not belong together
EXIT_ADAPTER = 5        # an adapter that cannot be loaded or is unavailable
EXIT_ORACLE = 6         # oracle.expect failed on a case: a bug in the spec's code
EXIT_OUTPUT = 7         # the output cannot be written: disk full, read-only, --out is a file...
EXIT_BUSY = 8           # another run is writing into the same --out
EXIT_INTERRUPTED = 130


# The two readings an "either" expectation admits: what the adapter did (docs/RESULTS.md, `reading`).
READ_RAISES = "raises"
READ_RETURNS = "returns"
READINGS = (READ_RAISES, READ_RETURNS)


# The Hypothesis settings profiles (registered by suites/profiles.py): name -> what it is for.
PROFILE_MEANINGS = {
    "dev": "25 examples, a local example database (pytest's default)",
    "ci": "100 examples, derandomized: the same cases on every run (conform's default)",
    "certify": "1000 examples, derandomized",
    "thorough": "20000 examples, a local example database",
    "large": "the dev profile without a database (suites/test_large.py)",
}
PROFILES = tuple(PROFILE_MEANINGS)


def profiles_text() -> str:
    """"dev: ...; ci: ...": what a help text says of the profiles."""
    return "; ".join(f"{name}: {meaning}" for name, meaning in PROFILE_MEANINGS.items())


# Memory layouts of a case's inputs (adapters/layouts.py builds them; docs/CASES.md, "Layouts").
CONTIGUOUS = "contiguous"   # the default: a fresh, contiguous tensor at storage offset 0
STRIDED = "strided"         # every other element of a tensor twice as long along one axis (non-contiguous)
OFFSET = "offset"           # contiguous, at a non-zero storage offset of a larger 1-D tensor
EXPANDED = "expanded"       # a zero-stride expanded view, for an input the call only reads
LAYOUTS = (STRIDED, OFFSET, EXPANDED)   # the non-default layouts, in the order runs and reports show them


# ---- adapter names ------------------------------------------------------------------------------
# A name heads a column of every table: two that print alike would read as one adapter.  Refused: control
# characters (Cc), format characters (Cf: zero-width, bidirectional overrides, soft hyphen), line and
# paragraph separators (Zl, Zp), spaces other than the plain one (Zs: no-break, ideographic...), unassigned
# and private-use code points and surrogates (Cn, Co, Cs), and a space at either end.

_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cn", "Co", "Cs"})


def name_problem(name: str) -> str:
    """'' for an adapter name a reader can tell apart from every other one; else why not (the character
    named by code point and Unicode name)."""
    import unicodedata
    if name != name.strip(" "):
        return f"adapter name {name!r} begins or ends with a space"
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if cat in _INVISIBLE or (cat == "Zs" and ch != " "):
            what = unicodedata.name(ch, "") or {"Cc": "a control character"}.get(cat, f"category {cat}")
            return (f"adapter name {name!r} holds U+{ord(ch):04X} {what} at position {i + 1}: an invisible, "
                    "bidirectional or look-alike character would print as another name")
    return ""
