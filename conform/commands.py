"""`conform report | diff | merge`: the command glue over the reports layer, which itself only reads results files.

conform/cli.py calls register(subparsers); each subcommand sets `func`, which
takes the parsed args and returns the exit code.  `python -m conform.commands`
runs the same commands without the rest of the CLI.

Exit codes (documented in docs/SUMMARY.md):
  0  done
  1  `diff`: a regression, or coverage of the base lost (an adapter or cases missing from the new run)
  2  usage error (argparse)
  3  an input file is missing, unreadable or malformed (message names file and line)
  4  `diff`: runs of different corpora or suite versions; `merge`: those, one adapter under two versions,
     or an incomplete shard set
  7  an output path that exists and is not a regular file (contract/outputfile.py): refused, left as it was
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contract.outputfile import NotRegularFile
from contract.vocabulary import EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_INCOMPATIBLE, EXIT_OK, EXIT_OUTPUT



def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="render results files into report.html and summary.json")
    p.add_argument("results", nargs="+", help="results.jsonl files (one run, or shards of one)")
    p.add_argument("--out", required=True, help="folder for report.html and summary.json")
    p.set_defaults(func=cmd_report)

    p = subparsers.add_parser("diff", help="compare two runs; exit 1 when something regressed or coverage was lost")
    p.add_argument("base", help="results.jsonl of the reference run")
    p.add_argument("new", help="results.jsonl of the run under review")
    p.add_argument("--out", required=True, help="folder for diff.txt and diff.html")
    p.add_argument("--allow-lost-coverage", action="store_true",
                   help="accept adapters or cases missing from NEW, and runs of another corpus or suite version")
    p.set_defaults(func=cmd_diff)

    p = subparsers.add_parser("merge", help="join results of shards or workers into one results file")
    p.add_argument("results", nargs="+", help="results.jsonl files of the same corpus and suite version")
    p.add_argument("--out", required=True, help="folder for the merged results.jsonl (or a .jsonl path)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="write the merge of shards that do not cover the corpus (its end record says complete: false)")
    p.set_defaults(func=cmd_merge)


def _input_error(e) -> int:
    print(f"conform: error: {e}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _output_error(e) -> int:
    print(f"conform: error: {e.strerror}", file=sys.stderr)
    return EXIT_OUTPUT


def _missing(paths):
    for p in paths:
        if Path(p).is_dir():
            return f"{p}: is a directory, not a results file"
        if not Path(p).is_file():
            return f"{p}: no such results file"
    return ""


def cmd_report(args) -> int:
    from reports import model as M
    from reports.render import write_report
    if (msg := _missing(args.results)):
        return _input_error(msg)
    try:
        r = write_report(args.results, args.out)
    except NotRegularFile as e:
        return _output_error(e)
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        return _input_error(e)
    print(f"{r['records']} records -> {r['report_html']}, {r['summary_json']}")
    _print_conflicts(r["summary"]["run"]["duplicate_conflicts"])
    return EXIT_OK


def cmd_diff(args) -> int:
    from reports import model as M
    from reports.diff import write_diff
    if (msg := _missing([args.base, args.new])):
        return _input_error(msg)
    try:
        r = write_diff(args.base, args.new, args.out)
    except NotRegularFile as e:
        return _output_error(e)
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        return _input_error(e)
    from reports.diff import coverage_problems, identity_problems
    for name, d in r["adapters"].items():
        print(f"{name}: {d.counts['new_failures']} new failures, {d.counts['fixed']} fixed, "
              f"{d.counts['changed_verdicts']} changed verdicts, {d.counts['changed_messages']} changed messages")
    print(f"{r['regressions']} regression(s); details in {Path(args.out) / 'diff.txt'} and diff.html")
    differ, lost = identity_problems(r), coverage_problems(r)
    allowed = " (allowed by --allow-lost-coverage)" if args.allow_lost_coverage else ""
    for line in differ + lost:
        print(f"conform: {'warning' if allowed else 'error'}: {line}{allowed}", file=sys.stderr)
    if (differ or lost) and not allowed:
        print("conform: the new run does not cover what the base covered; "
              "--allow-lost-coverage accepts that", file=sys.stderr)
    if differ and not allowed:
        return EXIT_INCOMPATIBLE
    if r["regressions"] or (lost and not allowed):
        return EXIT_DIVERGED
    return EXIT_OK


def cmd_merge(args) -> int:
    from reports import model as M
    from reports.merge import MergeError, merge
    if (msg := _missing(args.results)):
        return _input_error(msg)
    out = Path(args.out)
    out = out if out.suffix == ".jsonl" else out / "results.jsonl"
    try:
        r = merge(args.results, out, allow_incomplete=args.allow_incomplete)
    except MergeError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return EXIT_INCOMPATIBLE
    except NotRegularFile as e:
        return _output_error(e)
    except (*M.INPUT_ERRORS, OSError, UnicodeDecodeError) as e:
        return _input_error(e)
    print(f"{r['records']} records from {len(args.results)} files -> {r['out']} "
          f"({r['duplicates']} duplicates dropped)")
    for line in r["incomplete"]:
        print(f"conform: warning: incomplete (allowed by --allow-incomplete): {line}", file=sys.stderr)
    _print_conflicts(r["conflicts"])
    return EXIT_OK


def _print_conflicts(conflicts):
    for c in conflicts:
        print(f"warning: {c['adapter']} case {c['case_id']}: kept {c['kept']}, dropped {c['dropped']} "
              f"from {c['file']}", file=sys.stderr)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="conform")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
