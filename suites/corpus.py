"""The frozen corpus: doc examples + error cases + a derandomized draw from every strategy family.

Every adapter runs the same cases from this file, so results compare case by
case across adapters and runs; its hash goes into every report.  The build is
deterministic (derandomized Hypothesis, stable NumPy legacy RNG, sorted JSON,
no timestamps), so `python -m suites.corpus build` run twice gives the same
bytes; a test rebuilds it to catch a stale shipped file.

Format (docs/CASES.md): JSON lines, UTF-8, at most MAX_LINE bytes a line.
Line 1 is the header {"record": "corpus", "schema": 1, "suite_version",
"cases": N, ...}; each further line is one Case.to_json(), ids unique.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from contract.case import Case
from contract.codec import CodecError, short
from contract.inputfile import InputFileError, open_input, parse_json, read_lines
from contract.outputfile import refuse_non_regular
from contract.vocabulary import SUITE_VERSION

SCHEMA = 1
MAX_LINE = 4 << 20          # bytes in one line (one case); docs/CASES.md
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
DEFAULT_PATH = CORPUS_DIR / "corpus.jsonl"
HASH_NAME = "corpus.sha256"
PER_FAMILY = 32      # cases drawn per family; a strategy module's CORPUS_DRAWS gives its wide families more


@contextmanager
def _without_local_constants():
    """Hypothesis mixes literals of whatever local modules are imported at the time into its draws
    (providers._get_local_constants), so one seed would give other cases in another process or after
    any edit of any module.  The corpus must depend on the strategies alone: draw with that pool empty.
    """
    try:
        from hypothesis.internal.conjecture import providers
        saved, empty, cache = providers._get_local_constants, providers.Constants(), providers.CONSTANTS_CACHE
    except (ImportError, AttributeError):    # a Hypothesis without the pool; the stale test would notice
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        cache.cache.clear()


def draw_examples(strategy, n: int) -> list:
    """The first n examples derandomized Hypothesis draws from `strategy` (same list on every call)."""
    with _without_local_constants():
        return _draw(strategy, n)


def _draw(strategy, n: int) -> list:
    # Hypothesis derives a derandomized draw's seed from this function's source (collect's, decorators
    # included): change a character here and every generated case of the corpus changes with it.
    from hypothesis import HealthCheck, Phase, given, settings

    out = []

    @settings(settings.get_profile("default"), derandomize=True, max_examples=n, database=None,
              phases=[Phase.generate], deadline=None, suppress_health_check=list(HealthCheck),
              print_blob=False)
    @given(strategy)
    def collect(case):
        out.append(case)

    collect()
    return out


def draw_seeded(strategy, n: int, seed: int) -> list:
    """Up to n examples Hypothesis draws from `strategy` under `seed` (conform verify's challenge: a draw the
    corpus's derandomized one does not repeat, and that the same seed draws again)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    out = []

    @with_seed(seed)
    @settings(settings.get_profile("default"), max_examples=n, database=None, phases=[Phase.generate],
              deadline=None, suppress_health_check=list(HealthCheck), print_blob=False)
    @given(strategy)
    def collect(case):
        out.append(case)

    with _without_local_constants():
        collect()
    return out


# The builders import the case makers when they run: reading a corpus needs neither the oracle nor Hypothesis.

def generated_cases() -> list:
    from . import strategies
    out = []
    for op in strategies.ops():
        for name, strategy in strategies.families(op).items():
            out.extend(draw_examples(strategy, strategies.corpus_draws(op, name, PER_FAMILY)))
    return out


def doc_example_cases() -> list:
    from .strategies import all_doc_examples
    return [case for case, _outputs in all_doc_examples()]


def error_case_list() -> list:
    from .strategies import all_error_cases
    return [e.case for e in all_error_cases()]


def boundary_case_list() -> list:
    from .strategies import all_boundary_cases
    return all_boundary_cases()


def build_corpus() -> list:
    """Doc examples, error cases, boundary cases, then generated cases; a case id appears once (first kept)."""
    seen, out = set(), []
    for case in doc_example_cases() + error_case_list() + boundary_case_list() + generated_cases():
        if case.id not in seen:
            seen.add(case.id)
            out.append(case)
    return out


def _hypothesis_version() -> str:
    import hypothesis
    return hypothesis.__version__


def corpus_bytes(cases) -> bytes:
    header = {"record": "corpus", "schema": SCHEMA, "suite_version": SUITE_VERSION, "cases": len(cases),
              "generator": {"hypothesis": _hypothesis_version(), "per_family": PER_FAMILY}}
    lines = [json.dumps(header, sort_keys=True, separators=(",", ":"))]
    lines += [json.dumps(c.to_json(), sort_keys=True, separators=(",", ":")) for c in cases]
    return ("\n".join(lines) + "\n").encode("utf-8")


def hash_path(path) -> Path:
    return Path(path).parent / HASH_NAME


def write_corpus(path=DEFAULT_PATH, cases=None) -> str:
    """Write the corpus and corpus.sha256 next to it (atomically); returns "sha256:<hex>"."""
    path = Path(path)
    data = corpus_bytes(build_corpus() if cases is None else cases)
    digest = hashlib.sha256(data).hexdigest()
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path, data)
    _atomic_write(hash_path(path), f"{digest}  {path.name}\n".encode())
    return f"sha256:{digest}"


