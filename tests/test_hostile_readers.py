"""Every attack on every reader, through every command that reads the file (issue 12, section 2).

A corpus, results or expectations file that is damaged or hostile is refused with exit 3
(EXIT_BAD_INPUT), a message naming the file and the line and the reason, and no traceback:
by `conform run --corpus/--expectations`, `conform certify --corpus`, `conform report`,
`conform diff`, `conform merge`, and by pytest's `--corpus`/`--expectations` as a usage error.
Memory stays bounded for any single hostile line (measured in a subprocess), and an
expectations regex that could backtrack catastrophically is refused when the file is loaded.
"""
import json
import os
import re
import subprocess
import sys
import time

import pytest

from conform.cli import main as conform_main
from contract.inputfile import MAX_CONTAINERS, MAX_DEPTH, InputFileError
from contract.vocabulary import EXIT_BAD_INPUT
from contract import results as R
from suites import corpus as C
from suites import known_divergences as X

from bad_adapters import clip_case, write_corpus
from report_fixtures import small_run, write_results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, TESTS])}
MEMORY_LIMIT_MB = 500


# ---- the files under attack ------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus_lines(tmp_path_factory):
    path = tmp_path_factory.mktemp("good") / "corpus.jsonl"
    write_corpus(str(path), [clip_case("a", x=[1.0, 5.0, 9.0]), clip_case("b", x=[2.0, -0.0])])
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def results_lines(tmp_path_factory):
    _, recs = small_run(2)
    path = write_results(tmp_path_factory.mktemp("good") / "results.jsonl", recs)
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def good_corpus(tmp_path, corpus_lines):
    return write_lines(tmp_path / "good_corpus.jsonl", corpus_lines)


@pytest.fixture
def good_results(tmp_path, results_lines):
    return write_lines(tmp_path / "good_results.jsonl", results_lines)


def write_lines(path, lines):
    """Lines are str (written as UTF-8; "\udcff" stands for the raw byte 0xff) or bytes (written as given)."""
    data = b"".join((ln if isinstance(ln, bytes) else ln.encode("utf-8", "surrogateescape")) + b"\n" for ln in lines)
    path.write_bytes(data)
    return path


def edit(line, change):
    obj = json.loads(line)
    change(obj)
    return json.dumps(obj)


def deep(n):
    return "[" * n + "]" * n


def setp(path, value):
    """A change that sets obj[path...] = value."""
    def change(obj):
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return change


def raw_sub(old, new):
    """A change of the line's text: the first `old` becomes `new` (for tokens json.dumps cannot write)."""
    def change(line):
        assert old in line, f"fixture line lacks {old!r}"
        return line.replace(old, new, 1)
    change.on_text = True
    return change


# Each attack: (name, line number, how the line changes, what the reason must say).  A change is a
# function of the parsed record (edited, re-serialised) or, through raw_sub, of the line's text.

