"""Candidates that attack the harness itself (issue 12, section 1), run for real through workers.

Each attack gets a verdict and the run goes on: the test checks the verdict and
its reason, the exit code, that it came within a bound of time, and that no
process the worker or the candidate started survives.  The runs that hung the
harness before go through `conform run` in a subprocess with a timeout, so a
regression fails here instead of hanging the test session.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from adapters import channel, pool, wire
from adapters.sandbox import WRITABLE_ENV
from conform import runner
from contract.vocabulary import EXIT_ADAPTER, EXIT_DIVERGED, EXIT_INTERRUPTED, EXIT_OK
from contract.results import iter_records

from bad_adapters import clip_case, write_corpus
from misbehaving_adapters import PID_DIR_ENV, outer_pid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS])}


# ---- helpers ----------------------------------------------------------------------------------

from test_misbehaviour import alive  # noqa: E402  (one definition of a live, non-zombie process)


# Workers and scratch folders this process already had before the test: in a whole-suite run the same
# pytest process also holds the plugin's own adapter workers, which are not the test's to judge.
_BEFORE = {"pids": set(), "folders": set()}


@pytest.fixture(autouse=True)
def _others_before():
    _BEFORE["folders"] = set()      # scratch_folders() leaves out what is in here: take the snapshot whole
    _BEFORE["pids"] = set(worker_processes(os.getpid(), everything=True))
    _BEFORE["folders"] = set(scratch_folders())
    yield


def scratch_folders():
    prefix = f"conform-worker-{os.getpid()}-"
    return [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(prefix) and n not in _BEFORE["folders"]]


def worker_processes(harness_pid, everything=False):
    """Live processes working in a scratch folder of that harness: its keepers, workers, and whatever
    they started that stayed there (the pool names each folder conform-worker-<harness pid>-...)."""
    prefix = os.path.join(tempfile.gettempdir(), f"conform-worker-{harness_pid}-")
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd.startswith(prefix) and alive(int(pid)) and (everything or int(pid) not in _BEFORE["pids"]):
            found.append(int(pid))
    return found


def recorded_pids(pid_dir):
    """What the candidate recorded, by name: its processes' pids here (None: gone), wherever they ran."""
    return {p.name: outer_pid(p.read_text()) for p in pid_dir.iterdir()}


def assert_none_survive(pid_dir, harness_pid, grace=2.0):
    """Every process a candidate recorded, and every worker of the harness, is gone (after `grace` s)."""
    pids = recorded_pids(pid_dir) if pid_dir else {}
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        pids = recorded_pids(pid_dir) if pid_dir else {}
        left = {k: p for k, p in pids.items() if p is not None and alive(p)}
        workers = worker_processes(harness_pid)
        if not left and not workers:
            return
        time.sleep(0.05)
    for p in [*left.values(), *workers]:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    pytest.fail(f"actual: {left} and workers {workers} alive {grace} s after the run; expected: none")


def labelled(path):
    return {r["case"]["label"]: r for r in iter_records(path) if r["record"] == "case"}


@pytest.fixture
def pid_dir(tmp_path, monkeypatch):
    d = tmp_path / "pids"
    d.mkdir()
    monkeypatch.setenv(PID_DIR_ENV, str(d))     # the workers inherit it
    monkeypatch.setenv(WRITABLE_ENV, str(d))    # and may write it, sandboxed (adapters.sandbox)
    return d


@pytest.fixture
def run_here(tmp_path, pid_dir):
    """runner.run in this process: (records by label, RunResult, seconds)."""
    def run(cls, labels, **kw):
        corpus = tmp_path / f"{cls}-{len(labels)}.jsonl"
        write_corpus(str(corpus), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in enumerate(labels)])
        t0 = time.monotonic()
        result = runner.run([f"misbehaving_adapters:{cls}"], corpus=str(corpus), out_dir=str(tmp_path / cls), **kw)
        took = time.monotonic() - t0
        got = labelled(result.results_path)
        assert len(got) == len(labels), f"actual: {len(got)} records; expected: {len(labels)}; {result.message}"
        assert any(r["record"] == "end" for r in iter_records(result.results_path)), "the run did not finish"
        assert_none_survive(pid_dir, os.getpid())
        return got, result, took
    return run