def _atomic_write(path: Path, data: bytes) -> None:
    refuse_non_regular(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)            # mkstemp makes 0600; the file is shipped and read by others
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def corpus_hash(path=DEFAULT_PATH) -> str:
    """"sha256:<hex>" of the file's bytes, read in chunks (a hostile corpus may be any size)."""
    h = hashlib.sha256()
    with open_input(path, "corpus file", CorpusError) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def recorded_hash(path=DEFAULT_PATH) -> str:
    """The hash corpus.sha256 records for the corpus at `path`."""
    with open_input(hash_path(path), "hash file", CorpusError) as f:
        text = f.read(4096).split()
    if not text:
        raise CorpusError(hash_path(path), 1, "empty")
    return "sha256:" + text[0].decode("ascii", "replace")


class CorpusError(InputFileError, CodecError):
    """A corpus file refused: names the file, the line and the reason (an InputFileError, exit 3)."""


def iter_corpus(path=DEFAULT_PATH) -> Iterator[Case]:
    """Stream the cases of a corpus file; a malformed one raises CorpusError naming file:line.

    Refused: a line over MAX_LINE bytes, bytes that are not UTF-8, JSON that is not strict (see
    contract/inputfile.py), a field of the wrong type, an array whose declared shape is over the
    limit, an id that is not the content's hash, an id already seen, a case count other than the
    header's.  Memory holds one line and the ids seen.
    """
    path = Path(path)
    header, lines_of = None, {}
    with open_input(path, "corpus file", CorpusError) as f:
        for lineno, raw in read_lines(f, path, MAX_LINE, CorpusError):
            obj = parse_json(raw, path, lineno, CorpusError)
            if header is None:
                header = _check_header(obj, path, lineno)
                continue
            try:
                case = Case.from_json(obj)
                _check_op(case)
            except CodecError as e:
                raise CorpusError(path, lineno, str(e)) from None
            first = lines_of.setdefault(case.id, lineno)
            if first != lineno:
                raise CorpusError(path, lineno, f"case id {case.id} already appears at line {first}")
            yield case
    if header is None:
        raise CorpusError(path, 1, "empty file, no corpus header")
    if len(lines_of) != header["cases"]:
        raise CorpusError(path, 0, f"header says {header['cases']} cases, the file has {len(lines_of)} (truncated?)")


def _check_op(case) -> None:
    # A case enters the suite here: its op must be one the oracle registers (contract.case knows no ops).
    from oracle.registry import SPECS
    if case.op not in SPECS:
        raise CodecError(f"unknown op {short(case.op, 40)}; ops are {', '.join(SPECS)}")


# The header's fields and their JSON types; a field of another type is refused.
_HEADER_TYPES = {"suite_version": str, "generator": dict}


def _check_header(obj, path, lineno) -> dict:
    if not isinstance(obj, dict) or obj.get("record") != "corpus":
        raise CorpusError(path, lineno, 'the first line must be the header {"record": "corpus", ...}')
    if obj.get("schema") != SCHEMA or type(obj.get("schema")) is not int:
        raise CorpusError(path, lineno, f"corpus schema {short(obj.get('schema'), 40)}; this suite reads schema {SCHEMA}")
    if type(obj.get("cases")) is not int or obj["cases"] < 0:
        raise CorpusError(path, lineno, "header 'cases' must be a non-negative int")
    for name, typ in _HEADER_TYPES.items():
        if name in obj and not isinstance(obj[name], typ):
            raise CorpusError(path, lineno, f"header {name!r} must be {typ.__name__}; got {short(obj[name], 40)}")
    return obj


def load_corpus(path=None) -> tuple:
    """(list of Cases, "sha256:<hex>" of the file bytes); default: the shipped corpus."""
    path = Path(path) if path is not None else DEFAULT_PATH
    if not path.exists():
        raise CorpusError(path, 0, "no corpus here" + ("; build it: python -m suites.corpus build"
                                                       if path == DEFAULT_PATH else ""))
    return list(iter_corpus(path)), corpus_hash(path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m suites.corpus", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="rebuild the corpus and corpus.sha256")
    b.add_argument("--out", default=str(DEFAULT_PATH), help=f"corpus path (default {DEFAULT_PATH})")
    c = sub.add_parser("check", help="load a corpus and compare it with its corpus.sha256")
    c.add_argument("path", nargs="?", default=str(DEFAULT_PATH))
    args = p.parse_args(argv)
    if args.cmd == "build":
        cases = build_corpus()
        digest = write_corpus(args.out, cases)
        size = Path(args.out).stat().st_size
        print(f"{args.out}: {len(cases)} cases, {size / 1e6:.2f} MB, {digest}")
        return 0
    try:
        cases, digest = load_corpus(args.path)
        want = recorded_hash(args.path)
    except (InputFileError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if digest != want:
        print(f"error: {args.path} hashes to {digest}, {HASH_NAME} records {want}", file=sys.stderr)
        return 1
    print(f"{args.path}: {len(cases)} cases, {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
