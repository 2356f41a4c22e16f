"""The words every layer shares, defined once: verdicts and their sets, exit codes, the suite version."""
from __future__ import annotations

# The suite's version: pyproject.toml reads it from here, results and corpus headers record it.
SUITE_VERSION = "0.1.0"

VERDICTS = ("pass", "value-mismatch", "missing-error", "unexpected-error", "wrong-error-class",
            "crash", "timeout", "undeclared-not-applicable", "extension", "not-applicable")
# Not applicable inside an op the adapter claims, where none of its declared exclusions says so: an answer
# withheld, which counts as failing (else answering "not applicable" on exactly the failing cases passes).
UNDECLARED = "undeclared-not-applicable"
# A divergence from the spec: what an expectations file may list and what fails a gate.
DIVERGENT = frozenset({"value-mismatch", "missing-error", "unexpected-error", "wrong-error-class",
                       "crash", "timeout", UNDECLARED})
# The spec's answer, or an admissible extension of unsupported input.
CONFORMING = frozenset({"pass", "extension"})
# No answer: the adapter has no mapping for the call.  VERDICTS = DIVERGENT | CONFORMING | NO_ANSWER.
NO_ANSWER = frozenset({"not-applicable"})
assert DIVERGENT | CONFORMING | NO_ANSWER == set(VERDICTS) and not DIVERGENT & CONFORMING

# Exit codes of `conform` (docs/CLI.md).
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