CORPUS_ATTACKS = [
    ("wrong type: label", 2, setp(["label"], 5), r"case field 'label' must be a string"),
    ("wrong type: op", 2, setp(["op"], ["clip"]), r"case field 'op' must be a string"),
    ("wrong type: clauses", 2, setp(["clauses"], "CL-FORMULA"), r"case field 'clauses' must be"),
    ("wrong type: inputs", 2, setp(["inputs"], [1, 2]), r"case field 'inputs' must be"),
    ("wrong type: params", 2, setp(["params"], "none"), r"case field 'params' must be"),
    ("wrong type: id", 2, setp(["id"], 7), r"case field 'id' must be a string"),
    ("wrong type: a shape", 2, setp(["inputs", "x", "shape"], ["3"]), r"shape must be a list of non-negative ints"),
    ("wrong type: a dtype", 2, setp(["inputs", "x", "dtype"], 32), r"unknown dtype"),
    ("wrong type: header cases", 1, setp(["cases"], "2"), r"header 'cases' must be a non-negative int"),
    ("wrong type: header schema", 1, setp(["schema"], True), r"corpus schema True"),
    ("NaN token", 2, raw_sub('"value":2.0', '"value":NaN'), r"NaN is not JSON"),
    ("Infinity token", 2, raw_sub('"value":2.0', '"value":Infinity'), r"Infinity is not JSON"),
    ("-Infinity token", 2, raw_sub('"value":2.0', '"value":-Infinity'), r"-Infinity is not JSON"),
    ("a float overflowing to inf", 2, raw_sub('"value":2.0', '"value":1e999'), r"too large for a float"),
    ("a 400-digit integer", 2, raw_sub('"value":2.0', '"value":' + "9" * 400), r"too large for a float"),
    ("absurd shape", 2, setp(["inputs", "x", "shape"], [1 << 26, 1 << 26]), r"over the limit"),
    ("absurd dim", 2, setp(["inputs", "x", "shape"], [1 << 70]), r"over the limit"),
    ("absurd rank", 2, setp(["inputs", "x", "shape"], [1] * 40), r"over the limit"),
    ("absurd empty shape", 2, setp(["inputs", "x", "shape"], [0, 1 << 40, 1 << 40]), r"over the limit"),
    ("deep nesting", 2, raw_sub('"value":2.0', '"value":' + deep(100_000)), rf"nested deeper than {MAX_DEPTH}"),
    ("nesting one level over the limit", 2, raw_sub('"value":2.0', '"value":' + deep(MAX_DEPTH - 2)),
     rf"nested deeper than {MAX_DEPTH}"),
    ("too many containers", 2, raw_sub('"value":2.0', '"value":[' + ",".join(["[]"] * (MAX_CONTAINERS + 1)) + "]"),
     rf"more than {MAX_CONTAINERS} JSON arrays"),
    ("invalid UTF-8", 2, raw_sub('"label":"a"', '"label":"\udcff"'), r"not UTF-8"),
    ("lone surrogate escape", 2, raw_sub('"label":"a"', '"label":"\\ud800"'), r"lone surrogate"),
    ("a digit string too long for an int", 2, raw_sub('"value":2.0', '"value":' + "9" * 5000), r"not JSON"),
]

