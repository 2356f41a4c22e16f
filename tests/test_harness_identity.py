"""The harness, not the candidate, decides what a candidate is: its expectations file and its identity (issue 18).

Each test is an attack by a real candidate (tests/misbehaving_adapters.py) run through the real CLI in
worker processes; it fails when the attack succeeds.
"""
import json
import os
import shutil
from pathlib import Path

import pytest

from bad_adapters import clip_case, write_corpus
from contract.results import file_sha256, iter_records
from adapter_helpers import conform

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_corpus(str(path), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in
                             enumerate(["ok", "value", "shape", "dtype"])])
    return path


def header(results):
    return next(r for r in iter_records(str(results)) if r["record"] == "run")


def cases(results):
    return [r for r in iter_records(str(results)) if r["record"] == "case"]


# ---- 1. the expectations file is the harness's choice -------------------------------------------------

def test_a_candidate_named_like_a_shipped_adapter_gets_none_of_its_lines(tmp_path, corpus):
    out = tmp_path / "out"
    r = conform("run", "--adapter", "misbehaving_adapters:CallsItselfMindsporeVariants", "--corpus", corpus,
                "--out", out, "--no-report")
    assert r.returncode == 1, f"actual: exit {r.returncode} (its failures were listed?)\n{r.stderr[-1500:]}"
    recs = cases(out / "results.jsonl")
    assert {x["adapter"] for x in recs} == {"mindspore-variants"}
    assert [x for x in recs if x["verdict"] != "pass"] and not [x for x in recs if x.get("expected_divergence")]
    assert header(out / "results.jsonl")["adapters"][0]["expectations"] is None


def test_a_candidate_named_by_a_path_loads_nothing_from_it(tmp_path, corpus):
    from misbehaving_adapters import PLANTED
    out = tmp_path / "out"
    try:
        r = conform("run", "--adapter", "misbehaving_adapters:NamedByAPath", "--corpus", corpus, "--out", out,
                    "--no-report")
        planted = os.path.isfile(PLANTED + ".txt")
    finally:
        shutil.rmtree(os.path.dirname(PLANTED), ignore_errors=True)
    assert r.returncode == 1, r.stderr[-1500:]
    assert not [x for x in cases(out / "results.jsonl") if x.get("expected_divergence")]
    assert header(out / "results.jsonl")["adapters"][0]["expectations"] is None
    assert {x["adapter"] for x in cases(out / "results.jsonl")} == {PLANTED}, "it did name itself by the path"
    # `planted`: whether a sandbox let it write the file (brief 18b); either way nothing was read from it
    del planted


def test_a_torch_subclass_keeping_the_name_torch_gets_no_torch_lines(tmp_path, corpus):
    pytest.importorskip("torch")
    from suites.known_divergences import DEFAULT_DIR
    from suites.options import RunOptions
    from suites.session import RunSession
    with RunSession(RunOptions(adapters=["misbehaving_adapters:KeepsTorchsName"], corpus=str(corpus))) as s:
        s.open()
        assert [h.name for h in s.handles] == ["torch"]
        assert s.known["torch"].patterns == [] and s.adapters_meta()[0]["expectations"] is None
    with RunSession(RunOptions(adapters=["adapters.torch_adapter:TorchAdapter"], corpus=str(corpus))) as s:     # the shipped one, by spec
        s.open()
        shipped = os.path.join(DEFAULT_DIR, "torch.txt")
        assert s.known["torch"].patterns and s.adapters_meta()[0]["expectations"] == {
            "file": shipped, "sha256": file_sha256(shipped), "patterns": len(s.known["torch"].patterns)}


def test_an_explicit_expectations_file_is_used_and_recorded(tmp_path, corpus):
    exp = tmp_path / "mine.txt"
    exp.write_text("clip/value-mismatch/* :: the last element is off by one, on purpose\n"
                   "clip/dtype-mismatch/* :: float64 out\n"
                   "clip/shape-mismatch/* :: reshaped\n")
    out = tmp_path / "out"
    r = conform("run", "--adapter", "misbehaving_adapters:CallsItselfMindsporeVariants", "--corpus", corpus,
                "--out", out, "--no-report", "--expectations", exp)
    assert r.returncode == 0, r.stderr[-1500:]
    assert header(out / "results.jsonl")["adapters"][0]["expectations"] == {
        "file": str(exp), "sha256": file_sha256(exp), "patterns": 3}
    failing = [x for x in cases(out / "results.jsonl") if x["verdict"] != "pass"]
    assert len(failing) == 3 and all(x.get("expected_divergence") for x in failing), failing


