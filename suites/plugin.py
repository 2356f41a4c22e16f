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
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

PROFILES = ("dev", "ci", "certify", "thorough")
_HOME = os.path.join(tempfile.gettempdir(), "tensor-conformance-hypothesis")
_DB = os.path.join(_HOME, "examples")
# Hypothesis keeps caches (constants, unicode data) under its home, by default ./.hypothesis in the
# working tree; generated files stay out of the tree.
set_hypothesis_home_dir(_HOME)
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("dev", max_examples=25, deadline=None, database=DirectoryBasedExampleDatabase(_DB),
                          suppress_health_check=_SLOW)
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=_SLOW)
settings.register_profile("certify", max_examples=1000, deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=_SLOW)
settings.register_profile("thorough", max_examples=20000, deadline=None,
                          database=DirectoryBasedExampleDatabase(_DB), suppress_health_check=_SLOW)


def pytest_addoption(parser):
    g = parser.getgroup("conform", "tensor-conformance")
    g.addoption("--adapter", action="append", default=None, metavar="NAME|module:Class",
                help="adapter under test (repeatable); default: every available adapter")
    g.addoption("--profile", default=None, choices=PROFILES,
                help="Hypothesis settings profile: dev (default), ci (derandomized), certify, thorough")
    g.addoption("--corpus", default=None, metavar="PATH", help="corpus file (default: the shipped corpus)")
    g.addoption("--results", default=None, metavar="PATH", help="write the corpus verdicts to this results.jsonl")
    g.addoption("--expectations", default=None, metavar="DIR",
                help="folder of <adapter>.txt expected divergences (default: suites/expectations)")
    g.addoption("--case-timeout", type=float, default=None, metavar="S", help="seconds per case in a worker")
    g.addoption("--in-process", action="store_true", default=False, help="run adapters in the pytest process")
    g.addoption("--python", action="append", default=None, metavar="NAME=PATH",
                help="run adapter NAME's worker under the interpreter PATH (as `conform run --python`)")


def pytest_configure(config):
    settings.load_profile(config.getoption("profile") or os.environ.get("CONFORM_PROFILE") or "dev")
    state = _State(config)
    config._conform = state
    config.pluginmanager.register(state, "conform-state")
    if config.getoption("adapter"):
        state.selected()        # an unknown or unavailable adapter stops the run before collection


class _State:
    def __init__(self, config):
        self.config = config
        self._selected = None
        self._handles = {}
        self._corpus = None
        self._expectations = {}
        self.worker = getattr(config, "workerinput", None)
        if self.worker is not None:
            self.parts = self.worker["conform_parts"]
            self.part_name = self.worker["workerid"]
        else:
            self.parts = None       # made on first use, so `pytest --help` leaves nothing behind
            self.part_name = "main"
        self._writer = None

    def _parts_dir(self):
        if self.parts is None:
            self.parts = tempfile.mkdtemp(prefix="conform-parts-")
        return self.parts

    # ---- xdist ----------------------------------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        node.workerinput["conform_parts"] = self._parts_dir()

    # ---- adapters -------------------------------------------------------------------------
    def selected(self) -> list:
        """The adapter specs under test; a usage error names the available ones and why others are not."""
        if self._selected is None:
            from adapters.environments import InterpreterError, ask, configured
            from adapters.registry import info, known
            given = self.config.getoption("adapter")
            specs = given or sorted(known())
            chosen, refused = [], []
            try:
                files = configured()
            except InterpreterError as e:
                raise pytest.UsageError(str(e)) from None
            for spec in specs:
                # in-process, every adapter runs here; else each is asked under its own interpreter
                i = info(spec) if self.config.getoption("in_process") else ask(spec, self.pythons(), files=files)
                (chosen if i.available else refused).append(spec if i.available else f"{spec}: {i.reason}")
            if given and refused:
                from adapters.environments import available_adapters
                infos = available_adapters(self.pythons())
                avail = [i.name for i in infos if i.available]
                others = [f"{i.name} ({i.reason})" for i in infos if not i.available]
                raise pytest.UsageError("--adapter: " + "; ".join(refused) +
                                        f"\navailable adapters: {', '.join(avail) or 'none'}" +
                                        (f"\nunavailable: {'; '.join(others)}" if others else ""))
            self._selected = chosen
        return self._selected

    def pythons(self) -> dict:
        from adapters.environments import InterpreterError, parse_option
        try:
            return parse_option(self.config.getoption("python"))
        except InterpreterError as e:
            raise pytest.UsageError(str(e)) from None

    def handle(self, spec):
        if spec not in self._handles:
            from adapters.environments import interpreter_for
            from adapters.pool import open_handle
            in_process = self.config.getoption("in_process")
            h = open_handle(spec, in_process=in_process, case_timeout=self.config.getoption("case_timeout"),
                            python=None if in_process else interpreter_for(spec, self.pythons()))
            h.spec = spec
            self._handles[spec] = h
        return self._handles[spec]

    def expectations(self, adapter_name):
        if adapter_name not in self._expectations:
            from suites.expectations import Expectations
            self._expectations[adapter_name] = Expectations.for_adapter(
                adapter_name, self.config.getoption("expectations"))
        return self._expectations[adapter_name]

    def corpus(self):
        """(cases, corpus hash), loaded once per process."""
        if self._corpus is None:
            from conform.runner import RunError, load_corpus
            try:
                self._corpus = load_corpus(self.config.getoption("corpus"))
            except RunError as e:
                raise pytest.UsageError(str(e)) from None
        return self._corpus

    # ---- recording --------------------------------------------------------------------------
    def record(self, verdict, case):
        from reports.results import ResultsWriter, case_record
        if self._writer is None:
            self._writer = ResultsWriter(os.path.join(self._parts_dir(), f"{self.part_name}.jsonl"))
            self._writer.write(self._header())
        self._writer.write(case_record(self._run_id(), verdict, case))

    def _run_id(self):
        from conform.runner import _run_id
        return _run_id(self._corpus[1] if self._corpus else "", [], "1/1", _profile_name(self.config))

    def _header(self):
        from reports.results import run_record
        cases, corpus_hash = self._corpus or ((), "")
        from adapters.pool import header_entry
        adapters = [header_entry(h) for h in self._handles.values()]
        return run_record(self._run_id(), corpus_hash, len(cases), adapters, profile=_profile_name(self.config))

    def pytest_sessionfinish(self, session):
        for h in self._handles.values():
            h.close()
        self._handles.clear()
        if self._writer is not None:
            self._writer.close()
        if self.worker is None and self.parts is not None:
            self.merged = _merge_parts(self.parts, self.config.getoption("results"), self)
            shutil.rmtree(self.parts, ignore_errors=True)

    def pytest_terminal_summary(self, terminalreporter):
        merged = getattr(self, "merged", None)
        if not merged:
            return
        for line in merged["unmatched"]:
            terminalreporter.write_line(f"conform: expectation pattern matched nothing: {line}", yellow=True)
        if merged["path"]:
            terminalreporter.write_line(f"conform: {merged['cases']} results -> {merged['path']}")