RESULTS_ATTACKS = [
    ("wrong type: verdict", 2, setp(["verdict"], 5), r"field 'verdict' must be a string"),
    ("unknown verdict", 2, setp(["verdict"], "fine"), r"unknown verdict"),
    ("wrong type: outcome", 3, setp(["outcome"], ["x"]), r"field 'outcome' must be a string"),
    ("wrong type: elapsed_s", 2, setp(["elapsed_s"], "fast"), r"field 'elapsed_s' must be a non-negative number"),
    ("wrong type: notes", 2, setp(["notes"], [1]), r"field 'notes' must be a list of strings"),
    ("wrong type: clauses", 2, setp(["clauses"], "CL-FORMULA"), r"field 'clauses' must be a list of strings"),
    ("wrong type: error", 5, setp(["error", "message"], 5), r"field 'error' must be"),
    ("wrong type: mismatch indices", 4, setp(["mismatch", "indices"], "all"), r"mismatch field 'indices'"),
    ("wrong type: actual value", 4, setp(["actual_values", "out"], [1, 2]), r"actual_values\[.*\]: an array must be"),
    ("wrong type: case label", 2, setp(["case", "label"], 5), r"case field 'label' must be a string"),
    ("wrong type: case input", 2, setp(["case", "inputs", "x"], "x"), r"case input .*an array must be"),
    ("wrong type: adapter", 2, setp(["adapter"], ""), r"field 'adapter' must be a non-empty string"),
    ("an adapter name with a zero-width space", 2, setp(["adapter"], "torch\u200b"), r"U\+200B ZERO WIDTH SPACE"),
    ("a header adapter name with a bidi override", 1, setp(["adapters", 0, "name"], "torch\u202e"),
     r"adapters\[0\] field 'name'.*U\+202E"),
    ("wrong type: header adapters", 1, setp(["adapters"], [5]), r"field 'adapters' must be a list of objects"),
    ("wrong type: header adapter name", 1, setp(["adapters", 0, "name"], None), r"adapters\[0\] field 'name'"),
    ("wrong type: header packages", 1, setp(["packages", "numpy"], 1), r"field 'packages' must be an object of strings"),
    ("wrong type: header seed", 1, setp(["seed"], "0"), r"field 'seed' must be an integer"),
    ("wrong type: end counts", 6, setp(["counts", "pass"], "3"), r"'counts' must map verdicts"),
    ("wrong type: end cases", 6, setp(["cases"], True), r"end record field 'cases'"),
    ("NaN token", 2, raw_sub('"elapsed_s": 0.001', '"elapsed_s": NaN'), r"NaN is not JSON"),
    ("Infinity token", 2, raw_sub('"elapsed_s": 0.001', '"elapsed_s": Infinity'), r"Infinity is not JSON"),
    ("a float overflowing to inf", 2, raw_sub('"elapsed_s": 0.001', '"elapsed_s": 1e400'), r"too large for a float"),
    ("a 400-digit integer", 2, raw_sub('"elapsed_s": 0.001', '"elapsed_s": ' + "9" * 400), r"too large for a float"),
    ("absurd shape: actual value", 4, setp(["actual_values", "out", "shape"], [1 << 40]), r"over the limit"),
    ("absurd shape: case input", 2, setp(["case", "inputs", "x", "shape"], [1 << 26, 1 << 26]), r"over the limit"),
    ("absurd shape: many dims", 4, setp(["expected_values", "out", "shape"], [2] * 33), r"over the limit"),
    ("deep nesting", 2, raw_sub('"elapsed_s": 0.001', '"elapsed_s": 0.001, "extra": ' + deep(100_000)),
     rf"nested deeper than {MAX_DEPTH}"),
    ("invalid UTF-8", 2, raw_sub('"outcome": "returned out"', '"outcome": "\udcc3("'), r"not UTF-8"),
    ("lone surrogate escape", 2, raw_sub('"outcome": "returned out"', '"outcome": "\\udc80"'), r"lone surrogate"),
]


def attack(lines, lineno, change):
    out = list(lines)
    old = out[lineno - 1]
    new = change(old) if getattr(change, "on_text", False) else edit(old, change)
    assert new != old
    out[lineno - 1] = new
    return out


def hostile_corpus(tmp_path, corpus_lines, lineno, change):
    return write_lines(tmp_path / "hostile_corpus.jsonl", attack(corpus_lines, lineno, change))


def hostile_results(tmp_path, results_lines, lineno, change):
    return write_lines(tmp_path / "hostile_results.jsonl", attack(results_lines, lineno, change))


# ---- running a command the way a user does ---------------------------------------------------

def run_cli(capfd, *argv):
    """conform's exit code and stderr; an exception escaping main() fails the test (that is a traceback)."""
    rc = conform_main([str(a) for a in argv])
    err = capfd.readouterr().err
    return rc, err


def assert_refused(rc, err, path, lineno, reason):
    where = f"{path}:{lineno}: " if lineno else f"{path}: "
    assert rc == EXIT_BAD_INPUT, f"actual: exit {rc}, stderr {err[-600:]!r}; expected: exit {EXIT_BAD_INPUT}"
    assert where in err, f"actual: {err[-600:]!r}; expected: the file and line {where!r}"
    assert re.search(reason, err), f"actual: {err[-600:]!r}; expected the reason /{reason}/"
    assert "Traceback" not in err, f"actual: a traceback {err[-600:]!r}; expected: one clear message"


CORPUS_COMMANDS = {
    "run": lambda f, out: ["run", "--adapter", "oracle", "--in-process", "--corpus", f, "--out", out, "--no-report"],
    "certify": lambda f, out: ["certify", "--adapter", "oracle", "--in-process", "--corpus", f, "--out", out],
}


