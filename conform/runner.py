"""`run(...)`: the corpus through adapters in workers, judged, streamed to DIR/results.jsonl.

Used by `conform run` and by `conform certify`.  Memory stays bounded by the
in-flight window (cases are judged and written one at a time, in corpus
order, whatever --jobs is), and a killed run resumes from its results file.
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import sys
import time
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from reports.results import ResultsError, ResultsWriter, case_record, end_record, iter_records, run_record

EXIT_OK, EXIT_DIVERGED, EXIT_USAGE, EXIT_BAD_INPUT, EXIT_INCOMPATIBLE, EXIT_ADAPTER = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130


class RunError(Exception):
    """A run that cannot start; `exit_code` says why (usage, bad input, incompatible resume, adapter)."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class RunResult:
    exit_code: int
    results_path: str
    counts: Counter = field(default_factory=Counter)
    cases: int = 0                  # case records in the file (resumed ones included)
    ran: int = 0                    # case records this invocation wrote
    unlisted: int = 0               # divergences no expectations line covers
    unmatched_patterns: list = field(default_factory=list)   # "file:line glob" that matched nothing
    elapsed_s: float = 0.0
    message: str = ""


def parse_shard(text):
    """'K/N' -> (K, N) with 1 <= K <= N."""
    if text in (None, ""):
        return 1, 1
    try:
        k, n = (int(x) for x in str(text).split("/"))
    except ValueError:
        raise RunError(f"--shard must be K/N (e.g. 2/3), got {text!r}", EXIT_USAGE) from None
    if not 1 <= k <= n:
        raise RunError(f"--shard {text}: need 1 <= K <= N", EXIT_USAGE)
    return k, n


def in_shard(case_id: str, k: int, n: int) -> bool:
    # By content hash, not position: a case stays in its shard when others are added or removed.
    return n == 1 or int(case_id[:15], 16) % n == k - 1


def load_corpus(path=None):
    """(list of Cases, corpus hash); errors become RunError(EXIT_BAD_INPUT) naming the file."""
    try:
        from suites import corpus as C
    except ImportError:
        C = None
    try:
        if C is not None and hasattr(C, "load_corpus"):
            return C.load_corpus(path)
        if path is None:
            raise RunError("no corpus: suites.corpus is not installed; give --corpus PATH", EXIT_USAGE)
        return _load_jsonl_corpus(path)
    except RunError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RunError(f"cannot load corpus {path or '(shipped)'}: {e}", EXIT_BAD_INPUT) from None


def _load_jsonl_corpus(path):
    # Fallback while suites.corpus is absent: one Case.to_json() per line.
    from oracle.case import Case
    cases, h = [], hashlib.sha256()
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            h.update(line)
            if not line.strip():
                continue
            try:
                cases.append(Case.from_json(json.loads(line)))
            except ValueError as e:
                raise ValueError(f"{path}:{n}: {e}") from None
    return cases, "sha256:" + h.hexdigest()


# ---- resume ------------------------------------------------------------------------------

def _previous(path, header_expect):
    """(header, done set of (case_id, adapter), counts, finished) of an earlier run; truncates a torn line."""
    _drop_torn_tail(path)
    header, done, counts, finished = None, set(), Counter(), False
    try:
        for rec in iter_records(path, allow_truncated=False):
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
    for k in ("corpus_hash", "shard"):
        if header.get(k) != header_expect[k]:
            raise RunError(f"cannot resume {path}: it was made with {k} {header.get(k)!r}, "
                           f"this run has {header_expect[k]!r}", EXIT_INCOMPATIBLE)
    before = sorted(a["name"] for a in header["adapters"])
    now_ = sorted(a["name"] for a in header_expect["adapters"])
    if before != now_:
        raise RunError(f"cannot resume {path}: it ran adapters {before}, this run asks for {now_}",
                       EXIT_INCOMPATIBLE)
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

def run(adapters, corpus=None, out_dir="conform-out", case_timeout=None, jobs=1, in_process=False,
        profile="ci", resume=False, shard=None, progress=None, expectations_dir=None,
        memory_mb=0, expect=None) -> RunResult:
    """Run `corpus` (a path; None: the shipped corpus) through `adapters` (names or module:Class).

    `expect`: case -> Expectation (default oracle.expect).  `progress(done, total, counts)` is
    called after each case.  Never raises for a bad input: the RunResult's exit_code says.
    """
    t0 = time.monotonic()
    try:
        return _run(list(adapters), corpus, out_dir, case_timeout, max(1, int(jobs or 1)), in_process,
                    profile, resume, shard, progress, expectations_dir, memory_mb, expect, t0)
    except RunError as e:
        return RunResult(e.exit_code, os.path.join(out_dir, "results.jsonl"), message=str(e),
                         elapsed_s=time.monotonic() - t0)


