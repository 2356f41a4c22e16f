"""`run(...)`: the `conform run` driver over the run session, streaming to DIR/results.jsonl.

Used by `conform run` and `conform certify`.  The session (suites/session.py)
opens the adapters, judges and counts; this driver owns the results file:
resume, the end record, progress and the exit code.  Memory stays bounded by
the in-flight window (cases are judged and written one at a time, in corpus
order, whatever --jobs is), and a killed run resumes from its results file.
"""
from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from contract.results import (ResultsError, ResultsLocked, ResultsWriter, adapter_identity, iter_records,
                              lock_results, named_identities)

from contract.vocabulary import (EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_BUSY, EXIT_DIVERGED,  # noqa: F401
                                 EXIT_INCOMPATIBLE, EXIT_INTERRUPTED, EXIT_OK, EXIT_ORACLE, EXIT_OUTPUT,
                                 EXIT_USAGE)


from suites.options import RunOptions
from suites.session import CorpusSource, RunSession, SessionError, in_shard, parse_shard  # noqa: F401


class RunError(SessionError):
    """A run that cannot start; `exit_code` says why (usage, bad input, incompatible resume, adapter)."""


@dataclass
class RunResult:
    exit_code: int
    results_path: str
    counts: Counter = field(default_factory=Counter)
    cases: int = 0                  # case records in the file (resumed ones included)
    ran: int = 0                    # case records this invocation wrote
    unlisted: int = 0               # divergences no expectations line covers
    unmatched_patterns: list = field(default_factory=list)   # "file:line glob" that matched nothing
    oracle_failures: list = field(default_factory=list)      # cases oracle.expect could not answer
    variants: list = field(default_factory=list)   # variants' differences from their base (suites.variants)
    elapsed_s: float = 0.0
    opened_s: float = 0.0           # from the start until every adapter's first worker had said hello
    slots: dict = field(default_factory=dict)   # the scheduler's usage(): seconds per activity, over all slots
    jobs: int = 1                   # the slots the scheduler ran (1 in-process, whatever --jobs says)
    message: str = ""

    def of_kind(self, kind) -> list:
        return [d for d in self.variants if d.kind == kind]

    @property
    def modes(self) -> list:            # compiled modes' disagreements with their eager twins
        return self.of_kind("mode")

    @property
    def layouts(self) -> list:          # layout variants' differences from their default
        return self.of_kind("layout")

    @property
    def construction(self) -> list:     # construction-check differences
        return self.of_kind("construction")


def load_corpus(path=None):
    """(list of Cases, corpus hash); errors become RunError(EXIT_BAD_INPUT) naming the file."""
    try:
        src = CorpusSource(path)
        return list(src), src.hash
    except SessionError as e:
        raise RunError(str(e), e.exit_code) from None


# ---- resume ------------------------------------------------------------------------------

def _previous(path, header_expect):
    """(header, done set of (case_id, adapter), counts, finished) of an earlier run.

    Reads only: a refused resume leaves the file byte for byte as it was (the torn last line a kill
    leaves is cut by the caller once the run is accepted).
    """
    header, done, counts, finished = None, set(), Counter(), False
    try:
        for rec in iter_records(path, allow_truncated=True):
            if rec["record"] == "run":
                header = rec
            elif rec["record"] == "case":
                key = (rec["case_id"], rec["adapter"])
                if key not in done:
                    done.add(key)
                    counts[rec["verdict"]] += 1
            else:
                finished = True
    except ResultsError as e:
        raise RunError(f"cannot resume: {e}", EXIT_BAD_INPUT) from None
    if header is None:
        return None, done, counts, finished
    for k in ("corpus_hash", "shard", "suite_version", "ops"):
        if header.get(k) != header_expect.get(k):
            raise RunError(f"cannot resume {path}: it was made with {k} {header.get(k)!r}, "
                           f"this run has {header_expect.get(k)!r}", EXIT_INCOMPATIBLE)
    # Verdicts of two versions of a framework are not one run: a changed adapter version is refused too,
    # and so is a changed Python or NumPy under an adapter (--python, or its environment rebuilt).
    before = sorted(adapter_identity(a) for a in header["adapters"] if isinstance(a, dict))
    now_ = sorted(adapter_identity(a) for a in header_expect["adapters"])
    if before != now_:
        raise RunError(f"cannot resume {path}: it ran adapters {named_identities(before)}, "
                       f"this run has {named_identities(now_)}", EXIT_INCOMPATIBLE)
    return header, done, counts, finished


