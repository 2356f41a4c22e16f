"""Releases, the history store, bisect (docs/HISTORY.md), on two small NumPy releases through array-api:numpy.

The releases' environments are made by adapters.releases.ensure (uv, cached outside the checkout): the first
run on a fresh machine makes them (a few seconds each from uv's cache), later runs reuse them.  The corpus is a
slice of the shipped one: the clip cases whose both bounds are None (NumPy 2.0 raises "One of max or min must be
given", 2.1 returns x: the transition issue 40 reports) and a few others.
"""
import json
import os
import sqlite3
import sys

import pytest

from adapters import releases as R
from adapters.base import RETURNED
from contract.case import Case
from suites.corpus import DEFAULT_PATH
from adapter_helpers import conform

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OLD, NEW = "2.0.2", "2.1.3"         # two declared releases of array-api:numpy (adapters/registry.py)
ADAPTER = "array-api:numpy"


def _corpus_cases():
    with open(DEFAULT_PATH, encoding="utf-8") as f:
        header = json.loads(f.readline())
        return header, [json.loads(line) for line in f]


def _both_none(c) -> bool:
    # a bound given neither as an input nor as a parameter is None (docs/CASES.md); NumPy names the dtype
    return c["op"] == "clip" and "CL-NONE" in c["clauses"] and set(c["inputs"]) == {"x"} \
        and not {"min", "max"} & set(c["params"]) and c["inputs"]["x"]["dtype"] not in ("bfloat16", "float16")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A corpus of the both-None clip cases and 20 others; results of it on OLD and NEW; the env's cache."""
    header, cases = _corpus_cases()
    none = [c for c in cases if _both_none(c)]
    assert none, "the shipped corpus has no clip case with both bounds None"
    chosen = none[:5] + [c for c in cases if c["op"] in ("clip", "setitem") and c not in none][:20]
    tmp = tmp_path_factory.mktemp("history")
    corpus = tmp / "corpus.jsonl"
    corpus.write_text(json.dumps({**header, "cases": len(chosen)}) + "\n"
                      + "".join(json.dumps(c, separators=(",", ":")) + "\n" for c in chosen))
    out = {}
    for v in (OLD, NEW):
        r = conform("run", "--release", f"numpy={v}", "--corpus", str(corpus), "--out", str(tmp / v),
                    "--jobs", "1", "--no-layouts", "--no-report")
        assert r.returncode in (0, 1), r.stderr[-2000:]
        out[v] = tmp / v / "results.jsonl"
    return {"tmp": tmp, "corpus": corpus, "results": out, "none": [c["id"] for c in none[:5]]}


def test_run_release_records_the_release_in_the_header(small):
    for v, path in small["results"].items():
        header = json.loads(path.read_text().splitlines()[0])
        (entry,) = [a for a in header["adapters"] if a["name"] == ADAPTER]
        assert entry["version"].split(" ")[0] == v
        assert entry["python"].startswith(R.releases_dir())
        from oracle.identity import oracle_id
        assert header["oracle"] == oracle_id()      # which oracle judged the run


def test_release_not_declared_is_refused_unless_any_release(tmp_path):
    r = conform("run", "--release", "numpy=1.99.0", "--out", str(tmp_path))
    assert r.returncode == 2 and "--any-release" in r.stderr
    with pytest.raises(R.ReleaseError):
        R.parse("torch-compile=1.0")
    assert R.parse("numpy=2.0.2") == (ADAPTER, "numpy", "2.0.2")
    assert R.expand(ADAPTER, "2.0.x..2.1.x") == ["2.0.2", "2.1.3"]


def _counts(db):
    con = sqlite3.connect(db)
    return con.execute("select count(*) from runs").fetchone()[0], con.execute("select count(*) from cases").fetchone()[0]


def test_history_add_twice_adds_nothing_the_second_time(small):
    db = small["tmp"] / "twice.db"
    files = [str(p) for p in small["results"].values()]
    assert conform("history", "add", *files, "--db", str(db)).returncode == 0
    first = _counts(db)
    assert first[0] == 2 and first[1] > 0
    r = conform("history", "add", *files, "--db", str(db))
    assert r.returncode == 0 and "already in the history" in r.stdout
    assert _counts(db) == first