@pytest.mark.parametrize("command", sorted(CORPUS_COMMANDS))
@pytest.mark.parametrize("name, lineno, change, reason", CORPUS_ATTACKS, ids=[a[0] for a in CORPUS_ATTACKS])
def test_corpus_commands_refuse_each_attack(tmp_path, capfd, corpus_lines, command, name, lineno, change, reason):
    path = hostile_corpus(tmp_path, corpus_lines, lineno, change)
    rc, err = run_cli(capfd, *CORPUS_COMMANDS[command](path, tmp_path / "out"))
    assert_refused(rc, err, path, lineno, reason)


RESULTS_COMMANDS = {
    "report": lambda f, good, out: ["report", f, "--out", out],
    "diff (base)": lambda f, good, out: ["diff", f, good, "--out", out],
    "diff (new)": lambda f, good, out: ["diff", good, f, "--out", out],
    "merge": lambda f, good, out: ["merge", good, f, "--out", out],
}


@pytest.mark.parametrize("command", sorted(RESULTS_COMMANDS))
@pytest.mark.parametrize("name, lineno, change, reason", RESULTS_ATTACKS, ids=[a[0] for a in RESULTS_ATTACKS])
def test_results_commands_refuse_each_attack(tmp_path, capfd, results_lines, good_results, command, name, lineno,
                                             change, reason):
    path = hostile_results(tmp_path, results_lines, lineno, change)
    rc, err = run_cli(capfd, *RESULTS_COMMANDS[command](path, good_results, tmp_path / "out"))
    assert_refused(rc, err, path, lineno, reason)


def test_the_attacked_lines_are_the_ones_named(corpus_lines, results_lines):
    """The fixtures' line numbers in the attack tables point at the records they mean."""
    assert json.loads(corpus_lines[0])["record"] == "corpus" and "inputs" in json.loads(corpus_lines[1])
    kinds = [json.loads(ln)["record"] for ln in results_lines]
    assert kinds == ["run", "case", "case", "case", "case", "end"], kinds
    recs = [json.loads(ln) for ln in results_lines]
    assert "actual_values" in recs[3] and "mismatch" in recs[3] and "error" in recs[4], "line 4 mismatch, 5 error"


# ---- a directory where a file belongs, a missing file -----------------------------------------

def test_a_directory_as_corpus_is_refused_by_every_command(tmp_path, capfd):
    d = tmp_path / "corpus.jsonl"
    d.mkdir()
    for command in CORPUS_COMMANDS.values():
        rc, err = run_cli(capfd, *command(d, tmp_path / "out"))
        assert_refused(rc, err, d, 0, r"is a directory")


def test_a_directory_as_results_is_refused_by_every_command(tmp_path, capfd, good_results):
    d = tmp_path / "results.jsonl"
    d.mkdir()
    for command in RESULTS_COMMANDS.values():
        rc, err = run_cli(capfd, *command(d, good_results, tmp_path / "out"))
        assert_refused(rc, err, d, 0, r"is a directory")


def test_the_readers_refuse_a_directory_themselves(tmp_path):
    d = tmp_path / "x.jsonl"
    d.mkdir()
    for read in (lambda: list(C.iter_corpus(d)), lambda: C.corpus_hash(d), lambda: list(R.iter_records(str(d))),
                 lambda: X.KnownDivergences.load(str(d))):
        with pytest.raises(InputFileError, match=re.escape(f"{d}: is a directory")):
            read()


# ---- duplicate case ids ---------------------------------------------------------------------

def test_run_refuses_a_duplicate_case_id_naming_both_lines(tmp_path, capfd, corpus_lines):
    lines = list(corpus_lines)
    lines[0] = edit(lines[0], setp(["cases"], 3))
    lines.append(lines[1])
    path = write_lines(tmp_path / "dup.jsonl", lines)
    for name, command in CORPUS_COMMANDS.items():    # a folder each: certify refuses one holding results
        rc, err = run_cli(capfd, *command(path, tmp_path / f"out-{name}"))
        assert_refused(rc, err, path, 4, r"case id [0-9a-f]{16} already appears at line 2")


# ---- line-length caps and memory, measured in a subprocess ----------------------------------

# VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a big pytest worker
# would report its parent's peak; VmHWM belongs to the memory the command itself mapped.
PEAK = """
import sys
from conform.cli import main
rc = main(sys.argv[1:])
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print("PEAK_MB", int(hwm.split()[1]) // 1024, file=sys.stderr)
sys.exit(rc)
"""


def peak_of(*argv):
    """(exit code, stderr, peak resident MB) of one conform command in a fresh interpreter."""
    r = subprocess.run([sys.executable, "-c", PEAK, *map(str, argv)], cwd=ROOT, env=ENV, text=True,
                       capture_output=True, timeout=600)
    m = re.search(r"PEAK_MB (\d+)", r.stderr)
    assert m, f"actual: {r.stderr[-800:]!r}; expected a peak memory line"
    return r.returncode, r.stderr, int(m.group(1))


def with_line(path, head, line: bytes, tail=(), newline=True):
    with open(path, "wb") as f:
        for ln in head:
            f.write(ln.encode() + b"\n")
        f.write(line + (b"\n" if newline else b""))
        for ln in tail:
            f.write(ln.encode() + b"\n")
    return path


def strings_line(size):
    """Valid JSON of `size` bytes that costs the parser the most memory per byte: many distinct strs."""
    n = (size - 2) // 5
    return b"[" + b",".join([b'"ab"'] * n) + b"]"


@pytest.mark.parametrize("newline", [True, False], ids=["with newline", "no newline"])
def test_a_corpus_line_far_over_the_cap_is_refused_in_bounded_memory(tmp_path, corpus_lines, newline):
    path = with_line(tmp_path / "long.jsonl", corpus_lines[:1], b'{"label": "' + b"a" * (4 * C.MAX_LINE) + b'"}',
                     corpus_lines[2:], newline)
    rc, err, peak = peak_of(*CORPUS_COMMANDS["run"](path, tmp_path / "out"))
    assert rc == EXIT_BAD_INPUT and f"{path}:2: line longer than {C.MAX_LINE} bytes" in err, err[-600:]
    assert "Traceback" not in err
    assert peak < MEMORY_LIMIT_MB, f"actual: peak {peak} MB; expected: < {MEMORY_LIMIT_MB} MB"


def test_the_costliest_corpus_line_under_the_cap_is_refused_in_bounded_memory(tmp_path, corpus_lines):
    path = with_line(tmp_path / "strs.jsonl", corpus_lines[:1], strings_line(C.MAX_LINE), corpus_lines[2:])
    rc, err, peak = peak_of(*CORPUS_COMMANDS["run"](path, tmp_path / "out"))
    assert rc == EXIT_BAD_INPUT and f"{path}:2: a case must be a JSON object" in err, err[-600:]
    assert peak < MEMORY_LIMIT_MB, f"actual: peak {peak} MB; expected: < {MEMORY_LIMIT_MB} MB"


@pytest.mark.parametrize("newline", [True, False], ids=["with newline", "no newline"])
def test_a_results_line_far_over_the_cap_is_refused_in_bounded_memory(tmp_path, results_lines, newline):
    path = with_line(tmp_path / "long.jsonl", results_lines[:1], b"[" * (4 * R.MAX_LINE), results_lines[2:], newline)
    rc, err, peak = peak_of("report", path, "--out", tmp_path / "out")
    assert rc == EXIT_BAD_INPUT and f"{path}:2: line longer than {R.MAX_LINE} bytes" in err, err[-600:]
    assert "Traceback" not in err
    assert peak < MEMORY_LIMIT_MB, f"actual: peak {peak} MB; expected: < {MEMORY_LIMIT_MB} MB"


def test_the_costliest_results_line_under_the_cap_is_refused_in_bounded_memory(tmp_path, results_lines):
    path = with_line(tmp_path / "strs.jsonl", results_lines[:1], strings_line(R.MAX_LINE), results_lines[2:])
    rc, err, peak = peak_of("report", path, "--out", tmp_path / "out")
    assert rc == EXIT_BAD_INPUT and f"{path}:2: a record must be a JSON object" in err, err[-600:]
    assert peak < MEMORY_LIMIT_MB, f"actual: peak {peak} MB; expected: < {MEMORY_LIMIT_MB} MB"


