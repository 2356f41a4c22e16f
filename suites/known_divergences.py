"""The known divergences of each adapter, read from its expectations file `suites/expectations/<adapter>.txt`
(format: docs/EXPECTATIONS.md); the oracle's answer for a case is the other word, contract.expectation.Expectation.

Which file an adapter gets is the harness's choice (chosen_file), never the adapter's: a shipped
adapter (a BUILTIN target of adapters/registry.py, by name or by its module:Class) gets its shipped file;
any other gets the file named for it with `--expectations FILE` (or `SPEC=FILE`), else none.  The name
a candidate gives itself selects nothing, so it cannot borrow another adapter's lines or a file it wrote.

One `<glob> :: <reason>` per line.  The glob (fnmatch, case-sensitive) matches a verdict's key
`{op}/{verdict}/{sorted clauses joined by ','}/{sorted input dtypes joined by ','}/{sorted input ranks as name:Nd joined by ','}/{case_id}`.  Blank lines and
lines starting with '#' are ignored; a line without a reason is an error.

A line may say which releases of the framework it holds for: `<glob> @ <releases> [~ <regex>] :: <reason>`,
<releases> as adapters.releases.in_range reads it (`..2.0.x`, `2.1.3..`, `1.26.4..2.2.6`, `1.26.4, 2.0.x`).
Such a line lists a divergence only of a release it names (the run's adapter version); a line without `@`
holds for every release, as before.

A line may also name what the framework said: `<glob> ~ <regex> :: <reason>`.
Then the regex (Python `re.search`) must also find the verdict's evidence: the
outcome summary, the exception message and the captured stderr, of which the
first EVIDENCE_CAP characters are searched.  That keys a divergence on its cause
where the key alone cannot tell it (a pypto error code for a bound broadcast
along two axes, say).

The regex is checked when the file is loaded, so that no search can backtrack
catastrophically: quantifiers apply to one character only, there are no
backreferences or lookarounds, at most one unbounded quantifier, and at most
MAX_WAYS ways through the rest (regex_problem).  A search then costs at most
about MAX_WAYS * EVIDENCE_CAP**2 steps, well under a second.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fnmatch import translate

from contract.inputfile import InputFileError, open_input, read_lines, text

try:
    from re import _parser as _sre          # Python 3.11+
except ImportError:                         # pragma: no cover - Python 3.10
    import sre_parse as _sre

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expectations")
MAX_LINE = 4096             # bytes in one line of an expectations file
EVIDENCE_CAP = 4096         # characters of a verdict's evidence a `~ regex` is searched in
MAX_WAYS = 8                # product of a regex's alternatives and bounded quantifier lengths
# The reason `conform expectations draft` writes on each line it proposes: the vendor replaces it with the real
# one, and `conform certify` refuses a file where it is left (docs/EXPECTATIONS.md, "Drafting a file").
DRAFT_REASON = "TODO: say why"


class KnownDivergencesError(InputFileError):
    """A malformed expectations file: KnownDivergencesError(path, line, reason)."""


@dataclass
class Pattern:
    glob: str
    reason: str
    path: str
    line: int
    regex: object = None
    says: object = None         # compiled `~ <regex>`: must be found in the evidence
    hits: int = 0
    releases: str = ""          # `@ <releases>`: the releases it holds for ('' every one)

    def holds_for(self, release: str) -> bool:
        from adapters.releases import in_range
        return not self.releases or in_range(release, self.releases)

    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def text(self) -> str:
        """The line, spaced as the format writes it: `<glob> [~ <regex>] :: <reason>`."""
        return (f"{self.glob}{' @ ' + self.releases if self.releases else ''}"
                f"{' ~ ' + self.says.pattern if self.says else ''} :: {self.reason}")


class KnownDivergences:
    def __init__(self, patterns=()):
        self.patterns = list(patterns)

    @classmethod
    def load(cls, path: str) -> "KnownDivergences":
        """The patterns of one file (none when it does not exist); damage raises KnownDivergencesError."""
        if not os.path.lexists(path):
            return cls()
        out = []
        with open_input(path, "expectations file", KnownDivergencesError) as f:
            for n, raw in read_lines(f, path, MAX_LINE, KnownDivergencesError):
                line = text(raw, path, n, KnownDivergencesError).strip()
                if not line or line.startswith("#"):
                    continue
                out.append(_parse_line(line, path, n))
        return cls(out)

    def drafts(self) -> list:
        """The lines whose reason is still the draft's placeholder (DRAFT_REASON)."""
        return [p for p in self.patterns if p.reason.startswith(DRAFT_REASON)]

    @classmethod
    def from_lines(cls, lines, where: str) -> "KnownDivergences":
        """Patterns from lines given as text (an adapter's declared `excludes`), named `where:N` in messages."""
        out = []
        for n, raw in enumerate(lines, 1):
            line = str(raw).strip()
            if len(line.encode()) > MAX_LINE:
                raise KnownDivergencesError(where, n, f"line longer than {MAX_LINE} bytes")
            if line and not line.startswith("#"):
                out.append(_parse_line(line, where, n))
        return cls(out)

    @classmethod
    def for_adapter(cls, adapter: str, directory: str = None) -> "KnownDivergences":
        """The expectations of a shipped adapter by its BUILTIN name (none for any other name)."""
        if directory is not None and not os.path.isdir(directory):
            raise KnownDivergencesError(directory, 0, "not a folder of <adapter>.txt expectations files")
        return cls.load(chosen_file(adapter, directory))

    def match(self, key: str, evidence: str = "", prefix: str = "", release: str = None):
        """The reason of the first pattern matching `key` (and `evidence`, where it says `~`), or None;
        counts the hit.  `prefix` ("mode/", "construction/"): only lines whose glob starts with it, so that
        a divergence line (`*/value-mismatch/*`) never lists a finding of another kind.  `release`: the
        framework release judged; a line with `@ <releases>` holds only for a release it names."""
        evidence = evidence[:EVIDENCE_CAP]
        for p in self.patterns:
            if prefix and not p.glob.startswith(prefix):
                continue
            if p.releases and not p.holds_for(release or ""):
                continue
            if p.regex.match(key) and (p.says is None or p.says.search(evidence)):
                p.hits += 1
                return p.reason
        return None

    def unmatched(self) -> list:
        return [p for p in self.patterns if not p.hits]


