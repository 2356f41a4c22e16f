"""The pytest plugin: options, Hypothesis profiles, adapter selection and handles, result recording.

Recording works the same with and without pytest-xdist: every process writes
its verdicts to its own part file in a folder the controller made, and the
controller merges the parts into `--results` (sorted, so the file does not
depend on scheduling) at the end of the session.
"""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings

from contract.vocabulary import PROFILES, profiles_text

from . import profiles  # noqa: F401  (registers the Hypothesis profiles)


def pytest_addoption(parser):
    g = parser.getgroup("conform", "tensor-conformance")
    g.addoption("--adapter", action="append", default=None, metavar="NAME|module:Class",
                help="adapter under test (repeatable); default: every available adapter")
    g.addoption("--profile", default=None, choices=PROFILES,
                help=f"Hypothesis settings profile (default dev): {profiles_text()}")
    g.addoption("--corpus", default=None, metavar="PATH", help="corpus file (default: the shipped corpus)")
    g.addoption("--results", default=None, metavar="PATH", help="write the corpus verdicts to this results.jsonl")
    g.addoption("--expectations", action="append", default=None, metavar="[SPEC=]FILE|DIR",
                help="expected divergences of a candidate: FILE (one --adapter) or SPEC=FILE; or a folder "
                     "replacing suites/expectations for the shipped adapters (as `conform run --expectations`)")
    g.addoption("--case-timeout", type=float, default=None, metavar="S", help="seconds per case in a worker")
    g.addoption("--in-process", action="store_true", default=False, help="run adapters in the pytest process")
    g.addoption("--python", action="append", default=None, metavar="NAME=PATH",
                help="run adapter NAME's worker under the interpreter PATH (repeatable; as `conform run --python`)")
    g.addoption("--sample", default=None, metavar="NAMES",
                help="adapters whose corpus items are only the stratified sample (every op x input dtypes x "
                     "clause once: suites/sampling.py), comma-separated; 'none' runs every case everywhere "
                     "(default: the conform_sample ini value)")
    from adapters.registry import SHIPPED
    parser.addini("conform_sample", "adapters pytest runs on the corpus's stratified sample (default: the shipped "
                  "ones marked sampled in adapters/registry.py; `conform run` runs everything)", type="args",
                  default=[name for name, row in SHIPPED.items() if row.sampled])


STATE = pytest.StashKey["PluginState"]()


def pytest_configure(config):
    settings.load_profile(_profile_name(config))
    state = PluginState(config)
    config.stash[STATE] = state
    config.pluginmanager.register(state, "conform-state")
    state.check_options()       # --case-timeout <= 0, a missing --expectations folder: as conform run refuses them
    if config.getoption("adapter"):
        state.check_names()     # a name that resolves to nothing stops the run before collection
    if config.getoption("expectations") is not None:
        state.check_expectations()  # a bad folder or file stops the run before collection, too
    if config.getoption("corpus") is not None:
        state.corpus()              # so does a bad --corpus


def state_of(config) -> "PluginState":
    return config.stash[STATE]


