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

from contract.vocabulary import (EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_DIVERGED, EXIT_INCOMPATIBLE,  # noqa: F401
                                 EXIT_INTERRUPTED, EXIT_OK, EXIT_ORACLE, EXIT_USAGE)


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
    oracle_failures: list = field(default_factory=list)      # cases oracle.expect could not answer
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
    src = CorpusSource(path)
    return list(src), src.hash


class CorpusSource:
    """A corpus file read lazily, so a 100,000-case run never holds the corpus in memory.

    `hash` is the corpus hash, `declared` the case count its header declares (None if unknown).
    Iterating yields Cases; a malformed line raises RunError(EXIT_BAD_INPUT) with file:line.
    """

    def __init__(self, path=None):
        try:
            from suites import corpus as C
        except ImportError as e:
            raise RunError(f"cannot read corpora: {e}", EXIT_USAGE) from None
        self._C = C
        self.path = str(path) if path is not None else str(C.DEFAULT_PATH)
        try:
            if path is None and not os.path.exists(self.path):
                C.load_corpus(None)         # raises the corpus module's own "build it" message
            self.hash = C.corpus_hash(self.path)
        except (OSError, ValueError) as e:
            raise RunError(f"cannot load corpus {self.path}: {e}", EXIT_BAD_INPUT) from None
        self.declared = _declared_count(self.path)

    def __iter__(self):
        it = iter(self._C.iter_corpus(self.path))
        while True:
            try:
                case = next(it)
            except StopIteration:
                return
            except (OSError, ValueError) as e:
                raise RunError(f"bad corpus: {e}", EXIT_BAD_INPUT) from None
            yield case


def _declared_count(path):
    # The corpus header (line 1, suites/corpus.py) declares the count; only used for progress and the header.
    try:
        with open(path, "rb") as f:
            head = json.loads(f.readline(1 << 20))
        n = head.get("cases")
        return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
    except (OSError, ValueError, AttributeError):
        return None


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
        memory_mb=0, expect=None, pythons=None) -> RunResult:
    """Run `corpus` (a path; None: the shipped corpus) through `adapters` (names or module:Class).

    `pythons`: {adapter: interpreter path} from the command line; the rest as adapters.environments says.

    `expect`: case -> Expectation (default oracle.expect).  `progress(done, total, counts)` is
    called after each case.  Never raises for a bad input: the RunResult's exit_code says.
    """
    t0 = time.monotonic()
    try:
        return _run(list(adapters), corpus, out_dir, case_timeout, max(1, int(jobs or 1)), in_process,
                    profile, resume, shard, progress, expectations_dir, memory_mb, expect, t0, pythons or {})
    except RunError as e:
        return RunResult(e.exit_code, os.path.join(out_dir, "results.jsonl"), message=str(e),
                         elapsed_s=time.monotonic() - t0)