def test_history_refuses_a_damaged_or_foreign_file_and_adds_nothing(small):
    db = small["tmp"] / "damaged.db"
    lines = small["results"][OLD].read_text().splitlines()
    damaged = small["tmp"] / "damaged.jsonl"
    damaged.write_text("\n".join(lines[:5] + ['{"record": "case", "broken": tru'] + lines[5:]) + "\n")
    foreign = small["tmp"] / "foreign.jsonl"
    foreign.write_text('{"hello": "world"}\n')
    for bad in (damaged, foreign):
        r = conform("history", "add", str(bad), "--db", str(db))
        assert r.returncode == 3 and str(bad) in r.stderr and "nothing of that file was added" in r.stderr
        assert _counts(db) == (0, 0)
    notdb = small["tmp"] / "not.db"
    notdb.write_text("not sqlite")
    assert conform("history", "add", str(small["results"][OLD]), "--db", str(notdb)).returncode == 3


def test_rejudge_runs_no_framework_and_records_the_oracle(small):
    from conform.history_store import oracle_id
    db = small["tmp"] / "rejudge.db"
    assert conform("history", "add", *map(str, small["results"].values()), "--db", str(db)).returncode == 0
    before = sqlite3.connect(db).execute("select case_id, verdict from cases order by run, case_id").fetchall()
    env = {**os.environ, R.ENV_DIR: str(small["tmp"] / "no-releases-here")}     # no environment to run in
    r = conform("history", "rejudge", "--db", str(db), env=env)
    assert r.returncode == 0, r.stderr
    con = sqlite3.connect(db)
    assert con.execute("select case_id, verdict from cases order by run, case_id").fetchall() == before
    assert {j for (j,) in con.execute("select distinct judged_by from cases")} == {oracle_id()}
    assert not os.path.exists(env[R.ENV_DIR])
    # a stored verdict the current oracle does not give (as after an oracle change) is judged again
    cid = small["none"][0]
    with con:
        con.execute("update cases set verdict = 'pass' where case_id = ?", (cid,))
    r = conform("history", "rejudge", "--db", str(db), env=env)
    assert ", 1 changed verdict" in r.stdout, r.stdout
    assert con.execute("select verdict from cases where case_id = ? order by run", (cid,)).fetchall() == \
        [("unexpected-error",), ("pass",)]      # 2.0.2 refuses both-None bounds, 2.1.3 returns x


def test_report_shows_the_both_none_transition_with_a_plot(small):
    db = small["tmp"] / "report.db"
    assert conform("history", "add", *map(str, small["results"].values()), "--db", str(db)).returncode == 0
    r = conform("history", "report", "--db", str(db), "--out", str(small["tmp"] / "rep"))
    assert r.returncode == 0, r.stderr
    page = (small["tmp"] / "rep" / "history.html").read_text()
    assert "<svg" in page and "<polyline" in page
    from conform.history_store import analyses, open_store
    (a,) = analyses(open_store(str(db)))
    moved = {t.case_id: t for t in a["transitions"]}
    for cid in small["none"]:
        t = moved[cid]
        assert (t.before, t.after, t.was, t.now) == (OLD, NEW, "unexpected-error", "pass")
        assert cid in page


def test_bisect_finds_the_release_of_the_both_none_change(small):
    r = conform("bisect", "--adapter", ADAPTER, "--case", small["none"][0], "--releases", f"{OLD}..{NEW}",
                "--corpus", str(small["corpus"]))
    assert r.returncode == 0, r.stderr
    assert f"changed in {NEW} (after {OLD})" in r.stdout
    assert "One of max or min must be given" in r.stdout and "xp.clip(x, None, None)" in r.stdout


def test_array_api_numpy_reads_a_0d_result_back_itself():
    """np.clip of a 0-d array returns a NumPy scalar, which has no __dlpack__: the adapter reads it, and the
    case's answer is NumPy's value, not "the framework raised"."""
    from adapters.array_api_adapter import NumpyArrayApi
    _, cases = _corpus_cases()
    zero_d = [Case.from_json(c) for c in cases if c["op"] == "clip" and c["inputs"]["x"]["shape"] == []]
    assert zero_d
    a = NumpyArrayApi()
    a.setup()
    for case in zero_d[:10]:
        out = a.run(case)
        assert "__dlpack__" not in out.message, out.message
    assert any(a.run(c).kind == RETURNED for c in zero_d)