def _run(specs, corpus, out_dir, case_timeout, jobs, in_process, profile, resume, shard, progress,
         expectations_dir, memory_mb, expect, t0):
    from suites.expectations import Expectations, ExpectationsError
    if not specs:
        raise RunError("no adapter given", EXIT_USAGE)
    k, n = parse_shard(shard)
    cases, corpus_hash = load_corpus(corpus)
    todo_all = [c for c in cases if in_shard(c.id, k, n)]
    del cases
    if in_process:
        jobs = 1    # in-process adapters share one interpreter: frameworks like pypto are not thread-safe
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "results.jsonl")
    handle_sets = _open_handles(specs, in_process, case_timeout, memory_mb, jobs)
    try:
        first = handle_sets[0]
        names = [h.name for h in first]
        if len(set(names)) != len(names):
            raise RunError(f"adapters with the same name given twice: {names}", EXIT_USAGE)
        try:
            expectations = {h.name: Expectations.for_adapter(h.name, expectations_dir) for h in first}
        except ExpectationsError as e:
            raise RunError(str(e), EXIT_BAD_INPUT) from None
        adapters_meta = [{"name": h.name, "version": h.version, "execution": h.execution,
                          "available": h.available, "reason": h.reason, "spec": h.spec} for h in first]
        shard_text = f"{k}/{n}"
        run_id = _run_id(corpus_hash, adapters_meta, shard_text, profile)
        header = run_record(run_id, corpus_hash, len(todo_all), adapters_meta, profile=profile, shard=shard_text)
        done, counts, finished = set(), Counter(), False
        if resume and os.path.exists(path) and os.path.getsize(path):
            old, done, counts, finished = _previous(path, header)
            if old is not None:
                run_id = old["run_id"]
        append = bool(done) or (resume and os.path.exists(path) and os.path.getsize(path) > 0)
        result = RunResult(EXIT_OK, path)
        with ResultsWriter(path, append=append) as out:
            if not append:
                out.write(header)
            total = len(todo_all) * len(first)
            todo = [c for c in todo_all if any((c.id, nm) not in done for nm in names)]
            if progress:
                progress(len(done), total, counts)
            interrupted = False
            try:
                for case, verdicts in _judged(todo, handle_sets, done, case_timeout, jobs, expect):
                    for v in verdicts:
                        if v.divergent:
                            v.expected_divergence = expectations[v.adapter].match(v.key())
                        out.write(case_record(run_id, v, case))
                        counts[v.verdict] += 1
                        result.ran += 1
                        if v.divergent and not v.expected_divergence:
                            result.unlisted += 1
                    if progress:
                        progress(len(done) + result.ran, total, counts)
            except KeyboardInterrupt:
                interrupted = True
            if not interrupted and not finished:
                out.write(end_record(run_id, sum(counts.values()), counts))
        # Divergences recorded before a resume count too: read them back for the exit code.
        if done:
            result.unlisted = _unlisted_in(path, expectations)
        result.counts, result.cases = counts, sum(counts.values())
        result.unmatched_patterns = [f"{p.where()} {p.glob}" for e in expectations.values() for p in e.unmatched()]
        result.elapsed_s = time.monotonic() - t0
        if interrupted:
            result.exit_code, result.message = EXIT_INTERRUPTED, "interrupted; continue with --resume"
        elif result.unlisted:
            result.exit_code = EXIT_DIVERGED
        return result
    finally:
        for hs in handle_sets:
            for h in hs:
                h.close()


def _unlisted_in(path, expectations) -> int:
    from suites.judge import DIVERGENT
    n = 0
    for rec in iter_records(path):
        if rec["record"] == "case" and rec["verdict"] in DIVERGENT:
            key = f"{rec['op']}/{rec['verdict']}/{','.join(sorted(rec['clauses']))}/{rec['case_id']}"
            e = expectations.get(rec["adapter"])
            if e is None or e.match(key) is None:
                n += 1
    return n


def _run_id(corpus_hash, adapters_meta, shard, profile) -> str:
    # Derived from what was run, so two runs of the same commit give identical files apart from timings.
    blob = json.dumps([corpus_hash, [(a["name"], a["version"]) for a in adapters_meta], shard, profile])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _open_handles(specs, in_process, case_timeout, memory_mb, jobs):
    from adapters.pool import open_handle
    from adapters.registry import AdapterError, load
    for spec in specs:      # fail fast, before any worker starts, on names that do not resolve
        try:
            a = load(spec)
            ok, reason = a.available()
        except AdapterError as e:
            raise RunError(str(e), EXIT_ADAPTER) from None
        if not ok:
            raise RunError(f"adapter {spec!r} is not available: {reason}", EXIT_ADAPTER)
    sets = []
    try:
        for _ in range(jobs):
            hs = []
            sets.append(hs)
            for spec in specs:
                h = open_handle(spec, in_process=in_process, case_timeout=case_timeout, memory_mb=memory_mb)
                h.spec = spec
                hs.append(h)
    except AdapterError as e:
        for hs in sets:
            for h in hs:
                h.close()
        raise RunError(str(e), EXIT_ADAPTER) from None
    return sets


def _judge_case(case, handles, done, case_timeout, expect):
    from suites.judge import judge
    if expect is None:
        import oracle
        expect = oracle.expect
    expectation = expect(case)
    out = []
    for h in handles:
        if (case.id, h.name) in done:
            continue
        outcome = h.run(case, timeout=case_timeout)
        out.append(judge(case, expectation, outcome, h))
    return case, out


def _judged(cases, handle_sets, done, case_timeout, jobs, expect):
    """(case, verdicts) in corpus order; with jobs > 1, cases run on `jobs` handle sets in threads."""
    if jobs == 1:
        for case in cases:
            yield _judge_case(case, handle_sets[0], done, case_timeout, expect)
        return
    free = queue.Queue()
    for hs in handle_sets:
        free.put(hs)

    def task(case):
        hs = free.get()
        try:
            return _judge_case(case, hs, done, case_timeout, expect)
        finally:
            free.put(hs)

    window = deque()
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        try:
            for case in cases:
                window.append(ex.submit(task, case))
                if len(window) >= 4 * jobs:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            for f in window:
                f.cancel()


def write_report_if_available(results_path, out_dir):
    """Render the HTML report next to the results when the report package provides it."""
    try:
        from reports.render import write_report
    except ImportError:
        return None
    try:
        return write_report([results_path], out_dir)
    except Exception as e:      # a report failure must not hide the run's own result
        print(f"conform: warning: report not written: {type(e).__name__}: {e}", file=sys.stderr)
        return None