class PluginState:
    """The plugin's side of a run session: which records go to which part file, and the merge at the end.

    The session (suites/session.py) selects and opens the adapters, computes each case's Expectation
    once, judges and matches expectations; this class only wires it to pytest and pytest-xdist.
    """

    def __init__(self, config):
        self.config = config
        self._session = None
        self.worker = getattr(config, "workerinput", None)
        if self.worker is not None:
            self.parts = self.worker["conform_parts"]
            self.part_name = self.worker["workerid"]
        else:
            self.parts = None       # made on first use, so `pytest --help` leaves nothing behind
            self.part_name = "main"
        self._writer = None
        self.merged = None
        self.planned = []           # (target, case) of the corpus items this process runs, in run order
        self._background = None          # the scheduler's run over them (BackgroundRun), started by the first item

    @property
    def session(self):
        if self._session is None:
            from .options import RunOptions
            from .session import RunSession, SessionError
            opt = self.config.getoption
            try:        # the options are checked as conform run checks them (suites/options.py)
                folder, files = self.expectations_choice()
                self._session = RunSession(RunOptions(
                    adapters=tuple(opt("adapter") or ()), corpus=opt("corpus"), expectations_dir=folder,
                    expectations_files=files or {}, case_timeout=opt("case_timeout"),
                    in_process=bool(opt("in_process")), profile=_profile_name(self.config), pythons=self.pythons(),
                    # one process runs its planned items on every core (an xdist worker checks items one by
                    # one: xdist spreads those)
                    jobs=(os.cpu_count() or 1) if self.worker is None else 1))
            except SessionError as e:
                raise pytest.UsageError(str(e)) from None
        return self._session

    def pythons(self) -> dict:
        """--python NAME=PATH as {NAME: PATH}; conform.toml and pyproject.toml are the session's to read."""
        from adapters.environments import InterpreterError, parse_option
        try:
            return parse_option(self.config.getoption("python"))
        except InterpreterError as e:
            raise pytest.UsageError(str(e)) from None

    def _parts_dir(self):
        if self.parts is None:
            self.parts = tempfile.mkdtemp(prefix="conform-parts-")
        return self.parts

    # ---- xdist ----------------------------------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        node.workerinput["conform_parts"] = self._parts_dir()

    # ---- adapters -------------------------------------------------------------------------
    def check_options(self):
        from .options import SessionError, check_options
        opt = self.config.getoption
        try:
            check_options(opt("case_timeout"), 1, self.expectations_choice()[0])
        except SessionError as e:
            raise pytest.UsageError(str(e)) from None
        self.pythons()      # a malformed --python, too

    def expectations_choice(self) -> tuple:
        """(folder, {target: file}) of --expectations (suites.known_divergences.parse_option); a usage error if unusable."""
        from .known_divergences import parse_option
        try:
            return parse_option(self.config.getoption("expectations"), self.config.getoption("adapter"))
        except ValueError as e:
            raise pytest.UsageError(str(e)) from None

    def check_names(self):
        from adapters.registry import AdapterError, resolve
        for target in self.config.getoption("adapter"):
            try:
                resolve(target)
            except AdapterError as e:
                raise pytest.UsageError(f"--adapter: {e}" + _available_text(self.pythons())) from None

    def selected(self) -> list:
        """The adapter targets under test (opened in their workers); a usage error says why one is not."""
        from .session import SessionError
        try:
            return [h.target for h in self.session.handles]
        except SessionError as e:
            raise pytest.UsageError(f"--adapter: {e}" + _available_text(self.pythons())) from None

    def handle(self, target):
        return self.session.handle(target)

    def check_expectations(self):
        """Every <adapter>.txt of --expectations read and checked now, so damage is a usage error
        naming file and line rather than a failure inside the first test that matches one."""
        from .known_divergences import KnownDivergences, KnownDivergencesError, check_dir
        folder, files = self.expectations_choice()
        try:
            if folder is not None:
                check_dir(folder)
            for path in files.values():
                KnownDivergences.load(path)
        except KnownDivergencesError as e:
            raise pytest.UsageError(f"--expectations: {e}") from None

    def sampled(self) -> set:
        """The adapter names and targets whose corpus items are the stratified sample (--sample, conform_sample)."""
        given = self.config.getoption("sample")
        names = given.split(",") if given is not None else self.config.getini("conform_sample")
        return {n.strip() for n in names if n.strip() and n.strip() != "none"}

    def corpus_for(self, target) -> list:
        """The corpus cases `target`'s items run: all of them, or the stratified sample for a sampled adapter."""
        if target not in self.sampled() and self.handle(target).name not in self.sampled():
            return self.corpus()
        if not hasattr(self, "_sample"):
            from .sampling import stratified
            self._sample = stratified(self.corpus())
        return self._sample

    def corpus(self):
        """The corpus cases of this run (all of them), loaded once per process."""
        from .session import SessionError
        if not hasattr(self, "_cases"):
            try:
                self._cases = list(self.session.cases())
            except SessionError as e:
                raise pytest.UsageError(str(e)) from None
        return self._cases

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        # The corpus items this process runs, once deselection is done: the same scheduler as `conform run`
        # runs them ahead of pytest, every core busy.  An xdist worker is handed items as it goes, so it
        # checks each when it comes (xdist spreads those over the cores).
        if self.worker is None:
            self.planned = [it.callspec.params["corpus_item"] for it in items
                            if hasattr(it, "callspec") and "corpus_item" in it.callspec.params]

    def check(self, target, case):
        """One corpus case through one adapter: judged, listed divergences matched, recorded."""
        v = None
        if self.planned:
            if self._background is None:
                self._background = BackgroundRun(self.session, self.planned)
            v = self._background.verdict(target, case)
        elif self.worker is not None:
            v = self._xdist_queue_verdict(target, case)
        if v is None:       # not planned (a rerun, a lone item): the scheduler is done by then
            v = self.session.check(case, self.handle(target))
        self.record(v, case)
        return v

    def _xdist_queue_verdict(self, target, case):
        """In an xdist worker: the verdict from the scheduler run over this item and the corpus items xdist has
        handed this worker right after it (up to the first other test, which so never runs beside it); None
        when there are none, or this xdist keeps its queue otherwise."""
        if self._background is not None:
            if self._background.wants(target, case):
                return self._background_verdict(target, case)
            self._background.finish()
            self._background = None
        batch = [(target, case)] + _xdist_queued_items(self.config)
        if len(batch) < 2:
            return None
        self._background = BackgroundRun(self.session, batch)
        return self._background_verdict(target, case)

    def _background_verdict(self, target, case):
        v = self._background.verdict(target, case)
        if self._background.all_taken:       # its last item: done (its workers closed) before the next test starts
            self._background.finish()
            self._background = None
        return v

    def explore(self, handle, case):
        """One explored case through one adapter, judged and matched against the expectations (not recorded)."""
        if self._background is not None:
            self._background.finish()        # a worker serves one caller at a time
        return self.session.check(case, handle)

    # ---- recording --------------------------------------------------------------------------
    def record(self, verdict, case):
        from contract.results import ResultsWriter
        if self._writer is None:
            self._writer = ResultsWriter(os.path.join(self._parts_dir(), f"{self.part_name}.jsonl"))
            header = self.session.header()
            self._part_run_id = header["run_id"]
            self._writer.write(header)
        # A part's run id is its own; the merge sets the run's, once every part's adapters are known.
        self._writer.write(self.session.record(verdict, case, self._part_run_id))

    def pytest_sessionfinish(self, session):
        if self._background is not None:
            self._background.stop()
        if self._session is not None:
            self._session.close()
        if self._writer is not None:
            self._writer.close()
        if self.worker is None and self.parts is not None:
            self.merged = _merge_parts(self.parts, self.config.getoption("results"), self)
            shutil.rmtree(self.parts, ignore_errors=True)

    def pytest_terminal_summary(self, terminalreporter):
        merged = self.merged
        if not merged:
            return
        for line in merged["unmatched"]:
            terminalreporter.write_line(f"conform: expectation pattern matched nothing: {line}", yellow=True)
        if merged["path"]:
            terminalreporter.write_line(f"conform: {merged['cases']} results -> {merged['path']}")


