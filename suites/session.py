"""The run session: what `conform run`, `conform certify` and the pytest plugin share.

A session selects and opens adapters (their availability is asked of the
worker, which is where a candidate's code runs), builds the results header and
the run id, computes the oracle's Expectation once per case while the adapters
work on it, judges each outcome, matches divergences against the expectations
files and counts what it recorded, and finishes with the end record and the
expectation patterns that matched nothing.  The drivers only decide where
records go (one results file, or one part file per pytest-xdist worker) and
how they report progress.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional

from contract.inputfile import InputFileError
from contract.results import case_record, end_record, run_record
from contract.vocabulary import DIVERGENT, EXIT_ADAPTER, EXIT_BAD_INPUT, EXIT_USAGE, UNDECLARED

from .tagging import last_answer
from .judge import Verdict, judge, record_evidence, record_key
from . import variants
from .describe import describe
from .opening import Opener
from .options import RunOptions, SessionError, check_options, parse_shard  # noqa: F401  (the drivers' names)

EXPECT_CACHE = 64       # expectations kept, so the per-adapter test items of one case share one


# ---- shards ------------------------------------------------------------------------------

def in_shard(case_id: str, k: int, n: int) -> bool:
    # By content hash, not position: a case stays in its shard when others are added or removed.
    return n == 1 or int(case_id[:15], 16) % n == k - 1


# ---- the corpus ----------------------------------------------------------------------------

class CorpusSource:
    """A corpus file read lazily, so a 100,000-case run never holds the corpus in memory.

    `hash` is the corpus hash, `declared` the case count its header declares (None if unknown).
    Iterating yields Cases; a malformed line raises SessionError(EXIT_BAD_INPUT) with file:line.
    """

    def __init__(self, path=None):
        from . import corpus as C
        self._C = C
        self.path = str(path) if path is not None else str(C.DEFAULT_PATH)
        try:
            if path is None and not os.path.exists(self.path):
                C.load_corpus(None)         # raises the corpus module's own "build it" message
            self.hash = C.corpus_hash(self.path)
        except InputFileError as e:     # names the file (and line) itself
            raise SessionError(str(e), EXIT_BAD_INPUT) from None
        except (OSError, ValueError) as e:
            raise SessionError(f"cannot load corpus {self.path}: {e}", EXIT_BAD_INPUT) from None
        self.declared = _declared_count(self.path)

    def __iter__(self):
        it = iter(self._C.iter_corpus(self.path))
        while True:
            try:
                case = next(it)
            except StopIteration:
                return
            except (OSError, ValueError) as e:
                raise SessionError(f"bad corpus: {e}", EXIT_BAD_INPUT) from None
            yield case


def _declared_count(path):
    # The corpus header (line 1, suites/corpus.py) declares the count; used for progress and the header.
    try:
        with open(path, "rb") as f:
            head = json.loads(f.readline(1 << 20))
        n = head.get("cases")
        return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
    except (OSError, ValueError, AttributeError):
        return None


# ---- adapters --------------------------------------------------------------------------------

def default_specs() -> list:
    """Every adapter found by name (built-ins and entry points); the unavailable ones are dropped on open."""
    from adapters.registry import known
    return sorted(known())


def adapter_meta(h, expectations=None, exclusions=None) -> dict:
    """What the results header records of one open adapter; `expectations`: the file the harness chose for
    it (suites.known_divergences.file_record: path, sha256), or None; `exclusions`: its declared exclusions
    (a KnownDivergences of Adapter.excludes), recorded as {"line", "reason"}."""
    meta = {"name": h.name, "version": h.version, "execution": h.execution, "available": h.available,
            "reason": h.reason, "spec": h.target, "expectations": expectations,
            "ops": list(getattr(h, "ops", ()))}
    meta["excludes"] = [{"line": p.text(), "reason": p.reason} for p in (exclusions.patterns if exclusions else ())]
    for k in ("python", "python_version", "numpy"):    # the interpreter the worker runs under, where the handle knows it
        if getattr(h, k, None):
            meta[k] = getattr(h, k)
    return meta


def run_id_of(corpus_hash, adapters_meta, shard, profile, ops=None) -> str:
    # Derived from what was run, so two runs of the same commit give identical files apart from timings.
    what = [corpus_hash, sorted((a["name"], a["version"]) for a in adapters_meta), shard, profile]
    blob = json.dumps(what + [list(ops)] if ops else what)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _option(name: str) -> property:
    return property(lambda self: getattr(self.options, name), doc=f"RunOptions.{name}")


@dataclass
class Totals:
    counts: Counter = field(default_factory=Counter)
    recorded: int = 0                # case records this session produced
    unlisted: int = 0                # divergences no expectations line covers


class RunSession:
    """One run: adapters, expectations, the header and run id, expect-once-per-case judging, totals.

    `options`: the run's options (suites/options.py), already checked.  Its adapters: names or module:Class;
    none selects every available adapter (an unavailable one is skipped with its reason in `skipped`), while
    a named one that is unavailable is an error.  `expect`: case -> Expectation (default oracle.expect).
    Usable as a context manager; `close()` stops every worker.
    """

    def __init__(self, options: RunOptions, expect=None):
        self.options = options
        self.specs = list(options.adapters) or None
        self.k, self.n = options.shard_k_n
        self.jobs = options.slots       # calls run at once over all adapters (suites/loop.py)
        self.opener = Opener(options)       # starts the handles (suites/opening.py)
        self._expect = expect
        self.kinds = variants.kinds(options.layouts, options.construction_check)   # the kinds of variant compared
        self._source = None
        self.handle_sets: list = []
        self.skipped: list = self.opener.skipped    # "target: reason" of default-selected adapters that are unavailable
        self.known: dict = {}
        self.expectation_records: dict = {}    # adapter name -> file_record of its chosen file
        self.variants: dict = {}               # name -> suites.variants.Variant, both it and its base in this run
        self.exclusions: dict = {}             # adapter name -> its declared exclusions (Adapter.excludes)
        self.totals = Totals()
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = EXPECT_CACHE
        self._lock = threading.Lock()       # the loop's slots share the cache and the match counts
        self.loop = None            # the run loop of the last judged() (suites/loop.py)
        self._idle_workers = {}            # target: workers a finished loop added, for the next (_open_another)
        self._loads = {}            # lane name: its measured load, carried from one loop to the next

    # ---- the options the session reads (its drivers and the loop read them of it) -----------
    case_timeout, in_process, profile, ops = (_option(n) for n in ("case_timeout", "in_process", "profile", "ops"))
    construction_check, layouts, pythons = (_option(n) for n in ("construction_check", "layouts", "pythons"))

    # ---- corpus ---------------------------------------------------------------------------
    @property
    def source(self) -> CorpusSource:
        if self._source is None:
            self._source = CorpusSource(self.options.corpus)
        return self._source

    @property
    def shard(self) -> str:
        return f"{self.k}/{self.n}"

    def cases(self, op: Optional[str] = None) -> Iterator:
        """The corpus cases of this shard and of the session's ops (of one op, if given), streamed."""
        for c in self.source:
            if (op is None or c.op == op) and (not self.ops or c.op in self.ops) and in_shard(c.id, self.k, self.n):
                yield c

    # ---- adapters -------------------------------------------------------------------------
    def open(self) -> "RunSession":
        """Start the adapters (each in its worker, unless in-process) and load their expectations."""
        if self.handle_sets:
            return self
        from adapters import compile_cache
        from adapters.registry import AdapterError, resolve
        if (problem := compile_cache.writable_problem(os.environ)):
            raise SessionError(problem, EXIT_USAGE)
        targets = self.specs or default_specs()
        for target in targets:          # names that resolve to nothing fail before any worker starts
            try:
                resolve(target)
            except AdapterError as e:
                raise SessionError(str(e), EXIT_ADAPTER) from None
        unknown = sorted(set(self.pythons) - set(targets))
        if unknown:
            raise SessionError(f"--python names {', '.join(unknown)}, which this run does not run "
                               f"(adapters: {', '.join(targets)})", EXIT_USAGE)
        try:
            first = self.opener.open_set(targets, select=True)
            defaults = list(first)
            beside = variants.beside(defaults, self.kinds)     # each other way, then each layout
            if beside:
                first += self.opener.open_set(beside, select=False)
            self.handle_sets.append(first)      # more workers per adapter are started as the run needs them
        except BaseException:
            self.close()
            raise
        names = [h.name for h in first]
        if not names:
            raise SessionError("no adapter is available" + (f" ({'; '.join(self.skipped)})" if self.skipped else ""),
                               EXIT_ADAPTER)
        if len(set(names)) != len(names):
            raise SessionError(f"adapters with the same name given twice: {names}", EXIT_USAGE)
        from .known_divergences import KnownDivergences, KnownDivergencesError, file_record
        loaded = {}     # one object per file: a construction variant shares its candidate's (and its match counts)
        try:
            for hs in self.handle_sets[:1]:
                for h in hs:
                    path = self.expectations_file(h.target)
                    if path not in loaded:
                        loaded[path] = KnownDivergences.load(path)
                    self.known[h.name] = loaded[path]
                    self.expectation_records[h.name] = file_record(path)
        except (KnownDivergencesError, OSError) as e:
            raise SessionError(str(e), EXIT_BAD_INPUT) from None
        self.variants = variants.of_run(self.handle_sets[0], self.kinds)
        try:
            for h in self.handle_sets[0]:
                self.exclusions[h.name] = KnownDivergences.from_lines(getattr(h, "excludes", ()), f"{h.target} excludes")
        except KnownDivergencesError as e:
            raise SessionError(f"adapter {e.path.split(' ')[0]}: a declared exclusion is malformed: {e}", EXIT_ADAPTER) from None
        return self

    def expectations_file(self, target) -> str:
        """The expectations file the harness chooses for `target` (suites.known_divergences.chosen_file)."""
        from .known_divergences import chosen_file
        return chosen_file(target, self.options.expectations_dir, dict(self.options.expectations_files))

    @property
    def handles(self) -> list:
        """The first handle set: one open handle per selected adapter."""
        return self.open().handle_sets[0]

    def handle(self, target):
        for h in self.handles:
            if h.target == target:
                return h
        raise KeyError(target)

    def adapters_meta(self) -> list:
        return [adapter_meta(h, self.expectation_records.get(h.name), self.exclusions.get(h.name))
                for h in self.handles]

    def close(self):
        if self.loop is not None:
            self.loop.close()
        for kept in self._idle_workers.values():
            for h in kept:
                h.close()
        self._idle_workers = {}
        for hs in self.handle_sets:
            for h in hs:
                h.close()
        self.handle_sets = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- header ---------------------------------------------------------------------------
    def run_id(self, adapters_meta=None) -> str:
        meta = self.adapters_meta() if adapters_meta is None else adapters_meta
        return run_id_of(self.source.hash, meta, self.shard, self.profile, self.ops)

    def header(self, adapters_meta=None) -> dict:
        meta = self.adapters_meta() if adapters_meta is None else adapters_meta
        header = run_record(self.run_id(meta), self.source.hash, self.source.declared, meta, profile=self.profile,
                            shard=self.shard)
        if self.ops:
            header["ops"] = list(self.ops)      # conform certify --op: docs/RESULTS.md
        from oracle.identity import oracle_id
        header["oracle"] = oracle_id()          # which oracle judged (docs/RESULTS.md, docs/HISTORY.md)
        return header

    # ---- judging ----------------------------------------------------------------------------
    def expectation(self, case):
        """oracle.expect(case), once per case: the per-adapter items of one case share the answer."""
        with self._lock:
            return self._expectation(case)

    def _expectation(self, case):
        hit = self._cache.get(case.id)
        if hit is not None:
            self._cache.move_to_end(case.id)
            return hit
        import oracle
        if self._expect is None:
            self._expect = oracle.expect
        # an explored case was answered by the oracle when it was made: that answer, if it is the oracle's
        e = last_answer(case) if self._expect is oracle.expect else None
        if e is None:
            e = self._expect(case)
        self._cache[case.id] = e
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return e

    def verdict(self, case, expectation, outcome, handle) -> Verdict:
        """Judge one outcome and name the expectations line that lists it, if it diverges (its repro is
        asked of the handle afterwards: suites/describe.py)."""
        v = judge(case, expectation, outcome, handle)
        with self._lock:
            return self._listed(v, case, handle)

    def _listed(self, v, case, handle) -> Verdict:
        if v.verdict == "not-applicable" and case.op in getattr(handle, "ops", ()):
            excluded = self.exclusions.get(v.adapter)
            reason = excluded.match(v.key(), v.evidence()) if excluded else None
            if reason is None:      # withheld inside a claimed op: failing (contract.vocabulary.UNDECLARED)
                v.verdict = UNDECLARED
                v.outcome = f"{v.outcome} (inside {case.op}, which it claims; no declared exclusion matches)"
            else:
                v.notes.append(f"declared exclusion: {reason}")    # reports.certify.EXCLUDED_NOTE counts these
        if v.divergent:
            v.expected_divergence = self.known[v.adapter].match(
                v.key(), v.evidence(), release=str(v.adapter_version).split(" ")[0])   # `@ <releases>` lines
        return v

    def check(self, case, handle) -> Verdict:
        """One case through one open handle, judged (the pytest plugin's per-item call)."""
        expectation = self.expectation(case)
        handle.submit(case, timeout=self.case_timeout)      # the worker runs while the oracle answers
        return describe(self.verdict(case, expectation, handle.collect(), handle), case, expectation, handle)

    def record(self, verdict, case, run_id) -> dict:
        """The case record of a verdict, counted in the totals."""
        self.totals.counts[verdict.verdict] += 1
        self.totals.recorded += 1
        if verdict.divergent and not verdict.expected_divergence:
            self.totals.unlisted += 1
        return case_record(run_id, verdict, case)

    def judged(self, cases: Iterable, skip: Callable = lambda case, name: False, total: int = 0) -> Iterator:
        """(case, verdicts, oracle failure) in corpus order, `jobs` calls at a time over every adapter
        (suites/loop.py runs them; suites/scheduler.py decides which idle worker takes what).
        `skip(case, adapter_name)` leaves out pairs a resumed run already has; `total`: the cases
        expected, for progress and the scheduler's estimate of each adapter's work left."""
        from .loop import Loop
        handles = self.open().handle_sets[0]
        loop = Loop(self, handles, self.jobs, self._open_another, total=total,
                    kept={target: len(hs) for target, hs in self._idle_workers.items()}, loads=self._loads)
        self.loop = loop
        self._cache_size = max(EXPECT_CACHE, 2 * loop.window)     # a lane may lag the window behind
        ended = False
        try:
            yield from loop.judged(cases, skip)
            ended = True
        finally:
            # The workers it added, and each lane's measured load, serve the session's next run over a part of
            # the corpus (each look-ahead of an xdist worker is one): a run cut short closes them.
            for h in loop.release():
                if ended:
                    self._idle_workers.setdefault(h.target, []).append(h)
                else:
                    h.close()
            self._loads.update(loop.loads())

    def per_adapter(self) -> list:
        """(name, done, total, workers, busy seconds) per adapter of the running loop (the progress line)."""
        return self.loop.snapshot() if self.loop is not None else []

    def usage(self):
        """(the loop's usage(), the slots it ran), or None before any loop ran."""
        return (self.loop.usage(), self.loop.jobs) if self.loop is not None else None

    def _open_another(self, target):
        """Another worker of `target`: one kept from an earlier run of this session, or a new one."""
        kept = self._idle_workers.get(target)
        return kept.pop() if kept else self.opener.open_set([target], select=False)[0]

    # ---- the end ------------------------------------------------------------------------------
    def end_record(self, run_id, counts=None) -> dict:
        counts = self.totals.counts if counts is None else counts
        return end_record(run_id, sum(counts.values()), counts)

    def unmatched_patterns(self) -> list:
        """'file:line glob' of every expectations line that matched no divergence of this session.

        A variant's line ({kind}/...) only counts where a variant of that kind ran beside its base and
        belongs to the file's adapter (a mode/ line: where the mode ran beside its twin)."""
        compared = {(v.owner, v.kind) for v in self.variants.values()}
        users: dict = {}            # one file's object -> the names of the adapters it lists for
        for name, e in self.known.items():
            users.setdefault(id(e), (e, set()))[1].add(name)
        return [f"{p.where()} {p.glob}" for e, names in users.values() for p in e.unmatched()
                if all(not p.glob.startswith(f"{k}/") or any((n, k) in compared for n in names) for k in variants.KINDS)]

    def variant_differences(self, case, verdicts) -> list:
        """The variant check on one case's verdicts (suites/variants.py): sets each compared layout's and
        mode's finding, and gives each variant's differences from its base, matched against the expectations."""
        if not self.variants:
            return []
        found = variants.compare(case, verdicts, self.variants,
                          lambda var, key, evidence: self.known[var.owner].match(key, evidence, var.prefix))
        by_name = {v.adapter: v for v in verdicts}
        for d in found:
            v = by_name[d.variant.name]
            # a divergence only the layout brings is the listed difference itself: listed once, under its
            # layout/ line, not again as if the adapter diverged in its default layout
            if d.kind == "layout" and d.listed and v.divergent and not v.expected_divergence:
                v.expected_divergence = f"{d.variant.prefix}{d.variant.way}: {d.listed}"
        self.totals.unlisted += sum(1 for d in found if not d.listed)
        return found

    def unlisted_in(self, records: Iterable) -> int:
        """Divergences no expectations line covers among results records (e.g. those before a resume)."""
        n = 0
        for rec in records:
            if rec["record"] == "case" and rec["verdict"] in DIVERGENT and not (rec.get("layout") or {}).get("listed"):
                e = self.known.get(rec["adapter"])
                if e is None or e.match(record_key(rec), record_evidence(rec)) is None:
                    n += 1
            if rec["record"] == "case" and variants.unlisted_record(rec):
                n += 1
        return n