def conform_run(tmp_path, cls, labels, *args, timeout=60):
    """`conform run` in a subprocess that is killed past `timeout`: (records by label, exit code, seconds, stderr)."""
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in enumerate(labels)])
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "conform.cli", "run", "--adapter", f"misbehaving_adapters:{cls}",
                          "--corpus", str(corpus), "--out", str(out), "--no-report", *args],
                         cwd=ROOT, env={**ENV, PID_DIR_ENV: os.environ.get(PID_DIR_ENV, ""),
                                             WRITABLE_ENV: os.environ.get(WRITABLE_ENV, "")}, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for w in worker_processes(p.pid):
            os.kill(w, signal.SIGKILL)
        p.kill()
        p.communicate()
        pytest.fail(f"actual: `conform run` still running after {timeout} s; expected: a verdict for every case")
    took = time.monotonic() - t0
    return labelled(out / "results.jsonl"), p.returncode, took, err, p.pid


# ---- wrong output -------------------------------------------------------------------------------

SHAPES = ["longer", "matrix", "scalar", "empty", "int64", "x-longer", "ok"]


def test_an_output_of_another_shape_or_dtype_is_a_value_mismatch_that_report_certify_and_diff_show(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in enumerate(SHAPES)])

    def conform(*args):
        return subprocess.run([sys.executable, "-m", "conform.cli", *args], cwd=ROOT, env=ENV, text=True,
                              capture_output=True, timeout=120)

    # certify runs the corpus itself, then writes the report and the certificate from what came back
    cert_dir = tmp_path / "cert"
    r = conform("certify", "--adapter", "misbehaving_adapters:OtherShapes", "--corpus", str(corpus), "--out", str(cert_dir))
    assert r.returncode == EXIT_DIVERGED, r.stderr
    assert "Traceback" not in r.stderr and "not written" not in r.stderr, r.stderr
    got = labelled(cert_dir / "results.jsonl")
    assert {k: v["verdict"] for k, v in got.items()} == {**{k: "value-mismatch" for k in SHAPES[:-1]}, "ok": "pass"}
    assert "out: shape [8] != [4]" in got["longer"]["outcome"] and "out: dtype int64 != float32" in got["int64"]["outcome"]
    assert "x: shape [8] != [4]" in got["x-longer"]["outcome"]
    cert = json.loads((cert_dir / "certificate.json").read_text())
    assert cert["totals"]["value-mismatch"] == len(SHAPES) - 1 and cert["totals"]["pass"] == 1
    # the report shows what was returned: the longer output's eight values, its dtype and shape
    from report_fixtures import report_text        # the page with its packed data (cases, group bodies)
    html = report_text(cert_dir / "report.html")
    assert "float32[8]" in html and "float32[2, 4]" in html and "int64[4]" in html
    # `conform report` on the same file, and `conform diff` against an honest run
    r = conform("report", str(cert_dir / "results.jsonl"), "--out", str(tmp_path / "report"))
    assert r.returncode == EXIT_OK and (tmp_path / "report" / "report.html").is_file(), r.stderr
    base = tmp_path / "base"
    r = conform("run", "--adapter", "misbehaving_adapters:FixedShapes", "--corpus", str(corpus), "--out", str(base),
                "--no-report")
    assert r.returncode == EXIT_OK, r.stderr
    r = conform("diff", str(base / "results.jsonl"), str(cert_dir / "results.jsonl"), "--out", str(tmp_path / "diff"))
    assert r.returncode == EXIT_DIVERGED, r.stderr      # six regressions, each listed with what came back
    text = (tmp_path / "diff" / "diff.txt").read_text()
    assert "6 regression(s)" in text and "out: shape [2, 4] != [4]" in text, text


def test_the_report_never_marks_one_shape_with_anothers_differences():
    from reports.render import differing, outputs_view
    from contract.codec import encode_array
    exp, act = np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    rec = {"expected_values": {"out": encode_array(exp)}, "actual_values": {"out": encode_array(act)}}
    (view,) = outputs_view(rec, {"output": "out", "count": 2, "total": 2, "indices": []})
    cells = [c for row in view["actual"]["rows"] for c in row]
    assert [c[0] for c in cells] == ["1.0", "2.0", "3.0", "4.0"] and not any(c[1] for c in cells)
    assert view["ndiff"] is None and view["actual_desc"] == "float32[4]"
    assert differing(exp, act) is None


# ---- outcome fields of the wrong type, text that is not UTF-8 ---------------------------------------

def test_outcome_fields_of_the_wrong_type_are_a_crash_naming_the_field(run_here):
    bad = {"elapsed-str": "elapsed_s must be a number of seconds, got str 'fast'",
           "elapsed-nan": "elapsed_s must be a number of seconds, got float 'nan'",
           "message-list": "message must be a string, got list",
           "mro-int": "exc_mro must be a list of class names",
           "kind-bogus": "kind must be one of",
           "name-int": "arrays must map output names to arrays"}
    got, result, took = run_here("BadFields", [*bad, "ok"], case_timeout=30)
    for label, why in bad.items():
        v = got[label]
        assert v["verdict"] == "crash" and "malformed Outcome" in v["outcome"] and why in v["outcome"], (
            f"actual: {v['verdict']}: {v['outcome']}; expected: crash naming {why!r}")
    assert got["ok"]["verdict"] == "pass"
    assert result.exit_code == EXIT_DIVERGED and took < 30