def test_expectations_line_holds_only_for_the_releases_it_names(small):
    """A `@ ..2.0.x` line lists the both-None refusal on 2.0.2; over the history it is "fixed in 2.1.3"; the same
    line without `@` (every release) would list nothing on 2.1.3, where nothing diverges."""
    from suites.known_divergences import KnownDivergences
    line = ("clip/unexpected-error/*CL-NONE*/* @ ..2.0.x ~ One of max or min must be given :: "
            "NumPy before 2.1 refuses clip with both bounds None")
    known = KnownDivergences.from_lines([line], "test")
    key = "clip/unexpected-error/CL-DTYPE,CL-FORMULA,CL-NONE/int16/x:2d/0398859139a557d1"
    evidence = "raised ValueError: One of max or min must be given"
    assert known.match(key, evidence, release=OLD) and known.match(key, evidence, release="1.26.4")
    assert known.match(key, evidence, release=NEW) is None and known.match(key, evidence) is None
    f = small["tmp"] / "numpy.txt"
    f.write_text(line + "\nsetitem/crash/*/* :: never seen\n")
    db = small["tmp"] / "expectations.db"
    assert conform("history", "add", *map(str, small["results"].values()), "--db", str(db)).returncode == 0
    r = conform("expectations", "check", str(f), str(db))
    assert f"fixed in {NEW}" in r.stdout and "numpy.txt:1" in r.stdout, r.stdout + r.stderr
    assert "matches nothing in any release: " in r.stdout and "numpy.txt:2" in r.stdout
    # divergences of 2.0.2 the line does not list stay unlisted there (exit 1), never blamed on 2.1.3
    unlisted = [ln for ln in r.stdout.splitlines() if ln.startswith("unlisted in")]
    assert all("CL-NONE" not in ln for ln in unlisted)


@pytest.mark.parametrize("bad", ["x @  :: r", "x @ soon :: r", "x @ .. :: r"])
def test_expectations_release_syntax_refused(bad):
    from suites.known_divergences import KnownDivergences, KnownDivergencesError
    with pytest.raises(KnownDivergencesError):
        KnownDivergences.from_lines([bad], "test")


def test_certify_baseline_refuses_a_case_that_no_longer_conforms_even_when_listed(small):
    """Certified on 2.1.3, then on 2.0.2 against it: the both-None clip cases conformed on 2.1.3 and diverge on
    2.0.2, where array-api_numpy.txt lists them (`@ ..2.0.x`): still exit 1, and the certificate records them."""
    env = {v: R.ensure(ADAPTER, v)["python"] for v in (OLD, NEW)}
    base, new, fwd = (small["tmp"] / n for n in ("cert-new", "cert-old", "cert-fwd"))
    common = ("--adapter", ADAPTER, "--corpus", str(small["corpus"]), "--jobs", "1", "--op", "clip")
    assert conform("certify", *common, "--python", env[NEW], "--out", str(base)).returncode == 0
    r = conform("certify", *common, "--python", env[OLD], "--out", str(new), "--baseline", str(base))
    assert r.returncode == 1, r.stdout + r.stderr
    cert = json.loads((new / "certificate.json").read_text())
    regressed = {x["case_id"] for x in cert["baseline"]["regressions"]}
    assert set(small["none"]) <= regressed and cert["baseline"]["checked"] > 0
    assert cert["baseline"]["adapter_version"].startswith(NEW)
    listed = {json.loads(l)["case_id"] for l in (new / cert["results"]["file"]).read_text().splitlines()
              if '"expected_divergence"' in l}
    assert set(small["none"]) <= listed          # listed, and refused all the same
    # the other way (2.0.2 -> 2.1.3) nothing that conformed stops conforming: exit 0
    r = conform("certify", *common, "--python", env[NEW], "--out", str(fwd), "--baseline", str(new))
    assert r.returncode == 0, r.stdout + r.stderr
    assert conform("certify", *common, "--python", env[NEW], "--out", str(fwd), "--baseline",
                   str(small["tmp"] / "nothing")).returncode == 3