def _drop_torn_tail(path):
    """Cut a last line that a kill left without its newline, so appending starts on a fresh line."""
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size == 0:
            return
        pos, chunk = size, 1 << 16
        while pos > 0:
            start = max(0, pos - chunk)
            f.seek(start)
            buf = f.read(pos - start)
            if pos == size and buf.endswith(b"\n"):
                return
            i = buf.rfind(b"\n")
            if i >= 0:
                f.truncate(start + i + 1)
                return
            pos = start
        f.truncate(0)


# ---- the run -----------------------------------------------------------------------------

def run(adapters=(), options: RunOptions = None, *, progress=None, expect=None, **fields) -> RunResult:
    """Run the corpus through the adapters as `options` (suites/options.py) say; without `options`, they are
    made here from `adapters` (names or module:Class; empty: every available adapter) and `fields`
    (RunOptions' fields by name: corpus, out_dir, jobs, ...), and checked once, at this boundary.

    `expect`: case -> Expectation (default oracle.expect).  `progress(done, total, counts)` is called after
    each case.  `layouts` (an option): also run each adapter in every layout it declares (suites/variants.py):
    `conform run` does unless --no-layouts; certify, verify and check-adapter run the adapter as it is.
    Never raises for a bad input: the RunResult's exit_code says.
    """
    t0 = time.monotonic()
    out_dir = options.out_dir if options is not None else fields.get("out_dir", RunOptions.out_dir)
    try:
        if options is None:
            options = RunOptions(adapters=tuple(adapters or ()), **fields)
        session = RunSession(options, expect=expect)
        session.source          # a missing or unreadable corpus stops the run before any worker starts
        with session:
            return _run(session, progress, t0)
    except SessionError as e:
        return RunResult(e.exit_code, os.path.join(out_dir, "results.jsonl"), message=str(e),
                         elapsed_s=time.monotonic() - t0)


def _write_construction(out_dir, found):
    import json
    with open(os.path.join(out_dir, "construction.json"), "w", encoding="utf-8") as f:
        json.dump({"differences": [d.to_json() for d in found],
                   "unlisted": sum(1 for d in found if not d.listed)}, f, indent=1)
        f.write("\n")


def _output_error(path, e) -> RunError:
    return RunError(f"cannot write {path}: {e.strerror or e}", EXIT_OUTPUT)


def _lock(out_dir, path) -> int:
    """Make --out and take the results file's lock, before a worker starts or anything is read or cut."""
    try:
        os.makedirs(out_dir, exist_ok=True)
        if not os.path.isdir(out_dir):
            raise NotADirectoryError(20, "--out is not a folder")
        return lock_results(path)
    except ResultsLocked as e:
        raise RunError(str(e), EXIT_BUSY) from None
    except FileExistsError:
        raise RunError(f"cannot write {out_dir}: --out names a file, not a folder", EXIT_OUTPUT) from None
    except OSError as e:
        raise _output_error(out_dir if not os.path.isdir(out_dir) else path, e) from None


def _run(session, progress, t0):
    out_dir = session.options.out_dir
    path = os.path.join(out_dir, "results.jsonl")
    fd = _lock(out_dir, path)
    try:
        return _locked_run(session, path, fd, progress, t0)
    except OSError as e:        # disk full or the like while writing: what was written stays
        raise _output_error(path, e) from None


@dataclass
class _Resumed:
    """What the results file already holds: the run id to keep writing under, the (case, adapter) pairs done,
    their verdicts counted, whether it has its end record, and whether this run appends to it."""
    run_id: str
    done: set
    counts: Counter
    finished: bool
    append: bool


