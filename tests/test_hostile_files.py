"""Hostile corpus and results files, fuzzed: each is refused naming the damaged line, or read back exactly.

Never a KeyError/TypeError/RecursionError from deep inside, never code
execution (both readers are JSON only), never an allocation driven by a
declared size alone (measured with tracemalloc, which sees NumPy's buffers).
"""
import base64
import json
import re
import tracemalloc

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conform import runner
from contract.codec import CodecError, encode_array
from contract.inputfile import InputFileError
from contract.results import ResultsError, iter_records, read_case, read_values
from reports.render import write_report
from reports.summary import validate
from suites import corpus as C

from bad_adapters import clip_case, write_corpus

FUZZ = settings(max_examples=120, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# A file read must not cost more than a constant factor of its own size (plus the interpreter's slack).
ALLOC_SLACK = 2 << 20

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)
dtype_names = st.sampled_from(["float32", "float64", "bfloat16", "int64", "bool", "uint8", "object", "O",
                               "<f4", "float", "", "V8", "S3", "complex64"]) | json_values
shapes = st.lists(st.integers(min_value=-3, max_value=1 << 70) | st.sampled_from([0, 1, 2, 3, 1 << 26, 1 << 31]),
                  max_size=4) | json_values
b64_texts = st.text(max_size=40) | st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="module")
def corpus_lines(workdir):
    cases = [clip_case("a", x=[1.0, -0.0, float("nan")]), clip_case("b", x=[3, 4], dtype="int64", lo=None),
             clip_case("c", x=[1.5], dtype="bfloat16", hi=None)]
    path = workdir / "good_corpus.jsonl"
    write_corpus(str(path), cases)
    return path.read_text().splitlines()


@pytest.fixture(scope="module")
def results_lines(workdir, corpus_lines):
    # A real run: oracle passes, WrongOutputs fails with expected/actual values in the records.
    corpus = workdir / "for_results.jsonl"
    cases = [clip_case(lbl, x=[1.0, 7.0, float(i)]) for i, lbl in enumerate(["ok", "value", "shape", "dtype"])]
    write_corpus(str(corpus), cases)
    r = runner.run(["oracle", "bad_adapters:WrongOutputs"], corpus=str(corpus), out_dir=str(workdir / "run"),
                   in_process=True)
    assert r.exit_code == runner.EXIT_DIVERGED, r.message
    lines = open(r.results_path).read().splitlines()
    assert any('"actual_values"' in line for line in lines)
    return lines


# ---- the readers, used as a caller would use them ----------------------------------------

def read_corpus(path):
    return [c.id for c in C.iter_corpus(path)]


def read_results(path):
    out = []
    for n, rec in enumerate(iter_records(str(path)), 1):
        if rec["record"] == "case":
            read_case(rec, str(path), n)
            read_values(rec, "actual_values", str(path), n)
            read_values(rec, "expected_values", str(path), n)
        out.append(rec)
    return out


def refused_with_file_and_line(read, error, path, lines_total):
    """Read the file; success is fine, any failure must be `error` naming path:line (1 <= line <= total)."""
    try:
        read(path)
    except error as e:
        msg = str(e)
        m = re.search(re.escape(str(path)) + r":(\d+)", msg)
        if m is None:
            # the one whole-file error: a corpus whose case count differs from its header
            assert str(path) in msg and "header says" in msg, f"actual: {msg!r}; expected: file and line"
            return msg
        assert 1 <= int(m.group(1)) <= lines_total, f"actual: {msg!r}; expected a line in 1..{lines_total}"
        return msg
    return None


def write(path, lines, newline_at_end=True):
    data = "\n".join(lines) + ("\n" if newline_at_end else "")
    path.write_bytes(data.encode("utf-8", errors="surrogatepass"))
    return path


# ---- mutations -------------------------------------------------------------------------------

def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    if not path:
        return value
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    return obj


def _delete(obj, path):
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    del parent[path[-1]]
    return obj


@st.composite
def json_mutation(draw, line):
    """A record with one value anywhere replaced by another type, deleted, or set to a targeted bad value."""
    obj = json.loads(line)
    paths = list(_paths(obj))
    path = draw(st.sampled_from(paths))
    leaf = path[-1] if path else None
    if leaf == "dtype":
        return json.dumps(_set(obj, path, draw(dtype_names)))
    if leaf == "shape":
        return json.dumps(_set(obj, path, draw(shapes)))
    if leaf == "data":
        return json.dumps(_set(obj, path, draw(b64_texts | json_values)))
    if leaf == "schema":
        return json.dumps(_set(obj, path, draw(json_values)))
    if path and draw(st.booleans()):
        return json.dumps(_delete(obj, path))
    return json.dumps(_set(obj, path, draw(json_values)))


raw_garbage = (st.text(max_size=60).map(lambda s: s.replace("\n", " ").replace("\r", " "))
               | st.sampled_from(["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000,
                                  '{"record":"case","schema":' + "9" * 5000 + "}", "NaN", "-Infinity",
                                  "\x00\x01\x02", '"\\ud800"', "{}", "[]", "null", "1e999999"]))