class BackgroundRun:
    """The planned corpus items run by the session's scheduler in a thread, ahead of pytest's own calls;
    each item then takes its verdict (or waits for it)."""

    def __init__(self, session, planned):
        import threading
        self._names = {h.target: h.name for h in session.handles}
        self._want = {(case.id, self._names.get(target)) for target, case in planned}
        cases, seen = [], set()
        for _, case in planned:
            if case.id not in seen:
                seen.add(case.id)
                cases.append(case)
        self._gen = session.judged(cases, skip=lambda c, name: (c.id, name) not in self._want,
                                   total=len(cases))
        self._session = session
        self._got, self._failed = {}, {}
        self._taken = 0         # verdicts asked for (an xdist worker's look-ahead ends with its last)
        self._cv = threading.Condition()
        self._done = False
        self._error = None
        self._thread = threading.Thread(target=self._drain, name="conform-ahead", daemon=True)
        self._thread.start()

    def _drain(self):
        try:
            for case, verdicts, failure in self._gen:
                with self._cv:
                    if failure:
                        self._failed[case.id] = failure
                    for v in verdicts:
                        self._got[(case.id, v.adapter)] = v
                    self._cv.notify_all()
        except BaseException as e:      # re-raised in the item that waits for it
            self._error = e
        finally:
            with self._cv:
                self._done = True
                self._cv.notify_all()

    def wants(self, target, case) -> bool:
        return (case.id, self._names.get(target)) in self._want

    @property
    def all_taken(self) -> bool:
        return self._taken >= len(self._want)

    def verdict(self, target, case):
        """The verdict of a planned pair; None for a pair the scheduler does not run (checked directly)."""
        self._taken += 1
        key = (case.id, self._names.get(target))
        if key not in self._want:
            self.finish()
            return None
        with self._cv:
            while key not in self._got and case.id not in self._failed and not self._done:
                self._cv.wait(0.5)
            if self._error is not None:
                raise self._error
            if case.id in self._failed:
                raise RuntimeError(f"the oracle failed on case {case.id}: {self._failed[case.id]}")
            v = self._got.pop(key, None)
        if v is None:
            self.finish()
        return v

    @property
    def _loop(self):
        return self._session.loop

    def finish(self):
        self._thread.join()

    def stop(self):
        """A pytest session that ended early (-x, Ctrl-C): the workers stop, and the thread with them."""
        if self._thread.is_alive() and self._loop is not None:
            self._loop.cancel()
        self._thread.join(timeout=30)


XDIST_QUEUE_MAX = 4000      # corpus items one look-ahead in an xdist worker takes at most