def test_text_that_is_not_valid_utf8_is_escaped_and_every_writer_accepts_it(run_here, tmp_path):
    got, result, _ = run_here("BadFields", ["surrogate", "bytes", "native-surrogate", "stderr-bytes", "ok"])
    assert got["surrogate"]["verdict"] == "unexpected-error" and "\\ud800" in got["surrogate"]["outcome"]
    assert got["bytes"]["verdict"] == "unexpected-error" and "\\xff\\xfe" in got["bytes"]["outcome"]
    assert got["native-surrogate"]["verdict"] == "pass"
    assert "invalid utf-8" in got["stderr-bytes"]["error"]["stderr"]
    # every record is text a strict UTF-8 writer takes, and the report is written from it
    for rec in iter_records(result.results_path):
        json.dumps(rec, ensure_ascii=False).encode("utf-8")
    from reports.render import write_report
    from report_fixtures import report_text        # the page with its packed data (the failing cases' JSON)
    html = report_text(write_report([result.results_path], tmp_path / "report")["report_html"])
    assert "lone surrogate \\ud800 in the message" in html.replace("\\\\", "\\")   # in its JSON data too
    assert result.exit_code == EXIT_DIVERGED


@pytest.mark.parametrize("label, why", [("forged-fields", "elapsed_s must be a number of seconds, got str 'fast'"),
                                        ("forged-surrogate", None)])
def test_a_reply_forged_past_the_workers_checks_is_checked_again_by_the_harness(label, why):
    # One case at a time: the forging worker exits after its reply, and a case already sent to it
    # would share its fate (pipelined runs blame the case at the head when a worker dies).
    from contract.results import case_record
    from suites.judge import judge
    from bad_adapters import clip_expectation
    h = pool.WorkerHandle("misbehaving_adapters:WireGarbage", case_timeout=20)
    try:
        case = clip_case(label)
        out = h.run(case)
        v = judge(case, clip_expectation(case), out, h)
        if why:
            assert v.verdict == "crash" and "the worker's reply is malformed" in v.outcome and why in v.outcome, v.outcome
        else:   # JSON escapes of lone surrogates arrive as text, and are escaped before anything is written
            assert v.verdict == "unexpected-error" and "lone \\udcff surrogate" in v.outcome, v.outcome
            assert out.stderr == "\\ud800"
        json.dumps(case_record("r", v, case), ensure_ascii=False).encode("utf-8")
        assert h.run(clip_case("ok")).kind == "returned"
    finally:
        h.close()


# ---- wire garbage -------------------------------------------------------------------------------

@pytest.mark.parametrize("label, why", [
    ("partial", "1 of 16 bytes came, then nothing before the deadline"),
    ("stray", "of 4096 bytes came, then nothing before the deadline"),
    ("wrong-id", "reply for case 'ffffffffffffffff' while the outcome of case"),
    ("wrong-type", "'hello' reply for case"),
])
def test_wire_garbage_is_a_crash_within_the_case_timeout(tmp_path, pid_dir, label, why):
    got, rc, took, err, harness = conform_run(tmp_path, "WireGarbage", [label, "ok"], "--case-timeout", "3")
    v = got[label]
    assert v["verdict"] == "crash" and "the worker broke the protocol" in v["outcome"] and why in v["outcome"], (
        f"actual: {v['verdict']}: {v['outcome']}; expected: crash, {why!r}")
    assert got["ok"]["verdict"] == "pass"
    assert rc == EXIT_DIVERGED, err
    assert took < 3 + 1 + 12, f"actual: {took:.1f} s; expected: the case timeout (3 s) and a grace second, plus start-up"
    assert_none_survive(pid_dir, harness)


def test_no_read_of_a_message_waits_past_its_deadline():
    r, w = os.pipe()
    try:
        os.write(w, b"\x00\x00\x00\x10{")
        t0 = time.monotonic()
        with pytest.raises(wire.WireTimeout, match="1 of 16 bytes came"):
            wire.recv(r, deadline=time.monotonic() + 0.3)
        assert time.monotonic() - t0 < 1.0
    finally:
        os.close(r)
        os.close(w)