def test_an_expectations_line_far_over_the_cap_is_refused_in_bounded_memory(tmp_path, good_corpus):
    d = tmp_path / "exp"
    d.mkdir()
    with_line(d / "oracle.txt", ["# fine"], b"clip/* :: " + b"x" * (1 << 26), newline=False)
    rc, err, peak = peak_of("run", "--adapter", "oracle", "--in-process", "--corpus", good_corpus,
                            "--out", tmp_path / "out", "--expectations", d, "--no-report")
    assert rc == EXIT_BAD_INPUT and f"{d / 'oracle.txt'}:2: line longer than {X.MAX_LINE} bytes" in err, err[-600:]
    assert peak < MEMORY_LIMIT_MB, f"actual: peak {peak} MB; expected: < {MEMORY_LIMIT_MB} MB"


@pytest.mark.parametrize("reader", ["corpus", "results"])
def test_a_line_at_the_cap_is_read_and_one_byte_more_is_refused(tmp_path, reader, monkeypatch):
    """The cap is the documented number of bytes of a line, newline excluded."""
    if reader == "corpus":
        line = json.dumps({"record": "corpus", "schema": 1, "cases": 0})
        module, read = C, lambda p: list(C.iter_corpus(p))
    else:
        line = json.dumps(R.run_record("r1", "sha256:x", 0, []))
        module, read = R, lambda p: list(R.iter_records(str(p)))
    monkeypatch.setattr(module, "MAX_LINE", len(line))
    assert len(read(write_lines(tmp_path / "at.jsonl", [line]))) == (0 if reader == "corpus" else 1)
    over = write_lines(tmp_path / "over.jsonl", [line[:-1] + " }"])
    with pytest.raises(InputFileError, match=rf"{re.escape(str(over))}:1: line longer than {len(line)} bytes"):
        read(over)


@pytest.mark.parametrize("depth", [MAX_DEPTH, MAX_DEPTH + 1])
def test_nesting_up_to_the_limit_is_parsed_and_one_more_level_refused(depth):
    from contract.inputfile import parse_json
    line = ("[" * depth + "]" * depth).encode()
    if depth <= MAX_DEPTH:
        assert parse_json(line, "f", 3) == json.loads(line)
    else:
        with pytest.raises(InputFileError, match=rf"^f:3: JSON nested deeper than {MAX_DEPTH} levels$"):
            parse_json(line, "f", 3)


def test_brackets_inside_strings_do_not_count_as_nesting():
    """A candidate's message full of brackets cannot make its own results unreadable."""
    from contract.inputfile import parse_json
    obj = {"outcome": "[" * (MAX_CONTAINERS + 10) + '\\"{' * 100, "notes": [["x"]]}
    assert parse_json(json.dumps(obj).encode(), "f", 1) == obj


# ---- expectations files ------------------------------------------------------------------------

EXPECTATIONS_ATTACKS = [
    ("invalid UTF-8", b"clip/* :: caf\xe9", r"not UTF-8"),
    ("a line over the cap", b"clip/* :: " + b"x" * X.MAX_LINE, rf"line longer than {X.MAX_LINE} bytes"),
    ("nested quantifiers", b"clip/* ~ (a+)+b :: r", r"nested quantifiers"),
    ("a quantified group", b"clip/* ~ (ab)* :: r", r"quantifier on a group"),
    ("a quantified alternation", b"clip/* ~ (a|aa)*b :: r", r"quantifier on a group"),
    ("a backreference", b"clip/* ~ (a)\\1 :: r", r"backreference"),
    ("a lookahead", b"clip/* ~ x(?=y) :: r", r"lookahead"),
    ("a conditional", b"clip/* ~ (a)?(?(1)b|c) :: r", r"conditional"),
    ("two unbounded quantifiers", b"clip/* ~ a.*b.*c :: r", r"2 unbounded quantifiers"),
    ("too many ways", b"clip/* ~ a?b?c?d? :: r", rf"more than {X.MAX_WAYS} ways"),
    ("a long bounded repeat", b"clip/* ~ x.{0,1000}y :: r", rf"more than {X.MAX_WAYS} ways"),
    ("not a regex", b"clip/* ~ ( :: r", r"not a regular expression"),
    ("no reason", b"clip/*", r"expected '<glob> :: <reason>'"),
]


