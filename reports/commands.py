"""`conform report | diff | merge | certify`: argparse wiring and exit codes.

conform/cli.py calls register(subparsers); each subcommand sets `func`, which
takes the parsed args and returns the exit code.  `python -m reports.commands`
runs the same commands without the rest of the CLI.

Exit codes (documented in docs/SUMMARY.md and docs/CERTIFY.md):
  0  done
  1  `diff`: at least one regression; `certify`: the run recorded failures
  2  usage error (argparse)
  3  an input file is missing, unreadable or malformed (message names file and line)
  4  `merge`: inputs from different corpora or suite versions
  5  `certify`: the adapter cannot be loaded or is unavailable
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contract.vocabulary import EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_INCOMPATIBLE, EXIT_OK, EXIT_USAGE  # noqa: F401



def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="render results files into report.html and summary.json")
    p.add_argument("results", nargs="+", help="results.jsonl files (one run, or shards of one)")
    p.add_argument("--out", required=True, help="folder for report.html and summary.json")
    p.set_defaults(func=cmd_report)

    p = subparsers.add_parser("diff", help="compare two runs; exit 1 when something regressed")
    p.add_argument("base", help="results.jsonl of the reference run")
    p.add_argument("new", help="results.jsonl of the run under review")
    p.add_argument("--out", required=True, help="folder for diff.txt and diff.html")
    p.set_defaults(func=cmd_diff)

    p = subparsers.add_parser("merge", help="join results of shards or workers into one results file")
    p.add_argument("results", nargs="+", help="results.jsonl files of the same corpus and suite version")
    p.add_argument("--out", required=True, help="folder for the merged results.jsonl (or a .jsonl path)")
    p.set_defaults(func=cmd_merge)

    p = subparsers.add_parser("certify", help="run the shipped corpus on one adapter; write certificate.json + report")
    p.add_argument("--adapter", required=True, help="adapter name, entry point name, or package.module:Class")
    p.add_argument("--out", required=True, help="output folder (results.jsonl, report.html, certificate.json)")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.add_argument("--case-timeout", type=float, metavar="S", help="seconds per case before the worker is killed")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted certification in --out")
    p.add_argument("--in-process", action="store_true", help="run the adapter in this process (debugging only)")
    p.add_argument("--python", metavar="PATH", help="run the adapter's worker under this interpreter "
                   "(default: conform.toml, pyproject.toml or setup.sh's environment for it: docs/CLI.md)")
    p.set_defaults(func=cmd_certify)


def _input_error(e) -> int:
    print(f"conform: error: {e}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _missing(paths):
    for p in paths:
        if not Path(p).is_file():
            return f"{p}: no such results file"
    return ""


def cmd_report(args) -> int:
    from . import model as M
    from .render import write_report
    if (msg := _missing(args.results)):
        return _input_error(msg)
    try:
        r = write_report(args.results, args.out)
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        return _input_error(e)
    print(f"{r['records']} records -> {r['report_html']}, {r['summary_json']}")
    return EXIT_OK


def cmd_diff(args) -> int:
    from . import model as M
    from .diff import write_diff
    if (msg := _missing([args.base, args.new])):
        return _input_error(msg)
    try:
        r = write_diff(args.base, args.new, args.out)
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        return _input_error(e)
    for name, d in r["adapters"].items():
        print(f"{name}: {d.counts['new_failures']} new failures, {d.counts['fixed']} fixed, "
              f"{d.counts['changed_verdicts']} changed verdicts, {d.counts['changed_messages']} changed messages")
    print(f"{r['regressions']} regression(s); details in {Path(args.out) / 'diff.txt'} and diff.html")
    return EXIT_DIVERGED if r["regressions"] else EXIT_OK


def cmd_merge(args) -> int:
    from . import model as M
    from .merge import MergeError, merge
    if (msg := _missing(args.results)):
        return _input_error(msg)
    out = Path(args.out)
    out = out if out.suffix == ".jsonl" else out / "results.jsonl"
    try:
        r = merge(args.results, out)
    except MergeError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_INCOMPATIBLE
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        return _input_error(e)
    print(f"{r['records']} records from {len(args.results)} files -> {r['out']} "
          f"({r['duplicates']} duplicates dropped)")
    for c in r["conflicts"]:
        print(f"warning: {c['adapter']} case {c['case_id']}: kept {c['kept']}, dropped {c['dropped']} "
              f"from {c['file']}", file=sys.stderr)
    return EXIT_OK


def cmd_certify(args) -> int:
    from . import model as M
    from .certify import CertifyError, certify
    try:
        cert = certify(args.adapter, args.out, corpus=args.corpus, in_process=args.in_process,
                       case_timeout=args.case_timeout, resume=args.resume, jobs=args.jobs, python=args.python)
    except CertifyError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    except (*M.INPUT_ERRORS, OSError) as e:
        return _input_error(e)
    totals = cert["totals"]
    failing = sum(totals.get(v, 0) for v in M.DIVERGENT)
    print(f"{cert['adapter']['name']} {cert['adapter']['version']}: {sum(totals.values())} cases, "
          f"{failing} failing -> {Path(args.out) / 'certificate.json'}")
    return EXIT_DIVERGED if failing else EXIT_OK


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="conform")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