def chosen_file(target: str, directory: str = None, files: dict = None) -> str:
    """The expectations file of the adapter `target` ('' for none): `files[target]` (--expectations
    [SPEC=]FILE), else a shipped adapter's `<directory>/<builtin name>.txt` (default: the shipped
    folder), else none.  A construction variant (SPEC@WAY) shares its candidate's file."""
    from adapters.registry import shipped_name, split_construction
    base = split_construction(target)[0]
    for key in (target, base):
        if files and key in files:
            return files[key]
    name = shipped_name(base)
    return os.path.join(directory or DEFAULT_DIR, file_name(name)) if name else ""


def file_record(path: str):
    """{"file", "sha256", "patterns"} of a chosen expectations file, for the results header and the
    certificate; None when the adapter has none (or its shipped file does not exist)."""
    from contract.results import file_sha256
    if not path or not os.path.isfile(path):
        return None
    return {"file": os.path.abspath(path), "sha256": file_sha256(path), "patterns": len(KnownDivergences.load(path).patterns)}


def parse_option(values, targets) -> tuple:
    """`--expectations` values -> (folder or None, {target: file}); ValueError(message) when one cannot be used.

    Each value is `SPEC=FILE` (SPEC one of `targets`), a FILE (for the one adapter of `targets`), or a
    folder (the shipped adapters' `<name>.txt` read from it instead of suites/expectations)."""
    directory, files = None, {}
    for value in values or ():
        target, eq, path = value.partition("=")
        if not (eq and target in (targets or ())):
            target, path = None, value
        if not os.path.exists(path):
            raise ValueError(f"--expectations {path}: does not exist")
        if os.path.isdir(path):
            if target is not None or directory is not None:
                raise ValueError(f"--expectations {value}: a folder is given once, alone (SPEC=FILE names a file)")
            directory = path
            continue
        if target is None:
            if len(targets or ()) != 1:
                raise ValueError(f"--expectations {path}: a file belongs to one adapter; with several "
                                 f"(or none named), write --expectations SPEC={path}")
            target = targets[0]
        if target in files:
            raise ValueError(f"--expectations: {target} is given two files")
        files[target] = path
    return directory, files


def file_name(adapter: str) -> str:
    """An adapter's expectations file name: `<name>.txt`, a ':' (array-api:numpy) as '_', since a colon is no
    file name on Windows and separates paths in a PATH-like list."""
    return adapter.replace(":", "_") + ".txt"


