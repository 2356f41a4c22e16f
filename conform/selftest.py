"""`conform selftest`: the shipped corpus (and optionally the exploration) against every mutant adapter.

Exit codes (docs/CLI.md): 0 every selected mutant is killed by the corpus, 1 some
mutant survives it, 2 usage (a --mutants glob that matches none, an unknown profile),
3 a missing or malformed corpus, 6 the oracle failed on a case, 7 the output cannot
be written.
"""
from __future__ import annotations

import sys

from contract.codec import CodecError
from contract.vocabulary import EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK, EXIT_ORACLE, EXIT_OUTPUT, EXIT_USAGE, PROFILES

SHIPPED = "suites/corpus/corpus.jsonl"


def register(subparsers) -> None:
    p = subparsers.add_parser("selftest", help="measure the suite's finding power: run the corpus against "
                                               "every mutant adapter; exit 1 if one survives")
    p.add_argument("--mutants", metavar="GLOB", default="*",
                   help="only the mutants whose name matches (e.g. 'clip.*'; default: all)")
    p.add_argument("--out", metavar="DIR", default="conform-out",
                   help="folder for selftest.json and selftest.html (default: conform-out)")
    p.add_argument("--explore", metavar="PROFILE",
                   help="also run as many fresh Hypothesis cases per op as the profile's max_examples "
                        f"({', '.join(PROFILES)}); reported, not part of the exit code")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.set_defaults(func=cmd_selftest)


def cmd_selftest(args) -> int:
    from adapters.mutants import select
    from suites.corpus import load_corpus
    from suites.selftest import OracleFailure, explore_cases, selftest, survivors

    mutants = select(args.mutants)
    if args.explore:
        if args.explore not in PROFILES:
            return _fail(EXIT_USAGE, f"--explore {args.explore!r}: profiles are {', '.join(PROFILES)}")
    if not mutants:
        return _fail(EXIT_USAGE, f"--mutants {args.mutants!r} matches no mutant (see adapters/mutants)")
    try:
        cases, digest = load_corpus(args.corpus)
    except (OSError, CodecError) as e:
        return _fail(EXIT_BAD_INPUT, str(e))
    from oracle.registry import ops as registered
    ops = [op for op in registered() if any(m.op == op for m in mutants)]
    explore = None
    if args.explore:
        print(f"conform: drawing exploration cases ({args.explore}) for {', '.join(ops)}", file=sys.stderr)
        explore = {"profile": args.explore, "cases": explore_cases(args.explore, ops)}
    try:
        report = selftest(mutants, cases, corpus={"path": args.corpus or SHIPPED, "hash": digest},
                          explore=explore, progress=_progress)
    except OracleFailure as e:
        return _fail(EXIT_ORACLE, str(e))
    from reports.selftest import write_selftest
    _print(report)
    try:
        paths = write_selftest(report, args.out)
    except OSError as e:
        return _fail(EXIT_OUTPUT, f"cannot write into {args.out}: {e.strerror or e}")
    print(f"selftest: {paths['selftest_json']}, {paths['selftest_html']}")
    return EXIT_DIVERGED if survivors(report) else EXIT_OK


def _print(report) -> None:
    for op, o in report["ops"].items():
        line = f"{op}: {o['killed']}/{o['mutants']} mutants killed by {o['cases']} corpus cases"
        if "killed_by_explore" in o:
            line += f", {o['killed_by_explore']} by the exploration"
        print(line)
        for name in o["survived"]:
            print(f"  survives: {name}")
        for name in o["fragile"]:
            print(f"  fragile (killed by fewer than {report['fragile_below']} cases): {name}")
    t = report["totals"]
    print(f"{t['killed']} of {t['mutants']} mutants killed, {t['survived']} survive, {t['fragile']} fragile")


def _progress(done, total) -> None:
    if done == total or done % 10 == 0:
        print(f"conform: {done}/{total} mutants", file=sys.stderr)


def _fail(code, message) -> int:
    print(f"conform: error: {message}", file=sys.stderr)
    return code