def test_expectations_check_says_which_line_matches_what(tmp_path, corpus):
    out = tmp_path / "out"
    r = conform("run", "--adapter", "misbehaving_adapters:CallsItselfMindsporeVariants", "--corpus", corpus,
                "--out", out, "--no-report")
    assert r.returncode == 1, r.stderr[-1500:]
    recs = {x["case"]["label"]: x for x in cases(out / "results.jsonl")}
    exp = tmp_path / "mine.txt"
    exp.write_text("# value only\n"
                   f"clip/value-mismatch/*/{recs['value']['case_id']} :: off by one\n"
                   "scatter/* :: never matches\n")
    r = conform("expectations", "check", exp, out / "results.jsonl")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "3 divergences, 1 listed, 2 unlisted" in r.stdout, r.stdout
    assert f"matches 1: {exp}:2 clip/value-mismatch/*/{recs['value']['case_id']}" in r.stdout
    assert f"matches nothing: {exp}:3 scatter/*" in r.stdout
    unlisted = [line for line in r.stdout.splitlines() if line.startswith("unlisted: ")]
    assert sorted(u.rsplit("/", 1)[1] for u in unlisted) == sorted(recs[k]["case_id"] for k in ("shape", "dtype"))
    exp.write_text("clip/value-mismatch/* :: all of them\n")
    r = conform("expectations", "check", exp, out / "results.jsonl")
    assert r.returncode == 0 and "3 listed, 0 unlisted" in r.stdout, r.stdout


@pytest.mark.parametrize("damage, code, says", [("no file", 3, "no such expectations file"),
                                                ("a bad line", 3, "expected '<glob> :: <reason>'"),
                                                ("no results", 3, "no such results file"),
                                                ("another adapter", 2, "has no records of adapter 'nope'")])
def test_expectations_check_refuses_bad_input(tmp_path, corpus, damage, code, says):
    out = tmp_path / "out"
    conform("run", "--adapter", "oracle", "--corpus", corpus, "--out", out, "--no-report")
    exp = tmp_path / "e.txt"
    exp.write_text("clip/* :: x\n" if damage != "a bad line" else "clip/*\n")
    args = [exp if damage != "no file" else tmp_path / "none.txt",
            out / "results.jsonl" if damage != "no results" else tmp_path / "none.jsonl"]
    r = conform("expectations", "check", *args, *(["--adapter", "nope"] if damage == "another adapter" else []))
    assert r.returncode == code and says in r.stderr and "Traceback" not in r.stderr, (r.returncode, r.stderr)


# ---- 2. identity measured by the harness --------------------------------------------------------------

def certify(spec, corpus, out, *args):
    return conform("certify", "--adapter", spec, "--corpus", corpus, "--out", out, "--jobs", "1", *args)


def test_a_class_claiming_another_modules_file_gets_its_true_identity(tmp_path, corpus):
    out = tmp_path / "cert"
    r = certify("misbehaving_adapters:ClaimsTheOraclesFile", corpus, out)
    assert r.returncode == 0, r.stderr[-1500:]
    a = json.loads((out / "certificate.json").read_text())["adapter"]
    assert (a["module"], a["class"]) == ("misbehaving_adapters", "ClaimsTheOraclesFile"), a
    assert a["source_sha256"] == file_sha256(TESTS / "misbehaving_adapters.py"), "the file the spec names"
    assert a["source_sha256"] != file_sha256(ROOT / "adapters" / "oracle_adapter.py")
    assert a["package"] is None, "tests/ is no installed distribution, whatever the class says"


def test_the_certificate_pins_the_framework_of_a_shipped_adapter(tmp_path, corpus):
    import numpy
    out = tmp_path / "cert"
    r = certify("oracle", corpus, out)
    assert r.returncode == 0, r.stderr[-1500:]
    assert json.loads((out / "certificate.json").read_text())["adapter"]["frameworks"] == {"numpy": numpy.__version__}


def test_identity_is_measured_without_importing_the_candidate(tmp_path, monkeypatch):
    """A module that would record its own import: measuring it leaves no trace."""
    from adapters.identity import measure
    pkg = tmp_path / "spy_pkg"
    pkg.mkdir()
    trace = tmp_path / "imported"
    (pkg / "__init__.py").write_text(f"open({str(trace)!r}, 'a').write('package ')\n")
    (pkg / "adapter.py").write_text(f"open({str(trace)!r}, 'a').write('module ')\n"
                                    "import numpy\nfrom adapters.base import Adapter\n"
                                    "class SpyAdapter(Adapter):\n    name = 'spy'\n")
    monkeypatch.syspath_prepend(str(tmp_path))     # the worker's import path is this process's
    found = measure("spy_pkg.adapter:SpyAdapter")
    assert not trace.exists(), trace.read_text()
    assert found["module"] == "spy_pkg.adapter" and found["source_sha256"] == file_sha256(pkg / "adapter.py")
    assert "numpy" in found["frameworks"]


# ---- 3. verify trusts nothing --------------------------------------------------------------------------

