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
    p.add_argument("--construction-check", action="store_true",
                   help="also run every case with inputs built each other way an adapter declares (NAME@WAY) "
                        "and report cases whose verdict or values change (DIR/construction.json)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("adapters", help="list adapters with availability, versions and reasons")
    p.set_defaults(func=cmd_adapters)

    from . import selftest
    selftest.register(sub)

    try:
        from reports.commands import register
    except ImportError:
        pass
    else:
        register(sub)
    return parser


def cmd_adapters(args) -> int:
    from adapters.registry import available_adapters
    rows = [(i.name, i.version or "-", "yes" if i.available else "no", i.reason or "", i.spec)
            for i in available_adapters()]
    widths = [max(len(r[c]) for r in rows + [("adapter", "version", "available", "", "")]) for c in range(3)]
    print(f"{'adapter':<{widths[0]}}  {'version':<{widths[1]}}  {'available':<{widths[2]}}  source / reason")
    for name, ver, ok, reason, spec in rows:
        print(f"{name:<{widths[0]}}  {ver:<{widths[1]}}  {ok:<{widths[2]}}  {spec}" + (f"  ({reason})" if reason else ""))
    return 0


def cmd_run(args) -> int:
    specs = args.adapter or []      # none named: the session runs every available adapter
    bar = Progress(sys.stderr)
    # SIGTERM (a CI cancel) stops like Ctrl-C: the results so far stay, --resume continues.
    old = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        result = runner.run(specs, corpus=args.corpus, out_dir=args.out, case_timeout=args.case_timeout,
                            jobs=args.jobs, in_process=args.in_process, profile=args.profile,
                            resume=args.resume, shard=args.shard, progress=bar, memory_mb=args.memory_mb,
                            expectations_dir=args.expectations, construction_check=args.construction_check)
    finally:
        signal.signal(signal.SIGTERM, old)
        bar.finish()
    if result.message:
        print(f"conform: {'error: ' if result.exit_code not in (0, 1, 130) else ''}{result.message}",
              file=sys.stderr)
    if result.exit_code not in (runner.EXIT_OK, runner.EXIT_DIVERGED, runner.EXIT_ORACLE, runner.EXIT_INTERRUPTED):
        return result.exit_code
    for p in result.unmatched_patterns:
        print(f"conform: note: expectation pattern matched nothing: {p}", file=sys.stderr)
    for d in result.construction:
        print(f"conform: construction: {d.adapter} {d.op} case {d.case_id}: {d.default} built the documented way, "
              f"{d.other} built with {d.way}" + (f" (listed: {d.listed})" if d.listed else " (unlisted)"),
              file=sys.stderr)
    if args.construction_check:
        print(f"construction check: {len(result.construction)} differences, "
              f"{sum(1 for d in result.construction if not d.listed)} unlisted -> {os.path.join(args.out, 'construction.json')}")
    counts = ", ".join(f"{v} {n}" for v, n in sorted(result.counts.items()))
    print(f"{result.cases} results ({counts}); {result.unlisted} unlisted divergences -> {result.results_path}")
    if not args.no_report and result.exit_code != runner.EXIT_INTERRUPTED:
        try:
            report = runner.write_report(result.results_path, args.out)
        except OSError as e:
            print(f"conform: error: cannot write the report into {args.out}: {e.strerror or e} "
                  f"(the results are kept in {result.results_path}; `conform report` renders them)", file=sys.stderr)
            return runner.EXIT_OUTPUT
        except Exception as e:      # a bug in the report must not hide the run's own result
            print(f"conform: warning: report not written: {type(e).__name__}: {e}", file=sys.stderr)
        else:
            print(f"report: {report['report_html']}")
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