def check_dir(directory: str) -> dict:
    """Load every `<adapter>.txt` of a folder: {adapter: KnownDivergences}; the first damage raises
    KnownDivergencesError.  For callers that must refuse a bad folder before anything runs."""
    if not os.path.isdir(directory):
        raise KnownDivergencesError(directory, 0, "not a folder of <adapter>.txt expectations files")
    return {name[:-4]: KnownDivergences.load(os.path.join(directory, name))
            for name in sorted(os.listdir(directory)) if name.endswith(".txt")}


def _parse_line(line, path, n) -> Pattern:
    glob, sep, reason = line.partition(" :: ")
    if not sep or not reason.strip() or not glob.strip():
        raise KnownDivergencesError(path, n, f"expected '<glob> :: <reason>', got {line[:120]!r}")
    glob, _, says = glob.partition(" ~ ")
    says = says.strip()
    glob, at, releases = glob.partition(" @ ")
    releases = releases.strip()
    if at:
        from adapters.releases import range_problem
        problem = range_problem(releases) if releases else "'@' names no releases"
        if problem:
            raise KnownDivergencesError(path, n, problem)
    if says:
        problem = regex_problem(says)
        if problem:
            raise KnownDivergencesError(path, n, f"regex after '~' refused: {problem}")
    # fnmatch's translation compiled without IGNORECASE: case-sensitive on every platform
    return Pattern(glob.strip(), reason.strip(), path, n, re.compile(translate(glob.strip())),
                   re.compile(says) if says else None, releases=releases)


# ---- the regex subset ----------------------------------------------------------------------

_ONE_CHAR = {"LITERAL", "NOT_LITERAL", "ANY", "IN"}
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}
_REFUSED = {"GROUPREF": "a backreference", "GROUPREF_EXISTS": "a conditional group (?(...)...)",
            "ASSERT": "a lookahead or lookbehind", "ASSERT_NOT": "a negative lookahead or lookbehind",
            "ATOMIC_GROUP": "an atomic group"}


def regex_problem(pattern: str) -> str:
    """'' when `pattern` is in the subset a search cannot backtrack catastrophically in; else why not.

    The subset: a quantifier (?, *, +, {m,n}) applies to one character, '.', a class [...] or an
    escape like \\d, never to a group; no backreferences, lookarounds, conditionals or atomic groups;
    at most one unbounded quantifier (*, +, {m,}); and at most MAX_WAYS ways through the pattern
    (each '|' adds its alternatives, each bounded quantifier multiplies by its number of lengths).
    """
    try:
        tree = _sre.parse(pattern)
    except re.error as e:
        return f"not a regular expression: {e}"
    except (RecursionError, OverflowError):
        return "nested too deeply"
    counts = {"unbounded": 0}
    try:
        ways = _ways(tree, counts)
    except _Refused as e:
        return str(e)
    if counts["unbounded"] > 1:
        return (f"{counts['unbounded']} unbounded quantifiers (*, +, {{m,}}); at most one is allowed, "
                f"since each multiplies the search's backtracking by the evidence length")
    if ways > MAX_WAYS:
        return (f"more than {MAX_WAYS} ways through the pattern (its alternatives times its bounded "
                f"quantifiers' numbers of lengths)")
    return ""


class _Refused(Exception):
    pass


def _ways(seq, counts) -> int:
    ways = 1
    for op, av in seq:
        name = str(op)
        if name in _REFUSED:
            raise _Refused(f"{_REFUSED[name]} is not allowed")
        if name in _REPEATS:
            lo, hi, item = av
            if not _one_char(item):
                raise _Refused("a quantifier on a group or on another quantifier (nested quantifiers) is not "
                               "allowed; quantify one character, '.', a class [...] or an escape like \\d")
            if hi == _sre.MAXREPEAT:
                counts["unbounded"] += 1
            else:
                ways *= hi - lo + 1
        elif name == "SUBPATTERN":
            ways *= _ways(av[-1], counts)
        elif name == "BRANCH":
            ways *= sum(_ways(alt, counts) for alt in av[1])
        elif name not in _ONE_CHAR and name != "AT":
            raise _Refused(f"{name.lower()} is not allowed")
        ways = min(ways, MAX_WAYS + 1)      # enough to refuse; keeps a hostile pattern's arithmetic small
    return ways


def _one_char(item) -> bool:
    items = list(item)
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN":     # (a|b)* parses as a group of one class
        items = list(items[0][1][-1])
    return len(items) == 1 and str(items[0][0]) in _ONE_CHAR