def _run(specs, corpus, out_dir, case_timeout, jobs, in_process, profile, resume, shard, progress,
         expectations_dir, memory_mb, expect, t0, pythons):
    from adapters.pool import header_entry
    from suites.expectations import Expectations, ExpectationsError
    if not specs:
        raise RunError("no adapter given", EXIT_USAGE)
    k, n = parse_shard(shard)
    source = CorpusSource(corpus)
    corpus_hash = source.hash
    if in_process:
        jobs = 1    # in-process adapters share one interpreter: frameworks like pypto are not thread-safe
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "results.jsonl")
    handle_sets = _open_handles(specs, in_process, case_timeout, memory_mb, jobs, pythons)
    try:
        first = handle_sets[0]
        names = [h.name for h in first]
        if len(set(names)) != len(names):
            raise RunError(f"adapters with the same name given twice: {names}", EXIT_USAGE)
        try:
            expectations = {h.name: Expectations.for_adapter(h.name, expectations_dir) for h in first}
        except ExpectationsError as e:
            raise RunError(str(e), EXIT_BAD_INPUT) from None
        adapters_meta = [header_entry(h) for h in first]
        shard_text = f"{k}/{n}"
        run_id = _run_id(corpus_hash, adapters_meta, shard_text, profile)
        header = run_record(run_id, corpus_hash, source.declared, adapters_meta, profile=profile, shard=shard_text)
        done, counts, finished = set(), Counter(), False
        if resume and os.path.exists(path) and os.path.getsize(path):
            old, done, counts, finished = _previous(path, header)
            if old is not None:
                run_id = old["run_id"]
        append = resume and os.path.exists(path) and os.path.getsize(path) > 0
        result = RunResult(EXIT_OK, path)
        # Progress only: the shard's exact size is known once the corpus has streamed past.
        total = -(-(source.declared or 0) // n) * len(first)
        todo = (c for c in source
                if in_shard(c.id, k, n) and any((c.id, nm) not in done for nm in names))
        with ResultsWriter(path, append=append) as out:
            if not append:
                out.write(header)
            if progress:
                progress(len(done), max(total, len(done)), counts)
            interrupted = False
            try:
                for case, verdicts, failure in _judged(todo, handle_sets, done, case_timeout, jobs, expect):
                    if failure:
                        result.oracle_failures.append(f"case {case.id} ({case.op}): {failure}")
                        print(f"conform: error: the oracle failed on case {case.id} ({case.op}): {failure}",
                              file=sys.stderr)
                        continue
                    for v in verdicts:
                        if v.divergent:
                            v.expected_divergence = expectations[v.adapter].match(v.key(), v.evidence())
                        out.write(case_record(run_id, v, case))
                        counts[v.verdict] += 1
                        result.ran += 1
                        if v.divergent and not v.expected_divergence:
                            result.unlisted += 1
                    if progress:
                        doneso = len(done) + result.ran
                        progress(doneso, max(total, doneso), counts)
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
        elif result.oracle_failures:
            result.exit_code = EXIT_ORACLE
            result.message = f"the oracle failed on {len(result.oracle_failures)} cases (not recorded)"
        elif result.unlisted:
            result.exit_code = EXIT_DIVERGED
        return result
    finally:
        for hs in handle_sets:
            for h in hs:
                h.close()


def _unlisted_in(path, expectations) -> int:
    from suites.judge import DIVERGENT, record_evidence, record_key
    n = 0
    for rec in iter_records(path):
        if rec["record"] == "case" and rec["verdict"] in DIVERGENT:
            e = expectations.get(rec["adapter"])
            if e is None or e.match(record_key(rec), record_evidence(rec)) is None:
                n += 1
    return n


def _run_id(corpus_hash, adapters_meta, shard, profile) -> str:
    # Derived from what was run, so two runs of the same commit give identical files apart from timings.
    blob = json.dumps([corpus_hash, [(a["name"], a["version"]) for a in adapters_meta], shard, profile])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _interpreters(specs, in_process, pythons) -> dict:
    """spec -> the Python its worker runs under (adapters.environments); None: this one."""
    from adapters.environments import InterpreterError, interpreter_for
    unknown = sorted(set(pythons) - set(specs))
    if unknown:
        raise RunError(f"--python names {', '.join(unknown)}, which this run does not run "
                       f"(adapters: {', '.join(specs)})", EXIT_USAGE)
    if in_process:
        if pythons:
            raise RunError("--python and --in-process exclude each other: an in-process adapter runs "
                           "in this interpreter", EXIT_USAGE)
        return {spec: None for spec in specs}
    try:
        return {spec: interpreter_for(spec, pythons) for spec in specs}
    except InterpreterError as e:
        raise RunError(str(e), e.exit_code) from None


def _open_handles(specs, in_process, case_timeout, memory_mb, jobs, pythons=None):
    from adapters.environments import is_this_interpreter
    from adapters.pool import open_handle
    from adapters.registry import AdapterError, load
    python = _interpreters(specs, in_process, pythons or {})
    for spec in specs:      # fail fast, before any worker starts, on names that do not resolve
        if not is_this_interpreter(python[spec]):
            continue        # only its own interpreter can tell (its worker's hello, below)
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
                h = open_handle(spec, in_process=in_process, case_timeout=case_timeout, memory_mb=memory_mb,
                                python=python[spec])
                h.spec = spec
                hs.append(h)
                if not h.available:
                    raise AdapterError(f"adapter {spec!r} is not available under {h.python}: {h.reason}")
    except AdapterError as e:
        for hs in sets:
            for h in hs:
                h.close()
        raise RunError(str(e), EXIT_ADAPTER) from None
    return sets


LOOKAHEAD = 2      # cases sent to the workers ahead of the one being judged


def _submit(case, handles, done, case_timeout):
    todo = [h for h in handles if (case.id, h.name) not in done]
    for h in todo:
        h.submit(case, timeout=case_timeout)
    return case, todo


def _finish(case, todo, expect):
    """Judge a submitted case; the oracle answers while the workers run (adapters and oracle overlap)."""
    from suites.judge import judge
    if expect is None:
        import oracle
        expect = oracle.expect
    try:
        expectation = expect(case)
    except Exception as e:      # an oracle bug on one case must not stop the other cases
        for h in todo:
            h.collect()
        return case, [], f"{type(e).__name__}: {e}"
    return case, [judge(case, expectation, h.collect(), h) for h in todo], None


def _judge_case(case, handles, done, case_timeout, expect):
    return _finish(*_submit(case, handles, done, case_timeout), expect)


def _judged(cases, handle_sets, done, case_timeout, jobs, expect):
    """(case, verdicts, oracle failure) in corpus order; jobs > 1: `jobs` handle sets in threads."""
    if jobs == 1:
        pending = deque()
        for case in cases:
            pending.append(_submit(case, handle_sets[0], done, case_timeout))
            if len(pending) > LOOKAHEAD:
                yield _finish(*pending.popleft(), expect)
        while pending:
            yield _finish(*pending.popleft(), expect)
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
