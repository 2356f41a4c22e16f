"""`conform`: run the corpus through adapters, list adapters; report commands plug in (conform.commands).

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

from contract.vocabulary import PROFILES, profiles_text

from adapters.base import terminal_text
from . import runner


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("conform: interrupted", file=sys.stderr)
        return runner.EXIT_INTERRUPTED


def positive_int(text):
    """argparse type: an int >= 1 (a job count, a sample size); anything else is a usage error (exit 2)."""
    return _checked(text, int, lambda v: v >= 1, "a whole number >= 1")


def positive_float(text):
    """argparse type: a number of seconds > 0 (0 or less would kill every case at once)."""
    return _checked(text, float, lambda v: v > 0 and v == v and v != float("inf"), "a number of seconds > 0")


def non_negative_int(text):
    return _checked(text, int, lambda v: v >= 0, "a whole number >= 0")


def _checked(text, convert, ok, what):
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def build_parser():
    from contract.vocabulary import SUITE_VERSION
    parser = argparse.ArgumentParser(prog="conform", description="Conformance of tensor ops to their documents.")
    parser.add_argument("--version", action="version", version=f"conform (tensor-conformance) {SUITE_VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="run the corpus through adapters; write DIR/results.jsonl and the report")
    p.add_argument("--adapter", action="append", metavar="NAME|module:Class",
                   help="repeatable; default: every available adapter")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.add_argument("--out", metavar="DIR", default="conform-out", help="output folder (default: conform-out)")
    p.add_argument("--case-timeout", type=positive_float, metavar="S",
                   help="seconds per case before the worker is killed (default: the adapter's, else 60)")
    p.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help="calls run at once over all adapters: idle workers take cases from any adapter with some "
                        "left (default: the number of cores)")
    p.add_argument("--in-process", action="store_true", help="run adapters in this process (debugging)")
    p.add_argument("--profile", default="ci", choices=PROFILES,
                   help=f"recorded in the results header (default ci): {profiles_text()}")
    p.add_argument("--resume", action="store_true", help="continue the run in --out (cases already recorded are skipped)")
    p.add_argument("--shard", metavar="K/N", help="run the K-th of N deterministic slices of the corpus")
    p.add_argument("--memory-mb", type=non_negative_int, default=0, metavar="M",
                   help="address-space limit per worker (default 0: none)")
    p.add_argument("--expectations", action="append", metavar="[SPEC=]FILE|DIR",
                   help="expected divergences of an adapter that is not shipped: FILE (with one --adapter) or "
                        "SPEC=FILE, repeatable; or a folder replacing suites/expectations for the shipped "
                        "adapters. The adapter's own name never chooses a file (docs/EXPECTATIONS.md)")
    p.add_argument("--no-report", action="store_true", help="write results only")
    p.add_argument("--no-layouts", action="store_true",
                   help="run each adapter in its default contiguous layout only, not also in every layout it "
                        "declares (NAME@strided, NAME@offset, NAME@expanded; docs/CLI.md)")
    p.add_argument("--construction-check", action="store_true",
                   help="also run every case with inputs built each other way an adapter declares (NAME@WAY) "
                        "and report cases whose verdict or values change (DIR/construction.json)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML: one testcase per (adapter, op, failure group)")
    _python_option(p)
    p.add_argument("--release", action="append", metavar="NAME=VERSION",
                   help="run adapter NAME (or the one adapter of package NAME: numpy=2.0.2) on that release, in an "
                        "environment made on demand and cached (docs/HISTORY.md); repeatable for several adapters")
    p.add_argument("--any-release", action="store_true",
                   help="let --release run a release the adapter does not declare (recorded as unlisted), or a "
                        "pinned adapter run the release its --python environment holds (recorded as unpinned)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("adapters", help="list adapters with availability, versions and reasons")
    _python_option(p)
    p.set_defaults(func=cmd_adapters)

    from oracle.registry import ops as registered_ops
    OPS = registered_ops()
    p = sub.add_parser("certify", help="run the corpus on one adapter; write certificate.json + report")
    p.add_argument("--adapter", required=True, help="adapter name, entry point name, or package.module:Class")
    p.add_argument("--out", required=True, help="output folder (results.jsonl, report.html, certificate.json)")
    p.add_argument("--op", action="append", choices=OPS, metavar="OP",
                   help=f"repeatable: certify only these ops ({', '.join(OPS)}); default: every op the adapter "
                        "implements. Ops not claimed are absent from the certificate")
    p.add_argument("--corpus", metavar="PATH", help="corpus file (default: the shipped corpus)")
    p.add_argument("--case-timeout", type=positive_float, metavar="S", help="seconds per case before the worker is killed")
    p.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help="worker processes (default: the number of cores, %(default)s here)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted certification in --out")
    p.add_argument("--replace", action="store_true", help="overwrite the certificate or results already in --out "
                   "(refused otherwise)")
    p.add_argument("--in-process", action="store_true", help="run the adapter in this process (debugging only)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML of the certification run")
    p.add_argument("--expectations", metavar="FILE",
                   help="your adapter's expected divergences (docs/EXPECTATIONS.md): listed failures do not fail "
                        "the exit code and the file's hash is in the certificate. A shipped adapter gets its "
                        "shipped file; the adapter's name never chooses one")
    p.add_argument("--python", metavar="PATH", help="run the adapter's worker under this interpreter "
                   "(default: conform.toml, pyproject.toml or setup.sh's environment for it: docs/CLI.md)")
    p.add_argument("--baseline", metavar="CERTDIR", help="an earlier certificate of the adapter: exit 1 when a case "
                   "that conformed there no longer conforms, even where the divergence is listed (docs/CERTIFY.md)")
    p.set_defaults(func=cmd_certify)

    p = sub.add_parser("verify", help="re-check a certificate: its hashes, and a sample of its cases re-run")
    p.add_argument("certdir", metavar="CERTDIR", help="folder holding certificate.json and its results file")
    p.add_argument("--sample", type=positive_int, default=50, metavar="N",
                   help="cases to re-run through the adapter (default 50; more than recorded: all)")
    p.add_argument("--seed", type=non_negative_int, metavar="S",
                   help="seed of the sample (default: a random one, printed so the sample can be drawn again)")
    p.add_argument("--corpus", metavar="PATH",
                   help="the certified corpus, to check coverage (default: the shipped corpus)")
    p.add_argument("--case-timeout", type=positive_float, metavar="S", help="seconds per case before the worker is killed")
    p.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help="calls run at once over the re-run (default: the number of cores)")
    p.add_argument("--in-process", action="store_true", help="run the adapter in this process (debugging only)")
    p.add_argument("--challenge", type=non_negative_int, metavar="N",
                   help="fresh cases per claimed op the certificate never saw (default 200; 0: none)")
    p.add_argument("--challenge-seed", type=non_negative_int, metavar="S",
                   help="repeat an earlier challenge (default: a seed from os.urandom, printed after the run)")
    p.add_argument("--accept-other-corpus", action="store_true",
                   help="take a certificate made on a corpus other than the shipped one (refused otherwise)")
    p.set_defaults(func=cmd_verify)

    from . import selftest
    selftest.register(sub)

    from .commands import register
    register(sub)
    from . import expectations_check, expectations_draft
    expectations_draft.register(expectations_check.register(sub))
    from . import check
    check.register(sub)
    from . import history_cli
    history_cli.register(sub)
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


def _expectations_choice(values, targets):
    """(folder, {spec: file}) of --expectations, or exit code 3 after printing why it cannot be used."""
    from suites.known_divergences import parse_option
    try:
        return parse_option(values, targets)
    except ValueError as e:
        print(f"conform: error: {e}", file=sys.stderr)
        return runner.EXIT_BAD_INPUT


def cmd_adapters(args) -> int:
    from adapters.environments import InterpreterError, is_this_interpreter
    from adapters.catalog import available_adapters
    pythons = _pythons(args)
    if isinstance(pythons, int):
        return pythons
    try:
        infos = available_adapters(pythons)
    except InterpreterError as e:       # a conform.toml or pyproject.toml that cannot be read
        print(f"conform: error: {e}", file=sys.stderr)
        return e.exit_code
    rows = [(i.name, i.version or "-", "yes" if i.available else "no", i.reason or "",
             i.class_path + ("" if is_this_interpreter(i.python or None) else f"  (python: {i.python})")) for i in infos]
    widths = [max(len(r[c]) for r in rows + [("adapter", "version", "available", "", "")]) for c in range(3)]
    print(f"{'adapter':<{widths[0]}}  {'version':<{widths[1]}}  {'available':<{widths[2]}}  source / reason")
    for name, ver, ok, reason, class_path in rows:
        print(f"{name:<{widths[0]}}  {ver:<{widths[1]}}  {ok:<{widths[2]}}  {class_path}" + (f"  ({reason})" if reason else ""))
    return 0


def cmd_run(args) -> int:
    targets = args.adapter or []      # none named: the session runs every available adapter
    pythons = _pythons(args)
    if isinstance(pythons, int):
        return pythons
    if args.release:
        from .history_cli import release_pythons
        pythons = release_pythons(args.release, args.any_release, targets, pythons)
        if isinstance(pythons, int):
            return pythons
    elif args.any_release:
        from adapters.pinned import ANY_RELEASE
        os.environ[ANY_RELEASE] = "1"   # an environment of one's own (--python NAME=PATH) on another release
    chosen = _expectations_choice(args.expectations, targets)
    if isinstance(chosen, int):
        return chosen
    bar = Progress(sys.stderr)
    # SIGTERM (a CI cancel) stops like Ctrl-C: the results so far stay, --resume continues.
    old = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        result = runner.run(targets, corpus=args.corpus, out_dir=args.out, case_timeout=args.case_timeout,
                            jobs=args.jobs, in_process=args.in_process, profile=args.profile,
                            resume=args.resume, shard=args.shard, progress=bar, memory_mb=args.memory_mb,
                            expectations_dir=chosen[0], expectations_files=chosen[1],
                            construction_check=args.construction_check, pythons=pythons,
                            layouts=not args.no_layouts)
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
        print(f"conform: construction: {d.adapter} {d.op} case {d.case_id}: {d.base_verdict} built the documented way, "
              f"{d.verdict} built with {d.variant.way}" + (f" (listed: {d.listed})" if d.listed else " (unlisted)"),
              file=sys.stderr)
    for d in result.modes:
        if not d.listed:
            print(f"conform: mode: {d.adapter} {d.op} case {d.case_id}: {d.verdict} ({d.outcome}) where its eager twin "
                  f"{d.variant.base} gives {d.base_verdict} ({d.base_outcome}) (unlisted)", file=sys.stderr)
    for d in result.layouts:
        if not d.listed:
            print(f"conform: layout: {d.adapter} {d.op} case {d.case_id}: {d.verdict} ({d.outcome[:200]}) with inputs "
                  f"{d.variant.way}, {d.base_verdict} ({d.base_outcome[:200]}) contiguous (unlisted)", file=sys.stderr)
    if result.layouts:
        print(f"layout check: {len(result.layouts)} cases answered otherwise than in the default layout, "
              f"{sum(1 for d in result.layouts if not d.listed)} unlisted")
    if result.modes:
        print(f"mode-consistency gate: {len(result.modes)} cases answered otherwise than the eager twin, "
              f"{sum(1 for d in result.modes if not d.listed)} unlisted")
    if args.construction_check:
        print(f"construction check: {len(result.construction)} differences, "
              f"{sum(1 for d in result.construction if not d.listed)} unlisted -> {os.path.join(args.out, 'construction.json')}")
    if result.slots:
        print(f"conform: time: {_time_line(result)}", file=sys.stderr)
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
    if args.junit and result.exit_code != runner.EXIT_INTERRUPTED and not _write_junit(result.results_path, args.junit):
        return runner.EXIT_OUTPUT
    return result.exit_code


def _write_junit(results_path, out_file) -> bool:
    from reports.junit import write_junit
    try:
        r = write_junit([results_path], out_file)
    except OSError as e:
        print(f"conform: error: cannot write {out_file}: {e.strerror or e} (the results are kept in {results_path})",
              file=sys.stderr)
        return False
    print(f"junit: {out_file} ({r['tests']} testcases, {r['failures']} failing, {r['skipped']} expected divergences)")
    return True


def cmd_certify(args) -> int:
    from reports.model import DIVERGENT, INPUT_ERRORS
    from .certify import CertifyError, certify
    if args.expectations and not os.path.isfile(args.expectations):
        print(f"conform: error: --expectations {args.expectations}: "
              f"{'is not a file' if os.path.exists(args.expectations) else 'does not exist'}", file=sys.stderr)
        return runner.EXIT_BAD_INPUT
    if args.baseline:
        from .baseline import BaselineError, load
        try:
            load(args.baseline)         # refused before anything runs
        except BaselineError as e:
            print(f"conform: error: {e}", file=sys.stderr)
            return runner.EXIT_BAD_INPUT
    bar, runs = Progress(sys.stderr), []
    try:
        cert = certify(args.adapter, args.out, ops=args.op, corpus=args.corpus, in_process=args.in_process,
                       case_timeout=args.case_timeout, resume=args.resume, jobs=args.jobs, python=args.python,
                       expectations=args.expectations, progress=bar, replace=args.replace, on_run=runs.append)
    except CertifyError as e:
        print(f"conform: error: {terminal_text(e)}", file=sys.stderr)
        return e.exit_code
    except (*INPUT_ERRORS, OSError) as e:
        print(f"conform: error: {terminal_text(e)}", file=sys.stderr)
        return runner.EXIT_BAD_INPUT
    finally:
        bar.finish()
    if runs and runs[0].slots:
        print(f"conform: time: {_time_line(runs[0])}", file=sys.stderr)
    totals, listed = cert["totals"], cert["expectations"]
    failing = sum(totals.get(v, 0) for v in DIVERGENT)
    from adapters.base import terminal_text as shown
    print(shown(f"{cert['headline']}: "
                f"{sum(totals.values())} cases, {failing} failing"
                + (f" ({listed['listed']} listed in {args.expectations or listed['chosen']}, {listed['unlisted']} unlisted)"
                   if listed["file"] else "")
                + f" -> {os.path.join(args.out, 'certificate.json')}"))
    if cert["adapter"]["borrowed"]:
        print(shown(f"conform: warning: the candidate's worker used the suite's own {', '.join(cert['adapter']['borrowed'])}: "
                    f"marked on the certificate (adapter.borrowed); verify refuses it"), file=sys.stderr)
    if args.junit and not _write_junit(os.path.join(args.out, cert["results"]["file"]), args.junit):
        return runner.EXIT_OUTPUT
    if args.baseline:
        from .baseline import SHOWN, check
        b = check(args.baseline, args.out)
        for r in b["regressions"][:SHOWN]:
            print(f"conform: regression against the baseline ({b['adapter_version']}): case {r['case_id']}: "
                  f"{r['before']} -> {r['now']}", file=sys.stderr)
        print(f"baseline {args.baseline}: {b['checked']} cases conformed there, {len(b['regressions'])} no longer do")
        if b["regressions"]:
            return runner.EXIT_DIVERGED
    return runner.EXIT_DIVERGED if listed["unlisted"] else runner.EXIT_OK


def cmd_verify(args) -> int:
    from .verify import VerifyError, verify
    t0 = time.monotonic()
    try:
        r = verify(args.certdir, sample=args.sample, seed=args.seed, corpus=args.corpus,
                   case_timeout=args.case_timeout, jobs=args.jobs, in_process=args.in_process,
                   challenge=args.challenge, challenge_seed=args.challenge_seed,
                   accept_corpus=args.accept_other_corpus)
    except VerifyError as e:
        print(f"conform: error: {terminal_text(e)}", file=sys.stderr)
        return e.exit_code
    for note in r.notes:
        print(terminal_text(f"note: {note}"))
    if r.refused:
        print("refused: the adapter installed here is not the certified one; nothing was re-run")
    else:
        print(f"re-ran {r.sampled} cases (seed {r.seed}; `--seed {r.seed}` draws the same sample)")
        if r.challenged:
            print(f"challenged with {r.challenged} fresh cases (seed {r.challenge_seed}, drawn here and told only "
                  f"now; `--challenge-seed {r.challenge_seed}` draws them again)")
            for v in r.challenge:
                print(f"challenge: {v.line()}")
    print(f"conform: time: {_duration(time.monotonic() - t0)} in all, the hashes, the identity and the re-run of "
          f"{r.sampled} cases" + (f" and {r.challenged} fresh ones" if r.challenged else ""), file=sys.stderr)
    for line in r.differences:
        print(terminal_text(f"DIFFERS: {line}"))
    print(f"{len(r.differences)} difference(s): the certificate does not hold" if r.differences else
          "verified: hashes, claims, identity, the re-run sample and the challenge agree with the certificate")
    return r.exit_code


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class Progress:
    """The run's progress: per adapter done/total, cases per second, the time left.

    On a terminal one line redraws in place; elsewhere (a CI log) a line every LOG_EVERY_S seconds and at
    the end.  `per_adapter` is set by the runner to the session's per_adapter (the run loop's snapshot)."""

    LOG_EVERY_S = 10.0

    def __init__(self, stream, width=20, clock=time.monotonic):
        self.stream, self.width, self.clock = stream, width, clock
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.t0 = clock()
        self.last, self.shown, self.ended = float("-inf"), False, False
        self.per_adapter = None

    def __call__(self, done, total, counts):
        now = self.clock()
        finished = total and done >= total
        if finished and self.ended:
            return
        if not finished and now - self.last < (0.1 if self.tty else self.LOG_EVERY_S):
            return
        self.last, self.ended = now, bool(finished)
        line = self.line(done, total, counts, now)
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
            self.shown = True
        else:
            self.stream.write(f"conform: {line}\n")
        self.stream.flush()

    def line(self, done, total, counts, now) -> str:
        frac = done / total if total else 1.0
        elapsed = max(now - self.t0, 1e-9)
        rate = done / elapsed
        bad = sum(n for v, n in counts.items() if v not in ("pass", "extension", "not-applicable"))
        lanes = self.per_adapter() if self.per_adapter else []
        left = _time_left(done, total, rate, lanes)
        head = (f"[{'#' * int(frac * self.width)}{'.' * (self.width - int(frac * self.width))}] " if self.tty else "")
        parts = [f"{head}{done}/{total} results ({frac:.0%}), {bad} failing, {rate:.0f}/s"
                 + (f", {_duration(left)} left" if left is not None and done < total else "")]
        if len(lanes) == 1:     # one adapter: its count is the run's (counted as calls end, not as results are
            #                    written in order); a second figure would only disagree with the first
            parts += [f"{terminal_text(name)}" + (f" x{w}" if w > 1 else "") for name, d, t, w, _ in lanes]
        else:
            parts += [f"{terminal_text(name)} {d}/{t}" + (f" x{w}" if w > 1 else "") for name, d, t, w, _ in lanes]
        return "; ".join(parts) if not self.tty else "  ".join(parts)

    def finish(self):
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _time_left(done, total, rate, lanes):
    """Seconds left: the later of the slowest adapter's (its cases left x its time per case / its workers) and
    the results left at the run's rate so far (workers that share the cores, or sleep, are not all at work)."""
    ends = [(t - d) * busy / d / max(w, 1) for _, d, t, w, busy in lanes if d]
    if rate > 0:
        ends.append((total - done) / rate)
    return max(ends) if ends else None


def _time_line(result) -> str:
    """Where the run's wall time went: start-up, then the slots' shares (suites/scheduler.py usage()), and
    the wall time against the adapters' own time over the slots (the ratio benchmarks/README.md reports)."""
    slots = {k: v for k, v in result.slots.items() if k not in ("busy", "peak")}
    spent = sum(slots.values()) or 1e-9
    shares = ", ".join(f"{slots.get(what, 0) / spent:.0%} {words}" for what, words in
                       (("case", "running cases"), ("start", "starting workers"), ("wait", "waiting for a case")))
    busy, n = result.slots.get("busy", 0.0), result.jobs
    ratio = f"; adapters' own time {busy:.0f} s, wall / (that / {n}) = {result.elapsed_s / (busy / n):.2f}" if busy else ""
    return (f"{_duration(result.elapsed_s)} in all: {result.opened_s:.1f} s to start the adapters, "
            f"then {n} slot(s){_peak(result.slots.get('peak', 0), n)}: {shares}{ratio}")


def _peak(peak, jobs) -> str:
    return f" (up to {peak} calls at once, while workers waited)" if peak > jobs else ""


def _duration(s: float) -> str:
    s = int(round(s))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


if __name__ == "__main__":
    sys.exit(main())