def test_a_pinned_adapter_runs_another_release_only_when_asked_and_says_so(monkeypatch):
    """--any-release (CONFORM_ANY_RELEASE=1 in the worker's environment): a pinned adapter that refuses any
    release but its pin runs the installed one, and its version, in every record, says it is unpinned."""
    import numpy as np
    from adapters.pinned import ANY_RELEASE, PinnedAdapter

    class Pinned(PinnedAdapter):
        package, pin = "numpy", "0.0.1"

    monkeypatch.delenv(ANY_RELEASE, raising=False)
    ok, why = Pinned().available()
    assert not ok and "verified against 0.0.1" in why
    monkeypatch.setenv(ANY_RELEASE, "1")
    assert Pinned().available() == (True, "")
    assert Pinned().version() == f"{np.__version__} (unpinned: verified against 0.0.1)"


def test_a_release_uv_cannot_install_is_exit_5_and_leaves_no_environment(tmp_path):
    env = {**os.environ, R.ENV_DIR: str(tmp_path / "releases")}
    r = conform("run", "--release", "numpy=0.0.1", "--any-release", "--out", str(tmp_path / "out"), env=env)
    assert r.returncode == 5, r.stderr
    assert "numpy==0.0.1" in r.stderr or "0.0.1" in r.stderr
    assert os.listdir(tmp_path / "releases") == ["numpy-0.0.1-py%d.%d.lock" % sys.version_info[:2]]


def test_a_read_back_failure_is_the_adapters_not_the_framework_raising():
    """A row whose answer cannot be read back (here: an object with no __dlpack__, as a NumPy scalar was) is
    recorded as the adapter's failure, a crash, never as "the framework raised" (which may pass a case)."""
    from adapters.array_api_adapter import ArrayApiAdapter, NumpyArrayApi
    from adapters.base import CRASHED
    from adapters.mapping import OpMap, read_back
    from oracle.expect import expect
    from suites.judge import judge

    def unreadable(xp, a):
        return read_back(lambda t: np_from_dlpack(t), object())

    import numpy as np
    np_from_dlpack = np.from_dlpack

    class Unreadable(NumpyArrayApi):
        TABLE = {**ArrayApiAdapter.TABLE, "clip": OpMap("xp.clip", unreadable, ArrayApiAdapter.TABLE["clip"].repro)}

    _, cases = _corpus_cases()
    case = Case.from_json(next(c for c in cases if c["op"] == "clip" and c["inputs"]["x"]["dtype"] == "float32"))
    a = Unreadable()
    a.setup()
    out = a.run(case)
    assert out.kind == CRASHED and "could not read the answer back" in out.message, out
    assert judge(case, expect(case), out, a).verdict == "crash"


def test_numpy_1_26_runs_the_adapter_not_its_copy_keyword(small):
    """NumPy 1.x's asarray has no copy=: before, every case of the release "raised" the adapter's own TypeError."""
    out = small["tmp"] / "1.26.4"
    r = conform("run", "--release", "numpy=1.26.4", "--corpus", str(small["corpus"]), "--out", str(out),
                "--jobs", "1", "--no-layouts", "--no-report")
    assert r.returncode in (0, 1), r.stderr[-2000:]
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()[1:]]
    recs = [x for x in recs if x["record"] == "case"]
    assert recs and all("copy" not in x["outcome"] for x in recs), [x["outcome"] for x in recs][:5]
    assert any(x["verdict"] == "pass" for x in recs)
    # bool is not applicable there because numpy 1.26 has no numpy.bool, and the reason says so
    assert all("float16 or bfloat16" not in x["outcome"] for x in recs)


def test_rejudge_with_the_same_oracle_changes_no_verdict_of_a_raised_pass(tmp_path):
    """A passing record keeps no `error` field: its class is read from the outcome, or every documented error
    an implementation raised would be judged a wrong class on re-judging (the oracle's own run included)."""
    header, cases = _corpus_cases()
    chosen = [c for c in cases if c["origin"] == "error-case" or c["op"] == "set_"][:80]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({**header, "cases": len(chosen)}) + "\n"
                      + "".join(json.dumps(c, separators=(",", ":")) + "\n" for c in chosen))
    r = conform("run", "--adapter", "oracle", "--corpus", str(corpus), "--out", str(tmp_path / "out"),
                "--jobs", "1", "--no-layouts", "--no-report")
    assert r.returncode == 0, r.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    raised = [x for x in records if x.get("record") == "case" and x["outcome"].startswith("raised ")]
    assert raised and all(x["verdict"] == "pass" and "error" not in x for x in raised)
    db = tmp_path / "h.db"
    assert conform("history", "add", str(tmp_path / "out" / "results.jsonl"), "--db", str(db)).returncode == 0
    r = conform("history", "rejudge", "--db", str(db))
    assert r.returncode == 0 and ", 0 changed verdict" in r.stdout, r.stdout + r.stderr


