"""The shipped corpus: it loads, its hash is the recorded one and not stale, it covers every clause, it is small."""
import json

import pytest

from oracle.clauses import CLAUSES
from contract.codec import CodecError
from contract.inputfile import InputFileError
from suites import corpus as C

MAX_BYTES = 5_000_000
UNREACHABLE = set()


@pytest.fixture(scope="module")
def shipped():
    return C.load_corpus()


def test_shipped_corpus_loads_and_matches_its_recorded_hash(shipped):
    cases, digest = shipped
    assert len(cases) >= 2000, f"actual: {len(cases)} cases; expected: a few thousand"
    assert digest == C.recorded_hash(C.DEFAULT_PATH), (
        f"actual: corpus.jsonl hashes to {digest}; expected: {C.recorded_hash(C.DEFAULT_PATH)} "
        f"from corpus.sha256; repro: python -m suites.corpus build")


def test_shipped_corpus_is_not_stale(tmp_path, shipped):
    """Rebuilding from the strategies, doc examples, error cases and oracle gives the same bytes."""
    rebuilt = C.write_corpus(tmp_path / "corpus.jsonl")
    assert rebuilt == shipped[1], (
        f"actual: a rebuild hashes to {rebuilt}; expected: the shipped {shipped[1]}. The strategies, "
        f"the doc examples, the error cases or the oracle's clause tags changed: python -m suites.corpus build")
    assert (tmp_path / "corpus.sha256").read_text().split()[0] == rebuilt.split(":")[1]


def test_corpus_has_every_origin_and_unique_ids(shipped):
    cases, _ = shipped
    assert {c.origin for c in cases} == {"doc-example", "error-case", "boundary", "generated"}
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "a case id appears twice"


@pytest.mark.parametrize("clause", sorted(set(CLAUSES) - UNREACHABLE))
def test_every_clause_is_exercised_by_a_corpus_case(shipped, clause):
    cases, _ = shipped
    assert any(clause in c.clauses for c in cases), f"actual: no corpus case tagged {clause}; expected: one"


def test_corpus_is_small(shipped):
    size = C.DEFAULT_PATH.stat().st_size
    assert size < MAX_BYTES, f"actual: {size} bytes; expected: < {MAX_BYTES}"


def test_iter_corpus_streams(tmp_path, shipped):
    it = C.iter_corpus(C.DEFAULT_PATH)
    assert next(it).id == shipped[0][0].id        # a generator: the first case without reading all


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _header(n):
    return json.dumps({"record": "corpus", "schema": 1, "suite_version": "0.1.0", "cases": n})


@pytest.fixture
def good_lines(shipped):
    cases = shipped[0][:3]
    return [_header(3)] + [json.dumps(c.to_json()) for c in cases]


@pytest.mark.parametrize("damage, where, what", [
    (lambda ls: ls[:2] + ["{not json"] + ls[3:], ":3:", "not JSON"),
    (lambda ls: ls[1:], ":1:", "header"),
    (lambda ls: [ls[0].replace('"schema": 1', '"schema": 9')] + ls[1:], ":1:", "schema"),
    (lambda ls: ls[:3], "", "truncated"),
    (lambda ls: ls[:2] + [ls[2].replace('"id": "', '"id": "0')] + ls[3:], ":3:", "does not match"),
    (lambda ls: ls[:3] + [json.dumps({"op": "clip"})], ":4:", "lacks"),
])
def test_malformed_corpus_names_file_and_line(tmp_path, good_lines, damage, where, what):
    path = _write(tmp_path / "bad.jsonl", damage(good_lines))
    with pytest.raises(CodecError) as e:
        C.load_corpus(path)
    assert str(path) + where in str(e.value) and what in str(e.value), str(e.value)


def test_good_copy_loads(tmp_path, good_lines):
    cases, digest = C.load_corpus(_write(tmp_path / "ok.jsonl", good_lines))
    assert len(cases) == 3 and digest.startswith("sha256:") and len(digest) == 7 + 64


def test_missing_corpus_is_a_clear_error(tmp_path):
    with pytest.raises(InputFileError, match=f"{tmp_path / 'absent.jsonl'}: no corpus here"):
        C.load_corpus(tmp_path / "absent.jsonl")


def test_command_line_check(tmp_path, capsys):
    assert C.main(["check"]) == 0
    assert "cases, sha256:" in capsys.readouterr().out
    bad = tmp_path / "corpus.jsonl"
    bad.write_bytes(C.DEFAULT_PATH.read_bytes())
    (tmp_path / "corpus.sha256").write_text("0" * 64 + "  corpus.jsonl\n")
    assert C.main(["check", str(bad)]) == 1
    assert "corpus.sha256 records" in capsys.readouterr().err