def test_a_worker_that_stops_taking_requests_cannot_block_the_harness():
    # The candidate shrinks its request pipe to 4 KiB and hangs; the next (pipelined) request is larger.
    # In a subprocess: a write that blocks forever would otherwise hang the test session too.
    code = """if True:
        import time, numpy as np
        from adapters.pool import WorkerHandle
        from bad_adapters import clip_case
        h = WorkerHandle("misbehaving_adapters:WireGarbage", case_timeout=2)
        t0 = time.monotonic()
        h.submit(clip_case("shrink-hang"))
        time.sleep(0.5)
        h.submit(clip_case("big", x=np.arange(8000, dtype=np.float32)))
        first, second = h.collect(), h.collect()
        print(first.kind, second.kind, round(time.monotonic() - t0, 1), first.message.replace(" ", "_"))
        h.close()
    """
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, text=True, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    first, second, took, why = r.stdout.split()
    # The hanging case's time and the blocked write's run out together: either names the hang.
    assert (first, second) in {("timed_out", "returned"), ("crashed", "returned")} and float(took) < 10, r.stdout
    assert why.startswith("no_answer_within_2_s" if first == "timed_out" else "the_worker_stopped_reading"), why


def test_nan_and_infinity_are_refused_on_the_wire():
    r, w = os.pipe()
    try:
        head = b'{"type":"outcome","elapsed_s":NaN}'
        os.write(w, len(head).to_bytes(4, "big") + head)
        with pytest.raises(wire.WireError, match="NaN is not JSON"):
            wire.recv(r, deadline=time.monotonic() + 1)
    finally:
        os.close(r)
        os.close(w)


# ---- children and daemons -------------------------------------------------------------------------

def test_a_segfault_is_seen_at_once_while_a_forked_child_holds_the_pipe(run_here):
    got, result, took = run_here("Orphaner", ["holder-segfault", "ok"], case_timeout=60)
    v = got["holder-segfault"]
    assert v["verdict"] == "crash" and "SIGSEGV" in v["outcome"], (
        f"actual: {v['verdict']}: {v['outcome']}; expected: crash by SIGSEGV, not a timeout")
    assert got["ok"]["verdict"] == "pass" and result.exit_code == EXIT_DIVERGED
    assert took < 20, f"actual: {took:.1f} s; expected: the death seen at once, far under the 60 s timeout"


@pytest.mark.parametrize("labels, verdict", [(["daemon", "ok"], "pass"), (["daemon-segfault", "ok"], "crash"),
                                             (["daemon-hang", "ok"], "timeout")])
def test_a_daemon_that_left_the_session_and_cleared_its_environment_dies_with_the_worker(run_here, labels, verdict):
    # run_here checks that the recorded daemon (setsid, double fork, exec with an empty environment) is gone
    got, result, _ = run_here("Orphaner", labels, case_timeout=3)
    assert got[labels[0]]["verdict"] == verdict and got["ok"]["verdict"] == "pass", got[labels[0]]["outcome"]
    assert result.exit_code == (EXIT_OK if verdict == "pass" else EXIT_DIVERGED)


def test_daemons_of_workers_restarted_in_jobs_threads_die_too(run_here):
    # A crash makes a --jobs thread restart its worker; the thread ends with the run, and the keeper it
    # started must still outlive it long enough to take the daemon the new worker left.
    labels = ["daemon-segfault", "daemon-a", "ok", "daemon-b", "daemon-segfault-2", "daemon-c"]
    got, result, _ = run_here("Orphaner", labels, case_timeout=20, jobs=2)
    assert [got[lbl]["verdict"] for lbl in labels] == ["crash", "pass", "pass", "pass", "crash", "pass"]
    assert result.exit_code == EXIT_DIVERGED


def test_the_memory_watchdog_counts_the_workers_whole_tree(run_here, monkeypatch):
    # The worker itself stays small and waits; a child it forked holds 400 MB.
    monkeypatch.setattr(channel, "RSS_LIMIT_MB", 250)
    got, result, took = run_here("Orphaner", ["hog-hang", "ok"], case_timeout=60)
    v = got["hog-hang"]
    assert v["verdict"] == "crash" and "resident memory" in v["outcome"] and "process tree" in v["outcome"], (
        f"actual: {v['verdict']}: {v['outcome']}; expected: killed by the watchdog, not a timeout")
    assert got["ok"]["verdict"] == "pass" and result.exit_code == EXIT_DIVERGED
    assert took < 30


# ---- cwd removed ---------------------------------------------------------------------------------

