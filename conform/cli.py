"""`conform`: run the corpus through adapters, list adapters; report commands plug in (reports.commands).

Exit codes (docs/CLI.md): 0 conformant or only listed divergences, 1 unlisted
divergences, 2 usage, 3 bad input file, 4 --resume of an incompatible run,
5 an adapter that cannot be loaded or is unavailable, 6 the oracle failed on
a case, 130 interrupted.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from . import runner


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("conform: interrupted", file=sys.stderr)
        return runner.EXIT_INTERRUPTED


def build_parser():
    parser = argparse.ArgumentParser(prog="conform", description="Conformance of tensor ops to their documents.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="run the corpus through adapters; write DIR/results.jsonl and the report")
    p.add_argument("--adapter", action="append", metavar="NAME|module:Class",
                   help="repeatable; default: every available adapter")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.add_argument("--out", metavar="DIR", default="conform-out", help="output folder (default: conform-out)")
    p.add_argument("--case-timeout", type=float, metavar="S",
                   help="seconds per case before the worker is killed (default: the adapter's, else 60)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes per adapter (default 1)")
    p.add_argument("--in-process", action="store_true", help="run adapters in this process (debugging)")
    p.add_argument("--profile", default="ci", choices=("dev", "ci", "certify", "thorough"),
                   help="recorded in the results header (default ci)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out (cases already recorded are skipped)")
    p.add_argument("--shard", metavar="K/N", help="run the K-th of N deterministic slices of the corpus")
    p.add_argument("--memory-mb", type=int, default=0, metavar="M", help="address-space limit per worker")
    p.add_argument("--expectations", metavar="DIR",
                   help="folder of <adapter>.txt expected divergences (default: suites/expectations)")
    p.add_argument("--no-report", action="store_true", help="write results only")
    _python_option(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("adapters", help="list adapters with availability, versions and reasons")
    _python_option(p)
    p.set_defaults(func=cmd_adapters)

    try:
        from reports.commands import register
    except ImportError:
        pass
    else:
        register(sub)
    return parser


def _python_option(p):
    p.add_argument("--python", action="append", metavar="NAME=PATH",
                   help="run adapter NAME's worker under the interpreter PATH (repeatable; "
                        "also set in conform.toml or pyproject.toml: docs/CLI.md)")


def _pythons(args):
    """{NAME: PATH} from --python, or an exit code after printing why not."""
    from adapters.environments import InterpreterError, parse_option
    try:
        return parse_option(args.python)
    except InterpreterError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code


def cmd_adapters(args) -> int:
    from adapters.environments import InterpreterError, available_adapters
    pythons = _pythons(args)
    if isinstance(pythons, int):
        return pythons
    try:
        infos = available_adapters(pythons)
    except InterpreterError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    rows = [(i.name, i.version or "-", "yes" if i.available else "no", i.reason or "",
             i.spec + (f"  (python: {i.python})" if i.python else "")) for i in infos]
    widths = [max(len(r[c]) for r in rows + [("adapter", "version", "available", "", "")]) for c in range(3)]
    print(f"{'adapter':<{widths[0]}}  {'version':<{widths[1]}}  {'available':<{widths[2]}}  source / reason")
    for name, ver, ok, reason, spec in rows:
        print(f"{name:<{widths[0]}}  {ver:<{widths[1]}}  {ok:<{widths[2]}}  {spec}" + (f"  ({reason})" if reason else ""))
    return 0


def default_adapters(pythons=None) -> list:
    """Every available adapter, each asked under its own interpreter.  Raises InterpreterError for a
    config file that cannot be read, or for an adapter given --python that cannot run there."""
    from adapters.environments import InterpreterError, available_adapters
    infos = available_adapters(pythons)
    for i in infos:
        if i.name in (pythons or {}) and not i.available:
            raise InterpreterError(f"adapter {i.name!r} is not available: {i.reason}", runner.EXIT_ADAPTER)
    return [i.name for i in infos if i.available]


def cmd_run(args) -> int:
    pythons = _pythons(args)
    if isinstance(pythons, int):
        return pythons
    if args.adapter:
        specs = args.adapter
    else:
        from adapters.environments import InterpreterError
        try:
            specs = default_adapters(pythons)
        except InterpreterError as e:       # a conform.toml or pyproject.toml that cannot be read
            print(f"conform: error: {e}", file=sys.stderr)
            return e.exit_code
    if not specs:
        print("conform: error: no adapter is available (see `conform adapters`)", file=sys.stderr)
        return runner.EXIT_ADAPTER
    bar = Progress(sys.stderr)
    # SIGTERM (a CI cancel) stops like Ctrl-C: the results so far stay, --resume continues.
    old = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        result = runner.run(specs, corpus=args.corpus, out_dir=args.out, case_timeout=args.case_timeout,
                            jobs=args.jobs, in_process=args.in_process, profile=args.profile,
                            resume=args.resume, shard=args.shard, progress=bar, memory_mb=args.memory_mb,
                            expectations_dir=args.expectations, pythons=pythons)
    finally:
        signal.signal(signal.SIGTERM, old)
        bar.finish()
    if result.message:
        print(f"conform: {'error: ' if result.exit_code not in (0, 1, 130) else ''}{result.message}",
              file=sys.stderr)
    if result.exit_code in (runner.EXIT_USAGE, runner.EXIT_BAD_INPUT, runner.EXIT_INCOMPATIBLE, runner.EXIT_ADAPTER):
        return result.exit_code
    for p in result.unmatched_patterns:
        print(f"conform: note: expectation pattern matched nothing: {p}", file=sys.stderr)
    counts = ", ".join(f"{v} {n}" for v, n in sorted(result.counts.items()))
    print(f"{result.cases} results ({counts}); {result.unlisted} unlisted divergences -> {result.results_path}")
    if not args.no_report and result.exit_code != runner.EXIT_INTERRUPTED:
        report = runner.write_report_if_available(result.results_path, args.out)
        if isinstance(report, dict) and report.get("report_html"):
            print(f"report: {report['report_html']}")
        elif isinstance(report, (str, os.PathLike)):
            print(f"report: {report}")
    return result.exit_code


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class Progress:
    """A one-line progress bar on a terminal; a line per 10% elsewhere (CI logs)."""

    def __init__(self, stream, width=30):
        self.stream, self.width = stream, width
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.t0 = time.monotonic()
        self.last, self.last_decile, self.shown = 0.0, -1, False

    def __call__(self, done, total, counts):
        now = time.monotonic()
        frac = done / total if total else 1.0
        if self.tty:
            if now - self.last < 0.1 and done < total:
                return
            self.last = now
            filled = int(frac * self.width)
            bad = sum(n for v, n in counts.items() if v not in ("pass", "extension", "not-applicable"))
            rate = done / max(now - self.t0, 1e-9)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} "
                              f"{bad} failing  {rate:.0f}/s ")
            self.shown = True
        else:
            decile = int(frac * 10)
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(f"conform: {done}/{total} results ({decile * 10}%)\n")
        self.stream.flush()

    def finish(self):
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()


if __name__ == "__main__":
    sys.exit(main())

