"""`conform history add | rejudge | report`, `conform bisect`, and `conform run --release`: the commands over
releases (adapters/releases.py) and the history store (conform/history_store.py).  docs/HISTORY.md.

Exit codes: 0 done; 1 `bisect`: no change in the range; 2 usage; 3 a damaged or foreign results file or
history (nothing added); 5 a release's environment cannot be made.
"""
from __future__ import annotations

import os
import sys

from contract.vocabulary import EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_OK


def release_pythons(items, any_release, targets, pythons):
    """`--release NAME=VERSION` items -> pythons with each release's interpreter (its environment made on
    demand); the adapter is added to `targets` when no --adapter named it.  An exit code after printing why not."""
    from adapters import releases as R
    from adapters.pinned import ANY_RELEASE
    out = dict(pythons)
    try:
        for item in items:
            name, package, ver = R.parse(item, any_release)
            if name in out:
                print(f"conform: error: --release {item}: {name} already has an interpreter (--python)", file=sys.stderr)
                return 2
            env = R.ensure(name, ver, log=lambda m: print(f"conform: {m}", file=sys.stderr))
            out[name] = env["python"]
            if name not in targets:
                targets.append(name)
    except R.ReleaseError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    if any_release:
        os.environ[ANY_RELEASE] = "1"       # a pinned adapter's worker runs it and records "unpinned"
    return out


def register(subparsers) -> None:
    p = subparsers.add_parser("history", help="a history store of many runs: add results, re-judge, report")
    sub = p.add_subparsers(dest="history_command", required=True)
    c = sub.add_parser("add", help="index results files in the history (adding one twice adds nothing)")
    c.add_argument("results", nargs="+", metavar="RESULTS")
    c.add_argument("--db", required=True, metavar="FILE", help="the history store (sqlite3; made if missing)")
    c.set_defaults(func=cmd_add)
    c = sub.add_parser("rejudge", help="judge every stored outcome again with the current oracle (runs nothing)")
    c.add_argument("--db", required=True, metavar="FILE")
    c.set_defaults(func=cmd_rejudge)
    c = sub.add_parser("report", help="history.html: regressions, per-framework charts, the life of each divergence")
    c.add_argument("--db", required=True, metavar="FILE")
    c.add_argument("--out", required=True, metavar="DIR")
    c.set_defaults(func=cmd_report)

    p = subparsers.add_parser("sweep", help="run adapters over their declared releases into one history and its report")
    p.add_argument("--adapter", action="append", metavar="NAME", help="repeatable; default: every eager adapter "
                   "whose framework declares releases (adapters/<name>_framework.toml)")
    p.add_argument("--releases", metavar="A..B", help="a range of each adapter's declared releases (default: all)")
    p.add_argument("--db", required=True, metavar="FILE", help="the history store (made if missing)")
    p.add_argument("--out", required=True, metavar="DIR", help="results per release (DIR/<adapter>-<release>/) "
                   "and history.html")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.add_argument("--shard", metavar="K/N", help="run the K-th of N slices of the corpus on each release")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N")
    p.set_defaults(func=cmd_sweep)

    p = subparsers.add_parser("bisect", help="the first release in a range at which a case's verdict changed")
    p.add_argument("--adapter", required=True, metavar="NAME", help="an adapter that declares releases")
    p.add_argument("--case", required=True, metavar="ID", help="a case id of the corpus")
    p.add_argument("--releases", required=True, metavar="A..B",
                   help="a range of the adapter's declared releases (2.4.x: any patch), or a comma list")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.set_defaults(func=cmd_bisect)


def _with_store(command):
    """`command(args, db)` run with the history store --db names open; exit 3 after one message where it
    cannot be opened."""
    def run(args) -> int:
        from conform.history_store import HistoryError, open_store
        try:
            db = open_store(args.db)
        except HistoryError as e:
            print(f"conform: error: {e}", file=sys.stderr)
            return EXIT_BAD_INPUT
        return command(args, db)
    run.__name__ = command.__name__
    return run


