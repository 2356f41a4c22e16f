"""`conform expectations check FILE RESULTS`: which lines of an expectations file match which cases of a results file.

Matching is the run's own (suites.known_divergences.KnownDivergences.match over suites.judge.record_key and
record_evidence): the first matching line wins, and a line with `~ regex` must also find the evidence.
It answers the questions a vendor writing a file has (docs/EXPECTATIONS.md): which divergences does each
line list, which line lists nothing, which divergences stay unlisted -- without a re-run.

Exit codes: 0 every divergence is listed; 1 some stay unlisted; 2 usage; 3 a missing or malformed file.
"""
from __future__ import annotations

import sys
from collections import defaultdict

from contract.vocabulary import DIVERGENT, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, EXIT_USAGE

SHOWN = 5       # case ids printed per line, and unlisted divergences printed in full


def register(subparsers):
    p = subparsers.add_parser("expectations", help="check an expectations file against a results file")
    sub = p.add_subparsers(dest="expectations_command", required=True)
    results_command(sub, "check", "which lines match which cases, which match nothing, which divergences stay "
                    "unlisted", "a results.jsonl (conform run or certify), or a history store (conform history "
                    "add): then per release, and which lines no release needs any more", "checked", cmd_check,
                    file_help="the expectations file (docs/EXPECTATIONS.md)")
    return sub      # `expectations draft` registers itself beside (conform/cli.py)


def results_command(sub, name, help, results_help, what, func, file_help=None):
    """`conform expectations NAME [FILE] RESULTS [--adapter NAME]`: the parser, for more options."""
    p = sub.add_parser(name, help=help)
    if file_help:
        p.add_argument("file", metavar="FILE", help=file_help)
    p.add_argument("results", metavar="RESULTS", help=results_help)
    p.add_argument("--adapter", metavar="NAME", help=f"the adapter whose records are {what} (needed when the "
                   "results hold several)")
    p.set_defaults(func=func)
    return p


def check(path, results, adapter=None) -> dict:
    """{"adapter", "lines": [(Pattern, [case ids])], "unmatched": [Pattern], "unlisted": [(key, record)],
    "divergent": n}; KnownDivergencesError / ResultsError for damage, ValueError for an adapter not to be chosen."""
    from contract.results import iter_records
    from suites.known_divergences import KnownDivergences
    from suites.judge import record_evidence, record_key
    from .history_store import release_of
    known = KnownDivergences.load(path) if path else KnownDivergences()
    recs = [r for r in iter_records(str(results)) if r["record"] == "case"]
    names = sorted({r["adapter"] for r in recs})
    if adapter is None:
        if len(names) > 1:
            raise ValueError(f"{results} holds adapters {', '.join(names)}: name one with --adapter")
        adapter = names[0] if names else ""
    elif adapter not in names:
        raise ValueError(f"{results} has no records of adapter {adapter!r} (it has {', '.join(names) or 'none'})")
    hits, unlisted, seen, divergent = defaultdict(list), [], set(), 0
    for rec in recs:
        if rec["adapter"] != adapter or rec["verdict"] not in DIVERGENT or rec["case_id"] in seen:
            continue
        seen.add(rec["case_id"])        # a resumed run may repeat a record: its first one counts, as for the run
        divergent += 1
        key = record_key(rec)
        before = [p.hits for p in known.patterns]
        if known.match(key, record_evidence(rec), release=release_of(rec.get("adapter_version"))) is None:
            unlisted.append((key, rec))
            continue
        line = next(p for p, b in zip(known.patterns, before) if p.hits != b)
        hits[id(line)].append(rec["case_id"])
    return {"adapter": adapter, "lines": [(p, hits[id(p)]) for p in known.patterns if p.hits],
            "unmatched": known.unmatched(), "unlisted": unlisted, "divergent": divergent}


def answer(compute, path, results, adapter):
    """compute(path, results, adapter), or the exit code after one message: 3 for a missing, a directory or
    a damaged file (path may be None: no file), 2 for an --adapter the results do not hold."""
    from pathlib import Path

    from contract.inputfile import InputFileError
    from contract.results import ResultsError
    for p, what in ((path, "expectations file"), (results, "results file")):
        if p is not None and not Path(p).is_file():
            print(f"conform: error: {p}: no such {what}" + (" (a directory)" if Path(p).is_dir() else ""),
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        return compute(path, results, adapter)
    except ValueError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_USAGE if adapter or "--adapter" in str(e) else EXIT_BAD_INPUT
    except (InputFileError, ResultsError, OSError, UnicodeDecodeError, KeyError, TypeError) as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT


def cmd_check(args) -> int:
    from .history_check import is_history, main as check_history
    if is_history(args.results):        # a history store (conform history add): the check over its releases
        return check_history(args.file, args.results, args.adapter)
    r = answer(check, args.file, args.results, args.adapter)
    if isinstance(r, int):
        return r
    print(f"{args.file} against {args.results} (adapter {r['adapter']}): {r['divergent']} divergences, "
          f"{r['divergent'] - len(r['unlisted'])} listed, {len(r['unlisted'])} unlisted")
    for p, ids in r["lines"]:
        print(f"matches {len(ids)}: {p.where()} {p.glob}  e.g. {', '.join(ids[:SHOWN])}")
    for p in r["unmatched"]:
        print(f"matches nothing: {p.where()} {p.glob}")
    for key, rec in r["unlisted"][:SHOWN]:
        print(f"unlisted: {key}")
    if len(r["unlisted"]) > SHOWN:
        print(f"unlisted: … and {len(r['unlisted']) - SHOWN} more")
    return EXIT_DIVERGED if r["unlisted"] else EXIT_OK