# ---- corpus reader -------------------------------------------------------------------------

CASE_DEFAULTS = {"origin": "generated", "label": "", "clauses": []}     # Case.from_json's, for absent fields


def refused_where_damaged(error, path, i):
    """A refusal must name the damaged line i + 1; a changed header (i == 0) may instead be caught
    where a later line or the case count contradicts it."""
    assert isinstance(error, InputFileError) and error.path == str(path), f"actual: {error!r}"
    assert error.line == i + 1 or i == 0, f"actual: {error}; expected: refused at line {i + 1}"
    assert f"{path}:{i + 1}: " in str(error) or i == 0, str(error)


@FUZZ
@given(data=st.data())
def test_a_mutated_corpus_line_is_refused_at_that_line_or_read_back_exactly(workdir, corpus_lines, data):
    i = data.draw(st.integers(0, len(corpus_lines) - 1), label="line index")
    new = data.draw(json_mutation(corpus_lines[i]) | raw_garbage, label="new line")
    lines = corpus_lines[:i] + [new] + corpus_lines[i + 1:]
    path = write(workdir / "fuzz_corpus.jsonl", lines)
    try:
        cases = list(C.iter_corpus(path))
    except CodecError as e:
        event("refused")
        refused_where_damaged(e, path, i)
        return
    event("accepted")
    # Accepted: the cases are exactly what the lines say, nothing coerced or dropped.
    assert [c.to_json() for c in cases] == [{**CASE_DEFAULTS, **json.loads(line)} for line in lines[1:]]


@FUZZ
@given(data=st.data())
def test_corpus_reader_refuses_truncation_anywhere(workdir, corpus_lines, data):
    blob = ("\n".join(corpus_lines) + "\n").encode()
    # Only the final newline may go: the last record is then still whole.
    cut = data.draw(st.integers(0, len(blob) - 2), label="cut at byte")
    path = workdir / "cut_corpus.jsonl"
    path.write_bytes(blob[:cut])
    # Unlike results, a corpus is never legitimately cut short: every cut is refused.
    msg = refused_with_file_and_line(read_corpus, CodecError, path, len(corpus_lines))
    assert msg is not None, f"actual: a corpus cut at byte {cut} of {len(blob)} loaded; expected: refused"


# ---- results reader ------------------------------------------------------------------------

@settings(FUZZ, max_examples=80)
@given(data=st.data())
def test_a_mutated_results_line_is_refused_at_that_line_or_read_back_and_reported(workdir, results_lines, data):
    i = data.draw(st.integers(0, len(results_lines) - 1), label="line index")
    new = data.draw(json_mutation(results_lines[i]) | raw_garbage, label="new line")
    lines = results_lines[:i] + [new] + results_lines[i + 1:]
    path = write(workdir / "fuzz_results.jsonl", lines)
    try:
        recs = read_results(path)
    except ResultsError as e:
        event("refused")
        refused_where_damaged(e, path, i)
        return
    event("accepted")
    # Accepted: every record is exactly its line, every case and value reads back to its encoding,
    # and the report renders with a summary.json that is strict JSON valid against its schema.
    assert recs == [json.loads(line) for line in lines]
    for rec in recs:
        if rec["record"] == "case":
            assert read_case(rec).to_json() == {**CASE_DEFAULTS, **rec["case"]}
            for which in ("actual_values", "expected_values"):
                stored = {k: v for k, v in rec.get(which, {}).items() if "unencodable" not in v}
                assert {k: encode_array(v) for k, v in read_values(rec, which).items()} == stored
    out = write_report([path], workdir / "fuzz_report")
    summary = json.loads((workdir / "fuzz_report" / "summary.json").read_text(), parse_constant=_no_constant)
    validate(summary)
    assert summary["run"]["records"] == out["records"]


def _no_constant(name):
    raise AssertionError(f"summary.json holds {name}: not JSON")


@FUZZ
@given(data=st.data())
def test_results_reader_accepts_a_cut_last_line_and_refuses_a_cut_elsewhere(workdir, results_lines, data):
    i = data.draw(st.integers(1, len(results_lines) - 1), label="line index")
    line = results_lines[i]
    cut = data.draw(st.integers(1, len(line) - 1), label="keep bytes")
    lines = results_lines[:i] + [line[:cut]] + results_lines[i + 1:]
    last = i == len(results_lines) - 1
    path = write(workdir / "cut_results.jsonl", lines, newline_at_end=not last)
    if last:
        recs = read_results(path)       # a killed run: everything before the torn line is kept
        assert len(recs) == len(results_lines) - 1, f"actual: {len(recs)} records; expected: {len(results_lines) - 1}"
    else:
        msg = refused_with_file_and_line(read_results, ResultsError, path, len(lines))
        assert msg and f"{path}:{i + 1}:" in msg, f"actual: {msg!r}; expected: refused at line {i + 1}"