def _profile_name(config):
    return config.getoption("profile") or os.environ.get("CONFORM_PROFILE") or "dev"


def _merge_parts(parts, results_path, state):
    """Join the part files into one results file; report expectation patterns no divergence matched."""
    from collections import Counter

    from reports.results import ResultsWriter, end_record, iter_records
    from suites.judge import DIVERGENT, record_evidence, record_key
    header, records = None, []
    adapters = {}
    for name in sorted(os.listdir(parts)):
        for rec in iter_records(os.path.join(parts, name)):
            if rec["record"] == "run":
                header = header or rec
                for a in rec["adapters"]:
                    adapters.setdefault(a["name"], a)
            elif rec["record"] == "case":
                records.append(rec)
                adapters.setdefault(rec["adapter"], {"name": rec["adapter"], "version": rec["adapter_version"]})
    if header is None:
        return {"unmatched": [], "path": None, "cases": 0}
    records.sort(key=lambda r: (r["op"], r["case_id"], r["adapter"]))
    seen = {r["adapter"] for r in records}
    unmatched = []
    for adapter in sorted(seen):
        exp = state.expectations(adapter)
        for r in records:
            if r["adapter"] == adapter and r["verdict"] in DIVERGENT:
                exp.match(record_key(r), record_evidence(r))
        unmatched += [f"{p.where()} {p.glob}" for p in exp.unmatched()]
    if results_path:
        header = {**header, "adapters": list(adapters.values())}
        counts = Counter(r["verdict"] for r in records)
        with ResultsWriter(results_path) as out:
            out.write(header)
            for r in records:
                out.write(r)
            out.write(end_record(header["run_id"], len(records), counts))
    return {"unmatched": unmatched, "path": results_path, "cases": len(records)}


# ---- fixtures -------------------------------------------------------------------------------

def pytest_generate_tests(metafunc):
    if "adapter_handle" in metafunc.fixturenames:
        specs = metafunc.config._conform.selected()
        metafunc.parametrize("adapter_handle", specs, indirect=True, ids=[_spec_id(s) for s in specs])


def _spec_id(spec: str) -> str:
    return spec.rsplit(":", 1)[-1] if ":" in spec else spec


@pytest.fixture
def adapter_handle(request):
    """One selected adapter's handle (a worker, or in-process with --in-process); tests get one per adapter."""
    return request.config._conform.handle(request.param)


@pytest.fixture(scope="session")
def adapter_handles(request):
    """name -> handle for every selected adapter."""
    state = request.config._conform
    return {h.name: h for h in (state.handle(s) for s in state.selected())}


@pytest.fixture
def conform(request):
    """The plugin's state: corpus(), handle(spec), expectations(name), record(verdict, case)."""
    return request.config._conform