def _xdist_queued_items(config) -> list:
    """(target, case) of the corpus items pytest-xdist has queued in this worker, in the order it will run them,
    up to the first item of another test.  Read from xdist's worker loop (its next item and its queue, under
    the queue's lock); [] where that is not there to read (another xdist), and the items then run one by one."""
    loop = next((p for p in config.pluginmanager.get_plugins()
                 if hasattr(p, "torun") and hasattr(p, "nextitem_index") and hasattr(p, "session")), None)
    lock = getattr(getattr(loop, "torun", None), "lock", None)
    if loop is None or lock is None:
        return []
    try:
        with lock() as queue:
            indices = [loop.nextitem_index, *queue]
    except TypeError:
        return []
    items, out = loop.session.items, []
    for i in indices:
        if not isinstance(i, int) or not 0 <= i < len(items):
            break
        params = getattr(getattr(items[i], "callspec", None), "params", {})
        if "corpus_item" not in params:
            break
        out.append(params["corpus_item"])
        if len(out) >= XDIST_QUEUE_MAX:
            break
    return out


def _available_text(pythons=None) -> str:
    from adapters.environments import InterpreterError
    from adapters.catalog import available_adapters
    try:
        infos = available_adapters(pythons)
    except InterpreterError:        # a config file that cannot be read: the error itself says so
        return ""
    avail = [i.name for i in infos if i.available]
    others = [f"{i.name} ({i.reason})" for i in infos if not i.available]
    return (f"\navailable adapters: {', '.join(avail) or 'none'}" +
            (f"\nunavailable: {'; '.join(others)}" if others else ""))


def _profile_name(config):
    return config.getoption("profile") or os.environ.get("CONFORM_PROFILE") or "dev"


def _merge_parts(parts, results_path, state):
    """Join the part files into one results file; report expectation patterns no divergence matched.

    Patterns are only reported when the whole corpus ran: with -k or a shard, a pattern whose cases
    were deselected has nothing to match, which is no news.
    """
    from contract.results import ResultsWriter, iter_records
    from .session import run_id_of
    header, records, adapters = None, [], {}
    for name in sorted(os.listdir(parts)):
        for rec in iter_records(os.path.join(parts, name)):
            if rec["record"] == "run":
                header = header or rec
                for a in rec["adapters"]:
                    adapters.setdefault(a["name"], a)
            elif rec["record"] == "case":
                records.append(rec)
    if header is None:
        return {"unmatched": [], "path": None, "cases": 0}
    records.sort(key=lambda r: (r["op"], r["case_id"], r["adapter"]))
    session = state.session
    # Every part's expectations matched only that part's divergences: match them all here.
    session.known = {}
    from .known_divergences import KnownDivergences
    for a in sorted({r["adapter"] for r in records}):      # the file the harness chose for the adapter's target
        session.known[a] = KnownDivergences.load(session.expectations_file((adapters.get(a) or {}).get("spec", "")))
    session.unlisted_in(records)
    whole = _ran_whole_corpus(state, records)
    unmatched = session.unmatched_patterns() if whole else []
    if results_path:
        meta = [adapters[k] for k in sorted(adapters)]
        run_id = run_id_of(header["corpus_hash"], meta, header.get("shard", "1/1"), header.get("profile", ""))
        from collections import Counter
        counts = Counter(r["verdict"] for r in records)
        with ResultsWriter(results_path) as out:
            out.write({**header, "run_id": run_id, "adapters": meta})
            for r in records:
                out.write({**r, "run_id": run_id})
            out.write(session.end_record(run_id, counts))
    return {"unmatched": unmatched, "path": results_path, "cases": len(records)}


def _ran_whole_corpus(state, records) -> bool:
    declared = records and state.session.source.declared
    adapters = {r["adapter"] for r in records}
    return bool(declared) and len({(r["case_id"], r["adapter"]) for r in records}) == declared * len(adapters)


# ---- fixtures -------------------------------------------------------------------------------

def pytest_generate_tests(metafunc):
    if "adapter_handle" in metafunc.fixturenames:
        targets = state_of(metafunc.config).selected()
        metafunc.parametrize("adapter_handle", targets, indirect=True, ids=[target_id(s) for s in targets])


def target_id(target: str) -> str:
    """A target as a test id: a built-in name as it is, module:Class as its Class."""
    from adapters.registry import BUILTIN      # a built-in name keeps its colon ("array-api:numpy")
    if target in BUILTIN:
        return target
    return target.rsplit(":", 1)[-1] if ":" in target else target


@pytest.fixture
def adapter_handle(request):
    """One selected adapter's handle (a worker, or in-process with --in-process); tests get one per adapter."""
    return state_of(request.config).handle(request.param)


@pytest.fixture
def conform(request):
    """The plugin's state: corpus(), handle(target), check(target, case), explore(handle, case)."""
    return state_of(request.config)
