"""Expected divergences per adapter: `suites/expectations/<adapter>.txt`, one `<glob> :: <reason>` per line.

The glob (fnmatch, case-sensitive) matches a verdict's key
`{op}/{verdict}/{sorted clauses joined by ','}/{sorted input dtypes joined by ','}/{sorted input ranks as name:Nd joined by ','}/{case_id}`.  Blank lines and
lines starting with '#' are ignored; a line without a reason is an error.

A line may also name what the framework said: `<glob> ~ <regex> :: <reason>`.
Then the regex (Python `re.search`) must also find the verdict's evidence: the
outcome summary, the exception message and the captured stderr.  That keys a
divergence on its cause where the key alone cannot tell it (a pypto error code
for a bound broadcast along two axes, say).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fnmatch import translate

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expectations")


class ExpectationsError(ValueError):
    """A malformed expectations file; the message names file and line."""


@dataclass
class Pattern:
    glob: str
    reason: str
    path: str
    line: int
    regex: object = None
    says: object = None         # compiled `~ <regex>`: must be found in the evidence
    hits: int = 0

    def where(self) -> str:
        return f"{self.path}:{self.line}"


class Expectations:
    def __init__(self, patterns=()):
        self.patterns = list(patterns)

    @classmethod
    def load(cls, path: str) -> "Expectations":
        if not os.path.exists(path):
            return cls()
        out = []
        with open(path, encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                glob, sep, reason = line.partition(" :: ")
                if not sep or not reason.strip() or not glob.strip():
                    raise ExpectationsError(f"{path}:{n}: expected '<glob> :: <reason>', got {line[:120]!r}")
                glob, _, says = glob.partition(" ~ ")
                try:
                    says = re.compile(says.strip()) if says.strip() else None
                except re.error as e:
                    raise ExpectationsError(f"{path}:{n}: bad regex after '~': {e}") from None
                # fnmatch's translation compiled without IGNORECASE: case-sensitive on every platform
                out.append(Pattern(glob.strip(), reason.strip(), path, n, re.compile(translate(glob.strip())), says))
        return cls(out)

    @classmethod
    def for_adapter(cls, adapter: str, directory: str = None) -> "Expectations":
        return cls.load(os.path.join(directory or DEFAULT_DIR, f"{adapter}.txt"))

    def match(self, key: str, evidence: str = ""):
        """The reason of the first pattern matching `key` (and `evidence`, where it says `~`), or None;
        counts the hit."""
        for p in self.patterns:
            if p.regex.match(key) and (p.says is None or p.says.search(evidence)):
                p.hits += 1
                return p.reason
        return None

    def unmatched(self) -> list:
        return [p for p in self.patterns if not p.hits]