@_with_store
def cmd_add(args, db) -> int:
    from contract.inputfile import InputFileError
    from conform.history_store import HistoryError, add_files
    try:
        for path, r in add_files(db, args.results):
            print(f"{path}: {r['runs']} run(s), {r['cases']} cases added"
                  + (f"; {r['skipped']} run(s) already in the history" if r["skipped"] else ""))
    except (HistoryError, InputFileError, OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        print(f"conform: error: {e} (nothing of that file was added)", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


@_with_store
def cmd_rejudge(args, db) -> int:
    from conform.history_store import rejudge
    r = rejudge(db)
    rate = f"{r['seconds'] / r['records'] * 1e5:.1f} s per 100k records" if r["records"] else ""
    print(f"{r['records']} records: {r['rejudged']} re-judged by oracle {r['oracle']}, {r['changed']} changed verdict, "
          f"{r['kept']} kept (the results kept no outcome values to judge); {r['seconds']} s ({rate})")
    return EXIT_OK


@_with_store
def cmd_report(args, db) -> int:
    from reports.history import write
    from conform.history_store import analyses
    found = analyses(db)
    path = write(found, args.out)
    for a in found:
        name = a["adapter"]
        reg = sum(t.regression for t in a["transitions"])
        print(f"{name}: releases {', '.join(a['releases'])}; {len(a['transitions'])} transitions "
              f"({reg} regressions), {len(a['causes'])} divergence causes")
    print(f"report: {path}")
    return EXIT_OK


def cmd_bisect(args) -> int:
    from adapters import releases as R
    from conform.bisect import bisect
    try:
        versions = R.expand(args.adapter, args.releases)
        r = bisect(args.adapter, args.case, versions, corpus=args.corpus,
                   log=lambda m: print(f"conform: {m}", file=sys.stderr))
    except R.ReleaseError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    except LookupError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return 2
    if r["first"] is None:
        print(f"{args.adapter} case {args.case}: the same verdict ({r['before']['verdict']}) from {versions[0]} "
              f"to {versions[-1]}")
        return EXIT_DIVERGED
    b, a = r["before"], r["after"]
    print(f"{args.adapter} case {args.case}: the verdict changed in {r['first']} (after {r['last_same']})")
    print(f"  {r['last_same']}: {b['verdict']}: {b['outcome']}")
    print(f"  {r['first']}: {a['verdict']}: {a['outcome']}")
    print(f"  releases run: {', '.join(r['ran'])}")
    print("repro:\n" + (a.get("repro") or b.get("repro") or ""))
    return EXIT_OK


def cmd_sweep(args) -> int:
    """Each (adapter, release) run in turn by the run's own scheduler, added to the history; then the report."""
    import time
    from adapters import releases as R
    from conform import runner
    from conform.history_store import HistoryError, add, analyses
    from reports.history import write
    from adapters.registry import MODES
    table = R.declared()
    # by default the eager adapters: a compiled mode's releases are its eager twin's (--adapter names one)
    names = args.adapter or sorted(n for n in table if n not in MODES)
    try:
        plan = [(n, v) for n in names for v in (R.expand(n, args.releases) if args.releases
                                                 else sorted(table.get(n, ("", ()))[1], key=R.version_key))]
    except R.ReleaseError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    for name, ver in plan:
        try:
            env = R.ensure(name, ver, log=lambda m: print(f"conform: {m}", file=sys.stderr))
        except R.ReleaseError as e:     # one release that cannot be installed is a line, not the sweep's end
            print(f"conform: {name} {ver}: no environment: {e}", file=sys.stderr)
            continue
        out = os.path.join(args.out, f"{name.replace(':', '_')}-{ver}")
        t0 = time.monotonic()
        result = runner.run([name], corpus=args.corpus, out_dir=out, jobs=args.jobs, shard=args.shard,
                            pythons={name: env["python"]}, profile="ci")
        if result.exit_code not in (0, 1):
            print(f"conform: {name} {ver}: the run stopped: {result.message}", file=sys.stderr)
            continue
        try:
            added = add(db, result.results_path)
        except (HistoryError, ValueError, KeyError, TypeError, OSError) as e:
            print(f"conform: {name} {ver}: not added: {e}", file=sys.stderr)
            continue
        install = "reused" if env["reused"] else f"{env['install_s']} s"
        print(f"{name} {ver}: install {install}, {env['disk_mb']} MB; run {time.monotonic() - t0:.1f} s; "
              f"{added['cases']} cases added")
    print(f"report: {write(analyses(db), args.out)}")
    return EXIT_OK