@pytest.mark.parametrize("name, line, reason", EXPECTATIONS_ATTACKS, ids=[a[0] for a in EXPECTATIONS_ATTACKS])
def test_run_refuses_each_expectations_attack(tmp_path, capfd, good_corpus, name, line, reason):
    d = tmp_path / "exp"
    d.mkdir()
    path = with_line(d / "oracle.txt", ["# expected divergences of the oracle"], line)
    rc, err = run_cli(capfd, "run", "--adapter", "oracle", "--in-process", "--corpus", good_corpus,
                      "--out", tmp_path / "out", "--expectations", d, "--no-report")
    assert_refused(rc, err, path, 2, reason)


def test_run_refuses_a_directory_where_the_expectations_file_belongs(tmp_path, capfd, good_corpus):
    d = tmp_path / "exp"
    (d / "oracle.txt").mkdir(parents=True)
    rc, err = run_cli(capfd, "run", "--adapter", "oracle", "--in-process", "--corpus", good_corpus,
                      "--out", tmp_path / "out", "--expectations", d, "--no-report")
    assert_refused(rc, err, d / "oracle.txt", 0, r"is a directory")


@pytest.mark.parametrize("kind", ["missing"])     # a file is the one adapter's expectations file (test_cli.py)
def test_run_refuses_an_expectations_folder_that_is_not_one(tmp_path, capfd, good_corpus, kind):
    d = tmp_path / "exp"
    rc, err = run_cli(capfd, "run", "--adapter", "oracle", "--in-process", "--corpus", good_corpus,
                      "--out", tmp_path / "out", "--expectations", d, "--no-report")
    assert_refused(rc, err, d, 0, r"not a folder|does not exist")


# The most backtracking the subset admits, each with the evidence that makes it backtrack most.
ADMITTED_WORST = [(r"(?i)[a ]?[a ]?[a ]?.*x", "a"), (r"[ -]?[ -]?[ -]?\s*x", " "),
                  (r"(?i)[a ]?[a ]?[a ]?[^x]*?x", "a"), (r"(?is)(?:a|a)(?:a|a)(?:a|a).*x", "a"),
                  (r"-?0\.0 != -?[0-9.]+e-(3[89]|4[0-5])", "-0.0 != 1")]


@pytest.mark.parametrize("pattern, filler", ADMITTED_WORST)
def test_an_admitted_regex_searches_any_evidence_in_bounded_time(pattern, filler):
    """A few seconds of CPU at most (about 1 s measured), where the refused `a.*b.*c` takes minutes on
    evidence of the same length and `(a+)+b` never ends (docs/EXPECTATIONS.md)."""
    assert X.regex_problem(pattern) == "", X.regex_problem(pattern)
    known = X.KnownDivergences([X.Pattern("*", "r", "f", 1, re.compile(".*"), re.compile(pattern))])
    evidence = filler * (4 * X.EVIDENCE_CAP)       # longer than the cap: only the cap is searched
    t0 = time.process_time()
    assert known.match("clip/value-mismatch/x/float32/x:1d/0", evidence) is None
    spent = time.process_time() - t0
    assert spent < 20, f"actual: {spent:.1f} s of CPU for /{pattern}/ on {filler!r}...; expected: bounded"


def test_only_the_first_evidence_cap_characters_are_searched():
    known = X.KnownDivergences([X.Pattern("*", "r", "f", 1, re.compile(".*"), re.compile("needle"))])
    assert known.match("k", "x" * (X.EVIDENCE_CAP - 6) + "needle") == "r"
    assert known.match("k", "x" * (X.EVIDENCE_CAP - 5) + "needle") is None