@pytest.mark.parametrize("label", ["rmtree", "replace", "chmod"])
def test_a_candidate_that_removes_its_folder_costs_at_most_one_verdict(run_here, label):
    got, result, _ = run_here("CwdBreaker", [label, "ok", "ok-again"], case_timeout=30)
    assert got["ok"]["verdict"] == got["ok-again"]["verdict"] == "pass", (
        f"actual: {got['ok']['outcome']} / {got['ok-again']['outcome']}; expected: the folder recreated, both pass")
    assert result.exit_code in (EXIT_OK, EXIT_DIVERGED) and (result.exit_code == EXIT_OK) == (got[label]["verdict"] == "pass")
    assert not scratch_folders(), "a scratch folder was left"


def test_the_recreated_folder_is_reported_on_the_case_that_removed_it():
    h = pool.WorkerHandle("misbehaving_adapters:CwdBreaker")
    try:
        out = h.run(clip_case("rmtree"))
        assert "recreated" in out.stderr, out.stderr
        assert h.run(clip_case("ok")).kind == "returned" and h.restarts == 0
    finally:
        h.close()


# ---- the candidate's code runs in workers only ----------------------------------------------------------

def test_the_candidates_import_available_and_version_never_run_in_the_harness(pid_dir, tmp_path):
    from adapters.catalog import info
    from conform.certify import probe_adapter
    i = info("spy_adapter:Spy")
    assert (i.name, i.version, i.available, i.numpy) == ("spy", "1.0-spy", True, np.__version__)
    probe_adapter("spy_adapter:Spy")
    corpus = tmp_path / "c.jsonl"
    write_corpus(str(corpus), [clip_case("ok")])
    result = runner.run(["spy_adapter:Spy"], corpus=str(corpus), out_dir=str(tmp_path / "out"))
    assert result.exit_code == EXIT_OK, result.message
    events = os.listdir(pid_dir)
    assert any(e.startswith("import-") for e in events) and any(e.startswith("version-") for e in events)
    here = [e for e in events if e.endswith(f"-{os.getpid()}")]
    assert not here and "spy_adapter" not in sys.modules, f"actual: {here} ran in the harness; expected: none"


def test_listing_the_adapters_imports_none_of_them():
    code = ("import sys; from adapters.catalog import available_adapters; infos = available_adapters(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'mindspore', 'pypto') "
            "or (m.startswith('adapters.') and m.endswith('_adapter')))); "
            "print({i.name: (i.available, i.python == sys.executable) for i in infos})")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, text=True, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    imported, infos = r.stdout.splitlines()
    assert imported == "[]", f"actual: {imported} imported by the listing; expected: none"
    assert "'oracle': (True, True)" in infos


def test_a_probe_of_an_adapter_that_never_answers_ends_and_leaves_nothing(pid_dir):
    t0 = time.monotonic()
    i = pool.probe("misbehaving_adapters:SlowToAnswer", timeout=2)
    assert not i.available and "no hello within 2 s" in i.reason
    assert time.monotonic() - t0 < 10
    assert_none_survive(None, os.getpid())


# ---- Ctrl-C ------------------------------------------------------------------------------------------