def edit_results(cert, edit):
    path = cert / "results.jsonl"
    path.write_text("".join(json.dumps(edit(json.loads(line))) + "\n" for line in path.read_text().splitlines()))


def flip_to_pass(rec):
    if rec.get("record") == "case" and rec["verdict"] != "pass":
        for k in ("mismatch", "expected_values", "actual_values", "error"):
            rec.pop(k, None)
        rec["verdict"], rec["repro"] = "pass", ""
    return rec


@pytest.fixture(scope="module")
def certified_once(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("failing")
    path = tmp / "corpus.jsonl"
    write_corpus(str(path), [clip_case(label, x=[1.0, 5.0, 9.0, float(i)]) for i, label in
                             enumerate(["ok", "value", "shape", "dtype"])])
    r = certify("misbehaving_adapters:CallsItselfMindsporeVariants", path, tmp / "cert")
    assert r.returncode == 1, r.stderr[-1500:]
    return tmp / "cert"


@pytest.fixture
def failing_cert(tmp_path, certified_once):
    """A real certificate of a failing candidate, a private copy per test."""
    shutil.copytree(certified_once, tmp_path / "cert")
    return tmp_path / "cert"


def verify(cert, *args, timeout=300):
    return conform("verify", cert, "--sample", "100", "--accept-other-corpus", "--challenge", "20", *args, timeout=timeout)


def test_verify_refuses_a_forgery_pointed_at_the_oracle(failing_cert):
    """Every failure flipped to pass, the certificate rebuilt with the project's own builder, its spec and
    identity the oracle's: re-running the oracle would agree with every forged case."""
    from adapters.identity import measure
    from reports.certify import write_certificate
    edit_results(failing_cert, flip_to_pass)
    forged = write_certificate(failing_cert / "results.jsonl", failing_cert, target="oracle",
                               identity=measure("oracle"))
    assert sum(v for k, v in forged["totals"].items() if k != "pass") == 0
    r = verify(failing_cert)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "DIFFERS: identity: adapter name: the certificate says 'mindspore-variants', oracle here is 'oracle'" \
        in r.stdout, r.stdout
    assert "nothing was re-run" in r.stdout and "verified" not in r.stdout


def test_verify_refuses_a_forgery_that_renames_the_header_spec_too(failing_cert):
    from adapters.identity import measure
    from reports.certify import write_certificate

    def to_oracle(rec):
        rec = flip_to_pass(rec)
        if rec.get("record") == "run":
            rec["adapters"][0]["spec"] = "oracle"
        return rec
    edit_results(failing_cert, to_oracle)
    write_certificate(failing_cert / "results.jsonl", failing_cert, identity=measure("oracle"))
    r = verify(failing_cert)
    assert r.returncode == 1 and "DIFFERS: identity: adapter " in r.stdout and "verified" not in r.stdout, r.stdout


@pytest.mark.parametrize("field, value, says", [
    (("adapter", "version"), "9.9.9", "identity: adapter version: the certificate says '9.9.9'"),
    (("adapter", "frameworks", "numpy"), "0.0.1", "identity: framework versions"),
    (("adapter", "module"), "adapters.oracle_adapter", "identity: adapter module"),
    (("expectations", "sha256"), "sha256:" + "0" * 64, "identity: expectations file"),
])
def test_verify_refuses_an_edited_identity_before_running_anything(failing_cert, field, value, says):
    path = failing_cert / "certificate.json"
    c = json.loads(path.read_text())
    where = c
    for k in field[:-1]:
        where = where[k]
    where[field[-1]] = value
    path.write_text(json.dumps(c))
    r = verify(failing_cert)
    assert r.returncode == 1 and says in r.stdout and "nothing was re-run" in r.stdout, r.stdout


def test_verify_refuses_listed_reasons_the_expectations_file_does_not_give(tmp_path, corpus):
    exp = tmp_path / "mine.txt"
    exp.write_text("clip/value-mismatch/* :: off by one\n")
    out = tmp_path / "cert"
    r = certify("misbehaving_adapters:CallsItselfMindsporeVariants", corpus, out, "--expectations", exp)
    assert r.returncode == 0 and "(3 listed in" in r.stdout, r.stdout + r.stderr
    assert (out / "expectations.txt").read_bytes() == exp.read_bytes()
    c = json.loads((out / "certificate.json").read_text())
    assert c["expectations"]["sha256"] == file_sha256(exp) and c["expectations"]["listed"] == 3
    assert verify(out).returncode == 0
    (out / "expectations.txt").write_text("clip/* :: everything is fine\n")     # the copy swapped
    r = verify(out)
    assert r.returncode == 1 and "identity: expectations file" in r.stdout, r.stdout


# ---- hostile certificate folders: exit 3, one message, no hang, no traceback ---------------------------

def _fifo(p):
    p.unlink()
    os.mkfifo(p)


def _symlink(p):
    target = p.with_name("elsewhere.json")
    p.rename(target)
    p.symlink_to(target)


def _directory(p):
    p.unlink()
    p.mkdir()


def _huge(p):
    with open(p, "wb") as f:
        f.write(b'{"adapter": "' + b"x" * (200 << 20) + b'"}')


def _deep(p):
    p.write_text("[" * 100000 + "]" * 100000)


def _wrong_types(p):
    c = json.loads(p.read_text())
    c["adapter"]["version"] = 7
    p.write_text(json.dumps(c))


def _package_a_list(p):
    c = json.loads(p.read_text())
    c["adapter"]["package"] = ["x"]
    p.write_text(json.dumps(c))


HOSTILE = [("certificate.json", _fifo, "it is a FIFO"), ("certificate.json", _symlink, "it is a symbolic link"),
           ("certificate.json", _directory, "it is a directory"), ("certificate.json", _huge, "bytes, over the"),
           ("certificate.json", _deep, "nested deeper than"),
           ("certificate.json", _wrong_types, "adapter.version must be a string, not int"),
           ("certificate.json", _package_a_list, "adapter.package must be an object or null, not list"),
           ("results.jsonl", _fifo, "it is a FIFO"), ("results.jsonl", _symlink, "it is a symbolic link"),
           ("results.jsonl", _directory, "it is a directory")]


@pytest.mark.parametrize("name, damage, says", HOSTILE, ids=[f"{n}-{d.__name__[1:]}" for n, d, _ in HOSTILE])
def test_verify_refuses_a_hostile_certificate_folder(failing_cert, name, damage, says):
    damage(failing_cert / name)
    r = verify(failing_cert, timeout=120)
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr[-1000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in r.stderr, r.stderr[-1000:]


# ---- 4. not-applicable is declared, not improvised -----------------------------------------------------

def test_not_applicable_on_exactly_the_failing_cases_no_longer_certifies(tmp_path, corpus):
    out = tmp_path / "cert"
    r = certify("misbehaving_adapters:HidesFailuresAsNotApplicable", corpus, out)
    assert r.returncode == 1, f"actual: exit {r.returncode}: it certified with its failures hidden\n{r.stdout}"
    c = json.loads((out / "certificate.json").read_text())
    assert c["totals"]["undeclared-not-applicable"] == 3 and c["totals"]["not-applicable"] == 0, c["totals"]
    assert "3 failing" in r.stdout, r.stdout


def test_declared_exclusions_are_shown_in_the_certificate(tmp_path, corpus):
    out = tmp_path / "cert"
    r = certify("misbehaving_adapters:DeclaresItsExclusions", corpus, out)
    assert r.returncode == 0, r.stdout + r.stderr[-1500:]
    c = json.loads((out / "certificate.json").read_text())
    assert c["totals"]["not-applicable"] == 3 and c["totals"]["undeclared-not-applicable"] == 0
    assert c["adapter"]["excludes"] == [{
        "line": "clip/not-applicable/* ~ not supported by this build :: the vendor documents these inputs as "
                "unsupported in this build",
        "reason": "the vendor documents these inputs as unsupported in this build", "cases": 3}]
    r = verify(out)
    assert r.returncode == 0, r.stdout
    c["adapter"]["excludes"] = []                   # a certificate that hides the exclusions it relied on
    (out / "certificate.json").write_text(json.dumps(c))
    r = verify(out)
    assert r.returncode == 1 and "identity: declared exclusions" in r.stdout, r.stdout


def test_a_malformed_exclusion_stops_the_run(tmp_path, corpus):
    r = conform("run", "--adapter", "misbehaving_adapters:MalformedExclusion", "--corpus", corpus,
                "--out", tmp_path / "out", "--no-report")
    assert r.returncode == 5 and "declared exclusion is malformed" in r.stderr and "nested quantifiers" in r.stderr, \
        r.stderr[-1500:]


def test_the_file_is_chosen_from_the_spec_alone(tmp_path):
    """Unit view of the choice: a folder serves the shipped adapters only; a file is given for a spec."""
    from suites.known_divergences import DEFAULT_DIR, chosen_file
    (tmp_path / "hides-failures.txt").write_text("clip/* :: planted\n")
    assert chosen_file("misbehaving_adapters:HidesFailuresAsNotApplicable", str(tmp_path)) == ""
    assert chosen_file("mindspore-variants") == os.path.join(DEFAULT_DIR, "mindspore-variants.txt")
    assert chosen_file("adapters.mindspore_adapter:MindsporeVariantAdapter@from_numpy", str(tmp_path)) == \
        str(tmp_path / "mindspore-variants.txt")
    assert chosen_file("misbehaving_adapters:KeepsTorchsName") == ""
    assert chosen_file("x:Y@way", files={"x:Y": "/f.txt"}) == "/f.txt"