# ---- size and execution --------------------------------------------------------------------

def _with_input(line, **array):
    obj = json.loads(line)
    target = obj["case"] if "case" in obj else obj
    target["inputs"]["x"] = array
    return json.dumps(obj)


@pytest.mark.parametrize("shape", [[1 << 26], [1 << 40], [1 << 20, 1 << 20], [65536, 65536, 65536, 65536]])
@pytest.mark.parametrize("which", ["corpus", "results"])
def test_a_huge_declared_shape_is_refused_without_allocating_it(workdir, corpus_lines, results_lines, shape, which):
    lines = list(corpus_lines if which == "corpus" else results_lines)
    lines[1] = _with_input(lines[1], dtype="float64", shape=shape, data="AAAAAAAAAAA=")
    path = write(workdir / f"huge_{which}.jsonl", lines)
    read, error = (read_corpus, CodecError) if which == "corpus" else (read_results, ResultsError)
    tracemalloc.start()
    try:
        msg = refused_with_file_and_line(read, error, path, len(lines))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert msg and f"{path}:2:" in msg, f"actual: {msg!r}; expected: refused at line 2"
    assert peak < 4 * path.stat().st_size + ALLOC_SLACK, f"actual: peak {peak} bytes; expected: bounded by the file"


@FUZZ
@given(shape=st.lists(st.integers(0, 1 << 40) | st.sampled_from([0, 1]), min_size=1, max_size=40), payload=st.binary(max_size=64))
def test_allocation_follows_the_bytes_present_not_the_declared_shape(workdir, corpus_lines, shape, payload):
    lines = list(corpus_lines)
    lines[1] = _with_input(lines[1], dtype="float64", shape=shape, data=base64.b64encode(payload).decode())
    path = write(workdir / "alloc_corpus.jsonl", lines)
    tracemalloc.start()
    try:
        refused_with_file_and_line(read_corpus, CodecError, path, len(lines))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * path.stat().st_size + ALLOC_SLACK, f"actual: peak {peak} bytes for shape {shape}"


CODE = ["__import__('os').system('touch {flag}')", "!!python/object/apply:os.system ['touch {flag}']",
        "{{{{ ''.__class__.__mro__ }}}}", "$(touch {flag})", "`touch {flag}`"]


@pytest.mark.parametrize("which", ["corpus", "results"])
def test_text_that_looks_like_code_is_never_run(workdir, corpus_lines, results_lines, which):
    flag = workdir / f"executed_{which}"
    lines = list(corpus_lines if which == "corpus" else results_lines)
    for template in CODE:
        text = template.format(flag=flag)
        obj = json.loads(lines[1])
        for field in ("op", "origin", "label", "id"):
            mutated = json.loads(json.dumps(obj))
            (mutated["case"] if "case" in mutated else mutated)[field] = text
            path = write(workdir / f"code_{which}.jsonl", [lines[0], json.dumps(mutated), *lines[2:]])
            if which == "corpus":
                refused_with_file_and_line(read_corpus, CodecError, path, len(lines))
            else:
                refused_with_file_and_line(read_results, ResultsError, path, len(lines))
    assert not flag.exists(), "actual: a field's text was executed; expected: data only"


@pytest.mark.parametrize("line, what", [
    ("[" * 100_000 + "]" * 100_000, "nested"),
    ('{"record":"case","schema":' + "9" * 5000 + "}", "digits"),
])
@pytest.mark.parametrize("which", ["corpus", "results"])
def test_json_the_parser_itself_refuses_is_a_reader_error(workdir, corpus_lines, results_lines, line, what, which):
    lines = list(corpus_lines if which == "corpus" else results_lines)
    lines[1] = line
    path = write(workdir / f"parser_{which}.jsonl", lines)
    read, error = (read_corpus, CodecError) if which == "corpus" else (read_results, ResultsError)
    with pytest.raises(error, match=re.escape(f"{path}:2:")):
        read(path)


@pytest.mark.parametrize("params", [{"float": "nan"}, {"a": {"float": [1]}}, {"a": {"float": {"x": 1}}}])
def test_params_that_decode_to_a_scalar_or_bad_tag_are_refused(workdir, corpus_lines, params):
    obj = json.loads(corpus_lines[1])
    obj["params"] = params
    path = write(workdir / "params_corpus.jsonl", [corpus_lines[0], json.dumps(obj), *corpus_lines[2:]])
    with pytest.raises(CodecError, match=re.escape(f"{path}:2:")):
        read_corpus(path)


def test_the_good_files_read(workdir, corpus_lines, results_lines):
    """The fuzz bases are valid, so a refusal above comes from the mutation."""
    assert len(read_corpus(write(workdir / "base_c.jsonl", corpus_lines))) == len(corpus_lines) - 1
    assert len(read_results(write(workdir / "base_r.jsonl", results_lines))) == len(results_lines)