def _as_from_a_terminal() -> None:
    """The harness as a terminal starts it: Ctrl-C at its default.  A process inherits an ignored SIGINT, and
    Python keeps it ignored (nohup's convention); this pytest process ignores SIGINT and SIGQUIT while any of
    its threads is inside system(), which the signal masks this test reports showed in CI (SigIgn ...1006)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _signal_state(pid) -> dict:
    """The Sig* lines of a process's and each of its threads' /proc status (masks in hex: bit N-1 is signal N)."""
    out = {}
    try:
        for tid in sorted(os.listdir(f"/proc/{pid}/task")):
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                out[tid] = {k: v.strip() for k, _, v in (line.partition(":") for line in f)
                            if k in ("Name", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")}
    except OSError as e:
        out["error"] = str(e)
    return out


def test_ctrl_c_with_jobs_during_hanging_cases_exits_130_within_2_s_and_resumes(tmp_path):
    labels = ["ok", "hang", "ok2", "hang2", "ok3", "ok4"]
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in enumerate(labels)])
    out = tmp_path / "out"
    args = ["run", "--adapter", "bad_adapters:Hang", "--corpus", str(corpus), "--out", str(out), "--no-report"]
    # PYTHONFAULTHANDLER: should the harness not exit, SIGABRT makes it print every thread's stack
    p = subprocess.Popen([sys.executable, "-m", "conform.cli", *args, "--jobs", "2", "--case-timeout", "120"],
                         cwd=ROOT, env={**ENV, "PYTHONFAULTHANDLER": "1"}, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=_as_from_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:      # both hanging cases in flight once "ok" is written
            if (out / "results.jsonl").exists() and len(labelled(out / "results.jsonl")) >= 1:
                break
            time.sleep(0.05)
        time.sleep(0.5)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            masks = _signal_state(p.pid)        # before the abort: was Ctrl-C ignored, blocked or left pending?
            done = len(labelled(out / "results.jsonl")) if (out / "results.jsonl").exists() else 0
            p.send_signal(signal.SIGABRT)
            _, err = p.communicate(timeout=30)
            pytest.fail(f"actual: no exit 30 s after Ctrl-C; expected: exit 130 within 2 s; {done} cases recorded "
                        f"before it; the harness's signal state {masks}; its threads when aborted:\n{err[-8000:]}")
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == EXIT_INTERRUPTED, err
    assert took < 2.0, f"actual: exit {took:.2f} s after Ctrl-C; expected: under 2 s with two cases hanging"
    assert "--resume" in err
    assert_none_survive(None, p.pid)
    r = subprocess.run([sys.executable, "-m", "conform.cli", *args, "--resume", "--case-timeout", "1"], cwd=ROOT,
                       env=ENV, text=True, capture_output=True, timeout=120)
    assert r.returncode == EXIT_DIVERGED, r.stderr
    got = labelled(out / "results.jsonl")
    assert sorted(got) == sorted(labels) and got["hang"]["verdict"] == got["hang2"]["verdict"] == "timeout"


# ---- hard limits (issue 18, point 4) ---------------------------------------------------------------

def _in_a_harness(code, env=None, timeout=120):
    """Run `code` as a harness of its own (a fresh process, so its peak memory is its own); its stdout lines."""
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**ENV, **(env or {})}, text=True,
                       capture_output=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


PEAK_KB = "int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1])"


def test_a_reply_of_three_512_mib_arrays_is_refused_before_the_harness_reads_it():
    # Each array is under the wire's per-array limit; together they are 1.5 GiB the harness would hold.
    lines = _in_a_harness(f"""if True:
        from adapters.pool import WorkerHandle
        from adapters import wire
        from bad_adapters import clip_case
        h = WorkerHandle("misbehaving_adapters:Hoarder", case_timeout=60)
        before = {PEAK_KB}
        out = h.run(clip_case("huge-frame"))
        after = {PEAK_KB}
        ok = h.run(clip_case("ok"))
        h.close()
        print(out.kind, ok.kind, after - before, wire.MAX_REPLY_BYTES)
        print(out.message)
    """)
    (kind, ok, grew_kb, cap), message = lines[0].split(), lines[1]
    assert (kind, ok) == ("crashed", "returned"), lines
    assert f"over the cap of {cap} bytes a reply may carry" in message and str(3 * (512 << 20)) in message, message
    assert int(grew_kb) < 64 << 10, f"actual: the harness's peak memory grew {int(grew_kb) >> 10} MiB; expected: < 64"


def test_returned_outputs_over_the_reply_cap_are_a_crash_naming_it():
    lines = _in_a_harness("""if True:
        from adapters.pool import WorkerHandle
        from bad_adapters import clip_case
        h = WorkerHandle("misbehaving_adapters:Hoarder")
        over, under = h.run(clip_case("outputs-3")), h.run(clip_case("outputs-1"))
        h.close()
        print(over.kind, under.kind, h.restarts)
        print(over.message)
    """, env={"CONFORM_MAX_REPLY_MB": "2"})
    assert lines[0] == "crashed returned 0", lines
    assert lines[1] == f"the outputs total {3 << 20} bytes, over the cap of {2 << 20} bytes a reply may carry " \
                       "(CONFORM_MAX_REPLY_MB)", lines[1]


def test_the_workers_file_size_and_memory_limits_are_hard_and_the_candidate_cannot_lift_them():
    h = pool.WorkerHandle("misbehaving_adapters:LimitLifter", memory_mb=16384)
    try:
        out = h.run(clip_case("lift"))
    finally:
        h.close()
    gib, mem = 1 << 30, 16384 << 20
    assert "lifted" not in out.stderr, f"actual: {out.stderr}; expected: both refused"
    assert "RLIMIT_FSIZE refused" in out.stderr and f"RLIMIT_FSIZE now ({gib}, {gib})" in out.stderr, out.stderr
    assert "RLIMIT_AS refused" in out.stderr and f"RLIMIT_AS now ({mem}, {mem})" in out.stderr, out.stderr
    assert out.kind == "returned"


def test_an_adapters_own_case_timeout_of_1e12_s_runs_under_the_ceiling(monkeypatch):
    h = pool.WorkerHandle("misbehaving_adapters:Patient")
    try:
        assert h.case_timeout == pool.MAX_ADAPTER_TIMEOUT == 600.0
    finally:
        h.close()
    monkeypatch.setattr(pool, "MAX_ADAPTER_TIMEOUT", 2.0)     # the same ceiling, made short enough to wait for
    h = pool.WorkerHandle("misbehaving_adapters:Patient")
    try:
        t0 = time.monotonic()
        out = h.run(clip_case("hang"))
        assert out.kind == "timed_out" and "no answer within 2 s" in out.message, out.message
        assert time.monotonic() - t0 < 10
        assert h.run(clip_case("ok")).kind == "returned"
    finally:
        h.close()
    h = pool.WorkerHandle("misbehaving_adapters:Patient", case_timeout=5000)     # the user's own choice stands
    try:
        assert h.case_timeout == 5000
    finally:
        h.close()


# ---- the worker's environment (issue 18, point 4) ---------------------------------------------------

@pytest.mark.parametrize("in_process", [False, True], ids=["worker", "in-process"])
def test_an_adapter_named_torch_and_a_zero_width_space_is_refused_naming_the_character(tmp_path, in_process):
    # it showed as a second "torch" column beside the real one in every table
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case("a", x=[1.0, 5.0])])
    result = runner.run(["bad_adapters:InvisiblyNamedTorch"], corpus=str(corpus), out_dir=str(tmp_path / "out"),
                        in_process=in_process)
    assert result.exit_code == EXIT_ADAPTER, result.message
    assert "U+200B" in result.message and "ZERO WIDTH SPACE" in result.message, result.message
    assert not os.path.exists(result.results_path) or not any(
        r["record"] == "case" for r in iter_records(result.results_path))
    info = pool.probe("bad_adapters:InvisiblyNamedTorch")
    assert not info.available and "U+200B" in info.reason, info.reason


@pytest.mark.parametrize("name", ["torch\u202e", "torch\u00a0", "torch\n", "torch ", "\u2028torch", "tor\u00adch"])
def test_names_a_reader_cannot_tell_from_another_are_refused(name):
    from contract.vocabulary import name_problem
    assert name_problem(name), f"{name!r} accepted"
    assert name_problem("torch") == name_problem("jax-jit") == name_problem("torch@strided") == ""
    assert name_problem("my adapter \u00e9\u4e2d") == ""     # letters of any script, inner spaces


def test_a_secret_in_the_harnesss_environment_is_not_visible_to_the_candidate(monkeypatch):
    from adapters import sandbox
    monkeypatch.setenv("HARNESS_SECRET_TOKEN", "s3cr3t-value")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-s3cr3t")
    monkeypatch.setenv("VENDOR_FLAG", "on")
    monkeypatch.setenv(sandbox.EXTRA_ENV, "VENDOR_FLAG")      # the user may pass a framework's own variable
    h = pool.WorkerHandle("misbehaving_adapters:EnvReader")
    try:
        out = h.run(clip_case("read-env"))
    finally:
        h.close()
    assert "s3cr3t" not in out.stderr and "found" not in out.stderr, f"actual: {out.stderr}; expected: no secret"
    names = set(out.stderr.split("names: ")[1].split("\n")[0].split())
    assert {"PATH", "HOME", "PYTHONPATH", "VENDOR_FLAG"} <= names, names
    outside = {n for n in names if n not in sandbox.ENV_NAMES and not n.startswith(sandbox.ENV_PREFIXES)}
    # TMPDIR (the worker's folder) and the thread caps (adapters/threads.py) are the harness's choice; bubblewrap sets PWD
    from adapters import threads
    assert outside <= {"VENDOR_FLAG", "TMPDIR", "PWD", *threads.variables(1)}, \
        f"actual: {outside} outside the allow-list; expected: VENDOR_FLAG"
    assert out.kind == "returned"


# ---- no write access to the harness's files (issue 18, point 4) ---------------------------------------

def _sha(path):
    import hashlib
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_bubblewrap_mode_a_candidate_cannot_write_the_results_the_corpus_or_the_expectations(tmp_path, monkeypatch):
    """Checks mode "bubblewrap" (scripts/setup.sh installs it); without bwrap the mode is "none", whose
    documented fallback the next test checks."""
    import shutil
    from adapters import sandbox
    from misbehaving_adapters import HARNESS_ENV, TARGETS_ENV
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: workers run in mode none (docs/CERTIFY.md, Isolation and limits)")
    assert sandbox.mode()[0] == "bubblewrap", sandbox.mode()
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)          # /proc/<harness>/cwd/results.jsonl is the results file too
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(str(corpus), [clip_case("vandalise"), clip_case("ok", x=[0.0, 7.0, 3.0])])
    expectations = tmp_path / "expectations"
    shutil.copytree(os.path.join(ROOT, "suites", "expectations"), expectations)
    results = out / "results.jsonl"
    targets = [results, corpus, *sorted(expectations.iterdir())]
    monkeypatch.setenv(TARGETS_ENV, os.pathsep.join(str(t) for t in targets))
    monkeypatch.setenv(HARNESS_ENV, str(os.getpid()))
    before = {t: _sha(t) for t in targets[1:]}
    result = runner.run(["misbehaving_adapters:Vandal"], corpus=str(corpus), out_dir=str(out),
                        expectations_dir=str(expectations))
    got = labelled(results)
    assert got["vandalise"]["verdict"] == "pass", f"actual: {got['vandalise']['outcome']}; expected: every write refused"
    assert got["ok"]["verdict"] == "pass" and result.exit_code == EXIT_OK, result.message
    text = results.read_text()
    assert "VANDAL" not in text and all(json.loads(line) for line in text.splitlines())
    assert {t: _sha(t) for t in targets[1:]} == before, "the corpus or an expectations file changed"
    assert not os.path.exists("/tmp/conform-vandal-was-here")
    header = next(iter_records(results))
    assert header["adapters"][0]["execution"].endswith("in a worker process, sandboxed by bubblewrap"), header


@pytest.mark.parametrize("env, why", [({"CONFORM_SANDBOX": "off"}, "CONFORM_SANDBOX=off"),
                                      ({"PATH": os.path.dirname(sys.executable)}, "bubblewrap (bwrap) is not installed")])
def test_fallback_mode_none_is_recorded_and_the_limits_and_environment_still_hold(env, why):
    lines = _in_a_harness("""if True:
        from adapters.pool import WorkerHandle
        from bad_adapters import clip_case
        h = WorkerHandle("misbehaving_adapters:LimitLifter")
        out = h.run(clip_case("lift"))
        h.close()
        print(h.execution)
        print(out.kind, "RLIMIT_FSIZE lifted" in out.stderr, "RLIMIT_FSIZE refused" in out.stderr)
        h = WorkerHandle("misbehaving_adapters:EnvReader")
        out = h.run(clip_case("read-env"))
        h.close()
        print("found" in out.stderr)
    """, env={**env, "HARNESS_SECRET_TOKEN": "s3cr3t"})
    assert lines == [f"Python, in a worker process, not sandboxed: {why}", "returned False True", "False"], lines


def test_the_candidate_cannot_undo_the_sandbox_or_reach_the_harnesss_network(tmp_path, monkeypatch):
    """Checks mode "bubblewrap" (skipped without bwrap, as the test above)."""
    import shutil
    import socket
    from adapters import sandbox
    from misbehaving_adapters import SIGNAL_ENV, TARGETS_ENV
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: workers run in mode none (docs/CERTIFY.md, Isolation and limits)")
    assert sandbox.mode()[0] == "bubblewrap", sandbox.mode()
    target = tmp_path / "corpus.jsonl"
    target.write_text("the harness's file\n")
    monkeypatch.setenv(TARGETS_ENV, str(target))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    monkeypatch.setenv("CONFORM_TEST_PORT", str(listener.getsockname()[1]))
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(tmp_path / "harness.sock"))       # a read-only mount does not stop a connect()
    unix.listen(1)
    monkeypatch.setenv("CONFORM_TEST_UNIX", str(tmp_path / "harness.sock"))
    bystander = subprocess.Popen(["sleep", "60"])      # a process of the harness's uid, outside the worker
    monkeypatch.setenv(SIGNAL_ENV, os.pathsep.join([str(bystander.pid), str(os.getpid())]))
    h = pool.WorkerHandle("misbehaving_adapters:Escaper")
    try:
        out = h.run(clip_case("escape"))
        assert bystander.poll() is None, "actual: the candidate killed a process outside its tree"
    finally:
        h.close()
        listener.close()
        unix.close()
        bystander.kill()
        bystander.wait()
    assert out.kind == "returned", f"actual: {out.kind}: {out.message}; expected: every try refused"
    assert "unshare: done" in out.stderr, out.stderr        # it did get namespaces of its own, and still failed
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 11 and all(ln.startswith(("refused", "unshare")) for ln in lines), out.stderr
    assert target.read_text() == "the harness's file\n"


@pytest.mark.parametrize("name, value", [("CONFORM_MAX_REPLY_MB", "lots"), ("CONFORM_MAX_REPLY_MB", "0"),
                                         ("CONFORM_WORKER_RSS_MB", "-3")])
def test_a_bad_limit_in_the_environment_is_one_line_and_exit_2(tmp_path, name, value):
    r = subprocess.run([sys.executable, "-m", "conform.cli", "adapters"], cwd=ROOT, env={**ENV, name: value},
                       text=True, capture_output=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr == f"conform: error: {name} must be a whole number of MiB > 0, got {value!r}\n", r.stderr