def test_rejudge_judges_a_return_whose_values_were_not_kept_where_the_answer_needs_none(tmp_path):
    """An extension (or a missing error) keeps no values; a changed oracle that makes the call unsupported (or an
    error) still decides it: the stored verdict is judged again, not kept."""
    from contract.results import read_case
    from oracle.expect import expect
    header, cases = _corpus_cases()
    open_ = [c for c in cases if c["op"] == "clip" and expect(read_case({"case": c})).kind == "unspecified"][:15]
    assert open_, "the shipped corpus has no clip case the documents leave open"
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({**header, "cases": len(open_)}) + "\n"
                      + "".join(json.dumps(c, separators=(",", ":")) + "\n" for c in open_))
    r = conform("run", "--adapter", ADAPTER, "--corpus", str(corpus), "--out", str(tmp_path / "out"),
                "--jobs", "1", "--no-layouts", "--no-report")
    assert r.returncode in (0, 1), r.stderr[-2000:]
    db = tmp_path / "h.db"
    assert conform("history", "add", str(tmp_path / "out" / "results.jsonl"), "--db", str(db)).returncode == 0
    con = sqlite3.connect(db)
    ext = [cid for cid, text in con.execute("select case_id, record from cases where verdict = 'extension'")
           if "actual_values" not in json.loads(text)]
    assert ext, "no extension without kept values to re-judge"
    with con:       # as a stored verdict of an oracle that answered otherwise
        con.executemany("update cases set verdict = 'pass' where case_id = ?", [(c,) for c in ext])
    r = conform("history", "rejudge", "--db", str(db))
    assert f", {len(ext)} changed verdict" in r.stdout, r.stdout + r.stderr
    assert {v for (v,) in con.execute("select verdict from cases")} >= {"extension"}
    assert not con.execute("select 1 from cases where verdict = 'pass' and case_id in (%s)"
                           % ",".join("?" * len(ext)), ext).fetchall()


def test_verify_reads_a_release_line_for_the_certified_release(small):
    """verify checks each listed reason against the expectations copy: a `@ ..2.0.x` line lists the both-None
    refusal of a 2.0.2 record (and only of a release it names), as the run that listed it did."""
    from conform.verify import check_listed_reasons
    from suites.known_divergences import KnownDivergences
    line = ("clip/unexpected-error/*CL-NONE*/* @ ..2.0.x ~ One of max or min must be given :: "
            "NumPy before 2.1 refuses clip with both bounds None")
    f = small["tmp"] / "verify-numpy.txt"
    f.write_text(line + "\n")
    reason = KnownDivergences.from_lines([line], "test").patterns[0].reason
    recs = [json.loads(x) for x in small["results"][OLD].read_text().splitlines()]
    recs = [r for r in recs if r.get("record") == "case" and r["verdict"] == "unexpected-error"
            and "CL-NONE" in r["clauses"]]
    assert recs, "no both-None refusal on 2.0.2 to list"
    for r in recs:
        r["expected_divergence"] = reason
    result = type("R", (), {"differences": []})()
    check_listed_reasons(recs, str(f), result)
    assert result.differences == []
    for r in recs:          # the same records said to come from 2.1.3: the line does not hold there
        r["adapter_version"] = NEW
    check_listed_reasons(recs, str(f), result)
    assert result.differences, "a release line held for a release it does not name"


def test_the_chart_leaves_out_a_release_that_answered_no_case_of_an_op():
    """A release without an op's API (paddle 2.6.2 has no Tensor.set_) answers none of its cases: the op's
    line skips that release, and the points of the others keep their own release."""
    from reports.history import chart
    a = {"adapter": "paddle", "releases": ["2.6.2", "3.0.0", "3.3.1"],
         "rates": {("2.6.2", "clip"): (4, 4), ("3.0.0", "clip"): (4, 2), ("3.3.1", "clip"): (4, 1),
                   ("3.0.0", "set_"): (2, 1), ("3.3.1", "set_"): (2, 2)}}
    svg = chart(a)
    assert svg.count("<circle") == 5
    assert "set_ 3.0.0: 1/2 conform" in svg and "set_ 3.3.1: 2/2 conform" in svg and "set_ 2.6.2" not in svg