def _resume(session, path, header) -> _Resumed:
    """Read an earlier run in `path` (--resume) and cut a torn last line; a fresh run otherwise."""
    state = _Resumed(header["run_id"], set(), Counter(), False, session.options.resume and os.path.getsize(path) > 0)
    if state.append:
        old, state.done, state.counts, state.finished = _previous(path, header)
        if old is not None:
            state.run_id = old["run_id"]
        _drop_torn_tail(path)
    return state


def _locked_run(session, path, fd, progress, t0):
    try:
        session.open()
        for skipped in session.skipped:
            print(f"conform: note: adapter {skipped} (skipped)", file=sys.stderr)
        header = session.header()
        state = _resume(session, path, header)
    except BaseException:
        os.close(fd)
        raise
    result = RunResult(EXIT_OK, path, opened_s=time.monotonic() - t0)
    with ResultsWriter(path, append=state.append, fd=fd) as out:
        if not state.append:
            out.write(header)
        interrupted = _write_cases(session, out, state, result, progress)
        if not interrupted and not state.finished:
            out.write(session.end_record(state.run_id, state.counts))
    return _finish(session, path, state, result, interrupted, t0)


def _write_cases(session, out, state, result, progress) -> bool:
    """Judge the cases not done yet and write their records in corpus order; whether Ctrl-C stopped it."""
    names = [h.name for h in session.handles]
    done, counts = state.done, state.counts
    # Progress only: the shard's exact size is known once the corpus has streamed past.
    total = -(-(session.source.declared or 0) // session.n) * len(names)
    if session.ops and progress:    # some ops only (certify): count their cases, a pass over the corpus file
        total = sum(1 for _ in session.cases()) * len(names)
    todo = (c for c in session.cases() if any((c.id, nm) not in done for nm in names))
    if progress:
        if getattr(progress, "per_adapter", False) is None:    # the progress line's per-adapter part
            progress.per_adapter = session.per_adapter
        progress(len(done), max(total, len(done)), counts)
    judged = session.judged(todo, skip=lambda c, nm: (c.id, nm) in done, total=max(0, total // max(1, len(names))))
    try:
        for case, verdicts, failure in judged:
            if failure:
                result.oracle_failures.append(f"case {case.id} ({case.op}): {failure}")
                print(f"conform: error: the oracle failed on case {case.id} ({case.op}): {failure}", file=sys.stderr)
                continue
            result.variants += session.variant_differences(case, verdicts)   # sets `mode`, `layout` first
            for v in verdicts:
                out.write(session.record(v, case, state.run_id))
                counts[v.verdict] += 1
            if progress:
                doneso = len(done) + session.totals.recorded
                progress(doneso, max(total, doneso), counts)
    except KeyboardInterrupt:
        return True
    finally:
        judged.close()      # now, not when collected: its threads and workers stop before we go on
    return False


def _finish(session, path, state, result, interrupted, t0) -> RunResult:
    """The run's figures and exit code, once the results file is closed."""
    result.ran, result.unlisted = session.totals.recorded, session.totals.unlisted
    if state.done:        # divergences recorded before a resume count too: read them back for the exit code
        # construction differences are in no record: this invocation's count
        result.unlisted = session.unlisted_in(iter_records(path)) + sum(1 for d in result.construction if not d.listed)
    result.counts, result.cases = state.counts, sum(state.counts.values())
    if session.construction_check:
        _write_construction(os.path.dirname(path), result.construction)
    result.unmatched_patterns = session.unmatched_patterns() if session.n == 1 else []
    result.elapsed_s = time.monotonic() - t0
    if (usage := session.usage()) is not None:
        result.slots, result.jobs = usage
    if interrupted:
        result.exit_code, result.message = EXIT_INTERRUPTED, "interrupted; continue with --resume"
    elif result.oracle_failures:
        result.exit_code = EXIT_ORACLE
        result.message = f"the oracle failed on {len(result.oracle_failures)} cases (not recorded)"
    elif result.unlisted:
        result.exit_code = EXIT_DIVERGED
    return result


def write_report(results_path, out_dir):
    """Render the HTML report and summary next to the results; an OSError (disk full...) is the caller's."""
    from reports.render import write_report as render
    return render([results_path], out_dir)