def test_the_shipped_expectations_are_in_the_subset():
    loaded = X.check_dir(X.DEFAULT_DIR)
    assert loaded and all(e.patterns for name, e in loaded.items() if name != "oracle")


# ---- pytest's --corpus and --expectations ---------------------------------------------------

def run_pytest(*args):
    return subprocess.run([sys.executable, "-m", "pytest", "suites/test_corpus.py", "-p", "no:xdist", "-q",
                           "--adapter", "oracle", "--in-process", *map(str, args)],
                          cwd=ROOT, env=ENV, text=True, capture_output=True, timeout=600)


@pytest.mark.parametrize("name", ["NaN token", "deep nesting", "absurd shape", "wrong type: label"])
def test_pytest_corpus_refuses_an_attack_as_a_usage_error(tmp_path, corpus_lines, name):
    _, lineno, change, reason = next(a for a in CORPUS_ATTACKS if a[0] == name)
    path = hostile_corpus(tmp_path, corpus_lines, lineno, change)
    r = run_pytest("--corpus", path)
    out = r.stdout + r.stderr
    assert r.returncode == pytest.ExitCode.USAGE_ERROR, f"actual: exit {r.returncode} {out[-800:]!r}"
    assert f"ERROR: bad corpus: {path}:{lineno}: " in out and re.search(reason, out), out[-800:]
    assert "Traceback" not in out


@pytest.mark.parametrize("name", ["nested quantifiers", "invalid UTF-8"])
def test_pytest_expectations_refuses_an_attack_as_a_usage_error(tmp_path, name):
    _, line, reason = next(a for a in EXPECTATIONS_ATTACKS if a[0] == name)
    d = tmp_path / "exp"
    d.mkdir()
    path = with_line(d / "oracle.txt", ["# x"], line)
    r = run_pytest("--expectations", d)
    out = r.stdout + r.stderr
    assert r.returncode == pytest.ExitCode.USAGE_ERROR, f"actual: exit {r.returncode} {out[-800:]!r}"
    assert f"ERROR: --expectations: {path}:2: " in out and re.search(reason, out), out[-800:]
    assert "Traceback" not in out


# ---- summary.json: nothing reads it back, so every summary written must be valid ---------------

EDGE_VALUES = [
    ("an adapter name of markup and emoji", 2, setp(["adapter"], "<b>v\U0001F600\"'</b>")),
    ("the largest finite elapsed time", 2, setp(["elapsed_s"], 1.7976931348623157e308)),
    ("the largest integer a float holds (309 digits)", 4, setp(["mismatch", "count"], int(1.7976931348623157e308))),
    ("null header fields", 1, setp(["corpus_cases"], None)),
    ("a null adapter version", 1, setp(["adapters", 0, "version"], None)),
    ("unknown fields, deep but under the limit", 2, setp(["extra"], json.loads(deep(MAX_DEPTH - 2)))),
    ("clauses no catalogue knows", 3, setp(["clauses"], ["ZZ-NEW", "", "CL-FORMULA"])),
    ("an escaped surrogate pair (an emoji)", 2, raw_sub('"outcome": "returned out"', '"outcome": "\\ud83d\\ude00"')),
]


@pytest.mark.parametrize("name, lineno, change", EDGE_VALUES, ids=[e[0] for e in EDGE_VALUES])
def test_an_accepted_results_file_gives_a_summary_valid_against_its_schema(tmp_path, capfd, results_lines, name,
                                                                          lineno, change):
    from reports.summary import validate
    path = hostile_results(tmp_path, results_lines, lineno, change)
    rc, err = run_cli(capfd, "report", path, "--out", tmp_path / "out")
    assert rc == 0, f"actual: exit {rc} {err[-600:]!r}; expected: the file is accepted"

    def no_constant(token):
        raise AssertionError(f"summary.json holds {token}: not JSON")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"), parse_constant=no_constant)
    validate(summary)
